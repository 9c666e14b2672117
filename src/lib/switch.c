/* SPDX-License-Identifier: MIT */
/*
 * switch.c - the forwarding loop of struct voff_switch: receive, GRO,
 * learn and look up, decide per egress, segment late, send in batches
 * (switch.h has the Theory of Operation)
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <voff/csum.h>
#include <voff/err.h>
#include <voff/gro.h>
#include <voff/gso.h>
#include <voff/parse.h>
#include <voff/pkt.h>
#include <voff/switch.h>
#include <voff/vxlan.h>
#include <voff/xmit.h>

#include "port_int.h"
#include "switch_int.h"

/* Outputs of one segmentation: a 64 KiB packet cut at the smallest MSS. */
#define SEGS_CAP 1024

/*
 * A read of at least POLICE_MIN refused frames, more than POLICE_RATIO of
 * them for each one accepted, is "mostly malformed"; the port is then held
 * for POLICE_FIRST_NS, twice that after another such read, up to its
 * rx_backoff.
 */
#define POLICE_MIN 16
#define POLICE_RATIO 3
#define POLICE_FIRST_NS 100000ull

/* Toggleable features of a switch port: the always-on set, GSO, GRO. */
#define PORT_HW (VOFF_F_MACVLAN_ALWAYS_ON | VOFF_F_GSO | VOFF_F_GRO)

struct sw_port {
	struct voff_port *port;		/* NULL: free slot */
	char name[64];
	bool l3;
	int fd;
	bool busy;			/* step again without waiting */
	bool failed;			/* receive failed: no longer polled */
	unsigned int retry_max_s;	/* port_retry; 0: never re-opened */
	uint64_t retry_ns;		/* failed: the wait now; 0: none yet */
	uint64_t retry_at;		/* ... and the next attempt */
	bool down;			/* the device refuses frames: down */
	char spec[VOFF_PORT_SPEC_MAX + 1]; /* what it was opened with */
	uint64_t tick_tx, tick_rx;	/* counters at the last tick */
	uint64_t tick_refused;		/* tx drops for a down device */
	struct voff_feat_dev egress;	/* what the port takes (port.h) */
	uint32_t egress_gen;		/* port->gen it was read at */
	struct voff_limits egress_lim;
	struct voff_feat_dev feat;	/* the switch port's own state */
	struct voff_feat_dev eff;	/* egress ∩ feat: for the decision */
	struct voff_limits lim;		/* limits the user set */
	struct voff_limits lim0;	/* ... and before any was set */
	struct voff_limits elim;	/* egress_lim within lim */
	uint32_t prop_size, prop_segs;	/* last values propagated */
	struct voff_gro *gro;
	uint64_t gro_timeout_ns;
	unsigned int rx_budget;		/* frames a step reads at most */
	uint64_t backoff_max_ns;	/* rx_backoff; 0: never held */
	uint64_t hold_ns;		/* the hold now; 0: not held */
	uint64_t hold_until;		/* not read before (when held) */
	uint64_t gro_merged_base, gro_out_base;
	struct voff_switch_stats st;
	struct voff_batch tx;		/* checked, headers pushed (port.c) */
};

/* struct egress_parse.err before voff_parse() has run. */
#define NOT_PARSED 1

/*
 * struct egress_parse - the parse of a frame on its way out, made once for
 * all its copies: a flooded frame's copies have the same bytes, and every
 * egress of one flood starts its frames alike (one L2 or L3 domain)
 * @p:		the parse: the ingress validator's when it made one, or @own
 * @err:	NOT_PARSED, or voff_parse()'s result
 * @own:	room for a parse made here
 */
struct egress_parse {
	const struct voff_parsed *p;
	int err;
	struct voff_parsed own;
};

struct voff_switch {
	struct voff_pool *pool;
	struct voff__fdb fdb;
	bool propagate;
	int epfd;
	struct sw_port p[VOFF_SWITCH_MAX_PORTS];
	struct voff_pkt *segs[SEGS_CAP];
	unsigned int egress[VOFF_SWITCH_MAX_PORTS];
	struct egress_parse ep;		/* of the frame fan_out() sends */
	/* The ingress validator's parses of a receive batch, by slot. */
	struct voff_parsed rx_parsed[VOFF_BATCH_MAX];
	uint64_t busy_poll_ns;		/* the configured window; 0: off */
	uint64_t yield_ns;		/* when a spin last yielded its CPU */
	uint64_t spin_ns;		/* the window now (adaptive) */
	uint64_t last_rx_ns;		/* when a step last received */
	void (*event_cb)(void *ctx, const struct voff_switch_event *ev);
	void *event_ctx;
	bool reopening;			/* voff__switch_reopening() */
};

_Static_assert(sizeof(((struct voff_switch_port_info *)0)->spec) ==
	       VOFF_PORT_SPEC_MAX + 1, "a port's spec fits its info");

static const char *const drop_names[] = {
#define VOFF__X(e, n) [VOFF_SWITCH_DROP_##e] = n,
	VOFF_SWITCH_DROP_MAP(VOFF__X)
#undef VOFF__X
};

const char *voff_switch_drop_name(enum voff_switch_drop d)
{
	if ((unsigned int)d >= VOFF_SWITCH_DROP__COUNT)
		return "?";
	return drop_names[d];
}

static const char *const event_names[] = {
#define VOFF__X(e, n) [VOFF_SWITCH_EV_##e] = n,
	VOFF_SWITCH_EVENT_MAP(VOFF__X)
#undef VOFF__X
};

const char *voff_switch_event_name(enum voff_switch_event_type t)
{
	if ((unsigned int)t >= VOFF_SWITCH_EV__COUNT)
		return "?";
	return event_names[t];
}

void voff_switch_set_event_cb(struct voff_switch *sw,
			      void (*cb)(void *ctx,
					 const struct voff_switch_event *ev),
			      void *ctx)
{
	if (!sw)
		return;
	sw->event_cb = cb;
	sw->event_ctx = ctx;
}

void voff__switch_emit(struct voff_switch *sw, struct voff_switch_event *ev)
{
	const struct sw_port *p = ev->port < VOFF_SWITCH_MAX_PORTS ?
					  &sw->p[ev->port] : NULL;

	if (!sw->event_cb)
		return;
	if (!ev->name)
		ev->name = p ? p->name : "";
	if (!ev->spec)
		ev->spec = p ? p->spec : "";
	sw->event_cb(sw->event_ctx, ev);
}

/* An event about port @id with nothing more to say than its type. */
static void port_event(struct voff_switch *sw, unsigned int id,
		       enum voff_switch_event_type type, int err)
{
	struct voff_switch_event ev = { .type = type, .port = id, .err = err };

	if (type == VOFF_SWITCH_EV_PORT_ADDED ||
	    type == VOFF_SWITCH_EV_PORT_REMOVED)
		ev.new_value = sw->reopening;
	voff__switch_emit(sw, &ev);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct sw_port *get(const struct voff_switch *sw, unsigned int id)
{
	if (id >= VOFF_SWITCH_MAX_PORTS || !sw->p[id].port)
		return NULL;
	return (struct sw_port *)&sw->p[id];
}

/* ---- features and limits ------------------------------------------------ */

static uint32_t min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * Recompute the port's active features and the egress view the transmit
 * decision uses: bits the switch port does not toggle follow the port.
 */
static void update_feat(struct sw_port *p)
{
	uint64_t keep;

	p->feat.active = voff_feat_fix(p->feat.wanted & p->feat.hw &
					       (p->egress.active | VOFF_F_GSO |
						VOFF_F_GRO),
				       0);
	p->feat.vlan = p->feat.active;
	p->feat.enc = p->feat.active;
	keep = p->feat.active | ~p->feat.hw;
	p->eff.active = voff_feat_fix(p->egress.active & keep,
				      p->egress.gso_partial);
	p->eff.hw = p->eff.active;
	p->eff.wanted = p->eff.active;
	p->eff.vlan = p->egress.vlan & p->eff.active;
	p->eff.enc = p->egress.enc & p->eff.active;
	p->eff.gso_partial = p->egress.gso_partial;
}

/*
 * The port's own limits start as the kernel's defaults, raised to what its
 * egress takes when that is more (a packet port over a device with a
 * larger gso_max_size): the switch port adds no cap until the user sets
 * one.
 */
static void init_lim(struct sw_port *p)
{
	voff_limits_init(&p->lim);
	if (p->egress_lim.gso_max_size > p->lim.gso_max_size)
		p->lim.gso_max_size = p->egress_lim.gso_max_size;
	if (p->egress_lim.gso_ipv4_max_size > p->lim.gso_ipv4_max_size)
		p->lim.gso_ipv4_max_size = p->egress_lim.gso_ipv4_max_size;
	if (p->lim.gso_max_size > p->lim.tso_max_size)
		p->lim.tso_max_size = p->lim.gso_max_size;
	if (p->lim.gso_ipv4_max_size > p->lim.tso_max_size)
		p->lim.tso_max_size = p->lim.gso_ipv4_max_size;
}

static void update_lim(struct sw_port *p)
{
	p->elim = p->egress_lim;
	p->elim.gso_max_size = min32(p->elim.gso_max_size, p->lim.gso_max_size);
	p->elim.gso_ipv4_max_size =
		min32(p->elim.gso_ipv4_max_size, p->lim.gso_ipv4_max_size);
	p->elim.gso_max_segs = min32(p->elim.gso_max_segs, p->lim.gso_max_segs);
}

static bool owns_device(const struct sw_port *p)
{
	struct voff_port_info info;

	voff_port_info(p->port, &info);
	return info.kind == VOFF_PORT_TAP || info.kind == VOFF_PORT_TUN;
}

static uint32_t dev_tso_max_size(const struct sw_port *p)
{
	struct voff_port_info info;

	voff_port_info(p->port, &info);
	return info.limits.tso_max_size ? info.limits.tso_max_size :
					  VOFF_GSO_LEGACY_MAX_SIZE;
}

/* Give port @id's device the gso limits @set, and say what happened. */
static void propagate_one(struct voff_switch *sw, unsigned int id,
			  const struct voff_limits *set)
{
	struct sw_port *p = &sw->p[id];
	struct voff_switch_event ev = { .port = id };
	struct voff_port_info info;
	int err;

	voff_port_info(p->port, &info);
	ev.old_size = p->prop_size ? p->prop_size : info.limits.gso_max_size;
	ev.old_segs = p->prop_segs ? p->prop_segs : info.limits.gso_max_segs;
	ev.new_size = set->gso_max_size;
	ev.new_segs = set->gso_max_segs;
	err = voff_port_set_limits(p->port, set);
	if (!err) {
		p->prop_size = set->gso_max_size;
		p->prop_segs = set->gso_max_segs;
		ev.type = VOFF_SWITCH_EV_PROPAGATED;
	} else {
		ev.type = VOFF_SWITCH_EV_PROPAGATE_FAILED;
		ev.err = err;
	}
	voff__switch_emit(sw, &ev);
}

/*
 * Each TAP/TUN device gets the smallest gso limits of the other ports, so
 * its senders build only super-packets every egress takes whole.
 */
static void propagate(struct voff_switch *sw)
{
	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct sw_port *p = get(sw, i);
		struct voff_limits set = { 0 };
		uint32_t size = UINT32_MAX, segs = UINT32_MAX;

		if (!p || !sw->propagate || !owns_device(p))
			continue;
		for (unsigned int j = 0; j < VOFF_SWITCH_MAX_PORTS; j++) {
			struct sw_port *q = get(sw, j);

			if (!q || q == p)
				continue;
			size = min32(size, q->elim.gso_max_size);
			segs = min32(segs, q->elim.gso_max_segs);
		}
		if (size == UINT32_MAX)
			size = VOFF_GSO_LEGACY_MAX_SIZE;
		/* A TAP takes no gso_max_size above its tso_max_size. */
		size = min32(size, dev_tso_max_size(p));
		if (segs == UINT32_MAX)
			segs = VOFF_GSO_MAX_SEGS;
		if (size == p->prop_size && segs == p->prop_segs)
			continue;
		set.gso_max_size = size;
		set.gso_max_segs = segs;
		propagate_one(sw, i, &set);
	}
}

/* ---- life cycle ---------------------------------------------------------- */

int voff_switch_new(struct voff_switch **out,
		    const struct voff_switch_config *cfg)
{
	struct voff_switch_config c = { 0 };
	struct voff_switch *sw;
	int err;

	if (!out)
		return -EINVAL;
	if (cfg)
		c = *cfg;
	if (c.busy_poll_ns > VOFF_SWITCH_BUSY_POLL_MAX)
		return -EINVAL;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->propagate = !c.no_propagate;
	sw->busy_poll_ns = c.busy_poll_ns;
	sw->spin_ns = c.busy_poll_ns;
	err = voff_pool_new(&sw->pool, c.pool_size ? c.pool_size : 1024,
			    VOFF_PKT_SUPER_ROOM);
	if (err)
		goto err_pool;
	err = voff__fdb_init(&sw->fdb, c.fdb_size ? c.fdb_size : 4096,
			     c.age_ns ? c.age_ns : VOFF_SWITCH_AGE_NS);
	if (err)
		goto err_fdb;
	sw->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sw->epfd < 0) {
		err = -errno;
		goto err_epoll;
	}
	*out = sw;
	return 0;
err_epoll:
	voff__fdb_fini(&sw->fdb);
err_fdb:
	voff_pool_free(sw->pool);
err_pool:
	free(sw);
	return err;
}

static void drop_port(struct voff_switch *sw, struct sw_port *p)
{
	voff_batch_free(&p->tx);
	voff_gro_free(p->gro);
	p->gro = NULL;
	if (p->fd >= 0)
		epoll_ctl(sw->epfd, EPOLL_CTL_DEL, p->fd, NULL);
	voff_port_close(p->port);
	memset(p, 0, sizeof(*p));
}

void voff_switch_free(struct voff_switch *sw)
{
	if (!sw)
		return;
	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++)
		if (sw->p[i].port)
			drop_port(sw, &sw->p[i]);
	close(sw->epfd);
	voff__fdb_fini(&sw->fdb);
	voff_pool_free(sw->pool);
	free(sw);
}

int voff_switch_find(const struct voff_switch *sw, const char *name)
{
	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++)
		if (sw->p[i].port && !strcmp(sw->p[i].name, name))
			return (int)i;
	return -ENOENT;
}

/* Wait on @p's descriptor; Return: 0 or -1 with errno set. */
static int watch(struct voff_switch *sw, struct sw_port *p)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.u32 = (uint32_t)(p - sw->p);
	return epoll_ctl(sw->epfd, EPOLL_CTL_ADD, p->fd, &ev);
}

/*
 * Port @p failed: no longer waited on (a hung-up descriptor would spin the
 * loop) nor polled, and what a re-open of it needs is released
 * (voff__port_release(): a VXLAN port's bound sockets), so that an attempt
 * of voff_switch_conf_retry() can open its device while the failed port,
 * its counters, settings and MAC entries stay until that worked.  A
 * release that fails is tried again by that attempt.
 */
static int fail(struct voff_switch *sw, struct sw_port *p)
{
	int err;

	if (!p->failed && p->fd >= 0)
		epoll_ctl(sw->epfd, EPOLL_CTL_DEL, p->fd, NULL);
	p->failed = true;
	err = voff__port_release(p->port);
	/* Its descriptor may be closed now: never named to epoll again. */
	if (!err)
		p->fd = -1;
	return err;
}

/*
 * A port's descriptor may change after a receive (a TAP whose multishot
 * read the kernel refused goes back to its device's): wait on the new one.
 * The old one is closed already, which took it out of the epoll set.
 */
static void rewatch(struct voff_switch *sw, struct sw_port *p)
{
	int fd = voff_port_fd(p->port);

	if (fd == p->fd)
		return;
	epoll_ctl(sw->epfd, EPOLL_CTL_DEL, p->fd, NULL);
	p->fd = fd;
	if (fd >= 0 && watch(sw, p))
		fail(sw, p);
}

int voff__switch_add(struct voff_switch *sw, struct voff_port *port,
		     const char *name, const char *spec, unsigned int *id)
{
	struct voff_port_info info;
	struct sw_port *p = NULL;
	unsigned int i;

	if (!sw || !port)
		return -EINVAL;
	voff_port_info(port, &info);
	if (!name || !*name)
		name = info.name;
	if (strlen(name) >= sizeof(p->name))
		return -EINVAL;
	if (voff_switch_find(sw, name) >= 0)
		return -EEXIST;
	for (i = 0; i < VOFF_SWITCH_MAX_PORTS && !p; i++)
		if (!sw->p[i].port)
			p = &sw->p[i];
	if (!p)
		return -ENOSPC;
	memset(p, 0, sizeof(*p));
	p->fd = voff_port_fd(port);
	if (p->fd >= 0 && watch(sw, p))
		return -errno;
	p->port = port;
	/* Nothing here reads the offsets of a frame without offloads. */
	voff__port_rx_offsets(port, false);
	memcpy(p->name, name, strlen(name) + 1);
	p->l3 = info.l3;
	voff_port_egress(port, &p->egress, &p->egress_lim);
	p->egress_gen = port->gen;
	p->feat.hw = PORT_HW;
	p->feat.wanted = PORT_HW & ~VOFF_F_GRO;
	update_feat(p);
	init_lim(p);
	p->lim0 = p->lim;
	update_lim(p);
	p->rx_budget = VOFF_BATCH_MAX;
	p->backoff_max_ns = VOFF_SWITCH_RX_BACKOFF_NS;
	p->retry_max_s = VOFF_SWITCH_PORT_RETRY_S;
	p->busy = p->fd < 0;
	if (spec && strlen(spec) < sizeof(p->spec))
		memcpy(p->spec, spec, strlen(spec) + 1);
	if (id)
		*id = (unsigned int)(p - sw->p);
	/*
	 * A kind with gro on by default (vxlan) starts with its engine; short
	 * of memory for one, the port starts without, its gro setting off.
	 */
	if (voff__switch_kind_def(voff_switch_setting_find("gro"), info.kind))
		voff__switch_features(sw, (unsigned int)(p - sw->p), VOFF_F_GRO,
				      VOFF_F_GRO, true);
	port_event(sw, (unsigned int)(p - sw->p), VOFF_SWITCH_EV_PORT_ADDED, 0);
	propagate(sw);
	return 0;
}

int voff_switch_add(struct voff_switch *sw, struct voff_port *port,
		    const char *name, unsigned int *id)
{
	return voff__switch_add(sw, port, name, NULL, id);
}

int voff_switch_del(struct voff_switch *sw, unsigned int id)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	port_event(sw, id, VOFF_SWITCH_EV_PORT_REMOVED, 0);
	drop_port(sw, p);
	voff__fdb_flush_port(&sw->fdb, id);
	propagate(sw);
	return 0;
}

unsigned int voff_switch_ports(const struct voff_switch *sw,
			       unsigned int *out, unsigned int cap)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++) {
		if (!sw->p[i].port)
			continue;
		if (n < cap)
			out[n] = i;
		n++;
	}
	return n;
}

struct voff_port *voff_switch_port(const struct voff_switch *sw,
				   unsigned int id)
{
	struct sw_port *p = get(sw, id);

	return p ? p->port : NULL;
}

int voff_switch_port_info(const struct voff_switch *sw, unsigned int id,
			  struct voff_switch_port_info *out)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->id = id;
	memcpy(out->name, p->name, sizeof(out->name));
	voff_port_info(p->port, &out->info);
	out->feat = p->feat;
	out->limits = p->lim;
	out->dev_limits = out->info.limits;
	out->gro = p->gro != NULL;
	out->gro_flush_timeout_ns = p->gro_timeout_ns;
	out->rx_budget = p->rx_budget;
	out->rx_backoff_ns = p->backoff_max_ns;
	out->failed = p->failed;
	out->down = p->down;
	out->port_retry = p->retry_max_s;
	out->retry_ns = p->failed ? p->retry_ns : 0;
	memcpy(out->spec, p->spec, sizeof(out->spec));
	return 0;
}

int voff_switch_stats(const struct voff_switch *sw, unsigned int id,
		      struct voff_switch_stats *out)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	*out = p->st;
	voff_port_stats(p->port, &out->port);
	out->gro_merged = p->gro_merged_base;
	out->gro_out = p->gro_out_base;
	if (p->gro) {
		struct voff_gro_stats g;

		voff_gro_stats(p->gro, &g);
		out->gro_merged += g.merged;
		out->gro_out += g.out_merged;
	}
	return 0;
}

/* ---- the data path ------------------------------------------------------- */

static void drop(struct sw_port *p, struct voff_pkt *pkt,
		 enum voff_switch_drop why)
{
	p->st.drops[why]++;
	voff_pkt_free(pkt);
}

static void flush_tx(struct sw_port *p)
{
	if (p->tx.n)
		voff__port_tx_send(p->port, &p->tx);
}

/*
 * Queue @pkt on @p's port, its header encoded now over @parsed (output()'s
 * parse of it, or NULL: the encoder then parses it only if it claims an
 * offload).  A frame the port refuses is counted there and freed.
 * Ownership: consumes @pkt.
 */
static void enqueue(struct sw_port *p, struct voff_pkt *pkt,
		    const struct voff_parsed *parsed)
{
	voff__port_tx_add(p->port, &p->tx, pkt, parsed);
}

static void enqueue_segs(struct voff_switch *sw, struct sw_port *p, int n)
{
	for (int i = 0; i < n; i++)
		enqueue(p, sw->segs[i], NULL);
}

static void segment(struct voff_switch *sw, struct sw_port *p,
		    struct voff_pkt *pkt, bool csum_hw)
{
	struct voff_gso_opts opts = { 0 };
	int n;

	opts.csum_mode = csum_hw ? VOFF_GSO_CSUM_PARTIAL : VOFF_GSO_CSUM_FULL;
	n = voff_gso_segment(pkt, &opts, sw->pool, sw->segs, SEGS_CAP);
	if (n < 0) {
		drop(p, pkt, n == -ENOBUFS ? VOFF_SWITCH_DROP_NO_BUFFER
					   : VOFF_SWITCH_DROP_GSO);
		return;
	}
	p->st.gso_in++;
	p->st.gso_segs += (uint64_t)n;
	voff_pkt_free(pkt);
	enqueue_segs(sw, p, n);
}

static void resegment(struct voff_switch *sw, struct sw_port *p,
		      struct voff_pkt *pkt, const struct voff_parsed *parsed,
		      const struct voff_xmit_info *info, unsigned int max_segs)
{
	uint32_t max = info->l3_proto == 4 ? p->elim.gso_ipv4_max_size
					   : p->elim.gso_max_size;
	int n;

	n = voff_gso_resegment(pkt, max, max_segs, sw->pool, sw->segs,
			       SEGS_CAP);
	if (n == 0) {
		enqueue(p, pkt, parsed);
		return;
	}
	if (n < 0) {
		/* Not even one segment fits as a super-packet: cut to MSS. */
		segment(sw, p, pkt, false);
		return;
	}
	p->st.reseg_in++;
	p->st.reseg_out += (uint64_t)n;
	voff_pkt_free(pkt);
	enqueue_segs(sw, p, n);
}

/*
 * One packet leaving through @p: the transmit decision, then segment late.
 * A frame that asks for no offload needs no decision and is not parsed;
 * the others are parsed once (in sw->ep, shared by the copies of a
 * flooded frame), and the parse goes on to the encoder of their
 * virtio_net_hdr.
 * Ownership: consumes @pkt.
 */
static void output(struct voff_switch *sw, struct sw_port *p,
		   struct voff_pkt *pkt)
{
	struct egress_parse *ep = &sw->ep;
	struct voff_xmit_result r;
	struct voff_xmit_info info;
	const struct voff_parsed *parsed;
	enum voff_parse_start start = p->l3 ? VOFF_PARSE_IP : VOFF_PARSE_ETH;

	if (!voff_pkt_is_gso(pkt) && pkt->csum != VOFF_CSUM_PARTIAL) {
		enqueue(p, pkt, NULL);
		return;
	}
	if (ep->err == NOT_PARSED) {
		ep->err = voff_parse(voff_pkt_data(pkt), pkt->len, start,
				     &ep->own);
		ep->p = &ep->own;
	}
	parsed = ep->p;
	if (ep->err != 0 ||
	    voff_xmit_info_from_parsed(pkt, parsed, &info) != 0) {
		drop(p, pkt, VOFF_SWITCH_DROP_XMIT);
		return;
	}
	/* GSO reads the header offsets from the packet. */
	voff_pkt_set_offsets(pkt, parsed);
	voff_xmit_decide(pkt, &info, &p->eff, &p->elim, 0, &r);
	switch (r.verdict) {
	case VOFF_XMIT_PASS:
	case VOFF_XMIT_PASS_CSUM:
		enqueue(p, pkt, parsed);
		return;
	case VOFF_XMIT_PASS_GSO:
		/* A checksum that is not partial yet: cut with full sums. */
		if (r.reason == VOFF_XMIT_R_GSO_CSUM_SETUP)
			segment(sw, p, pkt, false);
		else
			enqueue(p, pkt, parsed);
		return;
	case VOFF_XMIT_CSUM_SW:
		if (voff_pkt_csum_complete(pkt) != 0) {
			drop(p, pkt, VOFF_SWITCH_DROP_CSUM);
			return;
		}
		p->st.csum_sw++;
		enqueue(p, pkt, NULL);	/* plain now: nothing to encode */
		return;
	case VOFF_XMIT_SEGMENT:
		segment(sw, p, pkt, r.seg_csum_hw);
		return;
	case VOFF_XMIT_RESEGMENT:
		resegment(sw, p, pkt, parsed, &info, r.max_segs);
		return;
	default:
		drop(p, pkt, VOFF_SWITCH_DROP_XMIT);
		return;
	}
}

/*
 * Send @pkt to the @n ports of sw->egress: copies for all but the last.
 * @parsed: the ingress validator's parse of @pkt, or NULL.
 */
static void fan_out(struct voff_switch *sw, struct sw_port *in,
		    struct voff_pkt *pkt, unsigned int n,
		    const struct voff_parsed *parsed)
{
	sw->ep.err = parsed ? 0 : NOT_PARSED;
	sw->ep.p = parsed;
	if (!n) {
		drop(in, pkt, VOFF_SWITCH_DROP_NO_EGRESS);
		return;
	}
	for (unsigned int i = 0; i + 1 < n; i++) {
		struct sw_port *e = &sw->p[sw->egress[i]];
		struct voff_pkt *copy;

		if (voff_pkt_clone(sw->pool, pkt, &copy) != 0) {
			e->st.drops[VOFF_SWITCH_DROP_NO_BUFFER]++;
			continue;
		}
		output(sw, e, copy);
	}
	output(sw, &sw->p[sw->egress[n - 1]], pkt);
}

/* Every other port of the ingress's domain (L2 or L3). */
static unsigned int flood_set(struct voff_switch *sw, unsigned int in_id)
{
	bool l3 = sw->p[in_id].l3;
	unsigned int n = 0;

	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++)
		if (i != in_id && sw->p[i].port && sw->p[i].l3 == l3)
			sw->egress[n++] = i;
	return n;
}

/* The VID of a frame's outer 802.1Q/802.1ad tag, or VOFF__FDB_NO_VLAN. */
static uint16_t frame_vlan(const struct voff_pkt *pkt, const uint8_t *d)
{
	if (pkt->len < 18 || !((d[12] == 0x81 && d[13] == 0x00) ||
			       (d[12] == 0x88 && d[13] == 0xA8)))
		return VOFF__FDB_NO_VLAN;
	return (uint16_t)((d[14] & 0x0F) << 8 | d[15]);
}

/*
 * @parsed: the ingress validator's parse of @pkt, or NULL.
 * Ownership: consumes @pkt.
 */
static void forward(struct voff_switch *sw, unsigned int in_id,
		    struct voff_pkt *pkt, uint64_t now,
		    const struct voff_parsed *parsed)
{
	struct sw_port *in = &sw->p[in_id];
	const uint8_t *d = voff_pkt_data(pkt);
	int dst;

	if (in->l3) {
		fan_out(sw, in, pkt, flood_set(sw, in_id), parsed);
		return;
	}
	if (pkt->len < 14) {
		drop(in, pkt, VOFF_SWITCH_DROP_RUNT);
		return;
	}
	if (!(d[6] & 1))
		voff__fdb_learn(&sw->fdb, d + 6, in_id, frame_vlan(pkt, d),
				now);
	dst = (d[0] & 1) ? -1 : voff__fdb_lookup(&sw->fdb, d, now);
	if (dst >= 0 && dst < VOFF_SWITCH_MAX_PORTS && sw->p[dst].port &&
	    !sw->p[dst].l3) {
		if ((unsigned int)dst == in_id) {
			/* The destination is behind the ingress: filter. */
			drop(in, pkt, VOFF_SWITCH_DROP_NO_EGRESS);
			return;
		}
		sw->egress[0] = (unsigned int)dst;
		fan_out(sw, in, pkt, 1, parsed);
		return;
	}
	in->st.flooded++;
	fan_out(sw, in, pkt, flood_set(sw, in_id), parsed);
}

static void drain_gro(struct voff_switch *sw, unsigned int id, uint64_t now)
{
	struct voff_pkt *pkt;

	while ((pkt = voff_gro_pop(sw->p[id].gro)))
		forward(sw, id, pkt, now, NULL);
}

/* The validator's parse of the frame at slot @i of a batch, or NULL. */
static const struct voff_parsed *rx_parse(const struct voff_switch *sw,
					  uint64_t ok, unsigned int i)
{
	return (ok >> i) & 1 ? &sw->rx_parsed[i] : NULL;
}

/*
 * The @n frames @pkts of one receive batch of port @id, from batch slot
 * @first on (@ok: the slots whose parse the validator left): through its
 * GRO engine a burst at a time (voff_gro_receive_burst() stops after a
 * frame it hands back, which goes after what the engine flushed before it:
 * earlier segments of its flow).  A frame forwarded as it came takes its
 * parse along; what GRO merged or held is parsed again if need be.
 */
static void ingress(struct voff_switch *sw, unsigned int id,
		    struct voff_pkt **pkts, unsigned int n, uint64_t now,
		    unsigned int first, uint64_t ok)
{
	struct sw_port *p = &sw->p[id];
	unsigned int k = 0;

	if (!p->gro) {
		for (k = 0; k < n; k++)
			forward(sw, id, pkts[k], now,
				rx_parse(sw, ok, first + k));
		return;
	}
	while (k < n) {
		int r = voff_gro_receive_burst(p->gro, pkts + k, n - k, now);

		if (r < 0) {
			/* Not reached: the batch holds no NULL packet. */
			while (k < n)
				voff_pkt_free(pkts[k++]);
			break;
		}
		k += (unsigned int)r;
		drain_gro(sw, id, now);
		if (k < n) {
			forward(sw, id, pkts[k], now,
				rx_parse(sw, ok, first + k));
			k++;
		}
	}
}

static void flush_all_tx(struct voff_switch *sw)
{
	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++)
		if (sw->p[i].port)
			flush_tx(&sw->p[i]);
}

/*
 * A port whose offloads or limits changed after it was added (a vhost-user
 * guest negotiated, a VXLAN port's remotes moved its MTU): read its egress
 * again, as voff_switch_add() did.  Nothing when its info did not change.
 */
static void egress_refresh(struct voff_switch *sw, struct sw_port *p)
{
	if (p->port->gen == p->egress_gen)
		return;
	p->egress_gen = p->port->gen;
	voff_port_egress(p->port, &p->egress, &p->egress_lim);
	update_feat(p);
	update_lim(p);
	propagate(sw);
}

void voff__switch_port_changed(struct voff_switch *sw, unsigned int id)
{
	struct sw_port *p = get(sw, id);

	if (p)
		egress_refresh(sw, p);
}

/*
 * Stop or start waiting on a held port's descriptor: a level-triggered
 * epoll would report a port whose frames are left unread at every wait.
 */
static void hold_fd(struct voff_switch *sw, struct sw_port *p, bool held)
{
	struct epoll_event ev = { .events = held ? 0 : EPOLLIN };

	ev.data.u32 = (uint32_t)(p - sw->p);
	if (p->fd >= 0)
		epoll_ctl(sw->epfd, EPOLL_CTL_MOD, p->fd, &ev);
}

/*
 * Police a port by what its last read held: @good frames taken, @bad
 * refused by its receive validation.  Mostly malformed: hold it, longer
 * each time, so that the kernel drops what floods it at its own queue
 * (counted in rx_kernel_dropped) instead of the switch reading and
 * refusing it frame by frame; a read that is not lets it go at once.
 */
static void police(struct voff_switch *sw, struct sw_port *p,
		   uint64_t good, uint64_t bad, uint64_t now)
{
	if (!p->backoff_max_ns || bad < POLICE_MIN ||
	    bad <= POLICE_RATIO * good) {
		p->hold_ns = 0;
		return;
	}
	p->hold_ns = p->hold_ns ? p->hold_ns * 2 : POLICE_FIRST_NS;
	if (p->hold_ns > p->backoff_max_ns)
		p->hold_ns = p->backoff_max_ns;
	p->hold_until = now + p->hold_ns;
	p->st.rx_held++;
	hold_fd(sw, p, true);
}

/*
 * Read one batch of port @id (at most its rx_budget frames) and forward
 * it.  Return: frames received, or a negative errno.
 */
static int read_port(struct voff_switch *sw, unsigned int id, uint64_t now)
{
	struct sw_port *p = &sw->p[id];
	uint64_t bad = p->port->stats.rx_dropped, ok;
	struct voff_batch rx;
	unsigned int first;
	int n;

	/*
	 * voff_port_rx() reads into the batch's free room: starting the
	 * batch rx_budget slots short of full bounds the read.
	 */
	voff_batch_init(&rx);
	first = VOFF_BATCH_MAX - p->rx_budget;
	rx.n = first;
	voff__port_rx_keep_parses(p->port, sw->rx_parsed);
	n = voff_port_rx(p->port, sw->pool, &rx);
	ok = p->port->rx_parsed_ok;
	voff__port_rx_keep_parses(p->port, NULL);
	egress_refresh(sw, p);
	if (n < 0 && n != -ENOBUFS && n != -EAGAIN && n != -EINTR) {
		/* The device went away. */
		voff__switch_fail(sw, id, n);
	} else if (p->fd >= 0) {
		rewatch(sw, p);
	}
	ingress(sw, id, rx.pkts + first, rx.n - first, now, first, ok);
	police(sw, p, rx.n - first, p->port->stats.rx_dropped - bad, now);
	/*
	 * A port that filled its budget likely has more ready: step again
	 * at once rather than ask epoll (a system call).
	 */
	p->busy = !p->hold_ns && n > 0 &&
		  (p->fd < 0 || rx.n == VOFF_BATCH_MAX);
	return n;
}

static int step(struct voff_switch *sw)
{
	uint64_t now = now_ns();
	int total = 0;

	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct sw_port *p = &sw->p[i];

		if (!p->port || p->failed)
			continue;
		if (p->hold_ns && now >= p->hold_until)
			hold_fd(sw, p, false);
		if (!p->hold_ns || now >= p->hold_until) {
			int n = read_port(sw, i, now);

			if (n > 0)
				total += n;
		}
		if (p->gro && voff_gro_flush(p->gro, now))
			drain_gro(sw, i, now);
	}
	flush_all_tx(sw);
	if (total) {
		if (sw->busy_poll_ns)
			sw->spin_ns = voff__spin_on_frame(
				sw->busy_poll_ns, sw->spin_ns,
				sw->last_rx_ns ? now - sw->last_rx_ns
					       : UINT64_MAX);
		sw->last_rx_ns = now;
	}
	return total;
}

uint64_t voff__spin_on_frame(uint64_t max, uint64_t cur, uint64_t gap_ns)
{
	return gap_ns < max ? max : cur;
}

uint64_t voff__spin_on_empty(uint64_t max, uint64_t cur)
{
	uint64_t floor = max / 16 + 1;

	return cur / 2 < floor ? floor : cur / 2;
}

/* Busy-polling, and the last frame came within the window. */
static bool spinning(const struct voff_switch *sw, uint64_t now)
{
	return sw->busy_poll_ns && sw->last_rx_ns &&
	       now - sw->last_rx_ns < sw->spin_ns;
}

bool voff__spin_yield_now(uint64_t *last_ns, uint64_t now_ns)
{
	if (now_ns - *last_ns < VOFF__SPIN_YIELD_NS)
		return false;
	*last_ns = now_ns;
	return true;
}

/*
 * Steps without sleeping until one receives or the window closes (step()
 * and voff__spin_on_frame() open it whole again on a frame; one that
 * closes empty halves the next, voff__spin_on_empty()).  A spinning step
 * costs no system call on a port that can tell from memory that it has
 * nothing (a TAP's multishot ring, a packet port's receive ring).
 */
static int spin(struct voff_switch *sw)
{
	for (;;) {
		int n = step(sw);
		uint64_t now;

		if (n > 0)
			return n;
		now = now_ns();
		/*
		 * A task woken on this CPU (the receiver of a frame the switch
		 * just wrote lands here often) would otherwise wait for the
		 * spinner's whole time slice, milliseconds: give the CPU up
		 * now and then.  With nothing else to run, it costs one
		 * system call every VOFF__SPIN_YIELD_NS.
		 */
		if (voff__spin_yield_now(&sw->yield_ns, now))
			sched_yield();
		if (!spinning(sw, now)) {
			sw->spin_ns = voff__spin_on_empty(sw->busy_poll_ns,
							  sw->spin_ns);
			return 0;
		}
	}
}

/* The longest sleep voff_switch_timeout_ns() reports while flows are held. */
#define SLEEP_CAP_NS 1000000000ll

int64_t voff_switch_timeout_ns(const struct voff_switch *sw)
{
	uint64_t first = UINT64_MAX, t, now = now_ns();

	if (spinning(sw, now))
		return 0;
	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++) {
		const struct sw_port *p = &sw->p[i];

		if (!p->port)
			continue;
		if (p->busy)
			return 0;
		if (p->gro && voff_gro_next_deadline(p->gro, &t) && t < first)
			first = t;
		if (p->hold_ns && !p->failed && p->hold_until < first)
			first = p->hold_until;
	}
	if (first == UINT64_MAX)
		return -1;
	if (first <= now)
		return 0;
	t = first - now;
	return t > (uint64_t)SLEEP_CAP_NS ? SLEEP_CAP_NS : (int64_t)t;
}

int voff_switch_timeout_ms(const struct voff_switch *sw)
{
	int64_t ns = voff_switch_timeout_ns(sw);

	return ns <= 0 ? (int)ns : (int)((ns + 999999) / 1000000);
}

int voff_switch_fd(const struct voff_switch *sw)
{
	return sw->epfd;
}

/* A port step() would read has frames waiting in memory (no system call). */
static bool rx_ready(const struct voff_switch *sw)
{
	for (unsigned int i = 0; i < VOFF_SWITCH_MAX_PORTS; i++) {
		const struct sw_port *p = &sw->p[i];

		if (p->port && !p->failed && !p->hold_ns &&
		    voff__port_rx_ready(p->port))
			return true;
	}
	return false;
}

int voff_switch_poll(struct voff_switch *sw, int timeout_ms)
{
	struct epoll_event ev[VOFF_SWITCH_MAX_PORTS];
	int64_t t;
	struct timespec ts;
	int n;

	if (spinning(sw, now_ns()))
		return spin(sw);
	t = voff_switch_timeout_ns(sw);
	/*
	 * A GRO deadline is kept to the nanosecond (epoll_pwait2()): rounded
	 * up to a millisecond, a 20 us gro_flush_timeout would hold the tail
	 * of a train 50 times longer when the traffic pauses.
	 */
	if (timeout_ms >= 0 && (t < 0 || (int64_t)timeout_ms * 1000000 < t))
		t = (int64_t)timeout_ms * 1000000;
	ts.tv_sec = t / 1000000000;
	ts.tv_nsec = t % 1000000000;
	if (t != 0 && epoll_pwait2(sw->epfd, ev, VOFF_SWITCH_MAX_PORTS,
				   t < 0 ? NULL : &ts, NULL) < 0)
		return -errno;
	n = step(sw);
	/*
	 * The answer to a frame this step wrote may be in memory already: a
	 * namespace's stack answers inside the write's own system call (an
	 * ICMP echo, an ARP request), and a TAP's multishot read takes the
	 * answer before that call returns.  Forward it now rather than after
	 * the caller's next wait, a system call that would return at once.
	 * One step more at most: a port that keeps having frames is the
	 * caller's next call's.
	 */
	if (n > 0 && rx_ready(sw))
		n += step(sw);
	return n;
}

/* ---- control ------------------------------------------------------------- */

/*
 * The engine's largest datagram for the port's gro_max_size: a merged
 * datagram stays below gro_max_size, as in the kernel, and voff merges no
 * more than 64 KiB (gro_max_size 0 merges nothing: 1 byte fits no two).
 */
static unsigned int gro_max_datagram(const struct sw_port *p)
{
	uint32_t max = min32(p->lim.gro_max_size, VOFF_GRO_MAX_DATAGRAM + 1);

	return max > 1 ? max - 1 : 1;
}

static int gro_on(struct sw_port *p)
{
	struct voff_gro_config c = { 0 };

	c.start = p->l3 ? VOFF_PARSE_IP : VOFF_PARSE_ETH;
	c.max_size = gro_max_datagram(p);
	c.flush_timeout_ns = p->gro_timeout_ns;
	return voff_gro_new(&p->gro, &c);
}

/* Flush and forward what the engine holds, then free it. */
static void gro_off(struct voff_switch *sw, unsigned int id)
{
	struct sw_port *p = &sw->p[id];
	struct voff_gro_stats g;

	voff_gro_flush_all(p->gro);
	drain_gro(sw, id, now_ns());
	/* Its packets must be back before the engine goes. */
	flush_all_tx(sw);
	voff_gro_stats(p->gro, &g);
	p->gro_merged_base += g.merged;
	p->gro_out_base += g.out_merged;
	voff_gro_free(p->gro);
	p->gro = NULL;
}

int voff__switch_features(struct voff_switch *sw, unsigned int id,
			  uint64_t mask, uint64_t on, bool quiet)
{
	struct sw_port *p = get(sw, id);
	struct voff_switch_event ev = { .type = VOFF_SWITCH_EV_FEATURES };
	uint64_t old_wanted;
	bool gro;

	if (!p)
		return -ENOENT;
	old_wanted = p->feat.wanted;
	mask &= p->feat.hw;
	p->feat.wanted = (p->feat.wanted & ~mask) | (on & mask);
	update_feat(p);
	gro = p->feat.active & VOFF_F_GRO;
	if (gro && !p->gro) {
		int err = gro_on(p);

		if (err) {
			p->feat.wanted = old_wanted;
			update_feat(p);
			return err;
		}
	} else if (!gro && p->gro) {
		gro_off(sw, id);
	}
	if (quiet || p->feat.wanted == old_wanted)
		return 0;
	ev.port = id;
	ev.old_value = old_wanted;
	ev.new_value = p->feat.wanted;
	voff__switch_emit(sw, &ev);
	return 0;
}

int voff_switch_set_features(struct voff_switch *sw, unsigned int id,
			     uint64_t mask, uint64_t on)
{
	return voff__switch_features(sw, id, mask, on, false);
}

uint64_t voff__switch_default_wanted(void)
{
	return PORT_HW & ~VOFF_F_GRO;
}

/*
 * Frames a down device refused: a TAP or TUN set down answers EIO to
 * every write, a packet socket ENETDOWN.
 */
static uint64_t refused_down(const struct voff_port *port)
{
	return voff_port_drop_count(port, VOFF_PORT_TX, -EIO) +
	       voff_port_drop_count(port, VOFF_PORT_TX, -ENETDOWN);
}

void voff_switch_tick(struct voff_switch *sw)
{
	for (unsigned int i = 0; sw && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct sw_port *p = get(sw, i);
		struct voff_port_stats st;
		uint64_t refused;
		bool sent, got;

		if (!p)
			continue;
		voff_port_stats(p->port, &st);
		refused = refused_down(p->port);
		sent = st.tx_packets != p->tick_tx;
		got = st.rx_packets != p->tick_rx;
		if (!p->down && !sent && refused != p->tick_refused) {
			p->down = true;
			port_event(sw, i, VOFF_SWITCH_EV_PORT_DOWN,
				   voff_port_drop_count(p->port, VOFF_PORT_TX,
							-EIO) ? -EIO
							      : -ENETDOWN);
		} else if (p->down && (sent || got)) {
			p->down = false;
			port_event(sw, i, VOFF_SWITCH_EV_PORT_UP, 0);
		}
		p->tick_tx = st.tx_packets;
		p->tick_rx = st.rx_packets;
		p->tick_refused = refused;
	}
}

/* ---- re-opening failed ports ---------------------------------------------- */

uint64_t voff__retry_next(uint64_t max_ns, uint64_t cur_ns)
{
	uint64_t next = cur_ns ? cur_ns * 2 : VOFF__RETRY_FIRST_NS;

	/* Doubling from 1 s cannot wrap before the cap (an hour) stops it. */
	return next < max_ns ? next : max_ns;
}

void voff__switch_fail(struct voff_switch *sw, unsigned int id, int err)
{
	struct sw_port *p = get(sw, id);

	if (!p || p->failed)
		return;
	fail(sw, p);
	port_event(sw, id, VOFF_SWITCH_EV_PORT_FAILED, err);
}

int voff__switch_release(struct voff_switch *sw, unsigned int id)
{
	struct sw_port *p = get(sw, id);

	return p && p->failed ? fail(sw, p) : -ENOENT;
}

bool voff__switch_retry_due(struct voff_switch *sw, unsigned int id,
			    uint64_t now_ns)
{
	struct sw_port *p = get(sw, id);

	if (!p || !p->failed || !p->retry_max_s)
		return false;
	if (!p->retry_ns) {
		p->retry_ns = voff__retry_next(p->retry_max_s * 1000000000ull,
					       0);
		p->retry_at = now_ns + p->retry_ns;
		return false;
	}
	return now_ns >= p->retry_at;
}

void voff__switch_retry_failed(struct voff_switch *sw, unsigned int id,
			       int err, uint64_t now_ns)
{
	struct voff_switch_event ev = { .type = VOFF_SWITCH_EV_PORT_RETRY };
	struct sw_port *p = get(sw, id);

	if (!p)
		return;
	p->st.retries++;
	p->retry_ns = voff__retry_next(p->retry_max_s * 1000000000ull,
				       p->retry_ns);
	p->retry_at = now_ns + p->retry_ns;
	ev.port = id;
	ev.err = err;
	ev.new_value = p->st.retries;
	voff__switch_emit(sw, &ev);
}

void voff__switch_reopening(struct voff_switch *sw, bool on)
{
	sw->reopening = on;
}

void voff__switch_retry_took(struct voff_switch *sw, unsigned int id,
			     uint64_t retries)
{
	struct sw_port *p = get(sw, id);

	if (p)
		p->st.retries = retries;
}

int voff__switch_set_port_retry(struct voff_switch *sw, unsigned int id,
				unsigned int seconds)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	p->retry_max_s = seconds;
	/* A shorter cap holds from the next attempt on. */
	if (p->retry_ns > seconds * 1000000000ull)
		p->retry_ns = seconds * 1000000000ull;
	return 0;
}

int voff__switch_set_limit(struct voff_switch *sw, unsigned int id,
			   enum voff_limit which, uint32_t value)
{
	struct sw_port *p = get(sw, id);
	struct voff_limits l;
	int err;

	if (!p)
		return -ENOENT;
	l = p->lim;
	err = voff_limits_set(&l, which, value);
	if (err)
		return err;
	/* No BIG TCP below this size: IPv4 follows, as at 64 KiB or less. */
	if (which == VOFF_LIMIT_GSO_MAX_SIZE && value <= VOFF_GSO_FRAME_LIMIT)
		l.gso_ipv4_max_size = value;
	p->lim = l;
	update_lim(p);
	/* Only merges to come are bounded: nothing held moves. */
	if (p->gro)
		voff_gro_set_max_size(p->gro, gro_max_datagram(p));
	propagate(sw);
	return 0;
}

int voff__switch_initial_limits(const struct voff_switch *sw, unsigned int id,
				struct voff_limits *out)
{
	const struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	*out = p->lim0;
	return 0;
}

int voff__switch_set_rx_budget(struct voff_switch *sw, unsigned int id,
			       unsigned int frames)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	p->rx_budget = frames;
	return 0;
}

int voff__switch_set_rx_backoff(struct voff_switch *sw, unsigned int id,
				uint64_t ns)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	p->backoff_max_ns = ns;
	if (p->hold_ns && p->hold_ns > ns) {
		/* Read it at the next step: a shorter hold, or none. */
		p->hold_until = 0;
	}
	return 0;
}

int voff__switch_set_gro_timeout(struct voff_switch *sw, unsigned int id,
				 uint64_t ns)
{
	struct sw_port *p = get(sw, id);

	if (!p)
		return -ENOENT;
	p->gro_timeout_ns = ns;
	if (p->gro)
		voff_gro_set_flush_timeout(p->gro, ns);
	return 0;
}

struct fdb_walk {
	struct voff_switch_fdb_entry *out;
	unsigned int cap, n;
};

static void fdb_one(void *arg, const uint8_t *mac, uint32_t port,
		    uint16_t vlan, uint64_t age_ns, bool is_static)
{
	struct fdb_walk *w = arg;

	if (w->n < w->cap) {
		struct voff_switch_fdb_entry *e = &w->out[w->n];

		memset(e, 0, sizeof(*e));
		memcpy(e->mac, mac, 6);
		e->port = port;
		e->vlan = vlan == VOFF__FDB_NO_VLAN ? -1 : vlan;
		e->age_ns = age_ns;
		e->is_static = is_static;
	}
	w->n++;
}

unsigned int voff_switch_fdb(const struct voff_switch *sw,
			     struct voff_switch_fdb_entry *out,
			     unsigned int cap)
{
	struct fdb_walk w = { out, cap, 0 };

	voff__fdb_walk(&sw->fdb, now_ns(), fdb_one, &w);
	/* The second level: the VTEP a VXLAN port keeps for the MAC. */
	for (unsigned int i = 0; i < w.n && i < cap; i++) {
		const struct sw_port *p = get(sw, out[i].port);

		if (p)
			voff_port_vxlan_fdb_lookup(p->port, out[i].mac,
						   &out[i].remote, NULL);
	}
	return w.n;
}

int voff_switch_fdb_add(struct voff_switch *sw, const uint8_t *mac,
			unsigned int id, const union voff_udp_addr *remote)
{
	struct sw_port *p = get(sw, id);
	uint64_t now = now_ns();
	int err;

	if (!p)
		return -ENOENT;
	if (!mac || (mac[0] & 1) || p->l3)
		return -EINVAL;
	if (remote) {
		err = voff_port_vxlan_fdb_add(p->port, mac, remote);
		if (err)
			return err;
	}
	err = voff__fdb_add_static(&sw->fdb, mac, id, VOFF__FDB_NO_VLAN, now);
	if (err && remote)
		voff_port_vxlan_fdb_del(p->port, mac);
	return err;
}

int voff_switch_fdb_del(struct voff_switch *sw, const uint8_t *mac)
{
	uint64_t now = now_ns();
	int id;

	if (!mac)
		return -EINVAL;
	id = voff__fdb_lookup(&sw->fdb, mac, now);
	if (id >= 0 && get(sw, (unsigned int)id))
		voff_port_vxlan_fdb_del(sw->p[id].port, mac);
	return voff__fdb_del(&sw->fdb, mac, now);
}
