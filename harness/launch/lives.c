/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lives.c — the workloads' lives in one run (lives.h). */
#include "lives.h"
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "result/keys.h"

uint64_t lives_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define now_ns lives_now_ns

double lives_ms(const struct launch_lives *l)
{
	uint64_t ns = now_ns();

	return ns >= l->t0_ns ? (double)(ns - l->t0_ns) / 1e6 : 0.0;
}

#define ms_since lives_ms

void launch_lives_init(struct launch_lives *l, struct launch_wl *wl, size_t n, struct sandbox *sb,
		       const char *bindir, uint64_t t0_ns, const struct launch_hooks *hooks)
{
	memset(&l->cg, 0, sizeof(l->cg));
	l->wl = wl;
	l->n = n;
	l->sb = sb;
	l->bindir = bindir;
	l->t0_ns = t0_ns;
	l->hooks = *hooks;
	l->oom_seen = l->group_base = 0;
	l->foreign = NULL;
	for (size_t i = 0; i < n; i++) {
		wl[i].proc.pidfd = wl[i].proc.event_fd = wl[i].proc.ack_fd = -1;
		wl[i].launched = wl[i].stopped_by_us = false;
		wl[i].steps_done = 0;
		wl[i].info = NULL;
		wl[i].error[0] = '\0';
		memset(&wl[i].c, 0, sizeof(wl[i].c));
		wl[i].c.proc.pidfd = wl[i].c.proc.out_fd = wl[i].c.proc.err_fd = -1;
	}
}

void launch_lives_baseline(struct launch_lives *l)
{
	struct lab_error e;

	if (sandbox_read(l->sb, &l->cg, &e) == 0) {
		l->oom_seen = l->cg.oom_kill;
		l->group_base = l->cg.oom_group_kill;
	}
}

int launch_start(struct launch_lives *l, size_t i, struct lab_error *err)
{
	struct launch_wl *x = &l->wl[i];
	json_t *argv;
	int ret;

	if (x->cmd != NULL)
		return cmd_life_start(l, i, ms_since(l), err);
	ret = launch_workload(x->argv, l->bindir, l->sb, &x->proc, err);
	if (ret < 0)
		return lab_error_prefix(err, "start workload %s", x->name);
	x->launched = true;
	argv = json_array();
	for (int a = 0; a < x->argc; a++)
		json_array_append_new(argv, json_string(x->argv[a]));
	x->info = json_pack("{s:s, s:s, s:o, s:i, s:f}", "name", x->name, "program", x->program, "argv", argv,
			    "pid", (int)x->proc.pid, "started_ms", ms_since(l));
	return 0;
}

static const char *fate(struct launch_lives *l, struct launch_wl *x, bool *oom)
{
	int st = x->proc.wstatus;
	const char *own = x->cmd != NULL ? cmd_life_fate(l, (size_t)(x - l->wl)) : NULL;

	*oom = false;
	if (own != NULL)
		return own;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0 ? "completed" : "failed";
	if (WTERMSIG(st) == SIGSYS)
		return "seccomp";
	if (WTERMSIG(st) == SIGKILL && !x->stopped_by_us) {
		struct lab_error e;

		if (sandbox_read(l->sb, &l->cg, &e) == 0 && l->cg.oom_kill > l->oom_seen) {
			l->oom_seen = l->cg.oom_kill;
			*oom = true;
			return "oom_killed";
		}
		/* v2 memory.oom.group = 1: the OOM killer took the whole sandbox
		 * (mm/oom_kill.c: oom_kill_memcg_member), so every workload that
		 * died of SIGKILL is a victim, not only the first one reaped. */
		if (l->cg.oom_group_kill > l->group_base) {
			*oom = true;
			return "oom_killed";
		}
	}
	return x->stopped_by_us ? "stopped" : "killed";
}

static void record_exit(struct launch_lives *l, size_t i)
{
	struct launch_wl *x = &l->wl[i];
	int st = x->proc.wstatus;
	const char *f;
	bool oom;

	if (l->hooks.ended != NULL)
		l->hooks.ended(l->hooks.ctx, i);
	if (x->proc.pidfd >= 0) {
		close(x->proc.pidfd);
		x->proc.pidfd = -1;
	}
	if (x->cmd != NULL)
		cmd_life_end(l, i);
	f = fate(l, x, &oom);
	json_object_set_new(x->info, RK_CODE, WIFEXITED(st) ? json_integer(WEXITSTATUS(st)) : json_null());
	json_object_set_new(x->info, RK_SIGNAL, WIFSIGNALED(st) ? json_integer(WTERMSIG(st)) : json_null());
	json_object_set_new(x->info, RK_OOM_KILLED, json_boolean(oom));
	json_object_set_new(x->info, RK_FATE, json_string(f));
	json_object_set_new(x->info, RK_STEPS_DONE, json_integer(x->steps_done));
	json_object_set_new(x->info, RK_ENDED_MS, json_real(ms_since(l)));
	if (l->hooks.recorded != NULL)
		l->hooks.recorded(l->hooks.ctx, i, f, oom);
}

void launch_reap_one(struct launch_lives *l, size_t i)
{
	struct launch_wl *x = &l->wl[i];
	struct lab_error e;

	if (!x->launched || x->proc.exited)
		return;
	if (launch_reap(&x->proc, &e) != 0)
		return;
	record_exit(l, i);
}

void launch_stop_all(struct launch_lives *l, int sig)
{
	uint64_t deadline = now_ns() + 2000000000ull;
	bool any;

	for (size_t i = 0; i < l->n; i++) {
		struct launch_wl *x = &l->wl[i];

		launch_reap_one(l, i);
		if (!x->launched || x->proc.exited)
			continue;
		if (x->cmd == NULL) {
			x->stopped_by_us = true;
			kill(x->proc.pid, sig);
			continue;
		}
		/* A command: its own stop signal and grace, unless it is being
		 * stopped as planned already. */
		if (!x->c.planned_stop) {
			x->stopped_by_us = true;
			x->c.stop_sent_ns = now_ns();
			x->c.stop_sent_ms = ms_since(l);
			kill(x->proc.pid, x->cmd->stop_signal);
		}
		if (x->c.stop_sent_ns + (uint64_t)x->cmd->stop_grace_ms * 1000000ull > deadline)
			deadline = x->c.stop_sent_ns + (uint64_t)x->cmd->stop_grace_ms * 1000000ull;
	}
	do {
		any = false;
		for (size_t i = 0; i < l->n; i++) {
			launch_reap_one(l, i);
			any |= l->wl[i].launched && !l->wl[i].proc.exited;
		}
		if (any) {
			struct timespec ts = { 0, 20000000 };

			nanosleep(&ts, NULL);
		}
	} while (any && now_ns() < deadline);
	if (any) {
		struct lab_error e;

		sandbox_kill(l->sb, &e);
		for (size_t i = 0; i < l->n; i++) {
			struct launch_wl *x = &l->wl[i];

			if (x->launched && !x->proc.exited) {
				kill(x->proc.pid, SIGKILL);
				waitpid(x->proc.pid, NULL, 0);
				x->proc.exited = true;
				x->proc.wstatus = SIGKILL;
				x->c.stop_killed = x->cmd != NULL;
				record_exit(l, i);
			}
		}
	}
}

void launch_lives_free(struct launch_lives *l)
{
	for (size_t i = 0; i < l->n; i++) {
		launch_release(&l->wl[i].proc);
		if (l->wl[i].cmd != NULL)
			cmd_life_free(l, i);
		json_decref(l->wl[i].info);
		l->wl[i].info = NULL;
	}
	sandbox_counters_free(&l->cg);
}
