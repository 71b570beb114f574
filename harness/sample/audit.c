/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.c — the sampler's audit of itself (audit.h). */
#include "audit.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "sample/sources/source.h"

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

/* How far is far (docs/benchmark.md): a run says so in its summary line. */
#define FAR_P50_PCT 10          /* the tick's median interval off the asked by more than 10 % */
#define FAR_P99_X 1.5           /* a tick's p99 interval over 1.5x the asked */
#define FAR_MISSED_PCT 1        /* more than 1 % of the timer's expirations missed */
#define FAR_BURST_X 1.5         /* the bursts' median interval over 1.5x the asked */
#define FAR_READ_PCT 10         /* a sample's reads (p99) over 10 % of its interval */

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;

	/* The sum over the harness's threads of sum_exec_runtime — what
	 * /proc/PID/task/N/schedstat prints first (kernel/sched/cputime.c:
	 * thread_group_cputime), up to date at the read. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The bracketed word of a THP setting ("always [madvise] never"), "" when
 * the file cannot be read. */
static void thp_mode(const char *path, char *out, size_t len)
{
	char *text = NULL;
	struct lab_error e;

	out[0] = '\0';
	if (lab_read_file(path, &text, NULL, &e) < 0)
		return;
	kv_bracketed(text, out, len);
	free(text);
}

/* The largest folio an anonymous fault may take: a fault charges it to the
 * memcg (memory.current) before it zeroes it and maps it, and memory.stat
 * counts it only at the mapping (mm/huge_memory.c:
 * vma_alloc_anon_folio_pmd, then map_anon_folio_pmd; mm/memory.c:
 * alloc_anon_folio, then folio_add_new_anon_rmap).  The PMD size while THP
 * is not [never]; on 6.8+ the largest hugepages-<size>kB whose enabled is
 * always or madvise, or inherit under a top-level setting that is not
 * never; else a page.  Read once, at the run's start. */
static long long fault_folio_bytes(long page)
{
	char top[16], mode[16], path[300];
	unsigned long long pmd = 0, best = 0;
	bool any_size = false, top_on;
	struct lab_error e;
	struct dirent *de;
	DIR *d;

	thp_mode(THP_SYSFS "/enabled", top, sizeof(top));
	top_on = !strcmp(top, "always") || !strcmp(top, "madvise");
	if ((d = opendir(THP_SYSFS)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			unsigned long long kb;
			char *end;

			if (strncmp(de->d_name, "hugepages-", 10) != 0)
				continue;
			kb = strtoull(de->d_name + 10, &end, 10);
			if (strcmp(end, "kB") != 0 || kb == 0)
				continue;
			any_size = true;
			snprintf(path, sizeof(path), THP_SYSFS "/%s/enabled", de->d_name);
			thp_mode(path, mode, sizeof(mode));
			if ((!strcmp(mode, "always") || !strcmp(mode, "madvise") || (!strcmp(mode, "inherit") && top_on)) &&
			    kb * 1024 > best)
				best = kb * 1024;
		}
		closedir(d);
	}
	if (!any_size && top_on && lab_read_u64(THP_SYSFS "/hpage_pmd_size", &pmd, &e) == 0)
		best = pmd;
	return best > (unsigned long long)page ? (long long)best : page;
}

void audit_begin(struct sampler_audit *a, uint64_t now_ns)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);

	memset(a, 0, sizeof(*a));
	a->t0_ns = now_ns;
	cpus = cpus > 0 ? cpus : 1;
	page = page > 0 ? page : 4096;
	/* memory.current may run ahead of the pages in use by the charge stock
	 * (mm/memcontrol.c: refill_stock keeps up to MEMCG_CHARGE_BATCH = 64
	 * pages per CPU precharged) and by the folios faults have charged and
	 * not yet mapped: neither is memory.stat being stale. */
	a->stock_bytes = 64ll * cpus * page;
	a->folio_bytes = fault_folio_bytes(page);
	a->in_flight_bytes = a->folio_bytes * cpus;
	a->cpu0_ns = process_cpu_ns();
	/* The peak RSS over this run, not the process's life before it:
	 * clear_refs 5 resets the high-water mark (fs/proc/task_mmu.c:
	 * CLEAR_REFS_MM_HIWATER_RSS).  The harness's own file; a kernel
	 * without it leaves the peak since the process started. */
	{
		struct lab_error e;

		(void)lab_write_file("/proc/self/clear_refs", "5", &e);
	}
}

void audit_wake(struct sampler_audit *a, uint64_t now_ns, uint64_t expirations, bool bursting)
{
	uint64_t since = a->wakes > 0 ? a->last_wake_ns : a->t0_ns;

	a->last_wake_cpu_ns = process_cpu_ns();
	if (now_ns > since && now_ns - since > a->gap_max_ns)
		a->gap_max_ns = now_ns - since;
	if (a->wakes > 0 && a->last_bursting == bursting && now_ns > a->last_wake_ns)
		lab_hist_stage_add(&a->stage, bursting ? &a->burst_iv_ns : &a->tick_iv_ns, now_ns - a->last_wake_ns);
	a->wakes += expirations;
	if (expirations > 1)
		a->missed += expirations - 1;
	if (a->first_wake_ns == 0) {
		a->first_wake_ns = now_ns;
		a->first_wake_cpu_ns = a->last_wake_cpu_ns;
		a->first_wakes = a->wakes;
	}
	a->last_wake_ns = now_ns;
	a->last_bursting = bursting;
}

/* The latest sample in the ring whose memory.current was at most (rising)
 * or at least (falling) target: how long ago memory.current read what
 * memory.stat reads now.  -1: not in the ring. */
static double lag_ms_of(const struct sampler_audit *a, double t_ms, unsigned long long target, bool rising)
{
	for (size_t k = 0; k < a->ring_n; k++) {
		size_t i = (a->ring_next + AUDIT_LAG_RING - 1 - k) % AUDIT_LAG_RING;

		if (rising ? a->ring[i].usage <= target : a->ring[i].usage >= target)
			return t_ms - a->ring[i].t_ms;
	}
	return -1;
}

/* memory.stat stale is memory.stat behind memory.current's movement: under
 * it while memory.current rises, over it while it falls.  memory.current is
 * read first and memory.stat right after (sources/memcg.c), so memory
 * charged or freed between the two reads makes memory.stat look AHEAD of
 * the movement, never behind it: a lag measured is a lag (a lower bound of
 * it), and the read order's share goes to most_ahead.  The movement at a
 * sample is memory.current's next change (the one the reads straddled:
 * the following sample shows it), else its last: so a sample is judged when
 * the next one comes (audit_lag), the last one at audit_flush. */
static void lag_judge(struct sampler_audit *a, int next_dir)
{
	long long diff = (long long)a->lag_c - (long long)a->lag_s, beyond, lag, as_current, allow;
	int dir = next_dir != 0 ? next_dir : a->lag_dir;
	double ms;

	if (!a->lag_have_base) {
		a->lag_have_base = true;
		a->lag_base = diff;
	}
	if (next_dir != 0)
		a->lag_dir = next_dir;
	beyond = diff - a->lag_base;            /* memory.current over what memory.stat adds up to */
	lag = dir < 0 ? -beyond : beyond;       /* behind the movement (> 0) or ahead of it */
	a->ring[a->ring_next].t_ms = a->lag_t;
	a->ring[a->ring_next].usage = a->lag_c;
	a->ring_next = (a->ring_next + 1) % AUDIT_LAG_RING;
	if (a->ring_n < AUDIT_LAG_RING)
		a->ring_n++;
	a->lag_samples++;
	if (lag > a->lag_max) {
		a->lag_max = lag;
		a->lag_max_at_ms = a->lag_t;
	}
	if (-lag > a->lag_ahead)
		a->lag_ahead = -lag;
	/* Within the charge stock and the faults in flight (audit_begin):
	 * not staleness. */
	allow = a->stock_bytes + a->in_flight_bytes;
	if (lag <= allow)
		return;
	/* When did memory.current last read what memory.stat reads now? */
	as_current = (long long)a->lag_s + a->lag_base + (dir >= 0 ? allow : -allow);
	ms = lag_ms_of(a, a->lag_t, (unsigned long long)(as_current < 0 ? 0 : as_current), dir >= 0);
	if (ms > a->lag_ms_max) {
		a->lag_ms_max = ms;
		a->lag_ms_at_ms = a->lag_t;
	}
}

void audit_lag(struct sampler_audit *a, double t_ms, unsigned long long usage, unsigned long long stat_sum)
{
	if (a->lag_pending)
		lag_judge(a, usage > a->lag_c ? 1 : usage < a->lag_c ? -1 :
			  a->lag_c > a->lag_prev_c ? 1 : a->lag_c < a->lag_prev_c ? -1 : 0);
	a->lag_prev_c = a->lag_pending ? a->lag_c : usage;
	a->lag_pending = true;
	a->lag_t = t_ms;
	a->lag_c = usage;
	a->lag_s = stat_sum;
}

/* {"asked_ms", "intervals", and when there were any "p50_us", "p99_us",
 * "max_us", "min_us"}. */
static json_t *iv_json(const struct lab_hist *h, unsigned asked_ms)
{
	json_t *o = json_pack("{s:i, s:I}", "asked_ms", (int)asked_ms, "intervals", (json_int_t)h->n);

	if (h->n > 0)
		json_object_update_new(o, json_pack("{s:I, s:I, s:I, s:I}", "p50_us",
						    (json_int_t)(lab_hist_quantile(h, 0.5) / 1000), "p99_us",
						    (json_int_t)(lab_hist_quantile(h, 0.99) / 1000), "max_us",
						    (json_int_t)(h->max / 1000), "min_us", (json_int_t)(h->min / 1000)));
	return o;
}

/* A sample's own CPU (the samples' cost_us.cpu: reading, parsing and
 * writing its line): {"samples", "p50", "p99", "max"} in whole µs, or null
 * when there were none. */
static json_t *cpu_json(const struct lab_hist *h)
{
	if (h->n == 0)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I}", "samples", (json_int_t)h->n, "p50",
			 (json_int_t)(lab_hist_quantile(h, 0.5) / 1000), "p99",
			 (json_int_t)(lab_hist_quantile(h, 0.99) / 1000), "max", (json_int_t)(h->max / 1000));
}

__attribute__((format(printf, 3, 4)))
static void far_add(char *far, size_t len, const char *fmt, ...)
{
	va_list ap;

	size_t n = strlen(far);

	if (n + 3 < len)
		snprintf(far + n, len - n, n ? "; " : "");
	n = strlen(far);
	va_start(ap, fmt);
	if (n < len)
		vsnprintf(far + n, len - n, fmt, ap);
	va_end(ap);
}

/* The cadence and read-cost verdicts (docs/benchmark.md). */
static void judge(const struct sampler_audit *a, unsigned interval_ms, unsigned burst_ms, double tick_read_p99_us,
		  double burst_read_p99_us, char *far, size_t len)
{
	const struct lab_hist *t = &a->tick_iv_ns, *b = &a->burst_iv_ns;
	double p50 = (double)lab_hist_quantile(t, 0.5) / 1e6, p99 = (double)lab_hist_quantile(t, 0.99) / 1e6;

	far[0] = '\0';
	if (t->n >= 3 && (p50 > interval_ms * (1 + FAR_P50_PCT / 100.0) || p50 < interval_ms * (1 - FAR_P50_PCT / 100.0)))
		far_add(far, len, "tick interval p50 %.1f ms for %u ms asked", p50, interval_ms);
	else if (t->n >= 3 && p99 > interval_ms * FAR_P99_X)
		far_add(far, len, "tick interval p99 %.1f ms for %u ms asked", p99, interval_ms);
	if (a->missed > 0 && a->missed * 100 > a->wakes * FAR_MISSED_PCT)
		far_add(far, len, "%llu of %llu timer expirations missed", a->missed, a->wakes);
	if (burst_ms > 0 && b->n >= 3 && (double)lab_hist_quantile(b, 0.5) / 1e6 > burst_ms * FAR_BURST_X)
		far_add(far, len, "bursts every %.1f ms for %u ms asked", (double)lab_hist_quantile(b, 0.5) / 1e6,
			burst_ms);
	if (tick_read_p99_us > interval_ms * 1000.0 * FAR_READ_PCT / 100)
		far_add(far, len, "a sample's reads took %.0f µs (p99) of its %u ms", tick_read_p99_us, interval_ms);
	if (burst_ms > 0 && burst_read_p99_us > burst_ms * 1000.0 * FAR_READ_PCT / 100)
		far_add(far, len, "a burst sample's reads took %.0f µs (p99) of its %u ms", burst_read_p99_us, burst_ms);
}

/* VmHWM of /proc/self/status, kB (0 if unreadable). */
static long long vm_hwm_kb(void)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	const char *p;
	long long kb = 0;

	if (lab_read_file("/proc/self/status", &buf, NULL, &e) == 0 && (p = strstr(buf, "\nVmHWM:")) != NULL)
		sscanf(p + 7, "%lld", &kb);
	return kb;
}

/* Which figures are exact and which folded or averaged, on this kernel
 * (/work notes checked in 6.1.192, 6.12.117, 6.18.33: docs/benchmark.md,
 * "Every figure with its bound"). */
static json_t *figures_json(void)
{
	struct utsname u;
	int maj = 0, min = 0;
	const char *stat;

	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &maj, &min);
	if (maj > 6 || (maj == 6 && min >= 12))
		stat = "folded: per-CPU deltas flushed per memcg when its subtree has more than 64 x online CPUs "
		       "pending updates (a synchronous flush at the read, mm/memcontrol.c: mem_cgroup_flush_stats), "
		       "and for the whole tree every 2 s";
	else if (maj == 6 && min <= 1)
		stat = "folded lazily: flushed when more than (online CPUs + 1) x 64 updates are pending machine-wide, "
		       "or every 2 s; a read that finds a flush in progress returns the stale values "
		       "(6.1 mm/memcontrol.c: mem_cgroup_flush_stats)";
	else
		stat = "folded: per-CPU deltas flushed at a threshold or every 2 s (kernels between 6.1 and 6.12 "
		       "were not checked for which flush)";
	return json_pack("{s:[s,s,s,s], s:o, s:[s,s,s]}",
			 "exact", "event counters (/proc/vmstat pg*, allocstall*, *_wmark_hit_quickly, oom_kill: "
				  "summed over CPUs at the read)",
			 "memory.current / memory.usage_in_bytes (an atomic page counter; it counts charges taken "
			 "in batches of up to 64 pages per CPU, so it can exceed the pages in use by that)",
			 "PSI total_us (up to date at the read; each read interval's weight is rounded down to whole "
			 "jiffies: reads more often than a jiffy lose stall time, kernel/sched/psi.c: "
			 "collect_percpu_times)",
			 "memory.peak, memory.events",
			 "folded", json_pack("[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]",
					     "figure", "zones[].free, /proc/vmstat nr_* (state counters)", "how",
					     "per-CPU deltas folded past a threshold or every vm.stat_interval (1 s): "
					     "free is within zones[].drift pages (threshold x online CPUs) of the true count "
					     "(mm/vmstat.c: refresh_zone_stat_thresholds)",
					     "figure", "memcg.stat", "how", stat,
					     "figure", "meminfo", "how", "derived from the same folded state counters"),
			 "averaged", "PSI avg10/avg60/avg300 (recomputed every 2 s: PSI_FREQ; pagelab derives "
				     "stall shares from total_us deltas instead)",
			 "the report's medians over repeats",
			 "summary.bursts' folded lines: the lowest free of each zone between two full samples");
}

/* CPU over wall time, as a share of one CPU in %, to three decimals. */
static double share_pct(uint64_t cpu_ns, uint64_t wall_ns)
{
	return wall_ns > 0 ? (double)(long long)((double)cpu_ns / (double)wall_ns * 100 * 1000) / 1000 : 0.0;
}

/* The harness's CPU and memory over the run, and split at its timer
 * wakeups (struct sampler_audit): a short run's share is mostly its start;
 * the steady state is what the harness costs for as long as it runs. */
static json_t *harness_json(const struct sampler_audit *a, unsigned long long samples)
{
	struct timespec ts;
	uint64_t now, cpu_now = process_cpu_ns(), cpu = cpu_now - a->cpu0_ns;
	json_t *o;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	o = json_pack("{s:s, s:I, s:I, s:f, s:I, s:I, s:I}", "clock", "CLOCK_PROCESS_CPUTIME_ID", "cpu_us",
		      (json_int_t)(cpu / 1000), "wall_ms", (json_int_t)((now - a->t0_ns) / 1000000),
		      "cpu_share_pct", share_pct(cpu, now - a->t0_ns), "samples", (json_int_t)samples,
		      "cpu_us_per_sample", (json_int_t)(samples ? cpu / 1000 / samples : 0), "peak_rss_kb",
		      (json_int_t)vm_hwm_kb());
	if (o != NULL && a->first_wake_ns != 0 && now >= a->last_wake_ns) {
		uint64_t scpu = a->first_wake_cpu_ns - a->cpu0_ns, tcpu = a->last_wake_cpu_ns - a->first_wake_cpu_ns,
			 twall = a->last_wake_ns - a->first_wake_ns;
		unsigned long long twakes = a->wakes - a->first_wakes;

		json_object_set_new(o, "start", json_pack("{s:I, s:I}", "cpu_us", (json_int_t)(scpu / 1000), "wall_ms",
							  (json_int_t)((a->first_wake_ns - a->t0_ns) / 1000000)));
		json_object_set_new(o, "steady",
				    json_pack("{s:I, s:I, s:f, s:I, s:I}", "cpu_us", (json_int_t)(tcpu / 1000), "wall_ms",
					      (json_int_t)(twall / 1000000), "cpu_share_pct", share_pct(tcpu, twall),
					      "wakes", (json_int_t)twakes, "cpu_us_per_wake",
					      (json_int_t)(twakes ? tcpu / 1000 / twakes : 0)));
		json_object_set_new(o, "end", json_pack("{s:I, s:I}", "cpu_us",
							(json_int_t)((cpu_now - a->last_wake_cpu_ns) / 1000), "wall_ms",
							(json_int_t)((now - a->last_wake_ns) / 1000000)));
	}
	return o;
}

void audit_flush(struct sampler_audit *a)
{
	lab_hist_stage_flush(&a->stage);
	if (a->lag_pending) {
		lag_judge(a, a->lag_c > a->lag_prev_c ? 1 : a->lag_c < a->lag_prev_c ? -1 : 0);
		a->lag_pending = false;
	}
}

void audit_end(const struct sampler_audit *a, json_t *harness)
{
	json_int_t samples = json_integer_value(json_object_get(harness, "samples"));
	json_t *now;

	if (!json_is_object(harness))
		return;
	now = harness_json(a, (unsigned long long)samples);
	json_object_update(harness, now);
	json_decref(now);
}

json_t *audit_json(const struct sampler_audit *a, const struct source_set *set, unsigned interval_ms,
		   unsigned burst_ms, unsigned burst_eff_max_ms, unsigned long long samples,
		   const char *stat_fields, char *far, size_t farlen)
{
	double tick_p99 = 0, burst_p99 = 0, other_p99 = 0;
	json_t *tick_reads = set != NULL ? source_set_reads(set, 0, &tick_p99) : NULL;
	json_t *burst_reads = set != NULL ? source_set_reads(set, 1, &burst_p99) : NULL;
	json_t *other_reads = set != NULL ? source_set_reads(set, 2, &other_p99) : NULL;
	json_t *o = json_object(), *bursts = iv_json(&a->burst_iv_ns, burst_ms);

	judge(a, interval_ms, burst_ms, tick_p99, burst_p99, far, farlen);
	json_object_set_new(o, "interval", iv_json(&a->tick_iv_ns, interval_ms));
	json_object_set_new(json_object_get(o, "interval"), "wakes", json_integer((json_int_t)a->wakes));
	json_object_set_new(json_object_get(o, "interval"), "gap_max_us", json_integer((json_int_t)(a->gap_max_ns / 1000)));
	json_object_set_new(json_object_get(o, "interval"), "missed", json_integer((json_int_t)a->missed));
	json_object_set_new(bursts, "stretched_to_ms", json_integer(burst_eff_max_ms));
	json_object_set_new(o, "bursts", bursts);
	json_object_set_new(o, "reads", json_pack("{s:o, s:o, s:o}", "tick", tick_reads ? tick_reads : json_null(),
						  "burst", burst_reads ? burst_reads : json_null(), "other",
						  other_reads ? other_reads : json_null()));
	json_object_set_new(o, "tick_cpu_us", cpu_json(&a->tick_cpu_ns));
	json_object_set_new(o, "burst_cpu_us", cpu_json(&a->burst_cpu_ns));
	if (set != NULL) {
		unsigned long long splits;

		json_object_set_new(o, "read", json_string(source_set_read_mode(set, &splits)));
		json_object_set_new(o, "split_snapshots", json_integer((json_int_t)splits));
		json_object_set_new(o, "sources", source_set_audit(set));
	}
	json_object_set_new(o, "harness", harness_json(a, samples));
	if (a->refresh_asked) {
		const struct lab_hist *h = &a->refresh_ns;

		json_object_set_new(o, "refresh", json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "file",
							    "/proc/sys/vm/stat_refresh", "writes", (json_int_t)h->n,
							    "p50_us", (json_int_t)(lab_hist_quantile(h, 0.5) / 1000),
							    "p99_us", (json_int_t)(lab_hist_quantile(h, 0.99) / 1000),
							    "max_us", (json_int_t)(h->max / 1000), "errors",
							    (json_int_t)a->refresh_errors));
		if (a->refresh_errno)
			json_object_set_new(json_object_get(o, "refresh"), "error",
					    json_string(strerror(a->refresh_errno)));
	}
	if (a->lag_samples > 0)
		json_object_set_new(o, "memory_stat_lag",
				    json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f}", "fields", stat_fields,
					      "samples", (json_int_t)a->lag_samples, "base_bytes", (json_int_t)a->lag_base,
					      "stock_bytes", (json_int_t)a->stock_bytes,
					      "fault_folio_bytes", (json_int_t)a->folio_bytes,
					      "in_flight_bytes", (json_int_t)a->in_flight_bytes,
					      "largest_bytes", (json_int_t)a->lag_max, "most_ahead_bytes",
					      (json_int_t)a->lag_ahead, "largest_at_ms", a->lag_max_at_ms,
					      "largest_ms", a->lag_ms_max, "largest_ms_at_ms", a->lag_ms_at_ms));
	json_object_set_new(o, "figures", figures_json());
	json_object_set_new(o, "far", far[0] ? json_string(far) : json_null());
	return o;
}
