/* SPDX-License-Identifier: MIT */
/*
 * switch_ctl.c - the switch's control language: the one-line requests
 * `voff ctl` sends ("features tap0 tso off"), answered as text or JSON
 * (port specs, which `ports add` takes, are port_spec.c's; the settings
 * `limits` shows and sets are switch_settings.c's)
 *
 * Requests are untrusted bytes from a socket: they are copied into a fixed
 * buffer, refused when too long or not printable, and split into a bounded
 * number of words before anything looks at them.  They are dispatched
 * through one table of commands (name, arguments, their bounds, handler,
 * help), in the way of Open vSwitch's unixctl; `help` is printed from it.
 * Every reply goes through one writer that prints the same pairs as JSON
 * or as text.  A server runs requests under its policy
 * (voff_switch_ctl_serve()): `voff switch` refuses pcap: specs from
 * clients, which would name files for it to open or create, and every
 * `ports add` once it has dropped its capabilities.
 */
#include <errno.h>
#include <sys/socket.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/err.h>
#include <voff/switch.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "switch_int.h"

#define MAX_WORDS 32

/* ---- replies: one writer for JSON and text ------------------------------- */

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/**
 * struct col - one column of a text table
 * @head:	its header
 * @width:	its width; 0 for the last column (not padded)
 */
struct col {
	const char *head;
	int width;
};

/**
 * struct style - how a reply's objects look as text (JSON needs no style)
 * @cols:	a table: a header row, then one row per object with its
 *		pairs' values in column order; the fields below are unused
 * @title:	the object's first pair is a title line, @title[0] VALUE
 *		@title[1] ("Limits for p0:"), not a pair
 * @indent:	before each "KEY VALUE" line
 * @suffix:	after each key (":")
 * @width:	key and suffix are padded to this width
 */
struct style {
	const struct col *cols;
	const char *title[2];
	const char *indent;
	const char *suffix;
	int width;
};

/**
 * struct out - a reply being written
 * @f:		where it goes
 * @json:	JSON (else text)
 * @st:		its text style
 * @depth:	JSON: lists and objects open
 * @more:	JSON: a member was written at that depth (a comma is due)
 * @npairs:	text: pairs written to the current object
 * @prefix:	text: name of the open sub-object, put before its keys
 * @err:	when set, fail() puts its message here (@errlen bytes)
 *		instead of writing an error reply: a configuration line
 * @errlen:	bytes of @err
 */
struct out {
	FILE *f;
	char *err;
	size_t errlen;
	bool json;
	const struct style *st;
	unsigned int depth;
	bool more[6];
	unsigned int npairs;
	const char *prefix;
};

static void member(struct out *o)
{
	if (o->more[o->depth])
		fputc(',', o->f);
	o->more[o->depth] = true;
}

static void open_json(struct out *o, char c)
{
	fputc(c, o->f);
	o->more[++o->depth] = false;
}

static void close_json(struct out *o, char c)
{
	fputc(c, o->f);
	if (!--o->depth)
		fputc('\n', o->f);
}

static void list_begin(struct out *o)
{
	const struct col *c = o->st ? o->st->cols : NULL;

	if (o->json) {
		member(o);
		open_json(o, '[');
		return;
	}
	for (; c && c->head; c++) {
		if (c->width)
			fprintf(o->f, "%-*s ", c->width, c->head);
		else
			fprintf(o->f, "%s\n", c->head);
	}
}

static void list_end(struct out *o)
{
	if (o->json)
		close_json(o, ']');
}

static void obj_begin(struct out *o)
{
	o->npairs = 0;
	if (o->json) {
		member(o);
		open_json(o, '{');
	}
}

static void obj_end(struct out *o)
{
	if (o->json)
		close_json(o, '}');
	else if (o->st && o->st->cols)
		fputc('\n', o->f);
}

/* A JSON key, or nothing in text. */
static void key(struct out *o, const char *k)
{
	member(o);
	jstr(o->f, k);
	fputc(':', o->f);
}

/* A nested object ("device": {...}); in text its keys get its name. */
static void sub_begin(struct out *o, const char *k)
{
	if (o->json) {
		key(o, k);
		open_json(o, '{');
	} else {
		o->prefix = k;
	}
}

static void sub_end(struct out *o)
{
	if (o->json)
		close_json(o, '}');
	else
		o->prefix = NULL;
}

/* One pair as text: a table cell, a title, or a "KEY VALUE" line. */
static void text_pair(struct out *o, const char *k, const char *val)
{
	const struct style *st = o->st;
	char name[96];

	if (st->cols) {
		int w = st->cols[o->npairs].width;

		if (w)
			fprintf(o->f, "%-*s ", w, val);
		else
			fputs(val, o->f);
	} else if (st->title[0] && !o->npairs) {
		fprintf(o->f, "%s%s%s\n", st->title[0], val, st->title[1]);
	} else {
		snprintf(name, sizeof(name), "%s%s%s%s",
			 o->prefix ? o->prefix : "", o->prefix ? " " : "", k,
			 st->suffix ? st->suffix : "");
		fprintf(o->f, "%s%-*s %s\n", st->indent ? st->indent : "",
			st->width, name, val);
	}
	o->npairs++;
}

static void put_u64(struct out *o, const char *k, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	if (!o->json) {
		text_pair(o, k, buf);
		return;
	}
	key(o, k);
	fputs(buf, o->f);
}

/* A string; NULL or "" is JSON null and "-" in text. */
static void put_str(struct out *o, const char *k, const char *s)
{
	bool none = !s || !*s;

	if (!o->json) {
		text_pair(o, k, none ? "-" : s);
		return;
	}
	key(o, k);
	if (none)
		fputs("null", o->f);
	else
		jstr(o->f, s);
}

/* A number, or JSON null and "-" in text when it is negative. */
static void put_opt_int(struct out *o, const char *k, long v)
{
	if (v >= 0)
		put_u64(o, k, (uint64_t)v);
	else
		put_str(o, k, NULL);
}

/* A bool: JSON true/false, text @on or @off. */
static void put_bool(struct out *o, const char *k, bool b, const char *on,
		     const char *off)
{
	if (!o->json) {
		text_pair(o, k, b ? on : off);
		return;
	}
	key(o, k);
	fputs(b ? "true" : "false", o->f);
}

/* A setting's value: JSON number or true/false, text as it is written. */
static void put_setting(struct out *o, const struct voff_switch_setting *s,
			uint64_t v)
{
	char buf[32];

	if (s->type == VOFF_SWITCH_SETTING_BOOL) {
		put_bool(o, s->name, v, "on", "off");
		return;
	}
	voff_switch_setting_format(s, v, buf, sizeof(buf));
	if (!o->json) {
		text_pair(o, s->name, buf);
		return;
	}
	key(o, s->name);
	fputs(buf, o->f);
}

/* The reply to a change that worked: {"ok":true}, nothing in text. */
static int done(struct out *o)
{
	if (o->json)
		fputs("{\"ok\":true}\n", o->f);
	return 0;
}

static int fail(struct out *o, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "error: MESSAGE" or {"error":"MESSAGE"}; Return: @err. */
static int fail(struct out *o, int err, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o->err) {
		snprintf(o->err, o->errlen, "%s", msg);
		return err;
	}
	if (o->json) {
		fputs("{\"error\":", o->f);
		jstr(o->f, msg);
		fputs("}\n", o->f);
	} else {
		fprintf(o->f, "error: %s\n", msg);
	}
	return err;
}

/* ---- commands ------------------------------------------------------------ */

/**
 * struct ctx - one request being run
 * @sw:		the switch (NULL for a configuration line)
 * @st:		the server's policy and counters, NULL without a server
 * @conf:	a configuration line is read into it (no switch, no reply)
 * @o:		the reply
 */
struct ctx {
	struct voff_switch *sw;
	struct voff_switch_ctl_state *st;
	struct voff_switch_conf *conf;
	struct out o;
};

/*
 * A PORT word: the name of a port, else the id `ports` lists.  A name
 * wins: a port named "1" is that port, whatever port 1 is.
 */
static int find_port(struct ctx *c, const char *word)
{
	int id = voff_switch_find(c->sw, word);
	size_t n = strspn(word, "0123456789");

	if (id >= 0)
		return id;
	if (n && n <= 3 && !word[n] && voff_switch_port(c->sw, (unsigned int)
						       strtoul(word, NULL, 10)))
		return (int)strtoul(word, NULL, 10);
	return fail(&c->o, -ENOENT, "no port '%s'", word);
}

static const struct col ports_cols[] = {
	{ "ID", 3 }, { "NAME", 16 }, { "KIND", 6 }, { "NETNS", 12 },
	{ "IFINDEX", 7 }, { "GRO", 3 }, { "STATE", 6 },
	{ "RX-OFFLOADS", 32 }, { "TX-OFFLOADS", 0 }, { NULL, 0 },
};
static const struct style ports_style = { .cols = ports_cols };

static void port_row(struct out *o, const struct voff_switch_port_info *pi)
{
	char rx[96], tx[96];

	voff_tun_flags_format(pi->info.rx_off, rx, sizeof(rx));
	voff_tun_flags_format(pi->info.tx_off, tx, sizeof(tx));
	obj_begin(o);
	put_u64(o, "id", pi->id);
	put_str(o, "name", pi->name);
	put_str(o, "kind", voff_port_kind_name(pi->info.kind));
	put_str(o, "netns", pi->info.netns);
	put_u64(o, "ifindex", pi->info.ifindex);
	put_bool(o, "gro", pi->gro, "on", "off");
	put_bool(o, "failed", pi->failed, "FAILED", "ok");
	put_str(o, "rx_offloads", rx);
	put_str(o, "tx_offloads", tx);
	obj_end(o);
}

static int cmd_ports(struct ctx *c, char **w, int n)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], cnt;

	(void)w;
	(void)n;
	cnt = voff_switch_ports(c->sw, ids, VOFF_SWITCH_MAX_PORTS);
	c->o.st = &ports_style;
	list_begin(&c->o);
	for (unsigned int i = 0; i < cnt && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_port_info pi;

		voff_switch_port_info(c->sw, ids[i], &pi);
		port_row(&c->o, &pi);
	}
	list_end(&c->o);
	return 0;
}

/*
 * `ports add` under a server policy.  The spec is parsed before the policy
 * is looked at, so a malformed spec is reported as such either way.
 */
/* The table entry of port kind @kind, or NULL. */
static const struct voff_port_spec_kind *spec_kind(enum voff_port_kind kind)
{
	const struct voff_port_spec_kind *k;

	for (unsigned int i = 0; (k = voff_port_spec_kind_at(i)); i++)
		if (k->kind == kind)
			return k;
	return NULL;
}

static int cmd_ports_add(struct ctx *c, char **w, int n)
{
	struct voff_switch_ctl_state *st = c->st;
	const struct voff_port_spec_kind *kind;
	struct voff_port_spec s;
	int err;

	(void)n;
	err = voff_port_spec_parse(&s, w[0]);
	if (err)
		return fail(&c->o, err, "ports add: %s: %s", w[0], s.err);
	if (st && (st->deny & VOFF_SWITCH_CTL_DENY_ADD)) {
		st->refused++;
		return fail(&c->o, -EPERM, "ports add: refused: this switch "
			    "dropped the privileges to open ports");
	}
	if (st && (st->deny & VOFF_SWITCH_CTL_DENY_FILES) &&
	    (kind = spec_kind(s.cfg.kind)) && kind->files) {
		st->refused++;
		return fail(&c->o, -EPERM, "ports add: refused: %s ports "
			    "name files and are only taken from the command "
			    "line", kind->name);
	}
	err = voff_switch_add_parsed(c->sw, &s, NULL);
	if (err)
		return fail(&c->o, err, "ports add: %s", voff_strerror(err));
	return done(&c->o);
}

static int cmd_ports_del(struct ctx *c, char **w, int n)
{
	int id = find_port(c, w[0]);

	(void)n;
	if (id < 0)
		return id;
	voff_switch_del(c->sw, (unsigned int)id);
	return done(&c->o);
}

/* One array per request, as `ethtool --json -k` and `voff features -j`. */
static void features_json(struct out *o,
			  const struct voff_switch_port_info *pi)
{
	fputc('[', o->f);
	voff_feat_print_json(o->f, pi->name, &pi->feat, NULL);
	fputs("]\n", o->f);
}

static int set_features(struct ctx *c, int id, char **w, int n)
{
	uint64_t mask, on;
	int bad = 0, err;

	if (n % 2)
		return fail(&c->o, -EINVAL,
			    "features: NAME on|off pairs expected");
	err = voff_feat_parse_requests(w, n, &mask, &on, &bad);
	if (bad < 0 || bad >= n)
		bad = 0;
	if (err == -ENOENT)
		return fail(&c->o, err, "unknown feature '%s'", w[bad]);
	if (err)
		return fail(&c->o, err, "bad request near '%s'", w[bad]);
	err = voff_switch_set_features(c->sw, (unsigned int)id, mask, on);
	if (err)
		return fail(&c->o, err, "features: %s", voff_strerror(err));
	return done(&c->o);
}

static int cmd_features(struct ctx *c, char **w, int n)
{
	struct voff_switch_port_info pi;
	int id = find_port(c, w[0]);

	if (id < 0)
		return id;
	if (n > 1)
		return set_features(c, id, w + 1, n - 1);
	voff_switch_port_info(c->sw, (unsigned int)id, &pi);
	if (c->o.json)
		features_json(&c->o, &pi);
	else
		voff_feat_print(c->o.f, pi.name, &pi.feat);
	return 0;
}

/* Check one NAME VALUE pair for port @pi; Return: 0 or a failure. */
static int limit_check(struct ctx *c, const struct voff_switch_port_info *pi,
		       const char *name, const char *text, uint64_t *v)
{
	char err[640];
	int rc = voff__switch_setting_check(pi->info.kind, name, text, v, err,
					    sizeof(err));

	return rc ? fail(&c->o, rc, "%s", err) : 0;
}

static const struct style limits_style = {
	.title = { "Limits for ", ":" },
	.suffix = ":",
};

/* Every setting of the table, then what the device reports. */
static void limits_show(struct ctx *c, const struct voff_switch_port_info *pi)
{
	const struct voff_switch_setting *set;
	struct out *o = &c->o;

	o->st = &limits_style;
	obj_begin(o);
	put_str(o, "port", pi->name);
	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		uint64_t v = 0;

		voff_switch_get(c->sw, pi->id, set->name, &v);
		put_setting(o, set, v);
	}
	sub_begin(o, "device");
	put_u64(o, "mtu", pi->dev_limits.mtu);
	put_u64(o, "gso_max_size", pi->dev_limits.gso_max_size);
	put_u64(o, "gso_max_segs", pi->dev_limits.gso_max_segs);
	sub_end(o);
	obj_end(o);
}

static int cmd_limits(struct ctx *c, char **w, int n)
{
	struct voff_switch_port_info pi;
	uint64_t v[MAX_WORDS / 2];
	int id = find_port(c, w[0]), err;

	if (id < 0)
		return id;
	if ((n - 1) % 2)
		return fail(&c->o, -EINVAL, "limits: NAME VALUE pairs "
					    "expected");
	voff_switch_port_info(c->sw, (unsigned int)id, &pi);
	if (n == 1) {
		limits_show(c, &pi);
		return 0;
	}
	/* Check every pair before changing anything. */
	for (int i = 1; i < n; i += 2) {
		err = limit_check(c, &pi, w[i], w[i + 1], &v[i / 2]);
		if (err)
			return err;
	}
	for (int i = 1; i < n; i += 2) {
		err = voff_switch_set(c->sw, (unsigned int)id, w[i], v[i / 2]);
		if (err)
			return fail(&c->o, err, "%s: %s", w[i],
				    voff_strerror(err));
	}
	return done(&c->o);
}

static const struct style stats_style = {
	.title = { "", ":" },
	.indent = "  ",
	.width = 12,
};

/* The port's own drops by reason, the non-zero ones: rx_drop_NAME, ... */
static void port_drops(struct out *o, const struct voff_port *port)
{
	static const char *const dir[] = { "rx", "tx" };
	struct voff_port_drop d[32];

	for (unsigned int k = 0; k < 2; k++) {
		unsigned int n = voff_port_drops(port, k ? VOFF_PORT_TX :
							   VOFF_PORT_RX,
						 d, 32);

		for (unsigned int i = 0; i < n && i < 32; i++) {
			char name[64];

			snprintf(name, sizeof(name), "%s_drop_%s", dir[k],
				 d[i].name);
			put_u64(o, name, d[i].count);
		}
	}
}

/*
 * A vhost-user port's guest: its connection, its driver's starts and
 * stops (each reboot), the messages of the current connection.
 */
static void vhost_stats(struct out *o, const struct voff_port *port)
{
	static const char *const k[] = {
		"vhost_connected", "vhost_running", "vhost_features",
		"vhost_protocol_features", "vhost_connects",
		"vhost_disconnects", "vhost_refused_peer", "vhost_refused_busy",
		"vhost_protocol_drops", "vhost_starts", "vhost_stops",
		"vhost_messages", "vhost_refused_messages",
		"vhost_guest_calls",
	};
	struct voff_port_vhost_stats v;

	if (voff_port_vhost_stats(port, &v))
		return;
	const uint64_t val[] = {
		v.connected, v.running, v.features, v.protocol_features,
		v.connects, v.disconnects, v.refused_peer, v.refused_busy,
		v.protocol_drops, v.starts, v.stops, v.messages,
		v.refused_messages, v.guest_calls,
	};

	for (size_t i = 0; i < sizeof(val) / sizeof(val[0]); i++)
		put_u64(o, k[i], val[i]);
}

/*
 * A vxlan port's counters (vxlan_*), its UDP sockets' (udp_*), and the
 * number of source ports it spreads flows over (vxlan_srcports, a gauge).
 */
static void vxlan_counters(struct out *o, const struct voff_port *port)
{
	struct voff_vxlan_stats vx;
	struct voff_udp_stats u;

	if (voff_port_vxlan_stats(port, &vx, &u))
		return;
#define VX_PUT(f, doc) put_u64(o, "vxlan_" #f, vx.f);
	VOFF_VXLAN_STATS_MAP(VX_PUT)
#undef VX_PUT
#define UDP_PUT(f, doc) put_u64(o, "udp_" #f, u.f);
	VOFF_UDP_STATS_MAP(UDP_PUT)
#undef UDP_PUT
	put_u64(o, "vxlan_srcports", voff_port_vxlan_srcports(port, NULL, 0));
}

static void stats_one(struct out *o, const char *name,
		      const struct voff_port *port,
		      const struct voff_switch_stats *s)
{
	const uint64_t v[] = {
		s->port.rx_packets, s->port.rx_bytes, s->port.rx_gso,
		s->port.rx_dropped, s->port.tx_packets, s->port.tx_bytes,
		s->port.tx_gso, s->port.tx_dropped, s->gso_in, s->gso_segs,
		s->reseg_in, s->reseg_out, s->csum_sw, s->gro_merged,
		s->gro_out, s->flooded, s->rx_held, s->port.rx_kernel_dropped,
		s->retries,
	};
	static const char *const k[] = {
		"rx_packets", "rx_bytes", "rx_super", "rx_dropped",
		"tx_packets", "tx_bytes", "tx_super", "tx_dropped",
		"gso_in", "gso_segs", "reseg_in", "reseg_out", "csum_sw",
		"gro_merged", "gro_out", "flooded", "rx_held",
		"rx_kernel_dropped", "retries",
	};

	obj_begin(o);
	put_str(o, "port", name);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		put_u64(o, k[i], v[i]);
	for (int d = 0; d < VOFF_SWITCH_DROP__COUNT; d++) {
		char dn[32];

		/* JSON has every reason; text the ones that happened. */
		if (!o->json && !s->drops[d])
			continue;
		snprintf(dn, sizeof(dn), "drop_%s", voff_switch_drop_name(d));
		put_u64(o, dn, s->drops[d]);
	}
	port_drops(o, port);
	vhost_stats(o, port);
	vxlan_counters(o, port);
	obj_end(o);
}

static int cmd_stats(struct ctx *c, char **w, int n)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], cnt;
	int only = -1;

	if (n == 1) {
		only = find_port(c, w[0]);
		if (only < 0)
			return only;
	}
	cnt = voff_switch_ports(c->sw, ids, VOFF_SWITCH_MAX_PORTS);
	c->o.st = &stats_style;
	list_begin(&c->o);
	for (unsigned int i = 0; i < cnt && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_port_info pi;
		struct voff_switch_stats s;

		if (only >= 0 && ids[i] != (unsigned int)only)
			continue;
		voff_switch_port_info(c->sw, ids[i], &pi);
		voff_switch_stats(c->sw, ids[i], &s);
		stats_one(&c->o, pi.name, voff_switch_port(c->sw, ids[i]), &s);
	}
	list_end(&c->o);
	return 0;
}

static const struct col fdb_cols[] = {
	{ "MAC", 17 }, { "PORT", 16 }, { "VLAN", 4 }, { "AGE", 6 },
	{ "REMOTE", 0 }, { NULL, 0 },
};
static const struct style fdb_style = { .cols = fdb_cols };

/*
 * As `ovs-appctl fdb/show`: ages in whole seconds ("static" for a static
 * entry in text; JSON has "static"), the VLAN or "-", and for a vxlan
 * port the remote VTEP the MAC is behind.
 */
static int cmd_fdb(struct ctx *c, char **w, int n)
{
	struct voff_switch_fdb_entry e[256];
	unsigned int cnt;

	(void)w;
	(void)n;
	cnt = voff_switch_fdb(c->sw, e, 256);
	c->o.st = &fdb_style;
	list_begin(&c->o);
	for (unsigned int i = 0; i < cnt && i < 256; i++) {
		struct voff_switch_port_info pi;
		char mac[18], remote[64];

		if (voff_switch_port_info(c->sw, e[i].port, &pi))
			continue;
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 e[i].mac[0], e[i].mac[1], e[i].mac[2], e[i].mac[3],
			 e[i].mac[4], e[i].mac[5]);
		voff_udp_addr_format(&e[i].remote, remote, sizeof(remote));
		obj_begin(&c->o);
		put_str(&c->o, "mac", mac);
		put_str(&c->o, "port", pi.name);
		put_opt_int(&c->o, "vlan", e[i].vlan);
		if (e[i].is_static && !c->o.json)
			put_str(&c->o, "age", "static");
		else
			put_u64(&c->o, "age", e[i].age_ns / 1000000000u);
		if (c->o.json)
			put_bool(&c->o, "static", e[i].is_static, "", "");
		put_str(&c->o, "remote",
			e[i].remote.sa.sa_family == AF_UNSPEC ? NULL : remote);
		obj_end(&c->o);
	}
	list_end(&c->o);
	return 0;
}

/* "02:00:00:00:00:0a" into @mac; Return: 0 or -EINVAL. */
static int mac_parse(const char *text, uint8_t *mac)
{
	for (int i = 0; i < 6; i++) {
		unsigned int v = 0;

		for (int k = 0; k < 2; k++) {
			char ch = *text++;

			if (ch >= '0' && ch <= '9')
				v = v * 16 + (unsigned int)(ch - '0');
			else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
				v = v * 16 + (unsigned int)((ch | 0x20) - 'a' +
							    10);
			else
				return -EINVAL;
		}
		mac[i] = (uint8_t)v;
		if (*text++ != (i < 5 ? ':' : '\0'))
			return -EINVAL;
	}
	return 0;
}

/* The MAC and REMOTE words of `fdb add MAC PORT [REMOTE]`. */
static int fdb_words(struct ctx *c, char **w, int n, uint8_t *mac,
		     union voff_udp_addr *a)
{
	if (mac_parse(w[0], mac) || (mac[0] & 1))
		return fail(&c->o, -EINVAL, "'%s' is not a unicast MAC "
			    "address", w[0]);
	if (n == 3 && voff_vxlan_addr_parse(a, w[2]))
		return fail(&c->o, -EINVAL, "'%s' is not ADDR[:PORT]", w[2]);
	return 0;
}

static int cmd_fdb_add(struct ctx *c, char **w, int n)
{
	union voff_udp_addr a;
	uint8_t mac[6];
	int id, err;

	err = fdb_words(c, w, n, mac, &a);
	if (err)
		return err;
	id = find_port(c, w[1]);
	if (id < 0)
		return id;
	err = voff_switch_fdb_add(c->sw, mac, (unsigned int)id,
				  n == 3 ? &a : NULL);
	if (err == -EINVAL && n == 3)
		return fail(&c->o, err, "%s: not a vxlan port of that address "
			    "family", w[1]);
	if (err)
		return fail(&c->o, err, "fdb add: %s", voff_strerror(err));
	return done(&c->o);
}

static int cmd_fdb_del(struct ctx *c, char **w, int n)
{
	uint8_t mac[6];

	(void)n;
	if (mac_parse(w[0], mac))
		return fail(&c->o, -EINVAL, "'%s' is not a MAC address", w[0]);
	if (voff_switch_fdb_del(c->sw, mac))
		return fail(&c->o, -ENOENT, "no entry for %s", w[0]);
	return done(&c->o);
}

static const struct col remotes_cols[] = { { "REMOTE", 0 }, { NULL, 0 } };
static const struct style remotes_style = { .cols = remotes_cols };

/* The vxlan port of PORT word @word; Return: its id or the error. */
static int vxlan_port(struct ctx *c, const char *word)
{
	struct voff_switch_port_info pi;
	int id = find_port(c, word);

	if (id < 0)
		return id;
	voff_switch_port_info(c->sw, (unsigned int)id, &pi);
	if (pi.info.kind != VOFF_PORT_VXLAN)
		return fail(&c->o, -EINVAL, "%s: not a vxlan port", word);
	return id;
}

static int cmd_remotes(struct ctx *c, char **w, int n)
{
	union voff_udp_addr a[VOFF_VXLAN_REMOTES_MAX];
	struct voff_port *port;
	unsigned int cnt;
	int id = vxlan_port(c, w[0]);

	(void)n;
	if (id < 0)
		return id;
	port = voff_switch_port(c->sw, (unsigned int)id);
	cnt = voff_port_vxlan_remotes(port, a, VOFF_VXLAN_REMOTES_MAX);
	c->o.st = &remotes_style;
	list_begin(&c->o);
	for (unsigned int i = 0; i < cnt && i < VOFF_VXLAN_REMOTES_MAX; i++) {
		char buf[64];

		obj_begin(&c->o);
		put_str(&c->o, "remote",
			voff_udp_addr_format(&a[i], buf, sizeof(buf)));
		obj_end(&c->o);
	}
	list_end(&c->o);
	return 0;
}

/* remotes add|del PORT ADDR[:PORT] */
static int remote_change(struct ctx *c, char **w, bool add)
{
	union voff_udp_addr a;
	struct voff_port *port;
	int id = vxlan_port(c, w[0]), err;

	if (id < 0)
		return id;
	if (voff_vxlan_addr_parse(&a, w[1]))
		return fail(&c->o, -EINVAL, "'%s' is not ADDR[:PORT]", w[1]);
	port = voff_switch_port(c->sw, (unsigned int)id);
	err = add ? voff_port_vxlan_remote_add(port, &a) :
		    voff_port_vxlan_remote_del(port, &a);
	/* A remote behind another route MTU changes the port's limits. */
	voff__switch_port_changed(c->sw, (unsigned int)id);
	if (err == -EINVAL)
		return fail(&c->o, err, "%s: another address family", w[1]);
	if (err)
		return fail(&c->o, err, "%s: %s", w[1],
			    err == -EEXIST	? "already a remote" :
			    err == -ENOENT	? "not a remote" :
						  voff_strerror(err));
	return done(&c->o);
}

static int cmd_remotes_add(struct ctx *c, char **w, int n)
{
	(void)n;
	return remote_change(c, w, true);
}

static int cmd_remotes_del(struct ctx *c, char **w, int n)
{
	(void)n;
	return remote_change(c, w, false);
}

static const struct style server_style = { .width = 14 };

static int cmd_server(struct ctx *c, char **w, int n)
{
	const struct voff_switch_ctl_state *st = c->st;
	struct out *o = &c->o;

	(void)w;
	(void)n;
	o->st = &server_style;
	obj_begin(o);
	put_u64(o, "requests", st->requests);
	put_u64(o, "failed", st->failed);
	put_u64(o, "refused", st->refused);
	for (unsigned int i = 0; st->extra && i < st->n_extra; i++)
		put_u64(o, st->extra[i].name, st->extra[i].value);
	put_bool(o, "deny_add", st->deny & VOFF_SWITCH_CTL_DENY_ADD, "true",
		 "false");
	put_bool(o, "deny_files", st->deny & VOFF_SWITCH_CTL_DENY_FILES,
		 "true", "false");
	obj_end(o);
	return 0;
}

/* The running state as a configuration (switch_conf.c writes it). */
static int cmd_save(struct ctx *c, char **w, int n)
{
	(void)w;
	(void)n;
	if (c->o.json)
		return fail(&c->o, -EINVAL, "save: a configuration is text "
			    "(no -j)");
	return voff_switch_conf_write(c->sw, c->o.f);
}

/* ---- the same commands as lines of a configuration file ------------------ */

static int conf_fail(struct ctx *c, int err, const char *msg)
{
	return err ? fail(&c->o, err, "%s", msg) : 0;
}

static int conf_ports_add(struct ctx *c, char **w, int n)
{
	char msg[640];

	(void)n;
	return conf_fail(c, voff__conf_port(c->conf, w[0], msg, sizeof(msg)),
			 msg);
}

static int conf_features(struct ctx *c, char **w, int n)
{
	char msg[640];

	if (n < 3 || (n - 1) % 2)
		return fail(&c->o, -EINVAL, "features: NAME on|off pairs "
			    "expected");
	return conf_fail(c, voff__conf_features(c->conf, w[0], w + 1, n - 1,
						msg, sizeof(msg)), msg);
}

static int conf_limits(struct ctx *c, char **w, int n)
{
	char msg[640];

	if (n < 3 || (n - 1) % 2)
		return fail(&c->o, -EINVAL, "limits: NAME VALUE pairs "
			    "expected");
	return conf_fail(c, voff__conf_limits(c->conf, w[0], w + 1, n - 1,
					      msg, sizeof(msg)), msg);
}

static int conf_fdb_add(struct ctx *c, char **w, int n)
{
	union voff_udp_addr a;
	uint8_t mac[6];
	char msg[640];
	int err = fdb_words(c, w, n, mac, &a);

	if (err)
		return err;
	return conf_fail(c, voff__conf_fdb(c->conf, mac, w[1],
					   n == 3 ? &a : NULL, msg,
					   sizeof(msg)), msg);
}

static int cmd_help(struct ctx *c, char **w, int n);

/**
 * struct command - one command of the control language
 * @name:	its word, or two words for a subcommand ("ports add")
 * @args:	its arguments, as help and usage errors show them
 * @min:	fewest arguments
 * @max:	most arguments
 * @fn:		runs it with the words after the name; the counts are
 *		within @min .. @max
 * @help:	one line for `help`
 * @server:	exists only under a server (voff_switch_ctl_serve())
 * @conf:	reads it as a line of a configuration file (the same words
 *		declare a port, its features and its settings: switch_conf.c);
 *		NULL for a command a configuration does not take
 */
struct command {
	const char *name;
	const char *args;
	int min, max;
	int (*fn)(struct ctx *c, char **w, int n);
	const char *help;
	bool server;
	int (*conf)(struct ctx *c, char **w, int n);
};

static const struct command commands[] = {
	{ "ports", "", 0, 0, cmd_ports, "list the ports", false, NULL },
	{ "ports add", "SPEC", 1, 1, cmd_ports_add,
	  "open and add a port (SPEC below)", false, conf_ports_add },
	{ "ports del", "PORT", 1, 1, cmd_ports_del,
	  "remove a port", false, NULL },
	{ "features", "PORT [NAME on|off ...]", 1, MAX_WORDS, cmd_features,
	  "show or set features (ethtool -k/-K)", false, conf_features },
	{ "limits", "PORT [NAME VALUE ...]", 1, MAX_WORDS, cmd_limits,
	  "show or set the port's settings (below)", false, conf_limits },
	{ "stats", "[PORT]", 0, 1, cmd_stats, "counters", false, NULL },
	{ "fdb", "", 0, 0, cmd_fdb, "learned MAC addresses", false, NULL },
	{ "fdb add", "MAC PORT [REMOTE]", 2, 3, cmd_fdb_add,
	  "a static entry (REMOTE: the VTEP, vxlan ports)", false,
	  conf_fdb_add },
	{ "fdb del", "MAC", 1, 1, cmd_fdb_del, "forget a MAC address", false,
	  NULL },
	{ "remotes", "PORT", 1, 1, cmd_remotes,
	  "a vxlan port's remote VTEPs", false, NULL },
	{ "remotes add", "PORT ADDR[:PORT]", 2, 2, cmd_remotes_add,
	  "add a remote VTEP (flood list)", false, NULL },
	{ "remotes del", "PORT ADDR[:PORT]", 2, 2, cmd_remotes_del,
	  "remove a remote VTEP", false, NULL },
	{ "save", "", 0, 0, cmd_save,
	  "the running state as a configuration file", false, NULL },
	{ "server", "", 0, 0, cmd_server,
	  "control server counters and policy", true, NULL },
	{ "help", "", 0, 0, cmd_help, "this text", false, NULL },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* SPEC as a server of policy @deny takes it: kinds it refuses left out. */
static void help_spec(FILE *f, unsigned int deny)
{
	const struct voff_port_spec_kind *k;
	char buf[128];

	if (deny & VOFF_SWITCH_CTL_DENY_ADD) {
		fputs("\nSPEC: none; this switch dropped the privileges to "
		      "open ports\n", f);
		return;
	}
	fputs("\nSPEC: one of\n", f);
	for (unsigned int i = 0; (k = voff_port_spec_kind_at(i)); i++) {
		if (k->files && (deny & VOFF_SWITCH_CTL_DENY_FILES))
			continue;
		voff_port_spec_kind_usage(k, buf, sizeof(buf));
		fprintf(f, "  %s\n", buf);
	}
	fputs("followed by ,NAME=VALUE for settings\n", f);
}

static int cmd_help(struct ctx *c, char **w, int n)
{
	(void)w;
	(void)n;
	voff_switch_ctl_help(c->o.f, c->st);
	return 0;
}

static void help_line(FILE *f, const char *name, const char *args,
		      const char *help)
{
	char use[64];

	snprintf(use, sizeof(use), "%s%s%s", name, *args ? " " : "", args);
	fprintf(f, "%-32s %s\n", use, help);
}

void voff_switch_ctl_help(FILE *f, const struct voff_switch_ctl_state *st)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command *cmd = &commands[i];

		if (cmd->server && !st)
			continue;
		help_line(f, cmd->name, cmd->args, cmd->help);
	}
	for (unsigned int i = 0; st && st->cmds && i < st->n_cmds; i++)
		help_line(f, st->cmds[i].name, st->cmds[i].args,
			  st->cmds[i].help);
	fputs("\nPORT: a port's name, or the id `ports` shows (a name wins)\n",
	      f);
	help_spec(f, st ? st->deny : 0);
	fputs("\nsettings (limits PORT NAME VALUE, or ,NAME=VALUE in a "
	      "SPEC):\n", f);
	voff_switch_settings_print(f);
}

/*
 * The command of words @w: a two-word one ("ports add") before a one-word
 * one ("ports"); *@subs tells whether @w[0] has subcommands.
 */
static const struct command *lookup(const struct ctx *c, char **w, int n,
				     int *words, bool *subs)
{
	const struct command *one = NULL;
	size_t l0 = strlen(w[0]);

	*subs = false;
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command *cmd = &commands[i];
		const char *sp = strchr(cmd->name, ' ');
		size_t len = sp ? (size_t)(sp - cmd->name) : strlen(cmd->name);

		if ((cmd->server && !c->st) || len != l0 ||
		    strncmp(cmd->name, w[0], len))
			continue;
		if (!sp) {
			one = cmd;
			continue;
		}
		*subs = true;
		if (n > 1 && !strcmp(sp + 1, w[1])) {
			*words = 2;
			return cmd;
		}
	}
	*words = 1;
	return one;
}

/* A command of the server's owner (struct voff_switch_ctl_cmd). */
static int dispatch_owner(struct ctx *c, const struct voff_switch_ctl_cmd *cmd,
			  char **w, int n)
{
	char msg[512] = "";
	int err;

	if (n < cmd->min || n > cmd->max)
		return fail(&c->o, -EINVAL, "usage: %s%s%s", cmd->name,
			    *cmd->args ? " " : "", cmd->args);
	err = cmd->fn(c->st->ctx, w + 1, n, c->o.f, c->o.json, msg,
		      sizeof(msg));
	if (err)
		return fail(&c->o, err, "%s", *msg ? msg : voff_strerror(err));
	return 0;
}

static const struct voff_switch_ctl_cmd *owner_cmd(const struct ctx *c,
						   const char *word)
{
	for (unsigned int i = 0; c->st && c->st->cmds && i < c->st->n_cmds;
	     i++)
		if (!strcmp(c->st->cmds[i].name, word))
			return &c->st->cmds[i];
	return NULL;
}

/* "ports add, features, limits": what a configuration file takes. */
static int not_conf(struct ctx *c, const char *name)
{
	char list[128] = "";
	size_t off = 0;

	for (size_t i = 0; i < NCOMMANDS && off < sizeof(list); i++)
		if (commands[i].conf)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", off ? ", " : "",
						commands[i].name);
	return fail(&c->o, -EINVAL, "'%s' is not a configuration request (a "
		    "file takes: %s)", name, list);
}

/* Find and run the command of words @w, its argument count checked. */
static int dispatch(struct ctx *c, char **w, int n)
{
	const struct voff_switch_ctl_cmd *own = NULL;
	const struct command *cmd;
	bool subs;
	int words;

	cmd = lookup(c, w, n, &words, &subs);
	if (!cmd && !c->conf)
		own = owner_cmd(c, w[0]);
	if (own)
		return dispatch_owner(c, own, w, n - 1);
	if (!cmd)
		return fail(&c->o, -EINVAL, "unknown command '%s' (try help)",
			    w[0]);
	if (c->conf && !cmd->conf)
		return not_conf(c, cmd->name);
	n -= words;
	if (n > cmd->max && subs && words == 1)
		return fail(&c->o, -EINVAL, "unknown %s subcommand '%s'",
			    cmd->name, w[1]);
	if (n < cmd->min || n > cmd->max)
		return fail(&c->o, -EINVAL, "usage: %s%s%s", cmd->name,
			    *cmd->args ? " " : "", cmd->args);
	return (c->conf ? cmd->conf : cmd->fn)(c, w + words, n);
}

/* Split @buf in place into at most MAX_WORDS words. */
static int split(char *buf, char **w)
{
	int n = 0;
	char *p = buf;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == MAX_WORDS)
			return -E2BIG;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/*
 * Check and split request @req into @w (words in @buf); a configuration
 * line ends at a word that starts with '#'.  Return: the number of words
 * or a failure.
 */
static int tokens(struct ctx *c, const char *req, size_t len, char *buf,
		 char **w)
{
	const char *what = c->conf ? "line" : "request";
	int n;

	while (len && (req[len - 1] == '\n' || req[len - 1] == '\r'))
		len--;
	if (len > VOFF_SWITCH_CTL_MAX)
		return c->conf ? fail(&c->o, -E2BIG, "line too long (max %d "
				      "bytes)", VOFF_SWITCH_CTL_MAX)
			       : fail(&c->o, -E2BIG, "request too long");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)req[i] < 0x20 && req[i] != '\t')
			return fail(&c->o, -EINVAL, "%s is not one printable "
				    "line", what);
	if (len)
		memcpy(buf, req, len);
	buf[len] = '\0';
	n = split(buf, w);
	if (n < 0)
		return fail(&c->o, n, "too many words");
	for (int i = 0; c->conf && i < n; i++)
		if (w[i][0] == '#')
			n = i;
	return n;
}

static int run(struct voff_switch *sw, struct voff_switch_ctl_state *st,
	       const char *req, size_t len, FILE *out)
{
	char buf[VOFF_SWITCH_CTL_MAX + 1];
	struct ctx c = { .sw = sw, .st = st, .o = { .f = out } };
	char *w[MAX_WORDS];
	int n;

	if (!sw || !out || (!req && len))
		return -EINVAL;
	n = tokens(&c, req, len, buf, w);
	if (n < 0)
		return n;
	if (n && !strcmp(w[0], "-j")) {
		c.o.json = true;
		n--;
		memmove(w, w + 1, (size_t)n * sizeof(w[0]));
	}
	if (!n)
		return fail(&c.o, -EINVAL, "empty request (try help)");
	return dispatch(&c, w, n);
}

int voff__ctl_conf_line(struct voff_switch_conf *conf, const char *line,
			size_t len, char *err, size_t errlen)
{
	char buf[VOFF_SWITCH_CTL_MAX + 1];
	struct ctx c = { .conf = conf,
			 .o = { .err = err, .errlen = errlen } };
	char *w[MAX_WORDS];
	int n;

	if (!conf || (!line && len) || !err || !errlen)
		return -EINVAL;
	n = tokens(&c, line, len, buf, w);
	if (n <= 0)
		return n;
	if (!strcmp(w[0], "-j"))
		return fail(&c.o, -EINVAL, "-j: a configuration line is a "
			    "request without client options");
	return dispatch(&c, w, n);
}

int voff_switch_ctl(struct voff_switch *sw, const char *req, size_t len,
		    FILE *out)
{
	return run(sw, NULL, req, len, out);
}

int voff_switch_ctl_serve(struct voff_switch *sw,
			  struct voff_switch_ctl_state *st, const char *req,
			  size_t len, FILE *out)
{
	int err;

	if (!st)
		return -EINVAL;
	st->requests++;
	err = run(sw, st, req, len, out);
	if (err)
		st->failed++;
	return err;
}
