/* SPDX-License-Identifier: MIT */
/*
 * gro_gen.h - random flows of segments for the GRO tests (gro_gen.c)
 *
 * A flow is a struct sp (gro_util.h) that moves on segment by segment:
 * mostly the clean next segment of its flow, sometimes one that changes a
 * field the kernel's GRO compares (flags, window, ACK, timestamp, TTL,
 * TOS, DF, flow label, sequence, ID), one of another length, or one that
 * must never merge (bad checksum, IP options, a fragment, padding).
 *
 * How often each of these happens is a struct gro_gen_mix, in percent.
 * The tests that feed the flows to an engine and a naive twin
 * (test_gro_prop.c), to the full and the fast path (test_gro_fast.c), or
 * to the kernel and the engine (test_gro_kernel.c) each keep their own
 * mix; the generator is one.  Draws come from check_rand(), so CHECK_SEED
 * replays a run.
 */
#ifndef VOFF_TEST_GRO_GEN_H
#define VOFF_TEST_GRO_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "gro_util.h"

/**
 * struct gro_gen_mix - chances (percent: 0 never, 100 always) and ranges
 *
 * Per flow:
 * @v6:		the flow is IPv6 (else IPv4)
 * @udp:	the flow is UDP (else TCP)
 * @sport:	source port of flow 0; flow i uses @sport + i
 * @srcs:	source addresses flows pick from (0 or 1: one)
 * @df:		the flow starts with DF set
 * @fixed_id:	the flow keeps one IPv4 ID (else it counts up)
 * @big_mss:	the MSS is in [@big_min, @big_max], else in [1, @small_max]
 * @big_min:	see @big_mss
 * @big_max:	see @big_mss
 * @small_max:	see @big_mss
 * @vlan:	an Ethernet flow carries a VLAN tag (VID 1..3)
 * @ext:	an IPv6 flow carries destination options of 8 * (1 ..
 *		@ext_units) bytes
 * @ext_units:	see @ext (0 counts as 1)
 * @ts:		a TCP flow carries timestamps: 12 option bytes, or 20 with
 *		the chance @ts_long
 * @ts_long:	see @ts
 *
 * Per segment:
 * @shorter:	payload shorter than the MSS (TCP: maybe none at all)
 * @longer:	else, payload longer than the MSS by 1 .. @longer_max
 * @longer_max:	see @longer
 * @flag:	TCP: one of PSH, FIN, SYN, RST, URG, CWR, ECE besides ACK
 * @win:	TCP: the flow's window changes from here on
 * @tsval:	TCP with timestamps: the flow's TSval moves on
 * @ack:	TCP: the flow's ACK moves on by 1000
 * @seq_jump:	TCP: the sequence number skips 1 .. 100 bytes
 * @seq_back:	else, TCP: it goes back one MSS
 * @id_jump:	IPv4: the ID skips 2 .. 6
 * @ttl:	the flow's TTL changes (to 30 .. 32)
 * @tos:	the flow's TOS byte changes (to 0 .. @tos_values - 1)
 * @tos_values:	see @tos (4: ECN bits only; 16: a DSCP bit too)
 * @df_flip:	IPv4: the flow's DF bit flips
 * @flow_label:	IPv6: the flow's label changes (to 0 .. 2)
 * @bad_csum:	the L4 checksum is wrong
 * @ipopt:	IPv4: the segment has 4 bytes of IP options
 * @mf:		IPv4: the segment is a first fragment (MF)
 * @pad:	Ethernet: 4 bytes of padding follow the packet
 * @no_csum:	UDP: the checksum is 0 (none)
 */
struct gro_gen_mix {
	unsigned int v6, udp;
	uint16_t sport;
	unsigned int srcs;
	unsigned int df, fixed_id;
	unsigned int big_mss;
	uint16_t big_min, big_max, small_max;
	unsigned int vlan, ext, ext_units, ts, ts_long;
	unsigned int shorter, longer, longer_max;
	unsigned int flag, win, tsval, ack, seq_jump, seq_back, id_jump;
	unsigned int ttl, tos, tos_values, df_flip, flow_label;
	unsigned int bad_csum, ipopt, mf, pad, no_csum;
};

/**
 * struct gro_gen_flow - one flow and where it stands
 * @s:		the clean next segment, without payload length
 * @mss:	its usual payload length
 * @fixed_id:	IPv4 IDs do not count up
 * @mix:	the chances it was made with (borrowed)
 */
struct gro_gen_flow {
	struct sp s;
	uint16_t mss;
	bool fixed_id;
	const struct gro_gen_mix *mix;
};

/* Start flow number @idx with @mix; @raw: no Ethernet header (TUN). */
void gro_gen_flow(struct gro_gen_flow *g, const struct gro_gen_mix *mix,
		  int idx, bool raw);

/* The next segment of @g, maybe changed; @g moves on past it. */
struct sp gro_gen_seg(struct gro_gen_flow *g);

#endif /* VOFF_TEST_GRO_GEN_H */
