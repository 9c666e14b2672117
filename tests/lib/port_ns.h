/* SPDX-License-Identifier: MIT */
/*
 * port_ns.h - network namespace helpers for the root port tests
 * (test_port_tap.c, test_port_packet.c): a private playground, a tiny ping,
 * a TCP transfer with a byte count and pattern check, and a forwarder loop
 * (port_ns.c)
 *
 * ns_playground() moves the test process into its own mount and network
 * namespace and mounts a tmpfs on /run/netns, so the named namespaces a test
 * creates with `ip netns add voff-port-PID-x` exist only inside it and
 * vanish with the process, even when an assertion ends it early.  Without
 * root, iproute2, ethtool or /dev/net/tun the test is skipped.
 */
#ifndef VOFF_TEST_PORT_NS_H
#define VOFF_TEST_PORT_NS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <voff/port.h>

/* The playground's two namespaces, named by ns_playground(). */
extern char ns_a[64], ns_b[64];

/* Run a shell command built like printf; the test fails if it fails. */
void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Run @cmd, return its first output line in @out (may be empty). */
void sh_out(char *out, size_t cap, const char *cmd);

/* Enter a private playground with namespaces ns_a and ns_b, or skip. */
void ns_playground(void);

/* Move the calling process into namespace @ns for good. */
void ns_enter(const char *ns);

/**
 * struct fwd - a two-port forwarder and what it saw
 * @p:		the ports; frames from p[i] go to p[!i] (or are freed when
 *		p[!i] is NULL: an observer)
 * @pool:	where received frames are allocated from
 * @max_len:	largest frame received per port
 * @gso:	super-packets received per port
 * @gso_types:	every gso_type bit seen per port
 * @frames:	frames received per port
 */
struct fwd {
	struct voff_port *p[2];
	struct voff_pool *pool;
	uint32_t max_len[2];
	uint64_t gso[2];
	uint32_t gso_types[2];
	uint64_t frames[2];
};

/* TCP transfer of @n bytes from @src_ns to @dst_ip in @dst_ns through @f. */
void tcp_transfer(struct fwd *f, const char *src_ns, const char *dst_ns,
		  const char *dst_ip, uint64_t n);

/*
 * A child process that sends one ICMP echo request from namespace @ns to
 * @dst and exits 0 when the reply comes (3 s at most).  Return: its pid.
 */
pid_t ping_start(const char *ns, const char *dst);

/* One ping from @ns to @dst, forwarded through @f; fails without reply. */
void ping_through(struct fwd *f, const char *ns, const char *dst);

#endif /* VOFF_TEST_PORT_NS_H */
