/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spec.c — what `pagelab fit` is asked: the range it varies (--vary) and the
 * objectives (--slo), read and checked before anything runs (fit.h). */
#include "fit.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/size.h"

static const char *const key_names[] = { [FIT_MEMORY_MAX] = "memory_max", [FIT_MEMORY_HIGH] = "memory_high" };

const char *fit_key_name(enum fit_key k)
{
	return key_names[k];
}

int fit_parse_vary(const char *text, struct fit_vary *v, struct lab_error *err)
{
	const char *eq = strchr(text, '='), *dots;
	char key[32], lo[32], hi[32];
	size_t n;

	memset(v, 0, sizeof(*v));
	if (eq == NULL || (dots = strstr(eq, "..")) == NULL)
		return lab_error_set(err, EINVAL, "--vary %s: expected KEY=LO..HI (memory_max=16M..256M)", text);
	n = (size_t)(eq - text);
	if (n >= sizeof(key) || (size_t)(dots - eq - 1) >= sizeof(lo) || strlen(dots + 2) >= sizeof(hi))
		return lab_error_set(err, EINVAL, "--vary %s: expected KEY=LO..HI (memory_max=16M..256M)", text);
	snprintf(key, sizeof(key), "%.*s", (int)n, text);
	snprintf(lo, sizeof(lo), "%.*s", (int)(dots - eq - 1), eq + 1);
	snprintf(hi, sizeof(hi), "%s", dots + 2);
	if (strcmp(key, "memory_max") == 0)
		v->key = FIT_MEMORY_MAX;
	else if (strcmp(key, "memory_high") == 0)
		v->key = FIT_MEMORY_HIGH;
	else
		return lab_error_set(err, EINVAL, "--vary %s: fit varies memory_max or memory_high (cgroup v2), "
				     "not '%s'", text, key);
	if (lab_parse_size(lo, &v->lo, err) < 0 || lab_parse_size(hi, &v->hi, err) < 0)
		return lab_error_prefix(err, "--vary %s", text);
	if (v->lo == 0)
		return lab_error_set(err, EINVAL, "--vary %s: the range starts above 0 (a quota of 0 holds nothing)",
				     text);
	if (v->lo >= v->hi)
		return lab_error_set(err, EINVAL, "--vary %s: LO must be below HI (%llu >= %llu bytes)", text, v->lo,
				     v->hi);
	return 0;
}

/* A number with nothing after it, finite and not negative. */
static bool number_of(const char *s, double *out)
{
	char *end;

	if (*s == '\0' || isspace((unsigned char)*s))
		return false;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && isfinite(*out) && *out >= 0;
}

static int slo_bad(struct lab_error *err, const char *text, const char *why)
{
	return lab_error_set(err, EINVAL, "--slo '%s': %s (forms: ops>=0.95*base, p99<=2*base, psi<=10, "
			     "GET/rps>=0.9*base, tps>=1000)", text, why);
}

/* NAME: ops, p99, psi, or a metric's name as a metrics table makes it. */
static int slo_name(const char *text, const char *name, struct fit_slo *s, struct lab_error *err)
{
	if (name[0] == '\0')
		return slo_bad(err, text, "no name before the comparison");
	if (strcmp(name, "ops") == 0)
		s->kind = FIT_SLO_OPS;
	else if (strcmp(name, "p99") == 0)
		s->kind = FIT_SLO_P99;
	else if (strcmp(name, "psi") == 0)
		s->kind = FIT_SLO_PSI;
	else
		s->kind = FIT_SLO_METRIC;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_/-:() ", *p))
			return slo_bad(err, text, "a name of letters, digits and _ / - : ( ) only");
	snprintf(s->metric, sizeof(s->metric), "%s", name);
	return 0;
}

int fit_parse_slo(const char *text, struct fit_slo *s, struct lab_error *err)
{
	const char *op = strstr(text, ">=") ? strstr(text, ">=") : strstr(text, "<=");
	char name[64], rhs[64];
	const char *star;
	int ret;

	memset(s, 0, sizeof(*s));
	s->given = true;
	if (op == NULL)
		return slo_bad(err, text, "no >= or <=");
	if ((size_t)(op - text) >= sizeof(name) || strlen(op + 2) >= sizeof(rhs))
		return slo_bad(err, text, "too long");
	snprintf(name, sizeof(name), "%.*s", (int)(op - text), text);
	snprintf(rhs, sizeof(rhs), "%s", op + 2);
	if (strstr(rhs, ">=") || strstr(rhs, "<=") || strchr(rhs, '<') || strchr(rhs, '>') || strchr(name, '<') ||
	    strchr(name, '>') || strchr(name, '='))
		return slo_bad(err, text, "one comparison, >= or <=");
	if ((ret = slo_name(text, name, s, err)) < 0)
		return ret;
	s->ge = op[0] == '>';
	star = strchr(rhs, '*');
	if (star != NULL) {
		char f[64];

		if (strcmp(star + 1, "base") != 0)
			return slo_bad(err, text, "a factor is written F*base");
		snprintf(f, sizeof(f), "%.*s", (int)(star - rhs), rhs);
		if (!number_of(f, &s->value) || s->value <= 0)
			return slo_bad(err, text, "the factor of base is a positive number");
		s->relative = true;
	} else if (strcmp(rhs, "base") == 0) {
		s->value = 1;
		s->relative = true;
	} else if (!number_of(rhs, &s->value)) {
		return slo_bad(err, text, "the bound is a number or F*base");
	}
	if (s->kind == FIT_SLO_PSI && s->relative)
		return slo_bad(err, text, "psi is a share of time, bounded by a number of percent (psi<=10): the "
			       "unconstrained run's is about 0, and a factor of 0 bounds nothing");
	if (s->kind == FIT_SLO_PSI && (s->ge || s->value > 100))
		return slo_bad(err, text, "psi is bounded from above, 0..100 percent (psi<=10)");
	if (s->kind == FIT_SLO_OPS && !s->ge)
		return slo_bad(err, text, "ops is a throughput: bounded from below (ops>=0.95*base)");
	if (s->kind == FIT_SLO_P99 && s->ge)
		return slo_bad(err, text, "p99 is a latency: bounded from above (p99<=2*base)");
	if (s->relative)
		snprintf(s->text, sizeof(s->text), "%s%s%g*base", name, s->ge ? ">=" : "<=", s->value);
	else
		snprintf(s->text, sizeof(s->text), "%s%s%g", name, s->ge ? ">=" : "<=", s->value);
	return 0;
}

static bool same_objective(const struct fit_slo *a, const struct fit_slo *b)
{
	return a->kind == b->kind && (a->kind != FIT_SLO_METRIC || strcmp(a->metric, b->metric) == 0);
}

int fit_objectives(const struct fit_slo *given, size_t ngiven, struct fit_slo *out, size_t *nout,
		   struct lab_error *err)
{
	static const char *const defaults[] = { "ops>=0.95*base", "p99<=2*base", "psi<=10" };
	size_t n = 0;

	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		struct fit_slo d;
		bool replaced = false;

		fit_parse_slo(defaults[i], &d, err);
		d.given = false;
		for (size_t k = 0; k < ngiven; k++)
			replaced |= same_objective(&given[k], &d);
		if (!replaced)
			out[n++] = d;
	}
	for (size_t k = 0; k < ngiven; k++) {
		for (size_t j = 0; j < k; j++)
			if (same_objective(&given[j], &given[k]))
				return lab_error_set(err, EINVAL, "--slo '%s' and '%s': one objective per name",
						     given[j].text, given[k].text);
		if (n == FIT_MAX_SLOS)
			return lab_error_set(err, E2BIG, "at most %d objectives", FIT_MAX_SLOS);
		out[n++] = given[k];
	}
	*nout = n;
	return 0;
}
