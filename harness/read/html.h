/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html.h — the report as a page, and the report with its plots
 * (`pagelab report --html DIR`, `pagelab report --plots DIR`:
 * harness/cmd/report.c).
 *
 * html_page writes DIR/index.html: one self-contained page (no network, no
 * script, no external font or style; the charts are SVGs inlined as data:
 * URIs) with the report's tables, a column per kernel, each table followed
 * by the timelines of the runs that fed it (harness/read/plot.h), the inputs
 * linked (relative links from DIR), and — when the results come from more
 * than one kernel, or with by — the comparison of harness/read/compare.h.
 * The charts' data, scripts and SVGs stay in DIR/plots/.
 *
 * html_plots writes the markdown report into out as `report` prints it,
 * draws every run's chart into DIR and lists them after the tables as
 * markdown images.
 *
 * Both check DIR before a document is read and make everything in a
 * private directory published when complete (outdir.h); every string of a
 * document goes through base/escape.h.  They print nothing of their own:
 * warnings go to o->progress, errors come back as -errno with err filled:
 * -ENOPKG no gnuplot; -ENOMEM, -EIO internal; the rest bad input or a
 * refused directory.
 */
#ifndef PAGELAB_HTML_H
#define PAGELAB_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"
#include "base/progress.h"

struct report_options;

struct floor;
struct html_opts {
	const char *by;                         /* compare by this key (NULL: by kernel when they differ) */
	const struct floor *floor;              /* the comparison's calibration (NULL: default floors) */
	bool floor_optional;                    /* floor is the default location's: set aside if not this machine's */
	const struct report_options *report;    /* --reference, --tables, where its warnings go */
	const struct lab_progress *progress;    /* warnings: a stream read, gnuplot's */
};

/* The page; page gets DIR/index.html. */
int html_page(const char *dir, const char *const *files, size_t n, const struct html_opts *o, char *page,
	      size_t len, struct lab_error *err);

/* The markdown report into out, then the charts drawn into DIR and listed. */
int html_plots(const char *dir, const char *const *files, size_t n, const struct html_opts *o, FILE *out,
	       struct lab_error *err);

#endif
