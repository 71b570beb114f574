/* SPDX-License-Identifier: GPL-2.0-or-later */
/* build.c — the tables of a report: which documents feed which definition,
 * the columns (kernel × cgroup × knobs, times the variants when they are
 * columns), the article's column, notes, and the numbering.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_cgroup(const struct report_table *t, const char *cg)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].cgroup, cg) == 0)
			return true;
	return false;
}

const json_t *ref_machine(const struct report *rep, const struct report_table *t)
{
	const json_t *m = json_object_get(table_ref(rep, t), "machine");

	return m != NULL ? m : json_object_get(json_object_get(rep->ref, "header"), "machine");
}

static void article_column(const struct report *rep, const json_t *tref, char *buf, size_t len)
{
	const json_t *m = json_object_get(tref, "machine");
	const char *kernel, *cg, *os;

	if (json_is_string(json_object_get(tref, "column"))) {
		/* a table's own reference names its column ("expected") */
		snprintf(buf, len, "%s", json_string_value(json_object_get(tref, "column")));
		return;
	}
	if (m == NULL)
		m = json_object_get(json_object_get(rep->ref, "header"), "machine");
	kernel = str_or(json_object_get(m, "kernel"), "?");
	cg = json_string_value(json_object_get(m, "cgroup"));
	os = json_string_value(json_object_get(m, "os"));
	snprintf(buf, len, "article: %s", kernel);
	if (cg != NULL)
		bufcat(buf, len, " · cgroup %s", cg);
	if (os != NULL)
		bufcat(buf, len, " · %s", os);
}

void report_table_free(struct report_table *t)
{
	size_t i, k;

	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < t->ncols; k++)
			cell_clear(&t->rows[i].cells[k]);
		cell_clear(&t->rows[i].article);
		free(t->rows[i].cells);
		free((char *)t->rows[i].variant);
	}
	for (i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	free(t->rows);
	free(t->cols);
	free(t->colruns);
	free(t->col_text);
	free((char *)t->article_col);
	free((char *)t->name);
	memset(t, 0, sizeof(*t));
}

/* The table's block in the reference ("tables.<id>"), or its own. */
const json_t *table_ref(const struct report *rep, const struct report_table *t)
{
	const struct tdef *d = t->def;

	if (d != NULL && d->own_ref != NULL)
		return d->own_ref;
	if (d == NULL || d->article == NULL)
		return NULL;
	return json_object_get(json_object_get(rep->ref, "tables"), d->id);
}

/* Whether the doc's runs feed table d: a table beside its scenario always,
 * another when scenario.report names it (and the doc's own file does not
 * declare that id), the generic report when nothing else takes the doc
 * (scenario grouped by name). */
static bool doc_feeds(const struct input *in, const struct tdef *d, const char *scenario)
{
	const json_t *ids = json_object_get(json_object_get(in->doc, RK_SCENARIO), RK_REPORT);
	size_t i;

	if (d->everywhere)
		return true;
	if (d->generic)
		return !in->fed && scenario != NULL &&
		       strcmp(str_or(json_object_get(json_object_get(in->doc, RK_SCENARIO), RK_NAME), "?"), scenario) == 0;
	if (d->beside)
		return in->beside != NULL && strcmp(in->beside->path, d->file) == 0;
	if (in->beside != NULL)
		for (i = 0; i < in->beside->ntables; i++)
			if (strcmp(in->beside->tables[i].id, d->id) == 0)
				return false;
	if (json_is_string(ids))
		return strcmp(json_string_value(ids), d->id) == 0;
	for (i = 0; i < json_array_size(ids); i++)
		if (strcmp(str_or(json_array_get(ids, i), ""), d->id) == 0)
			return true;
	return false;
}

bool engine_feeds(const struct input *in, const struct tdef *d)
{
	return doc_feeds(in, d, NULL);
}

/* One column per kernel column with runs here; with variants as columns,
 * one per (kernel column, variant) with runs, kernel by kernel. */
static int table_columns(struct tctx *c, struct lab_error *err)
{
	struct report *rep = c->rep;
	struct report_table *t = c->t;
	const struct tdef *d = c->def;
	size_t nv = 0, i, k, v, cap, used = 0;

	if (d->variant_key != NULL && d->variant_columns) {
		if ((c->vars = calloc(40, sizeof(*c->vars))) == NULL)
			return lab_error_set(err, ENOMEM, "out of memory");
		nv = collect_variants(c, c->vars, 40);
	}
	cap = rep->ncols * (nv ? nv : 1) + 1;
	t->cols = calloc(cap, sizeof(*t->cols));
	t->colruns = calloc(cap, sizeof(*t->colruns));
	c->colvar = calloc(cap, sizeof(*c->colvar));
	t->col_text = calloc(cap, REPORT_COL_TEXT);
	if (t->cols == NULL || t->colruns == NULL || c->colvar == NULL || t->col_text == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (i = 0; i < rep->ncols; i++)
		for (v = 0; v < (nv ? nv : 1); v++) {
			const struct variant *var = nv ? &c->vars[v] : NULL;
			size_t n = 0;

			for (k = 0; k < c->nfeed; k++)
				n += c->feed[k]->col == i && run_in_variant(c->feed[k], var);
			if (n == 0)
				continue;
			t->colruns[t->ncols] = n;
			t->cols[t->ncols] = rep->cols[i].pub;
			t->cols[t->ncols].index = i;
			if (var != NULL) {
				char *text = t->col_text + used * REPORT_COL_TEXT;

				snprintf(text, REPORT_COL_TEXT / 2, "%s · %s", rep->cols[i].pub.label, var->label);
				snprintf(text + REPORT_COL_TEXT / 2, REPORT_COL_TEXT / 2, "%s", var->value);
				t->cols[t->ncols].label = text;
				t->cols[t->ncols].variant = text + REPORT_COL_TEXT / 2;
				used++;
			}
			c->colvar[t->ncols++] = var;
		}
	return 0;
}

/* Build table d from the runs that feed it.  *built is false when no run
 * does (the table is then left out). */
static int table_build(struct report *rep, const struct tdef *d, const char *scenario, size_t number,
		       struct report_table *t, bool *built, struct lab_error *err)
{
	struct tctx c = {.rep = rep, .t = t, .def = d};
	char name[512];
	size_t i, k;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	*built = false;
	t->def = d;
	t->id = d->id;
	t->row_head = d->row_head;
	t->compare = d->compare;
	t->source = d->file;
	t->number = number;
	t->generic = d->generic;
	t->scenario = scenario;
	if (scenario != NULL)
		snprintf(name, sizeof(name), "%s — %s", d->name, scenario);
	else
		snprintf(name, sizeof(name), "%s", d->name);
	c.feed = calloc(rep->nruns + 1, sizeof(*c.feed));
	c.pick = calloc(rep->nruns + 1, sizeof(*c.pick));
	t->name = strdup(name);
	if (c.feed == NULL || c.pick == NULL || t->name == NULL) {
		rc = lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < rep->nruns; i++)
		if (doc_feeds(rep->runs[i].in, d, scenario))
			c.feed[c.nfeed++] = &rep->runs[i];
	if (c.nfeed == 0)
		goto out;
	if ((rc = table_columns(&c, err)) < 0)
		goto out;
	c.tref = table_ref(rep, t);
	t->has_article = d->article != NULL || d->own_ref != NULL;
	if (t->has_article) {
		char col[192];

		article_column(rep, c.tref, col, sizeof(col));
		if ((t->article_col = strdup(col)) == NULL) {
			rc = lab_error_set(err, ENOMEM, "out of memory");
			goto out;
		}
		t->article_section = json_string_value(json_object_get(c.tref, "section"));
		t->article_table = json_string_value(json_object_get(c.tref, "table"));
	}
	for (i = 0; i < d->nnotes && rc == 0; i++)
		if (d->notes[i].if_cgroup == NULL || has_cgroup(t, d->notes[i].if_cgroup))
			rc = table_note(t, "%s", d->notes[i].text) < 0 ? lab_error_set(err, ENOMEM, "out of memory") : 0;
	if (rc == 0)
		rc = d->variant_key != NULL && !d->variant_columns ? for_variants(&c, err)
		     : add_figs(&c, d->figs, d->nfigs, NULL, err);
	/* A figure the column's machine cannot have: say so instead of
	 * printing its absence as data. */
	for (i = 0; rc == 0 && d->unsupported_cgroup != NULL && i < t->ncols; i++) {
		if (strcmp(t->cols[i].cgroup, d->unsupported_cgroup) != 0)
			continue;
		for (k = 0; k < t->nrows; k++) {
			cell_clear(&t->rows[k].cells[i]);
			snprintf(t->rows[k].cells[i].text, sizeof(t->rows[k].cells[i].text), "%s",
				 d->unsupported_text);
		}
	}
	if (rc == 0 && json_is_string(json_object_get(c.tref, "note")) &&
	    table_note(t, "article: %s", json_string_value(json_object_get(c.tref, "note"))) < 0)
		rc = lab_error_set(err, ENOMEM, "out of memory");
	*built = rc == 0 && !(d->optional && t->nrows == 0);
out:
	free(c.feed);
	free(c.pick);
	free(c.colvar);
	free(c.vars);
	return rc;
}

/* Every definition in order, then the generic report once per scenario
 * whose documents no table takes.  Article tables keep their place in the
 * list of definitions as their number (the number a reader cites); others
 * follow the highest number printed. */
int report_build(struct report *rep, struct tdef *const *defs, size_t ndefs, struct lab_error *err)
{
	size_t i, k, cap = ndefs + 1, next = 0;
	int rc;

	for (i = 0; i < rep->nin; i++)
		for (k = 0; k < ndefs && !rep->in[i].fed; k++)
			rep->in[i].fed = !defs[k]->generic && doc_feeds(&rep->in[i], defs[k], NULL);
	for (i = 0; i < rep->nin; i++)
		cap += rep->in[i].fed ? 0 : ndefs;
	rep->tables = calloc(cap, sizeof(*rep->tables));
	if (rep->tables == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (i = 0; i < ndefs; i++) {
		bool built;

		if (defs[i]->generic)
			continue;
		if ((rc = table_build(rep, defs[i], NULL, defs[i]->article != NULL ? i + 1 : 0,
				      &rep->tables[rep->nt], &built, err)) < 0) {
			report_table_free(&rep->tables[rep->nt]);
			return rc;
		}
		if (!built) {
			report_table_free(&rep->tables[rep->nt]);
			continue;
		}
		if (rep->tables[rep->nt].number > next)
			next = rep->tables[rep->nt].number;
		rep->nt++;
	}
	for (i = 0; i < rep->nt; i++)
		if (rep->tables[i].number == 0)
			rep->tables[i].number = ++next;
	for (i = 0; i < rep->nin; i++) {
		const char *scn = str_or(json_object_get(json_object_get(rep->in[i].doc, RK_SCENARIO), RK_NAME), "?");

		if (rep->in[i].fed)
			continue;
		for (k = 0; k < i; k++)
			if (!rep->in[k].fed &&
			    strcmp(str_or(json_object_get(json_object_get(rep->in[k].doc, RK_SCENARIO), RK_NAME), "?"),
				   scn) == 0)
				break;
		if (k < i)
			continue;       /* that scenario's generic tables are built */
		for (k = 0; k < ndefs; k++) {
			bool built;

			if (!defs[k]->generic)
				continue;
			if ((rc = table_build(rep, defs[k], scn, next + 1, &rep->tables[rep->nt], &built, err)) < 0) {
				report_table_free(&rep->tables[rep->nt]);
				return rc;
			}
			if (built) {
				rep->nt++;
				next++;         /* a table left out takes no number */
			} else {
				report_table_free(&rep->tables[rep->nt]);
			}
		}
	}
	return 0;
}
