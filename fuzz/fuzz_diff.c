/* SPDX-License-Identifier: MIT */
/*
 * fuzz_diff.c - differential libFuzzer target: optimised routines against
 * their naive twins, aborting on the first difference
 *
 * Byte 0 picks the pair.
 *
 * Even: checksums.  [1] start alignment (mod 64), [2..5] initial sum, the
 * rest is the buffer.  Every sum routine (each variant of csum_int.h this
 * CPU can run: AVX-512, AVX2, SSE2, portable; the dispatched voff_csum(),
 * voff_csum_portable(), voff_csum_simd()) must fold to what the byte-wise
 * voff_csum_naive() folds to, and every fused copy must also leave an
 * exact copy of the buffer, on exact-size heap blocks so ASan sees any
 * access past either end.
 *
 * Odd: GSO.  The following bytes describe a super-packet in the terms of
 * the unit tests' naive twin (tests/lib/gso_twin.h: encapsulation, VLANs,
 * IP versions and options, TCP or UDP, flags, IDs, MSS, payload length).
 * The twin builds it; voff_gso_segment() cuts it, in full and in partial
 * checksum mode; every segment must equal, byte for byte, the segment the
 * twin builds on its own, must parse, and must carry checksums the
 * library's checker accepts; the descriptor form (voff_gso_segment_sg())
 * gathered must equal the flat form; the input must be left untouched.
 * UFO (IP fragmentation) is left to test_gso.c, whose fragment twin is
 * local to that file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "csum_int.h"
#include "check.h"

/* Under libFuzzer a failed check must abort (a crash with an input). */
#undef CHECK_FAIL_AT
#define CHECK_FAIL_AT(...) abort()

#include "gso_twin.h"

#define BUF 70000
#define CAP 64
#define ROOM 10000
#define MAX_PAY 16000
/* Cut counts beyond a few dozen add time, not paths: cap them. */
#define MAX_SEGS 48

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t sbuf[BUF], ebuf[BUF], gbuf[BUF], snap[BUF], cbuf[BUF];
static struct voff_pkt *out[CAP];
static struct voff_sg sg[CAP];
static struct iovec iov[CAP][2];
static uint8_t slots[CAP * 256];
static struct voff_pool *pool;

/* ---- checksums ----------------------------------------------------------- */

static void diff_csum(const uint8_t *d, size_t n)
{
	const struct voff__csum_variant *v;
	size_t align, len;
	uint32_t init;
	uint8_t *src, *dst;
	uint16_t want;

	if (n < 5)
		return;
	align = d[0] % 64;
	init = (uint32_t)d[1] << 24 | (uint32_t)d[2] << 16 |
	       (uint32_t)d[3] << 8 | d[4];
	d += 5;
	len = n - 5;
	src = malloc(align + len + 1);
	dst = malloc(align + len + 1);
	if (!src || !dst)
		abort();
	memcpy(src + align, d, len);
	want = voff_csum_fold(voff_csum_naive(src + align, len, init));
	if (voff_csum_fold(voff_csum(src + align, len, init)) != want ||
	    voff_csum_fold(voff_csum_portable(src + align, len, init)) !=
		    want ||
	    voff_csum_fold(voff_csum_simd(src + align, len, init)) != want)
		abort();
	for (unsigned int i = 0; (v = voff__csum_variant(i)); i++) {
		if (!v->usable())
			continue;
		if (voff_csum_fold(v->csum(src + align, len, init)) != want)
			abort();
		memset(dst, 0xA5, align + len + 1);
		if (voff_csum_fold(v->copy(dst + align, src + align, len,
					   init)) != want ||
		    memcmp(dst + align, src + align, len) ||
		    dst[align + len] != 0xA5)
			abort();
	}
	memset(dst, 0x5A, align + len + 1);
	if (voff_csum_fold(voff_csum_copy(dst + align, src + align, len,
					  init)) != want ||
	    memcmp(dst + align, src + align, len) || dst[align + len] != 0x5A)
		abort();
	free(src);
	free(dst);
}

/* ---- GSO ----------------------------------------------------------------- */

struct rd {
	const uint8_t *p;
	size_t n;
};

/* The next input byte, 0 once the input is used up. */
static uint8_t u8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint16_t u16(struct rd *r)
{
	uint16_t hi = u8(r);

	return (uint16_t)(hi << 8 | u8(r));
}

static uint32_t u32(struct rd *r)
{
	uint32_t hi = u16(r);

	return hi << 16 | u16(r);
}

/* A twin description from the input; the ranges are the unit tests'. */
static void decode(struct rd *r, struct spec *s)
{
	uint8_t a = u8(r), b = u8(r), c = u8(r);

	memset(s, 0, sizeof(*s));
	s->raw = a & 1;
	s->n_vlan = s->raw ? 0 : (a >> 1) % 3;
	s->tun = s->raw ? TUN_NONE : (a >> 3) % 4;
	s->outer_v6 = a & 0x20;
	s->tun_csum = a & 0x40;
	s->v6 = a & 0x80;
	s->v4_opt = (uint8_t)(4 * (b % 11));
	s->n_ext = (b >> 4) % 4;
	s->tcp_opt = (uint8_t)(4 * (c % 11));
	s->udp = c & 0x10;
	s->df = c & 0x20;
	s->flags = u8(r) & (uint8_t)~TF_SYN;
	s->extra = (c & 0x40 ? VOFF_GSO_TCP_FIXEDID : 0) |
		   (c & 0x80 ? VOFF_GSO_TCP_FIXEDID_INNER : 0) |
		   (b & 0x40 ? VOFF_GSO_TCP_ECN : 0) |
		   (b & 0x80 ? VOFF_GSO_TCP_ACCECN : 0);
	s->tos = u8(r);
	s->seed = u8(r);
	s->id = u16(r);
	s->outer_id = u16(r);
	s->seq = u32(r);
	s->frag_id = u32(r);
	s->mss = 1 + u16(r) % 9000;
	s->pay = u16(r) % MAX_PAY;
	if (s->pay / s->mss >= MAX_SEGS)
		s->mss = s->pay / MAX_SEGS + 1;
}

static void verify_seg(const struct spec *s, const struct voff_pkt *q,
		       uint8_t mode)
{
	struct voff_csum_report rep;
	struct voff_parsed p;

	memcpy(cbuf, voff_pkt_data(q), q->len);
	if (mode == VOFF_GSO_CSUM_PARTIAL)
		CHECK_OK(voff_csum_complete_at(cbuf, q->len, q->csum_start,
					       q->csum_offset));
	CHECK_OK(voff_parse(cbuf, q->len,
			    s->raw ? VOFF_PARSE_IP : VOFF_PARSE_ETH, &p));
	CHECK_OK(voff_parse_csum_check(cbuf, q->len, &p, &rep));
	for (unsigned int k = 0; k < rep.n; k++) {
		/* A tunnel without outer checksum: UDP 0 (RFC 6935 for v6). */
		if (s->tun && !s->tun_csum && rep.proto[k] == VOFF_PROTO_UDP &&
		    k + 1 < rep.n)
			continue;
		CHECK(rep.verdict[k] != VOFF_CSUM_V_BAD);
	}
}

static void diff_gso_mode(const struct spec *s, uint8_t mode)
{
	struct voff_gso_opts o = { .csum_mode = mode,
				   .ipv6_frag_id = s->frag_id };
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb, eb;
	uint32_t nseg = twin_nseg(s);
	int n;

	CHECK(twin_build(s, sbuf, BUF, -1, 0, 0, s->pay, &sb));
	twin_pkt(s, &sp, sbuf, BUF, &sb);
	memcpy(snap, sbuf, sb.len);
	CHECK_OK(voff_gso_count(&sp, &o, &info));
	CHECK_EQ(info.segs, nseg);
	CHECK_LE(info.max_len, ROOM);
	n = voff_gso_segment(&sp, &o, pool, out, CAP);
	CHECK_EQ(n, (int)nseg);
	for (uint32_t i = 0; i < nseg; i++) {
		uint32_t off = i * s->mss;
		uint32_t plen = s->pay - off < s->mss ? s->pay - off : s->mss;

		CHECK(twin_build(s, ebuf, BUF, i, nseg, off, plen, &eb));
		if (mode == VOFF_GSO_CSUM_PARTIAL)
			twin_make_partial(&eb, ebuf, s->udp);
		CHECK_EQ(out[i]->len, eb.len);
		CHECK_MEM_EQ(voff_pkt_data(out[i]), ebuf, eb.len);
		verify_seg(s, out[i], mode);
	}
	for (uint32_t i = 0; i < nseg; i++)
		voff_sg_init(&sg[i], iov[i], 2);
	n = voff_gso_segment_sg(&sp, &o, slots, 256, sg, CAP, NULL);
	CHECK_EQ(n, (int)nseg);
	for (uint32_t i = 0; i < nseg; i++) {
		size_t g = voff_sg_copy(&sg[i], gbuf, BUF);

		CHECK_EQ(g, out[i]->len);
		CHECK_MEM_EQ(gbuf, voff_pkt_data(out[i]), g);
	}
	CHECK_MEM_EQ(sbuf, snap, sb.len);
	voff_pkt_free_bulk(out, nseg);
	CHECK_EQ(voff_pool_in_use(pool), 0);
}

static void diff_gso(const uint8_t *d, size_t n)
{
	struct rd r = { d, n };
	struct spec s;

	if (!pool && voff_pool_new(&pool, CAP, ROOM))
		abort();
	decode(&r, &s);
	diff_gso_mode(&s, VOFF_GSO_CSUM_FULL);
	diff_gso_mode(&s, VOFF_GSO_CSUM_PARTIAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		diff_gso(data + 1, size - 1);
	else
		diff_csum(data + 1, size - 1);
	return 0;
}
