/* SPDX-License-Identifier: MIT */
/*
 * feat.c - the offload feature model: names, dependency rules, aggregation
 * over stacked devices and the built-in device profiles
 *
 * Everything is generated from VOFF_FEAT_MAP in feat.h.  The rules follow
 * the kernel's netdev_fix_features(), netdev_increment_features() and the
 * fix functions of bridge, bond, macvlan and 802.1Q devices as of 6.18
 * (docs/kernel-model.md §1).  Text in and out (`ethtool -k` / `-K`) is in
 * feat_text.c; limits in limits.c; the TUN mapping in tunflags.c; xmit.c
 * uses all this.
 */
#include <errno.h>
#include <string.h>

#include <voff/feat.h>
#include <voff/pkt.h>

#include "feat_int.h"

const struct voff__feat_def voff__feat_defs[VOFF_FEAT__COUNT] = {
#define X(e, b, n, f) [VOFF_FEAT_##e] = { n, b, f },
	VOFF_FEAT_MAP(X)
#undef X
};

/* Each feature has its own bit, and GSO bits line up with VOFF_GSO_*. */
#define X(e, b, n, f) _Static_assert((b) < 64, "feature bit out of range");
VOFF_FEAT_MAP(X)
#undef X
_Static_assert(VOFF_F_TSO == (uint64_t)VOFF_GSO_TCPV4 << VOFF_FEAT_GSO_SHIFT,
	       "TSO must be TCPV4 shifted");
_Static_assert(VOFF_F_GSO_ROBUST ==
		       (uint64_t)VOFF_GSO_DODGY << VOFF_FEAT_GSO_SHIFT,
	       "GSO_ROBUST must be DODGY shifted");
_Static_assert(VOFF_F_TSO_MANGLEID ==
		       (uint64_t)VOFF_GSO_TCP_FIXEDID << VOFF_FEAT_GSO_SHIFT,
	       "MANGLEID must be FIXEDID shifted");
_Static_assert(VOFF_F_TSO6 == (uint64_t)VOFF_GSO_TCPV6 << VOFF_FEAT_GSO_SHIFT,
	       "TSO6 must be TCPV6 shifted");
_Static_assert(VOFF_F_GSO_UDP_TUNNEL_CSUM == ((uint64_t)VOFF_GSO_UDP_TUNNEL_CSUM
					     << VOFF_FEAT_GSO_SHIFT),
	       "UDP tunnel bits must line up");
_Static_assert(VOFF_F_GSO_UDP_L4 ==
		       (uint64_t)VOFF_GSO_UDP_L4 << VOFF_FEAT_GSO_SHIFT,
	       "USO must be UDP_L4 shifted");
_Static_assert(VOFF_F_GSO_FRAGLIST ==
		       (uint64_t)VOFF_GSO_FRAGLIST << VOFF_FEAT_GSO_SHIFT,
	       "GSO_FRAGLIST must line up");
_Static_assert(VOFF_F_GSO_ACCECN ==
		       (uint64_t)VOFF_GSO_TCP_ACCECN << VOFF_FEAT_GSO_SHIFT,
	       "AccECN must line up");

uint64_t voff_feat_all(void)
{
	uint64_t all = 0;

	for (int i = 0; i < VOFF_FEAT__COUNT; i++)
		all |= UINT64_C(1) << voff__feat_defs[i].bit;
	return all;
}

const char *voff_feat_name(enum voff_feat_id id)
{
	if ((unsigned int)id >= VOFF_FEAT__COUNT)
		return "?";
	return voff__feat_defs[id].name;
}

uint64_t voff_feat_bit(enum voff_feat_id id)
{
	if ((unsigned int)id >= VOFF_FEAT__COUNT)
		return 0;
	return UINT64_C(1) << voff__feat_defs[id].bit;
}

bool voff_feat_has_sw(enum voff_feat_id id)
{
	if ((unsigned int)id >= VOFF_FEAT__COUNT)
		return false;
	return voff__feat_defs[id].flags & VOFF_FEAT_SW;
}

/*
 * The kernel's rules in its order.  Order matters: TSO dropped for want of
 * SG also takes MANGLEID (needs TSO) and ECN with it.
 */
uint64_t voff_feat_fix(uint64_t f, uint64_t gso_partial)
{
	const uint64_t ip46 = VOFF_F_IP_CSUM | VOFF_F_IPV6_CSUM;

	/* Rule 1: HW_CSUM covers the protocol-specific checksums. */
	if ((f & VOFF_F_HW_CSUM) && (f & ip46))
		f &= ~ip46;
	/* Rule 2: TSO needs scatter-gather. */
	if ((f & VOFF_F_ALL_TSO) && !(f & VOFF_F_SG))
		f &= ~VOFF_F_ALL_TSO;
	/* Rule 3: TSO needs a checksum offload for its protocol. */
	if ((f & VOFF_F_TSO) && !(f & (VOFF_F_HW_CSUM | VOFF_F_IP_CSUM)))
		f &= ~(VOFF_F_TSO | VOFF_F_TSO_ECN);
	if ((f & VOFF_F_TSO6) && !(f & (VOFF_F_HW_CSUM | VOFF_F_IPV6_CSUM)))
		f &= ~VOFF_F_TSO6;
	/* Rule 4: MANGLEID refines TSO; ECN alone means nothing. */
	if ((f & VOFF_F_TSO_MANGLEID) && !(f & VOFF_F_TSO))
		f &= ~VOFF_F_TSO_MANGLEID;
	if ((f & VOFF_F_ALL_TSO) == VOFF_F_TSO_ECN)
		f &= ~VOFF_F_TSO_ECN;
	/* Rule 5: software GSO builds segments from fragments. */
	if ((f & VOFF_F_GSO) && !(f & VOFF_F_SG))
		f &= ~VOFF_F_GSO;
	/* Rule 6: partial features only with GSO_PARTIAL. */
	if ((f & gso_partial) && !(f & VOFF_F_GSO_PARTIAL))
		f &= ~gso_partial;
	/* Rule 7: receive offloads. */
	if (!(f & VOFF_F_RXCSUM))
		f &= ~VOFF_F_GRO_HW;
	if (f & VOFF_F_RXFCS)
		f &= ~(VOFF_F_LRO | VOFF_F_GRO_HW);
	if ((f & VOFF_F_GRO_HW) && (f & VOFF_F_LRO))
		f &= ~VOFF_F_LRO;
	/* TLS offloads need the checksums they build on. */
	if ((f & VOFF_F_HW_TLS_TX) && !(f & VOFF_F_HW_CSUM) &&
	    (f & ip46) != ip46)
		f &= ~VOFF_F_HW_TLS_TX;
	if ((f & VOFF_F_HW_TLS_RX) && !(f & VOFF_F_RXCSUM))
		f &= ~VOFF_F_HW_TLS_RX;
	/* Rule 8: USO needs a checksum for both IP versions; not SG. */
	if ((f & VOFF_F_GSO_UDP_L4) && !(f & VOFF_F_HW_CSUM) &&
	    (f & ip46) != ip46)
		f &= ~VOFF_F_GSO_UDP_L4;
	return f;
}

uint64_t voff_feat_from_gso(uint32_t gso_type)
{
	uint64_t need = (uint64_t)gso_type << VOFF_FEAT_GSO_SHIFT;

	/*
	 * FIXEDID_INNER has no feature bit: it asks, like FIXEDID, for a
	 * device that may keep IPv4 IDs fixed.
	 */
	if (gso_type & VOFF_GSO_TCP_FIXEDID_INNER) {
		need &= ~((uint64_t)VOFF_GSO_TCP_FIXEDID_INNER
			  << VOFF_FEAT_GSO_SHIFT);
		need |= VOFF_F_TSO_MANGLEID;
	}
	return need;
}

bool voff_feat_gso_ok(uint64_t features, uint32_t gso_type)
{
	uint64_t need = voff_feat_from_gso(gso_type);

	return gso_type && (features & need) == need;
}

uint64_t voff_feat_increment(uint64_t all, uint64_t one, uint64_t mask)
{
	if (mask & VOFF_F_HW_CSUM)
		mask |= VOFF_F_CSUM_MASK;
	mask |= VOFF_F_VLAN_CHALLENGED;

	all |= one & (VOFF_F_ONE_FOR_ALL | VOFF_F_CSUM_MASK) & mask;
	all &= one | ~VOFF_F_ALL_FOR_ALL;
	if (all & VOFF_F_HW_CSUM)
		all &= ~(VOFF_F_IP_CSUM | VOFF_F_IPV6_CSUM);
	return all;
}

uint64_t voff_feat_intersect(uint64_t a, uint64_t b)
{
	const uint64_t ip46 = VOFF_F_IP_CSUM | VOFF_F_IPV6_CSUM;

	if ((a ^ b) & VOFF_F_HW_CSUM) {
		if (a & VOFF_F_HW_CSUM)
			a |= ip46;
		else
			b |= ip46;
	}
	return a & b;
}

/* ---- device state -------------------------------------------------------- */

/* What the kernel hands a driver's fix function: fixed bits + requests. */
static uint64_t wanted_input(const struct voff_feat_dev *d)
{
	return (d->active & ~d->hw) | (d->wanted & d->hw);
}

static uint64_t commit(struct voff_feat_dev *d, uint64_t f)
{
	uint64_t old = d->active;

	d->active = voff_feat_fix(f, d->gso_partial);
	return old ^ d->active;
}

uint64_t voff_feat_dev_update(struct voff_feat_dev *d)
{
	return commit(d, wanted_input(d));
}

uint64_t voff_feat_dev_request(struct voff_feat_dev *d, uint64_t mask,
			       uint64_t on)
{
	uint64_t ok = mask & d->hw;

	d->wanted = (d->wanted & ~ok) | (on & ok);
	return mask & ~d->hw;
}

/* Bits register_netdevice() adds to every device (soft features). */
#define REG_HW (VOFF_F_SOFT_FEATURES | VOFF_F_SOFT_FEATURES_OFF | \
		VOFF_F_NOCACHE_COPY)

/* veth_setup() of 6.18. */
#define VETH_FEATURES                                                        \
	(VOFF_F_SG | VOFF_F_FRAGLIST | VOFF_F_HW_CSUM | VOFF_F_RXCSUM |      \
	 VOFF_F_SCTP_CRC | VOFF_F_HIGHDMA | VOFF_F_GSO_SOFTWARE |            \
	 VOFF_F_GSO_ENCAP_ALL)
#define VLAN_HW_ALL                                                          \
	(VOFF_F_HW_VLAN_CTAG_TX | VOFF_F_HW_VLAN_CTAG_RX |                   \
	 VOFF_F_HW_VLAN_STAG_TX | VOFF_F_HW_VLAN_STAG_RX)
#define VLAN_HW_TX (VOFF_F_HW_VLAN_CTAG_TX | VOFF_F_HW_VLAN_STAG_TX)
/* The bridge's COMMON_FEATURES. */
#define BR_COMMON                                                            \
	(VOFF_F_SG | VOFF_F_FRAGLIST | VOFF_F_HIGHDMA | VOFF_F_GSO_MASK |    \
	 VOFF_F_HW_CSUM)
/* bonding's BOND_VLAN_FEATURES / MASTER_UPPER_DEV_*_FEATURES. */
#define BOND_VLAN_FEATURES                                                   \
	(VOFF_F_HW_CSUM | VOFF_F_SG | VOFF_F_FRAGLIST | VOFF_F_GSO_SOFTWARE | \
	 VOFF_F_GSO_ENCAP_ALL | VOFF_F_HIGHDMA | VOFF_F_LRO)
#define BOND_ENC_FEATURES                                                    \
	(VOFF_F_HW_CSUM | VOFF_F_SG | VOFF_F_RXCSUM | VOFF_F_GSO_SOFTWARE |  \
	 VOFF_F_GSO_PARTIAL)
/* vlan_dev_init()'s hw_features. */
#define VLANDEV_HW                                                           \
	(VOFF_F_HW_CSUM | VOFF_F_SG | VOFF_F_FRAGLIST | VOFF_F_GSO_SOFTWARE | \
	 VOFF_F_GSO_ENCAP_ALL | VOFF_F_HIGHDMA | VOFF_F_SCTP_CRC |            \
	 VOFF_F_FCOE_CRC | VOFF_F_FSO)

/* The TSO_MANGLEID the kernel makes toggleable wherever TSO is. */
static uint64_t add_mangleid(uint64_t hw)
{
	return (hw & VOFF_F_TSO) ? hw | VOFF_F_TSO_MANGLEID : hw;
}

int voff_feat_dev_init(struct voff_feat_dev *d, enum voff_feat_profile p)
{
	memset(d, 0, sizeof(*d));
	switch (p) {
	case VOFF_FEAT_PROFILE_VETH:
		d->hw = add_mangleid(VETH_FEATURES | VLAN_HW_ALL | REG_HW);
		d->active = VETH_FEATURES | VLAN_HW_ALL | VOFF_F_GSO;
		d->vlan = d->active & ~VLAN_HW_ALL;
		d->enc = VETH_FEATURES;
		break;
	case VOFF_FEAT_PROFILE_TAP:
		/* tun_set_iff() after TUNSETOFFLOAD(0): no checksum, no TSO. */
		d->hw = add_mangleid(VOFF_F_SG | VOFF_F_FRAGLIST |
				     VOFF_F_TUN_USER | VLAN_HW_TX | REG_HW);
		d->active = VOFF_F_SG | VOFF_F_FRAGLIST | VLAN_HW_TX |
			    VOFF_F_SOFT_FEATURES;
		d->vlan = d->active & ~VLAN_HW_TX;
		d->enc = VOFF_F_SG | VOFF_F_GSO_PARTIAL;
		break;
	case VOFF_FEAT_PROFILE_BRIDGE:
		d->hw = add_mangleid(BR_COMMON | VLAN_HW_TX | REG_HW);
		d->active = BR_COMMON | VLAN_HW_TX | VOFF_F_SOFT_FEATURES;
		d->vlan = BR_COMMON;
		d->enc = VOFF_F_SG | VOFF_F_GSO_PARTIAL;
		break;
	case VOFF_FEAT_PROFILE_MACVLAN:
		/* Only LRO and the soft features are the user's. */
		d->hw = VOFF_F_LRO | REG_HW;
		d->wanted = VOFF_F_SOFT_FEATURES;
		d->active = VOFF_F_MACVLAN_ALWAYS_ON;
		d->vlan = VOFF_F_MACVLAN_ALWAYS_ON;
		d->enc = VOFF_F_MACVLAN_ALWAYS_ON;
		return 0;
	case VOFF_FEAT_PROFILE_VLAN:
		d->hw = add_mangleid(VLANDEV_HW | REG_HW);
		d->active = VLANDEV_HW | VOFF_F_SOFT_FEATURES;
		d->vlan = 0;
		d->enc = 0;
		break;
	case VOFF_FEAT_PROFILE_BOND:
		d->hw = add_mangleid(BOND_VLAN_FEATURES | VOFF_F_GSO_ENCAP_ALL |
				     VOFF_F_HW_VLAN_CTAG_TX |
				     VOFF_F_HW_VLAN_CTAG_RX |
				     VOFF_F_HW_VLAN_CTAG_FILTER |
				     VOFF_F_HW_VLAN_STAG_RX |
				     VOFF_F_HW_VLAN_STAG_FILTER | REG_HW);
		d->active = (d->hw & ~(REG_HW | VOFF_F_TSO_MANGLEID)) |
			    VLAN_HW_TX | VOFF_F_SOFT_FEATURES;
		d->vlan = BOND_VLAN_FEATURES;
		d->enc = BOND_ENC_FEATURES | VOFF_F_GSO_ENCAP_ALL | VLAN_HW_TX;
		break;
	case VOFF_FEAT_PROFILE_NONE:
		return 0;
	default:
		return -EINVAL;
	}
	/* register_netdevice(): wanted = features & hw_features. */
	d->wanted = d->active & d->hw;
	return 0;
}

uint64_t voff_feat_dev_update_bridge(struct voff_feat_dev *br,
				     const uint64_t *ports, size_t n)
{
	uint64_t f = wanted_input(br), mask = f;

	if (n) {
		f &= ~VOFF_F_ONE_FOR_ALL;
		for (size_t i = 0; i < n; i++)
			f = voff_feat_increment(f, ports[i], mask);
		f = voff_feat_increment(f, VOFF_F_ALL_TSO, mask);
	}
	return commit(br, f);
}

/* netdev_base_features(): where a bond's aggregation starts. */
static uint64_t base_features(uint64_t f)
{
	return (f & ~VOFF_F_ONE_FOR_ALL) | VOFF_F_ALL_FOR_ALL;
}

uint64_t voff_feat_dev_update_bond(struct voff_feat_dev *bond,
				   const struct voff_feat_dev *lowers,
				   size_t n)
{
	uint64_t f = wanted_input(bond), mask = f;
	uint64_t vlan = base_features(BOND_VLAN_FEATURES);
	uint64_t enc = base_features(BOND_ENC_FEATURES);

	f = base_features(f);
	for (size_t i = 0; i < n; i++) {
		f = voff_feat_increment(f, lowers[i].active, mask);
		vlan = voff_feat_increment(vlan, lowers[i].vlan,
					   BOND_VLAN_FEATURES);
		enc = voff_feat_increment(enc, lowers[i].enc,
					  BOND_ENC_FEATURES);
	}
	f = voff_feat_increment(f, VOFF_F_ALL_TSO, mask);
	if (n) {
		bond->vlan = vlan;
		bond->enc = enc | VOFF_F_GSO_ENCAP_ALL | VLAN_HW_TX;
	}
	return commit(bond, f);
}

uint64_t voff_feat_always_on(uint64_t lower, uint64_t own, uint64_t always_on,
			     uint64_t inherit)
{
	uint64_t f = own | VOFF_F_ALL_FOR_ALL, mask = f;

	/* An LRO the port's user turned off stays off below it. */
	lower &= f | ~VOFF_F_LRO;
	f = voff_feat_increment(lower, f, mask);
	f |= always_on;
	return f & (always_on | inherit);
}

uint64_t voff_feat_dev_update_macvlan(struct voff_feat_dev *mv,
				      uint64_t lower)
{
	return commit(mv, voff_feat_always_on(lower, wanted_input(mv),
					      VOFF_F_MACVLAN_ALWAYS_ON,
					      VOFF_F_MACVLAN_FEATURES));
}

uint64_t voff_feat_dev_sync_lower(const struct voff_feat_dev *upper,
				  struct voff_feat_dev *lower)
{
	uint64_t off = VOFF_F_UPPER_DISABLES & ~upper->active & lower->active;

	if (!off)
		return 0;
	lower->wanted &= ~off;
	return voff_feat_dev_update(lower);
}

uint64_t voff_feat_dev_update_vlan(struct voff_feat_dev *vlan,
				   const struct voff_feat_dev *lower)
{
	uint64_t own = wanted_input(vlan), f, low;

	low = voff_feat_intersect(lower->vlan | VOFF_F_RXCSUM, lower->active);
	/* Keep the user's control of checksumming on the VLAN device. */
	if (low & (VOFF_F_IP_CSUM | VOFF_F_IPV6_CSUM))
		low |= VOFF_F_HW_CSUM;
	f = voff_feat_intersect(own, low);
	f |= own & (VOFF_F_SOFT_FEATURES | VOFF_F_GSO_SOFTWARE);
	return commit(vlan, f);
}
