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
 * Never IFF_NAPI: it would make the kernel do GRO on what voff writes,
 * hiding voff's own engine, and BASELINES.md shows it does not help plain
 * write() calls anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/if_tun.h>

#include <voff/netlink.h>
#include <voff/pkt.h>
#include <voff/port.h>

#include "port_int.h"

/* What a write may carry: the kernel validates and segments any of it. */
#define TAP_TX_OFF                                                           \
	(VOFF_PORT_OFF_CSUM | VOFF_PORT_OFF_TSO4 | VOFF_PORT_OFF_TSO6 |      \
	 VOFF_PORT_OFF_TSO_ECN | VOFF_PORT_OFF_USO4 | VOFF_PORT_OFF_USO6)

/* The kernel as the probe's judge: TUNSETOFFLOAD takes a set or not. */
static int set_offload(unsigned int off, void *ctx)
{
	unsigned long arg = voff__port_off_to_tun(off);
	const int *fd = ctx;

	return ioctl(*fd, TUNSETOFFLOAD, arg) ? -errno : 0;
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
	in->tx_max_len = 65535 + (tun ? 0 : 18);
	err = tun_attach(port, cfg, tun ? IFF_TUN : IFF_TAP);
	if (err)
		return err;
	err = tap_setup(port, cfg);
	if (err) {
		close(port->fd);	/* a device created here goes with it */
		port->fd = -1;
	}
	return err;
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
	if (port->fd >= 0)
		close(port->fd);
	port->fd = -1;
}

/* Read until the device is empty or the batch is full: one frame a read. */
static int tap_rx(struct voff_port *port, struct voff_pool *pool,
		  struct voff_batch *b)
{
	uint32_t hs = port->info.vnet_hdr_len;
	unsigned int got = 0;

	while (voff_batch_space(b)) {
		struct voff_pkt *pkt;
		uint8_t *d;
		size_t cap;
		ssize_t n;

		if (voff_pkt_alloc(pool, &pkt))
			return got ? (int)got : -ENOBUFS;
		/* The frame proper lands at the standard headroom. */
		d = voff_pkt_push(pkt, hs);
		cap = hs + voff_pkt_tailroom(pkt);
		n = read(port->fd, d, cap);
		if (n < 0) {
			int err = -errno;

			voff_pkt_free(pkt);
			if (err == -EINTR)
				continue;
			if (err == -EAGAIN)
				break;
			return got ? (int)got : err;
		}
		if ((size_t)n == cap) {
			/* The kernel cut the frame to our buffer. */
			voff__port_count_drop(port, VOFF_PORT_RX,
					      VOFF_E_PORT_TRUNC);
			voff_pkt_free(pkt);
			continue;
		}
		if ((size_t)n >= hs)
			voff_pkt_put(pkt, (uint32_t)n - hs);
		else
			voff_pkt_trim(pkt, (uint32_t)n);
		if (!voff__port_rx_accept(port, pkt, b, 0, 0))
			got++;
	}
	return (int)got;
}

/*
 * One write() per frame: TUN has no batched write (TUN_MSG_PTR batching is
 * for vhost-net only), so frame count, not bytes, is what costs here and why
 * super-packets matter.
 */
static int tap_tx(struct voff_port *port, struct voff_pkt **pkts,
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
	return 0;
}

const struct voff_port_ops voff__port_tap_ops = {
	.kind = VOFF_PORT_TAP,
	.open = tap_open,
	.close = tap_close,
	.rx = tap_rx,
	.tx = tap_tx,
	.refresh = tap_refresh,
};

const struct voff_port_ops voff__port_tun_ops = {
	.kind = VOFF_PORT_TUN,
	.open = tun_open,
	.close = tap_close,
	.rx = tap_rx,
	.tx = tap_tx,
	.refresh = tap_refresh,
};
