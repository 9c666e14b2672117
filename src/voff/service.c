/* SPDX-License-Identifier: MIT */
/*
 * service.c - the pid file and systemd's readiness protocol (service.h)
 *
 * The notification protocol is one datagram of "KEY=VALUE" lines to the
 * AF_UNIX socket named by $NOTIFY_SOCKET (sd_notify(3)); it takes a few
 * lines, so voff needs no libsystemd.  The pid file is locked with
 * flock() instead of trusting the pid it names: a pid is reused, a lock
 * dies with its holder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "service.h"

int pidfile_lock(const char *path, pid_t *holder)
{
	char buf[32];
	ssize_t n;
	int fd;

	*holder = 0;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		*holder = (pid_t)strtol(buf, NULL, 10);
	}
	close(fd);
	return -EWOULDBLOCK;
}

int pidfile_write(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

void pidfile_remove(int fd, const char *path)
{
	if (fd < 0)
		return;
	/* Removed while still locked: a new switch cannot take it between. */
	unlink(path);
	close(fd);
}

int sd_notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t alen;
	size_t len;
	int fd, err = 0;

	if (!path || (*path != '/' && *path != '@'))
		return 0;
	len = strlen(path);
	if (len >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, len);
	if (*path == '@')
		a.sun_path[0] = '\0';	/* the abstract namespace */
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		   (struct sockaddr *)&a, alen) < 0)
		err = -errno;
	close(fd);
	return err;
}
