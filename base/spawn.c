/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn.c — see spawn.h. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int decode(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 255;
}

/* The child between fork and exec: only async-signal-safe calls.  An error
 * goes to the parent as an errno on ep (close-on-exec: a successful exec
 * closes it without a word). */
static void __attribute__((noreturn)) child(char *const argv[], const struct lab_spawn *how, pid_t parent,
					    int ep)
{
	sigset_t none;
	int e = 0, in;

	/* A caller with signals blocked for a signalfd, or SIGPIPE ignored,
	 * must not hand that to a program that expects the defaults. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (how->death_sig != 0 && prctl(PR_SET_PDEATHSIG, how->death_sig) < 0)
		e = errno;
	else if (how->death_sig != 0 && getppid() != parent)
		e = ESRCH;              /* the parent died before the death signal was armed */
	if (e == 0) {
		in = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (in < 0 || dup2(in, 0) < 0)
			e = errno;
	}
	if (e == 0 && how->out_fd >= 0 && dup2(how->out_fd, 1) < 0)
		e = errno;
	if (e == 0 && how->err_fd == LAB_SPAWN_TO_OUT && dup2(1, 2) < 0)
		e = errno;
	if (e == 0 && how->err_fd >= 0 && dup2(how->err_fd, 2) < 0)
		e = errno;
	if (e == 0) {
		execv(argv[0], argv);
		e = errno;
	}
	if (e == 0)
		e = EIO;
	if (write(ep, &e, sizeof(e)) < 0) {
		/* the parent then sees the pipe close: the child's 127 */
	}
	_exit(127);
}

int lab_spawn(char *const argv[], const struct lab_spawn *how, pid_t *pid, struct lab_error *err)
{
	static const struct lab_spawn defaults = { .out_fd = -1, .err_fd = -1 };
	pid_t parent = getpid(), p;
	int ep[2], e = 0;
	ssize_t n;

	if (how == NULL)
		how = &defaults;
	if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0')
		return lab_error_set(err, EINVAL, "no program to start");
	if (pipe2(ep, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "cannot start %s: pipe", argv[0]);
	p = fork();
	if (p < 0) {
		e = errno;
		close(ep[0]);
		close(ep[1]);
		return lab_error_errno(err, e, "cannot start %s: fork", argv[0]);
	}
	if (p == 0)
		child(argv, how, parent, ep[1]);
	close(ep[1]);
	do
		n = read(ep[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return lab_error_set(err, e, "cannot start %s: %s", argv[0], strerror(e));
	}
	*pid = p;
	if (how->started != NULL)
		how->started(how->ctx, p);
	return 0;
}

/* Reap pid before deadline (ms on CLOCK_MONOTONIC): 0, -ETIMEDOUT, -errno.
 * A pidfd is polled where the kernel has one (5.3), else waitpid(WNOHANG)
 * every 20 ms. */
static int wait_until(pid_t pid, long long deadline, int *wstatus)
{
	int fd = -1, ret = -ETIMEDOUT;

#ifdef SYS_pidfd_open
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	for (;;) {
		pid_t r = waitpid(pid, wstatus, WNOHANG);
		long long left;

		if (r == pid) {
			ret = 0;
			break;
		}
		if (r < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		left = deadline - now_ms();
		if (left <= 0)
			break;
		if (fd >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };

			if (poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left) < 0 && errno != EINTR) {
				ret = -errno;
				break;
			}
		} else {
			struct timespec ts = { 0, (left < 20 ? left : 20) * 1000000L };

			nanosleep(&ts, NULL);
		}
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Past the deadline: SIGTERM, the grace, SIGKILL; reaped in every case. */
static void stop_child(pid_t pid, int *wstatus)
{
	kill(pid, SIGTERM);
	if (wait_until(pid, now_ms() + LAB_SPAWN_GRACE_MS, wstatus) == 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
		;
}

int lab_spawn_wait(pid_t pid, unsigned timeout_ms, int *status, struct lab_error *err)
{
	int wst = 0, ret;

	*status = -1;
	if (timeout_ms == 0) {
		for (;;) {
			pid_t r = waitpid(pid, &wst, 0);

			if (r == pid)
				break;
			if (r < 0 && errno != EINTR)
				return lab_error_errno(err, errno, "waitpid %d", (int)pid);
		}
		*status = decode(wst);
		return 0;
	}
	ret = wait_until(pid, now_ms() + timeout_ms, &wst);
	if (ret == -ETIMEDOUT) {
		stop_child(pid, &wst);
		*status = decode(wst);
		return lab_error_set(err, ETIMEDOUT, "process %d was still running after %u s: stopped", (int)pid,
				     (timeout_ms + 999) / 1000);
	}
	if (ret < 0)
		return lab_error_errno(err, -ret, "waitpid %d", (int)pid);
	*status = decode(wst);
	return 0;
}

int lab_spawn_run(char *const argv[], const struct lab_spawn *how, unsigned timeout_ms, int *status,
		  struct lab_error *err)
{
	pid_t pid;
	int ret;

	*status = -1;
	ret = lab_spawn(argv, how, &pid, err);
	if (ret < 0)
		return ret;
	return lab_spawn_wait(pid, timeout_ms, status, err);
}

/* Read fd to EOF into *buf (grown; at most cap bytes) before deadline (0:
 * none).  0, -EFBIG, -ETIMEDOUT, -errno. */
static int read_all(int fd, size_t cap, long long deadline, char **buf, size_t *len)
{
	size_t size = 0;

	for (;;) {
		ssize_t n;

		if (deadline != 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			long long left = deadline - now_ms();
			int r;

			if (left <= 0)
				return -ETIMEDOUT;
			r = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
			if (r < 0 && errno != EINTR)
				return -errno;
			if (r <= 0)
				continue;
		}
		if (*len + 4096 + 1 > size) {
			size_t nsize = size ? size * 2 : 8192;
			char *more = realloc(*buf, nsize);

			if (more == NULL)
				return -ENOMEM;
			*buf = more;
			size = nsize;
		}
		n = read(fd, *buf + *len, size - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*len += (size_t)n;
		if (*len > cap)
			return -EFBIG;
	}
}

int lab_spawn_capture(char *const argv[], const struct lab_spawn *how, size_t cap, unsigned timeout_ms,
		      char **out, size_t *len_out, int *status, struct lab_error *err)
{
	struct lab_spawn h = { .out_fd = -1, .err_fd = -1 };
	long long deadline = timeout_ms ? now_ms() + timeout_ms : 0;
	char *buf = NULL;
	size_t len = 0;
	int p[2], ret, wst = 0;
	pid_t pid;

	*out = NULL;
	*status = -1;
	if (how != NULL)
		h = *how;
	if (pipe2(p, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "cannot start %s: pipe", argv[0]);
	h.out_fd = p[1];
	ret = lab_spawn(argv, &h, &pid, err);
	close(p[1]);
	if (ret < 0) {
		close(p[0]);
		return ret;
	}
	ret = read_all(p[0], cap, deadline, &buf, &len);
	close(p[0]);
	if (ret < 0) {
		stop_child(pid, &wst);
		*status = decode(wst);
		free(buf);
		if (ret == -EFBIG)
			return lab_error_set(err, EFBIG, "%s printed more than %zu bytes: stopped", argv[0], cap);
		if (ret == -ETIMEDOUT)
			return lab_error_set(err, ETIMEDOUT, "%s was still running after %u s: stopped", argv[0],
					     (timeout_ms + 999) / 1000);
		return lab_error_errno(err, -ret, "reading the output of %s", argv[0]);
	}
	buf[len] = '\0';
	ret = lab_spawn_wait(pid, deadline ? (unsigned)(deadline > now_ms() ? deadline - now_ms() : 1) : 0,
			     status, err);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*out = buf;
	if (len_out != NULL)
		*len_out = len;
	return 0;
}

bool lab_find_program(const char *name, char *path, size_t len)
{
	const char *env = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;

	if (strchr(name, '/') != NULL)
		return false;
	if (env == NULL || *env == '\0')
		env = "/usr/local/bin:/usr/bin:/bin";
	copy = strdup(env);
	if (copy == NULL)
		return false;
	for (char *d = strtok_r(copy, ":", &save); d != NULL && !found; d = strtok_r(NULL, ":", &save))
		if ((size_t)snprintf(path, len, "%s/%s", d, name) < len && access(path, X_OK) == 0)
			found = true;
	free(copy);
	return found;
}

const char *lab_spawn_describe(int status, char *buf, size_t len)
{
	if (status > 128 && status < 128 + 65)
		snprintf(buf, len, "killed by signal %d (%s)", status - 128, strsignal(status - 128));
	else
		snprintf(buf, len, "exited %d", status);
	return buf;
}
