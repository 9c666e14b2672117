/* SPDX-License-Identifier: MIT */
/*
 * test_switch.c - the switch over in-memory ports: MAC learning, aging,
 * flooding, untouched VLAN frames, super-packets passed whole, segmented to
 * the MTU or resegmented to a lower limit, GRO on an ingress, flow order and
 * payload bytes preserved, no packet leaked
 */
#include <string.h>
#include <time.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/gso.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"
#include "frames.h"
#include "switch_int.h"
#include "tso.h"

#define NPORTS 3

static const uint8_t MAC[NPORTS][6] = {
	{ 0x02, 0, 0, 0, 0, 0x01 },
	{ 0x02, 0, 0, 0, 0, 0x02 },
	{ 0x02, 0, 0, 0, 0, 0x03 },
};
static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

struct rig {
	struct voff_switch *sw;
	struct voff_pool *pool;
	struct voff_port *host[NPORTS];	/* the test's end of each pair */
	unsigned int id[NPORTS];
};

/*
 * tx_off[i]: what switch port i takes; every host end sends TSO; the
 * switch made with @c.
 */
static void rig_open_cfg(struct rig *r, const unsigned int *tx_off,
			 const struct voff_switch_config *c)
{
	memset(r, 0, sizeof(*r));
	CHECK_OK(voff_switch_new(&r->sw, c));
	CHECK_OK(voff_pool_new(&r->pool, 512, VOFF_PKT_SUPER_ROOM));
	for (int i = 0; i < NPORTS; i++) {
		struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
		struct voff_port *a, *b;
		char name[8] = "p0";

		pc.want = VOFF_TUN_F_TCP | VOFF_TUN_F_USO4 |
			  VOFF_TUN_F_USO6;
		pc.tx_off = (tx_off ? tx_off[i] : VOFF_TUN_F_TCP) |
			    VOFF_TUN_F_TCP;
		CHECK_OK(voff_port_mem_pair(&a, &b, &pc));
		name[1] = (char)('0' + i);
		CHECK_OK(voff_switch_add(r->sw, a, name, &r->id[i]));
		r->host[i] = b;
		if (tx_off && !(tx_off[i] & VOFF_TUN_F_TSO4)) {
			uint64_t m, on = 0;

			CHECK_OK(voff_feat_lookup("tso", &m));
			CHECK_OK(voff_switch_set_features(r->sw, r->id[i], m,
							  on));
		}
	}
}

static void rig_open(struct rig *r, const unsigned int *tx_off,
		     uint64_t age_ns)
{
	struct voff_switch_config c = { .pool_size = 512, .age_ns = age_ns };

	rig_open_cfg(r, tx_off, &c);
}

static void rig_close(struct rig *r)
{
	voff_switch_free(r->sw);
	for (int i = 0; i < NPORTS; i++)
		voff_port_close(r->host[i]);
	CHECK_EQ(voff_pool_in_use(r->pool), 0);
	voff_pool_free(r->pool);
}

static size_t tcp_frame(uint8_t *buf, size_t cap, int from, const uint8_t *to,
			size_t payload, uint32_t seq, bool v6, bool vlan)
{
	struct tf b;

	tf_init(&b, buf, cap);
	tf_eth_addr(&b, to, MAC[from]);
	if (vlan)
		tf_vlan(&b, TF_TPID_8021Q, 42);
	if (v6)
		tf_ipv6(&b, &(struct tf_ip){ 0 });
	else
		tf_ipv4(&b, &(struct tf_ip){ .df = true, .id = (uint16_t)seq });
	tf_tcp(&b, &(struct tf_l4){ .seq = seq, .flags = TF_ACK });
	tf_payload(&b, payload, (uint8_t)seq);
	return tf_finish(&b);
}

static void fix_ip_csum(uint8_t *ip)
{
	uint16_t c = voff_csum_ipv4_hdr(ip, 20);

	memcpy(ip + 10, &c, 2);
}

static struct voff_pkt *mk(struct rig *r, const uint8_t *buf, size_t len)
{
	struct voff_pkt *pkt;

	CHECK(len > 0);
	CHECK_OK(voff_pkt_alloc(r->pool, &pkt));
	CHECK_OK(voff_pkt_set_data(pkt, buf, (uint32_t)len));
	return pkt;
}

static void send_pkts(struct rig *r, int from, struct voff_pkt **pkts,
		      unsigned int n)
{
	struct voff_batch b;

	voff_batch_init(&b);
	for (unsigned int i = 0; i < n; i++)
		CHECK_OK(voff_batch_add(&b, pkts[i]));
	CHECK_EQ(voff_port_tx(r->host[from], &b), (int)n);
}

static void send1(struct rig *r, int from, struct voff_pkt *pkt)
{
	send_pkts(r, from, &pkt, 1);
}

static void run(struct rig *r)
{
	for (int i = 0; i < 3; i++)
		CHECK_GE(voff_switch_poll(r->sw, 0), 0);
}

/* Frames waiting at host end @i (received into @b). */
static unsigned int recv_all(struct rig *r, int i, struct voff_batch *b)
{
	voff_batch_init(b);
	CHECK_GE(voff_port_rx(r->host[i], r->pool, b), 0);
	return b->n;
}

static unsigned int drain(struct rig *r, int i)
{
	struct voff_batch b;
	unsigned int n = recv_all(r, i, &b);

	voff_batch_free(&b);
	return n;
}

static void t_learn_and_flood(void)
{
	static uint8_t buf[2048];
	struct voff_switch_fdb_entry e[4];
	struct rig r;
	size_t len;

	rig_open(&r, NULL, 0);
	/* Unknown destination: flooded to both other ports, not back. */
	len = tcp_frame(buf, sizeof(buf), 0, MAC[1], 100, 1, false, false);
	send1(&r, 0, mk(&r, buf, len));
	run(&r);
	CHECK_EQ(drain(&r, 0), 0);
	CHECK_EQ(drain(&r, 1), 1);
	CHECK_EQ(drain(&r, 2), 1);
	/* The reply's destination was learned: port 0 only. */
	len = tcp_frame(buf, sizeof(buf), 1, MAC[0], 100, 1, false, false);
	send1(&r, 1, mk(&r, buf, len));
	run(&r);
	CHECK_EQ(drain(&r, 0), 1);
	CHECK_EQ(drain(&r, 1), 0);
	CHECK_EQ(drain(&r, 2), 0);
	/* And now port 1 is known too. */
	len = tcp_frame(buf, sizeof(buf), 0, MAC[1], 100, 2, false, false);
	send1(&r, 0, mk(&r, buf, len));
	run(&r);
	CHECK_EQ(drain(&r, 1), 1);
	CHECK_EQ(drain(&r, 2), 0);
	/* Broadcast goes everywhere else. */
	len = tcp_frame(buf, sizeof(buf), 2, BCAST, 10, 1, false, false);
	send1(&r, 2, mk(&r, buf, len));
	run(&r);
	CHECK_EQ(drain(&r, 0), 1);
	CHECK_EQ(drain(&r, 1), 1);
	CHECK_EQ(drain(&r, 2), 0);
	CHECK_EQ(voff_switch_fdb(r.sw, e, 4), 3);
	for (int i = 0; i < 3; i++) {
		int k = e[i].mac[5] - 1;

		CHECK(k >= 0 && k < 3);
		CHECK_EQ(e[i].port, r.id[k]);
	}
	/* Deleting a port forgets its addresses. */
	CHECK_OK(voff_switch_del(r.sw, r.id[2]));
	CHECK_EQ(voff_switch_fdb(r.sw, NULL, 0), 2);
	CHECK_EQ(voff_switch_del(r.sw, r.id[2]), -ENOENT);
	rig_close(&r);
}

static void t_aging(void)
{
	static uint8_t buf[2048];
	/*
	 * 200 ms to age: a test descheduled for a few milliseconds on a busy
	 * machine must not see the entry age before it looks (5 ms did).
	 */
	struct timespec ts = { 0, 260 * 1000000 };
	struct rig r;
	size_t len;

	rig_open(&r, NULL, 200 * 1000000ull);
	len = tcp_frame(buf, sizeof(buf), 1, MAC[0], 10, 1, false, false);
	send1(&r, 1, mk(&r, buf, len));
	run(&r);
	drain(&r, 0);
	drain(&r, 2);
	CHECK_EQ(voff_switch_fdb(r.sw, NULL, 0), 1);
	nanosleep(&ts, NULL);
	CHECK_EQ(voff_switch_fdb(r.sw, NULL, 0), 0);
	/* MAC[1] aged out: unicast to it is flooded again. */
	len = tcp_frame(buf, sizeof(buf), 0, MAC[1], 10, 1, false, false);
	send1(&r, 0, mk(&r, buf, len));
	run(&r);
	CHECK_EQ(drain(&r, 1), 1);
	CHECK_EQ(drain(&r, 2), 1);
	rig_close(&r);
}

static void t_vlan_untouched(void)
{
	static uint8_t buf[2048];
	struct voff_batch b;
	struct rig r;
	size_t len;

	rig_open(&r, NULL, 0);
	len = tcp_frame(buf, sizeof(buf), 0, BCAST, 333, 7, true, true);
	send1(&r, 0, mk(&r, buf, len));
	run(&r);
	for (int i = 1; i < 3; i++) {
		CHECK_EQ(recv_all(&r, i, &b), 1);
		CHECK_EQ(b.pkts[0]->len, len);
		CHECK(!memcmp(voff_pkt_data(b.pkts[0]), buf, len));
		voff_batch_free(&b);
	}
	rig_close(&r);
}

/* Learn MAC[1] on port 1 and MAC[2] on port 2 so unicast goes one way. */
static void learn(struct rig *r)
{
	static uint8_t buf[256];
	size_t len;

	for (int i = 1; i < 3; i++) {
		len = tcp_frame(buf, sizeof(buf), i, MAC[0], 1, 1, false,
				false);
		send1(r, i, mk(r, buf, len));
	}
	run(r);
	for (int i = 0; i < 3; i++)
		drain(r, i);
}

/* The TCP payload bytes of the frames in @b, concatenated. */
static size_t payload_of(struct voff_batch *b, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (unsigned int i = 0; i < b->n; i++) {
		struct voff_pkt *p = b->pkts[i];
		struct voff_parsed pp;
		size_t l;

		CHECK_OK(voff_pkt_parse(p, VOFF_PARSE_ETH, &pp));
		l = p->len - pp.payload_off;
		CHECK_LE(n + l, cap);
		memcpy(out + n, voff_pkt_data(p) + pp.payload_off, l);
		n += l;
	}
	return n;
}

static void super_case(bool v6)
{
	static uint8_t buf[70000], got[70000];
	const unsigned int tx[NPORTS] = { VOFF_TUN_F_TCP,
					  VOFF_TUN_F_TCP, 0 };
	struct voff_switch_stats st;
	const size_t payload = 40000;
	const uint16_t mss = v6 ? 1428 : 1448;
	struct voff_batch b;
	struct rig r;
	size_t len, hdr;

	rig_open(&r, tx, 0);
	learn(&r);
	len = tcp_frame(buf, sizeof(buf), 0, MAC[1], payload, 1000, v6,
			false);
	hdr = len - payload;
	/* To port 1, which takes TSO: whole, byte for byte. */
	{
		struct voff_pkt *p = mk(&r, buf, len);

		tso_mark(p, mss);
		send1(&r, 0, p);
	}
	run(&r);
	CHECK_EQ(recv_all(&r, 1, &b), 1);
	CHECK_EQ(b.pkts[0]->len, len);
	CHECK(b.pkts[0]->gso_size == mss);
	CHECK_EQ(payload_of(&b, got, sizeof(got)), payload);
	CHECK(!memcmp(got, buf + hdr, payload));
	voff_batch_free(&b);
	CHECK_OK(voff_switch_stats(r.sw, r.id[1], &st));
	CHECK_EQ(st.port.tx_gso, 1);
	CHECK_EQ(st.gso_segs, 0);
	CHECK_EQ(st.reseg_in, 0);
	/* To port 2, TSO off: MTU segments, identical to software GSO's. */
	len = tcp_frame(buf, sizeof(buf), 0, MAC[2], payload, 1000, v6,
			false);
	{
		struct voff_gso_opts o = { .csum_mode = VOFF_GSO_CSUM_PARTIAL };
		struct voff_pkt *p = mk(&r, buf, len), *ref[64];
		int n;

		/* Port 2 still takes partial checksums: segments keep them. */
		tso_mark(p, mss);
		n = voff_gso_segment(p, &o, r.pool, ref, 64);
		CHECK_EQ(n, (int)((payload + mss - 1) / mss));
		send1(&r, 0, p);
		run(&r);
		CHECK_EQ(recv_all(&r, 2, &b), (unsigned int)n);
		for (int i = 0; i < n; i++) {
			CHECK_EQ(b.pkts[i]->len, ref[i]->len);
			CHECK_LE(b.pkts[i]->len, 1514);
			CHECK_EQ(b.pkts[i]->gso_type, 0);
			CHECK(!memcmp(voff_pkt_data(b.pkts[i]),
				      voff_pkt_data(ref[i]), ref[i]->len));
		}
		voff_pkt_free_bulk(ref, (unsigned int)n);
		CHECK_EQ(payload_of(&b, got, sizeof(got)), payload);
		CHECK(!memcmp(got, buf + hdr, payload));
		voff_batch_free(&b);
		CHECK_OK(voff_switch_stats(r.sw, r.id[2], &st));
		CHECK_EQ(st.gso_in, 1);
		CHECK_EQ(st.gso_segs, (uint64_t)n);
		CHECK_EQ(st.port.tx_gso, 0);
	}
	rig_close(&r);
}

static void t_super_v4(void)
{
	super_case(false);
}

static void t_super_v6(void)
{
	super_case(true);
}

/*
 * A super-packet to an unknown address is flooded: whole to the port that
 * takes TSO, in MTU segments to the one that does not, from one step (the
 * copies share the switch's parse of the frame).
 */
static void t_flood_super(void)
{
	static uint8_t buf[70000], got[70000];
	static const uint8_t nobody[6] = { 0x02, 0, 0, 0, 0, 0x09 };
	const unsigned int tx[NPORTS] = { VOFF_TUN_F_TCP,
					  VOFF_TUN_F_TCP, 0 };
	const size_t payload = 20000;
	struct voff_switch_stats st;
	struct voff_batch b;
	struct voff_pkt *p;
	struct rig r;
	size_t len, hdr;

	rig_open(&r, tx, 0);
	len = tcp_frame(buf, sizeof(buf), 0, nobody, payload, 1, false,
			false);
	hdr = len - payload;
	p = mk(&r, buf, len);
	tso_mark(p, 1448);
	send1(&r, 0, p);
	run(&r);
	CHECK_EQ(recv_all(&r, 1, &b), 1);
	CHECK_EQ(b.pkts[0]->len, len);
	CHECK_EQ(b.pkts[0]->gso_size, 1448);
	CHECK_EQ(payload_of(&b, got, sizeof(got)), payload);
	CHECK(!memcmp(got, buf + hdr, payload));
	voff_batch_free(&b);
	CHECK_EQ(recv_all(&r, 2, &b), (payload + 1447) / 1448);
	CHECK_EQ(payload_of(&b, got, sizeof(got)), payload);
	CHECK(!memcmp(got, buf + hdr, payload));
	voff_batch_free(&b);
	CHECK_OK(voff_switch_stats(r.sw, r.id[0], &st));
	CHECK_EQ(st.flooded, 1);
	CHECK_OK(voff_switch_stats(r.sw, r.id[2], &st));
	CHECK_EQ(st.gso_in, 1);
	CHECK_EQ(st.drops[VOFF_SWITCH_DROP_XMIT], 0);
	rig_close(&r);
}

static void t_lower_limit(void)
{
	static uint8_t buf[70000], got[70000];
	struct voff_switch_stats st;
	const size_t payload = 60000;
	struct voff_pkt *p;
	struct voff_batch b;
	struct rig r;
	size_t len;

	rig_open(&r, NULL, 0);
	learn(&r);
	CHECK_OK(voff_switch_set(r.sw, r.id[1], "gso_max_size", 16000));
	CHECK_EQ(voff_switch_set(r.sw, r.id[1], "gso_max_size", 10), -ERANGE);
	len = tcp_frame(buf, sizeof(buf), 0, MAC[1], payload, 5, false, false);
	p = mk(&r, buf, len);
	tso_mark(p, 1448);
	send1(&r, 0, p);
	run(&r);
	CHECK_GE(recv_all(&r, 1, &b), 4);
	for (unsigned int i = 0; i < b.n; i++) {
		CHECK_LT(b.pkts[i]->len, 16000);
		if (i + 1 < b.n)
			CHECK(voff_pkt_is_gso(b.pkts[i]));
	}
	CHECK_EQ(payload_of(&b, got, sizeof(got)), payload);
	CHECK(!memcmp(got, buf + (len - payload), payload));
	CHECK_OK(voff_switch_stats(r.sw, r.id[1], &st));
	CHECK_EQ(st.reseg_in, 1);
	CHECK_EQ(st.reseg_out, b.n);
	CHECK_EQ(st.gso_segs, 0);
	voff_batch_free(&b);
	rig_close(&r);
}

/* Send one 65549-byte super-packet (IP length 65535) from 0 to 2. */
static unsigned int send_near_64k(struct rig *r)
{
	static uint8_t buf[70000];
	struct voff_batch b;
	struct voff_pkt *p;
	unsigned int n;
	size_t len;

	len = tcp_frame(buf, sizeof(buf), 0, MAC[2], 65495, 9, false, false);
	CHECK_EQ(len, 65549);
	p = mk(r, buf, len);
	tso_mark(p, 4036);
	send1(r, 0, p);
	run(r);
	n = recv_all(r, 2, &b);
	CHECK_GE(n, 1);
	CHECK_EQ(b.pkts[0]->len, n == 1 ? 65549 : 54 + 16 * 4036);
	voff_batch_free(&b);
	return n;
}

/*
 * A port whose egress takes more than 64 KiB (a packet port over a device
 * with a larger gso_max_size; here a memory port configured so) starts
 * with its own limit there, so the largest GRO frame passes whole.
 * Lowered, it is re-segmented; raised again, whole (the IPv4 size follows
 * up to VOFF_GSO_FRAME_LIMIT).
 */
static void t_limit_follows_egress(void)
{
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM,
				    .want = VOFF_TUN_F_TCP,
				    .tx_off = VOFF_TUN_F_TCP };
	struct voff_port *a;
	uint64_t v;
	struct rig r;

	rig_open(&r, NULL, 0);
	CHECK_OK(voff_switch_del(r.sw, r.id[2]));
	voff_port_close(r.host[2]);
	pc.limits.gso_max_size = VOFF_GSO_FRAME_LIMIT;
	CHECK_OK(voff_port_mem_pair(&a, &r.host[2], &pc));
	CHECK_OK(voff_switch_add(r.sw, a, "p2", &r.id[2]));
	CHECK_OK(voff_switch_get(r.sw, r.id[2], "gso_max_size", &v));
	CHECK_EQ(v, 65554);
	CHECK_OK(voff_switch_get(r.sw, r.id[1], "gso_max_size", &v));
	CHECK_EQ(v, 65536);
	learn(&r);
	CHECK_EQ(send_near_64k(&r), 1);
	CHECK_OK(voff_switch_set(r.sw, r.id[2], "gso_max_size", 65536));
	CHECK_EQ(send_near_64k(&r), 2);
	CHECK_OK(voff_switch_set(r.sw, r.id[2], "gso_max_size", 65554));
	CHECK_EQ(send_near_64k(&r), 1);
	CHECK_EQ(voff_switch_set(r.sw, r.id[2], "gso_max_size", 65555),
		 -ERANGE);	/* the range */
	CHECK_EQ(voff_switch_set(r.sw, r.id[1], "gso_max_size", 65554),
		 -EINVAL);	/* its egress stops at 65536 */
	rig_close(&r);
}

/*
 * @n MSS-sized segments of one TCP flow from host 0 to host 1, with
 * incrementing IP IDs (fixed ones would need TSO_MANGLEID), into @pkts;
 * their payloads concatenated into @payload when not NULL.
 * Return: the length of one frame.
 */
static size_t gro_train(struct rig *r, struct voff_pkt **pkts, int n,
			uint8_t *payload)
{
	static uint8_t buf[2048];
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		len = tcp_frame(buf, sizeof(buf), 0, MAC[1], 1448,
				1 + 1448u * (unsigned int)i, false, false);
		buf[14 + 4] = 0;
		buf[14 + 5] = (uint8_t)i;
		buf[14 + 10] = buf[14 + 11] = 0;
		fix_ip_csum(buf + 14);
		pkts[i] = mk(r, buf, len);
		if (payload)
			memcpy(payload + 1448 * (size_t)i, buf + len - 1448,
			       1448);
	}
	return len;
}

static void t_gro_ingress(void)
{
	static uint8_t got[70000], want[70000];
	struct voff_pkt *pkts[20];
	struct voff_switch_stats st;
	struct voff_batch b;
	uint64_t m;
	struct rig r;
	size_t wn;

	rig_open(&r, NULL, 0);
	learn(&r);
	CHECK_OK(voff_feat_lookup("gro", &m));
	CHECK_OK(voff_switch_set_features(r.sw, r.id[0], m, m));
	gro_train(&r, pkts, 20, want);
	wn = 20 * 1448;
	send_pkts(&r, 0, pkts, 20);
	run(&r);
	CHECK_EQ(recv_all(&r, 1, &b), 1);
	CHECK(voff_pkt_is_gso(b.pkts[0]));
	CHECK_EQ(b.pkts[0]->gso_size, 1448);
	CHECK_EQ(payload_of(&b, got, sizeof(got)), wn);
	CHECK(!memcmp(got, want, wn));
	voff_batch_free(&b);
	CHECK_OK(voff_switch_stats(r.sw, r.id[0], &st));
	CHECK_EQ(st.gro_merged, 19);
	CHECK_EQ(st.gro_out, 1);
	/* Turning GRO off keeps the counters. */
	CHECK_OK(voff_switch_set_features(r.sw, r.id[0], m, 0));
	CHECK_OK(voff_switch_stats(r.sw, r.id[0], &st));
	CHECK_EQ(st.gro_merged, 19);
	rig_close(&r);
}

/*
 * With gro_flush_timeout set, a held train makes the loop's sleep end at
 * its deadline, kept in nanoseconds (the millisecond form rounds up), and
 * a poll that waits for it flushes the train.
 */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void t_gro_deadline(void)
{
	const uint64_t tmo = 100000000;	/* 100 ms */
	struct voff_pkt *pkts[3];
	struct voff_batch b;
	uint64_t m, t0;
	unsigned int early;
	struct rig r;
	int64_t ns;
	size_t len;
	int ms;

	rig_open(&r, NULL, 0);
	learn(&r);
	CHECK_EQ(voff_switch_timeout_ns(r.sw), -1);
	CHECK_EQ(voff_switch_timeout_ms(r.sw), -1);
	CHECK_OK(voff_feat_lookup("gro", &m));
	CHECK_OK(voff_switch_set_features(r.sw, r.id[0], m, m));
	CHECK_OK(voff_switch_set(r.sw, r.id[0], "gro_flush_timeout", tmo));
	len = gro_train(&r, pkts, 3, NULL);
	send_pkts(&r, 0, pkts, 3);
	t0 = mono_ns();
	/* One step takes them in; the next finds the memory ports idle. */
	CHECK_EQ(voff_switch_poll(r.sw, 0), 3);
	CHECK_EQ(voff_switch_poll(r.sw, 0), 0);
	ns = voff_switch_timeout_ns(r.sw);
	ms = voff_switch_timeout_ms(r.sw);
	early = drain(&r, 1);
	if (early) {
		/* Descheduled past the deadline: then it must have passed. */
		CHECK_EQ(early, 1);
		CHECK_GE(mono_ns() - t0, tmo);
		rig_close(&r);
		return;
	}
	CHECK_MSG(ns >= 0 && ns <= (int64_t)tmo, "timeout %lld ns",
		  (long long)ns);
	/* Read a moment apart: within a millisecond of each other. */
	CHECK_MSG(ms >= 0 && ms <= 100 &&
		  (int64_t)ms * 1000000 + 1000000 > ns &&
		  (int64_t)ms * 1000000 < ns + 1000000,
		  "timeout %d ms for %lld ns", ms, (long long)ns);
	/* Waiting "forever" ends at the deadline, which flushes the train. */
	for (int i = 0; i < 100 && voff_switch_timeout_ns(r.sw) >= 0; i++)
		CHECK_GE(voff_switch_poll(r.sw, -1), 0);
	CHECK_GE(mono_ns() - t0, tmo);
	CHECK_EQ(voff_switch_timeout_ns(r.sw), -1);
	CHECK_EQ(recv_all(&r, 1, &b), 1);
	CHECK_EQ(b.pkts[0]->gso_size, 1448);
	CHECK_EQ(b.pkts[0]->len, len + 2 * 1448);
	voff_batch_free(&b);
	rig_close(&r);
}

/*
 * Busy-polling: after a step that received, the loop is told not to sleep
 * until the window since the last frame closes; a poll in the window
 * steps until then (returning 0 when nothing came) and the loop may sleep
 * again.  Without busy-polling an idle step lets it sleep at once.  A
 * window past the maximum is refused.
 */
static void t_busy_poll(void)
{
	const uint64_t win = 5000000;	/* 5 ms */
	struct voff_switch_config c = { .pool_size = 512 };
	struct voff_switch *sw;
	static uint8_t buf[2048];
	struct rig r;
	uint64_t t0;
	size_t len;

	c.busy_poll_ns = VOFF_SWITCH_BUSY_POLL_MAX + 1;
	CHECK_EQ(voff_switch_new(&sw, &c), -EINVAL);
	for (int busy = 0; busy < 2; busy++) {
		c.busy_poll_ns = busy ? win : 0;
		rig_open_cfg(&r, NULL, &c);
		len = tcp_frame(buf, sizeof(buf), 0, BCAST, 10, 1, false,
				false);
		send1(&r, 0, mk(&r, buf, len));
		t0 = mono_ns();
		CHECK_EQ(voff_switch_poll(r.sw, 0), 1);
		if (!busy) {
			CHECK_EQ(voff_switch_poll(r.sw, 0), 0);
			CHECK_EQ(voff_switch_timeout_ns(r.sw), -1);
			CHECK_EQ(drain(&r, 1), 1);
			CHECK_EQ(drain(&r, 2), 1);
			rig_close(&r);
			continue;
		}
		CHECK_EQ(voff_switch_timeout_ns(r.sw), 0);
		CHECK_EQ(voff_switch_timeout_ms(r.sw), 0);
		/* Nothing comes: the poll returns once the window closed. */
		CHECK_EQ(voff_switch_poll(r.sw, 0), 0);
		CHECK_GE(mono_ns() - t0, win);
		CHECK_EQ(voff_switch_timeout_ns(r.sw), -1);
		/* A frame opens the window again (halved: it closed empty). */
		send1(&r, 1, mk(&r, buf, len));
		CHECK_EQ(voff_switch_poll(r.sw, 0), 1);
		CHECK_EQ(voff_switch_timeout_ns(r.sw), 0);
		/*
		 * One that follows within the configured window opens it
		 * whole: the next empty spin lasts the full window.
		 */
		send1(&r, 2, mk(&r, buf, len));
		t0 = mono_ns();
		CHECK_EQ(voff_switch_poll(r.sw, 0), 1);
		CHECK_EQ(voff_switch_poll(r.sw, 0), 0);
		CHECK_GE(mono_ns() - t0, win);
		CHECK_EQ(drain(&r, 1), 2);
		CHECK_EQ(drain(&r, 2), 2);
		CHECK_EQ(drain(&r, 0), 2);
		rig_close(&r);
	}
}

/*
 * The busy-poll window over random gaps between frames, in virtual time:
 * each frame is caught by a spin when it comes within the window since
 * the last one; else the window closed empty before it.  Checked against
 * what the window promises: it stays within [max/16 + 1, max]; a frame
 * within the configured window leaves it whole, so that after one late
 * frame every following frame with such a gap is caught; a frame later
 * than the window leaves it halved (to the floor after enough of them).
 */
static void t_spin_window(void)
{
	const uint64_t max = 3000000, floor = max / 16 + 1;
	uint64_t w = max, seed = 0x9e3779b97f4a7c15ull;
	unsigned int late = 0, missed = 0, n = 20000;

	CHECK_EQ(voff__spin_on_frame(max, floor, UINT64_MAX), floor);
	CHECK_EQ(voff__spin_on_frame(max, floor, max), floor);
	CHECK_EQ(voff__spin_on_frame(max, floor, max - 1), max);
	CHECK_EQ(voff__spin_on_empty(max, max), max / 2);
	CHECK_EQ(voff__spin_on_empty(max, floor), floor);
	CHECK_EQ(voff__spin_on_empty(15, 15), 7);
	CHECK_EQ(voff__spin_on_empty(15, 2), 1);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t gap, before = w;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		/* Mostly 2 ms (a ping's rhythm), now and then 0..6 ms. */
		gap = seed % 8 ? 2000000 + seed % 100000
			       : (seed >> 8) % 6000000;
		if (gap >= max)
			late++;
		if (gap >= w) {
			/* Not caught: the window closed empty first. */
			w = voff__spin_on_empty(max, w);
			CHECK_EQ(w, before / 2 < floor ? floor : before / 2);
			if (gap < max)
				missed++;
		}
		w = voff__spin_on_frame(max, w, gap);
		CHECK(w >= floor && w <= max);
		CHECK_EQ(w, gap < max ? max : before / 2 < floor ? floor
								  : before / 2);
	}
	/* A frame the window is meant for is missed only after a late one. */
	CHECK_LE(missed, late);
	CHECK_GT(late, 0u);
	CHECK_LT(late, n / 8);
}

/*
 * The spin loop's yield on fake clocks: due VOFF__SPIN_YIELD_NS (20 us,
 * docs/switch.md) after the last one and not a nanosecond sooner, at the
 * first empty step of all; steps of 3 us yield every 7th step (21 us),
 * steps longer than 20 us (a descheduled spinner) at every step.
 */
static void t_spin_yield(void)
{
	const uint64_t y = VOFF__SPIN_YIELD_NS, t0 = 5000000000ull;
	uint64_t last = 0;
	unsigned int yields = 0, steps = 0;

	CHECK_EQ(y, 20000);
	CHECK(voff__spin_yield_now(&last, t0));
	CHECK_EQ(last, t0);
	CHECK(!voff__spin_yield_now(&last, t0));
	CHECK(!voff__spin_yield_now(&last, t0 + y - 1));
	CHECK_EQ(last, t0);	/* a "not yet" records nothing */
	CHECK(voff__spin_yield_now(&last, t0 + y));
	CHECK_EQ(last, t0 + y);
	last = 0;
	for (uint64_t t = t0; t < t0 + 1000000; t += 3000, steps++) {
		if (voff__spin_yield_now(&last, t)) {
			CHECK_EQ((t - t0) % 21000, 0);
			yields++;
		}
	}
	CHECK_EQ(steps, 334);
	CHECK_EQ(yields, 48);	/* at 0, 21, ..., 987 us */
	yields = 0;
	for (uint64_t t = t0 + 2000000; t < t0 + 2500000; t += 50000)
		yields += voff__spin_yield_now(&last, t);
	CHECK_EQ(yields, 10);
}

/* Two flows interleaved, one super-packet cut: each flow stays in order. */
static void t_no_reorder(void)
{
	static uint8_t buf[70000];
	const unsigned int tx[NPORTS] = { VOFF_TUN_F_TCP, 0, 0 };
	uint32_t next[2] = { 1, 1 };
	struct voff_pkt *pkts[8];
	struct voff_batch b;
	struct rig r;
	size_t len;

	rig_open(&r, tx, 0);
	learn(&r);
	for (int i = 0; i < 8; i++) {
		int flow = i & 1;
		size_t pl = (i == 2) ? 5000 : 700;

		len = tcp_frame(buf, sizeof(buf), 0, MAC[1], pl, next[flow],
				flow != 0, false);
		pkts[i] = mk(&r, buf, len);
		if (pl > 1448)
			tso_mark(pkts[i], 1448);
		next[flow] += (uint32_t)pl;
	}
	send_pkts(&r, 0, pkts, 8);
	run(&r);
	CHECK_EQ(recv_all(&r, 1, &b), 7 + 4);
	next[0] = next[1] = 1;
	for (unsigned int i = 0; i < b.n; i++) {
		struct voff_parsed pp;
		const uint8_t *d = voff_pkt_data(b.pkts[i]);
		uint32_t seq;
		int flow;

		CHECK_OK(voff_pkt_parse(b.pkts[i], VOFF_PARSE_ETH, &pp));
		flow = pp.l3_proto == 6;
		seq = (uint32_t)d[pp.l4_off + 4] << 24 |
		      (uint32_t)d[pp.l4_off + 5] << 16 |
		      (uint32_t)d[pp.l4_off + 6] << 8 | d[pp.l4_off + 7];
		CHECK_EQ(seq, next[flow]);
		next[flow] += b.pkts[i]->len - pp.payload_off;
	}
	voff_batch_free(&b);
	rig_close(&r);
}

static void t_control(void)
{
	struct voff_switch_port_info pi;
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM };
	struct voff_port *a, *b;
	unsigned int ids[8];
	struct rig r;
	uint64_t m;

	rig_open(&r, NULL, 0);
	CHECK_EQ(voff_switch_ports(r.sw, ids, 8), 3);
	CHECK_EQ(voff_switch_find(r.sw, "p1"), (int)r.id[1]);
	CHECK_EQ(voff_switch_find(r.sw, "nope"), -ENOENT);
	CHECK_OK(voff_port_mem_pair(&a, &b, &pc));
	CHECK_EQ(voff_switch_add(r.sw, a, "p1", NULL), -EEXIST);
	voff_port_close(a);
	voff_port_close(b);
	CHECK_OK(voff_switch_port_info(r.sw, r.id[0], &pi));
	CHECK(pi.feat.active & VOFF_F_TSO);
	CHECK(!(pi.feat.active & VOFF_F_GRO));
	CHECK_OK(voff_feat_lookup("tso", &m));
	CHECK_OK(voff_switch_set_features(r.sw, r.id[0], m, 0));
	CHECK_OK(voff_switch_port_info(r.sw, r.id[0], &pi));
	CHECK(!(pi.feat.active & VOFF_F_TSO));
	CHECK_OK(voff_switch_set(r.sw, r.id[0], "gro_flush_timeout", 20000));
	CHECK_OK(voff_switch_port_info(r.sw, r.id[0], &pi));
	CHECK_EQ(pi.gro_flush_timeout_ns, 20000);
	CHECK_EQ(voff_switch_set(r.sw, r.id[0], "mtu", 1400), -EINVAL);
	CHECK_EQ(voff_switch_set(r.sw, 99, "gso_max_segs", 4), -ENOENT);
	CHECK_STR_EQ(voff_switch_drop_name(VOFF_SWITCH_DROP_RUNT), "runt");
	rig_close(&r);
}

CHECK_MAIN(CHECK_TEST(t_learn_and_flood), CHECK_TEST(t_aging),
	   CHECK_TEST(t_vlan_untouched), CHECK_TEST(t_super_v4),
	   CHECK_TEST(t_super_v6), CHECK_TEST(t_flood_super),
	   CHECK_TEST(t_lower_limit),
	   CHECK_TEST(t_limit_follows_egress),
	   CHECK_TEST(t_gro_ingress), CHECK_TEST(t_gro_deadline),
	   CHECK_TEST(t_no_reorder), CHECK_TEST(t_busy_poll),
	   CHECK_TEST(t_spin_window), CHECK_TEST(t_spin_yield),
	   CHECK_TEST(t_control))
