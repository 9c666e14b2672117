/* SPDX-License-Identifier: MIT */
/*
 * test_port_packet.c - the AF_PACKET port on a veth pair (root; skipped
 * otherwise), in namespaces private to each test:
 *
 *   ns A: 10.7.0.1  va <==== veth ====> vb  10.7.0.2 :ns B
 *                   ^                    ^
 *          port (plain, observer)   port (PACKET_VNET_HDR)
 *
 * A's TCP with TSO hands the veth 64 KiB super-frames: the port on vb gets
 * them whole.  A super-packet the port sends on vb (whose TSO and checksum
 * offload are off) is segmented by the kernel and arrives on va as correct
 * MTU-sized segments carrying every payload byte.  A forwarder over two
 * AF_PACKET ports passes a TCP transfer's super-frames whole.  As an
 * egress, a port takes its device's TSO_MANGLEID and gso limits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/feat.h>
#include <voff/netlink.h>
#include <voff/pkt.h>
#include <voff/port.h>

#include "check.h"
#include "frames.h"
#include "port_int.h"
#include "port_ns.h"
#include "tso.h"

static void veth_setup(void)
{
	ns_playground();
	sh("ip -n %s link add va type veth peer name vb netns %s", ns_a,
	   ns_b);
	sh("ip -n %s addr add 10.7.0.1/24 dev va && ip -n %s link set va up",
	   ns_a, ns_a);
	sh("ip -n %s addr add 10.7.0.2/24 dev vb && ip -n %s link set vb up",
	   ns_b, ns_b);
}

static unsigned int hdr_len;	/* 0: the default */
static unsigned int no_ring;	/* VOFF_PORT_F_NO_RING: recvmmsg() */

static struct voff_port *open_packet(const char *ns, const char *dev,
				     unsigned int flags)
{
	struct voff_port_cfg cfg = { .kind = VOFF_PORT_PACKET, .name = dev,
				     .netns = ns, .flags = flags | no_ring,
				     .vnet_hdr_len = hdr_len };
	struct voff_port_info in;
	struct voff_port *p;

	CHECK_OK(voff_port_open(&p, &cfg));
	/* The ring is there unless refused: a 12-byte header has none. */
	voff_port_info(p, &in);
	CHECK_EQ(in.mmap_ring, !no_ring && in.vnet_hdr_len != 12);
	return p;
}

static void observe_transfer(struct fwd *f, uint64_t n)
{
	CHECK_OK(voff_pool_new(&f->pool, 256, VOFF_PKT_SUPER_ROOM));
	tcp_transfer(f, ns_a, ns_b, "10.7.0.2", n);
	voff_port_close(f->p[0]);
	CHECK_EQ(voff_pool_in_use(f->pool), 0);
	voff_pool_free(f->pool);
}

static void t_super_frames_received_whole(void)
{
	struct voff_port_info in;
	struct fwd f = { 0 };

	veth_setup();
	CHECK_EQ(voff_netlink_feature(ns_a, "va", "tx-tcp-segmentation"), 1);
	f.p[0] = open_packet(ns_b, "vb", 0);
	voff_port_info(f.p[0], &in);
	CHECK(in.features & VOFF_F_TSO);	/* vb's own, read by ethtool */
	CHECK_EQ(in.vnet_hdr_len, 10);
	CHECK_GT(in.ifindex, 0);
	CHECK_EQ(in.limits.mtu, 1500);
	CHECK_GT(voff_port_fd(f.p[0]), 0);
	observe_transfer(&f, 32ull << 20);
	fprintf(stderr, "packet: %llu frames seen, %llu super, max %u B\n",
		(unsigned long long)f.frames[0], (unsigned long long)f.gso[0],
		f.max_len[0]);
	CHECK_GT(f.gso[0], 0);
	CHECK_GT(f.max_len[0], 1514);
}

static void t_super_frames_with_12_byte_header(void)
{
	struct voff_port_info in;
	struct fwd f = { 0 };

	veth_setup();
	hdr_len = 12;
	f.p[0] = open_packet(ns_b, "vb", 0);
	voff_port_info(f.p[0], &in);
	CHECK_EQ(in.vnet_hdr_len, 12);
	observe_transfer(&f, 8ull << 20);
	CHECK_GT(f.gso[0], 0);
	CHECK_GT(f.max_len[0], 1514);
}

static void t_no_super_frames_without_sender_tso(void)
{
	struct fwd f = { 0 };

	veth_setup();
	sh("ip netns exec %s ethtool -K va tso off gso off >/dev/null", ns_a);
	CHECK_EQ(voff_netlink_feature(ns_a, "va", "tx-tcp-segmentation"), 0);
	f.p[0] = open_packet(ns_b, "vb", 0);
	observe_transfer(&f, 4ull << 20);
	CHECK_EQ(f.gso[0], 0);
	CHECK_LE(f.max_len[0], 1514);
}

/* Payload bytes of one TCP/IPv4 frame from va, or -1 when not ours. */
static long check_segment(const struct voff_pkt *pkt, uint8_t *out,
			  size_t cap, size_t at)
{
	const uint8_t *d = voff_pkt_data(pkt);
	uint32_t ip_len, tcp_len, hl;
	uint32_t sum;

	if (pkt->len < 54 || d[12] != 0x08 || d[13] != 0x00 || d[23] != 6 ||
	    d[36] != 0 || d[37] != 2)
		return -1;
	CHECK(voff_csum_ipv4_hdr_ok(d + 14, 20));
	ip_len = (uint32_t)(d[16] << 8 | d[17]);
	CHECK_EQ(ip_len + 14, pkt->len);
	CHECK_LE(pkt->len, 1514);
	tcp_len = ip_len - 20;
	hl = (uint32_t)(d[46] >> 4) * 4;
	sum = voff_csum_pseudo_v4(d + 26, d + 30, 6, tcp_len);
	sum = voff_csum(d + 34, tcp_len, sum);
	CHECK_MSG(voff_csum_fold(sum) == 0, "bad TCP checksum at %zu", at);
	CHECK_LE(at + tcp_len - hl, cap);
	memcpy(out + at, d + 34 + hl, tcp_len - hl);
	return (long)(tcp_len - hl);
}

static void t_super_packet_sent_is_segmented(void)
{
	enum { PAYLOAD = 14600, MSS = 1460 };
	static uint8_t frame[PAYLOAD + 100], got[PAYLOAD + 2000];
	struct voff_port *pb, *pa;
	struct voff_pool *pool;
	struct voff_pkt *pkt;
	struct voff_batch b;
	size_t len, at = 0;
	unsigned int segs = 0;
	uint16_t seed;
	struct tf f;

	veth_setup();
	sh("ip netns exec %s ethtool -K vb tx off >/dev/null", ns_b);
	pb = open_packet(ns_b, "vb", 0);
	pa = open_packet(ns_a, "va", VOFF_PORT_F_NO_VNET);
	CHECK_OK(voff_pool_new(&pool, 128, VOFF_PKT_SUPER_ROOM));

	tf_init(&f, frame, sizeof(frame));
	tf_eth(&f);
	tf_ipv4(&f, &(struct tf_ip){ .df = true });
	tf_tcp(&f, &(struct tf_l4){ .seq = 1000, .flags = TF_ACK | TF_PSH });
	tf_payload(&f, PAYLOAD, 3);
	len = tf_finish(&f);
	CHECK_EQ(len, 54 + PAYLOAD);
	/* A partial checksum holds the pseudo-header sum, not complemented. */
	seed = (uint16_t)~voff_csum_fold(voff_csum_pseudo_v4(
		frame + 26, frame + 30, 6, (uint32_t)len - 34));
	memcpy(frame + 50, &seed, 2);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)len));
	tso_mark(pkt, MSS);
	voff_batch_init(&b);
	CHECK_OK(voff_batch_add(&b, pkt));
	CHECK_EQ(voff_port_tx(pb, &b), 1);

	for (int tries = 0; tries < 200 && at < PAYLOAD; tries++) {
		struct pollfd pfd = { .fd = voff_port_fd(pa),
				      .events = POLLIN };

		poll(&pfd, 1, 10);
		voff_batch_init(&b);
		CHECK_GE(voff_port_rx(pa, pool, &b), 0);
		for (unsigned int i = 0; i < b.n; i++) {
			long n = check_segment(b.pkts[i], got, sizeof(got), at);

			if (n < 0)
				continue;
			CHECK_LE(n, MSS);
			at += (size_t)n;
			segs++;
		}
		voff_batch_free(&b);
	}
	CHECK_EQ(at, PAYLOAD);
	CHECK_EQ(segs, PAYLOAD / MSS);
	CHECK_MEM_EQ(got, frame + 54, PAYLOAD);
	voff_port_close(pa);
	voff_port_close(pb);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * A forwarder over two AF_PACKET ports in the test's own namespace:
 *
 *   ns A: 10.6.0.1 va <=veth=> vb [voff] vc <=veth=> vd 10.6.0.2 :ns B
 *
 * A's super-frames arrive whole on vb, leave whole on vc, and B's TCP
 * takes them: the whole datapath with no segmentation on the way.
 */
static void t_forwarder_passes_super_frames(void)
{
	struct voff_port_stats st;
	struct timespec t0, t1;
	struct fwd f = { 0 };

	ns_playground();
	sh("ip link add vb type veth peer name va netns %s", ns_a);
	sh("ip link add vc type veth peer name vd netns %s", ns_b);
	sh("ip link set vb up && ip link set vc up");
	sh("ip -n %s addr add 10.6.0.1/24 dev va && ip -n %s link set va up",
	   ns_a, ns_a);
	sh("ip -n %s addr add 10.6.0.2/24 dev vd && ip -n %s link set vd up",
	   ns_b, ns_b);
	f.p[0] = open_packet(NULL, "vb", 0);
	f.p[1] = open_packet(NULL, "vc", 0);
	CHECK_OK(voff_pool_new(&f.pool, 256, VOFF_PKT_SUPER_ROOM));
	ping_through(&f, ns_a, "10.6.0.2");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tcp_transfer(&f, ns_a, ns_b, "10.6.0.2", 64ull << 20);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "packet forwarder: %.2f Gbit/s, %llu frames A->B, "
		"%llu super, max %u B\n",
		(double)(64ull << 23) /
			((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
			 (double)(t1.tv_nsec - t0.tv_nsec)),
		(unsigned long long)f.frames[0],
		(unsigned long long)f.gso[0], f.max_len[0]);
	CHECK_GT(f.gso[0], 0);
	CHECK_GT(f.max_len[0], 1514);
	voff_port_stats(f.p[1], &st);
	CHECK_EQ(st.tx_gso, f.gso[0]);
	CHECK_EQ(st.tx_dropped, 0);
	voff_port_close(f.p[0]);
	voff_port_close(f.p[1]);
	CHECK_EQ(voff_pool_in_use(f.pool), 0);
	voff_pool_free(f.pool);
}

/*
 * The receiving kernel moves an 802.1Q tag into metadata before packet
 * sockets see the frame; the port puts it back from PACKET_AUXDATA.
 */
static void t_vlan_tag_put_back(void)
{
	static uint8_t frame[256];
	struct voff_port *pa, *pb;
	struct voff_pool *pool;
	struct voff_pkt *pkt;
	struct voff_batch b;
	bool seen = false;
	size_t len;
	struct tf f;

	veth_setup();
	pa = open_packet(ns_a, "va", VOFF_PORT_F_NO_VNET);
	pb = open_packet(ns_b, "vb", 0);
	CHECK_OK(voff_pool_new(&pool, 128, VOFF_PKT_SUPER_ROOM));
	tf_init(&f, frame, sizeof(frame));
	tf_eth(&f);
	tf_vlan(&f, TF_TPID_8021Q, 0x2064);
	tf_ipv4(&f, &(struct tf_ip){ .df = true });
	tf_udp(&f, &(struct tf_l4){ .sport = 7, .dport = 9 });
	tf_payload(&f, 100, 5);
	len = tf_finish(&f);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)len));
	voff_batch_init(&b);
	CHECK_OK(voff_batch_add(&b, pkt));
	CHECK_EQ(voff_port_tx(pa, &b), 1);
	for (int tries = 0; tries < 100 && !seen; tries++) {
		struct pollfd pfd = { .fd = voff_port_fd(pb),
				      .events = POLLIN };

		poll(&pfd, 1, 10);
		voff_batch_init(&b);
		CHECK_GE(voff_port_rx(pb, pool, &b), 0);
		for (unsigned int i = 0; i < b.n; i++) {
			if (b.pkts[i]->len != len ||
			    memcmp(voff_pkt_data(b.pkts[i]) + 18, frame + 18,
				   len - 18))
				continue;
			CHECK_MEM_EQ(voff_pkt_data(b.pkts[i]), frame, len);
			seen = true;
		}
		voff_batch_free(&b);
	}
	CHECK(seen);
	voff_port_close(pa);
	voff_port_close(pb);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* The same over recvmmsg(), without the receive ring. */
static void t_forwarder_passes_super_frames_no_ring(void)
{
	no_ring = VOFF_PORT_F_NO_RING;
	t_forwarder_passes_super_frames();
}

static void t_vlan_tag_put_back_no_ring(void)
{
	no_ring = VOFF_PORT_F_NO_RING;
	t_vlan_tag_put_back();
}

/*
 * More frames than the receive ring has slots, sent before the port reads:
 * every frame the device received is accounted for, taken or dropped by
 * the port or dropped by the kernel (rx_kernel_dropped), and the ring's
 * frames come out in the order they were sent.  The same over recvmmsg(),
 * whose socket queue holds them all.
 */
static void t_burst_accounted(void)
{
	struct voff_link_stats ls0, ls;
	struct voff_port_stats st;
	struct voff_pool *pool;
	struct voff_port *pb;
	uint64_t udp = 0, next = 0;
	bool ordered = true;

	for (int pass = 0; pass < 2; pass++) {
		no_ring = pass ? VOFF_PORT_F_NO_RING : 0;
		if (!pass) {
			veth_setup();
			/* No IPv6 chatter: only the burst crosses. */
			sh("ip netns exec %s sysctl -qw "
			   "net.ipv6.conf.va.disable_ipv6=1", ns_a);
		}
		CHECK_OK(voff_netlink_get_stats(ns_b, "vb", &ls0));
		pb = open_packet(ns_b, "vb", 0);
		CHECK_OK(voff_pool_new(&pool, 256, VOFF_PKT_SUPER_ROOM));
		sh("ip -n %s neigh replace 10.7.0.9 lladdr 02:00:00:00:00:09 "
		   "dev va nud permanent", ns_a);
		sh("ip netns exec %s python3 -c \"import socket, struct; "
		   "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
		   "[s.sendto(struct.pack('!I', i), ('10.7.0.9', 9)) "
		   "for i in range(2000)]\"", ns_a);
		for (int idle = 0; idle < 3;) {
			struct voff_batch b;
			int n;

			voff_batch_init(&b);
			n = voff_port_rx(pb, pool, &b);
			CHECK_GE(n, 0);
			idle = n ? 0 : idle + 1;
			for (unsigned int i = 0; i < b.n; i++) {
				const uint8_t *d = voff_pkt_data(b.pkts[i]);
				uint32_t seq;

				if (b.pkts[i]->len < 46 || d[23] != 17 ||
				    d[37] != 9)
					continue;
				memcpy(&seq, d + 42, 4);
				ordered &= ntohl(seq) >= next;
				next = (uint64_t)ntohl(seq) + 1;
				udp++;
			}
			voff_batch_free(&b);
		}
		voff_port_stats(pb, &st);
		CHECK_OK(voff_netlink_get_stats(ns_b, "vb", &ls));
		/* Counted from just before the port opened. */
		CHECK_EQ(ls.rx_packets - ls0.rx_packets,
			 st.rx_packets + st.rx_dropped + st.rx_kernel_dropped);
		if (!pass)
			CHECK_GT(st.rx_kernel_dropped, 0); /* 512 slots */
		CHECK(ordered);
		CHECK_LE(udp, 2000);
		voff_port_close(pb);
		CHECK_EQ(voff_pool_in_use(pool), 0);
		voff_pool_free(pool);
		udp = next = 0;
	}
}

/* Sizes of the frames t_exact_bytes sends, Ethernet header included. */
static const unsigned int exact_sizes[] = {
	14, 60, 61, 100, 1514,	/* at MTU 1500 */
	1972,	/* the largest a 2048-byte ring slot holds after its headers */
	1973,	/* one more: queued to the socket whole (TP_STATUS_COPY) */
	4000, 9014,
};
#define EXACT_N (sizeof(exact_sizes) / sizeof(exact_sizes[0]))

/* Byte @j of frame @i of t_exact_bytes, after its Ethernet header. */
static uint8_t exact_byte(unsigned int i, unsigned int j)
{
	return (uint8_t)(i * 7 + j * 13 + (j >> 8));
}

/*
 * Frames sent by a kernel packet socket on va arrive at the port on vb
 * byte for byte, in order, without offload metadata: through the receive
 * ring's slots, through the socket queue for those too big for a slot
 * (TP_STATUS_COPY: vb's MTU is raised to 9000), and the same over
 * recvmmsg().
 */
static void t_exact_bytes(void)
{
	struct voff_port_stats st;
	struct voff_pool *pool;
	struct voff_port *pb;
	char sizes[128] = "";

	for (unsigned int i = 0; i < EXACT_N; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes),
			 "%s%u", i ? "," : "", exact_sizes[i]);
	veth_setup();
	sh("ip -n %s link set va mtu 9000 && ip -n %s link set vb mtu 9000",
	   ns_a, ns_b);
	for (int pass = 0; pass < 2; pass++) {
		unsigned int got = 0, idle = 0;

		no_ring = pass ? VOFF_PORT_F_NO_RING : 0;
		pb = open_packet(ns_b, "vb", 0);
		CHECK_OK(voff_pool_new(&pool, 64, VOFF_PKT_SUPER_ROOM));
		sh("ip netns exec %s python3 -c \"import socket\n"
		   "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
		   "s.bind(('va', 0))\n"
		   "for i, n in enumerate([%s]):\n"
		   "    b = bytes(((i * 7 + j * 13 + (j >> 8)) & 255) "
		   "for j in range(n - 14))\n"
		   "    s.send(bytes.fromhex('02000000000b02000000000a88b5') "
		   "+ b)\"", ns_a, sizes);
		while (idle < 100 && got < EXACT_N) {
			struct voff_batch b;

			voff_batch_init(&b);
			CHECK_GE(voff_port_rx(pb, pool, &b), 0);
			idle = b.n ? 0 : idle + 1;
			for (unsigned int k = 0; k < b.n; k++) {
				const struct voff_pkt *pkt = b.pkts[k];
				const uint8_t *d = voff_pkt_data(pkt);

				if (pkt->len < 14 || d[12] != 0x88 ||
				    d[13] != 0xb5)
					continue;	/* not ours */
				CHECK_LT(got, EXACT_N);
				CHECK_EQ(pkt->len, exact_sizes[got]);
				CHECK(!memcmp(d, "\x02\0\0\0\0\x0b\x02\0\0\0\0\x0a",
					      12));
				for (unsigned int j = 0; j + 14 < pkt->len; j++)
					if (d[14 + j] != exact_byte(got, j))
						CHECK_EQ(d[14 + j],
							 exact_byte(got, j));
				CHECK_EQ(pkt->gso_type, 0);
				CHECK(pkt->csum != VOFF_CSUM_PARTIAL);
				got++;
			}
			voff_batch_free(&b);
			if (!b.n)
				nanosleep(&(struct timespec){ 0, 1000000 },
					  NULL);
		}
		CHECK_EQ(got, EXACT_N);
		voff_port_stats(pb, &st);
		CHECK_EQ(st.rx_dropped, 0);
		CHECK_EQ(st.rx_kernel_dropped, 0);
		voff_port_close(pb);
		CHECK_EQ(voff_pool_in_use(pool), 0);
		voff_pool_free(pool);
	}
}

/* Send frame @i of t_exact_bytes, @len bytes, from va in ns A. */
static void exact_send(unsigned int i, unsigned int len)
{
	sh("ip netns exec %s python3 -c \"import socket\n"
	   "s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n"
	   "s.bind(('va', 0))\n"
	   "b = bytes(((%u * 7 + j * 13 + (j >> 8)) & 255) "
	   "for j in range(%u - 14))\n"
	   "s.send(bytes.fromhex('02000000000b02000000000a88b5') + b)\"",
	   ns_a, i, len);
}

/*
 * vb goes down and up again while a frame too big for a ring slot waits
 * in the socket queue: the socket's ENETDOWN is a pause, not the port's
 * failure, and that frame and the next come out whole and in order.
 */
static void t_ring_copy_across_link_flap(void)
{
	struct voff_port_stats st;
	struct voff_pool *pool;
	struct voff_port *pb;
	unsigned int got = 0;

	veth_setup();
	sh("ip -n %s link set va mtu 9000 && ip -n %s link set vb mtu 9000",
	   ns_a, ns_b);
	pb = open_packet(ns_b, "vb", 0);
	CHECK_OK(voff_pool_new(&pool, 64, VOFF_PKT_SUPER_ROOM));
	exact_send(0, 4000);
	sh("ip -n %s link set vb down && ip -n %s link set vb up", ns_b, ns_b);
	sh("ip -n %s link set va up", ns_a);
	for (int idle = 0; idle < 200 && got < 2; idle++) {
		struct voff_batch b;

		if (idle == 5)
			exact_send(1, 3000);
		voff_batch_init(&b);
		CHECK_GE(voff_port_rx(pb, pool, &b), 0);
		for (unsigned int k = 0; k < b.n; k++) {
			const uint8_t *d = voff_pkt_data(b.pkts[k]);

			if (b.pkts[k]->len < 14 || d[12] != 0x88 ||
			    d[13] != 0xb5)
				continue;
			CHECK_EQ(b.pkts[k]->len, got ? 3000 : 4000);
			for (unsigned int j = 0; j + 14 < b.pkts[k]->len; j++)
				if (d[14 + j] != exact_byte(got, j))
					CHECK_EQ(d[14 + j], exact_byte(got, j));
			got++;
		}
		voff_batch_free(&b);
		nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	CHECK_EQ(got, 2);
	voff_port_stats(pb, &st);
	CHECK_EQ(st.rx_dropped, 0);
	voff_port_close(pb);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* @dev's egress view through a packet port opened on it now. */
static void egress_of(const char *ns, const char *dev,
		      struct voff_feat_dev *feat, struct voff_limits *lim)
{
	struct voff_port *p = open_packet(ns, dev, 0);

	voff_port_egress(p, feat, lim);
	voff_port_close(p);
}

/*
 * The port as an egress is its device: TSO_MANGLEID while the device has
 * it on, and the device's gso limits up to VOFF_GSO_FRAME_LIMIT (a veth
 * takes gso_max_size up to 524280).
 */
static void t_egress_follows_device(void)
{
	struct voff_feat_dev feat;
	struct voff_limits lim;

	veth_setup();
	CHECK_EQ(voff_netlink_feature(ns_b, "vb",
				      "tx-tcp-mangleid-segmentation"), 1);
	egress_of(ns_b, "vb", &feat, &lim);
	CHECK(feat.active & VOFF_F_TSO_MANGLEID);
	CHECK(feat.vlan & VOFF_F_TSO_MANGLEID);
	CHECK(feat.enc & VOFF_F_TSO_MANGLEID);
	CHECK_EQ(lim.gso_max_size, 65536);
	CHECK_EQ(lim.gso_ipv4_max_size, 65536);
	CHECK_EQ(lim.gso_max_segs, 65535);
	CHECK_EQ(lim.mtu, 1500);

	/* Above 64 KiB: capped at what a send carries. */
	sh("ip -n %s link set vb gso_max_size 131072", ns_b);
	CHECK_OK(voff_netlink_set_limits(ns_b, "vb", &(struct voff_limits){
		.gso_ipv4_max_size = 131072 }));
	egress_of(ns_b, "vb", &feat, &lim);
	CHECK_EQ(lim.gso_max_size, VOFF_GSO_FRAME_LIMIT);
	CHECK_EQ(lim.gso_ipv4_max_size, VOFF_GSO_FRAME_LIMIT);
	CHECK_EQ(VOFF_GSO_FRAME_LIMIT, 65554);

	/* Below: followed (the kernel sets the IPv4 size too). */
	sh("ip -n %s link set vb gso_max_size 20000 gso_max_segs 10", ns_b);
	egress_of(ns_b, "vb", &feat, &lim);
	CHECK_EQ(lim.gso_max_size, 20000);
	CHECK_EQ(lim.gso_ipv4_max_size, 20000);
	CHECK_EQ(lim.gso_max_segs, 10);

	sh("ip netns exec %s ethtool -K vb tx-tcp-mangleid-segmentation off"
	   " >/dev/null", ns_b);
	egress_of(ns_b, "vb", &feat, &lim);
	CHECK(feat.active & VOFF_F_TSO);
	CHECK(!(feat.active & VOFF_F_TSO_MANGLEID));

	/* MANGLEID without TSO means nothing (the kernel drops it too). */
	sh("ip netns exec %s ethtool -K vb tx-tcp-mangleid-segmentation on"
	   " >/dev/null", ns_b);
	CHECK_EQ(voff_netlink_feature(ns_b, "vb",
				      "tx-tcp-mangleid-segmentation"), 1);
	sh("ip netns exec %s ethtool -K vb tso off >/dev/null", ns_b);
	egress_of(ns_b, "vb", &feat, &lim);
	CHECK(feat.active & VOFF_F_TSO);	/* the header's, not vb's */
	CHECK(!(feat.active & VOFF_F_TSO_MANGLEID));
}

static void t_open_errors(void)
{
	struct voff_port_cfg cfg = { .kind = VOFF_PORT_PACKET,
				     .name = "nope0" };
	struct voff_port *p;

	ns_playground();
	CHECK_EQ(voff_port_open(&p, &cfg), -ENODEV);
	cfg.name = NULL;
	CHECK_EQ(voff_port_open(&p, &cfg), -EINVAL);
	cfg.name = "lo";
	cfg.vnet_hdr_len = 24;	/* PACKET_VNET_HDR_SZ takes 10 or 12 */
	CHECK_EQ(voff_port_open(&p, &cfg), -EINVAL);
	cfg.vnet_hdr_len = 0;
	cfg.name = "lo";
	cfg.netns = "voff-no-such-ns";
	CHECK_EQ(voff_port_open(&p, &cfg), -ENOENT);
}

CHECK_MAIN(CHECK_TEST(t_super_frames_received_whole),
	   CHECK_TEST(t_super_frames_with_12_byte_header),
	   CHECK_TEST(t_no_super_frames_without_sender_tso),
	   CHECK_TEST(t_super_packet_sent_is_segmented),
	   CHECK_TEST(t_forwarder_passes_super_frames),
	   CHECK_TEST(t_forwarder_passes_super_frames_no_ring),
	   CHECK_TEST(t_vlan_tag_put_back),
	   CHECK_TEST(t_vlan_tag_put_back_no_ring),
	   CHECK_TEST(t_burst_accounted),
	   CHECK_TEST(t_exact_bytes),
	   CHECK_TEST(t_ring_copy_across_link_flap),
	   CHECK_TEST(t_egress_follows_device),
	   CHECK_TEST(t_open_errors))
