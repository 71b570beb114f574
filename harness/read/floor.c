/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floor.c — counts and timings, and the calibration file of a timing's
 * noise floor (floor.h). */
#include "floor.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/trust.h"
#include "stats.h"

/* ------------------------------------------------------------ classes */

/* Units of the tables (results/reference/tables/, the scenarios'
 * tables) and of the load tools' metrics (metrics/). */
static const char *const count_units[] = {
	"pages", "page", "kB", "KiB", "MiB", "GiB", "bytes", "B", "ranges", "lines", "events", NULL,
};
static const char *const timing_units[] = { "ns", "µs", "us", "ms", "s", "min", NULL };

static bool in_list(const char *const *l, const char *s)
{
	for (; *l != NULL; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

enum floor_class floor_classify(const char *declared, const char *unit, const char **why)
{
	const char *w = "unit";
	enum floor_class c = FLOOR_TIMING;
	size_t n = unit != NULL ? strlen(unit) : 0;
	char first[32];

	if (declared != NULL && (strcmp(declared, "count") == 0 || strcmp(declared, "timing") == 0)) {
		w = "declared";
		c = strcmp(declared, "count") == 0 ? FLOOR_COUNT : FLOOR_TIMING;
	} else if (n == 0) {
		w = "no unit";          /* every such row counts events, lines, zones */
		c = FLOOR_COUNT;
	} else if (n > 2 && strcmp(unit + n - 2, "/s") == 0) {
		c = FLOOR_TIMING;       /* a rate: MiB/s, req/s, tx/s */
	} else {
		/* "pages zeroed", "pages readable": the first word */
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(unit, " "), unit);
		if (in_list(count_units, first))
			c = FLOOR_COUNT;
		else if (in_list(timing_units, first))
			c = FLOOR_TIMING;
		else
			w = "unit not known";
	}
	if (why != NULL)
		*why = w;
	return c;
}

const char *floor_class_name(enum floor_class c)
{
	return c == FLOOR_COUNT ? "count" : "timing";
}

bool floor_above(double base_median, double new_median, double floor_pct)
{
	if (base_median > 0 && new_median > 0)
		return (fmax(base_median, new_median) / fmin(base_median, new_median) - 1) * 100 > floor_pct;
	if (base_median == 0)
		return new_median != 0;
	return fabs((new_median - base_median) / base_median) * 100 > floor_pct;
}

/* ------------------------------------------------------------ hosts */

static void copy_str(char *dst, size_t len, const json_t *v, bool *has)
{
	dst[0] = '\0';
	if (has != NULL)
		*has = json_is_string(v);
	if (json_is_string(v))
		snprintf(dst, len, "%s", json_string_value(v));
}

int floor_host_of(const json_t *result, const char *path, struct floor_host *h, struct lab_error *err)
{
	const json_t *host = json_object_get(result, "host"), *cpu = json_object_get(host, "cpu");
	const json_t *online = json_object_get(cpu, "online");

	memset(h, 0, sizeof(*h));
	if (!json_is_string(json_object_get(host, "kernel")))
		return lab_error_set(err, EINVAL, "%s: no host.kernel: the machine it ran on is unknown", path);
	copy_str(h->kernel, sizeof(h->kernel), json_object_get(host, "kernel"), NULL);
	copy_str(h->machine, sizeof(h->machine), json_object_get(host, "machine"), NULL);
	copy_str(h->cpu_model, sizeof(h->cpu_model), json_object_get(cpu, "model"), &h->has_model);
	copy_str(h->fingerprint, sizeof(h->fingerprint), json_object_get(host, "fingerprint"), &h->has_fingerprint);
	h->cpus = json_is_integer(online) && json_integer_value(online) > 0 ? json_integer_value(online) : -1;
	return 0;
}

static bool same_opt(bool ha, const char *a, bool hb, const char *b)
{
	return ha == hb && (!ha || strcmp(a, b) == 0);
}

bool floor_host_same(const struct floor_host *a, const struct floor_host *b, char *why, size_t len)
{
	if (strcmp(a->kernel, b->kernel) != 0)
		snprintf(why, len, "kernel %s vs %s", a->kernel, b->kernel);
	else if (strcmp(a->machine, b->machine) != 0)
		snprintf(why, len, "machine %s vs %s", a->machine, b->machine);
	else if (!same_opt(a->has_model, a->cpu_model, b->has_model, b->cpu_model))
		snprintf(why, len, "CPU model '%s' vs '%s'", a->has_model ? a->cpu_model : "not recorded",
			 b->has_model ? b->cpu_model : "not recorded");
	else if (a->cpus != b->cpus)
		snprintf(why, len, "%lld vs %lld online CPUs (-1: not recorded)", a->cpus, b->cpus);
	else if (!same_opt(a->has_fingerprint, a->fingerprint, b->has_fingerprint, b->fingerprint))
		snprintf(why, len, "host fingerprint '%s' vs '%s'", a->has_fingerprint ? a->fingerprint : "none",
			 b->has_fingerprint ? b->fingerprint : "none");
	else
		return true;
	return false;
}

/* ------------------------------------------------------------ the file */

void floor_free(struct floor *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n; i++) {
		free(f->figs[i].table);
		free(f->figs[i].row);
		free(f->figs[i].figure);
	}
	free(f->figs);
	free(f);
}

static const char *const top_keys[] = { "schema", "host", "scenario", "made", "sets", "figures", "comment", NULL };
static const char *const host_keys[] = { "kernel", "machine", "cpu_model", "cpus", "fingerprint", NULL };
static const char *const fig_keys[] = {
	"table", "row", "figure", "unit", "n", "median", "min", "max", "change_pct", "spread_pct", NULL,
};

static int only_keys(const json_t *o, const char *const *keys, const char *path, const char *where,
		     struct lab_error *err)
{
	const char *k;
	const json_t *v;

	if (!json_is_object(o))
		return lab_error_set(err, EINVAL, "%s: %s must be an object", path, where);
	json_object_foreach((json_t *)o, k, v)
		if (!in_list(keys, k))
			return lab_error_set(err, EINVAL, "%s: %s: unknown key '%s'", path, where, k);
	return 0;
}

/* A string of at most len - 1 bytes, no control character (a figure's name
 * is printed on a terminal and in markdown; floor.c never prints it, but it
 * has no business holding one). */
static int get_str(const json_t *o, const char *key, bool nullable, char *buf, size_t len, bool *has,
		   const char *path, const char *where, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	const char *s;

	if (has != NULL)
		*has = false;
	buf[0] = '\0';
	if (v == NULL || json_is_null(v)) {
		if (nullable)
			return 0;
		return lab_error_set(err, EINVAL, "%s: %s: '%s' is required (a string)", path, where, key);
	}
	if (!json_is_string(v))
		return lab_error_set(err, EINVAL, "%s: %s: '%s' must be a string", path, where, key);
	s = json_string_value(v);
	if (json_string_length(v) == 0 || json_string_length(v) >= len || strlen(s) != json_string_length(v))
		return lab_error_set(err, EINVAL, "%s: %s: '%s' must be 1..%zu bytes", path, where, key, len - 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return lab_error_set(err, EINVAL, "%s: %s: '%s' holds a control character", path, where, key);
	memcpy(buf, s, json_string_length(v) + 1);
	if (has != NULL)
		*has = true;
	return 0;
}

static int parse_host(const json_t *o, const char *path, struct floor_host *h, struct lab_error *err)
{
	const json_t *cpus;
	int ret;

	memset(h, 0, sizeof(*h));
	if ((ret = only_keys(o, host_keys, path, "host", err)) < 0 ||
	    (ret = get_str(o, "kernel", false, h->kernel, sizeof(h->kernel), NULL, path, "host", err)) < 0 ||
	    (ret = get_str(o, "machine", true, h->machine, sizeof(h->machine), NULL, path, "host", err)) < 0 ||
	    (ret = get_str(o, "cpu_model", true, h->cpu_model, sizeof(h->cpu_model), &h->has_model, path, "host",
			   err)) < 0 ||
	    (ret = get_str(o, "fingerprint", true, h->fingerprint, sizeof(h->fingerprint), &h->has_fingerprint,
			   path, "host", err)) < 0)
		return ret;
	cpus = json_object_get(o, "cpus");
	if (cpus == NULL || json_is_null(cpus))
		h->cpus = -1;
	else if (json_is_integer(cpus) && json_integer_value(cpus) >= 1 && json_integer_value(cpus) <= 65536)
		h->cpus = json_integer_value(cpus);
	else
		return lab_error_set(err, EINVAL, "%s: host: 'cpus' must be an integer 1..65536 or null", path);
	return 0;
}

/* A number key of a figure, finite, within [lo, hi]; absent is fine when
 * optional. */
static int get_num(const json_t *o, const char *key, bool optional, double lo, double hi, double *out,
		   const char *path, size_t i, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL && optional)
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < lo ||
	    json_number_value(v) > hi)
		return lab_error_set(err, EINVAL, "%s: figure %zu: '%s' must be a number %g..%g", path, i + 1, key, lo,
				     hi);
	*out = json_number_value(v);
	return 0;
}

static int parse_figure(const json_t *o, size_t i, const char *path, struct floor_figure *f, struct lab_error *err)
{
	char where[32], table[128], row[256], fig[256], unit[64];
	const json_t *n = json_object_get(o, "n");
	double x;
	int ret;

	snprintf(where, sizeof(where), "figure %zu", i + 1);
	if ((ret = only_keys(o, fig_keys, path, where, err)) < 0 ||
	    (ret = get_str(o, "table", false, table, sizeof(table), NULL, path, where, err)) < 0 ||
	    (ret = get_str(o, "row", false, row, sizeof(row), NULL, path, where, err)) < 0 ||
	    (ret = get_str(o, "figure", false, fig, sizeof(fig), NULL, path, where, err)) < 0 ||
	    (ret = get_str(o, "unit", true, unit, sizeof(unit), NULL, path, where, err)) < 0 ||
	    (ret = get_num(o, "spread_pct", false, 0, FLOOR_SPREAD_MAX, &f->spread_pct, path, i, err)) < 0 ||
	    (ret = get_num(o, "median", true, -1e300, 1e300, &x, path, i, err)) < 0 ||
	    (ret = get_num(o, "min", true, -1e300, 1e300, &x, path, i, err)) < 0 ||
	    (ret = get_num(o, "max", true, -1e300, 1e300, &x, path, i, err)) < 0 ||
	    (ret = get_num(o, "change_pct", true, -1e300, 1e300, &x, path, i, err)) < 0)
		return ret;
	if (n != NULL && !(json_is_integer(n) && json_integer_value(n) >= 2 && json_integer_value(n) <= 1000000))
		return lab_error_set(err, EINVAL, "%s: %s: 'n' must be an integer 2..1000000", path, where);
	f->table = strdup(table);
	f->row = strdup(row);
	f->figure = strdup(fig);
	if (f->table == NULL || f->row == NULL || f->figure == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* The figure among the first n of f. */
static const struct floor_figure *find_in(const struct floor *f, size_t n, const char *table, const char *row,
					  const char *figure)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f->figs[i].table, table ? table : "") == 0 && strcmp(f->figs[i].row, row ? row : "") == 0 &&
		    strcmp(f->figs[i].figure, figure ? figure : "") == 0)
			return &f->figs[i];
	return NULL;
}

static int parse_doc(const json_t *doc, const char *path, struct floor *f, struct lab_error *err)
{
	const json_t *figs = json_object_get(doc, "figures"), *sets = json_object_get(doc, "sets");
	char buf[512];
	int ret;

	if ((ret = only_keys(doc, top_keys, path, "the document", err)) < 0)
		return ret;
	if (!json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), FLOOR_SCHEMA) != 0)
		return lab_error_set(err, EINVAL, "%s: not a calibration file (schema must be \"%s\")", path,
				     FLOOR_SCHEMA);
	if ((ret = parse_host(json_object_get(doc, "host"), path, &f->host, err)) < 0 ||
	    (ret = get_str(doc, "scenario", true, buf, sizeof(buf), NULL, path, "the document", err)) < 0 ||
	    (ret = get_str(doc, "made", true, buf, sizeof(buf), NULL, path, "the document", err)) < 0 ||
	    (ret = get_str(doc, "comment", true, buf, sizeof(buf), NULL, path, "the document", err)) < 0)
		return ret;
	if (sets != NULL && (!json_is_array(sets) || json_array_size(sets) > 64))
		return lab_error_set(err, EINVAL, "%s: 'sets' must be a list of at most 64 file names", path);
	for (size_t i = 0; i < json_array_size(sets); i++)
		if (!json_is_string(json_array_get(sets, i)) || json_string_length(json_array_get(sets, i)) > 4096)
			return lab_error_set(err, EINVAL, "%s: 'sets': entry %zu is not a file name", path, i + 1);
	if (!json_is_array(figs) || json_array_size(figs) > FLOOR_FIGURES_MAX)
		return lab_error_set(err, EINVAL, "%s: 'figures' must be a list of at most %d figures", path,
				     FLOOR_FIGURES_MAX);
	f->figs = calloc(json_array_size(figs) + 1, sizeof(*f->figs));
	if (f->figs == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (size_t i = 0; i < json_array_size(figs); i++) {
		struct floor_figure *x = &f->figs[f->n];

		ret = parse_figure(json_array_get(figs, i), i, path, x, err);
		f->n++;                         /* freed by floor_free, parsed or not */
		if (ret < 0)
			return ret;
		if (find_in(f, f->n - 1, x->table, x->row, x->figure) != NULL)
			return lab_error_set(err, EINVAL, "%s: figure %zu: %s / %s / %s is there twice", path, i + 1,
					     x->table, x->row, x->figure);
	}
	return 0;
}

/* A refusal is one line: a control character of the file's (a key, the
 * JSON error's excerpt) becomes a space. */
static void one_line(char *msg)
{
	for (unsigned char *p = (unsigned char *)msg; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

int floor_load(const char *path, struct floor **out, struct lab_error *err)
{
	cleanup_free char *text = NULL;
	size_t len = 0;
	int ret;

	*out = NULL;
	ret = lab_trust_path(path, "calibration file", LAB_TRUST_FILE,
			     " (root reads it: chown it to root or to yourself and chmod go-w it and its directories)", err);
	if (ret < 0)
		return ret;
	if ((ret = lab_read_input(path, "calibration file", FLOOR_FILE_MAX, 0, &text, &len, err)) < 0)
		return ret;
	return floor_parse(path, text, len, out, err);
}

int floor_parse(const char *path, const char *text, size_t len, struct floor **out, struct lab_error *err)
{
	struct floor *f;
	json_error_t je;
	json_t *doc;
	int ret;

	*out = NULL;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (doc == NULL) {
		lab_error_set(err, EINVAL, "calibration file %s: not JSON (line %d: %s)", path, je.line, je.text);
		one_line(err->msg);
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		json_decref(doc);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	ret = parse_doc(doc, path, f, err);
	json_decref(doc);
	if (ret < 0) {
		one_line(err->msg);     /* a key of the file may hold a newline */
		floor_free(f);
		if (err->code != ENOMEM)
			err->code = EINVAL;
		return -err->code;
	}
	*out = f;
	return 0;
}

bool floor_lookup(const struct floor *f, const char *table, const char *row, const char *figure, double *pct)
{
	const struct floor_figure *x = f != NULL ? find_in(f, f->n, table, row, figure) : NULL;

	if (x != NULL)
		*pct = x->spread_pct;
	return x != NULL;
}

/* ------------------------------------------------------------ calibrating */

static size_t side_values(const json_t *side, double *v, size_t n, size_t max)
{
	const json_t *vals = json_object_get(side, "values");

	for (size_t i = 0; i < json_array_size(vals) && n < max; i++)
		if (json_is_number(json_array_get(vals, i)))
			v[n++] = json_number_value(json_array_get(vals, i));
	return n;
}

static json_t *host_json(const struct floor_host *h)
{
	return json_pack("{s:s, s:s?, s:s?, s:o, s:s?}", "kernel", h->kernel, "machine", h->machine[0] ? h->machine : NULL,
			 "cpu_model", h->has_model ? h->cpu_model : NULL, "cpus",
			 h->cpus > 0 ? json_integer(h->cpus) : json_null(), "fingerprint",
			 h->has_fingerprint ? h->fingerprint : NULL);
}

/* One timing figure of the comparison as a calibration entry, or NULL when
 * it has too few values or no relative spread (a median of 0 with values
 * that differ). */
static json_t *calibrate_figure(const json_t *f)
{
	double v[512], bv[256], nv[256];
	size_t nb = side_values(json_object_get(f, "base"), bv, 0, 256);
	size_t nn = side_values(json_object_get(f, "new"), nv, 0, 256), n;
	struct stats_side all, b, x;
	double spread, change;

	if (nb < STATS_MIN_REPEATS || nn < STATS_MIN_REPEATS)
		return NULL;
	memcpy(v, bv, nb * sizeof(*v));
	memcpy(v + nb, nv, nn * sizeof(*v));
	n = nb + nn;
	stats_summarize(v, n, &all);
	stats_summarize(bv, nb, &b);
	stats_summarize(nv, nn, &x);
	if (all.max != all.min && all.min <= 0)
		return NULL;            /* no ratio to take */
	spread = all.max == all.min ? 0 : (all.max / all.min - 1) * 100;
	change = b.median != 0 ? (x.median - b.median) / fabs(b.median) * 100 : 0;
	if (!isfinite(spread) || !isfinite(change))
		return NULL;
	if (spread > FLOOR_SPREAD_MAX)
		spread = FLOOR_SPREAD_MAX;
	return json_pack("{s:s, s:s, s:s, s:s?, s:I, s:f, s:f, s:f, s:f, s:f}", "table", json_string_value(json_object_get(f, "table")),
			 "row", json_string_value(json_object_get(f, "row")), "figure",
			 json_string_value(json_object_get(f, "figure")), "unit", json_string_value(json_object_get(f, "unit")),
			 "n", (json_int_t)n, "median", all.median, "min", all.min, "max", all.max, "change_pct", change,
			 "spread_pct", round(spread * 100) / 100);
}

json_t *floor_calibration(const json_t *cmp, const struct floor_host *host, const char *scenario,
			  const char *const *files, size_t n, struct lab_error *err)
{
	const json_t *figs = json_object_get(json_array_get(json_object_get(cmp, "comparisons"), 0), "figures");
	json_t *doc = json_pack("{s:s, s:o, s:s?, s:[], s:[]}", "schema", FLOOR_SCHEMA, "host", host_json(host),
				"scenario", scenario, "sets", "figures");
	json_t *out = json_object_get(doc, "figures");

	if (doc == NULL) {
		lab_error_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		json_array_append_new(json_object_get(doc, "sets"), json_string(files[i]));
	for (size_t i = 0; i < json_array_size(figs); i++) {
		const json_t *f = json_array_get(figs, i);
		json_t *e;

		if (!json_is_string(json_object_get(f, "class")) ||
		    strcmp(json_string_value(json_object_get(f, "class")), "timing") != 0 ||
		    !json_is_string(json_object_get(f, "table")) || !json_is_string(json_object_get(f, "row")) ||
		    !json_is_string(json_object_get(f, "figure")))
			continue;
		if ((e = calibrate_figure(f)) != NULL && json_array_size(out) < FLOOR_FIGURES_MAX)
			json_array_append_new(out, e);
		else
			json_decref(e);
	}
	if (json_array_size(out) == 0) {
		json_decref(doc);
		lab_error_set(err, EINVAL, "no timing figure has %d or more values in each set: nothing to calibrate",
			      STATS_MIN_REPEATS);
		return NULL;
	}
	return doc;
}
