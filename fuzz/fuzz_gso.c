/* SPDX-License-Identifier: MIT */
/*
 * fuzz_gso.c - libFuzzer target for software GSO (gso.h)
 *
 * Input: a 12-byte metadata block, then the frame.
 *   [0]	gso_type: index into a table of types (high bit: raw bits
 *		from [8..11] instead)
 *   [1..2]	gso_size (big-endian)
 *   [3]	l3_off (0xFF: VOFF_OFF_NONE)
 *   [4]	inner_l3_off (0xFF: none)
 *   [5]	bit 0 partial checksums, bit 1 metadata csum PARTIAL at the
 *		walked L4 offset, bits 4..7 resegmentation limit selector
 *   [6..7]	csum_start
 *   [8..11]	raw gso_type bits
 *
 * Properties checked on every input that segments: the count and sizes
 * match voff_gso_count(); the descriptor form, gathered, equals the flat
 * form; header slots are an exact-size heap block (ASan catches any write
 * past a slot); the packed form equals the flat form, fits the size it
 * promises and writes nothing when one byte short; the input frame is
 * never modified; resegmenting and then segmenting the pieces gives the
 * same bytes as segmenting at once.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#define MAX_SEGS 128
#define META 12

static const uint32_t types[] = {
	VOFF_GSO_TCPV4,
	VOFF_GSO_TCPV6,
	VOFF_GSO_UDP_L4,
	VOFF_GSO_UDP,
	VOFF_GSO_TCPV4 | VOFF_GSO_TCP_FIXEDID,
	VOFF_GSO_TCPV4 | VOFF_GSO_TCP_ECN,
	VOFF_GSO_TCPV6 | VOFF_GSO_TCP_ACCECN,
	VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL,
	VOFF_GSO_TCPV6 | VOFF_GSO_UDP_TUNNEL | VOFF_GSO_UDP_TUNNEL_CSUM,
	VOFF_GSO_UDP_L4 | VOFF_GSO_UDP_TUNNEL_CSUM,
	VOFF_GSO_TCPV4 | VOFF_GSO_GRE,
	VOFF_GSO_TCPV6 | VOFF_GSO_GRE_CSUM,
	VOFF_GSO_TCPV4 | VOFF_GSO_GRE_CSUM | VOFF_GSO_TCP_FIXEDID_INNER,
	VOFF_GSO_UDP_L4 | VOFF_GSO_GRE,
	VOFF_GSO_UDP | VOFF_GSO_UDP_TUNNEL,
	0,
};

static struct voff_pool *pool;
static struct voff_pkt *flat[MAX_SEGS], *pieces[MAX_SEGS], *sub[MAX_SEGS];
static struct voff_sg sg[MAX_SEGS];
static struct iovec iov[MAX_SEGS][2];
static uint8_t gather[VOFF_PKT_SUPER_ROOM];

static void die_if(int cond)
{
	if (cond)
		abort();
}

/*
 * Whether segment @a of a piece equals segment @b of the whole.  One
 * difference is by design: a TCP piece that holds a single segment is sent
 * as a plain frame, whose zero checksum reads 0xFFFF, where the same
 * segment cut from the whole reads 0x0000 (gso.h).
 */
static bool same_seg(const struct voff_pkt *a, const struct voff_pkt *b,
		     const struct voff_pkt *piece, int m)
{
	const uint8_t *x = voff_pkt_data(a), *y = voff_pkt_data(b);
	uint32_t at = piece->csum_start + 16u;

	if (a->len != b->len)
		return false;
	if (m == 1 && (piece->gso_type & (VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6)) &&
	    at + 2 <= a->len && x[at] == 0xFF && x[at + 1] == 0xFF &&
	    y[at] == 0 && y[at + 1] == 0)
		return memcmp(x, y, at) == 0 &&
		       memcmp(x + at + 2, y + at + 2, a->len - at - 2) == 0;
	return memcmp(x, y, a->len) == 0;
}

/* Resegment with a limit from @sel and compare with @flat[0..n). */
static void check_reseg(const struct voff_pkt *pkt, uint8_t sel, int n)
{
	static const uint32_t sizes[] = { 200, 600, 1600, 3000, 9000, 65536 };
	uint32_t max_size = sizes[sel % 6], max_segs = 1 + sel / 6;
	int np, seen = 0;

	np = voff_gso_resegment(pkt, max_size, max_segs, pool, pieces,
				MAX_SEGS);
	if (np <= 0)
		return;
	for (int j = 0; j < np; j++) {
		int m;

		die_if(pieces[j]->len >= max_size);
		m = voff_gso_segment(pieces[j], NULL, pool, sub, MAX_SEGS);
		die_if(m != pieces[j]->gso_segs || seen + m > n);
		for (int i = 0; i < m; i++)
			die_if(!same_seg(sub[i], flat[seen + i], pieces[j], m));
		voff_pkt_free_bulk(sub, (unsigned int)m);
		seen += m;
	}
	die_if(seen != n);
	voff_pkt_free_bulk(pieces, (unsigned int)np);
}

/*
 * The packed form: the flat form's bytes in a heap block of the documented
 * size; again at the same line offset as far into the block as the frames
 * allow, so that ASan catches a write past the reported end; one byte less
 * fails and writes nothing (guard bytes).
 */
static void check_packed(const struct voff_pkt *pkt,
			 const struct voff_gso_opts *o,
			 const struct voff_gso_info *info, int n)
{
	static struct voff_gso_frame fr[MAX_SEGS];
	size_t bound = VOFF_GSO_PACKED_SIZE(info), end, at;
	uint8_t *blk = malloc(bound);

	die_if(!blk);
	die_if(voff_gso_segment_packed(pkt, o, blk, bound, fr,
				       (unsigned int)n, NULL) != n);
	end = fr[n - 1].off + (size_t)fr[n - 1].len;
	die_if(end > bound);
	at = (bound - end) & ~(size_t)63;
	memset(blk, 0x5A, bound);
	die_if(voff_gso_segment_packed(pkt, o, blk + at, end - 1, fr,
				       (unsigned int)n, NULL) != -ENOSPC);
	for (size_t k = 0; k < bound; k++)
		die_if(blk[k] != 0x5A);
	die_if(voff_gso_segment_packed(pkt, o, blk + at, end, fr,
				       (unsigned int)n, NULL) != n);
	die_if(fr[n - 1].off + (size_t)fr[n - 1].len != end);
	for (int i = 0; i < n; i++) {
		die_if(fr[i].len != flat[i]->len);
		die_if(fr[i].hdr_len != flat[i]->hdr_len);
		die_if(i && fr[i].off < fr[i - 1].off + fr[i - 1].len);
		die_if(memcmp(blk + at + fr[i].off, voff_pkt_data(flat[i]),
			      fr[i].len) != 0);
	}
	free(blk);
}

static void run(struct voff_pkt *pkt, const struct voff_gso_opts *o,
		uint8_t sel)
{
	struct voff_gso_info info, sinfo;
	uint8_t *slots;
	int n, m;

	if (voff_gso_count(pkt, o, &info) != 0)
		return;
	die_if(info.segs == 0 || info.hdr_len > VOFF_GSO_MAX_HDR + 8);
	n = voff_gso_segment(pkt, o, pool, flat, MAX_SEGS);
	if (n < 0) {
		die_if(voff_pool_in_use(pool) != 0);
		return;
	}
	die_if((unsigned int)n != info.segs);
	slots = malloc((size_t)n * info.hdr_len + 1);
	die_if(!slots);
	for (int i = 0; i < n; i++)
		voff_sg_init(&sg[i], iov[i], 2);
	m = voff_gso_segment_sg(pkt, o, slots, info.hdr_len, sg,
				(unsigned int)n, &sinfo);
	die_if(m != n);
	for (int i = 0; i < n; i++) {
		size_t g = voff_sg_copy(&sg[i], gather, sizeof(gather));

		die_if(flat[i]->len > info.max_len);
		die_if(g != flat[i]->len);
		die_if(memcmp(gather, voff_pkt_data(flat[i]), g) != 0);
	}
	free(slots);
	check_packed(pkt, o, &info, n);
	if (o->csum_mode == VOFF_GSO_CSUM_FULL)
		check_reseg(pkt, sel, n);
	voff_pkt_free_bulk(flat, (unsigned int)n);
	die_if(voff_pool_in_use(pool) != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_gso_opts o = { .ipv6_frag_id = 0x01020304 };
	struct voff_pkt pkt;
	uint8_t *frame, *copy;
	size_t len;

	if (size < META || size - META > 65535 + 64)
		return 0;
	if (!pool && voff_pool_new(&pool, 4 * MAX_SEGS, 65600) != 0)
		abort();
	len = size - META;
	frame = malloc(len ? len : 1);
	copy = malloc(len ? len : 1);
	die_if(!frame || !copy);
	memcpy(frame, data + META, len);
	memcpy(copy, frame, len);
	die_if(voff_pkt_init_ext(&pkt, frame, (uint32_t)len, 0,
				 (uint32_t)len) != 0);
	if (data[0] & 0x80)
		pkt.gso_type = (uint32_t)data[8] << 24 |
			       (uint32_t)data[9] << 16 |
			       (uint32_t)data[10] << 8 | data[11];
	else
		pkt.gso_type = types[data[0] % (sizeof(types) /
						sizeof(types[0]))];
	pkt.gso_size = (uint16_t)(data[1] << 8 | data[2]);
	pkt.l3_off = data[3] == 0xFF ? VOFF_OFF_NONE : data[3];
	pkt.inner_l3_off = data[4] == 0xFF ? VOFF_OFF_NONE : data[4];
	o.csum_mode = data[5] & 1;
	if (data[5] & 2) {
		pkt.csum = VOFF_CSUM_PARTIAL;
		pkt.csum_start = (uint16_t)(data[6] << 8 | data[7]);
		pkt.csum_offset = (pkt.gso_type & (VOFF_GSO_TCPV4 |
						   VOFF_GSO_TCPV6)) ? 16 : 6;
	}
	run(&pkt, &o, data[5] >> 4);
	die_if(memcmp(frame, copy, len) != 0);
	free(frame);
	free(copy);
	return 0;
}
