/* SPDX-License-Identifier: MIT */
/*
 * vectors.c - files, summaries and replay of the golden vectors (see
 * vectors.h; the format is docs/vectors.md)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "check.h"
#include "gro_util.h"
#include "vectors.h"

/* ---- frames and pcap files ----------------------------------------------- */

void vec_frames_add(struct vec_frames *f, const uint8_t *d, uint32_t len)
{
	CHECK_LT(f->n, VEC_MAX_FRAMES);
	f->d[f->n] = malloc(len ? len : 1);
	CHECK(f->d[f->n] != NULL);
	memcpy(f->d[f->n], d, len);
	f->len[f->n++] = len;
}

void vec_frames_free(struct vec_frames *f)
{
	for (int i = 0; i < f->n; i++)
		free(f->d[i]);
	f->n = 0;
}

int vec_pcap_write(const char *path, const struct vec_frames *f)
{
	struct voff_pcap *pc;
	int rc;

	rc = voff_pcap_open_write(&pc, path, VOFF_PARSE_ETH);
	if (rc)
		return rc;
	for (int i = 0; i < f->n && !rc; i++)
		rc = voff_pcap_write_raw(pc, f->d[i], f->len[i],
					 (uint64_t)(i + 1) * 1000);
	if (voff_pcap_close(pc) && !rc)
		rc = -EIO;
	return rc;
}

int vec_pcap_read(const char *path, struct vec_frames *f)
{
	struct voff_pool *pool = NULL;
	struct voff_pcap *pc = NULL;
	struct voff_pkt *p = NULL;
	int rc;

	f->n = 0;
	rc = voff_pool_new(&pool, 1, VOFF_PKT_SUPER_ROOM);
	if (!rc)
		rc = voff_pkt_alloc(pool, &p);
	if (!rc)
		rc = voff_pcap_open_read(&pc, path, NULL, 0);
	while (!rc && (rc = voff_pcap_read(pc, p)) == 1) {
		vec_frames_add(f, voff_pkt_data(p), p->len);
		rc = 0;
	}
	voff_pcap_close(pc);
	voff_pkt_free(p);
	voff_pool_free(pool);
	return rc;
}

/* ---- summaries ----------------------------------------------------------- */

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void add_int(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

static void add_bool(json_object *o, const char *k, bool v)
{
	json_object_object_add(o, k, json_object_new_boolean(v));
}

static void add_str(json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_hex16(json_object *o, const char *k, uint16_t v)
{
	char s[8];

	snprintf(s, sizeof(s), "0x%04x", v);
	add_str(o, k, s);
}

/* Names of the set bits of @v, lowest first, joined by '|'; @none if 0. */
static json_object *bit_names(unsigned int v, const char *const *names,
			      int n, const char *none)
{
	char s[128] = "";

	for (int b = 0; b < n; b++) {
		if (!(v & (1u << b)) || !names[b])
			continue;
		if (*s)
			strcat(s, "|");
		strcat(s, names[b]);
	}
	return json_object_new_string(*s ? s : none);
}

/* Index of the layer at offset @off, or -1. */
static int layer_at(const struct voff_parsed *p, uint16_t off)
{
	for (int i = 0; i < p->n_layers; i++)
		if (p->layers[i].off == off)
			return i;
	return -1;
}

static bool is_v6_ext(uint8_t proto)
{
	return proto == VOFF_PROTO_IPV6_HOPOPTS ||
	       proto == VOFF_PROTO_IPV6_ROUTING ||
	       proto == VOFF_PROTO_IPV6_FRAG ||
	       proto == VOFF_PROTO_IPV6_DSTOPTS;
}

static json_object *ipv4_json(const uint8_t *ip)
{
	json_object *o = json_object_new_object();
	uint16_t fo = be16(ip + 6);

	add_int(o, "version", 4);
	add_int(o, "len", be16(ip + 2));
	add_int(o, "id", be16(ip + 4));
	add_bool(o, "df", fo & 0x4000);
	add_bool(o, "mf", fo & 0x2000);
	add_int(o, "frag_off", (fo & 0x1FFF) * 8);
	add_int(o, "ttl", ip[8]);
	add_int(o, "tos", ip[1]);
	add_int(o, "opt_len", (ip[0] & 15) * 4 - 20);
	add_hex16(o, "csum", be16(ip + 10));
	return o;
}

/*
 * IPv6 at layer @li and the extension headers that follow it: their names
 * joined by '|' ("none" without), and a fragment header's fields.
 */
static json_object *ipv6_json(const uint8_t *d, const struct voff_parsed *p,
			      int li)
{
	const uint8_t *ip = d + p->layers[li].off;
	json_object *o = json_object_new_object();
	const uint8_t *frag = NULL;
	char ext[128] = "";

	add_int(o, "version", 6);
	add_int(o, "len", be16(ip + 4));
	add_int(o, "tclass", (ip[0] & 15) << 4 | ip[1] >> 4);
	add_int(o, "flow", (ip[1] & 15) << 16 | be16(ip + 2));
	add_int(o, "hop_limit", ip[7]);
	for (int i = li + 1; i < p->n_layers && is_v6_ext(p->layers[i].proto);
	     i++) {
		if (*ext)
			strcat(ext, "|");
		strcat(ext, voff_proto_name(p->layers[i].proto));
		if (p->layers[i].proto == VOFF_PROTO_IPV6_FRAG)
			frag = d + p->layers[i].off;
	}
	add_str(o, "ext", *ext ? ext : "none");
	if (frag) {
		add_int(o, "frag_off", be16(frag + 2) & ~7u);
		add_bool(o, "frag_m", frag[3] & 1);
		add_int(o, "frag_id", be32(frag + 4));
	}
	return o;
}

static json_object *ip_json(const uint8_t *d, const struct voff_parsed *p,
			    uint16_t off)
{
	int li = layer_at(p, off);

	if (li >= 0 && p->layers[li].proto == VOFF_PROTO_IPV6)
		return ipv6_json(d, p, li);
	return ipv4_json(d + off);
}

static json_object *tcp_json(const uint8_t *t)
{
	static const char *const fl[8] = { "FIN", "SYN", "RST", "PSH",
					   "ACK", "URG", "ECE", "CWR" };
	json_object *o = json_object_new_object();

	add_int(o, "sport", be16(t));
	add_int(o, "dport", be16(t + 2));
	add_int(o, "seq", be32(t + 4));
	add_int(o, "ack", be32(t + 8));
	json_object_object_add(o, "flags", bit_names(t[13], fl, 8, "none"));
	add_int(o, "win", be16(t + 14));
	add_hex16(o, "csum", be16(t + 16));
	add_int(o, "urg", be16(t + 18));
	add_int(o, "opt_len", (t[12] >> 4) * 4 - 20);
	return o;
}

static json_object *udp_json(const uint8_t *u)
{
	json_object *o = json_object_new_object();

	add_int(o, "sport", be16(u));
	add_int(o, "dport", be16(u + 2));
	add_int(o, "len", be16(u + 4));
	add_hex16(o, "csum", be16(u + 6));
	return o;
}

/* The IP header at @l3 and the L4 header at @l4 (protocol @proto) into @o. */
static void l3l4_json(json_object *o, const uint8_t *d,
		      const struct voff_parsed *p, uint16_t l3, uint16_t l4,
		      uint8_t proto)
{
	if (l3 == VOFF_OFF_NONE)
		return;
	json_object_object_add(o, "ip", ip_json(d, p, l3));
	if (l4 == VOFF_OFF_NONE)
		return;
	if (proto == 6)
		json_object_object_add(o, "tcp", tcp_json(d + l4));
	else if (proto == 17)
		json_object_object_add(o, "udp", udp_json(d + l4));
}

json_object *vec_summary(const uint8_t *d, uint32_t len)
{
	json_object *o = json_object_new_object();
	struct voff_parsed p;
	int rc = voff_parse(d, len, VOFF_PARSE_ETH, &p);

	add_int(o, "len", len);
	if (rc) {
		add_str(o, "parse_error", voff_err_name(rc));
		return o;
	}
	if (p.n_vlan) {
		json_object *v = json_object_new_array();

		for (int i = 0; i < p.n_vlan; i++)
			json_object_array_add(
				v, json_object_new_int(p.vlan_tci[i]));
		json_object_object_add(o, "vlan", v);
	}
	if (p.tunnel) {
		json_object *out = json_object_new_object();

		l3l4_json(out, d, &p, p.l3_off, p.l4_off, p.l4_proto);
		json_object_object_add(o, "outer", out);
		add_str(o, "tunnel", voff_proto_name(p.tunnel));
		l3l4_json(o, d, &p, p.inner_l3_off, p.inner_l4_off,
			  p.inner_l4_proto);
	} else {
		l3l4_json(o, d, &p, p.l3_off, p.l4_off, p.l4_proto);
	}
	add_int(o, "payload",
		p.payload_off <= p.l3_end ? p.l3_end - p.payload_off : 0);
	return o;
}

/* ---- vnet headers -------------------------------------------------------- */

static const char *const vnet_flag_names[4] = { "NEEDS_CSUM", "DATA_VALID",
						"RSC_INFO",
						"UDP_TUNNEL_CSUM" };

static json_object *vnet_type_name(uint8_t t)
{
	static const char *const base[6] = { "NONE", "TCPV4", "?", "UDP",
					     "TCPV6", "UDP_L4" };
	static const char *const bits[8] = { NULL, NULL, NULL, NULL, NULL,
					     "UDP_TUNNEL_IPV4",
					     "UDP_TUNNEL_IPV6", "ECN" };
	unsigned int b = t & 0x1F;
	char s[96];

	snprintf(s, sizeof(s), "%s", b < 6 ? base[b] : "?");
	if (t & 0xE0) {
		json_object *x = bit_names(t & 0xE0u, bits, 8, "");

		strcat(s, "|");
		strcat(s, json_object_get_string(x));
		json_object_put(x);
	}
	return json_object_new_string(s);
}

static struct voff_vnet_cfg vnet_cfg(unsigned int size)
{
	struct voff_vnet_cfg c = {
		.hdr_size = (uint8_t)size,
		.order = VOFF_VNET_LE,
		.mode = VOFF_VNET_L2,
		.dir = VOFF_VNET_TX,
		.tunnel = size == VOFF_VNET_HDR_TNL_LEN,
	};

	return c;
}

json_object *vec_vnet_json(const struct voff_vnet_hdr *h, unsigned int size)
{
	json_object *o = json_object_new_object();
	struct voff_vnet_cfg c = vnet_cfg(size);
	uint8_t b[VOFF_VNET_HDR_TNL_LEN];
	char hex[2 * sizeof(b) + 1] = "";

	add_int(o, "size", size);
	add_int(o, "flags", h->flags);
	json_object_object_add(o, "flags_names",
			       bit_names(h->flags, vnet_flag_names, 4, "none"));
	add_int(o, "gso_type", h->gso_type);
	json_object_object_add(o, "gso_type_name",
			       vnet_type_name(h->gso_type));
	add_int(o, "hdr_len", h->hdr_len);
	add_int(o, "gso_size", h->gso_size);
	add_int(o, "csum_start", h->csum_start);
	add_int(o, "csum_offset", h->csum_offset);
	if (size == VOFF_VNET_HDR_TNL_LEN) {
		add_int(o, "outer_th_offset", h->outer_th_offset);
		add_int(o, "inner_nh_offset", h->inner_nh_offset);
	}
	CHECK_EQ(voff_vnet_hdr_write(&c, h, b, sizeof(b)), (int)size);
	for (unsigned int i = 0; i < size; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	add_str(o, "hex", hex);
	return o;
}

/* Integer member @k of @o into @v; false when it is missing. */
static bool get_int(json_object *o, const char *k, int64_t *v)
{
	json_object *x;

	if (!o || !json_object_object_get_ex(o, k, &x) ||
	    !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_int64(x);
	return true;
}

int vec_vnet_parse(json_object *o, struct voff_vnet_hdr *h,
		   unsigned int *size)
{
	static const char *const k[] = { "size", "flags", "gso_type",
					 "hdr_len", "gso_size", "csum_start",
					 "csum_offset", "outer_th_offset",
					 "inner_nh_offset" };
	int64_t v[9] = { 0 };

	for (int i = 0; i < 9; i++)
		if (!get_int(o, k[i], &v[i]) && (i < 7 || v[0] == 24))
			return -EINVAL;
	if (v[0] != VOFF_VNET_HDR_LEN && v[0] != VOFF_VNET_HDR_TNL_LEN)
		return -EINVAL;
	memset(h, 0, sizeof(*h));
	*size = (unsigned int)v[0];
	h->flags = (uint8_t)v[1];
	h->gso_type = (uint8_t)v[2];
	h->hdr_len = (uint16_t)v[3];
	h->gso_size = (uint16_t)v[4];
	h->csum_start = (uint16_t)v[5];
	h->csum_offset = (uint16_t)v[6];
	h->outer_th_offset = (uint16_t)v[7];
	h->inner_nh_offset = (uint16_t)v[8];
	return 0;
}

/* ---- JSON file ----------------------------------------------------------- */

#define JSON_FLAT (JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static void indent(FILE *f, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
}

static bool is_container(json_object *o)
{
	return json_object_is_type(o, json_type_object) ||
	       json_object_is_type(o, json_type_array);
}

/* An object or array holding no object or array. */
static bool is_leaf(json_object *o)
{
	if (json_object_is_type(o, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (is_container(json_object_array_get_idx(o, i)))
				return false;
		return true;
	}
	json_object_object_foreach(o, key, val)
	{
		(void)key;
		if (is_container(val))
			return false;
	}
	return true;
}

/*
 * @o at nesting @depth: on one line when that fits 80 columns or when it
 * holds only numbers, strings and booleans (a header's fields).
 */
static void emit(FILE *f, json_object *o, int depth, size_t key_len)
{
	const char *flat = json_object_to_json_string_ext(o, JSON_FLAT);
	bool obj = json_object_is_type(o, json_type_object);
	size_t n = 0, i = 0;

	if (!is_container(o)) {
		fputs(flat, f);
		return;
	}
	if (2 * (size_t)depth + key_len + strlen(flat) <= 78 ||
	    (depth > 1 && is_leaf(o))) {
		fputs(flat, f);
		return;
	}
	fputs(obj ? "{\n" : "[\n", f);
	if (obj) {
		n = (size_t)json_object_object_length(o);
		json_object_object_foreach(o, key, val)
		{
			indent(f, depth + 1);
			fprintf(f, "\"%s\": ", key);
			emit(f, val, depth + 1, strlen(key) + 4);
			fputs(++i < n ? ",\n" : "\n", f);
		}
	} else {
		n = json_object_array_length(o);
		for (i = 0; i < n; i++) {
			indent(f, depth + 1);
			emit(f, json_object_array_get_idx(o, i), depth + 1, 0);
			fputs(i + 1 < n ? ",\n" : "\n", f);
		}
	}
	indent(f, depth);
	fputs(obj ? "}" : "]", f);
}

int vec_json_write(const char *path, json_object *o)
{
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (!f)
		return -errno;
	emit(f, o, 0, 0);
	fputc('\n', f);
	if (ferror(f))
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* ---- replay -------------------------------------------------------------- */

/*
 * struct meta - what besides the bytes an output frame must match
 * @csum:	enum voff_csum_state
 * @gso_type:	virtio gso_type (GRO outputs; 0 for GSO segments)
 * @gso_size:	its gso_size
 * @csum_start:	with VOFF_CSUM_PARTIAL
 * @csum_offset: with VOFF_CSUM_PARTIAL
 */
struct meta {
	uint8_t csum;
	uint8_t gso_type;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

struct replay {
	json_object *c;
	struct vec_frames in, out;
	struct meta want[VEC_MAX_FRAMES];
	bool used[VEC_MAX_FRAMES];
	struct vec_result *r;
};

static int bad(struct replay *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct replay *rp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rp->r->err, sizeof(rp->r->err), fmt, ap);
	va_end(ap);
	return -1;
}

static json_object *member(json_object *o, const char *k)
{
	json_object *x = NULL;

	if (o)
		json_object_object_get_ex(o, k, &x);
	return x;
}

/* The metadata case.json gives out.pcap frame @i. */
static int want_meta(struct replay *rp, int i)
{
	json_object *e = json_object_array_get_idx(member(rp->c, "output"), i);
	const char *cs = json_object_get_string(member(e, "csum"));
	struct meta *m = &rp->want[i];
	struct voff_vnet_hdr h;
	unsigned int size;
	int64_t v;

	if (!e || !cs)
		return bad(rp, "case.json: output %d has no csum", i);
	memset(m, 0, sizeof(*m));
	if (!strcmp(cs, "partial")) {
		m->csum = VOFF_CSUM_PARTIAL;
		if (!get_int(e, "csum_start", &v))
			return bad(rp, "output %d: no csum_start", i);
		m->csum_start = (uint16_t)v;
		if (!get_int(e, "csum_offset", &v))
			return bad(rp, "output %d: no csum_offset", i);
		m->csum_offset = (uint16_t)v;
	} else if (!strcmp(cs, "valid")) {
		m->csum = VOFF_CSUM_VALID;
	}
	if (member(e, "vnet_hdr")) {
		if (vec_vnet_parse(member(e, "vnet_hdr"), &h, &size))
			return bad(rp, "output %d: bad vnet_hdr", i);
		m->gso_type = h.gso_type;
		m->gso_size = h.gso_size;
	}
	return 0;
}

/* voff's output @k (bytes @d, metadata @m): which out.pcap frame it is. */
static int match(struct replay *rp, int k, const uint8_t *d, uint32_t len,
		 const struct meta *m)
{
	struct vec_result *r = rp->r;

	for (int j = 0; j < rp->out.n; j++) {
		const struct meta *w = &rp->want[j];

		if (rp->used[j] || rp->out.len[j] != len ||
		    memcmp(rp->out.d[j], d, len) || w->csum != m->csum ||
		    w->gso_type != m->gso_type || w->gso_size != m->gso_size)
			continue;
		if (m->csum == VOFF_CSUM_PARTIAL &&
		    (w->csum_start != m->csum_start ||
		     w->csum_offset != m->csum_offset))
			continue;
		rp->used[j] = true;
		r->order[k] = j;
		if (j != k)
			r->exact = false;
		return 0;
	}
	for (int j = 0; j < rp->out.n; j++) {
		uint32_t n = len < rp->out.len[j] ? len : rp->out.len[j];
		uint32_t b = 0;

		if (rp->used[j])
			continue;
		while (b < n && rp->out.d[j][b] == d[b])
			b++;
		return bad(rp, "voff output %d (%u bytes, csum %u, gso %u/%u) "
			    "matches no kernel frame; the next one, %d, has "
			    "%u bytes, csum %u, gso %u/%u, first byte "
			    "differing %u", k, len, m->csum, m->gso_type,
			    m->gso_size, j, rp->out.len[j], rp->want[j].csum,
			    rp->want[j].gso_type, rp->want[j].gso_size, b);
	}
	return bad(rp, "voff output %d (%u bytes) is one too many", k, len);
}

static int replay_gso(struct replay *rp)
{
	json_object *params = member(rp->c, "params");
	json_object *in0 = json_object_array_get_idx(member(rp->c, "input"), 0);
	const char *mode = json_object_get_string(member(params, "csum_mode"));
	struct voff_gso_opts o = { 0 };
	static uint8_t buf[VOFF_PKT_SUPER_ROOM];
	uint8_t hb[VOFF_VNET_HDR_TNL_LEN];
	struct voff_pool *pool = NULL;
	struct voff_pkt **segs = NULL;
	struct voff_gso_info info;
	struct voff_vnet_cfg cfg;
	struct voff_vnet_hdr h;
	struct voff_pkt pkt;
	unsigned int size;
	int64_t v;
	int n, rc;

	if (rp->in.n != 1 || rp->in.len[0] > sizeof(buf))
		return bad(rp, "a GSO case has one input frame");
	if (vec_vnet_parse(member(in0, "vnet_hdr"), &h, &size))
		return bad(rp, "input 0: bad vnet_hdr");
	if (!mode || (strcmp(mode, "full") && strcmp(mode, "partial")))
		return bad(rp, "params.csum_mode is neither full nor partial");
	o.csum_mode = strcmp(mode, "full") ? VOFF_GSO_CSUM_PARTIAL
					   : VOFF_GSO_CSUM_FULL;
	if (get_int(params, "ipv6_frag_id", &v))
		o.ipv6_frag_id = (uint32_t)v;
	cfg = vnet_cfg(size);
	CHECK_EQ(voff_vnet_hdr_write(&cfg, &h, hb, sizeof(hb)), (int)size);
	memcpy(buf, rp->in.d[0], rp->in.len[0]);
	CHECK_OK(voff_pkt_init_ext(&pkt, buf, sizeof(buf), 0, rp->in.len[0]));
	rc = voff_vnet_decode(&cfg, hb, size, &pkt);
	if (rc)
		return bad(rp, "vnet header refused: %s", voff_strerror(rc));
	rc = voff_gso_count(&pkt, &o, &info);
	if (rc)
		return bad(rp, "voff_gso_count: %s", voff_strerror(rc));
	segs = calloc(info.segs, sizeof(*segs));
	CHECK(segs != NULL);
	CHECK_OK(voff_pool_new(&pool, info.segs,
			       info.max_len < 64 ? 64 : info.max_len));
	n = voff_gso_segment(&pkt, &o, pool, segs, info.segs);
	rc = n < 0 ? bad(rp, "voff_gso_segment: %s", voff_strerror(n)) : 0;
	for (int i = 0; i < n && !rc; i++) {
		struct meta m = { .csum = segs[i]->csum,
				  .csum_start = segs[i]->csum_start,
				  .csum_offset = segs[i]->csum_offset };

		rc = match(rp, i, voff_pkt_data(segs[i]), segs[i]->len, &m);
	}
	rp->r->n_out = n < 0 ? 0 : n;
	if (n > 0)
		voff_pkt_free_bulk(segs, (unsigned int)n);
	voff_pool_free(pool);
	free(segs);
	return rc;
}

/*
 * A frame's flow (L2 addresses and tags, IP addresses, protocol, ports)
 * into @key, and its payload bytes; false when it does not parse.
 */
static bool flow_of(const uint8_t *d, uint32_t len, uint8_t key[64],
		    uint32_t *payload)
{
	struct voff_parsed p;
	size_t alen;

	memset(key, 0, 64);
	if (voff_parse(d, len, VOFF_PARSE_ETH, &p) ||
	    p.l3_off == VOFF_OFF_NONE || p.l4_off == VOFF_OFF_NONE ||
	    p.payload_off > p.l3_end)
		return false;
	alen = p.l3_proto == 4 ? 8 : 32;
	memcpy(key, d, p.l3_off < 22 ? p.l3_off : 22);
	memcpy(key + 22, d + p.l3_off + (p.l3_proto == 4 ? 12 : 8), alen);
	key[54] = p.l4_proto;
	memcpy(key + 55, d + p.l4_off, 4);
	*payload = p.l3_end - p.payload_off;
	return true;
}

/*
 * GRO: which inputs each output holds.  voff never reorders a flow, so
 * its outputs of a flow, in order, take that flow's inputs in order, as
 * many as their payloads add up to.
 */
static int members(struct replay *rp, const struct run *R)
{
	static uint8_t ikey[VEC_MAX_FRAMES][64];
	uint32_t ipay[VEC_MAX_FRAMES];
	bool taken[VEC_MAX_FRAMES] = { false };

	for (int i = 0; i < rp->in.n; i++)
		if (!flow_of(rp->in.d[i], rp->in.len[i], ikey[i], &ipay[i]))
			return bad(rp, "input %d does not parse", i);
	for (int k = 0; k < R->n; k++) {
		uint8_t key[64];
		uint32_t pay, sum = 0;
		int i = 0;

		if (!flow_of(R->out[k].d, R->out[k].len, key, &pay))
			return bad(rp, "voff output %d does not parse", k);
		do {
			while (i < rp->in.n &&
			       (taken[i] || memcmp(ikey[i], key, 64)))
				i++;
			if (i == rp->in.n)
				return bad(rp, "output %d: no input left", k);
			taken[i] = true;
			rp->r->member_of[i] = rp->r->order[k];
			sum += ipay[i];
		} while (sum < pay);
		if (sum != pay)
			return bad(rp, "output %d: inputs add up to %u bytes "
				    "of payload, not %u", k, sum, pay);
	}
	return 0;
}

static int replay_gro(struct replay *rp)
{
	json_object *vc = member(member(rp->c, "params"), "voff");
	struct voff_gro_config cfg = { .start = VOFF_PARSE_ETH };
	static struct run R;
	int64_t v;
	int rc = 0;

	if (!get_int(vc, "max_flows", &v))
		return bad(rp, "params.voff.max_flows missing");
	cfg.max_flows = (unsigned int)v;
	if (!get_int(vc, "max_size", &v))
		return bad(rp, "params.voff.max_size missing");
	cfg.max_size = (unsigned int)v;
	cfg.no_udp = json_object_get_boolean(member(vc, "no_udp"));
	run_init(&R, &cfg);
	for (int i = 0; i < rp->in.n; i++)
		run_feed_bytes(&R, rp->in.d[i], rp->in.len[i], VOFF_CSUM_NONE,
			       0);
	run_end(&R);
	for (int k = 0; k < R.n && !rc; k++) {
		struct meta m = { .csum = R.out[k].csum,
				  .gso_type = gro_vnet_type(R.out[k].gso_type),
				  .gso_size = R.out[k].gso_size,
				  .csum_start = R.out[k].csum_start,
				  .csum_offset = R.out[k].csum_offset };

		rc = match(rp, k, R.out[k].d, R.out[k].len, &m);
	}
	rp->r->n_out = R.n;
	if (!rc)
		rc = members(rp, &R);
	run_fini(&R);
	return rc;
}

int vec_replay(const char *dir, struct vec_result *r)
{
	static struct replay rp;
	char path[4096];
	const char *kind;
	int rc;

	memset(r, 0, sizeof(*r));
	memset(&rp, 0, sizeof(rp));
	rp.r = r;
	r->exact = true;
	snprintf(path, sizeof(path), "%s/case.json", dir);
	rp.c = json_object_from_file(path);
	if (!rp.c)
		return bad(&rp, "%s: %s", path, json_util_get_last_err());
	snprintf(path, sizeof(path), "%s/in.pcap", dir);
	rc = vec_pcap_read(path, &rp.in);
	if (!rc) {
		snprintf(path, sizeof(path), "%s/out.pcap", dir);
		rc = vec_pcap_read(path, &rp.out);
	}
	if (rc)
		rc = bad(&rp, "%s: %s", path, voff_strerror(rc));
	else if ((int)json_object_array_length(member(rp.c, "output")) !=
		 rp.out.n)
		rc = bad(&rp, "case.json lists %zu outputs, out.pcap has %d",
			  json_object_array_length(member(rp.c, "output")),
			  rp.out.n);
	for (int j = 0; j < rp.out.n && !rc; j++)
		rc = want_meta(&rp, j);
	kind = json_object_get_string(member(rp.c, "kind"));
	if (rc)
		;
	else if (kind && !strcmp(kind, "gso"))
		rc = replay_gso(&rp);
	else if (kind && !strcmp(kind, "gro"))
		rc = replay_gro(&rp);
	else
		rc = bad(&rp, "case.json: kind is neither gso nor gro");
	if (!rc && r->n_out != rp.out.n)
		rc = bad(&rp, "voff made %d frames, the kernel %d", r->n_out,
			  rp.out.n);
	vec_frames_free(&rp.in);
	vec_frames_free(&rp.out);
	json_object_put(rp.c);
	return rc;
}
