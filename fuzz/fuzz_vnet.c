/* SPDX-License-Identifier: MIT */
/*
 * fuzz_vnet.c - libFuzzer target for the virtio_net_hdr decode + validator
 *
 * Input: one configuration byte, then the header (as long as that
 * configuration says), then the frame.  Configuration byte bits: 0-1 header
 * size (10, 12, 20, 24), 2-3 byte order (LE, native, BE; 3 = LE), 4 L3
 * mode, 5 receive direction, 6 tunnel GSO (forces 24 bytes), 7 max_segs 64.
 *
 * Properties: nothing crashes or reads out of bounds; a rejected header
 * leaves the packet untouched; an accepted one re-encodes to the same
 * header bytes up to the normalisation docs/vnet.md lists (hdr_len
 * recomputed, fields without meaning zeroed, GSO that fits one segment
 * made plain, hash_report recomputed), and the re-encoded header decodes
 * to the same packet metadata.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/vnet.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void expect(int cond)
{
	if (!cond)
		abort();
}

static void cfg_from(uint8_t b, struct voff_vnet_cfg *c)
{
	static const uint8_t sizes[] = { 10, 12, 20, 24 };

	memset(c, 0, sizeof(*c));
	c->hdr_size = sizes[b & 3];
	c->order = (uint8_t)((b >> 2) & 3) % 3;
	c->mode = (b >> 4) & 1;
	c->dir = (b >> 5) & 1;
	c->tunnel = (b >> 6) & 1;
	if (c->tunnel)
		c->hdr_size = 24;
	c->max_segs = (b & 0x80) ? 64 : 0;
}

/* What an accepted header must re-encode to. */
static void normalise(const struct voff_vnet_cfg *c, const struct voff_pkt *p,
		      bool parsed, struct voff_vnet_hdr *h)
{
	bool partial = h->flags & VOFF_VNET_F_NEEDS_CSUM;

	h->hdr_len = p->hdr_len;
	if (!partial) {
		h->csum_start = 0;
		h->csum_offset = 0;
	}
	if (!p->gso_type) {
		h->gso_type = 0;
		h->gso_size = 0;
		h->flags &= (uint8_t)~VOFF_VNET_F_UDP_TUNNEL_CSUM;
	}
	if (!(p->gso_type & VOFF_GSO_UDP_TUNNEL)) {
		h->outer_th_offset = 0;
		h->inner_nh_offset = 0;
	}
	if (c->dir != VOFF_VNET_RX || partial)
		h->flags &= (uint8_t)~VOFF_VNET_F_DATA_VALID;
	h->num_buffers = c->dir == VOFF_VNET_RX && c->hdr_size >= 12;
	if (c->dir == VOFF_VNET_RX && c->hdr_size >= 20 && p->hash && parsed)
		h->hash_value = p->hash;
	else
		h->hash_value = 0;
}

static void same_meta(const struct voff_pkt *a, const struct voff_pkt *b)
{
	expect(a->csum == b->csum);
	expect(a->csum_start == b->csum_start);
	expect(a->csum_offset == b->csum_offset);
	expect(a->gso_type == b->gso_type);
	expect(a->gso_size == b->gso_size);
	expect(a->gso_segs == b->gso_segs);
	expect(a->hdr_len == b->hdr_len);
	expect(a->l4_off == b->l4_off);
	expect(a->payload_off == b->payload_off);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_vnet_cfg c;
	struct voff_vnet_hdr in, out_h;
	struct voff_pkt pkt, before, again;
	struct voff_parsed parsed;
	uint8_t out[24];
	uint8_t *frame;
	size_t flen;
	bool ok_parse;
	int err;

	if (size < 1)
		return 0;
	cfg_from(data[0], &c);
	if (size < 1u + c.hdr_size)
		return 0;
	flen = size - 1 - c.hdr_size;
	/* An exact-size copy lets ASan see any read past the frame. */
	frame = malloc(flen ? flen : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 1 + c.hdr_size, flen);
	voff_pkt_init_ext(&pkt, frame, (uint32_t)flen, 0, (uint32_t)flen);
	before = pkt;
	err = voff_vnet_decode(&c, data + 1, c.hdr_size, &pkt);
	if (err) {
		expect(err < 0);
		expect(!memcmp(&before, &pkt, sizeof(pkt)));
		goto out;
	}
	expect(voff_vnet_hdr_read(&c, data + 1, c.hdr_size, &in) ==
	       c.hdr_size);
	expect(voff_vnet_encode(&c, &pkt, out, sizeof(out)) == c.hdr_size);
	expect(voff_vnet_hdr_read(&c, out, c.hdr_size, &out_h) == c.hdr_size);
	ok_parse = voff_parse(frame, flen,
			      c.mode ? VOFF_PARSE_IP : VOFF_PARSE_ETH,
			      &parsed) == 0;
	normalise(&c, &pkt, ok_parse, &in);
	expect(in.flags == out_h.flags);
	expect(in.gso_type == out_h.gso_type);
	expect(in.hdr_len == out_h.hdr_len);
	expect(in.gso_size == out_h.gso_size);
	expect(in.csum_start == out_h.csum_start);
	expect(in.csum_offset == out_h.csum_offset);
	expect(in.num_buffers == out_h.num_buffers);
	expect(in.hash_value == out_h.hash_value);
	expect(in.outer_th_offset == out_h.outer_th_offset);
	expect(in.inner_nh_offset == out_h.inner_nh_offset);
	voff_pkt_init_ext(&again, frame, (uint32_t)flen, 0, (uint32_t)flen);
	expect(voff_vnet_decode(&c, out, c.hdr_size, &again) == 0);
	same_meta(&pkt, &again);
out:
	free(frame);
	return 0;
}
