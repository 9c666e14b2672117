/* SPDX-License-Identifier: MIT */
/*
 * netlink.h - an interface's size limits and offload features, read and set
 * through rtnetlink (libmnl) and the ethtool ioctl, in any named namespace
 *
 * The limits matter because a sender sizes its super-packets to the
 * gso_max_size it sees on its device: set it on a TAP that voff owns and the
 * namespace's TCP builds packets that need no re-segmenting downstream.
 *
 * Every function takes @netns, the name of a namespace under
 * /var/run/netns (NULL or "" for the caller's own).  The calling thread
 * enters it only long enough to open a socket there and returns to its
 * namespace before anything else happens.
 *
 * Context: any thread; each call opens and closes its own socket.  These
 * are control-path calls (a few system calls each), never per packet.
 */
#ifndef VOFF_NETLINK_H
#define VOFF_NETLINK_H

#include <stdbool.h>
#include <stdint.h>

#include <voff/limits.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * voff_netlink_get_limits() - read an interface's index and size limits
 * @netns:	namespace name, or NULL
 * @ifname:	interface name
 * @ifindex:	receives the interface index (may be NULL)
 * @out:	receives mtu, gso_max_size, gso_max_segs, tso_max_size,
 *		tso_max_segs, gro_max_size and their IPv4 variants (0 for
 *		what the kernel lacks)
 *
 * Return: 0, -ENODEV for an unknown interface, -ENOENT for an unknown
 * namespace, or another negative errno; @out untouched on failure.
 */
int voff_netlink_get_limits(const char *netns, const char *ifname,
			    unsigned int *ifindex,
			    struct voff_limits *out);

/**
 * voff_netlink_set_limits() - set an interface's MTU and GSO/GRO limits
 * @netns:	namespace name, or NULL
 * @ifname:	interface name
 * @lim:	mtu, gso_max_size, gso_max_segs, gro_max_size and the IPv4
 *		variants to set; 0 leaves one alone; the tso_* fields are
 *		read only and ignored
 *
 * One RTM_NEWLINK request carries every value, so the kernel applies all
 * or none.  It refuses gso_max_size above the device's tso_max_size,
 * gso_max_segs above tso_max_segs, gro_max_size above 524280.
 *
 * Return: 0, -EINVAL (the kernel refused a value), -EPERM, -ENODEV, or
 * another negative errno.
 */
int voff_netlink_set_limits(const char *netns, const char *ifname,
			    const struct voff_limits *lim);

/**
 * struct voff_link_stats - an interface's packet counters (IFLA_STATS64)
 * @rx_packets:	frames it received
 * @tx_packets:	frames it sent
 * @rx_dropped:	frames it received and dropped
 * @tx_dropped:	frames it was given to send and dropped (for a TAP/TUN:
 *		its queue to the reader full, or no reader)
 */
struct voff_link_stats {
	uint64_t rx_packets;
	uint64_t tx_packets;
	uint64_t rx_dropped;
	uint64_t tx_dropped;
};

/**
 * voff_netlink_get_stats() - read an interface's packet counters
 * @netns:	namespace name, or NULL
 * @ifname:	interface name
 * @out:	receives them
 *
 * Return: 0, -ENODEV for an unknown interface, -ENOENT for an unknown
 * namespace, -ENODATA when the kernel sent no IFLA_STATS64, or another
 * negative errno; @out untouched on failure.
 */
int voff_netlink_get_stats(const char *netns, const char *ifname,
			   struct voff_link_stats *out);

/**
 * voff_netlink_set_up() - set an interface's administrative state
 * Return: 0 or a negative errno.
 */
int voff_netlink_set_up(const char *netns, const char *ifname, bool up);

/**
 * voff_netlink_feature() - whether one ethtool feature is active
 * @netns:	namespace name, or NULL
 * @ifname:	interface name
 * @feature:	ethtool name, as `ethtool -k` prints it ("rx-gro",
 *		"tx-tcp-segmentation", ...)
 *
 * Uses the ETHTOOL_GSSET_INFO / GSTRINGS / GFEATURES ioctls.
 *
 * Return: 1 when active, 0 when not, -ENOENT for an unknown feature name,
 * -ENODEV, or another negative errno.
 */
int voff_netlink_feature(const char *netns, const char *ifname,
			 const char *feature);

/**
 * voff_netlink_features() - call @cb for every ethtool feature
 * @netns:	namespace name, or NULL
 * @ifname:	interface name
 * @cb:		called with each feature's name, whether it is active and
 *		whether the user may change it; a non-zero return stops the
 *		walk and is returned
 * @arg:	passed to @cb
 *
 * Return: 0, @cb's non-zero value, or a negative errno.
 */
int voff_netlink_features(const char *netns, const char *ifname,
			  int (*cb)(const char *name, bool active,
				    bool changeable, void *arg),
			  void *arg);

/**
 * voff_netlink_feat_active() - an interface's active ethtool features
 * @netns:	namespace name, or NULL
 * @ifname:	interface name
 * @out:	receives them as VOFF_F_* bits (feat.h); names feat.h does not
 *		know are skipped
 *
 * Return: 0 or a negative errno (*@out untouched).
 */
int voff_netlink_feat_active(const char *netns, const char *ifname,
			     uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_NETLINK_H */
