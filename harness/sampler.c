/* sampler.c — the one event loop of a run (see sampler.h). */
#include "sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "fileio.h"
#include "launch.h"
#include "result_keys.h"
#include "sources/kv.h"
#include "sources/zoneinfo.h"

enum { TAG_TIMER = 1, TAG_SIGNAL = 2, TAG_EVENT = 0x100, TAG_PIDFD = 0x200 };

struct wl {
	const struct run_workload *spec;
	struct workload_proc proc;
	bool launched, stopped_by_us;
	unsigned steps_done;
	json_t *info;           /* runs[].workloads[i] */
	char error[256];
};

struct ctx {
	const struct run_spec *spec;
	struct sandbox *sb;
	const struct sampler_opts *o;
	struct result *res;
	int run_index;
	json_t *run, *steps, *samples, *actions;
	int epfd, tfd;
	uint64_t t0_ns;
	struct wl wl[SCN_MAX_WORKLOADS];
	struct kv_list vm_base, vm_cur, kv_tmp;
	struct sandbox_counters cg;
	unsigned long long oom_seen;    /* oom_kill already attributed */
	unsigned long long oom_base;    /* oom_kill at the run's start (--sandbox self keeps counting) */
	unsigned long long group_base;  /* v2 oom_group_kill at the run's start */
	unsigned long long peak_usage;
	unsigned nr_samples;
	struct lab_error *err;
	/* Tracepoints (trace/trace.h) and adaptive bursts. */
	struct trace *tr;
	json_t *events, *trace_intervals;
	char trace_error[LAB_ERROR_MSG_MAX];
	bool bursting, near_low;
	unsigned cur_interval_ms;
	uint64_t last_full_ns, burst_since;
	unsigned long long nr_burst, burst_windows, stalls_seen;
	double burst_cpu_us, burst_ms;
	struct lowest {
		int node;
		char zone[16];
		unsigned long long free, low, min;
		double t_ms;
		const char *cause;
	} lowest[8];
	size_t nr_lowest;
	struct { int pid; bool in; } pidcache[64];
	unsigned pidcache_next;
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

static json_t *kv_to_json(const struct kv_list *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->items[i].key, json_integer((json_int_t)l->items[i].val));
	return o;
}

/* Keys of /proc/vmstat that changed since the run's start, as signed deltas. */
static json_t *vmstat_delta(struct ctx *c)
{
	json_t *o = json_object();
	cleanup_free char *buf = NULL;
	struct lab_error e;

	if (lab_read_file("/proc/vmstat", &buf, NULL, &e) < 0)
		return o;
	kv_reset(&c->vm_cur);
	if (kv_parse_space(buf, &c->vm_cur, &e) < 0)
		return o;
	for (size_t i = 0; i < c->vm_cur.n; i++) {
		const struct kv *k = &c->vm_cur.items[i];
		unsigned long long base;

		if (i < c->vm_base.n && !strcmp(c->vm_base.items[i].key, k->key))
			base = c->vm_base.items[i].val;
		else if (!kv_get(&c->vm_base, k->key, &base))
			base = 0;
		if (base != k->val)
			json_object_set_new(o, k->key, json_integer((json_int_t)(k->val - base)));
	}
	return o;
}

static json_t *memcg_json(struct ctx *c, bool full)
{
	json_t *o = json_object();
	struct lab_error e;

	if (sandbox_read(c->sb, &c->cg, &e) < 0) {
		json_object_set_new(o, "error", json_string(e.msg));
		return o;
	}
	if (c->cg.usage_bytes > c->peak_usage)
		c->peak_usage = c->cg.usage_bytes;
	json_object_set_new(o, "usage_bytes", json_integer((json_int_t)c->cg.usage_bytes));
	json_object_set_new(o, "peak_bytes", json_integer((json_int_t)c->cg.peak_bytes));
	json_object_set_new(o, "oom_kill", json_integer((json_int_t)c->cg.oom_kill));
	json_object_set_new(o, "oom_group_kill", json_integer((json_int_t)c->cg.oom_group_kill));
	json_object_set_new(o, "stat", kv_to_json(&c->cg.stat));
	if (full)
		json_object_set_new(o, "events", kv_to_json(&c->cg.events));
	return o;
}

static json_t *meminfo_json(struct ctx *c)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;

	kv_reset(&c->kv_tmp);
	if (lab_read_file("/proc/meminfo", &buf, NULL, &e) < 0 || kv_parse_colon(buf, &c->kv_tmp, &e) < 0)
		return json_object();
	return kv_to_json(&c->kv_tmp);
}

/* The zones: every field in a full sample; in a burst only what the trough
 * needs (free and the lines), so a 10 ms burst stays small in the result.
 * Each sample also feeds the run's lowest free per zone (summary) and the
 * burst trigger: a zone within burst_margin_pct of its low-high gap above
 * its low line. */
static json_t *zones_json(struct ctx *c, bool slim, const char *cause, double t_ms)
{
	cleanup_free char *buf = NULL;
	struct zoneinfo *zi = malloc(sizeof(*zi));
	json_t *a = json_array();
	struct lab_error e;
	unsigned pct = c->o ? c->o->burst_margin_pct : 0;

	if (zi == NULL)
		return a;
	if (lab_read_file("/proc/zoneinfo", &buf, NULL, &e) < 0 || zoneinfo_parse(buf, zi, &e) < 0) {
		free(zi);
		return a;
	}
	c->near_low = false;
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		json_t *p, *o;
		size_t k;

		if (z->present == 0)
			continue;
		if (z->managed > 0 && z->high > z->low && z->free <= z->low + (z->high - z->low) * pct / 100)
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
		if (k < c->nr_lowest && z->managed > 0 && z->free < c->lowest[k].free) {
			c->lowest[k].free = z->free;
			c->lowest[k].low = z->low;
			c->lowest[k].min = z->min;
			c->lowest[k].t_ms = t_ms;
			c->lowest[k].cause = cause;
		}
		if (slim) {
			json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I}", "node", z->node,
							   "zone", z->name, "free", (json_int_t)z->free,
							   "min", (json_int_t)z->min, "low", (json_int_t)z->low,
							   "high", (json_int_t)z->high,
							   "managed", (json_int_t)z->managed));
			continue;
		}
		p = json_array();
		for (size_t j = 0; j < z->nr_protection; j++)
			json_array_append_new(p, json_integer((json_int_t)z->protection[j]));
		o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
			      "node", z->node, "zone", z->name,
			      "free", (json_int_t)z->free, "min", (json_int_t)z->min,
			      "low", (json_int_t)z->low, "high", (json_int_t)z->high,
			      "boost", (json_int_t)z->boost, "managed", (json_int_t)z->managed,
			      "present", (json_int_t)z->present, "spanned", (json_int_t)z->spanned,
			      "protection", p);
		json_array_append_new(a, o);
	}
	free(zi);
	return a;
}

static json_t *rollup_json(struct ctx *c, pid_t pid)
{
	static const char *const keys[] = { "Rss", "Pss", "Anonymous", "LazyFree", "AnonHugePages",
					    "Swap", "Pss_Shmem" };
	static const char *const names[] = { "rss_kb", "pss_kb", "anonymous_kb", "lazyfree_kb",
					     "anonhuge_kb", "swap_kb", "pss_shmem_kb" };
	cleanup_free char *buf = NULL;
	char path[64];
	json_t *o;
	struct lab_error e;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	kv_reset(&c->kv_tmp);
	if (lab_read_file(path, &buf, NULL, &e) < 0 || kv_parse_colon(buf, &c->kv_tmp, &e) < 0)
		return NULL;
	o = json_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned long long v;

		if (kv_get(&c->kv_tmp, keys[i], &v))
			json_object_set_new(o, names[i], json_integer((json_int_t)v));
	}
	return o;
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
	if (trace_drain(c->tr, final, c->events, c->trace_intervals, emit_stream, c, &e) < 0 &&
	    !c->trace_error[0])
		snprintf(c->trace_error, sizeof(c->trace_error), "%s", e.msg);
}

/* A burst sample: the time, the zones' free pages and lines, nothing else. */
static json_t *take_burst(struct ctx *c)
{
	uint64_t cpu0 = thread_cpu_ns(), wall0 = now_ns();
	double t = ms_since(c, wall0);
	json_t *s;

	trace_pull(c, false);
	s = json_pack("{s:f, s:s, s:o}", "t_ms", t, "cause", "burst", "zones", zones_json(c, true, "burst", t));
	json_array_append_new(c->samples, s);
	result_stream(c->res, "sample", c->run_index, s);
	c->nr_samples++;
	c->nr_burst++;
	c->burst_cpu_us += (double)(thread_cpu_ns() - cpu0) / 1e3;
	return s;
}

static json_t *take_sample(struct ctx *c, const char *cause)
{
	uint64_t cpu0 = thread_cpu_ns(), wall0 = now_ns();
	double t = ms_since(c, wall0);
	json_t *s = json_object();
	json_t *w = json_object();

	trace_pull(c, false);
	json_object_set_new(s, "t_ms", json_real(t));
	json_object_set_new(s, "cause", json_string(cause));
	json_object_set_new(s, "memcg", memcg_json(c, true));
	json_object_set_new(s, "vmstat_delta", vmstat_delta(c));
	json_object_set_new(s, "meminfo", meminfo_json(c));
	json_object_set_new(s, "zones", zones_json(c, false, cause, t));
	for (size_t i = 0; i < c->spec->nr_workloads; i++) {
		struct wl *x = &c->wl[i];
		json_t *r;

		if (!x->launched || x->proc.exited)
			continue;
		r = rollup_json(c, x->proc.pid);
		if (r != NULL)
			json_object_set_new(w, x->spec->name, r);
	}
	json_object_set_new(s, "workloads", w);
	/* What this sample cost the harness (scripts/bench): reading and
	 * parsing every source and building the object; the write of the
	 * streamed line below is not in it. */
	json_object_set_new(s, "cost_us", json_pack("{s:f, s:f}",
		"cpu", (double)(thread_cpu_ns() - cpu0) / 1e3, "wall", (double)(now_ns() - wall0) / 1e3));
	json_array_append_new(c->samples, s);  /* samples[] owns it; s stays valid */
	result_stream(c->res, "sample", c->run_index, s);
	c->nr_samples++;
	c->last_full_ns = wall0;
	return s;       /* borrowed reference kept by samples[] */
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
		    (c->near_low || trace_kswapd_awake(c->tr) || trace_stall_open(c->tr) ||
		     done != c->stalls_seen);
	uint64_t now = now_ns();

	c->stalls_seen = done;
	if (want == c->bursting)
		return;
	c->bursting = want;
	if (want) {
		c->burst_since = now;
		c->burst_windows++;
	} else {
		c->burst_ms += (double)(now - c->burst_since) / 1e6;
	}
	set_timer(c, want ? c->o->burst_ms : c->o->interval_ms);
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
	struct ctx c;
	json_t *s = json_object();
	cleanup_free char *buf = NULL;

	memset(&c, 0, sizeof(c));
	if (lab_read_file("/proc/vmstat", &buf, NULL, err) == 0)
		kv_parse_space(buf, &c.vm_base, err);
	json_object_set_new(s, "vmstat_delta", vmstat_delta(&c));
	json_object_set_new(s, "meminfo", meminfo_json(&c));
	json_object_set_new(s, "zones", zones_json(&c, false, "probe", 0));
	kv_free(&c.vm_base);
	kv_free(&c.vm_cur);
	kv_free(&c.kv_tmp);
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

static int start_workload(struct ctx *c, size_t i)
{
	struct wl *x = &c->wl[i];
	json_t *argv = json_array();
	int ret;

	ret = launch_workload(x->spec->argv, c->o->bindir, c->sb, &x->proc, c->err);
	if (ret < 0) {
		json_decref(argv);
		return lab_error_prefix(c->err, "start workload %s", x->spec->name);
	}
	x->launched = true;
	for (int a = 0; a < x->spec->argc; a++)
		json_array_append_new(argv, json_string(x->spec->argv[a]));
	x->info = json_pack("{s:s, s:s, s:o, s:i, s:f}", "name", x->spec->name, "program", x->spec->program,
			    "argv", argv, "pid", (int)x->proc.pid, "started_ms", ms_since(c, now_ns()));
	json_array_append(json_object_get(c->run, RK_WORKLOADS), x->info);
	json_decref(x->info);
	result_stream(c->res, "workload", c->run_index, x->info);
	ret = watch(c, x->proc.event_fd, TAG_EVENT | i);
	if (ret == 0)
		ret = watch(c, x->proc.pidfd, TAG_PIDFD | i);
	if (c->o->verbose)
		fprintf(stderr, "pagelab:   %s started (pid %d)\n", x->spec->name, (int)x->proc.pid);
	return ret;
}

static void do_actions(struct ctx *c, size_t wi, const char *step, json_t *steprec)
{
	for (size_t a = 0; a < c->spec->nr_actions; a++) {
		const struct run_action *ra = &c->spec->actions[a];
		struct lab_error e;
		unsigned long long before = 0;
		json_t *rec;
		int ret;

		if (ra->workload != (int)wi || strcmp(ra->step, step) != 0)
			continue;
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
			fprintf(stderr, "pagelab:   action %s: reclaim %llu bytes: %s\n", ra->name,
				ra->reclaim_bytes, ret == 0 ? "ok" : ret == -EAGAIN ? "EAGAIN" : e.msg);
	}
}

static int handle_line(struct ctx *c, size_t wi, const char *line)
{
	struct wl *x = &c->wl[wi];
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
	} else if (!strcmp(type, "error")) {
		const char *m = json_string_value(json_object_get(ev, "msg"));

		snprintf(x->error, sizeof(x->error), "%s", m ? m : "error");
		json_object_set_new(x->info, "error", json_string(x->error));
	} else if (!strcmp(type, "step")) {
		const char *step = json_string_value(json_object_get(ev, "step"));
		json_t *arg = json_object_get(ev, "arg");
		json_t *tns = json_object_get(ev, "t_ns");
		json_t *rec = json_object(), *counters = json_deep_copy(ev);
		json_t *smp;
		char stepname[32];

		snprintf(stepname, sizeof(stepname), "%s", step ? step : "?");
		x->steps_done++;
		json_object_del(counters, "event");
		json_object_del(counters, "seq");
		json_object_del(counters, "step");
		json_object_del(counters, "arg");
		json_object_del(counters, "t_ns");
		json_object_set_new(rec, RK_WORKLOAD, json_string(x->spec->name));
		json_object_set(rec, RK_SEQ, json_object_get(ev, RK_SEQ));
		json_object_set_new(rec, RK_STEP, json_string(stepname));
		json_object_set(rec, RK_ARG, arg ? arg : json_null());
		json_object_set_new(rec, RK_T_MS, json_real(json_is_integer(tns)
			? ms_since(c, (uint64_t)json_integer_value(tns)) : ms_since(c, now_ns())));
		json_object_set_new(rec, RK_COUNTERS, counters);
		{
			char mk[96];

			snprintf(mk, sizeof(mk), "step %s %s", x->spec->name, stepname);
			trace_marker(c->tr, mk);
		}
		smp = take_sample(c, "step");
		json_object_set(rec, RK_MEMCG, json_object_get(smp, RK_MEMCG));
		json_object_set(rec, RK_VMSTAT_DELTA, json_object_get(smp, RK_VMSTAT_DELTA));
		json_object_set_new(rec, RK_SAMPLE, json_integer((json_int_t)c->nr_samples - 1));
		do_actions(c, wi, stepname, rec);
		json_array_append(c->steps, rec);
		result_stream(c->res, "step", c->run_index, rec);
		json_decref(rec);
		if (c->o->verbose)
			fprintf(stderr, "pagelab:   %s: step %s%s%s\n", x->spec->name, stepname,
				json_is_string(arg) ? " " : "", json_is_string(arg) ? json_string_value(arg) : "");
		/* Workloads waiting for this step start now, before the ack. */
		for (size_t j = 0; j < c->spec->nr_workloads; j++) {
			const struct run_workload *w = &c->spec->workloads[j];

			if (!c->wl[j].launched && w->start_after == (int)wi && !strcmp(w->start_step, stepname)) {
				int ret = start_workload(c, j);

				if (ret < 0) {
					json_decref(ev);
					return ret;
				}
			}
		}
		if (x->proc.ack_fd >= 0 && write(x->proc.ack_fd, "k", 1) != 1) {
			/* It died meanwhile: its pidfd will tell. */
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

static const char *fate(struct ctx *c, struct wl *x, bool *oom)
{
	int st = x->proc.wstatus;

	*oom = false;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0 ? "completed" : "failed";
	if (WTERMSIG(st) == SIGSYS)
		return "seccomp";
	if (WTERMSIG(st) == SIGKILL && !x->stopped_by_us) {
		struct lab_error e;

		if (sandbox_read(c->sb, &c->cg, &e) == 0 && c->cg.oom_kill > c->oom_seen) {
			c->oom_seen = c->cg.oom_kill;
			*oom = true;
			return "oom_killed";
		}
		/* v2 memory.oom.group = 1: the OOM killer took the whole sandbox
		 * (mm/oom_kill.c: oom_kill_memcg_member), so every workload that
		 * died of SIGKILL is a victim, not only the first one reaped. */
		if (c->cg.oom_group_kill > c->group_base) {
			*oom = true;
			return "oom_killed";
		}
	}
	return x->stopped_by_us ? "stopped" : "killed";
}

static void record_exit(struct ctx *c, struct wl *x)
{
	bool oom;
	const char *f;
	int st = x->proc.wstatus;

	drain_events(c, (size_t)(x - c->wl));
	f = fate(c, x, &oom);
	json_object_set_new(x->info, RK_CODE, WIFEXITED(st) ? json_integer(WEXITSTATUS(st)) : json_null());
	json_object_set_new(x->info, RK_SIGNAL, WIFSIGNALED(st) ? json_integer(WTERMSIG(st)) : json_null());
	json_object_set_new(x->info, RK_OOM_KILLED, json_boolean(oom));
	json_object_set_new(x->info, RK_FATE, json_string(f));
	json_object_set_new(x->info, RK_STEPS_DONE, json_integer(x->steps_done));
	json_object_set_new(x->info, RK_ENDED_MS, json_real(ms_since(c, now_ns())));
	if (c->o->verbose || oom)
		fprintf(stderr, "pagelab:   %s (pid %d) ended: %s\n", x->spec->name, (int)x->proc.pid, f);
}

static void reap_one(struct ctx *c, size_t i)
{
	struct wl *x = &c->wl[i];
	struct lab_error e;

	if (!x->launched || x->proc.exited)
		return;
	if (launch_reap(&x->proc, &e) != 0)
		return;
	if (x->proc.pidfd >= 0) {
		epoll_ctl(c->epfd, EPOLL_CTL_DEL, x->proc.pidfd, NULL);
		close(x->proc.pidfd);
		x->proc.pidfd = -1;
	}
	record_exit(c, x);
}

/* Stop every workload still running: SIGTERM, up to 2 s, then SIGKILL. */
static void stop_all(struct ctx *c, int sig)
{
	uint64_t deadline = now_ns() + 2000000000ull;
	bool any;

	for (size_t i = 0; i < c->spec->nr_workloads; i++) {
		struct wl *x = &c->wl[i];

		/* One already dead (e.g. killed with the whole group by the OOM
		 * killer) is reaped first, so its fate is not "stopped". */
		reap_one(c, i);
		if (x->launched && !x->proc.exited) {
			x->stopped_by_us = true;
			kill(x->proc.pid, sig);
		}
	}
	do {
		any = false;
		for (size_t i = 0; i < c->spec->nr_workloads; i++) {
			reap_one(c, i);
			any |= c->wl[i].launched && !c->wl[i].proc.exited;
		}
		if (any) {
			struct timespec ts = { 0, 20000000 };

			nanosleep(&ts, NULL);
		}
	} while (any && now_ns() < deadline);
	if (any) {
		struct lab_error e;

		sandbox_kill(c->sb, &e);
		for (size_t i = 0; i < c->spec->nr_workloads; i++) {
			struct wl *x = &c->wl[i];

			if (x->launched && !x->proc.exited) {
				kill(x->proc.pid, SIGKILL);
				waitpid(x->proc.pid, NULL, 0);
				x->proc.exited = true;
				x->proc.wstatus = SIGKILL;
				record_exit(c, x);
			}
		}
	}
}

/* The run's derived figures: the lowest free page count per zone and how it
 * was sampled, the bursts, and what the tracepoints add up to, with the
 * counters they stand beside (kswapd_{low,high}_wmark_hit_quickly). */
static void run_summary_extra(struct ctx *c, json_t *sum)
{
	json_t *lw = json_array();
	json_t *vm = vmstat_delta(c);

	for (size_t k = 0; k < c->nr_lowest; k++) {
		const struct lowest *l = &c->lowest[k];

		if (l->free == ~0ull)
			continue;
		json_array_append_new(lw, json_pack("{s:i, s:s, s:I, s:I, s:I, s:f, s:s}", "node", l->node,
						    "zone", l->zone, "free_pages", (json_int_t)l->free,
						    "low_pages", (json_int_t)l->low, "min_pages", (json_int_t)l->min,
						    "t_ms", l->t_ms, "sampled_by", l->cause));
	}
	json_object_set_new(sum, "lowest_free", lw);
	if (c->bursting)
		c->burst_ms += (double)(now_ns() - c->burst_since) / 1e6;
	json_object_set_new(sum, "bursts",
			    json_pack("{s:i, s:i, s:I, s:I, s:f, s:f, s:f}", "interval_ms", (int)c->o->burst_ms,
				      "margin_pct", (int)c->o->burst_margin_pct, "windows",
				      (json_int_t)c->burst_windows, "samples", (json_int_t)c->nr_burst,
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
		json_object_set_new(sum, "trace", t);
	} else {
		json_object_set_new(sum, "trace", json_null());
	}
	json_decref(vm);
}

int sampler_run(const struct run_spec *spec, struct sandbox *sb, const struct sampler_opts *o,
		struct result *res, int run_index, json_t *run, int *signo, struct lab_error *err)
{
	struct ctx c;
	struct itimerspec its;
	size_t main_wl = spec->nr_workloads - 1;
	const char *outcome = NULL;
	uint64_t deadline;
	int ret = 0, interrupted = 0;
	cleanup_free char *vm = NULL;
	struct wl *mx;
	json_t *exit_o, *victims;

	memset(&c, 0, sizeof(c));
	c.spec = spec;
	c.sb = sb;
	c.o = o;
	c.res = res;
	c.run_index = run_index;
	c.run = run;
	c.err = err;
	c.epfd = c.tfd = -1;
	*signo = 0;
	for (size_t i = 0; i < spec->nr_workloads; i++) {
		c.wl[i].spec = &spec->workloads[i];
		c.wl[i].proc.pidfd = c.wl[i].proc.event_fd = c.wl[i].proc.ack_fd = -1;
	}
	c.steps = json_array();
	c.samples = json_array();
	c.actions = json_array();
	json_object_set_new(run, RK_WORKLOADS, json_array());
	json_object_set_new(run, RK_STEPS, c.steps);
	json_object_set_new(run, RK_SAMPLES, c.samples);
	json_object_set_new(run, RK_ACTIONS, c.actions);
	c.events = json_array();
	c.trace_intervals = json_array();
	json_object_set_new(run, RK_EVENTS, c.events);
	json_object_set_new(run, RK_TRACE_INTERVALS, c.trace_intervals);

	/* Tracing starts before the counters' baseline, so a counter's delta
	 * and the events it counts cover the same span. */
	c.t0_ns = now_ns();
	if (o->trace != NULL && o->trace->set != TRACE_SET_NONE &&
	    (ret = trace_open(o->trace, run_index, c.t0_ns, pid_in_sandbox, &c, &c.tr, err)) < 0) {
		ret = lab_error_prefix(err, "tracing");
		goto out;
	}
	if (lab_read_file("/proc/vmstat", &vm, NULL, err) < 0 || kv_parse_space(vm, &c.vm_base, err) < 0) {
		ret = lab_error_prefix(err, "read /proc/vmstat");
		goto out;
	}
	json_object_set_new(run, RK_VMSTAT_START, kv_to_json(&c.vm_base));
	c.epfd = epoll_create1(EPOLL_CLOEXEC);
	c.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c.epfd < 0 || c.tfd < 0) {
		ret = lab_error_errno(err, errno, "epoll/timerfd");
		goto out;
	}
	its.it_interval.tv_sec = o->interval_ms / 1000;
	its.it_interval.tv_nsec = (long)(o->interval_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(c.tfd, 0, &its, NULL) < 0) {
		ret = lab_error_errno(err, errno, "timerfd_settime");
		goto out;
	}
	c.cur_interval_ms = o->interval_ms;
	if ((ret = watch(&c, c.tfd, TAG_TIMER)) < 0 || (ret = watch(&c, o->sigfd, TAG_SIGNAL)) < 0)
		goto out;
	if (sandbox_read(sb, &c.cg, err) == 0) {
		c.oom_seen = c.oom_base = c.cg.oom_kill;
		c.group_base = c.cg.oom_group_kill;
	}
	take_sample(&c, "start");
	for (size_t i = 0; i < spec->nr_workloads; i++)
		if (spec->workloads[i].start_after < 0 && (ret = start_workload(&c, i)) < 0)
			goto out;
	deadline = c.t0_ns + (uint64_t)o->timeout_s * 1000000000ull;

	for (;;) {
		struct epoll_event evs[16];
		int n;

		if (c.wl[main_wl].proc.exited)
			break;
		/* The main workload waits for a step of one that has ended: it never starts. */
		if (!c.wl[main_wl].launched) {
			int trig = spec->workloads[main_wl].start_after;

			if (trig >= 0 && c.wl[trig].proc.exited) {
				outcome = "failed";
				snprintf(c.wl[main_wl].error, sizeof(c.wl[main_wl].error),
					 "never started: %s ended before its step %s", c.wl[trig].spec->name,
					 spec->workloads[main_wl].start_step);
				break;
			}
		}
		if (now_ns() > deadline) {
			outcome = "timeout";
			break;
		}
		n = epoll_wait(c.epfd, evs, 16, 1000);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = lab_error_errno(err, errno, "epoll_wait");
			goto out;
		}
		for (int k = 0; k < n; k++) {
			uint64_t tag = evs[k].data.u64;

			if (tag == TAG_TIMER) {
				uint64_t ticks;

				if (read(c.tfd, &ticks, sizeof(ticks)) > 0) {
					/* In a burst the full sample still comes every tick. */
					if (!c.bursting ||
					    now_ns() - c.last_full_ns + 1000000ull * c.o->burst_ms / 2 >=
						    1000000ull * o->interval_ms)
						take_sample(&c, "tick");
					else
						take_burst(&c);
					burst_decide(&c);
				}
			} else if (tag == TAG_SIGNAL) {
				struct signalfd_siginfo si;

				if (read(o->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					*signo = (int)si.ssi_signo;
					interrupted = 1;
				}
			} else if (tag & TAG_EVENT) {
				if ((ret = drain_events(&c, tag & 0xff)) < 0)
					goto out;
			} else if (tag & TAG_PIDFD) {
				reap_one(&c, tag & 0xff);
			}
		}
		/* A stream that cannot be written (a full disk) stops the run:
		 * what it measures would be lost. */
		if ((ret = result_stream_error(c.res, err)) < 0)
			goto out;
		if (interrupted) {
			outcome = "interrupted";
			fprintf(stderr, "pagelab: %s received: stopping the workloads\n", strsignal(*signo));
			break;
		}
	}
out:
	for (size_t i = 0; i < spec->nr_workloads; i++)
		if (c.wl[i].launched && !c.wl[i].proc.exited)
			drain_events(&c, i);
	stop_all(&c, SIGTERM);
	if (c.samples != NULL && c.epfd >= 0)
		take_sample(&c, "end");
	trace_pull(&c, true);
	mx = &c.wl[main_wl];
	if (outcome == NULL)
		outcome = ret < 0 ? "error" : mx->launched && mx->proc.exited
			? json_string_value(json_object_get(mx->info, "fate")) : "failed";
	if (outcome == NULL)
		outcome = "failed";
	exit_o = json_object();
	victims = json_array();
	for (size_t i = 0; i < spec->nr_workloads; i++)
		if (c.wl[i].info && json_is_true(json_object_get(c.wl[i].info, RK_OOM_KILLED)))
			json_array_append_new(victims, json_string(c.wl[i].spec->name));
	json_object_set_new(exit_o, RK_OUTCOME, json_string(outcome));
	json_object_set(exit_o, RK_WORKLOADS, json_object_get(run, RK_WORKLOADS));
	{
		struct lab_error e;

		if (sandbox_read(sb, &c.cg, &e) == 0)
			json_object_set_new(exit_o, RK_OOM_KILL_COUNT,
					    json_integer((json_int_t)(c.cg.oom_kill - c.oom_base)));
	}
	json_object_set_new(exit_o, RK_VICTIMS, victims);
	if (mx->error[0])
		json_object_set_new(exit_o, RK_ERROR, json_string(mx->error));
	json_object_set_new(run, RK_EXIT, exit_o);
	json_object_set_new(run, RK_SUMMARY,
			    json_pack("{s:f, s:i, s:I}", "duration_ms", ms_since(&c, now_ns()),
				      "samples", (int)c.nr_samples, "peak_usage_bytes",
				      (json_int_t)c.peak_usage));
	run_summary_extra(&c, json_object_get(run, "summary"));
	for (size_t i = 0; i < spec->nr_workloads; i++)
		launch_release(&c.wl[i].proc);
	trace_close(c.tr);
	if (c.tfd >= 0)
		close(c.tfd);
	if (c.epfd >= 0)
		close(c.epfd);
	kv_free(&c.vm_base);
	kv_free(&c.vm_cur);
	kv_free(&c.kv_tmp);
	sandbox_counters_free(&c.cg);
	if (ret < 0)
		return ret;
	return interrupted;
}
