/* SPDX-License-Identifier: MIT */
/*
 * switch.c - `voff switch`: run a struct voff_switch over the ports given
 * on the command line and in a configuration file, answering `voff ctl`
 * on a UNIX socket (ctl_server.c), until SIGINT or SIGTERM; everything it
 * created goes away with it
 *
 * As a service: it logs what happens (log.c: the library's events, its
 * own start, stop and reloads, refused control peers, ports whose drop
 * rate passes a threshold), re-reads its configuration on SIGHUP or
 * `voff ctl reload` and applies the difference
 * (voff_switch_conf_apply()), streams events to `voff ctl monitor`,
 * keeps a pid file and tells systemd when it is ready (service.c).
 *
 * Once the ports are open it gives up the privileges it no longer needs
 * (isolation.c has the stages and the capability table).  No request
 * names a file the switch would open (pcap: ports come from the command
 * line and the configuration only).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <voff/voff.h>

#include "cmd.h"
#include "ctl_server.h"
#include "isolation.h"
#include "log.h"
#include "num.h"
#include "opts.h"
#include "service.h"

#define MAX_SPECS VOFF_SWITCH_MAX_PORTS
/* Housekeeping (voff_switch_tick(), drop-rate windows) every second. */
#define TICK_NS 1000000000ll
/* A window with fewer frames than this raises no drop-rate alarm. */
#define ALARM_MIN_FRAMES 100

static volatile sig_atomic_t stop_sig, reload_req;

/**
 * struct alarm - drop-rate accounting of one port id
 * @handled:	frames received, sent or dropped, at the window's start
 * @dropped:	of those, dropped
 * @drops:	the switch's drops by reason, at the window's start
 * @rx_dropped:	the port's own receive drops then
 * @tx_dropped:	and send drops
 * @on:		the alarm is raised (cleared by a window below threshold)
 *
 * A port's counters start at zero when it is added, and so does its
 * entry here (on_event()).
 */
struct alarm {
	uint64_t handled;
	uint64_t dropped;
	uint64_t drops[VOFF_SWITCH_DROP__COUNT];
	uint64_t rx_dropped, tx_dropped;
	bool on;
};

/**
 * struct svc - the running switch and what it needs to reload and report
 * @sw:		the switch
 * @srv:	its control server
 * @st:		the control server's policy and counters
 * @specs:	the --port specs, read before the file at every (re)load
 * @nspecs:	how many
 * @config:	the --config file, NULL for none
 * @conf:	the configuration last read (--port and --config): the
 *		failed ports it declares, and those added at run time, are
 *		re-opened (tick())
 * @alarm_pct:	drop-rate threshold in whole percent, 0: no alarms
 * @window:	ticks per drop-rate window
 * @ticks:	ticks since the window started
 * @alarm:	per port id
 * @retry_err:	per port id: the reason of the last failed re-open logged
 *		above debug (0: none since it failed)
 */
struct svc {
	struct voff_switch *sw;
	struct ctl_server *srv;
	struct voff_switch_ctl_state st;
	const char *const *specs;
	int nspecs;
	const char *config;
	struct voff_switch_conf *conf;
	unsigned int alarm_pct;
	unsigned int window;
	unsigned int ticks;
	bool busy_poll;			/* --busy-poll: see loop() */
	struct alarm alarm[VOFF_SWITCH_MAX_PORTS];
	int retry_err[VOFF_SWITCH_MAX_PORTS];
};

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_req = 1;
	else
		stop_sig = sig;
}

/* ---- the configuration ---------------------------------------------------- */

/*
 * The --port specs (as `ports add` lines of source "--port"), then the
 * file's lines.  Return: 0 or a negative errno, with the reason in @err.
 */
static int conf_build(const struct svc *v, struct voff_switch_conf **out,
		      char *err, size_t errlen)
{
	struct voff_switch_conf *c;
	char line[VOFF_PORT_SPEC_MAX + 16];
	int rc;

	rc = voff_switch_conf_new(&c);
	if (rc) {
		snprintf(err, errlen, "%s", voff_strerror(rc));
		return rc;
	}
	for (int i = 0; !rc && i < v->nspecs; i++) {
		int n = snprintf(line, sizeof(line), "ports add %s",
				 v->specs[i]);

		rc = voff_switch_conf_line(c, line, (size_t)n, "--port", 0);
	}
	if (!rc && v->config) {
		FILE *f = fopen(v->config, "re");

		if (!f) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", v->config,
				 voff_strerror(rc));
			voff_switch_conf_free(c);
			return rc;
		}
		rc = voff_switch_conf_read(c, f, v->config);
		fclose(f);
	}
	if (rc) {
		snprintf(err, errlen, "%s", voff_switch_conf_error(c));
		voff_switch_conf_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* SIGHUP and `voff ctl reload`: the file again, applied as a difference. */
static int reload(struct svc *v, char *err, size_t errlen)
{
	struct voff_switch_conf_result r;
	struct voff_switch_conf *c;
	int rc;

	if (!v->config) {
		snprintf(err, errlen, "reload: this switch was started "
			 "without --config");
		log_event(LOG_LVL_WARNING, "reload_refused", NULL, NULL,
			  "reload refused: no --config");
		return -ENOENT;
	}
	sd_notify_send("RELOADING=1");
	rc = conf_build(v, &c, err, errlen);
	if (rc) {
		log_event(LOG_LVL_ERROR, "reload_refused", NULL, NULL,
			  "config reload refused, nothing changed: %s", err);
		sd_notify_send("READY=1");
		return rc;
	}
	rc = voff_switch_conf_apply(v->sw, c, v->st.deny, &r);
	if (rc) {
		snprintf(err, errlen, "%s", voff_switch_conf_error(c));
		log_event(LOG_LVL_ERROR, "reload_failed", NULL, NULL,
			  "config reload stopped: %s", err);
	} else {
		log_event(LOG_LVL_NOTICE, "reload", NULL, NULL,
			  "config %s reloaded: %u added, %u removed, %u "
			  "changed, %u unchanged", v->config, r.added,
			  r.removed, r.changed, r.kept);
	}
	/* What the file says now is what the retries re-open. */
	voff_switch_conf_free(v->conf);
	v->conf = c;
	sd_notify_send("READY=1");
	return rc;
}

/* ---- commands this switch adds to the control language --------------- */

static int cmd_reload(void *ctx, char **w, int n, FILE *out, bool json,
		      char *err, size_t errlen)
{
	int rc;

	(void)w;
	(void)n;
	rc = reload(ctx, err, errlen);
	if (!rc && json)
		fputs("{\"ok\":true}\n", out);
	return rc;
}

static int cmd_monitor(void *ctx, char **w, int n, FILE *out, bool json,
		       char *err, size_t errlen)
{
	struct svc *v = ctx;

	(void)w;
	(void)n;
	(void)out;
	return ctl_server_monitor(v->srv, json, err, errlen);
}

static const struct voff_switch_ctl_cmd owner_cmds[] = {
	{ "reload", "", 0, 0, cmd_reload,
	  "re-read the configuration file and apply the difference" },
	{ "monitor", "", 0, 0, cmd_monitor,
	  "stream events, one line each, until closed" },
};
const struct voff_switch_ctl_cmd *const switch_ctl_cmds = owner_cmds;
const unsigned int switch_ctl_ncmds =
	sizeof(owner_cmds) / sizeof(owner_cmds[0]);

/* ---- events of the library, logged -------------------------------------- */

/* The wanted features that changed, as "tso off, sg on". */
static void feature_changes(uint64_t old, uint64_t now, char *buf,
			    size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int id = 0; id < VOFF_FEAT__COUNT && off < len; id++) {
		uint64_t bit = voff_feat_bit((enum voff_feat_id)id);

		if (!((old ^ now) & bit))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s",
					off ? ", " : "",
					voff_feat_name((enum voff_feat_id)id),
					now & bit ? "on" : "off");
	}
}

static void log_setting(const struct voff_switch_event *ev)
{
	bool b = ev->setting->type == VOFF_SWITCH_SETTING_BOOL;
	char old[32], now[32], f[128];

	voff_switch_setting_format(ev->setting, ev->old_value, old,
				   sizeof(old));
	voff_switch_setting_format(ev->setting, ev->new_value, now,
				   sizeof(now));
	/* JSON: a number, or true and false for on and off. */
	snprintf(f, sizeof(f), ",\"setting\":\"%s\",\"old\":%s,\"new\":%s",
		 ev->setting->name,
		 b ? (ev->old_value ? "true" : "false") : old,
		 b ? (ev->new_value ? "true" : "false") : now);
	log_event(LOG_LVL_INFO, "setting", ev->name, f, "port %s: %s %s -> %s",
		  ev->name, ev->setting->name, old, now);
}

static void log_propagated(const struct voff_switch_event *ev)
{
	char f[160];

	snprintf(f, sizeof(f), ",\"old_gso_max_size\":%" PRIu32
		 ",\"gso_max_size\":%" PRIu32 ",\"old_gso_max_segs\":%" PRIu32
		 ",\"gso_max_segs\":%" PRIu32, ev->old_size, ev->new_size,
		 ev->old_segs, ev->new_segs);
	if (ev->type == VOFF_SWITCH_EV_PROPAGATED)
		log_event(LOG_LVL_INFO, "propagated", ev->name, f,
			  "port %s: gso_max_size %" PRIu32 " -> %" PRIu32
			  ", gso_max_segs %" PRIu32 " -> %" PRIu32
			  " (propagated)", ev->name, ev->old_size,
			  ev->new_size, ev->old_segs, ev->new_segs);
	else
		log_event(LOG_LVL_WARNING, "propagate_failed", ev->name, f,
			  "port %s: its device refused gso_max_size %" PRIu32
			  ", gso_max_segs %" PRIu32 ": %s", ev->name,
			  ev->new_size, ev->new_segs, voff_strerror(ev->err));
}

/*
 * Is port @pi re-opened when it failed: one of the configuration's, or
 * one added at run time from a spec (voff_switch_conf_retry())?
 */
static bool retried(const struct svc *v,
		    const struct voff_switch_port_info *pi)
{
	const struct voff_port_spec *s;

	if (!v->conf || !pi->port_retry)
		return false;
	if (*pi->spec)
		return true;
	for (unsigned int i = 0; (s = voff_switch_conf_port(v->conf, i)); i++)
		if (!strcmp(s->cfg.name, pi->name))
			return true;
	return false;
}

static void log_failed(struct svc *v, const struct voff_switch_event *ev)
{
	struct voff_switch_port_info pi = { 0 };
	const char *n = ev->name;

	v->retry_err[ev->port] = 0;
	voff_switch_port_info(v->sw, ev->port, &pi);
	if (retried(v, &pi))
		log_event(LOG_LVL_ERROR, "port_failed", n, NULL,
			  "port %s failed: %s; no longer polled, re-opened "
			  "when it opens again (tried after 1 s, then at "
			  "waits doubling up to %u s: port_retry; `voff ctl "
			  "ports del %s` removes it)", n,
			  voff_strerror(ev->err), pi.port_retry, n);
	else
		log_event(LOG_LVL_ERROR, "port_failed", n, NULL,
			  "port %s failed: %s; no longer polled (`voff ctl "
			  "ports del %s` removes it, a reload that lists it "
			  "re-opens it)", n, voff_strerror(ev->err), n);
}

/*
 * A re-open that failed: told at info the first time and when the reason
 * changes, at debug when it fails again alike (one line a failure, not
 * one an attempt).
 */
static void log_retry(struct svc *v, const struct voff_switch_event *ev)
{
	struct voff_switch_port_info pi = { 0 };
	bool again = v->retry_err[ev->port] == ev->err;
	bool priv = ev->err == -EPERM &&
		    (v->st.deny & VOFF_SWITCH_CTL_DENY_ADD);
	char f[96];

	v->retry_err[ev->port] = ev->err;
	voff_switch_port_info(v->sw, ev->port, &pi);
	snprintf(f, sizeof(f), ",\"retries\":%" PRIu64 ",\"next_s\":%" PRIu64,
		 ev->new_value, pi.retry_ns / 1000000000u);
	log_event(again ? LOG_LVL_DEBUG : LOG_LVL_INFO, "port_retry",
		  ev->name, f, "port %s: re-open %" PRIu64 " failed: %s%s; "
		  "next in %" PRIu64 " s", ev->name, ev->new_value,
		  voff_strerror(ev->err),
		  priv ? " (--drop-caps: this switch dropped the privileges "
			 "to open ports)" : "", pi.retry_ns / 1000000000u);
}

static void on_event(void *ctx, const struct voff_switch_event *ev)
{
	struct svc *v = ctx;
	const char *n = ev->name;
	char f[400], spec[300], feats[512];

	json_string(ev->spec, spec, sizeof(spec));
	snprintf(f, sizeof(f), ",\"spec\":%s", spec);
	switch (ev->type) {
	case VOFF_SWITCH_EV_PORT_ADDED:
		memset(&v->alarm[ev->port], 0, sizeof(v->alarm[0]));
		/* A re-open is told once, by its PORT_RECOVERED. */
		log_event(ev->new_value ? LOG_LVL_INFO : LOG_LVL_NOTICE,
			  "port_added", n, f,
			  "port %s added%s%s%s", n, *ev->spec ? " (" : "",
			  ev->spec, *ev->spec ? ")" : "");
		break;
	case VOFF_SWITCH_EV_PORT_REMOVED:
		log_event(ev->new_value ? LOG_LVL_INFO : LOG_LVL_NOTICE,
			  "port_removed", n, f,
			  "port %s removed", n);
		break;
	case VOFF_SWITCH_EV_PORT_DOWN:
		log_event(LOG_LVL_WARNING, "port_down", n, NULL,
			  "port %s down: its device refuses frames (%s)", n,
			  voff_strerror(ev->err));
		break;
	case VOFF_SWITCH_EV_PORT_UP:
		log_event(LOG_LVL_NOTICE, "port_up", n, NULL, "port %s up", n);
		break;
	case VOFF_SWITCH_EV_PORT_FAILED:
		log_failed(v, ev);
		break;
	case VOFF_SWITCH_EV_PORT_RETRY:
		log_retry(v, ev);
		break;
	case VOFF_SWITCH_EV_PORT_RECOVERED:
		log_event(LOG_LVL_NOTICE, "port_recovered", n, f,
			  "port %s recovered: re-opened", n);
		break;
	case VOFF_SWITCH_EV_SETTING:
		log_setting(ev);
		break;
	case VOFF_SWITCH_EV_FEATURES:
		feature_changes(ev->old_value, ev->new_value, feats,
				sizeof(feats));
		log_event(LOG_LVL_INFO, "features", n, NULL,
			  "port %s: features %s", n, feats);
		break;
	case VOFF_SWITCH_EV_PROPAGATED:
	case VOFF_SWITCH_EV_PROPAGATE_FAILED:
		log_propagated(ev);
		break;
	default:
		break;
	}
}

/* ---- drop-rate alarms ----------------------------------------------------- */

/* Counters of port @id now, as struct alarm keeps them. */
static void alarm_read(const struct svc *v, unsigned int id, struct alarm *a)
{
	struct voff_switch_stats s;

	memset(a, 0, sizeof(*a));
	if (voff_switch_stats(v->sw, id, &s))
		return;
	memcpy(a->drops, s.drops, sizeof(a->drops));
	a->rx_dropped = s.port.rx_dropped;
	a->tx_dropped = s.port.tx_dropped;
	a->dropped = a->rx_dropped + a->tx_dropped;
	for (int d = 0; d < VOFF_SWITCH_DROP__COUNT; d++)
		a->dropped += s.drops[d];
	a->handled = s.port.rx_packets + s.port.tx_packets + a->dropped;
}

/* "tx_dropped 1200, no_buffer 50": what was dropped in the window, why. */
static void alarm_why(const struct alarm *now, const struct alarm *then,
		      char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (now->rx_dropped > then->rx_dropped)
		off += (size_t)snprintf(buf + off, len - off, "rx_dropped %"
					PRIu64, now->rx_dropped -
					then->rx_dropped);
	if (now->tx_dropped > then->tx_dropped && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%stx_dropped %"
					PRIu64, off ? ", " : "",
					now->tx_dropped - then->tx_dropped);
	for (int d = 0; d < VOFF_SWITCH_DROP__COUNT && off < len; d++)
		if (now->drops[d] > then->drops[d])
			off += (size_t)snprintf(buf + off, len - off,
						"%s%s %" PRIu64,
						off ? ", " : "",
						voff_switch_drop_name(d),
						now->drops[d] - then->drops[d]);
}

/* One window of port @id ended: raise or clear its alarm. */
static void alarm_check(struct svc *v, unsigned int id, const char *name)
{
	struct alarm *a = &v->alarm[id], now;
	uint64_t handled, dropped;
	double pct;
	char f[64];

	alarm_read(v, id, &now);
	handled = now.handled - a->handled;
	dropped = now.dropped - a->dropped;
	if (now.handled < a->handled) {
		/* Not the counters of the window's start: start again. */
		*a = now;
		return;
	}
	pct = handled ? 100.0 * (double)dropped / (double)handled : 0;
	snprintf(f, sizeof(f), ",\"dropped\":%" PRIu64 ",\"handled\":%" PRIu64,
		 dropped, handled);
	if (handled >= ALARM_MIN_FRAMES && pct > v->alarm_pct) {
		char why[256];

		alarm_why(&now, a, why, sizeof(why));
		log_event(LOG_LVL_WARNING, "drop_alarm", name, f,
			  "port %s: %.1f %% of frames dropped over the last "
			  "%u s (%" PRIu64 " of %" PRIu64 ": %s)", name, pct,
			  v->window, dropped, handled, why);
		now.on = true;
	} else if (a->on) {
		log_event(LOG_LVL_NOTICE, "drop_alarm_cleared", name, f,
			  "port %s: drop rate back to %.1f %% over the last "
			  "%u s", name, pct, v->window);
		now.on = false;
	}
	*a = now;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void tick(struct svc *v)
{
	unsigned int ids[VOFF_SWITCH_MAX_PORTS], n;

	voff_switch_tick(v->sw);
	/* Where reloads open ports: between steps, never per frame. */
	if (v->conf)
		voff_switch_conf_retry(v->sw, v->conf, v->st.deny,
				       (uint64_t)mono_ns());
	if (!v->alarm_pct || ++v->ticks < v->window)
		return;
	v->ticks = 0;
	n = voff_switch_ports(v->sw, ids, VOFF_SWITCH_MAX_PORTS);
	for (unsigned int i = 0; i < n && i < VOFF_SWITCH_MAX_PORTS; i++) {
		struct voff_switch_port_info pi;

		if (!voff_switch_port_info(v->sw, ids[i], &pi))
			alarm_check(v, ids[i], pi.name);
	}
}

/* ---- the loop --------------------------------------------------------------- */

/*
 * While busy-polling, how often at least the loop looks at the control
 * socket and lets signals in while the switch would have it not wait (it
 * spins, or a port has more): a ppoll() after every frame the spin
 * returns with would be a system call between a request's forwarding and
 * its reply's.  A spin that closes empty returns to a ppoll() at once;
 * traffic that keeps the switch spinning holds a control request or a
 * signal up to this long, as long as the longest busy-poll window.
 */
#define SPIN_PPOLL_NS ((int64_t)VOFF_SWITCH_BUSY_POLL_MAX)

static int loop(struct svc *v, const sigset_t *waitmask)
{
	int64_t next_tick = mono_ns() + TICK_NS, polled = 0;

	while (!stop_sig) {
		struct pollfd pfd[2 + CTL_CONNS];
		/* In ns: a GRO deadline of 20 us must not become 1 ms. */
		int64_t timeout = voff_switch_timeout_ns(v->sw), now;
		struct timespec ts;
		unsigned int np;
		int n;

		now = mono_ns();
		if (now >= next_tick) {
			tick(v);
			next_tick = now + TICK_NS;
		}
		if (timeout < 0 || next_tick - now < timeout)
			timeout = next_tick - now;
		if (v->busy_poll && timeout == 0 &&
		    now - polled < SPIN_PPOLL_NS) {
			voff_switch_poll(v->sw, 0);
			continue;
		}
		polled = now;
		pfd[0] = (struct pollfd){ .fd = voff_switch_fd(v->sw),
					  .events = POLLIN };
		np = 1 + ctl_server_poll(v->srv, pfd + 1, &timeout);
		ts.tv_sec = timeout / 1000000000;
		ts.tv_nsec = timeout % 1000000000;
		/* Signals are let in only while waiting: none is missed. */
		n = ppoll(pfd, np, &ts, waitmask);
		if (n < 0 && errno != EINTR) {
			log_event(LOG_LVL_ERROR, "error", NULL, NULL,
				  "ppoll: %s", strerror(errno));
			return VOFF_EXIT_FAIL;
		}
		if (stop_sig)
			break;
		if (reload_req) {
			char err[VOFF_SWITCH_CTL_MAX + 512];

			reload_req = 0;
			reload(v, err, sizeof(err));
		}
		voff_switch_poll(v->sw, 0);
		if (n > 0)
			ctl_server_run(v->srv, v->sw, &v->st, pfd + 1, np - 1);
	}
	return 0;
}

/* ---- start-up ------------------------------------------------------------- */

/* What the running switch keeps: what `ports add` may need later. */
static unsigned int caps_to_keep(const struct voff_switch_conf *c, bool drop)
{
	unsigned int keep = ISOLATE_KEEP_NET_ADMIN | ISOLATE_KEEP_NET_RAW;
	const struct voff_port_spec *s;

	if (drop)
		return 0;
	for (unsigned int i = 0; (s = voff_switch_conf_port(c, i)); i++)
		if (s->cfg.netns)
			keep |= ISOLATE_KEEP_SYS_ADMIN;
	return keep;
}

/* Stages 3 and 4 of isolation.c; Return: 0 or an exit status. */
static int isolate(const struct voff_switch_conf *c, bool drop, bool filter,
		   bool config)
{
	unsigned int allow = (drop ? 0 : ISOLATE_ALLOW_PORTS) |
			     (config ? ISOLATE_ALLOW_READ : 0);
	int err;

	if (isolate_caps_available()) {
		err = isolate_caps(caps_to_keep(c, drop));
		if (err) {
			fprintf(stderr, "voff switch: dropping capabilities: "
				"%s\n", voff_strerror(err));
			return VOFF_EXIT_FAIL;
		}
	}
	if (filter) {
		err = isolate_seccomp(allow);
		if (err) {
			fprintf(stderr, "voff switch: seccomp: %s\n",
				voff_strerror(err));
			return VOFF_EXIT_FAIL;
		}
	}
	return 0;
}

/*
 * A malformed spec is a usage error, told before anything is opened:
 * "voff switch: --port tap:x,gro=maybe: gro: expected on or off".
 */
static int check_specs(const char *const *specs, int n)
{
	struct voff_port_spec ps;

	for (int i = 0; i < n; i++) {
		if (!voff_port_spec_parse(&ps, specs[i]))
			continue;
		fprintf(stderr, "voff switch: --port %s: %s\n", specs[i],
			ps.err);
		return VOFF_EXIT_USAGE;
	}
	return 0;
}

/* Options that need a library this build lacks fail before anything. */
static int check_build(bool drop, bool filter)
{
	if (drop && !isolate_caps_available()) {
		fprintf(stderr, "voff switch: --drop-caps: this voff was "
			"built without libcap (libcap-dev)\n");
		return VOFF_EXIT_USAGE;
	}
	if (filter && !isolate_seccomp_available()) {
		fprintf(stderr, "voff switch: --seccomp: this voff was "
			"built without libseccomp (libseccomp-dev)\n");
		return VOFF_EXIT_USAGE;
	}
	return 0;
}

/* SPEC and its settings, from the library's tables. */
static void usage_spec(FILE *f)
{
	const struct voff_port_spec_kind *k;
	char buf[128];

	fputs("SPEC: one of\n", f);
	for (unsigned int i = 0; (k = voff_port_spec_kind_at(i)); i++) {
		voff_port_spec_kind_usage(k, buf, sizeof(buf));
		fprintf(f, "  %s\n", buf);
	}
	fputs("followed by ,NAME=VALUE for each setting not left at its "
	      "default:\n", f);
	voff_switch_settings_print(f);
}

static void usage(FILE *f)
{
	fputs("usage: voff switch [--port SPEC ...] [--config FILE]\n"
	      "                   [--ctl PATH] [--no-propagate] [--daemon]\n"
	      "                   [--drop-caps] [--seccomp] [--pidfile FILE]\n"
	      "                   [--log-level LEVEL] [--syslog]\n"
	      "                   [--drop-alarm PERCENT] [--drop-window "
	      "SECONDS]\n"
	      "                   [--busy-poll USEC]\n"
	      "       voff switch --check [--port SPEC ...] [--config FILE]"
	      "\n\n", f);
	usage_spec(f);
	fprintf(f,
		"\n--port SPEC     a port (before those of --config)\n"
		"--config FILE   ports, features and settings, one `voff ctl`\n"
		"                request a line (ports add, features, limits);\n"
		"                re-read on SIGHUP and `voff ctl reload`\n"
		"--ctl PATH      control socket (default %s)\n"
		"--no-propagate  leave the TAP/TUN devices' gso limits alone\n"
		"--daemon        detach once the ports are up\n"
		"--drop-caps     drop every capability once the ports are "
		"up\n"
		"                (then `ports add` is refused)\n"
		"--seccomp       allow only the system calls the running "
		"switch makes\n"
		"--pidfile FILE  write the pid there once the control socket "
		"is ready\n"
		"--log-level error|warning|notice|info|debug\n"
		"                least severe events logged (default info)\n"
		"--syslog        log to syslog instead of standard error\n"
		"--drop-alarm PERCENT\n"
		"                warn when a port drops more of its frames "
		"over a\n"
		"                window (default 5; 0: never)\n"
		"--drop-window SECONDS\n"
		"                the window of --drop-alarm (default 10)\n"
		"--check         check the ports and the file, open nothing, "
		"exit\n"
		"--busy-poll USEC\n"
		"                keep polling the ports up to USEC microseconds "
		"after\n"
		"                the last frame before sleeping (0..10000, "
		"default 0:\n"
		"                sleep at once; spinning costs a CPU, it saves "
		"wake-ups)\n",
		VOFF_CTL_DEFAULT);
}

/**
 * struct opts - what the command line says
 * @specs:	--port specs
 * @nspecs:	how many
 * @config:	--config FILE
 * @ctl:	--ctl PATH
 * @pidfile:	--pidfile FILE
 * @cfg:	switch parameters (--no-propagate, --busy-poll)
 * @level:	--log-level
 * @alarm_pct:	--drop-alarm
 * @window:	--drop-window
 * @daemonize:	--daemon
 * @drop:	--drop-caps
 * @filter:	--seccomp
 * @use_syslog:	--syslog
 * @check:	--check
 */
struct opts {
	const char *specs[MAX_SPECS];
	int nspecs;
	const char *config, *ctl, *pidfile;
	struct voff_switch_config cfg;
	enum log_level level;
	uint32_t alarm_pct;
	uint32_t window;
	bool daemonize, drop, filter, use_syslog, check;
};

/* One option of the command line (struct opts_spec.one). */
static int one(void *ctx, int c)
{
	struct opts *o = ctx;
	uint64_t us;
	int lvl;

	switch (c) {
	case 'p':
		if (o->nspecs == MAX_SPECS) {
			fprintf(stderr, "voff switch: too many ports (max %d)\n",
				MAX_SPECS);
			return -1;
		}
		o->specs[o->nspecs++] = optarg;
		return 0;
	case 'f':
		o->config = optarg;
		return 0;
	case 'c':
		o->ctl = optarg;
		return 0;
	case 'P':
		o->cfg.no_propagate = true;
		return 0;
	case 'd':
		o->daemonize = true;
		return 0;
	case 'D':
		o->drop = true;
		return 0;
	case 'S':
		o->filter = true;
		return 0;
	case 'i':
		o->pidfile = optarg;
		return 0;
	case 'l':
		lvl = log_level_parse(optarg);
		if (lvl < 0) {
			fprintf(stderr, "voff switch: --log-level: expected "
				"error, warning, notice, info or debug, not "
				"'%s'\n", optarg);
			return -1;
		}
		o->level = (enum log_level)lvl;
		return 0;
	case 'y':
		o->use_syslog = true;
		return 0;
	case 'a':
		return num_opt_u32("voff switch", "--drop-alarm", optarg, 0, 100,
				   &o->alarm_pct) ? -1 : 0;
	case 'w':
		return num_opt_u32("voff switch", "--drop-window", optarg, 1,
				   3600, &o->window) ? -1 : 0;
	case 'k':
		o->check = true;
		return 0;
	case 'B':
		if (num_opt("voff switch", "--busy-poll", optarg, 0,
			    VOFF_SWITCH_BUSY_POLL_MAX / 1000, &us))
			return -1;
		o->cfg.busy_poll_ns = us * 1000;
		return 0;
	default:
		return -1;
	}
}

/* Return: -1 to go on, or the exit status. */
static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "config", required_argument, NULL, 'f' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "no-propagate", no_argument, NULL, 'P' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "drop-caps", no_argument, NULL, 'D' },
		{ "seccomp", no_argument, NULL, 'S' },
		{ "busy-poll", required_argument, NULL, 'B' },
		{ "pidfile", required_argument, NULL, 'i' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "syslog", no_argument, NULL, 'y' },
		{ "drop-alarm", required_argument, NULL, 'a' },
		{ "drop-window", required_argument, NULL, 'w' },
		{ "check", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct opts_spec spec = {
		.cmd = "voff switch",
		.shortopts = "p:c:Pdh",
		.longopts = lopts,
		.usage = usage,
		.one = one,
		.ctx = o,
		.operands = 0,
		.expected = "no operand (ports are --port SPEC)",
	};
	int rc = opts_parse(&spec, argc, argv);

	if (rc >= 0)
		return rc;
	if (!o->nspecs && !o->config) {
		fprintf(stderr, "voff switch: expected --port SPEC or --config "
			"FILE\n");
		usage(stderr);
		return VOFF_EXIT_USAGE;
	}
	return -1;
}

/*
 * The switch with its ports, from --port and --config: a bad spec or line
 * is a usage error (exit 2) found before anything is opened; a port that
 * does not open is a failure (exit 1) that leaves nothing behind.
 */
static int start(struct svc *v, const struct opts *o,
		 struct voff_switch_conf **conf)
{
	char err[VOFF_SWITCH_CTL_MAX + 512];
	int rc;

	rc = conf_build(v, conf, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "voff switch: %s\n", err);
		return VOFF_EXIT_USAGE;
	}
	rc = voff_switch_new(&v->sw, &o->cfg);
	if (rc) {
		fprintf(stderr, "voff switch: %s\n", voff_strerror(rc));
		return VOFF_EXIT_FAIL;
	}
	v->busy_poll = o->cfg.busy_poll_ns != 0;
	voff_switch_set_event_cb(v->sw, on_event, v);
	rc = voff_switch_conf_apply(v->sw, *conf, 0, NULL);
	if (rc) {
		fprintf(stderr, "voff switch: %s\n",
			voff_switch_conf_error(*conf));
		return VOFF_EXIT_FAIL;
	}
	return 0;
}

/* --check: what start() reads, without opening anything. */
static int check_only(const struct svc *v)
{
	char err[VOFF_SWITCH_CTL_MAX + 512];
	struct voff_switch_conf *c;

	if (conf_build(v, &c, err, sizeof(err))) {
		fprintf(stderr, "voff switch: %s\n", err);
		return VOFF_EXIT_USAGE;
	}
	voff_switch_conf_free(c);
	return 0;
}

/* Refuse a pid file a live switch holds, before anything is opened. */
static int lock_pidfile(const char *path, int *fd)
{
	pid_t holder;

	*fd = -1;
	if (!path)
		return 0;
	*fd = pidfile_lock(path, &holder);
	if (*fd == -EWOULDBLOCK) {
		fprintf(stderr, "voff switch: --pidfile %s: held by running "
			"process %ld\n", path, (long)holder);
		return VOFF_EXIT_FAIL;
	}
	if (*fd < 0) {
		fprintf(stderr, "voff switch: --pidfile %s: %s\n", path,
			voff_strerror(*fd));
		return VOFF_EXIT_FAIL;
	}
	return 0;
}

/* SIGINT, SIGTERM and SIGHUP are blocked but while ppoll() waits. */
static void signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int switch_main(int argc, char **argv)
{
	struct opts o = { .ctl = VOFF_CTL_DEFAULT, .level = LOG_LVL_INFO,
			  .alarm_pct = 5, .window = 10 };
	struct svc v = { .st.deny = VOFF_SWITCH_CTL_DENY_FILES };
	struct voff_switch_conf *conf = NULL;
	sigset_t waitmask;
	int rc, pidfd = -1;

	rc = parse(argc, argv, &o);
	if (rc >= 0)
		return rc;
	rc = check_specs(o.specs, o.nspecs);
	if (!rc)
		rc = check_build(o.drop, o.filter);
	if (rc)
		return rc;
	v.specs = o.specs;
	v.nspecs = o.nspecs;
	v.config = o.config;
	v.alarm_pct = o.alarm_pct;
	v.window = o.window;
	v.st.cmds = switch_ctl_cmds;
	v.st.n_cmds = switch_ctl_ncmds;
	v.st.ctx = &v;
	if (o.drop)
		v.st.deny |= VOFF_SWITCH_CTL_DENY_ADD;
	if (o.check)
		return check_only(&v);
	rc = lock_pidfile(o.pidfile, &pidfd);
	if (rc)
		return rc;
	log_open(o.level, o.use_syslog);
	rc = start(&v, &o, &conf);
	v.conf = conf;
	if (rc)
		goto err_ports;
	rc = ctl_server_open(&v.srv, o.ctl);
	if (rc) {
		fprintf(stderr, "voff switch: control socket %s: %s%s\n", o.ctl,
			voff_strerror(rc),
			rc == -EEXIST ? " (and is not a socket)" : "");
		rc = VOFF_EXIT_FAIL;
		goto err_ports;
	}
	v.st.extra = ctl_server_counters(v.srv, &v.st.n_extra);
	log_set_listener(ctl_server_event, v.srv);
	signals(&waitmask);
	/* Keep the directory: relative --ctl and pcap paths stay valid. */
	if (o.daemonize && daemon(1, 0) < 0) {
		perror("voff switch: daemon");
		rc = VOFF_EXIT_FAIL;
		goto err_ctl;
	}
	if (pidfd >= 0 && (rc = pidfile_write(pidfd))) {
		fprintf(stderr, "voff switch: --pidfile %s: %s\n", o.pidfile,
			voff_strerror(rc));
		rc = VOFF_EXIT_FAIL;
		goto err_ctl;
	}
	rc = isolate(conf, o.drop, o.filter, o.config != NULL);
	if (rc)
		goto err_ctl;
	log_event(LOG_LVL_NOTICE, "start", NULL, NULL, "started: %u ports, "
		  "control socket %s%s%s", voff_switch_ports(v.sw, NULL, 0),
		  o.ctl, o.config ? ", config " : "",
		  o.config ? o.config : "");
	sd_notify_send("READY=1");
	rc = loop(&v, &waitmask);
	sd_notify_send("STOPPING=1");
	log_event(LOG_LVL_NOTICE, "stop", NULL, NULL, "stopping%s",
		  stop_sig == SIGINT ? " on SIGINT" :
		  stop_sig == SIGTERM ? " on SIGTERM" : "");
err_ctl:
	log_set_listener(NULL, NULL);
	ctl_server_close(v.srv);
err_ports:
	voff_switch_free(v.sw);
	voff_switch_conf_free(v.conf);
	pidfile_remove(pidfd, o.pidfile);
	log_close();
	return rc;
}
