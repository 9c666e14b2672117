/* SPDX-License-Identifier: MIT */
/*
 * test_xmit.c - the transmit decision (xmit.h), one table row per rule of
 * docs/kernel-model.md §1.5 (every § in this file is a section of it),
 * plus the macvlan deferral of its §8 (a) and random properties of the
 * verdicts
 */
#include <errno.h>
#include <string.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/xmit.h>

#include "check.h"
#include "frames.h"

#define SG VOFF_F_SG
#define HW VOFF_F_HW_CSUM
#define IP4 VOFF_F_IP_CSUM
#define IP6 VOFF_F_IPV6_CSUM
#define TSO VOFF_F_TSO
#define TSO6 VOFF_F_TSO6
#define USO VOFF_F_GSO_UDP_L4

/* Egress devices of the table. */
enum dev_kind {
	D_VETH,		/* veth defaults: HW_CSUM, all software GSO */
	D_TAP0,		/* TAP, TUNSETOFFLOAD 0: nothing */
	D_TAP3,		/* TAP, CSUM|TSO4 */
	D_IPCSUM,	/* IP_CSUM|IPV6_CSUM|SG|TSO|TSO6|USO, a NIC of old */
	D_IP4ONLY,	/* IP_CSUM|SG|TSO|TSO6 (TSO6 unfixed on purpose) */
	D_VETH_SEGS10,	/* veth with gso_max_segs 10 */
	D_VETH_BIG6,	/* veth with gso_max_size 100000 (IPv6 BIG TCP) */
	D_ENC_SG,	/* veth whose hw_enc_features are SG only */
	D_VLAN_NOTSO,	/* veth whose vlan_features lack TSO */
	D_PARTIAL,	/* veth offering UDP_TUNNEL_CSUM only with PARTIAL */
	D_MANGLE,	/* veth: MANGLEID present */
};

static void make_dev(enum dev_kind k, struct voff_feat_dev *d,
		     struct voff_limits *l)
{
	voff_limits_init(l);
	voff_limits_set_tso_max_size(l, VOFF_GSO_MAX_SIZE);
	CHECK_OK(voff_feat_dev_init(d, VOFF_FEAT_PROFILE_VETH));
	switch (k) {
	case D_VETH:
	case D_MANGLE:
		break;
	case D_TAP0:
		CHECK_OK(voff_feat_dev_init(d, VOFF_FEAT_PROFILE_TAP));
		break;
	case D_TAP3:
		CHECK_OK(voff_feat_dev_init(d, VOFF_FEAT_PROFILE_TAP));
		CHECK_OK(voff_feat_tap_apply(d, 0x3));
		break;
	case D_IPCSUM:
		d->active = IP4 | IP6 | SG | TSO | TSO6 | USO;
		d->vlan = d->enc = d->active;
		break;
	case D_IP4ONLY:
		d->active = d->vlan = d->enc = IP4 | SG | TSO | TSO6;
		break;
	case D_VETH_SEGS10:
		CHECK_OK(voff_limits_set(l, VOFF_LIMIT_GSO_MAX_SEGS, 10));
		break;
	case D_VETH_BIG6:
		CHECK_OK(voff_limits_set(l, VOFF_LIMIT_GSO_MAX_SIZE, 100000));
		break;
	case D_ENC_SG:
		d->enc = SG;
		break;
	case D_VLAN_NOTSO:
		d->vlan = SG | HW;
		break;
	case D_PARTIAL:
		d->gso_partial = VOFF_F_GSO_UDP_TUNNEL_CSUM;
		break;
	}
}

/* Packet shapes of the table. */
#define P_PARTIAL 0x1	/* NEEDS_CSUM */
#define P_VALID 0x2	/* DATA_VALID */

struct row {
	const char *rule;
	enum dev_kind dev;
	uint32_t len;
	uint32_t gso_type;
	uint16_t gso_size;
	uint16_t gso_segs;
	uint8_t csum;		/* VOFF_CSUM_* */
	uint16_t csum_offset;
	uint8_t l3, csum_l3;	/* 4/6 */
	uint16_t iflags;	/* VOFF_XMIT_I_* */
	unsigned int flags;	/* VOFF_XMIT_KERNEL */
	uint8_t verdict, reason;
	int seg_csum_hw;	/* -1: don't care */
	uint16_t max_segs;
};

#define TCP4 VOFF_GSO_TCPV4
#define TCP6 VOFF_GSO_TCPV6
#define PART VOFF_CSUM_PARTIAL
#define DF VOFF_XMIT_I_DF
#define HDR4 54	/* Ethernet + IPv4 + TCP */

static const struct row rows[] = {
	/* Plain frames (§1.5 step 5). */
	{ "plain frame: nothing to do", D_VETH, 1514, 0, 0, 0, VOFF_CSUM_NONE,
	  0, 4, 4, DF, 0, VOFF_XMIT_PASS, VOFF_XMIT_R_PLAIN, -1, 0 },
	{ "verified frame: nothing to do", D_TAP0, 1514, 0, 0, 0,
	  VOFF_CSUM_VALID, 0, 4, 4, DF, 0, VOFF_XMIT_PASS, VOFF_XMIT_R_PLAIN,
	  -1, 0 },
	{ "§1.5.5: HW_CSUM completes any partial checksum", D_VETH, 1514, 0,
	  0, 0, PART, 16, 6, 6, VOFF_XMIT_I_IPV6_EXT, 0, VOFF_XMIT_PASS_CSUM,
	  VOFF_XMIT_R_CSUM_HW, -1, 0 },
	{ "§1.5.5: no checksum offload: skb_checksum_help", D_TAP0, 1514, 0, 0,
	  0, PART, 16, 4, 4, DF, 0, VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_PROTO,
	  -1, 0 },
	{ "§1.5.3: IP_CSUM cannot do IPv6", D_IP4ONLY, 1514, 0, 0, 0, PART, 16,
	  6, 6, 0, 0, VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_PROTO, -1, 0 },
	{ "§1.5.5: IPV6_CSUM and extension headers", D_IPCSUM, 1514, 0, 0, 0,
	  PART, 16, 6, 6, VOFF_XMIT_I_IPV6_EXT, 0, VOFF_XMIT_CSUM_SW,
	  VOFF_XMIT_R_CSUM_IPV6_EXT, -1, 0 },
	{ "§1.5.5: IP_CSUM needs csum_offset 16 or 6", D_IPCSUM, 1514, 0, 0, 0,
	  PART, 8, 4, 4, DF, 0, VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_OFFSET, -1,
	  0 },
	{ "§1.5.5: IP_CSUM takes TCP's offset", D_IPCSUM, 1514, 0, 0, 0, PART,
	  16, 4, 4, DF, 0, VOFF_XMIT_PASS_CSUM, VOFF_XMIT_R_CSUM_HW, -1, 0 },
	{ "§1.5.5: IPV6_CSUM takes UDP's offset", D_IPCSUM, 1514, 0, 0, 0,
	  PART, 6, 6, 6, 0, 0, VOFF_XMIT_PASS_CSUM, VOFF_XMIT_R_CSUM_HW, -1,
	  0 },
	{ "§1.5: gso_type without gso_size is a plain frame", D_TAP0, 1514,
	  TCP4, 0, 0, VOFF_CSUM_NONE, 0, 4, 4, DF, 0, VOFF_XMIT_PASS,
	  VOFF_XMIT_R_PLAIN, -1, 0 },

	/* Super-packets. */
	{ "§1.5.4: gso_type a subset of the features", D_VETH, 60000, TCP4,
	  1448, 41, PART, 16, 4, 4, DF, 0, VOFF_XMIT_PASS_GSO,
	  VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.4: TAP without TSO segments in software", D_TAP0, 60000, TCP4,
	  1448, 41, PART, 16, 4, 4, DF, 0, VOFF_XMIT_SEGMENT,
	  VOFF_XMIT_R_GSO_TYPE, 0, 0 },
	{ "§1.5.4: TAP with CSUM|TSO4 takes TCPv4", D_TAP3, 60000, TCP4, 1448,
	  41, PART, 16, 4, 4, DF, 0, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_OK,
	  -1, 0 },
	{ "§1.5.4: TAP with TSO4 lacks TSO6", D_TAP3, 60000, TCP6, 1448, 41,
	  PART, 16, 6, 6, 0, 0, VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_TYPE, 1, 0 },
	{ "§1.5.6: DODGY passes whole, gso_segs recomputed", D_VETH, 60000,
	  TCP4 | VOFF_GSO_DODGY, 1448, 0, PART, 16, 4, 4, DF, 0,
	  VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_DODGY, -1, 0 },
	{ "§1.5.4: DODGY on a device that cannot take the type", D_TAP0, 60000,
	  TCP4 | VOFF_GSO_DODGY, 1448, 0, PART, 16, 4, 4, DF, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_TYPE, 0, 0 },
	{ "§1.5.1: gso_segs > gso_max_segs (kernel: segment)", D_VETH_SEGS10,
	  30000, TCP4, 1448, 21, PART, 16, 4, 4, DF, VOFF_XMIT_KERNEL,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_MAX_SEGS, 1, 0 },
	{ "§1.5.1: gso_segs > gso_max_segs (voff: resegment)", D_VETH_SEGS10,
	  30000, TCP4, 1448, 21, PART, 16, 4, 4, DF, 0, VOFF_XMIT_RESEGMENT,
	  VOFF_XMIT_R_GSO_MAX_SEGS, 1, 10 },
	{ "§1.5.1: gso_segs 0 computed from the lengths (voff)", D_VETH_SEGS10,
	  30000, TCP4 | VOFF_GSO_DODGY, 1448, 0, PART, 16, 4, 4, DF, 0,
	  VOFF_XMIT_RESEGMENT, VOFF_XMIT_R_GSO_MAX_SEGS, 1, 10 },
	{ "§1.5.1: gso_segs 0 is not checked (kernel)", D_VETH_SEGS10, 30000,
	  TCP4 | VOFF_GSO_DODGY, 1448, 0, PART, 16, 4, 4, DF,
	  VOFF_XMIT_KERNEL, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_DODGY, -1, 0 },
	{ "§1.5.1: len >= gso_max_size (kernel)", D_VETH, 65536, TCP4, 1448,
	  46, PART, 16, 4, 4, DF, VOFF_XMIT_KERNEL, VOFF_XMIT_SEGMENT,
	  VOFF_XMIT_R_GSO_MAX_SIZE, 1, 0 },
	{ "§1.5.1: len >= gso_max_size (voff)", D_VETH, 65536, TCP4, 1448, 46,
	  PART, 16, 4, 4, DF, 0, VOFF_XMIT_RESEGMENT, VOFF_XMIT_R_GSO_MAX_SIZE,
	  1, 45 },
	{ "§1.5.1: len one below gso_max_size passes", D_VETH, 65535, TCP4,
	  1448, 46, PART, 16, 4, 4, DF, 0, VOFF_XMIT_PASS_GSO,
	  VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.1: IPv6 uses gso_max_size (BIG TCP)", D_VETH_BIG6, 70000, TCP6,
	  1448, 49, PART, 16, 6, 6, 0, 0, VOFF_XMIT_PASS_GSO,
	  VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.1: IPv4 uses gso_ipv4_max_size", D_VETH_BIG6, 70000, TCP4,
	  1448, 49, PART, 16, 4, 4, DF, VOFF_XMIT_KERNEL, VOFF_XMIT_SEGMENT,
	  VOFF_XMIT_R_GSO_MAX_SIZE, 1, 0 },
	{ "§1.5.1: FIXEDID without DF loses MANGLEID", D_MANGLE, 30000,
	  TCP4 | VOFF_GSO_TCP_FIXEDID, 1448, 21, PART, 16, 4, 4, 0, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_MANGLEID, 1, 0 },
	{ "§1.5.1: FIXEDID with DF keeps MANGLEID", D_MANGLE, 30000,
	  TCP4 | VOFF_GSO_TCP_FIXEDID, 1448, 21, PART, 16, 4, 4, DF, 0,
	  VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.1: TSO6 and extension headers with IPV6_CSUM", D_IPCSUM, 30000,
	  TCP6, 1448, 21, PART, 16, 6, 6, VOFF_XMIT_I_IPV6_EXT, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_IPV6_EXT, 0, 0 },
	{ "§1.5.1: USO and extension headers with IPV6_CSUM", D_IPCSUM, 30000,
	  VOFF_GSO_UDP_L4, 1400, 22, PART, 6, 6, 6, VOFF_XMIT_I_IPV6_EXT, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_IPV6_EXT, 0, 0 },
	{ "§1.5.1: extension headers are fine with HW_CSUM", D_VETH, 30000,
	  TCP6, 1448, 21, PART, 16, 6, 6, VOFF_XMIT_I_IPV6_EXT, 0,
	  VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.1: USO over IPv4 ignores the IPv6 rule", D_IPCSUM, 30000,
	  VOFF_GSO_UDP_L4, 1400, 22, PART, 6, 4, 4, DF, 0, VOFF_XMIT_PASS_GSO,
	  VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.1: GSO_PARTIAL-only feature stripped", D_PARTIAL, 30000,
	  TCP4 | VOFF_GSO_UDP_TUNNEL_CSUM, 1400, 22, PART, 16, 4, 4,
	  DF | VOFF_XMIT_I_ENCAP, 0, VOFF_XMIT_SEGMENT,
	  VOFF_XMIT_R_GSO_PARTIAL, 1, 0 },
	{ "§1.5.1: ... kept for a GSO_PARTIAL packet", D_PARTIAL, 30000,
	  TCP4 | VOFF_GSO_UDP_TUNNEL_CSUM | VOFF_GSO_PARTIAL, 1400, 22, PART,
	  16, 4, 4, DF | VOFF_XMIT_I_ENCAP, 0, VOFF_XMIT_SEGMENT,
	  VOFF_XMIT_R_GSO_TYPE, 1, 0 },
	{ "§1.5.2: tunnel GSO through hw_enc_features", D_VETH, 30000,
	  TCP4 | VOFF_GSO_UDP_TUNNEL, 1400, 22, PART, 16, 4, 4,
	  DF | VOFF_XMIT_I_ENCAP, 0, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_OK,
	  -1, 0 },
	{ "§1.5.2: hw_enc_features without TSO", D_ENC_SG, 30000,
	  TCP4 | VOFF_GSO_UDP_TUNNEL, 1400, 22, PART, 16, 4, 4,
	  DF | VOFF_XMIT_I_ENCAP, 0, VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_ENCAP,
	  0, 0 },
	{ "§1.5.2: vlan_features without TSO", D_VLAN_NOTSO, 30000, TCP4,
	  1448, 21, PART, 16, 4, 4, DF | VOFF_XMIT_I_VLAN, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_VLAN, 1, 0 },
	{ "§1.5.2: several VLAN tags: no GSO, HW_CSUM kept", D_VETH, 30000,
	  TCP4, 1448, 21, PART, 16, 4, 4, DF | VOFF_XMIT_I_VLAN_MULTI, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_VLAN, 1, 0 },
	{ "§1.5.2: several VLAN tags and IP_CSUM: no offload", D_IPCSUM, 1514,
	  0, 0, 0, PART, 16, 4, 4, DF | VOFF_XMIT_I_VLAN_MULTI, 0,
	  VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_PROTO, -1, 0 },
	{ "§1.5.3: harmonize strips GSO with the checksum", D_IP4ONLY, 30000,
	  TCP6, 1448, 21, PART, 16, 6, 6, 0, 0, VOFF_XMIT_SEGMENT,
	  VOFF_XMIT_R_GSO_CSUM, 0, 0 },
	{ "§1.5.4: TCP without partial csum: TCP GSO sets it up, passes "
	  "(seen on 6.18)", D_VETH, 30000, TCP4, 1448, 21, VOFF_CSUM_NONE, 0,
	  4, 4, DF, 0, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_CSUM_SETUP, -1, 0 },
	{ "§1.5.4: USO without partial csum is segmented", D_VETH, 30000,
	  VOFF_GSO_UDP_L4, 1400, 22, VOFF_CSUM_NONE, 0, 4, 4, DF, 0,
	  VOFF_XMIT_SEGMENT, VOFF_XMIT_R_GSO_NOT_PARTIAL, 1, 0 },
	{ "§1.5.4: verified checksum passes whole", D_VETH, 30000, TCP4, 1448,
	  21, VOFF_CSUM_VALID, 0, 4, 4, DF, 0, VOFF_XMIT_PASS_GSO,
	  VOFF_XMIT_R_GSO_OK, -1, 0 },
	{ "§1.5.5: GSO refused by skb_checksum_help", D_IPCSUM, 30000, TCP4,
	  1448, 21, PART, 8, 4, 4, DF, 0, VOFF_XMIT_DROP,
	  VOFF_XMIT_R_GSO_BAD_CSUM, -1, 0 },
	{ "§1.5: gso_size without gso_type", D_VETH, 30000, 0, 1448, 21, PART,
	  16, 4, 4, DF, 0, VOFF_XMIT_DROP, VOFF_XMIT_R_GSO_TYPE_ZERO, -1, 0 },
};

static void setup(const struct row *r, struct voff_pkt *p,
		  struct voff_xmit_info *info)
{
	memset(p, 0, sizeof(*p));
	p->len = r->len;
	p->gso_type = r->gso_type;
	p->gso_size = r->gso_size;
	p->gso_segs = r->gso_segs;
	p->csum = r->csum;
	p->csum_offset = r->csum_offset;
	memset(info, 0, sizeof(*info));
	info->l3_proto = r->l3;
	info->csum_proto = r->csum_l3;
	info->flags = r->iflags;
	info->hdr_len = r->l3 == 6 ? 74 : HDR4;
}

static void t_table(void)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct voff_feat_dev d;
		struct voff_limits l;
		struct voff_xmit_result res;
		struct voff_xmit_info info;
		struct voff_pkt p;
		int v;

		make_dev(r->dev, &d, &l);
		setup(r, &p, &info);
		v = voff_xmit_decide(&p, &info, &d, &l, r->flags, &res);
		CHECK_EQ(v, res.verdict);
		CHECK_MSG(res.verdict == r->verdict && res.reason == r->reason,
			  "row %zu (%s): %s/%s, want %s/%s", i, r->rule,
			  voff_xmit_verdict_name(res.verdict),
			  voff_xmit_reason_name(res.reason),
			  voff_xmit_verdict_name(r->verdict),
			  voff_xmit_reason_name(r->reason));
		if (r->seg_csum_hw >= 0)
			CHECK_MSG(res.seg_csum_hw == r->seg_csum_hw,
				  "row %zu (%s): seg_csum_hw", i, r->rule);
		if (r->verdict == VOFF_XMIT_RESEGMENT)
			CHECK_MSG(res.max_segs == r->max_segs,
				  "row %zu (%s): max_segs %u", i, r->rule,
				  res.max_segs);
	}
}

/*
 * kernel-model.md §8 (a): a macvlan over a veth with every offload off.
 * The macvlan's always-on features take the super-packet whole;
 * segmentation happens only at the lower device.
 */
static void t_macvlan_defers(void)
{
	struct voff_feat_dev mv, veth;
	struct voff_limits l;
	struct voff_xmit_result res;
	struct voff_xmit_info info = { 4, 4, DF, HDR4 };
	struct voff_pkt p = { 0 };
	uint64_t m, on;
	char *req[] = { "tx", "off", "sg", "off", "tso", "off", "gso", "off" };

	voff_limits_init(&l);
	CHECK_OK(voff_feat_dev_init(&veth, VOFF_FEAT_PROFILE_VETH));
	CHECK_OK(voff_feat_parse_requests(req, 8, &m, &on, NULL));
	voff_feat_dev_request(&veth, m, on);
	voff_feat_dev_update(&veth);
	CHECK_OK(voff_feat_dev_init(&mv, VOFF_FEAT_PROFILE_MACVLAN));
	voff_feat_dev_update_macvlan(&mv, veth.active);

	p.len = 65000;
	p.gso_type = TCP4;
	p.gso_size = 1448;
	p.gso_segs = 45;
	p.csum = PART;
	p.csum_offset = 16;
	voff_xmit_decide(&p, &info, &mv, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_PASS_GSO);
	voff_xmit_decide(&p, &info, &veth, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_SEGMENT);
	CHECK_EQ(res.seg_csum_hw, 0); /* tx off: GSO computes checksums */
}

/* Properties over random packets and devices. */
static void t_random(void)
{
	for (int i = 0; i < 50000; i++) {
		struct voff_feat_dev d = { 0 };
		struct voff_limits l;
		struct voff_xmit_result res;
		struct voff_xmit_info info = { 0 };
		struct voff_pkt p = { 0 };
		uint32_t max;

		voff_limits_init(&l);
		voff_limits_set_tso_max_size(&l, VOFF_GSO_MAX_SIZE);
		(void)voff_limits_set(&l, VOFF_LIMIT_GSO_MAX_SEGS,
				      (uint32_t)(check_rand() % 80));
		(void)voff_limits_set(&l, VOFF_LIMIT_GSO_MAX_SIZE,
				      (uint32_t)(check_rand() % 100000));
		d.active = check_rand() & voff_feat_all();
		d.vlan = check_rand() & voff_feat_all();
		d.enc = check_rand() & voff_feat_all();
		p.len = (uint32_t)(check_rand() % 90000) + 60;
		p.gso_size = (uint16_t)(check_rand() % 3 ? check_rand() % 9000 :
							   0);
		p.gso_type = (uint32_t)(check_rand() & 0x1FFFFF);
		p.gso_segs = (uint16_t)(check_rand() % 100);
		p.csum = (uint8_t)(check_rand() % 3);
		p.csum_offset = (uint16_t)(check_rand() % 20);
		info.l3_proto = (uint8_t)(check_rand() % 2 ? 4 : 6);
		info.csum_proto = info.l3_proto;
		info.flags = (uint16_t)(check_rand() & 0x1F);
		info.hdr_len = (uint16_t)(check_rand() % 2 ? 54 : 0);
		voff_xmit_decide(&p, &info, &d, &l, 0, &res);
		max = info.l3_proto == 6 ? l.gso_max_size : l.gso_ipv4_max_size;
		CHECK_LT(res.reason, VOFF_XMIT_R__COUNT);
		/*
		 * Decisions never add features, except that intersecting
		 * HW_CSUM with a VLAN set of IP checksums yields those.
		 */
		CHECK_EQ(res.features & ~(d.active | IP4 | IP6), 0);
		switch (res.verdict) {
		case VOFF_XMIT_PASS_GSO:
			CHECK(p.gso_size && p.gso_type);
			CHECK_LT(p.len, max);
			CHECK(voff_feat_gso_ok(res.features | VOFF_F_GSO_ROBUST,
					       p.gso_type));
			break;
		case VOFF_XMIT_RESEGMENT:
			CHECK_GE(res.max_segs, 2);
			CHECK_LE(res.max_segs, l.gso_max_segs);
			CHECK_LT(info.hdr_len + (uint32_t)res.max_segs *
							p.gso_size, max);
			break;
		case VOFF_XMIT_PASS_CSUM:
		case VOFF_XMIT_CSUM_SW:
			CHECK(!p.gso_size);
			CHECK_EQ(p.csum, VOFF_CSUM_PARTIAL);
			break;
		case VOFF_XMIT_SEGMENT:
			CHECK(p.gso_size);
			break;
		case VOFF_XMIT_PASS:
			CHECK(!p.gso_size);
			CHECK_NE(p.csum, VOFF_CSUM_PARTIAL);
			break;
		case VOFF_XMIT_DROP:
			CHECK(p.gso_size);
			break;
		default:
			CHECK_MSG(0, "verdict %d", res.verdict);
		}
	}
}

static void t_names(void)
{
	CHECK_STR_EQ(voff_xmit_verdict_name(VOFF_XMIT_RESEGMENT), "resegment");
	CHECK_STR_EQ(voff_xmit_verdict_name(99), "?");
	CHECK_STR_EQ(voff_xmit_reason_name(VOFF_XMIT_R_GSO_MAX_SEGS),
		     "gso_max_segs");
	CHECK_STR_EQ(voff_xmit_reason_name(VOFF_XMIT_R__COUNT), "?");
}

/* The facts from a parse: VLAN count, extension headers, DF, tunnels. */
static void t_info_from_parsed(void)
{
	uint8_t buf[128] = { 0 };
	struct voff_pkt p = { 0 };
	struct voff_parsed ps;
	struct voff_xmit_info info;

	p.buf = buf;
	p.buf_size = sizeof(buf);
	p.len = 100;
	memset(&ps, 0, sizeof(ps));
	ps.l3_proto = 4;
	ps.l3_off = 18;
	ps.n_vlan = 1;
	ps.payload_off = 58;
	ps.inner_l3_off = VOFF_OFF_NONE;
	buf[18 + 6] = 0x40; /* DF */
	CHECK_OK(voff_xmit_info_from_parsed(&p, &ps, &info));
	CHECK_EQ(info.flags, VOFF_XMIT_I_VLAN | VOFF_XMIT_I_DF);
	CHECK_EQ(info.hdr_len, 58);
	CHECK_EQ(info.csum_proto, 4);

	/* VXLAN: IPv6 outer with extension headers, IPv4 inner without DF. */
	memset(&ps, 0, sizeof(ps));
	ps.l3_proto = 6;
	ps.l3_off = 14;
	ps.flags = VOFF_PF_IPV6_EXT | VOFF_PF_TUNNEL;
	ps.n_vlan = 2;
	ps.inner_l3_proto = 4;
	ps.inner_l3_off = 80;
	ps.payload_off = 100;
	buf[80 + 6] = 0;
	p.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL;
	CHECK_OK(voff_xmit_info_from_parsed(&p, &ps, &info));
	CHECK_EQ(info.flags, VOFF_XMIT_I_ENCAP | VOFF_XMIT_I_VLAN_MULTI |
				     VOFF_XMIT_I_IPV6_EXT);
	CHECK_EQ(info.l3_proto, 6);
	CHECK_EQ(info.csum_proto, 4);

	/* Offsets outside the packet. */
	ps.inner_l3_off = 96;
	CHECK_EQ(voff_xmit_info_from_parsed(&p, &ps, &info), -EINVAL);
}

/*
 * The parser and the decision together on built frames: the facts the
 * rules need (DF, extension headers, tags, tunnels) come out of real
 * headers, and the verdicts follow.
 */
static void t_parsed_frames(void)
{
	static uint8_t buf[4096];
	struct voff_feat_dev ipcsum, veth;
	struct voff_limits l;
	struct voff_xmit_info info;
	struct voff_xmit_result res;
	struct voff_parsed ps;
	struct voff_pkt p;
	struct tf b;
	size_t len;

	voff_limits_init(&l);
	CHECK_OK(voff_feat_dev_init(&veth, VOFF_FEAT_PROFILE_VETH));
	ipcsum = veth;
	ipcsum.active = ipcsum.vlan = ipcsum.enc =
		IP4 | IP6 | SG | TSO | TSO6 | VOFF_F_TSO_MANGLEID;

	/* IPv6 + destination options + TCP: TSO6 lost with IPV6_CSUM. */
	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 8);
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 1);
	len = tf_finish(&b);
	CHECK_GT(len, 0);
	CHECK_OK(voff_pkt_init_ext(&p, buf, sizeof(buf), 0, (uint32_t)len));
	CHECK_OK(voff_pkt_parse(&p, VOFF_PARSE_ETH, &ps));
	p.gso_type = VOFF_GSO_TCPV6;
	p.gso_size = 1000;
	p.csum = VOFF_CSUM_PARTIAL;
	p.csum_start = ps.l4_off;
	p.csum_offset = 16;
	CHECK_OK(voff_xmit_info_from_parsed(&p, &ps, &info));
	CHECK_EQ(info.flags, VOFF_XMIT_I_IPV6_EXT);
	CHECK_EQ(info.hdr_len, 14 + 40 + 8 + 20);
	voff_xmit_decide(&p, &info, &ipcsum, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_SEGMENT);
	CHECK_EQ(res.reason, VOFF_XMIT_R_GSO_IPV6_EXT);
	voff_xmit_decide(&p, &info, &veth, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_PASS_GSO);

	/* 802.1Q + IPv4 without DF + TCP asking for fixed IDs. */
	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_vlan(&b, TF_TPID_8021Q, 10);
	tf_ipv4(&b, &(struct tf_ip){ .df = false });
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 2);
	len = tf_finish(&b);
	CHECK_OK(voff_pkt_init_ext(&p, buf, sizeof(buf), 0, (uint32_t)len));
	CHECK_OK(voff_pkt_parse(&p, VOFF_PARSE_ETH, &ps));
	p.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID;
	p.gso_size = 1000;
	p.csum = VOFF_CSUM_PARTIAL;
	p.csum_start = ps.l4_off;
	p.csum_offset = 16;
	CHECK_OK(voff_xmit_info_from_parsed(&p, &ps, &info));
	CHECK_EQ(info.flags, VOFF_XMIT_I_VLAN);
	voff_xmit_decide(&p, &info, &veth, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_SEGMENT);
	CHECK_EQ(res.reason, VOFF_XMIT_R_GSO_MANGLEID);

	/* VXLAN over IPv4 carrying TCP over IPv4 with DF: encapsulated. */
	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_vxlan(&b, 42);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 3);
	len = tf_finish(&b);
	CHECK_OK(voff_pkt_init_ext(&p, buf, sizeof(buf), 0, (uint32_t)len));
	CHECK_OK(voff_pkt_parse(&p, VOFF_PARSE_ETH, &ps));
	p.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL;
	p.gso_size = 1000;
	p.csum = VOFF_CSUM_PARTIAL;
	p.csum_start = ps.inner_l4_off;
	p.csum_offset = 16;
	CHECK_OK(voff_xmit_info_from_parsed(&p, &ps, &info));
	CHECK_EQ(info.flags, VOFF_XMIT_I_ENCAP | VOFF_XMIT_I_DF);
	CHECK_EQ(info.hdr_len, 14 + 20 + 8 + 8 + 14 + 20 + 20);
	voff_xmit_decide(&p, &info, &veth, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_PASS_GSO);
	voff_xmit_decide(&p, &info, &ipcsum, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_SEGMENT);
	CHECK_EQ(res.reason, VOFF_XMIT_R_GSO_TYPE);

	/*
	 * The same frame as a USO super-packet of the outer UDP (no tunnel
	 * bit: the VXLAN bytes are payload): the header length is the outer
	 * one, and the segment count follows from it (review: it was the
	 * inner payload offset, 62 bytes too many, and 3 segments, not 4).
	 */
	p.gso_type = VOFF_GSO_UDP_L4;
	p.gso_size = 1000;
	p.gso_segs = 0;
	p.csum_start = ps.l4_off;
	p.csum_offset = 6;
	CHECK_OK(voff_xmit_info_from_parsed(&p, &ps, &info));
	CHECK_EQ(info.flags, VOFF_XMIT_I_DF);
	CHECK_EQ(info.hdr_len, 14 + 20 + 8);
	l.gso_max_segs = 3;
	voff_xmit_decide(&p, &info, &veth, &l, VOFF_XMIT_KERNEL, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_PASS_GSO);
	voff_xmit_decide(&p, &info, &veth, &l, 0, &res);
	CHECK_EQ(res.verdict, VOFF_XMIT_RESEGMENT);
	CHECK_EQ(res.reason, VOFF_XMIT_R_GSO_MAX_SEGS);
}

CHECK_MAIN(CHECK_TEST(t_table), CHECK_TEST(t_macvlan_defers),
	   CHECK_TEST(t_random), CHECK_TEST(t_names),
	   CHECK_TEST(t_info_from_parsed), CHECK_TEST(t_parsed_frames))
