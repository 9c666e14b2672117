/* SPDX-License-Identifier: MIT */
/*
 * test_csum.c - unit tests of the Internet checksum module (csum.h)
 *
 * Every optimised routine (portable, each SIMD variant this CPU runs, the
 * dispatched voff_csum(), the fused copies) is compared with the byte-wise
 * naive twin on random buffers of every length 0..2048 at every start
 * alignment 0..63 and on 64 KiB buffers; the fused copies also at every
 * pair of source and destination alignments and between exact-size heap
 * buffers.  Incremental updates are compared
 * with full recomputation; pseudo-headers, completion and the IPv4 header
 * checksum are checked against frames whose checksums were verified with
 * tshark, and against the worked examples of RFC 1071 and RFC 1624.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <voff/csum.h>
#include <voff/pkt.h>

#include "check.h"
#include "csum_int.h"

#define MAX_LEN 2048
#define MAX_ALIGN 64

/* A 16-bit field as it sits in memory when its bytes are @b0, @b1. */
static uint16_t mem16(uint8_t b0, uint8_t b1)
{
	uint8_t b[2] = { b0, b1 };
	uint16_t v;

	memcpy(&v, b, 2);
	return v;
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t rand32(void)
{
	return (uint32_t)(check_rand() >> 32);
}

/* Random data in 8-byte steps: check_fill_random() is byte-wise, slow. */
static void fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t r = check_rand();

		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)check_rand();
}

/*
 * TCP/IPv4 frame (Ethernet, IPv4 20 bytes, TCP 20 bytes, 18 bytes of
 * "GET / HTTP/1.0\r\n\r\n"): 192.168.1.10:40000 -> 93.184.216.34:80.
 * tshark reports its IPv4 (0x26eb) and TCP (0x5fb2) checksums good.
 */
static const uint8_t tcp4_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x08, 0x00, 0x45, 0x00, 0x00, 0x3a, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x06,
	0x26, 0xeb, 0xc0, 0xa8, 0x01, 0x0a, 0x5d, 0xb8, 0xd8, 0x22, 0x9c, 0x40,
	0x00, 0x50, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x50, 0x18,
	0xfa, 0xf0, 0x5f, 0xb2, 0x00, 0x00, 0x47, 0x45, 0x54, 0x20, 0x2f, 0x20,
	0x48, 0x54, 0x54, 0x50, 0x2f, 0x31, 0x2e, 0x30, 0x0d, 0x0a, 0x0d, 0x0a,
};
#define TCP4_L3 14
#define TCP4_L4 34
#define TCP4_CHECK (TCP4_L4 + 16)

/*
 * UDP/IPv6 frame, 11 bytes of payload ("hello world", an odd length):
 * [2001:db8::1]:5353 -> [2001:db8::2]:53.  tshark: UDP checksum 0xfd66 good.
 */
static const uint8_t udp6_frame[] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x86, 0xdd, 0x60, 0x00, 0x00, 0x00, 0x00, 0x13, 0x11, 0x40, 0x20, 0x01,
	0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x01, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x14, 0xe9, 0x00, 0x35, 0x00, 0x13,
	0xfd, 0x66, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x77, 0x6f, 0x72, 0x6c,
	0x64,
};
#define UDP6_L3 14
#define UDP6_L4 54
#define UDP6_CHECK (UDP6_L4 + 6)

/* ---- the sum itself ------------------------------------------------------ */

static void t_rfc1071_example(void)
{
	/* RFC 1071 section 3: these bytes sum to 0xddf2, checksum 0x220d. */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03,
				     0xf4, 0xf5, 0xf6, 0xf7 };
	const struct voff__csum_variant *v;
	unsigned int i;

	CHECK_EQ(voff_csum_fold(voff_csum_naive(b, 8, 0)), mem16(0x22, 0x0d));
	CHECK_EQ(voff_csum_fold(voff_csum_portable(b, 8, 0)),
		 mem16(0x22, 0x0d));
	CHECK_EQ(voff_csum_fold(voff_csum(b, 8, 0)), mem16(0x22, 0x0d));
	for (i = 0; (v = voff__csum_variant(i)); i++)
		if (v->usable())
			CHECK_EQ(voff_csum_fold(v->csum(b, 8, 0)),
				 mem16(0x22, 0x0d));
	/* An odd last byte counts as the high byte of a word padded by 0. */
	CHECK_EQ(voff_csum_fold(voff_csum_naive(b, 3, 0)),
		 mem16((uint8_t)~0xf2, (uint8_t)~0x01));
}

static void t_fold_and_add(void)
{
	CHECK_EQ(voff_csum_fold(0), 0xFFFF);
	CHECK_EQ(voff_csum_fold(0xFFFF), 0);
	CHECK_EQ(voff_csum_fold(0xFFFFFFFF), 0);
	CHECK_EQ(voff_csum_fold(0x0001FFFE), 0);
	CHECK_EQ(voff_csum_fold(0x12345678), (uint16_t)~(0x1234 + 0x5678));
	CHECK_EQ(voff_csum_add(0xFFFFFFFF, 1), 1);
	CHECK_EQ(voff_csum_add(0x80000000, 0x80000000), 1);
	CHECK_EQ(voff_csum_unfold(voff_csum_fold(0x1234)), 0x1234);
	for (int i = 0; i < 10000; i++) {
		uint32_t a = rand32() | 1, b = rand32();

		/* Equal modulo 0xffff, so equal once folded (a is odd). */
		CHECK_EQ(voff_csum_fold(voff_csum_add(voff_csum_sub(a, b), b)),
			 voff_csum_fold(a));
	}
}

/* All routines under test, as (name, sum) and (name, copy). */
struct sum_fn {
	const char *name;
	voff__csum_fn fn;
};

struct copy_fn {
	const char *name;
	voff__csum_copy_fn fn;
};

static unsigned int sum_fns(struct sum_fn *f)
{
	const struct voff__csum_variant *v;
	unsigned int n = 0, i;

	f[n++] = (struct sum_fn){ "voff_csum", voff_csum };
	f[n++] = (struct sum_fn){ "voff_csum_simd", voff_csum_simd };
	f[n++] = (struct sum_fn){ "voff_csum_portable", voff_csum_portable };
	for (i = 0; (v = voff__csum_variant(i)) && n < 16; i++)
		if (v->usable())
			f[n++] = (struct sum_fn){ v->name, v->csum };
	return n;
}

static unsigned int copy_fns(struct copy_fn *f)
{
	const struct voff__csum_variant *v;
	unsigned int n = 0, i;

	f[n++] = (struct copy_fn){ "voff_csum_copy", voff_csum_copy };
	f[n++] = (struct copy_fn){ "voff_csum_copy_naive",
				   voff_csum_copy_naive };
	for (i = 0; (v = voff__csum_variant(i)) && n < 16; i++)
		if (v->usable())
			f[n++] = (struct copy_fn){ v->name, v->copy };
	return n;
}

static void t_impl_is_best_usable(void)
{
	const struct voff__csum_variant *v;
	unsigned int i;

	for (i = 0; (v = voff__csum_variant(i)); i++)
		if (v->usable())
			break;
	CHECK(v != NULL);
	CHECK_STR_EQ(voff_csum_impl(), v->name);
	/* The table ends with the portable routine, which always runs. */
	while (voff__csum_variant(i + 1))
		i++;
	CHECK_STR_EQ(voff__csum_variant(i)->name, "portable");
	CHECK(voff__csum_variant(i)->usable());
	printf("# voff_csum_impl: %s\n", voff_csum_impl());
}

static void t_every_length_and_alignment(void)
{
	static uint8_t buf[MAX_ALIGN + MAX_LEN + 64];
	struct sum_fn f[16];
	unsigned int n = sum_fns(f), k;
	size_t a, len;

	fill(buf, sizeof(buf));
	for (a = 0; a < MAX_ALIGN; a++) {
		for (len = 0; len <= MAX_LEN; len++) {
			uint32_t init = (len & 3) ? rand32() : 0;
			uint16_t want = voff_csum_fold(
				voff_csum_naive(buf + a, len, init));

			for (k = 0; k < n; k++) {
				uint16_t got = voff_csum_fold(
					f[k].fn(buf + a, len, init));

				CHECK_MSG(got == want,
					  "%s: align %zu len %zu init 0x%x: "
					  "0x%04x, naive 0x%04x", f[k].name, a,
					  len, init, got, want);
			}
		}
	}
}

static void t_copy_every_length_and_alignment(void)
{
	static uint8_t src[MAX_ALIGN + MAX_LEN + 64];
	static uint8_t dst[MAX_ALIGN + MAX_LEN + 64];
	static uint8_t ref[MAX_LEN + 17];
	struct copy_fn f[16];
	unsigned int n = copy_fns(f), k;
	size_t a, len;

	fill(src, sizeof(src));
	for (a = 0; a < MAX_ALIGN; a++) {
		/* Vary the destination's alignment apart from the source's. */
		size_t da = (a * 37 + 5) % MAX_ALIGN;

		for (len = 0; len <= MAX_LEN; len++) {
			uint32_t init = rand32();
			uint16_t want = voff_csum_fold(
				voff_csum_naive(src + a, len, init));

			for (k = 0; k < n; k++) {
				uint16_t got;

				/* The twin itself is checked elsewhere. */
				if (f[k].fn == voff_csum_copy_naive)
					continue;
				/* Guards: 0x5A before and after the copy. */
				memset(dst + da - (da > 0), 0x5A, len + 17);
				memcpy(ref, dst + da - (da > 0), len + 17);
				memcpy(ref + (da > 0), src + a, len);
				got = voff_csum_fold(f[k].fn(dst + da, src + a,
							     len, init));
				CHECK_MSG(got == want,
					  "%s: align %zu/%zu len %zu: 0x%04x, "
					  "naive 0x%04x", f[k].name, a, da,
					  len, got, want);
				/* Copied exactly, nothing written around. */
				if (memcmp(dst + da - (da > 0), ref, len + 17))
					CHECK_MEM_EQ(dst + da - (da > 0), ref,
						     len + 17);
			}
		}
	}
}

/* Exact-size heap buffers: the sanitizer catches any read past the end. */
static void t_no_overread(void)
{
	struct sum_fn f[16];
	struct copy_fn c[16];
	unsigned int n = sum_fns(f), nc = copy_fns(c), k;
	size_t len;

	for (len = 0; len <= 300; len++) {
		uint8_t *b = malloc(len ? len : 1);
		uint8_t *d = malloc(len ? len : 1);
		uint16_t want;

		CHECK(b && d);
		fill(b, len);
		want = voff_csum_fold(voff_csum_naive(b, len, 0));
		for (k = 0; k < n; k++)
			CHECK_EQ(voff_csum_fold(f[k].fn(b, len, 0)), want);
		for (k = 0; k < nc; k++)
			CHECK_EQ(voff_csum_fold(c[k].fn(d, b, len, 0)), want);
		free(b);
		free(d);
	}
}

/*
 * Every pair of source and destination alignments 0..63, independently,
 * at the lengths where the vector copies change paths (one masked vector,
 * head plus tail, an odd head, an overlapping tail) and at segment sizes.
 */
static void t_copy_src_dst_alignments(void)
{
	static const size_t lens[] = {
		0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 127, 128,
		129, 130, 191, 192, 193, 255, 256, 257, 319, 1000, 1447, 1448,
		1449, 1500,
	};
	static uint8_t src[MAX_ALIGN + 1500 + 64];
	static uint8_t dst[MAX_ALIGN + 1500 + 64];
	static uint8_t ref[MAX_ALIGN + 1500 + 64];
	struct copy_fn f[16];
	unsigned int n = copy_fns(f), k, i;
	size_t sa, da, len;

	fill(src, sizeof(src));
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		len = lens[i];
		for (sa = 0; sa < MAX_ALIGN; sa++) {
			uint32_t init = rand32();
			uint16_t want = voff_csum_fold(
				voff_csum_naive(src + sa, len, init));

			for (da = 0; da < MAX_ALIGN; da++) {
				memset(ref, 0xA5, sizeof(ref));
				memcpy(ref + da, src + sa, len);
				for (k = 0; k < n; k++) {
					uint16_t got;

					if (f[k].fn == voff_csum_copy_naive)
						continue;
					memset(dst, 0xA5, sizeof(dst));
					got = voff_csum_fold(f[k].fn(dst + da,
						src + sa, len, init));
					CHECK_MSG(got == want,
						  "%s: src %zu dst %zu len %zu:"
						  " 0x%04x, naive 0x%04x",
						  f[k].name, sa, da, len, got,
						  want);
					if (memcmp(dst, ref, sizeof(dst)))
						CHECK_MEM_EQ(dst, ref,
							     sizeof(dst));
				}
			}
		}
	}
}

/*
 * Copies between exact-size heap buffers at lengths up to two segments,
 * source and destination from separate allocations with different start
 * offsets inside a larger block: the sanitizer catches any access past
 * either end, the masked and overlapping vector ends included.
 */
static void t_copy_no_overrun(void)
{
	struct copy_fn c[16];
	unsigned int nc = copy_fns(c), k;
	size_t len;

	for (len = 1; len <= 3000; len += (len < 300 ? 1 : 37)) {
		uint8_t *b = malloc(len), *d = malloc(len);
		uint16_t want;

		CHECK(b && d);
		fill(b, len);
		want = voff_csum_fold(voff_csum_naive(b, len, 0));
		for (k = 0; k < nc; k++) {
			size_t o = len > 1 ? (k * 7 + len) % (len / 2) : 0;

			memset(d, 0, len);
			CHECK_EQ(voff_csum_fold(c[k].fn(d, b, len, 0)), want);
			CHECK(!memcmp(d, b, len));
			/* Parts at other offsets, some odd, apart. */
			CHECK_EQ(voff_csum_fold(c[k].fn(d + o / 2, b + o,
							len - o, 0)),
				 voff_csum_fold(voff_csum_naive(b + o,
								len - o, 0)));
			CHECK(!memcmp(d + o / 2, b + o, len - o));
		}
		free(b);
		free(d);
	}
}

static void check_64k(const uint8_t *buf, size_t len, uint32_t init)
{
	static uint8_t dst[65536 + 64];
	struct sum_fn f[16];
	struct copy_fn c[16];
	unsigned int n = sum_fns(f), nc = copy_fns(c), k;
	uint16_t want = voff_csum_fold(voff_csum_naive(buf, len, init));

	for (k = 0; k < n; k++)
		CHECK_MSG(voff_csum_fold(f[k].fn(buf, len, init)) == want,
			  "%s on %zu bytes", f[k].name, len);
	for (k = 0; k < nc; k++) {
		CHECK_MSG(voff_csum_fold(c[k].fn(dst + 3, buf, len, init)) ==
			  want, "%s on %zu bytes", c[k].name, len);
		CHECK_MEM_EQ(dst + 3, buf, len);
	}
}

static void t_64k_buffers(void)
{
	static uint8_t buf[65536 + 64];
	size_t a;
	int r;

	for (r = 0; r < 8; r++) {
		fill(buf, sizeof(buf));
		for (a = 0; a < 64; a += 7) {
			check_64k(buf + a, 65536, rand32());
			check_64k(buf + a, 65535 - r, 0);
		}
	}
	/* Worst case for the carries: every byte 0xFF, a maximal seed. */
	memset(buf, 0xFF, sizeof(buf));
	check_64k(buf, 65536, 0xFFFFFFFF);
	check_64k(buf + 1, 65535, 0xFFFFFFFF);
	/* All zero: 0 stays 0 and folds to 0xFFFF in every routine. */
	memset(buf, 0, sizeof(buf));
	check_64k(buf, 65536, 0);
	CHECK_EQ(voff_csum_fold(voff_csum(buf, 65536, 0)), 0xFFFF);
}

/* A larger buffer of 0xFF bytes: many lane additions with full carries. */
static void t_large_buffer(void)
{
	size_t len = (size_t)16 << 20;
	uint8_t *b = malloc(len + 1);
	struct sum_fn f[16];
	unsigned int n = sum_fns(f), k;
	uint16_t want;

	CHECK(b != NULL);
	memset(b, 0xFF, len + 1);
	b[12345] = 0x12;
	want = voff_csum_fold(voff_csum_naive(b, len + 1, 77));
	for (k = 0; k < n; k++)
		CHECK_MSG(voff_csum_fold(f[k].fn(b, len + 1, 77)) == want,
			  "%s", f[k].name);
	free(b);
}

/* Sums of pieces at any offset, joined with block_add, equal the whole. */
static void t_block_add(void)
{
	static uint8_t buf[4096];
	int r;

	for (r = 0; r < 2000; r++) {
		size_t len = check_rand() % sizeof(buf), off = 0;
		uint32_t init = rand32(), sum = init;

		fill(buf, len);
		while (off < len) {
			size_t piece = 1 + check_rand() % 200;

			if (piece > len - off)
				piece = len - off;
			sum = voff_csum_block_add(sum,
						  voff_csum(buf + off, piece, 0),
						  off);
			off += piece;
		}
		CHECK_EQ(voff_csum_fold(sum),
			 voff_csum_fold(voff_csum_naive(buf, len, init)));
	}
	/* One odd split by hand: [0x12] then [0x34 0x56] = 0x1234 + 0x5600. */
	{
		static const uint8_t b[] = { 0x12, 0x34, 0x56 };
		uint32_t s = voff_csum_block_add(voff_csum_naive(b, 1, 0),
						 voff_csum_naive(b + 1, 2, 0),
						 1);

		CHECK_EQ(voff_csum_fold(s),
			 voff_csum_fold(voff_csum_naive(b, 3, 0)));
		CHECK_EQ(voff_csum_fold(s), mem16((uint8_t)~0x68,
						  (uint8_t)~0x34));
	}
}

/* ---- incremental updates ------------------------------------------------- */

static uint16_t hdr_csum(uint8_t *h, size_t len, size_t field)
{
	h[field] = 0;
	h[field + 1] = 0;
	return voff_csum_fold(voff_csum_naive(h, len, 0));
}

static void t_rfc1624_example(void)
{
	/* RFC 1624 section 4: HC 0xdd2f, m 0x5555 -> m' 0x3285 gives 0. */
	CHECK_EQ(voff_csum_update16(mem16(0xdd, 0x2f), mem16(0x55, 0x55),
				    mem16(0x32, 0x85)), 0);
}

static void t_update16_random(void)
{
	uint8_t h[60];
	int r;

	for (r = 0; r < 20000; r++) {
		size_t len = 20 + 4 * (check_rand() % 11);
		size_t field = 2 * (check_rand() % (len / 2 - 1));
		size_t ck = 10;
		uint16_t check, old, new;

		if (field == ck)
			field += 2;
		fill(h, len);
		check = hdr_csum(h, len, ck);
		memcpy(h + ck, &check, 2);
		old = get16(h + field);
		new = (r & 7) ? (uint16_t)check_rand() : old;
		memcpy(h + field, &new, 2);
		CHECK_EQ(voff_csum_update16(check, old, new),
			 hdr_csum(h, len, ck));
	}
}

static void t_update32_random(void)
{
	uint8_t h[60];
	int r;

	for (r = 0; r < 20000; r++) {
		/* A TCP-like header: check at 16, fields at any 4-byte slot. */
		size_t len = 20 + 4 * (check_rand() % 11);
		size_t field = 4 * (check_rand() % (len / 4));
		size_t ck = 16;
		uint32_t old, new;
		uint16_t check;

		if (field == ck)
			field = 4;
		fill(h, len);
		check = hdr_csum(h, len, ck);
		memcpy(h + ck, &check, 2);
		memcpy(&old, h + field, 4);
		new = (r & 7) ? rand32() : old;
		memcpy(h + field, &new, 4);
		CHECK_EQ(voff_csum_update32(check, old, new),
			 hdr_csum(h, len, ck));
	}
}

/* ---- pseudo-headers and completion --------------------------------------- */

static void t_pseudo_v4_tcp_frame(void)
{
	const uint8_t *ip = tcp4_frame + TCP4_L3;
	uint8_t f[sizeof(tcp4_frame)];
	uint32_t len = sizeof(f) - TCP4_L4;
	uint32_t ph = voff_csum_pseudo_v4(ip + 12, ip + 16, 6, len);

	/* By hand: c0a8+010a+5db8+d822+0006+0026 = 0xf7b9; ~ = 0x0846. */
	CHECK_EQ(voff_csum_fold(ph), mem16(0x08, 0x46));
	/* A frame with a right checksum sums to 0xFFFF with its pseudo-header. */
	CHECK_EQ(voff_csum_fold(voff_csum(tcp4_frame + TCP4_L4, len, ph)), 0);
	memcpy(f, tcp4_frame, sizeof(f));
	f[TCP4_CHECK] = 0;
	f[TCP4_CHECK + 1] = 0;
	CHECK_EQ(voff_csum_fold(voff_csum(f + TCP4_L4, len, ph)),
		 mem16(0x5f, 0xb2));
}

static void t_pseudo_v6_udp_frame(void)
{
	const uint8_t *ip = udp6_frame + UDP6_L3;
	uint8_t f[sizeof(udp6_frame)];
	uint32_t len = sizeof(f) - UDP6_L4;
	uint32_t ph = voff_csum_pseudo_v6(ip + 8, ip + 24, 17, len);

	/* By hand: 2001+0db8+1+2001+0db8+2+0011+0013 = 0x5b99; ~ = 0xa466. */
	CHECK_EQ(voff_csum_fold(ph), mem16(0xa4, 0x66));
	CHECK_EQ(voff_csum_fold(voff_csum(udp6_frame + UDP6_L4, len, ph)), 0);
	memcpy(f, udp6_frame, sizeof(f));
	f[UDP6_CHECK] = 0;
	f[UDP6_CHECK + 1] = 0;
	CHECK_EQ(voff_csum_fold(voff_csum(f + UDP6_L4, len, ph)),
		 mem16(0xfd, 0x66));
}

/* Seed the field as a sender with checksum offload does: ~fold(pseudo). */
static void seed_partial(uint8_t *f, size_t check, uint32_t ph)
{
	uint16_t seed = (uint16_t)~voff_csum_fold(ph);

	memcpy(f + check, &seed, 2);
}

static void t_complete_at_frames(void)
{
	uint8_t f[sizeof(udp6_frame)];
	const uint8_t *ip;

	memcpy(f, tcp4_frame, sizeof(tcp4_frame));
	ip = f + TCP4_L3;
	seed_partial(f, TCP4_CHECK,
		     voff_csum_pseudo_v4(ip + 12, ip + 16, 6,
					 sizeof(tcp4_frame) - TCP4_L4));
	CHECK_OK(voff_csum_complete_at(f, sizeof(tcp4_frame), TCP4_L4, 16));
	CHECK_MEM_EQ(f, tcp4_frame, sizeof(tcp4_frame));

	memcpy(f, udp6_frame, sizeof(udp6_frame));
	ip = f + UDP6_L3;
	seed_partial(f, UDP6_CHECK,
		     voff_csum_pseudo_v6(ip + 8, ip + 24, 17,
					 sizeof(udp6_frame) - UDP6_L4));
	CHECK_OK(voff_csum_complete_at(f, sizeof(udp6_frame), UDP6_L4, 6));
	CHECK_MEM_EQ(f, udp6_frame, sizeof(udp6_frame));
}

static void t_complete_at_zero_becomes_ffff(void)
{
	/* Bytes sum to 0xffff, so the folded checksum is 0: stored 0xffff. */
	uint8_t b[6] = { 0xAA, 0xAA, 0x55, 0x55, 0x00, 0x00 };

	CHECK_OK(voff_csum_complete_at(b, 6, 0, 4));
	CHECK_EQ(b[4], 0xFF);
	CHECK_EQ(b[5], 0xFF);
	/* Still a valid checksum: the range now sums to 0xffff + 0xffff. */
	CHECK_EQ(voff_csum_fold(voff_csum(b, 6, 0)), 0);
	/* With a start past 0 and an odd range length. */
	{
		uint8_t c[9] = { 0x11, 0xAA, 0xAA, 0x00, 0x00, 0x55, 0x55,
				 0x00, 0x00 };

		CHECK_OK(voff_csum_complete_at(c, 8, 1, 2));
		CHECK_EQ(c[3], 0xFF);
		CHECK_EQ(c[4], 0xFF);
	}
}

static void t_complete_at_out_of_range(void)
{
	static const struct {
		size_t len, start, offset;
	} bad[] = {
		{ 10, 11, 0 },		/* start past the end */
		{ 10, 10, 0 },		/* no room for the field */
		{ 10, 8, 1 },		/* field crosses the end */
		{ 10, 0, 9 },
		{ 10, 2, 8 },
		{ 10, 0, SIZE_MAX },	/* offsets that would wrap */
		{ 10, SIZE_MAX, 2 },
		{ 10, 4, SIZE_MAX - 3 },
		{ 0, 0, 0 },
	};
	uint8_t b[16], ref[16];
	unsigned int i;

	fill(b, sizeof(b));
	memcpy(ref, b, sizeof(b));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(voff_csum_complete_at(b, bad[i].len, bad[i].start,
					       bad[i].offset), -EINVAL);
		CHECK_MEM_EQ(b, ref, sizeof(b));
	}
	/* The last two bytes are a legal place for the field. */
	CHECK_OK(voff_csum_complete_at(b, 10, 2, 6));
	CHECK_MEM_EQ(b, ref, 8);
}

static void init_pkt(struct voff_pkt *p, uint8_t *buf, uint32_t len)
{
	memset(p, 0, sizeof(*p));
	p->buf = buf;
	p->buf_size = len + 8;
	p->data_off = 8;
	p->len = len;
	p->csum = VOFF_CSUM_PARTIAL;
	p->csum_start = TCP4_L4;
	p->csum_offset = 16;
}

static void t_pkt_csum_complete(void)
{
	uint8_t buf[8 + sizeof(tcp4_frame)], ref[sizeof(buf)];
	uint8_t *f = buf + 8;
	const uint8_t *ip = f + TCP4_L3;
	struct voff_pkt p;

	memcpy(f, tcp4_frame, sizeof(tcp4_frame));
	seed_partial(f, TCP4_CHECK,
		     voff_csum_pseudo_v4(ip + 12, ip + 16, 6,
					 sizeof(tcp4_frame) - TCP4_L4));
	memcpy(ref, buf, sizeof(buf));

	/* A field outside the data is refused, the state kept. */
	init_pkt(&p, buf, sizeof(tcp4_frame));
	p.csum_offset = (uint16_t)(sizeof(tcp4_frame) - TCP4_L4 - 1);
	CHECK_EQ(voff_pkt_csum_complete(&p), -EINVAL);
	CHECK_EQ(p.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(p.csum_start, TCP4_L4);
	CHECK_MEM_EQ(buf, ref, sizeof(buf));
	init_pkt(&p, buf, sizeof(tcp4_frame));
	p.csum_start = (uint16_t)(sizeof(tcp4_frame) + 1);
	CHECK_EQ(voff_pkt_csum_complete(&p), -EINVAL);
	CHECK_EQ(p.csum, VOFF_CSUM_PARTIAL);
	CHECK_MEM_EQ(buf, ref, sizeof(buf));

	/* Other states: nothing to do. */
	init_pkt(&p, buf, sizeof(tcp4_frame));
	p.csum = VOFF_CSUM_VALID;
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_EQ(p.csum, VOFF_CSUM_VALID);
	CHECK_EQ(p.csum_start, TCP4_L4);
	p.csum = VOFF_CSUM_NONE;
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_MEM_EQ(buf, ref, sizeof(buf));

	/* Partial: completed in the bytes, the state becomes NONE. */
	init_pkt(&p, buf, sizeof(tcp4_frame));
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_EQ(p.csum, VOFF_CSUM_NONE);
	CHECK_EQ(p.csum_start, 0);
	CHECK_EQ(p.csum_offset, 0);
	CHECK_EQ(p.len, sizeof(tcp4_frame));
	CHECK_MEM_EQ(f, tcp4_frame, sizeof(tcp4_frame));
	CHECK_MEM_EQ(buf, ref, 8);

	/* Done twice: the second call has nothing to do. */
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_MEM_EQ(f, tcp4_frame, sizeof(tcp4_frame));
}

/* UDP over IPv6, odd length, and a sum of 0 stored as 0xFFFF. */
static void t_pkt_csum_complete_udp(void)
{
	uint8_t buf[8 + sizeof(udp6_frame)];
	uint8_t *f = buf + 8;
	const uint8_t *ip = f + UDP6_L3;
	uint8_t z[8 + 6] = { 0 };
	struct voff_pkt p;

	memcpy(f, udp6_frame, sizeof(udp6_frame));
	seed_partial(f, UDP6_CHECK,
		     voff_csum_pseudo_v6(ip + 8, ip + 24, 17,
					 sizeof(udp6_frame) - UDP6_L4));
	init_pkt(&p, buf, sizeof(udp6_frame));
	p.csum_start = UDP6_L4;
	p.csum_offset = 6;
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_EQ(p.csum, VOFF_CSUM_NONE);
	CHECK_MEM_EQ(f, udp6_frame, sizeof(udp6_frame));

	/* Bytes summing to 0xFFFF: the folded 0 is stored as 0xFFFF. */
	memcpy(z + 8, (const uint8_t[]){ 0xAA, 0xAA, 0x55, 0x55, 0, 0 }, 6);
	init_pkt(&p, z, 6);
	p.csum_start = 0;
	p.csum_offset = 4;
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_EQ(z[8 + 4], 0xFF);
	CHECK_EQ(z[8 + 5], 0xFF);
}

/*
 * A GSO super-packet, as GRO hands it out: the checksum of the whole
 * frame (its seed covers the whole L4 length), the GSO metadata kept.
 * The expected field comes from the byte-wise twin, the field zeroed.
 */
static void t_pkt_csum_complete_gso(void)
{
	enum { PAY = 3 * 1448 - 100, LEN = TCP4_L4 + 20 + PAY };
	static uint8_t buf[8 + LEN], ref[8 + LEN];
	uint8_t *f = buf + 8;
	uint8_t *ip = f + TCP4_L3;
	uint16_t want, got;
	struct voff_pkt p;

	memcpy(f, tcp4_frame, TCP4_L4 + 20);
	fill(f + TCP4_L4 + 20, PAY);
	ip[2] = (uint8_t)((LEN - TCP4_L3) >> 8);
	ip[3] = (uint8_t)(LEN - TCP4_L3);
	memset(f + TCP4_CHECK, 0, 2);
	want = voff_csum_fold(voff_csum_naive(
		f + TCP4_L4, LEN - TCP4_L4,
		voff_csum_pseudo_v4(ip + 12, ip + 16, 6, LEN - TCP4_L4)));
	if (!want)
		want = 0xFFFF;
	seed_partial(f, TCP4_CHECK,
		     voff_csum_pseudo_v4(ip + 12, ip + 16, 6, LEN - TCP4_L4));
	memcpy(ref, buf, sizeof(buf));

	init_pkt(&p, buf, LEN);
	p.gso_type = VOFF_GSO_TCPV4;
	p.gso_size = 1448;
	p.gso_segs = 3;
	p.hdr_len = TCP4_L4 + 20;
	CHECK_OK(voff_pkt_csum_complete(&p));
	CHECK_EQ(p.csum, VOFF_CSUM_NONE);
	CHECK_EQ(p.csum_start, 0);
	CHECK_EQ(p.csum_offset, 0);
	CHECK_EQ(p.gso_type, VOFF_GSO_TCPV4);
	CHECK_EQ(p.gso_size, 1448);
	CHECK_EQ(p.gso_segs, 3);
	CHECK_EQ(p.hdr_len, TCP4_L4 + 20);
	CHECK_EQ(p.len, LEN);
	memcpy(&got, f + TCP4_CHECK, 2);
	CHECK_EQ(got, want);
	CHECK_MEM_EQ(buf, ref, 8 + TCP4_CHECK);
	CHECK_MEM_EQ(buf + 8 + TCP4_CHECK + 2, ref + 8 + TCP4_CHECK + 2,
		     LEN - TCP4_CHECK - 2);
	CHECK_EQ(voff_csum_fold(voff_csum_naive(
			 f + TCP4_L4, LEN - TCP4_L4,
			 voff_csum_pseudo_v4(ip + 12, ip + 16, 6,
					     LEN - TCP4_L4))), 0);

	/* A GSO packet whose field lies outside the data: refused. */
	memcpy(buf, ref, sizeof(buf));
	init_pkt(&p, buf, LEN);
	p.gso_type = VOFF_GSO_TCPV4;
	p.gso_size = 1448;
	p.csum_start = LEN - 1;
	CHECK_EQ(voff_pkt_csum_complete(&p), -EINVAL);
	CHECK_EQ(p.csum, VOFF_CSUM_PARTIAL);
	CHECK_EQ(p.gso_type, VOFF_GSO_TCPV4);
	CHECK_MEM_EQ(buf, ref, sizeof(buf));
}

/* ---- IPv4 header --------------------------------------------------------- */

static void t_ipv4_hdr_known(void)
{
	/* A common textbook header: 192.168.0.1 -> 192.168.0.199, 0xb861. */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
			  0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01,
			  0xc0, 0xa8, 0x00, 0xc7 };

	CHECK_EQ(voff_csum_ipv4_hdr(h, 20), mem16(0xb8, 0x61));
	CHECK(voff_csum_ipv4_hdr_ok(h, 20));
	/* The stored field does not influence the computation. */
	h[10] = 0x12;
	CHECK_EQ(voff_csum_ipv4_hdr(h, 20), mem16(0xb8, 0x61));
	CHECK(!voff_csum_ipv4_hdr_ok(h, 20));
	h[10] = 0xb8;
	h[15] ^= 0x40;
	CHECK(!voff_csum_ipv4_hdr_ok(h, 20));

	/* The header of the TCP frame above, as tshark saw it. */
	CHECK_EQ(voff_csum_ipv4_hdr(tcp4_frame + TCP4_L3, 20),
		 mem16(0x26, 0xeb));
	CHECK(voff_csum_ipv4_hdr_ok(tcp4_frame + TCP4_L3, 20));
}

static void t_ipv4_hdr_options(void)
{
	uint8_t h[60];
	size_t ihl;

	for (ihl = 20; ihl <= 60; ihl += 4) {
		uint16_t c;

		fill(h, sizeof(h));
		h[0] = (uint8_t)(0x40 | ihl / 4);
		c = voff_csum_ipv4_hdr(h, ihl);
		memcpy(h + 10, &c, 2);
		CHECK(voff_csum_ipv4_hdr_ok(h, ihl));
		CHECK_EQ(c, hdr_csum(h, ihl, 10));
	}
}

CHECK_MAIN(CHECK_TEST(t_rfc1071_example), CHECK_TEST(t_fold_and_add),
	   CHECK_TEST(t_impl_is_best_usable),
	   CHECK_TEST(t_every_length_and_alignment),
	   CHECK_TEST(t_copy_every_length_and_alignment),
	   CHECK_TEST(t_no_overread), CHECK_TEST(t_copy_src_dst_alignments),
	   CHECK_TEST(t_copy_no_overrun), CHECK_TEST(t_64k_buffers),
	   CHECK_TEST(t_large_buffer), CHECK_TEST(t_block_add),
	   CHECK_TEST(t_rfc1624_example), CHECK_TEST(t_update16_random),
	   CHECK_TEST(t_update32_random), CHECK_TEST(t_pseudo_v4_tcp_frame),
	   CHECK_TEST(t_pseudo_v6_udp_frame), CHECK_TEST(t_complete_at_frames),
	   CHECK_TEST(t_complete_at_zero_becomes_ffff),
	   CHECK_TEST(t_complete_at_out_of_range),
	   CHECK_TEST(t_pkt_csum_complete),
	   CHECK_TEST(t_pkt_csum_complete_udp),
	   CHECK_TEST(t_pkt_csum_complete_gso), CHECK_TEST(t_ipv4_hdr_known),
	   CHECK_TEST(t_ipv4_hdr_options))
