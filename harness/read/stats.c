/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.c — medians, Welch's t-test, the LKP rule and Fisher's exact test
 * (harness/read/stats.h).  The distributions are GSL's (Debian libgsl-dev):
 * gsl_cdf_tdist_Q for t, gsl_ran_hypergeometric_pdf for Fisher. */
#include "stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#ifndef PAGELAB_NO_GSL
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>

/* GSL's default error handler aborts the process (a result with 1e308 in
 * it made gsl_cdf_tdist_Q abort compare: gamma.c "x too large to extract
 * fraction part").  Off: a function that fails returns NaN (or GSL_NAN),
 * which every caller here checks.  Idempotent, cheap. */
static void gsl_quiet(void)
{
	static bool off;

	if (!off) {
		gsl_set_error_handler_off();
		off = true;
	}
}
#else
/* A static guest build without GSL: the guest only runs scenarios; compare
 * refuses to run there (stats_available). */
static double gsl_cdf_tdist_Q(double x, double nu) { (void)x; (void)nu; return NAN; }
static double gsl_ran_hypergeometric_pdf(unsigned k, unsigned n1, unsigned n2, unsigned t)
{ (void)k; (void)n1; (void)n2; (void)t; return NAN; }
static void gsl_quiet(void) { }
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void stats_summarize(const double *v, size_t n, struct stats_side *s)
{
	double *c;
	double sum = 0, ss = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n == 0)
		return;
	c = malloc(n * sizeof(*c));
	if (c != NULL) {
		memcpy(c, v, n * sizeof(*c));
		qsort(c, n, sizeof(*c), cmp_double);
		s->median = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
		if (!isfinite(s->median))       /* two middle values near 1e308 */
			s->median = c[n / 2 - 1] / 2 + c[n / 2] / 2;
		s->min = c[0];
		s->max = c[n - 1];
		free(c);
	} else {
		s->median = s->min = s->max = v[0];
		for (i = 1; i < n; i++) {
			s->min = fmin(s->min, v[i]);
			s->max = fmax(s->max, v[i]);
		}
	}
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	if (!isfinite(s->mean)) {
		/* The sum overflowed (figures near 1e308): Welford's running
		 * mean, which does not add the values themselves. */
		s->mean = 0;
		for (i = 0; i < n; i++)
			s->mean += (v[i] - s->mean) / (double)(i + 1);
	}
	for (i = 0; i < n; i++)
		ss += (v[i] - s->mean) * (v[i] - s->mean);
	s->var = n > 1 ? ss / (double)(n - 1) : 0;
}

bool stats_welch(const struct stats_side *a, const struct stats_side *b, struct stats_welch *out)
{
	double sa, sb, se2;

	memset(out, 0, sizeof(*out));
	if (a->n < 2 || b->n < 2)
		return false;
	sa = a->var / (double)a->n;
	sb = b->var / (double)b->n;
	se2 = sa + sb;
	if (se2 <= 0) {
		/* No variance on either side: the means are equal or the
		 * difference is infinitely many standard errors away. */
		out->t = a->mean == b->mean ? 0 : a->mean < b->mean ? -INFINITY : INFINITY;
		out->df = (double)(a->n + b->n - 2);
		out->p = a->mean == b->mean ? 1 : 0;
		return true;
	}
	out->t = (a->mean - b->mean) / sqrt(se2);
	/* Welch–Satterthwaite degrees of freedom. */
	out->df = se2 * se2 / (sa * sa / (double)(a->n - 1) + sb * sb / (double)(b->n - 1));
	/* Figures near the double's range (1e308) overflow the variance or the
	 * degrees of freedom: no t-test then, rather than a made-up p. */
	if (!isfinite(out->t) || !isfinite(out->df) || out->df <= 0) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	gsl_quiet();
	out->p = 2 * gsl_cdf_tdist_Q(fabs(out->t), out->df);
	if (!isfinite(out->p) || out->p < 0) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	if (out->p > 1)
		out->p = 1;
	return true;
}

double stats_fisher(unsigned a_yes, unsigned a_n, unsigned b_yes, unsigned b_n)
{
	unsigned yes = a_yes + b_yes, no = a_n - a_yes + b_n - b_yes;
	unsigned lo = a_n > no ? a_n - no : 0, hi = a_n < yes ? a_n : yes;
	double p_obs, p = 0;

	if (a_yes > a_n || b_yes > b_n || a_n == 0 || b_n == 0)
		return NAN;
	/* Drawing a_n runs from yes + no: how many are "yes"? */
	gsl_quiet();
	p_obs = gsl_ran_hypergeometric_pdf(a_yes, yes, no, a_n);
	if (!isfinite(p_obs))
		return NAN;
	for (unsigned k = lo; k <= hi; k++) {
		double pk = gsl_ran_hypergeometric_pdf(k, yes, no, a_n);

		/* Tables as likely as the observed one count, allowing for
		 * rounding (R's fisher.test uses the same relative 1e-7). */
		if (!isfinite(pk))
			return NAN;
		if (pk <= p_obs * (1 + 1e-7))
			p += pk;
	}
	return p > 1 ? 1 : p;
}

void stats_verdict(const struct stats_side *base, const struct stats_side *new_,
		   double threshold_pct, struct stats_verdict *v)
{
	bool t_sig;

	memset(v, 0, sizeof(*v));
	v->change_pct = base->median != 0 ? (new_->median - base->median) / fabs(base->median) * 100 : NAN;
	if (!isfinite(v->change_pct))
		v->change_pct = NAN;    /* 1e308 against -1e308: no percentage to print */
	v->disjoint = base->n > 0 && new_->n > 0 && (new_->min > base->max || new_->max < base->min);
	v->above_threshold = isnan(v->change_pct) ? new_->median != base->median
						  : fabs(v->change_pct) > threshold_pct;
	if (base->n < STATS_MIN_REPEATS || new_->n < STATS_MIN_REPEATS) {
		v->call = STATS_NOT_ENOUGH;
		return;
	}
	v->have_t = stats_welch(base, new_, &v->t);
	t_sig = v->have_t && v->t.p < STATS_ALPHA;
	if (t_sig && v->disjoint && v->above_threshold)
		v->call = STATS_REAL;
	else if (t_sig)
		v->call = STATS_T_ONLY;
	else if (v->disjoint && v->above_threshold)
		v->call = STATS_RANGE_ONLY;
	else
		v->call = STATS_SAME;
}

const char *stats_call_name(enum stats_call c)
{
	switch (c) {
	case STATS_NOT_ENOUGH: return "not enough runs";
	case STATS_SAME: return "same";
	case STATS_REAL: return "real";
	case STATS_T_ONLY: return "t-test only";
	case STATS_RANGE_ONLY: return "range only";
	}
	return "?";
}

bool stats_available(void)
{
#ifdef PAGELAB_NO_GSL
	return false;
#else
	return true;
#endif
}
