/* SPDX-License-Identifier: MIT */
/*
 * gso_oracle.c - the kernel's software GSO as an oracle: namespace, veth,
 * TAP, sending super-packets and capturing segments (see gso_oracle.h)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <voff/voff.h>

#include "check.h"
#include "frames.h"
#include "gso_oracle.h"
#include "gso_twin.h"

static int tx_fd = -1, cap_fd = -1, tap_fd = -1;

#define TUNF_USO4 0x20
#define TUNF_USO6 0x40
#define TUNF_UDP_TUNNEL_GSO 0x80
#define TUNF_UDP_TUNNEL_GSO_CSUM 0x100

static void sh(const char *cmd)
{
	if (system(cmd) != 0)
		CHECK_SKIP("setup failed: %s", cmd);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void gso_oracle_setup(bool csum_on)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	int one = 1, big = 64 << 20;

	close_fd(&tx_fd);
	close_fd(&cap_fd);
	close_fd(&tap_fd);
	if (geteuid() != 0)
		CHECK_SKIP("needs root for a network namespace");
	if (unshare(CLONE_NEWNET) != 0)
		CHECK_SKIP("unshare(CLONE_NEWNET): %s", strerror(errno));
	sh("ip link add name gsoa type veth peer name gsob");
	sh("ip link set gsoa mtu 9100 && ip link set gsob mtu 9100");
	sh("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null;"
	   " sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null;"
	   " true");
	sh("ethtool -K gsoa tso off gso off tx-udp-segmentation off "
	   "tx-gso-partial off tx-udp_tnl-segmentation off "
	   "tx-udp_tnl-csum-segmentation off >/dev/null 2>&1 || true");
	if (!csum_on)
		sh("ethtool -K gsoa tx off >/dev/null 2>&1");
	sh("ip link set gsoa up && ip link set gsob up");
	ll.sll_ifindex = (int)if_nametoindex("gsoa");
	CHECK_GT(ll.sll_ifindex, 0);

	tx_fd = socket(AF_PACKET, SOCK_RAW, 0);
	CHECK_GE(tx_fd, 0);
	CHECK_OK(setsockopt(tx_fd, SOL_PACKET, PACKET_VNET_HDR, &one,
			    sizeof(one)));
	ll.sll_protocol = 0;
	CHECK_OK(bind(tx_fd, (struct sockaddr *)&ll, sizeof(ll)));

	cap_fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	CHECK_GE(cap_fd, 0);
	(void)setsockopt(cap_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big,
			 sizeof(big));
	ll.sll_protocol = htons(ETH_P_ALL);
	CHECK_OK(bind(cap_fd, (struct sockaddr *)&ll, sizeof(ll)));
}

void gso_oracle_setup_tap(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	unsigned int off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUNF_USO4 |
			   TUNF_USO6 | TUNF_UDP_TUNNEL_GSO |
			   TUNF_UDP_TUNNEL_GSO_CSUM;
	int sz = VOFF_VNET_HDR_TNL_LEN;

	tap_fd = open("/dev/net/tun", O_RDWR);
	if (tap_fd < 0)
		CHECK_SKIP("/dev/net/tun: %s", strerror(errno));
	strcpy(ifr.ifr_name, "gsot");
	CHECK_OK(ioctl(tap_fd, TUNSETIFF, &ifr));
	CHECK_OK(ioctl(tap_fd, TUNSETVNETHDRSZ, &sz));
	if (ioctl(tap_fd, TUNSETOFFLOAD, off) != 0)
		CHECK_SKIP("no UDP tunnel GSO on this TAP (Linux < 6.17?)");
	sh("ip link set gsot up");
	sh("tc qdisc add dev gsot ingress && tc filter add dev gsot ingress "
	   "protocol all u32 match u32 0 0 action mirred egress "
	   "redirect dev gsoa");
}

/*
 * The virtio gso_type of a super-packet's inner protocol; ECN only for
 * plain ones (the kernel puts CWR on the first segment either way).
 */
static uint8_t inner_type(const struct voff_pkt *pkt)
{
	uint8_t t;

	if (pkt->gso_type & VOFF_GSO_UDP)
		t = VOFF_VNET_GSO_UDP;
	else if (pkt->gso_type & VOFF_GSO_UDP_L4)
		t = VOFF_VNET_GSO_UDP_L4;
	else if (pkt->gso_type & VOFF_GSO_TCPV6)
		t = VOFF_VNET_GSO_TCPV6;
	else
		t = VOFF_VNET_GSO_TCPV4;
	if ((pkt->gso_type & VOFF_GSO_TCP_ECN) &&
	    !(pkt->gso_type & VOFF_GSO_UDP_TUNNEL))
		t |= VOFF_VNET_GSO_ECN;
	return t;
}

/*
 * The vnet header of @sp built from @s as @sb into @h, and as bytes in
 * host order (as AF_PACKET and a TAP without TUNSETVNETLE take them) into
 * @b; Return: their length.
 */
static size_t vnet_of(const struct spec *s, const struct built *sb,
		      const struct voff_pkt *sp, struct voff_vnet_hdr *h,
		      uint8_t b[VOFF_VNET_HDR_TNL_LEN])
{
	struct voff_vnet_cfg cfg = { .hdr_size = VOFF_VNET_HDR_LEN,
				     .order = VOFF_VNET_NATIVE };

	memset(h, 0, sizeof(*h));
	h->flags = VOFF_VNET_F_NEEDS_CSUM;
	h->gso_type = inner_type(sp);
	h->hdr_len = (uint16_t)(sb->len - s->pay);
	h->gso_size = sp->gso_size;
	h->csum_start = (uint16_t)tf_off(&sb->b, sb->l4);
	h->csum_offset = s->udp || s->ufo ? 6 : 16;
	if (s->tun) {
		cfg.hdr_size = VOFF_VNET_HDR_TNL_LEN;
		cfg.tunnel = true;
		h->flags |= s->tun_csum ? VOFF_VNET_F_UDP_TUNNEL_CSUM : 0;
		h->gso_type |= s->outer_v6 ? VOFF_VNET_GSO_UDP_TUNNEL_IPV6
					   : VOFF_VNET_GSO_UDP_TUNNEL_IPV4;
		h->outer_th_offset = (uint16_t)tf_off(&sb->b, sb->tun_l4);
		h->inner_nh_offset = (uint16_t)tf_off(&sb->b, sb->in_l3);
	}
	CHECK_EQ(voff_vnet_hdr_write(&cfg, h, b, VOFF_VNET_HDR_TNL_LEN),
		 cfg.hdr_size);
	return cfg.hdr_size;
}

size_t gso_oracle_send(const struct spec *s, uint8_t *buf, size_t cap,
		       struct built *sb, struct voff_pkt *sp,
		       struct voff_vnet_hdr *vh)
{
	uint8_t hb[VOFF_VNET_HDR_TNL_LEN];
	size_t vlen;
	ssize_t n;

	CHECK(twin_build(s, buf, cap, -1, 0, 0, s->pay, sb));
	twin_make_partial(sb, buf, s->udp || s->ufo);
	twin_pkt(s, sp, buf, cap, sb);
	/* The outer UDP checksum field carries its pseudo seed. */
	if (s->tun && s->tun_csum) {
		size_t u = tf_off(&sb->b, sb->tun_l4);
		uint16_t seed = twin_fold(twin_pseudo(
			buf + tf_off(&sb->b, sb->l3), 17,
			(uint32_t)(sb->len - u)));

		buf[u + 6] = (uint8_t)(seed >> 8);
		buf[u + 7] = (uint8_t)seed;
	}
	vlen = vnet_of(s, sb, sp, vh, hb);
	struct iovec iov[2] = {
		{ hb, vlen },
		{ voff_pkt_data(sp), sp->len },
	};

	n = writev(s->tun ? tap_fd : tx_fd, iov, 2);
	CHECK_MSG(n == (ssize_t)(vlen + sp->len), "writev: %zd (%s)", n,
		  strerror(errno));
	return vlen;
}

size_t gso_oracle_capture(uint8_t *buf, size_t cap, int timeout_ms)
{
	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pollfd pfd = { .fd = cap_fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
		n = recvfrom(cap_fd, buf, cap, 0, (struct sockaddr *)&from,
			     &fl);
		CHECK_GE(n, 0);
		if (from.sll_pkttype != PACKET_OUTGOING || n < 14 ||
		    buf[6] != 2 || buf[11] != 1)
			continue;
		return (size_t)n;
	}
}

uint32_t gso_oracle_frag_id(const struct built *sb, const uint8_t *first,
			    size_t len)
{
	/* The fragment header sits where the super-packet's UDP header was. */
	size_t l4 = tf_off(&sb->b, sb->l4);

	if (len < l4 + 8)
		return 0;
	return (uint32_t)first[l4 + 4] << 24 | (uint32_t)first[l4 + 5] << 16 |
	       (uint32_t)first[l4 + 6] << 8 | first[l4 + 7];
}
