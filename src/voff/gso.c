/* SPDX-License-Identifier: MIT */
/*
 * gso.c - `voff gso [options] IN OUT`: segment every frame of a capture
 * whose payload exceeds the MSS, as an egress without TSO/USO would
 *
 * A thin loop over libvoff: voff_pcap_read() loads a frame,
 * voff_pkt_parse() finds its headers, the frame becomes a super-packet of
 * the matching type (TCP: TSO; UDP: USO, or UFO with --ufo; inside VXLAN,
 * Geneve or GRE: the tunnel types, with the _CSUM variant when the outer
 * UDP or GRE checksum is present) and voff_gso_segment() (or, with
 * --max-size, voff_gso_resegment()) cuts it.  Frames that need no cutting
 * are copied unchanged.  A frame libvoff refuses is copied unchanged too,
 * reported on standard error, and makes the exit status 1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>

#include "capture.h"
#include "cmd.h"
#include "num.h"
#include "opts.h"
#include "outfile.h"

#define CMD "voff gso"
#define MTU 1500

struct gso_run {
	const char *in, *outp;	/* the files as named */
	struct voff_pcap *w;	/* the output */
	unsigned long written;	/* frames in the output */
	uint32_t mss;		/* 0: from each frame's headers */
	uint32_t max_size;	/* 0: segment; else resegment to this */
	uint32_t max_segs;
	bool ufo;
	bool segs_set, frag_set;	/* --max-segs, --frag-id given */
	struct voff_gso_opts opts;
	struct voff_pool *pool;
	struct voff_pkt **out;
	unsigned int cap;
	unsigned long frames, cut, segs, copied, failed;
	struct cap_snaps snaps;	/* cut by the capture: copied unchanged */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: voff gso [--mss N] [--max-size N] [--max-segs N]\n"
		"                [--csum full|partial] [--ufo] [--frag-id N]\n"
		"                IN.pcap OUT.pcap\n"
		"\n"
		"Segment every frame of IN whose payload exceeds the MSS the\n"
		"way Linux's software GSO does (TCP: TSO; UDP: USO, or IP\n"
		"fragments with --ufo; VXLAN, Geneve and GRE tunnels too) and\n"
		"write OUT; other frames are copied unchanged.  - is standard\n"
		"input (IN) or output (OUT).  OUT appears only once complete.\n"
		"\n"
		"  --mss N         payload bytes per segment (default: 1500\n"
		"                  minus the frame's own L3 and L4 headers)\n"
		"  --max-size N    instead of segmenting, split into smaller\n"
		"                  super-packets shorter than N bytes (GSO\n"
		"                  limits of an egress; partial checksums)\n"
		"  --max-segs N    with --max-size: segments per piece\n"
		"                  (default 65535)\n"
		"  --csum MODE     full (default): every checksum computed;\n"
		"                  partial: L4 checksums left as the pseudo-\n"
		"                  header seed an offloading egress completes\n"
		"  --ufo           UDP as IP fragments (UFO) instead of USO\n"
		"  --frag-id N     with --ufo: fragment ID for IPv6 UFO\n"
		"                  (default 0)\n"
		"  -h, --help      show this help\n"
		"\n"
		"Exit status: 0 when every frame was handled, 1 when a frame\n"
		"could not be segmented (copied unchanged) or a file failed,\n"
		"2 on usage errors.\n");
}

/* The gso_type of the innermost L4 header, 0 when there is nothing to do. */
static uint32_t base_type(uint8_t l3, uint8_t l4, bool ufo)
{
	if (l4 == 6)
		return l3 == 6 ? VOFF_GSO_TCPV6 : VOFF_GSO_TCPV4;
	if (l4 == 17)
		return ufo ? VOFF_GSO_UDP : VOFF_GSO_UDP_L4;
	return 0;
}

/* Tunnel bits; the _CSUM variants when the outer checksum is present. */
static uint32_t tunnel_type(const struct voff_pkt *pkt,
			    const struct voff_parsed *p)
{
	const uint8_t *d = voff_pkt_data(pkt);

	if (p->tunnel == VOFF_PROTO_GRE)
		return (d[p->l4_off] & 0x80) ? VOFF_GSO_GRE | VOFF_GSO_GRE_CSUM
					     : VOFF_GSO_GRE;
	if (d[p->l4_off + 6] || d[p->l4_off + 7])
		return VOFF_GSO_UDP_TUNNEL | VOFF_GSO_UDP_TUNNEL_CSUM;
	return VOFF_GSO_UDP_TUNNEL;
}

/*
 * Turn a parsed frame into a super-packet; return false when it needs no
 * segmentation (not TCP/UDP, or its payload fits the MSS).
 */
static bool make_super(const struct gso_run *r, struct voff_pkt *pkt,
		       const struct voff_parsed *p)
{
	uint32_t type, mss = r->mss, payload, hdr;

	if (p->tunnel && p->inner_l3_off != VOFF_OFF_NONE) {
		type = base_type(p->inner_l3_proto, p->inner_l4_proto, false);
		if (type)
			type |= tunnel_type(pkt, p);
	} else {
		type = base_type(p->l3_proto, p->l4_proto, r->ufo);
	}
	if (!type || p->payload_off > pkt->len)
		return false;
	hdr = p->payload_off - p->l3_off;
	payload = pkt->len - p->payload_off;
	if (type & VOFF_GSO_UDP) {
		/* UFO cuts the IP payload, UDP header included. */
		hdr = p->l4_off - p->l3_off;
		payload = pkt->len - p->l4_off;
		if (!mss && hdr < MTU)
			mss = (MTU - hdr) & ~7u;
	} else if (!mss && hdr < MTU) {
		mss = MTU - hdr;
	}
	if (!mss || payload <= mss || mss > 0xFFFE)
		return false;
	pkt->gso_type = type;
	pkt->gso_size = (uint16_t)mss;
	return true;
}

/* Append @pkt to the output; Return: 0, or -1 after saying why. */
static int put(struct gso_run *r, const struct voff_pkt *pkt)
{
	int err = voff_pcap_write(r->w, pkt);

	r->written++;
	if (err)
		return cap_error(CMD, r->outp, 1, r->written, err, NULL);
	return 0;
}

static int put_all(struct gso_run *r, struct voff_pkt **pkts, int n)
{
	int err = 0;

	for (int i = 0; i < n && !err; i++)
		err = put(r, pkts[i]);
	voff_pkt_free_bulk(pkts, (unsigned int)n);
	return err;
}

/* One frame: segment (or resegment) it, or copy it. */
static int one_frame(struct gso_run *r, struct voff_pkt *pkt,
		     enum voff_parse_start start)
{
	struct voff_parsed p;
	int n;

	if (voff_pkt_parse(pkt, start, &p) != 0 || !make_super(r, pkt, &p))
		goto copy;
	/* Ethernet padding after the IP packet is no payload. */
	if (p.l3_end < pkt->len)
		voff_pkt_trim(pkt, p.l3_end);
	if (r->max_size)
		n = voff_gso_resegment(pkt, r->max_size, r->max_segs, r->pool,
				       r->out, r->cap);
	else
		n = voff_gso_segment(pkt, &r->opts, r->pool, r->out, r->cap);
	if (n < 0) {
		cap_error(CMD, r->in, 0, r->frames, n, "copied unchanged");
		r->failed++;
		goto copy;
	}
	if (n == 0)
		goto copy;	/* already within the limits */
	r->cut++;
	r->segs += (unsigned long)n;
	return put_all(r, r->out, n);
copy:
	r->copied++;
	pkt->gso_type = 0;
	pkt->gso_size = 0;
	return put(r, pkt);
}

/* Every frame of @rd to the output; Return: 0, or -1 after saying why. */
static int frames(struct gso_run *r, struct voff_pcap *rd,
		  struct voff_pkt *pkt)
{
	for (;;) {
		int err = voff_pcap_read(rd, pkt);

		if (err == 0)
			return 0;
		r->frames++;
		if (err == VOFF_E_PCAP_SNAP) {
			/* Its bytes are not all there: it cannot be cut. */
			uint32_t wire = voff_pcap_orig_len(rd);

			cap_snapped(&r->snaps, r->frames, pkt->len, wire);
			r->written++;
			err = voff_pcap_write_snapped(r->w, pkt, wire);
			if (err)
				return cap_error(CMD, r->outp, 1, r->written,
						 err, NULL);
			continue;
		}
		if (err == VOFF_E_TOO_BIG) {
			cap_error(CMD, r->in, 0, r->frames, err, "left out");
			r->failed++;
			continue;
		}
		if (err < 0)
			return cap_error(CMD, r->in, 0, r->frames, err, NULL);
		if (one_frame(r, pkt, voff_pcap_start(rd)))
			return -1;
	}
}

/*
 * Segment @r->in into @r->outp, which appears only when every frame is
 * written.  Return: 0 (frames may have been refused: see @r), or -1 after
 * saying why (no output then).
 */
static int run(struct gso_run *r)
{
	struct voff_pool *in_pool = NULL;
	struct voff_pcap *rd = NULL;
	struct voff_pkt *pkt = NULL;
	struct outfile of;
	int err;

	if (outfile_begin(&of, CMD, r->in, r->outp))
		return -1;
	err = cap_open_read(&rd, CMD, r->in);
	if (err)
		goto err_read;
	err = voff_pcap_open_write(&r->w, of.write, voff_pcap_start(rd));
	if (err) {
		cap_error(CMD, r->outp, 1, 0, err, NULL);
		goto err_write;
	}
	err = voff_pool_new(&in_pool, 1, VOFF_PKT_SUPER_ROOM);
	if (!err)
		err = voff_pkt_alloc(in_pool, &pkt);
	if (err)
		fprintf(stderr, CMD ": %s\n", voff_strerror(err));
	else
		err = frames(r, rd, pkt);
	voff_pkt_free(pkt);
	voff_pool_free(in_pool);
	if (!err) {
		err = voff_pcap_close(r->w);
		if (err)
			cap_error(CMD, r->outp, 1, 0, err, NULL);
	} else {
		voff_pcap_close(r->w);
	}
err_write:
	voff_pcap_close(rd);
err_read:
	return outfile_end(&of, CMD, !err);
}

/* One option; Return: 0, or -1 after printing why its value is bad. */
static int one_opt(void *ctx, int c)
{
	struct gso_run *r = ctx;

	switch (c) {
	case 'm':
		return num_opt_u32(CMD, "--mss", optarg, 1, 0xFFFE, &r->mss);
	case 's':
		return num_opt_u32(CMD, "--max-size", optarg, 64, 0x7FFFFFFF,
				   &r->max_size);
	case 'n':
		r->segs_set = true;
		return num_opt_u32(CMD, "--max-segs", optarg, 1, 0xFFFF,
				   &r->max_segs);
	case 'c':
		if (!strcmp(optarg, "full"))
			r->opts.csum_mode = VOFF_GSO_CSUM_FULL;
		else if (!strcmp(optarg, "partial"))
			r->opts.csum_mode = VOFF_GSO_CSUM_PARTIAL;
		else {
			fprintf(stderr, CMD ": --csum: '%s' is neither full "
					    "nor partial\n", optarg);
			return -1;
		}
		return 0;
	case 'u':
		r->ufo = true;
		return 0;
	case 'f':
		r->frag_set = true;
		return num_opt_u32(CMD, "--frag-id", optarg, 0, UINT32_MAX,
				   &r->opts.ipv6_frag_id);
	default:
		return -1;
	}
}

/* Return: -1 to run, or the exit status (after --help, a usage error). */
static int parse_args(struct gso_run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mss", required_argument, NULL, 'm' },
		{ "max-size", required_argument, NULL, 's' },
		{ "max-segs", required_argument, NULL, 'n' },
		{ "csum", required_argument, NULL, 'c' },
		{ "ufo", no_argument, NULL, 'u' },
		{ "frag-id", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct opts_spec spec = {
		.cmd = CMD, .shortopts = "h", .longopts = longopts,
		.usage = usage, .one = one_opt, .ctx = r,
		.operands = 2, .expected = "IN.pcap and OUT.pcap",
	};
	int rc = opts_parse(&spec, argc, argv);

	if (rc >= 0)
		return rc;
	/* Options that mean nothing alone are refused, not ignored. */
	if (r->segs_set && !r->max_size) {
		fprintf(stderr, CMD ": --max-segs needs --max-size\n");
		return VOFF_EXIT_USAGE;
	}
	if (r->frag_set && !r->ufo) {
		fprintf(stderr, CMD ": --frag-id needs --ufo\n");
		return VOFF_EXIT_USAGE;
	}
	return -1;
}

int gso_main(int argc, char **argv)
{
	struct gso_run r = { .max_segs = 0xFFFF };
	uint32_t room;
	int rc;

	rc = parse_args(&r, argc, argv);
	if (rc >= 0)
		return rc;
	/* Enough packets and room for the largest possible output. */
	if (r.max_size) {
		room = r.max_size + 64;
		r.cap = 1024;
	} else {
		uint32_t mss = r.mss ? r.mss : MTU;
		/* The default MSS is the MTU less the frame's own headers. */
		uint32_t least = r.mss ? r.mss : MTU - VOFF_GSO_MAX_HDR;

		room = mss + VOFF_GSO_SLOT_SIZE + 64;
		r.cap = 0xFFFF / least + 2;
	}
	if (room > VOFF_PKT_SUPER_ROOM)
		room = VOFF_PKT_SUPER_ROOM;
	r.out = calloc(r.cap, sizeof(*r.out));
	if (!r.out || voff_pool_new(&r.pool, r.cap, room)) {
		fprintf(stderr, CMD ": out of memory\n");
		free(r.out);
		return VOFF_EXIT_FAIL;
	}
	rc = VOFF_EXIT_FAIL;
	r.in = argv[optind];
	r.outp = argv[optind + 1];
	if (!run(&r)) {
		cap_snaps_note(&r.snaps, CMD, r.in, "copied unchanged");
		fprintf(stderr,
			CMD ": %lu frames: %lu segmented into %lu, %lu copied, "
			    "%lu failed",
			r.frames, r.cut, r.segs, r.copied, r.failed);
		if (r.snaps.n)
			fprintf(stderr, ", %lu snapped", r.snaps.n);
		fputc('\n', stderr);
		rc = r.failed || r.snaps.n ? VOFF_EXIT_FAIL : VOFF_EXIT_OK;
	}
	voff_pool_free(r.pool);
	free(r.out);
	return rc;
}
