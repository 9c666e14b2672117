/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands of the voff command, one file each, dispatched
 * from the table in main.c.  Each returns the process exit status.
 */
#ifndef VOFF_CMD_H
#define VOFF_CMD_H

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
struct voff_switch_ctl_cmd;
extern const struct voff_switch_ctl_cmd switch_ctl_cmds[];
extern const unsigned int switch_ctl_ncmds;

/* Where `voff switch` listens and `voff ctl` connects by default. */
#define VOFF_CTL_DEFAULT "/run/voff/voff.ctl"

#endif /* VOFF_CMD_H */
