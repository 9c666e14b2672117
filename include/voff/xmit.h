/* SPDX-License-Identifier: MIT */
/*
 * xmit.h - the transmit decision: what to do with a packet at an egress
 *
 * DOC: Theory of Operation
 *
 * "Segment late": a super-packet crosses the datapath whole and is cut (or
 * its checksum completed) only at the port that cannot take it.  This
 * header has the one pure function that decides, the kernel's
 * validate_xmit_skb() (docs/kernel-model.md §1.5) over voff's types:
 *
 *   1. gso_features_check(): a super-packet over the egress's
 *      gso_max_segs, or of gso_max_size bytes or more (gso_ipv4_max_size
 *      for IPv4), loses every GSO feature; DF=0 IPv4 loses TSO_MANGLEID;
 *      outer IPv6 extension headers lose IPV6_CSUM, TSO6 and USO when the
 *      device checksums by protocol; GSO_PARTIAL-only features go unless
 *      the packet is GSO_PARTIAL.
 *   2. The encapsulation subset (hw_enc_features) for tunnelled packets,
 *      the VLAN subset for tagged ones, and for several tags only SG,
 *      HIGHDMA, HW_CSUM and FRAGLIST.
 *   3. harmonize_features(): a packet with a checksum state whose L3
 *      protocol the device cannot checksum loses checksum and GSO bits.
 *   4. netif_needs_gso(): segment in software when the gso_type is not a
 *      subset of what is left or the checksum is neither partial nor
 *      verified.  An untrusted (DODGY) packet the device could take with
 *      GSO_ROBUST passes whole: only its gso_segs is recomputed.  A TCP
 *      super-packet the device could take, whose checksum is neither
 *      partial nor verified, also passes whole: TCP's GSO first makes the
 *      checksum partial (pseudo-header sum at csum_start + 16), which the
 *      caller must then do (reason GSO_CSUM_SETUP).
 *   5. Otherwise a partial checksum is the device's when it has HW_CSUM, or
 *      IP/IPV6_CSUM with csum_offset 16 (TCP) or 6 (UDP) and no IPv6
 *      extension headers; anything else is completed in software
 *      (skb_checksum_help), which a super-packet cannot be: dropped.
 *
 * voff adds one verdict the kernel does not have: a super-packet refused
 * only for the egress's size or segment limits is RESEGMENTed into smaller
 * super-packets the egress takes, instead of being cut to MSS-sized frames.
 * VOFF_XMIT_KERNEL asks for the kernel's answer (SEGMENT) instead.
 *
 * Not handled: SCTP CRC offload (treated as an ordinary checksum), frag
 * lists and linearisation (voff packets are contiguous), driver-specific
 * ndo_features_check() refinements.
 */
#ifndef VOFF_XMIT_H
#define VOFF_XMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/feat.h>
#include <voff/limits.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_pkt;
struct voff_parsed;

/* enum voff_xmit_verdict - what to do with the packet */
enum voff_xmit_verdict {
	VOFF_XMIT_PASS = 0,	/* nothing to offload: send as is */
	VOFF_XMIT_PASS_GSO,	/* send the super-packet whole */
	VOFF_XMIT_PASS_CSUM,	/* send; the egress completes the checksum */
	VOFF_XMIT_CSUM_SW,	/* complete the checksum in software, send */
	VOFF_XMIT_SEGMENT,	/* software GSO into gso_size segments */
	VOFF_XMIT_RESEGMENT,	/* split into super-packets of <= max_segs */
	VOFF_XMIT_DROP,		/* cannot be sent correctly */
};

/*
 * VOFF_XMIT_REASON_MAP(X) - X(ENUM, "counter_name", "why")
 */
#define VOFF_XMIT_REASON_MAP(X)                                              \
	X(PLAIN, "plain", "no offload requested")                            \
	X(CSUM_HW, "csum_hw", "the egress completes the checksum")           \
	X(CSUM_PROTO, "csum_proto",                                          \
	  "the egress cannot checksum this L3 protocol")                     \
	X(CSUM_IPV6_EXT, "csum_ipv6_ext",                                    \
	  "IPv6 extension headers and only IPV6_CSUM")                       \
	X(CSUM_OFFSET, "csum_offset",                                        \
	  "csum_offset is not TCP's or UDP's and only IP_CSUM")              \
	X(GSO_OK, "gso_ok", "the egress segments it")                        \
	X(GSO_DODGY, "gso_dodgy",                                            \
	  "untrusted super-packet passed whole, gso_segs recomputed")        \
	X(GSO_MAX_SEGS, "gso_max_segs", "more segments than gso_max_segs")   \
	X(GSO_MAX_SIZE, "gso_max_size", "at least gso_max_size bytes")       \
	X(GSO_TYPE, "gso_type", "the egress lacks this gso_type")            \
	X(GSO_PARTIAL, "gso_partial",                                        \
	  "a feature the egress offers only with GSO_PARTIAL")               \
	X(GSO_MANGLEID, "gso_mangleid",                                      \
	  "fixed IPv4 ID asked for without DF")                              \
	X(GSO_IPV6_EXT, "gso_ipv6_ext",                                      \
	  "IPv6 extension headers and only IPV6_CSUM")                       \
	X(GSO_ENCAP, "gso_encap",                                            \
	  "the egress lacks it for encapsulated packets")                    \
	X(GSO_VLAN, "gso_vlan", "the egress lacks it for VLAN-tagged packets") \
	X(GSO_CSUM, "gso_csum",                                              \
	  "the egress cannot checksum this L3 protocol")                     \
	X(GSO_NOT_PARTIAL, "gso_not_partial",                                \
	  "super-packet without a partial or verified checksum")             \
	X(GSO_CSUM_SETUP, "gso_csum_setup",                                  \
	  "TCP super-packet passed whole once its checksum is made partial") \
	X(GSO_TYPE_ZERO, "gso_type_zero", "gso_size set without a gso_type") \
	X(GSO_BAD_CSUM, "gso_bad_csum",                                      \
	  "super-packet whose checksum the egress cannot complete")

enum voff_xmit_reason {
#define VOFF__X(e, n, m) VOFF_XMIT_R_##e,
	VOFF_XMIT_REASON_MAP(VOFF__X)
#undef VOFF__X
	VOFF_XMIT_R__COUNT
};

/* struct voff_xmit_info flags */
#define VOFF_XMIT_I_ENCAP 0x01	   /* offloads apply to an inner packet */
#define VOFF_XMIT_I_VLAN 0x02	   /* one VLAN tag */
#define VOFF_XMIT_I_VLAN_MULTI 0x04 /* two or more VLAN tags */
#define VOFF_XMIT_I_IPV6_EXT 0x08  /* the outer IPv6 has extension headers */
#define VOFF_XMIT_I_DF 0x10	   /* the segmented IPv4 header has DF */

/**
 * struct voff_xmit_info - facts about a packet's headers
 * @l3_proto:	4 or 6: the outer IP version (0: not IP)
 * @csum_proto:	4 or 6: the IP version of the checksummed L4 (the inner one
 *		when encapsulated), 0 when not IP
 * @flags:	VOFF_XMIT_I_*
 * @hdr_len:	bytes before the payload the offloads apply to: after the
 *		inner L4 header with ENCAP, else after the outer one (for a
 *		tunnel frame without ENCAP the tunnel is payload); 0 when
 *		unknown
 */
struct voff_xmit_info {
	uint8_t l3_proto;
	uint8_t csum_proto;
	uint16_t flags;
	uint16_t hdr_len;
};

/**
 * voff_xmit_info_from_parsed() - derive the facts from a parse
 * @pkt:	the packet (borrowed; its data and offload fields are read)
 * @p:		a successful voff_parse() of @pkt's data
 * @out:	filled in
 *
 * ENCAP is set when a tunnel was parsed and either the gso_type has a
 * tunnel bit or a partial checksum starts inside the inner packet.
 *
 * Return: 0, or -EINVAL when @p's offsets are outside @pkt.
 * Ownership: borrows @pkt.
 */
int voff_xmit_info_from_parsed(const struct voff_pkt *pkt,
			       const struct voff_parsed *p,
			       struct voff_xmit_info *out);

/* voff_xmit_decide() flags */
#define VOFF_XMIT_KERNEL 0x1	/* the kernel's verdicts only: no RESEGMENT,
				 * gso_segs 0 is not recomputed */

/**
 * struct voff_xmit_result - the decision
 * @verdict:	enum voff_xmit_verdict
 * @reason:	enum voff_xmit_reason, for counters
 * @seg_csum_hw: SEGMENT/RESEGMENT: the egress completes the segments'
 *		checksums (they stay partial); false: GSO computes them
 * @max_segs:	RESEGMENT: most segments per output super-packet (>= 2)
 * @features:	the egress features left for this packet after every check
 */
struct voff_xmit_result {
	uint8_t verdict;
	uint8_t reason;
	bool seg_csum_hw;
	uint16_t max_segs;
	uint64_t features;
};

/**
 * voff_xmit_decide() - decide how @pkt leaves through an egress
 * @pkt:	the packet: len, csum, csum_offset, gso_type, gso_size,
 *		gso_segs, hdr_len are read (nothing is written)
 * @info:	facts from its headers (voff_xmit_info_from_parsed())
 * @dev:	the egress's features: @active, @vlan, @enc, @gso_partial
 * @lim:	the egress's limits
 * @flags:	VOFF_XMIT_KERNEL or 0
 * @out:	receives the decision
 *
 * A packet is a super-packet when gso_size != 0 (as skb_is_gso()).  The
 * segment count checked against gso_max_segs is @pkt->gso_segs, or when
 * that is 0 (untrusted input) and the header length is known, the count
 * computed from len, hdr_len and gso_size (not with VOFF_XMIT_KERNEL).
 *
 * Return: @out->verdict.
 * Ownership: borrows @pkt.
 */
int voff_xmit_decide(const struct voff_pkt *pkt,
		     const struct voff_xmit_info *info,
		     const struct voff_feat_dev *dev,
		     const struct voff_limits *lim, unsigned int flags,
		     struct voff_xmit_result *out);

/**
 * voff_xmit_verdict_name() - "pass_gso", "segment", ...
 * Return: a static string, never NULL; "?" for a bad @v.
 */
const char *voff_xmit_verdict_name(enum voff_xmit_verdict v);

/**
 * voff_xmit_reason_name() - the reason's counter name
 * Return: a static string, never NULL; "?" for a bad @r.
 */
const char *voff_xmit_reason_name(enum voff_xmit_reason r);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_XMIT_H */
