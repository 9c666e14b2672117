/* SPDX-License-Identifier: MIT */
/*
 * switch_int.h - private to the switch: the MAC learning table (fdb.c)
 */
#ifndef VOFF_SWITCH_INT_H
#define VOFF_SWITCH_INT_H

#include <stdbool.h>
#include <stdint.h>

/* Entries of one bucket: a set-associative table, no chains, no tombstones. */
#define VOFF__FDB_WAYS 4

struct voff__fdb_entry {
	uint64_t key;		/* MAC in the low 48 bits; 0 = free */
	uint64_t seen_ns;
	uint32_t port;
};

/**
 * struct voff__fdb - fixed-size MAC table
 * @e:		@mask + 1 buckets of VOFF__FDB_WAYS entries
 * @mask:	buckets - 1 (a power of two minus one)
 * @age_ns:	entries older than this are ignored and reused
 */
struct voff__fdb {
	struct voff__fdb_entry *e;
	uint32_t mask;
	uint64_t age_ns;
};

int voff__fdb_init(struct voff__fdb *t, unsigned int size, uint64_t age_ns);
void voff__fdb_fini(struct voff__fdb *t);
/* Record @mac (6 bytes) as seen on @port at @now_ns. */
void voff__fdb_learn(struct voff__fdb *t, const uint8_t *mac, uint32_t port,
		     uint64_t now_ns);
/* The port of @mac, or -1 when unknown or aged out. */
int voff__fdb_lookup(const struct voff__fdb *t, const uint8_t *mac,
		     uint64_t now_ns);
/* Forget every entry of @port. */
void voff__fdb_flush_port(struct voff__fdb *t, uint32_t port);
/* Visit live entries; Return: their number. */
unsigned int voff__fdb_walk(const struct voff__fdb *t, uint64_t now_ns,
			    void (*fn)(void *arg, const uint8_t *mac,
				       uint32_t port, uint64_t age_ns),
			    void *arg);

#endif /* VOFF_SWITCH_INT_H */
