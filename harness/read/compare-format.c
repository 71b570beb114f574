/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare-format.c — a pagelab.compare/1 document (compare.h) as markdown
 * or CSV, written into the FILE the caller gives.
 */
#include "compare.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/escape.h"
#include "stats.h"

static const char *jstr(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

/* ------------------------------------------------------------ output */

static void fmt_num(double v, char *buf, size_t len)
{
	char raw[64], *dot;
	size_t n, lead, k = 0;
	bool whole = fabs(v - round(v)) < 1e-9 && fabs(v) < 1e15;

	if (whole)
		snprintf(raw, sizeof(raw), "%.0f", fabs(v));
	else
		snprintf(raw, sizeof(raw), "%.*f", fabs(v) >= 100 ? 1 : fabs(v) >= 1 ? 2 : 4, fabs(v));
	dot = strchr(raw, '.');
	n = dot ? (size_t)(dot - raw) : strlen(raw);
	lead = n % 3 ? n % 3 : 3;
	if (v < 0 && k + 1 < len)
		buf[k++] = '-';
	for (size_t i = 0; raw[i] && k + 2 < len; i++) {
		if (i > 0 && i < n && (i - lead) % 3 == 0 && i >= lead)
			buf[k++] = ',';
		buf[k++] = raw[i];
	}
	buf[k] = '\0';
}

void compare_side_text(const json_t *s, const char *unit, char *buf, size_t len)
{
	char med[48], lo[48], hi[48];
	double m = json_number_value(json_object_get(s, "median"));
	double a = json_number_value(json_object_get(s, "min")), b = json_number_value(json_object_get(s, "max"));

	if (json_integer_value(json_object_get(s, "n")) == 0) {
		snprintf(buf, len, "—");
		return;
	}
	fmt_num(m, med, sizeof(med));
	fmt_num(a, lo, sizeof(lo));
	fmt_num(b, hi, sizeof(hi));
	if (unit != NULL && m == 1 && a == b && strncmp(unit, "pages", 5) == 0)
		unit = "page";
	if (a == b)
		snprintf(buf, len, "%s%s%s (n=%lld)", med, unit ? " " : "", unit ? unit : "",
			 (long long)json_integer_value(json_object_get(s, "n")));
	else
		snprintf(buf, len, "%s%s%s (%s–%s, n=%lld)", med, unit ? " " : "", unit ? unit : "", lo, hi,
			 (long long)json_integer_value(json_object_get(s, "n")));
}

static void p_text(const json_t *welch, char *buf, size_t len)
{
	double p;

	if (!json_is_object(welch)) {
		snprintf(buf, len, "—");
		return;
	}
	p = json_number_value(json_object_get(welch, "p"));
	if (p < 0.0001)
		snprintf(buf, len, "< 0.0001");
	else
		snprintf(buf, len, "%.4f", p);
}

static void change_text(const json_t *c, char *buf, size_t len)
{
	if (json_is_number(c))
		snprintf(buf, len, "%+.1f %%", json_number_value(c));
	else
		snprintf(buf, len, "—");
}

/* Every string of the documents (names, paths, labels, units, outcomes)
 * goes through base/escape.h: no cell split, no raw HTML, no control
 * character on a terminal.  s may be NULL. */
static void md(FILE *o, const char *s)
{
	lab_esc_markdown(o, s);
}

static void md_inputs(FILE *o, const json_t *p, const char *bn, const char *nn)
{
	for (int s = 0; s < 2; s++) {
		const json_t *in = json_object_get(json_object_get(p, s ? "new" : "base"), "inputs");

		md(o, s ? nn : bn);
		fputc(':', o);
		for (size_t i = 0; i < json_array_size(in); i++) {
			const json_t *x = json_array_get(in, i);

			fputs(i ? ", " : " ", o);
			md(o, jstr(x, "path"));
			fputs(" (", o);
			md(o, jstr(x, "scenario") ? jstr(x, "scenario") : "?");
			fputs(", kernel ", o);
			md(o, jstr(x, "kernel") ? jstr(x, "kernel") : "?");
			fprintf(o, ", %lld runs)", (long long)json_integer_value(json_object_get(x, "runs")));
		}
		fputs("  \n", o);
	}
}

bool compare_fingerprint_text(const json_t *fp, const char *bn, const char *nn, char *buf, size_t len)
{
	const json_t *d = json_object_get(fp, "different");
	bool b = json_is_true(json_object_get(fp, "base")), n = json_is_true(json_object_get(fp, "new"));
	size_t k;

	buf[0] = '\0';
	if (!b && !n)
		return false;
	if (!b || !n) {
		snprintf(buf, len, "Also different: not known (%s's results carry no host.fingerprint).",
			 (b ? nn : bn) ? (b ? nn : bn) : "?");
		return true;
	}
	if (json_array_size(d) == 0) {
		snprintf(buf, len, "Also different: nothing else in host.fingerprint.");
		return true;
	}
	k = (size_t)snprintf(buf, len, "Also different (host.fingerprint):");
	for (size_t i = 0; i < json_array_size(d) && k < len; i++) {
		const json_t *x = json_array_get(d, i);

		k += (size_t)snprintf(buf + k, len - k, "%s%s %s → %s", i ? "; " : " ", jstr(x, "field") ? jstr(x, "field") : "",
				      jstr(x, "base") ? jstr(x, "base") : "", jstr(x, "new") ? jstr(x, "new") : "");
	}
	if (k + 1 < len)
		memcpy(buf + k, ".", 2);
	return true;
}

/* What else differs between the sides (report.h: report_fingerprint_diff): one
 * line, nothing when neither side's results carry a fingerprint. */
static void md_fingerprint(FILE *o, const json_t *fp, const char *bn, const char *nn)
{
	char t[4096];

	if (!compare_fingerprint_text(fp, bn, nn, t, sizeof(t)))
		return;
	fputc('\n', o);
	md(o, t);
	fputc('\n', o);
}

void compare_class_text(const json_t *f, char *buf, size_t len)
{
	const json_t *fl = json_object_get(f, "floor");
	const char *from = jstr(fl, "from"), *cls = jstr(f, "class") ? jstr(f, "class") : "count";

	if (!json_is_number(json_object_get(fl, "pct"))) {
		snprintf(buf, len, "%s", cls);
		return;
	}
	snprintf(buf, len, "%s (%g %%%s)", cls, json_number_value(json_object_get(fl, "pct")),
		 from == NULL || strcmp(from, "threshold") == 0 ? "" : strcmp(from, "calibration") == 0 ? ", calibrated"
												 : ", default");
}

static void md_class(FILE *o, const json_t *f)
{
	char t[96];

	compare_class_text(f, t, sizeof(t));
	md(o, t);
}

/* One figure's line; returns which tally it adds to. */
static int md_figure(FILE *o, const json_t *f)
{
	const char *unit = jstr(f, "unit"), *v = jstr(f, "verdict");
	char b[256], n[256], ch[32], pt[32];

	compare_side_text(json_object_get(f, "base"), unit, b, sizeof(b));
	compare_side_text(json_object_get(f, "new"), unit, n, sizeof(n));
	change_text(json_object_get(f, "change_pct"), ch, sizeof(ch));
	p_text(json_object_get(f, "welch"), pt, sizeof(pt));
	fputs("| ", o);
	md(o, jstr(f, "row"));
	if (jstr(f, "column")) {
		fputs(" · ", o);
		md(o, jstr(f, "column"));
	}
	fputs(" | ", o);
	md(o, jstr(f, "figure"));
	fputs(" | ", o);
	md(o, b);
	fputs(" | ", o);
	md(o, n);
	fprintf(o, " | %s | %s | %s%s%s%s%s | ", ch, pt, strcmp(v, "real") ? "" : "**", v, strcmp(v, "real") ? "" : "**",
		jstr(f, "direction") ? ", " : "", jstr(f, "direction") ? jstr(f, "direction") : "");
	md_class(o, f);
	fputs(" |\n", o);
	return !strcmp(v, "real") ? 0 : !strcmp(v, "t-test only") ? 1 : !strcmp(v, "range only") ? 2
		: !strcmp(v, "same") ? 3 : !strcmp(v, "not comparable") ? 5 : 4;
}

static void md_counts(FILE *o, const json_t *counts, const char *bn, const char *nn)
{
	fputs("\n### Outcomes (Fisher's exact test)\n\n| Variant | Outcome | ", o);
	md(o, bn);
	fputs(" | ", o);
	md(o, nn);
	fputs(" | Fisher p | Verdict |\n|---|---|---:|---:|---:|---|\n", o);
	for (size_t i = 0; i < json_array_size(counts); i++) {
		const json_t *x = json_array_get(counts, i);
		const json_t *xb = json_object_get(x, "base"), *xn = json_object_get(x, "new");

		fputs("| ", o);
		md(o, jstr(x, "variant"));
		fputs(" | ", o);
		md(o, jstr(x, "outcome"));
		fprintf(o, " | %lld/%lld | %lld/%lld | ",
			(long long)json_integer_value(json_object_get(xb, "k")),
			(long long)json_integer_value(json_object_get(xb, "n")),
			(long long)json_integer_value(json_object_get(xn, "k")),
			(long long)json_integer_value(json_object_get(xn, "n")));
		if (json_is_number(json_object_get(x, "fisher_p")))
			fprintf(o, "%.4g", json_number_value(json_object_get(x, "fisher_p")));
		else
			fputs("—", o);
		fprintf(o, " | %s |\n", jstr(x, "verdict"));
	}
}

/* One comparison: its inputs, a table per report table, the counts. */
static void md_pair(FILE *o, const json_t *p)
{
	const json_t *figs = json_object_get(p, "figures"), *counts = json_object_get(p, "counts");
	const char *bn = jstr(json_object_get(p, "base"), "name"), *nn = jstr(json_object_get(p, "new"), "name");
	size_t tally[6] = { 0 };
	const char *last_table = NULL;

	fputs("\n## ", o);
	md(o, bn);
	fputs(" → ", o);
	md(o, nn);
	fputs("\n\n", o);
	md_inputs(o, p, bn, nn);
	md_fingerprint(o, json_object_get(p, "fingerprint"), bn, nn);
	for (size_t i = 0; i < json_array_size(figs); i++) {
		const json_t *f = json_array_get(figs, i);
		const char *table = jstr(f, "table") ? jstr(f, "table") : "";

		if (last_table == NULL || strcmp(last_table, table) != 0) {
			last_table = table;
			fputs("\n### ", o);
			md(o, jstr(f, "table_name") ? jstr(f, "table_name") : "");
			fputs(" (`", o);
			md(o, table);
			fputs("`)\n\n| Row | Figure | ", o);
			md(o, bn);
			fputs(" | ", o);
			md(o, nn);
			fputs(" | Change | Welch p | Verdict | Class (floor) |\n|---|---|---:|---:|---:|---:|---|---|\n", o);
		}
		tally[md_figure(o, f)]++;
	}
	if (json_array_size(figs) == 0)
		fputs("\nNo report figure is on both sides.\n", o);
	if (json_array_size(counts) > 0)
		md_counts(o, counts, bn, nn);
	for (size_t i = 0; i < json_array_size(json_object_get(p, "notes")); i++) {
		fputs("\n- ", o);
		md(o, json_string_value(json_array_get(json_object_get(p, "notes"), i)));
	}
	fprintf(o, "\n%zu figures: %zu real, %zu t-test only, %zu range only, %zu same, %zu not enough runs",
		json_array_size(figs), tally[0], tally[1], tally[2], tally[3], tally[4]);
	if (tally[5] > 0)
		fprintf(o, ", %zu not comparable (timings of two clocks)", tally[5]);
	fputs(".\n", o);
}

void compare_floor_text(const json_t *cmp, char *buf, size_t len)
{
	const json_t *tf = json_object_get(cmp, "timing_floor");
	const char *file = jstr(tf, "file");

	snprintf(buf, len, "A timing's change must also be above its noise floor: %s%s%s%g %% (the default).",
		 file ? "the spread calibrated in " : "", file ? file : "", file ? ", else " : "",
		 json_number_value(json_object_get(tf, "default_pct")));
}

void compare_markdown(const json_t *cmp, FILE *o)
{
	const json_t *cs = json_object_get(cmp, "comparisons");
	char t[PATH_MAX + 200];

	fputs("# pagelab compare", o);
	if (jstr(cmp, "by")) {
		fputs(" by ", o);
		md(o, jstr(cmp, "by"));
	}
	fprintf(o, "\n\nA difference is **real** only when Welch's t-test (95 %%) and the LKP rule (change above %g %% "
		"and disjoint min–max ranges) both say so; with fewer than %d repeats a side: not enough runs. ",
		json_number_value(json_object_get(cmp, "threshold_pct")), STATS_MIN_REPEATS);
	compare_floor_text(cmp, t, sizeof(t));
	md(o, t);
	fputs(" Outcome counts: Fisher's exact test (two-sided).\n", o);
	for (size_t c = 0; c < json_array_size(cs); c++)
		md_pair(o, json_array_get(cs, c));
}

/* Every text field quoted (as compare has always written them). */
static void csv_field(FILE *o, const char *s)
{
	lab_esc_csv(o, s, true);
}

/* A line's first columns: base, new, and the kind with its table ("figure,",
 * "count,outcome,": written as given, ending in the comma before the row). */
static void csv_lead(FILE *o, const char *bn, const char *nn, const char *kind)
{
	csv_field(o, bn);
	fputc(',', o);
	csv_field(o, nn);
	fprintf(o, ",%s", kind);
}

static void csv_num(FILE *o, const json_t *v)
{
	fputc(',', o);
	if (json_is_number(v))
		fprintf(o, "%.10g", json_number_value(v));
}

/* What else differs between the sides: a line per field of host.fingerprint,
 * kind "fingerprint", table "host.fingerprint", row the field, figure the
 * base side's text and column the new side's. */
static void csv_fingerprint(FILE *o, const json_t *fp, const char *bn, const char *nn)
{
	const json_t *d = json_object_get(fp, "different");

	for (size_t i = 0; i < json_array_size(d); i++) {
		const json_t *x = json_array_get(d, i);

		csv_lead(o, bn, nn, "fingerprint,host.fingerprint,");
		csv_field(o, jstr(x, "field"));
		fputc(',', o);
		csv_field(o, jstr(x, "base"));
		fputc(',', o);
		csv_field(o, jstr(x, "new"));
		fputs(",,,,,,,,,,,,,,,,,,\n", o);
	}
}

void compare_csv(const json_t *cmp, FILE *o)
{
	const json_t *cs = json_object_get(cmp, "comparisons");

	fputs("base,new,kind,table,row,figure,column,unit,base_n,base_median,base_min,base_max,new_n,new_median,"
	      "new_min,new_max,change_pct,welch_p,above_threshold,disjoint,fisher_p,verdict,class,floor_pct,floor_from\n", o);
	for (size_t c = 0; c < json_array_size(cs); c++) {
		const json_t *p = json_array_get(cs, c);
		const char *bn = jstr(json_object_get(p, "base"), "name"), *nn = jstr(json_object_get(p, "new"), "name");
		const json_t *figs = json_object_get(p, "figures"), *counts = json_object_get(p, "counts");

		for (size_t i = 0; i < json_array_size(figs); i++) {
			const json_t *f = json_array_get(figs, i);
			const json_t *b = json_object_get(f, "base"), *n = json_object_get(f, "new");
			const json_t *lkp = json_object_get(f, "lkp");

			csv_lead(o, bn, nn, "figure,");
			csv_field(o, jstr(f, "table"));
			fputc(',', o);
			csv_field(o, jstr(f, "row"));
			fputc(',', o);
			csv_field(o, jstr(f, "figure"));
			fputc(',', o);
			csv_field(o, jstr(f, "column"));
			fputc(',', o);
			csv_field(o, jstr(f, "unit"));
			csv_num(o, json_object_get(b, "n"));
			csv_num(o, json_object_get(b, "median"));
			csv_num(o, json_object_get(b, "min"));
			csv_num(o, json_object_get(b, "max"));
			csv_num(o, json_object_get(n, "n"));
			csv_num(o, json_object_get(n, "median"));
			csv_num(o, json_object_get(n, "min"));
			csv_num(o, json_object_get(n, "max"));
			csv_num(o, json_object_get(f, "change_pct"));
			csv_num(o, json_object_get(json_object_get(f, "welch"), "p"));
			fprintf(o, ",%s,%s,,", json_is_true(json_object_get(lkp, "above_threshold")) ? "yes" : "no",
				json_is_true(json_object_get(lkp, "disjoint")) ? "yes" : "no");
			csv_field(o, jstr(f, "verdict"));
			fputc(',', o);
			csv_field(o, jstr(f, "class"));
			csv_num(o, json_object_get(json_object_get(f, "floor"), "pct"));
			fputc(',', o);
			csv_field(o, jstr(json_object_get(f, "floor"), "from"));
			fputc('\n', o);
		}
		for (size_t i = 0; i < json_array_size(counts); i++) {
			const json_t *x = json_array_get(counts, i);

			csv_lead(o, bn, nn, "count,outcome,");
			csv_field(o, jstr(x, "variant"));
			fputc(',', o);
			csv_field(o, jstr(x, "outcome"));
			fputs(",,runs", o);
			csv_num(o, json_object_get(json_object_get(x, "base"), "n"));
			csv_num(o, json_object_get(json_object_get(x, "base"), "k"));
			fputs(",,", o);
			csv_num(o, json_object_get(json_object_get(x, "new"), "n"));
			csv_num(o, json_object_get(json_object_get(x, "new"), "k"));
			fputs(",,,,,,", o);
			csv_num(o, json_object_get(x, "fisher_p"));
			fputc(',', o);
			csv_field(o, jstr(x, "verdict"));
			fputs(",,,\n", o);
		}
		csv_fingerprint(o, json_object_get(p, "fingerprint"), bn, nn);
	}
}
