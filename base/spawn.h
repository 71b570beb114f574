/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn.h — running another program: start it, wait for it, capture what it
 * prints.  For the helpers pagelab's libraries run (guest/vm-run and
 * guest/vm-kernel, cmake, sh), not for the workloads (launch/ starts those
 * inside their sandbox).
 *
 *   - fork + execv: no PATH search (name the file; lab_find_program finds
 *     one in PATH), the child's stdin is /dev/null, its stdout and stderr
 *     go where asked; pagelab opens everything O_CLOEXEC, so nothing else
 *     is inherited;
 *   - death_sig: the child gets it when the caller dies, even by SIGKILL
 *     (PR_SET_PDEATHSIG), so a guest's qemu does not outlive a killed
 *     `pagelab vm`;
 *   - an exec that fails is the call's error (-errno, "cannot start PROG:
 *     …"), not the child's exit status 127;
 *   - waits retry EINTR (a caller's signal handler may forward the signal
 *     to the child, which then exits), and may have a deadline: past it the
 *     child gets SIGTERM, then SIGKILL after LAB_SPAWN_GRACE_MS, is reaped,
 *     and the wait is -ETIMEDOUT.  Only the child is stopped, not what it
 *     started: a child that starts others stops them on SIGTERM itself
 *     (guest/vm-run stops its qemu).
 *
 * A child's exit status is data (the caller decides what it means): 0..255
 * for an exit, 128 + N for a death by signal N.  Fallible calls return 0 or
 * -errno and fill struct lab_error; nothing here prints.
 */
#ifndef PAGELAB_SPAWN_H
#define PAGELAB_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "error.h"

#define LAB_SPAWN_TO_OUT (-2)           /* err_fd: the same as out_fd (2>&1) */
#define LAB_SPAWN_GRACE_MS 10000        /* SIGTERM -> SIGKILL after a deadline */

struct lab_spawn {
	int out_fd;                     /* the child's stdout; -1: the caller's */
	int err_fd;                     /* its stderr; -1: the caller's; LAB_SPAWN_TO_OUT */
	int death_sig;                  /* PR_SET_PDEATHSIG; 0: none */
	/* Called once the program runs (after a successful exec), with its
	 * pid: e.g. to record the child a signal handler forwards to. */
	void (*started)(void *ctx, pid_t pid);
	void *ctx;
};

/* Start argv[0] (a path) with argv.  how may be NULL: stdin /dev/null, the
 * caller's stdout and stderr, no death signal.  0 and *pid, or -errno
 * (a failed exec: its errno, the child reaped). */
int lab_spawn(char *const argv[], const struct lab_spawn *how, pid_t *pid, struct lab_error *err);

/* Wait for pid: *status its exit status (above).  timeout_ms 0: no
 * deadline.  0, -ETIMEDOUT (killed and reaped, *status how it died), or
 * -errno (ECHILD...). */
int lab_spawn_wait(pid_t pid, unsigned timeout_ms, int *status, struct lab_error *err);

/* lab_spawn + lab_spawn_wait. */
int lab_spawn_run(char *const argv[], const struct lab_spawn *how, unsigned timeout_ms, int *status,
		  struct lab_error *err);

/* Run argv with its stdout into a new NUL-terminated buffer *out (*len may
 * be NULL), at most cap bytes (more: -EFBIG, the child killed); how's
 * out_fd is ignored (err_fd LAB_SPAWN_TO_OUT captures stderr too).  0 and
 * *status, or -errno (*out NULL). */
int lab_spawn_capture(char *const argv[], const struct lab_spawn *how, size_t cap, unsigned timeout_ms,
		      char **out, size_t *len, int *status, struct lab_error *err);

/* The first executable NAME in $PATH (default /usr/local/bin:/usr/bin:/bin)
 * into path.  false when there is none (or it does not fit). */
bool lab_find_program(const char *name, char *path, size_t len);

/* "exited 3", "killed by signal 9 (Killed)": for messages. */
const char *lab_spawn_describe(int status, char *buf, size_t len);

#endif
