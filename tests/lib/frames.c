/* SPDX-License-Identifier: MIT */
/*
 * frames.c - the test frame builder (see frames.h)
 *
 * Deliberately independent of libvoff: its checksums come from a byte-wise
 * sum written here, so tests that check the library against built frames
 * compare two separate implementations.
 */
#include <string.h>

#include "frames.h"

enum kind {
	K_ETH,
	K_VLAN,
	K_IPV4,
	K_IPV6,
	K_EXT,
	K_FRAG,
	K_TCP,
	K_UDP,
	K_VXLAN,
	K_GENEVE,
	K_GRE,
	K_DATA,
};

static const uint8_t def_mac_dst[6] = { 2, 0, 0, 0, 0, 2 };
static const uint8_t def_mac_src[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t def_v4_src[4] = { 192, 0, 2, 1 };
static const uint8_t def_v4_dst[4] = { 192, 0, 2, 2 };
static const uint8_t def_v6_src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t def_v6_dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Byte-wise big-endian one's complement sum. */
static uint32_t sum_bytes(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i < n; i++)
		s += (i & 1) ? p[i] : (uint32_t)p[i] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)~s;
}

static bool is_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

void tf_init(struct tf *b, uint8_t *buf, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->cap = cap;
}

/* Reserve @len zeroed bytes for a header of @kind; NULL on overflow. */
static uint8_t *add(struct tf *b, int kind, size_t len)
{
	uint8_t *p;

	if (b->overflow || b->n >= TF_MAX_HDRS || len > b->cap - b->len) {
		b->overflow = true;
		return NULL;
	}
	p = b->buf + b->len;
	memset(p, 0, len);
	b->h[b->n].kind = kind;
	b->h[b->n].off = b->len;
	b->h[b->n].len = len;
	b->n++;
	b->len += len;
	return p;
}

void tf_eth_addr(struct tf *b, const uint8_t *dst, const uint8_t *src)
{
	uint8_t *p = add(b, K_ETH, 14);

	if (!p)
		return;
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
}

void tf_eth(struct tf *b)
{
	tf_eth_addr(b, def_mac_dst, def_mac_src);
}

void tf_vlan(struct tf *b, uint16_t tpid, uint16_t tci)
{
	uint8_t *p = add(b, K_VLAN, 4);

	if (!p)
		return;
	b->h[b->n - 1].flags = tpid;
	put16(p, tci);
}

void tf_ipv4(struct tf *b, const struct tf_ip *o)
{
	size_t opt = o->opt_len;
	uint8_t *p = add(b, K_IPV4, 20 + opt);

	if (!p)
		return;
	b->h[b->n - 1].ip = *o;
	p[0] = (uint8_t)(0x40 | ((20 + opt) / 4));
	p[1] = o->tos;
	put16(p + 4, o->id);
	put16(p + 6, (uint16_t)((o->df ? 0x4000 : 0) | (o->mf ? 0x2000 : 0) |
				(o->frag_off & 0x1FFF)));
	p[8] = o->ttl ? o->ttl : 64;
	memcpy(p + 12, is_zero(o->src, 4) ? def_v4_src : o->src, 4);
	memcpy(p + 16, is_zero(o->dst, 4) ? def_v4_dst : o->dst, 4);
	/* Options: a 4-byte Router Alert first, then NOPs. */
	for (size_t i = 0; i < opt; i++)
		p[20 + i] = 1;
	if (opt >= 4) {
		p[20] = 0x94;
		p[21] = 4;
		p[22] = 0;
		p[23] = 0;
	}
}

void tf_ipv6(struct tf *b, const struct tf_ip *o)
{
	uint8_t *p = add(b, K_IPV6, 40);

	if (!p)
		return;
	b->h[b->n - 1].ip = *o;
	put32(p, 0x60000000u | (uint32_t)o->tos << 20 | (o->flow & 0xFFFFF));
	p[7] = o->ttl ? o->ttl : 64;
	memcpy(p + 8, is_zero(o->src, 16) ? def_v6_src : o->src, 16);
	memcpy(p + 24, is_zero(o->dst, 16) ? def_v6_dst : o->dst, 16);
}

void tf_ipv6_ext(struct tf *b, uint8_t type, size_t len)
{
	uint8_t *p;

	if (type == TF_EXT_FRAG) {
		tf_ipv6_frag(b, 0, false, 0);
		return;
	}
	if (len < 8 || len % 8 || len > 2048) {
		b->overflow = true;
		return;
	}
	p = add(b, K_EXT, len);
	if (!p)
		return;
	b->h[b->n - 1].flags = type;
	p[1] = (uint8_t)(len / 8 - 1);
	if (type == TF_EXT_ROUTING) {
		p[2] = 0;	/* routing type 0 */
		p[3] = 0;	/* segments left: 0, so it is skipped */
	} else {
		p[2] = 1;	/* PadN over the rest */
		p[3] = (uint8_t)(len - 4);
	}
}

void tf_ipv6_frag(struct tf *b, uint16_t off, bool more, uint32_t id)
{
	uint8_t *p = add(b, K_FRAG, 8);

	if (!p)
		return;
	put16(p + 2, (uint16_t)(off << 3 | (more ? 1 : 0)));
	put32(p + 4, id);
}

static void l4_common(struct tf *b, const struct tf_l4 *o)
{
	b->h[b->n - 1].l4 = *o;
}

void tf_tcp(struct tf *b, const struct tf_l4 *o)
{
	size_t opt = o->opt_len;
	uint8_t *p = add(b, K_TCP, 20 + opt);

	if (!p)
		return;
	l4_common(b, o);
	put16(p, o->sport ? o->sport : 1);
	put16(p + 2, o->dport ? o->dport : 2);
	put32(p + 4, o->seq);
	put32(p + 8, o->ack);
	p[12] = (uint8_t)(((20 + opt) / 4) << 4);
	p[13] = o->flags;
	put16(p + 14, o->win ? o->win : 3000);
	put16(p + 18, o->urg);
	for (size_t i = 0; i < opt; i++)
		p[20 + i] = 1;
	if (opt >= 12) {
		p[22] = 8;
		p[23] = 10;
		put32(p + 24, o->tsval);
		put32(p + 28, o->tsecr);
	} else if (opt >= 4) {
		p[20] = 2;
		p[21] = 4;
		put16(p + 22, 1460);
	}
}

void tf_udp(struct tf *b, const struct tf_l4 *o)
{
	uint8_t *p = add(b, K_UDP, 8);

	if (!p)
		return;
	l4_common(b, o);
	put16(p, o->sport ? o->sport : 1);
	put16(p + 2, o->dport);	/* 0: chosen in tf_finish */
}

void tf_vxlan(struct tf *b, uint32_t vni)
{
	uint8_t *p = add(b, K_VXLAN, 8);

	if (!p)
		return;
	p[0] = 0x08;
	put32(p + 4, vni << 8);
}

void tf_geneve(struct tf *b, uint32_t vni, uint8_t opt_len)
{
	uint8_t *p;
	size_t words = opt_len / 4, at = 8;

	if (opt_len % 4 || opt_len > 252) {
		b->overflow = true;
		return;
	}
	p = add(b, K_GENEVE, 8 + (size_t)opt_len);
	if (!p)
		return;
	p[0] = (uint8_t)words;		/* version 0, option length */
	put32(p + 4, vni << 8);
	/* Options of up to 32 words each: class 0x0102, type 0x80+i. */
	for (int i = 0; words; i++) {
		size_t w = words > 32 ? 32 : words;

		put16(p + at, 0x0102);
		p[at + 2] = (uint8_t)(0x80 + i);
		p[at + 3] = (uint8_t)(w - 1);
		for (size_t k = 4; k < w * 4; k++)
			p[at + k] = (uint8_t)(k + (size_t)i);
		at += w * 4;
		words -= w;
	}
}

void tf_gre(struct tf *b, bool csum, bool key, bool seq)
{
	size_t len = 4 + (csum ? 4 : 0) + (key ? 4 : 0) + (seq ? 4 : 0);
	uint8_t *p = add(b, K_GRE, len);
	size_t at = 4;

	if (!p)
		return;
	p[0] = (uint8_t)((csum ? 0x80 : 0) | (key ? 0x20 : 0) |
			 (seq ? 0x10 : 0));
	b->h[b->n - 1].flags = csum;
	if (csum)
		at += 4;
	if (key) {
		put32(p + at, 0x01020304);
		at += 4;
	}
	if (seq)
		put32(p + at, 0x0000002A);
}

void tf_payload(struct tf *b, size_t n, uint8_t seed)
{
	uint8_t *p = add(b, K_DATA, n);

	if (!p)
		return;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i);
}

void tf_bytes(struct tf *b, const void *src, size_t n)
{
	uint8_t *p = add(b, K_DATA, n);

	if (p && n)
		memcpy(p, src, n);
}

size_t tf_off(const struct tf *b, int i)
{
	return i >= 0 && i < b->n ? b->h[i].off : 0;
}

/* EtherType announcing header @i (or 0x88B5, local experimental). */
static uint16_t ethertype_of(const struct tf *b, int i)
{
	if (i >= b->n)
		return 0x88B5;
	switch (b->h[i].kind) {
	case K_VLAN:
		return b->h[i].flags;
	case K_IPV4:
		return 0x0800;
	case K_IPV6:
		return 0x86DD;
	case K_ETH:
		return 0x6558;
	default:
		return 0x88B5;
	}
}

/* IP protocol / next header announcing header @i. */
static uint8_t proto_of(const struct tf *b, int i)
{
	if (i >= b->n)
		return 59;	/* no next header */
	switch (b->h[i].kind) {
	case K_TCP:
		return 6;
	case K_UDP:
		return 17;
	case K_GRE:
		return 47;
	case K_IPV4:
		return 4;
	case K_IPV6:
		return 41;
	case K_EXT:
		return (uint8_t)b->h[i].flags;
	case K_FRAG:
		return 44;
	default:
		return 253;	/* experimentation */
	}
}

/* The IP header enclosing header @i, or -1. */
static int ip_of(const struct tf *b, int i)
{
	while (--i >= 0)
		if (b->h[i].kind == K_IPV4 || b->h[i].kind == K_IPV6)
			return i;
	return -1;
}

static uint32_t pseudo(const struct tf *b, int ip, uint8_t proto, size_t len)
{
	const uint8_t *p = b->buf + b->h[ip].off;
	uint32_t s = proto + (uint32_t)(len & 0xFFFF) + (uint32_t)(len >> 16);

	if (b->h[ip].kind == K_IPV4)
		return sum_bytes(p + 12, 8, s);
	return sum_bytes(p + 8, 32, s);
}

static void finish_l4(struct tf *b, int i, uint8_t proto, size_t csum_at)
{
	uint8_t *p = b->buf + b->h[i].off;
	size_t len = b->len - b->h[i].off;
	const struct tf_l4 *o = &b->h[i].l4;
	int ip = ip_of(b, i);
	uint16_t c;

	put16(p + csum_at, 0);
	if (o->no_csum || ip < 0)
		return;
	c = fold(sum_bytes(p, len, pseudo(b, ip, proto, len)));
	if (proto == 17 && c == 0)
		c = 0xFFFF;
	if (o->bad_csum)
		c++;
	put16(p + csum_at, c);
}

size_t tf_finish(struct tf *b)
{
	if (b->overflow)
		return 0;
	for (int i = b->n - 1; i >= 0; i--) {
		uint8_t *p = b->buf + b->h[i].off;
		size_t rest = b->len - b->h[i].off;
		const struct tf_ip *ip = &b->h[i].ip;

		switch (b->h[i].kind) {
		case K_ETH:
			put16(p + 12, ethertype_of(b, i + 1));
			break;
		case K_VLAN:
			put16(p + 2, ethertype_of(b, i + 1));
			break;
		case K_IPV4:
			if (ip->no_fixup)
				break;
			p[9] = ip->proto ? ip->proto : proto_of(b, i + 1);
			put16(p + 2, (uint16_t)rest);
			put16(p + 10, 0);
			put16(p + 10, fold(sum_bytes(p, b->h[i].len, 0)));
			break;
		case K_IPV6:
			if (ip->no_fixup)
				break;
			p[6] = ip->proto ? ip->proto : proto_of(b, i + 1);
			put16(p + 4, (uint16_t)(rest - 40));
			break;
		case K_EXT:
		case K_FRAG:
			p[0] = proto_of(b, i + 1);
			break;
		case K_TCP:
			finish_l4(b, i, 6, 16);
			break;
		case K_UDP:
			if (get16(p + 2) == 0) {
				int nk = i + 1 < b->n ? b->h[i + 1].kind : -1;

				put16(p + 2, nk == K_GENEVE  ? 6081
					    : nk == K_VXLAN ? 4789
							    : 2);
			}
			put16(p + 4, (uint16_t)rest);
			finish_l4(b, i, 17, 6);
			break;
		case K_GENEVE:
			put16(p + 2, ethertype_of(b, i + 1));
			break;
		case K_GRE:
			put16(p + 2, ethertype_of(b, i + 1));
			if (b->h[i].flags) {
				put16(p + 4, 0);
				put16(p + 4, fold(sum_bytes(p, rest, 0)));
			}
			break;
		default:
			break;
		}
	}
	return b->len;
}
