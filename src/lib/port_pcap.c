/* SPDX-License-Identifier: MIT */
/*
 * port_pcap.c - the capture-file port: a source that receives the frames of
 * a capture file in order and a sink that writes every frame sent to it,
 * for offline runs of a datapath (pcap.c does the file work)
 *
 * Frames in a file carry no virtio_net_hdr: a source hands out plain
 * frames (no offload metadata, rx offloads none), and a sink stores any
 * frame whole, super-packets included (the snap length holds 256 KiB), so
 * its tx offloads are everything while the metadata itself is not stored.
 * A source is always ready: voff_port_rx() returning 0 means end of file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <voff/pcap.h>
#include <voff/pkt.h>
#include <voff/port.h>

#include "port_int.h"

struct pcap_priv {
	struct voff_pcap *src;
	struct voff_pcap *sink;
	bool done;
};

static int pcap_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	struct voff_port_info *in = &port->info;
	enum voff_parse_start start = (cfg->flags & VOFF_PORT_F_L3) ?
					      VOFF_PARSE_IP :
					      VOFF_PARSE_ETH;
	struct pcap_priv *pp;
	int err;

	if (!cfg->name && !cfg->sink)
		return -EINVAL;
	pp = calloc(1, sizeof(*pp));
	if (!pp)
		return -ENOMEM;
	if (cfg->name) {
		err = voff_pcap_open_read(&pp->src, cfg->name, NULL, 0);
		if (err)
			goto err_free;
		start = voff_pcap_start(pp->src);
	}
	if (cfg->sink) {
		err = voff_pcap_open_write(&pp->sink, cfg->sink, start);
		if (err)
			goto err_src;
		in->tx_off = VOFF_TUN_F_ALL;
	}
	snprintf(in->name, sizeof(in->name), "%s",
		 cfg->name ? cfg->name : cfg->sink);
	in->l3 = start == VOFF_PARSE_IP;
	in->refused = in->want;
	in->limits = cfg->limits;
	in->tx_max_len = VOFF_PKT_MAX_FRAME;
	port->priv = pp;
	return 0;

err_src:
	voff_pcap_close(pp->src);
err_free:
	free(pp);
	return err;
}

static void pcap_close(struct voff_port *port)
{
	struct pcap_priv *pp = port->priv;

	voff_pcap_close(pp->src);
	voff_pcap_close(pp->sink);
	free(pp);
}

static int pcap_rx(struct voff_port *port, struct voff_pool *pool,
		   struct voff_batch *b)
{
	struct pcap_priv *pp = port->priv;
	/* Refused frames count: a malformed capture reads no deeper. */
	unsigned int got = 0, left = voff_batch_space(b);

	for (; pp->src && !pp->done && left; left--) {
		struct voff_pkt *pkt;
		int rc;

		if (voff_pkt_alloc(pool, &pkt))
			return got ? (int)got : -ENOBUFS;
		rc = voff_pcap_read(pp->src, pkt);
		if (rc == 1) {
			if (!voff__port_rx_accept(port, pkt, b, 0, 0))
				got++;
			continue;
		}
		voff_pkt_free(pkt);
		if (rc == 0 || rc == VOFF_E_PCAP_FORMAT ||
		    rc == VOFF_E_PCAP_TRUNC || rc == -EIO) {
			/* End of file, or a file that cannot go on. */
			pp->done = true;
			if (rc && !got)
				return rc;
			break;
		}
		/* Cut by the snap length or too big for the pool: skip it. */
		voff__port_count_drop(port, VOFF_PORT_RX, rc);
	}
	return (int)got;
}

static int pcap_tx(struct voff_port *port, struct voff_pkt **pkts,
		   unsigned int n, int *res)
{
	struct pcap_priv *pp = port->priv;

	if (!pp->sink)
		return -EOPNOTSUPP;
	for (unsigned int i = 0; i < n; i++)
		res[i] = voff_pcap_write(pp->sink, pkts[i]);
	return 0;
}

const struct voff_port_ops voff__port_pcap_ops = {
	.kind = VOFF_PORT_PCAP,
	.open = pcap_open,
	.close = pcap_close,
	.rx = pcap_rx,
	.tx = pcap_tx,
};
