/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctl.c - libFuzzer target for the switch's control requests
 * (voff_switch_ctl(), switch_ctl.c)
 *
 * A fresh switch with two in-memory ports per input.  Properties: no crash
 * or out-of-bounds access on any bytes; a request succeeds exactly when
 * its reply is not an error; the switch is consistent afterwards (its
 * ports can still be listed and their stats read).  Inputs with a ':' are
 * skipped: a port spec could create devices or files.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/port.h>
#include <voff/switch.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct voff_switch *make(void)
{
	struct voff_switch_config c = { .pool_size = 8, .fdb_size = 16 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM, .ring = 4 };
	struct voff_switch *sw;
	struct voff_port *p[4];

	if (voff_switch_new(&sw, &c))
		abort();
	pc.tx_off = VOFF_PORT_OFF_TCP;
	if (voff_port_mem_pair(&p[0], &p[1], &pc) ||
	    voff_port_mem_pair(&p[2], &p[3], &pc))
		abort();
	if (voff_switch_add(sw, p[0], "p0", NULL) ||
	    voff_switch_add(sw, p[2], "p1", NULL))
		abort();
	voff_port_close(p[1]);
	voff_port_close(p[3]);
	return sw;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_switch *sw;
	char *out = NULL;
	size_t olen = 0;
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n;
	FILE *f;
	int err;

	if (memchr(data, ':', size))
		return 0;
	sw = make();
	f = open_memstream(&out, &olen);
	if (!f)
		abort();
	err = voff_switch_ctl(sw, (const char *)data, size, f);
	fclose(f);
	if ((err == 0) == (olen >= 6 && (!strncmp(out, "error:", 6) ||
					 !strncmp(out, "{\"error\"", 8))))
		abort();
	n = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	for (unsigned int i = 0; i < n && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_stats st;

		if (voff_switch_stats(sw, ids[i], &st))
			abort();
	}
	free(out);
	voff_switch_free(sw);
	return 0;
}
