/*
 * lazyfree-probe — a throwaway capture tool for tests/fixtures/v2-* (not a workload).
 *
 * It exists so the cgroup v2 fixtures could be captured before workloads/region.c was
 * written; scripts/capture-v2-fixtures builds it static and runs it inside the QEMU guest
 * (scripts/capture/capture-guest.sh). Keep it tiny; real experiments use workloads/.
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
 *   lazyfree-probe hog MIB
 *     Touches MIB MiB of anonymous memory page by page, then sleeps: run it in a group
 *     whose memory.max is lower, and the OOM killer ends it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
	if (argc == 3 && strcmp(argv[1], "hog") == 0)
		return hog(argv[2]);
	fprintf(stderr, "usage: lazyfree-probe probe OUTDIR | thp OUTDIR | hog MIB\n");
	return 2;
}
