/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run/run.h — the one pipeline of a scenario run:
 *
 *   plan     the scenario read, --set applied, every variant instantiated and
 *            validated (bad input: exit 2, nothing touched)
 *   check    can this host run it (requirements, destructive, knobs, --sandbox
 *            self's limit, the workload programs): exit 3 with the reason
 *   knobs    the journal opened (a stale one restored first)
 *   sandbox  per run: a memory cgroup below pagelab's own (or pagelab's own)
 *   launch + sample   sampler_run: the workloads in the sandbox, one event loop
 *   result   streamed while running, written atomically at the end
 *
 * `pagelab run` calls run_main; the QEMU guest's /init runs the same `pagelab
 * run` (guest/vm-guest-init), a container runs `pagelab run --sandbox self`
 * (containers/run); `pagelab vm` parses its run options and plans with the
 * same functions before it boots anything (harness/vm/vm.c).  Exit statuses are
 * harness/cmd/exitcode.h's.
 */
#ifndef PAGELAB_RUN_H
#define PAGELAB_RUN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "plan/scenario.h"

#define RUN_MAX_SETS 64

/* The run options of harness/cmd/cli.md, parsed in one place. */
struct run_opts {
	const char *name;       /* NAME|FILE */
	const char *out;
	unsigned repeat;        /* 0 = the scenario's */
	unsigned interval_ms;   /* 0 when not given (run_opts_parse sets 250 for `run`) */
	unsigned timeout_s;
	bool interval_set, timeout_set;
	bool allow_destructive, verbose, no_report;
	bool sandbox_self;      /* --sandbox self: pagelab's own cgroup is the sandbox */
	const char *trace;      /* --trace SET, NULL = the scenario's */
	bool trace_raw;
	int burst_ms;           /* --burst MS, -1 = the scenario's */
	size_t nr_sets;
	char *sets[RUN_MAX_SETS];
};

enum run_opts_for {
	RUN_OPTS_RUN,           /* `pagelab run` */
	RUN_OPTS_VM,            /* `pagelab vm ... run`: no --out (one result per target), no --sandbox */
};

/* argv[0] is "run".  0, or an exit status after printing one line (--help
 * prints the usage and exits 0). */
int run_opts_parse(int argc, char **argv, enum run_opts_for what, struct run_opts *o);

/* The options in a canonical form for another pagelab (a guest's, the host's
 * under `vm --host`): appends at most 2 * RUN_MAX_SETS + 9 pointers to argv,
 * numbers kept in buf.  Returns how many. */
struct run_opts_argv {
	char *argv[2 * RUN_MAX_SETS + 12];
	int argc;
	char buf[4][32];
};
void run_opts_forward(const struct run_opts *o, struct run_opts_argv *out);

/* A scenario, its overrides applied, and its variants. */
struct run_plan {
	struct scenario s;
	bool parsed;
	char path[PATH_MAX];
	struct run_spec *specs;
	size_t nv;              /* variants instantiated so far (run_plan_free frees these) */
	unsigned repeat;
};

/* Read NAME|FILE and apply the --set overrides, sizes bounded by
 * machine_bytes (0: unbounded) described as machine_what.  0, or EXIT_USAGE
 * after printing.  run_plan_free in both cases. */
int run_plan_load(const char *name, char *const *sets, size_t nr_sets, unsigned repeat,
		  unsigned long long machine_bytes, const char *machine_what, struct run_plan *p);

/* This host's MemTotal + SwapTotal, the bound of a scenario's sizes here. */
#define RUN_MACHINE_WHAT "this machine's MemTotal + SwapTotal"
unsigned long long run_machine_bytes(void);

/* Instantiate the first n variants (0 = all) against memtotal bytes (0 = no
 * check against MemTotal).  0, or EXIT_USAGE after printing the error with
 * hint appended. */
int run_plan_instantiate(struct run_plan *p, size_t n, unsigned long long memtotal, const char *hint);
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

/* check → knobs → sandbox → launch → sample → result, for a loaded and
 * instantiated plan.  Returns the exit status. */
int run_execute(const struct run_opts *o, struct run_plan *p);

/* `pagelab run ...` and `pagelab show NAME|FILE` (argv[0] is the command). */
int run_main(int argc, char **argv);
int run_show_main(int argc, char **argv);

/* MemTotal in bytes (0 when unreadable). */
unsigned long long run_memtotal_bytes(void);

#endif
