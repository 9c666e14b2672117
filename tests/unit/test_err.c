/* SPDX-License-Identifier: MIT */
/*
 * test_err.c - voff_strerror(), voff_err_name() and voff_err_is_voff()
 *
 * err.h promises a static, non-NULL string for any int and a predicate
 * that is false for everything but VOFF_E_* codes; these tests pin the
 * edges of the code ranges, INT_MIN included (negating it is undefined
 * behaviour, so it must never be negated).  They also pin the rule every
 * name function of the library shares: "?" for a value with no name.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <voff/err.h>
#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/parse.h>
#include <voff/port.h>
#include <voff/switch.h>
#include <voff/xmit.h>

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
	CHECK_STR_EQ(voff_err_name(-VOFF__E_LAST), "?");
	CHECK_STR_EQ(voff_err_name(INT_MIN), "?");
	CHECK_STR_EQ(voff_err_name(EINVAL), "?");
}

/* Every voff_*_name() answers a value it has no name for with "?". */
static void t_names_agree(void)
{
	CHECK_STR_EQ(voff_err_name(-VOFF_E_BASE), "?");
	CHECK_STR_EQ(voff_feat_name(VOFF_FEAT__COUNT), "?");
	CHECK_STR_EQ(voff_feat_name((enum voff_feat_id)-1), "?");
	CHECK_STR_EQ(voff_tun_flag_name(0), "?");
	CHECK_STR_EQ(voff_tun_flag_name(VOFF_TUN_F_ALL + 1), "?");
	CHECK_STR_EQ(voff_limit_name(VOFF_LIMIT__COUNT), "?");
	CHECK_STR_EQ(voff_limit_name((enum voff_limit)-1), "?");
	CHECK_STR_EQ(voff_proto_name(VOFF_PROTO__COUNT), "?");
	CHECK_STR_EQ(voff_port_kind_name(VOFF_PORT__KIND_COUNT), "?");
	CHECK_STR_EQ(voff_switch_drop_name(VOFF_SWITCH_DROP__COUNT), "?");
	CHECK_STR_EQ(voff_xmit_verdict_name((enum voff_xmit_verdict)99), "?");
	CHECK_STR_EQ(voff_xmit_reason_name(VOFF_XMIT_R__COUNT), "?");
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

CHECK_MAIN(CHECK_TEST(t_ranges), CHECK_TEST(t_names),
	   CHECK_TEST(t_names_agree), CHECK_TEST(t_messages))
