/* SPDX-License-Identifier: MIT */
/*
 * test_vhost_msg.c - the vhost-user protocol layer (vhost_msg.c) driven by
 * the fake front end of tests/lib/vhost_guest.c over a socketpair: the
 * start-up QEMU does, the memory table, ring state, and every kind of bad
 * message answered with an error or a dropped connection, no descriptor
 * leaked
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "vhost_guest.h"
#include "vhost_int.h"

struct fixture {
	struct voff__vhost_dev d;
	struct vg g;
	int last;	/* voff__vhost_dev_read()'s last result */
};

static void pump(void *ctx)
{
	struct fixture *f = ctx;

	f->last = voff__vhost_dev_read(&f->d);
}

static const uint64_t offer = VHOST_BIT(VIRTIO_F_VERSION_1) |
			      VHOST_BIT(VIRTIO_RING_F_EVENT_IDX) |
			      VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC) |
			      VHOST_BIT(VIRTIO_NET_F_CSUM) |
			      VHOST_BIT(VHOST_USER_F_PROTOCOL_FEATURES);

static void setup(struct fixture *f, unsigned int num)
{
	memset(f, 0, sizeof(*f));
	CHECK_OK(vg_dev_pair(&f->d, offer, &f->g, num, pump, f));
}

static void teardown(struct fixture *f)
{
	voff__vhost_dev_close(&f->d);
	vg_free(&f->g);
}

/* The start-up sequence QEMU runs: every request acked with 0. */
static void t_start(void)
{
	struct fixture f;
	uint64_t v;

	setup(&f, 256);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1) |
					VHOST_BIT(VIRTIO_RING_F_EVENT_IDX)));
	CHECK_OK(f.last);
	CHECK(f.d.owner);
	CHECK_EQ(f.d.features, VHOST_BIT(VIRTIO_F_VERSION_1) |
				       VHOST_BIT(VIRTIO_RING_F_EVENT_IDX) |
				       VHOST_BIT(VHOST_USER_F_PROTOCOL_FEATURES));
	CHECK_EQ(f.d.protocol, VHOST_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) |
				       VHOST_BIT(VHOST_USER_PROTOCOL_F_MQ) |
				       VHOST_BIT(VHOST_USER_PROTOCOL_F_MTU));
	CHECK_EQ(f.d.mem.n, 1);
	for (unsigned int q = 0; q < 2; q++) {
		CHECK(voff__vring_ready(&f.d.vq[q]));
		CHECK_EQ(f.d.vq[q].num, 256);
		CHECK(f.d.vq[q].event_idx);
		CHECK(!f.d.vq[q].indirect);
	}
	CHECK_OK(vg_get_u64(&f.g, VHOST_USER_GET_QUEUE_NUM, &v));
	CHECK_EQ(v, 1);
	CHECK_OK(vg_get_u64(&f.g, VHOST_USER_GET_FEATURES, &v));
	CHECK_EQ(v, offer);
	teardown(&f);
}

/* Guest physical and front-end addresses land on the same bytes. */
static void t_translate(void)
{
	struct fixture f;
	uint8_t *h;

	setup(&f, 256);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1)));
	memcpy(f.g.mem + 0x12345, "guest", 5);
	h = voff__vhost_gpa(&f.d.mem, VG_GPA_BASE + 0x12345, 5);
	CHECK(h);
	CHECK(!memcmp(h, "guest", 5));
	CHECK(voff__vhost_uva(&f.d.mem, VG_UVA_BASE + 0x12345, 5) == h);
	/* The last byte, and one past it. */
	CHECK(voff__vhost_gpa(&f.d.mem, VG_GPA_BASE + VG_MEM_SIZE - 1, 1));
	CHECK(!voff__vhost_gpa(&f.d.mem, VG_GPA_BASE + VG_MEM_SIZE - 1, 2));
	CHECK(!voff__vhost_gpa(&f.d.mem, VG_GPA_BASE - 1, 1));
	CHECK(!voff__vhost_gpa(&f.d.mem, VG_GPA_BASE + 8, UINT64_MAX));
	CHECK(!voff__vhost_gpa(&f.d.mem, UINT64_MAX, 2));
	/* Writes by voff are seen by the guest. */
	h[0] = 'G';
	CHECK_EQ(f.g.mem[0x12345], 'G');
	teardown(&f);
}

/* GET_VRING_BASE stops the ring and says where it stopped. */
static void t_vring_base(void)
{
	struct voff__vring_chain c;
	struct fixture f;
	uint32_t st[2] = { htole32(VHOST_TX_Q), 0 }, r[2];
	uint8_t hdr[12] = { 0 }, frame[60] = { 1 };

	setup(&f, 256);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1)));
	for (int i = 0; i < 3; i++)
		vg_tx(&f.g, hdr, 12, frame, 60, 0, false);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(voff__vring_pop(&f.d.vq[VHOST_TX_Q], &f.d.mem, false,
					 &c), 1);
	CHECK_OK(vg_send(&f.g, VHOST_USER_GET_VRING_BASE, VHOST_USER_VERSION,
			 st, 8, NULL, 0));
	pump(&f);
	CHECK_OK(f.last);
	CHECK_OK(vg_reply(&f.g, VHOST_USER_GET_VRING_BASE, r, 8));
	CHECK_EQ(le32toh(r[0]), VHOST_TX_Q);
	CHECK_EQ(le32toh(r[1]), 3);
	CHECK(!f.d.vq[VHOST_TX_Q].started);
	CHECK_EQ(f.d.vq[VHOST_TX_Q].kick, -1);
	CHECK_EQ(voff__vring_pop(&f.d.vq[VHOST_TX_Q], &f.d.mem, false, &c),
		 0);
	/* Restart where it stopped (SET_VRING_BASE, then a kick). */
	st[1] = htole32(3);
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_VRING_BASE, st, 8, true));
	teardown(&f);
}

static int ack_u64(struct fixture *f, uint32_t req, uint64_t v)
{
	v = htole64(v);
	return vg_set(&f->g, req, &v, 8, true);
}

static int ack_state(struct fixture *f, uint32_t req, uint32_t i,
		     uint32_t n)
{
	uint32_t s[2] = { htole32(i), htole32(n) };

	return vg_set(&f->g, req, s, 8, true);
}

/* Refused requests: an error ack, the connection kept. */
static void t_refused(void)
{
	struct fixture f;
	uint64_t a[5] = { 0 };
	uint32_t ia[2] = { 0, htole32(1) };

	setup(&f, 256);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1)));
	CHECK_EQ(ack_u64(&f, VHOST_USER_SET_FEATURES,
			 VHOST_BIT(VHOST_F_LOG_ALL)), 1);
	CHECK_EQ(ack_u64(&f, VHOST_USER_SET_PROTOCOL_FEATURES,
			 VHOST_BIT(VHOST_USER_PROTOCOL_F_CONFIG)), 1);
	/* Ring numbers: bad index, not a power of two, 0, too big. */
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_NUM, 2, 256), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_NUM, 0, 3), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_NUM, 0, 0), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_NUM, 0, 65536), 1);
	/* A started ring keeps its size and base. */
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_NUM, 0, 128), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_BASE, 0, 7), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_BASE, 0, 0x10000), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_ENABLE, 0, 2), 1);
	CHECK_EQ(ack_state(&f, VHOST_USER_SET_VRING_ENABLE, 9, 1), 1);
	/* Ring addresses: a dirty log, outside memory, misaligned. */
	memcpy(a, ia, 8);
	a[1] = htole64(VG_UVA_BASE);
	a[2] = htole64(VG_UVA_BASE + 0x4000);
	a[3] = htole64(VG_UVA_BASE + 0x2000);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_VRING_ADDR, a, 40, true), 1);
	ia[1] = 0;
	memcpy(a, ia, 8);
	a[1] = htole64(VG_UVA_BASE + VG_MEM_SIZE - 16);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_VRING_ADDR, a, 40, true), 1);
	CHECK(!voff__vring_ready(&f.d.vq[0]));
	a[1] = htole64(VG_UVA_BASE + 8);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_VRING_ADDR, a, 40, true), 1);
	/* Wrong sizes. */
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_FEATURES, a, 4, true), 1);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_VRING_ADDR, a, 32, true), 1);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_OWNER, a, 8, true), 1);
	/* What voff does not offer. */
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SET_LOG_BASE, a, 16, true), 1);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_SEND_RARP, a, 8, true), 1);
	CHECK_EQ(vg_set(&f.g, VHOST_USER_RESET_DEVICE, NULL, 0, true), 1);
	CHECK_EQ(vg_set(&f.g, 63, NULL, 0, true), 1);
	CHECK_EQ(vg_set(&f.g, 1000, NULL, 0, true), 1);
	/* MTU: in range, then not. */
	CHECK_EQ(ack_u64(&f, VHOST_USER_NET_SET_MTU, 9000), 0);
	CHECK_EQ(f.d.mtu, 9000);
	CHECK_EQ(ack_u64(&f, VHOST_USER_NET_SET_MTU, 67), 1);
	CHECK_EQ(f.d.mtu, 9000);
	CHECK_OK(f.last);
	CHECK_GE(f.d.st[VHOST_ST_ERRORS], 20);
	teardown(&f);
}

/* SET_MEM_TABLE of the one region @p with @fds attached: the ack. */
static int mem_table(struct fixture *f, const uint64_t p[5], const int *fds,
		     unsigned int nfds)
{
	return vg_set_fds(&f->g, VHOST_USER_SET_MEM_TABLE, p, 40, fds, nfds,
			  true);
}

/* Memory tables voff refuses, and the descriptors they carried. */
static void t_mem_refused(void)
{
	struct fixture f;
	uint64_t p[5] = { htole64(1), htole64(VG_GPA_BASE),
			  htole64(VG_MEM_SIZE), htole64(VG_UVA_BASE), 0 };
	int fds0, plain, two[2];

	setup(&f, 256);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1)));
	fds0 = vg_count_fds();
	/* Not sealed against shrinking. */
	plain = memfd_create("plain", MFD_CLOEXEC);
	CHECK_OK(ftruncate(plain, VG_MEM_SIZE));
	CHECK_EQ(mem_table(&f, p, &plain, 1), 1);
	/* Larger than the file. */
	p[2] = htole64(VG_MEM_SIZE + 4096);
	CHECK_EQ(mem_table(&f, p, &f.g.memfd, 1), 1);
	/* Offsets that wrap. */
	p[2] = htole64(VG_MEM_SIZE);
	p[4] = htole64(UINT64_MAX - 100);
	CHECK_EQ(mem_table(&f, p, &f.g.memfd, 1), 1);
	/* One region, two descriptors. */
	p[4] = 0;
	two[0] = f.g.memfd;
	two[1] = plain;
	CHECK_EQ(mem_table(&f, p, two, 2), 1);
	/* Descriptors where none belong. */
	CHECK_EQ(vg_set_fds(&f.g, VHOST_USER_SET_OWNER, NULL, 0, two, 2,
			    true), 1);
	CHECK_OK(f.last);
	/* The old table is still in place, and nothing leaked. */
	CHECK_EQ(f.d.mem.n, 1);
	CHECK(voff__vring_ready(&f.d.vq[0]));
	close(plain);
	CHECK_EQ(vg_count_fds(), fds0);
	teardown(&f);
}

/* Messages that cannot be answered drop the connection. */
static void t_dropped(void)
{
	static const struct {
		uint32_t req, flags, size;
	} bad[] = {
		{ VHOST_USER_GET_CONFIG, VHOST_USER_VERSION, 0 },
		{ VHOST_USER_GET_FEATURES, VHOST_USER_VERSION, 8 },
		{ VHOST_USER_SET_FEATURES, VHOST_USER_VERSION, 4 },
		{ VHOST_USER_GET_STATUS, VHOST_USER_VERSION, 0 },
		{ VHOST_USER_SET_OWNER, 2, 0 },
		{ VHOST_USER_SET_OWNER, VHOST_USER_VERSION |
					VHOST_USER_F_REPLY, 0 },
		{ VHOST_USER_GET_VRING_BASE, VHOST_USER_VERSION, 8 },
		{ VHOST_USER_SET_MEM_TABLE, VHOST_USER_VERSION, 4096 },
	};
	uint8_t payload[8] = { 9 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fixture f;
		int fds0 = vg_count_fds();

		setup(&f, 256);
		CHECK_OK(vg_send(&f.g, bad[i].req, bad[i].flags, payload,
				 bad[i].size > 8 ? 0 : bad[i].size, NULL, 0));
		if (bad[i].size > 8) {
			/* The header alone announces too much. */
			uint32_t h[3] = { htole32(bad[i].req),
					  htole32(bad[i].flags),
					  htole32(bad[i].size) };

			CHECK_EQ(send(f.g.sock, h, 12, 0), 12);
		}
		pump(&f);
		CHECK_MSG(f.last < 0 && f.last != -ECONNRESET,
			  "request %u: %d", bad[i].req, f.last);
		teardown(&f);
		CHECK_EQ(vg_count_fds(), fds0);
	}
}

/* A message cut into pieces is handled once whole; EOF is a reset. */
static void t_pieces(void)
{
	uint32_t h[3] = { htole32(VHOST_USER_GET_FEATURES),
			  htole32(VHOST_USER_VERSION), 0 };
	uint8_t st[8] = { 0 }, *b = (uint8_t *)h;
	struct fixture f;
	uint64_t v;

	setup(&f, 256);
	for (int i = 0; i < 12; i++) {
		CHECK_EQ(send(f.g.sock, b + i, 1, 0), 1);
		pump(&f);
		CHECK_OK(f.last);
		CHECK_EQ(f.d.st[VHOST_ST_MSGS], i == 11);
	}
	CHECK_OK(vg_reply(&f.g, VHOST_USER_GET_FEATURES, &v, 8));
	CHECK_EQ(le64toh(v), offer);
	/* Header in one piece, payload in two. */
	h[0] = htole32(VHOST_USER_SET_VRING_ENABLE);
	h[2] = htole32(8);
	CHECK_EQ(send(f.g.sock, h, 12, 0), 12);
	pump(&f);
	CHECK_EQ(send(f.g.sock, st, 3, 0), 3);
	pump(&f);
	CHECK_EQ(f.d.st[VHOST_ST_MSGS], 1);
	CHECK_EQ(send(f.g.sock, st + 3, 5, 0), 5);
	pump(&f);
	CHECK_OK(f.last);
	CHECK_EQ(f.d.st[VHOST_ST_MSGS], 2);
	shutdown(f.g.sock, SHUT_WR);
	pump(&f);
	CHECK_EQ(f.last, -ECONNRESET);
	teardown(&f);
}

/* RESET_OWNER forgets everything; a new start-up works. */
static void t_reset(void)
{
	struct fixture f;
	int fds0;

	fds0 = vg_count_fds();
	setup(&f, 256);
	/* socketpair, memfd, a kick and a call eventfd per ring */
	CHECK_EQ(vg_count_fds(), fds0 + 7);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1)));
	CHECK_EQ(vg_count_fds(), fds0 + 7 + 4);
	CHECK_OK(vg_set(&f.g, VHOST_USER_RESET_OWNER, NULL, 0, false));
	CHECK_OK(f.last);
	CHECK_EQ(f.d.mem.n, 0);
	CHECK(!f.d.vq[0].started && !f.d.vq[1].started);
	CHECK_EQ(f.d.features, 0);
	CHECK_EQ(vg_count_fds(), fds0 + 7);
	CHECK_OK(vg_start(&f.g, VHOST_BIT(VIRTIO_F_VERSION_1)));
	CHECK(voff__vring_ready(&f.d.vq[1]));
	teardown(&f);
	CHECK_EQ(vg_count_fds(), fds0);
}

/* Without PROTOCOL_FEATURES a ring is enabled by its kick. */
static void t_legacy_enable(void)
{
	struct fixture f;
	uint64_t feat = htole64(VHOST_BIT(VIRTIO_F_VERSION_1));
	uint32_t st[2] = { 0, htole32(64) };
	uint64_t a[5] = { 0 }, k = 0;

	setup(&f, 64);
	k = htole64(VHOST_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK));
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_PROTOCOL_FEATURES, &k, 8, false));
	k = 0;
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_OWNER, NULL, 0, false));
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_FEATURES, &feat, 8, false));
	CHECK_OK(vg_mem_table(&f.g));
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_VRING_NUM, st, 8, false));
	a[1] = htole64(VG_UVA_BASE);
	a[2] = htole64(VG_UVA_BASE + 0x4000);
	a[3] = htole64(VG_UVA_BASE + 0x2000);
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_VRING_ADDR, a, 40, false));
	CHECK(!voff__vring_ready(&f.d.vq[0]));
	CHECK_OK(vg_set_fds(&f.g, VHOST_USER_SET_VRING_KICK, &k, 8,
			    &f.g.kick[0], 1, false));
	CHECK_OK(f.last);
	CHECK(voff__vring_ready(&f.d.vq[0]));
	/* Kick without a descriptor (polling) is not served. */
	k = htole64(VHOST_USER_VRING_NOFD | 1);
	CHECK_OK(vg_set(&f.g, VHOST_USER_SET_VRING_KICK, &k, 8, false));
	CHECK_LT(f.last, 0);
	teardown(&f);
}

CHECK_MAIN(CHECK_TEST(t_start), CHECK_TEST(t_translate),
	   CHECK_TEST(t_vring_base), CHECK_TEST(t_refused),
	   CHECK_TEST(t_mem_refused), CHECK_TEST(t_dropped),
	   CHECK_TEST(t_pieces), CHECK_TEST(t_reset),
	   CHECK_TEST(t_legacy_enable))
