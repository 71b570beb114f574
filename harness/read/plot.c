/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.c — `pagelab plot` (harness/read/plot.h): data files and gnuplot scripts
 * from result documents (harness/result/result.md), drawn by gnuplot.
 *
 * pagelab draws nothing itself: it lays the figures out as columns of a data
 * file, writes a script naming each series, and runs gnuplot.  Times are
 * seconds from the run's start (t_ms / 1000).  A number the result lacks is
 * written as NaN, which gnuplot skips, so a series has exactly as many points
 * as the result has values for it.
 */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "cmd/exitcode.h"
#include "result/keys.h"
#include "result/read.h"

#define RESULT_SCHEMA RESULT_SCHEMA_ID
#define MIB (1024.0 * 1024.0)
#define ZONES_MAX 8
#define ZONE_FIELDS 5                   /* free min low high boost */
#define EXIT_INTERNAL LAB_EXIT_HARNESS
#define EXIT_BAD_INPUT LAB_EXIT_USAGE
#define EXIT_CANNOT LAB_EXIT_CANNOT

static const char *const zone_field[ZONE_FIELDS] = { "free", "min", "low", "high", "boost" };
/* One colour per zone and per variant, in order. */
static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
				       "#ff7f0e", "#8c564b", "#e377c2", "#17becf" };
#define PALETTE_N (sizeof(palette) / sizeof(palette[0]))

/* ------------------------------------------------------------ text out */

/* A growing text buffer (open_memstream); fprintf-style appends. */
struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static int text_open(struct text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->f = open_memstream(&t->buf, &t->len);
	return t->f != NULL ? 0 : -errno;
}

static int text_close(struct text *t)
{
	int bad = t->f == NULL || ferror(t->f);

	if (t->f != NULL && fclose(t->f) != 0)
		bad = 1;
	t->f = NULL;
	return bad ? -ENOMEM : 0;
}

static void text_free(struct text *t)
{
	if (t->f != NULL)
		fclose(t->f);
	free(t->buf);
	t->buf = NULL;
	t->f = NULL;
}

/* A gnuplot single-quoted string: '' is a quote; control characters would
 * end the command, so they become spaces. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s != NULL && *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else if ((unsigned char)*s < 0x20)
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* A data-file string: double-quoted, tab-separated columns. */
static void dat_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s; s++)
		fputc(*s == '"' || (unsigned char)*s < 0x20 ? '\'' : *s, f);
	fputc('"', f);
}

static void dat_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\tNaN", f);
	else
		fprintf(f, "\t%.10g", v);
}

/* ------------------------------------------------------------ json */

static bool num(const json_t *j, double *out)
{
	if (!json_is_number(j))
		return false;
	*out = json_number_value(j);
	return true;
}

static double num_or_nan(const json_t *j)
{
	double v;

	return num(j, &v) ? v : NAN;
}

static const json_t *jpath(const json_t *j, const char *path)
{
	char key[64];

	while (j != NULL && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		j = json_object_get(j, key);
		path += n + (path[n] == '.');
	}
	return j;
}

static const char *jstr(const json_t *j, const char *path, const char *dflt)
{
	const char *s = json_string_value(jpath(j, path));

	return s != NULL ? s : dflt;
}

/* ------------------------------------------------------------ a run */

struct zkey {
	json_int_t node;
	char name[24];
	char title[40];                 /* "Normal" or "N1 Normal" */
	double lo[ZONE_FIELDS], hi[ZONE_FIELDS];
	bool seen[ZONE_FIELDS];
	size_t nfree;                   /* samples with a free value */
};

/* Columns after t and the zones' 5 each. */
enum {
	C_USAGE, C_RSS, C_LAZY, C_HUGE, C_KSWAPD, C_DIRECT, C_MEMCG, C_SWPOUT, C_LAZYFREED, C_ALLOCSTALL,
	C_PSI_SOME, C_PSI_FULL, C_SCAN_KSWAPD_CUM, C_SCAN_DIRECT_CUM, C_MPSI_SOME, C_MPSI_FULL, C_N
};
static const char *const col_name[C_N] = {
	"usage_mib", "rss_mib", "lazyfree_mib", "anonhuge_mib", "kswapd_scan_per_s",
	"direct_scan_per_s", "sandbox_scan_per_s", "swapout_per_s", "lazyfreed_per_s", "allocstall_total",
	"psi_some_avg10", "psi_full_avg10", "kswapd_scan_total", "direct_scan_total",
	"sandbox_psi_some_avg10", "sandbox_psi_full_avg10",
};

struct interval {
	double t0, t1;
};

struct run_view {
	const json_t *run;
	const char *label;
	json_int_t repeat;
	char stem[PATH_MAX];            /* STEM-A1 */
	char variant[256];              /* "thp=off wsf=10" or "default" */
	const char *main;               /* the main workload's name */
	double duration_s;
	size_t nsamples;
	struct zkey zones[ZONES_MAX];
	size_t nzones;
	size_t have[C_N];               /* samples with a value in that column */
	double maxv[C_N];               /* their largest (0 when none) */
	size_t nsteps, nres;            /* steps marked; steps with resident pages */
	size_t nooms;
	size_t nstalls;                 /* stalls from raw begin/end events */
	size_t nbins, bin_stalls;       /* trace_intervals bins; those with stalls */
	double bins_max;                /* their largest pages/s */
	struct interval *awake;         /* kswapd awake, from the events */
	size_t nawake;
	bool has_events;
	double max_mib, high_mib;       /* sandbox memory.max / memory.high, NAN = none */
	double page_kb;
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
	snprintf(rv->zones[i].name, sizeof(rv->zones[i].name), "%s", name);
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
static double victim_ms(const json_t *run, const json_t *w)
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
static int write_data(struct run_view *rv, struct text *d)
{
	const json_t *samples = json_object_get(rv->run, RK_SAMPLES);
	const json_t *steps = json_object_get(rv->run, RK_STEPS);
	const json_t *ws = json_object_get(jpath(rv->run, RK_EXIT), RK_WORKLOADS);
	struct text stalls;
	size_t i, z, k;
	int ret;

	if (text_open(&stalls) < 0)
		return -ENOMEM;
	rv->nsamples = json_array_size(samples);
	for (i = 0; i < rv->nsamples; i++) {
		const json_t *zs = json_object_get(json_array_get(samples, i), RK_ZONES);

		for (k = 0; k < json_array_size(zs); k++) {
			const json_t *zo = json_array_get(zs, k);
			double managed = num_or_nan(json_object_get(zo, RK_MANAGED));

			/* An empty zone (Movable, Device) has no lines to show. */
			if (!isnan(managed) && managed > 0)
				zone_index(rv, zo);
		}
	}
	for (z = 0; z < rv->nzones; z++) {
		struct zkey *zk = &rv->zones[z];
		char name[sizeof(zk->name)];
		bool multi = false;

		for (k = 0; k < rv->nzones; k++)
			multi |= rv->zones[k].node != rv->zones[0].node;
		memcpy(name, zk->name, sizeof(name));
		if (multi)
			snprintf(zk->title, sizeof(zk->title), "N%lld %s", (long long)zk->node, name);
		else
			snprintf(zk->title, sizeof(zk->title), "%s", name);
	}

	const json_t *prev_vm = NULL;

	fprintf(d->f, "# pagelab plot data: index 0 samples, 1 steps, 2 OOM kills, 3 reclaim stalls, 4 trace bins\n# t_s");
	for (z = 0; z < rv->nzones; z++)
		for (k = 0; k < ZONE_FIELDS; k++)
			fprintf(d->f, "\t%s_%s", rv->zones[z].title, zone_field[k]);
	for (k = 0; k < C_N; k++)
		fprintf(d->f, "\t%s", col_name[k]);
	fputc('\n', d->f);
	for (i = 0; i < rv->nsamples; i++) {
		const json_t *s = json_array_get(samples, i);
		double c[C_N];

		fprintf(d->f, "%.10g", num_or_nan(json_object_get(s, RK_T_MS)) / 1000.0);
		for (z = 0; z < rv->nzones; z++) {
			const json_t *zo = sample_zone(rv, s, z);
			struct zkey *zk = &rv->zones[z];

			for (k = 0; k < ZONE_FIELDS; k++) {
				double v = num_or_nan(json_object_get(zo, zone_field[k]));

				dat_num(d->f, v);
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
		/* Rates from the previous sample that read vmstat: a burst
		 * sample holds only the zones (harness/result/result.md). */
		sample_cols(rv, s, prev_vm, c);
		if (json_is_object(json_object_get(s, RK_VMSTAT_DELTA)))
			prev_vm = s;
		for (k = 0; k < C_N; k++) {
			dat_num(d->f, c[k]);
			rv->have[k] += !isnan(c[k]);
			if (!isnan(c[k]) && c[k] > rv->maxv[k])
				rv->maxv[k] = c[k];
		}
		fputc('\n', d->f);
	}
	if (rv->nsamples == 0)
		fputs("NaN\n", d->f);

	fputs("\n\n# steps: t_s resident_mib label\n", d->f);
	for (i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i);
		const char *w = jstr(st, RK_WORKLOAD, "");
		double t = num_or_nan(json_object_get(st, RK_T_MS)) / 1000.0;
		double res = num_or_nan(jpath(st, RK_COUNTERS ".resident_pages"));
		char label[96];

		if (isnan(t))
			continue;
		if (rv->main != NULL && strcmp(w, rv->main) != 0)
			res = NAN;              /* resident pages: the main workload's region */
		snprintf(label, sizeof(label), "%s%s%s", rv->main != NULL && strcmp(w, rv->main) ? w : "",
			 rv->main != NULL && strcmp(w, rv->main) ? ":" : "", jstr(st, RK_STEP, "?"));
		fprintf(d->f, "%.10g", t);
		dat_num(d->f, isnan(res) ? NAN : res * rv->page_kb / 1024);
		fputc('\t', d->f);
		dat_str(d->f, label);
		fputc('\n', d->f);
		rv->nsteps++;
		rv->nres += !isnan(res);
	}
	if (rv->nsteps == 0)
		fputs("NaN\tNaN\t\"\"\n", d->f);

	fputs("\n\n# OOM kills: t_s usage_mib victim\n", d->f);
	for (i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);
		double t = victim_ms(rv->run, w);

		if (!json_is_true(json_object_get(w, RK_OOM_KILLED)))
			continue;
		fprintf(d->f, "%.10g", isnan(t) ? rv->duration_s : t / 1000.0);
		dat_num(d->f, usage_at(samples, isnan(t) ? INFINITY : t));
		fputc('\t', d->f);
		{
			char v[96];

			snprintf(v, sizeof(v), "OOM: %s", jstr(w, RK_NAME, "?"));
			dat_str(d->f, v);
		}
		fputc('\n', d->f);
		rv->nooms++;
	}
	if (rv->nooms == 0)
		fputs("NaN\tNaN\t\"\"\n", d->f);

	fputs("\n\n# reclaim stalls: t_s duration_ms kind\n", d->f);
	ret = events_scan(rv, stalls.f);
	if (ret == 0 && text_close(&stalls) == 0 && stalls.len > 0)
		fwrite(stalls.buf, 1, stalls.len, d->f);
	if (rv->nstalls == 0)
		fputs("NaN\tNaN\t\"\"\n", d->f);
	text_free(&stalls);

	/* The high-rate tracepoints, added up per bin (trace_intervals): the
	 * pages each kind of stall reclaimed per second, and the stalls. */
	fputs("\n\n# trace bins: t_mid_s direct_pages_per_s memcg_pages_per_s stalls width_s\n", d->f);
	{
		const json_t *bins = json_object_get(rv->run, RK_TRACE_INTERVALS);

		for (i = 0; i < json_array_size(bins); i++) {
			const json_t *b = json_array_get(bins, i);
			double t = num_or_nan(json_object_get(b, RK_T_MS)), ms = num_or_nan(json_object_get(b, RK_MS));
			double dp = num_or_nan(jpath(b, RK_DIRECT "." RK_PAGES)), mp = num_or_nan(jpath(b, RK_MEMCG "." RK_PAGES));
			double n = 0;

			if (isnan(t) || isnan(ms) || ms <= 0)
				continue;
			n += json_is_number(jpath(b, RK_DIRECT "." RK_COUNT)) ? json_number_value(jpath(b, RK_DIRECT "." RK_COUNT)) : 0;
			n += json_is_number(jpath(b, RK_MEMCG "." RK_COUNT)) ? json_number_value(jpath(b, RK_MEMCG "." RK_COUNT)) : 0;
			/* The bin's middle, within the run: the last bin ends
			 * after it. */
			fprintf(d->f, "%.10g", (t + fmin(t + ms, rv->duration_s * 1000)) / 2 / 1000.0);
			dat_num(d->f, isnan(dp) ? 0 : dp / ms * 1000);
			dat_num(d->f, isnan(mp) ? 0 : mp / ms * 1000);
			dat_num(d->f, n);
			dat_num(d->f, (fmin(t + ms, rv->duration_s * 1000) - t) / 1000.0);
			fputc('\n', d->f);
			rv->nbins++;
			rv->bin_stalls += n > 0;
			rv->bins_max = fmax(rv->bins_max, fmax(isnan(dp) ? 0 : dp / ms * 1000, isnan(mp) ? 0 : mp / ms * 1000));
		}
		if (rv->nbins == 0)
			fputs("NaN\tNaN\tNaN\tNaN\tNaN\n", d->f);
	}
	return ret;
}

/* ------------------------------------------------------------ script */

static void gp_terminal(FILE *f, const struct plot_opts *o, int w, int h, const char *out)
{
	if (o->format == PLOT_PNG)
		fprintf(f, "set terminal pngcairo size %d,%d font 'DejaVu Sans,9' noenhanced background rgb 'white'\n",
			w, h);
	else
		fprintf(f, "set terminal svg size %d,%d font 'DejaVu Sans,9' noenhanced background rgb 'white'\n",
			w, h);
	fputs("set output ", f);
	gp_str(f, out);
	fputs("\nset datafile separator '\\t'\nset datafile missing 'NaN'\n", f);
}

/* A panel the result has no figure for: its title and a sentence instead
 * of an axis. */
static void gp_missing(FILE *f, const char *title, const char *why)
{
	fputs("set title ", f);
	gp_str(f, title);
	fputs("\nunset arrow; unset object; unset ylabel; unset xlabel\n"
	      "unset border; unset xtics; unset ytics; unset y2tics; unset grid; set key off\n"
	      "set yrange [0:1]\nset label 99 ", f);
	gp_str(f, why);
	fputs(" at graph 0.5, graph 0.5 center font ',11' tc rgb '#a00000'\n"
	      "plot 2 notitle\n"
	      "unset label 99; set border; set xtics; set ytics; set grid ytics; set key on; set autoscale y\n", f);
}

static const char *chart_ext(const struct plot_opts *o)
{
	return o->format == PLOT_PNG ? "png" : "svg";
}

static void range_text(const struct zkey *z, int k, char *buf, size_t len)
{
	if (z->lo[k] == z->hi[k])
		snprintf(buf, len, "%.0f", z->lo[k]);
	else
		snprintf(buf, len, "%.0f..%.0f", z->lo[k], z->hi[k]);
}

/* Steps on every panel; OOM kills as red lines; kswapd awake shaded.
 * Set again before each panel that draws (a "missing" panel clears them). */
static void gp_marks(const struct run_view *rv, FILE *f)
{
	size_t i;

	fputs("set autoscale y; set autoscale y2\n", f);      /* each panel sets its own range */

	{
		const json_t *steps = json_object_get(rv->run, RK_STEPS);
		int a = 1;

		for (i = 0; i < json_array_size(steps); i++) {
			double t = num_or_nan(json_object_get(json_array_get(steps, i), RK_T_MS)) / 1000.0;

			if (!isnan(t))
				fprintf(f, "set arrow %d from %.10g, graph 0 to %.10g, graph 1 nohead dt 3 lc rgb '#909090' back\n",
					a++, t, t);
		}
		for (i = 0; i < rv->nawake; i++)
			fprintf(f, "set object %zu rect from %.10g, graph 0 to %.10g, graph 1 behind fc rgb '#9ecae1' fs transparent solid 0.35 noborder\n",
				i + 1, rv->awake[i].t0, rv->awake[i].t1);
	}
	{
		const json_t *ws = json_object_get(jpath(rv->run, RK_EXIT), RK_WORKLOADS);
		int a = 5000;

		for (i = 0; i < json_array_size(ws); i++) {
			const json_t *w = json_array_get(ws, i);
			double t = victim_ms(rv->run, w) / 1000.0;

			if (json_is_true(json_object_get(w, RK_OOM_KILLED)) && !isnan(t))
				fprintf(f, "set arrow %d from %.10g, graph 0 to %.10g, graph 1 nohead lw 1.5 lc rgb '#d00000' front\n",
					a++, t, t);
		}
	}

}

static void write_script(const struct run_view *rv, const struct plot_opts *o, const char *title,
			 const char *kernel, FILE *f)
{
	char dat[PATH_MAX + 8], out[PATH_MAX + 8];
	const char *sep;
	size_t z, i;
	int panels = 5;

	snprintf(dat, sizeof(dat), "%s.dat", rv->stem);
	snprintf(out, sizeof(out), "%s.%s", rv->stem, chart_ext(o));
	fprintf(f, "# pagelab plot: %s\n# redraw: gnuplot %s.gp (in this directory)\n", title, rv->stem);
	gp_terminal(f, o, 980, 1320, out);
	fputs("data = ", f);
	gp_str(f, dat);
	fprintf(f, "\nset multiplot layout %d,1 title ", panels);
	gp_str(f, title);
	fputs(" font ',10'\n"
	      "set lmargin 11; set rmargin 38; set tmargin 3; set bmargin 2\n"
	      "set key outside right top Left reverse samplen 2 spacing 1.1 font ',8'\n"
	      "set grid ytics lc rgb '#e0e0e0'\nset ytics nomirror\n"
	      "set style fill transparent solid 0.35 noborder\n", f);
	fprintf(f, "set xrange [0:%.10g]\n", rv->duration_s > 0 ? rv->duration_s : 1);
	(void)kernel;

	/* Panel 1: zones. */
	if (rv->nzones == 0) {
		gp_missing(f, "Zones: free pages and watermarks", "missing: this result has no zone samples (samples[].zones)");
	} else {
		gp_marks(rv, f);
		fputs("set title 'Zones: free pages and min / low / high (pages, log scale)'\n"
		      "set logscale y\nset ylabel 'pages'\n", f);
		/* The steps' names, once, above the first panel. */
		{
			const json_t *steps = json_object_get(rv->run, RK_STEPS);
			int l = 1;
			double last = -1;

			for (i = 0; i < json_array_size(steps); i++) {
				const json_t *st = json_array_get(steps, i);
				double t = num_or_nan(json_object_get(st, RK_T_MS)) / 1000.0;
				const char *w = jstr(st, RK_WORKLOAD, "");
				char text[96];

				if (isnan(t))
					continue;
				snprintf(text, sizeof(text), "%s%s%s", rv->main && strcmp(w, rv->main) ? w : "",
					 rv->main && strcmp(w, rv->main) ? ":" : "", jstr(st, RK_STEP, "?"));
				fprintf(f, "set label %d ", l++);
				gp_str(f, text);
				/* Steps close together: stagger, so names do not overlap. */
				fprintf(f, " at %.10g, graph %.2f left rotate by 30 font ',7' tc rgb '#606060'\n", t,
					last >= 0 && t - last < rv->duration_s / 40 ? 1.10 : 1.02);
				last = t;
			}
		}
		fputs("plot ", f);
		sep = "";
		for (z = 0; z < rv->nzones; z++) {
			const struct zkey *zk = &rv->zones[z];
			const char *col = palette[z % PALETTE_N];
			int base = 2 + (int)z * ZONE_FIELDS;

			if (zk->nfree == 0)
				continue;
			fprintf(f, "%sdata index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '%s' title ",
				sep, base, col);
			{
				char t[64];

				snprintf(t, sizeof(t), "%s free", zk->title);
				gp_str(f, t);
			}
			sep = ", \\\n     ";
			for (int k = 1; k < ZONE_FIELDS; k++) {
				char t[96], r[48];

				if (!zk->seen[k] || (k == 4 && zk->hi[k] == 0))
					continue;       /* boost only where non-zero */
				range_text(zk, k, r, sizeof(r));
				snprintf(t, sizeof(t), "%s %s = %s", zk->title, zone_field[k], r);
				fprintf(f, "%sdata index 0 using 1:%d with steps dt %d lw 1 lc rgb '%s' title ", sep,
					base + k, k == 1 ? 1 : k == 2 ? 2 : k == 3 ? 4 : 3, col);
				gp_str(f, t);
			}
		}
		fputs("\nunset logscale y\nunset label\n", f);
	}
	fputs("set tmargin 2.2\n", f);

	/* Panel 2: the sandbox. */
	if (rv->have[C_USAGE] == 0) {
		gp_missing(f, "Sandbox: memory usage", "missing: this result has no sandbox usage (samples[].memcg.usage_bytes)");
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;

		gp_marks(rv, f);
		fputs("set title 'Sandbox: memory usage against its limits (MiB)'\nset ylabel 'MiB'\nset yrange [0:*]\n", f);
		fprintf(f, "plot data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#1f77b4' title 'usage'",
			u + C_USAGE);
		if (!isnan(rv->max_mib))
			fprintf(f, ", \\\n     %.10g with lines lw 1.5 dt 2 lc rgb '#d62728' title 'memory.max = %.0f MiB'",
				rv->max_mib, rv->max_mib);
		if (!isnan(rv->high_mib))
			fprintf(f, ", \\\n     %.10g with lines lw 1.5 dt 4 lc rgb '#ff7f0e' title 'memory.high = %.0f MiB'",
				rv->high_mib, rv->high_mib);
		if (rv->nooms > 0)
			fputs(", \\\n     data index 2 using 1:2 with points pt 9 ps 1.8 lc rgb '#d00000' title 'OOM kill'"
			      ", \\\n     data index 2 using 1:2:3 with labels offset 0,1.2 tc rgb '#d00000' font ',8' notitle", f);
		fputs("\n", f);
	}

	/* Panel 3: the main workload. */
	if (rv->have[C_RSS] == 0 && rv->nres == 0) {
		char why[160];

		snprintf(why, sizeof(why), "missing: no smaps_rollup or mincore figures of the main workload (%s)",
			 rv->main ? rv->main : "none");
		gp_missing(f, "Main workload", why);
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;
		char t[160];

		gp_marks(rv, f);
		snprintf(t, sizeof(t), "Main workload '%s': smaps_rollup and resident pages (MiB)", rv->main ? rv->main : "?");
		fputs("set title ", f);
		gp_str(f, t);
		fputs("\nset ylabel 'MiB'\nset yrange [0:*]\nplot ", f);
		sep = "";
		if (rv->have[C_RSS] > 0) {
			fprintf(f, "data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#1f77b4' title 'Rss', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#2ca02c' title 'LazyFree', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#9467bd' title 'AnonHugePages'",
				u + C_RSS, u + C_LAZY, u + C_HUGE);
			sep = ", \\\n     ";
		}
		if (rv->nres > 0)
			fprintf(f, "%sdata index 1 using 1:2 with points pt 5 ps 0.8 lc rgb '#ff7f0e' title 'resident (mincore, at steps)'",
				sep);
		fputs("\n", f);
	}

	/* Panel 4: reclaim. */
	if (rv->have[C_KSWAPD] == 0) {
		gp_missing(f, "Reclaim", "missing: this result has no vmstat deltas (samples[].vmstat_delta)");
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;

		gp_marks(rv, f);
		fputs("set title 'Reclaim: pages per second (vmstat); allocstall total on the right'\n"
		      "set ylabel 'pages/s'\nset y2tics\nset xlabel 's since the run started'\n", f);
		/* All zero (a sandbox reclaiming at its limit shows no global
		 * scans): a range gnuplot need not invent. */
		if (fmax(fmax(rv->maxv[C_KSWAPD], rv->maxv[C_DIRECT]),
			 fmax(fmax(rv->maxv[C_SWPOUT], rv->maxv[C_MEMCG]), fmax(rv->maxv[C_LAZYFREED], rv->bins_max))) <= 0)
			fputs("set yrange [0:1]\n", f);
		fputs(rv->maxv[C_ALLOCSTALL] <= 0 ? "set y2range [0:1]\n" : "set y2range [0:*]\n", f);
		fprintf(f, "plot data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#1f77b4' title 'kswapd scan', \\\n"
			   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#d62728' title 'direct scan', \\\n"
			   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1 lc rgb '#8c564b' title 'swap-out (pswpout)', \\\n"
			   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1 lc rgb '#9467bd' title 'lazyfree pages freed (pglazyfreed)', \\\n"
			   "     data index 0 using 1:%d axes x1y2 with steps lw 1 dt 2 lc rgb '#000000' title 'allocstall (total)'",
			u + C_KSWAPD, u + C_DIRECT, u + C_SWPOUT, u + C_LAZYFREED, u + C_ALLOCSTALL);
		if (rv->have[C_MEMCG] > 0)
			fprintf(f, ", \\\n     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1 lc rgb '#2ca02c' title 'sandbox scan (memory.stat)'",
				u + C_MEMCG);
		if (rv->nstalls > 0)
			fputs(", \\\n     data index 3 using 1:(0) with points pt 2 ps 1 lc rgb '#d00000' title 'reclaim stall'", f);
		if (rv->nbins > 0)
			/* A bin is an average over its width: drawn as a box over
			 * it, its value marked at the middle. */
			fputs(", \\\n     data index 4 using 1:2:5 with boxes fs transparent solid 0.25 noborder lc rgb '#e377c2' notitle"
			      ", \\\n     data index 4 using 1:3:5 with boxes fs transparent solid 0.25 noborder lc rgb '#17becf' notitle"
			      ", \\\n     data index 4 using 1:2 with points pt 4 ps 0.5 lc rgb '#e377c2' title 'direct reclaim, pages/s (trace)'"
			      ", \\\n     data index 4 using 1:3 with points pt 4 ps 0.5 lc rgb '#17becf' title 'memcg reclaim, pages/s (trace)'", f);
		if (rv->bin_stalls > 0)
			fputs(", \\\n     data index 4 using 1:($4 > 0 ? 0 : NaN) with points pt 2 ps 1 lc rgb '#d00000' title 'reclaim stalls (trace bins)'", f);
		if (rv->nawake > 0)
			fputs(", \\\n     NaN with boxes fc rgb '#9ecae1' title 'kswapd awake'", f);
		fputs("\nunset y2tics; unset y2label; unset xlabel; set autoscale y; set autoscale y2\n", f);
	}

	/* Panel 5: pressure. */
	fputs("set bmargin 3\nset tmargin 3\nset xlabel 's since the run started'\n", f);
	if (rv->have[C_PSI_SOME] == 0 && rv->have[C_PSI_FULL] == 0 && rv->have[C_MPSI_SOME] == 0) {
		gp_missing(f, "Pressure (PSI)", rv->has_events
			   ? "missing: PSI was not sampled in this result"
			   : "missing: PSI was not sampled in this result (and it has no event timeline)");
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;

		gp_marks(rv, f);
		fputs("set title 'Memory pressure (PSI avg10, %)'\nset ylabel '%'\n", f);
		/* PSI is a share (>= 0); a short run often holds one value, which
		 * gnuplot would call an empty range: anchor the axis at 0. */
		if (fmax(fmax(rv->maxv[C_PSI_SOME], rv->maxv[C_PSI_FULL]), fmax(rv->maxv[C_MPSI_SOME], rv->maxv[C_MPSI_FULL])) <= 0)
			fputs("set yrange [0:1]\n", f);
		else
			fputs("set yrange [0:*]\n", f);
		fputs("plot ", f);
		sep = "";
		if (rv->have[C_PSI_SOME] > 0 || rv->have[C_PSI_FULL] > 0) {
			fprintf(f, "data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#ff7f0e' title 'machine some avg10', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#d62728' title 'machine full avg10'",
				u + C_PSI_SOME, u + C_PSI_FULL);
			sep = ", \\\n     ";
		}
		if (rv->have[C_MPSI_SOME] > 0)
			fprintf(f, "%sdata index 0 using 1:%d with linespoints pt 6 ps 0.5 lw 1 lc rgb '#2ca02c' title 'sandbox some avg10', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 6 ps 0.5 lw 1 lc rgb '#8c564b' title 'sandbox full avg10'",
				sep, u + C_MPSI_SOME, u + C_MPSI_FULL);
		fputs("\nset autoscale y\n", f);
	}
	fputs("unset multiplot\n", f);
}

/* ------------------------------------------------------------ overlay */

/* The zone a variants chart follows: Normal where there is one (the
 * watermark article's), else the largest. */
static size_t main_zone(const struct run_view *rv)
{
	size_t best = 0;

	for (size_t z = 0; z < rv->nzones; z++) {
		if (strcmp(rv->zones[z].name, "Normal") == 0)
			return z;
		if (rv->zones[z].hi[0] > rv->zones[best].hi[0])
			best = z;
	}
	return best;
}

static void write_overlay(struct run_view *const *v, size_t n, const struct plot_opts *o, const char *stem,
			  const char *title, FILE *f)
{
	char out[PATH_MAX + 8];
	double dur = 0;
	size_t i;
	const char *sep;

	snprintf(out, sizeof(out), "%s-variants.%s", stem, chart_ext(o));
	fprintf(f, "# pagelab plot: %s\n", title);
	gp_terminal(f, o, 980, 900, out);
	for (i = 0; i < n; i++)
		dur = fmax(dur, v[i]->duration_s);
	fputs("set multiplot layout 3,1 title ", f);
	gp_str(f, title);
	fputs(" font ',10'\nset lmargin 11; set rmargin 30; set tmargin 2; set bmargin 2\n"
	      "set key outside right top Left reverse samplen 2 font ',8'\n"
	      "set grid ytics lc rgb '#e0e0e0'\n", f);
	fprintf(f, "set xrange [0:%.10g]\n", dur > 0 ? dur : 1);

	fputs("set title 'Free pages of the main zone, each variant, with its low line (pages)'\nset ylabel 'pages'\nplot ", f);
	sep = "";
	for (i = 0; i < n; i++) {
		size_t z = main_zone(v[i]);
		char t[320];

		if (v[i]->nzones == 0 || v[i]->zones[z].nfree == 0)
			continue;
		fprintf(f, "%s'%s.dat' index 0 using 1:%d with linespoints pt 7 ps 0.3 lw 1.5 lc rgb '%s' title ", sep,
			v[i]->stem, 2 + (int)z * ZONE_FIELDS, palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s (%s) %s free", v[i]->label, v[i]->variant, v[i]->zones[z].title);
		gp_str(f, t);
		fprintf(f, ", \\\n     '%s.dat' index 0 using 1:%d with steps dt 2 lc rgb '%s' title ", v[i]->stem,
			2 + (int)z * ZONE_FIELDS + 2, palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s low", v[i]->label);
		gp_str(f, t);
		sep = ", \\\n     ";
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);
	fputs("\nset tmargin 1.5\nset title 'Sandbox usage, each variant (MiB)'\nset ylabel 'MiB'\nplot ", f);
	sep = "";
	for (i = 0; i < n; i++) {
		char t[300];

		if (v[i]->have[C_USAGE] == 0)
			continue;
		fprintf(f, "%s'%s.dat' index 0 using 1:%d with linespoints pt 7 ps 0.3 lw 1.5 lc rgb '%s' title ", sep,
			v[i]->stem, 2 + (int)v[i]->nzones * ZONE_FIELDS + C_USAGE, palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s (%s)", v[i]->label, v[i]->variant);
		gp_str(f, t);
		sep = ", \\\n     ";
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);
	fputs("\nset bmargin 3\nset xlabel 's since the run started'\n"
	      "set title 'Pages scanned since the start: kswapd (solid), direct (dashed)'\nset ylabel 'pages'\n", f);
	{
		double mx = 0;

		for (i = 0; i < n; i++)
			mx = fmax(mx, fmax(v[i]->maxv[C_SCAN_KSWAPD_CUM], v[i]->maxv[C_SCAN_DIRECT_CUM]));
		if (mx <= 0)
			fputs("set yrange [0:1]\n", f);      /* nothing scanned: no range to invent */
	}
	fputs("plot ", f);
	sep = "";
	for (i = 0; i < n; i++) {
		char t[300];
		int u = 2 + (int)v[i]->nzones * ZONE_FIELDS;

		if (v[i]->have[C_SCAN_KSWAPD_CUM] == 0)
			continue;
		fprintf(f, "%s'%s.dat' index 0 using 1:%d with lines lw 1.5 lc rgb '%s' title ", sep, v[i]->stem,
			u + C_SCAN_KSWAPD_CUM, palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s kswapd", v[i]->label);
		gp_str(f, t);
		fprintf(f, ", \\\n     '%s.dat' index 0 using 1:%d with lines dt 2 lw 1.5 lc rgb '%s' title ", v[i]->stem,
			u + C_SCAN_DIRECT_CUM, palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s direct", v[i]->label);
		gp_str(f, t);
		sep = ", \\\n     ";
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);
	fputs("\nunset multiplot\n", f);
}

/* ------------------------------------------------------------ gnuplot */

bool plot_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (path == NULL)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n > 0 && (size_t)snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, path) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Run `gnuplot SCRIPT` in dir; its stderr is kept and shown when it fails
 * (or warns: a warning means a series is not what the script meant). */
static int run_gnuplot(const char *dir, const char *script, struct lab_error *err)
{
	int pfd[2], status;
	pid_t pid;
	cleanup_free char *msg = NULL;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "pipe");
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return lab_error_errno(err, errno, "fork");
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (chdir(dir) < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	lab_read_fd(pfd[0], &msg, NULL, err);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return lab_error_errno(err, errno, "waitpid gnuplot");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return lab_error_set(err, ENOENT, "cannot run gnuplot (apt-get install gnuplot-nox)");
		if (msg != NULL)
			msg[strcspn(msg, "\n")] = msg[strcspn(msg, "\n")] ? ' ' : '\0';
		return lab_error_set(err, EIO, "gnuplot failed on %s/%s: %.400s", dir, script,
				     msg != NULL ? msg : "");
	}
	if (msg != NULL && msg[0] != '\0')
		fprintf(stderr, "pagelab plot: gnuplot on %s/%s: %s", dir, script, msg);
	return 0;
}

/* ------------------------------------------------------------ driver */

/* gnuplot opens its output itself, following a symlink and writing into a
 * device or FIFO: before it runs, a chart already there must be a regular
 * file (it is removed, so gnuplot creates a new one); anything else is
 * refused, nothing written through it. */
static int chart_clear(const char *dir, const char *stem, const struct plot_opts *o, struct lab_error *err)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.%s", dir, stem, chart_ext(o)) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s/%s", dir, stem);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : lab_error_errno(err, errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return lab_error_set(err, EEXIST, "%s exists and is %s: not overwritten", path, lab_file_kind(st.st_mode));
	if (unlink(path) < 0)
		return lab_error_errno(err, errno, "cannot replace %s", path);
	return 0;
}

static int write_file(const char *dir, const char *name, const struct text *t, struct lab_error *err)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s/%s", dir, name);
	return lab_write_atomic(path, t->buf, t->len, err);
}

static int chart_add(struct plot_charts *c, const char *dir, const char *stem, const struct plot_opts *o,
		     const char *title, const char *label, int repeat)
{
	struct plot_chart *g = realloc(c->v, (c->n + 1) * sizeof(*g));
	char path[PATH_MAX];

	if (g == NULL)
		return -ENOMEM;
	c->v = g;
	snprintf(path, sizeof(path), "%s/%s.%s", dir, stem, chart_ext(o));
	g = &c->v[c->n];
	memset(g, 0, sizeof(*g));
	g->path = strdup(path);
	g->title = strdup(title);
	snprintf(g->label, sizeof(g->label), "%s", label);
	g->repeat = repeat;
	if (g->path == NULL || g->title == NULL) {
		free(g->path);
		free(g->title);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

void plot_charts_free(struct plot_charts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].title);
	}
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* STEM: the result file's name without directory and .json; only
 * characters safe in a file name and a gnuplot string. */
static void file_stem(const char *src, char *buf, size_t len)
{
	const char *b = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	size_t n = strlen(b), i, k = 0;

	if (n > 5 && strcmp(b + n - 5, ".json") == 0)
		n -= 5;
	else if (n > 6 && strcmp(b + n - 6, ".jsonl") == 0)
		n -= 6;                 /* a run's stream: the document's stem */
	for (i = 0; i < n && k + 1 < len; i++)
		buf[k++] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+",
					 b[i]) && b[i] ? b[i] : '_');
	buf[k] = '\0';
	if (k == 0)
		snprintf(buf, len, "result");
}

static void label_safe(const char *s, char *buf, size_t len)
{
	size_t k = 0;

	for (; s != NULL && *s && k + 1 < len; s++)
		buf[k++] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *s) ? *s : '_');
	buf[k] = '\0';
}

/* views[i] is the first run with its label. */
static bool rv_first_of_label(struct run_view *const *views, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(views[k]->label, views[i]->label) == 0)
			return false;
	return true;
}

int plot_document(const char *src, const json_t *doc, const struct plot_opts *o,
		  struct plot_charts *out, struct lab_error *err)
{
	const json_t *runs = json_object_get(doc, RK_RUNS);
	const char *kernel = jstr(doc, RK_HOST "." RK_KERNEL, "?");
	const char *scenario = jstr(doc, RK_SCENARIO "." RK_NAME, "?");
	const char *srcbase = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	char stem[PATH_MAX / 2];
	struct run_view **views = NULL;
	size_t nviews = 0, nlabels = 0, i;
	int ret = 0;

	file_stem(src, stem, sizeof(stem));
	{
		struct stat st;

		if (lab_mkdir_p(o->out_dir, 0755, err) < 0)
			return -err->code;
		if (stat(o->out_dir, &st) < 0)
			return lab_error_errno(err, errno, "%s", o->out_dir);
		if (!S_ISDIR(st.st_mode))
			return lab_error_set(err, ENOTDIR, "%s is %s, not a directory for the charts", o->out_dir,
					     lab_file_kind(st.st_mode));
	}
	views = calloc(json_array_size(runs) + 1, sizeof(*views));
	if (views == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(runs); i++) {
		const json_t *run = json_array_get(runs, i);
		struct run_view *rv;
		struct text d = { 0 }, g = { 0 };
		char title[1024], lab[24], name[PATH_MAX + 8];
		const json_t *sb = json_object_get(run, RK_SANDBOX);
		double mx = num_or_nan(json_object_get(sb, RK_MEMORY_MAX_BYTES));
		double hi = num_or_nan(json_object_get(sb, RK_MEMORY_HIGH_BYTES));
		json_int_t nrep = json_integer_value(jpath(doc, RK_SCENARIO "." RK_REPEAT));

		if (o->run_label != NULL && strcmp(o->run_label, jstr(run, RK_LABEL, "")) != 0)
			continue;
		rv = calloc(1, sizeof(*rv));
		if (rv == NULL) {
			ret = lab_error_set(err, ENOMEM, "out of memory");
			break;
		}
		views[nviews++] = rv;
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
		rv->page_kb = 4;
		{
			const json_t *ws = json_object_get(run, RK_WORKLOADS);
			double ps = num_or_nan(jpath(json_array_get(ws, json_array_size(ws) - 1), RK_FACTS ".page_size"));

			if (!isnan(ps) && ps > 0)
				rv->page_kb = ps / 1024;
		}
		snprintf(title, sizeof(title), "kernel %s · %s · run %s (%s) · repeat %lld/%lld · %s", kernel, scenario,
			 rv->label, rv->variant, (long long)(rv->repeat ? rv->repeat : 1), (long long)(nrep ? nrep : 1),
			 srcbase);
		if (text_open(&d) < 0 || text_open(&g) < 0) {
			text_free(&d);
			text_free(&g);
			ret = lab_error_set(err, ENOMEM, "out of memory");
			break;
		}
		ret = write_data(rv, &d);
		write_script(rv, o, title, kernel, g.f);
		if (ret < 0 || text_close(&d) < 0 || text_close(&g) < 0) {
			text_free(&d);
			text_free(&g);
			ret = lab_error_set(err, ENOMEM, "out of memory");
			break;
		}
		snprintf(name, sizeof(name), "%s.dat", rv->stem);
		ret = write_file(o->out_dir, name, &d, err);
		snprintf(name, sizeof(name), "%s.gp", rv->stem);
		if (ret == 0)
			ret = write_file(o->out_dir, name, &g, err);
		text_free(&d);
		text_free(&g);
		if (ret == 0)
			ret = chart_clear(o->out_dir, rv->stem, o, err);
		if (ret == 0)
			ret = run_gnuplot(o->out_dir, name, err);
		if (ret == 0)
			ret = chart_add(out, o->out_dir, rv->stem, o, title, rv->label, (int)(rv->repeat ? rv->repeat : 1));
		if (ret < 0)
			break;
	}
	/* The variants overlaid: the first repeat of each label. */
	for (i = 0; ret == 0 && i < nviews; i++)
		nlabels += rv_first_of_label(views, i);
	if (ret == 0 && o->overlay && nlabels > 1) {
		struct run_view **firsts = calloc(nlabels, sizeof(*firsts));
		struct text g = { 0 };
		char title[1024], name[PATH_MAX], ostem[PATH_MAX];
		size_t k = 0;

		if (firsts == NULL || text_open(&g) < 0) {
			free(firsts);
			ret = lab_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
		for (i = 0; i < nviews; i++)
			if (rv_first_of_label(views, i))
				firsts[k++] = views[i];
		snprintf(title, sizeof(title), "kernel %s · %s · variants overlaid (first repeat of each) · %s", kernel,
			 scenario, srcbase);
		write_overlay(firsts, k, o, stem, title, g.f);
		free(firsts);
		if (text_close(&g) < 0) {
			text_free(&g);
			ret = lab_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
		snprintf(name, sizeof(name), "%s-variants.gp", stem);
		ret = write_file(o->out_dir, name, &g, err);
		text_free(&g);
		snprintf(ostem, sizeof(ostem), "%s-variants", stem);
		if (ret == 0)
			ret = chart_clear(o->out_dir, ostem, o, err);
		if (ret == 0)
			ret = run_gnuplot(o->out_dir, name, err);
		if (ret == 0)
			ret = chart_add(out, o->out_dir, ostem, o, title, "variants", 0);
	}
out:
	for (i = 0; i < nviews; i++) {
		free(views[i]->awake);
		free(views[i]);
	}
	free(views);
	if (ret == -ENOMEM && err->code == 0)
		lab_error_set(err, ENOMEM, "out of memory");
	return ret;
}

static void plot_usage(FILE *o)
{
	fputs("usage: pagelab plot [--out DIR] [--format svg|png] [--run LABEL] [--no-overlay] RESULT.json...\n"
	      "\n"
	      "Draw each run of each result document with gnuplot: one chart per run, its\n"
	      "panels on one time axis with the workload steps marked —\n"
	      "  zones     free pages per zone with min / low / high (boost where non-zero)\n"
	      "  sandbox   memory usage against memory.max (memory.high where set), OOM kills\n"
	      "            marked with the victim's name\n"
	      "  workload  the main workload's Rss, LazyFree, AnonHugePages; resident pages\n"
	      "  reclaim   kswapd / direct scan rates, swap-out, allocstall\n"
	      "  pressure  PSI some / full where sampled\n"
	      "kswapd's awake intervals are shaded and reclaim stalls marked when the result\n"
	      "has an event timeline.  A result with several variants also gets\n"
	      "STEM-variants: the variants overlaid.  A panel the result has no figure for\n"
	      "says so.  Beside each chart: its data (STEM-LABELn.dat) and gnuplot script\n"
	      "(STEM-LABELn.gp; `cd DIR && gnuplot STEM-A1.gp` redraws it).\n"
	      "A run's stream, RESULT.jsonl, is read too (a run killed by SIGKILL leaves\n"
	      "only that): one line on stderr says the run did not finish.  The samples are\n"
	      "read keeping only what the charts draw, so an hour-long result takes a\n"
	      "fraction of its size in memory (PAGELAB_READ=full: the whole document).\n"
	      "\n"
	      "  --out DIR        where the charts go (default ./plots; created)\n"
	      "  --format svg|png chart format (default svg)\n"
	      "  --run LABEL      only the runs with that label (A, B, …)\n"
	      "  --no-overlay     no variants chart\n"
	      "  -h, --help       this text\n"
	      "\n"
	      "Prints each chart's path.  Exit status: 0 drawn; 1 gnuplot or the harness\n"
	      "failed; 2 bad usage, or an input that is not a pagelab.result/1 document;\n"
	      "3 gnuplot is not installed (Debian: gnuplot-nox).\n", o);
}

/* Every path of a sample the charts read (sample_cols, sample_zone,
 * usage_at, write_data): a chart reading one more must name it here —
 * tests/bats/read.bats compares the charts' data with whole loads. */
static const char *const sample_paths[] = {
	RK_ZONES "[" RK_ZONE "=," RK_NODE "=].free+min+low+high+boost+managed",
	RK_MEMCG "." RK_USAGE_BYTES,
	RK_MEMCG "." RK_STAT ".pgscan",
	RK_WORKLOADS ".*." RK_RSS_KB "+" RK_LAZYFREE_KB "+" RK_ANONHUGE_KB,
	RK_VMSTAT_DELTA ".pgscan_kswapd+pgscan_direct+pswpout+pglazyfreed",
	RK_VMSTAT_DELTA ".allocstall_*",
	RK_PSI ".some.avg10",             /* psi_avg10 */
	RK_PSI ".full.avg10",
	RK_MEMCG_PRESSURE ".some.avg10",
	RK_MEMCG_PRESSURE ".full.avg10",
};

int plot_load(const char *who, const char *path, json_t **out, struct lab_error *err)
{
	struct result_need *need = result_need_new();
	struct result_read_info info;
	int ret = need == NULL ? lab_error_set(err, ENOMEM, "out of memory") : 0;

	for (size_t i = 0; ret == 0 && i < sizeof(sample_paths) / sizeof(sample_paths[0]); i++)
		ret = result_need_add(need, sample_paths[i], err);
	if (ret == 0)
		ret = result_read(path, need, out, &info, err);
	result_need_free(need);
	if (ret < 0)
		return ret == -ENOENT || ret == -EACCES ? lab_error_set(err, EINVAL, "%s", err->msg) : ret;
	if (info.stream && who != NULL)
		fprintf(stderr, "%s: %s: %s; %zu run(s), %zu sample(s) recorded%s\n", who, path,
			info.finished ? "read from the run's stream"
				      : "the run did not finish (no result document): read from its stream",
			info.runs, info.samples, info.cut ? ", its last line cut short (left out)" : "");
	return 0;
}

int plot_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "run", required_argument, NULL, 'r' },
		{ "no-overlay", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plot_opts o = { .out_dir = "plots", .format = PLOT_SVG, .overlay = true };
	struct plot_charts charts = { 0 };
	struct lab_error err;
	int c, status = 0;
	size_t done = 0;

	lab_error_clear(&err);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (optarg[0] == '\0') {
				fprintf(stderr, "pagelab plot: --out takes a directory\n");
				return EXIT_BAD_INPUT;
			}
			o.out_dir = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "svg") && strcmp(optarg, "png")) {
				fprintf(stderr, "pagelab plot: --format takes svg or png, not '%s'\n", optarg);
				return EXIT_BAD_INPUT;
			}
			o.format = optarg[0] == 'p' ? PLOT_PNG : PLOT_SVG;
			break;
		case 'r':
			o.run_label = optarg;
			break;
		case 'n':
			o.overlay = false;
			break;
		case 'h':
			plot_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "pagelab plot: see pagelab plot --help\n");
			return EXIT_BAD_INPUT;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "pagelab plot: no result file given (see pagelab plot --help)\n");
		return EXIT_BAD_INPUT;
	}
	/* Check every input first: bad input draws nothing. */
	for (int i = optind; i < argc; i++) {
		json_t *doc = NULL;

		if (plot_load("pagelab plot", argv[i], &doc, &err) < 0) {
			fprintf(stderr, "pagelab plot: %s\n", err.msg);
			return EXIT_BAD_INPUT;
		}
		for (int k = optind; k < i; k++) {
			char a[PATH_MAX], b[PATH_MAX];

			file_stem(argv[i], a, sizeof(a));
			file_stem(argv[k], b, sizeof(b));
			if (strcmp(a, b) == 0) {
				json_decref(doc);
				fprintf(stderr, "pagelab plot: %s and %s would both be drawn as %s-*: plot them into "
					"separate --out directories\n", argv[k], argv[i], a);
				return EXIT_BAD_INPUT;
			}
		}
		json_decref(doc);
	}
	if (!plot_have_gnuplot()) {
		fprintf(stderr, "pagelab plot: gnuplot is not installed (Debian: apt-get install gnuplot-nox)\n");
		return EXIT_CANNOT;
	}
	for (int i = optind; i < argc && status == 0; i++) {
		json_t *doc = NULL;

		if (plot_load(NULL, argv[i], &doc, &err) < 0 ||      /* said when checked */
		    plot_document(argv[i], doc, &o, &charts, &err) < 0) {
			fprintf(stderr, "pagelab plot: %s\n", err.msg);
			status = err.code == EINVAL || err.code == EEXIST || err.code == ENOTDIR ? EXIT_BAD_INPUT : EXIT_INTERNAL;
		}
		json_decref(doc);
		for (; done < charts.n; done++)
			printf("%s\n", charts.v[done].path);
	}
	if (status == 0 && charts.n == 0) {
		fprintf(stderr, "pagelab plot: no run%s%s in the results given\n", o.run_label ? " labelled " : "",
			o.run_label ? o.run_label : "");
		status = EXIT_BAD_INPUT;
	}
	plot_charts_free(&charts);
	if (fflush(stdout) != 0)
		status = EXIT_INTERNAL;
	return status;
}
