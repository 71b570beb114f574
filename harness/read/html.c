/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html.c — the report as one self-contained HTML page, and plots beside a
 * markdown report (harness/read/html.h).
 *
 * The page is written from three documents pagelab already makes: the
 * report's tables (pagelab.report/1), the charts of harness/read/plot.c and, for
 * results of several kernels (or --by KEY), the comparison of
 * harness/compare.c.  Nothing is fetched when it is opened: the style is in
 * the page, the SVGs are data: URIs (inline <svg> elements would share
 * gnuplot's element ids across charts), and there is no script.
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

#include "cmd/cli.h"
#include "compare.h"
#include "base/fileio.h"
#include "plot.h"
#include "read/report/report.h"
#include "cmd/exitcode.h"
#include "result/keys.h"

#define EXIT_INTERNAL LAB_EXIT_HARNESS
#define EXIT_BAD_INPUT LAB_EXIT_USAGE
#define EXIT_CANNOT LAB_EXIT_CANNOT

static const char *jstr(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

bool html_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--html") == 0 || strncmp(argv[i], "--html=", 7) == 0 ||
		    strcmp(argv[i], "--plots") == 0 || strncmp(argv[i], "--plots=", 8) == 0)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------ escaping */

static void esc(FILE *o, const char *s)
{
	for (; s != NULL && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		default: fputc(*s, o);
		}
	}
}

/* A URL path: everything but unreserved characters and '/' percent-encoded. */
static void esc_url(FILE *o, const char *s)
{
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c))
			fputc(c, o);
		else
			fprintf(o, "%%%02X", c);
	}
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
	".side{display:flex;gap:20px;align-items:flex-start}.side>.tbl{flex:1 1 auto;min-width:0}"
	".side>.col{flex:0 0 704px}";

struct page_chart {
	const char *src;                /* the result file it came from */
	struct plot_chart *chart;
	bool shown;
};

static int inline_svg(FILE *o, const struct plot_chart *c)
{
	cleanup_free char *data = NULL;
	struct lab_error err;
	size_t len;
	size_t n = strlen(c->path);

	if (lab_read_file(c->path, &data, &len, &err) < 0)
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

	fputs("<h2 id=\"compare\">Compare", o);
	if (jstr(cmp, "by")) {
		fputs(" by ", o);
		esc(o, jstr(cmp, "by"));
	}
	fprintf(o, "</h2>\n<p class=\"notes\">A difference is <b>real</b> only when Welch's t-test (95 %%) and the "
		"LKP rule (change above %g %% and disjoint min–max ranges) both say so; fewer than %lld repeats a "
		"side: not enough runs. Outcome counts: Fisher's exact test.</p>\n",
		json_number_value(json_object_get(cmp, "threshold_pct")),
		(long long)json_integer_value(json_object_get(cmp, "min_repeats")));
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
		fputs("</th><th>Change</th><th>Welch p</th><th>Verdict</th></tr>\n", o);
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
			fputs("</td></tr>\n", o);
		}
		fputs("</table>\n", o);
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
				fprintf(o, "</td><td class=\"n\">%lld/%lld</td><td class=\"n\">%lld/%lld</td>"
					"<td class=\"n\">%.4g</td><td>",
					(long long)json_integer_value(json_object_get(json_object_get(x, "base"), "k")),
					(long long)json_integer_value(json_object_get(json_object_get(x, "base"), "n")),
					(long long)json_integer_value(json_object_get(json_object_get(x, "new"), "k")),
					(long long)json_integer_value(json_object_get(json_object_get(x, "new"), "n")),
					json_number_value(json_object_get(x, "fisher_p")));
				esc(o, jstr(x, "verdict"));
				fputs("</td></tr>\n", o);
			}
			fputs("</table>\n", o);
		}
	}
}

/* ------------------------------------------------------------ args */

struct html_args {
	const char *html_dir, *plots_dir, *by, *reference;
	const char **files;
	size_t nfiles;
	const char **tables;            /* --tables FILE... */
	size_t ntables;
};

static int parse(int argc, char **argv, struct html_args *a)
{
	bool only_files = false;

	a->files = calloc((size_t)argc + 1, sizeof(*a->files));
	a->tables = calloc((size_t)argc + 1, sizeof(*a->tables));
	if (a->files == NULL || a->tables == NULL)
		return -ENOMEM;
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		int m;

		if (only_files || argv[i][0] != '-') {
			a->files[a->nfiles++] = argv[i];
		} else if (strcmp(argv[i], "--") == 0) {
			only_files = true;
		} else if ((m = cli_opt_value(argc, argv, &i, "--html", &v)) != 0) {
			if (m < 0 || !*v)
				return fprintf(stderr, "pagelab report: --html takes a directory\n"), -EINVAL;
			a->html_dir = v;
		} else if ((m = cli_opt_value(argc, argv, &i, "--plots", &v)) != 0) {
			if (m < 0 || !*v)
				return fprintf(stderr, "pagelab report: --plots takes a directory\n"), -EINVAL;
			a->plots_dir = v;
		} else if ((m = cli_opt_value(argc, argv, &i, "--by", &v)) != 0) {
			if (m < 0 || !*v)
				return fprintf(stderr, "pagelab report: --by takes a key (kernel, thp, wsf, …)\n"), -EINVAL;
			a->by = v;
		} else if ((m = cli_opt_value(argc, argv, &i, "--reference", &v)) != 0) {
			if (m < 0)
				return fprintf(stderr, "pagelab report: --reference takes a file\n"), -EINVAL;
			a->reference = v;
		} else if ((m = cli_opt_value(argc, argv, &i, "--tables", &v)) != 0) {
			if (m < 0 || !*v)
				return fprintf(stderr, "pagelab report: --tables takes a file\n"), -EINVAL;
			a->tables[a->ntables++] = v;
		} else if ((m = cli_opt_value(argc, argv, &i, "--format", &v)) != 0) {
			if (m < 0 || strcmp(v, "markdown") != 0)
				return fprintf(stderr, "pagelab report: --html and --plots go with the markdown report only\n"),
				       -EINVAL;
		} else {
			fprintf(stderr, "pagelab report: unknown option '%s' with --html/--plots (see pagelab report --help)\n",
				argv[i]);
			return -EINVAL;
		}
	}
	if (a->html_dir != NULL && a->plots_dir != NULL)
		return fprintf(stderr, "pagelab report: --html or --plots, not both (the page holds its plots)\n"), -EINVAL;
	if (a->nfiles == 0)
		return fprintf(stderr, "pagelab report: no result file given (see pagelab report --help)\n"), -EINVAL;
	return 0;
}

static int load_docs(const struct html_args *a, json_t **docs)
{
	for (size_t i = 0; i < a->nfiles; i++) {
		struct lab_error err;

		if (plot_load("pagelab report", a->files[i], &docs[i], &err) < 0) {
			fprintf(stderr, "pagelab report: %s\n", err.msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* Distinct stems are plot's rule; results of one name from different
 * directories (vm's 6.1.json beside a host's) get a prefix directory. */
static int draw_all(const struct html_args *a, json_t **docs, const char *dir, struct plot_charts *charts,
		    size_t *first, struct lab_error *err)
{
	struct plot_opts po = { .out_dir = dir, .format = PLOT_SVG, .overlay = true };

	for (size_t i = 0; i < a->nfiles; i++) {
		first[i] = charts->n;
		if (plot_document(a->files[i], docs[i], &po, charts, err) < 0)
			return -1;
	}
	first[a->nfiles] = charts->n;
	return 0;
}

static int write_page(const struct html_args *a, json_t **docs, struct lab_error *err)
{
	char plots[PATH_MAX], page[PATH_MAX];
	struct plot_charts charts = { 0 };
	size_t *first = calloc(a->nfiles + 1, sizeof(*first));
	bool *shown = NULL;
	json_t *rep = NULL, *cmp = NULL;
	char *buf = NULL;
	size_t len = 0, i, k;
	FILE *o = NULL;
	int ret = -1;
	bool kernels = false;

	if (first == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	snprintf(plots, sizeof(plots), "%s/plots", a->html_dir);
	struct report_options opt = { .reference = a->reference, .tables = a->tables, .ntables = a->ntables };

	if (compare_report_json(a->files, a->nfiles, &opt, &rep, err) < 0)
		goto out;
	if (draw_all(a, docs, plots, &charts, first, err) < 0)
		goto out;
	shown = calloc(charts.n + 1, sizeof(*shown));
	if (shown == NULL) {
		lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 1; i < a->nfiles; i++) {
		const char *k0 = jstr(json_object_get(docs[0], RK_HOST), RK_KERNEL);
		const char *ki = jstr(json_object_get(docs[i], RK_HOST), RK_KERNEL);

		kernels |= k0 && ki && strcmp(k0, ki) != 0;
	}
	if (a->by != NULL || kernels) {
		if (compare_by(a->by ? a->by : "kernel", a->files, a->nfiles, COMPARE_THRESHOLD_PCT, &cmp, err) < 0)
			goto out;
	}

	o = open_memstream(&buf, &len);
	if (o == NULL) {
		lab_error_errno(err, errno, "open_memstream");
		goto out;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; style-src 'unsafe-inline'\">\n"
	      "<title>pagelab report</title><style>", o);
	fputs(style, o);
	fputs("</style></head><body>\n<h1>pagelab report</h1>\n", o);
	if (json_object_get(rep, "reference")) {
		const json_t *r = json_object_get(rep, "reference");

		fputs("<p class=\"notes\">Reference: ", o);
		esc(o, json_is_string(json_object_get(r, "article")) ? jstr(r, "article")
			: jstr(json_object_get(r, "article"), "title"));
		fputs(" (", o);
		esc(o, jstr(r, "path"));
		fputs(")</p>\n", o);
	}
	fputs("<h2>Inputs</h2>\n<table><tr><th>Result</th><th>Scenario</th><th>Kernel</th><th>cgroup</th><th>Runs</th><th>Status</th></tr>\n", o);
	for (i = 0; i < a->nfiles; i++) {
		char rel[PATH_MAX * 2];

		rel_path(a->html_dir, a->files[i], rel, sizeof(rel));
		fputs("<tr><td><a href=\"", o);
		esc_url(o, rel);
		fputs("\">", o);
		esc(o, a->files[i]);
		fputs("</a></td><td>", o);
		esc(o, jstr(json_object_get(docs[i], RK_SCENARIO), RK_NAME));
		fputs("</td><td>", o);
		esc(o, jstr(json_object_get(docs[i], RK_HOST), RK_KERNEL));
		fputs("</td><td>", o);
		esc(o, jstr(json_object_get(json_object_get(docs[i], RK_HOST), RK_CGROUP), RK_MEMORY));
		fprintf(o, "</td><td class=\"n\">%zu</td><td>", json_array_size(json_object_get(docs[i], RK_RUNS)));
		esc(o, jstr(docs[i], RK_STATUS));
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);

	for (k = 0; k < json_array_size(json_object_get(rep, "tables")); k++) {
		const json_t *t = json_array_get(json_object_get(rep, "tables"), k);
		bool any = false;

		/* The table, and beside it the timelines of the runs that fed it
		 * (each chart once: a run feeding two tables is drawn by the first). */
		fputs("<div class=\"side\"><div class=\"tbl\">\n", o);
		html_table(o, t);
		fputs("</div>\n", o);
		for (i = 0; i < a->nfiles; i++) {
			if (!doc_feeds(docs[i], jstr(t, "id")))
				continue;
			for (size_t c = first[i]; c < first[i + 1]; c++) {
				if (shown[c])
					continue;
				if (!any)
					fputs("<div class=\"col\"><h3>Timelines of these runs</h3>\n", o);
				any = true;
				shown[c] = true;
				inline_svg(o, &charts.v[c]);
			}
		}
		if (any)
			fputs("</div>\n", o);
		fputs("</div>\n", o);
	}
	if (json_array_size(json_object_get(rep, "tables")) == 0)
		fputs("<p>No article table has data in these results.</p>\n", o);
	/* Runs of results that feed no table shown: their timelines still. */
	for (size_t c = 0, any = 0; c < charts.n; c++) {
		if (shown[c])
			continue;
		if (!any++)
			fputs("<h2>Other timelines</h2>\n<div class=\"charts\">\n", o);
		inline_svg(o, &charts.v[c]);
		if (c + 1 == charts.n)
			fputs("</div>\n", o);
	}
	if (cmp != NULL)
		html_compare(o, cmp);
	fputs("<p class=\"notes\">Charts: gnuplot, from the data and scripts in plots/ beside this page.</p>\n"
	      "</body></html>\n", o);
	if (fclose(o) != 0) {
		o = NULL;
		lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	o = NULL;
	snprintf(page, sizeof(page), "%s/index.html", a->html_dir);
	if (lab_write_atomic(page, buf, len, err) < 0)
		goto out;
	printf("%s\n", page);
	ret = 0;
out:
	if (o != NULL)
		fclose(o);
	free(buf);
	free(first);
	free(shown);
	json_decref(rep);
	json_decref(cmp);
	plot_charts_free(&charts);
	return ret;
}

/* The markdown report as `report` prints it, then the charts. */
static int markdown_with_plots(const struct html_args *a, json_t **docs, struct lab_error *err)
{
	struct plot_charts charts = { 0 };
	size_t *first = calloc(a->nfiles + 1, sizeof(*first));
	struct report_options opt = { .reference = a->reference, .tables = a->tables, .ntables = a->ntables };
	struct report *rep = NULL;
	int ret = -1;

	if (first == NULL) {
		lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if (report_load(a->files, a->nfiles, &opt, &rep, err) < 0) {
		if (err->code != ENOMEM)
			err->code = EINVAL;
		goto out;
	}
	if (report_write(rep, REPORT_MARKDOWN, stdout, err) < 0)
		goto out;
	if (draw_all(a, docs, a->plots_dir, &charts, first, err) < 0)
		goto out;
	printf("\n## Plots\n\nDrawn by gnuplot into %s (data and scripts beside them).\n\n", a->plots_dir);
	for (size_t c = 0; c < charts.n; c++)
		printf("![%s](%s)\n\n", charts.v[c].title, charts.v[c].path);
	ret = fflush(stdout) == 0 ? 0 : lab_error_errno(err, errno ? errno : EIO, "writing the report");
out:
	report_free(rep);
	free(first);
	plot_charts_free(&charts);
	return ret;
}

int html_main(int argc, char **argv)
{
	struct html_args a = { 0 };
	json_t **docs = NULL;
	struct lab_error err;
	int ret, status = EXIT_BAD_INPUT;

	lab_error_clear(&err);
	ret = parse(argc, argv, &a);
	if (ret < 0) {
		status = ret == -ENOMEM ? EXIT_INTERNAL : EXIT_BAD_INPUT;
		goto out;
	}
	/* Where the page or the charts go, checked (and made when missing) before
	 * any result is read: a directory, or nothing yet — not a FIFO, a device,
	 * a file or a link to nothing (fileio.h, lab_check_output_dir). */
	if (a.html_dir != NULL || a.plots_dir != NULL) {
		const char *dir = a.html_dir != NULL ? a.html_dir : a.plots_dir;

		if (lab_check_output_dir(dir, a.html_dir != NULL ? "--html" : "--plots", true, &err) < 0) {
			fprintf(stderr, "pagelab report: %s\n", err.msg);
			goto out;
		}
	}
	docs = calloc(a.nfiles + 1, sizeof(*docs));
	if (docs == NULL || load_docs(&a, docs) < 0)
		goto out;
	if (!plot_have_gnuplot()) {
		fprintf(stderr, "pagelab report: the plots need gnuplot (Debian: apt-get install gnuplot-nox)\n");
		status = EXIT_CANNOT;
		goto out;
	}
	ret = a.html_dir != NULL ? write_page(&a, docs, &err) : markdown_with_plots(&a, docs, &err);
	if (ret < 0) {
		fprintf(stderr, "pagelab report: %s\n", err.msg);
		status = err.code == EINVAL || err.code == EEXIST || err.code == ENOTDIR ? EXIT_BAD_INPUT : EXIT_INTERNAL;
		goto out;
	}
	status = 0;
out:
	for (size_t i = 0; docs != NULL && i < a.nfiles; i++)
		json_decref(docs[i]);
	free(docs);
	free(a.files);
	free(a.tables);
	return status;
}
