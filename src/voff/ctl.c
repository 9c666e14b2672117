/* SPDX-License-Identifier: MIT */
/*
 * ctl.c - `voff ctl`: send one request line to a running `voff switch`
 * and print its reply; exit 1 when the switch answered with an error
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/voff.h>

#include "cmd.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2

static void usage(FILE *f)
{
	fprintf(f,
		"usage: voff ctl [--ctl PATH] [-j] COMMAND [ARGS]\n\n"
		"  ports | ports add SPEC | ports del PORT\n"
		"  features PORT [NAME on|off ...]\n"
		"  limits PORT [NAME VALUE ...]   (gso_max_size gso_max_segs "
		"gro_max_size\n"
		"                                  gro_flush_timeout)\n"
		"  stats [PORT] | fdb | help\n\n"
		"--ctl PATH  the switch's control socket (default %s)\n"
		"-j          JSON reply\n",
		VOFF_CTL_DEFAULT);
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

int ctl_main(int argc, char **argv)
{
	char req[VOFF_SWITCH_CTL_MAX + 2], buf[4096];
	const char *path = VOFF_CTL_DEFAULT;
	size_t len = 0, got = 0;
	bool error = false;
	int i = 1, fd;

	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--ctl") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else
			break;
	}
	if (i == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* The words joined by spaces, ended by a newline. */
	for (; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 1 > VOFF_SWITCH_CTL_MAX) {
			fprintf(stderr, "voff ctl: request too long\n");
			return EXIT_USAGE;
		}
		memcpy(req + len, argv[i], n);
		len += n;
		req[len++] = i + 1 < argc ? ' ' : '\n';
	}
	fd = connect_to(path);
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
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		if (!got && (!strncmp(buf, "error:", 6) ||
			     !strncmp(buf, "{\"error\"", 8)))
			error = true;
		got += (size_t)n;
		fwrite(buf, 1, (size_t)n, error ? stderr : stdout);
	}
	close(fd);
	return error ? EXIT_FAIL : 0;
}
