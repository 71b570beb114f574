/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lazyfree-probe — a throwaway capture tool for tests/fixtures/v2-* (not a workload).
 *
 * It exists so the cgroup v2 fixtures could be captured before workloads/region.c was
 * written; tests/tools/capture-v2-fixtures builds it static and runs it inside the QEMU guest
 * (tests/tools/capture/capture-guest.sh). Keep it tiny; real experiments use workloads/.
 *
 *   lazyfree-probe probe OUTDIR
 *     Maps 64 MiB of private anonymous memory between two PROT_NONE guard pages (so the
 *     region is its own VMA whatever lies around it), marks it MADV_NOHUGEPAGE (4 KiB
 *     pages: LazyFree and pglazyfree count 16,384 pages exactly, whatever THP mode the
 *     kernel boots in), fills it with 0xA5, MADV_FREEs it, waits until the memcg's
 *     memory.stat shows pglazyfree > 0 (memcg statistics are flushed lazily:
 *     mm/memcontrol.c), then reads — all into memory first, so the snapshots are not
 *     disturbed by writing them — /proc/self/{smaps,smaps_rollup,status},
 *     /proc/{vmstat,meminfo,zoneinfo} and its cgroup's memory.{stat,events,current,max,
 *     swap.max}, and writes them to OUTDIR under the fixture names, plus
 *     self-smaps.range: "START END\n", the region's bounds as the smaps header prints
 *     them (lowercase hex, no 0x).
 *
 *   lazyfree-probe thp OUTDIR
 *     The same with an 8 MiB region aligned to 2 MiB and MADV_HUGEPAGE (THP-backed when
 *     the kernel's THP mode is always or madvise), MADV_FREE'd; writes self-smaps-thp and
 *     self-smaps-thp.range, the pair tests/fixtures/v1-6.18 has too.
 *
 *   lazyfree-probe pagemap OUTDIR
 *     Maps 4 MiB (1,024 pages of 4 KiB) between guard pages, MADV_NOHUGEPAGE, fills it,
 *     then MADV_DONTNEEDs pages 256..511 and every odd page of 768..1023, and copies its
 *     own /proc/self/pagemap entries for the region (8 bytes per page, as the kernel gave
 *     them) to self-pagemap: 640 present pages in 129 runs ([0,256), [512,769), then single
 *     pages 770, 772, …, 1022). Also copies /proc/pressure/memory and /proc/buddyinfo
 *     (proc-pressure-memory, proc-buddyinfo) and, on cgroup v2, its group's memory.pressure
 *     and memory.peak (memcg-memory.pressure, memcg-memory.peak, when present).
 *
 *   lazyfree-probe procstat OUTDIR
 *     Copies three /proc/PID/stat lines (base/procstat.h): proc-stat-named, of the child
 *     of procstat-child.h (named PROCSTAT_NAME, a name with a newline, blanks and
 *     parentheses that reads like a zombie's line to a parser that stops at the first
 *     ')'; SIGUSR1 blocked and pending; asleep in pause()); proc-stat-zombie, of a
 *     child that exited and is not yet
 *     reaped; proc-stat-kthread, /proc/2/stat (kthreadd). procstat.expect says what the
 *     probe knew: "named PID PPID\nzombie PID PPID\n".
 *
 *   lazyfree-probe hog MIB
 *     Touches MIB MiB of anonymous memory page by page, then sleeps: run it in a group
 *     whose memory.max is lower, and the OOM killer ends it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procstat-child.h"

#define REGION_BYTES (64UL << 20)

struct capture {
	const char *name; /* file name in OUTDIR */
	char path[512];   /* source */
	char *buf;
	size_t len;
};

static void die(const char *what)
{
	fprintf(stderr, "lazyfree-probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Read a whole file: loop to EOF, retry EINTR, grow the buffer. */
static char *read_whole(const char *path, size_t *len_out)
{
	size_t cap = 65536, len = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (buf == NULL || fd < 0)
		die(path);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			char *grown = realloc(buf, cap * 2 + 1);

			if (grown == NULL)
				die("realloc");
			buf = grown;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(path);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*len_out = len;
	return buf;
}

static void write_whole(const char *dir, const char *name, const char *buf, size_t len)
{
	char path[512];
	int fd;
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		die(name);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(path);
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			die(path);
		buf += w;
		len -= (size_t)w;
	}
	if (close(fd) < 0)
		die(path);
}

/* "0::/lab\n" -> "/sys/fs/cgroup/lab" (cgroup v2 only). */
static void own_cgroup_dir(char *out, size_t size)
{
	size_t len;
	char *text = read_whole("/proc/self/cgroup", &len);
	char *line = strstr(text, "0::");
	char *nl;
	int n;

	if (line != text && (line == NULL || line[-1] != '\n')) {
		fprintf(stderr, "lazyfree-probe: no cgroup v2 line in /proc/self/cgroup\n");
		exit(1);
	}
	line += 3;
	nl = strchr(line, '\n');
	if (nl != NULL)
		*nl = '\0';
	n = snprintf(out, size, "/sys/fs/cgroup%s", strcmp(line, "/") == 0 ? "" : line);
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "lazyfree-probe: cgroup path too long\n");
		exit(1);
	}
	free(text);
}

/* The value of "pglazyfree N" at a line start of memory.stat, or 0. */
static unsigned long long memcg_pglazyfree(const char *stat_path)
{
	size_t len;
	char *text = read_whole(stat_path, &len);
	unsigned long long v = 0;

	for (char *line = text; line != NULL && *line != '\0';) {
		char *nl = strchr(line, '\n');

		if (strncmp(line, "pglazyfree ", 11) == 0) {
			char *end;

			v = strtoull(line + 11, &end, 10);
			break;
		}
		line = nl != NULL ? nl + 1 : NULL;
	}
	free(text);
	return v;
}

static int probe(const char *outdir)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t total = REGION_BYTES + 2 * (size_t)page;
	char cg[256], stat_path[300], range[64];
	unsigned char *reserve, *region;
	unsigned long long lazy = 0;
	struct capture caps[] = {
		{ .name = "memcg-memory.stat" },
		{ .name = "memcg-memory.events" },
		{ .name = "memcg-memory.current" },
		{ .name = "memcg-memory.max" },
		{ .name = "memcg-memory.swap.max" },
		{ .name = "self-smaps-rollup", .path = "/proc/self/smaps_rollup" },
		{ .name = "self-smaps", .path = "/proc/self/smaps" },
		{ .name = "self-status", .path = "/proc/self/status" },
		{ .name = "proc-vmstat", .path = "/proc/vmstat" },
		{ .name = "proc-meminfo", .path = "/proc/meminfo" },
		{ .name = "proc-zoneinfo", .path = "/proc/zoneinfo" },
	};
	int n;

	own_cgroup_dir(cg, sizeof(cg));
	for (size_t i = 0; i < 5; i++) {
		n = snprintf(caps[i].path, sizeof(caps[i].path), "%s/%s", cg, caps[i].name + 6);
		if (n < 0 || (size_t)n >= sizeof(caps[i].path))
			die("path");
	}
	n = snprintf(stat_path, sizeof(stat_path), "%s/memory.stat", cg);
	if (n < 0 || (size_t)n >= sizeof(stat_path))
		die("path");

	reserve = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserve == MAP_FAILED)
		die("mmap reserve");
	region = mmap(reserve + page, REGION_BYTES, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (region == MAP_FAILED)
		die("mmap region");
	if (madvise(region, REGION_BYTES, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
	memset(region, 0xA5, REGION_BYTES);
	if (madvise(region, REGION_BYTES, MADV_FREE) < 0)
		die("madvise(MADV_FREE)");

	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };

		lazy = memcg_pglazyfree(stat_path);
		if (lazy > 0)
			break;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "lazyfree-probe: region %p-%p, memcg %s, pglazyfree %llu\n",
		(void *)region, (void *)(region + REGION_BYTES), cg, lazy);

	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		caps[i].buf = read_whole(caps[i].path, &caps[i].len);
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		write_whole(outdir, caps[i].name, caps[i].buf, caps[i].len);
	n = snprintf(range, sizeof(range), "%lx %lx\n", (unsigned long)region,
		     (unsigned long)(region + REGION_BYTES));
	if (n < 0 || (size_t)n >= sizeof(range))
		die("range");
	write_whole(outdir, "self-smaps.range", range, (size_t)n);
	return lazy > 0 ? 0 : 3;
}

static int thp(const char *outdir)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), huge = 2UL << 20, len = 8UL << 20;
	size_t total = len + 2 * huge + 2 * page;
	unsigned char *reserve, *region;
	char range[64];
	size_t smaps_len;
	char *smaps;
	int n;

	reserve = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserve == MAP_FAILED)
		die("mmap reserve");
	/* 2 MiB aligned, at least one PROT_NONE page before and after. */
	region = (unsigned char *)(((unsigned long)reserve + page + huge - 1) & ~(huge - 1));
	if (mmap(region, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		die("mmap region");
	if (madvise(region, len, MADV_HUGEPAGE) < 0)
		die("madvise(MADV_HUGEPAGE)");
	memset(region, 0xA5, len);
	if (madvise(region, len, MADV_FREE) < 0)
		die("madvise(MADV_FREE)");
	smaps = read_whole("/proc/self/smaps", &smaps_len);
	write_whole(outdir, "self-smaps-thp", smaps, smaps_len);
	n = snprintf(range, sizeof(range), "%lx %lx\n", (unsigned long)region,
		     (unsigned long)(region + len));
	if (n < 0 || (size_t)n >= sizeof(range))
		die("range");
	write_whole(outdir, "self-smaps-thp.range", range, (size_t)n);
	free(smaps);
	return 0;
}

static int pagemap(const char *outdir, int v2)
{
	const size_t page = 4096, pages = 1024, len = pages * page;
	unsigned char *reserve, *region;
	char path[64], cg[256], cgfile[320];
	unsigned long long *entries = malloc(pages * 8);
	size_t plen;
	int fd, n;

	if (sysconf(_SC_PAGESIZE) != (long)page) {
		fprintf(stderr, "lazyfree-probe: pagemap: needs 4 KiB pages\n");
		return 2;
	}
	reserve = mmap(NULL, len + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserve == MAP_FAILED || entries == NULL)
		die("mmap reserve");
	region = mmap(reserve + page, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (region == MAP_FAILED)
		die("mmap region");
	if (madvise(region, len, MADV_NOHUGEPAGE) < 0)
		die("madvise(MADV_NOHUGEPAGE)");
	memset(region, 0xA5, len);
	if (madvise(region + 256 * page, 256 * page, MADV_DONTNEED) < 0)
		die("madvise(MADV_DONTNEED)");
	for (size_t i = 769; i < pages; i += 2)
		if (madvise(region + i * page, page, MADV_DONTNEED) < 0)
			die("madvise(MADV_DONTNEED)");
	snprintf(path, sizeof(path), "/proc/self/pagemap");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, entries, pages * 8, (off_t)((unsigned long)region / page * 8)) != (ssize_t)(pages * 8))
		die(path);
	close(fd);
	write_whole(outdir, "self-pagemap", (const char *)entries, pages * 8);
	n = snprintf(path, sizeof(path), "%lx %lx\n", (unsigned long)region, (unsigned long)(region + len));
	write_whole(outdir, "self-pagemap.range", path, (size_t)n);
	{
		char *b = read_whole("/proc/pressure/memory", &plen);

		write_whole(outdir, "proc-pressure-memory", b, plen);
		free(b);
		b = read_whole("/proc/buddyinfo", &plen);
		write_whole(outdir, "proc-buddyinfo", b, plen);
		free(b);
	}
	if (v2) {
		static const char *const f[] = { "memory.pressure", "memory.peak" };

		own_cgroup_dir(cg, sizeof(cg));
		for (size_t i = 0; i < 2; i++) {
			char name[64];
			char *b;

			snprintf(cgfile, sizeof(cgfile), "%s/%s", cg, f[i]);
			if (access(cgfile, R_OK) != 0)
				continue;
			b = read_whole(cgfile, &plen);
			snprintf(name, sizeof(name), "memcg-%s", f[i]);
			write_whole(outdir, name, b, plen);
			free(b);
		}
	}
	free(entries);
	return 0;
}

static int procstat(const char *outdir)
{
	char path[64], line[128];
	pid_t named, zombie;
	int n;
	siginfo_t si;
	size_t len;
	char *b;

	named = procstat_named_child();
	if (named < 0)
		die("the named child");
	usleep(100000);         /* in pause(): state S */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)named);
	b = read_whole(path, &len);
	write_whole(outdir, "proc-stat-named", b, len);
	free(b);
	kill(named, SIGKILL);
	waitpid(named, NULL, 0);
	zombie = fork();
	if (zombie < 0)
		die("fork");
	if (zombie == 0)
		_exit(0);
	if (waitid(P_PID, (id_t)zombie, &si, WEXITED | WNOWAIT) < 0)
		die("waitid");
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)zombie);
	b = read_whole(path, &len);
	write_whole(outdir, "proc-stat-zombie", b, len);
	free(b);
	waitpid(zombie, NULL, 0);
	b = read_whole("/proc/2/stat", &len);
	write_whole(outdir, "proc-stat-kthread", b, len);
	free(b);
	n = snprintf(line, sizeof(line), "named %d %d\nzombie %d %d\n", (int)named, (int)getpid(), (int)zombie,
		     (int)getpid());
	write_whole(outdir, "procstat.expect", line, (size_t)n);
	return 0;
}

static int hog(const char *mib_text)
{
	char *end;
	unsigned long mib = strtoul(mib_text, &end, 10);
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *p;

	if (end == mib_text || *end != '\0' || mib == 0) {
		fprintf(stderr, "lazyfree-probe: hog MIB: a positive number of MiB\n");
		return 2;
	}
	p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	for (size_t off = 0; off < (mib << 20); off += (size_t)page)
		p[off] = 1;
	fprintf(stderr, "lazyfree-probe: touched %lu MiB and was not killed\n", mib);
	sleep(5);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "probe") == 0)
		return probe(argv[2]);
	if (argc == 3 && strcmp(argv[1], "thp") == 0)
		return thp(argv[2]);
	if (argc == 3 && strcmp(argv[1], "pagemap") == 0)
		return pagemap(argv[2], access("/sys/fs/cgroup/cgroup.controllers", R_OK) == 0);
	if (argc == 3 && strcmp(argv[1], "procstat") == 0)
		return procstat(argv[2]);
	if (argc == 3 && strcmp(argv[1], "hog") == 0)
		return hog(argv[2]);
	fprintf(stderr, "usage: lazyfree-probe probe OUTDIR | thp OUTDIR | pagemap OUTDIR | procstat OUTDIR | hog MIB\n");
	return 2;
}
