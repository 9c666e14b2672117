/* SPDX-License-Identifier: MIT */
/*
 * test_vxlan_srcport.c - the VXLAN port's per-flow UDP source ports
 * (vxlan.h, srcports=): the flow hash (one flow one hash whatever the
 * payload, the parse or the segmentation; flows spread over every one of
 * N ports; keyed: another key, another map; frames that are not IP;
 * fragments), and, over sockets on
 * 127.0.0.1 (no root), the send sockets: each flow from one of them,
 * several used, one sendmmsg() per socket for a batch of interleaved
 * flows, replication, nothing received on them, the ports of a range,
 * and the spec with its refusals.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
#define FLOWS 16

/* Ports below the kernel's ephemeral range, apart from test_port_vxlan's. */
static uint16_t port_no(int i)
{
	return (uint16_t)(10000 + (getpid() % 1000) * 8 + i);
}

/* One datagram within 1 s and its source port, or -1. */
static int recv_from(int fd, uint8_t *buf, size_t cap, uint16_t *sport)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	int n;

	if (poll(&p, 1, 1000) != 1)
		return -1;
	n = (int)recvfrom(fd, buf, cap, 0, (struct sockaddr *)&from, &fl);
	*sport = ntohs(from.sin_port);
	return n;
}

static bool quiet(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 100) == 0;
}

/* A port on 127.0.0.1:port_no(0), remotes port_no(1 .. @n_remote). */
static int vx_open(struct voff_port **port, unsigned int n_remote,
		   unsigned int srcports, uint16_t srcport_min)
{
	struct voff_vxlan_cfg c = { .vni = VNI, .srcports = srcports,
				    .srcport_min = srcport_min };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_VXLAN, .vxlan = &c };

	c.local = udp_lo(port_no(0));
	for (unsigned int i = 0; i < n_remote; i++)
		c.remote[c.n_remote++] = udp_lo(port_no((int)i + 1));
	return voff_port_open(port, &pc);
}

/* A flow: TCP or UDP over IPv4 or IPv6, maybe in a VLAN. */
struct flow {
	bool v6, udp, vlan;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};

static void flow_random(struct flow *f)
{
	f->v6 = check_chance(40);
	f->udp = check_chance(30);
	f->vlan = check_chance(10);
	check_fill_random(f->src, sizeof(f->src));
	check_fill_random(f->dst, sizeof(f->dst));
	f->sport = (uint16_t)(1 + check_rnd(65535));
	f->dport = (uint16_t)(1 + check_rnd(65535));
}

/* A frame of flow @f: @pay payload bytes, sequence @seq, TTL @ttl. */
static size_t flow_frame(uint8_t *buf, size_t cap, const struct flow *f,
			 size_t pay, uint32_t seq, uint8_t ttl)
{
	struct tf b;
	struct tf_ip ip = { .df = true, .ttl = ttl, .id = (uint16_t)seq };
	struct tf_l4 l4 = { .sport = f->sport, .dport = f->dport, .seq = seq,
			    .flags = TF_ACK };

	memcpy(ip.src, f->src, 16);
	memcpy(ip.dst, f->dst, 16);
	tf_init(&b, buf, cap);
	tf_eth(&b);
	if (f->vlan)
		tf_vlan(&b, 0x8100, 7);
	if (f->v6)
		tf_ipv6(&b, &ip);
	else
		tf_ipv4(&b, &ip);
	if (f->udp)
		tf_udp(&b, &l4);
	else
		tf_tcp(&b, &l4);
	tf_payload(&b, pay, (uint8_t)seq);
	return tf_finish(&b);
}

/* The flow hash key of the hash tests (a port draws its own at open). */
static uint64_t key[2] = { 0x0706050403020100ull, 0x0F0E0D0C0B0A0908ull };

/* The hash under @k of the frame at @buf, unparsed or parsed. */
static uint32_t hash_key_of(const uint8_t *buf, size_t len, bool parse,
			    const uint64_t k[2])
{
	static uint8_t room[4096];
	struct voff_pkt p;

	CHECK_OK(voff_pkt_init_ext(&p, room, sizeof(room), 0, 0));
	CHECK_OK(voff_pkt_set_data(&p, buf, (uint32_t)len));
	if (parse)
		CHECK_OK(voff_pkt_parse(&p, VOFF_PARSE_ETH, NULL));
	return voff__vxlan_flow_hash(&p, k);
}

/* The hash of the frame at @buf, as an unparsed packet or a parsed one. */
static uint32_t hash_of(const uint8_t *buf, size_t len, bool parse)
{
	return hash_key_of(buf, len, parse, key);
}

/*
 * One flow, one hash: whatever the payload, its length, the sequence
 * number, the TTL and IP ID, and whether a parse set the offsets.
 */
static void t_hash_same_flow(void)
{
	static uint8_t buf[2048];

	for (int it = 0; it < 2000; it++) {
		struct flow f;
		size_t len;
		uint32_t h;

		flow_random(&f);
		len = flow_frame(buf, sizeof(buf), &f, check_rnd(1400), 1, 64);
		h = hash_of(buf, len, false);
		CHECK_EQ(hash_of(buf, len, true), h);
		len = flow_frame(buf, sizeof(buf), &f, check_rnd(1400),
				 (uint32_t)check_rand(),
				 (uint8_t)(1 + check_rnd(255)));
		CHECK_EQ(hash_of(buf, len, check_chance(50)), h);
	}
}

/* A super-packet and every segment GSO cuts from it: one hash. */
static void t_hash_segments(void)
{
	static uint8_t buf[20000];
	struct voff_pool *pool;
	struct voff_pkt *pkt, *seg[64];
	struct flow f;
	uint32_t h;
	int n;

	CHECK_OK(voff_pool_new(&pool, 80, 20000));
	for (int it = 0; it < 20; it++) {
		size_t len;

		flow_random(&f);
		f.udp = false;
		len = flow_frame(buf, sizeof(buf), &f, 12000, 5, 64);
		CHECK_OK(voff_pkt_alloc(pool, &pkt));
		CHECK_OK(voff_pkt_set_data(pkt, buf, (uint32_t)len));
		CHECK_OK(voff_pkt_parse(pkt, VOFF_PARSE_ETH, NULL));
		pkt->gso_type = f.v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
		pkt->gso_size = 1000;
		h = voff__vxlan_flow_hash(pkt, key);
		n = voff_gso_segment(pkt, NULL, pool, seg, 64);
		CHECK_EQ(n, 12);
		for (int i = 0; i < n; i++)
			CHECK_EQ(voff__vxlan_flow_hash(seg[i], key), h);
		/* The same flow's plain frame, never parsed. */
		len = flow_frame(buf, sizeof(buf), &f, 300, 99, 64);
		CHECK_EQ(hash_of(buf, len, false), h);
		voff_pkt_free_bulk(seg, (unsigned int)n);
		voff_pkt_free(pkt);
	}
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * Random flows spread over all of N ports, for every N, each port near
 * its share; flows that differ in one field alone (a source port, a
 * destination address, the protocol) spread too.
 */
static void t_hash_spread(void)
{
	static uint8_t buf[256];
	unsigned int hits[VOFF_VXLAN_SRCPORTS_MAX];

	for (unsigned int n = 1; n <= VOFF_VXLAN_SRCPORTS_MAX; n++) {
		unsigned int flows = 200 * n;

		memset(hits, 0, sizeof(hits));
		for (unsigned int i = 0; i < flows; i++) {
			struct flow f;
			size_t len;
			unsigned int k;

			flow_random(&f);
			len = flow_frame(buf, sizeof(buf), &f, 10, 1, 64);
			k = voff__vxlan_srcport_pick(
				hash_of(buf, len, false), n);
			CHECK_LT(k, n);
			hits[k]++;
		}
		/* 200 expected each; 120 is more than 5 sigma below. */
		for (unsigned int k = 0; k < n; k++)
			CHECK_GE(hits[k], 120);
	}
	/* One field changing at a time: source port, address, protocol. */
	for (int field = 0; field < 3; field++) {
		struct flow f;

		flow_random(&f);
		memset(hits, 0, sizeof(hits));
		for (unsigned int i = 0; i < 1600; i++) {
			size_t len;

			if (field == 0) {
				f.sport = (uint16_t)(1 + i);
			} else if (field == 1) {	/* IPv4's or IPv6's */
				f.dst[2] = f.dst[14] = (uint8_t)(i >> 8);
				f.dst[3] = f.dst[15] = (uint8_t)i;
			} else {
				f.udp = i & 1;
				f.sport = (uint16_t)(1 + i / 2);
			}
			len = flow_frame(buf, sizeof(buf), &f, 10, 1, 64);
			hits[voff__vxlan_srcport_pick(hash_of(buf, len, false),
						      8)]++;
		}
		for (unsigned int k = 0; k < 8; k++)
			CHECK_GE(hits[k], 120);
	}
	CHECK_EQ(voff__vxlan_srcport_pick(0xFFFFFFFFu, 8), 7);
	CHECK_EQ(voff__vxlan_srcport_pick(0, 8), 0);
	CHECK_EQ(voff__vxlan_srcport_pick(12345, 0), 0);
}

/*
 * The keyed hash: SipHash-1-3 itself (the reference's key 00..0f and
 * messages 00 01 02 ..., lengths across the 8-byte words); keys drawn
 * at random differ; under each of two random keys every flow keeps its
 * port and the flows spread over all 8, and the two keys map them
 * differently (an eighth agree, as for unrelated maps; the same function
 * unkeyed would make them all agree).
 */
static void t_hash_key(void)
{
	static const struct {
		size_t n;
		uint64_t h;
	} vec[] = {
		{ 0, 0xABAC0158050FC4DCull },  { 7, 0xD3927D989BB11140ull },
		{ 8, 0x369095118D299A8Eull },  { 15, 0xD320D86D2A519956ull },
		{ 40, 0xC1D2363299E41531ull },
	};
	static uint8_t buf[256];
	uint8_t msg[40];
	uint64_t k[2][2];
	unsigned int hits[2][8] = { { 0 } }, agree = 0;

	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	for (size_t i = 0; i < sizeof(vec) / sizeof(vec[0]); i++)
		CHECK_EQ(voff__siphash13(key, msg, vec[i].n), vec[i].h);
	voff__vxlan_hash_key(k[0]);
	voff__vxlan_hash_key(k[1]);
	CHECK(k[0][0] != k[1][0] || k[0][1] != k[1][1]);
	for (unsigned int i = 0; i < 1000; i++) {
		unsigned int pick[2];
		struct flow f;
		size_t len;

		flow_random(&f);
		len = flow_frame(buf, sizeof(buf), &f, 10, 1, 64);
		for (int j = 0; j < 2; j++) {
			uint32_t h = hash_key_of(buf, len, false, k[j]);

			pick[j] = voff__vxlan_srcport_pick(h, 8);
			hits[j][pick[j]]++;
			/* Another frame of the flow, parsed: the same hash. */
			len = flow_frame(buf, sizeof(buf), &f, 100, 99, 30);
			CHECK_EQ(hash_key_of(buf, len, true, k[j]), h);
		}
		agree += pick[0] == pick[1];
	}
	/* 125 expected each; 70 is more than 5 sigma below. */
	for (int j = 0; j < 2; j++)
		for (unsigned int p = 0; p < 8; p++)
			CHECK_GE(hits[j][p], 70);
	CHECK_LT(agree, 250);
}

/*
 * A frame that is not IP hashes its MACs and EtherType: the same for any
 * payload, spread over the ports by its addresses; a short frame and a
 * broken IP header hash too.
 */
static void t_hash_non_ip(void)
{
	static uint8_t buf[256];
	unsigned int hits[8] = { 0 };

	for (unsigned int i = 0; i < 1600; i++) {
		uint8_t dst[6], src[6];
		struct tf b;
		size_t len;
		uint32_t h;

		check_fill_random(dst, 6);
		check_fill_random(src, 6);
		tf_init(&b, buf, sizeof(buf));
		tf_eth_addr(&b, dst, src);	/* ARP */
		tf_payload(&b, 28 + check_rnd(30), (uint8_t)i);
		len = tf_finish(&b);
		h = hash_of(buf, len, false);
		CHECK_EQ(hash_of(buf, len, true), h);
		tf_init(&b, buf, sizeof(buf));
		tf_eth_addr(&b, dst, src);
		tf_payload(&b, 28 + check_rnd(30), (uint8_t)(i + 1));
		len = tf_finish(&b);
		CHECK_EQ(hash_of(buf, len, false), h);
		/* Another EtherType, same MACs: another flow. */
		buf[12] = 0x08;		/* ARP; tf's is 0x88B5 */
		buf[13] = 0x06;
		if (hash_of(buf, len, false) == h)
			CHECK_FAIL_AT("EtherType left out of the hash");
		hits[voff__vxlan_srcport_pick(h, 8)]++;
	}
	for (unsigned int k = 0; k < 8; k++)
		CHECK_GE(hits[k], 120);
	/* Too short for Ethernet, or an IPv4 EtherType without a header. */
	memset(buf, 0, 64);
	(void)hash_of(buf, 6, false);
	buf[12] = 0x08;
	(void)hash_of(buf, 20, false);
	CHECK_EQ(hash_of(buf, 20, false), hash_of(buf, 20, false));
}

/*
 * The fragments of one IPv4 datagram hash alike (addresses and protocol:
 * the later ones have no ports), and differ from its unfragmented twin's.
 */
static void t_hash_fragments(void)
{
	static uint8_t buf[512];
	struct flow f;
	struct tf b;
	struct tf_ip ip = { .mf = true };
	struct tf_l4 l4 = { .sport = 1234, .dport = 80, .flags = TF_ACK };
	size_t len;
	uint32_t first, later;

	flow_random(&f);
	memcpy(ip.src, f.src, 4);
	memcpy(ip.dst, f.dst, 4);
	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_ipv4(&b, &ip);
	tf_udp(&b, &l4);
	tf_payload(&b, 200, 1);
	first = hash_of(buf, tf_finish(&b), false);
	ip.mf = false;
	ip.frag_off = 208;
	ip.proto = 17;
	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_ipv4(&b, &ip);
	tf_payload(&b, 100, 2);
	len = tf_finish(&b);
	later = hash_of(buf, len, false);
	CHECK_EQ(first, later);
	CHECK_EQ(hash_of(buf, len, true), later);
}

/* The inner TCP source port of datagram @d (VXLAN header, IPv4 frame). */
static uint16_t inner_sport(const uint8_t *d)
{
	return (uint16_t)(d[8 + 14 + 20] << 8 | d[8 + 14 + 21]);
}

static uint32_t inner_seq(const uint8_t *d)
{
	const uint8_t *t = d + 8 + 14 + 20 + 4;

	return (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 |
	       (uint32_t)t[2] << 8 | t[3];
}

static bool among(uint16_t p, const uint16_t *ports, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (ports[i] == p)
			return true;
	return false;
}

/*
 * FLOWS TCP flows, 3 frames each, interleaved in one batch and flooded to
 * @n_remote remotes from @nsrc send sockets: every datagram comes from
 * one of the port's source ports, a flow from one alone and in order,
 * the same port at every remote, the one the flow hash under the fixed
 * key picks; each socket sends its share in one sendmmsg() per remote.
 * Return: the distinct source ports seen.
 */
static unsigned int send_flows(struct voff_port *port, unsigned int n_remote,
			       const uint16_t *ports, unsigned int nsrc)
{
	static uint8_t frame[256], got[512];
	uint16_t flow_port[FLOWS] = { 0 }, used[VOFF_VXLAN_SRCPORTS_MAX];
	uint16_t keyed[FLOWS];		/* each flow's port under key */
	uint32_t next_seq[FLOWS];
	struct voff_pool *pool;
	struct voff_udp_stats us;
	struct voff_batch b;
	unsigned int nused = 0;
	int fd[4];

	CHECK_LE(n_remote, 4);
	CHECK_OK(voff__port_vxlan_hash_key(port, key));
	for (unsigned int r = 0; r < n_remote; r++)
		fd[r] = udp_lo_sock(port_no((int)r + 1));
	CHECK_OK(voff_pool_new(&pool, 64, 2048));
	voff_batch_init(&b);
	for (unsigned int i = 0; i < 3 * FLOWS; i++) {
		struct flow f = { .sport = (uint16_t)(5000 + i % FLOWS),
				  .dport = 80 };
		struct voff_pkt *pkt;
		size_t len;

		f.src[0] = f.dst[0] = 10;
		f.src[3] = 1;
		f.dst[3] = 2;
		len = flow_frame(frame, sizeof(frame), &f, 100,
				 1000 + i / FLOWS, 64);
		if (i < FLOWS)
			keyed[i] = ports[voff__vxlan_srcport_pick(
				hash_of(frame, len, false), nsrc)];
		CHECK_OK(voff_pkt_alloc(pool, &pkt));
		CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)len));
		CHECK_OK(voff_batch_add(&b, pkt));
	}
	CHECK_EQ(voff_port_tx(port, &b), 3 * FLOWS);
	for (unsigned int r = 0; r < n_remote; r++) {
		for (unsigned int k = 0; k < FLOWS; k++)
			next_seq[k] = 1000;
		for (unsigned int i = 0; i < 3 * FLOWS; i++) {
			uint16_t sp;
			unsigned int k;

			CHECK_EQ(recv_from(fd[r], got, sizeof(got), &sp),
				 8 + 14 + 20 + 20 + 100);
			CHECK(among(sp, ports, nsrc));
			k = inner_sport(got) - 5000u;
			CHECK_LT(k, FLOWS);
			CHECK_EQ(inner_seq(got), next_seq[k]);
			next_seq[k]++;
			if (!flow_port[k])
				flow_port[k] = sp;
			CHECK_EQ(sp, flow_port[k]);
			CHECK_EQ(sp, keyed[k]);
			if (!among(sp, used, nused))
				used[nused++] = sp;
		}
		CHECK(quiet(fd[r]));
		close(fd[r]);
	}
	/* One message of one call per socket used, for each remote. */
	CHECK_OK(voff_port_vxlan_stats(port, NULL, &us));
	CHECK_EQ(us.tx_datagrams, 3 * FLOWS * n_remote);
	CHECK_EQ(us.tx_calls, nused * n_remote);
	CHECK_EQ(us.tx_msgs, nused * n_remote);
	CHECK_EQ(us.fallback_gso_probe, 0);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
	return nused;
}

/*
 * From /proc/net/udp's line of the socket on local port @port: @col 1
 * its receive queue, 2 its drops; -1 when there is none.
 */
static long udp_proc_field(uint16_t port, int col)
{
	char line[512];
	FILE *f = fopen("/proc/net/udp", "r");
	long v = -1;

	CHECK(f != NULL);
	while (v < 0 && fgets(line, sizeof(line), f)) {
		unsigned int lport, rxq, drops;

		if (sscanf(line, " %*d: %*x:%x %*x:%*x %*x %*x:%x %*x:%*x %*x "
				 "%*u %*u %*u %*d %*x %u",
			   &lport, &rxq, &drops) == 3 &&
		    lport == port)
			v = col == 1 ? (long)rxq : (long)drops;
	}
	fclose(f);
	return v;
}

/*
 * srcports=4: 16 flows from the 4 ephemeral ports, at least two of them,
 * one each; the port still receives on its own socket; datagrams sent to
 * a send socket are dropped there, never queued.
 */
static void t_send_sockets(void)
{
	static const uint8_t dgram[8 + 60] = { 0x08, 0, 0, 0, 0, 0, 42, 0,
					       0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0x02, 0, 0, 0, 0, 0x0a,
					       0x08, 0x06 };
	struct voff_port *port;
	struct voff_pool *pool;
	struct voff_batch b;
	union voff_udp_addr to;
	uint16_t ports[8];
	int fd;

	CHECK_OK(vx_open(&port, 1, 4, 0));
	CHECK_EQ(voff_port_vxlan_srcports(port, ports, 8), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_NE(ports[i], 0);
		CHECK_NE(ports[i], port_no(0));
		for (int j = 0; j < i; j++)
			CHECK_NE(ports[i], ports[j]);
	}
	CHECK_GE(send_flows(port, 1, ports, 4), 2);
	/* A peer's datagram to the VXLAN port reaches the port. */
	fd = udp_lo_sock(port_no(1));
	to = udp_lo(port_no(0));
	CHECK_EQ(sendto(fd, dgram, sizeof(dgram), 0, &to.sa, sizeof(to.in4)),
		 (ssize_t)sizeof(dgram));
	CHECK_OK(voff_pool_new(&pool, 16, 2048));
	voff_batch_init(&b);
	for (int tries = 0; tries < 100 && !b.n; tries++) {
		CHECK_GE(voff_port_rx(port, pool, &b), 0);
		if (!b.n)
			usleep(10000);
	}
	CHECK_EQ(b.n, 1);
	CHECK_EQ(b.pkts[0]->len, 60);
	voff_batch_free(&b);
	/* To a send socket: dropped by its filter, counted by the kernel. */
	to = udp_lo(ports[2]);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(sendto(fd, dgram, sizeof(dgram), 0, &to.sa,
				sizeof(to.in4)),
			 (ssize_t)sizeof(dgram));
	usleep(20000);
	CHECK_EQ(udp_proc_field(ports[2], 1), 0);
	CHECK_EQ(udp_proc_field(ports[2], 2), 3);
	CHECK_EQ(voff_port_rx(port, pool, &b), 0);
	close(fd);
	voff_port_close(port);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* Flooded to three remotes: each flow from the same port at every one. */
static void t_send_flood(void)
{
	struct voff_port *port;
	uint16_t ports[8];

	CHECK_OK(vx_open(&port, 3, 8, 0));
	CHECK_EQ(voff_port_vxlan_srcports(port, ports, 8), 8);
	CHECK_GE(send_flows(port, 3, ports, 8), 2);
	voff_port_close(port);
}

/*
 * A range: exactly its ports, in order; one port of it taken: the open
 * fails and leaves nothing bound.  The default sends from the VXLAN port,
 * and so does srcports=1.
 */
static void t_send_range(void)
{
	struct voff_port *port;
	uint16_t ports[8];
	int fd;

	CHECK_OK(vx_open(&port, 1, 3, port_no(4)));
	CHECK_EQ(voff_port_vxlan_srcports(port, ports, 8), 3);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(ports[i], port_no(4 + i));
	CHECK_EQ(voff_port_vxlan_srcports(port, NULL, 0), 3);
	CHECK_GE(send_flows(port, 1, ports, 3), 2);
	voff_port_close(port);
	fd = udp_lo_sock(port_no(5));
	CHECK_EQ(vx_open(&port, 1, 3, port_no(4)), -EADDRINUSE);
	close(fd);
	close(udp_lo_sock(port_no(4)));	/* nothing was left bound */
	close(udp_lo_sock(port_no(0)));
	/* One port of a range: one send socket. */
	CHECK_OK(vx_open(&port, 1, 1, port_no(6)));
	CHECK_EQ(voff_port_vxlan_srcports(port, ports, 8), 1);
	CHECK_EQ(ports[0], port_no(6));
	CHECK_EQ(send_flows(port, 1, ports, 1), 1);
	voff_port_close(port);
	for (unsigned int n = 0; n <= 1; n++) {
		CHECK_OK(vx_open(&port, 1, n, 0));
		CHECK_EQ(voff_port_vxlan_srcports(port, ports, 8), 1);
		CHECK_EQ(ports[0], port_no(0));
		CHECK_EQ(send_flows(port, 1, ports, 1), 1);
		voff_port_close(port);
	}
	CHECK_EQ(voff_port_vxlan_srcports(NULL, ports, 8), 0);
	/* Out of range: too many, past port 65535, a range of none. */
	CHECK_EQ(vx_open(&port, 1, VOFF_VXLAN_SRCPORTS_MAX + 1, 0), -EINVAL);
	CHECK_EQ(vx_open(&port, 1, 2, 65535), -EINVAL);
	CHECK_EQ(vx_open(&port, 1, 0, 40000), -EINVAL);
}

/* The spec: both forms, printed back; every refusal's message. */
static void t_spec(void)
{
	static const struct {
		const char *opt, *err;
	} bad[] = {
		{ "srcports=", "srcports: expected N (1 to 64) or MIN-MAX "
			       "(ports), not ''" },
		{ "srcports=0", "srcports: expected N (1 to 64) or MIN-MAX "
				"(ports), not '0'" },
		{ "srcports=65", "srcports: expected N (1 to 64) or MIN-MAX "
				 "(ports), not '65'" },
		{ "srcports=eight", "srcports: expected N (1 to 64) or "
				    "MIN-MAX (ports), not 'eight'" },
		{ "srcports=8x", "srcports: expected N (1 to 64) or MIN-MAX "
				 "(ports), not '8x'" },
		{ "srcports=-4", "srcports: expected N (1 to 64) or MIN-MAX "
				 "(ports), not '-4'" },
		{ "srcports=40007-40000", "srcports: expected N (1 to 64) or "
					  "MIN-MAX (ports), not "
					  "'40007-40000'" },
		{ "srcports=0-7", "srcports: expected N (1 to 64) or MIN-MAX "
				  "(ports), not '0-7'" },
		{ "srcports=65530-65536", "srcports: expected N (1 to 64) or "
					  "MIN-MAX (ports), not "
					  "'65530-65536'" },
		{ "srcports=100000", "srcports: expected N (1 to 64) or "
				     "MIN-MAX (ports), not '100000'" },
		{ "srcports=40000-40064", "srcports: 40000-40064 is 65 ports, "
					  "at most 64" },
	};
	struct voff_port_spec s;
	char spec[128], text[256];

	CHECK_OK(voff_port_spec_parse(&s, "vxlan:5,local=192.0.2.1,"
					  "srcports=8"));
	CHECK_EQ(s.vxlan.srcports, 8);
	CHECK_EQ(s.vxlan.srcport_min, 0);
	CHECK_GT(voff_port_spec_format(&s, false, text, sizeof(text)), 0);
	CHECK_STR_EQ(text, "vxlan:5,local=192.0.2.1:4789,srcports=8");
	CHECK_OK(voff_port_spec_parse(&s, "vxlan:5,local=192.0.2.1,"
					  "srcports=40000-40063"));
	CHECK_EQ(s.vxlan.srcports, 64);
	CHECK_EQ(s.vxlan.srcport_min, 40000);
	CHECK_GT(voff_port_spec_format(&s, false, text, sizeof(text)), 0);
	CHECK_STR_EQ(text,
		     "vxlan:5,local=192.0.2.1:4789,srcports=40000-40063");
	CHECK_OK(voff_port_spec_parse(&s, "vxlan:5,local=192.0.2.1,"
					  "srcports=9,srcports=65535-65535"));
	CHECK_GT(voff_port_spec_format(&s, false, text, sizeof(text)), 0);
	CHECK_STR_EQ(text,
		     "vxlan:5,local=192.0.2.1:4789,srcports=65535-65535");
	/* 1 is the default: printed back as nothing. */
	CHECK_OK(voff_port_spec_parse(&s, "vxlan:5,local=192.0.2.1,"
					  "srcports=1"));
	CHECK_GT(voff_port_spec_format(&s, false, text, sizeof(text)), 0);
	CHECK_STR_EQ(text, "vxlan:5,local=192.0.2.1:4789");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(spec, sizeof(spec), "vxlan:5,local=192.0.2.1,%s",
			 bad[i].opt);
		CHECK_EQ(voff_port_spec_parse(&s, spec), -EINVAL);
		CHECK_STR_EQ(s.err, bad[i].err);
	}
	/* Another kind has no such option. */
	CHECK_EQ(voff_port_spec_parse(&s, "tap:t0,srcports=4"), -EINVAL);
}

CHECK_MAIN(CHECK_TEST(t_hash_same_flow), CHECK_TEST(t_hash_segments),
	   CHECK_TEST(t_hash_spread), CHECK_TEST(t_hash_key),
	   CHECK_TEST(t_hash_non_ip),
	   CHECK_TEST(t_hash_fragments), CHECK_TEST(t_send_sockets),
	   CHECK_TEST(t_send_flood), CHECK_TEST(t_send_range),
	   CHECK_TEST(t_spec))
