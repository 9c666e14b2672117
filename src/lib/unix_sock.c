/* SPDX-License-Identifier: MIT */
/*
 * unix_sock.c - the owner-only unix stream socket (unix.h): the listening
 * side shared by the control socket of the command (src/voff/ctl_server.c)
 * and the vhost-user port (port_vhost.c), so both replace a stale socket,
 * make it 0600 and check their peers the same way
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/unix.h>

/*
 * Clear the way for a new socket at @a: nothing there, or a socket that
 * nobody answers on (removed).  Anything else stays where it is.
 */
static int clear_stale(const struct sockaddr_un *a)
{
	struct stat st;
	int probe;

	if (lstat(a->sun_path, &st) < 0)
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe < 0)
		return -errno;
	if (connect(probe, (const struct sockaddr *)a, sizeof(*a)) == 0) {
		close(probe);
		return -EADDRINUSE;
	}
	close(probe);
	unlink(a->sun_path);
	return 0;
}

int voff_unix_listen(const char *path, int backlog)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	mode_t old;
	int fd, err;

	if (len >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, len + 1);
	err = clear_stale(&a);
	if (err)
		return err;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	/*
	 * bind() makes the socket 0777 & ~umask: 0600 from the start, with
	 * no chmod() by name afterwards (which would follow a symlink).
	 */
	old = umask(0177);
	err = bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	      listen(fd, backlog) < 0 ? -errno : 0;
	umask(old);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

bool voff_unix_peer_ok(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    len != sizeof(cr)) {
		if (uid)
			*uid = (uid_t)-1;
		return false;
	}
	if (uid)
		*uid = cr.uid;
	return cr.uid == geteuid() || cr.uid == 0;
}
