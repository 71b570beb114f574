/* SPDX-License-Identifier: GPL-2.0-or-later */
/* launch.h — start a workload program INSIDE the sandbox.
 *
 * The child never runs a line of the workload outside the sandbox: on cgroup
 * v2 it is born there (clone3 with CLONE_INTO_CGROUP); on v1 it is forked
 * blocked on a pipe, attached by the harness, and only then released to exec.
 * Before exec it sets oom_score_adj 1000 (so an OOM kill picks it, never the
 * harness) and PR_SET_PDEATHSIG (so a SIGKILLed harness leaves no workload
 * running).  Its event pipe is fd 3 and its ack pipe fd 4.
 */
#ifndef PAGELAB_LAUNCH_H
#define PAGELAB_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"
#include "sandbox/sandbox.h"

struct workload_proc {
	pid_t pid;
	int pidfd;              /* -1 when reaped */
	int event_fd;           /* read end of the workload's event pipe, O_NONBLOCK */
	int ack_fd;             /* write end of its ack pipe */
	char *buf;              /* partial event line */
	size_t len, cap;
	bool started, exited;
	int wstatus;            /* waitid's si_code/si_status folded as a wait status */
};

/* Start argv[0] (a program name looked up in bindir) with argv's arguments
 * followed by "--event-fd 3 --ack-fd 4". */
int launch_workload(char *const argv[], const char *bindir, struct sandbox *sb,
		    struct workload_proc *out, struct lab_error *err);

/* Reap it (after its pidfd became readable).  Returns 0 once reaped,
 * -EAGAIN when still running. */
int launch_reap(struct workload_proc *wp, struct lab_error *err);

/* A run with foreign programs makes pagelab their subreaper
 * (PR_SET_CHILD_SUBREAPER): a process whose parent died — a service's
 * child after the service was killed, a daemon's double fork — becomes
 * pagelab's child instead of init's, so the run can wait for it.  These
 * reap such orphans: those that have exited and are not in keep (the
 * workloads and loads not yet reaped, whose pidfds say when), from
 * /proc/self/task/TID/children; and, once every process of a run is gone,
 * every child left.  Neither blocks. */
void launch_reap_orphans(const pid_t *keep, size_t n);
void launch_reap_all(void);

/* Close every fd the harness holds for it. */
void launch_release(struct workload_proc *wp);

/* The directory holding the workload programs: $PAGELAB_WORKLOADS, else
 * <dir of /proc/self/exe>/workloads. */
int launch_bindir(char *buf, size_t len, struct lab_error *err);

/* The run's trace_marker (O_CLOEXEC), or -1: each workload writes
 * "pagelab child PID" there before its exec, so the tracer can map the
 * kernel's global pids to this pid namespace's (harness/sample/trace/trace.c). */
void launch_set_marker_fd(int fd);

#endif
