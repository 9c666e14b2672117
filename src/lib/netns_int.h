/* SPDX-License-Identifier: MIT */
/*
 * netns_int.h - private: switch the calling thread into a named network
 * namespace and back (netns.c), for netlink.c and the kernel-facing port
 * backends (port_tap.c, port_packet.c)
 *
 * Context: setns() acts on the calling thread only; enter and leave on the
 * same thread, with nothing else in between that must run in the original
 * namespace.
 */
#ifndef VOFF_NETNS_INT_H
#define VOFF_NETNS_INT_H

/**
 * voff__netns_enter() - switch the calling thread into a named namespace
 * @name:	name under /var/run/netns, or NULL/"" (then nothing happens)
 * @saved:	receives a descriptor of the current namespace (-1 when
 *		nothing was switched); pass it to voff__netns_leave()
 *
 * Return: 0 or a negative errno (still in the original namespace).
 */
int voff__netns_enter(const char *name, int *saved);

/** voff__netns_leave() - switch back to @saved and close it; -1 is a no-op */
void voff__netns_leave(int saved);

#endif /* VOFF_NETNS_INT_H */
