/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stepper — the stepped allocator of the watermark experiments.
 *
 *   stepper --step SIZE --target SIZE [--interval MS] [--hold MS] [--shared]
 *           [--no-release] [--oom-score-adj N] [--event-fd N] [--ack-fd N]
 *
 * The article's load script (the watermark article, "Lab:
 * watching kswapd across four runs") "grabs memory with mmap in steps,
 * touching every page, and once it reaches 3.5 GB holds for two seconds and
 * releases": runs A-D step 64 MiB every 50 ms or 128 MiB with no pause.  So:
 * each step maps STEP bytes (one mapping a step, as the script's mmap(-1, n)
 * did) and writes one byte in every page, reports a step `alloc`, then sleeps
 * INTERVAL ms (the sleep is not part of work_ns); once TARGET is mapped it
 * reports `target`, sleeps HOLD ms and reports `hold`, then unmaps everything
 * and reports `release` (unless --no-release: then it exits holding it, and
 * the kernel frees it at exit).
 *
 * --shared maps MAP_SHARED|MAP_ANONYMOUS, which is what Python's
 * mmap.mmap(-1, n) gives: shmem-accounted memory (the article's OOM report
 * reads shmem-rss:3763072kB), which the OOM reaper skips (mm/oom_kill.c:
 * __oom_reap_task_mm) and which reclaim can only swap, never drop.
 * --oom-score-adj N writes /proc/self/oom_score_adj first (the article's
 * loader ran at 1000; lowering below the harness's 1000 needs root).
 *
 * Every step carries allocated_bytes, steps, work_ns and the process
 * counters (events.md).  Exit status: 0 done, 1 a step failed (an `error`
 * event says which; a failed mmap is "mmap N bytes: Cannot allocate
 * memory"), 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "decl.h"
#include "events.h"
#include "base/fileio.h"
#include "lockdown.h"
#include "base/size.h"

struct config {
	unsigned long long step, target, interval_ms, hold_ms;
	bool shared, release, set_adj;
	long adj;
};

static void usage(FILE *f)
{
	wl_decl_usage(&wl_decl_stepper, f);
}

/* The declaration the scenario parser reads too (workloads/decl/stepper.c),
 * typed; what each option sets. */
static int set_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		   struct lab_error *err)
{
	struct config *cfg = ctx;

	(void)val;
	(void)err;
	if (!strcmp(opt->key, "shared"))
		cfg->shared = true;
	else if (!strcmp(opt->key, "release"))
		cfg->release = false;       /* the flag is --no-release */
	else if (!strcmp(opt->key, "step"))
		cfg->step = v;
	else if (!strcmp(opt->key, "target"))
		cfg->target = v;
	else if (!strcmp(opt->key, "interval"))
		cfg->interval_ms = v;
	else if (!strcmp(opt->key, "hold"))
		cfg->hold_ms = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct config *cfg, struct events *ev, struct lab_error *err)
{
	struct events_args ea = { .ev = ev, .adj = &cfg->adj, .adj_given = &cfg->set_adj };
	const struct wl_argv a = { .pre = events_argv_pre, .pre_ctx = &ea, .set = set_opt, .ctx = cfg };
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->release = true;
	if ((ret = wl_parse_argv(&wl_decl_stepper, argc, argv, &a, err)) < 0)
		return ret;
	if (cfg->step == 0 || cfg->target == 0)
		return lab_error_set(err, EINVAL, "--step and --target are required and must be > 0");
	if (cfg->step > cfg->target)
		return lab_error_set(err, EINVAL, "--step %llu is larger than --target %llu", cfg->step, cfg->target);
	if (cfg->target > (unsigned long long)SIZE_MAX / 2)
		return lab_error_set(err, EINVAL, "--target %llu: out of range", cfg->target);
	return 0;
}

static void sleep_ms(unsigned long long ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static int report(struct events *ev, const char *step, const char *arg, unsigned long long allocated,
		  unsigned long long steps, unsigned long long work_ns, struct lab_error *err)
{
	struct ev_line l;
	int ret;

	events_step_begin(ev, &l, step, arg);
	ev_u64(&l, "allocated_bytes", allocated);
	ev_u64(&l, "steps", steps);
	ev_u64(&l, "work_ns", work_ns);
	ret = events_add_self(&l, err);
	if (ret < 0)
		return ret;
	return events_step_end(ev, &l, err);
}

int main(int argc, char **argv)
{
	struct lab_error err = { 0 };
	struct config cfg;
	struct events ev;
	struct ev_line l;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), nmaps, n = 0;
	void **maps;
	size_t *lens;
	unsigned long long done = 0, t0;
	char arg[32];
	int ret = 0;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	events_init(&ev, "stepper");
	if (parse_args(argc, argv, &cfg, &ev, &err) < 0) {
		fprintf(stderr, "stepper: %s\n", err.msg);
		return 2;
	}
	nmaps = (size_t)((cfg.target + cfg.step - 1) / cfg.step);
	maps = calloc(nmaps, sizeof(*maps));
	lens = calloc(nmaps, sizeof(*lens));
	if (maps == NULL || lens == NULL) {
		fprintf(stderr, "stepper: out of memory\n");
		return 1;
	}
	if (cfg.set_adj && events_set_oom_adj(cfg.adj, &err) < 0) {
		fprintf(stderr, "stepper: %s\n", err.msg);
		return 1;
	}
	events_start_begin(&ev, &l);
	ev_u64(&l, "step_bytes", cfg.step);
	ev_u64(&l, "target_bytes", cfg.target);
	ev_u64(&l, "interval_ms", cfg.interval_ms);
	ev_u64(&l, "hold_ms", cfg.hold_ms);
	ev_bool(&l, "shared", cfg.shared);
	if (events_emit(&ev, &l, &err) < 0) {
		fprintf(stderr, "stepper: start: %s\n", err.msg);
		return 1;
	}
	if (lockdown_install(NULL, &err) < 0) {
		events_error(&ev, "lockdown", err.msg);
		fprintf(stderr, "stepper: %s\n", err.msg);
		return 1;
	}
	while (done < cfg.target) {
		size_t len = (size_t)(cfg.target - done < cfg.step ? cfg.target - done : cfg.step);
		volatile unsigned char *p;

		t0 = events_now_ns();
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 (cfg.shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			ret = lab_error_errno(&err, errno, "mmap %zu bytes", len);
			events_error(&ev, "alloc", err.msg);
			goto out;
		}
		/* One write a page charges it (mm/memory.c: do_anonymous_page, or
		 * shmem_fault for the shared mapping). */
		for (size_t off = 0; off < len; off += page)
			p[off] = 0xA5;
		maps[n] = (void *)p;
		lens[n++] = len;
		done += len;
		snprintf(arg, sizeof(arg), "%llu", done);
		ret = report(&ev, "alloc", arg, done, n, events_now_ns() - t0, &err);
		if (ret < 0)
			goto fail;
		if (done < cfg.target && cfg.interval_ms)
			sleep_ms(cfg.interval_ms);
	}
	ret = report(&ev, "target", NULL, done, n, 0, &err);
	if (ret < 0)
		goto fail;
	if (cfg.hold_ms) {
		sleep_ms(cfg.hold_ms);
		snprintf(arg, sizeof(arg), "%llu", cfg.hold_ms);
		ret = report(&ev, "hold", arg, done, n, cfg.hold_ms * 1000000ULL, &err);
		if (ret < 0)
			goto fail;
	}
	if (cfg.release) {
		t0 = events_now_ns();
		for (size_t i = 0; i < n; i++)
			munmap(maps[i], lens[i]);
		n = 0;
		ret = report(&ev, "release", NULL, 0, 0, events_now_ns() - t0, &err);
		if (ret < 0)
			goto fail;
	}
	(void)events_done(&ev, NULL);
	goto out;
fail:
	events_error(&ev, "report", err.msg);
out:
	if (ret < 0)
		fprintf(stderr, "stepper: %s\n", err.msg);
	free(maps);
	free(lens);
	return ret < 0 ? 1 : 0;
}
