/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stages.h — what the pipeline's files share (harness/run/ only; the public
 * interface is run.h). */
#ifndef PAGELAB_RUN_STAGES_H
#define PAGELAB_RUN_STAGES_H

#include <limits.h>
#include <stdbool.h>

#include "run.h"
#include "host/host.h"
#include "host/knobs.h"
#include "sample/sampler.h"
#include "launch/metrics.h"
#include "result/result.h"

/* One execution of a plan, as it goes. */
struct run_ctx {
	const struct run_opts *o;
	struct run_plan *p;
	const struct lab_progress *prog;
	struct host_facts host;
	char bindir[PATH_MAX];          /* the workload programs */
	int sigfd;                      /* -1 before begin */
	struct knob_journal *journal;   /* held for the whole execution when a variant has [knobs] */
	struct result *res;             /* NULL before begin */
	bool trace_ok, trace_mounted;
	char trace_why[LAB_ERROR_MSG_MAX];
	int run_index;                  /* runs made so far */
	/* The loads' metrics tables, loaded once by the check (check.c):
	 * metrics[v][k] for variant v's load k, NULL where it has none. */
	struct metrics_table *(*metrics)[SCN_MAX_LOADS];
	/* How it is going: the first failure decides (run_fail). */
	enum run_end end;
	bool failed;
	struct lab_error err;
	const char *doc_status;         /* the document's status: "ok", "error", "interrupted" */
	char doc_error[LAB_ERROR_MSG_MAX];
};

/* The first failure (or refusal) decides how the execution ends and is
 * returned in err; a later one is said through prog as it happens.  The
 * document records a failure as its error. */
void run_fail(struct run_ctx *c, enum run_end end, const struct lab_error *e);

/* A signal stopped a run: the execution ends interrupted (a failure held
 * until then is said first), unless a failure comes after. */
void run_interrupted(struct run_ctx *c, int signo);

/* ---- victims.c ---------------------------------------------------------------- */

/* runs[].exit.oom_victims: every process of the sandbox the OOM killer took
 * (the kernel log's, mark_victim's, the counter's), each with the workload
 * whose tree it was in; seen: the sampler's (sampler_opts.seen), or NULL. */
void run_oom_victims(json_t *run, json_t *seen);

/* The run's pid of a process the kernel's log names by kernel_pid: in a pid
 * namespace of the run's own, a traced OOM victim's (summary.trace.oom_victims[]
 * .kernel_pid); else kernel_pid itself. */
json_int_t run_victim_pid(const json_t *run, json_int_t kernel_pid);

/* Each victim that was not a workload's own process, said through prog. */
void run_say_victims(const struct lab_progress *prog, int run_index, const json_t *run);

/* ---- check.c ---------------------------------------------------------------- */

/* Can this host run every variant, before anything is touched?  RUN_ENDED
 * (yes), or a refusal (RUN_REFUSED_INPUT, RUN_REFUSED_HOST) or RUN_FAILED
 * with err filled.  Fills c->host and c->bindir. */
enum run_end run_check(struct run_ctx *c, struct lab_error *err);

/* ---- foreign.c: command workloads and loads --------------------------------- */

/* May this run execute its scenario's programs (a trusted scenario file,
 * the user there, root only with --allow-root-workload, each program
 * installed, each load bounded by its tool's own flags as its metrics table
 * says, a private network namespace possible)?  Loads the metrics tables
 * into c->metrics.  RUN_ENDED, or the refusal with err filled. */
enum run_end run_check_foreign(struct run_ctx *c, struct lab_error *err);

/* A variant's foreign context, made after its sandbox (the run's
 * directory, network namespace, user, the loads' own cgroup) and taken
 * down after its processes.  0 or -errno. */
struct run_foreign;
int run_foreign_up(struct run_ctx *c, const struct run_spec *r, size_t v, json_t *run, struct run_foreign **out,
		   struct lab_error *err);
const struct sampler_foreign *run_foreign_sampler(const struct run_foreign *f);
int run_foreign_down(struct run_foreign *f, struct lab_error *err);
void run_foreign_free_metrics(struct run_ctx *c);

/* ---- resources.c ------------------------------------------------------------ */

/* The knobs a host may take (root; swap = off, a reserve or hugetlb pages
 * that could starve it: destructive; hugetlb counts in checked arithmetic
 * against MemTotal), and the host's resources a run needs (free space for
 * swap and cache files, memory for tracing's ring buffers).  RUN_ENDED when
 * all is well, else the refusal with err filled. */
enum run_end run_check_knobs(const struct run_opts *o, const struct host_facts *h, const struct run_spec *specs,
			     size_t nv, const char *name, struct lab_error *err);
enum run_end run_check_resources(const struct host_facts *h, const struct run_spec *specs, size_t nv,
				 const char *name, struct lab_error *err);

/* ---- journal.c: the knob journal around the runs (harness/host/knobs.h) ---- */

/* Before a run touches the host: a journal left by a run that died is
 * restored first.  With need (a variant has [knobs]) the journal's lock is
 * kept in c->journal to the end (one knob-changing run at a time); without,
 * it is only looked at.  RUN_ENDED, or how it failed with err. */
enum run_end run_journal_begin(struct run_ctx *c, bool need, struct lab_error *err);

/* Restore what the journal holds, saying so (what: the line before the
 * knobs).  0 when every knob is back. */
int run_journal_restore(struct run_ctx *c, const char *what, struct lab_error *err);

/* Change one run's knobs through the journal, recording them in run.knobs;
 * put them back, recording that in run.knobs.restored.  0 or -errno. */
int run_knobs_apply(struct run_ctx *c, const struct run_spec *r, json_t *run, struct lab_error *err);
int run_knobs_restore(struct run_ctx *c, json_t *run, struct lab_error *err);

/* ---- variant.c -------------------------------------------------------------- */

/* Variant v, repeat rep: sandbox, knobs, workloads sampled, kmsg, all taken
 * down again.  false when the execution must stop (interrupted, or a
 * failure that leaves nothing to go on with). */
bool run_variant(struct run_ctx *c, size_t v, unsigned rep);

/* ---- finish.c --------------------------------------------------------------- */

/* The result document written (out->result, out->summary). */
void run_finish(struct run_ctx *c, struct run_outcome *out);

/* Every exit path: nothing journaled stays changed, the signalfd closed,
 * tracefs unmounted when the run mounted it. */
void run_end_host(struct run_ctx *c);

#endif
