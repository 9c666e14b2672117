/* SPDX-License-Identifier: MIT */
/*
 * prom.c - the Prometheus text exposition format (version 0.0.4) of a
 * running switch, made by the client from the JSON the switch already
 * answers, so the library and the switch carry no second format
 *
 * Families, each with its HELP and TYPE lines and one sample per port:
 *
 *   voff_port_info{port,kind,netns} 1       the ports (gauge)
 *   voff_port_failed{port} 0|1              receiving failed (gauge)
 *   voff_port_<counter>_total{port}         every counter of `stats`
 *                                           (rx_packets, gso_segs, ...,
 *                                           a kind's own: vhost_connects)
 *   voff_port_vhost_connected{port} 0|1     a vhost-user port's guest
 *   voff_port_vhost_running{port} 0|1       state (gauges)
 *   voff_port_vxlan_srcports{port}          a VXLAN port's source ports
 *                                           (gauge)
 *   voff_switch_drops_total{port,reason}    the switch's drops by reason
 *   voff_port_drops_total{port,direction,reason}
 *                                           the port's own, by reason
 *   voff_port_<setting>{port}               every setting of the table,
 *                                           a bool as 0 or 1 (gauge)
 *   voff_ctl_<counter>_total, voff_ctl_monitors
 *                                           the control server's
 *
 * Counters come from `-j stats` as they are named there: a counter the
 * library adds shows up here with no change to this file (with a
 * generic HELP until one is written below), also one that only some
 * kinds of port have.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "prom.h"

/* HELP texts of the counters of `stats` by name; others get a generic one. */
static const struct {
	const char *name;
	const char *help;
} helps[] = {
	{ "rx_packets", "Frames received from the port." },
	{ "rx_bytes", "Bytes received from the port (no virtio_net_hdr)." },
	{ "rx_super", "Super-packets received from the port." },
	{ "rx_dropped", "Frames received and dropped inside the port." },
	{ "tx_packets", "Frames sent to the port." },
	{ "tx_bytes", "Bytes sent to the port (no virtio_net_hdr)." },
	{ "tx_super", "Super-packets sent to the port." },
	{ "tx_dropped", "Frames given to the port to send and dropped." },
	{ "gso_in", "Super-packets cut to the MTU for this egress." },
	{ "gso_segs", "Frames GSO produced for this egress." },
	{ "reseg_in", "Super-packets resegmented to this egress's limits." },
	{ "reseg_out", "Smaller super-packets the resegmentation produced." },
	{ "csum_sw", "Checksums completed in software for this egress." },
	{ "gro_merged", "Frames merged by this ingress's GRO." },
	{ "gro_out", "Super-packets this ingress's GRO delivered." },
	{ "flooded", "Frames from this ingress flooded to every other port." },
	{ "rx_held", "Times the port was left unread, its frames mostly "
		     "malformed." },
	{ "rx_kernel_dropped", "Frames the kernel dropped before the port "
			       "read them (its queue to the switch full)." },
	{ "retries", "Attempts to re-open the port after it failed." },
	{ "requests", "Control requests run." },
	{ "failed", "Control requests answered with an error." },
	{ "refused", "Control requests refused by the server's policy." },
	{ "refused_peers", "Control connections refused for their user id." },
	{ "events_lost", "Events monitors lost by reading too slowly." },
	{ "vhost_connects", "vhost-user: connections of a VMM accepted." },
	{ "vhost_disconnects", "vhost-user: connections ended (the VMM closed, "
			       "or voff dropped it)." },
	{ "vhost_refused_peer", "vhost-user: connections refused for their "
				"user id." },
	{ "vhost_refused_busy", "vhost-user: connections refused, a guest "
				"being connected already." },
	{ "vhost_protocol_drops", "vhost-user: connections dropped for a "
				  "message voff could not answer." },
	{ "vhost_starts", "vhost-user: times the guest's transmit ring "
			  "started (its driver up, each reboot)." },
	{ "vhost_stops", "vhost-user: times the guest's transmit ring "
			 "stopped." },
	{ "vhost_messages", "vhost-user: messages handled on the current "
			    "connection (0 again at each connection)." },
	{ "vhost_refused_messages", "vhost-user: messages refused on the "
				    "current connection." },
	{ "vhost_guest_calls", "vhost-user: notifications sent to the guest "
			       "on the current connection." },
};

static const char *help_of(const char *name)
{
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		if (!strcmp(helps[i].name, name))
			return helps[i].help;
	return NULL;
}

/* A label value: backslash, double quote and newline escaped. */
static void label(FILE *out, const char *v)
{
	fputc('"', out);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(out, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
	fputc('"', out);
}

static void family(FILE *out, const char *name, const char *type,
		   const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* "NAME{port="P"" with more labels to come, closed by the caller. */
static void sample_start(FILE *out, const char *name, const char *port)
{
	fprintf(out, "%s{port=", name);
	label(out, port);
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A reply to "-j REQ" parsed; NULL (after saying why) on failure. */
static json_object *fetch(int (*ask)(void *, const char *, char **),
			  void *ctx, const char *req)
{
	char *reply = NULL;
	json_object *j;

	if (ask(ctx, req, &reply)) {
		free(reply);
		return NULL;
	}
	j = json_tokener_parse(reply);
	if (!j)
		fprintf(stderr, "voff ctl: the reply to '%.*s' is not JSON\n",
			(int)strcspn(req, "\n"), req);
	free(reply);
	return j;
}

/* voff_port_info and voff_port_up, from `-j ports`. */
static void ports(FILE *out, json_object *pa, const char *only)
{
	size_t n = json_object_array_length(pa);

	family(out, "voff_port_info", "gauge",
	       "A port of the switch (1), with its kind and namespace.");
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pa, i);
		const char *name = str(p, "name"), *ns = str(p, "netns");

		if (!name || (only && strcmp(only, name)))
			continue;
		sample_start(out, "voff_port_info", name);
		fputs(",kind=", out);
		label(out, str(p, "kind") ? str(p, "kind") : "");
		fputs(",netns=", out);
		label(out, ns ? ns : "");
		fputs("} 1\n", out);
	}
	family(out, "voff_port_failed", "gauge",
	       "1 when receiving from the port failed (no longer polled).");
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pa, i), *f;
		const char *name = str(p, "name");

		if (!name || (only && strcmp(only, name)))
			continue;
		sample_start(out, "voff_port_failed", name);
		fprintf(out, "} %d\n",
			json_object_object_get_ex(p, "failed", &f) &&
				json_object_get_boolean(f));
	}
}

/*
 * State in `-j stats`, not counted: gauges (a vhost-user port's guest, a
 * VXLAN port's source ports), or not exported.
 */
static const char *const gauges[] = { "vhost_connected", "vhost_running",
				      "vxlan_srcports" };

static bool state(const char *k)
{
	for (size_t i = 0; i < sizeof(gauges) / sizeof(gauges[0]); i++)
		if (!strcmp(k, gauges[i]))
			return true;
	/* Feature bit masks: state, not counted (voff ctl stats has them). */
	return !strcmp(k, "vhost_features") ||
	       !strcmp(k, "vhost_protocol_features");
}

/*
 * Whether stats key @k is a plain counter (not a drop by reason, nor a
 * port's state).
 */
static bool plain(const char *k)
{
	return strcmp(k, "port") && strncmp(k, "drop_", 5) &&
	       !state(k) &&
	       !strstr(k, "_drop_") && strcmp(k, "rx_dropped") &&
	       strcmp(k, "tx_dropped");
}

/* Whether a port before the @i-th of @sa (all: the count) has key @k. */
static bool seen_before(json_object *sa, size_t i, const char *k)
{
	for (size_t j = 0; j < i; j++)
		if (json_object_object_get_ex(json_object_array_get_idx(sa, j),
					      k, NULL))
			return true;
	return false;
}

/* The samples of stats key @k as @name, for the ports that have it. */
static void samples(FILE *out, json_object *sa, const char *k,
		    const char *name)
{
	size_t n = json_object_array_length(sa);

	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sa, i), *v;

		if (!json_object_object_get_ex(s, k, &v))
			continue;
		sample_start(out, name, str(s, "port"));
		fprintf(out, "} %" PRIu64 "\n",
			(uint64_t)json_object_get_int64(v));
	}
}

/*
 * voff_port_<counter>_total for each plain counter of `-j stats`, each
 * family once with the ports that have it (a kind's own counters, as a
 * vhost-user port's, only some ports have).
 */
static void counters(FILE *out, json_object *sa)
{
	size_t n = json_object_array_length(sa);

	for (size_t f = 0; f < n; f++) {
		json_object *first = json_object_array_get_idx(sa, f);

		json_object_object_foreach(first, key, val) {
			char name[128], help[160];
			const char *h = help_of(key);

			(void)val;
			if (!plain(key) || seen_before(sa, f, key))
				continue;
			snprintf(name, sizeof(name), "voff_port_%s_total", key);
			snprintf(help, sizeof(help), "voff ctl stats: %s.",
				 key);
			family(out, name, "counter", h ? h : help);
			samples(out, sa, key, name);
		}
	}
}

/*
 * voff_port_vhost_connected and _running, when a vhost-user port is;
 * voff_port_vxlan_srcports, when a VXLAN port is.
 */
static void state_gauges(FILE *out, json_object *sa)
{
	static const char *const help[] = {
		"1 when a VMM is connected to the vhost-user port.",
		"1 when the guest's rings are started and enabled.",
		"UDP source ports the VXLAN port spreads inner flows over.",
	};
	size_t n = json_object_array_length(sa);

	for (size_t g = 0; g < sizeof(help) / sizeof(help[0]); g++) {
		char name[64];

		if (!seen_before(sa, n, gauges[g]))
			continue;
		snprintf(name, sizeof(name), "voff_port_%s", gauges[g]);
		family(out, name, "gauge", help[g]);
		samples(out, sa, gauges[g], name);
	}
}

/* Drops by reason: the switch's (drop_R), the port's (rx_drop_R, ...). */
static void drops(FILE *out, json_object *sa)
{
	size_t n = json_object_array_length(sa);

	family(out, "voff_switch_drops_total", "counter",
	       "Frames the switch dropped, by reason, at the port that would "
	       "have sent them (runt at the ingress).");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sa, i);

		json_object_object_foreach(s, key, val) {
			if (strncmp(key, "drop_", 5))
				continue;
			sample_start(out, "voff_switch_drops_total",
				     str(s, "port"));
			fputs(",reason=", out);
			label(out, key + 5);
			fprintf(out, "} %" PRIu64 "\n",
				(uint64_t)json_object_get_int64(val));
		}
	}
	family(out, "voff_port_drops_total", "counter",
	       "Frames dropped inside the port, by direction and reason.");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(sa, i);

		json_object_object_foreach(s, key, val) {
			bool rx = !strncmp(key, "rx_drop_", 8);

			if (!rx && strncmp(key, "tx_drop_", 8))
				continue;
			sample_start(out, "voff_port_drops_total",
				     str(s, "port"));
			fprintf(out, ",direction=\"%s\",reason=",
				rx ? "rx" : "tx");
			label(out, key + 8);
			fprintf(out, "} %" PRIu64 "\n",
				(uint64_t)json_object_get_int64(val));
		}
	}
}

/* voff_port_<setting>: one family per setting of the table. */
static void settings(FILE *out, json_object **limits, const char **names,
		     size_t n)
{
	const struct voff_switch_setting *set;

	for (unsigned int k = 0; (set = voff_switch_setting_at(k)); k++) {
		char name[96], help[256], range[64];

		voff_switch_setting_range(set, range, sizeof(range));
		snprintf(name, sizeof(name), "voff_port_%s", set->name);
		snprintf(help, sizeof(help), "Setting %s (%s): %s.", set->name,
			 range, set->help);
		family(out, name, "gauge", help);
		for (size_t i = 0; i < n; i++) {
			json_object *v;

			if (!limits[i] ||
			    !json_object_object_get_ex(limits[i], set->name,
						       &v))
				continue;
			sample_start(out, name, names[i]);
			fprintf(out, "} %" PRIu64 "\n",
				json_object_is_type(v, json_type_boolean) ?
					(uint64_t)json_object_get_boolean(v) :
					(uint64_t)json_object_get_int64(v));
		}
	}
}

/* voff_ctl_*: the control server's counters. */
static void server(FILE *out, json_object *srv)
{
	json_object_object_foreach(srv, key, val) {
		char name[96], help[128];
		const char *h = help_of(key);
		bool gauge = !strcmp(key, "monitors");

		if (!json_object_is_type(val, json_type_int))
			continue;
		snprintf(name, sizeof(name), gauge ? "voff_ctl_%s" :
			 "voff_ctl_%s_total", key);
		snprintf(help, sizeof(help), "voff ctl server: %s.", key);
		family(out, name, gauge ? "gauge" : "counter",
		       gauge ? "Monitors connected." : h ? h : help);
		fprintf(out, "%s %" PRIu64 "\n", name,
			(uint64_t)json_object_get_int64(val));
	}
}

int prom_print(FILE *out, const char *port,
	       int (*ask)(void *ctx, const char *req, char **reply),
	       void *ctx)
{
	json_object *sa, *pa, *srv, *limits[VOFF_SWITCH_MAX_PORTS] = { 0 };
	const char *names[VOFF_SWITCH_MAX_PORTS];
	char req[VOFF_SWITCH_CTL_MAX];
	size_t n = 0;
	int err = 0;

	snprintf(req, sizeof(req), "-j stats%s%s\n", port ? " " : "",
		 port ? port : "");
	sa = fetch(ask, ctx, req);
	pa = sa ? fetch(ask, ctx, "-j ports\n") : NULL;
	srv = pa ? fetch(ask, ctx, "-j server\n") : NULL;
	if (!srv) {
		err = -EIO;
		goto out;
	}
	for (size_t i = 0; i < json_object_array_length(sa) &&
			   n < VOFF_SWITCH_MAX_PORTS; i++) {
		names[n] = str(json_object_array_get_idx(sa, i), "port");
		if (!names[n])
			continue;
		snprintf(req, sizeof(req), "-j limits %s\n", names[n]);
		limits[n] = fetch(ask, ctx, req);
		if (!limits[n++]) {
			err = -EIO;
			goto out;
		}
	}
	ports(out, pa, port);
	counters(out, sa);
	state_gauges(out, sa);
	drops(out, sa);
	settings(out, limits, names, n);
	server(out, srv);
	if (fflush(out) || ferror(out))
		err = -EIO;
out:
	for (size_t i = 0; i < n; i++)
		json_object_put(limits[i]);
	json_object_put(srv);
	json_object_put(pa);
	json_object_put(sa);
	return err;
}
