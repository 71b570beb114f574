/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rows.c — a table definition's figures into rows: one row per figure and
 * variant, the expansions a definition asks for (per element of an array,
 * per step the runs took, per zone with managed pages), the variants a
 * table's runs have.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- tables */

static bool variant_of(const json_t *run, const char *key, char *buf, size_t len)
{
	const char *comma = strchr(key, ',');
	const json_t *v;

	if (strcmp(key, "*") == 0) {
		/* every key of the run's variant: "advice=free, thp=off" */
		const json_t *obj = json_object_get(run, RK_VARIANT);
		const char *k;
		json_t *val;
		char one[64];

		buf[0] = '\0';
		json_object_foreach((json_t *)obj, k, val) {
			if (!variant_of(run, k, one, sizeof(one)))
				continue;
			bufcat(buf, len, "%s%s=%s", buf[0] ? ", " : "", k, one);
		}
		return buf[0] != '\0';
	}
	if (comma != NULL) {
		/* "pace,wsf": the values joined the same way, "64M/50,10" */
		char first[32], rest[32];
		size_t n;

		if ((size_t)(comma - key) >= sizeof(first))
			return false;
		snprintf(first, sizeof(first), "%.*s", (int)(comma - key), key);
		if (!variant_of(run, first, buf, len) || !variant_of(run, comma + 1, rest, sizeof(rest)))
			return false;
		n = strlen(buf);
		return (size_t)snprintf(buf + n, len - n, ",%s", rest) < len - n;
	}
	v = json_object_get(json_object_get(run, RK_VARIANT), key);

	if (v == NULL)
		v = json_object_get(json_object_get(run, RK_PARAMS), key);
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "on" : "off");
	else
		return false;
	return true;
}

bool run_in_variant(const struct runref *r, const struct variant *v)
{
	char val[96];

	return v == NULL || (variant_of(r->run, v->key, val, sizeof(val)) && strcmp(val, v->value) == 0);
}

static const json_t *ref_lookup(const struct tctx *c, const char *path)
{
	enum walk_agg agg;

	if (path == NULL)
		return NULL;
	if (path[0] == '/')
		return c->rep->ref != NULL ? json_walk(c->rep->ref, path + 1, &agg) : NULL;
	return json_walk(c->tref, path, &agg);
}

int table_note(struct report_table *t, const char *fmt, ...)
{
	char buf[512];
	char **notes;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	notes = realloc(t->notes, (t->nnotes + 1) * sizeof(*notes));
	if (notes == NULL)
		return -ENOMEM;
	t->notes = notes;
	if ((t->notes[t->nnotes] = strdup(buf)) == NULL)
		return -ENOMEM;
	t->nnotes++;
	return 0;
}

static struct report_row *table_new_row(struct tctx *c)
{
	struct report_table *t = c->t;
	struct report_row *r;

	if (t->nrows == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct report_row *rows = realloc(t->rows, cap * sizeof(*rows));

		if (rows == NULL)
			return NULL;
		t->rows = rows;
		c->cap = cap;
	}
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->cells = calloc(t->ncols ? t->ncols : 1, sizeof(*r->cells));
	if (r->cells == NULL)
		return NULL;
	t->nrows++;
	return r;
}

static const char *kind_name(enum cell_kind k)
{
	static const char *const names[] = {
		[K_AGG] = "median", [K_LIST] = "runs", [K_COUNT] = "count", [K_TEXT] = "text",
		[K_MIN] = "min", [K_MAX] = "max", [K_FIRST] = "first", [K_LAST] = "last",
	};

	return names[k];
}

static bool row_has_data(const struct report_row *r, size_t ncols)
{
	size_t i;

	for (i = 0; i < ncols; i++)
		if (r->cells[i].have > 0 || (r->cells[i].nvalues == 0 && strcmp(r->cells[i].text, MISSING) != 0))
			return true;
	return false;
}

static void row_drop_last(struct report_table *t)
{
	struct report_row *r = &t->rows[--t->nrows];
	size_t k;

	for (k = 0; k < t->ncols; k++)
		cell_clear(&r->cells[k]);
	free(r->cells);
	free((char *)r->variant);
}

/* One figure -> one row: a cell per column over the runs of that column in
 * variant v (NULL = all), and the article's figure at v's prefix + f->ref. */
static int add_fig(struct tctx *c, const struct fig *f, const struct variant *v, struct lab_error *err)
{
	struct report_table *t = c->t;
	struct report_row *row = table_new_row(c);
	char ref[160];
	size_t i, k, n;
	int rc;

	if (row == NULL)
		return lab_error_set(err, ENOMEM, "table %s: out of memory", t->id);
	snprintf(row->label, sizeof(row->label), "%s%s%s", v != NULL ? v->label : "",
		 v != NULL && f->row != NULL ? " · " : "", f->row != NULL ? f->row : "");
	snprintf(row->figure, sizeof(row->figure), "%s", f->what != NULL ? f->what : "");
	row->unit = f->unit;
	row->better = f->better;
	/* "{class}" outside an each-metric group has no metric to take it from */
	row->fclass = f->fclass != NULL && strcmp(f->fclass, "{class}") == 0 ? NULL : f->fclass;
	row->kind = kind_name(f->kind);
	if (v != NULL && (row->variant = strdup(v->value)) == NULL)
		return lab_error_set(err, ENOMEM, "table %s: out of memory", t->id);
	for (i = 0; i < t->ncols; i++) {
		for (k = 0, n = 0; k < c->nfeed; k++)
			if (c->feed[k]->col == c->t->cols[i].index && run_in_variant(c->feed[k], v) &&
			    run_in_variant(c->feed[k], c->colvar[i]))
				c->pick[n++] = c->feed[k];
		rc = cell_fill(&row->cells[i], f, c->pick, n);
		if (rc < 0)
			return lab_error_set(err, -rc, "table %s: out of memory", t->id);
	}
	snprintf(ref, sizeof(ref), "%s%s%s", v != NULL && f->ref != NULL && f->ref[0] != '/' ? v->value : "",
		 v != NULL && f->ref != NULL && f->ref[0] != '/' ? "." : "", f->ref != NULL ? f->ref : "");
	row->article_json = ref_lookup(c, f->ref != NULL ? ref : NULL);
	cell_article_text(row->article_json, f->unit, row->article.text, sizeof(row->article.text), &row->derived);
	if (f->optional && !row_has_data(row, t->ncols))
		row_drop_last(t);
	return 0;
}

/* "{n}", "{i}", … in a template, from pairs of (name, value). */
static void subst(const char *tmpl, const char *const *kv, size_t nkv, char *buf, size_t len)
{
	size_t o = 0, i;

	buf[0] = '\0';
	if (tmpl == NULL)
		return;
	while (*tmpl != '\0' && o + 1 < len) {
		const char *close = *tmpl == '{' ? strchr(tmpl, '}') : NULL;

		if (close != NULL) {
			for (i = 0; i < nkv; i += 2)
				if (strlen(kv[i]) == (size_t)(close - tmpl - 1) &&
				    strncmp(kv[i], tmpl + 1, (size_t)(close - tmpl - 1)) == 0)
					break;
			if (i < nkv) {
				int w = snprintf(buf + o, len - o, "%s", kv[i + 1]);

				o += w > 0 ? (size_t)w : 0;
				if (o >= len)
					o = len - 1;
				tmpl = close + 1;
				continue;
			}
		}
		buf[o++] = *tmpl++;
	}
	buf[o] = '\0';
}

/* Buffers an expanded figure's strings live in. */
struct figbuf {
	char row[128], what[160], sel[128], path[256], sel2[128], path2[256], ref[160];
};

static void fig_expand(const struct fig *tmpl, const char *const *kv, size_t nkv, struct figbuf *b,
		       struct fig *out)
{
	*out = *tmpl;
	out->each = E_NONE;
#define SUB(field)                                                               \
	do {                                                                     \
		if (tmpl->field != NULL) {                                       \
			subst(tmpl->field, kv, nkv, b->field, sizeof(b->field)); \
			out->field = b->field;                                   \
		}                                                                \
	} while (0)
	SUB(row);
	SUB(what);
	SUB(sel);
	SUB(path);
	SUB(sel2);
	SUB(path2);
	SUB(ref);
#undef SUB
}


/* E_INDEX: one row per element of the longest array at each_sel/each_path
 * among the runs ("Reading {n}", path "counters.series_kb[{i}]"). */
static int expand_index(struct tctx *c, const struct fig *f, const struct variant *v, struct lab_error *err)
{
	size_t i, nread = 0;
	int rc;

	for (i = 0; i < c->nfeed; i++) {
		enum walk_agg agg;
		const json_t *a = json_walk(select_step(c->feed[i], f->each_sel), f->each_path, &agg);
		size_t n = json_array_size(a);

		nread = n > nread ? n : nread;
	}
	for (i = 0; i < nread; i++) {
		char si[24], sn[24];
		const char *kv[] = {"i", si, "n", sn};
		struct figbuf b;
		struct fig g;

		snprintf(si, sizeof(si), "%zu", i);
		snprintf(sn, sizeof(sn), "%zu", i + 1);
		fig_expand(f, kv, N(kv), &b, &g);
		g.ref = i == 0 ? f->first_ref : g.ref;
		if ((rc = add_fig(c, &g, v, err)) < 0)
			return rc;
	}
	return 0;
}

/* E_STEP: the workload steps the feeding runs reported, in the order they
 * came: a step a workload took at most three times at each time, one taken
 * more often (a stepper's alloc) at its first and its last.  The templates
 * see {workload} {step} {n} {sel} {label}. */
struct seen_step {
	const char *w, *s;
	unsigned long nth;              /* 0: the last */
	unsigned long count;            /* the most times a run took it */
};

static int note_step(struct seen_step **seen, size_t *n, size_t *cap, const char *w, const char *name,
		     unsigned long nth, unsigned long count)
{
	size_t m;

	for (m = 0; m < *n; m++)
		if (strcmp((*seen)[m].w, w) == 0 && strcmp((*seen)[m].s, name) == 0 && (*seen)[m].nth == nth) {
			if (count > (*seen)[m].count)
				(*seen)[m].count = count;
			return 0;
		}
	if (*n == *cap) {
		struct seen_step *more = realloc(*seen, (*cap = *cap ? 2 * *cap : 32) * sizeof(**seen));

		if (more == NULL)
			return -ENOMEM;
		*seen = more;
	}
	(*seen)[(*n)++] = (struct seen_step){w, name, nth, count};
	return 0;
}

static int expand_steps(struct tctx *c, const struct fig *f, const struct variant *v, struct lab_error *err)
{
	struct seen_step *seen = NULL;
	size_t nseen = 0, cap = 0, i, k, m;
	int rc = 0;

	for (i = 0; i < c->nfeed && rc == 0; i++) {
		const json_t *steps = json_object_get(c->feed[i]->run, RK_STEPS);
		/* (workload, step) pairs of this run: how often, how far */
		struct pair {
			const char *w, *s;
			unsigned long count, seen;
		} pairs[64];
		size_t npairs = 0, p;

		if (!run_in_variant(c->feed[i], v))
			continue;
		for (k = 0; k < json_array_size(steps); k++) {
			const json_t *s = json_array_get(steps, k);
			const char *w = json_string_value(json_object_get(s, RK_WORKLOAD));
			const char *name = json_string_value(json_object_get(s, RK_STEP));

			if (w == NULL || name == NULL)
				continue;
			for (p = 0; p < npairs && (strcmp(pairs[p].w, w) != 0 || strcmp(pairs[p].s, name) != 0); p++)
				;
			if (p == npairs && npairs < N(pairs))
				pairs[npairs++] = (struct pair){w, name, 0, 0};
			if (p < npairs)
				pairs[p].count++;
		}
		for (k = 0; k < json_array_size(steps) && rc == 0; k++) {
			const json_t *s = json_array_get(steps, k);
			const char *w = json_string_value(json_object_get(s, RK_WORKLOAD));
			const char *name = json_string_value(json_object_get(s, RK_STEP));
			unsigned long nth, count;

			if (w == NULL || name == NULL)
				continue;
			for (p = 0; p < npairs && (strcmp(pairs[p].w, w) != 0 || strcmp(pairs[p].s, name) != 0); p++)
				;
			if (p == npairs)
				continue;       /* beyond 64 distinct steps in a run: not shown */
			nth = ++pairs[p].seen;
			count = pairs[p].count;
			if (count <= 3 || nth == 1)
				rc = note_step(&seen, &nseen, &cap, w, name, nth, count);
			else if (nth == count)
				rc = note_step(&seen, &nseen, &cap, w, name, 0, count);
		}
	}
	if (rc < 0) {
		free(seen);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	for (m = 0; m < nseen && rc == 0; m++) {
		char sn[24], sel[128], label[160];
		const char *kv[] = {"workload", seen[m].w, "step", seen[m].s, "n", sn, "sel", sel, "label", label};

		if (seen[m].nth == 0) {
			snprintf(sn, sizeof(sn), "last");
			snprintf(label, sizeof(label), "%s: %s, the last", seen[m].w, seen[m].s);
		} else {
			snprintf(sn, sizeof(sn), "%lu", seen[m].nth);
			snprintf(label, sizeof(label), "%s: %s", seen[m].w, seen[m].s);
			if (seen[m].count > 1)
				bufcat(label, sizeof(label), " #%lu", seen[m].nth);
		}
		snprintf(sel, sizeof(sel), "%s:%s#%s", seen[m].w, seen[m].s, sn);
		for (k = 0; k < f->nsub && rc == 0; k++) {
			struct figbuf b;
			struct fig g;

			fig_expand(&f->sub[k], kv, N(kv), &b, &g);
			rc = add_fig(c, &g, v, err);
		}
	}
	free(seen);
	return rc;
}

/* E_ZONE: every (node, zone) with managed pages in the feeding runs'
 * samples; the templates see {node} {zone} {label}. */
static int expand_zones(struct tctx *c, const struct fig *f, const struct variant *v, struct lab_error *err)
{
	struct zseen {
		long long node;
		const char *zone;
	} seen[64];
	size_t nseen = 0, i, k, m;
	int rc = 0;

	for (i = 0; i < c->nfeed; i++) {
		const json_t *samples = json_object_get(c->feed[i]->run, RK_SAMPLES);

		if (!run_in_variant(c->feed[i], v))
			continue;
		for (k = 0; k < json_array_size(samples); k++) {
			const json_t *zones = json_object_get(json_array_get(samples, k), RK_ZONES);

			for (m = 0; m < json_array_size(zones); m++) {
				const json_t *z = json_array_get(zones, m);
				const char *name = json_string_value(json_object_get(z, RK_ZONE));
				long long node = json_integer_value(json_object_get(z, RK_NODE));
				size_t q;

				if (name == NULL || json_integer_value(json_object_get(z, RK_MANAGED)) <= 0)
					continue;
				for (q = 0; q < nseen && (seen[q].node != node || strcmp(seen[q].zone, name) != 0); q++)
					;
				if (q == nseen && nseen < N(seen))
					seen[nseen++] = (struct zseen){node, name};
			}
		}
	}
	for (m = 0; m < nseen && rc == 0; m++) {
		char sn[24], label[96];
		const char *kv[] = {"node", sn, "zone", seen[m].zone, "label", label};

		snprintf(sn, sizeof(sn), "%lld", seen[m].node);
		snprintf(label, sizeof(label), "node %lld %s", seen[m].node, seen[m].zone);
		for (k = 0; k < f->nsub && rc == 0; k++) {
			struct figbuf b;
			struct fig g;

			fig_expand(&f->sub[k], kv, N(kv), &b, &g);
			rc = add_fig(c, &g, v, err);
		}
	}
	return rc;
}

/* E_METRIC: every metric a load's step carries (runs[].steps[].metrics,
 * harness/result/result.md), per (workload, step, n-th) in the order the
 * runs took them, its metrics in the order the first run holding them
 * listed them.  The templates see {workload} {step} {n} {sel} {label} and
 * {metric}; a template's unit "{unit}", better "{better}" and class
 * "{class}" are the metric's own (strings of the documents, which outlive
 * the report; a class the document gives that is neither count nor timing
 * is none: compare decides by the unit). */
struct seen_metric {
	const char *w, *s, *m, *unit, *better, *fclass;
	unsigned long nth;
};

static int note_metric(struct seen_metric **seen, size_t *n, size_t *cap, const struct seen_metric *x)
{
	for (size_t k = 0; k < *n; k++)
		if (strcmp((*seen)[k].w, x->w) == 0 && strcmp((*seen)[k].s, x->s) == 0 && (*seen)[k].nth == x->nth &&
		    strcmp((*seen)[k].m, x->m) == 0)
			return 0;
	if (*n == *cap) {
		struct seen_metric *more = realloc(*seen, (*cap = *cap ? 2 * *cap : 32) * sizeof(**seen));

		if (more == NULL)
			return -ENOMEM;
		*seen = more;
	}
	(*seen)[(*n)++] = *x;
	return 0;
}

/* The metrics of one run's steps into seen. */
static int run_metrics(const json_t *run, struct seen_metric **seen, size_t *n, size_t *cap)
{
	const json_t *steps = json_object_get(run, RK_STEPS);
	int rc = 0;

	for (size_t k = 0; k < json_array_size(steps) && rc == 0; k++) {
		const json_t *st = json_array_get(steps, k), *ms = json_object_get(st, RK_METRICS);
		struct seen_metric x = { json_string_value(json_object_get(st, RK_WORKLOAD)),
					 json_string_value(json_object_get(st, RK_STEP)), NULL, NULL, NULL, NULL, 1 };
		const char *name;
		json_t *v;

		if (x.w == NULL || x.s == NULL || !json_is_object(ms))
			continue;
		for (size_t q = 0; q < k; q++) {
			const json_t *p = json_array_get(steps, q);

			x.nth += strcmp(str_or(json_object_get(p, RK_WORKLOAD), ""), x.w) == 0 &&
				 strcmp(str_or(json_object_get(p, RK_STEP), ""), x.s) == 0;
		}
		json_object_foreach((json_t *)ms, name, v) {
			x.m = name;
			x.unit = json_string_value(json_object_get(v, "unit"));
			x.better = json_string_value(json_object_get(v, "better"));
			x.fclass = json_string_value(json_object_get(v, "class"));
			if (x.fclass != NULL && strcmp(x.fclass, "count") != 0 && strcmp(x.fclass, "timing") != 0)
				x.fclass = NULL;
			if ((rc = note_metric(seen, n, cap, &x)) < 0)
				break;
		}
	}
	return rc;
}

static int expand_metrics(struct tctx *c, const struct fig *f, const struct variant *v, struct lab_error *err)
{
	struct seen_metric *seen = NULL;
	size_t nseen = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < c->nfeed && rc == 0; i++)
		if (run_in_variant(c->feed[i], v))
			rc = run_metrics(c->feed[i]->run, &seen, &nseen, &cap);
	for (size_t m = 0; m < nseen && rc == 0; m++) {
		char sn[24], sel[160], label[160];
		const char *kv[] = {"workload", seen[m].w, "step", seen[m].s, "n", sn, "sel", sel, "label", label,
				    "metric", seen[m].m};

		snprintf(sn, sizeof(sn), "%lu", seen[m].nth);
		snprintf(sel, sizeof(sel), "%s:%s#%lu", seen[m].w, seen[m].s, seen[m].nth);
		snprintf(label, sizeof(label), "%s: %s%s%s", seen[m].w, seen[m].s, seen[m].nth > 1 ? " #" : "",
			 seen[m].nth > 1 ? sn : "");
		for (size_t k = 0; k < f->nsub && rc == 0; k++) {
			struct figbuf b;
			struct fig g;

			fig_expand(&f->sub[k], kv, N(kv), &b, &g);
			if (g.unit != NULL && strcmp(g.unit, "{unit}") == 0)
				g.unit = seen[m].unit != NULL && seen[m].unit[0] ? seen[m].unit : NULL;
			if (g.better != NULL && strcmp(g.better, "{better}") == 0)
				g.better = seen[m].better;
			if (g.fclass != NULL && strcmp(g.fclass, "{class}") == 0)
				g.fclass = seen[m].fclass;
			rc = add_fig(c, &g, v, err);
		}
	}
	free(seen);
	if (rc == -ENOMEM)
		return lab_error_set(err, ENOMEM, "out of memory");
	return rc;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

int add_figs(struct tctx *c, const struct fig *figs, size_t n, const struct variant *v,
		    struct lab_error *err)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		const struct fig *f = &figs[i];

		if (f->if_variant != NULL && (v == NULL || !in_list(v->value, f->if_variant, f->nif)))
			continue;
		if (f->unless_variant != NULL && v != NULL && in_list(v->value, f->unless_variant, f->nunless))
			continue;
		switch (f->each) {
		case E_INDEX:
			rc = expand_index(c, f, v, err);
			break;
		case E_STEP:
			rc = expand_steps(c, f, v, err);
			break;
		case E_ZONE:
			rc = expand_zones(c, f, v, err);
			break;
		case E_METRIC:
			rc = expand_metrics(c, f, v, err);
			break;
		case E_NONE:
			rc = add_fig(c, f, v, err);
			break;
		}
	}
	return rc;
}

/* The variants of the table's key: its known ones (in its order, even
 * without runs, so a missing variant shows as "—"), then any other value the
 * runs have.  Key "*" is every key of the runs' variants. */
size_t collect_variants(const struct tctx *c, struct variant *out, size_t max)
{
	const struct tdef *d = c->def;
	size_t n = 0, i, k;
	char val[96];

	for (i = 0; i < d->nknown && n < max; i++, n++) {
		out[n].key = d->variant_key;
		snprintf(out[n].value, sizeof(out[n].value), "%s", d->known[i].value);
		snprintf(out[n].label, sizeof(out[n].label), "%s", d->known[i].label);
	}
	for (i = 0; i < c->nfeed; i++) {
		if (!variant_of(c->feed[i]->run, d->variant_key, val, sizeof(val)))
			continue;
		for (k = 0; k < n && strcmp(out[k].value, val) != 0; k++)
			;
		if (k < n || n == max)
			continue;
		out[n].key = d->variant_key;
		snprintf(out[n].value, sizeof(out[n].value), "%s", val);
		if (strcmp(d->variant_key, "*") == 0)
			snprintf(out[n].label, sizeof(out[n].label), "%s", val);
		else
			snprintf(out[n].label, sizeof(out[n].label), "%s=%s", d->variant_key, val);
		n++;
	}
	return n;
}

/* Rows for each variant; a table whose runs have no variant (and that
 * knows none) gets its rows once. */
int for_variants(struct tctx *c, struct lab_error *err)
{
	const struct tdef *d = c->def;
	struct variant v[40];
	size_t n = collect_variants(c, v, N(v)), i;
	int rc;

	if (n == 0)
		return add_figs(c, d->figs, d->nfigs, NULL, err);
	for (i = 0; i < n; i++)
		if ((rc = add_figs(c, d->figs, d->nfigs, &v[i], err)) < 0)
			return rc;
	return 0;
}
