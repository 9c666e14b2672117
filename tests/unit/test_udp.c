/* SPDX-License-Identifier: MIT */
/*
 * test_udp.c - the UDP sockets of udp.h on the loopback device of the
 * caller's namespace (no root needed): trains out with UDP_SEGMENT and in
 * with UDP_GRO, the exact datagrams of a naive twin (one sendto() each) on
 * random train shapes, the grouping rules, every fallback (an older
 * kernel's EIO through the send seam, a refused train with SO_NO_CHECK, a
 * kernel without the options through a seccomp filter), frames and
 * super-packets cut by voff's GSO, the split into views.  With root: the
 * socket opened in a namespace, over a veth pair whose sender has no
 * transmit checksum offload.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>

#include <voff/gso.h>
#include <voff/pkt.h>
#include <voff/udp.h>

#include "check.h"
#include "gso_twin.h"
#include "port_ns.h"
#include "udp_int.h"

#ifndef SOL_UDP
#define SOL_UDP IPPROTO_UDP
#endif

/* ---- what a receiver got ------------------------------------------------- */

#define GOT_MAX 4096
#define GOT_BYTES (8u << 20)

/* The datagrams a receiver saw, in order, and how they came. */
struct got {
	uint8_t *buf;
	size_t len;
	uint32_t lens[GOT_MAX];
	unsigned int n;
	unsigned int msgs;
};

static struct got *got_new(void)
{
	struct got *g = calloc(1, sizeof(*g));

	CHECK(g != NULL);
	g->buf = malloc(GOT_BYTES);
	CHECK(g->buf != NULL);
	return g;
}

static void got_free(struct got *g)
{
	free(g->buf);
	free(g);
}

static void got_add(struct got *g, const void *p, size_t n)
{
	CHECK(g->n < GOT_MAX && g->len + n <= GOT_BYTES);
	memcpy(g->buf + g->len, p, n);
	g->len += n;
	g->lens[g->n++] = (uint32_t)n;
}

static void check_same(const struct got *a, const struct got *b)
{
	CHECK_EQ(a->n, b->n);
	for (unsigned int i = 0; i < a->n; i++)
		CHECK_MSG(a->lens[i] == b->lens[i], "datagram %u: %u vs %u",
			  i, a->lens[i], b->lens[i]);
	CHECK_EQ(a->len, b->len);
	CHECK_MEM_EQ(a->buf, b->buf, a->len);
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/*
 * How long a test waits for what the kernel does on its own time (a
 * datagram, an ICMP error): a bound for a stuck test, not a timing to
 * meet, so it is generous for a loaded machine with sanitizers.  Waits
 * end as soon as the outcome is there.
 */
#define WAIT_MS 10000

/* Receive on @rx until @want datagrams came (WAIT_MS at most). */
static void drain(struct voff_udp *rx, struct got *g, unsigned int want)
{
	static struct voff_pkt views[256];
	uint64_t end = now_ms() + WAIT_MS;

	while (g->n < want && now_ms() < end) {
		struct pollfd p = { .fd = voff_udp_fd(rx), .events = POLLIN };
		struct voff_batch b;
		int n;

		poll(&p, 1, 20);
		voff_batch_init(&b);
		n = voff_udp_recv(rx, &b, NULL);
		CHECK_GE(n, 0);
		for (unsigned int i = 0; i < b.n; i++) {
			int k = voff_udp_split(b.pkts[i], views, 256);

			CHECK_GT(k, 0);
			CHECK_EQ(k, b.pkts[i]->gso_segs);
			for (int j = 0; j < k; j++)
				got_add(g, voff_pkt_data(&views[j]),
					views[j].len);
			g->msgs++;
		}
		voff_batch_free(&b);
	}
	CHECK_EQ(g->n, want);
}

/*
 * Receive on @rx into @b until it holds @want packets (WAIT_MS at most),
 * @from as for voff_udp_recv(); add the calls made to *@calls if given.
 */
static void recv_until(struct voff_udp *rx, struct voff_batch *b,
		       union voff_udp_addr *from, unsigned int want,
		       unsigned int *calls)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (b->n < want && now_ms() < end) {
		struct pollfd p = { .fd = voff_udp_fd(rx), .events = POLLIN };

		poll(&p, 1, 20);
		CHECK_GE(voff_udp_recv(rx, b, from), 0);
		if (calls)
			(*calls)++;
	}
	CHECK_EQ(b->n, want);
}

/* ---- sockets ------------------------------------------------------------- */

static void loopback(union voff_udp_addr *a, int family)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		a->in4.sin_family = AF_INET;
		a->in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_addr = in6addr_loopback;
	}
}

/* A receiver on the loopback address and a sender connected to it. */
static void pair(int family, unsigned int txf, unsigned int rxf,
		 struct voff_udp **tx, struct voff_udp **rx)
{
	struct voff_udp_cfg c = { .flags = rxf, .rcvbuf = 4 << 20 };
	struct voff_udp_info info;

	loopback(&c.local, family);
	CHECK_OK(voff_udp_open(rx, &c));
	voff_udp_info(*rx, &info);
	memset(&c, 0, sizeof(c));
	c.flags = txf;
	c.remote = info.local;
	CHECK_OK(voff_udp_open(tx, &c));
}

/* The naive twin: a plain socket pair, one sendto() per datagram. */
struct twin {
	int tx, rx;
	union voff_udp_addr to;
};

static void twin_open(struct twin *t, int family)
{
	socklen_t len = sizeof(t->to);
	int big = 4 << 20;

	loopback(&t->to, family);
	t->rx = socket(family, SOCK_DGRAM, 0);
	t->tx = socket(family, SOCK_DGRAM, 0);
	CHECK(t->rx >= 0 && t->tx >= 0);
	setsockopt(t->rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	CHECK_OK(bind(t->rx, &t->to.sa, voff_udp_addr_len(&t->to)));
	CHECK_OK(getsockname(t->rx, &t->to.sa, &len));
}

static void twin_close(struct twin *t)
{
	close(t->tx);
	close(t->rx);
}

/* Send @len bytes of @p cut every @seg bytes, one sendto() each. */
static void twin_send(struct twin *t, const uint8_t *p, size_t len,
		      size_t seg, struct got *g)
{
	unsigned int n = 0;
	size_t off = 0;

	if (!seg || seg > len)
		seg = len;
	do {
		size_t k = len - off < seg ? len - off : seg;

		CHECK_EQ(sendto(t->tx, p + off, k, 0, &t->to.sa,
				voff_udp_addr_len(&t->to)),
			 (ssize_t)k);
		off += k;
		n++;
	} while (off < len);
	while (n--) {
		static uint8_t buf[65536];
		ssize_t r = recv(t->rx, buf, sizeof(buf), 0);

		CHECK_GE(r, 0);
		got_add(g, buf, (size_t)r);
	}
}

static struct voff_udp_stats stats(const struct voff_udp *u)
{
	struct voff_udp_stats st;

	voff_udp_stats(u, &st);
	return st;
}

static uint8_t *pattern(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	CHECK(p != NULL);
	check_fill_random(p, n);
	return p;
}

/* Close a pair and free what a test received and sent (any may be NULL). */
static void done(struct voff_udp *tx, struct voff_udp *rx, struct got *g,
		 void *p)
{
	voff_udp_close(tx);
	voff_udp_close(rx);
	if (g)
		got_free(g);
	free(p);
}

/* ---- addresses and open -------------------------------------------------- */

static void t_addr(void)
{
	union voff_udp_addr a;
	char s[64];

	CHECK_OK(voff_udp_addr_parse(&a, "192.0.2.1", 4789));
	CHECK_STR_EQ(voff_udp_addr_format(&a, s, sizeof(s)), "192.0.2.1:4789");
	CHECK_OK(voff_udp_addr_parse(&a, "192.0.2.1:53", 4789));
	CHECK_STR_EQ(voff_udp_addr_format(&a, s, sizeof(s)), "192.0.2.1:53");
	CHECK_EQ(voff_udp_addr_len(&a), sizeof(struct sockaddr_in));
	CHECK_OK(voff_udp_addr_parse(&a, "2001:db8::1", 7));
	CHECK_STR_EQ(voff_udp_addr_format(&a, s, sizeof(s)),
		     "[2001:db8::1]:7");
	CHECK_OK(voff_udp_addr_parse(&a, "[2001:db8::1]:65535", 7));
	CHECK_STR_EQ(voff_udp_addr_format(&a, s, sizeof(s)),
		     "[2001:db8::1]:65535");
	CHECK_OK(voff_udp_addr_parse(&a, "[::]", 9));
	CHECK_EQ(voff_udp_addr_len(&a), sizeof(struct sockaddr_in6));
	memset(&a, 0, sizeof(a));
	CHECK_STR_EQ(voff_udp_addr_format(&a, s, sizeof(s)), "-");
	CHECK_EQ(voff_udp_addr_len(&a), 0);
	{
		union voff_udp_addr b, c;

		memset(&b, 0, sizeof(b));
		CHECK(voff_udp_addr_eq(&a, &b));	/* both AF_UNSPEC */
		CHECK_OK(voff_udp_addr_parse(&a, "192.0.2.1", 4789));
		CHECK_OK(voff_udp_addr_parse(&b, "192.0.2.1:4789", 0));
		CHECK(voff_udp_addr_eq(&a, &b));
		CHECK_OK(voff_udp_addr_parse(&b, "192.0.2.1:4790", 0));
		CHECK(!voff_udp_addr_eq(&a, &b));
		CHECK_OK(voff_udp_addr_parse(&b, "192.0.2.2:4789", 0));
		CHECK(!voff_udp_addr_eq(&a, &b));
		CHECK_OK(voff_udp_addr_parse(&b, "[::ffff:192.0.2.1]:4789",
					     0));
		CHECK(!voff_udp_addr_eq(&a, &b));	/* another family */
		CHECK_OK(voff_udp_addr_parse(&b, "[2001:db8::1]:4789", 0));
		CHECK_OK(voff_udp_addr_parse(&c, "2001:db8::1", 4789));
		c.in6.sin6_flowinfo = htonl(5);
		c.in6.sin6_scope_id = 2;
		CHECK(voff_udp_addr_eq(&b, &c));	/* label, scope left out */
		CHECK_OK(voff_udp_addr_parse(&c, "[2001:db8::2]:4789", 0));
		CHECK(!voff_udp_addr_eq(&b, &c));
		CHECK_OK(voff_udp_addr_parse(&c, "[2001:db8::1]:4788", 0));
		CHECK(!voff_udp_addr_eq(&b, &c));
		memset(&a, 0, sizeof(a));
	}
	static const char *const bad[] = {
		"", "host", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:x",
		"[2001:db8::1", "[2001:db8::1]x", "[1.2.3]:5", "1.2.3.4:-1",
		"[fe80::1%eth0]:1", ":5", "[]:5",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a.in4.sin_port = 77;
		CHECK_MSG(voff_udp_addr_parse(&a, bad[i], 1) == -EINVAL,
			  "accepted '%s'", bad[i]);
		CHECK_EQ(a.in4.sin_port, 77); /* untouched */
	}
}

static void t_open_info(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		int family = v6 ? AF_INET6 : AF_INET;
		struct voff_udp *tx, *rx;
		struct voff_udp_info a, b;
		struct voff_udp_stats st;

		pair(family, 0, 0, &tx, &rx);
		voff_udp_info(rx, &a);
		voff_udp_info(tx, &b);
		CHECK(a.gso && a.gro && b.gso && b.gro);
		CHECK_EQ(a.local.sa.sa_family, family);
		CHECK_NE(a.local.in4.sin_port, 0);
		CHECK_EQ(a.remote.sa.sa_family, AF_UNSPEC);
		CHECK_EQ(b.remote.in4.sin_port, a.local.in4.sin_port);
		CHECK_NE(b.local.in4.sin_port, 0);
		CHECK_EQ(a.max_segs, 64);
		CHECK_EQ(a.max_train, v6 ? 65473 : 65493);
		CHECK_EQ(a.rx_batch, VOFF_UDP_RX_BATCH);
		CHECK_EQ(a.rx_bufs, VOFF_UDP_RX_BUFS);
		st = stats(rx);
		CHECK_EQ(st.fallback_gso_probe + st.fallback_gro_probe, 0);
		voff_udp_close(tx);
		voff_udp_close(rx);
	}
	voff_udp_close(NULL);
}

static void t_open_bad(void)
{
	struct voff_udp_cfg c = { 0 };
	struct voff_udp *u = (struct voff_udp *)&c;

	CHECK_EQ(voff_udp_open(&u, &c), -EINVAL); /* no family */
	CHECK(u == (struct voff_udp *)&c);
	loopback(&c.local, AF_INET);
	loopback(&c.remote, AF_INET6);
	CHECK_EQ(voff_udp_open(&u, &c), -EINVAL); /* two families */
	memset(&c.remote, 0, sizeof(c.remote));
	c.rx_batch = VOFF_BATCH_MAX + 1;
	CHECK_EQ(voff_udp_open(&u, &c), -EINVAL);
	c.rx_batch = 0;
	c.rx_bufs = 65537;
	CHECK_EQ(voff_udp_open(&u, &c), -EINVAL);
	c.rx_bufs = 0;
	c.netns = "voff-no-such-namespace";
	CHECK_EQ(voff_udp_open(&u, &c), -ENOENT);
	c.netns = NULL;
	CHECK_OK(inet_pton(AF_INET, "192.0.2.77", &c.local.in4.sin_addr) - 1);
	CHECK_EQ(voff_udp_open(&u, &c), -EADDRNOTAVAIL);
	CHECK(u == (struct voff_udp *)&c);
	CHECK_EQ(voff_udp_open(NULL, &c), -EINVAL);
	CHECK_EQ(voff_udp_open(&u, NULL), -EINVAL);
}

/* ---- trains -------------------------------------------------------------- */

static void t_train(void)
{
	struct voff_udp *tx, *rx;
	uint8_t *p = pattern(10005);
	struct iovec v = { p, 10005 };
	struct got *g = got_new();
	struct voff_udp_stats st;

	pair(AF_INET, 0, 0, &tx, &rx);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 1000, NULL), 11);
	drain(rx, g, 11);
	for (unsigned int i = 0; i < 11; i++)
		CHECK_EQ(g->lens[i], i < 10 ? 1000 : 5);
	CHECK_MEM_EQ(g->buf, p, 10005);
	st = stats(tx);
	CHECK_EQ(st.tx_calls, 1);
	CHECK_EQ(st.tx_msgs, 1);
	CHECK_EQ(st.tx_trains, 1);
	CHECK_EQ(st.tx_datagrams, 11);
	CHECK_EQ(st.tx_bytes, 10005);
	/* The loopback keeps a train whole for a UDP_GRO socket. */
	st = stats(rx);
	CHECK_EQ(st.rx_msgs, 1);
	CHECK_EQ(st.rx_trains, 1);
	CHECK_EQ(st.rx_datagrams, 11);
	CHECK_EQ(st.rx_bytes, 10005);
	CHECK_EQ(g->msgs, 1);
	done(tx, rx, g, p);
}

/* Longer than 64 datagrams or max_train bytes: several messages, one call. */
static void t_train_limits(void)
{
	static const struct {
		size_t len, seg;
		unsigned int dgrams, msgs;
	} c[] = {
		{ 200 * 1000, 1000, 200, 4 },	/* 64 + 64 + 64 + 8 */
		{ 64 * 100, 100, 64, 1 },
		{ 65 * 100, 100, 65, 2 },
		{ 64 * 1400, 1400, 64, 2 },	/* 46 fit 65493 bytes */
		{ 93 * 1400, 1400, 93, 3 },	/* 46 + 46 + 1 */
		{ 65493, 65493, 1, 1 },
		{ 3000, 0, 1, 1 },		/* seg 0: one datagram */
		{ 0, 100, 1, 1 },		/* no bytes: one empty */
	};

	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		struct voff_udp *tx, *rx;
		uint8_t *p = pattern(c[k].len);
		struct iovec v = { p, c[k].len };
		struct got *g = got_new();
		struct voff_udp_stats st;

		pair(AF_INET, 0, 0, &tx, &rx);
		CHECK_EQ(voff_udp_send(tx, &v, 1, c[k].seg, NULL),
			 c[k].dgrams);
		drain(rx, g, c[k].dgrams);
		CHECK_EQ(g->len, c[k].len);
		CHECK_MEM_EQ(g->buf, p, c[k].len);
		st = stats(tx);
		CHECK_EQ(st.tx_calls, 1);
		CHECK_EQ(st.tx_msgs, c[k].msgs);
		CHECK_EQ(st.tx_datagrams, c[k].dgrams);
		done(tx, rx, g, p);
	}
}

/*
 * A train of max_train bytes reaches the receiver whole; one byte more
 * would make the loopback device cut it (gso_max_size, docs/udp.md §2.1),
 * so voff sends that as two trains.
 */
static void t_max_train_whole(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		size_t max = v6 ? 65473 : 65493;
		struct voff_udp *tx, *rx;
		uint8_t *p = pattern(max + 1);
		struct iovec v = { p, max };
		unsigned int n = (unsigned int)((max + 1099) / 1100);
		struct got *g = got_new();

		pair(v6 ? AF_INET6 : AF_INET, 0, 0, &tx, &rx);
		CHECK_EQ(voff_udp_send(tx, &v, 1, 1100, NULL), n);
		drain(rx, g, n);
		CHECK_EQ(stats(rx).rx_msgs, 1);
		v.iov_len = max + 1;
		CHECK_EQ(voff_udp_send(tx, &v, 1, 1100, NULL), n);
		drain(rx, g, 2 * n);
		CHECK_EQ(stats(tx).tx_msgs, 3);
		CHECK_EQ(stats(rx).rx_msgs, 3);
		CHECK_MEM_EQ(g->buf + max, p, max + 1);
		done(tx, rx, g, p);
	}
}

/* Random cuts of @len bytes into @n iovecs, some of them empty. */
static unsigned int random_iov(struct iovec *iov, unsigned int cap,
			       uint8_t *p, size_t len)
{
	unsigned int n = 0;
	size_t off = 0;

	while (off < len && n + 1 < cap) {
		size_t k = check_rnd(4) == 0 ? 0 : 1 + check_rnd(3000);

		if (k > len - off)
			k = len - off;
		iov[n].iov_base = p + off;
		iov[n++].iov_len = k;
		off += k;
	}
	iov[n].iov_base = p + off;
	iov[n++].iov_len = len - off;
	return n;
}

/*
 * Random trains, through voff and through the twin: the receivers see the
 * same datagrams, byte for byte, in the same order.
 */
static void t_random_vs_twin(void)
{
	for (int round = 0; round < 60; round++) {
		int family = check_chance(50) ? AF_INET6 : AF_INET;
		unsigned int txf = check_chance(20) ? VOFF_UDP_F_NO_GSO : 0;
		unsigned int rxf = check_chance(20) ? VOFF_UDP_F_NO_GRO : 0;
		size_t seg = check_chance(10) ? 0 : 1 + check_rnd(3000);
		size_t len = check_rnd(seg ? (unsigned int)seg * 100 : 60000);
		struct voff_udp *tx, *rx;
		struct got *a = got_new(), *b = got_new();
		uint8_t *p;
		static struct iovec iov[256];
		unsigned int n, want;
		struct twin t;

		if (len > 120000)
			len = 120000;
		p = pattern(len);
		n = random_iov(iov, 256, p, len);
		pair(family, txf, rxf, &tx, &rx);
		twin_open(&t, family);
		twin_send(&t, p, len, seg, b);
		want = b->n;
		CHECK_EQ(voff_udp_send(tx, iov, n, seg, NULL), (int)want);
		drain(rx, a, want);
		check_same(a, b);
		CHECK_EQ(stats(tx).tx_dropped, 0);
		if (txf)
			CHECK_EQ(stats(tx).tx_trains, 0);
		voff_udp_close(tx);
		voff_udp_close(rx);
		twin_close(&t);
		got_free(a);
		got_free(b);
		free(p);
	}
}

/* Views of several ranges: grouping by length, across the views. */
static void t_send_sg(void)
{
	static const uint32_t lens[] = { 1000, 1000, 500, 1000, 1000,
					 1000, 0, 7, 7, 8 };
	enum { N = sizeof(lens) / sizeof(lens[0]) };
	struct iovec iov[N][3];
	struct voff_sg sg[N];
	struct voff_udp *tx, *rx;
	struct got *g = got_new();
	uint8_t *p = pattern(16000);
	struct voff_udp_stats st;
	size_t off = 0;

	for (unsigned int i = 0; i < N; i++) {
		uint32_t a = lens[i] / 3, b = lens[i] / 2;

		/* Not contiguous: a gap of 1 byte between datagrams. */
		voff_sg_init(&sg[i], iov[i], 3);
		CHECK_OK(voff_sg_add(&sg[i], p + off, a));
		CHECK_OK(voff_sg_add(&sg[i], p + off + 8000, b));
		CHECK_OK(voff_sg_add(&sg[i], p + off + a, lens[i] - a - b));
		off += lens[i] + 1;
	}
	pair(AF_INET6, 0, 0, &tx, &rx);
	CHECK_EQ(voff_udp_send_sg(tx, sg, N, NULL), N);
	drain(rx, g, N);
	off = 0;
	for (unsigned int i = 0, at = 0; i < N; i++) {
		uint8_t want[1000];

		CHECK_EQ(voff_sg_copy(&sg[i], want, sizeof(want)), lens[i]);
		CHECK_EQ(g->lens[i], lens[i]);
		CHECK_MEM_EQ(g->buf + at, want, lens[i]);
		at += lens[i];
	}
	/* [1000 1000 500] [1000 1000 1000] [0] [7 7] [8] */
	st = stats(tx);
	CHECK_EQ(st.tx_msgs, 5);
	CHECK_EQ(st.tx_trains, 3);
	CHECK_EQ(st.tx_calls, 1);
	done(tx, rx, g, p);
}

/* Forced off: one datagram per message, still batched per call. */
/*
 * 300 datagrams without trains: NO_GSO on the sender and NO_GRO on the
 * receiver (single datagrams, batched calls), or SINGLE on both (one
 * datagram per system call each way).
 */
static void no_trains(bool single)
{
	unsigned int txf = single ? VOFF_UDP_F_SINGLE : VOFF_UDP_F_NO_GSO;
	unsigned int rxf = single ? VOFF_UDP_F_SINGLE : VOFF_UDP_F_NO_GRO;
	struct voff_udp *tx, *rx;
	uint8_t *p = pattern(300 * 100);
	struct iovec v = { p, 300 * 100 };
	struct got *g = got_new();
	struct voff_udp_info info;
	struct voff_udp_stats st;

	pair(AF_INET, txf, rxf, &tx, &rx);
	voff_udp_info(tx, &info);
	CHECK(!info.gso && info.gro == !single);
	voff_udp_info(rx, &info);
	CHECK(info.gso == !single && !info.gro);
	CHECK_EQ(info.rx_batch, single ? 1 : VOFF_UDP_RX_BATCH);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 100, NULL), 300);
	drain(rx, g, 300);
	CHECK_MEM_EQ(g->buf, p, 300 * 100);
	st = stats(tx);
	CHECK_EQ(st.tx_msgs, 300);
	CHECK_EQ(st.tx_trains, 0);
	CHECK_EQ(st.tx_calls, single ? 300 : 3); /* or 128 + 128 + 44 */
	CHECK_EQ(st.fallback_gso_probe, 0);
	st = stats(rx);
	CHECK_EQ(st.rx_msgs, 300);
	CHECK_EQ(st.rx_trains, 0);
	/* Calls that found nothing count too. */
	CHECK_GE(st.rx_calls, single ? 300 : 300 / VOFF_UDP_RX_BATCH);
	done(tx, rx, g, p);
}

static void t_no_gso_gro(void)
{
	no_trains(false);
}

static void t_single(void)
{
	no_trains(true);
}

/* ---- fallbacks ----------------------------------------------------------- */

static unsigned int eio_calls;

/* sendmmsg() as a kernel before 6.11 answers for a route without tx csum. */
static int old_kernel_sendmmsg(int fd, struct mmsghdr *m, unsigned int n,
			       int flags)
{
	unsigned int i = 0;

	while (i < n && !m[i].msg_hdr.msg_controllen)
		i++;
	if (i == 0) {
		eio_calls++;
		errno = EIO;
		return -1;
	}
	return sendmmsg(fd, m, i, flags);
}

static void t_eio_fallback(void)
{
	struct voff_udp *tx, *rx;
	uint8_t *p = pattern(20000);
	struct iovec v[2] = { { p, 7000 }, { p + 7000, 13000 } };
	struct got *g = got_new();
	struct voff_udp_info info;
	struct voff_udp_stats st;

	pair(AF_INET, 0, 0, &tx, &rx);
	voff__udp_set_sendmmsg(tx, old_kernel_sendmmsg);
	/* A lone datagram first: no train, no EIO. */
	CHECK_EQ(voff_udp_send(tx, v, 1, 0, NULL), 1);
	CHECK_EQ(eio_calls, 0);
	CHECK_EQ(voff_udp_send(tx, v, 2, 1200, NULL), 17);
	CHECK_EQ(eio_calls, 1);
	voff_udp_info(tx, &info);
	CHECK(!info.gso);
	st = stats(tx);
	CHECK_EQ(st.fallback_gso_eio, 1);
	CHECK_EQ(st.tx_trains, 0);
	CHECK_EQ(st.tx_msgs, 18);
	CHECK_EQ(st.tx_dropped, 0);
	/* From now on single datagrams only, without asking the kernel. */
	CHECK_EQ(voff_udp_send(tx, v, 2, 1200, NULL), 17);
	CHECK_EQ(eio_calls, 1);
	CHECK_EQ(stats(tx).fallback_gso_eio, 1);
	drain(rx, g, 35);
	CHECK_MEM_EQ(g->buf, p, 7000);
	CHECK_MEM_EQ(g->buf + 7000, p, 20000);
	CHECK_MEM_EQ(g->buf + 27000, p, 20000);
	for (unsigned int i = 1; i < 35; i++)
		CHECK_EQ(g->lens[i], (i - 1) % 17 == 16 ? 800 : 1200);
	done(tx, rx, g, p);
}

static int seen_flags;

/* A full socket buffer on every message (as with VOFF_UDP_F_NONBLOCK). */
static int full_sendmmsg(int fd, struct mmsghdr *m, unsigned int n,
			 int flags)
{
	(void)fd;
	(void)m;
	(void)n;
	seen_flags |= flags;
	errno = EAGAIN;
	return -1;
}

/* Any other error drops the message's datagrams, and the next goes on. */
static void t_nonblock_drop(void)
{
	struct voff_udp_cfg c = { .flags = VOFF_UDP_F_NONBLOCK };
	struct voff_udp *u;
	uint8_t p[3000] = { 0 };
	struct iovec v[2] = { { p, 3000 }, { p, 500 } };
	struct voff_udp_stats st;

	loopback(&c.remote, AF_INET);
	c.remote.in4.sin_port = htons(9);
	CHECK_OK(voff_udp_open(&u, &c));
	voff__udp_set_sendmmsg(u, full_sendmmsg);
	/* One train [1000 1000 1000 500], refused. */
	CHECK_EQ(voff_udp_send(u, v, 2, 1000, NULL), -EAGAIN);
	CHECK(seen_flags & MSG_DONTWAIT);
	st = stats(u);
	CHECK_EQ(st.tx_dropped, 4);
	CHECK_EQ(st.tx_datagrams, 0);
	CHECK_EQ(st.tx_calls, 1);
	/* 3000 one-byte datagrams in 47 trains: each refused one is skipped. */
	CHECK_EQ(voff_udp_send(u, v, 1, 1, NULL), -EAGAIN);
	CHECK_EQ(voff_udp_send_sg(u, NULL, 0, NULL), 0); /* nothing to do */
	st = stats(u);
	CHECK_EQ(st.tx_dropped, 4 + 3000);
	CHECK_EQ(st.tx_calls, 1 + 47); /* a call per refused train */
	CHECK_EQ(st.fallback_train + st.fallback_gso_eio, 0);
	voff_udp_close(u);
}

/*
 * SO_REUSEADDR only with the flag, and only when both sockets have it.
 * No port is closed and bound again: another test may take it between.
 */
static void t_reuseaddr(void)
{
	struct voff_udp_cfg c = { 0 };
	struct voff_udp *a, *b;
	struct voff_udp_info info;

	for (int reuse = 0; reuse < 2; reuse++) {
		memset(&c, 0, sizeof(c));
		loopback(&c.local, AF_INET6);
		c.flags = reuse ? VOFF_UDP_F_REUSEADDR : 0;
		CHECK_OK(voff_udp_open(&a, &c));
		voff_udp_info(a, &info);
		c.local = info.local;
		c.flags = 0;
		CHECK_EQ(voff_udp_open(&b, &c), -EADDRINUSE);
		c.flags = VOFF_UDP_F_REUSEADDR;
		if (reuse) {
			CHECK_OK(voff_udp_open(&b, &c));
			voff_udp_close(b);
		} else {
			CHECK_EQ(voff_udp_open(&b, &c), -EADDRINUSE);
		}
		voff_udp_close(a);
	}
}

/*
 * SO_NO_CHECK: the kernel refuses every train with EINVAL (udp_send_skb()),
 * the datagrams of each go out singly, the socket keeps trying trains.
 */
static void t_train_refused(void)
{
	struct voff_udp *tx, *rx;
	uint8_t *p = pattern(5000);
	struct iovec v = { p, 5000 };
	struct got *g = got_new();
	struct voff_udp_info info;
	struct voff_udp_stats st;
	int one = 1;

	pair(AF_INET, 0, 0, &tx, &rx);
	CHECK_OK(setsockopt(voff_udp_fd(tx), SOL_SOCKET, SO_NO_CHECK, &one,
			    sizeof(one)));
	CHECK_EQ(voff_udp_send(tx, &v, 1, 1000, NULL), 5);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 2000, NULL), 3);
	drain(rx, g, 8);
	CHECK_MEM_EQ(g->buf, p, 5000);
	CHECK_MEM_EQ(g->buf + 5000, p, 5000);
	CHECK_EQ(g->lens[7], 1000);
	st = stats(tx);
	CHECK_EQ(st.fallback_train, 2);
	CHECK_EQ(st.fallback_gso_eio, 0);
	CHECK_EQ(st.tx_trains, 0);
	CHECK_EQ(st.tx_msgs, 8);
	voff_udp_info(tx, &info);
	CHECK(info.gso);
	done(tx, rx, g, p);
}

/* setsockopt(SOL_UDP, UDP_SEGMENT or UDP_GRO) fails as before Linux 4.18. */
static void deny_udp_options(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_setsockopt, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOL_UDP, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, UDP_SEGMENT, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, UDP_GRO, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOPROTOOPT),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]),
				   .filter = f };
	int s, v = 0;

	CHECK_OK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
	CHECK_OK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog));
	s = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK_EQ(setsockopt(s, SOL_UDP, UDP_SEGMENT, &v, sizeof(v)), -1);
	CHECK_EQ(errno, ENOPROTOOPT);
	CHECK_OK(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)));
	close(s);
}

static void t_probe_fallback(void)
{
	struct voff_udp *tx, *rx;
	uint8_t *p = pattern(20 * 700);
	struct iovec v = { p, 20 * 700 };
	struct got *g = got_new();
	struct voff_udp_info info;
	struct voff_udp_stats st;

	deny_udp_options();
	pair(AF_INET6, 0, 0, &tx, &rx);
	voff_udp_info(tx, &info);
	CHECK(!info.gso && !info.gro);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 700, NULL), 20);
	drain(rx, g, 20);
	CHECK_MEM_EQ(g->buf, p, 20 * 700);
	st = stats(tx);
	CHECK_EQ(st.fallback_gso_probe, 1);
	CHECK_EQ(st.fallback_gro_probe, 1);
	CHECK_EQ(st.tx_msgs, 20);
	CHECK_EQ(st.tx_trains, 0);
	CHECK_EQ(st.tx_calls, 1);
	st = stats(rx);
	CHECK_EQ(st.fallback_gro_probe, 1);
	CHECK_EQ(st.rx_msgs, 20);
	done(tx, rx, g, p);
}

/* ---- frames and super-packets -------------------------------------------- */

#define FBUF 70000

/* The frames voff's GSO makes of @pkt, as the datagrams expected. */
static void expect_segments(const struct voff_pkt *pkt, struct voff_pool *pool,
			    struct got *g)
{
	struct voff_pkt *seg[256];
	int n = voff_gso_segment(pkt, NULL, pool, seg, 256);

	CHECK_GT(n, 0);
	for (int i = 0; i < n; i++)
		got_add(g, voff_pkt_data(seg[i]), seg[i]->len);
	voff_pkt_free_bulk(seg, (unsigned int)n);
}

static void t_send_frames(void)
{
	static uint8_t b1[FBUF], b2[FBUF], b3[FBUF], b4[FBUF];
	struct spec tso = { .raw = true, .mss = 1400, .pay = 45 * 1400 + 123,
			    .flags = TF_ACK, .df = true };
	struct spec uso = { .raw = true, .v6 = true, .udp = true, .mss = 1000,
			    .pay = 5 * 1000 };
	struct spec small = { .raw = true, .pay = 300, .flags = TF_ACK };
	struct built o1, o2, o3;
	struct voff_pkt f[4], full;
	struct voff_pkt *pkts[4] = { &f[0], &f[1], &f[2], &f[3] };
	struct voff_pool *pool;
	struct voff_udp *tx, *rx;
	struct got *want = got_new(), *g = got_new();
	struct voff_udp_stats st;

	CHECK_OK(voff_pool_new(&pool, 300, 4096));
	CHECK(twin_build(&tso, b1, FBUF, -1, 0, 0, tso.pay, &o1));
	twin_pkt(&tso, &f[0], b1, FBUF, &o1);
	CHECK(twin_build(&uso, b2, FBUF, -1, 0, 0, uso.pay, &o2));
	twin_pkt(&uso, &f[1], b2, FBUF, &o2);
	/* A plain frame whose checksum is left to complete, and its twin. */
	CHECK(twin_build(&small, b3, FBUF, -1, 0, 0, small.pay, &o3));
	CHECK_OK(voff_pkt_init_ext(&full, b3, FBUF, 0, (uint32_t)o3.len));
	memcpy(b4, b3, o3.len);
	twin_make_partial(&o3, b4, false);
	CHECK_OK(voff_pkt_init_ext(&f[2], b4, FBUF, 0, (uint32_t)o3.len));
	f[2].csum = VOFF_CSUM_PARTIAL;
	f[2].csum_start = (uint16_t)tf_off(&o3.b, o3.l4);
	f[2].csum_offset = 16;
	/* The same super-packet again: its first segment joins no train. */
	f[3] = f[0];

	expect_segments(&f[0], pool, want);
	expect_segments(&f[1], pool, want);
	got_add(want, b3, o3.len);
	expect_segments(&f[3], pool, want);

	pair(AF_INET, 0, 0, &tx, &rx);
	CHECK_EQ(voff_udp_send_frames(tx, pkts, 4, NULL), (int)want->n);
	drain(rx, g, want->n);
	check_same(g, want);
	CHECK_EQ(f[2].csum, VOFF_CSUM_NONE); /* completed in place */
	CHECK_MEM_EQ(b4, b3, o3.len);
	st = stats(tx);
	CHECK_EQ(st.tx_gso_pkts, 3);
	CHECK_EQ(st.tx_datagrams, 46 + 5 + 1 + 46);
	/*
	 * [46 TSO segments] [5 USO, plain] [46 TSO]: the short last segment
	 * of the first ends its train, the shorter plain frame ends the
	 * second one.
	 */
	CHECK_EQ(st.tx_trains, 3);
	CHECK_EQ(st.tx_msgs, 3);
	CHECK_EQ(st.tx_calls, 1);
	CHECK_EQ(voff_pool_in_use(pool), 0);
	voff_udp_close(tx);
	voff_udp_close(rx);
	voff_pool_free(pool);
	got_free(want);
	got_free(g);
}

/* A super-packet GSO refuses is one dropped datagram; the rest go. */
static void t_send_frames_bad(void)
{
	static uint8_t b1[FBUF], b2[FBUF];
	struct spec tso = { .raw = true, .mss = 1000, .pay = 3000,
			    .flags = TF_ACK };
	struct built o1;
	struct voff_pkt f[2];
	struct voff_pkt *pkts[2] = { &f[0], &f[1] };
	struct voff_udp *tx, *rx;
	struct got *g = got_new();

	CHECK(twin_build(&tso, b1, FBUF, -1, 0, 0, tso.pay, &o1));
	twin_pkt(&tso, &f[0], b1, FBUF, &o1);
	f[0].l3_off = VOFF_OFF_NONE; /* not parsed: GSO cannot cut it */
	memset(b2, 0x5a, 100);
	CHECK_OK(voff_pkt_init_ext(&f[1], b2, FBUF, 0, 100));
	pair(AF_INET, 0, 0, &tx, &rx);
	CHECK_LT(voff_udp_send_frames(tx, pkts, 2, NULL), 0);
	drain(rx, g, 1);
	CHECK_EQ(g->lens[0], 100);
	CHECK_EQ(stats(tx).tx_dropped, 1);
	CHECK_EQ(stats(tx).tx_datagrams, 1);
	CHECK_EQ(voff_udp_send_frames(tx, NULL, 1, NULL), -EINVAL);
	done(tx, rx, g, NULL);
}

/* ---- receive and split --------------------------------------------------- */

static void t_recv_nobufs(void)
{
	struct voff_udp_cfg c = { .flags = VOFF_UDP_F_NO_GRO, .rx_bufs = 2,
				  .rx_batch = 8 };
	struct voff_udp *tx, *rx;
	struct voff_udp_info info;
	struct voff_batch b, b2;
	uint8_t p[500];
	struct iovec v = { p, sizeof(p) };
	union voff_udp_addr from[VOFF_BATCH_MAX];
	unsigned int calls = 0;

	memset(p, 7, sizeof(p));
	loopback(&c.local, AF_INET);
	CHECK_OK(voff_udp_open(&rx, &c));
	voff_udp_info(rx, &info);
	memset(&c, 0, sizeof(c));
	c.remote = info.local;
	CHECK_OK(voff_udp_open(&tx, &c));
	CHECK_EQ(voff_udp_send(tx, &v, 1, 100, NULL), 5);
	voff_batch_init(&b);
	voff_batch_init(&b2);
	/* The loopback delivers at once, but a busy machine may defer it. */
	recv_until(rx, &b, from, 2, &calls);
	CHECK_EQ(voff_udp_recv(rx, &b2, NULL), -ENOBUFS);
	voff_udp_info(tx, &info);
	CHECK_MEM_EQ(&from[0].in4, &info.local.in4, sizeof(from[0].in4));
	CHECK_MEM_EQ(&from[1].in4, &info.local.in4, sizeof(from[1].in4));
	CHECK_EQ(b.pkts[0]->len, 100);
	CHECK_EQ(b.pkts[0]->gso_segs, 1);
	CHECK_EQ(b.pkts[0]->gso_size, 100);
	CHECK_EQ(b.pkts[0]->gso_type, 0);
	CHECK_EQ(b.pkts[0]->l3_off, VOFF_OFF_NONE);
	CHECK_EQ(voff_pkt_headroom(b.pkts[0]), VOFF_PKT_HEADROOM);
	voff_batch_free(&b);
	recv_until(rx, &b2, NULL, 2, &calls);	/* two buffers: two of three */
	voff_batch_free(&b2);
	recv_until(rx, &b2, NULL, 1, &calls);
	voff_batch_free(&b2);
	CHECK_EQ(voff_udp_recv(rx, &b2, NULL), 0); /* all five taken */
	CHECK_EQ(stats(rx).rx_calls, calls + 1); /* -ENOBUFS made no call */
	CHECK_EQ(voff_udp_recv(NULL, &b2, NULL), -EINVAL);
	voff_udp_close(tx);
	voff_udp_close(rx);
}

/* ---- receive, one packet per datagram ----------------------------------- */

/* A sender, a receiver, the pool it receives into, what was sent and got. */
struct each_io {
	struct voff_udp *tx, *rx;
	struct voff_pool *pool;
	union voff_udp_addr src;
	struct got *g, *want;
	uint8_t *p;
};

/* Open @io on @family with a pool of @count packets of 2048 bytes. */
static void each_open(struct each_io *io, int family, unsigned int count)
{
	struct voff_udp_info ti;

	pair(family, 0, 0, &io->tx, &io->rx);
	voff_udp_info(io->tx, &ti);
	io->src = ti.local;
	CHECK_OK(voff_pool_new(&io->pool, count, 2048));
	io->g = got_new();
	io->want = got_new();
	io->p = pattern(65536);
}

/* Check that every datagram came, exact, and every packet is back. */
static void each_close(struct each_io *io)
{
	check_same(io->g, io->want);
	CHECK_EQ(voff_pool_in_use(io->pool), 0);
	voff_pool_free(io->pool);
	got_free(io->want);
	done(io->tx, io->rx, io->g, io->p);
}

/*
 * One voff_udp_recv_each() into a batch with @space free slots (waiting up
 * to 2 s for the socket when nothing is held): every packet checked for
 * the plain shape and the sender's address, its bytes added to io->g,
 * then freed unless @keep takes it.  Return: what the call returned.
 */
static int each_once(struct each_io *io, unsigned int space,
		     struct voff_pkt **keep)
{
	struct voff_udp *rx = io->rx;
	static struct voff_batch b;
	static union voff_udp_addr from[VOFF_BATCH_MAX];
	unsigned int start = VOFF_BATCH_MAX - space;
	int n;

	if (!voff_udp_held(rx)) {
		struct pollfd p = { .fd = voff_udp_fd(rx), .events = POLLIN };

		poll(&p, 1, 2000);
	}
	memset(&b, 0, sizeof(b));
	b.n = start;
	n = voff_udp_recv_each(rx, io->pool, &b, from);
	if (n < 0) {
		CHECK_EQ(b.n, start);
		return n;
	}
	CHECK_EQ(b.n, start + (unsigned int)n);
	for (unsigned int i = start; i < b.n; i++) {
		struct voff_pkt *pkt = b.pkts[i];

		CHECK_EQ(voff_pkt_headroom(pkt), VOFF_PKT_HEADROOM);
		CHECK_EQ(pkt->l3_off, VOFF_OFF_NONE);
		CHECK_EQ(pkt->csum, VOFF_CSUM_NONE);
		CHECK_EQ(pkt->gso_size, 0);
		CHECK_EQ(pkt->gso_type, 0);
		CHECK(voff_udp_addr_eq(&from[i], &io->src));
		got_add(io->g, voff_pkt_data(pkt), pkt->len);
		if (keep)
			keep[i - start] = pkt;
		else
			voff_pkt_free(pkt);
	}
	return n;
}

/*
 * Send @segs datagrams of @seg bytes, the last of @last, as one train
 * (one datagram for @segs 1), and note them in @want.
 */
static void each_send(struct each_io *io, unsigned int segs, uint32_t seg,
		      uint32_t last)
{
	size_t len = (size_t)(segs - 1) * seg + last;
	struct iovec v = { io->p, len };

	check_fill_random(io->p, len);
	CHECK_EQ(voff_udp_send(io->tx, &v, 1, segs > 1 ? seg : 0, NULL),
		 (int)segs);
	for (unsigned int i = 0; i < segs; i++)
		got_add(io->want, io->p + (size_t)i * seg,
			i + 1 < segs ? seg : last);
}

/* each_send(), then each_once() into @space slots, which must give @n. */
static void each_trip(struct each_io *io, unsigned int segs, uint32_t seg,
		      uint32_t last, unsigned int space, int n)
{
	each_send(io, segs, seg, last);
	CHECK_EQ(each_once(io, space, NULL), n);
}

/*
 * Trains scattered one datagram per packet, on both families: the first
 * train sets the datagram size (copied into place once), trains of that
 * size with a short last datagram land without a copy, a size change
 * copies once more and sets the new size, a short train of small ones is
 * copied and keeps it, lone datagrams (shorter: no copy; longer: one;
 * longer than a packet: dropped), an empty one, a batch with less room
 * than the train (the rest held, handed out by the next calls without
 * reading the socket), in both ways of landing.  Every byte
 * compared with what was sent, every counter exact.
 */
static void t_recv_each(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct each_io io;
		struct voff_udp_stats st;
		struct voff_batch none = { 0 };
		struct iovec v;

		each_open(&io, v6 ? AF_INET6 : AF_INET, 100);
		CHECK_EQ(voff_udp_held(io.rx), 0);
		/* First train: the size is learnt, the train copied. */
		each_trip(&io, 11, 1000, 300, 64, 11);
		st = stats(io.rx);
		CHECK_EQ(st.rx_resized, 1);
		CHECK_EQ(st.rx_trains, 1);
		CHECK_EQ(st.rx_datagrams, 11);
		/* The same size, a short or a full last: no copy. */
		each_trip(&io, 5, 1000, 1, 64, 5);
		each_trip(&io, 64, 1000, 1000, 64, 64);
		CHECK_EQ(stats(io.rx).rx_resized, 1);
		/* A lone datagram no longer than the size: no copy. */
		each_trip(&io, 1, 0, 999, 64, 1);
		each_trip(&io, 1, 0, 0, 64, 1);
		CHECK_EQ(stats(io.rx).rx_resized, 1);
		/* Another size: copied into place once, then learnt. */
		each_trip(&io, 7, 700, 50, 64, 7);
		each_trip(&io, 9, 700, 700, 64, 9);
		CHECK_EQ(stats(io.rx).rx_resized, 2);
		/* Less room than datagrams: the rest held, socket not read. */
		each_trip(&io, 20, 700, 10, 8, 8);
		CHECK_EQ(voff_udp_held(io.rx), 12);
		st = stats(io.rx);
		CHECK_EQ(each_once(&io, 8, NULL), 8);
		CHECK_EQ(each_once(&io, 8, NULL), 4);
		CHECK_EQ(voff_udp_held(io.rx), 0);
		CHECK_EQ(stats(io.rx).rx_calls, st.rx_calls);
		CHECK_EQ(stats(io.rx).rx_held, 12);
		CHECK_EQ(stats(io.rx).rx_resized, 2);
		/* A size change with less room: held from the copy. */
		each_trip(&io, 10, 600, 600, 4, 4);
		CHECK_EQ(voff_udp_held(io.rx), 6);
		CHECK_EQ(each_once(&io, 64, NULL), 6);
		CHECK_EQ(stats(io.rx).rx_held, 18);
		CHECK_EQ(stats(io.rx).rx_resized, 3);
		/* A longer lone datagram is copied and raises the size. */
		each_trip(&io, 1, 0, 1500, 64, 1);
		CHECK_EQ(stats(io.rx).rx_resized, 4);
		each_trip(&io, 1, 0, 1400, 64, 1);
		CHECK_EQ(stats(io.rx).rx_resized, 4);
		/* A short train of small datagrams: copied, size kept. */
		each_trip(&io, 3, 100, 100, 64, 3);
		CHECK_EQ(stats(io.rx).rx_resized, 5);
		each_trip(&io, 2, 1500, 1500, 64, 2);
		CHECK_EQ(stats(io.rx).rx_resized, 5);
		/* Longer than a packet, alone or in a train: dropped. */
		v.iov_base = io.p;
		v.iov_len = 5000;
		CHECK_EQ(voff_udp_send(io.tx, &v, 1, 0, NULL), 1);
		CHECK_EQ(each_once(&io, 64, NULL), 0);
		CHECK_EQ(stats(io.rx).rx_dropped, 1);
		v.iov_len = 3 * 2500;
		CHECK_EQ(voff_udp_send(io.tx, &v, 1, 2500, NULL), 3);
		CHECK_EQ(each_once(&io, 64, NULL), 0);
		CHECK_EQ(stats(io.rx).rx_dropped, 2);
		/* Nothing more: 0. */
		CHECK_EQ(voff_udp_recv_each(io.rx, io.pool, &none, NULL), 0);
		st = stats(io.rx);
		CHECK_EQ(st.rx_msgs, 13);	/* the dropped ones not */
		CHECK_EQ(st.rx_datagrams,
			 11 + 5 + 64 + 1 + 1 + 7 + 9 + 20 + 10 + 1 + 1 + 3 + 2);
		CHECK_EQ(st.rx_errors, 0);
		CHECK_EQ(voff_udp_recv_each(NULL, io.pool, &none, NULL),
			 -EINVAL);
		CHECK_EQ(voff_udp_recv_each(io.rx, NULL, &none, NULL),
			 -EINVAL);
		CHECK_EQ(voff_udp_recv_each(io.rx, io.pool, NULL, NULL),
			 -EINVAL);
		each_close(&io);
	}
}

/*
 * The pool runs dry: an empty pool reads nothing (-ENOBUFS, the socket
 * untouched); one running dry in the middle of a train leaves the rest
 * held, and -ENOBUFS again until packets come back; the next calls resume
 * where it stopped, nothing lost, every byte in order.
 */
static void t_recv_each_nobufs(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct each_io io;
		struct voff_pkt *out[40], *mine[5];
		unsigned int calls;

		each_open(&io, v6 ? AF_INET6 : AF_INET, 40);
		/* Learn the size 1000 first. */
		each_trip(&io, 2, 1000, 1000, 64, 2);
		/* Every packet taken: nothing is read. */
		CHECK_OK(voff_pool_get_bulk(io.pool, out, 40));
		each_send(&io, 20, 1000, 123);
		calls = (unsigned int)stats(io.rx).rx_calls;
		CHECK_EQ(each_once(&io, 64, NULL), -ENOBUFS);
		CHECK_EQ(stats(io.rx).rx_calls, calls);
		/* Five free: five datagrams, fifteen held. */
		voff_pool_put_bulk(io.pool, out + 35, 5);
		CHECK_EQ(each_once(&io, 64, mine), 5);
		CHECK_EQ(voff_udp_held(io.rx), 15);
		CHECK_EQ(each_once(&io, 64, NULL), -ENOBUFS);
		CHECK_EQ(voff_udp_held(io.rx), 15);
		voff_pool_put_bulk(io.pool, mine, 5);
		CHECK_EQ(each_once(&io, 64, NULL), 5);
		voff_pool_put_bulk(io.pool, out, 35);
		CHECK_EQ(each_once(&io, 64, NULL), 10);
		CHECK_EQ(voff_udp_held(io.rx), 0);
		CHECK_EQ(stats(io.rx).rx_held, 15);
		CHECK_EQ(stats(io.rx).rx_calls, calls + 1);
		/* Then the socket again, at the learnt size. */
		each_trip(&io, 3, 1000, 1000, 64, 3);
		CHECK_EQ(stats(io.rx).rx_resized, 1);
		each_close(&io);
	}
}

static void t_split(void)
{
	uint8_t buf[5000];
	struct voff_pkt t, v[8];

	for (unsigned int i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	CHECK_OK(voff_pkt_init_ext(&t, buf, sizeof(buf), 100, 3500));
	t.gso_size = 1000;
	t.gso_segs = 4;
	t.port = 3;
	t.hash = 0xabc;
	t.rx_ns = 99;
	CHECK_EQ(voff_udp_split(&t, v, 8), 4);
	for (int i = 0; i < 4; i++) {
		CHECK(voff_pkt_data(&v[i]) == buf + 100 + i * 1000);
		CHECK_EQ(v[i].len, i < 3 ? 1000 : 500);
		CHECK_EQ(voff_pkt_headroom(&v[i]), 0);
		CHECK_EQ(voff_pkt_tailroom(&v[i]), 0);
		CHECK_EQ(v[i].source, VOFF_PKT_SRC_EXTERNAL);
		CHECK_EQ(v[i].l3_off, VOFF_OFF_NONE);
		CHECK_EQ(v[i].gso_size, 0);
		CHECK_EQ(v[i].port, 3);
		CHECK_EQ(v[i].hash, 0xabc);
		CHECK_EQ(v[i].rx_ns, 99);
	}
	CHECK_EQ(voff_udp_split(&t, v, 3), -ENOSPC);
	t.gso_segs = 3; /* 3500 bytes are not 3 datagrams of 1000 */
	CHECK_EQ(voff_udp_split(&t, v, 8), -EINVAL);
	t.gso_segs = 5; /* nor 5 */
	CHECK_EQ(voff_udp_split(&t, v, 8), -EINVAL);
	t.len = 4000;
	t.gso_segs = 4; /* a full last datagram */
	CHECK_EQ(voff_udp_split(&t, v, 8), 4);
	CHECK_EQ(v[3].len, 1000);
	t.gso_segs = 1; /* one datagram: gso_size 0 or its length */
	t.gso_size = 0;
	CHECK_EQ(voff_udp_split(&t, v, 1), 1);
	CHECK_EQ(v[0].len, 4000);
	t.gso_size = 100;
	CHECK_EQ(voff_udp_split(&t, v, 1), -EINVAL);
	t.len = 0;
	t.gso_size = 0;
	CHECK_EQ(voff_udp_split(&t, v, 1), 1);
	CHECK_EQ(v[0].len, 0);
	CHECK_EQ(voff_udp_split(NULL, v, 1), -EINVAL);
}

static void t_unconnected(void)
{
	struct voff_udp_cfg c = { 0 };
	struct voff_udp *tx, *rx;
	struct voff_udp_info ti, ri;
	union voff_udp_addr from[VOFF_BATCH_MAX], v6;
	uint8_t p[3000];
	struct iovec v = { p, sizeof(p) };
	struct voff_batch b;

	memset(p, 1, sizeof(p));
	loopback(&c.local, AF_INET);
	CHECK_OK(voff_udp_open(&rx, &c));
	CHECK_OK(voff_udp_open(&tx, &c));
	voff_udp_info(rx, &ri);
	voff_udp_info(tx, &ti);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 1000, NULL), -EDESTADDRREQ);
	loopback(&v6, AF_INET6);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 1000, &v6), -EINVAL);
	CHECK_EQ(stats(tx).tx_calls, 0);
	CHECK_EQ(voff_udp_send(tx, &v, 1, 1000, &ri.local), 3);
	voff_batch_init(&b);
	recv_until(rx, &b, from, 1, NULL);
	CHECK_EQ(b.pkts[0]->gso_segs, 3);
	CHECK_EQ(from[0].in4.sin_port, ti.local.in4.sin_port);
	voff_batch_free(&b);
	voff_udp_close(tx);
	voff_udp_close(rx);
}

/*
 * A port no datagram of ours can reach: a plain socket bound to it (so no
 * other socket can bind it meanwhile) and connected to itself (so it takes
 * only datagrams from its own port, which no other socket can send from).
 * Datagrams to @to get an ICMP port unreachable back.  Returns the socket.
 */
static int unreachable_port(int family, union voff_udp_addr *to)
{
	socklen_t len = sizeof(*to);
	int fd = socket(family, SOCK_DGRAM, 0);

	CHECK_GE(fd, 0);
	loopback(to, family);
	CHECK_OK(bind(fd, &to->sa, voff_udp_addr_len(to)));
	CHECK_OK(getsockname(fd, &to->sa, &len));
	CHECK_OK(connect(fd, &to->sa, voff_udp_addr_len(to)));
	return fd;
}

/* An ICMP port unreachable is counted, not returned. */
static void t_icmp_error(void)
{
	for (int v6 = 0; v6 < 2; v6++) {
		struct voff_udp_cfg c = { 0 };
		struct voff_udp *u;
		struct voff_batch b;
		uint8_t p[10] = { 0 };
		struct iovec v = { p, sizeof(p) };
		struct pollfd pf = { .events = 0 };
		int hold = unreachable_port(v6 ? AF_INET6 : AF_INET, &c.remote);

		CHECK_OK(voff_udp_open(&u, &c));
		CHECK_EQ(voff_udp_send(u, &v, 1, 0, NULL), 1);
		/* The error is there when poll() says POLLERR. */
		pf.fd = voff_udp_fd(u);
		CHECK_EQ(poll(&pf, 1, WAIT_MS), 1);
		CHECK_EQ(pf.revents, POLLERR);
		voff_batch_init(&b);
		CHECK_EQ(voff_udp_recv(u, &b, NULL), 0);
		CHECK_EQ(b.n, 0);
		CHECK_EQ(stats(u).rx_errors, 1);
		voff_udp_close(u);
		close(hold);
	}
}

/* ---- with root: a namespace, a veth without transmit checksum ------------ */

/* Kernels before 6.11 refused a train with EIO on such a device. */
static bool kernel_refuses_eio(void)
{
	struct utsname u;
	unsigned int a = 0, b = 0;

	uname(&u);
	sscanf(u.release, "%u.%u", &a, &b);
	return a < 6 || (a == 6 && b < 11);
}

/* Messages of 2 or more datagrams @n datagrams of @seg bytes make. */
static unsigned int trains_of(unsigned int n, size_t seg, size_t max_train)
{
	unsigned int per = (unsigned int)(max_train / seg), t = 0;

	if (per > VOFF_UDP_MAX_SEGS)
		per = VOFF_UDP_MAX_SEGS;
	if (per < 2)
		return 0;
	for (; n >= 2; n -= n < per ? n : per)
		t++;
	return t;
}

/*
 * Trains over a veth whose sender has no transmit checksum offload: before
 * Linux 6.11 the first one fails with EIO and the socket falls back to
 * single datagrams; since then the kernel checksums the segments itself
 * and no fallback happens.  Either way the receiver gets every datagram,
 * each of its size and bytes.  Datagrams above the MTU go out singly (and
 * fragmented) after the kernel refuses their train.
 */
static void t_netns_veth_tx_off(void)
{
	const char *ip[2][2] = { { "10.66.0.1", "10.66.0.2" },
				 { "fd66::1", "fd66::2" } };

	ns_playground();
	sh("ip link add va netns %s type veth peer vb netns %s", ns_a, ns_b);
	sh("ip -n %s addr add 10.66.0.1/24 dev va && "
	   "ip -n %s addr add fd66::1/64 dev va nodad",
	   ns_a, ns_a);
	sh("ip -n %s addr add 10.66.0.2/24 dev vb && "
	   "ip -n %s addr add fd66::2/64 dev vb nodad",
	   ns_b, ns_b);
	sh("ip -n %s link set va up && ip -n %s link set vb up", ns_a, ns_b);
	sh("ip netns exec %s ethtool -K va tx off >/dev/null", ns_a);
	for (int v6 = 0; v6 < 2; v6++) {
		struct voff_udp_cfg c = { .netns = ns_b, .rcvbuf = 4 << 20 };
		struct voff_udp *tx, *rx;
		struct voff_udp_info info;
		struct voff_udp_stats st;
		unsigned int total = 0, refused = 0;
		struct got *a = got_new();
		static uint8_t p[64000];

		check_fill_random(p, sizeof(p));
		CHECK_OK(voff_udp_addr_parse(&c.local, ip[v6][1], 7777));
		CHECK_OK(voff_udp_open(&rx, &c));
		memset(&c, 0, sizeof(c));
		c.netns = ns_a;
		CHECK_OK(voff_udp_addr_parse(&c.local, ip[v6][0], 0));
		CHECK_OK(voff_udp_addr_parse(&c.remote, ip[v6][1], 7777));
		CHECK_OK(voff_udp_open(&tx, &c));
		voff_udp_info(tx, &info);
		CHECK(info.gso);
		/* The datagrams: random trains, some above the MTU. */
		for (int round = 0; round < 30; round++) {
			size_t seg = 1 + check_rnd(check_chance(20) ? 4000
								     : 1400);
			size_t len = check_rnd(sizeof(p));
			struct iovec v;
			unsigned int n;

			if (len > 40 * seg)
				len = 40 * seg;
			v = (struct iovec){ p, len };
			n = len ? (unsigned int)((len + seg - 1) / seg) : 1;
			if (seg > (v6 ? 1452u : 1472u))
				refused += trains_of(n, seg, info.max_train);
			CHECK_EQ(voff_udp_send(tx, &v, 1, seg, NULL), (int)n);
			drain(rx, a, total + n);
			for (unsigned int i = total; i + 1 < total + n; i++)
				CHECK_EQ(a->lens[i], seg);
			CHECK_MEM_EQ(a->buf + a->len - len, p, len);
			total += n;
		}
		st = stats(tx);
		CHECK_EQ(st.fallback_gso_eio, kernel_refuses_eio() ? 1 : 0);
		CHECK_EQ(st.tx_datagrams, total);
		/* Trains of datagrams above the MTU: EMSGSIZE, sent singly. */
		CHECK_EQ(st.fallback_train, refused);
		CHECK_EQ(st.tx_dropped, 0);
		if (!kernel_refuses_eio())
			CHECK_GT(st.tx_trains, 0);
		done(tx, rx, a, NULL);
	}
}

CHECK_MAIN(CHECK_TEST(t_addr), CHECK_TEST(t_open_info),
	   CHECK_TEST(t_open_bad), CHECK_TEST(t_train),
	   CHECK_TEST(t_train_limits), CHECK_TEST(t_max_train_whole),
	   CHECK_TEST(t_random_vs_twin),
	   CHECK_TEST(t_send_sg), CHECK_TEST(t_no_gso_gro),
	   CHECK_TEST(t_single),
	   CHECK_TEST(t_eio_fallback), CHECK_TEST(t_nonblock_drop),
	   CHECK_TEST(t_reuseaddr), CHECK_TEST(t_train_refused),
	   CHECK_TEST(t_probe_fallback), CHECK_TEST(t_send_frames),
	   CHECK_TEST(t_send_frames_bad), CHECK_TEST(t_recv_nobufs),
	   CHECK_TEST(t_recv_each), CHECK_TEST(t_recv_each_nobufs),
	   CHECK_TEST(t_split), CHECK_TEST(t_unconnected),
	   CHECK_TEST(t_icmp_error), CHECK_TEST(t_netns_veth_tx_off))
