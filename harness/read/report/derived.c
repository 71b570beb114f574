/* SPDX-License-Identifier: GPL-2.0-or-later */
/* derived.c — the named derived quantities a table row may ask for
 * ("get", "label", "text" in tables.md).  Everything a path, a step
 * selector, a sample window, a difference and a scale can express is data;
 * only a quantity that needs arithmetic or a search of its own is here, one
 * row in the tables at the end of this file per name.
 */
#include "internal.h"

#include "base/zoneinfo.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------- getters */

/* mincore's reclaimed pages at step sel, in whole MiB (rounded down, as the
 * article's 85,660 pages -> 334 MiB).  The page size is the region's size
 * over its page count: the article's machine is arm64. */
static bool get_reclaimed_mib(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *s = select_step(r, f->sel);
	double pages, resident, size_kb, page_kb = 4;

	if (s == NULL || !path_num(s, RK_COUNTERS ".region_pages", &pages) ||
	    !path_num(s, RK_COUNTERS ".resident_pages", &resident))
		return false;
	if (path_num(s, RK_COUNTERS ".region.size_kb", &size_kb) && pages > 0)
		page_kb = size_kb / pages;
	*out = floor_of((pages - resident) * page_kb / 1024);
	return true;
}

/* What the sandbox charged besides the region: memory.current at the main
 * workload's first step minus the region's Rss then (reclaim under a limit
 * stops once the shortfall is covered, so this baseline decides how much of
 * the region goes). */
static bool get_baseline(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *s = select_step(r, "first");
	double usage, rss;

	(void)f;
	if (s == NULL || !path_num(s, RK_MEMCG "." RK_USAGE_BYTES, &usage))
		return false;
	if (!path_num(s, RK_COUNTERS ".region.rss_kb", &rss) && !path_num(s, RK_COUNTERS ".region.size_kb", &rss))
		return false;
	*out = usage / 1024 - rss;
	return true;
}

enum lazy_source { SRC_NONE, SRC_MEMCG, SRC_VMSTAT };

/* pglazyfree / pglazyfreed: the memcg's memory.stat where it has the key
 * (cgroup v2), else the machine-wide /proc/vmstat delta since the run's
 * start (v1's memory.stat has no such keys).  result.md: vmstat_delta holds
 * the keys that changed, so a key absent from a present delta is 0. */
static enum lazy_source lazy_counter(const struct runref *r, const char *sel, const char *key, double *out)
{
	const json_t *s = select_step(r, sel);
	const json_t *stat = json_object_get(json_object_get(s, RK_MEMCG), RK_STAT);
	const json_t *delta = json_object_get(s, RK_VMSTAT_DELTA);

	if (json_num(json_object_get(stat, key), out))
		return SRC_MEMCG;
	if (json_is_object(delta)) {
		if (!json_num(json_object_get(delta, key), out))
			*out = 0;
		return SRC_VMSTAT;
	}
	return SRC_NONE;
}

static bool get_lazy(const struct runref *r, const struct fig *f, double *out)
{
	return lazy_counter(r, f->sel, f->path, out) != SRC_NONE;
}

static long long control_pid(const struct runref *r)
{
	const json_t *ws = json_object_get(r->run, RK_WORKLOADS);
	size_t i;

	for (i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);

		if (strcmp(str_or(json_object_get(w, RK_NAME), ""), "control") == 0 &&
		    json_is_integer(json_object_get(w, RK_PID)))
			return json_integer_value(json_object_get(w, RK_PID));
	}
	return -1;
}

static bool is_control(const json_t *entry, long long pid)
{
	const json_t *p = json_object_get(entry, "pid");

	return pid >= 0 && json_is_integer(p) && json_integer_value(p) == pid;
}

/* The positive control's entry in the host scan's top[] list. */
static const json_t *control_entry(const struct runref *r, const json_t *scan)
{
	const json_t *top = json_object_get(json_object_get(scan, RK_COUNTERS), "top");
	long long pid = control_pid(r);
	size_t i;

	for (i = 0; i < json_array_size(top); i++)
		if (is_control(json_array_get(top, i), pid))
			return json_array_get(top, i);
	return NULL;
}

static bool get_control_lazyfree(const struct runref *r, const struct fig *f, double *out)
{
	return path_num(control_entry(r, select_step(r, f->sel)), "lazyfree_kb", out);
}

/* Processes with LazyFree > 0 other than the control.  When the control is
 * not in top[] and top[] is shorter than the count, whether the control was
 * counted is unknown: missing, not a guess. */
static bool get_scan_others(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *scan = select_step(r, f->sel);
	const json_t *c = control_entry(r, scan);
	double with, lazy;

	if (!path_num(scan, RK_COUNTERS ".with_lazyfree", &with))
		return false;
	if (c != NULL) {
		*out = path_num(c, "lazyfree_kb", &lazy) && lazy > 0 ? with - 1 : with;
		return true;
	}
	if (control_pid(r) >= 0 &&
	    (double)json_array_size(json_object_get(json_object_get(scan, RK_COUNTERS), "top")) < with)
		return false;
	*out = with;
	return true;
}

/* Sum of "a+b+c" keys of a vmstat_delta object; a key absent did not change. */
static bool vm_sum(const json_t *obj, const char *keys, double *out)
{
	const json_t *d = json_object_get(obj, RK_VMSTAT_DELTA);
	char buf[160], *save = NULL, *k;
	double sum = 0, v;

	if (!json_is_object(d) || (size_t)snprintf(buf, sizeof(buf), "%s", keys) >= sizeof(buf))
		return false;
	for (k = strtok_r(buf, "+", &save); k != NULL; k = strtok_r(NULL, "+", &save))
		if (json_num(json_object_get(d, k), &v))
			sum += v;
	*out = sum;
	return true;
}

/* f->path's /proc/vmstat keys ("a+b"), from the step f->sel (the window's
 * start; none: the run's start) to the run's last sample (after the
 * workloads ended). */
static bool get_vm_window(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *samples = json_object_get(r->run, RK_SAMPLES);
	const json_t *end = json_array_get(samples, json_array_size(samples) - 1);
	const json_t *start = f->sel != NULL ? select_step(r, f->sel) : NULL;
	double a, b = 0;

	if (end == NULL || !vm_sum(end, f->path, &a) ||
	    (f->sel != NULL && (start == NULL || !vm_sum(start, f->path, &b))))
		return false;
	*out = scaled(f, a - b);
	return true;
}

/* f->path's /proc/vmstat keys ("a+b") at step f->sel, less the same keys at
 * the step `minus` names (f->sel2; without one: since the run's start) — a
 * counter's change over one step; a key absent from a delta did not change
 * (result.md), so it reads 0, never "—". */
static bool get_vm_step(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *at = select_step(r, f->sel);
	const json_t *from = f->path2 != NULL && f->sel2 != NULL ? select_step(r, f->sel2) : NULL;
	double a, b = 0;

	if (at == NULL || !vm_sum(at, f->path, &a) || (f->path2 != NULL && (from == NULL || !vm_sum(from, f->path, &b))))
		return false;
	*out = scaled(f, a - b);
	return true;
}

/* The region's huge coverage at the step: AnonHugePages over Rss, in % (the
 * article's "57-60 % of the region in huge pages"). */
static bool get_huge_pct(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *s = select_step(r, f->sel);
	double huge, rss;

	if (s == NULL || !path_num(s, RK_COUNTERS ".region.anonhuge_kb", &huge) ||
	    !path_num(s, RK_COUNTERS ".region.rss_kb", &rss) || rss <= 0)
		return false;
	*out = scaled(f, huge * 100 / rss);
	return true;
}

/* The load's pace as achieved: MiB allocated over the time from its first
 * step to the step at its target (under TCG a step takes longer than the
 * article's 50 ms pause). */
static bool get_pace_achieved(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *steps = json_object_get(r->run, RK_STEPS);
	const json_t *first = NULL, *target = NULL;
	double t1, t2, b1, b2;
	size_t i;

	(void)f;
	for (i = 0; i < json_array_size(steps); i++) {
		const json_t *s = json_array_get(steps, i);

		if (!step_is(s, "load", NULL))
			continue;
		if (first == NULL && step_is(s, "load", "alloc"))
			first = s;
		if (step_is(s, "load", "target"))
			target = s;
	}
	if (first == NULL || target == NULL || !json_num(json_object_get(first, RK_T_MS), &t1) ||
	    !json_num(json_object_get(target, RK_T_MS), &t2) ||
	    !path_num(first, RK_COUNTERS ".allocated_bytes", &b1) || !path_num(target, RK_COUNTERS ".allocated_bytes", &b2) ||
	    t2 <= t1)
		return false;
	*out = floor_of((b2 - b1) / 1048576.0 / ((t2 - t1) / 1000.0));
	return true;
}

/* Records of the run's kernel log holding f->path. */
static bool get_kmsg_count(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *k = json_object_get(r->run, RK_KMSG);
	const json_t *recs = json_object_get(k, RK_RECORDS);
	size_t i, n = 0;

	if (!json_is_true(json_object_get(k, RK_READABLE)))
		return false;
	for (i = 0; i < json_array_size(recs); i++)
		n += strstr(str_or(json_object_get(json_array_get(recs, i), RK_TEXT), ""), f->path) != NULL;
	*out = (double)n;
	return true;
}

/* ------------------------------------------------------------- labels */

static void label_outcome(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	const char *o = json_string_value(json_object_get(json_object_get(r->run, RK_EXIT), RK_OUTCOME));
	int code;

	(void)f;
	if (o == NULL) {
		snprintf(buf, len, "%s", MISSING);
	} else if (strcmp(o, "oom_killed") == 0) {
		code = main_exit_code(r);
		if (code > 0)
			snprintf(buf, len, "OOM-kill (%d)", code);
		else
			snprintf(buf, len, "OOM-kill");
	} else {
		snprintf(buf, len, "%s", strcmp(o, "completed") == 0 ? "survived" : o);
	}
}

/* Every workload's fate: "w1 passed, w2 OOM-killed, w3 stopped": a
 * worker that reported its `target` step and was not OOM-killed passed, even
 * when the harness stopped it in its hold (the main workload ended first). */
static void label_fates(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	const json_t *ws = json_object_get(json_object_get(r->run, RK_EXIT), RK_WORKLOADS);
	const json_t *steps = json_object_get(r->run, RK_STEPS);
	size_t i, k;

	(void)f;
	buf[0] = '\0';
	for (i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);
		const char *name = str_or(json_object_get(w, RK_NAME), "?");
		bool target = false;

		for (k = 0; k < json_array_size(steps) && !target; k++)
			target = step_is(json_array_get(steps, k), name, "target");
		bufcat(buf, len, "%s%s %s", i ? ", " : "", name,
		       json_is_true(json_object_get(w, RK_OOM_KILLED)) ? "OOM-killed"
		       : target ? "passed" : str_or(json_object_get(w, RK_FATE), "?"));
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "%s", MISSING);
}

/* -------------------------------------------------------------- texts */

static const char *lazy_source_name(enum lazy_source s)
{
	switch (s) {
	case SRC_MEMCG:
		return "memory.stat of the sandbox memcg";
	case SRC_VMSTAT:
		return "/proc/vmstat delta over the run (machine-wide)";
	case SRC_NONE:
		break;
	}
	return MISSING;
}

static void text_lazy_source(const struct runref *const *runs, size_t n, const struct fig *f, char *buf,
			     size_t len)
{
	enum lazy_source seen = SRC_NONE, s;
	bool mixed = false;
	double v;
	size_t i;

	for (i = 0; i < n; i++) {
		s = lazy_counter(runs[i], f->sel, f->path, &v);
		if (s == SRC_NONE)
			continue;
		mixed |= seen != SRC_NONE && s != seen;
		seen = s;
	}
	snprintf(buf, len, "%s%s", lazy_source_name(seen), mixed ? " (runs differ)" : "");
}

/* The largest LazyFree holders other than the control, from the first run
 * that scanned. */
static void text_top_others(const struct runref *const *runs, size_t n, const struct fig *f, char *buf,
			    size_t len)
{
	size_t i, k, shown = 0;

	snprintf(buf, len, "%s", MISSING);
	for (i = 0; i < n; i++) {
		const json_t *scan = select_step(runs[i], f->sel);
		const json_t *top = json_object_get(json_object_get(scan, RK_COUNTERS), "top");
		long long pid = control_pid(runs[i]);

		if (!json_is_array(top))
			continue;
		snprintf(buf, len, "none");
		for (k = 0; k < json_array_size(top) && shown < 3; k++) {
			const json_t *e = json_array_get(top, k);
			char kb[32];
			double v;

			if (is_control(e, pid) || !path_num(e, "lazyfree_kb", &v) || v <= 0)
				continue;
			fmt_num(v, true, kb, sizeof(kb));
			if (shown++ == 0)
				buf[0] = '\0';
			bufcat(buf, len, "%s%s (%lld) %s kB", shown > 1 ? "; " : "",
			       str_or(json_object_get(e, "comm"), "?"),
			       (long long)json_integer_value(json_object_get(e, "pid")), kb);
		}
		return;
	}
}

/* "stepper (adj 1000, shmem 3,763,072 kB); then hold (adj 0) +91 ms". */
static void text_victims(const struct runref *const *runs, size_t n, const struct fig *f, char *buf, size_t len)
{
	(void)f;
	snprintf(buf, len, "%s", MISSING);
	for (size_t i = 0; i < n; i++) {
		const json_t *kills = json_object_get(json_object_get(runs[i]->run, RK_KMSG), RK_OOM_KILLS);
		double t0 = 0, t = 0, shm;

		if (!json_is_array(kills))
			continue;
		if (json_array_size(kills) == 0) {
			snprintf(buf, len, "no OOM kill");
			return;
		}
		buf[0] = '\0';
		for (size_t k = 0; k < json_array_size(kills) && k < 4; k++) {
			const json_t *e = json_array_get(kills, k);
			char num[32];

			json_num(json_object_get(e, RK_T_S), &t);
			if (k == 0)
				t0 = t;
			bufcat(buf, len, "%s%s (adj %lld", k ? "; then " : "", str_or(json_object_get(e, RK_COMM), "?"),
			       (long long)json_integer_value(json_object_get(e, RK_OOM_SCORE_ADJ)));
			if (json_num(json_object_get(e, RK_SHMEM_RSS_KB), &shm) && shm > 0) {
				fmt_num(shm, true, num, sizeof(num));
				bufcat(buf, len, ", shmem-rss %s kB", num);
			}
			bufcat(buf, len, ")");
			if (k > 0)
				bufcat(buf, len, " +%.0f ms", (t - t0) * 1000.0);
		}
		if (n > 1)
			bufcat(buf, len, " [first of %zu runs]", n);
		return;
	}
}

/* A sampled free count against a line, with free's drift bound
 * (harness/result/result.md: zones[].drift, summary.lowest_free): "1,524 ±
 * 64 pages above min"; a difference within the bound is no crossing —
 * "unresolved: 12 ± 64 pages under min" — since the true count may be on
 * either side of the line.  unit "pages" or "kB". */
static void margin_text(double free_v, double line, double drift, const char *unit, const char *what, char *buf,
			size_t len)
{
	double d = free_v > line ? free_v - line : line - free_v;
	const char *v = zone_crossing((unsigned long long)free_v, (unsigned long long)line, (unsigned long long)drift);
	char a[32], b[32];

	fmt_num(d, true, a, sizeof(a));
	fmt_num(drift, true, b, sizeof(b));
	if (strcmp(v, "at") == 0)
		bufcat(buf, len, "at %s (± 0 %s)", what, unit);
	else
		bufcat(buf, len, "%s%s ± %s %s %s %s", strcmp(v, "unresolved") == 0 ? "unresolved: " : "", a, b, unit,
		       free_v < line ? "under" : "above", what);
}

/* One run's text after another's: "; ". */
static void next_run(char *buf, size_t len, bool *first)
{
	if (*first)
		buf[0] = '\0';
	else
		bufcat(buf, len, "; ");
	*first = false;
}

/* summary.lowest_free's element at path (a zone: "summary.lowest_free[
 * zone=Normal,node=0]") against its min or low line, each run's. */
static void text_lowest_vs(const struct runref *const *runs, size_t n, const struct fig *f, char *buf, size_t len,
			   const char *line)
{
	char key[16];
	bool first = true;

	snprintf(buf, len, "%s", MISSING);
	snprintf(key, sizeof(key), "%s_pages", line);
	for (size_t i = 0; i < n; i++) {
		enum walk_agg wa;
		const json_t *el = json_walk(runs[i]->run, f->path, &wa);
		double fr, ln, dr;

		if (!json_num(json_object_get(el, "free_pages"), &fr) || !json_num(json_object_get(el, key), &ln) ||
		    !json_num(json_object_get(el, "drift_pages"), &dr))
			continue;
		next_run(buf, len, &first);
		margin_text(fr, ln, dr, "pages", line, buf, len);
	}
}

static void text_lowest_vs_min(const struct runref *const *runs, size_t n, const struct fig *f, char *buf,
			       size_t len)
{
	text_lowest_vs(runs, n, f, buf, len, "min");
}

static void text_lowest_vs_low(const struct runref *const *runs, size_t n, const struct fig *f, char *buf,
			       size_t len)
{
	text_lowest_vs(runs, n, f, buf, len, "low");
}

/* The first OOM report's zone (path: "zone=Normal,node=0") free against its
 * min, in kB as the kernel printed them, with the drift bound of the run's
 * lowest sampled free of that zone (its threshold then, x online CPUs, in
 * kB of the run's pages): the report's free is the same unfolded counter
 * (mm/show_mem.c prints zone_page_state(zone, NR_FREE_PAGES)). */
static void text_oom_vs_min(const struct runref *const *runs, size_t n, const struct fig *f, char *buf,
			    size_t len)
{
	char zp[160], lp[160];
	bool first = true;

	snprintf(buf, len, "%s", MISSING);
	if (f->path == NULL)
		return;
	snprintf(zp, sizeof(zp), RK_KMSG "." RK_OOM_KILLS "[0].zones[%s]", f->path);
	snprintf(lp, sizeof(lp), "summary.lowest_free[%s]", f->path);
	for (size_t i = 0; i < n; i++) {
		enum walk_agg wa;
		const json_t *z = json_walk(runs[i]->run, zp, &wa), *l = json_walk(runs[i]->run, lp, &wa);
		double fr, mn, dr, page_kb = 4;

		if (!json_num(json_object_get(z, "free_kb"), &fr) || !json_num(json_object_get(z, "min_kb"), &mn) ||
		    !json_num(json_object_get(l, "drift_pages"), &dr))
			continue;
		{
			double ps;     /* the page size a workload reported (its start event) */

			if (path_num(runs[i]->run, RK_WORKLOADS "[0].facts.page_size", &ps) && ps > 0)
				page_kb = ps / 1024;
		}
		next_run(buf, len, &first);
		margin_text(fr, mn, dr * page_kb, "kB", "min", buf, len);
	}
}

/* A source's reads over the runs (summary.audit.sources[name=PATH],
 * harness/result/result.md): "p50 21 · p99 40 · max 95 µs · 4,010 B · read
 * +34 µs", each the median of the runs' (their max the largest); the last
 * its offset_ns p50, how long after the sample's first read it was read. */
static void text_source_reads(const struct runref *const *runs, size_t n, const struct fig *f, char *buf,
			      size_t len)
{
	static const char *const q[] = { "p50", "p99", "max" };
	double v[3][64], bytes[64], off[64], split = 0, x;
	size_t k = 0, ko = 0;
	char path[160], num[32];

	snprintf(buf, len, "%s", MISSING);
	if (f->path == NULL)
		return;
	snprintf(path, sizeof(path), "summary.audit.sources[name=%s]", f->path);
	for (size_t i = 0; i < n && k < 64; i++) {
		enum walk_agg wa;
		const json_t *s = json_walk(runs[i]->run, path, &wa);
		const json_t *rd = json_object_get(s, "read_ns");
		bool ok = s != NULL;

		for (size_t j = 0; ok && j < 3; j++)
			ok = json_num(json_object_get(rd, q[j]), &v[j][k]);
		if (!ok || !path_num(s, "bytes.mean", &bytes[k]))
			continue;
		if (json_num(json_object_get(s, "split_snapshots"), &x))
			split += x;
		if (path_num(s, "offset_ns.p50", &off[ko]))
			ko++;
		k++;
	}
	if (k == 0)
		return;
	buf[0] = '\0';
	for (size_t j = 0; j < 3; j++) {
		double m = j == 2 ? v[2][0] : median_of(v[j], k);

		for (size_t i = 1; j == 2 && i < k; i++)
			m = v[2][i] > m ? v[2][i] : m;
		fmt_num(floor_of(m / 100 + 0.5) / 10, true, num, sizeof(num));
		bufcat(buf, len, "%s%s %s", j ? " · " : "", q[j], num);
	}
	fmt_num(floor_of(median_of(bytes, k) + 0.5), true, num, sizeof(num));
	bufcat(buf, len, " µs · %s B", num);
	if (split > 0) {
		fmt_num(split, true, num, sizeof(num));
		bufcat(buf, len, " · %s split snapshots", num);
	}
	if (ko > 0) {
		fmt_num(floor_of(median_of(off, ko) / 1000 + 0.5), true, num, sizeof(num));
		bufcat(buf, len, " · read +%s µs", num);
	}
}

/* summary.audit.far over the runs: "2 of 3 runs: tick interval p50 …" (the
 * first run's words, whole); "—" when no run was far. */
static void text_far(const struct runref *const *runs, size_t n, const struct fig *f, char *buf, size_t len)
{
	const char *first = NULL;
	size_t k = 0;

	(void)f;
	snprintf(buf, len, "%s", MISSING);
	for (size_t i = 0; i < n; i++) {
		enum walk_agg wa;
		const char *far = json_string_value(json_walk(runs[i]->run, "summary.audit.far", &wa));

		if (far == NULL)
			continue;
		k++;
		if (first == NULL)
			first = far;
	}
	if (first == NULL)
		return;
	if (n > 1)
		snprintf(buf, len, "%zu of %zu runs: %s", k, n, first);
	else
		snprintf(buf, len, "%s", first);
}

/* ------------------------------------------------------------- tables */

static const struct named_get getters[] = {
	{"reclaimed_mib", get_reclaimed_mib, "mincore's reclaimed pages at the step, in whole MiB"},
	{"baseline", get_baseline, "memory.current at the first step less the region's Rss, kB"},
	{"lazy_counter", get_lazy, "memory.stat's key where it has it, else the run's /proc/vmstat delta"},
	{"control_lazyfree", get_control_lazyfree, "the host scan's entry for the positive control"},
	{"scan_others", get_scan_others, "processes with LazyFree > 0 besides the control"},
	{"vmstat_window", get_vm_window, "/proc/vmstat keys (a+b) from the step to the run's last sample"},
	{"pace_mib_s", get_pace_achieved, "MiB/s the load workload achieved from alloc to target"},
	{"vmstat_step", get_vm_step, "/proc/vmstat keys (a+b) at the step less at the minus step (absent: 0)"},
	{"huge_pct", get_huge_pct, "the region's AnonHugePages over its Rss at the step, %"},
	{"kmsg_lines", get_kmsg_count, "kernel log records of the run holding the path's text"},
};

static const struct named_label labels[] = {
	{"outcome", label_outcome, "survived | OOM-kill (137) | the run's outcome"},
	{"fates", label_fates, "every workload's fate: passed, OOM-killed, stopped"},
};

static const struct named_text texts[] = {
	{"lazy_source", text_lazy_source, "where lazy_counter read the key"},
	{"top_others", text_top_others, "the largest LazyFree holders besides the control"},
	{"victims", text_victims, "the OOM kills of the kernel log, in order"},
	{"lowest_vs_min", text_lowest_vs_min, "summary.lowest_free's element at path against min, ± its drift bound"},
	{"lowest_vs_low", text_lowest_vs_low, "the same against low"},
	{"far", text_far, "summary.audit.far: what was far from asked, and in how many of the runs"},
	{"source_reads", text_source_reads, "summary.audit.sources[name=PATH]: read p50 · p99 · max µs · bytes"},
	{"oom_vs_min", text_oom_vs_min, "the first OOM report's zone (path: zone=Z,node=N) free against min, ± drift"},
};

fig_get derived_get(const char *name)
{
	for (size_t i = 0; i < N(getters); i++)
		if (strcmp(getters[i].name, name) == 0)
			return getters[i].fn;
	return NULL;
}

fig_label derived_label(const char *name)
{
	for (size_t i = 0; i < N(labels); i++)
		if (strcmp(labels[i].name, name) == 0)
			return labels[i].fn;
	return NULL;
}

fig_text derived_text(const char *name)
{
	for (size_t i = 0; i < N(texts); i++)
		if (strcmp(texts[i].name, name) == 0)
			return texts[i].fn;
	return NULL;
}

void derived_names(char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	bufcat(buf, len, "get:");
	for (i = 0; i < N(getters); i++)
		bufcat(buf, len, " %s", getters[i].name);
	bufcat(buf, len, "; label:");
	for (i = 0; i < N(labels); i++)
		bufcat(buf, len, " %s", labels[i].name);
	bufcat(buf, len, "; text:");
	for (i = 0; i < N(texts); i++)
		bufcat(buf, len, " %s", texts[i].name);
}
