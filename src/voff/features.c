/* SPDX-License-Identifier: MIT */
/*
 * features.c - `voff features`: what a device or a stack of devices ends
 * up offering, printed as `ethtool -k` (or `ethtool --json -k`) does
 *
 * A thin shell over feat.h: load a starting state (a built-in profile or
 * a captured `ethtool -k` output), optionally stack it (bridge/bond ports,
 * macvlan/VLAN lower device, TAP reader flags), apply `ethtool -K` style
 * requests through the kernel's rules and print the result, with the
 * device's limits when asked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "cmd.h"
#include "num.h"
#include "opts.h"

#define MAX_LOWER 16
#define CMD "voff features"

/* A device given on the command line: its features and limits. */
struct src {
	struct voff_feat_dev feat;
	struct voff_limits lim;
	char name[64];
};

enum stack_kind { ST_NONE, ST_BRIDGE, ST_BOND, ST_MACVLAN, ST_VLAN };

static const struct {
	const char *name;
	enum voff_feat_profile profile;
} profiles[] = {
	{ "veth", VOFF_FEAT_PROFILE_VETH },
	{ "tap", VOFF_FEAT_PROFILE_TAP },
	{ "tap-fresh", VOFF_FEAT_PROFILE_TAP },
	{ "bridge", VOFF_FEAT_PROFILE_BRIDGE },
	{ "bond", VOFF_FEAT_PROFILE_BOND },
	{ "macvlan", VOFF_FEAT_PROFILE_MACVLAN },
	{ "vlan", VOFF_FEAT_PROFILE_VLAN },
	{ "none", VOFF_FEAT_PROFILE_NONE },
};

static const char *const tun_names[] = {
	"csum", "tso4", "tso6", "tso_ecn", "ufo", "uso4", "uso6",
	"udp_tunnel_gso", "udp_tunnel_gso_csum",
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: voff features [options] [NAME on|off]...\n"
"\n"
"Print the offload features a device ends up with, as `ethtool -k` does.\n"
"NAME on|off pairs are requests as `ethtool -K` takes them (feature names\n"
"or ethtool's short names sg, tx, tso, gso, gro, ...), applied through the\n"
"kernel's dependency rules.\n"
"\n"
"  -b, --base SRC        starting device (default veth)\n"
"  -t, --tun FLAGS       TAP whose reader set TUNSETOFFLOAD FLAGS (a number\n"
"                        or a list: csum,tso4,tso6,tso_ecn,ufo,uso4,uso6,\n"
"                        udp_tunnel_gso,udp_tunnel_gso_csum); implies -b tap\n"
"      --bridge SRC      a bridge with port SRC (repeat for more ports)\n"
"      --bond SRC        a bond with lower device SRC (repeatable)\n"
"      --macvlan SRC     a macvlan over lower device SRC\n"
"      --vlan SRC        an 802.1Q device over lower device SRC\n"
"      --intersect SRC   also print what the result and SRC both offer\n"
"      --fix             apply the rules to the starting state first\n"
"  -l, --limit NAME=N    set a limit as `ip link set` does (repeatable;\n"
"                        tso_max_size/segs as a driver does)\n"
"  -L, --limits          print the limits too\n"
"  -n, --name IFNAME     name for the \"Features for\" line\n"
"  -j, --json            JSON, as `ethtool --json -k`\n"
"  -h, --help\n"
"\n"
"SRC is a profile (veth, tap, tap-fresh, bridge, bond, macvlan, vlan,\n"
"none) or a file holding `ethtool -k` output (- for stdin).  tap is a TAP\n"
"after TUNSETOFFLOAD 0, tap-fresh one before any TUNSETOFFLOAD.\n");
}

/*
 * The whole of @path ("-": standard input), NUL-terminated, its length in
 * @len.  Return: the text, or NULL with errno set (a directory fails
 * here, on its first read, with EISDIR).
 */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 4096;
	char *buf = NULL, *nb;
	int err = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		nb = realloc(buf, cap + 1);
		if (!nb) {
			err = ENOMEM;
			break;
		}
		buf = nb;
		*len += fread(buf + *len, 1, cap - *len, f);
		if (ferror(f))
			err = errno ? errno : EIO;
		if (err || *len < cap)
			break;
		cap *= 2;
	}
	if (f != stdin)
		fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	buf[*len] = 0;
	return buf;
}

/* Lines of @text that may name a feature: not blank, not the heading. */
static unsigned int feature_lines(const char *text)
{
	unsigned int n = 0;

	for (const char *p = text; *p;) {
		const char *end = strchrnul(p, '\n');

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p < end && strncmp(p, "Features for ", 13))
			n++;
		p = *end ? end + 1 : end;
	}
	return n;
}

/*
 * The order a "limits:" line is applied in: the driver's caps first, as
 * they bound the others, then the rest as printed (the IPv4 variants
 * after the values that propagate to them).
 */
static const enum voff_limit limit_order[] = {
	VOFF_LIMIT_TSO_MAX_SIZE, VOFF_LIMIT_TSO_MAX_SEGS, VOFF_LIMIT_MTU,
	VOFF_LIMIT_GSO_MAX_SIZE, VOFF_LIMIT_GSO_MAX_SEGS,
	VOFF_LIMIT_GRO_MAX_SIZE, VOFF_LIMIT_GSO_IPV4_MAX_SIZE,
	VOFF_LIMIT_GRO_IPV4_MAX_SIZE,
};

_Static_assert(sizeof(limit_order) / sizeof(limit_order[0]) ==
		       VOFF_LIMIT__COUNT,
	       "every limit has its place in limit_order");

/*
 * The "limits: NAME VALUE ..." line `voff features -L` prints, read back
 * into @lim; Return: 0 or -1 (reported).
 */
static int parse_limits_line(const char *arg, const char *line, size_t len,
			     struct voff_limits *lim)
{
	uint64_t v[VOFF_LIMIT__COUNT];
	bool seen[VOFF_LIMIT__COUNT] = { false };
	char buf[512], *save = NULL, *name;

	snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
	strtok_r(buf, " \t", &save);	/* "limits:" */
	while ((name = strtok_r(NULL, " \t", &save))) {
		const char *val = strtok_r(NULL, " \t", &save);
		int which = voff_limit_lookup(name);

		if (which < 0 || !val ||
		    num_parse(val, 0, UINT32_MAX, &v[which])) {
			fprintf(stderr, CMD ": %s: limits line: bad '%s %s'\n",
				arg, name, val ? val : "");
			return -1;
		}
		seen[which] = true;
	}
	for (size_t i = 0; i < VOFF_LIMIT__COUNT; i++) {
		enum voff_limit w = limit_order[i];

		if (seen[w] && voff_limits_set(lim, w, (uint32_t)v[w])) {
			fprintf(stderr, CMD ": %s: limits line: %s %llu out "
					"of range\n", arg, voff_limit_name(w),
				(unsigned long long)v[w]);
			return -1;
		}
	}
	return 0;
}

/*
 * Take the "limits:" line out of @text (blanked, so the feature parser
 * skips it) into @lim.  Return: 0 or -1 (reported).
 */
static int take_limits(const char *arg, char *text, struct voff_limits *lim)
{
	for (char *p = text; *p;) {
		char *end = strchrnul(p, '\n'), *s = p;

		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (!strncmp(s, "limits:", 7)) {
			int err = parse_limits_line(arg, s, (size_t)(end - s),
						    lim);

			memset(s, ' ', (size_t)(end - s));
			if (err)
				return err;
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* The device of an `ethtool -k` text; Return: 0 or -1 (reported). */
static int parse_src(const char *arg, char *text, size_t len, struct src *s)
{
	unsigned int unknown = 0;

	/* A capture or any binary file is refused, not read as "all off". */
	if (memchr(text, 0, len)) {
		fprintf(stderr, CMD ": %s: not `ethtool -k` output (binary "
				"data)\n", arg);
		return -1;
	}
	if (take_limits(arg, text, &s->lim))
		return -1;
	if (voff_feat_parse_ethtool(text, &s->feat, &unknown)) {
		fprintf(stderr, CMD ": %s: not `ethtool -k` output (a line is "
				"not NAME: on|off)\n", arg);
		return -1;
	}
	if (feature_lines(text) <= unknown) {
		fprintf(stderr, CMD ": %s: not `ethtool -k` output (no known "
				"feature in it)\n", arg);
		return -1;
	}
	if (unknown)
		fprintf(stderr, CMD ": %s: %u unknown feature(s) ignored\n",
			arg, unknown);
	if (sscanf(text, "Features for %63[^:]:", s->name) != 1)
		snprintf(s->name, sizeof(s->name), "voff");
	return 0;
}

/* Load a device from a profile name or an ethtool -k file. */
static int load_src(const char *arg, struct src *s)
{
	size_t len;
	char *text;
	int err;

	memset(s, 0, sizeof(*s));
	voff_limits_init(&s->lim);
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		if (strcmp(arg, profiles[i].name))
			continue;
		voff_feat_dev_init(&s->feat, profiles[i].profile);
		if (profiles[i].profile == VOFF_FEAT_PROFILE_VETH)
			voff_limits_set_tso_max_size(&s->lim,
						     VOFF_GSO_MAX_SIZE);
		/* A TAP nobody has set TUNSETOFFLOAD on: all requested. */
		if (!strcmp(arg, "tap-fresh"))
			s->feat.wanted |= VOFF_F_TUN_USER;
		snprintf(s->name, sizeof(s->name), "%s", arg);
		return 0;
	}
	text = read_all(arg, &len);
	if (!text) {
		fprintf(stderr, CMD ": %s: neither a profile nor a readable "
				"file (%s)\n", arg, strerror(errno));
		return -1;
	}
	err = parse_src(arg, text, len, s);
	free(text);
	return err;
}

/* TUNSETOFFLOAD flags: a number, or names; prints what is wrong. */
static int parse_tun(const char *arg, unsigned int *out)
{
	char *copy, *tok, *save = NULL;
	uint64_t v;
	int err = num_parse(arg, 0, 0xFFFF, &v);

	if (err == -ERANGE)
		fprintf(stderr, CMD ": --tun: %s out of range (0..65535)\n",
			arg);
	if (err != -EINVAL) {
		*out = err ? 0 : (unsigned int)v;
		return err;
	}
	err = 0;
	*out = 0;
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(tun_names) / sizeof(tun_names[0]); i++)
			if (!strcmp(tok, tun_names[i]))
				break;
		if (i == sizeof(tun_names) / sizeof(tun_names[0])) {
			fprintf(stderr, CMD ": --tun: unknown flag '%s'\n",
				tok);
			err = -ENOENT;
		} else {
			*out |= 1u << i;
		}
	}
	if (!err && !*out) {
		fprintf(stderr, CMD ": --tun: no flag in '%s'\n", arg);
		err = -EINVAL;
	}
	free(copy);
	return err;
}

/* Whether limit @which of @l takes @v (tried on a copy). */
static bool takes(const struct voff_limits *l, int which, uint32_t v)
{
	struct voff_limits t = *l;

	return voff_limits_set(&t, which, v) == 0;
}

/*
 * The values voff_limits_set() takes for @which form one interval around
 * the current value (feat.h); find its ends by bisection, so messages
 * quote the library's ranges, with the device's own caps, instead of a
 * copy of them.  Return: false when even the current value is refused.
 */
static bool limit_range(const struct voff_limits *l, int which,
			uint32_t *lo, uint32_t *hi)
{
	uint32_t a = 0, b = voff_limit_get(l, which);

	if (!takes(l, which, b))
		return false;
	while (a < b) {		/* the smallest taken in [a, b]; b is */
		uint32_t m = a + (b - a) / 2;

		if (takes(l, which, m))
			b = m;
		else
			a = m + 1;
	}
	*lo = b;
	a = voff_limit_get(l, which);
	b = UINT32_MAX;
	while (a < b) {		/* the largest taken in [a, b]; a is */
		uint32_t m = a + (b - a) / 2 + 1;

		if (takes(l, which, m))
			a = m;
		else
			b = m - 1;
	}
	*hi = a;
	return true;
}

/* -l NAME=VALUE; Return: 0, or -1 after saying what is wrong. */
static int parse_limit(const char *arg, struct voff_limits *lim)
{
	const char *eq = strchr(arg, '=');
	char name[32], opt[48];
	uint32_t lo, hi;
	uint64_t v;
	int which, err;

	if (!eq) {
		fprintf(stderr, CMD ": -l %s: expected NAME=VALUE\n", arg);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	which = voff_limit_lookup(name);
	if (which < 0 || (size_t)(eq - arg) >= sizeof(name)) {
		fprintf(stderr, CMD ": -l %s: unknown limit '%.*s'\n", arg,
			(int)(eq - arg), arg);
		return -1;
	}
	snprintf(opt, sizeof(opt), "-l %s", name);
	err = num_parse(eq + 1, 0, UINT32_MAX, &v);
	if (err == -EINVAL)
		return num_opt(CMD, opt, eq + 1, 0, UINT32_MAX, &v) ? -1 : 0;
	if (!err)
		err = voff_limits_set(lim, which, (uint32_t)v);
	if (!err)
		return 0;
	if (limit_range(lim, which, &lo, &hi))
		fprintf(stderr, CMD ": %s: %s out of range (%u..%u)\n", opt,
			eq + 1, lo, hi);
	else
		fprintf(stderr, CMD ": %s: %s refused\n", opt, eq + 1);
	return -1;
}

/* Recompute the top device the way its kind does. */
static void update(enum stack_kind kind, struct voff_feat_dev *top,
		   struct src *lowers, size_t n)
{
	uint64_t ports[MAX_LOWER];
	struct voff_feat_dev devs[MAX_LOWER];

	for (size_t i = 0; i < n; i++) {
		ports[i] = lowers[i].feat.active;
		devs[i] = lowers[i].feat;
	}
	switch (kind) {
	case ST_BRIDGE:
		voff_feat_dev_update_bridge(top, ports, n);
		break;
	case ST_BOND:
		voff_feat_dev_update_bond(top, devs, n);
		break;
	case ST_MACVLAN:
		voff_feat_dev_update_macvlan(top, ports[0]);
		break;
	case ST_VLAN:
		voff_feat_dev_update_vlan(top, &devs[0]);
		break;
	default:
		voff_feat_dev_update(top);
	}
}

static void print_limits(const struct voff_limits *l)
{
	printf("limits:");
	for (int i = 0; i < VOFF_LIMIT__COUNT; i++)
		printf(" %s %u", voff_limit_name(i), voff_limit_get(l, i));
	printf("\n");
}

/* Limits of the top device from its lower devices (kernel-model.md §2.2). */
static void stack_limits(enum stack_kind kind, struct voff_limits *top,
			 const struct src *lowers, size_t n)
{
	struct voff_limits l[MAX_LOWER];

	for (size_t i = 0; i < n; i++)
		l[i] = lowers[i].lim;
	if (kind == ST_BRIDGE || kind == ST_BOND)
		voff_limits_aggregate(top, l, n);
	else if (kind == ST_MACVLAN || kind == ST_VLAN)
		voff_limits_inherit(top, &l[0]);
}

struct opts {
	const char *base, *name, *intersect;
	enum stack_kind kind;
	const char *lower_src[MAX_LOWER];
	struct src lower[MAX_LOWER];
	size_t n_lower;
	const char *limits[32];
	size_t n_limits;
	unsigned int tun;
	bool has_tun, fix, json, show_limits;
};

/* Record a lower device (loaded later); Return: 0 or -1 (reported). */
static int add_lower(struct opts *o, enum stack_kind kind, const char *arg)
{
	if (o->kind != ST_NONE && o->kind != kind) {
		fprintf(stderr, CMD ": one kind of stack at a time\n");
		return -1;
	}
	if (o->n_lower == MAX_LOWER ||
	    ((kind == ST_MACVLAN || kind == ST_VLAN) && o->n_lower == 1)) {
		fprintf(stderr, CMD ": too many lower devices\n");
		return -1;
	}
	o->kind = kind;
	o->lower_src[o->n_lower++] = arg;
	return 0;
}

/* One option; Return: 0 or -1 after printing what is wrong. */
static int one_opt(void *ctx, int c)
{
	struct opts *o = ctx;

	switch (c) {
	case 'b': o->base = optarg; return 0;
	case 't':
		o->has_tun = true;
		return parse_tun(optarg, &o->tun) ? -1 : 0;
	case 1: return add_lower(o, ST_BRIDGE, optarg);
	case 2: return add_lower(o, ST_BOND, optarg);
	case 3: return add_lower(o, ST_MACVLAN, optarg);
	case 4: return add_lower(o, ST_VLAN, optarg);
	case 5: o->intersect = optarg; return 0;
	case 6: o->fix = true; return 0;
	case 'l':
		if (o->n_limits == sizeof(o->limits) / sizeof(o->limits[0])) {
			fprintf(stderr, CMD ": -l: at most %zu limits\n",
				sizeof(o->limits) / sizeof(o->limits[0]));
			return -1;
		}
		o->limits[o->n_limits++] = optarg;
		return 0;
	case 'L': o->show_limits = true; return 0;
	case 'n': o->name = optarg; return 0;
	case 'j': o->json = true; return 0;
	default: return -1;
	}
}

/* Return: -1 to run, or the exit status (after --help, a usage error). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "tun", required_argument, NULL, 't' },
		{ "bridge", required_argument, NULL, 1 },
		{ "bond", required_argument, NULL, 2 },
		{ "macvlan", required_argument, NULL, 3 },
		{ "vlan", required_argument, NULL, 4 },
		{ "intersect", required_argument, NULL, 5 },
		{ "fix", no_argument, NULL, 6 },
		{ "limit", required_argument, NULL, 'l' },
		{ "limits", no_argument, NULL, 'L' },
		{ "name", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct opts_spec spec = {
		.cmd = CMD, .shortopts = "+b:t:l:Ln:jh", .longopts = lo,
		.usage = usage, .one = one_opt, .ctx = o, .operands = -1,
	};

	return opts_parse(&spec, argc, argv);
}

static const char *default_base(const struct opts *o)
{
	static const char *const by_kind[] = {
		[ST_NONE] = "veth", [ST_BRIDGE] = "bridge", [ST_BOND] = "bond",
		[ST_MACVLAN] = "macvlan", [ST_VLAN] = "vlan",
	};

	if (o->base)
		return o->base;
	return o->has_tun ? "tap" : by_kind[o->kind];
}

static int output(const struct opts *o, const struct src *top)
{
	const char *name = o->name ? o->name : top->name;
	struct voff_feat_dev other_dev;
	struct src other;

	if (o->intersect) {
		if (load_src(o->intersect, &other))
			return VOFF_EXIT_FAIL;
		other_dev = top->feat;
		other_dev.active = voff_feat_intersect(top->feat.active,
						       other.feat.active);
		other_dev.hw = top->feat.hw & other.feat.hw;
		other_dev.wanted = other_dev.active;
	}
	if (!o->json) {
		voff_feat_print(stdout, name, &top->feat);
		if (o->show_limits)
			print_limits(&top->lim);
		if (o->intersect)
			voff_feat_print(stdout, "intersection", &other_dev);
		return VOFF_EXIT_OK;
	}
	/* One array per invocation, as `ethtool --json` and `ip -j`. */
	putchar('[');
	voff_feat_print_json(stdout, name, &top->feat,
			     o->show_limits ? &top->lim : NULL);
	if (o->intersect) {
		putchar(',');
		voff_feat_print_json(stdout, "intersection", &other_dev, NULL);
	}
	puts("]");
	return VOFF_EXIT_OK;
}

int features_main(int argc, char **argv)
{
	static struct opts o;
	struct src top;
	uint64_t mask, on;
	int bad = 0, err;
	bool mask_tun;

	err = parse_opts(argc, argv, &o);
	if (err >= 0)
		return err;
	if ((argc - optind) % 2) {
		fprintf(stderr, CMD ": requests come in pairs: NAME on|off\n");
		return VOFF_EXIT_USAGE;
	}
	err = voff_feat_parse_requests(argv + optind, argc - optind, &mask,
				       &on, &bad);
	if (err) {
		fprintf(stderr, CMD ": %s '%s'\n",
			err == -ENOENT ? "unknown feature" : "expected on|off, "
							     "not",
			argv[optind + bad]);
		return VOFF_EXIT_USAGE;
	}
	for (size_t i = 0; i < o.n_lower; i++)
		if (load_src(o.lower_src[i], &o.lower[i]))
			return VOFF_EXIT_FAIL;
	if (load_src(default_base(&o), &top))
		return VOFF_EXIT_FAIL;
	/* Its reader has set nothing yet: the TUN_USER bits stay masked. */
	mask_tun = o.has_tun || !strcmp(default_base(&o), "tap-fresh");
	if (o.fix)
		top.feat.active = voff_feat_fix(top.feat.active,
						top.feat.gso_partial);
	if (o.has_tun && voff_feat_tap_apply(&top.feat, o.tun)) {
		fprintf(stderr, CMD ": --tun: TUNSETOFFLOAD refuses 0x%x "
				"(EINVAL)\n", o.tun);
		return VOFF_EXIT_USAGE;
	}
	stack_limits(o.kind, &top.lim, o.lower, o.n_lower);
	for (size_t i = 0; i < o.n_limits; i++)
		if (parse_limit(o.limits[i], &top.lim))
			return VOFF_EXIT_USAGE;
	if (o.kind != ST_NONE)
		update(o.kind, &top.feat, o.lower, o.n_lower);
	if (mask) {
		voff_feat_dev_request(&top.feat, mask, on);
		update(o.kind, &top.feat, o.lower, o.n_lower);
	}
	if (mask_tun) {
		/* tun_net_fix_features(): the reader's flags bound TUN_USER. */
		uint64_t set = 0;

		voff_feat_from_tun(o.tun, &set);
		top.feat.active = voff_feat_fix(top.feat.active &
						(set | ~VOFF_F_TUN_USER),
						top.feat.gso_partial);
	}
	return output(&o, &top);
}
