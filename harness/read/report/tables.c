/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tables.c — report tables as data: a "pagelab.tables/1" JSON file
 * (tables.md) parsed into table definitions, validated whole with the file,
 * table and row named in every error.
 */
#include "internal.h"

#include "base/fileio.h"

#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A tables file: the articles' are 10-20 KiB. */
#define LAB_TABLES_MAX (4ULL << 20)
/* The rows one grid may expand to (stages x figures): the articles' largest
 * is 8 (madv-free.json); a table of every step of every stage of a long
 * run is a few hundred. */
#define TABLES_GRID_MAX 1024

/* Everything a file allocates while loading, freed with it. */
struct pool {
	void **p;
	size_t n, cap;
};

static void *pool_add(struct pool *pl, void *p)
{
	if (p == NULL)
		return NULL;
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 64;
		void **more = realloc(pl->p, cap * sizeof(*more));

		if (more == NULL) {
			free(p);
			return NULL;
		}
		pl->p = more;
		pl->cap = cap;
	}
	pl->p[pl->n++] = p;
	return p;
}

struct loader {
	struct tfile *tf;
	struct pool pool;
	const json_t *named;            /* the file's "rows": {name: row} */
	const char *table;              /* for messages */
	size_t rowno;
	struct lab_error *err;
};

struct figlist {
	struct fig *v;
	size_t n, cap;
};

static int bad(struct loader *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct loader *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l->table != NULL && l->rowno > 0)
		return lab_error_set(l->err, EINVAL, "%s: table '%s', row %zu: %s", l->tf->path, l->table,
				     l->rowno, msg);
	if (l->table != NULL)
		return lab_error_set(l->err, EINVAL, "%s: table '%s': %s", l->tf->path, l->table, msg);
	return lab_error_set(l->err, EINVAL, "%s: %s", l->tf->path, msg);
}

static int nomem(struct loader *l)
{
	return lab_error_set(l->err, ENOMEM, "%s: out of memory", l->tf->path);
}

/* A refusal is one line: a table id, a key or the file's name may hold a
 * newline or another control character (JSON strings can), shown as '?'. */
static void one_line(char *msg)
{
	for (unsigned char *c = (unsigned char *)msg; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static struct fig *figlist_add(struct loader *l, struct figlist *fl)
{
	if (fl->n == fl->cap) {
		size_t cap = fl->cap ? 2 * fl->cap : 16;
		struct fig *more = realloc(fl->v, cap * sizeof(*more));

		if (more == NULL)
			return NULL;
		fl->v = more;
		fl->cap = cap;
	}
	(void)l;
	memset(&fl->v[fl->n], 0, sizeof(fl->v[0]));
	return &fl->v[fl->n++];
}

/* A string member, or NULL when absent; a member of another type is an error. */
static int opt_str(struct loader *l, const json_t *o, const char *key, const char **out)
{
	const json_t *v = json_object_get(o, key);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return bad(l, "'%s' must be a string", key);
	*out = json_string_value(v);
	return 0;
}

static int opt_num(struct loader *l, const json_t *o, const char *key, double *out)
{
	const json_t *v = json_object_get(o, key);

	*out = 0;
	if (v == NULL)
		return 0;
	if (!json_is_number(v) || json_number_value(v) <= 0)
		return bad(l, "'%s' must be a number above 0", key);
	*out = json_number_value(v);
	return 0;
}

static int check_keys(struct loader *l, const json_t *o, const char *const *allowed)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)o, k, v) {
		size_t i;

		for (i = 0; allowed[i] != NULL && strcmp(allowed[i], k) != 0; i++)
			;
		if (allowed[i] == NULL)
			return bad(l, "unknown key '%s' (tables.md lists them)", k);
	}
	return 0;
}

static int str_list(struct loader *l, const json_t *o, const char *key, const char *const **out, size_t *n)
{
	const json_t *a = json_object_get(o, key);
	const char **v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (a == NULL)
		return 0;
	if (json_is_string(a)) {
		v = pool_add(&l->pool, calloc(1, sizeof(*v)));
		if (v == NULL)
			return nomem(l);
		v[0] = json_string_value(a);
		*out = v;
		*n = 1;
		return 0;
	}
	if (!json_is_array(a))
		return bad(l, "'%s' must be a string or a list of strings", key);
	v = pool_add(&l->pool, calloc(json_array_size(a) + 1, sizeof(*v)));
	if (v == NULL)
		return nomem(l);
	for (i = 0; i < json_array_size(a); i++) {
		if (!json_is_string(json_array_get(a, i)))
			return bad(l, "'%s' must be a list of strings", key);
		v[i] = json_string_value(json_array_get(a, i));
	}
	*out = v;
	*n = i;
	return 0;
}

static int pick(struct loader *l, const char *key, const char *val, const char *const *names, int *out)
{
	int i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], val) == 0) {
			*out = i;
			return 0;
		}
	return bad(l, "'%s': unknown value '%s'", key, val);
}

static const char *const row_keys[] = {
	"row", "figure", "step", "path", "minus", "samples", "divide", "multiply", "round", "unit", "better", "class", "ref",
	"aggregate", "get", "label", "text", "if_variant", "unless_variant", "optional", "each", "first_ref",
	"rows", "use", "grid", "comment", NULL,
};

static int parse_entries(struct loader *l, const json_t *rows, struct figlist *out, bool top);

/* One row object (after "use" is merged) into f. */
static int parse_row(struct loader *l, const json_t *o, struct fig *f)
{
	static const char *const kinds[] = {"median", "runs", "count", "text", "min", "max", "first", "last", NULL};
	static const char *const takes[] = {"", "first", "last", "min", "max", "delta", NULL};
	static const char *const rounds[] = {"", "floor", "nearest", NULL};
	const json_t *minus = json_object_get(o, "minus");
	const char *s;
	int v, rc;

	if ((rc = check_keys(l, o, row_keys)) < 0 || (rc = opt_str(l, o, "row", &f->row)) < 0 ||
	    (rc = opt_str(l, o, "figure", &f->what)) < 0 || (rc = opt_str(l, o, "step", &f->sel)) < 0 ||
	    (rc = opt_str(l, o, "path", &f->path)) < 0 || (rc = opt_str(l, o, "unit", &f->unit)) < 0 ||
	    (rc = opt_str(l, o, "better", &f->better)) < 0 || (rc = opt_str(l, o, "class", &f->fclass)) < 0 ||
	    (rc = opt_str(l, o, "ref", &f->ref)) < 0 || (rc = opt_str(l, o, "first_ref", &f->first_ref)) < 0 ||
	    (rc = opt_num(l, o, "divide", &f->div)) < 0 || (rc = opt_num(l, o, "multiply", &f->mul)) < 0 ||
	    (rc = str_list(l, o, "if_variant", &f->if_variant, &f->nif)) < 0 ||
	    (rc = str_list(l, o, "unless_variant", &f->unless_variant, &f->nunless)) < 0)
		return rc;
	if (f->what == NULL)
		return bad(l, "'figure' (the figure's name) is required");
	if (f->fclass != NULL && strcmp(f->fclass, "count") != 0 && strcmp(f->fclass, "timing") != 0 &&
	    strcmp(f->fclass, "{class}") != 0)
		return bad(l, "'class': unknown value '%s' (count, timing, or {class}: a metric's own)", f->fclass);
	if ((rc = opt_str(l, o, "aggregate", &s)) < 0 || (s != NULL && (rc = pick(l, "aggregate", s, kinds, &v)) < 0))
		return rc;
	f->kind = s != NULL ? (enum cell_kind)v : K_AGG;
	if ((rc = opt_str(l, o, "samples", &s)) < 0 || (s != NULL && (rc = pick(l, "samples", s, takes, &v)) < 0))
		return rc;
	f->samples = s != NULL ? (enum sample_take)v : S_NONE;
	if ((rc = opt_str(l, o, "round", &s)) < 0 || (s != NULL && (rc = pick(l, "round", s, rounds, &v)) < 0))
		return rc;
	f->round = s != NULL ? (enum rounding)v : R_NONE;
	if (json_object_get(o, "optional") != NULL) {
		if (!json_is_boolean(json_object_get(o, "optional")))
			return bad(l, "'optional' must be true or false");
		f->optional = json_is_true(json_object_get(o, "optional"));
	}
	if (minus != NULL) {
		static const char *const minus_keys[] = {"step", "path", NULL};

		if (!json_is_object(minus) || (rc = check_keys(l, minus, minus_keys)) < 0 ||
		    (rc = opt_str(l, minus, "step", &f->sel2)) < 0 || (rc = opt_str(l, minus, "path", &f->path2)) < 0)
			return rc < 0 ? rc : bad(l, "'minus' must be {\"step\", \"path\"}");
		if (f->path2 == NULL)
			return bad(l, "'minus' needs a 'path'");
		if (json_object_get(minus, "step") == NULL)
			f->sel2 = f->sel;
	}
	if ((rc = opt_str(l, o, "get", &s)) < 0)
		return rc;
	if (s != NULL && (f->get = derived_get(s)) == NULL) {
		char names[512];

		derived_names(names, sizeof(names));
		return bad(l, "'get': no derived quantity '%s' (%s)", s, names);
	}
	if ((rc = opt_str(l, o, "label", &s)) < 0)
		return rc;
	if (s != NULL && (f->label = derived_label(s)) == NULL) {
		char names[512];

		derived_names(names, sizeof(names));
		return bad(l, "'label': no label '%s' (%s)", s, names);
	}
	if ((rc = opt_str(l, o, "text", &s)) < 0)
		return rc;
	if (s != NULL && (f->text = derived_text(s)) == NULL) {
		char names[512];

		derived_names(names, sizeof(names));
		return bad(l, "'text': no text '%s' (%s)", s, names);
	}
	if (f->kind == K_TEXT && f->text == NULL)
		return bad(l, "aggregate 'text' needs a 'text' function");
	if (f->kind == K_COUNT && f->label == NULL && f->path == NULL)
		return bad(l, "aggregate 'count' needs a 'label' function or a 'path' to a string");
	if (f->kind != K_TEXT && f->kind != K_COUNT && f->get == NULL && f->path == NULL &&
	    f->each == E_NONE && json_object_get(o, "each") == NULL)
		return bad(l, "a numeric row needs a 'path' or a 'get' function");
	return 0;
}

/* {"use": NAME, ...}: the named row with these keys over it. */
static int merged_use(struct loader *l, const json_t *e, json_t **out)
{
	const char *name = json_string_value(json_object_get(e, "use"));
	const json_t *base = json_object_get(l->named, name != NULL ? name : "");
	json_t *m;

	if (name == NULL)
		return bad(l, "'use' must name a row of the file's \"rows\"");
	if (base == NULL || !json_is_object(base))
		return bad(l, "'use': the file's \"rows\" has no row '%s'", name);
	m = json_deep_copy(base);
	if (m == NULL || json_object_update(m, (json_t *)e) < 0 || json_object_del(m, "use") < 0 ||
	    json_array_append_new(l->tf->keep, m) < 0)
		return nomem(l);
	*out = m;
	return 0;
}

/* {"grid": {"stages": [{row, step, ref}], "figures": [row…]}}: every stage
 * × every figure, the stage's ref a prefix of the figure's. */
static int expand_grid(struct loader *l, const json_t *g, struct figlist *out)
{
	const json_t *stages = json_object_get(g, "stages"), *figs = json_object_get(g, "figures");
	size_t s, k;
	int rc;

	if (!json_is_array(stages) || !json_is_array(figs))
		return bad(l, "'grid' needs \"stages\" and \"figures\" lists");
	/* A grid is the one expansion that multiplies: refused whole at load
	 * above the cap, before a row is made (a 4 MiB file could otherwise
	 * ask for 10^10 rows). */
	if (json_array_size(figs) > 0 && json_array_size(stages) > TABLES_GRID_MAX / json_array_size(figs))
		return bad(l, "'grid' of %zu stages x %zu figures would be %llu rows, over the %d a grid may make",
			   json_array_size(stages), json_array_size(figs),
			   (unsigned long long)json_array_size(stages) * (unsigned long long)json_array_size(figs),
			   TABLES_GRID_MAX);
	for (s = 0; s < json_array_size(stages); s++) {
		const json_t *st = json_array_get(stages, s);
		const char *sref = json_string_value(json_object_get(st, "ref"));

		for (k = 0; k < json_array_size(figs); k++) {
			json_t *m = json_deep_copy(json_array_get(figs, k));
			const char *fref;
			struct fig *f;

			if (m == NULL || json_array_append_new(l->tf->keep, m) < 0)
				return nomem(l);
			if (!json_is_object(m))
				return bad(l, "a grid's figure must be an object");
			if (json_object_get(m, "use") != NULL && (rc = merged_use(l, m, &m)) < 0)
				return rc;
			if (json_object_get(st, "row") != NULL && json_object_set(m, "row", json_object_get(st, "row")) < 0)
				return nomem(l);
			if (json_object_get(st, "step") != NULL &&
			    json_object_set(m, "step", json_object_get(st, "step")) < 0)
				return nomem(l);
			fref = json_string_value(json_object_get(m, "ref"));
			if (sref != NULL && fref != NULL) {
				char buf[256];

				snprintf(buf, sizeof(buf), "%s.%s", sref, fref);
				if (json_object_set_new(m, "ref", json_string(buf)) < 0)
					return nomem(l);
			}
			if ((f = figlist_add(l, out)) == NULL)
				return nomem(l);
			if ((rc = parse_row(l, m, f)) < 0)
				return rc;
		}
	}
	return 0;
}

static int parse_entry(struct loader *l, const json_t *e, struct figlist *out)
{
	const json_t *each = json_object_get(e, "each");
	struct fig *f;
	int rc;

	if (!json_is_object(e))
		return bad(l, "a row must be an object");
	if (json_object_get(e, "grid") != NULL)
		return expand_grid(l, json_object_get(e, "grid"), out);
	if (json_object_get(e, "use") != NULL) {
		json_t *m = NULL;

		if ((rc = merged_use(l, e, &m)) < 0)
			return rc;
		e = m;
		each = json_object_get(e, "each");
	}
	if (json_is_string(each)) {
		/* {"each": "step" | "zone" | "metric", "rows": [templates]} */
		struct figlist sub = {0};
		const char *kind = json_string_value(each);

		if ((f = figlist_add(l, out)) == NULL)
			return nomem(l);
		if (strcmp(kind, "step") == 0)
			f->each = E_STEP;
		else if (strcmp(kind, "zone") == 0)
			f->each = E_ZONE;
		else if (strcmp(kind, "metric") == 0)
			f->each = E_METRIC;
		else
			return bad(l, "'each': \"step\", \"zone\", \"metric\" or {\"step\", \"path\"}, not '%s'", kind);
		if (!json_is_array(json_object_get(e, "rows")))
			return bad(l, "'each': \"%s\" needs \"rows\": the rows to repeat", kind);
		rc = parse_entries(l, json_object_get(e, "rows"), &sub, false);
		if (pool_add(&l->pool, sub.v) == NULL && sub.v != NULL)
			return nomem(l);
		if (rc < 0)
			return rc;
		f = &out->v[out->n - 1];
		f->sub = sub.v;
		f->nsub = sub.n;
		f->what = "";
		return 0;
	}
	if ((f = figlist_add(l, out)) == NULL)
		return nomem(l);
	if (json_is_object(each)) {
		/* {"each": {"step", "path"}, …}: the row once per element of that array */
		static const char *const each_keys[] = {"step", "path", NULL};

		f->each = E_INDEX;
		if ((rc = check_keys(l, each, each_keys)) < 0 || (rc = opt_str(l, each, "step", &f->each_sel)) < 0 ||
		    (rc = opt_str(l, each, "path", &f->each_path)) < 0)
			return rc;
		if (f->each_path == NULL)
			return bad(l, "'each' needs the array's 'path'");
	} else if (each != NULL) {
		return bad(l, "'each' must be \"step\", \"zone\", \"metric\" or {\"step\", \"path\"}");
	}
	if ((rc = parse_row(l, e, f)) < 0)
		return rc;
	f->each = json_is_object(each) ? E_INDEX : E_NONE;
	return 0;
}

static int parse_entries(struct loader *l, const json_t *rows, struct figlist *out, bool top)
{
	size_t i;
	int rc;

	for (i = 0; i < json_array_size(rows); i++) {
		if (top)
			l->rowno = i + 1;
		if ((rc = parse_entry(l, json_array_get(rows, i), out)) < 0)
			return rc;
	}
	return 0;
}

static const char *const table_keys[] = {
	"id", "name", "row_head", "compare", "variants", "notes", "unsupported", "reference", "generic", "rows",
	"measured", "optional", "comment", NULL,
};

static int parse_table(struct loader *l, const json_t *o, struct tdef *d)
{
	const json_t *vars = json_object_get(o, "variants"), *notes = json_object_get(o, "notes");
	const json_t *uns = json_object_get(o, "unsupported");
	struct figlist figs = {0};
	size_t i;
	int rc;

	if (!json_is_object(o))
		return bad(l, "every table must be an object");
	if ((rc = opt_str(l, o, "id", &d->id)) < 0)
		return rc;
	if (d->id == NULL || d->id[0] == '\0')
		return bad(l, "a table needs an 'id'");
	l->table = d->id;
	l->rowno = 0;
	if ((rc = check_keys(l, o, table_keys)) < 0 || (rc = opt_str(l, o, "name", &d->name)) < 0 ||
	    (rc = opt_str(l, o, "row_head", &d->row_head)) < 0 || (rc = opt_str(l, o, "compare", &d->compare)) < 0)
		return rc;
	if (d->name == NULL || d->compare == NULL)
		return bad(l, "'name' and 'compare' are required");
	if (d->row_head == NULL)
		d->row_head = "Row";
	d->generic = json_is_true(json_object_get(o, "generic"));
	d->measured = json_is_true(json_object_get(o, "measured"));
	if (json_object_get(o, "optional") != NULL && !json_is_boolean(json_object_get(o, "optional")))
		return bad(l, "'optional' must be true or false");
	d->optional = json_is_true(json_object_get(o, "optional"));
	d->own_ref = json_object_get(o, "reference");
	if (d->own_ref != NULL && !json_is_object(d->own_ref))
		return bad(l, "'reference' must be an object: the figures to print beside the runs'");
	if (vars != NULL) {
		static const char *const var_keys[] = {"key", "known", "as", NULL};
		const char *as = json_string_value(json_object_get(vars, "as"));
		const json_t *known = json_object_get(vars, "known");
		struct vchoice *k;

		if (!json_is_object(vars) || (rc = check_keys(l, vars, var_keys)) < 0 ||
		    (rc = opt_str(l, vars, "key", &d->variant_key)) < 0)
			return rc < 0 ? rc : bad(l, "'variants' must be {\"key\", \"known\"}");
		if (d->variant_key == NULL)
			return bad(l, "'variants' needs a 'key' (a matrix key, \"a,b\", or \"*\")");
		if (json_object_get(vars, "as") != NULL && (as == NULL || (strcmp(as, "rows") && strcmp(as, "columns"))))
			return bad(l, "'variants.as' is \"rows\" (the default) or \"columns\"");
		d->variant_columns = as != NULL && strcmp(as, "columns") == 0;
		if (known != NULL && !json_is_array(known))
			return bad(l, "'variants.known' must be a list of {\"value\", \"label\"}");
		k = pool_add(&l->pool, calloc(json_array_size(known) + 1, sizeof(*k)));
		if (k == NULL)
			return nomem(l);
		for (i = 0; i < json_array_size(known); i++) {
			const json_t *e = json_array_get(known, i);

			k[i].value = json_string_value(json_object_get(e, "value"));
			k[i].label = json_string_value(json_object_get(e, "label"));
			if (k[i].value == NULL || k[i].label == NULL)
				return bad(l, "'variants.known' %zu: needs \"value\" and \"label\" strings", i + 1);
		}
		d->known = k;
		d->nknown = i;
	}
	if (notes != NULL) {
		struct note_def *nd;

		if (!json_is_array(notes))
			return bad(l, "'notes' must be a list");
		nd = pool_add(&l->pool, calloc(json_array_size(notes) + 1, sizeof(*nd)));
		if (nd == NULL)
			return nomem(l);
		for (i = 0; i < json_array_size(notes); i++) {
			const json_t *e = json_array_get(notes, i);

			nd[i].text = json_is_string(e) ? json_string_value(e)
				     : json_string_value(json_object_get(e, "text"));
			nd[i].if_cgroup = json_string_value(json_object_get(e, "if_cgroup"));
			if (nd[i].text == NULL)
				return bad(l, "'notes' %zu: a string or {\"text\", \"if_cgroup\"}", i + 1);
		}
		d->notes = nd;
		d->nnotes = i;
	}
	if (uns != NULL) {
		d->unsupported_cgroup = json_string_value(json_object_get(uns, "cgroup"));
		d->unsupported_text = json_string_value(json_object_get(uns, "text"));
		if (d->unsupported_cgroup == NULL || d->unsupported_text == NULL)
			return bad(l, "'unsupported' must be {\"cgroup\", \"text\"}");
	}
	if (!json_is_array(json_object_get(o, "rows")) || json_array_size(json_object_get(o, "rows")) == 0)
		return bad(l, "'rows' must be a list of rows");
	rc = parse_entries(l, json_object_get(o, "rows"), &figs, true);
	if (pool_add(&l->pool, figs.v) == NULL && figs.v != NULL)
		return nomem(l);
	if (rc < 0)
		return rc;
	d->figs = figs.v;
	d->nfigs = figs.n;
	return 0;
}

void tfile_free(struct tfile *tf)
{
	size_t i;

	if (tf == NULL)
		return;
	for (i = 0; i < tf->nstrings; i++)
		free(tf->strings[i]);
	free(tf->strings);
	free(tf->tables);
	json_decref(tf->keep);
	json_decref(tf->doc);
	free(tf->path);
	free(tf);
}

int tfile_load(const char *path, bool beside, const char *scenario_file, struct tfile **out,
	       struct lab_error *err)
{
	struct tfile *tf = calloc(1, sizeof(*tf));
	struct loader l = {.tf = tf, .err = err};
	const json_t *tables;
	const char *schema, *article = NULL;
	cleanup_free char *text = NULL;
	size_t len = 0;
	json_error_t je;
	size_t i;
	int rc = 0;

	*out = NULL;
	if (tf == NULL || (tf->path = strdup(path)) == NULL || (tf->keep = json_array()) == NULL) {
		tfile_free(tf);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	if ((rc = lab_read_input(path, "tables", LAB_TABLES_MAX, 0, &text, &len, err)) < 0)
		goto out;
	tf->doc = json_loadb(text, len, 0, &je);
	if (tf->doc == NULL) {
		rc = lab_error_set(err, EINVAL, "%s: not JSON: %s (line %d, column %d)", path, je.text, je.line,
				   je.column);
		goto out;
	}
	schema = json_string_value(json_object_get(tf->doc, "schema"));
	if (schema == NULL || strcmp(schema, TABLES_SCHEMA) != 0) {
		rc = lab_error_set(err, EINVAL, "%s: not a %s document (schema: %s)", path, TABLES_SCHEMA,
				   schema != NULL ? schema : "none");
		goto out;
	}
	if ((rc = opt_str(&l, tf->doc, "article", &article)) < 0)
		goto out;
	l.named = json_object_get(tf->doc, "rows");
	tables = json_object_get(tf->doc, "tables");
	if (!json_is_array(tables) || json_array_size(tables) == 0) {
		rc = bad(&l, "'tables' must be a list of tables");
		goto out;
	}
	tf->tables = calloc(json_array_size(tables), sizeof(*tf->tables));
	if (tf->tables == NULL) {
		rc = nomem(&l);
		goto out;
	}
	for (i = 0; i < json_array_size(tables); i++) {
		struct tdef *d = &tf->tables[i];

		d->file = tf->path;
		d->article = article;
		d->beside = beside;
		d->scenario_file = scenario_file;
		if ((rc = parse_table(&l, json_array_get(tables, i), d)) < 0)
			goto out;
		tf->ntables++;
		for (size_t k = 0; k < i; k++)
			if (strcmp(tf->tables[k].id, d->id) == 0) {
				rc = bad(&l, "a second table with this id");
				goto out;
			}
	}
out:
	/* hand the pool's allocations over to the file */
	tf->strings = (char **)l.pool.p;
	tf->nstrings = l.pool.n;
	if (rc < 0) {
		one_line(err->msg);
		tfile_free(tf);
		return rc;
	}
	*out = tf;
	return 0;
}

int tables_dir(char *dir, size_t len, struct lab_error *err)
{
	static const char rel[] = "results/reference/tables";

	if (access(rel, R_OK | X_OK) == 0) {
		snprintf(dir, len, "%s", rel);
		return 0;
	}
	if ((size_t)snprintf(dir, len, "%s/%s", lab_data_dir(), rel) < len && access(dir, R_OK | X_OK) == 0)
		return 0;
	return lab_error_set(err, ENOENT, "no report tables: neither ./%s nor %s/%s is readable", rel,
			     lab_data_dir(), rel);
}
