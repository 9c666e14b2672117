/* SPDX-License-Identifier: MIT */
/*
 * pcap.h - capture files (libpcap) for tests, tools and offline runs
 *
 * Reads and writes classic pcap files (and reads pcapng through libpcap)
 * with Ethernet (LINKTYPE_ETHERNET) or raw IP (LINKTYPE_RAW, and on read
 * also LINKTYPE_IPV4/IPV6) link types.  The snap length is large enough for
 * 64 KiB super-packets (VOFF_PCAP_SNAPLEN), so GSO and GRO runs can store
 * them whole.
 *
 * Context: one thread per handle.
 */
#ifndef VOFF_PCAP_H
#define VOFF_PCAP_H

#include <stdint.h>

#include <voff/parse.h>

#ifdef __cplusplus
extern "C" {
#endif

struct voff_pkt;
struct voff_pcap;

#define VOFF_PCAP_SNAPLEN 262144

/**
 * voff_pcap_open_read() - open a capture file for reading
 * @out:	receives the handle on success
 * @path:	file name ("-" for standard input)
 * @errbuf:	optional buffer (may be NULL) for the cause of a failure, as
 *		one sentence without the file name, which the caller knows:
 *		"No such file or directory", "not a capture file (unknown
 *		file format)", "link type LINUX_SLL (113) is neither
 *		Ethernet nor raw IP"
 * @errlen:	its size
 *
 * Return: 0, -EINVAL for a NULL @out or @path, -ENOMEM,
 * -ENOENT/-EACCES/-EIO when the file cannot be opened or read,
 * VOFF_E_PCAP_FORMAT when it is not a capture, VOFF_E_PCAP_LINKTYPE when its
 * link type is neither Ethernet nor raw IP.
 */
int voff_pcap_open_read(struct voff_pcap **out, const char *path,
			char *errbuf, size_t errlen);

/**
 * voff_pcap_open_write() - create a capture file
 * @out:	receives the handle on success
 * @path:	file name ("-" for standard output); truncated if it exists
 * @start:	VOFF_PARSE_ETH for Ethernet, VOFF_PARSE_IP for raw IP
 *
 * Return: 0, -EINVAL for a NULL @out or @path or a bad @start, or a
 * negative errno from creating or writing the file.
 */
int voff_pcap_open_write(struct voff_pcap **out, const char *path,
			 enum voff_parse_start start);

/**
 * voff_pcap_start() - how frames of this file begin
 * Return: VOFF_PARSE_ETH or VOFF_PARSE_IP.
 */
enum voff_parse_start voff_pcap_start(const struct voff_pcap *pc);

/**
 * voff_pcap_read() - read the next frame into @pkt
 * @pc:		a read handle
 * @pkt:	destination (borrowed); reset, then filled with the frame's
 *		bytes at the standard headroom; @rx_ns gets the capture time
 *
 * Return: 1 when a frame was read, 0 at end of file, VOFF_E_PCAP_SNAP when
 * the stored frame is shorter than its original length (it is still
 * returned in @pkt, as captured), VOFF_E_TOO_BIG when it does not fit in
 * @pkt (skipped, @pkt empty), VOFF_E_PCAP_TRUNC when the file ends inside
 * a frame or its record header (a capture cut short), VOFF_E_PCAP_FORMAT
 * on a damaged record, -EIO when the file cannot be read, -EINVAL for a
 * NULL argument or a handle opened for writing.  After the three errors
 * that end the file (VOFF_E_PCAP_TRUNC, VOFF_E_PCAP_FORMAT, -EIO) further
 * reads return 0 or the same error.
 * Ownership: borrows @pkt, which stays the caller's.
 */
int voff_pcap_read(struct voff_pcap *pc, struct voff_pkt *pkt);

/**
 * voff_pcap_orig_len() - the on-wire length of the frame last read
 * @pc:		a read handle
 *
 * The original length the capture recorded for the frame the last
 * voff_pcap_read() returned (1 or VOFF_E_PCAP_SNAP) or skipped
 * (VOFF_E_TOO_BIG): larger than the bytes stored when the capture cut the
 * frame with its snap length, else equal to them (also for a damaged record
 * that claims fewer bytes on the wire than it stores).
 *
 * Return: that length; 0 before the first frame, at the end of the file,
 * after an error, or for a write handle.
 */
uint32_t voff_pcap_orig_len(const struct voff_pcap *pc);

/**
 * voff_pcap_write() - append @pkt's data as one frame
 * @pc:		a write handle
 * @pkt:	the frame (borrowed); its @rx_ns is the timestamp (0 = now)
 *
 * Return: 0, the negative errno of a failed write (-ENOSPC, ...; -EIO
 * when the system gave none), or -EINVAL for a NULL argument or a read
 * handle.  Frames are buffered: a write error may surface on a later
 * frame or in voff_pcap_close() only.
 * Ownership: borrows @pkt.
 */
int voff_pcap_write(struct voff_pcap *pc, const struct voff_pkt *pkt);

/**
 * voff_pcap_write_snapped() - append a frame a capture cut short
 * @pc:		a write handle
 * @pkt:	the bytes captured (borrowed); its @rx_ns is the timestamp
 * @orig_len:	the frame's length on the wire, at least @pkt->len
 *
 * Stores @pkt's bytes with @orig_len as the original length, so a frame
 * voff_pcap_read() returned with VOFF_E_PCAP_SNAP passes on as the same
 * snapped frame (tcpdump and Wireshark show it cut: "[|tcp]").
 *
 * Return: as voff_pcap_write(); -EINVAL also when @orig_len is below
 * @pkt->len.
 * Ownership: borrows @pkt.
 */
int voff_pcap_write_snapped(struct voff_pcap *pc, const struct voff_pkt *pkt,
			    uint32_t orig_len);

/**
 * voff_pcap_write_raw() - append @len bytes as one frame at time @ns
 *
 * Frames longer than VOFF_PCAP_SNAPLEN are stored cut to it, with @len as
 * their original length.  @ns 0 means now (CLOCK_REALTIME).
 *
 * Return: 0, a negative errno as voff_pcap_write(), or -EINVAL for a
 * read handle or NULL @data with a non-zero @len.
 */
int voff_pcap_write_raw(struct voff_pcap *pc, const void *data,
			uint32_t len, uint64_t ns);

/**
 * voff_pcap_close() - flush and close; NULL is a no-op
 * Return: 0, or the negative errno (-EIO when the system gave none) of
 * buffered frames that could not be written.
 */
int voff_pcap_close(struct voff_pcap *pc);

#ifdef __cplusplus
}
#endif

#endif /* VOFF_PCAP_H */
