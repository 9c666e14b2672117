/* SPDX-License-Identifier: MIT */
/*
 * gro.c - `voff gro [options] IN.pcap OUT.pcap`: run the GRO engine over a
 * capture and write what a receive path would deliver
 *
 * A thin loop over libvoff (gro.h): each frame is offered to the engine
 * in file order; capture timestamps are the engine's clock, so with
 * --flush-timeout a held flow leaves once a later frame (or the end of the
 * file) is at least that much younger than its head.  Without a timeout the
 * whole capture is one receive batch: flows leave when they cannot grow,
 * when the table is full, or at the end of the file.  Super-packets are
 * written with their TCP/UDP checksum completed (a capture has no
 * NEEDS_CSUM flag), stamped with the time they left the engine; frames the
 * engine hands back are written as they were read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <voff/voff.h>
#include <voff/gro.h>

#include "capture.h"
#include "cmd.h"
#include "num.h"
#include "opts.h"
#include "outfile.h"

#define CMD "voff gro"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: voff gro [--flush-timeout NS] [--max-size N] "
		"[--max-flows N] [--no-udp] IN.pcap OUT.pcap\n"
		"\n"
		"Coalesce the TCP segments and UDP datagrams of each flow of a\n"
		"capture into super-packets with Linux 6.18's GRO rules.  - is\n"
		"standard input (IN) or output (OUT).  OUT appears only once\n"
		"complete.\n"
		"\n"
		"  --flush-timeout NS  hold a flow at most NS nanoseconds of\n"
		"                      capture time (default: no limit, the\n"
		"                      capture is one receive batch)\n"
		"  --max-size N        largest merged IP datagram (default and\n"
		"                      most 65535)\n"
		"  --max-flows N       flows held at once (default 64)\n"
		"  --no-udp            do not coalesce UDP\n"
		"\n"
		"A summary goes to standard error.  Exit status: 0, 1 when a\n"
		"file cannot be read or written, 2 on usage errors.\n");
}

struct gro_run {
	const char *in, *outp;	/* the files as named */
	struct voff_gro *g;
	uint64_t timeout;
	struct voff_pcap *out;
	uint64_t frames;	/* read from the input */
	uint64_t written;	/* in the output */
	uint64_t supers;
	uint64_t segs_in_supers;
	uint64_t left_out;	/* too big to load */
	struct cap_snaps snaps;	/* cut by the capture: passed unchanged */
};

/*
 * Write one packet; engine outputs get complete checksums first.
 * Return: 0, or -1 after saying why.
 */
static int put(struct gro_run *r, struct voff_pkt *p, uint64_t ns,
	       bool from_engine)
{
	int rc = 0;

	r->written++;
	if (from_engine) {
		if (p->gso_segs > 1) {
			r->supers++;
			r->segs_in_supers += p->gso_segs;
		}
		rc = voff_pkt_csum_complete(p);
		p->rx_ns = ns;
		if (rc)
			cap_error(CMD, r->outp, 1, r->written, rc,
				  "checksum of a super-packet");
	}
	if (!rc) {
		rc = voff_pcap_write(r->out, p);
		if (rc)
			cap_error(CMD, r->outp, 1, r->written, rc, NULL);
	}
	voff_pkt_free(p);
	return rc ? -1 : 0;
}

static int drain(struct gro_run *r, uint64_t ns)
{
	struct voff_pkt *p;

	while ((p = voff_gro_pop(r->g))) {
		int rc = put(r, p, ns, true);

		if (rc)
			return rc;
	}
	return 0;
}

/* Offer one frame @p to the engine; Return: 0, or -1 after saying why. */
static int offer(struct gro_run *r, struct voff_pkt *p, uint64_t now)
{
	int rc;

	/* Flows whose time is up leave before this frame arrives. */
	if (r->timeout)
		voff_gro_flush(r->g, now);
	rc = drain(r, now);
	if (rc) {
		voff_pkt_free(p);
		return rc;
	}
	rc = voff_gro_receive(r->g, p, now);
	if (rc < 0) {
		voff_pkt_free(p);
		return cap_error(CMD, r->in, 0, r->frames, rc, NULL);
	}
	if (rc != VOFF_GRO_PASS)
		return 0;
	rc = drain(r, now);
	if (rc) {
		voff_pkt_free(p);
		return rc;
	}
	return put(r, p, p->rx_ns, false);
}

/*
 * A frame the capture cut cannot be merged (its payload is not all
 * there): it passes unchanged, its on-wire length kept, after every held
 * flow, so no flow's frames change order.  Return: 0, or -1 (reported).
 */
static int pass_snapped(struct gro_run *r, struct voff_pkt *p,
			const struct voff_pcap *in, uint64_t now)
{
	uint32_t wire = voff_pcap_orig_len(in);
	int rc;

	cap_snapped(&r->snaps, r->frames, p->len, wire);
	voff_gro_flush_all(r->g);
	rc = drain(r, now);
	if (!rc) {
		r->written++;
		rc = voff_pcap_write_snapped(r->out, p, wire);
		if (rc)
			rc = cap_error(CMD, r->outp, 1, r->written, rc, NULL);
	}
	voff_pkt_free(p);
	return rc;
}

/* Offer every frame of @in; Return: 0, or -1 after saying why. */
static int run(struct gro_run *r, struct voff_pcap *in, struct voff_pool *pool)
{
	uint64_t now = 0;
	struct voff_pkt *p;

	for (;;) {
		int rc = voff_pkt_alloc(pool, &p);

		if (rc) {
			fprintf(stderr, CMD ": %s\n", voff_strerror(rc));
			return -1;
		}
		rc = voff_pcap_read(in, p);
		if (rc == 0) {
			voff_pkt_free(p);
			break;
		}
		r->frames++;
		if (rc == VOFF_E_TOO_BIG) {
			/* Not loaded, so it cannot be passed on either. */
			cap_error(CMD, r->in, 0, r->frames, rc, "left out");
			r->left_out++;
			voff_pkt_free(p);
			continue;
		}
		if (rc < 0 && rc != VOFF_E_PCAP_SNAP) {
			voff_pkt_free(p);
			return cap_error(CMD, r->in, 0, r->frames, rc, NULL);
		}
		if (p->rx_ns > now)
			now = p->rx_ns;
		rc = rc == VOFF_E_PCAP_SNAP ? pass_snapped(r, p, in, now) :
					      offer(r, p, now);
		if (rc)
			return -1;
	}
	voff_gro_flush_all(r->g);
	return drain(r, now);
}

/*
 * Run the engine over @r->in into @r->outp, which appears only when every
 * frame is written.  Return: 0, or -1 after saying why (no output then).
 */
static int coalesce(struct gro_run *r, struct voff_gro_config *cfg)
{
	struct voff_gro_stats st;
	struct voff_pool *pool = NULL;
	struct voff_pcap *in = NULL;
	struct outfile of;
	int rc;

	if (outfile_begin(&of, CMD, r->in, r->outp))
		return -1;
	rc = cap_open_read(&in, CMD, r->in);
	if (rc)
		goto err_in;
	cfg->start = voff_pcap_start(in);
	rc = voff_gro_new(&r->g, cfg);
	if (rc) {
		fprintf(stderr, CMD ": GRO engine: %s\n", voff_strerror(rc));
		goto err_gro;
	}
	/* Each held flow keeps its frame's buffer: room for all of them. */
	rc = voff_pool_new(&pool, (cfg->max_flows ? cfg->max_flows
						  : VOFF_GRO_DEFAULT_FLOWS) + 8,
			   VOFF_PKT_SUPER_ROOM);
	if (rc) {
		fprintf(stderr, CMD ": %s\n", voff_strerror(rc));
		goto err_pool;
	}
	rc = voff_pcap_open_write(&r->out, of.write, cfg->start);
	if (rc) {
		cap_error(CMD, r->outp, 1, 0, rc, NULL);
		goto err_out;
	}
	r->timeout = cfg->flush_timeout_ns;
	rc = run(r, in, pool);
	voff_gro_stats(r->g, &st);
	if (!rc) {
		rc = voff_pcap_close(r->out);
		if (rc)
			cap_error(CMD, r->outp, 1, 0, rc, NULL);
	} else {
		voff_pcap_close(r->out);
	}
	if (!rc) {
		cap_snaps_note(&r->snaps, CMD, r->in, "passed unchanged");
		fprintf(stderr,
			CMD ": %" PRIu64 " frames in, %" PRIu64 " out (%" PRIu64
			    " super-packets of %" PRIu64 " segments), %" PRIu64
			    " passed, %" PRIu64 " bad checksums",
			r->frames, r->written, r->supers, r->segs_in_supers,
			st.passed, st.csum_bad);
		if (r->snaps.n)
			fprintf(stderr, ", %lu snapped", r->snaps.n);
		fputc('\n', stderr);
	}
err_out:
	voff_pool_free(pool);
err_pool:
	voff_gro_free(r->g);
err_gro:
	voff_pcap_close(in);
err_in:
	return outfile_end(&of, CMD, !rc);
}

/* One option; Return: 0, or -1 after printing why its value is bad. */
static int one_opt(void *ctx, int c)
{
	struct voff_gro_config *cfg = ctx;
	uint32_t v = 0;
	int err;

	switch (c) {
	case 't':
		return num_opt(CMD, "--flush-timeout", optarg, 0, UINT64_MAX,
			       &cfg->flush_timeout_ns);
	case 's':
		err = num_opt_u32(CMD, "--max-size", optarg, 1,
				  VOFF_GRO_MAX_DATAGRAM, &v);
		cfg->max_size = v;
		return err;
	case 'f':
		err = num_opt_u32(CMD, "--max-flows", optarg, 1, 65536, &v);
		cfg->max_flows = v;
		return err;
	case 'u':
		cfg->no_udp = true;
		return 0;
	default:
		return -1;
	}
}

int gro_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "flush-timeout", required_argument, NULL, 't' },
		{ "max-size", required_argument, NULL, 's' },
		{ "max-flows", required_argument, NULL, 'f' },
		{ "no-udp", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct voff_gro_config cfg = { 0 };
	struct gro_run r = { 0 };
	const struct opts_spec spec = {
		.cmd = CMD, .shortopts = "h", .longopts = longopts,
		.usage = usage, .one = one_opt, .ctx = &cfg,
		.operands = 2, .expected = "IN.pcap and OUT.pcap",
	};
	int rc = opts_parse(&spec, argc, argv);

	if (rc >= 0)
		return rc;
	r.in = argv[optind];
	r.outp = argv[optind + 1];
	if (coalesce(&r, &cfg))
		return VOFF_EXIT_FAIL;
	return r.left_out ? VOFF_EXIT_FAIL : VOFF_EXIT_OK;
}
