/* SPDX-License-Identifier: MIT */
/*
 * test_gso_gro.c - round trip: GRO (gro.h) of GSO's output restores the
 * super-packet
 *
 * Random TCP super-packets (IPv4 and IPv6, a VLAN tag or none, IPv6
 * extension headers, TCP options, incrementing or fixed IPv4 IDs, PSH/FIN
 * on the last segment, ECE on all) and USO super-packets of up to 64
 * datagrams are segmented by voff_gso_segment() with full checksums, and
 * the segments are given in order to a GRO engine.  Exactly one packet must
 * come out: the original super-packet byte for byte, except that its TCP
 * checksum is the pseudo-header seed (GRO's output is NEEDS_CSUM), with
 * gso_size, gso_segs and gso_type as GSO took them.  Frames GRO never
 * merges (IPv4 options, CWR, URG) are left out of the generator.
 */
#include <string.h>

#include <voff/voff.h>

#include "check.h"
#include "frames.h"
#include "gso_twin.h"

#define BUF 70000
#define CAP 200

static uint8_t sbuf[BUF];
static struct voff_pkt *out[CAP];

static void gro_spec(struct spec *s)
{
	static const uint8_t flags[] = {
		TF_ACK, TF_ACK | TF_PSH, TF_ACK | TF_PSH | TF_FIN,
		TF_ACK | TF_ECE, TF_ACK | TF_ECE | TF_PSH,
	};

	memset(s, 0, sizeof(*s));
	s->v6 = check_rnd(2);
	s->n_ext = (uint8_t)(s->v6 && check_rnd(3) == 0 ? 1 + check_rnd(3) : 0);
	s->tcp_opt = (uint8_t)(check_rnd(2) ? 12 : 4 * check_rnd(11));
	s->flags = flags[check_rnd(sizeof(flags))];
	s->seq = (uint32_t)check_rand();
	s->id = (uint16_t)check_rand();
	s->df = true;
	s->tos = (uint8_t)(check_rnd(64) << 2);
	if (!s->v6 && check_rnd(4) == 0)
		s->extra = VOFF_GSO_TCP_FIXEDID;
	s->mss = 400 + check_rnd(1100);
	s->pay = s->mss + 1 + check_rnd(60000);
	s->seed = (uint8_t)check_rnd(256);
	s->n_vlan = (uint8_t)check_rnd(2);
	if (check_rnd(4) == 0) {
		/* USO: UDP GRO takes at most 64 datagrams. */
		s->udp = true;
		s->extra = 0;
		s->pay = s->mss + 1 + check_rnd(63 * s->mss);
	}
	/* GRO stops at an IP datagram of 65535 bytes. */
	if (s->pay > 65000)
		s->pay = 65000;
}

static void round_trip(const struct spec *s, struct voff_pool *pool,
		       struct voff_gro *gro)
{
	struct voff_pkt sp, *q;
	struct built sb;
	uint32_t nseg = twin_nseg(s);
	int n;

	CHECK(twin_build(s, sbuf, BUF, -1, 0, 0, s->pay, &sb));
	twin_pkt(s, &sp, sbuf, BUF, &sb);
	n = voff_gso_segment(&sp, NULL, pool, out, CAP);
	CHECK_EQ(n, (int)nseg);
	for (int i = 0; i < n; i++) {
		int r = voff_gro_receive(gro, out[i], 0);

		CHECK_MSG(r == (i ? VOFF_GRO_MERGED : VOFF_GRO_HELD),
			  "segment %d of %d (udp %d v6 %d vlan %d ext %d opt "
			  "%d flags %02x mss %u pay %u): result %d",
			  i, n, s->udp, s->v6, s->n_vlan, s->n_ext,
			  s->tcp_opt, s->flags, s->mss, s->pay, r);
	}
	voff_gro_flush_all(gro);
	q = voff_gro_pop(gro);
	CHECK(q != NULL);
	CHECK(voff_gro_pop(gro) == NULL);

	/* The original, its L4 checksum as the pseudo seed. */
	twin_make_partial(&sb, sbuf, s->udp);
	CHECK_EQ(q->len, sb.len);
	CHECK_MEM_EQ(voff_pkt_data(q), sbuf, sb.len);
	CHECK_EQ(q->gso_size, s->mss);
	CHECK_EQ(q->gso_segs, nseg);
	CHECK(q->gso_type & (s->udp ? VOFF_GSO_UDP_L4
			     : s->v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4));
	CHECK_EQ(!!(q->gso_type & VOFF_GSO_TCP_FIXEDID),
		 !!(s->extra & VOFF_GSO_TCP_FIXEDID));
	CHECK_EQ(q->csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(q->csum_start, tf_off(&sb.b, sb.l4));
	CHECK_EQ(q->csum_offset, s->udp ? 6 : 16);
	voff_pkt_free(q);
}

static void t_gso_then_gro(void)
{
	struct voff_pool *pool;
	struct voff_gro *gro;

	CHECK_OK(voff_pool_new(&pool, CAP, 2048));
	CHECK_OK(voff_gro_new(&gro, NULL));
	for (int k = 0; k < 300; k++) {
		struct spec s;

		gro_spec(&s);
		round_trip(&s, pool, gro);
	}
	voff_gro_free(gro);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* The published case: OVS "tso", 2000 B in 4 x 500, v4 and v6. */
static void t_ovs_tso_round_trip(void)
{
	struct voff_pool *pool;
	struct voff_gro *gro;

	CHECK_OK(voff_pool_new(&pool, CAP, 2048));
	CHECK_OK(voff_gro_new(&gro, NULL));
	for (int v6 = 0; v6 < 2; v6++) {
		struct spec s = { .v6 = v6, .mss = 500, .pay = 2000,
				  .flags = TF_ACK, .df = true };

		round_trip(&s, pool, gro);
	}
	voff_gro_free(gro);
	voff_pool_free(pool);
}

CHECK_MAIN(CHECK_TEST(t_ovs_tso_round_trip), CHECK_TEST(t_gso_then_gro))
