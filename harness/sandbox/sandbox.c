/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.c — the sandbox's front end (sandbox.h): the backend for the host
 * (internal.h: v1, v2 or self, one ops table each), and everything that is
 * the same whichever made the sandbox — reading its files by their canonical
 * v2 names through names.c's table, memory.reclaim, the settings against
 * this host.
 *
 * The other files: names.c (pure: the name table, the /proc parsers),
 * libcg.c (libcgroup), util.c, probe.c, sweep.c, and the backends cgroup.c
 * (v1, and what v2 shares), v2.c, self.c.
 */
#include "internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/size.h"

/* A sandbox of backend ops, opened; *out stays NULL on failure. */
static int open_with(const struct sandbox_ops *ops, const struct cg_host *host, const struct sandbox_spec *spec,
		     struct sandbox **out, struct lab_error *err)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	int ret;

	if (sb == NULL)
		return lab_error_errno(err, ENOMEM, "sandbox");
	sb->ops = ops;
	sb->version = host->memory;
	sb->dirfd = -1;
	snprintf(sb->mount, sizeof(sb->mount), "%s", host->mount);
	ret = ops->open(host, spec, sb, err);
	if (ret < 0) {
		free(sb);
		return ret;
	}
	*out = sb;
	return 0;
}

int sandbox_create(const struct cg_host *host, const struct sandbox_spec *spec,
		   struct sandbox **out, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	enum cg_version v = host->memory;
	int ret;

	*out = NULL;
	if (v != CG_VERSION_V1 && v != CG_VERSION_V2)
		return lab_error_set(err, ENODEV, "no memory controller to make a sandbox with");
	if (spec->values.val[SB_MEMORY_MAX] < page)
		return lab_error_set(err, EINVAL, "sandbox memory_max %llu is below one page (%llu)",
				     spec->values.val[SB_MEMORY_MAX], page);
	ret = sb_libcg_init(err);
	if (ret < 0)
		return ret;
	return open_with(v == CG_VERSION_V2 ? &sandbox_v2_ops : &sandbox_v1_ops, host, spec, out, err);
}

int sandbox_adopt_self(const struct cg_host *host, const struct sandbox_spec *spec,
		       struct sandbox **out, unsigned long long *baseline_bytes,
		       struct lab_error *err)
{
	struct sandbox *sb = NULL;
	int ret;

	*out = NULL;
	ret = open_with(&sandbox_self_ops, host, spec, &sb, err);
	if (ret < 0)
		return ret;
	if (baseline_bytes != NULL && (ret = sb_read_u64(sb, "memory.current", baseline_bytes, err)) < 0) {
		close(sb->dirfd);
		free(sb);
		return ret;
	}
	*out = sb;
	return 0;
}

bool sandbox_is_self(const struct sandbox *sb)
{
	return sb->ops == &sandbox_self_ops;
}

const char *sandbox_path(const struct sandbox *sb)
{
	return sb->path;
}

enum cg_version sandbox_version(const struct sandbox *sb)
{
	return sb->version;
}

int sandbox_dirfd(const struct sandbox *sb)
{
	return sb->version == CG_VERSION_V2 ? sb->dirfd : -1;
}

int sandbox_attach(struct sandbox *sb, pid_t pid, struct lab_error *err)
{
	return sb->ops->attach(sb, pid, err);
}

int sandbox_kill(struct sandbox *sb, struct lab_error *err)
{
	int ret = sb->ops->kill(sb, err);

	if (ret < 0)
		return lab_error_prefix(err, "kill sandbox");
	return 0;
}

int sandbox_destroy(struct sandbox *sb, struct lab_error *err)
{
	int ret;

	if (sb == NULL)
		return 0;
	ret = sb->ops->close(sb, err);
	free(sb);
	return ret;
}

/* ---- reading ----------------------------------------------------------------- */

static int gone(const struct sandbox *sb, struct lab_error *err)
{
	return lab_error_set(err, ENOENT, "sandbox %s is gone", sb->path);
}

/* Read a sandbox file by its v2 name.  -EOPNOTSUPP when this version has no
 * such file; -ENOENT when the sandbox is gone (a file of a removed cgroup
 * reads ENODEV through a descriptor opened before the removal). */
static int read_at(const struct sandbox *sb, const char *v2name, char **buf,
		   struct lab_error *err)
{
	const char *name = sandbox_file_name(sb->version, v2name);
	int ret;

	if (name == NULL)
		return lab_error_set(err, EOPNOTSUPP, "%s has no cgroup v1 equivalent", v2name);
	ret = lab_read_fileat(sb->dirfd, name, buf, NULL, err);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (!sb_path_exists(sb->path))
			return gone(sb, err);
		return lab_error_set(err, ENOENT, "%s/%s: no such file", sb->path, name);
	}
	return ret;
}

int sandbox_read_file(struct sandbox *sb, const char *v2name, char **buf, struct lab_error *err)
{
	return read_at(sb, v2name, buf, err);
}

int sandbox_read_file_buf(struct sandbox *sb, const char *v2name, struct lab_buf *b,
			  struct lab_error *err)
{
	const char *name = sandbox_file_name(sb->version, v2name);
	int ret;

	if (name == NULL)
		return lab_error_set(err, EOPNOTSUPP, "%s has no cgroup v1 equivalent", v2name);
	ret = lab_read_fileat_buf(sb->dirfd, name, b, err);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (!sb_path_exists(sb->path))
			return gone(sb, err);
		return lab_error_set(err, ENOENT, "%s/%s: no such file", sb->path, name);
	}
	return ret;
}

int sb_read_u64(const struct sandbox *sb, const char *v2name, unsigned long long *val,
		       struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	int ret = read_at(sb, v2name, &buf, err);

	if (ret < 0)
		return ret;
	if (sandbox_parse_value(buf, val) < 0)
		return lab_error_set(err, EINVAL, "%s/%s: not a number: %.40s", sb->path,
				     sandbox_file_name(sb->version, v2name), buf);
	if (sb->version == CG_VERSION_V1)
		*val = sb_v1_unlimited_to_max(*val);
	return 0;
}

int sandbox_read(struct sandbox *sb, struct sandbox_counters *out, struct lab_error *err)
{
	cleanup_free char *stat = NULL;
	cleanup_free char *events = NULL;
	int ret;

	out->usage_bytes = out->peak_bytes = out->limit_bytes = 0;
	out->oom_kill = out->oom_group_kill = out->oom = out->max_events = 0;
	kv_reset(&out->stat);
	kv_reset(&out->events);

	ret = sb_read_u64(sb, "memory.current", &out->usage_bytes, err);
	if (ret < 0)
		return ret;
	ret = sb_read_u64(sb, "memory.peak", &out->peak_bytes, err);
	if (ret == -ENOENT && sb_path_exists(sb->path)) {
		out->peak_bytes = 0;            /* v2 before 5.19 has no memory.peak */
		lab_error_clear(err);
	} else if (ret < 0) {
		return ret;
	}
	ret = sb_read_u64(sb, "memory.max", &out->limit_bytes, err);
	if (ret < 0)
		return ret;

	ret = read_at(sb, "memory.stat", &stat, err);
	if (ret < 0)
		return ret;
	ret = kv_parse_space(stat, &out->stat, err);
	if (ret < 0)
		return lab_error_prefix(err, "%s/memory.stat", sb->path);

	ret = read_at(sb, "memory.events", &events, err);
	if (ret < 0)
		return ret;
	ret = kv_parse_space(events, &out->events, err);
	if (ret < 0)
		return lab_error_prefix(err, "%s/%s", sb->path,
					sandbox_file_name(sb->version, "memory.events"));
	out->oom_kill = kv_get0(&out->events, "oom_kill");
	if (sb->version == CG_VERSION_V2) {
		/* With memory.oom.group = 1 one victim counts in oom_kill once per
		 * process of the group (mm/memcontrol.c: memcg_memory_event on each
		 * kill); oom_group_kill counts group kills (5.17+). */
		out->oom_group_kill = kv_get0(&out->events, "oom_group_kill");
		out->oom = kv_get0(&out->events, "oom");
		out->max_events = kv_get0(&out->events, "max");
	} else {
		/* v1: memory.failcnt counts hits of the memory limit; it stays 0
		 * when memsw equals the limit (the memsw counter fails first). */
		cleanup_free char *fc = NULL;
		unsigned long long v = 0;

		ret = lab_read_fileat(sb->dirfd, "memory.failcnt", &fc, NULL, err);
		if (ret == -ENOENT || ret == -ENODEV)
			return gone(sb, err);
		if (ret < 0)
			return ret;
		if (sandbox_parse_value(fc, &v) < 0)
			return lab_error_set(err, EINVAL, "%s/memory.failcnt: not a number", sb->path);
		out->max_events = v;
	}
	return 0;
}

void sandbox_counters_free(struct sandbox_counters *c)
{
	if (c == NULL)
		return;
	kv_free(&c->stat);
	kv_free(&c->events);
}

int sandbox_nr_procs(struct sandbox *sb, struct lab_error *err)
{
	pid_t pids[1];
	int n = sb_read_procs(sb->path, pids, 1, err);

	if (n == -ENOENT)
		return gone(sb, err);
	return n;
}

int sandbox_procs(struct sandbox *sb, pid_t *pids, size_t max, struct lab_error *err)
{
	int n = sb_read_procs(sb->path, pids, max, err);

	if (n == -ENOENT)
		return gone(sb, err);
	return n;
}

int sandbox_reclaim(struct sandbox *sb, unsigned long long bytes, struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], val[32];
	struct lab_error e;
	int ret;

	if (sb->version != CG_VERSION_V2)
		return lab_error_set(err, EOPNOTSUPP, "memory.reclaim needs cgroup v2 (this memory "
				     "controller is v1)");
	snprintf(path, sizeof(path), "%s/memory.reclaim", sb->path);
	snprintf(val, sizeof(val), "%llu", bytes);
	ret = lab_write_file(path, val, &e);
	if (ret == 0)
		return 0;
	if (ret == -ENOENT) {
		if (!sb_path_exists(sb->path))
			return gone(sb, err);
		return lab_error_set(err, EOPNOTSUPP, "%s is missing (kernel older than 5.19)", path);
	}
	if (ret == -EAGAIN)
		/* mm/memcontrol.c: memory_reclaim gives up after
		 * MAX_RECLAIM_RETRIES rounds that fell short. */
		return lab_error_set(err, EAGAIN, "memory.reclaim of %llu bytes in %s: the kernel "
				     "reclaimed less than asked", bytes, sb->path);
	return lab_error_set(err, e.code, "%s", e.msg);
}

/* ---- the settings against this host ------------------------------------- */

struct own_dir {
	char path[PATH_MAX + 4096];
	bool has_files;         /* false at a v2 root, which has no memory.* interface files */
};

static bool own_has_file(const char *name, void *ctx)
{
	const struct own_dir *od = ctx;

	if (name[0] == '/')
		return access(name, F_OK) == 0;
	/* A sandbox below a v2 root: the root cannot tell, creating will. */
	return !od->has_files || sb_file_in(od->path, name);
}

int sandbox_check_settings(const struct cg_host *host, const struct sandbox_spec *spec,
			   struct lab_error *err)
{
	struct own_dir od;

	if (sb_path_join(od.path, sizeof(od.path), host->mount, host->self) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	od.has_files = host->memory == CG_VERSION_V1 || sb_file_in(od.path, "memory.max");
	return sandbox_values_check(&spec->values, host->memory, own_has_file, &od, err);
}
