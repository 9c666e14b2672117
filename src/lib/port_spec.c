/* SPDX-License-Identifier: MIT */
/*
 * port_spec.c - port specs, the text that names a switch port:
 * KIND:NAME[@NETNS][,OPTION=VALUE...] ("tap:tap0@blue,gro=on"), as
 * `voff switch --port` and `voff ctl ports add` take it; @NETNS may also
 * close the spec ("vxlan:42,local=10.0.0.1,remote=10.0.0.2@blue")
 *
 * A table of kinds says what each KIND opens, what its NAME is, whether it
 * takes a namespace and which options it has besides the settings of
 * switch_settings.c (which every kind takes, unless a setting says
 * otherwise).  A new kind of port is one entry here.  Parsing is pure text
 * work, and every refusal says which part of the spec is wrong in the
 * spec's err field, since the return value can only say -EINVAL.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <voff/switch.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "switch_int.h"

/* An interface name as the kernel takes it: IFNAMSIZ - 1 bytes. */
#define IFNAME_MAX 15
/* A namespace is one name under /var/run/netns, at most 63 bytes. */
#define NETNS_MAX 63

/**
 * struct kind_opt - an option of one kind that is not a setting
 * @name:	the OPTION word
 * @arg:	its VALUE as usage texts write it
 * @set:	takes the value (a piece of the spec's buffer) into @s
 * @put:	prints ",@name=VALUE" for each value @s has (none when not
 *		given), for printing back
 */
struct kind_opt {
	const char *name;
	const char *arg;
	int (*set)(struct voff_port_spec *s, char *val);
	void (*put)(const struct voff_port_spec *s, const char *name,
		    FILE *f);
};

/**
 * struct kind - one entry of the table of kinds
 * @pub:	what voff_port_spec_kind_at() hands out (first member)
 * @what:	what NAME is, for messages ("interface", "file")
 * @flags:	VOFF_PORT_F_* the port is opened with
 * @opts:	its options besides the settings, ended by a NULL name
 * @name:	NULL, or reads NAME into @s (after the generic checks)
 * @check:	NULL, or checks the whole spec once its options are read
 * @label:	NULL, or the port's name is @label followed by NAME (kept
 *		in the spec's label; printed back without @label)
 */
struct kind {
	struct voff_port_spec_kind pub;
	const char *what;
	unsigned int flags;
	const struct kind_opt *opts;
	int (*name)(struct voff_port_spec *s, const char *name);
	int (*check)(struct voff_port_spec *s);
	const char *label;
};

static int bad(struct voff_port_spec *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Say what is wrong in @s->err; Return: -EINVAL. */
static int bad(struct voff_port_spec *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int opt_sink(struct voff_port_spec *s, char *val)
{
	if (!*val)
		return bad(s, "sink: no file name");
	s->cfg.sink = val;
	return 0;
}

static void put_sink(const struct voff_port_spec *s, const char *name,
		     FILE *f)
{
	if (s->cfg.sink)
		fprintf(f, ",%s=%s", name, s->cfg.sink);
}

/* ---- vxlan:VNI,local=ADDR[:PORT],remote=ADDR[:PORT]... ---------------- */

static int vx_name(struct voff_port_spec *s, const char *name)
{
	unsigned long v = 0;

	for (const char *c = name; *c; c++) {
		if (*c < '0' || *c > '9' || v > VOFF_VXLAN_VNI_MAX)
			return bad(s, "VNI '%.16s': expected 0 to %u", name,
				   VOFF_VXLAN_VNI_MAX);
		v = v * 10 + (unsigned long)(*c - '0');
	}
	if (v > VOFF_VXLAN_VNI_MAX)
		return bad(s, "VNI '%.16s': expected 0 to %u", name,
			   VOFF_VXLAN_VNI_MAX);
	s->vxlan.vni = (uint32_t)v;
	s->cfg.vxlan = &s->vxlan;
	/* The port, in the switch and in configurations, is vxlanVNI. */
	snprintf(s->label, sizeof(s->label), "vxlan%u", s->vxlan.vni);
	s->cfg.name = s->label;
	return 0;
}

static int opt_local(struct voff_port_spec *s, char *val)
{
	if (voff_vxlan_addr_parse(&s->vxlan.local, val))
		return bad(s, "local: expected ADDR[:PORT], not '%.48s'", val);
	return 0;
}

static int opt_remote(struct voff_port_spec *s, char *val)
{
	union voff_udp_addr a;

	if (voff_vxlan_addr_parse(&a, val))
		return bad(s, "remote: expected ADDR[:PORT], not '%.48s'",
			   val);
	if (s->vxlan.n_remote == VOFF_VXLAN_REMOTES_MAX)
		return bad(s, "remote: at most %d", VOFF_VXLAN_REMOTES_MAX);
	s->vxlan.remote[s->vxlan.n_remote++] = a;
	return 0;
}

static int opt_udp_csum(struct voff_port_spec *s, char *val)
{
	if (!strcmp(val, "on") || !strcmp(val, "off")) {
		s->vxlan.udp_csum_zero = !strcmp(val, "off");
		return 0;
	}
	return bad(s, "udp_csum: expected on or off");
}

static int opt_udp_offload(struct voff_port_spec *s, char *val)
{
	if (!strcmp(val, "on") || !strcmp(val, "off")) {
		s->vxlan.udp_offload_off = !strcmp(val, "off");
		return 0;
	}
	return bad(s, "udp_offload: expected on or off");
}

/* A decimal number of at most 5 digits at *@p, which it passes. */
static bool read_num(const char **p, unsigned long *v)
{
	const char *c = *p;

	*v = 0;
	for (; *c >= '0' && *c <= '9' && c - *p < 5; c++)
		*v = *v * 10 + (unsigned long)(*c - '0');
	if (c == *p || (*c >= '0' && *c <= '9'))
		return false;
	*p = c;
	return true;
}

/* srcports=N (ephemeral ports) or srcports=MIN-MAX (those ports). */
static int opt_srcports(struct voff_port_spec *s, char *val)
{
	const char *p = val;
	unsigned long lo, hi;

	if (!read_num(&p, &lo))
		goto bad_value;
	if (!*p) {
		if (lo < 1 || lo > VOFF_VXLAN_SRCPORTS_MAX)
			goto bad_value;
		s->vxlan.srcports = (unsigned int)lo;
		s->vxlan.srcport_min = 0;
		return 0;
	}
	if (*p++ != '-' || !read_num(&p, &hi) || *p || lo < 1 || hi > 65535 ||
	    hi < lo)
		goto bad_value;
	if (hi - lo >= VOFF_VXLAN_SRCPORTS_MAX)
		return bad(s, "srcports: %lu-%lu is %lu ports, at most %d", lo,
			   hi, hi - lo + 1, VOFF_VXLAN_SRCPORTS_MAX);
	s->vxlan.srcports = (unsigned int)(hi - lo + 1);
	s->vxlan.srcport_min = (uint16_t)lo;
	return 0;
bad_value:
	return bad(s, "srcports: expected N (1 to %d) or MIN-MAX (ports), "
		   "not '%.24s'", VOFF_VXLAN_SRCPORTS_MAX, val);
}

static void put_addr(const union voff_udp_addr *a, const char *name, FILE *f)
{
	if (a->sa.sa_family != AF_UNSPEC) {
		char buf[64];

		fprintf(f, ",%s=%s", name,
			voff_udp_addr_format(a, buf, sizeof(buf)));
	}
}

static void put_local(const struct voff_port_spec *s, const char *name,
		      FILE *f)
{
	put_addr(&s->vxlan.local, name, f);
}

static void put_remote(const struct voff_port_spec *s, const char *name,
		       FILE *f)
{
	for (unsigned int i = 0; i < s->vxlan.n_remote; i++)
		put_addr(&s->vxlan.remote[i], name, f);
}

static void put_udp_csum(const struct voff_port_spec *s, const char *name,
			 FILE *f)
{
	if (s->vxlan.udp_csum_zero)
		fprintf(f, ",%s=off", name);
}

static void put_udp_offload(const struct voff_port_spec *s, const char *name,
			    FILE *f)
{
	if (s->vxlan.udp_offload_off)
		fprintf(f, ",%s=off", name);
}

static void put_srcports(const struct voff_port_spec *s, const char *name,
			 FILE *f)
{
	if (s->vxlan.srcport_min)
		fprintf(f, ",%s=%u-%u", name, s->vxlan.srcport_min,
			s->vxlan.srcport_min + s->vxlan.srcports - 1);
	else if (s->vxlan.srcports > 1)
		fprintf(f, ",%s=%u", name, s->vxlan.srcports);
}

/* One underlay family; zero UDP checksums only over IPv4 (RFC 6935). */
static int vx_check(struct voff_port_spec *s)
{
	int fam = s->vxlan.local.sa.sa_family;

	if (fam == AF_UNSPEC && !s->vxlan.n_remote)
		return bad(s, "local= or remote= needed");
	if (fam == AF_UNSPEC)
		fam = s->vxlan.remote[0].sa.sa_family;
	for (unsigned int i = 0; i < s->vxlan.n_remote; i++)
		if (s->vxlan.remote[i].sa.sa_family != fam)
			return bad(s, "remote: local and remotes mix IPv4 and "
				   "IPv6");
	if (s->vxlan.udp_csum_zero && fam != AF_INET)
		return bad(s, "udp_csum: off is for IPv4 underlays only");
	return 0;
}

static const struct kind_opt no_opts[] = { { NULL, NULL, NULL, NULL } };
static const struct kind_opt pcap_opts[] = {
	{ "sink", "FILE", opt_sink, put_sink },
	{ NULL, NULL, NULL, NULL },
};
/* remote= may be given several times: each adds a VTEP. */
static const struct kind_opt vxlan_opts[] = {
	{ "local", "ADDR[:PORT]", opt_local, put_local },
	{ "remote", "ADDR[:PORT]", opt_remote, put_remote },
	{ "udp_csum", "on|off", opt_udp_csum, put_udp_csum },
	{ "udp_offload", "on|off", opt_udp_offload, put_udp_offload },
	{ "srcports", "N|MIN-MAX", opt_srcports, put_srcports },
	{ NULL, NULL, NULL, NULL },
};

static const struct kind kinds[] = {
	{ { "tap", VOFF_PORT_TAP, "NAME", IFNAME_MAX, true, false },
	  "interface", VOFF_PORT_F_UP, no_opts, NULL, NULL, NULL },
	{ { "tun", VOFF_PORT_TUN, "NAME", IFNAME_MAX, true, false },
	  "interface", VOFF_PORT_F_UP, no_opts, NULL, NULL, NULL },
	{ { "packet", VOFF_PORT_PACKET, "IFNAME", IFNAME_MAX, true, false },
	  "interface", 0, no_opts, NULL, NULL, NULL },
	{ { "pcap", VOFF_PORT_PCAP, "FILE", 0, false, true },
	  "file", 0, pcap_opts, NULL, NULL, NULL },
	/*
	 * The socket a VMM connects to: created 0600 and replacing nothing
	 * but a stale socket, yet still a file created where the spec says,
	 * so a server that refuses file-naming specs refuses it too (the
	 * operator names it on the command line).
	 */
	{ { "vhost-user", VOFF_PORT_VHOST, "PATH", 63, false, true },
	  "socket", 0, no_opts, NULL, NULL, NULL },
	/* A VTEP: the socket is made in NETNS; the port is named vxlanVNI. */
	{ { "vxlan", VOFF_PORT_VXLAN, "VNI", 8, true, false },
	  "VNI", 0, vxlan_opts, vx_name, vx_check, "vxlan" },
};

#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

_Static_assert(offsetof(struct kind, pub) == 0,
	       "a public kind is its entry");

const struct voff_port_spec_kind *voff_port_spec_kind_at(unsigned int i)
{
	return i < NKINDS ? &kinds[i].pub : NULL;
}

static const struct kind *kind_entry(const struct voff_port_spec_kind *k)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (k == &kinds[i].pub)
			return &kinds[i];
	return NULL;
}

int voff_port_spec_kind_usage(const struct voff_port_spec_kind *pub,
			      char *buf, size_t len)
{
	const struct kind *k = kind_entry(pub);
	int n;

	if (!k)
		return snprintf(buf, len, "?");
	n = snprintf(buf, len, "%s:%s%s", k->pub.name, k->pub.arg,
		     k->pub.netns ? "[@NETNS]" : "");
	for (const struct kind_opt *o = k->opts; o->name; o++) {
		size_t off = (size_t)n < len ? (size_t)n : len;

		n += snprintf(buf + off, len - off, "[,%s=%s]", o->name,
			      o->arg);
	}
	return n;
}

/* Append ", NAME" (or "NAME" first) to @list of @cap bytes. */
static void list_add(char *list, size_t cap, const char *name)
{
	size_t off = strnlen(list, cap);

	if (off < cap)
		snprintf(list + off, cap - off, "%s%s", off ? ", " : "", name);
}

static int unknown_kind(struct voff_port_spec *s, const char *text, int len)
{
	char list[64] = "";

	for (size_t i = 0; i < NKINDS; i++)
		list_add(list, sizeof(list), kinds[i].pub.name);
	if (len < 0)
		return bad(s, "expected KIND:NAME, not '%.32s' (kinds: %s)",
			   text, list);
	return bad(s, "unknown port kind '%.*s' (kinds: %s)",
		   len > 32 ? 32 : len, text, list);
}

/* The kind of "KIND:..."; Return: the entry, or NULL (s->err says why). */
static const struct kind *find_kind(struct voff_port_spec *s,
				    const char *text, size_t n)
{
	const char *colon = memchr(text, ':', n);
	size_t len;

	if (!colon) {
		unknown_kind(s, text, -1);
		return NULL;
	}
	len = (size_t)(colon - text);
	for (size_t i = 0; i < NKINDS; i++)
		if (strlen(kinds[i].pub.name) == len &&
		    !memcmp(kinds[i].pub.name, text, len))
			return &kinds[i];
	unknown_kind(s, text, (int)len);
	return NULL;
}

/* The NETNS of "@NETNS" (@at after the '@'), checked into @s. */
static int netns_part(struct voff_port_spec *s, char *at)
{
	if (!*at)
		return bad(s, "no namespace after '@'");
	if (strlen(at) > NETNS_MAX)
		return bad(s, "namespace too long (max %d bytes)", NETNS_MAX);
	/* A namespace name is one component of /var/run/netns. */
	if (strchr(at, '/') || !strcmp(at, ".") || !strcmp(at, ".."))
		return bad(s, "namespace '%s' is not a name under "
			   "/var/run/netns", at);
	s->cfg.netns = at;
	return 0;
}

/* NAME[@NETNS] of kind @k, cut in place. */
static int name_part(struct voff_port_spec *s, const struct kind *k, char *p)
{
	char *at = k->pub.netns ? strchr(p, '@') : NULL;

	if (at) {
		int err;

		*at++ = '\0';
		err = netns_part(s, at);
		if (err)
			return err;
	}
	if (!*p)
		return bad(s, "no %s name after '%s:'", k->what, k->pub.name);
	if (k->pub.name_max && strlen(p) > k->pub.name_max)
		return bad(s, "%s name too long (max %u bytes)", k->what,
			   k->pub.name_max);
	s->cfg.name = p;
	return k->name ? k->name(s, p) : 0;
}

static int unknown_option(struct voff_port_spec *s, const struct kind *k,
			  const char *opt)
{
	const struct voff_switch_setting *set;
	char list[160] = "";

	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++)
		if (set->kinds & (1u << k->pub.kind))
			list_add(list, sizeof(list), set->name);
	for (const struct kind_opt *o = k->opts; o->name; o++)
		list_add(list, sizeof(list), o->name);
	return bad(s, "unknown option '%.32s' (options: %s)", opt, list);
}

/* One OPTION=VALUE: a setting or an option of the kind. */
static int option(struct voff_port_spec *s, const struct kind *k, char *opt)
{
	const struct voff_switch_setting *set;
	char *val = strchr(opt, '=');
	unsigned int i;
	uint64_t v;

	if (!*opt)
		return bad(s, "empty option");
	if (!val)
		return bad(s, "option '%.32s' without a value (%.32s=VALUE)",
			   opt, opt);
	*val++ = '\0';
	for (const struct kind_opt *o = k->opts; o->name; o++)
		if (!strcmp(o->name, opt))
			return o->set(s, val);
	for (i = 0; (set = voff_switch_setting_at(i)); i++)
		if (!strcmp(set->name, opt))
			break;
	if (!set)
		return unknown_option(s, k, opt);
	if (!(set->kinds & (1u << k->pub.kind)))
		return bad(s, "%s: not an option of %s ports", set->name,
			   k->pub.name);
	if (voff_switch_setting_parse(set, val, &v, s->err, sizeof(s->err)))
		return -EINVAL;
	s->given |= 1u << i;
	s->value[i] = v;
	voff__switch_setting_open(set, v, &s->cfg);
	return 0;
}

int voff_port_spec_parse(struct voff_port_spec *s, const char *text)
{
	const struct kind *k;
	char *opt, *next, *tail;
	size_t n, klen;
	int err;

	if (!s)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (!text)
		return bad(s, "no spec");
	n = strnlen(text, sizeof(s->buf));
	if (n >= sizeof(s->buf))
		return bad(s, "spec too long (max %d bytes)",
			   VOFF_PORT_SPEC_MAX);
	k = find_kind(s, text, n);
	if (!k)
		return -EINVAL;
	klen = strlen(k->pub.name) + 1;
	memcpy(s->buf, text + klen, n - klen + 1);
	s->cfg.kind = k->pub.kind;
	s->cfg.flags = k->flags;
	opt = strchr(s->buf, ',');
	if (opt)
		*opt++ = '\0';
	/*
	 * "@NETNS" may also close the whole spec, after the options
	 * ("vxlan:42,local=A,remote=B@ns"): no option value has an '@'.
	 */
	tail = k->pub.netns && opt ? strrchr(opt, '@') : NULL;
	if (tail)
		*tail++ = '\0';
	err = name_part(s, k, s->buf);
	if (!err && tail) {
		if (s->cfg.netns)
			err = bad(s, "two namespaces ('@%s' and '@%.32s')",
				  s->cfg.netns, tail);
		else
			err = netns_part(s, tail);
	}
	for (; !err && opt; opt = next) {
		next = strchr(opt, ',');
		if (next)
			*next++ = '\0';
		err = option(s, k, opt);
	}
	if (!err && k->check)
		err = k->check(s);
	if (err)
		return err;
	s->cfg.want = VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 |
		      VOFF_TUN_F_TSO6 | VOFF_TUN_F_TSO_ECN |
		      VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6;
	return 0;
}

/* The entry of kind @k (enum voff_port_kind), NULL for a kind no spec has. */
static const struct kind *kind_of(enum voff_port_kind k)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].pub.kind == k)
			return &kinds[i];
	return NULL;
}

int voff_port_spec_format(const struct voff_port_spec *s, bool all,
			  char *buf, size_t len)
{
	const struct kind *k = s ? kind_of(s->cfg.kind) : NULL;
	const struct voff_switch_setting *set;
	char val[32];
	size_t n;
	FILE *f;

	if (!k || !s->cfg.name || !buf || !len)
		return -EINVAL;
	f = fmemopen(buf, len, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s:%s", k->pub.name,
		s->cfg.name + (k->label ? strlen(k->label) : 0));
	if (s->cfg.netns)
		fprintf(f, "@%s", s->cfg.netns);
	for (const struct kind_opt *o = k->opts; o->name; o++)
		o->put(s, o->name, f);
	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		bool runtime = set->flags & VOFF_SWITCH_SETTING_F_RUNTIME;

		if (!(s->given & (1u << i)) || (runtime && !all) ||
		    (!runtime && !all && s->value[i] == set->def))
			continue;
		voff_switch_setting_format(set, s->value[i], val, sizeof(val));
		fprintf(f, ",%s=%s", set->name, val);
	}
	fflush(f);
	n = (size_t)ftell(f);
	fclose(f);
	return n + 1 >= len ? -ENOSPC : (int)n;
}

/* Apply a spec's run-time settings to port @id, in table order. */
static int spec_apply(struct voff_switch *sw, unsigned int id,
		      const struct voff_port_spec *s)
{
	const struct voff_switch_setting *set;
	int err;

	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		if (!(s->given & (1u << i)) ||
		    !(set->flags & VOFF_SWITCH_SETTING_F_RUNTIME))
			continue;
		err = voff_switch_set(sw, id, set->name, s->value[i]);
		if (err)
			return err;
	}
	return 0;
}

int voff_switch_add_parsed(struct voff_switch *sw,
			   const struct voff_port_spec *s, unsigned int *id)
{
	struct voff_port *port;
	int err;

	if (!sw || !s || !s->cfg.name)
		return -EINVAL;
	/* A name in use fails before a device is made. */
	if (voff_switch_find(sw, s->cfg.name) >= 0)
		return -EEXIST;
	err = voff_port_open(&port, &s->cfg);
	if (err)
		return err;
	return voff__switch_add_opened(sw, s, port, id);
}

int voff__switch_add_opened(struct voff_switch *sw,
			    const struct voff_port_spec *s,
			    struct voff_port *port, unsigned int *id)
{
	char text[VOFF_PORT_SPEC_MAX + 1];
	unsigned int nid;
	int err;

	/* What it is opened with; never longer than the spec it came from. */
	if (voff_port_spec_format(s, false, text, sizeof(text)) < 0)
		text[0] = '\0';
	err = voff__switch_add(sw, port, s->cfg.name, text, &nid);
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
	return voff_switch_add_parsed(sw, &s, id);
}
