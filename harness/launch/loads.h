/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loads.h — a load client's life (harness/plan/scenario.md, [load NAME]):
 * started as the run's user in the run's network namespace and directory,
 * in its own cgroup beside the sandbox (or in the sandbox), bounded by its
 * tool's own flags (launch/metrics.h checks them before the run) and by a
 * hard timeout after which everything of it is SIGKILLed; its output kept
 * (1 MiB + 64 KiB of each stream for its metrics table, 16 KiB + 16 KiB in
 * the result) and read by its metrics table when it ends. */
#ifndef PAGELAB_LAUNCH_LOADS_H
#define PAGELAB_LAUNCH_LOADS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "base/error.h"
#include "capture.h"
#include "command.h"
#include "lives.h"
#include "metrics.h"
#include "sandbox/sandbox.h"

struct launch_load {
	const char *name;               /* borrowed: the plan's */
	char *const *argv;              /* its words, ${dir} as LAUNCH_DIR_MARK */
	int argc;
	const struct cmd_exec *exec;
	unsigned timeout_ms;
	const struct metrics_table *metrics;    /* NULL: none */
	struct sandbox *cg;             /* where it runs */
	bool in_sandbox;                /* cg is the workloads' sandbox */
	/* its life */
	struct cmd_proc proc;
	struct capture out, err;
	char path[PATH_MAX];
	char **run_argv, **run_env;
	bool started, exited, timed_out;
	int wstatus;
	uint64_t started_ns, deadline_ns, ended_ns;
};

/* Start it (f: the run's directory, namespace and user). */
int load_start(struct launch_load *l, const struct launch_foreign *f, struct lab_error *err);

/* Read stream 1 (stdout) or 2 (stderr). */
void load_output(struct launch_load *l, int stream);

/* Reaped when its pidfd said it ended: true once it has. */
bool load_reap(struct launch_load *l);

/* Past its timeout (now, CLOCK_MONOTONIC ns)? */
bool load_overdue(const struct launch_load *l, uint64_t now);

/* Everything of it SIGKILLed (its cgroup; in the sandbox its process
 * group), and reaped.  timeout: why (its timeout, or the run's end). */
void load_kill(struct launch_load *l, bool timeout);

/* After it ended: what it left (its own cgroup's processes, its process
 * group) killed, its last output read. */
void load_finish(struct launch_load *l);

/* Its record (runs[].loads[i]; harness/result/result.md): argv, user,
 * cgroup, pid, started_ms, ended_ms, duration_ms, code, signal, timed_out,
 * outcome, stdout, stderr, metrics_table, metrics, valid, invalid.
 * target_ok: the workload it drove was alive at its end. */
json_t *load_record(const struct launch_load *l, uint64_t t0_ns, bool target_ok, const char *target);

void load_free(struct launch_load *l);

#endif
