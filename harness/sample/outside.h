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
 * The ballast is started at the action's step, before that step is acked,
 * and the harness waits (at most OUTSIDE_WAIT_MS) until it has taken its
 * memory, so the next step runs on the machine as shaped.  It dies with the
 * harness (PR_SET_PDEATHSIG) and is stopped when the run's workloads are.
 */
#ifndef PAGELAB_OUTSIDE_H
#define PAGELAB_OUTSIDE_H

#include <sys/types.h>
#include <jansson.h>

#include "base/error.h"

#define OUTSIDE_WAIT_MS 120000

struct outside {
	pid_t pid;              /* 0: none */
};

/* Start bindir/hold --leave leave outside the sandbox and wait for its
 * `hold` step; *rec gets the action's record (held_bytes, memfree_kb,
 * wait_ms, pid; result "ok" or "error" with the error).  Returns 0, or
 * -errno (the record says why too). */
int outside_hold(const char *bindir, unsigned long long leave, struct outside *o, json_t *rec,
		 struct lab_error *err);

/* SIGTERM, wait up to 5 s, then SIGKILL; reaped. */
void outside_stop(struct outside *o);

#endif
