/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_stats.c — compare's statistics (harness/read/stats.h) on figures whose
 * answers are known from the literature.
 *
 * What is expected, and why:
 *   - Fisher's exact test, two-sided: OOM 3/3 against 0/3 is 2 x (1/20) =
 *     0.1 (only the two extreme tables are as unlikely as the observed one,
 *     each C(3,3)C(3,0)/C(6,3) = 1/20); Fisher's "lady tasting tea", 4 of 4
 *     cups right against 0 of 4, is 2/70; 3 of 4 against 1 of 4 is 34/70
 *     (0.4857); 3/3 against 3/3 is 1.
 *   - Welch's t: the t-distribution's 97.5 % point at 10 degrees of freedom
 *     is 2.228 (any t table), so two equal-variance samples built to give
 *     t = 2.228 at df 10 must give p = 0.05; the medians and ranges of the
 *     samples themselves.
 *   - The verdict: 345/345/345 against 346/346/346 MiB (deterministic repeats)
 *     is t-test significant (p = 0: no variance) but below a 1 % change, so
 *     not real; 345 against 445 with disjoint ranges is real; overlapping
 *     ranges are not; two repeats a side are "not enough runs".
 */
#include <math.h>

#include "read/stats.h"
#include "unit.h"

static bool close_to(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

static void summarize(const double *v, size_t n, struct stats_side *s)
{
	stats_summarize(v, n, s);
}

int main(void)
{
	struct stats_side a, b;
	struct stats_welch w;
	struct stats_verdict v;

	CHECK(close_to(stats_fisher(3, 3, 0, 3), 0.1, 1e-12));
	CHECK(close_to(stats_fisher(0, 3, 3, 3), 0.1, 1e-12));
	CHECK(close_to(stats_fisher(4, 4, 0, 4), 2.0 / 70, 1e-12));
	CHECK(close_to(stats_fisher(3, 4, 1, 4), 34.0 / 70, 1e-12));
	CHECK(close_to(stats_fisher(3, 3, 3, 3), 1.0, 1e-12));
	CHECK(isnan(stats_fisher(4, 3, 0, 3)));

	{
		/* Six values a side, +/- k: sample variance 6k^2 / 5, so
		 * k = sqrt(5/6) gives variance 1.  se = sqrt(1/6 + 1/6); a mean
		 * difference d = 2.228 * se gives t = 2.228 at df = 10. */
		double k = sqrt(5.0 / 6.0), se = sqrt(2.0 / 6.0), d = 2.228 * se;
		double x[6] = { -k, -k, -k, k, k, k }, y[6];

		for (int i = 0; i < 6; i++)
			y[i] = x[i] + d;
		summarize(x, 6, &a);
		summarize(y, 6, &b);
		CHECK(close_to(a.var, 1.0, 1e-12));
		CHECK(stats_welch(&a, &b, &w));
		CHECK(close_to(w.df, 10.0, 1e-9));
		CHECK(close_to(fabs(w.t), 2.228, 1e-9));
		CHECK(close_to(w.p, 0.05, 5e-5));
	}
	{
		double x[3] = { 345, 345, 345 }, y[3] = { 346, 346, 346 }, z[3] = { 445, 444, 446 };
		double o[3] = { 340, 350, 445 }, two[2] = { 1, 2 };

		summarize(x, 3, &a);
		summarize(y, 3, &b);
		CHECK(a.median == 345 && a.min == 345 && a.max == 345);
		stats_verdict(&a, &b, 1.0, &v);
		CHECK(v.have_t && v.t.p == 0);
		CHECK(v.disjoint && !v.above_threshold);
		CHECK(v.call == STATS_T_ONLY);
		CHECK_STR(stats_call_name(v.call), "t-test only");

		summarize(z, 3, &b);
		stats_verdict(&a, &b, 1.0, &v);
		CHECK(v.call == STATS_REAL);
		CHECK(close_to(v.change_pct, 100.0 * 100 / 345, 1e-9));

		stats_verdict(&a, &a, 1.0, &v);
		CHECK(v.call == STATS_SAME && v.t.p == 1);

		summarize(o, 3, &b);
		stats_verdict(&a, &b, 1.0, &v);
		CHECK(!v.disjoint && v.call != STATS_REAL);

		summarize(two, 2, &b);
		stats_verdict(&a, &b, 1.0, &v);
		CHECK(v.call == STATS_NOT_ENOUGH);
		CHECK_STR(stats_call_name(v.call), "not enough runs");
	}
	return unit_report("stats");
}
