/* SPDX-License-Identifier: MIT */
/*
 * test_gro_roundtrip.c - round-trip properties of GSO (gso.h) and GRO
 * (gro.h): GRO(GSO(x)) == x and GSO(GRO(segments)) == segments
 *
 * test_gso_gro.c (GSO's side) checks GRO(GSO(x)) on TCP super-packets
 * built by the GSO twin; this file adds raw IP, 802.1ad tags, tiny MSS,
 * partial-checksum GSO, trusted checksums (GRO's fast path), sg mode with
 * both output forms, the reverse direction, and the CWR split.
 *
 * Random super-packets x (TCP over IPv4 and IPv6, USO over both, 0 to 2
 * VLAN tags of either TPID or raw IP, IPv6 hop-by-hop and destination
 * options, TCP options, MSS from 1 byte up, ECE, PSH and FIN, fixed or
 * incrementing IPv4 IDs, DF, TOS/ECN, TTL, flow label) are built by the
 * test frame builder with complete checksums, segmented by voff_gso_segment()
 * (full checksums, or partial), and the segments offered to a fresh GRO
 * engine in order (copy mode or sg mode, Ethernet or raw IP).  After the
 * flush exactly one packet must come out; with its checksum completed in
 * software its bytes must be x's, and its gso_type, gso_size, gso_segs,
 * csum_start/offset and offsets must describe x.  The second property
 * builds the wire segments themselves with the builder (seq + i * mss, ID
 * + i or fixed, PSH/FIN on the last), merges them and segments the result
 * with GSO: every segment must come back byte for byte.
 *
 * Which inputs the round trip holds for, and why (Linux 6.18.44 rules,
 * docs/gro.md):
 *  - x has at least two segments; one segment is a plain frame to both
 *    sides (checked too: GRO gives it back without GSO metadata);
 *  - no CWR: GSO puts CWR on the first segment only, and a CWR head takes
 *    no followers in 6.18.44, so GRO(GSO(x)) is then the first segment
 *    alone and a super-packet of the rest (t_cwr pins exactly that);
 *  - no URG, SYN, RST (GRO never merges them), no IPv4 options (GRO never
 *    merges them);
 *  - the IP datagram stays within 65535 bytes (for IPv6: 40 + payload
 *    length), and a UDP super-packet has at most 64 datagrams, an sg-mode
 *    super-packet at most 64 segments (the engine's limits);
 *  - PSH and FIN survive: GSO puts them on the last segment, GRO ORs them
 *    into the head; ECE is on every segment and compares equal.
 * A TCP checksum summing to zero is stored as 0x0000 by the builder and
 * GSO, as 0xFFFF by the software completion of a partial checksum
 * (voff_csum_complete_at(), the kernel's skb_checksum_help()); the two
 * are the same checksum and compare equal here.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/gro.h>
#include <voff/gso.h>
#include <voff/parse.h>
#include <voff/pkt.h>

#include "check.h"
#include "frames.h"

#define BUF 70000
#define MAX_SEGS 256

/* One random round-trip case. */
struct rt {
	bool v6, udp, raw;
	int vlans;
	uint16_t tpid[2];
	uint16_t hbh, dst;	/* IPv6 extension header bytes (0 = none) */
	uint8_t tcpopt;
	uint8_t flags;		/* of x: ACK, maybe ECE, PSH, FIN, CWR */
	bool fixedid, df;
	uint16_t id;
	uint8_t ttl, tos;
	uint32_t flow;
	uint16_t sport, dport;
	uint32_t seq, ack, tsval;
	uint16_t win;
	uint32_t mss, pay;
	bool partial;		/* GSO in partial checksum mode */
	bool trusted;		/* segments marked VALID (full mode) */
	bool sg;		/* GRO in sg mode */
	bool pop_sg;		/* sg mode: take the output as iovecs */
};

static uint64_t rng = 0x5EED0F6A5C0FFEEull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)((rng >> 11) % n) : 0;
}

static uint8_t payload[BUF];
static uint8_t xbuf[BUF];
static uint8_t flat[BUF];

struct built {
	size_t len;
	uint16_t l3, l4, pay;
};

/*
 * Build one frame of @c: the super-packet x (@seg < 0) or its segment
 * @seg (payload slice, seq, ID and flags of that segment on the wire).
 */
static struct built build(const struct rt *c, int seg, uint32_t nseg,
			  uint8_t *buf)
{
	struct tf_ip ip = { .ttl = c->ttl, .tos = c->tos, .id = c->id,
			    .df = c->df, .flow = c->flow };
	struct tf_l4 l4 = { .sport = c->sport, .dport = c->dport,
			    .seq = c->seq, .ack = c->ack, .flags = c->flags,
			    .win = c->win, .opt_len = c->tcpopt,
			    .tsval = c->tsval };
	uint32_t off = 0, len = c->pay;
	struct built o = { 0 };
	struct tf b;
	int l3, l4i;

	if (seg >= 0) {
		off = (uint32_t)seg * c->mss;
		len = c->pay - off < c->mss ? c->pay - off : c->mss;
		l4.seq = c->seq + off;
		if (!c->fixedid)
			ip.id = (uint16_t)(c->id + seg);
		if ((uint32_t)seg + 1 < nseg)
			l4.flags &= (uint8_t)~(TF_PSH | TF_FIN);
		if (seg > 0)
			l4.flags &= (uint8_t)~TF_CWR;
	}
	ip.src[0] = c->v6 ? 0x20 : 10;
	ip.src[3] = 7;
	ip.dst[0] = c->v6 ? 0x20 : 10;
	ip.dst[3] = 9;
	tf_init(&b, buf, BUF);
	if (!c->raw) {
		tf_eth(&b);
		for (int i = 0; i < c->vlans; i++)
			tf_vlan(&b, c->tpid[i], (uint16_t)(100 + i));
	}
	l3 = b.n;
	if (c->v6) {
		tf_ipv6(&b, &ip);
		if (c->hbh)
			tf_ipv6_ext(&b, TF_EXT_HOPOPTS, c->hbh);
		if (c->dst)
			tf_ipv6_ext(&b, TF_EXT_DSTOPTS, c->dst);
	} else {
		tf_ipv4(&b, &ip);
	}
	l4i = b.n;
	if (c->udp)
		tf_udp(&b, &l4);
	else
		tf_tcp(&b, &l4);
	tf_bytes(&b, payload + off, len);
	o.len = tf_finish(&b);
	CHECK_GT(o.len, 0);
	o.l3 = (uint16_t)tf_off(&b, l3);
	o.l4 = (uint16_t)tf_off(&b, l4i);
	o.pay = (uint16_t)(o.len - len);
	return o;
}

static uint32_t hdr_bytes(const struct rt *c)
{
	return (c->raw ? 0 : 14 + 4u * (uint32_t)c->vlans) +
	       (c->v6 ? 40u + c->hbh + c->dst : 20u) +
	       (c->udp ? 8u : 20u + c->tcpopt);
}

/* A random case whose round trip must hold (see the file comment). */
static void gen(struct rt *c, bool allow_cwr)
{
	uint32_t l3hdr, room, n, max_n;

	memset(c, 0, sizeof(*c));
	c->v6 = rnd(2);
	c->udp = rnd(4) == 0;
	c->raw = rnd(6) == 0;
	c->vlans = c->raw ? 0 : (int)rnd(3);
	for (int i = 0; i < 2; i++)
		c->tpid[i] = rnd(2) ? TF_TPID_8021Q : TF_TPID_8021AD;
	if (c->v6) {
		c->hbh = rnd(4) == 0 ? (uint16_t)(8 * (1 + rnd(2))) : 0;
		c->dst = rnd(4) == 0 ? (uint16_t)(8 * (1 + rnd(3))) : 0;
		c->flow = rnd(1u << 20);
	}
	if (!c->udp) {
		c->tcpopt = (uint8_t)(rnd(3) ? (rnd(2) ? 12 : 0) : 4 * rnd(11));
		c->flags = TF_ACK;
		if (rnd(4) == 0)
			c->flags |= TF_ECE;
		if (rnd(3) == 0)
			c->flags |= TF_PSH;
		if (rnd(5) == 0)
			c->flags |= TF_FIN;
		if (allow_cwr)
			c->flags |= TF_CWR;
		c->fixedid = !c->v6 && rnd(4) == 0;
	}
	c->df = rnd(4) != 0;
	c->id = (uint16_t)rnd(65536);
	c->ttl = (uint8_t)(1 + rnd(255));
	c->tos = (uint8_t)rnd(256);
	c->sport = (uint16_t)(1 + rnd(65535));
	c->dport = (uint16_t)(1 + rnd(65535));
	c->seq = rnd(0xFFFFFFFFu) ^ rnd(4);
	c->ack = rnd(0xFFFFFFFFu);
	c->tsval = rnd(0xFFFFFFFFu);
	c->win = (uint16_t)rnd(65536);
	c->partial = rnd(3) == 0;
	c->trusted = !c->partial && rnd(3) == 0;
	c->sg = rnd(2);
	c->pop_sg = c->sg && rnd(2);

	/* MSS: mostly usual sizes, sometimes tiny. */
	switch (rnd(4)) {
	case 0:
		c->mss = 1 + rnd(64);
		break;
	case 1:
		c->mss = 64 + rnd(600);
		break;
	default:
		c->mss = 536 + rnd(1460 - 536 + 1);
		break;
	}
	l3hdr = hdr_bytes(c) - (c->raw ? 0 : 14 + 4u * (uint32_t)c->vlans);
	/* IP datagram <= 65535 (IPv6: 40 + payload length). */
	room = 65535 - l3hdr;
	max_n = room / c->mss;
	if (c->udp || c->sg)
		max_n = max_n < 64 ? max_n : 64;
	if (max_n > MAX_SEGS)
		max_n = MAX_SEGS;
	CHECK_GE(max_n, 2);
	/* Mostly 2..45 segments, sometimes the limit. */
	n = rnd(8) == 0 ? max_n : 2 + rnd((max_n < 45 ? max_n : 45) - 1);
	c->pay = (n - 1) * c->mss + 1 + rnd(c->mss);
	if (c->pay > room)
		c->pay = room;
	for (uint32_t i = 0; i < c->pay; i++)
		payload[i] = (uint8_t)rnd(256);
}

static uint32_t nseg_of(const struct rt *c)
{
	return (c->pay + c->mss - 1) / c->mss;
}

static uint32_t gso_type_of(const struct rt *c)
{
	if (c->udp)
		return VOFF_GSO_UDP_L4;
	if (c->v6)
		return VOFF_GSO_TCPV6;
	return VOFF_GSO_TCPV4 | (c->fixedid ? VOFF_GSO_TCP_FIXEDID : 0);
}

static struct voff_gro *mkgro(const struct rt *c)
{
	struct voff_gro_config cfg = {
		.start = c->raw ? VOFF_PARSE_IP : VOFF_PARSE_ETH,
		.sg = c->sg,
		.pool_size = 4,
		.max_flows = 4,
	};
	struct voff_gro *g;

	CHECK_OK(voff_gro_new(&g, &cfg));
	return g;
}

/*
 * Take the engine's next output as a flat frame in @out (a descriptor over
 * @flat when gathered from an iovec list).  Return false when none.
 */
static bool take(struct voff_gro *g, const struct rt *c, struct voff_pkt *out)
{
	struct voff_pkt *p, *pk[VOFF_GRO_SG_MAX_SEGS];
	struct iovec iov[VOFF_GRO_SG_MAX_SEGS];
	struct voff_sg sg;
	int n;

	if (!c->pop_sg) {
		p = voff_gro_pop(g);
		if (!p)
			return false;
		CHECK_LE(p->len, BUF);
		memcpy(flat, voff_pkt_data(p), p->len);
		*out = *p;
		CHECK_OK(voff_pkt_init_ext(out, flat, BUF, 0, p->len));
		voff_pkt_copy_meta(out, p);
		voff_pkt_free(p);
		return true;
	}
	voff_sg_init(&sg, iov, VOFF_GRO_SG_MAX_SEGS);
	n = voff_gro_pop_sg(g, &sg, pk, VOFF_GRO_SG_MAX_SEGS);
	CHECK_GE(n, 0);
	if (n == 0)
		return false;
	CHECK_EQ(voff_sg_copy(&sg, flat, BUF), sg.len);
	*out = *pk[0];
	CHECK_OK(voff_pkt_init_ext(out, flat, BUF, 0, (uint32_t)sg.len));
	voff_pkt_copy_meta(out, pk[0]);
	voff_pkt_free_bulk(pk, (unsigned int)n);
	return true;
}

/* Bytes equal, a TCP checksum of 0x0000 and 0xFFFF being one value. */
static bool zero_csum(const uint8_t *p)
{
	return (p[0] == 0 && p[1] == 0) || (p[0] == 0xFF && p[1] == 0xFF);
}

static void check_bytes(const uint8_t *got, const uint8_t *want, size_t len,
			const struct rt *c, uint16_t l4)
{
	for (size_t i = 0; i < len; i++) {
		if (got[i] == want[i])
			continue;
		if (!c->udp && (i == l4 + 16u || i == l4 + 17u) &&
		    zero_csum(got + l4 + 16) && zero_csum(want + l4 + 16))
			continue;
		CHECK_MSG(false, "byte %zu: got 0x%02x, want 0x%02x (len %zu)",
			  i, got[i], want[i], len);
	}
}

/* Segment x with GSO into @segs; return the count. */
static unsigned int gso_x(const struct rt *c, struct voff_pool *pool,
			  struct voff_pkt **segs, struct built *xb)
{
	struct voff_gso_opts o = { .csum_mode = c->partial ?
						VOFF_GSO_CSUM_PARTIAL :
						VOFF_GSO_CSUM_FULL };
	struct voff_pkt x;
	int n;

	*xb = build(c, -1, 0, xbuf);
	CHECK_OK(voff_pkt_init_ext(&x, xbuf, BUF, 0, (uint32_t)xb->len));
	CHECK_OK(voff_pkt_parse(&x, c->raw ? VOFF_PARSE_IP : VOFF_PARSE_ETH,
				NULL));
	CHECK_EQ(x.l3_off, xb->l3);
	CHECK_EQ(x.l4_off, xb->l4);
	x.gso_type = gso_type_of(c);
	x.gso_size = (uint16_t)c->mss;
	n = voff_gso_segment(&x, &o, pool, segs, MAX_SEGS);
	CHECK_EQ(n, (int)nseg_of(c));
	return (unsigned int)n;
}

/* Offer @n packets to @g in order, then flush. */
static void feed(struct voff_gro *g, const struct rt *c,
		 struct voff_pkt **segs, unsigned int n, bool expect_merge)
{
	for (unsigned int i = 0; i < n; i++) {
		int rc;

		if (c->trusted)
			segs[i]->csum = VOFF_CSUM_VALID;
		rc = voff_gro_receive(g, segs[i], 1000 + i);
		if (expect_merge)
			CHECK_EQ(rc, i ? VOFF_GRO_MERGED : VOFF_GRO_HELD);
		else
			CHECK_GT(rc, VOFF_GRO_PASS);
	}
	voff_gro_flush_all(g);
}

/* GRO(GSO(x)) == x for one case. */
static void gro_gso_case(const struct rt *c)
{
	static struct voff_pkt *segs[MAX_SEGS];
	struct voff_pool *pool;
	struct voff_gro *g;
	struct voff_pkt y;
	struct built xb;
	unsigned int n;

	CHECK_OK(voff_pool_new(&pool, MAX_SEGS, 2048));
	g = mkgro(c);
	n = gso_x(c, pool, segs, &xb);
	feed(g, c, segs, n, true);
	CHECK(take(g, c, &y));
	CHECK_EQ(y.len, xb.len);
	CHECK_EQ(y.l3_off, xb.l3);
	CHECK_EQ(y.l4_off, xb.l4);
	CHECK_EQ(y.payload_off, xb.pay);
	CHECK_EQ(y.hdr_len, xb.pay);
	if (n >= 2) {
		CHECK_EQ(y.gso_type, gso_type_of(c));
		CHECK_EQ(y.gso_size, c->mss);
		CHECK_EQ(y.gso_segs, n);
		CHECK_EQ(y.csum, VOFF_CSUM_PARTIAL);
		CHECK_EQ(y.csum_start, xb.l4);
		CHECK_EQ(y.csum_offset, c->udp ? 6 : 16);
		CHECK_OK(voff_pkt_csum_complete(&y));
	} else {
		CHECK_EQ(y.gso_type, 0);
		CHECK_EQ(y.gso_segs, 0);
		/* Partial from GSO's partial mode: still a plain frame. */
		CHECK_OK(voff_pkt_csum_complete(&y));
	}
	check_bytes(voff_pkt_data(&y), xbuf, xb.len, c, xb.l4);
	CHECK(!take(g, c, &y));
	voff_gro_free(g);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* GSO(GRO(segments)) == segments for one case. */
static void gso_gro_case(const struct rt *c)
{
	static struct voff_pkt *segs[MAX_SEGS], *back[MAX_SEGS];
	static uint8_t sbuf[BUF];
	struct voff_pool *pool;
	struct voff_gro *g;
	struct voff_pkt y;
	unsigned int n = nseg_of(c);
	int m;

	CHECK_OK(voff_pool_new(&pool, 2 * MAX_SEGS, 2048));
	g = mkgro(c);
	for (unsigned int i = 0; i < n; i++) {
		struct built sb = build(c, (int)i, n, sbuf);

		CHECK_OK(voff_pkt_alloc(pool, &segs[i]));
		CHECK_OK(voff_pkt_set_data(segs[i], sbuf, (uint32_t)sb.len));
	}
	feed(g, c, segs, n, true);
	CHECK(take(g, c, &y));
	CHECK_EQ(y.gso_segs, n);
	m = voff_gso_segment(&y, NULL, pool, back, MAX_SEGS);
	CHECK_EQ(m, (int)n);
	for (unsigned int i = 0; i < n; i++) {
		struct built sb = build(c, (int)i, n, sbuf);

		CHECK_EQ(back[i]->len, sb.len);
		check_bytes(voff_pkt_data(back[i]), sbuf, sb.len, c, sb.l4);
		CHECK_EQ(back[i]->gso_type, 0);
		CHECK_EQ(back[i]->csum, VOFF_CSUM_NONE);
	}
	voff_pkt_free_bulk(back, n);
	CHECK(!take(g, c, &y));
	voff_gro_free(g);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_gro_of_gso(void)
{
	struct rt c;

	for (int i = 0; i < 600; i++) {
		gen(&c, false);
		gro_gso_case(&c);
	}
}

static void t_gso_of_gro(void)
{
	struct rt c;

	rng ^= 0xA5A5A5A5u;
	for (int i = 0; i < 300; i++) {
		gen(&c, false);
		gso_gro_case(&c);
	}
}

/*
 * A super-packet of one segment: GSO gives one plain frame, GRO holds it
 * and gives it back without GSO metadata.
 */
static void t_one_segment(void)
{
	struct rt c;

	rng ^= 0x77u;
	for (int i = 0; i < 100; i++) {
		gen(&c, false);
		c.pay = 1 + rnd(c.mss);
		/* A lone PSH/FIN segment is never held: it would pass. */
		c.flags &= (uint8_t)~(TF_PSH | TF_FIN);
		gro_gso_case(&c);
	}
}

/*
 * CWR (6.18.44): GSO puts it on the first segment, whose head then takes
 * no followers: the first segment leaves alone, the rest merge.
 */
static void t_cwr(void)
{
	static struct voff_pkt *segs[MAX_SEGS];
	struct voff_pool *pool;
	struct rt c;

	rng ^= 0xC3u;
	CHECK_OK(voff_pool_new(&pool, MAX_SEGS, 2048));
	for (int i = 0; i < 100; i++) {
		struct voff_gro *g;
		struct voff_pkt y;
		struct built xb;
		unsigned int n;
		uint32_t rest;

		do
			gen(&c, true);
		while (c.udp);
		c.flags &= (uint8_t)~(TF_PSH | TF_FIN);
		g = mkgro(&c);
		n = gso_x(&c, pool, segs, &xb);
		feed(g, &c, segs, n, false);
		CHECK(take(g, &c, &y));
		CHECK_EQ(y.gso_type, 0);
		CHECK_EQ(y.len, xb.pay + c.mss);
		CHECK_EQ(voff_pkt_data(&y)[xb.l4 + 13] & TF_CWR, TF_CWR);
		CHECK(take(g, &c, &y));
		rest = c.pay - c.mss;
		CHECK_EQ(y.len, xb.pay + rest);
		CHECK_EQ(y.gso_segs, n - 1 >= 2 ? n - 1 : 0);
		CHECK_EQ(voff_pkt_data(&y)[xb.l4 + 13] & TF_CWR, 0);
		CHECK(!memcmp(voff_pkt_data(&y) + xb.pay, payload + c.mss,
			      rest));
		CHECK(!take(g, &c, &y));
		voff_gro_free(g);
		CHECK_EQ(voff_pool_in_use(pool), 0);
	}
	voff_pool_free(pool);
}

CHECK_MAIN(CHECK_TEST(t_gro_of_gso), CHECK_TEST(t_gso_of_gro),
	   CHECK_TEST(t_one_segment), CHECK_TEST(t_cwr))
