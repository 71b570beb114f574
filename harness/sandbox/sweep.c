/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sweep.c — the groups of dead runs (sandbox.h: sandbox_sweep): every
 * pagelab-<pid>-* group below pagelab's own cgroup whose pid is dead is
 * killed and removed, children first.  A live pid keeps its groups. */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Kill and remove dir and everything below it, children first. */
static int remove_tree(const char *mount, const char *rel, enum cg_version v, int depth,
		       struct lab_error *err)
{
	char abs[PATH_MAX + 4096];
	DIR *d;
	struct dirent *de;
	int ret;

	if (depth > SANDBOX_SWEEP_DEPTH)
		return lab_error_set(err, ELOOP, "cgroup %s nests deeper than pagelab makes groups",
				     rel);
	if (sb_path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	d = opendir(abs);
	if (d == NULL)
		return errno == ENOENT ? 0 : lab_error_errno(err, errno, "open %s", abs);
	while ((de = readdir(d)) != NULL) {
		char child[4096];

		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (sb_path_join(child, sizeof(child), rel, de->d_name) < 0) {
			closedir(d);
			return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
		}
		ret = remove_tree(mount, child, v, depth + 1, err);
		if (ret < 0) {
			closedir(d);
			return ret;
		}
	}
	closedir(d);
	ret = sb_kill_dir(abs, v, err);
	if (ret < 0)
		return ret;
	return sb_remove_group(mount, rel, err);
}

/* "pagelab-<pid>-<n>" (v1) or "pagelab-<pid>" (v2); the pid, or -1. */
static long stale_name_pid(const char *name, enum cg_version v)
{
	const char *p = name + 8;
	char *end;
	unsigned long pid, n;

	if (strncmp(name, "pagelab-", 8) != 0 || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	pid = strtoul(p, &end, 10);
	if (errno != 0 || pid == 0 || pid > INT_MAX)
		return -1;
	if (v == CG_VERSION_V2)
		return *end == '\0' ? (long)pid : -1;
	if (*end != '-' || end[1] < '0' || end[1] > '9')
		return -1;
	p = end + 1;
	n = strtoul(p, &end, 10);
	(void)n;
	return *end == '\0' && errno == 0 ? (long)pid : -1;
}

int sandbox_sweep(const struct cg_host *host, int *removed, struct lab_error *err)
{
	char own[PATH_MAX + 4096];
	DIR *d;
	struct dirent *de;
	int ret = 0, count = 0;

	if (removed != NULL)
		*removed = 0;
	if (host->memory != CG_VERSION_V1 && host->memory != CG_VERSION_V2)
		return lab_error_set(err, ENODEV, "no memory controller");
	ret = sb_libcg_init(err);
	if (ret < 0)
		return ret;
	if (sb_path_join(own, sizeof(own), host->mount, host->self) < 0)
		return lab_error_set(err, ENAMETOOLONG, "own cgroup path too long");
	d = opendir(own);
	if (d == NULL)
		return lab_error_errno(err, errno, "open own cgroup %s", own);
	while ((de = readdir(d)) != NULL) {
		char rel[4096];
		long pid;

		if (de->d_type != DT_DIR)
			continue;
		pid = stale_name_pid(de->d_name, host->memory);
		if (pid < 0 || pid == (long)getpid())
			continue;
		/* A live pid (or one we may not signal) keeps its groups: a sweep
		 * must never pull a running pagelab's sandbox from under it. */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (sb_path_join(rel, sizeof(rel), host->self, de->d_name) < 0) {
			ret = lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
			break;
		}
		ret = remove_tree(host->mount, rel, host->memory, 0, err);
		if (ret < 0) {
			lab_error_prefix(err, "sweep stale %s", de->d_name);
			break;
		}
		count++;
	}
	closedir(d);
	if (removed != NULL)
		*removed = count;
	return ret < 0 ? ret : 0;
}
