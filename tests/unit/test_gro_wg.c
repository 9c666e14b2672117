/* SPDX-License-Identifier: MIT */
/*
 * test_gro_wg.c - wireguard-go's tun/offload_linux_test.go GRO vectors
 * (docs/peers.md §5.A), re-derived for voff
 *
 * wireguard-go coalesces raw IP packets read from a TUN device, each
 * behind a 10-byte virtio_net_hdr; its expected lengths exclude that
 * header.  Here the frames are the same raw IP packets (VOFF_PARSE_IP, no
 * vnet header: the codec is another module), so the lengths compare
 * directly.  Their packets: 192.0.2.1:1 -> 192.0.2.{2,3}:1 and
 * [2001:db8::1]:1 -> [2001:db8::{2,3}]:1, ack 1, window 3000, TTL / hop
 * limit 64, IPv4 ID 0 and DF clear, so on 6.18 every IPv4 flow runs in
 * fixed-ID mode.
 *
 * wireguard-go rewrites its batch in place and lists outputs by the index
 * of their first packet; voff delivers a packet it will not hold at once
 * and held flows at the end of the batch, oldest first.  So each case
 * states voff's own order and checks that, sorted like wireguard-go's, the
 * lengths are wireguard-go's.  One case differs on purpose: wireguard-go
 * merges "out of order" segments (101, 1, 201) into one 340-byte packet by
 * prepending; the kernel, and voff, never merge backwards
 * (docs/kernel-model.md §3.2, TCP rule 7).
 */
#include "check.h"
#include "frames.h"
#include "gro_util.h"

static struct run R;

enum { T4, T6, U4, U6 };

/* One wireguard-go packet: kind, destination .2 (B) or .3 (C), seq. */
static struct sp wg(int kind, int dst_c, uint32_t seq)
{
	struct sp s = { .raw = true, .sport = 1, .dport = 1, .ack = 1,
			.len = 100, .seq = seq,
			.dst_last = (uint8_t)(dst_c ? 3 : 2) };

	s.v6 = kind == T6 || kind == U6;
	s.udp = kind == U4 || kind == U6;
	return s;
}

static void run_wg(const struct sp *in, int n, bool udp, const int *want,
		   int nwant, const int *wg_sorted)
{
	struct voff_gro_config cfg = { .start = VOFF_PARSE_IP,
				       .no_udp = !udp };
	int sorted[32];

	run_init(&R, &cfg);
	for (int i = 0; i < n; i++)
		run_feed(&R, &in[i], 0);
	run_end(&R);
	CHECK_EQ(R.n, nwant);
	for (int i = 0; i < nwant; i++) {
		CHECK_MSG((int)R.out[i].len == want[i], "output %d: %u vs %d",
			  i, R.out[i].len, want[i]);
		sorted[i] = want[i];
	}
	/* Same multiset of lengths as wireguard-go's list. */
	for (int i = 0; i < nwant; i++) {
		bool found = false;

		for (int j = 0; j < nwant; j++) {
			if (sorted[j] == wg_sorted[i]) {
				sorted[j] = -1;
				found = true;
				break;
			}
		}
		CHECK_MSG(found, "wireguard-go length %d missing", wg_sorted[i]);
	}
	run_fini(&R);
}

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const struct sp *multi(void)
{
	static struct sp in[11];

	in[0] = wg(T4, 0, 1);
	in[1] = wg(U4, 0, 0);
	in[2] = wg(U4, 1, 0);
	in[3] = wg(T4, 0, 101);
	in[4] = wg(T4, 1, 201);
	in[5] = wg(T6, 0, 1);
	in[6] = wg(T6, 0, 101);
	in[7] = wg(T6, 1, 201);
	in[8] = wg(U4, 0, 0);
	in[9] = wg(U6, 0, 0);
	in[10] = wg(U6, 0, 0);
	return in;
}

/* "multiple protocols and flows": [0,1,2,4,5,7,9] / lengths below. */
static void t_wg_multi(void)
{
	static const int wgl[] = { 240, 228, 128, 140, 260, 160, 248 };
	/* Every flow is held until the end: heads in arrival order. */
	static const int want[] = { 240, 228, 128, 140, 260, 160, 248 };

	run_wg(multi(), 11, true, want, N(want), wgl);
}

/* "... no UDP GRO": UDP passes at once, TCP leaves at the batch end. */
static void t_wg_multi_no_udp(void)
{
	static const int wgl[] = { 240, 128, 128, 140, 260, 160, 128, 148, 148 };
	static const int want[] = { 128, 128, 128, 148, 148, 240, 140, 260, 160 };

	run_wg(multi(), 11, false, want, N(want), wgl);
}

/* "PSH interleaved": a PSH segment joins and ends its train. */
static void t_wg_psh(void)
{
	static const int wgl[] = { 240, 240, 260, 260 };
	static const int want[] = { 240, 260, 240, 260 };
	struct sp in[8];

	in[0] = wg(T4, 0, 1);
	in[1] = wg(T4, 0, 101);
	in[1].flags = TF_ACK | TF_PSH;
	in[2] = wg(T4, 0, 201);
	in[3] = wg(T4, 0, 301);
	in[4] = wg(T6, 0, 1);
	in[5] = wg(T6, 0, 101);
	in[5].flags = TF_ACK | TF_PSH;
	in[6] = wg(T6, 0, 201);
	in[7] = wg(T6, 0, 301);
	run_wg(in, 8, true, want, N(want), wgl);
}

/* "coalesceItemInvalidCSum": bad checksums pass, the rest merges. */
static void t_wg_bad_csum(void)
{
	static const int wgl[] = { 140, 240, 128, 228 };
	static const int want[] = { 140, 128, 240, 228 };
	struct sp in[6];

	in[0] = wg(T4, 0, 1);
	in[0].bad_csum = true;
	in[1] = wg(T4, 0, 101);
	in[2] = wg(T4, 0, 201);
	in[3] = wg(U4, 0, 0);
	in[3].bad_csum = true;
	in[4] = wg(U4, 0, 0);
	in[5] = wg(U4, 0, 0);
	run_wg(in, 6, true, want, N(want), wgl);
	CHECK(R.out[0].csum == VOFF_CSUM_NONE);
}

/* "out of order": the kernel and voff do not merge backwards. */
static void t_wg_out_of_order(void)
{
	static const int want[] = { 140, 140, 140 };
	struct sp in[3];

	in[0] = wg(T4, 0, 101);
	in[1] = wg(T4, 0, 1);
	in[2] = wg(T4, 0, 201);
	run_wg(in, 3, true, want, N(want), want);
}

/* The "unequal ..." cases: nothing merges, four packets come out. */
static void unequal(bool v6, void (*mut)(struct sp *))
{
	static const int w4[] = { 140, 140, 128, 128 };
	static const int w6[] = { 160, 160, 148, 148 };
	static const int o4[] = { 140, 128, 140, 128 };
	static const int o6[] = { 160, 148, 160, 148 };
	struct sp in[4];

	in[0] = wg(v6 ? T6 : T4, 0, 1);
	in[1] = wg(v6 ? T6 : T4, 0, 101);
	mut(&in[1]);
	in[2] = wg(v6 ? U6 : U4, 0, 0);
	in[3] = wg(v6 ? U6 : U4, 0, 0);
	mut(&in[3]);
	run_wg(in, 4, true, v6 ? o6 : o4, 4, v6 ? w6 : w4);
}

static void m_ttl(struct sp *s) { s->ttl = 65; }
static void m_tos(struct sp *s) { s->tos = 1; }
static void m_df(struct sp *s) { s->df = true; }
static void m_tclass(struct sp *s) { s->tos = 1; }

static void t_wg_ttl(void) { unequal(false, m_ttl); }
static void t_wg_tos(void) { unequal(false, m_tos); }
static void t_wg_df(void) { unequal(false, m_df); }
static void t_wg_hop_limit(void) { unequal(true, m_ttl); }
static void t_wg_tclass(void) { unequal(true, m_tclass); }

/*
 * "unequal flags more fragments set": an MF packet is a fragment, never
 * merged; voff flushes its flow first, then passes it.
 */
static void t_wg_mf(void)
{
	static const int w4[] = { 140, 140, 128, 128 };
	static const int o4[] = { 140, 140, 128, 128 };
	struct sp in[4];

	in[0] = wg(T4, 0, 1);
	in[1] = wg(T4, 0, 101);
	in[1].mf = true;
	in[2] = wg(U4, 0, 0);
	in[3] = wg(U4, 0, 0);
	in[3].mf = true;
	run_wg(in, 4, true, o4, 4, w4);
	CHECK(R.out[1].passed);
	CHECK(R.out[3].passed);
}

/* Test_packetIsGROCandidate: which packets may be held at all. */
static void t_wg_candidates(void)
{
	static uint8_t f[256];
	struct voff_gro_config cfg = { .start = VOFF_PARSE_IP };
	struct {
		int kind;
		bool udp_on;
		size_t cut;	/* 0 = whole packet */
		int poke_at;
		uint8_t poke;
		int want;
	} c[] = {
		{ T4, true, 0, -1, 0, VOFF_GRO_HELD },
		{ T6, true, 0, -1, 0, VOFF_GRO_HELD },
		{ U4, true, 0, -1, 0, VOFF_GRO_HELD },
		{ U4, false, 0, -1, 0, VOFF_GRO_PASS },
		{ U6, true, 0, -1, 0, VOFF_GRO_HELD },
		{ U6, false, 0, -1, 0, VOFF_GRO_PASS },
		{ U4, true, 27, -1, 0, VOFF_GRO_PASS },
		{ U6, true, 47, -1, 0, VOFF_GRO_PASS },
		{ T4, true, 39, -1, 0, VOFF_GRO_PASS },
		{ T6, true, 59, -1, 0, VOFF_GRO_PASS },
		{ T4, true, 1, 0, 0x00, VOFF_GRO_PASS },	/* version 0 */
		{ T4, true, 0, 0, 0x46, VOFF_GRO_PASS },	/* IHL 6 */
		{ T4, true, 0, 9, 47, VOFF_GRO_PASS },		/* GRE */
		{ T6, true, 0, 6, 47, VOFF_GRO_PASS },		/* GRE */
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct sp s = wg(c[i].kind, 0, 1);
		size_t len = sp_build(&s, f, sizeof(f));

		if (c[i].cut)
			len = c[i].cut;
		if (c[i].poke_at >= 0)
			f[c[i].poke_at] = c[i].poke;
		cfg.no_udp = !c[i].udp_on;
		run_init(&R, &cfg);
		CHECK_MSG(run_feed_bytes(&R, f, len, VOFF_CSUM_NONE, 0) ==
				  c[i].want,
			  "case %zu", i);
		run_end(&R);
		run_fini(&R);
	}
}

/* Test_udpPacketsCanCoalesce, as sequences of one UDP flow. */
static void t_wg_udp_coalesce(void)
{
	struct voff_gro_config cfg = { .start = VOFF_PARSE_IP };
	struct sp a = wg(U4, 0, 0), small = a, big = a;

	small.len = 10;
	big.len = 110;
	/* equal size appends; a smaller one appends (and ends the train) */
	run_init(&R, &cfg);
	run_feed(&R, &a, 0);
	CHECK_EQ(run_feed(&R, &a, 0), VOFF_GRO_MERGED);
	CHECK_EQ(run_feed(&R, &small, 0), VOFF_GRO_MERGED);
	/* after a smaller one, nothing more joins that train */
	CHECK_EQ(run_feed(&R, &a, 0), VOFF_GRO_HELD);
	/* a larger one after that head does not join */
	CHECK_EQ(run_feed(&R, &big, 0), VOFF_GRO_HELD);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	CHECK_EQ(R.out[0].len, 28 + 210);
	CHECK_EQ(R.out[1].len, 128);
	CHECK_EQ(R.out[2].len, 138);
	run_fini(&R);
}

CHECK_MAIN(CHECK_TEST(t_wg_multi), CHECK_TEST(t_wg_multi_no_udp),
	   CHECK_TEST(t_wg_psh), CHECK_TEST(t_wg_bad_csum),
	   CHECK_TEST(t_wg_out_of_order), CHECK_TEST(t_wg_ttl),
	   CHECK_TEST(t_wg_tos), CHECK_TEST(t_wg_df),
	   CHECK_TEST(t_wg_hop_limit), CHECK_TEST(t_wg_tclass),
	   CHECK_TEST(t_wg_mf), CHECK_TEST(t_wg_candidates),
	   CHECK_TEST(t_wg_udp_coalesce))
