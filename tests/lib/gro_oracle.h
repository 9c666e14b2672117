/* SPDX-License-Identifier: MIT */
/*
 * gro_oracle.h - the running kernel as the oracle of GRO (gro_oracle.c),
 * shared by the kernel-oracle test (test_gro_kernel.c) and the
 * golden-vector generator (tests/vectors/gen_vectors.c)
 *
 *   netns made by tests/integ/lib_gro_ns.sh:
 *     caller --AF_PACKET--> va ===veth===> vb --GRO (threaded NAPI,
 *     (CPU 0, SCHED_FIFO     (tso/gso off)    pinned to CPU 0)
 *      per batch of <= 64)                      |
 *     caller <--AF_PACKET + PACKET_VNET_HDR-----'
 *
 * Determinism (kernel-model.md §6.2): the sender is pinned to CPU 0 and
 * runs SCHED_FIFO while it queues one batch of at most 64 frames (the veth
 * NAPI weight), so the NAPI thread, on the same CPU, polls the whole batch
 * at once: one batch = one poll, flushed at its end, oldest flow first.
 * Frames from AF_PACKET over veth carry no hash, so every flow shares one
 * GRO bucket of at most 8 packets.  The end of a batch is marked by a
 * frame of EtherType 0x88B5 that the reader waits for.
 */
#ifndef VOFF_TEST_GRO_ORACLE_H
#define VOFF_TEST_GRO_ORACLE_H

#include <stdint.h>

/* Frames per batch: the veth NAPI weight. */
#define GRO_ORACLE_BATCH 64
/* Packets the kernel may hand up for one batch. */
#define GRO_ORACLE_OUT (GRO_ORACLE_BATCH + 8)
/* Flows the kernel holds at once for hashless frames (one bucket). */
#define GRO_ORACLE_FLOWS 8

/**
 * struct gro_kout - one packet the kernel delivered on vb
 * @d:		its bytes, from the Ethernet header
 * @len:	bytes in @d
 * @flags:	the vnet header's flags (NEEDS_CSUM, DATA_VALID)
 * @gso_type:	its gso_type (virtio values)
 * @gso_size:	its gso_size
 * @hdr_len:	its hdr_len (the kernel's linear length: a hint)
 * @csum_start:	its csum_start (with NEEDS_CSUM)
 * @csum_offset: its csum_offset (with NEEDS_CSUM)
 */
struct gro_kout {
	uint8_t d[70000];
	uint32_t len;
	uint8_t flags;
	uint8_t gso_type;
	uint16_t gso_size;
	uint16_t hdr_len;
	uint16_t csum_start;
	uint16_t csum_offset;
};

/**
 * struct gro_oracle - the two sockets and what the last batch gave
 * @tx_fd:	AF_PACKET socket sending on va
 * @rx_fd:	AF_PACKET socket with PACKET_VNET_HDR reading vb
 * @n:		packets in @out
 * @out:	the last batch's packets, in delivery order
 */
struct gro_oracle {
	int tx_fd;
	int rx_fd;
	int n;
	struct gro_kout out[GRO_ORACLE_OUT];
};

/*
 * Skip unless run in the namespace of tests/integ/lib_gro_ns.sh (it sets
 * VOFF_GRO_KERNEL); open the sockets and pin this process to CPU 0.
 */
void gro_oracle_open(struct gro_oracle *o);

/* Send @n frames (at most GRO_ORACLE_BATCH) as one batch, read the result. */
void gro_oracle_send(struct gro_oracle *o, uint8_t (*frames)[2048],
		     const uint32_t *lens, int n);

#endif /* VOFF_TEST_GRO_ORACLE_H */
