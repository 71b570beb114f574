/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.h — the sampler audits itself (harness/result/result.md,
 * summary.audit): the cadence it achieved against the one asked, what its
 * sources' reads cost (sources/source.h: source_set_audit), the harness's own
 * CPU time and peak RSS over the run, the cost of stat_refresh folding where
 * asked, and how far memory.stat lagged behind memory.current.  A run whose
 * cadence or reads are far from asked says so (audit_json's *far), by the
 * rules in docs/benchmark.md ("How far is far").
 *
 * Constant memory whatever the run's length (base/hist.h), a few clock reads
 * per sample: its own cost is measured in docs/benchmark.md. */
#ifndef PAGELAB_SAMPLE_AUDIT_H
#define PAGELAB_SAMPLE_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "base/hist.h"

struct source_set;

/* memory.current against memory.stat's sum, kept for the lag in time: the
 * last LAG_RING samples' (t, memory.current). */
#define AUDIT_LAG_RING 512

struct sampler_audit {
	uint64_t t0_ns, cpu0_ns;
	/* The harness's CPU split at its timer wakeups: the start (the
	 * sources opened, tracing set up, the workload launched) ends at the
	 * first, the steady state runs from it to the last, the end (the end
	 * sample, the page walks of it, tracing taken down) follows.  The
	 * time, the process's CPU and the expirations read so far, at the
	 * first wakeup and at the latest; first_wake_ns 0 until then. */
	uint64_t first_wake_ns, first_wake_cpu_ns, last_wake_cpu_ns;
	unsigned long long first_wakes;
	/* The timer's wakeups: between two consecutive ones at the tick
	 * interval (not bursting), and two consecutive ones while bursting. */
	struct lab_hist tick_iv_ns, burst_iv_ns;
	/* A sample's own CPU (its cost_us.cpu): plain ticks, burst samples. */
	struct lab_hist tick_cpu_ns, burst_cpu_ns;
	uint64_t last_wake_ns;
	/* The longest time between two consecutive wakeups of either kind, a
	 * switch between tick and burst included, and from the run's start to
	 * its first wakeup: the histograms above leave both out (a switch's
	 * timer was re-armed inside it; the first wakeup has no previous one),
	 * so a stall of the harness there would show in neither. */
	uint64_t gap_max_ns;
	bool last_bursting;
	unsigned long long wakes, missed;       /* timer expirations read, and those past the first */
	/* stat_refresh before each burst sample ([sample] refresh = fold). */
	bool refresh_asked;
	struct lab_hist refresh_ns;
	unsigned long long refresh_errors;
	int refresh_errno;
	/* memory.stat's lag. */
	bool lag_have_base;
	long long lag_base;                     /* memory.current - the sum, at the first sample */
	long long lag_max, lag_ahead;           /* memory.stat behind memory.current's movement, most; ahead, most */
	int lag_dir;                            /* memory.current rising (1), falling (-1), not yet moved (0) */
	bool lag_pending;                       /* the last sample, judged when the next comes */
	double lag_t;
	unsigned long long lag_c, lag_s, lag_prev_c;    /* its memory.current and sum; the one before */
	long long stock_bytes;                  /* 64 pages x online CPUs: memory.current's charge batch */
	long long folio_bytes;                  /* the largest folio an anonymous fault may charge */
	long long in_flight_bytes;              /* one such folio per online CPU, charged and not yet mapped */
	double lag_max_at_ms, lag_ms_max, lag_ms_at_ms;
	unsigned long long lag_samples;
	struct { double t_ms; unsigned long long usage; } ring[AUDIT_LAG_RING];
	size_t ring_n, ring_next;
	/* The adds to these histograms, held and made in batches (base/hist.h). */
	struct lab_hist_stage stage;
};

/* At the run's start (before the start sample). */
void audit_begin(struct sampler_audit *a, uint64_t now_ns);

/* A timer wakeup at now (CLOCK_MONOTONIC), expirations as timerfd read them,
 * bursting: whether the timer ran at the burst interval. */
void audit_wake(struct sampler_audit *a, uint64_t now_ns, uint64_t expirations, bool bursting);

/* A full sample that read memory.current and memory.stat's sum. */
void audit_lag(struct sampler_audit *a, double t_ms, unsigned long long usage, unsigned long long stat_sum);

/* The held histogram adds made: before audit_json. */
void audit_flush(struct sampler_audit *a);

/* At the very end of the run (its sources and tracing closed): the
 * harness's CPU, wall time and share in harness (audit_json's "harness")
 * brought up to now. */
void audit_end(const struct sampler_audit *a, json_t *harness);

/* summary.audit (result.md); set NULL: without the sources' part.  interval_ms and burst_ms are the asked ones,
 * burst_eff_max_ms how far bursts stretched, samples the run's full and burst
 * samples, stat_fields which memory.stat fields the lag adds up.  far gets
 * "" or the reasons this run's cadence or reads were far from asked ("tick
 * p50 312 ms for 250 ms asked; …"). */
json_t *audit_json(const struct sampler_audit *a, const struct source_set *set, unsigned interval_ms,
		   unsigned burst_ms, unsigned burst_eff_max_ms, unsigned long long samples,
		   const char *stat_fields, char *far, size_t farlen);

#endif
