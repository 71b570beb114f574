/* SPDX-License-Identifier: GPL-2.0-or-later */
/* events.h — the one tiny event-reporting helper every workload shares.
 *
 * A workload reports its progress as JSON Lines (workloads/events.md): one
 * line per event, built with snprintf into a fixed buffer no longer than
 * PIPE_BUF and written with a single write(2), so lines from several
 * workloads sharing a pipe never interleave (pipe(7): writes of at most
 * PIPE_BUF bytes are atomic).  After each `step` event the workload blocks on
 * the ack fd, if it has one, until the harness has sampled the sandbox.
 *
 * No JSON library here: workloads must stay tiny and link statically.
 */
#ifndef PAGELAB_EVENTS_H
#define PAGELAB_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* PIPE_BUF on Linux (include/uapi/linux/limits.h); the newline included. */
#define EVENTS_LINE_MAX 4096

struct events {
	int event_fd;                   /* --event-fd, default stdout */
	int ack_fd;                     /* --ack-fd, -1: do not wait */
	unsigned long long seq;         /* steps emitted so far */
	const char *program;
};

/* A line being built.  Appending never fails: a line that does not fit is
 * marked and refused when emitted, so callers check once, at the end. */
struct ev_line {
	size_t len;
	bool overflow;
	char buf[EVENTS_LINE_MAX];
};

/* event_fd = stdout, ack_fd = -1, seq = 0.  Also ignores SIGPIPE, so a
 * harness that went away gives the workload EPIPE instead of killing it. */
void events_init(struct events *ev, const char *program);

/* Options.  A workload's command line is driven by its declaration
 * (workloads/decl.h: wl_parse_argv), with events_argv_pre() for the options
 * every workload shares; events_opt() reads one option by name ("--size" →
 * its value, in the form "--size V" or "--size=V").
 *
 * events_opt: 1 when argv[*i] is the option name (its value in *val, *i
 * advanced past it), 0 when it is not, -EINVAL when the value is missing. */
int events_opt(int argc, char **argv, int *i, const char *name, const char **val,
	       struct lab_error *err);

/* --event-fd N / --ack-fd N: 1 when argv[*i] was one of them (consumed),
 * 0 when not, -EINVAL when the value is not a number or not an open fd. */
int events_parse_arg(struct events *ev, int argc, char **argv, int *i,
		     struct lab_error *err);

/* --oom-score-adj N (-1000..1000): 1 when argv[*i] was it (consumed, *adj
 * set), 0 when not, -EINVAL on a bad value.  The harness starts every
 * workload at 1000 (the victim of choice); a workload that stands for a
 * bystander lowers it (root: CAP_SYS_RESOURCE). */
int events_opt_oom_adj(int argc, char **argv, int *i, long *adj, struct lab_error *err);

/* wl_parse_argv's pre for a workload (struct wl_argv's pre_ctx: a struct
 * events_args): --event-fd and --ack-fd, and with adj set --oom-score-adj N
 * as well (*adj and *adj_given set).  1 taken, 0 not, -EINVAL. */
struct events_args {
	struct events *ev;
	long *adj;              /* NULL: --oom-score-adj is not taken here */
	bool *adj_given;
};
int events_argv_pre(void *args, int argc, char **argv, int *i, struct lab_error *err);

/* Write adj to /proc/self/oom_score_adj. */
int events_set_oom_adj(long adj, struct lab_error *err);

/* Line builders.  A NULL key appends a bare value (inside an array). */
void ev_u64(struct ev_line *l, const char *key, unsigned long long v);
void ev_bool(struct ev_line *l, const char *key, bool v);
void ev_str(struct ev_line *l, const char *key, const char *s);   /* JSON-escaped */
void ev_obj_begin(struct ev_line *l, const char *key);
void ev_obj_end(struct ev_line *l);
void ev_arr_begin(struct ev_line *l, const char *key);
void ev_arr_end(struct ev_line *l);

/* Append the process-wide counters every workload reports:
 *   "rollup":{"rss_kb","lazyfree_kb","anonhuge_kb"}   /proc/self/smaps_rollup
 *   "vmrss_kb"                                        /proc/self/status VmRSS
 * Returns 0 or -errno with err filled. */
int events_add_self(struct ev_line *l, struct lab_error *err);

/* CLOCK_MONOTONIC in nanoseconds. */
unsigned long long events_now_ns(void);

/* {"event":"start","program":P,"pid":N,"page_size":N,"t_ns":T ... — the caller
 * appends its facts, then events_emit(). */
void events_start_begin(struct events *ev, struct ev_line *l);

/* {"event":"step","seq":N,"step":S,"arg":A,"t_ns":T ... — seq is counted here;
 * arg may be NULL (emitted as "").  The caller appends counters, then
 * events_step_end() writes the line and waits for the ack byte. */
void events_step_begin(struct events *ev, struct ev_line *l, const char *step, const char *arg);
int events_step_end(struct events *ev, struct ev_line *l, struct lab_error *err);

/* Close the object, append '\n', write it in one write(2). */
int events_emit(struct events *ev, struct ev_line *l, struct lab_error *err);

/* {"event":EVENT ... — the caller appends its keys, then events_emit(). */
void events_line_begin(struct ev_line *l, const char *event);

/* {"event":"done","seq":N} */
int events_done(struct events *ev, struct lab_error *err);

/* {"event":"error","step":S,"msg":M} — best effort: the workload is failing
 * already, so a failure to report is ignored. */
void events_error(struct events *ev, const char *step, const char *msg);

#endif
