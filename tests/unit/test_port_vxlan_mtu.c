/* SPDX-License-Identifier: MIT */
/*
 * test_port_vxlan_mtu.c - the VXLAN port's overlay MTU from the routes of
 * its namespace after the process gave up its capabilities and connect(),
 * as `voff switch --drop-caps --seccomp` does (docs/security.md): a remote
 * added then, behind a route with a smaller `mtu`, gives the port exactly
 * that MTU less the outer headers, over IPv4 and IPv6 underlays, and with
 * no remote left the local device's MTU.  The look-ups themselves
 * (netlink.c) are checked against what connect() and IP_MTU/IPV6_MTU
 * report.  Needs root (the namespace is set up first); test_port_vxlan.c
 * tests the rest of the port without root.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <voff/port.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "check.h"
#include "netlink_int.h"
#include "netns_int.h"
#include "port_ns.h"

/* Route MTU towards 10.88.0.0/24 and fd88::/64; the device's is 1500. */
#define ROUTE_MTU 1400
/* t_netlink_*: the device's MTU and its IPv6 MTU (net.ipv6.conf.va.mtu). */
#define DEV_MTU 1460
#define DEV_MTU6 1300
/* remote_after_drop(): the route MTU towards the on-link remote. */
#define NEAR_MTU 1450

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

/* Refuse connect() from now on (EPERM), as --drop-caps --seccomp does. */
static void deny_connect(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_connect, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };
	union voff_udp_addr a;
	int fd;

	CHECK_OK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	CHECK_OK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
	CHECK_OK(voff_udp_addr_parse(&a, "127.0.0.1:9", 0));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK_GE(fd, 0);
	CHECK_EQ(connect(fd, &a.sa, voff_udp_addr_len(&a)), -1);
	CHECK_EQ(errno, EPERM);
	close(fd);
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

/* The address bytes of @text, its family in @family. */
static const void *addr_of(const char *text, union voff_udp_addr *a,
			   int *family)
{
	CHECK_OK(voff_udp_addr_parse(a, text, 9));
	*family = a->sa.sa_family;
	if (*family == AF_INET6)
		return &a->in6.sin6_addr;
	return &a->in4.sin_addr;
}

/* What the kernel says of a socket of ns_a connect()ed to @text. */
static unsigned int kernel_mtu(const char *text)
{
	union voff_udp_addr a;
	int fam, saved, fd, mtu = 0;
	socklen_t len = sizeof(mtu);

	addr_of(text, &a, &fam);
	CHECK_OK(voff__netns_enter(ns_a, &saved));
	fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	voff__netns_leave(saved);
	CHECK_GE(fd, 0);
	CHECK_OK(connect(fd, &a.sa, voff_udp_addr_len(&a)));
	CHECK_OK(getsockopt(fd, fam == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
			    fam == AF_INET ? IP_MTU : IPV6_MTU, &mtu, &len));
	close(fd);
	return (unsigned int)mtu;
}

/*
 * @fn, voff__netlink_route_mtu() or voff__netlink_addr_mtu(), for the
 * address @text through @nl.  Return: its result.
 */
static int nl_mtu(int (*fn)(struct mnl_socket *nl, int family,
			    const void *addr, unsigned int *mtu),
		  struct mnl_socket *nl, const char *text, unsigned int *mtu)
{
	union voff_udp_addr a;
	int fam;
	const void *p = addr_of(text, &a, &fam);

	return fn(nl, fam, p, mtu);
}

/*
 * The look-ups of the port's MTU, with no connect() and no privilege:
 * routes with and without an `mtu` metric, on-link, through lo (65536
 * bytes, which IP_MTU reports as 65535), each as connect() and
 * IP_MTU/IPV6_MTU report it before; no route; the device of an address.
 */
static void netlink_mtu(bool v6)
{
	static const struct {
		const char *to;
		unsigned int mtu;
	} v4r[] = {
		{ "10.88.0.2", ROUTE_MTU },	/* the route's metric */
		{ "10.99.0.2", DEV_MTU },	/* via a gateway, no metric */
		{ "10.77.0.2", DEV_MTU },	/* on-link */
		{ "127.0.0.1", 65535 },		/* lo, at most IP_MAX_MTU */
	}, v6r[] = {
		{ "fd88::2", ROUTE_MTU },
		{ "fd99::2", DEV_MTU6 },	/* ip6_mtu(): the IPv6 MTU */
		{ "fd77::2", DEV_MTU6 },
		{ "::1", 65536 },
	};
	const char *local = v6 ? "fd77::1" : "10.77.0.1";
	const char *lo = v6 ? "::1" : "127.0.0.1";
	const char *nowhere = v6 ? "2001:db8::1" : "203.0.113.1";
	struct mnl_socket *nl;
	unsigned int mtu;

	underlay();
	sh("ip -n %s link set lo up && ip -n %s link set va mtu %d && "
	   "ip netns exec %s sysctl -qw net.ipv6.conf.va.mtu=%d",
	   ns_a, ns_a, DEV_MTU, ns_a, DEV_MTU6);
	sh("ip -n %s route add 10.99.0.0/24 via 10.77.0.254 && "
	   "ip -n %s -6 route add fd99::/64 via fd77::fe",
	   ns_a, ns_a);
	for (size_t i = 0; i < 4; i++)
		CHECK_EQ(kernel_mtu(v6 ? v6r[i].to : v4r[i].to),
			 v6 ? v6r[i].mtu : v4r[i].mtu);
	CHECK_OK(voff__netlink_open(ns_a, &nl));
	drop_caps();
	deny_connect();
	for (size_t i = 0; i < 4; i++) {
		mtu = 0;
		CHECK_OK(nl_mtu(voff__netlink_route_mtu, nl,
				v6 ? v6r[i].to : v4r[i].to, &mtu));
		CHECK_EQ(mtu, v6 ? v6r[i].mtu : v4r[i].mtu);
	}
	mtu = 7;
	CHECK_LT(nl_mtu(voff__netlink_route_mtu, nl, nowhere, &mtu), 0);
	CHECK_EQ(mtu, 7);
	/* The device with the address: its MTU, as SIOCGIFMTU reads it. */
	CHECK_OK(nl_mtu(voff__netlink_addr_mtu, nl, local, &mtu));
	CHECK_EQ(mtu, DEV_MTU);
	CHECK_OK(nl_mtu(voff__netlink_addr_mtu, nl, lo, &mtu));
	CHECK_EQ(mtu, 65536);
	CHECK_EQ(nl_mtu(voff__netlink_addr_mtu, nl, nowhere, &mtu), -ENOENT);
	voff__netlink_close(nl);
}

static void t_netlink_mtu_ipv4(void)
{
	netlink_mtu(false);
}

static void t_netlink_mtu_ipv6(void)
{
	netlink_mtu(true);
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
 * A port in ns_a with an on-link remote behind a host route of NEAR_MTU,
 * then, without privileges and without connect(), a remote behind the
 * ROUTE_MTU route: the port's MTU is ROUTE_MTU less @over, and one train
 * holds the segments of a super-packet; that remote removed, NEAR_MTU
 * again; the last one removed, the local device's 1500 bytes.
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
	sh("ip -n %s %s route add %s dev va mtu %d", ns_a, v6 ? "-6" : "",
	   near, NEAR_MTU);
	CHECK_OK(voff_udp_addr_parse(&c.local, local, 0));
	CHECK_OK(voff_vxlan_addr_parse(&c.remote[0], near));
	CHECK_OK(voff_port_open(&port, &pc));
	CHECK_EQ(port_mtu(port, &segs), NEAR_MTU - over);
	drop_caps();
	deny_connect();
	CHECK_OK(voff_vxlan_addr_parse(&a, far));
	CHECK_OK(voff_port_vxlan_remote_add(port, &a));
	CHECK_EQ(port_mtu(port, &segs), ROUTE_MTU - over);
	/* A full segment's datagram: VXLAN 8, inner Ethernet 14, the MTU. */
	CHECK_EQ(segs, train / (8 + 14 + ROUTE_MTU - over));
	CHECK_OK(voff_port_vxlan_remote_del(port, &a));
	CHECK_EQ(port_mtu(port, &segs), NEAR_MTU - over);
	CHECK_OK(voff_port_vxlan_remote_del(port, &c.remote[0]));
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

CHECK_MAIN(CHECK_TEST(t_netlink_mtu_ipv4), CHECK_TEST(t_netlink_mtu_ipv6),
	   CHECK_TEST(t_drop_caps_ipv4), CHECK_TEST(t_drop_caps_ipv6))
