/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h — the statistics `pagelab compare` rests on: a side's median and
 * range, Welch's t-test (GSL's t distribution), the LKP rule and Fisher's
 * exact test for outcome counts (GSL's hypergeometric distribution).
 *
 * Why two tests for one difference: repeats of a deterministic figure (pages
 * reclaimed under a fixed limit) have next to no variance, so a t-test alone
 * calls 345 against 346 significant.  LKP (the kernel test robot) calls a
 * change real only with >= 3 samples a side, a change above a threshold and
 * ranges that do not overlap.  A difference is real here only when both say
 * so (stats_verdict).
 */
#ifndef PAGELAB_STATS_H
#define PAGELAB_STATS_H

#include <stdbool.h>
#include <stddef.h>

#define STATS_MIN_REPEATS 3     /* LKP: fewer samples a side give no verdict */
#define STATS_ALPHA 0.05        /* 95 % */

struct stats_side {
	size_t n;
	double median, min, max, mean, var;     /* var: sample variance (n - 1) */
};

/* Summarise v[0..n) (n may be 0: everything 0). */
void stats_summarize(const double *v, size_t n, struct stats_side *s);

struct stats_welch {
	double t, df, p;                /* two-sided p */
};

/* Welch's unequal-variance t-test of two summaries (each n >= 2).  Both
 * variances zero: p = 1 when the means are equal, else 0 (t is infinite).
 * Returns false when a side has fewer than 2 values. */
bool stats_welch(const struct stats_side *a, const struct stats_side *b, struct stats_welch *out);

/* Fisher's exact test, two-sided, of a_yes of a_n against b_yes of b_n: the
 * sum of the hypergeometric probabilities of every table with the same
 * margins that is no more likely than the one observed. */
double stats_fisher(unsigned a_yes, unsigned a_n, unsigned b_yes, unsigned b_n);

enum stats_call {
	STATS_NOT_ENOUGH,       /* a side has < STATS_MIN_REPEATS values */
	STATS_SAME,             /* neither test sees a difference */
	STATS_REAL,             /* both agree: t-test p < alpha and the LKP rule */
	STATS_T_ONLY,           /* t-test significant, the LKP rule not: not real */
	STATS_RANGE_ONLY,       /* LKP rule holds, t-test not significant: not real */
};

struct stats_verdict {
	enum stats_call call;
	double change_pct;      /* (new median - base median) / |base median| x 100; NAN if base is 0 */
	bool disjoint;          /* the min–max ranges do not overlap */
	bool above_threshold;   /* |change_pct| > threshold (base 0 and new not: above) */
	bool have_t;
	struct stats_welch t;
};

/* The verdict on base against new at threshold_pct (the LKP change). */
void stats_verdict(const struct stats_side *base, const struct stats_side *new_,
		   double threshold_pct, struct stats_verdict *v);

/* "real", "same", "not enough runs", "t-test only", "range only". */
const char *stats_call_name(enum stats_call c);

/* false in a build without GSL (a static guest build): compare refuses. */
bool stats_available(void);

#endif
