/* SPDX-License-Identifier: MIT */
/*
 * test_switch_answer.c - one voff_switch_poll() call forwards a frame and
 * the answer the receiving namespace made inside that frame's write.  An
 * ICMP echo request goes from ns A through TAP ta, the switch and TAP tb
 * to ns B, whose stack answers while the switch's write to tb is still in
 * the kernel; the TAP's multishot read holds the reply in memory when the
 * write returns, so the same call runs one step more and forwards it
 * (docs/switch.md, "Waiting") instead of leaving it to a second wait.
 * Root and multishot TAP reads (io_uring, Linux 6.7+) only; skipped
 * otherwise.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <voff/port.h>
#include <voff/switch.h>

#include "check.h"
#include "port_ns.h"

#define PINGS 20

/* The MAC of @dev in @ns, as ip(8) prints it. */
static void mac_of(const char *ns, const char *dev, char *out, size_t cap)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "ip -n %s -o link show %s | sed 's/.*link\\/ether \\([^ ]*\\).*/\\1/'",
		 ns, dev);
	sh_out(out, cap, cmd);
	out[strcspn(out, "\n")] = '\0';
	CHECK_MSG(strlen(out) == 17, "no MAC for %s: '%s'", dev, out);
}

/* Frames the switch received on port @id so far. */
static uint64_t rx_of(struct voff_switch *sw, unsigned int id)
{
	struct voff_switch_stats st;

	CHECK_OK(voff_switch_stats(sw, id, &st));
	return st.port.rx_packets;
}

static void t_answer_same_call(void)
{
	struct voff_switch_port_info pi;
	struct voff_switch *sw;
	char spec[128], ma[32], mb[32];
	unsigned int ta, tb, same = 0;

	ns_playground();
	CHECK_OK(voff_switch_new(&sw, NULL));
	snprintf(spec, sizeof(spec), "tap:ta@%s", ns_a);
	CHECK_OK(voff_switch_add_spec(sw, spec, &ta));
	snprintf(spec, sizeof(spec), "tap:tb@%s", ns_b);
	CHECK_OK(voff_switch_add_spec(sw, spec, &tb));
	CHECK_OK(voff_switch_port_info(sw, tb, &pi));
	if (!pi.info.io_uring)
		CHECK_SKIP("no multishot TAP reads here");
	/* No IPv6 chatter, no ARP: only the echo and its reply cross. */
	sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 && "
	   "ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1",
	   ns_a, ns_b);
	sh("ip -n %s addr add 10.9.0.1/24 dev ta && ip -n %s link set ta up",
	   ns_a, ns_a);
	sh("ip -n %s addr add 10.9.0.2/24 dev tb && ip -n %s link set tb up",
	   ns_b, ns_b);
	mac_of(ns_a, "ta", ma, sizeof(ma));
	mac_of(ns_b, "tb", mb, sizeof(mb));
	sh("ip -n %s neigh replace 10.9.0.2 lladdr %s dev ta nud permanent",
	   ns_a, mb);
	sh("ip -n %s neigh replace 10.9.0.1 lladdr %s dev tb nud permanent",
	   ns_b, ma);
	/* Whatever the devices sent coming up. */
	while (voff_switch_poll(sw, 100) > 0)
		;

	for (int i = 0; i < PINGS; i++) {
		uint64_t before = rx_of(sw, tb);
		pid_t pid = ping_start(ns_a, "10.9.0.2");
		int status, n = 0;

		/*
		 * The first call that receives anything: the request.  Up to
		 * 30 s (a sanitised build on a loaded machine forks and
		 * schedules slowly), or until the ping ends without it.
		 */
		for (int k = 0; k < 300 && n <= 0; k++) {
			n = voff_switch_poll(sw, 100);
			if (n <= 0 && waitpid(pid, &status, WNOHANG) == pid)
				break;
		}
		CHECK_MSG(n > 0, "ping %d: nothing received (last poll: %d)", i,
			  n);
		if (rx_of(sw, tb) > before)
			same++;
		/* The reply, if it is still to come, and the ping's end. */
		while (waitpid(pid, &status, WNOHANG) == 0)
			voff_switch_poll(sw, 10);
		CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "ping %d: no reply", i);
	}
	printf("# %u of %d replies forwarded in the request's own call\n",
	       same, PINGS);
	/*
	 * The reply is made in ns B's softirq inside the switch's write; only
	 * a machine so loaded that the kernel defers that softirq to its
	 * thread leaves it for later.  Most must come in the same call.
	 */
	CHECK_MSG(same * 2 > PINGS, "only %u of %d in the same call", same,
		  PINGS);
	voff_switch_free(sw);
}

CHECK_MAIN(CHECK_TEST(t_answer_same_call))
