/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workdir.c — a run's private directory (workdir.h). */
#include "workdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int workdir_create(int run_index, uid_t uid, gid_t gid, struct workdir *w, struct lab_error *err)
{
	int fd;

	memset(w, 0, sizeof(*w));
	snprintf(w->top, sizeof(w->top), "%s/pagelab-%d-%d-XXXXXX", WORKDIR_BASE, (int)getpid(), run_index);
	if (mkdtemp(w->top) == NULL) {
		int e = errno;

		w->top[0] = '\0';
		return lab_error_errno(err, e, "the run's directory in %s", WORKDIR_BASE);
	}
	snprintf(w->path, sizeof(w->path), "%s/run", w->top);
	if (chmod(w->top, 0711) < 0 || mkdir(w->path, 0700) < 0)
		return lab_error_errno(err, errno, "the run's directory %s", w->path);
	fd = open(w->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchown(fd, uid, gid) < 0 || fchmod(fd, 0700) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return lab_error_errno(err, e, "the run's directory %s: owner %d", w->path, (int)uid);
	}
	close(fd);
	return 0;
}

/* Everything below dirfd, then dirfd's own entry name in parent; never
 * following a link: a name that is not a directory when opened O_NOFOLLOW
 * is unlinked as it is. */
static int rmtree_at(int parent, const char *name, int depth, struct lab_error *err)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *e;
	int ret = 0;

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ELOOP)
			return lab_error_errno(err, errno, "open %s", name);
		if (unlinkat(parent, name, 0) < 0 && errno != ENOENT)
			return lab_error_errno(err, errno, "unlink %s", name);
		return 0;
	}
	if (depth > 64) {
		close(fd);
		return lab_error_set(err, ELOOP, "%s: more than 64 directories deep", name);
	}
	d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return lab_error_errno(err, errno, "read %s", name);
	}
	while (ret == 0 && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN)
			ret = rmtree_at(dirfd(d), e->d_name, depth + 1, err);
		else if (unlinkat(dirfd(d), e->d_name, 0) < 0 && errno != ENOENT)
			ret = lab_error_errno(err, errno, "unlink %s/%s", name, e->d_name);
	}
	closedir(d);
	if (ret == 0 && unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = lab_error_errno(err, errno, "rmdir %s", name);
	return ret;
}

static int remove_top(const char *top, struct lab_error *err)
{
	const char *slash = strrchr(top, '/');
	char base[256];
	int fd, ret;

	if (slash == NULL || (size_t)(slash - top) >= sizeof(base))
		return lab_error_set(err, EINVAL, "not a run's directory: %s", top);
	snprintf(base, sizeof(base), "%.*s", (int)(slash - top), top);
	fd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", base);
	ret = rmtree_at(fd, slash + 1, 0, err);
	close(fd);
	return ret;
}

int workdir_remove(struct workdir *w, struct lab_error *err)
{
	int ret;

	if (w->top[0] == '\0')
		return 0;
	ret = remove_top(w->top, err);
	if (ret == 0)
		w->top[0] = w->path[0] = '\0';
	return ret;
}

/* "pagelab-<pid>-<run>-XXXXXX": the pid, or 0 when it is not such a name. */
static int name_pid(const char *n)
{
	char *end;
	long pid, run;

	if (strncmp(n, "pagelab-", 8) != 0)
		return 0;
	pid = strtol(n + 8, &end, 10);
	if (pid <= 0 || *end != '-')
		return 0;
	run = strtol(end + 1, &end, 10);
	if (run < 0 || *end != '-' || strlen(end + 1) != 6)
		return 0;
	return (int)pid;
}

int workdir_sweep(int *removed, struct lab_error *err)
{
	DIR *d = opendir(WORKDIR_BASE);
	struct dirent *e;
	int ret = 0;

	*removed = 0;
	if (d == NULL)
		return errno == ENOENT ? 0 : lab_error_errno(err, errno, "open %s", WORKDIR_BASE);
	while ((e = readdir(d)) != NULL) {
		int pid = name_pid(e->d_name);
		struct stat st;
		char top[300];

		if (pid <= 0 || pid == (int)getpid() || (kill(pid, 0) == 0 || errno != ESRCH))
			continue;
		/* Only pagelab's own: root's directory, made by mkdtemp. */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0)
			continue;
		snprintf(top, sizeof(top), "%s/%s", WORKDIR_BASE, e->d_name);
		if (remove_top(top, err) < 0)
			ret = -EIO;
		else
			(*removed)++;
	}
	closedir(d);
	return ret;
}
