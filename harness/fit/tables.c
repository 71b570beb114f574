/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tables.c — a fit's two tables as data (fit.h: fit_tables): the curve, one
 * row per probe, and the reconciliation, what each dashboard would have said
 * of the service at each step of its main workload, at the base and at the
 * quota found, each as a ratio to that quota.  A table is
 *   {"title": T, "columns": [{"name": N, "unit": U}], "rows": [[cell, ...]]}
 * with cells numbers, strings or null (harness/result/result.md, "fit"). */
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/stats.h"
#include "result/keys.h"

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static json_t *table_new(const char *title)
{
	return json_pack("{s:s, s:[], s:[]}", "title", title, "columns", "rows");
}

static void column(json_t *t, const char *name, const char *unit)
{
	json_array_append_new(json_object_get(t, "columns"), json_pack("{s:s, s:s}", "name", name, "unit", unit));
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The curve's figures: the base's throughputs and p99s, then the kernel's. */
static size_t curve_figures(const json_t *base, const char **names, size_t max)
{
	static const char *const kernel[] = { "psi_some_pct", "workingset_refault_anon", "workingset_refault_file",
					      "pgmajfault", "peak_bytes" };
	const json_t *figs = json_object_get(base, "figures"), *f;
	const char *k;
	size_t n = 0;

	json_object_foreach((json_t *)figs, k, f) {
		const char *role = jstr(f, "role");

		if (n < max && role != NULL && (strcmp(role, "throughput") == 0 || strcmp(role, "p99") == 0))
			names[n++] = k;
	}
	for (size_t i = 0; i < sizeof(kernel) / sizeof(kernel[0]) && n < max; i++)
		if (json_object_get(figs, kernel[i]) != NULL)
			names[n++] = kernel[i];
	return n;
}

static int by_quota(const void *a, const void *b)
{
	json_int_t qa = json_integer_value(json_object_get(*(json_t *const *)a, "quota_bytes"));
	json_int_t qb = json_integer_value(json_object_get(*(json_t *const *)b, "quota_bytes"));

	return qa < qb ? -1 : qa > qb;
}

static json_t *curve(const json_t *probes)
{
	const json_t *base = NULL;
	json_t *t = table_new("the curve: every probe, quota ascending (medians of its repeats)"), *sorted[64];
	const char *names[32];
	size_t n = 0, nf;

	for (size_t i = 0; i < json_array_size(probes) && n < 64; i++) {
		sorted[n++] = json_array_get(probes, i);
		if (json_is_true(json_object_get(sorted[n - 1], "base")))
			base = sorted[n - 1];
	}
	qsort(sorted, n, sizeof(sorted[0]), by_quota);
	nf = base ? curve_figures(base, names, 32) : 0;
	column(t, "quota", "bytes");
	column(t, "verdict", "");
	column(t, "completed", "runs");
	column(t, "OOM", "runs");
	for (size_t i = 0; i < nf; i++) {
		const json_t *f = json_object_get(json_object_get(base, "figures"), names[i]);

		column(t, names[i], jstr(f, "unit") ? jstr(f, "unit") : "");
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *p = sorted[i], *meets = json_object_get(p, "meets");
		json_t *row = json_array();

		json_array_append(row, json_object_get(p, "quota_bytes"));
		json_array_append_new(row, json_string(json_is_true(json_object_get(p, "base")) ? "base"
						       : json_is_null(meets) ? "no verdict" : json_is_true(meets) ? "met"
						       : "failed"));
		json_array_append(row, json_object_get(p, "completed_runs"));
		json_array_append(row, json_object_get(p, "oom_runs"));
		for (size_t k = 0; k < nf; k++) {
			const json_t *f = json_object_get(json_object_get(p, "figures"), names[k]);

			json_array_append_new(row, f ? json_deep_copy(json_object_get(f, "median")) : json_null());
		}
		json_array_append_new(json_object_get(t, "rows"), row);
	}
	return t;
}

/* ---------------------------------------------------------- reconciliation */

enum { D_RSS, D_PSS, D_LAZYFREE, D_ANONHUGE, D_USAGE, D_ANON, D_FILE, D_ACTIVE_FILE, D_INACTIVE_FILE, D_WSET,
       D_AVAILABLE, D_PEAK, D_N };

static const struct { const char *name, *what; } dash[D_N] = {
	[D_RSS] = { "Rss", "smaps_rollup Rss, the main workload's processes summed (top, ps)" },
	[D_PSS] = { "Pss", "smaps_rollup Pss, summed (shared pages split)" },
	[D_LAZYFREE] = { "LazyFree", "smaps_rollup LazyFree, summed (MADV_FREE pages not yet taken)" },
	[D_ANONHUGE] = { "AnonHugePages", "smaps_rollup AnonHugePages, summed" },
	[D_USAGE] = { "usage", "the sandbox's memory.current (v1 memory.usage_in_bytes)" },
	[D_ANON] = { "anon", "memory.stat anon (v1 total_rss)" },
	[D_FILE] = { "file", "memory.stat file (v1 total_cache)" },
	[D_ACTIVE_FILE] = { "active_file", "memory.stat active_file (v1 total_active_file)" },
	[D_INACTIVE_FILE] = { "inactive_file", "memory.stat inactive_file (v1 total_inactive_file)" },
	[D_WSET] = { "working set", "usage - inactive_file, at least 0 (kubelet, cAdvisor)" },
	[D_AVAILABLE] = { "MemAvailable", "/proc/meminfo MemAvailable (the machine's)" },
	[D_PEAK] = { "peak", "the sandbox's peak (memory.peak, v1 max_usage_in_bytes)" },
};

static bool num(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return true;
}

/* A memory.stat key by the v2 name, or its v1 hierarchical one. */
static bool stat_of(const json_t *stat, const char *v2, const char *v1, double *out)
{
	return num(json_object_get(stat, v2), out) || num(json_object_get(stat, v1), out);
}

/* One sample's dashboards for workload w, in bytes (NAN where absent). */
static void dashboards(const json_t *sm, const char *w, double *d)
{
	const json_t *wl = json_object_get(json_object_get(sm, "workloads"), w);
	const json_t *memcg = json_object_get(sm, RK_MEMCG), *stat = json_object_get(memcg, RK_STAT);
	static const char *const kb[] = { [D_RSS] = RK_RSS_KB, [D_PSS] = "pss_kb", [D_LAZYFREE] = RK_LAZYFREE_KB,
					  [D_ANONHUGE] = RK_ANONHUGE_KB };
	bool v1 = json_object_get(stat, "total_inactive_file") != NULL;

	for (int i = 0; i < D_N; i++)
		d[i] = NAN;
	for (int i = D_RSS; i <= D_ANONHUGE; i++)
		if (num(json_object_get(wl, kb[i]), &d[i]))
			d[i] *= 1024;
	num(json_object_get(memcg, RK_USAGE_BYTES), &d[D_USAGE]);
	if (v1) {
		stat_of(stat, "total_rss", "rss", &d[D_ANON]);
		stat_of(stat, "total_cache", "cache", &d[D_FILE]);
		stat_of(stat, "total_active_file", "active_file", &d[D_ACTIVE_FILE]);
		stat_of(stat, "total_inactive_file", "inactive_file", &d[D_INACTIVE_FILE]);
	} else {
		num(json_object_get(stat, "anon"), &d[D_ANON]);
		num(json_object_get(stat, "file"), &d[D_FILE]);
		num(json_object_get(stat, "active_file"), &d[D_ACTIVE_FILE]);
		num(json_object_get(stat, "inactive_file"), &d[D_INACTIVE_FILE]);
	}
	if (isfinite(d[D_USAGE]) && isfinite(d[D_INACTIVE_FILE]))
		d[D_WSET] = d[D_USAGE] > d[D_INACTIVE_FILE] ? d[D_USAGE] - d[D_INACTIVE_FILE] : 0;
	if (num(json_object_get(json_object_get(sm, "meminfo"), "MemAvailable"), &d[D_AVAILABLE]))
		d[D_AVAILABLE] *= 1024;
	num(json_object_get(memcg, "peak_bytes"), &d[D_PEAK]);
}

/* The main workload's steps of a run, by name: its sample. */
static const json_t *step_sample(const json_t *run, const char *w, const char *step)
{
	const json_t *steps = json_object_get(run, RK_STEPS);

	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i), *s = json_object_get(st, RK_SAMPLE);

		if (jstr(st, RK_WORKLOAD) && strcmp(jstr(st, RK_WORKLOAD), w) == 0 && jstr(st, RK_STEP) &&
		    strcmp(jstr(st, RK_STEP), step) == 0 && json_is_integer(s))
			return json_array_get(json_object_get(run, RK_SAMPLES), (size_t)json_integer_value(s));
	}
	return NULL;
}

/* The medians over a probe's runs of every dashboard at one step. */
static void probe_dashboards(const json_t *probe, const json_t *runs, const char *w, const char *step, double *med)
{
	const json_t *idx = json_object_get(probe, RK_RUNS);
	double v[D_N][64];
	size_t n[D_N] = { 0 };

	for (size_t r = 0; r < json_array_size(idx) && r < 64; r++) {
		const json_t *run = json_array_get(runs, (size_t)json_integer_value(json_array_get(idx, r)));
		const json_t *sm = step_sample(run, w, step);
		double d[D_N];

		if (sm == NULL)
			continue;
		dashboards(sm, w, d);
		for (int i = 0; i < D_N; i++)
			if (isfinite(d[i]))
				v[i][n[i]++] = d[i];
	}
	for (int i = 0; i < D_N; i++) {
		struct stats_side s;

		stats_summarize(v[i], n[i], &s);
		med[i] = n[i] ? s.median : NAN;
	}
}

static const json_t *probe_where(const json_t *probes, bool base, double quota)
{
	for (size_t i = 0; i < json_array_size(probes); i++) {
		const json_t *p = json_array_get(probes, i);

		if (base ? json_is_true(json_object_get(p, "base"))
			 : json_is_true(json_object_get(p, "meets")) &&
				   (double)json_integer_value(json_object_get(p, "quota_bytes")) == quota)
			return p;
	}
	return NULL;
}

static json_t *reconciliation(const json_t *fit, const json_t *runs)
{
	const json_t *probes = json_object_get(fit, "probes"), *answer = json_object_get(fit, "answer");
	const json_t *base = probe_where(probes, true, 0), *found = NULL, *run0, *steps;
	json_t *t = table_new("what each dashboard would have said (medians of the repeats), as a ratio to the "
			      "quota found");
	double q = NAN;
	const char *w;

	if (num(json_object_get(answer, "quota_bytes"), &q))
		found = probe_where(probes, false, q);
	column(t, "step", "");
	column(t, "dashboard", "");
	column(t, "computed as", "");
	column(t, "base", "bytes");
	column(t, "at the quota found", "bytes");
	column(t, "base / quota", "ratio");
	column(t, "at quota / quota", "ratio");
	if (base == NULL)
		return t;
	run0 = json_array_get(runs, (size_t)json_integer_value(json_array_get(json_object_get(base, RK_RUNS), 0)));
	steps = json_object_get(run0, RK_STEPS);
	{
		const json_t *ws = json_object_get(run0, RK_WORKLOADS);

		w = jstr(json_array_get(ws, json_array_size(ws) ? json_array_size(ws) - 1 : 0), RK_NAME);
	}
	for (size_t i = 0; w != NULL && i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i);
		const char *step = jstr(st, RK_STEP);
		double b[D_N], f[D_N];

		if (step == NULL || jstr(st, RK_WORKLOAD) == NULL || strcmp(jstr(st, RK_WORKLOAD), w) != 0)
			continue;
		probe_dashboards(base, runs, w, step, b);
		for (int k = 0; k < D_N; k++)
			f[k] = NAN;
		if (found != NULL)
			probe_dashboards(found, runs, w, step, f);
		for (int k = 0; k < D_N; k++)
			json_array_append_new(json_object_get(t, "rows"),
					      json_pack("[s, s, s, o, o, o, o]", step, dash[k].name, dash[k].what,
							num_or_null(b[k]), num_or_null(f[k]), num_or_null(b[k] / q),
							num_or_null(f[k] / q)));
	}
	return t;
}

json_t *fit_tables(const json_t *fit, const json_t *runs)
{
	return json_pack("{s:o, s:o}", "curve", curve(json_object_get(fit, "probes")), "reconciliation",
			 reconciliation(fit, runs));
}

/* ------------------------------------------------------------- markdown */

static void cell(const json_t *c, const char *unit, FILE *o)
{
	double v;

	if (json_is_string(c)) {
		fputs(json_string_value(c), o);
	} else if (!num(c, &v)) {
		fputs("-", o);
	} else if (strcmp(unit, "bytes") == 0 && v >= 0) {
		fprintf(o, "%.1f", v / 1048576.0);     /* the column's head says MiB */
	} else if (strcmp(unit, "ratio") == 0) {
		fprintf(o, "%.2f", v);
	} else if ((v == floor(v) || fabs(v) >= 1000) && fabs(v) < 1e15) {
		fprintf(o, "%.0f", v);                  /* 58140 req/s, not %g's 5.814e+04 */
	} else {
		fprintf(o, "%.4g", v);
	}
}

void fit_table_markdown(const json_t *table, FILE *o)
{
	const json_t *cols = json_object_get(table, "columns"), *rows = json_object_get(table, "rows");

	fprintf(o, "%s\n\n|", jstr(table, "title") ? jstr(table, "title") : "");
	for (size_t i = 0; i < json_array_size(cols); i++) {
		const char *u = jstr(json_array_get(cols, i), "unit");

		if (u && strcmp(u, "bytes") == 0)
			u = "MiB";
		fprintf(o, " %s%s%s%s |", jstr(json_array_get(cols, i), "name"), u && *u ? " (" : "", u && *u ? u : "",
			u && *u ? ")" : "");
	}
	fputs("\n|", o);
	for (size_t i = 0; i < json_array_size(cols); i++)
		fputs("---|", o);
	fputc('\n', o);
	for (size_t r = 0; r < json_array_size(rows); r++) {
		const json_t *row = json_array_get(rows, r);

		fputc('|', o);
		for (size_t i = 0; i < json_array_size(cols); i++) {
			const char *u = jstr(json_array_get(cols, i), "unit");

			fputc(' ', o);
			cell(json_array_get(row, i), u ? u : "", o);
			fputs(" |", o);
		}
		fputc('\n', o);
	}
}
