/* SPDX-License-Identifier: GPL-2.0-or-later */
/* format.c — the built tables as markdown, CSV or a "pagelab.report/1"
 * JSON document.  The three print the same rows; a table without an
 * article (a user's, the generic report) has no article column.
 */
#include "internal.h"

#include "base/escape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ markdown */

/* Every string that is not this file's own text goes through here: the
 * documents', the table files', the reference's, the paths given
 * (base/escape.h: | < ] \ ` escaped, no control character, one line). */
static void md_text(FILE *o, const char *s)
{
	lab_esc_markdown(o, s);
}

static void md_columns(const struct report *rep, FILE *o)
{
	size_t i, k;

	fprintf(o, "| Column | Result files |\n|---|---|\n");
	for (i = 0; i < rep->ncols; i++) {
		fprintf(o, "| ");
		md_text(o, rep->cols[i].label);
		fprintf(o, " |");
		for (k = 0; k < rep->nin; k++) {
			const json_t *doc = rep->in[k].doc;
			const char *status = str_or(json_object_get(doc, RK_STATUS), "?");

			if (rep->in[k].col != i)
				continue;
			size_t nruns = json_array_size(json_object_get(doc, RK_RUNS));

			fputs(" `", o);
			md_text(o, rep->in[k].path);
			fputs("` (", o);
			md_text(o, str_or(json_object_get(json_object_get(doc, RK_SCENARIO), RK_NAME), "?"));
			fprintf(o, ", %zu run%s%s", nruns, nruns == 1 ? "" : "s", strcmp(status, "ok") != 0 ? ", " : "");
			md_text(o, strcmp(status, "ok") != 0 ? status : "");
			fputc(')', o);
		}
		fprintf(o, " |\n");
	}
}

static void md_header(const struct report *rep, FILE *o)
{
	const json_t *h = json_object_get(rep->ref, "header");
	const json_t *a = json_object_get(h, "article");
	const json_t *m = json_object_get(h, "machine");
	size_t i, k;

	if (rep->ref == NULL) {
		/* No article: the scenarios' own names and titles. */
		fprintf(o, "# pagelab report —");
		for (i = 0; i < rep->nin; i++) {
			const char *name = str_or(json_object_get(json_object_get(rep->in[i].doc, RK_SCENARIO), RK_NAME), "?");

			for (k = 0; k < i; k++)
				if (strcmp(str_or(json_object_get(json_object_get(rep->in[k].doc, RK_SCENARIO), RK_NAME), "?"),
					   name) == 0)
					break;
			if (k == i) {
				fprintf(o, "%s ", i > 0 ? "," : "");
				md_text(o, name);
			}
		}
		fprintf(o, "\n\n");
		for (i = 0; i < rep->nin; i++) {
			const json_t *s = json_object_get(rep->in[i].doc, RK_SCENARIO);

			for (k = 0; k < i; k++)
				if (strcmp(str_or(json_object_get(json_object_get(rep->in[k].doc, RK_SCENARIO), RK_NAME), "?"),
					   str_or(json_object_get(s, RK_NAME), "?")) == 0)
					break;
			if (k < i)
				continue;
			fputs("Scenario `", o);
			md_text(o, str_or(json_object_get(s, RK_NAME), "?"));
			fputs("`: ", o);
			md_text(o, str_or(json_object_get(s, RK_TITLE), "(no title)"));
			if (json_is_string(json_object_get(s, RK_EXPECT))) {
				fprintf(o, ". Expected: ");
				md_text(o, json_string_value(json_object_get(s, RK_EXPECT)));
			}
			fprintf(o, ".\n\n");
		}
		md_columns(rep, o);
		fprintf(o, "\nEach cell: the median over the repeats, (min–max) when they differ, "
			"[k of n runs] when some runs lack the figure; “—”: not measured.\n");
		return;
	}
	fputs("# pagelab report — “", o);
	md_text(o, str_or(json_object_get(a, "title"), "?"));
	fputs("”\n\nArticle: ", o);
	md_text(o, str_or(json_object_get(a, "author"), "?"));
	fputs("; ", o);
	if (json_is_string(json_object_get(m, "summary"))) {
		md_text(o, json_string_value(json_object_get(m, "summary")));
	} else {
		/* "6.10.14-linuxkit aarch64, cgroup v2, memory.max 1 GiB, " */
		static const char *const parts[][2] = {
			{ "kernel", " " }, { "machine", ", cgroup " }, { "cgroup", ", memory.max " }, { "memory_max", ", " },
		};

		for (size_t p = 0; p < N(parts); p++) {
			md_text(o, str_or(json_object_get(m, parts[p][0]), "?"));
			fputs(parts[p][1], o);
		}
		fputs(json_is_false(json_object_get(m, "swap")) ? "no swap" : "swap", o);
		fputs(", ", o);
		md_text(o, str_or(json_object_get(m, "vm_memory"), "?"));
		fputs(" VM, THP [", o);
		md_text(o, str_or(json_object_get(m, "thp_enabled"), "?"));
		fputc(']', o);
	}
	fputs(". Reference data: ", o);
	md_text(o, rep->ref_path);
	fputs(".\n\n", o);
	md_columns(rep, o);
	fprintf(o, "\nEach cell: the median over the repeats, (min–max) when they differ, "
		"[k of n runs] when some runs lack the figure; “—”: not measured.\n");
}

/* The documents of report column col, for report_fingerprint_diff;
 * *n of them (the array is the caller's to free; NULL: none or no memory). */
static json_t **col_docs(const struct report *rep, size_t col, size_t *n)
{
	json_t **d = calloc(rep->nin ? rep->nin : 1, sizeof(*d));

	*n = 0;
	for (size_t k = 0; d != NULL && k < rep->nin; k++)
		if (rep->in[k].col == col)
			d[(*n)++] = rep->in[k].doc;
	return d;
}

/* Under a table whose columns are different machines (kernels, cgroup
 * modes, knobs), what else their results' host.fingerprint says differs,
 * each column against the first; nothing when no result has one (results
 * older than the fingerprint, the golden reports). */
static void md_fingerprints(const struct report *rep, const struct report_table *t, FILE *o)
{
	size_t nb = 0, nn = 0;
	json_t **b = NULL, **n = NULL;
	bool said = false;

	for (size_t k = 1; k < t->ncols; k++) {
		json_t *d;

		if (t->cols[k].index == t->cols[0].index)
			continue;               /* variant columns of one machine */
		free(b);
		free(n);
		b = col_docs(rep, t->cols[0].index, &nb);
		n = col_docs(rep, t->cols[k].index, &nn);
		d = b != NULL && n != NULL ? report_fingerprint_diff(b, nb, n, nn, "kernel") : NULL;
		const json_t *diff = json_object_get(d, "different");
		bool hb = json_is_true(json_object_get(d, "base")), hn = json_is_true(json_object_get(d, "new"));

		if (d != NULL && (hb || hn) && (!hb || !hn || json_array_size(diff) > 0)) {
			fputs(said || t->nnotes > 0 ? "- Also different, " : "\n- Also different, ", o);
			said = true;
			md_text(o, t->cols[0].label);
			fputs(" → ", o);
			md_text(o, t->cols[k].label);
			fputs(" (host.fingerprint):", o);
			if (!hb || !hn)
				fputs(hb ? " not known (the second's results carry none)" : " not known (the first's results carry none)", o);
			for (size_t i = 0; hb && hn && i < json_array_size(diff); i++) {
				const json_t *x = json_array_get(diff, i);

				fputs(i ? "; " : " ", o);
				md_text(o, str_or(json_object_get(x, "field"), "?"));
				fputc(' ', o);
				md_text(o, str_or(json_object_get(x, "base"), "?"));
				fputs(" → ", o);
				md_text(o, str_or(json_object_get(x, "new"), "?"));
			}
			fputs(".\n", o);
		}
		json_decref(d);
	}
	free(b);
	free(n);
}

static void md_table(const struct report_table *t, FILE *o)
{
	size_t i, k;

	fprintf(o, "\n## %zu. ", t->number);
	md_text(o, t->name);
	fputs(" (`", o);
	md_text(o, t->id);
	fputs("`)\n\n", o);
	if (t->article_section != NULL) {
		fputs("Article table: “", o);
		md_text(o, t->article_section);
		fputs(t->article_table ? "” — " : "”", o);
		md_text(o, t->article_table ? t->article_table : "");
		fputs(".  \n", o);
	}
	fputs("Compare: ", o);
	md_text(o, t->compare);
	fputs("\n\n| ", o);
	md_text(o, t->row_head);
	fputs(" | Figure |", o);
	for (k = 0; k < t->ncols; k++) {
		fputc(' ', o);
		md_text(o, t->cols[k].label);
		fprintf(o, " (%zu run%s) |", t->colruns[k], t->colruns[k] == 1 ? "" : "s");
	}
	if (t->has_article) {
		fputc(' ', o);
		md_text(o, t->article_col);
		fputs(" |", o);
	}
	fprintf(o, "\n|---|---|");
	for (k = 0; k < t->ncols + (t->has_article ? 1 : 0); k++)
		fprintf(o, "---:|");
	fputc('\n', o);
	for (i = 0; i < t->nrows; i++) {
		const struct report_row *r = &t->rows[i];

		fputs("| ", o);
		md_text(o, r->label);
		fputs(" | ", o);
		md_text(o, r->figure);
		for (k = 0; k < t->ncols; k++) {
			fputs(" | ", o);
			md_text(o, r->cells[k].text);
		}
		if (t->has_article) {
			fputs(" | ", o);
			md_text(o, r->article.text);
		}
		fputs(" |\n", o);
	}
	if (t->nnotes > 0)
		fputc('\n', o);
	for (i = 0; i < t->nnotes; i++) {
		fputs("- ", o);
		md_text(o, t->notes[i]);
		fputc('\n', o);
	}
}

/* ----------------------------------------------------------------- CSV */

static void csv_field(FILE *o, const char *s, bool last)
{
	lab_esc_csv(o, s, false);
	fputc(last ? '\n' : ',', o);
}

/* The numeric part of a CSV line: median, min, max, with_value, values. */
static void csv_numbers(FILE *o, const struct report_cell *c)
{
	char med[32] = "", lo[32] = "", hi[32] = "", have[32] = "", vals[TEXT_MAX] = "";
	size_t i;

	if (c->nvalues > 0 && c->have > 0) {
		fmt_num(c->median, false, med, sizeof(med));
		fmt_num(c->min, false, lo, sizeof(lo));
		fmt_num(c->max, false, hi, sizeof(hi));
		snprintf(have, sizeof(have), "%zu", c->have);
		for (i = 0; i < c->nvalues; i++) {
			char num[32] = "";

			if (c->present[i])
				fmt_num(c->values[i], false, num, sizeof(num));
			bufcat(vals, sizeof(vals), "%s%s", i > 0 ? ";" : "", num);
		}
	}
	csv_field(o, med, false);
	csv_field(o, lo, false);
	csv_field(o, hi, false);
	csv_field(o, have, false);
	csv_field(o, vals, false);
}

static void csv_line(FILE *o, const struct report_table *t, const struct report_row *r, const char *column,
		     const char *kernel, const char *cgroup, size_t runs, const struct report_cell *c)
{
	char nruns[32] = "";

	if (runs > 0)
		snprintf(nruns, sizeof(nruns), "%zu", runs);
	csv_field(o, t->id, false);
	csv_field(o, r->label, false);
	csv_field(o, r->figure, false);
	csv_field(o, column, false);
	csv_field(o, kernel, false);
	csv_field(o, cgroup, false);
	csv_field(o, r->unit != NULL ? r->unit : "", false);
	csv_field(o, nruns, false);
	csv_numbers(o, c);
	csv_field(o, c->text, true);
}

static int csv_table(const struct report *rep, const struct report_table *t, FILE *o)
{
	const json_t *m = ref_machine(rep, t);
	size_t i, k;

	for (i = 0; i < t->nrows; i++) {
		const struct report_row *r = &t->rows[i];
		struct report_cell a;

		for (k = 0; k < t->ncols; k++)
			csv_line(o, t, r, t->cols[k].label, t->cols[k].kernel, t->cols[k].cgroup, r->cells[k].runs,
				 &r->cells[k]);
		if (!t->has_article)
			continue;
		if (article_cell(r, &a) < 0) {
			cell_clear(&a);
			return -ENOMEM;
		}
		csv_line(o, t, r, "article", str_or(json_object_get(m, "kernel"), ""),
			 str_or(json_object_get(m, "cgroup"), ""), 0, &a);
		cell_clear(&a);
	}
	return 0;
}

/* ---------------------------------------------------------------- JSON */

static json_t *values_json(const struct report_cell *c)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < c->nvalues; i++)
		if (json_array_append_new(a, c->present[i] ? json_of_num(c->values[i]) : json_null()) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *cell_json(const struct report_cell *c, const char *column)
{
	json_t *j = json_pack("{s:s, s:s}", "column", column, "text", c->text);

	if (j == NULL)
		return NULL;
	if (c->runs > 0 && json_object_set_new(j, "runs", json_integer((json_int_t)c->runs)) < 0)
		goto fail;
	if (c->nvalues > 0 && c->have > 0 &&
	    (json_object_set_new(j, "median", json_of_num(c->median)) < 0 ||
	     json_object_set_new(j, "min", json_of_num(c->min)) < 0 ||
	     json_object_set_new(j, "max", json_of_num(c->max)) < 0 ||
	     json_object_set_new(j, "with_value", json_integer((json_int_t)c->have)) < 0 ||
	     json_object_set_new(j, "values", values_json(c)) < 0))
		goto fail;
	return j;
fail:
	json_decref(j);
	return NULL;
}

static json_t *row_json(const struct report_table *t, const struct report_row *r)
{
	json_t *j = json_pack("{s:s, s:s, s:s*, s:[]}", "row", r->label, "figure", r->figure, "unit", r->unit,
			      "cells");
	json_t *cells = json_object_get(j, "cells");
	size_t k;

	if (j != NULL && r->better != NULL)
		json_object_set_new(j, "better", json_string(r->better));
	for (k = 0; j != NULL && k < t->ncols; k++)
		if (json_array_append_new(cells, cell_json(&r->cells[k], t->cols[k].label)) < 0) {
			json_decref(j);
			return NULL;
		}
	if (j != NULL &&
	    json_object_set_new(j, "article", t->has_article
				? json_pack("{s:s, s:O*, s:b}", "text", r->article.text, "value", r->article_json,
					    "derived", r->derived)
				: json_null()) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *table_json(const struct report_table *t)
{
	json_t *j = json_pack("{s:s, s:I, s:s, s:s*, s:s*, s:s, s:s*, s:[], s:[], s:[]}",
			      "id", t->id, "number", (json_int_t)t->number, "name", t->name,
			      "article_section", t->article_section, "article_table", t->article_table,
			      "compare", t->compare, "article_column", t->has_article ? t->article_col : NULL,
			      "columns", "rows", "notes");
	size_t i;
	int bad = j == NULL;

	if (!bad && t->generic)
		bad = json_object_set_new(j, "generic", json_true()) < 0 ||
		      json_object_set_new(j, "scenario", json_string(t->scenario)) < 0;
	if (!bad && t->measured)
		bad = json_object_set_new(j, "measured", json_true()) < 0;
	for (i = 0; !bad && i < t->ncols; i++) {
		const struct report_column *c = &t->cols[i];

		json_t *cj = json_pack("{s:s, s:s, s:s, s:b, s:I}", "label", c->label, "kernel", c->kernel,
				       "cgroup", c->cgroup, "guest", c->guest, "runs", (json_int_t)t->colruns[i]);

		bad = cj == NULL || (c->variant != NULL && json_object_set_new(cj, "variant", json_string(c->variant)) < 0) ||
		      json_array_append_new(json_object_get(j, "columns"), cj) < 0;
	}
	for (i = 0; !bad && i < t->nrows; i++)
		bad = json_array_append_new(json_object_get(j, "rows"), row_json(t, &t->rows[i])) < 0;
	for (i = 0; !bad && i < t->nnotes; i++)
		bad = json_array_append_new(json_object_get(j, "notes"), json_string(t->notes[i])) < 0;
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *inputs_json(const struct report *rep)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < rep->nin; i++) {
		const json_t *doc = rep->in[i].doc;
		const json_t *host = json_object_get(doc, RK_HOST);

		if (json_array_append_new(a, json_pack("{s:s, s:s*, s:s*, s:s*, s:I, s:s}",
						       "path", rep->in[i].path,
						       "scenario", json_string_value(json_object_get(json_object_get(doc, RK_SCENARIO), RK_NAME)),
						       "status", json_string_value(json_object_get(doc, RK_STATUS)),
						       "kernel", json_string_value(json_object_get(host, RK_KERNEL)),
						       "runs", (json_int_t)json_array_size(json_object_get(doc, RK_RUNS)),
						       "column", rep->cols[rep->in[i].col].label)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int format_write(const struct report *rep, enum report_format fmt, FILE *o, struct lab_error *err)
{
	size_t i;

	if (fmt == REPORT_MARKDOWN) {
		md_header(rep, o);
		for (i = 0; i < rep->nt; i++) {
			md_table(&rep->tables[i], o);
			md_fingerprints(rep, &rep->tables[i], o);
		}
		if (rep->nt == 0)
			fprintf(o, "\nNo table has data in these results (they hold no runs).\n");
	} else if (fmt == REPORT_CSV) {
		fputs("table,row,figure,column,kernel,cgroup,unit,runs,median,min,max,with_value,values,text\n", o);
		for (i = 0; i < rep->nt; i++)
			if (csv_table(rep, &rep->tables[i], o) < 0)
				return lab_error_set(err, ENOMEM, "out of memory");
	} else {
		const json_t *h = json_object_get(rep->ref, "header");
		json_t *doc = json_pack("{s:s, s:o, s:o, s:[]}", "schema", REPORT_SCHEMA, "reference",
					rep->ref != NULL
					? json_pack("{s:s, s:O*, s:O*, s:O*}", "path", rep->ref_path, "article",
						    json_object_get(h, "article"), "machine", json_object_get(h, "machine"),
						    "baseline_kb", json_object_get(h, "baseline_kb"))
					: json_null(),
					"inputs", inputs_json(rep), "tables");
		int bad = doc == NULL;

		for (i = 0; !bad && i < rep->nt; i++)
			bad = json_array_append_new(json_object_get(doc, "tables"), table_json(&rep->tables[i])) < 0;
		if (!bad) {
			char *text = json_dumps(doc, JSON_INDENT(2));

			bad = text == NULL;
			if (!bad) {
				lab_esc_json(o, text);
				bad = fputc('\n', o) == EOF;
			}
			free(text);
		}
		json_decref(doc);
		if (bad)
			return lab_error_set(err, ENOMEM, "cannot build the JSON report");
	}
	if (fflush(o) != 0 || ferror(o))
		return lab_error_errno(err, errno ? errno : EIO, "writing the report");
	return 0;
}
