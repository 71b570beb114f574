/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cells.c — a figure over the runs of one column into a cell: its per-run
 * values, the median with min–max, a list, a count of labels, a text; and
 * the article's figure as a cell.
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	fig_get get = f->get != NULL ? f->get : fig_read_plain;
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
	fig_label label = f->label != NULL ? f->label : fig_read_label;
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

int cell_fill(struct report_cell *c, const struct fig *f, const struct runref *const *runs, size_t n)
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
void cell_article_text(const json_t *j, const char *unit, char *buf, size_t len, bool *derived)
{
	size_t i;
	char num[64];

	buf[0] = '\0';
	if (json_is_object(j) && json_object_get(j, "value") != NULL) {
		*derived = json_is_true(json_object_get(j, "derived"));
		cell_article_text(json_object_get(j, "value"), unit, buf, len, derived);
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
