/* SPDX-License-Identifier: MIT */
/*
 * netlink_int.h - rtnetlink over a socket kept open (netlink.c), for a
 * port that reads its device's counters, or its routes' MTUs, long after
 * it opened: a socket stays in the namespace it was made in, so reading
 * through it needs neither setns() nor the capability to call it (voff
 * switch --drop-caps)
 */
#ifndef VOFF_NETLINK_INT_H
#define VOFF_NETLINK_INT_H

#include <voff/netlink.h>

struct mnl_socket;

/**
 * voff__netlink_open() - an rtnetlink socket made in a namespace
 * @netns:	namespace name, or NULL for the caller's
 * @out:	receives the socket (voff__netlink_close() it)
 *
 * Return: 0, -ENOENT for an unknown namespace, or a negative errno.
 */
int voff__netlink_open(const char *netns, struct mnl_socket **out);

/**
 * voff__netlink_stats() - voff_netlink_get_stats() through @nl
 * @nl:		a socket of voff__netlink_open()
 * @ifname:	interface name in @nl's namespace
 * @out:	receives the counters; untouched on failure
 *
 * Replies left in the socket by an earlier call that failed half-way are
 * read and thrown away first.
 *
 * Return: as voff_netlink_get_stats().
 */
int voff__netlink_stats(struct mnl_socket *nl, const char *ifname,
			struct voff_link_stats *out);

/**
 * voff__netlink_route_mtu() - the MTU of the route towards an address
 * @nl:		a socket of voff__netlink_open()
 * @family:	AF_INET or AF_INET6
 * @addr:	the destination, 4 or 16 bytes in network order
 * @mtu:	receives the MTU; untouched on failure
 *
 * An RTM_GETROUTE look-up, as connect() makes: the route's `mtu` metric
 * (or the path MTU the kernel learned) when it has one, else its output
 * device's MTU (for IPv6 the device's IPv6 MTU), at most 65535 (IPv4) or
 * 65575 (IPv6): what IP_MTU and IPV6_MTU report on a socket connected
 * there.  Only sendto() and recv()/recvmsg() on @nl: no connect(), no
 * setns().
 *
 * Return: 0, -ENETUNREACH (or another errno of the look-up) when there is
 * no route, -ENOENT when the answer names no device, or a negative errno.
 */
int voff__netlink_route_mtu(struct mnl_socket *nl, int family,
			    const void *addr, unsigned int *mtu);

/**
 * voff__netlink_addr_mtu() - the MTU of the device that has an address
 * @nl:		a socket of voff__netlink_open()
 * @family:	AF_INET or AF_INET6
 * @addr:	the address, 4 or 16 bytes in network order
 * @mtu:	receives the device's MTU (IFLA_MTU); untouched on failure
 *
 * The first device, in the kernel's dump order, with @addr among its
 * addresses (RTM_GETADDR, then RTM_GETLINK).
 *
 * Return: 0, -ENOENT when no device has @addr, or a negative errno.
 */
int voff__netlink_addr_mtu(struct mnl_socket *nl, int family,
			   const void *addr, unsigned int *mtu);

/* Close @nl; NULL is a no-op. */
void voff__netlink_close(struct mnl_socket *nl);

#endif /* VOFF_NETLINK_INT_H */
