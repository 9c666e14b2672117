/* SPDX-License-Identifier: MIT */
/*
 * opts.c - the subcommands' one command-line loop (opts.h)
 */
#include "cmd.h"
#include "opts.h"

int opts_parse(const struct opts_spec *spec, int argc, char **argv)
{
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, spec->shortopts, spec->longopts,
				NULL)) != -1) {
		if (c == 'h') {
			spec->usage(stdout);
			return VOFF_EXIT_OK;
		}
		if (c == '?') {		/* getopt said what */
			spec->usage(stderr);
			return VOFF_EXIT_USAGE;
		}
		if (spec->one(spec->ctx, c))
			return VOFF_EXIT_USAGE;
	}
	if (spec->operands >= 0 && argc - optind != spec->operands) {
		fprintf(stderr, "%s: expected %s\n", spec->cmd,
			spec->expected);
		spec->usage(stderr);
		return VOFF_EXIT_USAGE;
	}
	return -1;
}
