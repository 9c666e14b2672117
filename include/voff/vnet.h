/* SPDX-License-Identifier: MIT */
/*
 * vnet.h - the virtio_net_hdr codec and its validator
 *
 * DOC: Theory of Operation
 *
 * Every super-packet that crosses a TAP, a TUN, an AF_PACKET socket or a
 * virtio queue is preceded by a virtio_net_hdr that states its offloads:
 * a partial checksum to complete (NEEDS_CSUM at csum_start/csum_offset), a
 * verified checksum (DATA_VALID), and how to segment it (gso_type,
 * gso_size).  This module converts between those header bytes and the
 * offload metadata of a struct voff_pkt (pkt.h), which has the same
 * meaning.
 *
 * Layers, from the wire inwards:
 *  - the wire structs below are byte arrays (no packing pragmas, no
 *    alignment assumptions), one per layout: 10, 12, 20 and 24 bytes;
 *  - voff_vnet_hdr_read()/voff_vnet_hdr_write() copy a layout in a given
 *    byte order to and from struct voff_vnet_hdr, a host-order view of
 *    every field; they check nothing but sizes;
 *  - voff_vnet_decode() validates a header against the frame it describes
 *    and fills the packet's metadata; voff_vnet_encode() does the reverse
 *    and refuses metadata the validator (and so the kernel) would reject.
 *
 * Decoding copies the header into a local struct first and validates only
 * that copy (a header in shared memory may change under us: the "TOCTOU on
 * mmap'd vnet_hdr" bug).  A header that claims an offload (NEEDS_CSUM or a
 * GSO type) must agree with what voff_parse() finds in the frame:
 * csum_start must be the real L4 header, gso_type must match the real
 * protocols, hdr_len is recomputed.  A header that claims none is checked
 * on its own; the frame is parsed then only for the offsets decode sets,
 * and encode does not parse it at all.  A transmit path that has parsed
 * the frame already passes its parse to voff_vnet_encode_parsed().
 * docs/vnet.md lists every rule, the kernel rule it mirrors and where voff
 * is stricter; each rejection has its own VOFF_E_VNET_* code (err.h) whose
 * name is the drop counter's name.
 *
 * What it does not do: verify or complete checksums (csum.h), segment
 * (gso.h), or touch a file descriptor.
 *
 * Context: pure functions; no locking, no allocation.
 */
#ifndef VOFF_VNET_H
#define VOFF_VNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_pkt;
struct voff_parsed;

/* ---- wire format --------------------------------------------------------- */

/** enum voff_vnet_flag - virtio_net_hdr.flags bits */
enum voff_vnet_flag {
	VOFF_VNET_F_NEEDS_CSUM = 1,	/* complete csum at start + offset */
	VOFF_VNET_F_DATA_VALID = 2,	/* checksums verified (receive only) */
	VOFF_VNET_F_RSC_INFO = 4,	/* csum fields hold RSC counters */
	VOFF_VNET_F_UDP_TUNNEL_CSUM = 8, /* tunnel GSO: outer UDP checksum */
};

/** enum voff_vnet_gso - virtio_net_hdr.gso_type values and bits */
enum voff_vnet_gso {
	VOFF_VNET_GSO_NONE = 0,
	VOFF_VNET_GSO_TCPV4 = 1,
	VOFF_VNET_GSO_UDP = 3,		/* UFO: IP fragmentation */
	VOFF_VNET_GSO_TCPV6 = 4,
	VOFF_VNET_GSO_UDP_L4 = 5,	/* USO: one datagram per segment */
	VOFF_VNET_GSO_UDP_TUNNEL_IPV4 = 0x20, /* outer IPv4 + UDP tunnel */
	VOFF_VNET_GSO_UDP_TUNNEL_IPV6 = 0x40, /* outer IPv6 + UDP tunnel */
	VOFF_VNET_GSO_ECN = 0x80,	/* TCP: CWR on the first segment */
};

/** enum voff_vnet_hdr_size - the four header layouts, in bytes */
enum voff_vnet_hdr_size {
	VOFF_VNET_HDR_LEN = 10,		/* virtio_net_hdr (legacy) */
	VOFF_VNET_HDR_MRG_LEN = 12,	/* _mrg_rxbuf and _v1: + num_buffers */
	VOFF_VNET_HDR_HASH_LEN = 20,	/* _v1_hash: + hash value, report */
	VOFF_VNET_HDR_TNL_LEN = 24,	/* _v1_hash_tunnel: + tunnel offsets */
};

/** enum voff_vnet_limit - limits the validator applies */
enum voff_vnet_limit {
	VOFF_VNET_USO_MAX_SEGS = 128,	/* UDP_MAX_SEGMENTS */
	VOFF_VNET_GSO_MAX_SEGS = 65535,	/* GSO_MAX_SEGS */
	VOFF_VNET_GSO_BY_FRAGS = 0xFFFF, /* gso_size reserved for SCTP */
	VOFF_VNET_HASH_REPORT_MAX = 9,	/* last VIRTIO_NET_HASH_REPORT_* */
};

/** enum voff_vnet_hash_report - hash_report values (virtio 1.2 §5.1.6.4.3) */
enum voff_vnet_hash_report {
	VOFF_VNET_HASH_NONE = 0,
	VOFF_VNET_HASH_IPV4 = 1,
	VOFF_VNET_HASH_TCPV4 = 2,
	VOFF_VNET_HASH_UDPV4 = 3,
	VOFF_VNET_HASH_IPV6 = 4,
	VOFF_VNET_HASH_TCPV6 = 5,
	VOFF_VNET_HASH_UDPV6 = 6,
};

/**
 * struct voff_vnet_wire - virtio_net_hdr as bytes (10)
 * @flags:	VOFF_VNET_F_* bits
 * @gso_type:	enum voff_vnet_gso
 * @hdr_len:	bytes of headers before the payload (a hint)
 * @gso_size:	payload bytes per segment
 * @csum_start:	where checksumming starts
 * @csum_offset: where the checksum goes, counted from @csum_start
 *
 * Multi-byte fields are in the byte order of the configuration.
 */
struct voff_vnet_wire {
	uint8_t flags;
	uint8_t gso_type;
	uint8_t hdr_len[2];
	uint8_t gso_size[2];
	uint8_t csum_start[2];
	uint8_t csum_offset[2];
};

/** struct voff_vnet_wire_mrg - _mrg_rxbuf / _v1 (12): + @num_buffers */
struct voff_vnet_wire_mrg {
	struct voff_vnet_wire hdr;
	uint8_t num_buffers[2];
};

/**
 * struct voff_vnet_wire_hash - _v1_hash (20)
 * @v1:		the 12-byte header
 * @hash_value:	32-bit hash (kernels since 6.17 name its halves lo/hi)
 * @hash_report: enum voff_vnet_hash_report
 * @padding:	zero
 */
struct voff_vnet_wire_hash {
	struct voff_vnet_wire_mrg v1;
	uint8_t hash_value[4];
	uint8_t hash_report[2];
	uint8_t padding[2];
};

/**
 * struct voff_vnet_wire_tnl - _v1_hash_tunnel (24)
 * @hash:	the 20-byte header
 * @outer_th_offset: offset of the outer UDP header (tunnel GSO)
 * @inner_nh_offset: offset of the inner IP header (tunnel GSO)
 */
struct voff_vnet_wire_tnl {
	struct voff_vnet_wire_hash hash;
	uint8_t outer_th_offset[2];
	uint8_t inner_nh_offset[2];
};

/* C spells it _Static_assert, C++ static_assert; the layout is the same. */
#ifdef __cplusplus
#define VOFF__STATIC_ASSERT static_assert
#else
#define VOFF__STATIC_ASSERT _Static_assert
#endif
VOFF__STATIC_ASSERT(sizeof(struct voff_vnet_wire) == VOFF_VNET_HDR_LEN,
	       "virtio_net_hdr is 10 bytes");
VOFF__STATIC_ASSERT(sizeof(struct voff_vnet_wire_mrg) == VOFF_VNET_HDR_MRG_LEN,
	       "virtio_net_hdr_mrg_rxbuf is 12 bytes");
VOFF__STATIC_ASSERT(sizeof(struct voff_vnet_wire_hash) ==
		    VOFF_VNET_HDR_HASH_LEN,
	       "virtio_net_hdr_v1_hash is 20 bytes");
VOFF__STATIC_ASSERT(sizeof(struct voff_vnet_wire_tnl) == VOFF_VNET_HDR_TNL_LEN,
	       "virtio_net_hdr_v1_hash_tunnel is 24 bytes");

/**
 * struct voff_vnet_hdr - every header field, in host order
 * @flags:	VOFF_VNET_F_* bits
 * @gso_type:	enum voff_vnet_gso value and bits
 * @hdr_len:	header length hint
 * @gso_size:	segment payload size
 * @csum_start:	checksum start
 * @csum_offset: checksum field offset from @csum_start
 * @num_buffers: buffers of a mergeable receive (12 bytes and more)
 * @hash_value:	hash (20 bytes and more)
 * @hash_report: hash type (20 bytes and more)
 * @outer_th_offset: tunnel GSO: outer transport header (24 bytes)
 * @inner_nh_offset: tunnel GSO: inner network header (24 bytes)
 *
 * Fields a layout does not have read as 0 and are not written.
 */
struct voff_vnet_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
	uint32_t hash_value;
	uint16_t hash_report;
	uint16_t outer_th_offset;
	uint16_t inner_nh_offset;
};

/* ---- configuration ------------------------------------------------------- */

/** enum voff_vnet_order - byte order of the multi-byte fields */
enum voff_vnet_order {
	VOFF_VNET_LE = 0,	/* virtio 1.0 ("v1"); TUNSETVNETLE */
	VOFF_VNET_NATIVE = 1,	/* legacy virtio: the host's order */
	VOFF_VNET_BE = 2,	/* legacy big-endian guests; TUNSETVNETBE */
};

/** enum voff_vnet_mode - what the frame after the header starts with */
enum voff_vnet_mode {
	VOFF_VNET_L2 = 0,	/* Ethernet: TAP, AF_PACKET, virtio-net */
	VOFF_VNET_L3 = 1,	/* IP: TUN; offsets count from the IP header */
};

/** enum voff_vnet_dir - who wrote the header */
enum voff_vnet_dir {
	/*
	 * A sender asking for transmission: what a write to a TAP/TUN or a
	 * virtio transmit queue carries.  DATA_VALID, num_buffers and the
	 * hash fields mean nothing here; decode ignores them and encode
	 * writes them as zero.
	 */
	VOFF_VNET_TX = 0,
	/*
	 * A device delivering a received frame: what a read from a TAP/TUN
	 * or a virtio receive queue carries.  DATA_VALID and the hash fields
	 * are meaningful.
	 */
	VOFF_VNET_RX = 1,
};

/**
 * struct voff_vnet_cfg - how headers look on one channel
 * @hdr_size:	10, 12, 20 or 24 (enum voff_vnet_hdr_size)
 * @order:	enum voff_vnet_order
 * @mode:	enum voff_vnet_mode
 * @dir:	enum voff_vnet_dir
 * @tunnel:	UDP tunnel GSO negotiated (VIRTIO_NET_F_*_UDP_TUNNEL_GSO,
 *		TUN_F_UDP_TUNNEL_GSO); needs @hdr_size 24
 * @max_segs:	largest gso_segs accepted (a device's gso_max_segs); 0
 *		means VOFF_VNET_GSO_MAX_SEGS
 * @plain_unparsed: decode does not parse a frame whose header claims no
 *		offload (it has nothing to check against it): such a frame's
 *		header offsets are left VOFF_OFF_NONE, for a caller that
 *		reads none of them (a switch port); false (the default):
 *		decode sets the offsets of every frame that parses
 *
 * Zero-initialised it is a little-endian, 10-byte, L2, transmit channel.
 */
struct voff_vnet_cfg {
	uint8_t hdr_size;
	uint8_t order;
	uint8_t mode;
	uint8_t dir;
	bool tunnel;
	uint16_t max_segs;
	bool plain_unparsed;
};

/**
 * voff_vnet_cfg_check() - whether @cfg is usable
 *
 * Return: 0, or -EINVAL for an unknown size, order, mode or direction, or
 * @tunnel with a header smaller than 24 bytes.
 */
int voff_vnet_cfg_check(const struct voff_vnet_cfg *cfg);

/* ---- byte codec ---------------------------------------------------------- */

/**
 * voff_vnet_hdr_read() - copy a header's bytes into host-order fields
 * @cfg:	the channel (size and byte order are used)
 * @src:	header bytes
 * @len:	bytes available at @src
 * @out:	receives every field; fields the layout lacks are 0
 *
 * Checks nothing but sizes: the values may still be nonsense.
 *
 * Return: @cfg->hdr_size, -EINVAL for a bad @cfg, or VOFF_E_VNET_TRUNC
 * when @len is smaller than the header (then @out is untouched).
 */
int voff_vnet_hdr_read(const struct voff_vnet_cfg *cfg, const void *src,
		       size_t len, struct voff_vnet_hdr *out);

/**
 * voff_vnet_hdr_write() - store host-order fields as header bytes
 * @cfg:	the channel
 * @h:		the fields; those the layout lacks are ignored
 * @dst:	where the header goes
 * @cap:	bytes available at @dst
 *
 * The padding of the 20 and 24-byte layouts is written as zero.
 *
 * Return: @cfg->hdr_size, -EINVAL for a bad @cfg, -ENOSPC when @cap is too
 * small (nothing written).
 */
int voff_vnet_hdr_write(const struct voff_vnet_cfg *cfg,
			const struct voff_vnet_hdr *h, void *dst, size_t cap);

/* ---- validating decode and encode ---------------------------------------- */

/**
 * voff_vnet_decode() - validate a header against a packet and apply it
 * @cfg:	the channel
 * @hdr:	header bytes (copied before anything is checked)
 * @hdr_avail:	bytes available at @hdr
 * @pkt:	the frame the header describes, starting at its Ethernet
 *		header (VOFF_VNET_L2) or IP header (VOFF_VNET_L3)
 *
 * On success @pkt's header offsets are set from voff_parse() (left
 * VOFF_OFF_NONE when the header claims no offload and the frame does not
 * parse: the kernel passes any bytes on then; or, with
 * @cfg->plain_unparsed, whenever the header claims no offload), and its
 * offload metadata
 * from the header: csum (PARTIAL with csum_start/offset, VALID for
 * DATA_VALID on a receive channel, else NONE), gso_type (VOFF_GSO_* bits),
 * gso_size, gso_segs (computed exactly) and hdr_len (the parsed header
 * length for GSO, 0 otherwise; the header's hdr_len is never trusted),
 * and, on a receive channel with a 20 or 24-byte header, hash
 * (hash_value when hash_report is set, else 0; other channels leave it).
 * A GSO header whose payload fits one segment gives a plain frame (no
 * gso_type), as the kernel treats it.  The packet data is not modified.
 *
 * Return: 0; -EINVAL for a bad @cfg; VOFF_E_VNET_TRUNC when @hdr_avail is
 * smaller than the header; VOFF_E_VNET_* for a header the validator
 * rejects; a parser VOFF_E_* code when the header claims an
 * offload and the frame does not parse.  On failure @pkt is untouched.
 * Ownership: borrows @pkt.
 */
int voff_vnet_decode(const struct voff_vnet_cfg *cfg, const void *hdr,
		     size_t hdr_avail, struct voff_pkt *pkt);

/**
 * voff_vnet_pkt_pull() - decode the header at the front of @pkt, strip it
 * @cfg:	the channel
 * @pkt:	a packet whose data is header + frame, as read from a TAP
 *
 * Same as voff_vnet_decode() over the frame after the header, which is
 * then pulled off.
 *
 * Return: as voff_vnet_decode(); on failure @pkt is untouched (header
 * still in front).
 * Ownership: borrows @pkt.
 */
int voff_vnet_pkt_pull(const struct voff_vnet_cfg *cfg, struct voff_pkt *pkt);

/**
 * voff_vnet_pkt_pull_parsed() - voff_vnet_pkt_pull(), handing out the
 * parse it made
 * @cfg:	the channel
 * @pkt:	as voff_vnet_pkt_pull()
 * @p:		room for the parse of the frame (after the header), or NULL
 *
 * For a receive path that will need the frame's parse again (a switch
 * deciding how the frame leaves): decode parses a frame that claims an
 * offload, and one that claims none unless @cfg->plain_unparsed, and that
 * parse lands in @p instead of being thrown away.
 *
 * Return: 1 when @p holds a successful voff_parse() of @pkt's data as it
 * is on return; 0 when no parse was made or it failed (a plain frame that
 * does not parse), or @p is NULL; else the negative error of
 * voff_vnet_pkt_pull() (@pkt untouched, @p's content unspecified).
 * Ownership: borrows @pkt.
 */
int voff_vnet_pkt_pull_parsed(const struct voff_vnet_cfg *cfg,
			      struct voff_pkt *pkt, struct voff_parsed *p);

/**
 * voff_vnet_encode() - build the header for a packet's offload metadata
 * @cfg:	the channel
 * @pkt:	the packet (its data starts at the Ethernet or IP header, as
 *		@cfg->mode says); its header offsets need not be set: the
 *		frame is parsed (once) when its metadata claims an offload
 *		(a partial checksum or GSO), or on a receive channel with a
 *		hash layout when @pkt->hash is set; otherwise not at all
 * @dst:	where the header bytes go
 * @cap:	bytes available at @dst
 *
 * Mapping: csum PARTIAL gives NEEDS_CSUM; VALID gives DATA_VALID on a
 * receive channel only; VOFF_GSO_TCPV4/TCPV6/UDP/UDP_L4 (+TCP_ECN, +
 * UDP_TUNNEL[_CSUM] with the outer IP version read from the frame) give the
 * virtio types; DODGY, TCP_FIXEDID and TCP_FIXEDID_INNER are dropped (the
 * header cannot carry them, as the kernel's virtio_net_hdr_from_skb() drops
 * them); hdr_len is the parsed header length for GSO and 0 otherwise;
 * num_buffers is 1 on a receive channel, 0 on a transmit one; a receive
 * channel's hash report comes from the parsed protocols when @pkt->hash is
 * set.  The result is then checked with the decode validator, so a header
 * voff_vnet_decode() would refuse is never written.
 *
 * Return: @cfg->hdr_size; -EINVAL for a bad @cfg or a frame that does not
 * start where @cfg->mode says; -ENOSPC when @cap is too small;
 * VOFF_E_VNET_GSO_TYPE for GSO bits virtio cannot express; or the
 * validator's code.  Nothing is written on failure.
 * Ownership: borrows @pkt.
 */
int voff_vnet_encode(const struct voff_vnet_cfg *cfg,
		     const struct voff_pkt *pkt, void *dst, size_t cap);

/**
 * voff_vnet_encode_parsed() - voff_vnet_encode() with the caller's parse
 * @cfg:	the channel
 * @pkt:	the packet, as for voff_vnet_encode()
 * @p:		a successful voff_parse() of @pkt's data as it is now,
 *		started where @cfg->mode says (VOFF_PARSE_ETH for
 *		VOFF_VNET_L2, VOFF_PARSE_IP for VOFF_VNET_L3); or NULL, which
 *		makes the call voff_vnet_encode()
 * @dst:	where the header bytes go
 * @cap:	bytes available at @dst
 *
 * For a transmit path that parsed the frame for its own decision (the
 * switch's, xmit.h): the validator then uses @p instead of parsing the
 * frame again, and the result is the one voff_vnet_encode() gives.  @p is
 * trusted to describe these bytes; only its start and its end (not past
 * @pkt->len) are checked.  A parse of other bytes makes the validator
 * judge the header against the wrong headers.
 *
 * Return: as voff_vnet_encode(); also -EINVAL when @p does not start where
 * @cfg->mode says or ends past the data.  Nothing is written on failure.
 * Ownership: borrows @pkt and @p.
 */
int voff_vnet_encode_parsed(const struct voff_vnet_cfg *cfg,
			    const struct voff_pkt *pkt,
			    const struct voff_parsed *p, void *dst, size_t cap);

/**
 * voff_vnet_pkt_push() - encode @pkt's header into its headroom
 *
 * Return: as voff_vnet_encode(); VOFF_E_NO_HEADROOM when the headroom is
 * smaller than the header; VOFF_E_HDR_OFF when voff_pkt_push() refuses
 * because a set offset would pass 16 bits.  Nothing changes on failure.
 * On success the data starts with the header and header offsets moved
 * with it (see voff_pkt_push()).
 * Ownership: borrows @pkt.
 */
int voff_vnet_pkt_push(const struct voff_vnet_cfg *cfg, struct voff_pkt *pkt);

/**
 * voff_vnet_pkt_push_parsed() - voff_vnet_pkt_push() with the caller's parse
 * @cfg:	the channel
 * @pkt:	the packet
 * @p:		a parse of @pkt's data, as for voff_vnet_encode_parsed(),
 *		or NULL
 *
 * Return: as voff_vnet_pkt_push() and voff_vnet_encode_parsed().
 * Nothing changes on failure.
 * Ownership: borrows @pkt and @p.
 */
int voff_vnet_pkt_push_parsed(const struct voff_vnet_cfg *cfg,
			      struct voff_pkt *pkt,
			      const struct voff_parsed *p);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_VNET_H */
