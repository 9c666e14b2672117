/* SPDX-License-Identifier: MIT */
/*
 * udp.h - a UDP socket that moves trains of datagrams: UDP_SEGMENT on send,
 * UDP_GRO and recvmmsg() on receive, with a userspace fallback for kernels
 * or routes that refuse them
 *
 * DOC: Theory of Operation
 *
 * A tunnel or a QUIC stack sends runs of datagrams of one size: the
 * segments of one TCP super-packet, each wrapped in a tunnel header, or a
 * window of QUIC packets.  One sendto() per datagram costs a system call
 * per 1.4 KB.  Since Linux 4.18 a UDP socket takes a whole train in one
 * sendmsg(): with a UDP_SEGMENT control message of size S, the kernel cuts
 * the message's bytes into datagrams of S bytes, the last one shorter, and
 * segments as late as it can (in the NIC, or in software just before the
 * device).  Since 5.0 the receive side has UDP_GRO: datagrams of one flow
 * that GRO coalesced reach recvmsg() as one train, with a UDP_GRO control
 * message giving S.  docs/udp.md lists the kernel's rules with their
 * sources.
 *
 * A struct voff_udp is one socket, opened in a chosen network namespace,
 * bound to a chosen address and port, connected or not.  What it does:
 *
 *  - Send: whatever the caller hands over (a byte range cut every S bytes,
 *    a list of datagrams as scatter-gather views, or frames and GSO
 *    super-packets, cut by voff's GSO) becomes a list of datagrams.
 *    Consecutive datagrams become one train when the kernel allows it: all
 *    of one size but the last, which may be shorter, at most
 *    VOFF_UDP_MAX_SEGS of them and at most info.max_train bytes.  The trains
 *    (and lone datagrams) go out in as few sendmmsg() calls as possible,
 *    each message carrying its own UDP_SEGMENT size.  What reaches the
 *    wire is, datagram for datagram and byte for byte, what one sendto()
 *    per datagram would have sent.
 *  - Receive: with UDP_GRO on, recvmmsg() reads up to rx_batch messages in
 *    one call, each a train or a lone datagram, into buffers of a pool the
 *    socket creates at open (no allocation per packet).  A train reaches the
 *    caller as one struct voff_pkt holding the UDP payloads back to back,
 *    with its geometry in gso_size and gso_segs (see voff_udp_recv()), and
 *    voff_udp_split() describes its datagrams as packets over the same
 *    bytes, without copying, ready for voff's GRO or a parser.  Or,
 *    with voff_udp_recv_each(), a train is scattered as it is read into
 *    one packet of the caller's pool per datagram, without a copy while
 *    the datagram size stays the one of the trains before.
 *  - Probe and fall back: UDP_SEGMENT and UDP_GRO are probed at open with
 *    setsockopt().  A kernel without them (before 4.18 and 5.0) gets single
 *    datagrams in sendmmsg() batches and plain receives.  Before Linux
 *    6.11 a train whose route leads to a device without transmit checksum
 *    offload fails with EIO (so does one through IPsec, still); the socket
 *    then segments in userspace for good and sends that train again as
 *    single datagrams, as quic-go does.  A train the kernel refuses for its
 *    shape (EINVAL, EMSGSIZE: a datagram larger than the path MTU, more
 *    segments than this kernel takes) is sent again as single datagrams,
 *    which the kernel fragments or refuses as it would sendto()'s.  Every
 *    fallback is counted (struct voff_udp_stats).
 *
 * What it does not do: resend what the kernel dropped (UDP is lossy; drops
 * are counted), reorder, fragment or reassemble by itself, use UDP-Lite,
 * GSO with checksums off (SO_NO_CHECK refuses trains: they fall back),
 * receive into caller memory other than packets of a pool, report
 * per-train destination addresses or ICMP errors (they count as
 * rx_errors), or lock (one thread at a time).
 *
 * Context: a socket belongs to one thread at a time.  Receives never
 * block (an empty socket gives 0); sends wait for socket buffer room
 * unless VOFF_UDP_F_NONBLOCK.  Wait for input on voff_udp_fd() with poll()
 * or epoll.
 */
#ifndef VOFF_UDP_H
#define VOFF_UDP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <voff/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_udp;

/*
 * Datagrams voff puts in one train.  Linux took 64 (UDP_MAX_SEGMENTS) until
 * 2024 and 128 since; receive GRO coalesces at most 64 (UDP_GRO_CNT_MAX),
 * so a longer train gains nothing on the wire and would fail on older
 * kernels.
 */
#define VOFF_UDP_MAX_SEGS 64
/* Bytes of payload a received message can hold (a train or a datagram). */
#define VOFF_UDP_RX_ROOM 65535
/* Default number of messages voff_udp_recv() reads in one call. */
#define VOFF_UDP_RX_BATCH 32
/* Default number of receive buffers. */
#define VOFF_UDP_RX_BUFS 128
/* Most segments of one super-packet voff_udp_send_frames() takes. */
#define VOFF_UDP_TX_DGRAMS 2048

/**
 * union voff_udp_addr - an IPv4 or IPv6 socket address
 * @sa:		the family (sa.sa_family: AF_INET, AF_INET6, or AF_UNSPEC =
 *		not set, all zero)
 * @in4:	the IPv4 form
 * @in6:	the IPv6 form
 */
union voff_udp_addr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/* Flags of struct voff_udp_cfg.flags */
#define VOFF_UDP_F_NO_GSO (1u << 0)	/* never send trains (UDP_SEGMENT) */
#define VOFF_UDP_F_NO_GRO (1u << 1)	/* never receive trains (UDP_GRO) */
#define VOFF_UDP_F_NONBLOCK (1u << 2)	/* a full send buffer drops */
#define VOFF_UDP_F_REUSEADDR (1u << 3)	/* SO_REUSEADDR before bind() */
/*
 * One datagram per system call each way: no trains (implies NO_GSO and
 * NO_GRO), one message per sendmmsg(), rx_batch 1.  The baseline a
 * program without voff has, for measurements (bench/vxlan.sh).
 */
#define VOFF_UDP_F_SINGLE (1u << 4)

/**
 * struct voff_udp_cfg - how to open a socket
 * @local:	address and port to bind to; the family may be AF_UNSPEC
 *		when @remote is set (then the wildcard address of @remote's
 *		family and a port the kernel picks).  Port 0: the kernel picks
 * @remote:	peer to connect to, or AF_UNSPEC for an unconnected socket
 *		(then every send names its destination)
 * @netns:	name of a namespace under /var/run/netns to open the socket
 *		in (NULL or "": the caller's); the socket keeps working from
 *		the caller's namespace
 * @flags:	VOFF_UDP_F_* bits
 * @rx_bufs:	receive buffers of VOFF_UDP_RX_ROOM bytes each, allocated at
 *		open (0 = VOFF_UDP_RX_BUFS; 1 .. 65536); received packets
 *		hold one each until freed
 * @rx_batch:	messages one voff_udp_recv() reads at most (0 =
 *		VOFF_UDP_RX_BATCH; 1 .. VOFF_BATCH_MAX)
 * @sndbuf:	send buffer in bytes (0 = the kernel's default): set with
 *		SO_SNDBUFFORCE when the caller has CAP_NET_ADMIN, else with
 *		SO_SNDBUF, which net.core.wmem_max caps
 * @rcvbuf:	receive buffer in bytes (0 = the kernel's default), the same
 *		way (SO_RCVBUFFORCE, SO_RCVBUF up to net.core.rmem_max); a
 *		receiver of trains wants several MB
 *
 * Zero-initialise and set what you need.  @local and @remote must have
 * the same family when both are set.
 */
struct voff_udp_cfg {
	union voff_udp_addr local;
	union voff_udp_addr remote;
	const char *netns;
	unsigned int flags;
	unsigned int rx_bufs;
	unsigned int rx_batch;
	int sndbuf;
	int rcvbuf;
};

/**
 * struct voff_udp_info - what a socket is and what it negotiated
 * @local:	the bound address and port (the port the kernel picked)
 * @remote:	the connected peer, AF_UNSPEC when unconnected
 * @gso:	sends use UDP_SEGMENT now: probed at open, false with
 *		VOFF_UDP_F_NO_GSO, turned off for good by an EIO
 * @gro:	UDP_GRO is on: received messages may be trains
 * @max_segs:	datagrams per train sent (VOFF_UDP_MAX_SEGS)
 * @max_train:	payload bytes per train sent: what keeps the IP packet of a
 *		train and an Ethernet header under 64 KiB, so a device with
 *		the default gso_max_size takes it whole (65493 for IPv4,
 *		65473 for IPv6)
 * @rx_batch:	messages read per voff_udp_recv() at most
 * @rx_bufs:	receive buffers of the socket's pool
 */
struct voff_udp_info {
	union voff_udp_addr local;
	union voff_udp_addr remote;
	bool gso;
	bool gro;
	unsigned int max_segs;
	unsigned int max_train;
	unsigned int rx_batch;
	unsigned int rx_bufs;
};

/*
 * VOFF_UDP_STATS_MAP(X) - X(field, "what it counts"): the counters of
 * struct voff_udp_stats, in order, with their meaning.  Every one only
 * grows.
 */
#define VOFF_UDP_STATS_MAP(X)                                                \
	X(tx_calls, "sendmmsg() calls")                                      \
	X(tx_msgs, "messages sent: a train or a lone datagram each")         \
	X(tx_trains, "of those, trains of 2+ datagrams (UDP_SEGMENT)")       \
	X(tx_datagrams, "datagrams sent")                                    \
	X(tx_bytes, "their payload bytes")                                   \
	X(tx_dropped, "datagrams refused by the kernel, not sent")           \
	X(tx_gso_pkts, "super-packets cut by voff's GSO")                    \
	X(rx_calls, "receive calls: recvmmsg(), or recvmsg() per train")    \
	X(rx_msgs, "messages received: a train or a lone datagram each")     \
	X(rx_trains, "of those, trains of 2+ datagrams (UDP_GRO)")           \
	X(rx_datagrams, "datagrams received")                                \
	X(rx_bytes, "their payload bytes")                                   \
	X(rx_dropped, "messages dropped: longer than a buffer")              \
	X(rx_errors, "errors reported on receive (ICMP)")                    \
	X(fallback_gso_probe, "1: no UDP_SEGMENT at open, no trains sent")   \
	X(fallback_gro_probe, "1: no UDP_GRO at open, no trains received")   \
	X(fallback_gso_eio, "trains refused with EIO: no trains after them") \
	X(fallback_train, "trains refused for their shape, resent singly")    \
	X(rx_resized, "messages of another datagram size than expected, "   \
		      "copied into place (voff_udp_recv_each())")           \
	X(rx_held, "datagrams held for a later call, then copied out "      \
		   "(voff_udp_recv_each())")

/**
 * struct voff_udp_stats - a socket's counters, one uint64_t per entry of
 * VOFF_UDP_STATS_MAP, which documents each
 */
struct voff_udp_stats {
#define VOFF_UDP_STAT_FIELD(name, doc) uint64_t name;
	VOFF_UDP_STATS_MAP(VOFF_UDP_STAT_FIELD)
#undef VOFF_UDP_STAT_FIELD
};

/* ---- addresses ----------------------------------------------------------- */

/**
 * voff_udp_addr_parse() - read an address with an optional port
 * @out:	receives the address; untouched on failure
 * @text:	"192.0.2.1", "192.0.2.1:4789", "2001:db8::1" (no port),
 *		"[2001:db8::1]" or "[2001:db8::1]:4789"
 * @port:	the port when @text gives none
 *
 * Numeric forms only: no host names, no IPv6 scope ("%eth0").
 *
 * Return: 0, or -EINVAL for text of another form or a port above 65535.
 */
int voff_udp_addr_parse(union voff_udp_addr *out, const char *text,
			uint16_t port);

/**
 * voff_udp_addr_format() - write @a as voff_udp_addr_parse() reads it
 * @a:		the address
 * @buf:	receives "192.0.2.1:4789", "[2001:db8::1]:4789" or "-" for
 *		AF_UNSPEC, NUL-terminated and cut to @cap
 * @cap:	bytes at @buf (64 always suffice)
 *
 * Return: @buf.
 */
char *voff_udp_addr_format(const union voff_udp_addr *a, char *buf,
			   size_t cap);

/**
 * voff_udp_addr_eq() - whether @a and @b name the same endpoint
 * @a:		an address
 * @b:		another
 *
 * Same family, address and port; an IPv6 flow label and scope are left
 * out, as voff_udp_addr_format() leaves them out.  Two AF_UNSPEC
 * addresses are equal.
 *
 * Return: true when they are the same.
 */
bool voff_udp_addr_eq(const union voff_udp_addr *a,
		      const union voff_udp_addr *b);

/** voff_udp_addr_len() - the socklen_t of @a's family (0 for AF_UNSPEC) */
socklen_t voff_udp_addr_len(const union voff_udp_addr *a);

/* ---- life cycle ---------------------------------------------------------- */

/**
 * voff_udp_open() - open, bind and optionally connect a socket
 * @out:	receives the socket; untouched on failure
 * @cfg:	what to open (borrowed; copied)
 *
 * Creates the socket inside @cfg->netns, sets the buffer sizes, probes
 * UDP_SEGMENT (unless VOFF_UDP_F_NO_GSO) and turns UDP_GRO on (unless
 * VOFF_UDP_F_NO_GRO) -- a kernel that refuses either is counted as a
 * fallback, not an error -- binds @cfg->local and connects @cfg->remote.
 * Allocates the receive pool and the send scratch space, once.
 *
 * Return: 0; -EINVAL for a bad configuration (no family, two families,
 * counts out of range); -ENOENT for a missing namespace; -ENOMEM; or
 * the negative errno of socket(), bind() or connect() (-EADDRINUSE,
 * -EADDRNOTAVAIL, -ENETUNREACH, ...).  Nothing is left open on failure.
 */
int voff_udp_open(struct voff_udp **out, const struct voff_udp_cfg *cfg);

/**
 * voff_udp_close() - close the socket and free everything it holds
 * @u:		the socket, or NULL (then nothing happens)
 *
 * Every packet voff_udp_recv() handed out must have been freed before:
 * they belong to the socket's pool, which goes with it.
 */
void voff_udp_close(struct voff_udp *u);

/** voff_udp_fd() - the descriptor, to poll for POLLIN (owned by @u) */
int voff_udp_fd(const struct voff_udp *u);

/** voff_udp_info() - fill @info with what @u is and negotiated */
void voff_udp_info(const struct voff_udp *u, struct voff_udp_info *info);

/** voff_udp_stats() - copy @u's counters into @st */
void voff_udp_stats(const struct voff_udp *u, struct voff_udp_stats *st);

/* ---- send ---------------------------------------------------------------- */

/*
 * Common contract of the send functions:
 *
 * @to is the destination, or NULL on a connected socket (a connected
 * socket may still name another).  Datagrams leave in order.  A datagram
 * the kernel refuses (no route, a full buffer with VOFF_UDP_F_NONBLOCK,
 * too large) is dropped and counted in tx_dropped; the others are still
 * sent.  Nothing is retried beyond the fallbacks of the Theory of
 * Operation.
 *
 * Return: the number of datagrams sent, when all were; else the negative
 * errno of the first datagram the kernel refused (the counters tell how
 * many went out).  -EINVAL, with nothing sent, for NULL arguments or an
 * address of the wrong family; -EMSGSIZE, with nothing sent, for a
 * datagram described by more than 1024 iovecs (IOV_MAX).
 */

/**
 * voff_udp_send() - send the bytes of @iov as a train cut every @seg bytes
 * @u:		the socket
 * @iov:	the bytes, in order (any number of entries, any lengths)
 * @iovcnt:	entries of @iov
 * @seg:	datagram size: the bytes are cut into datagrams of @seg
 *		bytes, the last one shorter (UDP_SEGMENT's meaning); 0 means
 *		one datagram of all the bytes
 * @to:		destination, or NULL when connected
 *
 * No bytes at all send one empty datagram.  Trains longer than the
 * kernel takes are sent as several messages of one sendmmsg().
 *
 * Return: as the common contract above.
 * Ownership: borrows @iov and its bytes for the call.
 */
int voff_udp_send(struct voff_udp *u, const struct iovec *iov,
		  unsigned int iovcnt, size_t seg,
		  const union voff_udp_addr *to);

/**
 * voff_udp_send_sg() - send one datagram per view, in trains where possible
 * @u:		the socket
 * @dgrams:	the datagrams, each a scatter-gather view (pkt.h) of any
 *		number of ranges, such as voff_gso_segment_sg() fills
 * @n:		number of datagrams
 * @to:		destination, or NULL when connected
 *
 * Consecutive datagrams join one train while they have the first one's
 * length; one shorter datagram may end it.  An empty datagram is always
 * sent alone.
 *
 * Return: as the common contract above.
 * Ownership: borrows the views and the bytes they describe for the call.
 */
int voff_udp_send_sg(struct voff_udp *u, const struct voff_sg *dgrams,
		     unsigned int n, const union voff_udp_addr *to);

/**
 * voff_udp_send_frames() - send frames, one datagram per frame or segment
 * @u:		the socket
 * @pkts:	the frames: each plain frame's data becomes one datagram's
 *		payload; a super-packet (voff_pkt_is_gso()) is cut by voff's
 *		GSO with full checksums (voff_gso_segment_sg(), no copy of
 *		its payload) and each segment becomes one datagram
 * @n:		number of frames
 * @to:		destination, or NULL when connected
 *
 * This is a tunnel's transmit: the frames a TUN or TAP hands over, kept
 * whole inside the datagrams.  A plain frame with VOFF_CSUM_PARTIAL gets
 * its checksum completed in place first (voff_pkt_csum_complete()): no
 * receiver could complete it.  Super-packets need the offsets
 * voff_pkt_parse() sets (ports set them); one GSO refuses (VOFF_E_GSO_*),
 * or of more than VOFF_UDP_TX_DGRAMS segments, or whose segments' headers
 * take more than 256 KiB together (-EMSGSIZE), counts as one dropped
 * datagram and gives its error.  Runs of equal-length
 * segments and frames go out as trains, across frame boundaries.
 *
 * Return: as the common contract above, counting datagrams (segments).
 * Ownership: borrows @pkts (it does not free them); the only change made
 * to a frame is the completed checksum of a plain partial one.
 */
int voff_udp_send_frames(struct voff_udp *u, struct voff_pkt *const *pkts,
			 unsigned int n, const union voff_udp_addr *to);

/* ---- receive ------------------------------------------------------------- */

/**
 * voff_udp_recv() - receive the messages that are ready, in one recvmmsg()
 * @u:		the socket
 * @b:		packets are appended here: up to min(voff_batch_space(@b),
 *		info.rx_batch) of them
 * @from:	NULL, or an array of VOFF_BATCH_MAX addresses: @from[i]
 *		receives the source of @b->pkts[i] for every i appended
 *
 * Each packet is one message: a train of datagrams UDP_GRO coalesced, or
 * one datagram.  Its data (at VOFF_PKT_HEADROOM) is the UDP payloads back
 * to back, without headers: every offset is VOFF_OFF_NONE, gso_type is 0
 * (it is not a frame GSO could cut), csum is VOFF_CSUM_NONE, gso_segs the
 * number of datagrams (1 or more) and gso_size the length of each of them
 * but the last, which is shorter or equal (a lone datagram has gso_size =
 * len; an empty one 0).  Datagram i is bytes [i * gso_size, min(len,
 * (i + 1) * gso_size)); voff_udp_split() cuts them out.  The kernel
 * verified every UDP checksum.  A message longer than VOFF_UDP_RX_ROOM
 * (truncated) is dropped and counted in rx_dropped.
 *
 * Return: packets appended (0 when nothing was ready, or after an ICMP
 * error the socket reported, counted in rx_errors), -ENOBUFS when the
 * socket's pool is empty (free received packets), -EINVAL for NULL @u or
 * @b, or the negative errno of a failed socket.
 * Ownership: the caller owns every appended packet and frees it with
 * voff_pkt_free() before voff_udp_close().
 */
int voff_udp_recv(struct voff_udp *u, struct voff_batch *b,
		  union voff_udp_addr *from);

/**
 * voff_udp_recv_each() - receive one message as one packet per datagram
 * @u:		the socket
 * @pool:	the pool the packets are taken from (the caller's: a
 *		switch's, a port's)
 * @b:		packets are appended here: up to voff_batch_space(@b)
 * @from:	NULL, or an array of VOFF_BATCH_MAX addresses: @from[i]
 *		receives the source of @b->pkts[i] for every i appended
 *
 * Where voff_udp_recv() hands a train over as one packet, this call
 * scatters it: one recvmsg() reads one message (a UDP_GRO train or a lone
 * datagram) with an iovec per datagram it expects, each the start of a
 * packet of @pool, so each datagram's bytes land at VOFF_PKT_HEADROOM of
 * their own packet without a copy.  Each appended packet is one datagram,
 * in order: len its payload bytes, offsets VOFF_OFF_NONE, csum
 * VOFF_CSUM_NONE, no GSO (gso_size and gso_segs 0), as voff_pkt_alloc()
 * left it otherwise.  The kernel verified every UDP checksum.
 *
 * The expected datagram size is the UDP_GRO segment size of the last
 * train longer than one datagram of the size expected then (at first: a
 * whole packet).  A train of another size lands across the iovecs; it is
 * then copied into place through a buffer of the socket (counted in
 * rx_resized), and sets the size for the next read when it is longer than
 * one expected datagram (a short train of small datagrams, such as
 * acknowledgements, is cheap to copy and leaves it).  A lone datagram no
 * longer than that size never needs the copy; a longer one is copied and
 * sets it.  Bytes past the
 * packets taken (a pool running short, @b with less room than the train
 * has datagrams) land in that buffer and are held: the next calls hand
 * them out, copied into new packets (rx_held counts them), before reading
 * the socket again.  So nothing is lost or reordered.  A message longer
 * than VOFF_UDP_RX_ROOM, or whose datagrams do not fit a packet of @pool,
 * is dropped whole and counted in rx_dropped.  The message counters
 * (rx_msgs, rx_trains, rx_datagrams, rx_bytes) count as voff_udp_recv()
 * does, when the message is read.
 *
 * It is a function of its own, not a flag of the socket, because its
 * packets belong to another pool and have another shape: a caller of
 * voff_udp_recv() keeps its contract.  Both may be used on one socket,
 * but not while datagrams are held (voff_udp_recv() would overtake them).
 * One message per call: a caller that reads lone small datagrams at a
 * high rate reads more per system call with voff_udp_recv().
 *
 * Return: packets appended (0 when nothing was ready, after a dropped
 * message, or after an ICMP error, counted in rx_errors); -ENOBUFS, with
 * nothing read and nothing appended, when @pool has no free packet;
 * -EINVAL for NULL @u, @pool or @b; or the negative errno of a failed
 * socket.  On any error nothing was appended and no packet was kept.
 * Ownership: the caller owns every appended packet and frees it to
 * @pool with voff_pkt_free(), when it likes (the socket keeps no
 * reference); packets taken but not filled went back to @pool.
 */
int voff_udp_recv_each(struct voff_udp *u, struct voff_pool *pool,
		       struct voff_batch *b, union voff_udp_addr *from);

/**
 * voff_udp_held() - datagrams voff_udp_recv_each() holds for its next calls
 * @u:		the socket
 *
 * Held datagrams were read from the socket already: its descriptor no
 * longer polls readable for them, so a caller that waits in poll() calls
 * voff_udp_recv_each() again first while this is nonzero.
 *
 * Return: their number (0 when none).
 */
unsigned int voff_udp_held(const struct voff_udp *u);

/**
 * voff_udp_split() - describe each datagram of a received train as a packet
 * @train:	a packet from voff_udp_recv() (or any packet whose gso_size
 *		and gso_segs describe its data that way)
 * @views:	caller storage for the packet descriptors: views[i] is set
 *		up (voff_pkt_init_ext()) over datagram i's bytes inside
 *		@train's buffer, with no headroom and no tailroom, offsets
 *		VOFF_OFF_NONE, csum VOFF_CSUM_NONE, no GSO, and @train's
 *		port, hash and rx_ns
 * @cap:	entries at @views
 *
 * No byte is copied: the views are what voff_gro_receive() (with
 * VOFF_PARSE_IP or VOFF_PARSE_ETH frames inside the datagrams), a parser
 * or a checksum takes.  As they have no room around them, whatever must
 * prepend bytes (a port pushing a virtio_net_hdr) needs a copy first
 * (voff_pkt_clone()); voff's GRO copies a flow's head into its own buffer
 * on the first merge.
 *
 * Return: the number of datagrams (>= 1); -ENOSPC when @cap is smaller
 * (nothing written); -EINVAL when @train's gso_size and gso_segs do not
 * describe its length.
 * Ownership: borrows @train, which must stay alive and unchanged while
 * any view is used; voff_pkt_free() of a view only detaches it.
 */
int voff_udp_split(const struct voff_pkt *train, struct voff_pkt *views,
		   unsigned int cap);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_UDP_H */
