/* SPDX-License-Identifier: MIT */
/*
 * port_packet.c - the AF_PACKET port: a raw packet socket bound to one
 * existing interface, with PACKET_VNET_HDR so super-frames cross whole,
 * batched with recvmmsg()/sendmmsg()
 *
 * Receive: GRO'd super-frames (and super-frames a veth peer passes on) come
 * with a virtio_net_hdr describing them; the kernel cannot be asked for
 * less, so the port's rx offloads are everything the header can say and
 * the caller segments what it cannot take (gso.h).  A frame the kernel
 * cannot describe (a GSO type virtio has no name for) fails its recvmsg
 * with EINVAL and is gone: it is counted as dropped under "einval".  VLAN
 * tags the kernel moved into metadata come back through PACKET_AUXDATA and
 * are put back into the frame.  A link going down is a pause, not an error
 * (the socket's one ENETDOWN is swallowed while the interface exists); an
 * interface deleted under the port fails its receive with ENETDOWN.
 *
 * Send: the kernel validates the header as for a TUN write and segments a
 * super-packet in software at egress when the device lacks the offload, so
 * any valid header may be written.  The frame then leaves through the
 * device as one a bridge forwards to it (validate_xmit_skb()), so the
 * device's own TSO_MANGLEID and gso limits shape the port as an egress
 * (packet_egress()).  PACKET_IGNORE_OUTGOING keeps the
 * socket from receiving its own transmissions (and every other frame the
 * host sends out of the interface; VOFF_PORT_F_OWN_TX turns it off).
 *
 * Receive ring (TPACKET_V2, unless VOFF_PORT_F_NO_RING or a 12-byte
 * header, which the kernel's ring writes wrong): the kernel copies each
 * frame, with its virtio_net_hdr, into the next RING_FRAME-byte slot of a
 * ring shared with voff, in the sender's context, and wakes the socket's
 * waiters; a receive call copies the ready slots into pool packets and
 * hands the slots back, without a system call.  A frame too big for a slot
 * (a GRO super-frame) is queued to the socket whole as well
 * (PACKET_COPY_THRESH) and its slot marked TP_STATUS_COPY: that one is
 * read with recvmsg(), in its place in the order.  A full ring drops at
 * the kernel, counted by PACKET_STATISTICS (rx_kernel_dropped), as does a
 * frame whose offloads the header cannot describe (recvmsg() fails those
 * with EINVAL).  Not TPACKET_V3: it hands a block to user space only when
 * the block is full or its timer fires (a millisecond at least), a delay
 * every lone frame would pay.  Send stays sendmmsg(): a transmit ring
 * saves no system call (a batch still needs its send()), only the
 * per-message work inside it, while its slots come back to user space
 * asynchronously (when the device frees each frame) and a super-packet
 * larger than a slot would need a second path that keeps the order.
 *
 * At close the ring is unmapped before the socket is closed: no packet
 * points into it (every frame was copied into a pool packet), so nothing
 * outlives it.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/netlink.h>
#include <voff/pkt.h>
#include <voff/port.h>

#include "netns_int.h"
#include "port_int.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif
#ifndef PACKET_VNET_HDR_SZ
#define PACKET_VNET_HDR_SZ 24	/* 6.2+: header size 0, 10 or 12 */
#endif

/* What may come from, and go to, the socket: all the codec can carry. */
#define PACKET_OFF                                                           \
	(VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6 |               \
	 VOFF_TUN_F_TSO_ECN | VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6)

/* Socket buffers large enough for a burst of 64 KiB super-frames. */
#define PACKET_SOCKBUF (8 << 20)

#define AUX_SPACE CMSG_SPACE(sizeof(struct tpacket_auxdata))

/*
 * The receive ring: RING_BLOCKS blocks of RING_BLOCK bytes, cut into
 * RING_FRAME-byte slots: a slot holds the kernel's headers and an MTU
 * frame with its virtio_net_hdr (1 MiB, 512 slots).
 */
#define RING_FRAME 2048
#define RING_BLOCK (64 << 10)
#define RING_BLOCKS 16
#define RING_SLOTS (RING_BLOCKS * (RING_BLOCK / RING_FRAME))

/**
 * struct packet_priv - a packet port's state
 * @kdrops:	PACKET_STATISTICS drops read so far
 * @ring:	the mmap()ed receive ring, or NULL
 * @head:	the ring's next slot to read
 * @err_check_ns: when an empty ring last asked the socket for its error
 * @msg, @iov, @pkt, @ctrl: recvmmsg()/sendmmsg() arrays
 */
struct packet_priv {
	uint64_t kdrops;
	uint8_t *ring;
	unsigned int head;
	uint64_t err_check_ns;
	struct mmsghdr msg[VOFF_BATCH_MAX];
	struct iovec iov[VOFF_BATCH_MAX];
	struct voff_pkt *pkt[VOFF_BATCH_MAX];
	/* Control buffers, cmsghdr-aligned (size_t is what it holds). */
	size_t ctrl[VOFF_BATCH_MAX][(AUX_SPACE + sizeof(size_t) - 1) /
				    sizeof(size_t)];
};

static int sockopt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val)) ? -errno : 0;
}

/* Make the socket inside the port's namespace and bind it there. */
static int packet_socket(struct voff_port *port, const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	int saved, fd, err;

	err = voff__netns_enter(port->netns, &saved);
	if (err)
		return err;
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	err = !sll.sll_ifindex ? -ENODEV : fd < 0 ? -errno : 0;
	voff__netns_leave(saved);
	if (err) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	port->fd = fd;
	port->info.ifindex = (unsigned int)sll.sll_ifindex;
	return 0;
}

/*
 * Set up the receive ring (before bind: no frame can come before it).
 * Without one (an old kernel, no memory) the port reads with recvmmsg().
 */
static void ring_on(struct voff_port *port)
{
	struct tpacket_req req = {
		.tp_block_size = RING_BLOCK,
		.tp_block_nr = RING_BLOCKS,
		.tp_frame_size = RING_FRAME,
		.tp_frame_nr = RING_SLOTS,
	};
	struct packet_priv *pp = port->priv;
	int fd = port->fd;
	void *ring;

	if (sockopt(fd, SOL_PACKET, PACKET_VERSION, TPACKET_V2) ||
	    sockopt(fd, SOL_PACKET, PACKET_COPY_THRESH, 1) ||
	    setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
		return;
	ring = mmap(NULL, (size_t)RING_BLOCK * RING_BLOCKS,
		    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		/* Tear the ring down again: recvmmsg() cannot read past it. */
		memset(&req, 0, sizeof(req));
		setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req));
		return;
	}
	pp->ring = ring;
	port->info.mmap_ring = true;
}

static int packet_setup(struct voff_port *port,
			const struct voff_port_cfg *cfg)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	int fd = port->fd, err = 0;

	if (port->info.vnet_hdr_len == 10)
		err = sockopt(fd, SOL_PACKET, PACKET_VNET_HDR, 1);
	else if (port->info.vnet_hdr_len)
		err = sockopt(fd, SOL_PACKET, PACKET_VNET_HDR_SZ,
			      (int)port->info.vnet_hdr_len);
	if (!err && !(cfg->flags & VOFF_PORT_F_OWN_TX))
		err = sockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1);
	if (!err)
		err = sockopt(fd, SOL_PACKET, PACKET_AUXDATA, 1);
	if (err)
		return err;
	/* Forcing needs CAP_NET_ADMIN; without it keep what the kernel caps. */
	if (sockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, PACKET_SOCKBUF))
		(void)sockopt(fd, SOL_SOCKET, SO_RCVBUF, PACKET_SOCKBUF);
	if (sockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, PACKET_SOCKBUF))
		(void)sockopt(fd, SOL_SOCKET, SO_SNDBUF, PACKET_SOCKBUF);
	if (!(cfg->flags & VOFF_PORT_F_NO_RING) &&
	    port->info.vnet_hdr_len != 12)
		ring_on(port);
	sll.sll_ifindex = (int)port->info.ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -errno;
	return voff_netlink_get_limits(port->netns, port->info.name, NULL,
				       &port->info.limits);
}

static int packet_open(struct voff_port *port,
		       const struct voff_port_cfg *cfg)
{
	struct voff_port_info *in = &port->info;
	int err;

	if (!cfg->name || !*cfg->name || strlen(cfg->name) >= IFNAMSIZ ||
	    cfg->vnet_hdr_len > 12)
		return -EINVAL;	/* PACKET_VNET_HDR_SZ takes 0, 10 or 12 */
	snprintf(in->name, sizeof(in->name), "%s", cfg->name);
	if (!(cfg->flags & VOFF_PORT_F_NO_VNET)) {
		in->vnet_hdr_len = cfg->vnet_hdr_len ? cfg->vnet_hdr_len : 10;
		in->rx_off = PACKET_OFF;
		in->tx_off = PACKET_OFF;
	}
	in->refused = in->want & ~in->rx_off;
	in->tx_max_len = VOFF_GSO_MAX_FRAME;
	port->priv = calloc(1, sizeof(struct packet_priv));
	if (!port->priv)
		return -ENOMEM;
	err = packet_socket(port, cfg->name);
	if (!err) {
		err = packet_setup(port, cfg);
		if (err)
			close(port->fd);
	}
	if (err) {
		struct packet_priv *pp = port->priv;

		if (pp->ring)
			munmap(pp->ring, (size_t)RING_BLOCK * RING_BLOCKS);
		free(port->priv);
		port->fd = -1;
	}
	return err;
}

static void packet_close(struct voff_port *port)
{
	struct packet_priv *pp = port->priv;

	if (pp->ring)
		munmap(pp->ring, (size_t)RING_BLOCK * RING_BLOCKS);
	if (port->fd >= 0)
		close(port->fd);
	port->fd = -1;
	free(port->priv);
}

/*
 * The socket's queue overflows since open: PACKET_STATISTICS counts them
 * since it was last read, so they are added up here.
 */
static uint64_t packet_kernel_drops(const struct voff_port *port)
{
	struct packet_priv *pp = port->priv;
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (port->fd >= 0 &&
	    !getsockopt(port->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len))
		pp->kdrops += st.tp_drops;
	return pp->kdrops;
}

static int packet_refresh(struct voff_port *port)
{
	return voff_netlink_get_limits(port->netns, port->info.name, NULL,
				       &port->info.limits);
}

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * The port as an egress is its device (docs/kernel-model.md §7), as read
 * at open:
 *  - TSO_MANGLEID: a header cannot say FIXEDID, so a fixed-ID TCPV4
 *    super-packet reaches the device as one whose IDs it may make
 *    incrementing; a device with TSO_MANGLEID on takes exactly that, and
 *    the kernel's bridge passes it such super-packets whole (with DF set:
 *    voff_xmit_decide() takes MANGLEID away without DF);
 *  - gso_max_size, gso_ipv4_max_size, gso_max_segs: a send of that size
 *    or more is cut by the kernel to MSS-sized frames, so they bound the
 *    port, up to the largest frame a send carries (a device above 64 KiB
 *    then takes the 65549-byte frames GRO builds).
 */
static void packet_egress(const struct voff_port *port,
			  struct voff_feat_dev *dev, struct voff_limits *lim)
{
	const uint64_t m = VOFF_F_TSO_MANGLEID;
	const struct voff_limits *d = &port->info.limits;
	uint32_t top = port->info.tx_max_len + 1;
	uint32_t v4 = d->gso_ipv4_max_size;

	if ((dev->active & VOFF_F_TSO) && (port->info.features & m)) {
		dev->hw |= m;
		dev->wanted |= m;
		dev->active |= m;
		if (dev->vlan & VOFF_F_TSO)
			dev->vlan |= m;
		if (dev->enc & VOFF_F_TSO)
			dev->enc |= m;
	}
	/* Before 6.3 IPv4 had no size of its own: gso_max_size, <= 64 KiB. */
	if (!v4)
		v4 = min32(d->gso_max_size, VOFF_GSO_LEGACY_MAX_SIZE);
	if (d->gso_max_size)
		lim->gso_max_size = min32(d->gso_max_size, top);
	if (v4)
		lim->gso_ipv4_max_size = min32(v4, top);
	if (d->gso_max_segs)
		lim->gso_max_segs = d->gso_max_segs;
}

/* The VLAN tag the kernel took off a received frame, from its auxdata. */
static void aux_vlan(struct msghdr *mh, uint16_t *tpid, uint16_t *tci)
{
	*tpid = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c;
	     c = CMSG_NXTHDR(mh, c)) {
		struct tpacket_auxdata aux;

		if (c->cmsg_level != SOL_PACKET ||
		    c->cmsg_type != PACKET_AUXDATA ||
		    c->cmsg_len < CMSG_LEN(sizeof(aux)))
			continue;
		memcpy(&aux, CMSG_DATA(c), sizeof(aux));
		if (!(aux.tp_status & TP_STATUS_VLAN_VALID))
			return;
		*tci = (uint16_t)aux.tp_vlan_tci;
		*tpid = (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) ?
				(uint16_t)aux.tp_vlan_tpid :
				ETH_P_8021Q;
		return;
	}
}

/* Give @k packets from @pool to the message array; return how many. */
static unsigned int arm(struct voff_port *port, struct voff_pool *pool,
			unsigned int k)
{
	struct packet_priv *pp = port->priv;
	uint32_t hs = port->info.vnet_hdr_len;

	k = voff_pkt_alloc_bulk(pool, pp->pkt, k);
	for (unsigned int i = 0; i < k; i++) {
		struct msghdr *mh = &pp->msg[i].msg_hdr;

		pp->iov[i].iov_base = voff_pkt_push(pp->pkt[i], hs);
		pp->iov[i].iov_len = hs + voff_pkt_tailroom(pp->pkt[i]);
		memset(mh, 0, sizeof(*mh));
		mh->msg_iov = &pp->iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = pp->ctrl[i];
		mh->msg_controllen = sizeof(pp->ctrl[i]);
	}
	return k;
}

/*
 * The socket reported ENETDOWN: the interface went down, or away.  Down is
 * a pause (the kernel hooks the socket in again when the link comes up),
 * away is the end (the socket stays unbound; a new interface of the same
 * name gets another index).  True while the interface still exists.
 */
static bool link_alive(struct voff_port *port)
{
	unsigned int ifindex = 0;
	int err;

	err = voff_netlink_get_limits(port->netns, port->info.name, &ifindex,
				      &port->info.limits);
	if (err == -ENODEV || (!err && ifindex != port->info.ifindex))
		return false;
	return true;
}

/*
 * recvmsg() of the frame a TP_STATUS_COPY slot stands for.  The socket's
 * pending error comes first and leaves the frame queued: ENETDOWN of a
 * link that went down and up (or is down) is a pause, so read again;
 * so after EINTR.  Return: as recvmsg(), with -errno.
 */
static ssize_t copied_recv(struct voff_port *port, struct msghdr *mh)
{
	bool flapped = false;

	for (;;) {
		ssize_t n = recvmsg(port->fd, mh, MSG_DONTWAIT);

		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno == ENETDOWN && !flapped && link_alive(port)) {
			flapped = true;
			continue;
		}
		return -errno;
	}
}

/*
 * One frame whose slot said TP_STATUS_COPY: the next in the socket's
 * queue, whole.  Return: 1 when appended, 0 when dropped or gone (the
 * slot is done with), or a negative errno: no buffer, or a socket error
 * that left the frame queued (the slot must stay for a later call, or
 * the next copied slot would read this frame).
 */
static int ring_copied(struct voff_port *port, struct voff_pool *pool,
		       struct voff_batch *b)
{
	struct packet_priv *pp = port->priv;
	struct msghdr *mh = &pp->msg[0].msg_hdr;
	uint32_t hs = port->info.vnet_hdr_len;
	uint16_t tpid, tci = 0;
	ssize_t n;

	if (!arm(port, pool, 1))
		return -ENOBUFS;
	n = copied_recv(port, mh);
	if (n < 0) {
		voff_pkt_free(pp->pkt[0]);
		/* The kernel could not describe it: dequeued and gone. */
		if (n == -EINVAL) {
			voff__port_count_drop(port, VOFF_PORT_RX, -EINVAL);
			return 0;
		}
		/* Not there (nothing to wait for), or kept for later. */
		if (n == -EAGAIN || (n == -ENETDOWN && link_alive(port)))
			return n == -EAGAIN ? 0 : -EAGAIN;
		return (int)n;
	}
	if (mh->msg_flags & MSG_TRUNC) {
		voff__port_count_drop(port, VOFF_PORT_RX, VOFF_E_PORT_TRUNC);
		voff_pkt_free(pp->pkt[0]);
		return 0;
	}
	if ((uint32_t)n >= hs)
		voff_pkt_put(pp->pkt[0], (uint32_t)n - hs);
	else
		voff_pkt_trim(pp->pkt[0], (uint32_t)n);
	aux_vlan(mh, &tpid, &tci);
	return voff__port_rx_accept(port, pp->pkt[0], b, tpid, tci) ? 0 : 1;
}

/*
 * One ready slot @h: its frame, with the virtio_net_hdr in front, copied
 * into a fresh packet of @pool.  Return: as ring_copied().
 */
static int ring_frame(struct voff_port *port, struct voff_pool *pool,
		      const struct tpacket2_hdr *h, struct voff_batch *b)
{
	uint32_t hs = port->info.vnet_hdr_len;
	uint16_t tpid = 0, tci = 0;
	struct voff_pkt *pkt;
	uint8_t *d;

	if (h->tp_status & TP_STATUS_COPY)
		return ring_copied(port, pool, b);
	/* The slot's fields bound the copy (64-bit sum: no wrap). */
	if (h->tp_snaplen < h->tp_len || h->tp_mac < hs ||
	    (uint64_t)h->tp_mac + h->tp_snaplen > RING_FRAME) {
		/* Cut to the slot, and the socket had no room for it whole. */
		voff__port_count_drop(port, VOFF_PORT_RX, VOFF_E_PORT_TRUNC);
		return 0;
	}
	if (voff_pkt_alloc(pool, &pkt))
		return -ENOBUFS;
	d = voff_pkt_push(pkt, hs);
	if (!d || voff_pkt_tailroom(pkt) < h->tp_snaplen) {
		voff__port_count_drop(port, VOFF_PORT_RX, VOFF_E_PORT_TRUNC);
		voff_pkt_free(pkt);
		return 0;
	}
	memcpy(d, (const uint8_t *)h + h->tp_mac - hs, hs + h->tp_snaplen);
	voff_pkt_put(pkt, h->tp_snaplen);
	if (h->tp_status & TP_STATUS_VLAN_VALID) {
		tci = h->tp_vlan_tci;
		tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ?
			       h->tp_vlan_tpid : ETH_P_8021Q;
	}
	return voff__port_rx_accept(port, pkt, b, tpid, tci) ? 0 : 1;
}

static struct tpacket2_hdr *head_slot(const struct packet_priv *pp)
{
	return (struct tpacket2_hdr *)(pp->ring +
				       (size_t)pp->head * RING_FRAME);
}

/* The slot's bytes are the kernel's until its status says they are ours. */
static bool slot_ready(const struct tpacket2_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
	       TP_STATUS_USER;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * An empty ring says nothing of the socket's error (its interface went
 * down or away), which a recvmmsg() would have returned: ask the socket
 * (SO_ERROR, which leaves its queue alone: a copied super-frame may wait
 * there for a slot the kernel has not handed over yet), at most every
 * RING_ERR_NS (an epoll waiter sees the error at once and would call
 * again and again).  Return: 0, or the error of a socket whose interface
 * is gone.
 */
#define RING_ERR_NS 1000000ull

static int ring_error(struct voff_port *port)
{
	struct packet_priv *pp = port->priv;
	uint64_t now = mono_ns();
	socklen_t len = sizeof(int);
	int err = 0;

	if (now - pp->err_check_ns < RING_ERR_NS)
		return 0;
	pp->err_check_ns = now;
	if (getsockopt(port->fd, SOL_SOCKET, SO_ERROR, &err, &len) || !err)
		return 0;
	err = -err;
	/* Down is a pause (the kernel hooks the socket in again when up). */
	if (err == -ENETDOWN && link_alive(port))
		return 0;
	return err;
}

/*
 * Read the ring's ready slots, @left at most, in order, handing each back
 * to the kernel.  Return: frames appended, or -ENOBUFS / a negative errno
 * when nothing was.
 */
static int ring_rx(struct voff_port *port, struct voff_pool *pool,
		   struct voff_batch *b, unsigned int left)
{
	struct packet_priv *pp = port->priv;
	unsigned int got = 0;

	if (!slot_ready(head_slot(pp)))
		return ring_error(port);

	while (left) {
		struct tpacket2_hdr *h = head_slot(pp);
		int r;

		if (!slot_ready(h))
			break;
		r = ring_frame(port, pool, h, b);
		if (r < 0)
			return got ? (int)got : r;	/* the slot stays */
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		pp->head = (pp->head + 1) % RING_SLOTS;
		left--;
		got += (unsigned int)r;
	}
	return (int)got;
}

static int packet_rx(struct voff_port *port, struct voff_pool *pool,
		     struct voff_batch *b)
{
	struct packet_priv *pp = port->priv;
	uint32_t hs = port->info.vnet_hdr_len;
	/* Refused frames count: a malformed flood reads no deeper. */
	unsigned int got = 0, left = voff_batch_space(b);

	if (pp->ring)
		return ring_rx(port, pool, b, left);

	while (left) {
		unsigned int k = arm(port, pool, left);
		int r;

		if (!k)
			return got ? (int)got : -ENOBUFS;
		r = recvmmsg(port->fd, pp->msg, k, MSG_DONTWAIT, NULL);
		if (r < 0) {
			int err = -errno;

			voff_pkt_free_bulk(pp->pkt, k);
			if (err == -EAGAIN)
				break;
			/* A frame the kernel could not describe is gone. */
			if (err == -EINVAL) {
				voff__port_count_drop(port, VOFF_PORT_RX, err);
				left--;
				continue;
			}
			if (err == -EINTR)
				continue;
			if (err == -ENETDOWN && link_alive(port))
				break;
			return got ? (int)got : err;
		}
		for (int i = 0; i < r; i++) {
			struct voff_pkt *pkt = pp->pkt[i];
			struct msghdr *mh = &pp->msg[i].msg_hdr;
			uint32_t n = pp->msg[i].msg_len;
			uint16_t tpid, tci = 0;

			if (mh->msg_flags & MSG_TRUNC) {
				voff__port_count_drop(port, VOFF_PORT_RX,
						      VOFF_E_PORT_TRUNC);
				voff_pkt_free(pkt);
				continue;
			}
			if (n >= hs)
				voff_pkt_put(pkt, n - hs);
			else
				voff_pkt_trim(pkt, n);
			aux_vlan(mh, &tpid, &tci);
			if (!voff__port_rx_accept(port, pkt, b, tpid, tci))
				got++;
		}
		voff_pkt_free_bulk(pp->pkt + r, k - (unsigned int)r);
		left -= (unsigned int)r;
		if ((unsigned int)r < k)
			break;	/* the socket is empty */
	}
	return (int)got;
}

static int packet_tx(struct voff_port *port, struct voff_pkt **pkts,
		     unsigned int n, int *res)
{
	struct packet_priv *pp = port->priv;
	unsigned int i = 0;

	for (unsigned int k = 0; k < n; k++) {
		memset(&pp->msg[k], 0, sizeof(pp->msg[k]));
		pp->iov[k].iov_base = voff_pkt_data(pkts[k]);
		pp->iov[k].iov_len = pkts[k]->len;
		pp->msg[k].msg_hdr.msg_iov = &pp->iov[k];
		pp->msg[k].msg_hdr.msg_iovlen = 1;
	}
	while (i < n) {
		int r = sendmmsg(port->fd, pp->msg + i, n - i, MSG_DONTWAIT);

		if (r > 0) {
			i += (unsigned int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || errno == EAGAIN || errno == ENOBUFS) {
			while (i < n)
				res[i++] = -EAGAIN;
			break;
		}
		/* The frame at @i was refused; go on after it. */
		res[i++] = -errno;
	}
	return 0;
}

const struct voff_port_ops voff__port_packet_ops = {
	.kind = VOFF_PORT_PACKET,
	.open = packet_open,
	.close = packet_close,
	.rx = packet_rx,
	.tx = packet_tx,
	.refresh = packet_refresh,
	.kernel_drops = packet_kernel_drops,
	.egress = packet_egress,
};
