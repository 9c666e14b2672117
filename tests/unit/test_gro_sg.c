/* SPDX-License-Identifier: MIT */
/*
 * test_gro_sg.c - every test of test_gro.c again with the engine in
 * scatter-gather mode, outputs gathered through voff_gro_pop_sg()
 */
#define GRO_TEST_SG 1
#include "test_gro.c"
