/* SPDX-License-Identifier: MIT */
/*
 * fuzz_feat_text.c - libFuzzer target for the `ethtool -k` / `-K` text
 * parsers of feat_text.c
 *
 * Properties: no crash on any input; text that parses prints back to text
 * that parses to the same device (every printed feature keeps its state,
 * its fixed mark and its request); request words either parse or name the
 * offending word.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/feat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bits ethtool -k shows: all but the hidden ones. */
static uint64_t visible(void)
{
	return voff_feat_all() & ~VOFF_F_GSO_UDP;
}

static void roundtrip(const char *text)
{
	struct voff_feat_dev a, b;
	static char out[16384];
	FILE *f;
	uint64_t v = visible();

	if (voff_feat_parse_ethtool(text, &a, NULL))
		return;
	f = fmemopen(out, sizeof(out), "w");
	if (!f)
		return;
	voff_feat_print(f, "fuzz", &a);
	fclose(f);
	if (voff_feat_parse_ethtool(out, &b, NULL) ||
	    (a.active & v) != (b.active & v) || (a.hw & v) != (b.hw & v) ||
	    (a.wanted & a.hw & v) != (b.wanted & b.hw & v))
		abort();
}

static void requests(char *text)
{
	char *argv[64], *save = NULL, *tok;
	int argc = 0, bad = -1, rc;
	uint64_t mask = 0, on = 0;

	for (tok = strtok_r(text, " \t\n", &save); tok && argc < 64;
	     tok = strtok_r(NULL, " \t\n", &save))
		argv[argc++] = tok;
	rc = voff_feat_parse_requests(argv, argc, &mask, &on, &bad);
	if (rc && (bad < 0 || bad > argc))
		abort();
	if (!rc && (on & ~mask))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	roundtrip(text);
	requests(text);
	free(text);
	return 0;
}
