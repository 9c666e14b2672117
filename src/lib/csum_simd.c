/* SPDX-License-Identifier: MIT */
/*
 * csum_simd.c - vector Internet checksum routines (AVX-512, AVX2, SSE2) and
 * the run-time choice of the routine voff_csum() uses
 *
 * DOC: Theory of Operation
 *
 * The vector loops follow the plan of the portable routine in csum.c: split
 * the data into 32-bit words and add them into 64-bit accumulators, which
 * cannot overflow before 2^32 additions, then fold once at the end.  One
 * 256-bit load gives four 64-bit lanes; the low halves are taken with an
 * AND, the high halves with a 64-bit shift, and each half is added into its
 * own lane accumulator.  Four loads per iteration over four accumulator
 * pairs keep the adds independent, so the loop runs at the rate the cache
 * can feed loads.  AVX-512 and SSE2 do the same with 512- and 128-bit
 * vectors.
 *
 * Loads that straddle two cache lines halve the throughput of the wide
 * loops, so a buffer of two cache lines or more is cut in three: the bytes
 * up to the first 64-byte boundary, the vector body, and the bytes that do
 * not fill a vector.  The first and last parts go to voff_csum_portable().
 * A part that starts at an odd offset is summed as if it started at 0 and
 * rotated into place with voff_csum_block_add() (byte-swapping a one's
 * complement sum commutes with adding), so alignment never changes the
 * result.
 *
 * The fused copy does the same on the loaded vectors and stores them to the
 * destination, so each source byte is read once; the source decides the
 * alignment.
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

/* The same for the fused copy; the source decides the alignment. */
static inline uint32_t split_copy(uint8_t *d, const uint8_t *s, size_t len,
				  uint32_t sum, size_t vec, copy_body_fn body)
{
	size_t head = (size_t)(-(uintptr_t)s & 63), off, done;

	if (len < 2 * 64)
		head = 0;
	if (head > len)
		head = len;
	sum = voff__csum_copy_portable(d, s, head, sum);
	for (off = head; len - off >= vec; off += done) {
		size_t n = len - off < SIMD_CHUNK ? len - off : SIMD_CHUNK;

		sum = voff_csum_block_add(sum, body(d + off, s + off, n, &done),
					  off);
	}
	if (off == len)
		return sum;
	return voff_csum_block_add(sum,
				   voff__csum_copy_portable(d + off, s + off,
							    len - off, 0),
				   off);
}

/* ---- AVX-512 ------------------------------------------------------------- */

__attribute__((target("avx512f")))
static uint32_t avx512_reduce(__m512i a)
{
	uint64_t l[8];

	_mm512_storeu_si512(l, a);
	_mm256_zeroupper();
	return lanes_fold(l, 8);
}

/* Sum of the whole 64-byte vectors of @p[0..@n); *@done gets their bytes. */
__attribute__((target("avx512f")))
static uint32_t avx512_body(const uint8_t *p, size_t n, size_t *done)
{
	const __m512i lo = _mm512_set1_epi64(0xFFFFFFFF);
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	const uint8_t *start = p;

	while (n >= 256) {
		__m512i v0 = _mm512_loadu_si512(p);
		__m512i v1 = _mm512_loadu_si512(p + 64);
		__m512i v2 = _mm512_loadu_si512(p + 128);
		__m512i v3 = _mm512_loadu_si512(p + 192);

		a0 = _mm512_add_epi64(a0, _mm512_and_si512(v0, lo));
		a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v0, 32));
		a2 = _mm512_add_epi64(a2, _mm512_and_si512(v1, lo));
		a3 = _mm512_add_epi64(a3, _mm512_srli_epi64(v1, 32));
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(v2, lo));
		a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v2, 32));
		a2 = _mm512_add_epi64(a2, _mm512_and_si512(v3, lo));
		a3 = _mm512_add_epi64(a3, _mm512_srli_epi64(v3, 32));
		p += 256;
		n -= 256;
	}
	while (n >= 64) {
		__m512i v = _mm512_loadu_si512(p);

		a0 = _mm512_add_epi64(a0, _mm512_and_si512(v, lo));
		a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v, 32));
		p += 64;
		n -= 64;
	}
	*done = (size_t)(p - start);
	a0 = _mm512_add_epi64(a0, a1);
	a2 = _mm512_add_epi64(a2, a3);
	return avx512_reduce(_mm512_add_epi64(a0, a2));
}

static uint32_t csum_avx512(const void *buf, size_t len, uint32_t sum)
{
	return split_sum(buf, len, sum, 64, avx512_body);
}

__attribute__((target("avx512f")))
static uint32_t avx512_copy_body(uint8_t *d, const uint8_t *s, size_t n,
				 size_t *done)
{
	const __m512i lo = _mm512_set1_epi64(0xFFFFFFFF);
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
	const uint8_t *start = s;

	while (n >= 256) {
		__m512i v0 = _mm512_loadu_si512(s);
		__m512i v1 = _mm512_loadu_si512(s + 64);
		__m512i v2 = _mm512_loadu_si512(s + 128);
		__m512i v3 = _mm512_loadu_si512(s + 192);

		_mm512_storeu_si512(d, v0);
		_mm512_storeu_si512(d + 64, v1);
		_mm512_storeu_si512(d + 128, v2);
		_mm512_storeu_si512(d + 192, v3);
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(v0, lo));
		a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v0, 32));
		a2 = _mm512_add_epi64(a2, _mm512_and_si512(v1, lo));
		a3 = _mm512_add_epi64(a3, _mm512_srli_epi64(v1, 32));
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(v2, lo));
		a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v2, 32));
		a2 = _mm512_add_epi64(a2, _mm512_and_si512(v3, lo));
		a3 = _mm512_add_epi64(a3, _mm512_srli_epi64(v3, 32));
		s += 256;
		d += 256;
		n -= 256;
	}
	while (n >= 64) {
		__m512i v = _mm512_loadu_si512(s);

		_mm512_storeu_si512(d, v);
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(v, lo));
		a1 = _mm512_add_epi64(a1, _mm512_srli_epi64(v, 32));
		s += 64;
		d += 64;
		n -= 64;
	}
	*done = (size_t)(s - start);
	a0 = _mm512_add_epi64(a0, a1);
	a2 = _mm512_add_epi64(a2, a3);
	return avx512_reduce(_mm512_add_epi64(a0, a2));
}

static uint32_t copy_avx512(void *dst, const void *src, size_t len,
			    uint32_t sum)
{
	return split_copy(dst, src, len, sum, 64, avx512_copy_body);
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

/* Sum of the whole 32-byte vectors of @p[0..@n); *@done gets their bytes. */
__attribute__((target("avx2")))
static uint32_t avx2_body(const uint8_t *p, size_t n, size_t *done)
{
	const __m256i lo = _mm256_set1_epi64x(0xFFFFFFFF);
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	const uint8_t *start = p;

	while (n >= 128) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)p);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 32));
		__m256i v2 = _mm256_loadu_si256((const __m256i *)(p + 64));
		__m256i v3 = _mm256_loadu_si256((const __m256i *)(p + 96));

		a0 = _mm256_add_epi64(a0, _mm256_and_si256(v0, lo));
		a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v0, 32));
		a2 = _mm256_add_epi64(a2, _mm256_and_si256(v1, lo));
		a3 = _mm256_add_epi64(a3, _mm256_srli_epi64(v1, 32));
		a0 = _mm256_add_epi64(a0, _mm256_and_si256(v2, lo));
		a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v2, 32));
		a2 = _mm256_add_epi64(a2, _mm256_and_si256(v3, lo));
		a3 = _mm256_add_epi64(a3, _mm256_srli_epi64(v3, 32));
		p += 128;
		n -= 128;
	}
	while (n >= 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)p);

		a0 = _mm256_add_epi64(a0, _mm256_and_si256(v, lo));
		a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v, 32));
		p += 32;
		n -= 32;
	}
	*done = (size_t)(p - start);
	a0 = _mm256_add_epi64(a0, a1);
	a2 = _mm256_add_epi64(a2, a3);
	return avx2_reduce(_mm256_add_epi64(a0, a2));
}

static uint32_t csum_avx2(const void *buf, size_t len, uint32_t sum)
{
	return split_sum(buf, len, sum, 32, avx2_body);
}

__attribute__((target("avx2")))
static uint32_t avx2_copy_body(uint8_t *d, const uint8_t *s, size_t n,
			       size_t *done)
{
	const __m256i lo = _mm256_set1_epi64x(0xFFFFFFFF);
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
	const uint8_t *start = s;

	while (n >= 128) {
		__m256i v0 = _mm256_loadu_si256((const __m256i *)s);
		__m256i v1 = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i v2 = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i v3 = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_storeu_si256((__m256i *)d, v0);
		_mm256_storeu_si256((__m256i *)(d + 32), v1);
		_mm256_storeu_si256((__m256i *)(d + 64), v2);
		_mm256_storeu_si256((__m256i *)(d + 96), v3);
		a0 = _mm256_add_epi64(a0, _mm256_and_si256(v0, lo));
		a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v0, 32));
		a2 = _mm256_add_epi64(a2, _mm256_and_si256(v1, lo));
		a3 = _mm256_add_epi64(a3, _mm256_srli_epi64(v1, 32));
		a0 = _mm256_add_epi64(a0, _mm256_and_si256(v2, lo));
		a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v2, 32));
		a2 = _mm256_add_epi64(a2, _mm256_and_si256(v3, lo));
		a3 = _mm256_add_epi64(a3, _mm256_srli_epi64(v3, 32));
		s += 128;
		d += 128;
		n -= 128;
	}
	while (n >= 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)s);

		_mm256_storeu_si256((__m256i *)d, v);
		a0 = _mm256_add_epi64(a0, _mm256_and_si256(v, lo));
		a1 = _mm256_add_epi64(a1, _mm256_srli_epi64(v, 32));
		s += 32;
		d += 32;
		n -= 32;
	}
	*done = (size_t)(s - start);
	a0 = _mm256_add_epi64(a0, a1);
	a2 = _mm256_add_epi64(a2, a3);
	return avx2_reduce(_mm256_add_epi64(a0, a2));
}

static uint32_t copy_avx2(void *dst, const void *src, size_t len, uint32_t sum)
{
	return split_copy(dst, src, len, sum, 32, avx2_copy_body);
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
static uint32_t sse2_copy_body(uint8_t *d, const uint8_t *s, size_t n,
			       size_t *done)
{
	const __m128i lo = _mm_set_epi32(0, -1, 0, -1);
	__m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
	const uint8_t *start = s;

	while (n >= 64) {
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
		n -= 64;
	}
	while (n >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)s);

		_mm_storeu_si128((__m128i *)d, v);
		a0 = _mm_add_epi64(a0, _mm_and_si128(v, lo));
		a1 = _mm_add_epi64(a1, _mm_srli_epi64(v, 32));
		s += 16;
		d += 16;
		n -= 16;
	}
	*done = (size_t)(s - start);
	a0 = _mm_add_epi64(a0, a1);
	a2 = _mm_add_epi64(a2, a3);
	return sse2_reduce(_mm_add_epi64(a0, a2));
}

static uint32_t copy_sse2(void *dst, const void *src, size_t len, uint32_t sum)
{
	return split_copy(dst, src, len, sum, 16, sse2_copy_body);
}

static bool has_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f");
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
