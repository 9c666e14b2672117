/* SPDX-License-Identifier: MIT */
/*
 * xmit_oracle_helper.c - built and run by xmit_oracle.sh: sends one TCP or
 * UDP (USO) super-packet with a virtio_net_hdr through AF_PACKET on one end
 * of a veth, counts what arrives on the other end, and prints it next to
 * voff_xmit_decide()'s verdict for the same packet and the sending veth's
 * features and limits.
 *
 * usage: xmit_oracle_helper TX RX FEATURES_FILE GSO_MAX_SIZE GSO_MAX_SEGS
 *                           PAYLOAD MSS CSUM(partial|none) PROTO(tcp|udp)
 * Prints "voff=<verdict>/<reason> expect=<frames> got=<frames> bad_csum=N";
 * exit 0 when the frame count the verdict implies is the one received and,
 * when the verdict says software completes the checksums (CSUM_SW, or
 * SEGMENT without seg_csum_hw), every received TCP checksum is right, and
 * otherwise every one is still partial; 1 when not, 2 on setup errors.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/pkt.h>
#include <voff/xmit.h>

#define PACKET_VNET_HDR_OPT 15
#define HDR 54 /* Ethernet + IPv4 + TCP */
#define HDR_UDP 42 /* Ethernet + IPv4 + UDP */

static bool udp; /* UDP (USO) instead of TCP */

static uint8_t frame[10 + 70000];

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

static uint32_t sum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

/* Ethernet/IPv4(DF)/TCP or UDP + payload after a 10-byte virtio_net_hdr. */
static size_t build(unsigned int payload, unsigned int mss, bool partial)
{
	uint8_t *v = frame, *e = frame + 10, *ip = e + 14, *tcp = ip + 20;
	unsigned int l4 = udp ? 8 : 20, tot = 20 + l4 + payload;
	uint32_t ps;

	memset(frame, 0, sizeof(frame));
	v[0] = partial ? 1 : 0;		/* NEEDS_CSUM */
	/* GSO_TCPV4 or GSO_UDP_L4 */
	v[1] = payload > mss ? (udp ? 5 : 1) : 0;
	v[2] = udp ? HDR_UDP : HDR;	/* hdr_len (LE, legacy native) */
	v[4] = (uint8_t)mss;
	v[5] = (uint8_t)(mss >> 8);
	v[6] = 34;			/* csum_start */
	v[8] = udp ? 6 : 16;		/* csum_offset */
	memset(e, 0x02, 6);
	memset(e + 6, 0x04, 6);
	e[12] = 0x08;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(tot >> 8);
	ip[3] = (uint8_t)tot;
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = udp ? 17 : 6;
	ip[12] = 10, ip[15] = 1;
	ip[16] = 10, ip[19] = 2;
	{
		uint16_t c = (uint16_t)~fold(sum16(ip, 20));

		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	}
	tcp[0] = 0x30, tcp[1] = 0x39; /* 12345 */
	tcp[2] = 0xd4, tcp[3] = 0x31; /* 54321 */
	if (udp) {
		tcp[4] = (uint8_t)((l4 + payload) >> 8);
		tcp[5] = (uint8_t)(l4 + payload);
	} else {
		tcp[12] = 0x50;
		tcp[13] = 0x18;
		tcp[14] = 0xff;
	}
	for (unsigned int i = 0; i < payload; i++)
		tcp[l4 + i] = (uint8_t)i;
	/* Pseudo-header sum for NEEDS_CSUM, the full checksum otherwise. */
	ps = sum16(ip + 12, 8) + ip[9] + l4 + payload;
	{
		uint16_t c = partial ? fold(ps) :
			     (uint16_t)~fold(ps + sum16(tcp, l4 + payload));
		uint8_t *field = tcp + (udp ? 6 : 16);

		field[0] = (uint8_t)(c >> 8);
		field[1] = (uint8_t)c;
	}
	return 10 + 14 + tot;
}

static int open_bound(const char *ifname, int proto)
{
	struct sockaddr_ll sll = { 0 };
	int fd = socket(AF_PACKET, SOCK_RAW, htons(proto));

	if (fd < 0)
		return -1;
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(proto);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether a received frame's L4 checksum is complete and right. */
static bool l4_csum_ok(const uint8_t *f, size_t len)
{
	size_t tot = (size_t)f[16] << 8 | f[17];
	uint32_t s;

	if (tot < 28 || 14 + tot > len)
		return false;
	s = sum16(f + 26, 8) + f[23] + (uint32_t)(tot - 20) +
	    sum16(f + 34, tot - 20);
	return fold(s) == 0xFFFF;
}

/*
 * Frames of our flow arriving on @fd within 300 ms of the last one; *@bad
 * counts those whose TCP checksum is not complete.
 */
static int count(int fd, int *bad)
{
	static uint8_t buf[70000];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = 0;

	*bad = 0;
	while (poll(&p, 1, 300) > 0) {
		ssize_t r = recv(fd, buf, sizeof(buf), 0);

		if (r >= HDR_UDP && buf[23] == (udp ? 17 : 6) &&
		    buf[34] == 0x30 && buf[35] == 0x39) {
			n++;
			*bad += !l4_csum_ok(buf, (size_t)r);
		}
	}
	return n;
}

static char *slurp(const char *path)
{
	static char text[16384];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	return text;
}

int main(int argc, char **argv)
{
	struct voff_feat_dev dev;
	struct voff_limits lim;
	struct voff_xmit_info info = { 4, 4, VOFF_XMIT_I_DF, HDR };
	struct voff_xmit_result res;
	struct voff_pkt pkt = { 0 };
	unsigned int payload, mss, expect, one = 1;
	bool partial;
	char *text;
	size_t len;
	int tx, rx, got, bad;
	bool sw_csum;

	if (argc != 10)
		return 2;
	udp = !strcmp(argv[9], "udp");
	if (udp)
		info.hdr_len = HDR_UDP;
	text = slurp(argv[3]);
	if (!text || voff_feat_parse_ethtool(text, &dev, NULL))
		return 2;
	voff_limits_init(&lim);
	voff_limits_set_tso_max_size(&lim, VOFF_GSO_MAX_SIZE);
	if (voff_limits_set(&lim, VOFF_LIMIT_GSO_MAX_SIZE,
			    (uint32_t)atoi(argv[4])) ||
	    voff_limits_set(&lim, VOFF_LIMIT_GSO_MAX_SEGS,
			    (uint32_t)atoi(argv[5])))
		return 2;
	payload = (unsigned int)atoi(argv[6]);
	mss = (unsigned int)atoi(argv[7]);
	partial = !strcmp(argv[8], "partial");
	len = build(payload, mss, partial);

	/* What AF_PACKET makes of the header: DODGY, gso_segs unknown. */
	pkt.len = (uint32_t)len - 10;
	pkt.csum = partial ? VOFF_CSUM_PARTIAL : VOFF_CSUM_NONE;
	pkt.csum_start = 34;
	pkt.csum_offset = udp ? 6 : 16;
	if (payload > mss) {
		pkt.gso_type = (udp ? VOFF_GSO_UDP_L4 : VOFF_GSO_TCPV4) |
			       VOFF_GSO_DODGY;
		pkt.gso_size = (uint16_t)mss;
	}
	voff_xmit_decide(&pkt, &info, &dev, &lim, VOFF_XMIT_KERNEL, &res);
	switch (res.verdict) {
	case VOFF_XMIT_SEGMENT:
		expect = (payload + mss - 1) / mss;
		break;
	case VOFF_XMIT_DROP:
		expect = 0;
		break;
	default:
		expect = 1;
	}

	rx = open_bound(argv[2], ETH_P_ALL);
	tx = open_bound(argv[1], ETH_P_IP);
	if (rx < 0 || tx < 0 ||
	    setsockopt(tx, SOL_PACKET, PACKET_VNET_HDR_OPT, &one,
		       sizeof(one)) < 0) {
		perror("socket");
		return 2;
	}
	if (send(tx, frame, len, 0) < 0) {
		printf("voff=%s/%s send: %s\n",
		       voff_xmit_verdict_name(res.verdict),
		       voff_xmit_reason_name(res.reason), strerror(errno));
		return 1;
	}
	got = count(rx, &bad);
	/*
	 * When voff says software completes the checksums, they must be;
	 * otherwise the egress (here veth, HW_CSUM) gets them partial.
	 */
	sw_csum = res.verdict == VOFF_XMIT_CSUM_SW ||
		  (res.verdict == VOFF_XMIT_SEGMENT && !res.seg_csum_hw);
	printf("voff=%s/%s%s expect=%u got=%d bad_csum=%d\n",
	       voff_xmit_verdict_name(res.verdict),
	       voff_xmit_reason_name(res.reason), sw_csum ? "/sw_csum" : "",
	       expect, got, bad);
	if (got != (int)expect)
		return 1;
	return (sw_csum ? bad == 0 : bad == got) ? 0 : 1;
}
