/* SPDX-License-Identifier: MIT */
/*
 * frames.h - a frame builder for tests: headers are added outside-in, then
 * tf_finish() fills every next-header field, length and checksum from the
 * inside out, so a test states only what it cares about.
 *
 *	struct tf b;
 *	uint8_t buf[2048];
 *
 *	tf_init(&b, buf, sizeof(buf));
 *	tf_eth(&b);
 *	tf_vlan(&b, TF_TPID_8021Q, 10);
 *	tf_ipv4(&b, &(struct tf_ip){ .ttl = 64 });
 *	tf_tcp(&b, &(struct tf_l4){ .seq = 1, .flags = TF_ACK });
 *	tf_payload(&b, 100, 0);
 *	len = tf_finish(&b);
 *
 * Defaults (zero fields): MACs 02:00:00:00:00:01 -> :02, IPv4 192.0.2.1 ->
 * 192.0.2.2, IPv6 2001:db8::1 -> 2001:db8::2, ports 1 -> 2 (UDP: 4789 before
 * VXLAN, 6081 before Geneve), TTL/hop limit
 * 64, TCP window 3000.  Tunnels: tf_vxlan()/tf_geneve() after tf_udp(),
 * tf_gre() after tf_ipv4()/tf_ipv6(), then the inner tf_eth() (or, for GRE,
 * directly the inner IP).  The builder never writes past @cap: on overflow
 * it records the error and tf_finish() returns 0.
 */
#ifndef VOFF_TEST_FRAMES_H
#define VOFF_TEST_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TF_TPID_8021Q 0x8100
#define TF_TPID_8021AD 0x88A8

#define TF_FIN 0x01
#define TF_SYN 0x02
#define TF_RST 0x04
#define TF_PSH 0x08
#define TF_ACK 0x10
#define TF_URG 0x20
#define TF_ECE 0x40
#define TF_CWR 0x80

/* IPv6 extension header types for tf_ipv6_ext(). */
#define TF_EXT_HOPOPTS 0
#define TF_EXT_ROUTING 43
#define TF_EXT_FRAG 44
#define TF_EXT_DSTOPTS 60

#define TF_MAX_HDRS 24

/**
 * struct tf_ip - IPv4 or IPv6 header options (zero = default)
 * @src, @dst:	addresses (4 or 16 bytes used); all-zero = default
 * @ttl:	TTL / hop limit (0 = 64)
 * @tos:	TOS / traffic class (ECN in the low two bits)
 * @id:		IPv4 ID
 * @df, @mf:	IPv4 flags
 * @frag_off:	IPv4 fragment offset in 8-byte units
 * @opt_len:	IPv4 option bytes (multiple of 4, <= 40), filled with a
 *		well-formed pattern (NOPs and a timestamp-like TLV)
 * @flow:	IPv6 flow label (20 bits)
 * @proto:	force the protocol / next header (0 = from what follows)
 * @no_fixup:	leave lengths and checksum as set (for malformed frames)
 */
struct tf_ip {
	uint8_t src[16];
	uint8_t dst[16];
	uint8_t ttl;
	uint8_t tos;
	uint16_t id;
	bool df;
	bool mf;
	uint16_t frag_off;
	uint8_t opt_len;
	uint32_t flow;
	uint8_t proto;
	bool no_fixup;
};

/**
 * struct tf_l4 - TCP or UDP header options
 * @sport, @dport: ports (0 = 1 and 2)
 * @seq, @ack:	TCP numbers
 * @flags:	TCP flags (TF_*)
 * @win:	TCP window (0 = 3000)
 * @urg:	TCP urgent pointer
 * @opt_len:	TCP option bytes (multiple of 4, <= 40): 12 gives NOP NOP
 *		timestamps; others a NOP-padded pattern
 * @tsval, @tsecr: timestamp values when the timestamp option is present
 * @no_csum:	UDP: leave the checksum 0; TCP: leave it 0
 * @bad_csum:	store a wrong checksum (valid one + 1)
 */
struct tf_l4 {
	uint16_t sport;
	uint16_t dport;
	uint32_t seq;
	uint32_t ack;
	uint8_t flags;
	uint16_t win;
	uint16_t urg;
	uint8_t opt_len;
	uint32_t tsval;
	uint32_t tsecr;
	bool no_csum;
	bool bad_csum;
};

struct tf {
	uint8_t *buf;
	size_t cap;
	size_t len;
	bool overflow;
	int n;
	struct {
		int kind;
		size_t off;
		size_t len;
		struct tf_ip ip;
		struct tf_l4 l4;
		uint16_t flags;
	} h[TF_MAX_HDRS];
};

void tf_init(struct tf *b, uint8_t *buf, size_t cap);
/* Ethernet with default MACs; the EtherType comes from what follows. */
void tf_eth(struct tf *b);
/* Ethernet with explicit MACs (6 bytes each). */
void tf_eth_addr(struct tf *b, const uint8_t *dst, const uint8_t *src);
void tf_vlan(struct tf *b, uint16_t tpid, uint16_t tci);
void tf_ipv4(struct tf *b, const struct tf_ip *o);
void tf_ipv6(struct tf *b, const struct tf_ip *o);
/* An IPv6 extension header of @len bytes (multiple of 8; FRAG is 8). */
void tf_ipv6_ext(struct tf *b, uint8_t type, size_t len);
/* IPv6 fragment header with offset (8-byte units), M flag and ID. */
void tf_ipv6_frag(struct tf *b, uint16_t off, bool more, uint32_t id);
void tf_tcp(struct tf *b, const struct tf_l4 *o);
void tf_udp(struct tf *b, const struct tf_l4 *o);
/* VXLAN (set the UDP dport to 4789 yourself, or leave 0 for 4789). */
void tf_vxlan(struct tf *b, uint32_t vni);
/* Geneve with @opt_len option bytes (multiple of 4, <= 252). */
void tf_geneve(struct tf *b, uint32_t vni, uint8_t opt_len);
/* GRE: @csum, @key, @seq select the optional fields. */
void tf_gre(struct tf *b, bool csum, bool key, bool seq);
/* @n payload bytes, byte i = (uint8_t)(seed + i). */
void tf_payload(struct tf *b, size_t n, uint8_t seed);
/* Raw bytes appended as they are. */
void tf_bytes(struct tf *b, const void *p, size_t n);
/*
 * Fill next-header fields, lengths and checksums; return the frame length,
 * or 0 if the buffer overflowed.  UDP under VXLAN/Geneve gets a checksum
 * unless no_csum is set.
 */
size_t tf_finish(struct tf *b);

/* Offset of the @i-th header added (0-based), for tests that poke bytes. */
size_t tf_off(const struct tf *b, int i);

#endif /* VOFF_TEST_FRAMES_H */
