/* SPDX-License-Identifier: MIT */
/*
 * switch_ctl.c - the switch's control language: port specs
 * ("tap:NAME@NS,gro=on") and the one-line requests `voff ctl` sends
 * ("features tap0 tso off"), answered as text or JSON
 *
 * Requests are untrusted bytes from a socket: they are copied into a fixed
 * buffer, refused when too long or not printable, and split into a bounded
 * number of words before anything looks at them.  A server runs them
 * under its policy (voff_switch_ctl_serve()): `voff switch` refuses pcap:
 * specs from clients, which would name files for it to open or create,
 * and every `ports add` once it has dropped its capabilities.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/err.h>
#include <voff/switch.h>

#define MAX_WORDS 32

/* ---- port specs ---------------------------------------------------------- */

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "on" -> 1, "off" -> 0, anything else -EINVAL. */
static int on_off(const char *val)
{
	if (!strcmp(val, "on"))
		return 1;
	return strcmp(val, "off") ? -EINVAL : 0;
}

/* "key=value" options after the first comma. */
static int spec_option(struct voff_port_spec *s, char *opt)
{
	char *val = strchr(opt, '=');
	uint64_t v;
	int which;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	if (!strcmp(opt, "gro")) {
		if (on_off(val) < 0)
			return -EINVAL;
		s->gro = on_off(val);
		return 0;
	}
	if (!strcmp(opt, "napi")) {
		if ((s->cfg.kind != VOFF_PORT_TAP &&
		     s->cfg.kind != VOFF_PORT_TUN) || on_off(val) < 0)
			return -EINVAL;
		if (on_off(val))
			s->cfg.flags |= VOFF_PORT_F_NAPI;
		else
			s->cfg.flags &= ~VOFF_PORT_F_NAPI;
		return 0;
	}
	if (!strcmp(opt, "sink")) {
		if (s->cfg.kind != VOFF_PORT_PCAP || !*val)
			return -EINVAL;
		s->cfg.sink = val;
		return 0;
	}
	if (parse_u64(val, &v) || v > UINT32_MAX * 1000ull)
		return -EINVAL;
	if (!strcmp(opt, "gro_flush_timeout")) {
		s->gro_timeout_set = true;
		s->gro_timeout_ns = v;
		return 0;
	}
	which = voff_limit_lookup(opt);
	if (which != VOFF_LIMIT_GSO_MAX_SIZE &&
	    which != VOFF_LIMIT_GSO_MAX_SEGS &&
	    which != VOFF_LIMIT_GRO_MAX_SIZE)
		return -EINVAL;
	if (v > UINT32_MAX)
		return -EINVAL;
	s->limits[which] = (uint32_t)v;
	return 0;
}

/* A namespace name is one component of /var/run/netns, nothing more. */
static bool netns_ok(const char *ns)
{
	return *ns && strlen(ns) < 64 && !strchr(ns, '/') &&
	       strcmp(ns, ".") && strcmp(ns, "..");
}

int voff_port_spec_parse(struct voff_port_spec *s, const char *text)
{
	static const struct {
		const char *prefix;
		enum voff_port_kind kind;
	} kinds[] = {
		{ "tap:", VOFF_PORT_TAP },
		{ "tun:", VOFF_PORT_TUN },
		{ "packet:", VOFF_PORT_PACKET },
		{ "pcap:", VOFF_PORT_PCAP },
	};
	char *p, *opt, *at;
	size_t i, n;

	if (!s || !text)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->gro = -1;
	n = strnlen(text, sizeof(s->buf));
	if (n >= sizeof(s->buf))
		return -EINVAL;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(text, kinds[i].prefix, strlen(kinds[i].prefix)))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return -EINVAL;
	memcpy(s->buf, text + strlen(kinds[i].prefix),
	       n - strlen(kinds[i].prefix) + 1);
	s->cfg.kind = kinds[i].kind;
	p = s->buf;
	opt = strchr(p, ',');
	if (opt)
		*opt++ = '\0';
	at = s->cfg.kind == VOFF_PORT_PCAP ? NULL : strchr(p, '@');
	if (at) {
		*at++ = '\0';
		if (!netns_ok(at))
			return -EINVAL;
		s->cfg.netns = at;
	}
	if (!*p)
		return -EINVAL;
	s->cfg.name = p;
	while (opt) {
		char *next = strchr(opt, ',');
		int err;

		if (next)
			*next++ = '\0';
		err = spec_option(s, opt);
		if (err)
			return err;
		opt = next;
	}
	s->cfg.want = VOFF_PORT_OFF_CSUM | VOFF_PORT_OFF_TSO4 |
		      VOFF_PORT_OFF_TSO6 | VOFF_PORT_OFF_TSO_ECN |
		      VOFF_PORT_OFF_USO4 | VOFF_PORT_OFF_USO6;
	if (s->cfg.kind == VOFF_PORT_TAP || s->cfg.kind == VOFF_PORT_TUN)
		s->cfg.flags |= VOFF_PORT_F_UP;
	return 0;
}

/* Apply a spec's options to port @id; Return: 0 or a negative errno. */
static int spec_apply(struct voff_switch *sw, unsigned int id,
		      const struct voff_port_spec *s)
{
	int err;

	for (int w = 0; w < VOFF_LIMIT__COUNT; w++) {
		if (!s->limits[w])
			continue;
		err = voff_switch_set_limit(sw, id, (enum voff_limit)w,
					    s->limits[w]);
		if (err)
			return err;
	}
	if (s->gro_timeout_set) {
		err = voff_switch_set_gro_timeout(sw, id, s->gro_timeout_ns);
		if (err)
			return err;
	}
	if (s->gro >= 0)
		return voff_switch_set_features(sw, id, VOFF_F_GRO,
						s->gro ? VOFF_F_GRO : 0);
	return 0;
}

/* Open and add the port of a parsed spec; nothing stays on failure. */
static int add_parsed(struct voff_switch *sw, const struct voff_port_spec *s,
		      unsigned int *id)
{
	struct voff_port *port;
	unsigned int nid;
	int err;

	/* A name in use fails before a device is made. */
	if (voff_switch_find(sw, s->cfg.name) >= 0)
		return -EEXIST;
	err = voff_port_open(&port, &s->cfg);
	if (err)
		return err;
	err = voff_switch_add(sw, port, s->cfg.name, &nid);
	if (err) {
		voff_port_close(port);
		return err;
	}
	err = spec_apply(sw, nid, s);
	if (err) {
		voff_switch_del(sw, nid);
		return err;
	}
	if (id)
		*id = nid;
	return 0;
}

int voff_switch_add_spec(struct voff_switch *sw, const char *text,
			 unsigned int *id)
{
	struct voff_port_spec s;
	int err;

	if (!sw || !text)
		return -EINVAL;
	err = voff_port_spec_parse(&s, text);
	if (err)
		return err;
	return add_parsed(sw, &s, id);
}

/* ---- output helpers ------------------------------------------------------ */

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

static int fail(FILE *f, bool json, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(FILE *f, bool json, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (json) {
		fputs("{\"error\":", f);
		jstr(f, msg);
		fputs("}\n", f);
	} else {
		fprintf(f, "error: %s\n", msg);
	}
	return err;
}

static int find_port(struct voff_switch *sw, const char *name, FILE *f,
		     bool json)
{
	int id = voff_switch_find(sw, name);

	if (id < 0)
		return fail(f, json, -ENOENT, "no port '%s'", name);
	return id;
}

/* ---- commands ------------------------------------------------------------ */

static void port_line(FILE *f, bool json,
		      const struct voff_switch_port_info *pi, bool first)
{
	char rx[96], tx[96];

	voff_port_off_format(pi->info.rx_off, rx, sizeof(rx));
	voff_port_off_format(pi->info.tx_off, tx, sizeof(tx));
	if (!json) {
		fprintf(f, "%-3u %-16s %-6s ifindex %-4u rx %s tx %s "
			   "gro %s%s\n",
			pi->id, pi->name, voff_port_kind_name(pi->info.kind),
			pi->info.ifindex, rx, tx, pi->gro ? "on" : "off",
			pi->failed ? " FAILED" : "");
		return;
	}
	fprintf(f, "%s{\"id\":%u,\"name\":", first ? "" : ",", pi->id);
	jstr(f, pi->name);
	fprintf(f, ",\"kind\":\"%s\",\"ifindex\":%u,\"rx_offloads\":\"%s\","
		   "\"tx_offloads\":\"%s\",\"gro\":%s,\"failed\":%s}",
		voff_port_kind_name(pi->info.kind), pi->info.ifindex, rx, tx,
		pi->gro ? "true" : "false", pi->failed ? "true" : "false");
}

/*
 * `ports add` under a server policy.  The spec is parsed before the policy
 * is looked at, so a malformed spec is reported as such either way.
 */
static int ports_add(struct voff_switch *sw, struct voff_switch_ctl_state *st,
		     const char *text, FILE *f, bool json)
{
	struct voff_port_spec s;
	int err;

	err = voff_port_spec_parse(&s, text);
	if (err)
		return fail(f, json, err, "ports add: malformed spec '%s'",
			    text);
	if (st && (st->deny & VOFF_SWITCH_CTL_DENY_ADD)) {
		st->refused++;
		return fail(f, json, -EPERM, "ports add: refused: this switch "
			    "dropped the privileges to open ports");
	}
	if (st && (st->deny & VOFF_SWITCH_CTL_DENY_FILES) &&
	    s.cfg.kind == VOFF_PORT_PCAP) {
		st->refused++;
		return fail(f, json, -EPERM, "ports add: refused: pcap ports "
			    "open files and are only taken from the command "
			    "line");
	}
	err = add_parsed(sw, &s, NULL);
	if (err)
		return fail(f, json, err, "ports add: %s",
			    voff_strerror(err));
	return 0;
}

static int cmd_ports(struct voff_switch *sw, struct voff_switch_ctl_state *st,
		     char **w, int n, FILE *f, bool json)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], cnt;
	int err;

	if (n >= 1 && !strcmp(w[0], "add")) {
		if (n != 2)
			return fail(f, json, -EINVAL,
				    "usage: ports add SPEC");
		err = ports_add(sw, st, w[1], f, json);
		if (err)
			return err;
		goto ok;
	}
	if (n >= 1 && !strcmp(w[0], "del")) {
		int id;

		if (n != 2)
			return fail(f, json, -EINVAL,
				    "usage: ports del PORT");
		id = find_port(sw, w[1], f, json);
		if (id < 0)
			return id;
		voff_switch_del(sw, (unsigned int)id);
		goto ok;
	}
	if (n != 0)
		return fail(f, json, -EINVAL, "unknown ports subcommand '%s'",
			    w[0]);
	cnt = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	if (json)
		fputc('[', f);
	for (unsigned int i = 0; i < cnt; i++) {
		struct voff_switch_port_info pi;

		voff_switch_port_info(sw, ids[i], &pi);
		port_line(f, json, &pi, i == 0);
	}
	if (json)
		fputs("]\n", f);
	return 0;
ok:
	if (json)
		fputs("{\"ok\":true}\n", f);
	return 0;
}

/* One array per request, as `ethtool --json -k` and `voff features -j`. */
static void features_json(FILE *f, const struct voff_switch_port_info *pi)
{
	fputc('[', f);
	voff_feat_print_json(f, pi->name, &pi->feat, NULL);
	fputs("]\n", f);
}

static int set_features(struct voff_switch *sw, int id, char **w, int n,
			FILE *f, bool json)
{
	uint64_t mask, on;
	int bad = 0, err;

	if (n % 2)
		return fail(f, json, -EINVAL,
			    "features: NAME on|off pairs expected");
	err = voff_feat_parse_requests(w, n, &mask, &on, &bad);
	if (bad < 0 || bad >= n)
		bad = 0;
	if (err == -ENOENT)
		return fail(f, json, err, "unknown feature '%s'", w[bad]);
	if (err)
		return fail(f, json, err, "bad request near '%s'", w[bad]);
	err = voff_switch_set_features(sw, (unsigned int)id, mask, on);
	if (err)
		return fail(f, json, err, "features: %s", voff_strerror(err));
	if (json)
		fputs("{\"ok\":true}\n", f);
	return 0;
}

static int cmd_features(struct voff_switch *sw, char **w, int n, FILE *f,
			bool json)
{
	struct voff_switch_port_info pi;
	int id;

	if (n < 1)
		return fail(f, json, -EINVAL,
			    "usage: features PORT [NAME on|off ...]");
	id = find_port(sw, w[0], f, json);
	if (id < 0)
		return id;
	if (n > 1)
		return set_features(sw, id, w + 1, n - 1, f, json);
	voff_switch_port_info(sw, (unsigned int)id, &pi);
	if (json)
		features_json(f, &pi);
	else
		voff_feat_print(f, pi.name, &pi.feat);
	return 0;
}

static int cmd_limits(struct voff_switch *sw, char **w, int n, FILE *f,
		      bool json)
{
	struct voff_switch_port_info pi;
	int id, err;

	if (n < 1)
		return fail(f, json, -EINVAL,
			    "usage: limits PORT [NAME VALUE ...]");
	id = find_port(sw, w[0], f, json);
	if (id < 0)
		return id;
	if ((n - 1) % 2)
		return fail(f, json, -EINVAL, "limits: NAME VALUE pairs "
					      "expected");
	/* Check every pair before changing anything. */
	for (int i = 1; i < n; i += 2) {
		int which = voff_limit_lookup(w[i]);
		uint64_t v;

		if (strcmp(w[i], "gro_flush_timeout") &&
		    which != VOFF_LIMIT_GSO_MAX_SIZE &&
		    which != VOFF_LIMIT_GSO_MAX_SEGS &&
		    which != VOFF_LIMIT_GRO_MAX_SIZE)
			return fail(f, json, -EINVAL, "unknown limit '%s' "
				    "(gso_max_size, gso_max_segs, "
				    "gro_max_size, gro_flush_timeout)", w[i]);
		if (parse_u64(w[i + 1], &v) ||
		    (which >= 0 && v > UINT32_MAX))
			return fail(f, json, -EINVAL, "bad value '%s'",
				    w[i + 1]);
	}
	for (int i = 1; i < n; i += 2) {
		uint64_t v = 0;	/* checked above; gcc -O3 cannot see it */

		parse_u64(w[i + 1], &v);
		if (!strcmp(w[i], "gro_flush_timeout"))
			err = voff_switch_set_gro_timeout(sw, (unsigned int)id,
							  v);
		else
			err = voff_switch_set_limit(
				sw, (unsigned int)id,
				(enum voff_limit)voff_limit_lookup(w[i]),
				(uint32_t)v);
		if (err)
			return fail(f, json, err, "%s: value out of range",
				    w[i]);
	}
	if (n > 1) {
		if (json)
			fputs("{\"ok\":true}\n", f);
		return 0;
	}
	voff_switch_port_info(sw, (unsigned int)id, &pi);
	if (json) {
		fputs("{\"port\":", f);
		jstr(f, pi.name);
		fprintf(f, ",\"gso_max_size\":%u,\"gso_max_segs\":%u,"
			   "\"gro_max_size\":%u,\"gro_flush_timeout\":%" PRIu64
			   ",\"device\":{\"mtu\":%u,\"gso_max_size\":%u,"
			   "\"gso_max_segs\":%u}}\n",
			pi.limits.gso_max_size, pi.limits.gso_max_segs,
			pi.limits.gro_max_size, pi.gro_flush_timeout_ns,
			pi.dev_limits.mtu, pi.dev_limits.gso_max_size,
			pi.dev_limits.gso_max_segs);
		return 0;
	}
	fprintf(f, "Limits for %s:\n"
		   "gso_max_size: %u\ngso_max_segs: %u\ngro_max_size: %u\n"
		   "gro_flush_timeout: %" PRIu64 "\n"
		   "device mtu: %u\ndevice gso_max_size: %u\n"
		   "device gso_max_segs: %u\n",
		pi.name, pi.limits.gso_max_size, pi.limits.gso_max_segs,
		pi.limits.gro_max_size, pi.gro_flush_timeout_ns,
		pi.dev_limits.mtu, pi.dev_limits.gso_max_size,
		pi.dev_limits.gso_max_segs);
	return 0;
}

/* The port's own drops by reason, the non-zero ones: rx_drop_NAME, ... */
static void port_drops(FILE *f, bool json, const struct voff_port *port)
{
	static const char *const dir[] = { "rx", "tx" };
	struct voff_port_drop d[32];

	for (unsigned int k = 0; k < 2; k++) {
		unsigned int n = voff_port_drops(port, k ? VOFF_PORT_TX :
							   VOFF_PORT_RX,
						 d, 32);

		for (unsigned int i = 0; i < n && i < 32; i++) {
			if (json)
				fprintf(f, ",\"%s_drop_%s\":%" PRIu64, dir[k],
					d[i].name, d[i].count);
			else
				fprintf(f, "  %s_drop_%s %" PRIu64 "\n",
					dir[k], d[i].name, d[i].count);
		}
	}
}

static void stats_one(FILE *f, bool json, const char *name,
		      const struct voff_port *port,
		      const struct voff_switch_stats *s, bool first)
{
	const uint64_t v[] = {
		s->port.rx_packets, s->port.rx_bytes, s->port.rx_gso,
		s->port.rx_dropped, s->port.tx_packets, s->port.tx_bytes,
		s->port.tx_gso, s->port.tx_dropped, s->gso_in, s->gso_segs,
		s->reseg_in, s->reseg_out, s->csum_sw, s->gro_merged,
		s->gro_out, s->flooded,
	};
	static const char *const k[] = {
		"rx_packets", "rx_bytes", "rx_super", "rx_dropped",
		"tx_packets", "tx_bytes", "tx_super", "tx_dropped",
		"gso_in", "gso_segs", "reseg_in", "reseg_out", "csum_sw",
		"gro_merged", "gro_out", "flooded",
	};

	if (json) {
		fprintf(f, "%s{\"port\":", first ? "" : ",");
		jstr(f, name);
	} else {
		fprintf(f, "%s:\n", name);
	}
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		if (json)
			fprintf(f, ",\"%s\":%" PRIu64, k[i], v[i]);
		else
			fprintf(f, "  %-12s %" PRIu64 "\n", k[i], v[i]);
	}
	for (int d = 0; d < VOFF_SWITCH_DROP__COUNT; d++) {
		if (json)
			fprintf(f, ",\"drop_%s\":%" PRIu64,
				voff_switch_drop_name(d), s->drops[d]);
		else if (s->drops[d])
			fprintf(f, "  drop_%-7s %" PRIu64 "\n",
				voff_switch_drop_name(d), s->drops[d]);
	}
	port_drops(f, json, port);
	if (json)
		fputc('}', f);
}

static int cmd_stats(struct voff_switch *sw, char **w, int n, FILE *f,
		     bool json)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], cnt;
	bool first = true;
	int only = -1;

	if (n > 1)
		return fail(f, json, -EINVAL, "usage: stats [PORT]");
	if (n == 1) {
		only = find_port(sw, w[0], f, json);
		if (only < 0)
			return only;
	}
	cnt = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	if (json)
		fputc('[', f);
	for (unsigned int i = 0; i < cnt; i++) {
		struct voff_switch_port_info pi;
		struct voff_switch_stats s;

		if (only >= 0 && ids[i] != (unsigned int)only)
			continue;
		voff_switch_port_info(sw, ids[i], &pi);
		voff_switch_stats(sw, ids[i], &s);
		stats_one(f, json, pi.name, voff_switch_port(sw, ids[i]), &s,
			  first);
		first = false;
	}
	if (json)
		fputs("]\n", f);
	return 0;
}

static int cmd_fdb(struct voff_switch *sw, int n, FILE *f, bool json)
{
	struct voff_switch_fdb_entry e[256];
	unsigned int cnt;

	if (n)
		return fail(f, json, -EINVAL, "usage: fdb");
	cnt = voff_switch_fdb(sw, e, 256);
	if (cnt > 256)
		cnt = 256;
	if (json)
		fputc('[', f);
	for (unsigned int i = 0; i < cnt; i++) {
		struct voff_switch_port_info pi;
		char mac[18];

		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
			 e[i].mac[0], e[i].mac[1], e[i].mac[2], e[i].mac[3],
			 e[i].mac[4], e[i].mac[5]);
		if (voff_switch_port_info(sw, e[i].port, &pi))
			continue;
		if (json) {
			fprintf(f, "%s{\"mac\":\"%s\",\"port\":", i ? "," : "",
				mac);
			jstr(f, pi.name);
			fprintf(f, ",\"age_ms\":%" PRIu64 "}",
				e[i].age_ns / 1000000);
		} else {
			fprintf(f, "%s %-16s age %" PRIu64 " ms\n", mac,
				pi.name, e[i].age_ns / 1000000);
		}
	}
	if (json)
		fputs("]\n", f);
	return 0;
}

static const char help_text[] =
	"ports                          list ports\n"
	"ports add SPEC                 add tap:NAME[@NS], tun:..., "
	"packet:IFNAME[@NS], pcap:FILE\n"
	"ports del PORT                 remove a port\n"
	"features PORT [NAME on|off...] show or set features (ethtool -k/-K)\n"
	"limits PORT [NAME VALUE ...]   gso_max_size gso_max_segs "
	"gro_max_size gro_flush_timeout\n"
	"stats [PORT]                   counters\n"
	"fdb                            learned MAC addresses\n"
	"server                         control server counters and "
	"policy\n";

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

static int cmd_server(const struct voff_switch_ctl_state *st, int n, FILE *f,
		      bool json)
{
	if (!st)
		return fail(f, json, -EINVAL, "unknown command 'server' "
			    "(try help)");
	if (n)
		return fail(f, json, -EINVAL, "usage: server");
	fprintf(f, json ? "{\"requests\":%" PRIu64 ",\"failed\":%" PRIu64
			  ",\"refused\":%" PRIu64 ",\"refused_peers\":%"
			  PRIu64 ",\"deny_add\":%s,\"deny_files\":%s}\n"
			: "requests       %" PRIu64 "\nfailed         %" PRIu64
			  "\nrefused        %" PRIu64 "\nrefused_peers  %"
			  PRIu64 "\ndeny_add       %s\ndeny_files     %s\n",
		st->requests, st->failed, st->refused, st->refused_peers,
		(st->deny & VOFF_SWITCH_CTL_DENY_ADD) ? "true" : "false",
		(st->deny & VOFF_SWITCH_CTL_DENY_FILES) ? "true" : "false");
	return 0;
}

static int run(struct voff_switch *sw, struct voff_switch_ctl_state *st,
	       const char *req, size_t len, FILE *out)
{
	char buf[VOFF_SWITCH_CTL_MAX + 1];
	char *w[MAX_WORDS];
	bool json = false;
	int n;

	if (!sw || !out || (!req && len))
		return -EINVAL;
	while (len && (req[len - 1] == '\n' || req[len - 1] == '\r'))
		len--;
	if (len > VOFF_SWITCH_CTL_MAX)
		return fail(out, false, -E2BIG, "request too long");
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)req[i] < 0x20 && req[i] != '\t')
			return fail(out, false, -EINVAL,
				    "request is not one printable line");
	if (len)
		memcpy(buf, req, len);
	buf[len] = '\0';
	n = split(buf, w);
	if (n < 0)
		return fail(out, false, n, "too many words");
	if (n && !strcmp(w[0], "-j")) {
		json = true;
		n--;
		memmove(w, w + 1, (size_t)n * sizeof(w[0]));
	}
	if (!n)
		return fail(out, json, -EINVAL, "empty request (try help)");
	if (!strcmp(w[0], "help")) {
		fputs(help_text, out);
		return 0;
	}
	if (!strcmp(w[0], "ports"))
		return cmd_ports(sw, st, w + 1, n - 1, out, json);
	if (!strcmp(w[0], "features"))
		return cmd_features(sw, w + 1, n - 1, out, json);
	if (!strcmp(w[0], "limits"))
		return cmd_limits(sw, w + 1, n - 1, out, json);
	if (!strcmp(w[0], "stats"))
		return cmd_stats(sw, w + 1, n - 1, out, json);
	if (!strcmp(w[0], "fdb"))
		return cmd_fdb(sw, n - 1, out, json);
	if (!strcmp(w[0], "server"))
		return cmd_server(st, n - 1, out, json);
	return fail(out, json, -EINVAL, "unknown command '%s' (try help)",
		    w[0]);
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
