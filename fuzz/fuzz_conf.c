/* SPDX-License-Identifier: MIT */
/*
 * fuzz_conf.c - libFuzzer target for configuration files of the switch
 * (voff_switch_conf_read(), switch_conf.c), which `voff switch --config`
 * reads at start and on every reload
 *
 * The input is a file: one configuration reads it after a first line of
 * its own ("ports add tap:base"), nothing is applied (no device is made).
 * Properties: a file is taken whole or not at all (on failure the
 * configuration still holds only the base port, unchanged, and the
 * error names the file, "f:LINE: " or "f: "); on success every port
 * declared prints back (voff_port_spec_format()) to a spec that parses to
 * the same port, and its settings are within their ranges.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/switch.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die_if(int cond)
{
	if (cond)
		abort();
}

/* Every setting a port has is one its kind takes, within its range. */
static void check_port(const struct voff_port_spec *s)
{
	const struct voff_switch_setting *set;
	struct voff_port_spec back;
	char text[VOFF_PORT_SPEC_MAX * 2];

	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		if (!(s->given & (1u << i)))
			continue;
		die_if(!(set->kinds & (1u << s->cfg.kind)));
		die_if(s->value[i] < set->min || s->value[i] > set->max);
	}
	/* Settings given on `limits` lines may make the full text long. */
	if (voff_port_spec_format(s, true, text, sizeof(text)) < 0 ||
	    strlen(text) > VOFF_PORT_SPEC_MAX)
		return;
	die_if(voff_port_spec_parse(&back, text) != 0);
	die_if(strcmp(back.cfg.name, s->cfg.name) || back.given != s->given ||
	       back.cfg.kind != s->cfg.kind);
	for (unsigned int i = 0; voff_switch_setting_at(i); i++)
		die_if((s->given & (1u << i)) && back.value[i] != s->value[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_switch_conf *c;
	const struct voff_port_spec *p;
	FILE *f;
	int err;

	if (!size)
		return 0;
	die_if(voff_switch_conf_new(&c) != 0);
	die_if(voff_switch_conf_line(c, "ports add tap:base", 18, "base", 1));
	f = fmemopen((void *)data, size, "r");
	die_if(!f);
	err = voff_switch_conf_read(c, f, "f");
	fclose(f);
	if (err) {
		const char *e = voff_switch_conf_error(c);

		die_if(strncmp(e, "f:", 2) != 0);
		die_if(!voff_switch_conf_port(c, 0) ||
		       voff_switch_conf_port(c, 1) ||
		       voff_switch_conf_port(c, 0)->given);
	}
	for (unsigned int i = 0; (p = voff_switch_conf_port(c, i)); i++)
		check_port(p);
	voff_switch_conf_free(c);
	return 0;
}
