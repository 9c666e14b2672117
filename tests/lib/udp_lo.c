/* SPDX-License-Identifier: MIT */
/* udp_lo.c - loopback UDP endpoints for the tests, see udp_lo.h */
#include <sys/socket.h>

#include "check.h"
#include "udp_lo.h"

union voff_udp_addr udp_lo(uint16_t port)
{
	union voff_udp_addr a;

	CHECK_OK(voff_udp_addr_parse(&a, "127.0.0.1", port));
	return a;
}

int udp_lo_sock(uint16_t port)
{
	union voff_udp_addr a = udp_lo(port);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	CHECK_GE(fd, 0);
	CHECK_OK(bind(fd, &a.sa, sizeof(a.in4)));
	return fd;
}
