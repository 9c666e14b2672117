/* SPDX-License-Identifier: MIT */
/*
 * test_switch_settings.c - the table of per-port switch settings: its
 * entries are coherent, values parse and print back, voff_switch_set()
 * and voff_switch_get() agree with the port's info and refuse what the
 * table refuses, and a new gro_max_size leaves held GRO flows alone
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <voff/feat.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"
#include "switch_int.h"
#include "frames.h"

static void t_table(void)
{
	const struct voff_switch_setting *s;
	unsigned int n = 0;

	for (unsigned int i = 0; (s = voff_switch_setting_at(i)); i++) {
		n++;
		CHECK(s->name && *s->name && s->help && *s->help && s->unit);
		CHECK(voff_switch_setting_find(s->name) == s);
		CHECK_LE(s->min, s->def);
		CHECK_LE(s->def, s->max);
		CHECK(s->kinds != 0);
		if (s->type == VOFF_SWITCH_SETTING_BOOL)
			CHECK(s->min == 0 && s->max == 1 && !*s->unit);
		else
			CHECK(*s->unit);
		/* A name never hides another: no setting is "sink". */
		CHECK(strcmp(s->name, "sink"));
	}
	CHECK_GE(n, 6);
	CHECK_LE(n, VOFF_SWITCH_SETTINGS_MAX);
	CHECK(voff_switch_setting_at(n) == NULL);
	CHECK(voff_switch_setting_find("mtu") == NULL);
	CHECK(voff_switch_setting_find(NULL) == NULL);
}

static void t_parse(void)
{
	const struct voff_switch_setting *s;
	char err[128], buf[64];
	uint64_t v = 7;

	s = voff_switch_setting_find("gro_max_size");
	CHECK_OK(voff_switch_setting_parse(s, "0x100", &v, err, sizeof(err)));
	CHECK_EQ(v, 256);
	CHECK_OK(voff_switch_setting_parse(s, "65536", &v, NULL, 0));
	CHECK_EQ(v, 65536);
	CHECK_EQ(voff_switch_setting_parse(s, "70000", &v, err, sizeof(err)),
		 -ERANGE);
	CHECK_STR_EQ(err, "gro_max_size: 70000 is out of range "
			  "(0..65536 bytes)");
	CHECK_EQ(v, 65536);
	CHECK_EQ(voff_switch_setting_parse(s, "99999999999999999999999", &v,
					   err, sizeof(err)), -ERANGE);
	CHECK_EQ(voff_switch_setting_parse(s, " 5", &v, err, sizeof(err)),
		 -EINVAL);
	CHECK_STR_EQ(err, "gro_max_size: expected a number (0..65536 bytes), "
			  "not ' 5'");
	CHECK_EQ(voff_switch_setting_parse(s, "", &v, NULL, 0), -EINVAL);
	CHECK_EQ(voff_switch_setting_parse(s, "+5", &v, NULL, 0), -EINVAL);
	CHECK_EQ(voff_switch_setting_parse(s, "08", &v, NULL, 0), -EINVAL);
	CHECK_EQ(voff_switch_setting_range(s, buf, sizeof(buf)), 14);
	CHECK_STR_EQ(buf, "0..65536 bytes");

	s = voff_switch_setting_find("gro");
	CHECK_OK(voff_switch_setting_parse(s, "on", &v, err, sizeof(err)));
	CHECK_EQ(v, 1);
	CHECK_EQ(voff_switch_setting_parse(s, "1", &v, err, sizeof(err)),
		 -EINVAL);
	CHECK_STR_EQ(err, "gro: expected on or off");
	voff_switch_setting_range(s, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "on|off");
	voff_switch_setting_format(s, 0, buf, sizeof(buf));
	CHECK_STR_EQ(buf, "off");

	/* Every setting's bounds print back to values it takes. */
	for (unsigned int i = 0; (s = voff_switch_setting_at(i)); i++) {
		voff_switch_setting_format(s, s->max, buf, sizeof(buf));
		CHECK_OK(voff_switch_setting_parse(s, buf, &v, NULL, 0));
		CHECK_EQ(v, s->max);
		voff_switch_setting_format(s, s->min, buf, sizeof(buf));
		CHECK_OK(voff_switch_setting_parse(s, buf, &v, NULL, 0));
		CHECK_EQ(v, s->min);
	}
}

struct rig {
	struct voff_switch *sw;
	struct voff_pool *pool;
	struct voff_port *host[2];
};

static void rig_open(struct rig *r)
{
	struct voff_switch_config c = { .pool_size = 64 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };

	memset(r, 0, sizeof(*r));
	CHECK_OK(voff_switch_new(&r->sw, &c));
	CHECK_OK(voff_pool_new(&r->pool, 64, VOFF_PKT_SUPER_ROOM));
	pc.want = pc.tx_off = VOFF_TUN_F_TCP;
	for (unsigned int i = 0; i < 2; i++) {
		struct voff_port *a;
		char name[3] = { 'p', (char)('0' + i), 0 };
		unsigned int id;

		CHECK_OK(voff_port_mem_pair(&a, &r->host[i], &pc));
		CHECK_OK(voff_switch_add(r->sw, a, name, &id));
		CHECK_EQ(id, i);
	}
}

static void rig_close(struct rig *r)
{
	voff_switch_free(r->sw);
	voff_port_close(r->host[0]);
	voff_port_close(r->host[1]);
	CHECK_EQ(voff_pool_in_use(r->pool), 0);
	voff_pool_free(r->pool);
}

/* The text voff_switch_conf_write() gives for @sw (static buffer). */
static const char *written(const struct voff_switch *sw)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	CHECK(f != NULL);
	CHECK_OK(voff_switch_conf_write(sw, f));
	CHECK_EQ(fputc('\0', f), 0);
	fclose(f);
	return buf;
}

/*
 * gro is on by default on a vxlan port, as on the kernel's vxlan device,
 * and off on the other kinds; gro=off in a spec turns it off.  The
 * configuration written back names gro only where it is not the kind's
 * default, and reads back to the same states.
 */
static void t_gro_kind_default(void)
{
	unsigned int port = 32000 + (unsigned int)(getpid() % 2000) * 4, a, b;
	struct voff_switch_port_info pi;
	char spec[128];
	const char *text;
	struct rig r;
	uint64_t v;

	rig_open(&r);
	CHECK_EQ(voff__switch_kind_def(voff_switch_setting_find("gro"),
				       VOFF_PORT_VXLAN), 1);
	CHECK_EQ(voff__switch_kind_def(voff_switch_setting_find("gro"),
				       VOFF_PORT_TAP), 0);
	snprintf(spec, sizeof(spec), "vxlan:42,local=127.0.0.1:%u", port);
	CHECK_OK(voff_switch_add_spec(r.sw, spec, &a));
	snprintf(spec, sizeof(spec), "vxlan:43,local=127.0.0.1:%u,gro=off",
		 port + 1);
	CHECK_OK(voff_switch_add_spec(r.sw, spec, &b));
	CHECK_OK(voff_switch_get(r.sw, a, "gro", &v));
	CHECK_EQ(v, 1);
	CHECK_OK(voff_switch_port_info(r.sw, a, &pi));
	CHECK(pi.gro);
	CHECK(pi.feat.wanted & VOFF_F_GRO);
	CHECK_OK(voff_switch_get(r.sw, b, "gro", &v));
	CHECK_EQ(v, 0);
	CHECK_OK(voff_switch_get(r.sw, 1, "gro", &v));
	CHECK_EQ(v, 0);
	CHECK_EQ(voff__switch_setting_def(r.sw, a,
					  voff_switch_setting_find("gro")), 1);
	CHECK_EQ(voff__switch_setting_def(r.sw, 1,
					  voff_switch_setting_find("gro")), 0);

	/* Written back: "limits vxlan43 gro off", nothing for vxlan42. */
	text = written(r.sw);
	CHECK_MSG(strstr(text, "limits vxlan43 gro off\n") != NULL, "%s",
		  text);
	CHECK_MSG(strstr(text, "limits vxlan42") == NULL, "%s", text);

	/* Off and on again at run time; the engine comes and goes. */
	CHECK_OK(voff_switch_set(r.sw, a, "gro", 0));
	CHECK_OK(voff_switch_port_info(r.sw, a, &pi));
	CHECK(!pi.gro);
	CHECK_MSG(strstr(written(r.sw), "limits vxlan42 gro off\n") != NULL,
		  "%s", written(r.sw));
	CHECK_OK(voff_switch_set(r.sw, a, "gro", 1));
	CHECK_OK(voff_switch_port_info(r.sw, a, &pi));
	CHECK(pi.gro);
	rig_close(&r);
}

static void t_set_get(void)
{
	const struct voff_switch_setting *s;
	struct voff_switch_port_info pi;
	struct rig r;
	uint64_t v;

	rig_open(&r);
	/* Every port starts at the table's defaults. */
	for (unsigned int i = 0; (s = voff_switch_setting_at(i)); i++) {
		CHECK_OK(voff_switch_get(r.sw, 1, s->name, &v));
		CHECK_MSG(v == s->def, "%s is %llu, default %llu", s->name,
			  (unsigned long long)v, (unsigned long long)s->def);
	}
	CHECK_OK(voff_switch_set(r.sw, 1, "gso_max_size", 16000));
	CHECK_OK(voff_switch_set(r.sw, 1, "gso_max_segs", 8));
	CHECK_OK(voff_switch_set(r.sw, 1, "gro_max_size", 0));
	CHECK_OK(voff_switch_set(r.sw, 1, "gro_flush_timeout", 20000));
	CHECK_OK(voff_switch_set(r.sw, 1, "gro", 1));
	CHECK_OK(voff_switch_port_info(r.sw, 1, &pi));
	CHECK_EQ(pi.limits.gso_max_size, 16000);
	CHECK_EQ(pi.limits.gso_max_segs, 8);
	CHECK_EQ(pi.limits.gro_max_size, 0);
	CHECK_EQ(pi.gro_flush_timeout_ns, 20000);
	CHECK(pi.gro);
	CHECK_OK(voff_switch_get(r.sw, 1, "gso_max_size", &v));
	CHECK_EQ(v, 16000);
	CHECK_OK(voff_switch_get(r.sw, 1, "gro", &v));
	CHECK_EQ(v, 1);
	/* Refusals change nothing. */
	CHECK_EQ(voff_switch_set(r.sw, 1, "gro_max_size", 65537), -ERANGE);
	CHECK_EQ(voff_switch_set(r.sw, 1, "gso_max_segs", 0), -ERANGE);
	CHECK_EQ(voff_switch_set(r.sw, 1, "gro", 2), -ERANGE);
	CHECK_EQ(voff_switch_set(r.sw, 1, "napi", 1), -EOPNOTSUPP);
	CHECK_EQ(voff_switch_set(r.sw, 1, "mtu", 1400), -EINVAL);
	CHECK_EQ(voff_switch_set(r.sw, 1, NULL, 1), -EINVAL);
	CHECK_EQ(voff_switch_set(r.sw, 7, "gro", 1), -ENOENT);
	CHECK_EQ(voff_switch_get(r.sw, 7, "gro", &v), -ENOENT);
	CHECK_EQ(voff_switch_get(r.sw, 1, "frob", &v), -EINVAL);
	CHECK_OK(voff_switch_get(r.sw, 1, "gro_max_size", &v));
	CHECK_EQ(v, 0);
	CHECK_OK(voff_switch_get(r.sw, 1, "napi", &v));
	CHECK_EQ(v, 0);
	rig_close(&r);
}

/* The next segment of one TCP flow from host 0, with valid checksums. */
static void send_seg(struct rig *r, uint32_t seq, uint16_t id)
{
	uint8_t buf[2048];
	struct voff_batch b;
	struct voff_pkt *p;
	struct tf f;
	size_t len;

	tf_init(&f, buf, sizeof(buf));
	tf_eth(&f);
	tf_ipv4(&f, &(struct tf_ip){ .df = true, .id = id });
	tf_tcp(&f, &(struct tf_l4){ .seq = seq, .flags = TF_ACK });
	tf_payload(&f, 1000, (uint8_t)seq);
	len = tf_finish(&f);
	CHECK_GT(len, 0);
	CHECK_OK(voff_pkt_alloc(r->pool, &p));
	CHECK_OK(voff_pkt_set_data(p, buf, (uint32_t)len));
	voff_batch_init(&b);
	CHECK_OK(voff_batch_add(&b, p));
	CHECK_EQ(voff_port_tx(r->host[0], &b), 1);
}

static unsigned int recv_n(struct rig *r, struct voff_batch *b)
{
	voff_batch_init(b);
	CHECK_GE(voff_port_rx(r->host[1], r->pool, b), 0);
	return b->n;
}

/*
 * A smaller gro_max_size while a flow is held: the request forwards
 * nothing (it used to flush, forward and send the flow), and the flow
 * still leaves whole at its deadline.
 */
static void t_gro_max_size_keeps_held(void)
{
	struct voff_switch_stats st;
	struct voff_batch b;
	struct rig r;

	rig_open(&r);
	CHECK_OK(voff_switch_set(r.sw, 0, "gro", 1));
	CHECK_OK(voff_switch_set(r.sw, 0, "gro_flush_timeout", 3000000000ull));
	for (unsigned int i = 0; i < 3; i++)
		send_seg(&r, 1 + 1000 * i, (uint16_t)i);
	CHECK_EQ(voff_switch_poll(r.sw, 0), 3);
	CHECK_EQ(recv_n(&r, &b), 0);
	CHECK_OK(voff_switch_set(r.sw, 0, "gro_max_size", 2500));
	CHECK_EQ(recv_n(&r, &b), 0);
	CHECK_OK(voff_switch_stats(r.sw, 0, &st));
	CHECK_EQ(st.gro_merged, 2);
	CHECK_EQ(st.gro_out, 0);
	/* The next segment finds no room: the 3040-byte flow leaves whole. */
	send_seg(&r, 3001, 3);
	CHECK_EQ(voff_switch_poll(r.sw, 0), 1);
	CHECK_EQ(recv_n(&r, &b), 1);
	CHECK(voff_pkt_is_gso(b.pkts[0]));
	CHECK_EQ(b.pkts[0]->len, 14 + 40 + 3000);
	voff_batch_free(&b);
	CHECK_OK(voff_switch_set(r.sw, 0, "gro", 0));
	CHECK_EQ(recv_n(&r, &b), 1);
	CHECK_EQ(b.pkts[0]->len, 14 + 40 + 1000);
	voff_batch_free(&b);
	rig_close(&r);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * voff(1) lists the settings between two comment lines: each as ".TP",
 * ".B NAME", then a line starting "RANGE, default VALUE" (the form
 * voff_switch_settings_print() uses too).  Both lists
 * must say the same, in the same order, so neither can drift.
 */
static void t_man_page(void)
{
	const char *data = getenv("VOFF_DATA");
	const struct voff_switch_setting *s;
	char path[4096], line[512], want[128], range[64], def[32];
	unsigned int i = 0;
	bool in = false, tp = false;
	FILE *f;

	if (!data)
		CHECK_SKIP("VOFF_DATA not set: no source tree");
	snprintf(path, sizeof(path), "%s/../../man/voff.1", data);
	f = fopen(path, "r");
	CHECK_MSG(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		bool entry = tp && starts(line, ".B ");

		tp = starts(line, ".TP");
		if (starts(line, ".\\\" settings: begin"))
			in = true;
		if (in && starts(line, ".\\\" settings: end"))
			break;
		if (!in || !entry)
			continue;
		line[strcspn(line, "\n")] = '\0';
		s = voff_switch_setting_at(i++);
		CHECK_MSG(s != NULL, "man page lists '%s', the table does not",
			  line + 3);
		CHECK_STR_EQ(line + 3, s->name);
		voff_switch_setting_range(s, range, sizeof(range));
		voff_switch_setting_format(s, s->def, def, sizeof(def));
		snprintf(want, sizeof(want), "%s, default %s", range, def);
		CHECK(fgets(line, sizeof(line), f) != NULL);
		CHECK_MSG(!strncmp(line, want, strlen(want)),
			  "%s: man page says '%.*s', the table '%s'", s->name,
			  (int)strcspn(line, "\n"), line, want);
	}
	fclose(f);
	CHECK_MSG(in, "no settings list in %s", path);
	CHECK_MSG(voff_switch_setting_at(i) == NULL,
		  "the man page lacks '%s'", voff_switch_setting_at(i)->name);
}

/* A 64-byte frame from host 0 to host 1, numbered @i in its payload. */
static void send_plain(struct rig *r, unsigned int i)
{
	uint8_t buf[64] = { 0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01,
			    0x88, 0xb5 };
	struct voff_batch b;
	struct voff_pkt *p;

	buf[14] = (uint8_t)i;
	CHECK_OK(voff_pkt_alloc(r->pool, &p));
	CHECK_OK(voff_pkt_set_data(p, buf, sizeof(buf)));
	voff_batch_init(&b);
	CHECK_OK(voff_batch_add(&b, p));
	CHECK_EQ(voff_port_tx(r->host[0], &b), 1);
}

/* rx_budget bounds the frames one step reads from a port, in order. */
static void t_rx_budget(void)
{
	struct voff_batch b;
	struct rig r;
	uint64_t v;

	rig_open(&r);
	CHECK_OK(voff_switch_get(r.sw, 0, "rx_budget", &v));
	CHECK_EQ(v, VOFF_BATCH_MAX);
	CHECK_EQ(voff_switch_set(r.sw, 0, "rx_budget", 0), -ERANGE);
	CHECK_EQ(voff_switch_set(r.sw, 0, "rx_budget", VOFF_BATCH_MAX + 1),
		 -ERANGE);
	CHECK_OK(voff_switch_set(r.sw, 0, "rx_budget", 3));
	for (unsigned int i = 0; i < 10; i++)
		send_plain(&r, i);
	CHECK_EQ(voff_switch_poll(r.sw, 0), 3);
	CHECK_EQ(voff_switch_poll(r.sw, 0), 3);
	CHECK_OK(voff_switch_set(r.sw, 0, "rx_budget", VOFF_BATCH_MAX));
	CHECK_EQ(voff_switch_poll(r.sw, 0), 4);
	CHECK_EQ(recv_n(&r, &b), 10);
	for (unsigned int i = 0; i < 10; i++)
		CHECK_EQ(voff_pkt_data(b.pkts[i])[14], i);
	voff_batch_free(&b);
	rig_close(&r);
}

CHECK_MAIN(CHECK_TEST(t_table), CHECK_TEST(t_rx_budget), CHECK_TEST(t_man_page), CHECK_TEST(t_parse), CHECK_TEST(t_set_get),
	   CHECK_TEST(t_gro_max_size_keeps_held), CHECK_TEST(t_gro_kind_default))
