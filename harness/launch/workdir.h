/* SPDX-License-Identifier: GPL-2.0-or-later */
/* workdir.h — a run's private directory for its foreign programs (HOME and
 * cwd of its command workloads and loads, ${dir} in their words).
 *
 *   /var/tmp/pagelab-<pid>-<run>-XXXXXX/      root's, 0711 (mkdtemp): its
 *                                             user can neither rename nor
 *                                             replace what is inside
 *   /var/tmp/pagelab-<pid>-<run>-XXXXXX/run/  the directory: 0700, its user's
 *
 * /var/tmp, not /tmp: a file system on disk on Debian, so a service's data
 * files are page cache as in production, not shmem (a tmpfs /tmp would
 * charge them to the sandbox as shared memory).  Removed whole at the run's
 * end, after every process of the run is gone, on every way out; never
 * following a symbolic link (openat O_NOFOLLOW all the way down).  One left
 * by a run whose pagelab was SIGKILLed is removed by the next run
 * (workdir_sweep: the pid in its name is dead). */
#ifndef PAGELAB_LAUNCH_WORKDIR_H
#define PAGELAB_LAUNCH_WORKDIR_H

#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

#define WORKDIR_BASE "/var/tmp"

struct workdir {
	char top[256];                  /* the root-owned one ("" = none) */
	char path[272];                 /* top/run: the run's directory */
};

int workdir_create(int run_index, uid_t uid, gid_t gid, struct workdir *w, struct lab_error *err);

/* Remove it whole (nothing when w->top is ""); 0 or -errno. */
int workdir_remove(struct workdir *w, struct lab_error *err);

/* The directories of dead pagelab runs, removed; *removed gets how many. */
int workdir_sweep(int *removed, struct lab_error *err);

#endif
