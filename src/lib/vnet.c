/* SPDX-License-Identifier: MIT */
/*
 * vnet.c - virtio_net_hdr byte codec, validator, decode and encode
 *
 * The byte codec (hdr_read/hdr_write) knows layouts and byte orders only.
 * The validator, check(), takes a host-order header and the frame it
 * describes and either rejects the pair with one VOFF_E_VNET_* code or
 * produces the packet metadata (struct verdict).  Decode applies a verdict
 * to a packet; encode builds a header from a packet and runs check() on it
 * before writing, so the two directions cannot disagree.
 *
 * check() runs in three stages, cheapest first:
 *  1. rules on the header alone (flags, gso_type, gso_size, hdr_len, the
 *     kernel's loose csum_start bounds, the tunnel offsets' order), which
 *     mirror virtio_net_hdr_to_skb() and tun_get_user() in the kernel;
 *  2. voff_parse() of the frame, needed only when an offload is claimed;
 *  3. voff's stricter rules against the parsed headers: csum_start is the
 *     real TCP/UDP header, gso_type matches the real protocols, the
 *     payload gives the segment count, hdr_len is recomputed.
 * The frame is parsed at most once per call, when a rule first needs it
 * (struct frame): encode's header building and check() share the parse,
 * and voff_vnet_encode_parsed() takes one the caller made for its own
 * decision.  A plain frame is not parsed at all on the way out (unless a
 * receive channel's hash report names its protocols); decode parses it
 * after check() only for the header offsets it promises.
 * docs/vnet.md lists every rule with its kernel counterpart.
 */
#include <errno.h>
#include <string.h>

#include <voff/err.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/vnet.h>

#define ETH_HLEN 14
#define IPV4_MIN 20
#define IPV6_LEN 40
#define TCP_MIN 20
#define UDP_LEN 8
#define TCP_CSUM_OFF 16
#define UDP_CSUM_OFF 6
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17

#define TNL_BITS (VOFF_VNET_GSO_UDP_TUNNEL_IPV4 | VOFF_VNET_GSO_UDP_TUNNEL_IPV6)
#define KNOWN_FLAGS (VOFF_VNET_F_NEEDS_CSUM | VOFF_VNET_F_DATA_VALID | \
		     VOFF_VNET_F_UDP_TUNNEL_CSUM)
/* VOFF_GSO_* bits that a virtio header cannot carry but may silently lose. */
#define GSO_DROPPABLE (VOFF_GSO_DODGY | VOFF_GSO_TCP_FIXEDID | \
		       VOFF_GSO_TCP_FIXEDID_INNER)

/* ---- byte codec ---------------------------------------------------------- */

static bool host_is_le(void)
{
	const uint16_t one = 1;

	return *(const uint8_t *)&one == 1;
}

static bool order_is_le(uint8_t order)
{
	return order == VOFF_VNET_LE ||
	       (order == VOFF_VNET_NATIVE && host_is_le());
}

static uint16_t get16(bool le, const uint8_t *p)
{
	return le ? (uint16_t)(p[0] | p[1] << 8) : (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(bool le, uint8_t *p, uint16_t v)
{
	p[le ? 0 : 1] = (uint8_t)v;
	p[le ? 1 : 0] = (uint8_t)(v >> 8);
}

static uint32_t get32(bool le, const uint8_t *p)
{
	uint32_t a = get16(le, p), b = get16(le, p + 2);

	return le ? a | b << 16 : a << 16 | b;
}

static void put32(bool le, uint8_t *p, uint32_t v)
{
	put16(le, p + (le ? 0 : 2), (uint16_t)v);
	put16(le, p + (le ? 2 : 0), (uint16_t)(v >> 16));
}

int voff_vnet_cfg_check(const struct voff_vnet_cfg *cfg)
{
	switch (cfg->hdr_size) {
	case VOFF_VNET_HDR_LEN:
	case VOFF_VNET_HDR_MRG_LEN:
	case VOFF_VNET_HDR_HASH_LEN:
	case VOFF_VNET_HDR_TNL_LEN:
		break;
	default:
		return -EINVAL;
	}
	if (cfg->order > VOFF_VNET_BE || cfg->mode > VOFF_VNET_L3 ||
	    cfg->dir > VOFF_VNET_RX)
		return -EINVAL;
	if (cfg->tunnel && cfg->hdr_size < VOFF_VNET_HDR_TNL_LEN)
		return -EINVAL;
	return 0;
}

int voff_vnet_hdr_read(const struct voff_vnet_cfg *cfg, const void *src,
		       size_t len, struct voff_vnet_hdr *out)
{
	struct voff_vnet_wire_tnl w;
	bool le = order_is_le(cfg->order);
	int err = voff_vnet_cfg_check(cfg);

	if (err)
		return err;
	if (len < cfg->hdr_size)
		return VOFF_E_VNET_TRUNC;
	/* One copy, then only the copy is read: see "TOCTOU" in vnet.h. */
	memset(&w, 0, sizeof(w));
	memcpy(&w, src, cfg->hdr_size);
	out->flags = w.hash.v1.hdr.flags;
	out->gso_type = w.hash.v1.hdr.gso_type;
	out->hdr_len = get16(le, w.hash.v1.hdr.hdr_len);
	out->gso_size = get16(le, w.hash.v1.hdr.gso_size);
	out->csum_start = get16(le, w.hash.v1.hdr.csum_start);
	out->csum_offset = get16(le, w.hash.v1.hdr.csum_offset);
	out->num_buffers = get16(le, w.hash.v1.num_buffers);
	out->hash_value = get32(le, w.hash.hash_value);
	out->hash_report = get16(le, w.hash.hash_report);
	out->outer_th_offset = get16(le, w.outer_th_offset);
	out->inner_nh_offset = get16(le, w.inner_nh_offset);
	return cfg->hdr_size;
}

int voff_vnet_hdr_write(const struct voff_vnet_cfg *cfg,
			const struct voff_vnet_hdr *h, void *dst, size_t cap)
{
	struct voff_vnet_wire_tnl w;
	bool le = order_is_le(cfg->order);
	int err = voff_vnet_cfg_check(cfg);

	if (err)
		return err;
	if (cap < cfg->hdr_size)
		return -ENOSPC;
	memset(&w, 0, sizeof(w));
	w.hash.v1.hdr.flags = h->flags;
	w.hash.v1.hdr.gso_type = h->gso_type;
	put16(le, w.hash.v1.hdr.hdr_len, h->hdr_len);
	put16(le, w.hash.v1.hdr.gso_size, h->gso_size);
	put16(le, w.hash.v1.hdr.csum_start, h->csum_start);
	put16(le, w.hash.v1.hdr.csum_offset, h->csum_offset);
	put16(le, w.hash.v1.num_buffers, h->num_buffers);
	put32(le, w.hash.hash_value, h->hash_value);
	put16(le, w.hash.hash_report, h->hash_report);
	put16(le, w.outer_th_offset, h->outer_th_offset);
	put16(le, w.inner_nh_offset, h->inner_nh_offset);
	memcpy(dst, &w, cfg->hdr_size);
	return cfg->hdr_size;
}

/* ---- the validator ------------------------------------------------------- */

/*
 * struct gso_kind - what a header's gso_type asks for
 * @base:	VOFF_VNET_GSO_TCPV4/UDP/TCPV6/UDP_L4, or NONE
 * @outer:	4 or 6 for tunnel GSO (the outer IP version), else 0
 * @ecn:	the ECN bit
 */
struct gso_kind {
	uint8_t base;
	uint8_t outer;
	bool ecn;
};

/*
 * struct verdict - what an accepted header means for the packet
 * @csum, @csum_start, @csum_offset, @gso_type, @gso_size, @gso_segs,
 * @hdr_len, @hash: the values for struct voff_pkt
 * @set_hash:	@hash is meaningful (receive channel with a hash layout)
 */
struct verdict {
	uint8_t csum;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint32_t gso_type;
	uint16_t gso_size;
	uint16_t gso_segs;
	uint16_t hdr_len;
	uint32_t hash;
	bool set_hash;
};

/* struct frame.err before voff_parse() has run (its codes are negative). */
#define NOT_PARSED 1

/*
 * struct frame - the frame a header describes, parsed at most once
 * @data:	first byte (the Ethernet or IP header, as the channel says)
 * @len:	bytes
 * @start:	where voff_parse() starts: the channel's mode
 * @p:		the parse once made (the caller's or @store's), else NULL
 * @err:	NOT_PARSED, or voff_parse()'s result
 * @store:	where a parse made here goes: @own, or the caller's room
 * @own:	room for a parse made here
 */
struct frame {
	const uint8_t *data;
	size_t len;
	enum voff_parse_start start;
	const struct voff_parsed *p;
	int err;
	struct voff_parsed *store;
	struct voff_parsed own;
};

/* @given: a successful parse of the frame the caller has, or NULL. */
static void frame_init(struct frame *f, const struct voff_vnet_cfg *cfg,
		       const uint8_t *data, size_t len,
		       const struct voff_parsed *given)
{
	f->data = data;
	f->len = len;
	f->start = cfg->mode == VOFF_VNET_L2 ? VOFF_PARSE_ETH : VOFF_PARSE_IP;
	f->p = given;
	f->err = given ? 0 : NOT_PARSED;
	f->store = &f->own;
}

/* The parse, made on first use.  Return: 0 (@f->p set) or its error. */
static int frame_parse(struct frame *f)
{
	if (f->err == NOT_PARSED) {
		f->err = voff_parse(f->data, f->len, f->start, f->store);
		if (!f->err)
			f->p = f->store;
	}
	return f->err;
}

static bool is_tcp(uint8_t base)
{
	return base == VOFF_VNET_GSO_TCPV4 || base == VOFF_VNET_GSO_TCPV6;
}

/* The gso_type byte alone: virtio_net_hdr_to_skb()'s switch, plus voff's. */
static int classify(const struct voff_vnet_cfg *cfg,
		    const struct voff_vnet_hdr *h, struct gso_kind *k)
{
	uint8_t tnl = h->gso_type & TNL_BITS;

	k->base = h->gso_type & ~(TNL_BITS | VOFF_VNET_GSO_ECN);
	k->ecn = h->gso_type & VOFF_VNET_GSO_ECN;
	k->outer = 0;
	if (h->flags & ~KNOWN_FLAGS)
		return VOFF_E_VNET_FLAGS;
	if (h->gso_type == VOFF_VNET_GSO_NONE) {
		if (h->flags & VOFF_VNET_F_UDP_TUNNEL_CSUM)
			return VOFF_E_VNET_FLAGS;
		return 0;
	}
	if (tnl && !cfg->tunnel)
		return VOFF_E_VNET_GSO_TYPE;
	switch (k->base) {
	case VOFF_VNET_GSO_TCPV4:
	case VOFF_VNET_GSO_TCPV6:
	case VOFF_VNET_GSO_UDP:
	case VOFF_VNET_GSO_UDP_L4:
		break;
	default:
		return VOFF_E_VNET_GSO_TYPE;
	}
	if (tnl == TNL_BITS || (tnl && k->base == VOFF_VNET_GSO_UDP))
		return VOFF_E_VNET_TNL_TYPE;
	if (tnl)
		k->outer = tnl == VOFF_VNET_GSO_UDP_TUNNEL_IPV4 ? 4 : 6;
	if (k->ecn && k->base == VOFF_VNET_GSO_UDP_L4)
		return VOFF_E_VNET_USO_ECN;
	if (k->ecn && !is_tcp(k->base))
		return VOFF_E_VNET_GSO_ECN;
	if ((h->flags & VOFF_VNET_F_UDP_TUNNEL_CSUM) && !tnl)
		return VOFF_E_VNET_FLAGS;
	if (tnl && (h->flags & VOFF_VNET_F_DATA_VALID))
		return VOFF_E_VNET_TNL_DATA_VALID;
	if (h->gso_size == 0)
		return VOFF_E_VNET_GSO_SIZE_ZERO;
	if (h->gso_size == VOFF_VNET_GSO_BY_FRAGS)
		return VOFF_E_VNET_GSO_BY_FRAGS;
	return 0;
}

/* hdr_len and frame length: tun_get_user() and tun_vnet_hdr_get(). */
static int check_lengths(const struct voff_vnet_cfg *cfg,
			 const struct voff_vnet_hdr *h, const uint8_t *frame,
			 size_t len)
{
	uint32_t hl = h->hdr_len;

	/* tun and packet raise hdr_len to cover the checksum field. */
	if ((h->flags & VOFF_VNET_F_NEEDS_CSUM) &&
	    (uint32_t)h->csum_start + h->csum_offset + 2 > hl)
		hl = (uint32_t)h->csum_start + h->csum_offset + 2;
	if (hl > len)
		return VOFF_E_VNET_HDR_LEN;
	if (cfg->mode == VOFF_VNET_L2) {
		if (len < ETH_HLEN)
			return VOFF_E_VNET_FRAME_SHORT;
		if (hl && hl < ETH_HLEN)
			return VOFF_E_VNET_HDR_LEN_SHORT;
		return 0;
	}
	if (len < 1)
		return VOFF_E_VNET_FRAME_SHORT;
	if (frame[0] >> 4 != 4 && frame[0] >> 4 != 6)
		return VOFF_E_VNET_NOT_IP;
	return 0;
}

/* The kernel's own checksum and tunnel-offset rules (header only). */
static int check_kernel_csum(const struct voff_vnet_cfg *cfg,
			     const struct voff_vnet_hdr *h,
			     const struct gso_kind *k, size_t len)
{
	uint32_t thlen = 0, nh_min = IPV4_MIN, need, cs = h->csum_start;
	uint32_t co = h->csum_offset, oth_min;

	if (!(h->flags & VOFF_VNET_F_NEEDS_CSUM))
		return 0;
	if (is_tcp(k->base))
		thlen = TCP_MIN;
	else if (k->base != VOFF_VNET_GSO_NONE)
		thlen = UDP_LEN;
	if (k->base == VOFF_VNET_GSO_TCPV6)
		nh_min = IPV6_LEN;
	need = cs + (thlen > co + 2 ? thlen : co + 2);
	if (need > len)
		return VOFF_E_VNET_CSUM_PAST_END;
	if (cs < nh_min)
		return VOFF_E_VNET_CSUM_START_SHORT;
	if (!k->outer)
		return 0;
	/* Tunnel GSO: outer L4 after the outer IP, inner IP after it. */
	oth_min = (cfg->mode == VOFF_VNET_L2 ? ETH_HLEN : 0) +
		  (k->outer == 4 ? IPV4_MIN : IPV6_LEN);
	if (h->outer_th_offset < oth_min ||
	    h->inner_nh_offset < (uint32_t)h->outer_th_offset + UDP_LEN ||
	    cs < (uint32_t)h->inner_nh_offset + nh_min)
		return VOFF_E_VNET_TNL_OFFSETS;
	return 0;
}

/* GSO needs NEEDS_CSUM and the right checksum field for its protocol. */
static int check_gso_csum(const struct voff_vnet_hdr *h,
			  const struct gso_kind *k)
{
	bool partial = h->flags & VOFF_VNET_F_NEEDS_CSUM;

	if (k->base == VOFF_VNET_GSO_NONE)
		return 0;
	if (k->base == VOFF_VNET_GSO_UDP_L4) {
		if (!partial)
			return VOFF_E_VNET_USO_NO_CSUM;
		if (h->csum_offset != UDP_CSUM_OFF)
			return VOFF_E_VNET_USO_CSUM_OFFSET;
		return 0;
	}
	/* The kernel accepts TCP and UFO GSO without NEEDS_CSUM: voff not. */
	if (!partial)
		return VOFF_E_VNET_GSO_NO_CSUM;
	if (is_tcp(k->base) && h->csum_offset != TCP_CSUM_OFF)
		return VOFF_E_VNET_TCP_CSUM_OFFSET;
	if (k->base == VOFF_VNET_GSO_UDP && h->csum_offset != UDP_CSUM_OFF)
		return VOFF_E_VNET_CSUM_OFFSET;
	return 0;
}

/* One past the header recorded at @off, or 0 when none is. */
static uint32_t layer_end(const struct voff_parsed *p, uint16_t off)
{
	for (unsigned int i = 0; i < p->n_layers; i++)
		if (p->layers[i].off == off &&
		    (p->layers[i].proto == VOFF_PROTO_TCP ||
		     p->layers[i].proto == VOFF_PROTO_UDP))
			return (uint32_t)off + p->layers[i].len;
	return 0;
}

/*
 * struct l4ref - the transport header a GSO type or a checksum refers to
 * @l3:		IP version
 * @proto:	IP protocol
 * @off:	header offset
 * @frag:	its IP packet is a fragment
 */
struct l4ref {
	uint8_t l3;
	uint8_t proto;
	uint16_t off;
	bool frag;
};

static struct l4ref outer_l4(const struct voff_parsed *p)
{
	return (struct l4ref){ p->l3_proto, p->l4_proto, p->l4_off,
			       (p->flags & VOFF_PF_FRAG) != 0 };
}

static struct l4ref inner_l4(const struct voff_parsed *p)
{
	if (!p->tunnel)
		return (struct l4ref){ 0, 0, VOFF_OFF_NONE, false };
	return (struct l4ref){ p->inner_l3_proto, p->inner_l4_proto,
			       p->inner_l4_off,
			       (p->flags & VOFF_PF_INNER_FRAG) != 0 };
}

static bool l4_matches(const struct l4ref *l, uint8_t base)
{
	if (l->off == VOFF_OFF_NONE || l->frag)
		return false;
	switch (base) {
	case VOFF_VNET_GSO_TCPV4:
		return l->l3 == 4 && l->proto == IPPROTO_TCP_;
	case VOFF_VNET_GSO_TCPV6:
		return l->l3 == 6 && l->proto == IPPROTO_TCP_;
	default:
		return (l->l3 == 4 || l->l3 == 6) && l->proto == IPPROTO_UDP_;
	}
}

/* gso_type against the parsed protocols; tunnel offsets against the tunnel. */
static int check_gso_proto(const struct voff_vnet_hdr *h,
			   const struct gso_kind *k,
			   const struct voff_parsed *p, struct l4ref *l4)
{
	if (!k->outer) {
		*l4 = outer_l4(p);
		return l4_matches(l4, k->base) ? 0 : VOFF_E_VNET_GSO_PROTO;
	}
	if (p->l3_proto != k->outer || p->l4_proto != IPPROTO_UDP_ ||
	    (p->tunnel != VOFF_PROTO_VXLAN && p->tunnel != VOFF_PROTO_GENEVE) ||
	    (p->flags & VOFF_PF_FRAG))
		return VOFF_E_VNET_TNL_PARSE;
	if (h->outer_th_offset != p->l4_off ||
	    h->inner_nh_offset != p->inner_l3_off)
		return VOFF_E_VNET_TNL_PARSE;
	*l4 = inner_l4(p);
	return l4_matches(l4, k->base) ? 0 : VOFF_E_VNET_GSO_PROTO;
}

/* csum_start must name a real TCP/UDP header and csum_offset its field. */
static int check_csum_l4(const struct voff_vnet_hdr *h,
			 const struct gso_kind *k, const struct voff_parsed *p,
			 const struct l4ref *gso_l4)
{
	struct l4ref l;

	if (k->base != VOFF_VNET_GSO_NONE) {
		l = *gso_l4;
	} else {
		l = outer_l4(p);
		if (h->csum_start != l.off)
			l = inner_l4(p);
	}
	if (h->csum_start != l.off || l.off == VOFF_OFF_NONE || l.frag ||
	    (l.proto != IPPROTO_TCP_ && l.proto != IPPROTO_UDP_))
		return VOFF_E_VNET_CSUM_NOT_L4;
	if (h->csum_offset !=
	    (l.proto == IPPROTO_TCP_ ? TCP_CSUM_OFF : UDP_CSUM_OFF))
		return VOFF_E_VNET_CSUM_OFFSET;
	return 0;
}

static uint32_t gso_bits(const struct voff_vnet_hdr *h,
			 const struct gso_kind *k)
{
	uint32_t t;

	switch (k->base) {
	case VOFF_VNET_GSO_TCPV4:
		t = VOFF_GSO_TCPV4;
		break;
	case VOFF_VNET_GSO_TCPV6:
		t = VOFF_GSO_TCPV6;
		break;
	case VOFF_VNET_GSO_UDP:
		t = VOFF_GSO_UDP;
		break;
	default:
		t = VOFF_GSO_UDP_L4;
		break;
	}
	if (k->ecn)
		t |= VOFF_GSO_TCP_ECN;
	if (k->outer)
		t |= VOFF_GSO_UDP_TUNNEL;
	if (h->flags & VOFF_VNET_F_UDP_TUNNEL_CSUM)
		t |= VOFF_GSO_UDP_TUNNEL_CSUM;
	return t;
}

/*
 * One past the IP packet that holds the segmented L4 header: the outer
 * one, or for tunnel GSO the inner one, which may end before the outer
 * (the parser allows it).  The parser has checked the length fields.
 */
static uint32_t gso_ip_end(const struct gso_kind *k,
			   const struct voff_parsed *p, const uint8_t *frame)
{
	const uint8_t *ip;

	if (!k->outer)
		return p->l3_end;
	ip = frame + p->inner_l3_off;
	if (p->inner_l3_proto == 4)
		return (uint32_t)p->inner_l3_off + get16(false, ip + 2);
	return (uint32_t)p->inner_l3_off + IPV6_LEN + get16(false, ip + 4);
}

/*
 * Segment count.  The payload is what follows the headers up to the end of
 * the IP packet; for UFO the kernel counts the UDP header in it.  A payload
 * that fits one segment makes a plain frame, as in the kernel, and may be
 * followed by Ethernet padding; a real super-packet may not, nor may a
 * tunnel super-packet have bytes between its inner and outer ends.
 */
static int check_segs(const struct voff_vnet_cfg *cfg,
		      const struct voff_vnet_hdr *h, const struct gso_kind *k,
		      const struct voff_parsed *p, const struct l4ref *l4,
		      const uint8_t *frame, size_t len, struct verdict *v)
{
	uint32_t end = layer_end(p, l4->off), ip_end, payload, segs;
	uint32_t max = cfg->max_segs ? cfg->max_segs : VOFF_VNET_GSO_MAX_SEGS;

	ip_end = gso_ip_end(k, p, frame);
	if (end == 0 || end > ip_end)
		return VOFF_E_VNET_GSO_PROTO;
	payload = ip_end - end;
	if (k->base == VOFF_VNET_GSO_UDP)
		payload += UDP_LEN;
	if (k->base == VOFF_VNET_GSO_UDP_L4 &&
	    payload > (uint32_t)h->gso_size * VOFF_VNET_USO_MAX_SEGS)
		return VOFF_E_VNET_USO_SEGS;
	if (payload <= h->gso_size)
		return 0;
	/* Bytes after the IP packet would be cut into segments as payload. */
	if (p->l3_end != len || ip_end != p->l3_end)
		return VOFF_E_VNET_GSO_PADDED;
	segs = (payload + h->gso_size - 1) / h->gso_size;
	if (segs > max)
		return VOFF_E_VNET_GSO_SEGS;
	v->gso_type = gso_bits(h, k);
	v->gso_size = h->gso_size;
	v->gso_segs = (uint16_t)segs;
	v->hdr_len = (uint16_t)end;
	return 0;
}

/* Stage 3: everything that needs the parsed frame. */
static int check_parsed(const struct voff_vnet_cfg *cfg,
			const struct voff_vnet_hdr *h, const struct gso_kind *k,
			const uint8_t *frame, size_t len,
			const struct voff_parsed *p, struct verdict *v)
{
	struct l4ref l4 = { 0, 0, VOFF_OFF_NONE, false };
	int err;

	if (k->base != VOFF_VNET_GSO_NONE) {
		err = check_gso_proto(h, k, p, &l4);
		if (err)
			return err;
	}
	if (h->flags & VOFF_VNET_F_NEEDS_CSUM) {
		err = check_csum_l4(h, k, p, &l4);
		if (err)
			return err;
		v->csum = VOFF_CSUM_PARTIAL;
		v->csum_start = h->csum_start;
		v->csum_offset = h->csum_offset;
	}
	if (k->base == VOFF_VNET_GSO_NONE)
		return 0;
	return check_segs(cfg, h, k, p, &l4, frame, len, v);
}

static int check_hash(const struct voff_vnet_cfg *cfg,
		      const struct voff_vnet_hdr *h, struct verdict *v)
{
	if (cfg->dir != VOFF_VNET_RX || cfg->hdr_size < VOFF_VNET_HDR_HASH_LEN)
		return 0;
	if (h->hash_report > VOFF_VNET_HASH_REPORT_MAX)
		return VOFF_E_VNET_HASH_REPORT;
	v->set_hash = true;
	v->hash = h->hash_report ? h->hash_value : 0;
	return 0;
}

/*
 * check() - the validator: accept @h for @f or say why not
 * @f:	the frame; parsed (once) only when @h claims an offload
 * @v:	receives the verdict; its contents are undefined on failure
 */
static int check(const struct voff_vnet_cfg *cfg, const struct voff_vnet_hdr *h,
		 struct frame *f, struct verdict *v)
{
	struct gso_kind k;
	int err;

	memset(v, 0, sizeof(*v));
	err = classify(cfg, h, &k);
	if (!err)
		err = check_lengths(cfg, h, f->data, f->len);
	if (!err)
		err = check_kernel_csum(cfg, h, &k, f->len);
	if (!err)
		err = check_gso_csum(h, &k);
	if (!err)
		err = check_hash(cfg, h, v);
	if (err)
		return err;
	if ((h->flags & VOFF_VNET_F_DATA_VALID) && cfg->dir == VOFF_VNET_RX)
		v->csum = VOFF_CSUM_VALID;
	if (!(h->flags & VOFF_VNET_F_NEEDS_CSUM) &&
	    k.base == VOFF_VNET_GSO_NONE)
		return 0;
	err = frame_parse(f);
	if (err)
		return err;
	return check_parsed(cfg, h, &k, f->data, f->len, f->p, v);
}

/* ---- decode -------------------------------------------------------------- */

/*
 * Set @pkt from @v, and its header offsets from the frame's parse (made
 * here when check() did not need it: decode promises the offsets of every
 * frame that parses, unless @cfg->plain_unparsed).
 */
static void apply(const struct voff_vnet_cfg *cfg, const struct verdict *v,
		  struct frame *f, struct voff_pkt *pkt)
{
	if (cfg->plain_unparsed && f->err == NOT_PARSED)
		voff_pkt_set_offsets(pkt, NULL);
	else
		voff_pkt_set_offsets(pkt, frame_parse(f) ? NULL : f->p);
	pkt->csum = v->csum;
	pkt->csum_start = v->csum_start;
	pkt->csum_offset = v->csum_offset;
	pkt->gso_type = v->gso_type;
	pkt->gso_size = v->gso_size;
	pkt->gso_segs = v->gso_segs;
	pkt->hdr_len = v->hdr_len;
	if (v->set_hash)
		pkt->hash = v->hash;
}

int voff_vnet_decode(const struct voff_vnet_cfg *cfg, const void *hdr,
		     size_t hdr_avail, struct voff_pkt *pkt)
{
	struct voff_vnet_hdr h;
	struct verdict v;
	struct frame f;
	int err;

	err = voff_vnet_hdr_read(cfg, hdr, hdr_avail, &h);
	if (err < 0)
		return err;
	frame_init(&f, cfg, voff_pkt_data(pkt), pkt->len, NULL);
	err = check(cfg, &h, &f, &v);
	if (err)
		return err;
	apply(cfg, &v, &f, pkt);
	return 0;
}

int voff_vnet_pkt_pull_parsed(const struct voff_vnet_cfg *cfg,
			      struct voff_pkt *pkt, struct voff_parsed *p)
{
	struct voff_vnet_hdr h;
	struct verdict v;
	struct frame f;
	int err;

	err = voff_vnet_hdr_read(cfg, voff_pkt_data(pkt), pkt->len, &h);
	if (err < 0)
		return err;
	frame_init(&f, cfg, voff_pkt_data(pkt) + cfg->hdr_size,
		   pkt->len - cfg->hdr_size, NULL);
	if (p)
		f.store = p;
	err = check(cfg, &h, &f, &v);
	if (err)
		return err;
	voff_pkt_pull(pkt, cfg->hdr_size);
	apply(cfg, &v, &f, pkt);
	return p && f.p == p;
}

int voff_vnet_pkt_pull(const struct voff_vnet_cfg *cfg, struct voff_pkt *pkt)
{
	int rc = voff_vnet_pkt_pull_parsed(cfg, pkt, NULL);

	return rc < 0 ? rc : 0;
}

/* ---- encode -------------------------------------------------------------- */

/* VOFF_GSO_* bits to the virtio gso_type byte (outer version aside). */
static int virtio_gso_type(const struct voff_vnet_cfg *cfg, uint32_t t,
			   uint8_t outer, struct voff_vnet_hdr *h)
{
	uint32_t base = t & (VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6 | VOFF_GSO_UDP |
			     VOFF_GSO_UDP_L4);
	uint32_t tnl = t & (VOFF_GSO_UDP_TUNNEL | VOFF_GSO_UDP_TUNNEL_CSUM);

	t &= ~(base | tnl | GSO_DROPPABLE);
	if (base == VOFF_GSO_TCPV4)
		h->gso_type = VOFF_VNET_GSO_TCPV4;
	else if (base == VOFF_GSO_TCPV6)
		h->gso_type = VOFF_VNET_GSO_TCPV6;
	else if (base == VOFF_GSO_UDP)
		h->gso_type = VOFF_VNET_GSO_UDP;
	else if (base == VOFF_GSO_UDP_L4)
		h->gso_type = VOFF_VNET_GSO_UDP_L4;
	else
		return VOFF_E_VNET_GSO_TYPE;
	if (t & VOFF_GSO_TCP_ECN) {
		h->gso_type |= VOFF_VNET_GSO_ECN;
		t &= ~VOFF_GSO_TCP_ECN;
	}
	if (t)
		return VOFF_E_VNET_GSO_TYPE;
	if (tnl) {
		if (!cfg->tunnel || (outer != 4 && outer != 6))
			return VOFF_E_VNET_GSO_TYPE;
		h->gso_type |= outer == 4 ? VOFF_VNET_GSO_UDP_TUNNEL_IPV4 :
					    VOFF_VNET_GSO_UDP_TUNNEL_IPV6;
		if (tnl & VOFF_GSO_UDP_TUNNEL_CSUM)
			h->flags |= VOFF_VNET_F_UDP_TUNNEL_CSUM;
	}
	return 0;
}

static uint16_t hash_report(const struct voff_parsed *p)
{
	bool tcp = p->l4_proto == IPPROTO_TCP_;
	bool udp = p->l4_proto == IPPROTO_UDP_;

	if (p->l3_proto == 4)
		return tcp ? VOFF_VNET_HASH_TCPV4 :
		       udp ? VOFF_VNET_HASH_UDPV4 : VOFF_VNET_HASH_IPV4;
	if (p->l3_proto == 6)
		return tcp ? VOFF_VNET_HASH_TCPV6 :
		       udp ? VOFF_VNET_HASH_UDPV6 : VOFF_VNET_HASH_IPV6;
	return VOFF_VNET_HASH_NONE;
}

/*
 * Build the header fields of @pkt, before validation.  The frame is parsed
 * only for what a header field takes from it: a GSO packet's outer IP
 * version and tunnel offsets, a receive channel's hash report.
 */
static int build(const struct voff_vnet_cfg *cfg, const struct voff_pkt *pkt,
		 struct frame *f, struct voff_vnet_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (pkt->csum == VOFF_CSUM_PARTIAL) {
		h->flags = VOFF_VNET_F_NEEDS_CSUM;
		h->csum_start = pkt->csum_start;
		h->csum_offset = pkt->csum_offset;
	} else if (pkt->csum == VOFF_CSUM_VALID && cfg->dir == VOFF_VNET_RX) {
		h->flags = VOFF_VNET_F_DATA_VALID;
	}
	if (voff_pkt_is_gso(pkt)) {
		bool parsed = frame_parse(f) == 0;
		int err = virtio_gso_type(cfg, pkt->gso_type,
					  parsed ? f->p->l3_proto : 0, h);

		if (err)
			return err;
		h->gso_size = pkt->gso_size;
		if (parsed && (pkt->gso_type & VOFF_GSO_UDP_TUNNEL)) {
			h->outer_th_offset = f->p->l4_off;
			h->inner_nh_offset = f->p->inner_l3_off;
		}
	}
	if (cfg->dir == VOFF_VNET_RX) {
		h->num_buffers = 1;
		/* Only the 20 and 24-byte layouts carry a hash. */
		if (pkt->hash && cfg->hdr_size >= VOFF_VNET_HDR_HASH_LEN &&
		    frame_parse(f) == 0) {
			h->hash_value = pkt->hash;
			h->hash_report = hash_report(f->p);
		}
	}
	return 0;
}

/* Whether @p can be a parse of a @len-byte frame starting as @cfg says. */
static bool parse_fits(const struct voff_vnet_cfg *cfg,
		       const struct voff_parsed *p, size_t len)
{
	if (p->l3_end > len)
		return false;
	if (cfg->mode == VOFF_VNET_L2)
		return p->l2_off == 0;
	return p->l2_off == VOFF_OFF_NONE && p->l3_off == 0;
}

int voff_vnet_encode(const struct voff_vnet_cfg *cfg,
		     const struct voff_pkt *pkt, void *dst, size_t cap)
{
	return voff_vnet_encode_parsed(cfg, pkt, NULL, dst, cap);
}

int voff_vnet_encode_parsed(const struct voff_vnet_cfg *cfg,
			    const struct voff_pkt *pkt,
			    const struct voff_parsed *p, void *dst, size_t cap)
{
	struct voff_vnet_hdr h;
	struct verdict v;
	struct frame f;
	int err = voff_vnet_cfg_check(cfg);

	if (err)
		return err;
	if (cap < cfg->hdr_size)
		return -ENOSPC;
	if ((cfg->mode == VOFF_VNET_L2 && pkt->l2_off != VOFF_OFF_NONE &&
	     pkt->l2_off != 0) ||
	    (cfg->mode == VOFF_VNET_L3 &&
	     ((pkt->l3_off != VOFF_OFF_NONE && pkt->l3_off != 0) ||
	      pkt->l2_off != VOFF_OFF_NONE)))
		return -EINVAL;
	if (p && !parse_fits(cfg, p, pkt->len))
		return -EINVAL;
	frame_init(&f, cfg, voff_pkt_data(pkt), pkt->len, p);
	err = build(cfg, pkt, &f, &h);
	if (err)
		return err;
	err = check(cfg, &h, &f, &v);
	if (err)
		return err;
	/* A payload that fits one segment is sent as a plain frame. */
	if (!v.gso_type) {
		h.gso_type = VOFF_VNET_GSO_NONE;
		h.gso_size = 0;
		h.flags &= (uint8_t)~VOFF_VNET_F_UDP_TUNNEL_CSUM;
		h.outer_th_offset = 0;
		h.inner_nh_offset = 0;
	}
	h.hdr_len = v.hdr_len;
	return voff_vnet_hdr_write(cfg, &h, dst, cap);
}

int voff_vnet_pkt_push(const struct voff_vnet_cfg *cfg, struct voff_pkt *pkt)
{
	return voff_vnet_pkt_push_parsed(cfg, pkt, NULL);
}

int voff_vnet_pkt_push_parsed(const struct voff_vnet_cfg *cfg,
			      struct voff_pkt *pkt,
			      const struct voff_parsed *p)
{
	uint8_t tmp[VOFF_VNET_HDR_TNL_LEN];
	int n = voff_vnet_encode_parsed(cfg, pkt, p, tmp, sizeof(tmp));
	uint8_t *d;

	if (n < 0)
		return n;
	if (voff_pkt_headroom(pkt) < (uint32_t)n)
		return VOFF_E_NO_HEADROOM;
	d = voff_pkt_push(pkt, (uint32_t)n);
	if (!d)		/* a set offset would pass 16 bits */
		return VOFF_E_HDR_OFF;
	memcpy(d, tmp, (size_t)n);
	return n;
}
