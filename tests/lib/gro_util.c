/* SPDX-License-Identifier: MIT */
/*
 * gro_util.c - the GRO tests' segment builder and engine runner (see
 * gro_util.h)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/gro.h>
#include <voff/pkt.h>
#include <voff/vnet.h>

#include "check.h"
#include "frames.h"
#include "gro_util.h"

size_t sp_build(const struct sp *s, uint8_t *buf, size_t cap)
{
	struct tf b;
	struct tf_ip ip = { .ttl = s->ttl, .tos = s->tos, .id = s->id,
			    .df = s->df, .mf = s->mf, .frag_off = s->frag_off,
			    .opt_len = s->ipopt, .flow = s->flow };
	struct tf_l4 l4 = { .sport = s->sport, .dport = s->dport ? s->dport : 2,
			    .seq = s->seq, .ack = s->ack,
			    .flags = s->flags ? (uint8_t)s->flags : TF_ACK,
			    .win = s->win, .opt_len = s->tcpopt,
			    .tsval = s->tsval, .bad_csum = s->bad_csum,
			    .no_csum = s->no_csum };
	int ipi, exti = -1;
	size_t len;

	if (s->v6) {
		memcpy(ip.src, (uint8_t[16]){ 0x20, 0x01, 0x0d, 0xb8,
					     [15] = s->src_last ? s->src_last : 1 },
		       16);
		memcpy(ip.dst, (uint8_t[16]){ 0x20, 0x01, 0x0d, 0xb8,
					     [15] = s->dst_last ? s->dst_last : 2 },
		       16);
	} else {
		memcpy(ip.src, (uint8_t[4]){ 192, 0, 2,
					    s->src_last ? s->src_last : 1 },
		       4);
		memcpy(ip.dst, (uint8_t[4]){ 192, 0, 2,
					    s->dst_last ? s->dst_last : 2 },
		       4);
	}
	tf_init(&b, buf, cap);
	if (!s->raw) {
		tf_eth_addr(&b, (uint8_t[6]){ 2, 0, 0, 0, 0, 2 },
			    (uint8_t[6]){ 2, 0, 0, 0, 0,
					  s->mac_last ? s->mac_last : 1 });
		if (s->vlan)
			tf_vlan(&b, TF_TPID_8021Q, s->vlan);
	}
	ipi = b.n;
	if (s->v6)
		tf_ipv6(&b, &ip);
	else
		tf_ipv4(&b, &ip);
	if (s->ext_len) {
		exti = b.n;
		tf_ipv6_ext(&b, TF_EXT_DSTOPTS, s->ext_len);
	}
	if (s->frag6)
		tf_ipv6_frag(&b, 0, false, 7);
	if (s->udp)
		tf_udp(&b, &l4);
	else
		tf_tcp(&b, &l4);
	if (s->udp)
		tf_payload(&b, s->len, s->seed);
	else
		tf_payload(&b, s->len, (uint8_t)s->seq);
	if (exti >= 0 && s->ext_fill)
		buf[tf_off(&b, exti) + s->ext_len - 1] = s->ext_fill;
	len = tf_finish(&b);
	(void)ipi;
	if (s->pad && len + s->pad <= cap) {
		memset(buf + len, 0, s->pad);
		len += s->pad;
	}
	return len;
}

void run_record(struct run *r, struct voff_pkt *p, bool passed)
{
	struct rec *o;

	CHECK_LT(r->n, REC_MAX);
	o = &r->out[r->n++];
	o->d = malloc(p->len ? p->len : 1);
	CHECK(o->d != NULL);
	memcpy(o->d, voff_pkt_data(p), p->len);
	o->len = p->len;
	o->gso_type = p->gso_type;
	o->gso_size = p->gso_size;
	o->gso_segs = p->gso_segs;
	o->csum_start = p->csum_start;
	o->csum_offset = p->csum_offset;
	o->csum = p->csum;
	o->passed = passed;
}

static void collect_sg(struct run *r)
{
	static uint8_t flat[70000];
	struct voff_pkt *pk[VOFF_GRO_SG_MAX_SEGS], tmp;
	struct iovec iov[VOFF_GRO_SG_MAX_SEGS];
	struct voff_sg sg;
	int n;

	for (;;) {
		voff_sg_init(&sg, iov, VOFF_GRO_SG_MAX_SEGS);
		n = voff_gro_pop_sg(r->g, &sg, pk, VOFF_GRO_SG_MAX_SEGS);
		CHECK_GE(n, 0);
		if (n == 0)
			break;
		CHECK_EQ(voff_sg_copy(&sg, flat, sizeof(flat)), sg.len);
		CHECK_EQ(n, pk[0]->gso_segs > 1 ? pk[0]->gso_segs : 1);
		tmp = *pk[0];
		CHECK_OK(voff_pkt_init_ext(&tmp, flat, sizeof(flat), 0,
					   (uint32_t)sg.len));
		voff_pkt_copy_meta(&tmp, pk[0]);
		run_record(r, &tmp, false);
		voff_pkt_free_bulk(pk, (unsigned int)n);
	}
}

void run_collect(struct run *r)
{
	struct voff_pkt *p;

	if (r->pop_sg) {
		collect_sg(r);
		return;
	}
	while ((p = voff_gro_pop(r->g))) {
		run_record(r, p, false);
		voff_pkt_free(p);
	}
}

void run_init(struct run *r, const struct voff_gro_config *cfg)
{
	struct voff_gro_config c = { 0 };

	if (cfg)
		c = *cfg;
	memset(r, 0, sizeof(*r));
	CHECK_OK(voff_gro_new(&r->g, &c));
	CHECK_OK(voff_pool_new(&r->pool, 256, 2048));
	CHECK_OK(voff_pool_new(&r->big, 8, VOFF_PKT_SUPER_ROOM));
}

void run_fini(struct run *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->out[i].d);
	voff_gro_free(r->g);
	CHECK_EQ(voff_pool_in_use(r->pool), 0);
	CHECK_EQ(voff_pool_in_use(r->big), 0);
	voff_pool_free(r->pool);
	voff_pool_free(r->big);
}

int run_feed_bytes(struct run *r, const uint8_t *d, size_t len, uint8_t csum,
		   uint64_t now)
{
	struct voff_pkt *p;
	int rc;

	CHECK_OK(voff_pkt_alloc(len > 2048 ? r->big : r->pool, &p));
	CHECK_OK(voff_pkt_set_data(p, d, (uint32_t)len));
	p->csum = csum;
	rc = voff_gro_receive(r->g, p, now);
	CHECK_GE(rc, 0);
	if (rc == VOFF_GRO_PASS) {
		run_collect(r);
		run_record(r, p, true);
		voff_pkt_free(p);
	}
	r->last_rc = rc;
	return rc;
}

int run_feed(struct run *r, const struct sp *s, uint64_t now)
{
	static uint8_t buf[70000];
	size_t len = sp_build(s, buf, sizeof(buf));

	CHECK_GT(len, 0);
	return run_feed_bytes(r, buf, len, VOFF_CSUM_NONE, now);
}

void run_end(struct run *r)
{
	voff_gro_flush_all(r->g);
	run_collect(r);
}

uint32_t gro_test_seq(const struct rec *o, bool v6)
{
	const uint8_t *t = o->d + (v6 ? 54 : 34) + 4;

	return (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 |
	       (uint32_t)t[2] << 8 | t[3];
}

void rec_complete(struct rec *o)
{
	if (o->csum == VOFF_CSUM_PARTIAL)
		CHECK_OK(voff_csum_complete_at(o->d, o->len, o->csum_start,
					       o->csum_offset));
}

uint8_t gro_vnet_type(uint32_t gso_type)
{
	uint8_t v = VOFF_VNET_GSO_NONE;

	if (gso_type & VOFF_GSO_TCPV4)
		v = VOFF_VNET_GSO_TCPV4;
	else if (gso_type & VOFF_GSO_TCPV6)
		v = VOFF_VNET_GSO_TCPV6;
	else if (gso_type & VOFF_GSO_UDP_L4)
		v = VOFF_VNET_GSO_UDP_L4;
	if (gso_type & VOFF_GSO_TCP_ECN)
		v |= VOFF_VNET_GSO_ECN;
	return v;
}
