/* SPDX-License-Identifier: MIT */
/*
 * switch.h - a userspace L2 switch between ports, with offloads end to end
 *
 * DOC: Theory of Operation
 *
 * A struct voff_switch owns a set of ports (port.h), one packet pool and,
 * per port that asks for it, a GRO engine (gro.h).  One step of the
 * forwarding loop (voff_switch_poll()) does, for every ingress port:
 *
 *   rx batch -> GRO (when on for that ingress) -> learn the source MAC,
 *   look up the destination -> for each egress: voff_xmit_decide() with the
 *   egress's features and limits -> pass whole / resegment to the limits
 *   (voff_gso_resegment()) / segment to the MTU (voff_gso_segment()) /
 *   complete the checksum -> append to the egress's tx batch
 *
 * and at the end of the step sends every tx batch.  Unknown unicast,
 * broadcast and multicast destinations are flooded: every egress but the
 * last gets a copy from the pool, the last the packet itself.  Frames are
 * never modified on the way, VLAN tags included (the table learns by MAC
 * only: one flat L2 domain).  A flow is never reordered: packets of one
 * ingress are handled in receive order and appended in that order to each
 * egress batch; GRO itself keeps flows in order (gro.h).
 *
 * TUN ports are point-to-point L3 ports: their packets start at the IP
 * header and carry no MAC.  They form a domain of their own: a packet from
 * a TUN port goes to every other TUN port (with two, a wire), never to an
 * Ethernet port, and Ethernet frames never go to a TUN port.
 *
 * Features: every port has a struct voff_feat_dev.  Its toggleable set is
 * the "always on" software set of a macvlan (VOFF_F_MACVLAN_ALWAYS_ON:
 * SG, HW_CSUM, software GSO, GSO_ROBUST, tunnel GSO) plus GSO and GRO; by
 * default all are wanted but GRO.  What is active is what is wanted *and*
 * what the port grants (voff_port_egress()), after the kernel's dependency
 * rules: a wanted feature the port cannot take shows as "off [requested
 * on]".  Turning TSO off on a port makes it an MTU-only egress.
 *
 * Limits: each port has its own limits (gso_max_size, gso_max_segs,
 * gro_max_size; with gro_flush_timeout, gro, napi, rx_budget, rx_backoff
 * and port_retry, the port's settings: voff_switch_set()) which the switch
 * holds the port to as an egress, over what voff_port_egress() reports.  With limit propagation
 * on (the default), the gso_max_size and gso_max_segs set on each TAP or
 * TUN device are the minimum of what the *other* ports take, recomputed
 * whenever a port is added or removed or a limit changes: senders behind
 * a TAP then never build a super-packet that must be resegmented.
 *
 * Parsing: a frame is parsed where a decision needs it (docs/switch.md):
 * the switch's ports do not parse, on receive, a frame whose header claims
 * no offload (struct voff_vnet_cfg.plain_unparsed), since nothing in the
 * switch reads its header offsets.
 *
 * Floods: every port is read at most rx_budget frames a step, and a port
 * whose read was mostly frames its receive validation refused (at least
 * 16, more than three for each one accepted) is held unread for 100 us,
 * twice as long after each such read, up to its rx_backoff (8 ms by
 * default), and let go by the first read that is not: the kernel then
 * drops most of a malformed flood at the port's own queue, at little cost,
 * and counts it (struct voff_port_stats.rx_kernel_dropped) instead of the
 * switch reading and refusing every frame while the other ports wait.
 *
 * Memory: everything is allocated when the switch, a port or a GRO engine
 * is created; the data path never calls malloc.  Context: one thread; the
 * control functions below must be called between two steps, from the
 * thread that runs the loop.
 */
#ifndef VOFF_SWITCH_H
#define VOFF_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/port.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_switch;

/* Most ports one switch holds. */
#define VOFF_SWITCH_MAX_PORTS 64
/*
 * Default rx_backoff: a port whose reads are mostly malformed frames is
 * read at most every 8 ms while they go on.
 */
#define VOFF_SWITCH_RX_BACKOFF_NS (8ull * 1000000ull)
/*
 * Default port_retry: a failed port of a configuration is tried again at
 * waits doubling from 1 s up to a minute (voff_switch_conf_retry()).
 */
#define VOFF_SWITCH_PORT_RETRY_S 60
/* Default MAC aging time (the bridge's ageing_time: 300 s). */
#define VOFF_SWITCH_AGE_NS (300ull * 1000000000ull)

/**
 * struct voff_switch_config - switch parameters (zero fields take defaults)
 * @pool_size:	packets in the switch's pool, each with super-packet room
 *		(0 = 1024)
 * @fdb_size:	MAC table entries (0 = 4096; rounded up to a power of two)
 * @age_ns:	how long an entry lives without being seen (0 =
 *		VOFF_SWITCH_AGE_NS)
 * @no_propagate: do not set the TAP/TUN devices' gso limits from the
 *		other ports (the "without propagation" case)
 * @busy_poll_ns: 0 (the default): the loop sleeps as soon as no port has
 *		a frame ready; else it keeps polling the ports, without
 *		sleeping, until this long after the last frame it received
 *		(voff_switch_poll()), so that a frame arriving soon after
 *		another is seen without a wake-up.  The window counts from
 *		the last frame: to catch requests that come every G, it
 *		must exceed G, and then the switch keeps a CPU busy the
 *		whole time such traffic lasts.  At most
 *		VOFF_SWITCH_BUSY_POLL_MAX.
 */
struct voff_switch_config {
	unsigned int pool_size;
	unsigned int fdb_size;
	uint64_t age_ns;
	bool no_propagate;
	uint64_t busy_poll_ns;
};

/* The longest busy-poll window: 10 ms. */
#define VOFF_SWITCH_BUSY_POLL_MAX (10ull * 1000000ull)

/*
 * VOFF_SWITCH_DROP_MAP(X) - X(ENUM, "counter_name"): why the switch itself
 * dropped a packet (the ports count their own drops, port.h)
 */
#define VOFF_SWITCH_DROP_MAP(X)                                              \
	X(RUNT, "runt")			/* shorter than an Ethernet header */ \
	X(NO_BUFFER, "no_buffer")	/* the pool ran dry (copy, GSO) */    \
	X(XMIT, "xmit")			/* voff_xmit_decide() said DROP */    \
	X(GSO, "gso")			/* segmentation failed */             \
	X(CSUM, "csum")			/* checksum completion failed */      \
	X(NO_EGRESS, "no_egress")	/* nowhere to send it */

enum voff_switch_drop {
#define VOFF__X(e, n) VOFF_SWITCH_DROP_##e,
	VOFF_SWITCH_DROP_MAP(VOFF__X)
#undef VOFF__X
	VOFF_SWITCH_DROP__COUNT
};

/**
 * voff_switch_drop_name() - counter name of a drop reason ("no_egress")
 * Return: a static string, never NULL; "?" for a bad @d.
 */
const char *voff_switch_drop_name(enum voff_switch_drop d);

/**
 * struct voff_switch_stats - one switch port's counters
 * @port:	the port's own counters (packets/bytes/super-packets each way,
 *		drops inside the port)
 * @gso_in:	super-packets that had to be cut at this egress
 * @gso_segs:	frames GSO produced for this egress (MTU segments)
 * @reseg_in:	super-packets resegmented to this egress's limits
 * @reseg_out:	smaller super-packets that produced
 * @csum_sw:	checksums completed in software for this egress
 * @gro_merged:	frames merged by this ingress's GRO engine (since it was
 *		last turned on)
 * @gro_out:	super-packets it delivered
 * @flooded:	frames from this ingress flooded to every other port
 * @rx_held:	times this ingress was held unread because a read of it was
 *		mostly malformed frames (its rx_backoff)
 * @retries:	attempts to re-open the port after it failed
 *		(voff_switch_conf_retry()), the one that re-opened it
 *		included: a re-opened port keeps the count
 * @drops:	drops by enum voff_switch_drop, counted at the port that
 *		would have sent the packet (RUNT at the ingress)
 */
struct voff_switch_stats {
	struct voff_port_stats port;
	uint64_t gso_in;
	uint64_t gso_segs;
	uint64_t reseg_in;
	uint64_t reseg_out;
	uint64_t csum_sw;
	uint64_t gro_merged;
	uint64_t gro_out;
	uint64_t flooded;
	uint64_t rx_held;
	uint64_t retries;
	uint64_t drops[VOFF_SWITCH_DROP__COUNT];
};

/**
 * struct voff_switch_port_info - one port as the switch sees it
 * @id:		the switch's port number (stable while the port exists)
 * @name:	the name given at voff_switch_add()
 * @info:	what the port negotiated (voff_port_info())
 * @feat:	the port's feature state as `voff ctl features` prints it
 * @limits:	the limits the switch holds the port to as an egress
 * @dev_limits:	what the port's device reports (voff_port_info().limits)
 * @gro:	GRO runs on this ingress
 * @gro_flush_timeout_ns: its gro_flush_timeout (0: flush every step)
 * @rx_budget:	the most frames one step reads from the port
 * @rx_backoff_ns: the longest the port is held unread while its reads are
 *		mostly malformed (0: never)
 * @failed:	receiving failed (the device went away): the port is no
 *		longer polled; remove it with voff_switch_del(), or re-open
 *		it (voff_switch_conf_apply(), voff_switch_conf_retry())
 * @port_retry:	its port_retry setting: the longest wait, in seconds,
 *		between two attempts of voff_switch_conf_retry() to re-open
 *		it once it failed (0: never)
 * @retry_ns:	while failed: the wait before the next attempt (0: none
 *		scheduled yet, or port_retry is 0)
 * @down:	the port's device refused the frames last sent to it because
 *		it is down (voff_switch_tick() says so with
 *		VOFF_SWITCH_EV_PORT_DOWN), until it sends or receives again
 * @spec:	what the port was opened with, as voff_port_spec_format()
 *		prints it without run-time settings
 *		("tap:vt0@ns0,napi=on"); "" for a port added with
 *		voff_switch_add()
 */
struct voff_switch_port_info {
	unsigned int id;
	char name[64];
	struct voff_port_info info;
	struct voff_feat_dev feat;
	struct voff_limits limits;
	struct voff_limits dev_limits;
	bool gro;
	uint64_t gro_flush_timeout_ns;
	unsigned int rx_budget;
	uint64_t rx_backoff_ns;
	bool failed;
	bool down;
	unsigned int port_retry;
	uint64_t retry_ns;
	char spec[256];
};

/**
 * struct voff_switch_fdb_entry - one learned MAC address
 * @mac:	the address
 * @port:	the port id it was last seen on
 * @vlan:	the VID of the outer 802.1Q/802.1ad tag of the frame it was
 *		last learned from, -1 for an untagged frame (the table learns
 *		by MAC only: the same address seen in two VLANs is one entry,
 *		with the VLAN seen last)
 * @age_ns:	time since it was last seen (since it was set, when static)
 * @is_static:	set by voff_switch_fdb_add(): never ages, never moved by
 *		learning
 * @remote:	for a VXLAN port, the remote VTEP the address is behind
 *		(the port's own table, vxlan.h); AF_UNSPEC otherwise, or
 *		when the port has not learned it (it floods to its remotes)
 */
struct voff_switch_fdb_entry {
	uint8_t mac[6];
	unsigned int port;
	int vlan;
	uint64_t age_ns;
	bool is_static;
	union voff_udp_addr remote;
};

/**
 * voff_switch_new() - create a switch without ports
 * @out:	receives the switch; untouched on failure
 * @cfg:	parameters, or NULL for the defaults
 *
 * Return: 0, -EINVAL for a bad parameter, -ENOMEM, or an errno from
 * epoll_create1().
 */
int voff_switch_new(struct voff_switch **out,
		    const struct voff_switch_config *cfg);

/**
 * voff_switch_free() - close every port and free the switch; NULL is a no-op
 */
void voff_switch_free(struct voff_switch *sw);

/**
 * voff_switch_add() - add a port
 * @sw:		the switch
 * @port:	an open port
 * @name:	a unique name for the control interface (NULL: the port's)
 * @id:		optional: receives the new port's id
 *
 * Limits of the TAP/TUN ports are propagated again.
 *
 * Return: 0; -EEXIST for a name in use; -ENOSPC when the switch is full;
 * -EINVAL; -ENOMEM.
 * Ownership: on success the switch owns @port (voff_switch_del() or
 * voff_switch_free() close it); on failure it stays the caller's.
 */
int voff_switch_add(struct voff_switch *sw, struct voff_port *port,
		    const char *name, unsigned int *id);

/**
 * voff_switch_del() - remove a port and close it
 *
 * Its MAC table entries go and the other ports' limits are propagated
 * again.
 *
 * Return: 0 or -ENOENT.
 */
int voff_switch_del(struct voff_switch *sw, unsigned int id);

/** voff_switch_find() - port id by name; Return: the id or -ENOENT */
int voff_switch_find(const struct voff_switch *sw, const char *name);

/**
 * voff_switch_ports() - ids of the ports, in increasing order
 * @out:	receives up to @cap ids
 * Return: the number of ports (may exceed @cap).
 */
unsigned int voff_switch_ports(const struct voff_switch *sw,
			       unsigned int *out, unsigned int cap);

/** voff_switch_port() - the port object of @id, or NULL (borrowed) */
struct voff_port *voff_switch_port(const struct voff_switch *sw,
				   unsigned int id);

/** voff_switch_port_info() - fill @out; Return: 0 or -ENOENT */
int voff_switch_port_info(const struct voff_switch *sw, unsigned int id,
			  struct voff_switch_port_info *out);

/** voff_switch_stats() - fill @out; Return: 0 or -ENOENT */
int voff_switch_stats(const struct voff_switch *sw, unsigned int id,
		      struct voff_switch_stats *out);

/**
 * voff_switch_set_features() - request features on or off, as `ethtool -K`
 * @sw:		the switch
 * @id:		the port
 * @mask:	features named (voff_feat_parse_requests())
 * @on:		those requested on
 *
 * Toggling GRO creates or frees the port's GRO engine (its held packets
 * are flushed and forwarded first).  Features outside the toggleable set
 * are ignored, as the kernel ignores them.
 *
 * Return: 0, -ENOENT, -ENOMEM (GRO engine); the features are unchanged on
 * failure.
 */
int voff_switch_set_features(struct voff_switch *sw, unsigned int id,
			     uint64_t mask, uint64_t on);

/* ---- per-port settings (switch_settings.c) ------------------------------ */

/** enum voff_switch_setting_type - what a setting's value is */
enum voff_switch_setting_type {
	VOFF_SWITCH_SETTING_NUMBER = 0,	/* an unsigned integer */
	VOFF_SWITCH_SETTING_BOOL,	/* 1 ("on") or 0 ("off") */
};

/* The setting can change on a running port (voff_switch_set()). */
#define VOFF_SWITCH_SETTING_F_RUNTIME (1u << 0)

/* Room for every setting in struct voff_port_spec. */
#define VOFF_SWITCH_SETTINGS_MAX 32

/**
 * struct voff_switch_setting - one per-port setting of the switch
 * @name:	its name: the NAME of a spec's ,NAME=VALUE and of
 *		`voff ctl limits PORT NAME VALUE`, and its JSON key
 * @type:	enum voff_switch_setting_type
 * @min:	smallest value (0 for a bool)
 * @max:	largest value (1 for a bool)
 * @def:	the value of a port that was not told otherwise
 * @unit:	unit of a number ("bytes", "ns", ...), "" for a bool
 * @help:	one line saying what it does
 * @flags:	VOFF_SWITCH_SETTING_F_*; without F_RUNTIME the setting is
 *		taken only when the port is opened (a spec option)
 * @kinds:	the port kinds it applies to, one bit (1u << kind) per
 *		enum voff_port_kind
 *
 * Every setting is declared once, in one table of the library; the port
 * spec options, the control language and the help texts are derived
 * from it.
 */
struct voff_switch_setting {
	const char *name;
	enum voff_switch_setting_type type;
	uint64_t min;
	uint64_t max;
	uint64_t def;
	const char *unit;
	const char *help;
	unsigned int flags;
	unsigned int kinds;
};

/**
 * voff_switch_setting_at() - the settings, in table order
 * @i:		0, 1, 2, ...
 *
 * The order is stable within one library version and is the order of
 * every listing (`voff ctl limits PORT`, help texts).
 *
 * Return: the @i-th setting (static), or NULL past the last one.
 */
const struct voff_switch_setting *voff_switch_setting_at(unsigned int i);

/**
 * voff_switch_setting_find() - a setting by name
 * Return: the setting (static), or NULL for an unknown name.
 */
const struct voff_switch_setting *voff_switch_setting_find(const char *name);

/**
 * voff_switch_setting_parse() - read a value of setting @s from text
 * @s:		the setting
 * @text:	a number (decimal, 0x hex or 0 octal, no sign) or, for a
 *		bool, "on" or "off"
 * @value:	receives the value; untouched on failure
 * @err:	optional: receives a one-line reason on failure, starting
 *		with the setting's name ("gro_max_size: 70000 is out of range
 *		(0..65536 bytes)", "gro: expected on or off"); always
 *		NUL-terminated when @errlen > 0
 * @errlen:	bytes of @err (0 with a NULL @err)
 *
 * Pure text work: no switch is needed.
 *
 * Return: 0, -EINVAL for text that is not a value of the setting's type,
 * -ERANGE for a number outside @s->min .. @s->max.
 */
int voff_switch_setting_parse(const struct voff_switch_setting *s,
			      const char *text, uint64_t *value, char *err,
			      size_t errlen);

/**
 * voff_switch_setting_format() - a value as voff_switch_setting_parse()
 * reads it back ("on", "off" or the decimal number)
 * Return: the length the full text needs (as snprintf).
 */
int voff_switch_setting_format(const struct voff_switch_setting *s,
			       uint64_t value, char *buf, size_t len);

/**
 * voff_switch_setting_range() - the values @s takes, for help texts:
 * "MIN..MAX UNIT" ("193..65536 bytes") or "on|off"
 * Return: the length the full text needs (as snprintf).
 */
int voff_switch_setting_range(const struct voff_switch_setting *s, char *buf,
			      size_t len);

/**
 * voff_switch_settings_print() - the table as help texts show it
 * @f:		where to print
 *
 * Two lines per setting, in table order:
 *   "  NAME=RANGE, default VALUE[; KIND and KIND only][, when the port
 *   is opened]" and "      HELP".
 */
void voff_switch_settings_print(FILE *f);

/**
 * voff_switch_set() - change one setting of a running port
 * @sw:		the switch
 * @id:		the port
 * @name:	the setting (voff_switch_setting_find())
 * @value:	its new value (a bool: 0 or 1)
 *
 * The change applies at once, as the setting's help says: gso limits
 * bound what the switch sends the port and are propagated to the other
 * TAP/TUN ports; gro_max_size bounds the merges to come of the port's GRO
 * engine (voff_gro_set_max_size(): nothing held is flushed); gro turns
 * the port's GRO engine on or off as the gro feature does
 * (voff_switch_set_features()).
 *
 * Return: 0; -ENOENT for no port @id; -EINVAL for an unknown @name;
 * -ERANGE for a value outside the setting's range; -EOPNOTSUPP for a
 * setting taken only when a port is opened (no
 * VOFF_SWITCH_SETTING_F_RUNTIME) or not of the port's kind; -ENOMEM
 * (a GRO engine).  The setting is unchanged on failure.
 */
int voff_switch_set(struct voff_switch *sw, unsigned int id, const char *name,
		    uint64_t value);

/**
 * voff_switch_get() - the current value of one setting of a port
 * @value:	receives it (a bool: 0 or 1); untouched on failure
 *
 * Settings taken at open are read back from the port (a napi of a port
 * that has none is 0).
 *
 * Return: 0, -ENOENT for no port @id, -EINVAL for an unknown @name.
 */
int voff_switch_get(const struct voff_switch *sw, unsigned int id,
		    const char *name, uint64_t *value);

/**
 * voff_switch_fdb() - the learned addresses, aged ones left out
 * @out:	receives up to @cap entries (NULL with @cap 0)
 * Return: the number of live entries (may exceed @cap).
 */
unsigned int voff_switch_fdb(const struct voff_switch *sw,
			     struct voff_switch_fdb_entry *out,
			     unsigned int cap);

/**
 * voff_switch_fdb_add() - a static entry: @mac is behind port @id
 * @mac:	6 bytes, unicast
 * @id:		the port
 * @remote:	for a VXLAN port, the VTEP @mac is behind, set as a static
 *		entry of the port's own table (voff_port_vxlan_fdb_add());
 *		NULL leaves the port's table alone.  Must be NULL for the
 *		other kinds
 *
 * The entry replaces a learned one, never ages and is never moved by
 * learning; removing the port removes it.
 *
 * Return: 0; -ENOENT for no port @id; -EINVAL (multicast MAC, a remote
 * for a port that is not VXLAN or of another family, an L3 port);
 * -ENOSPC (the MAC's bucket holds only static entries).  Nothing is
 * changed on failure.
 */
int voff_switch_fdb_add(struct voff_switch *sw, const uint8_t *mac,
			unsigned int id, const union voff_udp_addr *remote);

/**
 * voff_switch_fdb_del() - forget @mac, static or learned
 *
 * Also forgets it in the table of the VXLAN port it was behind.
 *
 * Return: 0, or -ENOENT when the switch had no live entry for it.
 */
int voff_switch_fdb_del(struct voff_switch *sw, const uint8_t *mac);

/**
 * voff_switch_fd() - a descriptor readable when a port has frames ready
 *
 * For callers that wait on more than the switch (a control socket): poll
 * it, with voff_switch_timeout_ns() (ppoll(), epoll_pwait2()) or
 * voff_switch_timeout_ms() as the timeout, then call
 * voff_switch_poll(@sw, 0).
 */
int voff_switch_fd(const struct voff_switch *sw);

/**
 * voff_switch_timeout_ns() - how long the loop may sleep, in nanoseconds
 * Return: 0 when a port without descriptor (memory, pcap) delivered in the
 * last step, a GRO flush is due or the switch is busy-polling; the time
 * to the next GRO flush deadline (at most one second); else -1 (forever).
 */
int64_t voff_switch_timeout_ns(const struct voff_switch *sw);

/**
 * voff_switch_timeout_ms() - voff_switch_timeout_ns() rounded up to whole
 * milliseconds (for poll() and epoll_wait(); a sleep never ends before the
 * deadline, but may end up to a millisecond after it)
 * Return: 0, a time in milliseconds (at most 1000), or -1 (forever).
 */
int voff_switch_timeout_ms(const struct voff_switch *sw);

/**
 * voff_switch_poll() - wait up to @timeout_ms for frames, then forward
 * @timeout_ms:	as epoll_wait() (0: do not wait; -1: until a port is
 *		ready); shortened to voff_switch_timeout_ns(), kept to the
 *		nanosecond (epoll_pwait2())
 *
 * Runs one step over every port: receive one batch each, forward it, flush
 * the GRO flows that are due, send every tx batch.  When that step
 * received and a port can tell without a system call that more frames
 * wait (a TAP's multishot read took them already: the answer to a frame
 * just written, which a namespace's stack makes inside that write), it
 * runs one step more.
 *
 * With busy-polling on (struct voff_switch_config.busy_poll_ns) and a
 * frame received less than busy_poll_ns ago, it does not sleep: it runs
 * steps until one receives a frame or the window since the last frame
 * closes, and returns (so a caller that also waits on other descriptors
 * is held up at most busy_poll_ns).  The window is adaptive: a window
 * that closes without a frame halves the next one (down to a sixteenth),
 * and a frame that comes less than busy_poll_ns after the one before,
 * caught while spinning or not, opens it whole again, so traffic that
 * comes too seldom to be caught costs little spinning while traffic
 * within the window is caught again after a late frame.  A spinning step
 * enters the kernel only for a port that has something (a TAP's
 * multishot read and a packet port's receive ring are looked at in
 * memory; other ports are read).
 *
 * Return: frames received in its steps (>= 0), or a negative errno from
 * epoll_pwait2() (-EINTR when a signal came).
 */
int voff_switch_poll(struct voff_switch *sw, int timeout_ms);

/* ---- events -------------------------------------------------------------- */

/*
 * VOFF_SWITCH_EVENT_MAP(X) - X(ENUM, "name"): what the switch reports
 * through its event callback (voff_switch_set_event_cb())
 */
#define VOFF_SWITCH_EVENT_MAP(X)                                             \
	X(PORT_ADDED, "port_added")	/* voff_switch_add() and above */     \
	X(PORT_REMOVED, "port_removed")	/* voff_switch_del() and above */     \
	X(PORT_DOWN, "port_down")	/* voff_switch_tick(): device down */ \
	X(PORT_UP, "port_up")		/* voff_switch_tick(): back up */     \
	X(PORT_FAILED, "port_failed")	/* receiving failed: not polled */    \
	X(PORT_RECOVERED, "port_recovered") /* a failed port re-opened */    \
	X(PORT_RETRY, "port_retry")	/* ... and an attempt to that failed */ \
	X(SETTING, "setting")		/* voff_switch_set() changed a value */ \
	X(FEATURES, "features")		/* the wanted features changed */     \
	X(PROPAGATED, "propagated")	/* a TAP/TUN got new gso limits */    \
	X(PROPAGATE_FAILED, "propagate_failed") /* ... and refused them */

enum voff_switch_event_type {
#define VOFF__X(e, n) VOFF_SWITCH_EV_##e,
	VOFF_SWITCH_EVENT_MAP(VOFF__X)
#undef VOFF__X
	VOFF_SWITCH_EV__COUNT
};

/**
 * voff_switch_event_name() - the name of an event type ("port_added")
 * Return: a static string, never NULL; "?" for a bad @t.
 */
const char *voff_switch_event_name(enum voff_switch_event_type t);

/**
 * struct voff_switch_event - one thing that happened to the switch
 * @type:	what happened
 * @port:	the port's id
 * @name:	the port's name
 * @spec:	PORT_ADDED, PORT_REMOVED, PORT_RECOVERED: what the port was
 *		opened with (struct voff_switch_port_info.spec), "" when
 *		it was not opened from a spec
 * @err:	PORT_FAILED: the receive error; PORT_DOWN: the error the
 *		device answered (-EIO, -ENETDOWN); PROPAGATE_FAILED: why
 *		the device refused its limits; PORT_RETRY: why the port did
 *		not open again (negative errnos)
 * @setting:	SETTING: the setting (voff_switch_setting_find())
 * @old_value:	SETTING: its value before; FEATURES: the wanted features
 *		before (VOFF_F_* bits)
 * @new_value:	SETTING: its value now; FEATURES: the wanted features now;
 *		PORT_RETRY: the attempts so far (struct
 *		voff_switch_stats.retries); PORT_REMOVED, PORT_ADDED: 1
 *		when the failed port and its new self of a re-open (a
 *		PORT_RECOVERED follows), else 0
 * @old_size:	PROPAGATED: the gso_max_size the device had (the value it
 *		reported at open before the first propagation);
 *		PROPAGATE_FAILED: the one it keeps
 * @new_size:	PROPAGATED, PROPAGATE_FAILED: the one it was given
 * @old_segs:	as @old_size, for gso_max_segs
 * @new_segs:	as @new_size, for gso_max_segs
 *
 * Every pointer is valid during the callback only.
 */
struct voff_switch_event {
	enum voff_switch_event_type type;
	unsigned int port;
	const char *name;
	const char *spec;
	int err;
	const struct voff_switch_setting *setting;
	uint64_t old_value;
	uint64_t new_value;
	uint32_t old_size;
	uint32_t new_size;
	uint32_t old_segs;
	uint32_t new_segs;
};

/**
 * voff_switch_set_event_cb() - be told what happens to the switch
 * @sw:		the switch
 * @cb:		called once per event; NULL: no more calls
 * @ctx:	handed to @cb
 *
 * The library prints nothing: a program that logs, or streams events to
 * monitors (`voff switch`), does it here.  @cb is called synchronously,
 * in the thread and inside the call that caused the event:
 * voff_switch_add(), voff_switch_del() (ports added and removed, then
 * the limits propagated to the TAP/TUN devices), voff_switch_set(),
 * voff_switch_set_features() and everything built on them (specs, control
 * requests, configurations), voff_switch_poll() (a port whose receive
 * failed: PORT_FAILED), voff_switch_tick() (PORT_DOWN, PORT_UP) and
 * voff_switch_conf_retry() (PORT_RETRY, and those of a re-open).
 * voff_switch_free() reports nothing.  Nothing is allocated to report an
 * event.
 *
 * Context: @cb must not change the switch (add, remove, set); reading it
 * (voff_switch_port_info(), voff_switch_stats()) is fine.
 */
void voff_switch_set_event_cb(struct voff_switch *sw,
			      void (*cb)(void *ctx,
					 const struct voff_switch_event *ev),
			      void *ctx);

/**
 * voff_switch_tick() - housekeeping, about once a second, between steps
 * @sw:		the switch
 *
 * Looks at each port's counters since the last tick: a port whose device
 * refused every frame sent to it because it is down (a TAP or TUN set
 * down answers EIO, a packet socket ENETDOWN) and that sent nothing is
 * reported down (VOFF_SWITCH_EV_PORT_DOWN, struct
 * voff_switch_port_info.down); a down port that sent or received a
 * frame since is reported up again.  A port nobody sends to is never
 * reported down: the switch learns a device's state from what it
 * answers, without privileges or system calls.  Does not re-open failed
 * ports (voff_switch_conf_retry() does).
 *
 * Context: as the control functions; allocates nothing.
 */
void voff_switch_tick(struct voff_switch *sw);

/* ---- port specs (port_spec.c) ------------------------------------------- */

/* Longest port spec, in bytes (the terminating NUL not counted). */
#define VOFF_PORT_SPEC_MAX 255

/**
 * struct voff_port_spec_kind - one KIND of port spec
 * @name:	the KIND word ("tap")
 * @kind:	the port it opens
 * @arg:	what its NAME is, as usage texts write it ("NAME", "IFNAME",
 *		"FILE")
 * @name_max:	longest NAME in bytes (15 for an interface, as the kernel's
 *		IFNAMSIZ); 0 when only VOFF_PORT_SPEC_MAX bounds it
 * @netns:	whether it takes NAME@NETNS
 * @files:	whether its specs name files the switch opens or creates
 *		(VOFF_SWITCH_CTL_DENY_FILES refuses them)
 */
struct voff_port_spec_kind {
	const char *name;
	enum voff_port_kind kind;
	const char *arg;
	unsigned int name_max;
	bool netns;
	bool files;
};

/**
 * voff_port_spec_kind_at() - the kinds of port specs, in table order
 * (tap, tun, packet, pcap, vhost-user)
 * Return: the @i-th kind (static), or NULL past the last one.
 */
const struct voff_port_spec_kind *voff_port_spec_kind_at(unsigned int i);

/**
 * voff_port_spec_kind_usage() - how a spec of kind @k is written, for
 * usage texts: "tap:NAME[@NETNS]", "pcap:FILE[,sink=FILE]" (the settings,
 * which every kind takes unless a setting says otherwise, left out)
 * Return: the length the full text needs (as snprintf).
 */
int voff_port_spec_kind_usage(const struct voff_port_spec_kind *k,
			      char *buf, size_t len);

/**
 * struct voff_port_spec - a port spec taken apart by voff_port_spec_parse()
 * @cfg:	the port configuration: @cfg.kind, @cfg.name (interface or
 *		capture file), @cfg.netns (NULL: the caller's namespace),
 *		@cfg.sink (pcap only, NULL: none), @cfg.want and @cfg.flags
 *		(settings taken at open, such as napi, included) as
 *		voff_switch_add_spec() opens the port; the strings point
 *		into @buf, so a copy of the struct must not outlive it and a
 *		memcpy()ed struct still points into the original
 * @given:	bit i set when the spec gave setting voff_switch_setting_at(i)
 * @value:	@value[i] is that setting's value (meaningful when given)
 * @err:	after a failure: what is wrong, naming the part of the spec
 *		("gro: expected on or off", "unknown port kind 'bogus' (kinds:
 *		tap, tun, packet, pcap)"); "" after success
 * @buf:	the spec's text after KIND:, cut into NUL-terminated pieces
 * @vxlan:	a vxlan: spec's VNI, addresses and options (@cfg.vxlan points
 *		here, so a copy must point its own @cfg.vxlan at its own)
 * @label:	the port's name when its kind makes it from NAME ("vxlan42"
 *		for vxlan:42); @cfg.name then points here, not into @buf
 */
struct voff_port_spec {
	struct voff_port_cfg cfg;
	uint32_t given;
	uint64_t value[VOFF_SWITCH_SETTINGS_MAX];
	char err[256];
	char buf[VOFF_PORT_SPEC_MAX + 1];
	struct voff_vxlan_cfg vxlan;
	char label[16];
};

/**
 * voff_port_spec_parse() - take a port spec apart without opening anything
 * @spec:	receives the result
 * @text:	NUL-terminated KIND:NAME[@NETNS][,OPTION=VALUE...] as
 *		voff_switch_add_spec() documents it
 *
 * Pure text work: no device, file or namespace is looked at, so any bytes
 * are safe to pass (this is the parser a fuzzer drives).  A NETNS is one
 * path component: it is refused when it contains '/', is "." or "..", or
 * is longer than 63 bytes; so is an empty NAME or NETNS, a NAME longer
 * than its kind takes (@name_max of struct voff_port_spec_kind), an
 * unknown KIND or option, an option the kind does not take (sink= is
 * pcap's only, napi= tap's and tun's), and a value its setting does not
 * take (voff_switch_setting_parse()).  An option given twice takes its
 * last value.
 *
 * Return: 0, or -EINVAL for a malformed spec (also for NULL arguments and
 * for @text longer than VOFF_PORT_SPEC_MAX).  On failure @spec->err says
 * what is wrong (when @spec is not NULL) and the rest of @spec holds no
 * meaningful value.
 */
int voff_port_spec_parse(struct voff_port_spec *spec, const char *text);

/**
 * voff_port_spec_format() - a parsed spec as text that parses back to it
 * @s:		a spec voff_port_spec_parse() accepted
 * @all:	print the run-time settings it gave as well; false: only
 *		what the port is opened with (KIND:NAME[@NETNS], the kind's
 *		options, the settings taken at open that are not at their
 *		default), so two specs that open the same port print the same
 * @buf:	receives the text: KIND:NAME[@NETNS][,OPTION=VALUE...], the
 *		kind's options first, then the settings in table order,
 *		values as voff_switch_setting_format() writes them
 * @len:	bytes of @buf
 *
 * Return: the length of the text, -ENOSPC when it does not fit in @len
 * (@buf then holds a cut text), -EINVAL for a NULL or unparsed @s.
 */
int voff_port_spec_format(const struct voff_port_spec *s, bool all,
			  char *buf, size_t len);

/**
 * voff_switch_add_parsed() - open the port of a parsed spec and add it
 * @sw:		the switch
 * @spec:	a spec voff_port_spec_parse() accepted (borrowed)
 * @id:		optional: receives the port id
 *
 * As voff_switch_add_spec(), for a caller that parsed the spec first (to
 * report its errors, or to look at it before opening anything).
 *
 * Return: as voff_switch_add_spec().
 */
int voff_switch_add_parsed(struct voff_switch *sw,
			   const struct voff_port_spec *spec,
			   unsigned int *id);

/**
 * voff_switch_add_spec() - open a port from a spec and add it
 * @sw:		the switch
 * @spec:	KIND:NAME[@NETNS][,OPTION=VALUE...] with KIND tap, tun or
 *		packet (NAME an interface, NETNS a namespace under
 *		/var/run/netns), or pcap:FILE[,sink=FILE]; an OPTION is a
 *		setting (voff_switch_setting_at(): gso_max_size=N, gro=on,
 *		napi=on for tap/tun, ...) or sink=.  TAP/TUN devices are
 *		created (a persistent one of that name is attached to) and
 *		set up; the port is named NAME.
 * @id:		optional: receives the port id
 *
 * Return: 0; -EINVAL for a malformed spec; -EEXIST for a name in use; the
 * errors of voff_port_open(), voff_switch_add() and voff_switch_set().
 * Nothing is left behind on failure.
 */
int voff_switch_add_spec(struct voff_switch *sw, const char *spec,
			 unsigned int *id);

/* ---- control language (switch_ctl.c) ------------------------------------ */

/* Longest control request, in bytes (the trailing newline not counted). */
#define VOFF_SWITCH_CTL_MAX 1024

/**
 * voff_switch_ctl() - run one control request
 * @sw:		the switch
 * @req:	the request: one line of words (not necessarily
 *		NUL-terminated; a trailing newline is ignored), an optional
 *		"-j" first for JSON replies, then one of
 *		  ports | ports add SPEC | ports del PORT
 *		  features PORT [NAME on|off ...]
 *		  limits PORT [NAME VALUE ...]
 *		  stats [PORT] | fdb | save | help
 *		(voff_switch_ctl_help() prints them); a PORT is a port's
 *		name or its id, a name winning over an id
 * @len:	bytes of @req (at most VOFF_SWITCH_CTL_MAX, newline aside)
 * @out:	the reply is written here: text as `ethtool -k` / `ip -s`
 *		print it (lists with a header row), or one JSON value; on
 *		error "error: MESSAGE" (with -j: {"error":"MESSAGE"})
 *
 * Changes apply at once.  `limits` shows and sets the settings of the
 * table (voff_switch_setting_at()); a request that sets some has every
 * name and value checked, ranges included, before anything is set; they
 * are then set in order and the first failure stops it (the earlier ones
 * stay set).
 *
 * Return: 0, or the negative errno of the failure (the reply says why).
 */
int voff_switch_ctl(struct voff_switch *sw, const char *req, size_t len,
		    FILE *out);

/* voff_switch_ctl_serve() refuses `ports add` of specs that name files
 * (pcap:, vhost-user:). */
#define VOFF_SWITCH_CTL_DENY_FILES (1u << 0)
/* voff_switch_ctl_serve() refuses `ports add` altogether. */
#define VOFF_SWITCH_CTL_DENY_ADD (1u << 1)

/**
 * struct voff_switch_ctl_counter - a counter a server keeps itself
 * @name:	its name in the `server` reply (a JSON key)
 * @value:	its value, kept up to date by the server's owner
 */
struct voff_switch_ctl_counter {
	const char *name;
	uint64_t value;
};

/**
 * struct voff_switch_ctl_cmd - a command a server's owner adds to the
 * language, for what only the owner can do (`voff switch` adds `reload`,
 * which re-reads its configuration file, and `monitor`, which keeps the
 * connection open)
 * @name:	its word; the library's commands win over it
 * @args:	its arguments, as help and usage errors show them
 * @min:	fewest arguments
 * @max:	most arguments
 * @fn:		runs it: @w and @n are the words after the name, @n within
 *		@min .. @max; @ctx is struct voff_switch_ctl_state.ctx; it
 *		writes its reply to @out (JSON when @json); on failure it
 *		returns a negative errno and puts a one-line reason in @err
 *		(@errlen bytes), which the library turns into the error reply
 *		("error: REASON", or voff_strerror() when @err is left empty)
 * @help:	one line for `help`
 */
struct voff_switch_ctl_cmd {
	const char *name;
	const char *args;
	int min, max;
	int (*fn)(void *ctx, char **w, int n, FILE *out, bool json,
		  char *err, size_t errlen);
	const char *help;
};

/**
 * struct voff_switch_ctl_state - policy and counters of one control server
 * @deny:	VOFF_SWITCH_CTL_DENY_* bits, set by the server's owner
 * @requests:	requests run (refused ones included)
 * @failed:	requests answered with an error
 * @refused:	requests refused by @deny
 * @extra:	optional: @n_extra counters the owner keeps about what the
 *		library never sees (`voff switch` counts the connections it
 *		refused before reading a request, "refused_peers"); `server`
 *		shows them after @refused.  Read only by the library.
 * @n_extra:	entries of @extra
 * @cmds:	optional: @n_cmds commands of the owner's
 *		(voff_switch_ctl_serve() runs them, help lists them)
 * @n_cmds:	entries of @cmds
 * @ctx:	handed to each of @cmds
 */
struct voff_switch_ctl_state {
	unsigned int deny;
	uint64_t requests;
	uint64_t failed;
	uint64_t refused;
	const struct voff_switch_ctl_counter *extra;
	unsigned int n_extra;
	const struct voff_switch_ctl_cmd *cmds;
	unsigned int n_cmds;
	void *ctx;
};

/**
 * voff_switch_ctl_help() - print what `help` answers
 * @f:		where to print
 * @st:		the server's state: its policy decides which port kinds
 *		`ports add` offers (none under VOFF_SWITCH_CTL_DENY_ADD, no
 *		pcap: under VOFF_SWITCH_CTL_DENY_FILES); NULL for
 *		voff_switch_ctl(), which has no `server` command either
 *
 * The text is made from the table of commands, the table of port kinds
 * and the table of settings, so a client can print it without asking.
 */
void voff_switch_ctl_help(FILE *f, const struct voff_switch_ctl_state *st);

/**
 * voff_switch_ctl_serve() - run one control request under a server policy
 * @sw:		the switch
 * @st:		the server's policy and counters (updated)
 * @req:	as voff_switch_ctl()
 * @len:	as voff_switch_ctl()
 * @out:	as voff_switch_ctl()
 *
 * As voff_switch_ctl(), with three differences: `ports add` is refused
 * with -EPERM and an error reply saying why when @st->deny says so (a
 * pcap: spec opens and creates files named by the client; a switch that
 * dropped its capabilities cannot create devices), the request `server`
 * prints @st's counters and policy, and the commands of @st->cmds are
 * run.
 *
 * Return: as voff_switch_ctl().
 */
int voff_switch_ctl_serve(struct voff_switch *sw,
			  struct voff_switch_ctl_state *st, const char *req,
			  size_t len, FILE *out);

/* ---- configuration files (switch_conf.c) ------------------------------- */

/*
 * A configuration is a list of control requests, one per line, that
 * declare the ports and their settings, in the words of `voff ctl`
 * (voff_switch_ctl()):
 *
 *	# comment; a word that starts with '#' ends a line
 *	ports add tap:vt0@ns0,gro=on
 *	features vt0 tso off
 *	limits vt0 gso_max_size 32768 gro_flush_timeout 20000
 *
 * Only these three requests are taken.  `features` and `limits` name a
 * port declared on an earlier line, by name; `limits` sets the settings
 * that change at run time (those taken at open, napi, go in the spec).
 * A setting given twice, in the spec or on `limits` lines, takes its
 * last value; `features` lines add up as ethtool -K requests do (gro is
 * the gro setting).  A port's features and settings that no line gives
 * are their defaults: the table's, and for a limit the value the port
 * starts with (a packet port over a device that takes more than 64 KiB
 * starts above the table's 65536).
 */
struct voff_switch_conf;

/**
 * voff_switch_conf_new() - an empty configuration (no ports)
 * @out:	receives it; untouched on failure
 * Return: 0 or -ENOMEM.
 */
int voff_switch_conf_new(struct voff_switch_conf **out);

/** voff_switch_conf_free() - free @conf; NULL is a no-op */
void voff_switch_conf_free(struct voff_switch_conf *conf);

/**
 * voff_switch_conf_line() - read one line into a configuration
 * @conf:	the configuration
 * @line:	the line (not necessarily NUL-terminated; a trailing newline
 *		is ignored); blank and comment lines are taken as nothing
 * @len:	bytes of @line
 * @where:	where it comes from, for messages (a file name, "--port")
 * @lineno:	its line number, for messages; 0 for none
 *
 * Everything is checked here, without opening anything: every spec with
 * voff_port_spec_parse(), every setting and value with the table of
 * settings (voff_switch_setting_parse()), every feature name, that a
 * port is declared once and before it is named.
 *
 * Return: 0, or a negative errno with voff_switch_conf_error() saying
 * "WHERE:LINENO: REASON" ("x.conf:7: gro_max_size: 70000 is out of range
 * (0..65536 bytes)"; "WHERE: REASON" without a line number).  @conf is
 * unchanged on failure.
 */
int voff_switch_conf_line(struct voff_switch_conf *conf, const char *line,
			  size_t len, const char *where, unsigned int lineno);

/**
 * voff_switch_conf_read() - read every line of @f into a configuration
 * @conf:	the configuration
 * @f:		an open stream, read to its end
 * @where:	its name, for messages
 *
 * Return: 0, or the error of the first bad line (voff_switch_conf_line()),
 * or a negative errno from reading @f (-EIO).  On failure @conf holds
 * what it held before the call: a bad line anywhere in @f changes
 * nothing.
 */
int voff_switch_conf_read(struct voff_switch_conf *conf, FILE *f,
			  const char *where);

/**
 * voff_switch_conf_error() - what the last failure of a call on @conf
 * was, as one line without newline ("" when none)
 */
const char *voff_switch_conf_error(const struct voff_switch_conf *conf);

/**
 * voff_switch_conf_port() - the spec of the @i-th port declared, with
 * every setting given (in the spec and on `limits` lines) merged in
 * Return: the spec (owned by @conf), or NULL past the last port.
 */
const struct voff_port_spec *
voff_switch_conf_port(const struct voff_switch_conf *conf, unsigned int i);

/**
 * struct voff_switch_conf_result - what voff_switch_conf_apply() did
 * @added:	ports opened and added
 * @removed:	ports removed (running, not in the configuration)
 * @changed:	running ports whose settings or features were changed
 * @kept:	running ports left exactly as they were
 * @recovered:	failed ports re-opened (also counted in @added)
 */
struct voff_switch_conf_result {
	unsigned int added;
	unsigned int removed;
	unsigned int changed;
	unsigned int kept;
	unsigned int recovered;
};

/**
 * voff_switch_conf_apply() - make the switch what @conf says
 * @sw:		the switch
 * @conf:	the configuration
 * @deny:	VOFF_SWITCH_CTL_DENY_ADD: the switch may not open ports
 *		(it dropped the privileges to): a configuration that needs
 *		a new port is refused before anything changes
 * @res:	optional: receives what was done
 *
 * First, without changing anything, every running port is matched by
 * name with a declared one; a declared port that runs opened with
 * something else (another kind, namespace or sink, napi) is refused:
 * what a port is opened with cannot change on a running port (remove it
 * with voff_switch_del() and apply again to re-create it).  Then the
 * running ports the configuration does not declare are removed, and in
 * the configuration's order each declared port is added (opened from its
 * spec, then given its settings and features) or, when it runs, given
 * the settings and features that differ, with voff_switch_set() and
 * voff_switch_set_features(): its MAC table entries and counters stay.
 * A failed port (struct voff_switch_port_info.failed) the configuration
 * declares is re-opened (VOFF_SWITCH_EV_PORT_RECOVERED): its device is
 * opened again first, and when that fails, after the failed port is
 * closed (a device may need what the old one holds: a UDP port); a port
 * that does not open then is gone, and the failure stops there.
 *
 * Return: 0, or a negative errno with voff_switch_conf_error() naming
 * the line and the reason.  A refusal of the first step changes nothing;
 * a failure after it (a device the kernel does not create) stops there:
 * the ports dealt with before it stay as they were made.
 */
int voff_switch_conf_apply(struct voff_switch *sw,
			   struct voff_switch_conf *conf, unsigned int deny,
			   struct voff_switch_conf_result *res);

/**
 * voff_switch_conf_retry() - re-open the failed ports @conf declares,
 * those whose next attempt is due
 * @sw:		the switch
 * @conf:	the configuration it runs (the one last applied)
 * @deny:	as voff_switch_conf_apply(): with VOFF_SWITCH_CTL_DENY_ADD
 *		every attempt fails with -EPERM, opening nothing
 * @now_ns:	the time now, in ns, on a clock that never goes back (the
 *		caller's: CLOCK_MONOTONIC); the same clock at every call
 *
 * Call it about once a second, between steps (never per frame: an
 * attempt opens a device).  A failed port (struct
 * voff_switch_port_info.failed) that @conf declares, by name, and whose
 * port_retry setting is not 0 gets its first attempt 1 s after the first
 * call that sees it failed, then at waits that double, up to port_retry
 * seconds.  An attempt re-opens the port as voff_switch_conf_apply()
 * does (VOFF_SWITCH_EV_PORT_REMOVED, _ADDED, _RECOVERED, then @conf's
 * static MAC entries of it), except that the device is opened before
 * the failed port is closed: an attempt that fails leaves the failed
 * port as it was, counts it (struct voff_switch_stats.retries) and
 * reports VOFF_SWITCH_EV_PORT_RETRY with the reason (a device that needs
 * what the failed one holds, a VXLAN port's UDP port, fails so until a
 * reload re-opens it).  Ports @conf does not declare (added by a control
 * request) are left failed.  voff_switch_conf_error() names the last
 * attempt that failed.
 *
 * Return: the ports re-opened (>= 0), or -EINVAL.
 */
int voff_switch_conf_retry(struct voff_switch *sw,
			   struct voff_switch_conf *conf, unsigned int deny,
			   uint64_t now_ns);

/**
 * voff_switch_conf_write() - the running state as a configuration
 * @sw:		the switch
 * @f:		where to write it
 *
 * For each port, in id order: `ports add` with what it was opened with
 * (voff_port_spec_format() without run-time settings), a `limits` line
 * with the settings that are not at their default (as a configuration
 * means it: above), a `features` line
 * with the features whose wanted state is not the default (gro aside:
 * it is the gro setting).  Read back and applied to a switch without
 * ports, it makes the same ports with the same settings and features,
 * and written again it gives the same text.  A port added with
 * voff_switch_add() (no spec) is written as a comment.
 *
 * Return: 0, or -EIO when writing to @f failed.
 */
int voff_switch_conf_write(const struct voff_switch *sw, FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_SWITCH_H */
