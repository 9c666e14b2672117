/* SPDX-License-Identifier: MIT */
/*
 * bench_udp.c - system calls per MB and throughput of a UDP sender and
 * receiver in three ways (docs/udp.md, "Measured"):
 *
 *   naive   one sendto() and one recv() per datagram (plain sockets)
 *   mmsg    voff_udp with VOFF_UDP_F_NO_GSO | VOFF_UDP_F_NO_GRO: single
 *           datagrams, batched by sendmmsg() and recvmmsg()
 *   trains  voff_udp as opened by default: UDP_SEGMENT trains out,
 *           UDP_GRO trains in, batched the same way
 *
 *	bench_udp [-n MB] [-s DATAGRAM] [-c CHUNK] [-6] [-w]
 *
 * The sender hands CHUNK bytes per call (default 64000, about what one TCP
 * super-packet gives a tunnel) cut into DATAGRAM-byte datagrams (default
 * 1400) until MB megabytes (default 512) are sent; the receiver, a child
 * process, reads until 1 s passes without a datagram.  Each side counts
 * its own system calls (voff_udp_stats(), or one per datagram for naive),
 * so calls per MB do not depend on losses; throughput is what arrived,
 * over the time from the first send to the last receive.  `strace -c -f`
 * on a run gives the same call counts from the kernel's side.
 *
 * Path: the loopback device of the caller's namespace, or with -w (root)
 * a veth pair between two namespaces the bench creates, made to behave
 * like a wire with a NIC at each end: the sender's veth has no UDP
 * segmentation offload (the kernel cuts a train into datagrams there, in
 * software, as a NIC would in hardware) and the receiver's has GRO on
 * (NAPI, which coalesces the datagrams again for a UDP_GRO socket).  On
 * the loopback a train reaches the receiver whole and is never cut.
 *
 * A benchmark, not a test: nothing is asserted and CTest does not run it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <voff/pkt.h>
#include <voff/udp.h>

enum mode { NAIVE, MMSG, TRAINS };
static const char *const mode_name[] = { "naive", "mmsg", "trains" };

/* What one side reports back to the parent. */
struct side {
	uint64_t calls;
	uint64_t bytes;
	uint64_t datagrams;
	uint64_t end_ns;
};

static struct {
	uint64_t mb;
	size_t dgram;
	size_t chunk;
	int family;
	bool wire;
	const char *ns_tx, *ns_rx;
	pid_t owner;
} opt = { 512, 1400, 64000, AF_INET, false, NULL, NULL, 0 };

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_udp: %s: %s\n", what, strerror(err));
	exit(1);
}

static void addr(union voff_udp_addr *a, bool rx, uint16_t port)
{
	const char *v4 = opt.wire ? (rx ? "10.97.0.2" : "10.97.0.1") :
				    "127.0.0.1";
	const char *v6 = opt.wire ? (rx ? "fd97:b::2" : "fd97:b::1") : "::1";

	if (voff_udp_addr_parse(a, opt.family == AF_INET ? v4 : v6, port))
		die("address", EINVAL);
}

/* Open @c for mode @m, or end the bench. */
static struct voff_udp *open_or_die(struct voff_udp_cfg *c, enum mode m,
				    const char *who)
{
	struct voff_udp *u;
	int err;

	if (m != TRAINS)
		c->flags = VOFF_UDP_F_NO_GSO | VOFF_UDP_F_NO_GRO;
	err = voff_udp_open(&u, c);
	if (err)
		die(who, -err);
	return u;
}

static void sh(const char *cmd)
{
	if (system(cmd) != 0) {
		fprintf(stderr, "bench_udp: '%s' failed\n", cmd);
		exit(1);
	}
}

static void wire_down(void)
{
	char cmd[256];

	if (!opt.ns_tx || getpid() != opt.owner)
		return;
	snprintf(cmd, sizeof(cmd), "ip netns del %s; ip netns del %s",
		 opt.ns_tx, opt.ns_rx);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_udp: could not remove the namespaces\n");
}

/* -w: two namespaces joined by a veth that behaves like a wire. */
static void wire_up(void)
{
	opt.ns_tx = "voff-bench-udp-tx";
	opt.ns_rx = "voff-bench-udp-rx";
	opt.owner = getpid();
	atexit(wire_down);
	sh("ip netns add voff-bench-udp-tx && ip netns add voff-bench-udp-rx");
	sh("ip link add vbt netns voff-bench-udp-tx type veth "
	   "peer name vbr netns voff-bench-udp-rx");
	sh("ip -n voff-bench-udp-tx addr add 10.97.0.1/24 dev vbt && "
	   "ip -n voff-bench-udp-tx addr add fd97:b::1/64 dev vbt nodad && "
	   "ip -n voff-bench-udp-tx link set vbt up");
	sh("ip -n voff-bench-udp-rx addr add 10.97.0.2/24 dev vbr && "
	   "ip -n voff-bench-udp-rx addr add fd97:b::2/64 dev vbr nodad && "
	   "ip -n voff-bench-udp-rx link set vbr up");
	sh("ip netns exec voff-bench-udp-tx ethtool -K vbt "
	   "tx-udp-segmentation off && "
	   "ip netns exec voff-bench-udp-rx ethtool -K vbr gro on");
}

/* Receive until 1 s passes without a datagram (after the first). */
static struct side receive(enum mode m, int ready)
{
	struct voff_udp_cfg c = { .rcvbuf = 32 << 20, .netns = opt.ns_rx };
	static uint8_t buf[65536];
	struct side s = { 0 };
	struct voff_udp *u;
	int fd;

	addr(&c.local, true, 7999);
	u = open_or_die(&c, m, "receiver");
	fd = voff_udp_fd(u);
	if (write(ready, "r", 1) != 1)
		die("pipe", errno);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, s.datagrams ? 1000 : 10000) <= 0)
			break;
		if (m == NAIVE) {
			ssize_t r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

			s.calls++;
			if (r >= 0) {
				s.bytes += (uint64_t)r;
				s.datagrams++;
			}
		} else {
			struct voff_batch b;
			struct voff_udp_stats st;

			voff_batch_init(&b);
			voff_udp_recv(u, &b, NULL);
			voff_batch_free(&b);
			voff_udp_stats(u, &st);
			s.calls = st.rx_calls;
			s.bytes = st.rx_bytes;
			s.datagrams = st.rx_datagrams;
		}
		s.end_ns = now_ns();
	}
	voff_udp_close(u);
	return s;
}

static struct side send_all(enum mode m, uint8_t *data)
{
	struct voff_udp_cfg c = { .sndbuf = 4 << 20, .netns = opt.ns_tx };
	uint64_t total = opt.mb << 20, sent = 0;
	struct side s = { 0 };
	struct voff_udp *u;
	int fd;

	addr(&c.local, false, 0);
	addr(&c.remote, true, 7999);
	u = open_or_die(&c, m, "sender");
	fd = voff_udp_fd(u);
	while (sent < total) {
		size_t n = opt.chunk;

		if (n > total - sent)
			n = (size_t)(total - sent);
		if (m == NAIVE) {
			for (size_t off = 0; off < n; off += opt.dgram) {
				size_t k = n - off < opt.dgram ? n - off :
								 opt.dgram;

				/* Errors (an ICMP error, a full queue) are
				 * losses, as voff_udp_send() counts them. */
				(void)send(fd, data + off, k, 0);
				s.calls++;
				s.datagrams++;
			}
		} else {
			struct iovec v = { data, n };

			voff_udp_send(u, &v, 1, opt.dgram, NULL);
		}
		sent += n;
	}
	if (m != NAIVE) {
		struct voff_udp_stats st;

		voff_udp_stats(u, &st);
		s.calls = st.tx_calls;
		s.datagrams = st.tx_datagrams;
	}
	s.bytes = sent;
	voff_udp_close(u);
	return s;
}

static void run(enum mode m, bool quiet)
{
	static uint8_t data[65536];
	int ready[2], res[2];
	struct side tx, rx;
	uint64_t t0;
	double mb_tx, mb_rx, secs;
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(res))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		rx = receive(m, ready[1]);
		if (write(res[1], &rx, sizeof(rx)) != sizeof(rx))
			_exit(1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		die("receiver start", EIO);
	memset(data, 0x5a, sizeof(data));
	t0 = now_ns();
	tx = send_all(m, data);
	if (read(res[0], &rx, sizeof(rx)) != sizeof(rx))
		die("receiver result", EIO);
	waitpid(pid, NULL, 0);
	mb_tx = (double)tx.bytes / (1 << 20);
	mb_rx = (double)rx.bytes / (1 << 20);
	secs = (double)(rx.end_ns - t0) / 1e9;
	if (!quiet)
		printf("%-7s %8.0f %8.0f %6.2f%% %11.1f %11.1f %8.2f\n",
		       mode_name[m], mb_tx, mb_rx,
		       100.0 * (1.0 - mb_rx / mb_tx), (double)tx.calls / mb_tx,
		       rx.bytes ? (double)rx.calls / mb_rx : 0,
		       secs > 0 ? 8 * (double)rx.bytes / secs / 1e9 : 0);
	fflush(stdout);
	close(ready[0]);
	close(ready[1]);
	close(res[0]);
	close(res[1]);
}

int main(int argc, char **argv)
{
	uint64_t mb;
	int o;

	while ((o = getopt(argc, argv, "n:s:c:6w")) != -1) {
		switch (o) {
		case 'n':
			opt.mb = strtoull(optarg, NULL, 10);
			break;
		case 's':
			opt.dgram = strtoul(optarg, NULL, 10);
			break;
		case 'c':
			opt.chunk = strtoul(optarg, NULL, 10);
			break;
		case '6':
			opt.family = AF_INET6;
			break;
		case 'w':
			opt.wire = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n MB] [-s DATAGRAM] "
					"[-c CHUNK] [-6] [-w]\n", argv[0]);
			return 2;
		}
	}
	if (!opt.mb || !opt.dgram || opt.dgram > 65000 || !opt.chunk ||
	    opt.chunk > 65536)
		die("options", EINVAL);
	if (opt.wire)
		wire_up();
	printf("# %s, IPv%d, %zu-byte datagrams, %zu bytes per send call\n",
	       opt.wire ? "veth wire (segmented, GRO)" : "loopback",
	       opt.family == AF_INET ? 4 : 6, opt.dgram, opt.chunk);
	printf("%-7s %8s %8s %7s %11s %11s %8s\n", "mode", "MB sent", "MB rcvd",
	       "loss", "tx calls/MB", "rx calls/MB", "Gbit/s");
	/* Warm up: neighbour discovery, ARP, the caches. */
	mb = opt.mb;
	opt.mb = 1;
	run(TRAINS, true);
	opt.mb = mb;
	for (int m = NAIVE; m <= TRAINS; m++)
		run((enum mode)m, false);
	return 0;
}
