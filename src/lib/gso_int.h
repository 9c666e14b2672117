/* SPDX-License-Identifier: MIT */
/*
 * gso_int.h - private interface between gso.c (entry points, header walk,
 * segment loop, output forms) and the protocol files gso_tcp.c, gso_udp.c
 * and gso_tunnel.c, which validate their header and fix it per segment.
 */
#ifndef VOFF_GSO_INT_H
#define VOFF_GSO_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>

#include <voff/csum.h>
#include <voff/gso.h>

#include "csum_int.h"

/* Byte-order helpers over unaligned wire bytes. */
static inline uint16_t gso_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t gso_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * Stores are one 16- or 32-bit write each: a later wider load of the
 * header (a copy, a sum) is then served from the store buffer instead of
 * waiting for several byte stores to retire.
 */
static inline void gso_put16(uint8_t *p, uint32_t v)
{
	uint16_t w = htons((uint16_t)v);

	memcpy(p, &w, 2);
}

static inline void gso_put32(uint8_t *p, uint32_t v)
{
	uint32_t w = htonl(v);

	memcpy(p, &w, 4);
}

/*
 * A 16-bit word as summed by voff_csum(): the two bytes at @p loaded in
 * host order.  Adding or removing such words updates a partial sum.
 */
static inline uint32_t gso_word(const uint8_t *p)
{
	uint16_t w;

	memcpy(&w, p, 2);
	return w;
}

/*
 * The word a big-endian 16-bit field holding @v contributes to a sum.  The
 * per-segment fixes add the words they store from the values they computed
 * and never read a header word back after writing it: a 16-bit load of
 * bytes just stored separately cannot be forwarded and stalls.
 */
static inline uint32_t gso_be16_word(uint32_t v)
{
	return htons((uint16_t)v);
}

/* The two words a big-endian 32-bit field holding @v contributes. */
static inline uint32_t gso_be32_words(uint32_t v)
{
	return (uint32_t)htons((uint16_t)(v >> 16)) + htons((uint16_t)v);
}

/* Checksum field helpers: the field is stored in memory order (csum.h). */
static inline void gso_put_csum(uint8_t *p, uint16_t c)
{
	memcpy(p, &c, 2);
}

/**
 * struct gso_ip - one IP header of the plan
 * @off:	offset of the header in the frame
 * @v6:		IPv6 (else IPv4)
 * @fixed_id:	IPv4 ID not advanced per segment
 * @end:	offset one past the header (options / extension headers)
 * @unfrag_end:	IPv6: end of the unfragmentable part (UFO)
 * @unfrag_nh:	IPv6: offset of the next-header byte naming the first
 *		fragmentable header (UFO rewrites it to 44)
 * @id:		IPv4: the super-packet's ID, the first segment's
 * @base:	IPv4: sum of the header without its total length, ID and
 *		checksum words, the part every segment shares
 */
struct gso_ip {
	uint16_t off;
	bool v6;
	bool fixed_id;
	uint16_t end;
	uint16_t unfrag_end;
	uint16_t unfrag_nh;
	uint16_t id;
	uint32_t base;
};

enum gso_tun { GSO_TUN_NONE = 0, GSO_TUN_UDP, GSO_TUN_GRE };

struct gso_l4;

/**
 * struct gso_plan - a validated super-packet, ready to cut
 * @data:	frame bytes
 * @len:	frame length
 * @type:	gso_type bits
 * @mode:	enum voff_gso_csum_mode
 * @n_ip:	IP headers (1, or 2 with a tunnel), outermost first in @ip
 * @tun:	enum gso_tun
 * @tun_off:	offset of the outer UDP or GRE header
 * @tun_csum:	the tunnel's checksum is computed per segment
 * @tun_csum_at: offset of the tunnel checksum field
 * @l4:		protocol operations of the innermost L4 header
 * @l4_off:	offset of the innermost L4 header
 * @hdr_len:	bytes in front of the payload (copied to every segment)
 * @pay_len:	payload bytes after @hdr_len
 * @mss:	gso_size
 * @unit:	payload bytes per output (mss, or a multiple when resegmenting)
 * @id_step:	IPv4 ID advance per output (1, or segments per piece)
 * @nseg:	outputs
 * @frag_id:	IPv6 UFO fragment identification
 * @pieces:	resegmenting: outputs are super-packets, not segments
 * @pseudo_base: innermost pseudo-header sum for an L4 length of 0
 * @l4_base:	sum of the innermost L4 header without the words that change
 *		per segment (struct gso_l4 @var)
 * @seq:	TCP: the super-packet's sequence number
 * @th_off_flags: TCP: its data offset byte and flags byte, as one word
 * @copy:	full mode: the fused copy and sum voff_csum_copy() would
 *		run, looked up once per call instead of once per output
 */
struct gso_plan {
	const uint8_t *data;
	uint32_t len;
	uint32_t type;
	uint8_t mode;
	uint8_t n_ip;
	struct gso_ip ip[2];
	uint8_t tun;
	uint16_t tun_off;
	bool tun_csum;
	uint16_t tun_csum_at;
	const struct gso_l4 *l4;
	uint16_t l4_off;
	uint16_t hdr_len;
	uint32_t pay_len;
	uint32_t mss;
	uint32_t unit;
	uint32_t id_step;
	uint32_t nseg;
	uint32_t frag_id;
	bool pieces;
	uint32_t pseudo_base;
	uint32_t l4_base;
	uint32_t seq;
	uint16_t th_off_flags;
	voff__csum_copy_fn copy;
};

/**
 * struct gso_seg - the output being fixed
 * @hdr:	the segment's copy of the headers (@plan->hdr_len bytes)
 * @i:		index of the output
 * @off:	payload offset of this output (from the payload start)
 * @plen:	payload bytes of this output
 * @paysum:	partial sum of those payload bytes (full mode only)
 */
struct gso_seg {
	uint8_t *hdr;
	uint32_t i;
	uint32_t off;
	uint32_t plen;
	uint32_t paysum;
};

/**
 * struct gso_l4 - one innermost L4 protocol
 * @name:	for messages
 * @proto:	IP protocol number
 * @csum_offset: offset of the checksum field in the header
 * @ufo:	segments by IP fragmentation (gso_udp.c runs its own loop)
 * @seq_at:	offset of a 32-bit sequence number advanced by the payload
 *		offset of each output (TCP: 4), or 0
 * @ffff:	a full checksum that computes to 0 is sent as 0xFFFF (UDP)
 * @n_var:	entries in @var
 * @var:	offsets of the 16-bit header words a segment may change (the
 *		checksum field included), left out of struct gso_plan @l4_base
 * @check:	validate the header at @p->l4_off, set @p->hdr_len; return 0
 *		or a VOFF_E_GSO_* code
 * @fix:	rewrite the L4 header of one output; @pseudo is the pseudo
 *		header sum for its L4 length; the @var words it stores come
 *		from values (struct gso_plan), never read from the output
 */
struct gso_l4 {
	const char *name;
	uint8_t proto;
	uint8_t csum_offset;
	bool ufo;
	uint8_t seq_at;
	bool ffff;
	uint8_t n_var;
	uint8_t var[6];
	int (*check)(struct gso_plan *p);
	void (*fix)(const struct gso_plan *p, const struct gso_seg *s,
		    uint32_t pseudo);
};

extern const struct gso_l4 voff__gso_tcp;
extern const struct gso_l4 voff__gso_uso;
extern const struct gso_l4 voff__gso_ufo;

/* gso.c: IP header fixes of the IP header @ip. */
void voff__gso_fix_ip(const struct gso_plan *p, const struct gso_ip *ip,
		      uint8_t *hdr, uint32_t l3_len, uint32_t id_add);

/*
 * Pseudo-header sum of the IP header @ip in @hdr, for an L4 header of
 * protocol @proto and @l4_len bytes.  Inline, so that gso.c and the
 * protocol files share it without calling back into gso.c.
 */
static inline uint32_t voff__gso_pseudo(const struct gso_ip *ip,
					const uint8_t *hdr, uint8_t proto,
					uint32_t l4_len)
{
	const uint8_t *h = hdr + ip->off;

	if (ip->v6)
		return voff_csum_pseudo_v6(h + 8, h + 24, proto, l4_len);
	return voff_csum_pseudo_v4(h + 12, h + 16, proto, l4_len);
}
/*
 * Innermost L4 checksum of a segment: full sum or pseudo seed.  @var is
 * the sum of the @var words the fix stored, the checksum field excluded.
 * Inline: it runs once per segment inside the protocol's fix.
 */
static inline void voff__gso_l4_csum(const struct gso_plan *p,
				     const struct gso_seg *s, uint32_t pseudo,
				     uint32_t var, bool zero_ffff)
{
	uint8_t *field = s->hdr + p->l4_off + p->l4->csum_offset;
	uint32_t hl = p->hdr_len - p->l4_off, sum;
	uint16_t c;

	if (p->mode == VOFF_GSO_CSUM_PARTIAL) {
		gso_put_csum(field, (uint16_t)~voff_csum_fold(pseudo));
		return;
	}
	sum = voff_csum_add(voff_csum_add(p->l4_base, pseudo), var);
	sum = voff_csum_block_add(sum, s->paysum, hl);
	c = voff_csum_fold(sum);
	if (c == 0 && zero_ffff)
		c = 0xFFFF;
	gso_put_csum(field, c);
}

/* gso_tunnel.c */
int voff__gso_tunnel_check(struct gso_plan *p);
void voff__gso_tunnel_fix(const struct gso_plan *p, const struct gso_seg *s);

/* gso_udp.c: UFO, its own count and cut. */
int voff__gso_ufo_plan(struct gso_plan *p);
uint16_t voff__gso_ufo_hdr_len(const struct gso_plan *p, uint32_t i);

/**
 * voff__gso_ufo_frag() - write fragment @i's headers into @hdr
 * @p:		the plan
 * @i:		fragment index
 * @hdr:	at least voff__gso_ufo_hdr_len(@p, @i) bytes
 * @udp_check:	the datagram's UDP checksum, memory order
 * @src_off:	receives the frame offset of the fragment's payload bytes
 * @plen:	receives their number
 *
 * Return: the header bytes written.
 */
uint16_t voff__gso_ufo_frag(const struct gso_plan *p, uint32_t i,
			    uint8_t *hdr, uint16_t udp_check,
			    uint32_t *src_off, uint32_t *plen);
uint16_t voff__gso_ufo_udp_csum(const struct gso_plan *p);

#endif /* VOFF_GSO_INT_H */
