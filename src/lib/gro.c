/* SPDX-License-Identifier: MIT */
/*
 * gro.c - the GRO engine: frame parsing, the flow table, IP-level merge
 * rules, payload merging and flushing; TCP and UDP rules are in gro_tcp.c
 * and gro_udp.c, reached through the ops table below (TCP's completion
 * directly, from gro_int.h)
 *
 * DOC: Theory of Operation
 *
 * A TCP frame with a trusted checksum is first tried on the fast path
 * (below: its flow found by the previous frame's flow or a hash of its
 * key words at fixed offsets, a masked compare with the flow's template of
 * the head's headers, four field checks); any other frame, and any frame
 * the fast path declines, goes through four steps:
 *
 *  1. parse(): a single bounds-checked pass over Ethernet, up to four VLAN
 *     tags, IPv4 or IPv6 (hop-by-hop, routing and destination options
 *     skipped), TCP or UDP.  It sorts the frame into: not ours (pass, no
 *     flow touched); a non-first fragment (every held flow with its
 *     addresses and protocol is flushed, since its ports are unknown); a
 *     flow frame that must not be merged (IPv4 options, a fragment, a bad
 *     IPv4 header checksum, Ethernet padding, UDP without checksum, a GSO
 *     input...: its flow is flushed, then it passes); a candidate.
 *     The general parser (parse.h) records far more than GRO needs; this
 *     one reads only the fields below and costs a few nanoseconds.
 *
 *  2. lookup: the flow key is the IP version, protocol, L2 length,
 *     addresses and ports; a hit also needs byte-identical L2 headers (so
 *     VLANs and MACs separate flows).  Buckets are doubly chained through
 *     entry indices; entries also sit on an age list, oldest first, used
 *     for eviction when the table is full and for timed flushes.
 *
 *  3. merge rules: TTL, TOS, DF and the IP-ID rule for IPv4; the first
 *     word, next header, hop limit and extension header bytes for IPv6;
 *     then the protocol's check(); then the size and segment limits.
 *     A candidate that may join is copied into the head's tailroom with its
 *     checksum verified in the same pass (voff_csum_copy()); only when the
 *     checksum holds does the head's length grow, so a bad segment leaves
 *     the head as it was.  One that may not join flushes the flow and
 *     becomes the new head, or passes (pure ACK, PSH/FIN/RST/SYN/URG).
 *
 *  4. flush: a head with one segment leaves as it came (DATA_VALID when
 *     verified); a longer one gets its IP length, IPv4 header checksum, L4
 *     pseudo-header seed and GSO metadata written, and is queued.
 *
 * Payload placement, two modes.  Copy mode (the default) appends each
 * payload to the head: a flat super-packet is what every consumer takes
 * (TAP write with a vnet header, AF_PACKET, a pcap file, the GSO engine)
 * and it frees with one voff_pkt_free().  A head moves once into an engine
 * buffer when its own buffer lacks the tailroom; a receive pool with
 * super-packet room never pays that move.  Sg mode chains the segment
 * packets to the flow instead, newest first (each new segment's next
 * points to the one before, so a merge writes only the new segment's
 * descriptor): no payload is touched, and voff_gro_pop_sg() hands out an
 * iovec list, oldest first; it is what makes GRO cheaper than the copy it
 * saves (docs/bench-gro.md).  The output queue is a ring of outputs (head
 * and newest packet), with a list behind it for when the ring is full.
 *
 * Merge decisions read the flow entry only (its template of the head's
 * headers, or for a flow without one its copies of the head's L2, IP and
 * TCP fields), never the head's frame, which is cold when many flows are
 * held; the head's bytes are written once, when it is flushed.  A new
 * flow's frame whose header has a known layout is held without the parse
 * (fast_hold()).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <voff/csum.h>
#include <voff/gro.h>

#include "gro_int.h"

#define MAX_VLAN 4
#define MAX_FLOWS_LIMIT (1u << 16)
#define MAX_V6_EXT 8

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
 * while the templates live in the flow entries.  See fast_receive().
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

/* What parse() found. */
enum cls {
	C_NONE,		/* not a TCP/UDP flow frame we handle: pass */
	C_FRAG,		/* fragment without ports: flush by addresses, pass */
	C_SKIP,		/* flow frame never merged: flush its flow, pass */
	C_CAND,		/* candidate for merging */
};

static unsigned int run_len(const struct voff_gro *g);
static void take_out(struct voff_gro *g, struct voff_pkt **pkts,
		     unsigned int n);
static void tmpl_build(struct voff_gro *g, struct gro_flow *f,
		       const struct gro_seg *s);

/* ---- configuration and life cycle ---------------------------------------- */

static int fill_config(struct voff_gro_config *c,
		       const struct voff_gro_config *in)
{
	if (in)
		*c = *in;
	else
		memset(c, 0, sizeof(*c));
	if (c->start != VOFF_PARSE_ETH && c->start != VOFF_PARSE_IP)
		return -EINVAL;
	if (!c->max_flows)
		c->max_flows = VOFF_GRO_DEFAULT_FLOWS;
	if (c->max_flows > MAX_FLOWS_LIMIT)
		return -EINVAL;
	if (!c->pool_size)
		c->pool_size = c->max_flows + VOFF_BATCH_MAX;
	if (!c->max_size)
		c->max_size = VOFF_GRO_MAX_DATAGRAM;
	if (c->max_size > VOFF_GRO_MAX_DATAGRAM)
		return -EINVAL;
	if (!c->max_segs || c->max_segs > 65535)
		c->max_segs = 65535;
	if (c->sg && c->max_segs > VOFF_GRO_SG_MAX_SEGS)
		c->max_segs = VOFF_GRO_SG_MAX_SEGS;
	if (!c->hash_seed)
		c->hash_seed = 0x7A3C9E15u;
	return 0;
}

int voff_gro_new(struct voff_gro **out, const struct voff_gro_config *cfg)
{
	struct voff_gro *g;
	uint32_t nb = 1, nr = 16;
	int err;

	if (!out)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	err = fill_config(&g->cfg, cfg);
	if (err)
		goto err_cfg;
	while (nb < 2 * g->cfg.max_flows)
		nb <<= 1;
	err = -ENOMEM;
	g->flows = aligned_alloc(_Alignof(struct gro_flow),
				 g->cfg.max_flows * sizeof(*g->flows));
	if (!g->flows)
		goto err_flows;
	memset(g->flows, 0, g->cfg.max_flows * sizeof(*g->flows));
	g->buckets = malloc(nb * sizeof(*g->buckets));
	if (!g->buckets)
		goto err_buckets;
	g->free_stk = malloc(g->cfg.max_flows * sizeof(*g->free_stk));
	if (!g->free_stk)
		goto err_free_stk;
	/* Room for a flush of every flow at once. */
	while (nr < g->cfg.max_flows)
		nr <<= 1;
	g->ring = malloc(nr * sizeof(*g->ring));
	if (!g->ring)
		goto err_ring;
	g->ring_mask = nr - 1;
	err = voff_pool_new(&g->pool, g->cfg.pool_size, VOFF_PKT_SUPER_ROOM);
	if (err)
		goto err_pool;
	g->bucket_mask = nb - 1;
	for (uint32_t i = 0; i < nb; i++)
		g->buckets[i] = GRO_NIL;
	/* Entries are taken from the top: 0, 1, 2... at first. */
	for (uint32_t i = 0; i < g->cfg.max_flows; i++)
		g->free_stk[i] = g->cfg.max_flows - 1 - i;
	g->free_top = g->cfg.max_flows;
	g->oldest = GRO_NIL;
	g->newest = GRO_NIL;
	g->last = GRO_NIL;
	g->fast_last = GRO_NIL;
	*out = g;
	return 0;

err_pool:
	free(g->ring);
err_ring:
	free(g->free_stk);
err_free_stk:
	free(g->buckets);
err_buckets:
	free(g->flows);
err_flows:
err_cfg:
	free(g);
	return err;
}

void voff_gro_free(struct voff_gro *gro)
{
	struct voff_pkt *p[VOFF_GRO_SG_MAX_SEGS];

	if (!gro)
		return;
	voff_gro_flush_all(gro);
	while (gro->q_len) {
		unsigned int n = run_len(gro);

		take_out(gro, p, n);
		voff_pkt_free_bulk(p, n);
	}
	voff_pool_free(gro->pool);
	free(gro->ring);
	free(gro->free_stk);
	free(gro->buckets);
	free(gro->flows);
	free(gro);
}

/* ---- parsing ----------------------------------------------------------- */

/* Native-order loads of packet bytes (memcpy: any alignment). */
static inline uint16_t ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Last key word: the ports as loaded, version, protocol, L2 length. */
static inline uint64_t key_tail(uint32_t ports, uint8_t ver, uint8_t proto,
				uint16_t l3_off)
{
	uint32_t hi = ver | (uint32_t)proto << 8 | (uint32_t)l3_off << 16;

	return ports | (uint64_t)hi << 32;
}

/*
 * Key: the addresses as 8-byte words loaded from the header (1 for IPv4,
 * 4 for IPv6), then key_tail().  The fast path builds the same words with
 * the same loads at a layout's offsets.  Returns the number of words.
 */
static unsigned int make_key(uint64_t *key, const uint8_t *l3, uint8_t ver,
			     uint8_t proto, uint16_t l3_off,
			     const uint8_t *ports)
{
	unsigned int n = ver == 4 ? 1 : 4;
	const uint8_t *a = l3 + (ver == 4 ? 12 : 8);

	for (unsigned int i = 0; i < n; i++)
		key[i] = ld64(a + 8 * i);
	key[n] = key_tail(ports ? ld32(ports) : 0, ver, proto, l3_off);
	return n + 1;
}

static bool keys_eq(const uint64_t *a, const uint64_t *b, unsigned int n)
{
	uint64_t d = (a[0] ^ b[0]) | (a[n - 1] ^ b[n - 1]);

	for (unsigned int i = 1; i + 1 < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/* L2: Ethernet and VLAN tags; the L3 offset and version, or 0. */
static uint8_t parse_l2(const uint8_t *d, uint32_t len,
			enum voff_parse_start st, uint16_t *l3_off)
{
	uint32_t off = 12;
	uint16_t type;

	if (st == VOFF_PARSE_IP) {
		*l3_off = 0;
		return len ? d[0] >> 4 : 0;
	}
	for (int tags = 0;; tags++) {
		if (off + 2 > len)
			return 0;
		type = gro_get16(d + off);
		if (type != 0x8100 && type != 0x88A8)
			break;
		if (tags == MAX_VLAN)
			return 0;
		off += 4;
	}
	*l3_off = (uint16_t)(off + 2);
	if (type == 0x0800)
		return 4;
	if (type == 0x86DD)
		return 6;
	return 0;
}

/* L4 header of a candidate (or skipped) segment; C_SKIP when malformed. */
static inline enum cls parse_l4(struct gro_seg *s, uint32_t end, bool cand)
{
	const uint8_t *l4 = s->data + s->l4_off;
	uint32_t room = end - s->l4_off;

	if (s->l4 == GRO_TCP) {
		unsigned int doff;

		if (room < 20)
			return C_SKIP;
		doff = (unsigned int)(l4[12] >> 4) * 4;
		if (doff < 20 || doff > room)
			return C_SKIP;
		s->pay_off = (uint16_t)(s->l4_off + doff);
		s->pay_len = end - s->pay_off;
		s->tcp_flags = l4[13];
		s->seq = gro_get32(l4 + 4);
		return cand ? C_CAND : C_SKIP;
	}
	if (room < 8 || gro_get16(l4 + 4) != room || room <= 8 ||
	    gro_get16(l4 + 6) == 0)
		return C_SKIP;
	s->pay_off = (uint16_t)(s->l4_off + 8);
	s->pay_len = room - 8;
	s->tcp_flags = 0;
	s->seq = 0;
	return cand ? C_CAND : C_SKIP;
}

static bool want_proto(const struct voff_gro *g, uint8_t proto, uint8_t *l4)
{
	if (proto == 6) {
		*l4 = GRO_TCP;
		return true;
	}
	if (proto == 17 && !g->cfg.no_udp) {
		*l4 = GRO_UDP;
		return true;
	}
	return false;
}

/* IPv4 header checksum of a 20-byte header, inline (see csum.h). */
static inline bool ipv4_hdr_ok(const uint8_t *ip)
{
	uint64_t a, b;
	uint32_t c;
	uint64_t sum;

	/* Three direct loads: a copy into a stack array stalls forwarding. */
	memcpy(&a, ip, 8);
	memcpy(&b, ip + 8, 8);
	memcpy(&c, ip + 16, 4);
	sum = (a & 0xFFFFFFFFu) + (a >> 32) + (b & 0xFFFFFFFFu) + (b >> 32) + c;
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	sum = (sum & 0xFFFFFFFFu) + (sum >> 32);
	return voff_csum_fold((uint32_t)sum) == 0;
}

static enum cls parse_v4(const struct voff_gro *g, struct gro_seg *s,
			 uint32_t avail, uint64_t *key, unsigned int *kl,
			 bool *bad_csum)
{
	const uint8_t *ip = s->data + s->l3_off;
	unsigned int ihl;
	uint16_t frag;
	bool cand = true;

	if (avail < 20 || ip[0] >> 4 != 4)
		return C_NONE;
	ihl = (unsigned int)(ip[0] & 15) * 4;
	s->l3_len = gro_get16(ip + 2);
	if (ihl < 20 || s->l3_len < ihl || s->l3_len > avail)
		return C_NONE;
	if (!want_proto(g, ip[9], &s->l4))
		return C_NONE;
	frag = gro_get16(ip + 6);
	s->l4_off = (uint16_t)(s->l3_off + ihl);
	if ((frag & 0x1FFF) || s->l3_len - ihl < 4) {
		*kl = make_key(key, ip, 4, ip[9], s->l3_off, NULL);
		return C_FRAG;
	}
	*kl = make_key(key, ip, 4, ip[9], s->l3_off, ip + ihl);
	if (ihl != 20 || (frag & 0xA000) || s->l3_len != avail)
		cand = false;
	else if (!ipv4_hdr_ok(ip)) {
		*bad_csum = true;
		cand = false;
	}
	return parse_l4(s, s->l3_off + s->l3_len, cand);
}

static enum cls parse_v6(const struct voff_gro *g, struct gro_seg *s,
			 uint32_t avail, uint64_t *key, unsigned int *kl)
{
	const uint8_t *ip = s->data + s->l3_off;
	uint32_t off = 40, end;
	uint8_t nh;

	if (avail < 40 || ip[0] >> 4 != 6)
		return C_NONE;
	end = 40 + (uint32_t)gro_get16(ip + 4);
	if (end > avail)
		return C_NONE;
	s->l3_len = end;
	nh = ip[6];
	for (int n = 0;; n++) {
		uint32_t elen;

		if (nh == 44) {
			/* A fragment: never merged; ports only in the first. */
			uint8_t next;

			if (off + 8 > end)
				return C_NONE;
			next = ip[off];
			if (!want_proto(g, next, &s->l4))
				return C_NONE;
			*kl = make_key(key, ip, 6, next, s->l3_off, NULL);
			if ((gro_get16(ip + off + 2) & 0xFFF8) || off + 12 > end)
				return C_FRAG;
			*kl = make_key(key, ip, 6, next, s->l3_off,
				       ip + off + 8);
			return C_SKIP;
		}
		if (nh != 0 && nh != 43 && nh != 60)
			break;
		if (n == MAX_V6_EXT || off + 8 > end)
			return C_NONE;
		elen = ((uint32_t)ip[off + 1] + 1) * 8;
		if (elen > end - off)
			return C_NONE;
		nh = ip[off];
		off += elen;
	}
	if (!want_proto(g, nh, &s->l4) || end - off < 4)
		return C_NONE;
	s->l4_off = (uint16_t)(s->l3_off + off);
	*kl = make_key(key, ip, 6, nh, s->l3_off, ip + off);
	return parse_l4(s, s->l3_off + end, end == avail);
}

/* Sort @pkt (see enum cls) and fill @s and the flow key. */
static enum cls parse(const struct voff_gro *g, struct voff_pkt *pkt,
		      struct gro_seg *s, uint64_t *key, unsigned int *kl,
		      bool *bad_csum)
{
	enum cls c;
	uint32_t avail;

	s->data = voff_pkt_data(pkt);
	if (pkt->len > 0xFFFF + 64)
		return C_NONE;
	s->ver = parse_l2(s->data, pkt->len, g->cfg.start, &s->l3_off);
	avail = pkt->len - s->l3_off;
	if (s->ver == 4)
		c = parse_v4(g, s, avail, key, kl, bad_csum);
	else if (s->ver == 6)
		c = parse_v6(g, s, avail, key, kl);
	else
		return C_NONE;
	/* Super-packets from a GSO-capable source are not merged again. */
	if (c == C_CAND && (voff_pkt_is_gso(pkt) || pkt->gso_type))
		c = C_SKIP;
	return c;
}

/* ---- checksums ----------------------------------------------------------- */

static uint32_t pseudo(const uint8_t *l3, uint8_t ver, uint8_t proto,
		       uint32_t l4_len)
{
	if (ver == 4)
		return voff_csum_pseudo_v4(l3 + 12, l3 + 16, proto, l4_len);
	return voff_csum_pseudo_v6(l3 + 8, l3 + 24, proto, l4_len);
}

static bool csum_trusted(const struct voff_pkt *pkt)
{
	return pkt->csum == VOFF_CSUM_VALID || pkt->csum == VOFF_CSUM_PARTIAL;
}

/* Pseudo-header plus L4 header sum of @s (the payload not included). */
static uint32_t l4_head_sum(const struct gro_seg *s)
{
	uint32_t l4_len = s->l3_off + s->l3_len - s->l4_off;
	uint8_t proto = s->l4 == GRO_TCP ? 6 : 17;
	uint32_t sum = pseudo(s->data + s->l3_off, s->ver, proto, l4_len);

	return voff_csum(s->data + s->l4_off, s->pay_off - s->l4_off, sum);
}

static bool l4_csum_ok(const struct gro_seg *s)
{
	uint32_t sum = l4_head_sum(s);

	sum = voff_csum(s->data + s->pay_off, s->pay_len, sum);
	return voff_csum_fold(sum) == 0;
}

/* ---- flow table -------------------------------------------------------- */

/*
 * Flow hash: each 64-bit word of the key (2 or 5 words) is offset and
 * multiplied by its own odd constant, the products summed and mixed once.
 * The products do not depend on each other, so they run in parallel: a
 * word-by-word multiply-xorshift chain cost a third of the per-packet time.
 */
static const uint64_t hash_mul[GRO_KEY_WORDS] = {
	0x9E3779B97F4A7C15ull, 0xC2B2AE3D27D4EB4Full,
	0x165667B19E3779F9ull, 0xD6E8FEB86659FD93ull,
	0xFF51AFD7ED558CCDull,
};

static inline uint32_t hash_mix(uint64_t acc)
{
	acc ^= acc >> 31;
	acc *= 0x94D049BB133111EBull;
	return (uint32_t)(acc >> 32);
}

static uint32_t hash_key(const uint64_t *key, unsigned int kl, uint32_t seed)
{
	uint64_t acc = seed;

	for (unsigned int i = 0; i < kl; i++)
		acc += (key[i] + seed) * hash_mul[i];
	return hash_mix(acc);
}

static struct gro_flow *lookup(struct voff_gro *g, uint32_t h,
			       const uint64_t *key, unsigned int kl,
			       const struct gro_seg *s)
{
	uint32_t i = g->buckets[h & g->bucket_mask];

	while (i != GRO_NIL) {
		struct gro_flow *f = &g->flows[i];

		if (f->hash == h && f->key_len == kl &&
		    keys_eq(f->key, key, kl) &&
		    gro_bytes_eq(gro_flow_l2(f), s->data, s->l3_off))
			return f;
		i = f->hnext;
	}
	return NULL;
}

/*
 * Find the flow of @s, trying the flow of the previous lookup first: a
 * receive burst mostly brings runs of one flow, and a hit skips the hash.
 * *@h receives the key's hash (needed to insert a new flow); with @have_h
 * it holds it already.
 */
static struct gro_flow *find(struct voff_gro *g, const uint64_t *key,
			     unsigned int kl, const struct gro_seg *s,
			     uint32_t *h, bool have_h)
{
	struct gro_flow *f;

	if (g->last != GRO_NIL) {
		f = &g->flows[g->last];
		if (f->head && f->key_len == kl &&
		    keys_eq(f->key, key, kl) &&
		    gro_bytes_eq(gro_flow_l2(f), s->data, s->l3_off)) {
			*h = f->hash;
			return f;
		}
	}
	if (!have_h)
		*h = hash_key(key, kl, g->cfg.hash_seed);
	f = lookup(g, *h, key, kl, s);
	if (f)
		g->last = (uint32_t)(f - g->flows);
	return f;
}

static void unlink_flow(struct voff_gro *g, struct gro_flow *f)
{
	uint32_t idx = (uint32_t)(f - g->flows);

	if (f->lay) {
		g->lay[f->lay - 1].refs--;
		f->lay = 0;
	}
	if (g->fast_last == idx)
		g->fast_last = GRO_NIL;
	/* Doubly linked: no walk over other (cold) entries of the chain. */
	if (f->hprev == GRO_NIL)
		g->buckets[f->hash & g->bucket_mask] = f->hnext;
	else
		g->flows[f->hprev].hnext = f->hnext;
	if (f->hnext != GRO_NIL)
		g->flows[f->hnext].hprev = f->hprev;
	if (f->older != GRO_NIL)
		g->flows[f->older].newer = f->newer;
	else
		g->oldest = f->newer;
	if (f->newer != GRO_NIL)
		g->flows[f->newer].older = f->older;
	else
		g->newest = f->older;
	f->head = NULL;
	g->free_stk[g->free_top++] = idx;
	g->nflows--;
}

/*
 * Append the overflow list with the output @head .. @last (the chain
 * newest first, see struct gro_out), turned oldest first: only when the
 * ring is full.
 */
static __attribute__((noinline)) void enqueue_ov(struct voff_gro *g,
						 struct voff_pkt *head,
						 struct voff_pkt *last)
{
	struct voff_pkt *p = last, *fwd = NULL;

	while (p != head) {
		struct voff_pkt *older = p->next;

		p->next = fwd;
		fwd = p;
		p = older;
	}
	head->next = fwd;
	last->next = NULL;
	if (g->ov_tail)
		g->ov_tail->next = head;
	else
		g->ov_head = head;
	g->ov_tail = last;
}

/*
 * Queue the output @head .. @last of @n packets whose segments' payload
 * starts at @pay_off (see struct gro_out).
 */
static void enqueue(struct voff_gro *g, struct voff_pkt *head,
		    struct voff_pkt *last, uint32_t n, uint32_t pay_off)
{
	if (!g->ov_head && g->q_w - g->q_r <= g->ring_mask) {
		struct gro_out *o = &g->ring[g->q_w++ & g->ring_mask];

		o->head = head;
		o->last = last;
		o->n = n;
		o->pay_off = pay_off;
	} else {
		enqueue_ov(g, head, last);
	}
	g->q_len++;
	g->st.out++;
}

/* Rewrite a multi-segment head's headers into a valid super-packet. */
static inline void finish_super(const struct gro_flow *f, struct voff_pkt *hd)
{
	uint8_t *ip = voff_pkt_data(hd) + f->l3_off;
	uint16_t len, c;

	if (f->ver == 4) {
		/*
		 * The head's other header words are summed in f->ipsum, its
		 * ID is first_id: the cold frame is written, not read.
		 */
		len = htons((uint16_t)f->l3_len);
		memcpy(ip + 2, &len, 2);
		c = voff_csum_fold(f->ipsum + len + htons(f->first_id));
		memcpy(ip + 10, &c, 2);
	} else {
		len = htons((uint16_t)(f->l3_len - 40));
		memcpy(ip + 4, &len, 2);
	}
	/* TCP directly: an indirect call costs more than its work. */
	if (f->l4 == GRO_TCP) {
		voff__gro_tcp_complete(f, hd);
		hd->csum_offset = 16;
	} else {
		gro_ops[f->l4]->complete(f, hd);
		hd->csum_offset = gro_ops[f->l4]->csum_offset;
	}
	hd->gso_size = f->gso_size;
	hd->gso_segs = f->count;
	hd->csum = VOFF_CSUM_PARTIAL;
	hd->csum_start = f->l4_off;
}

/*
 * Write @f's head as an output (not queued); the entry stays as it is.
 * @l2_off is the engine's (l2_off_of()), loaded once per flush.
 *
 * Return: 1 for a super-packet, else 0 (for the out_merged counter).
 */
static inline unsigned int write_out(const struct gro_flow *f,
				     struct voff_pkt *hd, uint16_t l2_off)
{
	hd->l2_off = l2_off;
	hd->l3_off = f->l3_off;
	hd->l4_off = f->l4_off;
	hd->payload_off = f->pay_off;
	hd->hdr_len = f->pay_off;
	if (f->count >= 2) {
		finish_super(f, hd);
		return 1;
	}
	hd->gso_type = 0;
	hd->gso_size = 0;
	hd->gso_segs = 0;
	if (f->verified && hd->csum == VOFF_CSUM_NONE)
		hd->csum = VOFF_CSUM_VALID;
	return 0;
}

/* The outputs' l2_off. */
static inline uint16_t l2_off_of(const struct voff_gro *g)
{
	return g->cfg.start == VOFF_PARSE_ETH ? 0 : VOFF_OFF_NONE;
}

/* Write @f's head as an output and queue it; the entry stays as it is. */
static void emit_flow(struct voff_gro *g, const struct gro_flow *f)
{
	struct voff_pkt *hd = f->head;

	g->st.out_merged += write_out(f, hd, l2_off_of(g));
	if (g->cfg.sg)
		enqueue(g, hd, f->tail, f->count, f->pay_off);
	else
		enqueue(g, hd, hd, 1, f->pay_off);
}

static void flush_flow(struct voff_gro *g, struct gro_flow *f)
{
	emit_flow(g, f);
	unlink_flow(g, f);
}

/* Flush every held flow with the addresses and protocol of @key. */
static void flush_addrs(struct voff_gro *g, const uint64_t *key,
			unsigned int kl)
{
	uint32_t i = g->oldest;

	while (i != GRO_NIL) {
		struct gro_flow *f = &g->flows[i];

		i = f->newer;
		if (f->key_len == kl && keys_eq(f->key, key, kl - 1) &&
		    f->key[kl - 1] >> 32 == key[kl - 1] >> 32)
			flush_flow(g, f);
	}
}

static inline __attribute__((always_inline)) struct gro_flow *
new_flow(struct voff_gro *g, uint32_t h, const uint64_t *key, unsigned int kl)
{
	struct gro_flow *f;
	uint32_t idx;

	if (g->nflows == g->cfg.max_flows) {
		flush_flow(g, &g->flows[g->oldest]);
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

/* ---- merging ------------------------------------------------------------ */

/* IP-level rules; on GRO_JOIN *@mode is the flow's IP-ID mode after @s. */
static enum gro_verdict check_ip(const struct gro_flow *f,
				 const struct gro_seg *s, uint8_t *mode)
{
	const uint8_t *c = gro_flow_ip(f);
	const uint8_t *n = s->data + s->l3_off;
	const uint8_t *h;

	*mode = f->idmode;
	if (f->ver == 4) {
		uint16_t step;

		if (c[1] != n[1] || c[8] != n[8] || ((c[6] ^ n[6]) & 0x40))
			return GRO_SPLIT;
		step = (uint16_t)(gro_get16(n + 4) - f->first_id);
		if (f->count == 1)
			*mode = step == 0 ? GRO_ID_FIXED : GRO_ID_INCR;
		if (step != (*mode == GRO_ID_FIXED ? 0 : (uint16_t)f->count))
			return GRO_SPLIT;
		return GRO_JOIN;
	}
	if (memcmp(c, n, 4) != 0 || c[6] != n[6] || c[7] != n[7])
		return GRO_SPLIT;
	if (s->l4_off - s->l3_off != f->l4_off - f->l3_off)
		return GRO_SPLIT;
	/* Extension headers are rare: compare them in the head's frame. */
	h = voff_pkt_data(f->head) + f->l3_off;
	if (!gro_bytes_eq(h + 40, n + 40, (size_t)(f->l4_off - f->l3_off - 40)))
		return GRO_SPLIT;
	return GRO_JOIN;
}

/* Give @f's head enough tailroom for @n more bytes. */
static bool make_room(struct voff_gro *g, struct gro_flow *f, uint32_t n)
{
	struct voff_pkt *old = f->head, *np;

	if (voff_pkt_tailroom(old) >= n)
		return true;
	if (voff_pkt_alloc(g->pool, &np) != 0) {
		g->st.no_buffer++;
		return false;
	}
	memcpy(voff_pkt_data(np), voff_pkt_data(old), old->len);
	np->len = old->len;
	voff_pkt_copy_meta(np, old);
	voff_pkt_free(old);
	np->next = NULL;
	f->head = np;
	f->tail = np;
	return voff_pkt_tailroom(np) >= n;
}

enum merge_res {
	M_DONE,
	M_BAD_CSUM,
	M_NO_ROOM,
};

/* Copy mode: append @s's payload to the head, verifying on the way. */
static enum merge_res merge_copy(struct voff_gro *g, struct gro_flow *f,
				 struct voff_pkt *pkt, const struct gro_seg *s)
{
	struct voff_pkt *hd;
	uint8_t *dst;

	if (!make_room(g, f, s->pay_len))
		return M_NO_ROOM;
	hd = f->head;
	dst = voff_pkt_data(hd) + hd->len;
	if (csum_trusted(pkt)) {
		memcpy(dst, s->data + s->pay_off, s->pay_len);
	} else {
		uint32_t sum = voff_csum_copy(dst, s->data + s->pay_off,
					      s->pay_len, l4_head_sum(s));

		if (voff_csum_fold(sum) != 0)
			return M_BAD_CSUM;
	}
	hd->len += s->pay_len;
	return M_DONE;
}

/*
 * Sg mode: chain @pkt to the flow (its headers equal the head's), newest
 * first: only @pkt's descriptor is written, not the cold one before it.
 */
static enum merge_res merge_chain(struct gro_flow *f, struct voff_pkt *pkt,
				  const struct gro_seg *s)
{
	if (!csum_trusted(pkt) && !l4_csum_ok(s))
		return M_BAD_CSUM;
	pkt->next = f->tail;
	f->tail = pkt;
	return M_DONE;
}

static enum merge_res merge(struct voff_gro *g, struct gro_flow *f,
			    struct voff_pkt *pkt, const struct gro_seg *s,
			    uint8_t mode)
{
	const struct voff__gro_ops *ops = gro_ops[f->l4];
	enum merge_res r;

	if (g->cfg.sg)
		r = merge_chain(f, pkt, s);
	else
		r = merge_copy(g, f, pkt, s);
	if (r != M_DONE)
		return r;
	f->l3_len += s->pay_len;
	f->count++;
	f->idmode = mode;
	if (!g->cfg.sg)
		voff_pkt_free(pkt);
	if (ops->joined(f, s, g->cfg.max_segs))
		flush_flow(g, f);
	return M_DONE;
}

/*
 * Keep the head's compared fields in the entry (see gro_int.h), for a flow
 * without a template.
 */
static void copy_fields(struct gro_flow *f, const struct gro_seg *s)
{
	const uint8_t *ip = s->data + s->l3_off;
	const uint8_t *th = s->data + s->l4_off;

	/*
	 * Fixed-size copies where the frame is long enough (a variable
	 * size is a libc call); bytes past the field are never compared.
	 * An Ethernet frame here holds at least 28 bytes after L2.
	 */
	if (s->l3_off)
		memcpy(f->l2, s->data, GRO_L2_MAX);
	memcpy(f->ipc, ip, 12);
	if (s->l4 == GRO_TCP) {
		memcpy(f->tcpc, th + 8, 12);
		if (s->l3_off + s->l3_len >= s->l4_off + 60u)
			memcpy(f->tcpc + 12, th + 20, 40);
		else
			memcpy(f->tcpc + 12, th + 20,
			       (size_t)(s->pay_off - s->l4_off - 20));
	}
}

/*
 * Sum of an IPv4 header's words but total length, ID and checksum (native
 * order, unfolded): a flow's ipsum.
 */
static inline uint32_t ipv4_fixed_sum(const uint8_t *ip)
{
	return (uint32_t)ld16(ip) + ld16(ip + 6) + ld16(ip + 8) +
	       ld16(ip + 12) + ld16(ip + 14) + ld16(ip + 16) + ld16(ip + 18);
}

/*
 * The fields of a new head's entry @f that hold() and fast_take() both
 * write, from segment @s; @ipsum: ipv4_fixed_sum() of its IPv4 header, 0
 * for IPv6.
 */
static inline __attribute__((always_inline)) void
head_init(struct gro_flow *f, struct voff_pkt *pkt, const struct gro_seg *s,
	  bool verified, uint32_t ipsum, uint64_t now_ns)
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

static void hold(struct voff_gro *g, struct voff_pkt *pkt,
		 const struct gro_seg *s, const uint64_t *key, unsigned int kl,
		 uint32_t h, uint64_t now_ns, bool verified)
{
	struct gro_flow *f = new_flow(g, h, key, kl);

	head_init(f, pkt, s, verified,
		  s->ver == 4 ? ipv4_fixed_sum(s->data + s->l3_off) : 0,
		  now_ns);
	tmpl_build(g, f, s);
	if (!f->lay)
		copy_fields(f, s);
	g->st.held++;
}

static int pass(struct voff_gro *g, struct voff_pkt *pkt, bool verified)
{
	if (verified && pkt->csum == VOFF_CSUM_NONE)
		pkt->csum = VOFF_CSUM_VALID;
	g->st.passed++;
	return VOFF_GRO_PASS;
}

static bool expired(const struct voff_gro *g, const struct gro_flow *f,
		    uint64_t now_ns)
{
	return g->cfg.flush_timeout_ns &&
	       (int64_t)(now_ns - f->start_ns) >=
		       (int64_t)g->cfg.flush_timeout_ns;
}

/* ---- the fast path ------------------------------------------------------ */

/*
 * The common case of a receive burst is the next in-sequence segment of a
 * held flow.  Its header block then equals the flow's head byte for byte,
 * except the IP length, IPv4 ID and header checksum and the TCP sequence
 * number and checksum.  fast_receive() checks exactly that with a few
 * masked 8-byte compares against the flow's template (the head's header
 * block, kept in the flow entry when the head is taken), then the
 * changing fields against the flow's state, instead of parsing and
 * applying each rule.
 *
 * The flow is found without parsing: the flow of the previous frame if
 * the frame's ports match its template, else the key words read at the
 * fixed offsets of the layout seen last (make_key() on those offsets:
 * the same words and hash as the full path's), hashed, and the bucket's
 * entries of that layout compared.  The template compare then proves
 * the guess: a template holds the addresses, ports, version and protocol.
 *
 * It accepts only frames the full path would merge with the same effect:
 * equal bytes mean the same layout (L2, IHL, extension headers, data
 * offset: so the same offsets and flow key) and equal compared fields
 * (TTL, TOS, DF and fragment bits, flow label, ack, flag word, options);
 * the IPv4 header checksum is checked from the head's sum of the fixed
 * words; the checksum must be trusted (VALID or PARTIAL), no FIN/PSH (the
 * flag byte is compared whole, and a head holds none of the flags that
 * end a train), no CWR (a CWR head gets no template), no expiry, room in
 * the limits and, in copy mode, in the head's buffer.  Anything else takes
 * the full path, which is always right.
 */

/* Whether layout @L describes @s's header block. */
static bool layout_is(const struct gro_layout *L, const struct gro_seg *s)
{
	return L->hdr_len == s->pay_off && L->l3_off == s->l3_off &&
	       L->l4_off == s->l4_off && L->ver == s->ver;
}

/*
 * hash_key() is linear in the key words before its final mix: with the
 * seed S and the multipliers m[i], the sum is S + sum((w[i] + S) * m[i]).
 * For a TCP frame of a given layout every term but the address words and
 * the ports is fixed (the tail word's upper half, the seed terms), so the
 * fast path adds a per-layout constant to the products of the variable
 * words (modulo 2^64: the same value as hash_key()).
 */
static uint64_t layout_hash_const(const struct voff_gro *g, uint8_t ver,
				  uint16_t l3_off)
{
	uint64_t seed = g->cfg.hash_seed, k = seed;
	unsigned int na = ver == 4 ? 1 : 4;

	for (unsigned int i = 0; i < na; i++)
		k += seed * hash_mul[i];
	return k + (key_tail(0, ver, 6, l3_off) + seed) * hash_mul[na];
}

/*
 * Index of the layout of @s's header block: an existing one, a new one, or
 * one no flow uses any more; -1 when all are taken.
 */
static int layout_of(struct voff_gro *g, const struct gro_seg *s)
{
	uint8_t m[GRO_TMPL_MAX];
	unsigned int n = s->pay_off;
	struct gro_layout *L;
	int free_slot = -1;

	for (int i = 0; i < g->nlay; i++) {
		if (layout_is(&g->lay[i], s))
			return i;
		if (!g->lay[i].refs && free_slot < 0)
			free_slot = i;
	}
	if (g->nlay < GRO_LAYOUTS)
		free_slot = g->nlay++;
	if (free_slot < 0)
		return -1;
	L = &g->lay[free_slot];
	g->lay_gen++;
	memset(m, 0xFF, n);
	if (s->ver == 4) {
		memset(m + s->l3_off + 2, 0, 4);	/* length, ID */
		memset(m + s->l3_off + 10, 0, 2);	/* header checksum */
	} else {
		memset(m + s->l3_off + 4, 0, 2);	/* payload length */
	}
	memset(m + s->l4_off + 4, 0, 4);		/* sequence number */
	memset(m + s->l4_off + 16, 0, 2);		/* checksum */
	memset(m + n, 0, GRO_TMPL_MAX - n);
	memcpy(L->mask, m, GRO_TMPL_MAX);
	L->nw = (uint16_t)((n + 7) / 8);
	L->hdr_len = (uint16_t)n;
	L->l3_off = s->l3_off;
	L->l4_off = s->l4_off;
	L->ver = s->ver;
	L->hk = layout_hash_const(g, s->ver, s->l3_off);
	return free_slot;
}

/* Give the new head of @f (segment @s) a template, when it may have one. */
static void tmpl_build(struct voff_gro *g, struct gro_flow *f,
		       const struct gro_seg *s)
{
	const struct gro_layout *L;
	int li;

	f->lay = 0;
	if (g->no_fast || s->l4 != GRO_TCP || s->pay_off > GRO_TMPL_MAX ||
	    (s->tcp_flags & GRO_TCP_CWR))
		return;
	li = layout_of(g, s);
	if (li < 0)
		return;
	L = &g->lay[li];
	if (s->l3_off + s->l3_len >= GRO_TMPL_MAX) {
		/* Direct loads: a copy read back in words stalls. */
		for (unsigned int i = 0; i < GRO_TMPL_WORDS; i++)
			f->tmpl[i] = ld64(s->data + 8 * i) & L->mask[i];
	} else {
		uint8_t pad[GRO_TMPL_MAX];

		memset(pad, 0, sizeof(pad));
		memcpy(pad, s->data, L->hdr_len);
		for (unsigned int i = 0; i < GRO_TMPL_WORDS; i++)
			f->tmpl[i] = ld64(pad + 8 * i) & L->mask[i];
	}
	g->lay[li].refs++;
	f->lay = (uint8_t)(li + 1);
	g->guess = (uint8_t)li;
	g->fast_last = (uint32_t)(f - g->flows);
	g->fast_lay = L;
}

/* tmpl_eq() for a frame of at most GRO_TMPL_MAX bytes: a padded copy. */
static __attribute__((noinline)) bool tmpl_eq_short(const struct gro_layout *L,
						    const struct gro_flow *f,
						    const struct voff_pkt *pkt,
						    const uint8_t *d)
{
	uint8_t pad[GRO_TMPL_MAX];
	uint64_t diff = 0;

	if (pkt->len <= L->hdr_len)
		return false;
	memset(pad, 0, sizeof(pad));
	memcpy(pad, d, pkt->len < GRO_TMPL_MAX ? pkt->len : GRO_TMPL_MAX);
	for (unsigned int i = 0; i < L->nw; i++)
		diff |= (ld64(pad + 8 * i) & L->mask[i]) ^ f->tmpl[i];
	return diff == 0;
}

/* Two 8-byte words (the compiler's vector extension: one SSE register). */
typedef uint64_t gro_v2 __attribute__((vector_size(16)));

/*
 * Whether @pkt is longer than @L's header and its first bytes match @f's
 * template: the whole template is compared, 16 bytes at a time, the mask
 * zeroing the bytes after the header; a fixed count of vector operations
 * costs less than a loop sized by the header.
 */
static inline bool tmpl_eq(const struct gro_layout *L,
			   const struct gro_flow *f, const struct voff_pkt *pkt,
			   const uint8_t *d)
{
	gro_v2 diff = { 0, 0 }, w, m, t;

	if (pkt->len <= GRO_TMPL_MAX)
		return tmpl_eq_short(L, f, pkt, d);
	for (unsigned int i = 0; i < GRO_TMPL_WORDS - 2; i += 2) {
		memcpy(&w, d + 8 * i, 16);
		memcpy(&m, &L->mask[i], 16);
		memcpy(&t, &f->tmpl[i], 16);
		diff |= (w & m) ^ t;
	}
	/* The last 16 bytes only when the header reaches them (IPv6). */
	if (L->nw > GRO_TMPL_WORDS - 2) {
		memcpy(&w, d + GRO_TMPL_MAX - 16, 16);
		memcpy(&m, &L->mask[GRO_TMPL_WORDS - 2], 16);
		memcpy(&t, &f->tmpl[GRO_TMPL_WORDS - 2], 16);
		diff |= (w & m) ^ t;
	}
	return (diff[0] | diff[1]) == 0;
}

/*
 * Merge @pkt, whose header matched @f's template, when the changing fields
 * and the limits allow; false (nothing changed) when the full path must
 * decide.
 */
static inline bool fast_merge(struct voff_gro *g, struct gro_flow *f,
		       const struct gro_layout *L, struct voff_pkt *pkt,
		       const uint8_t *d, uint64_t now_ns)
{
	const uint8_t *ip = d + L->l3_off;
	uint32_t pay_len = pkt->len - L->hdr_len;
	uint32_t l3_len = pkt->len - L->l3_off;
	uint8_t mode = f->idmode;

	if (pay_len > f->gso_size || f->l3_len + pay_len > g->cfg.max_size ||
	    f->count >= g->cfg.max_segs ||
	    gro_get32(d + L->l4_off + 4) != f->next_seq)
		return false;
	if (L->ver == 4) {
		uint16_t step = (uint16_t)(gro_get16(ip + 4) - f->first_id);

		if (f->count == 1)
			mode = step == 0 ? GRO_ID_FIXED : GRO_ID_INCR;
		if (step != (mode == GRO_ID_FIXED ? 0 : (uint16_t)f->count) ||
		    gro_get16(ip + 2) != l3_len ||
		    voff_csum_fold(f->ipsum + ld16(ip + 2) + ld16(ip + 4) +
				   ld16(ip + 10)) != 0)
			return false;
	} else if (gro_get16(ip + 4) != l3_len - 40) {
		return false;
	}
	if (expired(g, f, now_ns))
		return false;
	if (g->cfg.sg) {
		pkt->next = f->tail;
		f->tail = pkt;
	} else {
		struct voff_pkt *hd = f->head;

		if (voff_pkt_tailroom(hd) < pay_len)
			return false;
		memcpy(voff_pkt_data(hd) + hd->len, d + L->hdr_len, pay_len);
		hd->len += pay_len;
		voff_pkt_free(pkt);
	}
	f->idmode = mode;
	f->l3_len += pay_len;
	f->count++;
	f->next_seq += pay_len;
	g->st.in++;
	g->st.merged++;
	if (pay_len < f->gso_size || f->count >= g->cfg.max_segs)
		flush_flow(g, f);
	return true;
}

/*
 * Hash of @d's key words at the offsets of the layout @lay (the full
 * path's hash when the frame has that layout); the frame is longer than
 * the layout's header.
 */
static inline uint32_t fast_hash_at(const struct gro_layout *L,
				    const uint8_t *d)
{
	const uint8_t *ip = d + L->l3_off;
	uint64_t ports = ld32(d + L->l4_off);

	/* hash_key() over make_key()'s words, without a key in memory. */
	if (L->ver == 4)
		return hash_mix(L->hk + ld64(ip + 12) * hash_mul[0] +
				ports * hash_mul[1]);
	return hash_mix(L->hk + ld64(ip + 8) * hash_mul[0] +
			ld64(ip + 16) * hash_mul[1] +
			ld64(ip + 24) * hash_mul[2] +
			ld64(ip + 32) * hash_mul[3] + ports * hash_mul[4]);
}

static inline uint32_t fast_hash(const struct voff_gro *g, int lay,
				 const uint8_t *d)
{
	return fast_hash_at(&g->lay[lay], d);
}

/*
 * The flow whose template @pkt matches, and its layout in *@lp; NULL when
 * the full path must look.  *@lay >= 0 on entry: *@h is the hash of the
 * frame's key words at the offsets of layout *@lay (voff_gro_receive_burst()
 * computed it ahead).  Else the flow of the previous frame is tried, then
 * the hash is computed for the layout last seen; *@h and *@lay then say
 * so for the full path to reuse (or *@lay stays -1).  *@same_hash (true on
 * entry) ends false when the bucket of *@h was walked and no entry in it
 * has the hash *@h: then no flow has the frame's key (fast_hold() need
 * not look again).
 */
static inline struct gro_flow *fast_find(struct voff_gro *g,
					 struct voff_pkt *pkt,
					 const uint8_t *d,
					 const struct gro_layout **lp,
					 uint32_t *h, int *lay, bool *same_hash)
{
	const struct gro_layout *L;
	struct gro_flow *f;
	uint32_t i;

	g->last_hit = false;
	if (!g->nlay || !csum_trusted(pkt) || pkt->gso_type)
		return NULL;
	if (*lay < 0) {
		if (g->fast_last != GRO_NIL) {
			f = &g->flows[g->fast_last];
			L = g->fast_lay;
			if (tmpl_eq(L, f, pkt, d)) {
				g->last_hit = true;
				*lp = L;
				return f;
			}
		}
		if (pkt->len <= g->lay[g->guess].hdr_len)
			return NULL;
		*lay = g->guess;
		*h = fast_hash(g, *lay, d);
	}
	L = &g->lay[*lay];
	*same_hash = false;
	for (i = g->buckets[*h & g->bucket_mask]; i != GRO_NIL; i = f->hnext) {
		f = &g->flows[i];
		*same_hash |= f->hash == *h;
		if (f->hash == *h && f->lay == *lay + 1 &&
		    tmpl_eq(L, f, pkt, d)) {
			/* The same flow as the frame before: a run. */
			g->last_hit = g->fast_last == i;
			g->last = i;
			g->fast_last = i;
			g->fast_lay = L;
			*lp = L;
			return f;
		}
	}
	return NULL;
}

/*
 * Whether @d's L2 header has @L's shape: for Ethernet, VLAN TPIDs up to
 * @L->l3_off - 2 and there the ethertype of @L's IP version (parse_l2()'s
 * reading); for raw IP nothing (the version is checked with the header).
 */
static inline bool l2_shape_is(const struct gro_layout *L, const uint8_t *d)
{
	unsigned int off;

	if (!L->l3_off)
		return true;
	for (off = 12; off + 2 < L->l3_off; off += 4) {
		uint16_t t = gro_get16(d + off);

		if (t != 0x8100 && t != 0x88A8)
			return false;
	}
	return gro_get16(d + off) == (L->ver == 4 ? 0x0800 : 0x86DD);
}

/*
 * hold() for fast_hold(): @pkt (frame @d) has layout @lay, TCP, and the
 * full path would hold it; @ipsum is its ipv4_fixed_sum(), summed
 * already.  The entry ends up as hold() leaves it, but for template
 * words past the ones tmpl_eq() compares (no one reads them): the
 * template is built from the layout known already (no layout_of(), no
 * parse) in 16-byte words.  Inline, like new_flow(): a call from the
 * burst loop saves and restores more than it costs.
 */
static inline __attribute__((always_inline)) void
fast_take(struct voff_gro *g, struct voff_pkt *pkt, const uint8_t *d, int lay,
	  const uint64_t *key, unsigned int kl, uint32_t h, uint32_t ipsum,
	  uint64_t now_ns)
{
	struct gro_layout *L = &g->lay[lay];
	struct gro_flow *f = new_flow(g, h, key, kl);
	unsigned int nv = L->nw > GRO_TMPL_WORDS - 2 ? GRO_TMPL_WORDS / 2
						      : GRO_TMPL_WORDS / 2 - 1;
	const struct gro_seg s = {
		.data = (uint8_t *)d,
		.l3_off = L->l3_off,
		.l4_off = L->l4_off,
		.pay_off = L->hdr_len,
		.l3_len = pkt->len - L->l3_off,
		.pay_len = pkt->len - L->hdr_len,
		.ver = L->ver,
		.l4 = GRO_TCP,
		.seq = gro_get32(d + L->l4_off + 4),
	};

	head_init(f, pkt, &s, pkt->csum != VOFF_CSUM_PARTIAL, ipsum, now_ns);
	if (pkt->len >= GRO_TMPL_MAX) {
		for (unsigned int i = 0; i < nv; i++) {
			gro_v2 w, m;

			memcpy(&w, d + 16 * i, 16);
			memcpy(&m, &L->mask[2 * i], 16);
			w &= m;
			memcpy(&f->tmpl[2 * i], &w, 16);
		}
	} else {
		uint8_t pad[GRO_TMPL_MAX];

		memset(pad, 0, sizeof(pad));
		memcpy(pad, d, L->hdr_len);
		for (unsigned int i = 0; i < GRO_TMPL_WORDS; i++)
			f->tmpl[i] = ld64(pad + 8 * i) & L->mask[i];
	}
	L->refs++;
	f->lay = (uint8_t)(lay + 1);
	g->guess = (uint8_t)lay;
	g->fast_last = (uint32_t)(f - g->flows);
	g->fast_lay = L;
	g->st.held++;
}

/*
 * A frame of a new flow, found by no flow of layout @lay's bucket @h: take
 * it as a head without parsing when its header has the layout (which the
 * full path's parse would find: the same offsets, the key words the hash
 * was made of) and the full path would hold it: IPv4 without options,
 * fragment bits or padding and with a valid header checksum, or IPv6
 * without extension headers and padding; TCP data offset of the layout,
 * payload, no flag that ends a train, no CWR (its head takes no
 * template), and no flow of the same key (one whose template did not
 * match, or without a template: looked for only when @same_hash, see
 * fast_find()).  False: nothing changed, the full path decides.
 */
static inline __attribute__((always_inline)) bool
fast_hold(struct voff_gro *g, struct voff_pkt *pkt, const uint8_t *d, int lay,
	  uint32_t h, bool same_hash, uint64_t now_ns)
{
	const struct gro_layout *L = &g->lay[lay];
	const uint8_t *ip = d + L->l3_off, *th = d + L->l4_off;
	uint32_t avail = pkt->len - L->l3_off;
	uint64_t key[GRO_KEY_WORDS];
	uint32_t i, ipsum = 0;
	unsigned int kl;

	if (pkt->len > 0xFFFF + 64 || pkt->len <= L->hdr_len ||
	    (th[13] & (GRO_TCP_CWR | GRO_TCP_URG | GRO_TCP_PSH |
		       GRO_TCP_RST | GRO_TCP_SYN | GRO_TCP_FIN)) ||
	    (unsigned int)(th[12] >> 4) * 4 !=
		    (unsigned int)(L->hdr_len - L->l4_off) ||
	    !csum_trusted(pkt) || pkt->gso_type || !l2_shape_is(L, d))
		return false;
	if (L->ver == 4) {
		/* The header checksum, and the head's sum for later. */
		ipsum = ipv4_fixed_sum(ip);
		if (ip[0] != 0x45 || ip[9] != 6 || gro_get16(ip + 2) != avail ||
		    (gro_get16(ip + 6) & 0xBFFF) ||
		    voff_csum_fold(ipsum + ld16(ip + 2) + ld16(ip + 4) +
				   ld16(ip + 10)) != 0)
			return false;
	} else if (ip[0] >> 4 != 6 || ip[6] != 6 ||
		   L->l4_off - L->l3_off != 40 ||
		   40u + gro_get16(ip + 4) != avail) {
		return false;
	}
	kl = make_key(key, ip, L->ver, 6, L->l3_off, th);
	for (i = same_hash ? g->buckets[h & g->bucket_mask] : GRO_NIL;
	     i != GRO_NIL; i = g->flows[i].hnext) {
		const struct gro_flow *f = &g->flows[i];

		if (f->hash == h && f->key_len == kl &&
		    keys_eq(f->key, key, kl))
			return false;
	}
	g->st.in++;
	fast_take(g, pkt, d, lay, key, kl, h, ipsum, now_ns);
	return true;
}

void voff__gro_set_fast(struct voff_gro *gro, bool on)
{
	gro->no_fast = !on;
}

/* Every frame the fast path did not merge; @h and @lay: see fast_find(). */
static __attribute__((noinline)) int full_receive(struct voff_gro *gro,
						  struct voff_pkt *pkt,
						  uint64_t now_ns, uint32_t h,
						  int lay)
{
	struct gro_seg s;
	struct gro_flow *f;
	uint64_t key[GRO_KEY_WORDS];
	uint8_t mode;
	unsigned int kl = 0;
	bool bad_ip = false, ok;
	enum cls c;

	gro->st.in++;
	c = parse(gro, pkt, &s, key, &kl, &bad_ip);
	if (c == C_NONE)
		return pass(gro, pkt, false);
	if (c == C_FRAG) {
		flush_addrs(gro, key, kl);
		return pass(gro, pkt, false);
	}
	/* The fast path's hash is this key's when the layout was the same. */
	if (lay >= 0 && (c != C_CAND || s.l4 != GRO_TCP ||
			 gro->lay[lay].l3_off != s.l3_off ||
			 gro->lay[lay].l4_off != s.l4_off ||
			 gro->lay[lay].ver != s.ver))
		lay = -1;
	f = find(gro, key, kl, &s, &h, lay >= 0);
	if (f && expired(gro, f, now_ns)) {
		flush_flow(gro, f);
		f = NULL;
	}
	if (c == C_SKIP) {
		if (f)
			flush_flow(gro, f);
		gro->st.csum_bad += bad_ip;
		return pass(gro, pkt, false);
	}
	if (f && check_ip(f, &s, &mode) == GRO_JOIN &&
	    gro_ops[s.l4]->check(f, &s) == GRO_JOIN &&
	    f->l3_len + s.pay_len <= gro->cfg.max_size &&
	    f->count < gro->cfg.max_segs) {
		switch (merge(gro, f, pkt, &s, mode)) {
		case M_DONE:
			gro->st.merged++;
			return VOFF_GRO_MERGED;
		case M_BAD_CSUM:
			flush_flow(gro, f);
			gro->st.csum_bad++;
			return pass(gro, pkt, false);
		case M_NO_ROOM:
			break;
		}
	}
	ok = csum_trusted(pkt) || l4_csum_ok(&s);
	if (f)
		flush_flow(gro, f);
	if (!ok) {
		gro->st.csum_bad++;
		return pass(gro, pkt, false);
	}
	if (!gro_ops[s.l4]->can_hold(&s))
		return pass(gro, pkt, pkt->csum == VOFF_CSUM_NONE);
	hold(gro, pkt, &s, key, kl, h, now_ns, pkt->csum != VOFF_CSUM_PARTIAL);
	return VOFF_GRO_HELD;
}

/* One frame; @h and @lay: a hash computed ahead, see fast_find(). */
static inline __attribute__((always_inline)) int
receive_one(struct voff_gro *gro, struct voff_pkt *pkt, uint64_t now_ns,
	    uint32_t h, int lay)
{
	const struct gro_layout *L = NULL;

	if (!gro->no_fast) {
		const uint8_t *d = voff_pkt_data(pkt);
		bool same_hash = true;
		struct gro_flow *f = fast_find(gro, pkt, d, &L, &h, &lay,
					       &same_hash);

		if (f && fast_merge(gro, f, L, pkt, d, now_ns))
			return VOFF_GRO_MERGED;
		if (!f && lay >= 0 &&
		    fast_hold(gro, pkt, d, lay, h, same_hash, now_ns))
			return VOFF_GRO_HELD;
	}
	return full_receive(gro, pkt, now_ns, h, lay);
}

int voff_gro_receive(struct voff_gro *gro, struct voff_pkt *pkt,
		     uint64_t now_ns)
{
	if (!gro || !pkt)
		return -EINVAL;
	return receive_one(gro, pkt, now_ns, 0, -1);
}

/*
 * The burst is walked with a prefetch pipeline: PF_DIST frames ahead the
 * frame's header lines are fetched; PF_DIST / 2 ahead its key words are
 * hashed for the layout last seen and the bucket fetched; PF_DIST / 4
 * ahead the first entry of that bucket.  By the time a frame's turn comes
 * its header, bucket and (most likely) flow entry are in the cache, and
 * its hash is known.  The hashes ahead are dropped when a layout slot is
 * (re)written (lay_gen).  While frames continue the flow of the one before
 * (a run), nothing is hashed or fetched ahead: fast_find() finds the flow
 * without a hash.
 */
#define PF_DIST 16
#define PF_RING 16

static inline void pf_frame(const struct voff_pkt *p)
{
	const uint8_t *d = voff_pkt_data(p);

	__builtin_prefetch(d);
	__builtin_prefetch(d + 64);
}

/*
 * The pipeline's work for frame @i: fetch ahead, hash ahead, fetch the
 * entry ahead.  @tail: near the end of the burst, where the frames ahead
 * may not exist (the main part of a burst skips those checks).
 */
static inline __attribute__((always_inline)) void
pf_stage(struct voff_gro *gro, struct voff_pkt *const *pkts, unsigned int n,
	 unsigned int i, uint32_t *hr, int8_t *lr, bool tail)
{
	unsigned int j = i + PF_DIST / 2, k = i + PF_DIST / 4;
	int8_t lj = -1;

	/* In a run of one flow the previous flow is tried first and found:
	 * no hash needed, nor the frames' lines ahead. */
	if (!gro->last_hit && gro->nlay) {
		if (!tail || i + 2 * PF_DIST < n)
			__builtin_prefetch(pkts[i + 2 * PF_DIST]);
		if (!tail || i + PF_DIST < n)
			pf_frame(pkts[i + PF_DIST]);
		/*
		 * The hash needs only the frame to be longer than the
		 * layout's header; whether the fast path takes the frame is
		 * its own decision (a hash of a frame it does not take is
		 * wasted, not wrong: the full path uses it only for the same
		 * layout).
		 */
		if (!tail || j < n) {
			const struct gro_layout *G = &gro->lay[gro->guess];
			const struct voff_pkt *pj = pkts[j];

			if (pj->len > G->hdr_len) {
				uint32_t hj = fast_hash_at(G,
							   voff_pkt_data(pj));

				hr[j % PF_RING] = hj;
				lj = (int8_t)gro->guess;
				__builtin_prefetch(&gro->buckets[hj &
							gro->bucket_mask]);
			}
		}
	}
	lr[j % PF_RING] = lj;
	if ((!tail || k < n) && lr[k % PF_RING] >= 0) {
		uint32_t b = gro->buckets[hr[k % PF_RING] & gro->bucket_mask];

		if (b != GRO_NIL) {
			const uint8_t *e = (const uint8_t *)&gro->flows[b];

			__builtin_prefetch(e);
			__builtin_prefetch(e + 64);
			__builtin_prefetch(e + 128);
		}
	}
}

int voff_gro_receive_burst(struct voff_gro *gro, struct voff_pkt *const *pkts,
			   unsigned int n, uint64_t now_ns)
{
	uint32_t hr[PF_RING];
	int8_t lr[PF_RING];
	unsigned int i, gen;

	if (!gro || (!pkts && n) || n > INT_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!pkts[i])
			return -EINVAL;
	if (gro->no_fast) {
		for (i = 0; i < n; i++)
			if (receive_one(gro, pkts[i], now_ns, 0, -1) ==
			    VOFF_GRO_PASS)
				return (int)i;
		return (int)n;
	}
	gen = gro->lay_gen;
	memset(lr, -1, sizeof(lr));
	for (i = 0; i < n && i < PF_DIST; i++)
		pf_frame(pkts[i]);
	for (i = 0; i < n; i++) {
		int lay, r;

		if (i + 2 * PF_DIST < n)
			pf_stage(gro, pkts, n, i, hr, lr, false);
		else
			pf_stage(gro, pkts, n, i, hr, lr, true);
		lay = lr[i % PF_RING];
		r = receive_one(gro, pkts[i], now_ns,
				lay >= 0 ? hr[i % PF_RING] : 0, lay);
		if (r == VOFF_GRO_PASS)
			return (int)i;
		/* A layout slot was (re)written: the hashes ahead may be of
		 * its old layout. */
		if (gro->lay_gen != gen) {
			gen = gro->lay_gen;
			memset(lr, -1, sizeof(lr));
		}
	}
	return (int)n;
}

/* ---- flushing and output ------------------------------------------------ */

/*
 * Every flow leaves, oldest first.  The entries are not unlinked one by
 * one (that writes their neighbours in the hash chains and the age list,
 * cold entries when many flows are held): each one's bucket is emptied,
 * and the lists and layout counts are reset at the end.  When the ring
 * has room for every flow (always, unless outputs were left in the
 * queue), the outputs go straight into it, without enqueue()'s checks.
 * The walk is inlined once per mode (@direct, @sg constant).
 */
static inline __attribute__((always_inline)) unsigned int
flush_walk(struct voff_gro *gro, bool direct, bool sg)
{
	struct gro_flow *const flows = gro->flows;
	uint32_t *const buckets = gro->buckets;
	const uint32_t bmask = gro->bucket_mask;
	struct gro_out *const ring = gro->ring;
	const uint32_t rmask = gro->ring_mask;
	uint32_t *const free_stk = gro->free_stk;
	uint32_t free_top = gro->free_top;
	uint32_t q_w = gro->q_w;
	uint32_t i = gro->oldest;
	const uint16_t l2_off = l2_off_of(gro);
	unsigned int n = 0, merged = 0;

	/* Kept in locals: the frame and descriptor stores may alias *gro. */
	while (i != GRO_NIL) {
		struct gro_flow *f = &flows[i];
		struct voff_pkt *hd = f->head;
		uint32_t newer = f->newer;

		/* The next entry came in the last round: fetch its head's
		 * descriptor and the entry after it. */
		if (newer != GRO_NIL) {
			const struct gro_flow *nf = &flows[newer];

			__builtin_prefetch(nf->head, 1);
			if (nf->newer != GRO_NIL)
				__builtin_prefetch(&flows[nf->newer], 1);
		}
		merged += write_out(f, hd, l2_off);
		if (direct) {
			struct gro_out *o = &ring[q_w++ & rmask];

			o->head = hd;
			o->last = sg ? f->tail : hd;
			o->n = sg ? f->count : 1;
			o->pay_off = f->pay_off;
		} else {
			enqueue(gro, hd, sg ? f->tail : hd, sg ? f->count : 1,
				f->pay_off);
		}
		buckets[f->hash & bmask] = GRO_NIL;
		f->head = NULL;
		f->lay = 0;
		free_stk[free_top++] = i;
		i = newer;
		n++;
	}
	if (direct) {
		gro->q_w = q_w;
		gro->q_len += n;
		gro->st.out += n;
	}
	gro->free_top = free_top;
	gro->st.out_merged += merged;
	return n;
}

unsigned int voff_gro_flush_all(struct voff_gro *gro)
{
	unsigned int n;

	/* One walk per mode, so that the loop tests neither. */
	if (gro->ov_head ||
	    gro->ring_mask + 1 - (gro->q_w - gro->q_r) < gro->nflows)
		n = flush_walk(gro, false, gro->cfg.sg);
	else if (gro->cfg.sg)
		n = flush_walk(gro, true, true);
	else
		n = flush_walk(gro, true, false);
	for (unsigned int l = 0; l < gro->nlay; l++)
		gro->lay[l].refs = 0;
	gro->oldest = GRO_NIL;
	gro->newest = GRO_NIL;
	gro->fast_last = GRO_NIL;
	gro->nflows = 0;
	return n;
}

unsigned int voff_gro_flush(struct voff_gro *gro, uint64_t now_ns)
{
	unsigned int n = 0;

	if (!gro->cfg.flush_timeout_ns)
		return voff_gro_flush_all(gro);
	while (gro->oldest != GRO_NIL &&
	       expired(gro, &gro->flows[gro->oldest], now_ns)) {
		flush_flow(gro, &gro->flows[gro->oldest]);
		n++;
	}
	return n;
}

/* Packets of the output the queue starts with (it is not empty). */
static unsigned int run_len(const struct voff_gro *g)
{
	const struct voff_pkt *p;

	if (g->q_r != g->q_w)
		return g->ring[g->q_r & g->ring_mask].n;
	p = g->ov_head;
	return g->cfg.sg && p->gso_segs > 1 ? p->gso_segs : 1;
}

/*
 * Take the output @o, the ring's first (@n = @o->n packets), into @pkts,
 * head first, each packet's next cleared; with @iov, also describe packet
 * i's bytes in @iov[i] (after the payload offset but for the head's).  The
 * chain is walked once, from the newest packet down to the second (the
 * head comes from the ring), filling both arrays from the end in the same
 * walk: the walk is a chain of dependent loads, the rest overlaps it.
 *
 * Return: the bytes described (0 without @iov).
 */
static inline size_t take_ring(struct voff_gro *g, const struct gro_out *o,
			       struct voff_pkt **pkts, unsigned int n,
			       struct iovec *iov)
{
	struct voff_pkt *p = o->last;
	uint32_t pay_off = o->pay_off;
	size_t len = 0;

	for (unsigned int i = n - 1; i > 0; i--) {
		struct voff_pkt *older = p->next;

		pkts[i] = p;
		p->next = NULL;
		if (iov) {
			iov[i].iov_base = voff_pkt_data(p) + pay_off;
			iov[i].iov_len = p->len - pay_off;
			len += p->len - pay_off;
		}
		p = older;
	}
	p = o->head;
	pkts[0] = p;
	if (iov) {
		iov[0].iov_base = voff_pkt_data(p);
		iov[0].iov_len = p->len;
		len += p->len;
	}
	g->q_r++;
	g->q_len--;
	return len;
}

/*
 * Take the first output (@n = run_len() packets) into @pkts, head first,
 * each packet's next cleared; with @iov, also describe the packets' bytes
 * as take_ring() does.
 *
 * Return: the bytes described (0 without @iov).
 */
static inline size_t take_out_iov(struct voff_gro *g, struct voff_pkt **pkts,
				  unsigned int n, struct iovec *iov)
{
	struct voff_pkt *p;
	uint32_t pay_off;
	size_t len = 0;

	if (g->q_r != g->q_w)
		return take_ring(g, &g->ring[g->q_r & g->ring_mask], pkts, n,
				 iov);
	g->q_len--;
	pay_off = g->ov_head->payload_off;
	for (unsigned int i = 0; i < n; i++) {
		p = g->ov_head;
		g->ov_head = p->next;
		p->next = NULL;
		pkts[i] = p;
	}
	if (!g->ov_head)
		g->ov_tail = NULL;
	for (unsigned int i = 0; iov && i < n; i++) {
		uint32_t skip = i ? pay_off : 0;

		iov[i].iov_base = voff_pkt_data(pkts[i]) + skip;
		iov[i].iov_len = pkts[i]->len - skip;
		len += pkts[i]->len - skip;
	}
	return len;
}

static void take_out(struct voff_gro *g, struct voff_pkt **pkts,
		     unsigned int n)
{
	take_out_iov(g, pkts, n, NULL);
}

/* Sg mode, flat consumer: copy a chained super-packet into one buffer. */
static struct voff_pkt *linearize(struct voff_gro *g)
{
	struct voff_pkt *seg[VOFF_GRO_SG_MAX_SEGS], *hd, *np;
	unsigned int n = run_len(g);
	uint16_t pay_off;

	if (voff_pkt_alloc(g->pool, &np) != 0) {
		g->st.no_buffer++;
		return NULL;
	}
	take_out(g, seg, n);
	hd = seg[0];
	pay_off = hd->payload_off;
	memcpy(voff_pkt_data(np), voff_pkt_data(hd), hd->len);
	np->len = hd->len;
	voff_pkt_copy_meta(np, hd);
	for (unsigned int i = 1; i < n; i++) {
		struct voff_pkt *p = seg[i];

		memcpy(voff_pkt_data(np) + np->len, voff_pkt_data(p) + pay_off,
		       p->len - pay_off);
		np->len += p->len - pay_off;
	}
	voff_pkt_free_bulk(seg, n);
	return np;
}

struct voff_pkt *voff_gro_pop(struct voff_gro *gro)
{
	struct voff_pkt *p;

	if (!gro->q_len)
		return NULL;
	if (run_len(gro) > 1)
		return linearize(gro);
	take_out(gro, &p, 1);
	return p;
}

int voff_gro_pop_sg(struct voff_gro *gro, struct voff_sg *sg,
		    struct voff_pkt **pkts, unsigned int cap)
{
	unsigned int n;

	/* One entry per packet, filled here: voff_sg_add() per segment
	 * costs more than the rest of taking the output. */
	if (gro->q_r != gro->q_w) {
		const struct gro_out *o = &gro->ring[gro->q_r &
						     gro->ring_mask];

		n = o->n;
		if (n > cap || sg->cap - sg->n < n)
			return -ENOSPC;
		sg->len += take_ring(gro, o, pkts, n, sg->iov + sg->n);
	} else {
		if (!gro->q_len)
			return 0;
		n = run_len(gro);
		if (n > cap || sg->cap - sg->n < n)
			return -ENOSPC;
		sg->len += take_out_iov(gro, pkts, n, sg->iov + sg->n);
	}
	sg->n += n;
	return (int)n;
}

unsigned int voff_gro_drain(struct voff_gro *gro, struct voff_batch *b)
{
	unsigned int n = 0;

	while (gro->q_len && voff_batch_space(b)) {
		struct voff_pkt *p = voff_gro_pop(gro);

		if (!p)
			break;
		voff_batch_add(b, p);
		n++;
	}
	return n;
}

unsigned int voff_gro_pending(const struct voff_gro *gro)
{
	return gro->q_len;
}

unsigned int voff_gro_held(const struct voff_gro *gro)
{
	return gro->nflows;
}

bool voff_gro_next_deadline(const struct voff_gro *gro, uint64_t *out_ns)
{
	if (gro->oldest == GRO_NIL)
		return false;
	*out_ns = gro->flows[gro->oldest].start_ns + gro->cfg.flush_timeout_ns;
	return true;
}

void voff_gro_set_flush_timeout(struct voff_gro *gro, uint64_t ns)
{
	gro->cfg.flush_timeout_ns = ns;
}

/*
 * Both merge paths read cfg.max_size at every merge, so a new value is
 * simply the next merge's bound: nothing held is cut, flushed or moved.
 */
int voff_gro_set_max_size(struct voff_gro *gro, unsigned int max_size)
{
	if (!gro || max_size > VOFF_GRO_MAX_DATAGRAM)
		return -EINVAL;
	gro->cfg.max_size = max_size ? max_size : VOFF_GRO_MAX_DATAGRAM;
	return 0;
}

void voff_gro_stats(const struct voff_gro *gro, struct voff_gro_stats *out)
{
	*out = gro->st;
}

int voff_gro_csum_complete(struct voff_pkt *pkt)
{
	int err;

	if (pkt->csum != VOFF_CSUM_PARTIAL)
		return 0;
	err = voff_csum_complete_at(voff_pkt_data(pkt), pkt->len,
				    pkt->csum_start, pkt->csum_offset);
	if (err)
		return err;
	pkt->csum = VOFF_CSUM_NONE;
	return 0;
}
