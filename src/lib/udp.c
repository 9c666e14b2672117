/* SPDX-License-Identifier: MIT */
/*
 * udp.c - UDP sockets that move trains: addresses, open with the
 * UDP_SEGMENT and UDP_GRO probes, receive with recvmmsg(), and the
 * zero-copy split of a received train (udp.h)
 *
 * The send path lives in udp_tx.c; both share struct voff_udp through
 * udp_int.h.  The socket is created inside its namespace with netns.c's
 * helpers, as the TAP and AF_PACKET ports are.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <voff/pkt.h>
#include <voff/udp.h>

#include "netns_int.h"
#include "udp_int.h"

#ifndef SOL_UDP
#define SOL_UDP IPPROTO_UDP
#endif

/* ---- addresses ----------------------------------------------------------- */

bool voff_udp_addr_eq(const union voff_udp_addr *a,
		      const union voff_udp_addr *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->in4.sin_port == b->in4.sin_port &&
		       a->in4.sin_addr.s_addr == b->in4.sin_addr.s_addr;
	if (a->sa.sa_family == AF_INET6)
		return a->in6.sin6_port == b->in6.sin6_port &&
		       !memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr, 16);
	return a->sa.sa_family == AF_UNSPEC;
}

socklen_t voff_udp_addr_len(const union voff_udp_addr *a)
{
	if (a->sa.sa_family == AF_INET)
		return sizeof(a->in4);
	if (a->sa.sa_family == AF_INET6)
		return sizeof(a->in6);
	return 0;
}

/* "4789" into @port; Return: 0 or -EINVAL. */
static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

int voff_udp_addr_parse(union voff_udp_addr *out, const char *text,
			uint16_t port)
{
	union voff_udp_addr a;
	char host[INET6_ADDRSTRLEN + 2];
	const char *p = NULL;
	size_t n;

	if (!out || !text)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	if (*text == '[') {
		const char *close = strchr(text, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -EINVAL;
		n = (size_t)(close - text - 1);
		text++;
		p = close[1] ? close + 2 : NULL;
	} else {
		const char *colon = strchr(text, ':');

		/* One colon is a port; more make an IPv6 address. */
		if (colon && !strchr(colon + 1, ':')) {
			n = (size_t)(colon - text);
			p = colon + 1;
		} else {
			n = strlen(text);
		}
	}
	if (n == 0 || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, text, n);
	host[n] = '\0';
	if (p && parse_port(p, &port))
		return -EINVAL;
	if (inet_pton(AF_INET, host, &a.in4.sin_addr) == 1) {
		a.in4.sin_family = AF_INET;
		a.in4.sin_port = htons(port);
	} else if (inet_pton(AF_INET6, host, &a.in6.sin6_addr) == 1) {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_port = htons(port);
	} else {
		return -EINVAL;
	}
	*out = a;
	return 0;
}

char *voff_udp_addr_format(const union voff_udp_addr *a, char *buf,
			   size_t cap)
{
	char host[INET6_ADDRSTRLEN];

	if (!cap)
		return buf;
	if (a->sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &a->in4.sin_addr, host, sizeof(host));
		snprintf(buf, cap, "%s:%u", host, ntohs(a->in4.sin_port));
	} else if (a->sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a->in6.sin6_addr, host, sizeof(host));
		snprintf(buf, cap, "[%s]:%u", host, ntohs(a->in6.sin6_port));
	} else {
		snprintf(buf, cap, "-");
	}
	return buf;
}

/* ---- open and close ------------------------------------------------------ */

/* The family of @cfg, or -EINVAL for none, two, or one voff cannot use. */
static int cfg_family(const struct voff_udp_cfg *cfg)
{
	int l = cfg->local.sa.sa_family, r = cfg->remote.sa.sa_family;
	int f = l != AF_UNSPEC ? l : r;

	if (l != AF_UNSPEC && r != AF_UNSPEC && l != r)
		return -EINVAL;
	if (f != AF_INET && f != AF_INET6)
		return -EINVAL;
	return f;
}

static int set_int(int fd, int level, int opt, int val)
{
	return setsockopt(fd, level, opt, &val, sizeof(val)) ? -errno : 0;
}

/*
 * A buffer size: past net.core.[rw]mem_max when the caller may
 * (CAP_NET_ADMIN), else as far as the limit allows, as wireguard-go does.
 */
static int set_buf(int fd, int force, int opt, int val)
{
	if (!set_int(fd, SOL_SOCKET, force, val))
		return 0;
	return set_int(fd, SOL_SOCKET, opt, val);
}

/*
 * UDP_SEGMENT with size 0 only says "no default segmentation", and
 * UDP_GRO 1 turns receive coalescing on: a kernel without the options
 * answers ENOPROTOOPT, and the socket does without them.
 */
static void probe(struct voff_udp *u)
{
	if (!(u->flags & VOFF_UDP_F_NO_GSO)) {
		u->gso = set_int(u->fd, SOL_UDP, UDP_SEGMENT, 0) == 0;
		u->st.fallback_gso_probe = !u->gso;
	}
	if (!(u->flags & VOFF_UDP_F_NO_GRO)) {
		u->gro = set_int(u->fd, SOL_UDP, UDP_GRO, 1) == 0;
		u->st.fallback_gro_probe = !u->gro;
	}
}

/* Create the socket inside @netns.  Return: 0 or a negative errno. */
static int make_socket(struct voff_udp *u, const char *netns)
{
	int saved, err;

	err = voff__netns_enter(netns, &saved);
	if (err)
		return err;
	u->fd = socket(u->family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	err = u->fd < 0 ? -errno : 0;
	voff__netns_leave(saved);
	return err;
}

/* Options, probes, bind and connect.  Return: 0 or a negative errno. */
static int setup(struct voff_udp *u, const struct voff_udp_cfg *cfg)
{
	socklen_t len = sizeof(u->local);
	int err = 0;

	if (cfg->sndbuf)
		err = set_buf(u->fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
	if (!err && cfg->rcvbuf)
		err = set_buf(u->fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
	if (!err && (cfg->flags & VOFF_UDP_F_REUSEADDR))
		err = set_int(u->fd, SOL_SOCKET, SO_REUSEADDR, 1);
	if (err)
		return err;
	probe(u);
	if (cfg->local.sa.sa_family != AF_UNSPEC &&
	    bind(u->fd, &cfg->local.sa, voff_udp_addr_len(&cfg->local)))
		return -errno;
	if (cfg->remote.sa.sa_family != AF_UNSPEC) {
		if (connect(u->fd, &cfg->remote.sa,
			    voff_udp_addr_len(&cfg->remote)))
			return -errno;
		u->remote = cfg->remote;
		u->connected = true;
	}
	if (getsockname(u->fd, &u->local.sa, &len))
		return -errno;
	return 0;
}

int voff_udp_open(struct voff_udp **out, const struct voff_udp_cfg *cfg)
{
	struct voff_udp *u;
	int family, err;

	if (!out || !cfg)
		return -EINVAL;
	family = cfg_family(cfg);
	if (family < 0 || cfg->rx_bufs > 65536 ||
	    cfg->rx_batch > VOFF_BATCH_MAX)
		return -EINVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->tx = calloc(1, sizeof(*u->tx));
	u->each = calloc(1, sizeof(*u->each));
	if (!u->tx || !u->each) {
		err = -ENOMEM;
		goto err_free;
	}
	u->family = family;
	u->flags = cfg->flags;
	if (u->flags & VOFF_UDP_F_SINGLE)
		u->flags |= VOFF_UDP_F_NO_GSO | VOFF_UDP_F_NO_GRO;
	u->sendmmsg = sendmmsg;
	u->rx_bufs = cfg->rx_bufs ? cfg->rx_bufs : VOFF_UDP_RX_BUFS;
	u->rx_batch = cfg->rx_batch ? cfg->rx_batch : VOFF_UDP_RX_BATCH;
	if (u->flags & VOFF_UDP_F_SINGLE)
		u->rx_batch = 1;
	/* IP + UDP + payload + Ethernet stays below gso_max_size (64 KiB). */
	u->max_train = 65536 - 1 - 14 - 8 - (family == AF_INET ? 20 : 40);
	err = make_socket(u, cfg->netns);
	if (err)
		goto err_free;
	err = setup(u, cfg);
	if (err)
		goto err_close;
	err = voff_pool_new(&u->pool, u->rx_bufs, UDP_RX_ROOM);
	if (err)
		goto err_close;
	*out = u;
	return 0;

err_close:
	close(u->fd);
err_free:
	free(u->each);
	free(u->tx);
	free(u);
	return err;
}

void voff_udp_close(struct voff_udp *u)
{
	if (!u)
		return;
	close(u->fd);
	voff_pool_free(u->pool);
	free(u->each);
	free(u->tx);
	free(u);
}

int voff_udp_fd(const struct voff_udp *u)
{
	return u->fd;
}

void voff_udp_info(const struct voff_udp *u, struct voff_udp_info *info)
{
	memset(info, 0, sizeof(*info));
	info->local = u->local;
	info->remote = u->remote;
	info->gso = u->gso;
	info->gro = u->gro;
	info->max_segs = VOFF_UDP_MAX_SEGS;
	info->max_train = u->max_train;
	info->rx_batch = u->rx_batch;
	info->rx_bufs = u->rx_bufs;
}

void voff_udp_stats(const struct voff_udp *u, struct voff_udp_stats *st)
{
	*st = u->st;
}

void voff__udp_set_sendmmsg(struct voff_udp *u,
			    int (*fn)(int fd, struct mmsghdr *msgs,
				      unsigned int n, int flags))
{
	u->sendmmsg = fn ? fn : sendmmsg;
}

/* ---- receive ------------------------------------------------------------- */

/* Errors a socket reports from ICMP: a peer's, not the socket's failure. */
static bool soft_error(int err)
{
	switch (err) {
	case ECONNREFUSED:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
	case EMSGSIZE:
	case EPROTO:
		return true;
	default:
		return false;
	}
}

/* The segment size of a UDP_GRO control message, 0 when there is none. */
static unsigned int gro_size(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c;
	     c = CMSG_NXTHDR(mh, c)) {
		int v;

		if (c->cmsg_level != SOL_UDP || c->cmsg_type != UDP_GRO ||
		    c->cmsg_len < CMSG_LEN(sizeof(v)))
			continue;
		memcpy(&v, CMSG_DATA(c), sizeof(v));
		return v > 0 ? (unsigned int)v : 0;
	}
	return 0;
}

/* Count a message of @len bytes in @segs datagrams. */
static void count_msg(struct voff_udp *u, uint32_t len, uint32_t segs)
{
	u->st.rx_msgs++;
	u->st.rx_trains += segs > 1;
	u->st.rx_datagrams += segs;
	u->st.rx_bytes += len;
}

/*
 * Datagram size of a message of @len bytes (its UDP_GRO size; @len for a
 * lone datagram) and its datagram count in *@segs.
 */
static uint32_t msg_cut(struct msghdr *mh, uint32_t len, uint32_t *segs)
{
	uint32_t seg = gro_size(mh);

	if (!seg || seg >= len)
		seg = len;
	*segs = seg ? (len + seg - 1) / seg : 1;
	return seg;
}

/*
 * A receive call failed with @err: 0 when there was just nothing to read
 * (a soft error, an ICMP report, counted), else -@err.
 */
static int rx_errno(struct voff_udp *u, int err)
{
	if (err == EAGAIN || err == EWOULDBLOCK)
		return 0;
	if (soft_error(err)) {
		u->st.rx_errors++;
		return 0;
	}
	return -err;
}

/* Point @mh at @iov[0..@n) and at slot @i's source and control buffers. */
static void msg_point(struct voff_udp *u, struct msghdr *mh, unsigned int i,
		      struct iovec *iov, size_t n)
{
	memset(mh, 0, sizeof(*mh));
	mh->msg_name = &u->rx_from[i];
	mh->msg_namelen = sizeof(u->rx_from[i]);
	mh->msg_iov = iov;
	mh->msg_iovlen = n;
	mh->msg_control = &u->rx_ctl[i];
	mh->msg_controllen = sizeof(u->rx_ctl[i]);
}

/* Point message @i at @pkt's room. */
static void rx_prep(struct voff_udp *u, unsigned int i, struct voff_pkt *pkt)
{
	u->rx_iov[i].iov_base = voff_pkt_data(pkt);
	u->rx_iov[i].iov_len = voff_pkt_tailroom(pkt);
	msg_point(u, &u->rx_msg[i].msg_hdr, i, &u->rx_iov[i], 1);
}

/*
 * Give message @i's bytes and geometry to @pkt.  Return: true when @pkt
 * holds the message, false when it was truncated (and must be dropped).
 */
static bool rx_fill(struct voff_udp *u, unsigned int i, struct voff_pkt *pkt)
{
	struct mmsghdr *m = &u->rx_msg[i];
	uint32_t len = m->msg_len, seg, segs;

	if (m->msg_hdr.msg_flags & MSG_TRUNC || len > VOFF_UDP_RX_ROOM)
		return false;
	voff_pkt_put(pkt, len);
	seg = msg_cut(&m->msg_hdr, len, &segs);
	pkt->gso_size = (uint16_t)seg;
	pkt->gso_segs = (uint16_t)segs;
	count_msg(u, len, segs);
	return true;
}

int voff_udp_recv(struct voff_udp *u, struct voff_batch *b,
		  union voff_udp_addr *from)
{
	struct voff_pkt *pkts[VOFF_BATCH_MAX];
	unsigned int want, got, start;
	int r;

	if (!u || !b)
		return -EINVAL;
	want = voff_batch_space(b);
	if (want > u->rx_batch)
		want = u->rx_batch;
	if (!want)
		return 0;
	got = voff_pkt_alloc_bulk(u->pool, pkts, want);
	if (!got)
		return -ENOBUFS;
	for (unsigned int i = 0; i < got; i++)
		rx_prep(u, i, pkts[i]);
	do
		r = recvmmsg(u->fd, u->rx_msg, got, MSG_DONTWAIT, NULL);
	while (r < 0 && errno == EINTR);
	u->st.rx_calls++;
	if (r < 0) {
		int err = errno;

		voff_pool_put_bulk(u->pool, pkts, got);
		return rx_errno(u, err);
	}
	start = b->n;
	for (unsigned int i = 0; i < (unsigned int)r; i++) {
		if (!rx_fill(u, i, pkts[i])) {
			u->st.rx_dropped++;
			voff_pkt_free(pkts[i]);
			continue;
		}
		if (from)
			from[b->n] = u->rx_from[i];
		b->pkts[b->n++] = pkts[i];
	}
	voff_pool_put_bulk(u->pool, pkts + r, got - (unsigned int)r);
	return (int)(b->n - start);
}

/* ---- receive, one packet per datagram ----------------------------------- */

/*
 * Append @pkts[0..@n) to @b, each from @src; Return: @n.  @b has room
 * (the callers take no more packets than it has room for).
 */
static int each_append(struct voff_batch *b, struct voff_pkt **pkts,
		       unsigned int n, union voff_udp_addr *from,
		       const union voff_udp_addr *src)
{
	for (unsigned int i = 0; i < n; i++) {
		if (from)
			from[b->n] = *src;
		b->pkts[b->n++] = pkts[i];
	}
	return (int)n;
}

/*
 * Copy the datagrams of @src (@len bytes cut every @seg) into the empty
 * packets @pkts[0..@n), one each, as many as there are of either.
 * Return: the datagrams copied.
 */
static unsigned int deal(const uint8_t *src, uint32_t len, uint32_t seg,
			 struct voff_pkt **pkts, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n && len; k++) {
		uint32_t c = len < seg ? len : seg;

		memcpy(voff_pkt_put(pkts[k], c), src, c);
		src += c;
		len -= c;
	}
	return k;
}

/*
 * Keep what follows the first @done datagrams of @p (@len bytes cut every
 * @seg) for the next calls: nothing when they were all.
 */
static void hold(struct udp_each *e, const uint8_t *p, uint32_t len,
		 uint32_t seg, unsigned int done,
		 const union voff_udp_addr *from)
{
	uint64_t skip = (uint64_t)done * seg;

	if (skip >= len) {
		e->held = NULL;
		e->held_len = 0;
		return;
	}
	e->held = p + skip;
	e->held_len = len - (uint32_t)skip;
	e->held_seg = seg;
	e->held_from = *from;
}

/* Hand out held datagrams into up to @want packets of @pool. */
static int each_held(struct voff_udp *u, struct voff_pool *pool,
		     struct voff_batch *b, union voff_udp_addr *from,
		     unsigned int want)
{
	struct udp_each *e = u->each;
	struct voff_pkt *pkts[VOFF_BATCH_MAX];
	unsigned int got, n;

	n = voff_udp_held(u);
	got = voff_pkt_alloc_bulk(pool, pkts, n < want ? n : want);
	if (!got)
		return -ENOBUFS;
	n = deal(e->held, e->held_len, e->held_seg, pkts, got);
	hold(e, e->held, e->held_len, e->held_seg, n, &e->held_from);
	return each_append(b, pkts, n, from, &e->held_from);
}

/*
 * Read one message into @pkts[0..@n), @seg bytes each, the rest into the
 * spill buffer.  Return: its length, -EAGAIN when there was none, or
 * another negative errno.
 */
static int each_read(struct voff_udp *u, struct voff_pkt **pkts,
		     unsigned int n, uint32_t seg, struct msghdr *mh)
{
	struct udp_each *e = u->each;
	ssize_t r;
	int err;

	for (unsigned int k = 0; k < n; k++) {
		e->iov[k].iov_base = voff_pkt_data(pkts[k]);
		e->iov[k].iov_len = seg;
	}
	e->iov[n].iov_base = e->spill;
	e->iov[n].iov_len = sizeof(e->spill);
	msg_point(u, mh, 0, e->iov, n + 1);
	do
		r = recvmsg(u->fd, mh, MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	u->st.rx_calls++;
	if (r >= 0)
		return (int)r;
	err = rx_errno(u, errno);
	return err ? err : -EAGAIN;
}

/*
 * The message read lies in @pkts (@seg bytes each) and then the spill
 * buffer, but its datagrams are @g bytes: copy it out whole and cut it
 * there.  Return: the datagrams placed into @pkts; the rest are held.
 */
static unsigned int realign(struct voff_udp *u, struct voff_pkt **pkts,
			    unsigned int n, uint32_t seg, uint32_t len,
			    uint32_t g)
{
	struct udp_each *e = u->each;
	uint32_t at = 0, k;

	for (k = 0; k < n && at < len; k++) {
		uint32_t c = len - at < seg ? len - at : seg;

		memcpy(e->lin + at, voff_pkt_data(pkts[k]), c);
		at += c;
	}
	memcpy(e->lin + at, e->spill, len - at);
	k = deal(e->lin, len, g, pkts, n);
	hold(e, e->lin, len, g, k, &u->rx_from[0]);
	u->st.rx_resized++;
	return k;
}

unsigned int voff_udp_held(const struct voff_udp *u)
{
	const struct udp_each *e = u->each;

	return e->held ? (e->held_len + e->held_seg - 1) / e->held_seg : 0;
}

int voff_udp_recv_each(struct voff_udp *u, struct voff_pool *pool,
		       struct voff_batch *b, union voff_udp_addr *from)
{
	struct voff_pkt *pkts[VOFF_BATCH_MAX];
	struct udp_each *e;
	struct msghdr mh;
	unsigned int want, got, placed;
	uint32_t room, seg, len, g, segs;
	int r;

	if (!u || !pool || !b)
		return -EINVAL;
	e = u->each;
	want = voff_batch_space(b);
	if (!want)
		return 0;
	if (e->held)
		return each_held(u, pool, b, from, want);
	got = voff_pkt_alloc_bulk(pool, pkts, 1);
	if (!got)
		return -ENOBUFS;
	/* One iovec per datagram of the largest message expected. */
	room = voff_pkt_tailroom(pkts[0]);
	seg = e->seg && e->seg < room ? e->seg : room;
	if (want > (VOFF_UDP_RX_ROOM + seg - 1) / seg)
		want = (VOFF_UDP_RX_ROOM + seg - 1) / seg;
	got += voff_pkt_alloc_bulk(pool, pkts + 1, want - 1);
	r = each_read(u, pkts, got, seg, &mh);
	if (r < 0) {
		voff_pool_put_bulk(pool, pkts, got);
		return r == -EAGAIN ? 0 : r;
	}
	len = (uint32_t)r;
	g = msg_cut(&mh, len, &segs);
	if (mh.msg_flags & MSG_TRUNC || len > VOFF_UDP_RX_ROOM || g > room) {
		u->st.rx_dropped++;
		voff_pool_put_bulk(pool, pkts, got);
		return 0;
	}
	count_msg(u, len, segs);
	if (segs > 1 ? g == seg : len <= seg) {
		/* Each datagram is where it belongs; the rest spilled whole. */
		placed = segs;
		if (got < segs) {
			placed = got;
			hold(e, e->spill, len - got * seg, g, 0,
			     &u->rx_from[0]);
		}
		for (unsigned int k = 0; k < placed; k++)
			voff_pkt_put(pkts[k], k + 1 < segs ? g : len - k * g);
	} else {
		placed = realign(u, pkts, got, seg, len, g);
	}
	/*
	 * A message longer than one expected datagram sets the size: a
	 * train of data, a longer lone datagram.  A short train of small
	 * datagrams (acknowledgements going the other way) costs little to
	 * copy and leaves the size to the trains it would otherwise spoil.
	 */
	if (len > seg || (segs > 1 && !e->seg))
		e->seg = g;
	u->st.rx_held += segs - placed;
	voff_pool_put_bulk(pool, pkts + placed, got - placed);
	return each_append(b, pkts, placed, from, &u->rx_from[0]);
}

/* ---- split --------------------------------------------------------------- */

int voff_udp_split(const struct voff_pkt *train, struct voff_pkt *views,
		   unsigned int cap)
{
	uint32_t seg, segs, len;
	uint8_t *d;

	if (!train || !views)
		return -EINVAL;
	len = train->len;
	seg = train->gso_size;
	segs = train->gso_segs ? train->gso_segs : 1;
	/*
	 * All datagrams but the last are full and the last has 1..seg bytes;
	 * one datagram may also have gso_size 0 (a plain packet).
	 */
	if (segs == 1 ? seg && seg < len :
			!seg || len <= (segs - 1) * seg || len > segs * seg)
		return -EINVAL;
	if (segs == 1)
		seg = len;
	if (segs > cap)
		return -ENOSPC;
	d = voff_pkt_data(train);
	for (uint32_t i = 0; i < segs; i++) {
		uint32_t off = i * seg, n = i + 1 < segs ? seg : len - off;
		struct voff_pkt *v = &views[i];

		voff_pkt_init_ext(v, d + off, n, 0, n);
		v->port = train->port;
		v->hash = train->hash;
		v->rx_ns = train->rx_ns;
	}
	return (int)segs;
}
