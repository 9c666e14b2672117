/* SPDX-License-Identifier: MIT */
/*
 * bench_switch.c - the per-frame cost of struct voff_switch's data path,
 * over memory ports, so that it can be counted exactly (callgrind) as well
 * as timed
 *
 *	bench_switch [--frames N] [--case NAME] [--list]
 *
 * Each case opens a switch with two memory ports (10-byte virtio_net_hdr,
 * as a TAP has).  The test's end of the first sends N frames of one kind,
 * BATCH at a time; after each batch one voff_switch_poll() reads them,
 * decodes and validates their headers, learns, looks up, decides and
 * encodes them into the second port, whose far end then drains them.  The
 * second port takes checksum and TSO offloads, or (cases ending in _sw)
 * none, so the switch completes checksums and segments in software.
 *
 * Reported: ns per frame spent inside voff_switch_poll() (wall clock, so
 * noisy on a shared machine), and frames delivered.  The far ends' own
 * encode and decode are outside the timed calls.  For a deterministic
 * figure, run a case under callgrind with --toggle-collect=voff_switch_poll
 * (bench/switch-callgrind.sh does it for every case): instructions per
 * frame.  docs/bench-switch.md ("Parse once") has figures.
 *
 * The frames: udp64 is a 64-byte UDP/IPv4 frame whose checksum is left to
 * the receiver (no offload claimed), udp64_csum the same with a partial
 * checksum (what a TAP with checksum offload hands over), tcp1514 a
 * full-size TCP/IPv4 segment with a partial checksum and timestamps, and
 * tso64k a 65226-byte TCP/IPv4 super-packet of 45 x 1448 bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voff/voff.h>

#include "frames.h"

#define MAX_FRAME 66000

struct bcase {
	const char *name;
	bool udp;
	bool partial;		/* host sends a partial checksum */
	uint32_t payload;	/* L4 payload bytes */
	uint16_t mss;		/* >0: a TSO super-packet of this MSS */
	bool sw;		/* the egress lacks every offload */
	unsigned int batch;	/* frames per voff_switch_poll() */
};

static const struct bcase cases[] = {
	{ "udp64", true, false, 22, 0, false, 32 },
	{ "udp64_csum", true, true, 22, 0, false, 32 },
	{ "tcp1514", false, true, 1448, 0, false, 32 },
	{ "tso64k", false, true, 45 * 1448, 1448, false, 8 },
	{ "udp64_sw", true, false, 22, 0, true, 32 },
	{ "udp64_csum_sw", true, true, 22, 0, true, 32 },
	{ "tcp1514_sw", false, true, 1448, 0, true, 32 },
	{ "tso64k_sw", false, true, 45 * 1448, 1448, true, 8 },
};

#define N_CASES (sizeof(cases) / sizeof(cases[0]))

static const uint8_t MAC_A[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t MAC_B[6] = { 0x02, 0, 0, 0, 0, 0x0b };

/*
 * Ethernet + IPv4 (DF) + UDP or TCP with timestamps + @payload bytes,
 * from @src to @dst (the tests' frame builder), the L4 checksum field
 * holding the pseudo-header sum, as a partial checksum carries it.
 * Return: the frame length.
 */
static uint32_t build(uint8_t *d, const uint8_t *dst, const uint8_t *src,
		      bool udp, uint32_t payload)
{
	const struct tf_l4 l4 = { .sport = 5001, .dport = 5201,
				  .flags = TF_ACK, .opt_len = udp ? 0 : 12 };
	uint32_t len, sum;
	struct tf b;
	uint16_t c;

	tf_init(&b, d, MAX_FRAME);
	tf_eth_addr(&b, dst, src);
	tf_ipv4(&b, &(struct tf_ip){ .df = true });
	if (udp)
		tf_udp(&b, &l4);
	else
		tf_tcp(&b, &l4);
	tf_payload(&b, payload, 7);
	len = (uint32_t)tf_finish(&b);
	sum = voff_csum_pseudo_v4(d + 26, d + 30, udp ? 17 : 6, len - 34);
	c = (uint16_t)~voff_csum_fold(sum);
	memcpy(d + 34 + (udp ? 6 : 16), &c, 2);
	return len;
}

struct rig {
	struct voff_switch *sw;
	struct voff_pool *pool;		/* the far ends' packets */
	struct voff_port *in, *out;	/* far ends of switch ports 0 and 1 */
};

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_switch: %s: %s\n", what, voff_strerror(err));
	exit(1);
}

static void pair(struct rig *r, const char *name, unsigned int tx_off,
		 struct voff_port **far)
{
	struct voff_port_cfg pc = { .kind = VOFF_PORT_MEM, .ring = 4096 };
	struct voff_port *near;
	int err;

	pc.want = VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6;
	pc.tx_off = tx_off;
	err = voff_port_mem_pair(&near, far, &pc);
	if (!err)
		err = voff_switch_add(r->sw, near, name, NULL);
	if (err)
		die("port", err);
}

static void rig_open(struct rig *r, const struct bcase *c)
{
	const unsigned int off = VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 |
				 VOFF_TUN_F_TSO6;
	struct voff_switch_config sc = { .pool_size = 1024 };
	int err;

	err = voff_switch_new(&r->sw, &sc);
	if (!err)
		err = voff_pool_new(&r->pool, 1024, VOFF_PKT_SUPER_ROOM);
	if (err)
		die("switch", err);
	pair(r, "in", off, &r->in);		/* the sender's side always offloads */
	pair(r, "out", c->sw ? 0 : off, &r->out);
}

static void rig_close(struct rig *r)
{
	voff_switch_free(r->sw);
	voff_port_close(r->in);
	voff_port_close(r->out);
	voff_pool_free(r->pool);
}

/* Read everything the far end @port has; return how many frames. */
static unsigned int drain(struct rig *r, struct voff_port *port)
{
	unsigned int n = 0;
	struct voff_batch b;
	int got;

	do {
		voff_batch_init(&b);
		got = voff_port_rx(port, r->pool, &b);
		n += b.n;
		voff_pkt_free_bulk(b.pkts, b.n);
	} while (got > 0);
	return n;
}

static void send_frames(struct rig *r, struct voff_port *port,
			const struct bcase *c, const uint8_t *frame,
			uint32_t len, unsigned int n)
{
	struct voff_batch b;
	int sent;

	voff_batch_init(&b);
	for (unsigned int i = 0; i < n; i++) {
		struct voff_pkt *pkt;

		if (voff_pkt_alloc(r->pool, &pkt) ||
		    voff_pkt_set_data(pkt, frame, len))
			die("alloc", -ENOBUFS);
		if (c && c->partial) {
			pkt->csum = VOFF_CSUM_PARTIAL;
			pkt->csum_start = 34;
			pkt->csum_offset = c->udp ? 6 : 16;
		}
		if (c && c->mss) {
			pkt->gso_type = VOFF_GSO_TCPV4;
			pkt->gso_size = c->mss;
		}
		voff_batch_add(&b, pkt);
	}
	sent = voff_port_tx(port, &b);
	if (sent != (int)n)
		die("send", sent < 0 ? sent : -EIO);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run(const struct bcase *c, unsigned int frames)
{
	static uint8_t frame[MAX_FRAME];
	unsigned int done = 0, out = 0, per = 1;
	uint64_t ns = 0;
	struct rig r;
	uint32_t len;

	if (c->mss && c->sw)
		per = (c->payload + c->mss - 1) / c->mss;
	rig_open(&r, c);
	/* Teach the switch where B is, so the frames are not flooded. */
	len = build(frame, MAC_A, MAC_B, c->udp, 22);
	send_frames(&r, r.out, NULL, frame, len, 1);
	voff_switch_poll(r.sw, 0);
	drain(&r, r.in);
	len = build(frame, MAC_B, MAC_A, c->udp, c->payload);
	while (done < frames) {
		unsigned int n = frames - done < c->batch ? frames - done
							  : c->batch;
		uint64_t t0;

		send_frames(&r, r.in, c, frame, len, n);
		t0 = now_ns();
		voff_switch_poll(r.sw, 0);
		ns += now_ns() - t0;
		out += drain(&r, r.out);
		done += n;
	}
	if (out != frames * per) {
		fprintf(stderr, "bench_switch: %s: %u frames out, %u expected\n",
			c->name, out, frames * per);
		exit(1);
	}
	printf("%-14s %8u frames  %8u out  %9.1f ns/frame\n", c->name, frames,
	       out, (double)ns / frames);
	rig_close(&r);
}

int main(int argc, char **argv)
{
	unsigned int frames = 20000;
	const char *only = NULL;
	bool found = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
			frames = (unsigned int)strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--list")) {
			for (size_t k = 0; k < N_CASES; k++)
				printf("%s\n", cases[k].name);
			return 0;
		} else {
			fprintf(stderr, "usage: bench_switch [--frames N] "
					"[--case NAME] [--list]\n");
			return 2;
		}
	}
	if (!frames)
		frames = 1;
	for (size_t k = 0; k < N_CASES; k++) {
		if (only && strcmp(only, cases[k].name))
			continue;
		found = true;
		run(&cases[k], frames);
	}
	if (!found) {
		fprintf(stderr, "bench_switch: no case %s\n", only);
		return 2;
	}
	return 0;
}
