/* SPDX-License-Identifier: MIT */
/*
 * port_int.h - private side of the ports: the backend ops table, the port
 * structure every backend shares, the single call sites for the
 * virtio_net_hdr codec, and the offload probing
 *
 * port.c is the front end (counters, transmit contract, validation); one
 * file per backend (port_mem.c, port_pcap.c, port_tap.c, port_packet.c)
 * (and port_vhost.c) fills a struct voff_port_ops; netlink.c reads and sets device limits for
 * them, and netns.c (netns_int.h) enters their network namespaces.
 */
#ifndef VOFF_PORT_INT_H
#define VOFF_PORT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <voff/err.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/vnet.h>

/*
 * Drop counters are indexed by error code: slots 1 .. PORT_ERRNO_SLOTS-1
 * hold -errno values, the slots after them VOFF_E_* codes in map order, and
 * slot 0 anything else.
 */
#define PORT_ERRNO_SLOTS 134
#define PORT_DROP_SLOTS (PORT_ERRNO_SLOTS + (VOFF__E_LAST - VOFF_E_BASE))

struct voff_port;

/**
 * struct voff_port_ops - one backend
 * @kind:	enum voff_port_kind it implements
 * @open:	set up @port from @cfg: fill info.*, fd, vnet; 0 or -errno;
 *		on failure release everything it took (close is not called)
 * @close:	release everything open took
 * @rx:		append up to voff_batch_space(@b) frames from @pool, each
 *		passed through voff__port_rx_accept() (which may drop it)
 *		with its virtio_net_hdr still in front when the port has
 *		one; return frames appended, or -errno when the port failed
 * @tx:		send @n frames (headers already pushed), in order, set
 *		@res[i] to 0 for each frame sent and to the negative reason
 *		for each one dropped (@res comes zeroed); return 0, or -errno
 *		when the port failed (frames without a result then count as
 *		dropped for that reason).  Frees nothing: the front end frees
 *		dropped frames, and sent ones unless @keeps_sent
 * @refresh:	read the device's limits again (NULL: nothing to read)
 * @wait_fd:	the descriptor voff_port_fd() reports, when it is not
 *		port->fd (NULL: port->fd)
 * @kernel_drops: frames the kernel dropped before the port read them,
 *		since open (struct voff_port_stats.rx_kernel_dropped; NULL:
 *		none to read)
 * @egress:	adjust the front end's answer of voff_port_egress() for
 *		what the device behind the port adds or takes away (NULL:
 *		the front end's answer stands)
 * @rx_ready:	frames the kernel already read for the port wait in
 *		memory (a TAP's multishot ring), told without a system
 *		call; false when none or unknown (NULL: never known)
 * @release:	give up, once the port has failed, what a new port opened
 *		from the same configuration needs and this one still holds
 *		(a socket bound to its address and port, a listening
 *		socket's path), keeping everything else: counters, tables,
 *		remotes, what info and stats report.  The front end calls it
 *		until it succeeds (voff__port_release()), then calls neither
 *		rx nor tx nor wait_fd again; close still follows.
 *		Return: 0, or -errno with what it could not give up still
 *		held, tried again by the next call (NULL: the backend holds
 *		nothing a re-open needs)
 * @keeps_sent:	the backend keeps the packets it sent (memory rings)
 */
struct voff_port_ops {
	enum voff_port_kind kind;
	int (*open)(struct voff_port *port, const struct voff_port_cfg *cfg);
	void (*close)(struct voff_port *port);
	int (*rx)(struct voff_port *port, struct voff_pool *pool,
		  struct voff_batch *b);
	int (*tx)(struct voff_port *port, struct voff_pkt **pkts,
		  unsigned int n, int *res);
	int (*refresh)(struct voff_port *port);
	int (*wait_fd)(const struct voff_port *port);
	uint64_t (*kernel_drops)(const struct voff_port *port);
	void (*egress)(const struct voff_port *port, struct voff_feat_dev *dev,
		       struct voff_limits *lim);
	bool (*rx_ready)(const struct voff_port *port);
	int (*release)(struct voff_port *port);
	bool keeps_sent;
};

/*
 * Offloads a virtio_net_hdr of @hdr_len bytes can carry: the UDP tunnel
 * types need the 24-byte header with its tunnel offsets.
 */
#define PORT_TNL_OFF                                                         \
	(VOFF_TUN_F_UDP_TUNNEL_GSO | VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM)

static inline unsigned int port_codec_off(unsigned int hdr_len)
{
	if (!hdr_len)
		return 0;
	return hdr_len >= 24 ? VOFF_TUN_F_ALL :
			       VOFF_TUN_F_ALL & ~PORT_TNL_OFF;
}

/**
 * struct voff_port - state every backend shares
 * @ops:	the backend
 * @info:	what was negotiated (reported by voff_port_info())
 * @stats:	packet and byte counters
 * @drops:	drop counters per direction, indexed by port_drop_slot()
 * @fd:		descriptor to poll, -1 when none
 * @netns:	namespace the device or socket lives in ("" = the caller's)
 * @created:	TAP/TUN: voff created the device (it vanishes on close)
 * @vnet_rx:	how headers read from the port look (decode)
 * @vnet_tx:	how headers written to the port look (encode)
 * @kdrops:	TAP/TUN: how the device's own drops are read (NULL: never)
 * @rx_parsed:	during a receive call of a caller that wants them
 *		(voff__port_rx_keep_parses()), room for VOFF_BATCH_MAX
 *		parses: the frame appended at batch slot i leaves its
 *		validator's parse at @rx_parsed[i]; else NULL
 * @rx_parsed_ok: bit i set when @rx_parsed[i] holds the parse of the frame
 *		at slot i as it is in the batch
 * @gen:	bumped whenever @info changes after open (a vhost-user guest
 *		negotiated): the switch reads the port's egress again
 * @released:	its backend released what a re-open needs
 *		(voff__port_release()): no descriptor to wait on, receive
 *		and transmit fail with -ENODEV
 * @priv:	backend state (allocated by open, freed by close)
 */
/**
 * struct voff__kdrops - a TAP/TUN device's tx_dropped, counted from open
 * @nl:		rtnetlink socket made in the device's namespace at open, so
 *		reading needs no setns() (nor the capability) later
 * @base:	the device's tx_dropped when the port opened
 * @last:	the count last read, answered again when a read fails: a
 *		counter never goes back
 */
struct voff__kdrops {
	struct mnl_socket *nl;
	uint64_t base;
	uint64_t last;
};

struct voff_port {
	const struct voff_port_ops *ops;
	struct voff_port_info info;
	struct voff_port_stats stats;
	uint64_t drops[2][PORT_DROP_SLOTS];
	int fd;
	char netns[64];
	bool created;
	struct voff_vnet_cfg vnet_rx;
	struct voff_vnet_cfg vnet_tx;
	struct voff__kdrops *kdrops;
	struct voff_parsed *rx_parsed;
	uint64_t rx_parsed_ok;
	uint32_t gen;
	bool released;
	void *priv;
};

extern const struct voff_port_ops voff__port_mem_ops;
extern const struct voff_port_ops voff__port_pcap_ops;
extern const struct voff_port_ops voff__port_tap_ops;
extern const struct voff_port_ops voff__port_tun_ops;
extern const struct voff_port_ops voff__port_packet_ops;
extern const struct voff_port_ops voff__port_vhost_ops;
extern const struct voff_port_ops voff__port_vxlan_ops;

/**
 * voff__vxlan_verify() - verify a decapsulated frame's L4 checksum
 * @f:		the inner Ethernet frame
 * @len:	its length
 *
 * When the frame is IPv4 (not a fragment) or IPv6 (no extension header)
 * carrying TCP, or UDP with a nonzero checksum, whose lengths fit the
 * frame, the L4 checksum is summed (the pseudo header included), in one
 * read-only pass over the segment.
 * Return: true when that checksum was summed and is correct; false when it
 * is wrong or was not checked (the frame then needs checking later).
 */
bool voff__vxlan_verify(const uint8_t *f, uint32_t len);

/**
 * voff__port_egress_features() - what a send of VOFF_TUN_F_* offloads @off
 * may carry, as feat.h features (SG and HIGHDMA alone for 0)
 */
uint64_t voff__port_egress_features(unsigned int off);

/**
 * voff__port_release() - let a failed port's configuration be opened again
 * @port:	a port that failed (its receive returned an error that is not
 *		EAGAIN, ENOBUFS or EINTR), or that its user gives up on
 *
 * Has the backend give up what a new port opened from the same
 * configuration would need and @port still holds (struct
 * voff_port_ops.release): a VXLAN port's sockets bound to its local
 * address and ports, a vhost-user port's listening socket and its path.
 * The port keeps its name, info, counters and tables, readable as before,
 * until voff_port_close(); from then on voff_port_fd() is -1 and receive
 * and transmit fail with -ENODEV (frames given to transmit are counted as
 * dropped for that reason).  A second call, or one for a backend that
 * holds nothing a re-open needs, does nothing.
 *
 * Return: 0, or the backend's -errno: what it could not give up is still
 * held (the next call tries again), and receive and transmit still call
 * the backend.
 */
int voff__port_release(struct voff_port *port);

/** voff__port_count_drop() - count one dropped frame in @dir for @err */
void voff__port_count_drop(struct voff_port *port, enum voff_port_dir dir,
			   int err);

/**
 * voff__port_rx_accept() - validate one received frame and append it
 * @port:	the port
 * @pkt:	the frame as read (virtio_net_hdr in front when the port has
 *		one)
 * @b:		the caller's batch
 * @tpid:	0, or the TPID of a VLAN tag the kernel took off the frame
 *		(AF_PACKET auxdata), put back after the Ethernet addresses
 * @tci:	that tag's TCI
 *
 * Decodes and strips the header (a refused frame is counted and freed),
 * puts a stripped VLAN tag back, counts the frame and appends it to @b.
 *
 * Return: 0 when appended, the negative reason when dropped.
 * Ownership: consumes @pkt.
 */
int voff__port_rx_accept(struct voff_port *port, struct voff_pkt *pkt,
			 struct voff_batch *b, uint16_t tpid, uint16_t tci);

/*
 * ---- transmit in two steps, for a caller that parsed its frames --------
 *
 * voff_port_tx() checks and encodes a whole batch, then sends it.  The
 * switch does the first step per frame, as it decides, while its parse of
 * the frame is at hand, and the second when it flushes: the frame is then
 * parsed once on its way out (port.c, vnet.h).
 */

/**
 * voff__port_rx_ready() - whether frames wait that a receive call would
 * take without waiting, as far as the port can tell from memory
 * @port:	an open port
 *
 * No system call: true only where the backend sees them (a TAP's multishot
 * read completed them already, or its reads are queued to run at the next
 * kernel entry); false says nothing (the descriptor may still be ready).
 * Return: true when a receive call now would find frames.
 */
bool voff__port_rx_ready(const struct voff_port *port);

/**
 * voff__port_tx_add() - check one frame, push its header, queue it
 * @port:	the port
 * @b:		the caller's queue of checked frames for @port (sent first
 *		with voff__port_tx_send() when full)
 * @pkt:	the frame
 * @p:		a successful parse of @pkt's data from where the port's
 *		frames start (voff_vnet_encode_parsed()), or NULL
 *
 * Return: 0 when queued; the reason when refused (counted as a transmit
 * drop, as voff_port_tx() counts it, and @pkt freed).
 * Ownership: consumes @pkt.
 */
int voff__port_tx_add(struct voff_port *port, struct voff_batch *b,
		      struct voff_pkt *pkt, const struct voff_parsed *p);

/**
 * voff__port_tx_send() - send frames queued by voff__port_tx_add()
 * @port:	the port
 * @b:		the queue; emptied on return
 *
 * Return: as voff_port_tx().
 * Ownership: consumes every packet of @b.
 */
int voff__port_tx_send(struct voff_port *port, struct voff_batch *b);

/* ---- virtio_net_hdr: the port layer's only two call sites --------------
 *
 * Both go through the shared codec and validator of vnet.h, configured per
 * port by voff__port_vnet_init().
 */

/**
 * voff__port_vnet_init() - set the codec configuration from port->info,
 * and info.features (the device's ethtool features, or the model's)
 */
void voff__port_vnet_init(struct voff_port *port);

/**
 * voff__port_rx_offsets() - whether receive sets the header offsets of a
 * frame whose header claims no offload (@plain true, as at open), or
 * leaves them VOFF_OFF_NONE and does not parse it (for the switch, which
 * reads no offsets of such frames: struct voff_vnet_cfg.plain_unparsed)
 */
void voff__port_rx_offsets(struct voff_port *port, bool plain);

/**
 * voff__port_rx_keep_parses() - keep the validator's parses of the frames
 * the next receive calls append (@room: VOFF_BATCH_MAX parses, indexed by
 * batch slot; port->rx_parsed_ok tells which are there), or stop (NULL)
 */
void voff__port_rx_keep_parses(struct voff_port *port,
			       struct voff_parsed *room);

/**
 * voff__port_vnet_pull() - decode and strip the header in front of @pkt
 * Return: 0, or the negative reason the frame is refused (@pkt unchanged).
 */
int voff__port_vnet_pull(const struct voff_port *port, struct voff_pkt *pkt);

/**
 * voff__port_vnet_push() - prepend the header for @pkt's metadata
 * @p:		a parse of @pkt's data (voff_vnet_encode_parsed()), or NULL
 * Return: 0, or the negative reason no valid header exists for it (@pkt
 * unchanged).
 */
int voff__port_vnet_push(const struct voff_port *port, struct voff_pkt *pkt,
			 const struct voff_parsed *p);

/* ---- offloads: VOFF_TUN_F_* sets ---------------------------------------- */

/**
 * voff__port_off_probe() - the largest subset of @want that @try accepts
 * @want:	VOFF_TUN_F_* bits wanted
 * @try:	returns 0 when a set is accepted, -EINVAL when it is refused,
 *		another negative errno to give up
 * @ctx:	passed to @try
 * @got:	receives the accepted subset (0 on failure)
 *
 * Tries @want, then its subsets from the largest down (one feature fewer
 * at a time), keeping at equal size the lower, more basic bits (CSUM and
 * TSO4 before USO6).  Nine bits make at most 512 tries.
 *
 * Return: 0, or the first error other than -EINVAL from @try.
 */
int voff__port_off_probe(unsigned int want,
			 int (*try)(unsigned int off, void *ctx), void *ctx,
			 unsigned int *got);

/**
 * voff__port_off_fix() - apply the kernel's pairing rules to a wanted set
 *
 * As the kernel's TUNSETOFFLOAD, modelled by voff_feat_from_tun() (feat.h):
 * nothing without CSUM; TSO_ECN needs TSO4 or TSO6; USO4 and USO6 only
 * come together; a UDP tunnel needs an inner type, its CSUM the tunnel.
 *
 * Return: the largest subset of @off that obeys them.
 */
unsigned int voff__port_off_fix(unsigned int off);

/**
 * voff__port_off_needed() - offloads a packet needs to cross a port
 * Return: VOFF_TUN_F_* bits; for USO over an unknown IP version both
 * USO bits.
 */
unsigned int voff__port_off_needed(const struct voff_pkt *pkt, bool l3);

/**
 * voff__vxlan_flow_hash() - the hash of a frame's flow that picks its
 * VXLAN source port (vxlan_hash.c)
 * @pkt:	an Ethernet frame; its l2_off and l3_off are used when a
 *		parse set them, and nothing else of it is changed
 * @key:	the port's secret (voff__vxlan_hash_key())
 *
 * IPv4 and IPv6: the addresses and the protocol, and the ports of TCP and
 * UDP (not of a fragment, nor behind IPv6 extension headers); any other
 * frame: its MAC addresses and EtherType.  The same header bytes give the
 * same hash whether or not the frame was parsed, so every frame of a flow
 * (each segment of a super-packet, the plain frames) hashes alike under
 * one @key; another key maps the flows anew (SipHash-1-3 of the fields).
 * Return: the hash.
 */
uint32_t voff__vxlan_flow_hash(const struct voff_pkt *pkt,
			       const uint64_t key[2]);

/**
 * voff__vxlan_hash_key() - draw a random key for voff__vxlan_flow_hash()
 * @key:	receives 128 bits from getrandom(), or from the clocks when
 *		the kernel has no entropy to give yet
 */
void voff__vxlan_hash_key(uint64_t key[2]);

/**
 * voff__siphash13() - SipHash-1-3 of @n bytes at @p under @key
 * (@key[0] the key's first 8 bytes read little-endian, @key[1] the next)
 * Return: the 64-bit hash.
 */
uint64_t voff__siphash13(const uint64_t key[2], const uint8_t *p, size_t n);

/**
 * voff__port_vxlan_hash_key() - set a VXLAN port's flow hash key
 * @port:	a VXLAN port, before it sends (a flow keeps its source port
 *		only while the key stays)
 * @key:	the key; tests fix one, ports draw theirs at open
 * Return: 0, or -EINVAL when @port is not a VXLAN port.
 */
int voff__port_vxlan_hash_key(struct voff_port *port, const uint64_t key[2]);

/**
 * voff__vxlan_srcport_pick() - which of @n source ports @hash maps to
 * Return: 0 .. @n - 1 (0 when @n is 0).
 */
unsigned int voff__vxlan_srcport_pick(uint32_t hash, unsigned int n);

#endif /* VOFF_PORT_INT_H */
