/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.h — which differences between two sets of results are real
 * (`pagelab compare`, harness/cmd/compare.c; the HTML page's comparison).
 *
 * Every figure of every report table (harness/read/report/report.h) that both sides
 * have is compared: each side's median and min–max over its repeats, the
 * change in %, Welch's t-test at 95 % (GSL's t distribution) when both sides
 * have >= 3 repeats, and the LKP rule (the change is above --threshold and
 * the ranges do not overlap).  A difference is "real" only when both say
 * so; with fewer repeats a side the verdict is "not enough runs".  Outcomes
 * are counts (OOM-killed in 3 of 3 runs against 0 of 3): Fisher's exact test.
 *
 * --by KEY splits one set of results into groups and compares each group
 * with the first: KEY is "kernel" (host.kernel), a variant key of the
 * scenario's matrix (thp, wsf, advice, …) or a parameter; "wsf" and "thp"
 * also find the machine's own setting (vm.watermark_scale_factor, THP
 * enabled) when no run varies it.
 *
 * Every figure is a count or a timing (harness/read/floor.h): a timing's
 * change must also be above its noise floor — its A/A calibration's spread
 * (struct compare_opts' floor), else FLOOR_DEFAULT_PCT — and each figure
 * says which class it is and which floor it had ("class", "floor").  A
 * timing is judged only between sides that ran on the same clock: a
 * document's is its "vm" (accel and arch: "tcg guest, x86_64"), "pagelab
 * guest" when it says it ran in one without saying how, else "host".
 * Across clocks a timing's verdict is "not comparable" (and "why" says
 * which two), the pair's notes say so once; counts are judged as ever.
 *
 * The comparison is a "pagelab.compare/1" JSON document, printed as
 * markdown, CSV or JSON, and rendered into the HTML report (harness/read/html.h).
 */
#ifndef PAGELAB_COMPARE_H
#define PAGELAB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"

#define COMPARE_SCHEMA "pagelab.compare/1"
#define COMPARE_THRESHOLD_PCT 1.0       /* the LKP rule's default change */

struct floor;

/* How to judge.  floor NULL: every timing has FLOOR_DEFAULT_PCT.  A floor
 * whose host (floor.h) is not that of every document compared is refused
 * (-EINVAL) — unless floor_optional (the default location's file, found
 * rather than named): then it is set aside with a note and a warning. */
struct compare_opts {
	double threshold_pct;           /* the LKP rule's change, COMPARE_THRESHOLD_PCT */
	const struct floor *floor;
	bool floor_optional;
	/* Set by compare itself for one pair, not by a caller: why its
	 * timings are not judged — the sides' clocks differ (a TCG guest's
	 * against a host's, or two emulated architectures) — or NULL. */
	const char *untimed;
};

/* BASE against NEW: a pagelab.compare/1 document in *out.  A run's stream
 * read instead of a document is said to p (one line naming it; p may be
 * NULL).  Returns 0, or -errno with err filled (-EINVAL: bad input). */
int compare_sides(const char *const *base, size_t nbase, const char *const *new_, size_t nnew,
		  const struct compare_opts *o, const struct lab_progress *p, json_t **out, struct lab_error *err);

/* The results split by key, each group against the first. */
int compare_by(const char *key, const char *const *files, size_t n, const struct compare_opts *o,
	       const struct lab_progress *p, json_t **out, struct lab_error *err);

/* The machine and scenario of a set of result files, for a calibration:
 * every file must have run on the same host (floor.h) and the same scenario
 * with the same parameters (-EINVAL naming the first that did not). */
struct floor_host;
int compare_same_settings(const char *const *files, size_t n, struct floor_host *host, char *scenario,
			  size_t slen, struct lab_error *err);

/* The report engine's tables for these result files, as a
 * pagelab.report/1 document (harness/read/report/report.h's JSON; opt NULL: defaults). */
struct report_options;
int compare_report_json(const char *const *paths, size_t n, const struct report_options *opt, json_t **out,
			struct lab_error *err);

/* One side of a figure as compare prints it: "345 MiB (340–350, n=3)". */
void compare_side_text(const json_t *side, const char *unit, char *buf, size_t len);

/* How a figure was judged: "count (1 %)", "timing (16.7 %, calibrated)",
 * "timing (100 %, default)" (floor.h). */
void compare_class_text(const json_t *figure, char *buf, size_t len);

/* How timings were judged, one sentence: "A timing's change must also be
 * above its noise floor: the spread calibrated in FILE, else 100 % (the
 * default)." — FILE (the document's) raw: the caller escapes the text. */
void compare_floor_text(const json_t *cmp, char *buf, size_t len);

/* What else differs between a pair's sides (its "fingerprint" object), as
 * one sentence: "Also different (host.fingerprint): FIELD BASE → NEW; …."
 * false (buf empty) when neither side's results carry a fingerprint.  The
 * documents' strings are in it raw: the caller escapes the whole text. */
bool compare_fingerprint_text(const json_t *fp, const char *base, const char *new_, char *buf, size_t len);

/* The document as markdown, and as CSV (one line per figure or count, with
 * a header), into o; every string of the documents through base/escape.h. */
void compare_markdown(const json_t *cmp, FILE *o);
void compare_csv(const json_t *cmp, FILE *o);

#endif
