/* SPDX-License-Identifier: MIT */
/*
 * test_port_vxlan.c - the VXLAN port (vxlan.h) over sockets on 127.0.0.1
 * (no root needed): the exact bytes of an encapsulated frame, a
 * super-packet as one UDP_SEGMENT train of exactly GSO's segments, head-end
 * replication to N remotes, learning and unicast to the learned VTEP, the
 * decapsulation of a crafted train, every drop reason, a train longer than
 * the caller's batch kept readable, the run-time remote and fdb calls, the
 * MTU from the route, the switch's fdb showing each MAC's VTEP, and the
 * port spec.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/gso.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/switch.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "check.h"
#include "udp_lo.h"
#include "frames.h"
#include "port_int.h"

#define VNI 42

static uint16_t base_port;

static uint16_t port_no(int i)
{
	if (!base_port)
		base_port = (uint16_t)(20000 + (getpid() % 2000) * 8);
	return (uint16_t)(base_port + i);
}

/*
 * A VXLAN port on 127.0.0.1:port_no(0) with remotes port_no(1 .. n);
 * @single: one datagram per system call (udp_offload=off)
 */
static struct voff_port *vx_open_opt(unsigned int n, bool single)
{
	struct voff_vxlan_cfg c = { .vni = VNI, .udp_offload_off = single };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_VXLAN, .vxlan = &c };
	struct voff_port *port;

	c.local = udp_lo(port_no(0));
	for (unsigned int i = 0; i < n; i++)
		c.remote[c.n_remote++] = udp_lo(port_no((int)i + 1));
	CHECK_OK(voff_port_open(&port, &pc));
	return port;
}

static struct voff_port *vx_open(unsigned int n)
{
	return vx_open_opt(n, false);
}

/* One datagram within 1 s, or -1. */
static int recv_one(int fd, uint8_t *buf, size_t cap)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 1000) != 1)
		return -1;
	return (int)recv(fd, buf, cap, 0);
}

/* Nothing more within 100 ms. */
static bool quiet(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 100) == 0;
}

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };

/* An ARP-sized broadcast frame from mac_a into @buf; Return: its length. */
static size_t arp_frame(uint8_t *buf, size_t cap)
{
	struct tf b;

	tf_init(&b, buf, cap);
	tf_eth_addr(&b, bcast, mac_a);
	tf_payload(&b, 46, 7);
	return tf_finish(&b);
}

/* A TCP/IPv4 frame mac_a -> @dst with @pay payload bytes. */
static size_t tcp_frame(uint8_t *buf, size_t cap, const uint8_t *dst,
			size_t pay)
{
	struct tf b;

	tf_init(&b, buf, cap);
	tf_eth_addr(&b, dst, mac_a);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	tf_tcp(&b, &(struct tf_l4){ .seq = 1000, .flags = TF_ACK });
	tf_payload(&b, pay, 3);
	return tf_finish(&b);
}

static void send_frame(struct voff_port *port, struct voff_pool *pool,
		       const uint8_t *frame, size_t len)
{
	struct voff_batch b;
	struct voff_pkt *pkt;

	voff_batch_init(&b);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)len));
	CHECK_OK(voff_batch_add(&b, pkt));
	CHECK_EQ(voff_port_tx(port, &b), 1);
}

static const uint8_t hdr42[8] = { 0x08, 0, 0, 0, 0, 0, 42, 0 };

/* The exact bytes: the 8-byte header with the I flag, then the frame. */
static void t_encap(void)
{
	static uint8_t frame[128], got[256];
	struct voff_port *port = vx_open(1);
	struct voff_pool *pool;
	struct voff_vxlan_stats st;
	struct voff_port_info info;
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	int fd = udp_lo_sock(port_no(1));
	size_t len = arp_frame(frame, sizeof(frame));

	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	voff_port_info(port, &info);
	CHECK_STR_EQ(info.name, "vxlan42");
	CHECK_STR_EQ(voff_port_kind_name(info.kind), "vxlan");
	/*
	 * The route's MTU (lo's 65536, but an IPv4 route caps it at 65535)
	 * minus Ethernet, IPv4, UDP and VXLAN.
	 */
	CHECK_EQ(info.limits.mtu, 65535 - 50);
	send_frame(port, pool, frame, len);
	CHECK_EQ(recvfrom(fd, got, sizeof(got), 0, (struct sockaddr *)&from,
			  &fl),
		 (ssize_t)(len + 8));
	CHECK_MEM_EQ(got, hdr42, 8);
	CHECK_MEM_EQ(got + 8, frame, len);
	CHECK_EQ(ntohs(from.sin_port), port_no(0));
	CHECK_OK(voff_port_vxlan_stats(port, &st, NULL));
	CHECK_EQ(st.tx_flooded, 1);
	CHECK_EQ(st.tx_datagrams, 1);
	close(fd);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * A TCP super-packet leaves as exactly the segments voff_gso_segment()
 * makes, each behind the header, in one train of one sendmmsg(); with
 * @single (udp_offload=off), as 11 messages of one datagram each, one
 * system call each.
 */
static void super_train(bool single)
{
	static uint8_t frame[20000], got[4096];
	struct voff_port *port = vx_open_opt(1, single);
	struct voff_pool *pool;
	struct voff_pkt *pkt, *seg[64];
	struct voff_batch b;
	struct voff_udp_stats us;
	int fd = udp_lo_sock(port_no(1)), n;
	size_t len = tcp_frame(frame, sizeof(frame), mac_b, 10 * 1000 + 500);

	CHECK_OK(voff_pool_new(&pool, 80, 20000));
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)len));
	CHECK_OK(voff_pkt_parse(pkt, VOFF_PARSE_ETH, NULL));
	pkt->gso_type = VOFF_GSO_TCPV4;
	pkt->gso_size = 1000;
	n = voff_gso_segment(pkt, NULL, pool, seg, 64);
	CHECK_EQ(n, 11);
	voff_batch_init(&b);
	CHECK_OK(voff_batch_add(&b, pkt));
	CHECK_EQ(voff_port_tx(port, &b), 1);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(recv_one(fd, got, sizeof(got)), (int)seg[i]->len + 8);
		CHECK_MEM_EQ(got, hdr42, 8);
		CHECK_MEM_EQ(got + 8, voff_pkt_data(seg[i]), seg[i]->len);
	}
	CHECK(quiet(fd));
	voff_pkt_free_bulk(seg, (unsigned int)n);
	CHECK_OK(voff_port_vxlan_stats(port, NULL, &us));
	CHECK_EQ(us.tx_calls, single ? 11 : 1);
	CHECK_EQ(us.tx_msgs, single ? 11 : 1);
	CHECK_EQ(us.tx_trains, single ? 0 : 1);
	CHECK_EQ(us.tx_datagrams, 11);
	CHECK_EQ(us.fallback_gso_probe, 0);
	close(fd);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_super_train(void)
{
	super_train(false);
}

static void t_super_single(void)
{
	super_train(true);
}

/* Receive up to @want frames, waiting at most 10 s (a loaded run). */
static unsigned int rx_frames(struct voff_port *port, struct voff_pool *pool,
			      struct voff_batch *b, unsigned int want)
{
	for (int tries = 0; tries < 1000 && b->n < want; tries++) {
		int n = voff_port_rx(port, pool, b);

		CHECK_GE(n, 0);
		if (b->n < want)
			usleep(10000);
	}
	return b->n;
}

/*
 * Broadcast and unknown unicast go to every remote; a MAC learned from
 * one remote is sent to that one only.
 */
static void t_replicate_learn(void)
{
	static uint8_t frame[256], got[512], dg[256];
	struct voff_port *port = vx_open(3);
	struct voff_pool *pool;
	struct voff_vxlan_stats st;
	struct voff_batch b;
	union voff_udp_addr to = udp_lo(port_no(0)), vtep;
	bool is_static = true;
	int fd[3];
	size_t len;

	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	for (int i = 0; i < 3; i++)
		fd[i] = udp_lo_sock(port_no(i + 1));
	len = arp_frame(frame, sizeof(frame));
	send_frame(port, pool, frame, len);
	len = tcp_frame(frame, sizeof(frame), mac_b, 100);
	send_frame(port, pool, frame, len);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(recv_one(fd[i], got, sizeof(got)), 8 + 60);
		CHECK_EQ(recv_one(fd[i], got, sizeof(got)), (int)len + 8);
		CHECK_MEM_EQ(got + 8, frame, len);
		CHECK(quiet(fd[i]));
	}
	/* mac_b speaks from the second remote: learned there. */
	memcpy(dg, hdr42, 8);
	len = tcp_frame(dg + 8, sizeof(dg) - 8, mac_a, 20);
	memcpy(dg + 8 + 6, mac_b, 6);
	CHECK_EQ(sendto(fd[1], dg, len + 8, 0, &to.sa, sizeof(to.in4)),
		 (ssize_t)(len + 8));
	voff_batch_init(&b);
	CHECK_EQ(rx_frames(port, pool, &b, 1), 1);
	CHECK_EQ(b.pkts[0]->len, len);
	CHECK_MEM_EQ(voff_pkt_data(b.pkts[0]), dg + 8, len);
	voff_batch_free(&b);
	CHECK_OK(voff_port_vxlan_fdb_lookup(port, mac_b, &vtep, &is_static));
	CHECK_EQ(ntohs(vtep.in4.sin_port), port_no(2));
	CHECK(!is_static);
	CHECK_EQ(voff_port_vxlan_fdb_lookup(port, mac_a, &vtep, NULL),
		 -ENOENT);
	/* Now unicast to mac_b reaches the second remote only. */
	len = tcp_frame(frame, sizeof(frame), mac_b, 200);
	send_frame(port, pool, frame, len);
	CHECK_EQ(recv_one(fd[1], got, sizeof(got)), (int)len + 8);
	CHECK_MEM_EQ(got + 8, frame, len);
	CHECK(quiet(fd[0]));
	CHECK(quiet(fd[2]));
	CHECK_OK(voff_port_vxlan_stats(port, &st, NULL));
	CHECK_EQ(st.tx_flooded, 2);
	CHECK_EQ(st.tx_unicast, 1);
	CHECK_EQ(st.tx_datagrams, 3 + 3 + 1);
	CHECK_EQ(st.learned, 1);
	CHECK_EQ(st.rx_datagrams, 1);
	/* Removing the remote forgets what was behind it. */
	vtep = udp_lo(port_no(2));
	CHECK_OK(voff_port_vxlan_remote_del(port, &vtep));
	CHECK_EQ(voff_port_vxlan_fdb_lookup(port, mac_b, &vtep, NULL),
		 -ENOENT);
	for (int i = 0; i < 3; i++)
		close(fd[i]);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * Multicast frames (IPv4 01:00:5e:..., IPv6 33:33:...) go to every remote,
 * as broadcasts do: head-end replication knows no group members.
 */
static void t_replicate_multicast(void)
{
	static const uint8_t groups[2][6] = {
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb },
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
	};
	static uint8_t frame[256], got[512];
	struct voff_port *port = vx_open(3);
	struct voff_pool *pool;
	struct voff_vxlan_stats st;
	int fd[3];
	size_t len;

	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	for (int i = 0; i < 3; i++)
		fd[i] = udp_lo_sock(port_no(i + 1));
	for (int g = 0; g < 2; g++) {
		len = tcp_frame(frame, sizeof(frame), mac_b, 50 + g);
		memcpy(frame, groups[g], 6);
		send_frame(port, pool, frame, len);
		for (int i = 0; i < 3; i++) {
			CHECK_EQ(recv_one(fd[i], got, sizeof(got)), (int)len + 8);
			CHECK_MEM_EQ(got, hdr42, 8);
			CHECK_MEM_EQ(got + 8, frame, len);
			CHECK(quiet(fd[i]));
		}
	}
	CHECK_OK(voff_port_vxlan_stats(port, &st, NULL));
	CHECK_EQ(st.tx_flooded, 2);
	CHECK_EQ(st.tx_unicast, 0);
	CHECK_EQ(st.tx_datagrams, 6);
	for (int i = 0; i < 3; i++)
		close(fd[i]);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * Decapsulation: a train of 4 datagrams sent with UDP_SEGMENT gives the 4
 * inner frames byte for byte, those whose TCP checksum is right marked
 * verified and the one whose checksum is wrong not; each malformed datagram is dropped under its
 * reason, reserved flag bits or fields (each place) as the kernel's vxlan
 * drops them.
 */
static void t_decap_drops(void)
{
	static uint8_t train[4 * 1008], dg[256];
	struct voff_udp_cfg uc = { 0 };
	struct voff_port *port = vx_open(1);
	struct voff_pool *pool;
	struct voff_udp *u;
	struct voff_vxlan_stats st;
	struct voff_batch b;
	union voff_udp_addr to = udp_lo(port_no(0));
	struct iovec v = { train, sizeof(train) };
	struct {
		size_t len;
		uint8_t flags, vni_lo, rsv, at;	/* rsv: byte at (1..3, 7) */
		int err;
	} bad[] = {
		{ 4, 0x08, 42, 0, 3, VOFF_E_TRUNC_VXLAN },
		{ 8 + 60, 0x00, 42, 0, 3, VOFF_E_VXLAN_FLAGS },
		{ 8 + 60, 0x08, 43, 0, 3, VOFF_E_VXLAN_VNI },
		{ 8 + 13, 0x08, 42, 0, 3, VOFF_E_VXLAN_RUNT },
		{ 8 + 60, 0x0c, 42, 0, 3, VOFF_E_VXLAN_RESERVED },
		{ 8 + 60, 0x88, 42, 0, 3, VOFF_E_VXLAN_RESERVED },
		{ 8 + 60, 0x08, 42, 0x01, 1, VOFF_E_VXLAN_RESERVED },
		{ 8 + 60, 0x08, 42, 0x80, 2, VOFF_E_VXLAN_RESERVED },
		{ 8 + 60, 0x08, 42, 0x5a, 3, VOFF_E_VXLAN_RESERVED },
		{ 8 + 60, 0x08, 42, 0x01, 7, VOFF_E_VXLAN_RESERVED },
	};
	const size_t nbad = sizeof(bad) / sizeof(bad[0]);

	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	uc.local = udp_lo(port_no(1));
	CHECK_OK(voff_udp_open(&u, &uc));
	for (int i = 0; i < 4; i++) {
		uint8_t *d = train + i * 1008;
		struct tf f;

		memcpy(d, hdr42, 8);
		/* Payloads told apart; the last one's checksum wrong. */
		tf_init(&f, d + 8, 1000);
		tf_eth_addr(&f, mac_b, mac_a);
		tf_ipv4(&f, &(struct tf_ip){ .df = true });
		tf_tcp(&f, &(struct tf_l4){ .seq = 1000, .flags = TF_ACK,
					    .bad_csum = i == 3 });
		tf_payload(&f, 1000 - 54, (uint8_t)i);
		CHECK_EQ(tf_finish(&f), 1000);
	}
	CHECK_EQ(voff_udp_send(u, &v, 1, 1008, &to), 4);
	voff_batch_init(&b);
	CHECK_EQ(rx_frames(port, pool, &b, 4), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(b.pkts[i]->len, 1000);
		/* Verified in the copy; a wrong one left for the stack. */
		CHECK_EQ(b.pkts[i]->csum,
			 i == 3 ? VOFF_CSUM_NONE : VOFF_CSUM_VALID);
		CHECK_MEM_EQ(voff_pkt_data(b.pkts[i]), train + i * 1008 + 8,
			     1000);
	}
	voff_batch_free(&b);
	for (size_t i = 0; i < nbad; i++) {
		memset(dg, 0, sizeof(dg));
		dg[0] = bad[i].flags;
		dg[bad[i].at] = bad[i].rsv;
		dg[6] = bad[i].vni_lo;
		v.iov_base = dg;
		v.iov_len = bad[i].len;
		CHECK_EQ(voff_udp_send(u, &v, 1, 0, &to), 1);
	}
	voff_batch_init(&b);
	for (int tries = 0; tries < 100; tries++) {
		CHECK_GE(voff_port_rx(port, pool, &b), 0);
		CHECK_OK(voff_port_vxlan_stats(port, &st, NULL));
		if (st.rx_datagrams == 4 + nbad)
			break;
		usleep(10000);
	}
	CHECK_EQ(st.rx_datagrams, 4 + nbad);
	CHECK_EQ(b.n, 0);
	voff_batch_free(&b);
	for (size_t i = 0; i < 4; i++)
		CHECK_EQ(voff_port_drop_count(port, VOFF_PORT_RX, bad[i].err),
			 1);
	CHECK_EQ(voff_port_drop_count(port, VOFF_PORT_RX,
				      VOFF_E_VXLAN_RESERVED),
		 nbad - 4);
	voff_udp_close(u);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* Datagrams of peer_train(): the VXLAN header and a 100-byte frame. */
#define TRAIN_FRAME 100
#define TRAIN_DGRAM (8 + TRAIN_FRAME)

/*
 * A peer on port_no(1) sends the port one train of @n datagrams, each a
 * TCP frame numbered by its last byte, kept at @train.  Return: the peer.
 */
static struct voff_udp *peer_train(uint8_t *train, int n)
{
	struct voff_udp_cfg uc = { 0 };
	union voff_udp_addr to = udp_lo(port_no(0));
	struct iovec v = { train, (size_t)n * TRAIN_DGRAM };
	struct voff_udp *u;

	uc.local = udp_lo(port_no(1));
	CHECK_OK(voff_udp_open(&u, &uc));
	for (int i = 0; i < n; i++) {
		uint8_t *d = train + i * TRAIN_DGRAM;

		memcpy(d, hdr42, 8);
		CHECK_EQ(tcp_frame(d + 8, TRAIN_FRAME, mac_b, 46), TRAIN_FRAME);
		d[TRAIN_DGRAM - 1] = (uint8_t)i;
	}
	CHECK_EQ(voff_udp_send(u, &v, 1, TRAIN_DGRAM, &to), n);
	return u;
}

/*
 * A train longer than the batch's room: the rest waits in the port, whose
 * descriptor stays readable until it is taken.
 */
static void t_pending(void)
{
	static uint8_t train[5 * TRAIN_DGRAM];
	struct voff_port *port = vx_open(1);
	struct voff_pool *pool;
	struct voff_udp *u;
	struct voff_batch b;
	struct pollfd p = { .fd = voff_port_fd(port), .events = POLLIN };
	unsigned int total = 0;

	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	u = peer_train(train, 5);
	CHECK_EQ(poll(&p, 1, 1000), 1);
	for (int round = 0; round < 3; round++) {
		voff_batch_init(&b);
		b.n = VOFF_BATCH_MAX - 2;	/* room for two */
		CHECK_EQ(poll(&p, 1, 1000), 1);
		total += (unsigned int)voff_port_rx(port, pool, &b);
		for (unsigned int i = VOFF_BATCH_MAX - 2; i < b.n; i++)
			voff_pkt_free(b.pkts[i]);
	}
	CHECK_EQ(total, 5);
	CHECK_EQ(poll(&p, 1, 50), 0);
	voff_udp_close(u);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * A train of 12 datagrams into ports whose pools are small (8 packets:
 * a share of 1; 32: 2; 1024: the whole batch), read one, then three,
 * then all frames at a time: the port never holds more than its share of
 * the pool between calls, each call resumes where the last stopped, and
 * every frame arrives once, in order, byte for byte.
 */
static void pool_share(unsigned int pool_size, unsigned int share)
{
	enum { N = 12 };
	static uint8_t train[N * TRAIN_DGRAM];
	static const unsigned int room[] = { 1, 3, VOFF_BATCH_MAX };
	struct voff_port *port = vx_open(1);
	struct voff_pool *pool;
	struct voff_udp *u;
	struct voff_batch b;
	struct pollfd p = { .fd = voff_port_fd(port), .events = POLLIN };
	unsigned int got = 0;

	CHECK_OK(voff_pool_new(&pool, pool_size, 2048));
	u = peer_train(train, N);
	for (int call = 0; got < N && call < N; call++) {
		unsigned int r = room[call < 2 ? call : 2], n;

		voff_batch_init(&b);
		b.n = VOFF_BATCH_MAX - r;
		CHECK_EQ(poll(&p, 1, 1000), 1);
		CHECK_GE(voff_port_rx(port, pool, &b), 1);
		n = b.n - (VOFF_BATCH_MAX - r);
		/* What the port holds besides the frames it handed over. */
		CHECK_LE(voff_pool_in_use(pool) - n, share);
		/* Room for 1 or 3: filled; for a batch, the pool may run out. */
		if (call < 2)
			CHECK_EQ(n, r);
		for (unsigned int i = 0; i < n; i++) {
			struct voff_pkt *pkt = b.pkts[VOFF_BATCH_MAX - r + i];

			CHECK_EQ(pkt->len, TRAIN_FRAME);
			CHECK_MEM_EQ(voff_pkt_data(pkt),
				     train + (got + i) * TRAIN_DGRAM + 8,
				     TRAIN_FRAME);
			voff_pkt_free(pkt);
		}
		got += n;
	}
	CHECK_EQ(got, N);
	CHECK_EQ(poll(&p, 1, 50), 0);
	voff_udp_close(u);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_pool_share(void)
{
	pool_share(8, 1);
	pool_share(32, 2);
	pool_share(1024, VOFF_BATCH_MAX);
}

/* Remotes and static entries at run time, and their errors. */
static void t_runtime(void)
{
	struct voff_port *port = vx_open(1);
	union voff_udp_addr a = udp_lo(port_no(5)), got[4], v6;
	struct voff_port_info info;
	bool is_static = false;

	CHECK_OK(voff_udp_addr_parse(&v6, "[::1]:4789", 0));
	CHECK_OK(voff_port_vxlan_remote_add(port, &a));
	CHECK_EQ(voff_port_vxlan_remote_add(port, &a), -EEXIST);
	CHECK_EQ(voff_port_vxlan_remote_add(port, &v6), -EINVAL);
	CHECK_EQ(voff_port_vxlan_remotes(port, got, 4), 2);
	CHECK_EQ(ntohs(got[1].in4.sin_port), port_no(5));
	/* A port-less address is 4789. */
	CHECK_OK(voff_vxlan_addr_parse(&a, "127.0.0.2"));
	CHECK_EQ(ntohs(a.in4.sin_port), 4789);
	CHECK_OK(voff_port_vxlan_fdb_add(port, mac_b, &a));
	CHECK_EQ(voff_port_vxlan_fdb_add(port, bcast, &a), -EINVAL);
	CHECK_OK(voff_port_vxlan_fdb_lookup(port, mac_b, &got[0], &is_static));
	CHECK(is_static);
	CHECK_EQ(got[0].in4.sin_addr.s_addr, a.in4.sin_addr.s_addr);
	CHECK_OK(voff_port_vxlan_fdb_del(port, mac_b));
	CHECK_EQ(voff_port_vxlan_fdb_del(port, mac_b), -ENOENT);
	a = udp_lo(port_no(5));
	CHECK_OK(voff_port_vxlan_remote_del(port, &a));
	CHECK_EQ(voff_port_vxlan_remote_del(port, &a), -ENOENT);
	voff_port_info(port, &info);
	CHECK_EQ(info.limits.mtu, 65535 - 50);
	CHECK_EQ(voff_port_vxlan_stats(NULL, NULL, NULL), -EINVAL);
	voff_port_close(port);
}

/* A port without remotes drops what it would flood, counted. */
static void t_no_remote(void)
{
	static uint8_t frame[128];
	struct voff_port *port = vx_open(0);
	struct voff_pool *pool;
	struct voff_vxlan_stats st;
	struct voff_batch b;
	struct voff_pkt *pkt;

	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	voff_batch_init(&b);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)arp_frame(frame,
							    sizeof(frame))));
	CHECK_OK(voff_batch_add(&b, pkt));
	CHECK_EQ(voff_port_tx(port, &b), 0);
	CHECK_EQ(voff_port_drop_count(port, VOFF_PORT_TX,
				      VOFF_E_VXLAN_NO_REMOTE),
		 1);
	CHECK_OK(voff_port_vxlan_stats(port, &st, NULL));
	CHECK_EQ(st.tx_no_remote, 1);
	CHECK_EQ(st.tx_datagrams, 0);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* IPv6 underlay: 70 bytes of headers; no zero checksums. */
static void t_ipv6(void)
{
	struct voff_vxlan_cfg c = { .vni = 7 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_VXLAN, .vxlan = &c };
	struct voff_port *port;
	struct voff_port_info info;
	int err;

	CHECK_OK(voff_udp_addr_parse(&c.local, "::1", port_no(6)));
	CHECK_OK(voff_udp_addr_parse(&c.remote[0], "::1", port_no(7)));
	c.n_remote = 1;
	c.udp_csum_zero = true;
	CHECK_EQ(voff_port_open(&port, &pc), -EINVAL);
	c.udp_csum_zero = false;
	err = voff_port_open(&port, &pc);
	if (err == -EADDRNOTAVAIL || err == -EAFNOSUPPORT)
		CHECK_SKIP("no IPv6 on lo");
	CHECK_OK(err);
	voff_port_info(port, &info);
	CHECK_EQ(info.limits.mtu, 65536 - 70);
	voff_port_close(port);
}

/* The spec, and the switch's fdb with the VTEP of each MAC. */
static void t_spec_switch(void)
{
	struct voff_port_spec s;
	struct voff_switch *sw;
	struct voff_switch_fdb_entry e[4];
	union voff_udp_addr a;
	char text[256], spec[128];
	unsigned int id;

	CHECK_OK(voff_port_spec_parse(&s, "vxlan:100,local=192.0.2.1,"
					  "remote=192.0.2.2,remote="
					  "192.0.2.3:8472,udp_csum=off"));
	CHECK_EQ(s.cfg.kind, VOFF_PORT_VXLAN);
	CHECK(s.cfg.vxlan == &s.vxlan);
	CHECK_EQ(s.vxlan.vni, 100);
	CHECK_STR_EQ(s.cfg.name, "vxlan100");	/* the port's name */
	CHECK_EQ(s.vxlan.n_remote, 2);
	CHECK(s.vxlan.udp_csum_zero);
	CHECK_GT(voff_port_spec_format(&s, false, text, sizeof(text)), 0);
	CHECK_STR_EQ(text, "vxlan:100,local=192.0.2.1:4789,remote="
			   "192.0.2.2:4789,remote=192.0.2.3:8472,"
			   "udp_csum=off");
	CHECK(!s.vxlan.udp_offload_off);
	CHECK_OK(voff_port_spec_parse(&s, "vxlan:7,local=::1,"
					  "udp_offload=off"));
	CHECK(s.vxlan.udp_offload_off);
	CHECK_GT(voff_port_spec_format(&s, false, text, sizeof(text)), 0);
	CHECK_STR_EQ(text, "vxlan:7,local=[::1]:4789,udp_offload=off");
	CHECK_OK(voff_port_spec_parse(&s, "vxlan:7,local=::1,"
					  "udp_offload=on"));
	CHECK(!s.vxlan.udp_offload_off);
	CHECK_EQ(voff_port_spec_parse(&s, "vxlan:7,local=::1,"
					  "udp_offload=no"),
		 -EINVAL);
	CHECK_STR_EQ(s.err, "udp_offload: expected on or off");
	CHECK_EQ(voff_port_spec_parse(&s, "vxlan:16777216,local=::1"),
		 -EINVAL);
	CHECK_STR_EQ(s.err, "VNI '16777216': expected 0 to 16777215");
	CHECK_EQ(voff_port_spec_parse(&s, "vxlan:1"), -EINVAL);
	CHECK_STR_EQ(s.err, "local= or remote= needed");
	CHECK_EQ(voff_port_spec_parse(&s, "vxlan:1,local=::1,udp_csum=off"),
		 -EINVAL);
	CHECK_STR_EQ(s.err, "udp_csum: off is for IPv4 underlays only");
	CHECK_EQ(voff_port_spec_parse(&s, "vxlan:1,local=::1,"
					  "remote=192.0.2.1"),
		 -EINVAL);
	CHECK_STR_EQ(s.err, "remote: local and remotes mix IPv4 and IPv6");
	CHECK_EQ(voff_port_spec_parse(&s, "vxlan:1,remote=x"), -EINVAL);
	CHECK_STR_EQ(s.err, "remote: expected ADDR[:PORT], not 'x'");

	CHECK_OK(voff_switch_new(&sw, NULL));
	snprintf(spec, sizeof(spec), "vxlan:42,local=127.0.0.1:%u,"
		 "remote=127.0.0.1:%u", port_no(0), port_no(1));
	CHECK_OK(voff_switch_add_spec(sw, spec, &id));
	CHECK_EQ(voff_switch_find(sw, "vxlan42"), (int)id);
	CHECK_EQ(voff_switch_add_spec(sw, spec, NULL), -EEXIST);
	a = udp_lo(port_no(3));
	CHECK_OK(voff_switch_fdb_add(sw, mac_b, id, &a));
	CHECK_OK(voff_switch_fdb_add(sw, mac_a, id, NULL));
	CHECK_EQ(voff_switch_fdb_add(sw, bcast, id, NULL), -EINVAL);
	CHECK_EQ(voff_switch_fdb_add(sw, mac_a, id + 1, NULL), -ENOENT);
	CHECK_EQ(voff_switch_fdb(sw, e, 4), 2);
	for (int i = 0; i < 2; i++) {
		CHECK(e[i].is_static);
		CHECK_EQ(e[i].port, id);
		if (!memcmp(e[i].mac, mac_b, 6))
			CHECK_EQ(ntohs(e[i].remote.in4.sin_port), port_no(3));
		else
			CHECK_EQ(e[i].remote.sa.sa_family, AF_UNSPEC);
	}
	CHECK_OK(voff_switch_fdb_del(sw, mac_b));
	CHECK_EQ(voff_switch_fdb_del(sw, mac_b), -ENOENT);
	CHECK_EQ(voff_port_vxlan_fdb_lookup(voff_switch_port(sw, id), mac_b,
					    &a, NULL),
		 -ENOENT);
	voff_switch_free(sw);
}

/*
 * The naive twin of voff__vxlan_verify(): the same rules spelled out
 * field by field, the pseudo header laid out in a buffer and the whole
 * summed byte by byte.
 */
static bool verify_naive(const uint8_t *f, uint32_t len)
{
	uint8_t ps[40 + 65536];
	uint32_t l3 = 14, hl, l4_len, plen;
	uint8_t proto;
	bool v4;

	if (len < 54)
		return false;
	v4 = f[12] == 0x08 && f[13] == 0x00 && (f[14] >> 4) == 4;
	if (!v4 && !(f[12] == 0x86 && f[13] == 0xDD && (f[14] >> 4) == 6))
		return false;
	memset(ps, 0, 40);
	if (v4) {
		uint32_t tot = (uint32_t)f[l3 + 2] << 8 | f[l3 + 3];

		hl = (f[l3] & 15u) * 4;
		if (hl < 20 || tot < hl || l3 + tot > len)
			return false;
		if ((f[l3 + 6] & 0x3F) || f[l3 + 7])	/* MF, offset */
			return false;
		proto = f[l3 + 9];
		l4_len = tot - hl;
		memcpy(ps, f + l3 + 12, 8);
		ps[9] = proto;
		ps[10] = (uint8_t)(l4_len >> 8);
		ps[11] = (uint8_t)l4_len;
		plen = 12;
	} else {
		hl = 40;
		l4_len = (uint32_t)f[l3 + 4] << 8 | f[l3 + 5];
		if (l3 + 40 + l4_len > len)
			return false;
		proto = f[l3 + 6];
		memcpy(ps, f + l3 + 8, 32);
		ps[34] = (uint8_t)(l4_len >> 8);
		ps[35] = (uint8_t)l4_len;
		ps[39] = proto;
		plen = 40;
	}
	if (proto == 6) {
		if (l4_len < 20)
			return false;
	} else if (proto == 17) {
		const uint8_t *uh = f + l3 + hl;

		if (l4_len < 8 || (uint32_t)(uh[4] << 8 | uh[5]) != l4_len ||
		    (uh[6] == 0 && uh[7] == 0))
			return false;
	} else {
		return false;
	}
	memcpy(ps + plen, f + l3 + hl, l4_len);
	return voff_csum_fold(voff_csum_naive(ps, plen + l4_len, 0)) == 0;
}

/*
 * Decapsulation verifies the inner checksum in a read-only pass: against
 * its naive twin on random frames (IPv4 and IPv6, TCP and UDP, good and
 * bad checksums, options, fragments, extension headers, padding, cut
 * short, a random byte changed), the same answer, the frame untouched.
 */
static void t_verify(void)
{
	static uint8_t src[2048], keep[2048];
	unsigned int good = 0, bad = 0;

	for (int it = 0; it < 4000; it++) {
		struct tf b;
		struct tf_ip ip = { .df = check_chance(50) };
		struct tf_l4 l4 = { .seq = (uint32_t)check_rand(),
				    .flags = TF_ACK,
				    .bad_csum = check_chance(30) };
		bool v6 = check_chance(40), udp = check_chance(30);
		size_t len;
		bool got, want;

		if (!v6 && check_chance(10))
			ip.opt_len = (uint8_t)(4 * (1 + check_rnd(10)));
		if (!v6 && check_chance(10)) {
			ip.mf = check_chance(50);
			ip.frag_off = (uint16_t)(ip.mf ? 0 : 8 * check_rnd(50));
		}
		if (udp && check_chance(10))
			l4.no_csum = true;
		if (!udp && check_chance(20))
			l4.opt_len = (uint8_t)(4 * check_rnd(11));
		tf_init(&b, src, sizeof(src) - 64);
		tf_eth(&b);
		if (v6) {
			tf_ipv6(&b, &ip);
			if (check_chance(10))
				tf_ipv6_ext(&b, 0, 8);
		} else {
			tf_ipv4(&b, &ip);
		}
		if (udp)
			tf_udp(&b, &l4);
		else
			tf_tcp(&b, &l4);
		tf_payload(&b, check_rnd(1400), (uint8_t)it);
		len = tf_finish(&b);
		CHECK(len > 0);
		if (check_chance(10)) {		/* Ethernet padding */
			size_t pad = 1 + check_rnd(60);

			check_fill_random(src + len, pad);
			len += pad;
		}
		if (check_chance(10))		/* cut short */
			len -= check_rnd((unsigned int)len);
		if (len && check_chance(10))	/* any byte changed */
			src[check_rnd((unsigned int)len)] ^=
				(uint8_t)(1 + check_rnd(255));
		memcpy(keep, src, sizeof(src));
		got = voff__vxlan_verify(src, (uint32_t)len);
		want = verify_naive(src, (uint32_t)len);
		CHECK_EQ(got, want);
		CHECK_MEM_EQ(src, keep, sizeof(src));
		good += got;
		bad += !got && l4.bad_csum;
	}
	/* Both answers were given many times. */
	CHECK_GE(good, 1000);
	CHECK_GE(bad, 500);
}

CHECK_MAIN(CHECK_TEST(t_encap), CHECK_TEST(t_super_train),
	   CHECK_TEST(t_super_single),
	   CHECK_TEST(t_replicate_learn), CHECK_TEST(t_replicate_multicast),
	   CHECK_TEST(t_decap_drops),
	   CHECK_TEST(t_pending), CHECK_TEST(t_pool_share),
	   CHECK_TEST(t_runtime),
	   CHECK_TEST(t_no_remote), CHECK_TEST(t_ipv6),
	   CHECK_TEST(t_spec_switch), CHECK_TEST(t_verify))
