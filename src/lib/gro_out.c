/* SPDX-License-Identifier: MIT */
/*
 * gro_out.c - the GRO engine's output side: writing a held flow's head
 * as an output (a super-packet's headers and GSO metadata), flushing the
 * flows into the output queue, and taking outputs from it
 * (voff_gro_pop(), voff_gro_pop_sg(), voff_gro_drain())
 *
 * gro.c holds the flows and decides when one is flushed
 * (gro_flush_flow() in gro_int.h calls voff__gro_emit() here, then frees
 * the entry there); voff_gro_flush() and voff_gro_flush_all() walk the
 * flows themselves.  The output queue is a ring of outputs (struct
 * gro_out: head and newest packet, packet count, payload offset), with a
 * list of packets behind it for when the ring is full: enqueuing and
 * taking an output from the ring follow no descriptor but the chain's.
 */
#include <string.h>
#include <sys/uio.h>

#include <arpa/inet.h>

#include <voff/csum.h>
#include <voff/gro.h>

#include "gro_int.h"

/* ---- the output queue and writing an output ------------------------------ */

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

void voff__gro_emit(struct voff_gro *g, const struct gro_flow *f)
{
	struct voff_pkt *hd = f->head;

	g->st.out_merged += write_out(f, hd, l2_off_of(g));
	if (g->cfg.sg)
		enqueue(g, hd, f->tail, f->count, f->pay_off);
	else
		enqueue(g, hd, hd, 1, f->pay_off);
}

/* ---- flushing ---------------------------------------------------------- */

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
	       gro_expired(gro, &gro->flows[gro->oldest], now_ns)) {
		gro_flush_flow(gro, &gro->flows[gro->oldest]);
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

void voff__gro_out_free(struct voff_gro *g)
{
	struct voff_pkt *p[VOFF_GRO_SG_MAX_SEGS];

	while (g->q_len) {
		unsigned int n = run_len(g);

		take_out(g, p, n);
		voff_pkt_free_bulk(p, n);
	}
}
