/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot-internal.h — what plot's files share and nothing else sees.
 *
 *   plot-view.c    a run as the charts see it: zones, columns, steps, OOM
 *                  kills, kswapd's awake intervals, stalls; its data file
 *   plot-script.c  the gnuplot scripts: a run's five panels (six with
 *                  loads), the variants
 *   plot-fit.c     a fit's curve: the objectives and the kernel's figures
 *                  over the quotas probed
 *   plot.c         the public calls (plot.h): documents, gnuplot, the files
 */
#ifndef PAGELAB_PLOT_INTERNAL_H
#define PAGELAB_PLOT_INTERNAL_H

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/escape.h"
#include "plot.h"

#define MIB (1024.0 * 1024.0)
#define ZONES_MAX 8
#define ZONE_FIELDS 5                   /* free min low high boost */

extern const char *const plot_zone_field[ZONE_FIELDS];   /* "free", "min", "low", "high", "boost" */
/* One colour per zone and per variant, in order. */
extern const char *const plot_palette[];
#define PALETTE_N 8


/* A growing text buffer (open_memstream); fprintf-style appends. */
struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static inline int text_open(struct text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->f = open_memstream(&t->buf, &t->len);
	return t->f != NULL ? 0 : -errno;
}

static inline int text_close(struct text *t)
{
	int bad = t->f == NULL || ferror(t->f);

	if (t->f != NULL && fclose(t->f) != 0)
		bad = 1;
	t->f = NULL;
	return bad ? -ENOMEM : 0;
}

static inline void text_free(struct text *t)
{
	if (t->f != NULL)
		fclose(t->f);
	free(t->buf);
	t->buf = NULL;
	t->f = NULL;
}

/* A document's string in a script: only ever a '...' literal (escape.h:
 * a quote doubled, a control character \xNN, gnuplot substitutes nothing
 * inside); in a data file a "..." column. */
static inline void gp_str(FILE *f, const char *s)
{
	lab_esc_gnuplot(f, s);
}

static inline void dat_str(FILE *f, const char *s)
{
	lab_esc_gnuplot_data(f, s);
}

static inline void dat_num(FILE *f, double v)
{
	if (isnan(v))
		fputs("\tNaN", f);
	else
		fprintf(f, "\t%.10g", v);
}
/* ------------------------------------------------------------ json */

static inline bool num(const json_t *j, double *out)
{
	if (!json_is_number(j))
		return false;
	*out = json_number_value(j);
	return true;
}

static inline double num_or_nan(const json_t *j)
{
	double v;

	return num(j, &v) ? v : NAN;
}

static inline const json_t *jpath(const json_t *j, const char *path)
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

static inline const char *jstr(const json_t *j, const char *path, const char *dflt)
{
	const char *s = json_string_value(jpath(j, path));

	return s != NULL ? s : dflt;
}
/* ------------------------------------------------------------ a run */

struct zkey {
	json_int_t node;
	const char *name;               /* the document's (it outlives the view) */
	char title[64];                 /* "Normal" or "N1 Normal", cut short when longer */
	double lo[ZONE_FIELDS], hi[ZONE_FIELDS];
	bool seen[ZONE_FIELDS];
	size_t nfree;                   /* samples with a free value */
};

/* Columns after t and the zones' 5 each. */
enum {
	C_USAGE, C_RSS, C_LAZY, C_HUGE, C_KSWAPD, C_DIRECT, C_MEMCG, C_SWPOUT, C_LAZYFREED, C_ALLOCSTALL,
	C_PSI_SOME, C_PSI_FULL, C_SCAN_KSWAPD_CUM, C_SCAN_DIRECT_CUM, C_MPSI_SOME, C_MPSI_FULL,
	C_TICK_IV, C_BURST_IV, C_N
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
	size_t nloads, nload_values;    /* runs[].loads; those with a headline figure */
	double page_kb;
	/* The cadence asked (the document's interval_ms, the run's bursts'),
	 * and the last periodic and burst samples' times while writing. */
	double asked_ms, burst_asked_ms, last_tick_ms, last_burst_ms;
};
extern const char *const plot_col_name[C_N];

static inline const char *chart_ext(const struct plot_opts *o)
{
	return o->format == PLOT_PNG ? "png" : "svg";
}

/* ------------------------------------------------------------ plot-fit.c */

/* Whether doc is a fit's (pagelab fit) with a curve of more than the base. */
bool plot_fit_has_curve(const json_t *doc);
/* The curve's data file into d and its script (STEM-fit.gp drawing
 * STEM-fit.svg|png) into g.  0, or -ENODATA when no probe but the base. */
int plot_fit_write(const json_t *doc, const struct plot_opts *o, const char *stem, const char *title, FILE *d,
		   FILE *g);

/* ------------------------------------------------------------ plot-view.c */

/* rv for run (of doc), its files named stem-LABELn: label, variant, main
 * workload, duration, limits, page size.  Nothing allocated yet. */
void plot_view_init(struct run_view *rv, const json_t *doc, const json_t *run, const char *stem);
/* The data file (index blocks: samples, steps, OOM kills, stalls, trace
 * bins, loads), filling what the script needs to know of rv.  0 or -ENOMEM. */
int plot_write_data(struct run_view *rv, FILE *d);
void plot_view_free(struct run_view *rv);
/* The name step st is marked with ("alloc", or "others:hold" for a workload
 * other than the main one). */
void plot_step_label(const struct run_view *rv, const json_t *st, char *buf, size_t len);
/* When OOM victim w died, ms from the run's start (NAN: not known). */
double plot_victim_ms(const json_t *run, const json_t *w);

/* ---------------------------------------------------------- plot-script.c */

/* The run's chart: six panels on one time axis under title. */
void plot_write_script(const struct run_view *rv, const struct plot_opts *o, const char *title, FILE *f);
/* The variants overlaid: the first repeat of each label, files stem-variants.*. */
void plot_write_overlay(struct run_view *const *v, size_t n, const struct plot_opts *o, const char *stem,
			const char *title, FILE *f);

#endif
