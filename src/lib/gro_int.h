/* SPDX-License-Identifier: MIT */
/*
 * gro_int.h - private interface between the GRO engine's files: the
 * engine's state, shared by gro.c (life cycle, the full path: flows,
 * rules, merging), gro_fast.c (the fast path, the receive entry points)
 * and gro_out.c (flushing, the output queue); the helpers both receive
 * paths inline; and the per-protocol rules (gro_tcp.c, gro_udp.c)
 *
 * gro.c parses a frame into a struct gro_seg, finds its flow and applies
 * the IP-level rules common to every protocol; the protocol's struct
 * voff__gro_ops then decides whether the segment joins the flow's head,
 * whether the train ends after it, and how a finished super-packet's L4
 * header and GSO metadata are written.  The engine reaches the ops through
 * the static const table gro_ops[] below, indexed by enum gro_l4, except
 * TCP's completion, which the flush calls directly
 * (voff__gro_tcp_complete() below).
 */
#ifndef VOFF_GRO_INT_H
#define VOFF_GRO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>

#include <voff/csum.h>
#include <voff/gro.h>
#include <voff/pkt.h>

enum gro_l4 {
	GRO_TCP = 0,
	GRO_UDP = 1,
	GRO_L4_COUNT
};

/* TCP flag bits (byte 13 of the header). */
#define GRO_TCP_FIN 0x01
#define GRO_TCP_SYN 0x02
#define GRO_TCP_RST 0x04
#define GRO_TCP_PSH 0x08
#define GRO_TCP_ACK 0x10
#define GRO_TCP_URG 0x20
#define GRO_TCP_ECE 0x40
#define GRO_TCP_CWR 0x80

/* IP-ID modes of a flow, chosen by its second segment. */
enum gro_idmode {
	GRO_ID_UNSET = 0,
	GRO_ID_INCR,
	GRO_ID_FIXED,
};

/**
 * struct gro_seg - one incoming frame, parsed
 * @data:	first byte of the frame
 * @l3_off:	IP header
 * @l4_off:	TCP/UDP header
 * @pay_off:	first payload byte
 * @l3_len:	IP datagram length from the IP header
 * @pay_len:	L4 payload bytes
 * @ver:	4 or 6
 * @l4:		enum gro_l4
 * @tcp_flags:	TCP flag byte (0 for UDP)
 * @seq:	TCP sequence number (host order)
 */
struct gro_seg {
	uint8_t *data;
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t pay_off;
	uint32_t l3_len;
	uint32_t pay_len;
	uint8_t ver;
	uint8_t l4;
	uint8_t tcp_flags;
	uint32_t seq;
};

/* Longest L2 header: Ethernet and four VLAN tags. */
#define GRO_L2_MAX 32

/* Longest header block (L2 .. end of TCP) a flow template covers. */
#define GRO_TMPL_MAX 96
#define GRO_TMPL_WORDS (GRO_TMPL_MAX / 8)

/* Flow key: address words, then one word of ports and version/protocol. */
#define GRO_KEY_WORDS 5

/**
 * struct gro_flow - a flow table entry (one held head packet)
 * @hash:	flow hash
 * @hnext:	next entry index in the hash chain, or GRO_NIL
 * @lay:	fast path: 1 + index of the template's layout in the engine,
 *		0 = no template
 * @idmode:	enum gro_idmode
 * @count:	segments in @head
 * @gso_size:	payload of the first segment
 * @first_id:	IPv4 ID of the first segment (host order)
 * @next_seq:	TCP: sequence number the next segment must carry
 * @l3_len:	current IP datagram length of @head
 * @ipsum:	IPv4: sum of the head's header words other than total length,
 *		ID and checksum (native order, unfolded)
 * @older, @newer: neighbours in the age list (GRO_NIL at the ends)
 * @head:	the held packet (first segment, payload of later ones appended)
 * @tail:	sg mode: the newest packet of the chain, which runs newest
 *		first through next to @head (whose next is NULL); else @head
 * @hprev:	previous entry index in the hash chain, GRO_NIL for the first
 * @start_ns:	time the head was taken (its age)
 * @tmpl:	fast path: the head's header block as 8-byte words, AND-ed
 *		with the layout's mask (the bytes that change per segment
 *		zeroed); valid when @lay is not 0
 * @key_len:	words of @key used (2 for IPv4, 5 for IPv6)
 * @ver:	4 or 6
 * @l4:		enum gro_l4
 * @verified:	head's checksum verified (or trusted VALID)
 * @l3_off, @l4_off, @pay_off: header offsets in @head
 * @key:	addresses, ports, version, protocol and L2 length (see
 *		gro_make_key() below), compared on lookup
 * @l2:		copy of the head's L2 header (@l3_off bytes)
 * @ipc:	copy of the head's first 12 IP header bytes
 * @tcpc:	copy of the head's TCP header from the ack on (ack, flag word
 *		of data offset, flags and window, checksum, urgent pointer,
 *		options)
 *
 * The copies let a merge decision read only this entry, not the head's
 * frame: with many flows the head is cold, and reading it cost more than
 * everything else a merge does.  A flow with a template keeps no copies:
 * its template holds the same bytes (only bytes the rules do not compare
 * are masked), see gro_flow_l2() and its neighbours.  The fields the fast
 * path reads come first: the state and age fill the first cache line, the
 * template the next two (a 16-byte load of it never straddles two lines),
 * the offsets and an IPv4 key end the third; so taking a TCP4 head with a
 * template writes three lines, not five.
 */
struct gro_flow {
	_Alignas(64) uint32_t hash;
	uint32_t hnext;
	uint8_t lay;
	uint8_t idmode;
	uint16_t count;
	uint16_t gso_size;
	uint16_t first_id;
	uint32_t next_seq;
	uint32_t l3_len;
	uint32_t ipsum;
	uint32_t older;
	struct voff_pkt *head;
	struct voff_pkt *tail;
	uint32_t newer;
	uint32_t hprev;
	uint64_t start_ns;
	_Alignas(64) uint64_t tmpl[GRO_TMPL_WORDS];
	uint8_t key_len;
	uint8_t ver;
	uint8_t l4;
	bool verified;
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t pay_off;
	uint64_t key[GRO_KEY_WORDS];
	uint8_t l2[GRO_L2_MAX];
	uint8_t ipc[12];
	uint8_t tcpc[52];
};

/* The head's L2 header (@f->l3_off bytes). */
static inline const uint8_t *gro_flow_l2(const struct gro_flow *f)
{
	return f->lay ? (const uint8_t *)f->tmpl : f->l2;
}

/* The head's first 12 IP header bytes (the length and ID may be masked). */
static inline const uint8_t *gro_flow_ip(const struct gro_flow *f)
{
	return f->lay ? (const uint8_t *)f->tmpl + f->l3_off : f->ipc;
}

/*
 * The head's TCP header from byte 8 on (the ack; the checksum may be
 * masked), up to the end of its options.
 */
static inline const uint8_t *gro_flow_tcp8(const struct gro_flow *f)
{
	return f->lay ? (const uint8_t *)f->tmpl + f->l4_off + 8 : f->tcpc;
}

#define GRO_NIL UINT32_MAX

/* Outcomes of voff__gro_ops.check(). */
enum gro_verdict {
	GRO_JOIN = 0,		/* merge into the head */
	GRO_SPLIT,		/* flush the head; the segment may start anew */
};

/**
 * struct voff__gro_ops - per-protocol rules
 * @check:	whether @s may join @f's head (IP rules already passed)
 * @can_hold:	whether @s, not merged, may become a head (else it passes)
 * @joined:	update @f and the head's L4 header after @s joined; return
 *		true when the train ends here (flush now)
 * @complete:	write the super-packet's L4 length/checksum seed and GSO
 *		type; @head has @f->count >= 2 segments
 * @csum_offset: offset of the checksum field in the L4 header
 * @max_segs:	hard limit of segments (0 = the engine's max_segs)
 */
struct voff__gro_ops {
	enum gro_verdict (*check)(const struct gro_flow *f,
				  const struct gro_seg *s);
	bool (*can_hold)(const struct gro_seg *s);
	bool (*joined)(struct gro_flow *f, const struct gro_seg *s,
		       unsigned int max_segs);
	void (*complete)(const struct gro_flow *f, struct voff_pkt *head);
	uint8_t csum_offset;
};

extern const struct voff__gro_ops voff__gro_tcp_ops;
extern const struct voff__gro_ops voff__gro_udp_ops;

/* Big-endian loads and stores on packet bytes (bounds checked by callers). */
static inline uint16_t gro_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t gro_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void gro_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * Equality of two short byte ranges (keys, L2 headers, options), inline:
 * a libc memcmp() call costs more than the compare itself at these sizes.
 */
static inline uint64_t gro_xor8(const uint8_t *a, const uint8_t *b)
{
	uint64_t x, y;

	memcpy(&x, a, 8);
	memcpy(&y, b, 8);
	return x ^ y;
}

static inline bool gro_bytes_eq(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint64_t x, y, diff = 0;
	uint32_t u, v;

	/*
	 * The common sizes first: an IPv4 key, an Ethernet header, TCP
	 * timestamps, no options.
	 */
	if (n == 0)
		return true;
	if (n == 12)
		return (gro_xor8(a, b) | gro_xor8(a + 4, b + 4)) == 0;
	if (n == 16)
		return (gro_xor8(a, b) | gro_xor8(a + 8, b + 8)) == 0;
	if (n == 14)
		return (gro_xor8(a, b) | gro_xor8(a + 6, b + 6)) == 0;
	if (n >= 8) {
		/* 8-byte words; the last one may overlap the one before. */
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			diff |= x ^ y;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return (diff | (x ^ y)) == 0;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		diff = u ^ v;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return (diff | (u ^ v)) == 0;
	}
	while (n--)
		diff |= (uint64_t)(*a++ ^ *b++);
	return diff == 0;
}

/**
 * voff__gro_l4_seed() - pseudo-header seed for a super-packet's L4 header
 * @f:		the flow (addresses from its key, version @f->ver)
 * @proto:	6 or 17
 * @l4_len:	L4 length (header and payload)
 *
 * Inline, in 8-byte words: it runs once per super-packet, and two calls
 * into csum.c cost more than the sum.
 *
 * Return: the checksum field value (memory order): the folded pseudo-header
 * sum, not complemented, as the kernel's CHECKSUM_PARTIAL expects.
 */
static inline uint16_t voff__gro_l4_seed(const struct gro_flow *f,
					 uint8_t proto, uint32_t l4_len)
{
	/*
	 * The key's first words are the addresses, loaded from the header
	 * (memory order); the protocol and length words are added as the
	 * native values of their big-endian bytes.
	 */
	uint64_t sum = (uint64_t)htonl(proto) + htonl(l4_len);

	sum += (f->key[0] & 0xFFFFFFFFu) + (f->key[0] >> 32);
	if (f->ver != 4) {
		for (unsigned int i = 1; i < 4; i++)
			sum += (f->key[i] & 0xFFFFFFFFu) + (f->key[i] >> 32);
	}
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	return (uint16_t)~voff_csum_fold((uint32_t)sum);
}

/**
 * voff__gro_tcp_complete() - TCP's complete() (see struct voff__gro_ops)
 * @f:		the flow, @f->count >= 2
 * @head:	its head packet
 *
 * Inline here so that the engine's flush calls it directly, without the
 * ops table's indirect call; gro_tcp.c's ops entry wraps it.
 */
static inline void voff__gro_tcp_complete(const struct gro_flow *f,
					  struct voff_pkt *head)
{
	uint8_t *th = voff_pkt_data(head) + f->l4_off;
	uint32_t l4_len = f->l3_len - (uint32_t)(f->l4_off - f->l3_off);
	uint16_t seed = voff__gro_l4_seed(f, 6, l4_len);
	uint32_t type;

	memcpy(th + 16, &seed, 2);
	if (f->ver == 4)
		type = f->idmode == GRO_ID_FIXED ?
		       VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID : VOFF_GSO_TCPV4;
	else
		type = VOFF_GSO_TCPV6;
	if (gro_flow_tcp8(f)[5] & GRO_TCP_CWR)	/* the head's flags */
		type |= VOFF_GSO_TCP_ECN;
	head->gso_type = type;
}

/* Protocol rules, indexed by enum gro_l4. */
static const struct voff__gro_ops *const gro_ops[GRO_L4_COUNT] = {
	[GRO_TCP] = &voff__gro_tcp_ops,
	[GRO_UDP] = &voff__gro_udp_ops,
};


/* Header layouts with templates at once (see struct gro_layout). */
#define GRO_LAYOUTS 4

/**
 * struct gro_layout - a header layout flows keep templates of
 * @hdr_len:	header bytes (the payload offset), 9 .. GRO_TMPL_MAX
 * @nw:		8-byte words covering them
 * @l3_off, @l4_off: header offsets
 * @ver:	4 or 6
 * @refs:	flows whose template has this layout (0: the slot may be reused)
 * @hk:		the constant part of hash_key() over a TCP frame of this
 *		layout: the seed terms and the tail word's version, protocol
 *		and L2 length (see fast_hash())
 * @mask:	all-ones over the bytes that must equal the head's, zero over
 *		the bytes that change per segment (IP length, ID and checksum,
 *		TCP sequence number and checksum) and after @hdr_len
 *
 * A layout is the same for every flow of one kind of traffic (Ethernet,
 * IPv4, TCP with timestamps: 66 bytes), so its mask stays in the cache
 * while the templates live in the flow entries (see gro_fast.c).
 */
struct gro_layout {
	uint16_t hdr_len;
	uint16_t nw;
	uint16_t l3_off;
	uint16_t l4_off;
	uint8_t ver;
	uint32_t refs;
	uint64_t hk;
	_Alignas(16) uint64_t mask[GRO_TMPL_WORDS];
};

/*
 * One queued output: its head and its newest packet (sg mode: segments
 * are chained newest first, each one's next pointing to the one before,
 * the head's to NULL; copy mode: the head again), its packet count and
 * the segments' payload offset, so that taking it reads no descriptor
 * before the chain's.
 */
struct gro_out {
	struct voff_pkt *head;
	struct voff_pkt *last;
	uint32_t n;
	uint32_t pay_off;
};

struct voff_gro {
	struct voff_gro_config cfg;
	struct voff_pool *pool;
	struct gro_flow *flows;
	uint32_t *buckets;
	uint32_t bucket_mask;
	uint32_t *free_stk;	/* free entry indices, the next one on top */
	uint32_t free_top;
	uint32_t oldest;
	uint32_t newest;
	uint32_t last;		/* flow of the latest lookup, a cache */
	bool no_fast;		/* fast path off (voff__gro_set_fast()) */
	uint8_t nlay;		/* layouts in use */
	uint8_t guess;		/* layout tried first for an unknown frame */
	unsigned int lay_gen;	/* bumped when a layout slot is (re)written */
	bool last_hit;		/* the latest frame matched the flow before */
	uint32_t fast_last;	/* flow with a template found last, or GRO_NIL */
	const struct gro_layout *fast_lay;	/* its layout */
	struct gro_layout lay[GRO_LAYOUTS];
	unsigned int nflows;
	/*
	 * Output queue: a ring of outputs (enqueuing and finding an output
	 * follow no descriptor), and behind it, when the ring is full, a
	 * list of packets linked oldest first as super-packets leave (the
	 * overflow; new outputs join it until it is empty again).
	 */
	struct gro_out *ring;
	uint32_t ring_mask;
	uint32_t q_r;			/* next output to take (free running) */
	uint32_t q_w;			/* next free ring slot (free running) */
	struct voff_pkt *ov_head;
	struct voff_pkt *ov_tail;
	unsigned int q_len;		/* outputs queued */
	struct voff_gro_stats st;
};

/* Whether @f's head is at least flush_timeout_ns old at @now_ns. */
static inline bool gro_expired(const struct voff_gro *g,
			       const struct gro_flow *f, uint64_t now_ns)
{
	return g->cfg.flush_timeout_ns &&
	       (int64_t)(now_ns - f->start_ns) >=
		       (int64_t)g->cfg.flush_timeout_ns;
}

/**
 * voff__gro_emit() - write @f's head as an output and queue it (gro_out.c)
 * @g:		the engine
 * @f:		a held flow; the entry stays as it is
 */
void voff__gro_emit(struct voff_gro *g, const struct gro_flow *f);

/**
 * voff__gro_unlink_flow() - take @f out of the table and free it (gro.c)
 * @g:		the engine
 * @f:		a held flow, whose head is no longer the entry's (emitted)
 */
void voff__gro_unlink_flow(struct voff_gro *g, struct gro_flow *f);

/* Flush one flow: its head leaves as an output, its entry is freed. */
static inline void gro_flush_flow(struct voff_gro *g, struct gro_flow *f)
{
	voff__gro_emit(g, f);
	voff__gro_unlink_flow(g, f);
}

/**
 * voff__gro_out_free() - free every output left in the queue (gro_out.c)
 * @g:		the engine, being freed
 */
void voff__gro_out_free(struct voff_gro *g);

/* ---- shared by the full path (gro.c) and the fast path (gro_fast.c) ---- */

/* Native-order loads of packet bytes (memcpy: any alignment). */
static inline uint16_t gro_ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t gro_ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t gro_ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Last key word: the ports as loaded, version, protocol, L2 length. */
static inline uint64_t gro_key_tail(uint32_t ports, uint8_t ver,
				    uint8_t proto, uint16_t l3_off)
{
	uint32_t hi = ver | (uint32_t)proto << 8 | (uint32_t)l3_off << 16;

	return ports | (uint64_t)hi << 32;
}

/*
 * Key: the addresses as 8-byte words loaded from the header (1 for IPv4,
 * 4 for IPv6), then gro_key_tail().  The fast path builds the same words
 * with the same loads at a layout's offsets.  Returns the number of words.
 */
static inline unsigned int gro_make_key(uint64_t *key, const uint8_t *l3,
					uint8_t ver, uint8_t proto,
					uint16_t l3_off, const uint8_t *ports)
{
	unsigned int n = ver == 4 ? 1 : 4;
	const uint8_t *a = l3 + (ver == 4 ? 12 : 8);

	for (unsigned int i = 0; i < n; i++)
		key[i] = gro_ld64(a + 8 * i);
	key[n] = gro_key_tail(ports ? gro_ld32(ports) : 0, ver, proto, l3_off);
	return n + 1;
}

static inline bool gro_keys_eq(const uint64_t *a, const uint64_t *b,
			       unsigned int n)
{
	uint64_t d = (a[0] ^ b[0]) | (a[n - 1] ^ b[n - 1]);

	for (unsigned int i = 1; i + 1 < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/* Whether @pkt's L4 checksum is trusted, not to be verified. */
static inline bool gro_csum_trusted(const struct voff_pkt *pkt)
{
	return pkt->csum == VOFF_CSUM_VALID || pkt->csum == VOFF_CSUM_PARTIAL;
}

/*
 * Flow hash: each 64-bit word of the key (2 or 5 words) is offset and
 * multiplied by its own odd constant, the products summed and mixed once.
 * The products do not depend on each other, so they run in parallel: a
 * word-by-word multiply-xorshift chain cost a third of the per-packet time.
 */
static const uint64_t gro_hash_mul[GRO_KEY_WORDS] = {
	0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
	0x165667B19E3779F9ull, 0xD6E8FEB86659FD93ull,
	0xFF51AFD7ED558CCDull,
};

static inline uint32_t gro_hash_mix(uint64_t acc)
{
	acc ^= acc >> 31;
	acc *= 0x94D049BB133111EBull;
	return (uint32_t)(acc >> 32);
}

/*
 * Take a free entry for a new flow with hash @h and key @key (@kl words),
 * evicting the oldest flow when the table is full; the caller fills the
 * rest.  Inline everywhere: a call from the burst loop saves and restores
 * more than it costs.
 */
static inline __attribute__((always_inline)) struct gro_flow *
gro_new_flow(struct voff_gro *g, uint32_t h, const uint64_t *key,
	     unsigned int kl)
{
	struct gro_flow *f;
	uint32_t idx;

	if (g->nflows == g->cfg.max_flows) {
		gro_flush_flow(g, &g->flows[g->oldest]);
		g->st.evicted++;
	}
	/* A stack of indices: taking an entry reads nothing of it (its
	 * lines are only written here, the stores need not wait). */
	idx = g->free_stk[--g->free_top];
	f = &g->flows[idx];
	g->nflows++;
	f->hash = h;
	f->hnext = g->buckets[h & g->bucket_mask];
	f->hprev = GRO_NIL;
	if (f->hnext != GRO_NIL)
		g->flows[f->hnext].hprev = idx;
	g->buckets[h & g->bucket_mask] = idx;
	f->older = g->newest;
	f->newer = GRO_NIL;
	if (g->newest != GRO_NIL)
		g->flows[g->newest].newer = idx;
	else
		g->oldest = idx;
	g->newest = idx;
	/* Fixed sizes: a variable one is a libc call. */
	if (kl == 2)
		memcpy(f->key, key, 2 * sizeof(*key));
	else
		memcpy(f->key, key, GRO_KEY_WORDS * sizeof(*key));
	f->key_len = (uint8_t)kl;
	g->last = idx;
	return f;
}

/*
 * Sum of an IPv4 header's words but total length, ID and checksum (native
 * order, unfolded): a flow's ipsum.
 */
static inline uint32_t gro_ipv4_fixed_sum(const uint8_t *ip)
{
	return (uint32_t)gro_ld16(ip) + gro_ld16(ip + 6) + gro_ld16(ip + 8) +
	       gro_ld16(ip + 12) + gro_ld16(ip + 14) + gro_ld16(ip + 16) +
	       gro_ld16(ip + 18);
}

/*
 * The fields of a new head's entry @f that hold() (gro.c) and fast_take()
 * (gro_fast.c) both write, from segment @s; @ipsum: gro_ipv4_fixed_sum()
 * of its IPv4 header, 0 for IPv6.
 */
static inline __attribute__((always_inline)) void
gro_head_init(struct gro_flow *f, struct voff_pkt *pkt,
	      const struct gro_seg *s, bool verified, uint32_t ipsum,
	      uint64_t now_ns)
{
	f->head = pkt;
	f->tail = pkt;
	pkt->next = NULL;
	f->start_ns = now_ns;
	f->l3_off = s->l3_off;
	f->l4_off = s->l4_off;
	f->pay_off = s->pay_off;
	f->l3_len = s->l3_len;
	f->gso_size = (uint16_t)s->pay_len;
	f->count = 1;
	f->first_id = s->ver == 4 ? gro_get16(s->data + s->l3_off + 4) : 0;
	f->idmode = GRO_ID_UNSET;
	f->ver = s->ver;
	f->l4 = s->l4;
	f->verified = verified;
	f->next_seq = s->seq + s->pay_len;
	f->ipsum = ipsum;
}

/**
 * voff__gro_full_receive() - the full path (gro.c): parse, rules, merge
 * @gro:	the engine
 * @pkt:	a frame the fast path did not take
 * @now_ns:	its time
 * @h, @lay:	a hash of its key words at the offsets of layout @lay, when
 *		@lay >= 0 (see fast_find() in gro_fast.c)
 *
 * Return: VOFF_GRO_MERGED, VOFF_GRO_HELD or VOFF_GRO_PASS.
 * Ownership: as voff_gro_receive().
 */
int voff__gro_full_receive(struct voff_gro *gro, struct voff_pkt *pkt,
			   uint64_t now_ns, uint32_t h, int lay);

/**
 * voff__gro_set_fast() - turn the engine's fast path on or off (tests)
 * @gro:	the engine (on after voff_gro_new())
 * @on:		false: every frame takes the full path
 *
 * For the differential test of the fast path against the full path; the
 * outputs must not depend on it.  Call it with no flow held.
 */
void voff__gro_set_fast(struct voff_gro *gro, bool on);

#endif /* VOFF_GRO_INT_H */
