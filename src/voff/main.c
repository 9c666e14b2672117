/* SPDX-License-Identifier: MIT */
/*
 * main.c - the voff command: a {name, function, help} table dispatching to
 * one file per subcommand (cmd.h).  Kept thin: all real work is in libvoff.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <voff/voff.h>

#include "cmd.h"

static const struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subcommands[] = {
	{ "inspect", inspect_main,
	  "show the layers, offsets and checksums of each frame of a capture" },
	{ "features", features_main,
	  "offload features of a device or stack, as ethtool -k prints them" },
	{ "gso", gso_main,
	  "segment the super-packets of a capture as software GSO does" },
	{ "gro", gro_main,
	  "coalesce the flows of a capture into super-packets (GRO)" },
	{ "switch", switch_main,
	  "an L2 switch between TAP, TUN, packet and pcap ports" },
	{ "ctl", ctl_main,
	  "query or change a running voff switch (ports, features, limits)" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: voff <command> [options] [args]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]);
	     i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name,
			subcommands[i].help);
	fprintf(f, "\n  voff <command> --help   options of one command "
		   "(or voff help <command>)\n"
		   "  voff --version          library version\n");
}

/*
 * Output to a full disk, a closed pipe or a broken file must not pass for
 * success: every subcommand's standard output is flushed and closed here,
 * once, and a failure is reported and turns the status into 1.
 */
static int close_stdout(const char *cmd, int rc)
{
	/* A write that failed earlier left only the error flag: no errno. */
	const char *why = ferror(stdout) ? "write error" : NULL;

	if (fflush(stdout) != 0)
		why = strerror(errno ? errno : EIO);
	if (fclose(stdout) != 0 && !why)
		why = strerror(errno ? errno : EIO);
	if (!why)
		return rc;
	fprintf(stderr, "%s: standard output: %s\n", cmd, why);
	return rc ? rc : VOFF_EXIT_FAIL;
}

static const struct subcommand *find(const char *name)
{
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]);
	     i++)
		if (!strcmp(name, subcommands[i].name))
			return &subcommands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct subcommand *sub;
	char name[32];

	if (argc < 2) {
		usage(stderr);
		return VOFF_EXIT_USAGE;
	}
	/* `voff help gso` is `voff gso --help`. */
	if (!strcmp(argv[1], "help") && argc == 3 && find(argv[2])) {
		static char help[] = "--help";

		argv[1] = argv[2];
		argv[2] = help;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return close_stdout("voff", VOFF_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("voff %s\n", voff_version());
		return close_stdout("voff", VOFF_EXIT_OK);
	}
	sub = find(argv[1]);
	if (!sub) {
		fprintf(stderr, "voff: unknown command '%s'\n\n", argv[1]);
		usage(stderr);
		return VOFF_EXIT_USAGE;
	}
	/*
	 * The subcommand's argv[0] is "voff gso": getopt's messages and the
	 * subcommand's own then all begin with the command as typed.
	 */
	snprintf(name, sizeof(name), "voff %s", sub->name);
	argv[1] = name;
	return close_stdout(name, sub->fn(argc - 1, argv + 1));
}
