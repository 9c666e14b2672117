/* SPDX-License-Identifier: MIT */
/*
 * test_switch_kernel.c - the switch against the kernel's bridge at the
 * egress edges: one train of TCP/IPv4 segments goes through either, over
 * the same veths, and the frames that come out must be the same (count,
 * every byte, IP IDs) where the answer depends on the egress device's
 * TSO_MANGLEID and gso limits (docs/kernel-model.md §7).  Root only
 * (skipped otherwise).
 *
 *   ns A:  a0 ==veth== a1 [voff: packet:a1 gro=on  ->  packet:b1] b1 ==veth== b0
 *          sender         [or br0, the kernel's GRO on a1       ] observer
 *
 * And propagation, which tells a TAP the other ports' limits, stays within
 * what the TAP can take.
 *
 * The kernel's GRO on a1 merges the train only if it lands within its
 * flush timeout, which a loaded machine can miss: the bridge's run is
 * tried up to three times before its frames are compared.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <voff/netlink.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"
#include "frames.h"
#include "port_ns.h"

#define MAX_FRAMES 40
#define FRAME_CAP 65600

/* What left b0's peer: the frames of the train, in order. */
struct seen {
	unsigned int n;
	uint32_t len[MAX_FRAMES];
	uint8_t data[MAX_FRAMES][FRAME_CAP];
	size_t payload;
};

static struct seen by_voff, by_bridge;

/*
 * struct train - segments of one flow
 * @n:		segments
 * @mss:	payload of each but the last
 * @payload:	total payload
 * @df:		DF set
 * @fixed:	every IP ID 7 (else 7, 8, 9, ...)
 */
struct train {
	unsigned int n, mss;
	size_t payload;
	bool df, fixed;
};

static void setup(void)
{
	ns_playground();
	sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
	   "net.ipv6.conf.default.disable_ipv6=1", ns_a);
	sh("ip -n %s link add a0 type veth peer name a1", ns_a);
	sh("ip -n %s link add b0 type veth peer name b1", ns_a);
	sh("for d in a0 a1 b0 b1; do ip -n %s link set $d mtu 9000 up; done",
	   ns_a);
	/* A sender with TSO is not merged by the peer veth's GRO. */
	sh("ip netns exec %s ethtool -K a0 tso off >/dev/null", ns_a);
}

/* b1 as the egress device: MANGLEID on or off, both gso sizes. */
static void egress_dev(bool mangleid, uint32_t gso)
{
	sh("ip netns exec %s ethtool -K b1 tx-tcp-mangleid-segmentation %s "
	   ">/dev/null", ns_a, mangleid ? "on" : "off");
	sh("ip -n %s link set b1 gso_max_size %u", ns_a, gso);
	CHECK_OK(voff_netlink_set_limits(ns_a, "b1", &(struct voff_limits){
		.gso_ipv4_max_size = gso }));
}

static struct voff_port *open_plain(const char *dev)
{
	struct voff_port_cfg cfg = { .kind = VOFF_PORT_PACKET, .name = dev,
				     .netns = ns_a,
				     .flags = VOFF_PORT_F_NO_VNET };
	struct voff_port *p;

	CHECK_OK(voff_port_open(&p, &cfg));
	return p;
}

/* Send the train from a0 in one batch. */
static void send_train(struct voff_port *a0, struct voff_pool *pool,
		       const struct train *t)
{
	static uint8_t frame[FRAME_CAP];
	struct voff_batch b;

	voff_batch_init(&b);
	for (unsigned int i = 0; i < t->n; i++) {
		size_t at = (size_t)i * t->mss, len;
		size_t n = t->payload - at < t->mss ? t->payload - at : t->mss;
		struct voff_pkt *pkt;
		struct tf f;

		tf_init(&f, frame, sizeof(frame));
		tf_eth(&f);
		tf_ipv4(&f, &(struct tf_ip){
			.df = t->df, .id = (uint16_t)(t->fixed ? 7 : 7 + i) });
		tf_tcp(&f, &(struct tf_l4){ .seq = 1000 + (uint32_t)at,
					    .ack = 1, .flags = TF_ACK });
		tf_payload(&f, n, (uint8_t)at);
		len = tf_finish(&f);
		CHECK_OK(voff_pkt_alloc(pool, &pkt));
		CHECK_OK(voff_pkt_set_data(pkt, frame, (uint32_t)len));
		CHECK_OK(voff_batch_add(&b, pkt));
	}
	CHECK_EQ(voff_port_tx(a0, &b), (int)t->n);
}

/* Keep what b0 received of the train (TCP to port 2); others are noise. */
static void take(struct voff_port *b0, struct voff_pool *pool,
		 struct seen *s)
{
	struct voff_batch b;

	voff_batch_init(&b);
	CHECK_GE(voff_port_rx(b0, pool, &b), 0);
	for (unsigned int i = 0; i < b.n; i++) {
		const uint8_t *d = voff_pkt_data(b.pkts[i]);
		uint32_t len = b.pkts[i]->len;

		if (len < 54 || d[12] != 0x08 || d[13] != 0x00 ||
		    d[23] != 6 || d[36] != 0 || d[37] != 2)
			continue;
		CHECK_LT(s->n, MAX_FRAMES);
		CHECK_LE(len, FRAME_CAP);
		memcpy(s->data[s->n], d, len);
		s->len[s->n++] = len;
		s->payload += len - 54;
	}
	voff_batch_free(&b);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Through `voff switch`: GRO on a1 (20 ms to hold a flow), b1 plain. */
static void run_voff(const struct train *t, struct seen *s)
{
	struct voff_port *a0 = open_plain("a0"), *b0 = open_plain("b0");
	struct voff_switch *sw;
	struct voff_pool *pool;
	char spec[128];
	uint64_t end;

	memset(s, 0, sizeof(*s));
	CHECK_OK(voff_pool_new(&pool, 256, VOFF_PKT_SUPER_ROOM));
	CHECK_OK(voff_switch_new(&sw, NULL));
	snprintf(spec, sizeof(spec),
		 "packet:a1@%s,gro=on,gro_flush_timeout=20000000", ns_a);
	CHECK_OK(voff_switch_add_spec(sw, spec, NULL));
	snprintf(spec, sizeof(spec), "packet:b1@%s", ns_a);
	CHECK_OK(voff_switch_add_spec(sw, spec, NULL));
	send_train(a0, pool, t);
	end = now_ms() + 2000;
	while (now_ms() < end && s->payload < t->payload) {
		CHECK_GE(voff_switch_poll(sw, 5), 0);
		take(b0, pool, s);
	}
	/* Anything more (it would be a bug) has 50 ms to show up. */
	for (end = now_ms() + 50; now_ms() < end;) {
		CHECK_GE(voff_switch_poll(sw, 5), 0);
		take(b0, pool, s);
	}
	voff_switch_free(sw);
	voff_port_close(a0);
	voff_port_close(b0);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

/* Through a kernel bridge: the kernel's GRO on a1, as gro.sh sets it. */
static void run_bridge_once(const struct train *t, struct seen *s)
{
	struct voff_port *a0 = open_plain("a0"), *b0 = open_plain("b0");
	struct voff_pool *pool;
	uint64_t end;

	memset(s, 0, sizeof(*s));
	CHECK_OK(voff_pool_new(&pool, 256, VOFF_PKT_SUPER_ROOM));
	send_train(a0, pool, t);
	for (end = now_ms() + 2000; now_ms() < end && s->payload < t->payload;) {
		struct pollfd pfd = { .fd = voff_port_fd(b0), .events = POLLIN };

		poll(&pfd, 1, 5);
		take(b0, pool, s);
	}
	for (end = now_ms() + 50; now_ms() < end;) {
		struct pollfd pfd = { .fd = voff_port_fd(b0), .events = POLLIN };

		poll(&pfd, 1, 5);
		take(b0, pool, s);
	}
	voff_port_close(a0);
	voff_port_close(b0);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_pool_free(pool);
}

static bool same(const struct seen *a, const struct seen *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned int i = 0; i < a->n; i++)
		if (a->len[i] != b->len[i] ||
		    memcmp(a->data[i], b->data[i], a->len[i]))
			return false;
	return true;
}

static void show(const char *who, const struct seen *s)
{
	fprintf(stderr, "%s: %u frames:", who, s->n);
	for (unsigned int i = 0; i < s->n; i++)
		fprintf(stderr, " %u(id %u)", s->len[i],
			(unsigned int)(s->data[i][18] << 8 | s->data[i][19]));
	fprintf(stderr, "\n");
}

/* The bridge's frames, tried until they match voff's or three times. */
static void run_bridge(const struct train *t, struct seen *s,
		       const struct seen *want)
{
	sh("ip -n %s link add br0 type bridge && "
	   "ip -n %s link set a1 master br0 && "
	   "ip -n %s link set b1 master br0 && ip -n %s link set br0 up",
	   ns_a, ns_a, ns_a, ns_a);
	sh("ip netns exec %s ethtool -K a1 gro on >/dev/null", ns_a);
	sh("ip netns exec %s sh -c 'echo 1000000 > "
	   "/sys/class/net/a1/gro_flush_timeout && echo 1 > "
	   "/sys/class/net/a1/napi_defer_hard_irqs'", ns_a);
	for (int tries = 0; tries < 3; tries++) {
		run_bridge_once(t, s);
		if (!want || same(s, want))
			break;
		show("bridge (again)", s);
	}
	sh("ip -n %s link del br0", ns_a);
	sh("ip netns exec %s ethtool -K a1 gro off >/dev/null", ns_a);
}

/* Both runs; their frames must be equal, byte for byte. */
static void compare(const struct train *t)
{
	run_voff(t, &by_voff);
	run_bridge(t, &by_bridge, &by_voff);
	show("voff", &by_voff);
	show("bridge", &by_bridge);
	CHECK_EQ(by_voff.n, by_bridge.n);
	for (unsigned int i = 0; i < by_voff.n; i++) {
		CHECK_EQ(by_voff.len[i], by_bridge.len[i]);
		CHECK_MEM_EQ(by_voff.data[i], by_bridge.data[i],
			     by_voff.len[i]);
	}
	CHECK_EQ(by_voff.payload, t->payload);
}

static uint16_t ip_id(const struct seen *s, unsigned int i)
{
	return (uint16_t)(s->data[i][18] << 8 | s->data[i][19]);
}

static bool has_df(const struct seen *s, unsigned int i)
{
	return s->data[i][20] & 0x40;
}

/* DF, fixed IDs: a veth with MANGLEID takes the merged train whole. */
static void t_fixed_id_df_whole(void)
{
	const struct train t = { .n = 4, .mss = 1000, .payload = 4000,
				 .df = true, .fixed = true };

	setup();
	egress_dev(true, 65536);
	compare(&t);
	CHECK_EQ(by_voff.n, 1);
	CHECK_EQ(by_voff.len[0], 54 + 4000);
	CHECK_EQ(ip_id(&by_voff, 0), 7);
	CHECK(has_df(&by_voff, 0));
}

/* Four segments with ID 7 merged, then cut again at b1: IDs kept. */
static void fixed_id_cut(bool mangleid, bool df)
{
	const struct train t = { .n = 4, .mss = 1000, .payload = 4000,
				 .df = df, .fixed = true };

	setup();
	egress_dev(mangleid, 65536);
	compare(&t);
	CHECK_EQ(by_voff.n, 4);
	for (unsigned int i = 0; i < 4; i++) {
		CHECK_EQ(by_voff.len[i], 54 + 1000);
		CHECK_EQ(ip_id(&by_voff, i), 7);
		CHECK_EQ(has_df(&by_voff, i), df);
	}
}

/* Without MANGLEID on the egress device. */
static void t_fixed_id_no_mangleid_cut(void)
{
	fixed_id_cut(false, true);
}

/* DF clear: MANGLEID does not apply (gso_features_check()). */
static void t_fixed_id_no_df_cut(void)
{
	fixed_id_cut(true, false);
}

/*
 * The largest GRO frame, 65549 bytes (IP length 65535, as the kernel's
 * GRO selftest "large" builds it): whole through a device whose gso sizes
 * allow it.
 */
static const struct train near64k = { .n = 17, .mss = 4036,
				      .payload = 65495, .df = true };

static void t_near_64k_whole(void)
{
	setup();
	egress_dev(true, 131072);
	compare(&near64k);
	CHECK_EQ(by_voff.n, 1);
	CHECK_EQ(by_voff.len[0], 65549);
	CHECK_EQ(by_voff.data[0][16] << 8 | by_voff.data[0][17], 65535);
}

/*
 * With the default 65536 the kernel cuts it to MSS frames; voff
 * re-segments it into the fewest super-packets below the limit instead
 * (RESEGMENT, its own verdict): 16 segments, then 1.
 */
static void t_near_64k_default_limit(void)
{
	setup();
	egress_dev(true, 65536);
	run_voff(&near64k, &by_voff);
	show("voff", &by_voff);
	CHECK_EQ(by_voff.n, 2);
	CHECK_EQ(by_voff.len[0], 54 + 16 * 4036);
	CHECK_EQ(by_voff.len[1], 54 + 919);
	CHECK_EQ(by_voff.payload, near64k.payload);
	run_bridge(&near64k, &by_bridge, NULL);
	show("bridge", &by_bridge);
	CHECK_EQ(by_bridge.n, 17);
	CHECK_EQ(by_bridge.payload, near64k.payload);
}

/* A memory port whose egress takes frames up to @gso bytes. */
static unsigned int add_mem(struct voff_switch *sw, const char *name,
			    uint32_t gso, struct voff_port **host)
{
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM,
				    .want = VOFF_TUN_F_TCP,
				    .tx_off = VOFF_TUN_F_TCP };
	struct voff_port *a;
	unsigned int id;

	pc.limits.gso_max_size = gso;
	CHECK_OK(voff_port_mem_pair(&a, host, &pc));
	CHECK_OK(voff_switch_add(sw, a, name, &id));
	return id;
}

static uint32_t tap_gso_max_size(void)
{
	struct voff_limits l;

	CHECK_OK(voff_netlink_get_limits(ns_a, "t0", NULL, &l));
	return l.gso_max_size;
}

/*
 * Propagation tells a TAP the smallest gso_max_size of the other ports,
 * but never more than the TAP's tso_max_size (65536), which the kernel
 * would refuse: with a port at 65554 left, the TAP gets 65536 back.
 */
static void t_propagation_capped_at_tap(void)
{
	struct voff_port *h1, *h2;
	struct voff_switch *sw;
	char spec[128];
	unsigned int small;

	ns_playground();
	CHECK_OK(voff_switch_new(&sw, NULL));
	snprintf(spec, sizeof(spec), "tap:t0@%s", ns_a);
	CHECK_OK(voff_switch_add_spec(sw, spec, NULL));
	add_mem(sw, "big", VOFF_GSO_FRAME_LIMIT, &h1);
	small = add_mem(sw, "small", 16000, &h2);
	CHECK_EQ(tap_gso_max_size(), 16000);
	CHECK_OK(voff_switch_del(sw, small));
	CHECK_EQ(tap_gso_max_size(), 65536);
	voff_switch_free(sw);
	voff_port_close(h1);
	voff_port_close(h2);
}

CHECK_MAIN(CHECK_TEST(t_fixed_id_df_whole),
	   CHECK_TEST(t_fixed_id_no_mangleid_cut),
	   CHECK_TEST(t_fixed_id_no_df_cut),
	   CHECK_TEST(t_near_64k_whole),
	   CHECK_TEST(t_near_64k_default_limit),
	   CHECK_TEST(t_propagation_capped_at_tap))
