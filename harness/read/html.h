/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html.h — `pagelab report --html DIR` and `pagelab report --plots DIR`.
 *
 *   pagelab report --html DIR [--by KEY] [--reference FILE] RESULT.json...
 *   pagelab report --plots DIR [report options] RESULT.json...
 *
 * --html writes DIR/index.html: one self-contained page (no network, no
 * script, no external font or style; the charts are SVGs inlined as data:
 * URIs) with the report's tables, a column per kernel, each table followed
 * by the timelines of the runs that fed it (harness/read/plot.h), the inputs
 * linked (relative links from DIR), and — when the results come from more
 * than one kernel, or with --by KEY — the comparison of harness/compare.h.
 * The charts' data, scripts and SVGs stay in DIR/plots/.
 *
 * --plots DIR prints the markdown report as `report` does and draws every
 * run's chart into DIR, listing them after the tables as markdown images.
 */
#ifndef PAGELAB_HTML_H
#define PAGELAB_HTML_H

#include <stdbool.h>

/* True when argv asks for --html or --plots (report_main hands over). */
bool html_wanted(int argc, char **argv);

/* argv[0] is "report".  Exit: 0 written, 1 internal or gnuplot failure,
 * 2 bad usage or input, 3 no gnuplot. */
int html_main(int argc, char **argv);

#endif
