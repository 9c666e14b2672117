/* SPDX-License-Identifier: MIT */
/*
 * test_unix.c - the owner-only unix socket (unix.h): made 0600 by bind()
 * with the umask put back, a stale socket replaced, a live one or a file
 * that is not a socket left alone, and peers checked by their user id.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <voff/unix.h>

#include "check.h"

/* An unprivileged user id to connect as ("nobody" on Debian). */
#define OTHER_UID 65534

struct tmp {
	char dir[64];
	char path[96];
};

static void tmp_init(struct tmp *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/voff-unix-XXXXXX");
	CHECK(mkdtemp(t->dir));
	snprintf(t->path, sizeof(t->path), "%s/sock", t->dir);
}

static void tmp_done(struct tmp *t)
{
	unlink(t->path);
	CHECK_OK(rmdir(t->dir));
}

/* A blocking client connected to @path, or -errno. */
static int dial(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CHECK_GE(fd, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* The next connection on the (non-blocking) listening @lfd. */
static int take(int lfd)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int c;

	CHECK_EQ(poll(&p, 1, 5000), 1);
	c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	CHECK_GE(c, 0);
	return c;
}

/* Listening on @lfd at @path: a client gets through. */
static void check_serves(int lfd, const char *path)
{
	int cl = dial(path), c;

	CHECK_GE(cl, 0);
	c = take(lfd);
	close(c);
	close(cl);
}

static void t_mode(void)
{
	struct tmp t;
	struct stat st;
	int lfd, fl;

	tmp_init(&t);
	umask(022);
	lfd = voff_unix_listen(t.path, 4);
	CHECK_GE(lfd, 0);
	/* 0600 from bind(), and the caller's umask back in place. */
	CHECK_OK(lstat(t.path, &st));
	CHECK(S_ISSOCK(st.st_mode));
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(umask(022), 022);
	fl = fcntl(lfd, F_GETFL);
	CHECK(fl & O_NONBLOCK);
	CHECK(fcntl(lfd, F_GETFD) & FD_CLOEXEC);
	check_serves(lfd, t.path);
	close(lfd);
	tmp_done(&t);
}

static void t_stale(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct tmp t;
	struct stat before, after;
	int fd, lfd;

	tmp_init(&t);
	/*
	 * A socket bound (0755 under umask 022) and closed without unlink:
	 * nobody answers on it.  (tmpfs reuses inode numbers at once, so the
	 * new socket is told from the old by its mode.)
	 */
	umask(022);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_GE(fd, 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", t.path);
	CHECK_OK(bind(fd, (struct sockaddr *)&a, sizeof(a)));
	close(fd);
	CHECK_OK(lstat(t.path, &before));
	CHECK_EQ(before.st_mode & 07777, 0755);
	CHECK_EQ(dial(t.path), -ECONNREFUSED);
	lfd = voff_unix_listen(t.path, 4);
	CHECK_GE(lfd, 0);
	CHECK_OK(lstat(t.path, &after));
	CHECK(S_ISSOCK(after.st_mode));
	CHECK_EQ(after.st_mode & 07777, 0600);
	check_serves(lfd, t.path);
	close(lfd);
	tmp_done(&t);
}

static void t_live(void)
{
	struct tmp t;
	struct stat before, after;
	int lfd;

	tmp_init(&t);
	lfd = voff_unix_listen(t.path, 4);
	CHECK_GE(lfd, 0);
	CHECK_OK(lstat(t.path, &before));
	/* Its owner answers: the second listener gets nothing. */
	CHECK_EQ(voff_unix_listen(t.path, 4), -EADDRINUSE);
	CHECK_OK(lstat(t.path, &after));
	CHECK_EQ(after.st_ino, before.st_ino);
	/* The probe's connection is queued, then the real client's. */
	close(take(lfd));
	check_serves(lfd, t.path);
	close(lfd);
	tmp_done(&t);
}

static void t_not_socket(void)
{
	struct tmp t;
	char target[128], buf[8] = { 0 };
	struct stat st;
	int fd;

	tmp_init(&t);
	/* A regular file stays as it was. */
	fd = open(t.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	CHECK_GE(fd, 0);
	CHECK_EQ(write(fd, "keep", 4), 4);
	close(fd);
	CHECK_EQ(voff_unix_listen(t.path, 4), -EEXIST);
	fd = open(t.path, O_RDONLY | O_CLOEXEC);
	CHECK_GE(fd, 0);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 4);
	CHECK_STR_EQ(buf, "keep");
	close(fd);
	CHECK_OK(unlink(t.path));
	/* A symbolic link is neither followed nor removed. */
	snprintf(target, sizeof(target), "%s/target", t.dir);
	CHECK_OK(symlink(target, t.path));
	CHECK_EQ(voff_unix_listen(t.path, 4), -EEXIST);
	CHECK_OK(lstat(t.path, &st));
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(lstat(target, &st), -1);
	CHECK_EQ(errno, ENOENT);
	tmp_done(&t);
}

static void t_too_long(void)
{
	char path[200];

	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	CHECK_EQ(voff_unix_listen(path, 4), -ENAMETOOLONG);
}

static void t_peer_own(void)
{
	struct tmp t;
	uid_t uid = 12345;
	int lfd, cl, c, p[2];

	tmp_init(&t);
	lfd = voff_unix_listen(t.path, 4);
	CHECK_GE(lfd, 0);
	cl = dial(t.path);
	CHECK_GE(cl, 0);
	c = take(lfd);
	CHECK(voff_unix_peer_ok(c, &uid));
	CHECK_EQ(uid, geteuid());
	CHECK(voff_unix_peer_ok(c, NULL));
	close(c);
	close(cl);
	close(lfd);
	/* Not a socket: no credentials, no entry. */
	CHECK_OK(pipe(p));
	CHECK(!voff_unix_peer_ok(p[0], &uid));
	CHECK_EQ(uid, (uid_t)-1);
	close(p[0]);
	close(p[1]);
	tmp_done(&t);
}

static void t_peer_other(void)
{
	struct tmp t;
	uid_t uid = 0;
	pid_t pid;
	int lfd, c, st;
	char b;

	if (geteuid() != 0)
		CHECK_SKIP("needs root to connect as another user");
	tmp_init(&t);
	lfd = voff_unix_listen(t.path, 4);
	CHECK_GE(lfd, 0);
	/* Open the way for uid OTHER_UID: the peer check must refuse it. */
	CHECK_OK(chmod(t.dir, 0711));
	CHECK_OK(chmod(t.path, 0666));
	pid = fork();
	CHECK_GE(pid, 0);
	if (pid == 0) {
		int cl;

		if (setgid(OTHER_UID) < 0 || setuid(OTHER_UID) < 0)
			_exit(2);
		cl = dial(t.path);
		if (cl < 0)
			_exit(3);
		/* Hold the connection until the server hangs up. */
		_exit(read(cl, &b, 1) == 0 ? 0 : 4);
	}
	c = take(lfd);
	CHECK(!voff_unix_peer_ok(c, &uid));
	CHECK_EQ(uid, OTHER_UID);
	close(c);
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	close(lfd);
	tmp_done(&t);
}

CHECK_MAIN(CHECK_TEST(t_mode), CHECK_TEST(t_stale), CHECK_TEST(t_live),
	   CHECK_TEST(t_not_socket), CHECK_TEST(t_too_long),
	   CHECK_TEST(t_peer_own), CHECK_TEST(t_peer_other))
