/* SPDX-License-Identifier: MIT */
/*
 * test_gro_fast.c - the GRO fast path (per-flow templates, gro.c) against
 * the full path: random interleaved sequences go through an engine with
 * the fast path off (voff__gro_set_fast()), one with it on fed frame by
 * frame, and one with it on fed through voff_gro_receive_burst(); the
 * three must emit the same packets (bytes, boundaries, metadata, handed
 * back or not) in the same order
 *
 * The inputs are made for the fast path: mostly trusted checksums, long
 * in-sequence runs of many interleaved flows, and then every way a frame
 * can differ from its flow's template: flags, window, ack, timestamps,
 * sequence gaps, IP-ID jumps and fixed IDs, TTL, TOS, DF, flow label, a
 * random header byte flipped (in a masked field or not; the IPv4 header
 * checksum then fails), short frames (shorter than a template), padding,
 * GSO inputs, unverified or PARTIAL checksums, more header layouts than
 * the engine keeps templates for (VLAN, TCP options, IPv6 extension
 * headers), full tables (eviction), timeouts, size and segment limits.
 */
#include <errno.h>
#include <stdio.h>

#include "gro_int.h"
#include "check.h"
#include "frames.h"
#include "gro_gen.h"
#include "gro_util.h"

#define MAXF 48
#define SEQ_MAX 240
#define BURST_MAX 40

/* Mostly long in-sequence runs of TCP flows, with every kind of change. */
static const struct gro_gen_mix mix = {
	.v6 = 35, .udp = 10, .sport = 100, .srcs = 3, .df = 70,
	.fixed_id = 25, .big_mss = 70, .big_min = 100, .big_max = 1448,
	.small_max = 60, .vlan = 20, .ext = 20, .ext_units = 2, .ts = 60,
	.ts_long = 20,
	.shorter = 6, .longer = 3, .longer_max = 20, .flag = 6, .win = 2,
	.tsval = 2, .ack = 2, .seq_jump = 2, .seq_back = 2, .id_jump = 2,
	.ttl = 1, .tos = 1, .tos_values = 4, .df_flip = 1, .flow_label = 1,
	.bad_csum = 1, .ipopt = 1, .pad = 1,
};

/* One input frame and the receive state it comes with. */
struct in {
	uint8_t d[1600];
	uint32_t len;
	uint8_t csum;
	uint32_t gso_type;
	uint16_t gso_size;
};

static struct in ins[SEQ_MAX];
static struct run A, B, C;	/* full path; fast per frame; fast, bursts */

/* Rewrite the checksum of the IPv4 header at @ip (as long as it says). */
static void ip4_fix_csum(uint8_t *ip, unsigned int room)
{
	unsigned int n = (unsigned int)(ip[0] & 15) * 4;
	uint32_t sum = 0;

	if (n < 20 || n > room)
		n = 20;
	ip[10] = 0;
	ip[11] = 0;
	for (unsigned int i = 0; i < n; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	ip[10] = (uint8_t)(~sum >> 8);
	ip[11] = (uint8_t)~sum;
}

static void make_input(struct in *in, struct gro_gen_flow *g)
{
	struct sp s = gro_gen_seg(g);
	size_t len = sp_build(&s, in->d, sizeof(in->d));
	unsigned int r = check_rnd(100);

	CHECK_GT(len, 0);
	in->len = (uint32_t)len;
	/* A bad IPv4 header checksum: a masked field the fast path checks. */
	if (!s.v6 && check_chance(2)) {
		unsigned int l3 = s.raw ? 0 : 14 + (s.vlan ? 4 : 0);

		in->d[l3 + 10 + check_rnd(2)] ^= (uint8_t)(1 << check_rnd(8));
	}
	/* A header byte flipped: the lookup, the mask and the checks. */
	if (check_chance(4))
		in->d[check_rnd(len < 100 ? (unsigned int)len : 100)] ^=
			(uint8_t)(1 << check_rnd(8));
	/*
	 * A byte that decides the layout or whether a new flow's frame may
	 * be held (ethertype or TPID, IP version and header length,
	 * protocol or next header, fragment bits, TCP data offset and
	 * flags): what the fast hold checks instead of parsing.
	 */
	if (check_chance(4)) {
		unsigned int l3 = s.raw ? 0 : 14 + (s.vlan ? 4 : 0);
		unsigned int l4 = l3 + (s.v6 ? 40u + s.ext_len : 20u + s.ipopt);
		unsigned int at[] = { l3 ? l3 - 2 : 0, l3 ? l3 - 1 : 0,
				      s.raw || !s.vlan ? l3 : 12, l3,
				      l3 + 6, l3 + (s.v6 ? 6 : 9), l3 + 7,
				      l4 + 12, l4 + 13 };
		unsigned int o = at[check_rnd(sizeof(at) / sizeof(at[0]))];

		if (o < len)
			in->d[o] ^= (uint8_t)(1 << check_rnd(8));
		/* Mostly with a valid IPv4 header checksum again, or the
		 * checksum alone would reject the frame. */
		if (!s.v6 && check_chance(75))
			ip4_fix_csum(in->d + l3, (unsigned int)len - l3);
	}
	in->csum = r < 85 ? VOFF_CSUM_VALID :
		   r < 92 ? VOFF_CSUM_PARTIAL : VOFF_CSUM_NONE;
	in->gso_type = 0;
	in->gso_size = 0;
	if (check_chance(1)) {
		in->gso_type = s.v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
		in->gso_size = check_chance(50) ? 100 : 0;
	}
}

static struct voff_pkt *alloc_in(struct run *r, const struct in *in)
{
	struct voff_pkt *p;

	CHECK_OK(voff_pkt_alloc(r->pool, &p));
	CHECK_OK(voff_pkt_set_data(p, in->d, in->len));
	p->csum = in->csum;
	p->gso_type = in->gso_type;
	p->gso_size = in->gso_size;
	return p;
}

static void feed_one(struct run *r, const struct in *in, uint64_t now)
{
	struct voff_pkt *p = alloc_in(r, in);
	int rc = voff_gro_receive(r->g, p, now);

	CHECK_GE(rc, 0);
	if (rc == VOFF_GRO_PASS) {
		run_collect(r);
		run_record(r, p, true);
		voff_pkt_free(p);
	}
}

/* A burst through voff_gro_receive_burst(), handed-back frames delivered
 * as gro.h asks: queue first, then the frame. */
static void feed_burst(struct run *r, const struct in *in, int n,
		       uint64_t now)
{
	struct voff_pkt *p[BURST_MAX];
	int i = 0;

	for (int k = 0; k < n; k++)
		p[k] = alloc_in(r, &in[k]);
	while (i < n) {
		int k = voff_gro_receive_burst(r->g, p + i,
					       (unsigned int)(n - i), now);

		CHECK_GE(k, 0);
		CHECK_LE(k, n - i);
		i += k;
		if (i < n) {
			run_collect(r);
			run_record(r, p[i], true);
			voff_pkt_free(p[i]);
			i++;
		}
	}
}

static void check_same(const struct run *x, const struct run *y)
{
	CHECK_EQ(x->n, y->n);
	for (int i = 0; i < x->n; i++) {
		const struct rec *a = &x->out[i], *b = &y->out[i];

		CHECK_EQ(a->len, b->len);
		CHECK_EQ(a->passed, b->passed);
		CHECK_EQ(a->gso_type, b->gso_type);
		CHECK_EQ(a->gso_size, b->gso_size);
		CHECK_EQ(a->gso_segs, b->gso_segs);
		CHECK_EQ(a->csum, b->csum);
		if (a->csum == VOFF_CSUM_PARTIAL) {
			CHECK_EQ(a->csum_start, b->csum_start);
			CHECK_EQ(a->csum_offset, b->csum_offset);
		}
		CHECK(memcmp(a->d, b->d, a->len) == 0);
	}
}

static unsigned long n_out, n_merged_out, n_fast_seqs;

static void one_sequence(bool sg, bool raw)
{
	struct voff_gro_config cfg = { .start = raw ? VOFF_PARSE_IP
						    : VOFF_PARSE_ETH };
	struct gro_gen_flow gf[MAXF];
	int nflows = 1 + (int)check_rnd(check_chance(50) ? 4 : MAXF);
	int nin = 50 + (int)check_rnd(SEQ_MAX - 50);
	bool runs = check_chance(30);
	uint64_t now = 1000;
	int i = 0;

	cfg.max_flows = check_chance(70) ? 64 : 1 + check_rnd(16);
	cfg.max_size = check_chance(20) ? 200 + check_rnd(6000) : 0;
	cfg.max_segs = check_chance(20) ? 2 + check_rnd(10) : 0;
	cfg.no_udp = check_chance(20);
	cfg.flush_timeout_ns = check_chance(25) ? 1 + check_rnd(50) : 0;
	cfg.sg = sg;
	run_init(&A, &cfg);
	run_init(&B, &cfg);
	run_init(&C, &cfg);
	voff__gro_set_fast(A.g, false);
	for (int k = 0; k < nflows; k++)
		gro_gen_flow(&gf[k], &mix, k, raw);
	/* Round robin with random skips, or runs of one flow. */
	for (int k = 0, f = 0; k < nin; k++) {
		if (runs ? check_chance(10) : !check_chance(10)) {
			int skip = check_chance(20) ? (int)check_rnd(3) : 0;

			f = (f + 1 + skip) % nflows;
		}
		make_input(&ins[k], &gf[f]);
	}
	while (i < nin) {
		int n = 1 + (int)check_rnd(BURST_MAX);

		if (n > nin - i)
			n = nin - i;
		for (int k = 0; k < n; k++) {
			feed_one(&A, &ins[i + k], now);
			feed_one(&B, &ins[i + k], now);
		}
		feed_burst(&C, &ins[i], n, now);
		i += n;
		now += check_rnd(20);
		if (check_chance(30)) {
			voff_gro_flush(A.g, now);
			voff_gro_flush(B.g, now);
			voff_gro_flush(C.g, now);
			run_collect(&A);
			run_collect(&B);
			run_collect(&C);
		}
	}
	run_end(&A);
	run_end(&B);
	run_end(&C);
	check_same(&A, &B);
	check_same(&A, &C);
	{
		struct voff_gro_stats sa, sb;

		voff_gro_stats(A.g, &sa);
		voff_gro_stats(B.g, &sb);
		CHECK_EQ(sa.in, sb.in);
		CHECK_EQ(sa.merged, sb.merged);
		CHECK_EQ(sa.held, sb.held);
		CHECK_EQ(sa.passed, sb.passed);
		CHECK_EQ(sa.out_merged, sb.out_merged);
		CHECK_EQ(sa.csum_bad, sb.csum_bad);
		n_merged_out += sa.out_merged;
		if (sb.merged > sb.held)
			n_fast_seqs++;
	}
	n_out += (unsigned long)A.n;
	run_fini(&A);
	run_fini(&B);
	run_fini(&C);
}

static void check_coverage(void)
{
	if (getenv("GRO_FAST_VERBOSE"))
		fprintf(stderr, "%lu outputs, %lu super-packets\n", n_out,
			n_merged_out);
	CHECK_GT(n_merged_out, n_out / 10);
}

static void t_fast_copy(void)
{
	for (int i = 0; i < 100; i++)
		one_sequence(false, false);
	check_coverage();
}

static void t_fast_sg(void)
{
	for (int i = 0; i < 100; i++)
		one_sequence(true, false);
	check_coverage();
}

static void t_fast_raw(void)
{
	for (int i = 0; i < 40; i++)
		one_sequence(i & 1, true);
	check_coverage();
}

/* The API's edges: bad arguments, an empty burst. */
static void t_burst_args(void)
{
	struct voff_gro *g;
	struct voff_pkt *p[2] = { NULL, NULL };

	CHECK_OK(voff_gro_new(&g, NULL));
	CHECK_EQ(voff_gro_receive_burst(NULL, p, 0, 0), -EINVAL);
	CHECK_EQ(voff_gro_receive_burst(g, NULL, 1, 0), -EINVAL);
	CHECK_EQ(voff_gro_receive_burst(g, p, 2, 0), -EINVAL);
	CHECK_EQ(voff_gro_receive_burst(g, NULL, 0, 0), 0);
	CHECK_EQ(voff_gro_receive_burst(g, p, 0, 0), 0);
	voff_gro_free(g);
}

CHECK_MAIN(CHECK_TEST(t_fast_copy), CHECK_TEST(t_fast_sg),
	   CHECK_TEST(t_fast_raw), CHECK_TEST(t_burst_args))
