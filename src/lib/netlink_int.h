/* SPDX-License-Identifier: MIT */
/*
 * netlink_int.h - rtnetlink over a socket kept open (netlink.c), for a
 * port that reads its device's counters long after it opened: a socket
 * stays in the namespace it was made in, so reading through it needs
 * neither setns() nor the capability to call it (voff switch --drop-caps)
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

/* Close @nl; NULL is a no-op. */
void voff__netlink_close(struct mnl_socket *nl);

#endif /* VOFF_NETLINK_INT_H */
