/* SPDX-License-Identifier: MIT */
/*
 * check.c - the one random stream of a test program, and the draws made
 * from it (see check.h)
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

uint64_t check_rand(void)
{
	static uint64_t s;

	if (!s) {
		const char *e = getenv("CHECK_SEED");

		s = e ? strtoull(e, NULL, 0) : 0x9E3779B97F4A7C15ull;
		if (!s)
			s = 1;
	}
	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return s * 2685821657736338717ull;
}

void check_fill_random(void *buf, size_t n)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(check_rand() >> 56);
}

unsigned int check_rnd(unsigned int n)
{
	return (unsigned int)(check_rand() >> 33) % n;
}

bool check_chance(unsigned int pct)
{
	if (pct == 0 || pct >= 100)
		return pct != 0;
	return check_rnd(100) < pct;
}
