/* SPDX-License-Identifier: MIT */
/*
 * test_gro_kernel.c - the kernel as GRO oracle: random sequences of crafted
 * TCP and UDP segments sent over a veth whose receiving end does GRO, read
 * back through AF_PACKET with PACKET_VNET_HDR, compared with voff's engine
 * fed the same frames
 *
 * Run by tests/integ/gro_kernel.sh inside a network namespace it creates
 * (veth va -> vb, vb with GRO, rx-udp-gro-forwarding and threaded NAPI,
 * its NAPI thread pinned to CPU 0).  Run alone (no VOFF_GRO_KERNEL in the
 * environment) every test skips.
 *
 * Determinism (kernel-model.md §6.2): the sender is pinned to CPU 0 and runs
 * SCHED_FIFO while it queues one batch of at most 64 frames (the veth NAPI
 * weight), so the NAPI thread, on the same CPU, polls the whole batch at
 * once: one batch = one poll, flushed at its end, oldest flow first.  Frames
 * from AF_PACKET over veth carry no hash, so every flow shares one GRO
 * bucket of at most 8 packets: voff runs with max_flows 8.
 *
 * The sequences avoid the cases where voff differs from the kernel on
 * purpose (frames the kernel skips before the flow lookup and delivers
 * ahead of their own held flow; IPv6 flow label changes opening a second
 * entry): see docs/gro.md.  Each flow's outputs are compared in order
 * (frame length, gso_size, GSO or not, and every byte but the partial
 * checksum seed); the interleaving of different flows is forgiven.  The
 * expectations were taken on the kernel this runs on; it prints its
 * release so the log records it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>

#include "check.h"
#include "frames.h"
#include "gro_gen.h"
#include "gro_util.h"

#define BATCH 64
#define MAXF 6

struct kout {
	uint8_t d[70000];
	uint32_t len;
	uint16_t gso_size;
	uint8_t gso_type;
	uint8_t flags;
};

static struct kout kouts[BATCH + 8];
static int nk;
static struct run R_k;
static int tx_fd = -1, rx_fd = -1;

static void need_env(void)
{
	if (!getenv("VOFF_GRO_KERNEL"))
		CHECK_SKIP("run by tests/integ/gro_kernel.sh in a netns");
}

static void open_sockets(void)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ALL) };
	int one = 1;

	tx_fd = socket(AF_PACKET, SOCK_RAW, 0);
	rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
	CHECK(tx_fd >= 0 && rx_fd >= 0);
	a.sll_ifindex = (int)if_nametoindex("va");
	CHECK_GT(a.sll_ifindex, 0);
	CHECK_OK(bind(tx_fd, (struct sockaddr *)&a, sizeof(a)));
	CHECK_OK(setsockopt(rx_fd, SOL_PACKET, PACKET_VNET_HDR, &one,
			    sizeof(one)));
	a.sll_ifindex = (int)if_nametoindex("vb");
	CHECK_GT(a.sll_ifindex, 0);
	CHECK_OK(bind(rx_fd, (struct sockaddr *)&a, sizeof(a)));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 10 : 0 };

	CHECK_OK(sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp));
}

/*
 * Read what vb received until the end marker (EtherType 0x88B5), then
 * until 20 ms pass without a frame: when the marker lands in the batch's
 * own poll (a busy machine), it overtakes the flows GRO holds until the end
 * of that poll.
 */
static void receive_all(void)
{
	static uint8_t buf[sizeof(struct virtio_net_hdr) + 70000];
	struct pollfd pfd = { .fd = rx_fd, .events = POLLIN };
	bool marker = false;

	nk = 0;
	for (;;) {
		struct virtio_net_hdr vh;
		ssize_t n;

		if (poll(&pfd, 1, marker ? 20 : 1000) <= 0) {
			if (marker)
				return;
			CHECK_MSG(0, "no end marker from the kernel");
		}
		n = recv(rx_fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EAGAIN)
			continue;
		CHECK_GE(n, (ssize_t)(sizeof(vh) + 14));
		memcpy(&vh, buf, sizeof(vh));
		/* Only our frames: source MAC 02:00:00:00:00:01. */
		if (buf[sizeof(vh) + 6] != 2 || buf[sizeof(vh) + 11] != 1)
			continue;
		if (buf[sizeof(vh) + 12] == 0x88 &&
		    buf[sizeof(vh) + 13] == 0xB5) {
			marker = true;
			continue;
		}
		CHECK_LT(nk, BATCH + 8);
		kouts[nk].len = (uint32_t)(n - (ssize_t)sizeof(vh));
		memcpy(kouts[nk].d, buf + sizeof(vh), kouts[nk].len);
		kouts[nk].gso_size = vh.gso_size;
		kouts[nk].gso_type = vh.gso_type;
		kouts[nk].flags = vh.flags;
		nk++;
	}
}

static void send_batch(uint8_t (*frames)[2048], const uint32_t *lens, int n)
{
	static const uint8_t marker[60] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1,
					    0x88, 0xB5 };

	set_fifo(true);
	for (int i = 0; i < n; i++)
		CHECK_EQ(send(tx_fd, frames[i], lens[i], 0), (ssize_t)lens[i]);
	set_fifo(false);
	/* Let the NAPI thread poll the batch, then mark its end. */
	sleep_ms(2);
	CHECK_EQ(send(tx_fd, marker, sizeof(marker), 0), 60);
	receive_all();
}

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
	struct voff_gro_config cfg = { .max_flows = 8 };

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

/* virtio gso_type of a voff output. */
static uint8_t vnet_type(uint32_t t)
{
	uint8_t v = 0;

	if (t & VOFF_GSO_TCPV4)
		v = VIRTIO_NET_HDR_GSO_TCPV4;
	else if (t & VOFF_GSO_TCPV6)
		v = VIRTIO_NET_HDR_GSO_TCPV6;
	else if (t & VOFF_GSO_UDP_L4)
		v = 5;	/* VIRTIO_NET_HDR_GSO_UDP_L4 */
	if (t & VOFF_GSO_TCP_ECN)
		v |= VIRTIO_NET_HDR_GSO_ECN;
	return v;
}

static void dump(void)
{
	fprintf(stderr, "kernel:");
	for (int i = 0; i < nk; i++)
		fprintf(stderr, " %u:%u/%u/%u", frame_sport(kouts[i].d),
			kouts[i].len, kouts[i].gso_type, kouts[i].gso_size);
	fprintf(stderr, "\nvoff:  ");
	for (int i = 0; i < R_k.n; i++)
		fprintf(stderr, " %u:%u/%u/%u", frame_sport(R_k.out[i].d),
			R_k.out[i].len, vnet_type(R_k.out[i].gso_type),
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
			struct kout *k;
			struct rec *v;

			while (ki < nk && frame_sport(kouts[ki].d) != sport)
				ki++;
			while (vi < R_k.n && frame_sport(R_k.out[vi].d) != sport)
				vi++;
			if (ki == nk || vi == R_k.n)
				break;
			k = &kouts[ki];
			v = &R_k.out[vi];

			if (k->len != v->len)
				dump();
			CHECK_MSG(k->len == v->len,
				  "sequence %d flow %u: kernel %u bytes, voff %u",
				  seq_no, sport, k->len, v->len);
			CHECK_MSG(k->gso_type == vnet_type(v->gso_type) &&
					  k->gso_size == v->gso_size,
				  "sequence %d flow %u: kernel gso %u/%u, voff "
				  "%u/%u", seq_no, sport, k->gso_type,
				  k->gso_size, vnet_type(v->gso_type),
				  v->gso_size);
			CHECK_MEM_EQ(k->d, v->d, k->len);
			CHECK_EQ(!!(k->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM),
				 v->csum == VOFF_CSUM_PARTIAL);
			CHECK_EQ(!!(k->flags & VIRTIO_NET_HDR_F_DATA_VALID),
				 v->csum == VOFF_CSUM_VALID);
			ki++;
			vi++;
		}
		if (ki != nk || vi != R_k.n)
			dump();
		CHECK_MSG(ki == nk && vi == R_k.n,
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
	static uint8_t frames[BATCH][2048];
	uint32_t lens[BATCH];
	struct gro_gen_flow f[MAXF];
	unsigned long merged = 0;
	struct utsname u;

	need_env();
	CHECK_OK(uname(&u));
	fprintf(stderr, "kernel %s\n", u.release);
	open_sockets();
	{
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(0, &cpus);
		CHECK_OK(sched_setaffinity(0, sizeof(cpus), &cpus));
	}
	for (int k = 0; k < 4; k++) {
		mixes[k] = mix;
		mixes[k].v6 = k & 1 ? 100 : 0;
		mixes[k].udp = k & 2 ? 100 : 0;
	}
	for (unsigned int q = 0; q < n_seq(); q++) {
		int nflows = 1 + (int)check_rnd(MAXF);
		int n = 2 + (int)check_rnd(BATCH - 1);

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
		send_batch(frames, lens, n);
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
