/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lazyscan — how much lazily freed memory this host's processes hold.
 *
 *   lazyscan [--event-fd N] [--ack-fd N]
 *
 * LazyFree is in no system-wide file (not in /proc/meminfo): it is printed
 * per process in /proc/PID/smaps_rollup (fs/proc/task_mmu.c: __show_smap).
 * The article's last experiment scanned every process of a server and found
 * none with LazyFree > 0.  lazyscan does that scan: for every /proc/[0-9]*
 * it reads smaps_rollup and reports one step `scan-host` with
 *
 *   processes          processes whose smaps_rollup was read, kernel threads
 *                      and zombies included (counted again in no_mm)
 *   no_mm              of those, the ones with no address space (ESRCH)
 *   gone               vanished between readdir and the read (not an error)
 *   unreadable         present but not readable (EACCES: e.g. a pid 1 in
 *                      another user namespace)
 *   with_lazyfree      processes with LazyFree > 0
 *   lazyfree_total_kb  their sum
 *   top                the 10 largest: [{pid, comm, lazyfree_kb}]
 *
 * Exit status: 0 scanned, 1 failed, 2 bad arguments.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "decl.h"
#include "events.h"
#include "base/fileio.h"
#include "lockdown.h"
#include "base/kv.h"

#define TOP_MAX 10

struct top_entry {
	unsigned long long pid, lazyfree_kb;
	char comm[64];
};

struct host_scan {
	unsigned long long processes, no_mm, gone, unreadable, with_lazyfree, total_kb;
	size_t ntop;
	struct top_entry top[TOP_MAX];
};

static bool all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Keep the TOP_MAX largest, largest first (ties: lower pid first). */
static void top_insert(struct host_scan *hs, unsigned long long pid,
		       unsigned long long kb, const char *comm)
{
	size_t i = hs->ntop;

	while (i > 0 && hs->top[i - 1].lazyfree_kb < kb)
		i--;
	if (i >= TOP_MAX)
		return;
	if (hs->ntop < TOP_MAX)
		hs->ntop++;
	memmove(&hs->top[i + 1], &hs->top[i], (hs->ntop - 1 - i) * sizeof(hs->top[0]));
	hs->top[i].pid = pid;
	hs->top[i].lazyfree_kb = kb;
	snprintf(hs->top[i].comm, sizeof(hs->top[i].comm), "%s", comm);
}

/* Reading smaps_rollup of a task without an mm (a kernel thread, a zombie)
 * fails with ESRCH (fs/proc/task_mmu.c: smaps_rollup_open and
 * show_smaps_rollup answer -ESRCH when the task has no mm; on 6.18 the open
 * already does); so does a process that exited
 * under our feet.  Its /proc directory tells them apart: it stays until the
 * task is reaped. */
static bool still_there(int procfd, const char *pid)
{
	struct stat st;

	return fstatat(procfd, pid, &st, 0) == 0;
}

static int scan_one(int procfd, const char *pid, struct host_scan *hs, struct lab_error *err)
{
	cleanup_free char *rollup = NULL;
	cleanup_free char *comm = NULL;
	struct lab_error e = { 0 };
	struct kv_list kv = { 0 };
	char path[64];
	size_t len;
	unsigned long long kb;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/smaps_rollup", pid) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "/proc/%s: pid too long", pid);
	ret = lab_read_fileat(procfd, path, &rollup, &len, &e);
	if (ret < 0 && e.code == ESRCH && still_there(procfd, pid))
		len = 0;        /* a kernel thread or a zombie: no mm to read */
	else if (ret < 0 && (e.code == ENOENT || e.code == ESRCH)) {
		hs->gone++;
		return 0;
	} else if (ret < 0) {
		hs->unreadable++;
		return 0;
	}
	hs->processes++;
	if (len == 0) {
		hs->no_mm++;
		return 0;
	}
	ret = kv_parse_colon(rollup, &kv, err);
	if (ret < 0) {
		kv_free(&kv);
		return lab_error_prefix(err, "/proc/%s", path);
	}
	kb = kv_get0(&kv, "LazyFree");
	kv_free(&kv);
	if (kb == 0)
		return 0;
	hs->with_lazyfree++;
	hs->total_kb += kb;

	if ((size_t)snprintf(path, sizeof(path), "%s/comm", pid) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "/proc/%s: pid too long", pid);
	if (lab_read_fileat(procfd, path, &comm, &len, &e) < 0) {
		top_insert(hs, strtoull(pid, NULL, 10), kb, "?");
		return 0;
	}
	if (len > 0 && comm[len - 1] == '\n')
		comm[len - 1] = '\0';
	top_insert(hs, strtoull(pid, NULL, 10), kb, comm);
	return 0;
}

static int scan_host(struct host_scan *hs, struct lab_error *err)
{
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	memset(hs, 0, sizeof(*hs));
	dir = opendir("/proc");
	if (dir == NULL)
		return lab_error_errno(err, errno, "opendir /proc");
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (de == NULL) {
			if (errno != 0)
				ret = lab_error_errno(err, errno, "readdir /proc");
			break;
		}
		if (!all_digits(de->d_name))
			continue;
		ret = scan_one(dirfd(dir), de->d_name, hs, err);
		if (ret < 0)
			break;
	}
	closedir(dir);
	return ret;
}

/* lazyscan declares no option: wl_parse_argv never calls this. */
static int no_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		  struct lab_error *err)
{
	(void)ctx;
	(void)val;
	(void)v;
	return lab_error_set(err, EINVAL, "%s: lazyscan takes no option", opt->flag);
}

int main(int argc, char **argv)
{
	struct lab_error err = { 0 };
	struct host_scan hs;
	struct events ev;
	struct ev_line l;
	unsigned long long t0, work_ns;
	struct events_args ea = { .ev = &ev };
	const struct wl_argv argv_decl = { .pre = events_argv_pre, .pre_ctx = &ea, .set = no_opt };
	size_t i;
	int ret;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		wl_decl_usage(&wl_decl_lazyscan, stdout);
		return 0;
	}
	events_init(&ev, "lazyscan");
	/* No options of its own (workloads/decl/lazyscan.c): only the events' fds. */
	if (wl_parse_argv(&wl_decl_lazyscan, argc, argv, &argv_decl, &err) < 0) {
		fprintf(stderr, "lazyscan: %s\n", err.msg);
		return 2;
	}

	events_start_begin(&ev, &l);
	if (events_emit(&ev, &l, &err) < 0) {
		fprintf(stderr, "lazyscan: start: %s\n", err.msg);
		return 1;
	}
	if (lockdown_install(NULL, &err) < 0) {
		events_error(&ev, "lockdown", err.msg);
		fprintf(stderr, "lazyscan: %s\n", err.msg);
		return 1;
	}

	t0 = events_now_ns();
	ret = scan_host(&hs, &err);
	work_ns = events_now_ns() - t0;
	if (ret == 0) {
		events_step_begin(&ev, &l, "scan-host", NULL);
		ev_u64(&l, "work_ns", work_ns);
		ev_u64(&l, "processes", hs.processes);
		ev_u64(&l, "no_mm", hs.no_mm);
		ev_u64(&l, "gone", hs.gone);
		ev_u64(&l, "unreadable", hs.unreadable);
		ev_u64(&l, "with_lazyfree", hs.with_lazyfree);
		ev_u64(&l, "lazyfree_total_kb", hs.total_kb);
		ev_arr_begin(&l, "top");
		for (i = 0; i < hs.ntop; i++) {
			ev_obj_begin(&l, NULL);
			ev_u64(&l, "pid", hs.top[i].pid);
			ev_str(&l, "comm", hs.top[i].comm);
			ev_u64(&l, "lazyfree_kb", hs.top[i].lazyfree_kb);
			ev_obj_end(&l);
		}
		ev_arr_end(&l);
		ret = events_step_end(&ev, &l, &err);
	}
	if (ret == 0)
		ret = events_done(&ev, &err);
	if (ret < 0) {
		events_error(&ev, "scan-host", err.msg);
		fprintf(stderr, "lazyscan: %s\n", err.msg);
		return 1;
	}
	return 0;
}
