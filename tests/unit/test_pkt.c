/* SPDX-License-Identifier: MIT */
/*
 * test_pkt.c - packet pools, buffers, batches and scatter-gather views
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/pkt.h>

#include "check.h"

static void t_pool_args(void)
{
	struct voff_pool *pool = (struct voff_pool *)0x1;

	CHECK_EQ(voff_pool_new(&pool, 0, 2048), -EINVAL);
	CHECK_EQ(voff_pool_new(&pool, 4, 63), -EINVAL);
	CHECK_EQ(voff_pool_new(&pool, 4, VOFF_PKT_SUPER_ROOM + 1), -EINVAL);
	CHECK_EQ(voff_pool_new(&pool, (1u << 20) + 1, 64), -EINVAL);
	CHECK(pool == (struct voff_pool *)0x1); /* untouched on failure */
	voff_pool_free(NULL);			/* no-op */
}

static void t_pool_exhaust(void)
{
	struct voff_pool *pool;
	struct voff_pkt *p[9], *extra = NULL;

	CHECK_OK(voff_pool_new(&pool, 8, 2048));
	CHECK_EQ(voff_pool_capacity(pool), 8);
	CHECK_EQ(voff_pool_data_room(pool), 2048);
	for (int i = 0; i < 8; i++) {
		CHECK_OK(voff_pkt_alloc(pool, &p[i]));
		CHECK_EQ(voff_pool_in_use(pool), i + 1);
		for (int j = 0; j < i; j++)
			CHECK(p[i] != p[j]);
	}
	CHECK_EQ(voff_pkt_alloc(pool, &extra), -ENOBUFS);
	CHECK(extra == NULL);
	voff_pkt_free(p[3]);
	CHECK_EQ(voff_pool_in_use(pool), 7);
	/* LIFO: the packet just freed comes back first. */
	CHECK_OK(voff_pkt_alloc(pool, &p[8]));
	CHECK(p[8] == p[3]);
	p[3] = NULL;
	for (int i = 0; i < 9; i++)
		voff_pkt_free(p[i]);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_alloc_state(void)
{
	struct voff_pool *pool;
	struct voff_pkt *p;

	CHECK_OK(voff_pool_new(&pool, 2, 1600));
	CHECK_OK(voff_pkt_alloc(pool, &p));
	CHECK_EQ(p->len, 0);
	CHECK_EQ(voff_pkt_headroom(p), VOFF_PKT_HEADROOM);
	CHECK_GE(voff_pkt_tailroom(p), 1600 + 64);
	CHECK_EQ((uintptr_t)p->buf % 64, 0);
	CHECK_EQ(p->l2_off, VOFF_OFF_NONE);
	CHECK_EQ(p->l3_off, VOFF_OFF_NONE);
	CHECK_EQ(p->l4_off, VOFF_OFF_NONE);
	CHECK_EQ(p->inner_l3_off, VOFF_OFF_NONE);
	CHECK_EQ(p->payload_off, VOFF_OFF_NONE);
	CHECK_EQ(p->csum, VOFF_CSUM_NONE);
	CHECK_EQ(p->gso_type, 0);
	CHECK(!voff_pkt_is_gso(p));
	/* Dirty it, free it, take it again: it must come back clean. */
	p->gso_type = VOFF_GSO_TCPV4;
	p->gso_size = 1448;
	p->csum = VOFF_CSUM_PARTIAL;
	p->l3_off = 14;
	CHECK(voff_pkt_put(p, 100) != NULL);
	CHECK(voff_pkt_is_gso(p));
	voff_pkt_free(p);
	CHECK_OK(voff_pkt_alloc(pool, &p));
	CHECK_EQ(p->len, 0);
	CHECK_EQ(p->gso_type, 0);
	CHECK_EQ(p->csum, VOFF_CSUM_NONE);
	CHECK_EQ(p->l3_off, VOFF_OFF_NONE);
	voff_pkt_free(p);
	voff_pool_free(pool);
}

/*
 * A push that would carry an offset or the checksum start past what 16 bits
 * name is refused: the offsets could no longer name the same bytes, and a
 * partial checksum would be lost (review: it silently became NONE).
 */
static void t_push_offset_overflow(void)
{
	static uint8_t big[0x10000 + 128];
	struct voff_pkt p, before;

	CHECK_OK(voff_pkt_init_ext(&p, big, sizeof(big), 0x10000, 64));
	p.l2_off = 0;
	p.l3_off = 14;
	p.l4_off = 34;
	p.csum = VOFF_CSUM_PARTIAL;
	p.csum_start = 34;
	p.csum_offset = 16;
	p.hdr_len = 54;
	before = p;
	CHECK(voff_pkt_push(&p, 0xFFFF - 34) == NULL);
	CHECK_MEM_EQ(&before, &p, sizeof(p));
	/* Offsets fit, hdr_len would not. */
	CHECK(voff_pkt_push(&p, 0xFFFF - 53) == NULL);
	CHECK_MEM_EQ(&before, &p, sizeof(p));
	/* The largest push that keeps everything representable. */
	CHECK(voff_pkt_push(&p, 0xFFFF - 54) != NULL);
	CHECK_EQ(p.l2_off, 0xFFFF - 54);
	CHECK_EQ(p.l4_off, 0xFFFF - 20);
	CHECK_EQ(p.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(p.csum_start, 0xFFFF - 20);
	CHECK_EQ(p.hdr_len, 0xFFFF);

	/* Only a partial checksum set: its start may reach 0xFFFF. */
	CHECK_OK(voff_pkt_init_ext(&p, big, sizeof(big), 0x10000, 64));
	p.csum = VOFF_CSUM_PARTIAL;
	p.csum_start = 34;
	p.csum_offset = 16;
	before = p;
	CHECK(voff_pkt_push(&p, 0xFFFF - 33) == NULL);
	CHECK_MEM_EQ(&before, &p, sizeof(p));
	CHECK(voff_pkt_push(&p, 0xFFFF - 34) != NULL);
	CHECK_EQ(p.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(p.csum_start, 0xFFFF);
}

static void t_push_pull(void)
{
	struct voff_pool *pool;
	struct voff_pkt *p;
	uint8_t *d;

	CHECK_OK(voff_pool_new(&pool, 1, 2048));
	CHECK_OK(voff_pkt_alloc(pool, &p));
	d = voff_pkt_put(p, 60);
	CHECK(d == voff_pkt_data(p));
	for (int i = 0; i < 60; i++)
		d[i] = (uint8_t)i;
	p->l2_off = 0;
	p->l3_off = 14;
	p->l4_off = 34;
	p->payload_off = 54;
	p->csum = VOFF_CSUM_PARTIAL;
	p->csum_start = 34;
	p->csum_offset = 16;
	p->hdr_len = 54;

	/* Prepend a 24-byte vnet header and 50 bytes of encapsulation. */
	d = voff_pkt_push(p, 74);
	CHECK(d != NULL);
	CHECK_EQ(p->len, 134);
	CHECK_EQ(voff_pkt_headroom(p), VOFF_PKT_HEADROOM - 74);
	CHECK_EQ(p->l2_off, 74);
	CHECK_EQ(p->l3_off, 88);
	CHECK_EQ(p->l4_off, 108);
	CHECK_EQ(p->payload_off, 128);
	CHECK_EQ(p->csum_start, 108);
	CHECK_EQ(p->hdr_len, 128);
	CHECK_EQ(voff_pkt_data(p)[74 + 5], 5); /* data did not move */

	/* More than the headroom: refused, nothing changes. */
	CHECK(voff_pkt_push(p, VOFF_PKT_HEADROOM) == NULL);
	CHECK_EQ(p->len, 134);

	/* Strip back past the L2 and L3 headers. */
	CHECK(voff_pkt_pull(p, 74 + 34) != NULL);
	CHECK_EQ(p->l2_off, VOFF_OFF_NONE);
	CHECK_EQ(p->l3_off, VOFF_OFF_NONE);
	CHECK_EQ(p->l4_off, 0);
	CHECK_EQ(p->csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(p->csum_start, 0);
	CHECK_EQ(voff_pkt_data(p)[0], 34);
	/* Past the checksum start: the partial state cannot survive. */
	CHECK(voff_pkt_pull(p, 1) != NULL);
	CHECK_EQ(p->csum, VOFF_CSUM_NONE);
	CHECK_EQ(p->l4_off, VOFF_OFF_NONE);
	CHECK(voff_pkt_pull(p, p->len + 1) == NULL);
	CHECK(voff_pkt_pull(p, p->len) != NULL);
	CHECK_EQ(p->len, 0);

	voff_pkt_free(p);
	voff_pool_free(pool);
}

static void t_put_trim_tailroom(void)
{
	struct voff_pool *pool;
	struct voff_pkt *p;
	uint32_t room;

	CHECK_OK(voff_pool_new(&pool, 1, 64));
	CHECK_OK(voff_pkt_alloc(pool, &p));
	room = voff_pkt_tailroom(p);
	CHECK_GE(room, 128);
	CHECK(voff_pkt_put(p, room + 1) == NULL);
	CHECK_EQ(p->len, 0);
	CHECK(voff_pkt_put(p, room) != NULL);
	CHECK_EQ(voff_pkt_tailroom(p), 0);
	CHECK_EQ(voff_pkt_trim(p, room + 1), -EINVAL);
	CHECK_OK(voff_pkt_trim(p, 10));
	CHECK_EQ(p->len, 10);
	voff_pkt_free(p);
	voff_pool_free(pool);
}

static void t_set_data_clone(void)
{
	struct voff_pool *small, *big;
	struct voff_pkt *p, *q = NULL;
	uint8_t data[3000];

	check_fill_random(data, sizeof(data));
	CHECK_OK(voff_pool_new(&small, 2, 1500));
	CHECK_OK(voff_pool_new(&big, 2, 4000));
	CHECK_OK(voff_pkt_alloc(big, &p));
	CHECK_OK(voff_pkt_set_data(p, data, sizeof(data)));
	CHECK_EQ(p->len, sizeof(data));
	CHECK_MEM_EQ(voff_pkt_data(p), data, sizeof(data));
	p->gso_type = VOFF_GSO_TCPV6;
	p->gso_size = 1000;
	p->l3_off = 14;
	p->port = 7;
	/* Too big for the small pool: refused, nothing taken from it. */
	CHECK_EQ(voff_pkt_clone(small, p, &q), VOFF_E_TOO_BIG);
	CHECK(q == NULL);
	CHECK_EQ(voff_pool_in_use(small), 0);
	CHECK_OK(voff_pkt_clone(big, p, &q));
	CHECK(q != p);
	CHECK_EQ(q->len, p->len);
	CHECK_MEM_EQ(voff_pkt_data(q), data, sizeof(data));
	CHECK_EQ(q->gso_type, VOFF_GSO_TCPV6);
	CHECK_EQ(q->gso_size, 1000);
	CHECK_EQ(q->l3_off, 14);
	CHECK_EQ(q->port, 7);
	CHECK_EQ(voff_pkt_headroom(q), VOFF_PKT_HEADROOM);
	/* Set data that does not fit a pool packet: refused, data kept. */
	voff_pkt_free(q);
	CHECK_OK(voff_pkt_alloc(small, &q));
	CHECK_OK(voff_pkt_set_data(q, data, 100));
	CHECK_EQ(voff_pkt_set_data(q, data, sizeof(data)), VOFF_E_TOO_BIG);
	CHECK_EQ(q->len, 100);
	voff_pkt_free(q);
	voff_pkt_free(p);
	voff_pool_free(small);
	voff_pool_free(big);
}

static void t_external(void)
{
	uint8_t buf[300];
	struct voff_pkt pkt;

	CHECK_EQ(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 301, 0), -EINVAL);
	CHECK_EQ(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 100, 201), -EINVAL);
	CHECK_OK(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 100, 200));
	CHECK(voff_pkt_data(&pkt) == buf + 100);
	CHECK_EQ(pkt.source, VOFF_PKT_SRC_EXTERNAL);
	CHECK(pkt.pool == NULL);
	CHECK_EQ(voff_pkt_tailroom(&pkt), 0);
	/* An external buffer smaller than the standard headroom still works. */
	CHECK_OK(voff_pkt_set_data(&pkt, "abcdef", 6));
	CHECK_EQ(pkt.len, 6);
	CHECK_MEM_EQ(voff_pkt_data(&pkt), "abcdef", 6);
	CHECK_EQ(voff_pkt_headroom(&pkt), VOFF_PKT_HEADROOM);
	voff_pkt_free(&pkt); /* only resets */
	CHECK_EQ(pkt.len, 0);
	CHECK(pkt.buf == buf);
}

static void t_batch(void)
{
	struct voff_pool *pool;
	struct voff_batch b;
	struct voff_pkt *p, *more[200];

	CHECK_OK(voff_pool_new(&pool, VOFF_BATCH_MAX + 1, 128));
	voff_batch_init(&b);
	CHECK_EQ(voff_batch_space(&b), VOFF_BATCH_MAX);
	CHECK_EQ(voff_pkt_alloc_bulk(pool, b.pkts, VOFF_BATCH_MAX),
		 VOFF_BATCH_MAX);
	b.n = VOFF_BATCH_MAX;
	CHECK_OK(voff_pkt_alloc(pool, &p));
	CHECK_EQ(voff_batch_add(&b, p), -ENOSPC);
	CHECK_EQ(voff_pool_in_use(pool), VOFF_BATCH_MAX + 1);
	voff_batch_free(&b);
	CHECK_EQ(b.n, 0);
	CHECK_EQ(voff_pool_in_use(pool), 1);
	CHECK_OK(voff_batch_add(&b, p));
	/* Asking for more than the pool holds gives what is left. */
	CHECK_EQ(voff_pkt_alloc_bulk(pool, more, 200), VOFF_BATCH_MAX);
	voff_pkt_free_bulk(more, VOFF_BATCH_MAX);
	voff_batch_free(&b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* A packet as voff_pkt_alloc() hands it out. */
static void check_fresh(const struct voff_pkt *p)
{
	CHECK_EQ(p->data_off, VOFF_PKT_HEADROOM);
	CHECK_EQ(p->len, 0);
	CHECK_EQ(p->l2_off, VOFF_OFF_NONE);
	CHECK_EQ(p->l3_off, VOFF_OFF_NONE);
	CHECK_EQ(p->l4_off, VOFF_OFF_NONE);
	CHECK_EQ(p->inner_l2_off, VOFF_OFF_NONE);
	CHECK_EQ(p->inner_l3_off, VOFF_OFF_NONE);
	CHECK_EQ(p->inner_l4_off, VOFF_OFF_NONE);
	CHECK_EQ(p->payload_off, VOFF_OFF_NONE);
	CHECK_EQ(p->csum, VOFF_CSUM_NONE);
	CHECK_EQ(p->csum_start, 0);
	CHECK_EQ(p->csum_offset, 0);
	CHECK_EQ(p->gso_type, 0);
	CHECK_EQ(p->gso_size, 0);
	CHECK_EQ(p->gso_segs, 0);
	CHECK_EQ(p->hdr_len, 0);
	CHECK_EQ(p->port, 0);
	CHECK_EQ(p->hash, 0);
	CHECK_EQ(p->rx_ns, 0);
	CHECK_EQ(p->source, VOFF_PKT_SRC_POOL);
	CHECK(p->next == NULL);
}

/* Leave traces in every field a fresh packet must have cleared. */
static void dirty(struct voff_pkt *p)
{
	CHECK(voff_pkt_put(p, 40) != NULL);
	CHECK(voff_pkt_push(p, 3) != NULL);
	p->l2_off = 0;
	p->l3_off = 14;
	p->l4_off = 34;
	p->inner_l2_off = p->inner_l3_off = p->inner_l4_off = 1;
	p->payload_off = 2;
	p->csum = VOFF_CSUM_PARTIAL;
	p->csum_start = 34;
	p->csum_offset = 16;
	p->gso_type = VOFF_GSO_TCPV4;
	p->gso_size = 100;
	p->gso_segs = 3;
	p->hdr_len = 66;
	p->port = 7;
	p->hash = 9;
	p->rx_ns = 11;
}

static void t_pool_get_put_bulk(void)
{
	struct voff_pool *pool, *other;
	struct voff_pkt *p[4], *q[4], *more[8], *x;

	CHECK_OK(voff_pool_new(&pool, 6, 256));
	CHECK_OK(voff_pool_new(&other, 2, 256));
	CHECK_OK(voff_pool_get_bulk(pool, p, 0));
	CHECK_OK(voff_pool_get_bulk(pool, p, 4));
	CHECK_EQ(voff_pool_in_use(pool), 4);
	for (int i = 0; i < 4; i++) {
		check_fresh(p[i]);
		dirty(p[i]);
	}
	/* All or nothing: 3 wanted, 2 free. */
	more[0] = more[1] = more[2] = NULL;
	CHECK_EQ(voff_pool_get_bulk(pool, more, 3), -ENOBUFS);
	CHECK(more[0] == NULL && more[1] == NULL && more[2] == NULL);
	CHECK_EQ(voff_pool_in_use(pool), 4);
	/* Mixed array: NULLs, another pool's packet, an external one. */
	{
		uint8_t buf[64];
		struct voff_pkt ext;
		struct voff_pkt *mix[7];

		CHECK_OK(voff_pkt_init_ext(&ext, buf, sizeof(buf), 0, 10));
		CHECK_OK(voff_pkt_alloc(other, &x));
		mix[0] = p[2];
		mix[1] = NULL;
		mix[2] = x;
		mix[3] = p[0];
		mix[4] = &ext;
		mix[5] = p[3];
		mix[6] = NULL;
		voff_pool_put_bulk(pool, mix, 7);
		CHECK_EQ(voff_pool_in_use(pool), 1);
		CHECK_EQ(voff_pool_in_use(other), 0);
		CHECK_EQ(ext.len, 0);
		CHECK(ext.buf == buf);
	}
	/* They come back in array order, cleared. */
	CHECK_OK(voff_pool_get_bulk(pool, q, 3));
	CHECK(q[0] == p[2] && q[1] == p[0] && q[2] == p[3]);
	for (int i = 0; i < 3; i++)
		check_fresh(q[i]);
	voff_pool_put_bulk(pool, q, 3);
	voff_pool_put_bulk(pool, &p[1], 1);
	voff_pool_put_bulk(NULL, NULL, 0);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	CHECK_OK(voff_pool_get_bulk(pool, more, 6));
	CHECK_EQ(voff_pool_get_bulk(pool, more + 6, 1), -ENOBUFS);
	voff_pool_put_bulk(pool, more, 6);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(other);
	voff_pool_free(pool);
}

#define TWIN_COUNT 40

/*
 * Bulk get/put against the single calls on a twin pool: the same random
 * sequence of operations must hand out the same buffers (by index) in the
 * same order, fail at the same points, and leave the same in_use counts.
 * Bulk put of @pkts is n frees in reverse order; bulk get of n is n allocs.
 */
static void t_pool_bulk_vs_single(void)
{
	struct voff_pool *a, *b;
	struct voff_pkt *ha[TWIN_COUNT], *hb[TWIN_COUNT];
	unsigned int nh = 0;
	uint8_t *base_a, *base_b;

	CHECK_OK(voff_pool_new(&a, TWIN_COUNT, 128));
	CHECK_OK(voff_pool_new(&b, TWIN_COUNT, 128));
	/* A fresh pool hands out its first buffer first. */
	CHECK_OK(voff_pkt_alloc(a, &ha[0]));
	CHECK_OK(voff_pkt_alloc(b, &hb[0]));
	base_a = ha[0]->buf;
	base_b = hb[0]->buf;
	voff_pkt_free(ha[0]);
	voff_pkt_free(hb[0]);
	for (int it = 0; it < 3000; it++) {
		unsigned int k = (unsigned int)(check_rand() % 24);

		if (check_rand() & 1) {
			struct voff_pkt *ga[24];
			int rc = voff_pool_get_bulk(a, ga, k);

			if (k > TWIN_COUNT - nh) {
				CHECK_EQ(rc, -ENOBUFS);
				continue;
			}
			CHECK_OK(rc);
			for (unsigned int i = 0; i < k; i++) {
				CHECK_OK(voff_pkt_alloc(b, &hb[nh]));
				ha[nh] = ga[i];
				check_fresh(ha[nh]);
				CHECK_EQ(ha[nh]->buf - base_a,
					 hb[nh]->buf - base_b);
				dirty(ha[nh]);
				dirty(hb[nh]);
				nh++;
			}
		} else {
			struct voff_pkt *pa[48], *pb[24];
			unsigned int m = 0, np = 0;

			if (k > nh)
				k = nh;
			/* Take k random held packets, with NULLs between. */
			for (unsigned int i = 0; i < k; i++) {
				unsigned int j = (unsigned int)(check_rand() %
								nh);

				if ((check_rand() & 7) == 0)
					pa[np++] = NULL;
				pa[np++] = ha[j];
				pb[m++] = hb[j];
				nh--;
				ha[j] = ha[nh];
				hb[j] = hb[nh];
			}
			voff_pool_put_bulk(a, pa, np);
			while (m)
				voff_pkt_free(pb[--m]);
		}
		CHECK_EQ(voff_pool_in_use(a), nh);
		CHECK_EQ(voff_pool_in_use(b), nh);
	}
	voff_pool_put_bulk(a, ha, nh);
	voff_pkt_free_bulk(hb, nh);
	CHECK_EQ(voff_pool_in_use(a), 0);
	CHECK_EQ(voff_pool_in_use(b), 0);
	voff_pool_free(a);
	voff_pool_free(b);
}

static void t_sg_basic(void)
{
	struct iovec iov[3];
	struct voff_sg sg;
	uint8_t a[64], out[64];

	check_fill_random(a, sizeof(a));
	voff_sg_init(&sg, iov, 3);
	CHECK_OK(voff_sg_add(&sg, a, 10));
	CHECK_OK(voff_sg_add(&sg, a + 10, 5)); /* contiguous: merged */
	CHECK_EQ(sg.n, 1);
	CHECK_EQ(sg.iov[0].iov_len, 15);
	CHECK_OK(voff_sg_add(&sg, a + 20, 0)); /* empty: ignored */
	CHECK_OK(voff_sg_add(&sg, a + 20, 4));
	CHECK_OK(voff_sg_add(&sg, a + 30, 4));
	CHECK_EQ(sg.n, 3);
	CHECK_EQ(voff_sg_add(&sg, a + 40, 4), -ENOSPC);
	CHECK_EQ(sg.n, 3);
	CHECK_EQ(sg.len, 23);
	CHECK_EQ(voff_sg_copy(&sg, out, sizeof(out)), 23);
	CHECK_MEM_EQ(out, a, 15);
	CHECK_MEM_EQ(out + 15, a + 20, 4);
	CHECK_MEM_EQ(out + 19, a + 30, 4);
	CHECK_EQ(voff_sg_copy(&sg, out, 17), 17);
}

static void t_sg_pkt_and_csum(void)
{
	struct voff_pool *pool;
	struct voff_pkt *p;
	struct iovec iov[16];
	struct voff_sg sg;
	uint8_t hdr[54], flat[54 + 6 * 1800];

	CHECK_OK(voff_pool_new(&pool, 1, 2048));
	CHECK_OK(voff_pkt_alloc(pool, &p));
	check_fill_random(voff_pkt_put(p, 1800), 1800);
	check_fill_random(hdr, sizeof(hdr));
	CHECK_EQ(voff_sg_add_pkt(&sg, p, 1801, 0), -EINVAL);
	for (int round = 0; round < 200; round++) {
		size_t used;

		voff_sg_init(&sg, iov, 16);
		/* A header slot of odd length then odd-sized payload cuts. */
		CHECK_OK(voff_sg_add(&sg, hdr, 1 + check_rand() % 54));
		for (int k = 0; k < 6; k++) {
			uint32_t off = (uint32_t)(check_rand() % 1800);
			uint32_t len = (uint32_t)(check_rand() % (1800 - off));

			CHECK_OK(voff_sg_add_pkt(&sg, p, off, len));
		}
		CHECK_EQ(voff_sg_add_pkt(&sg, p, 1000, 801), -EINVAL);
		CHECK_LE(sg.len, sizeof(flat));
		used = voff_sg_copy(&sg, flat, sizeof(flat));
		CHECK_EQ(used, sg.len);
		CHECK_EQ(voff_csum_fold(voff_sg_csum(&sg, 0x1234)),
			 voff_csum_fold(voff_csum_naive(flat, used, 0x1234)));
	}
	voff_pkt_free(p);
	voff_pool_free(pool);
}

static void t_strerror(void)
{
	CHECK_STR_EQ(voff_err_name(VOFF_E_TRUNC_ETH), "trunc_eth");
	CHECK_STR_EQ(voff_strerror(VOFF_E_TRUNC_ETH),
		     "frame shorter than an Ethernet header");
	CHECK_STR_EQ(voff_err_name(-EINVAL), "einval");
	CHECK_STR_EQ(voff_strerror(0), "success");
	CHECK(voff_err_is_voff(VOFF_E_TOO_BIG));
	CHECK(!voff_err_is_voff(-ENOMEM));
	CHECK(!voff_err_is_voff(0));
	CHECK_STR_EQ(voff_err_name(-VOFF_E_BASE - 100000), "?");
	CHECK_STR_EQ(voff_strerror(-VOFF_E_BASE - 100000), "unknown error");
}

CHECK_MAIN(CHECK_TEST(t_pool_args), CHECK_TEST(t_pool_exhaust),
	   CHECK_TEST(t_alloc_state), CHECK_TEST(t_push_pull),
	   CHECK_TEST(t_push_offset_overflow),
	   CHECK_TEST(t_put_trim_tailroom), CHECK_TEST(t_set_data_clone),
	   CHECK_TEST(t_external), CHECK_TEST(t_batch),
	   CHECK_TEST(t_pool_get_put_bulk), CHECK_TEST(t_pool_bulk_vs_single),
	   CHECK_TEST(t_sg_basic),
	   CHECK_TEST(t_sg_pkt_and_csum), CHECK_TEST(t_strerror))
