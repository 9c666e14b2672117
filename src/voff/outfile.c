/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - output files that appear whole or not at all (outfile.h):
 * a temporary file in the output's own directory (so rename(2) is atomic
 * and never crosses file systems), the input/output identity check, and
 * the clean-up
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/* Identity of @path, "-" being the standard stream @fd. */
static int identity(const char *path, int fd, struct stat *st)
{
	return strcmp(path, "-") ? stat(path, st) : fstat(fd, st);
}

/* @o->target: @out, or the file a symbolic link @out points to. */
static void resolve(struct outfile *o, const char *out)
{
	struct stat st;
	char *real;

	snprintf(o->target, sizeof(o->target), "%s", out);
	if (lstat(out, &st) || !S_ISLNK(st.st_mode))
		return;
	real = realpath(out, NULL);
	if (real && strlen(real) < sizeof(o->target))
		snprintf(o->target, sizeof(o->target), "%s", real);
	free(real);
}

/* Create the temporary file beside @o->target, with the mode it will get. */
static int make_tmp(struct outfile *o, const struct stat *old)
{
	const char *slash = strrchr(o->target, '/');
	int dirlen = slash ? (int)(slash - o->target + 1) : 0;
	mode_t mask;
	int fd, n;

	n = snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", dirlen,
		     o->target, o->target + dirlen);
	if (n < 0 || (size_t)n >= sizeof(o->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return -1;
	/* mkstemp() makes 0600; the result gets what fopen() would give. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, old ? old->st_mode & 07777 : 0666 & ~mask)) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		errno = e;
		return -1;
	}
	close(fd);
	o->write = o->tmp;
	return 0;
}

int outfile_begin(struct outfile *o, const char *cmd, const char *in,
		  const char *out)
{
	struct stat si, so;
	bool exists;

	memset(o, 0, sizeof(*o));
	o->path = out;
	o->write = out;
	exists = identity(out, STDOUT_FILENO, &so) == 0;
	if (exists && S_ISREG(so.st_mode) && in &&
	    identity(in, STDIN_FILENO, &si) == 0 && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino) {
		fprintf(stderr, "%s: %s: is the input %s (refusing to "
				"overwrite it)\n", cmd,
			strcmp(out, "-") ? out : "standard output",
			strcmp(in, "-") ? in : "(standard input)");
		return -1;
	}
	if (!strcmp(out, "-") || (exists && !S_ISREG(so.st_mode)))
		return 0;	/* nothing to roll back: write it directly */
	resolve(o, out);
	if (make_tmp(o, exists ? &so : NULL)) {
		fprintf(stderr, "%s: %s: %s\n", cmd, out, strerror(errno));
		o->tmp[0] = 0;
		return -1;
	}
	return 0;
}

int outfile_end(struct outfile *o, const char *cmd, bool ok)
{
	int rc = ok ? 0 : -1;

	if (!o->tmp[0])
		return rc;
	if (ok && rename(o->tmp, o->target)) {
		fprintf(stderr, "%s: %s: %s\n", cmd, o->path, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(o->tmp);
	o->tmp[0] = 0;
	return rc;
}
