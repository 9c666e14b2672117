/* SPDX-License-Identifier: MIT */
/*
 * gso_twin.c - the naive GSO twin (see gso_twin.h): frames built from a
 * struct spec with the test frame builder, checksums summed byte by byte
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/gso.h>
#include <voff/pkt.h>

#include "frames.h"
#include "gso_twin.h"

static uint32_t spec_type(const struct spec *s)
{
	uint32_t t = s->extra;

	if (s->ufo)
		t |= VOFF_GSO_UDP;
	else if (s->udp)
		t |= VOFF_GSO_UDP_L4;
	else
		t |= s->v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
	if (s->tun == TUN_VXLAN || s->tun == TUN_GENEVE)
		t |= s->tun_csum ? VOFF_GSO_UDP_TUNNEL |
					   VOFF_GSO_UDP_TUNNEL_CSUM
				 : VOFF_GSO_UDP_TUNNEL;
	if (s->tun == TUN_GRE)
		t |= s->tun_csum ? VOFF_GSO_GRE | VOFF_GSO_GRE_CSUM
				 : VOFF_GSO_GRE;
	return t;
}

void twin_ext(struct tf *b, int n)
{
	static const uint8_t type[3] = { TF_EXT_HOPOPTS, TF_EXT_DSTOPTS,
					 TF_EXT_ROUTING };
	static const uint8_t len[3] = { 8, 16, 8 };

	for (int k = 0; k < n && k < 3; k++)
		tf_ipv6_ext(b, type[k], len[k]);
}

static int twin_ip(struct tf *b, bool v6, uint16_t id, bool df, uint8_t tos,
		   uint8_t opt, int n_ext)
{
	int at = b->n;

	if (v6) {
		tf_ipv6(b, &(struct tf_ip){ .tos = tos, .flow = 0x12345 });
		twin_ext(b, n_ext);
	} else {
		tf_ipv4(b, &(struct tf_ip){ .id = id, .df = df, .tos = tos,
					    .opt_len = opt, .ttl = 63 });
	}
	return at;
}

bool twin_build(const struct spec *s, uint8_t *buf, size_t cap, long seg,
		uint32_t nseg, uint32_t off, uint32_t plen, struct built *o)
{
	struct tf *b = &o->b;
	bool is_seg = seg >= 0, tun = s->tun != TUN_NONE;
	uint32_t i = is_seg ? (uint32_t)seg : 0;
	uint16_t oid = s->outer_id, iid = s->id;
	uint8_t f = s->flags;

	if (is_seg) {
		bool outer_fixed = s->extra & VOFF_GSO_TCP_FIXEDID;
		bool inner_fixed = tun ? (s->extra & VOFF_GSO_TCP_FIXEDID_INNER)
				       : outer_fixed;

		if (tun && !outer_fixed)
			oid = (uint16_t)(oid + i);
		if (!inner_fixed)
			iid = (uint16_t)(iid + i);
		if (i + 1 < nseg)
			f &= (uint8_t)~(TF_FIN | TF_PSH);
		if (i > 0 && !(s->extra & VOFF_GSO_TCP_ACCECN))
			f &= (uint8_t)~TF_CWR;
	}
	tf_init(b, buf, cap);
	o->in_l3 = -1;
	o->tun_l4 = -1;
	if (!s->raw)
		tf_eth(b);
	for (int v = 0; v < s->n_vlan; v++)
		tf_vlan(b, v == 0 && s->n_vlan > 1 ? TF_TPID_8021AD
						   : TF_TPID_8021Q,
			(uint16_t)(100 + v));
	if (tun) {
		o->l3 = twin_ip(b, s->outer_v6, oid, true, 0, 0, 0);
		o->tun_l4 = b->n;
		if (s->tun == TUN_GRE) {
			tf_gre(b, s->tun_csum, true, false);
		} else {
			tf_udp(b, &(struct tf_l4){ .sport = 40000,
						   .no_csum = !s->tun_csum });
			if (s->tun == TUN_VXLAN)
				tf_vxlan(b, 42);
			else
				tf_geneve(b, 7, 8);
			tf_eth(b);
		}
		o->in_l3 = twin_ip(b, s->v6, iid, s->df, s->tos, s->v4_opt,
				   s->n_ext);
	} else {
		o->l3 = twin_ip(b, s->v6, iid, s->df, s->tos, s->v4_opt,
				s->n_ext);
	}
	o->l4 = b->n;
	if (s->udp || s->ufo)
		tf_udp(b, &(struct tf_l4){ .sport = 5000, .dport = 6000 });
	else
		tf_tcp(b, &(struct tf_l4){ .seq = s->seq + off, .ack = 77,
					   .flags = f, .opt_len = s->tcp_opt,
					   .urg = (f & TF_URG) ? 9 : 0,
					   .tsval = 1, .tsecr = 2 });
	tf_payload(b, plen, (uint8_t)(s->seed + off));
	o->len = tf_finish(b);
	/* One segment only: the kernel checksums a plain frame, 0 -> FFFF. */
	if (is_seg && nseg == 1 && !s->udp && o->len) {
		uint8_t *c = buf + tf_off(b, o->l4) + 16;

		if (!c[0] && !c[1])
			c[0] = c[1] = 0xFF;
	}
	return o->len != 0;
}

uint32_t twin_sum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i < n; i++)
		sum += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	return sum;
}

uint16_t twin_fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

uint32_t twin_pseudo(const uint8_t *ip, uint8_t proto, uint32_t len)
{
	uint32_t s = proto + (len & 0xFFFF) + (len >> 16);

	if ((ip[0] >> 4) == 4)
		return twin_sum(ip + 12, 8, s);
	return twin_sum(ip + 8, 32, s);
}

void twin_make_partial(struct built *o, uint8_t *buf, bool udp)
{
	int ip = o->in_l3 >= 0 ? o->in_l3 : o->l3;
	size_t l4 = tf_off(&o->b, o->l4);
	uint32_t len = (uint32_t)(o->len - l4);
	uint16_t seed = twin_fold(twin_pseudo(buf + tf_off(&o->b, ip),
					      udp ? 17 : 6, len));
	size_t at = l4 + (udp ? 6 : 16);

	buf[at] = (uint8_t)(seed >> 8);
	buf[at + 1] = (uint8_t)seed;
}

void twin_pkt(const struct spec *s, struct voff_pkt *pkt, uint8_t *buf,
	      size_t cap, const struct built *o)
{
	/* abort(), not a CHECK: under libFuzzer a failure must crash. */
	if (voff_pkt_init_ext(pkt, buf, (uint32_t)cap, 0, (uint32_t)o->len)) {
		fprintf(stderr, "twin_pkt: %zu bytes do not fit in %zu\n",
			o->len, cap);
		abort();
	}
	pkt->gso_type = spec_type(s);
	pkt->gso_size = (uint16_t)s->mss;
	pkt->l2_off = s->raw ? VOFF_OFF_NONE : 0;
	pkt->l3_off = (uint16_t)tf_off(&o->b, o->l3);
	if (o->in_l3 >= 0)
		pkt->inner_l3_off = (uint16_t)tf_off(&o->b, o->in_l3);
}

uint32_t twin_nseg(const struct spec *s)
{
	return s->pay ? (s->pay + s->mss - 1) / s->mss : 1;
}
