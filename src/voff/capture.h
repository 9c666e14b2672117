/* SPDX-License-Identifier: MIT */
/*
 * capture.h - how the subcommands that read and write capture files
 * (inspect, gso, gro) open them and word their errors
 *
 * One line per error, naming the subcommand, the file, the frame when
 * there is one, and the cause:
 *
 *	voff gso: notpcap.txt: not a capture file (unknown file format)
 *	voff gro: trunc.pcap: frame 3: the file ends inside this frame
 *	voff gro: out.pcap: frame 12: No space left on device
 *
 * Frames count from 1, as in tcpdump and Wireshark, in the file named.
 */
#ifndef VOFF_CMD_CAPTURE_H
#define VOFF_CMD_CAPTURE_H

struct voff_pcap;

/** cap_name() - @path as messages name it ("-": standard input/output) */
const char *cap_name(const char *path, int output);

/**
 * cap_open_read() - voff_pcap_open_read(), the failure reported
 * @pc:		receives the handle
 * @cmd:	the subcommand ("voff gso")
 * @path:	the file ("-" for standard input)
 *
 * Return: 0 or the library's error (reported).
 */
int cap_open_read(struct voff_pcap **pc, const char *cmd, const char *path);

/**
 * cap_error() - report an error on frame @frame of @path
 * @cmd:	the subcommand
 * @path:	the file
 * @output:	whether @path is the output (for the name of "-")
 * @frame:	1-based frame index in @path, 0 for the file as a whole
 * @err:	a voff_pcap_*() error, a negative errno or VOFF_E_* code
 * @what:	optional words after the cause ("copied unchanged"), or NULL
 *
 * Return: -1, for `return cap_error(...)`.
 */
int cap_error(const char *cmd, const char *path, int output,
	      unsigned long frame, int err, const char *what);

#endif /* VOFF_CMD_CAPTURE_H */
