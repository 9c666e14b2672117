/* SPDX-License-Identifier: MIT */
/*
 * test_switch_faults.c - hostile frames into a switch port: every frame is
 * either forwarded or counted under a named drop reason, `voff ctl stats`
 * lists those reasons (rx_drop_NAME), and random headers and bytes never
 * break the accounting (memory ports, no privileges)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/err.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"
#include "frames.h"

#define VH 10

static struct voff_port *peer_a, *peer_b;

/* Switch with ports a and b (memory, 10-byte virtio_net_hdr, TSO). */
static struct voff_switch *sw_new(void)
{
	struct voff_switch_config c = { .pool_size = 256 };
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM, .vnet_hdr_len = VH };
	struct voff_switch *sw;
	struct voff_port *a, *b;

	pc.want = VOFF_TUN_F_ALL;
	pc.tx_off = VOFF_TUN_F_TCP;
	CHECK_OK(voff_switch_new(&sw, &c));
	CHECK_OK(voff_port_mem_pair(&a, &peer_a, &pc));
	CHECK_OK(voff_port_mem_pair(&b, &peer_b, &pc));
	CHECK_OK(voff_switch_add(sw, a, "a", NULL));
	CHECK_OK(voff_switch_add(sw, b, "b", NULL));
	return sw;
}

static const char *ctl(struct voff_switch *sw, const char *req)
{
	static char reply[65536];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f != NULL);
	CHECK_OK(voff_switch_ctl(sw, req, strlen(req), f));
	fclose(f);
	CHECK_LT(len, sizeof(reply));
	memcpy(reply, out, len + 1);
	free(out);
	return reply;
}

/*
 * A TCP/IPv4 frame of @pay payload bytes after a virtio_net_hdr at
 * @buf: GSO TCPV4 at @gso_size when non-zero, partial checksum when @csum.
 */
static size_t frame(uint8_t *buf, size_t cap, size_t pay, uint16_t gso_size,
		    bool csum)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0xb };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0xa };
	struct tf_ip ip = { 0 };
	struct tf_l4 l4 = { 0 };
	struct tf b;
	size_t len;

	memset(buf, 0, VH);
	tf_init(&b, buf + VH, cap - VH);
	tf_eth_addr(&b, dst, src);
	tf_ipv4(&b, &ip);
	tf_tcp(&b, &l4);
	tf_payload(&b, pay, 1);
	len = tf_finish(&b);
	if (csum) {
		buf[0] = 1;			/* NEEDS_CSUM */
		buf[6] = 34; buf[7] = 0;	/* csum_start: TCP, LE */
		buf[8] = 16; buf[9] = 0;	/* csum_offset */
	}
	if (gso_size) {
		buf[1] = 1;			/* GSO_TCPV4 */
		buf[2] = 54; buf[3] = 0;	/* hdr_len */
		buf[4] = (uint8_t)gso_size;
		buf[5] = (uint8_t)(gso_size >> 8);
	}
	return VH + len;
}

static uint64_t json_u64(const char *r, const char *key)
{
	char k[96];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(r, k);
	return p ? strtoull(p + strlen(k), NULL, 10) : UINT64_MAX;
}

/* Sum of every "rx_drop_*" value in a JSON stats reply. */
static uint64_t rx_reasons(const char *r)
{
	uint64_t sum = 0;

	for (const char *p = r; (p = strstr(p, "\"rx_drop_")); p++) {
		const char *v = strchr(p, ':');

		sum += strtoull(v + 1, NULL, 10);
	}
	return sum;
}

/* Each class of bad header lands under its own reason, valid ones pass. */
static void t_reasons(void)
{
	struct voff_switch *sw = sw_new();
	uint8_t buf[9000];
	const char *r;
	size_t n;

	/* Valid: a TSO super-packet b learns as a destination first. */
	n = frame(buf, sizeof(buf), 4000, 1448, true);
	CHECK_OK(voff_port_mem_inject(voff_switch_port(sw, 0), buf, n));
	/* GSO without NEEDS_CSUM. */
	n = frame(buf, sizeof(buf), 4000, 1448, false);
	CHECK_OK(voff_port_mem_inject(voff_switch_port(sw, 0), buf, n));
	/* IP version 7 under a GSO header. */
	n = frame(buf, sizeof(buf), 4000, 1448, true);
	buf[VH + 14] = 0x75;
	CHECK_OK(voff_port_mem_inject(voff_switch_port(sw, 0), buf, n));
	/* csum_start past the frame. */
	n = frame(buf, sizeof(buf), 100, 0, true);
	buf[6] = 0x40; buf[7] = 0x1f;
	CHECK_OK(voff_port_mem_inject(voff_switch_port(sw, 0), buf, n));
	/* Shorter than the header itself. */
	CHECK_OK(voff_port_mem_inject(voff_switch_port(sw, 0), buf, 6));
	CHECK_GE(voff_switch_poll(sw, 0), 0);

	r = ctl(sw, "-j stats a");
	CHECK_EQ(json_u64(r, "rx_packets"), 1);
	CHECK_EQ(json_u64(r, "rx_dropped"), 4);
	CHECK_EQ(rx_reasons(r), 4);
	CHECK_EQ(json_u64(r, "rx_drop_vnet_gso_no_csum"), 1);
	CHECK_EQ(json_u64(r, "rx_drop_ip_version"), 1);
	r = ctl(sw, "-j stats b");
	CHECK_EQ(json_u64(r, "tx_packets"), 1);
	CHECK_EQ(json_u64(r, "tx_super"), 1);
	/* Text: the same names, one line each. */
	r = ctl(sw, "stats a");
	CHECK(strstr(r, "  rx_drop_vnet_gso_no_csum 1\n") != NULL);
	CHECK(strstr(r, "  rx_drop_ip_version 1\n") != NULL);
	/* No drop, no reason line. */
	r = ctl(sw, "stats b");
	CHECK(strstr(r, "rx_drop_") == NULL && strstr(r, "tx_drop_") == NULL);
	/* The peers' rings hold packets of the switch's pool: close first. */
	voff_port_close(peer_a);
	voff_port_close(peer_b);
	voff_switch_free(sw);
}

/* The peer of b reads what b sent, so its ring never fills. */
static void drain_b(struct voff_pool *pool)
{
	struct voff_batch bt;

	voff_batch_init(&bt);
	while (voff_port_rx(peer_b, pool, &bt) > 0)
		voff_batch_free(&bt);
}

/*
 * Random virtio_net_hdrs over valid and mangled frames: the switch
 * survives, and every injected frame is forwarded or counted by reason.
 */
static void t_random(void)
{
	struct voff_switch *sw = sw_new();
	struct voff_pool *pool;
	uint8_t buf[9000];
	uint64_t sent = 0;
	uint32_t seed = 0x5eed;
	const char *r;

	CHECK_OK(voff_pool_new(&pool, 256, VOFF_PKT_SUPER_ROOM));

	for (int round = 0; round < 200; round++) {
		for (int i = 0; i < 32; i++) {
			size_t n = frame(buf, sizeof(buf), seed % 3000,
					 (uint16_t)(seed % 2000), seed & 1);

			for (int k = 0; k < 4; k++) {
				seed = seed * 1103515245u + 12345u;
				buf[(seed >> 8) % (VH + 60)] = (uint8_t)(seed >> 24);
			}
			seed = seed * 1103515245u + 12345u;
			if (seed & 0x100)
				n = (seed >> 12) % n + 1;
			if (!voff_port_mem_inject(voff_switch_port(sw, 0), buf,
						  n))
				sent++;
		}
		CHECK_GE(voff_switch_poll(sw, 0), 0);
		drain_b(pool);
	}
	/*
	 * A mostly malformed read holds port a for a while (rx_backoff), and
	 * what the last rounds injected may still wait in its ring: let the
	 * hold run out so that every frame is read.
	 */
	for (int i = 0; i < 200; i++) {
		r = ctl(sw, "-j stats a");
		if (json_u64(r, "rx_packets") + json_u64(r, "rx_dropped") ==
		    sent)
			break;
		CHECK_GE(voff_switch_poll(sw, 5), 0);
		drain_b(pool);
	}
	r = ctl(sw, "-j stats a");
	CHECK_EQ(json_u64(r, "rx_packets") + json_u64(r, "rx_dropped"), sent);
	CHECK_EQ(rx_reasons(r), json_u64(r, "rx_dropped"));
	CHECK_GT(json_u64(r, "rx_dropped"), 0);
	CHECK_GT(json_u64(r, "rx_packets"), 0);
	voff_port_close(peer_a);
	voff_port_close(peer_b);
	voff_switch_free(sw);
	voff_pool_free(pool);
}

/*
 * @n frames (at most 16: what a memory port holds injected) into port a:
 * GSO without NEEDS_CSUM (refused) or valid.
 */
static void inject(struct voff_switch *sw, unsigned int n, bool bad)
{
	uint8_t buf[2048];
	size_t len = frame(buf, sizeof(buf), bad ? 1000 : 100,
			   bad ? 536 : 0, !bad);

	for (unsigned int i = 0; i < n; i++)
		CHECK_OK(voff_port_mem_inject(voff_switch_port(sw, 0), buf,
					      len));
}

/* Poll until port a has counted @n frames in all (at most 2 s of waits). */
static void poll_until(struct voff_switch *sw, uint64_t n)
{
	const char *r = ctl(sw, "-j stats a");

	for (int i = 0; i < 200; i++) {
		r = ctl(sw, "-j stats a");
		if (json_u64(r, "rx_packets") + json_u64(r, "rx_dropped") >= n)
			break;
		CHECK_GE(voff_switch_poll(sw, 10), 0);
	}
	CHECK_EQ(json_u64(r, "rx_packets") + json_u64(r, "rx_dropped"), n);
}

/*
 * A port whose reads are mostly malformed is held unread (100 us, longer
 * after each such read, up to its rx_backoff) and let go by the first read
 * that is not; the loop's timeout wakes it at the end of the hold, and
 * every frame is still counted once read.  rx_backoff 0 never holds.
 */
static void t_police(void)
{
	struct voff_switch *sw = sw_new();
	const char *r;
	uint64_t v;
	int64_t t;

	CHECK_OK(voff_switch_get(sw, 0, "rx_backoff", &v));
	CHECK_EQ(v, VOFF_SWITCH_RX_BACKOFF_NS / 1000);
	CHECK_EQ(voff_switch_set(sw, 0, "rx_backoff", 1000001), -ERANGE);
	CHECK_OK(voff_switch_set(sw, 0, "rx_budget", 16));
	/* 16 refused: held, and the loop is told when to read it again. */
	inject(sw, 16, true);
	CHECK_EQ(voff_switch_poll(sw, 0), 0);
	r = ctl(sw, "-j stats a");
	CHECK_EQ(json_u64(r, "rx_dropped"), 16);
	CHECK_EQ(json_u64(r, "rx_held"), 1);
	t = voff_switch_timeout_ns(sw);
	CHECK(t >= 0 && t <= 100000);
	/* Mostly malformed reads in a row: held each time. */
	for (unsigned int k = 2; k <= 4; k++) {
		inject(sw, 16, true);
		poll_until(sw, 16 * k);
	}
	r = ctl(sw, "-j stats a");
	CHECK_EQ(json_u64(r, "rx_held"), 4);
	/* Good frames are read once the hold ends, and end it. */
	inject(sw, 4, false);
	poll_until(sw, 68);
	r = ctl(sw, "-j stats a");
	CHECK_EQ(json_u64(r, "rx_packets"), 4);
	CHECK_EQ(json_u64(r, "rx_held"), 4);
	/* Not held any more: an idle step lets the loop sleep. */
	CHECK_EQ(voff_switch_poll(sw, 0), 0);
	CHECK_EQ(voff_switch_timeout_ns(sw), -1);
	/* A few refused frames among good ones hold nothing. */
	inject(sw, 4, true);
	inject(sw, 8, false);
	poll_until(sw, 80);
	CHECK_EQ(json_u64(ctl(sw, "-j stats a"), "rx_held"), 4);
	/* rx_backoff 0: never held. */
	CHECK_OK(voff_switch_set(sw, 0, "rx_backoff", 0));
	for (int k = 0; k < 2; k++) {
		inject(sw, 16, true);
		CHECK_GE(voff_switch_poll(sw, 0), 0);
	}
	r = ctl(sw, "-j stats a");
	CHECK_EQ(json_u64(r, "rx_held"), 4);
	CHECK_EQ(json_u64(r, "rx_dropped"), 16 + 48 + 4 + 32);
	voff_port_close(peer_a);
	voff_port_close(peer_b);
	voff_switch_free(sw);
}

CHECK_MAIN(CHECK_TEST(t_reasons), CHECK_TEST(t_random), CHECK_TEST(t_police))
