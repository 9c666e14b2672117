/* SPDX-License-Identifier: MIT */
/*
 * switch_conf.c - configuration files of the switch: the control requests
 * that declare ports (`ports add`), their features and their settings,
 * and static MAC entries (`fdb add`), one per line, read into a struct
 * voff_switch_conf, applied to a running switch as a difference, and
 * written back from the running state
 *
 * A line is read through the table of control commands (switch_ctl.c,
 * voff__ctl_conf_line()), so a configuration has the words of `voff ctl`
 * and nothing else; the three handlers below keep what the line says.
 * Specs are parsed by port_spec.c and settings checked by the table of
 * switch_settings.c: a configuration holds only values that table takes.
 *
 * Applying is two steps, in the way of a transaction that may fail only
 * where the kernel has its say: a plan that looks at everything and
 * changes nothing (a declared port that runs opened with something else,
 * a port to open on a switch that may not), then the changes, each made
 * through the public setters, so every change is reported as the same
 * events a control request would cause.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/err.h>
#include <voff/switch.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "switch_int.h"

/* Sources a configuration tells apart in messages ("--port", a file). */
#define MAX_SOURCES 8
/* Pairs on one `features` line written back (the language takes 32 words). */
#define FEATURE_PAIRS 12
/* Static MAC entries (`fdb add` lines) a configuration holds. */
#define CONF_FDB_MAX 1024

/**
 * struct conf_port - one declared port
 * @spec:	its spec, with every setting given (in the spec, then on
 *		`limits` lines, the last value winning) in given/value
 * @feat_mask:	features named on `features` lines (gro aside)
 * @feat_on:	those of them requested on
 * @src:	where it was declared: index in struct voff_switch_conf.src
 * @line:	and on which line (0: none)
 */
struct conf_port {
	struct voff_port_spec spec;
	uint64_t feat_mask;
	uint64_t feat_on;
	unsigned int src;
	unsigned int line;
};

/**
 * struct conf_fdb - one static MAC entry (`fdb add MAC PORT [REMOTE]`)
 * @mac:	the address
 * @port:	index of its port in struct voff_switch_conf.port
 * @remote:	the VTEP behind it (a VXLAN port), or AF_UNSPEC
 * @line:	the line it was declared on
 * @src:	and where (index in struct voff_switch_conf.src)
 */
struct conf_fdb {
	uint8_t mac[6];
	unsigned int port;
	union voff_udp_addr remote;
	unsigned int line;
	unsigned int src;
};

/**
 * struct voff_switch_conf - a configuration
 * @port:	the declared ports, in order
 * @n:		how many
 * @fdb:	the static MAC entries, in order
 * @n_fdb:	how many
 * @src:	names of the sources lines came from
 * @nsrc:	how many
 * @cur_src:	the source of the line being read
 * @cur_line:	its number
 * @err:	the last failure, "" when none
 */
struct voff_switch_conf {
	struct conf_port port[VOFF_SWITCH_MAX_PORTS];
	unsigned int n;
	struct conf_fdb fdb[CONF_FDB_MAX];
	unsigned int n_fdb;
	char src[MAX_SOURCES][256];
	unsigned int nsrc;
	unsigned int cur_src;
	unsigned int cur_line;
	char err[VOFF_SWITCH_CTL_MAX + 512];
};

int voff_switch_conf_new(struct voff_switch_conf **out)
{
	struct voff_switch_conf *c;

	if (!out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	*out = c;
	return 0;
}

void voff_switch_conf_free(struct voff_switch_conf *conf)
{
	free(conf);
}

const char *voff_switch_conf_error(const struct voff_switch_conf *conf)
{
	return conf ? conf->err : "";
}

const struct voff_port_spec *
voff_switch_conf_port(const struct voff_switch_conf *conf, unsigned int i)
{
	return conf && i < conf->n ? &conf->port[i].spec : NULL;
}

static void say(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * Copy a spec: its strings point into its own buffer, so the copy's must
 * point into the copy's.
 */
static void spec_copy(struct voff_port_spec *to,
		      const struct voff_port_spec *from)
{
	const char *const *src[] = { &from->cfg.name, &from->cfg.netns,
				     &from->cfg.sink };
	const char **dst[] = { &to->cfg.name, &to->cfg.netns, &to->cfg.sink };

	memcpy(to, from, sizeof(*to));
	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
		if (*src[i])
			*dst[i] = to->buf + (*src[i] - from->buf);
	if (from->cfg.vxlan)
		to->cfg.vxlan = &to->vxlan;
	if (from->cfg.name == from->label)
		to->cfg.name = to->label;
}

static void conf_copy(struct voff_switch_conf *to,
		      const struct voff_switch_conf *from)
{
	memcpy(to, from, sizeof(*to));
	for (unsigned int i = 0; i < from->n; i++)
		spec_copy(&to->port[i].spec, &from->port[i].spec);
}

/*
 * struct conf_port.src of a port no configuration declares, added at run
 * time (by `ports add`): its spec and settings are the running port's.
 */
#define SRC_RUN_TIME MAX_SOURCES

/* "WHERE:LINE" of declared port @p. */
static void port_where(const struct voff_switch_conf *c,
		       const struct conf_port *p, char *buf, size_t len)
{
	if (p->src == SRC_RUN_TIME)
		snprintf(buf, len, "added at run time");
	else if (p->line)
		snprintf(buf, len, "%s:%u", c->src[p->src], p->line);
	else
		snprintf(buf, len, "%s", c->src[p->src]);
}

static int find(const struct voff_switch_conf *c, const char *name)
{
	for (unsigned int i = 0; i < c->n; i++)
		if (!strcmp(c->port[i].spec.cfg.name, name))
			return (int)i;
	return -ENOENT;
}

/* The declared port @name, or a failure naming it. */
static struct conf_port *declared(struct voff_switch_conf *c,
				  const char *name, char *err, size_t errlen)
{
	int i = find(c, name);

	if (i < 0) {
		say(err, errlen, "no port '%s' declared above", name);
		return NULL;
	}
	return &c->port[i];
}

int voff__conf_port(struct voff_switch_conf *c, const char *text, char *err,
		    size_t errlen)
{
	struct voff_port_spec s;
	int i;

	if (c->n == VOFF_SWITCH_MAX_PORTS) {
		say(err, errlen, "too many ports (max %d)",
		    VOFF_SWITCH_MAX_PORTS);
		return -ENOSPC;
	}
	if (voff_port_spec_parse(&s, text)) {
		say(err, errlen, "%s: %s", text, s.err);
		return -EINVAL;
	}
	i = find(c, s.cfg.name);
	if (i >= 0) {
		char where[320];

		port_where(c, &c->port[i], where, sizeof(where));
		say(err, errlen, "port '%s' is declared twice (first at %s)",
		    s.cfg.name, where);
		return -EEXIST;
	}
	memset(&c->port[c->n], 0, sizeof(c->port[c->n]));
	spec_copy(&c->port[c->n].spec, &s);
	c->port[c->n].src = c->cur_src;
	c->port[c->n].line = c->cur_line;
	c->n++;
	return 0;
}

/* The index of setting @name in the table. */
static unsigned int setting_index(const char *name)
{
	const struct voff_switch_setting *set;
	unsigned int i;

	for (i = 0; (set = voff_switch_setting_at(i)); i++)
		if (!strcmp(set->name, name))
			break;
	return i;
}

int voff__conf_features(struct voff_switch_conf *c, const char *port,
			char **w, int n, char *err, size_t errlen)
{
	struct conf_port *p = declared(c, port, err, errlen);
	unsigned int gro = setting_index("gro");
	uint64_t mask, on;
	int bad = 0, rc;

	if (!p)
		return -ENOENT;
	rc = voff_feat_parse_requests(w, n, &mask, &on, &bad);
	if (bad < 0 || bad >= n)
		bad = 0;
	if (rc == -ENOENT)
		say(err, errlen, "unknown feature '%s'", w[bad]);
	else if (rc)
		say(err, errlen, "bad request near '%s'", w[bad]);
	if (rc)
		return rc;
	/* The gro feature is the gro setting: one value, the last given. */
	if (mask & VOFF_F_GRO) {
		p->spec.given |= 1u << gro;
		p->spec.value[gro] = !!(on & VOFF_F_GRO);
	}
	mask &= ~VOFF_F_GRO;
	p->feat_mask |= mask;
	p->feat_on = (p->feat_on & ~mask) | (on & mask);
	return 0;
}

int voff__conf_limits(struct voff_switch_conf *c, const char *port,
		      char **w, int n, char *err, size_t errlen)
{
	struct conf_port *p = declared(c, port, err, errlen);
	uint64_t v[VOFF_SWITCH_CTL_MAX / 4];

	if (!p)
		return -ENOENT;
	/* Every pair is checked before the port's settings change. */
	for (int i = 0; i + 1 < n; i += 2) {
		int rc = voff__switch_setting_check(p->spec.cfg.kind, w[i],
						w[i + 1], &v[i / 2], err,
						errlen);
		if (rc)
			return rc;
	}
	for (int i = 0; i + 1 < n; i += 2) {
		unsigned int k = setting_index(w[i]);

		p->spec.given |= 1u << k;
		p->spec.value[k] = v[i / 2];
	}
	return 0;
}

int voff__conf_fdb(struct voff_switch_conf *c, const uint8_t *mac,
		   const char *port, const union voff_udp_addr *remote,
		   char *err, size_t errlen)
{
	struct conf_port *p = declared(c, port, err, errlen);
	struct conf_fdb *e;
	unsigned int i;

	if (!p)
		return -ENOENT;
	if (remote && p->spec.cfg.kind != VOFF_PORT_VXLAN) {
		say(err, errlen, "%s: not a vxlan port", port);
		return -EINVAL;
	}
	/* A MAC declared again moves, as `fdb add` at run time does. */
	for (i = 0; i < c->n_fdb; i++)
		if (!memcmp(c->fdb[i].mac, mac, 6))
			break;
	if (i == CONF_FDB_MAX) {
		say(err, errlen, "too many fdb entries (max %d)",
		    CONF_FDB_MAX);
		return -ENOSPC;
	}
	e = &c->fdb[i];
	memset(e, 0, sizeof(*e));
	memcpy(e->mac, mac, 6);
	e->port = (unsigned int)(p - c->port);
	if (remote)
		e->remote = *remote;
	e->line = c->cur_line;
	e->src = c->cur_src;
	if (i == c->n_fdb)
		c->n_fdb++;
	return 0;
}

/* The index of source @where, added when new; Return: it or -ENOSPC. */
static int source(struct voff_switch_conf *c, const char *where)
{
	for (unsigned int i = 0; i < c->nsrc; i++)
		if (!strncmp(c->src[i], where, sizeof(c->src[i]) - 1))
			return (int)i;
	if (c->nsrc == MAX_SOURCES)
		return -ENOSPC;
	snprintf(c->src[c->nsrc], sizeof(c->src[0]), "%s", where);
	return (int)c->nsrc++;
}

int voff_switch_conf_line(struct voff_switch_conf *c, const char *line,
			  size_t len, const char *where, unsigned int lineno)
{
	char msg[VOFF_SWITCH_CTL_MAX + 256];
	int src, err;

	if (!c || (!line && len))
		return -EINVAL;
	if (!where)
		where = "-";
	c->err[0] = '\0';
	src = source(c, where);
	if (src < 0) {
		say(c->err, sizeof(c->err), "%s: too many sources (max %d)",
		    where, MAX_SOURCES);
		return src;
	}
	c->cur_src = (unsigned int)src;
	c->cur_line = lineno;
	err = voff__ctl_conf_line(c, line, len, msg, sizeof(msg));
	if (!err)
		return 0;
	if (lineno)
		say(c->err, sizeof(c->err), "%s:%u: %s", where, lineno, msg);
	else
		say(c->err, sizeof(c->err), "%s: %s", where, msg);
	return err;
}

int voff_switch_conf_read(struct voff_switch_conf *c, FILE *f,
			  const char *where)
{
	struct voff_switch_conf *before;
	unsigned int lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	if (!c || !f)
		return -EINVAL;
	before = malloc(sizeof(*before));
	if (!before)
		return -ENOMEM;
	conf_copy(before, c);
	while (!err && (len = getline(&line, &cap, f)) >= 0)
		err = voff_switch_conf_line(c, line, (size_t)len, where,
					    ++lineno);
	if (!err && ferror(f)) {
		err = -EIO;
		say(c->err, sizeof(c->err), "%s: %s", where ? where : "-",
		    voff_strerror(err));
	}
	if (err) {
		char msg[sizeof(c->err)];

		memcpy(msg, c->err, sizeof(msg));
		conf_copy(c, before);
		memcpy(c->err, msg, sizeof(msg));
	}
	free(line);
	free(before);
	return err;
}

/* ---- applying ------------------------------------------------------------ */

static int conf_fail(struct voff_switch_conf *c, const struct conf_port *p,
		     int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "WHERE:LINE: port 'NAME': REASON" in c->err; Return: @err. */
static int conf_fail(struct voff_switch_conf *c, const struct conf_port *p,
		     int err, const char *fmt, ...)
{
	char where[320], msg[VOFF_SWITCH_CTL_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	port_where(c, p, where, sizeof(where));
	say(c->err, sizeof(c->err), "%s: port '%s': %s", where,
	    p->spec.cfg.name, msg);
	return err;
}

/* The wanted features port @p asks for (gro aside). */
static uint64_t wanted(const struct conf_port *p)
{
	return (voff__switch_default_wanted() & ~p->feat_mask) |
	       (p->feat_on & p->feat_mask);
}

/*
 * The text of @s without a VXLAN port's remotes (they change at run time:
 * `remotes add|del`) into @buf.
 */
static void format_sans_remotes(const struct voff_port_spec *s, char *buf,
				size_t len)
{
	struct voff_port_spec t;

	spec_copy(&t, s);
	t.vxlan.n_remote = 0;
	voff_port_spec_format(&t, false, buf, len);
}

/*
 * Does running spec @run open what @p opens, remotes aside?  @buf is
 * scratch of @len bytes.
 */
static bool same_but_remotes(const char *run, const struct voff_port_spec *p,
			     char *buf, size_t len)
{
	struct voff_port_spec r;
	char want[VOFF_PORT_SPEC_MAX + 1];

	if (p->cfg.kind != VOFF_PORT_VXLAN || voff_port_spec_parse(&r, run)) {
		voff_port_spec_format(p, false, buf, len);
		return !strcmp(run, buf);
	}
	format_sans_remotes(p, want, sizeof(want));
	format_sans_remotes(&r, buf, len);
	return !strcmp(want, buf);
}

static bool addr_in(const union voff_udp_addr *a,
		    const union voff_udp_addr *list, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (voff_udp_addr_eq(a, &list[i]))
			return true;
	return false;
}

/*
 * Give running VXLAN port @id the remotes @p declares; Return: 1 when the
 * list changed, 0 when not, or a failure.
 */
static int update_remotes(struct voff_switch *sw, struct voff_switch_conf *c,
			  const struct conf_port *p, unsigned int id)
{
	union voff_udp_addr run[VOFF_VXLAN_REMOTES_MAX];
	const struct voff_vxlan_cfg *want = &p->spec.vxlan;
	struct voff_port *port = voff_switch_port(sw, id);
	unsigned int n = voff_port_vxlan_remotes(port, run,
						 VOFF_VXLAN_REMOTES_MAX);
	int changed = 0, err;

	if (n > VOFF_VXLAN_REMOTES_MAX)
		n = VOFF_VXLAN_REMOTES_MAX;
	for (unsigned int i = 0; i < n; i++) {
		if (addr_in(&run[i], want->remote, want->n_remote))
			continue;
		err = voff_port_vxlan_remote_del(port, &run[i]);
		if (err)
			return conf_fail(c, p, err, "remotes: %s",
					 voff_strerror(err));
		changed = 1;
	}
	for (unsigned int i = 0; i < want->n_remote; i++) {
		if (addr_in(&want->remote[i], run, n))
			continue;
		err = voff_port_vxlan_remote_add(port, &want->remote[i]);
		if (err)
			return conf_fail(c, p, err, "remotes: %s",
					 voff_strerror(err));
		changed = 1;
	}
	/* The remotes' route MTUs give the port its limits. */
	voff__switch_port_changed(sw, id);
	return changed;
}

/*
 * Step one: may @p be had without opening anything where it runs?  A
 * running port is matched by name, and must have been opened with what
 * @p opens (a failed one is re-opened anyway).
 */
static int plan(const struct voff_switch *sw, struct voff_switch_conf *c,
		const struct conf_port *p, unsigned int deny)
{
	struct voff_switch_port_info pi;
	int id = voff_switch_find(sw, p->spec.cfg.name);

	if (id >= 0) {
		char spec[VOFF_PORT_SPEC_MAX + 1], run[VOFF_PORT_SPEC_MAX + 1];

		voff_switch_port_info(sw, (unsigned int)id, &pi);
		voff_port_spec_format(&p->spec, false, spec, sizeof(spec));
		if (!pi.failed && !same_but_remotes(pi.spec, &p->spec, run,
						    sizeof(run)))
			return conf_fail(c, p, -EBUSY, "runs as '%s', not "
					 "'%s'; what a port is opened with "
					 "cannot change while it runs (after "
					 "`ports del %s` it is re-created)",
					 *pi.spec ? pi.spec : "(no spec)",
					 spec, p->spec.cfg.name);
		if (!pi.failed)
			return 0;
	}
	if (deny & VOFF_SWITCH_CTL_DENY_ADD)
		return conf_fail(c, p, -EPERM, "cannot open it: this switch "
				 "dropped the privileges to open ports");
	return 0;
}

/* Give port @id, just added, the features @p names. */
static int add_features(struct voff_switch *sw, struct voff_switch_conf *c,
			const struct conf_port *p, unsigned int id)
{
	int err = 0;

	if (p->feat_mask)
		err = voff_switch_set_features(sw, id, p->feat_mask,
					       p->feat_on);
	if (err)
		return conf_fail(c, p, err, "features: %s",
				 voff_strerror(err));
	return 0;
}

static int add(struct voff_switch *sw, struct voff_switch_conf *c,
	       const struct conf_port *p)
{
	unsigned int id;
	int err = voff_switch_add_parsed(sw, &p->spec, &id);

	if (err)
		return conf_fail(c, p, err, "%s", voff_strerror(err));
	return add_features(sw, c, p, id);
}

/*
 * Give running port @id the settings and features of @p that differ;
 * Return: 1 when something changed, 0 when nothing did, or a failure.
 */
static int update(struct voff_switch *sw, struct voff_switch_conf *c,
		  const struct conf_port *p, unsigned int id)
{
	const struct voff_switch_setting *set;
	struct voff_switch_port_info pi;
	uint64_t want, keep, cur;
	int changed = 0, err;

	voff_switch_port_info(sw, id, &pi);
	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		uint64_t v = (p->spec.given & (1u << i)) ?
				     p->spec.value[i] :
				     voff__switch_setting_def(sw, id, set);

		if (!(set->flags & VOFF_SWITCH_SETTING_F_RUNTIME) ||
		    !(set->kinds & (1u << pi.info.kind)) ||
		    voff_switch_get(sw, id, set->name, &cur) || cur == v)
			continue;
		err = voff_switch_set(sw, id, set->name, v);
		if (err)
			return conf_fail(c, p, err, "%s: %s", set->name,
					 voff_strerror(err));
		changed = 1;
	}
	if (pi.info.kind == VOFF_PORT_VXLAN) {
		err = update_remotes(sw, c, p, id);
		if (err < 0)
			return err;
		changed |= err;
	}
	voff_switch_port_info(sw, id, &pi);
	keep = pi.feat.hw & ~VOFF_F_GRO;
	want = wanted(p);
	if ((want ^ pi.feat.wanted) & keep) {
		err = voff_switch_set_features(sw, id, keep, want);
		if (err)
			return conf_fail(c, p, err, "features: %s",
					 voff_strerror(err));
		changed = 1;
	}
	return changed;
}

/* Remove the running ports @c does not declare. */
static unsigned int remove_undeclared(struct voff_switch *sw,
				      const struct voff_switch_conf *c)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n, removed = 0;

	n = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	for (unsigned int i = 0; i < n && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_port_info pi;

		if (voff_switch_port_info(sw, ids[i], &pi) ||
		    find(c, pi.name) >= 0)
			continue;
		voff_switch_del(sw, ids[i]);
		removed++;
	}
	return removed;
}

/*
 * Put port @port, opened from @p, in the place of failed port @id;
 * Ownership: consumes @port.
 */
static int replace(struct voff_switch *sw, struct voff_switch_conf *c,
		   const struct conf_port *p, unsigned int id,
		   struct voff_port *port)
{
	unsigned int nid;
	int err;

	voff_switch_del(sw, id);
	err = voff__switch_add_opened(sw, &p->spec, port, &nid);
	if (err)
		return conf_fail(c, p, err, "%s", voff_strerror(err));
	return add_features(sw, c, p, nid);
}

/*
 * Re-open failed port @id as @p says, the one way a reload and the
 * retries do it: its device is opened first and the failed port closed
 * once that worked, so an attempt that fails changes nothing of the
 * port's record (its settings, counters, features, MAC entries).  What
 * the new device needs and the failed one held (a VXLAN port's bound UDP
 * ports, a vhost-user port's socket path) was released when it failed
 * (voff__switch_fail()); a release that failed then is tried again
 * first.  @retry: an attempt of voff_switch_conf_retry(), counted; a
 * reload instead closes the failed port when the open fails and opens it
 * again, the port then gone if that fails too, as the reload asked.
 */
static int recover(struct voff_switch *sw, struct voff_switch_conf *c,
		   const struct conf_port *p, unsigned int id, bool retry)
{
	struct voff_switch_event ev = { .type = VOFF_SWITCH_EV_PORT_RECOVERED };
	struct voff_switch_stats st;
	struct voff_port *port;
	int err, nid;

	voff_switch_stats(sw, id, &st);
	err = voff__switch_release(sw, id);
	if (!err)
		err = voff_port_open(&port, &p->spec.cfg);
	if (err && retry)
		return conf_fail(c, p, err, "%s", voff_strerror(err));
	voff__switch_reopening(sw, true);
	if (!err) {
		err = replace(sw, c, p, id, port);
	} else {
		voff_switch_del(sw, id);
		err = add(sw, c, p);
	}
	voff__switch_reopening(sw, false);
	if (err)
		return err;
	nid = voff_switch_find(sw, p->spec.cfg.name);
	voff__switch_retry_took(sw, (unsigned int)nid, st.retries + retry);
	ev.port = (unsigned int)nid;
	voff__switch_emit(sw, &ev);
	return 0;
}

/*
 * The static MAC entries, once the ports are there (those of declared
 * port @only, or all for -1); entries added at run time that the
 * configuration does not name are left alone.
 */
static int apply_fdb(struct voff_switch *sw, struct voff_switch_conf *c,
		     int only)
{
	for (unsigned int i = 0; i < c->n_fdb; i++) {
		const struct conf_fdb *e = &c->fdb[i];
		const struct conf_port *p = &c->port[e->port];
		int id = voff_switch_find(sw, p->spec.cfg.name), err;

		if (only >= 0 && e->port != (unsigned int)only)
			continue;
		err = id < 0 ? id :
			       voff_switch_fdb_add(sw, e->mac, (unsigned int)id,
						   e->remote.sa.sa_family ?
							   &e->remote :
							   NULL);
		if (err)
			return conf_fail(c, p, err, "fdb add %02x:%02x:%02x:"
					 "%02x:%02x:%02x (%s:%u): %s",
					 e->mac[0], e->mac[1], e->mac[2],
					 e->mac[3], e->mac[4], e->mac[5],
					 c->src[e->src], e->line,
					 voff_strerror(err));
	}
	return 0;
}

int voff_switch_conf_apply(struct voff_switch *sw,
			   struct voff_switch_conf *c, unsigned int deny,
			   struct voff_switch_conf_result *res)
{
	struct voff_switch_conf_result r = { 0 };
	int err = 0;

	if (!sw || !c)
		return -EINVAL;
	c->err[0] = '\0';
	for (unsigned int i = 0; i < c->n; i++) {
		err = plan(sw, c, &c->port[i], deny);
		if (err)
			return err;
	}
	r.removed = remove_undeclared(sw, c);
	for (unsigned int i = 0; !err && i < c->n; i++) {
		const struct conf_port *p = &c->port[i];
		int id = voff_switch_find(sw, p->spec.cfg.name);
		struct voff_switch_port_info pi;

		if (id < 0) {
			err = add(sw, c, p);
			r.added += !err;
			continue;
		}
		voff_switch_port_info(sw, (unsigned int)id, &pi);
		if (pi.failed) {
			err = recover(sw, c, p, (unsigned int)id, false);
			r.added += !err;
			r.recovered += !err;
			continue;
		}
		err = update(sw, c, p, (unsigned int)id);
		if (err > 0)
			r.changed++;
		else if (!err)
			r.kept++;
		err = err > 0 ? 0 : err;
	}
	if (!err)
		err = apply_fdb(sw, c, -1);
	if (res)
		*res = r;
	return err;
}

/*
 * One due attempt at failed port @id as @p says: refused with -EPERM on a
 * switch that may not open ports; a failure is counted and reported.
 * Return: 0 when it re-opened the port, else the reason.
 */
static int attempt(struct voff_switch *sw, struct voff_switch_conf *c,
		   const struct conf_port *p, unsigned int id,
		   unsigned int deny, uint64_t now_ns)
{
	int err;

	if (deny & VOFF_SWITCH_CTL_DENY_ADD)
		err = conf_fail(c, p, -EPERM, "cannot open it: this switch "
				"dropped the privileges to open ports");
	else
		err = recover(sw, c, p, id, true);
	if (err)
		voff__switch_retry_failed(sw, id, err, now_ns);
	return err;
}

static int snapshot(const struct voff_switch *sw,
		    const struct voff_switch_port_info *pi,
		    struct conf_port *out);

/*
 * The static MAC entries of port @id, in a new array (free() it) of
 * *@n; NULL when there are none or no memory.
 */
static struct voff_switch_fdb_entry *
static_entries(const struct voff_switch *sw, unsigned int id,
	       unsigned int *n)
{
	unsigned int cap = voff_switch_fdb(sw, NULL, 0), got, k = 0;
	struct voff_switch_fdb_entry *e;

	*n = 0;
	e = cap ? calloc(cap, sizeof(*e)) : NULL;
	if (!e)
		return NULL;
	got = voff_switch_fdb(sw, e, cap);
	for (unsigned int i = 0; i < got && i < cap; i++)
		if (e[i].is_static && e[i].port == id)
			e[k++] = e[i];
	*n = k;
	return e;
}

/*
 * A due attempt at failed port @pi, which no configuration declares (a
 * `ports add` at run time): re-opened from its spec with the settings,
 * features and static MAC entries it has, as `save` would write it.
 */
static int retry_added(struct voff_switch *sw, struct voff_switch_conf *c,
		       const struct voff_switch_port_info *pi,
		       unsigned int deny, uint64_t now_ns)
{
	struct conf_port *p = malloc(sizeof(*p));
	struct voff_switch_fdb_entry *e = NULL;
	unsigned int n = 0;
	int err = p ? snapshot(sw, pi, p) : -ENOMEM, id;

	if (err) {
		voff__switch_retry_failed(sw, pi->id, err, now_ns);
		free(p);
		return err;
	}
	e = static_entries(sw, pi->id, &n);
	err = attempt(sw, c, p, pi->id, deny, now_ns);
	/* Its static MAC entries went with the failed port: its new id's. */
	id = err ? -1 : voff_switch_find(sw, p->spec.cfg.name);
	for (unsigned int i = 0; id >= 0 && i < n; i++)
		voff_switch_fdb_add(sw, e[i].mac, (unsigned int)id,
				    e[i].remote.sa.sa_family ? &e[i].remote :
							       NULL);
	free(e);
	free(p);
	return err;
}

int voff_switch_conf_retry(struct voff_switch *sw,
			   struct voff_switch_conf *c, unsigned int deny,
			   uint64_t now_ns)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n;
	int recovered = 0;

	if (!sw || !c)
		return -EINVAL;
	for (unsigned int i = 0; i < c->n; i++) {
		const struct conf_port *p = &c->port[i];
		int id = voff_switch_find(sw, p->spec.cfg.name);

		if (id < 0 || !voff__switch_retry_due(sw, (unsigned int)id,
						      now_ns) ||
		    attempt(sw, c, p, (unsigned int)id, deny, now_ns))
			continue;
		recovered++;
		/* Its static MAC entries went with the failed port. */
		apply_fdb(sw, c, (int)i);
	}
	/* Those added at run time, from a spec, are retried alike. */
	n = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	for (unsigned int i = 0; i < n && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_port_info pi;

		if (voff_switch_port_info(sw, ids[i], &pi) || !pi.failed ||
		    !*pi.spec || find(c, pi.name) >= 0 ||
		    !voff__switch_retry_due(sw, ids[i], now_ns))
			continue;
		recovered += !retry_added(sw, c, &pi, deny, now_ns);
	}
	return recovered;
}

/* ---- writing back -------------------------------------------------------- */

/*
 * The run-time settings of port @pi not at their default into @p's
 * spec (given, value), and the features it wants unlike a new port into
 * @p's feat_mask and feat_on (gro is the setting).
 */
static void port_state(const struct voff_switch *sw,
		       const struct voff_switch_port_info *pi,
		       struct conf_port *p)
{
	const struct voff_switch_setting *set;
	uint64_t diff = (pi->feat.wanted ^ voff__switch_default_wanted()) &
			pi->feat.hw & ~VOFF_F_GRO;

	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		uint64_t v;

		if (!(set->flags & VOFF_SWITCH_SETTING_F_RUNTIME) ||
		    !(set->kinds & (1u << pi->info.kind)) ||
		    voff_switch_get(sw, pi->id, set->name, &v) ||
		    v == voff__switch_setting_def(sw, pi->id, set))
			continue;
		p->spec.given |= 1u << i;
		p->spec.value[i] = v;
	}
	p->feat_mask = diff;
	p->feat_on = pi->feat.wanted & diff;
}

/*
 * Running port @pi as a configuration would declare it, what `save`
 * writes: its spec, with a VXLAN port's remotes as they are now (which
 * `remotes add|del` may have changed since it was opened), and its state
 * (port_state()).  Return: 0, or -EINVAL when it has no spec that parses
 * (@out then holds its state alone).
 */
static int snapshot(const struct voff_switch *sw,
		    const struct voff_switch_port_info *pi,
		    struct conf_port *out)
{
	struct voff_port_spec *s = &out->spec;
	int err;

	memset(out, 0, sizeof(*out));
	out->src = SRC_RUN_TIME;
	err = *pi->spec ? voff_port_spec_parse(s, pi->spec) : -EINVAL;
	if (err) {
		memset(s, 0, sizeof(*s));
	} else if (pi->info.kind == VOFF_PORT_VXLAN) {
		unsigned int n = voff_port_vxlan_remotes(
			voff_switch_port(sw, pi->id), s->vxlan.remote,
			VOFF_VXLAN_REMOTES_MAX);

		s->vxlan.n_remote = n < VOFF_VXLAN_REMOTES_MAX ?
					    n : VOFF_VXLAN_REMOTES_MAX;
	}
	port_state(sw, pi, out);
	return err ? -EINVAL : 0;
}

/* "limits NAME S V ..." with the run-time settings @p gives. */
static void write_limits(const struct conf_port *p, const char *name,
			 FILE *f)
{
	const struct voff_switch_setting *set;
	bool any = false;

	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		char val[32];

		if (!(set->flags & VOFF_SWITCH_SETTING_F_RUNTIME) ||
		    !(p->spec.given & (1u << i)))
			continue;
		voff_switch_setting_format(set, p->spec.value[i], val,
					   sizeof(val));
		if (!any)
			fprintf(f, "limits %s", name);
		fprintf(f, " %s %s", set->name, val);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

/* "features NAME F on|off ..." with the features @p names. */
static void write_features(const struct conf_port *p, const char *name,
			   FILE *f)
{
	uint64_t diff = p->feat_mask;
	unsigned int pairs = 0;

	for (int id = 0; id < VOFF_FEAT__COUNT && diff; id++) {
		uint64_t bit = voff_feat_bit((enum voff_feat_id)id);

		if (!(diff & bit))
			continue;
		if (pairs % FEATURE_PAIRS == 0)
			fprintf(f, "%sfeatures %s", pairs ? "\n" : "", name);
		fprintf(f, " %s %s", voff_feat_name((enum voff_feat_id)id),
			p->feat_on & bit ? "on" : "off");
		pairs++;
		diff &= ~bit;
	}
	if (pairs)
		fputc('\n', f);
}

/*
 * "ports add SPEC", a VXLAN port's with its remotes as they are now
 * (snapshot() @p of it, @ok when that worked); any other port's as it
 * was opened.
 */
static void write_port(const struct voff_switch_port_info *pi,
		       const struct conf_port *p, bool ok, FILE *f)
{
	char text[VOFF_PORT_SPEC_MAX + 1];

	if (pi->info.kind != VOFF_PORT_VXLAN || !ok ||
	    voff_port_spec_format(&p->spec, false, text, sizeof(text)) < 0)
		fprintf(f, "ports add %s\n", pi->spec);
	else
		fprintf(f, "ports add %s\n", text);
}

/* "fdb add MAC PORT [REMOTE]" for each static entry. */
static void write_fdb(const struct voff_switch *sw, FILE *f)
{
	struct voff_switch_fdb_entry *e;
	unsigned int n = voff_switch_fdb(sw, NULL, 0), got;

	if (!n)
		return;
	e = calloc(n, sizeof(*e));
	if (!e)
		return;
	got = voff_switch_fdb(sw, e, n);
	if (got < n)
		n = got;
	for (unsigned int i = 0; i < n; i++) {
		struct voff_switch_port_info pi;

		if (!e[i].is_static ||
		    voff_switch_port_info(sw, e[i].port, &pi) || !*pi.spec)
			continue;
		fprintf(f, "fdb add %02x:%02x:%02x:%02x:%02x:%02x %s",
			e[i].mac[0], e[i].mac[1], e[i].mac[2], e[i].mac[3],
			e[i].mac[4], e[i].mac[5], pi.name);
		if (e[i].remote.sa.sa_family != AF_UNSPEC) {
			char buf[64];

			fprintf(f, " %s", voff_udp_addr_format(&e[i].remote,
							       buf,
							       sizeof(buf)));
		}
		fputc('\n', f);
	}
	free(e);
}

int voff_switch_conf_write(const struct voff_switch *sw, FILE *f)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n;
	struct conf_port *p;

	if (!sw || !f)
		return -EINVAL;
	p = malloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	n = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	for (unsigned int i = 0; i < n && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_port_info pi;
		bool ok;

		if (voff_switch_port_info(sw, ids[i], &pi))
			continue;
		if (!*pi.spec) {
			fprintf(f, "# port %s: not opened from a spec\n",
				pi.name);
			continue;
		}
		ok = !snapshot(sw, &pi, p);
		write_port(&pi, p, ok, f);
		write_limits(p, pi.name, f);
		write_features(p, pi.name, f);
	}
	free(p);
	write_fdb(sw, f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
