/* SPDX-License-Identifier: MIT */
/*
 * gro_oracle.c - the kernel's GRO as an oracle: batches sent over a veth
 * that coalesces, and what it delivered read back (see gro_oracle.h)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "check.h"
#include "gro_oracle.h"

void gro_oracle_open(struct gro_oracle *o)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET,
				 .sll_protocol = htons(ETH_P_ALL) };
	cpu_set_t cpus;
	int one = 1;

	if (!getenv("VOFF_GRO_KERNEL"))
		CHECK_SKIP("run by tests/integ/gro_kernel.sh in a netns");
	o->n = 0;
	o->tx_fd = socket(AF_PACKET, SOCK_RAW, 0);
	o->rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK,
			  htons(ETH_P_ALL));
	CHECK(o->tx_fd >= 0 && o->rx_fd >= 0);
	a.sll_ifindex = (int)if_nametoindex("va");
	CHECK_GT(a.sll_ifindex, 0);
	CHECK_OK(bind(o->tx_fd, (struct sockaddr *)&a, sizeof(a)));
	CHECK_OK(setsockopt(o->rx_fd, SOL_PACKET, PACKET_VNET_HDR, &one,
			    sizeof(one)));
	a.sll_ifindex = (int)if_nametoindex("vb");
	CHECK_GT(a.sll_ifindex, 0);
	CHECK_OK(bind(o->rx_fd, (struct sockaddr *)&a, sizeof(a)));
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	CHECK_OK(sched_setaffinity(0, sizeof(cpus), &cpus));
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 10 : 0 };

	CHECK_OK(sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp));
}

/* Keep one received packet (after its vnet header @vh) as the next out. */
static void keep(struct gro_oracle *o, const struct virtio_net_hdr *vh,
		 const uint8_t *d, uint32_t len)
{
	struct gro_kout *k;

	CHECK_LT(o->n, GRO_ORACLE_OUT);
	k = &o->out[o->n++];
	k->len = len;
	memcpy(k->d, d, len);
	k->flags = vh->flags;
	k->gso_type = vh->gso_type;
	k->gso_size = vh->gso_size;
	k->hdr_len = vh->hdr_len;
	k->csum_start = vh->csum_start;
	k->csum_offset = vh->csum_offset;
}

/*
 * Read what vb received until the end marker (EtherType 0x88B5), then
 * until 20 ms pass without a frame: when the marker lands in the batch's
 * own poll (a busy machine), it overtakes the flows GRO holds until the end
 * of that poll.
 */
static void receive_all(struct gro_oracle *o)
{
	static uint8_t buf[sizeof(struct virtio_net_hdr) + 70000];
	struct pollfd pfd = { .fd = o->rx_fd, .events = POLLIN };
	const size_t vl = sizeof(struct virtio_net_hdr);
	bool marker = false;

	o->n = 0;
	for (;;) {
		struct virtio_net_hdr vh;
		ssize_t n;

		if (poll(&pfd, 1, marker ? 20 : 1000) <= 0) {
			if (marker)
				return;
			CHECK_MSG(0, "no end marker from the kernel");
		}
		n = recv(o->rx_fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EAGAIN)
			continue;
		CHECK_GE(n, (ssize_t)(vl + 14));
		memcpy(&vh, buf, vl);
		/* Only our frames: source MAC 02:00:00:00:00:01. */
		if (buf[vl + 6] != 2 || buf[vl + 11] != 1)
			continue;
		if (buf[vl + 12] == 0x88 && buf[vl + 13] == 0xB5) {
			marker = true;
			continue;
		}
		keep(o, &vh, buf + vl, (uint32_t)(n - (ssize_t)vl));
	}
}

void gro_oracle_send(struct gro_oracle *o, uint8_t (*frames)[2048],
		     const uint32_t *lens, int n)
{
	static const uint8_t marker[60] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1,
					    0x88, 0xB5 };

	CHECK_LE(n, GRO_ORACLE_BATCH);
	set_fifo(true);
	for (int i = 0; i < n; i++)
		CHECK_EQ(send(o->tx_fd, frames[i], lens[i], 0),
			 (ssize_t)lens[i]);
	set_fifo(false);
	/* Let the NAPI thread poll the batch, then mark its end. */
	sleep_ms(2);
	CHECK_EQ(send(o->tx_fd, marker, sizeof(marker), 0), 60);
	receive_all(o);
}
