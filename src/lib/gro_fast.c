/* SPDX-License-Identifier: MIT */
/*
 * gro_fast.c - the GRO engine's fast path and its receive entry points:
 * the merge of an in-sequence TCP segment after a masked compare with its
 * flow's template, a new flow's head taken without the parse,
 * voff_gro_receive() and voff_gro_receive_burst() with its prefetch
 * pipeline
 *
 * Every frame the fast path declines goes to the full path in gro.c
 * (voff__gro_full_receive(): called, never inlined into the burst loop).
 * The helpers both paths use (keys, hashes, new entries) are static
 * inlines in gro_int.h, inlined into each.  The templates and their
 * layouts are built in gro.c, when the full path takes a head (a new flow
 * taken here reuses a layout already built).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/gro.h>

#include "gro_int.h"

/* ---- the fast path ------------------------------------------------------ */

/*
 * The common case of a receive burst is the next in-sequence segment of a
 * held flow.  Its header block then equals the flow's head byte for byte,
 * except the IP length, IPv4 ID and header checksum and the TCP sequence
 * number and checksum.  The fast path checks exactly that with a few
 * masked 8-byte compares against the flow's template (the head's header
 * block, kept in the flow entry when the head is taken), then the
 * changing fields against the flow's state, instead of parsing and
 * applying each rule.
 *
 * The flow is found without parsing: the flow of the previous frame if
 * the frame's ports match its template, else the key words read at the
 * fixed offsets of the layout seen last (gro_make_key() on those offsets:
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
		diff |= (gro_ld64(pad + 8 * i) & L->mask[i]) ^ f->tmpl[i];
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
		    voff_csum_fold(f->ipsum + gro_ld16(ip + 2) +
				   gro_ld16(ip + 4) + gro_ld16(ip + 10)) != 0)
			return false;
	} else if (gro_get16(ip + 4) != l3_len - 40) {
		return false;
	}
	if (gro_expired(g, f, now_ns))
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
		gro_flush_flow(g, f);
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
	uint64_t ports = gro_ld32(d + L->l4_off);

	/* hash_key() over gro_make_key()'s words, without a key in memory. */
	if (L->ver == 4)
		return gro_hash_mix(L->hk +
				    gro_ld64(ip + 12) * gro_hash_mul[0] +
				    ports * gro_hash_mul[1]);
	return gro_hash_mix(L->hk + gro_ld64(ip + 8) * gro_hash_mul[0] +
			    gro_ld64(ip + 16) * gro_hash_mul[1] +
			    gro_ld64(ip + 24) * gro_hash_mul[2] +
			    gro_ld64(ip + 32) * gro_hash_mul[3] +
			    ports * gro_hash_mul[4]);
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
	if (!g->nlay || !gro_csum_trusted(pkt) || pkt->gso_type)
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
 * full path would hold it; @ipsum is its gro_ipv4_fixed_sum(), summed
 * already.  The entry ends up as hold() leaves it, but for template
 * words past the ones tmpl_eq() compares (no one reads them): the
 * template is built from the layout known already (no layout_of(), no
 * parse) in 16-byte words.  Inline, like gro_new_flow(): a call from the
 * burst loop saves and restores more than it costs.
 */
static inline __attribute__((always_inline)) void
fast_take(struct voff_gro *g, struct voff_pkt *pkt, const uint8_t *d, int lay,
	  const uint64_t *key, unsigned int kl, uint32_t h, uint32_t ipsum,
	  uint64_t now_ns)
{
	struct gro_layout *L = &g->lay[lay];
	struct gro_flow *f = gro_new_flow(g, h, key, kl);
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

	gro_head_init(f, pkt, &s, pkt->csum != VOFF_CSUM_PARTIAL, ipsum,
		      now_ns);
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
			f->tmpl[i] = gro_ld64(pad + 8 * i) & L->mask[i];
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
	    !gro_csum_trusted(pkt) || pkt->gso_type || !l2_shape_is(L, d))
		return false;
	if (L->ver == 4) {
		/* The header checksum, and the head's sum for later. */
		ipsum = gro_ipv4_fixed_sum(ip);
		if (ip[0] != 0x45 || ip[9] != 6 || gro_get16(ip + 2) != avail ||
		    (gro_get16(ip + 6) & 0xBFFF) ||
		    voff_csum_fold(ipsum + gro_ld16(ip + 2) +
				   gro_ld16(ip + 4) + gro_ld16(ip + 10)) != 0)
			return false;
	} else if (ip[0] >> 4 != 6 || ip[6] != 6 ||
		   L->l4_off - L->l3_off != 40 ||
		   40u + gro_get16(ip + 4) != avail) {
		return false;
	}
	kl = gro_make_key(key, ip, L->ver, 6, L->l3_off, th);
	for (i = same_hash ? g->buckets[h & g->bucket_mask] : GRO_NIL;
	     i != GRO_NIL; i = g->flows[i].hnext) {
		const struct gro_flow *f = &g->flows[i];

		if (f->hash == h && f->key_len == kl &&
		    gro_keys_eq(f->key, key, kl))
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
	return voff__gro_full_receive(gro, pkt, now_ns, h, lay);
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
