/* SPDX-License-Identifier: MIT */
/*
 * unix.h - a unix stream socket that only its owner may reach: the
 * listening side of the control socket of `voff switch` and of every
 * vhost-user port
 *
 * Two rules keep another local user out.  The socket file is made 0600 by
 * bind() itself, never chmod()ed by name afterwards (a name can be
 * swapped for a symbolic link in between), and it replaces nothing but a
 * stale socket of an earlier run.  Each connection's peer is then checked
 * by its credentials (SO_PEERCRED) as a second line, should the file's
 * mode not be the whole story (changed by hand, or the socket reached
 * through a descriptor handed on).
 *
 * Context: control-path calls, a few system calls each.
 */
#ifndef VOFF_UNIX_H
#define VOFF_UNIX_H

#include <stdbool.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * voff_unix_listen() - listen on a new 0600 unix stream socket at @path
 * @path:	where the socket goes; shorter than sun_path (108 bytes)
 * @backlog:	listen()'s backlog: connections the kernel holds while
 *		the caller is busy
 *
 * Something already at @path is replaced only when it is a socket that
 * nobody listens on (a connect() to it fails): the leftover of a process
 * that ended without removing it.  A regular file, a directory or a
 * symbolic link is refused and left alone, and so is a socket that
 * answers, which is never taken from its owner.
 *
 * The socket is bound under umask 0177, so it exists with mode 0600 from
 * its first moment; the process's umask is put back before the call
 * returns.  The descriptor is close-on-exec and non-blocking.
 *
 * It does not create or check the directory @path is in (whoever may
 * write there may swap the socket), check peers (voff_unix_peer_ok() on
 * each accepted connection does), nor remove the socket file later: the
 * caller unlinks @path when it is done.
 *
 * Context: changes the umask of the whole process for the time of the
 * bind(): a file another thread creates meanwhile gets it too.
 *
 * Return: the listening descriptor (≥ 0); -ENAMETOOLONG when @path does
 * not fit, -EEXIST when @path is not a socket, -EADDRINUSE when a process
 * listens on it, or another negative errno of socket(), bind() or
 * listen().  On failure no descriptor is left open; a socket file that
 * was bound before listen() failed stays at @path.
 */
int voff_unix_listen(const char *path, int backlog);

/**
 * voff_unix_peer_ok() - whether the peer of a unix connection may talk
 * @fd:		a connected unix socket (one accept() returned)
 * @uid:	receives the peer's user id, or (uid_t)-1 when the kernel
 *		did not say; may be NULL
 *
 * The peer may when it runs as the caller's effective user id or as root
 * (uid 0): the ids the socket's 0600 mode admits.  The credentials are
 * the ones the peer had when it connected, so a peer cannot change them
 * afterwards.
 *
 * Return: true when it may; false when it may not or its credentials
 * cannot be read (not a unix socket, not connected).
 */
bool voff_unix_peer_ok(int fd, uid_t *uid);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_UNIX_H */
