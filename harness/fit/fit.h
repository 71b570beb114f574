/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fit/fit.h — the smallest quota at which a service still meets its
 * objective (`pagelab fit`, harness/cmd/fit.c; harness/fit/fit.md).
 *
 * A scenario whose [sandbox] reads a parameter (memory_max = ${memory_max})
 * is run first without that constraint (the base: memory_max at MemTotal,
 * memory_high at the variant's memory_max), then at the top of the range,
 * at its bottom, and bisected between the last quota that failed and the
 * first that met, each probe repeated (at least 3 times).  A probe meets
 * when every repeat's main workload completed (no OOM kill, ready, each
 * load a result) and no objective is broken: an objective compares the
 * probe's repeats against a bound (a factor of the base's repeats, or a
 * constant) with the rule `pagelab compare` uses (Welch's t-test and the
 * LKP rule, read/stats.h), and is broken only when that difference is real
 * and on the wrong side — one noisy run breaks nothing.
 *
 * Every probe's runs land in one pagelab.result/1 document, each run with
 * the varied key in its variant, and the document's "fit" object holds the
 * probes, the answer with its bracket, and the curve and the reconciliation
 * (what each dashboard would have said, beside the quota found) as tables
 * of data (harness/result/result.md, "fit").  Nothing here prints: progress
 * goes to a struct lab_progress, errors are -errno with struct lab_error.
 */
#ifndef PAGELAB_FIT_H
#define PAGELAB_FIT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"
#include "run/run.h"

#define FIT_MAX_SLOS 16
#define FIT_REPEAT_DEFAULT 3
#define FIT_PROBES_DEFAULT 12           /* the range's ends included */
#define FIT_PROBES_MAX 24
#define FIT_PSI_DEFAULT_PCT 10.0        /* the sandbox's memory.pressure some, % of the loads' time */

/* What is varied: a [sandbox] setting, through the parameter of its name. */
enum fit_key { FIT_MEMORY_MAX, FIT_MEMORY_HIGH };

struct fit_vary {
	enum fit_key key;
	unsigned long long lo, hi;      /* bytes, lo < hi */
};

/* KEY=LO..HI ("memory_max=16M..256M").  0 or -EINVAL with err. */
int fit_parse_vary(const char *text, struct fit_vary *v, struct lab_error *err);
const char *fit_key_name(enum fit_key k);

/* An objective: NAME OP BOUND, OP >= or <=, BOUND a number or F*base.
 *   ops    every throughput metric of the loads (metrics tables' role)
 *   p99    every p99 latency metric
 *   psi    the sandbox's memory.pressure "some" share of the loads' time, %
 *          (cgroup v2; a constant only)
 *   NAME   the metric of that name (steps[].metrics: GET/rps, tps, …) */
enum fit_slo_kind { FIT_SLO_OPS, FIT_SLO_P99, FIT_SLO_PSI, FIT_SLO_METRIC };

struct fit_slo {
	enum fit_slo_kind kind;
	char metric[64];                /* FIT_SLO_METRIC */
	bool ge;                        /* >= (else <=) */
	bool relative;                  /* value is a factor of the base */
	double value;
	bool given;                     /* --slo, not a default */
	char text[128];                 /* as printed: "ops>=0.95*base" */
};

/* One --slo.  0 or -EINVAL with err (what is wrong, and the forms). */
int fit_parse_slo(const char *text, struct fit_slo *s, struct lab_error *err);

/* The defaults (ops>=0.95*base, p99<=2*base, psi<=10), each replaced by a
 * given objective of the same name; the given ones that name a metric
 * added.  0 or -E2BIG. */
int fit_objectives(const struct fit_slo *given, size_t ngiven, struct fit_slo *out, size_t *nout,
		   struct lab_error *err);

struct fit_opts {
	struct run_opts run;            /* name, --set, --repeat (0: 3), --interval, --timeout,
					 * --allow-root-workload, -v; out and no_report unused */
	struct fit_vary vary;
	unsigned long long resolution;  /* 0: (hi - lo) / 16 in whole MiB, at least a page */
	unsigned long long base;        /* 0: unconstrained */
	unsigned max_probes;            /* 0: FIT_PROBES_DEFAULT */
	struct fit_slo slo[FIT_MAX_SLOS];       /* after fit_objectives */
	size_t nslo;
	const char *out;                /* NULL: $PAGELAB_RESULTS|results/NAME-fit-STAMP.json */
};

struct fit_outcome {
	enum run_end end;               /* RUN_ENDED: the fit ran (whatever its answer) */
	char result[PATH_MAX];          /* the document, when it was written */
	json_t *doc;                    /* the document (its "fit" object); NULL before a probe ran */
};

/* Check the options and the scenario (nothing runs on a refusal: exit 2 or
 * 3), then probe and write the document.  Returns 0 when out->end is
 * RUN_ENDED or RUN_INTERRUPTED, else -errno with err: a refusal
 * (RUN_REFUSED_INPUT, RUN_REFUSED_HOST), or a failure (RUN_FAILED: the
 * base gave no result — never ready, a load that hung — or the harness
 * failed), after which nothing of the run is left and the document holds
 * what was probed. */
int fit_execute(const struct fit_opts *o, const struct lab_progress *prog, struct fit_outcome *out,
		struct lab_error *err);
void fit_outcome_free(struct fit_outcome *out);

/* "256 MiB" or the exact bytes when not a whole KiB. */
const char *fit_size_text(unsigned long long b, char *buf, size_t len);

/* ---- judging (judge.c), pure over result documents' runs ----------------- */

/* A probe's record (doc.fit.probes[i]) from its runs, judged against the
 * base's record (NULL: this is the base) and the objectives; cgroup v2
 * says whether the sandbox's own PSI exists.  A new reference. */
json_t *fit_judge(json_t *const *runs, size_t n, const json_t *base, const struct fit_slo *slo, size_t nslo,
		  unsigned long long quota, bool is_base);

/* ---- tables (tables.c): the curve and the reconciliation as data ---------- */

/* doc.fit.tables: the curve (one row per probe, quota ascending) and, per
 * step of the main workload, what each dashboard said at the base and at the
 * quota found, each as a ratio to that quota.  runs are the document's. */
json_t *fit_tables(const json_t *fit, const json_t *runs);

/* A table of data as markdown (cells: numbers grouped, strings as they are). */
void fit_table_markdown(const json_t *table, FILE *o);

#endif
