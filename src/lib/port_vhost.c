/* SPDX-License-Identifier: MIT */
/*
 * port_vhost.c - the vhost-user port: a virtual machine's virtio-net
 * device, its virtqueues handed to voff by the VMM (QEMU) over a unix
 * socket voff listens on
 *
 * One guest per port.  The port's descriptor is an epoll set of its own
 * (the listening socket, the connection, the transmit queue's kick), so
 * the switch waits on one descriptor per port as for any other kind.  A
 * guest that disconnects is torn down (rings stopped, memory unmapped,
 * descriptors closed) and the port listens again; a guest that reboots
 * stops and restarts its rings over the same connection.  Each of those
 * is counted (voff_port_vhost_stats()).
 *
 * Frames from the guest (its transmit queue, ring 1) are taken in
 * batches: one copy out of guest memory into a pool packet, the
 * virtio_net_hdr in front, and the front end (port.c) validates the
 * header with the kernel's rules.  A header claiming an offload the guest
 * did not negotiate is dropped as port_offload.  Frames to the guest
 * (its receive queue, ring 0) are copied into its buffers once (several
 * buffers per frame with MRG_RXBUF); a partial checksum the guest cannot
 * take (no GUEST_CSUM) is completed in that same copy.  Each batch ends
 * with one used-index store and at most one notification per ring, and
 * the guest's kicks are asked for (EVENT_IDX) only when a poll finds
 * nothing more to take.  No system call per frame; nothing allocated per
 * frame.
 *
 * What the guest negotiated becomes the port's offloads: frames from it
 * may carry what its HOST_* features say (within the spec's want), frames
 * to it what its GUEST_* features say, so the switch segments late, as for
 * any port, only for a guest that cannot take a super-packet whole.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/csum.h>
#include <voff/feat.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/unix.h>
#include <voff/vnet.h>

#include "port_int.h"
#include "vhost_int.h"

/* What voff always offers: rings, layout, the guest's receive offloads. */
#define OFFER_BASE                                                           \
	(VHOST_BIT(VIRTIO_F_VERSION_1) | VHOST_BIT(VIRTIO_F_ANY_LAYOUT) |    \
	 VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC) |                            \
	 VHOST_BIT(VIRTIO_RING_F_EVENT_IDX) |                                \
	 VHOST_BIT(VHOST_USER_F_PROTOCOL_FEATURES) |                         \
	 VHOST_BIT(VIRTIO_NET_F_MRG_RXBUF) | VHOST_BIT(VIRTIO_NET_F_MTU) |   \
	 VHOST_BIT(VIRTIO_NET_F_GUEST_CSUM) |                                \
	 VHOST_BIT(VIRTIO_NET_F_GUEST_TSO4) |                                \
	 VHOST_BIT(VIRTIO_NET_F_GUEST_TSO6) |                                \
	 VHOST_BIT(VIRTIO_NET_F_GUEST_ECN) |                                 \
	 VHOST_BIT(VIRTIO_NET_F_GUEST_USO4) |                                \
	 VHOST_BIT(VIRTIO_NET_F_GUEST_USO6))

#define VNET_F_NEEDS_CSUM 1u
#define VNET_GSO_ECN 0x80u
#define DEFAULT_MTU 1500u
/* The largest frame a guest may send: a 64 KiB datagram + Ethernet. */
#define TX_MAX_FRAME (65535u + 18u)

struct vhost {
	int listen_fd;
	dev_t sock_dev;
	ino_t sock_ino;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned int want;
	uint32_t cfg_mtu;
	uint32_t gen_seen;
	bool tx_started;
	unsigned int tx_call_wait;
	struct voff__vhost_dev dev;
	struct voff_port_vhost_stats st;
	struct voff__vring_chain chain;	/* scratch: one chain at a time */
};

/* ---- negotiation ---------------------------------------------------------- */

/* The guest's transmit offloads offered, from the spec's want. */
static uint64_t offer_host(unsigned int want)
{
	uint64_t f = 0;

	if (!(want & VOFF_TUN_F_CSUM))
		return 0;
	f |= VHOST_BIT(VIRTIO_NET_F_CSUM);
	if (want & VOFF_TUN_F_TSO4)
		f |= VHOST_BIT(VIRTIO_NET_F_HOST_TSO4);
	if (want & VOFF_TUN_F_TSO6)
		f |= VHOST_BIT(VIRTIO_NET_F_HOST_TSO6);
	if (want & VOFF_TUN_F_TSO_ECN && want & (VOFF_TUN_F_TSO4 |
						   VOFF_TUN_F_TSO6))
		f |= VHOST_BIT(VIRTIO_NET_F_HOST_ECN);
	if ((want & (VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6)) ==
	    (VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6))
		f |= VHOST_BIT(VIRTIO_NET_F_HOST_USO);
	return f;
}

/* What frames from a guest with features @f may carry. */
static unsigned int rx_off_of(uint64_t f)
{
	unsigned int off = 0;

	if (!(f & VHOST_BIT(VIRTIO_NET_F_CSUM)))
		return 0;
	off |= VOFF_TUN_F_CSUM;
	if (f & VHOST_BIT(VIRTIO_NET_F_HOST_TSO4))
		off |= VOFF_TUN_F_TSO4;
	if (f & VHOST_BIT(VIRTIO_NET_F_HOST_TSO6))
		off |= VOFF_TUN_F_TSO6;
	if (f & VHOST_BIT(VIRTIO_NET_F_HOST_ECN))
		off |= VOFF_TUN_F_TSO_ECN;
	if (f & VHOST_BIT(VIRTIO_NET_F_HOST_USO))
		off |= VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6;
	return off;
}

/*
 * What frames to a guest with features @f may carry: a partial checksum
 * always (completed in the copy without GUEST_CSUM), super-packets of the
 * types its GUEST_* features take (all of which need GUEST_CSUM).
 */
static unsigned int tx_off_of(uint64_t f)
{
	unsigned int off = VOFF_TUN_F_CSUM;

	if (!(f & VHOST_BIT(VIRTIO_NET_F_GUEST_CSUM)))
		return off;
	if (f & VHOST_BIT(VIRTIO_NET_F_GUEST_TSO4))
		off |= VOFF_TUN_F_TSO4;
	if (f & VHOST_BIT(VIRTIO_NET_F_GUEST_TSO6))
		off |= VOFF_TUN_F_TSO6;
	if (f & VHOST_BIT(VIRTIO_NET_F_GUEST_ECN) &&
	    off & (VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6))
		off |= VOFF_TUN_F_TSO_ECN;
	if (f & VHOST_BIT(VIRTIO_NET_F_GUEST_USO4))
		off |= VOFF_TUN_F_USO4;
	if (f & VHOST_BIT(VIRTIO_NET_F_GUEST_USO6))
		off |= VOFF_TUN_F_USO6;
	return off;
}

/* The port's info from what the guest negotiated (or nothing yet). */
static void update_info(struct voff_port *port)
{
	struct vhost *v = port->priv;
	struct voff_port_info *in = &port->info;
	uint64_t f = v->dev.features_set ? v->dev.features : 0;
	bool started = v->dev.vq[VHOST_TX_Q].started;

	/* The guest's driver came up or went down (reboot, VM stop). */
	v->st.starts += started && !v->tx_started;
	v->st.stops += !started && v->tx_started;
	v->tx_started = started;

	in->vnet_hdr_len = voff__vhost_hdr_size(f);
	in->rx_off = rx_off_of(f) & in->want;
	in->tx_off = v->dev.features_set ? tx_off_of(f) : 0;
	in->refused = in->want & ~in->rx_off;
	in->limits.mtu = v->dev.mtu ? v->dev.mtu : v->cfg_mtu;
	in->tx_max_len = in->limits.gso_max_size ? in->limits.gso_max_size :
						    TX_MAX_FRAME;
	voff__port_vnet_init(port);
	/*
	 * virtio-net headers are little-endian (VERSION_1, and legacy guests
	 * on the little-endian hosts voff runs on); what the guest sends is a
	 * transmission request, what voff writes to it a delivery.
	 */
	port->vnet_rx.order = VOFF_VNET_LE;
	port->vnet_rx.dir = VOFF_VNET_TX;
	port->vnet_tx.order = VOFF_VNET_LE;
	port->vnet_tx.dir = VOFF_VNET_RX;
	v->gen_seen = v->dev.gen;
	port->gen++;
}

/* ---- the socket ----------------------------------------------------------- */

/*
 * Listen on @path as the control socket does (unix.h), and remember which
 * file is ours, so that closing removes it and not one put there since.
 */
static int listen_on(struct vhost *v, const char *path)
{
	struct stat st;
	int fd = voff_unix_listen(path, 4);

	if (fd < 0)
		return fd;
	if (lstat(path, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	v->sock_dev = st.st_dev;
	v->sock_ino = st.st_ino;
	memcpy(v->path, path, strlen(path) + 1);
	return fd;
}

static void accept_all(struct voff_port *port)
{
	struct vhost *v = port->priv;
	struct epoll_event ev = { .events = EPOLLIN };
	int c;

	while ((c = accept4(v->listen_fd, NULL, NULL,
			    SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		if (!voff_unix_peer_ok(c, NULL)) {
			v->st.refused_peer++;
			close(c);
			continue;
		}
		if (v->dev.fd >= 0) {
			v->st.refused_busy++;	/* one guest per port */
			close(c);
			continue;
		}
		ev.data.u32 = VHOST_EP_CONN;
		if (epoll_ctl(port->fd, EPOLL_CTL_ADD, c, &ev) < 0) {
			close(c);
			continue;
		}
		v->dev.fd = c;
		/* Message counters are the connection's (port.h). */
		memset(v->dev.st, 0, sizeof(v->dev.st));
		v->st.connects++;
	}
}

static void disconnect(struct voff_port *port, int err)
{
	struct vhost *v = port->priv;

	epoll_ctl(port->fd, EPOLL_CTL_DEL, v->dev.fd, NULL);
	voff__vhost_dev_close(&v->dev);
	v->st.disconnects++;
	if (err != -ECONNRESET)
		v->st.protocol_drops++;
	update_info(port);
}

/*
 * Everything that is not a frame: new connections, messages, the kick.
 * Return: whether the transmit queue was kicked.
 */
static bool service(struct voff_port *port)
{
	struct vhost *v = port->priv;
	struct epoll_event ev[4];
	bool kicked = false;
	int n = epoll_wait(port->fd, ev, 4, 0);

	for (int i = 0; i < n; i++) {
		switch (ev[i].data.u32) {
		case VHOST_EP_LISTEN:
			accept_all(port);
			break;
		case VHOST_EP_CONN: {
			int err = voff__vhost_dev_read(&v->dev);

			if (err)
				disconnect(port, err);
			break;
		}
		default:
			kicked = true;
			break;
		}
	}
	if (v->dev.gen != v->gen_seen)
		update_info(port);
	return kicked;
}

/* ---- from the guest ------------------------------------------------------- */

/* Whether the header of a frame claims only what the guest negotiated. */
static bool offloads_ok(const struct voff_port *port, const uint8_t *h)
{
	unsigned int off = port->info.rx_off;
	unsigned int gso = h[1] & ~VNET_GSO_ECN;

	if (h[0] & VNET_F_NEEDS_CSUM && !(off & VOFF_TUN_F_CSUM))
		return false;
	if (h[1] & VNET_GSO_ECN && !(off & VOFF_TUN_F_TSO_ECN))
		return false;
	switch (gso) {
	case VOFF_VNET_GSO_NONE:
		return true;
	case VOFF_VNET_GSO_TCPV4:
		return off & VOFF_TUN_F_TSO4;
	case VOFF_VNET_GSO_TCPV6:
		return off & VOFF_TUN_F_TSO6;
	case VOFF_VNET_GSO_UDP_L4:
		return off & VOFF_TUN_F_USO4;
	default:
		return true;	/* the validator names it */
	}
}

/* Copy the chain into a packet: header at the front, frame at headroom. */
static int chain_to_pkt(const struct voff_port *port,
			const struct voff__vring_chain *c, struct voff_pkt *pkt)
{
	uint32_t hdr = port->info.vnet_hdr_len;
	uint8_t *d;

	if (c->len < hdr)
		return VOFF_E_VNET_TRUNC;
	if (c->len - hdr > TX_MAX_FRAME ||
	    c->len - hdr > voff_pkt_tailroom(pkt))
		return VOFF_E_PORT_TRUNC;
	if (!voff_pkt_push(pkt, hdr) || !voff_pkt_put(pkt, c->len - hdr))
		return VOFF_E_PORT_TRUNC;
	d = voff_pkt_data(pkt);
	for (unsigned int i = 0; i < c->n; i++) {
		memcpy(d, c->seg[i].p, c->seg[i].len);
		d += c->seg[i].len;
	}
	if (!offloads_ok(port, voff_pkt_data(pkt)))
		return VOFF_E_PORT_OFFLOAD;
	return 0;
}

static void kick_self(struct voff__vring *vr)
{
	uint64_t one = 1;

	if (write(vr->kick, &one, sizeof(one)) < 0)
		return;	/* a full counter is readable anyway */
}

static void kick_drain(struct voff__vring *vr)
{
	uint64_t v;

	if (read(vr->kick, &v, sizeof(v)) < 0)
		return;	/* nothing to drain */
}

/*
 * The call for the transmit queue's used entries waits for frames to the
 * guest: the ones voff just took went on to another port, whose answer
 * (a TCP ACK back for data, more data for an ACK) comes in a step or two,
 * and with legacy interrupts (INTx, one line for both rings) two calls
 * that reach QEMU together raise one interrupt in the guest where two
 * apart raise two.  vhost_tx() sends the waiting call with the receive
 * queue's; when no frame comes, the second poll after the one that
 * published the entries sends it (the port stays readable meanwhile, so
 * that poll is not far off).  Counts from a TCG guest are in
 * docs/vhost-user.md.
 */
#define TX_CALL_POLLS 2

/* Send the transmit queue's call now, or leave it for a later poll. */
static void tx_call(struct vhost *v, bool now)
{
	struct voff__vring *vr = &v->dev.vq[VHOST_TX_Q];

	if (!vr->call_pending) {
		v->tx_call_wait = 0;
		return;
	}
	if (now || v->tx_call_wait >= TX_CALL_POLLS) {
		voff__vring_call(vr);
		v->tx_call_wait = 0;
		return;
	}
	v->tx_call_wait++;
}

/*
 * TX_ARM_LATE: the transmit queue's next kick is asked for (avail_event)
 * only by a poll that finds the ring empty, never by the one that took
 * chains.  What that poll took goes on to another port first (for a TAP,
 * the write that also runs the receiving stack), and meanwhile the guest
 * queues its next frames without a kick; the switch, kept awake by the
 * port's readable descriptor, finds them at its next poll.  QEMU's own
 * TAP backend does the same: it asks again only after its bottom half
 * has sent what it took.  Under TCG a kick is an emulated MMIO write on
 * the guest's CPU; counts are in docs/vhost-user.md.
 */
static int vhost_rx(struct voff_port *port, struct voff_pool *pool,
		    struct voff_batch *b)
{
	struct vhost *v = port->priv;
	struct voff__vring *vr = &v->dev.vq[VHOST_TX_Q];
	bool kicked = service(port);
	unsigned int took = 0;
	int got = 0, err = 0;

	if (!vr->started || !vr->desc || vr->broken) {
		/*
		 * Nothing to take until the VMM restarts the ring (a new kick
		 * descriptor): a kick left unread would keep the port readable
		 * and the switch spinning.
		 */
		if (kicked)
			kick_drain(vr);
		return 0;
	}
	while (voff_batch_space(b)) {
		struct voff_pkt *pkt;
		int r;

		if (voff_pkt_alloc(pool, &pkt)) {
			err = -ENOBUFS;
			break;
		}
		r = voff__vring_pop(vr, &v->dev.mem, false, &v->chain);
		if (r == 0) {
			voff_pkt_free(pkt);
			break;
		}
		took++;
		if (r > 0)
			r = vr->enabled ? chain_to_pkt(port, &v->chain, pkt) :
					  -ENETDOWN;
		if (v->chain.head != VRING_NO_HEAD)
			voff__vring_put(vr, v->chain.head, 0);
		if (r < 0) {
			voff__port_count_drop(port, VOFF_PORT_RX, r);
			voff_pkt_free(pkt);
			if (vr->broken)
				break;
			continue;
		}
		if (!voff__port_rx_accept(port, pkt, b, 0, 0))
			got++;
	}
	voff__vring_publish(vr);
	tx_call(v, false);
	/*
	 * Stay readable while entries wait (the batch or the pool ran out),
	 * or after a poll that took chains (TX_ARM_LATE), or while a call
	 * does; else drain the kick and ask for the next one.
	 */
	if (took || voff__vring_avail(vr)) {
		if (!kicked)
			kick_self(vr);
	} else {
		if (kicked)
			kick_drain(vr);
		if (voff__vring_arm(vr) || vr->call_pending)
			kick_self(vr);
	}
	return got ? got : err;
}

/* ---- to the guest --------------------------------------------------------- */

/**
 * struct out - a frame being copied into guest buffers
 * @src:	header + frame
 * @len:	their bytes
 * @off:	bytes copied so far
 * @cs_from:	where the checksum to complete starts (UINT32_MAX: none)
 * @sum:	the sum of the bytes from @cs_from copied so far
 */
struct out {
	const uint8_t *src;
	uint32_t len;
	uint32_t off;
	uint32_t cs_from;
	uint32_t sum;
};

/* Copy the next bytes of @o into one buffer; Return: bytes copied. */
static uint32_t copy_seg(struct out *o, uint8_t *dst, uint32_t room)
{
	uint32_t n = o->len - o->off < room ? o->len - o->off : room;
	uint32_t done = 0;

	if (o->off < o->cs_from) {
		done = o->cs_from - o->off < n ? o->cs_from - o->off : n;
		memcpy(dst, o->src + o->off, done);
	}
	if (done < n) {
		uint32_t at = o->off + done;

		/* The checksum fused into the copy (csum.h). */
		o->sum = voff_csum_block_add(
			o->sum,
			voff_csum_copy(dst + done, o->src + at, n - done, 0),
			at - o->cs_from);
	}
	o->off += n;
	return n;
}

/**
 * struct placed - where the two bytes of a 16-bit field landed in guest
 * buffers (possibly two buffers, possibly two chains)
 * @p:		their addresses
 * @k:		how many are found
 */
struct placed {
	uint8_t *p[2];
	unsigned int k;
};

/*
 * Find the bytes of the field at stream offset @at in chain @c, which
 * holds the stream from @base on.
 */
static void place(const struct voff__vring_chain *c, uint32_t base,
		  uint32_t at, struct placed *pl)
{
	for (unsigned int i = 0; i < c->n && pl->k < 2; i++) {
		uint32_t len = c->seg[i].len;

		while (pl->k < 2 && at + pl->k >= base &&
		       at + pl->k - base < len) {
			pl->p[pl->k] = c->seg[i].p + (at + pl->k - base);
			pl->k++;
		}
		base += len;
	}
}

static void put16(struct placed *pl, uint16_t v)
{
	uint8_t b[2];

	memcpy(b, &v, 2);
	*pl->p[0] = b[0];
	*pl->p[1] = b[1];
}

/*
 * A frame's checksum fields: completing one the guest cannot take needs
 * csum_start and csum_offset inside the frame.
 */
static int prep_csum(struct voff_port *port, struct voff_pkt *pkt,
		     struct out *o, uint32_t *cs_field)
{
	struct vhost *v = port->priv;
	uint32_t hdr = port->info.vnet_hdr_len;
	uint8_t *h = voff_pkt_data(pkt);
	uint16_t start, off;

	o->cs_from = UINT32_MAX;
	*cs_field = UINT32_MAX;
	if (v->dev.features & VHOST_BIT(VIRTIO_NET_F_GUEST_CSUM))
		return 0;
	/* Without GUEST_CSUM the flags must be 0 (virtio 1.2 §5.1.6.4.1). */
	if (h[0] & VNET_F_NEEDS_CSUM) {
		memcpy(&start, h + 6, 2);
		memcpy(&off, h + 8, 2);
		start = le16toh(start);
		off = le16toh(off);
		if ((uint32_t)start + off + 2u > pkt->len - hdr)
			return VOFF_E_VNET_CSUM_PAST_END;
		o->cs_from = hdr + start;
		*cs_field = hdr + start + off;
	}
	h[0] = 0;
	return 0;
}

/* Bad chains met while one frame is copied (more break the ring). */
#define BAD_PER_FRAME 16

/*
 * One frame into the receive queue: one chain, or with MRG_RXBUF as many
 * as it takes, num_buffers set in the header.  The frame's used entries
 * are contiguous (a mergeable frame is read as the next num_buffers
 * entries); bad chains met on the way are returned after them, empty.
 * Return: 0, -EAGAIN when the guest has no (more) buffers (nothing of this
 * frame is used), or the drop reason.
 */
static int to_guest(struct voff_port *port, struct voff_pkt *pkt)
{
	struct vhost *v = port->priv;
	struct voff__vring *vr = &v->dev.vq[VHOST_RX_Q];
	bool mrg = v->dev.features & VHOST_BIT(VIRTIO_NET_F_MRG_RXBUF);
	struct out o = { voff_pkt_data(pkt), pkt->len, 0, 0, 0 };
	struct placed nb = { { NULL, NULL }, 0 }, cs = { { NULL, NULL }, 0 };
	unsigned int chains = 0, pops = 0, nbad = 0;
	uint16_t bad[BAD_PER_FRAME];
	int bad_err[BAD_PER_FRAME];
	uint32_t cs_field;
	int err;

	err = prep_csum(port, pkt, &o, &cs_field);
	if (err)
		return err;
	while (o.off < o.len) {
		struct voff__vring_chain *c = &v->chain;
		uint32_t start = o.off;
		int r = voff__vring_pop(vr, &v->dev.mem, true, c);

		if (r == 0 || vr->broken)
			goto undo;
		pops++;
		if (r < 0) {
			if (nbad == BAD_PER_FRAME) {
				vr->broken = true;
				goto undo;
			}
			bad_err[nbad] = r;
			bad[nbad++] = c->head;
			continue;
		}
		if (!mrg && c->len < o.len) {
			err = VOFF_E_VHOST_RX_SMALL;
			goto undo;
		}
		if (mrg && chains == 0) {
			place(c, 0, 10, &nb);
			if (nb.k < 2) {
				err = VOFF_E_VHOST_RX_SMALL;
				goto undo;
			}
		}
		for (unsigned int i = 0; i < c->n && o.off < o.len; i++)
			copy_seg(&o, c->seg[i].p, c->seg[i].len);
		if (cs_field != UINT32_MAX)
			place(c, start, cs_field, &cs);
		voff__vring_put(vr, c->head, o.off - start);
		chains++;
	}
	if (mrg)
		put16(&nb, htole16((uint16_t)chains));
	if (cs_field != UINT32_MAX) {
		uint16_t check = voff_csum_fold(o.sum);

		put16(&cs, check ? check : 0xFFFF);
	}
	for (unsigned int i = 0; i < nbad; i++) {
		voff__vring_put(vr, bad[i], 0);
		voff__port_count_drop(port, VOFF_PORT_TX, bad_err[i]);
	}
	return 0;

undo:
	/* Not a byte of it is shown: the buffers stay available. */
	vr->used_idx = (uint16_t)(vr->used_idx - chains);
	voff__vring_unpop(vr, pops);
	return err ? err : -EAGAIN;
}

static int vhost_tx(struct voff_port *port, struct voff_pkt **pkts,
		    unsigned int n, int *res)
{
	struct vhost *v = port->priv;
	struct voff__vring *vr = &v->dev.vq[VHOST_RX_Q];
	unsigned int i = 0;

	if (!voff__vring_ready(vr)) {
		for (; i < n; i++)
			res[i] = -ENOTCONN;
		return 0;
	}
	for (; i < n; i++) {
		res[i] = to_guest(port, pkts[i]);
		if (res[i] == -EAGAIN)
			break;
	}
	for (; i < n; i++)
		res[i] = -EAGAIN;
	voff__vring_flush(vr);
	tx_call(v, true);	/* with the receive queue's */
	return 0;
}

/* ---- life cycle ----------------------------------------------------------- */

static int vhost_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct voff_port_info *in = &port->info;
	struct vhost *v;
	int err;

	if (!cfg->name || !*cfg->name || strlen(cfg->name) >= sizeof(in->name))
		return -EINVAL;
	if (cfg->flags & VOFF_PORT_F_NO_VNET)
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	port->fd = epoll_create1(EPOLL_CLOEXEC);
	if (port->fd < 0) {
		err = -errno;
		goto err_free;
	}
	v->listen_fd = listen_on(v, cfg->name);
	if (v->listen_fd < 0) {
		err = v->listen_fd;
		goto err_epoll;
	}
	ev.data.u32 = VHOST_EP_LISTEN;
	if (epoll_ctl(port->fd, EPOLL_CTL_ADD, v->listen_fd, &ev) < 0) {
		err = -errno;
		goto err_listen;
	}
	v->want = cfg->want;
	v->cfg_mtu = cfg->limits.mtu ? cfg->limits.mtu : DEFAULT_MTU;
	voff__vhost_dev_init(&v->dev, OFFER_BASE | offer_host(cfg->want),
			     port->fd, 1u << VHOST_TX_Q);
	port->priv = v;
	snprintf(in->name, sizeof(in->name), "%s", cfg->name);
	in->l3 = false;
	in->limits = cfg->limits;
	update_info(port);
	/*
	 * voff_port_open() sets the codec up for a kernel port after this;
	 * the first service() sets it again for a guest.
	 */
	v->gen_seen = v->dev.gen - 1;
	return 0;

err_listen:
	close(v->listen_fd);
	unlink(v->path);
err_epoll:
	close(port->fd);
	port->fd = -1;
err_free:
	free(v);
	return err;
}

/* Stop listening, and remove the socket we made, not one put there since. */
static void unlisten(struct vhost *v)
{
	struct stat st;

	if (v->listen_fd < 0)
		return;
	close(v->listen_fd);
	v->listen_fd = -1;
	if (lstat(v->path, &st) == 0 && st.st_dev == v->sock_dev &&
	    st.st_ino == v->sock_ino)
		unlink(v->path);
}

static void vhost_close(struct voff_port *port)
{
	struct vhost *v = port->priv;

	voff__vhost_dev_close(&v->dev);
	unlisten(v);
	close(port->fd);
	free(v);
}

/*
 * Release (port_int.h): a new port on the same path listens there, which
 * a socket still listening would refuse (EADDRINUSE); the guest goes with
 * it, as on a disconnect.  The counters stay.
 */
static int vhost_release(struct voff_port *port)
{
	struct vhost *v = port->priv;

	if (v->dev.fd >= 0)
		disconnect(port, -ECONNRESET);
	unlisten(v);
	return 0;
}

int voff_port_vhost_stats(const struct voff_port *port,
			  struct voff_port_vhost_stats *out)
{
	const struct vhost *v;

	if (!port || !out || port->ops != &voff__port_vhost_ops)
		return -EINVAL;
	v = port->priv;
	*out = v->st;
	out->connected = v->dev.fd >= 0;
	out->running = voff__vring_ready(&v->dev.vq[VHOST_RX_Q]) &&
		       voff__vring_ready(&v->dev.vq[VHOST_TX_Q]);
	out->features = v->dev.features;
	out->protocol_features = v->dev.protocol;
	out->messages = v->dev.st[VHOST_ST_MSGS];
	out->refused_messages = v->dev.st[VHOST_ST_ERRORS];
	out->guest_calls = v->dev.vq[0].calls + v->dev.vq[1].calls;
	return 0;
}

const struct voff_port_ops voff__port_vhost_ops = {
	.kind = VOFF_PORT_VHOST,
	.open = vhost_open,
	.close = vhost_close,
	.rx = vhost_rx,
	.tx = vhost_tx,
	.release = vhost_release,
};
