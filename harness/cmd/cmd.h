/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/cmd.h — the subcommands, one file each under harness/cmd/ (the table is
 * main.c's).  Each gets argv from its own name on, parses its options with
 * getopt_long in permuting mode (options and operands in any order, `--`
 * ends options), calls the libraries, prints, and returns an exit status of
 * exitcode.h.  Only this folder prints and returns exit statuses. */
#ifndef PAGELAB_CMD_H
#define PAGELAB_CMD_H

int cmd_run(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_fit(int argc, char **argv);

#endif
