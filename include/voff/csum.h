/* SPDX-License-Identifier: MIT */
/*
 * csum.h - the Internet checksum (RFC 1071), incremental updates (RFC 1624),
 * pseudo-headers, completion of partial checksums and verification
 *
 * DOC: Byte order of sums
 *
 * Every sum here is computed over 16-bit words loaded in host order from
 * memory, the way the kernel's csum_partial() does.  Because one's
 * complement addition commutes with byte swapping, such a sum, folded and
 * stored back to memory in host order, is the correct checksum in network
 * order.  So:
 *  - a uint32_t "partial sum" is an unfolded accumulator in that host-order
 *    domain; partial sums add with voff_csum_add();
 *  - a uint16_t checksum ("__sum16") is the value as it sits in the packet,
 *    read or written with memcpy(), never passed through ntohs();
 *  - values that are numbers (lengths, protocol) are converted by the
 *    pseudo-header helpers, which take them in host order.
 *
 * A block whose first byte sits at an odd offset of the checksummed range
 * must be combined with voff_csum_block_add(), which rotates it.
 *
 * Three implementations of the sum exist and return identical results:
 * voff_csum_naive() (byte-wise reference), voff_csum_portable() (64-bit
 * accumulator, 32-bit loads) and the SIMD routine picked at run time from
 * the CPU's features; voff_csum() calls the best one available.
 */
#ifndef VOFF_CSUM_H
#define VOFF_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * voff_csum() - one's complement sum of @len bytes at @buf, continuing @sum
 * @buf:	bytes (any alignment)
 * @len:	their number (any, odd included)
 * @sum:	partial sum to continue (0 to start)
 *
 * Return: an unfolded 32-bit partial sum (host-order domain, see above).
 * Two results for the same bytes may differ as numbers but always fold to
 * the same checksum.
 */
uint32_t voff_csum(const void *buf, size_t len, uint32_t sum);

/** voff_csum_naive() - byte-wise reference twin of voff_csum() */
uint32_t voff_csum_naive(const void *buf, size_t len, uint32_t sum);

/** voff_csum_portable() - portable C twin of voff_csum() */
uint32_t voff_csum_portable(const void *buf, size_t len, uint32_t sum);

/**
 * voff_csum_simd() - the SIMD routine, when the CPU has it
 *
 * Return: as voff_csum() (today the same routine); falls back to
 * voff_csum_portable() when this CPU lacks the needed instructions (see
 * voff_csum_impl()).
 */
uint32_t voff_csum_simd(const void *buf, size_t len, uint32_t sum);

/**
 * voff_csum_impl() - name of the routine voff_csum() uses on this CPU
 *
 * The choice is made once, on the first call of any dispatched function
 * (voff_csum(), voff_csum_simd(), voff_csum_copy(), voff_csum_impl()),
 * from the CPU's features: "avx512" (AVX-512F), "avx2", "sse2" on x86, else
 * "portable".  It is thread safe and allocates nothing.
 *
 * Return: a static string such as "avx512", "avx2", "sse2" or "portable".
 */
const char *voff_csum_impl(void);

/**
 * voff_csum_copy() - copy @len bytes from @src to @dst and sum them
 * @dst:	destination (must not overlap @src)
 * @src:	source
 * @len:	bytes
 * @sum:	partial sum to continue
 *
 * Fuses the copy with the sum so the data is read once.
 *
 * Return: the partial sum of the copied bytes, continuing @sum.
 */
uint32_t voff_csum_copy(void *dst, const void *src, size_t len, uint32_t sum);

/** voff_csum_copy_naive() - reference twin of voff_csum_copy() */
uint32_t voff_csum_copy_naive(void *dst, const void *src, size_t len,
			      uint32_t sum);

/** voff_csum_add() - one's complement addition of two partial sums */
static inline uint32_t voff_csum_add(uint32_t a, uint32_t b)
{
	uint32_t r = a + b;

	return r + (r < a);
}

/** voff_csum_sub() - one's complement subtraction of partial sums */
static inline uint32_t voff_csum_sub(uint32_t a, uint32_t b)
{
	return voff_csum_add(a, ~b);
}

/**
 * voff_csum_block_add() - add the sum of a block that starts at @offset
 * @sum:	running sum of the bytes before the block
 * @block:	sum of the block, computed as if it started at offset 0
 * @offset:	the block's offset in the checksummed range
 *
 * Return: @sum plus @block, rotated by 8 bits when @offset is odd.
 */
static inline uint32_t voff_csum_block_add(uint32_t sum, uint32_t block,
					   size_t offset)
{
	if (offset & 1)
		block = (block >> 8) | (block << 24);
	return voff_csum_add(sum, block);
}

/**
 * voff_csum_fold() - fold a partial sum to 16 bits and complement it
 *
 * Return: the checksum field value, in memory order (store with memcpy).
 */
static inline uint16_t voff_csum_fold(uint32_t sum)
{
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * voff_csum_unfold() - turn a stored checksum field into a partial sum
 *
 * The inverse of voff_csum_fold() up to one's complement equivalence.
 */
static inline uint32_t voff_csum_unfold(uint16_t check)
{
	return (uint16_t)~check;
}

/**
 * voff_csum_update16() - RFC 1624 update of a checksum for a 16-bit change
 * @check:	the checksum field as stored (memory order)
 * @oval:	the changed field's old value, as stored (memory order)
 * @nval:	its new value, as stored
 *
 * Computes HC' = ~(~HC + ~m + m') (RFC 1624 eqn. 3).
 *
 * Return: the new checksum field, memory order.
 */
uint16_t voff_csum_update16(uint16_t check, uint16_t oval, uint16_t nval);

/**
 * voff_csum_update32() - RFC 1624 update for a 32-bit field change
 * @check:	the checksum field as stored
 * @oval:	old 32-bit value as stored (memory order, e.g. a sequence
 *		number read with memcpy)
 * @nval:	new value as stored
 *
 * Return: the new checksum field, memory order.
 */
uint16_t voff_csum_update32(uint16_t check, uint32_t oval, uint32_t nval);

/**
 * voff_csum_pseudo_v4() - IPv4 pseudo-header sum
 * @saddr:	4 bytes, as in the packet
 * @daddr:	4 bytes, as in the packet
 * @proto:	IP protocol number (6, 17, ...)
 * @len:	L4 length (header and payload) in host order; lengths above
 *		65535 (GSO super-packets) are summed as a 32-bit number, as
 *		the kernel does, which folds to the same value modulo 0xFFFF
 *
 * Does not read the IPv4 header: pass the addresses from it.
 *
 * Return: unfolded partial sum of the pseudo-header.
 */
uint32_t voff_csum_pseudo_v4(const void *saddr, const void *daddr,
			     uint8_t proto, uint32_t len);

/**
 * voff_csum_pseudo_v6() - IPv6 pseudo-header sum (RFC 8200 8.1)
 * @saddr:	16 bytes, as in the packet
 * @daddr:	16 bytes (the final destination), as in the packet
 * @proto:	upper-layer protocol number
 * @len:	upper-layer packet length in host order
 *
 * Return: unfolded partial sum of the pseudo-header.
 */
uint32_t voff_csum_pseudo_v6(const void *saddr, const void *daddr,
			     uint8_t proto, uint32_t len);

/**
 * voff_csum_complete_at() - complete a partial checksum in a flat buffer
 * @data:	frame bytes
 * @len:	frame length
 * @start:	where summing starts (the L4 header)
 * @offset:	offset of the checksum field past @start
 *
 * Sums bytes [@start, @len) (the field must hold the pseudo-header seed)
 * and stores the folded result at @start + @offset; a result of 0 is stored
 * as 0xFFFF, as the kernel's skb_checksum_help() does (for UDP 0 would mean
 * "no checksum").
 *
 * Return: 0, or -EINVAL when @start > @len or the two bytes of the field
 * do not lie inside [@start, @len) (nothing written).
 */
int voff_csum_complete_at(uint8_t *data, size_t len, size_t start,
			  size_t offset);

/**
 * voff_csum_ipv4_hdr() - compute an IPv4 header checksum
 * @hdr:	the header, its checksum field included (ignored)
 * @ihl_bytes:	header length in bytes (20..60; the caller checks it, as
 *		nothing here reads the IHL field)
 *
 * Does not store the result: memcpy() it to byte 10 of the header.
 *
 * Return: the checksum field value, memory order.
 */
uint16_t voff_csum_ipv4_hdr(const void *hdr, size_t ihl_bytes);

/**
 * voff_csum_ipv4_hdr_ok() - whether an IPv4 header's checksum is valid
 * Return: true when the header sums to 0xFFFF.
 */
bool voff_csum_ipv4_hdr_ok(const void *hdr, size_t ihl_bytes);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_CSUM_H */
