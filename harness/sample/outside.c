/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outside.c — a ballast outside the sandbox (outside.h). */
#include "outside.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000ULL + (unsigned long long)ts.tv_nsec / 1000000ULL;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static _Noreturn void child(const char *path, char *const argv[], int ev_w, pid_t parent)
{
	static const char adj[] = "0";
	sigset_t none;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* A bystander, not the OOM killer's first choice (the harness's own
	 * score may be lower still). */
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, adj, 1) != 1) {
			/* keeps the harness's score */
		}
		close(fd);
	}
	if (dup2(ev_w, 3) < 0)
		_exit(124);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execv(path, argv);
	_exit(127);
}

/* The record's end: wait_ms, and result "ok" or "error" (with why). */
static void done(struct outside *o, json_t *rec, int ret, const char *why)
{
	if (o->fd >= 0) {
		close(o->fd);
		o->fd = -1;
	}
	json_object_set_new(rec, "wait_ms", json_integer((json_int_t)(mono_ms() - o->t0_ms)));
	json_object_set_new(rec, "result", json_string(ret >= 0 ? "ok" : "error"));
	if (ret < 0) {
		json_object_set_new(rec, "error", json_string(why));
		outside_stop(o);
	}
}

int outside_begin(const char *bindir, unsigned long long leave, struct outside *o, json_t *rec,
		  struct lab_error *err)
{
	char path[PATH_MAX], lv[32];
	char *argv[] = { "hold", "--leave", lv, "--oom-score-adj", "0", "--event-fd", "3", NULL };
	int p[2], ret = 0;
	pid_t pid, me = getpid();

	o->pid = 0;
	o->fd = -1;
	o->len = 0;
	o->t0_ms = mono_ms();
	o->deadline_ms = o->t0_ms + OUTSIDE_WAIT_MS;
	json_object_set_new(rec, "leave_bytes", json_integer((json_int_t)leave));
	snprintf(lv, sizeof(lv), "%llu", leave);
	if ((size_t)snprintf(path, sizeof(path), "%s/hold", bindir) >= sizeof(path))
		ret = lab_error_set(err, ENAMETOOLONG, "outside ballast: path too long");
	else if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		ret = lab_error_errno(err, errno, "outside ballast: pipe");
	else if ((pid = fork()) == 0)
		child(path, argv, p[1], me);
	else {
		close(p[1]);
		if (pid < 0) {
			close(p[0]);
			ret = lab_error_errno(err, errno, "outside ballast: fork");
		} else {
			o->pid = pid;
			o->fd = p[0];
			json_object_set_new(rec, "pid", json_integer(pid));
		}
	}
	if (ret < 0)
		done(o, rec, ret, err->msg);
	return ret;
}

int outside_poll(struct outside *o, json_t *rec, struct lab_error *err)
{
	char *nl;
	ssize_t n;
	int ret;

	if (o->fd < 0)
		return lab_error_set(err, EBADF, "the outside ballast is not filling");
	for (;;) {
		n = read(o->fd, o->buf + o->len, sizeof(o->buf) - 1 - o->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			ret = lab_error_set(err, EPIPE, "the outside ballast (pid %d) ended before taking its memory",
					    (int)o->pid);
			done(o, rec, ret, err->msg);
			return ret;
		}
		o->len += (size_t)n;
		o->buf[o->len] = '\0';
		while ((nl = strchr(o->buf, '\n')) != NULL) {
			json_t *ev = json_loadb(o->buf, (size_t)(nl - o->buf), 0, NULL);
			const char *type = json_string_value(json_object_get(ev, "event"));

			o->len -= (size_t)(nl + 1 - o->buf);
			memmove(o->buf, nl + 1, o->len + 1);
			if (type != NULL && !strcmp(type, "start"))
				json_object_set(rec, "memfree_kb", json_object_get(ev, "memfree_kb"));
			if (type != NULL && !strcmp(type, "error")) {
				const char *m = json_string_value(json_object_get(ev, "msg"));

				ret = lab_error_set(err, EIO, "outside ballast: %s", m ? m : "failed");
				json_decref(ev);
				done(o, rec, ret, err->msg);
				return ret;
			}
			if (type != NULL && !strcmp(type, "step")) {
				json_object_set(rec, "held_bytes", json_object_get(ev, "held_bytes"));
				json_object_set(rec, "rollup", json_object_get(ev, "rollup"));
				json_decref(ev);
				done(o, rec, 0, NULL);
				return 1;
			}
			json_decref(ev);
		}
		if (o->len >= sizeof(o->buf) - 1) {
			ret = lab_error_set(err, E2BIG, "the outside ballast wrote a line longer than %zu bytes",
					    sizeof(o->buf));
			done(o, rec, ret, err->msg);
			return ret;
		}
	}
	if (mono_ms() >= o->deadline_ms) {
		ret = lab_error_set(err, ETIMEDOUT, "the outside ballast (pid %d) did not take its memory in %d s",
				    (int)o->pid, OUTSIDE_WAIT_MS / 1000);
		done(o, rec, ret, err->msg);
		return ret;
	}
	return 0;
}

void outside_abandon(struct outside *o, json_t *rec, const char *why)
{
	if (o->fd >= 0)
		done(o, rec, -ECANCELED, why);
}

void outside_stop(struct outside *o)
{
	unsigned long long end;
	int st;

	if (o->pid <= 0)
		return;
	kill(o->pid, SIGTERM);
	end = mono_ms() + 5000;
	while (waitpid(o->pid, &st, WNOHANG) == 0) {
		struct timespec ts = { 0, 20000000L };

		if (mono_ms() >= end) {
			kill(o->pid, SIGKILL);
			waitpid(o->pid, &st, 0);
			break;
		}
		nanosleep(&ts, NULL);
	}
	o->pid = 0;
}
