/* SPDX-License-Identifier: MIT */
/*
 * gro.h - generic receive offload: coalesce TCP segments and UDP datagrams
 * of one flow into super-packets, with the kernel's merge and flush rules
 *
 * DOC: Theory of Operation
 *
 * A struct voff_gro takes the frames of a receive path one by one, in
 * receive order (voff_gro_receive()), and either keeps a frame (it is held
 * as the head of its flow, or its payload was merged into the held head) or
 * hands it straight back.  Merged super-packets and held frames leave
 * through an output queue (voff_gro_pop()), in an order that never
 * reorders a flow: a frame of a flow that cannot be merged first flushes
 * that flow's held packet into the queue.  The caller therefore drains the
 * queue before delivering a frame that voff_gro_receive() handed back.
 *
 * The merge and flush rules are those of Linux 6.18.44 (docs/gro.md lists
 * each one and the tests pinning it): identical L2 header, IPv4 without
 * options or fragmentation and with a valid header checksum, equal TTL,
 * TOS and DF, the IP-ID rule (the second frame chooses fixed or
 * incrementing IDs), IPv6 flow label, traffic class, hop limit and
 * byte-identical extension headers, a valid L4 checksum, same ack, options
 * and flag word (window included), exact sequence continuity, no segment
 * longer than the first, an IP datagram of at most @max_size bytes.
 * Where the kernel reorders (frames it skips before the flow lookup are
 * delivered while their flow stays held), voff flushes the flow first.
 *
 * Flows live in a hash table (expected O(1) lookup) with at most
 * @max_flows entries, each holding one packet; when it is full the oldest
 * flow is flushed to make room.  A merge copies the new segment's payload
 * into the head packet's tailroom, verifying the checksum in the same pass
 * when it was not known to be valid.  A head whose own buffer is too small
 * moves once into a buffer of the engine's pool (super-packet room): the
 * engine allocates everything at creation and nothing per packet.  In sg
 * mode (@sg in the configuration) segments are chained instead of copied
 * and a super-packet leaves as an iovec list (voff_gro_pop_sg()).
 *
 * What it does not do: merge tunnelled (VXLAN/Geneve/GRE) traffic as such
 * (the outer UDP datagrams are merged USO-style like any other UDP flow
 * unless UDP GRO is off), merge frames that already are GSO super-packets
 * (they flush their flow and pass), reassemble IP fragments, cross 64 KiB
 * (no BIG TCP).
 *
 * Context: one thread per engine; nothing here locks.
 */
#ifndef VOFF_GRO_H
#define VOFF_GRO_H

#include <stdbool.h>
#include <stdint.h>

#include <voff/parse.h>
#include <voff/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_gro;

/* Largest merged IP datagram (tot_len, or 40 + payload_len for IPv6). */
#define VOFF_GRO_MAX_DATAGRAM 65535
/* Datagrams a UDP super-packet holds at most (the kernel's UDP_GRO_CNT_MAX). */
#define VOFF_GRO_UDP_MAX_SEGS 64
/* Segments of one super-packet in sg mode (packets chained, not copied). */
#define VOFF_GRO_SG_MAX_SEGS 64
/* Default number of flows held at once. */
#define VOFF_GRO_DEFAULT_FLOWS 64

/**
 * struct voff_gro_config - engine parameters (zero fields take defaults)
 * @start:	VOFF_PARSE_ETH for Ethernet frames, VOFF_PARSE_IP for raw IP
 *		(TUN)
 * @max_flows:	flows held at once (0 = VOFF_GRO_DEFAULT_FLOWS, at most
 *		1 << 16); each holds one packet
 * @pool_size:	super-packet buffers of the engine (0 = @max_flows + 64);
 *		merged packets handed to the caller keep theirs until freed
 * @max_size:	largest merged IP datagram in bytes (0 = 65535; values
 *		above 65535 are refused); the kernel's gro_max_size - 1
 * @max_segs:	largest TCP segment count of a super-packet (0 = 65535)
 * @flush_timeout_ns: 0 = voff_gro_flush() flushes everything (flush at the
 *		end of each receive batch); else it flushes flows whose head
 *		is at least this old (gro_flush_timeout)
 * @no_udp:	do not coalesce UDP (kernel default without UDP_GRO sockets
 *		or rx-udp-gro-forwarding)
 * @hash_seed:	seed of the flow hash (0 = a fixed default)
 * @sg:		scatter-gather mode: merged segments are kept as packets
 *		chained behind the head instead of copied into it, and
 *		voff_gro_pop_sg() describes a super-packet as an iovec list
 *		(head frame, then each later segment's payload) for writev()
 *		or a vring; @max_segs is then at most VOFF_GRO_SG_MAX_SEGS
 */
struct voff_gro_config {
	enum voff_parse_start start;
	unsigned int max_flows;
	unsigned int pool_size;
	unsigned int max_size;
	unsigned int max_segs;
	uint64_t flush_timeout_ns;
	bool no_udp;
	uint32_t hash_seed;
	bool sg;
};

/**
 * struct voff_gro_stats - counters since creation
 * @in:		frames given to voff_gro_receive()
 * @passed:	frames handed back (not held, not merged)
 * @merged:	frames whose payload joined a held head
 * @held:	frames that became the head of a flow
 * @out:	packets put into the output queue (super-packets and heads)
 * @out_merged:	of those, super-packets (two segments or more)
 * @evicted:	flows flushed to make room for a new flow
 * @csum_bad:	frames refused for a bad IPv4, TCP or UDP checksum
 * @no_buffer:	merges given up because the engine's pool was empty
 */
struct voff_gro_stats {
	uint64_t in;
	uint64_t passed;
	uint64_t merged;
	uint64_t held;
	uint64_t out;
	uint64_t out_merged;
	uint64_t evicted;
	uint64_t csum_bad;
	uint64_t no_buffer;
};

/**
 * voff_gro_new() - create an engine
 * @out:	receives the engine; untouched on failure
 * @cfg:	parameters, or NULL for all defaults (Ethernet frames)
 *
 * Allocates the flow table and the pool of super-packet buffers (about
 * 66 KiB each, @pool_size of them; pages are touched only when used).
 *
 * Return: 0, -EINVAL for out-of-range parameters, -ENOMEM.
 */
int voff_gro_new(struct voff_gro **out, const struct voff_gro_config *cfg);

/**
 * voff_gro_free() - destroy an engine
 * @gro:	the engine, or NULL (no-op)
 *
 * Frees every packet still held or queued.  Super-packets already popped
 * by the caller must have been freed before (they use the engine's pool).
 */
void voff_gro_free(struct voff_gro *gro);

/* Results of voff_gro_receive(). */
enum voff_gro_result {
	VOFF_GRO_PASS = 0,	/* handed back: the caller owns the frame */
	VOFF_GRO_HELD = 1,	/* kept as the head of its flow */
	VOFF_GRO_MERGED = 2,	/* kept: its payload joined its flow's head */
};

/**
 * voff_gro_receive() - offer the next received frame
 * @gro:	the engine
 * @pkt:	the frame, data starting at the Ethernet (or IP) header;
 *		offload state from the receive path (csum VALID or PARTIAL
 *		are trusted, NONE is verified in software)
 * @now_ns:	the caller's clock (any monotonic nanoseconds); a held flow
 *		at least flush_timeout_ns old is flushed before @pkt is looked
 *		at, and a new head is stamped with @now_ns
 *
 * Frames of the same flow must come in receive order.  Packets flushed by
 * this call (the flow of @pkt, an evicted flow, an expired flow) are
 * appended to the output queue.
 *
 * Return: VOFF_GRO_HELD or VOFF_GRO_MERGED when the engine kept @pkt;
 * VOFF_GRO_PASS when it did not: then drain the queue (voff_gro_pop())
 * *before* delivering @pkt, or the flow's earlier segments would follow
 * it; -EINVAL for a NULL argument.
 * Ownership: keeps @pkt (HELD, MERGED) or returns it untouched (PASS): its
 * bytes are unchanged, only its csum state may become VOFF_CSUM_VALID when
 * the engine verified its checksums.
 */
int voff_gro_receive(struct voff_gro *gro, struct voff_pkt *pkt,
		     uint64_t now_ns);

/**
 * voff_gro_receive_burst() - offer several received frames, in order
 * @gro:	the engine
 * @pkts:	the frames, as for voff_gro_receive()
 * @n:		number of frames (at most INT_MAX)
 * @now_ns:	the caller's clock, for every frame of the burst
 *
 * Does what voff_gro_receive() on pkts[0], pkts[1], ... does, until a
 * frame is handed back, with the same results and outputs.  Seeing the
 * next frames lets the engine bring their headers and flow entries into
 * the cache ahead of time, which matters when many flows are held.
 *
 * Return: the number k of frames kept (HELD or MERGED) from the start of
 * @pkts; when k < @n, pkts[k] was handed back (PASS): drain the queue,
 * deliver pkts[k], then go on with pkts + k + 1 (pkts[k + 1..] were not
 * looked at).  -EINVAL, with nothing done, for a NULL @gro, @pkts or
 * frame, or @n above INT_MAX.
 * Ownership: as voff_gro_receive() for each frame up to pkts[k].
 */
int voff_gro_receive_burst(struct voff_gro *gro, struct voff_pkt *const *pkts,
			   unsigned int n, uint64_t now_ns);

/**
 * voff_gro_flush() - end of a receive batch: flush what is due
 * @gro:	the engine
 * @now_ns:	the caller's clock
 *
 * Without a flush timeout every held flow is flushed; with one, the flows
 * whose head is at least flush_timeout_ns old, oldest first.
 *
 * Return: number of packets appended to the output queue.
 */
unsigned int voff_gro_flush(struct voff_gro *gro, uint64_t now_ns);

/**
 * voff_gro_flush_all() - flush every held flow, oldest first
 * Return: number of packets appended to the output queue.
 */
unsigned int voff_gro_flush_all(struct voff_gro *gro);

/**
 * voff_gro_pop() - take the next packet of the output queue
 *
 * A super-packet (two or more segments) has csum VOFF_CSUM_PARTIAL with the
 * pseudo-header sum in the TCP/UDP checksum field (csum_start = l4_off,
 * csum_offset 16 or 6), rewritten IP lengths and IPv4 header checksum,
 * gso_type VOFF_GSO_TCPV4 (+VOFF_GSO_TCP_FIXEDID for fixed IDs) or
 * VOFF_GSO_TCPV6 (+VOFF_GSO_TCP_ECN when the head carries CWR) or
 * VOFF_GSO_UDP_L4, gso_size the first segment's payload, gso_segs the
 * count, hdr_len the header bytes.  A head that merged nothing leaves as a
 * plain frame (gso_type 0), VOFF_CSUM_VALID when its checksum was verified
 * or trusted valid.  l2/l3/l4 and payload offsets are set on both.
 * For an egress without checksum offload (or a capture file),
 * voff_pkt_csum_complete() writes the full checksum of either.
 *
 * In sg mode a chained super-packet is copied into one engine buffer here
 * (use voff_gro_pop_sg() to avoid the copy); NULL is then also returned
 * when no engine buffer is free.
 *
 * Return: the packet, or NULL when the queue is empty.
 * Ownership: the caller owns the returned packet (voff_pkt_free() it).
 */
struct voff_pkt *voff_gro_pop(struct voff_gro *gro);

/**
 * voff_gro_pop_sg() - take the next output as a scatter-gather list
 * @gro:	the engine (any mode; in copy mode every output is one packet)
 * @sg:		view receiving the bytes: the head frame (all headers
 *		rewritten for the whole super-packet, and the first payload),
 *		then the payload of each later segment
 * @pkts:	receives the packets the view points into, head first; the
 *		head carries the super-packet's metadata (gso_*, csum_*) but
 *		its @len is its own frame only: the total is @sg->len
 * @cap:	entries of @pkts (VOFF_GRO_SG_MAX_SEGS is always enough)
 *
 * Return: packets taken (0 when the queue is empty), or -ENOSPC when
 * @pkts or @sg has too few free entries (nothing taken).
 * Ownership: the caller owns every packet of @pkts and frees each with
 * voff_pkt_free() once the bytes have been used.
 */
int voff_gro_pop_sg(struct voff_gro *gro, struct voff_sg *sg,
		    struct voff_pkt **pkts, unsigned int cap);

/**
 * voff_gro_drain() - move queued packets into a batch, in order
 * Return: packets moved (up to voff_batch_space(@b)).
 * Ownership: the batch owns the packets moved into it.
 */
unsigned int voff_gro_drain(struct voff_gro *gro, struct voff_batch *b);

/** voff_gro_pending() - packets waiting in the output queue */
unsigned int voff_gro_pending(const struct voff_gro *gro);

/** voff_gro_held() - flows currently holding a packet */
unsigned int voff_gro_held(const struct voff_gro *gro);

/**
 * voff_gro_next_deadline() - when the oldest held flow becomes due
 * @gro:	the engine
 * @out_ns:	receives the time (head time + flush_timeout_ns)
 *
 * Return: true when a flow is held (then *@out_ns is set), else false.
 */
bool voff_gro_next_deadline(const struct voff_gro *gro, uint64_t *out_ns);

/**
 * voff_gro_set_flush_timeout() - change gro_flush_timeout at run time
 *
 * Takes effect at the next call; held flows keep their head time.
 */
void voff_gro_set_flush_timeout(struct voff_gro *gro, uint64_t ns);

/**
 * voff_gro_set_max_size() - change the largest merged datagram at run time
 * @gro:	the engine
 * @max_size:	as @max_size of struct voff_gro_config: the largest merged
 *		IP datagram in bytes, 0 = 65535, at most VOFF_GRO_MAX_DATAGRAM
 *
 * As the kernel's gro_max_size, the value bounds only merges to come: a
 * flow already held is neither cut nor flushed here, even when it is
 * larger than the new value.  The next segment of such a flow finds no
 * room, so the flow is flushed as it is and that segment becomes the head
 * of a new one; a flush (voff_gro_flush()) delivers it as it is too.
 * Nothing is allocated, freed or flushed by this call.
 *
 * Return: 0, or -EINVAL for a NULL @gro or a @max_size above
 * VOFF_GRO_MAX_DATAGRAM (the engine is then unchanged).
 */
int voff_gro_set_max_size(struct voff_gro *gro, unsigned int max_size);

/** voff_gro_stats() - copy the engine's counters into @out */
void voff_gro_stats(const struct voff_gro *gro, struct voff_gro_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_GRO_H */
