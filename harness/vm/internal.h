/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h — what harness/vm/'s files share (util.c); not for callers. */
#ifndef PAGELAB_VM_INTERNAL_H
#define PAGELAB_VM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"
#include "vm.h"

#define VM_GUEST_RESULT "/out/files/result.json"
/* Where the guest finds the data a run reads besides its scenarios (the
 * metrics tables of its loads): PAGELAB_DATA_DIR there. */
#define VM_GUEST_DATA "/pagelab-data"
#define VM_KV_MAX (1ULL << 20)          /* vm-status, guest-info, an audit's .rc: a few hundred bytes */

/* What a `pagelab run` or `pagelab audit` child exits with (the guest's,
 * or this host's for --host): harness/cmd/cli.md's contract, read here as
 * data from another process. */
enum {
	VM_CHILD_RAN = 0,
	VM_CHILD_HARNESS = 1,
	VM_CHILD_USAGE = 2,
	VM_CHILD_CANNOT = 3,
	VM_CHILD_INTERRUPTED = 130,
};

/* snprintf for paths: -ENAMETOOLONG instead of a silently cut path. */
int vm_pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Keep err's message, change its code (how the command reads it). */
static inline int vm_recode(struct lab_error *err, int code)
{
	err->code = code;
	return -code;
}

/* "key: value" lines (vm-run's vm-status, vm-guest-init's guest-info,
 * vm-kernel --info) as a JSON object of strings; a key repeated keeps its
 * last value; lines without ": " are skipped.  Pure; never NULL (an empty
 * object when out of memory is not distinguished). */
json_t *vm_kv_parse(const char *buf);

/* The same read from a file that may come from a guest: a regular file only,
 * never through a link, at most VM_KV_MAX bytes; unreadable = {}. */
json_t *vm_kv_file(const char *path);

/* A value, or "" when absent / not a string. */
const char *vm_kvs(const json_t *o, const char *key);

/* A value as a JSON number, or null when absent or not a number. */
json_t *vm_kv_number(const json_t *o, const char *key);

/* A guest's console log or stream into the output directory: read as the
 * regular file it must be (never through a symbolic link), at most
 * LAB_RESULT_MAX; written over a regular file or nothing.  0 or -errno. */
int vm_copy_file(const char *src, const char *dst, struct lab_error *err);

/* rm -r, not following links. */
void vm_rm_tree(const char *path);

/* A target's run directory at its end: removed when done is true, else kept
 * for diagnosis (its path in t->kept). */
void vm_rundir_done(struct vm_target *t, const char *rundir, bool done);

/* '/', ' ' and ':' of a label into '-'. */
void vm_label_clean(char *s);

/* The last n lines of a log handed to p, one detail line each. */
void vm_log_tail(const struct lab_progress *p, const char *path, int n);

/* Run argv (base/spawn.h) as the child vm_interrupt stops: stdout (and
 * stderr with both) into the file at path (O_TRUNC; NULL: /dev/null),
 * stderr else the caller's; death signal SIGTERM.  timeout_s 0: none.
 * 0 and *status, or -errno. */
int vm_spawn(char *const argv[], const char *path, bool both, unsigned timeout_s, int *status,
	     struct lab_error *err);

/* Run argv, its stdout captured (at most cap bytes), as vm_spawn does. */
int vm_capture(char *const argv[], size_t cap, unsigned timeout_s, char **out, int *status,
	       struct lab_error *err);

/* An argv being built, with room for the numbers it holds. */
struct vm_argv {
	char *argv[VM_MAX_ARGS + 64];
	int argc;
	bool overflow;
	char mem[32], cpus[16], tmo[16], numa[16], swap[32], disk[32];
};

void vm_argv_add(struct vm_argv *a, const char *word);

/* guest/vm-run and the guest's shape for target t (kernel, memory, cpus,
 * arch, NUMA, THP, kernel command line, timeout, --out rundir, --build);
 * with run also --swap, --disk, --modules. */
void vm_guest_boot_args(const struct vm_job *j, const struct vm_target *t, const char *rundir, bool run,
			struct vm_argv *a);

/* "LABEL: booting (arch, mem[ in nodes: N], cpus[, thp M]...", the common
 * part of the progress line, into buf. */
void vm_boot_line(const struct vm_job *j, const struct vm_argv *a, bool run, char *buf, size_t len);

/* vm-run's own directory for target t: <cache>/vm/runs/<stem's name>. */
int vm_rundir(const struct vm_job *j, const struct vm_target *t, char *buf, size_t len, struct lab_error *err);

/* Target t's outcome from vm-run's vm-status when its status is not "ok":
 * a guest failure (err set, the console log named), no qemu / no kernel
 * (VM_CANNOT), interrupted.  Returns -errno as the target's call does. */
int vm_guest_failure(struct vm_target *t, const json_t *vs, int vm_status, const char *console);

/* Target t's outcome: ran, its child's status st. */
void vm_target_ran(struct vm_target *t, int st);

/* Target t failed as err already says (outcome o); returns -errno for the call. */
int vm_target_fail(struct vm_target *t, enum vm_outcome o, const struct lab_error *err);

#endif
