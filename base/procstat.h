/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procstat.h — pure parser of one /proc/PID/stat line (proc(5); the kernel
 * writes it in fs/proc/array.c, do_task_stat).
 *
 * The line is "PID (COMM) STATE PPID ..." and COMM is whatever the process
 * named itself (prctl PR_SET_NAME, or its program's name): any byte but NUL,
 * blanks, parentheses and newlines included, printed without escaping.  So
 * COMM runs from the first '(' to the LAST ')' of the line: every field after
 * it is a number, none holds a ')'.  Fields after COMM are separated by one
 * blank each; only the ones pagelab reads are kept:
 *   3 state, 4 ppid, 9 flags (the task's PF_* bits), 31 signal (the
 *   thread's own pending signals, task->pending, masked to 31 bits: a
 *   fatal signal is queued to every thread, kernel/signal.c complete_signal).
 * A line that ends before field 31 (a kernel older than 2.6) parses with
 * has_signal false.
 */
#ifndef PAGELAB_PROCSTAT_H
#define PAGELAB_PROCSTAT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define LAB_PROCSTAT_COMM_MAX 64        /* a kernel thread's name can be 63 bytes */

struct lab_procstat {
	long pid;
	char comm[LAB_PROCSTAT_COMM_MAX];   /* raw bytes, cut to 63; not printable as is */
	size_t comm_len;                    /* the name's length as printed, before the cut */
	char state;                         /* R S D T t Z X I P ... */
	long ppid;                          /* 0 for the init process and kernel threads' parent */
	unsigned long long flags;
	unsigned long long signal;
	bool has_signal;
};

/* Parses len bytes of text (one line; what follows its newline is ignored).
 * Returns 0, or -EINVAL with err saying which field; out is all zeros then. */
int lab_procstat_parse(const char *text, size_t len, struct lab_procstat *out, struct lab_error *err);

/* On its way out: a zombie or dead (Z, X, x), PF_EXITING set, or SIGKILL
 * pending.  A page walk that starts now would hold its memory past its exit
 * (docs/findings/observer.md). */
bool lab_procstat_dying(const struct lab_procstat *ps);

#endif
