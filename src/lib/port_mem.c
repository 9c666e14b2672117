/* SPDX-License-Identifier: MIT */
/*
 * port_mem.c - the in-memory port pair: two rings of frames, one per
 * direction, so datapaths can be tested without privileges
 *
 * A send moves the packets themselves, virtio_net_hdr already pushed by the
 * front end (port.c), into the peer's receive ring.  A receive copies each
 * frame into a packet of the caller's pool, as a kernel port would, and
 * hands it to the front end, which validates the header.  Offload metadata
 * therefore crosses the pair only through the header, exactly as it crosses
 * a TAP, and the validator sees every frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/pkt.h>
#include <voff/port.h>

#include "port_int.h"

#define MEM_RING_DEFAULT 256
#define MEM_RING_MAX 65536
#define MEM_INJECT_PKTS 16

struct mem_ring {
	struct voff_pkt **slot;
	unsigned int cap;
	unsigned int head;
	unsigned int n;
};

/* Shared by both ends; freed when the last end closes. */
struct mem_pair {
	struct mem_ring ring[2];
	struct voff_pool *inject;
	unsigned int refs;
};

struct mem_end {
	struct mem_pair *pair;
	int side;
};

static int ring_push(struct mem_ring *r, struct voff_pkt *pkt)
{
	if (r->n == r->cap)
		return -ENOBUFS;
	r->slot[(r->head + r->n) % r->cap] = pkt;
	r->n++;
	return 0;
}

static struct voff_pkt *ring_pop(struct mem_ring *r)
{
	struct voff_pkt *pkt;

	if (!r->n)
		return NULL;
	pkt = r->slot[r->head];
	r->head = (r->head + 1) % r->cap;
	r->n--;
	return pkt;
}

static void ring_drain(struct mem_ring *r)
{
	struct voff_pkt *pkt;

	while ((pkt = ring_pop(r)))
		voff_pkt_free(pkt);
}

static int pair_new(struct mem_pair **out, unsigned int cap)
{
	struct mem_pair *p = calloc(1, sizeof(*p));
	int err = -ENOMEM;

	if (!p)
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		p->ring[i].cap = cap;
		p->ring[i].slot = calloc(cap, sizeof(*p->ring[i].slot));
		if (!p->ring[i].slot)
			goto err_rings;
	}
	err = voff_pool_new(&p->inject, MEM_INJECT_PKTS, VOFF_PKT_SUPER_ROOM);
	if (err)
		goto err_rings;
	*out = p;
	return 0;

err_rings:
	free(p->ring[0].slot);
	free(p->ring[1].slot);
	free(p);
	return err;
}

static int mem_open(struct voff_port *port, const struct voff_port_cfg *cfg)
{
	struct voff_port *first = port->priv;
	struct voff_port_info *in = &port->info;
	unsigned int cap = cfg->ring ? cfg->ring : MEM_RING_DEFAULT;
	struct mem_end *end;

	if (cap > MEM_RING_MAX)
		return -EINVAL;
	end = calloc(1, sizeof(*end));
	if (!end)
		return -ENOMEM;
	if (first) {
		end->pair = ((struct mem_end *)first->priv)->pair;
		end->side = 1;
	} else {
		int err = pair_new(&end->pair, cap);

		if (err) {
			free(end);
			return err;
		}
	}
	end->pair->refs++;
	port->priv = end;

	snprintf(in->name, sizeof(in->name), "%s%s",
		 cfg->name ? cfg->name : "mem", end->side ? ".1" : ".0");
	in->vnet_hdr_len = 0;
	if (!(cfg->flags & VOFF_PORT_F_NO_VNET)) {
		in->vnet_hdr_len = cfg->vnet_hdr_len ? cfg->vnet_hdr_len : 10;
		/* Negotiate as a TAP would, within what the codec carries. */
		in->rx_off = voff__port_off_fix(
			cfg->want & port_codec_off(in->vnet_hdr_len));
		in->tx_off = cfg->tx_off & port_codec_off(in->vnet_hdr_len);
	}
	in->refused = in->want & ~in->rx_off;
	in->limits = cfg->limits;
	in->tx_max_len = cfg->limits.gso_max_size ? cfg->limits.gso_max_size :
						    VOFF_PKT_MAX_FRAME;
	return 0;
}

static void mem_close(struct voff_port *port)
{
	struct mem_end *end = port->priv;
	struct mem_pair *p = end->pair;

	ring_drain(&p->ring[end->side]);
	if (--p->refs == 0) {
		ring_drain(&p->ring[!end->side]);
		voff_pool_free(p->inject);
		free(p->ring[0].slot);
		free(p->ring[1].slot);
		free(p);
	}
	free(end);
}

/* Copy @src into a fresh packet so the frame proper starts at the headroom. */
static int copy_in(const struct voff_port *port, struct voff_pool *pool,
		   const struct voff_pkt *src, struct voff_pkt **out)
{
	uint32_t head = port->info.vnet_hdr_len;
	struct voff_pkt *dst;

	if (voff_pkt_alloc(pool, &dst))
		return -ENOBUFS;
	if (head > src->len)
		head = src->len;
	if (!voff_pkt_push(dst, head) || !voff_pkt_put(dst, src->len - head)) {
		voff_pkt_free(dst);
		return VOFF_E_PORT_TRUNC;
	}
	memcpy(voff_pkt_data(dst), voff_pkt_data(src), src->len);
	*out = dst;
	return 0;
}

static int mem_rx(struct voff_port *port, struct voff_pool *pool,
		  struct voff_batch *b)
{
	struct mem_end *end = port->priv;
	struct mem_ring *r = &end->pair->ring[end->side];
	/* Refused frames count: a malformed flood reads no deeper. */
	unsigned int got = 0, left = voff_batch_space(b);

	for (; left && r->n; left--) {
		struct voff_pkt *src = r->slot[r->head], *dst;
		int err = copy_in(port, pool, src, &dst);

		if (err == -ENOBUFS)
			return got ? (int)got : -ENOBUFS;
		ring_pop(r);
		voff_pkt_free(src);
		if (err) {
			voff__port_count_drop(port, VOFF_PORT_RX, err);
			continue;
		}
		if (!voff__port_rx_accept(port, dst, b, 0, 0))
			got++;
	}
	return (int)got;
}

static int mem_tx(struct voff_port *port, struct voff_pkt **pkts,
		  unsigned int n, int *res)
{
	struct mem_end *end = port->priv;
	struct mem_ring *r = &end->pair->ring[!end->side];

	for (unsigned int i = 0; i < n; i++)
		res[i] = ring_push(r, pkts[i]) ? -EAGAIN : 0;
	return 0;
}

int voff_port_mem_inject(struct voff_port *port, const void *data,
			 size_t len)
{
	struct mem_end *end;
	struct voff_pkt *pkt;
	int err;

	if (!port || port->ops != &voff__port_mem_ops || len > UINT32_MAX)
		return -EINVAL;
	end = port->priv;
	if (end->pair->ring[end->side].n == end->pair->ring[end->side].cap)
		return -ENOBUFS;
	err = voff_pkt_alloc(end->pair->inject, &pkt);
	if (err)
		return err;
	if (voff_pkt_set_data(pkt, data, (uint32_t)len)) {
		voff_pkt_free(pkt);
		return -EINVAL;
	}
	return ring_push(&end->pair->ring[end->side], pkt);
}

const struct voff_port_ops voff__port_mem_ops = {
	.kind = VOFF_PORT_MEM,
	.open = mem_open,
	.close = mem_close,
	.rx = mem_rx,
	.tx = mem_tx,
	.keeps_sent = true,
};
