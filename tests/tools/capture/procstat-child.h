/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procstat-child.h — the child whose /proc/PID/stat line tests the parser
 * (base/procstat.h): shared by the capture (lazyfree-probe procstat) and
 * the live half of tests/unit/test_procstat.c, so both make the same one.
 *
 * It blocks SIGUSR1, names itself PROCSTAT_NAME (15 bytes, the most
 * PR_SET_NAME keeps: a newline, blanks and parentheses, a line that reads
 * like a zombie's to a parser stopping at the first ')'), says so on the
 * pipe and sleeps in pause(); the parent sends it SIGUSR1 with tgkill, so
 * the signal is pending in the thread's own set (field 31). */
#ifndef PAGELAB_PROCSTAT_CHILD_H
#define PAGELAB_PROCSTAT_CHILD_H

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define PROCSTAT_NAME "a) Z 1 (b\n) 9 X"

/* The child's pid, named, SIGUSR1 pending; -1 when it could not be made. */
static inline pid_t procstat_named_child(void)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 || prctl(PR_SET_NAME, PROCSTAT_NAME) < 0 ||
		    write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (pid > 0 && (read(ready[0], &c, 1) != 1 || syscall(SYS_tgkill, pid, pid, SIGUSR1) < 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

#endif
