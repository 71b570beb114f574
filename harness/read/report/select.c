/* SPDX-License-Identifier: GPL-2.0-or-later */
/* select.c — where in a run a figure is read: step selectors (tables.md),
 * the generic reader (a path at a step, over the samples, less another,
 * scaled) and the count label read from a step.  A figure a result lacks is
 * "not read" (false), printed as "—", never as 0.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
bool fig_read_plain(const struct runref *r, const struct fig *f, double *out)
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
void fig_read_label(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	enum walk_agg agg;
	const json_t *j = f->path != NULL ? json_walk(select_step(r, f->sel), f->path, &agg) : NULL;

	snprintf(buf, len, "%s", str_or(j, MISSING));
}
