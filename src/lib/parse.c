/* SPDX-License-Identifier: MIT */
/*
 * parse.c - the bounds-checked header parser: Ethernet, VLAN tags, IPv4,
 * IPv6 and its extension headers, TCP, UDP, and the VXLAN, Geneve and GRE
 * tunnels down to the inner headers
 *
 * DOC: Theory of Operation
 *
 * The parser is a walk from the outside in.  Each header function reads
 * its header through take(), which hands out a checked range of the frame
 * (parse_int.h) and classifies a miss, validates every field it relies on,
 * records the header with add() and calls the function of the next header.
 * A header is recorded only once it is known good, so after a fault the
 * result lists exactly the headers before it.
 *
 * Two bounds apply to every header: the frame length, and the logical end
 * of the enclosing packet (the IP total or payload length; for the inner
 * packet of a tunnel also the outer one).  A header running past the frame
 * is a truncation (VOFF_E_TRUNC_<header>); one running past the logical end
 * while the frame goes on is a length inconsistency (VOFF_E_HDR_PAST_L3,
 * VOFF_E_TCP_DOFF, VOFF_E_INNER_L3_LEN).  The check that the frame holds
 * the whole outer IP packet (VOFF_E_TRUNC_L3) runs after the walk, so a
 * frame cut inside a header names that header, and a frame cut inside the
 * payload gives VOFF_E_TRUNC_L3.
 *
 * The walk enters at most one tunnel.  Inside it, a UDP port or IP protocol
 * announcing another tunnel has that header validated and recorded, but
 * not entered.  Fragments are never entered either: a first fragment's
 * TCP/UDP/GRE header is recorded when it is complete inside the fragment,
 * and a non-first fragment ends the walk at its IP header.
 *
 * The recursion depth is fixed: Ethernet -> IP -> L4 -> tunnel -> Ethernet
 * -> IP -> L4 at most, and the loops (VLAN tags, IPv6 extension headers,
 * options) are bounded by their limits and by the header lengths.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <voff/err.h>
#include <voff/parse.h>
#include <voff/pkt.h>

#include "parse_int.h"

/* Headers must end below VOFF_OFF_NONE so every offset fits a uint16_t. */
#define MAX_HDR_END (VOFF_OFF_NONE - 1u)
/* "No logical end known yet": only the frame length bounds the header. */
#define NO_LIMIT SIZE_MAX

/**
 * struct walk - state of one parse
 * @data:	the frame
 * @len:	its length
 * @need:	bytes the outer IP header says the frame holds (0 before it)
 * @out:	the result being filled
 * @inner:	true once a tunnel was entered: headers set the inner_* fields
 */
struct walk {
	const uint8_t *data;
	size_t len;
	size_t need;
	struct voff_parsed *out;
	bool inner;
};

static const char *const proto_names[VOFF_PROTO__COUNT] = {
#define VOFF__X(e, n) [VOFF_PROTO_##e] = n,
	VOFF_PROTO_MAP(VOFF__X)
#undef VOFF__X
};

const char *voff_proto_name(enum voff_proto proto)
{
	if ((unsigned int)proto >= VOFF_PROTO__COUNT || !proto_names[proto])
		return "?";
	return proto_names[proto];
}

/*
 * take() - the range [@off, @off + @n) of the frame, inside logical end @lim
 *
 * Return: 0 with *@p set, @trunc when the frame ends inside the range, or
 * VOFF_E_HDR_PAST_L3 when the enclosing packet (per its IP length) does.
 */
static int take(const struct walk *w, size_t off, size_t n, size_t lim,
		int trunc, const uint8_t **p)
{
	if (off > lim || n > lim - off)
		return VOFF_E_HDR_PAST_L3;
	*p = voff__frame_get(w->data, w->len, off, n);
	return *p ? 0 : trunc;
}

/* Whether @n bytes at @off fit before @end (used for fragments). */
static bool fits(size_t off, size_t n, size_t end)
{
	return off <= end && n <= end - off;
}

/* Record a validated header; fails when the layer table or offsets overflow. */
static int add(struct walk *w, enum voff_proto proto, size_t off, size_t len)
{
	struct voff_parsed *out = w->out;

	if (out->n_layers >= VOFF_PARSE_MAX_LAYERS)
		return VOFF_E_LAYER_DEPTH;
	if (off > MAX_HDR_END || len > MAX_HDR_END - off)
		return VOFF_E_HDR_OFF;
	out->layers[out->n_layers].proto = (uint8_t)proto;
	out->layers[out->n_layers].off = (uint16_t)off;
	out->layers[out->n_layers].len = (uint16_t)len;
	out->n_layers++;
	return 0;
}

/*
 * IPv4 and TCP options: EOL ends the list, NOP is one byte, every other
 * option has a length byte counting itself and the kind (>= 2) and must
 * end inside the header.  @p holds @end bytes; options start at @start.
 */
static bool opts_ok(const uint8_t *p, size_t start, size_t end)
{
	size_t i = start;

	while (i < end) {
		uint8_t kind = p[i];

		if (kind == VOFF__OPT_EOL)
			return true;
		if (kind == VOFF__OPT_NOP) {
			i++;
			continue;
		}
		if (end - i < 2 || p[i + 1] < 2 || p[i + 1] > end - i)
			return false;
		i += p[i + 1];
	}
	return true;
}

/*
 * Options of IPv6 hop-by-hop and destination-options headers (RFC 8200
 * 4.2): Pad1 (type 0) is one byte, every other option is type, data length
 * (not counting those two bytes) and data, and the options fill the header
 * exactly.  @p holds @end bytes; options start at @start.
 */
static bool ip6_opts_ok(const uint8_t *p, size_t start, size_t end)
{
	size_t i = start;

	while (i < end) {
		if (p[i] == 0) {
			i++;
			continue;
		}
		if (end - i < 2 || p[i + 1] > end - i - 2)
			return false;
		i += 2 + (size_t)p[i + 1];
	}
	return true;
}

/*
 * Geneve options (RFC 8926 3.5): class (16 bits), type (8), three reserved
 * bits and a 5-bit length in 4-byte words not counting the 4-byte option
 * header; they must fill the option area exactly.
 */
static bool geneve_opts_ok(const uint8_t *p, size_t start, size_t end)
{
	size_t i = start;

	while (i < end) {
		size_t olen;

		if (end - i < 4)
			return false;
		olen = 4 + 4 * (size_t)(p[i + 3] & 0x1F);
		if (olen > end - i)
			return false;
		i += olen;
	}
	return true;
}

static int parse_eth(struct walk *w, size_t off, size_t lim);
static int parse_ipv4(struct walk *w, size_t off, size_t lim);
static int parse_ipv6(struct walk *w, size_t off, size_t lim);

/* Follow an EtherType (or a tunnel's protocol type) at @off. */
static int parse_ethertype(struct walk *w, uint16_t type, size_t off,
			   size_t lim)
{
	switch (type) {
	case VOFF__ETH_IPV4:
		return parse_ipv4(w, off, lim);
	case VOFF__ETH_IPV6:
		return parse_ipv6(w, off, lim);
	default:
		return 0;	/* unknown: the walk ends here, no error */
	}
}

/* Mark the tunnel header at @off as entered; what follows is "inner". */
static void enter(struct walk *w, enum voff_proto proto, size_t off)
{
	w->out->flags |= VOFF_PF_TUNNEL;
	w->out->tunnel = (uint8_t)proto;
	w->out->tunnel_off = (uint16_t)off;
	w->inner = true;
}

static int parse_vxlan(struct walk *w, size_t off, size_t lim)
{
	const uint8_t *p;
	int err;

	err = take(w, off, VOFF__VXLAN_HLEN, lim, VOFF_E_TRUNC_VXLAN, &p);
	if (err)
		return err;
	/* RFC 7348: the I flag must be set; the other bits are ignored. */
	if (!(p[0] & 0x08))
		return VOFF_E_VXLAN_FLAGS;
	err = add(w, VOFF_PROTO_VXLAN, off, VOFF__VXLAN_HLEN);
	if (err || w->inner)
		return err;
	enter(w, VOFF_PROTO_VXLAN, off);
	w->out->payload_off = (uint32_t)(off + VOFF__VXLAN_HLEN);
	return parse_eth(w, off + VOFF__VXLAN_HLEN, lim);
}

static int parse_geneve(struct walk *w, size_t off, size_t lim)
{
	const uint8_t *p;
	size_t hlen;
	uint16_t type;
	int err;

	err = take(w, off, VOFF__GENEVE_HLEN, lim, VOFF_E_TRUNC_GENEVE, &p);
	if (err)
		return err;
	if (p[0] >> 6 != 0)
		return VOFF_E_GENEVE_VER;
	hlen = VOFF__GENEVE_HLEN + 4 * (size_t)(p[0] & 0x3F);
	err = take(w, off, hlen, lim, VOFF_E_TRUNC_GENEVE, &p);
	if (err)
		return err;
	if (!geneve_opts_ok(p, VOFF__GENEVE_HLEN, hlen))
		return VOFF_E_GENEVE_OPT;
	type = voff__rd16(p + 2);
	err = add(w, VOFF_PROTO_GENEVE, off, hlen);
	if (err || w->inner)
		return err;
	enter(w, VOFF_PROTO_GENEVE, off);
	w->out->payload_off = (uint32_t)(off + hlen);
	if (type == VOFF__ETH_TEB)
		return parse_eth(w, off + hlen, lim);
	return parse_ethertype(w, type, off + hlen, lim);
}

/* Set the (inner) L4 offset of a TCP, UDP or GRE header. */
static void set_l4(struct walk *w, size_t off, size_t hlen)
{
	if (w->inner)
		w->out->inner_l4_off = (uint16_t)off;
	else
		w->out->l4_off = (uint16_t)off;
	w->out->payload_off = (uint32_t)(off + hlen);
}

static int parse_tcp(struct walk *w, size_t off, size_t end, bool frag)
{
	const uint8_t *p;
	size_t hlen;
	int err;

	/* A first fragment's header counts only when it is all there. */
	if (frag && !fits(off, VOFF__TCP_HLEN, end))
		return 0;
	err = take(w, off, VOFF__TCP_HLEN, end, VOFF_E_TRUNC_TCP, &p);
	if (err)
		return err;
	hlen = 4 * (size_t)(p[12] >> 4);
	if (hlen < VOFF__TCP_HLEN)
		return VOFF_E_TCP_DOFF;
	if (!fits(off, hlen, end))
		return frag ? 0 : VOFF_E_TCP_DOFF;
	err = take(w, off, hlen, end, VOFF_E_TRUNC_TCP, &p);
	if (err)
		return err;
	if (!opts_ok(p, VOFF__TCP_HLEN, hlen))
		return VOFF_E_TCP_OPT;
	err = add(w, VOFF_PROTO_TCP, off, hlen);
	if (err)
		return err;
	set_l4(w, off, hlen);
	return 0;
}

static int parse_udp(struct walk *w, size_t off, size_t end, bool frag)
{
	const uint8_t *p;
	uint16_t dport;
	int err;

	if (frag && !fits(off, VOFF__UDP_HLEN, end))
		return 0;
	err = take(w, off, VOFF__UDP_HLEN, end, VOFF_E_TRUNC_UDP, &p);
	if (err)
		return err;
	/* A first fragment's UDP length covers the reassembled datagram. */
	if (!frag && voff__rd16(p + 4) != end - off)
		return VOFF_E_UDP_LEN;
	dport = voff__rd16(p + 2);
	err = add(w, VOFF_PROTO_UDP, off, VOFF__UDP_HLEN);
	if (err)
		return err;
	set_l4(w, off, VOFF__UDP_HLEN);
	if (frag)
		return 0;
	if (dport == VOFF__PORT_VXLAN)
		return parse_vxlan(w, off + VOFF__UDP_HLEN, end);
	if (dport == VOFF__PORT_GENEVE)
		return parse_geneve(w, off + VOFF__UDP_HLEN, end);
	return 0;
}

/* GRE, RFC 2784 with the key and sequence fields of RFC 2890. */
static int parse_gre(struct walk *w, size_t off, size_t end, bool frag)
{
	const uint8_t *p;
	uint16_t flags, type;
	size_t hlen;
	int err;

	if (frag && !fits(off, VOFF__GRE_HLEN, end))
		return 0;
	err = take(w, off, VOFF__GRE_HLEN, end, VOFF_E_TRUNC_GRE, &p);
	if (err)
		return err;
	flags = voff__rd16(p);
	/* Routing (RFC 1701), recursion and versions other than 0: refuse. */
	if (flags & (VOFF__GRE_R | VOFF__GRE_SSR | VOFF__GRE_RECUR |
		     VOFF__GRE_VER))
		return VOFF_E_GRE_VER;
	hlen = VOFF__GRE_HLEN + (flags & VOFF__GRE_C ? 4 : 0) +
	       (flags & VOFF__GRE_K ? 4 : 0) + (flags & VOFF__GRE_S ? 4 : 0);
	if (frag && !fits(off, hlen, end))
		return 0;
	err = take(w, off, hlen, end, VOFF_E_TRUNC_GRE, &p);
	if (err)
		return err;
	type = voff__rd16(p + 2);
	err = add(w, VOFF_PROTO_GRE, off, hlen);
	if (err)
		return err;
	set_l4(w, off, hlen);
	if (frag || w->inner)
		return 0;
	enter(w, VOFF_PROTO_GRE, off);
	if (type == VOFF__ETH_TEB)
		return parse_eth(w, off + hlen, end);
	return parse_ethertype(w, type, off + hlen, end);
}

/* The upper-layer header @proto at @off, in the IP packet ending at @end. */
static int parse_l4(struct walk *w, uint8_t proto, size_t off, size_t end,
		    bool frag)
{
	switch (proto) {
	case VOFF__IPP_TCP:
		return parse_tcp(w, off, end, frag);
	case VOFF__IPP_UDP:
		return parse_udp(w, off, end, frag);
	case VOFF__IPP_GRE:
		return parse_gre(w, off, end, frag);
	default:
		return 0;	/* unknown protocol: the walk ends, no error */
	}
}

/*
 * Record an IP header at @off of version @ver whose packet ends at @end;
 * @flags are the outer VOFF_PF_* bits, mapped to the inner ones inside a
 * tunnel.
 */
static void set_l3(struct walk *w, size_t off, uint8_t ver, size_t end,
		   uint32_t flags)
{
	struct voff_parsed *out = w->out;

	if (w->inner) {
		out->inner_l3_off = (uint16_t)off;
		out->inner_l3_proto = ver;
		if (flags & VOFF_PF_FRAG)
			out->flags |= VOFF_PF_INNER_FRAG;
		if (flags & VOFF_PF_IPV4_OPTS)
			out->flags |= VOFF_PF_INNER_IPV4_OPTS;
		if (flags & VOFF_PF_IPV6_EXT)
			out->flags |= VOFF_PF_INNER_IPV6_EXT;
		return;
	}
	out->l3_off = (uint16_t)off;
	out->l3_proto = ver;
	out->l3_end = (uint32_t)end;
	out->flags |= flags;
	w->need = end;
	if (end < w->len)
		out->flags |= VOFF_PF_PADDED;
}

static void set_l4_proto(struct walk *w, uint8_t proto)
{
	if (w->inner)
		w->out->inner_l4_proto = proto;
	else
		w->out->l4_proto = proto;
}

/*
 * The end of an IP packet of @tot bytes at @off inside logical end @lim:
 * an inner packet must fit in the outer one.  The outer one has no @lim;
 * whether the frame holds it all is checked after the walk.
 */
static int ip_end(size_t off, size_t tot, size_t lim, size_t *end)
{
	*end = off + tot;
	if (lim != NO_LIMIT && *end > lim)
		return VOFF_E_INNER_L3_LEN;
	return 0;
}

static int parse_ipv4(struct walk *w, size_t off, size_t lim)
{
	const uint8_t *p;
	size_t hlen, tot, end;
	uint32_t flags = 0;
	uint16_t frag;
	uint8_t proto;
	int err;

	err = take(w, off, VOFF__IPV4_HLEN, lim, VOFF_E_TRUNC_IPV4, &p);
	if (err)
		return err;
	if (p[0] >> 4 != 4)
		return VOFF_E_IP_VERSION;
	hlen = 4 * (size_t)(p[0] & 0x0F);
	if (hlen < VOFF__IPV4_HLEN)
		return VOFF_E_IPV4_IHL;
	err = take(w, off, hlen, lim, VOFF_E_TRUNC_IPV4, &p);
	if (err)
		return err;
	tot = voff__rd16(p + 2);
	if (tot < hlen)
		return VOFF_E_IPV4_TOTLEN;
	err = ip_end(off, tot, lim, &end);
	if (err)
		return err;
	if (!opts_ok(p, VOFF__IPV4_HLEN, hlen))
		return VOFF_E_IPV4_OPT;
	frag = voff__rd16(p + 6);
	proto = p[9];
	err = add(w, VOFF_PROTO_IPV4, off, hlen);
	if (err)
		return err;
	if (hlen > VOFF__IPV4_HLEN)
		flags |= VOFF_PF_IPV4_OPTS;
	if (frag & (VOFF__IPV4_MF | VOFF__IPV4_OFFMASK)) {
		flags |= VOFF_PF_FRAG;
		if (!(frag & VOFF__IPV4_OFFMASK))
			flags |= VOFF_PF_FRAG_FIRST;
	}
	set_l3(w, off, 4, end, flags);
	set_l4_proto(w, proto);
	w->out->payload_off = (uint32_t)(off + hlen);
	if ((flags & VOFF_PF_FRAG) && !(flags & VOFF_PF_FRAG_FIRST))
		return 0;
	return parse_l4(w, proto, off + hlen, end, flags & VOFF_PF_FRAG);
}

static enum voff_proto ext_proto(uint8_t nh)
{
	switch (nh) {
	case VOFF__IPP_HOPOPTS:
		return VOFF_PROTO_IPV6_HOPOPTS;
	case VOFF__IPP_ROUTING:
		return VOFF_PROTO_IPV6_ROUTING;
	case VOFF__IPP_FRAG:
		return VOFF_PROTO_IPV6_FRAG;
	case VOFF__IPP_DSTOPTS:
		return VOFF_PROTO_IPV6_DSTOPTS;
	default:
		return VOFF_PROTO_NONE;
	}
}

/*
 * One IPv6 extension header of type @nh at @off inside the packet ending at
 * @end.  Sets *@hlen and *@next; for a fragment header *@frag_flags gets
 * VOFF_PF_FRAG (and _FIRST) unless it is an atomic fragment (offset 0,
 * no M flag, RFC 6946), which is a whole packet.
 */
static int parse_ext(struct walk *w, uint8_t nh, size_t off, size_t end,
		     size_t *hlen, uint8_t *next, uint32_t *frag_flags)
{
	const uint8_t *p;
	int err;

	if (nh == VOFF__IPP_FRAG) {
		uint16_t fo;

		err = take(w, off, VOFF__IPV6_FRAG_HLEN, end,
			   VOFF_E_TRUNC_IPV6_EXT, &p);
		if (err)
			return err;
		fo = voff__rd16(p + 2);
		if (fo & 0xFFF9) {
			*frag_flags = VOFF_PF_FRAG;
			if (!(fo & 0xFFF8))
				*frag_flags |= VOFF_PF_FRAG_FIRST;
		}
		*hlen = VOFF__IPV6_FRAG_HLEN;
	} else {
		err = take(w, off, 2, end, VOFF_E_TRUNC_IPV6_EXT, &p);
		if (err)
			return err;
		*hlen = 8 * ((size_t)p[1] + 1);
		err = take(w, off, *hlen, end, VOFF_E_TRUNC_IPV6_EXT, &p);
		if (err)
			return err;
		if (nh != VOFF__IPP_ROUTING && !ip6_opts_ok(p, 2, *hlen))
			return VOFF_E_IPV6_OPT;
	}
	*next = p[0];
	return add(w, ext_proto(nh), off, *hlen);
}

static int parse_ipv6(struct walk *w, size_t off, size_t lim)
{
	const uint8_t *p;
	size_t end, cur, hlen;
	uint32_t flags = 0, fflags = 0;
	unsigned int n_ext = 0;
	uint8_t nh;
	int err;

	err = take(w, off, VOFF__IPV6_HLEN, lim, VOFF_E_TRUNC_IPV6, &p);
	if (err)
		return err;
	if (p[0] >> 4 != 6)
		return VOFF_E_IP_VERSION;
	/* A payload length of 0 (jumbogram) is not supported: no payload. */
	err = ip_end(off, VOFF__IPV6_HLEN + (size_t)voff__rd16(p + 4), lim,
		     &end);
	if (err)
		return err;
	nh = p[6];
	err = add(w, VOFF_PROTO_IPV6, off, VOFF__IPV6_HLEN);
	if (err)
		return err;
	cur = off + VOFF__IPV6_HLEN;
	set_l3(w, off, 6, end, 0);
	set_l4_proto(w, nh);
	w->out->payload_off = (uint32_t)cur;
	while (ext_proto(nh) != VOFF_PROTO_NONE) {
		if (n_ext == VOFF_PARSE_MAX_IPV6_EXT)
			return VOFF_E_IPV6_EXT_DEPTH;
		/* RFC 8200 4.1: hop-by-hop options only right after IPv6. */
		if (nh == VOFF__IPP_HOPOPTS && n_ext > 0)
			return VOFF_E_IPV6_EXT;
		err = parse_ext(w, nh, cur, end, &hlen, &nh, &fflags);
		if (err)
			return err;
		n_ext++;
		cur += hlen;
		flags = VOFF_PF_IPV6_EXT | fflags;
		set_l3(w, off, 6, end, flags);
		set_l4_proto(w, nh);
		w->out->payload_off = (uint32_t)cur;
		if ((fflags & VOFF_PF_FRAG) && !(fflags & VOFF_PF_FRAG_FIRST))
			return 0;
	}
	return parse_l4(w, nh, cur, end, flags & VOFF_PF_FRAG);
}

static int parse_eth(struct walk *w, size_t off, size_t lim)
{
	struct voff_parsed *out = w->out;
	unsigned int n_vlan = 0;
	const uint8_t *p;
	uint16_t type;
	int err;

	err = take(w, off, VOFF__ETH_HLEN, lim, VOFF_E_TRUNC_ETH, &p);
	if (err)
		return err;
	type = voff__rd16(p + 12);
	err = add(w, VOFF_PROTO_ETH, off, VOFF__ETH_HLEN);
	if (err)
		return err;
	if (w->inner)
		out->inner_l2_off = (uint16_t)off;
	else
		out->l2_off = (uint16_t)off;
	off += VOFF__ETH_HLEN;
	out->payload_off = (uint32_t)off;
	while (type == VOFF__ETH_8021Q || type == VOFF__ETH_8021AD) {
		enum voff_proto proto = type == VOFF__ETH_8021Q ?
						VOFF_PROTO_VLAN :
						VOFF_PROTO_QINQ;

		if (n_vlan == VOFF_PARSE_MAX_VLAN)
			return VOFF_E_VLAN_DEPTH;
		err = take(w, off, VOFF__VLAN_HLEN, lim, VOFF_E_TRUNC_VLAN,
			   &p);
		if (err)
			return err;
		err = add(w, proto, off, VOFF__VLAN_HLEN);
		if (err)
			return err;
		if (!w->inner)
			out->vlan_tci[out->n_vlan++] = voff__rd16(p);
		n_vlan++;
		type = voff__rd16(p + 2);
		off += VOFF__VLAN_HLEN;
		out->payload_off = (uint32_t)off;
	}
	/* EtherTypes below 0x0600 are 802.3 lengths: unknown, as others. */
	return parse_ethertype(w, type, off, lim);
}

/* Raw IP (TUN): the version nibble says which header starts the frame. */
static int parse_raw_ip(struct walk *w)
{
	const uint8_t *p = voff__frame_get(w->data, w->len, 0, 1);

	if (!p)
		return VOFF_E_TRUNC_IPV4;
	switch (p[0] >> 4) {
	case 4:
		return parse_ipv4(w, 0, NO_LIMIT);
	case 6:
		return parse_ipv6(w, 0, NO_LIMIT);
	default:
		return VOFF_E_IP_VERSION;
	}
}

static void parsed_init(struct voff_parsed *out, size_t len)
{
	memset(out, 0, sizeof(*out));
	out->l2_off = VOFF_OFF_NONE;
	out->l3_off = VOFF_OFF_NONE;
	out->l4_off = VOFF_OFF_NONE;
	out->tunnel_off = VOFF_OFF_NONE;
	out->inner_l2_off = VOFF_OFF_NONE;
	out->inner_l3_off = VOFF_OFF_NONE;
	out->inner_l4_off = VOFF_OFF_NONE;
	out->l3_end = len <= VOFF__PARSE_MAX_LEN ? (uint32_t)len : 0;
}

int voff_parse(const uint8_t *data, size_t len, enum voff_parse_start start,
	       struct voff_parsed *out)
{
	struct walk w = { .data = data, .len = len, .out = out };
	int err;

	if (!out)
		return -EINVAL;
	parsed_init(out, len);
	if ((!data && len) ||
	    (start != VOFF_PARSE_ETH && start != VOFF_PARSE_IP))
		return -EINVAL;
	if (len > VOFF__PARSE_MAX_LEN)
		return VOFF_E_TOO_BIG;
	if (start == VOFF_PARSE_ETH)
		err = parse_eth(&w, 0, NO_LIMIT);
	else
		err = parse_raw_ip(&w);
	if (!err && w.need > len)
		err = VOFF_E_TRUNC_L3;
	return err;
}

int voff_pkt_parse(struct voff_pkt *pkt, enum voff_parse_start start,
		   struct voff_parsed *out)
{
	struct voff_parsed tmp;
	struct voff_parsed *p = &tmp;
	int err;

	if (out)
		p = out;
	if (!pkt || (!pkt->buf && pkt->len))
		return -EINVAL;
	err = voff_parse(pkt->buf ? voff_pkt_data(pkt) : NULL, pkt->len,
			 start, p);
	if (err)
		return err;
	voff_pkt_set_offsets(pkt, p);
	return 0;
}

void voff_pkt_set_offsets(struct voff_pkt *pkt, const struct voff_parsed *p)
{
	if (!p) {
		pkt->l2_off = pkt->l3_off = pkt->l4_off = VOFF_OFF_NONE;
		pkt->inner_l2_off = pkt->inner_l3_off = VOFF_OFF_NONE;
		pkt->inner_l4_off = pkt->payload_off = VOFF_OFF_NONE;
		return;
	}
	pkt->l2_off = p->l2_off;
	pkt->l3_off = p->l3_off;
	pkt->l4_off = p->l4_off;
	pkt->inner_l2_off = p->inner_l2_off;
	pkt->inner_l3_off = p->inner_l3_off;
	pkt->inner_l4_off = p->inner_l4_off;
	/* A successful parse ends every header below 0xFFFF; others clamp. */
	pkt->payload_off = p->payload_off < VOFF_OFF_NONE
				   ? (uint16_t)p->payload_off
				   : VOFF_OFF_NONE;
}
