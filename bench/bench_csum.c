/* SPDX-License-Identifier: MIT */
/*
 * bench_csum.c - throughput of voff's Internet checksum routines, beside
 * memcpy() and (when built with VOFF_HAVE_DPDK) DPDK's rte_raw_cksum()
 *
 * Every case sums buffers of one size (64 KiB and 1500 bytes) either hot,
 * the same buffer again and again (it stays in L1/L2), or cold, walking a
 * buffer set far larger than the last-level cache so every byte comes from
 * DRAM.  A case is first calibrated to a repeat count that runs about
 * --time / --runs seconds, then timed --runs times with CLOCK_MONOTONIC,
 * the runs of all routines of one size interleaved; the table shows the
 * median and the best run, and the ratio to DPDK's routine measured in the
 * same process.  Each variant is first checked
 * against the naive twin, so a fast wrong routine cannot be reported.
 *
 * Usage: bench_csum [--json] [--time SEC] [--runs N] [--cold-mib MIB]
 *                   [--offset BYTES] [--dst-offset BYTES] [--quick]
 *
 * --offset moves the sources off their 4 KiB alignment, --dst-offset the
 * copies' destination (both taken modulo 64).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voff/csum.h>

#include "csum_int.h"

#ifdef VOFF_HAVE_DPDK
#include <rte_ip.h>
#include <rte_version.h>
#endif

#define MAX_ROUTINES 16

#ifdef VOFF_HAVE_DPDK
#define STR_(x) #x
#define STR(x) STR_(x)
#define DPDK_VERSION STR(RTE_VER_YEAR) "." STR(RTE_VER_MONTH) "." \
	STR(RTE_VER_MINOR) " (rte_raw_cksum inlined here)"
#else
#define DPDK_VERSION "not built in"
#endif
#define MAX_RUNS 21

struct routine {
	const char *name;
	voff__csum_fn sum;		/* a summing routine, or */
	voff__csum_copy_fn copy;	/* a copying one */
	bool is_dpdk;
};

struct region {
	uint8_t *src;
	uint8_t *dst;			/* copy destination: one hot buffer */
	size_t slots;			/* buffers in the set (1 when hot) */
	size_t stride;
	size_t next;			/* slot the next operation uses */
};

struct result {
	double ns_median;
	double ns_best;
};

static struct {
	bool json;
	double time;
	unsigned int runs;
	size_t cold_bytes;
	size_t offset;
	size_t dst_offset;
} opt = { false, 0.2, 5, (size_t)1024 << 20, 0, 0 };

static volatile uint32_t sink;

static uint32_t memcpy_only(void *dst, const void *src, size_t len,
			    uint32_t sum)
{
	memcpy(dst, src, len);
	return sum;
}

#ifdef VOFF_HAVE_DPDK
/* rte_raw_cksum() is a static inline: no EAL, no hugepages needed. */
static uint32_t dpdk_raw(const void *buf, size_t len, uint32_t sum)
{
	return sum + rte_raw_cksum(buf, len);
}
#endif

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Time @iters operations; returns nanoseconds per operation. */
static double run(const struct routine *r, struct region *g, size_t size,
		  size_t iters)
{
	uint32_t acc = 0;
	double t0, t1;
	size_t i;

	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		uint8_t *p = g->src + g->next * g->stride + opt.offset;

		if (++g->next == g->slots)
			g->next = 0;
		/* The compiler must assume the bytes changed: no hoisting. */
		__asm__ volatile("" : : "r"(p) : "memory");
		if (r->sum)
			acc += r->sum(p, size, 0);
		else
			acc += r->copy(g->dst + opt.dst_offset, p, size, 0);
	}
	t1 = now_ns();
	sink += acc;
	return (t1 - t0) / (double)iters;
}

/* Random bytes (xorshift64), fast enough for a gigabyte. */
static void fill(uint8_t *p, size_t len)
{
	uint64_t x = 0x9E3779B97F4A7C15u;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	for (; i < len; i++)
		p[i] = (uint8_t)(x >> (i % 8 * 8));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A repeat count that makes one run of @r last about --time / --runs. */
static size_t calibrate(const struct routine *r, struct region *g,
			size_t size)
{
	double per_run = opt.time / opt.runs * 1e9;
	size_t iters = 1;

	run(r, g, size, 1);
	while (run(r, g, size, iters) * (double)iters < per_run / 2 &&
	       iters < ((size_t)1 << 40))
		iters *= 2;
	return iters * 2;
}

static struct result summarise(double *ns)
{
	struct result res;

	qsort(ns, opt.runs, sizeof(ns[0]), cmp_double);
	res.ns_median = ns[opt.runs / 2];
	res.ns_best = ns[0];
	return res;
}

/* Whether @r gives the naive twin's checksum on a few shapes. */
static bool agrees(const struct routine *r, uint8_t *buf, uint8_t *dst)
{
	static const size_t lens[] = { 0, 1, 31, 1500, 1501, 65536 };
	unsigned int i;

	if (r->is_dpdk || (r->copy && r->copy == memcpy_only))
		return true;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint32_t want = voff_csum_naive(buf + 3, lens[i], 7), got;

		if (r->sum)
			got = r->sum(buf + 3, lens[i], 7);
		else
			got = r->copy(dst, buf + 3, lens[i], 7);
		if (voff_csum_fold(got) != voff_csum_fold(want))
			return false;
		if (r->copy && memcmp(dst, buf + 3, lens[i]))
			return false;
	}
	return true;
}

static unsigned int routines(struct routine *rt)
{
	const struct voff__csum_variant *v;
	unsigned int n = 0, i;

	rt[n++] = (struct routine){ "naive", voff_csum_naive, NULL, false };
	for (i = 0; (v = voff__csum_variant(i)); i++)
		if (v->usable())
			rt[n++] = (struct routine){ v->name, v->csum, NULL,
						    false };
	rt[n++] = (struct routine){ "voff_csum", voff_csum, NULL, false };
#ifdef VOFF_HAVE_DPDK
	rt[n++] = (struct routine){ "dpdk_raw", dpdk_raw, NULL, true };
#endif
	rt[n++] = (struct routine){ "memcpy", NULL, memcpy_only, false };
	rt[n++] = (struct routine){ "copy_naive", NULL, voff_csum_copy_naive,
				    false };
	for (i = 0; (v = voff__csum_variant(i)); i++) {
		static char names[8][32];

		if (!v->usable() || i >= 8)
			continue;
		snprintf(names[i], sizeof(names[i]), "copy_%s", v->name);
		rt[n++] = (struct routine){ names[i], NULL, v->copy, false };
	}
	rt[n++] = (struct routine){ "voff_csum_copy", NULL, voff_csum_copy,
				    false };
	return n;
}

static void print_case(const struct routine *r, size_t size, bool hot,
		       struct result res, struct result dpdk)
{
	double gbs = (double)size / res.ns_median;
	double best = (double)size / res.ns_best;
	char name[64];

	snprintf(name, sizeof(name), "%s/%s", r->name, hot ? "hot" : "cold");
	if (opt.json) {
		printf("{\"name\":\"%s\",\"bytes\":%zu,\"ns_per_op\":%.2f,"
		       "\"gbytes_per_s\":%.2f,\"best_gbytes_per_s\":%.2f",
		       name, size, res.ns_median, gbs, best);
		if (dpdk.ns_median > 0 && r->sum)
			printf(",\"vs_dpdk\":%.2f,\"vs_dpdk_best\":%.2f",
			       dpdk.ns_median / res.ns_median,
			       dpdk.ns_best / res.ns_best);
		printf("}\n");
	} else {
		printf("%-22s %6zu %11.1f %8.2f %8.2f", name, size,
		       res.ns_median, gbs, best);
		if (dpdk.ns_median > 0 && r->sum)
			printf(" %7.2fx %7.2fx", dpdk.ns_median / res.ns_median,
			       dpdk.ns_best / res.ns_best);
		printf("\n");
	}
	fflush(stdout);
}

/*
 * Runs go round-robin over the routines, so a burst of noise from other
 * processes on a shared machine hits every routine alike and the ratios
 * stay fair; the median of the runs then drops the bursts.
 */
static void bench_size(struct routine *rt, unsigned int n, size_t size,
		       bool hot, struct region *g)
{
	static double ns[MAX_ROUTINES][MAX_RUNS];
	struct result res[MAX_ROUTINES], dpdk = { 0, 0 };
	size_t iters[MAX_ROUTINES];
	unsigned int i, k;

	g->stride = (size + 2047) & ~(size_t)2047;
	g->slots = hot ? 1 : opt.cold_bytes / g->stride;
	g->next = 0;
	for (i = 0; i < n; i++)
		iters[i] = calibrate(&rt[i], g, size);
	for (k = 0; k < opt.runs; k++)
		for (i = 0; i < n; i++)
			ns[i][k] = run(&rt[i], g, size, iters[i]);
	for (i = 0; i < n; i++) {
		res[i] = summarise(ns[i]);
		if (rt[i].is_dpdk)
			dpdk = res[i];
	}
	for (i = 0; i < n; i++)
		print_case(&rt[i], size, hot, res[i], dpdk);
}

static int parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--json")) {
			opt.json = true;
		} else if (!strcmp(a, "--quick")) {
			opt.time = 0.05;
			opt.runs = 3;
			opt.cold_bytes = (size_t)256 << 20;
		} else if (!strcmp(a, "--time") && v) {
			opt.time = atof(v);
			i++;
		} else if (!strcmp(a, "--runs") && v) {
			opt.runs = (unsigned int)atoi(v);
			i++;
		} else if (!strcmp(a, "--cold-mib") && v) {
			opt.cold_bytes = (size_t)atol(v) << 20;
			i++;
		} else if (!strcmp(a, "--dst-offset") && v) {
			opt.dst_offset = (size_t)atol(v) % 64;
			i++;
		} else if (!strcmp(a, "--offset") && v) {
			opt.offset = (size_t)atol(v) % 64;
			i++;
		} else {
			fprintf(stderr, "usage: %s [--json] [--time SEC] "
				"[--runs N] [--cold-mib MIB] [--offset BYTES] "
				"[--dst-offset BYTES] "
				"[--quick]\n", argv[0]);
			return -EINVAL;
		}
	}
	if (opt.runs < 1 || opt.runs > MAX_RUNS || opt.time <= 0 ||
	    opt.cold_bytes < ((size_t)64 << 20))
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 65536, 1500 };
	struct routine rt[MAX_ROUTINES];
	struct region g = { 0 };
	unsigned int n, i, s, h;

	if (parse_args(argc, argv))
		return 2;
	g.src = aligned_alloc(4096, opt.cold_bytes + 4096);
	g.dst = aligned_alloc(4096, 65536 + 4096);
	if (!g.src || !g.dst) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	fill(g.src, opt.cold_bytes + 4096);
	memset(g.dst, 0, 65536 + 4096);

	n = routines(rt);
	for (i = 0; i < n; i++) {
		if (!agrees(&rt[i], g.src, g.dst)) {
			fprintf(stderr, "%s disagrees with the naive twin\n",
				rt[i].name);
			return 1;
		}
	}
	if (!opt.json)
		printf("voff_csum_impl: %s; %.2f s per case, median and best of "
		       "%u runs; cold set %zu MiB; offset %zu, dst %zu\n"
		       "compiler: %s; DPDK: %s\n"
		       "%-22s %6s %11s %8s %8s %8s %8s\n", voff_csum_impl(),
		       opt.time, opt.runs, opt.cold_bytes >> 20, opt.offset,
		       opt.dst_offset, __VERSION__, DPDK_VERSION, "case",
		       "bytes", "ns/op", "GB/s", "best", "vs dpdk", "best x");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (h = 0; h < 2; h++)
			bench_size(rt, n, sizes[s], h == 0, &g);
	free(g.src);
	free(g.dst);
	return 0;
}
