/* SPDX-License-Identifier: GPL-2.0-or-later */
/* command.h — start a foreign program: a scenario's command workload (its
 * service, its batch program) or a load client (harness/plan/scenario.md).
 *
 * No shell: argv as the scenario's words gave it, argv[0] resolved against
 * the fixed PATH below.  The child never runs a line of the program outside
 * its cgroup: on cgroup v2 it is born there (clone3 CLONE_INTO_CGROUP), on
 * v1 forked blocked on a pipe, attached, then released — as the built-in
 * workloads (launch.h).  Between fork and exec, in this order: PDEATHSIG,
 * oom_score_adj, (v1) the release, the run's network namespace (setns), its
 * own session (setsid: no terminal's signals), stdin /dev/null and stdout,
 * stderr to the harness's pipes, every other descriptor closed, every
 * signal's default and none blocked, PR_SET_THP_DISABLE for thp = never
 * (inherited by every process it forks, kept across exec: kernel/sys.c
 * PR_SET_THP_DISABLE sets MMF_DISABLE_THP on the mm), umask 022, the
 * working directory, the user's groups, gid and uid (capabilities go with
 * uid 0: kernel/cred.c, security/commoncap.c cap_emulate_setxuid), and
 * PR_SET_NO_NEW_PRIVS (a set-uid program it runs gains nothing).  A step
 * that fails is reported back through a close-on-exec pipe ("setuid:
 * Operation not permitted") and the child exits 127.  No seccomp filter: a
 * foreign program's system calls are its own (the built-in workloads lock
 * themselves down, workloads/lockdown.c).
 */
#ifndef PAGELAB_LAUNCH_COMMAND_H
#define PAGELAB_LAUNCH_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/error.h"
#include "sandbox/sandbox.h"

/* The mark of ${dir} in a word: the run's private directory (workdir.h),
 * put in its place by cmd_word. */
#define LAUNCH_DIR_MARK '\x01'

/* The program's PATH, and the whole fixed environment besides what the
 * scenario's env adds or overrides: PATH, HOME (the run's directory), USER,
 * LOGNAME, SHELL=/bin/sh, LANG=C.UTF-8, TMPDIR (the run's directory), PWD.
 * Nothing of the harness's own environment. */
#define CMD_MAX_ENV 16

/* What a foreign program runs with besides its argv: the user and the
 * environment the scenario gave (harness/plan/scenario.md). */
struct cmd_exec {
	char user[33];                  /* "pagelab" unless user = */
	size_t nr_env;
	char *env[CMD_MAX_ENV];         /* KEY=VALUE words, ${dir} as LAUNCH_DIR_MARK */
};

#define LAUNCH_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define LAUNCH_MAX_GROUPS 64

struct cmd_user {
	char name[33];
	uid_t uid;
	gid_t gid;
	bool root;                      /* uid 0, whatever it is called */
	size_t ngroups;
	gid_t groups[LAUNCH_MAX_GROUPS];  /* its supplementary groups (getgrouplist) */
};

/* name from the password database, with its groups.  -ENOENT when there is
 * no such user (the message says how scripts/setup makes pagelab's). */
int cmd_user_lookup(const char *name, struct cmd_user *u, struct lab_error *err);

/* argv[0] as exec will run it: a word with a '/' as it is, else the first
 * executable regular file of that name in LAUNCH_PATH.  -ENOENT. */
int cmd_resolve(const char *argv0, char *path, size_t len, struct lab_error *err);

/* word with every LAUNCH_DIR_MARK replaced by dir (malloc'd; dir NULL:
 * "${dir}", for display). */
char *cmd_word(const char *word, const char *dir);

/* The environment: the fixed one, then env[0..n) (KEY=VALUE, ${dir}
 * replaced; a key given replaces the fixed one).  NULL-terminated, malloc'd
 * (cmd_strv_free).  dir NULL: shown as ${dir}. */
char **cmd_env_build(const char *const *env, size_t n, const struct cmd_user *u, const char *dir);
/* argv[0..n) with ${dir} replaced, NULL-terminated, malloc'd. */
char **cmd_argv_build(char *const *argv, int n, const char *dir);
void cmd_strv_free(char **v);

struct cmd_spec {
	const char *path;               /* resolved program (cmd_resolve) */
	char *const *argv;              /* ${dir} replaced */
	char *const *envp;
	const struct cmd_user *user;
	const char *dir;                /* working directory */
	int netns_fd;                   /* the run's network namespace, -1: the harness's */
	int ipcns_fd;                   /* the run's IPC namespace, -1: the harness's */
	bool thp_never;
	struct sandbox *cg;             /* placed here before exec */
};

struct cmd_proc {
	pid_t pid;
	int pidfd;                      /* -1 once reaped */
	int out_fd, err_fd;             /* read ends of its stdout and stderr, O_NONBLOCK */
};

/* Start it; 0 once it has exec'd (or -errno with err naming the step that
 * failed in the child, which is then reaped). */
int cmd_start(const struct cmd_spec *s, struct cmd_proc *out, struct lab_error *err);

void cmd_proc_close(struct cmd_proc *p);

#endif
