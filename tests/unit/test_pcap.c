/* SPDX-License-Identifier: MIT */
/*
 * test_pcap.c - capture files: write/read round trips for Ethernet and raw
 * IP, 64 KiB super-packets, timestamps, end of file, and every error the
 * contract in pcap.h names (missing file, not a capture, wrong link type,
 * damaged file, frames cut by the snap length, frames too big for the
 * packet, unwritable output).
 *
 * Files that the writer cannot produce (foreign link types, microsecond
 * timestamps, short records) are built byte by byte here from the classic
 * pcap layout: a 24-byte file header and a 16-byte header per record, both
 * in host byte order (readers detect the order from the magic).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <voff/voff.h>

#include "check.h"

#define MAGIC_USEC 0xa1b2c3d4u
#define MAGIC_NSEC 0xa1b23c4du
#define LINKTYPE_ETHERNET 1
#define LINKTYPE_RAW 101
#define LINKTYPE_LINUX_SLL 113
#define LINKTYPE_IPV4 228
#define LINKTYPE_IPV6 229

struct file_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	int32_t thiszone;
	uint32_t sigfigs;
	uint32_t snaplen;
	uint32_t linktype;
};

struct rec_hdr {
	uint32_t sec;
	uint32_t frac;
	uint32_t caplen;
	uint32_t len;
};

_Static_assert(sizeof(struct file_hdr) == 24, "pcap file header");
_Static_assert(sizeof(struct rec_hdr) == 16, "pcap record header");

/* A per-process scratch file name; each test runs in its own process. */
static const char *tmp_path(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "/tmp/voff-test-pcap-%ld-%s",
		 (long)getpid(), name);
	return path;
}

static void fill(uint8_t *buf, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)(seed + i * 7);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	CHECK(f);
	CHECK_EQ(fwrite(data, 1, n, f), n);
	CHECK_OK(fclose(f));
}

/* Read a whole file into a fresh buffer; *@n gets its length. */
static uint8_t *read_all(const char *path, size_t *n)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	CHECK_OK(stat(path, &st));
	buf = malloc((size_t)st.st_size + 1);
	CHECK(buf);
	f = fopen(path, "rb");
	CHECK(f);
	*n = fread(buf, 1, (size_t)st.st_size, f);
	CHECK_EQ(*n, (size_t)st.st_size);
	fclose(f);
	return buf;
}

/* A minimal capture: file header + one record of @caplen bytes. */
static size_t build_file(uint8_t *out, uint32_t magic, uint32_t linktype,
			 uint32_t caplen, uint32_t len, uint32_t sec,
			 uint32_t frac)
{
	struct file_hdr fh = {
		.magic = magic, .major = 2, .minor = 4,
		.snaplen = VOFF_PCAP_SNAPLEN, .linktype = linktype,
	};
	struct rec_hdr rh = {
		.sec = sec, .frac = frac, .caplen = caplen, .len = len,
	};

	memcpy(out, &fh, sizeof(fh));
	memcpy(out + sizeof(fh), &rh, sizeof(rh));
	fill(out + sizeof(fh) + sizeof(rh), caplen, 3);
	return sizeof(fh) + sizeof(rh) + caplen;
}

static struct voff_pool *pool_super(void)
{
	struct voff_pool *pool = NULL;

	CHECK_OK(voff_pool_new(&pool, 2, VOFF_PKT_SUPER_ROOM));
	return pool;
}

/* Write @n frames of the given sizes, read them back, compare everything. */
static void round_trip(enum voff_parse_start start, const uint32_t *sizes,
		       size_t n)
{
	const char *path = tmp_path("rt.pcap");
	struct voff_pool *pool = pool_super();
	static uint8_t frame[VOFF_PKT_MAX_FRAME];
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;
	size_t i;

	CHECK_OK(voff_pcap_open_write(&pc, path, start));
	CHECK_EQ(voff_pcap_start(pc), start);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	for (i = 0; i < n; i++) {
		fill(frame, sizes[i], (uint8_t)i);
		CHECK_OK(voff_pkt_set_data(pkt, frame, sizes[i]));
		/* Nanosecond digits must survive the file. */
		pkt->rx_ns = 1700000000123456789ull + i * 1000000001ull;
		CHECK_OK(voff_pcap_write(pc, pkt));
	}
	CHECK_OK(voff_pcap_close(pc));

	pc = NULL;
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_EQ(voff_pcap_start(pc), start);
	for (i = 0; i < n; i++) {
		CHECK_EQ(voff_pcap_read(pc, pkt), 1);
		CHECK_EQ(pkt->len, sizes[i]);
		CHECK_GE(voff_pkt_headroom(pkt), VOFF_PKT_HEADROOM);
		fill(frame, sizes[i], (uint8_t)i);
		CHECK_MEM_EQ(voff_pkt_data(pkt), frame, sizes[i]);
		CHECK_EQ(pkt->rx_ns,
			 1700000000123456789ull + i * 1000000001ull);
		CHECK_EQ(pkt->l3_off, VOFF_OFF_NONE);
	}
	/* End of file is 0, and stays 0. */
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_EQ(pkt->len, 0);
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

static void t_roundtrip_eth(void)
{
	const uint32_t sizes[] = { 60, 64, 1514, 9018, 14, 0, 1 };

	round_trip(VOFF_PARSE_ETH, sizes, sizeof(sizes) / sizeof(sizes[0]));
}

static void t_roundtrip_rawip(void)
{
	const uint32_t sizes[] = { 20, 40, 1500, 65535 };

	round_trip(VOFF_PARSE_IP, sizes, sizeof(sizes) / sizeof(sizes[0]));
}

/* 64 KiB super-packets (and the largest frame voff handles) stay whole. */
static void t_super_packets(void)
{
	const uint32_t sizes[] = { 65535 + 14, 65535 + 14 + 8,
				   VOFF_PKT_MAX_FRAME, 65536 };

	round_trip(VOFF_PARSE_ETH, sizes, sizeof(sizes) / sizeof(sizes[0]));
}

/* The file header names the link type, the snap length and nanoseconds. */
static void t_file_header(void)
{
	const char *path = tmp_path("hdr.pcap");
	static const uint8_t ip[20] = { 0x45 };
	struct voff_pcap *pc = NULL;
	struct file_hdr fh;
	struct rec_hdr rh;
	uint8_t *buf;
	size_t n;

	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_IP));
	CHECK_OK(voff_pcap_write_raw(pc, ip, sizeof(ip), 5000000007ull));
	CHECK_OK(voff_pcap_close(pc));
	buf = read_all(path, &n);
	CHECK_EQ(n, sizeof(fh) + sizeof(rh) + sizeof(ip));
	memcpy(&fh, buf, sizeof(fh));
	memcpy(&rh, buf + sizeof(fh), sizeof(rh));
	CHECK_EQ(fh.magic, MAGIC_NSEC);
	CHECK_EQ(fh.major, 2);
	CHECK_EQ(fh.minor, 4);
	CHECK_EQ(fh.snaplen, VOFF_PCAP_SNAPLEN);
	CHECK_EQ(fh.linktype, LINKTYPE_RAW);
	CHECK_EQ(rh.sec, 5);
	CHECK_EQ(rh.frac, 7);
	CHECK_EQ(rh.caplen, sizeof(ip));
	CHECK_EQ(rh.len, sizeof(ip));
	CHECK_MEM_EQ(buf + sizeof(fh) + sizeof(rh), ip, sizeof(ip));
	free(buf);

	pc = NULL;
	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	CHECK_OK(voff_pcap_close(pc));
	buf = read_all(path, &n);
	CHECK_EQ(n, sizeof(fh));
	memcpy(&fh, buf, sizeof(fh));
	CHECK_EQ(fh.linktype, LINKTYPE_ETHERNET);
	free(buf);
	unlink(path);
}

/* A frame written with rx_ns 0 is stamped with the current wall clock. */
static void t_timestamp_now(void)
{
	const char *path = tmp_path("now.pcap");
	struct voff_pool *pool = pool_super();
	struct voff_pcap *pc = NULL;
	struct timespec a, b;
	struct voff_pkt *pkt;
	uint8_t frame[60] = { 0 };
	uint64_t lo, hi;

	clock_gettime(CLOCK_REALTIME, &a);
	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	CHECK_OK(voff_pcap_write_raw(pc, frame, sizeof(frame), 0));
	CHECK_OK(voff_pcap_close(pc));
	clock_gettime(CLOCK_REALTIME, &b);
	lo = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
	hi = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;

	pc = NULL;
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_GE(pkt->rx_ns, lo);
	CHECK_LE(pkt->rx_ns, hi);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

/* Microsecond files are scaled to nanoseconds. */
static void t_read_usec(void)
{
	const char *path = tmp_path("usec.pcap");
	struct voff_pool *pool = pool_super();
	struct voff_pcap *pc = NULL;
	static uint8_t file[256];
	struct voff_pkt *pkt;
	size_t n;

	n = build_file(file, MAGIC_USEC, LINKTYPE_ETHERNET, 60, 60, 7, 250000);
	write_bytes(path, file, n);
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_EQ(pkt->rx_ns, 7250000000ull);
	CHECK_EQ(pkt->len, 60);
	CHECK_MEM_EQ(voff_pkt_data(pkt), file + 40, 60);
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

/* Every raw-IP link type reads as VOFF_PARSE_IP. */
static void t_read_linktypes(void)
{
	static const struct {
		uint32_t linktype;
		enum voff_parse_start start;
	} cases[] = {
		{ LINKTYPE_ETHERNET, VOFF_PARSE_ETH },
		{ LINKTYPE_RAW, VOFF_PARSE_IP },
		{ 12, VOFF_PARSE_IP },	/* DLT_RAW in older files */
		{ LINKTYPE_IPV4, VOFF_PARSE_IP },
		{ LINKTYPE_IPV6, VOFF_PARSE_IP },
	};
	const char *path = tmp_path("lt.pcap");
	static uint8_t file[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct voff_pcap *pc = NULL;
		size_t n;

		n = build_file(file, MAGIC_NSEC, cases[i].linktype, 40, 40, 1,
			       2);
		write_bytes(path, file, n);
		CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
		CHECK_EQ(voff_pcap_start(pc), cases[i].start);
		CHECK_OK(voff_pcap_close(pc));
	}
	unlink(path);
}

/* The same frames from a big-endian file (written on another machine). */
static void t_read_swapped(void)
{
	const char *path = tmp_path("swapped.pcap");
	struct voff_pool *pool = pool_super();
	struct voff_pcap *pc = NULL;
	static uint8_t file[256];
	struct voff_pkt *pkt;
	uint32_t *w;
	uint16_t *h;
	size_t n;

	n = build_file(file, MAGIC_NSEC, LINKTYPE_RAW, 20, 20, 2, 3);
	/* Swap every header field: 4 words, 2 half-words, 4 + 4 words. */
	w = (uint32_t *)(void *)file;
	h = (uint16_t *)(void *)(file + 4);
	w[0] = __builtin_bswap32(w[0]);
	h[0] = __builtin_bswap16(h[0]);
	h[1] = __builtin_bswap16(h[1]);
	for (int i = 2; i < 10; i++)
		w[i] = __builtin_bswap32(w[i]);
	write_bytes(path, file, n);
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_EQ(voff_pcap_start(pc), VOFF_PARSE_IP);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_EQ(pkt->len, 20);
	CHECK_EQ(pkt->rx_ns, 2000000003ull);
	CHECK_MEM_EQ(voff_pkt_data(pkt), file + 40, 20);
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

static size_t put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
	return 4;
}

/*
 * pcapng, built by hand: a section header, an Ethernet interface with
 * nanosecond resolution (if_tsresol 9) and one enhanced packet block.
 */
static void t_read_pcapng(void)
{
	const char *path = tmp_path("ng.pcapng");
	struct voff_pool *pool = pool_super();
	const uint64_t ts = 1700000000987654321ull;
	struct voff_pcap *pc = NULL;
	static uint8_t file[512];
	uint8_t frame[62];
	struct voff_pkt *pkt;
	size_t n = 0;

	fill(frame, sizeof(frame), 0x42);
	/* Section header block: type, length, byte-order magic, 1.0, -1. */
	n += put32(file + n, 0x0A0D0D0A);
	n += put32(file + n, 28);
	n += put32(file + n, 0x1A2B3C4D);
	n += put32(file + n, 0x00000001);	/* major 1, minor 0 */
	n += put32(file + n, 0xFFFFFFFF);
	n += put32(file + n, 0xFFFFFFFF);
	n += put32(file + n, 28);
	/* Interface block: Ethernet, if_tsresol = 9 (ns), end of options. */
	n += put32(file + n, 1);
	n += put32(file + n, 32);
	n += put32(file + n, LINKTYPE_ETHERNET);	/* + reserved 0 */
	n += put32(file + n, 0);			/* snaplen: none */
	n += put32(file + n, 9 | (1u << 16));		/* code 9, len 1 */
	n += put32(file + n, 9);			/* value 9, padded */
	n += put32(file + n, 0);			/* opt_endofopt */
	n += put32(file + n, 32);
	/* Enhanced packet block: 62 bytes of data padded to 64. */
	n += put32(file + n, 6);
	n += put32(file + n, 32 + 64);
	n += put32(file + n, 0);
	n += put32(file + n, (uint32_t)(ts >> 32));
	n += put32(file + n, (uint32_t)ts);
	n += put32(file + n, sizeof(frame));
	n += put32(file + n, 1000);	/* longer on the wire: snapped */
	memcpy(file + n, frame, sizeof(frame));
	n += 64;
	n += put32(file + n, 32 + 64);
	write_bytes(path, file, n);

	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_EQ(voff_pcap_start(pc), VOFF_PARSE_ETH);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_EQ(voff_pcap_read(pc, pkt), VOFF_E_PCAP_SNAP);
	CHECK_EQ(pkt->len, sizeof(frame));
	CHECK_MEM_EQ(voff_pkt_data(pkt), frame, sizeof(frame));
	CHECK_EQ(pkt->rx_ns, ts);
	CHECK_EQ(voff_pcap_orig_len(pc), 1000);
	/* Written on as it was read, it reads back the same: still cut. */
	{
		struct voff_pcap *w = NULL;
		char p2[300];

		/* tmp_path() has one buffer: @path's name is kept apart. */
		snprintf(p2, sizeof(p2), "%s.2", path);

		CHECK_OK(voff_pcap_open_write(&w, p2, VOFF_PARSE_ETH));
		CHECK_EQ(voff_pcap_write_snapped(w, pkt, sizeof(frame) - 1),
			 -EINVAL);
		CHECK_OK(voff_pcap_write_snapped(w, pkt, 1000));
		CHECK_EQ(voff_pcap_orig_len(w), 0);	/* a write handle */
		CHECK_OK(voff_pcap_close(w));
		CHECK_EQ(voff_pcap_read(pc, pkt), 0);
		CHECK_EQ(voff_pcap_orig_len(pc), 0);	/* at the end */
		CHECK_OK(voff_pcap_close(pc));
		CHECK_OK(voff_pcap_open_read(&pc, p2, NULL, 0));
		CHECK_EQ(voff_pcap_read(pc, pkt), VOFF_E_PCAP_SNAP);
		CHECK_EQ(pkt->len, sizeof(frame));
		CHECK_MEM_EQ(voff_pkt_data(pkt), frame, sizeof(frame));
		CHECK_EQ(pkt->rx_ns, ts);
		CHECK_EQ(voff_pcap_orig_len(pc), 1000);
		unlink(p2);
	}
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

/*
 * Damaged files of every sort (random bytes overwritten, random cuts)
 * never crash the reader, which returns only what the contract allows;
 * under ASan this also shows that no path leaks or reads out of bounds.
 */
static void t_corrupt_random(void)
{
	const char *path = tmp_path("corrupt.pcap");
	struct voff_pool *pool = pool_super();
	static uint8_t frame[3000], good[16384], bad[16384];
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;
	size_t n;
	uint8_t *buf;

	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	for (uint32_t i = 0; i < 8; i++) {
		fill(frame, sizeof(frame), (uint8_t)i);
		CHECK_OK(voff_pcap_write_raw(pc, frame, 60 + i * 300, i + 1));
	}
	CHECK_OK(voff_pcap_close(pc));
	buf = read_all(path, &n);
	CHECK_LE(n, sizeof(good));
	memcpy(good, buf, n);
	free(buf);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));

	for (int iter = 0; iter < 400; iter++) {
		size_t len = n, frames = 0;
		int rc;

		memcpy(bad, good, n);
		if (iter & 1)
			len = (size_t)(check_rand() % (n + 1));
		for (int k = (int)(check_rand() % 4); k > 0; k--)
			bad[check_rand() % n] = (uint8_t)check_rand();
		write_bytes(path, bad, len);
		pc = NULL;
		rc = voff_pcap_open_read(&pc, path, NULL, 0);
		if (rc) {
			CHECK_MSG(rc == VOFF_E_PCAP_FORMAT ||
				  rc == VOFF_E_PCAP_LINKTYPE,
				  "iter %d: open gives %d", iter, rc);
			continue;
		}
		while ((rc = voff_pcap_read(pc, pkt)) != 0) {
			CHECK_MSG(rc == 1 || rc == VOFF_E_PCAP_SNAP ||
				  rc == VOFF_E_TOO_BIG ||
				  rc == VOFF_E_PCAP_FORMAT ||
				  rc == VOFF_E_PCAP_TRUNC,
				  "iter %d: read gives %d", iter, rc);
			CHECK_LE(pkt->len, VOFF_PKT_SUPER_ROOM);
			if (rc == VOFF_E_PCAP_FORMAT ||
			    rc == VOFF_E_PCAP_TRUNC || ++frames > 64)
				break;
		}
		CHECK_OK(voff_pcap_close(pc));
	}
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

static void t_missing_file(void)
{
	struct voff_pcap *pc = (struct voff_pcap *)0x1;
	char err[256] = "";

	CHECK_EQ(voff_pcap_open_read(&pc, "/nonexistent/voff.pcap", err,
				     sizeof(err)),
		 -ENOENT);
	CHECK(pc == (struct voff_pcap *)0x1);	/* untouched */
	/* The cause alone: the caller names the file. */
	CHECK_STR_EQ(err, strerror(ENOENT));
	/* Without an error buffer, the same code. */
	CHECK_EQ(voff_pcap_open_read(&pc, "/nonexistent/voff.pcap", NULL, 0),
		 -ENOENT);
	CHECK_EQ(voff_pcap_open_write(&pc, "/nonexistent/dir/x.pcap",
				      VOFF_PARSE_ETH),
		 -ENOENT);
}

static void t_permission_denied(void)
{
	const char *path = tmp_path("noperm.pcap");
	struct voff_pcap *pc = NULL;
	static uint8_t file[128];
	size_t n;

	if (geteuid() == 0)
		CHECK_SKIP("root reads files whatever their mode");
	n = build_file(file, MAGIC_NSEC, LINKTYPE_ETHERNET, 14, 14, 0, 0);
	write_bytes(path, file, n);
	CHECK_OK(chmod(path, 0));
	CHECK_EQ(voff_pcap_open_read(&pc, path, NULL, 0), -EACCES);
	unlink(path);
}

static void t_not_a_capture(void)
{
	const char *path = tmp_path("text.pcap");
	static const char text[] = "this is not a capture file, not at all\n";
	struct voff_pcap *pc = NULL;
	char err[256] = "";

	write_bytes(path, text, sizeof(text) - 1);
	CHECK_EQ(voff_pcap_open_read(&pc, path, err, sizeof(err)),
		 VOFF_E_PCAP_FORMAT);
	CHECK_STR_EQ(err, "not a capture file (unknown file format)");
	/* An empty file and a file cut inside its header, too. */
	write_bytes(path, text, 0);
	CHECK_EQ(voff_pcap_open_read(&pc, path, NULL, 0), VOFF_E_PCAP_FORMAT);
	write_bytes(path, "\xd4\xc3\xb2\xa1\x02\x00", 6);
	CHECK_EQ(voff_pcap_open_read(&pc, path, NULL, 0), VOFF_E_PCAP_FORMAT);
	/* A directory cannot be read as a stream. */
	CHECK_EQ(voff_pcap_open_read(&pc, "/tmp", err, sizeof(err)), -EIO);
	CHECK_STR_EQ(err, strerror(EISDIR));
	CHECK(pc == NULL);
	unlink(path);
}

static void t_wrong_linktype(void)
{
	const char *path = tmp_path("sll.pcap");
	struct voff_pcap *pc = NULL;
	static uint8_t file[128];
	char err[256] = "";
	size_t n;

	n = build_file(file, MAGIC_NSEC, LINKTYPE_LINUX_SLL, 16, 16, 0, 0);
	write_bytes(path, file, n);
	CHECK_EQ(voff_pcap_open_read(&pc, path, err, sizeof(err)),
		 VOFF_E_PCAP_LINKTYPE);
	CHECK(pc == NULL);
	CHECK_STR_EQ(err, "link type LINUX_SLL (113) is neither Ethernet nor "
			  "raw IP");
	unlink(path);
}

/*
 * A file cut inside a record is truncated, told apart from a damaged
 * record: earlier frames still read, and the end stays the end.
 */
static void t_truncated_file(void)
{
	const char *path = tmp_path("trunc.pcap");
	struct voff_pool *pool = pool_super();
	static uint8_t frame[1000];
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;
	uint8_t *buf;
	size_t n, cuts[3];
	int rc;

	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	fill(frame, sizeof(frame), 9);
	CHECK_OK(voff_pcap_write_raw(pc, frame, 100, 1));
	CHECK_OK(voff_pcap_write_raw(pc, frame, sizeof(frame), 2));
	CHECK_OK(voff_pcap_close(pc));
	buf = read_all(path, &n);
	CHECK_EQ(n, 24 + 16 + 100 + 16 + 1000);
	/* Cut inside the second record header, and twice inside its data. */
	cuts[0] = 24 + 16 + 100 + 7;
	cuts[1] = 24 + 16 + 100 + 16 + 1;
	cuts[2] = n - 1;
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	for (size_t i = 0; i < 3; i++) {
		write_bytes(path, buf, cuts[i]);
		pc = NULL;
		CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
		CHECK_EQ(voff_pcap_read(pc, pkt), 1);
		CHECK_EQ(pkt->len, 100);
		CHECK_EQ(voff_pcap_read(pc, pkt), VOFF_E_PCAP_TRUNC);
		rc = voff_pcap_read(pc, pkt);
		CHECK_MSG(rc == 0 || rc == VOFF_E_PCAP_TRUNC, "then %d", rc);
		CHECK_OK(voff_pcap_close(pc));
	}
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	free(buf);
	unlink(path);
}

/* A record whose stored length is below its original length. */
static void t_snap_truncated(void)
{
	const char *path = tmp_path("snap.pcap");
	struct voff_pool *pool = pool_super();
	struct voff_pcap *pc = NULL;
	static uint8_t file[256];
	struct voff_pkt *pkt;
	size_t n;

	n = build_file(file, MAGIC_NSEC, LINKTYPE_ETHERNET, 96, 1514, 3, 4);
	write_bytes(path, file, n);
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_EQ(voff_pcap_read(pc, pkt), VOFF_E_PCAP_SNAP);
	CHECK_EQ(pkt->len, 96);
	CHECK_MEM_EQ(voff_pkt_data(pkt), file + 40, 96);
	CHECK_EQ(pkt->rx_ns, 3000000004ull);
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

/*
 * A frame longer than the snap length is stored cut, with its original
 * length; read into a big enough external buffer it comes back snapped.
 */
static void t_write_beyond_snaplen(void)
{
	const uint32_t big = VOFF_PCAP_SNAPLEN + 1000;
	const char *path = tmp_path("big.pcap");
	struct voff_pcap *pc = NULL;
	struct voff_pkt pkt;
	uint8_t *frame, *buf;

	frame = malloc(big);
	buf = malloc(VOFF_PKT_HEADROOM + big);
	CHECK(frame && buf);
	fill(frame, big, 1);
	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	CHECK_OK(voff_pcap_write_raw(pc, frame, big, 1));
	CHECK_OK(voff_pcap_close(pc));

	pc = NULL;
	CHECK_OK(voff_pkt_init_ext(&pkt, buf, VOFF_PKT_HEADROOM + big,
				   VOFF_PKT_HEADROOM, 0));
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_EQ(voff_pcap_read(pc, &pkt), VOFF_E_PCAP_SNAP);
	CHECK_EQ(pkt.len, VOFF_PCAP_SNAPLEN);
	CHECK_MEM_EQ(voff_pkt_data(&pkt), frame, VOFF_PCAP_SNAPLEN);
	CHECK_OK(voff_pcap_close(pc));
	free(frame);
	free(buf);
	unlink(path);
}

/* A frame that does not fit the packet is skipped; reading goes on. */
static void t_too_big(void)
{
	const char *path = tmp_path("toobig.pcap");
	struct voff_pool *pool = NULL;
	static uint8_t frame[2000];
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;

	fill(frame, sizeof(frame), 5);
	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	CHECK_OK(voff_pcap_write_raw(pc, frame, 60, 1));
	CHECK_OK(voff_pcap_write_raw(pc, frame, sizeof(frame), 2));
	CHECK_OK(voff_pcap_write_raw(pc, frame + 1, 61, 3));
	CHECK_OK(voff_pcap_close(pc));

	pc = NULL;
	CHECK_OK(voff_pool_new(&pool, 1, 1024));
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_EQ(pkt->len, 60);
	CHECK_EQ(voff_pcap_read(pc, pkt), VOFF_E_TOO_BIG);
	CHECK_EQ(pkt->len, 0);
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_EQ(pkt->len, 61);
	CHECK_MEM_EQ(voff_pkt_data(pkt), frame + 1, 61);
	CHECK_EQ(pkt->rx_ns, 3);
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

/* "-" means standard output for writing and standard input for reading. */
static void t_stdio(void)
{
	const char *path = tmp_path("stdio.pcap");
	struct voff_pool *pool = pool_super();
	static const uint8_t frame[42] = { 1, 2, 3 };
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;
	int fd, saved;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && saved >= 0);
	CHECK_EQ(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	CHECK_OK(voff_pcap_open_write(&pc, "-", VOFF_PARSE_IP));
	CHECK_OK(voff_pcap_write_raw(pc, frame, sizeof(frame), 9));
	CHECK_OK(voff_pcap_close(pc));
	CHECK_EQ(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);

	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	CHECK_EQ(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	pc = NULL;
	CHECK_OK(voff_pcap_open_read(&pc, "-", NULL, 0));
	CHECK_EQ(voff_pcap_start(pc), VOFF_PARSE_IP);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_EQ(pkt->len, sizeof(frame));
	CHECK_MEM_EQ(voff_pkt_data(pkt), frame, sizeof(frame));
	CHECK_EQ(voff_pcap_read(pc, pkt), 0);
	CHECK_OK(voff_pcap_close(pc));
	/* The process's own standard input stays open. */
	CHECK(fcntl(STDIN_FILENO, F_GETFD) >= 0);
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

/* An output that refuses bytes fails at open, not silently later. */
static void t_write_error(void)
{
	struct voff_pcap *pc = NULL;

	if (access("/dev/full", W_OK) != 0)
		CHECK_SKIP("no /dev/full");
	CHECK_EQ(voff_pcap_open_write(&pc, "/dev/full", VOFF_PARSE_ETH),
		 -ENOSPC);
	CHECK(pc == NULL);
}

/*
 * A write that fails part way names its cause: past a file size limit
 * the frames fail with -EFBIG (from write(2)), not a bare -EIO, and so
 * does the close that flushes the rest.
 */
static void t_write_errno(void)
{
	const char *path = tmp_path("fsize.pcap");
	struct rlimit lim = { 8192, 8192 };
	static uint8_t frame[1000];
	struct voff_pcap *pc = NULL;
	int rc = 0;

	signal(SIGXFSZ, SIG_IGN);	/* the error, not the signal */
	CHECK_OK(setrlimit(RLIMIT_FSIZE, &lim));
	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	for (int i = 0; i < 64 && !rc; i++)
		rc = voff_pcap_write_raw(pc, frame, sizeof(frame), 1);
	CHECK_EQ(rc, -EFBIG);
	rc = voff_pcap_close(pc);
	CHECK_MSG(rc == -EFBIG, "close gives %d", rc);
	unlink(path);
}

static void t_misuse(void)
{
	const char *path = tmp_path("misuse.pcap");
	struct voff_pool *pool = pool_super();
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;

	CHECK_OK(voff_pcap_close(NULL));
	CHECK_EQ(voff_pcap_open_write(&pc, path, (enum voff_parse_start)7),
		 -EINVAL);
	CHECK_OK(voff_pkt_alloc(pool, &pkt));
	CHECK_OK(voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH));
	CHECK_EQ(voff_pcap_read(pc, pkt), -EINVAL);
	CHECK_EQ(voff_pcap_write_raw(pc, NULL, 10, 1), -EINVAL);
	CHECK_OK(voff_pcap_write_raw(pc, NULL, 0, 1));
	CHECK_OK(voff_pcap_close(pc));
	pc = NULL;
	CHECK_OK(voff_pcap_open_read(&pc, path, NULL, 0));
	CHECK_EQ(voff_pcap_write(pc, pkt), -EINVAL);
	CHECK_EQ(voff_pcap_read(pc, pkt), 1);
	CHECK_EQ(pkt->len, 0);
	CHECK_OK(voff_pcap_close(pc));
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	unlink(path);
}

CHECK_MAIN(CHECK_TEST(t_roundtrip_eth), CHECK_TEST(t_roundtrip_rawip),
	   CHECK_TEST(t_super_packets), CHECK_TEST(t_file_header),
	   CHECK_TEST(t_timestamp_now), CHECK_TEST(t_read_usec),
	   CHECK_TEST(t_read_linktypes), CHECK_TEST(t_read_swapped),
	   CHECK_TEST(t_read_pcapng), CHECK_TEST(t_corrupt_random),
	   CHECK_TEST(t_missing_file),
	   CHECK_TEST(t_permission_denied), CHECK_TEST(t_not_a_capture),
	   CHECK_TEST(t_wrong_linktype), CHECK_TEST(t_truncated_file),
	   CHECK_TEST(t_write_errno),
	   CHECK_TEST(t_snap_truncated), CHECK_TEST(t_write_beyond_snaplen),
	   CHECK_TEST(t_too_big), CHECK_TEST(t_stdio),
	   CHECK_TEST(t_write_error), CHECK_TEST(t_misuse))
