/* SPDX-License-Identifier: MIT */
/*
 * gro_tcp.c - TCP rules of the GRO engine (gro.c): which segment joins a
 * held head, when a train ends, and the header of a finished super-packet
 *
 * The rules are Linux 6.18.44's tcp_gro_receive() and tcp_gro_complete(),
 * restated from observation and docs/kernel-model.md §3 and §6:
 *  - a segment carrying CWR never joins, and a head carrying CWR takes no
 *    followers (the CWR bit is part of the compared flag word);
 *  - the 32-bit word of data offset, flags and window must be equal except
 *    for FIN and PSH, so a window change splits;
 *  - ack and every option byte (timestamps too) must be equal;
 *  - the sequence number must continue the head exactly;
 *  - the payload must be non-empty and no longer than the first segment's;
 *  - after joining, a shorter segment or URG/PSH/RST/SYN/FIN ends the train,
 *    and FIN and PSH are OR-ed into the head.
 */
#include <voff/csum.h>

#include "gro_int.h"

#define END_FLAGS (GRO_TCP_URG | GRO_TCP_PSH | GRO_TCP_RST | GRO_TCP_SYN | \
		   GRO_TCP_FIN)
/* FIN and PSH may differ between segments of one train. */
#define FLAG_WORD_MASK (~(uint32_t)((GRO_TCP_FIN | GRO_TCP_PSH) << 16))

/*
 * The head's fields come from the flow entry (its template or its copy,
 * gro_flow_tcp8()), see gro_int.h.
 */
static enum gro_verdict tcp_check(const struct gro_flow *f,
				  const struct gro_seg *s)
{
	const uint8_t *tc = gro_flow_tcp8(f);
	const uint8_t *nt = s->data + s->l4_off;
	unsigned int doff = (unsigned int)(nt[12] >> 4) * 4;

	if (s->tcp_flags & GRO_TCP_CWR)
		return GRO_SPLIT;
	if ((gro_get32(tc + 4) ^ gro_get32(nt + 12)) & FLAG_WORD_MASK)
		return GRO_SPLIT;
	if (memcmp(tc, nt + 8, 4) != 0)
		return GRO_SPLIT;
	/* Equal flag words mean equal data offsets. */
	if (!gro_bytes_eq(tc + 12, nt + 20, doff - 20))
		return GRO_SPLIT;
	if (s->seq != f->next_seq)
		return GRO_SPLIT;
	if (s->pay_len == 0 || s->pay_len > f->gso_size)
		return GRO_SPLIT;
	return GRO_JOIN;
}

static bool tcp_can_hold(const struct gro_seg *s)
{
	return s->pay_len > 0 && !(s->tcp_flags & END_FLAGS);
}

static bool tcp_joined(struct gro_flow *f, const struct gro_seg *s,
		       unsigned int max_segs)
{
	uint8_t fp = s->tcp_flags & (GRO_TCP_FIN | GRO_TCP_PSH);

	f->next_seq += s->pay_len;
	if (fp)
		voff_pkt_data(f->head)[f->l4_off + 13] |= fp;
	return s->pay_len < f->gso_size || (s->tcp_flags & END_FLAGS) ||
	       f->count >= max_segs;
}

static void tcp_complete(const struct gro_flow *f, struct voff_pkt *head)
{
	voff__gro_tcp_complete(f, head);
}

const struct voff__gro_ops voff__gro_tcp_ops = {
	.check = tcp_check,
	.can_hold = tcp_can_hold,
	.joined = tcp_joined,
	.complete = tcp_complete,
	.csum_offset = 16,
};
