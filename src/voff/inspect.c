/* SPDX-License-Identifier: MIT */
/*
 * inspect.c - `voff inspect [-j] FILE`: the layers, header offsets,
 * lengths and checksum verdicts of every frame of a capture file
 *
 * A thin loop over libvoff: voff_pcap_read() loads each frame,
 * voff_parse() lists its headers and voff_parse_csum_check() verifies its
 * checksums.  This file only turns those results into one text line, or
 * one JSON object (json-c) of one array, per frame; the formats are
 * documented in voff(1).  A frame that does not parse is reported with the headers
 * found before the fault and never stops the run; only a capture file that
 * cannot be read (exit 1) or a bad command line (exit 2) does.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include <voff/voff.h>

#include "capture.h"
#include "cmd.h"
#include "opts.h"

#define CMD "voff inspect"

/* Verdict of a layer that carries no checksum voff checks. */
#define NO_CSUM 0xFF

/**
 * struct frame - what inspect learned about one frame
 * @index:	1-based position in the file
 * @len:	captured bytes
 * @wire_len:	bytes on the wire (the capture's original length)
 * @snapped:	the capture kept fewer bytes than were on the wire
 * @cut:	protocol of the header (or payload) the snap length cut, for
 *		the "[|tcp]" mark; NULL when the cut ends nothing parsed
 * @err:	0, or why the frame could not be loaded or parsed
 * @p:		the parse result (layers before the fault on error)
 * @verdict:	per layer of @p: enum voff_csum_verdict, or NO_CSUM
 * @l3_off, @l4_off, @inner_l3_off, @inner_l4_off: header offsets, or
 *		VOFF_OFF_NONE
 * @payload_len: innermost payload bytes (valid when @err is 0)
 */
struct frame {
	unsigned long index;
	uint32_t len;
	uint32_t wire_len;
	bool snapped;
	const char *cut;
	int err;
	struct voff_parsed p;
	uint8_t verdict[VOFF_PARSE_MAX_LAYERS];
	uint16_t l3_off;
	uint16_t l4_off;
	uint16_t inner_l3_off;
	uint16_t inner_l4_off;
	uint32_t payload_len;
};

static const char *const verdict_names[] = {
	[VOFF_CSUM_V_NONE] = "none",
	[VOFF_CSUM_V_OK] = "ok",
	[VOFF_CSUM_V_BAD] = "bad",
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: voff inspect [-j] FILE\n"
		"\n"
		"Show the headers of every frame of a capture file (pcap or\n"
		"pcapng; Ethernet or raw IP): their offsets and lengths and\n"
		"whether each IPv4, TCP, UDP and GRE checksum is valid.\n"
		"FILE - reads standard input.\n"
		"\n"
		"  -j, --json   a JSON array, one object per frame\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 when the file was read to its end (even with\n"
		"malformed frames), 1 when it cannot be read, 2 on usage\n"
		"errors.\n");
}

static bool is_ip(uint8_t proto)
{
	return proto == VOFF_PROTO_IPV4 || proto == VOFF_PROTO_IPV6;
}

static bool is_l4(uint8_t proto)
{
	return proto == VOFF_PROTO_TCP || proto == VOFF_PROTO_UDP ||
	       proto == VOFF_PROTO_GRE;
}

static bool is_tunnel(uint8_t proto)
{
	return proto == VOFF_PROTO_VXLAN || proto == VOFF_PROTO_GENEVE ||
	       proto == VOFF_PROTO_GRE;
}

/*
 * After a parse error only the layer list is promised, so the offsets are
 * rebuilt from it: the first IP header and the first TCP/UDP/GRE header
 * after it are the outer ones, the first after a tunnel header the inner.
 */
static void offsets_from_layers(struct frame *fr)
{
	const struct voff_parsed *p = &fr->p;
	bool inner = false;

	fr->l3_off = fr->l4_off = VOFF_OFF_NONE;
	fr->inner_l3_off = fr->inner_l4_off = VOFF_OFF_NONE;
	for (unsigned int i = 0; i < p->n_layers; i++) {
		const struct voff_layer *l = &p->layers[i];
		uint16_t *l3 = inner ? &fr->inner_l3_off : &fr->l3_off;
		uint16_t *l4 = inner ? &fr->inner_l4_off : &fr->l4_off;

		if (is_ip(l->proto) && *l3 == VOFF_OFF_NONE)
			*l3 = l->off;
		else if (is_l4(l->proto) && *l3 != VOFF_OFF_NONE &&
			 *l4 == VOFF_OFF_NONE)
			*l4 = l->off;
		if (is_tunnel(l->proto) && !inner)
			inner = true;
	}
}

/*
 * The report lists verdicts outermost first, one per checked header;
 * hand each to the next layer of the same protocol so it is printed next
 * to its header.  Verdicts that match no layer are kept as unmatched.
 */
static void attach_verdicts(struct frame *fr,
			    const struct voff_csum_report *r,
			    struct voff_csum_report *unmatched)
{
	unsigned int next = 0;

	memset(fr->verdict, NO_CSUM, sizeof(fr->verdict));
	unmatched->n = 0;
	for (unsigned int i = 0; i < r->n && i < 8; i++) {
		unsigned int j = next;

		while (j < fr->p.n_layers &&
		       fr->p.layers[j].proto != r->proto[i])
			j++;
		if (j < fr->p.n_layers) {
			fr->verdict[j] = r->verdict[i];
			next = j + 1;
		} else {
			unmatched->proto[unmatched->n] = r->proto[i];
			unmatched->verdict[unmatched->n++] = r->verdict[i];
		}
	}
}

/* An IPv6 extension header's name from its number, as parse.h names them. */
static const char *ext_name(uint8_t nh)
{
	switch (nh) {
	case 0: return voff_proto_name(VOFF_PROTO_IPV6_HOPOPTS);
	case 43: return voff_proto_name(VOFF_PROTO_IPV6_ROUTING);
	case 44: return voff_proto_name(VOFF_PROTO_IPV6_FRAG);
	case 60: return voff_proto_name(VOFF_PROTO_IPV6_DSTOPTS);
	default: return "ipv6_ext";
	}
}

/*
 * Where a snap length cut a frame the parser stopped at, from its error:
 * the header the frame ends in (VOFF_E_TRUNC_<header>), or, with every
 * header whole (VOFF_E_TRUNC_L3), the innermost one, whose payload is cut.
 * NULL for an error that is no cut: the frame is malformed.
 */
static const char *cut_at(const struct frame *fr, const uint8_t *data)
{
	const struct voff_layer *last = fr->p.n_layers ?
		&fr->p.layers[fr->p.n_layers - 1] : NULL;
	static const struct {
		int err;
		enum voff_proto proto;
	} trunc[] = {
		{ VOFF_E_TRUNC_ETH, VOFF_PROTO_ETH },
		{ VOFF_E_TRUNC_VLAN, VOFF_PROTO_VLAN },
		{ VOFF_E_TRUNC_IPV4, VOFF_PROTO_IPV4 },
		{ VOFF_E_TRUNC_IPV6, VOFF_PROTO_IPV6 },
		{ VOFF_E_TRUNC_TCP, VOFF_PROTO_TCP },
		{ VOFF_E_TRUNC_UDP, VOFF_PROTO_UDP },
		{ VOFF_E_TRUNC_VXLAN, VOFF_PROTO_VXLAN },
		{ VOFF_E_TRUNC_GENEVE, VOFF_PROTO_GENEVE },
		{ VOFF_E_TRUNC_GRE, VOFF_PROTO_GRE },
	};

	for (size_t i = 0; i < sizeof(trunc) / sizeof(trunc[0]); i++)
		if (fr->err == trunc[i].err)
			return voff_proto_name(trunc[i].proto);
	if (fr->err == VOFF_E_TRUNC_IPV6_EXT && last) {
		/* The next header field: byte 6 of IPv6, 0 of an ext. */
		return ext_name(data[last->off +
				     (last->proto == VOFF_PROTO_IPV6 ? 6 : 0)]);
	}
	if (fr->err == VOFF_E_TRUNC_L3 && last)
		return voff_proto_name(last->proto);
	return NULL;
}

/*
 * A frame the snap length cut: what was captured is decoded, not an
 * error.  Only the checksums wholly captured can be checked: IPv4 header
 * checksums (the L4 ones cover the cut payload).
 */
static void snapped(struct frame *fr, const uint8_t *data)
{
	fr->cut = cut_at(fr, data);
	if (!fr->cut)
		return;		/* malformed before the cut: an error */
	fr->err = 0;
	for (unsigned int i = 0; i < fr->p.n_layers; i++) {
		const struct voff_layer *l = &fr->p.layers[i];

		if (l->proto == VOFF_PROTO_IPV4 && l->off + l->len <= fr->len)
			fr->verdict[i] = voff_csum_ipv4_hdr_ok(data + l->off,
							       l->len) ?
						 VOFF_CSUM_V_OK :
						 VOFF_CSUM_V_BAD;
	}
}

static void analyse(struct frame *fr, const uint8_t *data,
		    enum voff_parse_start start,
		    struct voff_csum_report *unmatched)
{
	struct voff_csum_report rep = { 0 };
	const struct voff_parsed *p = &fr->p;
	uint32_t end;

	memset(&fr->p, 0, sizeof(fr->p));
	memset(fr->verdict, NO_CSUM, sizeof(fr->verdict));
	unmatched->n = 0;
	fr->err = voff_parse(data, fr->len, start, &fr->p);
	if (fr->p.n_layers > VOFF_PARSE_MAX_LAYERS)
		fr->p.n_layers = VOFF_PARSE_MAX_LAYERS;
	if (fr->err) {
		offsets_from_layers(fr);
		if (fr->snapped)
			snapped(fr, data);
		return;
	}
	fr->l3_off = p->l3_off;
	fr->l4_off = p->l4_off;
	fr->inner_l3_off = p->inner_l3_off;
	fr->inner_l4_off = p->inner_l4_off;
	/* Ethernet padding after the IP packet is not payload. */
	end = p->l3_off != VOFF_OFF_NONE ? p->l3_end : fr->len;
	if (end > fr->len)
		end = fr->len;
	fr->payload_len = p->payload_off < end ? end - p->payload_off : 0;
	if (voff_parse_csum_check(data, fr->len, p, &rep) == 0)
		attach_verdicts(fr, &rep, unmatched);
}

/* Whether layer @i sits inside a tunnel (after the tunnel header). */
static bool layer_is_inner(const struct frame *fr, unsigned int i)
{
	return fr->p.tunnel && fr->p.tunnel_off != VOFF_OFF_NONE &&
	       fr->p.layers[i].off > fr->p.tunnel_off;
}

/* ---- text output --------------------------------------------------------- */

static void print_text(const struct frame *fr,
		       const struct voff_csum_report *unmatched)
{
	printf("%lu len=%u", fr->index, fr->len);
	if (fr->wire_len != fr->len)
		printf(" wire=%u", fr->wire_len);
	for (unsigned int i = 0; i < fr->p.n_layers; i++) {
		const struct voff_layer *l = &fr->p.layers[i];

		printf(" %s@%u+%u", voff_proto_name(l->proto), l->off, l->len);
		if (fr->verdict[i] != NO_CSUM && fr->verdict[i] <= 2)
			printf(":%s", verdict_names[fr->verdict[i]]);
	}
	for (unsigned int i = 0; i < unmatched->n; i++)
		printf(" %s:%s", voff_proto_name(unmatched->proto[i]),
		       unmatched->verdict[i] <= 2 ?
			       verdict_names[unmatched->verdict[i]] : "?");
	if (fr->cut)
		printf(" [|%s]", fr->cut);	/* tcpdump's mark of a cut */
	if (fr->err)
		printf(" error=%s (%s)", voff_err_name(fr->err),
		       voff_strerror(fr->err));
	else if (!fr->cut)
		printf(" payload=%u", fr->payload_len);
	putchar('\n');
}

/* ---- JSON output --------------------------------------------------------- */

static struct json_object *json_off(uint16_t off)
{
	return off == VOFF_OFF_NONE ? NULL : json_object_new_int(off);
}

/* Add @verdict under @name, or under "inner_"@name inside a tunnel. */
static void add_verdict(struct json_object *csum, const char *name,
			bool inner, uint8_t verdict)
{
	char key[48];
	int n = 2;

	snprintf(key, sizeof(key), "%s%s", inner ? "inner_" : "", name);
	/* A name seen twice on the same side gets a numbered key. */
	while (json_object_object_get_ex(csum, key, NULL))
		snprintf(key, sizeof(key), "%s%s_%d", inner ? "inner_" : "",
			 name, n++);
	json_object_object_add(csum, key,
			       json_object_new_string(verdict <= 2 ?
						      verdict_names[verdict] :
						      "?"));
}

static void print_json(const struct frame *fr,
		       const struct voff_csum_report *unmatched)
{
	struct json_object *o = json_object_new_object();
	struct json_object *layers = json_object_new_array();
	struct json_object *offsets = json_object_new_array();
	struct json_object *csum = json_object_new_object();

	for (unsigned int i = 0; i < fr->p.n_layers; i++) {
		const struct voff_layer *l = &fr->p.layers[i];
		struct json_object *ol = json_object_new_object();
		const char *name = voff_proto_name(l->proto);

		json_object_array_add(layers, json_object_new_string(name));
		json_object_object_add(ol, "proto",
				       json_object_new_string(name));
		json_object_object_add(ol, "off", json_object_new_int(l->off));
		json_object_object_add(ol, "len", json_object_new_int(l->len));
		json_object_array_add(offsets, ol);
		if (fr->verdict[i] != NO_CSUM)
			add_verdict(csum, name, layer_is_inner(fr, i),
				    fr->verdict[i]);
	}
	for (unsigned int i = 0; i < unmatched->n; i++)
		add_verdict(csum, voff_proto_name(unmatched->proto[i]), false,
			    unmatched->verdict[i]);

	json_object_object_add(o, "index", json_object_new_int64(
						   (int64_t)fr->index));
	json_object_object_add(o, "len", json_object_new_int64(fr->len));
	json_object_object_add(o, "wire_len",
			       json_object_new_int64(fr->wire_len));
	if (fr->snapped)
		json_object_object_add(o, "snapped",
				       json_object_new_boolean(1));
	json_object_object_add(o, "layers", layers);
	json_object_object_add(o, "offsets", offsets);
	json_object_object_add(o, "l3_off", json_off(fr->l3_off));
	json_object_object_add(o, "l4_off", json_off(fr->l4_off));
	json_object_object_add(o, "inner_l3_off", json_off(fr->inner_l3_off));
	json_object_object_add(o, "inner_l4_off", json_off(fr->inner_l4_off));
	json_object_object_add(o, "payload_len",
			       fr->err || fr->cut ? NULL :
			       json_object_new_int64(fr->payload_len));
	json_object_object_add(o, "csum", csum);
	if (fr->cut)
		json_object_object_add(o, "cut",
				       json_object_new_string(fr->cut));
	if (fr->err) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "name",
				       json_object_new_string(
					       voff_err_name(fr->err)));
		json_object_object_add(e, "message",
				       json_object_new_string(
					       voff_strerror(fr->err)));
		json_object_object_add(o, "error", e);
	}
	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
	      stdout);
	json_object_put(o);
}

/* ---- the command --------------------------------------------------------- */

/* Read and report every frame; returns the exit status. */
static int inspect_file(struct voff_pcap *pc, struct voff_pkt *pkt,
			const char *path, bool json)
{
	enum voff_parse_start start = voff_pcap_start(pc);
	struct voff_csum_report unmatched;
	static struct frame fr;
	unsigned long index = 0;
	int rc, status = VOFF_EXIT_OK;

	/*
	 * JSON: one array per run, as `ip -j` prints, streamed one frame
	 * per line; closed even when the file turns out damaged, so what
	 * was printed stays valid JSON.
	 */
	if (json)
		putchar('[');
	while ((rc = voff_pcap_read(pc, pkt)) != 0) {
		memset(&fr, 0, sizeof(fr));
		fr.index = ++index;
		unmatched.n = 0;
		if (rc < 0 && rc != VOFF_E_PCAP_SNAP && rc != VOFF_E_TOO_BIG) {
			cap_error(CMD, path, 0, index, rc, NULL);
			status = VOFF_EXIT_FAIL;
			break;
		}
		fr.snapped = rc == VOFF_E_PCAP_SNAP;
		fr.len = pkt->len;
		fr.wire_len = voff_pcap_orig_len(pc);
		if (rc == VOFF_E_TOO_BIG) {
			/* Not loaded: report it, with no layers, and go on. */
			fr.err = rc;
			offsets_from_layers(&fr);
		} else {
			analyse(&fr, voff_pkt_data(pkt), start, &unmatched);
		}
		if (json && index > 1)
			fputs(",\n", stdout);
		if (json)
			print_json(&fr, &unmatched);
		else
			print_text(&fr, &unmatched);
	}
	if (json)
		puts("]");
	return status;
}

/* -j, the one option; Return: 0. */
static int one_opt(void *ctx, int c)
{
	bool *json = ctx;

	*json = c == 'j';
	return 0;
}

int inspect_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct voff_pool *pool = NULL;
	struct voff_pcap *pc = NULL;
	struct voff_pkt *pkt;
	bool json = false;
	const struct opts_spec spec = {
		.cmd = CMD, .shortopts = "jh", .longopts = longopts,
		.usage = usage, .one = one_opt, .ctx = &json,
		.operands = 1, .expected = "one capture file",
	};
	int rc = opts_parse(&spec, argc, argv);

	if (rc >= 0)
		return rc;
	if (cap_open_read(&pc, CMD, argv[optind]))
		return VOFF_EXIT_FAIL;
	rc = voff_pool_new(&pool, 1, VOFF_PKT_SUPER_ROOM);
	if (rc)
		goto err_pool;
	rc = voff_pkt_alloc(pool, &pkt);
	if (rc)
		goto err_pkt;

	/* main.c checks that standard output took it all. */
	rc = inspect_file(pc, pkt, argv[optind], json);
	voff_pkt_free(pkt);
	voff_pool_free(pool);
	voff_pcap_close(pc);
	return rc;

err_pkt:
	voff_pool_free(pool);
err_pool:
	voff_pcap_close(pc);
	fprintf(stderr, CMD ": %s\n", voff_strerror(rc));
	return VOFF_EXIT_FAIL;
}
