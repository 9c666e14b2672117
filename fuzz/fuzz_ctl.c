/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ctl.c - libFuzzer target for the switch's control requests
 * (voff_switch_ctl(), switch_ctl.c)
 *
 * One switch with two in-memory ports per process, run under a server
 * policy (voff_switch_ctl_serve()) on odd inputs and without one on even
 * ones.  It is rebuilt only when a request changed it (a port deleted, a
 * feature, limit or timeout set): the state after each input is compared
 * with the state after building, which costs far less than building.
 * Properties: no crash or out-of-bounds access on any bytes; a request
 * succeeds exactly when its reply is not an error; the switch is
 * consistent afterwards (its ports can still be listed and their stats
 * read).  Inputs with a ':' are skipped: a port spec could create devices
 * or files (fuzz_spec.c fuzzes the spec parser itself).
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
	pc.tx_off = VOFF_TUN_F_TCP;
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

static struct voff_switch *sw;
static unsigned int base_n;
static struct voff_switch_port_info base[VOFF_SWITCH_MAX_PORTS];

/* Snapshot of what requests can change; Return: the number of ports. */
static unsigned int snap(struct voff_switch_port_info *pi)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n;

	n = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	if (n > VOFF_SWITCH_MAX_PORTS)
		abort();
	for (unsigned int i = 0; i < n; i++)
		if (voff_switch_port_info(sw, ids[i], &pi[i]))
			abort();
	return n;
}

static void reset(void)
{
	static struct voff_switch_port_info now[VOFF_SWITCH_MAX_PORTS];

	if (sw && snap(now) == base_n &&
	    !memcmp(now, base, base_n * sizeof(base[0])))
		return;
	voff_switch_free(sw);
	sw = make();
	base_n = snap(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct voff_switch_ctl_state st = {
		.deny = (size & 1) ? VOFF_SWITCH_CTL_DENY_FILES : 0,
	};
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n;
	char *out = NULL;
	size_t olen = 0;
	FILE *f;
	int err;

	if (memchr(data, ':', size))
		return 0;
	reset();
	f = open_memstream(&out, &olen);
	if (!f)
		abort();
	if (size & 1)
		err = voff_switch_ctl_serve(sw, &st, (const char *)data, size,
					    f);
	else
		err = voff_switch_ctl(sw, (const char *)data, size, f);
	fclose(f);
	if ((err == 0) == (olen >= 6 && (!strncmp(out, "error:", 6) ||
					 !strncmp(out, "{\"error\"", 8))))
		abort();
	if ((size & 1) && (st.requests != 1 || st.failed != (err != 0)))
		abort();
	n = voff_switch_ports(sw, ids, VOFF_SWITCH_MAX_PORTS);
	for (unsigned int i = 0; i < n && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_stats stats;

		if (voff_switch_stats(sw, ids[i], &stats))
			abort();
	}
	free(out);
	return 0;
}
