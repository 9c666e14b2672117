/* SPDX-License-Identifier: MIT */
/*
 * test_port_vhost.c - the vhost-user port with a fake guest connected to
 * its socket: negotiation becomes the port's offloads, frames cross both
 * ways byte for byte with their offloads (super-packets whole, mergeable
 * buffers, checksums completed for a guest without GUEST_CSUM), bad
 * headers and chains are counted by reason, guests disconnect and come
 * back, a second guest and a foreign user are refused, and through the
 * switch a super-packet reaches a guest whole or segmented by what it
 * negotiated
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/switch.h>
#include <voff/vnet.h>

#include "check.h"
#include "port_int.h"
#include "tso.h"
#include "vhost_guest.h"
#include "vhost_int.h"

struct fixture {
	char dir[64];
	char path[96];
	struct voff_port *port;
	struct voff_pool *pool;
	struct voff_batch rx;
	struct vg g;
};

static void pump(void *ctx)
{
	struct fixture *f = ctx;

	voff_port_rx(f->port, f->pool, &f->rx);
}

/* Whether @fd polls readable now. */
static bool readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CHECK(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	CHECK_OK(connect(fd, (struct sockaddr *)&a, sizeof(a)));
	return fd;
}

static void open_port(struct fixture *f, unsigned int want)
{
	struct voff_port_cfg cfg = { .kind = VOFF_PORT_VHOST };

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/voff-vhost-XXXXXX");
	CHECK(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/vm0.sock", f->dir);
	cfg.name = f->path;
	cfg.want = want;
	CHECK_OK(voff_port_open(&f->port, &cfg));
	CHECK_OK(voff_pool_new(&f->pool, 512, VOFF_PKT_SUPER_ROOM));
	voff_batch_init(&f->rx);
}

/* A guest connects and starts with @features. */
static void guest(struct fixture *f, uint64_t features)
{
	CHECK_OK(vg_new(&f->g, connect_to(f->path), 256, pump, f));
	pump(f);	/* accept */
	CHECK_OK(vg_start(&f->g, features));
	pump(f);	/* the last message's effects, the info */
}

static void close_port(struct fixture *f)
{
	voff_batch_free(&f->rx);
	if (f->g.mem)
		vg_free(&f->g);
	voff_port_close(f->port);
	CHECK_EQ(voff_pool_in_use(f->pool), 0);
	voff_pool_free(f->pool);
	rmdir(f->dir);
}

#define F(b) VHOST_BIT(b)
#define RINGS (F(VIRTIO_F_VERSION_1) | F(VIRTIO_RING_F_EVENT_IDX) |         \
	       F(VIRTIO_RING_F_INDIRECT_DESC))
#define ALL_OFF (VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6 |     \
		 VOFF_TUN_F_TSO_ECN | VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6)
#define GUEST_ALL (F(VIRTIO_NET_F_GUEST_CSUM) | F(VIRTIO_NET_F_GUEST_TSO4) | \
		   F(VIRTIO_NET_F_GUEST_TSO6) | F(VIRTIO_NET_F_GUEST_ECN) |   \
		   F(VIRTIO_NET_F_MRG_RXBUF))
#define HOST_ALL (F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |         \
		  F(VIRTIO_NET_F_HOST_TSO6) | F(VIRTIO_NET_F_HOST_ECN))

/* A 12-byte virtio_net_hdr (little-endian). */
static void hdr12(uint8_t *h, uint8_t flags, uint8_t gso, uint16_t hdr_len,
		  uint16_t gso_size, uint16_t start, uint16_t off)
{
	uint16_t v[5] = { htole16(hdr_len), htole16(gso_size), htole16(start),
			  htole16(off), 0 };

	h[0] = flags;
	h[1] = gso;
	memcpy(h + 2, v, 10);
}

/* The socket, its mode, and what nothing negotiated looks like. */
static void t_open(void)
{
	struct voff_port_info in;
	struct voff_port_vhost_stats st;
	struct fixture f;
	struct stat s;
	int fds0 = vg_count_fds();

	open_port(&f, ALL_OFF);
	CHECK_OK(stat(f.path, &s));
	CHECK(S_ISSOCK(s.st_mode));
	CHECK_EQ(s.st_mode & 0777, 0600);
	voff_port_info(f.port, &in);
	CHECK_EQ(in.kind, VOFF_PORT_VHOST);
	CHECK_STR_EQ(in.name, f.path);
	CHECK_EQ(in.tx_off, 0);
	CHECK_EQ(in.rx_off, 0);
	CHECK(voff_port_fd(f.port) >= 0);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK(!st.connected);
	CHECK_STR_EQ(voff_port_kind_name(VOFF_PORT_VHOST), "vhost-user");
	/* A second port on the same live socket is refused. */
	{
		struct voff_port_cfg cfg = { .kind = VOFF_PORT_VHOST,
					     .name = f.path };
		struct voff_port *p2;

		CHECK_EQ(voff_port_open(&p2, &cfg), -EADDRINUSE);
	}
	close_port(&f);
	/* The socket goes with the port. */
	CHECK_NE(stat(f.path, &s), 0);
	CHECK_EQ(vg_count_fds(), fds0);
	/* Nothing but a socket is replaced. */
	{
		struct voff_port_cfg cfg = { .kind = VOFF_PORT_VHOST };
		char path[] = "/tmp/voff-vhost-file-XXXXXX";
		struct voff_port *p2;
		int fd = mkstemp(path);

		CHECK(fd >= 0);
		close(fd);
		cfg.name = path;
		CHECK_EQ(voff_port_open(&p2, &cfg), -EEXIST);
		unlink(path);
	}
}

/* Negotiation becomes the port's offloads; the switch's egress follows. */
static void t_negotiate(void)
{
	struct voff_port_info in;
	struct voff_port_vhost_stats st;
	struct fixture f;
	uint32_t gen;

	open_port(&f, VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4);
	gen = f.port->gen;
	guest(&f, RINGS | GUEST_ALL | F(VIRTIO_NET_F_CSUM) |
			  F(VIRTIO_NET_F_HOST_TSO4));
	CHECK_NE(f.port->gen, gen);
	voff_port_info(f.port, &in);
	CHECK_EQ(in.vnet_hdr_len, 12);
	CHECK_EQ(in.rx_off, VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4);
	CHECK_EQ(in.tx_off, VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 |
				    VOFF_TUN_F_TSO6 | VOFF_TUN_F_TSO_ECN);
	CHECK_EQ(in.limits.mtu, 1500);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK(st.connected);
	CHECK(st.running);
	CHECK_EQ(st.connects, 1);
	CHECK_EQ(st.starts, 1);
	CHECK(st.features & F(VIRTIO_NET_F_HOST_TSO4));
	close_port(&f);

	/* HOST_TSO6 is not offered when the spec does not want it. */
	open_port(&f, VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4);
	CHECK_OK(vg_new(&f.g, connect_to(f.path), 256, pump, &f));
	pump(&f);
	CHECK_EQ(vg_start(&f.g, RINGS | F(VIRTIO_NET_F_HOST_TSO6)),
		 -EOPNOTSUPP);
	close_port(&f);
}

/* Guest to voff: plain frames and super-packets, byte for byte. */
static void t_from_guest(void)
{
	static uint8_t frame[70000];
	struct fixture f;
	uint8_t h[12];
	size_t len;
	struct voff_port_stats ps;

	open_port(&f, ALL_OFF);
	guest(&f, RINGS | GUEST_ALL | HOST_ALL);
	len = tso_tcp4_frame(frame, sizeof(frame), 100, 1);
	hdr12(h, 0, 0, 0, 0, 0, 0);
	vg_tx(&f.g, h, 12, frame, len, 0, false);
	/* A super-packet: 20 segments of 1448, cut in 4 KiB buffers. */
	len = tso_tcp4_frame(frame, sizeof(frame), 20 * 1448, 2);
	hdr12(h, 1, VOFF_VNET_GSO_TCPV4, 66, 1448, 34, 16);
	vg_tx(&f.g, h, 12, frame, len, 4096, true);
	vg_kick(&f.g, VHOST_TX_Q, true);
	pump(&f);
	CHECK_EQ(f.rx.n, 2);
	CHECK_EQ(f.rx.pkts[0]->len, 54 + 100);
	CHECK_EQ(f.rx.pkts[0]->gso_type, 0);
	CHECK_EQ(f.rx.pkts[1]->len, len);
	CHECK(!memcmp(voff_pkt_data(f.rx.pkts[1]), frame, len));
	CHECK_EQ(f.rx.pkts[1]->gso_type, VOFF_GSO_TCPV4);
	CHECK_EQ(f.rx.pkts[1]->gso_size, 1448);
	CHECK_EQ(f.rx.pkts[1]->gso_segs, 20);
	CHECK_EQ(f.rx.pkts[1]->csum, VOFF_CSUM_PARTIAL);
	CHECK_GE(voff_pkt_headroom(f.rx.pkts[1]), VOFF_PKT_HEADROOM);
	/*
	 * Both buffers are back, each used once, with one call: it waits
	 * for frames to the guest (t_tx_call_joins), here for two more polls
	 * of a port that stays readable meanwhile.
	 */
	{
		uint32_t id, l;

		CHECK(vg_used(&f.g, VHOST_TX_Q, &id, &l));
		CHECK(vg_used(&f.g, VHOST_TX_Q, &id, &l));
		CHECK(!vg_used(&f.g, VHOST_TX_Q, &id, &l));
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
		CHECK(readable(voff_port_fd(f.port)));
		pump(&f);
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
		pump(&f);
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 1);
		pump(&f);
		CHECK(!readable(voff_port_fd(f.port)));
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
	}
	voff_port_stats(f.port, &ps);
	CHECK_EQ(ps.rx_packets, 2);
	CHECK_EQ(ps.rx_gso, 1);
	CHECK_EQ(ps.rx_dropped, 0);
	close_port(&f);
}

/*
 * The transmit queue's next kick is asked for by the poll that finds it
 * empty, not by the one that took frames: a frame queued in between needs
 * no kick, and the port stays readable until it is taken.
 */
/* A port and its guest, one plain frame in @frame, its header in @h. */
static size_t tx_setup(struct fixture *f, uint8_t *frame, size_t size,
		       uint8_t *h)
{
	open_port(f, ALL_OFF);
	guest(f, RINGS | GUEST_ALL | HOST_ALL);
	hdr12(h, 0, 0, 0, 0, 0, 0);
	return tso_tcp4_frame(frame, size, 100, 1);
}

static void t_tx_arm_late(void)
{
	static uint8_t frame[2000];
	struct fixture f;
	uint8_t h[12];
	size_t len = tx_setup(&f, frame, sizeof(frame), h);

	vg_tx(&f.g, h, 12, frame, len, 0, false);
	vg_kick(&f.g, VHOST_TX_Q, false);
	pump(&f);
	CHECK_EQ(f.rx.n, 1);
	CHECK_EQ(vg_avail_event(&f.g, VHOST_TX_Q), 0);
	CHECK(readable(voff_port_fd(f.port)));
	/* Queued meanwhile: the guest's kick check says no kick. */
	vg_tx(&f.g, h, 12, frame, len, 0, false);
	vg_kick(&f.g, VHOST_TX_Q, false);
	CHECK(readable(voff_port_fd(f.port)));
	pump(&f);
	CHECK_EQ(f.rx.n, 2);
	CHECK_EQ(vg_avail_event(&f.g, VHOST_TX_Q), 0);
	/* Nothing more: now the next kick is asked for. */
	pump(&f);
	CHECK_EQ(f.rx.n, 2);
	CHECK_EQ(vg_avail_event(&f.g, VHOST_TX_Q), 2);
	for (int i = 0; i < 3; i++)
		pump(&f);
	CHECK(!readable(voff_port_fd(f.port)));
	/* The next frame kicks, and is taken. */
	vg_tx(&f.g, h, 12, frame, len, 0, false);
	vg_kick(&f.g, VHOST_TX_Q, false);
	CHECK(readable(voff_port_fd(f.port)));
	pump(&f);
	CHECK_EQ(f.rx.n, 3);
	close_port(&f);
}

/* A broken transmit ring: the port goes quiet, kicked or not. */
static void t_tx_broken_quiet(void)
{
	static uint8_t frame[2000];
	struct fixture f;
	uint8_t h[12];
	size_t len = tx_setup(&f, frame, sizeof(frame), h);

	vg_tx(&f.g, h, 12, frame, len, 0, false);
	vg_avail_push(&f.g, VHOST_TX_Q, 256);	/* a head past the ring */
	vg_kick(&f.g, VHOST_TX_Q, true);
	pump(&f);
	CHECK_EQ(f.rx.n, 1);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_RX,
				      VOFF_E_VHOST_RING), 1);
	for (int i = 0; i < 3; i++)
		pump(&f);
	CHECK(!readable(voff_port_fd(f.port)));
	/* The guest kicks again: read, and quiet again. */
	vg_kick(&f.g, VHOST_TX_Q, true);
	CHECK(readable(voff_port_fd(f.port)));
	pump(&f);
	CHECK(!readable(voff_port_fd(f.port)));
	CHECK_EQ(f.rx.n, 1);
	close_port(&f);
}

/* Bad headers and chains are dropped by reason; the guest gets them back. */
static void t_from_guest_bad(void)
{
	static uint8_t frame[2000];
	struct fixture f;
	uint8_t h[12];
	size_t len;
	uint32_t id, l;
	unsigned int n = 0;

	open_port(&f, VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4);
	guest(&f, RINGS | GUEST_ALL | F(VIRTIO_NET_F_CSUM) |
			  F(VIRTIO_NET_F_HOST_TSO4));
	len = tso_tcp4_frame(frame, sizeof(frame), 1448 * 1, 3);
	/* gso_size 0: the validator's reason. */
	hdr12(h, 1, VOFF_VNET_GSO_TCPV4, 66, 0, 34, 16);
	vg_tx(&f.g, h, 12, frame, len, 0, false);
	/* TCPv6 GSO, not negotiated. */
	hdr12(h, 1, VOFF_VNET_GSO_TCPV6, 66, 700, 34, 16);
	vg_tx(&f.g, h, 12, frame, len, 0, false);
	/* Shorter than the header. */
	vg_tx(&f.g, h, 6, frame, 0, 0, false);
	/* A buffer outside guest memory. */
	vg_desc_set(&f.g, VHOST_TX_Q, 100, 0x10, 64, 0, 0);
	vg_avail_push(&f.g, VHOST_TX_Q, 100);
	/* And a good one after them all. */
	hdr12(h, 0, 0, 0, 0, 0, 0);
	vg_tx(&f.g, h, 12, frame, len, 0, false);
	vg_kick(&f.g, VHOST_TX_Q, true);
	pump(&f);
	CHECK_EQ(f.rx.n, 1);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_RX,
				      VOFF_E_VNET_GSO_SIZE_ZERO), 1);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_RX,
				      VOFF_E_PORT_OFFLOAD), 1);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_RX,
				      VOFF_E_VNET_TRUNC), 1);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_RX,
				      VOFF_E_VHOST_DESC), 1);
	while (vg_used(&f.g, VHOST_TX_Q, &id, &l))
		n++;
	CHECK_EQ(n, 5);
	close_port(&f);
}

/* Read the frame the guest received from used entries of its rx queue. */
static size_t guest_rx(struct fixture *f, uint8_t *out, uint8_t *hdr,
		       unsigned int *bufs)
{
	uint32_t id, len;
	size_t n = 0;
	unsigned int want = 1;

	*bufs = 0;
	while (*bufs < want && vg_used(&f->g, VHOST_RX_Q, &id, &len)) {
		uint64_t a;
		uint8_t *d = vg_desc_table(&f->g, VHOST_RX_Q) + 16 * id;

		memcpy(&a, d, 8);
		memcpy(out + n, vg_ptr(&f->g, le64toh(a)), len);
		n += len;
		if (*bufs == 0) {
			uint16_t nb;

			memcpy(hdr, out, 12);
			memcpy(&nb, out + 10, 2);
			want = le16toh(nb);
		}
		(*bufs)++;
	}
	CHECK_EQ(*bufs, want);
	return n;
}

static struct voff_pkt *pkt_of(struct fixture *f, const uint8_t *frame,
			       size_t len)
{
	struct voff_pkt *p;

	CHECK_OK(voff_pkt_alloc(f->pool, &p));
	CHECK_OK(voff_pkt_set_data(p, frame, (uint32_t)len));
	return p;
}

/* voff to a guest: a super-packet whole across mergeable buffers. */
static void t_to_guest(void)
{
	static uint8_t frame[70000], got[80000];
	struct voff_batch b;
	struct fixture f;
	uint8_t h[12];
	unsigned int bufs;
	size_t len, n;
	struct voff_pkt *p;

	open_port(&f, ALL_OFF);
	guest(&f, RINGS | GUEST_ALL | HOST_ALL);
	vg_rx_post(&f.g, 9, 4096, 1);	/* 8 for the super-packet, 1 */
	len = tso_tcp4_frame(frame, sizeof(frame), 30000, 4);
	p = pkt_of(&f, frame, len);
	tso_mark(p, 1448);
	voff_batch_init(&b);
	voff_batch_add(&b, p);
	voff_batch_add(&b, pkt_of(&f, frame, 54 + 10));
	CHECK_EQ(voff_port_tx(f.port, &b), 2);
	n = guest_rx(&f, got, h, &bufs);
	CHECK_EQ(bufs, (12 + len + 4095) / 4096);
	CHECK_EQ(n, 12 + len);
	CHECK(!memcmp(got + 12, frame, len));
	CHECK_EQ(h[0], 1);
	CHECK_EQ(h[1], VOFF_VNET_GSO_TCPV4);
	n = guest_rx(&f, got, h, &bufs);
	CHECK_EQ(bufs, 1);
	CHECK_EQ(n, 12 + 64);
	CHECK_EQ(vg_calls(&f.g, VHOST_RX_Q), 1);
	/* Out of buffers: the rest is dropped as eagain. */
	for (int i = 0; i < 4; i++)
		voff_batch_add(&b, pkt_of(&f, frame, 54 + 10));
	CHECK_EQ(voff_port_tx(f.port, &b), 0);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_TX, -EAGAIN), 4);
	close_port(&f);
}

/*
 * The transmit queue's call goes out with the receive queue's when frames
 * reach the guest before the port is polled twice more: one interrupt
 * for both under legacy interrupts (docs/vhost-user.md).
 */
static void t_tx_call_joins(void)
{
	static uint8_t frame[2000], got[4096];
	struct voff_batch b;
	struct fixture f;
	unsigned int bufs;
	uint8_t h[12];
	size_t len;
	uint32_t id, l;

	open_port(&f, ALL_OFF);
	guest(&f, RINGS | GUEST_ALL | HOST_ALL);
	vg_rx_post(&f.g, 4, 4096, 1);
	len = tso_tcp4_frame(frame, sizeof(frame), 1000, 3);
	hdr12(h, 0, 0, 0, 0, 0, 0);
	for (uint16_t round = 0; round < 3; round++) {
		/* The guest asks for a call on its next used entry of each. */
		vg_set_used_event(&f.g, VHOST_TX_Q, round);
		vg_set_used_event(&f.g, VHOST_RX_Q, round);
		vg_tx(&f.g, h, 12, frame, len, 0, false);
		vg_kick(&f.g, VHOST_TX_Q, true);
		pump(&f);
		CHECK_EQ(f.rx.n, 1);
		voff_batch_free(&f.rx);
		/* Used at once, the call held back. */
		CHECK(vg_used(&f.g, VHOST_TX_Q, &id, &l));
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
		if (round == 1)
			pump(&f);	/* one poll more: still held */
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
		/* A frame to the guest: both rings called together. */
		voff_batch_init(&b);
		voff_batch_add(&b, pkt_of(&f, frame, len));
		CHECK_EQ(voff_port_tx(f.port, &b), 1);
		CHECK_EQ(vg_calls(&f.g, VHOST_RX_Q), 1);
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 1);
		CHECK_EQ(guest_rx(&f, got, h, &bufs), 12 + len);
		CHECK(!memcmp(got + 12, frame, len));
		/* Nothing left to call: the port goes quiet. */
		pump(&f);
		pump(&f);
		pump(&f);
		CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
		CHECK(!readable(voff_port_fd(f.port)));
	}
	close_port(&f);
}

/* A guest without GUEST_CSUM: checksums completed in the copy. */
static void t_to_guest_csum(void)
{
	static uint8_t frame[2000], got[4096];
	struct voff_port_info in;
	struct voff_parsed ps;
	struct voff_batch b;
	struct fixture f;
	uint8_t h[12];
	unsigned int bufs;
	size_t len, n;
	struct voff_pkt *p, ext;

	open_port(&f, ALL_OFF);
	guest(&f, RINGS | F(VIRTIO_NET_F_MRG_RXBUF));
	voff_port_info(f.port, &in);
	CHECK_EQ(in.tx_off, VOFF_TUN_F_CSUM);
	/* Small buffers, so the frame and its sum cross three of them. */
	vg_rx_post(&f.g, 8, 512, 1);
	len = tso_tcp4_frame(frame, sizeof(frame), 1000, 5);
	p = pkt_of(&f, frame, len);
	/* A partial checksum: the pseudo-header sum in the field. */
	CHECK_OK(voff_parse(voff_pkt_data(p), p->len, VOFF_PARSE_ETH, &ps));
	p->csum = VOFF_CSUM_PARTIAL;
	p->csum_start = 34;
	p->csum_offset = 16;
	{
		uint8_t *tcp = voff_pkt_data(p) + 34;
		uint16_t pseudo = (uint16_t)~voff_csum_fold(voff_csum_pseudo_v4(
			voff_pkt_data(p) + 26, voff_pkt_data(p) + 30, 6,
			(uint32_t)(len - 34)));

		memcpy(tcp + 16, &pseudo, 2);
	}
	voff_batch_init(&b);
	voff_batch_add(&b, p);
	CHECK_EQ(voff_port_tx(f.port, &b), 1);
	n = guest_rx(&f, got, h, &bufs);
	CHECK_EQ(bufs, 3);
	CHECK_EQ(n, 12 + len);
	CHECK_EQ(h[0], 0);	/* no NEEDS_CSUM, no DATA_VALID */
	/* The TCP checksum in the guest's copy verifies. */
	CHECK_OK(voff_pkt_init_ext(&ext, got + 12, (uint32_t)len, 0,
				   (uint32_t)len));
	CHECK_OK(voff_parse(got + 12, len, VOFF_PARSE_ETH, &ps));
	CHECK_EQ(voff_csum_fold(voff_csum_add(
			 voff_csum_pseudo_v4(got + 12 + 26, got + 12 + 30, 6,
					     (uint32_t)(len - 34)),
			 voff_csum(got + 12 + 34, len - 34, 0))),
		 0);
	CHECK(!memcmp(got + 12, frame, 34 + 16));
	CHECK(!memcmp(got + 12 + 34 + 18, frame + 34 + 18, len - 34 - 18));
	close_port(&f);
}

/* Disconnect, reconnect, a second guest and a reboot. */
static void t_reconnect(void)
{
	struct voff_port_vhost_stats st;
	struct fixture f;
	int fds0 = vg_count_fds(), extra;

	open_port(&f, ALL_OFF);
	for (int round = 0; round < 3; round++) {
		guest(&f, RINGS | GUEST_ALL | HOST_ALL);
		/* A second front end is refused while one is there. */
		extra = connect_to(f.path);
		pump(&f);
		CHECK_OK(voff_port_vhost_stats(f.port, &st));
		CHECK_EQ(st.refused_busy, (uint64_t)round + 1);
		close(extra);
		/* A reboot: rings stopped and started again. */
		{
			uint32_t base[2];

			CHECK_OK(vg_stop(&f.g, base));
			pump(&f);
			CHECK_OK(voff_port_vhost_stats(f.port, &st));
			CHECK(!st.running);
			CHECK_OK(vg_start(&f.g, RINGS | GUEST_ALL | HOST_ALL));
			pump(&f);
			CHECK_OK(voff_port_vhost_stats(f.port, &st));
			CHECK(st.running);
		}
		vg_free(&f.g);
		pump(&f);
		CHECK_OK(voff_port_vhost_stats(f.port, &st));
		CHECK(!st.connected);
		CHECK_EQ(st.connects, (uint64_t)round + 1);
		CHECK_EQ(st.disconnects, (uint64_t)round + 1);
		CHECK_EQ(st.starts, 2 * ((uint64_t)round + 1));
		CHECK_EQ(st.stops, 2 * ((uint64_t)round + 1));
		CHECK_EQ(st.protocol_drops, 0);
	}
	/* A malformed message drops the connection; the port listens on. */
	guest(&f, RINGS);
	CHECK_OK(vg_send(&f.g, VHOST_USER_GET_CONFIG, VHOST_USER_VERSION,
			 NULL, 0, NULL, 0));
	pump(&f);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK_EQ(st.protocol_drops, 1);
	CHECK_EQ(st.refused_messages, 1);
	CHECK(!st.connected);
	vg_free(&f.g);
	guest(&f, RINGS);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK(st.running);
	/* Message counters are the new connection's. */
	CHECK_EQ(st.refused_messages, 0);
	CHECK_GT(st.messages, 0);
	close_port(&f);
	CHECK_EQ(vg_count_fds(), fds0);
}

static void sw_pump(void *ctx)
{
	voff_switch_poll(ctx, 0);
}

/* Through the switch: super-packets whole to a TSO guest, segmented else;
 * the guest's own super-packets whole to a port that takes them. */
static void t_switch(void)
{
	static uint8_t frame[70000], got[80000];
	struct voff_port_cfg mc = { .want = ALL_OFF, .tx_off = ALL_OFF };

	for (int tso = 1; tso >= 0; tso--) {
		uint64_t gf = RINGS | HOST_ALL | F(VIRTIO_NET_F_MRG_RXBUF);
		struct voff_switch *sw;
		struct voff_port *a, *b;
		struct voff_port_stats ps;
		struct voff_batch bt;
		struct fixture f;
		unsigned int bufs, frames = 0;
		size_t len;
		uint8_t h[12];
		struct voff_pkt *p;

		if (tso)
			gf |= F(VIRTIO_NET_F_GUEST_CSUM) |
			      F(VIRTIO_NET_F_GUEST_TSO4);
		open_port(&f, ALL_OFF);
		CHECK_OK(voff_switch_new(&sw, NULL));
		CHECK_OK(voff_port_mem_pair(&a, &b, &mc));
		CHECK_OK(voff_switch_add(sw, a, "mem", NULL));
		CHECK_OK(voff_switch_add(sw, f.port, "vm", NULL));
		CHECK_OK(vg_new(&f.g, connect_to(f.path), 256, sw_pump, sw));
		sw_pump(sw);
		CHECK_OK(vg_start(&f.g, gf));
		sw_pump(sw);
		vg_rx_post(&f.g, 100, 4096, 1);
		/* A TSO super-packet from the memory port, flooded. */
		len = tso_tcp4_frame(frame, sizeof(frame), 20 * 1448, 6);
		CHECK_OK(voff_pkt_alloc(f.pool, &p));
		CHECK_OK(voff_pkt_set_data(p, frame, (uint32_t)len));
		tso_mark(p, 1448);
		voff_batch_init(&bt);
		voff_batch_add(&bt, p);
		CHECK_EQ(voff_port_tx(b, &bt), 1);
		sw_pump(sw);
		while (vg_used_idx(&f.g, VHOST_RX_Q) !=
		       f.g.used_seen[VHOST_RX_Q]) {
			size_t n = guest_rx(&f, got, h, &bufs);

			CHECK_EQ(h[1], tso ? VOFF_VNET_GSO_TCPV4 : 0);
			CHECK_EQ(h[0], tso ? 1 : 0);
			CHECK_EQ(n, tso ? 12 + len : 12u + 54 + 1448);
			frames++;
		}
		CHECK_EQ(frames, tso ? 1 : 20);
		voff_port_stats(f.port, &ps);
		CHECK_EQ(ps.tx_gso, tso ? 1 : 0);
		CHECK_EQ(ps.tx_packets, frames);
		CHECK_EQ(ps.tx_dropped, 0);
		/* The guest's own super-packet reaches the memory port whole. */
		hdr12(h, 1, VOFF_VNET_GSO_TCPV4, 66, 1448, 34, 16);
		frame[0] = 0x02;	/* another destination MAC */
		vg_tx(&f.g, h, 12, frame, len, 0, false);
		vg_kick(&f.g, VHOST_TX_Q, true);
		sw_pump(sw);
		voff_batch_init(&bt);
		CHECK_EQ(voff_port_rx(b, f.pool, &bt), 1);
		CHECK_EQ(bt.pkts[0]->len, len);
		CHECK_EQ(bt.pkts[0]->gso_type, VOFF_GSO_TCPV4);
		voff_batch_free(&bt);
		vg_free(&f.g);
		voff_switch_free(sw);
		voff_port_close(b);
		CHECK_EQ(voff_pool_in_use(f.pool), 0);
		voff_pool_free(f.pool);
		rmdir(f.dir);
	}
}

/* One plain frame each way, byte for byte (the guest posts the buffers). */
static void both_ways(struct fixture *f, uint8_t seed)
{
	static uint8_t frame[2000], got[4096];
	struct voff_batch b;
	unsigned int bufs;
	uint8_t h[12];
	size_t len = tso_tcp4_frame(frame, sizeof(frame), 1000, seed);

	hdr12(h, 0, 0, 0, 0, 0, 0);
	vg_tx(&f->g, h, 12, frame, len, 0, false);
	vg_kick(&f->g, VHOST_TX_Q, false);
	pump(f);
	CHECK_EQ(f->rx.n, 1);
	CHECK_EQ(f->rx.pkts[0]->len, len);
	CHECK(!memcmp(voff_pkt_data(f->rx.pkts[0]), frame, len));
	voff_batch_free(&f->rx);
	voff_batch_init(&f->rx);
	vg_rx_post(&f->g, 1, 4096, 1);
	voff_batch_init(&b);
	voff_batch_add(&b, pkt_of(f, frame, len));
	CHECK_EQ(voff_port_tx(f->port, &b), 1);
	CHECK_EQ(guest_rx(f, got, h, &bufs), 12 + len);
	CHECK(!memcmp(got + 12, frame, len));
}

/*
 * QEMU 7.2's own order (seen on its socket with a Linux guest): enables
 * before the rings exist, call and error descriptors before the memory
 * table, no ack asked but for the memory table; a reboot stops both rings
 * with GET_VRING_BASE (where they stopped), enables them again while they
 * are stopped, and restarts them from 0 over the same connection.
 */
static void t_qemu72(void)
{
	struct voff_port_vhost_stats st;
	struct fixture f;
	uint32_t base[2];
	int fds0 = vg_count_fds();

	open_port(&f, ALL_OFF);
	CHECK_OK(vg_new(&f.g, connect_to(f.path), 256, pump, &f));
	pump(&f);
	CHECK_OK(vg_start_qemu72(&f.g, RINGS | GUEST_ALL | HOST_ALL));
	pump(&f);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK(st.running);
	CHECK_EQ(st.protocol_features,
		 VHOST_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) |
			 VHOST_BIT(VHOST_USER_PROTOCOL_F_MQ) |
			 VHOST_BIT(VHOST_USER_PROTOCOL_F_MTU) |
			 VHOST_BIT(VHOST_USER_PROTOCOL_F_RESET_DEVICE));
	for (uint8_t i = 0; i < 3; i++)
		both_ways(&f, i);
	/* The reboot: 3 chains taken on each ring, the base says so. */
	CHECK_OK(vg_stop(&f.g, base));
	CHECK_EQ(base[VHOST_RX_Q], 3);
	CHECK_EQ(base[VHOST_TX_Q], 3);
	pump(&f);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK(!st.running);
	CHECK_EQ(st.stops, 1);
	CHECK_OK(vg_restart_qemu72(&f.g));
	pump(&f);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK(st.running);
	CHECK_EQ(st.starts, 2);
	for (uint8_t i = 0; i < 3; i++)
		both_ways(&f, (uint8_t)(10 + i));
	CHECK_OK(vg_stop(&f.g, base));
	CHECK_EQ(base[VHOST_RX_Q], 3);
	CHECK_EQ(base[VHOST_TX_Q], 3);
	CHECK_OK(voff_port_vhost_stats(f.port, &st));
	CHECK_EQ(st.refused_messages, 0);
	CHECK_EQ(st.connects, 1);
	CHECK_EQ(st.disconnects, 0);
	close_port(&f);
	CHECK_EQ(vg_count_fds(), fds0);
}

/*
 * A guest that posts no receive buffers: what goes to it is dropped and
 * counted (eagain) at once, nothing waits in the port or the switch, the
 * switch goes on serving its other ports, and once the guest posts
 * buffers again frames reach it.
 */
static void t_no_rx_buffers(void)
{
	static uint8_t frame[2000], got[4096];
	struct voff_port_cfg mc = { .want = ALL_OFF, .tx_off = ALL_OFF };
	struct voff_switch *sw;
	struct voff_port *a, *b, *c, *d;
	struct voff_port_stats ps;
	struct voff_batch bt;
	struct fixture f;
	unsigned int bufs;
	uint8_t h[12];
	size_t len;

	open_port(&f, ALL_OFF);
	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_port_mem_pair(&a, &b, &mc));
	CHECK_OK(voff_port_mem_pair(&c, &d, &mc));
	CHECK_OK(voff_switch_add(sw, a, "mem", NULL));
	CHECK_OK(voff_switch_add(sw, c, "mem2", NULL));
	CHECK_OK(voff_switch_add(sw, f.port, "vm", NULL));
	CHECK_OK(vg_new(&f.g, connect_to(f.path), 256, sw_pump, sw));
	sw_pump(sw);
	CHECK_OK(vg_start(&f.g, RINGS | GUEST_ALL | HOST_ALL));
	sw_pump(sw);
	/* 2000 broadcast frames from mem, flooded to the guest and mem2. */
	len = tso_tcp4_frame(frame, sizeof(frame), 1000, 7);
	memset(frame, 0xff, 6);
	for (int round = 0; round < 2000 / VOFF_BATCH_MAX; round++) {
		voff_batch_init(&bt);
		for (unsigned int i = 0; i < VOFF_BATCH_MAX; i++)
			voff_batch_add(&bt, pkt_of(&f, frame, len));
		CHECK_EQ(voff_port_tx(b, &bt), (int)VOFF_BATCH_MAX);
		sw_pump(sw);
		/* mem2 gets every one, however full the guest is. */
		voff_batch_init(&bt);
		CHECK_EQ(voff_port_rx(d, f.pool, &bt), (int)VOFF_BATCH_MAX);
		voff_batch_free(&bt);
		/* Nothing is held for the guest. */
		CHECK_EQ(voff_pool_in_use(f.pool), 0);
	}
	voff_port_stats(f.port, &ps);
	CHECK_EQ(ps.tx_packets, 0);
	CHECK_EQ(ps.tx_dropped,
		 (uint64_t)(2000 / VOFF_BATCH_MAX) * VOFF_BATCH_MAX);
	CHECK_EQ(voff_port_drop_count(f.port, VOFF_PORT_TX, -EAGAIN),
		 ps.tx_dropped);
	/* Buffers again: the next frame gets there. */
	vg_rx_post(&f.g, 1, 4096, 1);
	voff_batch_init(&bt);
	voff_batch_add(&bt, pkt_of(&f, frame, len));
	CHECK_EQ(voff_port_tx(b, &bt), 1);
	sw_pump(sw);
	CHECK_EQ(guest_rx(&f, got, h, &bufs), 12 + len);
	CHECK(!memcmp(got + 12, frame, len));
	voff_port_stats(f.port, &ps);
	CHECK_EQ(ps.tx_packets, 1);
	voff_batch_init(&bt);
	CHECK_EQ(voff_port_rx(d, f.pool, &bt), 1);
	voff_batch_free(&bt);
	vg_free(&f.g);
	voff_switch_free(sw);
	voff_port_close(b);
	voff_port_close(d);
	CHECK_EQ(voff_pool_in_use(f.pool), 0);
	voff_pool_free(f.pool);
	rmdir(f.dir);
}

CHECK_MAIN(CHECK_TEST(t_open), CHECK_TEST(t_negotiate),
	   CHECK_TEST(t_from_guest), CHECK_TEST(t_tx_call_joins),
	   CHECK_TEST(t_tx_arm_late), CHECK_TEST(t_tx_broken_quiet),
	   CHECK_TEST(t_from_guest_bad),
	   CHECK_TEST(t_to_guest), CHECK_TEST(t_to_guest_csum),
	   CHECK_TEST(t_reconnect), CHECK_TEST(t_switch),
	   CHECK_TEST(t_qemu72), CHECK_TEST(t_no_rx_buffers))
