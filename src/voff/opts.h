/* SPDX-License-Identifier: MIT */
/*
 * opts.h - one command-line loop for the subcommands: getopt_long() with
 * --help, unknown options and the operand count handled one way
 *
 * A subcommand describes its line in a struct opts_spec and handles its
 * own options in a callback; what is common (help on standard output and
 * exit 0; an unknown option, a bad value or a wrong number of operands on
 * standard error and exit 2, as voff(1) says) is done here.
 */
#ifndef VOFF_CMD_OPTS_H
#define VOFF_CMD_OPTS_H

#include <getopt.h>
#include <stdio.h>

/**
 * struct opts_spec - a subcommand's command line
 * @cmd:	the subcommand as messages name it ("voff gso")
 * @shortopts:	as getopt_long(); must contain 'h'
 * @longopts:	as getopt_long(); "help" must map to 'h'
 * @usage:	prints the usage text on a stream
 * @one:	handles option @c (its value in optarg): Return 0, or -1
 *		after printing what is wrong
 * @ctx:	passed to @one
 * @operands:	how many operands the subcommand takes, -1 for any
 * @expected:	what they are, for the message ("IN.pcap and OUT.pcap")
 */
struct opts_spec {
	const char *cmd;
	const char *shortopts;
	const struct option *longopts;
	void (*usage)(FILE *f);
	int (*one)(void *ctx, int c);
	void *ctx;
	int operands;
	const char *expected;
};

/**
 * opts_parse() - parse @argv's options; optind is then the first operand
 * Return: -1 to go on; otherwise the exit status to return at once:
 * VOFF_EXIT_OK after --help, VOFF_EXIT_USAGE after a usage error (said).
 */
int opts_parse(const struct opts_spec *spec, int argc, char **argv);

#endif /* VOFF_CMD_OPTS_H */
