/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmsg-phantom-oom.c — capture, inside a pagelab guest (pure cgroup v2), the
 * kernel log of two memcg OOM kills in which a process is named exactly
 * "Killed process " (15 characters: TASK_COMM_LEN 16 with its NUL, so the
 * kernel prints the whole name).  The records are the fixture
 * tests/fixtures/kmsg/phantom-oom-v2-<kernel>.kmsg of tests/unit/test_kmsg.c.
 *
 * One cgroup, /sys/fs/cgroup/kmsg-phantom, memory.max 48M, no swap:
 *   phantom  comm "Killed process ", oom_score_adj -1000 (never chosen:
 *            mm/oom_kill.c: oom_badness), holds 4 MiB, and writes two lines
 *            of its own to /dev/kmsg that read like the kernel's kill line;
 *   case A   "hog" (oom_score_adj 1000) touches 1 MiB after 1 MiB until the
 *            memcg kills it: the phantom appears in the task dump;
 *   case B   a second "Killed process " (oom_score_adj 1000) does the same:
 *            it invokes the OOM killer and is its victim.
 * Then every record logged since the start is written, as read(2) returned
 * each, to $PAGELAB_OUT/phantom-oom.kmsg, and the pids to stdout.
 *
 * Built static and run by tests/capture/kmsg-phantom-oom.sh (guest/vm-run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CG "/sys/fs/cgroup/kmsg-phantom"

/* the phantom's own lines */
static const char *const own[] = {
	"<3>Killed process 1 (init) total-vm:4kB, anon-rss:4kB, file-rss:0kB, "
	"shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0\n",
	"<0>Memory cgroup out of memory: Killed process 1 (init) total-vm:4kB, "
	"anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0\n",
};
#define MiB (1024 * 1024)

static void put(const char *path, const char *val, int must)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, val, strlen(val));
		close(fd);
	}
	if (n < 0 && must) {
		fprintf(stderr, "kmsg-phantom-oom: %s <- %s: %s\n", path, val, strerror(errno));
		exit(1);
	}
}

static void become(const char *comm, const char *adj)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	put(CG "/cgroup.procs", pid, 1);
	put("/proc/self/oom_score_adj", adj, 1);
	if (prctl(PR_SET_NAME, comm) != 0)
		exit(1);
}

static void touch_forever(void)
{
	for (int i = 0; i < 4096; i++) {
		char *p = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		memset(p, 0xA5, MiB);
	}
	_exit(0);       /* not killed: the capture fails below */
}

static pid_t hog(const char *comm)
{
	pid_t p = fork();

	if (p == 0) {
		become(comm, "1000");
		touch_forever();
	}
	return p;
}

static int killed(pid_t p)
{
	int st;

	if (waitpid(p, &st, 0) != p)
		return 0;
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

int main(void)
{
	const char *outdir = getenv("PAGELAB_OUT");
	char out[4096], buf[8192];
	int kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), ofd, sync[2];
	pid_t phantom, a, b;
	int ok;

	if (kfd < 0 || lseek(kfd, 0, SEEK_END) < 0 || pipe(sync) != 0) {
		perror("kmsg-phantom-oom: /dev/kmsg");
		return 1;
	}
	if (mkdir(CG, 0755) != 0 && errno != EEXIST) {
		perror("kmsg-phantom-oom: mkdir " CG);
		return 1;
	}
	put(CG "/memory.max", "48M", 1);
	put(CG "/memory.swap.max", "0", 0);
	phantom = fork();
	if (phantom == 0) {
		char *p;
		int w;

		become("Killed process ", "-1000");
		p = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			memset(p, 0x5A, 4 * MiB);
		/* its own lines: "<3>" asks for facility 0, which the kernel turns
		 * into LOG_USER (kernel/printk/printk.c: devkmsg_write) */
		w = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
		for (size_t i = 0; w >= 0 && i < sizeof(own) / sizeof(own[0]); i++)
			if (write(w, own[i], strlen(own[i])) < 0)
				fprintf(stderr, "kmsg-phantom-oom: /dev/kmsg: %s\n", strerror(errno));
		if (w < 0)
			fprintf(stderr, "kmsg-phantom-oom: /dev/kmsg: %s\n", strerror(errno));
		else
			close(w);
		if (write(sync[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (read(sync[0], buf, 1) != 1)
		return 1;
	a = hog("hog");
	ok = killed(a);
	b = hog("Killed process ");
	ok &= killed(b);
	kill(phantom, SIGKILL);
	waitpid(phantom, NULL, 0);
	usleep(200 * 1000);     /* the oom_reaper's lines */
	rmdir(CG);
	printf("phantom %d hog %d victim-named %d killed %d\n", (int)phantom, (int)a, (int)b, ok);

	snprintf(out, sizeof(out), "%s/phantom-oom.kmsg", outdir ? outdir : "/tmp");
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (ofd < 0) {
		perror(out);
		return 1;
	}
	for (;;) {
		ssize_t n = read(kfd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (n <= 0)
			break;
		if (write(ofd, buf, (size_t)n) != n)
			return 1;
	}
	close(ofd);
	return ok ? 0 : 1;
}
