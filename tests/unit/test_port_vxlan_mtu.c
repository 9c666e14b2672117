/* SPDX-License-Identifier: MIT */
/*
 * test_port_vxlan_mtu.c - the VXLAN port's overlay MTU from the routes of
 * its namespace after the process gave up its capabilities, as
 * `voff switch --drop-caps` does (docs/security.md): a remote added then,
 * behind a route with a smaller `mtu`, gives the port exactly that MTU
 * less the outer headers, over IPv4 and IPv6 underlays.  Needs root (the
 * namespace is set up first); test_port_vxlan.c tests the rest of the
 * port without root.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <voff/port.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "check.h"
#include "netns_int.h"
#include "port_ns.h"

/* Route MTU towards 10.88.0.0/24 and fd88::/64; the device's is 1500. */
#define ROUTE_MTU 1400

/*
 * ns_a: veth va (1500 bytes) with 10.77.0.1/24 and fd77::1/64, and routes
 * with mtu ROUTE_MTU to 10.88.0.0/24 and fd88::/64 through a gateway on va.
 */
static void underlay(void)
{
	ns_playground();
	sh("ip link add va netns %s type veth peer vb netns %s", ns_a, ns_b);
	sh("ip -n %s addr add 10.77.0.1/24 dev va && "
	   "ip -n %s addr add fd77::1/64 dev va nodad",
	   ns_a, ns_a);
	sh("ip -n %s link set va up && ip -n %s link set vb up", ns_a, ns_b);
	sh("ip -n %s route add 10.88.0.0/24 via 10.77.0.254 mtu %d && "
	   "ip -n %s -6 route add fd88::/64 via fd77::fe mtu %d",
	   ns_a, ROUTE_MTU, ns_a, ROUTE_MTU);
}

/* Give up every capability of the process, as --drop-caps does. */
static void drop_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { { 0 } };
	int saved;

	CHECK_OK(syscall(SYS_capset, &h, d));
	/* Entering the port's namespace is no longer possible. */
	CHECK_EQ(voff__netns_enter(ns_a, &saved), -EPERM);
}

static unsigned int port_mtu(const struct voff_port *port,
			     unsigned int *segs)
{
	struct voff_port_info info;

	voff_port_info(port, &info);
	*segs = info.limits.gso_max_segs;
	return info.limits.mtu;
}

/*
 * A port in ns_a with an on-link remote (the device's 1500 bytes), then,
 * without privileges, a remote behind the ROUTE_MTU route: the port's MTU
 * is ROUTE_MTU less @over, and one train holds the segments of a
 * super-packet; the remote removed, the device's MTU again.
 */
static void remote_after_drop(bool v6)
{
	const char *local = v6 ? "[fd77::1]:4789" : "10.77.0.1:4789";
	const char *near = v6 ? "fd77::2" : "10.77.0.2";
	const char *far = v6 ? "fd88::2" : "10.88.0.2";
	unsigned int over = v6 ? 70 : 50, train = v6 ? 65473 : 65493;
	struct voff_vxlan_cfg c = { .vni = 5, .n_remote = 1 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_VXLAN, .vxlan = &c,
				    .netns = ns_a };
	struct voff_port *port;
	union voff_udp_addr a;
	unsigned int segs;

	underlay();
	CHECK_OK(voff_udp_addr_parse(&c.local, local, 0));
	CHECK_OK(voff_vxlan_addr_parse(&c.remote[0], near));
	CHECK_OK(voff_port_open(&port, &pc));
	CHECK_EQ(port_mtu(port, &segs), 1500 - over);
	drop_caps();
	CHECK_OK(voff_vxlan_addr_parse(&a, far));
	CHECK_OK(voff_port_vxlan_remote_add(port, &a));
	CHECK_EQ(port_mtu(port, &segs), ROUTE_MTU - over);
	/* A full segment's datagram: VXLAN 8, inner Ethernet 14, the MTU. */
	CHECK_EQ(segs, train / (8 + 14 + ROUTE_MTU - over));
	CHECK_OK(voff_port_vxlan_remote_del(port, &a));
	CHECK_EQ(port_mtu(port, &segs), 1500 - over);
	voff_port_close(port);
}

static void t_drop_caps_ipv4(void)
{
	remote_after_drop(false);
}

static void t_drop_caps_ipv6(void)
{
	remote_after_drop(true);
}

CHECK_MAIN(CHECK_TEST(t_drop_caps_ipv4), CHECK_TEST(t_drop_caps_ipv6))
