/* SPDX-License-Identifier: MIT */
/*
 * test_parse.c - the header parser (parse.c) and its checksum verdicts
 * (parse_csum.c)
 *
 * Frames come from the test frame builder (tests/lib/frames.h), which
 * computes lengths and checksums independently of libvoff.  Every parser
 * branch has a test asserting the exact layers, offsets, lengths and flags
 * or the exact error; two properties then cover what examples cannot:
 *  - cutting a representative frame at every length gives an error, never
 *    a success, in an exactly-sized heap buffer so ASan sees overreads;
 *  - random byte changes never crash the parser, and any success describes
 *    a frame consistent with its length (checked by invariants() and by
 *    voff_parse_csum_check() accepting the result).
 *
 * With VOFF_PARSE_CORPUS_OUT=DIR, t_dump_corpus writes the frames of the
 * two tables below as seeds for fuzz/corpus/parse/ (first byte: start).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/parse.h>
#include <voff/pkt.h>

#include "check.h"
#include "frames.h"

#define NONE VOFF_OFF_NONE
#define FRAME_CAP 8192

/* ---- helpers ---------------------------------------------------------- */

/* Parse a copy of @frame in a heap buffer of exactly @len bytes. */
static int parse_exact(const uint8_t *frame, size_t len,
		       enum voff_parse_start start, struct voff_parsed *p)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	CHECK(copy != NULL);
	if (len)
		memcpy(copy, frame, len);
	rc = voff_parse(copy, len, start, p);
	free(copy);
	return rc;
}

struct lay {
	int proto;
	int off;
	int len;
};

static void check_layers_(const struct voff_parsed *p, const struct lay *w,
			  size_t n, int line)
{
	CHECK_MSG(p->n_layers == n, "line %d: %u layers, want %zu", line,
		  p->n_layers, n);
	for (size_t i = 0; i < n; i++) {
		const struct voff_layer *l = &p->layers[i];

		CHECK_MSG(l->proto == w[i].proto && l->off == w[i].off &&
				  l->len == w[i].len,
			  "line %d: layer %zu is %s@%u/%u, want %s@%d/%d", line,
			  i, voff_proto_name(l->proto), l->off, l->len,
			  voff_proto_name(w[i].proto), w[i].off, w[i].len);
	}
}

#define LAYERS(p, ...)                                                       \
	check_layers_(p, (const struct lay[]){ __VA_ARGS__ },                \
		      sizeof((const struct lay[]){ __VA_ARGS__ }) /           \
			      sizeof(struct lay),                            \
		      __LINE__)

#define L(proto, off, len) { VOFF_PROTO_##proto, (off), (len) }

/*
 * Properties of every successful parse: layers contiguous from the start
 * and inside the frame, summary offsets naming a recorded layer of the
 * right kind, payload and L3 end inside the frame.
 */
static void invariants(const struct voff_parsed *p, size_t len)
{
	size_t at = 0;

	CHECK_LE(p->n_layers, VOFF_PARSE_MAX_LAYERS);
	CHECK_GT(p->n_layers, 0);
	for (unsigned int i = 0; i < p->n_layers; i++) {
		CHECK_EQ(p->layers[i].off, at);
		CHECK_GT(p->layers[i].len, 0);
		at += p->layers[i].len;
		CHECK_LE(at, len);
		CHECK_LT(at, 0xFFFF);
		CHECK(p->layers[i].proto > VOFF_PROTO_NONE &&
		      p->layers[i].proto < VOFF_PROTO__COUNT);
	}
	CHECK_LE(p->l3_end, len);
	CHECK_LE(p->payload_off, p->l3_end);
	CHECK_GE(p->payload_off, 1);
	CHECK_LE(p->n_vlan, VOFF_PARSE_MAX_VLAN);
	const uint16_t offs[] = { p->l2_off,	   p->l3_off,
				  p->l4_off,	   p->tunnel_off,
				  p->inner_l2_off, p->inner_l3_off,
				  p->inner_l4_off };
	for (size_t k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
		bool found = offs[k] == NONE;

		for (unsigned int i = 0; i < p->n_layers && !found; i++)
			found = p->layers[i].off == offs[k];
		CHECK_MSG(found, "summary offset %zu (%u) names no layer", k,
			  offs[k]);
	}
	CHECK_EQ(p->tunnel != 0, p->tunnel_off != NONE);
	CHECK_EQ(p->tunnel != 0, (p->flags & VOFF_PF_TUNNEL) != 0);
	if (p->l3_off == NONE)
		CHECK_EQ(p->l3_proto, 0);
	else
		CHECK(p->l3_proto == 4 || p->l3_proto == 6);
}

static void init_frame(struct tf *b, uint8_t *buf)
{
	tf_init(b, buf, FRAME_CAP);
}

static size_t finish(struct tf *b)
{
	size_t len = tf_finish(b);

	CHECK_GT(len, 0);
	return len;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* ---- representative valid frames ------------------------------------- */

struct frame_case {
	const char *name;
	enum voff_parse_start start;
	size_t (*build)(uint8_t *buf);
};

static size_t f_v4_tcp(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .id = 7 });
	tf_tcp(&b, &(struct tf_l4){ .seq = 1, .flags = TF_ACK, .opt_len = 12,
				    .tsval = 5 });
	tf_payload(&b, 100, 0);
	return finish(&b);
}

static size_t f_vlan_v4opt_tcp(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_vlan(&b, TF_TPID_8021Q, 10);
	tf_ipv4(&b, &(struct tf_ip){ .opt_len = 8 });
	tf_tcp(&b, &(struct tf_l4){ .opt_len = 4, .flags = TF_SYN });
	tf_payload(&b, 20, 3);
	return finish(&b);
}

static size_t f_qinq_v6_udp(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_vlan(&b, TF_TPID_8021AD, 100);
	tf_vlan(&b, TF_TPID_8021Q, 200);
	tf_ipv6(&b, &(struct tf_ip){ .flow = 0x12345 });
	tf_udp(&b, &(struct tf_l4){ .sport = 5000, .dport = 53 });
	tf_payload(&b, 31, 9);
	return finish(&b);
}

static size_t f_v6_ext_tcp(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_HOPOPTS, 8);
	tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 16);
	tf_ipv6_ext(&b, TF_EXT_ROUTING, 24);
	tf_ipv6_frag(&b, 0, true, 0x1234);
	tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 8);
	tf_tcp(&b, &(struct tf_l4){ .opt_len = 12 });
	tf_payload(&b, 40, 1);
	return finish(&b);
}

static size_t f_v6_frag_later(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ .proto = 0 });
	tf_ipv6_frag(&b, 185, false, 99);
	tf_udp(&b, &(struct tf_l4){ 0 });	/* data that looks like UDP */
	tf_payload(&b, 50, 2);
	return finish(&b);
}

static size_t f_v4_frag_first(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .mf = true, .id = 3 });
	tf_udp(&b, &(struct tf_l4){ .dport = 4789 });
	tf_payload(&b, 64, 4);
	return finish(&b);
}

static size_t f_vxlan(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	tf_udp(&b, &(struct tf_l4){ .sport = 49152 });
	tf_vxlan(&b, 42);
	tf_eth(&b);
	tf_vlan(&b, TF_TPID_8021Q, 5);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK | TF_PSH });
	tf_payload(&b, 60, 7);
	return finish(&b);
}

static size_t f_vxlan6(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_vxlan(&b, 7);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 8);
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 17, 8);
	return finish(&b);
}

static size_t f_geneve(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_geneve(&b, 1000, 12);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ .opt_len = 12 });
	tf_payload(&b, 30, 5);
	return finish(&b);
}

static size_t f_geneve_ip(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_geneve(&b, 1, 0);
	tf_ipv4(&b, &(struct tf_ip){ .opt_len = 4 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 11, 6);
	return finish(&b);
}

static size_t f_gre_teb(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, true, true, true);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 25, 5);
	return finish(&b);
}

static size_t f_gre_ip6(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, false, true, false);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ .opt_len = 4 });
	tf_payload(&b, 10, 5);
	return finish(&b);
}

static size_t f_gre_ip4(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, true, false, false);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 13, 5);
	return finish(&b);
}

static size_t f_vxlan_in_vxlan(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_vxlan(&b, 1);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_vxlan(&b, 2);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ 0 });
	return finish(&b);
}

static size_t f_raw_v4(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ .opt_len = 12 });
	tf_payload(&b, 33, 0);
	return finish(&b);
}

static size_t f_raw_v6(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_HOPOPTS, 8);
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 9, 0);
	return finish(&b);
}

static const struct frame_case valid_frames[] = {
	{ "v4_tcp", VOFF_PARSE_ETH, f_v4_tcp },
	{ "vlan_v4opt_tcp", VOFF_PARSE_ETH, f_vlan_v4opt_tcp },
	{ "qinq_v6_udp", VOFF_PARSE_ETH, f_qinq_v6_udp },
	{ "v6_ext_tcp", VOFF_PARSE_ETH, f_v6_ext_tcp },
	{ "v6_frag_later", VOFF_PARSE_ETH, f_v6_frag_later },
	{ "v4_frag_first", VOFF_PARSE_ETH, f_v4_frag_first },
	{ "vxlan", VOFF_PARSE_ETH, f_vxlan },
	{ "vxlan6", VOFF_PARSE_ETH, f_vxlan6 },
	{ "geneve", VOFF_PARSE_ETH, f_geneve },
	{ "geneve_ip", VOFF_PARSE_ETH, f_geneve_ip },
	{ "gre_teb", VOFF_PARSE_ETH, f_gre_teb },
	{ "gre_ip6", VOFF_PARSE_ETH, f_gre_ip6 },
	{ "gre_ip4", VOFF_PARSE_ETH, f_gre_ip4 },
	{ "vxlan_in_vxlan", VOFF_PARSE_ETH, f_vxlan_in_vxlan },
	{ "raw_v4", VOFF_PARSE_IP, f_raw_v4 },
	{ "raw_v6", VOFF_PARSE_IP, f_raw_v6 },
};

#define N_VALID (sizeof(valid_frames) / sizeof(valid_frames[0]))

/* ---- malformed frames: each with its exact error and layers kept ------- */

struct bad_case {
	const char *name;
	enum voff_parse_start start;
	size_t (*build)(uint8_t *buf);
	int err;
	unsigned int n_layers;	/* layers listed before the fault */
};

/* Outer Ethernet + IPv4 (options @opt) + TCP (options @topt) + 10 bytes. */
static size_t v4_tcp_opts(uint8_t *buf, uint8_t opt, uint8_t topt)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .opt_len = opt });
	tf_tcp(&b, &(struct tf_l4){ .opt_len = topt });
	tf_payload(&b, 10, 0);
	return finish(&b);
}

/* IPv4 option area at 34..42: a TLV whose length is 0. */
static size_t b_ipv4_opt_len0(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 8, 0);

	buf[34] = 0x44;		/* timestamp */
	buf[35] = 0;
	return len;
}

/* A TLV running past the header. */
static size_t b_ipv4_opt_long(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 8, 0);

	buf[38] = 0x44;
	buf[39] = 5;		/* 38 + 5 > 42 */
	return len;
}

/* A TLV kind in the last byte with no room for its length. */
static size_t b_ipv4_opt_nolen(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 4, 0);

	buf[34] = 1;
	buf[35] = 1;
	buf[36] = 1;
	buf[37] = 0x82;		/* security, length byte missing */
	return len;
}

static size_t b_ipv4_ihl(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 0);

	buf[14] = 0x44;
	return len;
}

static size_t b_ipv4_version(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 0);

	buf[14] = 0x65;
	return len;
}

static size_t b_ipv4_totlen(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 4, 0);

	put16(buf + 16, 23);	/* below the 24-byte header */
	return len;
}

/* IPv4 says the packet ends right after its header, TCP follows. */
static size_t b_hdr_past_l3(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 0);

	put16(buf + 16, 30);
	return len;
}

static size_t b_tcp_opt_len1(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 8);

	buf[54] = 3;		/* window scale */
	buf[55] = 1;
	return len;
}

static size_t b_tcp_opt_long(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 8);

	buf[58] = 8;
	buf[59] = 10;		/* 58 + 10 > 62 */
	return len;
}

static size_t b_tcp_doff_small(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 0);

	buf[46] = 0x40;
	return len;
}

/* Data offset 60 bytes with 30 bytes left in the IP packet. */
static size_t b_tcp_doff_past(uint8_t *buf)
{
	size_t len = v4_tcp_opts(buf, 0, 0);

	buf[46] = 0xF0;
	return len;
}

static size_t b_udp_len(uint8_t *buf)
{
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 20, 0);
	len = finish(&b);
	put16(buf + 38, 27);	/* one less than the IP payload */
	return len;
}

static size_t b_vlan_depth(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_vlan(&b, TF_TPID_8021AD, 1);
	for (int i = 0; i < VOFF_PARSE_MAX_VLAN; i++)
		tf_vlan(&b, TF_TPID_8021Q, (uint16_t)(2 + i));
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	return finish(&b);
}

/* IPv6 with @n destination-options headers, then UDP. */
static size_t v6_n_ext(uint8_t *buf, int n)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	for (int i = 0; i < n; i++)
		tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 8);
	tf_udp(&b, &(struct tf_l4){ 0 });
	return finish(&b);
}

static size_t b_ipv6_ext_depth(uint8_t *buf)
{
	return v6_n_ext(buf, VOFF_PARSE_MAX_IPV6_EXT + 1);
}

static size_t b_ipv6_hbh_late(uint8_t *buf)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 8);
	tf_ipv6_ext(&b, TF_EXT_HOPOPTS, 8);
	tf_udp(&b, &(struct tf_l4){ 0 });
	return finish(&b);
}

/* PadN in a destination-options header claiming one byte too many. */
static size_t b_ipv6_opt(uint8_t *buf)
{
	size_t len = v6_n_ext(buf, 1);

	buf[54 + 3] = 5;	/* 2 + 2 + 5 > 8 */
	return len;
}

static size_t b_ipv6_version(uint8_t *buf)
{
	size_t len = v6_n_ext(buf, 0);

	buf[14] = 0x45;
	return len;
}

/* Raw IPv6 whose payload length is 0 but says UDP follows. */
static size_t b_ipv6_plen0(uint8_t *buf)
{
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	put16(buf + 4, 0);
	return len;
}

/* VXLAN (or Geneve) over IPv4, inner Ethernet + IPv4 + UDP. */
static size_t udp_tunnel(uint8_t *buf, bool geneve, uint8_t gopt)
{
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	if (geneve)
		tf_geneve(&b, 9, gopt);
	else
		tf_vxlan(&b, 9);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 8, 0);
	return finish(&b);
}

static size_t b_vxlan_flags(uint8_t *buf)
{
	size_t len = udp_tunnel(buf, false, 0);

	buf[42] = 0x00;
	return len;
}

static size_t b_geneve_ver(uint8_t *buf)
{
	size_t len = udp_tunnel(buf, true, 8);

	buf[42] |= 0x40;
	return len;
}

/* Geneve option length 1 word longer than the 8-byte option area. */
static size_t b_geneve_opt(uint8_t *buf)
{
	size_t len = udp_tunnel(buf, true, 8);

	buf[50 + 3] = 2;
	return len;
}

/* The inner IPv4 says 4 bytes more than the outer UDP carries. */
static size_t b_inner_len(uint8_t *buf)
{
	size_t len = udp_tunnel(buf, false, 0);

	put16(buf + 64 + 2, 20 + 8 + 8 + 4);
	return len;
}

/* GRE over IPv4 carrying IPv4 + UDP; @flags0 poked into the first byte. */
static size_t gre_frame(uint8_t *buf, uint8_t byte0, uint8_t byte1)
{
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, false, false, false);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	buf[34] |= byte0;
	buf[35] |= byte1;
	return len;
}

static size_t b_gre_ver1(uint8_t *buf)
{
	return gre_frame(buf, 0, 1);
}

static size_t b_gre_routing(uint8_t *buf)
{
	return gre_frame(buf, 0x40, 0);
}

static size_t b_gre_recur(uint8_t *buf)
{
	return gre_frame(buf, 0x01, 0);
}

/* GRE with an inner IPv6 header but protocol type 0x0800. */
static size_t b_gre_inner_version(uint8_t *buf)
{
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, false, false, false);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	len = finish(&b);
	put16(buf + 36, 0x0800);
	return len;
}

/* Ethernet, 4 VLAN tags, IPv6 with 8 extension headers and UDP: 15. */
static size_t deep_eth(uint8_t *buf, size_t cap, bool vxlan,
		       const uint8_t *inner, size_t inner_len)
{
	struct tf b;

	tf_init(&b, buf, cap);
	tf_eth(&b);
	for (int i = 0; i < VOFF_PARSE_MAX_VLAN; i++)
		tf_vlan(&b, TF_TPID_8021Q, 1);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	for (int i = 0; i < VOFF_PARSE_MAX_IPV6_EXT; i++)
		tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 8);
	tf_udp(&b, &(struct tf_l4){ 0 });
	if (vxlan)
		tf_vxlan(&b, 1);
	if (inner_len)
		tf_bytes(&b, inner, inner_len);
	return finish(&b);
}

/*
 * More headers than VOFF_PARSE_MAX_LAYERS: that stack twice around a VXLAN
 * tunnel makes 15 + 1 + 15 = 31 (the inner one is built apart, as the
 * builder holds TF_MAX_HDRS headers).
 */
static size_t b_layer_depth(uint8_t *buf)
{
	uint8_t inner[512];
	size_t n = deep_eth(inner, sizeof(inner), false, NULL, 0);

	return deep_eth(buf, FRAME_CAP, true, inner, n);
}

static size_t b_raw_version(uint8_t *buf)
{
	memset(buf, 0, 30);
	buf[0] = 0x55;
	return 30;
}

static size_t b_empty(uint8_t *buf)
{
	(void)buf;
	return 0;
}

static const struct bad_case bad_frames[] = {
	{ "ipv4_opt_len0", VOFF_PARSE_ETH, b_ipv4_opt_len0, VOFF_E_IPV4_OPT,
	  1 },
	{ "ipv4_opt_long", VOFF_PARSE_ETH, b_ipv4_opt_long, VOFF_E_IPV4_OPT,
	  1 },
	{ "ipv4_opt_nolen", VOFF_PARSE_ETH, b_ipv4_opt_nolen,
	  VOFF_E_IPV4_OPT, 1 },
	{ "ipv4_ihl", VOFF_PARSE_ETH, b_ipv4_ihl, VOFF_E_IPV4_IHL, 1 },
	{ "ipv4_version", VOFF_PARSE_ETH, b_ipv4_version, VOFF_E_IP_VERSION,
	  1 },
	{ "ipv4_totlen", VOFF_PARSE_ETH, b_ipv4_totlen, VOFF_E_IPV4_TOTLEN,
	  1 },
	{ "hdr_past_l3", VOFF_PARSE_ETH, b_hdr_past_l3, VOFF_E_HDR_PAST_L3,
	  2 },
	{ "tcp_opt_len1", VOFF_PARSE_ETH, b_tcp_opt_len1, VOFF_E_TCP_OPT, 2 },
	{ "tcp_opt_long", VOFF_PARSE_ETH, b_tcp_opt_long, VOFF_E_TCP_OPT, 2 },
	{ "tcp_doff_small", VOFF_PARSE_ETH, b_tcp_doff_small, VOFF_E_TCP_DOFF,
	  2 },
	{ "tcp_doff_past", VOFF_PARSE_ETH, b_tcp_doff_past, VOFF_E_TCP_DOFF,
	  2 },
	{ "udp_len", VOFF_PARSE_ETH, b_udp_len, VOFF_E_UDP_LEN, 2 },
	{ "vlan_depth", VOFF_PARSE_ETH, b_vlan_depth, VOFF_E_VLAN_DEPTH, 5 },
	{ "ipv6_ext_depth", VOFF_PARSE_ETH, b_ipv6_ext_depth,
	  VOFF_E_IPV6_EXT_DEPTH, 10 },
	{ "ipv6_hbh_late", VOFF_PARSE_ETH, b_ipv6_hbh_late, VOFF_E_IPV6_EXT,
	  3 },
	{ "ipv6_opt", VOFF_PARSE_ETH, b_ipv6_opt, VOFF_E_IPV6_OPT, 2 },
	{ "ipv6_version", VOFF_PARSE_ETH, b_ipv6_version, VOFF_E_IP_VERSION,
	  1 },
	{ "ipv6_plen0", VOFF_PARSE_IP, b_ipv6_plen0, VOFF_E_HDR_PAST_L3, 1 },
	{ "vxlan_flags", VOFF_PARSE_ETH, b_vxlan_flags, VOFF_E_VXLAN_FLAGS,
	  3 },
	{ "geneve_ver", VOFF_PARSE_ETH, b_geneve_ver, VOFF_E_GENEVE_VER, 3 },
	{ "geneve_opt", VOFF_PARSE_ETH, b_geneve_opt, VOFF_E_GENEVE_OPT, 3 },
	{ "inner_len", VOFF_PARSE_ETH, b_inner_len, VOFF_E_INNER_L3_LEN, 5 },
	{ "gre_ver1", VOFF_PARSE_ETH, b_gre_ver1, VOFF_E_GRE_VER, 2 },
	{ "gre_routing", VOFF_PARSE_ETH, b_gre_routing, VOFF_E_GRE_VER, 2 },
	{ "gre_recur", VOFF_PARSE_ETH, b_gre_recur, VOFF_E_GRE_VER, 2 },
	{ "gre_inner_version", VOFF_PARSE_ETH, b_gre_inner_version,
	  VOFF_E_IP_VERSION, 3 },
	{ "layer_depth", VOFF_PARSE_ETH, b_layer_depth, VOFF_E_LAYER_DEPTH,
	  VOFF_PARSE_MAX_LAYERS },
	{ "raw_version", VOFF_PARSE_IP, b_raw_version, VOFF_E_IP_VERSION, 0 },
	{ "raw_empty", VOFF_PARSE_IP, b_empty, VOFF_E_TRUNC_IPV4, 0 },
	{ "eth_empty", VOFF_PARSE_ETH, b_empty, VOFF_E_TRUNC_ETH, 0 },
};

#define N_BAD (sizeof(bad_frames) / sizeof(bad_frames[0]))

/* ---- tests: plain frames ---------------------------------------------- */

static void t_v4_tcp(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_v4_tcp(buf);

	CHECK_EQ(len, 14 + 20 + 32 + 100);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(TCP, 34, 32));
	CHECK_EQ(p.flags, 0);
	CHECK_EQ(p.n_vlan, 0);
	CHECK_EQ(p.l2_off, 0);
	CHECK_EQ(p.l3_off, 14);
	CHECK_EQ(p.l3_proto, 4);
	CHECK_EQ(p.l4_off, 34);
	CHECK_EQ(p.l4_proto, 6);
	CHECK_EQ(p.l3_end, len);
	CHECK_EQ(p.payload_off, 66);
	CHECK_EQ(p.tunnel, 0);
	CHECK_EQ(p.tunnel_off, NONE);
	CHECK_EQ(p.inner_l2_off, NONE);
	CHECK_EQ(p.inner_l3_off, NONE);
	CHECK_EQ(p.inner_l3_proto, 0);
	CHECK_EQ(p.inner_l4_off, NONE);
	CHECK_EQ(p.inner_l4_proto, 0);
	invariants(&p, len);
}

static void t_v6_udp_qinq(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_qinq_v6_udp(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(QINQ, 14, 4), L(VLAN, 18, 4),
	       L(IPV6, 22, 40), L(UDP, 62, 8));
	CHECK_EQ(p.n_vlan, 2);
	CHECK_EQ(p.vlan_tci[0], 100);
	CHECK_EQ(p.vlan_tci[1], 200);
	CHECK_EQ(p.l3_off, 22);
	CHECK_EQ(p.l3_proto, 6);
	CHECK_EQ(p.l4_off, 62);
	CHECK_EQ(p.l4_proto, 17);
	CHECK_EQ(p.l3_end, len);
	CHECK_EQ(p.payload_off, 70);
	CHECK_EQ(p.flags, 0);
	invariants(&p, len);
}

static void t_vlan_stack(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;

	for (int n = 1; n <= VOFF_PARSE_MAX_VLAN + 1; n++) {
		struct tf b;
		size_t len;
		int rc;

		init_frame(&b, buf);
		tf_eth(&b);
		for (int i = 0; i < n; i++)
			tf_vlan(&b, i == 0 ? TF_TPID_8021AD : TF_TPID_8021Q,
				(uint16_t)(0x1000 + i));
		tf_ipv4(&b, &(struct tf_ip){ 0 });
		tf_udp(&b, &(struct tf_l4){ 0 });
		len = finish(&b);
		rc = parse_exact(buf, len, VOFF_PARSE_ETH, &p);
		if (n > VOFF_PARSE_MAX_VLAN) {
			CHECK_EQ(rc, VOFF_E_VLAN_DEPTH);
			CHECK_EQ(p.n_layers, 1 + VOFF_PARSE_MAX_VLAN);
			CHECK_EQ(p.n_vlan, VOFF_PARSE_MAX_VLAN);
			CHECK_EQ(p.l3_off, NONE);
			continue;
		}
		CHECK_OK(rc);
		CHECK_EQ(p.n_vlan, n);
		CHECK_EQ(p.n_layers, 1 + n + 2);
		CHECK_EQ(p.layers[1].proto, VOFF_PROTO_QINQ);
		for (int i = 0; i < n; i++) {
			CHECK_EQ(p.vlan_tci[i], 0x1000 + i);
			CHECK_EQ(p.layers[1 + i].off, 14 + 4 * i);
			CHECK_EQ(p.layers[1 + i].len, 4);
			if (i)
				CHECK_EQ(p.layers[1 + i].proto,
					 VOFF_PROTO_VLAN);
		}
		CHECK_EQ(p.l3_off, 14 + 4 * n);
		CHECK_EQ(p.l4_off, 14 + 4 * n + 20);
		invariants(&p, len);
	}
}

static void t_ipv4_options(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	static const uint8_t opts[] = { 4, 8, 12, 40 };

	for (size_t i = 0; i < sizeof(opts); i++) {
		size_t len = v4_tcp_opts(buf, opts[i], 0);

		CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
		LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20 + opts[i]),
		       L(TCP, 34 + opts[i], 20));
		CHECK_EQ(p.flags, VOFF_PF_IPV4_OPTS);
		CHECK_EQ(p.payload_off, 54 + opts[i]);
		invariants(&p, len);
	}
	/* EOL ends the list: what follows it is padding, not options. */
	size_t len = v4_tcp_opts(buf, 8, 0);

	buf[34] = 1;
	buf[35] = 0;
	buf[36] = 0xFF;
	buf[37] = 0xFF;
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.layers[1].len, 28);
	/* A single TLV filling the whole area exactly. */
	buf[34] = 0x44;
	buf[35] = 8;
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
}

static void t_ipv4_frag_first(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_v4_frag_first(buf);

	/* The UDP length covers 8 + 64 here, but would be checked against
	 * the reassembled datagram: make it disagree, it is not checked. */
	put16(buf + 38, 1000);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	/* UDP port 4789, but a fragment's tunnel is not entered. */
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(UDP, 34, 8));
	CHECK_EQ(p.flags, VOFF_PF_FRAG | VOFF_PF_FRAG_FIRST);
	CHECK_EQ(p.l4_off, 34);
	CHECK_EQ(p.tunnel, 0);
	CHECK_EQ(p.payload_off, 42);
	invariants(&p, len);

	/* A first fragment too short for the TCP header: no L4, no error
	 * (the IPv4 header checksum, now wrong, is not the parser's). */
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .mf = true });
	tf_tcp(&b, &(struct tf_l4){ .opt_len = 8 });
	len = finish(&b);
	CHECK_EQ(len, 62);
	put16(buf + 16, 20 + 16);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20));
	CHECK_EQ(p.l4_off, NONE);
	CHECK_EQ(p.l4_proto, 6);
	CHECK_EQ(p.l3_end, 50);
	CHECK_EQ(p.flags, VOFF_PF_FRAG | VOFF_PF_FRAG_FIRST | VOFF_PF_PADDED);
	CHECK_EQ(p.payload_off, 34);
	/* ... and the TCP header is complete but its options are not. */
	put16(buf + 16, 20 + 24);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 2);
	/* The same in a whole packet is an error. */
	put16(buf + 20, 0);
	CHECK_EQ(parse_exact(buf, len, VOFF_PARSE_ETH, &p), VOFF_E_TCP_DOFF);
}

static void t_ipv4_frag_later(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .frag_off = 185, .mf = true });
	tf_tcp(&b, &(struct tf_l4){ 0 });	/* bytes that look like TCP */
	len = finish(&b);
	buf[46] = 0x10;	/* an impossible data offset, not looked at */
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20));
	CHECK_EQ(p.flags, VOFF_PF_FRAG);
	CHECK_EQ(p.l4_off, NONE);
	CHECK_EQ(p.l4_proto, 6);
	CHECK_EQ(p.payload_off, 34);
	invariants(&p, len);
	/* The last fragment (no MF) is a fragment too. */
	buf[20] = 0;
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.flags, VOFF_PF_FRAG);
}

static void t_ipv6_ext_each(void)
{
	static const uint8_t types[] = { TF_EXT_HOPOPTS, TF_EXT_ROUTING,
					 TF_EXT_DSTOPTS, TF_EXT_FRAG };
	static const int protos[] = { VOFF_PROTO_IPV6_HOPOPTS,
				      VOFF_PROTO_IPV6_ROUTING,
				      VOFF_PROTO_IPV6_DSTOPTS,
				      VOFF_PROTO_IPV6_FRAG };
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;

	for (size_t i = 0; i < sizeof(types); i++) {
		size_t elen = types[i] == TF_EXT_FRAG ? 8 : 8 * (i + 1);
		struct tf b;
		size_t len;

		init_frame(&b, buf);
		tf_eth(&b);
		tf_ipv6(&b, &(struct tf_ip){ 0 });
		tf_ipv6_ext(&b, types[i], elen);
		tf_tcp(&b, &(struct tf_l4){ 0 });
		tf_payload(&b, 3, 0);
		len = finish(&b);
		CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
		LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40),
		       { protos[i], 54, (int)elen }, L(TCP, 54 + elen, 20));
		/* An atomic fragment (offset 0, no M) is a whole packet. */
		CHECK_EQ(p.flags, VOFF_PF_IPV6_EXT);
		CHECK_EQ(p.l4_off, 54 + elen);
		CHECK_EQ(p.l4_proto, 6);
		CHECK_EQ(p.payload_off, 74 + elen);
		invariants(&p, len);
	}
}

static void t_ipv6_ext_chain(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_v6_ext_tcp(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(IPV6_HOPOPTS, 54, 8),
	       L(IPV6_DSTOPTS, 62, 16), L(IPV6_ROUTING, 78, 24),
	       L(IPV6_FRAG, 102, 8), L(IPV6_DSTOPTS, 110, 8),
	       L(TCP, 118, 32));
	CHECK_EQ(p.flags,
		 VOFF_PF_IPV6_EXT | VOFF_PF_FRAG | VOFF_PF_FRAG_FIRST);
	CHECK_EQ(p.l4_off, 118);
	CHECK_EQ(p.payload_off, 150);
	invariants(&p, len);

	/* The most extension headers allowed. */
	len = v6_n_ext(buf, VOFF_PARSE_MAX_IPV6_EXT);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 2 + VOFF_PARSE_MAX_IPV6_EXT + 1);
	CHECK_EQ(p.l4_off, 54 + 8 * VOFF_PARSE_MAX_IPV6_EXT);

	/* A 2048-byte header (the largest length field). */
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_HOPOPTS, 2048);
	tf_udp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.layers[2].len, 2048);
	CHECK_EQ(p.l4_off, 54 + 2048);
}

static void t_ipv6_frag_later(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_v6_frag_later(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(IPV6_FRAG, 54, 8));
	CHECK_EQ(p.flags, VOFF_PF_IPV6_EXT | VOFF_PF_FRAG);
	CHECK_EQ(p.l4_off, NONE);
	CHECK_EQ(p.l4_proto, 17);
	CHECK_EQ(p.payload_off, 62);
	invariants(&p, len);
	/* A first fragment (offset 0, M set) goes on to the UDP header, and
	 * does not check its length. */
	put16(buf + 56, 1);
	put16(buf + 62 + 4, 999);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(IPV6_FRAG, 54, 8),
	       L(UDP, 62, 8));
	CHECK_EQ(p.flags,
		 VOFF_PF_IPV6_EXT | VOFF_PF_FRAG | VOFF_PF_FRAG_FIRST);
}

static void t_tcp_options(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	static const uint8_t opts[] = { 4, 8, 12, 20, 40 };

	for (size_t i = 0; i < sizeof(opts); i++) {
		size_t len = v4_tcp_opts(buf, 0, opts[i]);

		CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
		LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20),
		       L(TCP, 34, 20 + opts[i]));
		CHECK_EQ(p.payload_off, 54 + opts[i]);
	}
	/* SACK blocks, EOL then garbage. */
	size_t len = v4_tcp_opts(buf, 0, 20);
	static const uint8_t o[20] = { 1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2,
				       0, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE,
				       0xEE };

	memcpy(buf + 54, o, sizeof(o));
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.layers[2].len, 40);
}

static void t_udp(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	/* An empty datagram, and one to a port near the tunnel ports. */
	for (int port = 4788; port <= 4790; port += 2) {
		init_frame(&b, buf);
		tf_eth(&b);
		tf_ipv4(&b, &(struct tf_ip){ 0 });
		tf_udp(&b, &(struct tf_l4){ .dport = (uint16_t)port });
		len = finish(&b);
		CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
		LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(UDP, 34, 8));
		CHECK_EQ(p.payload_off, 42);
		CHECK_EQ(p.payload_off, p.l3_end);
	}
	/* A length one more than the IP payload. */
	put16(buf + 38, 9);
	CHECK_EQ(parse_exact(buf, len, VOFF_PARSE_ETH, &p), VOFF_E_UDP_LEN);
	CHECK_EQ(p.n_layers, 2);
	CHECK_EQ(p.l4_off, NONE);
}

static void t_padding(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	/* A 42-byte ARP-sized frame padded to 60 bytes. */
	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	memset(buf + len, 0, 18);
	CHECK_OK(parse_exact(buf, len + 18, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.flags, VOFF_PF_PADDED);
	CHECK_EQ(p.l3_end, 42);
	CHECK_EQ(p.payload_off, 42);
	invariants(&p, len + 18);
	/* Without padding no flag; one byte short is a truncated packet,
	 * which still lists every header. */
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.flags, 0);
	len = f_v4_tcp(buf);
	CHECK_EQ(parse_exact(buf, len - 1, VOFF_PARSE_ETH, &p),
		 VOFF_E_TRUNC_L3);
	CHECK_EQ(p.n_layers, 3);
	CHECK_EQ(p.l3_end, len);
	/* Padding after an IPv6 packet too. */
	len = f_qinq_v6_udp(buf);
	buf[len] = 0xAA;
	CHECK_OK(parse_exact(buf, len + 1, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.flags, VOFF_PF_PADDED);
	CHECK_EQ(p.l3_end, len);
}

static void t_raw_ip(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_raw_v4(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_IP, &p));
	LAYERS(&p, L(IPV4, 0, 20), L(TCP, 20, 32));
	CHECK_EQ(p.l2_off, NONE);
	CHECK_EQ(p.l3_off, 0);
	CHECK_EQ(p.l4_off, 20);
	CHECK_EQ(p.payload_off, 52);
	CHECK_EQ(p.l3_end, len);
	invariants(&p, len);
	/* The same bytes as Ethernet: an unknown EtherType, no error. */
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 1);

	len = f_raw_v6(buf);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_IP, &p));
	LAYERS(&p, L(IPV6, 0, 40), L(IPV6_HOPOPTS, 40, 8), L(UDP, 48, 8));
	CHECK_EQ(p.l2_off, NONE);
	CHECK_EQ(p.l3_proto, 6);
	CHECK_EQ(p.flags, VOFF_PF_IPV6_EXT);
	invariants(&p, len);
}

static void t_unknown_stops(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	/* Unknown EtherType after a VLAN tag. */
	init_frame(&b, buf);
	tf_eth(&b);
	tf_vlan(&b, TF_TPID_8021Q, 3);
	tf_payload(&b, 28, 0);
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(VLAN, 14, 4));
	CHECK_EQ(p.l3_off, NONE);
	CHECK_EQ(p.l3_end, len);
	CHECK_EQ(p.payload_off, 18);
	invariants(&p, len);
	/* An 802.3 length field. */
	put16(buf + 16, 0x002E);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 2);
	/* A bare Ethernet header. */
	put16(buf + 12, 0x0806);
	CHECK_OK(parse_exact(buf, 14, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 1);
	CHECK_EQ(p.payload_off, 14);

	/* Unknown IP protocol and IPv6 "no next header". */
	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_payload(&b, 10, 0);
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20));
	CHECK_EQ(p.l4_proto, 253);
	CHECK_EQ(p.l4_off, NONE);
	CHECK_EQ(p.payload_off, 34);
	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_ROUTING, 8);
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(IPV6_ROUTING, 54, 8));
	CHECK_EQ(p.l4_proto, 59);
	CHECK_EQ(p.payload_off, 62);
	CHECK_EQ(p.payload_off, p.l3_end);
}

static void t_vxlan(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_vxlan(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(UDP, 34, 8),
	       L(VXLAN, 42, 8), L(ETH, 50, 14), L(VLAN, 64, 4),
	       L(IPV4, 68, 20), L(TCP, 88, 20));
	CHECK_EQ(p.flags, VOFF_PF_TUNNEL);
	CHECK_EQ(p.n_vlan, 0);	/* inner tags are not outer tags */
	CHECK_EQ(p.l3_off, 14);
	CHECK_EQ(p.l4_off, 34);
	CHECK_EQ(p.l4_proto, 17);
	CHECK_EQ(p.tunnel, VOFF_PROTO_VXLAN);
	CHECK_EQ(p.tunnel_off, 42);
	CHECK_EQ(p.inner_l2_off, 50);
	CHECK_EQ(p.inner_l3_off, 68);
	CHECK_EQ(p.inner_l3_proto, 4);
	CHECK_EQ(p.inner_l4_off, 88);
	CHECK_EQ(p.inner_l4_proto, 6);
	CHECK_EQ(p.payload_off, 108);
	CHECK_EQ(p.l3_end, len);
	invariants(&p, len);

	/* Inner Ethernet with an unknown EtherType: the walk stops there. */
	put16(buf + 66, 0x88B5);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 6);
	CHECK_EQ(p.inner_l3_off, NONE);
	CHECK_EQ(p.payload_off, 68);

	len = f_vxlan6(buf);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(UDP, 54, 8),
	       L(VXLAN, 62, 8), L(ETH, 70, 14), L(IPV6, 84, 40),
	       L(IPV6_DSTOPTS, 124, 8), L(UDP, 132, 8));
	CHECK_EQ(p.flags, VOFF_PF_TUNNEL | VOFF_PF_INNER_IPV6_EXT);
	CHECK_EQ(p.inner_l3_proto, 6);
	CHECK_EQ(p.inner_l4_proto, 17);
	CHECK_EQ(p.payload_off, 140);
	invariants(&p, len);
}

static void t_geneve(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_geneve(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(UDP, 34, 8),
	       L(GENEVE, 42, 20), L(ETH, 62, 14), L(IPV6, 76, 40),
	       L(TCP, 116, 32));
	CHECK_EQ(p.tunnel, VOFF_PROTO_GENEVE);
	CHECK_EQ(p.tunnel_off, 42);
	CHECK_EQ(p.inner_l2_off, 62);
	CHECK_EQ(p.inner_l3_off, 76);
	CHECK_EQ(p.inner_l4_off, 116);
	CHECK_EQ(p.payload_off, 148);
	invariants(&p, len);

	/* Geneve carrying IP directly (protocol type 0x0800). */
	len = f_geneve_ip(buf);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(UDP, 54, 8),
	       L(GENEVE, 62, 8), L(IPV4, 70, 24), L(UDP, 94, 8));
	CHECK_EQ(p.flags, VOFF_PF_TUNNEL | VOFF_PF_INNER_IPV4_OPTS);
	CHECK_EQ(p.inner_l2_off, NONE);
	CHECK_EQ(p.inner_l3_off, 70);
	CHECK_EQ(p.inner_l4_off, 94);
	invariants(&p, len);

	/* The largest option area (63 words), and an unknown protocol. */
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_geneve(&b, 1, 252);
	tf_payload(&b, 20, 0);
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(UDP, 34, 8),
	       L(GENEVE, 42, 260));
	CHECK_EQ(p.tunnel, VOFF_PROTO_GENEVE);
	CHECK_EQ(p.inner_l3_off, NONE);
	CHECK_EQ(p.payload_off, 302);
}

static void t_gre(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;

	/* Every combination of checksum, key and sequence number. */
	for (int m = 0; m < 8; m++) {
		int glen = 4 + 4 * ((m & 1) + (m >> 1 & 1) + (m >> 2 & 1));
		struct tf b;
		size_t len;

		init_frame(&b, buf);
		tf_eth(&b);
		tf_ipv4(&b, &(struct tf_ip){ 0 });
		tf_gre(&b, m & 1, m & 2, m & 4);
		tf_ipv4(&b, &(struct tf_ip){ 0 });
		tf_tcp(&b, &(struct tf_l4){ 0 });
		len = finish(&b);
		CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
		LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(GRE, 34, glen),
		       L(IPV4, 34 + glen, 20), L(TCP, 54 + glen, 20));
		CHECK_EQ(p.l4_off, 34);
		CHECK_EQ(p.l4_proto, 47);
		CHECK_EQ(p.tunnel, VOFF_PROTO_GRE);
		CHECK_EQ(p.tunnel_off, 34);
		CHECK_EQ(p.inner_l2_off, NONE);
		CHECK_EQ(p.inner_l3_off, 34 + glen);
		CHECK_EQ(p.inner_l4_off, 54 + glen);
		CHECK_EQ(p.payload_off, len);
		invariants(&p, len);
	}

	size_t len = f_gre_teb(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(GRE, 34, 16),
	       L(ETH, 50, 14), L(IPV4, 64, 20), L(TCP, 84, 20));
	CHECK_EQ(p.inner_l2_off, 50);
	invariants(&p, len);

	len = f_gre_ip6(buf);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(GRE, 54, 8),
	       L(IPV6, 62, 40), L(TCP, 102, 24));
	CHECK_EQ(p.inner_l3_proto, 6);
	invariants(&p, len);

	/* Unknown GRE protocol (e.g. PPP 0x880B): tunnel entered, stop. */
	len = f_gre_ip4(buf);
	put16(buf + 36, 0x880B);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(GRE, 34, 8));
	CHECK_EQ(p.tunnel, VOFF_PROTO_GRE);
	CHECK_EQ(p.payload_off, 42);
}

static void t_tunnel_in_tunnel(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = f_vxlan_in_vxlan(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	/* The inner VXLAN header is recorded, not entered. */
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(UDP, 34, 8),
	       L(VXLAN, 42, 8), L(ETH, 50, 14), L(IPV4, 64, 20),
	       L(UDP, 84, 8), L(VXLAN, 92, 8));
	CHECK_EQ(p.tunnel_off, 42);
	CHECK_EQ(p.inner_l4_off, 84);
	CHECK_EQ(p.payload_off, 92);
	invariants(&p, len);
	/* ... but validated: without its I flag it is an error. */
	buf[92] = 0;
	CHECK_EQ(parse_exact(buf, len, VOFF_PARSE_ETH, &p),
		 VOFF_E_VXLAN_FLAGS);

	/* GRE in GRE: the inner GRE is the inner L4 header. */
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, false, true, false);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, true, false, false);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV6, 14, 40), L(GRE, 54, 8),
	       L(IPV4, 62, 20), L(GRE, 82, 8));
	CHECK_EQ(p.inner_l4_off, 82);
	CHECK_EQ(p.inner_l4_proto, 47);
	CHECK_EQ(p.payload_off, 90);
	invariants(&p, len);

	/* Geneve inside VXLAN. */
	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_vxlan(&b, 1);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_geneve(&b, 2, 4);
	tf_eth(&b);
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 8);
	CHECK_EQ(p.layers[7].proto, VOFF_PROTO_GENEVE);
	CHECK_EQ(p.layers[7].len, 12);
	CHECK_EQ(p.tunnel, VOFF_PROTO_VXLAN);
}

static void t_inner_frag(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_gre(&b, false, false, false);
	tf_ipv4(&b, &(struct tf_ip){ .frag_off = 10 });
	tf_payload(&b, 16, 0);
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(GRE, 34, 4),
	       L(IPV4, 38, 20));
	CHECK_EQ(p.flags, VOFF_PF_TUNNEL | VOFF_PF_INNER_FRAG);
	CHECK_EQ(p.inner_l4_off, NONE);
	CHECK_EQ(p.inner_l4_proto, 253);
	CHECK_EQ(p.payload_off, 58);
}

/* A first fragment carrying GRE: recorded when complete, not entered. */
static void t_gre_in_fragment(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .mf = true });
	tf_gre(&b, false, true, true);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20), L(GRE, 34, 12));
	CHECK_EQ(p.flags, VOFF_PF_FRAG | VOFF_PF_FRAG_FIRST);
	CHECK_EQ(p.tunnel, 0);
	CHECK_EQ(p.l4_off, 34);
	CHECK_EQ(p.payload_off, 46);
	invariants(&p, len);
	/* The fragment ends inside the GRE key: no L4, no error. */
	put16(buf + 16, 20 + 6);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	LAYERS(&p, L(ETH, 0, 14), L(IPV4, 14, 20));
	CHECK_EQ(p.l4_proto, 47);
	put16(buf + 16, 20 + 2);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.n_layers, 2);
}

static void t_malformed(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;

	for (size_t i = 0; i < N_BAD; i++) {
		const struct bad_case *c = &bad_frames[i];
		size_t len = c->build(buf);
		int rc = parse_exact(buf, len, c->start, &p);

		CHECK_MSG(rc == c->err, "%s: got %d (%s), want %d (%s)",
			  c->name, rc, voff_err_name(rc), c->err,
			  voff_err_name(c->err));
		CHECK_MSG(p.n_layers == c->n_layers, "%s: %u layers, want %u",
			  c->name, p.n_layers, c->n_layers);
		/* What is listed is still a consistent prefix. */
		for (unsigned int k = 1; k < p.n_layers; k++)
			CHECK_EQ(p.layers[k].off,
				 p.layers[k - 1].off + p.layers[k - 1].len);
	}
}

/* A malformed inner header: the error, with the outer headers listed. */
static void t_inner_errors(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = udp_tunnel(buf, false, 0);

	/* Inner UDP length wrong. */
	put16(buf + 84 + 4, 17);
	CHECK_EQ(parse_exact(buf, len, VOFF_PARSE_ETH, &p), VOFF_E_UDP_LEN);
	CHECK_EQ(p.n_layers, 6);
	CHECK_EQ(p.inner_l3_off, 64);
	/* Inner IPv4 shorter than the outer payload: allowed (padding). */
	len = udp_tunnel(buf, false, 0);
	put16(buf + 64 + 2, 20 + 8 + 4);
	put16(buf + 84 + 4, 12);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.flags, VOFF_PF_TUNNEL);	/* PADDED is outer only */
	CHECK_EQ(p.payload_off, 92);
	/* Inner Ethernet running past the outer IP packet. */
	len = udp_tunnel(buf, false, 0);
	put16(buf + 16, 20 + 8 + 8 + 10);
	put16(buf + 38, 8 + 8 + 10);
	CHECK_EQ(parse_exact(buf, len, VOFF_PARSE_ETH, &p),
		 VOFF_E_HDR_PAST_L3);
	CHECK_EQ(p.n_layers, 4);
	CHECK_EQ(p.tunnel, VOFF_PROTO_VXLAN);
}

static void t_layer_limit(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	size_t len = b_layer_depth(buf);

	CHECK_EQ(parse_exact(buf, len, VOFF_PARSE_ETH, &p),
		 VOFF_E_LAYER_DEPTH);
	CHECK_EQ(p.n_layers, VOFF_PARSE_MAX_LAYERS);
	/* The 24th header was the inner IPv6's second extension header. */
	CHECK_EQ(p.layers[23].proto, VOFF_PROTO_IPV6_DSTOPTS);
}

static void t_args(void)
{
	uint8_t buf[64] = { 0 };
	struct voff_parsed p;
	uint8_t *big;

	CHECK_EQ(voff_parse(buf, sizeof(buf), VOFF_PARSE_ETH, NULL), -EINVAL);
	CHECK_EQ(voff_parse(buf, sizeof(buf), (enum voff_parse_start)2, &p),
		 -EINVAL);
	CHECK_EQ(voff_parse(NULL, 10, VOFF_PARSE_ETH, &p), -EINVAL);
	CHECK_EQ(voff_parse(NULL, 0, VOFF_PARSE_ETH, &p), VOFF_E_TRUNC_ETH);
	CHECK_EQ(p.n_layers, 0);
	CHECK_EQ(voff_parse(buf, 13, VOFF_PARSE_ETH, &p), VOFF_E_TRUNC_ETH);
	/* The largest frame is accepted; one byte more is too big. */
	big = calloc(1, VOFF_PARSE_MAX_LEN + 1);
	CHECK(big != NULL);
	CHECK_OK(voff_parse(big, VOFF_PARSE_MAX_LEN, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.l3_end, VOFF_PARSE_MAX_LEN);
	CHECK_EQ(voff_parse(big, VOFF_PARSE_MAX_LEN + 1, VOFF_PARSE_ETH, &p),
		 VOFF_E_TOO_BIG);
	CHECK_EQ(p.n_layers, 0);
	free(big);
}

/* A 64 KiB IPv4 datagram behind a VXLAN header: offsets still fit. */
static void t_big_frame(void)
{
	static uint8_t buf[0x20000];
	struct voff_parsed p;
	struct tf b;
	size_t len;

	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_vxlan(&b, 3);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 65535 - 8 - 8 - 14 - 20 - 20, 0);
	len = finish(&b);
	CHECK_EQ(len, 14 + 40 + 65535);
	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.l3_end, len);
	CHECK_EQ(p.inner_l4_off, 104);
	invariants(&p, len);
}

static void t_pkt_parse(void)
{
	uint8_t buf[FRAME_CAP + 256];
	struct voff_parsed p;
	struct voff_pkt pkt;
	size_t len = f_vxlan(buf + 256);

	CHECK_OK(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 256,
				   (uint32_t)len));
	CHECK_OK(voff_pkt_parse(&pkt, VOFF_PARSE_ETH, &p));
	CHECK_EQ(pkt.l2_off, 0);
	CHECK_EQ(pkt.l3_off, 14);
	CHECK_EQ(pkt.l4_off, 34);
	CHECK_EQ(pkt.inner_l2_off, 50);
	CHECK_EQ(pkt.inner_l3_off, 68);
	CHECK_EQ(pkt.inner_l4_off, 88);
	CHECK_EQ(pkt.payload_off, 108);
	CHECK_EQ(p.n_layers, 8);
	/* Without the optional result, and raw IP. */
	len = f_raw_v6(buf + 256);
	CHECK_OK(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 256,
				   (uint32_t)len));
	CHECK_OK(voff_pkt_parse(&pkt, VOFF_PARSE_IP, NULL));
	CHECK_EQ(pkt.l2_off, NONE);
	CHECK_EQ(pkt.l3_off, 0);
	CHECK_EQ(pkt.l4_off, 48);
	CHECK_EQ(pkt.inner_l3_off, NONE);
	CHECK_EQ(pkt.payload_off, 56);
	/* On failure the offsets are left alone. */
	pkt.len = 30;
	CHECK_EQ(voff_pkt_parse(&pkt, VOFF_PARSE_IP, &p), VOFF_E_TRUNC_IPV6);
	CHECK_EQ(pkt.l4_off, 48);
	CHECK_EQ(voff_pkt_parse(NULL, VOFF_PARSE_IP, &p), -EINVAL);
}

static void t_proto_name(void)
{
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO_ETH), "eth");
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO_QINQ), "qinq");
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO_IPV6_DSTOPTS),
		     "ipv6_dstopts");
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO_GRE), "gre");
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO_NONE), "?");
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO__COUNT), "?");
	CHECK_STR_EQ(voff_proto_name((enum voff_proto)200), "?");
	for (int i = 1; i < VOFF_PROTO__COUNT; i++)
		CHECK(strcmp(voff_proto_name((enum voff_proto)i), "?") != 0);
	/* The parser's new codes have names and messages. */
	CHECK_STR_EQ(voff_err_name(VOFF_E_HDR_PAST_L3), "hdr_past_l3");
	CHECK_STR_EQ(voff_err_name(VOFF_E_INNER_L3_LEN), "inner_l3_len");
	CHECK_STR_EQ(voff_err_name(VOFF_E_IPV6_OPT), "ipv6_opt");
	CHECK_STR_EQ(voff_err_name(VOFF_E_HDR_OFF), "hdr_off");
}

/* ---- checksum verdicts -------------------------------------------------- */

static void csum_of(const uint8_t *buf, size_t len,
		    enum voff_parse_start start, struct voff_csum_report *r)
{
	struct voff_parsed p;

	CHECK_OK(parse_exact(buf, len, start, &p));
	CHECK_OK(voff_parse_csum_check(buf, len, &p, r));
}

#define V_OK VOFF_CSUM_V_OK
#define V_BAD VOFF_CSUM_V_BAD
#define V_NONE VOFF_CSUM_V_NONE

static void check_report_(const struct voff_csum_report *r, const int *want,
			  size_t n, int line)
{
	CHECK_MSG(r->n == n, "line %d: %u verdicts, want %zu", line, r->n,
		  n);
	for (size_t i = 0; i < n; i++)
		CHECK_MSG(r->proto[i] == want[2 * i] &&
				  r->verdict[i] == want[2 * i + 1],
			  "line %d: verdict %zu is %s=%u, want %s=%d", line, i,
			  voff_proto_name(r->proto[i]), r->verdict[i],
			  voff_proto_name(want[2 * i]), want[2 * i + 1]);
}

#define REPORT(r, ...)                                                       \
	check_report_(r, (const int[]){ __VA_ARGS__ },                       \
		      sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int) / 2, \
		      __LINE__)

static void t_csum_plain(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;
	size_t len = f_v4_tcp(buf);

	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_OK);
	buf[len - 1] ^= 1;	/* payload */
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_BAD);
	buf[22] ^= 1;		/* TTL */
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_BAD, VOFF_PROTO_TCP, V_BAD);

	/* IPv6 UDP (odd payload length), padding not summed. */
	len = f_qinq_v6_udp(buf);
	memset(buf + len, 0x5A, 7);
	csum_of(buf, len + 7, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_UDP, V_OK);
	/* A zero UDP checksum: none over IPv4, bad over IPv6. */
	put16(buf + 62 + 6, 0);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_UDP, V_BAD);
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ .no_csum = true });
	tf_payload(&b, 5, 0);
	len = finish(&b);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_UDP, V_NONE);
	/* Raw IP and options in both headers. */
	len = v4_tcp_opts(buf, 12, 8);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_OK);
	len = f_raw_v6(buf);
	csum_of(buf, len, VOFF_PARSE_IP, &r);
	REPORT(&r, VOFF_PROTO_UDP, V_OK);
}

/* A UDP datagram whose sum is 0 is sent as 0xFFFF; it must verify. */
static void t_csum_udp_ffff(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;
	struct tf b;
	size_t len;
	int found = 0;

	/* Search two payload bytes giving a computed checksum of 0. */
	for (unsigned int v = 0; v < 0x10000 && !found; v++) {
		uint8_t pl[2] = { (uint8_t)(v >> 8), (uint8_t)v };

		init_frame(&b, buf);
		tf_eth(&b);
		tf_ipv4(&b, &(struct tf_ip){ 0 });
		tf_udp(&b, &(struct tf_l4){ 0 });
		tf_bytes(&b, pl, 2);
		len = finish(&b);
		found = buf[40] == 0xFF && buf[41] == 0xFF;
	}
	CHECK(found);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_UDP, V_OK);
}

static void t_csum_frag(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;
	size_t len = f_v4_frag_first(buf);

	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_UDP, V_NONE);
	len = f_v6_ext_tcp(buf);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_NONE);
	len = f_v6_frag_later(buf);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	CHECK_EQ(r.n, 0);
	/* An atomic fragment is whole: checked. */
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_frag(&b, 0, false, 5);
	tf_tcp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_OK);
}

static void t_csum_tunnels(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;
	size_t len = f_vxlan(buf);

	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_UDP, V_OK,
	       VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_OK);
	buf[88 + 16] ^= 0x10;	/* inner TCP checksum: outer UDP too */
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_UDP, V_BAD,
	       VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_BAD);

	/* A zero outer UDP checksum over IPv6 for a tunnel: not checked. */
	struct tf b;

	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ .no_csum = true });
	tf_geneve(&b, 1, 4);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 3, 0);
	len = finish(&b);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_UDP, V_NONE, VOFF_PROTO_IPV4, V_OK,
	       VOFF_PROTO_UDP, V_OK);

	/* GRE with and without its checksum. */
	len = f_gre_teb(buf);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_GRE, V_OK,
	       VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_OK);
	buf[len - 1] ^= 0xFF;
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_GRE, V_BAD,
	       VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_TCP, V_BAD);
	len = f_gre_ip6(buf);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_OK);
	len = f_gre_ip4(buf);
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_GRE, V_OK,
	       VOFF_PROTO_IPV4, V_OK, VOFF_PROTO_UDP, V_OK);
}

/*
 * Build IPv6 + routing header + TCP whose checksum was computed for
 * destination @final, then move @final into the routing header and put
 * @hop in the IPv6 destination.
 */
static size_t routed(uint8_t *buf, uint8_t type, uint8_t segleft)
{
	static const uint8_t hop[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 9 };
	static const uint8_t final[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
	struct tf_ip ip = { 0 };
	struct tf b;
	size_t len;

	memcpy(ip.dst, final, 16);
	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv6(&b, &ip);
	tf_ipv6_ext(&b, TF_EXT_ROUTING, 24);
	tf_tcp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 9, 0);
	len = finish(&b);
	memcpy(buf + 14 + 24, hop, 16);
	buf[54 + 2] = type;
	buf[54 + 3] = segleft;
	memcpy(buf + 54 + 8, final, 16);
	return len;
}

static void t_csum_routing(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;

	csum_of(buf, routed(buf, 2, 1), VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_OK);
	csum_of(buf, routed(buf, 0, 1), VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_OK);
	csum_of(buf, routed(buf, 4, 1), VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_OK);
	/* No segments left: the IPv6 destination is final (wrong here). */
	csum_of(buf, routed(buf, 2, 0), VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_BAD);
	/* RPL (type 3) with segments left: not checkable. */
	csum_of(buf, routed(buf, 3, 1), VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_TCP, V_NONE);
}

/* IPv4 loose source route with a hop left: the last hop is final. */
static void t_csum_ipv4_route(void)
{
	static const uint8_t final[4] = { 198, 51, 100, 7 };
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;
	struct tf_ip ip = { 0 };
	struct tf b;
	size_t len;

	memcpy(ip.dst, final, 4);
	ip.opt_len = 12;
	init_frame(&b, buf);
	tf_eth(&b);
	tf_ipv4(&b, &ip);
	tf_tcp(&b, &(struct tf_l4){ 0 });
	len = finish(&b);
	/* LSRR: NOP, 131, len 11, ptr 4, hop 203.0.113.1, final. */
	static const uint8_t opt[12] = { 1, 131, 11, 4, 203, 0, 113, 1,
					 198, 51, 100, 7 };

	memcpy(buf + 34, opt, 12);
	buf[30] = 192;		/* header dst: the next hop 192.0.2.99 */
	buf[33] = 99;
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_BAD, VOFF_PROTO_TCP, V_OK);
	/* Route used up (pointer past the end): the header dst is final. */
	buf[34 + 3] = 12;
	csum_of(buf, len, VOFF_PARSE_ETH, &r);
	REPORT(&r, VOFF_PROTO_IPV4, V_BAD, VOFF_PROTO_TCP, V_BAD);
}

static void t_csum_args(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_csum_report r;
	struct voff_parsed p;
	size_t len = f_vxlan(buf);

	CHECK_OK(parse_exact(buf, len, VOFF_PARSE_ETH, &p));
	CHECK_EQ(voff_parse_csum_check(buf, len, &p, NULL), -EINVAL);
	CHECK_EQ(voff_parse_csum_check(buf, len, NULL, &r), -EINVAL);
	CHECK_EQ(voff_parse_csum_check(NULL, len, &p, &r), -EINVAL);
	/* A result that does not describe the frame. */
	CHECK_EQ(voff_parse_csum_check(buf, len - 1, &p, &r), -EINVAL);
	p.layers[6].len = 16;
	CHECK_EQ(voff_parse_csum_check(buf, len, &p, &r), -EINVAL);
	p.layers[6].len = 20;
	p.layers[7].off = (uint16_t)len;
	CHECK_EQ(voff_parse_csum_check(buf, len, &p, &r), -EINVAL);
	p.n_layers = VOFF_PARSE_MAX_LAYERS + 1;
	CHECK_EQ(voff_parse_csum_check(buf, len, &p, &r), -EINVAL);
	/* TCP without an IP header before it. */
	p.n_layers = 1;
	p.layers[0] = (struct voff_layer){ VOFF_PROTO_TCP, 0, 20 };
	CHECK_EQ(voff_parse_csum_check(buf, len, &p, &r), -EINVAL);
}

/* ---- properties --------------------------------------------------------- */

/* Every cut of every representative frame is an error, never a crash. */
static void t_truncation(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	unsigned long cuts = 0;

	for (size_t i = 0; i < N_VALID; i++) {
		const struct frame_case *c = &valid_frames[i];
		size_t len = c->build(buf);

		CHECK_OK(parse_exact(buf, len, c->start, &p));
		invariants(&p, len);
		for (size_t cut = 0; cut < len; cut++) {
			int rc = parse_exact(buf, cut, c->start, &p);

			CHECK_MSG(rc < 0 && voff_err_is_voff(rc),
				  "%s cut at %zu/%zu: %d (%s)", c->name, cut,
				  len, rc, voff_err_name(rc));
			for (unsigned int k = 0; k < p.n_layers; k++)
				CHECK_LE(p.layers[k].off + p.layers[k].len,
					 cut);
			cuts++;
		}
	}
	CHECK_GT(cuts, 2000);
}

/* Which error a cut inside each header gives. */
static void t_truncation_codes(void)
{
	uint8_t buf[FRAME_CAP];
	struct voff_parsed p;
	static const struct {
		size_t (*build)(uint8_t *);
		size_t cut;
		int err;
	} cases[] = {
		{ f_v4_tcp, 10, VOFF_E_TRUNC_ETH },
		{ f_vlan_v4opt_tcp, 16, VOFF_E_TRUNC_VLAN },
		{ f_vlan_v4opt_tcp, 30, VOFF_E_TRUNC_IPV4 },
		{ f_vlan_v4opt_tcp, 40, VOFF_E_TRUNC_IPV4 },
		{ f_vlan_v4opt_tcp, 60, VOFF_E_TRUNC_TCP },
		{ f_vlan_v4opt_tcp, 80, VOFF_E_TRUNC_L3 },
		{ f_qinq_v6_udp, 50, VOFF_E_TRUNC_IPV6 },
		{ f_qinq_v6_udp, 65, VOFF_E_TRUNC_UDP },
		{ f_v6_ext_tcp, 55, VOFF_E_TRUNC_IPV6_EXT },
		{ f_v6_ext_tcp, 70, VOFF_E_TRUNC_IPV6_EXT },
		{ f_v6_ext_tcp, 105, VOFF_E_TRUNC_IPV6_EXT },
		{ f_vxlan, 45, VOFF_E_TRUNC_VXLAN },
		{ f_vxlan, 55, VOFF_E_TRUNC_ETH },
		{ f_vxlan, 66, VOFF_E_TRUNC_VLAN },
		{ f_geneve, 45, VOFF_E_TRUNC_GENEVE },
		{ f_geneve, 55, VOFF_E_TRUNC_GENEVE },
		{ f_gre_teb, 36, VOFF_E_TRUNC_GRE },
		{ f_gre_teb, 45, VOFF_E_TRUNC_GRE },
		{ f_raw_v4, 0, VOFF_E_TRUNC_IPV4 },
		{ f_raw_v6, 3, VOFF_E_TRUNC_IPV6 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = cases[i].build(buf);
		enum voff_parse_start s = cases[i].build == f_raw_v4 ||
						  cases[i].build == f_raw_v6 ?
					  VOFF_PARSE_IP :
					  VOFF_PARSE_ETH;
		int rc;

		CHECK_LT(cases[i].cut, len);
		rc = parse_exact(buf, cases[i].cut, s, &p);
		CHECK_MSG(rc == cases[i].err, "case %zu: %s, want %s", i,
			  voff_err_name(rc), voff_err_name(cases[i].err));
	}
}

/* Random byte changes: no crash, any success consistent with the frame. */
static void t_random_mutation(void)
{
	uint8_t buf[FRAME_CAP], m[FRAME_CAP];
	struct voff_csum_report r;
	struct voff_parsed p;
	unsigned long ok = 0, total = 0;

	for (size_t i = 0; i < N_VALID; i++) {
		const struct frame_case *c = &valid_frames[i];
		size_t len = c->build(buf);

		for (int iter = 0; iter < 3000; iter++) {
			size_t mlen = len;
			int flips = 1 + (int)(check_rand() % 4);
			uint8_t *copy;
			int rc;

			memcpy(m, buf, len);
			for (int f = 0; f < flips; f++) {
				/* Favour the header bytes. */
				size_t span = check_rand() % 4 ? 160 : len;
				size_t at = check_rand() % (span < len ? span :
									 len);

				m[at] = (uint8_t)check_rand();
			}
			if (check_rand() % 8 == 0)
				mlen = check_rand() % (len + 1);
			copy = malloc(mlen ? mlen : 1);
			CHECK(copy != NULL);
			memcpy(copy, m, mlen);
			rc = voff_parse(copy, mlen, c->start, &p);
			total++;
			if (rc == 0) {
				ok++;
				invariants(&p, mlen);
				CHECK_OK(voff_parse_csum_check(copy, mlen, &p,
							       &r));
				CHECK_LE(r.n, 4);
			} else {
				CHECK(voff_err_is_voff(rc));
			}
			free(copy);
		}
	}
	printf("# %lu mutated frames, %lu parsed\n", total, ok);
	CHECK_GT(ok, 100);
}

/* Write the seed corpus of fuzz/fuzz_parse.c (see the file comment). */
static void write_seed(const char *dir, const char *name,
		       enum voff_parse_start start, const uint8_t *frame,
		       size_t len)
{
	char path[4096];
	uint8_t sel = start == VOFF_PARSE_IP ? 1 : 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK_MSG(f != NULL, "cannot write %s", path);
	CHECK_EQ(fwrite(&sel, 1, 1, f), 1);
	CHECK_EQ(fwrite(frame, 1, len, f), len);
	CHECK_OK(fclose(f));
}

static void t_dump_corpus(void)
{
	const char *dir = getenv("VOFF_PARSE_CORPUS_OUT");
	uint8_t buf[FRAME_CAP];
	char name[128];

	if (!dir)
		CHECK_SKIP("set VOFF_PARSE_CORPUS_OUT=DIR to write seeds");
	for (size_t i = 0; i < N_VALID; i++) {
		size_t len = valid_frames[i].build(buf);

		snprintf(name, sizeof(name), "ok_%s", valid_frames[i].name);
		write_seed(dir, name, valid_frames[i].start, buf, len);
	}
	for (size_t i = 0; i < N_BAD; i++) {
		size_t len = bad_frames[i].build(buf);

		snprintf(name, sizeof(name), "bad_%s", bad_frames[i].name);
		write_seed(dir, name, bad_frames[i].start, buf, len);
	}
}

CHECK_MAIN(CHECK_TEST(t_v4_tcp), CHECK_TEST(t_v6_udp_qinq),
	   CHECK_TEST(t_vlan_stack), CHECK_TEST(t_ipv4_options),
	   CHECK_TEST(t_ipv4_frag_first), CHECK_TEST(t_ipv4_frag_later),
	   CHECK_TEST(t_ipv6_ext_each), CHECK_TEST(t_ipv6_ext_chain),
	   CHECK_TEST(t_ipv6_frag_later), CHECK_TEST(t_tcp_options),
	   CHECK_TEST(t_udp), CHECK_TEST(t_padding), CHECK_TEST(t_raw_ip),
	   CHECK_TEST(t_unknown_stops), CHECK_TEST(t_vxlan),
	   CHECK_TEST(t_geneve), CHECK_TEST(t_gre),
	   CHECK_TEST(t_tunnel_in_tunnel), CHECK_TEST(t_inner_frag),
	   CHECK_TEST(t_gre_in_fragment),
	   CHECK_TEST(t_malformed), CHECK_TEST(t_inner_errors),
	   CHECK_TEST(t_layer_limit), CHECK_TEST(t_args),
	   CHECK_TEST(t_big_frame), CHECK_TEST(t_pkt_parse),
	   CHECK_TEST(t_proto_name), CHECK_TEST(t_csum_plain),
	   CHECK_TEST(t_csum_udp_ffff), CHECK_TEST(t_csum_frag),
	   CHECK_TEST(t_csum_tunnels), CHECK_TEST(t_csum_routing),
	   CHECK_TEST(t_csum_ipv4_route), CHECK_TEST(t_csum_args),
	   CHECK_TEST(t_truncation), CHECK_TEST(t_truncation_codes),
	   CHECK_TEST(t_random_mutation), CHECK_TEST(t_dump_corpus))
