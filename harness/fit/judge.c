/* SPDX-License-Identifier: GPL-2.0-or-later */
/* judge.c — does a probe meet the objectives (fit.h: fit_judge)?  Each run
 * of the probe gives its figures (the loads' metrics, the sandbox's PSI
 * over the loads, refaults, major faults, the peak, OOM kills); the probe's
 * record holds them across its repeats, and each objective is the compare
 * rule (read/stats.h) between the probe's repeats and its bound. */
#include "fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "read/compare.h"
#include "read/stats.h"
#include "result/keys.h"

#define FIG_MAX 64

static const char *jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static bool jnum(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return false;
	*out = json_number_value(v);
	return isfinite(*out);
}

/* The run's main workload: the scenario's last. */
static const json_t *main_workload(const json_t *run)
{
	const json_t *ws = json_object_get(run, RK_WORKLOADS);

	return json_array_get(ws, json_array_size(ws) ? json_array_size(ws) - 1 : 0);
}

static const json_t *step_sample(const json_t *run, const json_t *step)
{
	const json_t *s = json_object_get(step, RK_SAMPLE);

	return json_is_integer(s) ? json_array_get(json_object_get(run, RK_SAMPLES), (size_t)json_integer_value(s))
				  : NULL;
}

/* The samples that open and close the loads' window: the main workload's
 * ready step (else the run's first sample) and its last load's step (else
 * the run's last sample). */
static void load_window(const json_t *run, const json_t **from, const json_t **to)
{
	const json_t *steps = json_object_get(run, RK_STEPS), *samples = json_object_get(run, RK_SAMPLES);
	const char *main = jstr(main_workload(run), RK_NAME);
	size_t i;

	*from = json_array_get(samples, 0);
	*to = json_array_get(samples, json_array_size(samples) ? json_array_size(samples) - 1 : 0);
	for (i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i);
		const json_t *sm = step_sample(run, st);

		if (main == NULL || jstr(st, RK_WORKLOAD) == NULL || strcmp(jstr(st, RK_WORKLOAD), main) != 0 ||
		    sm == NULL)
			continue;
		if (strcmp(jstr(st, RK_STEP) ? jstr(st, RK_STEP) : "", "ready") == 0)
			*from = sm;
		if (json_object_get(st, RK_LOAD) != NULL)
			*to = sm;
	}
}

/* Stalled share of the window, %: total_us of key.some between two samples. */
static bool stall_pct(const json_t *a, const json_t *b, const char *key, double *out)
{
	double ua, ub, ta, tb;

	if (!jnum(json_object_get(json_object_get(json_object_get(a, key), RK_SOME), "total_us"), &ua) ||
	    !jnum(json_object_get(json_object_get(json_object_get(b, key), RK_SOME), "total_us"), &ub) ||
	    !jnum(json_object_get(a, RK_T_MS), &ta) || !jnum(json_object_get(b, RK_T_MS), &tb) || tb <= ta)
		return false;
	*out = (ub - ua) / ((tb - ta) * 1000) * 100;
	return true;
}

static void fig_set(json_t *figs, const char *name, double v, const char *unit, const char *better,
		    const char *role)
{
	json_object_set_new(figs, name, json_pack("{s:f, s:s, s:s, s:s*}", "value", v, "unit", unit, "better", better,
						  "role", role));
}

/* Why the run is no result for the fit, or NULL: its main workload did not
 * complete, or a load gave no result. */
static const char *run_failure(const json_t *run, char *buf, size_t len)
{
	const json_t *w = main_workload(run), *loads = json_object_get(run, RK_LOADS);
	const char *fate = jstr(w, RK_FATE);

	if (fate == NULL || strcmp(fate, "completed") != 0) {
		const char *e = jstr(w, RK_ERROR);
		char how[48] = "";

		/* A service that failed on its own says its exit code: postgres
		 * exiting 1 at its stop after a backend was OOM-killed (no error
		 * beside it), a JVM's OutOfMemoryError before it was ready. */
		if (fate != NULL && strcmp(fate, "failed") == 0 && json_is_integer(json_object_get(w, RK_CODE)))
			snprintf(how, sizeof(how), " (exit code %lld)",
				 (long long)json_integer_value(json_object_get(w, RK_CODE)));
		snprintf(buf, len, "%s %s%s%s%.200s", jstr(w, RK_NAME) ? jstr(w, RK_NAME) : "?", fate ? fate : "no fate",
			 how, e ? ": " : "", e ? e : "");
		return buf;
	}
	for (size_t i = 0; i < json_array_size(loads); i++) {
		const json_t *l = json_array_get(loads, i);

		if (!json_is_true(json_object_get(l, "valid"))) {
			snprintf(buf, len, "load %s: no result: %.300s", jstr(l, RK_NAME) ? jstr(l, RK_NAME) : "?",
				 jstr(l, "invalid") ? jstr(l, "invalid") : jstr(l, RK_OUTCOME) ? jstr(l, RK_OUTCOME) : "?");
			return buf;
		}
	}
	return NULL;
}

/* One run's figures: every metric of its valid loads ("LOAD: METRIC"), the
 * PSI over the loads, the sandbox's refaults, major faults and peak at the
 * last load. */
static json_t *run_figures(const json_t *run)
{
	const json_t *steps = json_object_get(run, RK_STEPS), *from, *to, *stat;
	json_t *figs = json_object();
	double v;

	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i), *ms = json_object_get(st, RK_METRICS), *m;
		const json_t *load = json_object_get(st, RK_LOAD);
		const char *k;

		if (load == NULL || !json_is_true(json_object_get(load, "valid")))
			continue;
		json_object_foreach((json_t *)ms, k, m) {
			char name[160];

			if (!jnum(json_object_get(m, "value"), &v))
				continue;
			snprintf(name, sizeof(name), "%s: %s", jstr(st, RK_STEP) ? jstr(st, RK_STEP) : "?", k);
			fig_set(figs, name, v, jstr(m, "unit") ? jstr(m, "unit") : "", jstr(m, "better") ? jstr(m, "better") : "none",
				jstr(m, "role"));
			json_object_set_new(json_object_get(figs, name), "metric", json_string(k));
		}
	}
	load_window(run, &from, &to);
	if (from != NULL && to != NULL && stall_pct(from, to, RK_MEMCG_PRESSURE, &v))
		fig_set(figs, "psi_some_pct", v, "%", "lower", "psi");
	if (from != NULL && to != NULL && stall_pct(from, to, RK_PSI, &v))
		fig_set(figs, "machine_psi_some_pct", v, "%", "lower", NULL);
	stat = json_object_get(json_object_get(to, RK_MEMCG), RK_STAT);
	if (jnum(json_object_get(stat, "workingset_refault_anon"), &v))
		fig_set(figs, "workingset_refault_anon", v, "pages", "lower", NULL);
	if (jnum(json_object_get(stat, "workingset_refault_file"), &v))
		fig_set(figs, "workingset_refault_file", v, "pages", "lower", NULL);
	if (jnum(json_object_get(stat, "pgmajfault"), &v))
		fig_set(figs, "pgmajfault", v, "faults", "lower", NULL);
	if (jnum(json_object_get(json_object_get(to, RK_MEMCG), "peak_bytes"), &v))
		fig_set(figs, "peak_bytes", v, "bytes", "none", NULL);
	return figs;
}

static bool run_oom(const json_t *run)
{
	const json_t *ws = json_object_get(run, RK_WORKLOADS);
	double k = 0;

	if (jnum(json_object_get(json_object_get(run, RK_EXIT), RK_OOM_KILL_COUNT), &k) && k > 0)
		return true;
	for (size_t i = 0; i < json_array_size(ws); i++)
		if (json_is_true(json_object_get(json_array_get(ws, i), RK_OOM_KILLED)))
			return true;
	return false;
}

/* Every figure across the runs: {NAME: {values, median, min, max, n, unit,
 * better, role, metric}}, in the first run's order. */
static json_t *figures_across(json_t *const *figs, size_t n)
{
	json_t *out = json_object();

	for (size_t r = 0; r < n; r++) {
		const char *k;
		json_t *f;

		json_object_foreach(figs[r], k, f) {
			json_t *a = json_object_get(out, k);

			if (a == NULL) {
				a = json_deep_copy(f);
				json_object_del(a, "value");
				json_object_set_new(a, "values", json_array());
				json_object_set_new(out, k, a);
			}
			json_array_append(json_object_get(a, "values"), json_object_get(f, "value"));
		}
	}
	{
		const char *k;
		json_t *a;

		json_object_foreach(out, k, a) {
			const json_t *vals = json_object_get(a, "values");
			double v[128];
			size_t m = 0;
			struct stats_side s;

			for (size_t i = 0; i < json_array_size(vals) && m < 128; i++)
				if (jnum(json_array_get(vals, i), &v[m]))
					m++;
			stats_summarize(v, m, &s);
			json_object_set_new(a, "n", json_integer((json_int_t)m));
			json_object_set_new(a, "median", json_real(s.median));
			json_object_set_new(a, "min", json_real(s.min));
			json_object_set_new(a, "max", json_real(s.max));
		}
	}
	return out;
}

static void side_of(const json_t *fig, double factor, struct stats_side *s)
{
	const json_t *vals = json_object_get(fig, "values");
	double v[128];
	size_t m = 0;

	for (size_t i = 0; i < json_array_size(vals) && m < 128; i++)
		if (jnum(json_array_get(vals, i), &v[m]))
			v[m++] *= factor;
	stats_summarize(v, m, s);
}

/* Does figure f (its role, or its name) fall under objective s? */
static bool applies(const struct fit_slo *s, const char *name, const json_t *f)
{
	const char *role = jstr(f, "role"), *metric = jstr(f, "metric");

	switch (s->kind) {
	case FIT_SLO_OPS: return role != NULL && strcmp(role, "throughput") == 0;
	case FIT_SLO_P99: return role != NULL && strcmp(role, "p99") == 0;
	case FIT_SLO_PSI: return strcmp(name, "psi_some_pct") == 0;
	case FIT_SLO_METRIC: return strcmp(name, s->metric) == 0 || (metric != NULL && strcmp(metric, s->metric) == 0);
	}
	return false;
}

/* One objective on one figure: the probe's repeats against the bound (the
 * base's repeats times the factor, or the constant as many times), by
 * Welch + LKP; broken only when the difference is real and on the wrong
 * side of the bound. */
static json_t *objective(const struct fit_slo *s, const char *name, const json_t *pf, const json_t *bf, bool *broken)
{
	struct stats_side probe, bound;
	struct stats_verdict v;
	json_t *o;
	bool wrong;

	side_of(pf, 1, &probe);
	if (s->relative) {
		side_of(bf, s->value, &bound);
	} else {
		double c[128];

		for (size_t i = 0; i < probe.n && i < 128; i++)
			c[i] = s->value;
		stats_summarize(c, probe.n < 128 ? probe.n : 128, &bound);
	}
	stats_verdict(&bound, &probe, COMPARE_THRESHOLD_PCT, &v);
	wrong = s->ge ? probe.median < bound.median : probe.median > bound.median;
	*broken = v.call == STATS_REAL && wrong;
	o = json_pack("{s:s, s:s, s:f, s:f, s:s, s:b, s:b}", "objective", s->text, "figure", name, "median",
		      probe.median, "bound", bound.median, "verdict", stats_call_name(v.call), "wrong_side", wrong,
		      "broken", *broken);
	json_object_set_new(o, "change_pct", isnan(v.change_pct) ? json_null() : json_real(v.change_pct));
	json_object_set_new(o, "p", v.have_t ? json_real(v.t.p) : json_null());
	return o;
}

/* Every objective over the figures it applies to; an objective with no
 * figure is recorded as not judged (the tool gives no p99, cgroup v1 has no
 * per-cgroup PSI), never as met. */
static bool judge_objectives(json_t *rec, const json_t *figs, const json_t *base, const struct fit_slo *slo,
			     size_t nslo, json_t *why)
{
	const json_t *bfigs = json_object_get(base, "figures");
	json_t *objs = json_array();
	bool meets = true;

	for (size_t i = 0; i < nslo; i++) {
		const char *k;
		json_t *f;
		size_t judged = 0;

		json_object_foreach((json_t *)figs, k, f) {
			const json_t *bf = json_object_get(bfigs, k);
			bool broken;
			json_t *o;

			if (!applies(&slo[i], k, f) || (slo[i].relative && bf == NULL))
				continue;
			o = objective(&slo[i], k, f, bf, &broken);
			judged++;
			if (broken) {
				char line[384];

				meets = false;
				snprintf(line, sizeof(line), "%s: %s %.6g, bound %.6g (%s)", slo[i].text, k,
					 json_number_value(json_object_get(o, "median")),
					 json_number_value(json_object_get(o, "bound")),
					 json_string_value(json_object_get(o, "verdict")));
				json_array_append_new(why, json_string(line));
			}
			json_array_append_new(objs, o);
		}
		if (judged == 0)
			json_array_append_new(objs, json_pack("{s:s, s:b, s:s}", "objective", slo[i].text, "judged", 0,
							      "why", slo[i].kind == FIT_SLO_PSI
							      ? "no per-cgroup memory.pressure (cgroup v2 has it)"
							      : "no load gives such a figure"));
	}
	json_object_set_new(rec, "objectives", objs);
	return meets;
}

json_t *fit_judge(json_t *const *runs, size_t n, const json_t *base, const struct fit_slo *slo, size_t nslo,
		  unsigned long long quota, bool is_base)
{
	json_t *figs[128], *rec = json_object(), *why = json_array(), *all;
	size_t ok = 0, ooms = 0, m = n < 128 ? n : 128;
	bool meets;

	for (size_t r = 0; r < m; r++) {
		char buf[512];
		const char *f = run_failure(runs[r], buf, sizeof(buf));

		ooms += run_oom(runs[r]);
		if (f == NULL)
			ok++;
		else if (json_array_size(why) < 8) {
			char line[560];

			snprintf(line, sizeof(line), "repeat %zu: %s", r + 1, f);
			json_array_append_new(why, json_string(line));
		}
		figs[r] = run_figures(runs[r]);
	}
	all = figures_across(figs, m);
	for (size_t r = 0; r < m; r++)
		json_decref(figs[r]);
	json_object_set_new(rec, "quota_bytes", json_integer((json_int_t)quota));
	json_object_set_new(rec, "base", json_boolean(is_base));
	json_object_set_new(rec, "repeats", json_integer((json_int_t)n));
	json_object_set_new(rec, "completed_runs", json_integer((json_int_t)ok));
	json_object_set_new(rec, "oom_runs", json_integer((json_int_t)ooms));
	json_object_set_new(rec, "figures", all);
	meets = ok == n && ooms == 0 && n > 0;
	if (ooms > 0) {
		char line[96];

		snprintf(line, sizeof(line), "OOM kills in %zu of %zu repeats", ooms, n);
		json_array_insert_new(why, 0, json_string(line));
	}
	if (!is_base && base != NULL)
		meets &= judge_objectives(rec, all, base, slo, nslo, why);
	json_object_set_new(rec, "meets", is_base ? json_null() : json_boolean(meets));
	json_object_set_new(rec, "usable", json_boolean(ok == n && n > 0));
	json_object_set_new(rec, "why", why);
	return rec;
}
