/* SPDX-License-Identifier: MIT */
/*
 * pcap.c - capture files through libpcap: read Ethernet and raw-IP
 * captures into struct voff_pkt, write packets as capture frames
 *
 * The rest of libvoff never sees libpcap: this file turns its handles,
 * link types and status codes into a struct voff_pcap, enum
 * voff_parse_start and voff's error convention (pcap.h, err.h).
 *
 * Choices made here, beyond the contract in pcap.h:
 *
 *  - Timestamps are nanoseconds throughout.  Files are opened for reading
 *    with PCAP_TSTAMP_PRECISION_NANO, so libpcap scales microsecond files
 *    up and hands nanosecond files over untouched; files are written with
 *    the nanosecond pcap magic (0xa1b23c4d), which tcpdump, tshark and
 *    Wireshark read.  The timestamp is wall-clock time (ns since the Unix
 *    epoch) as capture files define it, even though rx_ns of a received
 *    packet is CLOCK_MONOTONIC; voff_pcap_write() with rx_ns 0 stamps the
 *    frame with CLOCK_REALTIME.
 *  - We open the file ourselves (fopen) and hand the stream to libpcap, so
 *    an open failure keeps its errno (-ENOENT, -EACCES) and a failure while
 *    reading the file header can be told apart: a stream error is -EIO,
 *    anything else is "not a capture" (VOFF_E_PCAP_FORMAT).
 *  - Raw IP is written as LINKTYPE_RAW (DLT_RAW); on reading, DLT_RAW
 *    (LINKTYPE_RAW and the old DLT_RAW values), LINKTYPE_IPV4 and
 *    LINKTYPE_IPV6 all mean VOFF_PARSE_IP.
 *  - pcap_dump() reports no errors, so the writer checks the stream's error
 *    flag after every frame (with errno, cleared before, naming the cause)
 *    and flushes the file header at open time, so a file that cannot be
 *    written fails early, in voff_pcap_open_write().
 *  - A file that ends inside a frame record is told from a damaged record
 *    by the stream's end-of-file flag: VOFF_E_PCAP_TRUNC, not
 *    VOFF_E_PCAP_FORMAT.
 *  - Error texts for the caller (voff_pcap_open_read()'s @errbuf) name the
 *    cause only; the caller knows the file and names it once.
 *  - A frame longer than VOFF_PCAP_SNAPLEN is stored cut to the snap length
 *    with its original length recorded, as a live capture would store it.
 *  - Using a read handle to write, or a write handle to read, is -EINVAL.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <voff/err.h>
#include <voff/pcap.h>
#include <voff/pkt.h>

/*
 * Old libpcap headers lack the IPv4/IPv6 link types; their values are fixed
 * by the LINKTYPE registry.
 */
#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

#define NSEC_PER_SEC 1000000000ull

/**
 * struct voff_pcap - one open capture file
 * @pcap:	libpcap handle: the file for reading, a "dead" handle that
 *		carries link type, snap length and precision for writing
 * @dumper:	the output stream when writing, else NULL
 * @start:	how frames begin (Ethernet or raw IP)
 * @werr:	the first write error (negative errno), kept for close
 * @orig_len:	on-wire length of the frame last read (0: none)
 */
struct voff_pcap {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	enum voff_parse_start start;
	int werr;
	uint32_t orig_len;
};

/* Copy @msg into the caller's optional error buffer. */
static void set_err(char *errbuf, size_t errlen, const char *msg)
{
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", msg);
}

/* Map a link type to where its frames begin; -1 when voff cannot read it. */
static int start_of(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
		return VOFF_PARSE_ETH;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return VOFF_PARSE_IP;
	default:
		return -1;
	}
}

/* fopen() that maps "-" to a stdin/stdout the handle may close. */
static FILE *open_stream(const char *path, bool write)
{
	int fd;
	FILE *f;

	if (strcmp(path, "-") != 0)
		return fopen(path, write ? "wb" : "rb");
	/*
	 * libpcap never closes stdin but its dumper fcloses its stream;
	 * with a duplicate of the descriptor both paths are uniform and the
	 * process keeps its own standard streams.  What the process already
	 * printed must come out before the capture does.
	 */
	if (write)
		fflush(stdout);
	fd = dup(write ? STDOUT_FILENO : STDIN_FILENO);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, write ? "wb" : "rb");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* Open errors the contract names keep their errno; the rest are -EIO. */
static int open_errno(int e)
{
	return e == ENOENT || e == EACCES ? -e : -EIO;
}

int voff_pcap_open_read(struct voff_pcap **out, const char *path,
			char *errbuf, size_t errlen)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	char msg[PCAP_ERRBUF_SIZE + 128];
	struct voff_pcap *pc;
	FILE *f;
	int dlt, rc;

	if (!out || !path)
		return -EINVAL;
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		set_err(errbuf, errlen, strerror(ENOMEM));
		return -ENOMEM;
	}
	f = open_stream(path, false);
	if (!f) {
		rc = open_errno(errno);
		set_err(errbuf, errlen, strerror(errno));
		goto err_open;
	}
	pc->pcap = pcap_fopen_offline_with_tstamp_precision(
		f, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!pc->pcap) {
		/* libpcap leaves the stream to us when it fails. */
		int e = errno;

		rc = ferror(f) ? -EIO : VOFF_E_PCAP_FORMAT;
		snprintf(msg, sizeof(msg), "not a capture file (%s)", perr);
		/* A read error says why (a directory: EISDIR). */
		set_err(errbuf, errlen,
			rc == -EIO ? strerror(e ? e : EIO) : msg);
		goto err_pcap;
	}
	dlt = pcap_datalink(pc->pcap);
	if (start_of(dlt) < 0) {
		const char *name = pcap_datalink_val_to_name(dlt);

		snprintf(msg, sizeof(msg),
			 "link type %s (%d) is neither Ethernet nor raw IP",
			 name ? name : "unknown", dlt);
		set_err(errbuf, errlen, msg);
		rc = VOFF_E_PCAP_LINKTYPE;
		goto err_linktype;
	}
	pc->start = (enum voff_parse_start)start_of(dlt);
	*out = pc;
	return 0;

err_linktype:
	pcap_close(pc->pcap);	/* closes the stream too */
	free(pc);
	return rc;
err_pcap:
	fclose(f);
err_open:
	free(pc);
	return rc;
}

int voff_pcap_open_write(struct voff_pcap **out, const char *path,
			 enum voff_parse_start start)
{
	struct voff_pcap *pc;
	FILE *f;
	int dlt, rc;

	if (!out || !path ||
	    (start != VOFF_PARSE_ETH && start != VOFF_PARSE_IP))
		return -EINVAL;
	dlt = start == VOFF_PARSE_ETH ? DLT_EN10MB : DLT_RAW;
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->start = start;
	pc->pcap = pcap_open_dead_with_tstamp_precision(
		dlt, VOFF_PCAP_SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
	if (!pc->pcap) {
		rc = -ENOMEM;
		goto err_dead;
	}
	f = open_stream(path, true);
	if (!f) {
		rc = -errno;
		goto err_open;
	}
	pc->dumper = pcap_dump_fopen(pc->pcap, f);
	if (!pc->dumper) {
		rc = ferror(f) ? -EIO : -ENOMEM;
		goto err_dumper;
	}
	/* Write the file header now so an unwritable file fails here. */
	if (pcap_dump_flush(pc->dumper) != 0) {
		rc = errno ? -errno : -EIO;
		goto err_flush;
	}
	*out = pc;
	return 0;

err_flush:
	pcap_dump_close(pc->dumper);	/* closes the stream too */
	goto err_open;
err_dumper:
	fclose(f);
err_open:
	pcap_close(pc->pcap);
err_dead:
	free(pc);
	return rc;
}

enum voff_parse_start voff_pcap_start(const struct voff_pcap *pc)
{
	return pc->start;
}

int voff_pcap_read(struct voff_pcap *pc, struct voff_pkt *pkt)
{
	struct pcap_pkthdr *hdr;
	const u_char *data;
	int rc;

	if (!pc || !pkt || pc->dumper)
		return -EINVAL;
	voff_pkt_reset(pkt);
	pc->orig_len = 0;
	rc = pcap_next_ex(pc->pcap, &hdr, &data);
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	if (rc != 1) {
		/*
		 * A read error on the stream; the end of the file inside a
		 * record (libpcap's "truncated dump file"); or a damaged
		 * record, such as a length past any snap length.
		 */
		FILE *f = pcap_file(pc->pcap);

		if (f && ferror(f))
			return -EIO;
		return f && feof(f) ? VOFF_E_PCAP_TRUNC : VOFF_E_PCAP_FORMAT;
	}
	/* A damaged record may claim fewer bytes on the wire than it holds. */
	pc->orig_len = hdr->len > hdr->caplen ? hdr->len : hdr->caplen;
	rc = voff_pkt_set_data(pkt, data, hdr->caplen);
	if (rc) {
		voff_pkt_reset(pkt);
		return rc;
	}
	/* With nanosecond precision tv_usec holds nanoseconds. */
	pkt->rx_ns = (uint64_t)hdr->ts.tv_sec * NSEC_PER_SEC +
		     (uint64_t)hdr->ts.tv_usec;
	return hdr->caplen < hdr->len ? VOFF_E_PCAP_SNAP : 1;
}

/*
 * pcap_dump() reports nothing: a failed write shows as the stream's error
 * flag, with errno (cleared by the caller) from the write(2) that failed.
 * The first cause is kept: the flag stays, errno does not.
 */
static int write_errno(struct voff_pcap *pc)
{
	if (!ferror(pcap_dump_file(pc->dumper)))
		return 0;
	if (!pc->werr)
		pc->werr = errno ? -errno : -EIO;
	return pc->werr;
}

uint32_t voff_pcap_orig_len(const struct voff_pcap *pc)
{
	return pc && !pc->dumper ? pc->orig_len : 0;
}

/* One record: @caplen bytes of @data, @len on the wire, at @ns. */
static int dump(struct voff_pcap *pc, const void *data, uint32_t caplen,
		uint32_t len, uint64_t ns)
{
	struct pcap_pkthdr hdr;
	struct timespec now;

	if (!pc || !pc->dumper || (!data && caplen))
		return -EINVAL;
	if (!ns) {
		clock_gettime(CLOCK_REALTIME, &now);
		ns = (uint64_t)now.tv_sec * NSEC_PER_SEC +
		     (uint64_t)now.tv_nsec;
	}
	memset(&hdr, 0, sizeof(hdr));
	hdr.ts.tv_sec = (time_t)(ns / NSEC_PER_SEC);
	hdr.ts.tv_usec = (suseconds_t)(ns % NSEC_PER_SEC);
	hdr.len = len;
	hdr.caplen = caplen < VOFF_PCAP_SNAPLEN ? caplen : VOFF_PCAP_SNAPLEN;
	errno = 0;
	pcap_dump((u_char *)pc->dumper, &hdr, data);
	return write_errno(pc);
}

int voff_pcap_write_raw(struct voff_pcap *pc, const void *data,
			uint32_t len, uint64_t ns)
{
	return dump(pc, data, len, len, ns);
}

int voff_pcap_write_snapped(struct voff_pcap *pc, const struct voff_pkt *pkt,
			    uint32_t orig_len)
{
	if (!pkt || orig_len < pkt->len)
		return -EINVAL;
	return dump(pc, voff_pkt_data(pkt), pkt->len, orig_len, pkt->rx_ns);
}

int voff_pcap_write(struct voff_pcap *pc, const struct voff_pkt *pkt)
{
	if (!pkt)
		return -EINVAL;
	return voff_pcap_write_raw(pc, voff_pkt_data(pkt), pkt->len,
				   pkt->rx_ns);
}

int voff_pcap_close(struct voff_pcap *pc)
{
	int rc = 0;

	if (!pc)
		return 0;
	if (pc->dumper) {
		errno = 0;
		if (pcap_dump_flush(pc->dumper) != 0 && !pc->werr)
			pc->werr = errno ? -errno : -EIO;
		rc = write_errno(pc);
		pcap_dump_close(pc->dumper);
	}
	pcap_close(pc->pcap);
	free(pc);
	return rc;
}
