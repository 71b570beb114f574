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

/* The exit status for a library's negative return (-errno, with its
 * lab_error filled), for the commands that have no finer rule of their own:
 *   input the user can fix (a bad value, a missing or unreadable file, a path
 *   refused as untrusted or unsafe, something too large)  -> 2
 *   this host lacks what is needed (not supported, no device, no access)  -> 3
 *   interrupted by a signal                                             -> 130
 *   anything else: the harness failed                                 -> 1
 * 0 and positive values are 0 (ran). */
#include <errno.h>

static inline int lab_exit_status(int ret)
{
	if (ret >= 0)
		return LAB_EXIT_RAN;
	switch (-ret) {
	case EINVAL: case ENOENT: case ENOTDIR: case EISDIR: case ELOOP: case EEXIST:
	case E2BIG: case EFBIG: case ERANGE: case EPERM: case ENAMETOOLONG: case EMLINK:
		return LAB_EXIT_USAGE;
	case ENOTSUP: case ENODEV: case ENOSYS: case EACCES: case ENXIO:
		return LAB_EXIT_CANNOT;
	case EINTR:
		return LAB_EXIT_INTERRUPTED;
	default:
		return LAB_EXIT_HARNESS;
	}
}

#endif
