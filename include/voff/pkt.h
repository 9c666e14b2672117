/* SPDX-License-Identifier: MIT */
/*
 * pkt.h - packet buffers, packet pools, batches and scatter-gather views
 *
 * DOC: Theory of Operation
 *
 * A struct voff_pkt is one frame in one contiguous buffer:
 *
 *   buf                 buf+data_off          +len              buf+buf_size
 *   |<---- headroom ---->|<------- data ------->|<---- tailroom ---->|
 *
 * Offsets of headers (l2/l3/l4, inner l2/l3/l4) and of the checksum start
 * are counted from the first data byte, as a virtio_net_hdr counts them, so
 * prepending or stripping bytes in front (push/pull) shifts them: push and
 * pull keep every set offset pointing at the same header byte.
 *
 * Packets come from a struct voff_pool, created once with a fixed number of
 * buffers of one fixed size: the data path never calls malloc.  Each buffer
 * guarantees VOFF_PKT_HEADROOM bytes in front of the data after allocation,
 * enough to prepend the largest virtio_net_hdr (24 bytes) and an outer
 * Ethernet + two VLAN tags + IPv6 + UDP + Geneve header with options
 * without moving data.
 *
 * The offload metadata has virtio_net_hdr meaning:
 *  - csum: VOFF_CSUM_NONE (nothing known), VOFF_CSUM_PARTIAL (the L4
 *    checksum field holds the pseudo-header sum and must be completed by
 *    summing from csum_start and storing at csum_start + csum_offset, as
 *    VIRTIO_NET_HDR_F_NEEDS_CSUM), VOFF_CSUM_VALID (verified, as
 *    VIRTIO_NET_HDR_F_DATA_VALID);
 *  - gso_type (VOFF_GSO_* bits, the kernel's SKB_GSO_* model), gso_size
 *    (payload bytes per segment, the MSS), gso_segs.
 *
 * Ownership (docs/style.md §4): functions borrow by default.  A function that
 * consumes a packet says so and consumes it regardless of its result.
 * voff_pkt_free() is always the right way to release a packet, whatever its
 * source.
 *
 * Context: a pool and its packets belong to one thread at a time; nothing
 * here locks.  Hand packets between threads with your own queue.
 */
#ifndef VOFF_PKT_H
#define VOFF_PKT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Headroom guaranteed in front of the data of every newly allocated packet. */
#define VOFF_PKT_HEADROOM 256
/* Largest frame voff handles: a 64 KiB IP datagram plus L2 and tunnel room. */
#define VOFF_PKT_MAX_FRAME (65535 + 14 + 8 + 256)
/* Data room for a pool whose packets must hold any super-packet. */
#define VOFF_PKT_SUPER_ROOM (VOFF_PKT_MAX_FRAME + 256)
/* Offset value meaning "this header is not present". */
#define VOFF_OFF_NONE 0xFFFFu

/** enum voff_csum_state - what is known about the L4 checksum */
enum voff_csum_state {
	VOFF_CSUM_NONE = 0,	/* nothing known; verify in software */
	VOFF_CSUM_PARTIAL = 1,	/* NEEDS_CSUM: complete at csum_start/offset */
	VOFF_CSUM_VALID = 2,	/* DATA_VALID: checksums verified already */
};

/*
 * GSO type bits, with the meaning of the kernel's SKB_GSO_* flags.  A
 * packet's gso_type is a set: one base type (TCPV4, TCPV6, UDP, UDP_L4)
 * plus modifiers.  0 means "not a GSO packet".
 */
#define VOFF_GSO_TCPV4 (1u << 0)	   /* TCP over IPv4 (TSO) */
#define VOFF_GSO_DODGY (1u << 1)	   /* from an untrusted source */
#define VOFF_GSO_TCP_ECN (1u << 2)	   /* CWR on the first segment only */
#define VOFF_GSO_TCP_FIXEDID (1u << 3)	   /* keep the outer IPv4 ID fixed */
#define VOFF_GSO_TCPV6 (1u << 4)	   /* TCP over IPv6 */
#define VOFF_GSO_GRE (1u << 6)		   /* GRE encapsulation */
#define VOFF_GSO_GRE_CSUM (1u << 7)	   /* GRE with its checksum */
#define VOFF_GSO_IPXIP4 (1u << 8)	   /* IP in IPv4 */
#define VOFF_GSO_IPXIP6 (1u << 9)	   /* IP in IPv6 */
#define VOFF_GSO_UDP_TUNNEL (1u << 10)	   /* VXLAN / Geneve over UDP */
#define VOFF_GSO_UDP_TUNNEL_CSUM (1u << 11) /* ... with outer UDP checksum */
#define VOFF_GSO_PARTIAL (1u << 12)	   /* GSO_PARTIAL chunks */
#define VOFF_GSO_UDP (1u << 16)		   /* UFO: IP fragmentation */
#define VOFF_GSO_UDP_L4 (1u << 17)	   /* USO: one datagram a segment */
#define VOFF_GSO_FRAGLIST (1u << 18)	   /* list of whole frames */
#define VOFF_GSO_TCP_FIXEDID_INNER (1u << 19) /* fixed inner IPv4 ID */
#define VOFF_GSO_TCP_ACCECN (1u << 20)	   /* AccECN: CWR on every segment */

/** enum voff_pkt_source - where a packet's buffer came from */
enum voff_pkt_source {
	VOFF_PKT_SRC_POOL = 0,	/* a voff_pool buffer: free returns it */
	VOFF_PKT_SRC_EXTERNAL,	/* caller memory: free only detaches */
};

struct voff_pool;

/**
 * struct voff_pkt - one frame and its offload metadata
 * @buf:	start of the buffer (headroom begins here)
 * @buf_size:	bytes in the buffer
 * @data_off:	offset of the first data byte from @buf
 * @len:	bytes of data
 * @l2_off:	offset of the outer L2 header, or VOFF_OFF_NONE (raw IP)
 * @l3_off:	offset of the outer IP header, or VOFF_OFF_NONE
 * @l4_off:	offset of the outer TCP/UDP header, or VOFF_OFF_NONE
 * @inner_l2_off: offset of the inner Ethernet header of a tunnel, or NONE
 * @inner_l3_off: offset of the inner IP header of a tunnel, or NONE
 * @inner_l4_off: offset of the inner L4 header of a tunnel, or NONE
 * @payload_off: offset of the innermost L4 payload, or VOFF_OFF_NONE
 * @csum:	enum voff_csum_state
 * @csum_start:	with VOFF_CSUM_PARTIAL: where checksumming starts
 * @csum_offset: with VOFF_CSUM_PARTIAL: checksum field offset past start
 * @gso_type:	VOFF_GSO_* bits; 0 for a plain frame
 * @gso_size:	payload bytes per segment (MSS); 0 for a plain frame
 * @gso_segs:	number of segments, 0 when unknown
 * @hdr_len:	bytes of headers before the payload (a hint, as virtio's)
 * @source:	enum voff_pkt_source
 * @port:	receive port index, free for the application's use
 * @hash:	flow hash, 0 when not computed
 * @rx_ns:	receive time in ns, 0 when unknown: CLOCK_MONOTONIC for
 *		packets from ports, wall-clock time for capture files
 * @pool:	owning pool for VOFF_PKT_SRC_POOL, else NULL
 * @next:	link for the owner's queues; NULL in a newly allocated packet
 *
 * Fields are public to keep the data path free of calls; change @data_off
 * and @len only through the functions below, which keep the header offsets
 * consistent.
 */
struct voff_pkt {
	uint8_t *buf;
	uint32_t buf_size;
	uint32_t data_off;
	uint32_t len;
	uint16_t l2_off;
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t inner_l2_off;
	uint16_t inner_l3_off;
	uint16_t inner_l4_off;
	uint16_t payload_off;
	uint8_t csum;
	uint8_t source;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint32_t gso_type;
	uint16_t gso_size;
	uint16_t gso_segs;
	uint16_t hdr_len;
	uint32_t port;
	uint32_t hash;
	uint64_t rx_ns;
	struct voff_pool *pool;
	struct voff_pkt *next;
};

/* ---- pools --------------------------------------------------------------- */

/**
 * voff_pool_new() - create a fixed pool of packet buffers
 * @out:	receives the pool on success; untouched on failure
 * @count:	number of packets (1 .. 1<<20)
 * @data_room:	bytes of data each packet can hold after VOFF_PKT_HEADROOM
 *		(64 .. VOFF_PKT_SUPER_ROOM); a tailroom of at least 64 bytes
 *		is added so trailers and padding fit
 *
 * All memory (descriptors and buffers, buffers 64-byte aligned) is taken
 * here, once.  Allocation and free afterwards never call malloc.
 *
 * Return: 0, -EINVAL for out-of-range arguments, -ENOMEM.
 */
int voff_pool_new(struct voff_pool **out, unsigned int count,
		  unsigned int data_room);

/**
 * voff_pool_free() - destroy a pool
 * @pool:	the pool, or NULL (then nothing happens)
 *
 * Every packet of the pool must have been freed back first; packets still
 * out become dangling.  Use voff_pool_in_use() to check.
 */
void voff_pool_free(struct voff_pool *pool);

/** voff_pool_in_use() - packets of @pool currently allocated */
unsigned int voff_pool_in_use(const struct voff_pool *pool);

/** voff_pool_capacity() - total packets in @pool */
unsigned int voff_pool_capacity(const struct voff_pool *pool);

/** voff_pool_data_room() - data bytes a packet of @pool holds (no headroom) */
unsigned int voff_pool_data_room(const struct voff_pool *pool);

/**
 * voff_pkt_alloc() - take an empty packet from a pool
 * @pool:	the pool
 * @out:	receives the packet: len 0, headroom VOFF_PKT_HEADROOM, all
 *		offsets VOFF_OFF_NONE, metadata cleared
 *
 * Return: 0, or -ENOBUFS when the pool is empty (*@out untouched).
 * Ownership: the caller owns the packet and must voff_pkt_free() it.
 */
int voff_pkt_alloc(struct voff_pool *pool, struct voff_pkt **out);

/**
 * voff_pkt_alloc_bulk() - take up to @n packets at once
 * @pool:	the pool
 * @pkts:	array receiving the packets
 * @n:		packets wanted
 *
 * Return: number allocated (0 .. @n), never negative.
 * Ownership: the caller owns every returned packet.
 */
unsigned int voff_pkt_alloc_bulk(struct voff_pool *pool,
				 struct voff_pkt **pkts, unsigned int n);

/**
 * voff_pool_get_bulk() - take exactly @n packets from @pool, or none
 * @pool:	the pool
 * @pkts:	array receiving the packets, in the order voff_pkt_alloc()
 *		would hand them out one by one
 * @n:		packets wanted (0 is allowed and takes nothing)
 *
 * Each packet is in the state voff_pkt_alloc() leaves it in.  Unlike
 * voff_pkt_alloc_bulk() the call is all-or-nothing, which is what a caller
 * that needs a fixed number of buffers (a GSO output) wants, and it checks
 * the free count once instead of once per packet.
 *
 * Return: 0, or -ENOBUFS when fewer than @n packets are free (nothing
 * taken, @pkts untouched).
 * Ownership: on success the caller owns every packet of @pkts[0..@n).
 */
int voff_pool_get_bulk(struct voff_pool *pool, struct voff_pkt **pkts,
		       unsigned int n);

/**
 * voff_pool_put_bulk() - give @n packets back to @pool at once
 * @pool:	the pool most of the packets came from
 * @pkts:	the packets; NULL entries are skipped
 * @n:		entries in @pkts
 *
 * Packets of @pool go back to it without a call per packet; any other
 * packet (another pool's, an external one) is released
 * as voff_pkt_free() releases it, so the call is always correct and only
 * fastest when @pool is right.  After the call, voff_pool_get_bulk() of @n
 * hands the packets of @pool out again in the order of @pkts, as @n calls
 * of voff_pkt_free() in reverse order would.
 *
 * Ownership: consumes every packet of @pkts.
 */
void voff_pool_put_bulk(struct voff_pool *pool, struct voff_pkt **pkts,
			unsigned int n);

/**
 * voff_pkt_free() - release a packet
 * @pkt:	the packet, or NULL (then nothing happens)
 *
 * A pool packet goes back to its pool; an external packet is only reset.
 * Ownership: consumes @pkt.
 */
void voff_pkt_free(struct voff_pkt *pkt);

/**
 * voff_pkt_free_bulk() - release @n packets
 * Ownership: consumes every packet of @pkts (NULL entries are skipped).
 */
void voff_pkt_free_bulk(struct voff_pkt **pkts, unsigned int n);

/* ---- packets over caller memory ------------------------------------------ */

/**
 * voff_pkt_init_ext() - describe caller memory as a packet
 * @pkt:	the descriptor to fill (caller storage)
 * @buf:	the buffer
 * @buf_size:	its size
 * @headroom:	where the data starts in @buf (<= @buf_size)
 * @len:	bytes of data (<= @buf_size - @headroom)
 *
 * Useful to run the parser, checksums or GSO over a frame the caller holds
 * without copying.  Freeing such a packet never touches @buf.
 *
 * Return: 0 or -EINVAL.
 * Ownership: @buf stays the caller's; it must outlive @pkt's use.
 */
int voff_pkt_init_ext(struct voff_pkt *pkt, void *buf, uint32_t buf_size,
		      uint32_t headroom, uint32_t len);

/* ---- data access and resizing -------------------------------------------- */

/** voff_pkt_data() - first data byte */
static inline uint8_t *voff_pkt_data(const struct voff_pkt *pkt)
{
	return pkt->buf + pkt->data_off;
}

/** voff_pkt_headroom() - bytes free in front of the data */
static inline uint32_t voff_pkt_headroom(const struct voff_pkt *pkt)
{
	return pkt->data_off;
}

/** voff_pkt_tailroom() - bytes free after the data */
static inline uint32_t voff_pkt_tailroom(const struct voff_pkt *pkt)
{
	return pkt->buf_size - pkt->data_off - pkt->len;
}

/**
 * voff_pkt_push() - grow the data at the front by @n bytes
 * @pkt:	the packet
 * @n:		bytes to prepend
 *
 * Set header offsets and csum_start grow by @n so they keep naming the same
 * bytes.  The new bytes are not initialised.
 *
 * Return: pointer to the new first byte, or NULL when the headroom is
 * smaller than @n or when a set offset would reach VOFF_OFF_NONE, or a
 * partial checksum's csum_start or a non-zero hdr_len would pass 0xFFFF
 * (the packet is unchanged).
 * Ownership: borrows @pkt.
 */
uint8_t *voff_pkt_push(struct voff_pkt *pkt, uint32_t n);

/**
 * voff_pkt_pull() - strip @n bytes from the front
 * @pkt:	the packet
 * @n:		bytes to strip
 *
 * Offsets that pointed into the stripped bytes become VOFF_OFF_NONE (and a
 * partial checksum starting there becomes VOFF_CSUM_NONE); the others
 * shrink by @n.
 *
 * Return: pointer to the new first byte, or NULL when @n > len (unchanged).
 * Ownership: borrows @pkt.
 */
uint8_t *voff_pkt_pull(struct voff_pkt *pkt, uint32_t n);

/**
 * voff_pkt_put() - grow the data at the end by @n bytes
 * @pkt:	the packet
 * @n:		bytes to append
 *
 * Return: pointer to the first new byte (not initialised), or NULL when the
 * tailroom is smaller than @n (the packet is unchanged).
 * Ownership: borrows @pkt.
 */
uint8_t *voff_pkt_put(struct voff_pkt *pkt, uint32_t n);

/**
 * voff_pkt_trim() - cut the data to @len bytes
 * @pkt:	the packet
 * @len:	the new length
 *
 * Offsets and csum_start are not touched, even when they now point past
 * the data: callers that trim into the headers must clear them.
 *
 * Return: 0, or -EINVAL when @len exceeds the current length.
 * Ownership: borrows @pkt.
 */
int voff_pkt_trim(struct voff_pkt *pkt, uint32_t len);

/**
 * voff_pkt_set_data() - replace the packet's data with a copy of @data
 * @pkt:	the packet; its headroom is reset to VOFF_PKT_HEADROOM (or to
 *		what is available, for an external packet with less)
 * @data:	bytes to copy
 * @len:	their number
 *
 * Metadata and offsets are reset as by voff_pkt_reset().
 *
 * Return: 0, or VOFF_E_TOO_BIG when @len does not fit (packet unchanged).
 * Ownership: borrows @pkt; @data may lie in @pkt's own buffer.
 */
int voff_pkt_set_data(struct voff_pkt *pkt, const void *data, uint32_t len);

/**
 * voff_pkt_reset() - empty a packet and clear its metadata
 *
 * Data length 0, headroom back to VOFF_PKT_HEADROOM where the buffer allows,
 * offsets VOFF_OFF_NONE, checksum state NONE, no GSO.  @port, @pool,
 * @source and the buffer are kept.
 * Ownership: borrows @pkt (it is not freed).
 */
void voff_pkt_reset(struct voff_pkt *pkt);

/**
 * voff_pkt_clear_meta() - clear offsets and offload metadata, keep the data
 * Ownership: borrows @pkt.
 */
void voff_pkt_clear_meta(struct voff_pkt *pkt);

/**
 * voff_pkt_copy_meta() - copy offsets and offload metadata from @src
 *
 * Copies offsets, csum state, csum_start/offset, GSO fields, hdr_len, port,
 * hash and rx_ns.  Leaves @dst's buffer, data and pool alone.
 * Ownership: borrows both packets.
 */
void voff_pkt_copy_meta(struct voff_pkt *dst, const struct voff_pkt *src);

/**
 * voff_pkt_clone() - copy data and metadata of @src into a packet from @pool
 * @pool:	where the copy comes from
 * @src:	the packet to copy (borrowed)
 * @out:	receives the copy
 *
 * Return: 0, -ENOBUFS (pool empty) or VOFF_E_TOO_BIG (pool buffers too
 * small); *@out untouched on failure.
 * Ownership: borrows @src; the caller owns the copy.
 */
int voff_pkt_clone(struct voff_pool *pool, const struct voff_pkt *src,
		   struct voff_pkt **out);

/** voff_pkt_is_gso() - whether @pkt is a super-packet to be segmented */
static inline bool voff_pkt_is_gso(const struct voff_pkt *pkt)
{
	return pkt->gso_type != 0 && pkt->gso_size != 0;
}

/**
 * voff_pkt_csum_complete() - complete @pkt's partial checksum in software
 * @pkt:	any packet; only a VOFF_CSUM_PARTIAL one is changed
 *
 * For an egress without checksum offload, or a capture file: with
 * VOFF_CSUM_PARTIAL, sums the bytes from csum_start to the end of the
 * data (the checksum field must hold the pseudo-header seed), stores the
 * folded result at csum_start + csum_offset (a result of 0 as 0xFFFF: for
 * UDP 0 would mean "no checksum") and sets the state to VOFF_CSUM_NONE
 * with csum_start and csum_offset 0, as the kernel's skb_checksum_help()
 * does.  Other states are left alone.
 *
 * A GSO super-packet (such as voff_gro_pop() returns) gets the checksum
 * of the whole frame as it stands, which is right when its seed covers
 * the whole L4 length (as the GRO engine and the kernel's TCP write it),
 * and keeps its GSO metadata: it is still one super-packet, now with a
 * complete checksum, as a capture file stores it.  Its segments are not
 * made: voff_gso_segment() computes their checksums afresh from a packet
 * in this state.  (The kernel's skb_checksum_help() refuses GSO packets
 * instead.)  Nothing here verifies a checksum or touches the IP header's.
 *
 * Return: 0 (also when there was nothing to do), or -EINVAL when the
 * two bytes of the field do not lie inside the data past csum_start (then
 * @pkt is unchanged).
 * Ownership: borrows @pkt.
 */
int voff_pkt_csum_complete(struct voff_pkt *pkt);

/* ---- batches ------------------------------------------------------------- */

/* Packets a batch holds: a receive burst, a GSO output, a sendmmsg call. */
#define VOFF_BATCH_MAX 64

/**
 * struct voff_batch - a fixed-capacity array of packet pointers
 * @n:		packets in the batch
 * @pkts:	the packets, in order
 *
 * A batch owns the packets in it, unless the function that filled it says
 * otherwise.  voff_batch_free() releases them all.
 */
struct voff_batch {
	unsigned int n;
	struct voff_pkt *pkts[VOFF_BATCH_MAX];
};

/** voff_batch_init() - make @b empty (owns nothing) */
static inline void voff_batch_init(struct voff_batch *b)
{
	b->n = 0;
}

/** voff_batch_space() - free slots left in @b */
static inline unsigned int voff_batch_space(const struct voff_batch *b)
{
	return VOFF_BATCH_MAX - b->n;
}

/**
 * voff_batch_add() - append a packet
 * Return: 0, or -ENOSPC when full (then @pkt stays the caller's).
 * Ownership: on success the batch owns @pkt.
 */
static inline int voff_batch_add(struct voff_batch *b, struct voff_pkt *pkt)
{
	if (b->n >= VOFF_BATCH_MAX)
		return -ENOSPC;
	b->pkts[b->n++] = pkt;
	return 0;
}

/** voff_batch_free() - free every packet of @b and empty it */
void voff_batch_free(struct voff_batch *b);

/* ---- scatter-gather views ------------------------------------------------ */

/**
 * struct voff_sg - an iovec list over caller storage
 * @iov:	the caller's iovec array
 * @n:		entries used
 * @cap:	entries available in @iov
 * @len:	total bytes described
 *
 * A view never owns the bytes it points at.  GSO uses it to describe a
 * segment as a header slot plus ranges of the super-packet's payload, ready
 * for writev()/sendmmsg(), without copying payload.
 */
struct voff_sg {
	struct iovec *iov;
	unsigned int n;
	unsigned int cap;
	size_t len;
};

/** voff_sg_init() - make an empty view over @iov[0..@cap) */
void voff_sg_init(struct voff_sg *sg, struct iovec *iov, unsigned int cap);

/**
 * voff_sg_add() - append the range @base[0..@len)
 *
 * A range that directly continues the last entry extends it instead of
 * taking a new entry.  Zero-length ranges are ignored.
 *
 * Return: 0, or -ENOSPC when @cap entries are used (view unchanged).
 */
int voff_sg_add(struct voff_sg *sg, const void *base, size_t len);

/**
 * voff_sg_add_pkt() - append bytes [@off, @off+@len) of @pkt's data
 *
 * Return: 0, -EINVAL when the range is outside the data, -ENOSPC when full.
 * Ownership: borrows @pkt, which must outlive the view's use.
 */
int voff_sg_add_pkt(struct voff_sg *sg, const struct voff_pkt *pkt,
		    uint32_t off, uint32_t len);

/**
 * voff_sg_copy() - gather up to @cap bytes of the view into @dst
 *
 * Return: bytes copied (min(view length, @cap)).
 */
size_t voff_sg_copy(const struct voff_sg *sg, void *dst, size_t cap);

/**
 * voff_sg_csum() - one's complement sum of every byte of the view
 * @sg:		the view
 * @sum:	sum to continue from (0 to start)
 *
 * Entries of odd length are handled: the result equals the sum over the
 * gathered bytes.
 *
 * Return: a 32-bit partial sum (see csum.h), not folded.
 */
uint32_t voff_sg_csum(const struct voff_sg *sg, uint32_t sum);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_PKT_H */
