/* SPDX-License-Identifier: MIT */
/*
 * switch_settings.c - the one table of per-port switch settings
 * (gso_max_size, gro, napi, ...): names, types, ranges, units, help, and
 * the setter and getter behind each
 *
 * Everything that names a setting is derived from this table: the
 * options of a port spec (port_spec.c), the `limits` request and the help
 * of the control language (switch_ctl.c), the usage of `voff switch` and
 * the list in voff(1), which a unit test compares with it.  Adding a
 * setting is adding one entry here (and its setter in switch.c when it
 * reaches into the data path).
 *
 * Ranges are checked here, once, before a setter runs, so every caller
 * gets the same answer and the same message.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/gro.h>
#include <voff/pkt.h>
#include <voff/switch.h>

#include "switch_int.h"

/* The ceiling spec options always had: UINT32_MAX us, over 71 minutes. */
#define GRO_TIMEOUT_MAX (UINT32_MAX * 1000ull)

#define KIND(k) (1u << (k))
#define ALL_KINDS (KIND(VOFF_PORT__KIND_COUNT) - 1)

/**
 * struct setting - one entry of the table
 * @pub:	what voff_switch_setting_at() hands out (first member, so a
 *		pointer to it is a pointer to the entry)
 * @limit:	for the limits: which enum voff_limit @set and @get use
 * @set:	changes the running port; the value is in range; NULL for a
 *		setting taken at open only
 * @get:	the current value, from the port's info
 * @open:	a setting taken at open: puts it into the port's
 *		configuration; NULL for the others
 * @on_kinds:	a yes/no setting on by default for the ports of these kinds
 *		(the others take @pub.def, off)
 */
struct setting {
	struct voff_switch_setting pub;
	enum voff_limit limit;
	int (*set)(const struct setting *s, struct voff_switch *sw,
		   unsigned int id, uint64_t v);
	uint64_t (*get)(const struct setting *s,
			const struct voff_switch_port_info *pi);
	void (*open)(struct voff_port_cfg *cfg, uint64_t v);
	unsigned int on_kinds;
};

static int set_limit(const struct setting *s, struct voff_switch *sw,
		     unsigned int id, uint64_t v)
{
	return voff__switch_set_limit(sw, id, s->limit, (uint32_t)v);
}

static uint64_t get_limit(const struct setting *s,
			  const struct voff_switch_port_info *pi)
{
	return voff_limit_get(&pi->limits, s->limit);
}

static int set_gro_timeout(const struct setting *s, struct voff_switch *sw,
			   unsigned int id, uint64_t v)
{
	(void)s;
	return voff__switch_set_gro_timeout(sw, id, v);
}

static uint64_t get_gro_timeout(const struct setting *s,
				const struct voff_switch_port_info *pi)
{
	(void)s;
	return pi->gro_flush_timeout_ns;
}

static int set_gro(const struct setting *s, struct voff_switch *sw,
		   unsigned int id, uint64_t v)
{
	(void)s;
	/* The SETTING event says it: no FEATURES event besides. */
	return voff__switch_features(sw, id, VOFF_F_GRO, v ? VOFF_F_GRO : 0,
				     true);
}

static uint64_t get_gro(const struct setting *s,
			const struct voff_switch_port_info *pi)
{
	(void)s;
	return pi->gro;
}

static int set_rx_budget(const struct setting *s, struct voff_switch *sw,
			 unsigned int id, uint64_t v)
{
	(void)s;
	return voff__switch_set_rx_budget(sw, id, (unsigned int)v);
}

static int set_rx_backoff(const struct setting *s, struct voff_switch *sw,
			  unsigned int id, uint64_t v)
{
	(void)s;
	return voff__switch_set_rx_backoff(sw, id, v * 1000);
}

static uint64_t get_rx_backoff(const struct setting *s,
			       const struct voff_switch_port_info *pi)
{
	(void)s;
	return pi->rx_backoff_ns / 1000;
}

static uint64_t get_rx_budget(const struct setting *s,
			      const struct voff_switch_port_info *pi)
{
	(void)s;
	return pi->rx_budget;
}

static int set_port_retry(const struct setting *s, struct voff_switch *sw,
			  unsigned int id, uint64_t v)
{
	(void)s;
	return voff__switch_set_port_retry(sw, id, (unsigned int)v);
}

static uint64_t get_port_retry(const struct setting *s,
			       const struct voff_switch_port_info *pi)
{
	(void)s;
	return pi->port_retry;
}

/* IFF_NAPI is a flag of TUNSETIFF: a device has it from its creation. */
static void open_napi(struct voff_port_cfg *cfg, uint64_t v)
{
	if (v)
		cfg->flags |= VOFF_PORT_F_NAPI;
	else
		cfg->flags &= ~VOFF_PORT_F_NAPI;
}

/* The ring is set up at open, before the socket is bound. */
static void open_rx_ring(struct voff_port_cfg *cfg, uint64_t v)
{
	if (v)
		cfg->flags &= ~VOFF_PORT_F_NO_RING;
	else
		cfg->flags |= VOFF_PORT_F_NO_RING;
}

/* As asked (a 12-byte header has no ring: info.mmap_ring tells). */
static uint64_t get_rx_ring(const struct setting *s,
			    const struct voff_switch_port_info *pi)
{
	(void)s;
	return !(pi->info.flags & VOFF_PORT_F_NO_RING);
}

static uint64_t get_napi(const struct setting *s,
			 const struct voff_switch_port_info *pi)
{
	(void)s;
	return !!(pi->info.flags & VOFF_PORT_F_NAPI);
}

#define NUMBER VOFF_SWITCH_SETTING_NUMBER
#define BOOL VOFF_SWITCH_SETTING_BOOL
#define RUNTIME VOFF_SWITCH_SETTING_F_RUNTIME

static const struct setting table[] = {
	{ { "gso_max_size", NUMBER, VOFF_GSO_MIN_SIZE, VOFF_GSO_FRAME_LIMIT,
	    VOFF_GSO_LEGACY_MAX_SIZE, "bytes",
	    "largest super-packet sent to the port (propagated)", RUNTIME,
	    ALL_KINDS },
	  VOFF_LIMIT_GSO_MAX_SIZE, set_limit, get_limit, NULL, 0 },
	{ { "gso_max_segs", NUMBER, 1, VOFF_GSO_MAX_SEGS, VOFF_GSO_MAX_SEGS,
	    "segments", "most segments of a super-packet sent to the port",
	    RUNTIME, ALL_KINDS },
	  VOFF_LIMIT_GSO_MAX_SEGS, set_limit, get_limit, NULL, 0 },
	{ { "gro_max_size", NUMBER, 0, VOFF_GSO_LEGACY_MAX_SIZE,
	    VOFF_GSO_LEGACY_MAX_SIZE, "bytes",
	    "GRO builds IP datagrams below this (0: merges nothing)",
	    RUNTIME, ALL_KINDS },
	  VOFF_LIMIT_GRO_MAX_SIZE, set_limit, get_limit, NULL, 0 },
	{ { "gro_flush_timeout", NUMBER, 0, GRO_TIMEOUT_MAX, 0, "ns",
	    "how long GRO may hold a flow (0: to the end of a step)",
	    RUNTIME, ALL_KINDS },
	  0, set_gro_timeout, get_gro_timeout, NULL, 0 },
	/*
	 * On for a VXLAN port, as on the kernel's vxlan device: what it
	 * receives is always MTU-sized datagrams of its peers.
	 */
	{ { "gro", BOOL, 0, 1, 0, "",
	    "coalesce what the port receives (the gro feature)", RUNTIME,
	    ALL_KINDS },
	  0, set_gro, get_gro, NULL, KIND(VOFF_PORT_VXLAN) },
	{ { "napi", BOOL, 0, 1, 0, "",
	    "the device takes the switch's writes in NAPI (IFF_NAPI)", 0,
	    KIND(VOFF_PORT_TAP) | KIND(VOFF_PORT_TUN) },
	  0, NULL, get_napi, open_napi, 0 },
	{ { "rx_ring", BOOL, 0, 1, 1, "",
	    "receive through a TPACKET ring shared with the kernel (off: "
	    "recvmmsg())", 0, KIND(VOFF_PORT_PACKET) },
	  0, NULL, get_rx_ring, open_rx_ring, 0 },
	{ { "rx_budget", NUMBER, 1, VOFF_BATCH_MAX, VOFF_BATCH_MAX, "frames",
	    "most frames read from the port in one step", RUNTIME,
	    ALL_KINDS },
	  0, set_rx_budget, get_rx_budget, NULL, 0 },
	{ { "rx_backoff", NUMBER, 0, 1000000, VOFF_SWITCH_RX_BACKOFF_NS / 1000,
	    "us", "longest the port is left unread while what it receives is "
	    "mostly malformed (0: never)", RUNTIME, ALL_KINDS },
	  0, set_rx_backoff, get_rx_backoff, NULL, 0 },
	{ { "port_retry", NUMBER, 0, 3600, VOFF_SWITCH_PORT_RETRY_S, "s",
	    "once the port failed, longest wait between attempts to re-open "
	    "it, from 1 s doubling (a port of the configuration; 0: only a "
	    "reload)", RUNTIME, ALL_KINDS },
	  0, set_port_retry, get_port_retry, NULL, 0 },
};

#define COUNT (sizeof(table) / sizeof(table[0]))

_Static_assert(COUNT <= VOFF_SWITCH_SETTINGS_MAX,
	       "struct voff_port_spec has no room for every setting");
_Static_assert(offsetof(struct setting, pub) == 0,
	       "a public setting is its entry");

const struct voff_switch_setting *voff_switch_setting_at(unsigned int i)
{
	return i < COUNT ? &table[i].pub : NULL;
}

const struct voff_switch_setting *voff_switch_setting_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < COUNT; i++)
		if (!strcmp(table[i].pub.name, name))
			return &table[i].pub;
	return NULL;
}

/* The entry of @s, or NULL when @s is not one of the table's. */
static const struct setting *entry(const struct voff_switch_setting *s)
{
	for (size_t i = 0; i < COUNT; i++)
		if (s == &table[i].pub)
			return &table[i];
	return NULL;
}

static void say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int voff_switch_setting_range(const struct voff_switch_setting *s, char *buf,
			      size_t len)
{
	if (s->type == VOFF_SWITCH_SETTING_BOOL)
		return snprintf(buf, len, "on|off");
	return snprintf(buf, len, "%" PRIu64 "..%" PRIu64 "%s%s", s->min,
			s->max, *s->unit ? " " : "", s->unit);
}

int voff_switch_setting_format(const struct voff_switch_setting *s,
			       uint64_t value, char *buf, size_t len)
{
	if (s->type == VOFF_SWITCH_SETTING_BOOL)
		return snprintf(buf, len, "%s", value ? "on" : "off");
	return snprintf(buf, len, "%" PRIu64, value);
}

int voff_switch_setting_parse(const struct voff_switch_setting *s,
			      const char *text, uint64_t *value, char *err,
			      size_t errlen)
{
	unsigned long long v = 0;
	char range[64];
	char *end = NULL;
	bool digit;

	if (!s || !text || !value)
		return -EINVAL;
	if (s->type == VOFF_SWITCH_SETTING_BOOL) {
		if (strcmp(text, "on") && strcmp(text, "off")) {
			say(err, errlen, "%s: expected on or off", s->name);
			return -EINVAL;
		}
		*value = !strcmp(text, "on");
		return 0;
	}
	voff_switch_setting_range(s, range, sizeof(range));
	/* strtoull() would take a sign, and spaces before it. */
	digit = *text >= '0' && *text <= '9';
	errno = 0;
	if (digit)
		v = strtoull(text, &end, 0);
	if (!digit || *end) {
		say(err, errlen, "%s: expected a number (%s), not '%.32s'",
		    s->name, range, text);
		return -EINVAL;
	}
	if (errno == ERANGE || v < s->min || v > s->max) {
		say(err, errlen, "%s: %.32s is out of range (%s)", s->name,
		    text, range);
		return -ERANGE;
	}
	*value = v;
	return 0;
}

int voff_switch_set(struct voff_switch *sw, unsigned int id, const char *name,
		    uint64_t value)
{
	const struct setting *e = entry(voff_switch_setting_find(name));
	struct voff_switch_event ev = { .type = VOFF_SWITCH_EV_SETTING };
	struct voff_switch_port_info pi;
	int err;

	if (!sw)
		return -EINVAL;
	if (voff_switch_port_info(sw, id, &pi))
		return -ENOENT;
	if (!e)
		return -EINVAL;
	ev.port = id;
	ev.setting = &e->pub;
	if (value < e->pub.min || value > e->pub.max)
		return -ERANGE;
	if (!e->set || !(e->pub.kinds & KIND(pi.info.kind)))
		return -EOPNOTSUPP;
	ev.old_value = e->get(e, &pi);
	err = e->set(e, sw, id, value);
	if (err)
		return err;
	voff_switch_port_info(sw, id, &pi);
	ev.new_value = e->get(e, &pi);
	if (ev.new_value != ev.old_value)
		voff__switch_emit(sw, &ev);
	return 0;
}

int voff_switch_get(const struct voff_switch *sw, unsigned int id,
		    const char *name, uint64_t *value)
{
	const struct setting *e = entry(voff_switch_setting_find(name));
	struct voff_switch_port_info pi;

	if (!sw || !value)
		return -EINVAL;
	if (voff_switch_port_info(sw, id, &pi))
		return -ENOENT;
	if (!e)
		return -EINVAL;
	*value = e->get(e, &pi);
	return 0;
}

uint64_t voff__switch_kind_def(const struct voff_switch_setting *s,
			       enum voff_port_kind kind)
{
	const struct setting *e = entry(s);

	if (e && (unsigned int)kind < VOFF_PORT__KIND_COUNT &&
	    (e->on_kinds & KIND(kind)))
		return 1;
	return s->def;
}

uint64_t voff__switch_setting_def(const struct voff_switch *sw,
				  unsigned int id,
				  const struct voff_switch_setting *s)
{
	const struct setting *e = entry(s);
	struct voff_switch_port_info pi;
	struct voff_limits l;

	if (e && e->set == set_limit &&
	    !voff__switch_initial_limits(sw, id, &l))
		return voff_limit_get(&l, e->limit);
	if (e && e->on_kinds && !voff_switch_port_info(sw, id, &pi))
		return voff__switch_kind_def(s, pi.info.kind);
	return s->def;
}

int voff__switch_setting_check(enum voff_port_kind kind, const char *name,
			       const char *text, uint64_t *value, char *err,
			       size_t errlen)
{
	const struct voff_switch_setting *set = voff_switch_setting_find(name);

	if (!set) {
		char list[512];
		size_t off = 0;

		list[0] = '\0';
		for (size_t i = 0; i < COUNT && off < sizeof(list); i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", i ? ", " : "",
						table[i].pub.name);
		say(err, errlen, "unknown setting '%s' (settings: %s)", name,
		    list);
		return -EINVAL;
	}
	if (!(set->flags & VOFF_SWITCH_SETTING_F_RUNTIME)) {
		say(err, errlen, "%s: taken only when the port is opened (a "
		    "port spec option)", name);
		return -EINVAL;
	}
	if (!(set->kinds & KIND(kind))) {
		say(err, errlen, "%s: not a setting of %s ports", name,
		    voff_port_kind_name(kind));
		return -EINVAL;
	}
	return voff_switch_setting_parse(set, text, value, err, errlen);
}

void voff__switch_setting_open(const struct voff_switch_setting *s,
			       uint64_t value, struct voff_port_cfg *cfg)
{
	const struct setting *e = entry(s);

	if (e && e->open)
		e->open(cfg, value);
}

/* " tap and tun": the kinds of @kinds, each after a space or a comma. */
static void print_kind_list(FILE *f, unsigned int kinds)
{
	unsigned int n = 0, left = (unsigned int)__builtin_popcount(kinds);

	for (int k = 0; k < VOFF_PORT__KIND_COUNT; k++) {
		if (!(kinds & KIND(k)))
			continue;
		n++;
		fprintf(f, "%s%s", n == 1 ? " " : n == left ? " and " : ", ",
			voff_port_kind_name((enum voff_port_kind)k));
	}
}

/* "; tap and tun only", "" for a setting of every kind. */
static void print_kinds(FILE *f, unsigned int kinds)
{
	if (kinds == ALL_KINDS)
		return;
	fputc(';', f);
	print_kind_list(f, kinds);
	fputs(" only", f);
}

void voff_switch_settings_print(FILE *f)
{
	for (size_t i = 0; i < COUNT; i++) {
		const struct voff_switch_setting *s = &table[i].pub;
		char range[64], def[32];

		voff_switch_setting_range(s, range, sizeof(range));
		voff_switch_setting_format(s, s->def, def, sizeof(def));
		fprintf(f, "  %s=%s, default %s", s->name, range, def);
		if (table[i].on_kinds) {
			fputs(" (on for", f);
			print_kind_list(f, table[i].on_kinds);
			fputs(" ports)", f);
		}
		print_kinds(f, s->kinds);
		if (!(s->flags & VOFF_SWITCH_SETTING_F_RUNTIME))
			fputs(", when the port is opened", f);
		fprintf(f, "\n      %s\n", s->help);
	}
}
