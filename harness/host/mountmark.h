/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mountmark.h — the record of a tracefs mount pagelab made.
 *
 * A run that finds tracefs unmounted mounts it and takes it down at its end
 * (harness/sample/trace/trace.c).  A run killed by SIGKILL cannot, and until
 * this record the mount stayed for good: the next run found tracefs mounted,
 * took it for somebody else's and left it (a suite's fault campaign left the
 * host with tracefs mounted after every run).  So the mounting run records
 * what it mounted, beside the knob journal (JOURNAL.tracefs, the journal's
 * directory and rules: base/trust.h, the file pagelab's user's, regular, no
 * link, at most 512 bytes):
 *
 *   pagelab-tracefs 1 pid=PID boot=BOOT_ID mnt=ID unique=0|1
 *
 * and whoever comes later (the end of a tracing run, `pagelab restore`) takes
 * the mount down only when the record's run is dead (kill(pid, 0) says
 * ESRCH), this boot is the record's (/proc/sys/kernel/random/boot_id), and
 * the mount at the tracefs directory is the one recorded: its statx(2) mount
 * id, the 64-bit id that is never reused (STATX_MNT_ID_UNIQUE, Linux 6.8+)
 * where the kernel has it (unique=1), else the mount id, which a later mount
 * may get again (unique=0: a mount made by someone else after the record's
 * was unmounted by hand could then be taken for it).  A mount nobody recorded
 * — a user's, systemd's — is never taken down.  The record is written before
 * the mount is attached (trace.c: a detached fsmount(2), moved into place
 * after), so no kill leaves an unrecorded mount; where the new mount API is
 * refused, mount(2) comes first and a kill between it and the record does. */
#ifndef PAGELAB_MOUNTMARK_H
#define PAGELAB_MOUNTMARK_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"

struct mount_mark {
	pid_t pid;               /* the run that mounted */
	char boot[40];           /* /proc/sys/kernel/random/boot_id when it did */
	unsigned long long mnt;  /* the mount's id (statx) */
	bool unique;             /* mnt is STATX_MNT_ID_UNIQUE's */
};

/* The mount id of the mount at dir (its root), the unique one where the
 * kernel has it.  0 or -errno. */
int mount_mark_id(const char *dir, unsigned long long *id, bool *unique);

/* The same of path relative to dfd; path "" is dfd itself (AT_EMPTY_PATH),
 * e.g. a detached mount from fsmount(2). */
int mount_mark_id_at(int dfd, const char *path, unsigned long long *id, bool *unique);

/* This boot's id, 36 characters.  0 or -errno. */
int mount_mark_boot(char *out, size_t len);

/* Record m (a new file renamed over it), replacing a record there.  0 or -errno, err why. */
int mount_mark_write(const struct mount_mark *m, struct lab_error *err);

/* The record: 0 and *m, 1 when there is none, -errno when it cannot be read
 * or is refused (err: which file and why; a malformed one is -EINVAL). */
int mount_mark_read(struct mount_mark *m, struct lab_error *err);

/* Remove the record (when there is one). */
void mount_mark_remove(void);

/* JOURNAL.tracefs, the record's path. */
const char *mount_mark_path(void);

#endif
