/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - `voff ctl`: send one request line to a running `voff switch`
 * and print its reply; exit 1 when the switch answered with an error,
 * 2 for a usage error found before connecting
 *
 * The client's own options come first and are checked here: an unknown
 * one is a usage error, never sent.  The words after them are the request
 * (switch_ctl.c in the library parses it); an error reply "error: MSG" is
 * printed as "voff ctl: MSG" on standard error, a JSON one as it came.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/voff.h>

#include "cmd.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2

/*
 * The help of the requests is the library's; `voff switch` always runs
 * its server with VOFF_SWITCH_CTL_DENY_FILES, so no pcap: is offered.
 */
static void usage(FILE *f)
{
	const struct voff_switch_ctl_state st = {
		.deny = VOFF_SWITCH_CTL_DENY_FILES,
	};

	fprintf(f,
		"usage: voff ctl [--ctl PATH] [-j] COMMAND [ARGS]\n\n"
		"--ctl PATH  the switch's control socket (default %s)\n"
		"-j, --json  JSON reply\n\n"
		"COMMAND:\n",
		VOFF_CTL_DEFAULT);
	voff_switch_ctl_help(f, &st);
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* "-j" (when @json), then the words joined by spaces, ended by a newline. */
static int build(char *req, size_t cap, bool json, char **words, int n,
		 size_t *len)
{
	size_t off = 0;

	if (json) {
		memcpy(req, "-j ", 3);
		off = 3;
	}
	for (int i = 0; i < n; i++) {
		size_t k = strlen(words[i]);

		if (off + k + 1 > cap)
			return -E2BIG;
		memcpy(req + off, words[i], k);
		off += k;
		req[off++] = i + 1 < n ? ' ' : '\n';
	}
	*len = off;
	return 0;
}

/* Send @req, read the whole reply into *@out (malloc'ed, NUL-ended). */
static int exchange(const char *path, const char *req, size_t len,
		    char **out, size_t *olen)
{
	char buf[4096];
	FILE *f;
	int fd = connect_to(path);

	if (fd < 0) {
		fprintf(stderr, "voff ctl: %s: %s\n", path, strerror(-fd));
		return EXIT_FAIL;
	}
	if (write(fd, req, len) != (ssize_t)len) {
		fprintf(stderr, "voff ctl: %s: write failed\n", path);
		close(fd);
		return EXIT_FAIL;
	}
	shutdown(fd, SHUT_WR);
	f = open_memstream(out, olen);
	if (!f) {
		close(fd);
		perror("voff ctl");
		return EXIT_FAIL;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		fwrite(buf, 1, (size_t)n, f);
	}
	close(fd);
	fclose(f);
	return 0;
}

/* Print a reply; Return: the exit status it means. */
static int show(const char *r, size_t len)
{
	if (!strncmp(r, "error: ", 7)) {
		fprintf(stderr, "voff ctl: %s", r + 7);
		return EXIT_FAIL;
	}
	if (!strncmp(r, "{\"error\"", 8)) {
		fwrite(r, 1, len, stderr);
		return EXIT_FAIL;
	}
	fwrite(r, 1, len, stdout);
	return fflush(stdout) ? EXIT_FAIL : 0;
}

int ctl_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctl", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char req[VOFF_SWITCH_CTL_MAX + 2];
	const char *path = VOFF_CTL_DEFAULT;
	char *reply = NULL;
	size_t len, rlen = 0;
	bool json = false;
	int opt, rc;

	opterr = 0;
	/* '+': options end at the first word of the request. */
	while ((opt = getopt_long(argc, argv, "+:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "voff ctl: %s needs a PATH\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "voff ctl: unknown option '%s' (try "
				"voff ctl --help)\n", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (build(req, VOFF_SWITCH_CTL_MAX + 1, json, argv + optind,
		  argc - optind, &len)) {
		fprintf(stderr, "voff ctl: request too long (max %d bytes)\n",
			VOFF_SWITCH_CTL_MAX);
		return EXIT_USAGE;
	}
	rc = exchange(path, req, len, &reply, &rlen);
	if (!rc)
		rc = show(reply, rlen);
	free(reply);
	return rc;
}
