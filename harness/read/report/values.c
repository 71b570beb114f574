/* SPDX-License-Identifier: GPL-2.0-or-later */
/* values.c — the report's numbers and paths: display buffers, whole-number
 * helpers without libm, the article's number format, medians, and the
 * dotted paths a table reads a figure at ("counters.series_kb[last]",
 * "zones[zone=Normal,node=0].free").
 *
 * Input formats: harness/result/result.md (result document), workloads/events.md
 * (step counters), results/reference/<article>.json (the articles' figures).
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
