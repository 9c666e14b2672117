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

/**
 * struct cap_snaps - frames a capture's snap length cut, for one note
 * @n:		how many
 * @first:	index of the first one
 * @len:	its captured bytes
 * @wire:	its bytes on the wire
 */
struct cap_snaps {
	unsigned long n, first;
	unsigned int len, wire;
};

/** cap_snapped() - count frame @index, @len of @wire bytes, in @s */
void cap_snapped(struct cap_snaps *s, unsigned long index, unsigned int len,
		 unsigned int wire);

/**
 * cap_snaps_note() - one line for all the snapped frames of @path, if any:
 * "voff gso: in.pcap: frame 2: cut by the snap length, 60 of 130 bytes
 * (copied unchanged; 3 such frames)"
 * @what:	what was done with them ("copied unchanged")
 */
void cap_snaps_note(const struct cap_snaps *s, const char *cmd,
		    const char *path, const char *what);

#endif /* VOFF_CMD_CAPTURE_H */
