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
 *
 * Three requests get more from the client: `save FILE` writes the reply
 * of `save` to FILE itself (the switch never opens a file a client
 * names), replacing it whole or not at all (outfile.c); `monitor` prints the events the
 * switch streams as they come, until it closes or the client is stopped;
 * `stats --prometheus` turns `-j stats`, `-j ports`, `-j limits` and
 * `-j server` into the Prometheus text format (prom.c).
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
#include "outfile.h"
#include "prom.h"


/*
 * The help of the requests is the library's; `voff switch` always runs
 * its server with VOFF_SWITCH_CTL_DENY_FILES, so no pcap: is offered.
 */
static void usage(FILE *f)
{
	const struct voff_switch_ctl_state st = {
		.deny = VOFF_SWITCH_CTL_DENY_FILES,
		.cmds = switch_ctl_cmds,
		.n_cmds = switch_ctl_ncmds,
	};

	fprintf(f,
		"usage: voff ctl [--ctl PATH] [-j] COMMAND [ARGS]\n\n"
		"--ctl PATH  the switch's control socket (default %s)\n"
		"-j, --json  JSON reply (monitor: JSON Lines)\n\n"
		"COMMAND:\n",
		VOFF_CTL_DEFAULT);
	voff_switch_ctl_help(f, &st);
	fputs("\nthe client also takes:\n"
	      "save FILE                        write the configuration to "
	      "FILE\n"
	      "                                 (replaced atomically)\n"
	      "stats [PORT] --prometheus        counters, settings as the "
	      "Prometheus\n"
	      "                                 text format\n", f);
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

/* Connect and send @req; Return: the socket, or -1 (and said why). */
static int send_req(const char *path, const char *req, size_t len)
{
	int fd = connect_to(path);

	if (fd < 0) {
		fprintf(stderr, "voff ctl: %s: %s\n", path, strerror(-fd));
		return -1;
	}
	if (write(fd, req, len) != (ssize_t)len) {
		fprintf(stderr, "voff ctl: %s: write failed\n", path);
		close(fd);
		return -1;
	}
	shutdown(fd, SHUT_WR);
	return fd;
}

/* Send @req, read the whole reply into *@out (malloc'ed, NUL-ended). */
static int exchange(const char *path, const char *req, size_t len,
		    char **out, size_t *olen)
{
	char buf[4096];
	FILE *f;
	int fd = send_req(path, req, len);

	if (fd < 0)
		return VOFF_EXIT_FAIL;
	f = open_memstream(out, olen);
	if (!f) {
		close(fd);
		perror("voff ctl");
		return VOFF_EXIT_FAIL;
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
		return VOFF_EXIT_FAIL;
	}
	if (!strncmp(r, "{\"error\"", 8)) {
		fwrite(r, 1, len, stderr);
		return VOFF_EXIT_FAIL;
	}
	fwrite(r, 1, len, stdout);
	return fflush(stdout) ? VOFF_EXIT_FAIL : 0;
}

/* One request of prom.c's: the reply of @req (a line), or an error. */
static int ask(void *ctx, const char *req, char **reply)
{
	size_t len = 0;
	int rc = exchange(ctx, req, strlen(req), reply, &len);

	if (rc)
		return -EIO;
	if (!strncmp(*reply, "{\"error\"", 8)) {
		fprintf(stderr, "voff ctl: %s", *reply);
		return -EINVAL;
	}
	return 0;
}

/*
 * `save FILE`: the reply of `save`, written to FILE whole or not at all
 * (outfile.c: a temporary file beside it, renamed over it).
 */
static int save_to(const char *path, const char *file)
{
	struct outfile o;
	char *reply = NULL;
	size_t rlen = 0;
	bool ok;
	FILE *f;
	int rc = exchange(path, "save\n", 5, &reply, &rlen);

	if (!rc && !strncmp(reply, "error: ", 7)) {
		fprintf(stderr, "voff ctl: %s", reply + 7);
		rc = VOFF_EXIT_FAIL;
	}
	if (rc || outfile_begin(&o, "voff ctl", NULL, file)) {
		free(reply);
		return VOFF_EXIT_FAIL;
	}
	f = fopen(o.write, "w");
	ok = f && fwrite(reply, 1, rlen, f) == rlen && !fflush(f) &&
	     !fsync(fileno(f));
	if (f && fclose(f))
		ok = false;
	if (!ok)
		fprintf(stderr, "voff ctl: %s: %s\n", file, strerror(errno));
	free(reply);
	return outfile_end(&o, "voff ctl", ok) ? VOFF_EXIT_FAIL : 0;
}

/*
 * `monitor`: print what comes as it comes.  An error reply comes alone,
 * before any event, and the switch closes after it.
 */
static int monitor(const char *path, const char *req, size_t len)
{
	char buf[4096];
	bool first = true;
	int fd = send_req(path, req, len), rc = 0;
	ssize_t n;

	if (fd < 0)
		return VOFF_EXIT_FAIL;
	while ((n = read(fd, buf, sizeof(buf))) > 0 ||
	       (n < 0 && errno == EINTR)) {
		if (n < 0)
			continue;
		if (first && (!strncmp(buf, "error: ", 7) ||
			      !strncmp(buf, "{\"error\"", 8))) {
			fputs("voff ctl: ", stderr);
			fwrite(buf + (*buf == 'e' ? 7 : 0), 1,
			       (size_t)n - (*buf == 'e' ? 7 : 0), stderr);
			rc = VOFF_EXIT_FAIL;
		} else if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n ||
			   fflush(stdout)) {
			rc = VOFF_EXIT_FAIL;
			break;
		}
		first = false;
	}
	close(fd);
	return rc;
}

/* Words the client takes itself; Return: -1 when the switch gets them. */
static int client_side(const char *path, char **w, int n, bool json)
{
	bool prom = false;
	int k = 0;

	if (!strcmp(w[0], "save") && n == 2)
		return save_to(path, w[1]);
	if (strcmp(w[0], "stats"))
		return -1;
	for (int i = 0; i < n; i++) {
		if (!strcmp(w[i], "--prometheus"))
			prom = true;
		else
			w[k++] = w[i];
	}
	if (!prom)
		return -1;
	if (json || k > 2) {
		fprintf(stderr, "voff ctl: usage: stats [PORT] --prometheus "
			"(no -j)\n");
		return VOFF_EXIT_USAGE;
	}
	return prom_print(stdout, k == 2 ? w[1] : NULL, ask, (void *)path) ?
		       VOFF_EXIT_FAIL : 0;
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
			return VOFF_EXIT_USAGE;
		default:
			fprintf(stderr, "voff ctl: unknown option '%s' (try "
				"voff ctl --help)\n", argv[optind - 1]);
			return VOFF_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return VOFF_EXIT_USAGE;
	}
	rc = client_side(path, argv + optind, argc - optind, json);
	if (rc >= 0)
		return rc;
	if (build(req, VOFF_SWITCH_CTL_MAX + 1, json, argv + optind,
		  argc - optind, &len)) {
		fprintf(stderr, "voff ctl: request too long (max %d bytes)\n",
			VOFF_SWITCH_CTL_MAX);
		return VOFF_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "monitor"))
		return monitor(path, req, len);
	rc = exchange(path, req, len, &reply, &rlen);
	if (!rc)
		rc = show(reply, rlen);
	free(reply);
	return rc;
}
