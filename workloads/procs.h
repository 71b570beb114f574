/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procs.h — the region's other processes: a forked child that shares the
 * region (steps `fork` and `join`) and the pressure step's allocators
 * (`pressure_procs`).
 *
 * Both are made with a bare clone(SIGCHLD) system call, not glibc's fork():
 * fork() runs glibc's at-fork work in the child (set_robust_list among it),
 * which the seccomp filter forbids, and these children need none of it —
 * they touch memory, read a pipe and exit.  lockdown.c lets the region call
 * clone and wait4 only when a step needs them (region.c).
 */
#ifndef PAGELAB_PROCS_H
#define PAGELAB_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"

/* A child sharing every private page of the parent at the fork (copy on
 * write): the region's pages, huge ones PMD-mapped in both, are then mapped
 * twice, and MADV_FREE leaves a page mapped by more than one process as it
 * is (mm/madvise.c: madvise_free_pte_range; mm/huge_memory.c:
 * madvise_free_huge_pmd, 6.1 total_mapcount != 1, 6.12
 * folio_likely_mapped_shared, 6.18 folio_maybe_mapped_shared). */
struct sharer {
	pid_t pid;              /* 0: none */
	int rfd, wfd;           /* the child waits on rfd until wfd closes */
};

/* Before the lockdown: the pipe (pipe2 is not allowed after it). */
int sharer_prepare(struct sharer *s, struct lab_error *err);

/* Fork the child.  It closes the fds in close_fds (the event and ack pipes:
 * the harness's protocol is the parent's), waits for the pipe's end, exits. */
int sharer_fork(struct sharer *s, const int *close_fds, size_t nclose, struct lab_error *err);

/* Let it go and reap it: *status its wait status. */
int sharer_join(struct sharer *s, int *status, struct lab_error *err);

/* The pressure step in nprocs processes at once: each maps and touches its
 * share of bytes and says so; when all have (the pressure at its height: the
 * single-process step too holds all of it before it unmaps), all unmap
 * together, say so, and wait; pressure_procs returns when all have said so or
 * died.  region (its size region_size) is MADV_DONTFORK
 * meanwhile, so the children do not map the region as well.  They stay alive
 * until pressure_procs_release — after the step's ack, so the harness has
 * read /proc/PID/cgroup of each while its reclaim is still being traced and
 * counts it as the sandbox's, not another cgroup's.  *killed: how many died
 * of a signal before they were done (an OOM kill). */
struct procs_batch {
	pid_t pids[64];
	unsigned n;
	int go;                 /* the write end the children wait on; -1: none */
};

/* Called once every child is forked and before any of them allocates: their
 * pids, so that a child the OOM killer takes is known by its pid (region: the
 * "procs" event). */
typedef void (*procs_spawned_fn)(const pid_t *pids, unsigned n, void *arg);

int pressure_procs(size_t bytes, size_t page_size, unsigned nprocs, void *region, size_t region_size,
		   struct procs_batch *b, unsigned *killed, procs_spawned_fn spawned, void *arg,
		   struct lab_error *err);
void pressure_procs_release(struct procs_batch *b);

#endif
