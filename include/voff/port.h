/* SPDX-License-Identifier: MIT */
/*
 * port.h - ports: where voff meets the kernel (TAP, TUN, AF_PACKET) or an
 * application (in-memory pairs, capture files)
 *
 * DOC: Theory of Operation
 *
 * A struct voff_port is one endpoint that frames are received from and sent
 * to in batches (struct voff_batch, pkt.h).  Every backend is one file with
 * one const ops table behind this single front end:
 *
 *   VOFF_PORT_MEM     an in-memory pair (voff_port_mem_pair()): what one end
 *                     sends the other receives; features and limits are set
 *                     by the caller, so tests need no privileges
 *   VOFF_PORT_PCAP    a capture file read as a source and/or written as a
 *                     sink (offline runs)
 *   VOFF_PORT_TAP     a TAP device (Ethernet frames), created or attached
 *   VOFF_PORT_TUN     a TUN device (IP packets), created or attached
 *   VOFF_PORT_PACKET  an AF_PACKET socket bound to an existing interface
 *
 * Frames cross the kernel boundary with a virtio_net_hdr in front (TAP and
 * TUN with IFF_VNET_HDR, AF_PACKET with PACKET_VNET_HDR), so super-packets
 * of up to 64 KiB pass whole in both directions.  Every header read is
 * validated before the frame is handed on; a frame whose header is refused
 * is dropped and counted under the validator's reason.  A header the kernel
 * would reject is never written: such a packet is dropped and counted on
 * transmit instead.
 *
 * Offloads are negotiated per port as a set of VOFF_TUN_F_* bits (feat.h),
 * the vocabulary of TUNSETOFFLOAD and of virtio's guest offload bits:
 *  - rx offloads: what the port may hand voff (a TAP hands super-packets
 *    only of the kinds voff accepted with TUNSETOFFLOAD);
 *  - tx offloads: what voff may hand the port (the kernel segments any valid
 *    super-packet written to a TAP, TUN or AF_PACKET socket; an in-memory
 *    port takes what it was configured with).
 * A TAP or TUN probes the wanted set: when the kernel refuses it, one
 * feature at a time is dropped until the largest accepted subset remains,
 * and what was dropped is reported as refused.
 *
 * The front end enforces a port's transmit contract before the backend sees
 * a packet: an offload the port does not take (VOFF_E_PORT_OFFLOAD), a
 * plain frame above the MTU (VOFF_E_PORT_MTU), a super-packet above the
 * port's size or segment limit (VOFF_E_PORT_GSO_SIZE / _SEGS) are dropped
 * and counted.  Segmenting such packets first is the caller's job (gso.h).
 *
 * Counters: packets and bytes each way, super-packets each way, and drops
 * by reason in fixed arrays indexed by error code (voff_err_name() gives the
 * counter name), so nothing is allocated per packet.
 *
 * Context: a port belongs to one thread at a time; nothing here locks.
 * Receive and send never block: descriptors are non-blocking, and an empty
 * receive returns 0.  Wait on voff_port_fd() with epoll or poll.
 */
#ifndef VOFF_PORT_H
#define VOFF_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <voff/feat.h>
#include <voff/limits.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_pkt;
struct voff_pool;
struct voff_batch;
struct voff_port;
struct voff_vxlan_cfg;

/** enum voff_port_kind - the backends */
enum voff_port_kind {
	VOFF_PORT_MEM = 0,
	VOFF_PORT_PCAP,
	VOFF_PORT_TAP,
	VOFF_PORT_TUN,
	VOFF_PORT_PACKET,
	VOFF_PORT_VHOST,	/* a VM's virtio-net over vhost-user */
	VOFF_PORT_VXLAN,	/* a VXLAN VTEP over UDP (vxlan.h) */
	VOFF_PORT__KIND_COUNT
};

/*
 * A port's limits are a struct voff_limits (feat.h): mtu, gso_max_size,
 * gso_max_segs, tso_max_size, tso_max_segs (read only), gro_max_size and
 * the IPv4 variants, the same type voff_xmit_decide() takes for an egress.
 * In a configuration 0 means "leave as it is"; read from a kernel device,
 * 0 means the kernel lacks the attribute.
 */

/* Flags of struct voff_port_cfg.flags */
#define VOFF_PORT_F_ATTACH (1u << 0)	/* TAP/TUN: the device must exist */
#define VOFF_PORT_F_NO_VNET (1u << 1)	/* plain frames, no vnet header */
#define VOFF_PORT_F_MULTI_QUEUE (1u << 2) /* TAP/TUN: IFF_MULTI_QUEUE */
#define VOFF_PORT_F_UP (1u << 3)	/* TAP/TUN: set the link up */
#define VOFF_PORT_F_OWN_TX (1u << 4)	/* AF_PACKET: also see own sends */
#define VOFF_PORT_F_L3 (1u << 5)	/* PCAP sink only: raw IP frames */
#define VOFF_PORT_F_NO_URING (1u << 6)	/* TAP/TUN: read()/write() only */
#define VOFF_PORT_F_NAPI (1u << 7)	/* TAP/TUN: IFF_NAPI, see open */
#define VOFF_PORT_F_NO_RING (1u << 8)	/* AF_PACKET: recvmmsg() only */

/**
 * struct voff_port_cfg - how to open a port
 * @kind:	enum voff_port_kind
 * @name:	TAP/TUN: interface name ("" or NULL: the kernel picks one);
 *		PACKET: the interface to bind to; PCAP: the file to read
 *		(NULL: no source); MEM: a label; VHOST: the unix socket to
 *		listen on (at most 63 bytes)
 * @sink:	PCAP: the file to write (NULL: no sink)
 * @netns:	TAP/TUN/PACKET: name of a namespace under /var/run/netns to
 *		create the device or open the socket in (NULL: the caller's);
 *		the descriptor keeps working from the caller's namespace
 * @flags:	VOFF_PORT_F_* bits
 * @want:	VOFF_TUN_F_* offloads wanted on receive (TAP/TUN probe
 *		them; MEM takes them as given; VHOST offers the guest the
 *		matching HOST_* features)
 * @tx_off:	MEM only: VOFF_TUN_F_* offloads the port takes on send
 * @limits:	TAP/TUN: limits to set on the device over netlink (0 = leave
 *		alone); MEM: the port's limits as reported and enforced;
 *		VHOST: the MTU until the VMM sets one (0: 1500)
 * @vnet_hdr_len: header size in bytes: 0 for the default (10), 12, 20 or
 *		24; UDP tunnel offloads need 24 (TAP/TUN on 6.17+, MEM);
 *		AF_PACKET takes 10 or 12
 * @ring:	MEM: frames each direction buffers (0 = 256)
 * @queues:	TAP/TUN: queues this port opens (0 = 1; only 1 now): a
 *		multi-queue device has one port per queue, the first made
 *		with VOFF_PORT_F_MULTI_QUEUE, the others with
 *		VOFF_PORT_F_MULTI_QUEUE | VOFF_PORT_F_ATTACH
 * @vxlan:	VXLAN: the VNI, addresses and options (vxlan.h; borrowed,
 *		copied at open); NULL for the other kinds
 *
 * Zero-initialise and set what you need.
 */
struct voff_port_cfg {
	enum voff_port_kind kind;
	const char *name;
	const char *sink;
	const char *netns;
	unsigned int flags;
	unsigned int want;
	unsigned int tx_off;
	struct voff_limits limits;
	unsigned int vnet_hdr_len;
	unsigned int ring;
	unsigned int queues;
	const struct voff_vxlan_cfg *vxlan;
};

/**
 * struct voff_port_info - what a port negotiated
 * @kind:	enum voff_port_kind
 * @name:	interface name (as the kernel named it), file or label
 * @ifindex:	interface index in its namespace, 0 when none
 * @rx_off:	VOFF_TUN_F_* offloads frames from the port may carry
 * @tx_off:	VOFF_TUN_F_* offloads frames sent to the port may carry
 * @want:	what the configuration asked for
 * @refused:	wanted bits the kernel refused (want & ~rx_off)
 * @features:	feat.h VOFF_F_* bits: a kernel device's active ethtool
 *		features as read at open (a TAP's follow TUNSETOFFLOAD);
 *		for ports without a device, @rx_off in the feature model
 * @vnet_hdr_len: bytes of virtio_net_hdr in front of each frame, 0 = none
 * @l3:		true for ports whose frames start at the IP header (TUN)
 * @limits:	the device's limits as last read
 * @tx_max_len:	largest frame the port takes on send (headers included)
 * @io_uring:	TAP/TUN: frames move in io_uring batches (built with
 *		liburing, the kernel allows it, VOFF_PORT_F_NO_URING not
 *		given); false: one read() or write() per frame
 * @mmap_ring:	PACKET: frames are received through a TPACKET_V2 ring
 *		shared with the kernel (not with VOFF_PORT_F_NO_RING or a
 *		12-byte header); false: recvmmsg() batches
 * @netns:	the namespace named at open (struct voff_port_cfg), "" for
 *		the caller's: two ports of one name and ifindex in different
 *		namespaces differ here
 * @flags:	the VOFF_PORT_F_* flags the port was opened with
 */
struct voff_port_info {
	enum voff_port_kind kind;
	char name[64];
	unsigned int ifindex;
	unsigned int rx_off;
	unsigned int tx_off;
	unsigned int want;
	unsigned int refused;
	uint64_t features;
	unsigned int vnet_hdr_len;
	bool l3;
	struct voff_limits limits;
	uint32_t tx_max_len;
	bool io_uring;
	bool mmap_ring;
	char netns[64];
	unsigned int flags;
};

/**
 * struct voff_port_stats - a port's counters
 * @rx_packets:	frames handed to the caller
 * @rx_bytes:	their bytes (no virtio_net_hdr)
 * @rx_gso:	of those, super-packets (gso_type set)
 * @rx_dropped:	frames received and dropped (sum over reasons)
 * @tx_packets:	frames the backend accepted
 * @tx_bytes:	their bytes (no virtio_net_hdr)
 * @tx_gso:	of those, super-packets
 * @tx_dropped:	frames given to send and dropped (sum over reasons)
 * @rx_kernel_dropped: frames the kernel dropped on the way to the port,
 *		before it could read them, so not in @rx_dropped: for a
 *		packet port its socket's queue overflows (PACKET_STATISTICS),
 *		for a TAP/TUN port its device's transmit drops (tx_dropped:
 *		the queue to the port was full); 0 for the other kinds.
 *		Read from the kernel when asked (a system call or a netlink
 *		request on a socket the port opened with it, so no privilege
 *		is needed then), counted since the port was opened; it never
 *		decreases (a read that fails answers the last count).
 */
struct voff_port_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t rx_gso;
	uint64_t rx_dropped;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_gso;
	uint64_t tx_dropped;
	uint64_t rx_kernel_dropped;
};

/** enum voff_port_dir - direction of a counter */
enum voff_port_dir {
	VOFF_PORT_RX = 0,
	VOFF_PORT_TX = 1,
};

/**
 * struct voff_port_drop - one non-zero drop counter
 * @err:	the reason, a negative errno or VOFF_E_* code
 * @name:	voff_err_name(@err); "unknown" for the catch-all counter of
 *		codes that have no counter of their own (a counter name is
 *		a word: it becomes rx_drop_NAME in `voff ctl stats`)
 * @count:	frames dropped for it
 */
struct voff_port_drop {
	int err;
	const char *name;
	uint64_t count;
};

/* ---- life cycle ---------------------------------------------------------- */

/**
 * voff_port_open() - open a port
 * @out:	receives the port on success; untouched on failure
 * @cfg:	what to open (borrowed; strings are copied)
 *
 * TAP/TUN: creates the device (or attaches to it with VOFF_PORT_F_ATTACH),
 * inside @cfg->netns when given, with IFF_NO_PI, IFF_VNET_HDR (unless
 * VOFF_PORT_F_NO_VNET) and IFF_NAPI only with VOFF_PORT_F_NAPI; sets the
 * header size, probes @cfg->want with TUNSETOFFLOAD, sets @cfg->limits
 * over netlink and reads the limits back.
 *
 * VOFF_PORT_F_NAPI: what voff writes is queued to the device's NAPI
 * context instead of being received in the writer's own system call; with
 * the device's NAPI threaded (/sys/class/net/DEV/threaded = 1) the
 * receiving namespace's IP and TCP work then runs, and is accounted, in
 * the NAPI kernel thread, not in voff's process.  The kernel does GRO in
 * that context unless the device's "gro" feature is off (ethtool -K DEV
 * gro off), which keeps voff's own engine the only one.  Creating a
 * device with IFF_NAPI needs CAP_NET_ADMIN.  Off by default.
 *
 * PACKET: binds a raw socket to the interface with
 * PACKET_VNET_HDR and PACKET_IGNORE_OUTGOING.  MEM: use
 * voff_port_mem_pair() instead (-EINVAL here).
 *
 * TAP/TUN built with liburing move frames in io_uring batches (a
 * multishot read that keeps up to 32 packets of the receive pool posted,
 * or one io_uring_enter() for up to 8 reads on kernels before 6.7; one for
 * a transmit batch), in order, with the same results as read()/write();
 * when the kernel refuses
 * io_uring (too old, or kernel.io_uring_disabled) or with
 * VOFF_PORT_F_NO_URING they use one read() or write() per frame
 * (info.io_uring tells which).
 *
 * Return: 0; -EINVAL for a bad configuration; -EPERM without
 * CAP_NET_ADMIN; -ENOENT for a missing interface, file or namespace; or
 * another negative errno from the system.  Nothing is left behind on
 * failure (a device created here is removed again).
 */
int voff_port_open(struct voff_port **out, const struct voff_port_cfg *cfg);

/**
 * voff_port_mem_pair() - open two connected in-memory ports
 * @a:		receives one end
 * @b:		receives the other
 * @cfg:	features, limits and ring size, used for both ends
 *
 * A frame sent on one end is received on the other, byte for byte, with
 * its offload metadata carried in a virtio_net_hdr encoded on send and
 * validated on receive (unless VOFF_PORT_F_NO_VNET).
 *
 * Return: 0, -EINVAL, -ENOMEM; *@a and *@b untouched on failure.
 */
int voff_port_mem_pair(struct voff_port **a, struct voff_port **b,
		       const struct voff_port_cfg *cfg);

/**
 * voff_port_mem_inject() - queue raw bytes to be received on a memory port
 * @port:	a VOFF_PORT_MEM port
 * @data:	the frame as a kernel would deliver it: virtio_net_hdr (when
 *		the port has one) followed by the frame
 * @len:	bytes
 *
 * Lets tests and applications feed arbitrary, even invalid, frames through
 * the receive validation.
 *
 * Return: 0, -EINVAL (not a memory port, or @len too big), -ENOBUFS when
 * the receive ring is full.
 */
int voff_port_mem_inject(struct voff_port *port, const void *data,
			 size_t len);

/**
 * voff_port_close() - close a port; NULL is a no-op
 *
 * A TAP/TUN device created by voff_port_open() (without
 * VOFF_PORT_F_ATTACH and without a persistent flag) disappears with it.
 * Frames still queued in a memory port are freed.  A pcap sink is flushed.
 */
void voff_port_close(struct voff_port *port);

/* ---- data path ----------------------------------------------------------- */

/**
 * voff_port_rx() - receive the frames that are ready, up to the batch's room
 * @port:	the port
 * @pool:	where packet buffers come from; its data room should hold a
 *		super-packet (VOFF_PKT_SUPER_ROOM) for offloading ports
 * @b:		frames are appended here
 *
 * Reads until the port has nothing more ready or as many frames as @b had
 * room for were read, refused ones included (so a port flooded with
 * malformed frames costs a call no more than one sending good ones), with
 * as few system calls as the backend allows.  Each frame is validated: its
 * virtio_net_hdr is decoded into the packet's offload metadata (csum,
 * gso_type, gso_size, gso_segs, header offsets); a refused frame is freed
 * and counted, not returned.  Received frames start at VOFF_PKT_HEADROOM
 * or more bytes of headroom.
 *
 * A TAP/TUN port with a multishot read keeps up to 32 packets of @pool
 * (a sixteenth of its capacity at most) posted to the kernel between
 * calls, and a VXLAN port up to VOFF_BATCH_MAX received datagrams not yet
 * returned: they come back as frames or when the port is closed, so @pool
 * must outlive the port.
 *
 * Return: frames appended (0 when none were ready), -ENOBUFS when @pool
 * ran dry before anything was received (call again once packets are back:
 * the port's descriptor may not tell), or a negative errno for a port
 * that failed (the device went away).
 * Ownership: the caller owns every appended packet.
 */
int voff_port_rx(struct voff_port *port, struct voff_pool *pool,
		 struct voff_batch *b);

/**
 * voff_port_tx() - send a batch
 * @port:	the port
 * @b:		frames to send, in order; emptied on return
 *
 * Frames that break the port's transmit contract (see the Theory of
 * Operation) or whose virtio_net_hdr cannot be encoded are dropped and
 * counted; the others go out with as few system calls as the backend
 * allows.  When the device cannot take more (a full queue), the rest are
 * dropped and counted under -EAGAIN ("eagain").
 *
 * Return: frames sent, or a negative errno when the port failed (all
 * frames were still consumed).
 * Ownership: consumes every packet of @b regardless of the result.
 */
int voff_port_tx(struct voff_port *port, struct voff_batch *b);

/* ---- state --------------------------------------------------------------- */

/**
 * voff_port_fd() - descriptor to wait on for receive readiness
 *
 * For a TAP/TUN port that receives through a multishot io_uring read
 * (info.io_uring, on Linux 6.7 and later) this is an epoll descriptor
 * watching the device and the ring, not the device itself: frames are
 * read as they arrive, and the ring tells of those not yet taken.  It
 * becomes the device's if the kernel refuses the multishot read: ask
 * again after a receive.
 *
 * Return: the descriptor (owned by the port), or -1 when the port has none
 * (memory and pcap ports are always ready).
 */
int voff_port_fd(const struct voff_port *port);

/** voff_port_info() - copy what @port negotiated into @out */
void voff_port_info(const struct voff_port *port, struct voff_port_info *out);

/**
 * voff_port_stats() - copy @port's counters into @out
 *
 * rx_kernel_dropped is asked of the kernel here (a packet socket's
 * statistics, a TAP's link counters over netlink): a control-path call.
 */
void voff_port_stats(const struct voff_port *port,
		     struct voff_port_stats *out);

/**
 * voff_port_drops() - list the non-zero drop counters of one direction
 * @port:	the port
 * @dir:	VOFF_PORT_RX or VOFF_PORT_TX
 * @out:	receives up to @cap entries (may be NULL when @cap is 0)
 * @cap:	room in @out
 *
 * Return: the number of non-zero counters (may exceed @cap).
 */
unsigned int voff_port_drops(const struct voff_port *port,
			     enum voff_port_dir dir,
			     struct voff_port_drop *out, unsigned int cap);

/**
 * voff_port_drop_count() - frames dropped in @dir for reason @err
 * Return: the count (0 for unknown reasons).
 */
uint64_t voff_port_drop_count(const struct voff_port *port,
			      enum voff_port_dir dir, int err);

/**
 * voff_port_refresh_limits() - read the device's limits again
 *
 * Return: 0, or a negative errno (the port keeps its old values).  Ports
 * without a kernel device return 0 and keep their configured limits.
 */
int voff_port_refresh_limits(struct voff_port *port);

/**
 * voff_port_set_limits() - change a port's limits while it runs
 * @port:	the port
 * @lim:	values to set; 0 leaves one alone; tso_* are ignored
 *
 * TAP/TUN/PACKET: sets them on the device over netlink (see
 * voff_netlink_set_limits(): all or nothing) and reads the limits back; a
 * sender in the device's namespace sizes its next super-packets by them.
 * MEM and PCAP: the port's own limits, enforced on send from now on.
 *
 * Return: 0, or a negative errno (limits unchanged).
 */
int voff_port_set_limits(struct voff_port *port,
			 const struct voff_limits *lim);

/**
 * voff_port_egress() - the port as an egress, for voff_xmit_decide()
 * @port:	the port
 * @dev:	receives what a send may carry, as feat.h features: SG,
 *		HIGHDMA, GSO_ROBUST (every header is validated again on the
 *		other side) and, by tx_off, HW_CSUM, TSO, TSO6, TSO_ECN,
 *		GSO_UDP_L4 (both USO bits), GSO_UDP_TUNNEL(_CSUM); the same
 *		for VLAN-tagged and encapsulated packets; after the kernel's
 *		dependency rules (voff_feat_fix()).  PACKET: also
 *		TSO_MANGLEID when the device has it on (as read at open; a
 *		header cannot say FIXEDID, and such a device takes a
 *		fixed-ID super-packet whose IDs it may make incrementing)
 * @lim:	receives the limits a send is held to: for TAP/TUN the
 *		kernel's defaults with the device's MTU (a write is received
 *		by the kernel, not sent by the device: the device's own
 *		gso_max_size is for its senders); for PACKET the device's MTU
 *		and its gso_max_size, gso_ipv4_max_size and gso_max_segs, as
 *		read at open, the sizes capped at VOFF_GSO_FRAME_LIMIT (a
 *		send leaves through the device, which cuts it to MSS frames
 *		from its gso_max_size on); for memory and capture ports the
 *		port's limits over the kernel's defaults (the IPv4 size
 *		follows gso_max_size unless set)
 *
 * A port without a virtio_net_hdr takes plain frames only: SG and
 * HIGHDMA, so every super-packet is segmented and every partial checksum
 * completed before it.
 */
void voff_port_egress(const struct voff_port *port,
		      struct voff_feat_dev *dev, struct voff_limits *lim);

/**
 * struct voff_port_vhost_stats - a vhost-user port's guest and protocol
 * @connected:	a front end (the VMM) is connected
 * @running:	both rings are started and enabled
 * @features:	virtio features the guest acked (0 before SET_FEATURES)
 * @protocol_features: vhost-user protocol features acked
 * @connects:	connections accepted
 * @disconnects: connections ended (the VMM closed, or voff dropped it)
 * @refused_peer: connections refused: not voff's user id nor root
 * @refused_busy: connections refused: a guest was already connected
 * @protocol_drops: connections voff dropped for a message it could not
 *		answer (a subset of @disconnects)
 * @starts:	times the guest's transmit ring started (driver up, after
 *		each reboot)
 * @stops:	times it stopped (driver reset, reboot, VM stop)
 * @messages:	vhost-user messages handled on the current connection
 * @refused_messages: of those, refused (an error reply or a drop)
 * @guest_calls: notifications sent to the guest on the current connection
 */
struct voff_port_vhost_stats {
	bool connected;
	bool running;
	uint64_t features;
	uint64_t protocol_features;
	uint64_t connects;
	uint64_t disconnects;
	uint64_t refused_peer;
	uint64_t refused_busy;
	uint64_t protocol_drops;
	uint64_t starts;
	uint64_t stops;
	uint64_t messages;
	uint64_t refused_messages;
	uint64_t guest_calls;
};

/**
 * voff_port_vhost_stats() - the guest side of a vhost-user port
 * @port:	a VOFF_PORT_VHOST port
 * @out:	receives the counters and state
 *
 * Return: 0, or -EINVAL for another kind of port.
 */
int voff_port_vhost_stats(const struct voff_port *port,
			  struct voff_port_vhost_stats *out);

/**
 * voff_port_kind_name() - "mem", "pcap", "tap", "tun", "packet",
 *			  "vhost-user" or "vxlan"
 * Return: a static string, never NULL; "?" for a bad @kind.
 */
const char *voff_port_kind_name(enum voff_port_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_PORT_H */
