/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ready.h — whether a service is ready: a probe the harness makes, never
 * blocking (harness/plan/scenario.md, ready =).  Each returns 1 when ready,
 * 0 when not yet, -errno when the probe itself failed (err says why). */
#ifndef PAGELAB_LAUNCH_READY_H
#define PAGELAB_LAUNCH_READY_H

#include <sys/types.h>

#include "base/error.h"

/* A scenario's ready = (harness/plan/scenario.md), typed by the plan. */
enum cmd_ready_kind {
	RUN_READY_NONE,                 /* ready at once (a batch program) */
	RUN_READY_TCP,                  /* a loopback TCP port accepts, in the run's network namespace */
	RUN_READY_UNIX,                 /* a unix socket in the run's directory accepts */
	RUN_READY_FILE,                 /* a file appears in the run's directory */
	RUN_READY_LINE,                 /* a line of its output matches (POSIX ERE) */
};

#define RUN_READY_STDOUT 1u
#define RUN_READY_STDERR 2u

struct cmd_ready {
	enum cmd_ready_kind kind;
	char text[320];                 /* as written, after ${}: "tcp:6379" */
	char host[48];                  /* TCP: 127.0.0.1 (any of 127.0.0.0/8) or ::1 */
	unsigned port;
	char path[256];                 /* UNIX, FILE: relative to the run's directory */
	char regex[256];                /* LINE */
	unsigned streams;               /* LINE: RUN_READY_STDOUT | RUN_READY_STDERR */
	unsigned timeout_ms;            /* ready_timeout */
};

/* A TCP connection to host (127.x.y.z or ::1) : port accepted, from a
 * socket made in the run's network namespace nsfd (-1: the harness's). */
int ready_probe_tcp(int nsfd, const char *host, unsigned port, struct lab_error *err);

/* A connection to the unix socket dir/rel accepted; dir/rel exists (a
 * final link not followed).  Both look at the run's directory, which its
 * user writes: made with that user's file-system ids (setfsuid, setfsgid:
 * with them the harness's file-system capabilities are off,
 * security/commoncap.c cap_task_fix_setuid), so a link planted there
 * reaches nothing the user could not reach itself. */
int ready_probe_unix(const char *dir, const char *rel, uid_t uid, gid_t gid, struct lab_error *err);
int ready_probe_file(const char *dir, const char *rel, uid_t uid, gid_t gid, struct lab_error *err);

#endif
