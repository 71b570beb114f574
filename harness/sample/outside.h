/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outside.h — a ballast OUTSIDE the sandbox: `[action NAME] at = W STEP,
 * leave = SIZE` (harness/plan/scenario.md).
 *
 * The sandbox's workloads are charged to its memory cgroup, and only there:
 * nothing they do can take a zone below its low watermark unless the machine
 * is already nearly full.  An outside ballast is the machine's other tenants:
 * the `hold` program started by the harness in its own cgroup (not the
 * sandbox's), holding MemFree minus SIZE (hold --leave), so that the sandbox's
 * next allocations wake kswapd and kswapd reclaims the sandbox's memory while
 * its own tasks reclaim it too — a second reclaimer on the same memcg from
 * outside it.  It can starve the machine: only a scenario that says
 * `destructive = yes` may have one (harness/plan/instantiate.c), which runs in
 * a pagelab guest or with --allow-destructive.
 *
 * The ballast is started at the action's step, before that step is acked.
 * The step's ack (and the start of any workload waiting for that step) waits
 * until the ballast has taken its memory, at most OUTSIDE_WAIT_MS, so the
 * next step runs on the machine as shaped; the sampling does not wait: the
 * ballast's event pipe is one more descriptor of the run's loop, and the
 * fill (the approach to the watermarks) is sampled at the asked cadence.  It
 * dies with the harness (PR_SET_PDEATHSIG) and is stopped when the run's
 * workloads are.
 */
#ifndef PAGELAB_OUTSIDE_H
#define PAGELAB_OUTSIDE_H

#include <sys/types.h>
#include <jansson.h>

#include "base/error.h"

#define OUTSIDE_WAIT_MS 120000

struct outside {
	pid_t pid;              /* 0: none */
	int fd;                 /* its event pipe while it fills; -1 after */
	unsigned long long t0_ms, deadline_ms;   /* CLOCK_MONOTONIC */
	size_t len;             /* bytes of a line not yet ended in buf */
	char buf[8192];
};

/* Start bindir/hold --leave leave outside the sandbox; o->fd (non-blocking)
 * then carries its events.  rec gets its pid and leave_bytes.  Returns 0, or
 * -errno (rec completed as an error: outside_done's fields). */
int outside_begin(const char *bindir, unsigned long long leave, struct outside *o, json_t *rec,
		  struct lab_error *err);

/* Read what the ballast wrote (o->fd ready, or a tick to look at the
 * deadline).  0: still filling; 1: it holds its memory, rec completed
 * (held_bytes, rollup, memfree_kb, wait_ms, result "ok"); -errno: it failed,
 * ended or passed OUTSIDE_WAIT_MS, rec completed (result "error", error) and
 * the ballast stopped.  o->fd is closed once the answer is not 0. */
int outside_poll(struct outside *o, json_t *rec, struct lab_error *err);

/* A run that ends while the ballast fills: rec completed as an error (why),
 * the ballast stopped. */
void outside_abandon(struct outside *o, json_t *rec, const char *why);

/* SIGTERM, wait up to 5 s, then SIGKILL; reaped. */
void outside_stop(struct outside *o);

#endif
