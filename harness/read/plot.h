/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.h — a run's timeline drawn by gnuplot (`pagelab plot`,
 * harness/cmd/plot.c; `report --html` and `report --plots` draw through it).
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
 * with its low line, sandbox usage, cumulative scans); a fit's document
 * (pagelab fit) also gets STEM-fit: its curve over the quotas probed, each
 * load objective's figure ÷ the base's, the probes that failed and met, the
 * sandbox's peak against the quota, refaults and major faults.  Every chart's title
 * names its kernel, scenario, variant and result file; a panel whose figure
 * the result lacks says so in words instead of drawing an empty axis.
 * The scripts stay beside the charts: `cd DIR && gnuplot STEM-A1.gp` redraws.
 *
 * Every string of a document reaches a script only as a '...' literal
 * through lab_esc_gnuplot (base/escape.h), never in a comment: a result is
 * data, whatever its strings hold.  The library never prints: gnuplot's
 * warnings go to plot_opts.progress, errors come back as -errno.
 */
#ifndef PAGELAB_PLOT_H
#define PAGELAB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"

enum plot_format { PLOT_SVG, PLOT_PNG };

struct plot_opts {
	const char *out_dir;            /* where the charts end up (their paths name it) */
	enum plot_format format;
	const char *run_label;          /* NULL = every run */
	bool overlay;                   /* also the variants chart */
	const char *stage_dir;          /* where the files are written until they are
					 * complete (outdir.h); NULL: out_dir itself */
	const struct lab_progress *progress;   /* gnuplot's warnings; NULL: dropped */
};

struct plot_chart {
	char *path;                     /* DIR/STEM-A1.svg (DIR: out_dir) */
	char *title;                    /* what the chart's title says (the document's text) */
	char label[32];                 /* run label, "variants" for the overlay */
	int repeat;                     /* 0 for the overlay */
	char *file;                     /* STEM-A1.svg: the file's name in the directory */
};

struct plot_charts {
	struct plot_chart *v;
	size_t n;
};

/* Is gnuplot on PATH?  (exit 3 from the commands when it is not) */
bool plot_have_gnuplot(void);

/* Plot every run of doc (read from src, which names it in the titles) into
 * o->stage_dir (or o->out_dir), which must exist; appends the charts made
 * to out.  Returns 0 or -errno with err filled: -EEXIST for a chart already
 * there that is not a regular file. */
int plot_document(const char *src, const json_t *doc, const struct plot_opts *o,
		  struct plot_charts *out, struct lab_error *err);

void plot_charts_free(struct plot_charts *c);

/* Load a result document (or a run's .jsonl stream) with its samples
 * pruned to what the charts read (harness/result/read.h).  A stream is said
 * in one line to p (LAB_SAY_WARN, naming the file: its run did not finish).
 * 0 or -errno: -EINVAL for an input that is not one (or cannot be read). */
int plot_load(const char *path, const struct lab_progress *p, json_t **out, struct lab_error *err);

/* `pagelab plot FILE...`: every input loaded and checked first (bad input
 * draws nothing; two files of one stem are refused), then every chart
 * drawn into a private directory beside o->out_dir and moved into place
 * when all are complete (outdir.h).  Returns 0 with the charts in out, or
 * -errno: -EINVAL bad input, -EEXIST / -ENOTDIR / -EPERM an output
 * directory refused, -ENOPKG gnuplot missing, -ENOENT no run labelled
 * o->run_label, others internal. */
int plot_files(const char *const *files, size_t n, const struct plot_opts *o, struct plot_charts *out,
	       struct lab_error *err);

#endif
