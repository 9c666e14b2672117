/* SPDX-License-Identifier: MIT */
/*
 * num.c - the one number parser of the voff command (the rule is in
 * num.h)
 *
 * Written out by hand rather than over strtoul(), whose base 0 reads a
 * leading 0 as octal, which skips leading blanks, accepts a sign (and
 * negates "-1" into the largest value) and signals overflow through errno.
 * Depends on nothing but libc, so the unit test compiles it alone.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "num.h"

/* Value of hex digit @c, or -1. */
static int digit(char c, unsigned int base)
{
	int v = -1;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	return v >= 0 && (unsigned int)v < base ? v : -1;
}

/*
 * Digits of @s in @base, all of them, at least one.  Return: 0, -EINVAL,
 * or -ERANGE past 64 bits (only once the whole text is known to be a
 * number, so "99999999999999999999x" is a syntax error).
 */
static int digits(const char *s, unsigned int base, uint64_t *out)
{
	bool over = false;
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		int d = digit(*s, base);

		if (d < 0)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			over = true;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return over ? -ERANGE : 0;
}

int num_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	bool neg = false;
	uint64_t v;
	int err;

	if (!s)
		return -EINVAL;
	if (s[0] == '-') {
		neg = true;
		s++;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		err = digits(s + 2, 16, &v);
	else
		err = digits(s, 10, &v);
	if (err)
		return err;
	if ((neg && v) || v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int num_opt(const char *cmd, const char *opt, const char *s, uint64_t lo,
	    uint64_t hi, uint64_t *out)
{
	int err = num_parse(s, lo, hi, out);

	if (err == -ERANGE)
		fprintf(stderr, "%s: %s: %s out of range (%llu..%llu)\n", cmd,
			opt, s, (unsigned long long)lo,
			(unsigned long long)hi);
	else if (err)
		fprintf(stderr, "%s: %s: '%s' is not a number\n", cmd, opt,
			s ? s : "");
	return err;
}

int num_opt_u32(const char *cmd, const char *opt, const char *s, uint32_t lo,
		uint32_t hi, uint32_t *out)
{
	uint64_t v;
	int err = num_opt(cmd, opt, s, lo, hi, &v);

	if (!err)
		*out = (uint32_t)v;
	return err;
}
