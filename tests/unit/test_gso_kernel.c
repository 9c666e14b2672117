/* SPDX-License-Identifier: MIT */
/*
 * test_gso_kernel.c - the running kernel as the oracle of software GSO
 *
 *   this process, in a private network namespace (unshare):
 *
 *     AF_PACKET + PACKET_VNET_HDR --write--> [ gsoa ]===veth===[ gsob ]
 *                                              |  tso/gso/uso off (and
 *     AF_PACKET capture on gsoa, OUTGOING <-+  tx-checksumming off
 *                                                  for full checksums)
 *
 * Random super-packets, 500 per family (TCP4, TCP6, USO over IPv4/IPv6,
 * VLAN-tagged, UFO over IPv4 and IPv6, VXLAN/Geneve tunnels; IPv4 options, IPv6
 * extension headers, TCP options, flag mixes, odd remainders) are written
 * through the vnet-header socket; the kernel segments them in software at
 * gsoa's egress and the capture socket sees the segments on the
 * transmit tap, before any receive path: this avoids the per-CPU backlog
 * limit (about 1000 frames) and the receive-side VLAN untagging of
 * docs/kernel-model.md §6.1.  voff must produce the same bytes: with gsoa's
 * tx checksumming
 * off, voff's full-checksum mode; with it on, voff's partial mode (the
 * kernel leaves the pseudo-header seed for the device).
 *
 * Tunnels cannot be written through AF_PACKET (its vnet header has no
 * tunnel GSO), so VXLAN and Geneve super-packets enter through a TAP with
 * the 24-byte tunnel vnet header of Linux 6.17+ and are redirected by tc
 * from the TAP's ingress to gsoa's egress:
 *
 *     TAP gsot (IFF_VNET_HDR, 24 bytes, UDP_TUNNEL_GSO[_CSUM] offload)
 *        | tc ingress u32 (match all), mirred egress redirect
 *        v
 *     [ gsoa ] --> capture as above
 *
 * GRE has no virtio GSO type at all; it is covered by the naive twin in
 * test_gso.c only.  Root only (CHECK_SKIP otherwise).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
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
#include "gso_twin.h"

#define CASES 500
#define BUF 70000
#define MAXSEG 400

static uint8_t sbuf[BUF], rbuf[BUF];
static struct voff_pkt *out[MAXSEG];
static int tx_fd, cap_fd, ifindex, tap_fd = -1;

/* struct virtio_net_hdr_v1_hash_tunnel (6.17+), little-endian fields. */
struct vnet_tnl {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
	uint32_t hash_value;
	uint16_t hash_report;
	uint16_t padding;
	uint16_t outer_th_offset;
	uint16_t inner_nh_offset;
};

_Static_assert(sizeof(struct vnet_tnl) == 24, "tunnel vnet header");

#define VNET_GSO_UDP_TUNNEL_IPV4 0x20
#define VNET_GSO_UDP_TUNNEL_IPV6 0x40
#define VNET_F_UDP_TUNNEL_CSUM 0x08
#define TUNF_USO4 0x20
#define TUNF_USO6 0x40
#define TUNF_UDP_TUNNEL_GSO 0x80
#define TUNF_UDP_TUNNEL_GSO_CSUM 0x100

static void sh(const char *cmd)
{
	if (system(cmd) != 0)
		CHECK_SKIP("setup failed: %s", cmd);
}

/* A private namespace with the veth pair; @csum_on keeps tx checksums. */
static void setup(bool csum_on)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	int one = 1, big = 64 << 20;

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
	ifindex = (int)if_nametoindex("gsoa");
	CHECK_GT(ifindex, 0);
	ll.sll_ifindex = ifindex;

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

/* The TAP that injects tunnelled super-packets, redirected to gsoa. */
static void setup_tap(void)
{
	struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR };
	unsigned int off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUNF_USO4 |
			   TUNF_USO6 | TUNF_UDP_TUNNEL_GSO |
			   TUNF_UDP_TUNNEL_GSO_CSUM;
	int sz = (int)sizeof(struct vnet_tnl);

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

/* Write a tunnelled super-packet through the TAP. */
static void send_tunnel(const struct voff_pkt *pkt, const struct spec *s,
			const struct built *sb)
{
	struct vnet_tnl vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM |
			 (s->tun_csum ? VNET_F_UDP_TUNNEL_CSUM : 0),
		.gso_type = s->udp ? 5 : s->v6 ? VIRTIO_NET_HDR_GSO_TCPV6
					       : VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = (uint16_t)(sb->len - s->pay),
		.gso_size = (uint16_t)s->mss,
		.csum_start = (uint16_t)tf_off(&sb->b, sb->l4),
		.csum_offset = s->udp ? 6 : 16,
		.outer_th_offset = (uint16_t)tf_off(&sb->b, sb->tun_l4),
		.inner_nh_offset = (uint16_t)tf_off(&sb->b, sb->in_l3),
	};
	struct iovec iov[2] = {
		{ &vh, sizeof(vh) },
		{ voff_pkt_data(pkt), pkt->len },
	};
	ssize_t n;

	vh.gso_type |= s->outer_v6 ? VNET_GSO_UDP_TUNNEL_IPV6
				   : VNET_GSO_UDP_TUNNEL_IPV4;
	n = writev(tap_fd, iov, 2);
	CHECK_MSG(n == (ssize_t)(sizeof(vh) + pkt->len), "tap writev: %zd (%s)",
		  n, strerror(errno));
}

/* Write @len bytes of sbuf as a super-packet described by @pkt. */
static void send_super(const struct voff_pkt *pkt, uint16_t csum_start,
		       uint16_t csum_off, uint16_t hdr_len)
{
	struct virtio_net_hdr vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.hdr_len = hdr_len,
		.gso_size = pkt->gso_size,
		.csum_start = csum_start,
		.csum_offset = csum_off,
	};
	struct iovec iov[2] = {
		{ &vh, sizeof(vh) },
		{ voff_pkt_data(pkt), pkt->len },
	};
	ssize_t n;

	if (pkt->gso_type & VOFF_GSO_UDP)
		vh.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	else if (pkt->gso_type & VOFF_GSO_UDP_L4)
		vh.gso_type = 5;	/* GSO_UDP_L4 (newer headers) */
	else if (pkt->gso_type & VOFF_GSO_TCPV6)
		vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV6;
	else
		vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	if (pkt->gso_type & VOFF_GSO_TCP_ECN)
		vh.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	n = writev(tx_fd, iov, 2);
	CHECK_MSG(n == (ssize_t)(sizeof(vh) + pkt->len),
		  "writev: %zd (%s)", n, strerror(errno));
}

/* Next outgoing frame of ours on a (source MAC 02:..:01); 0 on timeout. */
static size_t capture(void)
{
	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct pollfd pfd = { .fd = cap_fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 500) <= 0)
			return 0;
		n = recvfrom(cap_fd, rbuf, sizeof(rbuf), 0,
			     (struct sockaddr *)&from, &fl);
		CHECK_GE(n, 0);
		if (from.sll_pkttype != PACKET_OUTGOING || n < 14 ||
		    rbuf[6] != 2 || rbuf[11] != 1)
			continue;
		return (size_t)n;
	}
}

enum fam { F_TCP4, F_TCP6, F_USO, F_VLAN, F_UFO, F_UFO6, F_TUN };

static void kernel_spec(struct spec *s, enum fam f)
{
	static const uint8_t flag_sets[] = {
		TF_ACK, TF_ACK | TF_PSH, TF_ACK | TF_FIN | TF_PSH,
		TF_ACK | TF_CWR | TF_ECE, TF_ACK | TF_URG | TF_PSH,
		TF_ACK | TF_CWR | TF_PSH | TF_FIN, 0xFF & ~(TF_SYN | TF_RST),
	};
	uint32_t max_segs;

	memset(s, 0, sizeof(*s));
	s->v6 = f == F_TCP6 || ((f == F_USO || f == F_VLAN) && check_rnd(2));
	s->udp = f == F_USO || (f == F_VLAN && check_rnd(3) == 0);
	s->n_vlan = f == F_VLAN ? (uint8_t)(1 + check_rnd(2)) : 0;
	s->v4_opt = (uint8_t)(check_rnd(4) == 0 ? 4 * check_rnd(11) : 0);
	s->n_ext = (uint8_t)(s->v6 && check_rnd(3) == 0 ? 1 + check_rnd(3) : 0);
	s->tcp_opt = (uint8_t)(4 * check_rnd(11));
	s->flags = flag_sets[check_rnd(sizeof(flag_sets))];
	s->seq = (uint32_t)check_rand();
	s->id = (uint16_t)check_rand();
	s->df = check_rnd(2);
	s->tos = (uint8_t)check_rnd(256);
	/* virtio has no FIXEDID: the kernel always increments the ID. */
	if (!s->udp && check_rnd(4) == 0)
		s->extra = VOFF_GSO_TCP_ECN;
	/* gso_size >= 8 (the kernel raises smaller TCP sizes to 8). */
	s->mss = 8 + check_rnd(check_rnd(2) ? 1400 : 8900);
	max_segs = s->udp ? 128 : MAXSEG;
	/* Payload above one MSS: a payload that fits is no GSO packet. */
	s->pay = s->mss + 1 + check_rnd(check_rnd(2) ? 4 * s->mss : 60000);
	if (s->pay > 65000 - 200)
		s->pay = 65000 - 200;
	if (s->pay <= s->mss)
		s->mss = s->pay / 2;
	if ((s->pay + s->mss - 1) / s->mss > max_segs)
		s->mss = (s->pay + max_segs - 1) / max_segs;
	s->seed = (uint8_t)check_rnd(256);
	if (f == F_TUN) {
		s->tun = check_rnd(2) ? TUN_VXLAN : TUN_GENEVE;
		s->outer_v6 = check_rnd(2);
		s->tun_csum = check_rnd(2);
		s->outer_id = (uint16_t)check_rand();
		s->n_ext = 0;
		s->v4_opt = 0;
	}
	if (f == F_UFO || f == F_UFO6) {
		/*
		 * IPv6 UFO draws a random fragment ID: one_case() adopts the
		 * one of the kernel's first fragment.
		 */
		s->v6 = f == F_UFO6;
		s->n_ext = (uint8_t)(s->v6 ? check_rnd(4) : 0);
		s->udp = false;
		s->ufo = true;
		s->mss = 8 * (1 + check_rnd(1100));
		s->pay = s->mss + check_rnd(check_rnd(2) ? 4 * s->mss : 60000);
		if (s->pay > 65000 - 200)
			s->pay = 65000 - 200;
		while ((s->pay + 8 + s->mss - 1) / s->mss > MAXSEG)
			s->mss += 8;
	}
}

/*
 * Linux 6.18 numbers IPv6 UFO fragments by adding each fragment's
 * payload length minus the fragment header (ipv6_gso_segment()), which
 * counts the unfragmentable extension headers too: with them, fragment i's
 * offset is i * their length too large, and the datagram cannot be
 * reassembled.  voff writes the RFC 8200 offsets; here the kernel's are
 * derived from voff's so that the test pins that difference exactly.
 */
static uint8_t *kernel_frag_off(const struct spec *s, const struct built *sb,
				const uint8_t *v, size_t len, int i)
{
	static uint8_t fixed[BUF];
	size_t fh = tf_off(&sb->b, sb->l4);	/* the fragment header */
	uint32_t ext = (uint32_t)(fh - tf_off(&sb->b, sb->l3) - 40);
	uint32_t off;

	(void)s;
	memcpy(fixed, v, len);
	off = (uint32_t)(fixed[fh + 2] << 8 | fixed[fh + 3]);
	off += (uint32_t)i * ext;
	fixed[fh + 2] = (uint8_t)(off >> 8);
	fixed[fh + 3] = (uint8_t)off;
	return fixed;
}

static void one_case(const struct spec *s, bool csum_on, int k)
{
	static struct voff_pool *pool;
	struct voff_gso_opts o = {
		.csum_mode = csum_on ? VOFF_GSO_CSUM_PARTIAL
				     : VOFF_GSO_CSUM_FULL,
	};
	static uint8_t first[BUF];
	struct voff_gso_info info;
	struct voff_pkt sp;
	struct built sb;
	size_t got0;
	uint16_t l4;
	int n;

	if (!pool)
		CHECK_OK(voff_pool_new(&pool, MAXSEG, 9200));
	CHECK(twin_build(s, sbuf, BUF, -1, 0, 0, s->pay, &sb));
	twin_make_partial(&sb, sbuf, s->udp || s->ufo);
	twin_pkt(s, &sp, sbuf, BUF, &sb);
	l4 = (uint16_t)tf_off(&sb.b, sb.l4);
	CHECK_OK(voff_gso_count(&sp, &o, &info));
	n = (int)info.segs;
	if (s->tun) {
		/* The outer UDP checksum field carries its pseudo seed. */
		if (s->tun_csum) {
			size_t u = tf_off(&sb.b, sb.tun_l4);
			uint16_t seed = twin_fold(twin_pseudo(
				sbuf + tf_off(&sb.b, sb.l3), 17,
				(uint32_t)(sb.len - u)));

			sbuf[u + 6] = (uint8_t)(seed >> 8);
			sbuf[u + 7] = (uint8_t)seed;
		}
		send_tunnel(&sp, s, &sb);
	} else {
		send_super(&sp, l4, s->udp || s->ufo ? 6 : 16,
			   (uint16_t)(sb.len - s->pay));
	}
	/* The first frame: for IPv6 UFO it tells the fragment ID. */
	got0 = capture();
	CHECK_MSG(got0, "case %d: nothing captured", k);
	memcpy(first, rbuf, got0);
	if (s->ufo && s->v6 && got0 >= l4 + 8u)
		o.ipv6_frag_id = (uint32_t)first[l4 + 4] << 24 |
				 (uint32_t)first[l4 + 5] << 16 |
				 (uint32_t)first[l4 + 6] << 8 | first[l4 + 7];
	CHECK_EQ(voff_gso_segment(&sp, &o, pool, out, MAXSEG), n);
	for (int i = 0; i < n; i++) {
		size_t got = i ? capture() : got0;

		if (!i)
			memcpy(rbuf, first, got0);

		CHECK_MSG(got, "case %d: segment %d of %d missing (mss %u "
			  "pay %u)", k, i, n, s->mss, s->pay);
		CHECK_MSG(got == out[i]->len,
			  "case %d seg %d: kernel %zu bytes, voff %u", k, i,
			  got, out[i]->len);
		uint8_t *v = voff_pkt_data(out[i]);

		if (s->ufo && s->v6 && i > 0)
			v = kernel_frag_off(s, &sb, v, out[i]->len, i);
		for (size_t j = 0; j < got; j++)
			CHECK_MSG(rbuf[j] == v[j],
				  "case %d (v6 %d udp %d vlan %d tun %d/%d/%d "
				  "mss %u pay %u) seg %d/%d byte %zu: kernel "
				  "%02x voff %02x",
				  k, s->v6, s->udp, s->n_vlan, s->tun,
				  s->outer_v6, s->tun_csum, s->mss, s->pay,
				  i, n, j, rbuf[j], v[j]);
	}
	voff_pkt_free_bulk(out, (unsigned int)n);
}

static void family(enum fam f, bool csum_on)
{
	struct spec s;

	setup(csum_on);
	if (f == F_TUN)
		setup_tap();
	for (int k = 0; k < CASES; k++) {
		kernel_spec(&s, f);
		one_case(&s, csum_on, k);
	}
}

/* docs/kernel-model.md §4.8 as the kernel does it, both checksum modes. */
static void t_kernel_model_case(void)
{
	struct spec s = { .mss = 1000, .pay = 3072, .id = 0x1234, .df = true,
			  .flags = TF_ACK | TF_CWR | TF_PSH | TF_FIN };

	setup(false);
	one_case(&s, false, 0);
}

static void t_kernel_tcp4_full(void) { family(F_TCP4, false); }
static void t_kernel_tcp4_partial(void) { family(F_TCP4, true); }
static void t_kernel_tcp6_full(void) { family(F_TCP6, false); }
static void t_kernel_tcp6_partial(void) { family(F_TCP6, true); }
static void t_kernel_uso_full(void) { family(F_USO, false); }
static void t_kernel_uso_partial(void) { family(F_USO, true); }
static void t_kernel_vlan_full(void) { family(F_VLAN, false); }
static void t_kernel_vlan_partial(void) { family(F_VLAN, true); }
static void t_kernel_ufo(void) { family(F_UFO, false); }
static void t_kernel_ufo6(void) { family(F_UFO6, false); }
static void t_kernel_tunnel_full(void) { family(F_TUN, false); }
static void t_kernel_tunnel_partial(void) { family(F_TUN, true); }

CHECK_MAIN(CHECK_TEST(t_kernel_model_case), CHECK_TEST(t_kernel_tcp4_full),
	   CHECK_TEST(t_kernel_tcp4_partial), CHECK_TEST(t_kernel_tcp6_full),
	   CHECK_TEST(t_kernel_tcp6_partial), CHECK_TEST(t_kernel_uso_full),
	   CHECK_TEST(t_kernel_uso_partial), CHECK_TEST(t_kernel_vlan_full),
	   CHECK_TEST(t_kernel_vlan_partial), CHECK_TEST(t_kernel_ufo),
	   CHECK_TEST(t_kernel_ufo6),
	   CHECK_TEST(t_kernel_tunnel_full),
	   CHECK_TEST(t_kernel_tunnel_partial))
