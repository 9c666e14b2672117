/* SPDX-License-Identifier: MIT */
/*
 * switch_int.h - private to the switch: the MAC learning table (fdb.c)
 * and the setters of switch.c behind the settings table
 * (switch_settings.c)
 */
#ifndef VOFF_SWITCH_INT_H
#define VOFF_SWITCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/switch.h>

/* Entries of one bucket: a set-associative table, no chains, no tombstones. */
#define VOFF__FDB_WAYS 4

/* The vlan of an entry learned from an untagged frame. */
#define VOFF__FDB_NO_VLAN 0xFFFF

struct voff__fdb_entry {
	uint64_t key;		/* MAC in the low 48 bits; 0 = free */
	uint64_t seen_ns;
	uint32_t port;
	uint16_t vlan;		/* VID of the frame last learned from */
	uint8_t is_static;	/* never ages, never moved by learning */
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
/*
 * Record @mac (6 bytes) as seen on @port at @now_ns, in a frame of VLAN
 * @vlan (VOFF__FDB_NO_VLAN: untagged).  The table still learns by MAC only:
 * the VLAN is what the entry was last learned with, for the listing.
 */
void voff__fdb_learn(struct voff__fdb *t, const uint8_t *mac, uint32_t port,
		     uint16_t vlan, uint64_t now_ns);
/* The port of @mac, or -1 when unknown or aged out. */
int voff__fdb_lookup(const struct voff__fdb *t, const uint8_t *mac,
		     uint64_t now_ns);
/* As lookup, also telling whether the entry is static (may be NULL). */
int voff__fdb_get(const struct voff__fdb *t, const uint8_t *mac,
		  uint64_t now_ns, bool *is_static);
/*
 * Set a static entry @mac -> @port (replacing a learned one); Return: 0,
 * or -ENOSPC when its bucket holds only static entries.
 */
int voff__fdb_add_static(struct voff__fdb *t, const uint8_t *mac,
			 uint32_t port, uint16_t vlan, uint64_t now_ns);
/* Forget @mac, static or not; Return: 0, or -ENOENT when not live. */
int voff__fdb_del(struct voff__fdb *t, const uint8_t *mac, uint64_t now_ns);
/* Forget every entry of @port. */
void voff__fdb_flush_port(struct voff__fdb *t, uint32_t port);
/* Visit live entries; Return: their number. */
unsigned int voff__fdb_walk(const struct voff__fdb *t, uint64_t now_ns,
			    void (*fn)(void *arg, const uint8_t *mac,
				       uint32_t port, uint16_t vlan,
				       uint64_t age_ns, bool is_static),
			    void *arg);

/* ---- setters of switch.c, called by the settings table only ---------- */

/*
 * One limit of port @id (gso_max_size, gso_max_segs or gro_max_size) by
 * the rules of voff_limits_set(), the value already in the table's range.
 * Return: 0, -ENOENT, or voff_limits_set()'s error (nothing changed).
 */
int voff__switch_set_limit(struct voff_switch *sw, unsigned int id,
			   enum voff_limit which, uint32_t value);

/*
 * The limits port @id had when it was added, before any was set (the
 * kernel's defaults raised to what its egress takes); Return: 0 or
 * -ENOENT.
 */
int voff__switch_initial_limits(const struct voff_switch *sw, unsigned int id,
				struct voff_limits *out);

/*
 * The value setting @s has on a port of @kind when nothing set it: the
 * table's default, or 1 for a yes/no setting on by default for @kind.
 */
uint64_t voff__switch_kind_def(const struct voff_switch_setting *s,
			       enum voff_port_kind kind);

/*
 * The value setting @s of port @id has when nothing set it: the default
 * for its kind, or for a limit the port's initial one.
 */
uint64_t voff__switch_setting_def(const struct voff_switch *sw,
				  unsigned int id,
				  const struct voff_switch_setting *s);

/* gro_flush_timeout of port @id; Return: 0 or -ENOENT. */
int voff__switch_set_gro_timeout(struct voff_switch *sw, unsigned int id,
				 uint64_t ns);

/*
 * The longest hold of port @id while its reads are mostly malformed (0:
 * never held); Return: 0 or -ENOENT.
 */
int voff__switch_set_rx_backoff(struct voff_switch *sw, unsigned int id,
				uint64_t ns);

/* The most frames one step reads from port @id; Return: 0 or -ENOENT. */
int voff__switch_set_rx_budget(struct voff_switch *sw, unsigned int id,
			       unsigned int frames);

/* port_retry of port @id, in seconds (0: never); Return: 0 or -ENOENT. */
int voff__switch_set_port_retry(struct voff_switch *sw, unsigned int id,
				unsigned int seconds);

/*
 * Put a setting taken at open (no VOFF_SWITCH_SETTING_F_RUNTIME) into the
 * configuration a port is opened with; settings of the other kind are
 * left alone.
 */
void voff__switch_setting_open(const struct voff_switch_setting *s,
			       uint64_t value, struct voff_port_cfg *cfg);

/*
 * Check a NAME VALUE pair of a run-time change to a port of kind @kind,
 * as `limits` and a configuration's limits lines take it: the name is a
 * setting, it changes at run time, the kind has it, the value is in its
 * range.  Return: 0 with *@value set, or a negative errno with @err
 * saying why ("unknown setting 'x' (settings: ...)", "napi: taken only
 * when the port is opened (a port spec option)", the parse errors of
 * voff_switch_setting_parse()).
 */
int voff__switch_setting_check(enum voff_port_kind kind, const char *name,
			       const char *text, uint64_t *value, char *err,
			       size_t errlen);

/* ---- switch.c, for the control language and configurations ----------- */

/*
 * voff_switch_add() with the spec the port was opened from (NULL: none),
 * kept for voff_switch_port_info() and configurations.
 */
int voff__switch_add(struct voff_switch *sw, struct voff_port *port,
		     const char *name, const char *spec, unsigned int *id);

/* voff_switch_set_features(); @quiet: no FEATURES event. */
int voff__switch_features(struct voff_switch *sw, unsigned int id,
			  uint64_t mask, uint64_t on, bool quiet);

/* The features a new port wants (VOFF_F_* bits). */
uint64_t voff__switch_default_wanted(void);

/*
 * Port @id's offloads or limits changed outside a receive (a VXLAN port's
 * remotes, hence its MTU): read its egress again and propagate the
 * limits, as a receive that sees the change does.  Nothing when nothing
 * changed.
 */
void voff__switch_port_changed(struct voff_switch *sw, unsigned int id);

/*
 * Hand @ev to the event callback, if any; a NULL @ev->name or @ev->spec
 * is filled from port @ev->port.
 */
void voff__switch_emit(struct voff_switch *sw, struct voff_switch_event *ev);

/* ---- re-opening failed ports (voff_switch_conf_retry()) -------------- */

/* The wait before the first attempt to re-open a failed port. */
#define VOFF__RETRY_FIRST_NS 1000000000ull

/*
 * The wait after one of @cur_ns (0: before the first attempt): the first
 * wait, then twice the last, never more than @max_ns.  Pure: the
 * schedule of every failed port.
 */
uint64_t voff__retry_next(uint64_t max_ns, uint64_t cur_ns);

/*
 * Port @id failed with @err (its receive said so): it is no longer
 * polled, what a re-open needs is released (voff__port_release(): a
 * VXLAN port's bound sockets), and VOFF_SWITCH_EV_PORT_FAILED is
 * reported.  Its record (name, spec, settings, features, counters, MAC
 * entries) stays until it is removed or re-opened.
 */
void voff__switch_fail(struct voff_switch *sw, unsigned int id, int err);

/*
 * Release failed port @id (voff__port_release()) if that has not worked
 * yet; Return: 0, -ENOENT, or the backend's -errno (still held).
 */
int voff__switch_release(struct voff_switch *sw, unsigned int id);

/*
 * Is an attempt to re-open port @id due at @now_ns?  False for a port
 * that has not failed or whose port_retry is 0.  The first call that
 * sees the port failed starts its schedule at @now_ns (first attempt a
 * wait later) and answers false.
 */
bool voff__switch_retry_due(struct voff_switch *sw, unsigned int id,
			    uint64_t now_ns);

/*
 * An attempt to re-open failed port @id failed with @err at @now_ns:
 * count it, wait twice as long (voff__retry_next()), report
 * VOFF_SWITCH_EV_PORT_RETRY.
 */
void voff__switch_retry_failed(struct voff_switch *sw, unsigned int id,
			       int err, uint64_t now_ns);

/*
 * Between on and off, the ports removed and added are those of a re-open:
 * their PORT_REMOVED and PORT_ADDED events say so (@new_value 1).
 */
void voff__switch_reopening(struct voff_switch *sw, bool on);

/*
 * Port @id re-opened a failed port at its @retries-th attempt: it keeps
 * the count (struct voff_switch_stats.retries).
 */
void voff__switch_retry_took(struct voff_switch *sw, unsigned int id,
			     uint64_t retries);

/*
 * voff_switch_add_parsed() for a port already opened from @s (with
 * voff_port_open(&port, &@s->cfg)); Ownership: consumes @port, closed on
 * failure.
 */
int voff__switch_add_opened(struct voff_switch *sw,
			    const struct voff_port_spec *s,
			    struct voff_port *port, unsigned int *id);

/* ---- configuration lines (switch_ctl.c reads, switch_conf.c keeps) ---- */

/*
 * Read @line (as voff_switch_conf_line()) through the table of control
 * commands into @conf; Return: 0 (also for a blank line) or a negative
 * errno with the reason in @err.
 */
int voff__ctl_conf_line(struct voff_switch_conf *conf, const char *line,
			size_t len, char *err, size_t errlen);

/* The handlers of the requests a configuration takes. */
int voff__conf_port(struct voff_switch_conf *conf, const char *spec,
		    char *err, size_t errlen);
int voff__conf_features(struct voff_switch_conf *conf, const char *port,
			char **w, int n, char *err, size_t errlen);
int voff__conf_limits(struct voff_switch_conf *conf, const char *port,
		      char **w, int n, char *err, size_t errlen);
/* A static fdb entry: @mac behind declared @port, @remote its VTEP or NULL */
int voff__conf_fdb(struct voff_switch_conf *conf, const uint8_t *mac,
		   const char *port, const union voff_udp_addr *remote,
		   char *err, size_t errlen);

/*
 * The busy-poll window (struct voff_switch_config.busy_poll_ns is @max; a
 * window is measured from the last frame received) after an event:
 * voff__spin_on_frame() for a frame that came @gap_ns after the one
 * before (UINT64_MAX: none before), voff__spin_on_empty() for a window
 * that closed without one.  A frame the configured window would have
 * caught, spinning or not, opens it whole again: traffic whose gaps fit
 * @max is what the user asked to catch (a window that closed early
 * once, on a late frame, must not stay too short for every later one).
 * A window that closes empty halves, down to a sixteenth of @max plus
 * 1 ns: traffic sparser than @max, which no window catches, soon costs
 * little spinning.  @cur is the window now.  Return: the next window.
 */
uint64_t voff__spin_on_frame(uint64_t max, uint64_t cur, uint64_t gap_ns);
uint64_t voff__spin_on_empty(uint64_t max, uint64_t cur);

/* How often a spinning switch yields its CPU to whatever else waits there. */
#define VOFF__SPIN_YIELD_NS 20000ull

/*
 * voff__spin_yield_now() - whether a spinning switch gives its CPU up
 * (sched_yield()) at @now_ns: when VOFF__SPIN_YIELD_NS or more passed
 * since *@last_ns, the last time it did (0 at first: the first empty
 * spinning step yields).  Records @now_ns in *@last_ns when it says yes.
 * A pure function of the time stamps, so tests drive it with fake clocks.
 */
bool voff__spin_yield_now(uint64_t *last_ns, uint64_t now_ns);

#endif /* VOFF_SWITCH_INT_H */
