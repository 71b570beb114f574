/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reclaimer — write the sandbox's memory.reclaim in a loop (cgroup v2).
 *
 *   reclaimer --amount SIZE [--interval MS] [--count N] [--above SIZE] [--report MS]
 *             [--event-fd N] [--ack-fd N]
 *
 * A second reclaimer on the sandbox's memory cgroup while another workload
 * allocates: each write runs proactive reclaim of the cgroup in this task
 * (mm/memcontrol.c: memory_reclaim -> try_to_free_mem_cgroup_pages, which
 * also fires mm_vmscan_memcg_reclaim_begin/end), so two tasks reclaim the
 * same LRU lists at once — the setting in which a transient folio
 * reference from one can meet the other's unmap of a lazily freed THP
 * (the notes on issue 23: mm/rmap.c try_to_unmap_one before 6.15).
 *
 * Its own cgroup is the sandbox (the harness starts it there): the path is
 * /proc/self/cgroup's "0::PATH" under the cgroup2 mount of /proc/self/mounts,
 * opened once before the lockdown.  A write answers -EAGAIN when the kernel
 * could not reclaim the amount (Documentation/admin-guide/cgroup-v2.rst,
 * memory.reclaim).  --above SIZE: a write only while the cgroup's
 * memory.current is at least SIZE (read before each, from a descriptor kept
 * open), so the loop reclaims while another workload's pressure holds the
 * cgroup near its limit and idles otherwise, as a user-space OOM-preventer
 * would.  Every --report ms, and when a burst of writes ends, it reports a
 * step `reclaim` with the counts so far (writes, ok, eagain, errors, the time
 * spent in writes and checks, its longest round); with --count N it stops
 * after N writes, reports, and waits for SIGTERM like a ballast.  At
 * SIGTERM/SIGINT it writes a last `tally` event with every count (no ack)
 * and exits.
 *
 * Exit status: 0 stopped by SIGTERM/SIGINT, 1 failed (no cgroup v2, no
 * memory.reclaim: the start event says why), 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fileio.h"
#include "decl.h"
#include "events.h"
#include "lockdown.h"

struct config {
	unsigned long long amount, interval_ms, count, report_ms, above;
};

struct tally {
	unsigned long long writes, ok, eagain, errors, busy_ns, max_ns, idle;
	unsigned long long checks, max_check_ns, max_round_ns;
	int last_errno;
};

static int set_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		   struct lab_error *err)
{
	struct config *cfg = ctx;

	(void)val;
	(void)err;
	if (!strcmp(opt->key, "amount"))
		cfg->amount = v;
	else if (!strcmp(opt->key, "interval"))
		cfg->interval_ms = v;
	else if (!strcmp(opt->key, "count"))
		cfg->count = v;
	else if (!strcmp(opt->key, "report"))
		cfg->report_ms = v;
	else if (!strcmp(opt->key, "above"))
		cfg->above = v;
	return 0;
}

/* "0::/pagelab-1/sandbox-0" of /proc/self/cgroup, under the first cgroup2
 * mount: the memory.reclaim of the cgroup this process is in. */
static int reclaim_path(char *out, size_t len, struct lab_error *err)
{
	cleanup_free char *cg = NULL;
	cleanup_free char *mounts = NULL;
	const char *rel = NULL, *p;
	char mnt[512] = "", type[32];
	int ret;

	if ((ret = lab_read_file("/proc/self/cgroup", &cg, NULL, err)) < 0)
		return ret;
	for (p = cg; p != NULL && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "0::", 3)) {
			rel = p + 3;
			break;
		}
	if (rel == NULL)
		return lab_error_set(err, EOPNOTSUPP, "no cgroup v2 line in /proc/self/cgroup: memory.reclaim needs cgroup v2");
	if ((ret = lab_read_file("/proc/self/mounts", &mounts, NULL, err)) < 0)
		return ret;
	for (p = mounts; p != NULL && *p && !mnt[0]; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (sscanf(p, "%*s %511s %31s", mnt, type) != 2 || strcmp(type, "cgroup2") != 0)
			mnt[0] = '\0';
	if (!mnt[0])
		return lab_error_set(err, EOPNOTSUPP, "no cgroup2 mount in /proc/self/mounts");
	if (!strncmp(rel, "/\n", 2) || !strcmp(rel, "/"))
		rel = "";               /* the root: "MOUNT/memory.reclaim" */
	if ((size_t)snprintf(out, len, "%s%.*s/memory.reclaim", mnt, (int)strcspn(rel, "\n"), rel) >= len)
		return lab_error_set(err, ENAMETOOLONG, "memory.reclaim path too long");
	return 0;
}

/* The counters so far, into a `reclaim` step or the exit's `tally`. */
static void tally_fields(struct ev_line *l, const struct tally *t)
{
	ev_u64(l, "writes", t->writes);
	ev_u64(l, "ok", t->ok);
	ev_u64(l, "eagain", t->eagain);
	ev_u64(l, "errors", t->errors);
	ev_u64(l, "below_above", t->idle);
	ev_u64(l, "last_errno", (unsigned long long)t->last_errno);
	ev_u64(l, "busy_ns", t->busy_ns);
	ev_u64(l, "max_write_ns", t->max_ns);
	ev_u64(l, "checks", t->checks);
	ev_u64(l, "max_check_ns", t->max_check_ns);
	ev_u64(l, "max_round_ns", t->max_round_ns);
}

/* The last word, at SIGTERM/SIGINT: {"event":"tally", ...} with every counter,
 * no ack waited for (the harness is stopping the run; it reads what a
 * workload wrote until it exits: runs[].workloads[].tally).  Writes done
 * since the last step are not lost to the run's end. */
static void tally(struct events *ev, const struct tally *t)
{
	struct ev_line l;

	events_line_begin(&l, "tally");
	ev_u64(&l, "t_ns", events_now_ns());
	tally_fields(&l, t);
	(void)events_emit(ev, &l, NULL);
}

/* A stop already asked for (taken now): no report that waits for an ack the
 * harness, stopping, no longer sends. */
static bool stopping(const sigset_t *stop)
{
	const struct timespec zero = { 0, 0 };

	return sigtimedwait(stop, NULL, &zero) >= 0;
}

/* memory.current below --above: this round writes nothing.  Read with pread
 * from 0 on a descriptor kept open: a reopen each round allocates a struct
 * file and a seq_file buffer charged to this very cgroup
 * (fs/seq_file.c: seq_buf_alloc, GFP_KERNEL_ACCOUNT), so at its limit every
 * check would itself reclaim; a kept seq_file keeps its buffer.  A check
 * that fails is not "below": the round writes. */
static bool below(const struct config *cfg, int cur, struct tally *t)
{
	unsigned long long v, t0, d;
	struct lab_error e;
	char buf[32];
	ssize_t n;
	bool b = false;

	if (cfg->above == 0)
		return false;
	t0 = events_now_ns();
	n = pread(cur, buf, sizeof(buf) - 1, 0);
	if (n > 0) {
		buf[n] = '\0';
		b = lab_text_u64(buf, "memory.current", &v, &e) == 0 && v < cfg->above;
	}
	d = events_now_ns() - t0;
	t->checks++;
	if (d > t->max_check_ns)
		t->max_check_ns = d;
	return b;
}

/* A `reclaim` step, then the harness's ack — or a stop, which ends the wait
 * (1): a harness that stops the run acks nothing more, and SIGTERM is
 * blocked here, so a plain read of the ack would wait for SIGKILL (a step
 * written just as the run's main workload ended). */
static int report(struct events *ev, const struct tally *t, const sigset_t *stop, struct lab_error *err)
{
	struct ev_line l;
	int ret;

	events_step_begin(ev, &l, "reclaim", NULL);
	tally_fields(&l, t);
	if ((ret = events_emit(ev, &l, err)) < 0)
		return ret;
	while (ev->ack_fd >= 0) {
		struct pollfd p = { .fd = ev->ack_fd, .events = POLLIN };
		ssize_t n;
		char b;

		if (stopping(stop))
			return 1;
		if (poll(&p, 1, 20) <= 0)
			continue;
		n = read(ev->ack_fd, &b, 1);
		if (n == 1)
			return 0;
		if (n == 0)
			return lab_error_set(err, EPIPE, "ack fd %d closed: the harness went away", ev->ack_fd);
		if (errno != EINTR && errno != EAGAIN)
			return lab_error_errno(err, errno, "read ack from fd %d", ev->ack_fd);
	}
	return 0;
}

/* When the loop last reported, when it reports next, and the time this
 * round spent waiting for the harness's acks. */
struct pace {
	unsigned long long reported, next_ns, acks_ns;
};

/* A `reclaim` step now, unless a stop is pending (1: the loop ends). */
static int report_now(struct events *ev, const struct config *cfg, const sigset_t *stop, const struct tally *t,
		      struct pace *p, struct lab_error *err)
{
	unsigned long long a = events_now_ns(), b;
	int ret;

	if (stopping(stop) || (ret = report(ev, t, stop, err)) > 0)
		return 1;
	if (ret < 0)
		return ret;
	b = events_now_ns();
	p->reported = t->writes;
	p->next_ns = b + cfg->report_ms * 1000000ULL;
	p->acks_ns += b - a;
	return 0;
}

/* Check, write or not, report, sleep (in sigtimedwait: SIGTERM ends the
 * sleep at once).  max_round_ns: the longest round from its start to the
 * next one's, the waits for the harness's acks left out — how long the
 * loop was away from memory.current (a round far above --interval means
 * the task did not run, or a check or a write blocked). */
static int loop(struct events *ev, const struct config *cfg, int fd, int cur, const sigset_t *stop,
		struct lab_error *err)
{
	char amount[32];
	struct tally t = { 0 };
	struct pace p = { .next_ns = events_now_ns() + cfg->report_ms * 1000000ULL };
	unsigned long long prev = 0;
	int ret = 0, n = snprintf(amount, sizeof(amount), "%llu", cfg->amount);

	while (ret == 0) {
		unsigned long long t0 = events_now_ns(), d;
		struct timespec ts = { (time_t)(cfg->interval_ms / 1000), (long)(cfg->interval_ms % 1000) * 1000000L };

		if (prev && t0 - prev - p.acks_ns > t.max_round_ns)
			t.max_round_ns = t0 - prev - p.acks_ns;
		prev = t0;
		p.acks_ns = 0;
		if (below(cfg, cur, &t)) {
			t.idle++;
			/* A burst of writes just ended (the pressure let go): say so now,
			 * not a report interval later, when the run may be over. */
			if (t.writes > p.reported && (ret = report_now(ev, cfg, stop, &t, &p, err)) != 0)
				break;
		} else {
			if (write(fd, amount, (size_t)n) == n) {
				t.ok++;
			} else if (errno == EAGAIN) {
				t.eagain++;
			} else {
				t.errors++;
				t.last_errno = errno;
			}
			t.writes++;
			d = events_now_ns() - t0;
			t.busy_ns += d;
			if (d > t.max_ns)
				t.max_ns = d;
		}
		if (cfg->count && t.writes >= cfg->count) {
			/* Done: the last counts, then wait for the stop like a ballast. */
			if ((ret = report_now(ev, cfg, stop, &t, &p, err)) == 0)
				while (sigwaitinfo(stop, NULL) < 0 && errno == EINTR)
					;
			break;
		}
		if (events_now_ns() >= p.next_ns && (ret = report_now(ev, cfg, stop, &t, &p, err)) != 0)
			break;
		if (cfg->interval_ms ? sigtimedwait(stop, NULL, &ts) >= 0 : stopping(stop))
			break;
	}
	if (ret < 0)
		return ret;
	tally(ev, &t);
	return 0;
}

int main(int argc, char **argv)
{
	struct lab_error err = { 0 };
	struct config cfg = { .interval_ms = 100, .report_ms = 1000 };
	struct events ev;
	struct events_args ea = { .ev = &ev };
	const struct wl_argv a = { .pre = events_argv_pre, .pre_ctx = &ea, .set = set_opt, .ctx = &cfg };
	struct ev_line l;
	char path[1024], current[1024];
	sigset_t stop;
	int fd, cur = -1;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		wl_decl_usage(&wl_decl_reclaimer, stdout);
		return 0;
	}
	events_init(&ev, "reclaimer");
	if (wl_parse_argv(&wl_decl_reclaimer, argc, argv, &a, &err) < 0 ||
	    (cfg.amount == 0 && lab_error_set(&err, EINVAL, "--amount is required") < 0)) {
		fprintf(stderr, "reclaimer: %s\n", err.msg);
		return 2;
	}
	if (reclaim_path(path, sizeof(path), &err) < 0 ||
	    ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0 && lab_error_errno(&err, errno, "open %s", path) < 0)) {
		events_error(&ev, "open", err.msg);
		fprintf(stderr, "reclaimer: %s\n", err.msg);
		return 1;
	}
	/* memory.current beside memory.reclaim (--above), kept open. */
	snprintf(current, sizeof(current), "%.*scurrent", (int)(strlen(path) - strlen("reclaim")), path);
	if (cfg.above > 0 && (cur = open(current, O_RDONLY | O_CLOEXEC)) < 0) {
		lab_error_errno(&err, errno, "open %s", current);
		events_error(&ev, "open", err.msg);
		fprintf(stderr, "reclaimer: %s\n", err.msg);
		return 1;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	events_start_begin(&ev, &l);
	ev_str(&l, "path", path);
	ev_u64(&l, "amount_bytes", cfg.amount);
	ev_u64(&l, "interval_ms", cfg.interval_ms);
	ev_u64(&l, "count", cfg.count);
	ev_u64(&l, "above_bytes", cfg.above);
	if (events_emit(&ev, &l, &err) < 0 || lockdown_install(NULL, &err) < 0 || loop(&ev, &cfg, fd, cur, &stop, &err) < 0) {
		events_error(&ev, "reclaim", err.msg);
		fprintf(stderr, "reclaimer: %s\n", err.msg);
		return 1;
	}
	(void)events_done(&ev, NULL);
	return 0;
}
