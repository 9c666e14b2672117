/* SPDX-License-Identifier: MIT */
/*
 * isolation.c - `voff switch` drops the privileges it no longer needs
 *
 * DOC: Theory of Operation
 *
 * The switch runs in stages (switch.c):
 *
 *  1. start-up, with whatever the caller gave it (root, or a user holding
 *     capabilities): open every --port, bind the control socket;
 *  2. --daemon: detach;
 *  3. isolate_caps(): keep only what later requests can still need;
 *  4. --seccomp: isolate_seccomp() narrows the system calls to the ones
 *     the loop, the control server and (unless --drop-caps) `ports add`
 *     make, and with --config opening files for reading (a reload);
 *  5. the loop: forward frames, answer `voff ctl`.
 *
 * Which operation needs which capability (Linux, docs/security.md):
 *
 *  - creating a TAP or TUN device (TUNSETIFF on a new name), setting a
 *    device up, setting its gso/gro limits over rtnetlink (at start, on
 *    `ports add`, on `limits`, and when a port comes or goes and the
 *    switch propagates the smallest gso limit to its TAPs):
 *    CAP_NET_ADMIN.  Attaching to a persistent TAP the user owns needs
 *    nothing;
 *  - opening an AF_PACKET socket (packet: ports): CAP_NET_RAW;
 *  - entering a named namespace for a @NETNS port, and coming back:
 *    setns(CLONE_NEWNET) twice, CAP_SYS_ADMIN.  The library enters the
 *    namespace for everything it asks the kernel about such a port
 *    (opening it, reading or setting its limits and features), but for
 *    a TAP/TUN port's drop count (rx_kernel_dropped) and a VXLAN port's
 *    route MTUs towards its remotes, read through a netlink socket the
 *    port made in its namespace when it opened;
 *  - forwarding (read, write, recvmmsg, sendmmsg on descriptors already
 *    open), TUNSETOFFLOAD on the switch's own TAPs, reading limits and
 *    features of devices in the switch's own namespace, and the control
 *    socket: nothing.
 *
 * So by default the switch keeps CAP_NET_ADMIN and CAP_NET_RAW, and
 * CAP_SYS_ADMIN only when a port named a namespace; --drop-caps keeps
 * nothing (and the control server refuses `ports add`).  Everything else
 * leaves the effective, permitted, inheritable, ambient and bounding
 * sets, and PR_SET_NO_NEW_PRIVS stops any later execve() from gaining
 * privileges back.  The process keeps its user id: root without
 * capabilities still owns root's files, which is why no control request
 * names a file (switch_ctl.c refuses pcap: specs from clients).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#ifdef VOFF_HAVE_LIBCAP
#include <sys/capability.h>
#endif
#ifdef VOFF_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "isolation.h"

bool isolate_caps_available(void)
{
#ifdef VOFF_HAVE_LIBCAP
	return true;
#else
	return false;
#endif
}

bool isolate_seccomp_available(void)
{
#ifdef VOFF_HAVE_SECCOMP
	return true;
#else
	return false;
#endif
}

#ifdef VOFF_HAVE_LIBCAP
static bool kept(cap_value_t c, unsigned int keep)
{
	return (c == CAP_NET_ADMIN && (keep & ISOLATE_KEEP_NET_ADMIN)) ||
	       (c == CAP_NET_RAW && (keep & ISOLATE_KEEP_NET_RAW)) ||
	       (c == CAP_SYS_ADMIN && (keep & ISOLATE_KEEP_SYS_ADMIN));
}

static bool has(cap_t caps, cap_value_t c, cap_flag_t set)
{
	cap_flag_value_t v = CAP_CLEAR;

	return cap_get_flag(caps, c, set, &v) == 0 && v == CAP_SET;
}

/* Bounding set first: dropping from it needs CAP_SETPCAP, given up next. */
static int drop_bound(cap_t cur, unsigned int keep)
{
	if (!has(cur, CAP_SETPCAP, CAP_EFFECTIVE))
		return 0;	/* not ours to change; NO_NEW_PRIVS covers it */
	for (cap_value_t c = 0; c < (cap_value_t)cap_max_bits(); c++) {
		if (kept(c, keep) || !CAP_IS_SUPPORTED(c))
			continue;
		if (cap_drop_bound(c))
			return -errno;
	}
	return 0;
}

int isolate_caps(unsigned int keep)
{
	static const cap_value_t all[] = { CAP_NET_ADMIN, CAP_NET_RAW,
					   CAP_SYS_ADMIN };
	cap_t cur, next;
	int err;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	cur = cap_get_proc();
	if (!cur)
		return -errno;
	err = drop_bound(cur, keep);
	if (err)
		goto err_cur;
	/* An old kernel has no ambient set: nothing to clear then. */
	if (cap_reset_ambient() && errno != EINVAL && errno != ENOSYS) {
		err = -errno;
		goto err_cur;
	}
	next = cap_init();
	if (!next) {
		err = -errno;
		goto err_cur;
	}
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		cap_value_t c = all[i];

		if (!kept(c, keep) || !has(cur, c, CAP_PERMITTED))
			continue;
		if (cap_set_flag(next, CAP_PERMITTED, 1, &c, CAP_SET) ||
		    cap_set_flag(next, CAP_EFFECTIVE, 1, &c, CAP_SET)) {
			err = -errno;
			goto err_next;
		}
	}
	err = cap_set_proc(next) ? -errno : 0;
err_next:
	cap_free(next);
err_cur:
	cap_free(cur);
	return err;
}
#else
int isolate_caps(unsigned int keep)
{
	(void)keep;
	return -ENOTSUP;
}
#endif

#ifdef VOFF_HAVE_SECCOMP
/*
 * What the loop and the control server call: glibc's wrappers of the
 * switch's I/O, memory, time and signal handling, open_memstream() for
 * replies, netlink and ethtool sockets to read device state, unlink() of
 * the control socket at exit.  Names the running kernel or libseccomp
 * does not know are skipped.
 */
static const char *const base_calls[] = {
	"read", "write", "readv", "writev", "pread64", "pwrite64",
	"recvfrom", "recvmsg", "recvmmsg", "sendto", "sendmsg", "sendmmsg",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "poll",
	"ppoll", "select", "pselect6",
	"accept", "accept4", "setsockopt", "getsockopt", "getsockname",
	"getpeername", "bind", "shutdown", "close", "fcntl", "ioctl",
	"fstat", "newfstatat", "statx", "lseek",
	"clock_gettime", "clock_getres", "gettimeofday", "time",
	"nanosleep", "clock_nanosleep",
	"brk", "mmap", "munmap", "mremap", "madvise", "mprotect",
	"futex", "rseq", "set_robust_list", "getrandom",
	"rt_sigreturn", "rt_sigaction", "rt_sigprocmask", "sigaltstack",
	"restart_syscall", "getpid", "gettid", "getuid", "geteuid",
	"getgid", "getegid", "tgkill", "exit", "exit_group",
	"unlink", "unlinkat", "sched_yield", "sched_getaffinity",
	"prlimit64", "uname",
	/* TAP/TUN ports built with liburing submit their batches here. */
	"io_uring_enter",
};

/* Opening ports at run time (`ports add`): devices, namespaces. */
static const char *const port_calls[] = {
	"openat", "open", "setns", "dup", "dup3",
	"io_uring_setup", "io_uring_register",	/* a new TAP's ring */
	/*
	 * A vxlan port: its descriptor is an epoll set of its socket and an
	 * eventfd (its route MTUs are read over rtnetlink: sendto/recvmsg).
	 * A vhost-user port: connect() tells a live socket at its path from
	 * a stale one it may replace (unix_sock.c).
	 */
	"epoll_create1", "eventfd2", "connect",
};

static int allow(scmp_filter_ctx ctx, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		int err;

		if (nr == __NR_SCMP_ERROR)
			continue;
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (err)
			return err;
	}
	return 0;
}

/*
 * open() and openat() for reading only: a reload reads the configuration
 * (no O_WRONLY or O_RDWR, no O_CREAT, no O_TRUNC; O_TMPFILE needs write
 * access).
 */
static int allow_read(scmp_filter_ctx ctx)
{
	const scmp_datum_t mask = O_ACCMODE | O_CREAT | O_TRUNC;
	int err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
				   SCMP_A2(SCMP_CMP_MASKED_EQ, mask,
					   O_RDONLY));

	if (!err && seccomp_syscall_resolve_name("open") != __NR_SCMP_ERROR)
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
				       SCMP_A1(SCMP_CMP_MASKED_EQ, mask,
					       O_RDONLY));
	return err;
}

/*
 * socket() only for the families the switch uses; opening ports adds
 * AF_PACKET (packet: ports) and AF_INET6 (a vxlan port's IPv6 underlay).
 */
static int allow_socket(scmp_filter_ctx ctx, bool ports)
{
	int fam[5] = { AF_UNIX, AF_NETLINK, AF_INET, AF_PACKET, AF_INET6 };
	int n = ports ? 5 : 3;

	for (int i = 0; i < n; i++) {
		int err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
					   SCMP_SYS(socket), 1,
					   SCMP_A0(SCMP_CMP_EQ,
						   (scmp_datum_t)fam[i]));
		if (err)
			return err;
	}
	return 0;
}

int isolate_seccomp(unsigned int allow_set)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	bool ports = allow_set & ISOLATE_ALLOW_PORTS;
	int err;

	if (!ctx)
		return -ENOMEM;
	err = allow(ctx, base_calls, sizeof(base_calls) / sizeof(*base_calls));
	if (!err && ports)
		err = allow(ctx, port_calls,
			    sizeof(port_calls) / sizeof(*port_calls));
	/* Opening ports allows every open already. */
	if (!err && !ports && (allow_set & ISOLATE_ALLOW_READ))
		err = allow_read(ctx);
	if (!err)
		err = allow_socket(ctx, ports);
	if (!err)
		err = seccomp_load(ctx);
	seccomp_release(ctx);
	return err;
}
#else
int isolate_seccomp(unsigned int allow_set)
{
	(void)allow_set;
	return -ENOTSUP;
}
#endif
