/* SPDX-License-Identifier: MIT */
/*
 * fuzz_gro.c - libFuzzer target: a sequence of frames through four GRO
 * engines, one copying payloads, one chaining them (sg mode), one copying
 * with the fast path off (gro.c), the full path's reference, and one
 * chaining them that takes its frames in bursts (voff_gro_receive_burst()
 * and its prefetch pipeline), each burst cut where time advances, at an
 * "end of batch" and at BURST frames
 *
 * Input: one configuration byte, then records of a 2-byte big-endian
 * length, one flags byte and that many frame bytes, until the input ends.
 * Configuration bits: 0 raw IP frames (else Ethernet), 1 UDP GRO off,
 * 2-3 table size (1, 2, 4 or 8 flows), 4 small size limit (1500 bytes),
 * 5 timeout 100 ns.  Record flags: bits 0-1 the frame's checksum state,
 * bit 2 "end of batch" after it, bits 3-7 a time step.
 *
 * Checked: nothing reads out of bounds (ASan, exactly sized copies of each
 * frame); every frame given comes back exactly once, as itself or as a
 * segment of a super-packet; all engines emit the same outputs, byte for
 * byte; every buffer returns to its pool.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/gro.h>
#include <voff/pkt.h>

#include "gro_int.h"

#define MAX_OUT 512
#define SIDES 4
#define BURST 48

/* Side k chains segments (sg mode) when k is 1 or 3; side 3 takes bursts. */
#define SIDE_SG(k) ((k) == 1 || (k) == 3)
#define SIDE_BURST 3

struct side {
	struct voff_gro *g;
	uint8_t *out[MAX_OUT];
	uint32_t len[MAX_OUT];
	uint32_t gso[MAX_OUT];
	unsigned int segs;
	unsigned int n;
};

/* Receive buffers: MTU-sized ones, and super-packet sized for big frames. */
static struct voff_pool *small_pool, *big_pool;

static void fail(void)
{
	abort();
}

static void record(struct side *s, const uint8_t *d, uint32_t len,
		   uint32_t gso, unsigned int segs)
{
	if (s->n >= MAX_OUT)
		fail();
	s->out[s->n] = malloc(len ? len : 1);
	if (!s->out[s->n])
		fail();
	memcpy(s->out[s->n], d, len);
	s->len[s->n] = len;
	s->gso[s->n] = gso;
	s->n++;
	s->segs += segs;
}

static void collect(struct side *s, bool sg)
{
	static uint8_t flat[VOFF_PKT_SUPER_ROOM];
	struct voff_pkt *pk[VOFF_GRO_SG_MAX_SEGS], *p;
	struct iovec iov[VOFF_GRO_SG_MAX_SEGS];
	struct voff_sg v;
	int n;

	if (!sg) {
		while ((p = voff_gro_pop(s->g))) {
			record(s, voff_pkt_data(p), p->len, p->gso_type,
			       p->gso_segs > 1 ? p->gso_segs : 1);
			voff_pkt_free(p);
		}
		return;
	}
	for (;;) {
		voff_sg_init(&v, iov, VOFF_GRO_SG_MAX_SEGS);
		n = voff_gro_pop_sg(s->g, &v, pk, VOFF_GRO_SG_MAX_SEGS);
		if (n < 0)
			fail();
		if (n == 0)
			break;
		if (voff_sg_copy(&v, flat, sizeof(flat)) != v.len)
			fail();
		record(s, flat, (uint32_t)v.len, pk[0]->gso_type,
		       (unsigned int)n);
		voff_pkt_free_bulk(pk, (unsigned int)n);
	}
}

/* A pool packet holding @d, with the checksum state of record @flags. */
static struct voff_pkt *make_pkt(const uint8_t *d, uint32_t len,
				 uint8_t flags)
{
	struct voff_pkt *p;

	if (voff_pkt_alloc(len > 2048 ? big_pool : small_pool, &p) != 0 ||
	    voff_pkt_set_data(p, d, len) != 0)
		fail();
	p->csum = flags & 3;
	if (p->csum > VOFF_CSUM_VALID)
		p->csum = VOFF_CSUM_NONE;
	return p;
}

static void feed(struct side *s, bool sg, const uint8_t *d, uint32_t len,
		 uint8_t flags, uint64_t now)
{
	struct voff_pkt *p = make_pkt(d, len, flags);
	int rc;

	rc = voff_gro_receive(s->g, p, now);
	if (rc < 0)
		fail();
	if (rc == VOFF_GRO_PASS) {
		collect(s, sg);
		record(s, voff_pkt_data(p), p->len, p->gso_type, 1);
		voff_pkt_free(p);
	}
	if (flags & 4) {
		voff_gro_flush(s->g, now);
		collect(s, sg);
	}
}

/* The burst side: frames waiting for their burst, all taken at @now. */
static struct voff_pkt *burst[BURST];
static unsigned int n_burst;

static void submit(struct side *s, uint64_t now)
{
	unsigned int i = 0;

	while (i < n_burst) {
		int rc = voff_gro_receive_burst(s->g, burst + i, n_burst - i,
						now);

		if (rc < 0)
			fail();
		i += (unsigned int)rc;
		if (i < n_burst) {
			/* Handed back, as feed() records it. */
			collect(s, true);
			record(s, voff_pkt_data(burst[i]), burst[i]->len,
			       burst[i]->gso_type, 1);
			voff_pkt_free(burst[i]);
			i++;
		}
	}
	n_burst = 0;
}

/*
 * The burst side's feed(): the frame waits in the burst, which goes to the
 * engine before time advances (so every frame of a burst has the time the
 * other sides gave it), at an end of batch (then the flush) or when full.
 */
static void feed_burst(struct side *s, const uint8_t *d, uint32_t len,
		       uint8_t flags, uint64_t now, uint64_t *burst_now)
{
	if (n_burst && now != *burst_now)
		submit(s, *burst_now);
	burst[n_burst++] = make_pkt(d, len, flags);
	*burst_now = now;
	if ((flags & 4) || n_burst == BURST)
		submit(s, now);
	if (flags & 4) {
		voff_gro_flush(s->g, now);
		collect(s, true);
	}
}

static const unsigned int flow_sizes[4] = { 1, 2, 4, 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_gro_config cfg = { 0 };
	struct side side[SIDES];
	unsigned int frames = 0;
	uint64_t now = 0, burst_now = 0;
	size_t at = 1;

	if (size < 1)
		return 0;
	if (!small_pool && (voff_pool_new(&small_pool, 512, 2048) != 0 ||
			    voff_pool_new(&big_pool, 16, VOFF_PKT_SUPER_ROOM)))
		fail();
	cfg.start = (data[0] & 1) ? VOFF_PARSE_IP : VOFF_PARSE_ETH;
	cfg.no_udp = data[0] & 2;
	cfg.max_flows = flow_sizes[(data[0] >> 2) & 3];
	cfg.pool_size = cfg.max_flows + 4;
	cfg.max_size = (data[0] & 16) ? 1500 : 0;
	cfg.flush_timeout_ns = (data[0] & 32) ? 100 : 0;
	memset(side, 0, sizeof(side));
	for (int k = 0; k < SIDES; k++) {
		cfg.sg = SIDE_SG(k);
		if (voff_gro_new(&side[k].g, &cfg) != 0)
			fail();
	}
	voff__gro_set_fast(side[2].g, false);
	while (at + 3 <= size && frames < 200) {
		uint32_t len = (uint32_t)data[at] << 8 | data[at + 1];
		uint8_t flags = data[at + 2];
		uint8_t *copy;

		at += 3;
		if (len > size - at)
			len = (uint32_t)(size - at);
		/* An exactly sized copy lets ASan see any overread. */
		copy = malloc(len ? len : 1);
		if (!copy)
			fail();
		memcpy(copy, data + at, len);
		now += flags >> 3;
		for (int k = 0; k < SIDES; k++) {
			if (k == SIDE_BURST)
				feed_burst(&side[k], copy, len, flags, now,
					   &burst_now);
			else
				feed(&side[k], SIDE_SG(k), copy, len, flags,
				     now);
		}
		free(copy);
		at += len;
		frames++;
	}
	submit(&side[SIDE_BURST], burst_now);
	for (int k = 0; k < SIDES; k++) {
		voff_gro_flush_all(side[k].g);
		collect(&side[k], SIDE_SG(k));
		if (side[k].segs != frames)
			fail();
	}
	for (int k = 1; k < SIDES; k++) {
		if (side[0].n != side[k].n)
			fail();
		for (unsigned int i = 0; i < side[0].n; i++) {
			if (side[0].len[i] != side[k].len[i] ||
			    side[0].gso[i] != side[k].gso[i] ||
			    memcmp(side[0].out[i], side[k].out[i],
				   side[0].len[i]))
				fail();
		}
	}
	for (int k = 0; k < SIDES; k++) {
		for (unsigned int i = 0; i < side[k].n; i++)
			free(side[k].out[i]);
		voff_gro_free(side[k].g);
	}
	if (voff_pool_in_use(small_pool) || voff_pool_in_use(big_pool))
		fail();
	return 0;
}
