/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mm-hold.c — an observer that reads /proc/PID/FILE of every process of a
 * cgroup, over and over, for SECS seconds: what a page walk does to the
 * processes it reads (tests/bench/walk-hold.sh, docs/findings/observer.md).
 *
 *   mm-hold CGROUP.PROCS SECS [FILE [check]]
 *
 * FILE defaults to smaps_rollup.  With "check", a process that is exiting
 * or has SIGKILL pending (/proc/PID/stat: state Z or X, PF_EXITING, the
 * pending signals; base/procstat.h) is not read, as pagelab's walks do.  Prints the reads
 * and the skips on stderr. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/procstat.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int dying(int pid)
{
	struct lab_procstat ps;
	struct lab_error e;
	char path[64], b[2048];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		return 1;
	n = read(fd, b, sizeof(b));
	close(fd);
	if (n <= 0)
		return 1;
	if (lab_procstat_parse(b, (size_t)n, &ps, &e) < 0)
		return 0;
	return lab_procstat_dying(&ps);
}

int main(int argc, char **argv)
{
	static char buf[65536];
	const char *file = argc > 3 ? argv[3] : "smaps_rollup";
	int check = argc > 4 && strcmp(argv[4], "check") == 0;
	long reads = 0, skips = 0;
	double end;

	if (argc < 3) {
		fprintf(stderr, "usage: mm-hold CGROUP.PROCS SECS [FILE [check]]\n");
		return 2;
	}
	end = now() + atof(argv[2]);
	while (now() < end) {
		FILE *f = fopen(argv[1], "r");
		int pid;

		if (f == NULL)
			return 1;
		while (fscanf(f, "%d", &pid) == 1) {
			char path[64];
			int fd;

			if (check && dying(pid)) {
				skips++;
				continue;
			}
			snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
			if ((fd = open(path, O_RDONLY)) < 0)
				continue;
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			reads++;
		}
		fclose(f);
	}
	fprintf(stderr, "reads %ld skips %ld\n", reads, skips);
	return 0;
}
