/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run/run.h — the one pipeline of a scenario run:
 *
 *   plan     the scenario read, --set applied, every variant instantiated and
 *            validated (bad input: nothing touched)           run/plan.c
 *   check    can this host run it (requirements, destructive, knobs, the
 *            host's resources, settings, --sandbox self's limit, the
 *            workload programs)                      run/check.c, resources.c
 *   begin    signals into the loop, the knob journal opened (a stale one
 *            restored first), stale sandboxes and tracing instances swept,
 *            the result document opened                         run/run.c
 *   variant  per run: the sandbox, its knobs, launch + sample, kmsg, and
 *            all of it taken down again                     run/variant.c
 *   finish   the result written atomically, every knob verified back
 *                                                              run/finish.c
 *
 * `pagelab run` (harness/cmd/run.c) calls it; the QEMU guest's /init runs the
 * same `pagelab run` (guest/vm-guest-init), a container runs `pagelab run
 * --sandbox self` (containers/run); `pagelab vm` plans with the same
 * functions before it boots anything (harness/vm/vm.c).  Nothing here prints
 * or returns an exit status: errors are -errno with a struct lab_error,
 * progress lines go to the caller's struct lab_progress, and how a run ended
 * is an enum run_end the command maps (harness/cmd/exitcode.h).
 */
#ifndef PAGELAB_RUN_H
#define PAGELAB_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "base/progress.h"
#include "plan/scenario.h"

#define RUN_MAX_SETS 64

/* The run options of harness/cmd/cli.md (parsed by harness/cmd/runopts.c). */
struct run_opts {
	const char *name;       /* NAME|FILE */
	const char *out;
	unsigned repeat;        /* 0 = the scenario's */
	unsigned interval_ms;   /* 250 unless given */
	unsigned timeout_s;
	bool interval_set, timeout_set;
	bool allow_destructive, verbose, no_report;
	bool allow_root_workload;       /* --allow-root-workload: a scenario's user = root may run */
	bool sandbox_self;      /* --sandbox self: pagelab's own cgroup is the sandbox */
	const char *trace;      /* --trace SET, NULL = the scenario's */
	bool trace_raw;
	int burst_ms;           /* --burst MS, -1 = the scenario's */
	size_t nr_sets;
	char *sets[RUN_MAX_SETS];
	FILE *status;           /* a terminal for the sampler's live status line (the command's), or NULL */
};

/* A scenario, its overrides applied, and its variants. */
struct run_plan {
	struct scenario s;
	bool parsed;
	char path[PATH_MAX];    /* the file read (harness/plan/catalog.h) */
	struct run_spec *specs;
	size_t nv;              /* variants instantiated so far (run_plan_free frees these) */
	unsigned repeat;
};

/* Read NAME|FILE and apply the --set overrides, sizes bounded by
 * machine_bytes (0: unbounded) described as machine_what.  0, or -errno with
 * err (every error is the input's: -EINVAL, -ENOENT, -EPERM from the trust
 * check, -EFBIG ...; -ENOMEM).  run_plan_free in both cases. */
int run_plan_load(const char *name, char *const *sets, size_t nr_sets, unsigned repeat,
		  unsigned long long machine_bytes, const char *machine_what, struct run_plan *p,
		  struct lab_error *err);

/* This host's MemTotal + SwapTotal, the bound of a scenario's sizes here. */
#define RUN_MACHINE_WHAT "this machine's MemTotal + SwapTotal"
unsigned long long run_machine_bytes(void);

/* MemTotal in bytes (0 when unreadable). */
unsigned long long run_memtotal_bytes(void);

/* Instantiate the first n variants (0 = all) against memtotal bytes (0 = no
 * check against MemTotal).  0, or -EINVAL (-ENOMEM) with err naming file,
 * line, column and field. */
int run_plan_instantiate(struct run_plan *p, size_t n, unsigned long long memtotal, struct lab_error *err);
size_t run_plan_variants(const struct run_plan *p);
void run_plan_free(struct run_plan *p);

/* The run options that change a variant (--trace, --trace-raw, --burst)
 * applied over the scenario's [trace]. */
void run_plan_apply_opts(struct run_plan *p, const struct run_opts *o);

/* How a run ended, for the command to map to an exit status
 * (harness/cmd/exitcode.h). */
enum run_end {
	RUN_ENDED,              /* every run ran, whatever the workloads' fate */
	RUN_INTERRUPTED,        /* a signal stopped it; the result is written */
	RUN_REFUSED_INPUT,      /* refused before anything changed: the scenario, an option, a path */
	RUN_REFUSED_HOST,       /* refused before anything changed: this host cannot run it */
	RUN_FAILED,             /* the harness failed; the message says where */
};

struct run_outcome {
	enum run_end end;
	char result[PATH_MAX];  /* the result document, when it was written ("" otherwise) */
	bool summary;           /* every run ran: the document's report is worth printing */
};

/* check -> begin -> variant x repeat -> finish, for a loaded and instantiated
 * plan; progress lines (one per phase, warnings) go to prog.  Returns 0 when
 * out->end is RUN_ENDED or RUN_INTERRUPTED; otherwise -errno with err the
 * failure that decided the end (a refusal before anything changed, or a
 * failure after which the runs were taken down, the knobs put back and the
 * result still written where it could be: out->result).  Later failures are
 * said through prog as they happen. */
int run_execute(const struct run_opts *o, struct run_plan *p, const struct lab_progress *prog,
		struct run_outcome *out, struct lab_error *err);

#endif
