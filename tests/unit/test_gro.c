/* SPDX-License-Identifier: MIT */
/*
 * test_gro.c - the GRO engine, one test per merge or flush condition of
 * docs/kernel-model.md §3 and §6 (Linux 6.18.44 behaviour, and voff's
 * policy of never reordering a flow), for IPv4 and IPv6, plus the kernel
 * selftest cases of tools/testing/selftests/net/gro.c re-derived
 * (docs/peers.md §5.C)
 */
#include <errno.h>

#include <voff/vnet.h>

#include "check.h"
#include "frames.h"
#include "gro_util.h"

#define H4 54u	/* Ethernet + IPv4 + TCP header bytes */
#define H6 74u	/* Ethernet + IPv6 + TCP */

static struct run R;

/* Payload lengths of the outputs, in order. */
static void expect_payloads(const struct run *r, bool v6, int n,
			    const uint32_t *pay)
{
	uint32_t h = v6 ? H6 : H4;

	CHECK_EQ(r->n, n);
	for (int i = 0; i < n; i++)
		CHECK_MSG(r->out[i].len == h + pay[i],
			  "output %d: len %u, want %u", i, r->out[i].len,
			  h + pay[i]);
}

#define EXPECT(v6, ...)                                                      \
	do {                                                                 \
		const uint32_t want_[] = { __VA_ARGS__ };                    \
		expect_payloads(&R, v6,                                      \
				(int)(sizeof(want_) / sizeof(want_[0])),     \
				want_);                                      \
	} while (0)

/*
 * Feed @n segments of @len bytes, continuing sequence numbers and IPv4
 * IDs from @base; callers tweak @tweak_i with @tw.
 */
static void feed_train(const struct sp *base, int n)
{
	for (int i = 0; i < n; i++) {
		struct sp s = *base;

		s.seq = base->seq + (uint32_t)i * base->len;
		s.id = (uint16_t)(base->id + i);
		run_feed(&R, &s, 0);
	}
}

/* A merged output must equal the frame of one segment carrying it all. */
static void check_merged(int idx, const struct sp *first, uint32_t total,
			 uint16_t segs, uint8_t flags)
{
	static uint8_t want[70000];
	struct rec *o = &R.out[idx];
	struct sp s = *first;
	size_t len;

	s.len = total;
	if (flags)
		s.flags = flags;
	len = sp_build(&s, want, sizeof(want));
	CHECK_EQ(o->len, len);
	CHECK_EQ(o->csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(o->gso_segs, segs);
	CHECK_EQ(o->gso_size, first->len);
	CHECK_EQ(o->csum_start, (first->raw ? 0 : 14) + (first->vlan ? 4 : 0) +
				(first->v6 ? 40 + first->ext_len :
					     20 + first->ipopt));
	CHECK_EQ(o->csum_offset, first->udp ? 6 : 16);
	if (first->udp)
		CHECK_EQ(o->gso_type, VOFF_GSO_UDP_L4);
	else
		CHECK_EQ(o->gso_type & (VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6),
			 first->v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4);
	/* The seed is the pseudo-header sum with the super-packet length. */
	rec_complete(o);
	CHECK_MEM_EQ(o->d, want, len);
}

/* test_gro_sg.c builds this file again with GRO_TEST_SG: sg mode. */
static void setup(const struct voff_gro_config *cfg)
{
#ifdef GRO_TEST_SG
	struct voff_gro_config c = { 0 };

	if (cfg)
		c = *cfg;
	c.sg = true;
	run_init(&R, &c);
	R.pop_sg = true;
#else
	run_init(&R, cfg);
#endif
}

/* ---- merging ----------------------------------------------------------- */

static void merge_basic(bool v6)
{
	struct sp s = { .v6 = v6, .seq = 1000, .len = 100, .id = 7, .df = true };

	setup(NULL);
	feed_train(&s, 3);
	CHECK_EQ(R.last_rc, VOFF_GRO_MERGED);
	CHECK_EQ(voff_gro_held(R.g), 1);
	run_end(&R);
	EXPECT(v6, 300);
	check_merged(0, &s, 300, 3, 0);
	if (!v6)
		CHECK_EQ(R.out[0].gso_type, VOFF_GSO_TCPV4);
	run_fini(&R);
}

static void t_merge_v4(void) { merge_basic(false); }
static void t_merge_v6(void) { merge_basic(true); }

/* A single held segment leaves as a plain, verified frame. */
static void t_single_plain(void)
{
	struct sp s = { .seq = 1, .len = 100 };

	setup(NULL);
	CHECK_EQ(run_feed(&R, &s, 0), VOFF_GRO_HELD);
	run_end(&R);
	EXPECT(false, 100);
	CHECK_EQ(R.out[0].gso_type, 0);
	CHECK_EQ(R.out[0].gso_size, 0);
	CHECK_EQ(R.out[0].csum, VOFF_CSUM_VALID);
	run_fini(&R);
}

/* ---- IPv4 header rules ------------------------------------------------- */

/* Two segments differing by @second's fields: no merge, two outputs. */
static void split2(const struct sp *a, const struct sp *b)
{
	static uint8_t f[2048];

	setup(NULL);
	run_feed(&R, a, 0);
	run_feed(&R, b, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].len, sp_build(a, f, sizeof(f)));
	CHECK_EQ(R.out[1].len, sp_build(b, f, sizeof(f)));
	CHECK_EQ(R.out[0].gso_type, 0);
	CHECK_EQ(R.out[1].gso_type, 0);
	/* Order kept: the first segment leaves first. */
	CHECK_EQ(gro_test_seq(&R.out[0], a->v6), a->seq);
	run_fini(&R);
}

static void t_ttl_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2, .ttl = 17 });
}

static void t_tos_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2, .tos = 0x10 });
}

/* ECN CE on the second segment: DPDK loses it; the kernel flushes. */
static void t_ecn_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1, .tos = 2 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2, .tos = 3 });
}

static void t_df_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1, .df = true },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2 });
}

static void t_id_jump_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 3 });
}

/* The second segment chooses fixed IDs; 6.18 no longer needs DF. */
static void t_id_fixed_v4(void)
{
	struct sp s = { .seq = 1, .len = 100, .id = 9 };

	setup(NULL);
	for (int i = 0; i < 3; i++) {
		s.seq = 1 + 100u * (uint32_t)i;
		run_feed(&R, &s, 0);
	}
	run_end(&R);
	EXPECT(false, 300);
	CHECK_EQ(R.out[0].gso_type, VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID);
	s.seq = 1;
	check_merged(0, &s, 300, 3, 0);
	run_fini(&R);
}

/* Fixed, then an incrementing ID: the third segment splits. */
static void t_id_fixed_then_incr_v4(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 5 }, 0);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 5 }, 0);
	run_feed(&R, &(struct sp){ .seq = 201, .len = 100, .id = 6 }, 0);
	run_end(&R);
	EXPECT(false, 200, 100);
	run_fini(&R);
}

/* Incrementing IDs wrap modulo 2^16. */
static void t_id_wrap_v4(void)
{
	struct sp s = { .seq = 1, .len = 100, .id = 0xFFFF };

	setup(NULL);
	feed_train(&s, 3);
	run_end(&R);
	EXPECT(false, 300);
	run_fini(&R);
}

/* IPv4 options: never merged; the held flow leaves first. */
static void t_ip_options_v4(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
					     .ipopt = 4 }, 0),
		 VOFF_GRO_PASS);
	run_feed(&R, &(struct sp){ .seq = 201, .len = 100, .id = 3 }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	CHECK_EQ(R.out[0].len, H4 + 100);
	CHECK(!R.out[0].passed);
	CHECK_EQ(R.out[1].len, H4 + 4 + 100);
	CHECK(R.out[1].passed);
	CHECK_EQ(R.out[2].len, H4 + 100);
	run_fini(&R);
}

static void pass_after_held(const struct sp *bad)
{
	struct sp a = *bad;

	a.mf = false;
	a.frag_off = 0;
	a.bad_csum = false;
	a.pad = 0;
	a.ipopt = 0;
	a.no_csum = false;
	a.frag6 = false;
	a.seq = bad->seq - 100;
	a.id = (uint16_t)(bad->id - 1);
	setup(NULL);
	CHECK_EQ(run_feed(&R, &a, 0), VOFF_GRO_HELD);
	CHECK_EQ(run_feed(&R, bad, 0), VOFF_GRO_PASS);
	CHECK_EQ(voff_gro_held(R.g), 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK(!R.out[0].passed);
	CHECK(R.out[1].passed);
	CHECK_EQ(R.out[1].csum, VOFF_CSUM_NONE);
	run_fini(&R);
}

static void t_frag_v4(void)
{
	pass_after_held(&(struct sp){ .seq = 101, .len = 100, .id = 2,
				      .mf = true });
}

/* A non-first fragment has no ports: flows of its addresses flush. */
static void t_frag_later_v4(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .sport = 9 }, 0);
	CHECK_EQ(voff_gro_held(R.g), 2);
	CHECK_EQ(run_feed(&R, &(struct sp){ .len = 100, .id = 2,
					     .frag_off = 100 }, 0),
		 VOFF_GRO_PASS);
	CHECK_EQ(voff_gro_held(R.g), 0);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	CHECK(R.out[2].passed);
	run_fini(&R);
}

static void t_bad_ip_csum_v4(void)
{
	static uint8_t f[2048];
	struct sp a = { .seq = 1, .len = 100, .id = 1 };
	struct sp b = { .seq = 101, .len = 100, .id = 2 };
	size_t len;

	setup(NULL);
	run_feed(&R, &a, 0);
	len = sp_build(&b, f, sizeof(f));
	f[14 + 10] ^= 0x55;
	CHECK_EQ(run_feed_bytes(&R, f, len, VOFF_CSUM_VALID, 0),
		 VOFF_GRO_PASS);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK(R.out[1].passed);
	run_fini(&R);
}

/* tot_len shorter than the frame (Ethernet padding): no GRO. */
static void t_padded_v4(void)
{
	pass_after_held(&(struct sp){ .seq = 101, .len = 4, .id = 2,
				      .pad = 2 });
}

static void t_bad_tcp_csum_v4(void)
{
	pass_after_held(&(struct sp){ .seq = 101, .len = 100, .id = 2,
				      .bad_csum = true });
}

static void t_bad_tcp_csum_v6(void)
{
	pass_after_held(&(struct sp){ .v6 = true, .seq = 101, .len = 100,
				      .bad_csum = true });
}

/* A trusted checksum (DATA_VALID) is not verified again. */
static void t_trusted_csum(void)
{
	static uint8_t f[2048];
	struct sp a = { .seq = 1, .len = 100, .id = 1, .bad_csum = true };
	struct sp b = { .seq = 101, .len = 100, .id = 2, .bad_csum = true };
	size_t len;

	setup(NULL);
	len = sp_build(&a, f, sizeof(f));
	CHECK_EQ(run_feed_bytes(&R, f, len, VOFF_CSUM_VALID, 0), VOFF_GRO_HELD);
	len = sp_build(&b, f, sizeof(f));
	CHECK_EQ(run_feed_bytes(&R, f, len, VOFF_CSUM_VALID, 0),
		 VOFF_GRO_MERGED);
	run_end(&R);
	EXPECT(false, 200);
	run_fini(&R);
}

/* ---- IPv6 header rules ------------------------------------------------- */

static void t_flow_label_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100, .flow = 1 },
	       &(struct sp){ .v6 = true, .seq = 101, .len = 100, .flow = 2 });
}

static void t_tclass_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100 },
	       &(struct sp){ .v6 = true, .seq = 101, .len = 100, .tos = 3 });
}

static void t_hop_limit_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100 },
	       &(struct sp){ .v6 = true, .seq = 101, .len = 100, .ttl = 9 });
}

static void t_ext_same_v6(void)
{
	struct sp s = { .v6 = true, .seq = 1, .len = 100, .ext_len = 16 };

	setup(NULL);
	feed_train(&s, 3);
	run_end(&R);
	CHECK_EQ(R.n, 1);
	CHECK_EQ(R.out[0].len, H6 + 16 + 300);
	CHECK_EQ(R.out[0].gso_segs, 3);
	CHECK_EQ(R.out[0].csum_start, 54 + 16);
	check_merged(0, &s, 300, 3, 0);
	run_fini(&R);
}

static void t_ext_differ_v6(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .v6 = true, .seq = 1, .len = 100,
				   .ext_len = 16 }, 0);
	run_feed(&R, &(struct sp){ .v6 = true, .seq = 101, .len = 100,
				   .ext_len = 16, .ext_fill = 0x5A }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].gso_segs, 0);
	run_fini(&R);
}

static void t_ext_len_differ_v6(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .v6 = true, .seq = 1, .len = 100,
				   .ext_len = 8 }, 0);
	run_feed(&R, &(struct sp){ .v6 = true, .seq = 101, .len = 100,
				   .ext_len = 16 }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	run_fini(&R);
}

static void t_frag_v6(void)
{
	pass_after_held(&(struct sp){ .v6 = true, .seq = 101, .len = 100,
				      .frag6 = true });
}

static void t_padded_v6(void)
{
	pass_after_held(&(struct sp){ .v6 = true, .seq = 101, .len = 4,
				      .pad = 2 });
}

/* ---- L2 ------------------------------------------------------------- */

/* Different VLANs are different flows, never merged (DPDK merges them). */
static void t_vlan(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1,
				   .vlan = 10 }, 0);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
				   .vlan = 11 }, 0);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
				   .vlan = 10 }, 0);
	CHECK_EQ(voff_gro_held(R.g), 2);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].len, H4 + 4 + 200);
	CHECK_EQ(R.out[0].d[15], 10);
	CHECK_EQ(R.out[1].len, H4 + 4 + 100);
	CHECK_EQ(R.out[1].d[15], 11);
	run_fini(&R);
}

static void t_mac(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
				   .mac_last = 7 }, 0);
	CHECK_EQ(voff_gro_held(R.g), 2);
	run_end(&R);
	EXPECT(false, 100, 100);
	run_fini(&R);
}

/* Raw IP frames (TUN): no Ethernet header. */
static void t_raw_ip(void)
{
	struct voff_gro_config cfg = { .start = VOFF_PARSE_IP };
	struct sp s = { .raw = true, .seq = 1, .len = 100, .id = 1 };

	setup(&cfg);
	feed_train(&s, 4);
	run_end(&R);
	CHECK_EQ(R.n, 1);
	CHECK_EQ(R.out[0].len, 40 + 400);
	CHECK_EQ(R.out[0].csum_start, 20);
	check_merged(0, &s, 400, 4, 0);
	run_fini(&R);
}

/* ---- TCP rules ------------------------------------------------------ */

static void t_ports(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
				   .sport = 5 }, 0);
	run_end(&R);
	EXPECT(false, 100, 100);
	run_fini(&R);
}

static void t_ack_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1, .ack = 1 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2, .ack = 2 });
}

static void t_ack_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100, .ack = 1 },
	       &(struct sp){ .v6 = true, .seq = 101, .len = 100, .ack = 2 });
}

/* The compared flag word includes the window. */
static void t_window_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1, .win = 3000 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2, .win = 3001 });
}

static void t_window_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100, .win = 3000 },
	       &(struct sp){ .v6 = true, .seq = 101, .len = 100, .win = 4000 });
}

static void t_tsval_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1, .tcpopt = 12,
			     .tsval = 1 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2, .tcpopt = 12,
			     .tsval = 2 });
}

static void t_options_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100, .tcpopt = 12 },
	       &(struct sp){ .v6 = true, .seq = 101, .len = 100, .tcpopt = 4 });
}

static void t_same_options(void)
{
	struct sp s = { .seq = 1, .len = 100, .id = 1, .tcpopt = 12,
			.tsval = 77 };

	setup(NULL);
	feed_train(&s, 5);
	run_end(&R);
	CHECK_EQ(R.n, 1);
	CHECK_EQ(R.out[0].len, H4 + 12 + 500);
	check_merged(0, &s, 500, 5, 0);
	run_fini(&R);
}

static void t_seq_gap_v4(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1 },
	       &(struct sp){ .seq = 102, .len = 100, .id = 2 });
}

static void t_seq_gap_v6(void)
{
	split2(&(struct sp){ .v6 = true, .seq = 1, .len = 100 },
	       &(struct sp){ .v6 = true, .seq = 100, .len = 100 });
}

/* A longer segment flushes and starts the next train. */
static void larger(bool v6)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 1, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 101, .len = 101, .id = 2 },
		 0);
	CHECK_EQ(R.last_rc, VOFF_GRO_HELD);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 202, .len = 101, .id = 3 },
		 0);
	run_end(&R);
	EXPECT(v6, 100, 202);
	run_fini(&R);
}

static void t_larger_v4(void) { larger(false); }
static void t_larger_v6(void) { larger(true); }

/* A shorter segment joins and ends the train. */
static void shorter(bool v6)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 1, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 101, .len = 50, .id = 2 }, 0);
	CHECK_EQ(R.last_rc, VOFF_GRO_MERGED);
	CHECK_EQ(voff_gro_held(R.g), 0);
	CHECK_EQ(voff_gro_pending(R.g), 1);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 151, .len = 100, .id = 3 },
		 0);
	run_end(&R);
	EXPECT(v6, 150, 100);
	check_merged(0, &(struct sp){ .v6 = v6, .seq = 1, .len = 100, .id = 1 },
		     150, 2, 0);
	run_fini(&R);
}

static void t_shorter_v4(void) { shorter(false); }
static void t_shorter_v6(void) { shorter(true); }

/* Pure ACKs are never held and flush their flow. */
static void pure_ack(bool v6)
{
	setup(NULL);
	CHECK_EQ(run_feed(&R, &(struct sp){ .v6 = v6, .seq = 1, .id = 1 }, 0),
		 VOFF_GRO_PASS);
	CHECK_EQ(R.out[0].csum, VOFF_CSUM_VALID);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 1, .len = 100, .id = 2 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .v6 = v6, .seq = 101, .id = 3 }, 0),
		 VOFF_GRO_PASS);
	run_end(&R);
	EXPECT(v6, 0, 100, 0);
	CHECK(!R.out[1].passed);
	run_fini(&R);
}

static void t_pure_ack_v4(void) { pure_ack(false); }
static void t_pure_ack_v6(void) { pure_ack(true); }

/* Duplicate ACKs: each passes. */
static void t_dup_ack(void)
{
	setup(NULL);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(run_feed(&R, &(struct sp){ .seq = 1, .ack = 5,
						     .id = (uint16_t)i }, 0),
			 VOFF_GRO_PASS);
	run_end(&R);
	EXPECT(false, 0, 0, 0);
	run_fini(&R);
}

/* PSH and FIN join the train, are OR-ed in, and end it. */
static void end_flag(bool v6, uint8_t flag)
{
	struct sp a = { .v6 = v6, .seq = 1, .len = 100, .id = 1 };

	setup(NULL);
	run_feed(&R, &a, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .v6 = v6, .seq = 101, .len = 100,
					     .id = 2, .flags = TF_ACK | flag },
			  0),
		 VOFF_GRO_MERGED);
	CHECK_EQ(voff_gro_held(R.g), 0);
	run_feed(&R, &(struct sp){ .v6 = v6, .seq = 201, .len = 100, .id = 3 },
		 0);
	run_end(&R);
	EXPECT(v6, 200, 100);
	check_merged(0, &a, 200, 2, TF_ACK | flag);
	run_fini(&R);
}

static void t_psh_v4(void) { end_flag(false, TF_PSH); }
static void t_psh_v6(void) { end_flag(true, TF_PSH); }
static void t_fin_v4(void) { end_flag(false, TF_FIN); }
static void t_fin_v6(void) { end_flag(true, TF_FIN); }

/* PSH with nothing to join is not held. */
static void t_psh_alone(void)
{
	setup(NULL);
	CHECK_EQ(run_feed(&R, &(struct sp){ .seq = 1, .len = 100,
					     .flags = TF_ACK | TF_PSH }, 0),
		 VOFF_GRO_PASS);
	CHECK_EQ(R.out[0].csum, VOFF_CSUM_VALID);
	run_end(&R);
	EXPECT(false, 100);
	run_fini(&R);
}

/* SYN, RST, URG: never merged, never held; they flush their flow. */
static void never_flag(uint8_t flags)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
					     .flags = flags }, 0),
		 VOFF_GRO_PASS);
	CHECK_EQ(voff_gro_held(R.g), 0);
	run_end(&R);
	EXPECT(false, 100, 100);
	CHECK(R.out[1].passed);
	run_fini(&R);
}

static void t_syn(void) { never_flag(TF_SYN | TF_ACK); }
static void t_rst(void) { never_flag(TF_RST | TF_ACK); }
static void t_urg(void) { never_flag(TF_URG | TF_ACK); }

/* ECE differing splits (the flag word must match). */
static void t_ece(void)
{
	split2(&(struct sp){ .seq = 1, .len = 100, .id = 1 },
	       &(struct sp){ .seq = 101, .len = 100, .id = 2,
			     .flags = TF_ACK | TF_ECE });
}

/* 6.18.44: a CWR segment never joins; it starts a train of its own. */
static void t_cwr_incoming(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 2,
					     .flags = TF_ACK | TF_CWR }, 0),
		 VOFF_GRO_HELD);
	run_end(&R);
	EXPECT(false, 100, 100);
	run_fini(&R);
}

/* 6.18.44: a head with CWR takes no followers. */
static void t_cwr_head(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .v6 = true, .seq = 1, .len = 100,
				   .flags = TF_ACK | TF_CWR }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .v6 = true, .seq = 101, .len = 100 },
			  0),
		 VOFF_GRO_HELD);
	run_feed(&R, &(struct sp){ .v6 = true, .seq = 201, .len = 100 }, 0);
	run_end(&R);
	EXPECT(true, 100, 200);
	CHECK_EQ(R.out[0].d[54 + 13], TF_ACK | TF_CWR);
	run_fini(&R);
}

/* ---- size and count limits -------------------------------------------- */

/* 45 x 1448 fits in 65535 (65226-byte frame); the 46th starts anew. */
static void max_size(bool v6)
{
	struct sp s = { .v6 = v6, .seq = 1, .len = 1448, .df = true,
			.tcpopt = 12 };

	setup(NULL);
	feed_train(&s, 47);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].gso_segs, 45);
	CHECK_EQ(R.out[0].len, (v6 ? H6 : H4) + 12 + 45 * 1448);
	if (!v6)
		CHECK_EQ(R.out[0].len, 65226);
	CHECK_EQ(R.out[1].gso_segs, 2);
	check_merged(0, &s, 45 * 1448, 45, 0);
	run_fini(&R);
}

static void t_max_size_v4(void) { max_size(false); }
static void t_max_size_v6(void) { max_size(true); }

/* A datagram of exactly 65535 bytes merges; one byte more does not. */
static void t_max_size_exact(void)
{
	/* 20 + 20 + 100 + 65395 = 65535 */
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 65395, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .seq = 65396, .len = 100, .id = 2 }, 0);
	CHECK_EQ(R.last_rc, VOFF_GRO_MERGED);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 65395, .id = 1,
				   .sport = 3 }, 0);
	run_feed(&R, &(struct sp){ .seq = 65396, .len = 101, .id = 2,
				   .sport = 3 }, 0);
	CHECK_EQ(R.last_rc, VOFF_GRO_HELD);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	CHECK_EQ(R.out[0].len, 14 + 65535);
	CHECK_EQ(R.out[0].gso_segs, 2);
	run_fini(&R);
}

static void t_max_size_config(void)
{
	struct voff_gro_config cfg = { .max_size = 40 + 300 };
	struct sp s = { .seq = 1, .len = 100, .id = 1 };

	setup(&cfg);
	feed_train(&s, 7);
	run_end(&R);
	EXPECT(false, 300, 300, 100);
	run_fini(&R);
	cfg.max_size = 65536;
	CHECK_EQ(voff_gro_new(&R.g, &cfg), -EINVAL);
}

static void t_max_segs_config(void)
{
	struct voff_gro_config cfg = { .max_segs = 4 };
	struct sp s = { .seq = 1, .len = 100, .id = 1 };

	setup(&cfg);
	feed_train(&s, 10);
	run_end(&R);
	EXPECT(false, 400, 400, 200);
	run_fini(&R);
}

/* ---- UDP (USO style) -------------------------------------------------- */

static void udp_train(bool v6)
{
	struct sp s = { .v6 = v6, .udp = true, .len = 200, .id = 1, .seed = 0 };

	setup(NULL);
	for (int i = 0; i < 3; i++) {
		s.id = (uint16_t)(1 + i);
		s.seed = (uint8_t)(200 * i);
		run_feed(&R, &s, 0);
	}
	run_end(&R);
	CHECK_EQ(R.n, 1);
	CHECK_EQ(R.out[0].len, (v6 ? 62u : 42u) + 600);
	s.id = 1;
	s.seed = 0;
	check_merged(0, &s, 600, 3, 0);
	run_fini(&R);
}

static void t_udp_v4(void) { udp_train(false); }
static void t_udp_v6(void) { udp_train(true); }

static void t_udp_smaller_ends(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .udp = true, .len = 200, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 2 },
			  0),
		 VOFF_GRO_MERGED);
	CHECK_EQ(voff_gro_held(R.g), 0);
	run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 3 }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].len, 42 + 300);
	CHECK_EQ(R.out[0].gso_size, 200);
	CHECK_EQ(R.out[1].len, 42 + 100);
	run_fini(&R);
}

static void t_udp_larger_splits(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .udp = true, .len = 200, .id = 2 },
			  0),
		 VOFF_GRO_HELD);
	run_feed(&R, &(struct sp){ .udp = true, .len = 200, .id = 3 }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].len, 42 + 100);
	CHECK_EQ(R.out[1].len, 42 + 400);
	run_fini(&R);
}

static void t_udp_64(void)
{
	setup(NULL);
	for (int i = 0; i < 70; i++)
		run_feed(&R, &(struct sp){ .udp = true, .len = 10,
					   .id = (uint16_t)i }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK_EQ(R.out[0].gso_segs, 64);
	CHECK_EQ(R.out[1].gso_segs, 6);
	run_fini(&R);
}

static void t_udp_zero_csum(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 2,
					     .no_csum = true }, 0),
		 VOFF_GRO_PASS);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	CHECK(R.out[1].passed);
	run_fini(&R);
}

static void t_udp_bad_csum(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 2,
					     .bad_csum = true }, 0),
		 VOFF_GRO_PASS);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	run_fini(&R);
}

static void t_udp_ttl(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .udp = true, .len = 100, .id = 2,
				   .ttl = 3 }, 0);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	run_fini(&R);
}

static void t_udp_disabled(void)
{
	struct voff_gro_config cfg = { .no_udp = true };

	setup(&cfg);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(run_feed(&R, &(struct sp){ .udp = true, .len = 100,
						     .id = (uint16_t)i }, 0),
			 VOFF_GRO_PASS);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	CHECK_EQ(R.out[0].csum, VOFF_CSUM_NONE);
	run_fini(&R);
}

/* ---- flushing --------------------------------------------------------- */

static void t_flush_timeout(void)
{
	struct voff_gro_config cfg = { .flush_timeout_ns = 1000 };

	setup(&cfg);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 100);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .sport = 7 }, 600);
	CHECK_EQ(voff_gro_flush(R.g, 1099), 0);
	CHECK_EQ(voff_gro_flush(R.g, 1100), 1);
	run_collect(&R);
	CHECK_EQ(R.n, 1);
	uint64_t dl = 0;
	CHECK(voff_gro_next_deadline(R.g, &dl));
	CHECK_EQ(dl, 1600);
	/* An expired flow is flushed before its next segment is looked at. */
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .sport = 7,
				   .id = 1 }, 1600);
	CHECK_EQ(R.last_rc, VOFF_GRO_HELD);
	run_collect(&R);
	CHECK_EQ(R.n, 2);
	/* Changed at run time: 0 means flush everything at batch end. */
	voff_gro_set_flush_timeout(R.g, 0);
	CHECK_EQ(voff_gro_flush(R.g, 1601), 1);
	run_collect(&R);
	CHECK_EQ(R.n, 3);
	CHECK(!voff_gro_next_deadline(R.g, &dl));
	run_fini(&R);
}

static void t_batch_end(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .sport = 3 }, 0);
	CHECK_EQ(voff_gro_flush(R.g, 0), 2);
	CHECK_EQ(voff_gro_pending(R.g), 2);
	run_collect(&R);
	/* Oldest first. */
	CHECK_EQ(R.out[0].d[34 + 1], 1);
	CHECK_EQ(R.out[1].d[34 + 1], 3);
	run_fini(&R);
}

/* A full table flushes its oldest flow to make room. */
static void t_evict_oldest(void)
{
	struct voff_gro_config cfg = { .max_flows = 2 };
	struct voff_gro_stats st;

	setup(&cfg);
	for (int i = 0; i < 3; i++)
		run_feed(&R, &(struct sp){ .seq = 1, .len = 100,
					   .sport = (uint16_t)(10 + i) }, 0);
	CHECK_EQ(voff_gro_held(R.g), 2);
	CHECK_EQ(voff_gro_pending(R.g), 1);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 1,
				   .sport = 11 }, 0);
	CHECK_EQ(R.last_rc, VOFF_GRO_MERGED);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	CHECK_EQ(R.out[0].d[35], 10);
	CHECK_EQ(R.out[1].d[35], 11);
	CHECK_EQ(R.out[1].gso_segs, 2);
	CHECK_EQ(R.out[2].d[35], 12);
	voff_gro_stats(R.g, &st);
	CHECK_EQ(st.evicted, 1);
	CHECK_EQ(st.in, 4);
	CHECK_EQ(st.held, 3);
	CHECK_EQ(st.merged, 1);
	CHECK_EQ(st.out, 3);
	CHECK_EQ(st.out_merged, 1);
	run_fini(&R);
}

/*
 * More outputs than the output ring holds (16 with two flows) pile up
 * without a pop: the rest wait in the list behind the ring, and every
 * output still leaves in order, whole; after the queue emptied, the ring
 * is used again.
 */
static void t_queue_overflow(void)
{
	struct voff_gro_config cfg = { .max_flows = 2 };
	struct voff_gro_stats st;
	int collected = 0;

	setup(&cfg);
	for (int i = 0; i < 40; i++) {
		for (int k = 0; k < 3; k++)
			run_feed(&R, &(struct sp){ .seq = 1 + 100 * (uint32_t)k,
						   .len = 100,
						   .id = (uint16_t)k,
						   .sport = (uint16_t)(10 + i) },
				 0);
		CHECK_EQ(R.last_rc, VOFF_GRO_MERGED);
		/* Flow i's first frame evicted flow i - 2. */
		CHECK_EQ(voff_gro_pending(R.g), i < 2 ? 0 : i - 1 - collected);
		if (i == 29) {
			run_collect(&R);
			CHECK_EQ(R.n, 28);
			collected = 28;
		}
	}
	run_end(&R);
	CHECK_EQ(R.n, 40);
	for (int i = 0; i < 40; i++) {
		CHECK_EQ(R.out[i].d[35], 10 + i);
		CHECK_EQ(R.out[i].gso_segs, 3);
		CHECK_EQ(R.out[i].len, 14 + 20 + 20 + 300);
		CHECK_EQ(R.out[i].passed, false);
	}
	voff_gro_stats(R.g, &st);
	CHECK_EQ(st.evicted, 38);
	CHECK_EQ(st.out, 40);
	CHECK_EQ(st.out_merged, 40);
	run_fini(&R);
}

/* Hold @nf flows of five segments each, ports from @sport0, and flush. */
static void hold_five(int sport0, int nf)
{
	for (int i = 0; i < nf; i++)
		for (int k = 0; k < 5; k++)
			run_feed(&R, &(struct sp){ .seq = 1 + 100 * (uint32_t)k,
						   .len = 100,
						   .id = (uint16_t)k,
						   .sport = (uint16_t)(sport0 + i) },
				 0);
	CHECK_EQ(voff_gro_held(R.g), nf);
	voff_gro_flush_all(R.g);
	CHECK_EQ(voff_gro_held(R.g), 0);
}

/*
 * voff_gro_flush_all() with outputs still queued: into the ring while it
 * has room for every flow (also across its wrap), behind it when not;
 * the outputs leave in order, whole, chains of five in sg mode.
 */
static void t_flush_all_queued(void)
{
	struct voff_gro_config cfg = { .max_flows = 16 };
	struct voff_gro_stats st;

	setup(&cfg);
	hold_five(10, 16);		/* fills the ring of 16 */
	CHECK_EQ(voff_gro_pending(R.g), 16);
	hold_five(26, 8);		/* no room: behind the ring */
	CHECK_EQ(voff_gro_pending(R.g), 24);
	run_collect(&R);
	CHECK_EQ(R.n, 24);
	hold_five(34, 8);		/* into the ring again */
	hold_five(42, 4);		/* room for 8: across the wrap */
	CHECK_EQ(voff_gro_pending(R.g), 12);
	hold_five(46, 6);		/* room for 4: behind the ring */
	CHECK_EQ(voff_gro_pending(R.g), 18);
	run_collect(&R);
	hold_five(52, 3);		/* the ring once more */
	run_end(&R);
	CHECK_EQ(R.n, 45);
	for (int i = 0; i < 45; i++) {
		CHECK_EQ(R.out[i].d[35], 10 + i);
		CHECK_EQ(R.out[i].gso_segs, 5);
		CHECK_EQ(R.out[i].gso_size, 100);
		CHECK_EQ(R.out[i].len, 14 + 20 + 20 + 500);
		CHECK_EQ(R.out[i].passed, false);
	}
	voff_gro_stats(R.g, &st);
	CHECK_EQ(st.out, 45);
	CHECK_EQ(st.out_merged, 45);
	CHECK_EQ(voff_gro_pending(R.g), 0);
	run_fini(&R);
}

/* Non-IP, ICMP and too-short frames pass without touching flows. */
static void t_not_ours(void)
{
	static uint8_t f[128];

	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	memset(f, 0, sizeof(f));
	f[12] = 0x08;
	f[13] = 0x06;	/* ARP */
	CHECK_EQ(run_feed_bytes(&R, f, 60, VOFF_CSUM_NONE, 0), VOFF_GRO_PASS);
	CHECK_EQ(run_feed_bytes(&R, f, 5, VOFF_CSUM_NONE, 0), VOFF_GRO_PASS);
	CHECK_EQ(voff_gro_held(R.g), 1);
	run_end(&R);
	CHECK_EQ(R.n, 3);
	run_fini(&R);
}

/* A super-packet from a GSO source is not merged again. */
static void t_gso_input(void)
{
	static uint8_t f[4096];
	struct voff_pkt *p;
	size_t len;

	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 1 }, 0);
	len = sp_build(&(struct sp){ .seq = 101, .len = 300, .id = 2 }, f,
		       sizeof(f));
	CHECK_OK(voff_pkt_alloc(R.pool, &p));
	CHECK_OK(voff_pkt_set_data(p, f, (uint32_t)len));
	p->gso_type = VOFF_GSO_TCPV4;
	p->gso_size = 100;
	p->csum = VOFF_CSUM_PARTIAL;
	CHECK_EQ(voff_gro_receive(R.g, p, 0), VOFF_GRO_PASS);
	CHECK_EQ(voff_gro_pending(R.g), 1);
	voff_pkt_free(p);
	run_end(&R);
	run_fini(&R);
}

/* Heads whose own buffer has room are merged in place (no pool copy). */
static void t_in_place(void)
{
#ifdef GRO_TEST_SG
	CHECK_SKIP("copy mode only");
#endif
	static uint8_t f[2048];
	struct voff_pool *big;
	struct voff_pkt *p, *head;
	size_t len;

	setup(NULL);
	CHECK_OK(voff_pool_new(&big, 4, 65536 + 256));
	for (int i = 0; i < 3; i++) {
		len = sp_build(&(struct sp){ .seq = 1 + 100u * (uint32_t)i,
					     .len = 100, .id = (uint16_t)i },
			       f, sizeof(f));
		CHECK_OK(voff_pkt_alloc(big, &p));
		CHECK_OK(voff_pkt_set_data(p, f, (uint32_t)len));
		if (i == 0)
			head = p;
		CHECK_GT(voff_gro_receive(R.g, p, 0), 0);
	}
	voff_gro_flush(R.g, 0);
	p = voff_gro_pop(R.g);
	CHECK(p == head);
	CHECK_EQ(p->gso_segs, 3);
	CHECK_EQ(p->len, H4 + 300);
	CHECK_EQ(voff_pool_in_use(big), 1);
	voff_pkt_free(p);
	voff_pool_free(big);
	run_fini(&R);
}

/*
 * Outputs are ready for a virtio_net_hdr: what AF_PACKET shows for a GRO
 * frame on 6.18 (kernel-model.md §3.4: NEEDS_CSUM, TCPV4, gso_size 100,
 * csum 34/16;
 * the kernel's hdr_len is its linear length, voff's the header bytes), and
 * DATA_VALID for a verified frame that merged nothing.
 */
static void t_vnet_header(void)
{
	struct voff_vnet_cfg vc = { .hdr_size = 10, .dir = VOFF_VNET_RX };
	static uint8_t f[2048];
	struct voff_vnet_hdr h;
	struct voff_pkt *p;
	uint8_t raw[10];
	size_t len;

	setup(NULL);
	for (int i = 0; i < 3; i++) {
		len = sp_build(&(struct sp){ .seq = 1 + 100u * (uint32_t)i,
					     .len = i == 2 ? 50 : 100,
					     .sport = (uint16_t)(i == 2 ? 9 : 1),
					     .id = (uint16_t)i },
			       f, sizeof(f));
		CHECK_OK(voff_pkt_alloc(R.pool, &p));
		CHECK_OK(voff_pkt_set_data(p, f, (uint32_t)len));
		CHECK_GT(voff_gro_receive(R.g, p, 0), 0);
	}
	voff_gro_flush(R.g, 0);
	p = voff_gro_pop(R.g);
	CHECK_EQ(voff_vnet_encode(&vc, p, raw, sizeof(raw)), 10);
	CHECK_EQ(voff_vnet_hdr_read(&vc, raw, sizeof(raw), &h), 10);
	CHECK_EQ(h.flags, VOFF_VNET_F_NEEDS_CSUM);
	CHECK_EQ(h.gso_type, 1);
	CHECK_EQ(h.gso_size, 100);
	CHECK_EQ(h.csum_start, 34);
	CHECK_EQ(h.csum_offset, 16);
	CHECK_EQ(h.hdr_len, 54);
	voff_pkt_free(p);
	p = voff_gro_pop(R.g);
	CHECK_EQ(voff_vnet_encode(&vc, p, raw, sizeof(raw)), 10);
	CHECK_EQ(voff_vnet_hdr_read(&vc, raw, sizeof(raw), &h), 10);
	CHECK_EQ(h.flags, VOFF_VNET_F_DATA_VALID);
	CHECK_EQ(h.gso_type, 0);
	voff_pkt_free(p);
	run_fini(&R);
}

/* voff_gro_drain() moves outputs into a batch, in order. */
static void t_drain(void)
{
	struct voff_batch b;

	setup(NULL);
	for (int i = 0; i < 3; i++)
		run_feed(&R, &(struct sp){ .seq = 1, .len = 100,
					   .sport = (uint16_t)(1 + i) }, 0);
	voff_gro_flush(R.g, 0);
	voff_batch_init(&b);
	CHECK_EQ(voff_gro_drain(R.g, &b), 3);
	CHECK_EQ(b.n, 3);
	CHECK_EQ(voff_gro_pending(R.g), 0);
	for (unsigned int i = 0; i < b.n; i++)
		CHECK_EQ(voff_pkt_data(b.pkts[i])[35], 1 + i);
	voff_batch_free(&b);
	run_fini(&R);
}

/*
 * Copy mode with no free engine buffer: the head cannot grow, so it is
 * flushed and the segment starts a new train (counted in no_buffer).
 */
static void t_no_buffer(void)
{
	struct voff_gro_config cfg = { .pool_size = 1 };
	struct voff_gro_stats st;
	struct voff_pkt *p;

#ifdef GRO_TEST_SG
	CHECK_SKIP("copy mode only");
#endif
	setup(&cfg);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 1400, .id = 1 }, 0);
	run_feed(&R, &(struct sp){ .seq = 1401, .len = 1400, .id = 2 }, 0);
	CHECK_EQ(R.last_rc, VOFF_GRO_MERGED);
	voff_gro_flush(R.g, 0);
	p = voff_gro_pop(R.g);	/* keep the only engine buffer out */
	CHECK_EQ(p->gso_segs, 2);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 1400, .sport = 5,
				   .id = 1 }, 0);
	CHECK_EQ(run_feed(&R, &(struct sp){ .seq = 1401, .len = 1400,
					     .sport = 5, .id = 2 }, 0),
		 VOFF_GRO_HELD);
	voff_gro_stats(R.g, &st);
	CHECK_EQ(st.no_buffer, 1);
	voff_pkt_free(p);
	run_end(&R);
	CHECK_EQ(R.n, 2);
	run_fini(&R);
}

static void t_args(void)
{
	struct voff_gro *g = NULL;
	struct voff_gro_config cfg = { .max_flows = (1u << 16) + 1 };

	CHECK_EQ(voff_gro_new(&g, &cfg), -EINVAL);
	cfg = (struct voff_gro_config){ .start = 7 };
	CHECK_EQ(voff_gro_new(&g, &cfg), -EINVAL);
	CHECK(g == NULL);
	CHECK_EQ(voff_gro_new(NULL, NULL), -EINVAL);
	CHECK_OK(voff_gro_new(&g, NULL));
	CHECK_EQ(voff_gro_receive(g, NULL, 0), -EINVAL);
	voff_gro_free(g);
	voff_gro_free(NULL);
}

/* ---- kernel selftest gro.c cases (docs/peers.md §5.C) ----------------- */

/* DF=1 incrementing, DF=1 fixed, DF=0 incrementing, DF=0 fixed: on 6.18
 * all four coalesce (6.12's selftest expects DF=0 fixed not to). */
static void t_selftest_df_id(void)
{
	for (int df = 0; df < 2; df++) {
		for (int fixed = 0; fixed < 2; fixed++) {
			setup(NULL);
			for (int i = 0; i < 3; i++)
				run_feed(&R, &(struct sp){
						.seq = 1 + 100u * (uint32_t)i,
						.len = 100, .df = df,
						.id = (uint16_t)(fixed ? 4 : 4 + i) },
					 0);
			run_end(&R);
			CHECK_EQ(R.n, 1);
			run_fini(&R);
		}
	}
}

/* "Mixed" IDs coalesce only the first two. */
static void t_selftest_id_mixed(void)
{
	setup(NULL);
	run_feed(&R, &(struct sp){ .seq = 1, .len = 100, .id = 4, .df = true },
		 0);
	run_feed(&R, &(struct sp){ .seq = 101, .len = 100, .id = 5, .df = true },
		 0);
	run_feed(&R, &(struct sp){ .seq = 201, .len = 100, .id = 5, .df = true },
		 0);
	run_end(&R);
	EXPECT(false, 200, 100);
	run_fini(&R);
}

/* data: same size; large then small; small then large. */
static void t_selftest_data(void)
{
	setup(NULL);
	for (int i = 0; i < 2; i++)
		run_feed(&R, &(struct sp){ .seq = 1 + 100u * (uint32_t)i,
					   .len = 100, .id = (uint16_t)i }, 0);
	run_end(&R);
	EXPECT(false, 200);
	run_fini(&R);
	larger(false);
	shorter(false);
}

CHECK_MAIN(CHECK_TEST(t_merge_v4), CHECK_TEST(t_merge_v6),
	   CHECK_TEST(t_single_plain), CHECK_TEST(t_ttl_v4),
	   CHECK_TEST(t_tos_v4), CHECK_TEST(t_ecn_v4), CHECK_TEST(t_df_v4),
	   CHECK_TEST(t_id_jump_v4), CHECK_TEST(t_id_fixed_v4),
	   CHECK_TEST(t_id_fixed_then_incr_v4), CHECK_TEST(t_id_wrap_v4),
	   CHECK_TEST(t_ip_options_v4), CHECK_TEST(t_frag_v4),
	   CHECK_TEST(t_frag_later_v4), CHECK_TEST(t_bad_ip_csum_v4),
	   CHECK_TEST(t_padded_v4), CHECK_TEST(t_bad_tcp_csum_v4),
	   CHECK_TEST(t_bad_tcp_csum_v6), CHECK_TEST(t_trusted_csum),
	   CHECK_TEST(t_flow_label_v6), CHECK_TEST(t_tclass_v6),
	   CHECK_TEST(t_hop_limit_v6), CHECK_TEST(t_ext_same_v6),
	   CHECK_TEST(t_ext_differ_v6), CHECK_TEST(t_ext_len_differ_v6),
	   CHECK_TEST(t_frag_v6), CHECK_TEST(t_padded_v6), CHECK_TEST(t_vlan),
	   CHECK_TEST(t_mac), CHECK_TEST(t_raw_ip), CHECK_TEST(t_ports),
	   CHECK_TEST(t_ack_v4), CHECK_TEST(t_ack_v6), CHECK_TEST(t_window_v4),
	   CHECK_TEST(t_window_v6), CHECK_TEST(t_tsval_v4),
	   CHECK_TEST(t_options_v6), CHECK_TEST(t_same_options),
	   CHECK_TEST(t_seq_gap_v4), CHECK_TEST(t_seq_gap_v6),
	   CHECK_TEST(t_larger_v4), CHECK_TEST(t_larger_v6),
	   CHECK_TEST(t_shorter_v4), CHECK_TEST(t_shorter_v6),
	   CHECK_TEST(t_pure_ack_v4), CHECK_TEST(t_pure_ack_v6),
	   CHECK_TEST(t_dup_ack), CHECK_TEST(t_psh_v4), CHECK_TEST(t_psh_v6),
	   CHECK_TEST(t_fin_v4), CHECK_TEST(t_fin_v6), CHECK_TEST(t_psh_alone),
	   CHECK_TEST(t_syn), CHECK_TEST(t_rst), CHECK_TEST(t_urg),
	   CHECK_TEST(t_ece), CHECK_TEST(t_cwr_incoming),
	   CHECK_TEST(t_cwr_head), CHECK_TEST(t_max_size_v4),
	   CHECK_TEST(t_max_size_v6), CHECK_TEST(t_max_size_exact),
	   CHECK_TEST(t_max_size_config), CHECK_TEST(t_max_segs_config),
	   CHECK_TEST(t_udp_v4), CHECK_TEST(t_udp_v6),
	   CHECK_TEST(t_udp_smaller_ends), CHECK_TEST(t_udp_larger_splits),
	   CHECK_TEST(t_udp_64), CHECK_TEST(t_udp_zero_csum),
	   CHECK_TEST(t_udp_bad_csum), CHECK_TEST(t_udp_ttl),
	   CHECK_TEST(t_udp_disabled), CHECK_TEST(t_flush_timeout),
	   CHECK_TEST(t_batch_end), CHECK_TEST(t_evict_oldest),
	   CHECK_TEST(t_queue_overflow),
	   CHECK_TEST(t_flush_all_queued),
	   CHECK_TEST(t_not_ours), CHECK_TEST(t_gso_input),
	   CHECK_TEST(t_in_place), CHECK_TEST(t_vnet_header),
	   CHECK_TEST(t_drain), CHECK_TEST(t_no_buffer),
	   CHECK_TEST(t_args),
	   CHECK_TEST(t_selftest_df_id), CHECK_TEST(t_selftest_id_mixed),
	   CHECK_TEST(t_selftest_data))
