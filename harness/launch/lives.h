/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lives.h — the workloads' lives in one run: each started inside the sandbox
 * with its record (runs[].workloads[i]: name, program, argv, pid,
 * started_ms), reaped when its pidfd says it ended, its fate told, and every
 * one still running stopped at the end (SIGTERM, up to 2 s, then the
 * sandbox killed).  The fate is data, not an error (harness/result/
 * result.md): "completed", "failed" (a non-zero exit), "seccomp" (SIGSYS),
 * "oom_killed" (SIGKILL while the sandbox's oom_kill grew, or any SIGKILL
 * after a v2 memory.oom.group kill), "stopped" (by us), "killed" (by anyone
 * else).  The caller's event loop watches the fds and owns what it reads
 * from them; it hears of each end through the hooks.
 */
#ifndef PAGELAB_LAUNCH_LIVES_H
#define PAGELAB_LAUNCH_LIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <limits.h>
#include <regex.h>

#include "base/error.h"
#include "capture.h"
#include "command.h"
#include "launch.h"
#include "ready.h"
#include "sandbox/sandbox.h"

/* What a run's foreign programs share (made by the run stage, run/variant.c). */
struct launch_foreign {
	const char *dir;                /* the run's directory (workdir.h) */
	int netns_fd;                   /* its network namespace (netns.h) */
	int ipcns_fd;                   /* its IPC namespace (netns.h) */
	const struct cmd_user *user;    /* the one user of its commands */
};

/* A command workload as the plan typed it (harness/plan/scenario.h). */
struct launch_command {
	const struct cmd_exec *exec;
	const struct cmd_ready *ready;
	int stop_signal;
	unsigned stop_grace_ms;
	bool thp_never;
};

/* A command workload's life: no event protocol; its output kept, its
 * readiness watched, its stop the scenario's. */
struct launch_cmd_life {
	struct cmd_proc proc;           /* its pidfd moved to workload_proc */
	struct capture out, err;
	char path[PATH_MAX];            /* argv[0] resolved */
	char **argv, **env;             /* as run: ${dir} replaced */
	regex_t re;                     /* ready = stdout:/stderr:/output: */
	bool have_re;
	bool ready, not_ready;
	double ready_ms;
	uint64_t ready_deadline_ns;
	bool planned_stop, stop_killed;
	uint64_t stop_sent_ns;
	double stop_sent_ms;
};

struct launch_wl {
	const char *name, *program;     /* borrowed */
	char *const *argv;              /* borrowed, NULL-terminated, argc entries */
	int argc;
	const struct launch_command *cmd;       /* NULL: a built-in workload (the event protocol) */
	struct workload_proc proc;
	bool launched, stopped_by_us;
	unsigned steps_done;            /* the caller counts them */
	json_t *info;                   /* runs[].workloads[i] (owned: launch_lives_free) */
	char error[256];                /* why it failed, as it said or as we saw */
	struct launch_cmd_life c;       /* a command's */
};

struct launch_hooks {
	/* i has ended (reaped or killed): read what it still wrote, stop
	 * watching it.  Its fate is not recorded yet. */
	void (*ended)(void *ctx, size_t i);
	/* i's fate is recorded in its info. */
	void (*recorded)(void *ctx, size_t i, const char *fate, bool oom);
	/* command i is ready (its c.ready_ms set). */
	void (*ready)(void *ctx, size_t i);
	void *ctx;
};

struct launch_lives {
	struct launch_wl *wl;
	size_t n;
	struct sandbox *sb;
	const char *bindir;
	uint64_t t0_ns;                 /* CLOCK_MONOTONIC of the run's t_ms 0 */
	unsigned long long oom_seen;    /* the sandbox's oom_kill already attributed */
	unsigned long long group_base;  /* v2 oom_group_kill at the run's start */
	struct sandbox_counters cg;     /* scratch for the fate */
	struct launch_hooks hooks;
	const struct launch_foreign *foreign;   /* NULL: no command workload */
};

/* wl[0..n) hold name, program, argv and argc; the rest is set here. */
void launch_lives_init(struct launch_lives *l, struct launch_wl *wl, size_t n, struct sandbox *sb,
		       const char *bindir, uint64_t t0_ns, const struct launch_hooks *hooks);

/* The sandbox's OOM counters now: a later OOM kill is one of this run's
 * (0 when they cannot be read).  Before the first workload starts. */
void launch_lives_baseline(struct launch_lives *l);

/* Start wl[i] in the sandbox and make its record (wl[i].info). */
int launch_start(struct launch_lives *l, size_t i, struct lab_error *err);

/* Reap wl[i] if it has ended (its pidfd is readable) and record its fate. */
void launch_reap_one(struct launch_lives *l, size_t i);

/* Stop every workload still running: sig (a command: its stop signal), up
 * to 2 s (a command: its grace, if longer), then the sandbox killed and each
 * one SIGKILLed.  One already dead is reaped first (its fate is not
 * "stopped"). */
void launch_stop_all(struct launch_lives *l, int sig);

/* ---- command workloads (lives_cmd.c) ----------------------------------------- */

/* Read what command i wrote on stream 1 (stdout) or 2 (stderr); a line its
 * ready = matches makes it ready (hooks.ready). */
void launch_cmd_output(struct launch_lives *l, size_t i, int stream);

/* What the commands need now: a readiness probe (ready = tcp:, unix:,
 * file:; ready at once without ready =), a ready_timeout passed (then: not
 * ready, stopped as planned, fate "not_ready"), a stop's grace over (then
 * everything in the sandbox SIGKILLed).  true while one of them still
 * waits for such a moment (the caller calls again within ~20 ms). */
bool launch_cmd_tick(struct launch_lives *l);

/* The scenario's end of command i: its stop signal; after its grace
 * everything in the sandbox is SIGKILLed (launch_cmd_tick).  Its fate is
 * "completed" (a non-zero exit code: "failed"). */
void launch_stop_planned(struct launch_lives *l, size_t i);

/* Close every fd and drop every record. */
void launch_lives_free(struct launch_lives *l);

#endif
