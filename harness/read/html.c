/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html.c — the report as one self-contained HTML page, and plots beside a
 * markdown report (harness/read/html.h).
 *
 * The page is written from three documents pagelab already makes: the
 * report's tables (pagelab.report/1), the charts of harness/read/plot.c and, for
 * results of several kernels (or --by KEY), the comparison of
 * harness/read/compare.c.  Nothing is fetched when it is opened: the style is in
 * the page, the SVGs are data: URIs (inline <svg> elements would share
 * gnuplot's element ids across charts), and there is no script.  The page
 * and its charts are made in a private directory and published when
 * complete (outdir.h).
 */
#include "html.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "compare.h"
#include "outdir.h"
#include "plot.h"
#include "read/report/report.h"
#include "result/keys.h"

static const char *jstr(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

/* ------------------------------------------------------------ escaping */

/* Every string that is not this file's own markup goes through base/escape.h:
 * the documents', the report's and comparison's (their labels are the
 * documents' and the table files'), the files' names. */
static void esc(FILE *o, const char *s)
{
	lab_esc_html(o, s);
}

static void esc_url(FILE *o, const char *s)
{
	lab_esc_url(o, s);
}

static void base64(FILE *o, const unsigned char *d, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];

		fputc(tab[v >> 18], o);
		fputc(tab[(v >> 12) & 63], o);
		fputc(tab[(v >> 6) & 63], o);
		fputc(tab[v & 63], o);
	}
	if (i < n) {
		unsigned v = (unsigned)d[i] << 16 | (i + 1 < n ? (unsigned)d[i + 1] << 8 : 0);

		fputc(tab[v >> 18], o);
		fputc(tab[(v >> 12) & 63], o);
		fputc(i + 1 < n ? tab[(v >> 6) & 63] : '=', o);
		fputc('=', o);
	}
}

/* The path of target relative to directory dir (both made absolute). */
static void rel_path(const char *dir, const char *target, char *buf, size_t len)
{
	char d[PATH_MAX], t[PATH_MAX];
	size_t common = 0, i, off = 0;

	if (realpath(dir, d) == NULL || realpath(target, t) == NULL) {
		snprintf(buf, len, "%s", target);
		return;
	}
	for (i = 0; d[i] && d[i] == t[i]; i++)
		if (d[i] == '/')
			common = i;
	if (d[i] == '\0' && (t[i] == '/' || t[i] == '\0'))
		common = i;
	buf[0] = '\0';
	for (i = common; d[i]; i++)
		if (d[i] == '/' && off < len)
			off += (size_t)snprintf(buf + off, len - off, "../");
	if (off < len)
		snprintf(buf + off, len - off, "%s", t[common] == '/' ? t + common + 1 : t + common);
}

/* ------------------------------------------------------------ page */

static const char style[] =
	"body{font-family:'DejaVu Sans',sans-serif;margin:24px;color:#111}"
	"h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #999}"
	"h3{font-size:15px}table{border-collapse:collapse;margin:8px 0;font-size:12px}"
	"th,td{border:1px solid #bbb;padding:3px 7px;vertical-align:top}th{background:#eee}"
	"td.n{text-align:right;white-space:nowrap}td.real{font-weight:bold;background:#fde0dc}"
	"a{color:#333}.notes{font-size:12px;color:#444}"
	"figure{margin:12px 0;display:inline-block;vertical-align:top}"
	"figure img{width:700px;border:1px solid #ddd}figcaption{font-size:11px;color:#444;max-width:700px}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}"
	".side{display:flex;flex-wrap:wrap;gap:20px;align-items:flex-start}"
	".side>.tbl{flex:1 1 auto;min-width:0;overflow-x:auto}"
	".side>.col{flex:0 0 704px}";

struct page_chart {
	const char *src;                /* the result file it came from */
	struct plot_chart *chart;
	bool shown;
};

/* The chart c, whose file is in dir now, inlined. */
static int inline_svg(FILE *o, const char *dir, const struct plot_chart *c)
{
	cleanup_free char *data = NULL;
	struct lab_error err;
	char path[PATH_MAX];
	size_t len;
	size_t n = strlen(c->path);

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, c->file) >= sizeof(path) ||
	    lab_read_file(path, &data, &len, &err) < 0)
		return -1;
	fputs("<figure><img alt=\"", o);
	esc(o, c->title);
	fputs(n > 4 && strcmp(c->path + n - 4, ".png") == 0 ? "\" src=\"data:image/png;base64," : "\" src=\"data:image/svg+xml;base64,", o);
	base64(o, (const unsigned char *)data, len);
	fputs("\"><figcaption>", o);
	esc(o, c->title);
	fputs("</figcaption></figure>\n", o);
	return 0;
}

static bool doc_feeds(const json_t *doc, const char *table)
{
	const json_t *r = json_object_get(json_object_get(doc, RK_SCENARIO), RK_REPORT);
	size_t i;

	for (i = 0; i < json_array_size(r); i++)
		if (json_string_value(json_array_get(r, i)) && strcmp(json_string_value(json_array_get(r, i)), table) == 0)
			return true;
	return false;
}

static void html_table(FILE *o, const json_t *t)
{
	const json_t *cols = json_object_get(t, "columns"), *rows = json_object_get(t, "rows");
	const char *article = jstr(t, "article_column");
	size_t i, k;

	fprintf(o, "<h2 id=\"t-");
	esc(o, jstr(t, "id"));
	fprintf(o, "\">%lld. ", (long long)json_integer_value(json_object_get(t, "number")));
	esc(o, jstr(t, "name"));
	fputs(" (<code>", o);
	esc(o, jstr(t, "id"));
	fputs("</code>)</h2>\n", o);
	if (jstr(t, "article_table")) {
		fputs("<p class=\"notes\">Article table: ", o);
		esc(o, jstr(t, "article_table"));
		if (jstr(t, "compare")) {
			fputs(". Compare: ", o);
			esc(o, jstr(t, "compare"));
		}
		fputs("</p>\n", o);
	}
	fputs("<table><tr><th>Row</th><th>Figure</th>", o);
	for (k = 0; k < json_array_size(cols); k++) {
		const json_t *c = json_array_get(cols, k);

		fputs("<th>", o);
		esc(o, jstr(c, "label"));
		fprintf(o, " (%lld run%s)</th>", (long long)json_integer_value(json_object_get(c, "runs")),
			json_integer_value(json_object_get(c, "runs")) == 1 ? "" : "s");
	}
	if (article != NULL) {
		fputs("<th>", o);
		esc(o, article);
		fputs("</th>", o);
	}
	fputs("</tr>\n", o);
	for (i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i), *cells = json_object_get(r, "cells");

		fputs("<tr><td>", o);
		esc(o, jstr(r, "row"));
		fputs("</td><td>", o);
		esc(o, jstr(r, "figure"));
		fputs("</td>", o);
		for (k = 0; k < json_array_size(cells); k++) {
			fputs("<td class=\"n\">", o);
			esc(o, jstr(json_array_get(cells, k), "text"));
			fputs("</td>", o);
		}
		if (article != NULL) {
			fputs("<td class=\"n\">", o);
			esc(o, jstr(json_object_get(r, "article"), "text"));
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n", o);
	if (json_array_size(json_object_get(t, "notes")) > 0) {
		fputs("<ul class=\"notes\">", o);
		for (i = 0; i < json_array_size(json_object_get(t, "notes")); i++) {
			fputs("<li>", o);
			esc(o, json_string_value(json_array_get(json_object_get(t, "notes"), i)));
			fputs("</li>", o);
		}
		fputs("</ul>\n", o);
	}
}

/* How compare judged the figure, and what else differed (compare.h). */
static void html_class(FILE *o, const json_t *f)
{
	char t[96];

	compare_class_text(f, t, sizeof(t));
	esc(o, t);
}

static void html_fingerprint(FILE *o, const json_t *fp, const char *bn, const char *nn)
{
	char t[4096];

	if (!compare_fingerprint_text(fp, bn, nn, t, sizeof(t)))
		return;
	fputs("<p class=\"notes\">", o);
	esc(o, t);
	fputs("</p>\n", o);
}

static void html_side(FILE *o, const json_t *s, const char *unit)
{
	char t[256];

	compare_side_text(s, unit, t, sizeof(t));
	fputs("<td class=\"n\">", o);
	esc(o, t);
	fputs("</td>", o);
}

static void html_compare(FILE *o, const json_t *cmp)
{
	const json_t *cs = json_object_get(cmp, "comparisons");
	char floor_text[PATH_MAX + 200];

	fputs("<h2 id=\"compare\">Compare", o);
	if (jstr(cmp, "by")) {
		fputs(" by ", o);
		esc(o, jstr(cmp, "by"));
	}
	fprintf(o, "</h2>\n<p class=\"notes\">A difference is <b>real</b> only when Welch's t-test (95 %%) and the "
		"LKP rule (change above %g %% and disjoint min–max ranges) both say so; fewer than %lld repeats a "
		"side: not enough runs. ",
		json_number_value(json_object_get(cmp, "threshold_pct")),
		(long long)json_integer_value(json_object_get(cmp, "min_repeats")));
	compare_floor_text(cmp, floor_text, sizeof(floor_text));
	esc(o, floor_text);
	fputs(" Outcome counts: Fisher's exact test.</p>\n", o);
	for (size_t c = 0; c < json_array_size(cs); c++) {
		const json_t *p = json_array_get(cs, c), *figs = json_object_get(p, "figures");
		const json_t *counts = json_object_get(p, "counts");
		const char *bn = jstr(json_object_get(p, "base"), "name"), *nn = jstr(json_object_get(p, "new"), "name");

		fputs("<h3>", o);
		esc(o, bn);
		fputs(" → ", o);
		esc(o, nn);
		fputs("</h3>\n<table><tr><th>Table</th><th>Row</th><th>Figure</th><th>", o);
		esc(o, bn);
		fputs("</th><th>", o);
		esc(o, nn);
		fputs("</th><th>Change</th><th>Welch p</th><th>Verdict</th><th>Judged as (floor)</th></tr>\n", o);
		for (size_t i = 0; i < json_array_size(figs); i++) {
			const json_t *f = json_array_get(figs, i);
			const char *v = jstr(f, "verdict");
			const json_t *w = json_object_get(f, "welch");

			fputs("<tr><td>", o);
			esc(o, jstr(f, "table"));
			fputs("</td><td>", o);
			esc(o, jstr(f, "row"));
			fputs("</td><td>", o);
			esc(o, jstr(f, "figure"));
			fputs("</td>", o);
			html_side(o, json_object_get(f, "base"), jstr(f, "unit"));
			html_side(o, json_object_get(f, "new"), jstr(f, "unit"));
			if (json_is_number(json_object_get(f, "change_pct")))
				fprintf(o, "<td class=\"n\">%+.1f %%</td>", json_number_value(json_object_get(f, "change_pct")));
			else
				fputs("<td class=\"n\">—</td>", o);
			if (json_is_object(w))
				fprintf(o, "<td class=\"n\">%.4g</td>", json_number_value(json_object_get(w, "p")));
			else
				fputs("<td class=\"n\">—</td>", o);
			fprintf(o, "<td%s>", strcmp(v, "real") ? "" : " class=\"real\"");
			esc(o, v);
			fputs("</td><td>", o);
			html_class(o, f);
			fputs("</td></tr>\n", o);
		}
		fputs("</table>\n", o);
		html_fingerprint(o, json_object_get(p, "fingerprint"), bn, nn);
		if (json_array_size(counts) > 0) {
			fputs("<table><tr><th>Variant</th><th>Outcome</th><th>", o);
			esc(o, bn);
			fputs("</th><th>", o);
			esc(o, nn);
			fputs("</th><th>Fisher p</th><th>Verdict</th></tr>\n", o);
			for (size_t i = 0; i < json_array_size(counts); i++) {
				const json_t *x = json_array_get(counts, i);

				fputs("<tr><td>", o);
				esc(o, jstr(x, "variant"));
				fputs("</td><td>", o);
				esc(o, jstr(x, "outcome"));
				fprintf(o, "</td><td class=\"n\">%lld/%lld</td><td class=\"n\">%lld/%lld</td><td class=\"n\">",
					(long long)json_integer_value(json_object_get(json_object_get(x, "base"), "k")),
					(long long)json_integer_value(json_object_get(json_object_get(x, "base"), "n")),
					(long long)json_integer_value(json_object_get(json_object_get(x, "new"), "k")),
					(long long)json_integer_value(json_object_get(json_object_get(x, "new"), "n")));
				if (json_is_number(json_object_get(x, "fisher_p")))
					fprintf(o, "%.4g", json_number_value(json_object_get(x, "fisher_p")));
				else
					fputs("—", o);
				fputs("</td><td>", o);
				esc(o, jstr(x, "verdict"));
				fputs("</td></tr>\n", o);
			}
			fputs("</table>\n", o);
		}
	}
}

/* ------------------------------------------------------------ the page */

/* What a page is made of: the documents (pruned as the charts read them),
 * the charts drawn (first[i].. first[i+1] are document i's), the report,
 * the comparison. */
struct page {
	const char *const *files;
	size_t n;
	json_t **docs;
	struct plot_charts charts;
	size_t *first;
	bool *shown;
	json_t *rep, *cmp;
	const char *plots;              /* where the charts are now (the private directory's plots/) */
};

static void page_free(struct page *pg)
{
	for (size_t i = 0; pg->docs != NULL && i < pg->n; i++)
		json_decref(pg->docs[i]);
	free(pg->docs);
	free(pg->first);
	free(pg->shown);
	json_decref(pg->rep);
	json_decref(pg->cmp);
	plot_charts_free(&pg->charts);
}

/* Every document, as the charts read them; refused whole on the first
 * that is not a result. */
static int load_docs(struct page *pg, const struct lab_progress *p, struct lab_error *err)
{
	pg->docs = calloc(pg->n + 1, sizeof(*pg->docs));
	pg->first = calloc(pg->n + 1, sizeof(*pg->first));
	if (pg->docs == NULL || pg->first == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < pg->n; i++) {
		int ret = plot_load(pg->files[i], p, &pg->docs[i], err);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Distinct stems are plot's rule; the charts of every document into dir
 * (shown as show in their paths). */
static int draw_all(struct page *pg, const char *dir, const char *show, const struct lab_progress *p,
		    struct lab_error *err)
{
	struct plot_opts po = { .out_dir = show, .stage_dir = dir, .format = PLOT_SVG, .overlay = true,
				.progress = p };

	for (size_t i = 0; i < pg->n; i++) {
		int ret;

		pg->first[i] = pg->charts.n;
		if ((ret = plot_document(pg->files[i], pg->docs[i], &po, &pg->charts, err)) < 0)
			return ret;
	}
	pg->first[pg->n] = pg->charts.n;
	return 0;
}

static void page_head(FILE *o, const struct page *pg)
{
	const json_t *r = json_object_get(pg->rep, "reference");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n"
	      "<title>pagelab report</title><style>", o);
	fputs(style, o);
	fputs("</style></head><body>\n<h1>pagelab report</h1>\n", o);
	if (r != NULL) {
		fputs("<p class=\"notes\">Reference: ", o);
		esc(o, json_is_string(json_object_get(r, "article")) ? jstr(r, "article")
			: jstr(json_object_get(r, "article"), "title"));
		fputs(" (", o);
		esc(o, jstr(r, "path"));
		fputs(")</p>\n", o);
	}
}

/* The inputs, linked relative to the page's directory (rel_dir: the
 * private directory, beside the page's own, at the same depth). */
static void page_inputs(FILE *o, const struct page *pg, const char *rel_dir)
{
	fputs("<h2>Inputs</h2>\n<table><tr><th>Result</th><th>Scenario</th><th>Kernel</th><th>cgroup</th><th>Runs</th><th>Status</th></tr>\n", o);
	for (size_t i = 0; i < pg->n; i++) {
		const json_t *doc = pg->docs[i];
		char rel[PATH_MAX * 2];

		rel_path(rel_dir, pg->files[i], rel, sizeof(rel));
		fputs("<tr><td><a href=\"", o);
		esc_url(o, rel);
		fputs("\">", o);
		esc(o, pg->files[i]);
		fputs("</a></td><td>", o);
		esc(o, jstr(json_object_get(doc, RK_SCENARIO), RK_NAME));
		fputs("</td><td>", o);
		esc(o, jstr(json_object_get(doc, RK_HOST), RK_KERNEL));
		fputs("</td><td>", o);
		esc(o, jstr(json_object_get(json_object_get(doc, RK_HOST), RK_CGROUP), RK_MEMORY));
		fprintf(o, "</td><td class=\"n\">%zu</td><td>", json_array_size(json_object_get(doc, RK_RUNS)));
		esc(o, jstr(doc, RK_STATUS));
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

/* Each table, and beside it the timelines of the runs that fed it (each
 * chart once: a run feeding two tables is drawn by the first); then the
 * charts of runs no table shown took. */
static void page_tables(FILE *o, struct page *pg)
{
	const json_t *tables = json_object_get(pg->rep, "tables");
	size_t k, i, c, any;

	for (k = 0; k < json_array_size(tables); k++) {
		const json_t *t = json_array_get(tables, k);

		fputs("<div class=\"side\"><div class=\"tbl\">\n", o);
		html_table(o, t);
		fputs("</div>\n", o);
		for (i = 0, any = 0; i < pg->n; i++) {
			if (!doc_feeds(pg->docs[i], jstr(t, "id")))
				continue;
			for (c = pg->first[i]; c < pg->first[i + 1]; c++) {
				if (pg->shown[c])
					continue;
				if (!any++)
					fputs("<div class=\"col\"><h3>Timelines of these runs</h3>\n", o);
				pg->shown[c] = true;
				inline_svg(o, pg->plots, &pg->charts.v[c]);
			}
		}
		if (any)
			fputs("</div>\n", o);
		fputs("</div>\n", o);
	}
	if (json_array_size(tables) == 0)
		fputs("<p>No article table has data in these results.</p>\n", o);
	for (c = 0, any = 0; c < pg->charts.n; c++) {
		if (pg->shown[c])
			continue;
		if (!any++)
			fputs("<h2>Other timelines</h2>\n<div class=\"charts\">\n", o);
		inline_svg(o, pg->plots, &pg->charts.v[c]);
		if (c + 1 == pg->charts.n)
			fputs("</div>\n", o);
	}
}

/* The page's text: head, inputs, tables with their charts, the comparison. */
static int page_text(struct page *pg, const char *rel_dir, char **buf, size_t *len, struct lab_error *err)
{
	FILE *o = open_memstream(buf, len);

	if (o == NULL)
		return lab_error_errno(err, errno, "open_memstream");
	page_head(o, pg);
	page_inputs(o, pg, rel_dir);
	page_tables(o, pg);
	if (pg->cmp != NULL)
		html_compare(o, pg->cmp);
	fputs("<p class=\"notes\">Charts: gnuplot, from the data and scripts in plots/ beside this page.</p>\n"
	      "</body></html>\n", o);
	if (ferror(o) | fclose(o))
		return lab_error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* Whether the results come from more than one kernel. */
static bool kernels_differ(const struct page *pg)
{
	const char *k0 = jstr(json_object_get(pg->docs[0], RK_HOST), RK_KERNEL);

	for (size_t i = 1; i < pg->n; i++) {
		const char *ki = jstr(json_object_get(pg->docs[i], RK_HOST), RK_KERNEL);

		if (k0 && ki && strcmp(k0, ki) != 0)
			return true;
	}
	return false;
}

/* The report, the charts and the comparison, in the private directory d. */
static int page_build(struct page *pg, struct outdir *d, const struct html_opts *o, struct lab_error *err)
{
	char plots[PATH_MAX], show[PATH_MAX + 8], page[PATH_MAX + 16];
	cleanup_free char *buf = NULL;
	/* The page's comparison: timings by the calibration given, else by
	 * the default floor (floor.h). */
	const struct compare_opts copts = { .threshold_pct = COMPARE_THRESHOLD_PCT, .floor = o->floor,
					    .floor_optional = o->floor_optional };
	size_t len = 0;
	int ret;

	if ((ret = compare_report_json(pg->files, pg->n, o->report, &pg->rep, err)) < 0 ||
	    (ret = outdir_sub(d, "plots", plots, sizeof(plots), err)) < 0)
		return ret;
	snprintf(show, sizeof(show), "%s/plots", d->target);
	pg->plots = plots;
	if ((ret = draw_all(pg, plots, show, o->progress, err)) < 0)
		return ret;
	if ((pg->shown = calloc(pg->charts.n + 1, sizeof(*pg->shown))) == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	if ((o->by != NULL || kernels_differ(pg)) &&
	    (ret = compare_by(o->by ? o->by : "kernel", pg->files, pg->n, &copts, NULL, &pg->cmp,
			      err)) < 0)
		return ret;
	if ((ret = page_text(pg, d->stage, &buf, &len, err)) < 0)
		return ret;
	snprintf(page, sizeof(page), "%s/index.html", d->stage);
	return lab_write_atomic(page, buf, len, err);
}

int html_page(const char *dir, const char *const *files, size_t n, const struct html_opts *o, char *page,
	      size_t len, struct lab_error *err)
{
	struct page pg = { .files = files, .n = n };
	struct outdir d;
	int ret;

	if ((ret = outdir_check(dir, "--html", "the page", err)) < 0 || (ret = load_docs(&pg, o->progress, err)) < 0)
		goto out;
	if (!plot_have_gnuplot()) {
		ret = lab_error_set(err, ENOPKG, "the plots need gnuplot (Debian: apt-get install gnuplot-nox)");
		goto out;
	}
	if ((ret = outdir_begin(&d, dir, "--html", "the page", err)) < 0)
		goto out;
	ret = page_build(&pg, &d, o, err);
	if (ret == 0)
		ret = outdir_commit(&d, err);
	else
		outdir_abort(&d);
	if (ret == 0)
		snprintf(page, len, "%s/index.html", dir);
out:
	page_free(&pg);
	return ret;
}

int html_plots(const char *dir, const char *const *files, size_t n, const struct html_opts *o, FILE *out,
	       struct lab_error *err)
{
	struct page pg = { .files = files, .n = n };
	struct outdir d;
	int ret;

	if ((ret = outdir_check(dir, "--plots", "the charts", err)) < 0 || (ret = load_docs(&pg, o->progress, err)) < 0)
		goto out;
	if (!plot_have_gnuplot()) {
		ret = lab_error_set(err, ENOPKG, "the plots need gnuplot (Debian: apt-get install gnuplot-nox)");
		goto out;
	}
	if ((ret = report_write_files(files, n, o->report, REPORT_MARKDOWN, out, err)) < 0) {
		if (err->code != ENOMEM)
			err->code = EINVAL;
		ret = -err->code;
		goto out;
	}
	if ((ret = outdir_begin(&d, dir, "--plots", "the charts", err)) < 0)
		goto out;
	ret = draw_all(&pg, d.stage, dir, o->progress, err);
	if (ret == 0)
		ret = outdir_commit(&d, err);
	else
		outdir_abort(&d);
	if (ret < 0)
		goto out;
	fputs("\n## Plots\n\nDrawn by gnuplot into ", out);
	lab_esc_markdown(out, dir);
	fputs(" (data and scripts beside them).\n\n", out);
	for (size_t c = 0; c < pg.charts.n; c++) {
		/* The title is the document's text; the path a link's target. */
		fputs("![", out);
		lab_esc_markdown(out, pg.charts.v[c].title);
		fputs("](", out);
		lab_esc_url(out, pg.charts.v[c].path);
		fputs(")\n\n", out);
	}
	if (fflush(out) != 0 || ferror(out))
		ret = lab_error_errno(err, errno ? errno : EIO, "writing the report");
out:
	page_free(&pg);
	return ret;
}
