/* SPDX-License-Identifier: MIT */
/*
 * udp_lo.h - loopback UDP endpoints for the UDP and VXLAN port tests
 * (udp_lo.c): an address on 127.0.0.1 and a plain socket bound there,
 * which the tests read one datagram per recv().
 */
#ifndef VOFF_TEST_UDP_LO_H
#define VOFF_TEST_UDP_LO_H

#include <stdint.h>

#include <voff/udp.h>

/* udp_lo() - 127.0.0.1:@port; the test fails if it does not parse. */
union voff_udp_addr udp_lo(uint16_t port);

/*
 * udp_lo_sock() - a blocking UDP socket bound to 127.0.0.1:@port.
 * Return: its descriptor (the caller closes it); the test fails if the
 * socket cannot be made or bound.
 */
int udp_lo_sock(uint16_t port);

#endif
