/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spec.c - libFuzzer target for port specs (voff_port_spec_parse(),
 * port_spec.c), the text `voff switch --port` and `voff ctl ports add`
 * take from the command line or from a control client
 *
 * The input, cut at its first NUL, is parsed; nothing is opened.
 * Properties on every accepted spec: the name is non-empty and lies in the
 * spec's own buffer; a namespace is one path component (no '/', not "."
 * or "..", under 64 bytes) and never comes with a pcap port; a sink comes
 * only with a pcap port, napi only with a TAP or TUN port; every setting
 * given is one of the port's kind, within its range; and the spec printed
 * back in canonical form parses to the same values (the parser neither
 * loses nor invents).
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
	case VOFF_PORT_VXLAN:
		return "vxlan:";
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
	const struct voff_switch_setting *set;
	FILE *f = fmemopen(out, cap, "w");
	bool ok;

	die_if(!f);
	if (s->cfg.kind == VOFF_PORT_VXLAN)
		fprintf(f, "vxlan:%u", s->vxlan.vni);
	else
		fprintf(f, "%s%s", prefix(s->cfg.kind), s->cfg.name);
	if (s->cfg.netns)
		fprintf(f, "@%s", s->cfg.netns);
	if (s->cfg.sink)
		fprintf(f, ",sink=%s", s->cfg.sink);
	if (s->cfg.kind == VOFF_PORT_VXLAN) {
		char a[64];

		if (s->vxlan.local.sa.sa_family)
			fprintf(f, ",local=%s",
				voff_udp_addr_format(&s->vxlan.local, a,
						     sizeof(a)));
		for (unsigned int i = 0; i < s->vxlan.n_remote; i++)
			fprintf(f, ",remote=%s",
				voff_udp_addr_format(&s->vxlan.remote[i], a,
						     sizeof(a)));
		if (s->vxlan.udp_csum_zero)
			fputs(",udp_csum=off", f);
	}
	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		char val[32];

		if (!(s->given & (1u << i)))
			continue;
		voff_switch_setting_format(set, s->value[i], val, sizeof(val));
		fprintf(f, ",%s=%s", set->name, val);
	}
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
	die_if(!s.cfg.name || !*s.cfg.name ||
	       !(in_buf(&s, s.cfg.name) || s.cfg.name == s.label));
	/* A vxlan port is named from its VNI. */
	die_if((s.cfg.name == s.label) != (s.cfg.kind == VOFF_PORT_VXLAN));
	die_if(s.err[0]);
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
	for (unsigned int i = 0; i < VOFF_SWITCH_SETTINGS_MAX; i++) {
		const struct voff_switch_setting *set;

		if (!(s.given & (1u << i)))
			continue;
		/* Only settings of the port's kind, within their range. */
		set = voff_switch_setting_at(i);
		die_if(!set || !(set->kinds & (1u << s.cfg.kind)));
		die_if(s.value[i] < set->min || s.value[i] > set->max);
	}

	if (!canon(&s, again, sizeof(again)) || strlen(again) > 255)
		return 0;
	die_if(voff_port_spec_parse(&t, again) != 0);
	die_if(t.cfg.kind != s.cfg.kind || t.given != s.given);
	die_if(strcmp(t.cfg.name, s.cfg.name));
	die_if(!same_str(t.cfg.netns, s.cfg.netns));
	die_if(!same_str(t.cfg.sink, s.cfg.sink));
	die_if(memcmp(t.value, s.value, sizeof(s.value)));
	die_if(t.cfg.want != s.cfg.want || t.cfg.flags != s.cfg.flags);
	/* A vxlan spec's VNI and addresses survive the round trip. */
	die_if(!s.cfg.vxlan != (s.cfg.kind != VOFF_PORT_VXLAN));
	die_if(s.cfg.vxlan && memcmp(&t.vxlan, &s.vxlan, sizeof(s.vxlan)));
	return 0;
}
