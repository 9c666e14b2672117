/* SPDX-License-Identifier: MIT */
/*
 * vxlan.h - VXLAN ports (RFC 7348): Ethernet frames carried in UDP
 * datagrams between hosts, over a struct voff_udp (udp.h)
 *
 * DOC: Theory of Operation
 *
 * A VXLAN port (VOFF_PORT_VXLAN, opened with voff_port_open() and a
 * struct voff_vxlan_cfg) is one VTEP of one VNI: a UDP socket bound to a
 * local address (port 4789 by default) and a list of remote VTEPs.  To
 * the rest of voff it is a port like a TAP: frames go in and out, with
 * offloads.
 *
 *  - Transmit: a frame is sent to the VTEP its inner destination MAC was
 *    learned from; a broadcast, multicast or unknown unicast frame to
 *    every remote of the list (head-end replication).  A super-packet is
 *    cut by voff's GSO into segments for the overlay MTU, with full inner
 *    checksums and without copying its payload (voff_gso_segment_sg()),
 *    and each segment becomes one datagram: the 8-byte VXLAN header, then
 *    the segment.  The segments of one super-packet are of one size but
 *    the last, so they leave as one UDP_SEGMENT train (voff_udp_send_sg()).
 *    The outer Ethernet, IP and UDP headers are the kernel's: the socket
 *    sends the UDP payload only.
 *  - Source ports: by default every datagram leaves from the port's own
 *    socket, so the underlay sees one flow per pair of VTEPs.  With
 *    @srcports above 1 (or a range) the port opens that many send-only
 *    sockets on the same local address, and each frame leaves from the
 *    one its inner flow hashes to (the IP addresses, protocol and TCP or
 *    UDP ports; the MAC addresses and EtherType of a frame that is not
 *    IP), as the kernel's vxlan picks its source port per flow, so the
 *    underlay's ECMP and the receiving NIC's RSS spread the flows (RFC
 *    7348 section 5).  One flow always leaves from one port, every
 *    segment of a super-packet alike, so it is never reordered.  The
 *    send sockets are on the same local address and drop whatever
 *    arrives at them: receiving stays on the port's own socket, and the
 *    @udp counters of voff_port_vxlan_stats() cover all of them.
 *  - Receive: UDP_GRO trains are cut into datagrams; each is checked (the
 *    I flag, the VNI, an inner frame of at least 14 bytes) and its inner
 *    frame copied into a packet of the caller's pool.  A datagram that
 *    fails is dropped and counted by reason among the port's receive
 *    drops (voff_port_drops(): trunc_vxlan, vxlan_flags, vxlan_vni,
 *    vxlan_reserved, vxlan_runt).  A header with reserved flag bits or
 *    fields set is dropped (vxlan_reserved), as the kernel's vxlan does
 *    without extensions, where RFC 7348 would have receivers ignore
 *    them.  The inner source MAC of each frame
 *    is learned with the VTEP address it came from.  The copy out of the
 *    train sums the inner TCP or UDP checksum (IPv4, IPv6 without
 *    extension headers) on the way: a frame whose checksum is right
 *    leaves VOFF_CSUM_VALID, any other with no checksum state, to be
 *    verified downstream.  A GRO engine (the switch's, per port) merges
 *    them into super-packets again.
 *  - Limits: the overlay MTU is the underlay's minus 50 bytes (IPv4) or
 *    70 (IPv6): outer Ethernet 14, IP 20 or 40, UDP 8, VXLAN 8; the
 *    underlay MTU is the smallest route MTU towards the remotes (the
 *    device the route leaves by, or the route's own mtu), or the MTU of
 *    the device that has the local address when there is no remote.  It
 *    is read again when a remote is added or removed.  gso_max_segs
 *    keeps one super-packet within one train.
 *
 * Context: as every port, one thread at a time; nothing here locks.
 */
#ifndef VOFF_VXLAN_H
#define VOFF_VXLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <voff/udp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_port;

/* IANA's VXLAN port. */
#define VOFF_VXLAN_UDP_PORT 4789
/* Bytes of the VXLAN header. */
#define VOFF_VXLAN_HLEN 8
/* Largest VNI (24 bits). */
#define VOFF_VXLAN_VNI_MAX 0xFFFFFFu
/* Remote VTEPs of one port's flood list. */
#define VOFF_VXLAN_REMOTES_MAX 32
/* Send sockets (UDP source ports) of one port at most. */
#define VOFF_VXLAN_SRCPORTS_MAX 64
/* Bytes between the overlay MTU and the underlay's. */
#define VOFF_VXLAN_OVERHEAD4 50
#define VOFF_VXLAN_OVERHEAD6 70

/**
 * struct voff_vxlan_cfg - what a VXLAN port is
 * @vni:	the VNI sent and the only one accepted (0 .. VOFF_VXLAN_VNI_MAX)
 * @local:	address and port to bind (port 0: 4789); the family sets the
 *		underlay's (AF_UNSPEC: the remotes' family, wildcard address)
 * @remote:	the remote VTEPs broadcast, multicast and unknown unicast
 *		frames are replicated to (port 0: 4789); all of @local's
 *		family
 * @n_remote:	entries of @remote used (0 .. VOFF_VXLAN_REMOTES_MAX)
 * @udp_csum_zero: send outer UDP checksums of zero (IPv4 only: refused
 *		for IPv6, RFC 6935).  The kernel refuses UDP_SEGMENT trains
 *		on such a socket, so every datagram is then its own message
 * @udp_offload_off: never send UDP_SEGMENT trains nor receive UDP_GRO
 *		trains: one datagram per system call each way
 *		(VOFF_UDP_F_SINGLE on the socket: one message per call), for
 *		comparison with the trains (bench/vxlan.sh) or to work round
 *		an underlay that mishandles them
 * @fdb_size:	MAC -> VTEP entries (0 = 1024)
 * @age_ns:	a learned entry is forgotten after this long unseen
 *		(0 = 300 s)
 * @srcports:	UDP source ports to spread the flows over (0 or 1: every
 *		datagram leaves from @local's socket, as without this field;
 *		2 .. VOFF_VXLAN_SRCPORTS_MAX: that many send-only sockets,
 *		bound to @local's address, each frame sent from the one its
 *		inner flow hashes to).  With @srcport_min, 1 opens one send
 *		socket too
 * @srcport_min: 0: the send sockets' ports are ephemeral ones the kernel
 *		picks; else they are @srcport_min .. @srcport_min +
 *		@srcports - 1 (all of them must be free)
 *
 * voff_port_open() takes it in struct voff_port_cfg.vxlan, with
 * cfg.kind VOFF_PORT_VXLAN and cfg.netns the namespace of the socket;
 * cfg.name is the port's label (NULL: "vxlanVNI").  Zero-initialise and
 * set what you need.
 */
struct voff_vxlan_cfg {
	uint32_t vni;
	union voff_udp_addr local;
	union voff_udp_addr remote[VOFF_VXLAN_REMOTES_MAX];
	unsigned int n_remote;
	bool udp_csum_zero;
	bool udp_offload_off;
	unsigned int fdb_size;
	uint64_t age_ns;
	unsigned int srcports;
	uint16_t srcport_min;
};

/*
 * VOFF_VXLAN_STATS_MAP(X) - X(field, "what it counts"): the counters of
 * struct voff_vxlan_stats.  Drops are the port's (voff_port_drops()).
 */
#define VOFF_VXLAN_STATS_MAP(X)                                              \
	X(tx_unicast, "frames sent to the one VTEP their MAC is behind")     \
	X(tx_flooded, "frames replicated to every remote VTEP")              \
	X(tx_no_remote, "frames to flood with no remote VTEP: dropped")      \
	X(tx_datagrams, "datagrams handed to the socket, copies included")   \
	X(rx_datagrams, "datagrams received and checked")                    \
	X(learned, "MACs learned at a new VTEP or moved to another")

/** struct voff_vxlan_stats - one uint64_t per entry of VOFF_VXLAN_STATS_MAP */
struct voff_vxlan_stats {
#define VOFF_VXLAN_STAT_FIELD(name, doc) uint64_t name;
	VOFF_VXLAN_STATS_MAP(VOFF_VXLAN_STAT_FIELD)
#undef VOFF_VXLAN_STAT_FIELD
};

/**
 * voff_vxlan_addr_parse() - a VTEP address, port 4789 unless given
 * @out:	receives it; untouched on failure
 * @text:	as voff_udp_addr_parse() reads it
 *
 * Return: 0 or -EINVAL.
 */
int voff_vxlan_addr_parse(union voff_udp_addr *out, const char *text);

/**
 * voff_port_vxlan_remote_add() - add a VTEP to the flood list
 * @port:	a VOFF_PORT_VXLAN port
 * @addr:	the VTEP, of the port's family (port 0: 4789)
 *
 * The overlay MTU is read again (see the Theory of Operation); a switch
 * sees the port's new limits at its next step.  The route towards @addr
 * is looked up through a socket the port made in its namespace at open,
 * so this needs no privilege.
 *
 * Return: 0; -EINVAL (not a VXLAN port, another family); -EEXIST;
 * -ENOSPC (VOFF_VXLAN_REMOTES_MAX remotes).
 */
int voff_port_vxlan_remote_add(struct voff_port *port,
			       const union voff_udp_addr *addr);

/**
 * voff_port_vxlan_remote_del() - remove a VTEP from the flood list
 *
 * MACs learned behind it are forgotten too, static ones included.
 *
 * Return: 0; -EINVAL (not a VXLAN port); -ENOENT (not in the list).
 */
int voff_port_vxlan_remote_del(struct voff_port *port,
			       const union voff_udp_addr *addr);

/**
 * voff_port_vxlan_remotes() - the flood list
 * @out:	receives up to @cap addresses, in the order added
 *
 * Return: the number of remotes (may exceed @cap); 0 for another kind.
 */
unsigned int voff_port_vxlan_remotes(const struct voff_port *port,
				     union voff_udp_addr *out,
				     unsigned int cap);

/**
 * voff_port_vxlan_fdb_add() - a static MAC -> VTEP entry
 * @mac:	6 bytes, unicast
 * @addr:	the VTEP (port 0: 4789), of the port's family
 *
 * A static entry never ages and learning never moves it.
 *
 * Return: 0; -EINVAL (not a VXLAN port, multicast MAC, another family);
 * -ENOSPC (its bucket holds only static entries, or no VTEP slot left).
 */
int voff_port_vxlan_fdb_add(struct voff_port *port, const uint8_t *mac,
			    const union voff_udp_addr *addr);

/**
 * voff_port_vxlan_fdb_del() - forget @mac, static or learned
 * Return: 0; -EINVAL (not a VXLAN port); -ENOENT.
 */
int voff_port_vxlan_fdb_del(struct voff_port *port, const uint8_t *mac);

/**
 * voff_port_vxlan_fdb_lookup() - the VTEP @mac is behind
 * @addr:	receives it
 * @is_static:	receives whether the entry is static (may be NULL)
 *
 * Return: 0; -ENOENT (unknown or aged out); -EINVAL (not a VXLAN port).
 */
int voff_port_vxlan_fdb_lookup(const struct voff_port *port,
			       const uint8_t *mac, union voff_udp_addr *addr,
			       bool *is_static);

/**
 * voff_port_vxlan_srcports() - the UDP source ports the port sends from
 * @port:	a VOFF_PORT_VXLAN port
 * @out:	receives up to @cap ports in the order of the send sockets
 *		(the flow hash picks among them by index); may be NULL
 *		when @cap is 0
 * @cap:	entries at @out
 *
 * Return: the number of source ports (1 when the port sends from its own
 * socket; may exceed @cap); 0 for another kind.
 */
unsigned int voff_port_vxlan_srcports(const struct voff_port *port,
				      uint16_t *out, unsigned int cap);

/**
 * voff_port_vxlan_stats() - a VXLAN port's counters and its sockets'
 * @vx:		receives the VXLAN counters (may be NULL)
 * @udp:	receives the sockets' (may be NULL): trains, fallbacks;
 *		with send sockets (@srcports), the sum over the port's own
 *		socket and all of them (each fallback_*_probe is 1 when any
 *		socket's is)
 *
 * Return: 0, or -EINVAL for another kind of port.
 */
int voff_port_vxlan_stats(const struct voff_port *port,
			  struct voff_vxlan_stats *vx,
			  struct voff_udp_stats *udp);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_VXLAN_H */
