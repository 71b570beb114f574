/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memset-ref — the plain reference for region's fill step (scripts/bench):
 * mmap SIZE private anonymous, memset every byte (timed like region's
 * work_ns: the memset alone), memset it again (pages present: bandwidth
 * only), unmap; then map SIZE again and write one byte per page (the
 * first-touch fault rate).  Prints key=value on one line.
 *
 *   memset-ref BYTES on|off       (on: MADV_HUGEPAGE, off: MADV_NOHUGEPAGE)
 *
 * Built with the tree (tests/bench/CMakeLists.txt, -O2 whatever the build
 * type, so its figures stay comparable between builds). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static unsigned char *map(size_t size, int thp)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("memset-ref: mmap");
		exit(1);
	}
	if (madvise(p, size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0) {
		perror("memset-ref: madvise");
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	size_t size, ps = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long t0, fill_ns, rewrite_ns, touch_ns;
	unsigned long long bytes;
	unsigned char *p;
	char *end;
	int thp;

	if (argc != 3 || (strcmp(argv[2], "on") != 0 && strcmp(argv[2], "off") != 0)) {
		fprintf(stderr, "usage: memset-ref BYTES on|off\n");
		return 2;
	}
	errno = 0;
	bytes = strtoull(argv[1], &end, 10);
	if (errno != 0 || end == argv[1] || *end != '\0' || bytes == 0 || bytes % ps != 0 || bytes > SIZE_MAX / 2) {
		fprintf(stderr, "memset-ref: BYTES: expected a positive multiple of the page size (%zu), got '%s'\n",
			ps, argv[1]);
		return 2;
	}
	size = (size_t)bytes;
	thp = strcmp(argv[2], "on") == 0;

	p = map(size, thp);
	t0 = now_ns();
	memset(p, 0xA5, size);
	fill_ns = now_ns() - t0;
	__asm__ volatile("" : : "r"(p) : "memory");
	t0 = now_ns();
	memset(p, 0x5A, size);
	rewrite_ns = now_ns() - t0;
	__asm__ volatile("" : : "r"(p) : "memory");
	munmap(p, size);

	p = map(size, thp);
	t0 = now_ns();
	for (size_t off = 0; off < size; off += ps)
		((volatile unsigned char *)p)[off] = 1;
	touch_ns = now_ns() - t0;
	munmap(p, size);

	printf("fill_ns=%llu rewrite_ns=%llu touch_ns=%llu pages=%zu\n", fill_ns, rewrite_ns, touch_ns,
	       size / ps);
	return 0;
}
