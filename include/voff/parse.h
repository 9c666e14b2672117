/* SPDX-License-Identifier: MIT */
/*
 * parse.h - bounds-checked header parser for Ethernet, VLAN, IPv4, IPv6,
 * TCP, UDP and the VXLAN, Geneve and GRE tunnels
 *
 * DOC: Theory of Operation
 *
 * voff_parse() walks a frame from the outside in and records every header
 * it meets, outermost first, with its offset and length.  It reads the frame
 * only through bounds-checked helpers: it never reads a byte at or past
 * @len, whatever the input.  Malformed or truncated input returns a distinct
 * negative VOFF_E_* code (err.h) naming the header and the fault; the
 * struct voff_parsed then still lists the headers parsed before the fault,
 * so tools can show how far a bad frame got.
 *
 * What it follows:
 *  - Ethernet II; 802.1Q (0x8100) and 802.1ad (0x88A8) tags, stacked up to
 *    VOFF_PARSE_MAX_VLAN;
 *  - IPv4 with options (checked for well-formed TLVs) and fragments (a
 *    non-first fragment has no L4 header; a first fragment's L4 header is
 *    parsed when it is complete);
 *  - IPv6 with hop-by-hop, routing, destination-options and fragment
 *    headers (up to VOFF_PARSE_MAX_IPV6_EXT of them);
 *  - TCP with options (checked for well-formed TLVs), UDP;
 *  - VXLAN (UDP destination port 4789), Geneve (UDP 6081, with options) and
 *    GRE (with checksum, key and sequence) carrying Ethernet (transparent
 *    Ethernet bridging), IPv4 or IPv6, down to the inner L3/L4 headers;
 *  - raw IP frames (TUN, no Ethernet header): start at VOFF_PARSE_IP.
 *
 * What it does not do: verify checksums (see voff_parse_csum_check()),
 * reassemble fragments, follow IP-in-IP or MPLS (they end the walk, as an
 * unknown protocol does, without error), or follow a tunnel inside a tunnel
 * (the inner packet's own tunnel headers are recorded, not entered).
 *
 * Length rules: the IP header's length fields define the end of the L3
 * packet.  A frame shorter than that gives VOFF_E_TRUNC_L3 (or the
 * truncation error of the header it cuts); bytes after it
 * (Ethernet padding) are allowed and reported in @l3_end.  UDP's length
 * must equal the IP payload length.
 *
 * Errors, in detail:
 *  - VOFF_E_TRUNC_<header>: the frame ends inside that header;
 *    VOFF_E_TRUNC_L3: the headers are complete but the frame is shorter
 *    than the outer IP length (checked after the walk, so a cut inside a
 *    header names the header).  An empty raw-IP frame is VOFF_E_TRUNC_IPV4.
 *  - VOFF_E_HDR_PAST_L3: a header runs past the end its IP length states
 *    (the frame itself goes on), e.g. an IPv6 payload length of 0 with a
 *    next header: jumbograms are not supported.  VOFF_E_TCP_DOFF covers a
 *    TCP data offset past that end, VOFF_E_INNER_L3_LEN an inner IP length
 *    past the end of the outer packet (shorter inner packets are fine).
 *  - VOFF_E_IPV4_OPT, VOFF_E_TCP_OPT: an option other than EOL/NOP whose
 *    length byte is missing, below 2 or past the header (EOL ends the
 *    list).  VOFF_E_IPV6_OPT: a hop-by-hop or destination option running
 *    past its header.  VOFF_E_IPV6_EXT: a hop-by-hop header that does not
 *    directly follow the IPv6 header (RFC 8200 4.1).
 *  - VOFF_E_GRE_VER: GRE version other than 0, or the routing, strict
 *    source route or recursion bits of RFC 1701 set.  VOFF_E_VXLAN_FLAGS:
 *    no I flag (other VXLAN flag bits are ignored, RFC 7348).
 *  - VOFF_E_VLAN_DEPTH, VOFF_E_IPV6_EXT_DEPTH, VOFF_E_LAYER_DEPTH: more
 *    tags, extension headers (per IP header) or headers than recorded.
 *  - VOFF_E_HDR_OFF: a header ending at or past offset 0xFFFF, which the
 *    16-bit offsets cannot name (cannot happen within the other limits, but
 *    checked).  VOFF_E_TOO_BIG: @len above VOFF_PARSE_MAX_LEN.
 *
 * Fragments: an IPv4 packet with MF or a fragment offset, or an IPv6 fragment
 * header with M or an offset, is a fragment (an IPv6 atomic fragment,
 * offset 0 without M, is a whole packet, RFC 6946).  A non-first fragment
 * ends the walk at its IP header (@l4_proto still says what it carries); a
 * first fragment's TCP/UDP/GRE header is recorded when it lies complete in
 * the fragment (otherwise the walk ends without error), its UDP length is
 * not checked and no tunnel is entered from it.
 *
 * Tunnels: one level is entered.  Inside it, a UDP port 4789/6081 or a GRE
 * protocol announces a tunnel header that is validated and recorded (so
 * its errors are reported) but not entered; @payload_off then stays after
 * the inner UDP/GRE header.  Inner VLAN tags are recorded as layers and
 * limited to VOFF_PARSE_MAX_VLAN, but not copied to @vlan_tci.
 */
#ifndef VOFF_PARSE_H
#define VOFF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_pkt;

#define VOFF_PARSE_MAX_LAYERS 24
#define VOFF_PARSE_MAX_VLAN 4
#define VOFF_PARSE_MAX_IPV6_EXT 8
/* Largest frame voff_parse() takes: two 16-bit lengths' worth. */
#define VOFF_PARSE_MAX_LEN (0xFFFFu + 0xFFFFu)

/*
 * VOFF_PROTO_MAP(X) - X(ENUM_SUFFIX, "name") for every header the parser
 * records; the names are the ones `voff inspect` prints.
 */
#define VOFF_PROTO_MAP(X)                                                    \
	X(ETH, "eth")                                                        \
	X(VLAN, "vlan")         /* 802.1Q */                                 \
	X(QINQ, "qinq")         /* 802.1ad service tag */                    \
	X(IPV4, "ipv4")                                                      \
	X(IPV6, "ipv6")                                                      \
	X(IPV6_HOPOPTS, "ipv6_hopopts")                                      \
	X(IPV6_ROUTING, "ipv6_routing")                                      \
	X(IPV6_FRAG, "ipv6_frag")                                            \
	X(IPV6_DSTOPTS, "ipv6_dstopts")                                      \
	X(TCP, "tcp")                                                        \
	X(UDP, "udp")                                                        \
	X(VXLAN, "vxlan")                                                    \
	X(GENEVE, "geneve")                                                  \
	X(GRE, "gre")

enum voff_proto {
	VOFF_PROTO_NONE = 0,
#define VOFF__X(e, n) VOFF_PROTO_##e,
	VOFF_PROTO_MAP(VOFF__X)
#undef VOFF__X
	VOFF_PROTO__COUNT
};

/**
 * voff_proto_name() - printable name of a protocol
 * Return: a static string, never NULL: the name of VOFF_PROTO_MAP, or "?"
 * for VOFF_PROTO_NONE and values out of range.
 */
const char *voff_proto_name(enum voff_proto proto);

/** enum voff_parse_start - what the first byte of a frame is */
enum voff_parse_start {
	VOFF_PARSE_ETH = 0,	/* Ethernet (TAP, AF_PACKET, pcap EN10MB) */
	VOFF_PARSE_IP = 1,	/* raw IPv4/IPv6 by version nibble (TUN) */
};

/* Flags in struct voff_parsed.flags */
#define VOFF_PF_FRAG (1u << 0)		/* outer IP is a fragment */
#define VOFF_PF_FRAG_FIRST (1u << 1)	/* ... the first one (offset 0) */
#define VOFF_PF_IPV4_OPTS (1u << 2)	/* outer IPv4 has options */
#define VOFF_PF_IPV6_EXT (1u << 3)	/* outer IPv6 has extension headers */
#define VOFF_PF_TUNNEL (1u << 4)	/* a tunnel header was entered */
#define VOFF_PF_INNER_FRAG (1u << 5)	/* inner IP is a fragment */
#define VOFF_PF_INNER_IPV4_OPTS (1u << 6)
#define VOFF_PF_INNER_IPV6_EXT (1u << 7)
#define VOFF_PF_PADDED (1u << 8)	/* bytes follow the outer L3 packet */

/**
 * struct voff_layer - one recorded header
 * @proto:	enum voff_proto
 * @off:	offset of the header's first byte in the frame
 * @len:	header length in bytes (options included)
 */
struct voff_layer {
	uint8_t proto;
	uint16_t off;
	uint16_t len;
};

/**
 * struct voff_parsed - everything the parser found
 * @n_layers:	entries used in @layers
 * @layers:	headers, outermost first
 * @flags:	VOFF_PF_* bits
 * @n_vlan:	outer VLAN tags (802.1Q and 802.1ad)
 * @vlan_tci:	outer tags' TCI values, outermost first
 * @l2_off:	outer Ethernet header, or VOFF_OFF_NONE (raw IP)
 * @l3_off:	outer IP header, or VOFF_OFF_NONE
 * @l3_proto:	4 or 6 for the outer IP version, 0 when none
 * @l4_off:	outer TCP/UDP header (or GRE), or VOFF_OFF_NONE (also for
 *		other protocols and non-first fragments)
 * @l4_proto:	outer IP protocol of the last header (6, 17, 47, ...), 0 if none
 * @l3_end:	offset one past the outer L3 packet (the IP length's end);
 *		the frame length when there is no IP header
 * @tunnel:	VOFF_PROTO_VXLAN/GENEVE/GRE when a tunnel was entered, else 0
 * @tunnel_off:	offset of the tunnel header (VOFF_OFF_NONE without tunnel)
 * @inner_l2_off: inner Ethernet header, or VOFF_OFF_NONE
 * @inner_l3_off: inner IP header, or VOFF_OFF_NONE
 * @inner_l3_proto: 4, 6 or 0
 * @inner_l4_off: inner TCP/UDP header (or a recorded inner GRE header),
 *		or VOFF_OFF_NONE
 * @inner_l4_proto: inner IP protocol, 0 if none
 * @payload_off: first byte after the innermost L4 header (or after the
 *		innermost header parsed when there is no L4), never past @l3_end
 *
 * Offsets are from the first byte of the frame; VOFF_OFF_NONE (pkt.h) marks
 * an absent header.
 */
struct voff_parsed {
	uint8_t n_layers;
	struct voff_layer layers[VOFF_PARSE_MAX_LAYERS];
	uint32_t flags;
	uint8_t n_vlan;
	uint16_t vlan_tci[VOFF_PARSE_MAX_VLAN];
	uint16_t l2_off;
	uint16_t l3_off;
	uint8_t l3_proto;
	uint16_t l4_off;
	uint8_t l4_proto;
	uint32_t l3_end;
	uint8_t tunnel;
	uint16_t tunnel_off;
	uint16_t inner_l2_off;
	uint16_t inner_l3_off;
	uint8_t inner_l3_proto;
	uint16_t inner_l4_off;
	uint8_t inner_l4_proto;
	uint32_t payload_off;
};

/**
 * voff_parse() - parse a frame's headers
 * @data:	frame bytes
 * @len:	frame length (at most VOFF_PARSE_MAX_LEN; longer frames give
 *		VOFF_E_TOO_BIG)
 * @start:	VOFF_PARSE_ETH or VOFF_PARSE_IP
 * @out:	filled with what was found; on error it lists the headers
 *		parsed before the fault
 *
 * Return: 0, or a negative VOFF_E_* code for malformed or truncated input
 * (see the top of this file), or -EINVAL for a bad @start, a NULL @out or
 * a NULL @data with a non-zero @len.  Never reads outside
 * [@data, @data+@len); never writes outside *@out.
 */
int voff_parse(const uint8_t *data, size_t len, enum voff_parse_start start,
	       struct voff_parsed *out);

/**
 * voff_pkt_parse() - parse @pkt's data and set its header offsets
 * @pkt:	the packet (borrowed); on success its l2/l3/l4, inner and
 *		payload offsets are set, on failure they are left alone
 * @start:	VOFF_PARSE_ETH or VOFF_PARSE_IP
 * @out:	optional (may be NULL): receives the full parse result
 *
 * Return: as voff_parse().
 * Ownership: borrows @pkt.
 */
int voff_pkt_parse(struct voff_pkt *pkt, enum voff_parse_start start,
		   struct voff_parsed *out);

/**
 * voff_pkt_set_offsets() - copy a parse result's offsets into a packet
 * @pkt:	the packet whose l2/l3/l4, inner and payload offsets are set
 * @p:		a successful parse of @pkt's data, or NULL to mark every
 *		offset VOFF_OFF_NONE
 *
 * For callers that parse into their own struct voff_parsed (to look at it
 * first) and then apply it, as voff_pkt_parse() does.  Touches nothing else.
 * Ownership: borrows @pkt.
 */
void voff_pkt_set_offsets(struct voff_pkt *pkt, const struct voff_parsed *p);

/** enum voff_csum_verdict - result of a checksum check */
enum voff_csum_verdict {
	VOFF_CSUM_V_NONE = 0,	/* no checksum (UDP 0, or not checkable) */
	VOFF_CSUM_V_OK = 1,
	VOFF_CSUM_V_BAD = 2,
};

/**
 * struct voff_csum_report - checksum verdict per header of a parsed frame
 * @n:		entries used
 * @proto:	enum voff_proto of each checked header (ipv4, tcp, udp, gre)
 * @verdict:	enum voff_csum_verdict of each
 */
struct voff_csum_report {
	uint8_t n;
	uint8_t proto[8];
	uint8_t verdict[8];
};

/**
 * voff_parse_csum_check() - verify every checksum of a parsed frame
 * @data:	frame bytes, as given to voff_parse()
 * @len:	frame length
 * @p:		a successful parse of @data
 * @out:	receives one verdict per IPv4 header, TCP/UDP header and GRE
 *		header with a checksum, outermost first
 *
 * Each L4 checksum covers the bytes up to the end of its IP packet (never
 * Ethernet padding), with the pseudo-header of that IP header (the inner
 * one for inner headers).  The pseudo-header's destination is the final
 * one: for IPv6 with a routing header that still has segments left, the
 * last address of a type 0 or 2 header, or Segment List[0] of a type 4
 * (SRH) header; other routing types with segments left give
 * VOFF_CSUM_V_NONE.  For IPv4 with a loose or strict source route option
 * whose pointer has not run past it, the option's last address.
 *
 * Fragments give VOFF_CSUM_V_NONE for their L4 header (not checkable
 * alone); a UDP checksum of 0 is VOFF_CSUM_V_NONE over IPv4 and, over IPv6,
 * when the UDP carries a VXLAN or Geneve header (RFC 6935), else
 * VOFF_CSUM_V_BAD.  GRE headers without the C bit get no verdict.
 *
 * Return: 0, or -EINVAL when @p does not describe @data (a layer outside
 * the frame, an IP header whose fields disagree with the layer, an L4
 * layer without an IP header before it, more than 8 verdicts); @out may
 * then hold the verdicts found before the mismatch.
 */
int voff_parse_csum_check(const uint8_t *data, size_t len,
			  const struct voff_parsed *p,
			  struct voff_csum_report *out);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_PARSE_H */
