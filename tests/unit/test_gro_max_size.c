/* SPDX-License-Identifier: MIT */
/*
 * test_gro_max_size.c - voff_gro_set_max_size(): a new largest datagram
 * bounds the merges to come only, as the kernel's gro_max_size does; a
 * flow already held above it is delivered whole, never cut
 */
#include <errno.h>
#include <string.h>

#include <voff/gro.h>
#include <voff/pkt.h>

#include "check.h"
#include "frames.h"

#define PAY 1000u		/* payload bytes of every segment */
#define L3_HDR 40u		/* IPv4 + TCP header bytes */

struct eng {
	struct voff_gro *g;
	struct voff_pool *pool;
	uint32_t seq;
	uint16_t id;
};

static void eng_open(struct eng *e)
{
	memset(e, 0, sizeof(*e));
	CHECK_OK(voff_gro_new(&e->g, NULL));
	CHECK_OK(voff_pool_new(&e->pool, 64, 2048));
	e->seq = 1;
}

static void eng_close(struct eng *e)
{
	voff_gro_free(e->g);
	CHECK_EQ(voff_pool_in_use(e->pool), 0);
	voff_pool_free(e->pool);
}

/* The next segment of the one flow; Return: voff_gro_receive()'s result. */
static int feed(struct eng *e)
{
	uint8_t buf[2048];
	struct voff_pkt *p;
	struct tf b;
	size_t len;
	int rc;

	tf_init(&b, buf, sizeof(buf));
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true, .id = e->id++ });
	tf_tcp(&b, &(struct tf_l4){ .seq = e->seq, .flags = TF_ACK });
	tf_payload(&b, PAY, (uint8_t)e->seq);
	len = tf_finish(&b);
	CHECK_GT(len, 0);
	e->seq += PAY;
	CHECK_OK(voff_pkt_alloc(e->pool, &p));
	CHECK_OK(voff_pkt_set_data(p, buf, (uint32_t)len));
	rc = voff_gro_receive(e->g, p, 0);
	CHECK_GE(rc, 0);
	if (rc == VOFF_GRO_PASS)
		voff_pkt_free(p);
	return rc;
}

/* Pop one output; Return: its segment count (1 for a plain frame). */
static unsigned int pop_segs(struct eng *e, uint32_t *l3_len)
{
	struct voff_pkt *p = voff_gro_pop(e->g);
	unsigned int segs;

	CHECK(p != NULL);
	segs = p->gso_segs > 1 ? p->gso_segs : 1;
	*l3_len = p->len - 14;
	voff_pkt_free(p);
	return segs;
}

static void t_smaller_bounds_next_merges(void)
{
	struct eng e;
	uint32_t l3;

	eng_open(&e);
	for (int i = 0; i < 10; i++)
		CHECK_EQ(feed(&e), i ? VOFF_GRO_MERGED : VOFF_GRO_HELD);
	/* 10 040 bytes held; the new bound is below that. */
	CHECK_OK(voff_gro_set_max_size(e.g, 5000));
	CHECK_EQ(voff_gro_held(e.g), 1);
	CHECK_EQ(voff_gro_pending(e.g), 0);
	/* The next segment finds no room: the flow leaves whole. */
	CHECK_EQ(feed(&e), VOFF_GRO_HELD);
	CHECK_EQ(voff_gro_pending(e.g), 1);
	CHECK_EQ(pop_segs(&e, &l3), 10);
	CHECK_EQ(l3, L3_HDR + 10 * PAY);
	/* The new head grows to at most 5000 bytes: four segments. */
	for (int i = 0; i < 3; i++)
		CHECK_EQ(feed(&e), VOFF_GRO_MERGED);
	CHECK_EQ(feed(&e), VOFF_GRO_HELD);
	CHECK_EQ(pop_segs(&e, &l3), 4);
	CHECK_EQ(l3, L3_HDR + 4 * PAY);
	CHECK_LE(l3, 5000);
	/* 0 is the default again: 65535. */
	CHECK_OK(voff_gro_set_max_size(e.g, 0));
	for (int i = 0; i < 20; i++)
		CHECK_EQ(feed(&e), VOFF_GRO_MERGED);
	voff_gro_flush_all(e.g);
	CHECK_EQ(pop_segs(&e, &l3), 21);
	CHECK(voff_gro_pop(e.g) == NULL);
	eng_close(&e);
}

static void t_larger_lets_held_flow_grow(void)
{
	struct voff_gro_config c = { .max_size = 3000 };
	struct eng e;
	uint32_t l3;

	eng_open(&e);
	voff_gro_free(e.g);
	CHECK_OK(voff_gro_new(&e.g, &c));
	CHECK_EQ(feed(&e), VOFF_GRO_HELD);
	CHECK_EQ(feed(&e), VOFF_GRO_MERGED);
	/* 2040 held; a third segment would make 3040 > 3000. */
	CHECK_OK(voff_gro_set_max_size(e.g, 4040));
	CHECK_EQ(feed(&e), VOFF_GRO_MERGED);
	CHECK_EQ(feed(&e), VOFF_GRO_MERGED);
	CHECK_EQ(feed(&e), VOFF_GRO_HELD);
	CHECK_EQ(pop_segs(&e, &l3), 4);
	CHECK_EQ(l3, 4040);
	voff_gro_flush_all(e.g);
	CHECK_EQ(pop_segs(&e, &l3), 1);
	eng_close(&e);
}

static void t_refused(void)
{
	struct eng e;
	uint32_t l3;

	eng_open(&e);
	CHECK_EQ(voff_gro_set_max_size(NULL, 1000), -EINVAL);
	CHECK_EQ(voff_gro_set_max_size(e.g, VOFF_GRO_MAX_DATAGRAM + 1),
		 -EINVAL);
	/* A refused value changes nothing: the default still holds. */
	for (int i = 0; i < 40; i++)
		feed(&e);
	voff_gro_flush_all(e.g);
	CHECK_EQ(pop_segs(&e, &l3), 40);
	CHECK_OK(voff_gro_set_max_size(e.g, VOFF_GRO_MAX_DATAGRAM));
	eng_close(&e);
}

CHECK_MAIN(CHECK_TEST(t_smaller_bounds_next_merges),
	   CHECK_TEST(t_larger_lets_held_flow_grow), CHECK_TEST(t_refused))
