/* SPDX-License-Identifier: GPL-2.0-or-later */
/* command.c — a foreign program started in its cgroup (command.h). */
#include "command.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif

int cmd_user_lookup(const char *name, struct cmd_user *u, struct lab_error *err)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int n = LAUNCH_MAX_GROUPS, rc;

	memset(u, 0, sizeof(*u));
	rc = getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	if (rc != 0 || res == NULL) {
		if (strcmp(name, "pagelab") == 0)
			return lab_error_set(err, ENOENT, "user pagelab does not exist: scripts/setup makes it "
					     "(useradd --system --user-group --no-create-home --home-dir /nonexistent "
					     "--shell /usr/sbin/nologin pagelab)");
		return lab_error_set(err, ENOENT, "user %s does not exist on this host", name);
	}
	snprintf(u->name, sizeof(u->name), "%s", name);
	u->uid = pw.pw_uid;
	u->gid = pw.pw_gid;
	u->root = pw.pw_uid == 0;
	if (getgrouplist(name, pw.pw_gid, u->groups, &n) < 0)
		return lab_error_set(err, E2BIG, "user %s is in more than %d groups", name, LAUNCH_MAX_GROUPS);
	u->ngroups = (size_t)n;
	return 0;
}

static bool executable_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

int cmd_resolve(const char *argv0, char *path, size_t len, struct lab_error *err)
{
	const char *p = LAUNCH_PATH;

	if (strchr(argv0, '/') != NULL) {
		if ((size_t)snprintf(path, len, "%s", argv0) >= len)
			return lab_error_set(err, ENAMETOOLONG, "program path too long: %s", argv0);
		if (!executable_file(path))
			return lab_error_set(err, ENOENT, "program %s: not an executable file", argv0);
		return 0;
	}
	while (*p) {
		size_t n = strcspn(p, ":");

		if ((size_t)snprintf(path, len, "%.*s/%s", (int)n, p, argv0) < len && executable_file(path))
			return 0;
		p += n + (p[n] == ':');
	}
	return lab_error_set(err, ENOENT, "program %s: not found in PATH=%s (the package that has it installed?)",
			     argv0, LAUNCH_PATH);
}

char *cmd_word(const char *word, const char *dir)
{
	const char *d = dir != NULL ? dir : "${dir}";
	size_t n = 0, dl = strlen(d);
	char *out, *o;

	for (const char *p = word; *p; p++)
		n += *p == LAUNCH_DIR_MARK ? dl : 1;
	out = malloc(n + 1);
	if (out == NULL)
		abort();
	o = out;
	for (const char *p = word; *p; p++) {
		if (*p == LAUNCH_DIR_MARK) {
			memcpy(o, d, dl);
			o += dl;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

static char *env_pair(const char *key, const char *val)
{
	size_t n = strlen(key) + strlen(val) + 2;
	char *s = malloc(n);

	if (s == NULL)
		abort();
	snprintf(s, n, "%s=%s", key, val);
	return s;
}

char **cmd_env_build(const char *const *env, size_t n, const struct cmd_user *u, const char *dir)
{
	const char *d = dir != NULL ? dir : "${dir}";
	const char *fixed[][2] = {
		{ "PATH", LAUNCH_PATH }, { "HOME", d }, { "USER", u->name }, { "LOGNAME", u->name },
		{ "SHELL", "/bin/sh" }, { "LANG", "C.UTF-8" }, { "TMPDIR", d }, { "PWD", d },
	};
	size_t nf = sizeof(fixed) / sizeof(fixed[0]), k = 0;
	char **v = calloc(nf + n + 1, sizeof(*v));

	if (v == NULL)
		abort();
	for (size_t i = 0; i < nf; i++) {
		bool given = false;

		for (size_t j = 0; j < n; j++)
			given |= strncmp(env[j], fixed[i][0], strlen(fixed[i][0])) == 0 &&
				 env[j][strlen(fixed[i][0])] == '=';
		if (!given)
			v[k++] = env_pair(fixed[i][0], fixed[i][1]);
	}
	for (size_t j = 0; j < n; j++)
		v[k++] = cmd_word(env[j], dir);
	v[k] = NULL;
	return v;
}

char **cmd_argv_build(char *const *argv, int n, const char *dir)
{
	char **v = calloc((size_t)n + 1, sizeof(*v));

	if (v == NULL)
		abort();
	for (int i = 0; i < n; i++)
		v[i] = cmd_word(argv[i], dir);
	return v;
}

void cmd_strv_free(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* The child's report of a step that failed: the step's number and errno. */
enum child_step { ST_OOM_ADJ = 1, ST_RELEASE, ST_NETNS, ST_SESSION, ST_STDIO, ST_THP, ST_CHDIR, ST_GROUPS, ST_GID,
		  ST_UID, ST_STILL_ROOT, ST_NO_NEW_PRIVS, ST_EXEC };

static const char *const step_names[] = {
	[ST_OOM_ADJ] = "oom_score_adj", [ST_RELEASE] = "waiting to be placed in its cgroup",
	[ST_NETNS] = "setns into the run's network namespace", [ST_SESSION] = "setsid", [ST_STDIO] = "stdin/stdout/stderr",
	[ST_THP] = "prctl PR_SET_THP_DISABLE", [ST_CHDIR] = "chdir to the run's directory", [ST_GROUPS] = "setgroups",
	[ST_GID] = "setgid", [ST_UID] = "setuid", [ST_STILL_ROOT] = "dropping root (setuid 0 still worked)",
	[ST_NO_NEW_PRIVS] = "prctl PR_SET_NO_NEW_PRIVS", [ST_EXEC] = "exec",
};

static pid_t parent_pid;

static void __attribute__((noreturn)) child_fail(int fd, enum child_step st)
{
	int msg[2] = { (int)st, errno };

	if (write(fd, msg, sizeof(msg)) < 0) {
		/* the parent sees the exit status */
	}
	_exit(127);
}

/* Between fork and exec: system calls only (command.h, the order). */
static void __attribute__((noreturn)) child_exec(const struct cmd_spec *s, int in_fd, int out_w, int err_w,
						 int status_w, int release_r)
{
	switch (launch_child_prelude(parent_pid, release_r)) {
	case LAUNCH_CHILD_OK: break;
	case LAUNCH_CHILD_OOM_ADJ: child_fail(status_w, ST_OOM_ADJ);
	case LAUNCH_CHILD_RELEASE: child_fail(status_w, ST_RELEASE);    /* never run outside its cgroup */
	}
	if ((s->netns_fd >= 0 && setns(s->netns_fd, CLONE_NEWNET) < 0) ||
	    (s->ipcns_fd >= 0 && setns(s->ipcns_fd, CLONE_NEWIPC) < 0))
		child_fail(status_w, ST_NETNS);
	launch_child_mark();
	if (setsid() < 0)
		child_fail(status_w, ST_SESSION);
	/* 0, 1, 2 and the status pipe at 3; everything else closed.  Each
	 * moved out of the way first, so no dup2 clobbers another. */
	status_w = fcntl(status_w, F_DUPFD_CLOEXEC, 10);
	in_fd = fcntl(in_fd, F_DUPFD_CLOEXEC, 10);
	out_w = fcntl(out_w, F_DUPFD_CLOEXEC, 10);
	err_w = fcntl(err_w, F_DUPFD_CLOEXEC, 10);
	if (status_w < 0 || in_fd < 0 || out_w < 0 || err_w < 0 || dup2(in_fd, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0 || dup2(status_w, 3) < 0 ||
	    fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
		_exit(127);
	status_w = 3;
	if (syscall(SYS_close_range, 4u, ~0u, 0u) < 0)
		for (int i = 4; i < 4096; i++)
			close(i);
	{
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigset_t none;

		for (int sig = 1; sig < NSIG; sig++)
			sigaction(sig, &dfl, NULL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	if (s->thp_never && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0)
		child_fail(status_w, ST_THP);
	umask(022);
	if (chdir(s->dir) < 0)
		child_fail(status_w, ST_CHDIR);
	if (!s->user->root) {
		if (setgroups(s->user->ngroups, s->user->groups) < 0)
			child_fail(status_w, ST_GROUPS);
		if (setgid(s->user->gid) < 0)
			child_fail(status_w, ST_GID);
		if (setuid(s->user->uid) < 0)
			child_fail(status_w, ST_UID);
		if (setuid(0) == 0)
			child_fail(status_w, ST_STILL_ROOT);
		/* A change of uid clears the parent-death signal (prctl(2)). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent_pid)
			_exit(127);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(status_w, ST_NO_NEW_PRIVS);
	execve(s->path, s->argv, s->envp);
	child_fail(status_w, ST_EXEC);
}

static void close_pair(int p[2])
{
	for (int i = 0; i < 2; i++)
		if (p[i] >= 0)
			close(p[i]);
	p[0] = p[1] = -1;
}

/* The child is running: release it (v1, after attaching it), then learn
 * whether it reached exec.  0, or -errno with err. */
static int started(const struct cmd_spec *s, pid_t pid, int status_r, int rel[2], struct lab_error *err)
{
	int msg[2];
	ssize_t n;

	if (rel[1] >= 0) {
		int ret = sandbox_attach(s->cg, pid, err);

		if (ret < 0)
			return lab_error_prefix(err, "put %s into its cgroup", s->argv[0]);
		if (write(rel[1], "g", 1) != 1)
			return lab_error_errno(err, errno, "release %s", s->argv[0]);
	}
	do
		n = read(status_r, msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 0;       /* closed by the exec */
	if (n == (ssize_t)sizeof(msg) && msg[0] > 0 && msg[0] <= ST_EXEC)
		return lab_error_errno(err, msg[1], "%s (%s): %s", s->argv[0], s->path, step_names[msg[0]]);
	return lab_error_set(err, EIO, "%s (%s) ended before its exec", s->argv[0], s->path);
}

int cmd_start(const struct cmd_spec *s, struct cmd_proc *out, struct lab_error *err)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, st[2] = { -1, -1 }, rel[2] = { -1, -1 };
	int in_fd = -1, cgfd = sandbox_dirfd(s->cg), ret;
	pid_t pid = -1;

	memset(out, 0, sizeof(*out));
	out->pidfd = out->out_fd = out->err_fd = -1;
	parent_pid = getpid();
	in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in_fd < 0 || pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 || pipe2(st, O_CLOEXEC) < 0) {
		ret = lab_error_errno(err, errno, "pipe");
		goto fail;
	}
	if (cgfd >= 0) {
		pid = launch_clone_into(cgfd, &out->pidfd);
		if (pid < 0 && (errno == ENOSYS || errno == EINVAL || errno == E2BIG))
			cgfd = -1;      /* an old kernel: fork + attach */
		else if (pid < 0) {
			ret = lab_error_errno(err, errno, "clone3 into %s", sandbox_path(s->cg));
			goto fail;
		} else if (pid == 0) {
			child_exec(s, in_fd, outp[1], errp[1], st[1], -1);
		}
	}
	if (cgfd < 0) {
		if (pipe2(rel, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
			ret = lab_error_errno(err, errno, "fork");
			goto fail;
		}
		if (pid == 0)
			child_exec(s, in_fd, outp[1], errp[1], st[1], rel[0]);
		out->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (out->pidfd < 0) {
			ret = lab_error_errno(err, errno, "pidfd_open");
			goto fail;
		}
	}
	close(st[1]);
	st[1] = -1;
	if ((ret = started(s, pid, st[0], rel, err)) < 0)
		goto fail;
	close_pair(st);
	close_pair(rel);
	close(in_fd);
	close(outp[1]);
	close(errp[1]);
	out->pid = pid;
	out->out_fd = outp[0];
	out->err_fd = errp[0];
	fcntl(out->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(out->err_fd, F_SETFL, O_NONBLOCK);
	return 0;
fail:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close_pair(outp);
	close_pair(errp);
	close_pair(st);
	close_pair(rel);
	if (in_fd >= 0)
		close(in_fd);
	if (out->pidfd >= 0)
		close(out->pidfd);
	out->pidfd = -1;
	return ret;
}

void cmd_proc_close(struct cmd_proc *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->out_fd >= 0)
		close(p->out_fd);
	if (p->err_fd >= 0)
		close(p->err_fd);
	p->pidfd = p->out_fd = p->err_fd = -1;
}
