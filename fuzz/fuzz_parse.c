/* SPDX-License-Identifier: MIT */
/*
 * fuzz_parse.c - libFuzzer target for the header parser (parse.c) and its
 * checksum checker (parse_csum.c)
 *
 * Input: one selector byte (bit 0: 0 = Ethernet, 1 = raw IP), then the
 * frame.  The frame is parsed in place: libFuzzer (and the replay driver,
 * fuzz/replay.c) hand over an exactly-sized heap copy, so ASan flags any
 * read past its end.  Beyond "no crash, no sanitizer report", every result
 * must be consistent with the frame; a violation aborts, which libFuzzer
 * reports as a finding:
 *  - success: layers contiguous from byte 0 and inside the frame, summary
 *    offsets naming recorded layers, L3 end and payload inside the frame,
 *    voff_parse_csum_check() accepting the result, voff_pkt_parse() giving
 *    the same offsets;
 *  - failure: a VOFF_E_* code (never -errno for real input) and a listed
 *    prefix of contiguous layers inside the frame.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <voff/err.h>
#include <voff/parse.h>
#include <voff/pkt.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                        \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "fuzz_parse: %s:%d: %s\n", __FILE__, \
				__LINE__, #cond);                            \
			abort();                                             \
		}                                                            \
	} while (0)

/* Layers: a contiguous run from byte 0, inside @len, valid protocols. */
static void check_layers(const struct voff_parsed *p, size_t len)
{
	size_t at = 0;

	REQUIRE(p->n_layers <= VOFF_PARSE_MAX_LAYERS);
	for (unsigned int i = 0; i < p->n_layers; i++) {
		const struct voff_layer *l = &p->layers[i];

		REQUIRE(l->proto > VOFF_PROTO_NONE &&
			l->proto < VOFF_PROTO__COUNT);
		REQUIRE(l->off == at);
		REQUIRE(l->len > 0);
		at += l->len;
		REQUIRE(at <= len);
		REQUIRE(at < VOFF_OFF_NONE);
	}
}

/* @off is VOFF_OFF_NONE or the offset of a recorded layer. */
static bool names_layer(const struct voff_parsed *p, uint16_t off)
{
	if (off == VOFF_OFF_NONE)
		return true;
	for (unsigned int i = 0; i < p->n_layers; i++)
		if (p->layers[i].off == off)
			return true;
	return false;
}

static void check_success(const uint8_t *frame, size_t len,
			  enum voff_parse_start start,
			  const struct voff_parsed *p)
{
	struct voff_csum_report r;
	struct voff_pkt pkt;

	check_layers(p, len);
	REQUIRE(p->n_layers > 0);
	REQUIRE(p->l3_end <= len);
	REQUIRE(p->payload_off <= p->l3_end);
	REQUIRE(p->n_vlan <= VOFF_PARSE_MAX_VLAN);
	REQUIRE(names_layer(p, p->l2_off) && names_layer(p, p->l3_off) &&
		names_layer(p, p->l4_off) && names_layer(p, p->tunnel_off) &&
		names_layer(p, p->inner_l2_off) &&
		names_layer(p, p->inner_l3_off) &&
		names_layer(p, p->inner_l4_off));
	/* Outer before tunnel before inner. */
	if (p->l3_off != VOFF_OFF_NONE && p->l4_off != VOFF_OFF_NONE)
		REQUIRE(p->l3_off < p->l4_off);
	if (p->tunnel) {
		REQUIRE(p->flags & VOFF_PF_TUNNEL);
		REQUIRE(p->tunnel_off != VOFF_OFF_NONE);
		REQUIRE(p->l4_off <= p->tunnel_off);
		if (p->inner_l3_off != VOFF_OFF_NONE)
			REQUIRE(p->inner_l3_off > p->tunnel_off);
		if (p->inner_l4_off != VOFF_OFF_NONE)
			REQUIRE(p->inner_l4_off > p->inner_l3_off);
	} else {
		REQUIRE(!(p->flags & VOFF_PF_TUNNEL));
		REQUIRE(p->tunnel_off == VOFF_OFF_NONE);
		REQUIRE(p->inner_l3_off == VOFF_OFF_NONE);
	}
	REQUIRE(start == VOFF_PARSE_IP ? p->l2_off == VOFF_OFF_NONE :
					 p->l2_off == 0);

	REQUIRE(voff_parse_csum_check(frame, len, p, &r) == 0);
	REQUIRE(r.n <= 4);
	for (unsigned int i = 0; i < r.n; i++)
		REQUIRE(r.verdict[i] <= VOFF_CSUM_V_BAD);

	/* The same frame as a packet over caller memory (the parser only
	 * reads it, so casting the const away is harmless). */
	REQUIRE(voff_pkt_init_ext(&pkt, (void *)(uintptr_t)frame,
				  (uint32_t)len, 0, (uint32_t)len) == 0);
	REQUIRE(voff_pkt_parse(&pkt, start, NULL) == 0);
	REQUIRE(pkt.l2_off == p->l2_off && pkt.l3_off == p->l3_off &&
		pkt.l4_off == p->l4_off &&
		pkt.inner_l2_off == p->inner_l2_off &&
		pkt.inner_l3_off == p->inner_l3_off &&
		pkt.inner_l4_off == p->inner_l4_off &&
		pkt.payload_off == p->payload_off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum voff_parse_start start;
	struct voff_parsed p;
	const uint8_t *frame;
	size_t len;
	int rc;

	if (size < 1)
		return 0;
	start = data[0] & 1 ? VOFF_PARSE_IP : VOFF_PARSE_ETH;
	frame = data + 1;
	len = size - 1;
	rc = voff_parse(frame, len, start, &p);
	if (rc == 0) {
		check_success(frame, len, start, &p);
		return 0;
	}
	REQUIRE(voff_err_is_voff(rc));
	check_layers(&p, len);
	return 0;
}
