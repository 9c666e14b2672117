/* SPDX-License-Identifier: MIT */
/*
 * test_gro_kernel.c - the kernel as GRO oracle: random sequences of crafted
 * TCP and UDP segments sent over a veth whose receiving end does GRO, read
 * back through AF_PACKET with PACKET_VNET_HDR, compared with voff's engine
 * fed the same frames
 *
 * Run by tests/integ/gro_kernel.sh inside a network namespace it creates
 * (tests/integ/lib_gro_ns.sh: veth va -> vb, vb with GRO,
 * rx-udp-gro-forwarding and threaded NAPI, its NAPI thread pinned to CPU
 * 0).  Run alone (no VOFF_GRO_KERNEL in the environment) every test skips.
 * How one batch becomes one NAPI poll is in tests/lib/gro_oracle.h.
 * Frames from AF_PACKET over veth carry no hash, so every flow shares one
 * GRO bucket of at most 8 packets: voff runs with max_flows 8.
 *
 * The sequences avoid the cases where voff differs from the kernel on
 * purpose (frames the kernel skips before the flow lookup and delivers
 * ahead of their own held flow; IPv6 flow label changes opening a second
 * entry): see docs/gro.md.  Each flow's outputs are compared in order
 * (frame length, gso_size, GSO or not, and every byte but the partial
 * checksum seed); the interleaving of different flows is forgiven.  The
 * expectations were taken on the kernel this runs on; it prints its
 * release so the log records it.  The golden vectors of tests/vectors/
 * come from the same oracle (docs/vectors.md).
 */
#include <linux/virtio_net.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "check.h"
#include "frames.h"
#include "gro_gen.h"
#include "gro_oracle.h"
#include "gro_util.h"

#define MAXF 6

static struct gro_oracle K;
static struct run R_k;

/* ---- sequences ---------------------------------------------------------- */

/*
 * TCP or UDP over IPv4 or IPv6 as the family says (filled in by family()),
 * frames no larger than the MTU, and none of the changes voff answers
 * differently on purpose (flow label) or the kernel drops (bad checksums,
 * options, fragments, padding).
 */
static struct gro_gen_mix mixes[4];

static const struct gro_gen_mix mix = {
	.sport = 1000, .df = 70, .fixed_id = 30, .big_mss = 30, .big_min = 1,
	.big_max = 1300, .small_max = 300, .ts = 50,
	.shorter = 10, .longer = 5, .longer_max = 40, .flag = 10, .win = 3,
	.tsval = 3, .ack = 3, .seq_jump = 3, .seq_back = 3, .id_jump = 3,
	.ttl = 2, .tos = 2, .tos_values = 16, .df_flip = 2,
};

/* voff's outputs for the same frames. */
static void run_voff(uint8_t (*frames)[2048], const uint32_t *lens, int n)
{
	struct voff_gro_config cfg = { .max_flows = GRO_ORACLE_FLOWS };

	run_init(&R_k, &cfg);
	for (int i = 0; i < n; i++)
		run_feed_bytes(&R_k, frames[i], lens[i], VOFF_CSUM_NONE, 0);
	run_end(&R_k);
}

static uint16_t frame_sport(const uint8_t *d)
{
	uint32_t l4 = d[12] == 0x86 ? 14 + 40 : 14 + (d[14] & 15u) * 4;

	return (uint16_t)(d[l4] << 8 | d[l4 + 1]);
}

static void dump(void)
{
	fprintf(stderr, "kernel:");
	for (int i = 0; i < K.n; i++)
		fprintf(stderr, " %u:%u/%u/%u", frame_sport(K.out[i].d),
			K.out[i].len, K.out[i].gso_type, K.out[i].gso_size);
	fprintf(stderr, "\nvoff:  ");
	for (int i = 0; i < R_k.n; i++)
		fprintf(stderr, " %u:%u/%u/%u", frame_sport(R_k.out[i].d),
			R_k.out[i].len, gro_vnet_type(R_k.out[i].gso_type),
			R_k.out[i].gso_size);
	fprintf(stderr, "\n");
}

/* Kernel and voff outputs of each flow, in order, must be the same. */
static void compare(int seq_no, int nflows)
{
	for (int fl = 0; fl < nflows; fl++) {
		uint16_t sport = (uint16_t)(1000 + fl);
		int ki = 0, vi = 0;

		for (;;) {
			struct gro_kout *k;
			struct rec *v;

			while (ki < K.n && frame_sport(K.out[ki].d) != sport)
				ki++;
			while (vi < R_k.n && frame_sport(R_k.out[vi].d) != sport)
				vi++;
			if (ki == K.n || vi == R_k.n)
				break;
			k = &K.out[ki];
			v = &R_k.out[vi];

			if (k->len != v->len)
				dump();
			CHECK_MSG(k->len == v->len,
				  "sequence %d flow %u: kernel %u bytes, voff %u",
				  seq_no, sport, k->len, v->len);
			CHECK_MSG(k->gso_type == gro_vnet_type(v->gso_type) &&
					  k->gso_size == v->gso_size,
				  "sequence %d flow %u: kernel gso %u/%u, voff "
				  "%u/%u", seq_no, sport, k->gso_type,
				  k->gso_size, gro_vnet_type(v->gso_type),
				  v->gso_size);
			CHECK_MEM_EQ(k->d, v->d, k->len);
			CHECK_EQ(!!(k->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM),
				 v->csum == VOFF_CSUM_PARTIAL);
			CHECK_EQ(!!(k->flags & VIRTIO_NET_HDR_F_DATA_VALID),
				 v->csum == VOFF_CSUM_VALID);
			ki++;
			vi++;
		}
		if (ki != K.n || vi != R_k.n)
			dump();
		CHECK_MSG(ki == K.n && vi == R_k.n,
			  "sequence %d flow %u: kernel and voff output counts "
			  "differ", seq_no, sport);
	}
}

static unsigned int n_seq(void)
{
	const char *e = getenv("VOFF_GRO_KERNEL_N");

	return e ? (unsigned int)strtoul(e, NULL, 0) : 500;
}

/* @fam: bit 0 IPv6, bit 1 UDP, 4 = all four mixed. */
static void family(int fam)
{
	static uint8_t frames[GRO_ORACLE_BATCH][2048];
	uint32_t lens[GRO_ORACLE_BATCH];
	struct gro_gen_flow f[MAXF];
	unsigned long merged = 0;
	struct utsname u;

	gro_oracle_open(&K);
	CHECK_OK(uname(&u));
	fprintf(stderr, "kernel %s\n", u.release);
	for (int k = 0; k < 4; k++) {
		mixes[k] = mix;
		mixes[k].v6 = k & 1 ? 100 : 0;
		mixes[k].udp = k & 2 ? 100 : 0;
	}
	for (unsigned int q = 0; q < n_seq(); q++) {
		int nflows = 1 + (int)check_rnd(MAXF);
		int n = 2 + (int)check_rnd(GRO_ORACLE_BATCH - 1);

		for (int i = 0; i < nflows; i++) {
			int k = fam == 4 ? (int)check_rnd(4) : fam;

			gro_gen_flow(&f[i], &mixes[k], i, false);
		}
		for (int i = 0; i < n; i++) {
			unsigned int w = check_rnd((unsigned int)nflows);
			struct sp s = gro_gen_seg(&f[w]);

			lens[i] = (uint32_t)sp_build(&s, frames[i], 2048);
			CHECK_GT(lens[i], 0);
		}
		gro_oracle_send(&K, frames, lens, n);
		run_voff(frames, lens, n);
		compare((int)q, nflows);
		for (int i = 0; i < R_k.n; i++)
			merged += R_k.out[i].gso_segs > 1;
		run_fini(&R_k);
	}
	fprintf(stderr, "%u sequences, %lu super-packets, all equal\n",
		n_seq(), merged);
	CHECK_GT(merged, n_seq() / 2);
}

static void t_kernel_tcp4(void) { family(0); }
static void t_kernel_tcp6(void) { family(1); }
static void t_kernel_udp4(void) { family(2); }
static void t_kernel_udp6(void) { family(3); }
static void t_kernel_mixed(void) { family(4); }

CHECK_MAIN(CHECK_TEST(t_kernel_tcp4), CHECK_TEST(t_kernel_tcp6),
	   CHECK_TEST(t_kernel_udp4), CHECK_TEST(t_kernel_udp6),
	   CHECK_TEST(t_kernel_mixed))
