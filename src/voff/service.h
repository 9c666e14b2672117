/* SPDX-License-Identifier: MIT */
/*
 * service.h - what `voff switch` does for a service manager: a pid file
 * that refuses a second switch, and systemd's readiness protocol
 * (service.c)
 */
#ifndef VOFF_SERVICE_H
#define VOFF_SERVICE_H

#include <sys/types.h>

/**
 * pidfile_lock() - open and lock the pid file @path, before anything else
 * @path:	the file, created 0644 when missing
 * @holder:	receives the pid written in a file another process holds
 *
 * The lock (flock(), on an open file) lives as long as the process and
 * its children after fork(): a file nobody holds is stale, whatever pid
 * it names, and is taken over.
 *
 * Return: the open descriptor, -EWOULDBLOCK when a live process holds the
 * file (*@holder says which, 0 when it wrote none yet), or a negative
 * errno.
 */
int pidfile_lock(const char *path, pid_t *holder);

/**
 * pidfile_write() - write the calling process's pid into the locked file
 * Return: 0 or a negative errno.
 */
int pidfile_write(int fd);

/**
 * pidfile_remove() - remove the file and drop the lock (at exit)
 */
void pidfile_remove(int fd, const char *path);

/**
 * sd_notify_send() - tell the service manager @state ("READY=1",
 * "RELOADING=1", "STOPPING=1", "STATUS=..."), when $NOTIFY_SOCKET names
 * its socket (a path, or "@name" in the abstract namespace); nothing
 * otherwise
 * Return: 0 (also without a manager) or a negative errno.
 */
int sd_notify_send(const char *state);

#endif /* VOFF_SERVICE_H */
