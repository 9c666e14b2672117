/* SPDX-License-Identifier: MIT */
/*
 * fdb.c - the switch's MAC learning table: fixed size, set-associative
 * buckets of VOFF__FDB_WAYS entries, O(1) learn and lookup, aging by
 * timestamp (an aged entry is simply ignored and reused, so no timer walks
 * the table), nothing allocated after voff__fdb_init()
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
	return e->key && now_ns - e->seen_ns < t->age_ns;
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

void voff__fdb_learn(struct voff__fdb *t, const uint8_t *mac, uint32_t port,
		     uint16_t vlan, uint64_t now_ns)
{
	uint64_t key = mac_key(mac) | (1ull << 48);
	struct voff__fdb_entry *b = &t->e[bucket(t, key) * VOFF__FDB_WAYS];
	struct voff__fdb_entry *victim = &b[0];

	for (unsigned int i = 0; i < VOFF__FDB_WAYS; i++) {
		if (b[i].key == key) {
			b[i].port = port;
			b[i].vlan = vlan;
			b[i].seen_ns = now_ns;
			return;
		}
	}
	/* A free or aged slot first, else the least recently seen. */
	for (unsigned int i = 0; i < VOFF__FDB_WAYS; i++) {
		if (!alive(t, &b[i], now_ns)) {
			victim = &b[i];
			break;
		}
		if (b[i].seen_ns < victim->seen_ns)
			victim = &b[i];
	}
	victim->key = key;
	victim->port = port;
	victim->vlan = vlan;
	victim->seen_ns = now_ns;
}

int voff__fdb_lookup(const struct voff__fdb *t, const uint8_t *mac,
		     uint64_t now_ns)
{
	uint64_t key = mac_key(mac) | (1ull << 48);
	const struct voff__fdb_entry *b;

	b = &t->e[bucket(t, key) * VOFF__FDB_WAYS];

	for (unsigned int i = 0; i < VOFF__FDB_WAYS; i++)
		if (b[i].key == key)
			return alive(t, &b[i], now_ns) ? (int)b[i].port : -1;
	return -1;
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
				       uint64_t age_ns),
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
			fn(arg, mac, e->port, e->vlan, now_ns - e->seen_ns);
		live++;
	}
	return live;
}
