/* SPDX-License-Identifier: MIT */
/*
 * switch.c - `voff switch`: run a struct voff_switch over the ports given
 * on the command line, answering `voff ctl` on a UNIX socket, until
 * SIGINT or SIGTERM; everything it created goes away with it
 *
 * Once the ports are open it gives up the privileges it no longer needs
 * (isolation.c has the stages and the capability table).  The control
 * socket is made 0600 and answers only its owner's user id and root
 * (SO_PEERCRED); it never replaces anything but a stale socket, and no
 * request names a file the switch would open (pcap: ports come from the
 * command line only).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <voff/voff.h>

#include "cmd.h"
#include "isolation.h"
#include "num.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define MAX_SPECS VOFF_SWITCH_MAX_PORTS

static volatile sig_atomic_t stop;

/*
 * Connections refused for their user id never reach the library: counted
 * here and shown by the `server` request (struct voff_switch_ctl_state).
 */
static struct voff_switch_ctl_counter refused_peers = { "refused_peers", 0 };

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* SPEC and its settings, from the library's tables. */
static void usage_spec(FILE *f)
{
	const struct voff_port_spec_kind *k;
	char buf[64];

	fputs("SPEC: one of\n", f);
	for (unsigned int i = 0; (k = voff_port_spec_kind_at(i)); i++) {
		voff_port_spec_kind_usage(k, buf, sizeof(buf));
		fprintf(f, "  %s\n", buf);
	}
	fputs("followed by ,NAME=VALUE for each setting not left at its "
	      "default:\n", f);
	voff_switch_settings_print(f);
}

static void usage(FILE *f)
{
	fputs("usage: voff switch --port SPEC [--port SPEC ...]\n"
	      "                   [--ctl PATH] [--no-propagate] [--daemon]\n"
	      "                   [--drop-caps] [--seccomp] [--busy-poll USEC]"
	      "\n\n", f);
	usage_spec(f);
	fprintf(f,
		"\n--ctl PATH      control socket (default %s)\n"
		"--no-propagate  leave the TAP/TUN devices' gso limits alone\n"
		"--daemon        detach once the ports are up\n"
		"--drop-caps     drop every capability once the ports are "
		"up\n"
		"                (then `ports add` is refused)\n"
		"--seccomp       allow only the system calls the running "
		"switch makes\n"
		"--busy-poll USEC  keep polling the ports for up to USEC "
		"microseconds\n"
		"                after the last frame before sleeping "
		"(0..10000, default 0:\n"
		"                sleep at once; spinning costs a CPU, it "
		"saves wake-ups)\n",
		VOFF_CTL_DEFAULT);
}

/*
 * The default directory is the switch's own: create it 0700, and use it
 * only when it is a real directory of this user that nobody else may
 * write to (else another user could swap the socket under us).
 */
static int ctl_dir(const char *path)
{
	struct stat st;

	if (strncmp(path, "/run/voff/", 10))
		return 0;
	if (mkdir("/run/voff", 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat("/run/voff", &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return -EPERM;
	return 0;
}

static int ctl_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd, probe;

	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	/* Replace nothing but a socket: not a file, not a symlink. */
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return -EEXIST;
	/* A socket nobody answers on is stale: replace it. */
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 &&
	    connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(probe);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/*
	 * bind() makes the socket 0777 & ~umask: 0600 from the start, with
	 * no chmod() by name afterwards (which would follow a symlink).
	 */
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(fd, 8) < 0) {
		int err = -errno;

		umask(old);
		close(fd);
		return err;
	}
	umask(old);
	return fd;
}

/* Whether the peer on @c may talk to us: our own euid, or root. */
static bool peer_ok(int c, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    len != sizeof(cr)) {
		*uid = (uid_t)-1;
		return false;
	}
	*uid = cr.uid;
	return cr.uid == geteuid() || cr.uid == 0;
}

/*
 * Control connections are served without ever blocking the forwarding
 * loop: each is non-blocking, its request is gathered as it arrives, its
 * reply drains as the peer reads it, and a connection that does neither
 * within CTL_IDLE_MS is closed.  At most CTL_CONNS are open at once; the
 * listening socket is not polled while all are taken (the kernel's
 * backlog holds the next ones).
 */
#define CTL_CONNS 8
#define CTL_IDLE_MS 5000

struct ctl_conn {
	int fd;				/* -1: free slot */
	bool replying;
	size_t len;			/* request bytes read */
	char req[VOFF_SWITCH_CTL_MAX + 2];
	char *out;			/* reply (open_memstream) */
	size_t olen, off;
	uint64_t deadline_ms;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void conn_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	c->out = NULL;
	c->fd = -1;
	c->replying = false;
	c->len = c->olen = c->off = 0;
}

/* Build the reply to a complete request (or the refusal of the peer). */
static void conn_answer(struct voff_switch *sw,
			struct voff_switch_ctl_state *st, struct ctl_conn *c)
{
	char *nl = memchr(c->req, '\n', c->len);
	FILE *f = open_memstream(&c->out, &c->olen);
	uid_t uid;

	c->replying = true;
	if (!f) {
		c->out = NULL;
		c->olen = 0;
		return;
	}
	if (!peer_ok(c->fd, &uid)) {
		refused_peers.value++;
		fprintf(f, "error: permission denied: uid %ld is not the "
			"switch's owner (uid %ld)\n", (long)(int)uid,
			(long)geteuid());
		fprintf(stderr, "voff switch: refused a control connection "
			"from uid %ld\n", (long)(int)uid);
	} else {
		voff_switch_ctl_serve(sw, st, c->req,
				      nl ? (size_t)(nl - c->req) : c->len, f);
	}
	fclose(f);
}

/* Read what the peer sent; answer once a line (or EOF, or the cap) is in. */
static void conn_read(struct voff_switch *sw,
		      struct voff_switch_ctl_state *st, struct ctl_conn *c)
{
	while (c->len < sizeof(c->req)) {
		ssize_t n = read(c->fd, c->req + c->len,
				 sizeof(c->req) - c->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			conn_close(c);
			return;
		}
		if (n == 0)
			break;
		c->deadline_ms = mono_ms() + CTL_IDLE_MS;
		c->len += (size_t)n;
		if (memchr(c->req + c->len - (size_t)n, '\n', (size_t)n))
			break;
	}
	/*
	 * The whole request is read even from a peer about to be refused:
	 * closing with unread bytes resets the connection, losing the reply.
	 */
	conn_answer(sw, st, c);
}

/* Send what the peer will take; close when all is sent or on error. */
static void conn_write(struct ctl_conn *c)
{
	while (c->off < c->olen) {
		ssize_t n = write(c->fd, c->out + c->off, c->olen - c->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			break;
		c->deadline_ms = mono_ms() + CTL_IDLE_MS;
		c->off += (size_t)n;
	}
	conn_close(c);
}

static void conn_accept(struct ctl_conn *conns, int lfd)
{
	for (unsigned int i = 0; i < CTL_CONNS; i++) {
		struct ctl_conn *c = &conns[i];

		if (c->fd >= 0)
			continue;
		c->fd = accept4(lfd, NULL, NULL,
				SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c->fd < 0)
			return;
		c->deadline_ms = mono_ms() + CTL_IDLE_MS;
		return;
	}
}

static int loop(struct voff_switch *sw, struct voff_switch_ctl_state *st,
		int lfd)
{
	struct ctl_conn conns[CTL_CONNS];
	int rc = 0;

	for (unsigned int i = 0; i < CTL_CONNS; i++) {
		conns[i].fd = -1;
		conns[i].out = NULL;
		conn_close(&conns[i]);
	}
	while (!stop) {
		struct pollfd pfd[2 + CTL_CONNS];
		unsigned int slot[2 + CTL_CONNS], np = 2, nfree = 0;
		/* In ns: a GRO deadline of 20 us must not become 1 ms. */
		int64_t timeout = voff_switch_timeout_ns(sw);
		uint64_t now = mono_ms();
		struct timespec ts;
		int n;

		pfd[0] = (struct pollfd){ .fd = voff_switch_fd(sw),
					  .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = -1, .events = POLLIN };
		for (unsigned int i = 0; i < CTL_CONNS; i++) {
			struct ctl_conn *c = &conns[i];
			int64_t left;

			if (c->fd < 0) {
				nfree++;
				continue;
			}
			if (now >= c->deadline_ms) {
				conn_close(c);
				nfree++;
				continue;
			}
			left = (int64_t)(c->deadline_ms - now) * 1000000;
			if (timeout < 0 || left < timeout)
				timeout = left;
			slot[np] = i;
			pfd[np++] = (struct pollfd){
				.fd = c->fd,
				.events = c->replying ? POLLOUT : POLLIN };
		}
		if (nfree)
			pfd[1].fd = lfd;
		ts.tv_sec = timeout / 1000000000;
		ts.tv_nsec = timeout % 1000000000;
		n = ppoll(pfd, np, timeout < 0 ? NULL : &ts, NULL);
		if (n < 0 && errno != EINTR) {
			perror("voff switch: ppoll");
			rc = EXIT_FAIL;
			break;
		}
		if (stop)
			break;
		voff_switch_poll(sw, 0);
		if (n <= 0)
			continue;
		for (unsigned int k = 2; k < np; k++) {
			struct ctl_conn *c = &conns[slot[k]];

			if (!pfd[k].revents)
				continue;
			if (!c->replying)
				conn_read(sw, st, c);
			/* A reply goes out at once when the peer takes it. */
			if (c->fd >= 0 && c->replying)
				conn_write(c);
		}
		if (pfd[1].revents & POLLIN)
			conn_accept(conns, lfd);
	}
	for (unsigned int i = 0; i < CTL_CONNS; i++)
		conn_close(&conns[i]);
	return rc;
}

/* What the running switch keeps: what `ports add` may need later. */
static unsigned int caps_to_keep(const char *const *specs, int n, bool drop)
{
	unsigned int keep = ISOLATE_KEEP_NET_ADMIN | ISOLATE_KEEP_NET_RAW;

	if (drop)
		return 0;
	for (int i = 0; i < n; i++) {
		struct voff_port_spec ps;

		if (!voff_port_spec_parse(&ps, specs[i]) && ps.cfg.netns)
			keep |= ISOLATE_KEEP_SYS_ADMIN;
	}
	return keep;
}

/* Stages 3 and 4 of isolation.c; Return: 0 or an exit status. */
static int isolate(const char *const *specs, int n, bool drop, bool filter)
{
	int err;

	if (isolate_caps_available()) {
		err = isolate_caps(caps_to_keep(specs, n, drop));
		if (err) {
			fprintf(stderr, "voff switch: dropping capabilities: "
				"%s\n", voff_strerror(err));
			return EXIT_FAIL;
		}
	}
	if (filter) {
		err = isolate_seccomp(!drop);
		if (err) {
			fprintf(stderr, "voff switch: seccomp: %s\n",
				voff_strerror(err));
			return EXIT_FAIL;
		}
	}
	return 0;
}

/*
 * A malformed spec is a usage error, told before anything is opened:
 * "voff switch: --port tap:x,gro=maybe: gro: expected on or off".
 */
static int check_specs(const char *const *specs, int n)
{
	struct voff_port_spec ps;

	for (int i = 0; i < n; i++) {
		if (!voff_port_spec_parse(&ps, specs[i]))
			continue;
		fprintf(stderr, "voff switch: --port %s: %s\n", specs[i],
			ps.err);
		return EXIT_USAGE;
	}
	return 0;
}

/* Options that need a library this build lacks fail before anything. */
static int check_build(bool drop, bool filter)
{
	if (drop && !isolate_caps_available()) {
		fprintf(stderr, "voff switch: --drop-caps: this voff was "
			"built without libcap (libcap-dev)\n");
		return EXIT_USAGE;
	}
	if (filter && !isolate_seccomp_available()) {
		fprintf(stderr, "voff switch: --seccomp: this voff was "
			"built without libseccomp (libseccomp-dev)\n");
		return EXIT_USAGE;
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
		{ "drop-caps", no_argument, NULL, 'D' },
		{ "seccomp", no_argument, NULL, 'S' },
		{ "busy-poll", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct voff_switch_config cfg = { 0 };
	struct voff_switch_ctl_state st = {
		.deny = VOFF_SWITCH_CTL_DENY_FILES,
		.extra = &refused_peers,
		.n_extra = 1,
	};
	const char *specs[MAX_SPECS], *ctl = VOFF_CTL_DEFAULT;
	struct sigaction sa = { .sa_handler = on_signal };
	struct voff_switch *sw;
	int nspecs = 0, opt, err, lfd, rc = EXIT_FAIL;
	bool daemonize = false, drop = false, filter = false;
	uint64_t us;

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
		case 'D':
			drop = true;
			break;
		case 'S':
			filter = true;
			break;
		case 'B':
			if (num_opt("voff switch", "--busy-poll", optarg, 0,
				    VOFF_SWITCH_BUSY_POLL_MAX / 1000, &us))
				return EXIT_USAGE;
			cfg.busy_poll_ns = us * 1000;
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
	err = check_specs(specs, nspecs);
	if (err)
		return err;
	err = check_build(drop, filter);
	if (err)
		return err;
	if (drop)
		st.deny |= VOFF_SWITCH_CTL_DENY_ADD;
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
	err = ctl_dir(ctl);
	lfd = err ? err : ctl_listen(ctl);
	if (lfd < 0) {
		fprintf(stderr, "voff switch: control socket %s: %s%s\n", ctl,
			voff_strerror(lfd),
			lfd == -EEXIST ? " (and is not a socket)" : "");
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
	rc = isolate(specs, nspecs, drop, filter);
	if (!rc)
		rc = loop(sw, &st, lfd);
err_daemon:
	close(lfd);
	unlink(ctl);
err_ports:
	voff_switch_free(sw);
	return rc;
}
