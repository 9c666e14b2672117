/* SPDX-License-Identifier: MIT */
/*
 * port_ns.c - network namespace helpers of the root port tests (see
 * port_ns.h)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <voff/pkt.h>
#include <voff/port.h>

#include "check.h"
#include "netns_int.h"
#include "port_ns.h"

char ns_a[64], ns_b[64];

void sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	CHECK_MSG(rc == 0, "'%s' failed: %d", cmd, rc);
}

void sh_out(char *out, size_t cap, const char *cmd)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	CHECK(f != NULL);
	n = fread(out, 1, cap - 1, f);
	out[n] = '\0';
	pclose(f);
}

void ns_playground(void)
{
	if (geteuid() != 0)
		CHECK_SKIP("needs root");
	if (system("ip -V >/dev/null 2>&1") != 0)
		CHECK_SKIP("needs iproute2");
	if (system("ethtool --version >/dev/null 2>&1") != 0)
		CHECK_SKIP("needs ethtool");
	if (access("/dev/net/tun", R_OK | W_OK))
		CHECK_SKIP("needs /dev/net/tun");
	if (unshare(CLONE_NEWNS | CLONE_NEWNET))
		CHECK_SKIP("unshare: %s", strerror(errno));
	CHECK_OK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	mkdir("/run/netns", 0755);
	CHECK_OK(mount("voff-test", "/run/netns", "tmpfs", 0, NULL));
	snprintf(ns_a, sizeof(ns_a), "voff-port-%d-a", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "voff-port-%d-b", (int)getpid());
	sh("ip netns add %s && ip netns add %s", ns_a, ns_b);
	sh("ip -n %s link set lo up && ip -n %s link set lo up", ns_a, ns_b);
}

void ns_enter(const char *ns)
{
	int saved;

	CHECK_OK(voff__netns_enter(ns, &saved));
	close(saved);	/* children stay where they went */
}

/* fork(); the child moves to namespace @ns.  Return: as fork(). */
static pid_t child_in(const char *ns)
{
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0)
		ns_enter(ns);
	return pid;
}

static uint16_t icmp_sum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return htons((uint16_t)~s);
}

pid_t ping_start(const char *ns, const char *dst)
{
	pid_t pid = child_in(ns);

	if (pid)
		return pid;
	{
		struct sockaddr_in to = { .sin_family = AF_INET };
		struct timeval tv = { .tv_sec = 3 };
		uint8_t req[64] = { 0 }, rep[1500];
		struct icmphdr *h = (struct icmphdr *)req;
		int fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);

		inet_pton(AF_INET, dst, &to.sin_addr);
		h->type = ICMP_ECHO;
		h->un.echo.id = htons((uint16_t)getpid());
		h->un.echo.sequence = htons(1);
		h->checksum = icmp_sum(req, sizeof(req));
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (sendto(fd, req, sizeof(req), 0, (struct sockaddr *)&to,
			   sizeof(to)) != sizeof(req))
			_exit(2);
		for (;;) {
			ssize_t n = recv(fd, rep, sizeof(rep), 0);
			const struct icmphdr *r;

			if (n < 0)
				_exit(3);
			if (n < 28)
				continue;
			r = (const struct icmphdr *)(rep + (rep[0] & 15) * 4);
			if (r->type == ICMP_ECHOREPLY &&
			    r->un.echo.id == h->un.echo.id)
				_exit(0);
		}
	}
}

/* Byte i of a transfer is i % 251; a table makes it a memcmp/memcpy. */
#define PAT_CHUNK (1u << 16)
static uint8_t pat[PAT_CHUNK + 251];

static const uint8_t *pattern_at(uint64_t i)
{
	if (!pat[1])
		for (size_t k = 0; k < sizeof(pat); k++)
			pat[k] = (uint8_t)(k % 251);
	return pat + i % 251;
}

/* Child: in @ns, accept one TCP connection on @port, check every byte,
 * write the count to @wfd; exit 0 when all @n bytes came in order. */
static pid_t tcp_sink_start(const char *ns, uint16_t port, uint64_t n, int wfd)
{
	pid_t pid = child_in(ns);

	if (pid)
		return pid;
	{
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons(port) };
		static uint8_t buf[PAT_CHUNK];
		uint64_t got = 0;
		int bad = 0, one = 1, l, c;

		l = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1))
			_exit(2);
		if (write(wfd, &got, sizeof(got)) != sizeof(got)) /* ready */
			_exit(2);
		c = accept(l, NULL, NULL);
		for (;;) {
			ssize_t r = read(c, buf, sizeof(buf));

			if (r <= 0)
				break;
			bad |= memcmp(buf, pattern_at(got), (size_t)r) != 0;
			got += (uint64_t)r;
		}
		if (write(wfd, &got, sizeof(got)) != sizeof(got))
			_exit(2);
		_exit(got == n && !bad ? 0 : 1);
	}
}

/* Child: in @ns, connect to @dst:@port and send @n pattern bytes. */
static pid_t tcp_source_start(const char *ns, const char *dst, uint16_t port,
			      uint64_t n)
{
	pid_t pid = child_in(ns);

	if (pid)
		return pid;
	{
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons(port) };
		uint64_t sent = 0;
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		inet_pton(AF_INET, dst, &sa.sin_addr);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			_exit(2);
		while (sent < n) {
			size_t chunk = PAT_CHUNK;
			ssize_t w;

			if (chunk > n - sent)
				chunk = (size_t)(n - sent);
			w = write(fd, pattern_at(sent), chunk);
			if (w <= 0)
				_exit(3);
			sent += (uint64_t)w;
		}
		shutdown(fd, SHUT_WR);
		{
			char c;

			while (read(fd, &c, 1) > 0)
				;
		}
		_exit(0);
	}
}

/* Forward between the ports until every pid in @pids exited (or 20 s);
 * return 0 when all exited with status 0, else the first bad status. */
static int fwd_until(struct fwd *f, pid_t *pids, int npids)
{
	struct timespec t0, t;
	int left = npids, result = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left) {
		struct pollfd pfd[2] = {
			{ .fd = f->p[0] ? voff_port_fd(f->p[0]) : -1,
			  .events = POLLIN },
			{ .fd = f->p[1] ? voff_port_fd(f->p[1]) : -1,
			  .events = POLLIN },
		};

		poll(pfd, 2, 5);
		for (int i = 0; i < 2; i++) {
			struct voff_batch b;
			int n;

			if (!f->p[i])
				continue;
			voff_batch_init(&b);
			n = voff_port_rx(f->p[i], f->pool, &b);
			CHECK_MSG(n >= 0, "rx: %d", n);
			for (unsigned int k = 0; k < b.n; k++) {
				if (b.pkts[k]->len > f->max_len[i])
					f->max_len[i] = b.pkts[k]->len;
				f->gso[i] += voff_pkt_is_gso(b.pkts[k]);
				f->gso_types[i] |= b.pkts[k]->gso_type;
			}
			f->frames[i] += b.n;
			if (f->p[!i])
				voff_port_tx(f->p[!i], &b);
			else
				voff_batch_free(&b);
		}
		for (int k = 0; k < npids; k++) {
			int st;

			if (pids[k] <= 0 || waitpid(pids[k], &st, WNOHANG) <= 0)
				continue;
			pids[k] = 0;
			left--;
			if (!result && (!WIFEXITED(st) || WEXITSTATUS(st)))
				result = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 20) {
			for (int k = 0; k < npids; k++)
				if (pids[k] > 0)
					kill(pids[k], SIGKILL);
			return -ETIMEDOUT;
		}
	}
	return result;
}

void tcp_transfer(struct fwd *f, const char *src_ns, const char *dst_ns,
		  const char *dst_ip, uint64_t n)
{
	pid_t pids[2];
	uint64_t got = 0;
	int pfd[2];

	CHECK_OK(pipe(pfd));
	pids[0] = tcp_sink_start(dst_ns, 5001, n, pfd[1]);
	CHECK_EQ(read(pfd[0], &got, sizeof(got)), (ssize_t)sizeof(got));
	pids[1] = tcp_source_start(src_ns, dst_ip, 5001, n);
	CHECK_EQ(fwd_until(f, pids, 2), 0);
	CHECK_EQ(read(pfd[0], &got, sizeof(got)), (ssize_t)sizeof(got));
	CHECK_EQ(got, n);
	close(pfd[0]);
	close(pfd[1]);
}

void ping_through(struct fwd *f, const char *ns, const char *dst)
{
	pid_t pid = ping_start(ns, dst);

	CHECK_EQ(fwd_until(f, &pid, 1), 0);
}
