/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outside.c — a ballast outside the sandbox (outside.h). */
#include "outside.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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

/* The `hold` step line (or an `error`), read within the deadline; the
 * start line's memfree_kb goes into rec. */
static int wait_line(int fd, pid_t pid, json_t *rec, json_t **ev, struct lab_error *err)
{
	char buf[8192];
	size_t len = 0;
	unsigned long long end = mono_ms() + OUTSIDE_WAIT_MS;

	*ev = NULL;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		unsigned long long now = mono_ms();
		char *nl;
		ssize_t n;

		if (now >= end)
			return lab_error_set(err, ETIMEDOUT, "the outside ballast (pid %d) did not take its memory in %d s",
					     (int)pid, OUTSIDE_WAIT_MS / 1000);
		if (poll(&p, 1, (int)(end - now)) < 0 && errno != EINTR)
			return lab_error_errno(err, errno, "poll");
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return lab_error_set(err, EPIPE, "the outside ballast (pid %d) ended before taking its memory", (int)pid);
		len += (size_t)n;
		buf[len] = '\0';
		while ((nl = strchr(buf, '\n')) != NULL) {
			json_t *o = json_loadb(buf, (size_t)(nl - buf), 0, NULL);
			const char *type = json_string_value(json_object_get(o, "event"));

			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len + 1);
			if (type != NULL && (!strcmp(type, "step") || !strcmp(type, "error"))) {
				*ev = o;
				return 0;
			}
			if (type != NULL && !strcmp(type, "start"))
				json_object_set(rec, "memfree_kb", json_object_get(o, "memfree_kb"));
			json_decref(o);
		}
		if (len >= sizeof(buf) - 1)
			return lab_error_set(err, E2BIG, "the outside ballast wrote a line longer than %zu bytes", sizeof(buf));
	}
}

int outside_hold(const char *bindir, unsigned long long leave, struct outside *o, json_t *rec,
		 struct lab_error *err)
{
	char path[PATH_MAX], lv[32];
	char *argv[] = { "hold", "--leave", lv, "--oom-score-adj", "0", "--event-fd", "3", NULL };
	unsigned long long t0 = mono_ms();
	json_t *ev = NULL;
	int p[2], ret;
	pid_t pid, me = getpid();

	o->pid = 0;
	snprintf(lv, sizeof(lv), "%llu", leave);
	if ((size_t)snprintf(path, sizeof(path), "%s/hold", bindir) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "outside ballast: path too long");
	if (pipe2(p, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "outside ballast: pipe");
	pid = fork();
	if (pid == 0)
		child(path, argv, p[1], me);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return lab_error_errno(err, errno, "outside ballast: fork");
	}
	o->pid = pid;
	ret = wait_line(p[0], pid, rec, &ev, err);
	close(p[0]);
	json_object_set_new(rec, "pid", json_integer(pid));
	json_object_set_new(rec, "leave_bytes", json_integer((json_int_t)leave));
	json_object_set_new(rec, "wait_ms", json_integer((json_int_t)(mono_ms() - t0)));
	if (ret == 0 && !strcmp(json_string_value(json_object_get(ev, "event")), "error"))
		ret = lab_error_set(err, EIO, "outside ballast: %s",
				    json_string_value(json_object_get(ev, "msg")) ? json_string_value(json_object_get(ev, "msg"))
										 : "failed");
	if (ret == 0) {
		json_object_set(rec, "held_bytes", json_object_get(ev, "held_bytes"));
		json_object_set(rec, "rollup", json_object_get(ev, "rollup"));
	}
	json_object_set_new(rec, "result", json_string(ret == 0 ? "ok" : "error"));
	if (ret < 0) {
		json_object_set_new(rec, "error", json_string(err->msg));
		outside_stop(o);
	}
	json_decref(ev);
	return ret;
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
