/* SPDX-License-Identifier: MIT */
/*
 * vring.c - the split virtqueue (virtio 1.2 §2.7) seen from the device:
 * chains taken from the available ring, used entries given back in
 * batches, notifications both ways suppressed with EVENT_IDX
 *
 * The rings live in guest memory that a hostile guest writes at any time.
 * Indices are read once with acquire loads; a descriptor is copied before
 * any of its fields is looked at; every buffer is translated through the
 * memory table (vhost_msg.c) with its whole length checked against one
 * region; a chain is bounded by the ring size (or its indirect table),
 * which also stops loops, and by VRING_MAX_SEGS buffers.  A bad chain is
 * handed back to the guest with length 0 and counted by the caller; a bad
 * available index breaks the ring until the front end restarts it.
 *
 * Layout, all little-endian (VERSION_1, or a legacy guest on a
 * little-endian host):
 *   descriptor: u64 addr, u32 len, u16 flags, u16 next
 *   available:  u16 flags, u16 idx, u16 ring[num], u16 used_event
 *   used:       u16 flags, u16 idx, {u32 id, u32 len}[num], u16 avail_event
 */
#include <endian.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <voff/err.h>

#include "vhost_int.h"

#define VRING_DESC_F_NEXT 1u
#define VRING_DESC_F_WRITE 2u
#define VRING_DESC_F_INDIRECT 4u
#define VRING_AVAIL_F_NO_INTERRUPT 1u

struct desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

_Static_assert(sizeof(struct desc) == 16, "a descriptor is 16 bytes");

void voff__vring_init(struct voff__vring *vr)
{
	memset(vr, 0, sizeof(*vr));
	vr->kick = -1;
	vr->call = -1;
	vr->err = -1;
}

static size_t desc_size(unsigned int num)
{
	return 16u * num;
}

static size_t avail_size(unsigned int num)
{
	return 6u + 2u * num;
}

static size_t used_size(unsigned int num)
{
	return 6u + 8u * num;
}

int voff__vring_map(struct voff__vring *vr, const struct voff__vhost_mem *m)
{
	void *d, *a, *u;

	vr->desc = NULL;
	vr->avail = NULL;
	vr->used = NULL;
	if (!vr->num)
		return -EFAULT;
	/* The alignments virtio requires, which the atomics below need. */
	if (vr->desc_uva % 16 || vr->avail_uva % 2 || vr->used_uva % 4)
		return -EFAULT;
	d = voff__vhost_uva(m, vr->desc_uva, desc_size(vr->num));
	a = voff__vhost_uva(m, vr->avail_uva, avail_size(vr->num));
	u = voff__vhost_uva(m, vr->used_uva, used_size(vr->num));
	if (!d || !a || !u)
		return -EFAULT;
	vr->desc = d;
	vr->avail = a;
	vr->used = u;
	return 0;
}

static uint16_t load_acq(const uint16_t *p)
{
	return le16toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static uint16_t load(const uint16_t *p)
{
	return le16toh(__atomic_load_n(p, __ATOMIC_RELAXED));
}

static void store(uint16_t *p, uint16_t v)
{
	__atomic_store_n(p, htole16(v), __ATOMIC_RELAXED);
}

unsigned int voff__vring_avail(struct voff__vring *vr)
{
	uint16_t n;

	if (!voff__vring_ready(vr))
		return 0;
	n = (uint16_t)(load_acq(&vr->avail[1]) - vr->last_avail);
	if (n > vr->num) {
		vr->broken = true;
		return 0;
	}
	return n;
}

/* Copy descriptor @i of the table at @table (@n entries). */
static void desc_read(const uint8_t *table, unsigned int i, struct desc *d)
{
	memcpy(d, table + 16u * i, sizeof(*d));
	d->addr = le64toh(d->addr);
	d->len = le32toh(d->len);
	d->flags = le16toh(d->flags);
	d->next = le16toh(d->next);
}

/* Add one buffer to @c, translated and of the right direction. */
static int add_seg(struct voff__vring_chain *c,
		   const struct voff__vhost_mem *m, const struct desc *d,
		   bool writable)
{
	uint8_t *p;

	if (!!(d->flags & VRING_DESC_F_WRITE) != writable)
		return VOFF_E_VHOST_CHAIN;
	if (!d->len)
		return 0;
	if (c->n == VRING_MAX_SEGS)
		return VOFF_E_VHOST_CHAIN;
	p = voff__vhost_gpa(m, d->addr, d->len);
	if (!p)
		return VOFF_E_VHOST_DESC;
	c->seg[c->n].p = p;
	c->seg[c->n].len = d->len;
	c->n++;
	c->len += d->len;
	return 0;
}

/* Walk the indirect table @d points at: it is the whole chain. */
static int walk_indirect(struct voff__vring_chain *c,
			 const struct voff__vhost_mem *m,
			 const struct desc *d, bool writable)
{
	unsigned int n = d->len / 16u, i = 0, hops = 0;
	const uint8_t *table;
	struct desc e;

	if (d->len % 16u || !n || n > VRING_MAX_INDIRECT)
		return VOFF_E_VHOST_INDIRECT;
	table = voff__vhost_gpa(m, d->addr, d->len);
	if (!table)
		return VOFF_E_VHOST_DESC;
	for (;;) {
		int err;

		desc_read(table, i, &e);
		if (e.flags & VRING_DESC_F_INDIRECT)
			return VOFF_E_VHOST_INDIRECT;
		err = add_seg(c, m, &e, writable);
		if (err)
			return err;
		if (!(e.flags & VRING_DESC_F_NEXT))
			return 0;
		/* n links at most: one more is a loop. */
		if (++hops >= n || e.next >= n)
			return VOFF_E_VHOST_INDIRECT;
		i = e.next;
	}
}

int voff__vring_pop(struct voff__vring *vr, const struct voff__vhost_mem *m,
		    bool writable, struct voff__vring_chain *c)
{
	unsigned int i, hops = 0;
	struct desc d;

	c->n = 0;
	c->len = 0;
	c->head = VRING_NO_HEAD;
	if (!voff__vring_avail(vr))
		return vr->broken ? VOFF_E_VHOST_RING : 0;
	i = load(&vr->avail[2 + vr->last_avail % vr->num]);
	vr->last_avail++;
	if (i >= vr->num) {
		vr->broken = true;
		return VOFF_E_VHOST_RING;
	}
	c->head = (uint16_t)i;
	for (;;) {
		int err;

		desc_read(vr->desc, i, &d);
		if (d.flags & VRING_DESC_F_INDIRECT) {
			/* Only as the whole chain, and only if negotiated. */
			if (!vr->indirect || hops ||
			    d.flags & VRING_DESC_F_NEXT)
				return VOFF_E_VHOST_INDIRECT;
			err = walk_indirect(c, m, &d, writable);
			return err ? err : 1;
		}
		err = add_seg(c, m, &d, writable);
		if (err)
			return err;
		if (!(d.flags & VRING_DESC_F_NEXT))
			return 1;
		if (++hops >= vr->num || d.next >= vr->num)
			return VOFF_E_VHOST_CHAIN;
		i = d.next;
	}
}

void voff__vring_unpop(struct voff__vring *vr, unsigned int n)
{
	vr->last_avail = (uint16_t)(vr->last_avail - n);
}

void voff__vring_put(struct voff__vring *vr, uint16_t head, uint32_t len)
{
	uint32_t e[2] = { htole32(head), htole32(len) };

	memcpy((uint8_t *)vr->used + 4u + 8u * (vr->used_idx % vr->num), e,
	       sizeof(e));
	vr->used_idx++;
}

/* virtio's vring_need_event(): did the index pass @event in (old, new]? */
static bool need_event(uint16_t event, uint16_t now, uint16_t old)
{
	return (uint16_t)(now - event - 1) < (uint16_t)(now - old);
}

bool voff__vring_publish(struct voff__vring *vr)
{
	uint16_t now = vr->used_idx, old = vr->signalled;
	bool notify;

	if (!vr->used || now == vr->published)
		return vr->call_pending;
	/* The entries before the index that shows them. */
	__atomic_store_n(&vr->used[1], htole16(now), __ATOMIC_RELEASE);
	vr->published = now;
	/* The index before reading what the guest wants (both orders). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (vr->event_idx) {
		notify = !vr->signalled_ok ||
			 need_event(load(&vr->avail[2 + vr->num]), now, old);
	} else {
		notify = !(load(&vr->avail[0]) & VRING_AVAIL_F_NO_INTERRUPT);
	}
	vr->signalled = now;
	vr->signalled_ok = true;
	if (notify && vr->call >= 0)
		vr->call_pending = true;
	return vr->call_pending;
}

bool voff__vring_call(struct voff__vring *vr)
{
	uint64_t one = 1;

	if (!vr->call_pending)
		return false;
	vr->call_pending = false;
	if (vr->call < 0)
		return false;
	if (write(vr->call, &one, sizeof(one)) == sizeof(one))
		vr->calls++;
	return true;
}

bool voff__vring_flush(struct voff__vring *vr)
{
	voff__vring_publish(vr);
	return voff__vring_call(vr);
}

bool voff__vring_arm(struct voff__vring *vr)
{
	if (!voff__vring_ready(vr))
		return false;
	if (vr->event_idx) {
		/* avail_event sits after the num used elements. */
		store((uint16_t *)((uint8_t *)vr->used + 4u + 8u * vr->num),
		      vr->last_avail);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	return voff__vring_avail(vr) != 0;
}
