/* SPDX-License-Identifier: MIT */
/*
 * gso.h - software generic segmentation offload: split a super-packet into
 * the frames the kernel would put on the wire, or into smaller super-packets
 * that fit an egress's limits
 *
 * DOC: Theory of Operation
 *
 * A super-packet is a struct voff_pkt whose gso_type and gso_size are set
 * (pkt.h, kernel SKB_GSO_* meaning) and whose header offsets were set by
 * voff_pkt_parse() (parse.h): l3_off for every packet, and for a tunnel also
 * inner_l3_off.  GSO re-walks the IP and L4 headers from those offsets with
 * bounds checks of its own, so wrong metadata gives an error, never a read
 * outside the frame.
 *
 * Segmentation copies all headers (Ethernet, any number of VLAN tags, IPv4
 * options, IPv6 extension headers, tunnel headers, TCP options) verbatim in
 * front of each gso_size slice of the payload and then fixes, exactly as
 * Linux 6.18's skb_segment() and the protocol callbacks do:
 *
 *  - IPv4: total length, ID + i (wrapping mod 2^16; fixed with
 *    VOFF_GSO_TCP_FIXEDID for the outer header, VOFF_GSO_TCP_FIXEDID_INNER
 *    for the inner header of a tunnel), header checksum; DF, TOS and TTL
 *    kept;
 *  - IPv6: payload length;
 *  - TCP: seq += i * gso_size; FIN and PSH only on the last segment; CWR
 *    only on the first (on every segment with VOFF_GSO_TCP_ACCECN); ECE,
 *    URG and the urgent pointer on all; a checksum computing to 0 is stored
 *    as 0x0000;
 *  - USO (VOFF_GSO_UDP_L4): each segment a complete datagram with its own
 *    length and checksum (0 stored as 0xFFFF);
 *  - UFO (VOFF_GSO_UDP): the UDP checksum over the whole datagram first,
 *    then IP fragments of gso_size bytes of IP payload each (the UDP header
 *    counts as payload of the first fragment, as virtio's UFO gso_size
 *    does); IPv4 fragments share the ID and carry offset and MF (DF is
 *    cleared, as the kernel does); IPv6 gets a fragment header inserted
 *    after the unfragmentable part, with the identification the caller
 *    supplies (the kernel draws a random one);
 *  - tunnels (VOFF_GSO_UDP_TUNNEL[_CSUM]: VXLAN, Geneve; VOFF_GSO_GRE[_CSUM])
 *    over IPv4 or IPv6: the inner packet is segmented as above, then the
 *    outer UDP length, the outer UDP or GRE checksum when the _CSUM type is
 *    set (computed from the inner pseudo-header, "local checksum offload";
 *    otherwise the field is left as it is) and the outer IP header are
 *    fixed per segment.
 *
 * Checksum modes: VOFF_GSO_CSUM_FULL completes every checksum in software,
 * fused with the payload copy where a copy happens; VOFF_GSO_CSUM_PARTIAL
 * leaves the innermost L4 checksum as the pseudo-header seed and marks the
 * segment VOFF_CSUM_PARTIAL with csum_start/csum_offset, for an egress that
 * offloads checksums.  IPv4 header checksums are always computed.  UFO
 * fragments always carry a complete checksum.
 *
 * Output forms: flat copies into packets of a pool (voff_gso_segment(),
 * voff_gso_segment_batch()), the same frames packed back to back in one
 * caller buffer (voff_gso_segment_packed()), or zero-copy descriptors
 * (voff_gso_segment_sg()): per segment a header slot in caller storage plus
 * an iovec range pointing into the super-packet, ready for writev() or
 * sendmmsg().  The caller sizes the output (voff_gso_count() says how);
 * output too small gives an error and nothing is written or appended.
 *
 * What GSO does not do: verify the input's checksums (the L4 field of the
 * input is ignored and recomputed), segment IP fragments, IP-in-IP
 * (VOFF_GSO_IPXIP4/6), GSO_PARTIAL, fraglists or tunnels in tunnels.  Those
 * give VOFF_E_GSO_TYPE.  A super-packet whose payload fits one segment
 * gives one segment with fixed lengths and checksums; as the kernel sends
 * such a frame unsegmented, as a plain frame, a TCP checksum computing to 0
 * is then stored as 0xFFFF.
 *
 * Context: the functions keep no state; any thread may call them on its own
 * packets and pool.
 */
#ifndef VOFF_GSO_H
#define VOFF_GSO_H

#include <stddef.h>
#include <stdint.h>

#include <voff/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/** enum voff_gso_csum_mode - how checksums of segments are left */
enum voff_gso_csum_mode {
	VOFF_GSO_CSUM_FULL = 0,	   /* every checksum in software */
	VOFF_GSO_CSUM_PARTIAL = 1, /* L4 left as pseudo seed (NEEDS_CSUM) */
};

/* Largest header block (all headers in front of the payload) GSO accepts. */
#define VOFF_GSO_MAX_HDR 512
/* Header slot size that fits any segment of voff_gso_segment_sg(). */
#define VOFF_GSO_SLOT_SIZE (VOFF_GSO_MAX_HDR + 16)

/**
 * struct voff_gso_opts - options of a segmentation call
 * @csum_mode:	enum voff_gso_csum_mode
 * @ipv6_frag_id: fragment identification for IPv6 UFO (host order)
 *
 * A zeroed struct (or a NULL pointer) means full checksums and ID 0.
 */
struct voff_gso_opts {
	uint8_t csum_mode;
	uint32_t ipv6_frag_id;
};

/**
 * struct voff_gso_info - what a segmentation produces (or would produce)
 * @segs:	number of segments
 * @hdr_len:	largest header block of a segment (the slot size needed)
 * @max_len:	largest segment, headers included
 * @csum:	enum voff_csum_state of the segments (NONE or PARTIAL)
 * @csum_start:	with PARTIAL: where each segment's L4 checksum starts
 * @csum_offset: with PARTIAL: offset of the field past @csum_start
 */
struct voff_gso_info {
	unsigned int segs;
	uint16_t hdr_len;
	uint32_t max_len;
	uint8_t csum;
	uint16_t csum_start;
	uint16_t csum_offset;
};

/**
 * voff_gso_count() - validate a super-packet and size its segmentation
 * @pkt:	the super-packet (borrowed, not modified)
 * @opts:	options, or NULL for the defaults
 * @info:	receives the counts on success
 *
 * Return: 0 or a negative error: VOFF_E_GSO_* for input GSO cannot
 * segment (see err.h), -EINVAL for NULL arguments.
 * Ownership: borrows @pkt.
 */
int voff_gso_count(const struct voff_pkt *pkt, const struct voff_gso_opts *opts,
		   struct voff_gso_info *info);

/**
 * voff_gso_segment() - segment into flat packets taken from a pool
 * @pkt:	the super-packet (borrowed, not modified)
 * @opts:	options, or NULL for the defaults
 * @pool:	where segment packets come from; its data room must hold the
 *		largest segment (voff_gso_info.max_len)
 * @out:	array receiving the segments, in wire order
 * @cap:	entries available in @out
 *
 * Each segment carries the super-packet's header offsets (UFO fragments
 * after the first have no l4_off), port, hash and rx_ns, gso_type 0, and
 * the checksum state of the mode (NONE after full checksums, as after the
 * kernel's software checksum; PARTIAL with csum_start/offset).  Its data
 * starts at least VOFF_PKT_HEADROOM bytes into the buffer and ends within
 * the pool's data room; when the room allows, up to 63 more bytes of
 * headroom put its payload at the super-packet's payload offset in a
 * cache line, so the copy's stores are as aligned as its loads.
 *
 * Return: number of segments (>= 1); -ENOSPC when @cap is too small,
 * -ENOBUFS when the pool runs dry, VOFF_E_TOO_BIG when a segment does not
 * fit a pool buffer, VOFF_E_GSO_* for unsupported or malformed input.  On
 * error no packet stays allocated and the entries of @out hold no packet
 * (they may have been overwritten).
 * Ownership: borrows @pkt; the caller owns the returned segments.
 */
int voff_gso_segment(const struct voff_pkt *pkt,
		     const struct voff_gso_opts *opts, struct voff_pool *pool,
		     struct voff_pkt **out, unsigned int cap);

/**
 * voff_gso_segment_batch() - segment and append to a batch
 * @pkt:	the super-packet (borrowed)
 * @opts:	options, or NULL
 * @pool:	pool for the segments
 * @b:		batch receiving the segments after its current packets
 *
 * Return: as voff_gso_segment(), with -ENOSPC when the batch has fewer
 * free slots than segments; on error @b is unchanged.
 * Ownership: borrows @pkt; the batch owns the appended segments.
 */
int voff_gso_segment_batch(const struct voff_pkt *pkt,
			   const struct voff_gso_opts *opts,
			   struct voff_pool *pool, struct voff_batch *b);

/**
 * voff_gso_segment_sg() - segment into zero-copy descriptors
 * @pkt:	the super-packet (borrowed, not modified; must stay alive and
 *		unchanged while the descriptors are used)
 * @opts:	options, or NULL
 * @slots:	caller storage for the header blocks: segment i's headers are
 *		written at @slots + i * @slot_size
 * @slot_size:	bytes per slot (>= voff_gso_info.hdr_len;
 *		VOFF_GSO_SLOT_SIZE always suffices)
 * @segs:	array of @cap views, each set up by the caller with
 *		voff_sg_init() over an iovec array of at least 2 entries;
 *		segment i fills @segs[i] with its header slot and one range of
 *		@pkt's payload (any previous content is replaced)
 * @cap:	views (and slots) available
 * @info:	optional (may be NULL): receives the counts and the checksum
 *		state, csum_start and csum_offset every segment shares
 *
 * Return: number of segments; -ENOSPC when @cap, a slot or a view is too
 * small; VOFF_E_GSO_* for bad input.  On error no slot or view is written.
 * Ownership: borrows @pkt; the views point into @pkt and @slots.
 */
int voff_gso_segment_sg(const struct voff_pkt *pkt,
			const struct voff_gso_opts *opts, uint8_t *slots,
			size_t slot_size, struct voff_sg *segs,
			unsigned int cap, struct voff_gso_info *info);

/* Block size voff_gso_segment_packed() aligns payloads in (bytes). */
#define VOFF_GSO_PACK_ALIGN 64
/*
 * Area that always fits voff_gso_segment_packed()'s output, from the
 * voff_gso_info of voff_gso_count(): every frame may need up to
 * VOFF_GSO_PACK_ALIGN - 1 bytes of gap before it.
 */
#define VOFF_GSO_PACKED_SIZE(info)                                        \
	((size_t)(info)->segs *                                           \
	 ((size_t)(info)->max_len + VOFF_GSO_PACK_ALIGN - 1))

/**
 * struct voff_gso_frame - one segment of the packed form
 * @off:	where the frame starts, from the start of the area
 * @len:	frame length (headers and payload)
 * @hdr_len:	header bytes in front of the payload (for UFO the first
 *		fragment's includes the UDP header, the others' do not)
 */
struct voff_gso_frame {
	uint32_t off;
	uint32_t len;
	uint16_t hdr_len;
};

/**
 * voff_gso_segment_packed() - segment into frames packed in one buffer
 * @pkt:	the super-packet (borrowed, not modified)
 * @opts:	options, or NULL
 * @area:	caller storage receiving the frames back to back, in wire
 *		order; any alignment
 * @area_size:	bytes available at @area; VOFF_GSO_PACKED_SIZE() of
 *		voff_gso_count()'s info always suffices
 * @frames:	array receiving one entry per frame
 * @cap:	entries available in @frames
 * @info:	optional (may be NULL): receives the counts and the checksum
 *		state, csum_start and csum_offset every frame shares (frame
 *		offsets, as in the flat form's metadata)
 *
 * The frames are those voff_gso_segment() gives, byte for byte, in both
 * checksum modes and for every gso_type it takes; only where they are
 * written differs.  Frame i starts at the lowest offset, at or past the
 * end of frame i - 1 (0 for the first), at which its payload lands at the
 * same offset in a VOFF_GSO_PACK_ALIGN-byte block (a cache line) as the
 * super-packet's bytes it is copied from, so that the copy's stores are as
 * aligned as its loads; frame starts therefore have no fixed alignment.
 * The gaps (0 to VOFF_GSO_PACK_ALIGN - 1 bytes) are left unwritten.  The
 * layout depends only on the plan, the address of @area and that of the
 * super-packet's data; the bytes it spans, frames[n - 1].off +
 * frames[n - 1].len, are the least @area_size that succeeds at this
 * address.  The whole output is one run of memory written in address
 * order, cheaper to write than buffers scattered over a pool, and ready to
 * be described by iovecs (sendmmsg(), io_uring) or copied into a ring.
 *
 * Return: number of frames (>= 1); -ENOSPC when @cap is too small or the
 * frames do not fit @area_size; -EINVAL for a NULL @pkt, @area or
 * @frames; VOFF_E_GSO_* for unsupported or malformed input.  On error
 * nothing is written to @area, @frames or @info.
 * Ownership: borrows @pkt; the frames are plain bytes in @area.
 */
int voff_gso_segment_packed(const struct voff_pkt *pkt,
			    const struct voff_gso_opts *opts, uint8_t *area,
			    size_t area_size, struct voff_gso_frame *frames,
			    unsigned int cap, struct voff_gso_info *info);

/**
 * voff_gso_resegment() - split a super-packet to fit an egress's limits
 * @pkt:	the super-packet (borrowed, not modified)
 * @max_size:	the egress's gso_max_size: every output frame is shorter
 *		than this (the kernel strips GSO from frames of len >= it)
 * @max_segs:	the egress's gso_max_segs (>= 1)
 * @pool:	where the output packets come from
 * @out:	array receiving the smaller super-packets, in order
 * @cap:	entries available in @out
 *
 * Each output is a valid super-packet: the same gso_type and gso_size, its
 * own gso_segs, lengths, sequence number, IPv4 IDs (advanced by the
 * segments before it), the TCP flag rules of segmentation applied per
 * piece, and a partial L4 checksum (VOFF_CSUM_PARTIAL, pseudo-header seed)
 * as the egress completes it.  UFO is not resegmented.  Segmenting the
 * pieces gives the segments of @pkt, except that a piece of one segment is
 * a plain frame to the egress (see above: a zero TCP checksum reads 0xFFFF
 * there, 0x0000 in the segment cut from @pkt).
 *
 * Return: number of outputs; 0 when @pkt already fits (forward it as it
 * is; nothing allocated); VOFF_E_GSO_LIMIT when not even one segment fits
 * @max_size; otherwise the errors of voff_gso_segment(), with the same
 * guarantees on failure.
 * Ownership: borrows @pkt; the caller owns the returned packets.
 */
int voff_gso_resegment(const struct voff_pkt *pkt, uint32_t max_size,
		       uint32_t max_segs, struct voff_pool *pool,
		       struct voff_pkt **out, unsigned int cap);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_GSO_H */
