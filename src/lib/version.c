/* SPDX-License-Identifier: MIT */
/*
 * version.c - voff_version(): the version of the library actually linked,
 * which may differ from the VOFF_VERSION a program was compiled against.
 */
#include <voff/voff.h>

const char *voff_version(void)
{
	return VOFF_VERSION;
}
