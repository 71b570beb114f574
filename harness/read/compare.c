/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare.c — the comparison of two sets of results (compare.h); its
 * markdown and CSV are compare-format.c's, `pagelab compare` is
 * harness/cmd/compare.c.
 *
 * Where the figures come from: the report engine's tables (every row × column
 * with each repeat's value, the "values" of a pagelab.report/1 document) for
 * each side, plus each run's outcome from the result documents themselves
 * (harness/result/result.md: runs[].exit.outcome) for the counts.  The numbers are
 * compared by harness/stats.c.
 */
#include "compare.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "floor.h"
#include "read/report/report.h"
#include "stats.h"
#include "result/keys.h"

#define GROUPS_MAX 16

/* ------------------------------------------------------------ inputs */

static const char *jstr(const json_t *j, const char *key)
{
	return json_string_value(json_object_get(j, key));
}

/* With its samples pruned to what report's tables read (report_of hands
 * the documents, or --by's copies of them, to the report engine). */
static int load_result(const char *path, const struct lab_progress *p, json_t **out, struct lab_error *err)
{
	int ret = report_read_result(path, NULL, out, err);
	size_t n = strlen(path);

	/* A file that cannot be read is bad input (exit 2), like report's. */
	if (ret < 0 && err->code != ENOMEM)
		err->code = EINVAL;
	if (ret < 0)
		return -err->code;
	if (n > 6 && strcmp(path + n - 6, ".jsonl") == 0)
		lab_say(p, LAB_SAY_WARN, "%s: %s", path,
			strcmp(jstr(*out, RK_STATUS) ? jstr(*out, RK_STATUS) : "", "interrupted") == 0
			? "the run did not finish (no result document): read from its stream"
			: "read from the run's stream");
	return 0;
}

/* A side: result documents (possibly filtered copies) and where they came
 * from. */
struct side {
	char name[160];
	const char **paths;             /* the files given */
	json_t **docs;                  /* owned */
	size_t n;
};

static void side_free(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		json_decref(s->docs[i]);
	free(s->docs);
	free(s->paths);
	memset(s, 0, sizeof(*s));
}

static int side_add(struct side *s, const char *path, json_t *doc)
{
	const char **p = realloc(s->paths, (s->n + 1) * sizeof(*p));
	json_t **d;

	if (p == NULL)
		return -ENOMEM;
	s->paths = p;
	d = realloc(s->docs, (s->n + 1) * sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	s->docs = d;
	s->paths[s->n] = path;
	s->docs[s->n++] = doc;
	return 0;
}

/* ------------------------------------------------------------ keys */

/* Where a --by key is found, in order: the run's variant, its parameters,
 * then the machine (a setting no run varies still splits results of
 * different hosts or guests). */
struct key_alias {
	const char *key;
	const char *names[3];           /* variant / params names */
	const char *host;               /* path under host, "a.b" */
};

static const struct key_alias key_aliases[] = {
	{ "wsf", { "wsf", "watermark_scale_factor", NULL }, RK_VM_SYSCTL ".watermark_scale_factor" },
	{ "thp", { "thp", NULL, NULL }, RK_THP "." RK_ENABLED },
	{ "min_free_kbytes", { "min_free_kbytes", "reserve", NULL }, RK_VM_SYSCTL ".min_free_kbytes" },
	{ "host", { NULL }, RK_HOSTNAME },    /* a fleet (containers/fleet): uname -n */
};

static bool json_text(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		return false;
	return true;
}

static const json_t *host_path(const json_t *host, const char *path)
{
	char a[64];
	size_t n = strcspn(path, ".");

	if (path[n] == '\0')
		return json_object_get(host, path);
	snprintf(a, sizeof(a), "%.*s", (int)n, path);
	return json_object_get(json_object_get(host, a), path + n + 1);
}

static bool run_key(const json_t *doc, const json_t *run, const char *key, char *buf, size_t len)
{
	const json_t *host = json_object_get(doc, RK_HOST);
	const struct key_alias *a = NULL;

	if (strcmp(key, "kernel") == 0)
		return json_text(json_object_get(host, RK_KERNEL), buf, len);
	for (size_t i = 0; i < sizeof(key_aliases) / sizeof(key_aliases[0]); i++)
		if (strcmp(key_aliases[i].key, key) == 0)
			a = &key_aliases[i];
	if (json_text(json_object_get(json_object_get(run, RK_VARIANT), key), buf, len) ||
	    json_text(json_object_get(json_object_get(run, RK_PARAMS), key), buf, len))
		return true;
	for (size_t k = 0; a != NULL && k < 3 && a->names[k]; k++)
		if (json_text(json_object_get(json_object_get(run, RK_VARIANT), a->names[k]), buf, len) ||
		    json_text(json_object_get(json_object_get(run, RK_PARAMS), a->names[k]), buf, len))
			return true;
	return a != NULL && json_text(host_path(host, a->host), buf, len);
}

/* The run's variant without the --by key: what pairs outcome counts. */
static void variant_text(const json_t *run, const char *skip, char *buf, size_t len)
{
	const json_t *v = json_object_get(run, RK_VARIANT);
	const char *k;
	const json_t *x;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)v, k, x) {
		char t[64];

		if ((skip != NULL && strcmp(k, skip) == 0) || !json_text(x, t, sizeof(t)))
			continue;
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? " " : "", k, t);
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "all runs");
}

/* ------------------------------------------------------------ figures */

/* The report's table model as the JSON compare and the HTML page read:
 * pagelab.report/1's tables (id, name, columns, rows with cells of per-run
 * "values") plus, per row, its "variant" and "row_base" — the row's label
 * without the variant's prefix ("THP on · Sandbox" -> "Sandbox"), which is
 * what pairs the rows of two variants under --by. */
/* The variant of the run behind a row's first value, without the --by key:
 * what pairs a row of one group with the row of another (runs A–D split by
 * wsf: A pairs with B, C with D — the same pace).  "" when unknown. */
static void row_others(const struct report_row *row, size_t ncols, const char *const *files, json_t *const *docs,
		       size_t n, const char *by, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t c = 0; c < ncols; c++)
		for (size_t i = 0; i < row->cells[c].nvalues; i++) {
			const struct report_origin *o = row->cells[c].origin != NULL ? row->cells[c].origin[i] : NULL;

			if (!row->cells[c].present[i] || o == NULL || o->file == NULL)
				continue;
			for (size_t d = 0; d < n; d++)
				if (strcmp(files[d], o->file) == 0) {
					variant_text(json_array_get(json_object_get(docs[d], RK_RUNS), o->run), by, buf, len);
					return;
				}
		}
}

static json_t *model_json(const struct report *rep, const char *const *files, json_t *const *docs, size_t n,
			  const char *by)
{
	json_t *doc = json_pack("{s:s, s:[]}", "schema", "pagelab.report/1", "tables");
	json_t *tables = json_object_get(doc, "tables");
	const char *refpath = NULL;
	const json_t *ref = report_reference(rep, &refpath);

	if (doc != NULL && ref != NULL)
		json_object_set_new(doc, "reference", json_pack("{s:s?, s:O*}", "path", refpath, "article",
								  json_object_get(json_object_get(ref, "header"), "article")));

	for (size_t t = 0; doc != NULL && t < report_ntables(rep); t++) {
		const struct report_table *tb = report_table_at(rep, t);
		json_t *tj;

		/* How the runs were measured (the sampler's audit) is the
		 * instrument's, not the experiment's: not compared. */
		if (tb->measured)
			continue;
		tj = json_pack("{s:s, s:s?, s:I, s:s?, s:s?, s:s?, s:[], s:[], s:[]}", "id", tb->id, "name",
				       tb->name, "number", (json_int_t)tb->number, "compare", tb->compare,
				       "article_table", tb->article_table, "article_column",
				       tb->has_article ? tb->article_col : NULL, "columns", "rows", "notes");

		if (tj == NULL || json_array_append_new(tables, tj) < 0)
			goto fail;
		for (size_t c = 0; c < tb->ncols; c++)
			json_array_append_new(json_object_get(tj, "columns"),
					      json_pack("{s:s, s:s?, s:s?, s:b, s:I}", "label", tb->cols[c].label, "kernel",
							tb->cols[c].kernel, "cgroup", tb->cols[c].cgroup, "guest",
							tb->cols[c].guest, "runs", (json_int_t)tb->colruns[c]));
		for (size_t k = 0; k < tb->nnotes; k++)
			json_array_append_new(json_object_get(tj, "notes"), json_string(tb->notes[k]));
		for (size_t r = 0; r < tb->nrows; r++) {
			const struct report_row *row = &tb->rows[r];
			const char *base = row->label;
			json_t *rj, *cells;

			if (row->variant != NULL) {
				const char *dot = strstr(row->label, " · ");

				base = dot != NULL ? dot + strlen(" · ") : "";
			}
			rj = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:[], s:{s:s}}", "row", row->label, "row_base", base,
				       "figure", row->figure, "unit", row->unit, "variant", row->variant, "cells",
				       "article", "text", row->article.text);
			if (rj != NULL && row->better != NULL)
				json_object_set_new(rj, "better", json_string(row->better));
			if (rj != NULL && row->fclass != NULL)
				json_object_set_new(rj, "class", json_string(row->fclass));
			if (rj != NULL && row->variant != NULL) {
				/* Its place within its variant's rows: a table's
				 * figures are expanded in the same order for every
				 * variant, so the k-th row of one is the k-th of
				 * another. */
				json_int_t k = 0;

				for (size_t q = 0; q < r; q++)
					k += tb->rows[q].variant != NULL && strcmp(tb->rows[q].variant, row->variant) == 0;
				json_object_set_new(rj, "vindex", json_integer(k));
			}
			if (rj != NULL && row->variant != NULL && docs != NULL && by != NULL) {
				char others[200];

				row_others(row, tb->ncols, files, docs, n, by, others, sizeof(others));
				json_object_set_new(rj, "others", json_string(others));
			}
			if (rj == NULL || json_array_append_new(json_object_get(tj, "rows"), rj) < 0)
				goto fail;
			cells = json_object_get(rj, "cells");
			for (size_t c = 0; c < tb->ncols; c++) {
				const struct report_cell *cell = &row->cells[c];
				json_t *cj = json_pack("{s:s, s:s, s:I, s:[]}", "column", tb->cols[c].label, "text",
						       cell->text, "runs", (json_int_t)cell->runs, "values");

				if (cj == NULL || json_array_append_new(cells, cj) < 0)
					goto fail;
				for (size_t i = 0; i < cell->nvalues; i++)
					json_array_append_new(json_object_get(cj, "values"),
							      cell->present[i] ? json_real(cell->values[i]) : json_null());
			}
		}
	}
	return doc;
fail:
	json_decref(doc);
	return NULL;
}

/* The report engine's tables for result documents (harness/read/report/report.h), as
 * its pagelab.report/1 JSON: every row × column with each repeat's value.
 * docs, when given, are --by's filtered copies: written to a private
 * directory first, since the engine loads files. */
static int report_of(const char *const *paths, json_t *const *docs, size_t n, const char *what, const char *by,
		     const struct report_options *given, json_t **out, struct lab_error *err)
{
	char dir[] = "/tmp/pagelab-compare.XXXXXX";
	const char **files = NULL;
	char **tmp = NULL;
	struct report_options opt = { .quiet = true };
	struct report *rep = NULL;
	size_t i;
	int ret = 0;

	*out = NULL;
	if (docs != NULL && mkdtemp(dir) == NULL)
		return lab_error_errno(err, errno, "mkdtemp %s", dir);
	files = calloc(n + 1, sizeof(*files));
	tmp = calloc(n + 1, sizeof(*tmp));
	if (files == NULL || tmp == NULL) {
		ret = lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		char *dump;
		char path[PATH_MAX];

		if (docs == NULL) {
			files[i] = paths[i];
			continue;
		}
		dump = json_dumps(docs[i], JSON_COMPACT);
		snprintf(path, sizeof(path), "%s/%zu.json", dir, i);
		tmp[i] = strdup(path);
		ret = dump == NULL || tmp[i] == NULL ? lab_error_set(err, ENOMEM, "out of memory")
						    : lab_write_atomic(path, dump, strlen(dump), err);
		free(dump);
		if (ret < 0)
			goto out;
		files[i] = tmp[i];
	}
	if (given != NULL)
		opt = *given;
	ret = report_load(files, n, &opt, &rep, err);
	if (ret < 0) {
		lab_error_prefix(err, "%s", what);
		if (err->code != ENOMEM)
			err->code = EINVAL;
		goto out;
	}
	*out = model_json(rep, files, docs, n, by);
	if (*out == NULL)
		ret = lab_error_set(err, ENOMEM, "%s: out of memory", what);
out:
	report_free(rep);
	for (i = 0; tmp != NULL && i < n; i++) {
		if (tmp[i] != NULL)
			unlink(tmp[i]);
		free(tmp[i]);
	}
	if (docs != NULL)
		rmdir(dir);
	free(tmp);
	free(files);
	return ret;
}

int compare_report_json(const char *const *paths, size_t n, const struct report_options *opt, json_t **out,
			struct lab_error *err)
{
	return report_of(paths, NULL, n, "report", NULL, opt, out, err);
}

static int side_report(const struct side *s, const char *by, json_t **out, struct lab_error *err)
{
	return report_of(s->paths, s->docs, s->n, s->name, by, NULL, out, err);
}

/* A cell's repeats: its "values" that are numbers. */
static size_t cell_values(const json_t *cell, double *v, size_t cap)
{
	const json_t *vals = json_object_get(cell, "values");
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(vals) && n < cap; i++)
		if (json_is_number(json_array_get(vals, i)))
			v[n++] = json_number_value(json_array_get(vals, i));
	return n;
}

static const json_t *find_table(const json_t *rep, const char *id)
{
	const json_t *ts = json_object_get(rep, "tables");

	for (size_t i = 0; i < json_array_size(ts); i++)
		if (jstr(json_array_get(ts, i), "id") && strcmp(jstr(json_array_get(ts, i), "id"), id) == 0)
			return json_array_get(ts, i);
	return NULL;
}

static bool str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* A cell with at least one number. */
static bool has_values(const json_t *cells)
{
	for (size_t c = 0; c < json_array_size(cells); c++) {
		const json_t *v = json_object_get(json_array_get(cells, c), "values");

		for (size_t i = 0; i < json_array_size(v); i++)
			if (json_is_number(json_array_get(v, i)))
				return true;
	}
	return false;
}

/* The row of t that is row: the same label and figure; under --by (by_variant)
 * rows of a variant group pair by their label without the variant's
 * prefix, the one with numbers first (the other variant's rows are empty
 * on a side that --by filtered). */
static const json_t *find_row(const json_t *t, const json_t *row, bool by_variant)
{
	const json_t *rows = json_object_get(t, "rows"), *empty = NULL;
	bool variant = by_variant && json_is_string(json_object_get(row, "variant"));

	for (size_t i = 0; i < json_array_size(rows); i++) {
		const json_t *r = json_array_get(rows, i);

		if (!str_eq(jstr(r, "figure"), jstr(row, "figure")))
			continue;
		if (variant && json_is_string(json_object_get(r, "variant"))) {
			if (json_integer_value(json_object_get(r, "vindex")) !=
			    json_integer_value(json_object_get(row, "vindex")))
				continue;
			/* The other variant keys must match too (A with B, C
			 * with D); a row with no value has no "others" to say. */
			if (jstr(r, "others") && jstr(row, "others") && *jstr(r, "others") && *jstr(row, "others") &&
			    strcmp(jstr(r, "others"), jstr(row, "others")) != 0)
				continue;
			if (has_values(json_object_get(r, "cells")))
				return r;
			if (empty == NULL)
				empty = r;
		} else if (str_eq(jstr(r, "row"), jstr(row, "row"))) {
			return r;
		}
	}
	return empty;
}

/* A number as JSON; a figure past the double's range (inf, NaN) as null:
 * jansson takes no such real, and the figure would be lost whole. */
static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const struct stats_side *s, const double *v, size_t n)
{
	json_t *vals = json_array();

	for (size_t i = 0; vals != NULL && i < n; i++)
		json_array_append_new(vals, real_or_null(v[i]));
	if (n == 0)
		return json_pack("{s:I, s:o}", "n", (json_int_t)0, "values", vals);
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)s->n, "median", real_or_null(s->median),
			 "min", real_or_null(s->min), "max", real_or_null(s->max), "mean", real_or_null(s->mean),
			 "values", vals);
}

/* A figure's class and the change it must exceed: a count the LKP
 * threshold, a timing the larger of that and its floor — calibrated for
 * it, else the default.  *fj: the figure's "floor" object. */
static double figure_floor(const json_t *t, const json_t *row, const char *rowtext, const struct compare_opts *o,
			   enum floor_class *cls, json_t **fj)
{
	const char *why;
	double pct;

	*cls = floor_classify(jstr(row, "class"), jstr(row, "unit"), &why);
	if (*cls == FLOOR_COUNT) {
		*fj = json_pack("{s:s, s:f, s:s}", "class_from", why, "pct", o->threshold_pct, "from", "threshold");
		return o->threshold_pct;
	}
	if (o->floor != NULL && floor_lookup(o->floor, jstr(t, "id"), rowtext, jstr(row, "figure"), &pct)) {
		*fj = json_pack("{s:s, s:f, s:s, s:s}", "class_from", why, "pct", pct, "from", "calibration", "file",
				o->floor->path);
	} else {
		pct = FLOOR_DEFAULT_PCT;
		*fj = json_pack("{s:s, s:f, s:s}", "class_from", why, "pct", pct, "from", "default");
	}
	return fmax(pct, o->threshold_pct);
}

/* One figure both sides have: its verdict as JSON. */
static json_t *figure_json(const json_t *t, const json_t *row, const char *column, const double *bv, size_t bn,
			   const double *nv, size_t nn, const struct compare_opts *o, bool by_variant)
{
	struct stats_side b, n;
	struct stats_verdict v;
	enum floor_class cls;
	json_t *j, *fj;
	char label[400];
	const char *rowtext = jstr(row, "row");
	double threshold;

	/* Under --by a variant's row is named by what it shares with its
	 * pair: the other keys ("pace=64M/50") and its label without the
	 * variant. */
	if (json_is_string(json_object_get(row, "variant")) && by_variant) {
		const char *others = jstr(row, "others"), *base = jstr(row, "row_base");

		if (others != NULL && *others && strcmp(others, "all runs") != 0)
			snprintf(label, sizeof(label), "%s", others);
		else
			snprintf(label, sizeof(label), "%s", base ? base : "");
		rowtext = label;
	}
	threshold = figure_floor(t, row, rowtext, o, &cls, &fj);
	stats_summarize(bv, bn, &b);
	stats_summarize(nv, nn, &n);
	stats_verdict(&b, &n, o->threshold_pct, &v);
	/* A timing of two clocks (a TCG guest's against a host's) says what
	 * the emulation costs, not what changed: no verdict. */
	if (cls == FLOOR_TIMING && o->untimed != NULL) {
		j = json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:o, s:o, s:o, s:{s:b, s:b}, s:s, s:s, s:o, s:o}",
			      "table", jstr(t, "id"), "table_name", jstr(t, "name"), "row", rowtext, "figure",
			      jstr(row, "figure"), "column", column, "unit", jstr(row, "unit"), "base",
			      side_json(&b, bv, bn), "new", side_json(&n, nv, nn), "change_pct",
			      real_or_null(v.change_pct), "lkp", "above_threshold", v.above_threshold, "disjoint",
			      v.disjoint, "verdict", "not comparable", "why", o->untimed, "welch", json_null(),
			      "floor", fj);
		if (j != NULL)
			json_object_set_new(j, "class", json_string(floor_class_name(cls)));
		return j;
	}
	/* A timing inside its floor (either way: the ratio of the medians) is
	 * never real: what the LKP rule would have called real is the t-test's
	 * alone, what it alone called real is the same. */
	if (cls == FLOOR_TIMING && !floor_above(b.median, n.median, threshold)) {
		v.above_threshold = false;
		if (v.call == STATS_REAL)
			v.call = STATS_T_ONLY;
		else if (v.call == STATS_RANGE_ONLY)
			v.call = STATS_SAME;
	}
	j = json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:o, s:o, s:o, s:{s:b, s:b}, s:s}",
		      "table", jstr(t, "id"), "table_name", jstr(t, "name"),
		      "row", rowtext,
		      "figure", jstr(row, "figure"), "column", column, "unit", jstr(row, "unit"),
		      "base", side_json(&b, bv, bn), "new", side_json(&n, nv, nn),
		      "change_pct", real_or_null(v.change_pct),
		      "lkp", "above_threshold", v.above_threshold, "disjoint", v.disjoint,
		      "verdict", stats_call_name(v.call));
	if (j != NULL) {
		json_object_set_new(j, "class", json_string(floor_class_name(cls)));
		json_object_set_new(j, "floor", fj);
	} else {
		json_decref(fj);
	}
	/* A load's metric says which way is better (metrics/TOOL.json): a
	 * real change is then "better" or "worse", not only "real". */
	if (j != NULL && jstr(row, "better") != NULL && strcmp(jstr(row, "better"), "none") != 0) {
		json_object_set_new(j, "better", json_string(jstr(row, "better")));
		if (v.call == STATS_REAL && isfinite(v.change_pct) && v.change_pct != 0)
			json_object_set_new(j, "direction",
					    json_string((v.change_pct > 0) == (strcmp(jstr(row, "better"), "higher") == 0)
							? "better" : "worse"));
	}
	if (j != NULL)
		json_object_set_new(j, "welch", v.have_t ? json_pack("{s:f, s:f, s:f}", "t",
								     isfinite(v.t.t) ? v.t.t : (v.t.t > 0 ? 1e300 : -1e300),
								     "df", v.t.df, "p", v.t.p)
							 : json_null());
	return j;
}

#define VALUES_MAX 256

/* Every figure of every table both reports have. */
static int compare_tables(const json_t *brep, const json_t *nrep, const struct compare_opts *o, bool by_variant,
			  json_t *figs, json_t *notes)
{
	const json_t *bts = json_object_get(brep, "tables");
	double bv[VALUES_MAX], nv[VALUES_MAX];

	for (size_t i = 0; i < json_array_size(bts); i++) {
		const json_t *bt = json_array_get(bts, i);
		const json_t *nt = find_table(nrep, jstr(bt, "id"));
		const json_t *bcols = json_object_get(bt, "columns"), *ncols;
		const json_t *rows = json_object_get(bt, "rows");

		if (nt == NULL)
			continue;
		ncols = json_object_get(nt, "columns");
		for (size_t r = 0; r < json_array_size(rows); r++) {
			const json_t *brow = json_array_get(rows, r);
			const json_t *nrow;
			const json_t *bcells = json_object_get(brow, "cells"), *ncells;

			/* Under --by, of a variant group only the rows this side has
			 * numbers for (the other variants' are empty after the split). */
			if (by_variant && json_is_string(json_object_get(brow, "variant")) && !has_values(bcells))
				continue;
			nrow = find_row(nt, brow, by_variant);
			if (nrow == NULL)
				continue;
			ncells = json_object_get(nrow, "cells");
			for (size_t c = 0; c < json_array_size(bcells); c++) {
				const json_t *bc = json_array_get(bcells, c), *nc = NULL;
				const char *col = NULL;
				size_t bn, nn;

				/* One column a side (one kernel each): they pair.
				 * Several: the columns with the same label pair. */
				if (json_array_size(bcols) == 1 && json_array_size(ncols) == 1) {
					nc = json_array_get(ncells, 0);
				} else {
					col = jstr(bc, "column");
					for (size_t k = 0; k < json_array_size(ncells); k++)
						if (str_eq(jstr(json_array_get(ncells, k), "column"), col))
							nc = json_array_get(ncells, k);
				}
				if (nc == NULL)
					continue;
				bn = cell_values(bc, bv, VALUES_MAX);
				nn = cell_values(nc, nv, VALUES_MAX);
				if (bn == 0 || nn == 0)
					continue;       /* a text cell, or a figure one side lacks */
				json_array_append_new(figs, figure_json(bt, brow, col, bv, bn, nv, nn, o, by_variant));
			}
		}
		if (json_array_size(bcols) != 1 || json_array_size(ncols) != 1) {
			char note[300];

			snprintf(note, sizeof(note), "table %s: a side has several kernel columns; only columns "
				 "with the same label were paired (use --by kernel)", jstr(bt, "id"));
			json_array_append_new(notes, json_string(note));
		}
	}
	return 0;
}

/* Outcome counts per variant: for each outcome either side saw, k of n on
 * each side, Fisher's exact test. */
struct tally {
	char variant[200];
	char outcome[32];
	unsigned k[2], n[2];
};

/* Pass 1 (count = false): every (variant, outcome) either side saw gets a
 * row.  Pass 2: each run adds to n of every row of its variant and to k of
 * the row of its outcome. */
static int count_outcomes(const struct side *s, int which, const char *skip, bool count,
			  struct tally **t, size_t *nt)
{
	for (size_t d = 0; d < s->n; d++) {
		const json_t *runs = json_object_get(s->docs[d], RK_RUNS);

		for (size_t r = 0; r < json_array_size(runs); r++) {
			const json_t *run = json_array_get(runs, r);
			const char *oc = jstr(json_object_get(run, RK_EXIT), RK_OUTCOME);
			char var[200];
			bool found = false;

			if (oc == NULL)
				continue;
			variant_text(run, skip, var, sizeof(var));
			for (size_t i = 0; i < *nt; i++) {
				bool same_var = strcmp((*t)[i].variant, var) == 0;
				bool same_oc = same_var && strcmp((*t)[i].outcome, oc) == 0;

				if (count && same_var) {
					(*t)[i].n[which]++;
					(*t)[i].k[which] += same_oc;
				}
				found |= same_oc;
			}
			if (!count && !found) {
				struct tally *g = realloc(*t, (*nt + 1) * sizeof(*g));

				if (g == NULL)
					return -ENOMEM;
				*t = g;
				memset(&g[*nt], 0, sizeof(g[*nt]));
				snprintf(g[*nt].variant, sizeof(g[*nt].variant), "%s", var);
				snprintf(g[*nt].outcome, sizeof(g[*nt].outcome), "%s", oc);
				(*nt)++;
			}
		}
	}
	return 0;
}

static json_t *counts_json(struct tally *t, size_t nt)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < nt; i++) {
		double p;
		const char *verdict;

		if (t[i].n[0] == 0 || t[i].n[1] == 0)
			continue;               /* a variant only one side ran */
		p = stats_fisher(t[i].k[0], t[i].n[0], t[i].k[1], t[i].n[1]);
		if (t[i].k[0] * t[i].n[1] == t[i].k[1] * t[i].n[0])
			verdict = "same";
		else if (isnan(p))
			verdict = "no test";    /* GSL could not compute it */
		else if (p < STATS_ALPHA)
			verdict = "real";
		else
			verdict = "not significant";
		json_array_append_new(a, json_pack("{s:s, s:s, s:{s:I, s:I}, s:{s:I, s:I}, s:o, s:s}",
						   "variant", t[i].variant, "outcome", t[i].outcome,
						   "base", "k", (json_int_t)t[i].k[0], "n", (json_int_t)t[i].n[0],
						   "new", "k", (json_int_t)t[i].k[1], "n", (json_int_t)t[i].n[1],
						   "fisher_p", isnan(p) ? json_null() : json_real(p), "verdict", verdict));
	}
	return a;
}

static json_t *inputs_json(const struct side *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < s->n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s?, s:I}", "path", s->paths[i],
						   "scenario", jstr(json_object_get(s->docs[i], RK_SCENARIO), RK_NAME),
						   "kernel", jstr(json_object_get(s->docs[i], RK_HOST), RK_KERNEL),
						   "runs", (json_int_t)json_array_size(json_object_get(s->docs[i], RK_RUNS))));
	return a;
}

/* The calibration, when every document of both sides ran on its machine;
 * else -EINVAL (a file named by --floor), or NULL with a note (the default
 * location's file). */
static int floor_for(const struct side *b, const struct side *n, const struct compare_opts *o,
		     struct compare_opts *eff, json_t *notes, struct lab_error *err)
{
	*eff = *o;
	for (int s = 0; o->floor != NULL && s < 2; s++) {
		const struct side *x = s ? n : b;

		for (size_t i = 0; i < x->n; i++) {
			struct floor_host h;
			char why[400], note[1200];
			int ret = floor_host_of(x->docs[i], x->paths[i], &h, err);

			if (ret < 0)
				return ret;
			if (floor_host_same(&o->floor->host, &h, why, sizeof(why)))
				continue;
			if (!o->floor_optional)
				return lab_error_set(err, EINVAL, "calibration file %s is not of the machine %s ran on "
						     "(%s): calibrate there, or give --floor none", o->floor->path,
						     x->paths[i], why);
			snprintf(note, sizeof(note), "calibration file %s set aside: %s ran on another machine (%s); "
				 "timings have the default floor", o->floor->path, x->paths[i], why);
			json_array_append_new(notes, json_string(note));
			eff->floor = NULL;
			return 0;
		}
	}
	return 0;
}

/* The clock a document's timings were taken by (compare.h). */
static void doc_clock(const json_t *doc, char *buf, size_t len)
{
	const json_t *vm = json_object_get(doc, "vm");
	const char *accel = jstr(vm, "accel"), *arch = jstr(vm, "arch");

	if (accel != NULL && arch != NULL)
		snprintf(buf, len, "%.32s guest, %.32s", accel, arch);
	else if (accel != NULL)
		snprintf(buf, len, "%.32s guest", accel);
	else if (json_is_true(json_object_get(json_object_get(doc, "host"), "in_vm_guest")))
		snprintf(buf, len, "pagelab guest");
	else
		snprintf(buf, len, "host");
}

/* What every document of a side says by fn (doc_clock, doc_build), when
 * they all say the same; else "" (mixed). */
static void side_common(const struct side *x, void (*fn)(const json_t *, char *, size_t), char *buf, size_t len)
{
	char one[96];

	buf[0] = '\0';
	for (size_t i = 0; i < x->n; i++) {
		fn(x->docs[i], one, sizeof(one));
		if (i == 0) {
			snprintf(buf, len, "%s", one);
		} else if (strcmp(buf, one) != 0) {
			buf[0] = '\0';
			return;
		}
	}
}

/* Why the pair's timings are not judged, or NULL (compare.h). */
static const char *untimed(const struct side *b, const struct side *n, char *why, size_t len)
{
	char bc[96], nc[96];

	side_common(b, doc_clock, bc, sizeof(bc));
	side_common(n, doc_clock, nc, sizeof(nc));
	if (bc[0] != '\0' && strcmp(bc, nc) == 0)
		return NULL;
	snprintf(why, len, "timed by different clocks: %s (%s) against %s (%s)", b->name,
		 bc[0] ? bc : "mixed", n->name, nc[0] ? nc : "mixed");
	return why;
}

/* Which pagelab build wrote a document (run.c: harness.commit, .modified):
 * "COMMIT", "COMMIT (modified)", or "unknown" — from a document, so only
 * what pagelab itself writes is repeated (hex digits), never the text. */
static void doc_build(const json_t *doc, char *buf, size_t len)
{
	const json_t *h = json_object_get(doc, RK_HARNESS);
	const char *c = json_string_value(json_object_get(h, RK_COMMIT));
	size_t n = c != NULL ? strlen(c) : 0;

	if (n == 0 || n > 40 || strspn(c, "0123456789abcdef") != n) {
		snprintf(buf, len, "unknown");
		return;
	}
	snprintf(buf, len, "%s%s", c, json_is_true(json_object_get(h, "modified")) ? " (modified)" : "");
}

/* The instrument is part of what is compared: two sides measured by
 * different builds of pagelab (or by a modified one, which no commit
 * names) may differ in a timing because the harness did. */
static int builds_note(const struct side *b, const struct side *n, json_t *notes)
{
	char bb[96], nb[96], note[800];

	side_common(b, doc_build, bb, sizeof(bb));
	side_common(n, doc_build, nb, sizeof(nb));
	if (bb[0] != '\0' && strcmp(bb, nb) == 0 && strstr(bb, "modified") == NULL && strcmp(bb, "unknown") != 0)
		return 0;
	if (bb[0] != '\0' && strcmp(bb, nb) == 0)
		snprintf(note, sizeof(note), "both sides measured by pagelab %s: whether by the same build, "
			 "the documents cannot say (a modified tree, or no commit known)", bb);
	else
		snprintf(note, sizeof(note), "measured by different builds of pagelab: %s %s, %s %s; a timing "
			 "may differ because the harness did (`pagelab version` names a build)",
			 b->name, bb[0] ? bb : "mixed", n->name, nb[0] ? nb : "mixed");
	return json_array_append_new(notes, json_string(note));
}

/* One comparison of two sides: figures and counts. */
static int compare_pair(const struct side *b, const struct side *n, const char *by, const struct compare_opts *o,
			json_t **out, struct lab_error *err)
{
	json_t *brep = NULL, *nrep = NULL, *figs = json_array(), *notes = json_array();
	struct compare_opts eff;
	char why[600];
	struct tally *t = NULL;
	size_t nt = 0;
	int ret;

	*out = NULL;
	if (figs == NULL || notes == NULL) {
		ret = lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = floor_for(b, n, o, &eff, notes, err)) < 0)
		goto out;
	eff.untimed = untimed(b, n, why, sizeof(why));
	ret = side_report(b, by, &brep, err);
	if (ret == 0)
		ret = side_report(n, by, &nrep, err);
	if (ret < 0)
		goto out;
	compare_tables(brep, nrep, &eff, by != NULL && strcmp(by, "kernel") != 0, figs, notes);
	for (size_t i = 0; eff.untimed != NULL && i < json_array_size(figs); i++)
		if (str_eq(jstr(json_array_get(figs, i), "verdict"), "not comparable")) {
			char note[900];

			snprintf(note, sizeof(note), "timings not judged (verdict \"not comparable\"): %s; an "
				 "emulated CPU's time says what the emulation costs, not what changed; counts are "
				 "judged", eff.untimed);
			json_array_append_new(notes, json_string(note));
			break;
		}
	if (builds_note(b, n, notes) < 0 ||
	    count_outcomes(b, 0, by, false, &t, &nt) < 0 || count_outcomes(n, 1, by, false, &t, &nt) < 0 ||
	    count_outcomes(b, 0, by, true, &t, &nt) < 0 || count_outcomes(n, 1, by, true, &t, &nt) < 0) {
		ret = lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	*out = json_pack("{s:{s:s, s:o}, s:{s:s, s:o}, s:O, s:o, s:O, s:o}", "base", "name", b->name, "inputs",
			 inputs_json(b), "new", "name", n->name, "inputs", inputs_json(n), "figures", figs,
			 "counts", counts_json(t, nt), "notes", notes, "fingerprint",
			 report_fingerprint_diff(b->docs, b->n, n->docs, n->n, by));
	if (*out == NULL)
		ret = lab_error_set(err, ENOMEM, "out of memory");
out:
	free(t);
	json_decref(figs);
	json_decref(notes);
	json_decref(brep);
	json_decref(nrep);
	return ret;
}

static json_t *doc_new(const char *by, const struct compare_opts *o)
{
	return json_pack("{s:s, s:s?, s:f, s:f, s:I, s:{s:f, s:s?}, s:[]}", "schema", COMPARE_SCHEMA, "by", by,
			 "threshold_pct", o->threshold_pct, "alpha", STATS_ALPHA, "min_repeats",
			 (json_int_t)STATS_MIN_REPEATS, "timing_floor", "default_pct", FLOOR_DEFAULT_PCT, "file",
			 o->floor != NULL ? o->floor->path : NULL, "comparisons");
}

static int load_side(struct side *s, const char *name, const char *const *files, size_t n,
		     const struct lab_progress *p, struct lab_error *err)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	for (size_t i = 0; i < n; i++) {
		json_t *doc;
		int ret = load_result(files[i], p, &doc, err);

		if (ret < 0)
			return ret;
		if (side_add(s, files[i], doc) < 0) {
			json_decref(doc);
			return lab_error_set(err, ENOMEM, "out of memory");
		}
	}
	return 0;
}

int compare_sides(const char *const *base, size_t nbase, const char *const *new_, size_t nnew,
		  const struct compare_opts *o, const struct lab_progress *p, json_t **out, struct lab_error *err)
{
	struct side b, n;
	json_t *pair = NULL;
	int ret;

	*out = NULL;
	ret = load_side(&b, "base", base, nbase, p, err);
	if (ret == 0)
		ret = load_side(&n, "new", new_, nnew, p, err);
	else
		memset(&n, 0, sizeof(n));
	if (ret == 0)
		ret = compare_pair(&b, &n, NULL, o, &pair, err);
	if (ret == 0) {
		*out = doc_new(NULL, o);
		if (*out == NULL || json_array_append_new(json_object_get(*out, "comparisons"), pair) < 0)
			ret = lab_error_set(err, ENOMEM, "out of memory");
	}
	side_free(&b);
	side_free(&n);
	return ret;
}

int compare_by(const char *key, const char *const *files, size_t n, const struct compare_opts *o,
	       const struct lab_progress *p, json_t **out, struct lab_error *err)
{
	struct side groups[GROUPS_MAX];
	char values[GROUPS_MAX][128];
	size_t ng = 0, i, g;
	int ret = 0;

	*out = NULL;
	memset(groups, 0, sizeof(groups));
	for (i = 0; i < n && ret == 0; i++) {
		json_t *doc;
		const json_t *runs;
		size_t r;

		ret = load_result(files[i], p, &doc, err);
		if (ret < 0)
			break;
		runs = json_object_get(doc, RK_RUNS);
		/* Each run goes to its group: a copy of the document holding
		 * only that group's runs. */
		for (r = 0; r < json_array_size(runs) && ret == 0; r++) {
			char v[128];

			if (!run_key(doc, json_array_get(runs, r), key, v, sizeof(v))) {
				ret = lab_error_set(err, EINVAL, "%s: run %zu has no '%s' (neither a variant key, a "
						    "parameter nor a host setting)", files[i], r + 1, key);
				break;
			}
			for (g = 0; g < ng && strcmp(values[g], v) != 0; g++)
				;
			if (g == ng) {
				if (ng == GROUPS_MAX) {
					ret = lab_error_set(err, EINVAL, "--by %s: more than %d values", key, GROUPS_MAX);
					break;
				}
				snprintf(values[g], sizeof(values[g]), "%s", v);
				snprintf(groups[g].name, sizeof(groups[g].name), "%s=%s", key, v);
				ng++;
			}
			if (groups[g].n == 0 || groups[g].paths[groups[g].n - 1] != files[i]) {
				json_t *copy = json_deep_copy(doc);

				if (copy == NULL || json_array_clear(json_object_get(copy, RK_RUNS)) < 0 ||
				    side_add(&groups[g], files[i], copy) < 0) {
					json_decref(copy);
					ret = lab_error_set(err, ENOMEM, "out of memory");
					break;
				}
			}
			json_array_append(json_object_get(groups[g].docs[groups[g].n - 1], RK_RUNS),
					  json_array_get(runs, r));
		}
		json_decref(doc);
	}
	if (ret == 0 && ng < 2)
		ret = lab_error_set(err, EINVAL, "--by %s: every run has the same value (%s): nothing to compare",
				    key, ng ? values[0] : "none");
	if (ret == 0 && (*out = doc_new(key, o)) == NULL)
		ret = lab_error_set(err, ENOMEM, "out of memory");
	for (g = 1; ret == 0 && g < ng; g++) {
		json_t *pair;

		ret = compare_pair(&groups[0], &groups[g], key, o, &pair, err);
		if (ret == 0)
			json_array_append_new(json_object_get(*out, "comparisons"), pair);
	}
	for (g = 0; g < ng; g++)
		side_free(&groups[g]);
	if (ret < 0) {
		json_decref(*out);
		*out = NULL;
	}
	return ret;
}

static bool same_json(const json_t *a, const json_t *b)
{
	return (a == NULL && b == NULL) || json_equal((json_t *)a, (json_t *)b);
}

int compare_same_settings(const char *const *files, size_t n, struct floor_host *host, char *scenario,
			  size_t slen, struct lab_error *err)
{
	json_t *first = NULL;
	int ret = 0;

	scenario[0] = '\0';
	for (size_t i = 0; i < n && ret == 0; i++) {
		const json_t *sc;
		struct floor_host h;
		char why[600];
		json_t *doc;

		if ((ret = load_result(files[i], NULL, &doc, err)) < 0)
			break;
		sc = json_object_get(doc, RK_SCENARIO);
		ret = floor_host_of(doc, files[i], &h, err);
		if (ret == 0 && i == 0) {
			*host = h;
			snprintf(scenario, slen, "%s", jstr(sc, RK_NAME) ? jstr(sc, RK_NAME) : "");
			first = doc;
			continue;
		}
		if (ret == 0 && !floor_host_same(host, &h, why, sizeof(why)))
			ret = lab_error_set(err, EINVAL, "%s and %s ran on different machines (%s): a calibration is "
					    "of one machine", files[0], files[i], why);
		else if (ret == 0 && (!str_eq(jstr(sc, RK_NAME), scenario[0] ? scenario : NULL) ||
				      !same_json(json_object_get(sc, RK_PARAMS),
						 json_object_get(json_object_get(first, RK_SCENARIO), RK_PARAMS))))
			ret = lab_error_set(err, EINVAL, "%s and %s are not the same scenario at the same settings "
					    "(scenario.name and scenario.params differ): an A/A calibration needs both",
					    files[0], files[i]);
		json_decref(doc);
	}
	json_decref(first);
	return ret;
}
