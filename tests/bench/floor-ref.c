/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floor-ref — the floor of a tick (scripts/bench (c)): read each file named
 * on the command line whole (open, read to EOF into a reused buffer, close;
 * no parsing) once per INTERVAL_MS on a fixed-rate schedule, N times; print
 * the median CPU (CLOCK_THREAD_CPUTIME_ID) and wall time of one round, µs.
 * floor-ref -k …: the files are opened once and read with pread from 0 each
 * round (a reader that keeps its descriptors).  Third figure: the process's
 * whole CPU over the loop ÷ N (CLOCK_PROCESS_CPUTIME_ID: its sleeps and
 * wakeups too, as the harness's schedstat has its event loop's).
 *
 *   floor-ref [-k] INTERVAL_MS N FILE...      (at most 256 files)
 *
 * Built with the tree (tests/bench/CMakeLists.txt, -O2 whatever the build
 * type, so its figures stay comparable between builds). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A positive whole number, or 0 (atol without its silent garbage). */
static long positive(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno != 0 || end == s || *end != '\0' || v <= 0 ? 0 : v;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	static int fds[256];
	long iv, n;
	double *cpu, *wall;
	struct timespec next;
	int keep = argc > 1 && argv[1][0] == '-' && argv[1][1] == 'k';

	if (keep) {
		argv++;
		argc--;
	}
	if (argc < 4 || argc - 3 > 256)
		return 2;
	for (int i = 3; keep && i < argc; i++)
		if ((fds[i - 3] = open(argv[i], O_RDONLY | O_CLOEXEC)) < 0) {
			perror(argv[i]);
			return 1;
		}
	iv = positive(argv[1]);
	n = positive(argv[2]);
	cpu = calloc((size_t)n, sizeof(*cpu));
	wall = calloc((size_t)n, sizeof(*wall));
	if (iv <= 0 || n <= 0 || cpu == NULL || wall == NULL)
		return 2;
	double p0 = now(CLOCK_PROCESS_CPUTIME_ID);

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long k = 0; k < n; k++) {
		double c0, w0;

		next.tv_nsec += iv * 1000000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		c0 = now(CLOCK_THREAD_CPUTIME_ID);
		w0 = now(CLOCK_MONOTONIC);
		for (int i = 3; keep && i < argc; i++) {
			off_t off = 0;
			ssize_t r;

			while ((r = pread(fds[i - 3], buf, sizeof(buf), off)) > 0 || (r < 0 && errno == EINTR))
				off += r > 0 ? r : 0;
		}
		for (int i = 3; !keep && i < argc; i++) {
			int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
			ssize_t r;

			if (fd < 0) {
				perror(argv[i]);
				return 1;
			}
			while ((r = read(fd, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
				;
			close(fd);
		}
		cpu[k] = now(CLOCK_THREAD_CPUTIME_ID) - c0;
		wall[k] = now(CLOCK_MONOTONIC) - w0;
	}
	p0 = (now(CLOCK_PROCESS_CPUTIME_ID) - p0) / (double)n;
	qsort(cpu, (size_t)n, sizeof(*cpu), cmp);
	qsort(wall, (size_t)n, sizeof(*wall), cmp);
	printf("%.1f %.1f %.1f\n", cpu[n / 2], wall[n / 2], p0);
	return 0;
}
