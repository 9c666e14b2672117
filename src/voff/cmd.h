/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands of the voff command, one file each, dispatched
 * from the table in main.c.  Each returns the process exit status, one
 * of the three below for every subcommand (voff(1), EXIT STATUS).
 */
#ifndef VOFF_CMD_H
#define VOFF_CMD_H

struct voff_switch_ctl_cmd;

/* Exit statuses: done; a runtime failure (a file, a frame, the switch); a
 * usage error (unknown option, bad value, missing argument). */
#define VOFF_EXIT_OK 0
#define VOFF_EXIT_FAIL 1
#define VOFF_EXIT_USAGE 2

int inspect_main(int argc, char **argv);
int features_main(int argc, char **argv);
int gso_main(int argc, char **argv);
int gro_main(int argc, char **argv);
int switch_main(int argc, char **argv);
int ctl_main(int argc, char **argv);

/*
 * The commands `voff switch` adds to the control language (reload,
 * monitor), for the help of `voff ctl` too.
 */
extern const struct voff_switch_ctl_cmd *const switch_ctl_cmds;
extern const unsigned int switch_ctl_ncmds;

/* Where `voff switch` listens and `voff ctl` connects by default. */
#define VOFF_CTL_DEFAULT "/run/voff/voff.ctl"

#endif /* VOFF_CMD_H */
