/* SPDX-License-Identifier: MIT */
/*
 * feat_text.c - feature names in and out: `ethtool -k` output (print and
 * parse), `ethtool --json -k` output, and `ethtool -K` requests, with
 * ethtool's legacy group names
 *
 * ethtool groups features under old names ("scatter-gather" holds
 * tx-scatter-gather and tx-scatter-gather-fraglist) by a glob over the
 * kernel names; the same globs are used here, so a group is whatever the
 * feature table says matches it, as in ethtool itself.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <voff/feat.h>
#include <voff/limits.h>

#include "feat_int.h"

/* ethtool's legacy flags, in the order `ethtool -k` prints them. */
static const struct group {
	const char *short_name;
	const char *long_name;
	const char *pattern;
} groups[] = {
	{ "rx", "rx-checksumming", "rx-checksum" },
	{ "tx", "tx-checksumming", "tx-checksum-*" },
	{ "sg", "scatter-gather", "tx-scatter-gather*" },
	{ "tso", "tcp-segmentation-offload", "tx-tcp*-segmentation" },
	{ "ufo", "udp-fragmentation-offload", "tx-udp-fragmentation" },
	{ "gso", "generic-segmentation-offload", "tx-generic-segmentation" },
	{ "gro", "generic-receive-offload", "rx-gro" },
	{ "lro", "large-receive-offload", "rx-lro" },
	{ "rxvlan", "rx-vlan-offload", "rx-vlan-hw-parse" },
	{ "txvlan", "tx-vlan-offload", "tx-vlan-hw-insert" },
	{ "ntuple", "ntuple-filters", "rx-ntuple-filter" },
	{ "rxhash", "receive-hashing", "rx-hashing" },
};

#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

static bool in_group(const struct group *g, int id)
{
	return fnmatch(g->pattern, voff__feat_defs[id].name, 0) == 0;
}

static bool hidden(int id)
{
	return voff__feat_defs[id].flags & VOFF_FEAT_HIDDEN;
}

static uint64_t bit_of(int id)
{
	return UINT64_C(1) << voff__feat_defs[id].bit;
}

/* Members of @g; @visible: only those ethtool -k shows. */
static uint64_t group_set(const struct group *g, bool visible, int *n,
			  int *first)
{
	uint64_t set = 0;

	*n = 0;
	for (int i = 0; i < VOFF_FEAT__COUNT; i++) {
		if (!in_group(g, i) || (visible && hidden(i)))
			continue;
		if (!(*n)++ && first)
			*first = i;
		set |= bit_of(i);
	}
	return set;
}

static bool grouped(int id)
{
	for (size_t g = 0; g < N_GROUPS; g++)
		if (in_group(&groups[g], id))
			return true;
	return false;
}

int voff_feat_lookup(const char *name, uint64_t *out)
{
	int n;

	for (int i = 0; i < VOFF_FEAT__COUNT; i++) {
		if (!strcmp(name, voff__feat_defs[i].name)) {
			*out = bit_of(i);
			return 0;
		}
	}
	for (size_t g = 0; g < N_GROUPS; g++) {
		if (strcmp(name, groups[g].short_name) &&
		    strcmp(name, groups[g].long_name))
			continue;
		*out = group_set(&groups[g], false, &n, NULL);
		return 0;
	}
	return -ENOENT;
}

const char *voff_feat_format_one(const struct voff_feat_dev *dev,
				 enum voff_feat_id id, char *buf, size_t size)
{
	uint64_t b = voff_feat_bit(id);
	bool on = dev->active & b;
	const char *sfx = "";

	if (!(dev->hw & b))
		sfx = " [fixed]";
	else if (!(dev->wanted & b) != !on)
		sfx = on ? " [requested off]" : " [requested on]";
	snprintf(buf, size, "%s%s", on ? "on" : "off", sfx);
	return buf;
}

static void put(struct voff_feat_line *out, size_t n, size_t *k,
		const struct voff_feat_dev *dev, const char *name, int id,
		bool member)
{
	if (*k < n) {
		struct voff_feat_line *l = &out[*k];
		uint64_t b = id >= 0 ? bit_of(id) : 0;

		l->name = name;
		l->id = id;
		l->member = member;
		l->active = dev->active & b;
		l->fixed = !(dev->hw & b);
		l->requested = (dev->wanted & dev->hw & b) != 0;
	}
	(*k)++;
}

size_t voff_feat_lines(const struct voff_feat_dev *dev,
		       struct voff_feat_line *out, size_t n)
{
	size_t k = 0;
	int m, first = 0;

	for (size_t g = 0; g < N_GROUPS; g++) {
		uint64_t set = group_set(&groups[g], true, &m, &first);

		if (m == 0)
			continue;
		if (m == 1) {
			put(out, n, &k, dev, groups[g].long_name, first, false);
			continue;
		}
		put(out, n, &k, dev, groups[g].long_name, -1, false);
		if (k <= n)
			out[k - 1].active = dev->active & set;
		for (int i = 0; i < VOFF_FEAT__COUNT; i++)
			if (in_group(&groups[g], i) && !hidden(i))
				put(out, n, &k, dev, voff__feat_defs[i].name,
				    i, true);
	}
	for (int i = 0; i < VOFF_FEAT__COUNT; i++)
		if (!grouped(i) && !hidden(i))
			put(out, n, &k, dev, voff__feat_defs[i].name, i, false);
	return k;
}

int voff_feat_print(FILE *f, const char *ifname,
		    const struct voff_feat_dev *dev)
{
	struct voff_feat_line lines[VOFF_FEAT_LINES_MAX];
	size_t n = voff_feat_lines(dev, lines, VOFF_FEAT_LINES_MAX);
	char st[32];

	if (ifname)
		fprintf(f, "Features for %s:\n", ifname);
	for (size_t i = 0; i < n && i < VOFF_FEAT_LINES_MAX; i++) {
		const struct voff_feat_line *l = &lines[i];

		if (l->id < 0)
			snprintf(st, sizeof(st), "%s",
				 l->active ? "on" : "off");
		else
			voff_feat_format_one(dev, l->id, st, sizeof(st));
		fprintf(f, "%s%s: %s\n", l->member ? "\t" : "", l->name, st);
	}
	return ferror(f) ? -EIO : 0;
}

/* @s as a JSON string (names and ifnames: escapes for the few that need). */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

int voff_feat_print_json(FILE *f, const char *ifname,
			 const struct voff_feat_dev *dev,
			 const struct voff_limits *lim)
{
	struct voff_feat_line lines[VOFF_FEAT_LINES_MAX];
	size_t n = voff_feat_lines(dev, lines, VOFF_FEAT_LINES_MAX);

	fputs("{\"ifname\":", f);
	json_str(f, ifname);
	for (size_t i = 0; i < n && i < VOFF_FEAT_LINES_MAX; i++) {
		const struct voff_feat_line *l = &lines[i];
		bool sum = l->id < 0;	/* a group line: ethtool's nulls */

		fputc(',', f);
		json_str(f, l->name);
		fprintf(f, ":{\"active\":%s,\"fixed\":%s,\"requested\":%s}",
			json_bool(l->active), sum ? "null" : json_bool(l->fixed),
			sum ? "null" : json_bool(l->requested));
	}
	if (lim) {
		fputs(",\"limits\":{", f);
		for (int i = 0; i < VOFF_LIMIT__COUNT; i++)
			fprintf(f, "%s\"%s\":%" PRIu32, i ? "," : "",
				voff_limit_name(i), voff_limit_get(lim, i));
		fputc('}', f);
	}
	fputc('}', f);
	return ferror(f) ? -EIO : 0;
}

/* The one feature a name stands for in ethtool -k output, or -1. */
static int line_feature(const char *name, size_t len)
{
	int n, first = -1;

	for (int i = 0; i < VOFF_FEAT__COUNT; i++)
		if (strlen(voff__feat_defs[i].name) == len &&
		    !strncmp(name, voff__feat_defs[i].name, len))
			return i;
	for (size_t g = 0; g < N_GROUPS; g++) {
		if (strlen(groups[g].long_name) != len ||
		    strncmp(name, groups[g].long_name, len))
			continue;
		group_set(&groups[g], true, &n, &first);
		/* A multi-member group line only summarises its members. */
		return n == 1 ? first : -2;
	}
	return -1;
}

/* Parse one "name: on|off [suffix]" line into @dev. */
static int parse_line(const char *s, size_t len, struct voff_feat_dev *dev,
		      unsigned int *unknown)
{
	const char *colon = memchr(s, ':', len), *v;
	bool on;
	int id;
	uint64_t b;

	if (!colon)
		return -EINVAL;
	v = colon + 1;
	while (v < s + len && *v == ' ')
		v++;
	if (v == s + len)
		return 0; /* a heading such as "Features for X:" */
	if ((size_t)(s + len - v) >= 2 && !strncmp(v, "on", 2))
		on = true;
	else if ((size_t)(s + len - v) >= 3 && !strncmp(v, "off", 3))
		on = false;
	else
		return -EINVAL;
	id = line_feature(s, (size_t)(colon - s));
	if (id == -2)
		return 0;
	if (id < 0) {
		if (unknown)
			(*unknown)++;
		return 0;
	}
	b = bit_of(id);
	dev->active = on ? dev->active | b : dev->active & ~b;
	dev->vlan = dev->enc = dev->active;
	if (memmem(v, (size_t)(s + len - v), "[fixed]", 7)) {
		dev->hw &= ~b;
		dev->wanted &= ~b;
		return 0;
	}
	dev->hw |= b;
	if (memmem(v, (size_t)(s + len - v), "[requested on]", 14))
		on = true;
	else if (memmem(v, (size_t)(s + len - v), "[requested off]", 15))
		on = false;
	dev->wanted = on ? dev->wanted | b : dev->wanted & ~b;
	return 0;
}

int voff_feat_parse_ethtool(const char *text, struct voff_feat_dev *dev,
			    unsigned int *unknown)
{
	const char *p = text;

	memset(dev, 0, sizeof(*dev));
	if (unknown)
		*unknown = 0;
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *s = p;

		while (len && isspace((unsigned char)*s)) {
			s++;
			len--;
		}
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (len && strncmp(s, "Features for ", 13)) {
			int err = parse_line(s, len, dev, unknown);

			if (err)
				return err;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

int voff_feat_parse_requests(char *const *argv, int argc, uint64_t *mask,
			     uint64_t *on, int *bad)
{
	uint64_t m = 0, o = 0, set;

	for (int i = 0; i < argc; i += 2) {
		if (voff_feat_lookup(argv[i], &set)) {
			if (bad)
				*bad = i;
			return -ENOENT;
		}
		if (i + 1 >= argc ||
		    (strcmp(argv[i + 1], "on") && strcmp(argv[i + 1], "off"))) {
			if (bad)
				*bad = i + 1;
			return -EINVAL;
		}
		/* As ethtool's bitset: "off" never clears an earlier "on". */
		m |= set;
		if (!strcmp(argv[i + 1], "on"))
			o |= set;
	}
	*mask = m;
	*on = o;
	return 0;
}
