/* SPDX-License-Identifier: MIT */
/*
 * gso_twin.h - the naive twin of libvoff's GSO for the test_gso* files and
 * the differential fuzz target (gso_twin.c): a super-packet is described
 * by a struct spec, built with the test frame builder (frames.h, its own
 * byte-wise checksums), and every expected segment is rebuilt from the
 * same description with the payload slice, the sequence number, the IP IDs
 * and the flags a segment must have.  Nothing here calls the library's
 * checksum or segmentation code, so comparing the library's output with
 * these frames compares two implementations.
 */
#ifndef VOFF_TEST_GSO_TWIN_H
#define VOFF_TEST_GSO_TWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/pkt.h>

#include "frames.h"

enum { TUN_NONE, TUN_VXLAN, TUN_GENEVE, TUN_GRE };

struct spec {
	bool raw;		/* no Ethernet header (TUN) */
	uint8_t n_vlan;
	uint8_t tun;
	bool outer_v6;
	bool tun_csum;
	bool v6;		/* innermost IP */
	uint8_t v4_opt;
	uint8_t n_ext;		/* IPv6 extension headers, 0..3 */
	uint8_t tcp_opt;
	bool udp;		/* USO (or UFO with @ufo) instead of TCP */
	bool ufo;
	uint8_t flags;
	uint32_t seq;
	uint16_t id;
	uint16_t outer_id;
	bool df;
	uint8_t tos;
	uint32_t extra;		/* FIXEDID, FIXEDID_INNER, ACCECN, ECN */
	uint32_t mss;
	uint32_t pay;
	uint8_t seed;
	uint32_t frag_id;
};

/* Header indices of a built frame (tf_off() gives offsets). */
struct built {
	size_t len;
	int l3;		/* outer IP */
	int in_l3;	/* inner IP (tunnel), else -1 */
	int l4;		/* innermost L4 */
	int tun_l4;	/* outer UDP or GRE, else -1 */
	struct tf b;
};

/* Append @n (at most 3) IPv6 extension headers: hop-by-hop, dest, routing. */
void twin_ext(struct tf *b, int n);

/*
 * Build the super-packet (@seg < 0) or its segment @seg, whose payload is
 * bytes [@off, @off + @plen) of the super-packet's payload, of @nseg.
 */
bool twin_build(const struct spec *s, uint8_t *buf, size_t cap, long seg,
		uint32_t nseg, uint32_t off, uint32_t plen, struct built *o);

/* Byte-wise big-endian one's complement sum (independent of libvoff). */
uint32_t twin_sum(const uint8_t *p, size_t n, uint32_t sum);

/* Fold a twin_sum() to 16 bits (not inverted). */
uint16_t twin_fold(uint32_t s);

/* Pseudo-header sum of the IP header at @ip for @proto and @len. */
uint32_t twin_pseudo(const uint8_t *ip, uint8_t proto, uint32_t len);

/* Turn the innermost L4 checksum of a built frame into the pseudo seed. */
void twin_make_partial(struct built *o, uint8_t *buf, bool udp);

/* A packet over @buf with the GSO metadata of @s; aborts if it cannot be. */
void twin_pkt(const struct spec *s, struct voff_pkt *pkt, uint8_t *buf,
	      size_t cap, const struct built *o);

/* Segments the super-packet of @s is cut into. */
uint32_t twin_nseg(const struct spec *s);

#endif /* VOFF_TEST_GSO_TWIN_H */
