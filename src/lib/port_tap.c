/* SPDX-License-Identifier: MIT */
/*
 * port_tap.c - TAP (Ethernet) and TUN (IP) ports: /dev/net/tun with
 * IFF_NO_PI and IFF_VNET_HDR, offloads probed with TUNSETOFFLOAD, limits
 * set over netlink (netlink.c), frames read until the device is empty
 *
 * One file for both: they differ only in IFF_TAP/IFF_TUN and in where a
 * frame starts (the front end's validator is told with info.l3).
 *
 * Offload probing: TUNSETOFFLOAD takes a set or refuses it whole with
 * EINVAL, and cannot be read back.  When the wanted set is refused, the
 * subsets are tried from the largest down (one feature fewer at a time),
 * preferring at equal size to keep the low, basic bits (CSUM, TSO4, ...)
 * over the later ones; the first one accepted stays and the rest is
 * recorded as refused.  Nine bits give at most 512 tries, once, at open.
 *
 * IFF_NAPI only on request (VOFF_PORT_F_NAPI): by default a write() runs the
 * receiving namespace's stack in voff's own system call, which is cheapest
 * (docs/baselines.md §4: NAPI does not speed plain write()s up).  With it, and
 * the device's NAPI threaded, that work moves to the NAPI kernel thread,
 * where it is accounted to the receiving side (bench/e2e.sh measures GRO's
 * saving there); the kernel's own GRO then runs unless the device's gro
 * feature is turned off.
 *
 * I/O: one read() or write() per frame, or (built with liburing, unless
 * the kernel refuses a ring) the same operations in io_uring batches: a
 * system call costs more than a small frame's copy on a virtual machine.
 *
 * Receive, where the kernel has multishot reads (6.7+): one
 * IORING_OP_READ_MULTISHOT request stays armed on the device, with up to
 * MSHOT_BUFS packets of the caller's pool posted to the kernel in a
 * provided-buffer ring.  A frame the device queues makes the request
 * ready: the read is queued as task work of the thread that armed it, and
 * IORING_SQ_TASKRUN set in the ring's shared memory, without an interrupt
 * (IORING_SETUP_COOP_TASKRUN).  The reads run on that thread's next
 * return from the kernel: the wake-up from its wait (voff_port_fd() is an
 * epoll set of the device and the ring: the device's readiness wakes it,
 * the ring's tells of read frames not yet taken), or any system call.  A
 * receive call then reaps the completions, refills the ring from the pool
 * and, when the request ended (the ring ran out of packets), arms it
 * again: no system call per batch while frames flow, and a busy-polling
 * switch spins on the flag in memory, entering the kernel only when it is
 * set.  The request reads in the order the device queued the frames.  Packets
 * posted stay the port's until they come back as frames or the port is
 * closed (the pool must outlive the port, as it must for every packet).
 *
 * Receive otherwise: rounds of URING_RX reads at once with RWF_NOWAIT, so
 * an empty device answers -EAGAIN at once instead of arming one poll per
 * read (that would wake them all for one frame); tun takes RWF_NOWAIT, so
 * each read runs inline, in submission order, and the frames come out in
 * the order the device queued them.  Transmit submits the whole batch and
 * reaps every completion before returning, so the front end may free the
 * frames as after write().  An error from a ring itself (not from one
 * frame) switches the port back to read()/write() for good.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/if_tun.h>

#ifdef VOFF_HAVE_URING
#include <liburing.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#endif

#include <voff/netlink.h>
#include <voff/pkt.h>
#include <voff/port.h>

#include "netlink_int.h"
#include "netns_int.h"
#include "port_int.h"

/* Reads submitted at once; more rounds while every read found a frame. */
#define URING_RX 8

/* What a write may carry: the kernel validates and segments any of it. */
#define TAP_TX_OFF                                                           \
	(VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 | VOFF_TUN_F_TSO6 |               \
	 VOFF_TUN_F_TSO_ECN | VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6)

/* The kernel as the probe's judge: TUNSETOFFLOAD takes a set or not. */
static int set_offload(unsigned int off, void *ctx)
{
	unsigned long arg = off;
	const int *fd = ctx;

	return ioctl(*fd, TUNSETOFFLOAD, arg) ? -errno : 0;
}

#ifdef VOFF_HAVE_URING
/* Enough entries for a transmit batch or a round of reads. */
#define URING_DEPTH VOFF_BATCH_MAX

/* Packets one port keeps posted for its multishot read (a power of two). */
#define MSHOT_BUFS 32
/* A port posts at most this share of its pool: 1/16 (32 of the switch's
 * default 1024), so that a small pool still serves several ports. */
#define MSHOT_POOL_SHARE 16
#define MSHOT_BGID 0
/* Liburing 2.3's headers predate the opcode (Linux 6.7). */
#define OP_READ_MULTISHOT 49

enum { TAG_READ = 1, TAG_CANCEL };

/**
 * struct tap_uring - a port's rings
 * @tx:		writes, and the reads of the RWF_NOWAIT path
 * @rx:		the multishot read (when @br is set)
 * @br:		the provided-buffer ring; NULL: no multishot read
 * @posted:	packets given to the kernel, by buffer id
 * @n_posted:	how many
 * @epfd:	with @br: an epoll set of the device and @rx, what
 *		voff_port_fd() reports; else -1
 * @armed:	the multishot read is in flight
 */
struct tap_uring {
	struct io_uring tx;
	struct io_uring rx;
	struct io_uring_buf_ring *br;
	struct voff_pkt *posted[MSHOT_BUFS];
	unsigned int n_posted;
	int epfd;
	bool armed;
};

static size_t br_bytes(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = MSHOT_BUFS * sizeof(struct io_uring_buf);

	return page > 0 && (size_t)page > n ? (size_t)page : n;
}

/*
 * Confine a ring created disabled: once enabled (ring_enable()), only the
 * @n operations of @ops (at most three), with no entry flag but @flags,
 * may be submitted and no further register operation is allowed, so a ring cannot
 * become a way around a seccomp filter (an openat or connect submitted as
 * an entry); reads and writes are what the filter allows as system calls
 * anyway.  The port's descriptor is not registered as a fixed file: the
 * ring would hold it after close() until its asynchronous teardown, and a
 * TAP reopened by the same name would find the device still there.
 * Debian's liburing 2.3 declares io_uring_register_restrictions() and
 * io_uring_enable_rings() but does not export them: the raw register
 * call it does export does the same.
 * Return: 0, or a negative errno (the ring must not be used).
 */
static int ring_confine(struct io_uring *ring, const uint8_t *ops,
			unsigned int n, uint8_t flags)
{
	struct io_uring_restriction rule[4];
	unsigned int k = 0;
	int err;

	memset(rule, 0, sizeof(rule));
	for (unsigned int i = 0; i < n && k < 3; i++) {
		rule[k].opcode = IORING_RESTRICTION_SQE_OP;
		rule[k++].sqe_op = ops[i];
	}
	if (flags) {
		rule[k].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
		rule[k++].sqe_flags = flags;
	}
	err = io_uring_register(ring->ring_fd, IORING_REGISTER_RESTRICTIONS,
				rule, k);
	return err < 0 ? err : 0;
}

static int ring_enable(struct io_uring *ring)
{
	int err = io_uring_register(ring->ring_fd,
				    IORING_REGISTER_ENABLE_RINGS, NULL, 0);

	return err < 0 ? err : 0;
}

/* Whether the kernel knows @op, asked of a ring not yet confined. */
static bool op_supported(struct io_uring *ring, int op)
{
	struct io_uring_probe *probe = io_uring_get_probe_ring(ring);
	bool ok = probe && io_uring_opcode_supported(probe, op);

	io_uring_free_probe(probe);
	return ok;
}

/* The epoll set voff_port_fd() reports: the device and the ring. */
static int mshot_epoll(struct tap_uring *tu, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	tu->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (tu->epfd < 0)
		return -errno;
	if (epoll_ctl(tu->epfd, EPOLL_CTL_ADD, fd, &ev) ||
	    epoll_ctl(tu->epfd, EPOLL_CTL_ADD, tu->rx.ring_fd, &ev)) {
		int err = -errno;

		close(tu->epfd);
		tu->epfd = -1;
		return err;
	}
	return 0;
}

/*
 * The multishot receive ring on device @fd: its provided-buffer ring
 * registered before it is confined to multishot reads and their
 * cancellation.  Return: 0, or a negative errno (no multishot read;
 * nothing is left set up).
 */
static int mshot_on(struct tap_uring *tu, int fd)
{
	static const uint8_t ops[] = { OP_READ_MULTISHOT,
				       IORING_OP_ASYNC_CANCEL };
	struct io_uring_params prm;
	struct io_uring_buf_reg reg;
	void *mem;
	int err;

	memset(&prm, 0, sizeof(prm));
	/*
	 * Room for every posted packet's completion and the last ones.  The
	 * reads run as task work without interrupting the thread; the flag
	 * tells a spinning one to enter the kernel.  (A deferred ring,
	 * IORING_SETUP_DEFER_TASKRUN, would run them only when asked, but
	 * Linux 6.18 does not wake an epoll waiter on its descriptor when
	 * work is queued.)
	 */
	prm.flags = IORING_SETUP_R_DISABLED | IORING_SETUP_CQSIZE |
		    IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	prm.cq_entries = 4 * MSHOT_BUFS;
	err = io_uring_queue_init_params(4, &tu->rx, &prm);
	if (err < 0)
		return err;
	err = -EOPNOTSUPP;
	if (!op_supported(&tu->rx, OP_READ_MULTISHOT))
		goto err_ring;
	mem = mmap(NULL, br_bytes(), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		err = -errno;
		goto err_ring;
	}
	tu->br = mem;
	io_uring_buf_ring_init(tu->br);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uint64_t)(uintptr_t)mem;
	reg.ring_entries = MSHOT_BUFS;
	reg.bgid = MSHOT_BGID;
	err = io_uring_register_buf_ring(&tu->rx, &reg, 0);
	if (!err)
		err = ring_confine(&tu->rx, ops, 2, IOSQE_BUFFER_SELECT);
	if (!err)
		err = ring_enable(&tu->rx);
	if (!err)
		err = mshot_epoll(tu, fd);
	if (!err)
		return 0;
	munmap(mem, br_bytes());
	tu->br = NULL;
err_ring:
	io_uring_queue_exit(&tu->rx);
	return err;
}

/*
 * Count and free the frame a completion of the multishot read carries,
 * when the port is not taking it (closing, or falling back).
 */
static void mshot_discard(struct voff_port *port, struct tap_uring *tu,
			  const struct io_uring_cqe *cqe)
{
	unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;

	if (!(cqe->flags & IORING_CQE_F_BUFFER) || bid >= MSHOT_BUFS ||
	    !tu->posted[bid])
		return;
	voff__port_count_drop(port, VOFF_PORT_RX, -ECANCELED);
	voff_pkt_free(tu->posted[bid]);
	tu->posted[bid] = NULL;
	tu->n_posted--;
}

/*
 * Stop the multishot read and give every posted packet back.  The read
 * holds the device's file: it is cancelled, and its last completion
 * waited for, before the ring goes (a ring's teardown is asynchronous, and
 * the device would outlive close()).
 */
static void mshot_off(struct voff_port *port, struct tap_uring *tu)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	struct io_uring_cqe *cqe;
	bool safe = true;

	if (!tu->br)
		return;
	if (tu->armed) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&tu->rx);

		io_uring_prep_cancel64(sqe, TAG_READ, 0);
		sqe->user_data = TAG_CANCEL;
		io_uring_submit(&tu->rx);
	}
	while (tu->armed) {
		int r = io_uring_wait_cqe_timeout(&tu->rx, &cqe, &ts);

		if (r == -EINTR)
			continue;
		if (r < 0) {
			/* Never seen: the kernel may still own the packets. */
			safe = false;
			break;
		}
		if (cqe->user_data == TAG_READ) {
			mshot_discard(port, tu, cqe);
			if (!(cqe->flags & IORING_CQE_F_MORE))
				tu->armed = false;
		}
		io_uring_cqe_seen(&tu->rx, cqe);
	}
	while (io_uring_peek_cqe(&tu->rx, &cqe) == 0) {
		if (cqe->user_data == TAG_READ)
			mshot_discard(port, tu, cqe);
		io_uring_cqe_seen(&tu->rx, cqe);
	}
	for (unsigned int i = 0; i < MSHOT_BUFS && safe; i++) {
		voff_pkt_free(tu->posted[i]);
		tu->posted[i] = NULL;
	}
	tu->n_posted = 0;
	close(tu->epfd);
	tu->epfd = -1;
	io_uring_queue_exit(&tu->rx);
	munmap(tu->br, br_bytes());
	tu->br = NULL;
}

static void ring_off(struct voff_port *port)
{
	struct tap_uring *tu = port->priv;

	if (!tu)
		return;
	mshot_off(port, tu);
	io_uring_queue_exit(&tu->tx);
	free(tu);
	port->priv = NULL;
	port->info.io_uring = false;
}

/*
 * Confined rings for the port; none (read()/write()) when the kernel
 * refuses a ring or its restrictions, and no multishot read when it lacks
 * one.
 */
static void ring_on(struct voff_port *port)
{
	static const uint8_t ops[] = { IORING_OP_READ, IORING_OP_WRITE };
	struct tap_uring *tu = calloc(1, sizeof(*tu));

	if (!tu)
		return;
	tu->epfd = -1;
	if (io_uring_queue_init(URING_DEPTH, &tu->tx,
				IORING_SETUP_R_DISABLED) < 0) {
		free(tu);
		return;
	}
	if (ring_confine(&tu->tx, ops, 2, 0) || ring_enable(&tu->tx)) {
		io_uring_queue_exit(&tu->tx);
		free(tu);
		return;
	}
	if (mshot_on(tu, port->fd))
		tu->br = NULL;
	port->priv = tu;
	port->info.io_uring = true;
}

/*
 * Submit @n prepared entries and reap their @n results into @res by
 * user_data.  Return: 0, or the ring's negative errno (results unknown).
 */
static int ring_run(struct io_uring *ring, unsigned int n, int *res)
{
	unsigned int got = 0;
	int r;

	do
		r = io_uring_submit_and_wait(ring, n);
	while (r == -EINTR);
	if (r < 0)
		return r;
	if ((unsigned int)r != n)
		return -EIO;
	while (got < n) {
		struct io_uring_cqe *cqe;

		r = io_uring_wait_cqe(ring, &cqe);
		if (r == -EINTR)
			continue;
		if (r < 0)
			return r;
		if (cqe->user_data < n)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
		got++;
	}
	return 0;
}
#else
static void ring_off(struct voff_port *port)
{
	(void)port;
}

static void ring_on(struct voff_port *port)
{
	(void)port;
}
#endif

/* The device's tx_dropped: frames the kernel had for the port and lost. */
static int dev_tx_dropped(const struct voff_port *port, uint64_t *n)
{
	struct voff_link_stats st;
	int err = voff__netlink_stats(port->kdrops->nl, port->info.name, &st);

	if (!err)
		*n = st.tx_dropped;
	return err;
}

/*
 * Open the device's drop count at 0: what an attached device dropped
 * before is not the port's.  Without a socket (no memory) the port
 * reports none.
 */
static void kdrops_open(struct voff_port *port)
{
	struct voff__kdrops *k = calloc(1, sizeof(*k));

	if (!k)
		return;
	if (voff__netlink_open(port->netns, &k->nl)) {
		free(k);
		return;
	}
	port->kdrops = k;
	if (dev_tx_dropped(port, &k->base))
		k->base = 0;
}

static void kdrops_close(struct voff_port *port)
{
	if (!port->kdrops)
		return;
	voff__netlink_close(port->kdrops->nl);
	free(port->kdrops);
	port->kdrops = NULL;
}

static uint64_t tap_kernel_drops(const struct voff_port *port)
{
	struct voff__kdrops *k = port->kdrops;
	uint64_t n;

	if (!k)
		return 0;
	if (!dev_tx_dropped(port, &n) && n >= k->base && n - k->base > k->last)
		k->last = n - k->base;
	return k->last;
}

static int tap_refresh(struct voff_port *port)
{
	return voff_netlink_get_limits(port->netns, port->info.name,
				       &port->info.ifindex,
				       &port->info.limits);
}

/* Create or attach the device inside the port's namespace; keep the fd. */
static int tun_attach(struct voff_port *port, const struct voff_port_cfg *cfg,
		      short type)
{
	const char *name = cfg->name ? cfg->name : "";
	bool attach = cfg->flags & VOFF_PORT_F_ATTACH;
	struct ifreq ifr;
	int saved, fd, err;

	if (strlen(name) >= IFNAMSIZ || (attach && !*name))
		return -EINVAL;
	err = voff__netns_enter(port->netns, &saved);
	if (err)
		return err;
	if (*name && !!if_nametoindex(name) != attach) {
		voff__netns_leave(saved);
		return attach ? -ENOENT : -EEXIST;
	}
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = (short)(type | IFF_NO_PI);
	if (port->info.vnet_hdr_len)
		ifr.ifr_flags |= IFF_VNET_HDR;
	if (cfg->flags & VOFF_PORT_F_MULTI_QUEUE)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	if (cfg->flags & VOFF_PORT_F_NAPI)
		ifr.ifr_flags |= IFF_NAPI;
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		err = -errno;
		close(fd);
		goto out;
	}
	snprintf(port->info.name, sizeof(port->info.name), "%s",
		 ifr.ifr_name);
	port->fd = fd;
	port->created = !attach;
out:
	voff__netns_leave(saved);
	return err;
}

static int tap_setup(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	struct voff_port_info *in = &port->info;
	const struct voff_limits *l = &cfg->limits;
	int hs = (int)in->vnet_hdr_len;
	int err;

	if (hs) {
		if (ioctl(port->fd, TUNSETVNETHDRSZ, &hs))
			return -errno;
		err = voff__port_off_probe(in->want & port_codec_off(hs),
					   set_offload, &port->fd,
					   &in->rx_off);
		if (err)
			return err;
		/* Tunnel GSO writes need the reader to have negotiated it. */
		in->tx_off = TAP_TX_OFF | (in->rx_off & PORT_TNL_OFF);
	}
	in->refused = in->want & ~in->rx_off;
	if (l->mtu || l->gso_max_size || l->gso_max_segs || l->gro_max_size ||
	    l->gso_ipv4_max_size || l->gro_ipv4_max_size) {
		err = voff_netlink_set_limits(port->netns, in->name, l);
		if (err)
			return err;
	}
	if (cfg->flags & VOFF_PORT_F_UP) {
		err = voff_netlink_set_up(port->netns, in->name, true);
		if (err)
			return err;
	}
	kdrops_open(port);
	return tap_refresh(port);
}

static int open_common(struct voff_port *port,
		       const struct voff_port_cfg *cfg, bool tun)
{
	struct voff_port_info *in = &port->info;
	int err;

	if (!(cfg->flags & VOFF_PORT_F_NO_VNET))
		in->vnet_hdr_len = cfg->vnet_hdr_len ? cfg->vnet_hdr_len : 10;
	in->l3 = tun;
	/* An IP datagram of 64 KiB, plus Ethernet and one VLAN tag on TAP. */
	in->tx_max_len = tun ? 65535 : VOFF_GSO_MAX_FRAME;
	err = tun_attach(port, cfg, tun ? IFF_TUN : IFF_TAP);
	if (err)
		return err;
	err = tap_setup(port, cfg);
	if (err) {
		kdrops_close(port);
		close(port->fd);	/* a device created here goes with it */
		port->fd = -1;
		return err;
	}
	if (!(cfg->flags & VOFF_PORT_F_NO_URING))
		ring_on(port);
	return 0;
}

static int tap_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	return open_common(port, cfg, false);
}

static int tun_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	return open_common(port, cfg, true);
}

static void tap_close(struct voff_port *port)
{
	kdrops_close(port);
	ring_off(port);
	if (port->fd >= 0)
		close(port->fd);
	port->fd = -1;
}

/*
 * A read of @n bytes (or -errno) into @pkt (@cap bytes offered, @hs of
 * them for the header): append the frame to @b or drop it.
 * Return: 1 when appended, 0 when dropped or empty (-EAGAIN, -EINTR), or
 * the negative errno of a failed device.  Ownership: consumes @pkt.
 */
static int rx_one(struct voff_port *port, struct voff_pkt *pkt, ssize_t n,
		  size_t cap, struct voff_batch *b)
{
	uint32_t hs = port->info.vnet_hdr_len;

	if (n < 0) {
		voff_pkt_free(pkt);
		return n == -EAGAIN || n == -EINTR ? 0 : (int)n;
	}
	if ((size_t)n == cap) {
		/* The kernel cut the frame to our buffer. */
		voff__port_count_drop(port, VOFF_PORT_RX, VOFF_E_PORT_TRUNC);
		voff_pkt_free(pkt);
		return 0;
	}
	if ((size_t)n >= hs)
		voff_pkt_put(pkt, (uint32_t)n - hs);
	else
		voff_pkt_trim(pkt, (uint32_t)n);
	return voff__port_rx_accept(port, pkt, b, 0, 0) ? 0 : 1;
}

/* A fresh packet and where a frame with its header lands in it. */
static int rx_buf(struct voff_port *port, struct voff_pool *pool,
		  struct voff_pkt **pkt, uint8_t **d, size_t *cap)
{
	uint32_t hs = port->info.vnet_hdr_len;

	if (voff_pkt_alloc(pool, pkt))
		return -ENOBUFS;
	/* The frame proper lands at the standard headroom. */
	*d = voff_pkt_push(*pkt, hs);
	*cap = hs + voff_pkt_tailroom(*pkt);
	return 0;
}

/*
 * Read until the device is empty or @*left frames were read (appended or
 * refused): one frame a read.
 */
static int rx_plain(struct voff_port *port, struct voff_pool *pool,
		    struct voff_batch *b, unsigned int *left)
{
	unsigned int got = 0;

	while (*left) {
		struct voff_pkt *pkt;
		uint8_t *d;
		size_t cap;
		ssize_t n;
		int r;

		if (rx_buf(port, pool, &pkt, &d, &cap))
			return got ? (int)got : -ENOBUFS;
		n = read(port->fd, d, cap);
		if (n < 0 && errno == EAGAIN) {
			voff_pkt_free(pkt);
			break;
		}
		(*left)--;
		r = rx_one(port, pkt, n < 0 ? -errno : n, cap, b);
		if (r < 0)
			return got ? (int)got : r;
		got += (unsigned int)r;
	}
	return (int)got;
}

#ifdef VOFF_HAVE_URING
/*
 * Rounds of URING_RX reads in one submission each, until a read finds the
 * device empty or @*left frames were read.  Return: frames appended,
 * -ENOBUFS, or -errno; 1 in @*broken when the ring itself failed (nothing
 * was read in that round: the caller goes on with read()).
 */
static int rx_ring(struct voff_port *port, struct voff_pool *pool,
		   struct voff_batch *b, unsigned int *left, bool *broken)
{
	struct tap_uring *tu = port->priv;
	struct io_uring *ring = &tu->tx;
	unsigned int got = 0;
	bool more = true;

	while (more && *left) {
		struct voff_pkt *pkt[URING_RX];
		size_t cap[URING_RX];
		int res[URING_RX], err = 0;
		unsigned int n = 0;

		while (n < URING_RX && n < *left) {
			struct io_uring_sqe *sqe;
			uint8_t *d;

			if (rx_buf(port, pool, &pkt[n], &d, &cap[n]))
				break;
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_read(sqe, port->fd, d, (unsigned int)cap[n],
					   0);
			sqe->rw_flags = RWF_NOWAIT;
			sqe->user_data = n;
			res[n++] = -EIO;
		}
		if (!n)
			return got ? (int)got : -ENOBUFS;
		if (ring_run(ring, n, res)) {
			for (unsigned int i = 0; i < n; i++)
				voff_pkt_free(pkt[i]);
			*broken = true;
			return (int)got;
		}
		/* A read the kernel cannot do without blocking: no ring. */
		if (res[0] == -EOPNOTSUPP || res[0] == -EINVAL) {
			for (unsigned int i = 0; i < n; i++)
				voff_pkt_free(pkt[i]);
			*broken = true;
			return (int)got;
		}
		more = n == URING_RX;
		for (unsigned int i = 0; i < n; i++) {
			int r = rx_one(port, pkt[i], res[i], cap[i], b);

			if (res[i] <= 0)
				more = false;
			else
				(*left)--;
			if (r < 0 && !err)
				err = r;
			got += r > 0 ? 1u : 0u;
		}
		if (err)
			return got ? (int)got : err;
	}
	return (int)got;
}

/* Packets to keep posted, out of @pool. */
static unsigned int mshot_target(const struct voff_pool *pool)
{
	unsigned int n = voff_pool_capacity(pool) / MSHOT_POOL_SHARE;

	return n < MSHOT_BUFS ? n : MSHOT_BUFS;
}

/* Post fresh packets of @pool into the free buffer ids, up to the target. */
static void mshot_refill(struct voff_port *port, struct tap_uring *tu,
			 struct voff_pool *pool)
{
	uint32_t hs = port->info.vnet_hdr_len;
	unsigned int want = mshot_target(pool);
	int added = 0;

	for (unsigned int bid = 0; bid < MSHOT_BUFS && tu->n_posted < want;
	     bid++) {
		struct voff_pkt *pkt;
		uint8_t *d;

		if (tu->posted[bid])
			continue;
		if (voff_pkt_alloc(pool, &pkt))
			break;
		/* The frame proper lands at the standard headroom. */
		d = voff_pkt_push(pkt, hs);
		io_uring_buf_ring_add(tu->br, d, hs + voff_pkt_tailroom(pkt),
				      (unsigned short)bid,
				      io_uring_buf_ring_mask(MSHOT_BUFS),
				      added++);
		tu->posted[bid] = pkt;
		tu->n_posted++;
	}
	if (added)
		io_uring_buf_ring_advance(tu->br, added);
}

/* Arm the multishot read; Return: 0 or the ring's negative errno. */
static int mshot_arm(struct voff_port *port, struct tap_uring *tu)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&tu->rx);
	int r;

	if (!sqe)
		return -EBUSY;
	io_uring_prep_rw(OP_READ_MULTISHOT, sqe, port->fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = MSHOT_BGID;
	sqe->user_data = TAG_READ;
	do
		r = io_uring_submit(&tu->rx);
	while (r == -EINTR);
	if (r != 1)
		return r < 0 ? r : -EIO;
	tu->armed = true;
	return 0;
}

/* Reads are queued as task work, not run yet (no interrupt was sent). */
static bool mshot_pending(const struct tap_uring *tu)
{
	return IO_URING_READ_ONCE(*tu->rx.sq.kflags) & IORING_SQ_TASKRUN;
}

/*
 * Take the completed reads into @b, @*left frames at most (appended or
 * refused).  Return: frames appended; in @*err the error of a failed
 * device; in @*refused the error the kernel refused the read with
 * (-EINVAL, -EOPNOTSUPP: no multishot read on this device).
 */
static unsigned int mshot_reap(struct voff_port *port, struct tap_uring *tu,
			       struct voff_batch *b, unsigned int *left,
			       int *err, int *refused)
{
	uint32_t hs = port->info.vnet_hdr_len;
	struct io_uring_cqe *cqe;
	unsigned int got = 0;

	/* Reads the device made ready but that have not run: run them. */
	if (!io_uring_cq_ready(&tu->rx) && mshot_pending(tu))
		io_uring_get_events(&tu->rx);
	while (*left && !io_uring_peek_cqe(&tu->rx, &cqe)) {
		unsigned int bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		unsigned int flags = cqe->flags;
		int res = cqe->res;

		if (cqe->user_data != TAG_READ) {
			io_uring_cqe_seen(&tu->rx, cqe);
			continue;
		}
		io_uring_cqe_seen(&tu->rx, cqe);
		if (!(flags & IORING_CQE_F_MORE))
			tu->armed = false;
		if ((flags & IORING_CQE_F_BUFFER) && bid < MSHOT_BUFS &&
		    tu->posted[bid]) {
			struct voff_pkt *pkt = tu->posted[bid];
			size_t cap = hs + voff_pkt_tailroom(pkt);
			int r;

			tu->posted[bid] = NULL;
			tu->n_posted--;
			(*left)--;
			r = rx_one(port, pkt, res, cap, b);
			if (r < 0 && !*err)
				*err = r;
			got += r > 0 ? 1u : 0u;
		} else if (res == -EINVAL || res == -EOPNOTSUPP) {
			*refused = res;
		} else if (res < 0 && res != -ENOBUFS && res != -EAGAIN &&
			   res != -EINTR && res != -ECANCELED && !*err) {
			*err = res;
		}
	}
	return got;
}

/*
 * Receive through the multishot read: reap, refill, and arm again when
 * the read ended, until @*left frames were taken or the read waits for
 * the device.  Return: frames appended, -ENOBUFS, or -errno; @*broken when
 * the kernel refused the read (the caller falls back to RWF_NOWAIT reads).
 */
static int rx_mshot(struct voff_port *port, struct voff_pool *pool,
		    struct voff_batch *b, unsigned int *left, bool *broken)
{
	struct tap_uring *tu = port->priv;
	unsigned int got = 0;
	int err = 0, refused = 0;

	for (;;) {
		got += mshot_reap(port, tu, b, left, &err, &refused);
		if (refused) {
			*broken = true;
			return (int)got;
		}
		mshot_refill(port, tu, pool);
		if (err || !*left ||
		    (tu->armed && !mshot_pending(tu)))
			break;
		if (tu->armed)
			continue;
		if (!tu->n_posted)
			return got ? (int)got : -ENOBUFS;
		if (mshot_arm(port, tu)) {
			*broken = true;
			return (int)got;
		}
	}
	return got ? (int)got : err;
}
#endif

/* With a multishot read, the epoll set of the device and its ring. */
static int tap_wait_fd(const struct voff_port *port)
{
#ifdef VOFF_HAVE_URING
	const struct tap_uring *tu = port->priv;

	if (tu && tu->epfd >= 0)
		return tu->epfd;
#endif
	return port->fd;
}

/* Frames the multishot read took already, or reads queued to run. */
static bool tap_rx_ready(const struct voff_port *port)
{
#ifdef VOFF_HAVE_URING
	const struct tap_uring *tu = port->priv;

	if (tu && tu->br)
		return io_uring_cq_ready(&tu->rx) || mshot_pending(tu);
#endif
	(void)port;
	return false;
}

/*
 * At most as many frames are read as @b has room for, refused ones
 * included: a device flooded with frames the validation refuses costs a
 * call no more than one full of good frames.
 */
static int tap_rx(struct voff_port *port, struct voff_pool *pool,
		  struct voff_batch *b)
{
	unsigned int left = voff_batch_space(b);
#ifdef VOFF_HAVE_URING
	struct tap_uring *tu = port->priv;

	/* A pool too small to post from reads with RWF_NOWAIT instead. */
	if (tu && tu->br && (tu->armed || tu->n_posted || mshot_target(pool))) {
		bool broken = false;
		int n = rx_mshot(port, pool, b, &left, &broken);

		if (!broken)
			return n;
		mshot_off(port, tu);
		if (n > 0)
			return n;
	}
	if (tu) {
		bool broken = false;
		int n = rx_ring(port, pool, b, &left, &broken);

		if (!broken)
			return n;
		ring_off(port);
		if (n > 0)
			return n;
	}
#endif
	return rx_plain(port, pool, b, &left);
}

/*
 * One write() per frame: TUN has no batched write (TUN_MSG_PTR batching is
 * for vhost-net only), so frame count, not bytes, is what costs here and why
 * super-packets matter.
 */
static void tx_plain(struct voff_port *port, struct voff_pkt **pkts,
		     unsigned int n, int *res)
{
	for (unsigned int i = 0; i < n; i++) {
		ssize_t w;

		do
			w = write(port->fd, voff_pkt_data(pkts[i]),
				  pkts[i]->len);
		while (w < 0 && errno == EINTR);
		if (w < 0)
			res[i] = -errno;
		else if ((size_t)w != pkts[i]->len)
			res[i] = -EIO;
	}
}

#ifdef VOFF_HAVE_URING
/*
 * The same writes in one submission.  RWF_NOWAIT keeps every write inline
 * and in order (a write that would block fails with -EAGAIN, as write() on
 * the non-blocking descriptor does, instead of going to a worker thread).
 * Return: 0 with @res set; -EOPNOTSUPP when the device refused them all
 * (nothing sent: send them again without the ring); another -errno when
 * the ring failed (whether a frame went out is unknown: they count as
 * dropped, never sent twice).
 */
static int tx_ring(struct voff_port *port, struct voff_pkt **pkts,
		   unsigned int n, int *res)
{
	struct tap_uring *tu = port->priv;
	struct io_uring *ring = &tu->tx;
	int r[VOFF_BATCH_MAX];
	int err;

	for (unsigned int i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_write(sqe, port->fd, voff_pkt_data(pkts[i]),
				    pkts[i]->len, 0);
		sqe->rw_flags = RWF_NOWAIT;
		sqe->user_data = i;
		r[i] = -EIO;
	}
	err = ring_run(ring, n, r);
	if (err)
		return err;
	if (r[0] == -EOPNOTSUPP)
		return -EOPNOTSUPP;
	for (unsigned int i = 0; i < n; i++) {
		if (r[i] < 0)
			res[i] = r[i];
		else if ((uint32_t)r[i] != pkts[i]->len)
			res[i] = -EIO;
	}
	return 0;
}
#endif

static int tap_tx(struct voff_port *port, struct voff_pkt **pkts,
		  unsigned int n, int *res)
{
#ifdef VOFF_HAVE_URING
	if (port->priv && n <= VOFF_BATCH_MAX) {
		int err = tx_ring(port, pkts, n, res);

		if (!err)
			return 0;
		ring_off(port);
		if (err != -EOPNOTSUPP) {
			for (unsigned int i = 0; i < n; i++)
				res[i] = err;
			return 0;
		}
	}
#endif
	tx_plain(port, pkts, n, res);
	return 0;
}

const struct voff_port_ops voff__port_tap_ops = {
	.kind = VOFF_PORT_TAP,
	.open = tap_open,
	.close = tap_close,
	.rx = tap_rx,
	.tx = tap_tx,
	.refresh = tap_refresh,
	.wait_fd = tap_wait_fd,
	.kernel_drops = tap_kernel_drops,
	.rx_ready = tap_rx_ready,
};

const struct voff_port_ops voff__port_tun_ops = {
	.kind = VOFF_PORT_TUN,
	.open = tun_open,
	.close = tap_close,
	.rx = tap_rx,
	.tx = tap_tx,
	.refresh = tap_refresh,
	.wait_fd = tap_wait_fd,
	.kernel_drops = tap_kernel_drops,
	.rx_ready = tap_rx_ready,
};
