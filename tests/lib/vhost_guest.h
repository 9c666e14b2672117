/* SPDX-License-Identifier: MIT */
/*
 * vhost_guest.h - an in-process fake vhost-user front end and guest driver,
 * for the unit tests and the fuzz target of the vhost-user port
 *
 * It plays QEMU and the guest's virtio-net driver at once: guest memory
 * is a sealed memfd it maps itself and hands over with SET_MEM_TABLE,
 * messages go over a unix socket, and the rings are driven as a driver
 * would drive them (descriptors, available entries, kicks, used entries
 * read back).  The back end runs in the same thread: after each message
 * the fake calls @pump (which reads the socket on the back end's side),
 * then reads the reply it expects, if any.
 *
 * Memory layout (guest physical VG_GPA_BASE, front-end address
 * VG_UVA_BASE, both unlike voff's own mapping on purpose):
 *   ring q at q * 0x8000: descriptors, available ring at +0x2000, used
 *   ring at +0x4000 (up to 512 entries); indirect tables (64 entries
 *   per head) at 0x100000; buffers from 0x200000 on.
 */
#ifndef VOFF_TEST_VHOST_GUEST_H
#define VOFF_TEST_VHOST_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VG_GPA_BASE 0x100000ull
#define VG_UVA_BASE 0x7f1200000000ull
#define VG_MEM_SIZE (8u << 20)
#define VG_RING_MAX 512u
#define VG_BUF_OFF 0x200000u

/**
 * struct vg - one fake guest
 * @sock:	its end of the connection
 * @memfd:	guest memory
 * @mem:	its mapping
 * @num:	ring size of each queue
 * @kick:	eventfds the guest kicks through, per queue
 * @call:	eventfds the back end signals, per queue
 * @avail_idx:	next available index the driver publishes, per queue
 * @used_seen:	used entries the driver has read, per queue
 * @kick_old:	available index at the last kick decision, per queue
 * @next_desc:	next free descriptor, per queue (handed out in order)
 * @buf_next:	next free buffer byte (bump allocator, reset by vg_reset_bufs)
 * @features:	what the guest acked
 * @event_idx:	EVENT_IDX acked
 * @qemu:	plays QEMU 7.2: no REPLY_ACK asked but for SET_MEM_TABLE
 * @pump:	makes the back end read the socket
 * @ctx:	for @pump
 */
struct vg {
	int sock;
	int memfd;
	uint8_t *mem;
	unsigned int num;
	int kick[2];
	int call[2];
	uint16_t avail_idx[2];
	uint16_t used_seen[2];
	uint16_t kick_old[2];
	uint16_t next_desc[2];
	uint32_t buf_next;
	uint64_t features;
	bool event_idx;
	bool qemu;
	void (*pump)(void *ctx);
	void *ctx;
};

/** vg_new() - memory and eventfds; @sock is the connected socket (taken) */
int vg_new(struct vg *g, int sock, unsigned int num,
	   void (*pump)(void *ctx), void *ctx);

/** vg_free() - close everything */
void vg_free(struct vg *g);

/**
 * vg_send() - one message (header built here), @fds attached
 * Return: 0, or -errno from sendmsg.
 */
int vg_send(struct vg *g, uint32_t req, uint32_t flags, const void *payload,
	    uint32_t size, const int *fds, unsigned int nfds);

/**
 * vg_reply() - read one reply of @req, its payload into @out (@size bytes)
 * Return: 0, -EPROTO for a reply that is not what was asked, -errno.
 */
int vg_reply(struct vg *g, uint32_t req, void *out, uint32_t size);

/** vg_get_u64() - send a GET request, pump, read its u64 reply */
int vg_get_u64(struct vg *g, uint32_t req, uint64_t *out);

/**
 * vg_set() - send a request with a payload, pump; with @ack also ask for
 * a REPLY_ACK and return its value (0 success, 1 refused)
 */
int vg_set(struct vg *g, uint32_t req, const void *payload, uint32_t size,
	   bool ack);

/**
 * vg_set_fds() - vg_set() with the descriptors @fds (@nfds of them)
 * attached to the request
 */
int vg_set_fds(struct vg *g, uint32_t req, const void *payload,
	       uint32_t size, const int *fds, unsigned int nfds, bool ack);

/**
 * vg_start() - the whole start-up QEMU does: features (@features acked,
 * with PROTOCOL_FEATURES and REPLY_ACK, MQ), owner, memory table, both
 * rings (size @g->num), kick and call descriptors, both rings enabled
 * Return: 0, or the first failure.
 */
int vg_start(struct vg *g, uint64_t features);

/**
 * vg_start_qemu72() - the start-up in the order QEMU 7.2 sends it (as
 * seen on its socket with a Linux 6.1 guest): GET_FEATURES,
 * GET/SET_PROTOCOL_FEATURES (MQ, REPLY_ACK, MTU, RESET_DEVICE),
 * GET_QUEUE_NUM, SET_OWNER, GET_FEATURES, SET_VRING_CALL and
 * SET_VRING_ERR per ring, then vg_restart_qemu72(); from then on the
 * fake asks for a REPLY_ACK of SET_MEM_TABLE only, as QEMU
 * Return: 0, or the first failure.
 */
int vg_start_qemu72(struct vg *g, uint64_t features);

/**
 * vg_restart_qemu72() - what QEMU 7.2 sends when the guest's driver comes
 * up (at boot and after each reset): SET_VRING_ENABLE 1 five times per
 * ring, then SET_FEATURES, SET_MEM_TABLE, and per ring SET_VRING_NUM,
 * SET_VRING_BASE 0, SET_VRING_ADDR, SET_VRING_KICK, SET_VRING_CALL (the
 * rings cleared first, as a reset driver has them)
 */
int vg_restart_qemu72(struct vg *g);

/**
 * vg_stop() - GET_VRING_BASE on both rings, as QEMU stops a device (guest
 * reset or reboot); @base receives where each ring stopped
 * Return: 0, or a failure (-EPROTO for a reply of the wrong ring).
 */
int vg_stop(struct vg *g, uint32_t base[2]);

/** vg_mem_table() - send SET_MEM_TABLE for the guest memory; ack result */
int vg_mem_table(struct vg *g);

/** vg_gpa() - guest physical address of @p inside guest memory */
uint64_t vg_gpa(const struct vg *g, const void *p);

/** vg_buf() - @len bytes of buffer memory (16-byte aligned) */
uint8_t *vg_buf(struct vg *g, size_t len);

/** vg_reset_bufs() - buffer memory free again */
void vg_reset_bufs(struct vg *g);

/** vg_desc() - the descriptor table of queue @q */
uint8_t *vg_desc_table(const struct vg *g, unsigned int q);

/**
 * vg_desc_set() - write descriptor @i of queue @q
 */
void vg_desc_set(struct vg *g, unsigned int q, uint16_t i, uint64_t addr,
		 uint32_t len, uint16_t flags, uint16_t next);

/** vg_avail_push() - publish head @head on queue @q (no kick) */
void vg_avail_push(struct vg *g, unsigned int q, uint16_t head);

/** vg_kick() - kick queue @q (unless EVENT_IDX says no; @force kicks) */
void vg_kick(struct vg *g, unsigned int q, bool force);

/**
 * vg_tx() - queue a frame on the transmit queue: @hdr (header bytes) and
 * @frame, cut into buffers of at most @seg bytes (0: one buffer for the
 * header, one for the frame), through an indirect table when @indirect
 * Return: the head descriptor.
 */
uint16_t vg_tx(struct vg *g, const void *hdr, size_t hdr_len,
	       const void *frame, size_t len, size_t seg, bool indirect);

/**
 * vg_rx_post() - post @n receive buffers of @size bytes, one descriptor
 * each (mergeable style), or of @segs descriptors each when @segs > 1
 */
void vg_rx_post(struct vg *g, unsigned int n, uint32_t size,
		unsigned int segs);

/**
 * vg_used() - read the next used entry of queue @q
 * Return: true with @id and @len set, false when there is none.
 */
bool vg_used(struct vg *g, unsigned int q, uint32_t *id, uint32_t *len);

/** vg_used_idx() - the used index the back end published on @q */
uint16_t vg_used_idx(const struct vg *g, unsigned int q);

/** vg_calls() - notifications the back end sent on @q since last asked */
uint64_t vg_calls(struct vg *g, unsigned int q);

/** vg_desc_addr() - host pointer of a guest physical address */
uint8_t *vg_ptr(const struct vg *g, uint64_t gpa);

/** vg_set_used_event() - EVENT_IDX: notify me when used passes @v */
void vg_set_used_event(struct vg *g, unsigned int q, uint16_t v);

/** vg_avail_event() - EVENT_IDX: the back end's avail_event on @q */
uint16_t vg_avail_event(const struct vg *g, unsigned int q);

struct voff__vhost_dev;

/**
 * vg_dev_pair() - a device (voff's side, non-blocking, no epoll) and a
 * guest connected to it over a socketpair
 * Return: 0 or -errno.
 */
int vg_dev_pair(struct voff__vhost_dev *d, uint64_t offer, struct vg *g,
		unsigned int num, void (*pump)(void *ctx), void *ctx);

/** vg_count_fds() - descriptors this process has open */
int vg_count_fds(void);

#endif /* VOFF_TEST_VHOST_GUEST_H */
