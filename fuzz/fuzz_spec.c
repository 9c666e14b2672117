/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spec.c - libFuzzer target for port specs (voff_port_spec_parse(),
 * switch_ctl.c), the text `voff switch --port` and `voff ctl ports add`
 * take from the command line or from a control client
 *
 * The input, cut at its first NUL, is parsed; nothing is opened.
 * Properties on every accepted spec: the name is non-empty and lies in the
 * spec's own buffer; a namespace is one path component (no '/', not "."
 * or "..", under 64 bytes) and never comes with a pcap port; a sink comes
 * only with a pcap port, napi only with a TAP or TUN port; and the spec printed back in canonical form
 * parses to the same values (the parser neither loses nor invents).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/switch.h>

#define TEXT_MAX 600

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die_if(int cond)
{
	if (cond)
		abort();
}

static const char *prefix(enum voff_port_kind k)
{
	switch (k) {
	case VOFF_PORT_TAP:
		return "tap:";
	case VOFF_PORT_TUN:
		return "tun:";
	case VOFF_PORT_PACKET:
		return "packet:";
	case VOFF_PORT_PCAP:
		return "pcap:";
	default:
		abort();
	}
}

static bool in_buf(const struct voff_port_spec *s, const char *p)
{
	return p >= s->buf && p < s->buf + sizeof(s->buf) &&
	       strnlen(p, (size_t)(s->buf + sizeof(s->buf) - p)) <
		       (size_t)(s->buf + sizeof(s->buf) - p);
}

/* Print @s back as a spec; Return: false when it does not fit. */
static bool canon(const struct voff_port_spec *s, char *out, size_t cap)
{
	FILE *f = fmemopen(out, cap, "w");
	bool ok;

	die_if(!f);
	fprintf(f, "%s%s", prefix(s->cfg.kind), s->cfg.name);
	if (s->cfg.netns)
		fprintf(f, "@%s", s->cfg.netns);
	if (s->cfg.sink)
		fprintf(f, ",sink=%s", s->cfg.sink);
	if (s->gro >= 0)
		fprintf(f, ",gro=%s", s->gro ? "on" : "off");
	if (s->cfg.flags & VOFF_PORT_F_NAPI)
		fprintf(f, ",napi=on");
	if (s->gro_timeout_set)
		fprintf(f, ",gro_flush_timeout=%llu",
			(unsigned long long)s->gro_timeout_ns);
	for (int w = 0; w < VOFF_LIMIT__COUNT; w++)
		if (s->limits[w])
			fprintf(f, ",%s=%u",
				voff_limit_name((enum voff_limit)w),
				s->limits[w]);
	fputc('\0', f);
	ok = !ferror(f) && ftell(f) < (long)cap;
	fclose(f);
	return ok;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct voff_port_spec s, t;
	char text[TEXT_MAX + 1], again[2 * TEXT_MAX];

	if (size > TEXT_MAX)
		size = TEXT_MAX;
	memcpy(text, data, size);
	text[size] = '\0';
	if (voff_port_spec_parse(&s, text))
		return 0;
	die_if(!s.cfg.name || !*s.cfg.name || !in_buf(&s, s.cfg.name));
	die_if(s.gro < -1 || s.gro > 1);
	if (s.cfg.netns) {
		die_if(!in_buf(&s, s.cfg.netns) || !*s.cfg.netns);
		die_if(strchr(s.cfg.netns, '/') || strlen(s.cfg.netns) >= 64);
		die_if(!strcmp(s.cfg.netns, ".") ||
		       !strcmp(s.cfg.netns, ".."));
		die_if(s.cfg.kind == VOFF_PORT_PCAP);
	}
	if (s.cfg.sink)
		die_if(!in_buf(&s, s.cfg.sink) ||
		       s.cfg.kind != VOFF_PORT_PCAP);
	if (s.cfg.flags & VOFF_PORT_F_NAPI)
		die_if(s.cfg.kind != VOFF_PORT_TAP &&
		       s.cfg.kind != VOFF_PORT_TUN);
	for (int w = 0; w < VOFF_LIMIT__COUNT; w++)
		die_if(s.limits[w] && w != VOFF_LIMIT_GSO_MAX_SIZE &&
		       w != VOFF_LIMIT_GSO_MAX_SEGS &&
		       w != VOFF_LIMIT_GRO_MAX_SIZE);

	if (!canon(&s, again, sizeof(again)) || strlen(again) > 255)
		return 0;
	die_if(voff_port_spec_parse(&t, again) != 0);
	die_if(t.cfg.kind != s.cfg.kind || t.gro != s.gro);
	die_if(strcmp(t.cfg.name, s.cfg.name));
	die_if(!same_str(t.cfg.netns, s.cfg.netns));
	die_if(!same_str(t.cfg.sink, s.cfg.sink));
	die_if(t.gro_timeout_set != s.gro_timeout_set ||
	       t.gro_timeout_ns != s.gro_timeout_ns);
	die_if(memcmp(t.limits, s.limits, sizeof(s.limits)));
	die_if(t.cfg.want != s.cfg.want || t.cfg.flags != s.cfg.flags);
	return 0;
}
