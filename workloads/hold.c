/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hold — ballast: charge SIZE of anonymous memory to the sandbox and keep it.
 *
 *   hold --size SIZE | --leave SIZE  [--fill BYTE] [--oom-score-adj N]
 *        [--event-fd N] [--ack-fd N]
 *
 * The MADV_FREE article's container had about 156 MiB charged besides the
 * region (memory.current 684,368 kB with a 524,288 kB region), and reclaim
 * under a limit stops once the shortfall is covered, so how much of the region
 * is reclaimed depends on that baseline.  hold reproduces it: it maps SIZE of
 * private anonymous memory, touches every page (or memsets every byte with
 * --fill), reports one step `hold`, and waits until SIGTERM or SIGINT, then
 * exits 0.  SIGTERM or SIGINT during the fill ends it within 32 MiB (anon.h):
 * exit 0, no step (an outside ballast still filling at the run's end).
 *
 * --leave SIZE shapes the machine instead: it holds MemFree (read from
 * /proc/meminfo at its start) minus SIZE, so that SIZE stays free whatever
 * the machine's size — the watermark articles' lab VMs were not empty (their
 * other tenants held memory), and a fresh guest is.  The start event
 * carries memfree_kb and leave_bytes, the step held_bytes.  --oom-score-adj N makes it a
 * bystander rather than the OOM killer's first choice (the harness starts
 * every workload at 1000).
 *
 * Exit status: 0 stopped by SIGTERM/SIGINT, 1 failed, 2 bad arguments.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "anon.h"
#include "base/error.h"
#include "base/fileio.h"
#include "base/kv.h"
#include "decl.h"
#include "events.h"
#include "lockdown.h"
#include "base/size.h"

struct config {
	unsigned long long size, leave;
	long adj;
	bool fill, by_size, by_leave, set_adj;
	unsigned int byte;
};

/* --size, --leave, --fill: the declaration the scenario parser reads too
 * (workloads/decl/hold.c), typed; what each sets. */
static int set_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		   struct lab_error *err)
{
	struct config *cfg = ctx;

	(void)val;
	(void)err;
	if (!strcmp(opt->key, "size")) {
		cfg->size = v;
		cfg->by_size = true;
	} else if (!strcmp(opt->key, "leave")) {
		cfg->leave = v;
		cfg->by_leave = true;
	} else if (!strcmp(opt->key, "fill")) {
		cfg->byte = (unsigned int)v;
		cfg->fill = true;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct config *cfg, struct events *ev,
		      struct lab_error *err)
{
	struct events_args ea = { .ev = ev, .adj = &cfg->adj, .adj_given = &cfg->set_adj };
	const struct wl_argv a = { .pre = events_argv_pre, .pre_ctx = &ea, .set = set_opt, .ctx = cfg };
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	if ((ret = wl_parse_argv(&wl_decl_hold, argc, argv, &a, err)) < 0)
		return ret;
	if (cfg->by_size == cfg->by_leave)
		return lab_error_set(err, EINVAL, "one of --size and --leave is required");
	if (cfg->by_leave)
		return 0;
	if (cfg->size == 0 || cfg->size > (unsigned long long)SIZE_MAX / 2)
		return lab_error_set(err, EINVAL, "--size %llu: out of range", cfg->size);
	return 0;
}

static int read_memfree_kb(unsigned long long *kb, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	struct kv_list l = { 0 };
	int ret;

	ret = lab_read_file("/proc/meminfo", &buf, NULL, err);
	if (ret == 0)
		ret = kv_parse_colon(buf, &l, err);
	if (ret == 0 && !kv_get(&l, "MemFree", kb))
		ret = lab_error_set(err, ENOENT, "/proc/meminfo has no MemFree");
	kv_free(&l);
	return ret;
}

static int hold(struct events *ev, const struct config *cfg, const sigset_t *stop,
		struct lab_error *err)
{
	unsigned long long t0, work_ns;
	struct ev_line l;
	void *p = NULL;
	int ret, sig;

	/* Without --fill, cfg->byte is 0 (parse_args zeroes cfg): a 0 a page. */
	t0 = events_now_ns();
	ret = anon_map_charged((size_t)cfg->size, (size_t)sysconf(_SC_PAGESIZE),
			       (unsigned char)cfg->byte, cfg->fill, stop, &p, err);
	if (ret != 0)
		return ret < 0 ? ret : 0;       /* stopped while it filled: no step */
	work_ns = events_now_ns() - t0;

	events_step_begin(ev, &l, "hold", NULL);
	ev_u64(&l, "work_ns", work_ns);
	ev_u64(&l, "held_bytes", cfg->size);
	ret = events_add_self(&l, err);
	if (ret < 0)
		return ret;
	ret = events_step_end(ev, &l, err);
	if (ret < 0)
		return ret;

	/* SIGTERM and SIGINT are blocked since main: no handler, no race
	 * between a flag test and pause(). */
	do
		sig = sigwaitinfo(stop, NULL);
	while (sig < 0 && errno == EINTR);
	if (sig < 0)
		return lab_error_errno(err, errno, "sigwaitinfo");
	return 0;
}

int main(int argc, char **argv)
{
	struct lab_error err = { 0 };
	struct config cfg;
	struct events ev;
	struct ev_line l;
	sigset_t stop;
	unsigned long long memfree_kb = 0;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		wl_decl_usage(&wl_decl_hold, stdout);
		return 0;
	}
	events_init(&ev, "hold");
	if (parse_args(argc, argv, &cfg, &ev, &err) < 0) {
		fprintf(stderr, "hold: %s\n", err.msg);
		return 2;
	}

	if (cfg.set_adj && events_set_oom_adj(cfg.adj, &err) < 0) {
		fprintf(stderr, "hold: %s\n", err.msg);
		return 1;
	}
	if (cfg.by_leave) {
		/* Read before the lockdown; MemFree now, not when the pages land. */
		if (read_memfree_kb(&memfree_kb, &err) < 0) {
			fprintf(stderr, "hold: --leave: %s\n", err.msg);
			return 1;
		}
		if (memfree_kb <= cfg.leave >> 10) {
			/* Said to the harness too: the run fails with this message. */
			lab_error_set(&err, ENOMEM, "--leave %llu: MemFree is only %llu kB", cfg.leave, memfree_kb);
			events_error(&ev, "leave", err.msg);
			fprintf(stderr, "hold: %s\n", err.msg);
			return 1;
		}
		cfg.size = (memfree_kb << 10) - cfg.leave;
		if (cfg.size > (unsigned long long)SIZE_MAX / 2) {
			fprintf(stderr, "hold: --leave: %llu bytes to hold is out of range\n", cfg.size);
			return 1;
		}
	}

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	if (sigprocmask(SIG_BLOCK, &stop, NULL) < 0) {
		fprintf(stderr, "hold: sigprocmask: %s\n", strerror(errno));
		return 1;
	}

	events_start_begin(&ev, &l);
	ev_u64(&l, "size_bytes", cfg.size);
	ev_bool(&l, "fill", cfg.fill);
	if (cfg.by_leave) {
		ev_u64(&l, "leave_bytes", cfg.leave);
		ev_u64(&l, "memfree_kb", memfree_kb);
	}
	if (events_emit(&ev, &l, &err) < 0) {
		fprintf(stderr, "hold: start: %s\n", err.msg);
		return 1;
	}
	if (lockdown_install(NULL, &err) < 0) {
		events_error(&ev, "lockdown", err.msg);
		fprintf(stderr, "hold: %s\n", err.msg);
		return 1;
	}
	if (hold(&ev, &cfg, &stop, &err) < 0) {
		events_error(&ev, "hold", err.msg);
		fprintf(stderr, "hold: %s\n", err.msg);
		return 1;
	}
	/* The harness may have stopped reading: a lost `done` is no failure. */
	(void)events_done(&ev, NULL);
	return 0;
}
