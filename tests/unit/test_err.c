/* SPDX-License-Identifier: MIT */
/*
 * test_err.c - voff_strerror(), voff_err_name() and voff_err_is_voff()
 *
 * err.h promises a static, non-NULL string for any int and a predicate
 * that is false for everything but VOFF_E_* codes; these tests pin the
 * edges of the code ranges, INT_MIN included (negating it is undefined
 * behaviour, so it must never be negated).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <voff/err.h>

#include "check.h"

static void t_ranges(void)
{
	CHECK(!voff_err_is_voff(0));
	CHECK(!voff_err_is_voff(1));
	CHECK(!voff_err_is_voff(-EINVAL));
	CHECK(!voff_err_is_voff(-VOFF_E_BASE));
	CHECK(voff_err_is_voff(VOFF_E_TRUNC_ETH));
	CHECK(voff_err_is_voff(-(VOFF__E_LAST - 1)));
	CHECK(!voff_err_is_voff(-VOFF__E_LAST));
	CHECK(!voff_err_is_voff(INT_MIN));
	CHECK(!voff_err_is_voff(INT_MAX));
}

static void t_names(void)
{
	CHECK_STR_EQ(voff_err_name(0), "ok");
	CHECK_STR_EQ(voff_err_name(-EINVAL), "einval");
	CHECK_STR_EQ(voff_err_name(-EDOM), "errno");
	CHECK_STR_EQ(voff_err_name(VOFF_E_TRUNC_ETH), "trunc_eth");
	CHECK_STR_EQ(voff_err_name(VOFF_E_VNET_HASH_REPORT),
		     "vnet_hash_report");
	CHECK_STR_EQ(voff_err_name(-VOFF__E_LAST), "unknown");
	CHECK_STR_EQ(voff_err_name(INT_MIN), "unknown");
	CHECK_STR_EQ(voff_err_name(EINVAL), "unknown");
}

static void t_messages(void)
{
	CHECK_STR_EQ(voff_strerror(0), "success");
	CHECK_STR_EQ(voff_strerror(-ENOENT), strerror(ENOENT));
	CHECK_STR_EQ(voff_strerror(VOFF_E_TRUNC_ETH),
		     "frame shorter than an Ethernet header");
	CHECK_STR_EQ(voff_strerror(-VOFF__E_LAST), "unknown error");
	CHECK_STR_EQ(voff_strerror(INT_MIN), "unknown error");
	CHECK_STR_EQ(voff_strerror(INT_MAX), "unknown error");
}

CHECK_MAIN(CHECK_TEST(t_ranges), CHECK_TEST(t_names), CHECK_TEST(t_messages))
