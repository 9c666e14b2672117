/* SPDX-License-Identifier: MIT */
/*
 * gen_vectors.c - the generator of the golden GSO and GRO vectors of
 * tests/vectors/ (docs/vectors.md), with the running kernel as the oracle
 *
 * Each case of the two tables below is a small, named input: a
 * super-packet for GSO, a batch of frames for GRO.  It goes through the
 * kernel exactly as the kernel-oracle tests send their random cases
 * (tests/lib/gso_oracle.h, tests/lib/gro_oracle.h); what the kernel makes
 * of it is the expected output.  The case is written as
 * $VOFF_VECTORS_OUT/{gso,gro}/NAME/{in.pcap,out.pcap,case.json}, then
 * replayed through voff by the very code test_vectors.c runs
 * (tests/lib/vectors.c): a case voff does not reproduce stops the
 * generator, so every vector written is one voff passes, and case.json
 * records how (in order, or with the flow-preserving reordering of
 * docs/gro.md).
 *
 * Run by tests/vectors/generate.sh: t_gso as root (it makes its own
 * namespaces), t_gro inside the namespace of tests/integ/lib_gro_ns.sh.
 * A GRO case is sent three times and must come back the same each time
 * (a busy machine can split a batch over two NAPI polls); it is retried
 * a few times before the generator gives up.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <voff/voff.h>

#include "check.h"
#include "frames.h"
#include "gro_oracle.h"
#include "gro_util.h"
#include "gso_oracle.h"
#include "gso_twin.h"
#include "vectors.h"

#define BUF 70000
#define GRO_RUNS 3
#define GRO_TRIES 5

/* ---- output -------------------------------------------------------------- */

static const char *out_root(void)
{
	const char *d = getenv("VOFF_VECTORS_OUT");

	if (!d || !*d)
		CHECK_SKIP("set VOFF_VECTORS_OUT (tests/vectors/generate.sh)");
	return d;
}

static void make_dir(const char *path)
{
	CHECK_MSG(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %s",
		  path, strerror(errno));
}

/* $VOFF_VECTORS_OUT/@kind/@name, created, into @dir. */
static void case_dir(char *dir, size_t cap, const char *kind,
		     const char *name)
{
	snprintf(dir, cap, "%s/%s", out_root(), kind);
	make_dir(dir);
	snprintf(dir, cap, "%s/%s/%s", out_root(), kind, name);
	make_dir(dir);
}

static void write_pcap(const char *dir, const char *file,
		       const struct vec_frames *f)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	CHECK_OK(vec_pcap_write(path, f));
}

/* The fields every case.json starts with. */
static json_object *case_new(const char *name, const char *kind,
			     const char *desc, const char *oracle)
{
	json_object *c = json_object_new_object();
	json_object *k = json_object_new_object();
	struct utsname u;

	CHECK_OK(uname(&u));
	json_object_object_add(c, "schema", json_object_new_int(1));
	json_object_object_add(c, "name", json_object_new_string(name));
	json_object_object_add(c, "kind", json_object_new_string(kind));
	json_object_object_add(c, "description", json_object_new_string(desc));
	json_object_object_add(c, "direction", json_object_new_string(
		!strcmp(kind, "gso") ? "tx" : "rx"));
	json_object_object_add(k, "release", json_object_new_string(u.release));
	json_object_object_add(k, "oracle", json_object_new_string(oracle));
	json_object_object_add(c, "kernel", k);
	return c;
}

/*
 * Write case.json, replay the case through voff and record the result:
 * in order ("exact"), or the same frames in another order ("reordered",
 * allowed for GRO only, with voff's order).  Anything else stops here.
 */
static void case_finish(json_object *c, const char *dir, bool gro)
{
	static struct vec_result r;
	json_object *v = json_object_new_object();
	json_object *outs;
	char path[4096];

	snprintf(path, sizeof(path), "%s/case.json", dir);
	CHECK_OK(vec_json_write(path, c));
	CHECK_MSG(vec_replay(dir, &r) == 0, "%s: voff disagrees: %s", dir,
		  r.err);
	CHECK_MSG(r.exact || gro, "%s: voff's segments come in another order",
		  dir);
	outs = json_object_object_get(c, "output");
	for (int j = 0; gro && j < r.n_out; j++) {
		json_object *in = json_object_new_array();
		json_object *in_all = json_object_object_get(c, "input");

		for (int i = 0; i < (int)json_object_array_length(in_all); i++)
			if (r.member_of[i] == j)
				json_object_array_add(in,
						      json_object_new_int(i));
		json_object_object_add(json_object_array_get_idx(outs, j),
				       "inputs", in);
	}
	json_object_object_add(v, "version",
			       json_object_new_string(VOFF_VERSION));
	json_object_object_add(v, "agrees", json_object_new_string(
		r.exact ? "exact" : "reordered"));
	if (!r.exact) {
		json_object *ord = json_object_new_array();

		for (int k = 0; k < r.n_out; k++)
			json_object_array_add(ord,
					      json_object_new_int(r.order[k]));
		json_object_object_add(v, "order", ord);
	}
	json_object_object_add(c, "voff", v);
	CHECK_OK(vec_json_write(path, c));
	fprintf(stderr, "%s: %d frames in, %d out, voff %s\n", dir,
		(int)json_object_array_length(
			json_object_object_get(c, "input")),
		r.n_out, r.exact ? "exact" : "reordered");
}

/* "complete" or "bad": the L4 checksum of a frame as received. */
static const char *l4_csum(const uint8_t *d, uint32_t len)
{
	struct voff_csum_report rep;
	struct voff_parsed p;
	const char *s = "none";

	if (voff_parse(d, len, VOFF_PARSE_ETH, &p) ||
	    voff_parse_csum_check(d, len, &p, &rep))
		return "unparsed";
	for (int i = 0; i < rep.n; i++)
		if (rep.proto[i] == VOFF_PROTO_TCP ||
		    rep.proto[i] == VOFF_PROTO_UDP)
			s = rep.verdict[i] == VOFF_CSUM_V_OK    ? "complete"
			    : rep.verdict[i] == VOFF_CSUM_V_BAD ? "bad"
								: "none";
	return s;
}

/*
 * The entry of frame @i whose checksum state is @csum; a "partial" output
 * also says where its checksum starts and goes (@start, @off).
 */
static json_object *frame_entry(int i, const char *csum, bool output,
				uint16_t start, uint16_t off)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "frame", json_object_new_int(i));
	json_object_object_add(e, "csum", json_object_new_string(csum));
	if (output && !strcmp(csum, "partial")) {
		json_object_object_add(e, "csum_start",
				       json_object_new_int(start));
		json_object_object_add(e, "csum_offset",
				       json_object_new_int(off));
	}
	return e;
}

/* ---- GSO ----------------------------------------------------------------- */

/**
 * struct gso_case - one GSO vector
 * @name:	directory name
 * @desc:	what it shows
 * @csum_on:	the veth keeps tx checksumming: segments carry the L4
 *		pseudo-header seed (voff's partial mode)
 * @s:		the super-packet (gso_twin.h)
 */
struct gso_case {
	const char *name;
	const char *desc;
	bool csum_on;
	struct spec s;
};

#define ACK TF_ACK
#define PSH TF_PSH

static const struct gso_case gso_cases[] = {
	{ "tcp4_cwr_psh_fin",
	  "TCP/IPv4, 3072 payload bytes, gso_size 1000 (docs/kernel-model.md "
	  "4.8): payloads 1000, 1000, 1000, 72; IDs 0x1234 to 0x1237; CWR on "
	  "the first segment only, PSH and FIN on the last only",
	  false, { .mss = 1000, .pay = 3072, .id = 0x1234, .df = true,
		   .seq = 1000000, .flags = ACK | TF_CWR | PSH | TF_FIN } },
	{ "tcp4_exact_multiple",
	  "TCP/IPv4, 2144 bytes = 4 x 536: four full segments, no short "
	  "tail; PSH on the last",
	  false, { .mss = 536, .pay = 2144, .id = 100, .df = true,
		   .seq = 77, .flags = ACK | PSH } },
	{ "tcp4_timestamps",
	  "TCP/IPv4 with NOP NOP timestamps (12 option bytes), gso_size "
	  "1448: options copied to every segment, last segment 656 bytes",
	  false, { .mss = 1448, .pay = 5000, .id = 9, .df = true, .seq = 5,
		   .tcp_opt = 12, .flags = ACK } },
	{ "tcp4_id_wrap_no_df",
	  "TCP/IPv4 without DF, ID 0xfffe: the ID still increments per "
	  "segment and wraps (0xfffe, 0xffff, 0x0000, 0x0001)",
	  false, { .mss = 500, .pay = 1800, .id = 0xFFFE, .seq = 1,
		   .flags = ACK } },
	{ "tcp4_ecn",
	  "TCP/IPv4 with the virtio GSO_ECN bit, CWR|ECE and TOS ECT(0): CWR "
	  "on the first segment only, ECE on every one, TOS copied",
	  false, { .mss = 700, .pay = 2000, .id = 1, .df = true, .seq = 9,
		   .tos = 0x02, .extra = VOFF_GSO_TCP_ECN,
		   .flags = ACK | TF_CWR | TF_ECE } },
	{ "tcp4_urg",
	  "TCP/IPv4 with URG and urgent pointer 9: both on every segment; "
	  "PSH on the last only",
	  false, { .mss = 600, .pay = 1500, .id = 3, .df = true, .seq = 2,
		   .flags = ACK | TF_URG | PSH } },
	{ "tcp4_ip_options",
	  "TCP/IPv4 with 8 bytes of IPv4 options: copied to every segment, "
	  "header checksum per segment",
	  false, { .mss = 800, .pay = 2000, .id = 40, .df = true, .seq = 4,
		   .v4_opt = 8, .flags = ACK } },
	{ "tcp4_mss8",
	  "TCP/IPv4 with gso_size 8 (the least the kernel takes for TCP): "
	  "30 bytes become 8, 8, 8 and 6",
	  false, { .mss = 8, .pay = 30, .id = 10, .df = true, .seq = 3,
		   .flags = ACK | PSH } },
	{ "tcp4_jumbo",
	  "TCP/IPv4 with gso_size 8948 on a 9100-byte MTU: 20000 bytes "
	  "become 8948, 8948 and 2104",
	  false, { .mss = 8948, .pay = 20000, .id = 500, .df = true,
		   .seq = 8, .flags = ACK } },
	{ "tcp4_partial",
	  "TCP/IPv4 out of a device with tx checksumming: each segment's TCP "
	  "checksum field holds the pseudo-header sum (NEEDS_CSUM); the IPv4 "
	  "header checksum is complete",
	  true, { .mss = 1000, .pay = 2500, .id = 77, .df = true, .seq = 6,
		  .flags = ACK | PSH } },
	{ "tcp6_basic",
	  "TCP/IPv6, gso_size 1220: payload length per segment, PSH on the "
	  "last",
	  false, { .v6 = true, .mss = 1220, .pay = 3000, .seq = 100,
		   .flags = ACK | PSH } },
	{ "tcp6_ext_headers",
	  "TCP/IPv6 behind hop-by-hop, destination-options and routing "
	  "headers: copied to every segment",
	  false, { .v6 = true, .n_ext = 3, .mss = 1000, .pay = 2100,
		   .seq = 1, .flags = ACK } },
	{ "tcp6_partial",
	  "TCP/IPv6 with timestamps out of a device with tx checksumming: "
	  "pseudo-header sums in the checksum fields",
	  true, { .v6 = true, .mss = 1400, .pay = 4000, .seq = 11,
		  .tcp_opt = 12, .flags = ACK } },
	{ "tcp6_ecn_fin",
	  "TCP/IPv6 with GSO_ECN, CWR|FIN and traffic class 0xb8 (EF): CWR "
	  "first only, FIN last only, traffic class copied",
	  false, { .v6 = true, .mss = 500, .pay = 1300, .seq = 12,
		   .tos = 0xB8, .extra = VOFF_GSO_TCP_ECN,
		   .flags = ACK | TF_CWR | TF_FIN } },
	{ "uso4",
	  "USO (GSO_UDP_L4) over IPv4: three datagrams of 1200, 1200 and "
	  "600 bytes, each with its own length and checksum; the IPv4 ID "
	  "increments",
	  false, { .udp = true, .mss = 1200, .pay = 3000, .id = 7,
		   .df = true } },
	{ "uso6",
	  "USO over IPv6: datagrams of 1000, 1000 and 500 bytes",
	  false, { .v6 = true, .udp = true, .mss = 1000, .pay = 2500 } },
	{ "uso4_partial",
	  "USO over IPv4 out of a device with tx checksumming, 2800 = 2 x "
	  "1400: UDP checksum fields hold the pseudo-header sums",
	  true, { .udp = true, .mss = 1400, .pay = 2800, .id = 8 } },
	{ "uso6_dstopts",
	  "USO over IPv6 behind a hop-by-hop header",
	  false, { .v6 = true, .udp = true, .n_ext = 1, .mss = 600,
		   .pay = 1500 } },
	{ "vlan_tcp4",
	  "TCP/IPv4 under one 802.1Q tag (VID 100): the tag is copied to "
	  "every segment",
	  false, { .n_vlan = 1, .mss = 1000, .pay = 2500, .id = 20,
		   .df = true, .seq = 1, .flags = ACK | PSH } },
	{ "qinq_tcp6",
	  "TCP/IPv6 under an 802.1ad tag (VID 100) and an 802.1Q tag (VID "
	  "101)",
	  false, { .n_vlan = 2, .v6 = true, .mss = 1000, .pay = 2500,
		   .seq = 1, .flags = ACK } },
	{ "vlan_uso4_partial",
	  "USO over IPv4 under an 802.1Q tag, tx checksumming on",
	  true, { .n_vlan = 1, .udp = true, .mss = 800, .pay = 2000,
		  .id = 30 } },
	{ "ufo4",
	  "UFO (legacy GSO_UDP) over IPv4, gso_size 1480: the UDP checksum "
	  "over the whole datagram, then IPv4 fragments of 1480 bytes of IP "
	  "payload sharing one ID, MF on all but the last, DF cleared",
	  false, { .ufo = true, .mss = 1480, .pay = 4000, .id = 0x4444,
		   .df = true } },
	{ "ufo6",
	  "UFO over IPv6, gso_size 1232: a fragment header inserted after "
	  "the IPv6 header; the kernel draws the fragment ID at random "
	  "(params.ipv6_frag_id records the one it drew)",
	  false, { .v6 = true, .ufo = true, .mss = 1232, .pay = 3000 } },
	{ "vxlan4_tcp4",
	  "VXLAN over IPv4 without outer UDP checksum (UDP_TUNNEL), inner "
	  "TCP/IPv4: outer UDP length, outer IPv4 ID (0x100 up) and inner "
	  "headers per segment, outer checksum 0",
	  false, { .tun = TUN_VXLAN, .outer_id = 0x100, .mss = 1000,
		   .pay = 2500, .id = 1, .df = true, .seq = 1,
		   .flags = ACK | PSH } },
	{ "vxlan4_tcp4_csum",
	  "VXLAN over IPv4 with outer UDP checksum (UDP_TUNNEL_CSUM): the "
	  "outer checksum is computed per segment",
	  false, { .tun = TUN_VXLAN, .tun_csum = true, .outer_id = 0x200,
		   .mss = 1000, .pay = 2500, .id = 2, .df = true, .seq = 1,
		   .flags = ACK } },
	{ "vxlan6_tcp6_csum",
	  "VXLAN over IPv6 (its UDP checksum is mandatory), inner TCP/IPv6",
	  false, { .tun = TUN_VXLAN, .outer_v6 = true, .tun_csum = true,
		   .v6 = true, .mss = 1000, .pay = 2500, .seq = 1,
		   .flags = ACK | PSH } },
	{ "geneve4_tcp6",
	  "Geneve (8 option bytes) over IPv4 without outer checksum, inner "
	  "TCP/IPv6",
	  false, { .tun = TUN_GENEVE, .outer_id = 0x300, .v6 = true,
		   .mss = 1000, .pay = 2500, .seq = 1, .flags = ACK } },
	{ "geneve6_tcp4_csum_partial",
	  "Geneve over IPv6 with outer checksum, inner TCP/IPv4, tx "
	  "checksumming on: the inner TCP checksum is left as the "
	  "pseudo-header sum, the outer UDP checksum is complete",
	  true, { .tun = TUN_GENEVE, .outer_v6 = true, .tun_csum = true,
		  .mss = 1000, .pay = 2500, .id = 5, .df = true, .seq = 1,
		  .flags = ACK } },
	{ "vxlan4_tcp4_partial",
	  "VXLAN over IPv4 without outer checksum, tx checksumming on: inner "
	  "TCP checksums left as pseudo-header sums",
	  true, { .tun = TUN_VXLAN, .outer_id = 0x400, .mss = 1000,
		  .pay = 2500, .id = 6, .df = true, .seq = 1,
		  .flags = ACK } },
};

static const char *gso_oracle_text(const struct gso_case *g)
{
	static char s[768];

	snprintf(s, sizeof(s),
		 "%s into veth gsoa (MTU 9100; tso, gso, tx-udp-segmentation, "
		 "tx-gso-partial, tx-udp_tnl-segmentation and "
		 "tx-udp_tnl-csum-segmentation off; tx-checksumming %s): the "
		 "kernel segments in software at gsoa's egress; the segments "
		 "are captured on gsoa with AF_PACKET (PACKET_OUTGOING)",
		 g->s.tun ? "written to TAP gsot with the 24-byte "
			    "virtio_net_hdr_v1_hash_tunnel, redirected by tc "
			    "(ingress u32, mirred egress redirect)"
			  : "written with AF_PACKET and PACKET_VNET_HDR "
			    "(10-byte virtio_net_hdr, native byte order)",
		 g->csum_on ? "on" : "off");
	return s;
}

static json_object *gso_params(const struct gso_case *g,
			       const struct voff_vnet_hdr *h, int segs,
			       const struct built *sb,
			       const struct vec_frames *out)
{
	json_object *p = json_object_new_object();
	json_object *vh = vec_vnet_json(h, 10);

	json_object_object_add(p, "csum_mode", json_object_new_string(
		g->csum_on ? "partial" : "full"));
	json_object_object_add(p, "tx_checksumming",
			       json_object_new_boolean(g->csum_on));
	json_object_object_add(p, "gso_type",
			       json_object_get(json_object_object_get(
				       vh, "gso_type_name")));
	json_object_object_add(p, "gso_size", json_object_new_int(h->gso_size));
	json_object_object_add(p, "segments", json_object_new_int(segs));
	if (g->s.ufo && g->s.v6)
		json_object_object_add(p, "ipv6_frag_id",
				       json_object_new_int64(gso_oracle_frag_id(
					       sb, out->d[0], out->len[0])));
	json_object_put(vh);
	return p;
}

static void gso_one(const struct gso_case *g)
{
	static uint8_t sbuf[BUF], rbuf[BUF];
	struct vec_frames in = { 0 }, out = { 0 };
	json_object *c, *arr, *e;
	struct voff_vnet_hdr h;
	struct voff_pkt sp;
	struct built sb;
	char dir[4096];
	size_t vlen, got;

	gso_oracle_setup(g->csum_on);
	if (g->s.tun)
		gso_oracle_setup_tap();
	vlen = gso_oracle_send(&g->s, sbuf, BUF, &sb, &sp, &h);
	vec_frames_add(&in, sbuf, (uint32_t)sb.len);
	while ((got = gso_oracle_capture(rbuf, BUF, 300)))
		vec_frames_add(&out, rbuf, (uint32_t)got);
	CHECK_MSG(out.n > 1, "%s: the kernel sent %d frames", g->name, out.n);

	case_dir(dir, sizeof(dir), "gso", g->name);
	write_pcap(dir, "in.pcap", &in);
	write_pcap(dir, "out.pcap", &out);
	c = case_new(g->name, "gso", g->desc, gso_oracle_text(g));
	json_object_object_add(c, "params",
			       gso_params(g, &h, out.n, &sb, &out));
	arr = json_object_new_array();
	e = frame_entry(0, "partial", false, 0, 0);
	json_object_object_add(e, "vnet_hdr",
			       vec_vnet_json(&h, (unsigned int)vlen));
	json_object_object_add(e, "summary", vec_summary(in.d[0], in.len[0]));
	json_object_array_add(arr, e);
	json_object_object_add(c, "input", arr);
	arr = json_object_new_array();
	for (int i = 0; i < out.n; i++) {
		bool partial = g->csum_on && !g->s.ufo;

		e = frame_entry(i, partial ? "partial" : "complete", true,
				h.csum_start, h.csum_offset);
		json_object_object_add(e, "summary",
				       vec_summary(out.d[i], out.len[i]));
		json_object_array_add(arr, e);
	}
	json_object_object_add(c, "output", arr);
	case_finish(c, dir, false);
	json_object_put(c);
	vec_frames_free(&in);
	vec_frames_free(&out);
}

static void t_gso(void)
{
	for (size_t i = 0; i < sizeof(gso_cases) / sizeof(gso_cases[0]); i++)
		gso_one(&gso_cases[i]);
}

/* ---- GRO ----------------------------------------------------------------- */

/**
 * struct gro_batch - the frames of one GRO case
 * @f:		the segments (gro_util.h), in sending order
 * @n:		segments in @f
 */
struct gro_batch {
	struct sp f[GRO_ORACLE_BATCH];
	int n;
};

/**
 * struct gro_case - one GRO vector: a flow of @n clean segments, @k
 * changed ones, @m clean ones again (or, with @make, frames of its own)
 * @name:	directory name
 * @desc:	what it shows
 * @v6:		the flow is IPv6 (else IPv4)
 * @udp:	the flow is UDP (else TCP)
 * @base:	applied to the flow before it starts (NULL: none)
 * @n:		clean segments first
 * @change:	applied to each of the next @k segments (NULL: none)
 * @k:		changed segments
 * @m:		clean segments after them
 * @gro_max_size: vb's gro_max_size (0: the default, 65536)
 * @make:	builds the frames instead (several flows, a retransmission)
 *
 * vb always has rx-udp-gro-forwarding on.  With it off, the kernel still
 * verifies a UDP frame's checksum and delivers it DATA_VALID, where voff's
 * engine with no_udp hands it back unverified: no vector shows that case.
 */
struct gro_case {
	const char *name;
	const char *desc;
	bool v6, udp;
	void (*base)(struct sp *s);
	int n;
	void (*change)(struct sp *s);
	int k, m;
	unsigned int gro_max_size;
	void (*make)(struct gro_batch *b);
};

/* Flow @idx: source port 1000 + @idx, 500-byte segments, DF. */
static struct sp flow(bool v6, bool udp, int idx)
{
	struct sp s = { .v6 = v6, .udp = udp,
			.sport = (uint16_t)(1000 + idx),
			.seq = 1000000u * (uint32_t)(idx + 1), .ack = 1,
			.id = (uint16_t)(0x100 * (idx + 1)), .df = true,
			.len = 500, .seed = (uint8_t)(16 * idx) };

	return s;
}

/*
 * Append the next @n segments of @s, each passed through @change first
 * (NULL: none); @s moves on (sequence by each segment's payload, ID, UDP
 * bytes).
 */
static void put(struct gro_batch *b, struct sp *s, int n,
		void (*change)(struct sp *s))
{
	for (int i = 0; i < n; i++) {
		struct sp t = *s;

		if (change)
			change(&t);
		CHECK_LT(b->n, GRO_ORACLE_BATCH);
		b->f[b->n++] = t;
		if (!s->udp)
			s->seq += t.len;
		s->id++;
		s->seed++;
	}
}

static void c_short(struct sp *s) { s->len = 200; }
static void c_long(struct sp *s) { s->len = 700; }
static void c_empty(struct sp *s) { s->len = 0; }
static void c_psh(struct sp *s) { s->flags = TF_ACK | TF_PSH; }
static void c_fin(struct sp *s) { s->flags = TF_ACK | TF_FIN; }
static void c_urg(struct sp *s) { s->flags = TF_ACK | TF_URG; }
static void c_cwr(struct sp *s) { s->flags = TF_ACK | TF_CWR; }
static void c_ece(struct sp *s) { s->flags = TF_ACK | TF_ECE; }
static void c_win(struct sp *s) { s->win = 2000; }
static void c_ack(struct sp *s) { s->ack += 1000; }
static void c_ts(struct sp *s)
{
	s->tcpopt = 12;
	s->tsval = 7;
}

static void c_tsval(struct sp *s) { s->tsval++; }
static void c_ttl(struct sp *s) { s->ttl = 31; }
static void c_tos_ce(struct sp *s) { s->tos = 3; }
static void c_tclass(struct sp *s) { s->tos = 0x20; }
static void c_no_df(struct sp *s) { s->df = false; }
static void c_id_fixed(struct sp *s) { s->id = 0x4242; }
static void c_id_fixed_no_df(struct sp *s)
{
	c_id_fixed(s);
	c_no_df(s);
}

static void c_id_jump(struct sp *s) { s->id = (uint16_t)(s->id + 3); }
static void c_ipopt(struct sp *s) { s->ipopt = 4; }
static void c_bad_csum(struct sp *s) { s->bad_csum = true; }
static void c_seq_gap(struct sp *s) { s->seq += 100; }
static void c_dstopts(struct sp *s) { s->ext_len = 8; }

static void g_tcp4_retransmit(struct gro_batch *b)
{
	struct sp a = flow(false, false, 0);
	struct sp again;

	put(b, &a, 3, NULL);
	again = b->f[1];
	put(b, &again, 1, NULL);
	put(b, &a, 2, NULL);
}

static void g_three_flows(struct gro_batch *b)
{
	struct sp f[3] = { flow(false, false, 0), flow(true, false, 1),
			   flow(false, true, 2) };

	for (int r = 0; r < 4; r++)
		for (int i = 0; i < 3; i++)
			put(b, &f[i], 1, NULL);
}

static void g_two_flows_psh(struct gro_batch *b)
{
	struct sp a = flow(false, false, 0), c = flow(false, false, 1);

	put(b, &a, 1, NULL);
	put(b, &c, 1, NULL);
	put(b, &a, 1, NULL);
	put(b, &c, 1, c_psh);
	put(b, &a, 1, NULL);
	put(b, &c, 1, NULL);
	put(b, &a, 1, NULL);
}

static void g_nine_flows_evict(struct gro_batch *b)
{
	struct sp f[9];

	for (int i = 0; i < 9; i++)
		f[i] = flow(false, false, i);
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 8; i++)
			put(b, &f[i], 1, NULL);
	put(b, &f[8], 2, NULL);
}

/* The frames of @g. */
static void gro_make(const struct gro_case *g, struct gro_batch *b)
{
	struct sp a = flow(g->v6, g->udp, 0);

	b->n = 0;
	if (g->make) {
		g->make(b);
		return;
	}
	if (g->base)
		g->base(&a);
	put(b, &a, g->n, NULL);
	put(b, &a, g->k, g->change);
	put(b, &a, g->m, NULL);
}

#define T4 .v6 = false, .udp = false
#define T6 .v6 = true, .udp = false
#define U4 .v6 = false, .udp = true
#define U6 .v6 = true, .udp = true
/* A flow of family @fam (T4 ...): see struct gro_case. */
#define FLOW(fam, base_, n_, change_, k_, m_)                                \
	fam, .base = base_, .n = n_, .change = change_, .k = k_, .m = m_

static const struct gro_case gro_cases[] = {
	{ "tcp4_merge", "six 500-byte TCP/IPv4 segments merge into one "
	  "super-packet (gso_size 500)",
	  FLOW(T4, NULL, 6, NULL, 0, 0) },
	{ "tcp4_short_last", "a 200-byte segment joins the train and ends "
	  "it; the next two start a new one",
	  FLOW(T4, NULL, 3, c_short, 1, 2) },
	{ "tcp4_longer", "a 700-byte segment after two of 500 does not "
	  "join: it starts a new train (gso_size 700) that the next, "
	  "smaller, segment joins and ends",
	  FLOW(T4, NULL, 2, c_long, 1, 2) },
	{ "tcp4_psh", "PSH on the third segment: it joins, the train is "
	  "flushed with PSH; the last two merge anew",
	  FLOW(T4, NULL, 2, c_psh, 1, 2) },
	{ "tcp4_fin", "FIN on the fourth and last segment: it joins and the "
	  "merged header carries FIN",
	  FLOW(T4, NULL, 3, c_fin, 1, 0) },
	{ "tcp4_urg", "URG on the third segment: never merged or held; the "
	  "train before it is flushed first",
	  FLOW(T4, NULL, 2, c_urg, 1, 2) },
	{ "tcp4_cwr", "CWR on the third segment (6.18.44): it does not join "
	  "the train before it, and as a head it takes no followers",
	  FLOW(T4, NULL, 2, c_cwr, 1, 3) },
	{ "tcp4_ece", "ECE from the third segment on: the flag word differs, "
	  "so two trains",
	  FLOW(T4, NULL, 2, c_ece, 4, 0) },
	{ "tcp4_pure_ack", "a pure ACK (no payload) after three segments: "
	  "never held; the train is flushed before it",
	  FLOW(T4, NULL, 3, c_empty, 1, 2) },
	{ "tcp4_window", "the window changes at the fourth segment (the "
	  "compared flag word includes it): two trains",
	  FLOW(T4, NULL, 3, c_win, 3, 0) },
	{ "tcp4_ack", "the ACK number moves at the third segment: two "
	  "trains",
	  FLOW(T4, NULL, 2, c_ack, 4, 0) },
	{ "tcp4_tsval", "timestamps; TSval moves at the fourth segment: "
	  "option bytes differ, two trains",
	  FLOW(T4, c_ts, 3, c_tsval, 3, 0) },
	{ "tcp4_ttl", "the TTL changes at the third segment: two trains",
	  FLOW(T4, NULL, 2, c_ttl, 4, 0) },
	{ "tcp4_tos", "the TOS byte's ECN bits become CE at the fourth "
	  "segment: two trains",
	  FLOW(T4, NULL, 3, c_tos_ce, 3, 0) },
	{ "tcp4_df", "DF is cleared from the third segment on: two trains",
	  FLOW(T4, NULL, 2, c_no_df, 4, 0) },
	{ "tcp4_fixed_id", "every segment has IPv4 ID 0x4242 and DF: the "
	  "second segment chooses fixed IDs, all six merge",
	  FLOW(T4, NULL, 0, c_id_fixed, 6, 0) },
	{ "tcp4_fixed_id_no_df", "fixed IPv4 IDs without DF merge too on "
	  "6.18 (6.12 wanted DF)",
	  FLOW(T4, NULL, 0, c_id_fixed_no_df, 6, 0) },
	{ "tcp4_id_jump", "the IPv4 ID jumps by 4 at the fourth segment: "
	  "neither fixed nor incrementing, two trains",
	  FLOW(T4, NULL, 3, c_id_jump, 3, 0) },
	{ "tcp4_ip_options", "the third segment has IPv4 options: the "
	  "kernel delivers it at once, ahead of the train it interrupts; "
	  "voff flushes that train first (voff.agrees: reordered)",
	  FLOW(T4, NULL, 2, c_ipopt, 1, 3) },
	{ "tcp4_bad_csum", "the third segment has a bad TCP checksum: "
	  "delivered unverified and, by the kernel, ahead of the train "
	  "before it (voff flushes that train first)",
	  FLOW(T4, NULL, 2, c_bad_csum, 1, 3) },
	{ "tcp4_seq_gap", "a 100-byte hole in the sequence at the fourth "
	  "segment: two trains",
	  FLOW(T4, NULL, 3, c_seq_gap, 3, 0) },
	{ "tcp4_retransmit", "the second segment comes again after the "
	  "third (out of order): it cannot join; nor can the fourth join "
	  "it",
	  .make = g_tcp4_retransmit },
	{ "tcp4_max_size_fits", "gro_max_size 2041: four segments make a "
	  "2040-byte IP datagram, just below the limit; two trains of four",
	  FLOW(T4, NULL, 8, NULL, 0, 0), .gro_max_size = 2041 },
	{ "tcp4_max_size_splits", "gro_max_size 2040: a 2040-byte datagram "
	  "reaches the limit, so trains of three",
	  FLOW(T4, NULL, 8, NULL, 0, 0),
	  .gro_max_size = 2040 },
	{ "tcp6_merge", "five TCP/IPv6 segments merge",
	  FLOW(T6, NULL, 5, NULL, 0, 0) },
	{ "tcp6_hop_limit", "the hop limit changes at the third segment: two "
	  "trains",
	  FLOW(T6, NULL, 2, c_ttl, 3, 0) },
	{ "tcp6_tclass", "the traffic class changes at the third segment: "
	  "two trains",
	  FLOW(T6, NULL, 2, c_tclass, 3, 0) },
	{ "tcp6_dstopts", "identical 8-byte destination options on every "
	  "segment: they merge",
	  FLOW(T6, c_dstopts, 5, NULL, 0, 0) },
	{ "tcp6_psh", "TCP/IPv6, PSH on the third segment: joins and "
	  "flushes",
	  FLOW(T6, NULL, 2, c_psh, 1, 2) },
	{ "udp4_merge", "five 500-byte UDP/IPv4 datagrams (rx-udp-gro-"
	  "forwarding on) become one GSO_UDP_L4 super-packet",
	  FLOW(U4, NULL, 5, NULL, 0, 0) },
	{ "udp4_short_last", "a 200-byte datagram joins and ends the train",
	  FLOW(U4, NULL, 3, c_short, 1, 2) },
	{ "udp4_larger", "a 700-byte datagram after two of 500 starts a new "
	  "train that the next, smaller, one joins and ends",
	  FLOW(U4, NULL, 2, c_long, 1, 2) },
	{ "udp6_merge", "five UDP/IPv6 datagrams merge",
	  FLOW(U6, NULL, 5, NULL, 0, 0) },
	{ "three_flows", "TCP/IPv4, TCP/IPv6 and UDP/IPv4 flows interleaved: "
	  "each merges on its own; flushed oldest flow first",
	  .make = g_three_flows },
	{ "two_flows_psh", "two interleaved TCP flows; PSH on the second "
	  "flow's second segment flushes that flow mid-batch, ahead of the "
	  "older one",
	  .make = g_two_flows_psh },
	{ "nine_flows_evict", "nine flows in one bucket of eight: the ninth "
	  "evicts the oldest (flow 0, already two segments)",
	  .make = g_nine_flows_evict },
};

/* vb's gro_max_size for @g (NULL: back to the default). */
static void gro_settings(const struct gro_case *g)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "ip link set dev vb gro_max_size %u",
		 g && g->gro_max_size ? g->gro_max_size : 65536);
	CHECK_MSG(system(cmd) == 0, "failed: %s", cmd);
}

static bool same_kernel_output(const struct gro_oracle *a,
			       const struct gro_oracle *b)
{
	if (a->n != b->n)
		return false;
	for (int i = 0; i < a->n; i++) {
		const struct gro_kout *x = &a->out[i], *y = &b->out[i];

		if (x->len != y->len || memcmp(x->d, y->d, x->len) ||
		    x->flags != y->flags || x->gso_type != y->gso_type ||
		    x->gso_size != y->gso_size || x->hdr_len != y->hdr_len ||
		    x->csum_start != y->csum_start ||
		    x->csum_offset != y->csum_offset)
			return false;
	}
	return true;
}

/* Send the batch until GRO_RUNS runs in a row agree; the answer in @k. */
static void gro_stable(struct gro_oracle *k, uint8_t (*frames)[2048],
		       const uint32_t *lens, int n, const char *name)
{
	static struct gro_oracle first;

	for (int t = 0; t < GRO_TRIES; t++) {
		bool same = true;

		gro_oracle_send(k, frames, lens, n);
		first = *k;
		for (int r = 1; r < GRO_RUNS && same; r++) {
			gro_oracle_send(k, frames, lens, n);
			same = same_kernel_output(&first, k);
		}
		if (same)
			return;
		fprintf(stderr, "%s: the kernel answered differently, again\n",
			name);
	}
	CHECK_MSG(0, "%s: no stable answer from the kernel", name);
}

static const char *gro_csum_name(uint8_t flags)
{
	if (flags & VOFF_VNET_F_NEEDS_CSUM)
		return "partial";
	if (flags & VOFF_VNET_F_DATA_VALID)
		return "valid";
	return "unverified";
}

static json_object *gro_params(const struct gro_case *g,
			       const struct gro_batch *b)
{
	json_object *p = json_object_new_object();
	json_object *v = json_object_new_object();
	unsigned int gms = g->gro_max_size ? g->gro_max_size : 65536;

	json_object_object_add(p, "gro_max_size", json_object_new_int(
		(int)gms));
	json_object_object_add(p, "rx_udp_gro_forwarding",
			       json_object_new_boolean(true));
	json_object_object_add(p, "batch", json_object_new_int(b->n));
	json_object_object_add(p, "flush", json_object_new_string(
		"one NAPI poll: everything held is flushed after the last "
		"frame, oldest flow first"));
	json_object_object_add(v, "max_flows",
			       json_object_new_int(GRO_ORACLE_FLOWS));
	json_object_object_add(v, "max_size", json_object_new_int(
		(int)(gms - 1 > VOFF_GRO_MAX_DATAGRAM ? VOFF_GRO_MAX_DATAGRAM
						      : gms - 1)));
	json_object_object_add(v, "no_udp", json_object_new_boolean(false));
	json_object_object_add(p, "voff", v);
	return p;
}

static const char gro_oracle_text[] =
	"frames sent with AF_PACKET on veth va (tso, gso off) in one batch, "
	"received by veth vb (gro on, threaded NAPI pinned to the sender's "
	"CPU, the sender SCHED_FIFO while it queues the batch: one NAPI "
	"poll; no hash, so one GRO bucket of 8 flows); what vb delivered "
	"read with AF_PACKET and PACKET_VNET_HDR";

static void gro_one(struct gro_oracle *ko, const struct gro_case *g)
{
	const struct gro_oracle *k = ko;
	static uint8_t frames[GRO_ORACLE_BATCH][2048];
	uint32_t lens[GRO_ORACLE_BATCH];
	struct vec_frames in = { 0 }, out = { 0 };
	static struct gro_batch b;
	json_object *c, *arr;
	char dir[4096];

	gro_make(g, &b);
	for (int i = 0; i < b.n; i++) {
		lens[i] = (uint32_t)sp_build(&b.f[i], frames[i], 2048);
		CHECK_GT(lens[i], 0);
		vec_frames_add(&in, frames[i], lens[i]);
	}
	gro_settings(g);
	gro_stable(ko, frames, lens, b.n, g->name);
	gro_settings(NULL);
	for (int i = 0; i < k->n; i++)
		vec_frames_add(&out, k->out[i].d, k->out[i].len);

	case_dir(dir, sizeof(dir), "gro", g->name);
	write_pcap(dir, "in.pcap", &in);
	write_pcap(dir, "out.pcap", &out);
	c = case_new(g->name, "gro", g->desc, gro_oracle_text);
	json_object_object_add(c, "params", gro_params(g, &b));
	arr = json_object_new_array();
	for (int i = 0; i < in.n; i++) {
		json_object *e = frame_entry(i, l4_csum(in.d[i], in.len[i]),
					     false, 0, 0);

		json_object_object_add(e, "summary",
				       vec_summary(in.d[i], in.len[i]));
		json_object_array_add(arr, e);
	}
	json_object_object_add(c, "input", arr);
	arr = json_object_new_array();
	for (int i = 0; i < k->n; i++) {
		const struct gro_kout *o = &k->out[i];
		struct voff_vnet_hdr h = { .flags = o->flags,
					   .gso_type = o->gso_type,
					   .hdr_len = o->hdr_len,
					   .gso_size = o->gso_size,
					   .csum_start = o->csum_start,
					   .csum_offset = o->csum_offset };
		json_object *e = frame_entry(i, gro_csum_name(o->flags), true,
					     o->csum_start, o->csum_offset);

		json_object_object_add(e, "vnet_hdr", vec_vnet_json(&h, 10));
		json_object_object_add(e, "summary",
				       vec_summary(o->d, o->len));
		json_object_array_add(arr, e);
	}
	json_object_object_add(c, "output", arr);
	case_finish(c, dir, true);
	json_object_put(c);
	vec_frames_free(&in);
	vec_frames_free(&out);
}

static void t_gro(void)
{
	static struct gro_oracle k;

	gro_oracle_open(&k);
	for (size_t i = 0; i < sizeof(gro_cases) / sizeof(gro_cases[0]); i++)
		gro_one(&k, &gro_cases[i]);
}

CHECK_MAIN(CHECK_TEST(t_gso), CHECK_TEST(t_gro))
