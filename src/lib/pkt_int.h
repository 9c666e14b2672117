/* SPDX-License-Identifier: MIT */
/*
 * pkt_int.h - private side of the packet pools for the library's own fast
 * paths (GSO's flat output): taking buffers without the reset that
 * voff_pkt_alloc() does, and copying a packet's metadata in one block
 *
 * A caller that writes every metadata field of a packet anyway (a GSO
 * segment gets all of its offsets and offload fields from the
 * super-packet) would otherwise clear them once in the pool and write
 * them again.
 */
#ifndef VOFF_PKT_INT_H
#define VOFF_PKT_INT_H

#include <stddef.h>
#include <string.h>

#include <voff/pkt.h>

/*
 * The metadata block of struct voff_pkt: every field from l2_off up to,
 * not including, pool (offsets, checksum and GSO fields, hdr_len, source,
 * port, hash, rx_ns).  buf, buf_size, data_off, len, pool and next lie
 * outside it.
 */
#define VOFF__META_START offsetof(struct voff_pkt, l2_off)
#define VOFF__META_END offsetof(struct voff_pkt, pool)

_Static_assert(offsetof(struct voff_pkt, len) < VOFF__META_START,
	       "data fields before the metadata block");
_Static_assert(offsetof(struct voff_pkt, rx_ns) < VOFF__META_END &&
	       offsetof(struct voff_pkt, next) > VOFF__META_END,
	       "metadata block ends at pool");

/**
 * voff__pkt_meta_copy() - copy the whole metadata block of @src to @dst
 *
 * @src is normally a template on the stack whose source field equals
 * @dst's (VOFF_PKT_SRC_POOL for pool packets).
 */
static inline void voff__pkt_meta_copy(struct voff_pkt *dst,
				       const struct voff_pkt *src)
{
	memcpy((unsigned char *)dst + VOFF__META_START,
	       (const unsigned char *)src + VOFF__META_START,
	       VOFF__META_END - VOFF__META_START);
}

/**
 * voff__pool_take() - voff_pool_get_bulk() without the metadata reset
 * @pool:	the pool
 * @pkts:	receives the packets
 * @n:		packets wanted
 *
 * Each packet has next NULL, data_off VOFF_PKT_HEADROOM and len 0; its
 * metadata block holds whatever its last user left: the caller must write
 * all of it (voff__pkt_meta_copy() from a template) before the packet
 * leaves its hands.
 *
 * Return: 0, or -ENOBUFS when fewer than @n are free (nothing taken).
 */
int voff__pool_take(struct voff_pool *pool, struct voff_pkt **pkts,
		    unsigned int n);

#endif /* VOFF_PKT_INT_H */
