/* SPDX-License-Identifier: MIT */
/*
 * capture.c - capture files in the subcommands: opening with the cause of
 * a failure, and one wording for the errors of a file and of its frames
 * (capture.h)
 */
#include <stdio.h>
#include <string.h>

#include <voff/voff.h>

#include "capture.h"

const char *cap_name(const char *path, int output)
{
	if (strcmp(path, "-"))
		return path;
	return output ? "standard output" : "standard input";
}

int cap_open_read(struct voff_pcap **pc, const char *cmd, const char *path)
{
	char why[512] = "";
	int err = voff_pcap_open_read(pc, path, why, sizeof(why));

	if (err)
		fprintf(stderr, "%s: %s: %s\n", cmd, cap_name(path, 0),
			why[0] ? why : voff_strerror(err));
	return err;
}

/* The cause, in words that fit after "frame N: ". */
static const char *cause(int err)
{
	switch (err) {
	case VOFF_E_PCAP_TRUNC:
		return "the file ends inside this frame (truncated capture)";
	case VOFF_E_PCAP_FORMAT:
		return "damaged frame record (malformed capture file)";
	default:
		return voff_strerror(err);
	}
}

int cap_error(const char *cmd, const char *path, int output,
	      unsigned long frame, int err, const char *what)
{
	char at[32] = "";

	if (frame)
		snprintf(at, sizeof(at), "frame %lu: ", frame);
	fprintf(stderr, "%s: %s: %s%s%s%s%s\n", cmd, cap_name(path, output), at,
		cause(err), what ? " (" : "", what ? what : "",
		what ? ")" : "");
	return -1;
}

void cap_snapped(struct cap_snaps *s, unsigned long index, unsigned int len,
		 unsigned int wire)
{
	if (!s->n++) {
		s->first = index;
		s->len = len;
		s->wire = wire;
	}
}

void cap_snaps_note(const struct cap_snaps *s, const char *cmd,
		    const char *path, const char *what)
{
	if (!s->n)
		return;
	fprintf(stderr, "%s: %s: frame %lu: cut by the snap length, %u of %u "
			"bytes (%s; %lu such frame%s)\n", cmd,
		cap_name(path, 0), s->first, s->len, s->wire, what, s->n,
		s->n == 1 ? "" : "s");
}
