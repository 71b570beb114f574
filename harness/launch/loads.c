/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loads.c — a load client's life (loads.h). */
#include "loads.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"
#include "result/keys.h"

#define LOAD_HEAD (1u << 20)
#define LOAD_TAIL (64u * 1024)

int load_start(struct launch_load *l, const struct launch_foreign *f, struct lab_error *err)
{
	struct cmd_spec s;
	int ret;

	l->proc.pidfd = l->proc.out_fd = l->proc.err_fd = -1;
	l->run_argv = cmd_argv_build(l->argv, l->argc, f->dir);
	l->run_env = cmd_env_build((const char *const *)l->exec->env, l->exec->nr_env, f->user, f->dir);
	if ((ret = cmd_resolve(l->run_argv[0], l->path, sizeof(l->path), err)) < 0 ||
	    (ret = capture_init(&l->out, LOAD_HEAD, LOAD_TAIL, err)) < 0 ||
	    (ret = capture_init(&l->err, LOAD_HEAD, LOAD_TAIL, err)) < 0)
		return lab_error_prefix(err, "load %s", l->name);
	s = (struct cmd_spec){ .path = l->path, .argv = l->run_argv, .envp = l->run_env, .user = f->user,
			       .dir = f->dir, .netns_fd = f->netns_fd, .ipcns_fd = f->ipcns_fd, .thp_never = false,
			       .cg = l->cg };
	if ((ret = cmd_start(&s, &l->proc, err)) < 0)
		return lab_error_prefix(err, "load %s", l->name);
	l->started = true;
	l->started_ns = lives_now_ns();
	l->deadline_ns = l->started_ns + (uint64_t)l->timeout_ms * 1000000ull;
	return 0;
}

void load_output(struct launch_load *l, int stream)
{
	struct capture *cap = stream == 1 ? &l->out : &l->err;
	int *fd = stream == 1 ? &l->proc.out_fd : &l->proc.err_fd;

	if (*fd >= 0 && capture_read(cap, *fd, NULL, NULL) != 0) {
		close(*fd);
		*fd = -1;
	}
}

bool load_reap(struct launch_load *l)
{
	siginfo_t si;

	if (!l->started || l->exited)
		return l->exited;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)l->proc.pid, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
		return false;
	l->exited = true;
	l->ended_ns = lives_now_ns();
	l->wstatus = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8 : si.si_status & 0x7f;
	return true;
}

bool load_overdue(const struct launch_load *l, uint64_t now)
{
	return l->started && !l->exited && now >= l->deadline_ns;
}

/* Everything of it: its own cgroup whole, or (in the sandbox) its process
 * group — it is a session leader (command.h: setsid), so what it forks
 * is in its group unless that made a session of its own. */
static void kill_all(struct launch_load *l)
{
	struct lab_error e;

	if (!l->in_sandbox)
		sandbox_kill(l->cg, &e);
	kill(-l->proc.pid, SIGKILL);
}

void load_kill(struct launch_load *l, bool timeout)
{
	if (!l->started || l->exited)
		return;
	l->timed_out = timeout;
	kill_all(l);
	kill(l->proc.pid, SIGKILL);
	waitpid(l->proc.pid, NULL, 0);  /* reaped here: its pidfd says no more */
	l->exited = true;
	l->ended_ns = lives_now_ns();
	l->wstatus = SIGKILL;
}

void load_finish(struct launch_load *l)
{
	if (!l->started)
		return;
	kill_all(l);
	load_output(l, 1);
	load_output(l, 2);
	cmd_proc_close(&l->proc);
}

static json_t *strv_json(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		json_array_append_new(a, capture_string(v[i], strlen(v[i])));
	return a;
}

/* What its tool printed, read by its metrics table: metrics, valid, invalid. */
static void record_metrics(const struct launch_load *l, json_t *o, bool target_ok, const char *target)
{
	int st = l->wstatus, code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	size_t on = 0, en = 0;
	char *out = capture_text(&l->out, &on), *err = capture_text(&l->err, &en), why[256];
	json_t *m = NULL;
	const char *inv = NULL;

	if (l->metrics != NULL) {
		m = metrics_read(l->metrics, out ? out : "", err ? err : "", code, l->run_argv, l->argc);
		inv = json_string_value(json_object_get(m, "invalid"));
	} else if (code != 0) {
		const char *slash = l->run_argv && l->run_argv[0] ? strrchr(l->run_argv[0], '/') : NULL;

		snprintf(why, sizeof(why), "%s exited with code %d",
			 slash && slash[1] ? slash + 1 : l->run_argv && l->run_argv[0] ? l->run_argv[0] : "it", code);
		inv = why;
	}
	/* What its own output cannot say comes first. */
	if (l->timed_out) {
		snprintf(why, sizeof(why), "killed at its timeout (%u ms): a client that hangs is no result", l->timeout_ms);
		inv = why;
	} else if (WIFSIGNALED(st)) {
		snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(st));
		inv = why;
	} else if (!target_ok) {
		snprintf(why, sizeof(why), "%s ended during the load (its numbers are not the service's)", target);
		inv = why;
	}
	json_object_set_new(o, "metrics_table", l->metrics ? json_string(metrics_path(l->metrics)) : json_null());
	json_object_set_new(o, RK_METRICS, m != NULL ? json_incref(json_object_get(m, "metrics")) : json_object());
	json_object_set_new(o, "valid", json_boolean(inv == NULL));
	json_object_set_new(o, "invalid", inv ? json_string(inv) : json_null());
	json_decref(m);
	free(out);
	free(err);
}

json_t *load_record(const struct launch_load *l, uint64_t t0_ns, bool target_ok, const char *target)
{
	int st = l->wstatus;
	double s = l->started_ns >= t0_ns ? (double)(l->started_ns - t0_ns) / 1e6 : 0.0;
	double e = l->ended_ns >= t0_ns ? (double)(l->ended_ns - t0_ns) / 1e6 : 0.0;
	const char *outcome = l->timed_out ? "timeout" : WIFSIGNALED(st) ? "killed"
			      : WEXITSTATUS(st) == 0 ? "completed" : "failed";
	json_t *o = json_pack("{s:s, s:o, s:o, s:s, s:s, s:i, s:I}", "name", l->name, "argv", strv_json(l->run_argv),
			      "path", capture_string(l->path, strlen(l->path)), "cgroup",
			      l->in_sandbox ? "sandbox" : "own", "cgroup_path", sandbox_path(l->cg), "pid",
			      (int)l->proc.pid, "timeout_ms", (json_int_t)l->timeout_ms);

	json_object_set_new(o, "env", strv_json(l->run_env));
	json_object_set_new(o, "started_ms", json_real(s));
	json_object_set_new(o, "ended_ms", json_real(e));
	json_object_set_new(o, "duration_ms", json_real(e - s));
	json_object_set_new(o, "code", WIFEXITED(st) ? json_integer(WEXITSTATUS(st)) : json_null());
	json_object_set_new(o, "signal", WIFSIGNALED(st) ? json_integer(WTERMSIG(st)) : json_null());
	json_object_set_new(o, "timed_out", json_boolean(l->timed_out));
	json_object_set_new(o, "outcome", json_string(outcome));
	json_object_set_new(o, "stdout", capture_json(&l->out));
	json_object_set_new(o, "stderr", capture_json(&l->err));
	record_metrics(l, o, target_ok, target);
	return o;
}

void load_free(struct launch_load *l)
{
	cmd_proc_close(&l->proc);
	capture_free(&l->out);
	capture_free(&l->err);
	cmd_strv_free(l->run_argv);
	cmd_strv_free(l->run_env);
	l->run_argv = l->run_env = NULL;
}
