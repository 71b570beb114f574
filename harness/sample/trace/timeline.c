/* SPDX-License-Identifier: GPL-2.0-or-later */
/* timeline.c — derived figures from a run's tracepoints (see timeline.h). */
#include "timeline.h"
#include "result/keys.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define MAX_NODES 64
#define MAX_OPEN 1024           /* tasks in reclaim at once */
#define HIST_BUCKETS 24         /* log2 µs: [0,1), [1,2), [2,4) … [2^22, ∞) */

struct kswapd_node {
	bool seen, awake;
	uint64_t awake_since, last_sleep, last_wake;
	unsigned long long wakes, sleeps, intervals, premature, rewakes;
	double total_ms, longest_ms;
};

struct stall_open {
	int pid;
	enum trace_stall kind;
	bool in_sandbox;
	uint64_t ts;
};

/* At most this many latencies per kind are kept (8 MB): beyond it a
 * uniform reservoir sample (Vitter's algorithm R) stands for them, so an
 * hour of a memcg reclaim storm keeps its quantiles in bounded memory; the
 * maximum is kept exactly. */
#define LAT_KEEP (1u << 20)

struct stall_stats {
	unsigned long long count, pages, other_count, other_pages, unpaired_ends;
	double *lat_us, max_us;
	unsigned long long n_seen, rng;
	size_t n_lat, cap_lat;
	double total_ms;
	uint64_t first_ts;
};

/* mm_vmscan_lru_shrink_inactive added up: events and each field's sum. */
struct lru_sum {
	unsigned long long events, scanned, reclaimed, activate0, activate1, unmap_fail, ref_keep;
};

struct bin {
	uint64_t start;
	bool any;
	struct lru_sum lru[LRU_NR_KINDS][LRU_NR_WHO];
	unsigned long long count[TS_NR], pages[TS_NR];
	unsigned long long hist[TS_NR][HIST_BUCKETS];
};

struct timeline {
	uint64_t t0, bin_ns;
	bool keep_raw;
	struct trace_rec *pending;
	size_t n_pending, cap_pending;
	struct kswapd_node node[MAX_NODES];
	struct stall_open open[MAX_OPEN];
	size_t n_open;
	unsigned long long open_dropped;
	struct stall_stats st[TS_NR];
	unsigned long long *counts;     /* per trace_events row */
	uint64_t first_wakeup;
	json_t *victims;                /* [{t_ms, pid}] */
	uint64_t last_victim;
	json_t *gaps;
	struct bin bin;
	struct lru_sum lru[LRU_NR_KINDS][LRU_NR_WHO];      /* the whole run */
	struct lru_sum pageout[RP_NR_WHO];                 /* mm_vmscan_reclaim_pages, the whole run */
	unsigned long long nr_bins;
	timeline_classify_fn classify;  /* at each record's processing (trace.c) */
	void *cctx;
};

static double ms(const struct timeline *tl, uint64_t ts)
{
	return ts >= tl->t0 ? (double)(ts - tl->t0) / 1e6 : -(double)(tl->t0 - ts) / 1e6;
}

struct timeline *timeline_new(uint64_t t0_ns, unsigned bin_ms, bool keep_raw)
{
	struct timeline *tl = calloc(1, sizeof(*tl));

	if (tl == NULL)
		return NULL;
	tl->counts = calloc(trace_nr_events, sizeof(*tl->counts));
	tl->victims = json_array();
	tl->gaps = json_array();
	if (tl->counts == NULL || tl->victims == NULL || tl->gaps == NULL) {
		timeline_free(tl);
		return NULL;
	}
	tl->t0 = t0_ns;
	tl->bin_ns = (uint64_t)(bin_ms ? bin_ms : 1000) * 1000000ull;
	tl->keep_raw = keep_raw;
	tl->bin.start = t0_ns;
	return tl;
}

void timeline_set_classify(struct timeline *tl, timeline_classify_fn fn, void *ctx)
{
	tl->classify = fn;
	tl->cctx = ctx;
}

void timeline_free(struct timeline *tl)
{
	if (tl == NULL)
		return;
	for (size_t i = 0; i < tl->n_pending; i++)
		json_decref(tl->pending[i].raw);
	free(tl->pending);
	for (int k = 0; k < TS_NR; k++)
		free(tl->st[k].lat_us);
	free(tl->counts);
	json_decref(tl->victims);
	json_decref(tl->gaps);
	free(tl);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct trace_rec *x = a, *y = b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns < y->ts_ns ? -1 : 1;
	return x->cpu - y->cpu;
}

static unsigned hist_bucket(double us)
{
	unsigned b = 0;

	while (b < HIST_BUCKETS - 1 && us >= (double)(1ull << b))
		b++;
	return b;
}

static const char *const lru_kind_names[LRU_NR_KINDS] = { "anon", "file" };
static const char *const lru_who_names[LRU_NR_WHO] = { "sandbox", "kswapd", "other" };

/* One sum: {events, nr_scanned, nr_reclaimed, nr_activate0, nr_activate1,
 * nr_unmap_fail, nr_ref_keep}. */
static json_t *lru_sum_json(const struct lru_sum *x)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "events", (json_int_t)x->events, "nr_scanned",
			 (json_int_t)x->scanned, "nr_reclaimed", (json_int_t)x->reclaimed, "nr_activate0",
			 (json_int_t)x->activate0, "nr_activate1", (json_int_t)x->activate1, "nr_unmap_fail",
			 (json_int_t)x->unmap_fail, "nr_ref_keep", (json_int_t)x->ref_keep);
}

/* {"file": {"sandbox": {events, nr_scanned, …}, …}, "anon": …} of the
 * non-empty sums, or NULL when all are. */
static json_t *lru_json(const struct lru_sum sum[LRU_NR_KINDS][LRU_NR_WHO])
{
	json_t *o = NULL;

	for (int k = 0; k < LRU_NR_KINDS; k++)
		for (int w = 0; w < LRU_NR_WHO; w++) {
			const struct lru_sum *x = &sum[k][w];
			json_t *kind;

			if (x->events == 0)
				continue;
			if (o == NULL)
				o = json_object();
			kind = json_object_get(o, lru_kind_names[k]);
			if (kind == NULL) {
				kind = json_object();
				json_object_set_new(o, lru_kind_names[k], kind);
			}
			json_object_set_new(kind, lru_who_names[w], lru_sum_json(x));
		}
	return o;
}

static void lru_add(struct lru_sum *x, const struct trace_rec *r)
{
	x->events++;
	x->scanned += r->lru.nr_scanned > 0 ? (unsigned long long)r->lru.nr_scanned : 0;
	x->reclaimed += r->nr_reclaimed > 0 ? (unsigned long long)r->nr_reclaimed : 0;
	x->activate0 += r->lru.nr_activate0 > 0 ? (unsigned long long)r->lru.nr_activate0 : 0;
	x->activate1 += r->lru.nr_activate1 > 0 ? (unsigned long long)r->lru.nr_activate1 : 0;
	x->unmap_fail += r->lru.nr_unmap_fail > 0 ? (unsigned long long)r->lru.nr_unmap_fail : 0;
	x->ref_keep += r->lru.nr_ref_keep > 0 ? (unsigned long long)r->lru.nr_ref_keep : 0;
}

/* An OOM victim: when, its pid, whether it was still in the sandbox when
 * the record was read, and its comm where the kernel's format has one
 * (6.18's mark_victim; 6.1's has only pid).  In a pid namespace of its own
 * (a container) the pid is the run's, and kernel_pid the one the kernel's
 * log names it by (runs[].kmsg.oom_kills): run/victims.c joins the two. */
static void victim_event(struct timeline *tl, const struct trace_rec *r)
{
	json_t *v = json_pack("{s:f, s:I, s:b}", RK_T_MS, ms(tl, r->ts_ns), "pid", (json_int_t)r->victim_pid,
			      "sandbox", r->in_sandbox);
	const json_t *comm = r->raw != NULL ? json_object_get(r->raw, RK_COMM) : NULL;

	if (json_is_string(comm))
		json_object_set(v, RK_COMM, (json_t *)comm);
	if (r->victim_kernel_pid > 0 && r->victim_kernel_pid != r->victim_pid)
		json_object_set_new(v, "kernel_pid", json_integer((json_int_t)r->victim_kernel_pid));
	json_array_append_new(tl->victims, v);
	if (tl->last_victim)
		json_array_append_new(tl->gaps, json_real((double)(r->ts_ns - tl->last_victim) / 1e6));
	tl->last_victim = r->ts_ns;
}

/* RECLAIM_WB_FILE = 0x2, RECLAIM_WB_ANON = 0x1 (include/trace/events/vmscan.h:
 * trace_reclaim_flags); the sandbox's task first, then a kswapd. */
/* mm_vmscan_reclaim_pages: a list reclaimed as someone chose it, anon and
 * file together (the event has no reclaim_flags). */
static void pageout_event(struct timeline *tl, const struct trace_rec *r)
{
	lru_add(&tl->pageout[r->in_sandbox ? RP_SANDBOX : r->lru.kdamond ? RP_KDAMOND : RP_OTHER], r);
}

static const char *const rp_who_names[RP_NR_WHO] = { "sandbox", "kdamond", "other" };

/* {"kdamond": {events, nr_scanned, nr_reclaimed, …}, …}: the non-empty sums. */
static json_t *pageout_json(const struct lru_sum sum[RP_NR_WHO])
{
	json_t *o = json_object();

	for (int w = 0; w < RP_NR_WHO; w++)
		if (sum[w].events > 0)
			json_object_set_new(o, rp_who_names[w], lru_sum_json(&sum[w]));
	return o;
}

static void lru_event(struct timeline *tl, const struct trace_rec *r)
{
	int k = (r->lru.flags & 0x2) ? LRU_FILE : LRU_ANON;
	int w = r->in_sandbox ? LRU_SANDBOX : r->lru.kswapd ? LRU_KSWAPD : LRU_OTHER;

	lru_add(&tl->lru[k][w], r);
	lru_add(&tl->bin.lru[k][w], r);
	tl->bin.any = true;
}

static json_t *bin_json(const struct timeline *tl)
{
	json_t *o = json_pack("{s:f, s:f}", RK_T_MS, ms(tl, tl->bin.start), RK_MS, (double)tl->bin_ns / 1e6);

	for (int k = 0; k < TS_NR; k++) {
		json_t *h;
		int last = -1;

		if (tl->bin.count[k] == 0)
			continue;
		h = json_array();
		for (int b = 0; b < HIST_BUCKETS; b++)
			if (tl->bin.hist[k][b])
				last = b;
		for (int b = 0; b <= last; b++)
			json_array_append_new(h, json_integer((json_int_t)tl->bin.hist[k][b]));
		json_object_set_new(o, tracedef_stall_name((enum trace_stall)k),
				    json_pack("{s:I, s:I, s:o}", RK_COUNT, (json_int_t)tl->bin.count[k],
					      RK_PAGES, (json_int_t)tl->bin.pages[k], "lat_us_log2", h));
	}
	{
		json_t *lru = lru_json(tl->bin.lru);

		if (lru != NULL)
			json_object_set_new(o, "lru", lru);
	}
	return o;
}

static void bin_advance(struct timeline *tl, uint64_t ts, json_t *intervals, timeline_emit_fn emit,
			void *ctx)
{
	if (ts < tl->bin.start + tl->bin_ns)
		return;
	if (tl->bin.any) {
		json_t *o = bin_json(tl);

		json_array_append(intervals, o);
		if (emit)
			emit(ctx, "trace-interval", o);
		json_decref(o);
		tl->nr_bins++;
	}
	memset(&tl->bin, 0, sizeof(tl->bin));
	tl->bin.start = tl->t0 + (ts - tl->t0) / tl->bin_ns * tl->bin_ns;
}

static int lat_push(struct stall_stats *s, double us)
{
	s->n_seen++;
	if (us > s->max_us)
		s->max_us = us;
	if (s->n_lat == LAT_KEEP) {
		unsigned long long j;

		/* A fixed LCG (Knuth's MMIX constants): the same run, the same sample. */
		s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
		j = (s->rng >> 11) % s->n_seen;
		if (j < LAT_KEEP)
			s->lat_us[j] = us;
		return 0;
	}
	if (s->n_lat == s->cap_lat) {
		size_t cap = s->cap_lat ? s->cap_lat * 2 : 256;
		double *nl = realloc(s->lat_us, cap * sizeof(*nl));

		if (nl == NULL)
			return -ENOMEM;
		s->lat_us = nl;
		s->cap_lat = cap;
	}
	s->lat_us[s->n_lat++] = us;
	return 0;
}

static void kswapd_event(struct timeline *tl, const struct trace_rec *r)
{
	struct kswapd_node *n;

	if (r->nid < 0 || r->nid >= MAX_NODES)
		return;
	n = &tl->node[r->nid];
	if (r->def->point == TP_KSWAPD_WAKE) {
		n->wakes++;
		if (n->awake) {
			/* balance_pgdat() again without a full sleep between: the nap
			 * was cut short (low_wmark_hit_quickly) or the node was not
			 * balanced after it (high_wmark_hit_quickly); mm/vmscan.c
			 * kswapd_try_to_sleep(). */
			if (n->seen)
				n->rewakes++;
		} else {
			n->awake = true;
			n->awake_since = r->ts_ns;
			if (n->sleeps && r->ts_ns - n->last_sleep < (uint64_t)TIMELINE_PREMATURE_MS * 1000000ull)
				n->premature++;
		}
		n->last_wake = r->ts_ns;
		n->seen = true;
	} else if (r->def->point == TP_KSWAPD_SLEEP) {
		uint64_t since = n->awake ? n->awake_since : tl->t0;   /* awake when the run began */

		if (n->awake || !n->seen) {
			double d = (double)(r->ts_ns - since) / 1e6;

			n->intervals++;
			n->total_ms += d;
			if (d > n->longest_ms)
				n->longest_ms = d;
		}
		n->awake = false;
		n->sleeps++;
		n->last_sleep = r->ts_ns;
		n->seen = true;
	}
}

static int stall_event(struct timeline *tl, const struct trace_rec *r)
{
	enum trace_stall k = r->def->stall;

	if (r->def->role == TR_BEGIN) {
		if (tl->n_open == MAX_OPEN) {
			tl->open_dropped++;
			return 0;
		}
		tl->open[tl->n_open++] = (struct stall_open){ r->pid, k, r->in_sandbox, r->ts_ns };
		return 0;
	}
	for (size_t i = tl->n_open; i-- > 0;) {
		struct stall_open o = tl->open[i];
		struct stall_stats *s = &tl->st[k];
		unsigned long long pages = r->nr_reclaimed > 0 ? (unsigned long long)r->nr_reclaimed : 0;
		double us;

		if (o.pid != r->pid || o.kind != k)
			continue;
		tl->open[i] = tl->open[--tl->n_open];
		us = (double)(r->ts_ns - o.ts) / 1e3;
		if (!o.in_sandbox && k == TS_MEMCG) {
			/* Another cgroup's reclaim (a neighbour on this machine). */
			s->other_count++;
			s->other_pages += pages;
			return 0;
		}
		if (!o.in_sandbox)
			s->other_count++, s->other_pages += pages;
		s->count++;
		s->pages += pages;
		s->total_ms += us / 1e3;
		if (s->count == 1)
			s->first_ts = o.ts;
		tl->bin.any = true;
		tl->bin.count[k]++;
		tl->bin.pages[k] += pages;
		tl->bin.hist[k][hist_bucket(us)]++;
		return lat_push(s, us);
	}
	tl->st[k].unpaired_ends++;      /* began before tracing started */
	return 0;
}

static int process(struct timeline *tl, struct trace_rec *r, json_t *events, json_t *intervals,
		   timeline_emit_fn emit, void *ctx)
{
	int ret = 0;

	if (tl->classify != NULL)
		tl->classify(tl->cctx, r);
	bin_advance(tl, r->ts_ns, intervals, emit, ctx);
	tl->counts[r->def - trace_events]++;
	switch (r->def->point) {
	case TP_WAKEUP_KSWAPD:
		if (tl->first_wakeup == 0)
			tl->first_wakeup = r->ts_ns;
		break;
	case TP_KSWAPD_WAKE:
	case TP_KSWAPD_SLEEP:
		kswapd_event(tl, r);
		break;
	case TP_SHRINK_INACTIVE:
		lru_event(tl, r);
		break;
	case TP_RECLAIM_PAGES:
		pageout_event(tl, r);
		break;
	case TP_MARK_VICTIM:
		victim_event(tl, r);
		break;
	default:
		break;
	}
	if (r->def->stall != TS_NONE)
		ret = stall_event(tl, r);
	if (r->raw != NULL && (!r->def->high_rate || tl->keep_raw)) {
		json_object_set_new(r->raw, RK_T_MS, json_real(ms(tl, r->ts_ns)));
		if (events != NULL)
			json_array_append(events, r->raw);
		if (emit)
			emit(ctx, "event", r->raw);
	}
	json_decref(r->raw);
	r->raw = NULL;
	return ret;
}

int timeline_feed(struct timeline *tl, struct trace_rec *recs, size_t n, uint64_t horizon_ns,
		  json_t *events, json_t *intervals, timeline_emit_fn emit, void *ctx)
{
	size_t done = 0;
	int ret = 0;

	if (tl->n_pending + n > tl->cap_pending) {
		size_t cap = (tl->n_pending + n) * 2 + 64;
		struct trace_rec *np = realloc(tl->pending, cap * sizeof(*np));

		if (np == NULL) {
			for (size_t i = 0; i < n; i++)
				json_decref(recs[i].raw);
			return -ENOMEM;
		}
		tl->pending = np;
		tl->cap_pending = cap;
	}
	if (n > 0)
		memcpy(tl->pending + tl->n_pending, recs, n * sizeof(*recs));
	tl->n_pending += n;
	if (tl->n_pending > 1)
		qsort(tl->pending, tl->n_pending, sizeof(*tl->pending), cmp_rec);
	while (done < tl->n_pending && tl->pending[done].ts_ns < horizon_ns) {
		int r = process(tl, &tl->pending[done], events, intervals, emit, ctx);

		if (r < 0 && ret == 0)
			ret = r;
		done++;
	}
	if (done > 0 && done < tl->n_pending)
		memmove(tl->pending, tl->pending + done, (tl->n_pending - done) * sizeof(*tl->pending));
	tl->n_pending -= done;
	return ret;
}

void timeline_finish(struct timeline *tl, json_t *intervals, timeline_emit_fn emit, void *ctx)
{
	bin_advance(tl, tl->bin.start + tl->bin_ns, intervals, emit, ctx);
}

bool timeline_kswapd_awake(const struct timeline *tl)
{
	for (int i = 0; i < MAX_NODES; i++)
		if (tl->node[i].awake)
			return true;
	return false;
}

bool timeline_stall_open(const struct timeline *tl)
{
	for (size_t i = 0; i < tl->n_open; i++)
		if (tl->open[i].in_sandbox || tl->open[i].kind == TS_DIRECT)
			return true;
	return false;
}

size_t timeline_pending(const struct timeline *tl)
{
	return tl != NULL ? tl->n_pending : 0;
}

unsigned long long timeline_stalls_done(const struct timeline *tl)
{
	return tl->st[TS_DIRECT].count + tl->st[TS_MEMCG].count;
}

static double quantile(double *sorted, size_t n, double q)
{
	return n ? gsl_stats_quantile_from_sorted_data(sorted, 1, n, q) : 0.0;
}

json_t *timeline_summary(struct timeline *tl, uint64_t end_ns)
{
	json_t *o = json_object(), *ev = json_object(), *ks = json_object(), *stalls = json_object();
	unsigned long long wakes = 0, sleeps = 0, intervals = 0, premature = 0, rewakes = 0;
	double total = 0, longest = 0;
	uint64_t first_stall = 0;

	for (size_t i = 0; i < trace_nr_events; i++)
		if (tl->counts[i])
			json_object_set_new(ev, trace_events[i].name, json_integer((json_int_t)tl->counts[i]));
	for (int i = 0; i < MAX_NODES; i++) {
		struct kswapd_node *n = &tl->node[i];

		if (n->awake) {         /* still awake at the end: closed there */
			double d = (double)(end_ns - n->awake_since) / 1e6;

			n->intervals++;
			n->total_ms += d;
			if (d > n->longest_ms)
				n->longest_ms = d;
			n->awake = false;
		}
		wakes += n->wakes;
		sleeps += n->sleeps;
		intervals += n->intervals;
		premature += n->premature;
		rewakes += n->rewakes;
		total += n->total_ms;
		if (n->longest_ms > longest)
			longest = n->longest_ms;
	}
	json_object_set_new(ks, "wakeups", json_integer((json_int_t)(tl->counts[0])));
	json_object_set_new(ks, "wakes", json_integer((json_int_t)wakes));
	json_object_set_new(ks, "sleeps", json_integer((json_int_t)sleeps));
	json_object_set_new(ks, "awake_intervals", json_integer((json_int_t)intervals));
	json_object_set_new(ks, "awake_total_ms", json_real(total));
	json_object_set_new(ks, "awake_longest_ms", json_real(longest));
	json_object_set_new(ks, "premature_sleeps", json_integer((json_int_t)premature));
	json_object_set_new(ks, "rewakes_without_sleep", json_integer((json_int_t)rewakes));
	for (int k = 0; k < TS_NR; k++) {
		struct stall_stats *s = &tl->st[k];
		json_t *so;

		if (s->n_lat > 1)
			gsl_sort(s->lat_us, 1, s->n_lat);
		so = json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:I, s:I, s:I}", RK_COUNT, (json_int_t)s->count,
			       RK_PAGES, (json_int_t)s->pages, "p50_us", quantile(s->lat_us, s->n_lat, 0.5),
			       "p99_us", quantile(s->lat_us, s->n_lat, 0.99),
			       "max_us", s->max_us, "total_ms", s->total_ms,
			       "other_tasks_count", (json_int_t)s->other_count,
			       "other_tasks_pages", (json_int_t)s->other_pages,
			       "unpaired_ends", (json_int_t)s->unpaired_ends);
		json_object_set_new(so, "first_ms", s->count ? json_real(ms(tl, s->first_ts)) : json_null());
		/* Quantiles over every stall, or over a uniform sample of LAT_KEEP. */
		json_object_set_new(so, "quantiles_of", json_integer((json_int_t)s->n_lat));
		json_object_set_new(stalls, tracedef_stall_name((enum trace_stall)k), so);
		if (k != TS_COMPACTION && s->count && (first_stall == 0 || s->first_ts < first_stall))
			first_stall = s->first_ts;
	}
	{
		unsigned long long still_open = 0;

		for (size_t i = 0; i < tl->n_open; i++)
			still_open += tl->open[i].in_sandbox || tl->open[i].kind == TS_DIRECT;
		json_object_set_new(stalls, "open_at_end", json_integer((json_int_t)still_open));
		json_object_set_new(stalls, "untracked_begins", json_integer((json_int_t)tl->open_dropped));
	}
	json_object_set_new(o, "events", ev);
	json_object_set_new(o, "kswapd", ks);
	json_object_set_new(o, "stalls", stalls);
	json_object_set_new(o, "first_wakeup_kswapd_ms", tl->first_wakeup ? json_real(ms(tl, tl->first_wakeup))
									 : json_null());
	json_object_set_new(o, "wakeup_to_first_stall_ms",
			    tl->first_wakeup && first_stall ? json_real(ms(tl, first_stall) - ms(tl, tl->first_wakeup))
							    : json_null());
	json_object_set(o, RK_OOM_VICTIMS, tl->victims);
	json_object_set(o, "oom_victim_gaps_ms", tl->gaps);
	json_object_set_new(o, "intervals", json_integer((json_int_t)tl->nr_bins));
	{
		json_t *lru = lru_json(tl->lru);

		json_object_set_new(o, "lru", lru != NULL ? lru : json_object());
	}
	json_object_set_new(o, "reclaim_pages", pageout_json(tl->pageout));
	return o;
}
