/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "launch.h"
#include "internal.h"
#include "base/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


int launch_bindir(char *buf, size_t len, struct lab_error *err)
{
	const char *env = getenv("PAGELAB_WORKLOADS");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env != NULL && *env) {
		if ((size_t)snprintf(buf, len, "%s", env) >= len)
			return lab_error_set(err, ENAMETOOLONG, "PAGELAB_WORKLOADS is too long");
		return 0;
	}
	/* An installed pagelab: <prefix>/libexec/pagelab (paths.h). */
	if (lab_installed_libexec(buf, len))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return lab_error_errno(err, errno, "readlink /proc/self/exe");
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/workloads", exe) >= len)
		return lab_error_set(err, ENAMETOOLONG, "workload directory path too long");
	return 0;
}

/* The harness's pid, taken before each fork: a child whose parent is no
 * longer it died before PR_SET_PDEATHSIG took hold.  (Not "getppid() == 1":
 * in a container started as `docker run IMAGE run ...` the harness itself is
 * pid 1, and every workload would end at once with 127.) */
static pid_t harness_pid;
static int marker_fd = -1;      /* the run's trace_marker, or -1 (launch_set_marker_fd) */

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_exec(const char *path, char *const argv[], int ev_w, int ack_r, int release_r)
{
	switch (launch_child_prelude(harness_pid, release_r)) {
	case LAUNCH_CHILD_OK: break;
	case LAUNCH_CHILD_OOM_ADJ: _exit(126);
	case LAUNCH_CHILD_RELEASE: _exit(125);      /* the harness could not attach us: never run outside */
	}
	launch_child_mark();
	/* fds 3 and 4, everything else close-on-exec: move both ends out of
	 * the way first so neither dup2 can clobber the other. */
	ev_w = fcntl(ev_w, F_DUPFD_CLOEXEC, 10);
	ack_r = fcntl(ack_r, F_DUPFD_CLOEXEC, 10);
	if (ev_w < 0 || ack_r < 0 || dup2(ev_w, 3) < 0 || dup2(ack_r, 4) < 0)
		_exit(124);
	{
		/* The harness blocks its stop signals (knobs.h: knob_stop_signals)
		 * and reads them from a signalfd; a workload starts with none
		 * blocked, and with SIGPIPE ignored as the harness always had it
		 * (a write to a closed pipe is EPIPE, not a death). */
		sigset_t none;
		struct sigaction ign = { .sa_handler = SIG_IGN };

		sigemptyset(&none);
		sigaction(SIGPIPE, &ign, NULL);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	execv(path, argv);
	_exit(127);
}

enum launch_child_step launch_child_prelude(pid_t parent, int release_r)
{
	static const char adj[] = "1000";
	char b;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, adj, sizeof(adj) - 1) != (ssize_t)(sizeof(adj) - 1))
		return LAUNCH_CHILD_OOM_ADJ;
	close(fd);
	if (release_r >= 0) {
		ssize_t n;

		do
			n = read(release_r, &b, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			return LAUNCH_CHILD_RELEASE;
	}
	return LAUNCH_CHILD_OK;
}

/* Tracepoints record the kernel's global pid: a line in the run's
 * trace_marker from this very task tells the tracer which global pid is this
 * namespace's getpid() (a container; harness/sample/trace/trace.c). */
void launch_child_mark(void)
{
	if (marker_fd >= 0) {
		char line[48];
		int n = snprintf(line, sizeof(line), "pagelab child %d\n", (int)getpid());

		if (n > 0 && write(marker_fd, line, (size_t)n) < 0) {
			/* tracing is best effort here */
		}
	}
}

void launch_set_marker_fd(int fd)
{
	marker_fd = fd;
}

int launch_marker_fd(void)
{
	return marker_fd;
}

pid_t launch_clone_into(int cgfd, int *pidfd)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP | CLONE_PIDFD;
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	args.exit_signal = SIGCHLD;
	args.cgroup = (uint64_t)cgfd;
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

int launch_workload(char *const argv[], const char *bindir, struct sandbox *sb,
		    struct workload_proc *out, struct lab_error *err)
{
	char path[PATH_MAX];
	char *full[80];
	int ev[2] = { -1, -1 }, ack[2] = { -1, -1 }, rel[2] = { -1, -1 };
	int argc = 0, cgfd, ret;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->pidfd = out->event_fd = out->ack_fd = -1;
	harness_pid = getpid();
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", bindir, argv[0]) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "workload path too long");
	if (access(path, X_OK) < 0)
		return lab_error_errno(err, errno, "workload program %s", path);
	for (; argv[argc] && argc < 72; argc++)
		full[argc] = argv[argc];
	full[argc++] = "--event-fd";
	full[argc++] = "3";
	full[argc++] = "--ack-fd";
	full[argc++] = "4";
	full[argc] = NULL;

	if (pipe2(ev, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0) {
		ret = lab_error_errno(err, errno, "pipe");
		goto fail;
	}
	cgfd = sandbox_dirfd(sb);
	if (cgfd >= 0) {
		pid = launch_clone_into(cgfd, &out->pidfd);
		if (pid < 0 && (errno == ENOSYS || errno == EINVAL || errno == E2BIG))
			cgfd = -1;      /* an old kernel: fall back to fork + attach */
		else if (pid < 0) {
			ret = lab_error_errno(err, errno, "clone3 into %s", sandbox_path(sb));
			goto fail;
		} else if (pid == 0) {
			child_exec(path, full, ev[1], ack[0], -1);
		}
	}
	if (cgfd < 0) {
		if (pipe2(rel, O_CLOEXEC) < 0) {
			ret = lab_error_errno(err, errno, "pipe");
			goto fail;
		}
		pid = fork();
		if (pid < 0) {
			ret = lab_error_errno(err, errno, "fork");
			goto fail;
		}
		if (pid == 0)
			child_exec(path, full, ev[1], ack[0], rel[0]);
		out->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (out->pidfd < 0) {
			ret = lab_error_errno(err, errno, "pidfd_open");
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto fail;
		}
		ret = sandbox_attach(sb, pid, err);
		if (ret < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			lab_error_prefix(err, "put %s into the sandbox", argv[0]);
			goto fail;
		}
		if (write(rel[1], "g", 1) != 1) {
			ret = lab_error_errno(err, errno, "release %s", argv[0]);
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			goto fail;
		}
		close(rel[0]);
		close(rel[1]);
		rel[0] = rel[1] = -1;
	}
	close(ev[1]);
	close(ack[0]);
	out->pid = pid;
	out->event_fd = ev[0];
	out->ack_fd = ack[1];
	fcntl(out->event_fd, F_SETFL, O_NONBLOCK);
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (ev[i] >= 0)
			close(ev[i]);
		if (ack[i] >= 0)
			close(ack[i]);
		if (rel[i] >= 0)
			close(rel[i]);
	}
	if (out->pidfd >= 0)
		close(out->pidfd);
	out->pidfd = -1;
	return ret;
}

int launch_reap(struct workload_proc *wp, struct lab_error *err)
{
	siginfo_t si;

	if (wp->exited)
		return 0;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)wp->pid, &si, WEXITED | WNOHANG) < 0)
		return lab_error_errno(err, errno, "waitid %d", (int)wp->pid);
	if (si.si_pid == 0)
		return -EAGAIN;
	wp->exited = true;
	if (si.si_code == CLD_EXITED)
		wp->wstatus = (si.si_status & 0xff) << 8;
	else
		wp->wstatus = si.si_status & 0x7f;
	return 0;
}

void launch_release(struct workload_proc *wp)
{
	if (wp->pidfd >= 0)
		close(wp->pidfd);
	if (wp->event_fd >= 0)
		close(wp->event_fd);
	if (wp->ack_fd >= 0)
		close(wp->ack_fd);
	wp->pidfd = wp->event_fd = wp->ack_fd = -1;
	free(wp->buf);
	wp->buf = NULL;
	wp->len = wp->cap = 0;
}

void launch_reap_orphans(const pid_t *keep, size_t n)
{
	char path[64], buf[4096], *p, *end;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;         /* no CONFIG_PROC_CHILDREN: launch_reap_all at the end */
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return;
	buf[len] = '\0';
	for (p = buf;; p = end) {
		long pid = strtol(p, &end, 10);
		bool known = false;
		siginfo_t si;

		if (end == p || pid <= 0)
			break;
		for (size_t i = 0; i < n; i++)
			known |= keep[i] == (pid_t)pid;
		memset(&si, 0, sizeof(si));
		if (!known)
			waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG);
	}
}

void launch_reap_all(void)
{
	siginfo_t si;

	for (int i = 0; i < 4096; i++) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG) < 0 || si.si_pid == 0)
			break;
	}
}
