/* SPDX-License-Identifier: MIT */
/*
 * test_limits.c - device limits: defaults, the netlink ranges and the
 * propagation rules of docs/kernel-model.md §2, checked as `ip link set`
 * behaved on a 6.18 veth (gso_max_size 192 "integer out of range", 524281
 * "too big").
 */
#include <errno.h>
#include <string.h>

#include <voff/limits.h>

#include "check.h"

static void veth(struct voff_limits *l)
{
	voff_limits_init(l);
	voff_limits_set_tso_max_size(l, VOFF_GSO_MAX_SIZE);
}

static void t_defaults(void)
{
	struct voff_limits l;

	voff_limits_init(&l);
	/* §2 table: defaults of a new device. */
	CHECK_EQ(l.mtu, 1500);
	CHECK_EQ(l.gso_max_size, 65536);
	CHECK_EQ(l.gso_ipv4_max_size, 65536);
	CHECK_EQ(l.gso_max_segs, 65535);
	CHECK_EQ(l.gro_max_size, 65536);
	CHECK_EQ(l.gro_ipv4_max_size, 65536);
	CHECK_EQ(l.tso_max_size, 65536);
	CHECK_EQ(l.tso_max_segs, 65535);
	CHECK_OK(voff_limits_validate(&l));
	/* A veth raises its hardware cap but not its gso_max_size. */
	veth(&l);
	CHECK_EQ(l.tso_max_size, 524280);
	CHECK_EQ(l.gso_max_size, 65536);
	CHECK_OK(voff_limits_validate(&l));
}

static void t_names(void)
{
	CHECK_STR_EQ(voff_limit_name(VOFF_LIMIT_GSO_MAX_SIZE), "gso_max_size");
	CHECK_EQ(voff_limit_lookup("tso_max_segs"), VOFF_LIMIT_TSO_MAX_SEGS);
	CHECK_EQ(voff_limit_lookup("nope"), -ENOENT);
	CHECK_STR_EQ(voff_limit_name(VOFF_LIMIT__COUNT), "?");
}

/* Each set on a fresh veth: the result code and the value read back. */
static void t_set_ranges(void)
{
	static const struct {
		enum voff_limit which;
		uint32_t value;
		int rc;
		const char *rule;
	} c[] = {
		{ VOFF_LIMIT_GSO_MAX_SIZE, 192, -ERANGE,
		  "§2: gso_max_size below MAX_TCP_HEADER+1 (seen)" },
		{ VOFF_LIMIT_GSO_MAX_SIZE, 193, 0, "§2: minimum gso_max_size" },
		{ VOFF_LIMIT_GSO_MAX_SIZE, 524280, 0, "§2: to tso_max_size" },
		{ VOFF_LIMIT_GSO_MAX_SIZE, 524281, -EINVAL,
		  "§2: above tso_max_size (seen: too big gso_max_size)" },
		{ VOFF_LIMIT_GSO_IPV4_MAX_SIZE, 192, -ERANGE, "§2: ipv4 min" },
		{ VOFF_LIMIT_GSO_IPV4_MAX_SIZE, 524281, -EINVAL, "§2: v4 max" },
		{ VOFF_LIMIT_GSO_MAX_SEGS, 0, 0, "§2: gso_max_segs 0 (seen)" },
		{ VOFF_LIMIT_GSO_MAX_SEGS, 65535, 0, "§2: gso_max_segs max" },
		{ VOFF_LIMIT_GSO_MAX_SEGS, 65536, -EINVAL, "§2: above 65535" },
		{ VOFF_LIMIT_GRO_MAX_SIZE, 0, 0, "§2: gro_max_size 0 (seen)" },
		{ VOFF_LIMIT_GRO_MAX_SIZE, 524280, 0, "§2: gro_max_size max" },
		{ VOFF_LIMIT_GRO_MAX_SIZE, 524281, -EINVAL,
		  "§2: too big gro_max_size (seen)" },
		{ VOFF_LIMIT_GRO_IPV4_MAX_SIZE, 524281, -EINVAL, "§2: gro v4" },
		{ VOFF_LIMIT_MTU, 67, -EINVAL, "MTU below 68" },
		{ VOFF_LIMIT_MTU, 65535, 0, "MTU 65535 (veth max)" },
		{ VOFF_LIMIT_MTU, 65536, -EINVAL, "MTU above IP_MAX_MTU" },
		{ VOFF_LIMIT__COUNT, 1, -EINVAL, "unknown limit" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct voff_limits l, before;
		int rc;

		veth(&l);
		before = l;
		rc = voff_limits_set(&l, c[i].which, c[i].value);
		CHECK_MSG(rc == c[i].rc, "case %zu (%s): rc %d", i, c[i].rule,
			  rc);
		if (rc)
			CHECK_MSG(!memcmp(&l, &before, sizeof(l)),
				  "case %zu: changed on failure", i);
		else
			CHECK_EQ(voff_limit_get(&l, c[i].which), c[i].value);
	}
}

/* §2 propagation: sizes up to 64 KiB also set the IPv4 variant. */
static void t_ipv4_follow(void)
{
	struct voff_limits l;

	veth(&l);
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GSO_MAX_SIZE, 30000));
	CHECK_EQ(l.gso_ipv4_max_size, 30000);
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GSO_MAX_SIZE, 100000));
	CHECK_EQ(l.gso_max_size, 100000);
	CHECK_EQ(l.gso_ipv4_max_size, 30000); /* BIG TCP is per family */
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GSO_IPV4_MAX_SIZE, 200000));
	CHECK_EQ(l.gso_max_size, 100000);
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GRO_MAX_SIZE, 65536));
	CHECK_EQ(l.gro_ipv4_max_size, 65536);
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GRO_MAX_SIZE, 300000));
	CHECK_EQ(l.gro_ipv4_max_size, 65536);
}

/* §2: lowering tso_max lowers gso_max; raising never raises it. */
static void t_tso_caps(void)
{
	struct voff_limits l;

	veth(&l);
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GSO_MAX_SIZE, 200000));
	CHECK_OK(voff_limits_set(&l, VOFF_LIMIT_GSO_IPV4_MAX_SIZE, 150000));
	voff_limits_set_tso_max_size(&l, 40000);
	CHECK_EQ(l.tso_max_size, 40000);
	CHECK_EQ(l.gso_max_size, 40000);
	CHECK_EQ(l.gso_ipv4_max_size, 40000);
	voff_limits_set_tso_max_size(&l, VOFF_GSO_MAX_SIZE);
	CHECK_EQ(l.gso_max_size, 40000);
	/* Clamped to the BIG TCP ceiling. */
	voff_limits_set_tso_max_size(&l, UINT32_MAX);
	CHECK_EQ(l.tso_max_size, 524280);

	voff_limits_set_tso_max_segs(&l, 100);
	CHECK_EQ(l.gso_max_segs, 100);
	CHECK_EQ(voff_limits_set(&l, VOFF_LIMIT_GSO_MAX_SEGS, 101), -EINVAL);
	voff_limits_set_tso_max_segs(&l, 65535);
	CHECK_EQ(l.gso_max_segs, 100);
	CHECK_OK(voff_limits_validate(&l));
}

/* §2: macvlan/vlan inherit the lower's tso caps. */
static void t_inherit(void)
{
	struct voff_limits lower, up;

	veth(&lower);
	voff_limits_init(&up);
	voff_limits_inherit(&up, &lower);
	CHECK_EQ(up.tso_max_size, 524280);
	CHECK_EQ(up.gso_max_size, 65536);
	voff_limits_set_tso_max_size(&lower, 16384);
	voff_limits_inherit(&up, &lower);
	CHECK_EQ(up.gso_max_size, 16384);
	CHECK_EQ(up.gso_ipv4_max_size, 16384);
}

/* §2 verified: bridge with veth and tap ports has tso_max_size 65536;
 * without the tap 524280, but its gso_max_size stays 65536. */
static void t_bridge_min(void)
{
	struct voff_limits br, ports[2];

	voff_limits_init(&br);
	veth(&ports[0]);
	voff_limits_init(&ports[1]); /* tap */
	voff_limits_aggregate(&br, ports, 2);
	CHECK_EQ(br.tso_max_size, 65536);
	voff_limits_aggregate(&br, ports, 1);
	CHECK_EQ(br.tso_max_size, 524280);
	CHECK_EQ(br.gso_max_size, 65536);
	ports[0].tso_max_segs = 64;
	voff_limits_aggregate(&br, ports, 2);
	CHECK_EQ(br.tso_max_segs, 64);
	CHECK_EQ(br.gso_max_segs, 64);
	/* No ports: the ceiling. */
	voff_limits_aggregate(&br, NULL, 0);
	CHECK_EQ(br.tso_max_size, 524280);
	CHECK_EQ(br.tso_max_segs, 65535);
}

static void t_validate(void)
{
	struct voff_limits l;

	voff_limits_init(&l);
	l.gso_max_size = 70000; /* above tso_max_size 65536 */
	CHECK_EQ(voff_limits_validate(&l), -EINVAL);
	voff_limits_init(&l);
	l.gso_max_segs = 65535;
	l.tso_max_segs = 10;
	CHECK_EQ(voff_limits_validate(&l), -EINVAL);
	voff_limits_init(&l);
	l.mtu = 10;
	CHECK_EQ(voff_limits_validate(&l), -EINVAL);
}

/* Randomized: driver and user setters keep every invariant. */
static void t_random_invariants(void)
{
	struct voff_limits l;

	veth(&l);
	for (int i = 0; i < 20000; i++) {
		uint32_t v = (uint32_t)(check_rand() % 600000);
		int which = (int)(check_rand() % VOFF_LIMIT__COUNT);

		if (which == VOFF_LIMIT_TSO_MAX_SIZE)
			voff_limits_set_tso_max_size(&l, v);
		else if (which == VOFF_LIMIT_TSO_MAX_SEGS)
			voff_limits_set_tso_max_segs(&l, v % 70000);
		else
			(void)voff_limits_set(&l, which, v);
		CHECK_LE(l.gso_max_size, l.tso_max_size);
		CHECK_LE(l.gso_ipv4_max_size, l.tso_max_size);
		CHECK_LE(l.gso_max_segs, l.tso_max_segs);
		CHECK_LE(l.tso_max_size, 524280);
		CHECK_LE(l.gro_max_size, 524280);
	}
}

CHECK_MAIN(CHECK_TEST(t_defaults), CHECK_TEST(t_names),
	   CHECK_TEST(t_set_ranges), CHECK_TEST(t_ipv4_follow),
	   CHECK_TEST(t_tso_caps), CHECK_TEST(t_inherit),
	   CHECK_TEST(t_bridge_min), CHECK_TEST(t_validate),
	   CHECK_TEST(t_random_invariants))
