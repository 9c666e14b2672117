/* SPDX-License-Identifier: MIT */
/*
 * test_gro_prop.c - randomized properties of the GRO engine against a
 * naive twin
 *
 * The twin is a second GRO written the plainest way: a list of held flows
 * searched linearly, every rule re-derived from the frame bytes of the
 * head and of the new segment (no cached offsets, no hash), merged
 * packets built by concatenation in malloc'd buffers and finished with a
 * byte-wise checksum.  Random sequences of interleaved flows (TCP and UDP,
 * IPv4 and IPv6, VLAN tags, extension headers, options) with random
 * mutations (sizes, flags, window, timestamps, ack, gaps and reordering,
 * IP-ID jumps and fixed IDs, TTL, TOS, DF, flow label, bad checksums, IPv4
 * options, fragments, padding), random batch ends, table sizes and size
 * limits go through both, in copy mode and in sg mode; outputs must be
 * identical: count, order, bytes after checksum completion, GSO metadata
 * and checksum state.  Independently of the twin, three properties hold
 * for every sequence: each flow's payload byte stream is unchanged, no
 * output carries segments of its flow out of order, and every output's
 * checksums verify after completion (unless its input's did not).
 */
#include "check.h"
#include "frames.h"
#include "gro_gen.h"
#include "gro_util.h"

#define MAXF 8
#define TW_MAX 64

/* ---- the naive twin ----------------------------------------------------- */

struct tw_pkt {
	uint8_t *d;
	uint32_t len;
};

struct tw_out {
	uint8_t *d;
	uint32_t len;
	uint32_t gso_type;
	uint16_t gso_size;
	uint16_t gso_segs;
	uint8_t csum;
};

struct tw_flow {
	uint8_t *d;		/* head frame, payload of later segments appended */
	uint32_t len;
	uint16_t segs;
	uint16_t gso_size;
	int idmode;		/* 0 unset, 1 incrementing, 2 fixed */
	bool verified;
	uint8_t in_csum;
};

struct twin {
	struct voff_gro_config cfg;
	struct tw_flow fl[TW_MAX];	/* oldest first */
	int nfl;
	struct tw_out out[REC_MAX];
	int nout;
	bool trusted;		/* inputs marked VALID: checksums not read */
};

/* Plain parse of one frame, as the rules need it. */
struct tw_info {
	int ok;			/* 0 not ours, 1 skip (flush+pass), 2 candidate */
	uint32_t l3, l4, pay, end;
	int ver, udp;
};

static uint16_t g16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t g32(const uint8_t *p)
{
	return (uint32_t)g16(p) << 16 | g16(p + 2);
}

static uint32_t naive_sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i < n; i++)
		s += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	return s;
}

static uint16_t naive_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

static uint32_t tw_pseudo(const uint8_t *d, const struct tw_info *t,
			  uint32_t l4_len)
{
	uint32_t s = (uint32_t)(t->udp ? 17 : 6) + (l4_len & 0xFFFF) +
		     (l4_len >> 16);

	if (t->ver == 4)
		return naive_sum(d + t->l3 + 12, 8, s);
	return naive_sum(d + t->l3 + 8, 32, s);
}

static bool tw_l4_ok(const uint8_t *d, const struct tw_info *t)
{
	uint32_t n = t->end - t->l4;

	return naive_fold(naive_sum(d + t->l4, n, tw_pseudo(d, t, n))) == 0;
}

static struct tw_info tw_parse(const struct twin *tw, const uint8_t *d,
			       uint32_t len)
{
	struct tw_info t = { 0 };
	uint32_t off = 12;
	uint16_t type;
	uint8_t nh;

	if (tw->cfg.start == VOFF_PARSE_IP) {
		t.l3 = 0;
		type = len && d[0] >> 4 == 6 ? 0x86DD : 0x0800;
	} else {
		type = g16(d + off);
		while (type == 0x8100) {
			off += 4;
			type = g16(d + off);
		}
		t.l3 = off + 2;
	}
	if (type == 0x0800) {
		const uint8_t *ip = d + t.l3;
		uint32_t ihl = (ip[0] & 15u) * 4;

		t.ver = 4;
		t.end = t.l3 + g16(ip + 2);
		nh = ip[9];
		t.l4 = t.l3 + ihl;
		t.ok = 2;
		if (ihl != 20 || (g16(ip + 6) & 0xBFFF) || t.end != len ||
		    naive_fold(naive_sum(ip, 20, 0)) != 0)
			t.ok = 1;
	} else {
		const uint8_t *ip = d + t.l3;

		t.ver = 6;
		t.end = t.l3 + 40 + g16(ip + 4);
		nh = ip[6];
		t.l4 = t.l3 + 40;
		while (nh == 60) {
			nh = d[t.l4];
			t.l4 += (d[t.l4 + 1] + 1u) * 8;
		}
		t.ok = t.end == len ? 2 : 1;
	}
	t.udp = nh == 17;
	if (t.udp) {
		t.pay = t.l4 + 8;
		if (g16(d + t.l4 + 6) == 0 || g16(d + t.l4 + 4) != t.end - t.l4)
			t.ok = 1;
	} else {
		t.pay = t.l4 + (d[t.l4 + 12] >> 4) * 4u;
	}
	if (t.udp && tw->cfg.no_udp)
		t.ok = 0;	/* not ours: offsets kept for the checks */
	return t;
}

/* Same flow: L2 bytes, version, protocol, addresses and ports. */
static bool tw_same_flow(const uint8_t *a, const struct tw_info *ta,
			 const uint8_t *b, const struct tw_info *tb)
{
	uint32_t alen = ta->ver == 4 ? 8 : 32, aoff = ta->ver == 4 ? 12 : 8;

	return ta->l3 == tb->l3 && !memcmp(a, b, ta->l3) &&
	       ta->ver == tb->ver && ta->udp == tb->udp &&
	       !memcmp(a + ta->l3 + aoff, b + tb->l3 + aoff, alen) &&
	       !memcmp(a + ta->l4, b + tb->l4, 4);
}

static void tw_emit(struct twin *tw, uint8_t *d, uint32_t len, uint32_t gt,
		    uint16_t gs, uint16_t segs, uint8_t csum)
{
	struct tw_out *o = &tw->out[tw->nout++];

	o->d = d;
	o->len = len;
	o->gso_type = gt;
	o->gso_size = gs;
	o->gso_segs = segs;
	o->csum = csum;
}

static void tw_flush(struct twin *tw, int i)
{
	struct tw_flow *f = &tw->fl[i];
	struct tw_info t = tw_parse(tw, f->d, f->len);
	uint8_t *ip = f->d + t.l3;
	uint32_t gt;
	uint16_t c;

	if (f->segs == 1) {
		tw_emit(tw, f->d, f->len, 0, 0, 0,
			f->verified && f->in_csum == VOFF_CSUM_NONE
				? VOFF_CSUM_VALID
				: f->in_csum);
	} else {
		/* t.end is stale (old lengths): recompute from the length. */
		t.end = f->len;
		if (t.ver == 4) {
			ip[2] = (uint8_t)((f->len - t.l3) >> 8);
			ip[3] = (uint8_t)(f->len - t.l3);
			ip[10] = ip[11] = 0;
			c = naive_fold(naive_sum(ip, 20, 0));
			ip[10] = (uint8_t)(c >> 8);
			ip[11] = (uint8_t)c;
		} else {
			ip[4] = (uint8_t)((f->len - t.l3 - 40) >> 8);
			ip[5] = (uint8_t)(f->len - t.l3 - 40);
		}
		if (t.udp) {
			f->d[t.l4 + 4] = (uint8_t)((f->len - t.l4) >> 8);
			f->d[t.l4 + 5] = (uint8_t)(f->len - t.l4);
			gt = VOFF_GSO_UDP_L4;
		} else {
			gt = t.ver == 4 ? VOFF_GSO_TCPV4 : VOFF_GSO_TCPV6;
			if (t.ver == 4 && f->idmode == 2)
				gt |= VOFF_GSO_TCP_FIXEDID;
			if (f->d[t.l4 + 13] & TF_CWR)
				gt |= VOFF_GSO_TCP_ECN;
		}
		/* The engine leaves a seed; compare after completion. */
		{
			uint32_t at = t.l4 + (t.udp ? 6 : 16);

			f->d[at] = f->d[at + 1] = 0;
			c = naive_fold(naive_sum(f->d + t.l4, f->len - t.l4,
						 tw_pseudo(f->d, &t,
							   f->len - t.l4)));
			if (c == 0)
				c = 0xFFFF;
			f->d[at] = (uint8_t)(c >> 8);
			f->d[at + 1] = (uint8_t)c;
		}
		tw_emit(tw, f->d, f->len, gt, f->gso_size, f->segs,
			VOFF_CSUM_PARTIAL);
	}
	memmove(&tw->fl[i], &tw->fl[i + 1],
		(size_t)(tw->nfl - i - 1) * sizeof(tw->fl[0]));
	tw->nfl--;
}

static uint8_t *dup_bytes(const uint8_t *d, uint32_t len, uint32_t cap)
{
	uint8_t *p = malloc(cap);

	CHECK(p != NULL);
	memcpy(p, d, len);
	return p;
}

/* May @d (info @t) join held flow @f? Rules: kernel-model.md §3, §6. */
static bool tw_can_join(const struct twin *tw, const struct tw_flow *f,
			const uint8_t *d, const struct tw_info *t, int *mode)
{
	struct tw_info h = tw_parse(tw, f->d, f->len);
	const uint8_t *hi = f->d + h.l3, *ni = d + t->l3;
	uint32_t pay = t->end - t->pay;

	*mode = f->idmode;
	if (t->ver == 4) {
		uint16_t step = (uint16_t)(g16(ni + 4) - g16(hi + 4));

		if (hi[1] != ni[1] || hi[8] != ni[8] ||
		    (hi[6] & 0x40) != (ni[6] & 0x40))
			return false;
		if (f->segs == 1)
			*mode = step == 0 ? 2 : 1;
		if (step != (*mode == 2 ? 0 : f->segs))
			return false;
	} else {
		if (memcmp(hi, ni, 4) || hi[6] != ni[6] || hi[7] != ni[7] ||
		    h.l4 != t->l4 || memcmp(hi + 40, ni + 40, h.l4 - h.l3 - 40))
			return false;
	}
	if ((f->len - h.l3) + pay > tw->cfg.max_size)
		return false;
	if (f->segs >= tw->cfg.max_segs)
		return false;
	if (t->udp)
		return pay <= f->gso_size;
	{
		const uint8_t *ht = f->d + h.l4, *nt = d + t->l4;
		uint32_t hw = g32(ht + 12), nw = g32(nt + 12);
		uint32_t held_pay = f->len - h.pay;

		if (nt[13] & TF_CWR)
			return false;
		if ((hw ^ nw) & ~(uint32_t)((TF_FIN | TF_PSH) << 16))
			return false;
		if (memcmp(ht + 8, nt + 8, 4) ||
		    memcmp(ht + 20, nt + 20, t->pay - t->l4 - 20))
			return false;
		if (g32(nt + 4) != g32(ht + 4) + held_pay)
			return false;
		return pay > 0 && pay <= f->gso_size;
	}
}

static void tw_pass(struct twin *tw, const uint8_t *d, uint32_t len,
		    uint8_t csum)
{
	tw_emit(tw, dup_bytes(d, len, len ? len : 1), len, 0, 0, 0, csum);
}

static void tw_receive(struct twin *tw, const uint8_t *d, uint32_t len)
{
	struct tw_info t = tw_parse(tw, d, len);
	uint8_t in_csum = tw->trusted ? VOFF_CSUM_VALID : VOFF_CSUM_NONE;
	int fi = -1, mode;
	bool ok;

	if (t.ok == 0) {
		tw_pass(tw, d, len, in_csum);
		return;
	}
	for (int i = 0; i < tw->nfl; i++) {
		struct tw_info h = tw_parse(tw, tw->fl[i].d, tw->fl[i].len);

		if (tw_same_flow(tw->fl[i].d, &h, d, &t))
			fi = i;
	}
	if (t.ok == 1) {
		if (fi >= 0)
			tw_flush(tw, fi);
		tw_pass(tw, d, len, in_csum);
		return;
	}
	ok = tw->trusted || tw_l4_ok(d, &t);
	if (fi >= 0 && ok && tw_can_join(tw, &tw->fl[fi], d, &t, &mode)) {
		struct tw_flow *f = &tw->fl[fi];
		uint32_t pay = t.end - t.pay;
		uint8_t fl = t.udp ? 0 : d[t.l4 + 13];
		struct tw_info h = tw_parse(tw, f->d, f->len);

		memcpy(f->d + f->len, d + t.pay, pay);
		f->len += pay;
		f->segs++;
		f->idmode = mode;
		if (!t.udp)
			f->d[h.l4 + 13] |= fl & (TF_FIN | TF_PSH);
		if (pay < f->gso_size || f->segs >= tw->cfg.max_segs ||
		    (t.udp && f->segs >= 64) ||
		    (fl & (TF_URG | TF_PSH | TF_RST | TF_SYN | TF_FIN)))
			tw_flush(tw, fi);
		return;
	}
	if (fi >= 0)
		tw_flush(tw, fi);
	if (!ok) {
		tw_pass(tw, d, len, VOFF_CSUM_NONE);
		return;
	}
	if (t.end == t.pay || (!t.udp && (d[t.l4 + 13] & (TF_URG | TF_PSH |
							  TF_RST | TF_SYN |
							  TF_FIN)))) {
		tw_pass(tw, d, len, VOFF_CSUM_VALID);
		return;
	}
	if (tw->nfl == (int)tw->cfg.max_flows)
		tw_flush(tw, 0);
	{
		struct tw_flow *f = &tw->fl[tw->nfl++];

		memset(f, 0, sizeof(*f));
		f->d = dup_bytes(d, len, 70000);
		f->len = len;
		f->segs = 1;
		f->gso_size = (uint16_t)(t.end - t.pay);
		f->verified = true;
		f->in_csum = in_csum;
	}
}

static void tw_flush_all(struct twin *tw)
{
	while (tw->nfl)
		tw_flush(tw, 0);
}

/* ---- random sequences --------------------------------------------------- */

/* Interleaved TCP and UDP flows, changed often, some never mergeable. */
static const struct gro_gen_mix mix = {
	.v6 = 40, .udp = 25, .sport = 100, .df = 50, .fixed_id = 30,
	.big_mss = 20, .big_min = 1, .big_max = 1448, .small_max = 200,
	.vlan = 20, .ext = 20, .ext_units = 1, .ts = 40,
	.shorter = 8, .longer = 4, .longer_max = 20, .flag = 12, .win = 3,
	.tsval = 3, .ack = 2, .seq_jump = 3, .seq_back = 3, .id_jump = 3,
	.ttl = 2, .tos = 2, .tos_values = 4, .df_flip = 1, .flow_label = 2,
	.bad_csum = 2, .ipopt = 2, .mf = 1, .pad = 1, .no_csum = 1,
};

/* ---- one random sequence through engine and twin ----------------------- */

struct input {
	uint8_t *d;
	uint32_t len;
	uint16_t sport;
	bool bad;	/* checksum deliberately broken */
};

static struct input inputs[REC_MAX];
static unsigned long n_super, n_segs_merged, n_passed, n_out;
static struct twin TW;
static struct run R;

static uint16_t rec_sport(const struct rec *o, const struct twin *tw)
{
	struct tw_info t = tw_parse(tw, o->d, o->len);

	return g16(o->d + t.l4);
}

static void check_equal(void)
{
	CHECK_EQ(R.n, TW.nout);
	for (int i = 0; i < R.n; i++) {
		struct rec *o = &R.out[i];
		struct tw_out *w = &TW.out[i];

		rec_complete(o);
		n_out++;
		n_passed += o->passed;
		if (o->gso_segs > 1) {
			n_super++;
			n_segs_merged += o->gso_segs;
		}
		CHECK_MSG(o->len == w->len, "output %d: len %u vs twin %u", i,
			  o->len, w->len);
		CHECK_MEM_EQ(o->d, w->d, o->len);
		CHECK_EQ(o->gso_type, w->gso_type);
		CHECK_EQ(o->gso_size, w->gso_size);
		CHECK_EQ(o->gso_segs, w->gso_segs);
		CHECK_EQ(o->csum, w->csum);
	}
}

/* Stream, order and checksum properties, without the twin. */
static void check_properties(int nin)
{
	int next[MAXF * 4] = { 0 };

	for (int i = 0; i < R.n; i++) {
		struct rec *o = &R.out[i];
		struct tw_info t = tw_parse(&TW, o->d, o->len);
		uint16_t sport = rec_sport(o, &TW);
		int segs = o->gso_segs > 1 ? o->gso_segs : 1;
		uint32_t at = t.pay, total = 0;
		int fi = sport - 100, k = 0;
		bool bad = false;

		/* The next @segs inputs of this flow, in input order. */
		for (int j = next[fi]; k < segs && j < nin; j++) {
			struct input *in = &inputs[j];
			struct tw_info ti;
			uint32_t pay;

			if (in->sport != sport)
				continue;
			ti = tw_parse(&TW, in->d, in->len);
			pay = ti.end - ti.pay;
			CHECK_LE(at + pay, o->len);
			CHECK_MEM_EQ(o->d + at, in->d + ti.pay, pay);
			at += pay;
			total += pay;
			bad |= in->bad;
			next[fi] = j + 1;
			k++;
		}
		CHECK_MSG(k == segs, "output %d (port %u): %d of %d segments",
			  i, sport, k, segs);
		CHECK_EQ(at, segs > 1 ? o->len : t.end);
		CHECK_EQ(t.pay + total, at);
		if (!bad) {
			CHECK(tw_l4_ok(o->d, &t));
			if (t.ver == 4)
				CHECK_EQ(naive_fold(naive_sum(
						 o->d + t.l3,
						 (o->d[t.l3] & 15u) * 4, 0)),
					 0);
		}
	}
}

/*
 * With @trusted every input is marked VOFF_CSUM_VALID, as a receive path
 * with checksum offload marks them: no checksum is read, and runs of one
 * flow take the engine's fast path (gro.c), which must decide as the full
 * path does.
 */
static void one_sequence(bool sg, bool raw, bool trusted)
{
	struct voff_gro_config cfg = { .start = raw ? VOFF_PARSE_IP
						    : VOFF_PARSE_ETH };
	struct gro_gen_flow gf[MAXF];
	int nflows = 1 + (int)check_rnd(MAXF), nin = 20 + (int)check_rnd(150);
	static uint8_t buf[70000];

	cfg.max_flows = 1 + check_rnd(8);
	cfg.max_size = check_chance(30) ? 200 + check_rnd(3000) : 0;
	cfg.max_segs = check_chance(20) ? 2 + check_rnd(6) : 0;
	cfg.no_udp = check_chance(20);
	cfg.sg = sg;
	run_init(&R, &cfg);
	memset(&TW, 0, sizeof(TW));
	TW.cfg = cfg;
	TW.trusted = trusted;
	TW.cfg.max_size = cfg.max_size ? cfg.max_size : 65535;
	TW.cfg.max_segs = cfg.max_segs ? cfg.max_segs : 65535;
	if (sg && TW.cfg.max_segs > VOFF_GRO_SG_MAX_SEGS)
		TW.cfg.max_segs = VOFF_GRO_SG_MAX_SEGS;
	for (int i = 0; i < nflows; i++)
		gro_gen_flow(&gf[i], &mix, i, raw);
	for (int i = 0; i < nin; i++) {
		struct gro_gen_flow *g = &gf[check_rnd((unsigned int)nflows)];
		struct sp s = gro_gen_seg(g);
		size_t len = sp_build(&s, buf, sizeof(buf));

		CHECK_GT(len, 0);
		inputs[i].d = dup_bytes(buf, (uint32_t)len, (uint32_t)len);
		inputs[i].len = (uint32_t)len;
		inputs[i].sport = s.sport;
		inputs[i].bad = s.bad_csum || s.no_csum;
		run_feed_bytes(&R, buf, len,
			       trusted ? VOFF_CSUM_VALID : VOFF_CSUM_NONE, 0);
		tw_receive(&TW, buf, (uint32_t)len);
		if (check_chance(5)) {
			voff_gro_flush(R.g, 0);
			run_collect(&R);
			tw_flush_all(&TW);
		}
	}
	run_end(&R);
	tw_flush_all(&TW);
	check_equal();
	check_properties(nin);
	for (int i = 0; i < TW.nout; i++)
		free(TW.out[i].d);
	for (int i = 0; i < nin; i++)
		free(inputs[i].d);
	run_fini(&R);
}

/* The sequences must exercise both merging and passing. */
static void check_coverage(void)
{
	if (getenv("GRO_PROP_VERBOSE"))
		fprintf(stderr, "%lu outputs, %lu passed, %lu super-packets "
			"of %lu segments\n", n_out, n_passed, n_super,
			n_segs_merged);
	CHECK_GT(n_super, n_out / 20);
	CHECK_GT(n_passed, n_out / 20);
	CHECK_GT(n_segs_merged, 2 * n_super);
}

static void t_random_copy(void)
{
	for (int i = 0; i < 300; i++)
		one_sequence(false, false, false);
	check_coverage();
}

static void t_random_sg(void)
{
	for (int i = 0; i < 300; i++)
		one_sequence(true, false, false);
	check_coverage();
}

static void t_random_raw(void)
{
	for (int i = 0; i < 150; i++)
		one_sequence(i & 1, true, false);
	check_coverage();
}

/* Trusted checksums: the fast path in both modes, Ethernet and raw IP. */
static void t_random_trusted(void)
{
	for (int i = 0; i < 300; i++)
		one_sequence(i & 1, (i & 3) == 3, true);
	check_coverage();
}

CHECK_MAIN(CHECK_TEST(t_random_copy), CHECK_TEST(t_random_sg),
	   CHECK_TEST(t_random_raw), CHECK_TEST(t_random_trusted))
