/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sampler.h — one run of one variant: launch its workloads in the sandbox and
 * sample the kernel's counters from ONE event loop (epoll over a timerfd, the
 * workloads' event pipes and pidfds, and the harness's signalfd) until the
 * scenario's main (last-listed) workload ends.  Every workload step forces a
 * sample while the workload waits for its ack, so step tables are exact.
 * What a sample holds is the table of sources (sources/source.h): the tick
 * reads the O(1) ones; steps, the start, the end and a walk tick every
 * spec->walk_interval_ms read the page walks too. */
#ifndef PAGELAB_SAMPLER_H
#define PAGELAB_SAMPLER_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"
#include "launch/lives.h"
#include "launch/metrics.h"
#include "result/result.h"
#include "sandbox/sandbox.h"
#include "plan/scenario.h"
#include "sample/trace/trace.h"

/* What a run's foreign programs (command workloads, loads) share, made by
 * the run stage (harness/run/variant.c) and taken down by it. */
struct sampler_foreign {
	struct launch_foreign lf;       /* the run's directory, network namespace, user */
	struct sandbox *load_cg;        /* the loads' own cgroup beside the sandbox, NULL: none */
	const struct metrics_table *metrics[SCN_MAX_LOADS];     /* per load, NULL: none */
};

struct sampler_opts {
	unsigned interval_ms;   /* tick, default 250 */
	unsigned timeout_s;     /* a run that lasts longer is stopped: outcome "timeout" */
	const char *bindir;     /* workload programs */
	int sigfd;              /* signalfd of host/knobs.h's stop signals, owned by the caller */
	bool verbose;           /* a progress line per workload step and action */
	/* Where the lines for the user go (base/progress.h): each workload's end
	 * when it was an OOM kill (or -v), a stop signal, the trace's losses
	 * (warnings); -v also each start, step and action.  NULL drops them. */
	const struct lab_progress *progress;
	/* A terminal for the status line rewritten in place while a run goes
	 * (the caller decides: a tty, not -v), or NULL. */
	FILE *status;
	const struct trace_config *trace;       /* NULL: no tracepoints */
	/* Adaptive bursts: the tick drops to burst_ms (0 = never) while a zone's
	 * free pages are within burst_margin_pct of its low-high gap above the
	 * low line, or kswapd is awake, or a reclaim stall is open. */
	unsigned burst_ms;
	unsigned burst_margin_pct;
	bool burst_always;      /* whatever the trigger (a benchmark of the burst's cost) */
	/* Each burst sample as a line of its own (--trace-raw, [trace] raw);
	 * else the bursts between two full samples are folded into one line:
	 * per zone the lowest free seen, when, and the last (harness/result/result.md). */
	bool burst_raw;
	const struct sampler_foreign *foreign;  /* NULL: no command workload, no load */
	/* NULL, or an object filled at the run's end with the sandbox's
	 * processes the per-process source listed at a sample (the latest 512):
	 * {"PID": {"comm", "workload" (the command it descends from; null: none
	 * of two), "sample" (the last that listed it)}} — who a process the
	 * kernel names by pid alone was (harness/run/victims.c). */
	json_t *seen;
};

/* Fills run (a JSON object) with workloads, steps, samples, actions, exit and
 * summary.  Returns 0 when the run ended by itself, 1 when a signal stopped it
 * (outcome "interrupted"; *signo gets the signal), or negative on a harness
 * failure (run still holds what was gathered). */
int sampler_run(const struct run_spec *spec, struct sandbox *sb, const struct sampler_opts *o,
		struct result *res, int run_index, json_t *run, int *signo, struct lab_error *err);

/* One sample of the machine-wide sources of the table, as in a result's
 * samples[] (no sandbox or workloads); NULL with err filled on failure. */
json_t *sampler_probe_once(struct lab_error *err);

/* Did a workload of this run (its JSON as sampler_run left it) fail on its
 * own — exit with a non-zero code, or never start — rather than end, be
 * stopped or be killed (an OOM kill is data)?  Then msg gets "NAME: why" (the
 * workload's own error message when it sent one) and it returns true: the
 * harness exits 1, not 0. */
bool sampler_run_failed(const json_t *run, char *msg, size_t len);

#endif
