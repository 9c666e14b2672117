/* SPDX-License-Identifier: MIT */
/*
 * test_vring.c - the split virtqueue (vring.c) against a fake guest's
 * rings: chains direct and indirect taken byte for byte, every kind of
 * bad chain refused with its reason and handed back, used entries
 * published per batch with one notification, EVENT_IDX both ways
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <voff/err.h>

#include "check.h"
#include "vhost_guest.h"
#include "vhost_int.h"

struct fixture {
	struct voff__vhost_dev d;
	struct vg g;
	int last;
};

static void pump(void *ctx)
{
	struct fixture *f = ctx;

	f->last = voff__vhost_dev_read(&f->d);
}

#define FEAT_BASE (VHOST_BIT(VIRTIO_F_VERSION_1))

static void setup(struct fixture *f, unsigned int num, uint64_t features)
{
	const uint64_t offer = VHOST_BIT(VIRTIO_F_VERSION_1) |
			       VHOST_BIT(VIRTIO_RING_F_EVENT_IDX) |
			       VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC) |
			       VHOST_BIT(VHOST_USER_F_PROTOCOL_FEATURES);
	memset(f, 0, sizeof(*f));
	CHECK_OK(vg_dev_pair(&f->d, offer, &f->g, num, pump, f));
	CHECK_OK(vg_start(&f->g, features));
}

static void teardown(struct fixture *f)
{
	voff__vhost_dev_close(&f->d);
	vg_free(&f->g);
}

static struct voff__vring *txq(struct fixture *f)
{
	return &f->d.vq[VHOST_TX_Q];
}

static int pop(struct fixture *f, unsigned int q,
	       struct voff__vring_chain *c)
{
	return voff__vring_pop(&f->d.vq[q], &f->d.mem, q == VHOST_RX_Q, c);
}

/* The chain's bytes, gathered. */
static size_t gather(const struct voff__vring_chain *c, uint8_t *out)
{
	size_t n = 0;

	for (unsigned int i = 0; i < c->n; i++) {
		memcpy(out + n, c->seg[i].p, c->seg[i].len);
		n += c->seg[i].len;
	}
	return n;
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7);
}

/* Direct and indirect chains, cut every way, arrive byte for byte. */
static void t_chains(void)
{
	static uint8_t frame[9000], got[9100];
	uint8_t hdr[12] = { 1, 2, 3 };
	struct voff__vring_chain c;
	struct fixture f;
	const size_t cuts[] = { 0, 200, 1514, 4096 };

	setup(&f, 256, FEAT_BASE | VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC));
	fill(frame, sizeof(frame), 3);
	for (int ind = 0; ind < 2; ind++) {
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
			uint16_t head;

			head = vg_tx(&f.g, hdr, 12, frame, sizeof(frame),
				     cuts[k], ind);
			CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
			CHECK_EQ(c.head, head);
			CHECK_EQ(c.len, 12 + sizeof(frame));
			CHECK_EQ(gather(&c, got), 12 + sizeof(frame));
			CHECK(!memcmp(got, hdr, 12));
			CHECK(!memcmp(got + 12, frame, sizeof(frame)));
			voff__vring_put(txq(&f), c.head, 0);
			vg_reset_bufs(&f.g);
		}
	}
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 0);
	teardown(&f);
}

/* Write one raw descriptor on the transmit ring and publish @head. */
static void raw(struct fixture *f, uint16_t i, uint64_t addr, uint32_t len,
		uint16_t flags, uint16_t next)
{
	vg_desc_set(&f->g, VHOST_TX_Q, i, addr, len, flags, next);
}

static void expect_bad(struct fixture *f, uint16_t head, int err)
{
	struct voff__vring_chain c;

	vg_avail_push(&f->g, VHOST_TX_Q, head);
	CHECK_EQ(pop(f, VHOST_TX_Q, &c), err);
	CHECK_EQ(c.head, head);
	voff__vring_put(txq(f), c.head, 0);
	CHECK(!txq(f)->broken);
}

/* Each bad chain is refused with its reason; the ring goes on. */
static void t_bad_chains(void)
{
	struct fixture f;
	uint64_t ok = VG_GPA_BASE + VG_BUF_OFF;
	uint64_t end = VG_GPA_BASE + VG_MEM_SIZE;
	uint64_t ind = VG_GPA_BASE + 0x30000;

	setup(&f, 256, FEAT_BASE | VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC));
	/* Outside memory, across its end, below it, wrapping. */
	raw(&f, 0, end, 1, 0, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_DESC);
	raw(&f, 0, end - 10, 11, 0, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_DESC);
	raw(&f, 0, VG_GPA_BASE - 1, 2, 0, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_DESC);
	raw(&f, 0, UINT64_MAX - 4, 100, 0, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_DESC);
	/* A loop 0 -> 1 -> 0, a next past the ring. */
	raw(&f, 0, ok, 10, 1, 1);
	raw(&f, 1, ok, 10, 1, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_CHAIN);
	raw(&f, 1, ok, 10, 1, 256);
	expect_bad(&f, 0, VOFF_E_VHOST_CHAIN);
	/* A self loop. */
	raw(&f, 5, ok, 10, 1, 5);
	expect_bad(&f, 5, VOFF_E_VHOST_CHAIN);
	/* A buffer the device would write, on the transmit queue. */
	raw(&f, 0, ok, 10, 1, 1);
	raw(&f, 1, ok, 10, 2, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_CHAIN);
	/* More than VRING_MAX_SEGS buffers (a loop-free chain of 65). */
	for (uint16_t i = 0; i < 65; i++)
		raw(&f, i, ok + i, 1, i < 64 ? 1 : 0, (uint16_t)(i + 1));
	expect_bad(&f, 0, VOFF_E_VHOST_CHAIN);
	/* Zero-length buffers are skipped, not counted. */
	for (uint16_t i = 0; i < 100; i++)
		raw(&f, i, ok, i == 99 ? 5 : 0, i < 99 ? 1 : 0,
		    (uint16_t)(i + 1));
	{
		struct voff__vring_chain c;

		vg_avail_push(&f.g, VHOST_TX_Q, 0);
		CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
		CHECK_EQ(c.n, 1);
		CHECK_EQ(c.len, 5);
		voff__vring_put(txq(&f), c.head, 0);
	}
	/* Indirect: bad length, too big, outside, nested, with NEXT, in
	 * the middle of a chain, looping inside, a next past its end. */
	raw(&f, 0, ind, 24, 4, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);
	raw(&f, 0, ind, 0, 4, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);
	raw(&f, 0, ind, 16 * (VRING_MAX_INDIRECT + 1), 4, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);
	raw(&f, 0, end - 16, 32, 4, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_DESC);
	raw(&f, 0, ind, 32, 4 | 1, 1);
	expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);
	raw(&f, 0, ok, 10, 1, 1);
	raw(&f, 1, ind, 32, 4, 0);
	expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);
	{
		uint8_t *t = vg_ptr(&f.g, ind);
		uint64_t a = htole64(ok);
		uint32_t l = htole32(10);
		uint16_t fl = htole16(1), nx = htole16(0);

		for (int i = 0; i < 2; i++) {
			memcpy(t + 16 * i, &a, 8);
			memcpy(t + 16 * i + 8, &l, 4);
			memcpy(t + 16 * i + 12, &fl, 2);
			nx = htole16((uint16_t)!i);
			memcpy(t + 16 * i + 14, &nx, 2);
		}
		raw(&f, 0, ind, 32, 4, 0);
		expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);	/* loop */
		nx = htole16(2);
		memcpy(t + 14, &nx, 2);
		expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);	/* past end */
		fl = htole16(4);
		memcpy(t + 12, &fl, 2);
		expect_bad(&f, 0, VOFF_E_VHOST_INDIRECT);	/* nested */
	}
	CHECK_EQ(pop(&f, VHOST_TX_Q, &(struct voff__vring_chain){ 0 }), 0);
	teardown(&f);
}

/* Indirect tables are refused unless negotiated. */
static void t_indirect_not_acked(void)
{
	struct fixture f;
	uint8_t hdr[12] = { 0 }, frame[64] = { 0 };
	struct voff__vring_chain c;

	setup(&f, 256, FEAT_BASE);
	vg_tx(&f.g, hdr, 12, frame, 64, 0, true);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), VOFF_E_VHOST_INDIRECT);
	teardown(&f);
}

/* A head past the ring, or an index that jumps, stops the ring. */
static void t_broken(void)
{
	struct voff__vring_chain c;
	struct fixture f;

	setup(&f, 256, FEAT_BASE);
	vg_avail_push(&f.g, VHOST_TX_Q, 256);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), VOFF_E_VHOST_RING);
	CHECK_EQ(c.head, VRING_NO_HEAD);
	CHECK(txq(&f)->broken);
	CHECK_EQ(voff__vring_avail(txq(&f)), 0);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), VOFF_E_VHOST_RING);
	teardown(&f);

	setup(&f, 256, FEAT_BASE);
	f.g.avail_idx[VHOST_TX_Q] = 300;
	vg_avail_push(&f.g, VHOST_TX_Q, 0);
	CHECK_EQ(voff__vring_avail(txq(&f)), 0);
	CHECK(txq(&f)->broken);
	/* A restart (a new kick descriptor) clears it. */
	teardown(&f);
}

/* Used entries: one index store and one call per batch. */
static void t_used_batch(void)
{
	uint8_t hdr[12] = { 0 }, frame[64] = { 0 };
	struct voff__vring_chain c;
	struct fixture f;
	uint32_t id, len;

	setup(&f, 256, FEAT_BASE);
	for (int i = 0; i < 10; i++)
		vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(voff__vring_avail(txq(&f)), 10);
	for (int i = 0; i < 10; i++) {
		CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
		voff__vring_put(txq(&f), c.head, (uint32_t)i);
	}
	CHECK_EQ(vg_used_idx(&f.g, VHOST_TX_Q), 0);
	CHECK(voff__vring_flush(txq(&f)));
	CHECK_EQ(vg_used_idx(&f.g, VHOST_TX_Q), 10);
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 1);
	for (uint32_t i = 0; i < 10; i++) {
		CHECK(vg_used(&f.g, VHOST_TX_Q, &id, &len));
		CHECK_EQ(id, 2 * i);	/* two descriptors a frame */
		CHECK_EQ(len, i);
	}
	/* Nothing new: no store, no call. */
	CHECK(!voff__vring_flush(txq(&f)));
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
	/* Without EVENT_IDX, NO_INTERRUPT silences the call. */
	vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	voff__vring_put(txq(&f), c.head, 0);
	((uint16_t *)(f.g.mem + VHOST_TX_Q * 0x8000 + 0x2000))[0] =
		htole16(1);
	CHECK(!voff__vring_flush(txq(&f)));
	CHECK_EQ(vg_used_idx(&f.g, VHOST_TX_Q), 11);
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
	CHECK_EQ(txq(&f)->calls, 1);
	teardown(&f);
}

/*
 * publish shows the entries at once and keeps the call for later; call
 * sends it once; a batch the guest wants no call for leaves one pending.
 */
static void t_publish_call(void)
{
	uint8_t hdr[12] = { 0 }, frame[64] = { 0 };
	struct voff__vring_chain c;
	struct fixture f;

	setup(&f, 256, FEAT_BASE | VHOST_BIT(VIRTIO_RING_F_EVENT_IDX));
	vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	voff__vring_put(txq(&f), c.head, 0);
	CHECK(voff__vring_publish(txq(&f)));
	CHECK_EQ(vg_used_idx(&f.g, VHOST_TX_Q), 1);
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
	CHECK(txq(&f)->call_pending);
	/* A batch the guest wants no call for keeps the one pending. */
	vg_set_used_event(&f.g, VHOST_TX_Q, 9);
	vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	voff__vring_put(txq(&f), c.head, 0);
	CHECK(voff__vring_publish(txq(&f)));
	CHECK_EQ(vg_used_idx(&f.g, VHOST_TX_Q), 2);
	CHECK(voff__vring_call(txq(&f)));
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 1);
	CHECK_EQ(txq(&f)->calls, 1);
	/* Sent: nothing more to send. */
	CHECK(!voff__vring_call(txq(&f)));
	CHECK(!voff__vring_publish(txq(&f)));
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
	/* Not wanted (used 3 does not pass 9): nothing pending. */
	vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	voff__vring_put(txq(&f), c.head, 0);
	CHECK(!voff__vring_publish(txq(&f)));
	CHECK(!voff__vring_call(txq(&f)));
	CHECK_EQ(vg_used_idx(&f.g, VHOST_TX_Q), 3);
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 0);
	teardown(&f);
}

/* EVENT_IDX: calls only past used_event; kicks asked past last_avail. */
static void t_event_idx(void)
{
	uint8_t hdr[12] = { 0 }, frame[64] = { 0 };
	struct voff__vring_chain c;
	struct fixture f;

	setup(&f, 256, FEAT_BASE | VHOST_BIT(VIRTIO_RING_F_EVENT_IDX));
	CHECK(txq(&f)->event_idx);
	/* The first batch always notifies. */
	vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	voff__vring_put(txq(&f), c.head, 0);
	CHECK(voff__vring_flush(txq(&f)));
	/* The guest wants a call once used passes 5. */
	vg_set_used_event(&f.g, VHOST_TX_Q, 5);
	for (int round = 0; round < 6; round++) {
		vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
		CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
		voff__vring_put(txq(&f), c.head, 0);
		/* used goes 2, 3, 4, 5, 6 (passes 5), 7 */
		CHECK_EQ(voff__vring_flush(txq(&f)), round == 4);
	}
	CHECK_EQ(vg_calls(&f.g, VHOST_TX_Q), 2);
	/* arm: avail_event follows last_avail; pending entries reported. */
	CHECK(!voff__vring_arm(txq(&f)));
	CHECK_EQ(vg_avail_event(&f.g, VHOST_TX_Q), 7);
	vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK(voff__vring_arm(txq(&f)));
	/* The guest kicks when it passes avail_event, once. */
	vg_calls(&f.g, VHOST_TX_Q);
	teardown(&f);
}

/* unpop gives chains back in order. */
static void t_unpop(void)
{
	uint8_t hdr[12] = { 0 }, frame[64] = { 0 };
	struct voff__vring_chain c;
	struct fixture f;
	uint16_t h[3];

	setup(&f, 256, FEAT_BASE);
	for (int i = 0; i < 3; i++)
		h[i] = vg_tx(&f.g, hdr, 12, frame, 64, 0, false);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
	voff__vring_unpop(txq(&f), 2);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(pop(&f, VHOST_TX_Q, &c), 1);
		CHECK_EQ(c.head, h[i]);
	}
	teardown(&f);
}

/* Receive chains: writable buffers only. */
static void t_rx_chains(void)
{
	struct voff__vring_chain c;
	struct fixture f;

	setup(&f, 256, FEAT_BASE);
	vg_rx_post(&f.g, 2, 4096, 1);
	vg_rx_post(&f.g, 1, 65536, 16);
	CHECK_EQ(pop(&f, VHOST_RX_Q, &c), 1);
	CHECK_EQ(c.len, 4096);
	CHECK_EQ(pop(&f, VHOST_RX_Q, &c), 1);
	CHECK_EQ(pop(&f, VHOST_RX_Q, &c), 1);
	CHECK_EQ(c.n, 16);
	CHECK_EQ(c.len, 65536);
	/* A readable buffer on the receive queue. */
	vg_desc_set(&f.g, VHOST_RX_Q, 200, VG_GPA_BASE + VG_BUF_OFF, 10, 0,
		    0);
	vg_avail_push(&f.g, VHOST_RX_Q, 200);
	CHECK_EQ(pop(&f, VHOST_RX_Q, &c), VOFF_E_VHOST_CHAIN);
	teardown(&f);
}

CHECK_MAIN(CHECK_TEST(t_chains), CHECK_TEST(t_bad_chains),
	   CHECK_TEST(t_indirect_not_acked), CHECK_TEST(t_broken),
	   CHECK_TEST(t_used_batch), CHECK_TEST(t_publish_call),
	   CHECK_TEST(t_event_idx),
	   CHECK_TEST(t_unpop), CHECK_TEST(t_rx_chains))
