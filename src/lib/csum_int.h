/* SPDX-License-Identifier: MIT */
/*
 * csum_int.h - private interface between csum.c, the SIMD file csum_simd.c
 * and the checksum unit tests
 *
 * csum.c holds the portable sums and every helper of csum.h; csum_simd.c
 * holds the vector routines and the run-time choice between them.  Tests
 * reach each variant through voff__csum_variant() so they can compare all
 * of them with the naive twin, whatever this CPU picks for voff_csum().
 */
#ifndef VOFF_CSUM_INT_H
#define VOFF_CSUM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint32_t (*voff__csum_fn)(const void *buf, size_t len, uint32_t sum);
typedef uint32_t (*voff__csum_copy_fn)(void *dst, const void *src, size_t len,
				       uint32_t sum);

/**
 * struct voff__csum_variant - one implementation of the sum
 * @name:	"avx2", "sse2", "portable"
 * @csum:	the sum routine
 * @copy:	the fused copy and sum routine
 * @usable:	whether this CPU can run it (may be called from any thread)
 */
struct voff__csum_variant {
	const char *name;
	voff__csum_fn csum;
	voff__csum_copy_fn copy;
	bool (*usable)(void);
};

/**
 * voff__csum_variant() - the @i-th implementation, best first
 * @i:		index from 0
 *
 * Return: the variant, or NULL past the last one.  The last one is always
 * the portable routine.
 */
const struct voff__csum_variant *voff__csum_variant(unsigned int i);

/** voff__csum_copy_portable() - portable fused copy and sum */
uint32_t voff__csum_copy_portable(void *dst, const void *src, size_t len,
				  uint32_t sum);

/** voff__csum_fold64() - reduce a 64-bit accumulator to a 32-bit sum */
static inline uint32_t voff__csum_fold64(uint64_t s)
{
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	s = (s & 0xFFFFFFFFu) + (s >> 32);
	return (uint32_t)s;
}

#endif /* VOFF_CSUM_INT_H */
