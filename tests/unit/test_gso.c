/* SPDX-License-Identifier: MIT */
/*
 * test_gso.c - software GSO (gso.h): the published vectors (Open vSwitch
 * "tso", wireguard-go/Tailscale split and capacity cases, the kernel case
 * of docs/kernel-model.md §4.8), error codes, all-or-nothing output, and
 * randomized super-packets against the naive twin of gso_twin.h in both
 * checksum modes and all three output forms (flat, packed, descriptors).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "check.h"
#include "frames.h"
#include "gso_twin.h"

#define BUF 70000
#define CAP 1100

static uint8_t sbuf[BUF], ebuf[BUF], gbuf[BUF], snap[BUF];
static struct voff_pkt *out[CAP];

static struct voff_pool *mkpool(unsigned int n, unsigned int room)
{
	struct voff_pool *pool;

	CHECK_OK(voff_pool_new(&pool, n, room));
	return pool;
}

/* Expected UFO fragment @i of @s into ebuf; returns its length. */
static size_t twin_ufo_frag(const struct spec *s, const struct built *sb,
			    uint32_t i, uint32_t nseg)
{
	size_t ip = tf_off(&sb->b, sb->l3);
	size_t fs = tf_off(&sb->b, sb->l4);
	uint32_t off = i * s->mss;
	uint32_t flen = (uint32_t)(sb->len - fs) - off;
	bool more = i + 1 < nseg;
	struct tf b;
	size_t len;

	(void)ip;
	if (flen > s->mss)
		flen = s->mss;
	tf_init(&b, ebuf, BUF);
	if (!s->raw)
		tf_eth(&b);
	for (int v = 0; v < s->n_vlan; v++)
		tf_vlan(&b, v == 0 && s->n_vlan > 1 ? TF_TPID_8021AD
						    : TF_TPID_8021Q,
			(uint16_t)(100 + v));
	if (s->v6) {
		tf_ipv6(&b, &(struct tf_ip){ .tos = s->tos, .flow = 0x12345 });
		twin_ext(&b, s->n_ext);
		tf_ipv6_frag(&b, (uint16_t)(off / 8), more, s->frag_id);
	} else {
		tf_ipv4(&b, &(struct tf_ip){ .id = s->id, .mf = more,
					     .frag_off = (uint16_t)(off / 8),
					     .tos = s->tos,
					     .opt_len = s->v4_opt, .ttl = 63,
					     .proto = 17 });
	}
	tf_bytes(&b, sbuf + fs + off, flen);
	len = tf_finish(&b);
	if (s->v6)
		ebuf[tf_off(&b, b.n - 2)] = 17;	/* the fragment's next */
	return len;
}

/* Check one gathered output against the twin's segment @i. */
static void expect_seg(const struct spec *s, const struct built *sb,
		       uint32_t i, uint32_t nseg, uint8_t mode,
		       const uint8_t *got, size_t got_len)
{
	struct built eb;
	size_t len;

	if (s->ufo) {
		len = twin_ufo_frag(s, sb, i, nseg);
	} else {
		uint32_t off = i * s->mss;
		uint32_t plen = s->pay - off < s->mss ? s->pay - off : s->mss;

		CHECK(twin_build(s, ebuf, BUF, i, nseg, off, plen, &eb));
		if (mode == VOFF_GSO_CSUM_PARTIAL)
			twin_make_partial(&eb, ebuf, s->udp);
		len = eb.len;
	}
	CHECK_EQ(got_len, len);
	CHECK_MEM_EQ(got, ebuf, len);
}

/*
 * Every segment parses, and every checksum the parser can check verifies
 * (the library's parser and checksum check, a third opinion beside the
 * twin's byte-wise sums).  A partial segment is checked after completing
 * its L4 checksum the way an egress would (voff_csum_complete_at()),
 * which also proves the outer tunnel checksum right for the completed
 * inner one.
 */
static void verify_seg(const struct spec *s, const struct voff_pkt *q,
		       uint8_t mode)
{
	static uint8_t c[BUF];
	struct voff_csum_report rep;
	struct voff_parsed p;
	int err;

	memcpy(c, voff_pkt_data(q), q->len);
	if (mode == VOFF_GSO_CSUM_PARTIAL && !s->ufo)
		CHECK_OK(voff_csum_complete_at(c, q->len, q->csum_start,
					       q->csum_offset));
	err = voff_parse(c, q->len, s->raw ? VOFF_PARSE_IP : VOFF_PARSE_ETH,
			 &p);
	CHECK_MSG(err == 0, "segment does not parse: %s", voff_strerror(err));
	CHECK_OK(voff_parse_csum_check(c, q->len, &p, &rep));
	for (unsigned int k = 0; k < rep.n; k++) {
		/* A tunnel without outer checksum: UDP 0 (RFC 6935 for v6). */
		if (s->tun && !s->tun_csum && rep.proto[k] == VOFF_PROTO_UDP &&
		    k + 1 < rep.n)
			continue;
		CHECK_MSG(rep.verdict[k] != VOFF_CSUM_V_BAD,
			  "bad %s checksum (header %u of %u)",
			  voff_proto_name(rep.proto[k]), k, rep.n);
	}
}

/* ---- packed form -------------------------------------------------------- */

#define GUARD 0xA5
#define PACK_AREA (CAP * (VOFF_GSO_MAX_HDR + 64) + BUF + 4096)

static uint8_t pack_buf[PACK_AREA];
static struct voff_gso_frame frames[CAP + 1];

static bool all_guard(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != GUARD)
			return false;
	return true;
}

/*
 * voff_gso_segment_packed() of @sp against the flat outputs @flat (@nseg
 * of them, from the same call options): same bytes and header lengths;
 * frames in order, each payload at its source's offset in a cache line,
 * gaps under 64 bytes and left unwritten; the size it reports is exact
 * (one byte less, or one frame entry less, fails and writes nothing).
 * @src_pay: frame offset of the super-packet's payload (0: UFO, where the
 * alignment is checked through the frame contents instead).
 */
static void check_packed(const struct voff_pkt *sp,
			 const struct voff_gso_opts *o,
			 struct voff_pkt *const *flat, uint32_t nseg,
			 uint32_t mss, uint32_t src_pay)
{
	struct voff_gso_info ci, pi;
	uint8_t *area = pack_buf + 64 + (check_rand() >> 58);
	size_t bound, end, prev = 0;
	int n;

	CHECK_OK(voff_gso_count(sp, o, &ci));
	bound = VOFF_GSO_PACKED_SIZE(&ci);
	CHECK_LE(bound + 64 + 64 + 256, sizeof(pack_buf));
	memset(pack_buf, GUARD, (size_t)(area - pack_buf) + bound + 256);
	memset(frames, 0xEE, sizeof(frames[0]) * (nseg + 1));
	memset(&pi, 0xEE, sizeof(pi));
	n = voff_gso_segment_packed(sp, o, area, bound, frames, nseg, &pi);
	CHECK_EQ(n, (int)nseg);
	CHECK_MEM_EQ(&pi, &ci, sizeof(pi));
	for (uint32_t i = 0; i < nseg; i++) {
		const struct voff_gso_frame *f = &frames[i];

		CHECK_EQ(f->len, flat[i]->len);
		CHECK_EQ(f->hdr_len, flat[i]->hdr_len);
		CHECK_MEM_EQ(area + f->off, voff_pkt_data(flat[i]), f->len);
		CHECK_LE(prev, f->off);
		CHECK_LE(f->off - prev, 63);
		CHECK(all_guard(area + prev, f->off - prev));
		if (src_pay)
			CHECK_EQ(((uintptr_t)(area + f->off + f->hdr_len) -
				  (uintptr_t)(voff_pkt_data(sp) + src_pay +
					      i * mss)) & 63, 0);
		prev = f->off + f->len;
	}
	end = prev;
	CHECK_LE(end, bound);
	CHECK(all_guard(pack_buf, (size_t)(area - pack_buf)));
	CHECK(all_guard(area + end, bound + 256 - end));
	CHECK_EQ(frames[nseg].off, 0xEEEEEEEEu);

	/* Exactly @end bytes suffice; one less fails without a write. */
	memset(pack_buf, GUARD, (size_t)(area - pack_buf) + bound + 256);
	memset(frames, 0xEE, sizeof(frames[0]) * (nseg + 1));
	CHECK_EQ(voff_gso_segment_packed(sp, o, area, end, frames, nseg, NULL),
		 (int)nseg);
	CHECK_EQ(frames[nseg - 1].off + frames[nseg - 1].len, end);
	for (uint32_t i = 0; i < nseg; i++)
		CHECK_MEM_EQ(area + frames[i].off, voff_pkt_data(flat[i]),
			     frames[i].len);
	CHECK(all_guard(area + end, 256));
	memset(pack_buf, GUARD, (size_t)(area - pack_buf) + bound + 256);
	memset(frames, 0xEE, sizeof(frames[0]) * (nseg + 1));
	memset(&pi, 0xEE, sizeof(pi));
	CHECK_EQ(voff_gso_segment_packed(sp, o, area, end - 1, frames, nseg,
					 &pi), -ENOSPC);
	CHECK_EQ(voff_gso_segment_packed(sp, o, area, end, frames, nseg - 1,
					 &pi), -ENOSPC);
	CHECK(all_guard(pack_buf, (size_t)(area - pack_buf) + bound + 256));
	for (size_t i = 0; i < sizeof(frames[0]) * (nseg + 1); i++)
		CHECK_EQ(((uint8_t *)frames)[i], 0xEE);
	for (size_t i = 0; i < sizeof(pi); i++)
		CHECK_EQ(((uint8_t *)&pi)[i], 0xEE);
}

/* Segment @s both ways in @mode and compare everything with the twin. */
static void run_spec(const struct spec *s, uint8_t mode)
{
	struct voff_gso_opts o = { .csum_mode = mode,
				   .ipv6_frag_id = s->frag_id };
	static struct voff_sg sg[CAP];
	static struct iovec iov[CAP][2];
	static uint8_t slots[CAP * 256];
	struct voff_gso_info info;
	struct voff_pool *pool;
	struct voff_pkt sp;
	struct built sb;
	uint32_t nseg;
	int n;

	CHECK(twin_build(s, sbuf, BUF, -1, 0, 0, s->pay, &sb));
	twin_pkt(s, &sp, sbuf, BUF, &sb);
	memcpy(snap, sbuf, sb.len);
	nseg = s->ufo ? (uint32_t)(sb.len - tf_off(&sb.b, sb.l4) + s->mss -
				   1) / s->mss
		      : twin_nseg(s);
	CHECK_OK(voff_gso_count(&sp, &o, &info));
	CHECK_EQ(info.segs, nseg);

	pool = mkpool(nseg, info.max_len < 64 ? 64 : info.max_len);
	n = voff_gso_segment(&sp, &o, pool, out, CAP);
	CHECK_EQ(n, (int)nseg);
	for (uint32_t i = 0; i < nseg; i++) {
		const struct voff_pkt *q = out[i];

		CHECK_LE(q->len, info.max_len);
		expect_seg(s, &sb, i, nseg, mode, voff_pkt_data(q), q->len);
		verify_seg(s, q, mode);
		CHECK_EQ(q->gso_type, 0);
		CHECK_EQ(q->csum, s->ufo ? VOFF_CSUM_NONE : info.csum);
		if (mode == VOFF_GSO_CSUM_PARTIAL && !s->ufo) {
			CHECK_EQ(q->csum_start, tf_off(&sb.b, sb.l4));
			CHECK_EQ(q->csum_offset, s->udp ? 6 : 16);
		}
	}
	CHECK_EQ(voff_pool_in_use(pool), nseg);

	/* Packed: the flat copies' bytes, back to back in one area. */
	check_packed(&sp, &o, out, nseg, s->mss,
		     s->ufo ? 0 : (uint32_t)(sb.len - s->pay));

	/* Descriptors: gathered bytes equal the flat copies. */
	for (uint32_t i = 0; i < nseg; i++)
		voff_sg_init(&sg[i], iov[i], 2);
	n = voff_gso_segment_sg(&sp, &o, slots, 256, sg, CAP, &info);
	CHECK_EQ(n, (int)nseg);
	for (uint32_t i = 0; i < nseg; i++) {
		size_t g = voff_sg_copy(&sg[i], gbuf, BUF);

		CHECK_EQ(g, out[i]->len);
		CHECK_MEM_EQ(gbuf, voff_pkt_data(out[i]), g);
		/* The payload entry points into the super-packet. */
		if (sg[i].n == 2)
			CHECK(sg[i].iov[1].iov_base >= (void *)sbuf &&
			      (uint8_t *)sg[i].iov[1].iov_base < sbuf + BUF);
	}
	CHECK_MEM_EQ(sbuf, snap, sb.len);
	voff_pkt_free_bulk(out, nseg);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void run_both(const struct spec *s)
{
	run_spec(s, VOFF_GSO_CSUM_FULL);
	if (!s->ufo)
		run_spec(s, VOFF_GSO_CSUM_PARTIAL);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Segment @s flat with full checksums into out[]; return the count. */
static int seg_flat(const struct spec *s, struct voff_pool *pool,
		    struct built *sb)
{
	struct voff_pkt sp;

	CHECK(twin_build(s, sbuf, BUF, -1, 0, 0, s->pay, sb));
	twin_pkt(s, &sp, sbuf, BUF, sb);
	return voff_gso_segment(&sp, NULL, pool, out, CAP);
}

/* ---- published vectors -------------------------------------------------- */

/* OVS dpif-netdev "tso": 2000 B payload, segsz 500, IPv4 and IPv6. */
static void t_ovs_tso(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct spec s = { .v6 = v6, .mss = 500, .pay = 2000,
				  .flags = TF_ACK, .df = true };
		struct voff_pool *pool = mkpool(8, 2048);
		struct built sb;
		size_t ip, l4;

		CHECK_EQ(seg_flat(&s, pool, &sb), 4);
		ip = tf_off(&sb.b, sb.l3);
		l4 = tf_off(&sb.b, sb.l4);
		for (uint32_t i = 0; i < 4; i++) {
			const uint8_t *d = voff_pkt_data(out[i]);

			CHECK_EQ(out[i]->len, l4 + 20 + 500);
			CHECK_EQ(be32(d + l4 + 4), 500 * i);
			if (!v6) {
				CHECK_EQ(be16(d + ip + 4), i);
				CHECK_EQ(be16(d + ip + 2), 540);
			} else {
				CHECK_EQ(be16(d + ip + 4), 520);
			}
			expect_seg(&s, &sb, i, 4, 0, d, out[i]->len);
		}
		voff_pkt_free_bulk(out, 4);
		run_both(&s);
		voff_pool_free(pool);
	}
}

/* kernel-model.md §4.8, verified on the kernel: 3072 B, mss 1000,
 * CWR|PSH|FIN. */
static void t_model_cwr_psh_fin(void)
{
	struct spec s = { .mss = 1000, .pay = 3072, .id = 0x1234, .df = true,
			  .flags = TF_ACK | TF_CWR | TF_PSH | TF_FIN,
			  .seq = 0xFFFFF000 };
	static const uint32_t pay[4] = { 1000, 1000, 1000, 72 };
	struct voff_pool *pool = mkpool(4, 2048);
	struct built sb;

	CHECK_EQ(seg_flat(&s, pool, &sb), 4);
	for (uint32_t i = 0; i < 4; i++) {
		const uint8_t *d = voff_pkt_data(out[i]);
		size_t ip = tf_off(&sb.b, sb.l3), l4 = tf_off(&sb.b, sb.l4);
		uint8_t f = d[l4 + 13];

		CHECK_EQ(out[i]->len, l4 + 20 + pay[i]);
		CHECK_EQ(be16(d + ip + 4), 0x1234 + i);
		CHECK_EQ(be32(d + l4 + 4), 0xFFFFF000u + 1000 * i);
		CHECK_EQ(!!(f & TF_CWR), i == 0);
		CHECK_EQ(!!(f & TF_PSH), i == 3);
		CHECK_EQ(!!(f & TF_FIN), i == 3);
		CHECK(f & TF_ACK);
	}
	voff_pkt_free_bulk(out, 4);
	voff_pool_free(pool);
	run_both(&s);
	/* The virtio ECN bit changes nothing; AccECN keeps CWR everywhere. */
	s.extra = VOFF_GSO_TCP_ECN;
	run_both(&s);
	s.extra = VOFF_GSO_TCP_ACCECN;
	run_both(&s);
	/* ECE and URG (with its pointer) stay on every segment. */
	s.extra = 0;
	s.flags = TF_ACK | TF_ECE | TF_URG;
	run_both(&s);
}

/*
 * wireguard-go Test_handleVirtioRead: raw IP (TUN), 200 B payload, gso
 * 100: tcp4 [140,140], tcp6 [160,160], udp4 [128,128], udp6 [148,148].
 */
static void t_wg_virtio_read(void)
{
	static const struct {
		bool v6, udp;
		uint32_t len;
		uint16_t csum_start, csum_offset;
	} c[] = {
		{ false, false, 140, 20, 16 }, { true, false, 160, 40, 16 },
		{ false, true, 128, 20, 6 },   { true, true, 148, 40, 6 },
	};
	struct voff_pool *pool = mkpool(4, 2048);

	for (size_t k = 0; k < 4; k++) {
		struct spec s = { .raw = true, .v6 = c[k].v6, .udp = c[k].udp,
				  .mss = 100, .pay = 200, .flags = TF_ACK };
		struct voff_pkt sp;
		struct built sb;
		int n;

		CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, 200, &sb));
		twin_pkt(&s, &sp, sbuf, BUF, &sb);
		sp.csum = VOFF_CSUM_PARTIAL;
		sp.csum_start = c[k].csum_start;
		sp.csum_offset = c[k].csum_offset;
		n = voff_gso_segment(&sp, NULL, pool, out, CAP);
		CHECK_EQ(n, 2);
		CHECK_EQ(out[0]->len, c[k].len);
		CHECK_EQ(out[1]->len, c[k].len);
		for (uint32_t i = 0; i < 2; i++)
			expect_seg(&s, &sb, i, 2, 0, voff_pkt_data(out[i]),
				   out[i]->len);
		voff_pkt_free_bulk(out, 2);
		run_both(&s);
	}
	voff_pool_free(pool);
}

static void prep_udp4(struct voff_pkt *sp, struct built *sb, uint32_t pay,
		      uint32_t mss)
{
	struct spec s = { .raw = true, .udp = true, .mss = mss, .pay = pay };

	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, pay, sb));
	twin_pkt(&s, sp, sbuf, BUF, sb);
}

/*
 * Tailscale GSOSplit capacity cases, in voff's terms: the caller's
 * descriptor count, slot size and buffer size bound the output.
 */
static void t_ts_capacity(void)
{
	static struct voff_sg sg[200];
	static struct iovec iov[200][2];
	static uint8_t slots[200 * 64];
	struct voff_gso_info info;
	struct voff_pool *pool;
	struct voff_pkt sp;
	struct built sb;

	for (int i = 0; i < 200; i++)
		voff_sg_init(&sg[i], iov[i], 2);
	/* Exact fit: [128, 128, 128]. */
	prep_udp4(&sp, &sb, 300, 100);
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 28, sg, 3, &info), 3);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(sg[i].len, 128);
	/* Short tail: [128, 128, 78]. */
	prep_udp4(&sp, &sb, 250, 100);
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 28, sg, 3, &info), 3);
	CHECK_EQ(sg[2].len, 78);
	/* One byte short of a header slot: nothing written. */
	memset(slots, 0xEE, sizeof(slots));
	sg[0].n = 7;
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 27, sg, 3, NULL),
		 -ENOSPC);
	CHECK_EQ(sg[0].n, 7);
	CHECK_EQ(slots[0], 0xEE);
	/* Out of descriptors. */
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 64, sg, 2, NULL),
		 -ENOSPC);
	CHECK_EQ(slots[0], 0xEE);
	/* A view with room for one entry only. */
	voff_sg_init(&sg[1], iov[1], 1);
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 64, sg, 3, NULL),
		 -ENOSPC);
	voff_sg_init(&sg[1], iov[1], 2);
	/* Nothing fits: no descriptor at all. */
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 64, sg, 0, NULL),
		 -ENOSPC);
	/* Flat: one byte short of the buffer size; out of packets. */
	pool = mkpool(3, 127);
	CHECK_EQ(voff_gso_segment(&sp, NULL, pool, out, CAP), VOFF_E_TOO_BIG);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
	pool = mkpool(2, 2048);
	CHECK_EQ(voff_gso_segment(&sp, NULL, pool, out, CAP), -ENOBUFS);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
	/* gso 512 fits 128 descriptors, gso 511 needs 129. */
	prep_udp4(&sp, &sb, 65535 - 28, 512);
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 64, sg, 128, NULL),
		 128);
	sp.gso_size = 511;
	CHECK_EQ(voff_gso_segment_sg(&sp, NULL, slots, 64, sg, 128, NULL),
		 -ENOSPC);
	CHECK_EQ(voff_gso_count(&sp, NULL, &info), 0);
	CHECK_EQ(info.segs, 129);
}

/* ---- batches and all-or-nothing ----------------------------------------- */

static void t_batch(void)
{
	struct spec s = { .mss = 1448, .pay = 45 * 1448, .flags = TF_ACK,
			  .tcp_opt = 12, .df = true };
	struct voff_pool *pool = mkpool(200, 1600);
	struct voff_batch b;
	struct voff_pkt sp;
	struct built sb;

	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
	CHECK_EQ(sb.len, 65226);
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	voff_batch_init(&b);
	CHECK_EQ(voff_gso_segment_batch(&sp, NULL, pool, &b), 45);
	CHECK_EQ(b.n, 45);
	CHECK_EQ(b.pkts[0]->len, 1514);
	/* 19 free slots left: a second super-packet does not fit. */
	CHECK_EQ(voff_gso_segment_batch(&sp, NULL, pool, &b), -ENOSPC);
	CHECK_EQ(b.n, 45);
	CHECK_EQ(voff_pool_in_use(pool), 45);
	voff_batch_free(&b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* The bench's 64 KiB TCP4 case packed, and the argument errors. */
static void t_packed(void)
{
	struct spec s = { .mss = 1448, .pay = 45 * 1448, .flags = TF_ACK,
			  .tcp_opt = 12, .df = true };
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb;
	uint8_t *area = pack_buf + 64 - ((uintptr_t)pack_buf & 63);

	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	CHECK_OK(voff_gso_count(&sp, NULL, &info));
	CHECK_EQ(VOFF_GSO_PACKED_SIZE(&info), 45 * (1514 + 63));
	CHECK_EQ(voff_gso_segment_packed(&sp, NULL, area,
					 sizeof(pack_buf) - 128, frames, CAP,
					 NULL), 45);
	for (int i = 0; i < 45; i++) {
		CHECK_EQ(frames[i].len, 1514);
		CHECK_EQ(frames[i].hdr_len, 66);
		/* Payload i at its source's line offset, no more than 63 on. */
		if (i)
			CHECK_LE(frames[i].off - frames[i - 1].off - 1514, 63);
		CHECK_EQ(((uintptr_t)area + frames[i].off + 66 -
			  (uintptr_t)sbuf - 66 - (uintptr_t)i * 1448) & 63, 0);
	}
	CHECK_EQ(voff_gso_segment_packed(NULL, NULL, area, 100000, frames,
					 CAP, NULL), -EINVAL);
	CHECK_EQ(voff_gso_segment_packed(&sp, NULL, NULL, 100000, frames,
					 CAP, NULL), -EINVAL);
	CHECK_EQ(voff_gso_segment_packed(&sp, NULL, area, 100000, NULL, CAP,
					 NULL), -EINVAL);
	CHECK_EQ(voff_gso_segment_packed(&sp, NULL, area, 0, frames, CAP,
					 NULL), -ENOSPC);
	sp.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_IPXIP4;
	CHECK_EQ(voff_gso_segment_packed(&sp, NULL, area, 100000, frames,
					 CAP, NULL), VOFF_E_GSO_TYPE);
}

/* ---- errors ------------------------------------------------------------- */

static void t_errors(void)
{
	struct spec s = { .mss = 100, .pay = 1000, .flags = TF_ACK };
	struct voff_pool *pool = mkpool(16, 2048);
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb;

	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
#define EXPECT(err)                                                          \
	do {                                                                 \
		CHECK_EQ(voff_gso_segment(&sp, NULL, pool, out, CAP), err);  \
		CHECK_EQ(voff_pool_in_use(pool), 0);                         \
		twin_pkt(&s, &sp, sbuf, BUF, &sb);                           \
	} while (0)
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	sp.gso_type = 0;
	EXPECT(VOFF_E_GSO_TYPE);
	sp.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6;
	EXPECT(VOFF_E_GSO_TYPE);
	sp.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_IPXIP4;
	EXPECT(VOFF_E_GSO_TYPE);
	sp.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_PARTIAL;
	EXPECT(VOFF_E_GSO_TYPE);
	sp.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_FRAGLIST;
	EXPECT(VOFF_E_GSO_TYPE);
	sp.gso_type = VOFF_GSO_TCPV4 | (1u << 30);
	EXPECT(VOFF_E_GSO_TYPE);
	sp.gso_size = 0;
	EXPECT(VOFF_E_GSO_SIZE);
	sp.gso_size = 0xFFFF;
	EXPECT(VOFF_E_GSO_SIZE);
	sp.gso_type = VOFF_GSO_TCPV6;
	EXPECT(VOFF_E_GSO_PROTO);
	sp.gso_type = VOFF_GSO_UDP_L4;
	EXPECT(VOFF_E_GSO_PROTO);
	sp.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL;
	EXPECT(VOFF_E_GSO_PROTO);
	sp.l3_off = VOFF_OFF_NONE;
	EXPECT(VOFF_E_GSO_HDR);
	sp.l3_off = 13;
	EXPECT(VOFF_E_GSO_PROTO);
	sp.l4_off = 40;
	EXPECT(VOFF_E_GSO_HDR);
	sp.payload_off = 50;
	EXPECT(VOFF_E_GSO_HDR);
	sp.csum = VOFF_CSUM_PARTIAL;
	sp.csum_start = 30;
	sp.csum_offset = 16;
	EXPECT(VOFF_E_GSO_CSUM);
	sp.csum = VOFF_CSUM_PARTIAL;
	sp.csum_start = 34;
	sp.csum_offset = 6;
	EXPECT(VOFF_E_GSO_CSUM);
	sp.len = 34 + 19;	/* ends inside the TCP header */
	EXPECT(VOFF_E_GSO_HDR);
	sp.len = 30;
	EXPECT(VOFF_E_GSO_HDR);
	/* An IP fragment is no super-packet. */
	sbuf[14 + 6] |= 0x20;
	EXPECT(VOFF_E_GSO_FRAG);
	sbuf[14 + 6] &= (uint8_t)~0x20;
	/* Bad arguments. */
	CHECK_EQ(voff_gso_segment(NULL, NULL, pool, out, CAP), -EINVAL);
	CHECK_EQ(voff_gso_segment(&sp, NULL, NULL, out, CAP), -EINVAL);
	CHECK_EQ(voff_gso_count(&sp, NULL, NULL), -EINVAL);
	CHECK_EQ(voff_gso_segment(&sp,
				  &(struct voff_gso_opts){ .csum_mode = 9 },
				  pool, out, CAP), -EINVAL);
	CHECK_EQ(voff_gso_count(&sp, NULL, &info), 0);
	CHECK_EQ(info.segs, 10);
	CHECK_EQ(voff_gso_segment(&sp, NULL, pool, out, 9), -ENOSPC);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	CHECK_STR_EQ(voff_err_name(VOFF_E_GSO_TYPE), "gso_type");
	voff_pool_free(pool);
#undef EXPECT
}

/* A segment must fit the 16-bit IP length; a huge gso_size alone is fine. */
static void t_big_mss(void)
{
	struct spec s = { .mss = 65000, .pay = 1000, .flags = TF_ACK };
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb;

	run_both(&s);
	s.mss = 65500;
	s.pay = 65500;
	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	CHECK_EQ(voff_gso_count(&sp, NULL, &info), VOFF_E_GSO_SIZE);
	sp.gso_size = 65000;
	CHECK_EQ(voff_gso_count(&sp, NULL, &info), 0);
	CHECK_EQ(info.segs, 2);
}

/* UFO: gso_size not a multiple of 8, UFO in a tunnel, fragment ID. */
static void t_ufo_errors(void)
{
	struct spec s = { .ufo = true, .mss = 1000, .pay = 3000 };
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb;

	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	CHECK_OK(voff_gso_count(&sp, NULL, &info));
	CHECK_EQ(info.segs, 4);		/* 3008 bytes of IP payload */
	sp.gso_size = 1001;
	CHECK_EQ(voff_gso_count(&sp, NULL, &info), VOFF_E_GSO_SIZE);
	sp.gso_size = 1000;
	sp.gso_type |= VOFF_GSO_UDP_TUNNEL;
	CHECK_EQ(voff_gso_count(&sp, NULL, &info), VOFF_E_GSO_TYPE);
}

/* ---- the cases of the issue, one by one --------------------------------- */

static void t_tcp_variants(void)
{
	struct spec base = { .mss = 1000, .pay = 3500, .seq = 0xFFFFFF00u,
			     .flags = TF_ACK | TF_PSH, .id = 0xFFFE,
			     .df = true, .tos = 0x03 };
	struct spec s;

	s = base;		/* IPv4 options, TCP options, ID wrapping */
	s.v4_opt = 8;
	s.tcp_opt = 12;
	run_both(&s);
	s.extra = VOFF_GSO_TCP_FIXEDID;
	run_both(&s);
	s = base;		/* IPv6 with extension headers */
	s.v6 = true;
	for (s.n_ext = 0; s.n_ext <= 3; s.n_ext++)
		run_both(&s);
	s = base;		/* VLAN tags: one, two, three */
	for (s.n_vlan = 1; s.n_vlan <= 3; s.n_vlan++)
		run_both(&s);
	s = base;		/* exact multiple, one byte over, one seg */
	s.pay = 4000;
	run_both(&s);
	s.pay = 4001;
	run_both(&s);
	s.pay = 999;
	run_both(&s);
	s.pay = 0;
	run_both(&s);
	s.pay = 700;		/* MSS 1: 700 segments */
	s.mss = 1;
	run_both(&s);
}

static void t_uso_ufo(void)
{
	struct spec s = { .udp = true, .mss = 1200, .pay = 5000, .id = 0xFFFF };

	run_both(&s);
	s.v6 = true;
	s.n_ext = 2;
	run_both(&s);
	s.n_vlan = 2;
	s.v6 = false;
	s.v4_opt = 4;
	run_both(&s);
	/* UFO over IPv4 (options, VLAN) and IPv6 (extension headers). */
	s = (struct spec){ .ufo = true, .mss = 1480, .pay = 4000, .id = 77,
			   .df = true };
	run_both(&s);
	s.v4_opt = 12;
	s.n_vlan = 1;
	run_both(&s);
	s = (struct spec){ .ufo = true, .v6 = true, .mss = 1232, .pay = 4000,
			   .frag_id = 0xA1B2C3D4 };
	for (s.n_ext = 0; s.n_ext <= 3; s.n_ext++)
		run_both(&s);
	s.pay = 100;		/* fits: one "fragment", offset 0, no MF */
	run_both(&s);
}

static void t_tunnels(void)
{
	for (uint8_t tun = TUN_VXLAN; tun <= TUN_GRE; tun++)
		for (int ov6 = 0; ov6 < 2; ov6++)
			for (int iv6 = 0; iv6 < 2; iv6++)
				for (int cs = 0; cs < 2; cs++)
					for (int udp = 0; udp < 2; udp++) {
						struct spec s = {
							.tun = tun,
							.outer_v6 = ov6,
							.v6 = iv6,
							.tun_csum = cs,
							.udp = udp,
							.mss = 1300,
							.pay = 4000,
							.flags = TF_ACK |
								 TF_CWR |
								 TF_FIN,
							.id = 5,
							.outer_id = 0xFFFF,
							.df = true,
							.n_vlan = 1,
							.tcp_opt = 12,
						};

						run_both(&s);
						s.extra =
						    VOFF_GSO_TCP_FIXEDID_INNER;
						run_both(&s);
						s.extra = VOFF_GSO_TCP_FIXEDID;
						run_both(&s);
					}
}

/* Add @c to the big-endian word at @p, one's complement. */
static void word_add(uint8_t *p, uint16_t c)
{
	uint32_t w = (uint32_t)be16(p) + c;

	w = (w & 0xFFFF) + (w >> 16);
	p[0] = (uint8_t)(w >> 8);
	p[1] = (uint8_t)w;
}

/*
 * A checksum that computes to zero: 0x0000 in a TCP segment of a real
 * split, 0xFFFF for USO and for a TCP super-packet that fits one segment
 * (the kernel sends that as a plain frame).  The payload word at the
 * segment's start is bent so the segment's sum becomes 0xFFFF.
 */
static void zero_case(bool udp, uint32_t pay, uint32_t seg, uint16_t want)
{
	struct voff_pool *pool = mkpool(8, 2048);
	struct spec s = { .udp = udp, .mss = 1000, .pay = pay,
			  .flags = TF_ACK };
	struct voff_pkt sp;
	struct built sb;
	size_t l4, at;
	uint32_t sum;
	int n;

	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	l4 = tf_off(&sb.b, sb.l4);
	at = l4 + (udp ? 6 : 16);
	n = voff_gso_segment(&sp, NULL, pool, out, CAP);
	CHECK_GT(n, (int)seg);
	word_add(sbuf + sb.len - s.pay + seg * 1000,
		 be16(voff_pkt_data(out[seg]) + at));
	voff_pkt_free_bulk(out, (unsigned int)n);
	CHECK_EQ(voff_gso_segment(&sp, NULL, pool, out, CAP), n);
	CHECK_EQ(be16(voff_pkt_data(out[seg]) + at), want);
	sum = twin_pseudo(voff_pkt_data(out[seg]) + 14, udp ? 17 : 6,
			  out[seg]->len - (uint32_t)l4);
	sum = twin_sum(voff_pkt_data(out[seg]) + l4, out[seg]->len - l4, sum);
	CHECK_EQ(twin_fold(sum), 0xFFFF);
	voff_pkt_free_bulk(out, (unsigned int)n);
	voff_pool_free(pool);
}

static void t_zero_csum(void)
{
	zero_case(false, 3000, 1, 0x0000);
	zero_case(false, 800, 0, 0xFFFF);
	zero_case(true, 3000, 1, 0xFFFF);
}

/* ---- randomized: the twin on random super-packets ----------------------- */

static void random_spec(struct spec *s)
{
	static const uint8_t flag_sets[] = {
		TF_ACK, TF_ACK | TF_PSH, TF_ACK | TF_FIN | TF_PSH,
		TF_ACK | TF_CWR | TF_ECE, TF_ACK | TF_URG, 0xFF & ~TF_SYN,
	};

	memset(s, 0, sizeof(*s));
	s->raw = check_rnd(8) == 0;
	s->n_vlan = s->raw ? 0 : (uint8_t)check_rnd(3);
	s->tun = s->raw ? TUN_NONE : (uint8_t)check_rnd(5) % 4;
	s->outer_v6 = check_rnd(2);
	s->tun_csum = check_rnd(2);
	s->v6 = check_rnd(2);
	s->v4_opt = (uint8_t)(check_rnd(4) == 0 ? 4 * check_rnd(11) : 0);
	s->n_ext = (uint8_t)(check_rnd(3) == 0 ? check_rnd(4) : 0);
	s->tcp_opt = (uint8_t)(4 * check_rnd(11));
	s->udp = check_rnd(4) == 0;
	s->ufo = !s->tun && !s->udp && check_rnd(6) == 0;
	s->flags = flag_sets[check_rnd(sizeof(flag_sets))];
	s->seq = (uint32_t)check_rand();
	s->id = (uint16_t)check_rand();
	s->outer_id = (uint16_t)check_rand();
	s->df = check_rnd(2);
	s->tos = (uint8_t)check_rnd(256);
	s->extra = (check_rnd(4) == 0 ? VOFF_GSO_TCP_FIXEDID : 0) |
		   (check_rnd(4) == 0 ? VOFF_GSO_TCP_FIXEDID_INNER : 0) |
		   (check_rnd(4) == 0 ? VOFF_GSO_TCP_ECN : 0) |
		   (check_rnd(8) == 0 ? VOFF_GSO_TCP_ACCECN : 0);
	s->mss = 1 + check_rnd(check_rnd(2) ? 1500 : 9000);
	if (s->ufo)
		s->mss = 8 * (2 + check_rnd(1000));
	s->pay = check_rnd(check_rnd(4) ? 20000 : 64000);
	if (s->pay / s->mss > 1000)
		s->mss = s->pay / 1000 + 1;
	if (s->ufo && s->mss % 8)
		s->mss += 8 - s->mss % 8;
	s->seed = (uint8_t)check_rnd(256);
	s->frag_id = (uint32_t)check_rand();
}

static void t_random(void)
{
	for (int k = 0; k < 400; k++) {
		struct spec s;

		random_spec(&s);
		run_both(&s);
	}
}

/* ---- resegmentation ----------------------------------------------------- */

/*
 * Cutting into pieces that fit the limits, then segmenting every piece,
 * gives exactly the segments of the whole super-packet.
 */
static void reseg_one(const struct spec *s, uint32_t max_size,
		      uint32_t max_segs)
{
	static struct voff_pkt *pieces[CAP];
	struct voff_pool *pool = mkpool(2 * CAP, 65600);
	uint32_t nseg = twin_nseg(s), seen = 0;
	struct voff_pkt sp;
	struct built sb;
	int n;

	CHECK(twin_build(s, sbuf, BUF, -1, 0, 0, s->pay, &sb));
	twin_pkt(s, &sp, sbuf, BUF, &sb);
	n = voff_gso_resegment(&sp, max_size, max_segs, pool, pieces, CAP);
	if (n == 0) {
		CHECK_LE(nseg, max_segs);
		CHECK_LT(sb.len, max_size);
		voff_pool_free(pool);
		return;
	}
	if (n == VOFF_E_GSO_LIMIT) {
		CHECK_GT(sb.len - s->pay + s->mss + 1, max_size);
		voff_pool_free(pool);
		return;
	}
	CHECK_GT(n, 0);
	for (int j = 0; j < n; j++) {
		struct voff_pkt *q = pieces[j];
		int m;

		CHECK_LT(q->len, max_size);
		CHECK_LE(q->gso_segs, max_segs);
		CHECK_EQ(q->gso_type, sp.gso_type);
		CHECK_EQ(q->gso_size, s->mss);
		CHECK_EQ(q->csum, VOFF_CSUM_PARTIAL);
		CHECK_EQ(q->csum_start, tf_off(&sb.b, sb.l4));
		m = voff_gso_segment(q, NULL, pool, out, CAP);
		CHECK_EQ(m, q->gso_segs);
		for (int i = 0; i < m; i++) {
			uint8_t *g = voff_pkt_data(out[i]);
			size_t at = q->csum_start + 16u;

			/*
			 * A one-segment TCP piece goes out as a plain frame:
			 * its zero checksum reads 0xFFFF where the segment
			 * cut from the whole reads 0x0000 (gso.h).  0xFFFF
			 * never comes out of a fold otherwise.
			 */
			if (m == 1 && !s->udp && g[at] == 0xFF &&
			    g[at + 1] == 0xFF)
				g[at] = g[at + 1] = 0;
			expect_seg(s, &sb, seen + (uint32_t)i, nseg, 0, g,
				   out[i]->len);
		}
		voff_pkt_free_bulk(out, (unsigned int)m);
		seen += (uint32_t)m;
	}
	CHECK_EQ(seen, nseg);
	voff_pkt_free_bulk(pieces, (unsigned int)n);
	voff_pool_free(pool);
}

static void t_resegment(void)
{
	struct spec s = { .mss = 1448, .pay = 45 * 1448, .tcp_opt = 12,
			  .flags = TF_ACK | TF_CWR | TF_PSH, .id = 0xFFF0,
			  .df = true };
	struct voff_pool *pool = mkpool(4, 2048);
	struct voff_pkt sp;
	struct built sb;

	reseg_one(&s, 16384, 65535);
	reseg_one(&s, 65536, 8);
	reseg_one(&s, 65536, 65535);	/* fits: 0 */
	reseg_one(&s, 1515, 65535);	/* one segment per piece */
	s.v6 = true;
	s.udp = true;
	reseg_one(&s, 8000, 3);
	s.udp = false;
	s.tun = TUN_VXLAN;
	s.tun_csum = true;
	reseg_one(&s, 20000, 65535);
	for (int k = 0; k < 60; k++) {
		random_spec(&s);
		s.ufo = false;
		reseg_one(&s, 200 + check_rnd(66000), 1 + check_rnd(50));
	}
	/* Not even one segment fits. */
	s = (struct spec){ .mss = 1448, .pay = 5000 };
	CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
	twin_pkt(&s, &sp, sbuf, BUF, &sb);
	CHECK_EQ(voff_gso_resegment(&sp, 1502, 10, pool, out, CAP),
		 VOFF_E_GSO_LIMIT);
	CHECK_EQ(voff_gso_resegment(&sp, 1503, 0, pool, out, CAP), -EINVAL);
	CHECK_EQ(voff_gso_resegment(&sp, 1503, 10, pool, out, 2), -ENOSPC);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/*
 * Every metadata field of a flat output, on a pool whose buffers carry
 * stale metadata from earlier users (GSO takes them unreset and writes the
 * whole block): the super-packet's offsets, port, hash and rx_ns, the
 * mode's checksum state, no GSO (or the piece's for resegmentation), and a
 * placement inside the pool's promises, its payload as aligned in a cache
 * line as the super-packet's when the data room allows.
 */
static void check_meta(const struct voff_pkt *sp, const struct voff_pkt *q,
		       uint8_t mode, uint32_t hdr, bool piece,
		       unsigned int room, uint32_t src_pay)
{
	CHECK_EQ(q->l2_off, sp->l2_off);
	CHECK_EQ(q->l3_off, sp->l3_off);
	CHECK_EQ(q->l4_off, sp->l4_off);
	CHECK_EQ(q->inner_l2_off, sp->inner_l2_off);
	CHECK_EQ(q->inner_l3_off, sp->inner_l3_off);
	CHECK_EQ(q->inner_l4_off, sp->inner_l4_off);
	CHECK_EQ(q->payload_off, sp->payload_off);
	CHECK_EQ(q->port, 77);
	CHECK_EQ(q->hash, 0xABCD);
	CHECK_EQ(q->rx_ns, 123456789);
	CHECK_EQ(q->hdr_len, hdr);
	CHECK_EQ(q->source, VOFF_PKT_SRC_POOL);
	CHECK(q->next == NULL);
	CHECK(q->pool != NULL);
	if (mode == VOFF_GSO_CSUM_PARTIAL) {
		CHECK_EQ(q->csum, VOFF_CSUM_PARTIAL);
		CHECK_EQ(q->csum_start, sp->l4_off);
	} else {
		CHECK_EQ(q->csum, VOFF_CSUM_NONE);
		CHECK_EQ(q->csum_start, 0);
		CHECK_EQ(q->csum_offset, 0);
	}
	if (piece) {
		CHECK_EQ(q->gso_type, sp->gso_type);
		CHECK_EQ(q->gso_size, sp->gso_size);
		CHECK_EQ(q->gso_segs, (q->len - hdr + sp->gso_size - 1) /
					      sp->gso_size);
	} else {
		CHECK_EQ(q->gso_type, 0);
		CHECK_EQ(q->gso_size, 0);
		CHECK_EQ(q->gso_segs, 0);
	}
	CHECK_GE(q->data_off, VOFF_PKT_HEADROOM);
	CHECK_LE(q->data_off + q->len, VOFF_PKT_HEADROOM + room);
	if (q->len + 63 <= room)
		CHECK_EQ(((uintptr_t)voff_pkt_data(q) + hdr) & 63,
			 ((uintptr_t)voff_pkt_data(sp) + src_pay) & 63);
}

static void dirty_pool(struct voff_pool *pool, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		CHECK_OK(voff_pkt_alloc(pool, &out[i]));
		memset(&out[i]->l2_off, 0x5A,
		       (size_t)((uint8_t *)&out[i]->pool -
				(uint8_t *)&out[i]->l2_off));
		out[i]->source = VOFF_PKT_SRC_POOL;
		CHECK(voff_pkt_put(out[i], 100) != NULL);
	}
	voff_pool_put_bulk(pool, out, n);
}

static void t_meta(void)
{
	static const unsigned int rooms[] = { 1600, 1514 + 30, 4096 };

	for (int k = 0; k < 24; k++) {
		struct spec s = { .mss = 1448, .pay = 7 * 1448 + 100,
				  .tcp_opt = 12, .flags = TF_ACK,
				  .v6 = k & 1, .udp = (k >> 1) & 1,
				  .n_vlan = (uint8_t)((k >> 2) & 1) };
		uint8_t mode = (k >> 3) & 1 ? VOFF_GSO_CSUM_PARTIAL
					    : VOFF_GSO_CSUM_FULL;
		struct voff_gso_opts o = { .csum_mode = mode };
		unsigned int room = rooms[k % 3];
		struct voff_pool *pool = mkpool(16, room);
		struct voff_pkt sp;
		struct built sb;
		uint32_t hdr;
		int n;

		CHECK(twin_build(&s, sbuf, BUF, -1, 0, 0, s.pay, &sb));
		twin_pkt(&s, &sp, sbuf, BUF, &sb);
		hdr = (uint32_t)sb.len - s.pay;
		sp.l4_off = (uint16_t)tf_off(&sb.b, sb.l4);
		sp.payload_off = (uint16_t)hdr;
		sp.port = 77;
		sp.hash = 0xABCD;
		sp.rx_ns = 123456789;
		dirty_pool(pool, 16);
		n = voff_gso_segment(&sp, &o, pool, out, CAP);
		CHECK_EQ(n, 8);
		for (int i = 0; i < n; i++)
			check_meta(&sp, out[i], mode, hdr, false, room,
				   hdr + (uint32_t)i * s.mss);
		voff_pool_put_bulk(pool, out, (unsigned int)n);
		CHECK_EQ(voff_pool_in_use(pool), 0);
		voff_pool_free(pool);
		/* Resegmentation: pieces of 3 segments. */
		room = k & 1 ? 3 * 1448 + hdr : 8192;
		pool = mkpool(4, room);
		dirty_pool(pool, 4);
		n = voff_gso_resegment(&sp, 3 * 1448 + hdr + 1, 100, pool,
				       out, CAP);
		CHECK_EQ(n, 3);
		for (int i = 0; i < n; i++)
			check_meta(&sp, out[i], VOFF_GSO_CSUM_PARTIAL, hdr,
				   true, room, hdr + (uint32_t)i * 3 * 1448);
		voff_pool_put_bulk(pool, out, (unsigned int)n);
		CHECK_EQ(voff_pool_in_use(pool), 0);
		voff_pool_free(pool);
	}
}

CHECK_MAIN(CHECK_TEST(t_ovs_tso), CHECK_TEST(t_model_cwr_psh_fin),
	   CHECK_TEST(t_wg_virtio_read), CHECK_TEST(t_ts_capacity),
	   CHECK_TEST(t_batch), CHECK_TEST(t_packed), CHECK_TEST(t_errors),
	   CHECK_TEST(t_big_mss),
	   CHECK_TEST(t_ufo_errors), CHECK_TEST(t_tcp_variants),
	   CHECK_TEST(t_uso_ufo), CHECK_TEST(t_tunnels),
	   CHECK_TEST(t_zero_csum),
	   CHECK_TEST(t_random), CHECK_TEST(t_resegment), CHECK_TEST(t_meta))
