/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist.h — a fixed-size log-linear histogram of durations (ns) or sizes, for
 * quantiles over a run of any length in constant memory (the sampler audits
 * itself at every tick: an hour of 10 ms bursts is 360,000 values).
 *
 * Values below 2^HIST_SUB_BITS are counted exactly; above, each power of two
 * is cut into 2^HIST_SUB_BITS buckets, so a quantile is within 1/32 (3.2 %)
 * of a value that was recorded — and clamped to [min, max], which are exact,
 * as are n and the sum.  Values up to 2^46 (19.5 hours in ns) have buckets;
 * larger ones go to the last. */
#ifndef PAGELAB_HIST_H
#define PAGELAB_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS 5
#define HIST_OCTAVES 42
#define HIST_BUCKETS ((HIST_OCTAVES + 1) << HIST_SUB_BITS)

struct lab_hist {
	uint64_t n, sum, min, max;
	uint32_t count[HIST_BUCKETS];
};

void lab_hist_add(struct lab_hist *h, uint64_t v);

/* Adds held in one contiguous array and made in a batch: a histogram's
 * counts are spread over 5.5 KiB, which a process asleep between ticks
 * finds evicted — one add straight at every tick costs a cache miss or
 * two each (measured: docs/benchmark.md), a held one a few bytes written
 * in line.  lab_hist_stage_add makes the batch itself when the stage is
 * full; lab_hist_stage_flush before reading a histogram it feeds. */
#define HIST_STAGE 512

struct lab_hist_stage {
	unsigned n;
	struct { struct lab_hist *h; uint64_t v; } e[HIST_STAGE];
};

void lab_hist_stage_add(struct lab_hist_stage *s, struct lab_hist *h, uint64_t v);
void lab_hist_stage_flush(struct lab_hist_stage *s);
/* The q-quantile (0 <= q <= 1) of what was added: the smallest bucket whose
 * cumulative count reaches ceil(q * n), at its middle, within [min, max].  0
 * when nothing was added. */
uint64_t lab_hist_quantile(const struct lab_hist *h, double q);

#endif
