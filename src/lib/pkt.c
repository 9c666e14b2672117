/* SPDX-License-Identifier: MIT */
/*
 * pkt.c - packet pools, packet buffers, software completion of a packet's
 * partial checksum, batches and scatter-gather views
 *
 * The pool takes all of its memory at creation: one array of descriptors,
 * one 64-byte aligned slab of equal buffers, each VOFF_PKT_HEADROOM +
 * data room + tailroom bytes, and a stack of pointers to the free
 * descriptors.  The stack is LIFO, so a packet just freed (still warm in
 * cache) is the next one handed out, and taking n packets is a copy of n
 * pointers from its top: no walk through the descriptors, whose next
 * fields a linked free list would chase one cache miss at a time.  See
 * pkt.h for the model and the ownership rules.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/pkt.h>

#include "pkt_int.h"

/* Minimum tailroom every pool buffer has past its data room. */
#define POOL_TAILROOM 64
#define POOL_MAX_COUNT (1u << 20)

struct voff_pool {
	struct voff_pkt *descs;
	uint8_t *slab;
	struct voff_pkt **stack;	/* free packets, top at n_free - 1 */
	unsigned int n_free;
	unsigned int count;
	unsigned int data_room;
	uint32_t buf_size;
};

static void clear_offsets(struct voff_pkt *pkt)
{
	pkt->l2_off = VOFF_OFF_NONE;
	pkt->l3_off = VOFF_OFF_NONE;
	pkt->l4_off = VOFF_OFF_NONE;
	pkt->inner_l2_off = VOFF_OFF_NONE;
	pkt->inner_l3_off = VOFF_OFF_NONE;
	pkt->inner_l4_off = VOFF_OFF_NONE;
	pkt->payload_off = VOFF_OFF_NONE;
}

void voff_pkt_clear_meta(struct voff_pkt *pkt)
{
	clear_offsets(pkt);
	pkt->csum = VOFF_CSUM_NONE;
	pkt->csum_start = 0;
	pkt->csum_offset = 0;
	pkt->gso_type = 0;
	pkt->gso_size = 0;
	pkt->gso_segs = 0;
	pkt->hdr_len = 0;
	pkt->hash = 0;
	pkt->rx_ns = 0;
}

void voff_pkt_reset(struct voff_pkt *pkt)
{
	uint32_t head = VOFF_PKT_HEADROOM;

	if (head > pkt->buf_size)
		head = pkt->buf_size;
	pkt->data_off = head;
	pkt->len = 0;
	voff_pkt_clear_meta(pkt);
}

int voff_pool_new(struct voff_pool **out, unsigned int count,
		  unsigned int data_room)
{
	struct voff_pool *pool;
	size_t buf_size, slab_size;

	if (!out || count == 0 || count > POOL_MAX_COUNT || data_room < 64 ||
	    data_room > VOFF_PKT_SUPER_ROOM)
		return -EINVAL;
	/* Round each buffer to a cache line so buffers never share one. */
	buf_size = (VOFF_PKT_HEADROOM + (size_t)data_room + POOL_TAILROOM +
		    63) & ~(size_t)63;
	slab_size = buf_size * count;

	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->descs = calloc(count, sizeof(*pool->descs));
	if (!pool->descs)
		goto err_descs;
	pool->slab = aligned_alloc(64, slab_size);
	if (!pool->slab)
		goto err_slab;
	pool->stack = malloc(sizeof(*pool->stack) * count);
	if (!pool->stack)
		goto err_stack;

	pool->count = count;
	pool->data_room = data_room;
	pool->buf_size = (uint32_t)buf_size;
	/* Stack descs[0] on top: the first allocation returns it. */
	for (unsigned int i = 0; i < count; i++) {
		struct voff_pkt *p = &pool->descs[i];

		p->buf = pool->slab + (size_t)i * buf_size;
		p->buf_size = (uint32_t)buf_size;
		p->source = VOFF_PKT_SRC_POOL;
		p->pool = pool;
		pool->stack[count - 1 - i] = p;
	}
	pool->n_free = count;
	*out = pool;
	return 0;

err_stack:
	free(pool->slab);
err_slab:
	free(pool->descs);
err_descs:
	free(pool);
	return -ENOMEM;
}

void voff_pool_free(struct voff_pool *pool)
{
	if (!pool)
		return;
	free(pool->stack);
	free(pool->slab);
	free(pool->descs);
	free(pool);
}

unsigned int voff_pool_in_use(const struct voff_pool *pool)
{
	return pool->count - pool->n_free;
}

unsigned int voff_pool_capacity(const struct voff_pool *pool)
{
	return pool->count;
}

unsigned int voff_pool_data_room(const struct voff_pool *pool)
{
	return pool->data_room;
}

/*
 * A packet leaving the free stack: what voff_pkt_reset() does, written out
 * so the compiler can merge the stores (a pool buffer always has room for
 * the full headroom).
 */
static inline void fresh(struct voff_pkt *p)
{
	p->next = NULL;
	p->port = 0;
	p->data_off = VOFF_PKT_HEADROOM;
	p->len = 0;
	voff_pkt_clear_meta(p);
}

int voff_pkt_alloc(struct voff_pool *pool, struct voff_pkt **out)
{
	struct voff_pkt *p;

	if (!pool->n_free)
		return -ENOBUFS;
	p = pool->stack[--pool->n_free];
	fresh(p);
	*out = p;
	return 0;
}

/* Pop @n packets (known to be free) into @pkts, resetting them or not. */
static inline void take(struct voff_pool *pool, struct voff_pkt **pkts,
			unsigned int n, bool reset)
{
	struct voff_pkt **top = pool->stack + pool->n_free;

	for (unsigned int i = 0; i < n; i++) {
		struct voff_pkt *p = *--top;

		if (reset) {
			fresh(p);
		} else {
			p->next = NULL;
			p->data_off = VOFF_PKT_HEADROOM;
			p->len = 0;
		}
		pkts[i] = p;
	}
	pool->n_free -= n;
}

int voff_pool_get_bulk(struct voff_pool *pool, struct voff_pkt **pkts,
		       unsigned int n)
{
	if (n > pool->n_free)
		return -ENOBUFS;
	take(pool, pkts, n, true);
	return 0;
}

int voff__pool_take(struct voff_pool *pool, struct voff_pkt **pkts,
		    unsigned int n)
{
	if (n > pool->n_free)
		return -ENOBUFS;
	take(pool, pkts, n, false);
	return 0;
}

unsigned int voff_pkt_alloc_bulk(struct voff_pool *pool,
				 struct voff_pkt **pkts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (voff_pkt_alloc(pool, &pkts[i]) != 0)
			break;
	return i;
}

void voff_pkt_free(struct voff_pkt *pkt)
{
	struct voff_pool *pool;

	if (!pkt)
		return;
	if (pkt->source != VOFF_PKT_SRC_POOL || !pkt->pool) {
		voff_pkt_reset(pkt);
		return;
	}
	pool = pkt->pool;
	/* A double free must not write past the stack. */
	if (pool->n_free < pool->count)
		pool->stack[pool->n_free++] = pkt;
}

void voff_pkt_free_bulk(struct voff_pkt **pkts, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		voff_pkt_free(pkts[i]);
}

void voff_pool_put_bulk(struct voff_pool *pool, struct voff_pkt **pkts,
			unsigned int n)
{
	/* Push in reverse so that the next bulk get returns array order. */
	for (unsigned int i = n; i-- > 0;) {
		struct voff_pkt *p = pkts[i];

		if (!p)
			continue;
		if (!pool || p->pool != pool ||
		    p->source != VOFF_PKT_SRC_POOL) {
			voff_pkt_free(p);
			continue;
		}
		if (pool->n_free < pool->count)
			pool->stack[pool->n_free++] = p;
	}
}

int voff_pkt_init_ext(struct voff_pkt *pkt, void *buf, uint32_t buf_size,
		      uint32_t headroom, uint32_t len)
{
	if (!pkt || !buf || headroom > buf_size || len > buf_size - headroom)
		return -EINVAL;
	memset(pkt, 0, sizeof(*pkt));
	pkt->buf = buf;
	pkt->buf_size = buf_size;
	pkt->data_off = headroom;
	pkt->len = len;
	pkt->source = VOFF_PKT_SRC_EXTERNAL;
	voff_pkt_clear_meta(pkt);
	return 0;
}

/* Shift one offset by @delta; offsets that fall off the front vanish. */
static uint16_t shift_off(uint16_t off, long delta)
{
	long v;

	if (off == VOFF_OFF_NONE)
		return off;
	v = (long)off + delta;
	if (v < 0 || v >= VOFF_OFF_NONE)
		return VOFF_OFF_NONE;
	return (uint16_t)v;
}

static void shift_offsets(struct voff_pkt *pkt, long delta)
{
	pkt->l2_off = shift_off(pkt->l2_off, delta);
	pkt->l3_off = shift_off(pkt->l3_off, delta);
	pkt->l4_off = shift_off(pkt->l4_off, delta);
	pkt->inner_l2_off = shift_off(pkt->inner_l2_off, delta);
	pkt->inner_l3_off = shift_off(pkt->inner_l3_off, delta);
	pkt->inner_l4_off = shift_off(pkt->inner_l4_off, delta);
	pkt->payload_off = shift_off(pkt->payload_off, delta);
	if (pkt->csum == VOFF_CSUM_PARTIAL) {
		long s = (long)pkt->csum_start + delta;

		if (s < 0 || s > 0xFFFF) {
			pkt->csum = VOFF_CSUM_NONE;
			pkt->csum_start = 0;
			pkt->csum_offset = 0;
		} else {
			pkt->csum_start = (uint16_t)s;
		}
	}
	if (pkt->hdr_len) {
		long h = (long)pkt->hdr_len + delta;

		pkt->hdr_len = h > 0 && h <= 0xFFFF ? (uint16_t)h : 0;
	}
}

/* Whether @off, when set, still names a byte below VOFF_OFF_NONE + @n. */
static bool off_fits(uint16_t off, uint32_t n)
{
	return off == VOFF_OFF_NONE || (uint32_t)off + n < VOFF_OFF_NONE;
}

/*
 * Whether every set offset, the partial checksum's start and hdr_len stay
 * representable after a push of @n: shift_offsets() would otherwise drop
 * them, and a dropped partial checksum is a frame sent unchecksummed.
 */
static bool push_fits(const struct voff_pkt *pkt, uint32_t n)
{
	if (!off_fits(pkt->l2_off, n) || !off_fits(pkt->l3_off, n) ||
	    !off_fits(pkt->l4_off, n) || !off_fits(pkt->inner_l2_off, n) ||
	    !off_fits(pkt->inner_l3_off, n) ||
	    !off_fits(pkt->inner_l4_off, n) || !off_fits(pkt->payload_off, n))
		return false;
	if (pkt->csum == VOFF_CSUM_PARTIAL &&
	    (uint32_t)pkt->csum_start + n > 0xFFFF)
		return false;
	return !pkt->hdr_len || (uint32_t)pkt->hdr_len + n <= 0xFFFF;
}

uint8_t *voff_pkt_push(struct voff_pkt *pkt, uint32_t n)
{
	if (n > pkt->data_off || !push_fits(pkt, n))
		return NULL;
	pkt->data_off -= n;
	pkt->len += n;
	shift_offsets(pkt, (long)n);
	return voff_pkt_data(pkt);
}

uint8_t *voff_pkt_pull(struct voff_pkt *pkt, uint32_t n)
{
	if (n > pkt->len)
		return NULL;
	pkt->data_off += n;
	pkt->len -= n;
	shift_offsets(pkt, -(long)n);
	return voff_pkt_data(pkt);
}

uint8_t *voff_pkt_put(struct voff_pkt *pkt, uint32_t n)
{
	uint8_t *tail;

	if (n > voff_pkt_tailroom(pkt))
		return NULL;
	tail = voff_pkt_data(pkt) + pkt->len;
	pkt->len += n;
	return tail;
}

int voff_pkt_trim(struct voff_pkt *pkt, uint32_t len)
{
	if (len > pkt->len)
		return -EINVAL;
	pkt->len = len;
	return 0;
}

int voff_pkt_set_data(struct voff_pkt *pkt, const void *data, uint32_t len)
{
	uint32_t head = VOFF_PKT_HEADROOM;

	if (head > pkt->buf_size)
		head = pkt->buf_size;
	if (len > pkt->buf_size - head) {
		/* An external buffer may still fit it with less headroom. */
		if (pkt->source != VOFF_PKT_SRC_EXTERNAL || len > pkt->buf_size)
			return VOFF_E_TOO_BIG;
		head = pkt->buf_size - len;
	}
	voff_pkt_reset(pkt);
	pkt->data_off = head;
	if (len)
		memmove(voff_pkt_data(pkt), data, len);
	pkt->len = len;
	return 0;
}

void voff_pkt_copy_meta(struct voff_pkt *dst, const struct voff_pkt *src)
{
	dst->l2_off = src->l2_off;
	dst->l3_off = src->l3_off;
	dst->l4_off = src->l4_off;
	dst->inner_l2_off = src->inner_l2_off;
	dst->inner_l3_off = src->inner_l3_off;
	dst->inner_l4_off = src->inner_l4_off;
	dst->payload_off = src->payload_off;
	dst->csum = src->csum;
	dst->csum_start = src->csum_start;
	dst->csum_offset = src->csum_offset;
	dst->gso_type = src->gso_type;
	dst->gso_size = src->gso_size;
	dst->gso_segs = src->gso_segs;
	dst->hdr_len = src->hdr_len;
	dst->port = src->port;
	dst->hash = src->hash;
	dst->rx_ns = src->rx_ns;
}

int voff_pkt_clone(struct voff_pool *pool, const struct voff_pkt *src,
		   struct voff_pkt **out)
{
	struct voff_pkt *p;
	int rc;

	if (src->len > pool->buf_size - VOFF_PKT_HEADROOM)
		return VOFF_E_TOO_BIG;
	rc = voff_pkt_alloc(pool, &p);
	if (rc)
		return rc;
	memcpy(voff_pkt_data(p), voff_pkt_data(src), src->len);
	p->len = src->len;
	voff_pkt_copy_meta(p, src);
	*out = p;
	return 0;
}

/*
 * One function for every egress that lacks checksum offload: the switch's
 * plain frames and the GRO engine's super-packets (pkt.h says why GSO
 * packets are completed, not refused).
 */
int voff_pkt_csum_complete(struct voff_pkt *pkt)
{
	int err;

	if (pkt->csum != VOFF_CSUM_PARTIAL)
		return 0;
	err = voff_csum_complete_at(voff_pkt_data(pkt), pkt->len,
				    pkt->csum_start, pkt->csum_offset);
	if (err)
		return err;
	pkt->csum = VOFF_CSUM_NONE;
	pkt->csum_start = 0;
	pkt->csum_offset = 0;
	return 0;
}

void voff_batch_free(struct voff_batch *b)
{
	voff_pkt_free_bulk(b->pkts, b->n);
	b->n = 0;
}

void voff_sg_init(struct voff_sg *sg, struct iovec *iov, unsigned int cap)
{
	sg->iov = iov;
	sg->n = 0;
	sg->cap = cap;
	sg->len = 0;
}

int voff_sg_add(struct voff_sg *sg, const void *base, size_t len)
{
	if (len == 0)
		return 0;
	if (sg->n) {
		struct iovec *last = &sg->iov[sg->n - 1];

		if ((const uint8_t *)last->iov_base + last->iov_len ==
		    (const uint8_t *)base) {
			last->iov_len += len;
			sg->len += len;
			return 0;
		}
	}
	if (sg->n >= sg->cap)
		return -ENOSPC;
	/* iovec has no const member; the view never writes through it. */
	sg->iov[sg->n].iov_base = (void *)(uintptr_t)base;
	sg->iov[sg->n].iov_len = len;
	sg->n++;
	sg->len += len;
	return 0;
}

int voff_sg_add_pkt(struct voff_sg *sg, const struct voff_pkt *pkt,
		    uint32_t off, uint32_t len)
{
	if (off > pkt->len || len > pkt->len - off)
		return -EINVAL;
	return voff_sg_add(sg, voff_pkt_data(pkt) + off, len);
}

size_t voff_sg_copy(const struct voff_sg *sg, void *dst, size_t cap)
{
	uint8_t *d = dst;
	size_t done = 0;

	for (unsigned int i = 0; i < sg->n && done < cap; i++) {
		size_t n = sg->iov[i].iov_len;

		if (n > cap - done)
			n = cap - done;
		memcpy(d + done, sg->iov[i].iov_base, n);
		done += n;
	}
	return done;
}

uint32_t voff_sg_csum(const struct voff_sg *sg, uint32_t sum)
{
	size_t pos = 0;

	for (unsigned int i = 0; i < sg->n; i++) {
		uint32_t s = voff_csum(sg->iov[i].iov_base, sg->iov[i].iov_len,
				       0);

		sum = voff_csum_block_add(sum, s, pos);
		pos += sg->iov[i].iov_len;
	}
	return sum;
}
