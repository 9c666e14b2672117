/* SPDX-License-Identifier: MIT */
/*
 * test_vnet.c - virtio_net_hdr codec and validator
 *
 * Byte-exact round trips of every layout and byte order, one test per
 * validator rejection, one named test per row of the historical-bug table
 * of docs/kernel-model.md §5.3 (test_cve_* and test_fix_*), the wireguard-go
 * Test_handleVirtioRead vectors re-derived, encode's refusals, a
 * randomized encode/decode round trip, and encode over the caller's parse
 * against encode alone.  The kernel's own verdicts on the
 * same kind of input are checked in test_vnet_oracle.c.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <voff/err.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/vnet.h>

#include "check.h"
#include "frames.h"

#define BUF_SIZE 70000

static uint8_t fbuf[BUF_SIZE];

static const struct voff_vnet_cfg tap = { .hdr_size = 10 };
static const struct voff_vnet_cfg tun = { .hdr_size = 10,
					  .mode = VOFF_VNET_L3 };
static const struct voff_vnet_cfg tnl = { .hdr_size = 24, .tunnel = true };

/* A header in the order of the wire fields. */
static struct voff_vnet_hdr H(uint8_t flags, uint8_t type, uint16_t hdr_len,
			      uint16_t gso, uint16_t cs, uint16_t co)
{
	return (struct voff_vnet_hdr){ .flags = flags, .gso_type = type,
				       .hdr_len = hdr_len, .gso_size = gso,
				       .csum_start = cs, .csum_offset = co };
}

/* Pointer to a header built by H(), for calls that take one. */
#define HP(...) (&(struct voff_vnet_hdr[1]){ H(__VA_ARGS__) }[0])

enum { V4 = 4, V6 = 6, TCP = 6, UDP = 17 };

/*
 * Build [Ethernet] + IPv4/IPv6 + TCP/UDP + @payload bytes into fbuf.
 * Offsets with Ethernet: L4 at 34 (v4) / 54 (v6); payload at +20 / +8.
 */
static size_t mk(bool l2, int ipv, int l4, size_t payload)
{
	struct tf b;

	tf_init(&b, fbuf, sizeof(fbuf));
	if (l2)
		tf_eth(&b);
	if (ipv == V4)
		tf_ipv4(&b, &(struct tf_ip){ .id = 0x1234 });
	else
		tf_ipv6(&b, &(struct tf_ip){ 0 });
	if (l4 == TCP)
		tf_tcp(&b, &(struct tf_l4){ .seq = 1, .ack = 1,
					    .flags = TF_ACK });
	else
		tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, payload, 0);
	return tf_finish(&b);
}

/* Outer Eth/IPv4|6/UDP(4789)/VXLAN, inner Eth/IPv4|6/TCP|UDP + payload. */
static size_t mk_vxlan(int outer, int inner, int l4, size_t payload)
{
	struct tf b;

	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	if (outer == V4)
		tf_ipv4(&b, &(struct tf_ip){ 0 });
	else
		tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ .sport = 40000, .dport = 4789 });
	tf_vxlan(&b, 42);
	tf_eth(&b);
	if (inner == V4)
		tf_ipv4(&b, &(struct tf_ip){ 0 });
	else
		tf_ipv6(&b, &(struct tf_ip){ 0 });
	if (l4 == TCP)
		tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	else
		tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, payload, 0);
	return tf_finish(&b);
}

/* Decode @h (written with @c) against fbuf[0..len) into @pkt. */
static int dec(const struct voff_vnet_cfg *c, const struct voff_vnet_hdr *h,
	       size_t len, struct voff_pkt *pkt)
{
	uint8_t raw[24];
	struct voff_pkt before;
	int err;

	CHECK(len > 0);
	CHECK_EQ(voff_vnet_hdr_write(c, h, raw, sizeof(raw)), c->hdr_size);
	CHECK_OK(voff_pkt_init_ext(pkt, fbuf, sizeof(fbuf), 0, (uint32_t)len));
	pkt->port = 7;
	pkt->hash = 0xABCD;
	before = *pkt;
	err = voff_vnet_decode(c, raw, c->hdr_size, pkt);
	if (err)	/* a rejected header leaves the packet as it was */
		CHECK_MEM_EQ(&before, pkt, sizeof(before));
	return err;
}

static int verdict(const struct voff_vnet_cfg *c, struct voff_vnet_hdr h,
		   size_t len)
{
	struct voff_pkt pkt;

	return dec(c, &h, len, &pkt);
}

#define CHECK_ERR(got, want)                                                 \
	do {                                                                 \
		int g_ = (got), w_ = (want);                                 \
		CHECK_MSG(g_ == w_, "got %d (%s), want %d (%s)", g_,         \
			  voff_err_name(g_), w_, voff_err_name(w_));         \
	} while (0)

/* ---- layouts and byte codec --------------------------------------------- */

static void t_wire_layout(void)
{
	CHECK_EQ(sizeof(struct voff_vnet_wire), 10);
	CHECK_EQ(sizeof(struct voff_vnet_wire_mrg), 12);
	CHECK_EQ(sizeof(struct voff_vnet_wire_hash), 20);
	CHECK_EQ(sizeof(struct voff_vnet_wire_tnl), 24);
	CHECK_EQ(offsetof(struct voff_vnet_wire, hdr_len), 2);
	CHECK_EQ(offsetof(struct voff_vnet_wire, csum_offset), 8);
	CHECK_EQ(offsetof(struct voff_vnet_wire_mrg, num_buffers), 10);
	CHECK_EQ(offsetof(struct voff_vnet_wire_hash, hash_value), 12);
	CHECK_EQ(offsetof(struct voff_vnet_wire_hash, hash_report), 16);
	CHECK_EQ(offsetof(struct voff_vnet_wire_tnl, outer_th_offset), 20);
	CHECK_EQ(offsetof(struct voff_vnet_wire_tnl, inner_nh_offset), 22);
}

static const struct voff_vnet_hdr full = {
	.flags = 0x09, .gso_type = 0x21, .hdr_len = 0x0036,
	.gso_size = 0x05a8, .csum_start = 0x0054, .csum_offset = 0x0010,
	.num_buffers = 0x0102, .hash_value = 0x11223344, .hash_report = 2,
	.outer_th_offset = 0x0022, .inner_nh_offset = 0x0040,
};

static const uint8_t full_le[24] = {
	0x09, 0x21, 0x36, 0x00, 0xa8, 0x05, 0x54, 0x00, 0x10, 0x00,
	0x02, 0x01,
	0x44, 0x33, 0x22, 0x11, 0x02, 0x00, 0x00, 0x00,
	0x22, 0x00, 0x40, 0x00,
};

static const uint8_t full_be[24] = {
	0x09, 0x21, 0x00, 0x36, 0x05, 0xa8, 0x00, 0x54, 0x00, 0x10,
	0x01, 0x02,
	0x11, 0x22, 0x33, 0x44, 0x00, 0x02, 0x00, 0x00,
	0x00, 0x22, 0x00, 0x40,
};

static void hdr_eq(const struct voff_vnet_hdr *a,
		   const struct voff_vnet_hdr *b)
{
	CHECK_EQ(a->flags, b->flags);
	CHECK_EQ(a->gso_type, b->gso_type);
	CHECK_EQ(a->hdr_len, b->hdr_len);
	CHECK_EQ(a->gso_size, b->gso_size);
	CHECK_EQ(a->csum_start, b->csum_start);
	CHECK_EQ(a->csum_offset, b->csum_offset);
	CHECK_EQ(a->num_buffers, b->num_buffers);
	CHECK_EQ(a->hash_value, b->hash_value);
	CHECK_EQ(a->hash_report, b->hash_report);
	CHECK_EQ(a->outer_th_offset, b->outer_th_offset);
	CHECK_EQ(a->inner_nh_offset, b->inner_nh_offset);
}

/* Write and read back every layout in one byte order against @want. */
static void round_trip(uint8_t order, const uint8_t *want)
{
	static const uint8_t sizes[] = { 10, 12, 20, 24 };

	for (size_t i = 0; i < sizeof(sizes); i++) {
		struct voff_vnet_cfg c = { .hdr_size = sizes[i],
					   .order = order };
		struct voff_vnet_hdr back, exp = full;
		uint8_t out[32];

		memset(out, 0xEE, sizeof(out));
		CHECK_EQ(voff_vnet_hdr_write(&c, &full, out, sizeof(out)),
			 sizes[i]);
		CHECK_MEM_EQ(out, want, sizes[i]);
		CHECK_EQ(out[sizes[i]], 0xEE);	/* nothing past the layout */
		memset(&back, 0x55, sizeof(back));
		CHECK_EQ(voff_vnet_hdr_read(&c, out, sizes[i], &back),
			 sizes[i]);
		/* Fields the layout lacks read as zero. */
		if (sizes[i] < 12)
			exp.num_buffers = 0;
		if (sizes[i] < 20) {
			exp.hash_value = 0;
			exp.hash_report = 0;
		}
		if (sizes[i] < 24) {
			exp.outer_th_offset = 0;
			exp.inner_nh_offset = 0;
		}
		hdr_eq(&back, &exp);
	}
}

static void t_round_trip_le(void)
{
	round_trip(VOFF_VNET_LE, full_le);
}

static void t_round_trip_be(void)
{
	round_trip(VOFF_VNET_BE, full_be);
}

static void t_round_trip_native(void)
{
	const uint16_t one = 1;

	round_trip(VOFF_VNET_NATIVE,
		   *(const uint8_t *)&one == 1 ? full_le : full_be);
}

static void t_codec_sizes(void)
{
	struct voff_vnet_cfg c = { .hdr_size = 12 };
	struct voff_vnet_hdr h;
	uint8_t out[24];

	memset(&h, 0x77, sizeof(h));
	CHECK_ERR(voff_vnet_hdr_read(&c, full_le, 11, &h), VOFF_E_VNET_TRUNC);
	CHECK_EQ(h.flags, 0x77);	/* untouched */
	CHECK_ERR(voff_vnet_hdr_write(&c, &full, out, 11), -ENOSPC);
	/* Padding of the hash layouts is always written as zero. */
	c.hdr_size = 20;
	memset(out, 0xFF, sizeof(out));
	CHECK_EQ(voff_vnet_hdr_write(&c, &full, out, sizeof(out)), 20);
	CHECK_EQ(out[18], 0);
	CHECK_EQ(out[19], 0);
}

static void t_cfg_check(void)
{
	struct voff_vnet_cfg c = { .hdr_size = 10 };
	uint8_t out[24];

	CHECK_OK(voff_vnet_cfg_check(&c));
	c.hdr_size = 11;
	CHECK_ERR(voff_vnet_cfg_check(&c), -EINVAL);
	CHECK_ERR(voff_vnet_hdr_write(&c, &full, out, sizeof(out)), -EINVAL);
	c.hdr_size = 0;
	CHECK_ERR(voff_vnet_cfg_check(&c), -EINVAL);
	c.hdr_size = 12;
	c.order = 3;
	CHECK_ERR(voff_vnet_cfg_check(&c), -EINVAL);
	c.order = 0;
	c.mode = 2;
	CHECK_ERR(voff_vnet_cfg_check(&c), -EINVAL);
	c.mode = 0;
	c.dir = 2;
	CHECK_ERR(voff_vnet_cfg_check(&c), -EINVAL);
	c.dir = 0;
	c.tunnel = true;	/* tunnel fields need the 24-byte layout */
	CHECK_ERR(voff_vnet_cfg_check(&c), -EINVAL);
	c.hdr_size = 24;
	CHECK_OK(voff_vnet_cfg_check(&c));
}

/* ---- decode: accepted headers ------------------------------------------- */

static void t_plain_no_offload(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 100);
	struct voff_vnet_hdr h = H(0, 0, 0, 0, 0, 0);

	CHECK_OK(dec(&tap, &h, len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_NONE);
	CHECK_EQ(pkt.gso_type, 0);
	CHECK_EQ(pkt.l2_off, 0);
	CHECK_EQ(pkt.l3_off, 14);
	CHECK_EQ(pkt.l4_off, 34);
	CHECK_EQ(pkt.payload_off, 54);
	CHECK_EQ(pkt.hdr_len, 0);
	CHECK_EQ(pkt.port, 7);		/* not the codec's business */
	CHECK_EQ(pkt.hash, 0xABCD);	/* transmit channel: hash ignored */
}

static void t_plain_garbage_frame(void)
{
	struct voff_pkt pkt;
	struct voff_vnet_hdr h = H(0, 0, 0, 0, 0, 0);

	/* The kernel passes any bytes on when no offload is claimed. */
	memset(fbuf, 0xA5, 60);
	CHECK_OK(dec(&tap, &h, 60, &pkt));
	CHECK_EQ(pkt.l3_off, VOFF_OFF_NONE);
	CHECK_EQ(pkt.csum, VOFF_CSUM_NONE);
}

/*
 * plain_unparsed: a frame that claims no offload is not parsed, its
 * offsets stay unset; one that claims an offload is parsed and checked as
 * ever, and gets its offsets.
 */
static void t_plain_unparsed(void)
{
	struct voff_vnet_cfg c = tap;
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 100);

	c.plain_unparsed = true;
	CHECK_OK(dec(&c, HP(0, 0, 0, 0, 0, 0), len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_NONE);
	CHECK_EQ(pkt.l2_off, VOFF_OFF_NONE);
	CHECK_EQ(pkt.l3_off, VOFF_OFF_NONE);
	CHECK_EQ(pkt.payload_off, VOFF_OFF_NONE);
	CHECK_OK(dec(&c, &(struct voff_vnet_hdr){ .flags = 1,
		     .csum_start = 34, .csum_offset = 16 }, len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(pkt.l3_off, 14);
	CHECK_EQ(pkt.l4_off, 34);
	/* Still checked against the frame: a bad csum_offset is refused. */
	CHECK_ERR(verdict(&c, H(1, 0, 0, 0, 34, 6), len),
		  VOFF_E_VNET_CSUM_OFFSET);
}

static void t_csum_partial_tcp4(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 100);

	CHECK_OK(dec(&tap, &(struct voff_vnet_hdr){ .flags = 1,
		     .csum_start = 34, .csum_offset = 16 }, len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(pkt.csum_start, 34);
	CHECK_EQ(pkt.csum_offset, 16);
	CHECK_EQ(pkt.gso_type, 0);
}

static void t_csum_partial_udp6(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V6, UDP, 33);

	CHECK_OK(dec(&tap, &(struct voff_vnet_hdr){ .flags = 1,
		     .csum_start = 54, .csum_offset = 6 }, len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(pkt.csum_start, 54);
}

static void t_tso4_accepted(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 3000);

	/* hdr_len is a hint: 0 and a wrong value give the same verdict. */
	CHECK_OK(dec(&tap, HP(1, 1, 0, 1000, 34, 16),
		     len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_TCPV4);
	CHECK_EQ(pkt.gso_size, 1000);
	CHECK_EQ(pkt.gso_segs, 3);
	CHECK_EQ(pkt.hdr_len, 54);
	CHECK_OK(dec(&tap, HP(1, 0x81, 60, 999, 34,
		     16), len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_TCPV4 | VOFF_GSO_TCP_ECN);
	CHECK_EQ(pkt.gso_segs, 4);
	CHECK_EQ(pkt.hdr_len, 54);
}

static void t_tso6_accepted(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V6, TCP, 2897);

	CHECK_OK(dec(&tap, HP(1, 4, 74, 1448, 54,
		     16), len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_TCPV6);
	CHECK_EQ(pkt.gso_segs, 3);
	CHECK_EQ(pkt.hdr_len, 74);
}

static void t_uso_accepted(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, UDP, 128 * 100);

	/* Exactly 128 segments is the limit, and allowed. */
	CHECK_OK(dec(&tap, HP(1, 5, 42, 100, 34, 6),
		     len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_UDP_L4);
	CHECK_EQ(pkt.gso_segs, 128);
	CHECK_EQ(pkt.hdr_len, 42);
}

static void t_gso_fits_one_segment(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 1000);

	/* Payload <= gso_size: a plain frame with a partial checksum. */
	CHECK_OK(dec(&tap, HP(1, 1, 54, 1000, 34,
		     16), len, &pkt));
	CHECK_EQ(pkt.gso_type, 0);
	CHECK_EQ(pkt.gso_size, 0);
	CHECK_EQ(pkt.gso_segs, 0);
	CHECK_EQ(pkt.hdr_len, 0);
	CHECK_EQ(pkt.csum, VOFF_CSUM_PARTIAL);
}

static void t_tcp_options_hdr_len(void)
{
	struct voff_pkt pkt;
	struct tf b;
	size_t len;

	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .opt_len = 8 });
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK, .opt_len = 12 });
	tf_payload(&b, 2000, 1);
	len = tf_finish(&b);
	CHECK_OK(dec(&tap, HP(1, 1, 0, 1000, 42,
		     16), len, &pkt));
	CHECK_EQ(pkt.hdr_len, 14 + 28 + 32);
	CHECK_EQ(pkt.gso_segs, 2);
}

static void t_data_valid_rx(void)
{
	struct voff_vnet_cfg rx = { .hdr_size = 12, .dir = VOFF_VNET_RX };
	struct voff_pkt pkt;
	size_t len = mk(true, V4, UDP, 10);

	CHECK_OK(dec(&rx, &(struct voff_vnet_hdr){ .flags = 2 }, len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_VALID);
	/* On a transmit channel DATA_VALID means nothing: ignored. */
	CHECK_OK(dec(&tap, &(struct voff_vnet_hdr){ .flags = 2 }, len, &pkt));
	CHECK_EQ(pkt.csum, VOFF_CSUM_NONE);
}

static void t_hash_rx(void)
{
	struct voff_vnet_cfg rx = { .hdr_size = 20, .dir = VOFF_VNET_RX };
	struct voff_pkt pkt;
	size_t len = mk(true, V4, UDP, 10);

	CHECK_OK(dec(&rx, &(struct voff_vnet_hdr){ .hash_value = 0xdeadbeef,
		     .hash_report = VOFF_VNET_HASH_UDPV4 }, len, &pkt));
	CHECK_EQ(pkt.hash, 0xdeadbeef);
	CHECK_OK(dec(&rx, &(struct voff_vnet_hdr){ .hash_value = 0xdeadbeef },
		     len, &pkt));
	CHECK_EQ(pkt.hash, 0);	/* no report: no hash */
	CHECK_ERR(verdict(&rx, (struct voff_vnet_hdr){ .hash_report = 10 },
			  len), VOFF_E_VNET_HASH_REPORT);
}

static void t_pkt_pull(void)
{
	struct voff_pool *pool;
	struct voff_pkt *pkt;
	uint8_t raw[10];
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_EQ(voff_vnet_hdr_write(&tap, HP(1, 1, 54, 1000, 34, 16), raw,
				     sizeof(raw)), 10);
	CHECK_OK(voff_pool_new(&pool, 2, 4096));
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	memcpy(voff_pkt_put(pkt, 10), raw, 10);
	memcpy(voff_pkt_put(pkt, (uint32_t)len), fbuf, len);
	CHECK_OK(voff_vnet_pkt_pull(&tap, pkt));
	CHECK_EQ(pkt->len, len);
	CHECK_EQ(pkt->l4_off, 34);
	CHECK_EQ(pkt->csum_start, 34);
	CHECK_EQ(pkt->gso_segs, 3);
	/* And back: the header pushed in front is the same bytes. */
	CHECK_EQ(voff_vnet_pkt_push(&tap, pkt), 10);
	CHECK_EQ(pkt->len, len + 10);
	CHECK_MEM_EQ(voff_pkt_data(pkt), raw, 10);
	voff_pkt_free(pkt);
	voff_pool_free(pool);
}

/*
 * voff_pkt_push() refuses to carry a set offset past 16 bits; pkt_push
 * must report that, not copy the header to NULL (review finding).
 */
/* A header + frame in a fresh packet of @pool. */
static struct voff_pkt *with_hdr(struct voff_pool *pool,
				 const struct voff_vnet_hdr *h, size_t len)
{
	struct voff_pkt *pkt;
	uint8_t raw[10];

	CHECK_EQ(voff_vnet_hdr_write(&tap, h, raw, sizeof(raw)), 10);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	memcpy(voff_pkt_put(pkt, 10), raw, 10);
	memcpy(voff_pkt_put(pkt, (uint32_t)len), fbuf, len);
	return pkt;
}

/*
 * voff_vnet_pkt_pull_parsed() hands out the parse the validator made: for
 * a frame with offloads always, for a plain one unless plain_unparsed; the
 * parse is the frame's as it is after the pull.
 */
static void t_pkt_pull_parsed(void)
{
	struct voff_vnet_cfg c = tap;
	struct voff_parsed p, want;
	struct voff_pool *pool;
	struct voff_pkt *pkt;
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_OK(voff_pool_new(&pool, 2, 4096));
	pkt = with_hdr(pool, HP(1, 1, 54, 1000, 34, 16), len);
	CHECK_EQ(voff_vnet_pkt_pull_parsed(&c, pkt, &p), 1);
	CHECK_OK(voff_parse(voff_pkt_data(pkt), pkt->len, VOFF_PARSE_ETH,
			    &want));
	CHECK_EQ(p.l4_off, want.l4_off);
	CHECK_EQ(p.payload_off, want.payload_off);
	CHECK_EQ(p.l4_proto, want.l4_proto);
	voff_pkt_free(pkt);
	/* Plain: parsed for the offsets, or not at all. */
	pkt = with_hdr(pool, HP(0, 0, 0, 0, 0, 0), len);
	CHECK_EQ(voff_vnet_pkt_pull_parsed(&c, pkt, &p), 1);
	voff_pkt_free(pkt);
	c.plain_unparsed = true;
	pkt = with_hdr(pool, HP(0, 0, 0, 0, 0, 0), len);
	CHECK_EQ(voff_vnet_pkt_pull_parsed(&c, pkt, &p), 0);
	CHECK_EQ(pkt->len, len);
	voff_pkt_free(pkt);
	/* No room given: nothing handed out. */
	pkt = with_hdr(pool, HP(1, 1, 54, 1000, 34, 16), len);
	CHECK_EQ(voff_vnet_pkt_pull_parsed(&c, pkt, NULL), 0);
	CHECK_EQ(pkt->l4_off, 34);
	voff_pkt_free(pkt);
	/* Refused: the error, the packet as it was. */
	pkt = with_hdr(pool, HP(1, 0, 0, 0, 34, 6), len);
	CHECK_EQ(voff_vnet_pkt_pull_parsed(&c, pkt, &p),
		 VOFF_E_VNET_CSUM_OFFSET);
	CHECK_EQ(pkt->len, len + 10);
	voff_pkt_free(pkt);
	voff_pool_free(pool);
}

static void t_pkt_push_offset_range(void)
{
	struct voff_pkt pkt, before;
	size_t len = mk(true, V4, TCP, 100);

	CHECK_OK(voff_pkt_init_ext(&pkt, fbuf, sizeof(fbuf), 0,
				   (uint32_t)len));
	memmove(fbuf + 64, fbuf, len);
	pkt.data_off = 64;
	pkt.payload_off = 0xFFF8;	/* stale, but set */
	before = pkt;
	CHECK_ERR(voff_vnet_pkt_push(&tap, &pkt), VOFF_E_HDR_OFF);
	CHECK_MEM_EQ(&before, &pkt, sizeof(pkt));
	pkt.payload_off = 54;
	CHECK_EQ(voff_vnet_pkt_push(&tap, &pkt), 10);
	CHECK_EQ(pkt.payload_off, 64);
}

/* ---- every rejection ---------------------------------------------------- */

static void t_rej_flags(void)
{
	size_t len = mk(true, V4, TCP, 100);

	CHECK_ERR(verdict(&tap, H(0x10, 0, 0, 0, 0, 0), len),
		  VOFF_E_VNET_FLAGS);
	CHECK_ERR(verdict(&tap, H(4, 0, 0, 0, 0, 0), len), VOFF_E_VNET_FLAGS);
	/* UDP_TUNNEL_CSUM without a tunnel GSO type */
	CHECK_ERR(verdict(&tap, H(8, 0, 0, 0, 0, 0), len), VOFF_E_VNET_FLAGS);
	CHECK_ERR(verdict(&tap, H(9, 1, 0, 100, 34, 16), len),
		  VOFF_E_VNET_FLAGS);
}

static void t_rej_gso_type(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	for (int t = 0; t < 256; t++) {
		int base = t & 0x1F, err;

		err = verdict(&tap, H(1, (uint8_t)t, 0, 1000, 34, 16), len);
		if (t == 1 || t == 0x81 || t == 0)
			CHECK_OK(err);
		else if (t & 0x60)	/* tunnel types need the feature */
			CHECK_ERR(err, VOFF_E_VNET_GSO_TYPE);
		else if (base != 1 && base != 3 && base != 4 && base != 5)
			CHECK_ERR(err, VOFF_E_VNET_GSO_TYPE);
		else
			CHECK(err < 0);
	}
}

static void t_rej_gso_ecn(void)
{
	size_t len = mk(true, V4, UDP, 3000);

	CHECK_ERR(verdict(&tap, H(1, 0x83, 0, 1000, 34, 6), len),
		  VOFF_E_VNET_GSO_ECN);
	CHECK_ERR(verdict(&tap, H(1, 0x85, 0, 1000, 34, 6), len),
		  VOFF_E_VNET_USO_ECN);
}

static void t_rej_gso_size(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_ERR(verdict(&tap, H(1, 1, 0, 0, 34, 16), len),
		  VOFF_E_VNET_GSO_SIZE_ZERO);
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 0xFFFF, 34, 16), len),
		  VOFF_E_VNET_GSO_BY_FRAGS);
	/* gso_size without a gso_type is ignored, as the kernel does. */
	CHECK_OK(verdict(&tap, H(1, 0, 0, 0xFFFF, 34, 16), len));
}

static void t_rej_hdr_len(void)
{
	size_t len = mk(true, V4, TCP, 100);

	CHECK_ERR(verdict(&tap, H(0, 0, (uint16_t)(len + 1), 0, 0, 0), len),
		  VOFF_E_VNET_HDR_LEN);
	CHECK_OK(verdict(&tap, H(0, 0, (uint16_t)len, 0, 0, 0), len));
	CHECK_ERR(verdict(&tap, H(0, 0, 13, 0, 0, 0), len),
		  VOFF_E_VNET_HDR_LEN_SHORT);
	CHECK_OK(verdict(&tap, H(0, 0, 14, 0, 0, 0), len));
	/* TUN has no Ethernet header: a short hdr_len is fine there. */
	len = mk(false, V4, TCP, 100);
	CHECK_OK(verdict(&tun, H(0, 0, 13, 0, 0, 0), len));
}

static void t_rej_frame_short(void)
{
	memset(fbuf, 0, 14);
	CHECK_ERR(verdict(&tap, H(0, 0, 0, 0, 0, 0), 13),
		  VOFF_E_VNET_FRAME_SHORT);
	CHECK_OK(verdict(&tap, H(0, 0, 0, 0, 0, 0), 14));
	fbuf[0] = 0x45;
	CHECK_OK(verdict(&tun, H(0, 0, 0, 0, 0, 0), 1));
	fbuf[0] = 0x15;
	CHECK_ERR(verdict(&tun, H(0, 0, 0, 0, 0, 0), 1), VOFF_E_VNET_NOT_IP);
}

static void t_rej_csum_bounds(void)
{
	size_t len = mk(true, V4, TCP, 100);

	/* start + max(thlen, offset + 2) must fit the frame */
	/* the raised hdr_len (start + offset + 2) is checked first */
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, (uint16_t)(len - 17), 16), len),
		  VOFF_E_VNET_HDR_LEN);
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 34, 0xFFFF), len),
		  VOFF_E_VNET_HDR_LEN);
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 100, (uint16_t)(len - 19), 16),
			  len), VOFF_E_VNET_CSUM_PAST_END);
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 19, 16), len),
		  VOFF_E_VNET_CSUM_START_SHORT);
	len = mk(true, V6, TCP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 4, 0, 1000, 39, 16), len),
		  VOFF_E_VNET_CSUM_START_SHORT);
}

static void t_rej_csum_not_l4(void)
{
	size_t len = mk(true, V4, TCP, 100);

	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 20, 16), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 36, 14), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 54, 16), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
}

static void t_rej_csum_offset(void)
{
	size_t len = mk(true, V4, TCP, 100);

	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 34, 6), len),
		  VOFF_E_VNET_CSUM_OFFSET);
	len = mk(true, V4, UDP, 100);
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 34, 16), len),
		  VOFF_E_VNET_CSUM_OFFSET);
	len = mk(true, V4, UDP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 3, 0, 1000, 34, 16), len),
		  VOFF_E_VNET_CSUM_OFFSET);
}

static void t_rej_tcp_csum_offset(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	for (int off = 0; off < 40; off++)
		if (off != 16)
			CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 34,
						  (uint16_t)off), len),
				  VOFF_E_VNET_TCP_CSUM_OFFSET);
}

static void t_rej_gso_no_csum(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_ERR(verdict(&tap, H(0, 1, 54, 1000, 0, 0), len),
		  VOFF_E_VNET_GSO_NO_CSUM);
	len = mk(true, V4, UDP, 3000);
	CHECK_ERR(verdict(&tap, H(0, 3, 42, 1000, 0, 0), len),
		  VOFF_E_VNET_GSO_NO_CSUM);
	CHECK_ERR(verdict(&tap, H(0, 5, 42, 1000, 0, 0), len),
		  VOFF_E_VNET_USO_NO_CSUM);
}

static void t_rej_gso_proto(void)
{
	size_t len = mk(true, V6, TCP, 3000);

	/* TCPV4 over IPv6, TCPV6 over IPv4, TCP types over UDP */
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 54, 16), len),
		  VOFF_E_VNET_GSO_PROTO);
	len = mk(true, V4, TCP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 4, 0, 1000, 40, 16), len),
		  VOFF_E_VNET_GSO_PROTO);
	len = mk(true, V4, UDP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 34, 16), len),
		  VOFF_E_VNET_GSO_PROTO);
	len = mk(true, V4, TCP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 5, 0, 1000, 34, 6), len),
		  VOFF_E_VNET_GSO_PROTO);
}

static void t_rej_gso_padded(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	memset(fbuf + len, 0, 4);
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 34, 16), len + 4),
		  VOFF_E_VNET_GSO_PADDED);
	/* A plain frame may carry Ethernet padding, and so may a GSO header
	 * whose payload fits one segment (it is a plain frame). */
	CHECK_OK(verdict(&tap, H(1, 0, 0, 0, 34, 16), len + 4));
	len = mk(true, V4, TCP, 1);
	memset(fbuf + len, 0, 5);
	CHECK_OK(verdict(&tap, H(1, 1, 0, 1000, 34, 16), 60));
}

static void t_rej_uso_csum_offset(void)
{
	size_t len = mk(true, V4, UDP, 3000);

	CHECK_ERR(verdict(&tap, H(1, 5, 0, 1000, 34, 16), len),
		  VOFF_E_VNET_USO_CSUM_OFFSET);
}

static void t_rej_uso_segs(void)
{
	size_t len = mk(true, V4, UDP, 128 * 100 + 1);

	CHECK_ERR(verdict(&tap, H(1, 5, 0, 100, 34, 6), len),
		  VOFF_E_VNET_USO_SEGS);
}

static void t_rej_gso_segs(void)
{
	struct voff_vnet_cfg c = tap;
	size_t len = mk(true, V4, TCP, 64 * 100 + 1);

	c.max_segs = 64;
	CHECK_ERR(verdict(&c, H(1, 1, 0, 100, 34, 16), len),
		  VOFF_E_VNET_GSO_SEGS);
	len = mk(true, V4, TCP, 64 * 100);
	CHECK_OK(verdict(&c, H(1, 1, 0, 100, 34, 16), len));
}

static void t_parse_error_with_offload(void)
{
	size_t len = mk(true, V4, TCP, 100);

	/* IHL 4: the frame does not parse; with an offload claimed the
	 * parser's own code comes back. */
	fbuf[14] = 0x44;
	CHECK_ERR(verdict(&tap, H(1, 0, 0, 0, 34, 16), len),
		  VOFF_E_IPV4_IHL);
	CHECK_OK(verdict(&tap, H(0, 0, 0, 0, 0, 0), len));
}

/* ---- tunnel GSO --------------------------------------------------------- */

static struct voff_vnet_hdr tnl_hdr(uint8_t type, uint16_t gso, uint16_t cs,
				    uint16_t oth, uint16_t inh)
{
	struct voff_vnet_hdr h = H(1, type, 0, gso, cs, 16);

	h.outer_th_offset = oth;
	h.inner_nh_offset = inh;
	return h;
}

static void t_tnl_accepted(void)
{
	struct voff_pkt pkt;
	size_t len = mk_vxlan(V4, V4, TCP, 3000);
	struct voff_vnet_hdr h = tnl_hdr(0x21, 1000, 84, 34, 64);

	CHECK_OK(dec(&tnl, &h, len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL);
	CHECK_EQ(pkt.gso_segs, 3);
	CHECK_EQ(pkt.hdr_len, 104);
	CHECK_EQ(pkt.inner_l4_off, 84);
	h.flags |= VOFF_VNET_F_UDP_TUNNEL_CSUM;
	CHECK_OK(dec(&tnl, &h, len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL |
			       VOFF_GSO_UDP_TUNNEL_CSUM);
	len = mk_vxlan(V6, V6, TCP, 3000);
	CHECK_OK(verdict(&tnl, tnl_hdr(0x44, 1000, 124, 54, 84), len));
}

static void t_tnl_geneve_uso(void)
{
	struct voff_pkt pkt;
	struct voff_vnet_hdr h;
	struct tf b;
	size_t len;

	/* Eth/IPv6/UDP(6081)/Geneve+8 opt/Eth/IPv4/UDP: USO inside */
	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ .sport = 40000, .dport = 6081 });
	tf_geneve(&b, 7, 8);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ 0 });
	tf_payload(&b, 4000, 0);
	len = tf_finish(&b);
	/* outer UDP 54, Geneve 62 (16), inner Eth 78, IPv4 92, UDP 112 */
	h = tnl_hdr(0x45, 1000, 112, 54, 92);
	h.csum_offset = 6;
	CHECK_OK(dec(&tnl, &h, len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_UDP_L4 | VOFF_GSO_UDP_TUNNEL);
	CHECK_EQ(pkt.gso_segs, 4);
	CHECK_EQ(pkt.hdr_len, 120);
	/* The outer version bit must match the outer IP header. */
	h.gso_type = 0x25;
	CHECK_ERR(verdict(&tnl, h, len), VOFF_E_VNET_TNL_PARSE);
}

/*
 * Tunnel GSO: bytes after the inner IP packet but inside the outer one
 * would be cut into the segments as payload, like Ethernet padding after
 * a plain super-packet (review: the count used the outer end).
 */
static void t_rej_tnl_inner_padded(void)
{
	size_t len = mk_vxlan(V4, V4, TCP, 3000);
	uint16_t tot;

	/* Inner IPv4 at 64: claim 1000 bytes less; the outer is unchanged. */
	tot = (uint16_t)(fbuf[66] << 8 | fbuf[67]);
	tot = (uint16_t)(tot - 1000);
	fbuf[66] = (uint8_t)(tot >> 8);
	fbuf[67] = (uint8_t)tot;
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 34, 64), len),
		  VOFF_E_VNET_GSO_PADDED);
	/* What is left fits one segment: a plain frame, as without tunnel. */
	tot = (uint16_t)(tot - 1500);
	fbuf[66] = (uint8_t)(tot >> 8);
	fbuf[67] = (uint8_t)tot;
	CHECK_OK(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 34, 64), len));
}

static void t_rej_tnl(void)
{
	size_t len = mk_vxlan(V4, V4, TCP, 3000);
	struct voff_vnet_hdr h;

	/* Not negotiated */
	CHECK_ERR(verdict(&(struct voff_vnet_cfg){ .hdr_size = 24 },
			  tnl_hdr(0x21, 1000, 84, 34, 64), len),
		  VOFF_E_VNET_GSO_TYPE);
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x61, 1000, 84, 34, 64), len),
		  VOFF_E_VNET_TNL_TYPE);
	h = tnl_hdr(0x23, 1000, 84, 34, 64);
	h.csum_offset = 6;
	CHECK_ERR(verdict(&tnl, h, len), VOFF_E_VNET_TNL_TYPE);
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x20, 1000, 84, 34, 64), len),
		  VOFF_E_VNET_GSO_TYPE);
	h = tnl_hdr(0x21, 1000, 84, 34, 64);
	h.flags |= VOFF_VNET_F_DATA_VALID;
	CHECK_ERR(verdict(&tnl, h, len), VOFF_E_VNET_TNL_DATA_VALID);
	h = tnl_hdr(0x21, 1000, 84, 34, 64);
	h.flags = 0;
	CHECK_ERR(verdict(&tnl, h, len), VOFF_E_VNET_GSO_NO_CSUM);
	/* Offsets out of order */
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 33, 64), len),
		  VOFF_E_VNET_TNL_OFFSETS);
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 34, 41), len),
		  VOFF_E_VNET_TNL_OFFSETS);
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 34, 65), len),
		  VOFF_E_VNET_TNL_OFFSETS);
	/* In order, but not where the tunnel is */
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 34, 50), len),
		  VOFF_E_VNET_TNL_PARSE);
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x41, 1000, 84, 54, 64), len),
		  VOFF_E_VNET_TNL_PARSE);
	/* Inner type disagrees with the inner packet */
	h = tnl_hdr(0x25, 1000, 84, 34, 64);
	h.csum_offset = 6;
	CHECK_ERR(verdict(&tnl, h, len), VOFF_E_VNET_GSO_PROTO);
	/* TCPV6 inside: the inner IP must leave 40 bytes before csum_start */
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x24, 1000, 84, 34, 64), len),
		  VOFF_E_VNET_TNL_OFFSETS);
	/* csum_start must be the inner L4 */
	CHECK_ERR(verdict(&tnl, tnl_hdr(0x21, 1000, 86, 34, 64), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
}

/* ---- historical bugs (kernel-model.md §5.3), one named test per row ---- */

/*
 * CVE-2024-43817 "net: missing check virtio": a syzbot crash from GSO
 * whose L4 header the kernel never checked, then a regression (6.6.44-45)
 * that rejected valid GSO packets with a small last segment.
 */
static void test_cve_2024_43817_gso_without_l4(void)
{
	size_t len;

	/* GSO claims TCP, the frame is IPv4 with no L4 header at all. */
	len = mk(true, V4, TCP, 0) - 20;
	fbuf[14 + 9] = 253;			/* experimental protocol */
	fbuf[14 + 2] = 0;
	fbuf[14 + 3] = 20;			/* total length: header only */
	fbuf[14 + 10] = 0;
	fbuf[14 + 11] = 0;
	CHECK(verdict(&tap, H(1, 1, 0, 1, 34, 16), len) < 0);
	CHECK_ERR(verdict(&tap, H(0, 1, 0, 1, 0, 0), len),
		  VOFF_E_VNET_GSO_NO_CSUM);
}

static void test_cve_2024_43817_small_remainder_accepted(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 2 * 1448 + 1);

	CHECK_OK(dec(&tap, HP(1, 1, 54, 1448, 34,
		     16), len, &pkt));
	CHECK_EQ(pkt.gso_segs, 3);
	len = mk(true, V4, UDP, 2 * 1400 + 1);
	CHECK_OK(dec(&tap, HP(1, 5, 42, 1400, 34,
		     6), len, &pkt));
	CHECK_EQ(pkt.gso_segs, 3);
}

/* CVE-2024-43897 "drop bad gso csum_start and offset" (+ "tighten"). */
static void test_cve_2024_43897_tcp_offset_not_16(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 34, 6), len),
		  VOFF_E_VNET_TCP_CSUM_OFFSET);
	len = mk(true, V6, TCP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 4, 0, 1000, 54, 17), len),
		  VOFF_E_VNET_TCP_CSUM_OFFSET);
}

static void test_cve_2024_43897_uso_offset_not_6(void)
{
	size_t len = mk(true, V6, UDP, 3000);

	CHECK_ERR(verdict(&tap, H(1, 5, 0, 1000, 54, 16), len),
		  VOFF_E_VNET_USO_CSUM_OFFSET);
}

static void test_cve_2024_43897_csum_start_not_l4(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	/* Offset 16 and in bounds, but csum_start is past the TCP header. */
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 40, 16), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 54, 16), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
}

/* "net: test for not too small csum_start" (2024). */
static void test_fix_2024_csum_start_too_small(void)
{
	size_t len = mk(true, V4, TCP, 3000);

	/* Below the smallest IP header: the kernel's own check. */
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 10, 16), len),
		  VOFF_E_VNET_CSUM_START_SHORT);
	/* Inside the IPv4 header: the kernel accepts 20 on a TAP (it counts
	 * from the frame start); voff knows the IP header ends at 34. */
	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 20, 16), len),
		  VOFF_E_VNET_CSUM_NOT_L4);
	len = mk(false, V4, TCP, 3000);
	CHECK_ERR(verdict(&tun, H(1, 1, 0, 1000, 19, 16), len),
		  VOFF_E_VNET_CSUM_START_SHORT);
}

/* "more strict VIRTIO_NET_HDR_GSO_UDP_L4 validation" (2023). */
static void test_fix_2023_uso_strict(void)
{
	size_t len = mk(true, V4, UDP, 3000);

	CHECK_ERR(verdict(&tap, H(0, 5, 0, 1000, 0, 0), len),
		  VOFF_E_VNET_USO_NO_CSUM);
	CHECK_ERR(verdict(&tap, H(1, 5, 0, 1000, 34, 0), len),
		  VOFF_E_VNET_USO_CSUM_OFFSET);
	CHECK_ERR(verdict(&tap, H(1, 0x85, 0, 1000, 34, 6), len),
		  VOFF_E_VNET_USO_ECN);
	/* Too many segments: the limit was 64, now 128. */
	len = mk(true, V4, UDP, 129 * 10);
	CHECK_ERR(verdict(&tap, H(1, 5, 0, 10, 34, 6), len),
		  VOFF_E_VNET_USO_SEGS);
	len = mk(true, V4, UDP, 65 * 10);
	CHECK_OK(verdict(&tap, H(1, 5, 0, 10, 34, 6), len));
}

/*
 * "gso: fix dodgy bit handling for GSO_UDP_L4": untrusted USO reached
 * hardware with unchecked headers.  voff checks everything at the header
 * and hands on an exact segment count.
 */
static void test_fix_uso_dodgy_segs_exact(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V6, UDP, 1000 * 7 + 3);

	CHECK_OK(dec(&tap, HP(1, 5, 0, 1000, 54, 6),
		     len, &pkt));
	CHECK_EQ(pkt.gso_segs, 8);
	CHECK_EQ(pkt.hdr_len, 62);
	CHECK_EQ(pkt.gso_type, VOFF_GSO_UDP_L4);
}

/* "count transport header in UFO" (2021): UFO's gso_size covers the
 * UDP header as the kernel compares it. */
static void test_fix_2021_ufo_counts_udp_header(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, UDP, 93);

	CHECK_OK(dec(&tap, HP(1, 3, 0, 100, 34, 6),
		     len, &pkt));
	CHECK_EQ(pkt.gso_type, VOFF_GSO_UDP);	/* 8 + 93 > 100 */
	CHECK_EQ(pkt.gso_segs, 2);
	len = mk(true, V4, UDP, 92);
	CHECK_OK(dec(&tap, HP(1, 3, 0, 100, 34, 6),
		     len, &pkt));
	CHECK_EQ(pkt.gso_type, 0);		/* 8 + 92 == 100 */
}

/* 2021 fixes in virtio_net_hdr_set_proto and UFOv6: EtherType vs type. */
static void test_fix_2021_ethertype_vs_gso_type(void)
{
	size_t len = mk(true, V6, TCP, 3000);

	CHECK_ERR(verdict(&tap, H(1, 1, 0, 1000, 54, 16), len),
		  VOFF_E_VNET_GSO_PROTO);
	len = mk(true, V4, TCP, 3000);
	CHECK_ERR(verdict(&tap, H(1, 4, 0, 1000, 40, 16), len),
		  VOFF_E_VNET_GSO_PROTO);
	/* UFO carries no IP version: IPv6 is fine (the kernel retries). */
	len = mk(true, V6, UDP, 3000);
	CHECK_OK(verdict(&tap, H(1, 3, 0, 1000, 54, 6), len));
	/* An ARP EtherType with a TCPV4 type. */
	len = mk(true, V4, TCP, 3000);
	fbuf[12] = 0x08;
	fbuf[13] = 0x06;
	CHECK(verdict(&tap, H(1, 1, 0, 1000, 34, 16), len) < 0);
}

/* CVE-2024-41090/41091: TAP/TUN frames shorter than ETH_HLEN. */
static void test_cve_2024_41090_short_frame(void)
{
	memset(fbuf, 0, 64);
	for (size_t n = 1; n < 14; n++) {
		CHECK_ERR(verdict(&tap, H(0, 0, 0, 0, 0, 0), n),
			  VOFF_E_VNET_FRAME_SHORT);
		CHECK(verdict(&tap, H(1, 1, 0, 1, 0, 16), n) < 0);
	}
}

/*
 * CVE-2026-90063 "guard gso_segs overflow": a tiny TCP gso_size with a
 * 64 KB payload.  voff computes the count exactly in 32 bits; MSS 1 is
 * accepted, as the kernel does, because the largest IP payload still
 * fits the 16-bit count; a channel's max_segs limits it further.
 */
static void test_cve_2026_90063_gso_segs_overflow(void)
{
	struct voff_vnet_cfg c = tun;
	struct voff_pkt pkt;
	size_t len = mk(false, V4, TCP, 65535 - 40);

	CHECK_EQ(len, 65535);
	CHECK_OK(dec(&tun, HP(1, 1, 0, 1, 20, 16),
		     len, &pkt));
	CHECK_EQ(pkt.gso_segs, 65495);
	CHECK_EQ(pkt.gso_size, 1);
	len = mk(false, V6, TCP, 65535 - 20);
	CHECK_OK(dec(&tun, HP(1, 4, 0, 1, 40, 16),
		     len, &pkt));
	CHECK_EQ(pkt.gso_segs, 65515);
	c.max_segs = 65514;
	CHECK_ERR(verdict(&c, H(1, 4, 0, 1, 40, 16), len),
		  VOFF_E_VNET_GSO_SEGS);
	len = mk(false, V4, UDP, 65535 - 28);
	CHECK_ERR(verdict(&tun, H(1, 5, 0, 1, 20, 6), len),
		  VOFF_E_VNET_USO_SEGS);
}

/*
 * CVE-2026-74684: tap XDP set skb->dev only after parsing the header.
 * The codec needs no device state: a rejected header leaves every field
 * of the packet as it was (dec() checks that for every rejection).
 */
static void test_cve_2026_74684_no_state_before_validation(void)
{
	struct voff_pkt pkt;
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_ERR(dec(&tap, HP(1, 1, 0, 1000, 34,
		      6), len, &pkt), VOFF_E_VNET_TCP_CSUM_OFFSET);
	CHECK_EQ(pkt.port, 7);
	CHECK_EQ(pkt.l3_off, VOFF_OFF_NONE);
}

/*
 * "TOCTOU on mmap'd vnet_hdr in tpacket_snd": the header is copied once
 * and only the copy is validated and applied.  Here the source changes
 * between two decodes; each result matches the bytes of its own call.
 */
static void test_fix_toctou_header_copied(void)
{
	struct voff_pkt pkt;
	uint8_t raw[10];
	size_t len = mk(true, V4, TCP, 3000);

	CHECK_EQ(voff_vnet_hdr_write(&tap, HP(1, 1, 0, 1000, 34, 16), raw,
				     sizeof(raw)), 10);
	CHECK_OK(voff_pkt_init_ext(&pkt, fbuf, sizeof(fbuf), 0,
				   (uint32_t)len));
	CHECK_OK(voff_vnet_decode(&tap, raw, sizeof(raw), &pkt));
	raw[8] = 6;	/* csum_offset changed after the check */
	CHECK_EQ(pkt.csum_offset, 16);
	CHECK_EQ(pkt.gso_segs, 3);
	CHECK_ERR(voff_vnet_decode(&tap, raw, sizeof(raw), &pkt),
		  VOFF_E_VNET_TCP_CSUM_OFFSET);
	CHECK_EQ(pkt.csum_offset, 16);
	/* A header that does not fit the buffer is not read at all. */
	CHECK_ERR(voff_vnet_decode(&tap, raw, 9, &pkt), VOFF_E_VNET_TRUNC);
}

/* "ipv6: reject malicious packets in ipv6_gso_segment". */
static void test_fix_ipv6_gso_malformed_ext(void)
{
	struct tf b;
	size_t len;

	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_ext(&b, TF_EXT_DSTOPTS, 16);
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 0);
	len = tf_finish(&b);
	CHECK_OK(verdict(&tap, H(1, 4, 0, 1000, 70, 16), len));
	/* The extension header claims to run past the frame. */
	fbuf[54 + 1] = 0xFF;
	CHECK(verdict(&tap, H(1, 4, 0, 1000, 70, 16), len) < 0);
	/* A fragment header: the TCP "header" is a fragment's data. */
	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	tf_ipv6(&b, &(struct tf_ip){ 0 });
	tf_ipv6_frag(&b, 0, true, 1);
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 0);
	len = tf_finish(&b);
	CHECK(verdict(&tap, H(1, 4, 0, 1000, 62, 16), len) < 0);
}

/* CVE-2026-98853 "limit recursive IP-in-IP segmentation": nested tunnels. */
static void test_cve_2026_98853_nested_tunnels(void)
{
	struct tf b;
	size_t len;

	/* IPv4 in IPv4 with a TCPV4 type: the outer L4 is not TCP. */
	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .proto = 4 });
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 0);
	len = tf_finish(&b);
	CHECK(verdict(&tap, H(1, 1, 0, 1000, 54, 16), len) < 0);
	/* VXLAN in VXLAN under tunnel GSO: the inner L4 is UDP, not TCP. */
	tf_init(&b, fbuf, sizeof(fbuf));
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ .dport = 4789 });
	tf_vxlan(&b, 1);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_udp(&b, &(struct tf_l4){ .dport = 4789 });
	tf_vxlan(&b, 2);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ 0 });
	tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, 3000, 0);
	len = tf_finish(&b);
	CHECK(len > 0);
	CHECK(verdict(&tnl, tnl_hdr(0x21, 1000, 84, 34, 64), len) < 0);
	CHECK(verdict(&tnl, tnl_hdr(0x21, 1000, 134, 34, 64), len) < 0);
}

/* ---- wireguard-go Test_handleVirtioRead, re-derived ---------------------- */

/*
 * TUN (L3) frames 192.0.2.1:1 -> .2:1 / 2001:db8::1 -> ::2, ack 1, window
 * 3000, TTL 64, 200 zero payload bytes, gso_size 100, the vnet header at
 * buffer offset 10.  Expected: hdr_len and csum start/offset as listed,
 * and two segments of hdr_len + 100 bytes each.
 */
static void wg_case(int ipv, int l4, uint8_t type, uint16_t hdr_len,
		    uint16_t cs, uint16_t co, uint32_t seg_len)
{
	static uint8_t buf[512];
	struct voff_pkt pkt;
	struct tf b;
	size_t len;
	uint32_t seg[4], n = 0;

	tf_init(&b, buf + 10, sizeof(buf) - 10);
	if (ipv == V4)
		tf_ipv4(&b, &(struct tf_ip){ 0 });
	else
		tf_ipv6(&b, &(struct tf_ip){ 0 });
	if (l4 == TCP)
		tf_tcp(&b, &(struct tf_l4){ .sport = 1, .dport = 1, .ack = 1,
					    .flags = TF_ACK });
	else
		tf_udp(&b, &(struct tf_l4){ .sport = 1, .dport = 1 });
	tf_payload(&b, 200, 0);
	memset(buf + 10 + hdr_len, 0, 200);
	len = tf_finish(&b);
	CHECK_EQ(len, hdr_len + 200u);
	CHECK_EQ(voff_vnet_hdr_write(&tun, HP(1, type, hdr_len, 100, cs, co),
				     buf, 10), 10);
	CHECK_OK(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 0,
				   (uint32_t)len + 10));
	CHECK_OK(voff_vnet_pkt_pull(&tun, &pkt));
	CHECK_EQ(pkt.hdr_len, hdr_len);
	CHECK_EQ(pkt.csum_start, cs);
	CHECK_EQ(pkt.csum_offset, co);
	CHECK_EQ(pkt.gso_segs, 2);
	for (uint32_t off = pkt.hdr_len; off < pkt.len; off += pkt.gso_size)
		seg[n++] = pkt.hdr_len + (pkt.len - off < pkt.gso_size ?
					  pkt.len - off : pkt.gso_size);
	CHECK_EQ(n, 2);
	CHECK_EQ(seg[0], seg_len);
	CHECK_EQ(seg[1], seg_len);
}

static void t_wg_virtio_read_tcp4(void)
{
	wg_case(V4, TCP, VOFF_VNET_GSO_TCPV4, 40, 20, 16, 140);
}

static void t_wg_virtio_read_tcp6(void)
{
	wg_case(V6, TCP, VOFF_VNET_GSO_TCPV6, 60, 40, 16, 160);
}

static void t_wg_virtio_read_udp4(void)
{
	wg_case(V4, UDP, VOFF_VNET_GSO_UDP_L4, 28, 20, 6, 128);
}

static void t_wg_virtio_read_udp6(void)
{
	wg_case(V6, UDP, VOFF_VNET_GSO_UDP_L4, 48, 40, 6, 148);
}

/* ---- encode ------------------------------------------------------------- */

static void ext_pkt(struct voff_pkt *pkt, size_t len)
{
	CHECK_OK(voff_pkt_init_ext(pkt, fbuf, sizeof(fbuf), 0, (uint32_t)len));
}

static void t_encode_tso4_bytes(void)
{
	static const uint8_t want[12] = { 0x01, 0x01, 0x36, 0x00, 0xe8, 0x03,
					  0x22, 0x00, 0x10, 0x00, 0, 0 };
	static const uint8_t want_be[10] = { 0x01, 0x81, 0x00, 0x36, 0x03,
					     0xe8, 0x00, 0x22, 0x00, 0x10 };
	struct voff_vnet_cfg c = { .hdr_size = 12 };
	struct voff_pkt pkt;
	uint8_t out[24];

	ext_pkt(&pkt, mk(true, V4, TCP, 3000));
	pkt.csum = VOFF_CSUM_PARTIAL;
	pkt.csum_start = 34;
	pkt.csum_offset = 16;
	pkt.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_DODGY | VOFF_GSO_TCP_FIXEDID;
	pkt.gso_size = 1000;
	memset(out, 0xEE, sizeof(out));
	CHECK_EQ(voff_vnet_encode(&c, &pkt, out, sizeof(out)), 12);
	CHECK_MEM_EQ(out, want, 12);
	CHECK_EQ(out[12], 0xEE);
	c.hdr_size = 10;
	c.order = VOFF_VNET_BE;
	pkt.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_TCP_ECN;
	CHECK_EQ(voff_vnet_encode(&c, &pkt, out, sizeof(out)), 10);
	CHECK_MEM_EQ(out, want_be, 10);
}

static void t_encode_rx_bytes(void)
{
	static const uint8_t want[20] = { 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					  1, 0, 0x78, 0x56, 0x34, 0x12,
					  VOFF_VNET_HASH_UDPV6, 0, 0, 0 };
	struct voff_vnet_cfg rx = { .hdr_size = 20, .dir = VOFF_VNET_RX };
	struct voff_pkt pkt;
	uint8_t out[20];

	ext_pkt(&pkt, mk(true, V6, UDP, 50));
	pkt.csum = VOFF_CSUM_VALID;
	pkt.hash = 0x12345678;
	CHECK_EQ(voff_vnet_encode(&rx, &pkt, out, sizeof(out)), 20);
	CHECK_MEM_EQ(out, want, 20);
	/* On a transmit channel DATA_VALID, buffers and hash stay zero. */
	rx.dir = VOFF_VNET_TX;
	CHECK_EQ(voff_vnet_encode(&rx, &pkt, out, sizeof(out)), 20);
	for (int i = 0; i < 20; i++)
		CHECK_EQ(out[i], 0);
}

static void t_encode_tunnel_bytes(void)
{
	struct voff_pkt pkt;
	struct voff_vnet_hdr h;
	uint8_t out[24];

	ext_pkt(&pkt, mk_vxlan(V6, V4, TCP, 3000));
	pkt.csum = VOFF_CSUM_PARTIAL;
	pkt.csum_start = 104;
	pkt.csum_offset = 16;
	pkt.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL |
		       VOFF_GSO_UDP_TUNNEL_CSUM;
	pkt.gso_size = 1400;
	CHECK_EQ(voff_vnet_encode(&tnl, &pkt, out, sizeof(out)), 24);
	CHECK_EQ(voff_vnet_hdr_read(&tnl, out, 24, &h), 24);
	CHECK_EQ(h.flags, 1 | 8);
	CHECK_EQ(h.gso_type, 0x41);
	CHECK_EQ(h.hdr_len, 124);
	CHECK_EQ(h.outer_th_offset, 54);
	CHECK_EQ(h.inner_nh_offset, 84);
	/* Without the feature the type cannot be expressed. */
	CHECK_ERR(voff_vnet_encode(&(struct voff_vnet_cfg){ .hdr_size = 24 },
				   &pkt, out, sizeof(out)),
		  VOFF_E_VNET_GSO_TYPE);
}

static void t_encode_refuses(void)
{
	struct voff_pkt pkt;
	uint8_t out[24];

	memset(out, 0xEE, sizeof(out));
	ext_pkt(&pkt, mk(true, V4, TCP, 3000));
	pkt.csum = VOFF_CSUM_PARTIAL;
	pkt.csum_start = 34;
	pkt.csum_offset = 16;
	pkt.gso_size = 1000;
	pkt.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_PARTIAL;
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, sizeof(out)),
		  VOFF_E_VNET_GSO_TYPE);
	pkt.gso_type = VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6;
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, sizeof(out)),
		  VOFF_E_VNET_GSO_TYPE);
	pkt.gso_type = VOFF_GSO_UDP_L4 | VOFF_GSO_TCP_ECN;
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, sizeof(out)),
		  VOFF_E_VNET_USO_ECN);
	pkt.gso_type = VOFF_GSO_TCPV6;	/* on IPv4: start < 40 */
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, sizeof(out)),
		  VOFF_E_VNET_CSUM_START_SHORT);
	pkt.gso_type = VOFF_GSO_TCPV4;
	pkt.csum_offset = 6;
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, sizeof(out)),
		  VOFF_E_VNET_TCP_CSUM_OFFSET);
	pkt.csum_offset = 16;
	pkt.csum = VOFF_CSUM_NONE;
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, sizeof(out)),
		  VOFF_E_VNET_GSO_NO_CSUM);
	pkt.csum = VOFF_CSUM_PARTIAL;
	CHECK_ERR(voff_vnet_encode(&tap, &pkt, out, 9), -ENOSPC);
	/* An Ethernet frame on a TUN channel */
	CHECK_ERR(voff_vnet_encode(&tun, &pkt, out, 10), VOFF_E_VNET_NOT_IP);
	pkt.l2_off = 0;
	CHECK_ERR(voff_vnet_encode(&tun, &pkt, out, 10), -EINVAL);
	for (int i = 0; i < 24; i++)
		CHECK_EQ(out[i], 0xEE);	/* nothing written */
	CHECK_EQ(voff_vnet_encode(&tap, &pkt, out, 10), 10);
}

static void t_encode_one_segment_is_plain(void)
{
	struct voff_pkt pkt;
	uint8_t out[10];
	static const uint8_t want[10] = { 1, 0, 0, 0, 0, 0, 34, 0, 16, 0 };

	ext_pkt(&pkt, mk(true, V4, TCP, 500));
	pkt.csum = VOFF_CSUM_PARTIAL;
	pkt.csum_start = 34;
	pkt.csum_offset = 16;
	pkt.gso_type = VOFF_GSO_TCPV4;
	pkt.gso_size = 1000;
	CHECK_EQ(voff_vnet_encode(&tap, &pkt, out, sizeof(out)), 10);
	CHECK_MEM_EQ(out, want, 10);
}

/*
 * Random accepted metadata survives encode then decode unchanged: GSO and
 * plain, TCP and UDP, v4 and v6, L2 and L3, every size and byte order.
 */
static void t_random_round_trip(void)
{
	for (int i = 0; i < 2000; i++) {
		uint64_t r = check_rand();
		bool l2 = r & 1, v6 = r & 2, udp = r & 4, gso = r & 8;
		static const uint8_t sizes[] = { 10, 12, 20, 24 };
		struct voff_vnet_cfg c = {
			.hdr_size = sizes[(r >> 4) & 3],
			.order = (uint8_t)((r >> 6) % 3),
			.mode = l2 ? VOFF_VNET_L2 : VOFF_VNET_L3,
		};
		size_t payload = (r >> 16) % 5000 + 1;
		uint16_t l4 = (uint16_t)((l2 ? 14 : 0) + (v6 ? 40 : 20));
		struct voff_pkt pkt, back;
		uint8_t out[24];

		ext_pkt(&pkt, mk(l2, v6 ? V6 : V4, udp ? UDP : TCP, payload));
		pkt.csum = VOFF_CSUM_PARTIAL;
		pkt.csum_start = l4;
		pkt.csum_offset = udp ? 6 : 16;
		if (gso) {
			pkt.gso_type = udp ? VOFF_GSO_UDP_L4 :
				       v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
			pkt.gso_size = (uint16_t)((r >> 32) % 1500 + 40);
		}
		CHECK_EQ(voff_vnet_encode(&c, &pkt, out, sizeof(out)),
			 c.hdr_size);
		ext_pkt(&back, pkt.len);
		CHECK_OK(voff_vnet_decode(&c, out, c.hdr_size, &back));
		CHECK_EQ(back.csum, VOFF_CSUM_PARTIAL);
		CHECK_EQ(back.csum_start, l4);
		CHECK_EQ(back.csum_offset, pkt.csum_offset);
		if (gso && payload > pkt.gso_size) {
			CHECK_EQ(back.gso_type, pkt.gso_type);
			CHECK_EQ(back.gso_size, pkt.gso_size);
			CHECK_EQ(back.gso_segs,
				 (payload + pkt.gso_size - 1) / pkt.gso_size);
			CHECK_EQ(back.hdr_len, l4 + (udp ? 8 : 20));
		} else {
			CHECK_EQ(back.gso_type, 0);
			CHECK_EQ(back.hdr_len, 0);
		}
	}
}

/*
 * struct rframe - what random_frame() built
 * @l4:		offset of the (inner) TCP/UDP header
 * @v6, @udp, @vxlan: outer IP version 6, UDP, a VXLAN tunnel (inner IPv4)
 */
struct rframe {
	uint16_t l4;
	bool v6, udp, vxlan;
};

/* A random frame into fbuf for @c's mode: TCP/UDP, v4/v6, or VXLAN. */
static size_t random_frame(const struct voff_vnet_cfg *c, uint64_t r,
			   struct rframe *f)
{
	bool l2 = c->mode == VOFF_VNET_L2;
	size_t payload = (r >> 8) % 4000;

	f->v6 = r & 1;
	f->udp = r & 2;
	f->vxlan = l2 && (r & 4);
	if (f->vxlan) {
		f->l4 = (uint16_t)(14 + (f->v6 ? 40 : 20) + 8 + 8 + 14 + 20);
		return mk_vxlan(f->v6 ? V6 : V4, V4, f->udp ? UDP : TCP,
				payload);
	}
	f->l4 = (uint16_t)((l2 ? 14 : 0) + (f->v6 ? 40 : 20));
	return mk(l2, f->v6 ? V6 : V4, f->udp ? UDP : TCP, payload);
}

/*
 * Random metadata for the frame @f: half the time what its headers call
 * for (a partial checksum at the L4 header, the matching GSO type or
 * none), otherwise anything, valid or not.
 */
static void random_meta(struct voff_pkt *pkt, uint64_t r,
			const struct rframe *f)
{
	static const uint32_t types[] = {
		0, VOFF_GSO_TCPV4, VOFF_GSO_TCPV6, VOFF_GSO_UDP_L4,
		VOFF_GSO_UDP, VOFF_GSO_TCPV4 | VOFF_GSO_TCP_ECN,
		VOFF_GSO_TCPV4 | VOFF_GSO_UDP_TUNNEL |
			VOFF_GSO_UDP_TUNNEL_CSUM,
		VOFF_GSO_UDP_L4 | VOFF_GSO_UDP_TUNNEL,
		VOFF_GSO_TCPV6 | VOFF_GSO_DODGY, VOFF_GSO_PARTIAL,
	};
	static const uint16_t offs[] = { 16, 6, 10, 0 };
	uint32_t t;

	pkt->hash = (r >> 32) & 1 ? (uint32_t)(r >> 33) : 0;
	pkt->gso_size = (uint16_t)((r >> 20) % 1500 + 1);
	if (r & 1) {
		pkt->csum = VOFF_CSUM_PARTIAL;
		pkt->csum_start = f->l4;
		pkt->csum_offset = f->udp ? 6 : 16;
		t = f->udp ? VOFF_GSO_UDP_L4 :
		    f->v6 && !f->vxlan ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
		if (f->vxlan)
			t |= VOFF_GSO_UDP_TUNNEL;
		pkt->gso_type = (r >> 1) & 1 ? t : 0;
	} else {
		pkt->csum = (uint8_t)((r >> 1) % 3);
		pkt->csum_start = (r >> 3) & 1 ? f->l4 :
						 (uint16_t)((r >> 4) % 128);
		pkt->csum_offset = offs[(r >> 10) & 3];
		pkt->gso_type =
			types[(r >> 12) % (sizeof(types) / sizeof(types[0]))];
	}
	if (!pkt->gso_type)
		pkt->gso_size = 0;
}

/*
 * voff_vnet_encode_parsed() over the frame's own parse gives what
 * voff_vnet_encode() gives, byte for byte and error for error, for random
 * metadata (refused or not) on every kind of channel.
 */
static void t_encode_parsed_same(void)
{
	static const struct voff_vnet_cfg chans[] = {
		{ .hdr_size = 10 },
		{ .hdr_size = 12, .mode = VOFF_VNET_L3 },
		{ .hdr_size = 24, .tunnel = true },
		{ .hdr_size = 20, .dir = VOFF_VNET_RX },
		{ .hdr_size = 24, .dir = VOFF_VNET_RX, .tunnel = true,
		  .max_segs = 8 },
	};
	unsigned int ok = 0, gso = 0;

	for (int i = 0; i < 4000; i++) {
		uint64_t r = check_rand();
		const struct voff_vnet_cfg *c = &chans[r % 5];
		struct voff_parsed p;
		struct voff_pkt pkt;
		uint8_t a[24], b[24];
		struct rframe f;
		int ra, rb;

		ext_pkt(&pkt, random_frame(c, r >> 3, &f));
		random_meta(&pkt, check_rand(), &f);
		CHECK_OK(voff_parse(fbuf, pkt.len,
				    c->mode == VOFF_VNET_L2 ? VOFF_PARSE_ETH :
							      VOFF_PARSE_IP,
				    &p));
		memset(a, 0xEE, sizeof(a));
		memset(b, 0xEE, sizeof(b));
		ra = voff_vnet_encode(c, &pkt, a, sizeof(a));
		rb = voff_vnet_encode_parsed(c, &pkt, &p, b, sizeof(b));
		CHECK_ERR(rb, ra);
		CHECK_MEM_EQ(a, b, sizeof(a));
		ok += ra > 0;
		gso += ra > 0 && voff_pkt_is_gso(&pkt);
	}
	/* Both verdicts were met often enough to mean something. */
	CHECK_GT(ok, 1000);
	CHECK_GT(gso, 400);
}

/* A parse that cannot be of the frame as the channel sees it is refused. */
static void t_encode_parsed_refuses(void)
{
	struct voff_parsed p;
	struct voff_pkt pkt;
	uint8_t out[10];
	size_t len = mk(true, V4, TCP, 100);

	memset(out, 0xEE, sizeof(out));
	ext_pkt(&pkt, len);
	pkt.csum = VOFF_CSUM_PARTIAL;
	pkt.csum_start = 34;
	pkt.csum_offset = 16;
	CHECK_OK(voff_parse(fbuf, len, VOFF_PARSE_ETH, &p));
	/* An Ethernet parse on a TUN channel */
	CHECK_ERR(voff_vnet_encode_parsed(&tun, &pkt, &p, out, sizeof(out)),
		  -EINVAL);
	/* A parse of a longer frame */
	pkt.len = p.l3_end - 1;
	CHECK_ERR(voff_vnet_encode_parsed(&tap, &pkt, &p, out, sizeof(out)),
		  -EINVAL);
	for (size_t i = 0; i < sizeof(out); i++)
		CHECK_EQ(out[i], 0xEE);
	/* An IP parse on a TAP channel */
	len = mk(false, V4, TCP, 100);
	ext_pkt(&pkt, len);
	CHECK_OK(voff_parse(fbuf, len, VOFF_PARSE_IP, &p));
	CHECK_ERR(voff_vnet_encode_parsed(&tap, &pkt, &p, out, sizeof(out)),
		  -EINVAL);
	pkt.csum = VOFF_CSUM_PARTIAL;
	pkt.csum_start = 20;
	pkt.csum_offset = 16;
	CHECK_EQ(voff_vnet_encode_parsed(&tun, &pkt, &p, out, sizeof(out)), 10);
	/* The push variant writes the same header into the headroom. */
	{
		static uint8_t room[512];
		uint8_t want[10];
		struct voff_pkt q;

		memcpy(want, out, sizeof(want));
		CHECK_OK(voff_pkt_init_ext(&q, room, sizeof(room), 64,
					   (uint32_t)len));
		memcpy(voff_pkt_data(&q), fbuf, len);
		q.csum = VOFF_CSUM_PARTIAL;
		q.csum_start = 20;
		q.csum_offset = 16;
		CHECK_EQ(voff_vnet_pkt_push_parsed(&tun, &q, &p), 10);
		CHECK_MEM_EQ(voff_pkt_data(&q), want, sizeof(want));
		CHECK_EQ(q.csum_start, 30);
	}
}

static void t_err_names(void)
{
	CHECK_STR_EQ(voff_err_name(VOFF_E_VNET_TCP_CSUM_OFFSET),
		     "vnet_tcp_csum_offset");
	CHECK_STR_EQ(voff_err_name(VOFF_E_VNET_HASH_REPORT),
		     "vnet_hash_report");
	CHECK(voff_err_is_voff(VOFF_E_VNET_TRUNC));
}

CHECK_MAIN(CHECK_TEST(t_wire_layout), CHECK_TEST(t_round_trip_le),
	   CHECK_TEST(t_round_trip_be), CHECK_TEST(t_round_trip_native),
	   CHECK_TEST(t_codec_sizes), CHECK_TEST(t_cfg_check),
	   CHECK_TEST(t_plain_no_offload), CHECK_TEST(t_plain_garbage_frame),
	   CHECK_TEST(t_plain_unparsed),
	   CHECK_TEST(t_csum_partial_tcp4), CHECK_TEST(t_csum_partial_udp6),
	   CHECK_TEST(t_tso4_accepted), CHECK_TEST(t_tso6_accepted),
	   CHECK_TEST(t_uso_accepted), CHECK_TEST(t_gso_fits_one_segment),
	   CHECK_TEST(t_tcp_options_hdr_len), CHECK_TEST(t_data_valid_rx),
	   CHECK_TEST(t_hash_rx), CHECK_TEST(t_pkt_pull),
	   CHECK_TEST(t_pkt_pull_parsed),
	   CHECK_TEST(t_rej_flags), CHECK_TEST(t_rej_gso_type),
	   CHECK_TEST(t_rej_gso_ecn), CHECK_TEST(t_rej_gso_size),
	   CHECK_TEST(t_rej_hdr_len), CHECK_TEST(t_rej_frame_short),
	   CHECK_TEST(t_rej_csum_bounds), CHECK_TEST(t_rej_csum_not_l4),
	   CHECK_TEST(t_rej_csum_offset), CHECK_TEST(t_rej_tcp_csum_offset),
	   CHECK_TEST(t_rej_gso_no_csum), CHECK_TEST(t_rej_gso_proto),
	   CHECK_TEST(t_rej_gso_padded), CHECK_TEST(t_rej_uso_csum_offset),
	   CHECK_TEST(t_rej_uso_segs), CHECK_TEST(t_rej_gso_segs),
	   CHECK_TEST(t_parse_error_with_offload),
	   CHECK_TEST(t_tnl_accepted), CHECK_TEST(t_tnl_geneve_uso),
	   CHECK_TEST(t_rej_tnl), CHECK_TEST(t_pkt_push_offset_range),
	   CHECK_TEST(t_rej_tnl_inner_padded),
	   CHECK_TEST(test_cve_2024_43817_gso_without_l4),
	   CHECK_TEST(test_cve_2024_43817_small_remainder_accepted),
	   CHECK_TEST(test_cve_2024_43897_tcp_offset_not_16),
	   CHECK_TEST(test_cve_2024_43897_uso_offset_not_6),
	   CHECK_TEST(test_cve_2024_43897_csum_start_not_l4),
	   CHECK_TEST(test_fix_2024_csum_start_too_small),
	   CHECK_TEST(test_fix_2023_uso_strict),
	   CHECK_TEST(test_fix_uso_dodgy_segs_exact),
	   CHECK_TEST(test_fix_2021_ufo_counts_udp_header),
	   CHECK_TEST(test_fix_2021_ethertype_vs_gso_type),
	   CHECK_TEST(test_cve_2024_41090_short_frame),
	   CHECK_TEST(test_cve_2026_90063_gso_segs_overflow),
	   CHECK_TEST(test_cve_2026_74684_no_state_before_validation),
	   CHECK_TEST(test_fix_toctou_header_copied),
	   CHECK_TEST(test_fix_ipv6_gso_malformed_ext),
	   CHECK_TEST(test_cve_2026_98853_nested_tunnels),
	   CHECK_TEST(t_wg_virtio_read_tcp4), CHECK_TEST(t_wg_virtio_read_tcp6),
	   CHECK_TEST(t_wg_virtio_read_udp4), CHECK_TEST(t_wg_virtio_read_udp6),
	   CHECK_TEST(t_encode_tso4_bytes), CHECK_TEST(t_encode_rx_bytes),
	   CHECK_TEST(t_encode_tunnel_bytes), CHECK_TEST(t_encode_refuses),
	   CHECK_TEST(t_encode_one_segment_is_plain),
	   CHECK_TEST(t_random_round_trip), CHECK_TEST(t_encode_parsed_same),
	   CHECK_TEST(t_encode_parsed_refuses), CHECK_TEST(t_err_names))
