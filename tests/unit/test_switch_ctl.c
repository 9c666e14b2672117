/* SPDX-License-Identifier: MIT */
/*
 * test_switch_ctl.c - the switch's control language over memory ports:
 * every command's reply, changes taking effect, JSON shapes, and exact
 * error messages for bad requests
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static struct voff_switch *sw_new(void)
{
	struct voff_switch_config c = { .pool_size = 16 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_switch *sw;
	struct voff_port *p[4];

	CHECK_OK(voff_switch_new(&sw, &c));
	pc.tx_off = VOFF_PORT_OFF_TCP;
	CHECK_OK(voff_port_mem_pair(&p[0], &p[1], &pc));
	CHECK_OK(voff_port_mem_pair(&p[2], &p[3], &pc));
	CHECK_OK(voff_switch_add(sw, p[0], "p0", NULL));
	CHECK_OK(voff_switch_add(sw, p[2], "p1", NULL));
	voff_port_close(p[1]);
	voff_port_close(p[3]);
	return sw;
}

/* Run @req; return the reply (static buffer) and the result in *@err. */
static const char *ctl(struct voff_switch *sw, const char *req, int *err)
{
	static char reply[65536];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f != NULL);
	*err = voff_switch_ctl(sw, req, strlen(req), f);
	fclose(f);
	CHECK_LT(len, sizeof(reply));
	memcpy(reply, out, len + 1);
	free(out);
	return reply;
}

static void t_ports(void)
{
	struct voff_switch *sw = sw_new();
	const char *r;
	int err;

	r = ctl(sw, "ports\n", &err);
	CHECK_OK(err);
	CHECK(strstr(r, "p0 ") && strstr(r, "p1 "));
	CHECK(strstr(r, " mem "));
	r = ctl(sw, "-j ports", &err);
	CHECK_OK(err);
	CHECK(starts(r, "[{\"id\":0,\"name\":\"p0\",\"kind\":\"mem\""));
	r = ctl(sw, "ports del p1", &err);
	CHECK_OK(err);
	CHECK_EQ(voff_switch_find(sw, "p1"), -ENOENT);
	r = ctl(sw, "ports del p1", &err);
	CHECK_EQ(err, -ENOENT);
	CHECK_STR_EQ(r, "error: no port 'p1'\n");
	r = ctl(sw, "ports add bogus:x", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK(starts(r, "error: ports add: "));
	r = ctl(sw, "ports frob", &err);
	CHECK_STR_EQ(r, "error: unknown ports subcommand 'frob'\n");
	voff_switch_free(sw);
}

static void t_features(void)
{
	struct voff_switch *sw = sw_new();
	const char *r;
	int err;

	r = ctl(sw, "features p0", &err);
	CHECK_OK(err);
	CHECK(starts(r, "Features for p0:\n"));
	CHECK(strstr(r, "\ttx-tcp-segmentation: on\n"));
	CHECK(strstr(r, "generic-receive-offload: off\n"));
	CHECK(strstr(r, "tx-tcp-mangleid-segmentation: off [requested on]"));
	CHECK(strstr(r, "large-receive-offload: off [fixed]"));
	r = ctl(sw, "features p0 tso off gro on", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "");
	r = ctl(sw, "features p0", &err);
	CHECK(strstr(r, "\ttx-tcp-segmentation: off\n"));
	CHECK(strstr(r, "generic-receive-offload: on\n"));
	r = ctl(sw, "-j features p0", &err);
	CHECK_OK(err);
	CHECK(strstr(r, "\"tx-tcp-segmentation\":{\"active\":false,"
			"\"fixed\":false,\"requested\":false}"));
	/* The shape of `voff features -j`: the same writer, in an array. */
	{
		struct voff_switch_port_info pi;
		static char want[16384];
		FILE *f = fmemopen(want, sizeof(want), "w");

		CHECK(f);
		voff_switch_port_info(sw, 0, &pi);
		fputc('[', f);
		CHECK_OK(voff_feat_print_json(f, "p0", &pi.feat, NULL));
		fputs("]\n", f);
		fclose(f);
		CHECK_STR_EQ(r, want);
	}
	r = ctl(sw, "features p0 frob on", &err);
	CHECK_EQ(err, -ENOENT);
	CHECK_STR_EQ(r, "error: unknown feature 'frob'\n");
	r = ctl(sw, "features p0 tso maybe", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: bad request near 'maybe'\n");
	r = ctl(sw, "features p0 tso", &err);
	CHECK_STR_EQ(r, "error: features: NAME on|off pairs expected\n");
	voff_switch_free(sw);
}

static void t_limits(void)
{
	struct voff_switch *sw = sw_new();
	struct voff_switch_port_info pi;
	const char *r;
	int err;

	r = ctl(sw, "limits p1 gso_max_size 16000 gso_max_segs 8 "
		    "gro_flush_timeout 20000", &err);
	CHECK_OK(err);
	CHECK_OK(voff_switch_port_info(sw, 1, &pi));
	CHECK_EQ(pi.limits.gso_max_size, 16000);
	CHECK_EQ(pi.limits.gso_max_segs, 8);
	CHECK_EQ(pi.gro_flush_timeout_ns, 20000);
	r = ctl(sw, "limits p1", &err);
	CHECK(strstr(r, "gso_max_size: 16000\ngso_max_segs: 8\n"));
	CHECK(strstr(r, "gro_flush_timeout: 20000\n"));
	r = ctl(sw, "-j limits p1", &err);
	CHECK(starts(r, "{\"port\":\"p1\",\"gso_max_size\":16000,"
			  "\"gso_max_segs\":8,"));
	/* A bad pair changes nothing, even after a good one. */
	r = ctl(sw, "limits p1 gso_max_segs 4 mtu 9000", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK(starts(r, "error: unknown limit 'mtu'"));
	CHECK_OK(voff_switch_port_info(sw, 1, &pi));
	CHECK_EQ(pi.limits.gso_max_segs, 8);
	r = ctl(sw, "limits p1 gso_max_segs -1", &err);
	CHECK_STR_EQ(r, "error: bad value '-1'\n");
	r = ctl(sw, "limits p1 gso_max_size 5", &err);
	CHECK_EQ(err, -ERANGE);
	CHECK_STR_EQ(r, "error: gso_max_size: value out of range\n");
	r = ctl(sw, "-j limits p1 gso_max_size", &err);
	CHECK_STR_EQ(r, "{\"error\":\"limits: NAME VALUE pairs expected\"}\n");
	voff_switch_free(sw);
}

static void t_stats_fdb_misc(void)
{
	struct voff_switch *sw = sw_new();
	char big[VOFF_SWITCH_CTL_MAX + 10];
	const char *r;
	int err;

	r = ctl(sw, "stats p0", &err);
	CHECK_OK(err);
	CHECK(starts(r, "p0:\n  rx_packets   0\n"));
	CHECK(!strstr(r, "p1:"));
	r = ctl(sw, "-j stats", &err);
	CHECK(starts(r, "[{\"port\":\"p0\",\"rx_packets\":0,"));
	CHECK(strstr(r, "},{\"port\":\"p1\""));
	CHECK(strstr(r, "\"drop_no_egress\":0"));
	r = ctl(sw, "fdb", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "");
	r = ctl(sw, "-j fdb", &err);
	CHECK_STR_EQ(r, "[]\n");
	r = ctl(sw, "help", &err);
	CHECK_OK(err);
	CHECK(strstr(r, "features PORT"));
	r = ctl(sw, "", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: empty request (try help)\n");
	r = ctl(sw, "frob", &err);
	CHECK_STR_EQ(r, "error: unknown command 'frob' (try help)\n");
	r = ctl(sw, "stats p0\x01", &err);
	CHECK_STR_EQ(r, "error: request is not one printable line\n");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	r = ctl(sw, big, &err);
	CHECK_EQ(err, -E2BIG);
	CHECK_STR_EQ(r, "error: request too long\n");
	r = ctl(sw, "a b c d e f g h i j k l m n o p q r s t u v w x y z "
		    "1 2 3 4 5 6 7", &err);
	CHECK_STR_EQ(r, "error: too many words\n");
	voff_switch_free(sw);
}

CHECK_MAIN(CHECK_TEST(t_ports), CHECK_TEST(t_features), CHECK_TEST(t_limits),
	   CHECK_TEST(t_stats_fdb_misc))
