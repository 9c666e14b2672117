/* SPDX-License-Identifier: MIT */
/*
 * isolation.h - what `voff switch` gives up once its ports are open:
 * capabilities (libcap) and, optionally, system calls (libseccomp).
 * isolation.c explains the stages and which operation needs what.
 */
#ifndef VOFF_ISOLATION_H
#define VOFF_ISOLATION_H

#include <stdbool.h>

/*
 * ISOLATE_KEEP_* - the capabilities a running switch may keep, as bits:
 * what `ports add` (and limit changes on its own devices) need later.
 */
#define ISOLATE_KEEP_NET_ADMIN (1u << 0)	/* TAP/TUN, netlink sets */
#define ISOLATE_KEEP_NET_RAW (1u << 1)		/* AF_PACKET sockets */
#define ISOLATE_KEEP_SYS_ADMIN (1u << 2)	/* setns() for @NETNS */

/**
 * isolate_caps_available() - whether this build can drop capabilities
 * Return: true when built with libcap.
 */
bool isolate_caps_available(void);

/**
 * isolate_seccomp_available() - whether this build can filter syscalls
 * Return: true when built with libseccomp.
 */
bool isolate_seccomp_available(void);

/**
 * isolate_caps() - keep only the capabilities in @keep, for good
 * @keep:	ISOLATE_KEEP_* bits (0: none at all)
 *
 * Sets PR_SET_NO_NEW_PRIVS, removes every other capability from the
 * bounding set (when the process may: it needs CAP_SETPCAP), clears the
 * ambient and inheritable sets, and leaves in the effective and
 * permitted sets the kept capabilities the process had.  Context: call
 * from the only thread (capabilities are per thread).
 *
 * Return: 0, -ENOTSUP without libcap, or the negative errno of the step
 * that failed (the process may then hold more than asked, never less).
 */
int isolate_caps(unsigned int keep);

/* ISOLATE_ALLOW_* - what isolate_seccomp() allows beyond the loop's calls */
#define ISOLATE_ALLOW_PORTS (1u << 0)	/* opening ports: open, setns, ... */
#define ISOLATE_ALLOW_READ (1u << 1)	/* opening files to read them */

/**
 * isolate_seccomp() - allow from now on only the syscalls the switch uses
 * @allow:	ISOLATE_ALLOW_* bits: PORTS allows what opening ports needs
 *		(`ports add`, a reload that adds a port): open, setns,
 *		AF_PACKET sockets; READ allows open and openat for reading
 *		only (a reload reads the configuration file), without
 *		O_CREAT or O_TRUNC; 0 allows neither
 *
 * Installs a filter whose default answer is EPERM: a call outside the
 * list fails with "Operation not permitted" and the process goes on.
 * Needs PR_SET_NO_NEW_PRIVS (isolate_caps() sets it) or CAP_SYS_ADMIN.
 *
 * Return: 0, -ENOTSUP without libseccomp, or a negative errno.
 */
int isolate_seccomp(unsigned int allow);

#endif /* VOFF_ISOLATION_H */
