/* SPDX-License-Identifier: MIT */
/*
 * err.h - voff error codes
 *
 * Every libvoff function that can fail returns 0 (or a count) on success and
 * a negative number on failure.  Two kinds of negative numbers exist:
 *
 *  - a negative errno (-EINVAL, -ENOMEM, -ENOBUFS, ...) for failures that
 *    errno already names well (resources, system calls, bad arguments);
 *  - a negative VOFF_E_* code, all below -VOFF_E_BASE, for the many distinct
 *    ways a frame or header can be malformed.  Each has a short snake_case
 *    name, used as the counter name when a datapath drops a frame for that
 *    reason, and a sentence for humans.
 *
 * All VOFF_E_* codes are generated from the one X-macro below, so the enum,
 * the names and the messages can never drift apart.
 */
#ifndef VOFF_ERR_H
#define VOFF_ERR_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Codes below -VOFF_E_BASE are voff's own; above it they are -errno. */
#define VOFF_E_BASE 1000

/*
 * VOFF_ERR_MAP(X) - X(ENUM_SUFFIX, counter_name, "message")
 *
 * Append new codes at the end of their group; the numeric values are part
 * of the ABI only through their names, so groups may grow.
 */
#define VOFF_ERR_MAP(X)                                                      \
	/* Frame parser: truncation (the frame ends inside a header). */        \
	X(TRUNC_ETH, "trunc_eth", "frame shorter than an Ethernet header")      \
	X(TRUNC_VLAN, "trunc_vlan", "frame ends inside a VLAN tag")             \
	X(TRUNC_IPV4, "trunc_ipv4", "frame ends inside the IPv4 header")        \
	X(TRUNC_IPV6, "trunc_ipv6", "frame ends inside the IPv6 header")        \
	X(TRUNC_IPV6_EXT, "trunc_ipv6_ext",                                     \
	  "frame ends inside an IPv6 extension header")                         \
	X(TRUNC_TCP, "trunc_tcp", "frame ends inside the TCP header")           \
	X(TRUNC_UDP, "trunc_udp", "frame ends inside the UDP header")           \
	X(TRUNC_VXLAN, "trunc_vxlan", "frame ends inside the VXLAN header")     \
	X(TRUNC_GENEVE, "trunc_geneve", "frame ends inside the Geneve header")  \
	X(TRUNC_GRE, "trunc_gre", "frame ends inside the GRE header")           \
	X(TRUNC_L3, "trunc_l3",                                                 \
	  "frame shorter than the length its IP header states")                 \
	/* Frame parser: malformed fields. */                                   \
	X(VLAN_DEPTH, "vlan_depth", "too many stacked VLAN tags")               \
	X(IP_VERSION, "ip_version", "IP version field does not match")          \
	X(IPV4_IHL, "ipv4_ihl", "IPv4 header length below 20 bytes")            \
	X(IPV4_TOTLEN, "ipv4_totlen",                                           \
	  "IPv4 total length smaller than its header")                          \
	X(IPV4_OPT, "ipv4_opt", "malformed IPv4 option")                        \
	X(IPV6_EXT, "ipv6_ext", "malformed IPv6 extension header")              \
	X(IPV6_EXT_DEPTH, "ipv6_ext_depth", "too many IPv6 extension headers")  \
	X(TCP_DOFF, "tcp_doff", "TCP data offset below 20 bytes or past end")   \
	X(TCP_OPT, "tcp_opt", "malformed TCP option")                           \
	X(UDP_LEN, "udp_len", "UDP length disagrees with the IP length")        \
	X(GENEVE_VER, "geneve_ver", "unknown Geneve version")                   \
	X(GENEVE_OPT, "geneve_opt", "malformed Geneve option")                  \
	X(GRE_VER, "gre_ver", "unsupported GRE version or flags")               \
	X(VXLAN_FLAGS, "vxlan_flags", "VXLAN header without the I flag")        \
	X(LAYER_DEPTH, "layer_depth", "more headers than the parser records")   \
	X(HDR_PAST_L3, "hdr_past_l3",                                           \
	  "header runs past the end its IP length states")                      \
	X(INNER_L3_LEN, "inner_l3_len",                                         \
	  "inner IP length runs past the end of the outer packet")              \
	X(IPV6_OPT, "ipv6_opt", "malformed option in an IPv6 options header")   \
	X(HDR_OFF, "hdr_off", "header ends past the 16-bit offset range")       \
	/* Packet buffers and pools. */                                         \
	X(NO_HEADROOM, "no_headroom", "not enough headroom to prepend")         \
	X(TOO_BIG, "too_big", "frame larger than the buffer")                   \
	/* Capture files. */                                                    \
	X(PCAP_LINKTYPE, "pcap_linktype", "unsupported capture link type")      \
	X(PCAP_FORMAT, "pcap_format", "malformed capture file")                 \
	X(PCAP_SNAP, "pcap_snap", "frame truncated by the capture snap length") \
	X(PCAP_TRUNC, "pcap_trunc", "capture file ends inside a frame")         \
	/* virtio_net_hdr validator (vnet.h, docs/vnet.md). */                  \
	X(VNET_TRUNC, "vnet_trunc", "buffer shorter than the virtio_net_hdr")   \
	X(VNET_FLAGS, "vnet_flags", "unknown or unsupported virtio_net_hdr flags") \
	X(VNET_GSO_TYPE, "vnet_gso_type", "unknown virtio_net_hdr gso_type")    \
	X(VNET_GSO_ECN, "vnet_gso_ecn", "ECN bit on a gso_type other than TCP") \
	X(VNET_GSO_SIZE_ZERO, "vnet_gso_size_zero", "GSO with gso_size 0")      \
	X(VNET_GSO_BY_FRAGS, "vnet_gso_by_frags",                               \
	  "gso_size 0xFFFF (GSO_BY_FRAGS) from outside")                        \
	X(VNET_HDR_LEN, "vnet_hdr_len", "virtio_net_hdr hdr_len past the frame") \
	X(VNET_HDR_LEN_SHORT, "vnet_hdr_len_short",                             \
	  "virtio_net_hdr hdr_len shorter than an Ethernet header")             \
	X(VNET_FRAME_SHORT, "vnet_frame_short",                                 \
	  "frame shorter than an Ethernet header (or empty on TUN)")            \
	X(VNET_NOT_IP, "vnet_not_ip", "TUN frame is neither IPv4 nor IPv6")     \
	X(VNET_CSUM_PAST_END, "vnet_csum_past_end",                             \
	  "csum_start/csum_offset point past the frame")                        \
	X(VNET_CSUM_START_SHORT, "vnet_csum_start_short",                       \
	  "csum_start inside the smallest IP header")                           \
	X(VNET_CSUM_NOT_L4, "vnet_csum_not_l4",                                 \
	  "csum_start is not the TCP/UDP header of the packet")                 \
	X(VNET_CSUM_OFFSET, "vnet_csum_offset",                                 \
	  "csum_offset is not the L4 checksum field")                           \
	X(VNET_TCP_CSUM_OFFSET, "vnet_tcp_csum_offset",                         \
	  "TCP GSO with csum_offset other than 16")                             \
	X(VNET_GSO_NO_CSUM, "vnet_gso_no_csum", "GSO without NEEDS_CSUM")       \
	X(VNET_GSO_PROTO, "vnet_gso_proto",                                     \
	  "gso_type disagrees with the packet's protocols")                     \
	X(VNET_GSO_PADDED, "vnet_gso_padded",                                   \
	  "GSO frame with bytes after its IP packet")                           \
	X(VNET_GSO_SEGS, "vnet_gso_segs", "more GSO segments than allowed")     \
	X(VNET_USO_NO_CSUM, "vnet_uso_no_csum", "USO without NEEDS_CSUM")       \
	X(VNET_USO_CSUM_OFFSET, "vnet_uso_csum_offset",                         \
	  "USO with csum_offset other than 6")                                  \
	X(VNET_USO_ECN, "vnet_uso_ecn", "USO with the ECN bit")                 \
	X(VNET_USO_SEGS, "vnet_uso_segs", "USO over 128 segments")              \
	X(VNET_TNL_TYPE, "vnet_tnl_type",                                       \
	  "tunnel GSO with both outer versions or a bad inner type")            \
	X(VNET_TNL_DATA_VALID, "vnet_tnl_data_valid",                           \
	  "tunnel GSO with DATA_VALID")                                         \
	X(VNET_TNL_OFFSETS, "vnet_tnl_offsets",                                 \
	  "tunnel GSO offsets out of order")                                    \
	X(VNET_TNL_PARSE, "vnet_tnl_parse",                                     \
	  "tunnel GSO offsets do not match the packet's tunnel")                \
	X(VNET_HASH_REPORT, "vnet_hash_report", "unknown virtio hash_report") \
	/* Ports: a frame breaks the port's transmit contract. */              \
	X(PORT_OFFLOAD, "port_offload",                                         \
	  "offload not negotiated on the port")                                 \
	X(PORT_MTU, "port_mtu", "plain frame larger than the port's MTU")       \
	X(PORT_GSO_SIZE, "port_gso_size",                                       \
	  "super-packet larger than the port's size limit")                     \
	X(PORT_GSO_SEGS, "port_gso_segs",                                       \
	  "super-packet with more segments than the port's limit")              \
	X(PORT_SHORT, "port_short", "frame too short for the port")             \
	X(PORT_TRUNC, "port_trunc", "frame larger than the receive buffer")    \
	/* Segmentation (gso.h). */                                             \
	X(GSO_TYPE, "gso_type", "GSO type unsupported or inconsistent")         \
	X(GSO_SIZE, "gso_size", "gso_size zero or unusable for the GSO type")   \
	X(GSO_HDR, "gso_hdr", "header offsets missing or wrong for the frame")  \
	X(GSO_PROTO, "gso_proto", "headers do not match the GSO type")          \
	X(GSO_FRAG, "gso_frag", "super-packet is an IP fragment")               \
	X(GSO_CSUM, "gso_csum", "partial checksum not at the L4 header")        \
	X(GSO_SEGS, "gso_segs", "more segments than a super-packet may have")   \
	X(GSO_LIMIT, "gso_limit", "egress limit too small for one segment")     \
	X(GSO_HDR_LEN, "gso_hdr_len", "headers longer than GSO accepts")     \
	/* vhost-user ports: what a guest's rings held. */                     \
	X(VHOST_DESC, "vhost_desc",                                             \
	  "descriptor outside the guest's memory table")                        \
	X(VHOST_CHAIN, "vhost_chain",                                           \
	  "descriptor chain too long, looped or of the wrong direction")        \
	X(VHOST_INDIRECT, "vhost_indirect",                                     \
	  "indirect descriptor table malformed, nested or too large")           \
	X(VHOST_RING, "vhost_ring",                                             \
	  "available ring index out of range: the ring is stopped")            \
	X(VHOST_RX_SMALL, "vhost_rx_small",                                     \
	  "guest receive buffers too small for the frame")                      \
	/* VXLAN ports (also trunc_vxlan, vxlan_flags): not a frame of ours. */ \
	X(VXLAN_VNI, "vxlan_vni", "VXLAN datagram of another VNI")              \
	X(VXLAN_RUNT, "vxlan_runt",                                             \
	  "VXLAN inner frame shorter than an Ethernet header")                  \
	X(VXLAN_NO_REMOTE, "vxlan_no_remote",                                   \
	  "frame to flood and no remote VTEP to send it to")                    \
	X(VXLAN_RESERVED, "vxlan_reserved",                                     \
	  "VXLAN header with reserved flag bits or fields set")

/* Negative codes: VOFF_E_TRUNC_ETH == -(VOFF_E_BASE + 1), and so on. */
enum voff_err_index {
	VOFF__E_FIRST = VOFF_E_BASE,
#define VOFF__X(e, n, m) VOFF__EI_##e,
	VOFF_ERR_MAP(VOFF__X)
#undef VOFF__X
	VOFF__E_LAST
};

enum voff_err {
#define VOFF__X(e, n, m) VOFF_E_##e = -(int)VOFF__EI_##e,
	VOFF_ERR_MAP(VOFF__X)
#undef VOFF__X
};

/**
 * voff_strerror() - human-readable message for an error code
 * @err: a negative errno or a negative VOFF_E_* code (0 gives "success")
 *
 * Return: a static string; never NULL.  Unknown codes give a generic text.
 */
const char *voff_strerror(int err);

/**
 * voff_err_name() - short snake_case name of an error, for counters
 * @err: a negative errno or a negative VOFF_E_* code
 *
 * For VOFF_E_* codes this is the counter name from VOFF_ERR_MAP; for
 * errno values it is the lower-case errno name ("einval", "enomem"), or
 * "errno" for an errno without one; 0 is "ok".
 *
 * Return: a static string, never NULL; "?" for anything else (a positive
 * value, or a negative one that is neither an errno nor a VOFF_E_* code),
 * as every voff_*_name() function answers a value it has no name for.
 */
const char *voff_err_name(int err);

/**
 * voff_err_is_voff() - whether @err is one of voff's own VOFF_E_* codes
 * @err: any return value
 *
 * Return: true for VOFF_E_* codes, false for 0, positives and -errno.
 */
bool voff_err_is_voff(int err);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_ERR_H */
