/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.h — how a library says what it is doing without printing.
 *
 * Libraries never print (only harness/cmd/ does).  A long stage (a run, a
 * guest boot) still owes its user one line per phase and the warnings it
 * met; it hands them to the caller's sink.  A command passes a sink that
 * writes "pagelab: LINE" to stderr; a test passes one that keeps the lines;
 * NULL (or a NULL fn) drops them. */
#ifndef PAGELAB_PROGRESS_H
#define PAGELAB_PROGRESS_H

enum lab_say {
	LAB_SAY_PHASE,          /* one line per phase of a long job */
	LAB_SAY_DETAIL,         /* more (a workload's step: -v) */
	LAB_SAY_WARN,           /* something the user should know; the job goes on */
};

struct lab_progress {
	void (*fn)(void *ctx, enum lab_say kind, const char *line);
	void *ctx;
};

/* Format one line (no trailing newline) and hand it to p; p may be NULL. */
void lab_say(const struct lab_progress *p, enum lab_say kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
