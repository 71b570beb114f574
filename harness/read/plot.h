/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.h — `pagelab plot`: a run's timeline drawn by gnuplot.
 *
 *   pagelab plot [--out DIR] [--format svg|png] [--run LABEL] RESULT.json...
 *
 * For each run of each result document (harness/result/result.md) pagelab writes a
 * data file (DIR/STEM-LABELn.dat: the samples, the steps, the OOM kills and
 * the event timeline as gnuplot index blocks) and a gnuplot script
 * (STEM-LABELn.gp), then runs gnuplot on it (Debian gnuplot-nox): one chart
 * of stacked panels on one time axis, the workload steps marked on all of
 * them —
 *   zones     free pages per zone with its min / low / high lines (boost
 *             where it is non-zero), log scale;
 *   sandbox   memory usage against memory.max (and memory.high where set),
 *             OOM kills as markers labelled with the victim;
 *   workload  the main workload's Rss, LazyFree, AnonHugePages (smaps_rollup)
 *             and its resident pages at each step (mincore);
 *   reclaim   kswapd / direct scan rates, swap-out, allocstall (vmstat);
 *   pressure  PSI some / full avg10 where it was sampled.
 * When the run has an event timeline ("events"), kswapd's awake intervals
 * are shaded and reclaim stalls marked.  A result with more than one variant
 * also gets STEM-variants: the variants overlaid (free pages of the main zone
 * with its low line, sandbox usage, cumulative scans).  Every chart's title
 * names its kernel, scenario, variant and result file; a panel whose figure
 * the result lacks says so in words instead of drawing an empty axis.
 * The scripts stay beside the charts: `cd DIR && gnuplot STEM-A1.gp` redraws.
 */
#ifndef PAGELAB_PLOT_H
#define PAGELAB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

enum plot_format { PLOT_SVG, PLOT_PNG };

struct plot_opts {
	const char *out_dir;
	enum plot_format format;
	const char *run_label;          /* NULL = every run */
	bool overlay;                   /* also the variants chart */
};

struct plot_chart {
	char *path;                     /* DIR/STEM-A1.svg */
	char *title;                    /* what the chart's title says */
	char label[32];                 /* run label, "variants" for the overlay */
	int repeat;                     /* 0 for the overlay */
};

struct plot_charts {
	struct plot_chart *v;
	size_t n;
};

/* Is gnuplot on PATH?  (exit 3 from the commands when it is not) */
bool plot_have_gnuplot(void);

/* Plot every run of doc (read from src, which names it in the titles) into
 * o->out_dir (created), appending the charts made to out.  Returns 0 or
 * -errno with err filled. */
int plot_document(const char *src, const json_t *doc, const struct plot_opts *o,
		  struct plot_charts *out, struct lab_error *err);

void plot_charts_free(struct plot_charts *c);

/* Load a result document (or a run's .jsonl stream) with its samples
 * pruned to what the charts read (harness/result/read.h).  A stream says in
 * one stderr line, prefixed with who ("pagelab plot"; NULL: nothing said),
 * that its run did not finish.  0 or -errno: -EINVAL for an input that is not one. */
int plot_load(const char *who, const char *path, json_t **out, struct lab_error *err);

/* argv[0] is "plot".  Prints each chart's path on stdout.  Exit: 0 drawn,
 * 1 gnuplot or the harness failed, 2 bad usage or input, 3 no gnuplot. */
int plot_main(int argc, char **argv);

#endif
