/* SPDX-License-Identifier: MIT */
/*
 * gso.c - software GSO: entry points, validation of the super-packet, the
 * segment loop and the output forms (flat pool packets, packed frames in
 * one buffer, descriptors)
 *
 * DOC: Theory of Operation
 *
 * Every call first builds a struct gso_plan (gso_int.h): the gso_type is
 * looked up in one static table of base types (TCPV4, TCPV6, UDP_L4, UDP),
 * whose entry names the L4 protocol file (gso_tcp.c, gso_udp.c); the IP
 * headers are walked from the packet's offsets with bounds checks; a tunnel
 * is checked by gso_tunnel.c.  Nothing is written until the plan is
 * complete and the output is known to be large enough, which is what makes
 * every call all-or-nothing.
 *
 * Then output i gets a verbatim copy of the hdr_len header bytes and
 * payload bytes [i * unit, (i + 1) * unit) after them; the fixes run inside
 * out: the L4 header and its checksum, the inner IP header, the tunnel
 * header, the outer IP header.  In full-checksum mode the flat form sums
 * the payload while copying it (voff_csum_copy()); the packed form runs the
 * same per-output code at addresses laid out in one caller buffer; the
 * descriptor form sums it in place.  Resegmentation is the same loop with
 * a unit of k * gso_size and partial checksums, emitting smaller
 * super-packets.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/gso.h>

#include "gso_int.h"
#include "pkt_int.h"

/* Base types: exactly one is set in a valid gso_type. */
static const struct gso_base {
	uint32_t bit;
	uint8_t ipver;	/* innermost IP version required, 0 = either */
	const struct gso_l4 *l4;
} gso_bases[] = {
	{ VOFF_GSO_TCPV4, 4, &voff__gso_tcp },
	{ VOFF_GSO_TCPV6, 6, &voff__gso_tcp },
	{ VOFF_GSO_UDP_L4, 0, &voff__gso_uso },
	{ VOFF_GSO_UDP, 0, &voff__gso_ufo },
};

#define GSO_BASE_MASK                                                        \
	(VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6 | VOFF_GSO_UDP_L4 | VOFF_GSO_UDP)
#define GSO_UDP_TUN_MASK (VOFF_GSO_UDP_TUNNEL | VOFF_GSO_UDP_TUNNEL_CSUM)
#define GSO_GRE_MASK (VOFF_GSO_GRE | VOFF_GSO_GRE_CSUM)
#define GSO_MOD_MASK                                                         \
	(VOFF_GSO_DODGY | VOFF_GSO_TCP_ECN | VOFF_GSO_TCP_FIXEDID |         \
	 VOFF_GSO_TCP_FIXEDID_INNER | VOFF_GSO_TCP_ACCECN | GSO_UDP_TUN_MASK | \
	 GSO_GRE_MASK)

#define MAX_V6_EXT 8

static int walk_v4(const struct gso_plan *p, struct gso_ip *ip,
		   uint8_t *proto)
{
	const uint8_t *d = p->data + ip->off;
	uint32_t ihl = (uint32_t)(d[0] & 15) * 4;

	if (ihl < 20 || ip->off + ihl > p->len)
		return VOFF_E_GSO_HDR;
	if (gso_get16(d + 6) & 0x3FFF)
		return VOFF_E_GSO_FRAG;
	*proto = d[9];
	ip->end = (uint16_t)(ip->off + ihl);
	return 0;
}

/*
 * IPv6: skip hop-by-hop, routing and destination options headers.  The
 * unfragmentable part (for UFO) ends where the kernel's
 * ip6_find_1stfragopt() stops: before a destination options header that
 * follows a routing header, or before the first other header.
 */
static int walk_v6(const struct gso_plan *p, struct gso_ip *ip,
		   uint8_t *proto)
{
	uint32_t at = ip->off + 40u, nh_at = ip->off + 6u;
	bool routing = false, unfrag = true;
	uint8_t nh = p->data[nh_at];

	ip->unfrag_end = (uint16_t)at;
	ip->unfrag_nh = (uint16_t)nh_at;
	for (int n = 0; nh == 0 || nh == 43 || nh == 60; n++) {
		uint32_t elen;

		if (n >= MAX_V6_EXT || at + 8 > p->len)
			return VOFF_E_GSO_HDR;
		elen = ((uint32_t)p->data[at + 1] + 1) * 8;
		if (at + elen > p->len || at + elen > 0xFFFF)
			return VOFF_E_GSO_HDR;
		if (nh == 60 && routing)
			unfrag = false;
		if (nh == 43)
			routing = true;
		nh_at = at;
		nh = p->data[at];
		at += elen;
		if (unfrag) {
			ip->unfrag_end = (uint16_t)at;
			ip->unfrag_nh = (uint16_t)nh_at;
		}
	}
	if (nh == 44)
		return VOFF_E_GSO_FRAG;
	*proto = nh;
	ip->end = (uint16_t)at;
	return 0;
}

/* Walk the IP header at @off (an offset from the packet's metadata). */
static int walk_ip(const struct gso_plan *p, struct gso_ip *ip, uint32_t off,
		   uint8_t *proto)
{
	uint8_t ver;

	if (off == VOFF_OFF_NONE || off >= p->len || p->len - off < 20)
		return VOFF_E_GSO_HDR;
	ip->off = (uint16_t)off;
	ver = p->data[off] >> 4;
	if (ver == 4) {
		ip->v6 = false;
		return walk_v4(p, ip, proto);
	}
	if (ver != 6)
		return VOFF_E_GSO_PROTO;
	if (p->len - off < 40)
		return VOFF_E_GSO_HDR;
	ip->v6 = true;
	return walk_v6(p, ip, proto);
}

static const struct gso_base *find_base(uint32_t type)
{
	const struct gso_base *found = NULL;

	if (type & ~(GSO_BASE_MASK | GSO_MOD_MASK))
		return NULL;
	for (size_t i = 0; i < sizeof(gso_bases) / sizeof(gso_bases[0]); i++) {
		if (!(type & gso_bases[i].bit))
			continue;
		if (found)
			return NULL;	/* two base types */
		found = &gso_bases[i];
	}
	return found;
}

/* A set offset of the metadata must agree with what the walk found. */
static bool off_agrees(uint16_t meta, uint32_t found)
{
	return meta == VOFF_OFF_NONE || meta == found;
}

static int plan_headers(struct gso_plan *p, const struct voff_pkt *pkt,
			const struct gso_base *base)
{
	struct gso_ip *in;
	uint8_t proto;
	int err;

	p->n_ip = 1;
	err = walk_ip(p, &p->ip[0], pkt->l3_off, &proto);
	if (err)
		return err;
	p->ip[0].fixed_id = p->type & VOFF_GSO_TCP_FIXEDID;
	if (p->type & (GSO_UDP_TUN_MASK | GSO_GRE_MASK)) {
		if (p->l4->ufo)
			return VOFF_E_GSO_TYPE;
		p->tun = (p->type & GSO_GRE_MASK) ? GSO_TUN_GRE : GSO_TUN_UDP;
		if (proto != (p->tun == GSO_TUN_GRE ? 47 : 17))
			return VOFF_E_GSO_PROTO;
		if (!off_agrees(pkt->l4_off, p->ip[0].end))
			return VOFF_E_GSO_HDR;
		p->tun_off = p->ip[0].end;
		err = voff__gso_tunnel_check(p);
		if (err)
			return err;
		/* tunnel_check() left the first possible inner offset. */
		if (pkt->inner_l3_off == VOFF_OFF_NONE ||
		    pkt->inner_l3_off < p->ip[1].off)
			return VOFF_E_GSO_HDR;
		err = walk_ip(p, &p->ip[1], pkt->inner_l3_off, &proto);
		if (err)
			return err;
		p->ip[1].fixed_id = p->type & VOFF_GSO_TCP_FIXEDID_INNER;
		p->n_ip = 2;
		if (!off_agrees(pkt->inner_l4_off, p->ip[1].end))
			return VOFF_E_GSO_HDR;
	} else if (!off_agrees(pkt->l4_off, p->ip[0].end)) {
		return VOFF_E_GSO_HDR;
	}
	in = &p->ip[p->n_ip - 1];
	if (proto != p->l4->proto)
		return VOFF_E_GSO_PROTO;
	if (base->ipver && base->ipver != (in->v6 ? 6 : 4))
		return VOFF_E_GSO_PROTO;
	p->l4_off = in->end;
	return 0;
}

/*
 * The header bytes every segment shares are summed once per call; per
 * segment only the words that change are added (struct gso_plan).
 */
/*
 * voff_csum() of a header of up to a few dozen bytes, inline: the vector
 * routine's call and setup cost more than the few words.  Folds to the
 * same checksum (a nonzero sum never folds to zero either way).
 */
static inline uint32_t hdr_sum(const uint8_t *h, uint32_t n)
{
	uint64_t s = 0;
	uint32_t w;

	for (; n >= 4; n -= 4, h += 4) {
		memcpy(&w, h, 4);
		s += w;
	}
	if (n >= 2) {
		s += gso_word(h);
		h += 2;
		n -= 2;
	}
	if (n) {
		uint8_t last[2] = { h[0], 0 };

		s += gso_word(last);
	}
	return voff__csum_fold64(s);
}

static void plan_sums(struct gso_plan *p)
{
	const struct gso_ip *in = &p->ip[p->n_ip - 1];
	const uint8_t *l4 = p->data + p->l4_off;
	uint32_t sum;

	for (int k = 0; k < p->n_ip; k++) {
		struct gso_ip *ip = &p->ip[k];
		const uint8_t *h = p->data + ip->off;

		if (ip->v6)
			continue;
		ip->id = gso_get16(h + 4);
		sum = hdr_sum(h, ip->end - ip->off);
		sum = voff_csum_sub(sum, gso_word(h + 2));
		sum = voff_csum_sub(sum, gso_word(h + 4));
		ip->base = voff_csum_sub(sum, gso_word(h + 10));
	}
	p->pseudo_base = voff__gso_pseudo(in, p->data, p->l4->proto, 0);
	sum = hdr_sum(l4, p->hdr_len - p->l4_off);
	for (int k = 0; k < p->l4->n_var; k++)
		sum = voff_csum_sub(sum, gso_word(l4 + p->l4->var[k]));
	p->l4_base = sum;
}

/*
 * The routine voff_csum_copy() dispatches to: the first usable variant,
 * the same choice csum_simd.c makes, cached here so that the segment loop
 * calls it directly.
 */
static voff__csum_copy_fn gso_copy_fn(void)
{
	static _Atomic(voff__csum_copy_fn) fn;
	voff__csum_copy_fn f = atomic_load_explicit(&fn, memory_order_relaxed);
	const struct voff__csum_variant *v;
	unsigned int i = 0;

	if (f)
		return f;
	while (!(v = voff__csum_variant(i))->usable())
		i++;
	atomic_store_explicit(&fn, v->copy, memory_order_relaxed);
	return v->copy;
}

static int plan_init(struct gso_plan *p, const struct voff_pkt *pkt,
		     const struct voff_gso_opts *opts)
{
	const struct gso_base *base;
	int err;

	memset(p, 0, sizeof(*p));
	if (!pkt)
		return -EINVAL;
	p->data = voff_pkt_data(pkt);
	p->len = pkt->len;
	p->type = pkt->gso_type;
	p->mss = pkt->gso_size;
	p->mode = opts ? opts->csum_mode : VOFF_GSO_CSUM_FULL;
	p->frag_id = opts ? opts->ipv6_frag_id : 0;
	if (p->mode > VOFF_GSO_CSUM_PARTIAL)
		return -EINVAL;
	base = find_base(p->type);
	if (!base)
		return VOFF_E_GSO_TYPE;
	if (!p->mss || p->mss == 0xFFFF)
		return VOFF_E_GSO_SIZE;
	p->l4 = base->l4;
	err = plan_headers(p, pkt, base);
	if (err)
		return err;
	err = p->l4->check(p);
	if (err)
		return err;
	if (p->hdr_len > VOFF_GSO_MAX_HDR)
		return VOFF_E_GSO_HDR_LEN;
	if (!off_agrees(pkt->payload_off, p->hdr_len))
		return VOFF_E_GSO_HDR;
	if (pkt->csum == VOFF_CSUM_PARTIAL &&
	    (pkt->csum_start != p->l4_off ||
	     pkt->csum_offset != p->l4->csum_offset))
		return VOFF_E_GSO_CSUM;
	p->id_step = 1;
	p->unit = p->mss;
	if (p->mode == VOFF_GSO_CSUM_FULL)
		p->copy = gso_copy_fn();
	if (p->l4->ufo)
		return voff__gso_ufo_plan(p);
	plan_sums(p);
	p->pay_len = p->len - p->hdr_len;
	p->nseg = p->pay_len ? (p->pay_len + p->mss - 1) / p->mss : 1;
	if (p->nseg > 0xFFFF)
		return VOFF_E_GSO_SEGS;
	/* The largest segment's IP length must fit its 16-bit field. */
	if (p->hdr_len - p->ip[0].off +
	    (p->pay_len < p->mss ? p->pay_len : p->mss) > 0xFFFF)
		return VOFF_E_GSO_SIZE;
	return 0;
}

/* ---- per-segment fixes -------------------------------------------------- */

void voff__gso_fix_ip(const struct gso_plan *p, const struct gso_ip *ip,
		      uint8_t *hdr, uint32_t l3_len, uint32_t id_add)
{
	uint8_t *h = hdr + ip->off;
	uint32_t id = ip->fixed_id ? ip->id : (ip->id + id_add) & 0xFFFF;

	(void)p;
	if (ip->v6) {
		gso_put16(h + 4, l3_len - 40);
		return;
	}
	gso_put16(h + 2, l3_len);
	gso_put16(h + 4, id);
	gso_put_csum(h + 10,
		     voff_csum_fold(voff_csum_add(ip->base,
						  gso_be16_word(l3_len) +
						  gso_be16_word(id))));
}

static inline void fix_segment(const struct gso_plan *p,
			       const struct gso_seg *s)
{
	uint32_t l4_len = p->hdr_len - p->l4_off + s->plen;
	uint32_t id_add = s->i * p->id_step;

	p->l4->fix(p, s, voff_csum_add(p->pseudo_base,
				       gso_be16_word(l4_len)));
	for (int k = p->n_ip - 1; k >= 0; k--) {
		if (k == 0 && p->tun)
			voff__gso_tunnel_fix(p, s);
		voff__gso_fix_ip(p, &p->ip[k], s->hdr,
				 p->hdr_len - p->ip[k].off + s->plen, id_add);
	}
}

static inline void seg_range(const struct gso_plan *p, uint32_t i,
			     struct gso_seg *s)
{
	s->i = i;
	s->off = i * p->unit;
	s->plen = p->pay_len - s->off < p->unit ? p->pay_len - s->off
						 : p->unit;
}

/* Largest output (headers + payload) and header block of the plan. */
static void plan_info(const struct gso_plan *p, struct voff_gso_info *info)
{
	memset(info, 0, sizeof(*info));
	info->segs = p->nseg;
	if (p->l4->ufo) {
		uint32_t h0 = voff__gso_ufo_hdr_len(p, 0);
		uint32_t h1 = voff__gso_ufo_hdr_len(p, 1);

		info->hdr_len = (uint16_t)(h0 > h1 ? h0 : h1);
		info->max_len = voff__gso_ufo_hdr_len(p, 1) +
				(p->pay_len < p->unit ? p->pay_len : p->unit);
		info->csum = VOFF_CSUM_NONE;
		return;
	}
	info->hdr_len = p->hdr_len;
	info->max_len = p->hdr_len + (p->pay_len < p->unit ? p->pay_len
							     : p->unit);
	if (p->mode == VOFF_GSO_CSUM_PARTIAL) {
		info->csum = VOFF_CSUM_PARTIAL;
		info->csum_start = p->l4_off;
		info->csum_offset = p->l4->csum_offset;
	}
}

/* ---- the outputs between the first and the last ------------------------ */

/**
 * struct gso_mid - what the outputs strictly between the first and the last
 * share, for super-packets without a tunnel (one IP header, no UFO)
 * @on:		the fast path applies (3 outputs or more)
 * @ip_id:	the IPv4 ID advances (else the IP header is constant)
 * @l4_sum:	sum of a middle output's L4 header without its checksum
 *		field and sequence number, plus its pseudo-header
 * @ip_sum:	IPv4: sum of its IP header without the ID and checksum
 * @hdr:	its header block, complete but for the sequence number, ID
 *		and checksums (partial mode: the L4 seed is final)
 *
 * Middle outputs all carry a full unit of payload, so their lengths, TCP
 * flags and partial seeds are equal: one output's header block is fixed
 * once by the general fixes and copied, and per output only the sequence
 * number, the IPv4 ID and the checksums are written, each computed from
 * values.  First and last outputs take the general path.
 */
struct gso_mid {
	bool on;
	bool ip_id;
	uint32_t l4_sum;
	uint32_t ip_sum;
	uint8_t hdr[VOFF_GSO_MAX_HDR];
};

static void mid_init(const struct gso_plan *p, struct gso_mid *m)
{
	const struct gso_ip *ip = &p->ip[0];
	struct gso_seg s = { .hdr = m->hdr };
	const uint8_t *l4 = m->hdr + p->l4_off;
	uint32_t sum;

	m->on = p->nseg >= 3 && !p->tun && !p->l4->ufo && p->n_ip == 1;
	if (!m->on)
		return;
	seg_range(p, 1, &s);
	memcpy(m->hdr, p->data, p->hdr_len);
	fix_segment(p, &s);
	/*
	 * The shared words are in l4_base; add the fixed output's words
	 * that change, but for the checksum and sequence number.
	 */
	sum = p->l4_base;
	for (int k = 0; k < p->l4->n_var; k++) {
		uint8_t at = p->l4->var[k];

		if (at == p->l4->csum_offset ||
		    (p->l4->seq_at && (unsigned int)(at - p->l4->seq_at) < 4))
			continue;
		sum = voff_csum_add(sum, gso_word(l4 + at));
	}
	m->l4_sum = voff_csum_add(sum, voff_csum_add(p->pseudo_base,
		gso_be16_word(p->hdr_len - p->l4_off + s.plen)));
	m->ip_id = !ip->v6 && !ip->fixed_id;
	m->ip_sum = voff_csum_add(ip->base,
				  gso_be16_word(p->hdr_len - ip->off + s.plen));
}

/* Is output @i a middle one of @m? */
static inline bool mid_has(const struct gso_plan *p, const struct gso_mid *m,
			   uint32_t i)
{
	return m->on && i - 1 < p->nseg - 2;
}

/*
 * Fix middle output @i whose header block @h is a copy of @m->hdr and
 * whose payload, at offset @off, sums to @paysum (full mode).
 */
static inline void mid_fix(const struct gso_plan *p, const struct gso_mid *m,
			   uint8_t *h, uint32_t i, uint32_t off,
			   uint32_t paysum)
{
	uint8_t *l4 = h + p->l4_off;
	uint32_t sum = m->l4_sum;

	if (p->l4->seq_at) {
		uint32_t seq = p->seq + off;

		gso_put32(l4 + p->l4->seq_at, seq);
		sum = voff_csum_add(sum, gso_be32_words(seq));
	}
	if (p->mode == VOFF_GSO_CSUM_FULL) {
		uint16_t c;

		sum = voff_csum_block_add(sum, paysum, p->hdr_len - p->l4_off);
		c = voff_csum_fold(sum);
		if (c == 0 && p->l4->ffff)
			c = 0xFFFF;
		gso_put_csum(l4 + p->l4->csum_offset, c);
	}
	if (m->ip_id) {
		uint8_t *ih = h + p->ip[0].off;
		uint32_t id = (p->ip[0].id + i * p->id_step) & 0xFFFF;

		gso_put16(ih + 4, id);
		gso_put_csum(ih + 10, voff_csum_fold(voff_csum_add(
					      m->ip_sum, gso_be16_word(id))));
	}
}

/* ---- flat output -------------------------------------------------------- */

/*
 * The metadata every output of the call shares, built once in @t: the
 * per-output loop copies it as one block (pkt_int.h) over packets the pool
 * did not reset.
 */
static void meta_template(const struct gso_plan *p, const struct voff_pkt *src,
			  struct voff_pkt *t)
{
	memset(t, 0, sizeof(*t));
	voff_pkt_copy_meta(t, src);
	t->source = VOFF_PKT_SRC_POOL;
	t->gso_type = 0;
	t->gso_size = 0;
	t->gso_segs = 0;
	t->csum = VOFF_CSUM_NONE;
	t->csum_start = 0;
	t->csum_offset = 0;
	t->hdr_len = p->hdr_len;
	if (p->pieces) {
		t->gso_type = p->type;
		t->gso_size = (uint16_t)p->mss;
	}
	if (p->mode == VOFF_GSO_CSUM_PARTIAL) {
		t->csum = VOFF_CSUM_PARTIAL;
		t->csum_start = p->l4_off;
		t->csum_offset = p->l4->csum_offset;
	}
}

/* Output @i's metadata: the template and what depends on @i. */
static inline void set_meta(const struct gso_plan *p, struct voff_pkt *q,
			    const struct voff_pkt *t, uint32_t i,
			    uint32_t plen)
{
	voff__pkt_meta_copy(q, t);
	if (p->pieces)
		q->gso_segs = (uint16_t)((plen + p->mss - 1) / p->mss);
	if (p->l4->ufo) {
		if (i > 0) {
			q->l4_off = VOFF_OFF_NONE;
			q->payload_off = VOFF_OFF_NONE;
		}
		q->hdr_len = voff__gso_ufo_hdr_len(p, i);
	}
}

/*
 * Copy the header block.  Blocks of 32 to 128 bytes (Ethernet + IP + TCP
 * or UDP, with or without options) take two overlapping fixed-size moves,
 * which the compiler emits inline, instead of a call.
 */
static inline void copy_hdr(uint8_t *d, const uint8_t *s, uint32_t n)
{
	if (n >= 32 && n <= 64) {
		memcpy(d, s, 32);
		memcpy(d + n - 32, s + n - 32, 32);
	} else if (n > 64 && n <= 128) {
		memcpy(d, s, 64);
		memcpy(d + n - 64, s + n - 64, 64);
	} else {
		memcpy(d, s, n);
	}
}

/*
 * Where output @q's data starts: the payload copy reads the super-packet
 * at @src and writes at data + @hdr; moving the data by 0..63 bytes so that
 * both addresses have the same offset in a cache line makes every vector
 * store of the copy as aligned as its load (a store across two lines costs
 * two).  The headroom only grows, and the data still ends within the
 * pool's data room, so the pool's headroom and tailroom promises hold.
 */
static inline void place(struct voff_pkt *q, const uint8_t *src, uint32_t hdr,
			 uint32_t len, uint32_t room)
{
	uint8_t *at = q->buf + q->data_off + hdr;
	uint32_t shift = (uint32_t)((uintptr_t)src - (uintptr_t)at) & 63;

	if (len + shift <= room)
		q->data_off += shift;
	q->len = len;
}

/*
 * Write output @i's headers and payload at @d and fix them: the body both
 * copying forms (flat, packed) share.  Return: the output's length.
 */
static inline uint32_t cut_one_at(const struct gso_plan *p,
				  const struct gso_mid *m, uint8_t *d,
				  uint32_t i)
{
	bool mid = mid_has(p, m, i);
	struct gso_seg s;
	const uint8_t *src;

	seg_range(p, i, &s);
	src = p->data + p->hdr_len + s.off;
	s.hdr = d;
	s.paysum = 0;
	copy_hdr(d, mid ? m->hdr : p->data, p->hdr_len);
	if (p->mode == VOFF_GSO_CSUM_FULL)
		s.paysum = p->copy(d + p->hdr_len, src, s.plen, 0);
	else
		memcpy(d + p->hdr_len, src, s.plen);
	if (mid)
		mid_fix(p, m, d, i, s.off, s.paysum);
	else
		fix_segment(p, &s);
	return p->hdr_len + s.plen;
}

static inline void cut_one_flat(const struct gso_plan *p,
				const struct gso_mid *m, struct voff_pkt *q,
				uint32_t i, uint32_t room)
{
	struct gso_seg s;

	seg_range(p, i, &s);
	place(q, p->data + p->hdr_len + s.off, p->hdr_len,
	      p->hdr_len + s.plen, room);
	cut_one_at(p, m, voff_pkt_data(q), i);
}

/* UFO fragment @i at @d.  Return: its length. */
static uint32_t cut_ufo_at(const struct gso_plan *p, uint8_t *d, uint32_t i,
			   uint16_t udp_check)
{
	uint32_t src_off, plen;
	uint16_t h;

	h = voff__gso_ufo_frag(p, i, d, udp_check, &src_off, &plen);
	memcpy(d + h, p->data + src_off, plen);
	return h + plen;
}

static void cut_ufo_flat(const struct gso_plan *p, struct voff_pkt *q,
			 uint32_t i, uint16_t udp_check)
{
	q->len = cut_ufo_at(p, voff_pkt_data(q), i, udp_check);
}

static int cut_flat(const struct gso_plan *p, const struct voff_pkt *src,
		    struct voff_pool *pool, struct voff_pkt **out,
		    unsigned int cap)
{
	struct voff_gso_info info;
	struct gso_mid m;
	struct voff_pkt t;
	uint32_t room;

	if (!pool || !out)
		return -EINVAL;
	plan_info(p, &info);
	if (info.segs > cap)
		return -ENOSPC;
	room = voff_pool_data_room(pool);
	if (info.max_len > room)
		return VOFF_E_TOO_BIG;
	if (voff__pool_take(pool, out, info.segs))
		return -ENOBUFS;
	meta_template(p, src, &t);
	if (p->l4->ufo) {
		uint16_t udp_check = voff__gso_ufo_udp_csum(p);

		for (uint32_t i = 0; i < info.segs; i++) {
			cut_ufo_flat(p, out[i], i, udp_check);
			set_meta(p, out[i], &t, i, 0);
		}
		return (int)info.segs;
	}
	mid_init(p, &m);
	for (uint32_t i = 0; i < info.segs; i++) {
		cut_one_flat(p, &m, out[i], i, room);
		set_meta(p, out[i], &t, i, out[i]->len - p->hdr_len);
	}
	return (int)info.segs;
}

int voff_gso_count(const struct voff_pkt *pkt, const struct voff_gso_opts *opts,
		   struct voff_gso_info *info)
{
	struct gso_plan p;
	int err;

	if (!info)
		return -EINVAL;
	err = plan_init(&p, pkt, opts);
	if (err)
		return err;
	plan_info(&p, info);
	return 0;
}

int voff_gso_segment(const struct voff_pkt *pkt,
		     const struct voff_gso_opts *opts, struct voff_pool *pool,
		     struct voff_pkt **out, unsigned int cap)
{
	struct gso_plan p;
	int err;

	err = plan_init(&p, pkt, opts);
	if (err)
		return err;
	return cut_flat(&p, pkt, pool, out, cap);
}

int voff_gso_segment_batch(const struct voff_pkt *pkt,
			   const struct voff_gso_opts *opts,
			   struct voff_pool *pool, struct voff_batch *b)
{
	int n;

	if (!b || b->n > VOFF_BATCH_MAX)
		return -EINVAL;
	n = voff_gso_segment(pkt, opts, pool, b->pkts + b->n,
			     voff_batch_space(b));
	if (n > 0)
		b->n += (unsigned int)n;
	return n;
}

/* ---- packed output ------------------------------------------------------ */

/*
 * Lay the frames out in @fr: lengths from the plan, offsets by the rule of
 * voff_gso_segment_packed().  Frame i's payload is the source's bytes from
 * data + i * unit + (what lies in front of a frame's payload in the source
 * minus in the frame), a constant @lead for all but the headers.  With
 * @fr NULL only the size is checked (so that a failure writes nothing).
 * Return: bytes the frames span, or 0 when they pass @size.
 */
/* Bytes between @end and frame @i's start under that rule. */
static inline size_t pack_gap(const struct gso_plan *p, const uint8_t *area,
			      size_t end, uint32_t i, uint32_t lead)
{
	uintptr_t want = (uintptr_t)p->data + i * p->unit + lead;

	return (size_t)(want - ((uintptr_t)area + end)) &
	       (VOFF_GSO_PACK_ALIGN - 1);
}

static size_t pack_layout(const struct gso_plan *p, const uint8_t *area,
			  size_t size, struct voff_gso_frame *fr)
{
	uint32_t base = p->hdr_len, lead;
	size_t end = 0;

	if (p->l4->ufo)
		base = voff__gso_ufo_hdr_len(p, 1);
	lead = p->len - p->pay_len - base;
	for (uint32_t i = 0; i < p->nseg; i++) {
		uint32_t off = i * p->unit;
		uint32_t plen = p->pay_len - off < p->unit ? p->pay_len - off
							   : p->unit;
		size_t gap = pack_gap(p, area, end, i, lead);

		if (gap + base + plen > size - end)
			return 0;
		end += gap;
		if (fr) {
			fr[i].off = (uint32_t)end;
			fr[i].len = base + plen;
			fr[i].hdr_len = (uint16_t)(p->l4->ufo ?
					voff__gso_ufo_hdr_len(p, i) : base);
		}
		end += base + plen;
	}
	return end;
}

/*
 * Lay out and cut the frames of a plan without UFO in one pass: each
 * frame's place (pack_layout()'s rule, the area already known to be large
 * enough) is taken as the previous one is written, so the layout costs no
 * loop of its own.
 */
static void pack_cut(const struct gso_plan *p, const struct gso_mid *m,
		     uint8_t *area, struct voff_gso_frame *fr)
{
	size_t end = 0;

	for (uint32_t i = 0; i < p->nseg; i++) {
		uint32_t len;

		end += pack_gap(p, area, end, i, 0);
		len = cut_one_at(p, m, area + end, i);
		fr[i].off = (uint32_t)end;
		fr[i].len = len;
		fr[i].hdr_len = p->hdr_len;
		end += len;
	}
}

int voff_gso_segment_packed(const struct voff_pkt *pkt,
			    const struct voff_gso_opts *opts, uint8_t *area,
			    size_t area_size, struct voff_gso_frame *frames,
			    unsigned int cap, struct voff_gso_info *info)
{
	struct voff_gso_info in;
	struct gso_plan p;
	struct gso_mid m;
	size_t bound;
	int err;

	if (!area || !frames)
		return -EINVAL;
	err = plan_init(&p, pkt, opts);
	if (err)
		return err;
	plan_info(&p, &in);
	if (in.segs > cap)
		return -ENOSPC;
	if (area_size > 0xFFFFFFFFu)
		area_size = 0xFFFFFFFFu;	/* offsets are 32-bit */
	/* An area of the documented size needs no dry run of the layout. */
	bound = (size_t)in.segs * (in.max_len + VOFF_GSO_PACK_ALIGN - 1);
	if (area_size < bound && !pack_layout(&p, area, area_size, NULL))
		return -ENOSPC;
	if (p.l4->ufo) {
		uint16_t udp_check = voff__gso_ufo_udp_csum(&p);

		pack_layout(&p, area, area_size, frames);
		for (uint32_t i = 0; i < in.segs; i++)
			cut_ufo_at(&p, area + frames[i].off, i, udp_check);
	} else {
		mid_init(&p, &m);
		pack_cut(&p, &m, area, frames);
	}
	if (info)
		*info = in;
	return (int)in.segs;
}

/* ---- descriptor output -------------------------------------------------- */

static inline uint32_t sg_one(const struct gso_plan *p,
			      const struct gso_mid *m, uint8_t *slot,
			      uint32_t i, uint16_t udp_check,
			      uint32_t *src_off, uint32_t *plen)
{
	struct gso_seg s = { .hdr = slot };
	bool mid = mid_has(p, m, i);

	if (p->l4->ufo)
		return voff__gso_ufo_frag(p, i, slot, udp_check, src_off, plen);
	seg_range(p, i, &s);
	copy_hdr(slot, mid ? m->hdr : p->data, p->hdr_len);
	*src_off = p->hdr_len + s.off;
	*plen = s.plen;
	if (p->mode == VOFF_GSO_CSUM_FULL)
		s.paysum = voff_csum(p->data + *src_off, s.plen, 0);
	if (mid)
		mid_fix(p, m, slot, i, s.off, s.paysum);
	else
		fix_segment(p, &s);
	return p->hdr_len;
}

/*
 * A view of the header slot and one payload range: what two voff_sg_add()
 * calls give (empty ranges dropped, adjacent ones merged), written out.
 */
static inline void sg_two(struct voff_sg *sg, uint8_t *slot, uint32_t h,
			  const uint8_t *pay, uint32_t plen)
{
	struct iovec *iov = sg->iov;
	unsigned int n = 0;

	if (h) {
		iov[0].iov_base = slot;
		iov[0].iov_len = h;
		n = 1;
	}
	if (plen) {
		if (n && slot + h == pay) {
			iov[0].iov_len += plen;
		} else {
			/* iovec has no const member; nothing writes through. */
			iov[n].iov_base = (void *)(uintptr_t)pay;
			iov[n].iov_len = plen;
			n++;
		}
	}
	sg->n = n;
	sg->len = (size_t)h + plen;
}

int voff_gso_segment_sg(const struct voff_pkt *pkt,
			const struct voff_gso_opts *opts, uint8_t *slots,
			size_t slot_size, struct voff_sg *segs,
			unsigned int cap, struct voff_gso_info *info)
{
	struct voff_gso_info in;
	struct gso_plan p;
	struct gso_mid m;
	uint16_t udp_check = 0;
	int err;

	if (!slots || !segs)
		return -EINVAL;
	err = plan_init(&p, pkt, opts);
	if (err)
		return err;
	plan_info(&p, &in);
	if (in.segs > cap || in.hdr_len > slot_size)
		return -ENOSPC;
	for (uint32_t i = 0; i < in.segs; i++)
		if (!segs[i].iov || segs[i].cap < 2)
			return -ENOSPC;
	if (p.l4->ufo)
		udp_check = voff__gso_ufo_udp_csum(&p);
	mid_init(&p, &m);
	for (uint32_t i = 0; i < in.segs; i++) {
		uint8_t *slot = slots + (size_t)i * slot_size;
		uint32_t src_off, plen, h;

		h = sg_one(&p, &m, slot, i, udp_check, &src_off, &plen);
		sg_two(&segs[i], slot, h, p.data + src_off, plen);
	}
	if (info)
		*info = in;
	return (int)in.segs;
}

/* ---- resegmentation ----------------------------------------------------- */

int voff_gso_resegment(const struct voff_pkt *pkt, uint32_t max_size,
		       uint32_t max_segs, struct voff_pool *pool,
		       struct voff_pkt **out, unsigned int cap)
{
	struct voff_gso_opts o = { .csum_mode = VOFF_GSO_CSUM_PARTIAL };
	struct gso_plan p;
	uint32_t k, room;
	int err;

	if (!max_segs)
		return -EINVAL;
	err = plan_init(&p, pkt, &o);
	if (err)
		return err;
	if (p.l4->ufo)
		return VOFF_E_GSO_TYPE;
	if (p.nseg <= max_segs && p.len < max_size)
		return 0;
	if (max_size <= (uint32_t)p.hdr_len + 1)
		return VOFF_E_GSO_LIMIT;
	room = max_size - 1 - p.hdr_len;
	if (room > 0xFFFFu - (p.hdr_len - p.ip[0].off))
		room = 0xFFFFu - (p.hdr_len - p.ip[0].off);
	k = room / p.mss;
	if (k > max_segs)
		k = max_segs;
	if (!k)
		return VOFF_E_GSO_LIMIT;
	p.unit = k * p.mss;
	p.id_step = k;
	p.pieces = true;
	p.nseg = (p.pay_len + p.unit - 1) / p.unit;
	return cut_flat(&p, pkt, pool, out, cap);
}
