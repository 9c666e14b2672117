/* SPDX-License-Identifier: MIT */
/*
 * port_pcap.c - the capture-file port (source and sink); not available yet:
 * opening one returns -EOPNOTSUPP until the pcap module is in main
 */
#include <errno.h>

#include <voff/port.h>

#include "port_int.h"

static int pcap_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	(void)port;
	(void)cfg;
	return -EOPNOTSUPP;
}

static void pcap_close(struct voff_port *port)
{
	(void)port;
}

static int pcap_rx(struct voff_port *port, struct voff_pool *pool,
		   struct voff_batch *b)
{
	(void)port;
	(void)pool;
	(void)b;
	return 0;
}

static int pcap_tx(struct voff_port *port, struct voff_pkt **pkts,
		   unsigned int n, int *res)
{
	(void)port;
	(void)pkts;
	(void)n;
	(void)res;
	return -EOPNOTSUPP;
}

const struct voff_port_ops voff__port_pcap_ops = {
	.kind = VOFF_PORT_PCAP,
	.open = pcap_open,
	.close = pcap_close,
	.rx = pcap_rx,
	.tx = pcap_tx,
};
