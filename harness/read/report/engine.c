/* SPDX-License-Identifier: GPL-2.0-or-later */
/* engine.c — the report's model: result documents grouped into kernel
 * columns, figures read from them (step selectors, dotted paths, sample
 * windows), aggregated over the repeats into cells, and a table definition
 * (tables.md) turned into rows.
 *
 * Input formats: harness/result/result.md (result document), workloads/events.md
 * (step counters), results/reference/<article>.json (the articles' figures).
 * A figure a result lacks prints as "—", never as 0.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- helpers */

/* Append to a display buffer; a truncated display text is still correct
 * as far as it goes, so truncation is not an error here. */
void bufcat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

const char *str_or(const json_t *j, const char *dflt)
{
	const char *s = json_string_value(j);

	return s != NULL ? s : dflt;
}

bool json_num(const json_t *j, double *out)
{
	if (!json_is_number(j))
		return false;
	*out = json_number_value(j);
	return true;
}

/* |v| below 2^63: a cast to long long is defined (C11 6.3.1.4). */
static bool fits_ll(double v)
{
	return v > -9.2e18 && v < 9.2e18;
}

/* Whole-number helpers without libm (the binary links no -lm).  A double
 * beyond 2^63 has no fraction: it is its own floor (and NaN stays NaN). */
double floor_of(double v)
{
	long long i;

	if (!fits_ll(v))
		return v;
	i = (long long)v;
	return (double)i > v ? (double)(i - 1) : (double)i;
}

bool is_whole(double v)
{
	return fits_ll(v) && v == (double)(long long)v;
}

/* A number as the article prints it: thousands separators when group is
 * true, no trailing ".0", at most two decimals (a median of an even count). */
void fmt_num(double v, bool group, char *buf, size_t len)
{
	char digits[32], frac[16] = "", out[48];
	const char *sign = v < 0 ? "-" : "";
	double a = v < 0 ? -v : v;
	long long ip;
	double f;
	size_t n, i, o = 0;

	/* A figure no counter reaches (a result edited by hand, 1e308, NaN):
	 * printed as it is, not cast to an integer (undefined behaviour). */
	if (!fits_ll(a)) {
		snprintf(buf, len, "%.6g", v);
		return;
	}
	ip = (long long)a;
	f = a - (double)ip;

	if (f >= 0.005) {
		snprintf(frac, sizeof(frac), "%.2f", f);   /* "0.50" or "1.00" */
		if (frac[0] == '1') {
			ip++;
			frac[0] = '\0';
		} else {
			size_t k = strlen(frac);

			while (k > 0 && frac[k - 1] == '0')
				frac[--k] = '\0';
			memmove(frac, frac + 1, strlen(frac));   /* drop the "0" */
		}
	}
	if (ip == 0 && frac[0] == '\0')
		sign = "";
	snprintf(digits, sizeof(digits), "%lld", ip);
	n = strlen(digits);
	for (i = 0; i < n && o + 2 < sizeof(out); i++) {
		if (group && i > 0 && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, len, "%s%s%s", sign, out, frac);
}

json_t *json_of_num(double v)
{
	return is_whole(v) ? json_integer((json_int_t)v) : json_real(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v.  Median of an even count: the mean of the two middle values. */
double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool array_median(const json_t *a, double *out)
{
	size_t n = json_array_size(a), k = 0, i;
	double *v;
	bool ok;

	if (n == 0)
		return false;
	v = malloc(n * sizeof(*v));
	if (v == NULL)
		return false;   /* shown as missing; the next allocation reports ENOMEM */
	for (i = 0; i < n; i++)
		if (json_num(json_array_get(a, i), &v[k]))
			k++;
	ok = k > 0;
	if (ok)
		*out = median_of(v, k);
	free(v);
	return ok;
}

/* "[zone=Normal,node=0]": every key=value holds for e (a string member
 * equal to value, or an integer member equal to it as a number). */
static bool element_matches(const json_t *e, char *conds)
{
	char *save = NULL, *c;

	for (c = strtok_r(conds, ",", &save); c != NULL; c = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(c, '='), *end;
		const json_t *m;

		if (eq == NULL)
			return false;
		*eq++ = '\0';
		m = json_object_get(e, c);
		if (json_is_string(m)) {
			if (strcmp(json_string_value(m), eq) != 0)
				return false;
		} else if (json_is_integer(m)) {
			long long want = strtoll(eq, &end, 10);

			if (*end != '\0' || json_integer_value(m) != want)
				return false;
		} else {
			return false;
		}
	}
	return true;
}

static const json_t *array_find(const json_t *a, const char *conds)
{
	char buf[128];
	size_t i;

	for (i = 0; i < json_array_size(a); i++) {
		if ((size_t)snprintf(buf, sizeof(buf), "%s", conds) >= sizeof(buf))
			return NULL;
		if (element_matches(json_array_get(a, i), buf))
			return json_array_get(a, i);
	}
	return NULL;
}

/* Walk a dotted path: "counters.region.rss_kb", "counters.series_kb[3]",
 * "counters.series_kb[last]", "zones[zone=Normal,node=0].free" (the first
 * element whose members match).  A final "[median]" or "[count]" leaves the
 * array for the caller and says which in *agg. */
const json_t *json_walk(const json_t *j, const char *path, enum walk_agg *agg)
{
	char buf[256];
	char *save = NULL, *seg;

	*agg = WALK_VALUE;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return NULL;
	for (seg = strtok_r(buf, ".", &save); seg != NULL && j != NULL;
	     seg = strtok_r(NULL, ".", &save)) {
		char *br = strchr(seg, '['), *end;
		unsigned long idx;

		if (br != NULL)
			*br++ = '\0';
		if (*seg != '\0')
			j = json_object_get(j, seg);
		if (br == NULL || j == NULL)
			continue;
		end = strrchr(br, ']');
		if (end == NULL || !json_is_array(j))
			return NULL;
		*end = '\0';
		if (strcmp(br, "median") == 0) {
			*agg = WALK_MEDIAN;
		} else if (strcmp(br, "count") == 0) {
			*agg = WALK_COUNT;
		} else if (strcmp(br, "last") == 0) {
			size_t n = json_array_size(j);

			j = n > 0 ? json_array_get(j, n - 1) : NULL;
		} else if (strchr(br, '=') != NULL) {
			j = array_find(j, br);
		} else {
			idx = strtoul(br, &end, 10);
			j = *end == '\0' ? json_array_get(j, idx) : NULL;
		}
	}
	return j;
}

bool path_num(const json_t *obj, const char *path, double *out)
{
	enum walk_agg agg;
	const json_t *j = json_walk(obj, path, &agg);

	if (agg == WALK_COUNT) {
		if (!json_is_array(j))
			return false;
		*out = (double)json_array_size(j);
		return true;
	}
	return agg == WALK_MEDIAN ? array_median(j, out) : json_num(j, out);
}

/* ------------------------------------------------------ step selection */

bool step_is(const json_t *s, const char *workload, const char *name)
{
	const char *w = json_string_value(json_object_get(s, RK_WORKLOAD));
	const char *n = json_string_value(json_object_get(s, RK_STEP));

	if (workload != NULL && (w == NULL || strcmp(w, workload) != 0))
		return false;
	return name == NULL || (n != NULL && strcmp(n, name) == 0);
}

static const json_t *find_action(const json_t *run, const char *name)
{
	const json_t *acts = json_object_get(run, RK_ACTIONS);
	size_t i;

	for (i = 0; i < json_array_size(acts); i++) {
		const json_t *a = json_array_get(acts, i);

		if (strcmp(str_or(json_object_get(a, RK_ACTION), ""), name) == 0)
			return a;
	}
	return NULL;
}

/* One alternative of a selector (tables.md):
 *   NAME           the first step NAME of the run's main workload
 *   NAME#N         the N-th; NAME#last the last
 *   NAME<ANCHOR    the last NAME before the first ANCHOR (before the end when
 *                  no ANCHOR was reported: the workload died during it)
 *   W:NAME[#N]     the same, of workload W
 *   first          the main workload's first step
 *   action:NAME    the run-level record runs[].actions[] with that action
 *   sample:last    the run's last sample (read after the workloads ended)
 *   run            the run itself */
static const json_t *select_alt(const struct runref *r, char *alt)
{
	const json_t *steps = json_object_get(r->run, RK_STEPS);
	size_t n = json_array_size(steps), limit = n, i;
	unsigned long nth = 1, seen = 0;
	const char *workload = r->main;
	char *p;

	if (strncmp(alt, "action:", 7) == 0)
		return find_action(r->run, alt + 7);
	if (strcmp(alt, "sample:last") == 0) {
		const json_t *samples = json_object_get(r->run, RK_SAMPLES);

		return json_array_get(samples, json_array_size(samples) - 1);
	}
	if (strcmp(alt, "run") == 0)
		return r->run;
	if ((p = strchr(alt, ':')) != NULL) {
		*p++ = '\0';
		workload = alt;
		alt = p;
	}
	if (strcmp(alt, "first") == 0)
		alt = NULL;
	else if ((p = strchr(alt, '<')) != NULL) {
		*p++ = '\0';
		for (i = 0; i < n; i++)
			if (step_is(json_array_get(steps, i), workload, p)) {
				limit = i;
				break;
			}
		for (i = limit; i-- > 0;)
			if (step_is(json_array_get(steps, i), workload, alt))
				return json_array_get(steps, i);
		return NULL;
	} else if ((p = strchr(alt, '#')) != NULL) {
		*p++ = '\0';
		if (strcmp(p, "last") == 0) {
			for (i = n; i-- > 0;)
				if (step_is(json_array_get(steps, i), workload, alt))
					return json_array_get(steps, i);
			return NULL;
		}
		nth = strtoul(p, NULL, 10);
	}
	for (i = 0; i < n; i++)
		if (step_is(json_array_get(steps, i), workload, alt) && ++seen == nth)
			return json_array_get(steps, i);
	return NULL;
}

/* sel: alternatives separated by '|', the first found wins; NULL = the run. */
const json_t *select_step(const struct runref *r, const char *sel)
{
	char buf[128];
	char *save = NULL, *alt;
	const json_t *s = NULL;

	if (sel == NULL)
		return r->run;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", sel) >= sizeof(buf))
		return NULL;
	for (alt = strtok_r(buf, "|", &save); alt != NULL && s == NULL;
	     alt = strtok_r(NULL, "|", &save))
		s = select_alt(r, alt);
	return s;
}

bool value_at(const struct runref *r, const char *sel, const char *path, double *out)
{
	const json_t *s = select_step(r, sel);

	return s != NULL && path_num(s, path, out);
}

/* ---------------------------------------------------- the generic reader */

double scaled(const struct fig *f, double v)
{
	if (f->mul != 0)
		v *= f->mul;
	if (f->div > 0)
		v /= f->div;
	if (f->round == R_NEAREST)
		return floor_of(v + 0.5);
	return f->round == R_FLOOR ? floor_of(v) : v;
}

/* The samples from the step f->sel on (NULL: all). */
static double window_t0(const struct runref *r, const struct fig *f, bool *ok)
{
	const json_t *s = f->sel != NULL ? select_step(r, f->sel) : NULL;
	double t = 0;

	*ok = f->sel == NULL || (s != NULL && json_num(json_object_get(s, RK_T_MS), &t));
	return t;
}

/* A figure over the run's samples from the step f->sel on: the first or
 * the last sample's (missing when that sample lacks it), the lowest or the
 * highest of those that have it, or last minus first. */
static bool sample_value(const struct runref *r, const struct fig *f, const char *path, double *out)
{
	const json_t *samples = json_object_get(r->run, RK_SAMPLES);
	const json_t *last = NULL;
	bool ok, any = false;
	double t0 = window_t0(r, f, &ok), t, v, first = 0;
	size_t i;

	for (i = 0; ok && i < json_array_size(samples); i++) {
		const json_t *s = json_array_get(samples, i);

		if (!json_num(json_object_get(s, RK_T_MS), &t) || t < t0)
			continue;
		/* A burst sample holds only the zones' free pages (harness/result/result.md):
		 * a first, last or delta figure is a full sample's. */
		if (f->samples != S_MIN && f->samples != S_MAX &&
		    !strcmp(str_or(json_object_get(s, RK_CAUSE), ""), "burst"))
			continue;
		switch (f->samples) {
		case S_FIRST:
			return path_num(s, path, out);
		case S_DELTA:
			if (last == NULL && !path_num(s, path, &first))
				return false;
			last = s;
			break;
		case S_LAST:
			last = s;
			break;
		case S_MIN:
		case S_MAX:
			if (!path_num(s, path, &v))
				continue;
			if (!any || (f->samples == S_MIN ? v < *out : v > *out))
				*out = v;
			any = true;
			break;
		case S_NONE:
			return false;
		}
	}
	if (last == NULL)
		return any;
	if (!path_num(last, path, &v))
		return false;
	*out = f->samples == S_DELTA ? v - first : v;
	return true;
}

static bool read_one(const struct runref *r, const struct fig *f, const char *sel, const char *path,
		     double *out)
{
	if (f->samples != S_NONE) {
		struct fig g = *f;

		g.sel = sel;
		return sample_value(r, &g, path, out);
	}
	return value_at(r, sel, path, out);
}

/* The generic reader: f->path at f->sel (or over the samples), less
 * f->path2 at f->sel2 when given, scaled. */
static bool get_plain(const struct runref *r, const struct fig *f, double *out)
{
	double a, b;

	if (f->path == NULL || !read_one(r, f, f->sel, f->path, &a))
		return false;
	if (f->path2 != NULL) {
		if (!read_one(r, f, f->sel2, f->path2, &b))
			return false;
		a -= b;
	}
	*out = scaled(f, a);
	return true;
}

/* A zone of node 0 named by path's first part ("Normal.free" -> Normal) in
 * an array of zones (a sample's, or an OOM report's); *field is the rest. */
const json_t *zone_of(const json_t *zones, const char *path, const char **field)
{
	const char *dot = strchr(path, '.');
	size_t i;

	for (i = 0; dot != NULL && i < json_array_size(zones); i++) {
		const json_t *z = json_array_get(zones, i);
		const char *name = str_or(json_object_get(z, RK_ZONE), "");

		if (strlen(name) == (size_t)(dot - path) && strncmp(name, path, (size_t)(dot - path)) == 0 &&
		    json_integer_value(json_object_get(z, RK_NODE)) == 0) {
			*field = dot + 1;
			return z;
		}
	}
	return NULL;
}

/* The main workload's exit as a shell would show it: 128 + signal. */
int main_exit_code(const struct runref *r)
{
	const json_t *ws = json_object_get(json_object_get(r->run, RK_EXIT), RK_WORKLOADS);
	const json_t *w = json_array_get(ws, json_array_size(ws) - 1);
	size_t i;

	for (i = 0; r->main != NULL && i < json_array_size(ws); i++)
		if (strcmp(str_or(json_object_get(json_array_get(ws, i), RK_NAME), ""), r->main) == 0)
			w = json_array_get(ws, i);
	if (json_is_integer(json_object_get(w, RK_SIGNAL)))
		return 128 + (int)json_integer_value(json_object_get(w, RK_SIGNAL));
	if (json_is_integer(json_object_get(w, RK_CODE)))
		return (int)json_integer_value(json_object_get(w, RK_CODE));
	return -1;
}

/* The string at f->path of step f->sel: a count label. */
static void label_field(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	enum walk_agg agg;
	const json_t *j = f->path != NULL ? json_walk(select_step(r, f->sel), f->path, &agg) : NULL;

	snprintf(buf, len, "%s", str_or(j, MISSING));
}

/* ------------------------------------------------------------- cells */

void cell_clear(struct report_cell *c)
{
	free(c->values);
	free(c->present);
	free(c->origin);
	c->values = NULL;
	c->present = NULL;
	c->origin = NULL;
	c->nvalues = 0;
}

/* "524,288 kB"; "1 page" rather than "1 pages" (units "pages ..."). */
static void fmt_value(double v, const char *unit, char *buf, size_t len)
{
	fmt_num(v, true, buf, len);
	if (unit != NULL && v == 1 && strncmp(unit, "pages", 5) == 0)
		bufcat(buf, len, " page%s", unit + 5);
	else if (unit != NULL)
		bufcat(buf, len, " %s", unit);
}

static int cell_numbers(struct report_cell *c, const struct fig *f, const struct runref *const *runs,
			size_t n)
{
	fig_get get = f->get != NULL ? f->get : get_plain;
	double *v = calloc(n + 1, sizeof(*v));
	double pick = 0;
	bool picked = false;
	char num[64];
	size_t i;
	double x;

	c->values = calloc(n + 1, sizeof(*c->values));
	c->present = calloc(n + 1, sizeof(*c->present));
	c->origin = calloc(n + 1, sizeof(*c->origin));
	if (v == NULL || c->values == NULL || c->present == NULL || c->origin == NULL) {
		free(v);
		return -ENOMEM;
	}
	c->nvalues = n;
	for (i = 0; i < n; i++) {
		bool ok = get(runs[i], f, &x);

		c->origin[i] = &runs[i]->origin;
		if (ok) {
			v[c->have++] = x;
			c->values[i] = x;
			c->present[i] = true;
			if (!picked || (f->kind == K_MIN && x < pick) || (f->kind == K_MAX && x > pick) ||
			    f->kind == K_LAST)
				pick = x;
			picked = true;
		}
		if (f->kind == K_LIST) {
			if (ok)
				fmt_num(x, true, num, sizeof(num));
			bufcat(c->text, sizeof(c->text), "%s%s", i > 0 ? " / " : "", ok ? num : MISSING);
		}
	}
	if (c->have == 0) {
		snprintf(c->text, sizeof(c->text), "%s", MISSING);
		free(v);
		return 0;
	}
	c->median = median_of(v, c->have);
	c->min = v[0];
	c->max = v[c->have - 1];
	if (f->kind == K_LIST) {
		if (f->unit != NULL)
			bufcat(c->text, sizeof(c->text), " %s", f->unit);
	} else if (f->kind == K_AGG) {
		fmt_value(c->median, f->unit, c->text, sizeof(c->text));
		if (c->min != c->max) {
			char lo[32], hi[32];

			fmt_num(c->min, true, lo, sizeof(lo));
			fmt_num(c->max, true, hi, sizeof(hi));
			bufcat(c->text, sizeof(c->text), " (%s–%s)", lo, hi);
		}
	} else {
		fmt_value(pick, f->unit, c->text, sizeof(c->text));
	}
	if (f->kind != K_LIST && c->have < n)
		bufcat(c->text, sizeof(c->text), " [%zu of %zu runs]", c->have, n);
	free(v);
	return 0;
}

/* Labels counted in order of first appearance: "OOM-kill (137) 3/3",
 * "survived 2/3, OOM-kill (137) 1/3"; a single run prints its label alone. */
static void cell_count(struct report_cell *c, const struct fig *f, const struct runref *const *runs, size_t n)
{
	fig_label label = f->label != NULL ? f->label : label_field;
	char labels[16][64];
	size_t counts[16] = {0}, nl = 0, i, k;
	char lab[64];
	bool any = false;

	for (i = 0; i < n; i++) {
		label(runs[i], f, lab, sizeof(lab));
		any |= strcmp(lab, MISSING) != 0;
		for (k = 0; k < nl && strcmp(labels[k], lab) != 0; k++)
			;
		if (k == nl && nl < 16)
			snprintf(labels[nl++], sizeof(labels[0]), "%s", lab);
		if (k < nl)
			counts[k]++;
	}
	if (!any) {
		snprintf(c->text, sizeof(c->text), "%s", MISSING);
		return;
	}
	for (k = 0; k < nl; k++) {
		bufcat(c->text, sizeof(c->text), "%s%s", k > 0 ? ", " : "", labels[k]);
		if (n > 1)
			bufcat(c->text, sizeof(c->text), " %zu/%zu", counts[k], n);
	}
}

static int cell_fill(struct report_cell *c, const struct fig *f, const struct runref *const *runs, size_t n)
{
	c->runs = n;
	c->text[0] = '\0';
	if (n == 0) {
		snprintf(c->text, sizeof(c->text), "%s", MISSING);
		return 0;
	}
	switch (f->kind) {
	case K_COUNT:
		cell_count(c, f, runs, n);
		return 0;
	case K_TEXT:
		if (f->text != NULL)
			f->text(runs, n, f, c->text, sizeof(c->text));
		else
			snprintf(c->text, sizeof(c->text), "%s", MISSING);
		return 0;
	default:
		return cell_numbers(c, f, runs, n);
	}
}

/* The article's figure: a number (with the row's unit), a list of per-run
 * numbers, a text as printed, or {"value", "derived": true}. */
static void article_text(const json_t *j, const char *unit, char *buf, size_t len, bool *derived)
{
	size_t i;
	char num[64];

	buf[0] = '\0';
	if (json_is_object(j) && json_object_get(j, "value") != NULL) {
		*derived = json_is_true(json_object_get(j, "derived"));
		article_text(json_object_get(j, "value"), unit, buf, len, derived);
		if (*derived)
			bufcat(buf, len, " (derived)");
	} else if (json_is_number(j)) {
		fmt_value(json_number_value(j), unit, buf, len);
	} else if (json_is_string(j)) {
		snprintf(buf, len, "%s", json_string_value(j));
	} else if (json_is_array(j) && json_array_size(j) > 0) {
		for (i = 0; i < json_array_size(j); i++) {
			const json_t *e = json_array_get(j, i);

			if (json_is_number(e))
				fmt_num(json_number_value(e), true, num, sizeof(num));
			bufcat(buf, len, "%s%s", i > 0 ? " / " : "",
			       json_is_number(e) ? num : str_or(e, MISSING));
		}
		if (unit != NULL)
			bufcat(buf, len, " %s", unit);
	} else {
		snprintf(buf, len, "%s", MISSING);
	}
}

/* The article's figure as a cell (numbers only when it is one number or a
 * list of numbers), so CSV and JSON share one shape for both sides. */
int article_cell(const struct report_row *r, struct report_cell *c)
{
	const json_t *j = r->article_json;
	double v[64];
	size_t n = 0, i;

	memset(c, 0, sizeof(*c));
	snprintf(c->text, sizeof(c->text), "%s", r->article.text);
	if (json_is_object(j))
		j = json_object_get(j, "value");
	if (json_is_number(j))
		v[n++] = json_number_value(j);
	for (i = 0; json_is_array(j) && i < json_array_size(j) && n < N(v); i++)
		if (json_is_number(json_array_get(j, i)))
			v[n++] = json_number_value(json_array_get(j, i));
	if (n == 0)
		return 0;
	c->values = calloc(n, sizeof(*c->values));
	c->present = calloc(n, sizeof(*c->present));
	c->origin = calloc(n, sizeof(*c->origin));
	if (c->values == NULL || c->present == NULL || c->origin == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c->values[i] = v[i];
		c->present[i] = true;
	}
	c->nvalues = c->have = c->runs = n;
	c->median = median_of(v, n);
	c->min = v[0];
	c->max = v[n - 1];
	return 0;
}

/* ------------------------------------------------------------- tables */

struct variant {
	const char *key;
	char value[96];
	char label[100];
};

/* A table being built: the runs feeding it and a scratch list for a cell. */
struct tctx {
	struct report *rep;
	struct report_table *t;
	const struct tdef *def;
	const json_t *tref;             /* the reference's block for this table */
	const struct runref **feed;
	size_t nfeed;
	const struct runref **pick;     /* scratch, nfeed long */
	size_t cap;                     /* rows allocated */
	const struct variant **colvar;  /* per table column: its variant (variants as columns), or NULL */
	struct variant *vars;           /* what colvar points into */
};

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

static bool run_in_variant(const struct runref *r, const struct variant *v)
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

static int table_note(struct report_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int table_note(struct report_table *t, const char *fmt, ...)
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
	article_text(row->article_json, f->unit, row->article.text, sizeof(row->article.text), &row->derived);
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

static int add_figs(struct tctx *c, const struct fig *figs, size_t n, const struct variant *v,
		    struct lab_error *err);

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

static bool in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static int add_figs(struct tctx *c, const struct fig *figs, size_t n, const struct variant *v,
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
static size_t collect_variants(const struct tctx *c, struct variant *out, size_t max)
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
static int for_variants(struct tctx *c, struct lab_error *err)
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
	*built = rc == 0;
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
			if ((rc = table_build(rep, defs[k], scn, ++next, &rep->tables[rep->nt], &built, err)) < 0) {
				report_table_free(&rep->tables[rep->nt]);
				return rc;
			}
			if (built)
				rep->nt++;
			else
				report_table_free(&rep->tables[rep->nt]);
		}
	}
	return 0;
}
