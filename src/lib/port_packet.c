/* SPDX-License-Identifier: MIT */
/*
 * port_packet.c - the AF_PACKET port; not available yet: opening one
 * returns -EOPNOTSUPP
 */
#include <errno.h>

#include <voff/port.h>

#include "port_int.h"

static int packet_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	(void)port;
	(void)cfg;
	return -EOPNOTSUPP;
}

static void packet_close(struct voff_port *port)
{
	(void)port;
}

static int packet_rx(struct voff_port *port, struct voff_pool *pool,
		   struct voff_batch *b)
{
	(void)port;
	(void)pool;
	(void)b;
	return 0;
}

static int packet_tx(struct voff_port *port, struct voff_pkt **pkts,
		   unsigned int n, int *res)
{
	(void)port;
	(void)pkts;
	(void)n;
	(void)res;
	return -EOPNOTSUPP;
}

const struct voff_port_ops voff__port_packet_ops = {
	.kind = VOFF_PORT_PACKET,
	.open = packet_open,
	.close = packet_close,
	.rx = packet_rx,
	.tx = packet_tx,
};
