/* SPDX-License-Identifier: MIT */
/*
 * port_vxlan.c - the VXLAN port (vxlan.h): frames in UDP datagrams over a
 * struct voff_udp, a MAC -> VTEP table, head-end replication, the overlay
 * MTU from the underlay's routes
 *
 * The switch's MAC table says which port a MAC is behind; for a VXLAN
 * port the port itself keeps the second level, which remote VTEP it is
 * behind, as the kernel's bridge over a vxlan device does (the bridge's
 * fdb names the device, the device's fdb the remote).  So the switch stays
 * kind-agnostic, and the port learns and floods on its own when an
 * application uses it without a switch.
 *
 * The table is an fdb.c table whose "port" is a slot of vtep[]: the
 * addresses learned entries point at, reclaimed when the slots run out.
 *
 * Source ports: with cfg.srcports the port also opens send-only sockets on
 * the local address, and each frame leaves from the one its inner flow
 * hashes to (vxlan_hash.c).  The datagrams of one call are described in
 * order, each marked with its socket, and grouped by socket when they are
 * sent, so each socket still gets its trains in one sendmmsg() call.
 *
 * Readiness: a received train may hold more datagrams than the caller's
 * batch has room for.  The rest stays queued here, so the port's
 * descriptor is an epoll set of the socket and an eventfd that is kept
 * readable while datagrams wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/feat.h>
#include <voff/gso.h>
#include <voff/limits.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/udp.h>
#include <voff/vxlan.h>

#include "netlink_int.h"
#include "parse_int.h"
#include "port_int.h"
#include "switch_int.h"

/* The I flag: the VNI is valid (RFC 7348 section 5). */
#define VX_FLAG_I 0x08
/* Distinct VTEP addresses the MAC table can point at. */
#define VX_VTEPS 256
/* Datagrams described before one flush to the socket. */
#define VX_TX_DGRAMS 1024
/* Header slots for the segments of those datagrams. */
#define VX_TX_SLOTS (VX_TX_DGRAMS * 128)
/* A read takes at most this share of the pool: see rx_share(). */
#define VX_POOL_SHARE 16
/* Destination of a run of datagrams: every remote. */
#define VX_FLOOD (-1)
#define VX_NONE (-2)

struct vx {
	struct voff_vxlan_cfg cfg;	/* cfg.remote is the flood list */
	struct voff_udp *u;
	int family;
	struct mnl_socket *nl;		/* MTU look-ups (the overlay MTU) */
	uint16_t dport;			/* port of learned VTEPs */
	int epfd, evfd;
	bool signalled;
	uint8_t hdr[VOFF_VXLAN_HLEN];	/* what every datagram starts with */
	struct voff__fdb fdb;
	union voff_udp_addr vtep[VX_VTEPS];
	bool vtep_used[VX_VTEPS];
	struct voff_vxlan_stats st;
	/* receive: datagrams read (packets of the caller's pool), the next */
	struct voff_batch rxq;
	union voff_udp_addr rx_from[VOFF_BATCH_MAX];
	unsigned int rx_head;
	int rx_slot;			/* VTEP slot of the train's source */
	/* transmit: datagrams described, to one destination */
	struct voff_sg sg[VX_TX_DGRAMS];
	struct iovec iov[VX_TX_DGRAMS * 3];
	unsigned int ndg;
	uint8_t *slots;
	size_t slots_used;
	int tx_dst;
	/* the send sockets (none: u sends), each datagram's, grouped views */
	struct voff_udp *src[VOFF_VXLAN_SRCPORTS_MAX];
	unsigned int nsrc;
	uint8_t tx_src;			/* the socket of the frame described */
	uint64_t hash_key[2];		/* the flow hash's, drawn at open */
	uint8_t dg_src[VX_TX_DGRAMS];
	struct voff_sg sg_src[VX_TX_DGRAMS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct vx *vx_of(const struct voff_port *port)
{
	if (!port || port->info.kind != VOFF_PORT_VXLAN)
		return NULL;
	return port->priv;
}

/* ---- addresses ----------------------------------------------------------- */

int voff_vxlan_addr_parse(union voff_udp_addr *out, const char *text)
{
	return voff_udp_addr_parse(out, text, VOFF_VXLAN_UDP_PORT);
}

static uint16_t addr_port(const union voff_udp_addr *a)
{
	return ntohs(a->sa.sa_family == AF_INET6 ? a->in6.sin6_port :
						   a->in4.sin_port);
}

static void addr_set_port(union voff_udp_addr *a, uint16_t port)
{
	if (a->sa.sa_family == AF_INET6)
		a->in6.sin6_port = htons(port);
	else if (a->sa.sa_family == AF_INET)
		a->in4.sin_port = htons(port);
}

/* @a with port 0 made 4789; Return: 0, or -EINVAL for the wrong family. */
static int vtep_norm(const struct vx *vx, const union voff_udp_addr *a,
		     union voff_udp_addr *out)
{
	if (!a || a->sa.sa_family != vx->family)
		return -EINVAL;
	*out = *a;
	if (!addr_port(out))
		addr_set_port(out, VOFF_VXLAN_UDP_PORT);
	return 0;
}

/* ---- the MAC -> VTEP table ------------------------------------------------ */

static void mark_used(void *arg, const uint8_t *mac, uint32_t slot,
		      uint16_t vlan, uint64_t age_ns, bool is_static)
{
	bool *used = arg;

	(void)mac;
	(void)vlan;
	(void)age_ns;
	(void)is_static;
	if (slot < VX_VTEPS)
		used[slot] = true;
}

/* The slot of VTEP @a, taken when new; Return: it, or -1 when all are used. */
static int vtep_slot(struct vx *vx, const union voff_udp_addr *a)
{
	int free_slot = -1;

	for (int i = 0; i < VX_VTEPS; i++) {
		if (vx->vtep_used[i] && voff_udp_addr_eq(&vx->vtep[i], a))
			return i;
		if (!vx->vtep_used[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0) {
		/* Reclaim the slots no live entry points at. */
		memset(vx->vtep_used, 0, sizeof(vx->vtep_used));
		voff__fdb_walk(&vx->fdb, now_ns(), mark_used, vx->vtep_used);
		if (vx->rx_slot >= 0)	/* the train being read */
			vx->vtep_used[vx->rx_slot] = true;
		for (int i = 0; i < VX_VTEPS && free_slot < 0; i++)
			if (!vx->vtep_used[i])
				free_slot = i;
		if (free_slot < 0)
			return -1;
	}
	vx->vtep_used[free_slot] = true;
	vx->vtep[free_slot] = *a;
	return free_slot;
}

/* Learn @mac behind VTEP slot @slot, counting what is new or moved. */
static void learn(struct vx *vx, const uint8_t *mac, int slot, uint64_t now)
{
	bool is_static = false;
	int prev;

	if (slot < 0 || (mac[0] & 1))
		return;
	prev = voff__fdb_get(&vx->fdb, mac, now, &is_static);
	if (prev == slot || is_static)
		return;
	voff__fdb_learn(&vx->fdb, mac, (uint32_t)slot, VOFF__FDB_NO_VLAN, now);
	vx->st.learned++;
}

/* ---- the overlay MTU ------------------------------------------------------ */

/*
 * The MTUs come from an rtnetlink socket made in the port's namespace at
 * open time.  Entering the namespace needs CAP_SYS_ADMIN, which `voff
 * switch --drop-caps` gives up before a remote may be added; a socket
 * stays in the namespace it was made in, and a look-up through it is a
 * sendto() and a recvmsg(), which the --seccomp filter allows, so every
 * later look-up needs neither privilege nor connect().
 */

/* The address bytes of @a (in network order). */
static const void *addr_bytes(const union voff_udp_addr *a)
{
	if (a->sa.sa_family == AF_INET6)
		return &a->in6.sin6_addr;
	return &a->in4.sin_addr;
}

/*
 * The MTU of the route to @to (its device's, or the route's own), 0 when
 * none is found: what IP_MTU/IPV6_MTU would read on a socket connected
 * to @to.
 */
static unsigned int route_mtu(struct vx *vx, const union voff_udp_addr *to)
{
	unsigned int mtu = 0;

	if (voff__netlink_route_mtu(vx->nl, to->sa.sa_family, addr_bytes(to),
				    &mtu))
		return 0;
	return mtu;
}

/* The MTU of the device that has address @a, 0 when none has it. */
static unsigned int local_mtu(struct vx *vx, const union voff_udp_addr *a)
{
	unsigned int mtu = 0;

	if (voff__netlink_addr_mtu(vx->nl, a->sa.sa_family, addr_bytes(a),
				   &mtu))
		return 0;
	return mtu;
}

/*
 * The port's limits from the underlay: the smallest route MTU towards the
 * remotes, else the local address's device MTU, else 1500; the overlay
 * MTU leaves room for the outer headers, and gso_max_segs keeps one
 * super-packet's datagrams within one train.
 */
static void update_limits(struct voff_port *port)
{
	struct vx *vx = port->priv;
	unsigned int under = 0, over, dgram, segs, train;

	for (unsigned int i = 0; i < vx->cfg.n_remote; i++) {
		unsigned int m = route_mtu(vx, &vx->cfg.remote[i]);

		if (m && (!under || m < under))
			under = m;
	}
	if (!under)
		under = local_mtu(vx, &vx->cfg.local);
	/*
	 * Nothing readable (no route, no device with the local address, or
	 * the namespace gone): keep what was.
	 */
	if (!under && port->info.limits.mtu)
		return;
	if (!under)
		under = 1500;
	over = vx->family == AF_INET6 ? VOFF_VXLAN_OVERHEAD6 :
					VOFF_VXLAN_OVERHEAD4;
	over = under > over + 68 ? under - over : 68;
	/* A full segment's datagram: VXLAN, inner Ethernet, inner packet. */
	dgram = VOFF_VXLAN_HLEN + 14 + over;
	train = vx->family == AF_INET6 ? 65473 : 65493;
	segs = train / dgram;
	if (segs > VOFF_UDP_MAX_SEGS)
		segs = VOFF_UDP_MAX_SEGS;
	port->info.limits.mtu = over;
	port->info.limits.gso_max_segs = segs ? segs : 1;
	port->gen++;
}

/* ---- open and close -------------------------------------------------------- */

static int cfg_family(const struct voff_vxlan_cfg *c)
{
	int fam = c->local.sa.sa_family;

	if (fam == AF_UNSPEC && c->n_remote)
		fam = c->remote[0].sa.sa_family;
	if (fam != AF_INET && fam != AF_INET6)
		return -EINVAL;
	for (unsigned int i = 0; i < c->n_remote; i++)
		if (c->remote[i].sa.sa_family != fam)
			return -EINVAL;
	if (c->udp_csum_zero && fam != AF_INET)
		return -EINVAL;
	if (c->srcports > VOFF_VXLAN_SRCPORTS_MAX ||
	    (c->srcport_min &&
	     (!c->srcports || c->srcport_min + c->srcports - 1 > UINT16_MAX)))
		return -EINVAL;
	return fam;
}

static void vx_free(struct vx *vx)
{
	if (vx->epfd >= 0)
		close(vx->epfd);
	if (vx->evfd >= 0)
		close(vx->evfd);
	voff__netlink_close(vx->nl);
	voff_udp_close(vx->u);
	for (unsigned int i = 0; i < vx->nsrc; i++)
		voff_udp_close(vx->src[i]);
	voff__fdb_fini(&vx->fdb);
	free(vx->slots);
	free(vx);
}

/* Open a socket of the port, sending as the configuration says. */
static int open_udp(struct vx *vx, struct voff_udp **u,
		    struct voff_udp_cfg *uc)
{
	int one = 1, err;

	uc->sndbuf = 4 << 20;
	uc->flags |= VOFF_UDP_F_NONBLOCK;
	if (vx->cfg.udp_csum_zero)
		uc->flags |= VOFF_UDP_F_NO_GSO; /* SO_NO_CHECK refuses trains */
	if (vx->cfg.udp_offload_off)
		uc->flags |= VOFF_UDP_F_SINGLE;
	err = voff_udp_open(u, uc);
	if (err)
		return err;
	if (vx->cfg.udp_csum_zero &&
	    setsockopt(voff_udp_fd(*u), SOL_SOCKET, SO_NO_CHECK, &one,
		       sizeof(one)))
		return -errno;
	return 0;
}

static int open_socket(struct vx *vx, const char *netns)
{
	struct voff_udp_cfg uc = {
		.netns = netns,
		.rcvbuf = 8 << 20,
		.rx_bufs = 1,	/* voff_udp_recv_each() uses the port's pool */
	};

	uc.local = vx->cfg.local;
	if (uc.local.sa.sa_family == AF_UNSPEC)
		uc.local.sa.sa_family = (sa_family_t)vx->family;
	if (!addr_port(&uc.local))
		addr_set_port(&uc.local, VOFF_VXLAN_UDP_PORT);
	vx->dport = addr_port(&uc.local);
	return open_udp(vx, &vx->u, &uc);
}

/*
 * The send-only sockets of cfg.srcports, on the local address: ports
 * srcport_min and up, or ephemeral ones the kernel picks.  Peers send to
 * the VXLAN port, the main socket; these take nothing in: a socket filter
 * that drops every datagram stands for their receive side, so a stray
 * datagram to one of their ports is dropped before it queues (and ICMP
 * errors are not reported to an unconnected socket).
 */
static int open_srcports(struct vx *vx, const char *netns)
{
	static struct sock_filter drop_all[] = {
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	static const struct sock_fprog prog = { .len = 1, .filter = drop_all };
	unsigned int n = vx->cfg.srcports;

	if (n <= 1 && !vx->cfg.srcport_min)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		struct voff_udp_cfg uc = {
			.netns = netns,
			.flags = VOFF_UDP_F_NO_GRO,
			.rx_bufs = 1,
			.rx_batch = 1,
		};
		int err;

		uc.local = vx->cfg.local;
		uc.local.sa.sa_family = (sa_family_t)vx->family;
		addr_set_port(&uc.local, vx->cfg.srcport_min ?
					 (uint16_t)(vx->cfg.srcport_min + i) :
					 0);
		err = open_udp(vx, &vx->src[i], &uc);
		if (vx->src[i])		/* opened, if not set up: closed by vx_free */
			vx->nsrc++;
		if (!err && setsockopt(voff_udp_fd(vx->src[i]), SOL_SOCKET,
				       SO_ATTACH_FILTER, &prog, sizeof(prog)))
			err = -errno;
		if (err)
			return err;
	}
	return 0;
}

static int open_poll(struct vx *vx)
{
	struct epoll_event ev = { .events = EPOLLIN };

	vx->epfd = epoll_create1(EPOLL_CLOEXEC);
	vx->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vx->epfd < 0 || vx->evfd < 0)
		return -errno;
	if (epoll_ctl(vx->epfd, EPOLL_CTL_ADD, voff_udp_fd(vx->u), &ev) ||
	    epoll_ctl(vx->epfd, EPOLL_CTL_ADD, vx->evfd, &ev))
		return -errno;
	return 0;
}

static int vx_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	const struct voff_vxlan_cfg *c = cfg->vxlan;
	struct vx *vx;
	int fam, err;

	if (!c || c->vni > VOFF_VXLAN_VNI_MAX ||
	    c->n_remote > VOFF_VXLAN_REMOTES_MAX)
		return -EINVAL;
	fam = cfg_family(c);
	if (fam < 0)
		return fam;
	vx = calloc(1, sizeof(*vx));
	if (!vx)
		return -ENOMEM;
	vx->cfg = *c;
	vx->family = fam;
	vx->epfd = vx->evfd = -1;
	vx->tx_dst = VX_NONE;
	vx->rx_slot = -1;
	voff__vxlan_hash_key(vx->hash_key);
	for (unsigned int i = 0; i < vx->cfg.n_remote; i++)
		vtep_norm(vx, &c->remote[i], &vx->cfg.remote[i]);
	vx->slots = malloc(VX_TX_SLOTS);
	err = vx->slots ? voff__fdb_init(&vx->fdb,
					 c->fdb_size ? c->fdb_size : 1024,
					 c->age_ns ? c->age_ns :
						     300000000000ull) :
			  -ENOMEM;
	if (!err)
		err = open_socket(vx, cfg->netns);
	if (!err)
		err = open_srcports(vx, cfg->netns);
	if (!err)
		err = voff__netlink_open(cfg->netns, &vx->nl);
	if (!err)
		err = open_poll(vx);
	if (err) {
		vx_free(vx);
		return err;
	}
	/* Flags: the I bit; reserved bits zero (RFC 7348). */
	vx->hdr[0] = VX_FLAG_I;
	vx->hdr[4] = (uint8_t)(c->vni >> 16);
	vx->hdr[5] = (uint8_t)(c->vni >> 8);
	vx->hdr[6] = (uint8_t)c->vni;
	port->priv = vx;
	port->fd = vx->epfd;
	/* A spec's NAME is the VNI: the port is vxlanVNI. */
	if (cfg->name && *cfg->name &&
	    cfg->name[strspn(cfg->name, "0123456789")])
		snprintf(port->info.name, sizeof(port->info.name), "%s",
			 cfg->name);
	else
		snprintf(port->info.name, sizeof(port->info.name), "vxlan%u",
			 c->vni);
	port->info.tx_off = VOFF_TUN_F_CSUM | VOFF_TUN_F_TSO4 |
			    VOFF_TUN_F_TSO6 | VOFF_TUN_F_TSO_ECN |
			    VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6;
	port->info.tx_max_len = VOFF_GSO_FRAME_LIMIT;
	update_limits(port);
	port->gen = 0;
	return 0;
}

static void vx_close(struct voff_port *port)
{
	struct vx *vx = port->priv;

	for (unsigned int i = vx->rx_head; i < vx->rxq.n; i++)
		voff_pkt_free(vx->rxq.pkts[i]);
	vx_free(vx);
}

/*
 * Unbind socket @fd: an unbound datagram socket takes its descriptor in
 * place (the bound one closes, its address and port free), so whatever
 * holds @fd (a struct voff_udp with its counters) stays as it is.
 */
static int unbind(int fd, int family)
{
	int s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	if (s < 0)
		return -errno;
	if (dup3(s, fd, O_CLOEXEC) < 0)
		err = -errno;
	close(s);
	return err;
}

/*
 * Release (port_int.h): a new port on the same local address and ports
 * binds them, so the receive socket and the send sockets give them up;
 * the tables, remotes and counters stay.  The netlink socket the route
 * MTUs are read through holds nothing a new port needs and stays.
 */
static int vx_release(struct voff_port *port)
{
	struct vx *vx = port->priv;
	int err = unbind(voff_udp_fd(vx->u), vx->family);

	for (unsigned int i = 0; !err && i < vx->nsrc; i++)
		err = unbind(voff_udp_fd(vx->src[i]), vx->family);
	return err;
}

/*
 * What a send may carry: checksums and TCP/UDP super-packets, which the
 * port segments itself; limits as set by update_limits().
 */
static void vx_egress(const struct voff_port *port, struct voff_feat_dev *dev,
		      struct voff_limits *lim)
{
	uint64_t f = voff__port_egress_features(port->info.tx_off);

	(void)lim;
	dev->hw = f;
	dev->wanted = f;
	dev->active = f;
	dev->vlan = f;
	dev->enc = f;
}

/* ---- receive --------------------------------------------------------------- */

/*
 * Keep the eventfd readable exactly while datagrams wait here or in the
 * socket (voff_udp_held()).
 */
static void set_pending(struct vx *vx)
{
	bool pending = vx->rx_head < vx->rxq.n || voff_udp_held(vx->u);
	uint64_t v = 1;

	if (pending && !vx->signalled)
		vx->signalled = write(vx->evfd, &v, sizeof(v)) == sizeof(v);
	else if (!pending && vx->signalled)
		vx->signalled = read(vx->evfd, &v, sizeof(v)) != sizeof(v);
}

/*
 * Check one datagram (RFC 7348 section 5): the I flag set, our VNI, a
 * whole inner Ethernet header.  Reserved flag bits and fields must be
 * zero: the kernel's vxlan drops a header with any of them set unless an
 * extension (GBP, GPE, remote checksum offload) claims them, and voff has
 * none, so it drops them too rather than ignore them as RFC 7348 asks of
 * receivers.  Return: 0 or the drop reason.
 */
static int vx_check(struct vx *vx, const uint8_t *d, uint32_t len)
{
	uint32_t vni;

	if (len < VOFF_VXLAN_HLEN)
		return VOFF_E_TRUNC_VXLAN;
	if (!(d[0] & VX_FLAG_I))
		return VOFF_E_VXLAN_FLAGS;
	vni = (uint32_t)d[4] << 16 | (uint32_t)d[5] << 8 | d[6];
	if (vni != vx->cfg.vni)
		return VOFF_E_VXLAN_VNI;
	if ((d[0] & ~VX_FLAG_I) || d[1] || d[2] || d[3] || d[7])
		return VOFF_E_VXLAN_RESERVED;
	if (len - VOFF_VXLAN_HLEN < 14)
		return VOFF_E_VXLAN_RUNT;
	return 0;
}

/*
 * The VTEP a train came from: a listed remote with its source address and
 * port, else one with its address, else the address with our VXLAN port
 * (senders such as the kernel's vxlan pick their source port per flow,
 * and listen on the VXLAN port).
 */
static int train_slot(struct vx *vx, unsigned int i)
{
	union voff_udp_addr a = vx->rx_from[i];
	int by_addr = -1;

	for (unsigned int r = 0; r < vx->cfg.n_remote; r++) {
		union voff_udp_addr b = vx->cfg.remote[r];

		if (voff_udp_addr_eq(&a, &b))
			return vtep_slot(vx, &b);
		addr_set_port(&b, addr_port(&a));
		if (by_addr < 0 && voff_udp_addr_eq(&a, &b))
			by_addr = (int)r;
	}
	if (by_addr >= 0)
		return vtep_slot(vx, &vx->cfg.remote[by_addr]);
	addr_set_port(&a, vx->dport);
	return vtep_slot(vx, &a);
}

/*
 * Where the L4 segment of frame @f lies and its pseudo-header sum, for a
 * TCP or UDP (checksum nonzero) segment of IPv4 without fragmentation or
 * IPv6 without extension headers, its length within the frame.
 * Return: true when found.
 */
static bool l4_span(const uint8_t *f, uint32_t len, uint32_t *off,
		    uint32_t *l4_len, uint32_t *sum)
{
	const uint8_t *ip = f + 14;
	uint32_t hl, n;
	uint8_t proto;

	if (len < 14 + 40)
		return false;
	if (voff__rd16(f + 12) == 0x0800 && ip[0] >> 4 == 4) {
		hl = (ip[0] & 15u) * 4;
		n = voff__rd16(ip + 2);
		proto = ip[9];
		if (hl < 20 || n < hl || 14 + n > len ||
		    (voff__rd16(ip + 6) & 0x3FFF))
			return false;
		n -= hl;
		*sum = voff_csum_pseudo_v4(ip + 12, ip + 16, proto, n);
	} else if (voff__rd16(f + 12) == 0x86DD && ip[0] >> 4 == 6) {
		hl = 40;
		n = voff__rd16(ip + 4);
		proto = ip[6];
		if (14 + 40 + n > len)
			return false;
		*sum = voff_csum_pseudo_v6(ip + 8, ip + 24, proto, n);
	} else {
		return false;
	}
	*off = 14 + hl;
	*l4_len = n;
	if (proto == 6)
		return n >= 20;
	/* UDP: a zero checksum is none; leave a length mismatch to the stack. */
	return proto == 17 && n >= 8 && voff__rd16(f + *off + 4) == n &&
	       voff__rd16(f + *off + 6) != 0;
}

bool voff__vxlan_verify(const uint8_t *f, uint32_t len)
{
	uint32_t off, n, sum;

	if (!l4_span(f, len, &off, &n, &sum))
		return false;
	return voff_csum_fold(voff_csum(f + off, n, sum)) == 0;
}

/*
 * Decapsulate datagram packet @pkt into @b, or drop it: it is consumed.
 * The datagram already has a packet of its own (voff_udp_recv_each()), so
 * decapsulating is pulling the VXLAN header off, with no copy.
 */
static void rx_one(struct voff_port *port, struct voff_pkt *pkt,
		   struct voff_batch *b, uint64_t now)
{
	struct vx *vx = port->priv;
	int err = vx_check(vx, voff_pkt_data(pkt), pkt->len);
	uint8_t *f;

	vx->st.rx_datagrams++;
	if (err) {
		voff__port_count_drop(port, VOFF_PORT_RX, err);
		voff_pkt_free(pkt);
		return;
	}
	f = voff_pkt_pull(pkt, VOFF_VXLAN_HLEN);
	/*
	 * A read-only pass verifies the inner checksum, so GRO need not read
	 * the frame again: a frame it proves good is marked so; any other
	 * keeps no checksum state and is checked downstream as before (a bad
	 * one never leaves as verified).
	 */
	if (voff__vxlan_verify(f, pkt->len))
		pkt->csum = VOFF_CSUM_VALID;
	learn(vx, f + 6, vx->rx_slot, now);
	voff__port_rx_accept(port, pkt, b, 0, 0);
}

/*
 * The VTEP slot of queued datagram @i's source, worked out once per source
 * of a read (rx_slot is -1 at its first datagram).
 */
static void rx_source(struct vx *vx, unsigned int i)
{
	if (vx->rx_slot >= 0 &&
	    voff_udp_addr_eq(&vx->rx_from[i], &vx->rx_from[i - 1]))
		return;
	vx->rx_slot = train_slot(vx, i);
}

/*
 * Datagrams one read may take from @pool: a sixteenth of it (the share a
 * TAP keeps posted, port_tap.c), at least one, at most a batch: what the
 * port holds between calls, so that a small pool_size cannot be drained
 * by one port.  The switch's default 1024 packets leave a whole batch.
 */
static unsigned int rx_share(const struct voff_pool *pool)
{
	unsigned int n = voff_pool_capacity(pool) / VX_POOL_SHARE;

	return n < 1 ? 1 : n > VOFF_BATCH_MAX ? VOFF_BATCH_MAX : n;
}

static int vx_rx(struct voff_port *port, struct voff_pool *pool,
		 struct voff_batch *b)
{
	struct vx *vx = port->priv;
	uint64_t now = now_ns();
	unsigned int before = b->n;
	int n;

	while (voff_batch_space(b)) {
		if (vx->rx_head == vx->rxq.n) {
			/*
			 * The queue is filled from its tail: the slots before
			 * rx_head stay unused, so the read appends at most
			 * rx_share() datagrams (the rest waits in the socket,
			 * voff_udp_held()).
			 */
			vx->rxq.n = VOFF_BATCH_MAX - rx_share(pool);
			vx->rx_head = vx->rxq.n;
			vx->rx_slot = -1;
			n = voff_udp_recv_each(vx->u, pool, &vx->rxq,
					       vx->rx_from);
			if (n <= 0) {
				set_pending(vx);
				if (n < 0 && b->n == before)
					return n;
				break;
			}
		}
		rx_source(vx, vx->rx_head);
		rx_one(port, vx->rxq.pkts[vx->rx_head], b, now);
		vx->rx_head++;
	}
	set_pending(vx);
	return (int)(b->n - before);
}

/* ---- transmit -------------------------------------------------------------- */

/*
 * Group the datagrams described by send socket, in order within each:
 * socket k's are sg_src[first[k] .. first[k + 1]).  Return: the one
 * socket all of them use (then sg[] is left as it is), or -1.
 */
static int tx_group(struct vx *vx, unsigned int *first)
{
	unsigned int at[VOFF_VXLAN_SRCPORTS_MAX];

	memset(first, 0, (vx->nsrc + 1) * sizeof(*first));
	for (unsigned int i = 0; i < vx->ndg; i++)
		first[vx->dg_src[i] + 1]++;
	for (unsigned int k = 0; k < vx->nsrc; k++) {
		if (first[k + 1] == vx->ndg)
			return (int)k;
		first[k + 1] += first[k];
		at[k] = first[k];
	}
	for (unsigned int i = 0; i < vx->ndg; i++)
		vx->sg_src[at[vx->dg_src[i]]++] = vx->sg[i];
	return -1;
}

/* Send the datagrams described to @to: per send socket, grouped. */
static void tx_send(struct vx *vx, const union voff_udp_addr *to,
		    int one, const unsigned int *first)
{
	if (!vx->nsrc)
		voff_udp_send_sg(vx->u, vx->sg, vx->ndg, to);
	else if (one >= 0)
		voff_udp_send_sg(vx->src[one], vx->sg, vx->ndg, to);
	for (unsigned int k = 0; one < 0 && k < vx->nsrc; k++)
		if (first[k + 1] > first[k])
			voff_udp_send_sg(vx->src[k], &vx->sg_src[first[k]],
					 first[k + 1] - first[k], to);
	vx->st.tx_datagrams += vx->ndg;
}

/* Send what is described to its destination: one remote, or all of them. */
static void tx_flush(struct vx *vx)
{
	unsigned int first[VOFF_VXLAN_SRCPORTS_MAX + 1];
	int one = 0;

	if (!vx->ndg)
		return;
	if (vx->nsrc)
		one = tx_group(vx, first);
	if (vx->tx_dst == VX_FLOOD) {
		for (unsigned int r = 0; r < vx->cfg.n_remote; r++)
			tx_send(vx, &vx->cfg.remote[r], one, first);
	} else if (vx->tx_dst >= 0) {
		tx_send(vx, &vx->vtep[vx->tx_dst], one, first);
	}
	vx->ndg = 0;
	vx->slots_used = 0;
}

/* Where @pkt goes: a VTEP slot, or VX_FLOOD. */
static int tx_dest(struct vx *vx, const struct voff_pkt *pkt, uint64_t now)
{
	const uint8_t *d = voff_pkt_data(pkt);
	int slot;

	if (d[0] & 1)
		return VX_FLOOD;
	slot = voff__fdb_lookup(&vx->fdb, d, now);
	return slot >= 0 && slot < VX_VTEPS && vx->vtep_used[slot] ? slot :
								      VX_FLOOD;
}

/* Put the VXLAN header in front of the @n views from sg[ndg]. */
static void tx_wrap(struct vx *vx, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct voff_sg *sg = &vx->sg[vx->ndg + i];

		sg->iov--;	/* the entry kept free before the segment's */
		sg->iov[0].iov_base = vx->hdr;
		sg->iov[0].iov_len = VOFF_VXLAN_HLEN;
		sg->n++;
		sg->cap++;
		sg->len += VOFF_VXLAN_HLEN;
		vx->dg_src[vx->ndg + i] = vx->tx_src;
	}
	vx->ndg += n;
}

/*
 * Describe @pkt as datagrams: a super-packet cut by GSO (full checksums,
 * payload not copied), a frame with a partial checksum completed.
 * Return: 0 or the reason it is dropped.
 */
static int tx_describe(struct vx *vx, struct voff_pkt *pkt)
{
	static const struct voff_gso_opts full = {
		.csum_mode = VOFF_GSO_CSUM_FULL
	};
	struct voff_gso_info info;
	size_t slot;
	int n;

	if (!voff_pkt_is_gso(pkt)) {
		if (pkt->csum == VOFF_CSUM_PARTIAL &&
		    (n = voff_pkt_csum_complete(pkt)) != 0)
			return n;
		if (vx->ndg == VX_TX_DGRAMS)
			tx_flush(vx);
		voff_sg_init(&vx->sg[vx->ndg], &vx->iov[3 * vx->ndg + 1], 2);
		voff_sg_add_pkt(&vx->sg[vx->ndg], pkt, 0, pkt->len);
		tx_wrap(vx, 1);
		return 0;
	}
	if (pkt->l4_off == VOFF_OFF_NONE &&
	    (n = voff_pkt_parse(pkt, VOFF_PARSE_ETH, NULL)) != 0)
		return n;
	n = voff_gso_count(pkt, &full, &info);
	if (n)
		return n;
	slot = ((size_t)info.hdr_len + 7) & ~(size_t)7;
	if (info.segs > VX_TX_DGRAMS || info.segs * slot > VX_TX_SLOTS)
		return -EMSGSIZE;
	if (vx->ndg + info.segs > VX_TX_DGRAMS ||
	    vx->slots_used + info.segs * slot > VX_TX_SLOTS)
		tx_flush(vx);
	for (unsigned int i = 0; i < info.segs; i++)
		voff_sg_init(&vx->sg[vx->ndg + i],
			     &vx->iov[3 * (vx->ndg + i) + 1], 2);
	n = voff_gso_segment_sg(pkt, &full, vx->slots + vx->slots_used, slot,
				&vx->sg[vx->ndg], info.segs, NULL);
	if (n < 0)
		return n;
	vx->slots_used += info.segs * slot;
	tx_wrap(vx, (unsigned int)n);
	return 0;
}

static int vx_tx(struct voff_port *port, struct voff_pkt **pkts,
		 unsigned int n, int *res)
{
	struct vx *vx = port->priv;
	uint64_t now = now_ns();

	vx->ndg = 0;
	vx->slots_used = 0;
	vx->tx_dst = VX_NONE;
	for (unsigned int i = 0; i < n; i++) {
		int dst = tx_dest(vx, pkts[i], now);

		if (dst == VX_FLOOD && !vx->cfg.n_remote) {
			vx->st.tx_no_remote++;
			res[i] = VOFF_E_VXLAN_NO_REMOTE;
			continue;
		}
		if (dst != vx->tx_dst)
			tx_flush(vx);
		vx->tx_dst = dst;
		if (vx->nsrc)
			vx->tx_src = (uint8_t)voff__vxlan_srcport_pick(
				voff__vxlan_flow_hash(pkts[i], vx->hash_key),
				vx->nsrc);
		res[i] = tx_describe(vx, pkts[i]);
		if (res[i])
			continue;
		if (dst == VX_FLOOD)
			vx->st.tx_flooded++;
		else
			vx->st.tx_unicast++;
	}
	tx_flush(vx);
	return 0;
}

const struct voff_port_ops voff__port_vxlan_ops = {
	.kind = VOFF_PORT_VXLAN,
	.open = vx_open,
	.close = vx_close,
	.rx = vx_rx,
	.tx = vx_tx,
	.egress = vx_egress,
	.release = vx_release,
};

/* ---- remotes and the table, at run time ------------------------------------ */

int voff_port_vxlan_remote_add(struct voff_port *port,
			       const union voff_udp_addr *addr)
{
	struct vx *vx = vx_of(port);
	union voff_udp_addr a;

	if (!vx || vtep_norm(vx, addr, &a))
		return -EINVAL;
	for (unsigned int i = 0; i < vx->cfg.n_remote; i++)
		if (voff_udp_addr_eq(&vx->cfg.remote[i], &a))
			return -EEXIST;
	if (vx->cfg.n_remote == VOFF_VXLAN_REMOTES_MAX)
		return -ENOSPC;
	vx->cfg.remote[vx->cfg.n_remote++] = a;
	update_limits(port);
	return 0;
}

int voff_port_vxlan_remote_del(struct voff_port *port,
			       const union voff_udp_addr *addr)
{
	struct vx *vx = vx_of(port);
	union voff_udp_addr a;
	unsigned int i;

	if (!vx || vtep_norm(vx, addr, &a))
		return -EINVAL;
	for (i = 0; i < vx->cfg.n_remote; i++)
		if (voff_udp_addr_eq(&vx->cfg.remote[i], &a))
			break;
	if (i == vx->cfg.n_remote)
		return -ENOENT;
	memmove(&vx->cfg.remote[i], &vx->cfg.remote[i + 1],
		(vx->cfg.n_remote - i - 1) * sizeof(a));
	vx->cfg.n_remote--;
	for (int s = 0; s < VX_VTEPS; s++) {
		if (vx->vtep_used[s] && voff_udp_addr_eq(&vx->vtep[s], &a)) {
			voff__fdb_flush_port(&vx->fdb, (uint32_t)s);
			vx->vtep_used[s] = false;
		}
	}
	update_limits(port);
	return 0;
}

unsigned int voff_port_vxlan_remotes(const struct voff_port *port,
				     union voff_udp_addr *out,
				     unsigned int cap)
{
	const struct vx *vx = vx_of(port);

	if (!vx)
		return 0;
	for (unsigned int i = 0; i < vx->cfg.n_remote && i < cap; i++)
		out[i] = vx->cfg.remote[i];
	return vx->cfg.n_remote;
}

int voff_port_vxlan_fdb_add(struct voff_port *port, const uint8_t *mac,
			    const union voff_udp_addr *addr)
{
	struct vx *vx = vx_of(port);
	union voff_udp_addr a;
	int slot;

	if (!vx || !mac || (mac[0] & 1) || vtep_norm(vx, addr, &a))
		return -EINVAL;
	slot = vtep_slot(vx, &a);
	if (slot < 0)
		return -ENOSPC;
	return voff__fdb_add_static(&vx->fdb, mac, (uint32_t)slot,
				    VOFF__FDB_NO_VLAN, now_ns());
}

int voff_port_vxlan_fdb_del(struct voff_port *port, const uint8_t *mac)
{
	struct vx *vx = vx_of(port);

	if (!vx || !mac)
		return -EINVAL;
	return voff__fdb_del(&vx->fdb, mac, now_ns());
}

int voff_port_vxlan_fdb_lookup(const struct voff_port *port,
			       const uint8_t *mac, union voff_udp_addr *addr,
			       bool *is_static)
{
	const struct vx *vx = vx_of(port);
	int slot;

	if (!vx || !mac || !addr)
		return -EINVAL;
	slot = voff__fdb_get(&vx->fdb, mac, now_ns(), is_static);
	if (slot < 0 || slot >= VX_VTEPS || !vx->vtep_used[slot])
		return -ENOENT;
	*addr = vx->vtep[slot];
	return 0;
}

int voff__port_vxlan_hash_key(struct voff_port *port, const uint64_t key[2])
{
	struct vx *vx = vx_of(port);

	if (!vx || !key)
		return -EINVAL;
	vx->hash_key[0] = key[0];
	vx->hash_key[1] = key[1];
	return 0;
}

unsigned int voff_port_vxlan_srcports(const struct voff_port *port,
				      uint16_t *out, unsigned int cap)
{
	const struct vx *vx = vx_of(port);
	struct voff_udp_info info;

	if (!vx)
		return 0;
	if (!vx->nsrc) {
		if (cap)
			out[0] = vx->dport;
		return 1;
	}
	for (unsigned int i = 0; i < vx->nsrc && i < cap; i++) {
		voff_udp_info(vx->src[i], &info);
		out[i] = addr_port(&info.local);
	}
	return vx->nsrc;
}

/* Add @s to @sum; a probe's fallback flag stays a flag. */
static void udp_stats_add(struct voff_udp_stats *sum,
			  const struct voff_udp_stats *s)
{
#define UDP_ADD(f, doc) sum->f += s->f;
	VOFF_UDP_STATS_MAP(UDP_ADD)
#undef UDP_ADD
	sum->fallback_gso_probe = sum->fallback_gso_probe != 0;
	sum->fallback_gro_probe = sum->fallback_gro_probe != 0;
}

int voff_port_vxlan_stats(const struct voff_port *port,
			  struct voff_vxlan_stats *st,
			  struct voff_udp_stats *udp)
{
	const struct vx *vx = vx_of(port);
	struct voff_udp_stats s;

	if (!vx)
		return -EINVAL;
	if (st)
		*st = vx->st;
	if (!udp)
		return 0;
	voff_udp_stats(vx->u, udp);
	for (unsigned int i = 0; i < vx->nsrc; i++) {
		voff_udp_stats(vx->src[i], &s);
		udp_stats_add(udp, &s);
	}
	return 0;
}
