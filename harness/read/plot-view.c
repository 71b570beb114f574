/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot-view.c — a run as the charts see it, and its data file.
 *
 * Times are seconds from the run's start (t_ms / 1000).  A number the
 * result lacks is written as NaN, which gnuplot skips, so a series has
 * exactly as many points as the result has values for it.
 */
#include "plot-internal.h"

#include "result/keys.h"

const char *const plot_zone_field[ZONE_FIELDS] = { "free", "min", "low", "high", "boost" };
const char *const plot_palette[PALETTE_N] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
					      "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };
const char *const plot_col_name[C_N] = {
	"usage_mib", "rss_mib", "lazyfree_mib", "anonhuge_mib", "kswapd_scan_per_s",
	"direct_scan_per_s", "sandbox_scan_per_s", "swapout_per_s", "lazyfreed_per_s", "allocstall_total",
	"psi_some_avg10", "psi_full_avg10", "kswapd_scan_total", "direct_scan_total",
	"sandbox_psi_some_avg10", "sandbox_psi_full_avg10",
};

static int zone_index(struct run_view *rv, const json_t *z)
{
	const char *name = json_string_value(json_object_get(z, RK_ZONE));
	json_int_t node = json_integer_value(json_object_get(z, RK_NODE));
	size_t i;

	if (name == NULL)
		return -1;
	for (i = 0; i < rv->nzones; i++)
		if (rv->zones[i].node == node && strcmp(rv->zones[i].name, name) == 0)
			return (int)i;
	if (rv->nzones == ZONES_MAX)
		return -1;
	rv->zones[i].node = node;
	rv->zones[i].name = name;
	return (int)rv->nzones++;
}

/* The zone's sample object for zone i, or NULL. */
static const json_t *sample_zone(const struct run_view *rv, const json_t *s, size_t i)
{
	const json_t *zs = json_object_get(s, RK_ZONES);
	size_t k;

	for (k = 0; k < json_array_size(zs); k++) {
		const json_t *z = json_array_get(zs, k);
		const char *name = json_string_value(json_object_get(z, RK_ZONE));

		if (name != NULL && strcmp(name, rv->zones[i].name) == 0 &&
		    json_integer_value(json_object_get(z, RK_NODE)) == rv->zones[i].node)
			return z;
	}
	return NULL;
}

/* vmstat_delta holds only the keys that changed (harness/result/result.md): an
 * absent key is 0 when the sample has a vmstat_delta at all. */
static double vm_delta(const json_t *s, const char *key)
{
	const json_t *d = json_object_get(s, RK_VMSTAT_DELTA);

	if (!json_is_object(d))
		return NAN;
	return json_is_number(json_object_get(d, key)) ? json_number_value(json_object_get(d, key)) : 0;
}

static double vm_prefix_sum(const json_t *s, const char *prefix)
{
	const json_t *d = json_object_get(s, RK_VMSTAT_DELTA);
	const char *k;
	const json_t *v;
	double sum = 0;

	if (!json_is_object(d))
		return NAN;
	json_object_foreach((json_t *)d, k, v)
		if (strncmp(k, prefix, strlen(prefix)) == 0 && json_is_number(v))
			sum += json_number_value(v);
	return sum;
}

/* PSI as a sample holds it (harness/result/result.md): "psi" (the machine's,
 * /proc/pressure/memory) and "memcg_pressure" (the sandbox's own, v2
 * memory.pressure), each {"some": {"avg10": …}, "full": {…}}. */
static double psi_avg10(const json_t *s, const char *where, const char *which)
{
	char path[64];

	snprintf(path, sizeof(path), "%s.%s." RK_AVG10, where, which);
	return json_is_number(jpath(s, path)) ? json_number_value(jpath(s, path)) : NAN;
}

static double memcg_scan(const json_t *s)
{
	const json_t *st = jpath(s, RK_MEMCG "." RK_STAT);

	/* cgroup v2's memory.stat counts the sandbox's own reclaim (limit
	 * reclaim does not show in /proc/vmstat's pgscan_*: mm/vmscan.c counts
	 * vm events only when !cgroup_reclaim); v1's has no pgscan. */
	return json_is_number(json_object_get(st, "pgscan")) ? json_number_value(json_object_get(st, "pgscan"))
							     : NAN;
}

/* The columns of sample s; prev is the last sample before it that read
 * vmstat (NULL for the first). */
static void sample_cols(const struct run_view *rv, const json_t *s, const json_t *prev, double *c)
{
	const json_t *w = json_object_get(json_object_get(s, RK_WORKLOADS), rv->main != NULL ? rv->main : "");
	double dt = prev != NULL ? (num_or_nan(json_object_get(s, RK_T_MS)) -
				    num_or_nan(json_object_get(prev, RK_T_MS))) / 1000.0 : NAN;
	/* pglazyfreed is counted machine-wide even for a sandbox's own
	 * reclaim (mm/vmscan.c: shrink_folio_list), unlike pgscan_*. */
	const char *rate_key[] = { [C_KSWAPD] = "pgscan_kswapd", [C_DIRECT] = "pgscan_direct",
				   [C_SWPOUT] = "pswpout", [C_LAZYFREED] = "pglazyfreed" };

	c[C_USAGE] = num_or_nan(jpath(s, RK_MEMCG "." RK_USAGE_BYTES)) / MIB;
	c[C_RSS] = num_or_nan(json_object_get(w, RK_RSS_KB)) / 1024;
	c[C_LAZY] = num_or_nan(json_object_get(w, RK_LAZYFREE_KB)) / 1024;
	c[C_HUGE] = num_or_nan(json_object_get(w, RK_ANONHUGE_KB)) / 1024;
	for (int k = C_KSWAPD; k <= C_LAZYFREED; k++) {
		double now, before;

		if (k == C_MEMCG) {
			now = memcg_scan(s);
			before = prev != NULL ? memcg_scan(prev) : NAN;
		} else {
			now = vm_delta(s, rate_key[k]);
			before = prev != NULL ? vm_delta(prev, rate_key[k]) : NAN;
		}
		if (isnan(now))
			c[k] = NAN;
		else if (prev == NULL)
			c[k] = 0;               /* the first sample: nothing before it */
		else
			c[k] = dt > 0 && !isnan(before) ? (now - before) / dt : 0;
	}
	c[C_ALLOCSTALL] = vm_prefix_sum(s, "allocstall_");
	c[C_PSI_SOME] = psi_avg10(s, RK_PSI, RK_SOME);
	c[C_PSI_FULL] = psi_avg10(s, RK_PSI, RK_FULL);
	c[C_MPSI_SOME] = psi_avg10(s, RK_MEMCG_PRESSURE, RK_SOME);
	c[C_MPSI_FULL] = psi_avg10(s, RK_MEMCG_PRESSURE, RK_FULL);
	c[C_SCAN_KSWAPD_CUM] = vm_delta(s, "pgscan_kswapd");
	c[C_SCAN_DIRECT_CUM] = vm_delta(s, "pgscan_direct");
}

/* The events' name: "event", "name" or "type"; kswapd awake from its wake
 * and sleep events, stalls from direct / memcg reclaim begin..end. */
static const char *event_name(const json_t *e)
{
	const char *n = json_string_value(json_object_get(e, RK_EVENT));

	if (n == NULL)
		n = json_string_value(json_object_get(e, RK_NAME));
	if (n == NULL)
		n = json_string_value(json_object_get(e, RK_TYPE));
	return n != NULL ? n : "";
}

static int events_scan(struct run_view *rv, FILE *stalls)
{
	const json_t *ev = json_object_get(rv->run, RK_EVENTS);
	double awake_since = NAN, stall_since[2] = { NAN, NAN };
	size_t i, cap = 0;

	if (!json_is_array(ev))
		return 0;
	rv->has_events = true;
	for (i = 0; i < json_array_size(ev); i++) {
		const json_t *e = json_array_get(ev, i);
		const char *n = event_name(e);
		double t = num_or_nan(json_object_get(e, RK_T_MS)) / 1000.0;
		int kind = strstr(n, "memcg") != NULL;

		if (isnan(t))
			continue;
		if (strstr(n, "kswapd_wake") != NULL && isnan(awake_since)) {
			awake_since = t;
		} else if (strstr(n, "kswapd_sleep") != NULL && !isnan(awake_since)) {
			if (rv->nawake == cap) {
				struct interval *g = realloc(rv->awake, (cap = cap ? cap * 2 : 16) * sizeof(*g));

				if (g == NULL)
					return -ENOMEM;
				rv->awake = g;
			}
			rv->awake[rv->nawake++] = (struct interval){ awake_since, t };
			awake_since = NAN;
		} else if (strstr(n, "reclaim_begin") != NULL && strstr(n, "kswapd") == NULL) {
			stall_since[kind] = t;
		} else if (strstr(n, "reclaim_end") != NULL && !isnan(stall_since[kind])) {
			fprintf(stalls, "%.10g\t%.10g\t", stall_since[kind], (t - stall_since[kind]) * 1000);
			dat_str(stalls, kind ? "memcg reclaim" : "direct reclaim");
			fputc('\n', stalls);
			rv->nstalls++;
			stall_since[kind] = NAN;
		}
	}
	if (!isnan(awake_since) && rv->nawake < cap + 1) {
		/* Still awake at the run's end. */
		struct interval *g = realloc(rv->awake, (rv->nawake + 1) * sizeof(*g));

		if (g == NULL)
			return -ENOMEM;
		rv->awake = g;
		rv->awake[rv->nawake++] = (struct interval){ awake_since, rv->duration_s };
	}
	return 0;
}

static void variant_text(const json_t *run, char *buf, size_t len)
{
	const json_t *v = json_object_get(run, RK_VARIANT);
	const char *k;
	const json_t *x;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)v, k, x) {
		const char *s = json_string_value(x);
		char n[32];

		if (s == NULL && json_is_number(x)) {
			snprintf(n, sizeof(n), "%g", json_number_value(x));
			s = n;
		}
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", k, s ? s : "?");
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "default");
}

static const char *main_workload(const json_t *run)
{
	const json_t *ws = json_object_get(run, RK_WORKLOADS);
	size_t n = json_array_size(ws);

	return n > 0 ? json_string_value(json_object_get(json_array_get(ws, n - 1), RK_NAME)) : NULL;
}

/* Usage at time t: the last sample at or before it. */
static double usage_at(const json_t *samples, double t_ms)
{
	double u = NAN;

	for (size_t i = 0; i < json_array_size(samples); i++) {
		const json_t *s = json_array_get(samples, i);

		if (num_or_nan(json_object_get(s, RK_T_MS)) > t_ms)
			break;
		if (json_is_number(jpath(s, RK_MEMCG "." RK_USAGE_BYTES)))
			u = json_number_value(jpath(s, RK_MEMCG "." RK_USAGE_BYTES)) / MIB;
	}
	return u;
}

/* When an OOM victim died: the tracepoint's time (summary.trace.oom_victims,
 * oom:mark_victim) where the run was traced, else when the harness saw the
 * workload end.  NAN when neither is known. */
double plot_victim_ms(const json_t *run, const json_t *w)
{
	const json_t *v = jpath(run, RK_SUMMARY "." RK_TRACE "." RK_OOM_VICTIMS);
	json_int_t pid = json_integer_value(json_object_get(w, RK_PID));

	for (size_t i = 0; i < json_array_size(v); i++)
		if (json_integer_value(json_object_get(json_array_get(v, i), RK_PID)) == pid &&
		    json_is_number(json_object_get(json_array_get(v, i), RK_T_MS)))
			return json_number_value(json_object_get(json_array_get(v, i), RK_T_MS));
	return num_or_nan(json_object_get(w, RK_ENDED_MS));
}

/* Write the data file: index 0 the samples, 1 the steps, 2 the OOM kills,
 * 3 the reclaim stalls (raw begin/end events), 4 the trace bins.  Every block has at least one row (NaN when empty)
 * so the index numbers hold. */
/* ------------------------------------------------------------ the view */

/* A run label in a file name: only characters safe there and in a gnuplot
 * string. */
static void label_safe(const char *s, char *buf, size_t len)
{
	size_t k = 0;

	for (; s != NULL && *s && k + 1 < len; s++)
		buf[k++] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *s) ? *s : '_');
	buf[k] = '\0';
}

void plot_view_init(struct run_view *rv, const json_t *doc, const json_t *run, const char *stem)
{
	const json_t *sb = json_object_get(run, RK_SANDBOX);
	const json_t *ws = json_object_get(run, RK_WORKLOADS);
	double mx = num_or_nan(json_object_get(sb, RK_MEMORY_MAX_BYTES));
	double hi = num_or_nan(json_object_get(sb, RK_MEMORY_HIGH_BYTES));
	double ps = num_or_nan(jpath(json_array_get(ws, json_array_size(ws) - 1), RK_FACTS ".page_size"));
	char lab[24];

	(void)doc;
	memset(rv, 0, sizeof(*rv));
	rv->run = run;
	rv->label = jstr(run, RK_LABEL, "?");
	rv->repeat = json_integer_value(json_object_get(run, RK_REPEAT));
	label_safe(rv->label, lab, sizeof(lab));
	snprintf(rv->stem, sizeof(rv->stem), "%s-%s%lld", stem, lab, (long long)(rv->repeat ? rv->repeat : 1));
	variant_text(run, rv->variant, sizeof(rv->variant));
	rv->main = main_workload(run);
	rv->duration_s = num_or_nan(jpath(run, RK_SUMMARY "." RK_DURATION_MS)) / 1000.0;
	if (isnan(rv->duration_s)) {
		const json_t *ss = json_object_get(run, RK_SAMPLES);

		rv->duration_s = num_or_nan(json_object_get(json_array_get(ss, json_array_size(ss) - 1), RK_T_MS)) / 1000.0;
	}
	if (isnan(rv->duration_s))
		rv->duration_s = 1;
	/* memory.max "max" (unlimited) is recorded as a huge number or
	 * absent: a line only for a real limit. */
	rv->max_mib = !isnan(mx) && mx > 0 && mx < 1e18 ? mx / MIB : NAN;
	rv->high_mib = !isnan(hi) && hi > 0 && hi < 1e18 ? hi / MIB : NAN;
	rv->page_kb = !isnan(ps) && ps > 0 ? ps / 1024 : 4;
}

void plot_view_free(struct run_view *rv)
{
	free(rv->awake);
	rv->awake = NULL;
}

/* ------------------------------------------------------------ data file */

/* The zones drawn (those with managed pages in some sample), titled by name
 * ("N1 Normal" when the run has more than one node). */
static void find_zones(struct run_view *rv, const json_t *samples)
{
	bool multi = false;
	size_t i, z, k;

	for (i = 0; i < json_array_size(samples); i++) {
		const json_t *zs = json_object_get(json_array_get(samples, i), RK_ZONES);

		for (k = 0; k < json_array_size(zs); k++) {
			const json_t *zo = json_array_get(zs, k);
			double managed = num_or_nan(json_object_get(zo, RK_MANAGED));

			/* An empty zone (Movable, Device) has no lines to show. */
			if (!isnan(managed) && managed > 0)
				zone_index(rv, zo);
		}
	}
	for (k = 0; k < rv->nzones; k++)
		multi |= rv->zones[k].node != rv->zones[0].node;
	for (z = 0; z < rv->nzones; z++) {
		struct zkey *zk = &rv->zones[z];

		if (multi)
			snprintf(zk->title, sizeof(zk->title), "N%lld %s", (long long)zk->node, zk->name);
		else
			snprintf(zk->title, sizeof(zk->title), "%s", zk->name);
	}
}

/* One sample's row: t, each zone's five fields, the columns. */
static void sample_row(struct run_view *rv, FILE *d, const json_t *s, const json_t *prev_vm)
{
	double c[C_N];
	size_t z, k;

	fprintf(d, "%.10g", num_or_nan(json_object_get(s, RK_T_MS)) / 1000.0);
	for (z = 0; z < rv->nzones; z++) {
		const json_t *zo = sample_zone(rv, s, z);
		struct zkey *zk = &rv->zones[z];

		for (k = 0; k < ZONE_FIELDS; k++) {
			double v = num_or_nan(json_object_get(zo, plot_zone_field[k]));

			dat_num(d, v);
			if (isnan(v))
				continue;
			if (!zk->seen[k] || v < zk->lo[k])
				zk->lo[k] = v;
			if (!zk->seen[k] || v > zk->hi[k])
				zk->hi[k] = v;
			zk->seen[k] = true;
			zk->nfree += k == 0;
		}
	}
	sample_cols(rv, s, prev_vm, c);
	for (k = 0; k < C_N; k++) {
		dat_num(d, c[k]);
		rv->have[k] += !isnan(c[k]);
		if (!isnan(c[k]) && c[k] > rv->maxv[k])
			rv->maxv[k] = c[k];
	}
	fputc('\n', d);
}

/* A column's name in the data file's header comment: a zone's name is the
 * document's, so only letters, digits and . _ - pass (a newline would end
 * the comment and start a row). */
static void column_word(FILE *d, const char *s)
{
	for (; *s; s++)
		fputc(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s) ? *s : '_', d);
}

/* Index 0: the samples, after a header naming the columns. */
static void write_samples(struct run_view *rv, FILE *d)
{
	const json_t *samples = json_object_get(rv->run, RK_SAMPLES);
	const json_t *prev_vm = NULL;
	size_t i, z, k;

	rv->nsamples = json_array_size(samples);
	find_zones(rv, samples);
	fprintf(d, "# pagelab plot data: index 0 samples, 1 steps, 2 OOM kills, 3 reclaim stalls, 4 trace bins, "
		   "5 loads\n# t_s");
	for (z = 0; z < rv->nzones; z++)
		for (k = 0; k < ZONE_FIELDS; k++) {
			fputc('\t', d);
			column_word(d, rv->zones[z].title);
			fprintf(d, "_%s", plot_zone_field[k]);
		}
	for (k = 0; k < C_N; k++)
		fprintf(d, "\t%s", plot_col_name[k]);
	fputc('\n', d);
	for (i = 0; i < rv->nsamples; i++) {
		const json_t *s = json_array_get(samples, i);

		/* Rates from the previous sample that read vmstat: a burst
		 * sample holds only the zones (harness/result/result.md). */
		sample_row(rv, d, s, prev_vm);
		if (json_is_object(json_object_get(s, RK_VMSTAT_DELTA)))
			prev_vm = s;
	}
	if (rv->nsamples == 0)
		fputs("NaN\n", d);
}

/* The name a step is marked with: "step", or "workload:step" for a
 * workload other than the main one. */
void plot_step_label(const struct run_view *rv, const json_t *st, char *buf, size_t len)
{
	const char *w = jstr(st, RK_WORKLOAD, "");
	bool other = rv->main != NULL && strcmp(w, rv->main) != 0;

	snprintf(buf, len, "%s%s%s", other ? w : "", other ? ":" : "", jstr(st, RK_STEP, "?"));
}

/* Index 1: the steps, with the main workload's resident pages. */
static void write_steps(struct run_view *rv, FILE *d)
{
	const json_t *steps = json_object_get(rv->run, RK_STEPS);

	fputs("\n\n# steps: t_s resident_mib label\n", d);
	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i);
		const char *w = jstr(st, RK_WORKLOAD, "");
		double t = num_or_nan(json_object_get(st, RK_T_MS)) / 1000.0;
		double res = num_or_nan(jpath(st, RK_COUNTERS ".resident_pages"));
		char label[96];

		if (isnan(t))
			continue;
		if (rv->main != NULL && strcmp(w, rv->main) != 0)
			res = NAN;              /* resident pages: the main workload's region */
		plot_step_label(rv, st, label, sizeof(label));
		fprintf(d, "%.10g", t);
		dat_num(d, isnan(res) ? NAN : res * rv->page_kb / 1024);
		fputc('\t', d);
		dat_str(d, label);
		fputc('\n', d);
		rv->nsteps++;
		rv->nres += !isnan(res);
	}
	if (rv->nsteps == 0)
		fputs("NaN\tNaN\t\"\"\n", d);
}

/* Index 2: the OOM kills, at the usage of their time, with the victim. */
static void write_ooms(struct run_view *rv, FILE *d)
{
	const json_t *samples = json_object_get(rv->run, RK_SAMPLES);
	const json_t *ws = json_object_get(jpath(rv->run, RK_EXIT), RK_WORKLOADS);

	fputs("\n\n# OOM kills: t_s usage_mib victim\n", d);
	for (size_t i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);
		double t = plot_victim_ms(rv->run, w);
		char v[96];

		if (!json_is_true(json_object_get(w, RK_OOM_KILLED)))
			continue;
		fprintf(d, "%.10g", isnan(t) ? rv->duration_s : t / 1000.0);
		dat_num(d, usage_at(samples, isnan(t) ? INFINITY : t));
		fputc('\t', d);
		snprintf(v, sizeof(v), "OOM: %s", jstr(w, RK_NAME, "?"));
		dat_str(d, v);
		fputc('\n', d);
		rv->nooms++;
	}
	if (rv->nooms == 0)
		fputs("NaN\tNaN\t\"\"\n", d);
}

/* Index 4: the high-rate tracepoints added up per bin (trace_intervals):
 * the pages each kind of stall reclaimed per second, and the stalls. */
static void write_bins(struct run_view *rv, FILE *d)
{
	const json_t *bins = json_object_get(rv->run, RK_TRACE_INTERVALS);

	fputs("\n\n# trace bins: t_mid_s direct_pages_per_s memcg_pages_per_s stalls width_s\n", d);
	for (size_t i = 0; i < json_array_size(bins); i++) {
		const json_t *b = json_array_get(bins, i);
		double t = num_or_nan(json_object_get(b, RK_T_MS)), ms = num_or_nan(json_object_get(b, RK_MS));
		double dp = num_or_nan(jpath(b, RK_DIRECT "." RK_PAGES)), mp = num_or_nan(jpath(b, RK_MEMCG "." RK_PAGES));
		double n = 0, end;

		if (isnan(t) || isnan(ms) || ms <= 0)
			continue;
		n += json_is_number(jpath(b, RK_DIRECT "." RK_COUNT)) ? json_number_value(jpath(b, RK_DIRECT "." RK_COUNT)) : 0;
		n += json_is_number(jpath(b, RK_MEMCG "." RK_COUNT)) ? json_number_value(jpath(b, RK_MEMCG "." RK_COUNT)) : 0;
		/* The bin's middle, within the run: the last bin ends after it. */
		end = fmin(t + ms, rv->duration_s * 1000);
		fprintf(d, "%.10g", (t + end) / 2 / 1000.0);
		dat_num(d, isnan(dp) ? 0 : dp / ms * 1000);
		dat_num(d, isnan(mp) ? 0 : mp / ms * 1000);
		dat_num(d, n);
		dat_num(d, (end - t) / 1000.0);
		fputc('\n', d);
		rv->nbins++;
		rv->bin_stalls += n > 0;
		rv->bins_max = fmax(rv->bins_max, fmax(isnan(dp) ? 0 : dp / ms * 1000, isnan(mp) ? 0 : mp / ms * 1000));
	}
	if (rv->nbins == 0)
		fputs("NaN\tNaN\tNaN\tNaN\tNaN\n", d);
}

/* A load's headline figure: its first metric that is better higher (a
 * throughput), else its first; NULL when it has none. */
static const char *load_headline(const json_t *load, double *v, const char **unit)
{
	const json_t *ms = json_object_get(load, RK_METRICS);
	const char *k, *first = NULL;
	json_t *m;

	json_object_foreach((json_t *)ms, k, m) {
		if (first == NULL)
			first = k;
		if (strcmp(jstr(m, "better", ""), "higher") == 0) {
			first = k;
			break;
		}
	}
	if (first == NULL)
		return NULL;
	*v = num_or_nan(jpath(json_object_get(ms, first), "value"));
	*unit = jstr(json_object_get(ms, first), "unit", "");
	return first;
}

/* Index 5: the loads (runs[].loads), each from its start to its end at its
 * headline figure, with whether it is a result. */
static void write_loads(struct run_view *rv, FILE *d)
{
	const json_t *loads = json_object_get(rv->run, RK_LOADS);

	fputs("\n\n# loads: t_mid_s value t_start_s t_end_s valid label\n", d);
	for (size_t i = 0; i < json_array_size(loads); i++) {
		const json_t *l = json_array_get(loads, i);
		double t0 = num_or_nan(json_object_get(l, "started_ms")) / 1000.0;
		double t1 = num_or_nan(json_object_get(l, "ended_ms")) / 1000.0, v = NAN;
		const char *unit = "", *m = load_headline(l, &v, &unit);
		bool valid = json_is_true(json_object_get(l, "valid"));
		char label[200];

		if (isnan(t0) || isnan(t1))
			continue;
		if (m != NULL)
			snprintf(label, sizeof(label), "%s: %s%s%s%s%s", jstr(l, "name", "?"), m, unit[0] ? " (" : "", unit,
				 unit[0] ? ")" : "", valid ? "" : ", no result");
		else
			snprintf(label, sizeof(label), "%s: %s", jstr(l, "name", "?"), valid ? "no metric" : "no result");
		fprintf(d, "%.10g", (t0 + t1) / 2);
		dat_num(d, valid ? v : NAN);
		dat_num(d, t0);
		dat_num(d, t1);
		dat_num(d, valid ? 1 : 0);
		fputc('\t', d);
		dat_str(d, label);
		fputc('\n', d);
		rv->nloads++;
		rv->nload_values += valid && !isnan(v);
	}
	if (rv->nloads == 0)
		fputs("NaN\tNaN\tNaN\tNaN\tNaN\t\"\"\n", d);
}

/* Every block has at least one row (NaN when empty) so the index numbers
 * hold.  Index 3, the reclaim stalls, comes from the raw begin/end events. */
int plot_write_data(struct run_view *rv, FILE *d)
{
	struct text stalls;
	int ret;

	if (text_open(&stalls) < 0)
		return -ENOMEM;
	write_samples(rv, d);
	write_steps(rv, d);
	write_ooms(rv, d);
	fputs("\n\n# reclaim stalls: t_s duration_ms kind\n", d);
	ret = events_scan(rv, stalls.f);
	if (ret == 0 && text_close(&stalls) == 0 && stalls.len > 0)
		fwrite(stalls.buf, 1, stalls.len, d);
	if (rv->nstalls == 0)
		fputs("NaN\tNaN\t\"\"\n", d);
	text_free(&stalls);
	write_bins(rv, d);
	write_loads(rv, d);
	return ret;
}
