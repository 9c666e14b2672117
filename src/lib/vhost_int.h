/* SPDX-License-Identifier: MIT */
/*
 * vhost_int.h - private side of the vhost-user port: the protocol's
 * numbers, the guest's memory table, the split virtqueue and the device
 * state one connection negotiates
 *
 * Three files share it:
 *  - vhost_msg.c speaks the vhost-user protocol (QEMU's
 *    docs/interop/vhost-user.rst) on one connected unix socket: it reads
 *    messages with their file descriptors, checks each one's size and
 *    descriptors strictly, and applies it to struct voff__vhost_dev
 *    (features, memory table, ring configuration), replying where the
 *    protocol says so;
 *  - vring.c walks the split virtqueues in guest memory: descriptor
 *    chains translated through the memory table with every address and
 *    length checked, used entries published per batch, notifications
 *    suppressed with EVENT_IDX;
 *  - port_vhost.c is the port: it listens, accepts one guest, moves
 *    frames between the rings and packets, and reports what the guest
 *    negotiated as the port's offloads and limits.
 *
 * Everything the guest wrote is untrusted: see docs/vhost-user.md for the
 * threat model.  Nothing here locks; a device belongs to one thread.
 */
#ifndef VOFF_VHOST_INT_H
#define VOFF_VHOST_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- protocol numbers (vhost-user.rst) ----------------------------------- */

/** enum voff__vhost_req - front-end requests voff knows */
enum voff__vhost_req {
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_RESET_OWNER = 4,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_LOG_BASE = 6,
	VHOST_USER_SET_LOG_FD = 7,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_SET_VRING_ERR = 14,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_GET_QUEUE_NUM = 17,
	VHOST_USER_SET_VRING_ENABLE = 18,
	VHOST_USER_SEND_RARP = 19,
	VHOST_USER_NET_SET_MTU = 20,
	VHOST_USER_SET_BACKEND_REQ_FD = 21,
	VHOST_USER_IOTLB_MSG = 22,
	VHOST_USER_SET_VRING_ENDIAN = 23,
	VHOST_USER_GET_CONFIG = 24,
	VHOST_USER_SET_CONFIG = 25,
	VHOST_USER_RESET_DEVICE = 34,
	VHOST_USER_VRING_KICK = 35,
	VHOST_USER_GET_MAX_MEM_SLOTS = 36,
	VHOST_USER_ADD_MEM_REG = 37,
	VHOST_USER_REM_MEM_REG = 38,
	VHOST_USER_SET_STATUS = 39,
	VHOST_USER_GET_STATUS = 40,
	VHOST_USER__REQ_MAX = 64,	/* counters are kept below this */
};

/* Header flags: bits 0-1 the version (1), then REPLY and NEED_REPLY. */
#define VHOST_USER_VERSION 1u
#define VHOST_USER_VERSION_MASK 3u
#define VHOST_USER_F_REPLY (1u << 2)
#define VHOST_USER_F_NEED_REPLY (1u << 3)
#define VHOST_USER_HDR_SIZE 12u
/* The largest payload voff takes: a memory table of 8 regions. */
#define VHOST_USER_PAYLOAD_MAX (8u + 8u * 32u)
/* Descriptors one message may carry (the protocol's limit). */
#define VHOST_USER_MAX_FDS 8u
/* SET_VRING_KICK/CALL/ERR: bits 0-7 the ring, bit 8 "no descriptor". */
#define VHOST_USER_VRING_IDX_MASK 0xffu
#define VHOST_USER_VRING_NOFD (1u << 8)

/* Protocol feature bits. */
#define VHOST_USER_PROTOCOL_F_MQ 0
#define VHOST_USER_PROTOCOL_F_LOG_SHMFD 1
#define VHOST_USER_PROTOCOL_F_RARP 2
#define VHOST_USER_PROTOCOL_F_REPLY_ACK 3
#define VHOST_USER_PROTOCOL_F_MTU 4
#define VHOST_USER_PROTOCOL_F_BACKEND_REQ 5
#define VHOST_USER_PROTOCOL_F_CONFIG 9
#define VHOST_USER_PROTOCOL_F_RESET_DEVICE 13
#define VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS 15
#define VHOST_USER_PROTOCOL_F_STATUS 16

/* Feature bits: virtio-net (virtio 1.2 §5.1.3), transport, vhost. */
#define VIRTIO_NET_F_CSUM 0
#define VIRTIO_NET_F_GUEST_CSUM 1
#define VIRTIO_NET_F_MTU 3
#define VIRTIO_NET_F_MAC 5
#define VIRTIO_NET_F_GUEST_TSO4 7
#define VIRTIO_NET_F_GUEST_TSO6 8
#define VIRTIO_NET_F_GUEST_ECN 9
#define VIRTIO_NET_F_GUEST_UFO 10
#define VIRTIO_NET_F_HOST_TSO4 11
#define VIRTIO_NET_F_HOST_TSO6 12
#define VIRTIO_NET_F_HOST_ECN 13
#define VIRTIO_NET_F_HOST_UFO 14
#define VIRTIO_NET_F_MRG_RXBUF 15
#define VIRTIO_NET_F_GUEST_USO4 54
#define VIRTIO_NET_F_GUEST_USO6 55
#define VIRTIO_NET_F_HOST_USO 56
#define VIRTIO_F_NOTIFY_ON_EMPTY 24
#define VHOST_F_LOG_ALL 26
#define VIRTIO_F_ANY_LAYOUT 27
#define VIRTIO_RING_F_INDIRECT_DESC 28
#define VIRTIO_RING_F_EVENT_IDX 29
#define VHOST_USER_F_PROTOCOL_FEATURES 30
#define VIRTIO_F_VERSION_1 32

#define VHOST_BIT(b) (1ull << (b))

/* ---- limits voff keeps --------------------------------------------------- */

/* Rings of one queue pair: 0 receives (toward the guest), 1 transmits. */
#define VHOST_RX_Q 0u
#define VHOST_TX_Q 1u
#define VHOST_NQUEUES 2u
/* Regions of a memory table (VHOST_MEMORY_BASELINE_NREGIONS). */
#define VHOST_MAX_REGIONS 8u
/* The largest ring (virtio: a power of two up to 32768). */
#define VRING_MAX_NUM 32768u
/* Buffers of one chain voff follows; a longer chain is dropped. */
#define VRING_MAX_SEGS 64u
/* Entries of one indirect table (16 bytes each). */
#define VRING_MAX_INDIRECT 1024u

/* ---- guest memory --------------------------------------------------------- */

/**
 * struct voff__vhost_region - one region of the memory table
 * @gpa:	guest physical address of its first byte
 * @size:	bytes
 * @uva:	the front end's (QEMU's) address of its first byte, which ring
 *		addresses are given in
 * @host:	where voff mapped that first byte
 * @map:	the mapping (it starts at file offset 0)
 * @map_len:	its length
 */
struct voff__vhost_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *host;
	void *map;
	size_t map_len;
};

/** struct voff__vhost_mem - the memory table: @n regions of @r */
struct voff__vhost_mem {
	unsigned int n;
	struct voff__vhost_region r[VHOST_MAX_REGIONS];
};

/**
 * voff__vhost_gpa() - host address of @len guest bytes at @gpa
 * Return: the address when [@gpa, @gpa + @len) lies inside one region,
 * else NULL.
 */
void *voff__vhost_gpa(const struct voff__vhost_mem *m, uint64_t gpa,
		      uint64_t len);

/** voff__vhost_uva() - the same for a front-end address (ring addresses) */
void *voff__vhost_uva(const struct voff__vhost_mem *m, uint64_t uva,
		      uint64_t len);

/** voff__vhost_mem_unmap() - unmap every region; @m becomes empty */
void voff__vhost_mem_unmap(struct voff__vhost_mem *m);

/* ---- split virtqueue (vring.c) -------------------------------------------- */

/**
 * struct voff__vring_seg - one guest buffer of a chain, already translated
 * @p:		host address of its first byte
 * @len:	bytes
 */
struct voff__vring_seg {
	uint8_t *p;
	uint32_t len;
};

/**
 * struct voff__vring_chain - a descriptor chain taken from the ring
 * @head:	its head index (what goes back in the used ring)
 * @n:		buffers in @seg
 * @len:	their total length
 * @seg:	the buffers, in chain order
 */
struct voff__vring_chain {
	uint16_t head;
	unsigned int n;
	uint64_t len;
	struct voff__vring_seg seg[VRING_MAX_SEGS];
};

/**
 * struct voff__vring - one split virtqueue
 * @num:	entries (0: not set)
 * @desc_uva:	ring addresses as SET_VRING_ADDR gave them
 * @avail_uva:	...
 * @used_uva:	...
 * @desc:	the descriptor table in voff's mapping (NULL: not set)
 * @avail:	the available ring: flags, idx, ring[num], used_event
 * @used:	the used ring: flags, idx, elements, avail_event
 * @last_avail:	index of the next available entry voff takes
 * @used_idx:	index of the next used entry voff writes
 * @published:	used_idx the guest was last shown
 * @signalled:	used index at the last decision to notify the guest
 * @signalled_ok: @signalled is meaningful (else the next batch notifies)
 * @kick:	eventfd the guest kicks (-1 none)
 * @call:	eventfd voff signals the guest through (-1 none)
 * @err:	eventfd for errors (-1 none; kept, never written)
 * @started:	addresses translated and a kick descriptor set
 * @enabled:	SET_VRING_ENABLE 1 (or no protocol features)
 * @broken:	the guest broke the ring's rules (an available index out of
 *		range): nothing more is taken until the ring restarts
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 * @indirect:	VIRTIO_RING_F_INDIRECT_DESC negotiated
 * @call_pending: the guest asked to be notified of entries published
 *		(voff__vring_publish()) and voff__vring_call() has not yet
 * @calls:	notifications written to @call
 */
struct voff__vring {
	unsigned int num;
	uint64_t desc_uva, avail_uva, used_uva;
	uint8_t *desc;
	uint16_t *avail;
	uint16_t *used;
	uint16_t last_avail;
	uint16_t used_idx;
	uint16_t published;
	uint16_t signalled;
	bool signalled_ok;
	int kick, call, err;
	bool started;
	bool enabled;
	bool broken;
	bool event_idx;
	bool indirect;
	bool call_pending;
	uint64_t calls;
};

/** voff__vring_init() - a ring with nothing set (descriptors -1) */
void voff__vring_init(struct voff__vring *vr);

/**
 * voff__vring_map() - translate the ring's addresses through @m
 * Return: 0, or -EFAULT when a part is outside the table or misaligned
 * (the ring keeps no address then).
 */
int voff__vring_map(struct voff__vring *vr, const struct voff__vhost_mem *m);

/** voff__vring_ready() - the ring is started, enabled, mapped, not broken */
static inline bool voff__vring_ready(const struct voff__vring *vr)
{
	return vr->started && vr->enabled && vr->desc && !vr->broken;
}

/** voff__vring_avail() - entries the guest made available and voff has
 *  not taken (0 for a ring that is not ready) */
unsigned int voff__vring_avail(struct voff__vring *vr);

/**
 * voff__vring_pop() - take the next available chain
 * @vr:		a ready ring
 * @m:		the memory table the buffers are translated through
 * @writable:	true for a receive queue (buffers the device writes), false
 *		for a transmit queue (buffers the device reads)
 * @c:		receives the chain
 *
 * Every descriptor is copied before it is checked; every buffer must lie
 * inside one region; the chain may not be longer than the ring (or the
 * indirect table), loop, nest indirect tables, hold more than
 * VRING_MAX_SEGS buffers, or mix directions against @writable.
 *
 * Return: 1 with a chain in @c; 0 when nothing is available; a negative
 * VOFF_E_VHOST_* code for a bad chain, which is taken: @c->head must then
 * go back through voff__vring_put() with length 0, unless @c->head is
 * VRING_NO_HEAD (the head index itself was bad, the ring is now broken).
 */
int voff__vring_pop(struct voff__vring *vr, const struct voff__vhost_mem *m,
		    bool writable, struct voff__vring_chain *c);

#define VRING_NO_HEAD 0xffffu

/** voff__vring_unpop() - give back the last @n chains taken, unused */
void voff__vring_unpop(struct voff__vring *vr, unsigned int n);

/** voff__vring_put() - queue a used entry: chain @head, @len bytes written */
void voff__vring_put(struct voff__vring *vr, uint16_t head, uint32_t len);

/**
 * voff__vring_flush() - publish the used entries queued, notify the guest
 *
 * One store of the used index for the whole batch, then at most one
 * eventfd write, skipped when the guest asked not to be notified (its
 * used_event with EVENT_IDX, else VRING_AVAIL_F_NO_INTERRUPT).
 *
 * Return: true when the guest was notified.
 */
bool voff__vring_flush(struct voff__vring *vr);

/**
 * voff__vring_publish() - publish the used entries queued, notify later
 *
 * voff__vring_flush() without the eventfd write: the used index is
 * stored and the guest's wish to be notified (used_event with EVENT_IDX,
 * else VRING_AVAIL_F_NO_INTERRUPT) is remembered until voff__vring_call().
 * The caller delays the call (never skips it) to send it together with
 * another ring's: with legacy interrupts both rings share one line, and
 * QEMU raises it once for calls that arrive together.
 *
 * Return: true when a call is pending.
 */
bool voff__vring_publish(struct voff__vring *vr);

/**
 * voff__vring_call() - the notification voff__vring_publish() left pending
 * Return: true when the guest was notified (nothing pending: false).
 */
bool voff__vring_call(struct voff__vring *vr);

/**
 * voff__vring_arm() - ask for a kick on the next available entry
 *
 * With EVENT_IDX writes avail_event = last_avail; without it the guest
 * always kicks.  Then checks the available index again, since the guest
 * may have added entries before it saw the request.
 *
 * Return: true when entries are available (no kick will come for them).
 */
bool voff__vring_arm(struct voff__vring *vr);

/* ---- the device one connection sets up (vhost_msg.c) ---------------------- */

/** enum voff__vhost_stat - protocol counters of one port */
enum voff__vhost_stat {
	VHOST_ST_MSGS,		/* requests handled */
	VHOST_ST_ERRORS,	/* requests refused (error reply or drop) */
	VHOST_ST_MEM_TABLES,	/* memory tables mapped */
	VHOST_ST__COUNT,
};

/**
 * struct voff__vhost_dev - what the front end set up over one connection
 * @fd:		the connection (-1 none)
 * @features:	virtio features acked (SET_FEATURES)
 * @offered:	virtio features voff offers
 * @protocol:	protocol features acked
 * @owner:	SET_OWNER seen
 * @features_set: SET_FEATURES seen
 * @mtu:	NET_SET_MTU value, 0 when none
 * @mem:	the memory table
 * @vq:		the rings: VHOST_RX_Q, VHOST_TX_Q
 * @epfd:	epoll descriptor the kick descriptors are added to (-1: none)
 * @ep_kicks:	rings (bit q for ring q) whose kicks go into @epfd, with
 *		VHOST_EP_KICK(q) as their epoll data
 * @gen:	bumped whenever features, rings or memory change
 * @buf:	bytes of a message read so far
 * @len:	how many
 * @fds:	descriptors received with it
 * @nfds:	how many
 * @st:		counters, enum voff__vhost_stat
 */
struct voff__vhost_dev {
	int fd;
	uint64_t features;
	uint64_t offered;
	uint64_t protocol;
	bool owner;
	bool features_set;
	uint32_t mtu;
	struct voff__vhost_mem mem;
	struct voff__vring vq[VHOST_NQUEUES];
	int epfd;
	unsigned int ep_kicks;
	uint32_t gen;
	uint8_t buf[VHOST_USER_HDR_SIZE + VHOST_USER_PAYLOAD_MAX];
	size_t len;
	int fds[VHOST_USER_MAX_FDS];
	unsigned int nfds;
	uint64_t st[VHOST_ST__COUNT];
};

/* epoll data of the port's descriptors: listener, connection, kicks. */
#define VHOST_EP_LISTEN 0u
#define VHOST_EP_CONN 1u
#define VHOST_EP_KICK(q) (2u + (q))

/* Protocol features voff offers. */
#define VHOST_PROTOCOL_OFFER                                                 \
	(VHOST_BIT(VHOST_USER_PROTOCOL_F_MQ) |                               \
	 VHOST_BIT(VHOST_USER_PROTOCOL_F_REPLY_ACK) |                        \
	 VHOST_BIT(VHOST_USER_PROTOCOL_F_MTU) |                              \
	 VHOST_BIT(VHOST_USER_PROTOCOL_F_RESET_DEVICE))

/**
 * voff__vhost_dev_init() - a device with no connection
 * @offered:	the virtio features to offer
 * @epfd:	where kick descriptors go, or -1
 * @ep_kicks:	which rings' kicks go there (bit q for ring q)
 */
void voff__vhost_dev_init(struct voff__vhost_dev *d, uint64_t offered,
			  int epfd, unsigned int ep_kicks);

/**
 * voff__vhost_dev_reset() - forget what the front end set up: rings
 * stopped, their descriptors closed, memory unmapped, features cleared;
 * the connection stays
 */
void voff__vhost_dev_reset(struct voff__vhost_dev *d);

/** voff__vhost_dev_close() - reset, then close the connection */
void voff__vhost_dev_close(struct voff__vhost_dev *d);

/**
 * voff__vhost_dev_read() - read and handle every whole message waiting
 * @d:		a device with a connection (non-blocking)
 *
 * A message is handled once it is complete, however it arrives.  A bad
 * message gets an error reply when the front end asked for one and
 * REPLY_ACK was negotiated; otherwise, or when the message cannot be
 * framed at all, the connection must be dropped.
 *
 * Return: 0 when everything waiting was handled (-EAGAIN hidden);
 * -ECONNRESET when the peer closed; another negative errno when the
 * connection must be dropped (voff__vhost_dev_close()).
 */
int voff__vhost_dev_read(struct voff__vhost_dev *d);

/**
 * voff__vhost_dev_handle() - handle one whole message
 * @d:		the device
 * @msg:	header and payload
 * @len:	their bytes (VHOST_USER_HDR_SIZE + the header's size)
 * @fds:	descriptors that came with it; every one is taken (kept or
 *		closed) whatever the result
 * @nfds:	how many
 *
 * Return: 0, or a negative errno when the connection must be dropped.
 */
int voff__vhost_dev_handle(struct voff__vhost_dev *d, const uint8_t *msg,
			   size_t len, int *fds, unsigned int nfds);

/** voff__vhost_hdr_size() - virtio_net_hdr bytes for the acked features */
static inline unsigned int voff__vhost_hdr_size(uint64_t features)
{
	return (features & (VHOST_BIT(VIRTIO_F_VERSION_1) |
			    VHOST_BIT(VIRTIO_NET_F_MRG_RXBUF))) ? 12u : 10u;
}

#endif /* VOFF_VHOST_INT_H */
