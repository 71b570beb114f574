/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h — what the files of sandbox/ share, and the table of backends.
 *
 * crun's src/libcrun/cgroup-internal.h is the model: one ops struct, one file
 * per backend, the front end (sandbox.c) the only caller.  The backends:
 *
 *   v1    (cgroup.c)  a group pagelab-<pid>-<n> below pagelab's own cgroup,
 *                     made through libcgroup with its values;
 *   v2    (v2.c)      the same below a lab group <own>/pagelab-<pid> whose
 *                     leaf ctl holds the harness (the no-internal-process rule);
 *   self  (self.c)    pagelab's own cgroup (`--sandbox self`): checked, never
 *                     written, never removed.
 *
 * The files they share: names.c (pure), libcg.c (libcgroup and what it gets
 * wrong), util.c (paths, cgroup.procs, killing), probe.c (where the memory
 * hierarchy is), sweep.c (the groups of dead runs).  Nothing outside
 * sandbox/ includes this file.
 */
#ifndef PAGELAB_SANDBOX_INTERNAL_H
#define PAGELAB_SANDBOX_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sandbox.h"

#define SANDBOX_KILL_WAIT_MS 5000
#define SANDBOX_SWEEP_DEPTH 4

struct sandbox_ops;

struct sandbox {
	const struct sandbox_ops *ops;
	enum cg_version version;
	char mount[4096];
	char rel[4096];                 /* relative to mount */
	char path[PATH_MAX + 4096];     /* absolute directory */
	int dirfd;                      /* O_PATH|O_DIRECTORY of path */
};

/* One backend.  Every function returns 0 or -errno with err filled. */
struct sandbox_ops {
	const char *name;               /* "v1", "v2", "self" */
	/* Make the sandbox for spec (self: adopt pagelab's own cgroup once its
	 * limits are found to be spec's).  sb comes zeroed with ops, version
	 * and mount set and dirfd -1; on failure nothing open made stays. */
	int (*open)(const struct cg_host *host, const struct sandbox_spec *spec, struct sandbox *sb,
		    struct lab_error *err);
	/* Move pid (a workload just forked) into it. */
	int (*attach)(struct sandbox *sb, pid_t pid, struct lab_error *err);
	/* Kill what runs in it: everything (v1, v2), pagelab's own children (self). */
	int (*kill)(struct sandbox *sb, struct lab_error *err);
	/* Kill, close dirfd, remove what open made.  The front end frees sb. */
	int (*close)(struct sandbox *sb, struct lab_error *err);
};

extern const struct sandbox_ops sandbox_v1_ops, sandbox_v2_ops, sandbox_self_ops;

/* ---- libcg.c: libcgroup 2.0.2, and its error codes as -errno ---- */

int sb_libcg_init(struct lab_error *err);
/* Forget what libcgroup last logged (before a call whose error is wanted). */
void sb_libcg_log_clear(void);
/* A libcgroup code into err: "what: text (libcgroup error N)", -errno. */
int sb_ecg_error(struct lab_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The memory controller's mount point and version, as libcgroup found them. */
int sb_libcg_memory_mount(char *mount, size_t len, enum cg_version *v, struct lab_error *err);
/* Create rel (relative to the mount) with the memory files names[i] =
 * values[i], written in that order; what names the group in an error. */
int sb_libcg_create(const char *rel, const char *const *names, const char *const *values, size_t n,
		    const char *what, struct lab_error *err);
/* Move pid into rel (v1: its tasks file; a struct holding only memory). */
int sb_attach_pid(const char *rel, pid_t pid, struct lab_error *err);
/* rmdir rel (CGFLAG_DELETE_EMPTY_ONLY, never the parent's tasks), then
 * confirmed with stat: 0 only when the group is really gone. */
int sb_remove_group(const char *mount, const char *rel, struct lab_error *err);

/* ---- util.c ---- */

/* a + "/" + b without doubled slashes; -ENAMETOOLONG. */
int sb_path_join(char *out, size_t len, const char *a, const char *b);
bool sb_path_exists(const char *p);
bool sb_file_in(const char *dir, const char *name);
void sb_sleep_ms(long ms);
long long sb_now_ms(void);
/* Append to a message already set (never pass err->msg itself as an argument). */
void sb_error_append(struct lab_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* v1's "no limit" (PAGE_COUNTER_MAX pages in bytes) as UINT64_MAX. */
unsigned long long sb_v1_unlimited_to_max(unsigned long long v);
/* Is any swap area active (/proc/swaps beyond its header)? */
bool sb_swap_active(void);
/* Does the whitespace-separated list in file name word?  1, 0, -errno. */
int sb_file_lists_word(const char *file, const char *word, struct lab_error *err);
/* The pids in dir/cgroup.procs (at most max kept): how many, -ENOENT if gone. */
int sb_read_procs(const char *dir, pid_t *pids, size_t max, struct lab_error *err);
/* Kill everything in the cgroup at dir (absolute), bounded wait. */
int sb_kill_dir(const char *dir, enum cg_version v, struct lab_error *err);
/* A sandbox file by its v2 name as a number (v1's "no limit" as max). */
int sb_read_u64(const struct sandbox *sb, const char *v2name, unsigned long long *val, struct lab_error *err);

/* ---- cgroup.c: what the v1 and v2 backends share ---- */

/* Create sb->rel = parent_rel/name with spec's values, read them back, open
 * dirfd; on failure the half-made group is removed. */
int sb_group_create(struct sandbox *sb, const char *parent_rel, const char *name,
		    const struct sandbox_spec *spec, struct lab_error *err);
/* Kill, close dirfd, remove the group. */
int sb_group_close(struct sandbox *sb, struct lab_error *err);
/* Move pid into sb and check it arrived (every backend's attach). */
int sb_group_attach(struct sandbox *sb, pid_t pid, struct lab_error *err);
int sb_group_kill(struct sandbox *sb, struct lab_error *err);
/* n of the next sandbox of this process (pagelab-<pid>-<n>, sandbox-<n>). */
unsigned sb_next_sandbox_n(void);

#endif
