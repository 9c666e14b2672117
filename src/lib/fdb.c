/* SPDX-License-Identifier: MIT */
/*
 * fdb.c - the switch's MAC learning table: fixed size, set-associative
 * buckets of VOFF__FDB_WAYS entries, O(1) learn and lookup, aging by
 * timestamp (an aged entry is simply ignored and reused, so no timer walks
 * the table), static entries that never age and that learning never
 * moves, nothing allocated after voff__fdb_init()
 *
 * The switch maps MACs to ports with it; a VXLAN port (port_vxlan.c) maps
 * inner MACs to slots of its table of VTEP addresses with another.
 */
#include <errno.h>
#include <stdlib.h>

#include "switch_int.h"

static uint64_t mac_key(const uint8_t *m)
{
	return (uint64_t)m[0] << 40 | (uint64_t)m[1] << 32 |
	       (uint64_t)m[2] << 24 | (uint64_t)m[3] << 16 |
	       (uint64_t)m[4] << 8 | m[5];
}

/*
 * Multiplicative hash of the 48-bit key: locally administered MACs of
 * virtual ports differ mostly in the low bytes, which the multiply spreads
 * over the top bits we keep.
 */
static uint32_t bucket(const struct voff__fdb *t, uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & t->mask;
}

static bool alive(const struct voff__fdb *t, const struct voff__fdb_entry *e,
		  uint64_t now_ns)
{
	return e->key && (e->is_static || now_ns - e->seen_ns < t->age_ns);
}

int voff__fdb_init(struct voff__fdb *t, unsigned int size, uint64_t age_ns)
{
	uint32_t buckets = 1;

	if (size < VOFF__FDB_WAYS || size > (1u << 24) || !age_ns)
		return -EINVAL;
	while (buckets * VOFF__FDB_WAYS < size)
		buckets <<= 1;
	t->e = calloc((size_t)buckets * VOFF__FDB_WAYS, sizeof(*t->e));
	if (!t->e)
		return -ENOMEM;
	t->mask = buckets - 1;
	t->age_ns = age_ns;
	return 0;
}

void voff__fdb_fini(struct voff__fdb *t)
{
	free(t->e);
	t->e = NULL;
}

/* A free or aged slot first, else the least recently seen; never a static. */
static struct voff__fdb_entry *pick_victim(const struct voff__fdb *t,
					  struct voff__fdb_entry *b,
					  uint64_t now_ns)
{
	struct voff__fdb_entry *victim = NULL;

	for (unsigned int i = 0; i < VOFF__FDB_WAYS; i++) {
		if (!alive(t, &b[i], now_ns))
			return &b[i];
		if (!b[i].is_static &&
		    (!victim || b[i].seen_ns < victim->seen_ns))
			victim = &b[i];
	}
	return victim;
}

void voff__fdb_learn(struct voff__fdb *t, const uint8_t *mac, uint32_t port,
		     uint16_t vlan, uint64_t now_ns)
{
	uint64_t key = mac_key(mac) | (1ull << 48);
	struct voff__fdb_entry *b = &t->e[bucket(t, key) * VOFF__FDB_WAYS];
	struct voff__fdb_entry *victim;

	for (unsigned int i = 0; i < VOFF__FDB_WAYS; i++) {
		if (b[i].key == key) {
			if (b[i].is_static)
				return;	/* learning never moves it */
			b[i].port = port;
			b[i].vlan = vlan;
			b[i].seen_ns = now_ns;
			return;
		}
	}
	victim = pick_victim(t, b, now_ns);
	if (!victim)
		return;	/* a bucket of static entries learns nothing */
	victim->is_static = 0;
	victim->key = key;
	victim->port = port;
	victim->vlan = vlan;
	victim->seen_ns = now_ns;
}

/* The entry of @mac, live or not, or NULL. */
static struct voff__fdb_entry *find(const struct voff__fdb *t,
				    const uint8_t *mac)
{
	uint64_t key = mac_key(mac) | (1ull << 48);
	struct voff__fdb_entry *b = &t->e[bucket(t, key) * VOFF__FDB_WAYS];

	for (unsigned int i = 0; i < VOFF__FDB_WAYS; i++)
		if (b[i].key == key)
			return &b[i];
	return NULL;
}

int voff__fdb_lookup(const struct voff__fdb *t, const uint8_t *mac,
		     uint64_t now_ns)
{
	const struct voff__fdb_entry *e = find(t, mac);

	return e && alive(t, e, now_ns) ? (int)e->port : -1;
}

int voff__fdb_get(const struct voff__fdb *t, const uint8_t *mac,
		  uint64_t now_ns, bool *is_static)
{
	const struct voff__fdb_entry *e = find(t, mac);

	if (!e || !alive(t, e, now_ns))
		return -1;
	if (is_static)
		*is_static = e->is_static;
	return (int)e->port;
}

int voff__fdb_add_static(struct voff__fdb *t, const uint8_t *mac,
			 uint32_t port, uint16_t vlan, uint64_t now_ns)
{
	uint64_t key = mac_key(mac) | (1ull << 48);
	struct voff__fdb_entry *e = find(t, mac);

	if (!e)
		e = pick_victim(t, &t->e[bucket(t, key) * VOFF__FDB_WAYS],
				now_ns);
	if (!e)
		return -ENOSPC;
	e->key = key;
	e->port = port;
	e->vlan = vlan;
	e->seen_ns = now_ns;
	e->is_static = 1;
	return 0;
}

int voff__fdb_del(struct voff__fdb *t, const uint8_t *mac, uint64_t now_ns)
{
	struct voff__fdb_entry *e = find(t, mac);
	bool was = e && alive(t, e, now_ns);

	if (e)
		e->key = 0;
	return was ? 0 : -ENOENT;
}

void voff__fdb_flush_port(struct voff__fdb *t, uint32_t port)
{
	size_t n = ((size_t)t->mask + 1) * VOFF__FDB_WAYS;

	for (size_t i = 0; i < n; i++)
		if (t->e[i].key && t->e[i].port == port)
			t->e[i].key = 0;
}

unsigned int voff__fdb_walk(const struct voff__fdb *t, uint64_t now_ns,
			    void (*fn)(void *arg, const uint8_t *mac,
				       uint32_t port, uint16_t vlan,
				       uint64_t age_ns, bool is_static),
			    void *arg)
{
	size_t n = ((size_t)t->mask + 1) * VOFF__FDB_WAYS;
	unsigned int live = 0;
	uint8_t mac[6];

	for (size_t i = 0; i < n; i++) {
		const struct voff__fdb_entry *e = &t->e[i];

		if (!alive(t, e, now_ns))
			continue;
		for (int k = 0; k < 6; k++)
			mac[k] = (uint8_t)(e->key >> (40 - 8 * k));
		if (fn)
			fn(arg, mac, e->port, e->vlan, now_ns - e->seen_ns,
			   e->is_static);
		live++;
	}
	return live;
}
