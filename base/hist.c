/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.c — log-linear histogram (hist.h). */
#include "hist.h"

#define SUB (1u << HIST_SUB_BITS)

/* Below SUB: the value itself.  Above: v = m << e with m in [SUB, 2 * SUB),
 * bucket SUB * (e + 1) + (m - SUB): SUB buckets per power of two. */
static unsigned bucket_of(uint64_t v)
{
	unsigned e;
	uint64_t b;

	if (v < SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v) - HIST_SUB_BITS;
	b = (uint64_t)SUB * (e + 1) + ((v >> e) - SUB);
	return b < HIST_BUCKETS ? (unsigned)b : HIST_BUCKETS - 1;
}

/* The values bucket b holds: [lo, hi]. */
static void bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
	unsigned e;

	if (b < SUB) {
		*lo = *hi = b;
		return;
	}
	e = b / SUB - 1;
	*lo = (uint64_t)(SUB + b % SUB) << e;
	*hi = *lo + (((uint64_t)1 << e) - 1);
}

void lab_hist_add(struct lab_hist *h, uint64_t v)
{
	if (h->n == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += v;
	h->count[bucket_of(v)]++;
}

uint64_t lab_hist_quantile(const struct lab_hist *h, double q)
{
	uint64_t need, seen = 0, lo, hi, mid;

	if (h->n == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	need = (uint64_t)(q * (double)h->n);
	if ((double)need < q * (double)h->n || need == 0)
		need++;                 /* ceil, without libm */
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (seen < need)
			continue;
		bucket_range(b, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		return mid < h->min ? h->min : mid > h->max ? h->max : mid;
	}
	return h->max;
}

void lab_hist_stage_flush(struct lab_hist_stage *s)
{
	for (unsigned i = 0; i < s->n; i++)
		lab_hist_add(s->e[i].h, s->e[i].v);
	s->n = 0;
}

void lab_hist_stage_add(struct lab_hist_stage *s, struct lab_hist *h, uint64_t v)
{
	if (s->n == HIST_STAGE)
		lab_hist_stage_flush(s);
	s->e[s->n].h = h;
	s->e[s->n].v = v;
	s->n++;
}
