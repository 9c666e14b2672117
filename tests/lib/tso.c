/* SPDX-License-Identifier: MIT */
/*
 * tso.c - TCP super-packets for the port and switch tests (see tso.h)
 */
#include <stddef.h>
#include <stdint.h>

#include <voff/parse.h>
#include <voff/pkt.h>

#include "check.h"
#include "frames.h"
#include "tso.h"

size_t tso_tcp4_frame(uint8_t *buf, size_t cap, size_t payload, uint8_t seed)
{
	struct tf b;

	tf_init(&b, buf, cap);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	tf_tcp(&b, &(struct tf_l4){ .seq = 1, .flags = TF_ACK });
	tf_payload(&b, payload, seed);
	return tf_finish(&b);
}

void tso_mark(struct voff_pkt *pkt, uint16_t mss)
{
	struct voff_parsed p;

	CHECK_OK(voff_pkt_parse(pkt, VOFF_PARSE_ETH, &p));
	CHECK_EQ(p.l4_proto, 6);
	pkt->csum = VOFF_CSUM_PARTIAL;
	pkt->csum_start = pkt->l4_off;
	pkt->csum_offset = 16;
	pkt->gso_type = p.l3_proto == 6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
	pkt->gso_size = mss;
	pkt->hdr_len = pkt->payload_off;
}
