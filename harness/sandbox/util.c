/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c — what the sandbox's files share (internal.h): paths, cgroup.procs,
 * killing a cgroup's processes. */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"

void sb_error_append(struct lab_error *err, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (err == NULL)
		return;
	len = strlen(err->msg);
	if (len + 1 >= sizeof(err->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

/* a + "/" + b without doubled slashes; a is "/" or "/x/y", b a name or path. */
int sb_path_join(char *out, size_t len, const char *a, const char *b)
{
	size_t alen = strlen(a);
	int n;

	while (*b == '/')
		b++;
	if (alen > 0 && a[alen - 1] == '/')
		n = snprintf(out, len, "%s%s", a, b);
	else
		n = snprintf(out, len, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

bool sb_path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

void sb_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

long long sb_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* v1 prints "no limit" as PAGE_COUNTER_MAX pages in bytes (LONG_MAX rounded
 * down to a page: mm/page_counter.c, mm/memcontrol-v1.c); report it as max. */
unsigned long long sb_v1_unlimited_to_max(unsigned long long v)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);

	if (v >= ((unsigned long long)LLONG_MAX / page) * page)
		return UINT64_MAX;
	return v;
}

bool sb_swap_active(void)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	const char *nl;

	if (lab_read_file("/proc/swaps", &buf, NULL, &e) < 0)
		return false;
	nl = strchr(buf, '\n');       /* the header line */
	return nl != NULL && nl[1] != '\0';
}

/* Does the whitespace-separated list in file (cgroup.controllers,
 * cgroup.subtree_control) name word?  -errno when unreadable. */
int sb_file_lists_word(const char *file, const char *word, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char *tok, *save = NULL;
	int ret;

	ret = lab_read_file(file, &buf, NULL, err);
	if (ret < 0)
		return ret;
	for (tok = strtok_r(buf, " \t\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\n", &save))
		if (strcmp(tok, word) == 0)
			return 1;
	return 0;
}

bool sb_file_in(const char *dir, const char *name)
{
	char p[PATH_MAX + 4096 + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return sb_path_exists(p);
}

/* The pids listed in dir/cgroup.procs: count returned, -ENOENT if gone. */
int sb_read_procs(const char *dir, pid_t *pids, size_t max, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char path[PATH_MAX + 4096 + 32];
	char *p, *end;
	int n = 0, ret;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	ret = lab_read_file(path, &buf, NULL, err);
	if (ret == -ENODEV)
		ret = lab_error_set(err, ENOENT, "%s is gone", dir);
	if (ret < 0)
		return ret;
	for (p = buf; *p != '\0'; p = end) {
		unsigned long v;

		while (*p == '\n')
			p++;
		if (*p == '\0')
			break;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || end == p || (*end != '\n' && *end != '\0') || v == 0 || v > INT_MAX)
			return lab_error_set(err, EINVAL, "%s: bad line", path);
		if ((size_t)n < max)
			pids[n] = (pid_t)v;
		n++;
	}
	return n;
}

/* Kill everything in the cgroup at dir (absolute).  v2: cgroup.kill when the
 * kernel has it (5.14+; it also covers descendants), else SIGKILL to each pid
 * in cgroup.procs, again until the file reads empty or the wait runs out.
 * Exited processes leave cgroup.procs at exit (kernel/cgroup/cgroup.c:
 * cgroup_exit), so unreaped zombies do not keep it busy; reaping our own
 * children is the caller's job. */
int sb_kill_dir(const char *dir, enum cg_version v, struct lab_error *err)
{
	long long deadline = sb_now_ms() + SANDBOX_KILL_WAIT_MS;
	pid_t pids[256];
	bool used_kill = false;
	int n;

	if (v == CG_VERSION_V2) {
		char kpath[PATH_MAX + 4096 + 32];
		struct lab_error e;

		snprintf(kpath, sizeof(kpath), "%s/cgroup.kill", dir);
		if (sb_path_exists(kpath) && lab_write_file(kpath, "1", &e) == 0)
			used_kill = true;
	}
	for (;;) {
		int i;

		n = sb_read_procs(dir, pids, sizeof(pids) / sizeof(pids[0]), err);
		if (n == -ENOENT) {
			lab_error_clear(err);
			return 0;
		}
		if (n < 0)
			return n;
		if (n == 0)
			return 0;
		for (i = 0; i < n && (size_t)i < sizeof(pids) / sizeof(pids[0]); i++) {
			if (pids[i] == getpid())
				return lab_error_set(err, EDEADLK, "%s holds pagelab itself (pid %d); "
						     "refusing to kill it", dir, (int)pids[i]);
			if (!used_kill && kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
				return lab_error_errno(err, errno, "kill %d in %s", (int)pids[i], dir);
		}
		if (sb_now_ms() >= deadline)
			return lab_error_set(err, EBUSY, "%d process(es) still in %s %d ms after "
					     "SIGKILL (first: %d; stuck in uninterruptible sleep?)",
					     n, dir, SANDBOX_KILL_WAIT_MS, (int)pids[0]);
		used_kill = false;      /* from now on signal what is left one by one */
		sb_sleep_ms(10);
	}
}
