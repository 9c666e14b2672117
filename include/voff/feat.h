/* SPDX-License-Identifier: MIT */
/*
 * feat.h - offload features and the TUN/AF_PACKET mapping
 *
 * DOC: Theory of Operation
 *
 * Every port of a voff datapath, like every Linux net_device, says what it
 * can take whole by a feature set and a few size limits (limits.h).  This
 * header reproduces the kernel's model (docs/kernel-model.md §1, §2, §5):
 *
 *  - VOFF_FEAT_MAP defines every feature once: its bit, its `ethtool -k`
 *    name and whether voff (or the kernel) has a software fallback.  A
 *    feature set is a plain uint64_t of VOFF_F_* bits.
 *  - The GSO feature bits are the packet's VOFF_GSO_* bits (pkt.h) shifted
 *    by VOFF_FEAT_GSO_SHIFT, as NETIF_F_* are SKB_GSO_* << 16 in the
 *    kernel, so "the device takes this gso_type" is a subset test
 *    (voff_feat_gso_ok()).
 *  - struct voff_feat_dev keeps what the kernel keeps per device: the
 *    toggleable set (hw_features), the requested set (wanted_features) and
 *    the resulting set after the dependency rules (features), so printing
 *    can say "off [requested on]".
 *  - Stacks: voff_feat_increment() (bridge/bond aggregation),
 *    voff_feat_intersect(), and the fix functions of bridge, bond, macvlan
 *    and VLAN devices, which compute an upper device from its lowers.
 *
 * The transmit decision that uses all of this is in xmit.h.
 *
 * Nothing here allocates, locks or touches the system.  Context: the
 * functions only read their arguments and write their out-parameters (or
 * the struct voff_feat_dev passed to them), so any thread may call them on
 * its own objects.
 */
#ifndef VOFF_FEAT_H
#define VOFF_FEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <voff/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Feature flags in the X-macro. */
#define VOFF_FEAT_SW 0x1	/* has a software fallback */
#define VOFF_FEAT_HIDDEN 0x2	/* ethtool -k does not list it (no name) */

/* GSO feature bit = VOFF_GSO_* bit + this shift. */
#define VOFF_FEAT_GSO_SHIFT 16

/*
 * VOFF_FEAT_MAP(X) - X(ENUM, bit, "ethtool-name", flags)
 *
 * Listed in the order `ethtool -k` prints them (the kernel's bit order);
 * the voff bit numbers follow the kernel's up to the GSO range and are
 * packed after it.  Bits 16..36 are VOFF_GSO_* << 16: bit 35 is the
 * FIXEDID_INNER gso_type modifier, which has no feature of its own.
 */
#define VOFF_FEAT_MAP(X)                                                     \
	X(SG, 0, "tx-scatter-gather", VOFF_FEAT_SW)                          \
	X(IP_CSUM, 1, "tx-checksum-ipv4", VOFF_FEAT_SW)                      \
	X(HW_CSUM, 3, "tx-checksum-ip-generic", VOFF_FEAT_SW)                \
	X(IPV6_CSUM, 4, "tx-checksum-ipv6", VOFF_FEAT_SW)                    \
	X(HIGHDMA, 5, "highdma", 0)                                          \
	X(FRAGLIST, 6, "tx-scatter-gather-fraglist", VOFF_FEAT_SW)           \
	X(HW_VLAN_CTAG_TX, 7, "tx-vlan-hw-insert", VOFF_FEAT_SW)             \
	X(HW_VLAN_CTAG_RX, 8, "rx-vlan-hw-parse", VOFF_FEAT_SW)              \
	X(HW_VLAN_CTAG_FILTER, 9, "rx-vlan-filter", 0)                       \
	X(VLAN_CHALLENGED, 10, "vlan-challenged", 0)                         \
	X(GSO, 11, "tx-generic-segmentation", VOFF_FEAT_SW)                  \
	X(GRO, 14, "rx-gro", VOFF_FEAT_SW)                                   \
	X(LRO, 15, "rx-lro", 0)                                              \
	X(TSO, 16, "tx-tcp-segmentation", VOFF_FEAT_SW)                      \
	X(GSO_ROBUST, 17, "tx-gso-robust", 0)                                \
	X(TSO_ECN, 18, "tx-tcp-ecn-segmentation", VOFF_FEAT_SW)              \
	X(TSO_MANGLEID, 19, "tx-tcp-mangleid-segmentation", VOFF_FEAT_SW)    \
	X(TSO6, 20, "tx-tcp6-segmentation", VOFF_FEAT_SW)                    \
	X(FSO, 21, "tx-fcoe-segmentation", 0)                                \
	X(GSO_GRE, 22, "tx-gre-segmentation", VOFF_FEAT_SW)                  \
	X(GSO_GRE_CSUM, 23, "tx-gre-csum-segmentation", VOFF_FEAT_SW)        \
	X(GSO_IPXIP4, 24, "tx-ipxip4-segmentation", VOFF_FEAT_SW)            \
	X(GSO_IPXIP6, 25, "tx-ipxip6-segmentation", VOFF_FEAT_SW)            \
	X(GSO_UDP_TUNNEL, 26, "tx-udp_tnl-segmentation", VOFF_FEAT_SW)       \
	X(GSO_UDP_TUNNEL_CSUM, 27, "tx-udp_tnl-csum-segmentation",           \
	  VOFF_FEAT_SW)                                                      \
	X(GSO_PARTIAL, 28, "tx-gso-partial", VOFF_FEAT_SW)                   \
	X(GSO_TUNNEL_REMCSUM, 29, "tx-tunnel-remcsum-segmentation", 0)       \
	X(GSO_SCTP, 30, "tx-sctp-segmentation", VOFF_FEAT_SW)                \
	X(GSO_ESP, 31, "tx-esp-segmentation", 0)                             \
	X(GSO_UDP, 32, "tx-udp-fragmentation",                               \
	  VOFF_FEAT_SW | VOFF_FEAT_HIDDEN)                                   \
	X(GSO_UDP_L4, 33, "tx-udp-segmentation", VOFF_FEAT_SW)               \
	X(GSO_FRAGLIST, 34, "tx-gso-list", VOFF_FEAT_SW)                     \
	X(GSO_ACCECN, 36, "tx-tcp-accecn-segmentation", VOFF_FEAT_SW)        \
	X(FCOE_CRC, 2, "tx-checksum-fcoe-crc", 0)                            \
	X(SCTP_CRC, 12, "tx-checksum-sctp", VOFF_FEAT_SW)                    \
	X(NTUPLE, 13, "rx-ntuple-filter", 0)                                 \
	X(RXHASH, 37, "rx-hashing", VOFF_FEAT_SW)                            \
	X(RXCSUM, 38, "rx-checksum", VOFF_FEAT_SW)                           \
	X(NOCACHE_COPY, 39, "tx-nocache-copy", 0)                            \
	X(LOOPBACK, 40, "loopback", 0)                                       \
	X(RXFCS, 41, "rx-fcs", 0)                                            \
	X(RXALL, 42, "rx-all", 0)                                            \
	X(HW_VLAN_STAG_TX, 43, "tx-vlan-stag-hw-insert", VOFF_FEAT_SW)       \
	X(HW_VLAN_STAG_RX, 44, "rx-vlan-stag-hw-parse", VOFF_FEAT_SW)        \
	X(HW_VLAN_STAG_FILTER, 45, "rx-vlan-stag-filter", 0)                 \
	X(HW_L2FW_DOFFLOAD, 46, "l2-fwd-offload", 0)                         \
	X(HW_TC, 47, "hw-tc-offload", 0)                                     \
	X(HW_ESP, 48, "esp-hw-offload", 0)                                   \
	X(HW_ESP_TX_CSUM, 49, "esp-tx-csum-hw-offload", 0)                   \
	X(RX_UDP_TUNNEL_PORT, 50, "rx-udp_tunnel-port-offload", 0)           \
	X(HW_TLS_TX, 51, "tls-hw-tx-offload", 0)                             \
	X(HW_TLS_RX, 52, "tls-hw-rx-offload", 0)                             \
	X(GRO_HW, 53, "rx-gro-hw", 0)                                        \
	X(HW_TLS_RECORD, 54, "tls-hw-record", 0)                             \
	X(GRO_FRAGLIST, 55, "rx-gro-list", VOFF_FEAT_SW)                     \
	X(HW_MACSEC, 56, "macsec-hw-offload", 0)                             \
	X(GRO_UDP_FWD, 57, "rx-udp-gro-forwarding", VOFF_FEAT_SW)            \
	X(HW_HSR_TAG_INS, 58, "hsr-tag-ins-offload", 0)                      \
	X(HW_HSR_TAG_RM, 59, "hsr-tag-rm-offload", 0)                        \
	X(HW_HSR_FWD, 60, "hsr-fwd-offload", 0)                              \
	X(HW_HSR_DUP, 61, "hsr-dup-offload", 0)

/* enum voff_feat_id - index of a feature in VOFF_FEAT_MAP (print order) */
enum voff_feat_id {
#define VOFF__X(e, b, n, f) VOFF_FEAT_##e,
	VOFF_FEAT_MAP(VOFF__X)
#undef VOFF__X
	VOFF_FEAT__COUNT
};

/* VOFF_F_<ENUM>: the feature's bit in a uint64_t feature set. */
enum {
#define VOFF__X(e, b, n, f) VOFF_F_##e##_BIT = b,
	VOFF_FEAT_MAP(VOFF__X)
#undef VOFF__X
};
#define VOFF__F(e) (UINT64_C(1) << VOFF_F_##e##_BIT)
#define VOFF_F_SG VOFF__F(SG)
#define VOFF_F_IP_CSUM VOFF__F(IP_CSUM)
#define VOFF_F_HW_CSUM VOFF__F(HW_CSUM)
#define VOFF_F_IPV6_CSUM VOFF__F(IPV6_CSUM)
#define VOFF_F_HIGHDMA VOFF__F(HIGHDMA)
#define VOFF_F_FRAGLIST VOFF__F(FRAGLIST)
#define VOFF_F_HW_VLAN_CTAG_TX VOFF__F(HW_VLAN_CTAG_TX)
#define VOFF_F_HW_VLAN_CTAG_RX VOFF__F(HW_VLAN_CTAG_RX)
#define VOFF_F_HW_VLAN_CTAG_FILTER VOFF__F(HW_VLAN_CTAG_FILTER)
#define VOFF_F_VLAN_CHALLENGED VOFF__F(VLAN_CHALLENGED)
#define VOFF_F_GSO VOFF__F(GSO)
#define VOFF_F_GRO VOFF__F(GRO)
#define VOFF_F_LRO VOFF__F(LRO)
#define VOFF_F_TSO VOFF__F(TSO)
#define VOFF_F_GSO_ROBUST VOFF__F(GSO_ROBUST)
#define VOFF_F_TSO_ECN VOFF__F(TSO_ECN)
#define VOFF_F_TSO_MANGLEID VOFF__F(TSO_MANGLEID)
#define VOFF_F_TSO6 VOFF__F(TSO6)
#define VOFF_F_FSO VOFF__F(FSO)
#define VOFF_F_GSO_GRE VOFF__F(GSO_GRE)
#define VOFF_F_GSO_GRE_CSUM VOFF__F(GSO_GRE_CSUM)
#define VOFF_F_GSO_IPXIP4 VOFF__F(GSO_IPXIP4)
#define VOFF_F_GSO_IPXIP6 VOFF__F(GSO_IPXIP6)
#define VOFF_F_GSO_UDP_TUNNEL VOFF__F(GSO_UDP_TUNNEL)
#define VOFF_F_GSO_UDP_TUNNEL_CSUM VOFF__F(GSO_UDP_TUNNEL_CSUM)
#define VOFF_F_GSO_PARTIAL VOFF__F(GSO_PARTIAL)
#define VOFF_F_GSO_TUNNEL_REMCSUM VOFF__F(GSO_TUNNEL_REMCSUM)
#define VOFF_F_GSO_SCTP VOFF__F(GSO_SCTP)
#define VOFF_F_GSO_ESP VOFF__F(GSO_ESP)
#define VOFF_F_GSO_UDP VOFF__F(GSO_UDP)
#define VOFF_F_GSO_UDP_L4 VOFF__F(GSO_UDP_L4)
#define VOFF_F_GSO_FRAGLIST VOFF__F(GSO_FRAGLIST)
#define VOFF_F_GSO_ACCECN VOFF__F(GSO_ACCECN)
#define VOFF_F_FCOE_CRC VOFF__F(FCOE_CRC)
#define VOFF_F_SCTP_CRC VOFF__F(SCTP_CRC)
#define VOFF_F_NTUPLE VOFF__F(NTUPLE)
#define VOFF_F_RXHASH VOFF__F(RXHASH)
#define VOFF_F_RXCSUM VOFF__F(RXCSUM)
#define VOFF_F_NOCACHE_COPY VOFF__F(NOCACHE_COPY)
#define VOFF_F_LOOPBACK VOFF__F(LOOPBACK)
#define VOFF_F_RXFCS VOFF__F(RXFCS)
#define VOFF_F_RXALL VOFF__F(RXALL)
#define VOFF_F_HW_VLAN_STAG_TX VOFF__F(HW_VLAN_STAG_TX)
#define VOFF_F_HW_VLAN_STAG_RX VOFF__F(HW_VLAN_STAG_RX)
#define VOFF_F_HW_VLAN_STAG_FILTER VOFF__F(HW_VLAN_STAG_FILTER)
#define VOFF_F_HW_TLS_TX VOFF__F(HW_TLS_TX)
#define VOFF_F_HW_TLS_RX VOFF__F(HW_TLS_RX)
#define VOFF_F_GRO_HW VOFF__F(GRO_HW)
#define VOFF_F_GRO_FRAGLIST VOFF__F(GRO_FRAGLIST)
#define VOFF_F_GRO_UDP_FWD VOFF__F(GRO_UDP_FWD)

/*
 * All GSO feature bits (NETIF_F_GSO_MASK): VOFF_GSO_* bits 0..20 shifted,
 * without bit 35 (FIXEDID_INNER), which names no feature.
 */
#define VOFF_F_GSO_MASK                                                      \
	((UINT64_C(0x1FFFFF) << VOFF_FEAT_GSO_SHIFT) &                       \
	 ~((uint64_t)VOFF_GSO_TCP_FIXEDID_INNER << VOFF_FEAT_GSO_SHIFT))

/* ---- masks (docs/kernel-model.md §1.1: NETIF_F_* masks of 6.18) ----- */

/* TSO bits that need SG (rule 2); AccECN is not among them on 6.18. */
#define VOFF_F_ALL_TSO \
	(VOFF_F_TSO | VOFF_F_TSO6 | VOFF_F_TSO_ECN | VOFF_F_TSO_MANGLEID)
/* Segmentation the software can always do: the "always on" candidates. */
#define VOFF_F_GSO_SOFTWARE                                                  \
	(VOFF_F_ALL_TSO | VOFF_F_GSO_ACCECN | VOFF_F_GSO_SCTP |              \
	 VOFF_F_GSO_UDP_L4 | VOFF_F_GSO_FRAGLIST)
/* Tunnel segmentation types. */
#define VOFF_F_GSO_ENCAP_ALL                                                 \
	(VOFF_F_GSO_GRE | VOFF_F_GSO_GRE_CSUM | VOFF_F_GSO_IPXIP4 |          \
	 VOFF_F_GSO_IPXIP6 | VOFF_F_GSO_UDP_TUNNEL |                         \
	 VOFF_F_GSO_UDP_TUNNEL_CSUM)
#define VOFF_F_CSUM_MASK (VOFF_F_IP_CSUM | VOFF_F_IPV6_CSUM | VOFF_F_HW_CSUM)
/* The aggregate has these when any lower device has them. */
#define VOFF_F_ONE_FOR_ALL                                                   \
	(VOFF_F_GSO_SOFTWARE | VOFF_F_GSO_ROBUST | VOFF_F_SG |               \
	 VOFF_F_HIGHDMA | VOFF_F_FRAGLIST | VOFF_F_VLAN_CHALLENGED)
/* The aggregate has these only when every lower device has them. */
#define VOFF_F_ALL_FOR_ALL (VOFF_F_NOCACHE_COPY | VOFF_F_FSO)
/* Turned off on the lower devices when the upper one turns them off. */
#define VOFF_F_UPPER_DISABLES VOFF_F_LRO
/* Per-device software features, always toggleable (SOFT_FEATURES). */
#define VOFF_F_SOFT_FEATURES (VOFF_F_GSO | VOFF_F_GRO)
/* Software features that start off (SOFT_FEATURES_OFF). */
#define VOFF_F_SOFT_FEATURES_OFF (VOFF_F_GRO_FRAGLIST | VOFF_F_GRO_UDP_FWD)
/* macvlan's always-on set (docs/kernel-model.md §1.4, as in 6.18). */
#define VOFF_F_MACVLAN_ALWAYS_ON                                             \
	(VOFF_F_SG | VOFF_F_HW_CSUM | VOFF_F_GSO_SOFTWARE |                  \
	 VOFF_F_GSO_ROBUST | VOFF_F_GSO_ENCAP_ALL)
/* What a macvlan may inherit from its lower device. */
#define VOFF_F_MACVLAN_FEATURES                                              \
	(VOFF_F_SG | VOFF_F_CSUM_MASK | VOFF_F_HIGHDMA | VOFF_F_FRAGLIST |   \
	 VOFF_F_GSO | VOFF_F_TSO | VOFF_F_LRO | VOFF_F_TSO6 | VOFF_F_GRO |    \
	 VOFF_F_RXCSUM | VOFF_F_HW_VLAN_CTAG_FILTER |                         \
	 VOFF_F_HW_VLAN_STAG_FILTER)
/* Every defined feature bit. */
uint64_t voff_feat_all(void);

/* ---- names --------------------------------------------------------------- */

/**
 * voff_feat_name() - ethtool name of a feature
 * @id:		enum voff_feat_id
 *
 * Return: a static string ("tx-scatter-gather"), never NULL; "?" for a
 * bad @id.
 */
const char *voff_feat_name(enum voff_feat_id id);

/** voff_feat_bit() - the VOFF_F_* bit of feature @id (0 for a bad @id) */
uint64_t voff_feat_bit(enum voff_feat_id id);

/** voff_feat_has_sw() - whether feature @id has a software fallback */
bool voff_feat_has_sw(enum voff_feat_id id);

/**
 * voff_feat_lookup() - features an ethtool name stands for
 * @name:	a feature name ("tx-tcp-segmentation"), one of ethtool's
 *		legacy short names ("sg", "tx", "tso", "gso", "gro", "lro",
 *		"rx", "rxvlan", "txvlan", "ntuple", "rxhash", "ufo") or long
 *		names ("scatter-gather"), which stand for every feature
 *		ethtool groups under them
 * @out:	receives the set
 *
 * Return: 0, or -ENOENT for an unknown name (*@out untouched).
 */
int voff_feat_lookup(const char *name, uint64_t *out);

/* ---- rules --------------------------------------------------------------- */

/**
 * voff_feat_fix() - the kernel's dependency rules (docs/kernel-model.md §1.2)
 * @features:		a requested feature set
 * @gso_partial:	the device's gso_partial_features (0 for most)
 *
 * Rules, in the kernel's order: HW_CSUM drops IP/IPV6_CSUM; TSO bits need
 * SG; TSO (and TSO_ECN) need HW_CSUM or IP_CSUM, TSO6 needs HW_CSUM or
 * IPV6_CSUM; MANGLEID needs TSO; TSO_ECN alone is dropped; GSO needs SG;
 * @gso_partial features need GSO_PARTIAL; GRO_HW needs RXCSUM; RXFCS drops
 * LRO and GRO_HW; GRO_HW drops LRO; TLS offloads need their checksums;
 * USO needs HW_CSUM or both IP_CSUM and IPV6_CSUM.
 *
 * Return: the fixed set (a subset of @features).
 */
uint64_t voff_feat_fix(uint64_t features, uint64_t gso_partial);

/**
 * voff_feat_gso_ok() - whether @features can take a super-packet of @gso_type
 * @features:	device features
 * @gso_type:	VOFF_GSO_* bits of the packet (0 is never ok)
 *
 * A subset test: every gso_type bit needs its feature bit (DODGY needs
 * GSO_ROBUST, FIXEDID needs TSO_MANGLEID).  FIXEDID_INNER has no feature
 * bit and needs TSO_MANGLEID too.
 *
 * Return: true when the device can segment it.
 */
bool voff_feat_gso_ok(uint64_t features, uint32_t gso_type);

/** voff_feat_from_gso() - the feature bits a @gso_type needs */
uint64_t voff_feat_from_gso(uint32_t gso_type);

/**
 * voff_feat_increment() - add one lower device to an aggregate
 * @all:	the aggregate so far
 * @one:	the lower device's features
 * @mask:	features the upper device is allowed to offer
 *
 * netdev_increment_features(): ONE_FOR_ALL and checksum bits are OR-ed in
 * (within @mask, which gains CSUM_MASK when it has HW_CSUM, and always
 * VLAN_CHALLENGED), ALL_FOR_ALL bits are AND-ed, and HW_CSUM wins over
 * IP/IPV6_CSUM.
 *
 * Return: the new aggregate.
 */
uint64_t voff_feat_increment(uint64_t all, uint64_t one, uint64_t mask);

/**
 * voff_feat_intersect() - features two stacked devices both offer
 *
 * netdev_intersect_features(): a plain AND, except that HW_CSUM on one side
 * counts as IP_CSUM and IPV6_CSUM against a side that only has those.
 */
uint64_t voff_feat_intersect(uint64_t a, uint64_t b);

/* ---- device state -------------------------------------------------------- */

/**
 * struct voff_feat_dev - feature state of one device
 * @hw:		toggleable features (hw_features); others are "[fixed]"
 * @wanted:	requested features (wanted_features), meaningful within @hw
 * @active:	features in force (features), after the rules
 * @vlan:	features for VLAN-tagged frames (vlan_features)
 * @enc:	features for encapsulated frames (hw_enc_features)
 * @gso_partial: features offered only with GSO_PARTIAL
 */
struct voff_feat_dev {
	uint64_t hw;
	uint64_t wanted;
	uint64_t active;
	uint64_t vlan;
	uint64_t enc;
	uint64_t gso_partial;
};

/** enum voff_feat_profile - built-in starting states of known devices */
enum voff_feat_profile {
	VOFF_FEAT_PROFILE_VETH,	   /* a fresh veth (6.18) */
	VOFF_FEAT_PROFILE_TAP,	   /* a TAP after TUNSETOFFLOAD 0 */
	VOFF_FEAT_PROFILE_BRIDGE,  /* a bridge without ports */
	VOFF_FEAT_PROFILE_MACVLAN, /* a macvlan before its lower is applied */
	VOFF_FEAT_PROFILE_VLAN,	   /* an 802.1Q device before its lower */
	VOFF_FEAT_PROFILE_BOND,	   /* a bond without lower devices */
	VOFF_FEAT_PROFILE_NONE,	   /* nothing at all: every bit fixed off */
};

/**
 * voff_feat_dev_init() - start from a known device's state
 * @dev:	filled in
 * @profile:	which device
 *
 * Return: 0, or -EINVAL for an unknown profile (*@dev zeroed).
 */
int voff_feat_dev_init(struct voff_feat_dev *dev,
		       enum voff_feat_profile profile);

/**
 * voff_feat_dev_update() - recompute @dev->active from its requests
 *
 * active = fix((active & ~hw) | (wanted & hw)), the kernel's
 * __netdev_update_features() for a device without a driver fix function.
 *
 * Return: the features that changed (old active ^ new active).
 */
uint64_t voff_feat_dev_update(struct voff_feat_dev *dev);

/**
 * voff_feat_dev_request() - request features on or off, as `ethtool -K`
 * @dev:	the device
 * @mask:	features named in the request
 * @on:		which of them are requested on
 *
 * Requests for features outside @dev->hw are ignored, as the kernel ignores
 * them.  Does not recompute @dev->active: call an update function next.
 *
 * Return: the requested bits that are not toggleable (ignored).
 */
uint64_t voff_feat_dev_request(struct voff_feat_dev *dev, uint64_t mask,
			       uint64_t on);

/**
 * voff_feat_dev_update_bridge() - recompute a bridge from its ports
 * @br:		the bridge
 * @ports:	the ports' active features
 * @n:		number of ports (0: the bridge keeps its own set)
 *
 * br_features_recompute(): clear ONE_FOR_ALL, increment by each port,
 * offer the TSO bits (netdev_add_tso_features), then the rules.
 *
 * Return: the features that changed.
 */
uint64_t voff_feat_dev_update_bridge(struct voff_feat_dev *br,
				     const uint64_t *ports, size_t n);

/**
 * voff_feat_dev_update_bond() - recompute a bond/team from its lowers
 *
 * bond_fix_features(): as the bridge, but starting from
 * netdev_base_features() (ALL_FOR_ALL set, ONE_FOR_ALL clear).  The VLAN
 * and encapsulation subsets are aggregated from the lowers' @vlan/@enc
 * (netdev_compute_master_upper_features()).
 *
 * Return: the features that changed.
 */
uint64_t voff_feat_dev_update_bond(struct voff_feat_dev *bond,
				   const struct voff_feat_dev *lowers,
				   size_t n);

/**
 * voff_feat_dev_update_macvlan() - recompute a macvlan over @lower
 * @mv:		the macvlan (start it with VOFF_FEAT_PROFILE_MACVLAN)
 * @lower:	the lower device's active features
 *
 * macvlan_fix_features() with its always-on set (docs/kernel-model.md §1.4,
 * §8 (a)): start
 * from @lower, increment by the macvlan's own requests, OR in
 * VOFF_F_MACVLAN_ALWAYS_ON, keep ALWAYS_ON | MACVLAN_FEATURES, then the
 * rules.  GSO and GRO follow the lower device.
 *
 * Return: the features that changed.
 */
uint64_t voff_feat_dev_update_macvlan(struct voff_feat_dev *mv,
				      uint64_t lower);

/**
 * voff_feat_always_on() - features of a virtual port over a lower device
 * @lower:	the lower device's active features
 * @own:	the port's own requested features (fixed bits + requests)
 * @always_on:	features the port claims whatever the lower does, because
 *		software does them late (VOFF_F_MACVLAN_ALWAYS_ON)
 * @inherit:	features the port may take over from the lower device
 *
 * The macvlan recipe (kernel-model.md §8 (a)), for any virtual port (a voff
 * switch port stacked on a real one): ALL_FOR_ALL joins @own, the lower's
 * LRO counts only if @own keeps it, the lower is incremented by @own,
 * @always_on is OR-ed in and the result kept within @always_on | @inherit.
 * The dependency rules are not applied: pass the result to
 * voff_feat_fix().
 *
 * Return: the port's features before the rules.
 */
uint64_t voff_feat_always_on(uint64_t lower, uint64_t own, uint64_t always_on,
			     uint64_t inherit);

/**
 * voff_feat_dev_sync_lower() - turn off on @lower what @upper turned off
 * @upper:	the upper device
 * @lower:	one of its lower devices; its requests and features change
 *
 * netdev_sync_lower_features(): a VOFF_F_UPPER_DISABLES feature (LRO) the
 * upper device does not have is requested off on the lower one, which is
 * then recomputed with voff_feat_dev_update().
 *
 * Return: the lower device's features that changed.
 */
uint64_t voff_feat_dev_sync_lower(const struct voff_feat_dev *upper,
				  struct voff_feat_dev *lower);

/**
 * voff_feat_dev_update_vlan() - recompute an 802.1Q device over a lower one
 * @vlan:	the VLAN device
 * @lower:	the lower device (its @active and @vlan sets are used)
 *
 * vlan_dev_fix_features(): own ∩ (lower.vlan | RXCSUM) ∩ lower.active, HW_CSUM
 * added when the lower has IP checksum offload, SOFT_FEATURES and
 * GSO_SOFTWARE kept from the own set, then the rules.
 *
 * Return: the features that changed.
 */
uint64_t voff_feat_dev_update_vlan(struct voff_feat_dev *vlan,
				   const struct voff_feat_dev *lower);

/* ---- ethtool -k / -K text ------------------------------------------------ */

/**
 * voff_feat_print() - print a device's features as `ethtool -k` does
 * @f:		the stream
 * @ifname:	name for the "Features for NAME:" line, or NULL to omit it
 * @dev:	the device
 *
 * ethtool's legacy groups first ("scatter-gather: on" and its members
 * indented by a tab; a group with one member prints as that member), then
 * the other features in kernel order; hidden features are not printed.
 * Suffixes: " [fixed]" when not in @hw, " [requested on]" / " [requested
 * off]" when @wanted and @active disagree.
 *
 * Return: 0 or -EIO when writing failed.
 */
int voff_feat_print(FILE *f, const char *ifname,
		    const struct voff_feat_dev *dev);

struct voff_limits;

/**
 * voff_feat_print_json() - print a device's features as `ethtool --json -k`
 * @f:		the stream
 * @ifname:	the "ifname" member (NULL: "")
 * @dev:	the device
 * @lim:	optional: also a "limits" member (NULL: none)
 *
 * Prints one JSON object, with no newline: "ifname" first, then one
 * member per line of voff_feat_lines(), in that order, each
 * {"active": bool, "fixed": bool, "requested": bool}, with "fixed" and
 * "requested" null on a legacy group line that sums several members (as
 * ethtool prints them); with @lim, "limits": {NAME: number, ...} last, in
 * VOFF_LIMIT_MAP order.  `ethtool --json` prints an array per invocation
 * with one such object per device: callers print the brackets.  `voff
 * features -j` and the switch's `-j features PORT` both print through
 * this function, so they have one shape.
 *
 * Return: 0 or -EIO when writing failed.
 */
int voff_feat_print_json(FILE *f, const char *ifname,
			 const struct voff_feat_dev *dev,
			 const struct voff_limits *lim);

/**
 * struct voff_feat_line - one line of `ethtool -k` output
 * @name:	the printed name (a feature's, or a legacy group's)
 * @id:		the feature, or -1 for a group line summing several members
 * @member:	the line is indented under a group line
 * @active:	on
 * @fixed:	not toggleable (meaningless when @id is -1)
 * @requested:	requested on (meaningless when @id is -1)
 */
struct voff_feat_line {
	const char *name;
	int id;
	bool member;
	bool active;
	bool fixed;
	bool requested;
};

/* Lines voff_feat_lines() may produce: every feature plus the groups. */
#define VOFF_FEAT_LINES_MAX (VOFF_FEAT__COUNT + 16)

/**
 * voff_feat_lines() - the lines `ethtool -k` prints for @dev, in order
 * @dev:	the device
 * @out:	receives up to @n lines
 * @n:		room in @out (VOFF_FEAT_LINES_MAX is always enough)
 *
 * voff_feat_print() and voff_feat_print_json() print these.
 *
 * Return: the number of lines (may exceed @n: only @n were written).
 */
size_t voff_feat_lines(const struct voff_feat_dev *dev,
		       struct voff_feat_line *out, size_t n);

/**
 * voff_feat_format_one() - one feature's state text
 * @dev:	the device
 * @id:		the feature
 * @buf:	receives "on", "off [fixed]", "off [requested on]", ...
 * @size:	size of @buf (32 is enough)
 *
 * Return: @buf.
 */
const char *voff_feat_format_one(const struct voff_feat_dev *dev,
				 enum voff_feat_id id, char *buf, size_t size);

/**
 * voff_feat_parse_ethtool() - read `ethtool -k` output into a device state
 * @text:	the output (NUL-terminated); the "Features for" line, legacy
 *		group lines with several members, and blank lines are
 *		skipped; a group with one member sets that member
 * @dev:	filled in: @active from on/off, @hw from the absence of
 *		"[fixed]", @wanted from "[requested on|off]" or else @active;
 *		@vlan and @enc are set to @active, @gso_partial to 0
 * @unknown:	optional: receives the number of lines naming no feature
 *
 * Features the text does not mention stay off and fixed.
 *
 * Return: 0, or -EINVAL for a malformed line (no "name: on|off"); @dev is
 * then partly filled.
 */
int voff_feat_parse_ethtool(const char *text, struct voff_feat_dev *dev,
			    unsigned int *unknown);

/**
 * voff_feat_parse_requests() - parse `ethtool -K` style "name on|off" pairs
 * @argv:	words: name, "on" or "off", name, ...
 * @argc:	number of words (even)
 * @mask:	receives the named features
 * @on:		receives those requested on
 * @bad:	optional: receives the index of the offending word on error
 *
 * Names as in voff_feat_lookup().  As in ethtool 6.x (verified on 6.18),
 * a feature named "on" anywhere in the list is requested on, whatever
 * its order: "sg off tx-scatter-gather on" and "X on X off" turn it on.
 *
 * Return: 0, -ENOENT for an unknown name, -EINVAL for a missing or wrong
 * on/off word.
 */
int voff_feat_parse_requests(char *const *argv, int argc, uint64_t *mask,
			     uint64_t *on, int *bad);

/* ---- TUN/TAP and AF_PACKET (docs/kernel-model.md §5.4, §5.5) ------------- */

/*
 * VOFF_TUN_F_MAP(X) - X(SUFFIX, bit, "name"): the kernel's TUN_F_* flags,
 * the offloads TUNSETOFFLOAD and virtio's guest offload bits negotiate, and
 * the offloads a port negotiates (port.h).  Each means "frames of this kind
 * may cross":
 *  CSUM			partial checksums (NEEDS_CSUM)
 *  TSO4, TSO6			TCP super-packets over IPv4, IPv6
 *  TSO_ECN			TCP super-packets with CWR (the ECN gso bit)
 *  UFO				UDP super-packets split by IP fragmentation
 *  USO4, USO6			UDP super-packets split by datagram
 *				(GSO_UDP_L4)
 *  UDP_TUNNEL_GSO		super-packets inside a VXLAN/Geneve UDP tunnel
 *  UDP_TUNNEL_GSO_CSUM		... with the outer UDP checksum to fill in
 * The names are those port specs and `voff ctl show` use.
 */
#define VOFF_TUN_F_MAP(X)                                                    \
	X(CSUM, 0x001, "csum")                                               \
	X(TSO4, 0x002, "tso4")                                               \
	X(TSO6, 0x004, "tso6")                                               \
	X(TSO_ECN, 0x008, "tso_ecn")                                         \
	X(UFO, 0x010, "ufo")                                                 \
	X(USO4, 0x020, "uso4")                                               \
	X(USO6, 0x040, "uso6")                                               \
	X(UDP_TUNNEL_GSO, 0x080, "udp_tnl")                                  \
	X(UDP_TUNNEL_GSO_CSUM, 0x100, "udp_tnl_csum")

enum voff_tun_flag {
#define VOFF__X(e, bit, name) VOFF_TUN_F_##e = bit,
	VOFF_TUN_F_MAP(VOFF__X)
#undef VOFF__X
};

/* Every flag defined above. */
#define VOFF_TUN_F_ALL 0x1FFu
/* What a reader of a TAP usually wants: checksums and TCP segmentation. */
#define VOFF_TUN_F_TCP                                                       \
	(VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6 |               \
	 VOFF_TUN_F_TSO_ECN)

/**
 * voff_tun_flag_name() - name of one VOFF_TUN_F_* bit ("tso4")
 * Return: a static string, never NULL; "?" for anything but a single
 * known bit.
 */
const char *voff_tun_flag_name(unsigned int bit);

/**
 * voff_tun_flags_format() - names of the bits of @set, comma separated
 * @set:	VOFF_TUN_F_* bits
 * @buf:	destination, always NUL-terminated when @len > 0
 * @len:	its size
 *
 * Return: the length the full text needs (as snprintf), "-" for none.
 */
int voff_tun_flags_format(unsigned int set, char *buf, size_t len);

/* The TAP features TUNSETOFFLOAD controls (TUN_USER_FEATURES). */
#define VOFF_F_TUN_USER                                                      \
	(VOFF_F_HW_CSUM | VOFF_F_TSO_ECN | VOFF_F_TSO | VOFF_F_TSO6 |        \
	 VOFF_F_GSO_UDP_L4 | VOFF_F_GSO_UDP_TUNNEL |                         \
	 VOFF_F_GSO_UDP_TUNNEL_CSUM)

/**
 * voff_feat_from_tun() - TAP transmit features for TUNSETOFFLOAD flags
 * @flags:	VOFF_TUN_F_* bits, as given to TUNSETOFFLOAD
 * @out:	receives the VOFF_F_* bits within VOFF_F_TUN_USER
 *
 * The kernel's pairing rules: everything but 0 needs CSUM; TSO_ECN needs
 * TSO4 or TSO6; USO4 and USO6 only together; UFO is accepted and ignored;
 * UDP_TUNNEL_GSO needs an inner type (TSO4, TSO6 or USO), its _CSUM needs
 * UDP_TUNNEL_GSO; unknown bits are refused.  CSUM → HW_CSUM, TSO4 → TSO,
 * TSO6 → TSO6, TSO_ECN → TSO_ECN, USO4+USO6 → GSO_UDP_L4, UDP_TUNNEL_GSO(
 * _CSUM) → GSO_UDP_TUNNEL(_CSUM).
 *
 * Return: 0, or -EINVAL as TUNSETOFFLOAD (*@out untouched).
 */
int voff_feat_from_tun(unsigned int flags, uint64_t *out);

/**
 * voff_feat_to_tun() - TUNSETOFFLOAD flags a reader taking @features sets
 *
 * The inverse of voff_feat_from_tun() restricted to valid combinations:
 * bits whose prerequisites are missing from @features are left out, so the
 * result is always accepted by TUNSETOFFLOAD.  UFO is never set.
 *
 * Return: VOFF_TUN_F_* flags.
 */
unsigned int voff_feat_to_tun(uint64_t features);

/**
 * voff_feat_tap_apply() - a TAP's features after TUNSETOFFLOAD
 * @tap:	the TAP's state (start with VOFF_FEAT_PROFILE_TAP)
 * @flags:	VOFF_TUN_F_* flags
 *
 * Replaces the TUN_USER part of @tap->wanted and recomputes, as
 * tun_net_fix_features() keeps only what the reader set.
 *
 * Return: 0, or -EINVAL as TUNSETOFFLOAD (@tap unchanged).
 */
int voff_feat_tap_apply(struct voff_feat_dev *tap, unsigned int flags);

/** voff_tun_hdr_len_is_valid() - whether TUNSETVNETHDRSZ takes @len (≥10) */
bool voff_tun_hdr_len_is_valid(int len);

/**
 * voff_packet_hdr_len_is_valid() - whether PACKET_VNET_HDR_SZ accepts @len
 *
 * Return: true for 0, 10 and 12 only (20 and 24 give EINVAL on 6.18).
 */
bool voff_packet_hdr_len_is_valid(int len);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_FEAT_H */
