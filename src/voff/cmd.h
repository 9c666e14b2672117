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

#endif /* VOFF_CMD_H */
