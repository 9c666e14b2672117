/* SPDX-License-Identifier: MIT */
/*
 * csum.c - the Internet checksum: naive and portable sums, incremental
 * updates, pseudo-headers, completion of partial checksums, IPv4 headers
 *
 * DOC: Theory of Operation
 *
 * The one's complement sum of 16-bit words is the sum modulo 0xFFFF (with
 * 0xFFFF kept apart from 0).  Since 2^16 = 1 modulo 0xFFFF, wider words
 * may be added instead of 16-bit ones: the sum of 32-bit words in a 64-bit
 * accumulator, folded back to 16 bits, is the same checksum.  The portable
 * routine does just that, four independent accumulators deep so the adds
 * do not wait on each other; memcpy() makes the unaligned loads legal C
 * and compiles to plain moves.  The vector routines (csum_simd.c) follow the
 * same plan with wider loads.
 *
 * Words are loaded in host order from the start of the buffer, never from
 * an aligned address: a buffer starting at an odd address needs no
 * rotation, only a block starting at an odd offset of a larger range does
 * (voff_csum_block_add()).  A trailing odd byte counts as the first byte
 * of a word whose second byte is zero.
 *
 * No result can be 0 unless every byte and the initial sum are 0, since an
 * end-around-carry addition of anything non-zero never gives 0; so all
 * routines agree after voff_csum_fold(), 0 and 0xFFFF included.
 */
#include <errno.h>
#include <string.h>

#include <voff/csum.h>

#include "csum_int.h"

/* Bytes summed before the 64-bit accumulator is folded (no overflow). */
#define PORTABLE_CHUNK (1u << 30)

/* Sum of a trailing odd byte: the first byte of a word padded with 0. */
static uint32_t odd_byte(uint8_t b)
{
	uint8_t w[2] = { b, 0 };
	uint16_t v;

	memcpy(&v, w, 2);
	return v;
}

uint32_t voff_csum_naive(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;
	uint64_t acc = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		uint8_t w[2] = { p[i], p[i + 1] };
		uint16_t v;

		memcpy(&v, w, 2);
		acc += v;
	}
	if (len & 1)
		acc += odd_byte(p[len - 1]);
	return voff_csum_add(sum, voff__csum_fold64(acc));
}

static uint64_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Sum of @len bytes (@len < 2^32 / 4 words, so @acc cannot overflow). */
static uint64_t portable_chunk(const uint8_t *p, size_t len)
{
	uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
	uint16_t v16;

	while (len >= 32) {
		a0 += load32(p) + load32(p + 16);
		a1 += load32(p + 4) + load32(p + 20);
		a2 += load32(p + 8) + load32(p + 24);
		a3 += load32(p + 12) + load32(p + 28);
		p += 32;
		len -= 32;
	}
	while (len >= 4) {
		a0 += load32(p);
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&v16, p, 2);
		a1 += v16;
		p += 2;
		len -= 2;
	}
	if (len)
		a2 += odd_byte(*p);
	return a0 + a1 + a2 + a3;
}

uint32_t voff_csum_portable(const void *buf, size_t len, uint32_t sum)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = len < PORTABLE_CHUNK ? len : PORTABLE_CHUNK;

		sum = voff_csum_add(sum,
				    voff__csum_fold64(portable_chunk(p, n)));
		p += n;
		len -= n;
	}
	return sum;
}

uint32_t voff_csum_copy_naive(void *dst, const void *src, size_t len,
			      uint32_t sum)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = s[i];
	return voff_csum_naive(dst, len, sum);
}

uint32_t voff__csum_copy_portable(void *dst, const void *src, size_t len,
				  uint32_t sum)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	uint64_t acc = 0;

	/* Sum what was just loaded, so each byte is read from @src once. */
	while (len >= 8) {
		uint32_t w0, w1;

		memcpy(&w0, s, 4);
		memcpy(&w1, s + 4, 4);
		memcpy(d, &w0, 4);
		memcpy(d + 4, &w1, 4);
		acc += (uint64_t)w0 + w1;
		s += 8;
		d += 8;
		len -= 8;
		if (acc >> 62)
			acc = voff__csum_fold64(acc);
	}
	sum = voff_csum_add(sum, voff__csum_fold64(acc));
	if (len) {
		memcpy(d, s, len);
		sum = voff_csum_portable(d, len, sum);
	}
	return sum;
}

/* ---- incremental updates and pseudo-headers ------------------------------ */

uint16_t voff_csum_update16(uint16_t check, uint16_t old, uint16_t new)
{
	uint32_t s = voff_csum_unfold(check);

	s = voff_csum_add(s, (uint16_t)~old);
	s = voff_csum_add(s, new);
	return voff_csum_fold(s);
}

uint16_t voff_csum_update32(uint16_t check, uint32_t old, uint32_t new)
{
	uint32_t s = voff_csum_unfold(check);

	s = voff_csum_add(s, ~old);
	s = voff_csum_add(s, new);
	return voff_csum_fold(s);
}

/* A 32-bit number stored in network order, then loaded in host order. */
static uint32_t be32_word(uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 8), (uint8_t)v };
	uint32_t w;

	memcpy(&w, b, 4);
	return w;
}

uint32_t voff_csum_pseudo_v4(const void *saddr, const void *daddr,
			     uint8_t proto, uint32_t len)
{
	uint32_t s, d;
	uint32_t sum;

	memcpy(&s, saddr, 4);
	memcpy(&d, daddr, 4);
	sum = voff_csum_add(s, d);
	sum = voff_csum_add(sum, be32_word(proto));
	return voff_csum_add(sum, be32_word(len));
}

uint32_t voff_csum_pseudo_v6(const void *saddr, const void *daddr,
			     uint8_t proto, uint32_t len)
{
	uint32_t sum = voff_csum_portable(saddr, 16, 0);

	sum = voff_csum_portable(daddr, 16, sum);
	sum = voff_csum_add(sum, be32_word(proto));
	return voff_csum_add(sum, be32_word(len));
}

/* ---- completion and verification ----------------------------------------- */

int voff_csum_complete_at(uint8_t *data, size_t len, size_t start,
			  size_t offset)
{
	uint16_t check;

	if (start > len || offset > len - start || len - start - offset < 2)
		return -EINVAL;
	check = voff_csum_fold(voff_csum(data + start, len - start, 0));
	if (check == 0)
		check = 0xFFFF;
	memcpy(data + start + offset, &check, 2);
	return 0;
}

uint16_t voff_csum_ipv4_hdr(const void *hdr, size_t ihl_bytes)
{
	const uint8_t *p = hdr;
	uint32_t sum;

	/* Skip the checksum field (bytes 10 and 11) rather than trust it. */
	sum = voff_csum_portable(p, ihl_bytes < 10 ? ihl_bytes : 10, 0);
	if (ihl_bytes > 12)
		sum = voff_csum_portable(p + 12, ihl_bytes - 12, sum);
	return voff_csum_fold(sum);
}

bool voff_csum_ipv4_hdr_ok(const void *hdr, size_t ihl_bytes)
{
	return voff_csum_fold(voff_csum_portable(hdr, ihl_bytes, 0)) == 0;
}
