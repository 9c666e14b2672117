/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - output files that appear whole or not at all
 *
 * `voff gso IN OUT` and `voff gro IN OUT` never write OUT in place: they
 * write a temporary file beside it and rename it over OUT only once every
 * frame is written, so a failure (a damaged input, a full disk) leaves no
 * half-written OUT and an old OUT intact.  OUT is refused when it is IN
 * under any name (same device and inode: a symbolic or hard link too),
 * so IN can never be destroyed.
 *
 * Written directly, with nothing to roll back: "-" (standard output) and
 * an existing OUT that is not a regular file (/dev/null, a FIFO).  A
 * symbolic link OUT keeps being a link: its target is replaced.
 */
#ifndef VOFF_CMD_OUTFILE_H
#define VOFF_CMD_OUTFILE_H

#include <limits.h>
#include <stdbool.h>

/**
 * struct outfile - one output file being written
 * @path:	the name the user gave
 * @target:	what is replaced at the end (@path, or a link's target)
 * @write:	where to write: the temporary file, or @path when direct
 * @tmp:	the temporary file's name (empty when written directly)
 */
struct outfile {
	const char *path;
	char target[PATH_MAX];
	const char *write;
	char tmp[PATH_MAX];
};

/**
 * outfile_begin() - check @out against @in and set up where to write
 * @o:		filled in
 * @cmd:	the subcommand, for messages ("voff gso")
 * @in:		the input file ("-" for standard input), NULL when the
 *		output is made from no file (`voff ctl save FILE`)
 * @out:	the output file ("-" for standard output)
 *
 * Prints one line on failure ("voff gso: o.pcap: is the input in.pcap").
 * Return: 0, or -1 with nothing created.
 */
int outfile_begin(struct outfile *o, const char *cmd, const char *in,
		  const char *out);

/**
 * outfile_end() - put the written file in place, or take it away
 * @o:		from outfile_begin()
 * @cmd:	the subcommand, for messages
 * @ok:		whether every frame was written (rename), or not (remove)
 *
 * Return: 0 when the output is in place; -1 when @ok was false, or the
 * rename failed (said; the temporary file is removed either way).
 */
int outfile_end(struct outfile *o, const char *cmd, bool ok);

#endif /* VOFF_CMD_OUTFILE_H */
