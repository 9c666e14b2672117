/* SPDX-License-Identifier: MIT */
/*
 * udp_tx.c - the send path of the UDP sockets: datagrams described once,
 * grouped into UDP_SEGMENT trains, sent with sendmmsg(), with the
 * fallbacks of udp.h
 *
 * Every send call works in three steps over the scratch space of struct
 * udp_tx (udp_int.h), allocated at open:
 *
 *  1. describe: each datagram of the call is appended to a table (its
 *     length, and its ranges appended to an iovec array).  Nothing is
 *     copied: the ranges point at the caller's bytes, or, for segments of
 *     a super-packet, at a header slot plus the super-packet's payload
 *     (voff_gso_segment_sg()).  When the table or the iovecs are full,
 *     what is described so far is sent first (step 2 and 3).
 *  2. plan: consecutive datagrams become one message while the socket uses
 *     UDP_SEGMENT and the kernel's rules allow it: all of the first one's
 *     length but the last, which may be shorter; at most VOFF_UDP_MAX_SEGS
 *     datagrams, max_train bytes and UDP_IOV_MAX ranges.  A datagram's
 *     ranges follow the previous datagram's in the iovec array, so a
 *     message is one slice of it and needs no copy either.
 *  3. send: up to UDP_TX_MSGS messages per sendmmsg().  A message the
 *     kernel refuses is handled by its error: EIO on a train (a route
 *     without checksum offload before Linux 6.11, or IPsec) turns UDP_SEGMENT
 *     off for the socket and plans again from that train, now as single
 *     datagrams; EINVAL or EMSGSIZE on a train (its shape) plans that
 *     train again as single datagrams, for this call only; any other
 *     error drops the message's datagrams and goes on with the next.
 *
 * A send therefore puts on the wire exactly the datagrams of one sendto()
 * each, in the same order: only the number of system calls differs.
 */
#include <errno.h>
#include <netinet/udp.h>
#include <string.h>

#include <voff/gso.h>
#include <voff/pkt.h>
#include <voff/udp.h>

#include "udp_int.h"

#ifndef SOL_UDP
#define SOL_UDP IPPROTO_UDP
#endif

/* ---- describe ------------------------------------------------------------ */

static void tx_begin(struct voff_udp *u, const union voff_udp_addr *to)
{
	struct udp_tx *tx = u->tx;

	tx->to = to;
	tx->ndg = 0;
	tx->niov = 0;
	tx->slots_used = 0;
	tx->sent = 0;
	tx->err = 0;
}

static void tx_error(struct udp_tx *tx, int err)
{
	if (!tx->err)
		tx->err = err;
}

/* Count @n datagrams refused before the kernel saw them. */
static void tx_drop(struct voff_udp *u, unsigned int n, int err)
{
	u->st.tx_dropped += n;
	tx_error(u->tx, err);
}

static void tx_flush(struct voff_udp *u);

/*
 * Make room for @ndg datagrams of @niov ranges and @slot header bytes,
 * sending what is described when they do not fit.  Return: 0, or
 * -EMSGSIZE when they cannot fit even an empty scratch.
 */
static int tx_reserve(struct voff_udp *u, unsigned int ndg, unsigned int niov,
		      size_t slot)
{
	struct udp_tx *tx = u->tx;

	if (ndg > UDP_TX_DGRAMS || niov > UDP_TX_IOVS || slot > UDP_TX_SLOTS)
		return -EMSGSIZE;
	if (tx->ndg + ndg > UDP_TX_DGRAMS || tx->niov + niov > UDP_TX_IOVS ||
	    tx->slots_used + slot > UDP_TX_SLOTS)
		tx_flush(u);
	return 0;
}

/* Record the datagram whose @niov ranges were just appended to tx->iov. */
static void tx_add_dg(struct udp_tx *tx, unsigned int niov, size_t len)
{
	struct udp_dg *d = &tx->dg[tx->ndg++];

	d->iov = tx->niov;
	d->niov = niov;
	d->len = (uint32_t)len;
	tx->niov += niov;
}

/* ---- plan and send ------------------------------------------------------- */

/* How many datagrams from @i join one message (1 when they cannot). */
static unsigned int train_len(const struct voff_udp *u, unsigned int i,
			      unsigned int single_end)
{
	const struct udp_tx *tx = u->tx;
	const struct udp_dg *d = &tx->dg[i];
	uint32_t bytes = d->len, niov = d->niov;
	unsigned int k = 1;

	if (!u->gso || i < single_end || !d->len || d->len > UINT16_MAX)
		return 1;
	while (i + k < tx->ndg && k < VOFF_UDP_MAX_SEGS) {
		const struct udp_dg *e = &tx->dg[i + k];

		if (!e->len || e->len > d->len ||
		    bytes + e->len > u->max_train ||
		    niov + e->niov > UDP_IOV_MAX)
			break;
		bytes += e->len;
		niov += e->niov;
		k++;
		if (e->len < d->len)
			break;
	}
	return k;
}

/* Set message @m to datagrams [@i, @i + @k). */
static void plan_msg(struct voff_udp *u, unsigned int m, unsigned int i,
		     unsigned int k)
{
	struct udp_tx *tx = u->tx;
	const struct udp_dg *first = &tx->dg[i], *last = &tx->dg[i + k - 1];
	struct msghdr *mh = &tx->msg[m].msg_hdr;
	uint32_t bytes = 0;

	for (unsigned int j = 0; j < k; j++)
		bytes += first[j].len;
	memset(mh, 0, sizeof(*mh));
	if (tx->to) {
		mh->msg_name = (void *)&tx->to->sa;
		mh->msg_namelen = voff_udp_addr_len(tx->to);
	}
	mh->msg_iov = &tx->iov[first->iov];
	mh->msg_iovlen = last->iov + last->niov - first->iov;
	if (k > 1) {
		uint16_t seg = (uint16_t)first->len;
		struct cmsghdr *c;

		mh->msg_control = &tx->ctl[m];
		mh->msg_controllen = CMSG_SPACE(sizeof(seg));
		c = CMSG_FIRSTHDR(mh);
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(seg));
		memcpy(CMSG_DATA(c), &seg, sizeof(seg));
	}
	tx->msg_first[m] = i;
	tx->msg_dgs[m] = k;
	tx->msg_bytes[m] = bytes;
}

/* Plan up to UDP_TX_MSGS messages from datagram @i.  Return: how many. */
static unsigned int plan(struct voff_udp *u, unsigned int i,
			 unsigned int single_end)
{
	unsigned int m = 0;

	while (i < u->tx->ndg && m < UDP_TX_MSGS) {
		unsigned int k = train_len(u, i, single_end);

		plan_msg(u, m++, i, k);
		i += k;
	}
	return m;
}

static void count_sent(struct voff_udp *u, unsigned int m)
{
	struct udp_tx *tx = u->tx;

	u->st.tx_msgs++;
	u->st.tx_trains += tx->msg_dgs[m] > 1;
	u->st.tx_datagrams += tx->msg_dgs[m];
	u->st.tx_bytes += tx->msg_bytes[m];
	tx->sent += tx->msg_dgs[m];
}

/*
 * Send the planned messages [@m, @n).  Return: the datagram to plan again
 * from, with *@single_end raised past a train that must go singly and
 * u->gso cleared after an EIO; or the end of the last message when all
 * were sent or dropped.
 */
static unsigned int send_msgs(struct voff_udp *u, unsigned int m,
			      unsigned int n, unsigned int *single_end)
{
	struct udp_tx *tx = u->tx;
	int flags = (u->flags & VOFF_UDP_F_NONBLOCK) ? MSG_DONTWAIT : 0;
	bool single = u->flags & VOFF_UDP_F_SINGLE;

	while (m < n) {
		int r = u->sendmmsg(u->fd, tx->msg + m, single ? 1 : n - m,
				    flags);
		int err = r < 0 ? errno : EIO;

		u->st.tx_calls++;
		if (r > 0) {
			for (int j = 0; j < r; j++)
				count_sent(u, m++);
			continue;
		}
		if (err == EINTR)
			continue;
		if (tx->msg_dgs[m] > 1 && err == EIO) {
			u->gso = false;
			u->st.fallback_gso_eio++;
			return tx->msg_first[m];
		}
		if (tx->msg_dgs[m] > 1 && (err == EINVAL || err == EMSGSIZE)) {
			u->st.fallback_train++;
			*single_end = tx->msg_first[m] + tx->msg_dgs[m];
			return tx->msg_first[m];
		}
		tx_drop(u, tx->msg_dgs[m], -err);
		m++;
	}
	return tx->msg_first[n - 1] + tx->msg_dgs[n - 1];
}

/* Send every datagram described, then empty the scratch. */
static void tx_flush(struct voff_udp *u)
{
	struct udp_tx *tx = u->tx;
	unsigned int i = 0, single_end = 0;

	while (i < tx->ndg) {
		unsigned int n = plan(u, i, single_end);

		i = send_msgs(u, 0, n, &single_end);
	}
	tx->ndg = 0;
	tx->niov = 0;
	tx->slots_used = 0;
}

static int tx_end(struct voff_udp *u)
{
	tx_flush(u);
	return u->tx->err ? u->tx->err : (int)u->tx->sent;
}

/*
 * Start a send call to @to (NULL: the connected peer), whose other
 * arguments are valid when @args_ok.  Return: 0, or why nothing can be
 * sent.
 */
static int tx_start(struct voff_udp *u, bool args_ok,
		    const union voff_udp_addr *to)
{
	if (!u || !args_ok)
		return -EINVAL;
	if (!to && !u->connected)
		return -EDESTADDRREQ;
	if (to && to->sa.sa_family != u->family)
		return -EINVAL;
	tx_begin(u, to);
	return 0;
}

/* ---- the three ways in --------------------------------------------------- */

/* Ranges of @iov that bytes [@off, @off + @len) of the whole touch. */
static unsigned int span(const struct iovec *iov, unsigned int iovcnt,
			 unsigned int ci, size_t coff, size_t len)
{
	unsigned int n = 0;

	for (; ci < iovcnt && len; ci++, coff = 0) {
		size_t take = iov[ci].iov_len - coff;

		if (!take)
			continue;
		if (take > len)
			take = len;
		len -= take;
		n++;
	}
	return n;
}

/*
 * Move the cursor (@ci, @coff) over the next @len bytes of @iov, appending
 * them as ranges of @tx's scratch unless @tx is NULL (skipped).
 */
static void take_ranges(struct udp_tx *tx, const struct iovec *iov,
			unsigned int *ci, size_t *coff, size_t len)
{
	unsigned int at = tx ? tx->niov : 0;

	while (len) {
		size_t take = iov[*ci].iov_len - *coff;

		if (take > len)
			take = len;
		if (take && tx) {
			struct iovec *v = &tx->iov[at++];

			v->iov_base = (uint8_t *)iov[*ci].iov_base + *coff;
			v->iov_len = take;
		}
		len -= take;
		*coff += take;
		if (*coff == iov[*ci].iov_len) {
			(*ci)++;
			*coff = 0;
		}
	}
}

int voff_udp_send(struct voff_udp *u, const struct iovec *iov,
		  unsigned int iovcnt, size_t seg,
		  const union voff_udp_addr *to)
{
	size_t total = 0, coff = 0;
	unsigned int ci = 0;
	int err = tx_start(u, iov || !iovcnt, to);

	if (err)
		return err;
	for (unsigned int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (!seg || seg > total)
		seg = total;
	do {
		size_t len = total < seg ? total : seg;
		unsigned int n = span(iov, iovcnt, ci, coff, len);

		if (n > UDP_IOV_MAX || tx_reserve(u, 1, n, 0)) {
			take_ranges(NULL, iov, &ci, &coff, len);
			tx_drop(u, 1, -EMSGSIZE);
		} else {
			take_ranges(u->tx, iov, &ci, &coff, len);
			tx_add_dg(u->tx, n, len);
		}
		total -= len;
	} while (total);
	return tx_end(u);
}

int voff_udp_send_sg(struct voff_udp *u, const struct voff_sg *dgrams,
		     unsigned int n, const union voff_udp_addr *to)
{
	int err = tx_start(u, dgrams || !n, to);

	if (err)
		return err;
	for (unsigned int i = 0; i < n; i++) {
		const struct voff_sg *sg = &dgrams[i];

		if (sg->n > UDP_IOV_MAX || tx_reserve(u, 1, sg->n, 0)) {
			tx_drop(u, 1, -EMSGSIZE);
			continue;
		}
		memcpy(&u->tx->iov[u->tx->niov], sg->iov,
		       sg->n * sizeof(*sg->iov));
		tx_add_dg(u->tx, sg->n, sg->len);
	}
	return tx_end(u);
}

/*
 * Describe the segments of super-packet @pkt, cut by voff's GSO into
 * header slots of the scratch and ranges of its payload.  Return: 0 or
 * the error that dropped it.
 */
static int add_super(struct voff_udp *u, const struct voff_pkt *pkt)
{
	static const struct voff_gso_opts full = {
		.csum_mode = VOFF_GSO_CSUM_FULL
	};
	struct udp_tx *tx = u->tx;
	struct voff_gso_info info;
	size_t slot;
	int n;

	n = voff_gso_count(pkt, &full, &info);
	if (n)
		return n;
	slot = ((size_t)info.hdr_len + 7) & ~(size_t)7;
	if (info.segs > UDP_TX_DGRAMS ||
	    tx_reserve(u, info.segs, 2 * info.segs, info.segs * slot))
		return -EMSGSIZE;
	for (unsigned int i = 0; i < info.segs; i++)
		voff_sg_init(&tx->sg[i], &tx->iov[tx->niov + 2 * i], 2);
	n = voff_gso_segment_sg(pkt, &full, tx->slots + tx->slots_used, slot,
				tx->sg, info.segs, NULL);
	if (n < 0)
		return n;
	tx->slots_used += info.segs * slot;
	/* Each view had two entries: close the gaps of 1-entry ones. */
	for (int i = 0; i < n; i++) {
		const struct voff_sg *sg = &tx->sg[i];

		memmove(&tx->iov[tx->niov], sg->iov, sg->n * sizeof(*sg->iov));
		tx_add_dg(tx, sg->n, sg->len);
	}
	u->st.tx_gso_pkts++;
	return 0;
}

/* Describe plain frame @pkt as one datagram.  Return: 0 or its error. */
static int add_plain(struct voff_udp *u, struct voff_pkt *pkt)
{
	struct iovec *v;
	int err;

	if (pkt->csum == VOFF_CSUM_PARTIAL) {
		err = voff_pkt_csum_complete(pkt);
		if (err)
			return err;
	}
	err = tx_reserve(u, 1, 1, 0);
	if (err)
		return err;
	v = &u->tx->iov[u->tx->niov];
	v->iov_base = voff_pkt_data(pkt);
	v->iov_len = pkt->len;
	tx_add_dg(u->tx, 1, pkt->len);
	return 0;
}

int voff_udp_send_frames(struct voff_udp *u, struct voff_pkt *const *pkts,
			 unsigned int n, const union voff_udp_addr *to)
{
	bool ok = pkts || !n;
	int err;

	for (unsigned int i = 0; ok && i < n; i++)
		ok = pkts[i] != NULL;
	err = tx_start(u, ok, to);
	if (err)
		return err;
	for (unsigned int i = 0; i < n; i++) {
		struct voff_pkt *pkt = pkts[i];

		err = voff_pkt_is_gso(pkt) ? add_super(u, pkt) :
					     add_plain(u, pkt);
		if (err)
			tx_drop(u, 1, err);
	}
	return tx_end(u);
}
