/* SPDX-License-Identifier: MIT */
/*
 * test_gso_kernel.c - the running kernel as the oracle of software GSO
 *
 * Random super-packets, 500 per family (TCP4, TCP6, USO over IPv4/IPv6,
 * VLAN-tagged, UFO over IPv4 and IPv6, VXLAN/Geneve tunnels; IPv4 options,
 * IPv6 extension headers, TCP options, flag mixes, odd remainders) are
 * written through a vnet-header socket into a veth that segments them in
 * software (tests/lib/gso_oracle.h draws the namespace, the veth and the
 * TAP for tunnels); the segments are captured on the veth's transmit tap.
 * voff must produce the same bytes: with the veth's tx checksumming off,
 * voff's full-checksum mode; with it on, voff's partial mode (the kernel
 * leaves the pseudo-header seed for the device).
 *
 * GRE has no virtio GSO type at all; it is covered by the naive twin in
 * test_gso.c only.  Root only (CHECK_SKIP otherwise).  The golden vectors
 * of tests/vectors/ come from the same oracle (docs/vectors.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "check.h"
#include "frames.h"
#include "gso_oracle.h"
#include "gso_twin.h"

#define CASES 500
#define BUF 70000
#define MAXSEG 400

static uint8_t sbuf[BUF], rbuf[BUF];
static struct voff_pkt *out[MAXSEG];

enum fam { F_TCP4, F_TCP6, F_USO, F_VLAN, F_UFO, F_UFO6, F_TUN };

static void kernel_spec(struct spec *s, enum fam f)
{
	static const uint8_t flag_sets[] = {
		TF_ACK, TF_ACK | TF_PSH, TF_ACK | TF_FIN | TF_PSH,
		TF_ACK | TF_CWR | TF_ECE, TF_ACK | TF_URG | TF_PSH,
		TF_ACK | TF_CWR | TF_PSH | TF_FIN, 0xFF & ~(TF_SYN | TF_RST),
	};
	uint32_t max_segs;

	memset(s, 0, sizeof(*s));
	s->v6 = f == F_TCP6 || ((f == F_USO || f == F_VLAN) && check_rnd(2));
	s->udp = f == F_USO || (f == F_VLAN && check_rnd(3) == 0);
	s->n_vlan = f == F_VLAN ? (uint8_t)(1 + check_rnd(2)) : 0;
	s->v4_opt = (uint8_t)(check_rnd(4) == 0 ? 4 * check_rnd(11) : 0);
	s->n_ext = (uint8_t)(s->v6 && check_rnd(3) == 0 ? 1 + check_rnd(3) : 0);
	s->tcp_opt = (uint8_t)(4 * check_rnd(11));
	s->flags = flag_sets[check_rnd(sizeof(flag_sets))];
	s->seq = (uint32_t)check_rand();
	s->id = (uint16_t)check_rand();
	s->df = check_rnd(2);
	s->tos = (uint8_t)check_rnd(256);
	/* virtio has no FIXEDID: the kernel always increments the ID. */
	if (!s->udp && check_rnd(4) == 0)
		s->extra = VOFF_GSO_TCP_ECN;
	/* gso_size >= 8 (the kernel raises smaller TCP sizes to 8). */
	s->mss = 8 + check_rnd(check_rnd(2) ? 1400 : 8900);
	max_segs = s->udp ? 128 : MAXSEG;
	/* Payload above one MSS: a payload that fits is no GSO packet. */
	s->pay = s->mss + 1 + check_rnd(check_rnd(2) ? 4 * s->mss : 60000);
	if (s->pay > 65000 - 200)
		s->pay = 65000 - 200;
	if (s->pay <= s->mss)
		s->mss = s->pay / 2;
	if ((s->pay + s->mss - 1) / s->mss > max_segs)
		s->mss = (s->pay + max_segs - 1) / max_segs;
	s->seed = (uint8_t)check_rnd(256);
	if (f == F_TUN) {
		s->tun = check_rnd(2) ? TUN_VXLAN : TUN_GENEVE;
		s->outer_v6 = check_rnd(2);
		s->tun_csum = check_rnd(2);
		s->outer_id = (uint16_t)check_rand();
		s->n_ext = 0;
		s->v4_opt = 0;
	}
	if (f == F_UFO || f == F_UFO6) {
		/*
		 * IPv6 UFO draws a random fragment ID: one_case() adopts the
		 * one of the kernel's first fragment.
		 */
		s->v6 = f == F_UFO6;
		s->n_ext = (uint8_t)(s->v6 ? check_rnd(4) : 0);
		s->udp = false;
		s->ufo = true;
		s->mss = 8 * (1 + check_rnd(1100));
		s->pay = s->mss + check_rnd(check_rnd(2) ? 4 * s->mss : 60000);
		if (s->pay > 65000 - 200)
			s->pay = 65000 - 200;
		while ((s->pay + 8 + s->mss - 1) / s->mss > MAXSEG)
			s->mss += 8;
	}
}

/*
 * Linux 6.18 numbers IPv6 UFO fragments by adding each fragment's
 * payload length minus the fragment header (ipv6_gso_segment()), which
 * counts the unfragmentable extension headers too: with them, fragment i's
 * offset is i * their length too large, and the datagram cannot be
 * reassembled.  voff writes the RFC 8200 offsets; here the kernel's are
 * derived from voff's so that the test pins that difference exactly.
 */
static uint8_t *kernel_frag_off(const struct spec *s, const struct built *sb,
				const uint8_t *v, size_t len, int i)
{
	static uint8_t fixed[BUF];
	size_t fh = tf_off(&sb->b, sb->l4);	/* the fragment header */
	uint32_t ext = (uint32_t)(fh - tf_off(&sb->b, sb->l3) - 40);
	uint32_t off;

	(void)s;
	memcpy(fixed, v, len);
	off = (uint32_t)(fixed[fh + 2] << 8 | fixed[fh + 3]);
	off += (uint32_t)i * ext;
	fixed[fh + 2] = (uint8_t)(off >> 8);
	fixed[fh + 3] = (uint8_t)off;
	return fixed;
}

static void one_case(const struct spec *s, bool csum_on, int k)
{
	static struct voff_pool *pool;
	struct voff_gso_opts o = {
		.csum_mode = csum_on ? VOFF_GSO_CSUM_PARTIAL
				     : VOFF_GSO_CSUM_FULL,
	};
	static uint8_t first[BUF];
	struct voff_vnet_hdr vh;
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb;
	size_t got0;
	int n;

	if (!pool)
		CHECK_OK(voff_pool_new(&pool, MAXSEG, 9200));
	gso_oracle_send(s, sbuf, BUF, &sb, &sp, &vh);
	CHECK_OK(voff_gso_count(&sp, &o, &info));
	n = (int)info.segs;
	/* The first frame: for IPv6 UFO it tells the fragment ID. */
	got0 = gso_oracle_capture(first, BUF, 500);
	CHECK_MSG(got0, "case %d: nothing captured", k);
	if (s->ufo && s->v6)
		o.ipv6_frag_id = gso_oracle_frag_id(&sb, first, got0);
	CHECK_EQ(voff_gso_segment(&sp, &o, pool, out, MAXSEG), n);
	for (int i = 0; i < n; i++) {
		size_t got = i ? gso_oracle_capture(rbuf, BUF, 500) : got0;

		if (!i)
			memcpy(rbuf, first, got0);

		CHECK_MSG(got, "case %d: segment %d of %d missing (mss %u "
			  "pay %u)", k, i, n, s->mss, s->pay);
		CHECK_MSG(got == out[i]->len,
			  "case %d seg %d: kernel %zu bytes, voff %u", k, i,
			  got, out[i]->len);
		uint8_t *v = voff_pkt_data(out[i]);

		if (s->ufo && s->v6 && i > 0)
			v = kernel_frag_off(s, &sb, v, out[i]->len, i);
		for (size_t j = 0; j < got; j++)
			CHECK_MSG(rbuf[j] == v[j],
				  "case %d (v6 %d udp %d vlan %d tun %d/%d/%d "
				  "mss %u pay %u) seg %d/%d byte %zu: kernel "
				  "%02x voff %02x",
				  k, s->v6, s->udp, s->n_vlan, s->tun,
				  s->outer_v6, s->tun_csum, s->mss, s->pay,
				  i, n, j, rbuf[j], v[j]);
	}
	voff_pkt_free_bulk(out, (unsigned int)n);
}

static void family(enum fam f, bool csum_on)
{
	struct spec s;

	gso_oracle_setup(csum_on);
	if (f == F_TUN)
		gso_oracle_setup_tap();
	for (int k = 0; k < CASES; k++) {
		kernel_spec(&s, f);
		one_case(&s, csum_on, k);
	}
}

/* docs/kernel-model.md §4.8 as the kernel does it, both checksum modes. */
static void t_kernel_model_case(void)
{
	struct spec s = { .mss = 1000, .pay = 3072, .id = 0x1234, .df = true,
			  .flags = TF_ACK | TF_CWR | TF_PSH | TF_FIN };

	gso_oracle_setup(false);
	one_case(&s, false, 0);
}

static void t_kernel_tcp4_full(void) { family(F_TCP4, false); }
static void t_kernel_tcp4_partial(void) { family(F_TCP4, true); }
static void t_kernel_tcp6_full(void) { family(F_TCP6, false); }
static void t_kernel_tcp6_partial(void) { family(F_TCP6, true); }
static void t_kernel_uso_full(void) { family(F_USO, false); }
static void t_kernel_uso_partial(void) { family(F_USO, true); }
static void t_kernel_vlan_full(void) { family(F_VLAN, false); }
static void t_kernel_vlan_partial(void) { family(F_VLAN, true); }
static void t_kernel_ufo(void) { family(F_UFO, false); }
static void t_kernel_ufo6(void) { family(F_UFO6, false); }
static void t_kernel_tunnel_full(void) { family(F_TUN, false); }
static void t_kernel_tunnel_partial(void) { family(F_TUN, true); }

CHECK_MAIN(CHECK_TEST(t_kernel_model_case), CHECK_TEST(t_kernel_tcp4_full),
	   CHECK_TEST(t_kernel_tcp4_partial), CHECK_TEST(t_kernel_tcp6_full),
	   CHECK_TEST(t_kernel_tcp6_partial), CHECK_TEST(t_kernel_uso_full),
	   CHECK_TEST(t_kernel_uso_partial), CHECK_TEST(t_kernel_vlan_full),
	   CHECK_TEST(t_kernel_vlan_partial), CHECK_TEST(t_kernel_ufo),
	   CHECK_TEST(t_kernel_ufo6),
	   CHECK_TEST(t_kernel_tunnel_full),
	   CHECK_TEST(t_kernel_tunnel_partial))
