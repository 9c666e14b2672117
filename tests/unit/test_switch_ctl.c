/* SPDX-License-Identifier: MIT */
/*
 * test_switch_ctl.c - the switch's control language over memory ports:
 * every command's reply, changes taking effect, JSON shapes, and exact
 * error messages for bad requests
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

static unsigned int lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static unsigned int nsettings(void)
{
	unsigned int n = 0;

	while (voff_switch_setting_at(n))
		n++;
	return n;
}

static struct voff_switch *sw_new(void)
{
	struct voff_switch_config c = { .pool_size = 16 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_switch *sw;
	struct voff_port *p[4];

	CHECK_OK(voff_switch_new(&sw, &c));
	pc.tx_off = VOFF_TUN_F_TCP;
	CHECK_OK(voff_port_mem_pair(&p[0], &p[1], &pc));
	/* p1 as if in a namespace: ports must tell it from p0. */
	pc.netns = "blue";
	CHECK_OK(voff_port_mem_pair(&p[2], &p[3], &pc));
	CHECK_OK(voff_switch_add(sw, p[0], "p0", NULL));
	CHECK_OK(voff_switch_add(sw, p[2], "p1", NULL));
	voff_port_close(p[1]);
	voff_port_close(p[3]);
	return sw;
}

/*
 * Run @req under server state @st (NULL: no server); return the reply
 * (static buffer) and the result in *@err.
 */
static const char *serve(struct voff_switch *sw,
			 struct voff_switch_ctl_state *st, const char *req,
			 int *err)
{
	static char reply[65536];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f != NULL);
	*err = st ? voff_switch_ctl_serve(sw, st, req, strlen(req), f)
		  : voff_switch_ctl(sw, req, strlen(req), f);
	fclose(f);
	CHECK_LT(len, sizeof(reply));
	memcpy(reply, out, len + 1);
	free(out);
	return reply;
}

static const char *ctl(struct voff_switch *sw, const char *req, int *err)
{
	return serve(sw, NULL, req, err);
}

static void t_ports(void)
{
	struct voff_switch *sw = sw_new();
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_port *a, *b;
	const char *r;
	int err;

	/* A header row; the namespace tells the two ifindex 0 apart. */
	r = ctl(sw, "ports\n", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "ID  NAME             KIND   NETNS        IFINDEX GRO "
			"STATE  RX-OFFLOADS                      TX-OFFLOADS\n"
			"0   p0               mem    -            0       off "
			"ok     -                                "
			"csum,tso4,tso6,tso_ecn\n"
			"1   p1               mem    blue         0       off "
			"ok     -                                "
			"csum,tso4,tso6,tso_ecn\n");
	r = ctl(sw, "-j ports", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "[{\"id\":0,\"name\":\"p0\",\"kind\":\"mem\","
			"\"netns\":null,\"ifindex\":0,\"gro\":false,"
			"\"failed\":false,\"rx_offloads\":\"-\","
			"\"tx_offloads\":\"csum,tso4,tso6,tso_ecn\"},"
			"{\"id\":1,\"name\":\"p1\",\"kind\":\"mem\","
			"\"netns\":\"blue\",\"ifindex\":0,\"gro\":false,"
			"\"failed\":false,\"rx_offloads\":\"-\","
			"\"tx_offloads\":\"csum,tso4,tso6,tso_ecn\"}]\n");
	r = ctl(sw, "ports del p1", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "");
	CHECK_EQ(voff_switch_find(sw, "p1"), -ENOENT);
	r = ctl(sw, "ports del p1", &err);
	CHECK_EQ(err, -ENOENT);
	CHECK_STR_EQ(r, "error: no port 'p1'\n");
	r = ctl(sw, "ports add bogus:x", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: ports add: bogus:x: unknown port kind 'bogus' "
			"(kinds: tap, tun, packet, pcap, vhost-user, vxlan)\n");
	r = ctl(sw, "ports frob", &err);
	CHECK_STR_EQ(r, "error: unknown ports subcommand 'frob'\n");
	r = ctl(sw, "ports add", &err);
	CHECK_STR_EQ(r, "error: usage: ports add SPEC\n");
	r = ctl(sw, "ports del a b", &err);
	CHECK_STR_EQ(r, "error: usage: ports del PORT\n");

	/* A PORT is a name, or the id ports shows; a name wins. */
	CHECK_OK(voff_port_mem_pair(&a, &b, &pc));
	voff_port_close(b);
	/* Id 1, named "0". */
	CHECK_OK(voff_switch_add(sw, a, "0", NULL));
	r = ctl(sw, "stats 1", &err);
	CHECK_OK(err);
	CHECK(starts(r, "0:\n"));
	r = ctl(sw, "ports del 0", &err);
	CHECK_OK(err);
	CHECK_EQ(voff_switch_find(sw, "0"), -ENOENT);
	CHECK_EQ(voff_switch_find(sw, "p0"), 0);
	r = ctl(sw, "ports del 0", &err);
	CHECK_OK(err);
	CHECK_EQ(voff_switch_find(sw, "p0"), -ENOENT);
	r = ctl(sw, "ports del 0", &err);
	CHECK_STR_EQ(r, "error: no port '0'\n");
	r = ctl(sw, "ports del 64", &err);
	CHECK_STR_EQ(r, "error: no port '64'\n");
	r = ctl(sw, "features 0000000000000000000001", &err);
	CHECK_EQ(err, -ENOENT);
	voff_switch_free(sw);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Learned addresses with the VLAN of their frame, ages in seconds. */
static void t_fdb(void)
{
	static const uint8_t tagged[64] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x01,
		0x81, 0x00, 0x00, 0x2a, 0x08, 0x06,
	};
	static const uint8_t plain[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x02,
		0x08, 0x06,
	};
	static const char j1[] = "{\"mac\":\"02:00:00:00:00:01\","
				 "\"port\":\"p0\",\"vlan\":42,\"age\":0,"
				 "\"static\":false,\"remote\":null}";
	static const char j2[] = "{\"mac\":\"02:00:00:00:00:02\","
				 "\"port\":\"p1\",\"vlan\":null,\"age\":0,"
				 "\"static\":false,\"remote\":null}";
	struct voff_switch_config c = { .pool_size = 16 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_port *p[4];
	struct voff_switch *sw;
	uint64_t learn0, learn1, q0, q1;
	const char *r, *rj;
	char txt[1024];
	bool found;
	int err;

	CHECK_OK(voff_switch_new(&sw, &c));
	pc.flags = VOFF_PORT_F_NO_VNET;
	CHECK_OK(voff_port_mem_pair(&p[0], &p[1], &pc));
	CHECK_OK(voff_port_mem_pair(&p[2], &p[3], &pc));
	CHECK_OK(voff_switch_add(sw, p[0], "p0", NULL));
	CHECK_OK(voff_switch_add(sw, p[2], "p1", NULL));
	r = ctl(sw, "fdb", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "MAC               PORT             VLAN AGE    REMOTE\n");
	CHECK_OK(voff_port_mem_inject(p[0], tagged, sizeof(tagged)));
	CHECK_OK(voff_port_mem_inject(p[2], plain, sizeof(plain)));
	learn0 = mono_ns();
	CHECK_EQ(voff_switch_poll(sw, 0), 2);
	learn1 = mono_ns();
	r = ctl(sw, "fdb", &err);
	CHECK(starts(r, "MAC               PORT             VLAN AGE    REMOTE\n"));
	CHECK(strstr(r, "\n02:00:00:00:00:01 p0               42   0      -\n"));
	CHECK(strstr(r, "\n02:00:00:00:00:02 p1               -    0      -\n"));
	r = ctl(sw, "-j fdb", &err);
	CHECK(strstr(r, j1) && strstr(r, j2));
	/* [A,B] in the table's order, nothing else. */
	CHECK_EQ(strlen(r), 1 + strlen(j1) + 1 + strlen(j2) + 2);
	CHECK(starts(r, "[{") && !strcmp(r + strlen(r) - 3, "}]\n"));
	/*
	 * Ages are whole seconds (they were milliseconds): 1 after 1.1 s,
	 * or what a test paused longer between the learning and the query
	 * makes of it (at most the whole span, at least the part that
	 * surely passed).
	 */
	nanosleep(&(struct timespec){ .tv_sec = 1, .tv_nsec = 100000000 },
		  NULL);
	q0 = mono_ns();
	snprintf(txt, sizeof(txt), "%s", ctl(sw, "fdb", &err));
	rj = ctl(sw, "-j fdb", &err);
	q1 = mono_ns();
	found = false;
	for (uint64_t age = (q0 - learn1) / 1000000000u;
	     age <= (q1 - learn0) / 1000000000u; age++) {
		char t[80], j[40];

		snprintf(t, sizeof(t), "\n02:00:00:00:00:02 p1               "
			 "-    %-6llu -\n", (unsigned long long)age);
		snprintf(j, sizeof(j), "\"vlan\":null,\"age\":%llu,",
			 (unsigned long long)age);
		found |= strstr(txt, t) && strstr(rj, j);
	}
	CHECK((q0 - learn1) / 1000000000u >= 1 && found);
	/* The host ends hold flooded frames of the switch's pool. */
	voff_port_close(p[1]);
	voff_port_close(p[3]);
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
	/* Every setting of the table, in its order, then the device. */
	r = ctl(sw, "limits p1", &err);
	CHECK(starts(r, "Limits for p1:\ngso_max_size: 16000\n"
			"gso_max_segs: 8\ngro_max_size: 65536\n"
			"gro_flush_timeout: 20000\ngro: off\nnapi: off\n"));
	CHECK(ends(r, "\ndevice mtu: 0\ndevice gso_max_size: 0\n"
		      "device gso_max_segs: 0\n"));
	CHECK_EQ(lines(r), 1 + nsettings() + 3);
	r = ctl(sw, "-j limits p1", &err);
	CHECK(starts(r, "{\"port\":\"p1\",\"gso_max_size\":16000,"
			"\"gso_max_segs\":8,\"gro_max_size\":65536,"
			"\"gro_flush_timeout\":20000,\"gro\":false,"
			"\"napi\":false,"));
	CHECK(ends(r, ",\"device\":{\"mtu\":0,"
		      "\"gso_max_size\":0,\"gso_max_segs\":0}}\n"));
	/* A bad pair changes nothing, even after a good one. */
	r = ctl(sw, "limits p1 gso_max_segs 4 mtu 9000", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK(starts(r, "error: unknown setting 'mtu' (settings: "
			"gso_max_size, gso_max_segs, gro_max_size, "
			"gro_flush_timeout, gro, napi"));
	CHECK(ends(r, ")\n") && lines(r) == 1);
	CHECK_OK(voff_switch_port_info(sw, 1, &pi));
	CHECK_EQ(pi.limits.gso_max_segs, 8);
	r = ctl(sw, "limits p1 gso_max_segs -1", &err);
	CHECK_STR_EQ(r, "error: gso_max_segs: expected a number "
			"(1..65535 segments), not '-1'\n");
	r = ctl(sw, "limits p1 gso_max_size 5", &err);
	CHECK_EQ(err, -ERANGE);
	CHECK_STR_EQ(r, "error: gso_max_size: 5 is out of range "
			"(193..65554 bytes)\n");
	/* Above what GRO can build: refused, with the range. */
	r = ctl(sw, "limits p1 gro_max_size 70000", &err);
	CHECK_EQ(err, -ERANGE);
	CHECK_STR_EQ(r, "error: gro_max_size: 70000 is out of range "
			"(0..65536 bytes)\n");
	CHECK_OK(voff_switch_port_info(sw, 1, &pi));
	CHECK_EQ(pi.limits.gro_max_size, 65536);
	r = ctl(sw, "limits p1 napi on", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: napi: taken only when the port is opened "
			"(a port spec option)\n");
	r = ctl(sw, "limits p1 gro maybe", &err);
	CHECK_STR_EQ(r, "error: gro: expected on or off\n");
	r = ctl(sw, "limits p1 gro on gro_max_size 30000", &err);
	CHECK_OK(err);
	CHECK_OK(voff_switch_port_info(sw, 1, &pi));
	CHECK(pi.gro);
	CHECK_EQ(pi.limits.gro_max_size, 30000);
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
	r = ctl(sw, "-j fdb", &err);
	CHECK_STR_EQ(r, "[]\n");
	r = ctl(sw, "fdb x", &err);
	CHECK_STR_EQ(r, "error: unknown fdb subcommand 'x'\n");
	r = ctl(sw, "stats p0 p1", &err);
	CHECK_STR_EQ(r, "error: usage: stats [PORT]\n");
	r = ctl(sw, "help", &err);
	CHECK_OK(err);
	CHECK(starts(r, "ports                            list the ports\n"
			"ports add SPEC                   open and add a port "
			"(SPEC below)\n"));
	CHECK(strstr(r, "\nfeatures PORT [NAME on|off ...]  show or set "));
	CHECK(strstr(r, "\nsettings (limits PORT NAME VALUE, or ,NAME=VALUE "
			"in a SPEC):\n  gso_max_size=193..65554 bytes, "
			"default 65536\n"));
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

/* An owner's command: counts its calls, fails on "bad". */
static int echo(void *ctx, char **w, int n, FILE *out, bool json, char *err,
		size_t errlen)
{
	int *calls = ctx;

	(*calls)++;
	if (n && !strcmp(w[0], "bad")) {
		snprintf(err, errlen, "echo: %s is bad", w[0]);
		return -EINVAL;
	}
	if (n && !strcmp(w[0], "quiet"))
		return -EPERM;
	fprintf(out, json ? "[%d]\n" : "%d words\n", n);
	return 0;
}

static void t_owner_commands(void)
{
	static const struct voff_switch_ctl_cmd cmds[] = {
		{ "echo", "[WORD]", 0, 1, echo, "say how many words" },
		/* The library's commands win over an owner's. */
		{ "fdb", "", 0, 0, echo, "never run" },
	};
	struct voff_switch *sw = sw_new();
	int calls = 0, err;
	struct voff_switch_ctl_state st = {
		.cmds = cmds, .n_cmds = 2, .ctx = &calls,
	};
	const char *r;

	r = serve(sw, &st, "echo", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "0 words\n");
	r = serve(sw, &st, "-j echo x", &err);
	CHECK_STR_EQ(r, "[1]\n");
	r = serve(sw, &st, "echo x y", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: usage: echo [WORD]\n");
	r = serve(sw, &st, "echo bad", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: echo: bad is bad\n");
	r = serve(sw, &st, "-j echo quiet", &err);
	CHECK_EQ(err, -EPERM);
	CHECK_STR_EQ(r, "{\"error\":\"Operation not permitted\"}\n");
	r = serve(sw, &st, "fdb", &err);
	CHECK_OK(err);
	CHECK_EQ(calls, 4);
	CHECK_EQ(st.requests, 6);
	CHECK_EQ(st.failed, 3);
	r = serve(sw, &st, "help", &err);
	CHECK(strstr(r, "\nhelp                             this text\n"
			"echo [WORD]                      say how many words\n"));
	/* Without a server there is no owner. */
	r = ctl(sw, "echo", &err);
	CHECK_STR_EQ(r, "error: unknown command 'echo' (try help)\n");
	r = ctl(sw, "help", &err);
	CHECK(!strstr(r, "echo"));
	/* The running state as a configuration is text only. */
	r = ctl(sw, "-j save", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "{\"error\":\"save: a configuration is text (no "
			"-j)\"}\n");
	r = ctl(sw, "save", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "# port p0: not opened from a spec\n"
			"# port p1: not opened from a spec\n");
	voff_switch_free(sw);
}

/* A vxlan port's remotes and static entries, and the fdb's REMOTE column. */
static void t_vxlan(void)
{
	struct voff_switch *sw = sw_new();
	unsigned int p = 40000 + (unsigned int)(getpid() % 2000) * 4;
	char req[160], want[160];
	const char *r;
	int err;

	snprintf(req, sizeof(req), "ports add vxlan:42,local=127.0.0.1:%u,"
		 "remote=127.0.0.1:%u", p, p + 1);
	r = ctl(sw, req, &err);
	CHECK_OK(err);
	r = ctl(sw, "remotes vxlan42", &err);
	snprintf(want, sizeof(want), "REMOTE\n127.0.0.1:%u\n", p + 1);
	CHECK_STR_EQ(r, want);
	r = ctl(sw, "remotes add vxlan42 127.0.0.2", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "");
	r = ctl(sw, "-j remotes vxlan42", &err);
	snprintf(want, sizeof(want), "[{\"remote\":\"127.0.0.1:%u\"},"
		 "{\"remote\":\"127.0.0.2:4789\"}]\n", p + 1);
	CHECK_STR_EQ(r, want);
	r = ctl(sw, "remotes add vxlan42 127.0.0.2:4789", &err);
	CHECK_STR_EQ(r, "error: 127.0.0.2:4789: already a remote\n");
	CHECK_EQ(err, -EEXIST);
	r = ctl(sw, "remotes del vxlan42 127.0.0.3", &err);
	CHECK_STR_EQ(r, "error: 127.0.0.3: not a remote\n");
	r = ctl(sw, "remotes add vxlan42 ::1", &err);
	CHECK_STR_EQ(r, "error: ::1: another address family\n");
	r = ctl(sw, "remotes add vxlan42 nowhere", &err);
	CHECK_STR_EQ(r, "error: 'nowhere' is not ADDR[:PORT]\n");
	r = ctl(sw, "remotes p0", &err);
	CHECK_STR_EQ(r, "error: p0: not a vxlan port\n");
	r = ctl(sw, "remotes add vxlan42", &err);
	CHECK_STR_EQ(r, "error: usage: remotes add PORT ADDR[:PORT]\n");

	r = ctl(sw, "fdb add 02:00:00:00:00:0b vxlan42 127.0.0.2", &err);
	CHECK_OK(err);
	r = ctl(sw, "fdb add 02:00:00:00:00:0C p0", &err);
	CHECK_OK(err);
	r = ctl(sw, "fdb add ff:ff:ff:ff:ff:ff p0", &err);
	CHECK_STR_EQ(r, "error: 'ff:ff:ff:ff:ff:ff' is not a unicast MAC "
			"address\n");
	r = ctl(sw, "fdb add 02:00:00:00:00:0d p0 127.0.0.2", &err);
	CHECK_STR_EQ(r, "error: p0: not a vxlan port of that address "
			"family\n");
	r = ctl(sw, "fdb add 02:00:00:00:00:0d nope", &err);
	CHECK_STR_EQ(r, "error: no port 'nope'\n");
	r = ctl(sw, "fdb", &err);
	CHECK(strstr(r, "\n02:00:00:00:00:0b vxlan42          -    static "
			"127.0.0.2:4789\n"));
	CHECK(strstr(r, "\n02:00:00:00:00:0c p0               -    static "
			"-\n"));
	r = ctl(sw, "-j fdb", &err);
	CHECK(strstr(r, "{\"mac\":\"02:00:00:00:00:0b\",\"port\":\"vxlan42\","
			"\"vlan\":null,\"age\":0,\"static\":true,"
			"\"remote\":\"127.0.0.2:4789\"}"));
	r = ctl(sw, "-j fdb del 02:00:00:00:00:0b", &err);
	CHECK_STR_EQ(r, "{\"ok\":true}\n");
	r = ctl(sw, "fdb del 02:00:00:00:00:0b", &err);
	CHECK_STR_EQ(r, "error: no entry for 02:00:00:00:00:0b\n");
	CHECK_EQ(err, -ENOENT);
	r = ctl(sw, "fdb del 02:00:00:00:00", &err);
	CHECK_STR_EQ(r, "error: '02:00:00:00:00' is not a MAC address\n");
	r = ctl(sw, "remotes del vxlan42 127.0.0.2", &err);
	CHECK_OK(err);
	/* A vxlan port's own counters and its socket's, after the port's. */
	r = ctl(sw, "stats vxlan42", &err);
	CHECK_OK(err);
	CHECK(strstr(r, "\n  vxlan_tx_unicast 0\n"));
	CHECK(strstr(r, "\n  udp_tx_trains 0\n"));
	CHECK(strstr(r, "\n  vxlan_srcports 1\n"));
	r = ctl(sw, "-j stats vxlan42", &err);
	CHECK(strstr(r, ",\"vxlan_learned\":0,\"udp_tx_calls\":0,"));
	CHECK(strstr(r, ",\"udp_rx_held\":0,\"vxlan_srcports\":1}"));
	r = ctl(sw, "stats p0", &err);
	CHECK(!strstr(r, "vxlan_") && !strstr(r, "udp_"));
	voff_switch_free(sw);
}

CHECK_MAIN(CHECK_TEST(t_ports), CHECK_TEST(t_vxlan), CHECK_TEST(t_fdb), CHECK_TEST(t_features),
	   CHECK_TEST(t_limits), CHECK_TEST(t_stats_fdb_misc),
	   CHECK_TEST(t_owner_commands))
