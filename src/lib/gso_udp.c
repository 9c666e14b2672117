/* SPDX-License-Identifier: MIT */
/*
 * gso_udp.c - UDP segmentation: USO (VOFF_GSO_UDP_L4, every segment a whole
 * datagram) and UFO (VOFF_GSO_UDP, one datagram cut into IP fragments).
 * gso.c owns the loops; USO plugs into the common segment fixes, UFO
 * builds its fragments' headers here.
 */
#include <voff/csum.h>
#include <voff/err.h>

#include "gso_int.h"

static int udp_check(struct gso_plan *p)
{
	if (p->l4_off + 8u > p->len)
		return VOFF_E_GSO_HDR;
	p->hdr_len = (uint16_t)(p->l4_off + 8);
	return 0;
}

/* USO: each segment is a datagram of its own length; 0 is sent as 0xFFFF. */
static void uso_fix(const struct gso_plan *p, const struct gso_seg *s,
		    uint32_t pseudo)
{
	uint8_t *uh = s->hdr + p->l4_off;

	gso_put16(uh + 4, 8 + s->plen);
	voff__gso_l4_csum(p, s, pseudo, gso_be16_word(8 + s->plen),
			  p->l4->ffff);
}

const struct gso_l4 voff__gso_uso = {
	.name = "udp_l4",
	.proto = 17,
	.csum_offset = 6,
	.ffff = true,
	.n_var = 2,
	.var = { 4, 6 },	/* length, checksum */
	.check = udp_check,
	.fix = uso_fix,
};

const struct gso_l4 voff__gso_ufo = {
	.name = "ufo",
	.proto = 17,
	.csum_offset = 6,
	.ufo = true,
	.check = udp_check,
};

/* First byte of the fragmentable part. */
static uint32_t frag_start(const struct gso_plan *p)
{
	return p->ip[0].v6 ? p->ip[0].unfrag_end : p->ip[0].end;
}

/*
 * UFO cuts the fragmentable part (for IPv4 everything after the IP header,
 * for IPv6 everything after the unfragmentable extension headers) into
 * gso_size pieces, as skb_segment() does with the UDP header counted as
 * payload.  Offsets are in 8-byte units, so gso_size must be a multiple of
 * 8 (the kernel does not check and emits overlapping fragments otherwise).
 * The UDP header must lie in the first fragment so that a descriptor can
 * carry the patched checksum in its header slot.
 */
int voff__gso_ufo_plan(struct gso_plan *p)
{
	uint32_t fs = frag_start(p), ext = fs - p->ip[0].off;

	if (p->mss % 8 || p->hdr_len - fs > p->mss)
		return VOFF_E_GSO_SIZE;
	p->pay_len = p->len - fs;
	if (p->pay_len > 0xFFF8u + p->mss)
		return VOFF_E_GSO_SIZE;
	if (ext + (p->ip[0].v6 ? 8 : 0) + p->mss > 0xFFFF)
		return VOFF_E_GSO_SIZE;
	p->nseg = (p->pay_len + p->mss - 1) / p->mss;
	return 0;
}

uint16_t voff__gso_ufo_hdr_len(const struct gso_plan *p, uint32_t i)
{
	uint32_t fs = frag_start(p), h = fs + (p->ip[0].v6 ? 8 : 0);

	if (i == 0)
		h += p->hdr_len - fs;
	return (uint16_t)h;
}

/* The datagram's checksum over all of it, before any cutting. */
uint16_t voff__gso_ufo_udp_csum(const struct gso_plan *p)
{
	uint32_t ulen = p->len - p->l4_off, sum;
	uint16_t c;

	sum = voff__gso_pseudo(&p->ip[0], p->data, 17, ulen);
	sum = voff_csum(p->data + p->l4_off, 6, sum);
	sum = voff_csum_block_add(sum,
				  voff_csum(p->data + p->l4_off + 8, ulen - 8,
					    0),
				  8);
	c = voff_csum_fold(sum);
	return c ? c : 0xFFFF;
}

static void frag_ip(const struct gso_plan *p, uint8_t *hdr, uint32_t off,
		    uint32_t flen, bool more)
{
	const struct gso_ip *ip = &p->ip[0];
	uint8_t *h = hdr + ip->off;
	uint16_t c;

	if (ip->v6) {
		uint32_t fs = frag_start(p);

		gso_put16(h + 4, fs - ip->off - 40 + 8 + flen);
		hdr[fs] = p->data[ip->unfrag_nh];
		hdr[fs + 1] = 0;
		gso_put16(hdr + fs + 2, off | (more ? 1 : 0));
		gso_put32(hdr + fs + 4, p->frag_id);
		hdr[ip->unfrag_nh] = 44;
		return;
	}
	gso_put16(h + 2, ip->end - ip->off + flen);
	gso_put16(h + 6, (off >> 3) | (more ? 0x2000 : 0));
	h[10] = 0;
	h[11] = 0;
	c = voff_csum_ipv4_hdr(h, ip->end - ip->off);
	gso_put_csum(h + 10, c);
}

uint16_t voff__gso_ufo_frag(const struct gso_plan *p, uint32_t i,
			    uint8_t *hdr, uint16_t udp_check,
			    uint32_t *src_off, uint32_t *plen)
{
	uint32_t fs = frag_start(p), off = i * p->mss, at = fs;
	uint32_t flen = p->pay_len - off < p->mss ? p->pay_len - off : p->mss;

	memcpy(hdr, p->data, fs);
	if (p->ip[0].v6)
		at += 8;
	frag_ip(p, hdr, off, flen, i + 1 < p->nseg);
	*src_off = fs + off;
	*plen = flen;
	if (i == 0) {
		uint32_t u = p->hdr_len - fs;

		memcpy(hdr + at, p->data + fs, u);
		gso_put_csum(hdr + at + (p->l4_off - fs) + 6, udp_check);
		at += u;
		*src_off += u;
		*plen -= u;
	}
	return (uint16_t)at;
}
