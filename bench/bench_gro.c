/* SPDX-License-Identifier: MIT */
/*
 * bench_gro.c - GRO cost per input packet: voff's engine against DPDK's
 * rte_gro_reassemble_burst() and its context (timeout-flush) table, in one
 * process, on the same frames (docs/peers.md §3, "DPDK measured here")
 *
 *	bench_gro [--json] [--quick] [-- EAL arguments]
 *
 * Frames: Ethernet / IPv4 (DF) / TCP with timestamps (66 header bytes),
 * MSS 1448, 1514-byte frames; also TCP over IPv6 and UDP (voff only: DPDK
 * 22.11 has neither TCP6 nor USO-style UDP GRO).  Each flow's segments are
 * consecutive; flows are interleaved round-robin.  "1 flow" is 32 frames
 * (the same 32 buffers every round, their headers hot in the cache); the
 * *_ws4096 cases run 1, 4 or 64 flows over the 4096 distinct frames the
 * 1024-flow case uses (bursts of 32 or 128, each flushed), so that their
 * cost differs from the 1024-flow case's in the number of flows only.
 * One "op" is one input packet; the timed region is the library calls only
 * (descriptor and mbuf resets are outside it), for voff including popping
 * the outputs (not freeing them: that is the consumer's cost, and DPDK's
 * figure leaves it out as well).
 * A case's figure is the median over 7 runs of each run's figure: the mean
 * of its rounds within 5 % of its fastest (see round_figure()).
 * voff trusts the checksums (DATA_VALID, as DPDK ignores them) except in
 * the *_verify cases, which check every TCP checksum in software.
 *
 * BENCH_GRO_ONLY=substring runs the matching cases only (=name: that case
 * only; several terms separated by commas); BENCH_GRO_STATS=1 prints the engine's counters after each case;
 * BENCH_GRO_REPEAT=n runs n times as many rounds (for profilers).
 *
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voff/csum.h>
#include <voff/gro.h>
#include <voff/pkt.h>

#ifdef VOFF_HAVE_DPDK
#include <sched.h>

#include <rte_eal.h>
#include <rte_gro.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#endif

#define SLOT 2048
#define SLOT_HEAD 128
#define MSS 1448
#define RUNS 7

enum proto { P_TCP4, P_TCP6, P_UDP4 };

/* Bytes of headers a merge may rewrite in a head (Ethernet .. TCP). */
#define HDR_SAVE 96

/*
 * The frames: in buffers of a voff_pool (data room SLOT), as voff's ports
 * receive them; with BENCH_GRO_PACKED=1 in one array at a SLOT stride.
 * A buffer holds a frame SLOT_HEAD bytes after its start.
 */
struct frames {
	uint8_t **buf;		/* buffer i */
	uint32_t room;		/* bytes per buffer */
	struct voff_pool *pool;
	struct voff_pkt **pk;	/* the pool's packets owning the buffers */
	uint8_t *mem;		/* BENCH_GRO_PACKED: the array */
	uint8_t *hdr;		/* pristine copy of each frame's headers */
	uint32_t *len;
	unsigned int n;
};

static bool packed;

static bool json;
static bool quick;
static bool first_json = true;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Cycle counter for the timed regions: clock_gettime() costs about 100 ns
 * on this VM's kvm-clock, the TSC read about 40.  Its rate is calibrated
 * against CLOCK_MONOTONIC once, and the cost of a read pair is subtracted.
 */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static uint64_t ticks(void)
{
	return __rdtsc();
}
#else
static uint64_t ticks(void)
{
	return now_ns();
}
#endif

static double ns_per_tick = 1.0;
static double tick_overhead;

/*
 * A run's figure from its rounds' tick counts @t[0..@n): the mean of the
 * rounds within 5 % of the fastest.  The fastest alone is biased low: this
 * VM's TSC advances in steps of 21 ticks (10 ns), a 32-packet round of
 * 11 ns packets is about 35 steps, and the fastest of many rounds is the
 * one whose start and end fell best between steps, up to a step (3 %)
 * below its true length.  The rounds near the fastest straddle the steps
 * both ways and average out; rounds that an interrupt or the other vCPU's
 * tenants slowed lie further off.  Returns ticks per round.
 */
static double round_figure(const double *t, unsigned int n)
{
	double min = t[0], sum = 0;
	unsigned int k = 0;

	for (unsigned int i = 1; i < n; i++)
		if (t[i] < min)
			min = t[i];
	for (unsigned int i = 0; i < n; i++) {
		if (t[i] <= min * 1.05) {
			sum += t[i];
			k++;
		}
	}
	return sum / k;
}

static void calibrate(void)
{
	uint64_t t0 = now_ns(), c0 = ticks(), t1, c1, best = UINT64_MAX;

	while (now_ns() - t0 < 50000000ull)
		;
	t1 = now_ns();
	c1 = ticks();
	ns_per_tick = (double)(t1 - t0) / (double)(c1 - c0);
	for (int i = 0; i < 1000; i++) {
		uint64_t a = ticks(), b = ticks();

		if (b - a < best)
			best = b - a;
	}
	tick_overhead = (double)best;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* One frame of flow @flow, segment @k, into @p; returns its length. */
static uint32_t build(uint8_t *p, enum proto pr, unsigned int flow,
		      unsigned int k)
{
	uint32_t l3 = 14, l4, pay, len, l4_len, sum;
	uint16_t c;

	memset(p, 0, 14);
	p[0] = 2;
	p[5] = 2;
	p[6] = 2;
	p[11] = 1;
	if (pr == P_TCP6) {
		put16(p + 12, 0x86DD);
		l4 = l3 + 40;
	} else {
		put16(p + 12, 0x0800);
		l4 = l3 + 20;
	}
	pay = pr == P_UDP4 ? 1472 : (pr == P_TCP6 ? MSS - 20 : MSS);
	len = pr == P_UDP4 ? l4 + 8 + pay : l4 + 32 + pay;
	l4_len = len - l4;
	if (pr == P_TCP6) {
		memset(p + l3, 0, 40);
		put32(p + l3, 0x60000000u);
		put16(p + l3 + 4, (uint16_t)l4_len);
		p[l3 + 6] = 6;
		p[l3 + 7] = 64;
		p[l3 + 8] = 0x20;
		p[l3 + 9] = 0x01;
		put32(p + l3 + 20, 0x0A000000u | flow);
		p[l3 + 24] = 0x20;
		p[l3 + 25] = 0x01;
		p[l3 + 39] = 2;
	} else {
		memset(p + l3, 0, 20);
		p[l3] = 0x45;
		put16(p + l3 + 2, (uint16_t)(len - l3));
		put16(p + l3 + 4, (uint16_t)k);
		put16(p + l3 + 6, 0x4000);
		p[l3 + 8] = 64;
		p[l3 + 9] = pr == P_UDP4 ? 17 : 6;
		put32(p + l3 + 12, 0x0A000000u | flow);
		put32(p + l3 + 16, 0x0A800001u);
		c = voff_csum_ipv4_hdr(p + l3, 20);
		memcpy(p + l3 + 10, &c, 2);
	}
	if (pr == P_UDP4) {
		put16(p + l4, (uint16_t)(1000 + (flow & 0x7FFF)));
		put16(p + l4 + 2, 5001);
		put16(p + l4 + 4, (uint16_t)l4_len);
		put16(p + l4 + 6, 0);
		for (uint32_t i = 0; i < pay; i++)
			p[l4 + 8 + i] = (uint8_t)(i + k);
	} else {
		memset(p + l4, 0, 32);
		put16(p + l4, (uint16_t)(1000 + (flow & 0x7FFF)));
		put16(p + l4 + 2, 5001);
		put32(p + l4 + 4, 1 + k * pay);
		put32(p + l4 + 8, 77);
		p[l4 + 12] = 0x80;
		p[l4 + 13] = 0x10;
		put16(p + l4 + 14, 3000);
		p[l4 + 20] = 1;
		p[l4 + 21] = 1;
		p[l4 + 22] = 8;
		p[l4 + 23] = 10;
		put32(p + l4 + 24, 12345);
		put32(p + l4 + 28, 54321);
		for (uint32_t i = 0; i < pay; i++)
			p[l4 + 32 + i] = (uint8_t)(i * 7 + k);
	}
	if (pr == P_TCP6)
		sum = voff_csum_pseudo_v6(p + l3 + 8, p + l3 + 24, 6, l4_len);
	else
		sum = voff_csum_pseudo_v4(p + l3 + 12, p + l3 + 16,
					  pr == P_UDP4 ? 17 : 6, l4_len);
	c = voff_csum_fold(voff_csum(p + l4, l4_len, sum));
	if (pr == P_UDP4 && c == 0)
		c = 0xFFFF;
	memcpy(p + l4 + (pr == P_UDP4 ? 6 : 16), &c, 2);
	return len;
}

static void make_frames(struct frames *f, enum proto pr, unsigned int flows,
			unsigned int per_flow)
{
	memset(f, 0, sizeof(*f));
	f->n = flows * per_flow;
	f->buf = calloc(f->n, sizeof(*f->buf));
	f->len = calloc(f->n, sizeof(*f->len));
	f->hdr = malloc((size_t)f->n * HDR_SAVE);
	if (!f->buf || !f->len || !f->hdr)
		goto oom;
	if (packed) {
		f->mem = aligned_alloc(64, (size_t)f->n * SLOT);
		if (!f->mem)
			goto oom;
		f->room = SLOT;
		for (unsigned int i = 0; i < f->n; i++)
			f->buf[i] = f->mem + (size_t)i * SLOT;
	} else {
		f->pk = calloc(f->n, sizeof(*f->pk));
		if (!f->pk || voff_pool_new(&f->pool, f->n, SLOT) != 0)
			goto oom;
		for (unsigned int i = 0; i < f->n; i++) {
			if (voff_pkt_alloc(f->pool, &f->pk[i]) != 0)
				goto oom;
			f->buf[i] = f->pk[i]->buf;
			f->room = f->pk[i]->buf_size;
		}
	}
	for (unsigned int i = 0; i < f->n; i++) {
		f->len[i] = build(f->buf[i] + SLOT_HEAD, pr, i % flows,
				  i / flows);
		memcpy(f->hdr + (size_t)i * HDR_SAVE, f->buf[i] + SLOT_HEAD,
		       HDR_SAVE);
	}
	return;
oom:
	fprintf(stderr, "out of memory\n");
	exit(1);
}

/* Undo what a previous run's merges wrote into held heads (sg mode). */
static void restore_headers(const struct frames *f)
{
	for (unsigned int i = 0; i < f->n; i++)
		memcpy(f->buf[i] + SLOT_HEAD, f->hdr + (size_t)i * HDR_SAVE,
		       HDR_SAVE);
}

static void free_frames(struct frames *f)
{
	if (f->pool) {
		voff_pkt_free_bulk(f->pk, f->n);
		voff_pool_free(f->pool);
	}
	free(f->pk);
	free(f->buf);
	free(f->mem);
	free(f->hdr);
	free(f->len);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *runs, const char *note)
{
	double med;

	qsort(runs, RUNS, sizeof(*runs), cmp_double);
	med = runs[RUNS / 2];
	if (json) {
		printf("%s\n  {\"name\": \"%s\", \"ns_per_op\": %.2f}",
		       first_json ? "[" : ",", name, med);
		first_json = false;
	} else {
		printf("%-28s %9.2f ns/pkt  (min %.2f max %.2f)  %s\n", name,
		       med, runs[0], runs[RUNS - 1], note);
	}
	fflush(stdout);
}

/* ---- voff --------------------------------------------------------------- */

struct vcase {
	const char *name;
	enum proto pr;
	unsigned int flows;
	unsigned int per_flow;
	unsigned int burst;	/* flush after every @burst packets */
	bool verify;
	bool sg;		/* scatter-gather mode, outputs as iovecs */
	bool one;		/* voff_gro_receive() per frame, not bursts */
};

/*
 * Packets the consumer has taken but not yet freed: freeing is the
 * consumer's business (DPDK's figure does not include it either), so it
 * happens after the timed region.
 */
static struct voff_pkt **taken;
static unsigned int n_taken;

static void free_taken(void)
{
	voff_pkt_free_bulk(taken, n_taken);
	n_taken = 0;
}

/* Take every queued output as an iovec list. */
static void drain_sg(struct voff_gro *g, unsigned long *outs)
{
	struct iovec iov[VOFF_GRO_SG_MAX_SEGS];
	struct voff_sg sg;
	int n;

	for (;;) {
		voff_sg_init(&sg, iov, VOFF_GRO_SG_MAX_SEGS);
		n = voff_gro_pop_sg(g, &sg, taken + n_taken,
				    VOFF_GRO_SG_MAX_SEGS);
		if (n <= 0)
			break;
		n_taken += (unsigned int)n;
		(*outs)++;
	}
}

static void drain_flat(struct voff_gro *g, unsigned long *outs)
{
	struct voff_pkt *p;

	while ((p = voff_gro_pop(g))) {
		(*outs)++;
		taken[n_taken++] = p;
	}
}

static void drain(struct voff_gro *g, const struct vcase *c,
		  unsigned long *outs)
{
	if (c->sg)
		drain_sg(g, outs);
	else
		drain_flat(g, outs);
}

/* Fresh descriptors over the frames (and, in sg mode, pristine headers). */
static void voff_reset(struct voff_pkt *d, const struct frames *f,
		       const struct vcase *c)
{
	if (c->sg)
		restore_headers(f);
	for (unsigned int i = 0; i < f->n; i++) {
		voff_pkt_init_ext(&d[i], f->buf[i], f->room, SLOT_HEAD,
				  f->len[i]);
		d[i].csum = c->verify ? VOFF_CSUM_NONE : VOFF_CSUM_VALID;
	}
}

/* Pointers to the descriptors, for voff_gro_receive_burst(). */
static struct voff_pkt **ptrs;

/*
 * BENCH_GRO_PHASES: ticks spent receiving, flushing and taking the outputs
 * in the current round (burst cases only), and in the fastest one so far.
 */
static bool phases;
static uint64_t ph_cur[3], ph_best[3];

static inline uint64_t phase_mark(unsigned int ph, uint64_t t)
{
	uint64_t now;

	if (!phases)
		return 0;
	now = ticks();
	ph_cur[ph] += now - t;
	return now;
}

/* Each burst through voff_gro_receive_burst(), then a flush. */
static unsigned long voff_process_burst(struct voff_gro *g,
					const struct frames *f,
					const struct vcase *c)
{
	unsigned long outs = 0;
	uint64_t t = phases ? ticks() : 0;

	for (unsigned int s = 0; s < f->n; s += c->burst) {
		unsigned int end = s + c->burst < f->n ? s + c->burst : f->n;
		unsigned int i = s;

		while (i < end) {
			int k = voff_gro_receive_burst(g, ptrs + i, end - i, 0);

			if (k < 0)
				exit(1);
			i += (unsigned int)k;
			if (i < end) {
				drain(g, c, &outs);
				taken[n_taken++] = ptrs[i++];
				outs++;
			}
		}
		t = phase_mark(0, t);
		voff_gro_flush(g, 0);
		t = phase_mark(1, t);
		drain(g, c, &outs);
		t = phase_mark(2, t);
	}
	voff_gro_flush_all(g);
	drain(g, c, &outs);
	return outs;
}

/* Every frame through the engine, flushing after each burst. */
static unsigned long voff_process(struct voff_gro *g, struct voff_pkt *d,
				  const struct frames *f,
				  const struct vcase *c)
{
	unsigned long outs = 0;

	if (!c->one)
		return voff_process_burst(g, f, c);
	for (unsigned int i = 0; i < f->n; i++) {
		if (voff_gro_receive(g, &d[i], 0) == VOFF_GRO_PASS) {
			drain(g, c, &outs);
			taken[n_taken++] = &d[i];
			outs++;
		}
		if ((i + 1) % c->burst == 0) {
			voff_gro_flush(g, 0);
			drain(g, c, &outs);
		}
	}
	voff_gro_flush_all(g);
	drain(g, c, &outs);
	return outs;
}

/*
 * Run @iters rounds of reset + process and return the cost per packet of
 * round_figure() of the rounds: resets stay outside the timed region, and
 * rounds that the other tenants of this 2-vCPU VM interrupted drop out.
 */
static double voff_time(struct voff_gro *g, struct voff_pkt *d,
			const struct frames *f, const struct vcase *c,
			unsigned int iters, unsigned long *outs)
{
	double best = 1e30, fig;
	double *t = malloc(iters * sizeof(*t));

	if (!t)
		exit(1);
	for (unsigned int k = 0; k < iters; k++) {
		uint64_t t0, t1;

		voff_reset(d, f, c);
		memset(ph_cur, 0, sizeof(ph_cur));
		t0 = ticks();
		*outs = voff_process(g, d, f, c);
		t1 = ticks();
		free_taken();
		t[k] = (double)(t1 - t0);
		if (t[k] < best) {
			best = t[k];
			memcpy(ph_best, ph_cur, sizeof(ph_best));
		}
	}
	fig = round_figure(t, iters);
	free(t);
	return (fig - tick_overhead) * ns_per_tick / f->n;
}

static unsigned int iters_for(unsigned int n)
{
	const char *rep = getenv("BENCH_GRO_REPEAT");
	unsigned int pkts = quick ? 20000 : 100000;

	if (rep && atoi(rep) > 0)
		pkts *= (unsigned int)atoi(rep);

	return pkts / n > 8 ? pkts / n : 8;
}

static void voff_case(const struct vcase *c)
{
	struct voff_gro_config cfg = { .max_flows = c->flows < 64 ? 64
								  : c->flows,
				       .sg = c->sg };
	struct voff_gro *g;
	struct voff_pkt *d;
	struct frames f;
	double runs[RUNS];
	unsigned long outs = 0;
	char note[96];
	int err;

	make_frames(&f, c->pr, c->flows, c->per_flow);
	d = calloc(f.n, sizeof(*d));
	taken = calloc(f.n + VOFF_GRO_SG_MAX_SEGS, sizeof(*taken));
	ptrs = calloc(f.n, sizeof(*ptrs));
	err = voff_gro_new(&g, &cfg);
	if (err || !d || !taken || !ptrs) {
		fprintf(stderr, "voff_gro_new: %d\n", err);
		exit(1);
	}
	for (unsigned int i = 0; i < f.n; i++)
		ptrs[i] = &d[i];
	/* Warm up: first touches of the engine's pool fault pages in. */
	voff_time(g, d, &f, c, 2, &outs);
	for (int r = 0; r < RUNS; r++)
		runs[r] = voff_time(g, d, &f, c, iters_for(f.n), &outs);
	snprintf(note, sizeof(note), "%lu pkts -> %lu out (%.1f seg/out)",
		 (unsigned long)f.n, outs, outs ? (double)f.n / outs : 0.0);
	report(c->name, runs, note);
	if (phases && !c->one)
		fprintf(stderr, "  phases (fastest round of the last run), "
			"ns/pkt: receive %.2f flush %.2f output %.2f\n",
			(double)ph_best[0] * ns_per_tick / f.n,
			(double)ph_best[1] * ns_per_tick / f.n,
			(double)ph_best[2] * ns_per_tick / f.n);
	if (getenv("BENCH_GRO_STATS")) {
		struct voff_gro_stats st;

		voff_gro_stats(g, &st);
		fprintf(stderr, "  in %llu passed %llu held %llu merged %llu "
			"out %llu csum_bad %llu\n",
			(unsigned long long)st.in, (unsigned long long)st.passed,
			(unsigned long long)st.held,
			(unsigned long long)st.merged,
			(unsigned long long)st.out,
			(unsigned long long)st.csum_bad);
	}
	voff_gro_free(g);
	free(d);
	free(taken);
	free(ptrs);
	free_frames(&f);
}

/* ---- DPDK --------------------------------------------------------------- */

#ifdef VOFF_HAVE_DPDK
static struct rte_mempool *mp;
static bool have_dpdk;

struct dcase {
	const char *name;
	unsigned int flows;
	unsigned int per_flow;
	unsigned int burst;
	bool ctx;		/* context table, flushed at the end */
};

static void dpdk_reset(struct rte_mbuf **m, const struct frames *f)
{
	for (unsigned int i = 0; i < f->n; i++) {
		struct rte_mbuf *b = m[i];

		b->data_off = RTE_PKTMBUF_HEADROOM;
		b->next = NULL;
		b->nb_segs = 1;
		b->data_len = (uint16_t)f->len[i];
		b->pkt_len = f->len[i];
		b->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
				 RTE_PTYPE_L4_TCP;
		b->l2_len = 14;
		b->l3_len = 20;
		b->l4_len = 32;
		b->ol_flags = 0;
		/* Merging rewrites only the head's headers. */
		memcpy(rte_pktmbuf_mtod(b, uint8_t *),
		       f->buf[i] + SLOT_HEAD, 66);
	}
}

static unsigned long dpdk_process(struct rte_mbuf **arr,
				  struct rte_mbuf **out,
				  const struct frames *f,
				  const struct dcase *c,
				  const struct rte_gro_param *prm, void *ctx)
{
	unsigned long outs = 0;

	for (unsigned int i = 0; i < f->n; i += c->burst) {
		uint16_t nb = (uint16_t)(f->n - i < c->burst ? f->n - i
							      : c->burst);

		if (c->ctx)
			outs += rte_gro_reassemble(arr + i, nb, ctx);
		else
			outs += rte_gro_reassemble_burst(arr + i, nb, prm);
	}
	if (c->ctx)
		outs += rte_gro_timeout_flush(ctx, 0, RTE_GRO_TCP_IPV4, out,
					      (uint16_t)f->n);
	return outs;
}

/* As voff_time(): round_figure() of the rounds, resets outside them. */
static double dpdk_time(struct rte_mbuf **m, struct rte_mbuf **arr,
			struct rte_mbuf **out, const struct frames *f,
			const struct dcase *c, const struct rte_gro_param *prm,
			void *ctx, unsigned int iters, unsigned long *outs)
{
	double *t = malloc(iters * sizeof(*t)), fig;

	if (!t)
		exit(1);
	for (unsigned int k = 0; k < iters; k++) {
		uint64_t t0, t1;

		dpdk_reset(m, f);
		memcpy(arr, m, f->n * sizeof(*m));
		t0 = ticks();
		*outs = dpdk_process(arr, out, f, c, prm, ctx);
		t1 = ticks();
		t[k] = (double)(t1 - t0);
	}
	fig = round_figure(t, iters);
	free(t);
	return (fig - tick_overhead) * ns_per_tick / f->n;
}

static void dpdk_case(const struct dcase *c)
{
	struct rte_gro_param prm = { .gro_types = RTE_GRO_TCP_IPV4 };
	struct rte_mbuf **m, **arr, **out;
	struct frames f;
	double runs[RUNS];
	unsigned long outs = 0;
	char note[96];
	void *ctx = NULL;

	make_frames(&f, P_TCP4, c->flows, c->per_flow);
	m = calloc(f.n, sizeof(*m));
	arr = calloc(f.n, sizeof(*arr));
	out = calloc(f.n, sizeof(*out));
	if (!m || !arr || !out || rte_pktmbuf_alloc_bulk(mp, m, f.n) != 0) {
		fprintf(stderr, "dpdk: mbuf allocation failed\n");
		exit(1);
	}
	for (unsigned int i = 0; i < f.n; i++)
		memcpy(rte_pktmbuf_mtod(m[i], uint8_t *),
		       f.buf[i] + SLOT_HEAD, f.len[i]);
	prm.max_flow_num = (uint16_t)(c->ctx ? c->flows : c->burst);
	prm.max_item_per_flow = (uint16_t)(c->ctx ? c->per_flow : c->burst);
	if (c->ctx) {
		ctx = rte_gro_ctx_create(&prm);
		if (!ctx) {
			fprintf(stderr, "dpdk: rte_gro_ctx_create failed\n");
			exit(1);
		}
	}
	dpdk_time(m, arr, out, &f, c, &prm, ctx, 2, &outs);
	for (int r = 0; r < RUNS; r++)
		runs[r] = dpdk_time(m, arr, out, &f, c, &prm, ctx,
				    iters_for(f.n), &outs);
	snprintf(note, sizeof(note), "%u pkts -> %lu out", f.n, outs);
	report(c->name, runs, note);
	if (ctx)
		rte_gro_ctx_destroy(ctx);
	dpdk_reset(m, &f);
	rte_pktmbuf_free_bulk(m, f.n);
	free(m);
	free(arr);
	free(out);
	free_frames(&f);
}

static bool dpdk_init(int argc, char **argv)
{
	char lcore[16] = "0";
	char *def[] = { "bench_gro", "-l", lcore, "--no-huge", "--no-pci",
			"-m", "512", "--no-shconf", "--iova-mode=va",
			"--log-level=lib.eal:error", NULL };
	cpu_set_t set;

	/*
	 * The EAL pins this thread to its main lcore: make that the first
	 * CPU the process may run on, so that `taskset -c N bench_gro` keeps
	 * every case, voff's and DPDK's, on CPU N (with "-l 0" the EAL moved
	 * the whole process to CPU 0 before the first case).
	 */
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (int i = 0; i < CPU_SETSIZE; i++) {
			if (CPU_ISSET(i, &set)) {
				snprintf(lcore, sizeof(lcore), "%d", i);
				break;
			}
		}
	}
	if (argc > 0) {
		if (rte_eal_init(argc, argv) < 0)
			return false;
	} else if (rte_eal_init(10, def) < 0) {
		return false;
	}
	mp = rte_pktmbuf_pool_create("gro", 8191, 256, 0,
				     RTE_PKTMBUF_HEADROOM + SLOT, SOCKET_ID_ANY);
	return mp != NULL;
}
#endif

static const struct vcase vcases[] = {
	{ "tcp4_1flow", P_TCP4, 1, 32, 32, false, true, false },
	/*
	 * The *_ws4096 cases walk the 1024-flow case's working set: 4096
	 * distinct frames and descriptors, flushed after each burst as
	 * above, so that only the number of flows differs from it.
	 */
	{ "tcp4_1flow_ws4096", P_TCP4, 1, 4096, 32, false, true, false },
	{ "tcp4_4flows_ws4096", P_TCP4, 4, 1024, 128, false, true, false },
	{ "tcp4_64flows_ws4096", P_TCP4, 64, 64, 128, false, true, false },
	{ "tcp4_1flow_one_ws4096", P_TCP4, 1, 4096, 32, false, true, true },
	{ "tcp4_1flow_128", P_TCP4, 1, 128, 128, false, true, false },
	{ "tcp4_4flows", P_TCP4, 4, 32, 128, false, true, false },
	{ "tcp4_64flows", P_TCP4, 64, 2, 128, false, true, false },
	{ "tcp4_1024flows", P_TCP4, 1024, 4, 4096, false, true, false },
	{ "tcp4_1flow_one", P_TCP4, 1, 32, 32, false, true, true },
	{ "tcp4_4flows_one", P_TCP4, 4, 32, 128, false, true, true },
	{ "tcp4_64flows_one", P_TCP4, 64, 2, 128, false, true, true },
	{ "tcp4_1024flows_one", P_TCP4, 1024, 4, 4096, false, true, true },
	{ "tcp4_1flow_copy", P_TCP4, 1, 32, 32, false, false, false },
	{ "tcp4_64flows_copy", P_TCP4, 64, 2, 128, false, false, false },
	{ "tcp4_1024flows_copy", P_TCP4, 1024, 4, 4096, false, false, false },
	{ "tcp4_1flow_copy_verify", P_TCP4, 1, 32, 32, true, false, false },
	{ "tcp4_1flow_verify", P_TCP4, 1, 32, 32, true, true, false },
	{ "tcp6_1flow", P_TCP6, 1, 32, 32, false, true, false },
	{ "tcp6_1flow_ws4096", P_TCP6, 1, 4096, 32, false, true, false },
	{ "tcp6_1024flows", P_TCP6, 1024, 4, 4096, false, true, false },
	{ "udp4_1flow", P_UDP4, 1, 32, 32, false, true, false },
	{ "udp4_1flow_ws4096", P_UDP4, 1, 4096, 32, false, true, false },
	{ "udp4_1024flows", P_UDP4, 1024, 4, 4096, false, true, false },
};

#ifdef VOFF_HAVE_DPDK
static const struct dcase dcases[] = {
	{ "dpdk_tcp4_1flow", 1, 32, 32, false },
	{ "dpdk_tcp4_1flow_ws4096", 1, 4096, 32, false },
	{ "dpdk_tcp4_4flows_ws4096", 4, 1024, 128, false },
	{ "dpdk_tcp4_64flows_ws4096", 64, 64, 128, false },
	{ "dpdk_tcp4_1flow_128", 1, 128, 128, false },
	{ "dpdk_tcp4_4flows", 4, 32, 128, false },
	{ "dpdk_tcp4_64flows", 64, 2, 128, false },
	{ "dpdk_tcp4_1024flows", 1024, 4, 32, true },
};
#endif

/*
 * Whether case @name is selected by BENCH_GRO_ONLY (@only, may be NULL):
 * a comma-separated list of terms, each a substring or =name.
 */
static bool selected(const char *name, const char *only)
{
	if (!only)
		return true;
	while (*only) {
		size_t n = strcspn(only, ",");
		bool exact = only[0] == '=';
		const char *t = only + exact;
		size_t tn = n - exact;

		if (exact ? strlen(name) == tn && !strncmp(name, t, tn)
			  : tn && memmem(name, strlen(name), t, tn))
			return true;
		only += n;
		if (*only == ',')
			only++;
	}
	return false;
}

/* The DPDK case named "dpdk_" @vname, when selected and DPDK runs. */
static void dpdk_twin(const char *vname, const char *only)
{
#ifdef VOFF_HAVE_DPDK
	char name[64];

	if (!have_dpdk)
		return;
	snprintf(name, sizeof(name), "dpdk_%s", vname);
	for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++)
		if (!strcmp(dcases[i].name, name) && selected(name, only))
			dpdk_case(&dcases[i]);
#else
	(void)vname;
	(void)only;
#endif
}

int main(int argc, char **argv)
{
	const char *only = getenv("BENCH_GRO_ONLY");
	int eal_argc = 0;
	char **eal_argv = NULL;

	phases = getenv("BENCH_GRO_PHASES") != NULL;
	packed = getenv("BENCH_GRO_PACKED") != NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--quick")) {
			quick = true;
		} else if (!strcmp(argv[i], "--")) {
			/* EAL parses from argv[0]: reuse the "--" slot. */
			argv[i] = argv[0];
			eal_argc = argc - i;
			eal_argv = argv + i;
			break;
		} else {
			fprintf(stderr, "usage: bench_gro [--json] [--quick] "
					"[-- EAL arguments]\n");
			return 2;
		}
	}
	calibrate();
	if (!json)
		printf("checksum: %s, %.3f ns per tick\n", voff_csum_impl(),
		       ns_per_tick);
#ifdef VOFF_HAVE_DPDK
	have_dpdk = dpdk_init(eal_argc, eal_argv);
	if (!have_dpdk)
		fprintf(stderr, "dpdk: EAL init failed, DPDK cases skipped\n");
#else
	(void)eal_argc;
	(void)eal_argv;
#endif
	/*
	 * Each DPDK case runs right after the voff case on the same frames,
	 * so that a change of the machine's load between them skews their
	 * ratio as little as it can.
	 */
	for (size_t i = 0; i < sizeof(vcases) / sizeof(vcases[0]); i++) {
		if (selected(vcases[i].name, only))
			voff_case(&vcases[i]);
		dpdk_twin(vcases[i].name, only);
	}
	if (json)
		printf("%s]\n", first_json ? "[" : "");
	return 0;
}
