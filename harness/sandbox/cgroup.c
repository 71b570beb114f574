/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup.c — a group of pagelab's own making, with the scenario's values
 * (what the v1 and v2 backends share: internal.h), and the v1 backend.
 *
 *   v1: pagelab-<pid>-<n> below pagelab's own memory cgroup,
 *       memory.limit_in_bytes = memory.memsw.limit_in_bytes (no swap); OOM
 *       kills are read from memory.oom_control's oom_kill (memory.failcnt
 *       stays 0 when memsw equals the limit).
 * The v2 backend (v2.c) makes the same group below its lab group.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/size.h"

static unsigned next_sandbox_n;

unsigned sb_next_sandbox_n(void)
{
	return next_sandbox_n++;
}

/* The values to write, in the table's order: on v1 the memsw limit may never
 * be below the memory limit (mm/memcontrol-v1.c: mem_cgroup_resize_max
 * returns -EINVAL), so the memory limit goes first (on a new group both start
 * unlimited).  Every file is checked in the parent first because libcgroup
 * fails with ECGROUPVALUENOTEXIST on a missing one.  names[i] point into the
 * table, text[i] holds values[i]. */
static int collect_values(const struct sandbox *sb, const char *parent, const struct sandbox_spec *spec,
			  const char **names, char (*text)[32], size_t *n, struct lab_error *err)
{
	*n = 0;
	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, sb->version);
		int ret;

		if (!sandbox_setting_wanted(d, &spec->values))
			continue;
		if (f == NULL || !sb_file_in(parent, f)) {
			/* Without swap accounting there is no swap file: fine while no
			 * swap is on (nothing can be swapped). */
			if ((d->flags & SB_F_SWAP) && f != NULL && !sb_swap_active())
				continue;
			if ((d->flags & SB_F_SWAP) && f != NULL)
				return lab_error_set(err, EOPNOTSUPP, "swap is on but %s/%s is missing (swap "
						     "accounting off: swapaccount=0 or cgroup.memory=noswap?), "
						     "so the sandbox's swap cannot be limited; swapoff -a or "
						     "enable swap accounting", parent, f);
			/* A default the host lacks stays unwritten (oom_group on v1). */
			if (!(spec->values.given & (1u << d->id)))
				continue;
			return lab_error_set(err, EOPNOTSUPP, "[sandbox] %s: %s is missing in %s (%s)", d->key,
					     f ? f : (d->v2 ? d->v2 : d->v1), parent, d->why);
		}
		ret = sandbox_setting_format(d, &spec->values, sb->version, text[*n], sizeof(text[*n]), err);
		if (ret < 0)
			return ret;
		names[(*n)++] = f;
	}
	return 0;
}

/* Read every setting written back: the kernel keeps sizes in whole pages
 * (mm/page_counter.c: page_counter_memparse). */
static int verify_values(const struct sandbox *sb, const struct sandbox_spec *spec, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, sb->version);
		cleanup_free char *buf = NULL;
		unsigned long long got, want;
		char text[32];
		int ret;

		if (!sandbox_setting_wanted(d, &spec->values) || f == NULL || !sb_file_in(sb->path, f))
			continue;
		if ((ret = sandbox_setting_format(d, &spec->values, sb->version, text, sizeof(text), err)) < 0 ||
		    (ret = lab_parse_uint(text, &want, err)) < 0)
			return ret;
		if (d->type == SB_TYPE_SIZE)
			want = want / page * page;
		ret = lab_read_fileat(sb->dirfd, f, &buf, NULL, err);
		if (ret < 0)
			return ret;
		if (sandbox_parse_value(buf, &got) < 0)
			return lab_error_set(err, EIO, "%s/%s: not a number: %.40s", sb->path, f, buf);
		if (sb->version == CG_VERSION_V1)
			got = sb_v1_unlimited_to_max(got);
		if (got != want)
			return lab_error_set(err, EIO, "%s/%s reads %llu, asked %llu ([sandbox] %s)", sb->path, f,
					     got, want, d->key);
	}
	return 0;
}

int sb_group_create(struct sandbox *sb, const char *parent_rel, const char *name,
		    const struct sandbox_spec *spec, struct lab_error *err)
{
	char parent[PATH_MAX + 4096], what[PATH_MAX + 4096 + 64], text[SB_NR_SETTINGS][32];
	const char *names[SB_NR_SETTINGS], *values[SB_NR_SETTINGS];
	size_t n;
	int ret;

	if (sb_path_join(sb->rel, sizeof(sb->rel), parent_rel, name) < 0 ||
	    sb_path_join(sb->path, sizeof(sb->path), sb->mount, sb->rel) < 0 ||
	    sb_path_join(parent, sizeof(parent), sb->mount, parent_rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "sandbox path too long");
	if (sb_path_exists(sb->path))
		return lab_error_set(err, EEXIST, "cgroup %s already exists", sb->path);
	if ((ret = collect_values(sb, parent, spec, names, text, &n, err)) < 0)
		return ret;
	for (size_t i = 0; i < n; i++)
		values[i] = text[i];
	snprintf(what, sizeof(what), "cgroup %s (memory.max %llu)", sb->path, spec->values.val[SB_MEMORY_MAX]);
	if ((ret = sb_libcg_create(sb->rel, names, values, n, what, err)) < 0)
		goto fail;
	sb->dirfd = open(sb->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb->dirfd < 0) {
		ret = lab_error_errno(err, errno, "open %s", sb->path);
		goto fail;
	}
	if ((ret = verify_values(sb, spec, err)) < 0)
		goto fail;
	return 0;

fail: {
		struct lab_error e;

		if (sb->dirfd >= 0)
			close(sb->dirfd);
		sb->dirfd = -1;
		if (sb_remove_group(sb->mount, sb->rel, &e) < 0)
			sb_error_append(err, " (and the half-made group stays: %s)", e.msg);
		return ret;
	}
}

int sb_group_close(struct sandbox *sb, struct lab_error *err)
{
	int ret = sb_kill_dir(sb->path, sb->version, err);

	if (sb->dirfd >= 0)
		close(sb->dirfd);
	sb->dirfd = -1;
	if (ret == 0)
		ret = sb_remove_group(sb->mount, sb->rel, err);
	if (ret < 0)
		lab_error_prefix(err, "destroy sandbox (%s stays; `pagelab` sweeps it once this "
				 "process is gone)", sb->rel);
	return ret;
}

int sb_group_attach(struct sandbox *sb, pid_t pid, struct lab_error *err)
{
	char now[4096];
	int ret;

	if (pid <= 0 || pid == getpid())
		return lab_error_set(err, EINVAL, "will not move pid %d into the sandbox", (int)pid);
	/* v1: libcgroup writes the pid to "tasks", which moves that one thread;
	 * a workload is attached right after fork, while it has only one, and
	 * its later threads inherit the cgroup. */
	ret = sb_attach_pid(sb->rel, pid, err);
	if (ret < 0)
		return ret;
	ret = sandbox_cgroup_of(pid, sb->version, now, sizeof(now), err);
	if (ret < 0)
		return lab_error_prefix(err, "check pid %d after the move", (int)pid);
	if (strcmp(now, sb->rel) != 0)
		return lab_error_set(err, EIO, "pid %d is in %s, not in the sandbox %s after the move",
				     (int)pid, now, sb->rel);
	return 0;
}

int sb_group_kill(struct sandbox *sb, struct lab_error *err)
{
	return sb_kill_dir(sb->path, sb->version, err);
}

/* ---- the v1 backend ---------------------------------------------------------- */

static int v1_open(const struct cg_host *host, const struct sandbox_spec *spec, struct sandbox *sb,
		   struct lab_error *err)
{
	char name[64];

	snprintf(name, sizeof(name), "pagelab-%d-%u", (int)getpid(), sb_next_sandbox_n());
	return sb_group_create(sb, host->self, name, spec, err);
}

const struct sandbox_ops sandbox_v1_ops = {
	.name = "v1",
	.open = v1_open,
	.attach = sb_group_attach,
	.kill = sb_group_kill,
	.close = sb_group_close,
};
