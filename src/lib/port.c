/* SPDX-License-Identifier: MIT */
/*
 * port.c - the port front end: backend dispatch, the transmit contract,
 * receive validation, counters, and the single call sites for the
 * virtio_net_hdr codec and the offload <-> TUN flag mapping
 *
 * Backends (port_mem.c, port_pcap.c, port_tap.c, port_packet.c) only move
 * frames; everything a port promises its caller is checked here, once.
 *
 * Frames cross with a virtio_net_hdr encoded and validated by vnet.h
 * (one call site each way: voff__port_vnet_pull/push), and offload sets
 * follow feat.h's model of TUNSETOFFLOAD (one call site: rules_accept()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/err.h>
#include <voff/feat.h>
#include <voff/limits.h>
#include <voff/netlink.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/port.h>
#include <voff/vnet.h>

#include "port_int.h"

static const struct voff_port_ops *const backends[VOFF_PORT__KIND_COUNT] = {
	[VOFF_PORT_MEM] = &voff__port_mem_ops,
	[VOFF_PORT_PCAP] = &voff__port_pcap_ops,
	[VOFF_PORT_TAP] = &voff__port_tap_ops,
	[VOFF_PORT_TUN] = &voff__port_tun_ops,
	[VOFF_PORT_PACKET] = &voff__port_packet_ops,
	[VOFF_PORT_VHOST] = &voff__port_vhost_ops,
	[VOFF_PORT_VXLAN] = &voff__port_vxlan_ops,
};

static const char *const kind_names[VOFF_PORT__KIND_COUNT] = {
	[VOFF_PORT_MEM] = "mem",       [VOFF_PORT_PCAP] = "pcap",
	[VOFF_PORT_TAP] = "tap",       [VOFF_PORT_TUN] = "tun",
	[VOFF_PORT_PACKET] = "packet", [VOFF_PORT_VHOST] = "vhost-user",
	[VOFF_PORT_VXLAN] = "vxlan",
};

const char *voff_port_kind_name(enum voff_port_kind kind)
{
	if ((unsigned int)kind >= VOFF_PORT__KIND_COUNT)
		return "?";
	return kind_names[kind];
}

/* ---- life cycle ---------------------------------------------------------- */

static int port_alloc(struct voff_port **out, const struct voff_port_ops *ops,
		      const struct voff_port_cfg *cfg)
{
	struct voff_port *port = calloc(1, sizeof(*port));

	if (!port)
		return -ENOMEM;
	port->ops = ops;
	port->fd = -1;
	port->info.kind = ops->kind;
	port->info.want = cfg->want & VOFF_TUN_F_ALL;
	port->info.flags = cfg->flags;
	if (cfg->netns) {
		snprintf(port->netns, sizeof(port->netns), "%s", cfg->netns);
		memcpy(port->info.netns, port->netns, sizeof(port->netns));
	}
	*out = port;
	return 0;
}

static int cfg_check(const struct voff_port_cfg *cfg)
{
	if (!cfg || (unsigned int)cfg->kind >= VOFF_PORT__KIND_COUNT)
		return -EINVAL;
	switch (cfg->vnet_hdr_len) {
	case 0: case 10: case 12: case 20: case 24:
		break;
	default:
		return -EINVAL;
	}
	if (cfg->queues > 1)
		return -EINVAL;
	if (cfg->want & ~VOFF_TUN_F_ALL || cfg->tx_off & ~VOFF_TUN_F_ALL)
		return -EINVAL;
	if (cfg->netns && (strlen(cfg->netns) >= 64 || strchr(cfg->netns, '/')))
		return -EINVAL;
	return 0;
}

int voff_port_open(struct voff_port **out, const struct voff_port_cfg *cfg)
{
	struct voff_port *port;
	int err;

	err = cfg_check(cfg);
	if (err)
		return err;
	if (!out || cfg->kind == VOFF_PORT_MEM)
		return -EINVAL;
	err = port_alloc(&port, backends[cfg->kind], cfg);
	if (err)
		return err;
	err = port->ops->open(port, cfg);
	if (err) {
		free(port);
		return err;
	}
	voff__port_vnet_init(port);
	*out = port;
	return 0;
}

/*
 * The memory backend opens its two ends through the same ops table; the
 * second end's open finds the first in ->priv and joins its pair.
 */
int voff_port_mem_pair(struct voff_port **a, struct voff_port **b,
		       const struct voff_port_cfg *cfg)
{
	struct voff_port *pa, *pb;
	struct voff_port_cfg c;
	int err;

	err = cfg_check(cfg);
	if (err || !a || !b)
		return err ? err : -EINVAL;
	c = *cfg;
	c.kind = VOFF_PORT_MEM;
	err = port_alloc(&pa, &voff__port_mem_ops, &c);
	if (err)
		return err;
	err = port_alloc(&pb, &voff__port_mem_ops, &c);
	if (err)
		goto err_pb;
	err = voff__port_mem_ops.open(pa, &c);
	if (err)
		goto err_open_a;
	pb->priv = pa;	/* tells open to join pa's pair */
	err = voff__port_mem_ops.open(pb, &c);
	if (err)
		goto err_open_b;
	voff__port_vnet_init(pa);
	voff__port_vnet_init(pb);
	*a = pa;
	*b = pb;
	return 0;

err_open_b:
	voff__port_mem_ops.close(pa);
err_open_a:
	free(pb);
err_pb:
	free(pa);
	return err;
}

void voff_port_close(struct voff_port *port)
{
	if (!port)
		return;
	port->ops->close(port);
	free(port);
}

/* ---- counters ------------------------------------------------------------ */

static unsigned int drop_slot(int err)
{
	if (err < 0 && -err < PORT_ERRNO_SLOTS)
		return (unsigned int)-err;
	if (voff_err_is_voff(err))
		return PORT_ERRNO_SLOTS + (unsigned int)(-err - VOFF_E_BASE);
	return 0;
}

static int slot_err(unsigned int slot)
{
	if (slot == 0)
		return -VOFF_E_BASE; /* the catch-all: named "unknown" */
	if (slot < PORT_ERRNO_SLOTS)
		return -(int)slot;
	return -(int)(slot - PORT_ERRNO_SLOTS) - VOFF_E_BASE;
}

void voff__port_count_drop(struct voff_port *port, enum voff_port_dir dir,
			   int err)
{
	port->drops[dir][drop_slot(err)]++;
	if (dir == VOFF_PORT_RX)
		port->stats.rx_dropped++;
	else
		port->stats.tx_dropped++;
}

void voff_port_stats(const struct voff_port *port,
		     struct voff_port_stats *out)
{
	*out = port->stats;
	if (port->ops->kernel_drops)
		out->rx_kernel_dropped = port->ops->kernel_drops(port);
}

void voff_port_info(const struct voff_port *port, struct voff_port_info *out)
{
	*out = port->info;
}

int voff_port_fd(const struct voff_port *port)
{
	return port->ops->wait_fd ? port->ops->wait_fd(port) : port->fd;
}

bool voff__port_rx_ready(const struct voff_port *port)
{
	return port->ops->rx_ready && port->ops->rx_ready(port);
}

unsigned int voff_port_drops(const struct voff_port *port,
			     enum voff_port_dir dir,
			     struct voff_port_drop *out, unsigned int cap)
{
	unsigned int n = 0;

	if ((unsigned int)dir > VOFF_PORT_TX)
		return 0;
	for (unsigned int s = 0; s < PORT_DROP_SLOTS; s++) {
		if (!port->drops[dir][s])
			continue;
		if (n < cap) {
			out[n].err = slot_err(s);
			out[n].name = s ? voff_err_name(out[n].err)
					: "unknown";
			out[n].count = port->drops[dir][s];
		}
		n++;
	}
	return n;
}

uint64_t voff_port_drop_count(const struct voff_port *port,
			      enum voff_port_dir dir, int err)
{
	unsigned int s = drop_slot(err);

	if ((unsigned int)dir > VOFF_PORT_TX || (s == 0 && err != -VOFF_E_BASE))
		return 0;
	return port->drops[dir][s];
}

int voff_port_refresh_limits(struct voff_port *port)
{
	return port->ops->refresh ? port->ops->refresh(port) : 0;
}

/* Set @from's non-zero, settable values in @to. */
static void limits_merge(struct voff_limits *to,
			 const struct voff_limits *from)
{
	if (from->mtu)
		to->mtu = from->mtu;
	if (from->gso_max_size)
		to->gso_max_size = from->gso_max_size;
	if (from->gso_max_segs)
		to->gso_max_segs = from->gso_max_segs;
	if (from->gro_max_size)
		to->gro_max_size = from->gro_max_size;
	if (from->gso_ipv4_max_size)
		to->gso_ipv4_max_size = from->gso_ipv4_max_size;
	if (from->gro_ipv4_max_size)
		to->gro_ipv4_max_size = from->gro_ipv4_max_size;
}

int voff_port_set_limits(struct voff_port *port,
			 const struct voff_limits *lim)
{
	int err;

	if (!lim)
		return -EINVAL;
	if (!port->ops->refresh) {
		limits_merge(&port->info.limits, lim);
		if (lim->gso_max_size)
			port->info.tx_max_len = lim->gso_max_size;
		return 0;
	}
	err = voff_netlink_set_limits(port->netns, port->info.name, lim);
	return err ? err : port->ops->refresh(port);
}

/* ---- the port as an egress ----------------------------------------------- */

uint64_t voff__port_egress_features(unsigned int off)
{
	const unsigned int uso = VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6;
	uint64_t f = VOFF_F_SG | VOFF_F_HIGHDMA;

	if (!off)
		return f;
	f |= VOFF_F_GSO_ROBUST;
	if (off & VOFF_TUN_F_CSUM)
		f |= VOFF_F_HW_CSUM;
	if (off & VOFF_TUN_F_TSO4)
		f |= VOFF_F_TSO;
	if (off & VOFF_TUN_F_TSO6)
		f |= VOFF_F_TSO6;
	if (off & VOFF_TUN_F_TSO_ECN)
		f |= VOFF_F_TSO_ECN;
	if ((off & uso) == uso)
		f |= VOFF_F_GSO_UDP_L4;
	if (off & VOFF_TUN_F_UDP_TUNNEL_GSO)
		f |= VOFF_F_GSO_UDP_TUNNEL;
	if (off & VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM)
		f |= VOFF_F_GSO_UDP_TUNNEL_CSUM;
	return voff_feat_fix(f, 0);
}

void voff_port_egress(const struct voff_port *port,
		      struct voff_feat_dev *dev, struct voff_limits *lim)
{
	uint64_t f = voff__port_egress_features(port->info.vnet_hdr_len ?
					     port->info.tx_off : 0);

	dev->hw = f;
	dev->wanted = f;
	dev->active = f;
	dev->vlan = f;
	dev->enc = f;
	dev->gso_partial = 0;
	voff_limits_init(lim);
	if (port->ops->refresh) {
		if (port->info.limits.mtu)
			lim->mtu = port->info.limits.mtu;
	} else {
		/* Configured values over the defaults; 0 was "no limit". */
		limits_merge(lim, &port->info.limits);
		if (lim->gso_max_size < lim->gso_ipv4_max_size ||
		    !port->info.limits.gso_ipv4_max_size)
			lim->gso_ipv4_max_size = lim->gso_max_size;
	}
	if (port->ops->egress)
		port->ops->egress(port, dev, lim);
}

/* ---- receive ------------------------------------------------------------- */

int voff_port_rx(struct voff_port *port, struct voff_pool *pool,
		 struct voff_batch *b)
{
	if (!voff_batch_space(b))
		return 0;
	return port->ops->rx(port, pool, b);
}

/*
 * Put a VLAN tag back between the Ethernet addresses and the type: push
 * moves every offset, csum_start and hdr_len by the tag's 4 bytes, as the
 * headers after the addresses really move.
 */
static int vlan_insert(struct voff_pkt *pkt, uint16_t tpid, uint16_t tci)
{
	uint8_t *d;

	if (pkt->len < 14)
		return VOFF_E_PORT_SHORT;
	d = voff_pkt_push(pkt, 4);
	if (!d)
		return VOFF_E_NO_HEADROOM;
	memmove(d, d + 4, 12);
	d[12] = (uint8_t)(tpid >> 8);
	d[13] = (uint8_t)tpid;
	d[14] = (uint8_t)(tci >> 8);
	d[15] = (uint8_t)tci;
	return 0;
}

_Static_assert(VOFF_BATCH_MAX <= 64, "rx_parsed_ok has a bit per slot");

void voff__port_rx_keep_parses(struct voff_port *port,
			       struct voff_parsed *room)
{
	port->rx_parsed = room;
	port->rx_parsed_ok = 0;
}

/*
 * Decode and strip the header, leaving the validator's parse at the
 * slot @pkt will take when the caller keeps them.  Return: as
 * voff__port_vnet_pull(); @*parsed whether the slot's parse is valid.
 */
static int vnet_pull_keep(struct voff_port *port, struct voff_pkt *pkt,
			  unsigned int slot, bool *parsed)
{
	int rc;

	if (!port->rx_parsed || slot >= VOFF_BATCH_MAX)
		return voff__port_vnet_pull(port, pkt);
	rc = voff_vnet_pkt_pull_parsed(&port->vnet_rx, pkt,
				       &port->rx_parsed[slot]);
	*parsed = rc == 1;
	return rc < 0 ? rc : 0;
}

int voff__port_rx_accept(struct voff_port *port, struct voff_pkt *pkt,
			 struct voff_batch *b, uint16_t tpid, uint16_t tci)
{
	unsigned int slot = b->n;
	bool parsed = false;
	int err = 0;

	if (port->info.vnet_hdr_len)
		err = vnet_pull_keep(port, pkt, slot, &parsed);
	else if (!port->info.l3 && pkt->len < 14)
		err = VOFF_E_PORT_SHORT;
	if (!err && tpid) {
		err = vlan_insert(pkt, tpid, tci);
		parsed = false;	/* the headers moved */
	}
	if (!err && voff_batch_add(b, pkt))
		err = -ENOSPC;
	if (err) {
		voff__port_count_drop(port, VOFF_PORT_RX, err);
		voff_pkt_free(pkt);
		return err;
	}
	/* Slots only grow within a call, and the bits start clear. */
	if (parsed)
		port->rx_parsed_ok |= 1ull << slot;
	port->stats.rx_packets++;
	port->stats.rx_bytes += pkt->len;
	if (voff_pkt_is_gso(pkt))
		port->stats.rx_gso++;
	return 0;
}

/* ---- transmit ------------------------------------------------------------ */

/* The IP version of a frame: from l3_off when set, else from its bytes. */
static int ip_version(const struct voff_pkt *pkt, bool l3)
{
	const uint8_t *d = voff_pkt_data(pkt);
	uint32_t off = pkt->l3_off;

	if (off == VOFF_OFF_NONE) {
		if (l3) {
			off = 0;
		} else {
			uint16_t type;

			if (pkt->len < 14)
				return 0;
			type = (uint16_t)(d[12] << 8 | d[13]);
			if (type != 0x0800 && type != 0x86DD)
				return 0;
			off = 14;
		}
	}
	if (off >= pkt->len)
		return 0;
	return d[off] >> 4;
}

unsigned int voff__port_off_needed(const struct voff_pkt *pkt, bool l3)
{
	unsigned int need = 0;
	uint32_t gt = pkt->gso_type;

	if (pkt->csum == VOFF_CSUM_PARTIAL)
		need |= VOFF_TUN_F_CSUM;
	if (!voff_pkt_is_gso(pkt))
		return need;
	if (gt & VOFF_GSO_TCPV4)
		need |= VOFF_TUN_F_TSO4;
	if (gt & VOFF_GSO_TCPV6)
		need |= VOFF_TUN_F_TSO6;
	if (gt & (VOFF_GSO_TCP_ECN | VOFF_GSO_TCP_ACCECN))
		need |= VOFF_TUN_F_TSO_ECN;
	if (gt & VOFF_GSO_UDP)
		need |= VOFF_TUN_F_UFO;
	if (gt & VOFF_GSO_UDP_L4) {
		int v = ip_version(pkt, l3);

		need |= v == 4 ? VOFF_TUN_F_USO4 :
			v == 6 ? VOFF_TUN_F_USO6 :
				 VOFF_TUN_F_USO4 | VOFF_TUN_F_USO6;
	}
	if (gt & VOFF_GSO_UDP_TUNNEL)
		need |= VOFF_TUN_F_UDP_TUNNEL_GSO;
	if (gt & VOFF_GSO_UDP_TUNNEL_CSUM)
		need |= VOFF_TUN_F_UDP_TUNNEL_GSO |
			VOFF_TUN_F_UDP_TUNNEL_GSO_CSUM;
	/* Anything else (GRE, IP-in-IP, fraglist, partial) has no TUN flag. */
	if (gt & ~(uint32_t)(VOFF_GSO_TCPV4 | VOFF_GSO_TCPV6 |
			     VOFF_GSO_TCP_ECN | VOFF_GSO_TCP_ACCECN |
			     VOFF_GSO_UDP | VOFF_GSO_UDP_L4 |
			     VOFF_GSO_UDP_TUNNEL | VOFF_GSO_UDP_TUNNEL_CSUM |
			     VOFF_GSO_DODGY | VOFF_GSO_TCP_FIXEDID |
			     VOFF_GSO_TCP_FIXEDID_INNER))
		need |= ~VOFF_TUN_F_ALL;
	return need;
}

/* Segments of a super-packet: its own count, or computed from its sizes. */
static uint32_t gso_segs(const struct voff_pkt *pkt)
{
	uint32_t hdr = pkt->hdr_len;

	if (pkt->gso_segs)
		return pkt->gso_segs;
	if (!hdr && pkt->csum == VOFF_CSUM_PARTIAL)
		hdr = pkt->csum_start;
	if (hdr >= pkt->len)
		return 1;
	return (pkt->len - hdr + pkt->gso_size - 1) / pkt->gso_size;
}

static int tx_check(const struct voff_port *port, const struct voff_pkt *pkt,
		    uint32_t max_segs)
{
	const struct voff_port_info *in = &port->info;
	uint32_t l2 = in->l3 ? 0 : 18; /* Ethernet + one VLAN tag */

	if (voff__port_off_needed(pkt, in->l3) & ~in->tx_off)
		return VOFF_E_PORT_OFFLOAD;
	if (!in->l3 && pkt->len < 14)
		return VOFF_E_PORT_SHORT;
	if (!voff_pkt_is_gso(pkt)) {
		if (in->limits.mtu && pkt->len > in->limits.mtu + l2)
			return VOFF_E_PORT_MTU;
		return 0;
	}
	if (in->tx_max_len && pkt->len > in->tx_max_len)
		return VOFF_E_PORT_GSO_SIZE;
	if (max_segs && gso_segs(pkt) > max_segs)
		return VOFF_E_PORT_GSO_SEGS;
	return 0;
}

/*
 * The transmit contract for one frame, then its header pushed (encoded
 * over @p when the caller has parsed the frame).  Return: 0, or the reason
 * it is refused (counted; @pkt is then unchanged and still the caller's).
 */
static int tx_prep(struct voff_port *port, struct voff_pkt *pkt,
		   const struct voff_parsed *p)
{
	uint32_t max_segs = port->info.kind == VOFF_PORT_MEM ?
				    port->info.limits.gso_max_segs : 0;
	int err = tx_check(port, pkt, max_segs);

	if (!err && port->info.vnet_hdr_len)
		err = voff__port_vnet_push(port, pkt, p);
	if (err)
		voff__port_count_drop(port, VOFF_PORT_TX, err);
	return err;
}

int voff__port_tx_add(struct voff_port *port, struct voff_batch *b,
		      struct voff_pkt *pkt, const struct voff_parsed *p)
{
	int err = tx_prep(port, pkt, p);

	if (err) {
		voff_pkt_free(pkt);
		return err;
	}
	if (!voff_batch_space(b))
		voff__port_tx_send(port, b);
	b->pkts[b->n++] = pkt;
	return 0;
}

int voff__port_tx_send(struct voff_port *port, struct voff_batch *b)
{
	uint32_t len[VOFF_BATCH_MAX];
	bool gso[VOFF_BATCH_MAX];
	int res[VOFF_BATCH_MAX];
	unsigned int n = b->n, sent = 0;
	int err;

	for (unsigned int i = 0; i < n; i++) {
		len[i] = b->pkts[i]->len - port->info.vnet_hdr_len;
		gso[i] = voff_pkt_is_gso(b->pkts[i]);
		res[i] = 0;
	}
	b->n = 0;
	err = n ? port->ops->tx(port, b->pkts, n, res) : 0;
	for (unsigned int i = 0; i < n; i++) {
		if (err && !res[i])
			res[i] = err;
		if (res[i]) {
			voff__port_count_drop(port, VOFF_PORT_TX, res[i]);
			voff_pkt_free(b->pkts[i]);
			continue;
		}
		sent++;
		port->stats.tx_packets++;
		port->stats.tx_bytes += len[i];
		port->stats.tx_gso += gso[i];
		if (!port->ops->keeps_sent)
			voff_pkt_free(b->pkts[i]);
	}
	return err ? err : (int)sent;
}

int voff_port_tx(struct voff_port *port, struct voff_batch *b)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < b->n; i++) {
		struct voff_pkt *pkt = b->pkts[i];

		if (tx_prep(port, pkt, NULL)) {
			voff_pkt_free(pkt);
			continue;
		}
		b->pkts[n++] = pkt;
	}
	b->n = n;
	return voff__port_tx_send(port, b);
}

/* ---- offload probing ----------------------------------------------------- */

int voff__port_off_probe(unsigned int want,
			 int (*try)(unsigned int off, void *ctx), void *ctx,
			 unsigned int *got)
{
	int err = try(want, ctx);

	*got = err ? 0 : want;
	if (err != -EINVAL)
		return err;
	for (int k = __builtin_popcount(want) - 1; k >= 0; k--) {
		unsigned int s = 0;

		do {
			if (__builtin_popcount(s) == k) {
				err = try(s, ctx);
				if (!err) {
					*got = s;
					return 0;
				}
				if (err != -EINVAL)
					return err;
			}
			/* The next submask of @want, in ascending order. */
			s = (s - want) & want;
		} while (s);
	}
	return -EINVAL;	/* not even the empty set */
}

/* TUNSETOFFLOAD's rules, as feat.h models them, judging a probe. */
static int rules_accept(unsigned int off, void *ctx)
{
	uint64_t f;

	(void)ctx;
	return voff_feat_from_tun(off, &f);
}

unsigned int voff__port_off_fix(unsigned int off)
{
	unsigned int got;

	voff__port_off_probe(off & VOFF_TUN_F_ALL, rules_accept, NULL,
			     &got);
	return got;
}

/* ---- virtio_net_hdr through vnet.h ---------------------------------------- */

/*
 * Native byte order: what a TUN without TUNSETVNETLE/BE and an AF_PACKET
 * socket use for the 10- and 12-byte headers.  Headers read from a port
 * were written by a device (receive channel: DATA_VALID means something);
 * headers voff writes ask for transmission.
 */
void voff__port_vnet_init(struct voff_port *port)
{
	struct voff_vnet_cfg c = {
		.hdr_size = (uint8_t)port->info.vnet_hdr_len,
		.order = VOFF_VNET_NATIVE,
		.mode = port->info.l3 ? VOFF_VNET_L3 : VOFF_VNET_L2,
		/* The 24-byte layout is only ever set up for tunnel GSO. */
		.tunnel = port->info.vnet_hdr_len >= 24,
	};

	c.dir = VOFF_VNET_RX;
	port->vnet_rx = c;
	c.dir = VOFF_VNET_TX;
	port->vnet_tx = c;
	/* A kernel device's own features; otherwise the model's view. */
	if (port->info.ifindex &&
	    !voff_netlink_feat_active(port->netns, port->info.name,
				      &port->info.features))
		return;
	voff_feat_from_tun(port->info.rx_off,
			   &port->info.features);
}

void voff__port_rx_offsets(struct voff_port *port, bool plain)
{
	port->vnet_rx.plain_unparsed = !plain;
}

int voff__port_vnet_pull(const struct voff_port *port, struct voff_pkt *pkt)
{
	return voff_vnet_pkt_pull(&port->vnet_rx, pkt);
}

int voff__port_vnet_push(const struct voff_port *port, struct voff_pkt *pkt,
			 const struct voff_parsed *p)
{
	int rc = voff_vnet_pkt_push_parsed(&port->vnet_tx, pkt, p);

	return rc < 0 ? rc : 0;
}
