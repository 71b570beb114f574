/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h — what the launch stage's files share (harness/launch/ only):
 * launch.c and command.c the clone into a cgroup and the trace marker,
 * lives.c and lives_cmd.c the command workloads' lives. */
#ifndef PAGELAB_LAUNCH_INTERNAL_H
#define PAGELAB_LAUNCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

struct launch_lives;

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* clone3(CLONE_INTO_CGROUP | CLONE_PIDFD) into the cgroup directory cgfd:
 * the child is born there (0 in the child, its pid in the parent, -1 with
 * errno: ENOSYS, EINVAL or E2BIG on a kernel without it). */
pid_t launch_clone_into(int cgfd, int *pidfd);

/* The run's trace_marker (launch_set_marker_fd), or -1. */
int launch_marker_fd(void);

/* What every child does first between fork and exec (async-signal-safe calls
 * only): dies with its parent (and _exit(127) if the parent, which must be
 * parent, is already gone), oom_score_adj 1000, then waits for one byte on
 * release_r (when >= 0: the parent has put it in its cgroup).  0, or the step
 * that failed. */
enum launch_child_step { LAUNCH_CHILD_OK, LAUNCH_CHILD_OOM_ADJ, LAUNCH_CHILD_RELEASE };
enum launch_child_step launch_child_prelude(pid_t parent, int release_r);

/* A line in the run's trace_marker from this very task, so that the tracer
 * learns which global pid is this namespace's getpid() (best effort). */
void launch_child_mark(void);

/* ---- command workloads' lives (lives_cmd.c, for lives.c) ------------------- */

/* Start command i (wl[i].cmd) in the sandbox; its record in wl[i].info. */
int cmd_life_start(struct launch_lives *l, size_t i, double started_ms, struct lab_error *err);

/* Its fate, when it is a command's own ("not_ready", a planned stop's
 * "completed" or "failed"); NULL: the built-ins' rules decide. */
const char *cmd_life_fate(const struct launch_lives *l, size_t i);

/* Its last output read, its descriptors closed, its record completed
 * (stdout, stderr, ready_ms, stop). */
void cmd_life_end(struct launch_lives *l, size_t i);

void cmd_life_free(struct launch_lives *l, size_t i);

/* ms since the run's t_ms 0, and CLOCK_MONOTONIC now. */
double lives_ms(const struct launch_lives *l);
uint64_t lives_now_ns(void);

#endif
