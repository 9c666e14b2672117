/* SPDX-License-Identifier: MIT */
/*
 * test_vnet_oracle.c - the kernel as oracle for the virtio_net_hdr validator
 *
 * Each test runs in its own child process (check.h), which moves into a
 * network namespace of its own with unshare(CLONE_NEWNET): nothing outside
 * is touched and the namespace vanishes with the process.  There it opens a
 * TAP (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR) or a TUN, sets the header size
 * (TUNSETVNETHDRSZ), brings the device up and writes crafted
 * header + frame pairs.  write() returning the length is the kernel's
 * "accept"; failing with EINVAL is its "reject".  voff's verdict comes from
 * voff_vnet_decode() over the same bytes.
 *
 *     this process --write(hdr + frame)--> [ tun/tap "vo0" ]   (private netns)
 *                  \--voff_vnet_decode(hdr, frame)--> voff verdict
 *
 * Every case either agrees with the kernel or is listed with the reason
 * voff is stricter (the kernel accepts, voff rejects).  voff never accepts
 * what the kernel rejects.  Without root or /dev/net/tun every test skips.
 * The cases print one line each: name, kernel, voff, and the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_tun.h>

#include <voff/err.h>
#include <voff/pkt.h>
#include <voff/vnet.h>

#include "check.h"
#include "frames.h"

#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO 0x080
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO_CSUM
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100
#endif

#define BUF_SIZE 70000

static uint8_t frame[BUF_SIZE];
static uint8_t wire[BUF_SIZE + 24];

/* Frames the cases are written with. */
enum fkind {
	F_TCP4,		/* Eth/IPv4/TCP + payload (L3 cases: no Eth) */
	F_TCP6,
	F_UDP4,
	F_UDP6,
	F_ARP_TCP4,	/* F_TCP4 with the ARP EtherType */
	F_IHL4_TCP4,	/* F_TCP4 with IHL 4: does not parse */
	F_PAD_TCP4,	/* F_TCP4 + 4 bytes of Ethernet padding */
	F_VXLAN44,	/* Eth/IPv4/UDP/VXLAN/Eth/IPv4/TCP + payload */
	F_ZERO,		/* @payload zero bytes, no headers */
	F_VER1,		/* L3: @payload bytes, IP version 1 */
};

/*
 * struct ocase - one header + frame pair
 * @name:	what it shows
 * @size:	header size (10, 12, 24)
 * @tunnel:	tunnel GSO negotiated (TUNSETOFFLOAD) and in the header
 * @h:		the header
 * @f:		the frame kind
 * @payload:	payload bytes (or total bytes for F_ZERO/F_VER1)
 * @stricter:	NULL when voff must agree with the kernel; otherwise why voff
 *		rejects what the kernel accepts
 */
struct ocase {
	const char *name;
	uint8_t size;
	bool tunnel;
	struct voff_vnet_hdr h;
	enum fkind f;
	uint32_t payload;
	const char *stricter;
};

#define HDR(fl, ty, hl, gs, cs, co)                                          \
	{ .flags = (fl), .gso_type = (ty), .hdr_len = (hl), .gso_size = (gs), \
	  .csum_start = (cs), .csum_offset = (co) }

/* TAP (L2) cases: Ethernet at 0, IPv4 at 14 (L4 34) or IPv6 (L4 54). */
static const struct ocase tap_cases[] = {
	/* ---- both accept ---- */
	{ "plain tcp4", 10, false, HDR(0, 0, 0, 0, 0, 0), F_TCP4, 100, NULL },
	{ "partial csum tcp4", 10, false, HDR(1, 0, 0, 0, 34, 16), F_TCP4, 100,
	  NULL },
	{ "partial csum udp6", 10, false, HDR(1, 0, 0, 0, 54, 6), F_UDP6, 33,
	  NULL },
	{ "tso4 3x1000", 10, false, HDR(1, 1, 54, 1000, 34, 16), F_TCP4, 3000,
	  NULL },
	{ "tso4 ecn", 10, false, HDR(1, 0x81, 54, 1000, 34, 16), F_TCP4, 3000,
	  NULL },
	{ "tso6 3x1448", 10, false, HDR(1, 4, 74, 1448, 54, 16), F_TCP6, 4000,
	  NULL },
	{ "uso4 128 segs", 10, false, HDR(1, 5, 42, 100, 34, 6), F_UDP4, 12800,
	  NULL },
	{ "uso6", 10, false, HDR(1, 5, 62, 1000, 54, 6), F_UDP6, 5000, NULL },
	{ "ufo4", 10, false, HDR(1, 3, 42, 1000, 34, 6), F_UDP4, 5000, NULL },
	{ "ufo6", 10, false, HDR(1, 3, 62, 1000, 54, 6), F_UDP6, 5000, NULL },
	{ "gso fits one segment", 10, false, HDR(1, 1, 54, 1000, 34, 16),
	  F_TCP4, 900, NULL },
	{ "small remainder", 10, false, HDR(1, 1, 54, 1448, 34, 16), F_TCP4,
	  2 * 1448 + 1, NULL },
	{ "hdr_len 0", 10, false, HDR(1, 1, 0, 1000, 34, 16), F_TCP4, 3000,
	  NULL },
	{ "tcp mss 1, 64 KB", 10, false, HDR(1, 1, 54, 1, 34, 16), F_TCP4,
	  65535 - 40, NULL },
	{ "gso_size without gso_type", 10, false, HDR(0, 0, 0, 1000, 0, 0),
	  F_TCP4, 3000, NULL },
	{ "data_valid on transmit", 10, false, HDR(2, 0, 0, 0, 0, 0), F_TCP4,
	  100, NULL },
	{ "12-byte header tso4", 12, false, HDR(1, 1, 54, 1000, 34, 16),
	  F_TCP4, 3000, NULL },
	{ "garbage frame, no offload", 10, false, HDR(0, 0, 0, 0, 0, 0),
	  F_ZERO, 60, NULL },
	/* ---- both reject ---- */
	{ "gso_type 2", 10, false, HDR(1, 2, 0, 1000, 34, 16), F_TCP4, 3000,
	  NULL },
	{ "gso_type ecn alone", 10, false, HDR(1, 0x80, 0, 1000, 34, 16),
	  F_TCP4, 3000, NULL },
	{ "gso_size 0", 10, false, HDR(1, 1, 0, 0, 34, 16), F_TCP4, 3000,
	  NULL },
	{ "gso_size 0xffff", 10, false, HDR(1, 1, 0, 0xFFFF, 34, 16), F_TCP4,
	  3000, NULL },
	{ "tso csum_offset 6", 10, false, HDR(1, 1, 0, 1000, 34, 6), F_TCP4,
	  3000, NULL },
	{ "tso6 csum_offset 17", 10, false, HDR(1, 4, 0, 1000, 54, 17),
	  F_TCP6, 3000, NULL },
	{ "uso csum_offset 16", 10, false, HDR(1, 5, 0, 1000, 34, 16), F_UDP4,
	  3000, NULL },
	{ "uso without csum", 10, false, HDR(0, 5, 0, 1000, 0, 0), F_UDP4,
	  3000, NULL },
	{ "uso ecn", 10, false, HDR(1, 0x85, 0, 1000, 34, 6), F_UDP4, 3000,
	  NULL },
	{ "uso 129 segs", 10, false, HDR(1, 5, 0, 100, 34, 6), F_UDP4, 12801,
	  NULL },
	{ "hdr_len past end", 10, false, HDR(0, 0, 200, 0, 0, 0), F_TCP4, 100,
	  NULL },
	{ "hdr_len 13", 10, false, HDR(0, 0, 13, 0, 0, 0), F_TCP4, 100, NULL },
	{ "frame 13 bytes", 10, false, HDR(0, 0, 0, 0, 0, 0), F_ZERO, 13,
	  NULL },
	{ "csum field past end", 10, false, HDR(1, 0, 0, 0, 34, 200), F_TCP4,
	  100, NULL },
	{ "tcp header past end", 10, false, HDR(1, 1, 0, 1, 140, 16), F_TCP4,
	  105, NULL },
	{ "csum_start 10", 10, false, HDR(1, 1, 0, 1000, 10, 16), F_TCP4, 3000,
	  NULL },
	{ "tso6 csum_start 39", 10, false, HDR(1, 4, 0, 1000, 39, 16), F_TCP6,
	  3000, NULL },
	{ "tcpv4 without csum on ipv6", 10, false, HDR(0, 1, 0, 1000, 0, 0),
	  F_TCP6, 3000,
	  "without NEEDS_CSUM the kernel on a TAP only compares the L4 "
	  "protocol, not the IP version (and voff wants NEEDS_CSUM)" },
	{ "tunnel type not negotiated", 10, false,
	  HDR(1, 0x21, 0, 1000, 84, 16), F_VXLAN44, 3000, NULL },
	/* ---- voff stricter ---- */
	{ "tso4 csum_start 20 (inside IP)", 10, false,
	  HDR(1, 1, 0, 1000, 20, 16), F_TCP4, 3000,
	  "kernel counts 20 from the frame start; voff wants the TCP header" },
	{ "tso4 csum_start past TCP", 10, false, HDR(1, 1, 0, 1000, 54, 16),
	  F_TCP4, 3000,
	  "kernel fails later at segmentation; voff rejects at the header" },
	{ "partial csum tcp, offset 6", 10, false, HDR(1, 0, 0, 0, 34, 6),
	  F_TCP4, 100,
	  "kernel would write the checksum into the TCP ack number" },
	{ "tso4 without needs_csum", 10, false, HDR(0, 1, 0, 1000, 0, 0),
	  F_TCP4, 3000,
	  "the L4 checksum field has no defined meaning; all real senders "
	  "set NEEDS_CSUM with GSO" },
	{ "ufo without needs_csum", 10, false, HDR(0, 3, 0, 1000, 0, 0),
	  F_UDP4, 3000, "as for TCP: GSO requires NEEDS_CSUM" },
	{ "ufo ecn", 10, false, HDR(1, 0x83, 0, 1000, 34, 6), F_UDP4, 3000,
	  "ECN means CWR handling, which only TCP has" },
	{ "unknown flag 0x10", 10, false, HDR(0x10, 0, 0, 0, 0, 0), F_TCP4, 100,
	  "unknown flags are reserved; the kernel ignores them" },
	{ "rsc_info flag", 10, false, HDR(4, 0, 0, 0, 0, 0), F_TCP4, 100,
	  "RSC_EXT is never negotiated by voff" },
	{ "udp_tunnel_csum without tunnel", 10, false,
	  HDR(8, 0, 0, 0, 0, 0), F_TCP4, 100,
	  "the flag means nothing without tunnel GSO" },
	{ "tcpv4 gso with csum on ipv6", 10, false,
	  HDR(1, 1, 0, 1000, 54, 16), F_TCP6, 3000,
	  "with NEEDS_CSUM the kernel does not compare the protocol" },
	{ "tcpv4 gso on an ARP ethertype", 10, false,
	  HDR(1, 1, 0, 1000, 34, 16), F_ARP_TCP4, 3000,
	  "with NEEDS_CSUM the kernel does not compare the protocol" },
	{ "gso frame that does not parse", 10, false,
	  HDR(1, 1, 0, 1000, 34, 16), F_IHL4_TCP4, 3000,
	  "offloads are only applied to frames voff can parse" },
	{ "gso frame with padding", 10, false, HDR(1, 1, 0, 1000, 34, 16),
	  F_PAD_TCP4, 3000,
	  "bytes after the IP packet would be segmented as payload" },
	{ "partial csum on an IP header", 10, false, HDR(1, 0, 0, 0, 24, 10),
	  F_TCP4, 100, "csum_start must be a TCP or UDP header" },
	/* ---- tunnel GSO (24-byte header, TUN_F_UDP_TUNNEL_GSO) ---- */
	{ "vxlan tso4", 24, true, HDR(1, 0x21, 104, 1000, 84, 16), F_VXLAN44,
	  3000, NULL },
	{ "vxlan both outer versions", 24, true,
	  HDR(1, 0x61, 104, 1000, 84, 16), F_VXLAN44, 3000, NULL },
	{ "vxlan data_valid", 24, true, HDR(3, 0x21, 104, 1000, 84, 16),
	  F_VXLAN44, 3000,
	  "kernel-model.md §5.2 rule 9 forbids DATA_VALID with tunnel GSO; "
	  "6.18's tun write "
	  "path ignores the flag instead (observed here)" },
	{ "vxlan without csum", 24, true, HDR(0, 0x21, 104, 1000, 0, 0),
	  F_VXLAN44, 3000, NULL },
	{ "vxlan ufo inner", 24, true, HDR(1, 0x23, 104, 1000, 84, 6),
	  F_VXLAN44, 3000, NULL },
	{ "vxlan outer_th in IP", 24, true, HDR(1, 0x21, 104, 1000, 84, 16),
	  F_VXLAN44, 3000, NULL },
	{ "vxlan inner_nh wrong but ordered", 24, true,
	  HDR(1, 0x21, 104, 1000, 84, 16), F_VXLAN44, 3000,
	  "the offsets must name the tunnel voff parses" },
};

/* Per-case tunnel offsets for the tunnel rows (outer_th, inner_nh). */
static void tunnel_offsets(const struct ocase *c, struct voff_vnet_hdr *h)
{
	if (!c->tunnel)
		return;
	h->outer_th_offset = 34;
	h->inner_nh_offset = 64;
	if (!strcmp(c->name, "vxlan outer_th in IP"))
		h->outer_th_offset = 20;
	if (!strcmp(c->name, "vxlan inner_nh wrong but ordered"))
		h->inner_nh_offset = 50;
}

/* TUN (L3) cases: IPv4 at 0 (L4 20), IPv6 (L4 40). */
static const struct ocase tun_cases[] = {
	{ "wg tcp4 200/100", 10, false, HDR(1, 1, 40, 100, 20, 16), F_TCP4, 200,
	  NULL },
	{ "wg tcp6 200/100", 10, false, HDR(1, 4, 60, 100, 40, 16), F_TCP6, 200,
	  NULL },
	{ "wg udp4 200/100", 10, false, HDR(1, 5, 28, 100, 20, 6), F_UDP4, 200,
	  NULL },
	{ "wg udp6 200/100", 10, false, HDR(1, 5, 48, 100, 40, 6), F_UDP6, 200,
	  NULL },
	{ "tun plain", 10, false, HDR(0, 0, 0, 0, 0, 0), F_TCP4, 10, NULL },
	{ "tun hdr_len 13", 10, false, HDR(0, 0, 13, 0, 0, 0), F_TCP4, 10,
	  NULL },
	{ "tun csum_start 19", 10, false, HDR(1, 1, 0, 100, 19, 16), F_TCP4,
	  200, NULL },
	{ "tun ip version 1", 10, false, HDR(0, 0, 0, 0, 0, 0), F_VER1, 40,
	  NULL },
	{ "tun tso offset 6", 10, false, HDR(1, 1, 0, 100, 20, 6), F_TCP4, 200,
	  NULL },
	{ "tun uso 129 segs", 10, false, HDR(1, 5, 0, 10, 20, 6), F_UDP4, 1291,
	  NULL },
	{ "tun tso csum_start 24", 10, false, HDR(1, 1, 0, 100, 24, 16),
	  F_TCP4, 200, "csum_start must be the TCP header" },
};

static size_t build(const struct ocase *c, bool l2)
{
	struct tf b;
	bool v6 = c->f == F_TCP6 || c->f == F_UDP6;
	bool udp = c->f == F_UDP4 || c->f == F_UDP6;
	size_t len;

	if (c->f == F_ZERO || c->f == F_VER1) {
		memset(frame, 0, c->payload);
		if (c->f == F_VER1)
			frame[0] = 0x15;
		return c->payload;
	}
	tf_init(&b, frame, sizeof(frame));
	if (l2)
		tf_eth(&b);
	if (c->f == F_VXLAN44) {
		tf_ipv4(&b, &(struct tf_ip){ 0 });
		tf_udp(&b, &(struct tf_l4){ .sport = 40000, .dport = 4789 });
		tf_vxlan(&b, 42);
		tf_eth(&b);
	}
	if (v6)
		tf_ipv6(&b, &(struct tf_ip){ 0 });
	else
		tf_ipv4(&b, &(struct tf_ip){ .id = 7 });
	if (udp)
		tf_udp(&b, &(struct tf_l4){ .sport = 1, .dport = 1 });
	else
		tf_tcp(&b, &(struct tf_l4){ .sport = 1, .dport = 1, .ack = 1,
					    .flags = TF_ACK });
	tf_payload(&b, c->payload, 0);
	len = tf_finish(&b);
	CHECK(len > 0);
	if (c->f == F_ARP_TCP4)
		frame[13] = 0x06;
	if (c->f == F_IHL4_TCP4)
		frame[14] = 0x44;
	if (c->f == F_PAD_TCP4) {
		memset(frame + len, 0, 4);
		len += 4;
	}
	return len;
}

/* Open a TAP or TUN with a vnet header of @size in this namespace. */
/* Byte order of the headers written, for the TUNSETVNETBE/LE run. */
static uint8_t order = VOFF_VNET_LE;

static int open_dev(bool tap, int size, bool tunnel)
{
	struct ifreq ifr;
	int fd, s;
	unsigned int off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;

	fd = open("/dev/net/tun", O_RDWR);
	CHECK_MSG(fd >= 0, "open /dev/net/tun: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "vo0");
	ifr.ifr_flags = (short)((tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI |
				IFF_VNET_HDR);
	CHECK_MSG(ioctl(fd, TUNSETIFF, &ifr) == 0, "TUNSETIFF: %s",
		  strerror(errno));
	CHECK_MSG(ioctl(fd, TUNSETVNETHDRSZ, &size) == 0,
		  "TUNSETVNETHDRSZ: %s", strerror(errno));
	if (order == VOFF_VNET_BE) {
		int on = 1;

		/* Needs CONFIG_TUN_VNET_CROSS_LE on a little-endian host. */
		if (ioctl(fd, TUNSETVNETBE, &on) != 0)
			CHECK_SKIP("TUNSETVNETBE: %s", strerror(errno));
	} else {
		int on = 1;

		CHECK_MSG(ioctl(fd, TUNSETVNETLE, &on) == 0,
			  "TUNSETVNETLE: %s", strerror(errno));
	}
	if (tunnel) {
		off |= TUN_F_UDP_TUNNEL_GSO | TUN_F_UDP_TUNNEL_GSO_CSUM;
		if (ioctl(fd, TUNSETOFFLOAD, off) != 0)
			CHECK_SKIP("kernel without UDP tunnel GSO on tun: %s",
				   strerror(errno));
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(s >= 0);
	CHECK(ioctl(s, SIOCGIFFLAGS, &ifr) == 0);
	ifr.ifr_flags |= IFF_UP;
	CHECK_MSG(ioctl(s, SIOCSIFFLAGS, &ifr) == 0, "up: %s",
		  strerror(errno));
	close(s);
	return fd;
}

static void enter_netns(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);	/* keep lines on a failure */
	if (geteuid() != 0)
		CHECK_SKIP("not root");
	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		CHECK_SKIP("no /dev/net/tun");
	if (unshare(CLONE_NEWNET) != 0)
		CHECK_SKIP("unshare(CLONE_NEWNET): %s", strerror(errno));
}

/* Run one table; return the number of deliberate differences. */
static unsigned int run(const struct ocase *cases, size_t n, bool tap)
{
	unsigned int agree = 0, stricter = 0, bad = 0;
	int fds[32] = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct ocase *c = &cases[i];
		struct voff_vnet_cfg cfg = {
			.hdr_size = c->size, .tunnel = c->tunnel,
			.order = order,
			.mode = tap ? VOFF_VNET_L2 : VOFF_VNET_L3,
		};
		struct voff_vnet_hdr h = c->h;
		struct voff_pkt pkt;
		size_t len = build(c, tap);
		int idx = c->size + (c->tunnel ? 1 : 0), vo;
		ssize_t w;
		bool k_ok, v_ok;

		tunnel_offsets(c, &h);
		if (!fds[idx]) {
			/* one device per header size: a new namespace each */
			for (int j = 0; j < 32; j++)
				if (fds[j])
					close(fds[j]);
			memset(fds, 0, sizeof(fds));
			CHECK(unshare(CLONE_NEWNET) == 0);
			fds[idx] = open_dev(tap, c->size, c->tunnel);
		}
		CHECK_EQ(voff_vnet_hdr_write(&cfg, &h, wire, sizeof(wire)),
			 c->size);
		memcpy(wire + c->size, frame, len);
		w = write(fds[idx], wire, c->size + len);
		CHECK_MSG(w >= 0 || errno == EINVAL, "%s: write: %s", c->name,
			  strerror(errno));
		k_ok = w == (ssize_t)(c->size + len);
		CHECK_OK(voff_pkt_init_ext(&pkt, frame, sizeof(frame), 0,
					   (uint32_t)len));
		vo = voff_vnet_decode(&cfg, wire, c->size, &pkt);
		v_ok = vo == 0;
		printf("# %-36s kernel %-6s voff %-6s %s%s\n", c->name,
		       k_ok ? "accept" : "reject",
		       v_ok ? "accept" : "reject",
		       v_ok ? "" : voff_err_name(vo),
		       c->stricter && !k_ok == !v_ok ? "  (expected stricter!)"
						   : "");
		if (c->stricter && k_ok && !v_ok) {
			printf("#   voff stricter: %s\n", c->stricter);
			stricter++;
		} else if (!c->stricter && k_ok == v_ok) {
			agree++;
		} else {
			bad++;
		}
	}
	printf("# %zu cases: %u agree, %u voff stricter (documented), "
	       "%u unexpected\n", n, agree, stricter, bad);
	CHECK_EQ(bad, 0);
	return stricter;
}

static void t_oracle_tap(void)
{
	enter_netns();
	run(tap_cases, sizeof(tap_cases) / sizeof(tap_cases[0]), true);
}

static void t_oracle_tun(void)
{
	enter_netns();
	run(tun_cases, sizeof(tun_cases) / sizeof(tun_cases[0]), false);
}

/* Big-endian headers (legacy BE peers), where the kernel supports them. */
static void t_oracle_tap_be(void)
{
	enter_netns();
	order = VOFF_VNET_BE;
	run(tap_cases, sizeof(tap_cases) / sizeof(tap_cases[0]), true);
}

CHECK_MAIN(CHECK_TEST(t_oracle_tap), CHECK_TEST(t_oracle_tun),
	   CHECK_TEST(t_oracle_tap_be))
