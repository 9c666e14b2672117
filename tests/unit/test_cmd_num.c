/* SPDX-License-Identifier: MIT */
/*
 * test_cmd_num.c - num_parse(), the voff command's one number parser
 * (src/voff/num.c, compiled into this test alone): the rule num.h states,
 * edge by edge: bases, leading zeros, signs, blanks, suffixes, the
 * inclusive range, 64-bit overflow, and num_opt()'s messages.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../../src/voff/num.h"

#include "check.h"

/* num_parse(@s, 0, UINT64_MAX): the value, or the error as a value. */
static int64_t any(const char *s)
{
	uint64_t v = 12345;
	int err = num_parse(s, 0, UINT64_MAX, &v);

	return err ? err : (int64_t)v;
}

static void t_decimal_and_hex(void)
{
	CHECK_EQ(any("0"), 0);
	CHECK_EQ(any("1500"), 1500);
	CHECK_EQ(any("010"), 10);	/* not octal */
	CHECK_EQ(any("00000000000000000000000001"), 1);
	CHECK_EQ(any("0x10"), 16);
	CHECK_EQ(any("0XfF"), 255);
	CHECK_EQ(any("0x0"), 0);
	CHECK_EQ(any("0x00000000000000000000000002"), 2);
}

static void t_not_numbers(void)
{
	static const char *const bad[] = {
		"", "-", "0x", "-0x", "x10", "+1", " 1", "1 ", "1k", "1.5",
		"1e3", "0x1g", "0b101", "abc", "--1", "1-", "\t7", "0xx1",
		"99999999999999999999x",
	};
	uint64_t v = 77;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_MSG(num_parse(bad[i], 0, UINT64_MAX, &v) == -EINVAL,
			  "'%s' accepted", bad[i]);
		CHECK_EQ(v, 77);	/* untouched on failure */
	}
	CHECK_EQ(num_parse(NULL, 0, 1, &v), -EINVAL);
}

static void t_range(void)
{
	uint64_t v = 0;

	CHECK_OK(num_parse("1", 1, 65534, &v));
	CHECK_EQ(v, 1);
	CHECK_OK(num_parse("65534", 1, 65534, &v));
	CHECK_EQ(v, 65534);
	CHECK_EQ(num_parse("0", 1, 65534, &v), -ERANGE);
	CHECK_EQ(num_parse("65535", 1, 65534, &v), -ERANGE);
	CHECK_EQ(num_parse("0xFFFF", 1, 65534, &v), -ERANGE);
	CHECK_EQ(v, 65534);
	/* Negative numbers are numbers out of range, -0 is zero. */
	CHECK_EQ(num_parse("-1", 0, 10, &v), -ERANGE);
	CHECK_EQ(num_parse("-0x1", 0, 10, &v), -ERANGE);
	CHECK_OK(num_parse("-0", 0, 10, &v));
	CHECK_EQ(v, 0);
}

static void t_64_bits(void)
{
	uint64_t v = 0;

	CHECK_OK(num_parse("18446744073709551615", 0, UINT64_MAX, &v));
	CHECK(v == UINT64_MAX);
	CHECK_OK(num_parse("0xffffffffffffffff", 0, UINT64_MAX, &v));
	CHECK(v == UINT64_MAX);
	CHECK_EQ(num_parse("18446744073709551616", 0, UINT64_MAX, &v),
		 -ERANGE);
	CHECK_EQ(num_parse("0x10000000000000000", 0, UINT64_MAX, &v),
		 -ERANGE);
	CHECK_EQ(num_parse("99999999999999999999999", 0, UINT64_MAX, &v),
		 -ERANGE);
	/* 32-bit ranges as the subcommands use them. */
	CHECK_OK(num_parse("4294967295", 0, UINT32_MAX, &v));
	CHECK_EQ(num_parse("4294967296", 0, UINT32_MAX, &v), -ERANGE);
}

/* num_opt()'s line on standard error, captured through a pipe. */
static void opt_message(const char *s, uint64_t lo, uint64_t hi, int want,
			const char *msg)
{
	char buf[256];
	uint64_t v;
	int fds[2], saved, err;
	ssize_t n;

	CHECK_OK(pipe(fds));
	saved = dup(STDERR_FILENO);
	dup2(fds[1], STDERR_FILENO);
	err = num_opt("voff gso", "--mss", s, lo, hi, &v);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	buf[n > 0 ? n : 0] = 0;
	CHECK_EQ(err, want);
	CHECK_STR_EQ(buf, msg);
}

static void t_messages(void)
{
	opt_message("65535", 1, 65534, -ERANGE,
		    "voff gso: --mss: 65535 out of range (1..65534)\n");
	opt_message("-1", 1, 65534, -ERANGE,
		    "voff gso: --mss: -1 out of range (1..65534)\n");
	opt_message("12k", 1, 65534, -EINVAL,
		    "voff gso: --mss: '12k' is not a number\n");
	opt_message("", 1, 65534, -EINVAL,
		    "voff gso: --mss: '' is not a number\n");
	opt_message("1400", 1, 65534, 0, "");
}

CHECK_MAIN(CHECK_TEST(t_decimal_and_hex), CHECK_TEST(t_not_numbers),
	   CHECK_TEST(t_range), CHECK_TEST(t_64_bits), CHECK_TEST(t_messages))
