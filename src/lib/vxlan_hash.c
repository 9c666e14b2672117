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
 */
#include <stdbool.h>
#include <stdint.h>

#include <voff/pkt.h>

#include "parse_int.h"
#include "port_int.h"

#define ETH_P_IP 0x0800
#define ETH_P_IPV6 0x86DD
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88A8

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Fold word @w into running hash @h (a multiply-rotate step). */
static uint32_t mix(uint32_t h, uint32_t w)
{
	h ^= w * 0xCC9E2D51u;
	h = h << 13 | h >> 19;
	return h * 5 + 0xE6546B64u;
}

/* Fold @n bytes at @p in, four at a time (@n a multiple of 4). */
static uint32_t mix_bytes(uint32_t h, const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += 4)
		h = mix(h, rd32(p + i));
	return h;
}

/* The final avalanche, so every input bit reaches the top bits. */
static uint32_t fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	return h ^ (h >> 16);
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
static bool hash_v4(const uint8_t *ip, uint32_t room, uint32_t *h)
{
	uint32_t hl;

	if (room < 20 || ip[0] >> 4 != 4)
		return false;
	hl = (ip[0] & 15u) * 4;
	*h = mix_bytes(*h, ip + 12, 8);
	*h = mix(*h, ip[9]);
	/* Ports only in a packet that is no fragment: MF clear, offset 0. */
	if ((voff__rd16(ip + 6) & 0x3FFF) || (ip[9] != 6 && ip[9] != 17) ||
	    hl < 20 || room < hl + 4)
		return true;
	*h = mix(*h, rd32(ip + hl));
	return true;
}

static bool hash_v6(const uint8_t *ip, uint32_t room, uint32_t *h)
{
	if (room < 40 || ip[0] >> 4 != 6)
		return false;
	*h = mix_bytes(*h, ip + 8, 32);
	*h = mix(*h, ip[6]);
	if ((ip[6] == 6 || ip[6] == 17) && room >= 44)
		*h = mix(*h, rd32(ip + 40));
	return true;
}

uint32_t voff__vxlan_flow_hash(const struct voff_pkt *pkt)
{
	const uint8_t *f = voff_pkt_data(pkt);
	uint32_t len = pkt->len, type = 0, h = 0x5EED1A7Eu;
	uint32_t l3 = len >= 14 ? l3_start(pkt, f, len, &type) : 0;

	if (l3 && type == ETH_P_IP && hash_v4(f + l3, len - l3, &h))
		return fmix(h ^ 4);
	if (l3 && type == ETH_P_IPV6 && hash_v6(f + l3, len - l3, &h))
		return fmix(h ^ 6);
	/* Not IP (or a broken IP header): the MACs and the EtherType. */
	if (len < 14)
		return fmix(mix(h, len));
	h = mix_bytes(h, f, 12);
	return fmix(mix(h, voff__rd16(f + 12)));
}

unsigned int voff__vxlan_srcport_pick(uint32_t hash, unsigned int n)
{
	/* Scale to [0, n) by the top bits: no division, all n reached. */
	return (unsigned int)(((uint64_t)hash * n) >> 32);
}
