/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sampler.c — the one event loop of a run (see sampler.h). */
#include "sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "host/knobs.h"
#include "launch/launch.h"
#include "launch/lives.h"
#include "result/keys.h"
#include "sample/audit.h"
#include "sample/outside.h"
#include "sample/sources/source.h"
#include "base/zoneinfo.h"
#include "service.h"

enum { TAG_TIMER = 1, TAG_SIGNAL = 2, TAG_EVENT = 0x100, TAG_PIDFD = 0x200, TAG_TRACE = 0x400, TAG_OUTSIDE = 0x4000 };

struct ctx {
	const struct run_spec *spec;
	struct sandbox *sb;
	const struct sampler_opts *o;
	struct result *res;
	int run_index;
	json_t *run, *steps, *actions;
	struct jw line;                 /* the sample being written (one line, reused) */
	json_t *last_read;              /* the last start/step/end sample, read back from its line */
	unsigned long long last_usage;  /* memory.current at the last sample that read it */
	bool have_usage;
	int epfd, tfd;
	uint64_t t0_ns;
	uint64_t last_walk_ns;          /* the last sample with the step sources */
	struct launch_wl wl[SCN_MAX_WORKLOADS];
	struct launch_command cmds[SCN_MAX_WORKLOADS];  /* the command workloads' plans */
	struct launch_lives lives;      /* their lives (launch/lives.h) */
	struct outside outside[SCN_MAX_ACTIONS];        /* [action] leave: ballasts outside the sandbox */
	/* An outside ballast still filling: the step it was started at, whose
	 * ack (and the workloads waiting for it) waits for its memory. */
	struct outside_wait {
		bool pending, ack;
		size_t wi;
		char step[64];
		json_t *rec, *steprec;
	} owait[SCN_MAX_ACTIONS];
	struct svc *svc;                /* readiness, loads, planned stops (service.h); NULL: none */
	struct source_ctx sctx;         /* what the sources see: sandbox, workloads */
	struct source_set *sources;     /* sources/registry.c's table, opened */
	struct sandbox_counters cg;
	unsigned long long oom_base;    /* oom_kill at the run's start (--sandbox self keeps counting) */
	unsigned long long peak_usage;
	unsigned nr_samples;
	struct lab_error *err;
	/* Tracepoints (trace/trace.h) and adaptive bursts. */
	struct trace *tr;
	json_t *trace_intervals;
	char trace_error[LAB_ERROR_MSG_MAX];
	bool bursting, near_low;
	unsigned cur_interval_ms;
	uint64_t last_full_ns, burst_since;
	unsigned long long nr_burst, burst_windows, stalls_seen;
	double burst_cpu_us, burst_ms;
	double burst_cost_us;           /* a burst sample's CPU, smoothed */
	unsigned burst_eff_ms, burst_eff_max_ms;
	struct lowest {
		int node;
		char zone[16];
		unsigned long long free, low, min, drift;
		double t_ms;
		const char *cause;
	} lowest[8];
	size_t nr_lowest;
	/* The bursts since the last full sample, folded (o->burst_raw unset):
	 * per zone the lowest free and the lines at that moment, and the last. */
	struct fold {
		int node;
		char zone[16];
		unsigned long long free, min, low, high, boost, managed, drift, last_free;
		double t_ms;
	} fold[ZONEINFO_MAX_ZONES];
	size_t nr_fold;
	unsigned long long fold_n, burst_lines;
	double fold_from_ms, fold_to_ms;
	struct jw scratch;              /* a folded burst's text, discarded */
	struct { int pid; bool in; } pidcache[64];
	unsigned pidcache_next;
	int self_pid;                   /* getpid(): a system call, asked once per trace record */
	uint64_t held_since_ns;         /* the oldest line the stream holds */
	/* The sampler's audit of itself (audit.h), and stat_refresh's fd
	 * ([sample] refresh = fold: written before each burst sample). */
	struct sampler_audit audit;
	int refresh_fd;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPU time of this thread (the harness has one): what a sample costs. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double ms_since(const struct ctx *c, uint64_t ns)
{
	return ns >= c->t0_ns ? (double)(ns - c->t0_ns) / 1e6 : 0.0;
}

/* One sample: every source whose cadence is due (sources/source.h).  A
 * plain tick reads only the O(1) sources; a step, the start, the end and a
 * walk tick (every walk_interval_ms) read the page walks too. */
/* A tick that also reads the step sources: walk_interval_ms since the last
 * one (0: only at steps, the start and the end). */
static bool walk_due(const struct ctx *c)
{
	unsigned ms = c->spec->walk_interval_ms;

	return ms > 0 && now_ns() - c->last_walk_ns >= (uint64_t)ms * 1000000ull - (uint64_t)c->o->interval_ms * 500000ull;
}

/* What the bursts need from a sample's zones (sources/zones.c), full or
 * slim: the run's lowest free per zone (summary) and the burst trigger — a
 * zone within burst_margin_pct of its low-high gap above its low line. */
static void note_zones(struct ctx *c, const struct zoneinfo *zi, const char *cause, double t_ms)
{
	unsigned pct = c->o ? c->o->burst_margin_pct : 0;

	c->near_low = false;
	for (size_t i = 0; zi != NULL && i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		unsigned long long free_p = z->free, min = z->min, low = z->low, high = z->high;
		size_t k;

		if (z->present == 0)    /* not in a sample either (sources/zones.c) */
			continue;
		if (z->managed > 0 && high > low && free_p <= low + (high - low) * pct / 100)
			c->near_low = true;
		for (k = 0; k < c->nr_lowest; k++)
			if (c->lowest[k].node == z->node && !strcmp(c->lowest[k].zone, z->name))
				break;
		if (k == c->nr_lowest && k < sizeof(c->lowest) / sizeof(c->lowest[0])) {
			c->nr_lowest++;
			c->lowest[k].node = z->node;
			snprintf(c->lowest[k].zone, sizeof(c->lowest[k].zone), "%s", z->name);
			c->lowest[k].free = ~0ull;
		}
		if (k < c->nr_lowest && z->managed > 0 && free_p < c->lowest[k].free) {
			c->lowest[k].free = free_p;
			c->lowest[k].low = low;
			c->lowest[k].min = min;
			c->lowest[k].drift = z->drift;
			c->lowest[k].t_ms = t_ms;
			c->lowest[k].cause = cause;
		}
	}
}

static void emit_stream(void *ctx, const char *type, json_t *obj)
{
	struct ctx *c = ctx;

	result_stream(c->res, type, c->run_index, obj);
}

/* Records the buffers hold, into the timeline (events streamed as they come). */
static void trace_pull(struct ctx *c, bool final)
{
	struct lab_error e;

	if (c->tr == NULL)
		return;
	if (trace_drain(c->tr, final, NULL, c->trace_intervals, emit_stream, c, &e) < 0 &&
	    !c->trace_error[0])
		snprintf(c->trace_error, sizeof(c->trace_error), "%s", e.msg);
}

/* Progress a person can follow: one status line rewritten in place at most
 * twice a second — the run, its time, the sandbox's memory and the last
 * workload step — into the terminal the caller gives (o->status: it decides
 * when there is one), erased when the run ends, so the phase lines stay as
 * they are. */
static void progress_line(struct ctx *c, bool done)
{
	static uint64_t last_ns;
	FILE *f = c->o->status;
	const json_t *st;
	uint64_t now = now_ns();
	char step[80] = "";

	if (f == NULL)
		return;
	if (done) {
		if (last_ns != 0)
			fputs("\r\033[K", f);
		last_ns = 0;
		return;
	}
	if (last_ns != 0 && now - last_ns < 500000000ull)
		return;
	last_ns = now;
	st = json_array_get(c->steps, json_array_size(c->steps) ? json_array_size(c->steps) - 1 : 0);
	if (st != NULL && json_is_string(json_object_get(st, "workload")) && json_is_string(json_object_get(st, "step")))
		snprintf(step, sizeof(step), " · %s: %s", json_string_value(json_object_get(st, "workload")),
			 json_string_value(json_object_get(st, "step")));
	fprintf(f, "\r\033[Kpagelab:   run %s: %.1f s · memory.current %lld MiB%s", c->spec->label,
		ms_since(c, now) / 1000.0, c->have_usage ? (long long)(c->last_usage >> 20) : -1LL,
		step);
}

/* A sample line's start: {"type":"sample","run":N,"t_ms":T,"cause":C —
 * the stream's line; the document's sample is the same without its first
 * two members (result.h: result_samples_here). */
static void line_head(struct ctx *c)
{
	struct jw *w = &c->line;

	jw_reset(w);
	jw_obj(w);
	jw_key_lit(w, "type");
	jw_str(w, "sample");
	jw_key_lit(w, "run");
	jw_i64(w, c->run_index);
	jw_key(w, RK_T_MS);
}

static void line_begin(struct ctx *c, double t, const char *cause)
{
	line_head(c);
	jw_real(&c->line, t);
	jw_key_lit(&c->line, "cause");
	jw_str(&c->line, cause);
}

/* The same for a sample read at CLOCK_MONOTONIC ns: its t_ms is ms_since(c,
 * ns) printed without printf (jw_fixed: the same double). */
static void line_begin_at(struct ctx *c, uint64_t ns, const char *cause)
{
	line_head(c);
	jw_fixed(&c->line, ns >= c->t0_ns ? ns - c->t0_ns : 0, 6);
	jw_key_lit(&c->line, "cause");
	jw_str(&c->line, cause);
}

/* The line's end and its one write — or, for a periodic line (a tick, a
 * walk, the bursts folded before one), held with the others since the last
 * flush and written with them once [sample] flush_ms has passed: at 250 ms
 * every write to the file system is a cold one, and costs as much as
 * parsing the line did.  Anything else written to the stream (a step, an
 * event, the end) writes the held lines first. */
static void line_end(struct ctx *c, bool periodic)
{
	jw_obj_end(&c->line);
	jw_raw(&c->line, "\n", 1);
	c->nr_samples++;
	if (c->line.oom)
		return;
	if (!periodic || c->spec->flush_ms == 0) {
		result_stream_text(c->res, c->line.data, c->line.len);
		return;
	}
	if (result_stream_held(c->res) == 0)
		c->held_since_ns = now_ns();
	result_stream_hold(c->res, c->line.data, c->line.len);
	/* Half an interval early: the line due at flush_ms goes with them. */
	if (now_ns() - c->held_since_ns + (uint64_t)c->o->interval_ms * 500000ull >=
	    (uint64_t)c->spec->flush_ms * 1000000ull)
		result_stream_flush(c->res);
}

/* One burst reading into the fold: per zone the lowest free and when. */
static void fold_zones(struct ctx *c, const struct zoneinfo *zi, double t)
{
	for (size_t i = 0; zi != NULL && i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		struct fold *f = NULL;

		if (z->present == 0)
			continue;
		for (size_t k = 0; k < c->nr_fold; k++)
			if (c->fold[k].node == z->node && !strcmp(c->fold[k].zone, z->name))
				f = &c->fold[k];
		if (f == NULL) {
			if (c->nr_fold == sizeof(c->fold) / sizeof(c->fold[0]))
				continue;
			f = &c->fold[c->nr_fold++];
			f->node = z->node;
			snprintf(f->zone, sizeof(f->zone), "%s", z->name);
			f->free = ~0ull;
		}
		if (z->free < f->free) {
			f->free = z->free;
			f->min = z->min;
			f->low = z->low;
			f->high = z->high;
			f->boost = z->boost;
			f->managed = z->managed;
			f->drift = z->drift;
			f->t_ms = t;
		}
		f->last_free = z->free;
	}
	if (c->fold_n++ == 0)
		c->fold_from_ms = t;
	c->fold_to_ms = t;
}

/* The folded bursts as one line, before the next full sample:
 * {"t_ms" (the lowest zone's, nearest its low line), "cause": "burst",
 *  "bursts": n, "from_ms", "to_ms", "zones": [{node, zone, free (the
 *  lowest), min, low, high, boost, managed (at that moment), "t_ms" (its
 *  moment), "last_free"}]}. */
static void fold_flush(struct ctx *c)
{
	struct jw *w = &c->line;
	const struct fold *deep = NULL;

	if (c->fold_n == 0)
		return;
	for (size_t k = 0; k < c->nr_fold; k++) {
		const struct fold *f = &c->fold[k];

		if (f->free != ~0ull && f->managed > 0 &&
		    (deep == NULL || (double)f->free - (double)f->low < (double)deep->free - (double)deep->low))
			deep = f;
	}
	line_begin(c, deep != NULL ? deep->t_ms : c->fold_to_ms, "burst");
	jw_key_lit(w, "bursts");
	jw_u64(w, c->fold_n);
	jw_key_lit(w, "from_ms");
	jw_real(w, c->fold_from_ms);
	jw_key_lit(w, "to_ms");
	jw_real(w, c->fold_to_ms);
	jw_key_lit(w, "zones");
	jw_arr(w);
	for (size_t k = 0; k < c->nr_fold; k++) {
		const struct fold *f = &c->fold[k];

		if (f->free == ~0ull)
			continue;
		jw_obj(w);
		jw_key_lit(w, "node");
		jw_i64(w, f->node);
		jw_key_lit(w, "zone");
		jw_str(w, f->zone);
		jw_key_lit(w, "free");
		jw_u64(w, f->free);
		jw_key_lit(w, "min");
		jw_u64(w, f->min);
		jw_key_lit(w, "low");
		jw_u64(w, f->low);
		jw_key_lit(w, "high");
		jw_u64(w, f->high);
		jw_key_lit(w, "boost");
		jw_u64(w, f->boost);
		jw_key_lit(w, "managed");
		jw_u64(w, f->managed);
		jw_key_lit(w, "drift");
		jw_u64(w, f->drift);
		jw_key(w, RK_T_MS);
		jw_real(w, f->t_ms);
		jw_key_lit(w, "last_free");
		jw_u64(w, f->last_free);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	line_end(c, true);
	c->burst_lines++;
	c->fold_n = 0;
	c->nr_fold = 0;
}

/* [sample] refresh = fold: fold every CPU's pending counter deltas into
 * the global ones before a burst sample reads them, by a write to
 * /proc/sys/vm/stat_refresh (mm/vmstat.c: vmstat_refresh runs
 * refresh_cpu_vm_stats on each CPU and waits for all: the cost is measured,
 * summary.audit.refresh).  Nothing is changed that needs putting back. */
static void refresh_fold(struct ctx *c)
{
	uint64_t t0;

	if (c->refresh_fd < 0)
		return;
	t0 = now_ns();
	if (pwrite(c->refresh_fd, "1\n", 2, 0) != 2) {
		c->audit.refresh_errors++;
		c->audit.refresh_errno = errno;
		return;
	}
	lab_hist_stage_add(&c->audit.stage, &c->audit.refresh_ns, now_ns() - t0);
}

/* A burst sample: the time, the zones' free pages and lines, nothing else;
 * a line of its own (burst_raw) or folded until the next full sample. */
static void take_burst(struct ctx *c)
{
	uint64_t cpu0 = thread_cpu_ns(), wall0 = now_ns();
	double t = ms_since(c, wall0);

	trace_pull(c, false);
	refresh_fold(c);
	c->sctx.burst = true;           /* the burst sources in their slim form */
	c->sctx.at_step = false;
	if (c->o->burst_raw) {
		line_begin_at(c, wall0, "burst");
		source_set_emit(c->sources, SOURCE_BURST, &c->line);
		note_zones(c, c->sctx.facts.zones, "burst", t);
		line_end(c, true);
		c->burst_lines++;
	} else {
		jw_reset(&c->scratch);
		jw_obj(&c->scratch);
		source_set_emit(c->sources, SOURCE_BURST, &c->scratch);
		note_zones(c, c->sctx.facts.zones, "burst", t);
		fold_zones(c, c->sctx.facts.zones, t);
	}
	c->nr_burst++;
	{
		uint64_t ns = thread_cpu_ns() - cpu0;
		double us = (double)ns / 1e3;

		lab_hist_stage_add(&c->audit.stage, &c->audit.burst_cpu_ns, ns);
		c->burst_cpu_us += us;
		c->burst_cost_us = c->burst_cost_us > 0 ? 0.8 * c->burst_cost_us + 0.2 * us : us;
	}
}

/* A full sample, written as one line.  Returns the sample read back from
 * its line (borrowed, valid until the next such sample) for a start, a step
 * and the end — what steps[] and the summary take from it — and NULL for a
 * tick or a walk, which nothing reads back. */
static const json_t *take_sample(struct ctx *c, const char *cause)
{
	uint64_t cpu0, wall0;
	double t;
	unsigned cadences = SOURCE_TICK;
	bool tick = strcmp(cause, "tick") == 0, walk = strcmp(cause, "walk") == 0;
	struct jw *w = &c->line;

	fold_flush(c);          /* the bursts before it come first */
	trace_pull(c, false);   /* the events so far: not this sample's cost */
	cpu0 = thread_cpu_ns();
	wall0 = now_ns();
	t = ms_since(c, wall0);
	if (!tick) {
		cadences |= SOURCE_STEP;
		c->last_walk_ns = wall0;
	}
	c->sctx.at_step = !tick && !walk;
	c->sctx.burst = false;
	line_begin_at(c, wall0, cause);
	c->sctx.sample = c->nr_samples;
	source_set_emit(c->sources, cadences, w);
	note_zones(c, c->sctx.facts.zones, cause, t);
	if (c->sctx.facts.have_usage) {
		c->have_usage = true;
		c->last_usage = c->sctx.facts.usage_bytes;
		if (c->last_usage > c->peak_usage)
			c->peak_usage = c->last_usage;
		if (c->sctx.facts.have_stat_sum)
			audit_lag(&c->audit, t, c->last_usage, c->sctx.facts.stat_sum_bytes);
	}
	/* What this sample cost the harness (scripts/bench): reading, parsing
	 * and formatting the line, all but these last bytes and the write(2);
	 * not the trace drain before it (the harness's schedstat has all). */
	jw_key_lit(w, "cost_us");
	jw_obj(w);
	jw_key_lit(w, "cpu");
	{
		uint64_t cpu = thread_cpu_ns() - cpu0;

		jw_fixed(w, cpu, 3);                    /* µs: ns / 1e3 */
		if (tick)
			lab_hist_stage_add(&c->audit.stage, &c->audit.tick_cpu_ns, cpu);
	}
	jw_key_lit(w, "wall");
	jw_fixed(w, now_ns() - wall0, 3);
	jw_obj_end(w);
	line_end(c, tick || walk);
	c->last_full_ns = wall0;
	if (tick || walk)
		return NULL;
	/* Rare (a step, the start, the end): read the line back. */
	{
		json_error_t je;
		json_t *s = json_loadb(w->data, w->len, 0, &je);

		if (s != NULL) {
			json_object_del(s, "type");
			json_object_del(s, "run");
		}
		json_decref(c->last_read);
		c->last_read = s;
	}
	return c->last_read;
}

static void set_timer(struct ctx *c, unsigned ms)
{
	struct itimerspec its;

	if (ms == c->cur_interval_ms)
		return;
	its.it_interval.tv_sec = ms / 1000;
	its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(c->tfd, 0, &its, NULL) == 0)
		c->cur_interval_ms = ms;
}

/* After each sample: burst while the trough may be near, tick otherwise.
 * A memcg stall lasts tens of µs, so "open" is rarely caught at a sample:
 * a stall closed since the last sample counts as one. */
static void burst_decide(struct ctx *c)
{
	unsigned long long done = trace_stalls_done(c->tr);
	bool want = c->o->burst_ms > 0 && c->o->burst_ms < c->o->interval_ms &&
		    (c->o->burst_always || c->near_low || trace_kswapd_awake(c->tr) || trace_stall_open(c->tr) ||
		     done != c->stalls_seen);
	uint64_t now = now_ns();

	c->stalls_seen = done;
	/* A burst costs at most 5 % of a CPU: where a burst sample costs more
	 * than 5 % of the interval (a TCG guest: ~1 ms), the interval
	 * stretches to 20 samples' cost. */
	unsigned eff = c->o->burst_ms;

	if (c->burst_cost_us * 20 / 1000 > eff)
		eff = (unsigned)(c->burst_cost_us * 20 / 1000) + 1;
	if (eff > c->o->interval_ms / 2)
		eff = c->o->interval_ms / 2;
	if (want && c->bursting && eff != c->burst_eff_ms) {
		c->burst_eff_ms = eff;
		if (eff > c->burst_eff_max_ms)
			c->burst_eff_max_ms = eff;
		set_timer(c, eff);
	}
	if (want == c->bursting)
		return;
	c->bursting = want;
	if (want) {
		c->burst_since = now;
		c->burst_windows++;
		c->burst_eff_ms = eff;
		if (eff > c->burst_eff_max_ms)
			c->burst_eff_max_ms = eff;
	} else {
		c->burst_ms += (double)(now - c->burst_since) / 1e6;
	}
	set_timer(c, want ? eff : c->o->interval_ms);
}

/* Whether pid is a task of the sandbox: a workload, or a process whose
 * memory cgroup is the sandbox's (cached: a run sees few tasks). */
static bool pid_in_sandbox(void *ctx, int pid)
{
	struct ctx *c = ctx;
	char cg[PATH_MAX];
	const char *sp;
	size_t n, m, slot;
	struct lab_error e;
	bool in = false;

	if (pid <= 0)
		return false;
	for (size_t i = 0; i < c->spec->nr_workloads; i++)
		if (c->wl[i].launched && c->wl[i].proc.pid == pid)
			return true;
	/* --sandbox self: the harness is in the sandbox too, and its own
	 * allocations reclaim there.  In a container its cgroup is the mount's
	 * root, "/", which the suffix test below cannot tell from any other. */
	if (pid == c->self_pid && sandbox_is_self(c->sb))
		return true;
	for (size_t i = 0; i < sizeof(c->pidcache) / sizeof(c->pidcache[0]); i++)
		if (c->pidcache[i].pid == pid)
			return c->pidcache[i].in;
	sp = sandbox_path(c->sb);
	if (sp != NULL && sandbox_cgroup_of(pid, sandbox_version(c->sb), cg, sizeof(cg), &e) == 0) {
		n = strlen(sp);
		m = strlen(cg);
		in = m > 1 && m <= n && !strcmp(sp + n - m, cg);
	}
	slot = c->pidcache_next++ % (sizeof(c->pidcache) / sizeof(c->pidcache[0]));
	c->pidcache[slot].pid = pid;
	c->pidcache[slot].in = in;
	return in;
}

json_t *sampler_probe_once(struct lab_error *err)
{
	struct source_ctx sctx = { 0 };
	struct source_set *set;
	json_t *s;

	if (source_set_open(&sctx, &set, err) < 0)
		return NULL;
	s = json_object();
	source_set_sample(set, SOURCE_TICK | SOURCE_STEP, s);
	source_set_close(set);
	return s;
}

/* ------------------------------------------------------------------------ */

static int watch(struct ctx *c, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	if (epoll_ctl(c->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return lab_error_errno(c->err, errno, "epoll_ctl");
	return 0;
}

/* A workload started (launch/lives.c), then what the loop needs of it: its
 * record in runs[].workloads and the stream, its fds watched. */
static int start_workload(struct ctx *c, size_t i)
{
	struct launch_wl *x = &c->wl[i];
	int ret;

	ret = launch_start(&c->lives, i, c->err);
	if (ret < 0)
		return ret;
	c->sctx.procs[i].name = x->name;
	c->sctx.procs[i].pid = x->proc.pid;
	c->sctx.procs[i].running = true;
	c->sctx.procs[i].command = x->cmd != NULL;
	json_array_append(json_object_get(c->run, RK_WORKLOADS), x->info);
	result_stream(c->res, "workload", c->run_index, x->info);
	ret = x->proc.event_fd >= 0 ? watch(c, x->proc.event_fd, TAG_EVENT | i) : 0;
	if (ret == 0)
		ret = watch(c, x->proc.pidfd, TAG_PIDFD | i);
	if (ret == 0 && x->cmd != NULL)
		ret = svc_started(c->svc, i);
	if (c->o->verbose)
		lab_say(c->o->progress, LAB_SAY_DETAIL, "  %s started (pid %d)", x->name, (int)x->proc.pid);
	return ret;
}

static int release_after(struct ctx *c, size_t wi, const char *step);

/* The step's ack: the workload goes on to its next step. */
static void ack_step(struct launch_wl *x)
{
	if (x->proc.ack_fd >= 0 && write(x->proc.ack_fd, "k", 1) != 1) {
		/* It died meanwhile: its pidfd will tell. */
	}
}

/* The outside ballast's record complete (it holds its memory, or failed):
 * into the actions and the step's record, streamed; then the step's ack
 * and the workloads waiting for it (release_after), when they waited. */
static int outside_finish(struct ctx *c, size_t a, int ret, const char *msg)
{
	const struct run_action *ra = &c->spec->actions[a];
	struct outside_wait *w = &c->owait[a];
	struct launch_wl *x = &c->wl[w->wi];

	w->pending = false;
	json_object_set_new(w->rec, "after_step", json_string(w->step));
	json_object_set_new(w->rec, "t_ms", json_real(ms_since(c, now_ns())));
	json_array_append(c->actions, w->rec);
	json_object_set(w->steprec, "action", w->rec);
	result_stream(c->res, "action", c->run_index, w->rec);
	json_decref(w->rec);
	json_decref(w->steprec);
	w->rec = w->steprec = NULL;
	progress_line(c, true);
	lab_say(c->o->progress, ret >= 0 ? LAB_SAY_DETAIL : LAB_SAY_WARN, "  action %s: outside ballast leaving %llu bytes: %s",
		ra->name, ra->leave_bytes, ret >= 0 ? "ok" : msg);
	if (!w->ack)
		return 0;
	if ((ret = release_after(c, w->wi, w->step)) < 0)
		return ret;
	ack_step(x);
	return 0;
}

/* The ballast's pipe is ready, or a tick looks at its deadline. */
static int outside_ready(struct ctx *c, size_t a)
{
	struct lab_error e;
	int ret;

	if (!c->owait[a].pending)
		return 0;
	ret = outside_poll(&c->outside[a], c->owait[a].rec, &e);
	if (ret == 0)
		return 0;
	return outside_finish(c, a, ret, e.msg);
}

/* [action] leave = SIZE: the outside ballast (sample/outside.h), started at
 * the step, before its ack.  In the loop (ack true: a workload's own step)
 * the ack waits and the sampling goes on: true is returned, and
 * outside_finish acks.  Otherwise (a step the harness saw) it is waited for
 * here. */
static bool do_outside(struct ctx *c, size_t a, size_t wi, const char *step, json_t *steprec, bool ack)
{
	const struct run_action *ra = &c->spec->actions[a];
	struct outside_wait *w = &c->owait[a];
	struct outside *o = &c->outside[a];
	struct lab_error e;
	int ret;

	w->rec = json_pack("{s:s, s:s}", "action", "outside", "name", ra->name);
	w->steprec = json_incref(steprec);
	w->wi = wi;
	w->ack = false;
	w->pending = true;
	snprintf(w->step, sizeof(w->step), "%s", step);
	ret = outside_begin(c->o->bindir, ra->leave_bytes, o, w->rec, &e);
	if (ret == 0 && ack && watch(c, o->fd, TAG_OUTSIDE | a) == 0) {
		w->ack = true;
		return true;
	}
	while (ret == 0 && (ret = outside_poll(o, w->rec, &e)) == 0) {
		struct pollfd p = { .fd = o->fd, .events = POLLIN };

		(void)poll(&p, 1, 100);
	}
	(void)outside_finish(c, a, ret, e.msg);
	return false;
}

/* The actions at workload wi's step.  True: an outside ballast is filling
 * and will ack the step (ack: the caller would ack it). */
static bool do_actions(struct ctx *c, size_t wi, const char *step, json_t *steprec, bool ack)
{
	bool held = false;

	for (size_t a = 0; a < c->spec->nr_actions; a++) {
		const struct run_action *ra = &c->spec->actions[a];
		struct lab_error e;
		unsigned long long before = 0;
		json_t *rec;
		int ret;

		if (ra->workload != (int)wi || strcmp(ra->step, step) != 0)
			continue;
		if (ra->leave_bytes) {
			held |= do_outside(c, a, wi, step, steprec, ack && !held);
			continue;
		}
		if (sandbox_read(c->sb, &c->cg, &e) == 0)
			before = c->cg.usage_bytes;
		ret = sandbox_reclaim(c->sb, ra->reclaim_bytes, &e);
		rec = json_pack("{s:s, s:s, s:I, s:s, s:I}", "action", "reclaim", "name", ra->name,
				"bytes", (json_int_t)ra->reclaim_bytes,
				"result", ret == 0 ? "ok" : ret == -EAGAIN ? "EAGAIN" : "error",
				"usage_before_bytes", (json_int_t)before);
		if (ret < 0 && ret != -EAGAIN)
			json_object_set_new(rec, "error", json_string(e.msg));
		if (sandbox_read(c->sb, &c->cg, &e) == 0)
			json_object_set_new(rec, "usage_after_bytes", json_integer((json_int_t)c->cg.usage_bytes));
		json_object_set_new(rec, "after_step", json_string(step));
		json_object_set_new(rec, "t_ms", json_real(ms_since(c, now_ns())));
		json_array_append(c->actions, rec);
		json_object_set(steprec, "action", rec);
		result_stream(c->res, "action", c->run_index, rec);
		json_decref(rec);
		if (c->o->verbose)
			lab_say(c->o->progress, LAB_SAY_DETAIL, "  action %s: reclaim %llu bytes: %s", ra->name,
				ra->reclaim_bytes, ret == 0 ? "ok" : ret == -EAGAIN ? "EAGAIN" : e.msg);
	}
	return held;
}

/* The region a workload's start event names (workloads/region.c:
 * region_start, region_end, page_size), for the pagemap source. */
static void note_region(struct source_proc *p, const json_t *ev)
{
	json_t *a = json_object_get(ev, "region_start"), *b = json_object_get(ev, "region_end");
	json_t *ps = json_object_get(ev, "page_size");

	if (json_is_integer(a) && json_is_integer(b) && json_is_integer(ps) &&
	    json_integer_value(b) > json_integer_value(a) && json_integer_value(ps) > 0) {
		p->region_start = (unsigned long)json_integer_value(a);
		p->region_end = (unsigned long)json_integer_value(b);
		p->page_size = (size_t)json_integer_value(ps);
	}
}

/* The workloads waiting for workload wi's step start now. */
static int release_after(struct ctx *c, size_t wi, const char *step)
{
	for (size_t j = 0; j < c->spec->nr_workloads; j++) {
		const struct run_workload *w = &c->spec->workloads[j];
		int ret;

		if (!c->wl[j].launched && w->start_after == (int)wi && !strcmp(w->start_step, step) &&
		    (ret = start_workload(c, j)) < 0)
			return ret;
	}
	return 0;
}

/* A step the harness saw rather than the workload said (a command's
 * "ready", a load's end: service.h), recorded as a workload's step is: its
 * forced sample, the step sources, the actions at it. */
static void synthetic_step(void *ctx, size_t wi, const char *step, const char *arg, json_t *extra)
{
	struct ctx *c = ctx;
	struct launch_wl *x = &c->wl[wi];
	json_t *rec = json_object();
	const json_t *smp;
	char mk[96];

	x->steps_done++;
	json_object_set_new(rec, RK_WORKLOAD, json_string(x->name));
	json_object_set_new(rec, RK_SEQ, json_integer(x->steps_done));
	json_object_set_new(rec, RK_STEP, json_string(step));
	json_object_set_new(rec, RK_ARG, arg ? json_string(arg) : json_null());
	json_object_set_new(rec, RK_T_MS, json_real(ms_since(c, now_ns())));
	json_object_set_new(rec, RK_COUNTERS, json_object());
	if (extra != NULL) {
		json_object_update(rec, extra);
		json_decref(extra);
	}
	snprintf(mk, sizeof(mk), "step %s %s", x->name, step);
	trace_marker(c->tr, mk);
	smp = take_sample(c, "step");
	for (size_t k = 0; source_table[k] != NULL; k++) {
		const json_t *v = json_object_get(smp, source_table[k]->name);

		if (source_table[k]->in_steps && v != NULL)
			json_object_set(rec, source_table[k]->name, (json_t *)v);
	}
	{
		/* A command says nothing of itself: its counters are what its
		 * processes' smaps_rollup summed to at this sample (as a
		 * built-in's own "rollup"), without the per-process list. */
		json_t *ro = json_deep_copy(json_object_get(json_object_get(smp, "workloads"), x->name));

		if (ro != NULL) {
			json_object_del(ro, "procs");
			json_object_set_new(json_object_get(rec, RK_COUNTERS), "rollup", ro);
		}
	}
	json_object_set_new(rec, RK_SAMPLE, json_integer((json_int_t)c->nr_samples - 1));
	(void)do_actions(c, wi, step, rec, false);
	json_array_append(c->steps, rec);
	result_stream(c->res, "step", c->run_index, rec);
	json_decref(rec);
	if (c->o->verbose)
		lab_say(c->o->progress, LAB_SAY_DETAIL, "  %s: step %s%s%s", x->name, step, arg ? " " : "", arg ? arg : "");
}

static int svc_release(void *ctx, size_t wi, const char *step)
{
	return release_after(ctx, wi, step);
}

static int svc_watch(void *ctx, int fd, uint64_t tag)
{
	return watch(ctx, fd, tag);
}

static void svc_unwatch(void *ctx, int fd)
{
	struct ctx *c = ctx;

	epoll_ctl(c->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static int handle_line(struct ctx *c, size_t wi, const char *line)
{
	struct launch_wl *x = &c->wl[wi];
	json_error_t je;
	json_t *ev = json_loads(line, 0, &je);
	const char *type;

	if (ev == NULL || !json_is_object(ev)) {
		json_decref(ev);
		snprintf(x->error, sizeof(x->error), "unreadable event line: %.120s", line);
		return 0;
	}
	type = json_string_value(json_object_get(ev, "event"));
	if (type == NULL) {
		json_decref(ev);
		return 0;
	}
	if (!strcmp(type, "start")) {
		json_object_set(x->info, "facts", ev);
		x->proc.started = true;
		note_region(&c->sctx.procs[wi], ev);
	} else if (!strcmp(type, "procs")) {
		/* Processes the workload forked for a step, before they allocate:
		 * exit.workloads[].procs, where the OOM victims are looked up. */
		json_t *pids = json_object_get(ev, "pids"), *all = json_object_get(x->info, "procs");
		size_t k;
		json_t *pid;

		if (all == NULL) {
			all = json_array();
			json_object_set_new(x->info, "procs", all);
		}
		json_array_foreach(pids, k, pid)
			if (json_is_integer(pid) && json_integer_value(pid) > 0 && json_array_size(all) < 1024)
				json_array_append(all, pid);
	} else if (!strcmp(type, "tally")) {
		/* A workload's last counts, written as it was stopped (no ack):
		 * runs[].workloads[].tally. */
		json_object_del(ev, "event");
		json_object_set(x->info, RK_TALLY, ev);
	} else if (!strcmp(type, "error")) {
		const char *m = json_string_value(json_object_get(ev, "msg"));

		snprintf(x->error, sizeof(x->error), "%s", m ? m : "error");
		json_object_set_new(x->info, "error", json_string(x->error));
	} else if (!strcmp(type, "step")) {
		const char *step = json_string_value(json_object_get(ev, "step"));
		json_t *arg = json_object_get(ev, "arg");
		json_t *tns = json_object_get(ev, "t_ns");
		json_t *rec = json_object(), *counters = json_deep_copy(ev);
		const json_t *smp;
		char stepname[32];
		bool held;

		snprintf(stepname, sizeof(stepname), "%s", step ? step : "?");
		x->steps_done++;
		json_object_del(counters, "event");
		json_object_del(counters, "seq");
		json_object_del(counters, "step");
		json_object_del(counters, "arg");
		json_object_del(counters, "t_ns");
		json_object_set_new(rec, RK_WORKLOAD, json_string(x->name));
		json_object_set(rec, RK_SEQ, json_object_get(ev, RK_SEQ));
		json_object_set_new(rec, RK_STEP, json_string(stepname));
		json_object_set(rec, RK_ARG, arg ? arg : json_null());
		json_object_set_new(rec, RK_T_MS, json_real(json_is_integer(tns)
			? ms_since(c, (uint64_t)json_integer_value(tns)) : ms_since(c, now_ns())));
		json_object_set_new(rec, RK_COUNTERS, counters);
		{
			char mk[96];

			snprintf(mk, sizeof(mk), "step %s %s", x->name, stepname);
			trace_marker(c->tr, mk);
		}
		smp = take_sample(c, "step");
		for (size_t k = 0; source_table[k] != NULL; k++) {
			const struct source *src = source_table[k];
			json_t *v = json_object_get(smp, src->name);

			if (src->in_steps && v != NULL)
				json_object_set(rec, src->name, v);
		}
		json_object_set_new(rec, RK_SAMPLE, json_integer((json_int_t)c->nr_samples - 1));
		held = do_actions(c, wi, stepname, rec, true);
		json_array_append(c->steps, rec);
		result_stream(c->res, "step", c->run_index, rec);
		json_decref(rec);
		if (c->o->verbose)
			lab_say(c->o->progress, LAB_SAY_DETAIL, "  %s: step %s%s%s", x->name, stepname,
				json_is_string(arg) ? " " : "", json_is_string(arg) ? json_string_value(arg) : "");
		/* Workloads waiting for this step start now, before the ack; both
		 * wait for an outside ballast that is still filling (outside_finish). */
		if (!held) {
			int ret = release_after(c, wi, stepname);

			if (ret < 0) {
				json_decref(ev);
				return ret;
			}
			ack_step(x);
		}
	}
	json_decref(ev);
	return 0;
}

/* Read what the workload wrote; hand complete lines on. */
static int drain_events(struct ctx *c, size_t wi)
{
	struct workload_proc *p = &c->wl[wi].proc;

	while (p->event_fd >= 0) {
		char chunk[4096];
		ssize_t n = read(p->event_fd, chunk, sizeof(chunk));
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			epoll_ctl(c->epfd, EPOLL_CTL_DEL, p->event_fd, NULL);
			close(p->event_fd);
			p->event_fd = -1;
			return 0;
		}
		if (p->len + (size_t)n + 1 > p->cap) {
			size_t cap = (p->len + (size_t)n + 1) * 2;
			char *nb = realloc(p->buf, cap);

			if (nb == NULL)
				return lab_error_errno(c->err, ENOMEM, "event buffer");
			p->buf = nb;
			p->cap = cap;
		}
		memcpy(p->buf + p->len, chunk, (size_t)n);
		p->len += (size_t)n;
		p->buf[p->len] = '\0';
		while ((nl = memchr(p->buf, '\n', p->len)) != NULL) {
			size_t ll = (size_t)(nl - p->buf);
			int ret;

			*nl = '\0';
			ret = handle_line(c, wi, p->buf);
			memmove(p->buf, nl + 1, p->len - ll - 1);
			p->len -= ll + 1;
			p->buf[p->len] = '\0';
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* launch/lives.h's hooks: a workload ended (its last events read, its
 * pidfd no longer watched), then its fate was recorded. */
static void wl_ended(void *ctx, size_t i)
{
	struct ctx *c = ctx;

	if (c->wl[i].proc.pidfd >= 0)
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, c->wl[i].proc.pidfd, NULL);
	if (c->svc != NULL)
		svc_ended(c->svc, i);
	drain_events(c, i);
	c->sctx.procs[i].running = false;
}

static void wl_ready(void *ctx, size_t i)
{
	struct ctx *c = ctx;

	if (c->svc != NULL)
		svc_ready(c->svc, i);
}

static void wl_recorded(void *ctx, size_t i, const char *fate, bool oom)
{
	struct ctx *c = ctx;

	if (c->o->verbose || oom) {
		progress_line(c, true);
		lab_say(c->o->progress, LAB_SAY_PHASE, "  %s (pid %d) ended: %s", c->wl[i].name,
			(int)c->wl[i].proc.pid, fate);
	}
}

/* The run's derived figures: the lowest free page count per zone and how it
 * was sampled, the bursts, and what the tracepoints add up to, with the
 * counters they stand beside (kswapd_{low,high}_wmark_hit_quickly). */
static void run_summary_extra(struct ctx *c, json_t *sum)
{
	json_t *lw = json_array();
	json_t *vm = NULL;

	/* The counters at the end: the last full sample's (the "end" one). */
	vm = json_object_get(c->last_read, "vmstat_delta");
	vm = vm != NULL ? json_incref(vm) : json_object();

	for (size_t k = 0; k < c->nr_lowest; k++) {
		const struct lowest *l = &c->lowest[k];

		if (l->free == ~0ull)
			continue;
		json_array_append_new(lw, json_pack("{s:i, s:s, s:I, s:I, s:I, s:f, s:s, s:I, s:I, s:s, s:I, s:s}",
						    "node", l->node, "zone", l->zone, "free_pages", (json_int_t)l->free,
						    "low_pages", (json_int_t)l->low, "min_pages", (json_int_t)l->min,
						    "t_ms", l->t_ms, "sampled_by", l->cause,
						    "drift_pages", (json_int_t)l->drift,
						    "min_margin_pages", (json_int_t)l->free - (json_int_t)l->min,
						    "min_crossing", zone_crossing(l->free, l->min, l->drift),
						    "low_margin_pages", (json_int_t)l->free - (json_int_t)l->low,
						    "low_crossing", zone_crossing(l->free, l->low, l->drift)));
	}
	json_object_set_new(sum, "lowest_free", lw);
	if (c->bursting)
		c->burst_ms += (double)(now_ns() - c->burst_since) / 1e6;
	json_object_set_new(sum, "bursts",
			    json_pack("{s:i, s:i, s:i, s:I, s:I, s:I, s:b, s:f, s:f, s:f}", "interval_ms", (int)c->o->burst_ms,
				      "stretched_to_ms", (int)c->burst_eff_max_ms,
				      "margin_pct", (int)c->o->burst_margin_pct, "windows",
				      (json_int_t)c->burst_windows, "samples", (json_int_t)c->nr_burst,
				      "lines", (json_int_t)c->burst_lines, "raw", c->o->burst_raw,
				      "ms", c->burst_ms, "cpu_us", c->burst_cpu_us,
				      "cpu_us_per_sample", c->nr_burst ? c->burst_cpu_us / (double)c->nr_burst : 0.0));
	if (c->tr != NULL) {
		json_t *t = trace_summary(c->tr, now_ns());
		json_t *ks = json_object_get(t, "kswapd");

		static const char *const ctr[] = { "kswapd_low_wmark_hit_quickly", "kswapd_high_wmark_hit_quickly" };

		for (size_t i = 0; i < 2; i++) {
			json_t *v = json_object_get(vm, ctr[i]);

			json_object_set_new(ks, ctr[i] + 7, v ? json_incref(v) : json_integer(0));
		}
		if (c->trace_error[0])
			json_object_set_new(t, "error", json_string(c->trace_error));
		{
			json_int_t lost = json_integer_value(json_object_get(json_object_get(t, "lost"), "total"));

			/* Never silent: a run that lost events says so here and in its report. */
			if (lost > 0 || json_is_true(json_object_get(json_object_get(t, "lost"), "missed_unknown")))
				lab_say(c->o->progress, LAB_SAY_WARN, "warning: run %d lost %lld trace event(s) "
					"(summary.trace.lost)", c->run_index + 1, (long long)lost);
			if (c->trace_error[0])
				lab_say(c->o->progress, LAB_SAY_WARN, "warning: run %d: tracing: %s", c->run_index + 1,
					c->trace_error);
		}
		json_object_set_new(sum, "trace", t);
	} else {
		json_object_set_new(sum, "trace", json_null());
	}
	json_decref(vm);
}

/* The run's members as the document holds them: workloads, steps, actions
 * and trace_intervals in memory; samples and events only in the stream,
 * copied into the document at its end (result.h: result_stream_here) — with
 * --trace-raw every reclaim record of every task on the host would be held. */
static void run_members(struct ctx *c)
{
	c->steps = json_array();
	c->actions = json_array();
	c->trace_intervals = json_array();
	json_object_set_new(c->run, RK_WORKLOADS, json_array());
	json_object_set_new(c->run, RK_STEPS, c->steps);
	json_object_set_new(c->run, RK_SAMPLES, result_samples_here(c->res, c->run_index));
	json_object_set_new(c->run, RK_ACTIONS, c->actions);
	json_object_set_new(c->run, RK_EVENTS, result_stream_here(c->res, c->run_index, "event"));
	json_object_set_new(c->run, RK_TRACE_INTERVALS, c->trace_intervals);
}

/* Tracing, the sources, the timer and the epoll set, then the start sample
 * and the workloads that start at once. */
static int run_open(struct ctx *c)
{
	const struct sampler_opts *o = c->o;
	struct itimerspec its;
	int ret;

	audit_begin(&c->audit, c->t0_ns);
	c->audit.refresh_asked = c->spec->refresh_fold;
	if (c->spec->refresh_fold && o->burst_ms > 0) {
		c->refresh_fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
		if (c->refresh_fd < 0) {
			c->audit.refresh_errors++;
			c->audit.refresh_errno = errno;
			lab_say(o->progress, LAB_SAY_WARN, "[sample] refresh = fold: /proc/sys/vm/stat_refresh: %s: "
				"bursts read the counters unfolded", strerror(errno));
		}
	}
	/* Tracing starts before the counters' baseline, so a counter's delta
	 * and the events it counts cover the same span. */
	if (o->trace != NULL && o->trace->set != TRACE_SET_NONE &&
	    (ret = trace_open(o->trace, c->run_index, c->t0_ns, pid_in_sandbox, c, &c->tr, c->err)) < 0)
		return lab_error_prefix(c->err, "tracing");
	launch_set_marker_fd(trace_marker_fd(c->tr));
	c->sctx.sb = c->sb;
	c->sctx.cg = sandbox_version(c->sb);
	c->sctx.nr_procs = c->spec->nr_workloads;
	if ((ret = source_set_open(&c->sctx, &c->sources, c->err)) < 0)
		return ret;
	source_set_record_start(c->sources, c->run);
	json_object_set_new(c->run, "sources", source_set_describe(c->sources));
	{
		json_t *line = json_pack("{s:O}", "sources", json_object_get(c->run, "sources"));

		result_stream(c->res, "sources", c->run_index, line);
		json_decref(line);
	}
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->epfd < 0 || c->tfd < 0)
		return lab_error_errno(c->err, errno, "epoll/timerfd");
	its.it_interval.tv_sec = o->interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(o->interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(c->tfd, 0, &its, NULL) < 0)
		return lab_error_errno(c->err, errno, "timerfd_settime");
	c->cur_interval_ms = o->interval_ms;
	if ((ret = watch(c, c->tfd, TAG_TIMER)) < 0 || (ret = watch(c, o->sigfd, TAG_SIGNAL)) < 0)
		return ret;
	/* The trace buffers say when they hold records (else each sample
	 * reads every CPU's). */
	trace_watch(c->tr, c->epfd, TAG_TRACE);
	if (sandbox_read(c->sb, &c->cg, c->err) == 0)
		c->oom_base = c->cg.oom_kill;
	launch_lives_baseline(&c->lives);
	if (o->foreign != NULL) {
		struct svc_open_args sa = { .spec = c->spec, .foreign = o->foreign, .lives = &c->lives, .res = c->res,
					    .run_index = c->run_index, .run = c->run, .progress = o->progress,
					    .verbose = o->verbose, .t0_ns = c->t0_ns,
					    .hooks = { .step = synthetic_step, .release = svc_release, .watch = svc_watch,
						       .unwatch = svc_unwatch, .ctx = c } };

		if ((ret = svc_open(&sa, &c->svc, c->err)) < 0)
			return ret;
	}
	take_sample(c, "start");
	for (size_t i = 0; i < c->spec->nr_workloads; i++)
		if (c->spec->workloads[i].start_after < 0 && (ret = start_workload(c, i)) < 0)
			return ret;
	return 0;
}

/* A tick of the timer: a full sample, or a burst reading between two
 * (in a burst the full sample still comes every tick). */
static void on_timer(struct ctx *c)
{
	uint64_t ticks;

	if (read(c->tfd, &ticks, sizeof(ticks)) <= 0)
		return;
	audit_wake(&c->audit, now_ns(), ticks, c->bursting);
	if (!c->bursting || now_ns() - c->last_full_ns + 1000000ull * c->o->burst_ms / 2 >=
				    1000000ull * c->o->interval_ms) {
		take_sample(c, walk_due(c) ? "walk" : "tick");
		progress_line(c, false);
	} else {
		take_burst(c);
	}
	burst_decide(c);
}

/* One ready descriptor of the epoll set.  *signo gets a signal that stops
 * the run (knobs.h: knob_signal_stops). */
static int on_ready(struct ctx *c, uint64_t tag, int *signo)
{
	if (c->svc != NULL && (tag == SVC_TAG_TIMER || (tag & SVC_TAGS))) {
		svc_on_ready(c->svc, tag);
	} else if (tag == TAG_TIMER) {
		on_timer(c);
		/* A ballast that fills past its deadline is told at a tick. */
		for (size_t a = 0; a < c->spec->nr_actions; a++) {
			int ret = outside_ready(c, a);

			if (ret < 0)
				return ret;
		}
	} else if (tag == TAG_SIGNAL) {
		struct signalfd_siginfo si;

		if (read(c->o->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si) &&
		    knob_signal_stops((int)si.ssi_signo, (pid_t)si.ssi_pid))
			*signo = (int)si.ssi_signo;
	} else if (tag & TAG_EVENT) {
		return drain_events(c, tag & 0xff);
	} else if (tag & TAG_PIDFD) {
		launch_reap_one(&c->lives, tag & 0xff);
	} else if (tag & TAG_OUTSIDE) {
		return outside_ready(c, tag & 0xff);
	}
	return 0;
}

/* Whether the run is over before the next wait: the main workload ended or
 * never can start (*outcome "failed"), or the timeout passed. */
static bool run_over(struct ctx *c, uint64_t deadline, const char **outcome)
{
	size_t m = c->spec->nr_workloads - 1;
	int trig = c->spec->workloads[m].start_after;

	if (c->wl[m].proc.exited)
		return true;
	/* Its sandbox removed under the run (sources/registry.c): nothing
	 * left to measure it by. */
	if (c->sctx.sandbox_gone[0]) {
		*outcome = "sandbox_gone";
		return true;
	}
	/* The main workload waits for a step of one that has ended: it never starts. */
	if (!c->wl[m].launched && trig >= 0 && c->wl[trig].proc.exited) {
		*outcome = "failed";
		snprintf(c->wl[m].error, sizeof(c->wl[m].error), "never started: %s ended before its step %s",
			 c->wl[trig].name, c->spec->workloads[m].start_step);
		return true;
	}
	if (now_ns() > deadline) {
		*outcome = "timeout";
		return true;
	}
	return false;
}

/* The loop, until run_over, a stop signal (*signo, *outcome "interrupted")
 * or a failure (-errno). */
static int run_loop(struct ctx *c, const char **outcome, int *signo)
{
	uint64_t deadline = c->t0_ns + (uint64_t)c->o->timeout_s * 1000000000ull;
	int ret;

	while (!run_over(c, deadline, outcome)) {
		struct epoll_event evs[64];
		int n;

		/* The timer wakes the loop every interval: no timeout of its own (a
		 * finite one arms a second hrtimer at every wait). */
		n = epoll_wait(c->epfd, evs, (int)(sizeof(evs) / sizeof(evs[0])), c->cur_interval_ms > 0 ? -1 : 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lab_error_errno(c->err, errno, "epoll_wait");
		/* The trace buffers that hold records first, so the samples below
		 * read them; a full batch may have left some out: then all. */
		for (int k = 0; k < n; k++)
			if (evs[k].data.u64 & TAG_TRACE)
				trace_ready(c->tr, (int)(evs[k].data.u64 & 0xff));
		if (n == (int)(sizeof(evs) / sizeof(evs[0])))
			trace_ready(c->tr, -1);
		else
			trace_seen(c->tr, now_ns());
		for (int k = 0; k < n; k++)
			if ((ret = on_ready(c, evs[k].data.u64, signo)) < 0)
				return ret;
		/* A stream that cannot be written (a full disk) stops the run:
		 * what it measures would be lost. */
		if ((ret = result_stream_error(c->res, c->err)) < 0 || (ret = svc_error(c->svc, c->err)) < 0)
			return ret;
		if (*signo != 0) {
			*outcome = "interrupted";
			progress_line(c, true);
			lab_say(c->o->progress, LAB_SAY_PHASE, "%s received: stopping the workloads", strsignal(*signo));
			return 0;
		}
	}
	return 0;
}

/* runs[].exit and runs[].summary, once every workload is stopped. */
static void run_exit(struct ctx *c, const char *outcome, int ret)
{
	const struct launch_wl *mx = &c->wl[c->spec->nr_workloads - 1];
	json_t *exit_o = json_object(), *victims = json_array();
	struct lab_error e;

	if (outcome == NULL)
		outcome = ret < 0 ? "error" : mx->launched && mx->proc.exited
			? json_string_value(json_object_get(mx->info, "fate")) : "failed";
	if (outcome == NULL)
		outcome = "failed";
	for (size_t i = 0; i < c->spec->nr_workloads; i++)
		if (c->wl[i].info && json_is_true(json_object_get(c->wl[i].info, RK_OOM_KILLED)))
			json_array_append_new(victims, json_string(c->wl[i].name));
	json_object_set_new(exit_o, RK_OUTCOME, json_string(outcome));
	json_object_set(exit_o, RK_WORKLOADS, json_object_get(c->run, RK_WORKLOADS));
	if (sandbox_read(c->sb, &c->cg, &e) == 0)
		json_object_set_new(exit_o, RK_OOM_KILL_COUNT, json_integer((json_int_t)(c->cg.oom_kill - c->oom_base)));
	json_object_set_new(exit_o, RK_VICTIMS, victims);
	if (mx->error[0])
		json_object_set_new(exit_o, RK_ERROR, json_string(mx->error));
	json_object_set_new(c->run, RK_EXIT, exit_o);
	json_object_set_new(c->run, RK_SUMMARY,
			    json_pack("{s:f, s:i, s:I}", "duration_ms", ms_since(c, now_ns()), "samples",
				      (int)c->nr_samples, "peak_usage_bytes", (json_int_t)c->peak_usage));
	run_summary_extra(c, json_object_get(c->run, "summary"));
	if (c->sources != NULL) {
		char far[512];

		source_set_audit_flush(c->sources);
		audit_flush(&c->audit);
		json_object_set_new(json_object_get(c->run, "summary"), "audit",
				    audit_json(&c->audit, c->sources, c->o->interval_ms, c->o->burst_ms,
					       c->burst_eff_max_ms, c->nr_samples - c->burst_lines + c->nr_burst,
					       source_memcg_sum_fields(c->sctx.cg), far, sizeof(far)));
	}
}

/* The processes the per-process source listed, for o->seen. */
static void seen_out(const struct ctx *c)
{
	for (size_t i = 0; c->o->seen != NULL && i < c->sctx.nr_seen; i++) {
		const struct source_seen *s = &c->sctx.seen[i];
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", (int)s->pid);
		json_object_set_new(c->o->seen, pid, json_pack("{s:s, s:s?, s:i}", RK_COMM, s->comm, RK_WORKLOAD,
							     s->owner, RK_SAMPLE, (int)s->sample));
	}
}

/* The processes that let go of their memory while a page walk read it,
 * and those a walk left alone for being on their way out (source.h:
 * struct source_held): runs[].exit.walk_held, exit.walk_skipped. */
static void held_out(const struct ctx *c)
{
	json_t *ex = json_object_get(c->run, RK_EXIT), *a;

	if (!json_is_object(ex))
		return;
	a = json_array();
	for (size_t i = 0; i < c->sctx.nr_held; i++) {
		const struct source_held *h = &c->sctx.held[i];

		json_array_append_new(a, json_pack("{s:i, s:s?, s:s?, s:s, s:o, s:f, s:f}", RK_PID, (int)h->pid, RK_COMM,
						   h->comm[0] ? h->comm : NULL, RK_WORKLOAD, h->owner, "file", h->file,
						   "rss_kb", h->rss_kb ? json_integer((json_int_t)h->rss_kb) : json_null(),
						   "from_ms", ms_since(c, h->from_ns), "to_ms", ms_since(c, h->to_ns)));
	}
	json_object_set_new(ex, "walk_held", a);
	json_object_set_new(ex, "walk_skipped", json_integer((json_int_t)c->sctx.walk_skipped));
}

static void run_close(struct ctx *c)
{
	svc_close(c->svc);
	launch_lives_free(&c->lives);
	launch_set_marker_fd(-1);
	trace_close(c->tr);
	if (c->tfd >= 0)
		close(c->tfd);
	if (c->epfd >= 0)
		close(c->epfd);
	if (c->refresh_fd >= 0)
		close(c->refresh_fd);
	source_set_close(c->sources);
	sandbox_counters_free(&c->cg);
	jw_free(&c->line);
	jw_free(&c->scratch);
	json_decref(c->last_read);
}

int sampler_run(const struct run_spec *spec, struct sandbox *sb, const struct sampler_opts *o,
		struct result *res, int run_index, json_t *run, int *signo, struct lab_error *err)
{
	static const struct launch_hooks hooks = { .ended = wl_ended, .recorded = wl_recorded, .ready = wl_ready };
	struct launch_hooks h = hooks;
	const char *outcome = NULL;
	struct ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.spec = spec;
	c.sb = sb;
	c.o = o;
	c.res = res;
	c.run_index = run_index;
	c.run = run;
	c.err = err;
	c.epfd = c.tfd = c.refresh_fd = -1;
	*signo = 0;
	for (size_t i = 0; i < spec->nr_workloads; i++) {
		c.wl[i].name = spec->workloads[i].name;
		c.wl[i].program = spec->workloads[i].program;
		c.wl[i].argv = spec->workloads[i].argv;
		c.wl[i].argc = spec->workloads[i].argc;
	}
	c.t0_ns = now_ns();
	c.self_pid = (int)getpid();
	h.ctx = &c;
	launch_lives_init(&c.lives, c.wl, spec->nr_workloads, sb, o->bindir, c.t0_ns, &h);
	for (size_t i = 0; i < spec->nr_workloads; i++) {
		const struct run_workload *w = &spec->workloads[i];

		if (!w->command)
			continue;
		c.cmds[i] = (struct launch_command){ .exec = &w->exec, .ready = &w->ready, .stop_signal = w->stop_signal,
						     .stop_grace_ms = w->stop_grace_ms, .thp_never = w->thp_never };
		c.wl[i].cmd = &c.cmds[i];
	}
	if (o->foreign != NULL)
		c.lives.foreign = &o->foreign->lf;
	run_members(&c);
	if ((ret = run_open(&c)) == 0)
		ret = run_loop(&c, &outcome, signo);
	/* Every way out: what the workloads still wrote, stopped, the end
	 * sample, the last trace records. */
	progress_line(&c, true);
	for (size_t i = 0; i < spec->nr_workloads; i++)
		if (c.wl[i].launched && !c.wl[i].proc.exited)
			drain_events(&c, i);
	svc_end(c.svc);         /* a load still running: killed, recorded */
	/* A ballast still filling: recorded as such, stopped (its step unacked:
	 * the workloads are stopped next). */
	for (size_t a = 0; a < spec->nr_actions; a++)
		if (c.owait[a].pending) {
			outside_abandon(&c.outside[a], c.owait[a].rec, "the run ended before it took its memory");
			c.owait[a].ack = false;
			(void)outside_finish(&c, a, -ECANCELED, "the run ended before it took its memory");
		}
	launch_stop_all(&c.lives, SIGTERM);
	for (size_t a = 0; a < spec->nr_actions; a++)
		outside_stop(&c.outside[a]);
	if (c.sources != NULL && c.epfd >= 0)
		take_sample(&c, "end");
	trace_pull(&c, true);
	run_exit(&c, outcome, ret);
	seen_out(&c);
	held_out(&c);
	/* An error only when its removal ended the run: a sandbox an operator
	 * emptied and removed after its workloads were killed is found gone by
	 * the end sample alone, and the run's end is the kill (outcome data). */
	if (ret == 0 && c.sctx.sandbox_gone[0] && outcome != NULL && strcmp(outcome, "sandbox_gone") == 0)
		ret = lab_error_set(err, ENOENT, "%s: removed while the run went on; the run stopped there",
				    c.sctx.sandbox_gone);
	run_close(&c);
	/* The harness's CPU over the whole run, its tracing taken down too. */
	audit_end(&c.audit, json_object_get(json_object_get(json_object_get(run, RK_SUMMARY), "audit"), "harness"));
	if (ret < 0)
		return ret;
	return *signo != 0;
}

bool sampler_run_failed(const json_t *run, char *msg, size_t len)
{
	const json_t *ex = json_object_get(run, "exit");
	const json_t *ws = json_object_get(run, "workloads");
	const char *why;
	size_t i;

	for (i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);
		const char *name = json_string_value(json_object_get(w, "name"));

		if (!json_is_string(json_object_get(w, "fate")) ||
		    (strcmp(json_string_value(json_object_get(w, "fate")), "failed") != 0 &&
		     strcmp(json_string_value(json_object_get(w, "fate")), "not_ready") != 0))
			continue;
		why = json_string_value(json_object_get(w, "error"));
		if (why != NULL)
			snprintf(msg, len, "workload %s failed: %s", name ? name : "?", why);
		else
			snprintf(msg, len, "workload %s failed: exit code %lld", name ? name : "?",
				 (long long)json_integer_value(json_object_get(w, "code")));
		return true;
	}
	why = json_string_value(json_object_get(ex, "outcome"));
	if (why != NULL && strcmp(why, "failed") == 0) {
		const char *e = json_string_value(json_object_get(ex, "error"));

		snprintf(msg, len, "the run failed: %s", e ? e : "its main workload did not complete");
		return true;
	}
	return false;
}
