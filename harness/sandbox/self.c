/* SPDX-License-Identifier: GPL-2.0-or-later */
/* self.c — pagelab's own cgroup as the sandbox (`pagelab run --sandbox self`),
 * a backend of internal.h.
 *
 * The MADV_FREE article's rig: `docker run --memory 1g --memory-swap 1g`, the
 * container's own memory cgroup is the sandbox.  Nothing is created or
 * written: the limits are read and compared with the scenario's, the
 * workloads start in pagelab's own cgroup (clone3 into it on v2, where
 * fork's child is already there; v1 re-attaches a pid that is already in
 * place), and the counters are read from it.  Everything else in that cgroup
 * (pagelab itself, the container's shell) is charged there too: the caller
 * records the usage found before the first workload as the baseline. */

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/procstat.h"

static int self_open(const struct cg_host *host, struct sandbox *sb, struct lab_error *err)
{
	if (host->memory != CG_VERSION_V1 && host->memory != CG_VERSION_V2)
		return lab_error_set(err, ENODEV, "--sandbox self: no memory controller to read "
				     "the container's limit from");
	sb->version = host->memory;
	snprintf(sb->mount, sizeof(sb->mount), "%s", host->mount);
	snprintf(sb->rel, sizeof(sb->rel), "%s", host->self);
	if (strcmp(host->self, "/") == 0)
		snprintf(sb->path, sizeof(sb->path), "%s", host->mount);
	else if (sb_path_join(sb->path, sizeof(sb->path), host->mount, host->self) < 0)
		return lab_error_set(err, ENAMETOOLONG, "own cgroup path too long");
	sb->dirfd = open(sb->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb->dirfd < 0)
		return lab_error_errno(err, errno, "open own cgroup %s", host->self);
	return 0;
}

static void size_text(unsigned long long v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu bytes (%llu MiB)", v, v >> 20);
}

/* Every other setting the scenario states must read as stated in pagelab's
 * own cgroup (sizes in whole pages): nothing is written under --sandbox self. */
static int self_verify_others(struct sandbox *sb, const struct sandbox_values *sv, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, sb->version);
		unsigned long long want = sv->val[d->id], got;
		cleanup_free char *buf = NULL;
		char a[64], b[64];
		int ret;

		if (d->id == SB_MEMORY_MAX || d->id == SB_SWAP_MAX || !(sv->given & (1u << d->id)) ||
		    !sandbox_setting_wanted(d, sv))
			continue;
		if (f == NULL)
			return lab_error_set(err, ERANGE, "--sandbox self: [sandbox] %s has no file on this cgroup "
					     "version (%s)", d->key, d->why);
		ret = lab_read_fileat(sb->dirfd, f, &buf, NULL, err);
		if (ret < 0)
			return lab_error_prefix(err, "--sandbox self: %s/%s", sb->path, f);
		if (sandbox_parse_value(buf, &got) < 0)
			return lab_error_set(err, EINVAL, "--sandbox self: %s/%s: not a number: %.40s", sb->path, f, buf);
		if (sb->version == CG_VERSION_V1)
			got = sb_v1_unlimited_to_max(got);
		if (d->type == SB_TYPE_SIZE)
			want = want / page * page;
		if (got != want) {
			if (d->type == SB_TYPE_SIZE) {
				size_text(got, a, sizeof(a));
				size_text(want, b, sizeof(b));
			} else {
				snprintf(a, sizeof(a), "%llu", got);
				snprintf(b, sizeof(b), "%llu", want);
			}
			return lab_error_set(err, ERANGE, "--sandbox self: %s of pagelab's own cgroup %s is %s, the "
					     "scenario's %s is %s: give the container that %s, or --set %s=... "
					     "to match", f, sb->path, a, d->key, b, f, d->key);
		}
	}
	return 0;
}

/* The limits found must be the scenario's: memory.max = memory_max (whole
 * pages, mm/page_counter.c: page_counter_memparse) and no more swap than
 * swap_max (v1: memsw = limit + swap; v2: memory.swap.max).  -ERANGE names
 * the limit that differs and the engine flags that would make it right. */
static int self_verify(struct sandbox *sb, const struct sandbox_spec *spec, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	const struct sandbox_values *sv = &spec->values;
	unsigned long long want = sv->val[SB_MEMORY_MAX] / page * page, got, swap;
	const char *lim = sandbox_file_name(sb->version, "memory.max");
	const char *swf = sandbox_file_name(sb->version, "memory.swap.max");
	char a[64], b[64];
	int ret;

	ret = sb_read_u64(sb, "memory.max", &got, err);
	if (ret < 0)
		return lab_error_prefix(err, "--sandbox self");
	if (got != want) {
		size_text(got, a, sizeof(a));
		size_text(want, b, sizeof(b));
		return lab_error_set(err, ERANGE, "--sandbox self: the memory limit of pagelab's own cgroup is "
				     "%s (%s of %s), the scenario asks for %s: start the "
				     "container with --memory %llum --memory-swap %llum, or run "
				     "with --set memory_max=... to match", a, lim, sb->path, b,
				     want >> 20, (want + sv->val[SB_SWAP_MAX]) >> 20);
	}
	ret = self_verify_others(sb, sv, err);
	if (ret < 0)
		return ret;
	if (!sb_file_in(sb->path, swf)) {
		if (sb_swap_active())
			return lab_error_set(err, ERANGE, "--sandbox self: swap is on but %s/%s is "
					     "missing (swap accounting off), so the container's swap "
					     "is not limited; swapoff -a or enable swap accounting",
					     sb->path, swf);
		return 0;               /* no swap area: nothing can be swapped */
	}
	ret = sb_read_u64(sb, "memory.swap.max", &got, err);
	if (ret < 0)
		return lab_error_prefix(err, "--sandbox self");
	if (sb->version == CG_VERSION_V1)
		swap = got == UINT64_MAX ? UINT64_MAX : got - (got >= want ? want : got);
	else
		swap = got;
	if (swap != sv->val[SB_SWAP_MAX]) {
		size_text(swap, a, sizeof(a));
		size_text(got, b, sizeof(b));
		return lab_error_set(err, ERANGE, "--sandbox self: the container may swap %s (%s of "
				     "%s: %s), the scenario allows %llu bytes: start the "
				     "container with --memory-swap equal to --memory (%llum)", a,
				     swf, sb->path, b, sv->val[SB_SWAP_MAX],
				     (want + sv->val[SB_SWAP_MAX]) >> 20);
	}
	return 0;
}

int sandbox_self_check(const struct cg_host *host, const struct sandbox_spec *spec,
		       struct lab_error *err)
{
	struct sandbox *sb = calloc(1, sizeof(*sb));
	int ret;

	if (sb == NULL)
		return lab_error_errno(err, ENOMEM, "sandbox");
	sb->ops = &sandbox_self_ops;
	sb->dirfd = -1;
	ret = self_open(host, sb, err);
	if (ret == 0)
		ret = self_verify(sb, spec, err);
	if (sb->dirfd >= 0)
		close(sb->dirfd);
	free(sb);
	return ret;
}

/* The parent pid of pid from /proc/PID/stat (base/procstat.h), or -1 when
 * it is gone. */
static pid_t parent_of(pid_t pid)
{
	cleanup_free char *buf = NULL;
	struct lab_procstat ps;
	struct lab_error e;
	char path[64];
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (lab_read_file(path, &buf, &len, &e) < 0 || lab_procstat_parse(buf, len, &ps, &e) < 0)
		return -1;
	return (pid_t)ps.ppid;
}

/* Kill what pagelab started in its own cgroup: its children there (the
 * workloads), never itself nor the container's other processes. */
static int self_kill_children(struct sandbox *sb, struct lab_error *err)
{
	long long deadline = sb_now_ms() + SANDBOX_KILL_WAIT_MS;
	pid_t pids[1024];

	for (;;) {
		int n = sb_read_procs(sb->path, pids, sizeof(pids) / sizeof(pids[0]), err), left = 0;

		if (n < 0)
			return n;
		for (int i = 0; i < n && (size_t)i < sizeof(pids) / sizeof(pids[0]); i++) {
			if (pids[i] == getpid() || parent_of(pids[i]) != getpid())
				continue;
			left++;
			if (kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
				return lab_error_errno(err, errno, "kill %d in %s", (int)pids[i],
						       sb->path);
		}
		if (left == 0)
			return 0;
		if (sb_now_ms() >= deadline)
			return lab_error_set(err, EBUSY, "%d workload(s) of pagelab still in %s %d ms "
					     "after SIGKILL", left, sb->path, SANDBOX_KILL_WAIT_MS);
		sb_sleep_ms(10);
	}
}

/* The backend: open checks the limits and adopts the cgroup (the front end,
 * sandbox_adopt_self, reads the baseline); close stops pagelab's children
 * and removes nothing. */
static int self_ops_open(const struct cg_host *host, const struct sandbox_spec *spec, struct sandbox *sb,
			 struct lab_error *err)
{
	int ret = self_open(host, sb, err);

	if (ret == 0)
		ret = self_verify(sb, spec, err);
	if (ret < 0 && sb->dirfd >= 0) {
		close(sb->dirfd);
		sb->dirfd = -1;
	}
	return ret;
}

static int self_close(struct sandbox *sb, struct lab_error *err)
{
	int ret = self_kill_children(sb, err);

	if (sb->dirfd >= 0)
		close(sb->dirfd);
	sb->dirfd = -1;
	if (ret < 0)
		return lab_error_prefix(err, "release own cgroup as sandbox");
	return 0;
}

const struct sandbox_ops sandbox_self_ops = {
	.name = "self",
	.open = self_ops_open,
	.attach = sb_group_attach,
	.kill = self_kill_children,
	.close = self_close,
};
