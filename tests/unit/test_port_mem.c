/* SPDX-License-Identifier: MIT */
/*
 * test_port_mem.c - the port front end through the in-memory pair: frames
 * and offload metadata cross byte for byte, the transmit contract drops
 * what a port does not take, invalid virtio_net_hdr frames are dropped and
 * counted by reason, and no packet leaks
 */
#include <errno.h>
#include <string.h>

#include <voff/err.h>
#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/pkt.h>
#include <voff/parse.h>
#include <voff/port.h>
#include <voff/xmit.h>

#include "check.h"
#include "frames.h"
#include "port_int.h"
#include "tso.h"

static struct voff_pool *pool_new(unsigned int n)
{
	struct voff_pool *pool;

	CHECK_OK(voff_pool_new(&pool, n, VOFF_PKT_SUPER_ROOM));
	return pool;
}

/* tso_tcp4_frame() of @payload bytes, as a packet of @pool. */
static struct voff_pkt *tcp4(struct voff_pool *pool, size_t payload,
			     uint8_t seed)
{
	static uint8_t buf[70000];
	struct voff_pkt *pkt;
	size_t len = tso_tcp4_frame(buf, sizeof(buf), payload, seed);

	CHECK(len > 0);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, buf, (uint32_t)len));
	return pkt;
}

static void pair(struct voff_port **a, struct voff_port **b,
		 const struct voff_port_cfg *cfg)
{
	CHECK_OK(voff_port_mem_pair(a, b, cfg));
}

static void send1(struct voff_port *p, struct voff_pkt *pkt, int want)
{
	struct voff_batch b;

	voff_batch_init(&b);
	CHECK_OK(voff_batch_add(&b, pkt));
	CHECK_EQ(voff_port_tx(p, &b), want);
	CHECK_EQ(b.n, 0);
}

static void t_plain_frames_cross(void)
{
	struct voff_pool *pool = pool_new(16);
	struct voff_port *a, *b;
	struct voff_port_stats st;
	struct voff_batch in, out;
	uint8_t copy[3][2000];
	uint32_t len[3];

	pair(&a, &b, &(struct voff_port_cfg){ .limits.mtu = 1500 });
	voff_batch_init(&out);
	for (int i = 0; i < 3; i++) {
		struct voff_pkt *pkt = tcp4(pool, 100 + 400 * (size_t)i,
					    (uint8_t)i);

		len[i] = pkt->len;
		memcpy(copy[i], voff_pkt_data(pkt), pkt->len);
		CHECK_OK(voff_batch_add(&out, pkt));
	}
	CHECK_EQ(voff_port_tx(a, &out), 3);
	voff_batch_init(&in);
	CHECK_EQ(voff_port_rx(b, pool, &in), 3);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(in.pkts[i]->len, len[i]);
		CHECK_MEM_EQ(voff_pkt_data(in.pkts[i]), copy[i], len[i]);
		CHECK_GE(voff_pkt_headroom(in.pkts[i]), VOFF_PKT_HEADROOM);
		CHECK_EQ(in.pkts[i]->csum, VOFF_CSUM_NONE);
		CHECK_EQ(in.pkts[i]->gso_type, 0);
	}
	voff_port_stats(a, &st);
	CHECK_EQ(st.tx_packets, 3);
	CHECK_EQ(st.tx_bytes, len[0] + len[1] + len[2]);
	CHECK_EQ(st.tx_dropped, 0);
	voff_port_stats(b, &st);
	CHECK_EQ(st.rx_packets, 3);
	CHECK_EQ(st.rx_bytes, len[0] + len[1] + len[2]);
	CHECK_EQ(voff_port_rx(b, pool, &in), 0);	/* nothing more */
	voff_batch_free(&in);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_super_packet_metadata_crosses(void)
{
	struct voff_pool *pool = pool_new(8);
	struct voff_port_cfg cfg = { .want = VOFF_TUN_F_TCP,
				     .tx_off = VOFF_TUN_F_TCP,
				     .limits.mtu = 1500 };
	struct voff_port *a, *b;
	struct voff_port_stats st;
	struct voff_batch in;
	struct voff_pkt *pkt, *r;
	uint32_t len;

	pair(&a, &b, &cfg);
	pkt = tcp4(pool, 3000, 7);
	tso_mark(pkt, 1000);
	len = pkt->len;
	send1(a, pkt, 1);
	voff_batch_init(&in);
	CHECK_EQ(voff_port_rx(b, pool, &in), 1);
	r = in.pkts[0];
	CHECK_EQ(r->len, len);
	CHECK_EQ(r->csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(r->csum_start, 34);
	CHECK_EQ(r->csum_offset, 16);
	CHECK_EQ(r->gso_type, VOFF_GSO_TCPV4);
	CHECK_EQ(r->gso_size, 1000);
	CHECK_EQ(r->gso_segs, 3);
	CHECK_EQ(r->hdr_len, 54);
	CHECK_EQ(voff_pkt_headroom(r), VOFF_PKT_HEADROOM);
	voff_port_stats(a, &st);
	CHECK_EQ(st.tx_gso, 1);
	CHECK_EQ(st.tx_bytes, len);
	voff_port_stats(b, &st);
	CHECK_EQ(st.rx_gso, 1);
	voff_batch_free(&in);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_tx_contract_drops_by_reason(void)
{
	struct voff_pool *pool = pool_new(16);
	struct voff_port_cfg cfg = { .want = VOFF_TUN_F_TCP,
				     .tx_off = VOFF_TUN_F_CSUM |
					       VOFF_TUN_F_TSO4,
				     .limits = { .mtu = 1500,
						 .gso_max_size = 8000,
						 .gso_max_segs = 4 } };
	struct voff_port_drop d[8];
	struct voff_port *a, *b;
	struct voff_pkt *pkt;

	pair(&a, &b, &cfg);
	pkt = tcp4(pool, 1600, 0);		/* plain above the MTU */
	send1(a, pkt, 0);
	pkt = tcp4(pool, 9000, 0);		/* above gso_max_size */
	tso_mark(pkt, 1000);
	send1(a, pkt, 0);
	pkt = tcp4(pool, 5000, 0);		/* 5 segments > 4 */
	tso_mark(pkt, 1000);
	send1(a, pkt, 0);
	pkt = tcp4(pool, 3000, 0);		/* ECN not negotiated */
	tso_mark(pkt, 1000);
	pkt->gso_type |= VOFF_GSO_TCP_ECN;
	send1(a, pkt, 0);
	pkt = tcp4(pool, 3000, 0);		/* fits: sent */
	tso_mark(pkt, 1000);
	send1(a, pkt, 1);
	pkt = tcp4(pool, 1460, 0);		/* exactly the MTU: sent */
	send1(a, pkt, 1);

	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, VOFF_E_PORT_MTU), 1);
	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, VOFF_E_PORT_GSO_SIZE),
		 1);
	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, VOFF_E_PORT_GSO_SEGS),
		 1);
	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, VOFF_E_PORT_OFFLOAD),
		 1);
	CHECK_EQ(voff_port_drops(a, VOFF_PORT_TX, d, 8), 4);
	for (int i = 0; i < 4; i++) {
		CHECK_STR_EQ(d[i].name, voff_err_name(d[i].err));
		CHECK_EQ(d[i].count, 1);
	}
	CHECK_EQ(voff_port_drops(a, VOFF_PORT_RX, NULL, 0), 0);
	/* A code with no counter of its own lands in the catch-all, whose
	 * name is a word (it becomes a counter name), not "?". */
	voff__port_count_drop(a, VOFF_PORT_RX, -1000000);
	CHECK_EQ(voff_port_drops(a, VOFF_PORT_RX, d, 8), 1);
	CHECK_STR_EQ(d[0].name, "unknown");
	CHECK_EQ(d[0].count, 1);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* A frame with a hand-written virtio_net_hdr in front. */
struct crafted {
	uint8_t flags, gso_type;
	uint16_t hdr_len, gso_size, csum_start, csum_offset;
	size_t payload;
	bool udp;
	size_t cut;		/* frame length override when non-zero */
};

static size_t craft(const struct crafted *c, uint8_t *out, size_t cap)
{
	struct tf b;
	size_t len;

	tf_init(&b, out + 10, cap - 10);
	tf_eth(&b);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	if (c->udp)
		tf_udp(&b, &(struct tf_l4){ 0 });
	else
		tf_tcp(&b, &(struct tf_l4){ .flags = TF_ACK });
	tf_payload(&b, c->payload, 1);
	len = tf_finish(&b);
	CHECK(len > 0);
	if (c->cut)
		len = c->cut;
	out[0] = c->flags;
	out[1] = c->gso_type;
	out[2] = (uint8_t)c->hdr_len;
	out[3] = (uint8_t)(c->hdr_len >> 8);
	out[4] = (uint8_t)c->gso_size;
	out[5] = (uint8_t)(c->gso_size >> 8);
	out[6] = (uint8_t)c->csum_start;
	out[7] = (uint8_t)(c->csum_start >> 8);
	out[8] = (uint8_t)c->csum_offset;
	out[9] = (uint8_t)(c->csum_offset >> 8);
	return len + 10;
}

static void t_invalid_vnet_headers_dropped_and_counted(void)
{
	static const struct crafted bad[] = {
		/* unknown gso_type */
		{ 1, 2, 54, 100, 34, 16, 1000, false, 0 },
		/* TCP GSO with gso_size 0 */
		{ 1, 1, 54, 0, 34, 16, 1000, false, 0 },
		/* gso_size 0xFFFF */
		{ 1, 1, 54, 0xFFFF, 34, 16, 1000, false, 0 },
		/* TCP GSO, csum_offset not 16 */
		{ 1, 1, 54, 100, 34, 10, 1000, false, 0 },
		/* csum_start + offset past the frame */
		{ 1, 0, 0, 0, 1200, 16, 1000, false, 0 },
		/* USO with 200 segments */
		{ 1, 5, 42, 10, 34, 6, 2000, true, 0 },
		/* USO without NEEDS_CSUM */
		{ 0, 5, 42, 100, 34, 6, 2000, true, 0 },
		/* ECN bit on UDP */
		{ 1, 0x85, 42, 100, 34, 6, 2000, true, 0 },
		/* TAP frame shorter than Ethernet */
		{ 0, 0, 0, 0, 0, 0, 10, false, 13 },
		/* hdr_len beyond the frame */
		{ 1, 1, 4000, 100, 34, 16, 1000, false, 0 },
		/* a flag voff does not know */
		{ 0x40, 0, 0, 0, 0, 0, 100, false, 0 },
	};
	const size_t n = sizeof(bad) / sizeof(bad[0]);
	struct voff_pool *pool = pool_new(8), *scratch = pool_new(1);
	struct voff_port_cfg cfg = { .want = VOFF_TUN_F_ALL,
				     .tx_off = VOFF_TUN_F_ALL };
	static uint8_t buf[4096];
	struct voff_port_stats st;
	struct voff_port *a, *b;
	struct voff_batch in;
	uint64_t total = 0;

	pair(&a, &b, &cfg);
	for (size_t i = 0; i < n; i++) {
		size_t len = craft(&bad[i], buf, sizeof(buf));
		struct voff_pkt *probe;
		int want;

		/* The reason is whatever the port's one decode site says. */
		CHECK_OK(voff_pkt_alloc(scratch, &probe));
		CHECK_OK(voff_pkt_set_data(probe, buf, (uint32_t)len));
		want = voff__port_vnet_pull(b, probe);
		voff_pkt_free(probe);
		CHECK_MSG(want < 0, "case %zu accepted", i);
		CHECK_OK(voff_port_mem_inject(b, buf, len));
		voff_batch_init(&in);
		CHECK_EQ(voff_port_rx(b, pool, &in), 0);
		CHECK_EQ(voff_port_drop_count(b, VOFF_PORT_RX, want) >= 1, 1);
	}
	voff_port_stats(b, &st);
	CHECK_EQ(st.rx_dropped, n);
	CHECK_EQ(st.rx_packets, 0);
	{
		struct voff_port_drop d[16];
		unsigned int k = voff_port_drops(b, VOFF_PORT_RX, d, 16);

		for (unsigned int i = 0; i < k && i < 16; i++)
			total += d[i].count;
	}
	CHECK_EQ(total, n);
	/* A good frame after them still passes. */
	{
		struct crafted good = { 1, 1, 54, 500, 34, 16, 1200, false, 0 };
		size_t len = craft(&good, buf, sizeof(buf));

		CHECK_OK(voff_port_mem_inject(b, buf, len));
		voff_batch_init(&in);
		CHECK_EQ(voff_port_rx(b, pool, &in), 1);
		CHECK_EQ(in.pkts[0]->gso_segs, 3);
		CHECK_EQ(in.pkts[0]->len, len - 10);
		voff_batch_free(&in);
	}
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
	voff_pool_free(scratch);
}

static void t_limits_changed_at_run_time(void)
{
	struct voff_pool *pool = pool_new(8);
	struct voff_port_cfg cfg = { .want = VOFF_TUN_F_TCP,
				     .tx_off = VOFF_TUN_F_TCP,
				     .limits.mtu = 1500 };
	struct voff_port *a, *b;
	struct voff_port_info in;
	struct voff_pkt *pkt;

	pair(&a, &b, &cfg);
	pkt = tcp4(pool, 9000, 0);
	tso_mark(pkt, 1000);
	send1(a, pkt, 1);
	CHECK_OK(voff_port_set_limits(a, &(struct voff_limits){
					     .gso_max_size = 8000,
					     .gso_max_segs = 4 }));
	voff_port_info(a, &in);
	CHECK_EQ(in.limits.mtu, 1500);		/* left alone */
	CHECK_EQ(in.limits.gso_max_size, 8000);
	CHECK_EQ(in.tx_max_len, 8000);
	pkt = tcp4(pool, 9000, 0);
	tso_mark(pkt, 1000);
	send1(a, pkt, 0);
	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, VOFF_E_PORT_GSO_SIZE),
		 1);
	CHECK_EQ(voff_port_set_limits(a, NULL), -EINVAL);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* What voff_xmit_decide() says about @pkt leaving through @port. */
static int decide(const struct voff_port *port, const struct voff_pkt *pkt)
{
	struct voff_xmit_result r;
	struct voff_xmit_info xi;
	struct voff_feat_dev dev;
	struct voff_parsed p;
	struct voff_limits lim;

	CHECK_OK(voff_parse(voff_pkt_data(pkt), pkt->len, VOFF_PARSE_ETH, &p));
	CHECK_OK(voff_xmit_info_from_parsed(pkt, &p, &xi));
	voff_port_egress(port, &dev, &lim);
	return voff_xmit_decide(pkt, &xi, &dev, &lim, 0, &r);
}

static void t_egress_view_drives_the_transmit_decision(void)
{
	struct voff_pool *pool = pool_new(8);
	struct voff_port *a, *b, *pa, *pb;
	struct voff_feat_dev dev;
	struct voff_limits lim;
	struct voff_pkt *pkt;

	pair(&a, &b, &(struct voff_port_cfg){ .tx_off = VOFF_TUN_F_TCP,
					      .limits.gso_max_size = 8000 });
	pair(&pa, &pb, &(struct voff_port_cfg){ .flags = VOFF_PORT_F_NO_VNET });
	voff_port_egress(a, &dev, &lim);
	CHECK(dev.active & VOFF_F_TSO);
	CHECK(dev.active & VOFF_F_HW_CSUM);
	CHECK(!(dev.active & VOFF_F_GSO_UDP_L4));
	CHECK_EQ(lim.gso_max_size, 8000);
	CHECK_EQ(lim.gso_max_segs, 65535);	/* the kernel's default */

	pkt = tcp4(pool, 3000, 0);
	tso_mark(pkt, 1000);
	CHECK_EQ(decide(a, pkt), VOFF_XMIT_PASS_GSO);
	CHECK_EQ(decide(pa, pkt), VOFF_XMIT_SEGMENT);	/* plain frames only */
	voff_pkt_free(pkt);
	pkt = tcp4(pool, 9000, 0);			/* over gso_max_size */
	tso_mark(pkt, 1000);
	CHECK_EQ(decide(a, pkt), VOFF_XMIT_RESEGMENT);
	voff_pkt_free(pkt);
	pkt = tcp4(pool, 100, 0);
	pkt->csum = VOFF_CSUM_PARTIAL;
	pkt->csum_start = 34;
	pkt->csum_offset = 16;
	CHECK_EQ(decide(a, pkt), VOFF_XMIT_PASS_CSUM);
	CHECK_EQ(decide(pa, pkt), VOFF_XMIT_CSUM_SW);
	voff_pkt_free(pkt);
	voff_port_close(a);
	voff_port_close(b);
	voff_port_close(pa);
	voff_port_close(pb);
	voff_pool_free(pool);
}

static void t_full_ring_drops_eagain(void)
{
	struct voff_pool *pool = pool_new(16);
	struct voff_port *a, *b;
	struct voff_batch out, in;

	pair(&a, &b, &(struct voff_port_cfg){ .ring = 4 });
	voff_batch_init(&out);
	for (int i = 0; i < 6; i++)
		CHECK_OK(voff_batch_add(&out, tcp4(pool, 10, 0)));
	CHECK_EQ(voff_port_tx(a, &out), 4);
	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, -EAGAIN), 2);
	CHECK_EQ(voff_pool_in_use(pool), 4);	/* queued in the ring */
	voff_batch_init(&in);
	CHECK_EQ(voff_port_rx(b, pool, &in), 4);
	CHECK_EQ(voff_pool_in_use(pool), 4);	/* now the receiver's */
	voff_batch_free(&in);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static void t_empty_pool_keeps_frames_queued(void)
{
	struct voff_pool *txp = pool_new(8), *rxp = pool_new(1);
	struct voff_port *a, *b;
	struct voff_batch out, in;

	pair(&a, &b, &(struct voff_port_cfg){ 0 });
	voff_batch_init(&out);
	for (int i = 0; i < 3; i++)
		CHECK_OK(voff_batch_add(&out, tcp4(txp, 10, (uint8_t)i)));
	CHECK_EQ(voff_port_tx(a, &out), 3);
	voff_batch_init(&in);
	CHECK_EQ(voff_port_rx(b, rxp, &in), 1);
	CHECK_EQ(voff_port_rx(b, rxp, &in), -ENOBUFS);
	voff_batch_free(&in);
	CHECK_EQ(voff_port_rx(b, rxp, &in), 1);
	voff_batch_free(&in);
	CHECK_EQ(voff_port_rx(b, rxp, &in), 1);
	voff_batch_free(&in);
	CHECK_EQ(voff_port_rx(b, rxp, &in), 0);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(txp), 0);
	voff_pool_free(txp);
	voff_pool_free(rxp);
}

static void t_frame_bigger_than_pool_buffer_dropped(void)
{
	struct voff_pool *big = pool_new(4), *small;
	struct voff_port *a, *b;
	struct voff_batch in;

	CHECK_OK(voff_pool_new(&small, 4, 2048));
	pair(&a, &b, &(struct voff_port_cfg){ 0 });
	send1(a, tcp4(big, 5000, 0), 1);
	send1(a, tcp4(big, 100, 0), 1);
	voff_batch_init(&in);
	CHECK_EQ(voff_port_rx(b, small, &in), 1);
	CHECK_EQ(in.pkts[0]->len, 154);
	CHECK_EQ(voff_port_drop_count(b, VOFF_PORT_RX, VOFF_E_PORT_TRUNC), 1);
	voff_batch_free(&in);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(big), 0);
	CHECK_EQ(voff_pool_in_use(small), 0);
	voff_pool_free(big);
	voff_pool_free(small);
}

static void t_close_frees_queued_frames(void)
{
	struct voff_pool *pool = pool_new(8);
	struct voff_port *a, *b;
	struct voff_batch out;

	pair(&a, &b, &(struct voff_port_cfg){ 0 });
	voff_batch_init(&out);
	for (int i = 0; i < 5; i++)
		CHECK_OK(voff_batch_add(&out, tcp4(pool, 10, 0)));
	CHECK_EQ(voff_port_tx(a, &out), 5);
	CHECK_OK(voff_port_mem_inject(a, "0123456789abcdefghijklmn", 24));
	voff_port_close(b);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_port_close(a);
	voff_port_close(NULL);
	voff_pool_free(pool);
}

static void t_negotiation_follows_pairing_rules(void)
{
	static const struct {
		unsigned int want, got;
	} cases[] = {
		{ VOFF_TUN_F_TSO4, 0 },
		{ VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO_ECN,
		  VOFF_TUN_F_CSUM },
		{ VOFF_TUN_F_CSUM | VOFF_TUN_F_USO4, VOFF_TUN_F_CSUM },
		{ VOFF_TUN_F_CSUM | VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6,
		  VOFF_TUN_F_CSUM | VOFF_TUN_F_USO4 |
			  VOFF_TUN_F_USO6 },
		{ VOFF_TUN_F_ALL,
		  VOFF_TUN_F_ALL & ~(VOFF_TUN_F_UDP_TUNNEL_GSO |
				     VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM) },
		{ VOFF_TUN_F_TCP, VOFF_TUN_F_TCP },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct voff_port *a, *b;
		struct voff_port_info in;

		pair(&a, &b, &(struct voff_port_cfg){ .want = cases[i].want });
		voff_port_info(b, &in);
		CHECK_EQ(in.want, cases[i].want);
		CHECK_EQ(in.rx_off, cases[i].got);
		CHECK_EQ(in.refused, cases[i].want & ~cases[i].got);
		CHECK_EQ(in.vnet_hdr_len, 10);
		CHECK_EQ(in.kind, VOFF_PORT_MEM);
		CHECK_EQ(in.features & VOFF_F_TSO,
			 in.rx_off & VOFF_TUN_F_TSO4 ? VOFF_F_TSO : 0);
		CHECK_EQ(voff_port_fd(b), -1);
		voff_port_close(a);
		voff_port_close(b);
	}
}

/* A judge refusing any set with a bit of @ctx's mask alone (pairs). */
static int pairs_accept(unsigned int off, void *ctx)
{
	const unsigned int *pair = ctx;

	return (off & *pair) && (off & *pair) != *pair ? -EINVAL : 0;
}

static int calls;

static int count_accept(unsigned int off, void *ctx)
{
	calls++;
	return pairs_accept(off, ctx);
}

/*
 * The probe against a brute-force twin over every wanted set: the result
 * is accepted, as large as the largest accepted subset, and the smallest
 * such subset numerically (the basic low bits kept).
 */
static void t_probe_finds_largest_accepted_subset(void)
{
	for (unsigned int pair = 1; pair < 0x200; pair = pair * 3 + 1) {
		for (unsigned int want = 0; want < 0x200; want++) {
			unsigned int got, best = 0;
			int best_n = -1;

			for (unsigned int s = 0; s < 0x200; s++) {
				int n = __builtin_popcount(s);

				if ((s & ~want) || pairs_accept(s, &pair))
					continue;
				if (n > best_n) {
					best_n = n;
					best = s;
				}
			}
			calls = 0;
			CHECK_OK(voff__port_off_probe(want, count_accept, &pair,
						      &got));
			CHECK_EQ(got, best);
			CHECK_LE(calls, 513);
		}
	}
}

static void t_tunnel_offloads_need_24_byte_header(void)
{
	struct voff_port *a, *b;
	struct voff_port_info in;

	pair(&a, &b, &(struct voff_port_cfg){ .want = VOFF_TUN_F_ALL,
					      .tx_off = VOFF_TUN_F_ALL,
					      .vnet_hdr_len = 24 });
	voff_port_info(a, &in);
	CHECK_EQ(in.rx_off, VOFF_TUN_F_ALL);
	CHECK_EQ(in.tx_off, VOFF_TUN_F_ALL);
	CHECK_EQ(in.refused, 0);
	voff_port_close(a);
	voff_port_close(b);
	pair(&a, &b, &(struct voff_port_cfg){ .want = VOFF_TUN_F_ALL,
					      .tx_off = VOFF_TUN_F_ALL,
					      .vnet_hdr_len = 12 });
	voff_port_info(a, &in);
	CHECK_EQ(in.refused, PORT_TNL_OFF);
	CHECK_EQ(in.tx_off, VOFF_TUN_F_ALL & ~PORT_TNL_OFF);
	voff_port_close(a);
	voff_port_close(b);
}

static void t_offload_names(void)
{
	char buf[128];

	CHECK_STR_EQ(voff_tun_flag_name(VOFF_TUN_F_TSO6), "tso6");
	CHECK_STR_EQ(voff_tun_flag_name(3), "?");
	CHECK_EQ(voff_tun_flags_format(VOFF_TUN_F_TCP, buf, sizeof(buf)),
		 (int)strlen("csum,tso4,tso6,tso_ecn"));
	CHECK_STR_EQ(buf, "csum,tso4,tso6,tso_ecn");
	CHECK_EQ(voff_tun_flags_format(0, buf, sizeof(buf)), 1);
	CHECK_STR_EQ(buf, "-");
	CHECK_EQ(voff_tun_flags_format(VOFF_TUN_F_TCP, buf, 6),
		 (int)strlen("csum,tso4,tso6,tso_ecn"));
	CHECK_STR_EQ(buf, "csum,");
	CHECK_STR_EQ(voff_port_kind_name(VOFF_PORT_TUN), "tun");
	CHECK_STR_EQ(voff_port_kind_name(VOFF_PORT__KIND_COUNT), "?");
	CHECK_STR_EQ(voff_err_name(VOFF_E_PORT_GSO_SEGS), "port_gso_segs");
}

static void t_no_vnet_port_carries_no_offloads(void)
{
	struct voff_pool *pool = pool_new(8);
	struct voff_port *a, *b;
	struct voff_port_info in;
	struct voff_batch rx;
	struct voff_pkt *pkt;

	pair(&a, &b, &(struct voff_port_cfg){ .flags = VOFF_PORT_F_NO_VNET,
					      .want = VOFF_TUN_F_TCP,
					      .tx_off = VOFF_TUN_F_TCP });
	voff_port_info(a, &in);
	CHECK_EQ(in.vnet_hdr_len, 0);
	CHECK_EQ(in.tx_off, 0);
	CHECK_EQ(in.refused, VOFF_TUN_F_TCP);
	pkt = tcp4(pool, 100, 0);
	pkt->csum = VOFF_CSUM_PARTIAL;
	pkt->csum_start = 34;
	pkt->csum_offset = 16;
	send1(a, pkt, 0);
	CHECK_EQ(voff_port_drop_count(a, VOFF_PORT_TX, VOFF_E_PORT_OFFLOAD), 1);
	pkt = tcp4(pool, 100, 0);
	pkt->csum = VOFF_CSUM_VALID;	/* metadata a plain port loses */
	send1(a, pkt, 1);
	voff_batch_init(&rx);
	CHECK_EQ(voff_port_rx(b, pool, &rx), 1);
	CHECK_EQ(rx.pkts[0]->csum, VOFF_CSUM_NONE);
	CHECK_EQ(rx.pkts[0]->len, 154);
	voff_batch_free(&rx);
	voff_port_close(a);
	voff_port_close(b);
	voff_pool_free(pool);
}

static void t_bad_config_refused(void)
{
	struct voff_port *a = NULL, *b = NULL;

	CHECK_EQ(voff_port_mem_pair(&a, &b, &(struct voff_port_cfg){
					     .vnet_hdr_len = 11 }),
		 -EINVAL);
	CHECK_EQ(voff_port_mem_pair(&a, &b, &(struct voff_port_cfg){
					     .want = 0x200 }),
		 -EINVAL);
	CHECK_EQ(voff_port_open(&a, &(struct voff_port_cfg){
					     .kind = VOFF_PORT_MEM }),
		 -EINVAL);
	CHECK_EQ(voff_port_open(&a, &(struct voff_port_cfg){
					     .kind = VOFF_PORT_TAP,
					     .netns = "a/b" }),
		 -EINVAL);
	CHECK(a == NULL && b == NULL);
}

CHECK_MAIN(CHECK_TEST(t_plain_frames_cross),
	   CHECK_TEST(t_super_packet_metadata_crosses),
	   CHECK_TEST(t_tx_contract_drops_by_reason),
	   CHECK_TEST(t_invalid_vnet_headers_dropped_and_counted),
	   CHECK_TEST(t_limits_changed_at_run_time),
	   CHECK_TEST(t_egress_view_drives_the_transmit_decision),
	   CHECK_TEST(t_full_ring_drops_eagain),
	   CHECK_TEST(t_empty_pool_keeps_frames_queued),
	   CHECK_TEST(t_frame_bigger_than_pool_buffer_dropped),
	   CHECK_TEST(t_close_frees_queued_frames),
	   CHECK_TEST(t_negotiation_follows_pairing_rules),
	   CHECK_TEST(t_probe_finds_largest_accepted_subset),
	   CHECK_TEST(t_tunnel_offloads_need_24_byte_header),
	   CHECK_TEST(t_offload_names),
	   CHECK_TEST(t_no_vnet_port_carries_no_offloads),
	   CHECK_TEST(t_bad_config_refused))
