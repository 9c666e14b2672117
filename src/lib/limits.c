/* SPDX-License-Identifier: MIT */
/*
 * limits.c - per-device size limits (gso/gro/tso max size and segments,
 * MTU) with the kernel's ranges and propagation rules
 * (docs/kernel-model.md §2)
 *
 * Two ways in, as in the kernel: voff_limits_set() is the user's
 * (`ip link set`, validated and refused when out of range);
 * voff_limits_set_tso_max_*() and the inherit/aggregate helpers are the
 * driver's (never fail, clamp, and only ever lower the gso values).
 * xmit.c reads the result.
 */
#include <errno.h>
#include <string.h>

#include <voff/limits.h>

static const char *const limit_names[] = {
#define X(e, f, n) [VOFF_LIMIT_##e] = n,
	VOFF_LIMIT_MAP(X)
#undef X
};

void voff_limits_init(struct voff_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->mtu = 1500;
	l->gso_max_size = VOFF_GSO_LEGACY_MAX_SIZE;
	l->gso_ipv4_max_size = VOFF_GSO_LEGACY_MAX_SIZE;
	l->gso_max_segs = VOFF_GSO_MAX_SEGS;
	l->gro_max_size = VOFF_GSO_LEGACY_MAX_SIZE;
	l->gro_ipv4_max_size = VOFF_GSO_LEGACY_MAX_SIZE;
	l->tso_max_size = VOFF_TSO_LEGACY_MAX_SIZE;
	l->tso_max_segs = VOFF_TSO_MAX_SEGS;
}

const char *voff_limit_name(enum voff_limit which)
{
	if ((unsigned int)which >= VOFF_LIMIT__COUNT)
		return "?";
	return limit_names[which];
}

int voff_limit_lookup(const char *name)
{
	for (int i = 0; i < VOFF_LIMIT__COUNT; i++)
		if (!strcmp(name, limit_names[i]))
			return i;
	return -ENOENT;
}

uint32_t voff_limit_get(const struct voff_limits *l, enum voff_limit which)
{
	switch (which) {
#define X(e, f, n)                                                           \
	case VOFF_LIMIT_##e:                                                 \
		return l->f;
		VOFF_LIMIT_MAP(X)
#undef X
	default:
		return 0;
	}
}

/* netif_set_gso_max_size(): capped by the hardware, sets IPv4 below 64K. */
static void set_gso_max_size(struct voff_limits *l, uint32_t size)
{
	if (size > l->tso_max_size)
		size = l->tso_max_size;
	l->gso_max_size = size;
	if (size <= VOFF_GSO_LEGACY_MAX_SIZE)
		l->gso_ipv4_max_size = size;
}

static void set_gso_ipv4_max_size(struct voff_limits *l, uint32_t size)
{
	if (size > l->tso_max_size)
		size = l->tso_max_size;
	l->gso_ipv4_max_size = size;
}

static void set_gro_max_size(struct voff_limits *l, uint32_t size)
{
	l->gro_max_size = size;
	if (size <= VOFF_GSO_LEGACY_MAX_SIZE)
		l->gro_ipv4_max_size = size;
}

int voff_limits_set(struct voff_limits *l, enum voff_limit which,
		    uint32_t v)
{
	switch (which) {
	case VOFF_LIMIT_MTU:
		if (v < VOFF_MTU_MIN || v > VOFF_MTU_MAX)
			return -EINVAL;
		l->mtu = v;
		return 0;
	case VOFF_LIMIT_GSO_MAX_SIZE:
	case VOFF_LIMIT_GSO_IPV4_MAX_SIZE:
		/* The netlink policy's minimum comes first ("out of range"). */
		if (v < VOFF_GSO_MIN_SIZE)
			return -ERANGE;
		if (v > l->tso_max_size)
			return -EINVAL;
		if (which == VOFF_LIMIT_GSO_MAX_SIZE)
			set_gso_max_size(l, v);
		else
			set_gso_ipv4_max_size(l, v);
		return 0;
	case VOFF_LIMIT_GSO_MAX_SEGS:
		if (v > VOFF_GSO_MAX_SEGS || v > l->tso_max_segs)
			return -EINVAL;
		l->gso_max_segs = v;
		return 0;
	case VOFF_LIMIT_GRO_MAX_SIZE:
	case VOFF_LIMIT_GRO_IPV4_MAX_SIZE:
		if (v > VOFF_GRO_MAX_SIZE)
			return -EINVAL;
		if (which == VOFF_LIMIT_GRO_MAX_SIZE)
			set_gro_max_size(l, v);
		else
			l->gro_ipv4_max_size = v;
		return 0;
	case VOFF_LIMIT_TSO_MAX_SIZE:
		voff_limits_set_tso_max_size(l, v);
		return 0;
	case VOFF_LIMIT_TSO_MAX_SEGS:
		voff_limits_set_tso_max_segs(l, v);
		return 0;
	default:
		return -EINVAL;
	}
}

void voff_limits_set_tso_max_size(struct voff_limits *l, uint32_t size)
{
	l->tso_max_size = size < VOFF_GSO_MAX_SIZE ? size : VOFF_GSO_MAX_SIZE;
	if (size < l->gso_max_size)
		set_gso_max_size(l, size);
	if (size < l->gso_ipv4_max_size)
		set_gso_ipv4_max_size(l, size);
}

void voff_limits_set_tso_max_segs(struct voff_limits *l, uint32_t segs)
{
	if (segs > VOFF_TSO_MAX_SEGS)
		segs = VOFF_TSO_MAX_SEGS;
	l->tso_max_segs = segs;
	if (segs < l->gso_max_segs)
		l->gso_max_segs = segs;
}

void voff_limits_inherit(struct voff_limits *to,
			 const struct voff_limits *from)
{
	voff_limits_set_tso_max_size(to, from->tso_max_size);
	voff_limits_set_tso_max_segs(to, from->tso_max_segs);
}

void voff_limits_aggregate(struct voff_limits *upper,
			   const struct voff_limits *lowers, size_t n)
{
	/* With no port the kernel starts from TSO_MAX_SIZE (UINT_MAX). */
	uint32_t size = UINT32_MAX, segs = VOFF_TSO_MAX_SEGS;

	for (size_t i = 0; i < n; i++) {
		if (lowers[i].tso_max_size < size)
			size = lowers[i].tso_max_size;
		if (lowers[i].tso_max_segs < segs)
			segs = lowers[i].tso_max_segs;
	}
	voff_limits_set_tso_max_size(upper, size);
	voff_limits_set_tso_max_segs(upper, segs);
}

int voff_limits_validate(const struct voff_limits *l)
{
	if (l->mtu < VOFF_MTU_MIN || l->mtu > VOFF_MTU_MAX)
		return -EINVAL;
	if (l->tso_max_size > VOFF_GSO_MAX_SIZE ||
	    l->tso_max_segs > VOFF_TSO_MAX_SEGS)
		return -EINVAL;
	if (l->gso_max_size < VOFF_GSO_MIN_SIZE ||
	    l->gso_max_size > l->tso_max_size ||
	    l->gso_ipv4_max_size < VOFF_GSO_MIN_SIZE ||
	    l->gso_ipv4_max_size > l->tso_max_size)
		return -EINVAL;
	if (l->gso_max_segs > l->tso_max_segs)
		return -EINVAL;
	if (l->gro_max_size > VOFF_GRO_MAX_SIZE ||
	    l->gro_ipv4_max_size > VOFF_GRO_MAX_SIZE)
		return -EINVAL;
	return 0;
}
