/* SPDX-License-Identifier: MIT */
/*
 * fuzz_vhost.c - libFuzzer target for the vhost-user back end: protocol
 * messages (vhost_msg.c) and descriptor chains in guest memory (vring.c),
 * which a virtual machine and its VMM control entirely
 *
 * The first byte chooses:
 *  - even: a sequence of messages, each [u8 descriptors][u16 length][bytes]:
 *    the bytes are handed to voff__vhost_dev_handle() whole, with that
 *    many (0..3) descriptors of the guest's memory file; a message that
 *    would drop the connection ends the sequence;
 *  - odd: a device set up as QEMU sets it up (one 1 MiB region, both rings
 *    of 64 entries, EVENT_IDX and indirect tables negotiated), then the
 *    rest of the input written over the rings' memory (descriptor tables,
 *    available rings, indirect tables), then up to 256 chains taken from
 *    each ring, returned and published.
 * Properties: no crash or sanitizer report; every buffer of a chain lies
 * inside the mapped guest memory; a chain never holds more than
 * VRING_MAX_SEGS buffers; a refused chain comes with a VOFF_E_VHOST_*
 * code; the device closes without leaking a descriptor (the lowest free
 * descriptor number is the same after every input).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <voff/err.h>

#include "vhost_int.h"

#define MEM_SIZE (1u << 20)
#define GPA 0x40000000ull
#define UVA 0x7f0000000000ull
#define NUM 64u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static int sock[2] = { -1, -1 };

static void die_if(int cond)
{
	if (cond)
		abort();
}

static void setup_once(void)
{
	if (memfd >= 0)
		return;
	memfd = memfd_create("fuzz-vhost", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	die_if(memfd < 0 || ftruncate(memfd, MEM_SIZE) < 0 ||
	       fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0);
	die_if(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			  0, sock) < 0);
}

/* Read back whatever the device replied, so the socket never fills. */
static void drain(void)
{
	uint8_t b[512];

	while (recv(sock[1], b, sizeof(b), MSG_DONTWAIT) > 0)
		;
}

static int handle(struct voff__vhost_dev *d, const void *msg, size_t len,
		  unsigned int nfds)
{
	int fds[VHOST_USER_MAX_FDS];
	int err;

	for (unsigned int i = 0; i < nfds; i++)
		fds[i] = i == 1 ? eventfd(0, EFD_CLOEXEC) :
				  fcntl(memfd, F_DUPFD_CLOEXEC, 0);
	err = voff__vhost_dev_handle(d, msg, len, fds, nfds);
	drain();
	return err;
}

/* A message with a u32 request, flags asking for an ack, and @size bytes. */
static int send_msg(struct voff__vhost_dev *d, uint32_t req, const void *p,
		    uint32_t size, unsigned int nfds)
{
	uint8_t b[VHOST_USER_HDR_SIZE + 64];
	uint32_t h[3] = { htole32(req),
			  htole32(VHOST_USER_VERSION |
				  VHOST_USER_F_NEED_REPLY),
			  htole32(size) };

	memcpy(b, h, 12);
	memcpy(b + 12, p, size);
	return handle(d, b, 12 + size, nfds);
}

static void messages(struct voff__vhost_dev *d, const uint8_t *data,
		     size_t size)
{
	while (size >= 3) {
		unsigned int nfds = data[0] % 4;
		size_t len = (size_t)(data[1] | data[2] << 8);

		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		if (handle(d, data, len, nfds))
			return;
		data += len;
		size -= len;
	}
}

static uint8_t *ring_mem(const struct voff__vhost_dev *d)
{
	return voff__vhost_gpa(&d->mem, GPA, MEM_SIZE);
}

/* The start-up QEMU performs; every step must succeed. */
static void start(struct voff__vhost_dev *d)
{
	uint64_t f = htole64(d->offered), pf = htole64(
		VHOST_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK));
	uint64_t mt[5] = { htole64(1), htole64(GPA), htole64(MEM_SIZE),
			   htole64(UVA), 0 };

	die_if(send_msg(d, VHOST_USER_SET_PROTOCOL_FEATURES, &pf, 8, 0));
	die_if(send_msg(d, VHOST_USER_SET_FEATURES, &f, 8, 0));
	die_if(send_msg(d, VHOST_USER_SET_MEM_TABLE, mt, 40, 1));
	for (uint32_t q = 0; q < 2; q++) {
		uint32_t st[2] = { htole32(q), htole32(NUM) };
		uint32_t ia[2] = { htole32(q), 0 };
		uint64_t a[5], k = htole64(q);

		/* Ring q: descriptors at q * 8 KiB, avail +1 KiB, used +2. */
		memcpy(a, ia, 8);
		a[1] = htole64(UVA + q * 8192u);
		a[2] = htole64(UVA + q * 8192u + 2048u);
		a[3] = htole64(UVA + q * 8192u + 1024u);
		a[4] = 0;
		die_if(send_msg(d, VHOST_USER_SET_VRING_NUM, st, 8, 0));
		die_if(send_msg(d, VHOST_USER_SET_VRING_ADDR, a, 40, 0));
		/* A kick needs its eventfd: the second descriptor slot. */
		{
			uint8_t b[20];
			uint32_t h[3] = { htole32(VHOST_USER_SET_VRING_KICK),
					  htole32(VHOST_USER_VERSION |
						  VHOST_USER_F_NEED_REPLY),
					  htole32(8) };
			int fds[1] = { eventfd(0, EFD_CLOEXEC) };

			memcpy(b, h, 12);
			memcpy(b + 12, &k, 8);
			die_if(voff__vhost_dev_handle(d, b, 20, fds, 1));
			drain();
		}
		st[1] = htole32(1);
		die_if(send_msg(d, VHOST_USER_SET_VRING_ENABLE, st, 8, 0));
	}
	die_if(!voff__vring_ready(&d->vq[0]) ||
	       !voff__vring_ready(&d->vq[1]));
}

static void check_chain(const struct voff__vhost_dev *d,
			const struct voff__vring_chain *c)
{
	const uint8_t *lo = ring_mem(d), *hi = lo + MEM_SIZE;

	die_if(c->n > VRING_MAX_SEGS);
	for (unsigned int i = 0; i < c->n; i++)
		die_if(c->seg[i].p < lo || c->seg[i].len > MEM_SIZE ||
		       c->seg[i].p > hi - c->seg[i].len);
}

static void chains(struct voff__vhost_dev *d, const uint8_t *data,
		   size_t size)
{
	static struct voff__vring_chain c;
	uint8_t *m;

	start(d);
	m = ring_mem(d);
	/* The rings' 16 KiB and the indirect tables after them. */
	memcpy(m, data, size < 65536 ? size : 65536);
	for (unsigned int q = 0; q < 2; q++) {
		struct voff__vring *vr = &d->vq[q];

		for (int i = 0; i < 256; i++) {
			int r = voff__vring_pop(vr, &d->mem, q == VHOST_RX_Q,
						&c);

			if (r == 0)
				break;
			if (r > 0) {
				check_chain(d, &c);
				voff__vring_put(vr, c.head, (uint32_t)c.len);
				continue;
			}
			die_if(r != VOFF_E_VHOST_DESC &&
			       r != VOFF_E_VHOST_CHAIN &&
			       r != VOFF_E_VHOST_INDIRECT &&
			       r != VOFF_E_VHOST_RING);
			if (c.head != VRING_NO_HEAD)
				voff__vring_put(vr, c.head, 0);
			if (vr->broken)
				break;
		}
		voff__vring_flush(vr);
		voff__vring_arm(vr);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t offer =
		VHOST_BIT(VIRTIO_F_VERSION_1) |
		VHOST_BIT(VIRTIO_RING_F_EVENT_IDX) |
		VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC) |
		VHOST_BIT(VHOST_USER_F_PROTOCOL_FEATURES) |
		VHOST_BIT(VIRTIO_NET_F_CSUM);
	static struct voff__vhost_dev d;
	int lowest_free;

	if (!size)
		return 0;
	setup_once();
	/*
	 * The lowest free descriptor now, not at start-up: libFuzzer opens
	 * descriptors of its own between inputs (the pipes to the
	 * symbolizer that names a newly covered function stay open).
	 */
	lowest_free = dup(memfd);
	die_if(lowest_free < 0);
	close(lowest_free);
	voff__vhost_dev_init(&d, offer, -1, 0);
	d.fd = sock[0];
	if (data[0] & 1)
		chains(&d, data + 1, size - 1);
	else
		messages(&d, data + 1, size - 1);
	/* Close the device but keep the shared socket. */
	d.fd = -1;
	voff__vhost_dev_close(&d);
	drain();
	{
		int probe = dup(memfd);

		die_if(probe != lowest_free);
		close(probe);
	}
	return 0;
}
