/* SPDX-License-Identifier: MIT */
/*
 * flood_helper.c - writes malformed frames and hostile virtio_net_hdrs into
 * a TAP device it creates (IFF_VNET_HDR), by reason class, for flood.sh and
 * bench/flood.sh
 *
 * usage: flood_helper IFNAME DST_MAC SRC_MAC
 *
 * Creates TAP IFNAME in the current namespace, sets it up, prints "ready"
 * and then reads commands on stdin, one a line:
 *
 *   list                  one line per class: "INDEX NAME"
 *   send CLASS COUNT GAP  COUNT frames of CLASS (a name or "all": every
 *                         class in turn), a 1 ms pause every GAP frames (0:
 *                         none, full speed); prints per class
 *                         "NAME written W rejected R errno E"
 *   time SECONDS          every bad class in turn at full speed for
 *                         SECONDS; prints the same lines
 *
 * What a write puts into the TAP arrives as the device's received traffic:
 * an AF_PACKET port of `voff switch` bound to IFNAME (packet:IFNAME@NS)
 * reads it with the virtio_net_hdr the kernel rebuilds from the skb.  The
 * kernel validates the header first (virtio_net_hdr_to_skb()): what it
 * refuses fails the write (EINVAL) and is counted here as rejected; the
 * rest reaches the switch, frame bytes as written.  Frames go from SRC_MAC
 * to DST_MAC (a port the switch has learned), so the switch's per-egress
 * checks run on them.
 *
 * No libvoff: frames and headers are built by hand from the wire formats.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#define VH 10	/* struct virtio_net_hdr */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5	/* older uapi headers */
#endif

static uint8_t dst[6], src[6];

struct frame {
	uint8_t b[VH + 16384];
	size_t len;	/* header included */
};

static struct virtio_net_hdr *vh(struct frame *f)
{
	return (struct virtio_net_hdr *)f->b;
}

static uint8_t *eth(struct frame *f)
{
	return f->b + VH;
}

static uint16_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)(p[n - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * A valid Ethernet/IPv4 (or IPv6)/TCP (or UDP) frame of @pay payload bytes;
 * no offload in the header.  Returns the L4 offset.
 */
static size_t build(struct frame *f, int v6, int udp, size_t pay)
{
	uint8_t *e = eth(f), *ip = e + 14, *l4;
	size_t l3len = v6 ? 40 : 20, l4len = udp ? 8 : 20;

	memset(f->b, 0, VH + 14 + l3len + l4len + pay);
	memcpy(e, dst, 6);
	memcpy(e + 6, src, 6);
	put16(e + 12, v6 ? 0x86dd : 0x0800);
	if (v6) {
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)(l4len + pay));
		ip[6] = udp ? 17 : 6;
		ip[7] = 64;
		ip[8] = 0xfd; ip[23] = 1;
		ip[24] = 0xfd; ip[39] = 2;
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(20 + l4len + pay));
		ip[8] = 64;
		ip[9] = udp ? 17 : 6;
		ip[12] = 10; ip[13] = 99; ip[15] = 1;
		ip[16] = 10; ip[17] = 99; ip[19] = 2;
		put16(ip + 10, sum16(ip, 20, 0));
	}
	l4 = ip + l3len;
	put16(l4, 40000);
	put16(l4 + 2, 9);
	if (udp) {
		put16(l4 + 4, (uint16_t)(8 + pay));
	} else {
		l4[12] = 5 << 4;
		l4[13] = 0x18;	/* PSH ACK */
		put16(l4 + 14, 65535);
	}
	for (size_t i = 0; i < pay; i++)
		l4[l4len + i] = (uint8_t)(i * 7);
	f->len = VH + 14 + l3len + l4len + pay;
	return 14 + l3len;
}

/* Partial checksum over the L4 header at @l4 (offset within the frame). */
static void partial(struct frame *f, size_t l4, int udp)
{
	vh(f)->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh(f)->csum_start = (uint16_t)l4;
	vh(f)->csum_offset = udp ? 6 : 16;
}

static void gso(struct frame *f, size_t l4, uint8_t type, uint16_t size)
{
	partial(f, l4, type == VIRTIO_NET_HDR_GSO_UDP_L4);
	vh(f)->gso_type = type;
	vh(f)->gso_size = size;
	vh(f)->hdr_len = (uint16_t)(l4 + (type == VIRTIO_NET_HDR_GSO_UDP_L4 ?
						  8 : 20));
}

/* ---- the classes --------------------------------------------------------- */

typedef void (*make_fn)(struct frame *f);

#define CLASS(n) static void mk_##n(struct frame *f)

/* Controls: valid frames the switch must forward. */
CLASS(ok_plain) { build(f, 0, 1, 200); }
CLASS(ok_csum) { partial(f, build(f, 0, 0, 1000), 0); }
CLASS(ok_gso) { gso(f, build(f, 0, 0, 8000), VIRTIO_NET_HDR_GSO_TCPV4, 1448); }

/* Header against the frame: the kernel is expected to refuse most. */
CLASS(runt) { build(f, 0, 1, 0); f->len = VH + 10; }
CLASS(csum_start_oob)
{
	partial(f, build(f, 0, 0, 100), 0);
	vh(f)->csum_start = 4000;
}
CLASS(csum_off_oob)
{
	partial(f, build(f, 0, 0, 100), 0);
	vh(f)->csum_offset = 3000;
}
CLASS(gso_type_bad)
{
	gso(f, build(f, 0, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	vh(f)->gso_type = 0x33;
}
CLASS(gso_size_0) { gso(f, build(f, 0, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV4, 0); }
CLASS(gso_size_huge)
{
	gso(f, build(f, 0, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV4, 65535);
}
CLASS(gso_no_csum)
{
	gso(f, build(f, 0, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	vh(f)->flags = 0;
}
CLASS(hdr_len_huge)
{
	gso(f, build(f, 0, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	vh(f)->hdr_len = 60000;
}
CLASS(udp_gso_tiny)
{
	gso(f, build(f, 0, 1, 8000), VIRTIO_NET_HDR_GSO_UDP_L4, 1);
}

/* Frame against itself: headers the switch must parse and refuse. */
CLASS(ip_version)
{
	size_t l4 = build(f, 0, 0, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	eth(f)[14] = 0x75;
}
CLASS(ipv4_ihl)
{
	size_t l4 = build(f, 0, 0, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	eth(f)[14] = 0x42;
}
CLASS(ipv4_totlen_short)
{
	size_t l4 = build(f, 0, 0, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	put16(eth(f) + 16, 30);
}
CLASS(ipv4_totlen_long)
{
	size_t l4 = build(f, 0, 0, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	put16(eth(f) + 16, 9000);
}
CLASS(tcp_doff)
{
	size_t l4 = build(f, 0, 0, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	eth(f)[l4 + 12] = 2 << 4;
}
CLASS(l4_mismatch)
{
	size_t l4 = build(f, 0, 1, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
}
CLASS(v6_type_on_v4)
{
	gso(f, build(f, 0, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV6, 1000);
}
CLASS(v4_type_on_v6)
{
	gso(f, build(f, 1, 0, 4000), VIRTIO_NET_HDR_GSO_TCPV4, 1000);
}
CLASS(trunc_tcp)
{
	size_t l4 = build(f, 0, 0, 0);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV4, 1000);
	vh(f)->csum_offset = 6;
	f->len = VH + l4 + 10;
}
CLASS(csum_non_ip)
{
	partial(f, build(f, 0, 0, 500), 0);
	put16(eth(f) + 12, 0x88b5);
}
CLASS(ipv6_next_bad)
{
	size_t l4 = build(f, 1, 0, 4000);

	gso(f, l4, VIRTIO_NET_HDR_GSO_TCPV6, 1000);
	eth(f)[14 + 6] = 0;	/* hop-by-hop, but the bytes are TCP */
}

static const struct {
	const char *name;
	make_fn make;
} classes[] = {
#define C(n) { #n, mk_##n }
	C(ok_plain), C(ok_csum), C(ok_gso),
	C(runt), C(csum_start_oob), C(csum_off_oob), C(gso_type_bad),
	C(gso_size_0), C(gso_size_huge), C(gso_no_csum), C(hdr_len_huge),
	C(udp_gso_tiny), C(ip_version), C(ipv4_ihl), C(ipv4_totlen_short),
	C(ipv4_totlen_long), C(tcp_doff), C(l4_mismatch), C(v6_type_on_v4),
	C(v4_type_on_v6), C(trunc_tcp), C(csum_non_ip), C(ipv6_next_bad),
#undef C
};

#define NCLASS (sizeof(classes) / sizeof(classes[0]))
#define FIRST_BAD 3

static struct frame frames[NCLASS];
static unsigned long written[NCLASS], rejected[NCLASS];
static int last_err[NCLASS];

static void one(int fd, unsigned int c)
{
	ssize_t n = write(fd, frames[c].b, frames[c].len);

	if (n == (ssize_t)frames[c].len) {
		written[c]++;
	} else {
		rejected[c]++;
		last_err[c] = n < 0 ? errno : EIO;
	}
}

static void report(void)
{
	for (unsigned int c = 0; c < NCLASS; c++) {
		if (!written[c] && !rejected[c])
			continue;
		printf("%s written %lu rejected %lu errno %d\n",
		       classes[c].name, written[c], rejected[c], last_err[c]);
		written[c] = rejected[c] = 0;
		last_err[c] = 0;
	}
	printf("end\n");
	fflush(stdout);
}

static int find(const char *name)
{
	if (!strcmp(name, "all"))
		return -1;
	for (unsigned int c = 0; c < NCLASS; c++)
		if (!strcmp(classes[c].name, name))
			return (int)c;
	return -2;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int mac(const char *s, uint8_t *m)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2],
		      &m[3], &m[4], &m[5]) == 6 ? 0 : -1;
}

static int tap(const char *name)
{
	struct ifreq ifr;
	int fd, s;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr))
		return -1;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr))
		return -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		return -1;
	close(s);
	return fd;
}

int main(int argc, char **argv)
{
	char line[256], cmd[32], cls[64];
	int fd;

	if (argc != 4 || mac(argv[2], dst) || mac(argv[3], src)) {
		fprintf(stderr, "usage: flood_helper IFNAME DST_MAC SRC_MAC\n");
		return 2;
	}
	fd = tap(argv[1]);
	if (fd < 0) {
		perror("flood_helper: tap");
		return 1;
	}
	for (unsigned int c = 0; c < NCLASS; c++)
		classes[c].make(&frames[c]);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long count = 0, gap = 0;
		double secs = 0;
		int c;

		if (sscanf(line, "%31s", cmd) != 1)
			continue;
		if (!strcmp(cmd, "list")) {
			for (unsigned int i = 0; i < NCLASS; i++)
				printf("%u %s\n", i, classes[i].name);
			printf("end\n");
			fflush(stdout);
		} else if (!strcmp(cmd, "send") &&
			   sscanf(line, "%*s %63s %lu %lu", cls, &count,
				  &gap) == 3 && (c = find(cls)) >= -1) {
			for (unsigned long i = 0; i < count; i++) {
				unsigned int k = c >= 0 ? (unsigned int)c :
					(unsigned int)(i % NCLASS);

				one(fd, k);
				if (gap && (i + 1) % gap == 0)
					usleep(1000);
			}
			report();
		} else if (!strcmp(cmd, "time") &&
			   sscanf(line, "%*s %lf", &secs) == 1) {
			double end = now() + secs;
			unsigned long i = 0;

			while ((i & 1023) || now() < end) {
				one(fd, FIRST_BAD + (unsigned int)(i %
					(NCLASS - FIRST_BAD)));
				i++;
			}
			report();
		} else {
			printf("error\nend\n");
			fflush(stdout);
		}
	}
	close(fd);
	return 0;
}
