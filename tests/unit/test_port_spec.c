/* SPDX-License-Identifier: MIT */
/*
 * test_port_spec.c - port specs (voff_port_spec_parse()) and the control
 * server policy (voff_switch_ctl_serve()): every field of accepted specs,
 * every class of refused one, namespaces that are not one path component,
 * and `ports add` refused with its reason and counted under a policy
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"

/* Whether @s gave setting @name; its value in *@v (0 when not given). */
static bool given(const struct voff_port_spec *s, const char *name,
		  uint64_t *v)
{
	const struct voff_switch_setting *set;

	for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++) {
		if (strcmp(set->name, name))
			continue;
		*v = (s->given & (1u << i)) ? s->value[i] : 0;
		return s->given & (1u << i);
	}
	CHECK_MSG(0, "no setting '%s'", name);
	return false;
}

static void t_accepted(void)
{
	uint64_t v;

	struct voff_port_spec s;

	CHECK_OK(voff_port_spec_parse(&s, "tap:tap0"));
	CHECK_EQ(s.cfg.kind, VOFF_PORT_TAP);
	CHECK_STR_EQ(s.cfg.name, "tap0");
	CHECK(s.cfg.netns == NULL && s.cfg.sink == NULL);
	CHECK_EQ(s.given, 0);
	CHECK_STR_EQ(s.err, "");
	CHECK_EQ(s.cfg.flags, VOFF_PORT_F_UP);
	CHECK_EQ(s.cfg.want, VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 |
				     VOFF_TUN_F_TSO6 |
				     VOFF_TUN_F_TSO_ECN |
				     VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6);

	CHECK_OK(voff_port_spec_parse(&s, "tun:t1@blue,gro=on,"
					  "gro_flush_timeout=0x10"));
	CHECK_EQ(s.cfg.kind, VOFF_PORT_TUN);
	CHECK_STR_EQ(s.cfg.name, "t1");
	CHECK_STR_EQ(s.cfg.netns, "blue");
	CHECK(given(&s, "gro", &v));
	CHECK_EQ(v, 1);
	CHECK(given(&s, "gro_flush_timeout", &v));
	CHECK_EQ(v, 16);
	CHECK(!given(&s, "gso_max_size", &v));

	CHECK_OK(voff_port_spec_parse(&s, "packet:eth0,gro=off,"
					  "gso_max_size=65536,gso_max_segs=64,"
					  "gro_max_size=010"));
	CHECK_EQ(s.cfg.kind, VOFF_PORT_PACKET);
	CHECK_EQ(s.cfg.flags, 0);
	CHECK(given(&s, "gro", &v));
	CHECK_EQ(v, 0);
	CHECK(given(&s, "gso_max_size", &v));
	CHECK_EQ(v, 65536);
	CHECK(given(&s, "gso_max_segs", &v));
	CHECK_EQ(v, 64);
	CHECK(given(&s, "gro_max_size", &v));
	CHECK_EQ(v, 8);
	/* 0 is a value like any other, not "leave alone". */
	CHECK_OK(voff_port_spec_parse(&s, "tap:z,gro_max_size=0"));
	CHECK(given(&s, "gro_max_size", &v));
	CHECK_EQ(v, 0);

	/* napi= sets or clears the port flag, TAP and TUN only. */
	CHECK_OK(voff_port_spec_parse(&s, "tap:t2,napi=on"));
	CHECK_EQ(s.cfg.flags, VOFF_PORT_F_UP | VOFF_PORT_F_NAPI);
	CHECK(given(&s, "napi", &v));
	CHECK_EQ(v, 1);
	CHECK_OK(voff_port_spec_parse(&s, "tun:t3@x,napi=on,napi=off"));
	CHECK_EQ(s.cfg.flags, VOFF_PORT_F_UP);

	/* "@NETNS" may close the spec too, after the options. */
	CHECK_OK(voff_port_spec_parse(&s, "vxlan:42,local=10.0.0.1,"
					  "remote=10.0.0.2@blue"));
	CHECK_EQ(s.cfg.kind, VOFF_PORT_VXLAN);
	CHECK_STR_EQ(s.cfg.netns, "blue");
	CHECK_OK(voff_port_spec_parse(&s, "tap:t4,gro=on@red"));
	CHECK_STR_EQ(s.cfg.name, "t4");
	CHECK_STR_EQ(s.cfg.netns, "red");
	CHECK(given(&s, "gro", &v));
	CHECK_EQ(v, 1);

	/* A capture file may hold '@'; only pcap takes a sink. */
	CHECK_OK(voff_port_spec_parse(&s, "pcap:a@b.pcap,sink=out=1.pcap"));
	CHECK_EQ(s.cfg.kind, VOFF_PORT_PCAP);
	CHECK_STR_EQ(s.cfg.name, "a@b.pcap");
	CHECK(s.cfg.netns == NULL);
	CHECK_STR_EQ(s.cfg.sink, "out=1.pcap");
	/* The strings live in the spec's own buffer. */
	CHECK(s.cfg.name >= s.buf && s.cfg.name < s.buf + sizeof(s.buf));
}

static void append(char *buf, size_t cap, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, cap - n, "%s, ", name);
}

/*
 * An unknown option lists the options of the spec's kind: the settings
 * that apply to it, in table order, then the kind's own (pcap's sink).
 */
static void t_unknown_options(void)
{
	static const struct {
		const char *spec, *opt;
		enum voff_port_kind kind;
	} cases[] = {
		{ "tap:x,mtu=1500", "mtu", VOFF_PORT_TAP },
		{ "tap:x,foo=1", "foo", VOFF_PORT_TAP },
		{ "pcap:x,foo=1", "foo", VOFF_PORT_PCAP },
		{ "tap:x,sink=/etc/passwd", "sink", VOFF_PORT_TAP },
		{ "packet:x,sink=y", "sink", VOFF_PORT_PACKET },
	};
	static const char shape[] = "unknown option 'sink' (options: "
				    "gso_max_size, gso_max_segs, "
				    "gro_max_size, gro_flush_timeout, gro";
	const struct voff_switch_setting *set;
	struct voff_port_spec s;
	char want[256];

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned int bit = 1u << cases[c].kind;

		snprintf(want, sizeof(want), "unknown option '%s' (options: ",
			 cases[c].opt);
		for (unsigned int i = 0; (set = voff_switch_setting_at(i)); i++)
			if (set->kinds & bit)
				append(want, sizeof(want), set->name);
		if (cases[c].kind == VOFF_PORT_PCAP)
			append(want, sizeof(want), "sink");
		/* The last ", " becomes the closing parenthesis. */
		strcpy(want + strlen(want) - 2, ")");
		CHECK_EQ(voff_port_spec_parse(&s, cases[c].spec), -EINVAL);
		CHECK_STR_EQ(s.err, want);
	}
	/* The shape, spelt out once (packet: no napi, no sink). */
	CHECK(!strncmp(s.err, shape, strlen(shape)));
	CHECK(!strstr(s.err, "napi"));
}

/* Every class of refusal, with what the message says is wrong. */
static void t_refused(void)
{
	static const struct {
		const char *spec, *err;
	} bad[] = {
		{ "", "expected KIND:NAME, not '' (kinds: tap, tun, packet, "
		      "pcap, vhost-user, vxlan)" },
		{ "tap", "expected KIND:NAME, not 'tap' (kinds: tap, tun, "
			 "packet, pcap, vhost-user, vxlan)" },
		{ "bogus:x", "unknown port kind 'bogus' (kinds: tap, tun, "
			     "packet, pcap, vhost-user, vxlan)" },
		{ "TAP:x", "unknown port kind 'TAP' (kinds: tap, tun, packet, "
			   "pcap, vhost-user, vxlan)" },
		{ "vhost-user:", "no socket name after 'vhost-user:'" },
		{ "tap:", "no interface name after 'tap:'" },
		{ "tap:,gro=on", "no interface name after 'tap:'" },
		{ "pcap:", "no file name after 'pcap:'" },
		{ "tap:x@", "no namespace after '@'" },
		{ "tap:x,gro=on@", "no namespace after '@'" },
		{ "tap:x@a,gro=on@b", "two namespaces ('@a' and '@b')" },
		{ "tap:x,gro=on@a/b", "namespace 'a/b' is not a name under "
				      "/var/run/netns" },
		{ "tap:@ns", "no interface name after 'tap:'" },
		{ "tap:x@a/b", "namespace 'a/b' is not a name under "
			       "/var/run/netns" },
		{ "tap:x@.", "namespace '.' is not a name under "
			     "/var/run/netns" },
		{ "tap:x@..", "namespace '..' is not a name under "
			      "/var/run/netns" },
		{ "tap:x@0123456789012345678901234567890123456789012345678901"
		  "234567890123", "namespace too long (max 63 bytes)" },
		{ "tap:0123456789abcdef", "interface name too long "
					  "(max 15 bytes)" },
		{ "packet:0123456789abcdef@ns", "interface name too long "
						"(max 15 bytes)" },
		{ "tap:x,gro", "option 'gro' without a value (gro=VALUE)" },
		{ "tap:x,gro=yes", "gro: expected on or off" },
		{ "tap:x1,gro=maybe", "gro: expected on or off" },
		{ "tap:x,gso_max_size=-1", "gso_max_size: expected a number "
					   "(193..65554 bytes), not '-1'" },
		{ "tap:x,gso_max_size=+1", "gso_max_size: expected a number "
					   "(193..65554 bytes), not '+1'" },
		{ "tap:x,gso_max_size=4294967296", "gso_max_size: 4294967296 "
						   "is out of range "
						   "(193..65554 bytes)" },
		{ "tap:x,gso_max_size=", "gso_max_size: expected a number "
					 "(193..65554 bytes), not ''" },
		{ "tap:x,gro_max_size=70000", "gro_max_size: 70000 is out of "
					      "range (0..65536 bytes)" },
		{ "pcap:x,sink=", "sink: no file name" },
		{ "tun:x,gro_flush_timeout=1e3", "gro_flush_timeout: expected "
						 "a number (0..4294967295000 "
						 "ns), not '1e3'" },
		{ "tap:x,gro_flush_timeout=4294967296000",
		  "gro_flush_timeout: 4294967296000 is out of range "
		  "(0..4294967295000 ns)" },
		{ "tap:x,", "empty option" },
		{ "tap:x,,gro=on", "empty option" },
		{ "tap:x,napi=1", "napi: expected on or off" },
		{ "tap:x,napi", "option 'napi' without a value (napi=VALUE)" },
		{ "packet:x,napi=on", "napi: not an option of packet ports" },
		{ "pcap:x,napi=off", "napi: not an option of pcap ports" },
	};
	struct voff_port_spec s;
	char longer[VOFF_PORT_SPEC_MAX + 2];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_MSG(voff_port_spec_parse(&s, bad[i].spec) == -EINVAL,
			  "accepted '%s'", bad[i].spec);
		CHECK_MSG(!strcmp(s.err, bad[i].err),
			  "'%s': said '%s', want '%s'", bad[i].spec, s.err,
			  bad[i].err);
	}
	CHECK_EQ(voff_port_spec_parse(NULL, "tap:x"), -EINVAL);
	CHECK_EQ(voff_port_spec_parse(&s, NULL), -EINVAL);
	CHECK_STR_EQ(s.err, "no spec");
	t_unknown_options();
	/* 15 bytes of interface name fit, 16 do not (above). */
	CHECK_OK(voff_port_spec_parse(&s, "tap:0123456789abcde"));
	/* The longest spec fits; one byte more does not. */
	memset(longer, 'n', sizeof(longer));
	memcpy(longer, "pcap:", 5);
	longer[VOFF_PORT_SPEC_MAX] = '\0';
	CHECK_OK(voff_port_spec_parse(&s, longer));
	CHECK_EQ(strlen(s.cfg.name), VOFF_PORT_SPEC_MAX - 5);
	longer[VOFF_PORT_SPEC_MAX] = 'n';
	longer[VOFF_PORT_SPEC_MAX + 1] = '\0';
	CHECK_EQ(voff_port_spec_parse(&s, longer), -EINVAL);
	CHECK_STR_EQ(s.err, "spec too long (max 255 bytes)");
	/* 63 bytes of namespace are one component, 64 are too many. */
	CHECK_OK(voff_port_spec_parse(&s, "tap:x@012345678901234567890123456"
					  "789012345678901234567890123456789"
					  "012"));
}

/* The table of kinds and how usage texts write each. */
static void t_kinds(void)
{
	static const char *const want[] = {
		"tap:NAME[@NETNS]", "tun:NAME[@NETNS]",
		"packet:IFNAME[@NETNS]", "pcap:FILE[,sink=FILE]",
		"vhost-user:PATH",
		"vxlan:VNI[@NETNS][,local=ADDR[:PORT]][,remote=ADDR[:PORT]]"
		"[,udp_csum=on|off][,udp_offload=on|off]"
		"[,srcports=N|MIN-MAX]",
	};
	const struct voff_port_spec_kind *k;
	char buf[128];
	unsigned int i;

	for (i = 0; (k = voff_port_spec_kind_at(i)); i++) {
		CHECK_LT(i, 6);
		CHECK_EQ(voff_port_spec_kind_usage(k, buf, sizeof(buf)),
			 (int)strlen(want[i]));
		CHECK_STR_EQ(buf, want[i]);
		CHECK_EQ(k->files, k->kind == VOFF_PORT_PCAP ||
					   k->kind == VOFF_PORT_VHOST);
		CHECK_EQ(k->netns, k->kind != VOFF_PORT_PCAP &&
					   k->kind != VOFF_PORT_VHOST);
	}
	CHECK_EQ(i, 6);
	/* A short buffer is cut, and the length needed still reported. */
	k = voff_port_spec_kind_at(3);
	CHECK_EQ(voff_port_spec_kind_usage(k, buf, 8), 21);
	CHECK_STR_EQ(buf, "pcap:FI");
}

static struct voff_switch *sw_new(void)
{
	struct voff_switch_config c = { .pool_size = 16 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_switch *sw;
	struct voff_port *p[2];

	CHECK_OK(voff_switch_new(&sw, &c));
	CHECK_OK(voff_port_mem_pair(&p[0], &p[1], &pc));
	CHECK_OK(voff_switch_add(sw, p[0], "p0", NULL));
	voff_port_close(p[1]);
	return sw;
}

/* Run @req under @st (NULL: no server); the reply, the result in *@err. */
static const char *serve(struct voff_switch *sw,
			 struct voff_switch_ctl_state *st, const char *req,
			 int *err)
{
	static char reply[8192];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f != NULL);
	if (st)
		*err = voff_switch_ctl_serve(sw, st, req, strlen(req), f);
	else
		*err = voff_switch_ctl(sw, req, strlen(req), f);
	fclose(f);
	CHECK_LT(len, sizeof(reply));
	memcpy(reply, out, len + 1);
	free(out);
	return reply;
}

static void t_policy(void)
{
	struct voff_switch *sw = sw_new();
	struct voff_switch_ctl_state st = {
		.deny = VOFF_SWITCH_CTL_DENY_FILES,
	};
	struct voff_switch_ctl_counter peers = { "refused_peers", 0 };
	const char *r;
	int err;

	r = serve(sw, &st, "ports add pcap:/tmp/voff-never.pcap", &err);
	CHECK_EQ(err, -EPERM);
	CHECK_STR_EQ(r, "error: ports add: refused: pcap ports name files "
			"and are only taken from the command line\n");
	/* A vhost-user socket is a file created where the client says. */
	r = serve(sw, &st, "ports add vhost-user:/tmp/voff-never.sock", &err);
	CHECK_EQ(err, -EPERM);
	CHECK_STR_EQ(r, "error: ports add: refused: vhost-user ports name "
			"files and are only taken from the command line\n");
	CHECK(access("/tmp/voff-never.sock", F_OK) != 0);
	r = serve(sw, &st, "ports add tap:x@a/b", &err);
	CHECK_EQ(err, -EINVAL);
	CHECK_STR_EQ(r, "error: ports add: tap:x@a/b: namespace 'a/b' is not "
			"a name under /var/run/netns\n");
	st.deny |= VOFF_SWITCH_CTL_DENY_ADD;
	r = serve(sw, &st, "-j ports add tap:x", &err);
	CHECK_EQ(err, -EPERM);
	CHECK_STR_EQ(r, "{\"error\":\"ports add: refused: this switch "
			"dropped the privileges to open ports\"}\n");
	/* The owner's own counters are shown after the library's. */
	r = serve(sw, &st, "server", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "requests       5\nfailed         4\n"
			"refused        3\n"
			"deny_add       true\ndeny_files     true\n");
	peers.value = 3;
	st.extra = &peers;
	st.n_extra = 1;
	r = serve(sw, &st, "server", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "requests       6\nfailed         4\n"
			"refused        3\nrefused_peers  3\n"
			"deny_add       true\ndeny_files     true\n");
	r = serve(sw, &st, "-j server", &err);
	CHECK_OK(err);
	CHECK_STR_EQ(r, "{\"requests\":7,\"failed\":4,\"refused\":3,"
			"\"refused_peers\":3,\"deny_add\":true,"
			"\"deny_files\":true}\n");
	/* Help offers only the kinds this server takes. */
	st.deny = VOFF_SWITCH_CTL_DENY_FILES;
	r = serve(sw, &st, "help", &err);
	CHECK_OK(err);
	CHECK(strstr(r, "\nSPEC: one of\n  tap:NAME[@NETNS]\n"
			"  tun:NAME[@NETNS]\n  packet:IFNAME[@NETNS]\n"
			"  vxlan:VNI[@NETNS][,local=ADDR[:PORT]]"
			"[,remote=ADDR[:PORT]][,udp_csum=on|off]"
			"[,udp_offload=on|off][,srcports=N|MIN-MAX]\n"
			"followed by"));
	CHECK(!strstr(r, "pcap"));
	CHECK(!strstr(r, "vhost-user"));
	CHECK(strstr(r, "\nserver "));
	st.deny = VOFF_SWITCH_CTL_DENY_FILES | VOFF_SWITCH_CTL_DENY_ADD;
	r = serve(sw, &st, "help", &err);
	CHECK(strstr(r, "\nSPEC: none; this switch dropped the privileges "
			"to open ports\n"));
	CHECK(!strstr(r, "tap:NAME"));
	r = serve(sw, NULL, "help", &err);
	CHECK(strstr(r, "  pcap:FILE[,sink=FILE]\n"));
	CHECK(!strstr(r, "\nserver "));
	/* Without a server, `server` is no command. */
	CHECK_EQ(voff_switch_ctl(sw, "server", 6, stderr), -EINVAL);
	CHECK_EQ(voff_switch_ctl_serve(sw, NULL, "help", 4, stderr), -EINVAL);
	voff_switch_free(sw);
}

CHECK_MAIN(CHECK_TEST(t_accepted), CHECK_TEST(t_refused),
	   CHECK_TEST(t_kinds), CHECK_TEST(t_policy))
