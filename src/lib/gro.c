/* SPDX-License-Identifier: MIT */
/*
 * gro.c - the GRO engine: life cycle, and the full path: frame parsing,
 * the flow table, IP-level merge rules and payload merging; the fast path
 * and the receive entry points are in gro_fast.c, flushing and the output
 * queue in gro_out.c, the TCP and UDP rules in gro_tcp.c and gro_udp.c,
 * reached through the ops table of gro_int.h (TCP's completion directly)
 *
 * DOC: Theory of Operation
 *
 * A TCP frame with a trusted checksum is first tried on the fast path
 * (gro_fast.c: its flow found by the previous frame's flow or a hash of its
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
 *  4. flush (gro_out.c): a head with one segment leaves as it came
 *     (DATA_VALID when verified); a longer one gets its IP length, IPv4
 *     header checksum, L4 pseudo-header seed and GSO metadata written, and
 *     is queued.
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
 * (fast_hold(), gro_fast.c).
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

/* What parse() found. */
enum cls {
	C_NONE,		/* not a TCP/UDP flow frame we handle: pass */
	C_FRAG,		/* fragment without ports: flush by addresses, pass */
	C_SKIP,		/* flow frame never merged: flush its flow, pass */
	C_CAND,		/* candidate for merging */
};

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
	if (!gro)
		return;
	voff_gro_flush_all(gro);
	voff__gro_out_free(gro);
	voff_pool_free(gro->pool);
	free(gro->ring);
	free(gro->free_stk);
	free(gro->buckets);
	free(gro->flows);
	free(gro);
}

/* ---- parsing ----------------------------------------------------------- */

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
		*kl = gro_make_key(key, ip, 4, ip[9], s->l3_off, NULL);
		return C_FRAG;
	}
	*kl = gro_make_key(key, ip, 4, ip[9], s->l3_off, ip + ihl);
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
			*kl = gro_make_key(key, ip, 6, next, s->l3_off,
					   NULL);
			if ((gro_get16(ip + off + 2) & 0xFFF8) || off + 12 > end)
				return C_FRAG;
			*kl = gro_make_key(key, ip, 6, next, s->l3_off,
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
	*kl = gro_make_key(key, ip, 6, nh, s->l3_off, ip + off);
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

static uint32_t hash_key(const uint64_t *key, unsigned int kl, uint32_t seed)
{
	uint64_t acc = seed;

	for (unsigned int i = 0; i < kl; i++)
		acc += (key[i] + seed) * gro_hash_mul[i];
	return gro_hash_mix(acc);
}

static struct gro_flow *lookup(struct voff_gro *g, uint32_t h,
			       const uint64_t *key, unsigned int kl,
			       const struct gro_seg *s)
{
	uint32_t i = g->buckets[h & g->bucket_mask];

	while (i != GRO_NIL) {
		struct gro_flow *f = &g->flows[i];

		if (f->hash == h && f->key_len == kl &&
		    gro_keys_eq(f->key, key, kl) &&
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
		    gro_keys_eq(f->key, key, kl) &&
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

void voff__gro_unlink_flow(struct voff_gro *g, struct gro_flow *f)
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

/* Flush every held flow with the addresses and protocol of @key. */
static void flush_addrs(struct voff_gro *g, const uint64_t *key,
			unsigned int kl)
{
	uint32_t i = g->oldest;

	while (i != GRO_NIL) {
		struct gro_flow *f = &g->flows[i];

		i = f->newer;
		if (f->key_len == kl && gro_keys_eq(f->key, key, kl - 1) &&
		    f->key[kl - 1] >> 32 == key[kl - 1] >> 32)
			gro_flush_flow(g, f);
	}
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
	if (gro_csum_trusted(pkt)) {
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
	if (!gro_csum_trusted(pkt) && !l4_csum_ok(s))
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
		gro_flush_flow(g, f);
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

/* ---- templates ---------------------------------------------------------- */

/*
 * A head the full path takes gets a template of its header block when it
 * may (TCP), for the fast path (gro_fast.c) to compare the next segments
 * with; its layout (offsets and mask, shared by the flows of one kind of
 * traffic) is found or made here.
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
		k += seed * gro_hash_mul[i];
	return k + (gro_key_tail(0, ver, 6, l3_off) + seed) * gro_hash_mul[na];
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
			f->tmpl[i] = gro_ld64(s->data + 8 * i) & L->mask[i];
	} else {
		uint8_t pad[GRO_TMPL_MAX];

		memset(pad, 0, sizeof(pad));
		memcpy(pad, s->data, L->hdr_len);
		for (unsigned int i = 0; i < GRO_TMPL_WORDS; i++)
			f->tmpl[i] = gro_ld64(pad + 8 * i) & L->mask[i];
	}
	g->lay[li].refs++;
	f->lay = (uint8_t)(li + 1);
	g->guess = (uint8_t)li;
	g->fast_last = (uint32_t)(f - g->flows);
	g->fast_lay = L;
}

static void hold(struct voff_gro *g, struct voff_pkt *pkt,
		 const struct gro_seg *s, const uint64_t *key, unsigned int kl,
		 uint32_t h, uint64_t now_ns, bool verified)
{
	struct gro_flow *f = gro_new_flow(g, h, key, kl);

	gro_head_init(f, pkt, s, verified,
		      s->ver == 4 ? gro_ipv4_fixed_sum(s->data + s->l3_off) : 0,
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

/*
 * Every frame the fast path did not take (gro_int.h).  Kept out of line
 * even where the compiler could inline it (LTO): inlined into the burst
 * loop, the slow path's registers and stack burden every frame of the
 * fast one.
 */
__attribute__((noinline)) int
voff__gro_full_receive(struct voff_gro *gro, struct voff_pkt *pkt,
		       uint64_t now_ns, uint32_t h, int lay)
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
	if (f && gro_expired(gro, f, now_ns)) {
		gro_flush_flow(gro, f);
		f = NULL;
	}
	if (c == C_SKIP) {
		if (f)
			gro_flush_flow(gro, f);
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
			gro_flush_flow(gro, f);
			gro->st.csum_bad++;
			return pass(gro, pkt, false);
		case M_NO_ROOM:
			break;
		}
	}
	ok = gro_csum_trusted(pkt) || l4_csum_ok(&s);
	if (f)
		gro_flush_flow(gro, f);
	if (!ok) {
		gro->st.csum_bad++;
		return pass(gro, pkt, false);
	}
	if (!gro_ops[s.l4]->can_hold(&s))
		return pass(gro, pkt, pkt->csum == VOFF_CSUM_NONE);
	hold(gro, pkt, &s, key, kl, h, now_ns, pkt->csum != VOFF_CSUM_PARTIAL);
	return VOFF_GRO_HELD;
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
