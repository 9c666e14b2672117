/* SPDX-License-Identifier: MIT */
/*
 * rr.c - round-trip times, as netperf's TCP_RR and ping measure them (the
 * first is not in Debian's main archive, the second not on every machine):
 *
 *	rr server [-p PORT] [-1]
 *	rr tcp ADDR [-p PORT] [-n COUNT] [-i USEC] [-s SIZE] [-w WARMUP]
 *	rr icmp ADDR [-n COUNT] [-i USEC] [-s SIZE] [-w WARMUP]
 *
 * `server` echoes every byte of each TCP connection back (-1: exit after
 * the first connection).  `tcp` connects (TCP_NODELAY on both ends) and
 * sends COUNT requests of SIZE bytes (default 1, as TCP_RR), each after
 * the answer to the last and USEC microseconds of pause (default 0: back
 * to back, netperf's transactions); `icmp` sends ICMP echo requests of
 * SIZE bytes of payload (default 56, as ping) over a raw socket, USEC
 * apart (default 0).  WARMUP transactions (default 10) go first and are
 * not counted.
 *
 * Prints one line of microseconds (CLOCK_MONOTONIC around each round
 * trip): "n=500 avg=57.1 min=40.2 p50=55.0 p90=61.3 p99=99.0 max=485.2
 * tps=17500 cpu=12.0" (tps: transactions a second over the counted ones,
 * pauses included; cpu: this process's CPU time per counted transaction,
 * user and system, which for a bridge holds the whole path's).  Needs root for icmp.  Built by the bench scripts with cc;
 * not part of the library.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE 65000

struct opts {
	const char *addr;
	unsigned int port;
	unsigned long count;
	unsigned long warmup;
	unsigned long interval_us;
	size_t size;
	bool once;
};

static uint8_t buf[MAX_SIZE + 64];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void pause_us(unsigned long us)
{
	struct timespec ts = { (time_t)(us / 1000000),
			       (long)(us % 1000000) * 1000 };

	if (us)
		nanosleep(&ts, NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The sample at quantile @q of @n sorted samples (nearest rank). */
static double quantile(const double *s, unsigned long n, double q)
{
	unsigned long k = (unsigned long)(q * (double)n + 0.999999);

	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	return s[k - 1];
}

/* This process's CPU time, user and system, in microseconds. */
static double cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* CPU time when the counted transactions began (cpu_us()). */
static double cpu_start;

static void report(double *s, unsigned long n, double elapsed_us)
{
	double sum = 0;

	if (!n) {
		printf("n=0\n");
		return;
	}
	for (unsigned long i = 0; i < n; i++)
		sum += s[i];
	qsort(s, n, sizeof(*s), cmp_double);
	printf("n=%lu avg=%.1f min=%.1f p50=%.1f p90=%.1f p99=%.1f "
	       "max=%.1f tps=%.0f cpu=%.1f\n",
	       n, sum / (double)n, s[0], quantile(s, n, 0.5),
	       quantile(s, n, 0.9), quantile(s, n, 0.99), s[n - 1],
	       elapsed_us > 0 ? (double)n * 1e6 / elapsed_us : 0,
	       (cpu_us() - cpu_start) / (double)n);
}

static int full_io(int fd, uint8_t *p, size_t len, bool wr)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = wr ? write(fd, p + done, len - done)
			       : read(fd, p + done, len - done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int serve(const struct opts *o)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)o->port) };
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);

	if (lfd < 0)
		return 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4)) {
		perror("rr server");
		return 1;
	}
	for (;;) {
		int c = accept(lfd, NULL, NULL);
		ssize_t r;

		if (c < 0)
			continue;
		nodelay(c);
		while ((r = read(c, buf, sizeof(buf))) > 0)
			if (full_io(c, buf, (size_t)r, true))
				break;
		close(c);
		if (o->once)
			return 0;
	}
}

static int tcp_client(const struct opts *o, double *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)o->port) };
	unsigned long total = o->warmup + o->count;
	double start = 0;
	int fd;

	if (inet_pton(AF_INET, o->addr, &a.sin_addr) != 1)
		return 2;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	for (int t = 0; fd >= 0 && t < 50; t++) {
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		if (errno != ECONNREFUSED || t == 49) {
			perror("rr tcp: connect");
			return 1;
		}
		close(fd);
		pause_us(100000);
		fd = socket(AF_INET, SOCK_STREAM, 0);
	}
	if (fd < 0)
		return 1;
	nodelay(fd);
	memset(buf, 'r', o->size);
	for (unsigned long i = 0; i < total; i++) {
		double t0;

		if (i == o->warmup) {
			start = now_us();
			cpu_start = cpu_us();
		}
		t0 = now_us();
		if (full_io(fd, buf, o->size, true) ||
		    full_io(fd, buf, o->size, false)) {
			fprintf(stderr, "rr tcp: connection lost\n");
			return 1;
		}
		if (i >= o->warmup)
			s[i - o->warmup] = now_us() - t0;
		pause_us(o->interval_us);
	}
	report(s, o->count, now_us() - start);
	close(fd);
	return 0;
}

static uint16_t csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Wait for the reply to echo @seq; Return: 0, or -1 after a second. */
static int icmp_wait(int fd, uint16_t id, uint16_t seq)
{
	double end = now_us() + 1e6;
	uint8_t in[MAX_SIZE + 128];

	while (now_us() < end) {
		ssize_t r = recv(fd, in, sizeof(in), 0);
		size_t ihl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		ihl = (size_t)(in[0] & 15) * 4;
		if ((size_t)r < ihl + 8 || in[ihl] != ICMP_ECHOREPLY)
			continue;
		if ((uint16_t)(in[ihl + 4] << 8 | in[ihl + 5]) == id &&
		    (uint16_t)(in[ihl + 6] << 8 | in[ihl + 7]) == seq)
			return 0;
	}
	return -1;
}

static int icmp_client(const struct opts *o, double *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv = { 1, 0 };
	unsigned long total = o->warmup + o->count, lost = 0, n = 0;
	uint16_t id = (uint16_t)getpid();
	double start = 0;
	int fd;

	if (inet_pton(AF_INET, o->addr, &a.sin_addr) != 1)
		return 2;
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	if (fd < 0) {
		perror("rr icmp: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(buf, 0, o->size + 8);
	for (unsigned long i = 0; i < total; i++) {
		uint16_t seq = (uint16_t)i, c;
		double t0;

		if (i == o->warmup) {
			start = now_us();
			cpu_start = cpu_us();
		}
		buf[0] = ICMP_ECHO;
		buf[2] = buf[3] = 0;
		buf[4] = (uint8_t)(id >> 8);
		buf[5] = (uint8_t)id;
		buf[6] = (uint8_t)(seq >> 8);
		buf[7] = (uint8_t)seq;
		c = csum(buf, o->size + 8);
		buf[2] = (uint8_t)(c >> 8);
		buf[3] = (uint8_t)c;
		t0 = now_us();
		if (sendto(fd, buf, o->size + 8, 0, (struct sockaddr *)&a,
			   sizeof(a)) < 0 ||
		    icmp_wait(fd, id, seq)) {
			lost += i >= o->warmup;
			continue;
		}
		if (i >= o->warmup)
			s[n++] = now_us() - t0;
		pause_us(o->interval_us);
	}
	if (lost)
		fprintf(stderr, "rr icmp: %lu of %lu lost\n", lost, o->count);
	report(s, n, now_us() - start);
	close(fd);
	return 0;
}

static int usage(void)
{
	fputs("usage: rr server [-p PORT] [-1]\n"
	      "       rr tcp|icmp ADDR [-p PORT] [-n COUNT] [-i USEC] "
	      "[-s SIZE] [-w WARMUP]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = 5299, .count = 1000, .warmup = 10 };
	const char *mode;
	double *s;
	int opt, rc, first;

	if (argc < 2)
		return usage();
	mode = argv[1];
	first = strcmp(mode, "server") ? 3 : 2;
	if (argc < first)
		return usage();
	o.addr = first == 3 ? argv[2] : NULL;
	o.size = strcmp(mode, "icmp") ? 1 : 56;
	optind = first;
	while ((opt = getopt(argc, argv, "p:n:i:s:w:1")) != -1) {
		switch (opt) {
		case 'p': o.port = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'n': o.count = strtoul(optarg, NULL, 0); break;
		case 'i': o.interval_us = strtoul(optarg, NULL, 0); break;
		case 's': o.size = strtoul(optarg, NULL, 0); break;
		case 'w': o.warmup = strtoul(optarg, NULL, 0); break;
		case '1': o.once = true; break;
		default: return usage();
		}
	}
	if (!o.size || o.size > MAX_SIZE || !o.count || o.port > 65535)
		return usage();
	if (!strcmp(mode, "server"))
		return serve(&o);
	s = calloc(o.count, sizeof(*s));
	if (!s)
		return 1;
	if (!strcmp(mode, "tcp"))
		rc = tcp_client(&o, s);
	else if (!strcmp(mode, "icmp"))
		rc = icmp_client(&o, s);
	else
		rc = usage();
	free(s);
	return rc;
}
