/* SPDX-License-Identifier: MIT */
/*
 * xmit.c - the transmit decision (xmit.h): the kernel's validate_xmit_skb()
 * as one pure function over a packet's offload metadata and an egress's
 * features (feat.c) and limits (limits.c)
 *
 * The feature set is narrowed step by step in the kernel's order; each step
 * that takes away a bit the packet's gso_type needs records why, so the
 * verdict comes with the first reason, which datapaths count.
 */
#include <errno.h>
#include <string.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/xmit.h>

static const char *const verdict_names[] = {
	[VOFF_XMIT_PASS] = "pass",
	[VOFF_XMIT_PASS_GSO] = "pass_gso",
	[VOFF_XMIT_PASS_CSUM] = "pass_csum",
	[VOFF_XMIT_CSUM_SW] = "csum_sw",
	[VOFF_XMIT_SEGMENT] = "segment",
	[VOFF_XMIT_RESEGMENT] = "resegment",
	[VOFF_XMIT_DROP] = "drop",
};

static const char *const reason_names[] = {
#define X(e, n, m) [VOFF_XMIT_R_##e] = n,
	VOFF_XMIT_REASON_MAP(X)
#undef X
};

const char *voff_xmit_verdict_name(enum voff_xmit_verdict v)
{
	if ((unsigned int)v >= sizeof(verdict_names) / sizeof(verdict_names[0]))
		return "?";
	return verdict_names[v];
}

const char *voff_xmit_reason_name(enum voff_xmit_reason r)
{
	if ((unsigned int)r >= VOFF_XMIT_R__COUNT)
		return "?";
	return reason_names[r];
}

#define NO_REASON VOFF_XMIT_R__COUNT
#define VLAN_TX (VOFF_F_HW_VLAN_CTAG_TX | VOFF_F_HW_VLAN_STAG_TX)

/* can_checksum_protocol(): HW_CSUM checksums anything, else by version. */
static bool can_csum(uint64_t f, uint8_t proto)
{
	if (f & VOFF_F_HW_CSUM)
		return true;
	if (proto == 4)
		return f & VOFF_F_IP_CSUM;
	if (proto == 6)
		return f & VOFF_F_IPV6_CSUM;
	return false;
}

/* The state of one decision while features are narrowed. */
struct walk {
	uint64_t f;
	uint64_t need;	/* feature bits the gso_type needs (DODGY aside) */
	bool gso;
	uint8_t reason;
};

/* Narrow the features to @nf; blame @r if that lost the gso_type. */
static void narrow(struct walk *w, uint64_t nf, uint8_t r)
{
	bool before = (w->f & w->need) == w->need;

	w->f = nf;
	if (w->gso && before && (nf & w->need) != w->need &&
	    w->reason == NO_REASON)
		w->reason = r;
}

static bool csum_offset_ok(uint16_t off)
{
	return off == 16 || off == 6; /* TCP's and UDP's check field */
}

/* gso_features_check(): limits first, then the per-packet refinements. */
static void gso_checks(struct walk *w, const struct voff_pkt *pkt,
		       const struct voff_xmit_info *info,
		       const struct voff_feat_dev *dev,
		       const struct voff_limits *lim, uint32_t segs,
		       bool ignore_limits)
{
	uint32_t type = pkt->gso_type;
	uint32_t max = info->l3_proto == 6 ? lim->gso_max_size :
					     lim->gso_ipv4_max_size;

	if (!ignore_limits && segs > lim->gso_max_segs) {
		narrow(w, w->f & ~VOFF_F_GSO_MASK, VOFF_XMIT_R_GSO_MAX_SEGS);
		return;
	}
	if (!ignore_limits && pkt->len >= max) {
		narrow(w, w->f & ~VOFF_F_GSO_MASK, VOFF_XMIT_R_GSO_MAX_SIZE);
		return;
	}
	if (!(type & VOFF_GSO_PARTIAL))
		narrow(w, w->f & ~dev->gso_partial, VOFF_XMIT_R_GSO_PARTIAL);
	if ((type & VOFF_GSO_TCPV4) && !(info->flags & VOFF_XMIT_I_DF))
		narrow(w, w->f & ~VOFF_F_TSO_MANGLEID,
		       VOFF_XMIT_R_GSO_MANGLEID);
	if ((w->f & VOFF_F_IPV6_CSUM) && (info->flags & VOFF_XMIT_I_IPV6_EXT) &&
	    ((type & VOFF_GSO_TCPV6) ||
	     ((type & VOFF_GSO_UDP_L4) && info->l3_proto == 6)))
		narrow(w, w->f & ~(VOFF_F_IPV6_CSUM | VOFF_F_TSO6 |
				   VOFF_F_GSO_UDP_L4),
		       VOFF_XMIT_R_GSO_IPV6_EXT);
}

/* netif_skb_features(): every narrowing step, in the kernel's order. */
static void narrow_all(struct walk *w, const struct voff_pkt *pkt,
		       const struct voff_xmit_info *info,
		       const struct voff_feat_dev *dev,
		       const struct voff_limits *lim, uint32_t segs,
		       bool ignore_limits)
{
	if (w->gso)
		gso_checks(w, pkt, info, dev, lim, segs, ignore_limits);
	if (info->flags & VOFF_XMIT_I_ENCAP)
		narrow(w, w->f & dev->enc, VOFF_XMIT_R_GSO_ENCAP);
	if (info->flags & (VOFF_XMIT_I_VLAN | VOFF_XMIT_I_VLAN_MULTI))
		narrow(w, voff_feat_intersect(w->f, dev->vlan | VLAN_TX),
		       VOFF_XMIT_R_GSO_VLAN);
	/* Several tags: only devices with HW_CSUM keep checksum offload. */
	if (info->flags & VOFF_XMIT_I_VLAN_MULTI)
		narrow(w, w->f & (VOFF_F_SG | VOFF_F_HIGHDMA | VOFF_F_HW_CSUM |
				  VOFF_F_FRAGLIST | VLAN_TX),
		       VOFF_XMIT_R_GSO_VLAN);
	/* harmonize_features() */
	if (pkt->csum != VOFF_CSUM_NONE && !can_csum(w->f, info->csum_proto))
		narrow(w, w->f & ~(VOFF_F_CSUM_MASK | VOFF_F_GSO_MASK),
		       VOFF_XMIT_R_GSO_CSUM);
}

static int set(struct voff_xmit_result *out, uint8_t v, uint8_t r)
{
	out->verdict = v;
	out->reason = r;
	return v;
}

/* A plain frame: only its checksum can need help. */
static int decide_plain(const struct voff_pkt *pkt,
			const struct voff_xmit_info *info, uint64_t f,
			struct voff_xmit_result *out)
{
	if (pkt->csum != VOFF_CSUM_PARTIAL)
		return set(out, VOFF_XMIT_PASS, VOFF_XMIT_R_PLAIN);
	if (f & VOFF_F_HW_CSUM)
		return set(out, VOFF_XMIT_PASS_CSUM, VOFF_XMIT_R_CSUM_HW);
	if (!(f & (VOFF_F_IP_CSUM | VOFF_F_IPV6_CSUM)))
		return set(out, VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_PROTO);
	if (info->l3_proto == 6 && (info->flags & VOFF_XMIT_I_IPV6_EXT))
		return set(out, VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_IPV6_EXT);
	if (!csum_offset_ok(pkt->csum_offset))
		return set(out, VOFF_XMIT_CSUM_SW, VOFF_XMIT_R_CSUM_OFFSET);
	return set(out, VOFF_XMIT_PASS_CSUM, VOFF_XMIT_R_CSUM_HW);
}

static int decide(const struct voff_pkt *pkt,
		  const struct voff_xmit_info *info,
		  const struct voff_feat_dev *dev,
		  const struct voff_limits *lim, uint32_t segs,
		  bool ignore_limits, struct voff_xmit_result *out)
{
	struct walk w = {
		.f = dev->active,
		.gso = pkt->gso_size != 0,
		.need = voff_feat_from_gso(pkt->gso_type & ~VOFF_GSO_DODGY),
		.reason = NO_REASON,
	};
	bool csum_ok;

	memset(out, 0, sizeof(*out));
	if (w.gso && !pkt->gso_type) {
		out->features = w.f & ~VOFF_F_GSO_MASK;
		return set(out, VOFF_XMIT_DROP, VOFF_XMIT_R_GSO_TYPE_ZERO);
	}
	if (w.gso && (w.f & w.need) != w.need)
		w.reason = VOFF_XMIT_R_GSO_TYPE;
	narrow_all(&w, pkt, info, dev, lim, segs, ignore_limits);
	out->features = w.f;
	if (!w.gso)
		return decide_plain(pkt, info, w.f, out);

	/* netif_needs_gso() */
	csum_ok = pkt->csum == VOFF_CSUM_PARTIAL ||
		  pkt->csum == VOFF_CSUM_VALID;
	/*
	 * TCP's GSO makes the checksum partial and then, like for DODGY,
	 * hands the packet back whole when the device can take it.
	 */
	if ((w.f & w.need) == w.need && !csum_ok &&
	    (pkt->gso_type & (VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6)))
		return set(out, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_CSUM_SETUP);
	if ((w.f & w.need) != w.need || !csum_ok) {
		out->seg_csum_hw = can_csum(w.f, info->csum_proto);
		return set(out, VOFF_XMIT_SEGMENT,
			   w.reason != NO_REASON ? w.reason :
						   VOFF_XMIT_R_GSO_NOT_PARTIAL);
	}
	/* Untrusted: the GSO layer only recounts gso_segs and lets it go. */
	if ((pkt->gso_type & VOFF_GSO_DODGY) && !(w.f & VOFF_F_GSO_ROBUST))
		return set(out, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_DODGY);
	if (pkt->csum != VOFF_CSUM_PARTIAL || (w.f & VOFF_F_HW_CSUM))
		return set(out, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_OK);
	/* skb_csum_hwoffload_help() -> skb_checksum_help() refuses GSO. */
	if ((info->l3_proto == 6 && (info->flags & VOFF_XMIT_I_IPV6_EXT)) ||
	    !csum_offset_ok(pkt->csum_offset))
		return set(out, VOFF_XMIT_DROP, VOFF_XMIT_R_GSO_BAD_CSUM);
	return set(out, VOFF_XMIT_PASS_GSO, VOFF_XMIT_R_GSO_OK);
}

static uint32_t div_up(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

int voff_xmit_decide(const struct voff_pkt *pkt,
		     const struct voff_xmit_info *info,
		     const struct voff_feat_dev *dev,
		     const struct voff_limits *lim, unsigned int flags,
		     struct voff_xmit_result *out)
{
	struct voff_xmit_result whole;
	uint32_t segs = pkt->gso_segs, max, room, n;

	if (!segs && !(flags & VOFF_XMIT_KERNEL) && pkt->gso_size &&
	    info->hdr_len && pkt->len > info->hdr_len)
		segs = div_up(pkt->len - info->hdr_len, pkt->gso_size);
	decide(pkt, info, dev, lim, segs, false, out);
	if ((flags & VOFF_XMIT_KERNEL) || out->verdict != VOFF_XMIT_SEGMENT ||
	    (out->reason != VOFF_XMIT_R_GSO_MAX_SEGS &&
	     out->reason != VOFF_XMIT_R_GSO_MAX_SIZE) || !info->hdr_len)
		return out->verdict;

	/* Would it pass whole but for the limits?  Then cut it to fit. */
	decide(pkt, info, dev, lim, segs, true, &whole);
	if (whole.verdict != VOFF_XMIT_PASS_GSO)
		return out->verdict;
	max = info->l3_proto == 6 ? lim->gso_max_size : lim->gso_ipv4_max_size;
	/* Each piece must stay below max: hdr + n * gso_size <= max - 1. */
	room = max > info->hdr_len + 1u ? max - 1u - info->hdr_len : 0;
	n = room / pkt->gso_size;
	if (n > lim->gso_max_segs)
		n = lim->gso_max_segs;
	if (n < 2)
		return out->verdict;
	out->verdict = VOFF_XMIT_RESEGMENT;
	out->max_segs = (uint16_t)(n > 0xFFFF ? 0xFFFF : n);
	out->features = whole.features;
	out->seg_csum_hw = true;
	return out->verdict;
}

/*
 * Bytes before the payload the offloads cut: the innermost L4 payload for
 * an encapsulated packet or a plain one, but for a tunnel frame whose
 * offloads apply to the outer packet (USO of the outer UDP, a checksum
 * there) the end of the outer L4 header: the tunnel is payload then.
 */
static uint32_t hdr_len(const struct voff_parsed *p, bool encap)
{
	if (encap || !(p->flags & VOFF_PF_TUNNEL))
		return p->payload_off;
	for (unsigned int i = 0; i < p->n_layers; i++)
		if (p->layers[i].off == p->l4_off)
			return (uint32_t)p->l4_off + p->layers[i].len;
	return p->payload_off;
}

int voff_xmit_info_from_parsed(const struct voff_pkt *pkt,
			       const struct voff_parsed *p,
			       struct voff_xmit_info *out)
{
	const uint8_t *d = voff_pkt_data(pkt);
	const uint32_t tunnel_gso = VOFF_GSO_GRE | VOFF_GSO_GRE_CSUM |
				    VOFF_GSO_IPXIP4 | VOFF_GSO_IPXIP6 |
				    VOFF_GSO_UDP_TUNNEL |
				    VOFF_GSO_UDP_TUNNEL_CSUM;
	uint16_t ip4 = VOFF_OFF_NONE;
	bool encap = false;
	uint32_t hlen;

	memset(out, 0, sizeof(*out));
	out->l3_proto = p->l3_proto;
	out->csum_proto = p->l3_proto;
	if (p->l3_proto == 4)
		ip4 = p->l3_off;
	if (p->flags & VOFF_PF_TUNNEL)
		encap = (pkt->gso_type & tunnel_gso) ||
			(pkt->csum == VOFF_CSUM_PARTIAL &&
			 p->inner_l3_off != VOFF_OFF_NONE &&
			 pkt->csum_start >= p->inner_l3_off);
	if (encap) {
		out->flags |= VOFF_XMIT_I_ENCAP;
		out->csum_proto = p->inner_l3_proto;
		ip4 = p->inner_l3_proto == 4 ? p->inner_l3_off : VOFF_OFF_NONE;
	}
	if (p->n_vlan == 1)
		out->flags |= VOFF_XMIT_I_VLAN;
	else if (p->n_vlan > 1)
		out->flags |= VOFF_XMIT_I_VLAN_MULTI;
	if (p->l3_proto == 6 && (p->flags & VOFF_PF_IPV6_EXT))
		out->flags |= VOFF_XMIT_I_IPV6_EXT;
	if (ip4 != VOFF_OFF_NONE) {
		if ((uint32_t)ip4 + 8 > pkt->len)
			return -EINVAL;
		if (d[ip4 + 6] & 0x40)
			out->flags |= VOFF_XMIT_I_DF;
	}
	hlen = hdr_len(p, encap);
	if (hlen > pkt->len)
		return -EINVAL;
	out->hdr_len = (uint16_t)hlen;
	return 0;
}
