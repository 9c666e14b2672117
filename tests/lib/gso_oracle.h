/* SPDX-License-Identifier: MIT */
/*
 * gso_oracle.h - the running kernel as the oracle of software GSO
 * (gso_oracle.c), shared by the kernel-oracle test (test_gso_kernel.c) and
 * the golden-vector generator (tests/vectors/gen_vectors.c)
 *
 *   this process, in a private network namespace (unshare):
 *
 *     AF_PACKET + PACKET_VNET_HDR --write--> [ gsoa ]===veth===[ gsob ]
 *                                              |  tso/gso/uso off (and
 *     AF_PACKET capture on gsoa, OUTGOING <-+  tx-checksumming off
 *                                                  for full checksums)
 *
 * A super-packet described by a struct spec (gso_twin.h) is written
 * through the vnet-header socket; the kernel segments it in software at
 * gsoa's egress and the capture socket sees the segments on the transmit
 * tap, before any receive path: this avoids the per-CPU backlog limit
 * (about 1000 frames) and the receive-side VLAN untagging of
 * docs/kernel-model.md §6.1.  With gsoa's tx checksumming off every
 * checksum is complete; with it on the kernel leaves the L4 pseudo-header
 * seed for the device.
 *
 * Tunnels cannot be written through AF_PACKET (its vnet header has no
 * tunnel GSO), so VXLAN and Geneve super-packets enter through a TAP with
 * the 24-byte tunnel vnet header of Linux 6.17+ and are redirected by tc
 * from the TAP's ingress to gsoa's egress:
 *
 *     TAP gsot (IFF_VNET_HDR, 24 bytes, UDP_TUNNEL_GSO[_CSUM] offload)
 *        | tc ingress u32 (match all), mirred egress redirect
 *        v
 *     [ gsoa ] --> capture as above
 *
 * GRE has no virtio GSO type at all, and virtio cannot express FIXEDID:
 * neither can go through the oracle.  Root only: setup skips the test
 * (CHECK_SKIP) otherwise.
 */
#ifndef VOFF_TEST_GSO_ORACLE_H
#define VOFF_TEST_GSO_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/pkt.h>
#include <voff/vnet.h>

#include "gso_twin.h"

/*
 * Enter a new network namespace with the veth pair (closing the sockets
 * of an earlier call); @csum_on keeps gsoa's tx checksumming.
 */
void gso_oracle_setup(bool csum_on);

/* The TAP that injects tunnelled super-packets, redirected to gsoa. */
void gso_oracle_setup_tap(void);

/**
 * gso_oracle_send() - build the super-packet of @s and write it
 * @s:		the super-packet's description
 * @buf:	receives the frame exactly as written (its innermost L4
 *		checksum field holds the pseudo-header seed, a tunnel's outer
 *		UDP checksum field its own seed when @s->tun_csum)
 * @cap:	bytes at @buf
 * @sb:		receives the header indices of the built frame
 * @sp:		receives a packet over @buf with the GSO metadata of @s
 * @vh:		receives the fields of the vnet header written in front of it
 *		(in host byte order, as AF_PACKET and the TAP take them)
 *
 * Tunnels go through the TAP (gso_oracle_setup_tap() first) with the
 * 24-byte header, everything else through AF_PACKET with the 10-byte one.
 *
 * Return: the vnet header length, 10 or 24.
 */
size_t gso_oracle_send(const struct spec *s, uint8_t *buf, size_t cap,
		       struct built *sb, struct voff_pkt *sp,
		       struct voff_vnet_hdr *vh);

/*
 * The next frame of ours (source MAC 02:..:01) the kernel sent out of
 * gsoa, into @buf; 0 when none came within @timeout_ms.
 */
size_t gso_oracle_capture(uint8_t *buf, size_t cap, int timeout_ms);

/*
 * The fragment identification the kernel drew for an IPv6 UFO
 * super-packet built as @sb, read from its first fragment @first.
 */
uint32_t gso_oracle_frag_id(const struct built *sb, const uint8_t *first,
			    size_t len);

#endif /* VOFF_TEST_GSO_ORACLE_H */
