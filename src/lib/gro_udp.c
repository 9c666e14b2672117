/* SPDX-License-Identifier: MIT */
/*
 * gro_udp.c - UDP rules of the GRO engine (gro.c), USO style: datagrams of
 * one flow and one size become one GSO_UDP_L4 super-packet whose segments
 * are the original datagrams
 *
 * As Linux's udp_gro_receive_segment(): the first datagram's payload sets
 * gso_size; a larger one ends the train without joining (it may start the
 * next one); an equal one joins; a smaller one joins and ends the train; a
 * train holds at most VOFF_GRO_UDP_MAX_SEGS datagrams.  Datagrams without
 * a checksum or whose length disagrees with the IP length never get here
 * (gro.c passes them after flushing their flow).
 */
#include <voff/csum.h>
#include <voff/gro.h>

#include "gro_int.h"

static enum gro_verdict udp_check(const struct gro_flow *f,
				  const struct gro_seg *s)
{
	return s->pay_len > f->gso_size ? GRO_SPLIT : GRO_JOIN;
}

static bool udp_can_hold(const struct gro_seg *s)
{
	return s->pay_len > 0;
}

static bool udp_joined(struct gro_flow *f, const struct gro_seg *s,
		       unsigned int max_segs)
{
	return s->pay_len < f->gso_size || f->count >= VOFF_GRO_UDP_MAX_SEGS ||
	       f->count >= max_segs;
}

static void udp_complete(const struct gro_flow *f, struct voff_pkt *head)
{
	uint8_t *d = voff_pkt_data(head);
	uint8_t *uh = d + f->l4_off;
	uint32_t l4_len = f->l3_len - (uint32_t)(f->l4_off - f->l3_off);
	uint16_t seed = voff__gro_l4_seed(f, 17, l4_len);

	gro_put16(uh + 4, (uint16_t)l4_len);
	memcpy(uh + 6, &seed, 2);
	head->gso_type = VOFF_GSO_UDP_L4;
}

const struct voff__gro_ops voff__gro_udp_ops = {
	.check = udp_check,
	.can_hold = udp_can_hold,
	.joined = udp_joined,
	.complete = udp_complete,
	.csum_offset = 6,
};
