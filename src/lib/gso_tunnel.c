/* SPDX-License-Identifier: MIT */
/*
 * gso_tunnel.c - the outer part of tunnelled super-packets: UDP tunnels
 * (VXLAN, Geneve: VOFF_GSO_UDP_TUNNEL[_CSUM]) and GRE (VOFF_GSO_GRE[_CSUM])
 * over IPv4 or IPv6.  gso.c segments the inner packet and calls here once
 * per segment, between the inner and the outer IP header fixes.
 *
 * The outer checksum is computed the way the kernel's "local checksum
 * offload" does: once the inner L4 checksum is complete, the inner L4 bytes
 * sum to the complement of the inner pseudo-header, so the outer sum needs
 * only the bytes from the tunnel header to the inner L4 header.  That holds
 * in partial mode too, where the egress completes the inner checksum later.
 */
#include <voff/csum.h>
#include <voff/err.h>

#include "gso_int.h"

#define GRE_C 0x8000
#define GRE_K 0x2000
#define GRE_S 0x1000
#define GRE_OTHER 0x4FFF	/* routing, strict route, recursion, flags */

static int gre_check(struct gso_plan *p)
{
	uint32_t off = p->tun_off, hl = 4;
	uint16_t f;

	if (off + 4u > p->len)
		return VOFF_E_GSO_HDR;
	f = gso_get16(p->data + off);
	if (f & GRE_OTHER)	/* version 0, no routing: RFC 2784/2890 */
		return VOFF_E_GSO_PROTO;
	hl += (f & GRE_C) ? 4 : 0;
	hl += (f & GRE_K) ? 4 : 0;
	hl += (f & GRE_S) ? 4 : 0;
	if (off + hl > p->len)
		return VOFF_E_GSO_HDR;
	if ((p->type & VOFF_GSO_GRE_CSUM) && !(f & GRE_C))
		return VOFF_E_GSO_PROTO;
	p->tun_csum = (p->type & VOFF_GSO_GRE_CSUM) != 0;
	p->tun_csum_at = (uint16_t)(off + 4);
	/* The inner IP header may not start inside the GRE header. */
	p->ip[1].off = (uint16_t)(off + hl);
	return 0;
}

int voff__gso_tunnel_check(struct gso_plan *p)
{
	if (p->tun == GSO_TUN_GRE)
		return gre_check(p);
	if (p->tun_off + 8u > p->len)
		return VOFF_E_GSO_HDR;
	p->tun_csum = (p->type & VOFF_GSO_UDP_TUNNEL_CSUM) != 0;
	p->tun_csum_at = (uint16_t)(p->tun_off + 6);
	p->ip[1].off = (uint16_t)(p->tun_off + 8);
	return 0;
}

/* Outer checksum over [tunnel header, inner L4) + completed inner L4. */
static uint16_t lco_sum(const struct gso_plan *p, const struct gso_seg *s,
			uint32_t start_sum)
{
	uint32_t l4_len = p->hdr_len - p->l4_off + s->plen;
	uint32_t inner = voff_csum_add(p->pseudo_base, gso_be16_word(l4_len));
	uint32_t span = p->l4_off - p->tun_off, sum;

	sum = voff_csum(s->hdr + p->tun_off, span, start_sum);
	sum = voff_csum_block_add(sum, voff_csum_fold(inner), span);
	return voff_csum_fold(sum);
}

void voff__gso_tunnel_fix(const struct gso_plan *p, const struct gso_seg *s)
{
	uint8_t *t = s->hdr + p->tun_off;
	uint8_t *field = s->hdr + p->tun_csum_at;
	uint32_t len = p->hdr_len - p->tun_off + s->plen;
	uint16_t c;

	if (p->tun == GSO_TUN_UDP)
		gso_put16(t + 4, len);
	/* Without the _CSUM type the field stays as it came, as in Linux. */
	if (!p->tun_csum)
		return;
	field[0] = 0;
	field[1] = 0;
	if (p->tun == GSO_TUN_GRE) {
		gso_put_csum(field, lco_sum(p, s, 0));
		return;
	}
	c = lco_sum(p, s, voff__gso_pseudo(&p->ip[0], s->hdr, 17, len));
	gso_put_csum(field, c ? c : 0xFFFF);
}
