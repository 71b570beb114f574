/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timeline.h — what a run's tracepoints add up to: kswapd's awake intervals
 * and premature sleeps, reclaim stalls per kind with their latencies, the
 * time from the first wakeup_kswapd to the first stall, the gaps between OOM
 * victims, and per-interval histograms of the high-rate events.
 *
 * Pure (no tracefs): trace.c decodes records and hands them here; the unit
 * test feeds a captured sequence.  Records may arrive out of order across
 * CPUs: timeline_feed() takes a batch and a horizon (every CPU has been read
 * up to it), orders them, and holds back what lies past the horizon. */
#ifndef PAGELAB_TIMELINE_H
#define PAGELAB_TIMELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "plan/tracedef.h"

struct trace_rec {
	const struct trace_event_def *def;
	uint64_t ts_ns;                 /* CLOCK_MONOTONIC (trace_clock mono) */
	int cpu, pid;                   /* common_pid: the task it fired in */
	bool in_sandbox;                /* that task is in the run's sandbox */
	long long nid;                  /* kswapd events' node, else -1 */
	long long nr_reclaimed;         /* a stall's _end, else -1 */
	long long victim_pid;           /* mark_victim's pid in the run's pid namespace, else -1 */
	long long victim_kernel_pid;    /* the same as the kernel printed it (its log's pid) */
	/* mm_vmscan_lru_shrink_inactive's and mm_vmscan_reclaim_pages' figures
	 * (else 0): reclaim_flags (shrink_inactive only), and whether the task
	 * is a kswapd or a kdamond (its comm, read at decode time). */
	struct trace_lru_fields {
		long long nr_scanned, nr_activate0, nr_activate1, nr_unmap_fail, nr_ref_keep, flags;
		bool kswapd, kdamond;
	} lru;
	json_t *raw;                    /* the decoded record for runs[].events (owned), or NULL */
};

struct timeline;

/* t0_ns: the run's time origin (samples' t_ms = 0); bin_ms: the width of
 * the per-interval histograms; keep_raw: high-rate records go to events too. */
struct timeline *timeline_new(uint64_t t0_ns, unsigned bin_ms, bool keep_raw);
void timeline_free(struct timeline *tl);

/* Take n records (ownership of their raw objects too) and process, in time
 * order, those before horizon_ns (UINT64_MAX: all).  Each processed record
 * that is kept raw is appended to events (NULL: kept nowhere in memory) and
 * passed to emit, if set (the sampler's: the result stream);
 * each interval that closes is appended to intervals (and passed on). */
typedef void (*timeline_emit_fn)(void *ctx, const char *type, json_t *obj);
int timeline_feed(struct timeline *tl, struct trace_rec *recs, size_t n, uint64_t horizon_ns,
		  json_t *events, json_t *intervals, timeline_emit_fn emit, void *ctx);

/* Called for each record just before it is processed, in time order: every
 * record before it on every CPU has been read by then (the horizon), so
 * whatever it needs from earlier records (trace.c: the pid map of the
 * "pagelab child" markers, then in_sandbox) is known.  NULL: none. */
typedef void (*timeline_classify_fn)(void *ctx, struct trace_rec *r);
void timeline_set_classify(struct timeline *tl, timeline_classify_fn fn, void *ctx);

/* Close the open interval (after the last feed). */
void timeline_finish(struct timeline *tl, json_t *intervals, timeline_emit_fn emit, void *ctx);

/* For adaptive sampling: kswapd is awake on some node / a stall is open. */
bool timeline_kswapd_awake(const struct timeline *tl);
bool timeline_stall_open(const struct timeline *tl);
/* Stalls closed so far (the sandbox's memcg ones and every direct one). */
unsigned long long timeline_stalls_done(const struct timeline *tl);
/* Records fed but held back for a later horizon. */
size_t timeline_pending(const struct timeline *tl);

/* Derived figures, with intervals and stalls still open closed at end_ns. */
json_t *timeline_summary(struct timeline *tl, uint64_t end_ns);

/* The shrink_inactive sums: by the list scanned (RECLAIM_WB_FILE or _ANON in
 * reclaim_flags) and by who scanned it (a task of the sandbox, a kswapd, any
 * other task: another cgroup's, or a writer of memory.reclaim outside it). */
enum { LRU_ANON, LRU_FILE, LRU_NR_KINDS };
enum { LRU_SANDBOX, LRU_KSWAPD, LRU_OTHER, LRU_NR_WHO };
/* Who called reclaim_pages (the pageout group): a task of the sandbox
 * (MADV_PAGEOUT), a kdamond (a DAMON pageout scheme), anyone else. */
enum { RP_SANDBOX, RP_KDAMOND, RP_OTHER, RP_NR_WHO };

/* Premature sleep: kswapd woken again within this many ms of going to sleep. */
#define TIMELINE_PREMATURE_MS 100

#endif
