/* SPDX-License-Identifier: MIT */
/*
 * vxlan_hash.c - the flow hash that picks a VXLAN datagram's UDP source
 * port (RFC 7348 section 5: "a hash of fields from the inner packet")
 *
 * The fields are those the underlay's ECMP and the receiving NIC's RSS
 * would see if the inner frame travelled alone, as the kernel's flow
 * dissector takes them for its vxlan: the IP addresses, the protocol and,
 * for TCP and UDP, the ports; for a frame that is not IP, its MAC
 * addresses and EtherType.
 *
 * One rule above all: a flow hashes the same in every frame.  A
 * super-packet and the plain frames of its flow (a short last segment, a
 * FIN) must leave from one source port, or the underlay may reorder them.
 * So the hash reads the header bytes only, never how far a frame happens
 * to have been parsed: the parser's l3_off is used only to skip the L2
 * header (the same bytes a walk over the VLAN tags finds), and the ports
 * are read only where the IP header's own protocol field says TCP or UDP
 * (an IPv4 packet that is no fragment; IPv6 without extension headers).
 * Fragments and extension headers fall back to addresses and protocol,
 * as the kernel does for fragments.
 *
 * The fields are hashed with SipHash-1-3 under a key each port draws at
 * open (voff__vxlan_hash_key(): getrandom()), as the kernel keys its flow
 * hash with a random secret: two voffs of a fabric map flows to source
 * ports differently, and a peer that does not know the key cannot choose
 * flows that all land on one port.  The key stays for the port's life,
 * so a flow keeps its source port.  A keyed function, not a fast mix with
 * a seed: such mixes have collisions that hold whatever the seed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <voff/pkt.h>

#include "parse_int.h"
#include "port_int.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8

/* The longest input: a tag word, the IPv6 addresses, the ports. */
#define FIELDS_MAX 40

/* ---- SipHash-1-3 (Aumasson and Bernstein) ------------------------------ */

struct sip {
	uint64_t v0, v1, v2, v3;
};

static uint64_t rotl(uint64_t x, unsigned int b)
{
	return x << b | x >> (64 - b);
}

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13) ^ s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16) ^ s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21) ^ s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17) ^ s->v2;
	s->v2 = rotl(s->v2, 32);
}

/* One message word: one compression round (the 1 of 1-3). */
static void sip_word(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	s->v0 ^= m;
}

/* The @n (at most 8) bytes at @p as a little-endian word. */
static uint64_t le64(const uint8_t *p, size_t n)
{
	uint64_t w = 0;

	for (size_t i = n; i > 0; i--)
		w = w << 8 | p[i - 1];
	return w;
}

uint64_t voff__siphash13(const uint64_t key[2], const uint8_t *p, size_t n)
{
	struct sip s = {
		key[0] ^ 0x736F6D6570736575ull, key[1] ^ 0x646F72616E646F6Dull,
		key[0] ^ 0x6C7967656E657261ull, key[1] ^ 0x7465646279746573ull,
	};
	size_t full = n & ~(size_t)7;

	for (size_t i = 0; i < full; i += 8)
		sip_word(&s, le64(p + i, 8));
	sip_word(&s, le64(p + full, n - full) | (uint64_t)(n & 0xFF) << 56);
	s.v2 ^= 0xFF;
	for (int i = 0; i < 3; i++)	/* the 3: finalization rounds */
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

void voff__vxlan_hash_key(uint64_t key[2])
{
	struct timespec ts;

	if (getrandom(key, 2 * sizeof(*key), GRND_NONBLOCK) ==
	    (ssize_t)(2 * sizeof(*key)))
		return;
	/*
	 * No entropy yet (early boot): the clocks and an address, a key no
	 * peer reads off the wire, still better than a constant one.
	 */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	key[0] = (uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec;
	clock_gettime(CLOCK_REALTIME, &ts);
	key[1] = (uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec ^
		 (uint64_t)(uintptr_t)key;
}

/* ---- the fields ---------------------------------------------------------- */

/**
 * struct fields - the bytes a flow is hashed by
 * @b:	a tag word (what kind of frame, its protocol), then the fields
 * @n:	bytes used
 */
struct fields {
	uint8_t b[FIELDS_MAX];
	size_t n;
};

static void put(struct fields *f, const uint8_t *p, size_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}

/* The tag word: what the fields are, so no two kinds hash alike. */
static void put_tag(struct fields *f, uint8_t kind, uint8_t proto,
		    uint16_t extra)
{
	const uint8_t tag[4] = { kind, proto, (uint8_t)(extra >> 8),
				 (uint8_t)extra };

	f->n = 0;
	put(f, tag, 4);
}

/* Where the L3 header starts, its EtherType in *@type; 0 when no room. */
static uint32_t l3_start(const struct voff_pkt *pkt, const uint8_t *f,
			 uint32_t len, uint32_t *type)
{
	uint32_t off = 12;

	/* The parser's answer, where it is one the walk below would give. */
	if (pkt->l2_off == 0 && pkt->l3_off != VOFF_OFF_NONE &&
	    pkt->l3_off >= 14 && pkt->l3_off <= 22 && pkt->l3_off <= len) {
		*type = voff__rd16(f + pkt->l3_off - 2);
		return pkt->l3_off;
	}
	/* Up to two VLAN tags (802.1ad outer, 802.1Q inner). */
	for (int tags = 0; tags <= 2; tags++) {
		if (off + 2 > len)
			return 0;
		*type = voff__rd16(f + off);
		if (*type != ETH_P_8021Q && *type != ETH_P_8021AD)
			return off + 2;
		off += 4;
	}
	return off + 2 <= len ? off + 2 : 0;
}

/* The IPv4 fields at @ip; Return: false when it is not a whole header. */
static bool fields_v4(const uint8_t *ip, uint32_t room, struct fields *f)
{
	uint32_t hl;

	if (room < 20 || ip[0] >> 4 != 4)
		return false;
	hl = (ip[0] & 15u) * 4;
	put_tag(f, 4, ip[9], 0);
	put(f, ip + 12, 8);
	/* Ports only in a packet that is no fragment: MF clear, offset 0. */
	if ((voff__rd16(ip + 6) & 0x3FFF) || (ip[9] != 6 && ip[9] != 17) ||
	    hl < 20 || room < hl + 4)
		return true;
	put(f, ip + hl, 4);
	return true;
}

static bool fields_v6(const uint8_t *ip, uint32_t room, struct fields *f)
{
	if (room < 40 || ip[0] >> 4 != 6)
		return false;
	put_tag(f, 6, ip[6], 0);
	put(f, ip + 8, 32);
	if ((ip[6] == 6 || ip[6] == 17) && room >= 44)
		put(f, ip + 40, 4);
	return true;
}

uint32_t voff__vxlan_flow_hash(const struct voff_pkt *pkt,
			       const uint64_t key[2])
{
	const uint8_t *d = voff_pkt_data(pkt);
	uint32_t len = pkt->len, type = 0;
	uint32_t l3 = len >= 14 ? l3_start(pkt, d, len, &type) : 0;
	struct fields f;
	bool ip = l3 && ((type == ETH_P_IP && fields_v4(d + l3, len - l3, &f)) ||
			 (type == ETH_P_IPV6 &&
			  fields_v6(d + l3, len - l3, &f)));
	uint64_t h;

	if (!ip && len < 14) {	/* too short for Ethernet: its length */
		put_tag(&f, 0xFF, 0, (uint16_t)len);
	} else if (!ip) {	/* not IP (or a broken header): MACs, type */
		put_tag(&f, 0, 0, voff__rd16(d + 12));
		put(&f, d, 12);
	}
	h = voff__siphash13(key, f.b, f.n);
	return (uint32_t)(h ^ h >> 32);
}

unsigned int voff__vxlan_srcport_pick(uint32_t hash, unsigned int n)
{
	/* Scale to [0, n) by the top bits: no division, all n reached. */
	return (unsigned int)(((uint64_t)hash * n) >> 32);
}
