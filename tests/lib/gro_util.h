/* SPDX-License-Identifier: MIT */
/*
 * gro_util.h - shared helpers of the GRO tests (gro_util.c): a segment
 * description built into a frame with the test frame builder, and a
 * runner that feeds frames to an engine and records what comes out, in
 * the order a caller following the gro.h contract would deliver it
 */
#ifndef VOFF_TEST_GRO_UTIL_H
#define VOFF_TEST_GRO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/gro.h>
#include <voff/pkt.h>

/*
 * struct sp - one segment; zero fields take defaults: TCP over IPv4 with
 * ACK, ports 1 -> 2, TTL 64, window 3000, payload byte j = seq + j.
 */
struct sp {
	bool v6;
	bool udp;
	bool raw;		/* no Ethernet header (TUN) */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;		/* 0 = ACK; use SP_NOFLAGS for none */
	uint16_t win;
	uint32_t len;		/* payload bytes */
	uint8_t seed;		/* UDP payload seed */
	uint8_t ttl, tos;
	uint16_t id;
	bool df, mf;
	uint16_t frag_off;
	uint8_t ipopt;
	uint32_t flow;
	uint8_t tcpopt;
	uint32_t tsval;
	bool bad_csum;
	bool no_csum;
	uint16_t vlan;		/* 0 = untagged */
	uint8_t src_last;	/* last byte of the source address (0 = 1) */
	uint8_t dst_last;	/* last byte of the destination (0 = 2) */
	uint8_t mac_last;	/* last byte of the source MAC (0 = 1) */
	uint16_t ext_len;	/* IPv6 destination options bytes */
	uint8_t ext_fill;	/* a byte inside them, to make them differ */
	bool frag6;		/* IPv6 fragment header */
	uint16_t pad;		/* Ethernet padding bytes after the packet */
};

#define SP_NOFLAGS 0x100

/* Build the frame of @s into @buf; Return: its length, 0 if over @cap. */
size_t sp_build(const struct sp *s, uint8_t *buf, size_t cap);

/* One packet that left the engine, as the caller would deliver it. */
struct rec {
	uint8_t *d;
	uint32_t len;
	uint32_t gso_type;
	uint16_t gso_size;
	uint16_t gso_segs;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint8_t csum;
	bool passed;		/* handed back by voff_gro_receive() */
};

#define REC_MAX 4096

/*
 * struct run - an engine, its input pools, and what left it so far
 * @pop_sg:	take outputs through voff_gro_pop_sg() and gather them as
 *		writev() would (the engine must be in sg mode), instead of
 *		voff_gro_pop()
 */
struct run {
	struct voff_gro *g;
	struct voff_pool *pool;
	struct voff_pool *big;
	struct rec out[REC_MAX];
	int n;
	int last_rc;
	bool pop_sg;
};

/* Record a copy of @p as the next output (@passed: handed back). */
void run_record(struct run *r, struct voff_pkt *p, bool passed);

/* Take every output the engine has ready and record it. */
void run_collect(struct run *r);

/* A new engine with @cfg (NULL: defaults) and empty records. */
void run_init(struct run *r, const struct voff_gro_config *cfg);

/* Free the engine and the records; every pool buffer must be back. */
void run_fini(struct run *r);

/* Feed raw frame bytes; returns voff_gro_receive()'s result. */
int run_feed_bytes(struct run *r, const uint8_t *d, size_t len, uint8_t csum,
		   uint64_t now);

/* Feed the frame of @s; returns voff_gro_receive()'s result. */
int run_feed(struct run *r, const struct sp *s, uint64_t now);

/* End of the batch: flush everything and record it. */
void run_end(struct run *r);

/* TCP sequence number of an untagged Ethernet frame without options. */
uint32_t gro_test_seq(const struct rec *o, bool v6);

/* Complete a recorded packet's partial checksum in place. */
void rec_complete(struct rec *o);

/*
 * The virtio_net_hdr gso_type (VOFF_VNET_GSO_*) the kernel reports for a
 * GRO output whose VOFF_GSO_* bits are @gso_type (FIXEDID has no virtio
 * bit and is dropped).
 */
uint8_t gro_vnet_type(uint32_t gso_type);

#endif /* VOFF_TEST_GRO_UTIL_H */
