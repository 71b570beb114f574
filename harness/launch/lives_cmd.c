/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lives_cmd.c — the command workloads' lives in a run (lives.h: started as
 * their user in the sandbox and the run's network namespace, their output
 * kept, their readiness watched, stopped by their own signal and grace). */
#include "lives.h"
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/pattern.h"
#include "result/keys.h"

static const char *signame(int sig)
{
	switch (sig) {
	case SIGTERM: return "TERM";
	case SIGINT: return "INT";
	case SIGQUIT: return "QUIT";
	case SIGHUP: return "HUP";
	case SIGUSR1: return "USR1";
	case SIGUSR2: return "USR2";
	case SIGKILL: return "KILL";
	}
	return "?";
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		json_array_append_new(a, capture_string(v[i], strlen(v[i])));
	return a;
}

/* runs[].workloads[i] of a command, as it starts. */
static json_t *start_record(const struct launch_lives *l, const struct launch_wl *x, double started_ms)
{
	const struct cmd_user *u = l->foreign->user;
	const struct cmd_ready *r = x->cmd->ready;
	json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:i}", RK_NAME, x->name, "program", "command", "argv",
			      strv_json(x->c.argv), "path", capture_string(x->c.path, strlen(x->c.path)), "env",
			      strv_json(x->c.env), "dir", capture_string(l->foreign->dir, strlen(l->foreign->dir)),
			      RK_PID, (int)x->proc.pid);

	json_object_set_new(o, "user", json_pack("{s:s, s:I, s:I}", "name", u->name, "uid", (json_int_t)u->uid, "gid",
						 (json_int_t)u->gid));
	json_object_set_new(o, "started_ms", json_real(started_ms));
	json_object_set_new(o, "thp_disabled", json_boolean(x->cmd->thp_never));
	json_object_set_new(o, "netns", json_boolean(l->foreign->netns_fd >= 0));
	json_object_set_new(o, "ipcns", json_boolean(l->foreign->ipcns_fd >= 0));
	json_object_set_new(o, "ready", r->kind == RUN_READY_NONE ? json_null()
			    : json_pack("{s:s, s:I}", "condition", r->text, "timeout_ms", (json_int_t)r->timeout_ms));
	json_object_set_new(o, "stop", json_pack("{s:s, s:I}", "signal", signame(x->cmd->stop_signal), "grace_ms",
						 (json_int_t)x->cmd->stop_grace_ms));
	return o;
}

int cmd_life_start(struct launch_lives *l, size_t i, double started_ms, struct lab_error *err)
{
	struct launch_wl *x = &l->wl[i];
	struct launch_cmd_life *c = &x->c;
	const struct launch_foreign *f = l->foreign;
	struct cmd_spec s;
	int ret;

	if (f == NULL)
		return lab_error_set(err, EINVAL, "workload %s: a command without the run's directory", x->name);
	c->argv = cmd_argv_build(x->argv, x->argc, f->dir);
	c->env = cmd_env_build((const char *const *)x->cmd->exec->env, x->cmd->exec->nr_env, f->user, f->dir);
	if ((ret = cmd_resolve(c->argv[0], c->path, sizeof(c->path), err)) < 0 ||
	    (ret = capture_init(&c->out, CAPTURE_KEEP, CAPTURE_KEEP, err)) < 0 ||
	    (ret = capture_init(&c->err, CAPTURE_KEEP, CAPTURE_KEEP, err)) < 0)
		return lab_error_prefix(err, "start workload %s", x->name);
	if (x->cmd->ready->kind == RUN_READY_LINE) {
		char msg[128];

		if (lab_pattern_compile(&c->re, x->cmd->ready->regex, REG_EXTENDED | REG_NOSUB, msg, sizeof(msg)) != 0)
			return lab_error_set(err, EINVAL, "workload %s: ready: not a pattern: %s", x->name, msg);
		c->have_re = true;
	}
	s = (struct cmd_spec){ .path = c->path, .argv = c->argv, .envp = c->env, .user = f->user, .dir = f->dir,
			       .netns_fd = f->netns_fd, .ipcns_fd = f->ipcns_fd, .thp_never = x->cmd->thp_never,
			       .cg = l->sb };
	if ((ret = cmd_start(&s, &c->proc, err)) < 0)
		return lab_error_prefix(err, "start workload %s", x->name);
	x->launched = true;
	x->proc.pid = c->proc.pid;
	x->proc.pidfd = c->proc.pidfd;  /* the pidfd is the workload's, as a built-in's */
	c->proc.pidfd = -1;
	x->proc.started = true;
	c->ready_deadline_ns = lives_now_ns() + (uint64_t)x->cmd->ready->timeout_ms * 1000000ull;
	x->info = start_record(l, x, started_ms);
	return 0;
}

static void set_ready(struct launch_lives *l, size_t i)
{
	struct launch_wl *x = &l->wl[i];

	if (x->c.ready || x->c.not_ready || x->proc.exited)
		return;
	x->c.ready = true;
	x->c.ready_ms = lives_ms(l);
	json_object_set_new(x->info, "ready_ms", json_real(x->c.ready_ms));
	if (l->hooks.ready != NULL)
		l->hooks.ready(l->hooks.ctx, i);
}

struct line_ctx {
	struct launch_lives *l;
	size_t i;
	unsigned stream;
};

static void on_line(void *ctx, const char *text)
{
	struct line_ctx *lc = ctx;
	struct launch_wl *x = &lc->l->wl[lc->i];

	if (x->c.have_re && !x->c.ready && (x->cmd->ready->streams & lc->stream) &&
	    regexec(&x->c.re, text, 0, NULL, 0) == 0)
		set_ready(lc->l, lc->i);
}

void launch_cmd_output(struct launch_lives *l, size_t i, int stream)
{
	struct launch_wl *x = &l->wl[i];
	struct capture *cap = stream == 1 ? &x->c.out : &x->c.err;
	int *fd = stream == 1 ? &x->c.proc.out_fd : &x->c.proc.err_fd;
	struct line_ctx lc = { l, i, stream == 1 ? RUN_READY_STDOUT : RUN_READY_STDERR };

	if (*fd < 0)
		return;
	if (capture_read(cap, *fd, on_line, &lc) != 0) {
		close(*fd);     /* its end (or a read error): nothing more comes */
		*fd = -1;
	}
}

/* Not ready in time: the error said, and stopped as planned. */
static void not_ready(struct launch_lives *l, size_t i, const char *why)
{
	struct launch_wl *x = &l->wl[i];

	x->c.not_ready = true;
	snprintf(x->error, sizeof(x->error), "not ready %.100s (ready = %.120s)", why, x->cmd->ready->text);
	json_object_set_new(x->info, RK_ERROR, json_string(x->error));
	launch_stop_planned(l, i);
}

/* One waiting command's readiness probe: 1 ready, 0 not yet, -1 failed. */
static int probe(struct launch_lives *l, struct launch_wl *x, struct lab_error *e)
{
	const struct cmd_ready *r = x->cmd->ready;

	int ret = 0;

	switch (r->kind) {
	case RUN_READY_NONE:
		return 1;
	case RUN_READY_TCP:
		ret = ready_probe_tcp(l->foreign->netns_fd, r->host, r->port, e);
		break;
	case RUN_READY_UNIX:
		ret = ready_probe_unix(l->foreign->dir, r->path, l->foreign->user->uid, l->foreign->user->gid, e);
		break;
	case RUN_READY_FILE:
		ret = ready_probe_file(l->foreign->dir, r->path, l->foreign->user->uid, l->foreign->user->gid, e);
		break;
	case RUN_READY_LINE:
		return 0;       /* its lines decide (on_line) */
	}
	return ret < 0 ? -1 : ret;
}

bool launch_cmd_tick(struct launch_lives *l)
{
	uint64_t now = lives_now_ns();
	bool waiting = false;

	for (size_t i = 0; i < l->n; i++) {
		struct launch_wl *x = &l->wl[i];
		struct lab_error e;

		if (x->cmd == NULL || !x->launched || x->proc.exited)
			continue;
		if (!x->c.ready && !x->c.not_ready) {
			int p = probe(l, x, &e);

			if (p > 0) {
				set_ready(l, i);
			} else if (p < 0) {
				char why[200];

				snprintf(why, sizeof(why), "(the probe failed: %.150s)", e.msg);
				not_ready(l, i, why);
			} else if (now > x->c.ready_deadline_ns) {
				char why[64];

				snprintf(why, sizeof(why), "after %u ms", x->cmd->ready->timeout_ms);
				not_ready(l, i, why);
			}
			waiting |= !x->c.ready;
		}
		if (x->c.stop_sent_ns != 0 && !x->c.stop_killed) {
			if (now >= x->c.stop_sent_ns + (uint64_t)x->cmd->stop_grace_ms * 1000000ull) {
				struct lab_error ke;

				x->c.stop_killed = true;
				sandbox_kill(l->sb, &ke);
				kill(x->proc.pid, SIGKILL);
			} else {
				waiting = true;
			}
		}
	}
	return waiting;
}

void launch_stop_planned(struct launch_lives *l, size_t i)
{
	struct launch_wl *x = &l->wl[i];

	if (x->cmd == NULL || !x->launched || x->proc.exited || x->c.stop_sent_ns != 0)
		return;
	x->c.planned_stop = true;
	x->c.stop_sent_ns = lives_now_ns();
	x->c.stop_sent_ms = lives_ms(l);
	kill(x->proc.pid, x->cmd->stop_signal);
}

const char *cmd_life_fate(const struct launch_lives *l, size_t i)
{
	const struct launch_wl *x = &l->wl[i];
	int st = x->proc.wstatus;

	(void)l;
	if (x->c.not_ready)
		return "not_ready";
	if (x->stopped_by_us && !x->c.planned_stop)
		return "stopped";       /* the run ended early (a signal, its timeout), whatever its code */
	if (!x->c.planned_stop)
		return NULL;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) == 0 ? "completed" : "failed";
	return "completed";     /* its stop signal, or the SIGKILL after its grace (stop.killed) */
}

void cmd_life_end(struct launch_lives *l, size_t i)
{
	struct launch_wl *x = &l->wl[i];
	struct launch_cmd_life *c = &x->c;

	/* What it still wrote: a dead process's pipes end at once, unless a
	 * child of it still holds them (the sandbox is killed at the run's end). */
	launch_cmd_output(l, i, 1);
	launch_cmd_output(l, i, 2);
	cmd_proc_close(&c->proc);
	json_object_set_new(x->info, "stdout", capture_json(&c->out));
	json_object_set_new(x->info, "stderr", capture_json(&c->err));
	if (c->stop_sent_ns != 0)
		json_object_set_new(json_object_get(x->info, "stop"), "sent_ms", json_real(c->stop_sent_ms));
	json_object_set_new(json_object_get(x->info, "stop"), "planned", json_boolean(c->planned_stop));
	json_object_set_new(json_object_get(x->info, "stop"), "killed", json_boolean(c->stop_killed));
	if (!c->ready && !c->not_ready && x->cmd->ready->kind != RUN_READY_NONE) {
		snprintf(x->error, sizeof(x->error), "ended before it was ready (ready = %.200s)", x->cmd->ready->text);
		json_object_set_new(x->info, RK_ERROR, json_string(x->error));
	}
}

void cmd_life_free(struct launch_lives *l, size_t i)
{
	struct launch_cmd_life *c = &l->wl[i].c;

	cmd_proc_close(&c->proc);
	capture_free(&c->out);
	capture_free(&c->err);
	cmd_strv_free(c->argv);
	cmd_strv_free(c->env);
	c->argv = c->env = NULL;
	if (c->have_re)
		regfree(&c->re);
	c->have_re = false;
}
