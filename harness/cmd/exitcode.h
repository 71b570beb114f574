/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exitcode.h — pagelab's exit statuses, one list for every subcommand
 * (harness/cmd/cli.md's table).  `audit --advice` adds its own 4 (findings). */
#ifndef PAGELAB_EXITCODE_H
#define PAGELAB_EXITCODE_H

enum lab_exit {
	LAB_EXIT_RAN = 0,               /* ran: whatever the workload's fate (an OOM kill is data) */
	LAB_EXIT_HARNESS = 1,           /* the harness failed; the message says where */
	LAB_EXIT_USAGE = 2,             /* bad usage or input: nothing on the host was changed */
	LAB_EXIT_CANNOT = 3,            /* this host cannot run it: the message names what is missing */
	LAB_EXIT_INTERRUPTED = 130,     /* SIGINT/SIGTERM/SIGHUP; the result is still written */
};

#endif
