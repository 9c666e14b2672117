/* SPDX-License-Identifier: MIT */
/*
 * vhost_msg.c - the vhost-user protocol, back-end side, over one
 * connected unix socket: framing, strict checks, one table of requests,
 * the guest's memory table
 *
 * A message is a 12-byte header (u32 request, u32 flags, u32 size, all
 * little-endian) and size bytes of payload, with up to 8 descriptors
 * (SCM_RIGHTS) on its first byte.  The socket is non-blocking: bytes are
 * gathered until a message is whole, however the peer cuts them, so a
 * slow or hostile front end never stalls the switch.  Each request has
 * one entry in the table below: its exact payload size, the descriptors
 * it carries and its handler; anything else is refused before a handler
 * runs.  Every descriptor received is kept by a handler or closed.
 *
 * Refusals: a request the front end expects a reply to (GET_*) cannot be
 * answered with an error, so the connection is dropped; for the others an
 * error goes back as a REPLY_ACK when the front end asked for one (and
 * negotiated it), and otherwise the connection is dropped too.  The port
 * (port_vhost.c) then tears the device down and waits for the guest to
 * come back.
 *
 * Memory: each region's descriptor is mapped shared, read/write, from
 * file offset 0 to the region's end.  The file must be sealed against
 * shrinking (F_SEAL_SHRINK, which QEMU's memory-backend-memfd sets by
 * default): a guest that could shrink it would turn voff's next access
 * into SIGBUS.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vhost_int.h"

/* ---- memory table --------------------------------------------------------- */

/* [@a, @a + @len) inside [@base, @base + @size)? */
static bool inside(uint64_t a, uint64_t len, uint64_t base, uint64_t size)
{
	return a >= base && a - base <= size && len <= size - (a - base);
}

void *voff__vhost_gpa(const struct voff__vhost_mem *m, uint64_t gpa,
		      uint64_t len)
{
	for (unsigned int i = 0; i < m->n; i++) {
		const struct voff__vhost_region *r = &m->r[i];

		if (inside(gpa, len, r->gpa, r->size))
			return r->host + (gpa - r->gpa);
	}
	return NULL;
}

void *voff__vhost_uva(const struct voff__vhost_mem *m, uint64_t uva,
		      uint64_t len)
{
	for (unsigned int i = 0; i < m->n; i++) {
		const struct voff__vhost_region *r = &m->r[i];

		if (inside(uva, len, r->uva, r->size))
			return r->host + (uva - r->uva);
	}
	return NULL;
}

void voff__vhost_mem_unmap(struct voff__vhost_mem *m)
{
	for (unsigned int i = 0; i < m->n; i++)
		munmap(m->r[i].map, m->r[i].map_len);
	memset(m, 0, sizeof(*m));
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* Map one region of the table from @fd (which stays the caller's). */
static int map_region(struct voff__vhost_region *r, const uint8_t *p, int fd)
{
	uint64_t off = rd64(p + 24), end;
	struct stat st;
	int seals;
	void *map;

	r->gpa = rd64(p);
	r->size = rd64(p + 8);
	r->uva = rd64(p + 16);
	if (!r->size || r->gpa + r->size < r->gpa ||
	    r->uva + r->size < r->uva || off + r->size < off)
		return -EINVAL;
	end = off + r->size;
	if (end > SIZE_MAX || fstat(fd, &st) < 0 || (uint64_t)st.st_size < end)
		return -EINVAL;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -EPERM;
	map = mmap(NULL, (size_t)end, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	r->map = map;
	r->map_len = (size_t)end;
	r->host = (uint8_t *)map + off;
	return 0;
}

/* ---- the device ----------------------------------------------------------- */

static void fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void kick_watch(struct voff__vhost_dev *d, unsigned int q, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd = d->vq[q].kick;

	if (d->epfd < 0 || fd < 0 || !(d->ep_kicks & (1u << q)))
		return;
	ev.data.u32 = VHOST_EP_KICK(q);
	epoll_ctl(d->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, fd, &ev);
}

static void ring_stop(struct voff__vhost_dev *d, unsigned int q)
{
	struct voff__vring *vr = &d->vq[q];

	kick_watch(d, q, false);
	fd_close(&vr->kick);
	vr->started = false;
}

void voff__vhost_dev_init(struct voff__vhost_dev *d, uint64_t offered,
			  int epfd, unsigned int ep_kicks)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	d->offered = offered;
	d->epfd = epfd;
	d->ep_kicks = ep_kicks;
	for (unsigned int q = 0; q < VHOST_NQUEUES; q++)
		voff__vring_init(&d->vq[q]);
}

void voff__vhost_dev_reset(struct voff__vhost_dev *d)
{
	for (unsigned int q = 0; q < VHOST_NQUEUES; q++) {
		struct voff__vring *vr = &d->vq[q];

		ring_stop(d, q);
		fd_close(&vr->call);
		fd_close(&vr->err);
		voff__vring_init(vr);
	}
	voff__vhost_mem_unmap(&d->mem);
	for (unsigned int i = 0; i < d->nfds; i++)
		fd_close(&d->fds[i]);
	d->nfds = 0;
	d->len = 0;
	d->features = 0;
	d->protocol = 0;
	d->owner = false;
	d->features_set = false;
	d->mtu = 0;
	d->gen++;
}

void voff__vhost_dev_close(struct voff__vhost_dev *d)
{
	voff__vhost_dev_reset(d);
	fd_close(&d->fd);
}

/* ---- requests ------------------------------------------------------------- */

/**
 * struct msg - one whole message, as a handler sees it
 * @req:	the request
 * @flags:	header flags
 * @size:	payload bytes
 * @p:		the payload
 * @fds:	descriptors; a handler that keeps one sets its slot to -1
 * @nfds:	how many
 */
struct msg {
	uint32_t req;
	uint32_t flags;
	uint32_t size;
	const uint8_t *p;
	int *fds;
	unsigned int nfds;
};

static int send_reply(struct voff__vhost_dev *d, uint32_t req,
		      const void *payload, uint32_t size)
{
	uint8_t b[VHOST_USER_HDR_SIZE + 8];
	uint32_t h[3] = { htole32(req),
			  htole32(VHOST_USER_VERSION | VHOST_USER_F_REPLY),
			  htole32(size) };
	ssize_t n;

	memcpy(b, h, sizeof(h));
	memcpy(b + VHOST_USER_HDR_SIZE, payload, size);
	n = send(d->fd, b, VHOST_USER_HDR_SIZE + size,
		 MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	/* A reply of 20 bytes fits any socket buffer, or nothing does. */
	return n == (ssize_t)(VHOST_USER_HDR_SIZE + size) ? 0 : -EIO;
}

static int reply_u64(struct voff__vhost_dev *d, uint32_t req, uint64_t v)
{
	v = htole64(v);
	return send_reply(d, req, &v, 8);
}

/* The ring of a vring state or file message, or NULL. */
static struct voff__vring *ring_of(struct voff__vhost_dev *d, uint64_t idx)
{
	return idx < VHOST_NQUEUES ? &d->vq[idx] : NULL;
}

static void set_ring_features(struct voff__vhost_dev *d)
{
	for (unsigned int q = 0; q < VHOST_NQUEUES; q++) {
		d->vq[q].event_idx =
			d->features & VHOST_BIT(VIRTIO_RING_F_EVENT_IDX);
		d->vq[q].indirect =
			d->features & VHOST_BIT(VIRTIO_RING_F_INDIRECT_DESC);
	}
}

static int h_get_features(struct voff__vhost_dev *d, struct msg *m)
{
	return reply_u64(d, m->req, d->offered);
}

static int h_set_features(struct voff__vhost_dev *d, struct msg *m)
{
	uint64_t f = rd64(m->p);

	if (f & ~d->offered)
		return -EINVAL;
	d->features = f;
	d->features_set = true;
	set_ring_features(d);
	d->gen++;
	return 0;
}

static int h_set_owner(struct voff__vhost_dev *d, struct msg *m)
{
	(void)m;
	d->owner = true;
	return 0;
}

/* RESET_OWNER and RESET_DEVICE: back to a device just connected. */
static int h_reset(struct voff__vhost_dev *d, struct msg *m)
{
	int fd = d->fd;

	(void)m;
	d->fd = -1;
	voff__vhost_dev_reset(d);
	d->fd = fd;
	return 0;
}

static int h_set_mem_table(struct voff__vhost_dev *d, struct msg *m)
{
	struct voff__vhost_mem mem = { 0 };
	uint32_t n;
	int err = 0;

	if (m->size < 8)
		return -EINVAL;
	n = rd32(m->p);
	if (!n || n > VHOST_MAX_REGIONS || m->size != 8 + 32 * n ||
	    m->nfds != n)
		return -EINVAL;
	for (unsigned int i = 0; i < n && !err; i++) {
		err = map_region(&mem.r[i], m->p + 8 + 32 * i, m->fds[i]);
		if (!err)
			mem.n++;
	}
	if (err) {
		voff__vhost_mem_unmap(&mem);
		return err;
	}
	/* The new table replaces the old; rings are found in it again. */
	voff__vhost_mem_unmap(&d->mem);
	d->mem = mem;
	for (unsigned int q = 0; q < VHOST_NQUEUES; q++)
		if (d->vq[q].num && d->vq[q].desc_uva)
			voff__vring_map(&d->vq[q], &d->mem);
	d->st[VHOST_ST_MEM_TABLES]++;
	d->gen++;
	return 0;
}

static int h_set_vring_num(struct voff__vhost_dev *d, struct msg *m)
{
	struct voff__vring *vr = ring_of(d, rd32(m->p));
	uint32_t num = rd32(m->p + 4);

	if (!vr || !num || num > VRING_MAX_NUM || (num & (num - 1)))
		return -EINVAL;
	if (vr->started)
		return -EBUSY;
	vr->num = num;
	vr->desc = NULL;
	vr->avail = NULL;
	vr->used = NULL;
	return 0;
}

static int h_set_vring_addr(struct voff__vhost_dev *d, struct msg *m)
{
	struct voff__vring *vr = ring_of(d, rd32(m->p));
	uint32_t flags = rd32(m->p + 4);

	/* No dirty log: VHOST_F_LOG_ALL is never offered. */
	if (!vr || flags)
		return -EINVAL;
	vr->desc_uva = rd64(m->p + 8);
	vr->used_uva = rd64(m->p + 16);
	vr->avail_uva = rd64(m->p + 24);
	d->gen++;
	return voff__vring_map(vr, &d->mem);
}

static int h_set_vring_base(struct voff__vhost_dev *d, struct msg *m)
{
	struct voff__vring *vr = ring_of(d, rd32(m->p));
	uint32_t base = rd32(m->p + 4);

	if (!vr || base > 0xffff)
		return -EINVAL;
	if (vr->started)
		return -EBUSY;
	vr->last_avail = (uint16_t)base;
	return 0;
}

/* Stops the ring and tells where it stopped. */
static int h_get_vring_base(struct voff__vhost_dev *d, struct msg *m)
{
	uint32_t idx = rd32(m->p);
	struct voff__vring *vr = ring_of(d, idx);
	uint32_t st[2];

	if (!vr)
		return -EINVAL;
	voff__vring_flush(vr);
	ring_stop(d, idx);
	fd_close(&vr->call);
	d->gen++;
	st[0] = htole32(idx);
	st[1] = htole32(vr->last_avail);
	return send_reply(d, m->req, st, sizeof(st));
}

/* The descriptor of a KICK/CALL/ERR message: -1 with the NOFD bit. */
static int file_fd(struct msg *m, uint64_t v)
{
	int fd;

	if (v & VHOST_USER_VRING_NOFD)
		return -1;
	fd = m->fds[0];
	m->fds[0] = -1;
	return fd;
}

/* Expected descriptors of a KICK/CALL/ERR message. */
static bool file_fds_ok(const struct msg *m)
{
	uint64_t v = rd64(m->p);

	if (v & ~(uint64_t)(VHOST_USER_VRING_IDX_MASK | VHOST_USER_VRING_NOFD))
		return false;
	return m->nfds == ((v & VHOST_USER_VRING_NOFD) ? 0u : 1u);
}

/* A kick descriptor starts the ring (voff does not poll without one). */
static int h_set_vring_kick(struct voff__vhost_dev *d, struct msg *m)
{
	uint64_t v = rd64(m->p);
	unsigned int q = (unsigned int)(v & VHOST_USER_VRING_IDX_MASK);
	struct voff__vring *vr = ring_of(d, q);

	if (!vr || !file_fds_ok(m) || v & VHOST_USER_VRING_NOFD)
		return -EINVAL;
	ring_stop(d, q);
	vr->kick = file_fd(m, v);
	kick_watch(d, q, true);
	if (!vr->desc && voff__vring_map(vr, &d->mem))
		return -EFAULT;
	vr->used_idx = le16toh(__atomic_load_n(&vr->used[1], __ATOMIC_ACQUIRE));
	vr->published = vr->used_idx;
	vr->signalled_ok = false;
	vr->broken = false;
	if (!(d->features & VHOST_BIT(VHOST_USER_F_PROTOCOL_FEATURES)))
		vr->enabled = true;
	vr->started = true;
	d->gen++;
	return 0;
}

static int h_set_vring_call(struct voff__vhost_dev *d, struct msg *m)
{
	uint64_t v = rd64(m->p);
	struct voff__vring *vr = ring_of(d, v & VHOST_USER_VRING_IDX_MASK);

	if (!vr || !file_fds_ok(m))
		return -EINVAL;
	fd_close(&vr->call);
	vr->call = file_fd(m, v);
	return 0;
}

static int h_set_vring_err(struct voff__vhost_dev *d, struct msg *m)
{
	uint64_t v = rd64(m->p);
	struct voff__vring *vr = ring_of(d, v & VHOST_USER_VRING_IDX_MASK);

	if (!vr || !file_fds_ok(m))
		return -EINVAL;
	fd_close(&vr->err);
	vr->err = file_fd(m, v);
	return 0;
}

static int h_get_protocol_features(struct voff__vhost_dev *d, struct msg *m)
{
	return reply_u64(d, m->req, VHOST_PROTOCOL_OFFER);
}

static int h_set_protocol_features(struct voff__vhost_dev *d, struct msg *m)
{
	uint64_t f = rd64(m->p);

	if (f & ~(uint64_t)VHOST_PROTOCOL_OFFER)
		return -EINVAL;
	d->protocol = f;
	return 0;
}

/* One queue pair. */
static int h_get_queue_num(struct voff__vhost_dev *d, struct msg *m)
{
	return reply_u64(d, m->req, 1);
}

static int h_set_vring_enable(struct voff__vhost_dev *d, struct msg *m)
{
	struct voff__vring *vr = ring_of(d, rd32(m->p));
	uint32_t on = rd32(m->p + 4);

	if (!vr || on > 1)
		return -EINVAL;
	vr->enabled = on;
	d->gen++;
	return 0;
}

/* The MTU QEMU's host_mtu gives the guest (68 .. 65535, as virtio). */
static int h_net_set_mtu(struct voff__vhost_dev *d, struct msg *m)
{
	uint64_t mtu = rd64(m->p);

	if (mtu < 68 || mtu > 65535)
		return -EINVAL;
	d->mtu = (uint32_t)mtu;
	d->gen++;
	return 0;
}

/* Descriptors a request carries. */
enum fds_rule {
	FDS_NONE,	/* none */
	FDS_FILE,	/* one, unless the NOFD bit is set */
	FDS_ANY,	/* checked by the handler */
};

/**
 * struct req - one request voff serves
 * @size:	exact payload bytes, or -1 for a handler that checks
 * @fds:	enum fds_rule
 * @replies:	the request has its own reply (no REPLY_ACK)
 * @protocol:	protocol feature bit that must be acked first, or -1
 * @fn:		the handler: 0, or a negative errno
 */
struct req {
	int size;
	uint8_t fds;
	bool replies;
	int protocol;
	int (*fn)(struct voff__vhost_dev *d, struct msg *m);
};

static const struct req reqs[VHOST_USER__REQ_MAX] = {
	[VHOST_USER_GET_FEATURES] = { 0, FDS_NONE, true, -1, h_get_features },
	[VHOST_USER_SET_FEATURES] = { 8, FDS_NONE, false, -1, h_set_features },
	[VHOST_USER_SET_OWNER] = { 0, FDS_NONE, false, -1, h_set_owner },
	[VHOST_USER_RESET_OWNER] = { 0, FDS_NONE, false, -1, h_reset },
	[VHOST_USER_SET_MEM_TABLE] = { -1, FDS_ANY, false, -1,
				       h_set_mem_table },
	[VHOST_USER_SET_VRING_NUM] = { 8, FDS_NONE, false, -1,
				       h_set_vring_num },
	[VHOST_USER_SET_VRING_ADDR] = { 40, FDS_NONE, false, -1,
					h_set_vring_addr },
	[VHOST_USER_SET_VRING_BASE] = { 8, FDS_NONE, false, -1,
					h_set_vring_base },
	[VHOST_USER_GET_VRING_BASE] = { 8, FDS_NONE, true, -1,
					h_get_vring_base },
	[VHOST_USER_SET_VRING_KICK] = { 8, FDS_FILE, false, -1,
					h_set_vring_kick },
	[VHOST_USER_SET_VRING_CALL] = { 8, FDS_FILE, false, -1,
					h_set_vring_call },
	[VHOST_USER_SET_VRING_ERR] = { 8, FDS_FILE, false, -1,
				       h_set_vring_err },
	[VHOST_USER_GET_PROTOCOL_FEATURES] = { 0, FDS_NONE, true, -1,
					       h_get_protocol_features },
	[VHOST_USER_SET_PROTOCOL_FEATURES] = { 8, FDS_NONE, false, -1,
					       h_set_protocol_features },
	[VHOST_USER_GET_QUEUE_NUM] = { 0, FDS_NONE, true,
				       VHOST_USER_PROTOCOL_F_MQ,
				       h_get_queue_num },
	[VHOST_USER_SET_VRING_ENABLE] = { 8, FDS_NONE, false, -1,
					  h_set_vring_enable },
	[VHOST_USER_NET_SET_MTU] = { 8, FDS_NONE, false,
				     VHOST_USER_PROTOCOL_F_MTU,
				     h_net_set_mtu },
	[VHOST_USER_RESET_DEVICE] = { 0, FDS_NONE, false,
				      VHOST_USER_PROTOCOL_F_RESET_DEVICE,
				      h_reset },
};

static int fds_check(const struct req *r, const struct msg *m)
{
	switch (r->fds) {
	case FDS_NONE:
		return m->nfds ? -EINVAL : 0;
	case FDS_FILE:
		return file_fds_ok(m) ? 0 : -EINVAL;
	default:
		return 0;
	}
}

int voff__vhost_dev_handle(struct voff__vhost_dev *d, const uint8_t *buf,
			   size_t len, int *fds, unsigned int nfds)
{
	const struct req *r = NULL;
	struct msg m = { 0 };
	bool ack;
	int err;

	d->st[VHOST_ST_MSGS]++;
	m.fds = fds;
	m.nfds = nfds;
	if (len < VHOST_USER_HDR_SIZE) {
		err = -EINVAL;
		goto out;
	}
	m.req = rd32(buf);
	m.flags = rd32(buf + 4);
	m.size = rd32(buf + 8);
	m.p = buf + VHOST_USER_HDR_SIZE;
	if (m.req < VHOST_USER__REQ_MAX && reqs[m.req].fn)
		r = &reqs[m.req];
	if (m.size != len - VHOST_USER_HDR_SIZE ||
	    (m.flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION ||
	    m.flags & VHOST_USER_F_REPLY)
		err = -EINVAL;
	else if (!r || (r->protocol >= 0 &&
			!(d->protocol & VHOST_BIT(r->protocol))))
		err = -EOPNOTSUPP;
	else if (r->size >= 0 && m.size != (uint32_t)r->size)
		err = -EINVAL;
	else
		err = fds_check(r, &m);
	if (!err)
		err = r->fn(d, &m);
out:
	for (unsigned int i = 0; i < nfds; i++)
		fd_close(&fds[i]);
	if (err)
		d->st[VHOST_ST_ERRORS]++;
	ack = m.flags & VHOST_USER_F_NEED_REPLY &&
	      d->protocol & VHOST_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK);
	if (r && r->replies)
		return err;
	if (!ack)
		return err;
	/* The front end hears the result; the connection goes on. */
	return reply_u64(d, m.req, err ? 1 : 0);
}

/* Read up to @want bytes of the message, and its descriptors. */
static int read_some(struct voff__vhost_dev *d, size_t want)
{
	union {
		char b[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { d->buf + d->len, want };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.b,
			     .msg_controllen = sizeof(ctl.b) };
	int err = 0;
	ssize_t n;

	n = recvmsg(d->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
	     c = CMSG_NXTHDR(&mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (d->nfds < VHOST_USER_MAX_FDS)
				d->fds[d->nfds++] = fd;
			else {
				close(fd);
				err = -EINVAL;
			}
		}
	}
	if (mh.msg_flags & MSG_CTRUNC)
		err = -EINVAL;
	if (err)
		return err;
	if (n == 0)
		return -ECONNRESET;
	d->len += (size_t)n;
	return 0;
}

int voff__vhost_dev_read(struct voff__vhost_dev *d)
{
	for (;;) {
		size_t want = VHOST_USER_HDR_SIZE;
		int err;

		if (d->len >= VHOST_USER_HDR_SIZE) {
			uint32_t size = rd32(d->buf + 8);

			if (size > VHOST_USER_PAYLOAD_MAX)
				return -EMSGSIZE;
			want += size;
		}
		if (d->len >= VHOST_USER_HDR_SIZE && d->len == want) {
			unsigned int nfds = d->nfds;

			d->len = 0;
			d->nfds = 0;
			err = voff__vhost_dev_handle(d, d->buf, want, d->fds,
						     nfds);
			if (err)
				return err;
			if (d->fd < 0)
				return -ECONNRESET;
			continue;
		}
		err = read_some(d, want - d->len);
		if (err == -EAGAIN || err == -EWOULDBLOCK)
			return 0;
		if (err)
			return err;
	}
}
