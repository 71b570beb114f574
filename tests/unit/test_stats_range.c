/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_stats_range.c — compare's statistics (harness/read/stats.h) at the
 * edges of the double's range, where GSL's default error handler aborted
 * the process (gsl_cdf_tdist_Q through gamma.c: "x too large to extract
 * fraction part").
 *
 * What is expected, and why:
 *   - 1e308 three times a side: the mean is 1e308 (the sum overflows; a
 *     running mean does not), no variance;
 *   - 1e308 against -1e308, no variance either side: Welch's t is infinite,
 *     p 0 (the means differ by infinitely many standard errors), and the
 *     change in % has no value (NaN), the ranges are disjoint: real;
 *   - a side holding both 1e308 and -1e308: its variance overflows, so
 *     there is no t-test (false, not a made-up p), and no abort;
 *   - the median of two values near 1e308 is their midpoint, not infinity;
 *   - Fisher's test on counts in range is unchanged (3/3 against 0/3: 0.1).
 */
#include <math.h>

#include "read/stats.h"
#include "unit.h"

int main(void)
{
	const double big[3] = { 1e308, 1e308, 1e308 }, neg[3] = { -1e308, -1e308, -1e308 };
	const double mixed[3] = { 1e308, -1e308, 159992 }, two[2] = { 1.5e308, 1.7e308 };
	struct stats_side a, b;
	struct stats_welch w;
	struct stats_verdict v;

	stats_summarize(big, 3, &a);
	CHECK(a.mean == 1e308 && a.var == 0 && a.median == 1e308);
	stats_summarize(neg, 3, &b);
	CHECK(stats_welch(&a, &b, &w));
	CHECK(isinf(w.t) && w.p == 0);
	stats_verdict(&a, &b, 1.0, &v);
	CHECK(v.call == STATS_REAL && isnan(v.change_pct) && v.disjoint);

	stats_summarize(mixed, 3, &a);
	CHECK(isfinite(a.mean));
	CHECK(!stats_welch(&a, &b, &w));
	stats_verdict(&a, &b, 1.0, &v);
	CHECK(!v.have_t && v.call != STATS_REAL);

	stats_summarize(two, 2, &a);
	CHECK(isfinite(a.median) && fabs(a.median - 1.6e308) < 1e293);

	CHECK(fabs(stats_fisher(3, 3, 0, 3) - 0.1) < 1e-12);
	return unit_report("stats_range");
}
