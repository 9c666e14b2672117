/* SPDX-License-Identifier: MIT */
/*
 * parse_int.h - bounds-checked access to frame bytes and the wire constants
 * shared by the header parser (parse.c) and its checksum checker
 * (parse_csum.c)
 *
 * Every byte of a frame is reached through voff__frame_get(): it hands out
 * a pointer to a range only when the whole range lies inside the frame, and
 * NULL otherwise, the way passt's packet_get() does.  Offsets computed from
 * untrusted fields (header lengths, option lengths) are therefore checked
 * before a single byte behind them is read; the callers index only inside
 * a range they obtained from it.
 */
#ifndef VOFF_PARSE_INT_H
#define VOFF_PARSE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <voff/parse.h>

/* Largest frame voff_parse() accepts (parse.h). */
#define VOFF__PARSE_MAX_LEN VOFF_PARSE_MAX_LEN

/* EtherTypes (also the GRE and Geneve protocol types). */
enum {
	VOFF__ETH_IPV4 = 0x0800,
	VOFF__ETH_IPV6 = 0x86DD,
	VOFF__ETH_8021Q = 0x8100,
	VOFF__ETH_8021AD = 0x88A8,
	VOFF__ETH_TEB = 0x6558,		/* transparent Ethernet bridge */
	VOFF__ETH_MIN_TYPE = 0x0600,	/* below: an 802.3 length field */
};

/* IP protocol numbers and IPv6 extension header types. */
enum {
	VOFF__IPP_HOPOPTS = 0,
	VOFF__IPP_TCP = 6,
	VOFF__IPP_UDP = 17,
	VOFF__IPP_ROUTING = 43,
	VOFF__IPP_FRAG = 44,
	VOFF__IPP_GRE = 47,
	VOFF__IPP_DSTOPTS = 60,
};

/* Header sizes. */
enum {
	VOFF__ETH_HLEN = 14,
	VOFF__VLAN_HLEN = 4,
	VOFF__IPV4_HLEN = 20,
	VOFF__IPV6_HLEN = 40,
	VOFF__IPV6_FRAG_HLEN = 8,
	VOFF__TCP_HLEN = 20,
	VOFF__UDP_HLEN = 8,
	VOFF__VXLAN_HLEN = 8,
	VOFF__GENEVE_HLEN = 8,
	VOFF__GRE_HLEN = 4,
};

/* UDP destination ports of the UDP tunnels (IANA). */
enum {
	VOFF__PORT_VXLAN = 4789,
	VOFF__PORT_GENEVE = 6081,
};

/* IPv4 fragment field, GRE flag word (RFC 2784, RFC 2890). */
enum {
	VOFF__IPV4_MF = 0x2000,
	VOFF__IPV4_OFFMASK = 0x1FFF,
	VOFF__GRE_C = 0x8000,
	VOFF__GRE_R = 0x4000,
	VOFF__GRE_K = 0x2000,
	VOFF__GRE_S = 0x1000,
	VOFF__GRE_SSR = 0x0800,		/* strict source route (1701) */
	VOFF__GRE_RECUR = 0x0700,	/* recursion control (RFC 1701) */
	VOFF__GRE_VER = 0x0007,
};

/* IPv4 / TCP option kinds with a one-byte form. */
enum {
	VOFF__OPT_EOL = 0,
	VOFF__OPT_NOP = 1,
};

/**
 * voff__frame_get() - a pointer to bytes [@off, @off + @n) of a frame
 * @data:	the frame (may be NULL only when @len is 0)
 * @len:	frame length
 * @off:	first byte wanted
 * @n:		number of bytes wanted (at least 1)
 *
 * Return: data + @off, or NULL when any byte of the range lies at or past
 * @len (or @n is 0).  No arithmetic on @data happens before the check.
 */
static inline const uint8_t *voff__frame_get(const uint8_t *data, size_t len,
					     size_t off, size_t n)
{
	if (!data || n == 0 || off > len || n > len - off)
		return NULL;
	return data + off;
}

/** voff__rd16() - big-endian 16-bit value at @p (2 bytes checked) */
static inline uint16_t voff__rd16(const uint8_t *p)
{
	return (uint16_t)((unsigned int)p[0] << 8 | p[1]);
}

#endif /* VOFF_PARSE_INT_H */
