/* SPDX-License-Identifier: MIT */
/*
 * gso_tcp.c - TCP segmentation (TSO over IPv4 and IPv6, also inside
 * tunnels): header validation and the per-segment TCP fixes.  gso.c owns
 * the loop and the IP headers; this file knows only the TCP header.
 */
#include <voff/err.h>

#include "gso_int.h"

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

static int tcp_check(struct gso_plan *p)
{
	uint32_t doff;

	if (p->l4_off + 20u > p->len)
		return VOFF_E_GSO_HDR;
	doff = (uint32_t)(p->data[p->l4_off + 12] >> 4) * 4;
	if (doff < 20 || p->l4_off + doff > p->len)
		return VOFF_E_GSO_HDR;
	p->hdr_len = (uint16_t)(p->l4_off + doff);
	p->seq = gso_get32(p->data + p->l4_off + 4);
	p->th_off_flags = gso_get16(p->data + p->l4_off + 12);
	return 0;
}

/*
 * Sequence number advances by the payload before this output; FIN and PSH
 * belong to the last byte, so only the last output keeps them; CWR answers
 * one ECE, so only the first output keeps it, except under AccECN where
 * CWR is part of a counter and stays on all (as the kernel's
 * tcp_gso_segment() does).  Everything else, URG and its pointer included,
 * is copied to all.
 */
static void tcp_fix(const struct gso_plan *p, const struct gso_seg *s,
		    uint32_t pseudo)
{
	uint8_t *th = s->hdr + p->l4_off;
	uint32_t seq = p->seq + s->off, word = p->th_off_flags;

	if (s->i + 1 < p->nseg)
		word &= ~(uint32_t)(TCP_FIN | TCP_PSH);
	if (s->i > 0 && !(p->type & VOFF_GSO_TCP_ACCECN))
		word &= ~(uint32_t)TCP_CWR;
	gso_put32(th + 4, seq);
	th[13] = (uint8_t)word;
	/*
	 * A TCP checksum that computes to 0 stays 0x0000 in a GSO segment
	 * (docs/kernel-model.md §6.1).  A super-packet whose payload fits
	 * one segment is not segmented by the kernel but checksummed as a
	 * plain frame, which stores 0 as 0xFFFF; do the same for
	 * byte-identical output.
	 */
	voff__gso_l4_csum(p, s, pseudo,
			  gso_be32_words(seq) + gso_be16_word(word),
			  p->nseg == 1 && !p->pieces);
}

const struct gso_l4 voff__gso_tcp = {
	.name = "tcp",
	.proto = 6,
	.csum_offset = 16,
	.seq_at = 4,
	/* seq (two words), data offset + flags, checksum */
	.n_var = 4,
	.var = { 4, 6, 12, 16 },
	.check = tcp_check,
	.fix = tcp_fix,
};
