/* SPDX-License-Identifier: MIT */
/*
 * test_vxlan_prop.c - a VXLAN port's limits reach the TAPs of its switch:
 * the overlay's gso_max_segs (one train per super-packet, from the route
 * MTU towards the remotes) is propagated to a TAP device's gso_max_segs,
 * and again when a remote behind a smaller route MTU comes and goes at
 * run time (`remotes add|del`), with no frame received in between.  Needs
 * root (namespaces, a TAP); skipped otherwise.
 */
#include <stdio.h>
#include <string.h>

#include <voff/netlink.h>
#include <voff/switch.h>

#include "check.h"
#include "port_ns.h"

/* Route MTU towards 10.88.0.0/24; the underlay device's is 1500. */
#define ROUTE_MTU 1400
/* The largest IPv4 UDP train's payload, and a segment's datagram. */
#define TRAIN 65493
#define DGRAM(mtu) (8 + 14 + (mtu)-50)

/* The gso_max_segs the kernel has for TAP tp0 in ns_b. */
static unsigned int tap_segs(void)
{
	struct voff_limits l;

	CHECK_OK(voff_netlink_get_limits(ns_b, "tp0", NULL, &l));
	return l.gso_max_segs;
}

static void t_segs_propagated(void)
{
	static const char add[] = "remotes add vxlan42 10.88.0.2",
			  del[] = "remotes del vxlan42 10.88.0.2";
	FILE *null = fopen("/dev/null", "w");
	struct voff_switch *sw;
	char spec[256];
	unsigned int vx, tp;

	ns_playground();
	sh("ip link add va netns %s type veth peer vb netns %s", ns_a, ns_b);
	sh("ip -n %s addr add 10.77.0.1/24 dev va", ns_a);
	sh("ip -n %s link set va up && ip -n %s link set vb up", ns_a, ns_b);
	sh("ip -n %s route add 10.88.0.0/24 via 10.77.0.254 mtu %d", ns_a,
	   ROUTE_MTU);

	CHECK_OK(voff_switch_new(&sw, NULL));
	snprintf(spec, sizeof(spec),
		 "vxlan:42@%s,local=10.77.0.1:4789,remote=10.77.0.2", ns_a);
	CHECK_OK(voff_switch_add_spec(sw, spec, &vx));
	snprintf(spec, sizeof(spec), "tap:tp0@%s", ns_b);
	CHECK_OK(voff_switch_add_spec(sw, spec, &tp));
	/* The underlay device's 1500 bytes: 1450 inside, 44 per train. */
	CHECK_EQ(tap_segs(), TRAIN / DGRAM(1500));

	/* A remote behind the smaller route: more, smaller segments. */
	CHECK(null != NULL);
	CHECK_OK(voff_switch_ctl(sw, add, strlen(add), null));
	CHECK_EQ(tap_segs(), TRAIN / DGRAM(ROUTE_MTU));
	CHECK_OK(voff_switch_ctl(sw, del, strlen(del), null));
	CHECK_EQ(tap_segs(), TRAIN / DGRAM(1500));
	voff_switch_free(sw);
	fclose(null);
}

CHECK_MAIN(CHECK_TEST(t_segs_propagated))
