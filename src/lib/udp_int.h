/* SPDX-License-Identifier: MIT */
/*
 * udp_int.h - private side of the UDP sockets: the socket structure that
 * udp.c (open, receive, addresses) and udp_tx.c (the send path) share, and
 * the one seam the tests use to stand in for an older kernel
 */
#ifndef VOFF_UDP_INT_H
#define VOFF_UDP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <voff/pkt.h>
#include <voff/udp.h>

/* The socket options, for C libraries that predate them (linux/udp.h). */
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

/* iovecs the kernel takes in one message (UIO_MAXIOV). */
#define UDP_IOV_MAX 1024
/* Messages handed to one sendmmsg() call. */
#define UDP_TX_MSGS 128
/* Datagrams and iovecs described before the send path must send. */
#define UDP_TX_DGRAMS VOFF_UDP_TX_DGRAMS
#define UDP_TX_IOVS (2 * UDP_TX_DGRAMS)
/* Header slots of super-packets cut by voff_udp_send_frames(). */
#define UDP_TX_SLOTS (UDP_TX_DGRAMS * 128)
/* Data room of a receive buffer: a message one byte longer is truncated. */
#define UDP_RX_ROOM (VOFF_UDP_RX_ROOM + 1)

/**
 * struct udp_dg - one datagram waiting to be sent
 * @iov:	index of its first range in the iovec scratch
 * @niov:	ranges it takes there (consecutive)
 * @len:	payload bytes
 */
struct udp_dg {
	uint32_t iov;
	uint32_t niov;
	uint32_t len;
};

/*
 * Control message space for one UDP_SEGMENT (u16) or UDP_GRO (int), aligned
 * as a struct cmsghdr (whose size_t length comes first).
 */
union udp_ctl {
	size_t align;
	char b[CMSG_SPACE(sizeof(int))];
};

/**
 * struct udp_tx - the send path's scratch space, allocated at open
 * @dg:		datagrams described so far, in order
 * @ndg:	entries of @dg used
 * @iov:	their ranges; a datagram's ranges are consecutive, and so are
 *		the datagrams', so a train is one slice of this array
 * @niov:	entries of @iov used
 * @slots:	header slots of super-packets cut by voff's GSO
 * @slots_used:	bytes of @slots used
 * @sg:		views voff_gso_segment_sg() fills (over @iov)
 * @msg:	the messages of one sendmmsg() call
 * @ctl:	their UDP_SEGMENT control messages
 * @msg_first:	first datagram of each message
 * @msg_dgs:	datagrams in each message
 * @msg_bytes:	payload bytes of each message
 * @to:		destination of this send call, NULL when connected
 * @sent:	datagrams sent in this call
 * @err:	first error of this call, 0 when none
 */
struct udp_tx {
	struct udp_dg dg[UDP_TX_DGRAMS];
	unsigned int ndg;
	struct iovec iov[UDP_TX_IOVS];
	unsigned int niov;
	uint8_t slots[UDP_TX_SLOTS];
	size_t slots_used;
	struct voff_sg sg[UDP_TX_DGRAMS];
	struct mmsghdr msg[UDP_TX_MSGS];
	union udp_ctl ctl[UDP_TX_MSGS];
	uint32_t msg_first[UDP_TX_MSGS];
	uint32_t msg_dgs[UDP_TX_MSGS];
	uint32_t msg_bytes[UDP_TX_MSGS];
	const union voff_udp_addr *to;
	unsigned int sent;
	int err;
};

/**
 * struct udp_each - voff_udp_recv_each()'s state, allocated at open
 * @seg:	datagram size the next read expects, 0 before the first
 *		train (then a whole packet)
 * @iov:	one iovec per packet, and the last for @spill
 * @held:	first held datagram (in @spill or @lin), NULL when none
 * @held_len:	bytes held, datagram after datagram
 * @held_seg:	their datagram size (the last may be shorter)
 * @held_from:	their source
 * @spill:	a message's bytes past the packets' iovecs
 * @lin:	a message copied out whole, to cut at its real size
 */
struct udp_each {
	uint32_t seg;
	struct iovec iov[VOFF_BATCH_MAX + 1];
	const uint8_t *held;
	uint32_t held_len;
	uint32_t held_seg;
	union voff_udp_addr held_from;
	uint8_t spill[UDP_RX_ROOM];
	uint8_t lin[UDP_RX_ROOM];
};

/**
 * struct voff_udp - one socket
 * @fd:		the socket
 * @family:	AF_INET or AF_INET6
 * @flags:	VOFF_UDP_F_* of the configuration
 * @gso:	trains are sent with UDP_SEGMENT
 * @gro:	UDP_GRO is on
 * @connected:	connect() was called: sends may omit the destination
 * @max_train:	payload bytes of a train at most
 * @local:	bound address
 * @remote:	connected peer, or AF_UNSPEC
 * @st:		counters
 * @sendmmsg:	the system call (the tests' seam, see below)
 * @pool:	receive buffers
 * @rx_batch:	messages per recvmmsg() at most
 * @rx_bufs:	buffers of @pool
 * @rx_msg:	recvmmsg() messages
 * @rx_iov:	their buffers
 * @rx_from:	their source addresses
 * @rx_ctl:	their UDP_GRO control messages
 * @tx:		the send path's scratch
 * @each:	voff_udp_recv_each()'s state
 */
struct voff_udp {
	int fd;
	int family;
	unsigned int flags;
	bool gso;
	bool gro;
	bool connected;
	unsigned int max_train;
	union voff_udp_addr local;
	union voff_udp_addr remote;
	struct voff_udp_stats st;
	int (*sendmmsg)(int fd, struct mmsghdr *msgs, unsigned int n,
			int flags);
	struct voff_pool *pool;
	unsigned int rx_batch;
	unsigned int rx_bufs;
	struct mmsghdr rx_msg[VOFF_BATCH_MAX];
	struct iovec rx_iov[VOFF_BATCH_MAX];
	union voff_udp_addr rx_from[VOFF_BATCH_MAX];
	union udp_ctl rx_ctl[VOFF_BATCH_MAX];
	struct udp_tx *tx;
	struct udp_each *each;
};

/**
 * voff__udp_set_sendmmsg() - replace the sendmmsg() @u calls
 * @u:		the socket
 * @fn:		a function with sendmmsg()'s contract (errno set on -1), or
 *		NULL for sendmmsg() itself
 *
 * Linux 6.18 no longer fails trains with EIO on a device without checksum
 * offload, and this kernel has no IPsec to make it: the tests put a
 * function here that answers as older kernels do.
 */
void voff__udp_set_sendmmsg(struct voff_udp *u,
			    int (*fn)(int fd, struct mmsghdr *msgs,
				      unsigned int n, int flags));

#endif /* VOFF_UDP_INT_H */
