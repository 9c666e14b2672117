/* SPDX-License-Identifier: MIT */
/*
 * csum_simd.c - vector Internet checksum routines (AVX-512, AVX2, SSE2) and
 * the run-time choice of the routine voff_csum() uses
 *
 * DOC: Theory of Operation
 *
 * The vector loops follow the plan of the portable routine in csum.c: split
 * the data into 32-bit words and add them into 64-bit accumulators, which
 * cannot overflow before 2^32 additions, then fold once at the end.  A
 * vector load gives 64-bit lanes (four in 256 bits).  SSE2 takes their low
 * halves with an AND, the high halves with a 64-bit shift, and adds each
 * half into its own lane accumulator.  AVX2 and AVX-512 save the AND: they
 * add the whole lanes (wrapping modulo 2^64) and, apart, the high halves,
 * and recover the low halves' sum from the two at the end
 * (avx512_lanes_sum()), one operation in four fewer per vector; on the
 * Zen 5 machine of the benchmarks, sums of L2-resident GSO segments ran
 * 10-20% faster.
 * Four loads per iteration over two or four accumulator pairs keep the
 * adds independent, so the loop runs at the rate the cache can feed loads.
 *
 * Loads that straddle two cache lines halve the throughput of the wide
 * loops, so a buffer of two cache lines or more is cut in three: the bytes
 * up to the first 64-byte boundary, the vector body, and the bytes that do
 * not fill a vector.  AVX-512 (with BW) loads the first and last parts
 * with byte masks; AVX2 and SSE2 give them to voff_csum_portable().
 * A part that starts at an odd offset is summed as if it started at 0 and
 * rotated into place with voff_csum_block_add() (byte-swapping a one's
 * complement sum commutes with adding), so alignment never changes the
 * result.
 *
 * The fused copy sums the vectors it loads and stores them to the
 * destination, so each source byte is read once; the source decides the
 * alignment.  It never falls back to the portable routine for its ends,
 * which on pieces of one or two thousand bytes (GSO segments) cost about
 * as much as the body: AVX-512 (with BW) loads and stores the head and the
 * tail with byte masks, masked-off bytes loading as zero; AVX2 and SSE2
 * copy a whole vector at the start and the last whole vector of the
 * buffer, overlapping the body (the overlap is stored twice with the same
 * bytes, and nothing outside the buffers is touched), and add them to the
 * sum through a byte mask that keeps only the bytes the body does not
 * cover; a buffer shorter than one of their vectors goes to the next
 * narrower routine (SSE2, then the portable one).
 * All parts are summed in the frame of the first aligned byte: a part at
 * an odd distance from it has the bytes of its 16-bit words swapped before
 * it is added, which is the same rotation voff_csum_block_add() does on a
 * folded sum, and the total is rotated back once at the end.
 *
 * Every routine is compiled with a target attribute, so the file builds
 * with the project's generic flags and the right routine is picked when the
 * library runs: the first call of voff_csum() walks the table of variants,
 * best first, and keeps the first the CPU supports (libgcc's
 * __builtin_cpu_supports() also checks that the OS saves the vector state).
 * The choice is one atomic pointer; threads racing on the first call all
 * store the same value, and nothing is allocated.  Other architectures, and
 * builds with VOFF_CSUM_NO_SIMD defined, get the portable routine.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <voff/csum.h>

#include "csum_int.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(VOFF_CSUM_NO_SIMD)
#define CSUM_X86 1
#include <immintrin.h>
#endif

/*
 * Bytes handed to one vector pass: each 64-bit lane takes at most 2^32 - 1
 * per addition, and 2^30 bytes make 2^23 additions per lane, far from
 * overflow even after the lanes are added together.
 */
#define SIMD_CHUNK ((size_t)1 << 30)

/*
 * The pointer whose alignment the fused copies' vector bodies follow: the
 * source (aligned loads) or the destination (aligned stores).
 */
#ifndef COPY_ALIGN
#define COPY_ALIGN(d, s) (s)
#endif

#ifdef CSUM_X86

/* ---- common -------------------------------------------------------------- */

/* Sum of @n 64-bit lane accumulators, folded to 32 bits. */
static uint32_t lanes_fold(const uint64_t *l, unsigned int n)
{
	uint64_t s = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		s += voff__csum_fold64(l[i]);
	return voff__csum_fold64(s);
}

typedef uint32_t (*body_fn)(const uint8_t *p, size_t n, size_t *done);
typedef uint32_t (*copy_body_fn)(uint8_t *d, const uint8_t *s, size_t n,
				 size_t *done);

/*
 * Sum with a vector @body over the part of @p that starts on a 64-byte
 * boundary: loads that straddle two cache lines cost up to half the
 * throughput.  The bytes before the boundary and the remainder are summed
 * by the portable routine; a block that starts at an odd offset is
 * rotated into place by voff_csum_block_add().
 */
static inline uint32_t split_sum(const uint8_t *p, size_t len, uint32_t sum,
				 size_t vec, body_fn body)
{
	size_t head = (size_t)(-(uintptr_t)p & 63), off, done;

	if (len < 2 * 64)
		head = 0;
	if (head > len)
		head = len;
	sum = voff_csum_portable(p, head, sum);
	for (off = head; len - off >= vec; off += done) {
		size_t n = len - off < SIMD_CHUNK ? len - off : SIMD_CHUNK;

		sum = voff_csum_block_add(sum, body(p + off, n, &done), off);
	}
	if (off == len)
		return sum;
	return voff_csum_block_add(sum, voff_csum_portable(p + off, len - off,
							   0), off);
}

/*
 * Byte masks for the vector routines without masked loads: 64 zero bytes,
 * 64 0xFF bytes, 64 zero bytes.  An unaligned load at 128 - k keeps the
 * first k bytes of a vector (k <= 64); one at 64 - V + k keeps the last k
 * of a V-byte vector.
 */
static const uint8_t keep_mask[192] __attribute__((aligned(64))) = {
	[64] = 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* ---- AVX-512 ------------------------------------------------------------- */

/* The low @n bits of a 64-bit mask set (@n <= 64). */
static inline uint64_t low_bits(size_t n)
{
	return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* Each 16-bit word of @v with its two bytes swapped. */
__attribute__((target("avx512f,avx512bw")))
static inline __m512i avx512_swap16(__m512i v)
{
	return _mm512_or_si512(_mm512_slli_epi16(v, 8),
			       _mm512_srli_epi16(v, 8));
}

/* One vector into the AVX-512 loops' accumulators (see below). */
__attribute__((target("avx512f,avx512bw")))
static inline void avx512_acc(__m512i *a, __m512i *h, __m512i v)
{
	*a = _mm512_add_epi64(*a, v);
	*h = _mm512_add_epi64(*h, _mm512_srli_epi64(v, 32));
}

/*
 * The 32-bit word sum of the AVX-512 loops, folded to 32 bits.  The loops
 * add whole 64-bit lanes into @a0/@a1 (wrapping modulo 2^64) and only the
 * high 32-bit halves into @h0/@h1: one shift and two adds per vector
 * instead of a mask, a shift and two adds.  Per lane, the wrapped total
 * is the sum of the low halves plus 2^32 times the sum of the high halves,
 * so the low halves' sum is that total minus the high sum shifted by 32,
 * exactly, while it stays below 2^64: SIMD_CHUNK bytes give each lane at
 * most 2^24 words of less than 2^32.
 */
__attribute__((target("avx512f,avx512bw")))
static inline uint32_t avx512_lanes_sum(__m512i a0, __m512i a1, __m512i h0,
					__m512i h1)
{
	__m512i a = _mm512_add_epi64(a0, a1), h = _mm512_add_epi64(h0, h1);
	uint64_t t;

	a = _mm512_sub_epi64(a, _mm512_slli_epi64(h, 32));
	t = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(a, h));
	_mm256_zeroupper();
	return voff__csum_fold64(t);
}

/*
 * Copy and sum at most SIMD_CHUNK bytes.  The sum is kept in the frame of
 * the first byte after the head, the bytes up to the alignment boundary
 * COPY_ALIGN picks: the head is loaded with a byte mask, swapped into that
 * frame when it is odd, and the whole is rotated back once at the end by
 * voff_csum_block_add().  The tail is one masked load and store, so no
 * byte outside [@s, @s + @len) is read and none outside [@d, @d + @len)
 * written.
 */
__attribute__((target("avx512f,avx512bw")))
static uint32_t avx512_copy_chunk(uint8_t *d, const uint8_t *s, size_t len,
				  uint32_t sum)
{
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, h0 = a0, h1 = a0, v;
	size_t head = 0;
	__mmask64 m;

	if (len >= 2 * 64)
		head = (size_t)(-(uintptr_t)COPY_ALIGN(d, s) & 63);
	if (head) {
		m = low_bits(head);
		v = _mm512_maskz_loadu_epi8(m, s);
		_mm512_mask_storeu_epi8(d, m, v);
		if (head & 1)
			v = avx512_swap16(v);
		a1 = v;
		h1 = _mm512_srli_epi64(v, 32);
		s += head;
		d += head;
		len -= head;
	}
	while (len >= 256) {
		__m512i v0 = _mm512_loadu_si512(s);
		__m512i v1 = _mm512_loadu_si512(s + 64);
		__m512i v2 = _mm512_loadu_si512(s + 128);
		__m512i v3 = _mm512_loadu_si512(s + 192);

		_mm512_storeu_si512(d, v0);
		_mm512_storeu_si512(d + 64, v1);
		_mm512_storeu_si512(d + 128, v2);
		_mm512_storeu_si512(d + 192, v3);
		avx512_acc(&a0, &h0, v0);
		avx512_acc(&a1, &h1, v1);
		avx512_acc(&a0, &h0, v2);
		avx512_acc(&a1, &h1, v3);
		s += 256;
		d += 256;
		len -= 256;
	}
	while (len >= 64) {
		v = _mm512_loadu_si512(s);
		_mm512_storeu_si512(d, v);
		avx512_acc(&a0, &h0, v);
		s += 64;
		d += 64;
		len -= 64;
	}
	if (len) {
		/* Masked-off bytes load as 0: an odd last byte pads itself. */
		m = low_bits(len);
		v = _mm512_maskz_loadu_epi8(m, s);
		_mm512_mask_storeu_epi8(d, m, v);
		avx512_acc(&a1, &h1, v);
	}
	return voff_csum_block_add(sum, avx512_lanes_sum(a0, a1, h0, h1),
				   head);
}

static uint32_t copy_avx512(void *dst, const void *src, size_t len,
			    uint32_t sum)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	/* Chunks are an even number of bytes: no rotation between them. */
	while (len) {
		size_t n = len < SIMD_CHUNK ? len : SIMD_CHUNK;

		sum = avx512_copy_chunk(d, s, n, sum);
		d += n;
		s += n;
		len -= n;
	}
	return sum;
}

/*
 * Sum at most SIMD_CHUNK bytes: the loop of avx512_copy_chunk() without
 * the stores, with the same masked head and tail.
 */
__attribute__((target("avx512f,avx512bw")))
static uint32_t avx512_sum_chunk(const uint8_t *p, size_t len, uint32_t sum)
{
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, h0 = a0, h1 = a0, v;
	size_t head = 0;

	if (len >= 2 * 64)
		head = (size_t)(-(uintptr_t)p & 63);
	if (head) {
		v = _mm512_maskz_loadu_epi8(low_bits(head), p);
		if (head & 1)
			v = avx512_swap16(v);
		a1 = v;
		h1 = _mm512_srli_epi64(v, 32);
		p += head;
		len -= head;
	}
	while (len >= 256) {
		__m512i v0 = _mm512_loadu_si512(p);
		__m512i v1 = _mm512_loadu_si512(p + 64);
		__m512i v2 = _mm512_loadu_si512(p + 128);
		__m512i v3 = _mm512_loadu_si512(p + 192);

		avx512_acc(&a0, &h0, v0);
		avx512_acc(&a1, &h1, v1);
		avx512_acc(&a0, &h0, v2);
		avx512_acc(&a1, &h1, v3);
		p += 256;
		len -= 256;
	}
	while (len >= 64) {
		v = _mm512_loadu_si512(p);
		avx512_acc(&a0, &h0, v);
		p += 64;
		len -= 64;
	}
	if (len) {
		v = _mm512_maskz_loadu_epi8(low_bits(len), p);
		avx512_acc(&a1, &h1, v);
	}
	return voff_csum_block_add(sum, avx512_lanes_sum(a0, a1, h0, h1),
				   head);
}

static uint32_t csum_avx512(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = len < SIMD_CHUNK ? len : SIMD_CHUNK;

		sum = avx512_sum_chunk(p, n, sum);
		p += n;
		len -= n;
	}
	return sum;
}

/* ---- AVX2 ---------------------------------------------------------------- */

/*
 * Spill the lanes and clear the upper halves of the YMM registers before
 * going back to code that may use legacy SSE encodings: left dirty, they
 * made the following SSE2 and autovectorised scalar code run three times
 * slower on the machine this was measured on.
 */
__attribute__((target("avx2")))
static uint32_t avx2_reduce(__m256i a)
{
	uint64_t l[4];

	_mm256_storeu_si256((__m256i *)l, a);
	_mm256_zeroupper();
	return lanes_fold(l, 4);
}

/* As avx512_acc(), for the AVX2 loops. */
__attribute__((target("avx2")))
static inline void avx2_acc(__m256i *a, __m256i *h, __m256i v)
{
	*a = _mm256_add_epi64(*a, v);
	*h = _mm256_add_epi64(*h, _mm256_srli_epi64(v, 32));
}

/* As avx512_lanes_sum(), for the AVX2 loops' 64-bit lanes. */
__attribute__((target("avx2")))
static inline uint32_t avx2_lanes_sum(__m256i a0, __m256i a1, __m256i h0,
				      __m256i h1)
{
	__m256i a = _mm256_add_epi64(a0, a1), h = _mm256_add_epi64(h0, h1);

	a = _mm256_sub_epi64(a, _mm256_slli_epi64(h, 32));
	return avx2_reduce(_mm256_add_epi64(a, h));
}

/*
 * Sum of the whole 32-byte vectors of @p[0..@n); *@done gets their bytes.
 * Whole lanes and high halves are added as in the AVX-512 loops.
 */
__attribute__((target("avx2")))
static uint32_t avx2_body(const uint8_t *p, size_t n, size_t *done)
{
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, h0 = a0, h1 = a0;
	const uint8_t *start = p;

	while (n >= 128) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)p);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
		__m256i v2 = _mm256_loadu_si256((const __m256i *)(p + 64));
		__m256i v3 = _mm256_loadu_si256((const __m256i *)(p + 96));

		avx2_acc(&a0, &h0, v0);
		avx2_acc(&a1, &h1, v1);
		avx2_acc(&a0, &h0, v2);
		avx2_acc(&a1, &h1, v3);
		p += 128;
		n -= 128;
	}
	while (n >= 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)p);

		avx2_acc(&a0, &h0, v);
		p += 32;
		n -= 32;
	}
	*done = (size_t)(p - start);
	return avx2_lanes_sum(a0, a1, h0, h1);
}

static uint32_t csum_avx2(const void *buf, size_t len, uint32_t sum)
{
	return split_sum(buf, len, sum, 32, avx2_body);
}

__attribute__((target("avx2")))
static inline __m256i avx2_swap16(__m256i v)
{
	return _mm256_or_si256(_mm256_slli_epi16(v, 8),
			       _mm256_srli_epi16(v, 8));
}

/*
 * As avx512_copy_chunk(), for @len >= 32 and without masked byte loads:
 * the head is a whole vector at @s, copied whole (the body rewrites the
 * same bytes) and summed through a mask that keeps its first bytes; the
 * tail is the last whole vector of the buffer, overlapping the body, and
 * summed through a mask that keeps its last bytes.
 */
__attribute__((target("avx2")))
static uint32_t avx2_copy_chunk(uint8_t *d, const uint8_t *s, size_t len,
				uint32_t sum)
{
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, h0 = a0, h1 = a0, v, k;
	size_t head = (size_t)(-(uintptr_t)COPY_ALIGN(d, s) & 31);

	if (head) {
		v = _mm256_loadu_si256((const __m256i *)s);
		_mm256_storeu_si256((__m256i *)d, v);
		k = _mm256_loadu_si256((const __m256i *)(keep_mask + 128 -
							 head));
		v = _mm256_and_si256(v, k);
		if (head & 1)
			v = avx2_swap16(v);
		a1 = v;
		h1 = _mm256_srli_epi64(v, 32);
		s += head;
		d += head;
		len -= head;
	}
	while (len >= 128) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)s);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i v2 = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i v3 = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_storeu_si256((__m256i *)d, v0);
		_mm256_storeu_si256((__m256i *)(d + 32), v1);
		_mm256_storeu_si256((__m256i *)(d + 64), v2);
		_mm256_storeu_si256((__m256i *)(d + 96), v3);
		avx2_acc(&a0, &h0, v0);
		avx2_acc(&a1, &h1, v1);
		avx2_acc(&a0, &h0, v2);
		avx2_acc(&a1, &h1, v3);
		s += 128;
		d += 128;
		len -= 128;
	}
	while (len >= 32) {
		v = _mm256_loadu_si256((const __m256i *)s);
		_mm256_storeu_si256((__m256i *)d, v);
		avx2_acc(&a0, &h0, v);
		s += 32;
		d += 32;
		len -= 32;
	}
	if (len) {
		/* The vector starts len - 32 bytes on: odd when len is. */
		v = _mm256_loadu_si256((const __m256i *)(s + len - 32));
		_mm256_storeu_si256((__m256i *)(d + len - 32), v);
		k = _mm256_loadu_si256((const __m256i *)(keep_mask + 32 +
							 len));
		v = _mm256_and_si256(v, k);
		if (len & 1)
			v = avx2_swap16(v);
		avx2_acc(&a1, &h1, v);
	}
	return voff_csum_block_add(sum, avx2_lanes_sum(a0, a1, h0, h1), head);
}

static uint32_t copy_sse2(void *dst, const void *src, size_t len,
			  uint32_t sum);

static uint32_t copy_avx2(void *dst, const void *src, size_t len, uint32_t sum)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (len < 32)
		return copy_sse2(dst, src, len, sum);
	/*
	 * Even-sized chunks, none shorter than 32 bytes: the last takes what
	 * is left, up to SIMD_CHUNK + 31 bytes, far from lane overflow.
	 */
	while (len > SIMD_CHUNK && len - SIMD_CHUNK >= 32) {
		sum = avx2_copy_chunk(d, s, SIMD_CHUNK, sum);
		d += SIMD_CHUNK;
		s += SIMD_CHUNK;
		len -= SIMD_CHUNK;
	}
	return avx2_copy_chunk(d, s, len, sum);
}

/* ---- SSE2 ---------------------------------------------------------------- */

__attribute__((target("sse2")))
static uint32_t sse2_reduce(__m128i a)
{
	uint64_t l[2];

	_mm_storeu_si128((__m128i *)l, a);
	return lanes_fold(l, 2);
}

__attribute__((target("sse2")))
static uint32_t sse2_body(const uint8_t *p, size_t n, size_t *done)
{
	const __m128i lo = _mm_set_epi32(0, -1, 0, -1);
	__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
	const uint8_t *start = p;

	while (n >= 64) {
		__m128i v0 = _mm_loadu_si128((const __m128i *)p);
		__m128i v1 = _mm_loadu_si128((const __m128i *)(p + 16));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(p + 32));
		__m128i v3 = _mm_loadu_si128((const __m128i *)(p + 48));

		a0 = _mm_add_epi64(a0, _mm_and_si128(v0, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v0, 32));
		a2 = _mm_add_epi64(a2, _mm_and_si128(v1, lo));
		a3 = _mm_add_epi64(a3, _mm_srli_epi64(v1, 32));
		a0 = _mm_add_epi64(a0, _mm_and_si128(v2, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v2, 32));
		a2 = _mm_add_epi64(a2, _mm_and_si128(v3, lo));
		a3 = _mm_add_epi64(a3, _mm_srli_epi64(v3, 32));
		p += 64;
		n -= 64;
	}
	while (n >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)p);

		a0 = _mm_add_epi64(a0, _mm_and_si128(v, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v, 32));
		p += 16;
		n -= 16;
	}
	*done = (size_t)(p - start);
	a0 = _mm_add_epi64(a0, a1);
	a2 = _mm_add_epi64(a2, a3);
	return sse2_reduce(_mm_add_epi64(a0, a2));
}

static uint32_t csum_sse2(const void *buf, size_t len, uint32_t sum)
{
	return split_sum(buf, len, sum, 16, sse2_body);
}

__attribute__((target("sse2")))
static inline __m128i sse2_swap16(__m128i v)
{
	return _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8));
}

/* As avx2_copy_chunk(), with 16-byte vectors, for @len >= 16. */
__attribute__((target("sse2")))
static uint32_t sse2_copy_chunk(uint8_t *d, const uint8_t *s, size_t len,
				uint32_t sum)
{
	const __m128i lo = _mm_set_epi32(0, -1, 0, -1);
	__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0, v, k;
	size_t head = (size_t)(-(uintptr_t)COPY_ALIGN(d, s) & 15);
	uint64_t l[2];

	if (head) {
		v = _mm_loadu_si128((const __m128i *)s);
		_mm_storeu_si128((__m128i *)d, v);
		k = _mm_loadu_si128((const __m128i *)(keep_mask + 128 - head));
		v = _mm_and_si128(v, k);
		if (head & 1)
			v = sse2_swap16(v);
		a2 = _mm_and_si128(v, lo);
		a3 = _mm_srli_epi64(v, 32);
		s += head;
		d += head;
		len -= head;
	}
	while (len >= 64) {
		__m128i v0 = _mm_loadu_si128((const __m128i *)s);
		__m128i v1 = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i v3 = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_storeu_si128((__m128i *)d, v0);
		_mm_storeu_si128((__m128i *)(d + 16), v1);
		_mm_storeu_si128((__m128i *)(d + 32), v2);
		_mm_storeu_si128((__m128i *)(d + 48), v3);
		a0 = _mm_add_epi64(a0, _mm_and_si128(v0, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v0, 32));
		a2 = _mm_add_epi64(a2, _mm_and_si128(v1, lo));
		a3 = _mm_add_epi64(a3, _mm_srli_epi64(v1, 32));
		a0 = _mm_add_epi64(a0, _mm_and_si128(v2, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v2, 32));
		a2 = _mm_add_epi64(a2, _mm_and_si128(v3, lo));
		a3 = _mm_add_epi64(a3, _mm_srli_epi64(v3, 32));
		s += 64;
		d += 64;
		len -= 64;
	}
	while (len >= 16) {
		v = _mm_loadu_si128((const __m128i *)s);
		_mm_storeu_si128((__m128i *)d, v);
		a0 = _mm_add_epi64(a0, _mm_and_si128(v, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v, 32));
		s += 16;
		d += 16;
		len -= 16;
	}
	if (len) {
		v = _mm_loadu_si128((const __m128i *)(s + len - 16));
		_mm_storeu_si128((__m128i *)(d + len - 16), v);
		k = _mm_loadu_si128((const __m128i *)(keep_mask + 48 + len));
		v = _mm_and_si128(v, k);
		if (len & 1)
			v = sse2_swap16(v);
		a2 = _mm_add_epi64(a2, _mm_and_si128(v, lo));
		a3 = _mm_add_epi64(a3, _mm_srli_epi64(v, 32));
	}
	a0 = _mm_add_epi64(a0, a1);
	a2 = _mm_add_epi64(a2, a3);
	_mm_storeu_si128((__m128i *)l, _mm_add_epi64(a0, a2));
	return voff_csum_block_add(sum, voff__csum_fold64(l[0] + l[1]), head);
}

static uint32_t copy_sse2(void *dst, const void *src, size_t len, uint32_t sum)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (len < 16)
		return voff__csum_copy_portable(dst, src, len, sum);
	while (len > SIMD_CHUNK && len - SIMD_CHUNK >= 16) {
		sum = sse2_copy_chunk(d, s, SIMD_CHUNK, sum);
		d += SIMD_CHUNK;
		s += SIMD_CHUNK;
		len -= SIMD_CHUNK;
	}
	return sse2_copy_chunk(d, s, len, sum);
}

static bool has_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw");
}

static bool has_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

static bool has_sse2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse2");
}

#endif /* CSUM_X86 */

/* ---- run-time choice ----------------------------------------------------- */

static bool always(void)
{
	return true;
}

/* Best first; the portable routine closes the table and always runs. */
static const struct voff__csum_variant variants[] = {
#ifdef CSUM_X86
	{ "avx512", csum_avx512, copy_avx512, has_avx512 },
	{ "avx2", csum_avx2, copy_avx2, has_avx2 },
	{ "sse2", csum_sse2, copy_sse2, has_sse2 },
#endif
	{ "portable", voff_csum_portable, voff__csum_copy_portable, always },
};

#define N_VARIANTS (sizeof(variants) / sizeof(variants[0]))

static _Atomic(const struct voff__csum_variant *) chosen;

const struct voff__csum_variant *voff__csum_variant(unsigned int i)
{
	return i < N_VARIANTS ? &variants[i] : NULL;
}

/* The variant voff_csum() uses, picked on the first call. */
static const struct voff__csum_variant *best(void)
{
	const struct voff__csum_variant *v;
	unsigned int i;

	v = atomic_load_explicit(&chosen, memory_order_relaxed);
	if (v)
		return v;
	for (i = 0; !variants[i].usable(); i++)
		;
	v = &variants[i];
	atomic_store_explicit(&chosen, v, memory_order_relaxed);
	return v;
}

uint32_t voff_csum(const void *buf, size_t len, uint32_t sum)
{
	return best()->csum(buf, len, sum);
}

uint32_t voff_csum_simd(const void *buf, size_t len, uint32_t sum)
{
	return best()->csum(buf, len, sum);
}

const char *voff_csum_impl(void)
{
	return best()->name;
}

uint32_t voff_csum_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
	return best()->copy(dst, src, len, sum);
}
