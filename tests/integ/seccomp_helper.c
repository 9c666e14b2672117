/* SPDX-License-Identifier: MIT */
/*
 * seccomp_helper.c - switch_privilege.sh's check that the filter of
 * `voff switch --seccomp` refuses what it does not list
 *
 * Built by the script from src/voff/isolation.c itself, so it runs the
 * very filter the switch installs.  It isolates itself as `voff switch
 * --drop-caps --seccomp` does, then tries calls the switch never makes
 * and calls it does.  Prints one line per check; exits 0 when every
 * refused call failed with EPERM and every allowed one worked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "isolation.c"

static int fails;

static void expect(const char *what, int rc, int want_errno)
{
	int e = rc < 0 ? errno : 0;

	if (e == want_errno) {
		printf("ok - %s: %s\n", what, e ? strerror(e) : "works");
	} else {
		printf("FAIL - %s: got %s\n", what,
		       e ? strerror(e) : "success");
		fails++;
	}
}

int main(int argc, char **argv)
{
	char *args[] = { "true", NULL };
	int fd;

	(void)argc;
	if (isolate_caps(0) || isolate_seccomp(false)) {
		printf("FAIL - could not isolate\n");
		return 1;
	}
	expect("execve refused", execv("/bin/true", args), EPERM);
	expect("openat refused", open(argv[0], O_RDONLY), EPERM);
	expect("AF_PACKET socket refused",
	       socket(AF_PACKET, SOCK_RAW, 0), EPERM);
	expect("AF_INET6 socket refused", socket(AF_INET6, SOCK_DGRAM, 0),
	       EPERM);
	expect("fork refused", (int)fork(), EPERM);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);
	expect("netlink socket allowed", fd, 0);
	if (fd >= 0)
		close(fd);
	expect("getpid allowed", getpid() > 0 ? 0 : -1, 0);
	return fails ? 1 : 0;
}
