/* SPDX-License-Identifier: MIT */
/*
 * gro_gen.c - random flows of segments for the GRO tests (see gro_gen.h)
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "frames.h"
#include "gro_gen.h"
#include "gro_util.h"

void gro_gen_flow(struct gro_gen_flow *g, const struct gro_gen_mix *mix,
		  int idx, bool raw)
{
	unsigned int units = mix->ext_units ? mix->ext_units : 1;

	memset(g, 0, sizeof(*g));
	g->mix = mix;
	g->s.raw = raw;
	g->s.v6 = check_chance(mix->v6);
	g->s.udp = check_chance(mix->udp);
	g->s.sport = (uint16_t)(mix->sport + idx);
	if (mix->srcs > 1)
		g->s.src_last = (uint8_t)(1 + check_rnd(mix->srcs));
	g->s.seq = (uint32_t)check_rand();
	g->s.id = (uint16_t)check_rand();
	g->s.df = check_chance(mix->df);
	g->s.ack = 1;
	g->fixed_id = check_chance(mix->fixed_id);
	if (check_chance(mix->big_mss))
		g->mss = (uint16_t)(mix->big_min +
				    check_rnd(mix->big_max - mix->big_min + 1u));
	else
		g->mss = (uint16_t)(1 + check_rnd(mix->small_max));
	if (!raw && check_chance(mix->vlan))
		g->s.vlan = (uint16_t)(1 + check_rnd(3));
	if (g->s.v6 && check_chance(mix->ext))
		g->s.ext_len = (uint16_t)(8 * (1 + check_rnd(units)));
	if (!g->s.udp && check_chance(mix->ts)) {
		g->s.tcpopt = check_chance(mix->ts_long) ? 20 : 12;
		g->s.tsval = (uint32_t)check_rand();
	}
}

/* TCP: the flags, window, timestamp, ACK and sequence of segment @s. */
static void tcp_fields(struct gro_gen_flow *g, struct sp *s)
{
	static const uint8_t fl[] = { TF_PSH, TF_FIN, TF_SYN, TF_RST, TF_URG,
				      TF_CWR, TF_ECE };
	const struct gro_gen_mix *m = g->mix;

	s->flags = TF_ACK;
	if (check_chance(m->flag))
		s->flags |= fl[check_rnd(sizeof(fl))];
	if (check_chance(m->win))
		g->s.win = (uint16_t)(1000 + check_rnd(5000));
	if (check_chance(m->tsval) && s->tcpopt)
		g->s.tsval++;
	if (check_chance(m->ack))
		g->s.ack += 1000;
	s->win = g->s.win;
	s->tsval = g->s.tsval;
	s->ack = g->s.ack;
	if (check_chance(m->seq_jump))
		s->seq += 1 + check_rnd(100);
	else if (check_chance(m->seq_back))
		s->seq -= g->mss;
}

/* The IP fields the flow carries from here on, and this segment's own. */
static void ip_fields(struct gro_gen_flow *g, struct sp *s)
{
	const struct gro_gen_mix *m = g->mix;

	if (!s->v6 && check_chance(m->id_jump))
		s->id = (uint16_t)(s->id + 2 + check_rnd(5));
	if (check_chance(m->ttl))
		g->s.ttl = (uint8_t)(30 + check_rnd(3));
	if (check_chance(m->tos))
		g->s.tos = (uint8_t)check_rnd(m->tos_values ? m->tos_values : 4);
	if (!s->v6 && check_chance(m->df_flip))
		g->s.df = !g->s.df;
	if (s->v6 && check_chance(m->flow_label))
		g->s.flow = check_rnd(3);
	s->ttl = g->s.ttl;
	s->tos = g->s.tos;
	s->df = g->s.df;
	s->flow = g->s.flow;
	s->bad_csum = check_chance(m->bad_csum);
	if (!s->v6 && check_chance(m->ipopt))
		s->ipopt = 4;
	if (!s->v6 && check_chance(m->mf))
		s->mf = true;
}

struct sp gro_gen_seg(struct gro_gen_flow *g)
{
	const struct gro_gen_mix *m = g->mix;
	struct sp s = g->s;
	uint32_t len = g->mss;

	if (check_chance(m->shorter))
		len = check_rnd(g->mss);
	else if (check_chance(m->longer))
		len = g->mss + 1 + check_rnd(m->longer_max);
	if (s.udp && len == 0)
		len = 1;
	s.len = len;
	s.seed = (uint8_t)check_rand();
	if (!s.udp)
		tcp_fields(g, &s);
	ip_fields(g, &s);
	if (!s.raw && check_chance(m->pad))
		s.pad = 4;
	if (s.udp && check_chance(m->no_csum))
		s.no_csum = true;
	if (!s.udp)
		g->s.seq = s.seq + len;
	if (!g->fixed_id)
		g->s.id++;
	return s;
}
