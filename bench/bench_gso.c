/* SPDX-License-Identifier: MIT */
/*
 * bench_gso.c - software GSO: voff (full checksums, partial checksums,
 * frames packed in one buffer, zero-copy descriptors) against a naive
 * copy-then-checksum segmenter and, when built with VOFF_HAVE_DPDK, DPDK's
 * rte_gso_segment() in the same process, so ratios come from one run on
 * one machine.
 *
 *	bench_gso [--json] [--ms N] [--runs N] [--cpu-time] [--no-dpdk]
 *		  [--case NAME]
 *
 * Cases use the super-packets of docs/peers.md §3: TCP4 65226 B (Ethernet,
 * IPv4 DF, TCP with timestamps: 66-byte headers, 45 x 1448), TCP6 (86-byte
 * headers, 45 x 1428) and USO over IPv4 (42-byte headers, 45 x 1452).
 * Each case reports the median over --runs runs (taken round-robin over
 * all cases) of ns per super-packet,
 * segments per second and payload Gbit/s; --json prints one object per
 * case with "name" and "ns_per_op".  DPDK cases are named dpdk_*.
 * Diagnostic cases show where the full-checksum time goes:
 * floor_tcp4_copy (the 45 fused payload copies alone, into the same pool
 * buffers), floor_tcp4_packed (the same at the packed form's places in one
 * area) and plan_tcp4 (voff_gso_count(): validation and plan only).
 * --case NAME times that case alone (for perf record).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voff/voff.h>

#ifdef VOFF_HAVE_DPDK
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wcast-qual"
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gso.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#pragma GCC diagnostic pop
#endif

#define NSEG 45
#define MAXSEG 64

static bool json;
static unsigned int run_ms = 200, runs = 5;
static const char *only;	/* --case: time only the case of this name */

struct super {
	const char *tag;
	uint8_t buf[70000];
	struct voff_pkt pkt;
	uint32_t hdr;
	uint32_t mss;
};

static struct super tcp4, tcp6, uso4;
static struct voff_pool *pool;
static struct voff_pkt *segs[MAXSEG];
static struct voff_sg sgv[MAXSEG];
static struct iovec iov[MAXSEG][2];
static uint8_t slots[MAXSEG * 128];

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet + IPv4/IPv6 + TCP(ts)/UDP + payload, lengths and seeds set. */
static void build(struct super *s, bool v6, bool udp, uint32_t mss)
{
	uint8_t *d = s->buf;
	uint32_t l3 = 14, l4 = l3 + (v6 ? 40 : 20);
	uint32_t l4h = udp ? 8 : 32, len;
	uint32_t sum;
	uint16_t c;

	memset(d, 0, sizeof(s->buf));
	s->mss = mss;
	s->hdr = l4 + l4h;
	len = s->hdr + NSEG * mss;
	for (uint32_t i = s->hdr; i < len; i++)
		d[i] = (uint8_t)(i * 7);
	d[5] = 2;
	d[11] = 1;
	put16(d + 12, v6 ? 0x86DD : 0x0800);
	if (v6) {
		d[l3] = 0x60;
		put16(d + l3 + 4, len - l3 - 40);
		d[l3 + 6] = udp ? 17 : 6;
		d[l3 + 7] = 64;
		d[l3 + 8] = 0x20;
		d[l3 + 23] = 1;
		d[l3 + 24] = 0x20;
		d[l3 + 39] = 2;
	} else {
		d[l3] = 0x45;
		put16(d + l3 + 2, len - l3);
		put16(d + l3 + 4, 0x1234);
		d[l3 + 6] = 0x40;
		d[l3 + 8] = 64;
		d[l3 + 9] = udp ? 17 : 6;
		d[l3 + 12] = 192;
		d[l3 + 15] = 1;
		d[l3 + 16] = 192;
		d[l3 + 19] = 2;
		c = voff_csum_ipv4_hdr(d + l3, 20);
		memcpy(d + l3 + 10, &c, 2);
	}
	put16(d + l4, 1000);
	put16(d + l4 + 2, 2000);
	if (udp) {
		put16(d + l4 + 4, len - l4);
	} else {
		d[l4 + 12] = 8 << 4;
		d[l4 + 13] = 0x18;
		put16(d + l4 + 14, 3000);
		d[l4 + 20] = 1;
		d[l4 + 21] = 1;
		d[l4 + 22] = 8;
		d[l4 + 23] = 10;
	}
	sum = v6 ? voff_csum_pseudo_v6(d + l3 + 8, d + l3 + 24, udp ? 17 : 6,
				       len - l4)
		 : voff_csum_pseudo_v4(d + l3 + 12, d + l3 + 16, udp ? 17 : 6,
				       len - l4);
	c = (uint16_t)~voff_csum_fold(sum);
	memcpy(d + l4 + (udp ? 6 : 16), &c, 2);
	if (voff_pkt_init_ext(&s->pkt, d, sizeof(s->buf), 0, len))
		abort();
	s->pkt.l2_off = 0;
	s->pkt.l3_off = (uint16_t)l3;
	s->pkt.gso_size = (uint16_t)mss;
	s->pkt.gso_type = udp ? VOFF_GSO_UDP_L4
			      : v6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
	s->pkt.csum = VOFF_CSUM_PARTIAL;
	s->pkt.csum_start = (uint16_t)l4;
	s->pkt.csum_offset = udp ? 6 : 16;
}

/*
 * Wall-clock time by default; --cpu-time counts only this thread's CPU
 * time, which keeps other processes of a shared machine out of the figure
 * (they still share the caches).
 */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the cases ---------------------------------------------------------- */

static struct super *cur;

static void voff_flat(uint8_t mode)
{
	struct voff_gso_opts o = { .csum_mode = mode };
	int n = voff_gso_segment(&cur->pkt, &o, pool, segs, MAXSEG);

	if (n != NSEG)
		abort();
	voff_pool_put_bulk(pool, segs, NSEG);
}

static void case_full(void)
{
	voff_flat(VOFF_GSO_CSUM_FULL);
}

static void case_partial(void)
{
	voff_flat(VOFF_GSO_CSUM_PARTIAL);
}

/* The packed form: the same frames back to back in one area. */
static uint8_t pack_area[MAXSEG * 1600] __attribute__((aligned(64)));
static struct voff_gso_frame pack_fr[MAXSEG];

static void voff_packed(uint8_t mode)
{
	struct voff_gso_opts o = { .csum_mode = mode };

	if (voff_gso_segment_packed(&cur->pkt, &o, pack_area,
				    sizeof(pack_area), pack_fr, MAXSEG,
				    NULL) != NSEG)
		abort();
}

static void case_full_packed(void)
{
	voff_packed(VOFF_GSO_CSUM_FULL);
}

static void case_partial_packed(void)
{
	voff_packed(VOFF_GSO_CSUM_PARTIAL);
}

static void voff_desc(uint8_t mode)
{
	struct voff_gso_opts o = { .csum_mode = mode };

	if (voff_gso_segment_sg(&cur->pkt, &o, slots, 128, sgv, MAXSEG,
				NULL) != NSEG)
		abort();
}

static void case_sg_partial(void)
{
	voff_desc(VOFF_GSO_CSUM_PARTIAL);
}

static void case_sg_full(void)
{
	voff_desc(VOFF_GSO_CSUM_FULL);
}

/*
 * Diagnostics for "where the time goes": the fused payload copies alone,
 * into the same pool buffers at the places voff_gso_segment() would pick
 * (the floor of the flat full-checksum case), and the plan alone
 * (voff_gso_count()).
 */
static volatile uint32_t floor_sink;

static void case_floor_copy(void)
{
	const uint8_t *src = voff_pkt_data(&cur->pkt) + cur->hdr;
	uint32_t sum = 0;

	if (voff_pool_get_bulk(pool, segs, NSEG))
		abort();
	for (uint32_t i = 0; i < NSEG; i++) {
		uint8_t *d = voff_pkt_data(segs[i]) + cur->hdr;

		d += ((uintptr_t)src - (uintptr_t)d) & 63;
		sum += voff_csum_copy(d, src, cur->mss, 0);
		src += cur->mss;
	}
	floor_sink = sum;
	voff_pool_put_bulk(pool, segs, NSEG);
}

/* The same copies at the places voff_gso_segment_packed() picks. */
static void case_floor_packed(void)
{
	const uint8_t *src = voff_pkt_data(&cur->pkt) + cur->hdr;
	uint32_t sum = 0;
	size_t end = 0;

	for (uint32_t i = 0; i < NSEG; i++) {
		uint8_t *d = pack_area + end + cur->hdr;

		d += ((uintptr_t)src - (uintptr_t)d) & 63;
		sum += voff_csum_copy(d, src, cur->mss, 0);
		end = (size_t)(d - pack_area) + cur->mss;
		src += cur->mss;
	}
	floor_sink = sum;
}

static void case_plan(void)
{
	struct voff_gso_info info;

	if (voff_gso_count(&cur->pkt, NULL, &info) || info.segs != NSEG)
		abort();
}

/*
 * The naive twin: copy headers and payload, fix the lengths, then
 * checksum the finished segment in a second pass with a simple loop.
 */
static uint32_t plain_sum(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static void naive_one(const struct super *s, uint8_t *d, uint32_t i)
{
	const uint8_t *src = voff_pkt_data(&s->pkt);
	bool v6 = s->pkt.gso_type == VOFF_GSO_TCPV6;
	bool udp = s->pkt.gso_type == VOFF_GSO_UDP_L4;
	uint32_t l3 = 14, l4 = s->pkt.csum_start, len = s->hdr + s->mss;
	uint32_t at = l4 + (udp ? 6 : 16), sum;
	uint16_t c;

	memcpy(d, src, s->hdr);
	memcpy(d + s->hdr, src + s->hdr + i * s->mss, s->mss);
	if (v6) {
		put16(d + l3 + 4, len - l3 - 40);
		sum = plain_sum(d + l3 + 8, 32, 0);
	} else {
		put16(d + l3 + 2, len - l3);
		put16(d + l3 + 4, 0x1234 + i);
		d[l3 + 10] = d[l3 + 11] = 0;
		sum = plain_sum(d + l3, 20, 0);
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		put16(d + l3 + 10, ~sum & 0xFFFF);
		sum = plain_sum(d + l3 + 12, 8, 0);
	}
	if (udp) {
		put16(d + l4 + 4, len - l4);
	} else {
		uint32_t seq = (uint32_t)d[l4 + 4] << 24 | d[l4 + 5] << 16 |
			       d[l4 + 6] << 8 | d[l4 + 7];

		seq += i * s->mss;
		put16(d + l4 + 4, seq >> 16);
		put16(d + l4 + 6, seq);
		if (i + 1 < NSEG)
			d[l4 + 13] &= (uint8_t)~0x09;
	}
	d[at] = d[at + 1] = 0;
	sum += (udp ? 17u : 6u) + (len - l4);
	sum = plain_sum(d + l4, len - l4, sum);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	c = (uint16_t)~sum;
	if (udp && !c)
		c = 0xFFFF;
	put16(d + at, c);
}

static void case_naive(void)
{
	if (voff_pool_get_bulk(pool, segs, NSEG))
		abort();
	for (uint32_t i = 0; i < NSEG; i++) {
		naive_one(cur, voff_pkt_data(segs[i]), i);
		voff_pkt_put(segs[i], cur->hdr + cur->mss);
	}
	voff_pool_put_bulk(pool, segs, NSEG);
}

/* ---- DPDK --------------------------------------------------------------- */

#ifdef VOFF_HAVE_DPDK
static struct rte_mempool *d_in, *d_direct, *d_indirect;
static struct rte_mbuf *d_pkt, *d_out[MAXSEG];
static struct rte_gso_ctx d_ctx;
static bool dpdk_ok;

static int dpdk_init(const char *argv0)
{
	char *eal[] = { (char *)argv0, "-l", "0", "--no-huge", "--no-pci",
			"-m", "512", "--no-shconf", "--iova-mode=va",
			"--log-level=lib.eal:error", NULL };
	int n = (int)(sizeof(eal) / sizeof(eal[0])) - 1;
	char *p;

	if (rte_eal_init(n, eal) < 0)
		return -1;
	d_in = rte_pktmbuf_pool_create("in", 63, 0, 0, 65535, SOCKET_ID_ANY);
	d_direct = rte_pktmbuf_pool_create("direct", 1023, 0, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE,
					   SOCKET_ID_ANY);
	d_indirect = rte_pktmbuf_pool_create("indirect", 1023, 0, 0, 0,
					     SOCKET_ID_ANY);
	if (!d_in || !d_direct || !d_indirect)
		return -1;
	d_pkt = rte_pktmbuf_alloc(d_in);
	if (!d_pkt)
		return -1;
	p = rte_pktmbuf_append(d_pkt, (uint16_t)tcp4.pkt.len);
	if (!p)
		return -1;
	memcpy(p, voff_pkt_data(&tcp4.pkt), tcp4.pkt.len);
	d_pkt->l2_len = 14;
	d_pkt->l3_len = 20;
	d_pkt->l4_len = 32;
	d_ctx.direct_pool = d_direct;
	d_ctx.indirect_pool = d_indirect;
	d_ctx.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO;
	d_ctx.gso_size = 1514;
	d_ctx.flag = 0;
	return 0;
}

static int dpdk_seg(void)
{
	d_pkt->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
			  RTE_MBUF_F_TX_IP_CKSUM;
	return rte_gso_segment(d_pkt, &d_ctx, d_out, MAXSEG);
}

static void case_dpdk_seg_free(void)
{
	int n = dpdk_seg();

	if (n != NSEG)
		abort();
	for (int i = 0; i < n; i++)
		rte_pktmbuf_free(d_out[i]);
}

/* What an application must add: IPv4 and TCP checksums in software. */
static void dpdk_csum(int n)
{
	for (int i = 0; i < n; i++) {
		struct rte_mbuf *m = d_out[i];
		struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
		struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(
			m, struct rte_tcp_hdr *, 34);

		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th->cksum = 0;
		th->cksum = rte_ipv4_udptcp_cksum_mbuf(m, ip, 34);
	}
}

static void case_dpdk_csum_free(void)
{
	int n = dpdk_seg();

	if (n != NSEG)
		abort();
	dpdk_csum(n);
	for (int i = 0; i < n; i++)
		rte_pktmbuf_free(d_out[i]);
}

/*
 * DPDK's segments, checksummed, are the same bytes as voff's: the
 * comparison is between equal work.  (This input has no CWR, which DPDK
 * would copy to every segment.)
 */
static void dpdk_check(void)
{
	static uint8_t g[2048];
	int n = dpdk_seg();

	if (n != NSEG ||
	    voff_gso_segment(&tcp4.pkt, NULL, pool, segs, MAXSEG) != NSEG) {
		fprintf(stderr, "dpdk check: segment counts differ\n");
		exit(1);
	}
	dpdk_csum(n);
	for (int i = 0; i < n; i++) {
		const void *b = rte_pktmbuf_read(d_out[i], 0,
						 rte_pktmbuf_pkt_len(d_out[i]),
						 g);

		if (rte_pktmbuf_pkt_len(d_out[i]) != segs[i]->len ||
		    memcmp(b, voff_pkt_data(segs[i]), segs[i]->len)) {
			fprintf(stderr, "dpdk check: segment %d differs\n", i);
			exit(1);
		}
		rte_pktmbuf_free(d_out[i]);
	}
	voff_pkt_free_bulk(segs, NSEG);
}
#endif

/* ---- runner ------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Cases are registered first and timed round-robin: run k of every case
 * before run k + 1 of any, so that load from other processes on a shared
 * machine spreads over all cases instead of skewing one.
 */
#define MAX_CASES 24

static struct bench_case {
	const char *name;
	struct super *s;
	void (*fn)(void);
	double r[16];
} cases[MAX_CASES];
static unsigned int n_cases;

static void add_case(const char *name, struct super *s, void (*fn)(void))
{
	if (only && strcmp(only, name))
		return;
	if (n_cases < MAX_CASES)
		cases[n_cases++] = (struct bench_case){ name, s, fn, { 0 } };
}

static double time_case(struct bench_case *c)
{
	uint64_t t0, t, iters = 0;

	cur = c->s;
	for (int w = 0; w < 100; w++)
		c->fn();
	t0 = now_ns();
	do {
		for (int j = 0; j < 64; j++)
			c->fn();
		iters += 64;
		t = now_ns();
	} while (t - t0 < (uint64_t)run_ms * 1000000u);
	return (double)(t - t0) / (double)iters;
}

static void report(struct bench_case *c)
{
	uint32_t pay = NSEG * c->s->mss;
	double ns;

	qsort(c->r, runs, sizeof(c->r[0]), cmp_double);
	ns = c->r[runs / 2];
	if (json)
		printf("{\"name\": \"%s\", \"ns_per_op\": %.1f, \"segs\": %d, "
		       "\"payload_bytes\": %u, \"mseg_per_s\": %.2f, "
		       "\"gbit_per_s\": %.1f, \"min_ns\": %.1f, "
		       "\"max_ns\": %.1f, \"runs\": %u}\n",
		       c->name, ns, NSEG, pay, NSEG * 1e3 / ns, pay * 8.0 / ns,
		       c->r[0], c->r[runs - 1], runs);
	else
		printf("%-24s %10.1f ns %8.2f Mseg/s %7.1f Gbit/s  "
		       "(min %.0f, max %.0f)\n",
		       c->name, ns, NSEG * 1e3 / ns, pay * 8.0 / ns, c->r[0],
		       c->r[runs - 1]);
}

static void measure_all(void)
{
	for (unsigned int k = 0; k < runs; k++)
		for (unsigned int i = 0; i < n_cases; i++)
			cases[i].r[k] = time_case(&cases[i]);
	for (unsigned int i = 0; i < n_cases; i++)
		report(&cases[i]);
	fflush(stdout);
}

/* voff's full-checksum output equals the naive twin's, byte for byte. */
static void self_check(struct super *s)
{
	static uint8_t d[2048];
	int n = voff_gso_segment(&s->pkt, NULL, pool, segs, MAXSEG);

	if (n != NSEG) {
		fprintf(stderr, "%s: voff_gso_segment: %s\n", s->tag,
			voff_strerror(n));
		exit(1);
	}
	if (voff_gso_segment_packed(&s->pkt, NULL, pack_area,
				    sizeof(pack_area), pack_fr, MAXSEG,
				    NULL) != NSEG) {
		fprintf(stderr, "%s: voff_gso_segment_packed failed\n",
			s->tag);
		exit(1);
	}
	for (uint32_t i = 0; i < NSEG; i++) {
		naive_one(s, d, i);
		if (segs[i]->len != s->hdr + s->mss ||
		    memcmp(d, voff_pkt_data(segs[i]), segs[i]->len) ||
		    pack_fr[i].len != segs[i]->len ||
		    memcmp(d, pack_area + pack_fr[i].off, pack_fr[i].len)) {
			fprintf(stderr, "%s: segment %u differs\n", s->tag, i);
			exit(1);
		}
	}
	voff_pkt_free_bulk(segs, NSEG);
}

int main(int argc, char **argv)
{
	bool use_dpdk = true;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--no-dpdk"))
			use_dpdk = false;
		else if (!strcmp(argv[i], "--cpu-time"))
			bench_clock = CLOCK_THREAD_CPUTIME_ID;
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			run_ms = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
			runs = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--case") && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr,
				"usage: bench_gso [--json] [--ms N] [--runs N] "
				"[--cpu-time] [--no-dpdk] [--case NAME]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 16)
		runs = 5;
	tcp4.tag = "tcp4";
	tcp6.tag = "tcp6";
	uso4.tag = "uso4";
	build(&tcp4, false, false, 1448);
	build(&tcp6, true, false, 1428);
	build(&uso4, false, true, 1452);
	if (voff_pool_new(&pool, 256, 2048)) {
		fprintf(stderr, "pool\n");
		return 1;
	}
	for (int i = 0; i < MAXSEG; i++)
		voff_sg_init(&sgv[i], iov[i], 2);
	self_check(&tcp4);
	self_check(&tcp6);
	self_check(&uso4);
	if (!json)
		printf("# csum: %s; %d segments per super-packet\n",
		       voff_csum_impl(), NSEG);

	add_case("voff_tcp4_full", &tcp4, case_full);
	add_case("voff_tcp4_partial", &tcp4, case_partial);
	add_case("voff_tcp4_full_packed", &tcp4, case_full_packed);
	add_case("voff_tcp4_partial_packed", &tcp4, case_partial_packed);
	add_case("voff_tcp4_sg_partial", &tcp4, case_sg_partial);
	add_case("voff_tcp4_sg_full", &tcp4, case_sg_full);
	add_case("naive_tcp4_full", &tcp4, case_naive);
	add_case("floor_tcp4_copy", &tcp4, case_floor_copy);
	add_case("floor_tcp4_packed", &tcp4, case_floor_packed);
	add_case("plan_tcp4", &tcp4, case_plan);
#ifdef VOFF_HAVE_DPDK
	if (use_dpdk) {
		dpdk_ok = dpdk_init(argv[0]) == 0;
		if (!dpdk_ok)
			fprintf(stderr, "DPDK EAL init failed: skipped\n");
	}
	if (dpdk_ok) {
		dpdk_check();
		add_case("dpdk_tcp4_seg_free", &tcp4, case_dpdk_seg_free);
		add_case("dpdk_tcp4_csum_free", &tcp4, case_dpdk_csum_free);
	}
#else
	(void)use_dpdk;
#endif
	add_case("voff_tcp6_full", &tcp6, case_full);
	add_case("voff_tcp6_partial", &tcp6, case_partial);
	add_case("voff_tcp6_full_packed", &tcp6, case_full_packed);
	add_case("voff_tcp6_sg_partial", &tcp6, case_sg_partial);
	add_case("naive_tcp6_full", &tcp6, case_naive);
	add_case("voff_uso4_full", &uso4, case_full);
	add_case("voff_uso4_partial", &uso4, case_partial);
	add_case("voff_uso4_full_packed", &uso4, case_full_packed);
	add_case("voff_uso4_sg_partial", &uso4, case_sg_partial);
	add_case("naive_uso4_full", &uso4, case_naive);
	measure_all();
	voff_pool_free(pool);
	return 0;
}
