/* SPDX-License-Identifier: MIT */
/*
 * netns.c - enter a named network namespace on the calling thread, and
 * leave it again
 *
 * netlink.c opens its sockets inside a port's namespace, and the TAP/TUN
 * and AF_PACKET backends open their device or socket there: each switches
 * in with setns(), creates what it needs, and switches back at once.  What
 * was created stays in the namespace it was created in.  See netns_int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netns_int.h"

int voff__netns_enter(const char *name, int *saved)
{
	char path[128];
	int fd, cur;

	*saved = -1;
	if (!name || !*name)
		return 0;
	if (strchr(name, '/') ||
	    snprintf(path, sizeof(path), "/var/run/netns/%s", name) >=
		    (int)sizeof(path))
		return -EINVAL;
	cur = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		close(cur);
		return err;
	}
	if (setns(fd, CLONE_NEWNET)) {
		int err = -errno;

		close(fd);
		close(cur);
		return err;
	}
	close(fd);
	*saved = cur;
	return 0;
}

void voff__netns_leave(int saved)
{
	if (saved < 0)
		return;
	/* Cannot fail for a namespace we were just in with CAP_SYS_ADMIN. */
	(void)setns(saved, CLONE_NEWNET);
	close(saved);
}
