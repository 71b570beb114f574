/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.h — the memory cgroup a scenario's workloads run in.
 *
 * Built on libcgroup (mount discovery, group creation, attach, reads) with one
 * table of canonical cgroup v2 file names and their v1 aliases
 * (memory.max <-> memory.limit_in_bytes, ...).  The sandbox is always created
 * BELOW pagelab's own memory cgroup, named pagelab-<pid>-<n>, and removed at
 * the end (processes killed first, then rmdir, then confirmed gone).
 *
 *   v2: memory.max, memory.swap.max = 0, memory.oom.group = 1.  The "no
 *       internal processes" rule is met by a lab group with a leaf for the
 *       harness: <own>/pagelab-<pid>/ctl (harness) and
 *       <own>/pagelab-<pid>/sandbox-<n> (workloads).
 *   v1: memory.limit_in_bytes = memory.memsw.limit_in_bytes (no swap).
 *       OOM kills are read from memory.oom_control's oom_kill (memory.failcnt
 *       stays 0 when memsw equals the limit).
 *   self: pagelab's own cgroup (`--sandbox self`), checked, never written.
 *
 * The three are backends of one ops table (internal.h); this header is the
 * whole interface, whichever made the sandbox.  The files: sandbox.md.
 */
#ifndef PAGELAB_SANDBOX_H
#define PAGELAB_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "base/kv.h"
#include "names.h"
#include "settings.h"

/* Where the memory controller lives and where pagelab stands in it. */
struct cg_host {
	enum cg_version memory;        /* hierarchy holding the memory controller */
	bool hybrid;                   /* v1 controllers and a v2 unified mount side by side */
	char mode[16];                 /* "v2", "v1", "hybrid", "none" */
	char mount[4096];              /* mount point of the memory hierarchy */
	char self[4096];               /* pagelab's own memory cgroup, relative to mount ("/" at root) */
};

/* Discover the memory hierarchy and pagelab's own cgroup in it (from
 * /proc/self/cgroup and /proc/self/mountinfo; libcgroup's cgroup_init for
 * mount discovery).  -ENODEV when no memory controller is mounted (or, on v2,
 * none is delegated to our own cgroup).  mode and hybrid are filled even when
 * it fails; memory is CG_VERSION_NONE then.  On v2, when the harness already
 * sits in its lab leaf (<own>/pagelab-<pid>/ctl), self is still <own>.
 * self is relative to the mount's root (a container's v1 mount shows only the
 * container's group); -EXDEV when pagelab is in a cgroup namespace whose
 * cgroup filesystem was mounted outside it (mountinfo root "/.."). */
int sandbox_probe(struct cg_host *out, struct lab_error *err);

/* The memory cgroup of pid (0 = self), relative to the hierarchy's mount
 * (the mount's root, found by sandbox_probe, is stripped). */
int sandbox_cgroup_of(pid_t pid, enum cg_version v, char *out, size_t outlen,
		      struct lab_error *err);

/* Remove pagelab-<pid>-* groups under our own cgroup whose pid is dead
 * (killing anything left in them first).  *removed gets how many. */
int sandbox_sweep(const struct cg_host *host, int *removed, struct lab_error *err);

/* A variant's sandbox: every setting of sandbox/settings.h's table, typed. */
struct sandbox_spec {
	struct sandbox_values values;
};

/* Can this host apply every setting spec states (a cgroup v2 file on v1, a
 * v1-only one on v2, a file this kernel lacks)?  Checked before anything is
 * created: -EOPNOTSUPP names the setting and why ("this host cannot run it"). */
int sandbox_check_settings(const struct cg_host *host, const struct sandbox_spec *spec,
			   struct lab_error *err);

struct sandbox;

int sandbox_create(const struct cg_host *host, const struct sandbox_spec *spec,
		   struct sandbox **out, struct lab_error *err);

/* `pagelab run --sandbox self`: pagelab's own memory cgroup (in a container
 * started with --memory M --memory-swap M, the container's) is the sandbox.
 * Nothing is created or written.  sandbox_self_check only reads and compares
 * the limits: memory.max (v1 memory.limit_in_bytes) must be spec->memory_max
 * and the swap allowed (v2 memory.swap.max, v1 memsw - limit) spec->swap_max;
 * the swap file may be absent only while no swap is active.  -ERANGE when a
 * limit differs (the message names it and the engine flags that fix it),
 * -ENODEV without a memory controller: both mean "this host cannot run it".
 * sandbox_adopt_self checks the same and returns the sandbox, with the usage
 * it found (pagelab and whatever else shares the cgroup) in *baseline_bytes.
 * Such a sandbox's kill and destroy stop only pagelab's own children in it,
 * never pagelab or the container's other processes, and remove nothing. */
int sandbox_self_check(const struct cg_host *host, const struct sandbox_spec *spec,
		       struct lab_error *err);
int sandbox_adopt_self(const struct cg_host *host, const struct sandbox_spec *spec,
		       struct sandbox **out, unsigned long long *baseline_bytes,
		       struct lab_error *err);
bool sandbox_is_self(const struct sandbox *sb);

const char *sandbox_path(const struct sandbox *sb);     /* absolute directory */
enum cg_version sandbox_version(const struct sandbox *sb);

/* An O_PATH|O_DIRECTORY fd of the sandbox for clone3(CLONE_INTO_CGROUP);
 * -1 on v1, where sandbox_attach is used instead. */
int sandbox_dirfd(const struct sandbox *sb);

/* Move pid into the sandbox (v1: tasks/cgroup.procs through libcgroup with a
 * struct holding only the memory controller). */
int sandbox_attach(struct sandbox *sb, pid_t pid, struct lab_error *err);

struct sandbox_counters {
	unsigned long long usage_bytes;     /* memory.current | memory.usage_in_bytes */
	unsigned long long peak_bytes;      /* memory.peak | memory.max_usage_in_bytes (0 if absent) */
	unsigned long long limit_bytes;     /* memory.max | memory.limit_in_bytes (UINT64_MAX = max) */
	unsigned long long oom_kill;        /* v2 memory.events oom_kill, v1 oom_control oom_kill */
	unsigned long long oom_group_kill;  /* v2 only */
	unsigned long long oom;             /* v2 memory.events oom; v1: under_oom transitions are not counted: 0 */
	unsigned long long max_events;      /* v2 memory.events max; v1 memory.failcnt */
	struct kv_list stat;                /* memory.stat as printed */
	struct kv_list events;              /* v2 memory.events, v1 memory.oom_control */
};

/* Read one sandbox file whole, by its canonical v2 name (the v1 alias on
 * v1).  -EOPNOTSUPP when this version has no such file, -ENOENT when the
 * file or the sandbox is gone (the message says which). */
int sandbox_read_file(struct sandbox *sb, const char *v2name, char **buf, struct lab_error *err);
/* The same into a kept buffer (fileio.h: struct lab_buf), for reads at every tick. */
struct lab_buf;
int sandbox_read_file_buf(struct sandbox *sb, const char *v2name, struct lab_buf *b,
			  struct lab_error *err);

/* Read the counters.  -ENOENT when the sandbox is gone.  Reuses the kv_lists'
 * allocations; free them with sandbox_counters_free. */
int sandbox_read(struct sandbox *sb, struct sandbox_counters *out, struct lab_error *err);
void sandbox_counters_free(struct sandbox_counters *c);

/* Number of processes in the sandbox (cgroup.procs lines), or -errno. */
int sandbox_nr_procs(struct sandbox *sb, struct lab_error *err);

/* The processes in the sandbox (cgroup.procs: thread-group ids), the first
 * max of them into pids; returns how many there are (may exceed max), or
 * -errno (-ENOENT: the sandbox is gone). */
int sandbox_procs(struct sandbox *sb, pid_t *pids, size_t max, struct lab_error *err);

/* v2 memory.reclaim: -EOPNOTSUPP on v1, -EAGAIN when the kernel reclaimed
 * less than asked (it says so itself). */
int sandbox_reclaim(struct sandbox *sb, unsigned long long bytes, struct lab_error *err);

/* Kill everything inside (cgroup.kill on v2 when present, else SIGKILL to
 * every pid in cgroup.procs, repeated until empty; bounded wait). */
int sandbox_kill(struct sandbox *sb, struct lab_error *err);

/* Kill, rmdir (libcgroup CGFLAG_DELETE_EMPTY_ONLY, then confirmed with
 * stat), free.  Safe on NULL.  On v2 also removes the lab group once its
 * last sandbox is gone (moving the harness back to its own cgroup). */
int sandbox_destroy(struct sandbox *sb, struct lab_error *err);

#endif
