/* SPDX-License-Identifier: MIT */
/*
 * test_switch_conf.c - configuration files of the switch (switch_conf.c):
 * lines read into a configuration with exact messages for every class of
 * bad line (and nothing kept from a file with one), applied to a switch
 * of pcap ports, written back and read again to the same text, applied
 * again as a difference that keeps unchanged ports with their counters
 * and MAC entries, refusals that change nothing, and the events all of
 * it reports (no privileges: pcap and memory ports)
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <voff/err.h>
#include <voff/feat.h>
#include <voff/port.h>
#include <voff/switch.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "check.h"
#include "switch_int.h"

static char dir[64];

/* The test's directory goes when its process ends (files only inside). */
static void remove_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* The test's own directory, made on first use. */
static const char *tmpdir(void)
{
	if (!*dir) {
		snprintf(dir, sizeof(dir), "/tmp/voff-conf-XXXXXX");
		CHECK(mkdtemp(dir) != NULL);
		atexit(remove_dir);
	}
	return dir;
}

/*
 * A copy of the sample capture at DIR/NAME (its first @max bytes: 24 is a
 * capture without frames); Return: its path (static).
 */
static const char *pcap_cut(const char *name, size_t max)
{
	static char path[4][128];
	static unsigned int k;
	const char *data = getenv("VOFF_DATA");
	char src[512], *p = path[k++ % 4];
	FILE *in, *out;
	char buf[4096];
	size_t n;

	snprintf(src, sizeof(src), "%s/sample.pcap", data ? data : "tests/data");
	snprintf(p, sizeof(path[0]), "%s/%s", tmpdir(), name);
	in = fopen(src, "rb");
	CHECK(in != NULL);
	out = fopen(p, "wb");
	CHECK(out != NULL);
	while (max && (n = fread(buf, 1, sizeof(buf) < max ? sizeof(buf)
							     : max, in)) > 0) {
		CHECK_EQ(fwrite(buf, 1, n, out), n);
		max -= n;
	}
	fclose(in);
	CHECK_OK(fclose(out));
	return p;
}

static const char *pcap_file(const char *name)
{
	return pcap_cut(name, SIZE_MAX);
}

/* Read @text as file @where into @c; Return: the result. */
static int conf_text(struct voff_switch_conf *c, const char *text,
		     const char *where)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	CHECK(f != NULL);
	err = voff_switch_conf_read(c, f, where);
	fclose(f);
	return err;
}

static unsigned int nports(const struct voff_switch_conf *c)
{
	unsigned int n = 0;

	while (voff_switch_conf_port(c, n))
		n++;
	return n;
}

/* The running state as a configuration (static buffer). */
static const char *saved(const struct voff_switch *sw)
{
	static char text[8192];
	FILE *f = fmemopen(text, sizeof(text), "w");

	CHECK(f != NULL);
	CHECK_OK(voff_switch_conf_write(sw, f));
	CHECK_LT(ftell(f), (long)sizeof(text) - 1);
	fclose(f);
	return text;
}

static uint64_t get(const struct voff_switch *sw, const char *port,
		    const char *name)
{
	int id = voff_switch_find(sw, port);
	uint64_t v = 0;

	CHECK_GE(id, 0);
	CHECK_OK(voff_switch_get(sw, (unsigned int)id, name, &v));
	return v;
}

static unsigned int setting_index(const char *name)
{
	const struct voff_switch_setting *s;
	unsigned int i;

	for (i = 0; (s = voff_switch_setting_at(i)); i++)
		if (!strcmp(s->name, name))
			return i;
	CHECK_MSG(0, "no setting %s", name);
	return 0;
}

static void t_read(void)
{
	struct voff_switch_conf *c;
	const struct voff_port_spec *s;
	unsigned int gro = setting_index("gro"),
		     size = setting_index("gso_max_size");

	CHECK_OK(voff_switch_conf_new(&c));
	CHECK_OK(conf_text(c,
			   "# a comment\n"
			   "\n"
			   "   ports add tap:vt0@ns0,gro=on   # trailing\n"
			   "ports add\ttun:t1,napi=on\r\n"
			   "features vt0 tso off gro off\n"
			   "limits vt0 gso_max_size 32768 gso_max_size 0x9000\n"
			   "limits t1 rx_budget 8\n",
			   "x.conf"));
	CHECK_STR_EQ(voff_switch_conf_error(c), "");
	CHECK_EQ(nports(c), 2);
	s = voff_switch_conf_port(c, 0);
	CHECK_STR_EQ(s->cfg.name, "vt0");
	CHECK_STR_EQ(s->cfg.netns, "ns0");
	/* The last value wins: gro off (a feature), 0x9000 (the second). */
	CHECK(s->given & (1u << gro));
	CHECK_EQ(s->value[gro], 0);
	CHECK_EQ(s->value[size], 0x9000);
	s = voff_switch_conf_port(c, 1);
	CHECK_EQ(s->cfg.kind, VOFF_PORT_TUN);
	CHECK(s->cfg.flags & VOFF_PORT_F_NAPI);
	CHECK_EQ(s->value[setting_index("rx_budget")], 8);
	CHECK(voff_switch_conf_port(c, 2) == NULL);
	voff_switch_conf_free(c);
}

/* @line, alone after two good lines, is refused with @msg. */
static void refused(const char *line, int err, const char *msg)
{
	struct voff_switch_conf *c;
	char text[2048];

	CHECK_OK(voff_switch_conf_new(&c));
	snprintf(text, sizeof(text), "ports add tap:vt0\n# two\n%s\n", line);
	CHECK_EQ(conf_text(c, text, "/etc/voff/x.conf"), err);
	CHECK_STR_EQ(voff_switch_conf_error(c), msg);
	/* The file's good lines are not kept either. */
	CHECK_EQ(nports(c), 0);
	voff_switch_conf_free(c);
}

static void t_refused(void)
{
	char line[1100];

	refused("limits vt0 gro_max_size 70000", -ERANGE,
		"/etc/voff/x.conf:3: gro_max_size: 70000 is out of range "
		"(0..65536 bytes)");
	refused("limits vt0 gro maybe", -EINVAL,
		"/etc/voff/x.conf:3: gro: expected on or off");
	refused("limits vt0 napi on", -EINVAL,
		"/etc/voff/x.conf:3: napi: taken only when the port is "
		"opened (a port spec option)");
	refused("limits vt0 bogus 1", -EINVAL,
		"/etc/voff/x.conf:3: unknown setting 'bogus' (settings: "
		"gso_max_size, gso_max_segs, gro_max_size, gro_flush_timeout, "
		"gro, napi, rx_ring, rx_budget, rx_backoff, port_retry)");
	refused("limits vt0 gso_max_size", -EINVAL,
		"/etc/voff/x.conf:3: limits: NAME VALUE pairs expected");
	refused("limits vt1 gso_max_size 2000", -ENOENT,
		"/etc/voff/x.conf:3: no port 'vt1' declared above");
	refused("features vt0 frob on", -ENOENT,
		"/etc/voff/x.conf:3: unknown feature 'frob'");
	refused("features vt0 tso", -EINVAL,
		"/etc/voff/x.conf:3: features: NAME on|off pairs expected");
	refused("ports add tap:vt0@blue", -EEXIST,
		"/etc/voff/x.conf:3: port 'vt0' is declared twice (first at "
		"/etc/voff/x.conf:1)");
	refused("ports add tap:x,gro=maybe", -EINVAL,
		"/etc/voff/x.conf:3: tap:x,gro=maybe: gro: expected on or off");
	refused("ports add bogus:x", -EINVAL,
		"/etc/voff/x.conf:3: bogus:x: unknown port kind 'bogus' "
		"(kinds: tap, tun, packet, pcap, vhost-user, vxlan)");
	refused("stats", -EINVAL,
		"/etc/voff/x.conf:3: 'stats' is not a configuration request "
		"(a file takes: ports add, features, limits, fdb add)");
	refused("ports del vt0", -EINVAL,
		"/etc/voff/x.conf:3: 'ports del' is not a configuration "
		"request (a file takes: ports add, features, limits, fdb add)");
	refused("frob", -EINVAL,
		"/etc/voff/x.conf:3: unknown command 'frob' (try help)");
	refused("-j ports add tap:y", -EINVAL,
		"/etc/voff/x.conf:3: -j: a configuration line is a request "
		"without client options");
	refused("ports add tap:y\001", -EINVAL,
		"/etc/voff/x.conf:3: line is not one printable line");
	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	refused(line, -E2BIG,
		"/etc/voff/x.conf:3: line too long (max 1024 bytes)");
}

/* A good file read after a bad one keeps what was there before it. */
static void t_read_atomic(void)
{
	struct voff_switch_conf *c;

	CHECK_OK(voff_switch_conf_new(&c));
	CHECK_OK(voff_switch_conf_line(c, "ports add tap:a", 15, "--port", 0));
	CHECK_EQ(conf_text(c, "limits a gro on\nports add tap:a\n", "f"),
		 -EEXIST);
	CHECK_STR_EQ(voff_switch_conf_error(c),
		     "f:2: port 'a' is declared twice (first at --port)");
	CHECK_EQ(nports(c), 1);
	/* The limits line of the refused file did not stay either. */
	CHECK_EQ(voff_switch_conf_port(c, 0)->given, 0);
	CHECK_EQ(voff_switch_conf_line(c, "limits b gro on", 15, "--port", 0),
		 -ENOENT);
	CHECK_STR_EQ(voff_switch_conf_error(c),
		     "--port: no port 'b' declared above");
	voff_switch_conf_free(c);
}

/*
 * A vxlan port is vxlanVNI in a file too: its limits line finds it, and a
 * copy of the configuration (a reload keeps one) still names it so.
 */
static void t_vxlan_name(void)
{
	struct voff_switch_conf *c;
	const struct voff_port_spec *s;

	CHECK_OK(voff_switch_conf_new(&c));
	CHECK_OK(conf_text(c, "ports add vxlan:42,local=192.0.2.1\n"
			      "limits vxlan42 gro on\n", "f"));
	CHECK_EQ(nports(c), 1);
	s = voff_switch_conf_port(c, 0);
	CHECK_STR_EQ(s->cfg.name, "vxlan42");
	CHECK(s->cfg.name == s->label && s->cfg.vxlan == &s->vxlan);
	CHECK_EQ(s->vxlan.vni, 42);
	CHECK_NE(s->given, 0);
	voff_switch_conf_free(c);
}

/* A switch made from @text (read as "t.conf"). */
static struct voff_switch *switch_from(const char *text,
				       struct voff_switch_conf_result *r)
{
	struct voff_switch_conf *c;
	struct voff_switch *sw;

	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_switch_conf_new(&c));
	CHECK_OK(conf_text(c, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, c, 0, r));
	voff_switch_conf_free(c);
	return sw;
}

static void t_save_roundtrip(void)
{
	const char *a = pcap_file("a.pcap"), *b = pcap_file("b.pcap");
	struct voff_switch_conf_result r;
	struct voff_switch *sw, *sw2;
	char text[4096], want[4096], first[8192];

	snprintf(text, sizeof(text),
		 "ports add pcap:%s,sink=%s/a-out.pcap,gro=on\n"
		 "ports add pcap:%s\n"
		 "limits %s gso_max_size 32768 gro_flush_timeout 20000\n"
		 "features %s tso off tx-checksum-ip-generic off gro off\n"
		 "features %s sg on\n",
		 a, dir, b, a, b, b);
	sw = switch_from(text, &r);
	CHECK_EQ(r.added, 2);
	CHECK_EQ(r.removed + r.changed + r.kept + r.recovered, 0);
	CHECK_EQ(get(sw, a, "gro"), 1);
	CHECK_EQ(get(sw, a, "gso_max_size"), 32768);
	CHECK_EQ(get(sw, b, "gro"), 0);
	/* Settings at their default, features as by default: not written. */
	snprintf(want, sizeof(want),
		 "ports add pcap:%s,sink=%s/a-out.pcap\n"
		 "limits %s gso_max_size 32768 gro_flush_timeout 20000 gro on\n"
		 "ports add pcap:%s\n"
		 "features %s tx-checksum-ip-generic off "
		 "tx-tcp-segmentation off tx-tcp-ecn-segmentation off "
		 "tx-tcp-mangleid-segmentation off tx-tcp6-segmentation off "
		 "tx-tcp-accecn-segmentation off\n",
		 a, dir, a, b, b);
	snprintf(first, sizeof(first), "%s", saved(sw));
	CHECK_STR_EQ(first, want);
	/* Read back into a new switch, written again: the same text. */
	sw2 = switch_from(first, &r);
	CHECK_EQ(r.added, 2);
	CHECK_STR_EQ(saved(sw2), first);
	/* And through the control request. */
	{
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		CHECK_OK(voff_switch_ctl(sw2, "save", 4, f));
		fclose(f);
		CHECK_STR_EQ(out, first);
		free(out);
	}
	voff_switch_free(sw2);
	voff_switch_free(sw);
}

/* Request @req of the control language on @sw; Return: its result. */
static int ctl(struct voff_switch *sw, const char *req)
{
	FILE *f = fopen("/dev/null", "w");
	int err;

	CHECK(f != NULL);
	err = voff_switch_ctl(sw, req, strlen(req), f);
	fclose(f);
	return err;
}

/* The remotes of port vxlan42 of @sw, as "A B ..." (static buffer). */
static const char *remotes(const struct voff_switch *sw)
{
	static char text[512];
	union voff_udp_addr a[VOFF_VXLAN_REMOTES_MAX];
	int id = voff_switch_find(sw, "vxlan42");
	unsigned int n;
	size_t at = 0;

	CHECK_GE(id, 0);
	n = voff_port_vxlan_remotes(voff_switch_port(sw, (unsigned int)id), a,
				    VOFF_VXLAN_REMOTES_MAX);
	text[0] = '\0';
	for (unsigned int i = 0; i < n; i++) {
		char buf[64];

		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s",
				       i ? " " : "",
				       voff_udp_addr_format(&a[i], buf,
							    sizeof(buf)));
	}
	return text;
}

/*
 * Remotes and static MAC entries changed at run time are saved: the spec
 * carries the remotes as they are, `fdb add` lines the static entries;
 * reading it back into a new switch restores both, and a reload of the
 * running switch puts back the saved remotes instead of refusing the
 * changed spec.
 */
static void t_save_vxlan(void)
{
	unsigned int p = 30000 + (unsigned int)(getpid() % 2000) * 8;
	struct voff_switch_conf_result r;
	struct voff_switch_conf *c;
	struct voff_switch *sw, *sw2;
	struct voff_switch_fdb_entry e[4];
	char text[512], req[128], want[512], first[8192];

	snprintf(text, sizeof(text),
		 "ports add vxlan:42,local=127.0.0.1:%u,remote=127.0.0.1:%u\n",
		 p, p + 1);
	sw = switch_from(text, &r);
	CHECK_EQ(r.added, 1);
	snprintf(req, sizeof(req), "remotes add vxlan42 127.0.0.1:%u", p + 2);
	CHECK_OK(ctl(sw, req));
	snprintf(req, sizeof(req), "remotes del vxlan42 127.0.0.1:%u", p + 1);
	CHECK_OK(ctl(sw, req));
	snprintf(req, sizeof(req),
		 "fdb add 02:00:00:00:00:0b vxlan42 127.0.0.1:%u", p + 3);
	CHECK_OK(ctl(sw, req));
	snprintf(first, sizeof(first), "%s", saved(sw));
	snprintf(want, sizeof(want),
		 "ports add vxlan:42,local=127.0.0.1:%u,remote=127.0.0.1:%u\n"
		 "fdb add 02:00:00:00:00:0b vxlan42 127.0.0.1:%u\n",
		 p, p + 2, p + 3);
	CHECK_STR_EQ(first, want);

	/* A new switch from it: the same remotes, the same static entry. */
	voff_switch_free(sw);
	sw2 = switch_from(first, &r);
	CHECK_EQ(r.added, 1);
	snprintf(want, sizeof(want), "127.0.0.1:%u", p + 2);
	CHECK_STR_EQ(remotes(sw2), want);
	CHECK_EQ(voff_switch_fdb(sw2, e, 4), 1);
	CHECK(e[0].is_static);
	CHECK_EQ(ntohs(e[0].remote.in4.sin_port), p + 3);
	CHECK_STR_EQ(saved(sw2), first);

	/* Changed again, then reloaded: the saved remotes come back. */
	snprintf(req, sizeof(req), "remotes add vxlan42 127.0.0.1:%u", p + 4);
	CHECK_OK(ctl(sw2, req));
	CHECK_OK(ctl(sw2, "fdb del 02:00:00:00:00:0b"));
	CHECK_OK(voff_switch_conf_new(&c));
	CHECK_OK(conf_text(c, first, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw2, c, 0, &r));
	CHECK_EQ(r.changed, 1);
	CHECK_EQ(r.added + r.removed, 0);
	CHECK_STR_EQ(remotes(sw2), want);
	CHECK_STR_EQ(saved(sw2), first);
	voff_switch_conf_free(c);

	/* fdb lines name a declared port, and a REMOTE only for vxlan. */
	CHECK_OK(voff_switch_conf_new(&c));
	CHECK_EQ(conf_text(c, "fdb add 02:00:00:00:00:0b vxlan42\n", "f"),
		 -ENOENT);
	CHECK_STR_EQ(voff_switch_conf_error(c),
		     "f:1: no port 'vxlan42' declared above");
	CHECK_EQ(conf_text(c, "ports add vxlan:42,local=127.0.0.1\n"
			      "fdb add 03:00:00:00:00:0b vxlan42\n", "f"),
		 -EINVAL);
	CHECK_STR_EQ(voff_switch_conf_error(c),
		     "f:2: '03:00:00:00:00:0b' is not a unicast MAC address");
	voff_switch_conf_free(c);
	voff_switch_free(sw2);
}

/* Run steps until the pcap ports have delivered their files. */
static void run(struct voff_switch *sw)
{
	for (int i = 0; i < 16; i++)
		CHECK_GE(voff_switch_poll(sw, 0), 0);
}

static void t_apply_difference(void)
{
	/* Only a delivers frames: every MAC entry is a's. */
	const char *a = pcap_file("a.pcap"), *b = pcap_cut("b.pcap", 24),
		   *c = pcap_cut("c.pcap", 24);
	struct voff_switch_conf_result r;
	struct voff_switch_conf *conf;
	struct voff_switch_stats st0, st1;
	struct voff_switch *sw;
	char text[4096];
	unsigned int fdb0, fdb1;
	int ida;

	snprintf(text, sizeof(text),
		 "ports add pcap:%s,sink=%s/a-out.pcap\nports add pcap:%s\n",
		 a, dir, b);
	sw = switch_from(text, &r);
	run(sw);
	ida = voff_switch_find(sw, a);
	CHECK_OK(voff_switch_stats(sw, (unsigned int)ida, &st0));
	CHECK_GT(st0.port.rx_packets, 0);
	fdb0 = voff_switch_fdb(sw, NULL, 0);
	CHECK_GT(fdb0, 0);

	/* a changes a setting, b goes, c comes. */
	snprintf(text, sizeof(text),
		 "ports add pcap:%s,sink=%s/a-out.pcap\n"
		 "limits %s gso_max_segs 20\n"
		 "ports add pcap:%s\n",
		 a, dir, a, c);
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, &r));
	CHECK_EQ(r.added, 1);
	CHECK_EQ(r.removed, 1);
	CHECK_EQ(r.changed, 1);
	CHECK_EQ(r.kept, 0);
	CHECK_EQ(voff_switch_find(sw, a), ida);
	CHECK_EQ(voff_switch_find(sw, b), -ENOENT);
	CHECK_GE(voff_switch_find(sw, c), 0);
	CHECK_EQ(get(sw, a, "gso_max_segs"), 20);
	/* a kept its counters and its MAC entries (b's went with b). */
	CHECK_OK(voff_switch_stats(sw, (unsigned int)ida, &st1));
	CHECK_EQ(st1.port.rx_packets, st0.port.rx_packets);
	CHECK_EQ(st1.port.tx_packets, st0.port.tx_packets);
	fdb1 = voff_switch_fdb(sw, NULL, 0);
	CHECK_EQ(fdb1, fdb0);

	/* The same file again: nothing to do. */
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, &r));
	CHECK_EQ(r.added + r.removed + r.changed, 0);
	CHECK_EQ(r.kept, 2);
	voff_switch_conf_free(conf);

	/* A setting left out goes back to its default. */
	snprintf(text, sizeof(text),
		 "ports add pcap:%s,sink=%s/a-out.pcap\nports add pcap:%s\n",
		 a, dir, c);
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, &r));
	CHECK_EQ(r.changed, 1);
	CHECK_EQ(r.kept, 1);
	CHECK_EQ(get(sw, a, "gso_max_segs"), 65535);
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
}

/* A refused plan changes nothing, whatever else the file says. */
static void t_apply_refused(void)
{
	const char *a = pcap_file("a.pcap"), *b = pcap_file("b.pcap");
	struct voff_switch_conf_result r;
	struct voff_switch_conf *conf;
	struct voff_switch *sw;
	char text[4096], before[8192];

	snprintf(text, sizeof(text),
		 "ports add pcap:%s\nlimits %s rx_budget 4\nports add pcap:%s\n",
		 a, a, b);
	sw = switch_from(text, &r);
	snprintf(before, sizeof(before), "%s", saved(sw));

	/* a with a sink it was not opened with; b gone; rx_budget 9. */
	snprintf(text, sizeof(text),
		 "ports add pcap:%s\nlimits %s rx_budget 9\n"
		 "ports add pcap:%s,sink=%s/x.pcap\n", b, b, a, dir);
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_EQ(voff_switch_conf_apply(sw, conf, 0, &r), -EBUSY);
	snprintf(text, sizeof(text),
		 "t.conf:3: port '%s': runs as 'pcap:%s', not "
		 "'pcap:%s,sink=%s/x.pcap'; what a port is opened with cannot "
		 "change while it runs (after `ports del %s` it is "
		 "re-created)", a, a, a, dir, a);
	CHECK_STR_EQ(voff_switch_conf_error(conf), text);
	CHECK_STR_EQ(saved(sw), before);
	CHECK_EQ(access(text, F_OK), -1);
	voff_switch_conf_free(conf);

	/* A switch that may not open ports: a new port is refused. */
	snprintf(text, sizeof(text), "ports add pcap:%s\nports add pcap:%s\n",
		 a, pcap_file("c.pcap"));
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_EQ(voff_switch_conf_apply(sw, conf, VOFF_SWITCH_CTL_DENY_ADD,
					&r), -EPERM);
	snprintf(text, sizeof(text),
		 "t.conf:2: port '%s/c.pcap': cannot open it: this switch "
		 "dropped the privileges to open ports", dir);
	CHECK_STR_EQ(voff_switch_conf_error(conf), text);
	CHECK_STR_EQ(saved(sw), before);
	voff_switch_conf_free(conf);

	/* A port the kernel will not open: reported with its line. */
	CHECK_OK(voff_switch_conf_new(&conf));
	snprintf(text, sizeof(text), "ports add pcap:%s\n\n"
		 "ports add pcap:%s/missing.pcap\n", a, dir);
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_EQ(voff_switch_conf_apply(sw, conf, 0, &r), -ENOENT);
	snprintf(text, sizeof(text), "t.conf:3: port '%s/missing.pcap': No "
		 "such file or directory", dir);
	CHECK_STR_EQ(voff_switch_conf_error(conf), text);
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
}

/* ---- events ---------------------------------------------------------- */

struct seen {
	unsigned int n;
	struct {
		enum voff_switch_event_type type;
		char name[160];
		char spec[260];
		char setting[32];
		uint64_t old_value, new_value;
		int err;
	} ev[64];
};

static void record(void *ctx, const struct voff_switch_event *ev)
{
	struct seen *s = ctx;

	CHECK_LT(s->n, 64);
	s->ev[s->n].type = ev->type;
	snprintf(s->ev[s->n].name, sizeof(s->ev[0].name), "%s", ev->name);
	snprintf(s->ev[s->n].spec, sizeof(s->ev[0].spec), "%s", ev->spec);
	snprintf(s->ev[s->n].setting, sizeof(s->ev[0].setting), "%s",
		 ev->setting ? ev->setting->name : "");
	s->ev[s->n].old_value = ev->old_value;
	s->ev[s->n].new_value = ev->new_value;
	s->ev[s->n].err = ev->err;
	s->n++;
}

static void t_events(void)
{
	static const char *const reqs[] = {
		"limits m0 gso_max_size 9000 gso_max_size 9000",
		"features m0 tso off", "features m0 tso off", "ports del m0",
	};
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_port *p, *peer;
	struct voff_switch *sw;
	struct seen s = { 0 };
	char spec[300], *out = NULL;
	size_t len = 0;
	uint64_t tso;
	FILE *f;
	unsigned int id;

	CHECK_STR_EQ(voff_switch_event_name(VOFF_SWITCH_EV_PORT_ADDED),
		     "port_added");
	CHECK_STR_EQ(voff_switch_event_name(VOFF_SWITCH_EV__COUNT), "?");
	CHECK_OK(voff_switch_new(&sw, NULL));
	voff_switch_set_event_cb(sw, record, &s);
	CHECK_OK(voff_port_mem_pair(&p, &peer, &pc));
	CHECK_OK(voff_switch_add(sw, p, "m0", &id));
	snprintf(spec, sizeof(spec), "pcap:%s,gro=on", pcap_file("e.pcap"));
	CHECK_OK(voff_switch_add_spec(sw, spec, NULL));
	f = open_memstream(&out, &len);
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++)
		CHECK_OK(voff_switch_ctl(sw, reqs[i], strlen(reqs[i]), f));
	fclose(f);
	free(out);

	CHECK_EQ(s.n, 6);
	CHECK_EQ(s.ev[0].type, VOFF_SWITCH_EV_PORT_ADDED);
	CHECK_STR_EQ(s.ev[0].name, "m0");
	CHECK_STR_EQ(s.ev[0].spec, "");
	/* The spec's port, then its gro setting. */
	CHECK_EQ(s.ev[1].type, VOFF_SWITCH_EV_PORT_ADDED);
	snprintf(spec, sizeof(spec), "pcap:%s/e.pcap", dir);
	CHECK_STR_EQ(s.ev[1].spec, spec);
	CHECK_EQ(s.ev[2].type, VOFF_SWITCH_EV_SETTING);
	CHECK_STR_EQ(s.ev[2].setting, "gro");
	CHECK_EQ(s.ev[2].old_value, 0);
	CHECK_EQ(s.ev[2].new_value, 1);
	/* A value set twice, a feature set twice: one event each. */
	CHECK_EQ(s.ev[3].type, VOFF_SWITCH_EV_SETTING);
	CHECK_STR_EQ(s.ev[3].name, "m0");
	CHECK_STR_EQ(s.ev[3].setting, "gso_max_size");
	CHECK_EQ(s.ev[3].old_value, 65536);
	CHECK_EQ(s.ev[3].new_value, 9000);
	CHECK_EQ(s.ev[4].type, VOFF_SWITCH_EV_FEATURES);
	CHECK_OK(voff_feat_lookup("tso", &tso));
	CHECK(s.ev[4].old_value & voff_feat_bit(VOFF_FEAT_TSO));
	CHECK_EQ(s.ev[4].new_value, s.ev[4].old_value & ~tso);
	CHECK_EQ(s.ev[5].type, VOFF_SWITCH_EV_PORT_REMOVED);
	CHECK_STR_EQ(s.ev[5].name, "m0");
	voff_port_close(peer);
	/* No callback, no event; freeing reports nothing. */
	voff_switch_set_event_cb(sw, NULL, NULL);
	CHECK_OK(voff_switch_set(sw, 1, "rx_budget", 3));
	voff_switch_set_event_cb(sw, record, &s);
	voff_switch_free(sw);
	CHECK_EQ(s.n, 6);
}

/*
 * A capture header, then a frame record cut short, at DIR/NAME: a pcap
 * port reading it fails.  Return: its path (static).
 */
static const char *pcap_broken(const char *name)
{
	static const unsigned char hdr[24 + 16] = {
		0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, [16] = 0xff, [17] = 0xff,
		[20] = 1, [24 + 8] = 100, [24 + 12] = 100,
	};
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir(), name);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	CHECK_EQ(fwrite(hdr, 1, sizeof(hdr), f), sizeof(hdr));
	CHECK_OK(fclose(f));
	return path;
}

/* A port whose receive fails is reported, and re-opened by a config. */
static void t_failed_recovered(void)
{
	struct voff_switch_conf_result r;
	struct voff_switch_conf *conf;
	struct voff_switch_port_info pi;
	struct voff_switch *sw;
	struct seen s = { 0 };
	const char *path = pcap_broken("cut.pcap");
	char text[512];
	int id;

	snprintf(text, sizeof(text), "ports add pcap:%s\n", path);
	sw = switch_from(text, &r);
	voff_switch_set_event_cb(sw, record, &s);
	run(sw);
	id = voff_switch_find(sw, path);
	CHECK_OK(voff_switch_port_info(sw, (unsigned int)id, &pi));
	CHECK(pi.failed);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.ev[0].type, VOFF_SWITCH_EV_PORT_FAILED);
	CHECK_LT(s.ev[0].err, 0);

	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, &r));
	CHECK_EQ(r.recovered, 1);
	CHECK_EQ(r.added, 1);
	CHECK_OK(voff_switch_port_info(sw, (unsigned int)voff_switch_find(
					       sw, path), &pi));
	CHECK(!pi.failed);
	CHECK_EQ(s.n, 4);
	CHECK_EQ(s.ev[1].type, VOFF_SWITCH_EV_PORT_REMOVED);
	CHECK_EQ(s.ev[2].type, VOFF_SWITCH_EV_PORT_ADDED);
	CHECK_EQ(s.ev[3].type, VOFF_SWITCH_EV_PORT_RECOVERED);
	/* Removed and added as parts of a re-open. */
	CHECK_EQ(s.ev[1].new_value, 1);
	CHECK_EQ(s.ev[2].new_value, 1);
	CHECK_STR_EQ(s.ev[3].name, path);
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
}

/* The waits between attempts to re-open a failed port, capped. */
static void t_retry_schedule(void)
{
	static const uint64_t s = 1000000000ull;
	static const uint64_t want60[] = { 1, 2, 4, 8, 16, 32, 60, 60, 60 };
	static const uint64_t want5[] = { 1, 2, 4, 5, 5 };
	uint64_t w = 0, at = 0;

	for (size_t i = 0; i < sizeof(want60) / sizeof(want60[0]); i++) {
		w = voff__retry_next(60 * s, w);
		CHECK_EQ(w, want60[i] * s);
	}
	w = 0;
	/* Attempts at 1, 3, 7, 12, 17 s after the failure, with a cap of 5. */
	for (size_t i = 0; i < sizeof(want5) / sizeof(want5[0]); i++) {
		w = voff__retry_next(5 * s, w);
		CHECK_EQ(w, want5[i] * s);
		at += w;
	}
	CHECK_EQ(at, 17 * s);
	/* A cap below the first wait is the wait; 0 (off) is no wait. */
	CHECK_EQ(voff__retry_next(s / 2, 0), s / 2);
	CHECK_EQ(voff__retry_next(0, 0), 0);
	CHECK_EQ(voff__retry_next(3600 * s, 2048 * s), 3600 * s);
}

static uint64_t retries(const struct voff_switch *sw, const char *name)
{
	struct voff_switch_stats st;
	int id = voff_switch_find(sw, name);

	CHECK_GE(id, 0);
	CHECK_OK(voff_switch_stats(sw, (unsigned int)id, &st));
	return st.retries;
}

static bool failed(const struct voff_switch *sw, const char *name,
		   uint64_t *retry_ns)
{
	struct voff_switch_port_info pi;
	int id = voff_switch_find(sw, name);

	CHECK_GE(id, 0);
	CHECK_OK(voff_switch_port_info(sw, (unsigned int)id, &pi));
	if (retry_ns)
		*retry_ns = pi.retry_ns;
	return pi.failed;
}

/*
 * A failed port of the configuration re-opened by voff_switch_conf_retry()
 * on its schedule, driven by made-up times: the attempts while its file
 * is gone fail, change nothing and are counted; the one after it is back
 * re-opens it, with its static MAC entry.  A port opened without a spec,
 * one with port_retry 0, and a switch that may not open ports are left
 * failed.
 */
static void t_retry_reopen(void)
{
	static const uint64_t s = 1000000000ull, t0 = 5000 * s;
	struct voff_switch_conf *conf;
	struct voff_switch *sw;
	struct voff_switch_stats st;
	struct seen ev = { 0 };
	char pa[128], pb[128], z[128], text[1024], msg[512];
	struct voff_port_spec zs;
	struct voff_port *zp;
	uint64_t wait;

	snprintf(pa, sizeof(pa), "%s", pcap_broken("ra.pcap"));
	snprintf(pb, sizeof(pb), "%s", pcap_broken("rb.pcap"));
	snprintf(z, sizeof(z), "%s", pcap_broken("rz.pcap"));
	snprintf(text, sizeof(text),
		 "ports add pcap:%s\nfdb add 02:00:00:00:00:0a %s\n"
		 "ports add pcap:%s,port_retry=0\n", pa, pa, pb);
	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, NULL));
	/* Opened by its user, not from a spec: nothing to re-open it from. */
	snprintf(text, sizeof(text), "pcap:%s", z);
	CHECK_OK(voff_port_spec_parse(&zs, text));
	CHECK_OK(voff_port_open(&zp, &zs.cfg));
	CHECK_OK(voff_switch_add(sw, zp, z, NULL));
	CHECK_EQ(voff_switch_fdb(sw, NULL, 0), 1);
	voff_switch_set_event_cb(sw, record, &ev);
	run(sw);
	CHECK(failed(sw, pa, &wait) && failed(sw, pb, NULL) &&
	      failed(sw, z, NULL));
	CHECK_EQ(wait, 0);
	CHECK_EQ(voff_switch_fdb(sw, NULL, 0), 1);
	CHECK_EQ(ev.n, 3);
	ev.n = 0;

	/* The first call starts the schedule: nothing is due before 1 s. */
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0), 0);
	CHECK(failed(sw, pa, &wait));
	CHECK_EQ(wait, s);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + s - 1), 0);
	CHECK_EQ(ev.n, 0);

	/* Its file gone: the attempt at 1 s fails, the next is 2 s later. */
	CHECK_OK(unlink(pa));
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + s), 0);
	CHECK_EQ(ev.n, 1);
	CHECK_EQ(ev.ev[0].type, VOFF_SWITCH_EV_PORT_RETRY);
	CHECK_STR_EQ(ev.ev[0].name, pa);
	CHECK_EQ(ev.ev[0].err, -ENOENT);
	CHECK_EQ(ev.ev[0].new_value, 1);
	CHECK(failed(sw, pa, &wait));
	CHECK_EQ(wait, 2 * s);
	CHECK_EQ(retries(sw, pa), 1);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 3 * s - 1), 0);
	CHECK_EQ(ev.n, 1);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 3 * s), 0);
	CHECK_EQ(ev.n, 2);
	CHECK_EQ(ev.ev[1].new_value, 2);
	CHECK(failed(sw, pa, &wait));
	CHECK_EQ(wait, 4 * s);

	/* A switch that may not open ports: refused, counted, no open. */
	CHECK_EQ(voff_switch_conf_retry(sw, conf, VOFF_SWITCH_CTL_DENY_ADD,
					t0 + 7 * s), 0);
	CHECK_EQ(ev.n, 3);
	CHECK_EQ(ev.ev[2].err, -EPERM);
	snprintf(msg, sizeof(msg), "t.conf:1: port '%s': cannot open it: "
		 "this switch dropped the privileges to open ports", pa);
	CHECK_STR_EQ(voff_switch_conf_error(conf), msg);
	CHECK_EQ(retries(sw, pa), 3);
	CHECK(failed(sw, pa, &wait));
	CHECK_EQ(wait, 8 * s);

	/* Back (a good capture): re-opened, its MAC entry with it. */
	pcap_cut("ra.pcap", SIZE_MAX);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 15 * s - 1), 0);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 15 * s), 1);
	CHECK_EQ(ev.n, 6);
	CHECK_EQ(ev.ev[3].type, VOFF_SWITCH_EV_PORT_REMOVED);
	CHECK_EQ(ev.ev[4].type, VOFF_SWITCH_EV_PORT_ADDED);
	CHECK_EQ(ev.ev[5].type, VOFF_SWITCH_EV_PORT_RECOVERED);
	CHECK_EQ(ev.ev[3].new_value + ev.ev[4].new_value, 2);
	CHECK_STR_EQ(ev.ev[5].name, pa);
	CHECK(!failed(sw, pa, &wait));
	CHECK_EQ(wait, 0);
	CHECK_EQ(retries(sw, pa), 4);
	CHECK_EQ(voff_switch_fdb(sw, NULL, 0), 1);
	run(sw);
	CHECK_OK(voff_switch_stats(sw, (unsigned int)voff_switch_find(sw, pa),
				   &st));
	CHECK_GT(st.port.rx_packets, 0);

	/* port_retry 0, and a port of no spec: never tried. */
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 3600 * s), 0);
	CHECK_EQ(ev.n, 6);
	CHECK(failed(sw, pb, &wait) && failed(sw, z, NULL));
	CHECK_EQ(wait, 0);
	CHECK_EQ(retries(sw, pb) + retries(sw, z), 0);
	CHECK_EQ(voff_switch_conf_retry(NULL, conf, 0, 0), -EINVAL);
	CHECK_EQ(voff_switch_conf_retry(sw, NULL, 0, 0), -EINVAL);
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
}

/* A UDP socket bound to 127.0.0.1:@port, or -errno. */
static int udp_bound(unsigned int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err;

	CHECK_GE(fd, 0);
	a.sin_port = htons((uint16_t)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return fd;
	err = -errno;
	close(fd);
	return err;
}

/* Can 127.0.0.1:@port be bound now?  Return: 0 or the bind's -errno. */
static int udp_free(unsigned int port)
{
	int fd = udp_bound(port);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/*
 * A VXLAN port's new socket binds what the failed port's held: the
 * failure releases its sockets (the receive one and the srcports= send
 * ones), so a timed attempt re-opens it, while the failed port keeps its
 * record (remotes, setting, MAC entry, counters) until that worked.  An
 * attempt that fails (the address taken by someone else meanwhile)
 * changes nothing.  Made-up times, as t_retry_reopen().
 */
static void t_retry_release(void)
{
	static const uint64_t s = 1000000000ull, t0 = 7000 * s;
	unsigned int p = 30000 + (unsigned int)(getpid() % 2000) * 8 + 5;
	struct voff_switch_conf *conf;
	struct voff_switch *sw;
	struct voff_port *port;
	struct voff_batch b;
	struct seen ev = { 0 };
	char text[1024], want[64];
	int id, blocker;

	snprintf(text, sizeof(text),
		 "ports add vxlan:42,local=127.0.0.1:%u,remote=127.0.0.1:%u,"
		 "srcports=%u-%u\n"
		 "limits vxlan42 port_retry 30 rx_budget 32\n"
		 "fdb add 02:00:00:00:00:0c vxlan42 127.0.0.1:%u\n",
		 p, p - 1, p + 1, p + 2, p - 1);
	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, NULL));
	CHECK_EQ(udp_free(p), -EADDRINUSE);
	CHECK_EQ(udp_free(p + 2), -EADDRINUSE);
	voff_switch_set_event_cb(sw, record, &ev);
	snprintf(want, sizeof(want), "127.0.0.1:%u", p - 1);

	/* Failed: its address and ports are free, its record stays. */
	id = voff_switch_find(sw, "vxlan42");
	voff__switch_fail(sw, (unsigned int)id, -ECONNABORTED);
	CHECK_EQ(ev.n, 1);
	CHECK_EQ(ev.ev[0].type, VOFF_SWITCH_EV_PORT_FAILED);
	CHECK_EQ(ev.ev[0].err, -ECONNABORTED);
	CHECK(failed(sw, "vxlan42", NULL));
	CHECK_OK(udp_free(p));
	CHECK_OK(udp_free(p + 1));
	CHECK_OK(udp_free(p + 2));
	port = voff_switch_port(sw, (unsigned int)id);
	CHECK_EQ(voff_port_fd(port), -1);
	voff_batch_init(&b);
	CHECK_EQ(voff_port_rx(port, NULL, &b), -ENODEV);
	CHECK_STR_EQ(remotes(sw), want);
	CHECK_EQ(get(sw, "vxlan42", "port_retry"), 30);
	CHECK_EQ(voff_switch_fdb(sw, NULL, 0), 1);
	/* The release is done: again is nothing. */
	CHECK_OK(voff__switch_release(sw, (unsigned int)id));
	CHECK_EQ(voff__switch_release(sw, VOFF_SWITCH_MAX_PORTS), -ENOENT);

	/* Its address taken meanwhile: the attempt fails, nothing changes. */
	blocker = udp_bound(p);
	CHECK_GE(blocker, 0);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0), 0);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + s), 0);
	CHECK_EQ(ev.n, 2);
	CHECK_EQ(ev.ev[1].type, VOFF_SWITCH_EV_PORT_RETRY);
	CHECK_EQ(ev.ev[1].err, -EADDRINUSE);
	CHECK_EQ(voff_switch_find(sw, "vxlan42"), id);
	CHECK(failed(sw, "vxlan42", NULL));
	CHECK_EQ(retries(sw, "vxlan42"), 1);
	CHECK_STR_EQ(remotes(sw), want);
	CHECK_EQ(get(sw, "vxlan42", "rx_budget"), 32);
	CHECK_EQ(voff_switch_fdb(sw, NULL, 0), 1);
	CHECK_OK(udp_free(p + 1));

	/* Free again: the next attempt (2 s later) re-opens it whole. */
	close(blocker);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 3 * s), 1);
	/* Removed, added, its two settings set again, recovered. */
	CHECK_EQ(ev.n, 7);
	CHECK_EQ(ev.ev[2].type, VOFF_SWITCH_EV_PORT_REMOVED);
	CHECK_EQ(ev.ev[3].type, VOFF_SWITCH_EV_PORT_ADDED);
	CHECK_EQ(ev.ev[6].type, VOFF_SWITCH_EV_PORT_RECOVERED);
	CHECK(!failed(sw, "vxlan42", NULL));
	CHECK_EQ(retries(sw, "vxlan42"), 2);
	CHECK_EQ(udp_free(p), -EADDRINUSE);
	CHECK_EQ(udp_free(p + 1), -EADDRINUSE);
	CHECK_STR_EQ(remotes(sw), want);
	CHECK_EQ(get(sw, "vxlan42", "port_retry"), 30);
	CHECK_EQ(get(sw, "vxlan42", "rx_budget"), 32);
	CHECK_EQ(voff_switch_fdb(sw, NULL, 0), 1);
	CHECK_GE(voff_port_fd(voff_switch_port(
			 sw, (unsigned int)voff_switch_find(sw, "vxlan42"))),
		 0);
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
}

/*
 * A vhost-user port's socket path: listened on by the failed port until
 * the failure releases it, so the attempt listens there again.
 */
static void t_retry_release_vhost(void)
{
	static const uint64_t s = 1000000000ull, t0 = 9000 * s;
	struct voff_switch_conf *conf;
	struct voff_switch *sw;
	char path[128], text[256];
	int id;

	snprintf(path, sizeof(path), "%s/vu.sock", tmpdir());
	snprintf(text, sizeof(text), "ports add vhost-user:%s\n", path);
	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(conf_text(conf, text, "t.conf"));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, NULL));
	CHECK_OK(access(path, F_OK));
	id = voff_switch_find(sw, path);
	voff__switch_fail(sw, (unsigned int)id, -EIO);
	CHECK_EQ(access(path, F_OK), -1);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0), 0);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + s), 1);
	CHECK(!failed(sw, path, NULL));
	CHECK_EQ(retries(sw, path), 1);
	CHECK_OK(access(path, F_OK));
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
	CHECK_EQ(access(path, F_OK), -1);
}

/*
 * A port added at run time (`ports add`, declared by no configuration)
 * is retried as a declared one: re-opened from its spec with the
 * settings, features and static MAC entries it had at run time; a
 * refused attempt names it; `ports del` ends its attempts.
 */
static void t_retry_added(void)
{
	static const uint64_t s = 1000000000ull, t0 = 11000 * s;
	struct voff_switch_port_info pi;
	struct voff_switch_conf *conf;
	struct voff_switch *sw;
	struct seen ev = { 0 };
	char pa[128], req[256], msg[512];
	uint64_t wanted;
	int id;

	snprintf(pa, sizeof(pa), "%s", pcap_broken("ad.pcap"));
	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_switch_conf_new(&conf));
	CHECK_OK(voff_switch_conf_apply(sw, conf, 0, NULL));
	snprintf(req, sizeof(req), "ports add pcap:%s", pa);
	CHECK_OK(ctl(sw, req));
	snprintf(req, sizeof(req), "limits %s rx_budget 16 port_retry 5", pa);
	CHECK_OK(ctl(sw, req));
	snprintf(req, sizeof(req), "features %s tso off", pa);
	CHECK_OK(ctl(sw, req));
	snprintf(req, sizeof(req), "fdb add 02:00:00:00:00:0d %s", pa);
	CHECK_OK(ctl(sw, req));
	CHECK_OK(voff_switch_port_info(sw, (unsigned int)voff_switch_find(
					       sw, pa), &pi));
	wanted = pi.feat.wanted;
	voff_switch_set_event_cb(sw, record, &ev);
	run(sw);
	CHECK(failed(sw, pa, NULL));
	ev.n = 0;

	/* Its file gone: the attempt at 1 s fails and changes nothing. */
	CHECK_OK(unlink(pa));
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0), 0);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + s), 0);
	CHECK_EQ(ev.n, 1);
	CHECK_EQ(ev.ev[0].type, VOFF_SWITCH_EV_PORT_RETRY);
	CHECK_EQ(ev.ev[0].err, -ENOENT);
	CHECK_EQ(retries(sw, pa), 1);
	snprintf(msg, sizeof(msg), "added at run time: port '%s': %s", pa,
		 voff_strerror(-ENOENT));
	CHECK_STR_EQ(voff_switch_conf_error(conf), msg);

	/* A switch that may not open ports: refused, named alike. */
	CHECK_EQ(voff_switch_conf_retry(sw, conf, VOFF_SWITCH_CTL_DENY_ADD,
					t0 + 3 * s), 0);
	CHECK_EQ(ev.ev[1].err, -EPERM);
	snprintf(msg, sizeof(msg), "added at run time: port '%s': cannot "
		 "open it: this switch dropped the privileges to open ports",
		 pa);
	CHECK_STR_EQ(voff_switch_conf_error(conf), msg);
	CHECK_EQ(retries(sw, pa), 2);

	/* Back: re-opened as it ran, its MAC entry with it. */
	pcap_cut("ad.pcap", SIZE_MAX);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 7 * s), 1);
	CHECK_EQ(ev.ev[ev.n - 1].type, VOFF_SWITCH_EV_PORT_RECOVERED);
	CHECK(!failed(sw, pa, NULL));
	CHECK_EQ(retries(sw, pa), 3);
	CHECK_EQ(get(sw, pa, "rx_budget"), 16);
	CHECK_EQ(get(sw, pa, "port_retry"), 5);
	id = voff_switch_find(sw, pa);
	CHECK_OK(voff_switch_port_info(sw, (unsigned int)id, &pi));
	CHECK_EQ(pi.feat.wanted, wanted);
	CHECK_EQ(pi.feat.wanted & VOFF_F_TSO, 0);
	snprintf(msg, sizeof(msg), "pcap:%s", pa);
	CHECK_STR_EQ(pi.spec, msg);
	{
		struct voff_switch_fdb_entry e[2];

		CHECK_EQ(voff_switch_fdb(sw, e, 2), 1);
		CHECK(e[0].is_static);
		CHECK_EQ(e[0].port, (unsigned int)id);
	}

	/* Failed again, then deleted: nothing left to try. */
	voff__switch_fail(sw, (unsigned int)id, -EIO);
	CHECK(failed(sw, pa, NULL));
	snprintf(req, sizeof(req), "ports del %s", pa);
	CHECK_OK(ctl(sw, req));
	ev.n = 0;
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 3600 * s), 0);
	CHECK_EQ(voff_switch_conf_retry(sw, conf, 0, t0 + 7200 * s), 0);
	CHECK_EQ(ev.n, 0);
	CHECK_EQ(voff_switch_find(sw, pa), -ENOENT);
	voff_switch_conf_free(conf);
	voff_switch_free(sw);
}

static void t_spec_format(void)
{
	struct voff_port_spec s;
	char buf[300];

	CHECK_OK(voff_port_spec_parse(&s, "tap:a@b,rx_budget=0x10,napi=off,"
					  "gro=on,napi=on"));
	CHECK_EQ(voff_port_spec_format(&s, false, buf, sizeof(buf)),
		 (int)strlen("tap:a@b,napi=on"));
	CHECK_STR_EQ(buf, "tap:a@b,napi=on");
	CHECK_EQ(voff_port_spec_format(&s, true, buf, sizeof(buf)),
		 (int)strlen("tap:a@b,gro=on,napi=on,rx_budget=16"));
	CHECK_STR_EQ(buf, "tap:a@b,gro=on,napi=on,rx_budget=16");
	CHECK_OK(voff_port_spec_parse(&s, "pcap:in.pcap,gro=off,sink=o.pcap"));
	CHECK_EQ(voff_port_spec_format(&s, false, buf, sizeof(buf)),
		 (int)strlen("pcap:in.pcap,sink=o.pcap"));
	CHECK_STR_EQ(buf, "pcap:in.pcap,sink=o.pcap");
	CHECK_EQ(voff_port_spec_format(&s, true, buf, 10), -ENOSPC);
	CHECK_EQ(voff_port_spec_format(NULL, true, buf, sizeof(buf)), -EINVAL);
}

/*
 * A limit no line sets is the port's starting value, which is above the
 * table's default when the port's device takes more.
 */
static void t_limit_default(void)
{
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	const struct voff_switch_setting *size =
		voff_switch_setting_find("gso_max_size");
	struct voff_port *p, *peer;
	struct voff_switch *sw;
	unsigned int id;

	pc.limits.gso_max_size = 200000;
	CHECK_OK(voff_switch_new(&sw, NULL));
	CHECK_OK(voff_port_mem_pair(&p, &peer, &pc));
	CHECK_OK(voff_switch_add(sw, p, "big", &id));
	CHECK_EQ(get(sw, "big", "gso_max_size"), 200000);
	CHECK_EQ(voff__switch_setting_def(sw, id, size), 200000);
	CHECK_OK(voff_switch_set(sw, id, "gso_max_size", 30000));
	CHECK_EQ(voff__switch_setting_def(sw, id, size), 200000);
	CHECK_EQ(voff__switch_setting_def(sw, id,
					  voff_switch_setting_find("gro")), 0);
	voff_port_close(peer);
	voff_switch_free(sw);
}

CHECK_MAIN(CHECK_TEST(t_read), CHECK_TEST(t_vxlan_name), CHECK_TEST(t_refused),
	   CHECK_TEST(t_read_atomic), CHECK_TEST(t_save_roundtrip),
	   CHECK_TEST(t_save_vxlan),
	   CHECK_TEST(t_apply_difference), CHECK_TEST(t_apply_refused),
	   CHECK_TEST(t_events), CHECK_TEST(t_failed_recovered),
	   CHECK_TEST(t_retry_schedule), CHECK_TEST(t_retry_reopen),
	   CHECK_TEST(t_retry_release), CHECK_TEST(t_retry_release_vhost),
	   CHECK_TEST(t_retry_added),
	   CHECK_TEST(t_spec_format), CHECK_TEST(t_limit_default))
