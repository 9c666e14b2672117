/* SPDX-License-Identifier: MIT */
/*
 * switch.c - `voff switch`: run a struct voff_switch over the ports given
 * on the command line, answering `voff ctl` on a UNIX socket, until
 * SIGINT or SIGTERM; everything it created goes away with it
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/voff.h>

#include "cmd.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define MAX_SPECS VOFF_SWITCH_MAX_PORTS

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: voff switch --port SPEC [--port SPEC ...]\n"
		"                   [--ctl PATH] [--no-propagate] [--daemon]\n\n"
		"SPEC: tap:NAME[@NETNS] | tun:NAME[@NETNS] | "
		"packet:IFNAME[@NETNS] | pcap:FILE\n"
		"      followed by ,OPTION=VALUE: gro=on|off, "
		"gro_flush_timeout=NS,\n"
		"      gso_max_size=N, gso_max_segs=N, gro_max_size=N, "
		"sink=FILE (pcap)\n"
		"--ctl PATH      control socket (default %s)\n"
		"--no-propagate  leave the TAP/TUN devices' gso limits alone\n"
		"--daemon        detach once the ports are up\n",
		VOFF_CTL_DEFAULT);
}

static int ctl_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, probe;

	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	/* A socket nobody answers on is stale: replace it. */
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 &&
	    connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(probe);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	old = umask(077);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    chmod(path, 0600) < 0 || listen(fd, 8) < 0) {
		int err = -errno;

		umask(old);
		close(fd);
		return err;
	}
	umask(old);
	return fd;
}

/* One request per connection: read a line, answer, close. */
static void ctl_serve(struct voff_switch *sw, int lfd)
{
	struct timeval tv = { 0, 200000 };
	char req[VOFF_SWITCH_CTL_MAX + 2];
	char *reply = NULL;
	size_t len = 0, rlen = 0;
	FILE *f;
	int c;

	c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (len < sizeof(req)) {
		ssize_t n = read(c, req + len, sizeof(req) - len);

		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(req, '\n', len))
			break;
	}
	f = open_memstream(&reply, &rlen);
	if (f) {
		char *nl = memchr(req, '\n', len);

		voff_switch_ctl(sw, req, nl ? (size_t)(nl - req) : len, f);
		fclose(f);
		for (size_t off = 0; off < rlen;) {
			ssize_t n = write(c, reply + off, rlen - off);

			if (n <= 0)
				break;
			off += (size_t)n;
		}
		free(reply);
	}
	close(c);
}

static int loop(struct voff_switch *sw, int lfd)
{
	struct pollfd pfd[2] = {
		{ .fd = voff_switch_fd(sw), .events = POLLIN },
		{ .fd = lfd, .events = POLLIN },
	};

	while (!stop) {
		int n = poll(pfd, 2, voff_switch_timeout_ms(sw));

		if (n < 0 && errno != EINTR) {
			perror("voff switch: poll");
			return EXIT_FAIL;
		}
		if (stop)
			break;
		voff_switch_poll(sw, 0);
		if (n > 0 && (pfd[1].revents & POLLIN))
			ctl_serve(sw, lfd);
	}
	return 0;
}

int switch_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "no-propagate", no_argument, NULL, 'P' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct voff_switch_config cfg = { 0 };
	const char *specs[MAX_SPECS], *ctl = VOFF_CTL_DEFAULT;
	struct sigaction sa = { .sa_handler = on_signal };
	struct voff_switch *sw;
	int nspecs = 0, opt, err, lfd, rc = EXIT_FAIL;
	bool daemonize = false;

	while ((opt = getopt_long(argc, argv, "p:c:Pdh", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (nspecs == MAX_SPECS) {
				fprintf(stderr,
					"voff switch: too many ports\n");
				return EXIT_USAGE;
			}
			specs[nspecs++] = optarg;
			break;
		case 'c':
			ctl = optarg;
			break;
		case 'P':
			cfg.no_propagate = true;
			break;
		case 'd':
			daemonize = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !nspecs) {
		usage(stderr);
		return EXIT_USAGE;
	}
	err = voff_switch_new(&sw, &cfg);
	if (err) {
		fprintf(stderr, "voff switch: %s\n", voff_strerror(err));
		return EXIT_FAIL;
	}
	for (int i = 0; i < nspecs; i++) {
		err = voff_switch_add_spec(sw, specs[i], NULL);
		if (err) {
			fprintf(stderr, "voff switch: port %s: %s\n", specs[i],
				voff_strerror(err));
			goto err_ports;
		}
	}
	if (!strncmp(ctl, "/run/voff/", 10))
		mkdir("/run/voff", 0700);
	lfd = ctl_listen(ctl);
	if (lfd < 0) {
		fprintf(stderr, "voff switch: control socket %s: %s\n", ctl,
			voff_strerror(lfd));
		goto err_ports;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Keep the directory: relative --ctl and pcap paths stay valid. */
	if (daemonize && daemon(1, 0) < 0) {
		perror("voff switch: daemon");
		goto err_daemon;
	}
	rc = loop(sw, lfd);
err_daemon:
	close(lfd);
	unlink(ctl);
err_ports:
	voff_switch_free(sw);
	return rc;
}
