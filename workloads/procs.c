/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procs.c — the region's other processes (procs.h). */
#include "procs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "anon.h"

#define MAX_PROCS 64

/* fork() without glibc's at-fork work (procs.h): the child gets a copy of
 * the address space and this very stack.  All five arguments zero, so their
 * order (x86-64 vs arm64's CLONE_BACKWARDS) does not matter. */
static pid_t bare_fork(void)
{
	return (pid_t)syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
}

static _Noreturn void child_exit(int code)
{
	syscall(SYS_exit_group, code);
	for (;;)
		;
}

int sharer_prepare(struct sharer *s, struct lab_error *err)
{
	int p[2];

	memset(s, 0, sizeof(*s));
	s->rfd = s->wfd = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "fork: pipe");
	s->rfd = p[0];
	s->wfd = p[1];
	return 0;
}

int sharer_fork(struct sharer *s, const int *close_fds, size_t nclose, struct lab_error *err)
{
	pid_t pid;

	if (s->rfd < 0)
		return lab_error_set(err, EINVAL, "fork: not prepared");
	if (s->pid > 0)
		return lab_error_set(err, EBUSY, "fork: a child shares the region already (join it first)");
	pid = bare_fork();
	if (pid < 0)
		return lab_error_errno(err, errno, "fork: clone");
	if (pid == 0) {
		char b;

		/* Only the parent writes events; the pipe's end comes when the
		 * parent joins or dies (its write end is the only one left). */
		close(s->wfd);
		for (size_t i = 0; i < nclose; i++)
			if (close_fds[i] >= 0)
				close(close_fds[i]);
		while (read(s->rfd, &b, 1) < 0 && errno == EINTR)
			;
		child_exit(0);
	}
	s->pid = pid;
	return 0;
}

int sharer_join(struct sharer *s, int *status, struct lab_error *err)
{
	int st = 0;

	if (s->pid <= 0)
		return lab_error_set(err, ECHILD, "join: no child shares the region (fork first)");
	if (s->wfd >= 0) {
		close(s->wfd);
		s->wfd = -1;
	}
	while (waitpid(s->pid, &st, 0) < 0)
		if (errno != EINTR)
			return lab_error_errno(err, errno, "join: wait for %d", (int)s->pid);
	s->pid = 0;
	*status = st;
	return 0;
}

/* One allocator: its share mapped and touched, "t" on its own pipe; when
 * rel closes (every share is touched: the pressure at its height, as the
 * single-process step holds all of it at once), unmapped, "u"; then it waits
 * on go until the step has been acked. */
static _Noreturn void pressure_child(size_t n, size_t page_size, int start, int mine, int rel, int go)
{
	void *p = NULL;
	struct lab_error e;
	char b = 't';

	/* Not before the parent has said who the children are (start closes). */
	while (read(start, &b, 1) < 0 && errno == EINTR)
		;
	close(start);
	b = 't';

	if (n > 0 && anon_map_charged(n, page_size, 1, false, NULL, &p, &e) < 0)
		child_exit(1);
	if (write(mine, &b, 1) != 1)
		child_exit(1);
	while (read(rel, &b, 1) < 0 && errno == EINTR)
		;
	if (p != NULL)
		munmap(p, n);
	b = 'u';
	if (write(mine, &b, 1) != 1)
		child_exit(1);
	close(mine);
	while (read(go, &b, 1) < 0 && errno == EINTR)
		;
	child_exit(0);
}

/* One byte from each child's pipe, or its end (the child died): how many sent one. */
static unsigned read_each(const int *fds, unsigned n)
{
	unsigned ok = 0;

	for (unsigned i = 0; i < n; i++) {
		char c;
		ssize_t r;

		while ((r = read(fds[i], &c, 1)) < 0 && errno == EINTR)
			;
		ok += r == 1;
	}
	return ok;
}

void pressure_procs_release(struct procs_batch *b)
{
	if (b->go >= 0)
		close(b->go);
	b->go = -1;
	for (unsigned i = 0; i < b->n; i++)
		while (waitpid(b->pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	b->n = 0;
}

int pressure_procs(size_t bytes, size_t page_size, unsigned nprocs, void *region, size_t region_size,
		   struct procs_batch *b, unsigned *killed, procs_spawned_fn spawned, void *arg,
		   struct lab_error *err)
{
	size_t pages = bytes / page_size, share = pages / (nprocs ? nprocs : 1);
	int own[MAX_PROCS], rel[2], go[2], start[2], ret = 0;
	unsigned touched, unmapped;

	*killed = 0;
	b->n = 0;
	b->go = -1;
	if (nprocs == 0 || nprocs > MAX_PROCS)
		return lab_error_set(err, EINVAL, "pressure_procs must be 1 to %d", MAX_PROCS);
	if (pipe2(rel, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "pressure: pipe");
	if (pipe2(go, O_CLOEXEC) < 0) {
		close(rel[0]);
		close(rel[1]);
		return lab_error_errno(err, errno, "pressure: pipe");
	}
	if (pipe2(start, O_CLOEXEC) < 0) {
		close(rel[0]);
		close(rel[1]);
		close(go[0]);
		close(go[1]);
		return lab_error_errno(err, errno, "pressure: pipe");
	}
	b->go = go[1];
	if (madvise(region, region_size, MADV_DONTFORK) < 0)
		ret = lab_error_errno(err, errno, "madvise(MADV_DONTFORK)");
	for (unsigned i = 0; ret == 0 && i < nprocs; i++) {
		size_t n = (i + 1 == nprocs ? pages - share * (nprocs - 1) : share) * page_size;
		int p[2];
		pid_t pid;

		if (pipe2(p, O_CLOEXEC) < 0) {
			ret = lab_error_errno(err, errno, "pressure: pipe");
			break;
		}
		pid = bare_fork();
		if (pid == 0) {
			close(p[0]);
			close(rel[1]);
			close(go[1]);
			close(start[1]);
			for (unsigned j = 0; j < b->n; j++)
				close(own[j]);
			pressure_child(n, page_size, start[0], p[1], rel[0], go[0]);
		}
		close(p[1]);
		if (pid < 0) {
			close(p[0]);
			ret = lab_error_errno(err, errno, "pressure: clone");
			break;
		}
		own[b->n] = p[0];
		b->pids[b->n++] = pid;
	}
	close(rel[0]);
	close(go[0]);
	close(start[0]);
	if (spawned != NULL && b->n > 0)
		spawned(b->pids, b->n, arg);
	close(start[1]);
	/* All touched (or dead), then all let go together. */
	touched = read_each(own, b->n);
	close(rel[1]);
	unmapped = read_each(own, b->n);
	for (unsigned i = 0; i < b->n; i++)
		close(own[i]);
	*killed = b->n - (unmapped < touched ? unmapped : touched);
	if (madvise(region, region_size, MADV_DOFORK) < 0 && ret == 0)
		ret = lab_error_errno(err, errno, "madvise(MADV_DOFORK)");
	if (ret == 0 && *killed > 0)
		ret = lab_error_set(err, EINTR, "%u of %u pressure processes were killed or failed (an OOM kill: "
				    "the sandbox's oom_kill counts them)", *killed, nprocs);
	if (ret < 0)
		pressure_procs_release(b);
	return ret;
}
