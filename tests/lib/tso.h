/* SPDX-License-Identifier: MIT */
/*
 * tso.h - TCP super-packets for the port and switch tests (tso.c): the
 * plain Ethernet/IPv4/TCP frame they start from, built with frames.h, and
 * the offload metadata that makes a parsed frame a TSO super-packet, as a
 * virtio_net_hdr with NEEDS_CSUM and GSO_TCPV4/TCPV6 describes it.
 */
#ifndef VOFF_TEST_TSO_H
#define VOFF_TEST_TSO_H

#include <stddef.h>
#include <stdint.h>

#include <voff/pkt.h>

/*
 * tso_tcp4_frame() - Ethernet (default MACs), IPv4 with DF, TCP seq 1 ACK,
 * @payload bytes of tf_payload(@seed), into @buf of @cap bytes.
 * Return: the frame's length (54 + @payload), 0 when it does not fit.
 */
size_t tso_tcp4_frame(uint8_t *buf, size_t cap, size_t payload,
		      uint8_t seed);

/*
 * tso_mark() - make @pkt, an Ethernet/IPv4 or IPv6/TCP frame, a TCP
 * super-packet of @mss-byte segments: its offsets parsed, the checksum
 * partial over TCP (csum_start at TCP, csum_offset 16), gso_type TCPV4 or
 * TCPV6 by the IP version, gso_size @mss and hdr_len the headers' length.
 * The frame's bytes are left alone; the test fails if it does not parse.
 */
void tso_mark(struct voff_pkt *pkt, uint16_t mss);

#endif /* VOFF_TEST_TSO_H */
