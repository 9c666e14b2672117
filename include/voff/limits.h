/* SPDX-License-Identifier: MIT */
/*
 * limits.h - size limits of a device: MTU, gso/gro/tso max size and
 * segments, with the kernel's ranges and propagation rules
 * (docs/kernel-model.md §2)
 *
 * A port (port.h), an egress judged by voff_xmit_decide() (xmit.h) and a
 * switch port (switch.h) each carry a struct voff_limits.  VOFF_LIMIT_MAP
 * lists the limits once: the struct's fields, the enum voff_limit ids and
 * the names `ip -d link` prints are all generated from it.
 *
 * Nothing here allocates, locks or touches the system.  Context: the
 * functions only read their arguments and write their out-parameters (or
 * the struct voff_limits passed to them), so any thread may call them on
 * its own objects.
 */
#ifndef VOFF_LIMITS_H
#define VOFF_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VOFF_GSO_LEGACY_MAX_SIZE 65536u	/* 64 KiB: set the IPv4 variant too */
#define VOFF_GSO_MAX_SIZE 524280u	/* 8 * 65535: BIG TCP ceiling */
#define VOFF_GSO_MAX_SEGS 65535u
#define VOFF_GSO_MIN_SIZE 193u		/* MAX_TCP_HEADER + 1 on x86-64 */
#define VOFF_GRO_MAX_SIZE 524280u
#define VOFF_TSO_LEGACY_MAX_SIZE 65536u	/* default tso_max_size */
#define VOFF_TSO_MAX_SEGS 65535u
#define VOFF_MTU_MIN 68u
#define VOFF_MTU_MAX 65535u

/*
 * The largest frame a super-packet has without BIG TCP: a 64 KiB IP
 * datagram (GRO stops below gro_max_size 65536) behind an Ethernet header
 * and one VLAN tag.  GRO builds 65549-byte frames (IP length 65535); a
 * frame of gso_max_size bytes or more is cut, so the size that lets every
 * such frame through is one more: VOFF_GSO_FRAME_LIMIT.
 */
#define VOFF_GSO_MAX_FRAME (65535u + 18u)
#define VOFF_GSO_FRAME_LIMIT (VOFF_GSO_MAX_FRAME + 1u)

/*
 * VOFF_LIMIT_MAP(X) - X(ENUM, field, "name as ip -d link prints it")
 */
#define VOFF_LIMIT_MAP(X)                                                    \
	X(MTU, mtu, "mtu")                                                   \
	X(GSO_MAX_SIZE, gso_max_size, "gso_max_size")                        \
	X(GSO_MAX_SEGS, gso_max_segs, "gso_max_segs")                        \
	X(TSO_MAX_SIZE, tso_max_size, "tso_max_size")                        \
	X(TSO_MAX_SEGS, tso_max_segs, "tso_max_segs")                        \
	X(GRO_MAX_SIZE, gro_max_size, "gro_max_size")                        \
	X(GSO_IPV4_MAX_SIZE, gso_ipv4_max_size, "gso_ipv4_max_size")         \
	X(GRO_IPV4_MAX_SIZE, gro_ipv4_max_size, "gro_ipv4_max_size")

enum voff_limit {
#define VOFF__X(e, f, n) VOFF_LIMIT_##e,
	VOFF_LIMIT_MAP(VOFF__X)
#undef VOFF__X
	VOFF_LIMIT__COUNT
};

/**
 * struct voff_limits - size limits of one device
 * @mtu:		largest L3 packet sent without segmentation
 * @gso_max_size:	largest super-packet (whole frame) for IPv6 and others
 * @gso_max_segs:	most segments in one super-packet
 * @tso_max_size:	what the hardware can do (cap of @gso_max_size)
 * @tso_max_segs:	what the hardware can do (cap of @gso_max_segs)
 * @gro_max_size:	largest GRO result (IPv6 and others)
 * @gso_ipv4_max_size:	@gso_max_size for IPv4
 * @gro_ipv4_max_size:	@gro_max_size for IPv4
 */
struct voff_limits {
#define VOFF__X(e, f, n) uint32_t f;
	VOFF_LIMIT_MAP(VOFF__X)
#undef VOFF__X
};

/**
 * voff_limits_init() - the kernel's defaults for a new device
 *
 * mtu 1500, gso/gro sizes 65536, segs 65535, tso_max_size 65536,
 * tso_max_segs 65535.  A veth then raises tso_max_size to
 * VOFF_GSO_MAX_SIZE with voff_limits_set_tso_max_size().
 */
void voff_limits_init(struct voff_limits *l);

/**
 * voff_limit_name() - name of limit @which ("gso_max_size")
 * Return: a static string, never NULL; "?" for a bad @which.
 */
const char *voff_limit_name(enum voff_limit which);

/** voff_limit_lookup() - limit by name; Return: its id or -ENOENT */
int voff_limit_lookup(const char *name);

/** voff_limit_get() - value of limit @which (0 for a bad @which) */
uint32_t voff_limit_get(const struct voff_limits *l, enum voff_limit which);

/**
 * voff_limits_set() - set a limit as `ip link set` does (netlink path)
 * @l:		the limits
 * @which:	the limit
 * @value:	the new value
 *
 * Validation: gso(_ipv4)_max_size in VOFF_GSO_MIN_SIZE .. tso_max_size;
 * gso_max_segs ≤ 65535 and ≤ tso_max_segs; gro(_ipv4)_max_size ≤
 * VOFF_GRO_MAX_SIZE; mtu in VOFF_MTU_MIN .. VOFF_MTU_MAX.  Propagation:
 * gso/gro_max_size ≤ 64 KiB also set their IPv4 variant.  tso_max_* are
 * the driver's: they go through voff_limits_set_tso_max_*().
 *
 * Return: 0; -ERANGE below a minimum (the netlink policy's "integer out of
 * range"), -EINVAL above a maximum or for a bad @which.  @l is unchanged on
 * failure.
 */
int voff_limits_set(struct voff_limits *l, enum voff_limit which,
		    uint32_t value);

/**
 * voff_limits_set_tso_max_size() - the driver's hardware cap
 *
 * Clamped to VOFF_GSO_MAX_SIZE.  Lowers gso_max_size and
 * gso_ipv4_max_size when they exceed it; never raises them.
 */
void voff_limits_set_tso_max_size(struct voff_limits *l, uint32_t size);

/**
 * voff_limits_set_tso_max_segs() - the driver's segment cap
 *
 * Lowers gso_max_segs when it exceeds @segs; never raises it.
 */
void voff_limits_set_tso_max_segs(struct voff_limits *l, uint32_t segs);

/**
 * voff_limits_inherit() - take the lower device's TSO caps (macvlan, vlan)
 *
 * netif_inherit_tso_max(): both tso_max values from @from, with the
 * lowering rules above.  gso/gro values are not copied.
 */
void voff_limits_inherit(struct voff_limits *to,
			 const struct voff_limits *from);

/**
 * voff_limits_aggregate() - caps of a bridge or bond over its lowers
 * @upper:	the upper device
 * @lowers:	its lower devices
 * @n:		their number (0: tso caps become the maximum, as with no port)
 *
 * The minimum tso_max_size and tso_max_segs over @lowers, set with the
 * lowering rules: the upper's gso values only ever go down.
 */
void voff_limits_aggregate(struct voff_limits *upper,
			   const struct voff_limits *lowers, size_t n);

/**
 * voff_limits_validate() - whether every field is in the kernel's range
 *
 * Return: 0, or -EINVAL naming nothing in particular (check each field
 * with voff_limits_set() to find it).
 */
int voff_limits_validate(const struct voff_limits *l);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_LIMITS_H */
