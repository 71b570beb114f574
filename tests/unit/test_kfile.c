/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_kfile.c — files re-read from a kept descriptor (base/kfile.h) and the
 * histogram the audit keeps its quantiles in (base/hist.h), on real files of
 * this process:
 *
 *   - a kept /proc/self/io re-read with pread from 0 is a fresh snapshot:
 *     its rchar counts the bytes this process read, so it grows between two
 *     reads (fs/proc/base.c: do_io_accounting), while the descriptor stays
 *     the same one;
 *   - /proc/self/maps of more than a page (a few hundred mappings this test
 *     makes) comes back in more than one call — a read returns at most one
 *     seq buffer (fs/seq_file.c: seq_read_iter), each call a new walk — and
 *     is counted as a split snapshot, never taken for one;
 *   - a regular file that grew past the buffer sized from its first read is
 *     read again whole from 0 (regrows), not spliced;
 *   - /proc/vmstat and /proc/zoneinfo with LAB_KFILE_LAST_RECORD: a read
 *     whose one call brought the last record (vmstat's last key, the last
 *     "Node N, zone NAME") makes no EOF call; a file whose last record
 *     changed (a regular file here: a line appended) makes it once, and
 *     learns the new head;
 *   - a pipe cannot be read with pread (ESPIPE): the file falls back to
 *     open/read/close and says why; PAGELAB_SOURCE_READ=reopen asks for it;
 *   - the histogram: n, min, max and sum exact, every quantile within 1/32 of
 *     the exact one of the same values.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/hist.h"
#include "base/kfile.h"
#include "unit.h"

static unsigned long long rchar(const char *buf)
{
	const char *p = strstr(buf, "rchar: ");

	return p != NULL ? strtoull(p + 7, NULL, 10) : 0;
}

static void test_fresh(void)
{
	struct lab_kfile f;
	struct lab_error err = { 0 };
	unsigned long long r0, r1;
	int fd;

	CHECK_EQ_U64(lab_kfile_open(&f, "/proc/self/io", 0, &err), 0);
	CHECK(!f.reopen);
	CHECK(f.fd >= 0);
	fd = f.fd;
	r0 = rchar(f.buf.data);
	CHECK(r0 > 0);
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	r1 = rchar(f.buf.data);
	CHECK(r1 > r0);
	CHECK_EQ_U64(f.fd, fd);                 /* the same descriptor, not reopened */
	CHECK_EQ_U64(f.reads, 1);
	CHECK_EQ_U64(f.splits, 0);
	CHECK(f.nr >= 2);
	CHECK(f.buf.cap >= 2 * f.buf.len);      /* sized from the first read */
	lab_kfile_close(&f);
	CHECK_EQ_U64(lab_kfile_open(&f, "/nonexistent/kfile", 0, &err), -ENOENT);
	CHECK_CONTAINS(err.msg, "/nonexistent/kfile");
}

/* /proc/meminfo is one record (fs/proc/meminfo.c: proc_create_single): a
 * kept read of it is one call, no EOF call after it, and whole. */
static void test_one_record(void)
{
	struct lab_kfile f;
	struct lab_error err = { 0 };

	CHECK_EQ_U64(lab_kfile_open(&f, "/proc/meminfo", LAB_KFILE_ONE_RECORD, &err), 0);
	CHECK(f.one_record);
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK_EQ_U64(f.reads, 1);
	CHECK(strstr(f.buf.data, "MemTotal:") == f.buf.data);
	CHECK(f.buf.len > 0 && f.buf.data[f.buf.len - 1] == '\n');
	CHECK(strstr(f.buf.data, "\nDirectMap") != NULL || strstr(f.buf.data, "\nHugetlb:") != NULL);
	lab_kfile_close(&f);
}

/* The head a LAST_RECORD file learnt: vmstat's last key with its blank,
 * zoneinfo's last zone header.  One call a read, unless the kernel split it
 * (vmstat past a page: then the call that brings the last record ends it). */
static void test_last_record(void)
{
	static const char *const files[] = { "/proc/vmstat", "/proc/zoneinfo" };
	char path[] = "/tmp/test_kfile.XXXXXX";
	struct lab_kfile f;
	struct lab_error err = { 0 };
	int fd;

	for (size_t i = 0; i < 2; i++) {
		CHECK_EQ_U64(lab_kfile_open(&f, files[i], LAB_KFILE_LAST_RECORD, &err), 0);
		CHECK(f.last_len > 0);
		if (i == 0)
			CHECK(f.last[f.last_len - 1] == ' ' && memchr(f.last, '\n', f.last_len) == NULL);
		else
			CHECK(strncmp(f.last, "Node ", 5) == 0 && memmem(f.last, f.last_len, ", zone", 6) != NULL);
		for (int k = 0; k < 3; k++) {
			CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
			CHECK_EQ_U64(f.calls, f.reads);         /* no call that only found EOF */
			CHECK(f.buf.len > 0 && f.buf.data[f.buf.len - 1] == '\n');
		}
		lab_kfile_close(&f);
		/* Without the flag: the EOF call. */
		CHECK_EQ_U64(lab_kfile_open(&f, files[i], 0, &err), 0);
		CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
		CHECK_EQ_U64(f.calls, f.reads + 1);
		lab_kfile_close(&f);
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_U64(write(fd, "a 1\nb 2\n", 8), 8);
	CHECK_EQ_U64(lab_kfile_open(&f, path, LAB_KFILE_LAST_RECORD, &err), 0);
	CHECK_EQ_U64(f.last_len, 2);
	CHECK(memcmp(f.last, "b ", 2) == 0);
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK_EQ_U64(f.calls, 1);
	CHECK_EQ_U64(write(fd, "c 3\n", 4), 4);         /* another last record */
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK_EQ_U64(f.calls, 2);
	CHECK_STR(f.buf.data, "a 1\nb 2\nc 3\n");
	CHECK(f.last_len == 2 && memcmp(f.last, "c ", 2) == 0);
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK_EQ_U64(f.calls, 1);
	lab_kfile_close(&f);
	close(fd);
	unlink(path);
}

static void test_split(void)
{
	enum { N = 400 };
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)page * 2 * N, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct lab_kfile f;
	struct lab_error err = { 0 };

	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	/* Every other page writable: N separate mappings in /proc/self/maps. */
	for (int i = 0; i < N; i++)
		mprotect(m + (size_t)page * 2 * (size_t)i, (size_t)page, PROT_READ | PROT_WRITE);
	CHECK_EQ_U64(lab_kfile_open(&f, "/proc/self/maps", 0, &err), 0);
	CHECK(f.buf.len > (size_t)page * 4);
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK(f.reads >= 2);
	CHECK(f.splits >= 1);
	CHECK(f.max_reads >= 2);
	CHECK(strstr(f.buf.data, "[stack]") != NULL);   /* read to its end */
	lab_kfile_close(&f);
	munmap(m, (size_t)page * 2 * N);
}

static void test_grow(void)
{
	char path[] = "/tmp/test_kfile.XXXXXX";
	int fd = mkstemp(path);
	struct lab_kfile f;
	struct lab_error err = { 0 };
	static char big[20000];

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_U64(write(fd, "small\n", 6), 6);
	CHECK_EQ_U64(lab_kfile_open(&f, path, 0, &err), 0);
	CHECK_STR(f.buf.data, "small\n");
	memset(big, 'x', sizeof(big));
	CHECK_EQ_U64(write(fd, big, sizeof(big)), sizeof(big));
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK_EQ_U64(f.buf.len, 6 + sizeof(big));
	CHECK(f.regrows >= 1);
	CHECK(strncmp(f.buf.data, "small\n", 6) == 0);
	lab_kfile_close(&f);
	close(fd);
	unlink(path);
}

static void test_fallback(void)
{
	int p[2];
	char path[64];
	struct lab_kfile f;
	struct lab_error err = { 0 };

	CHECK_EQ_U64(pipe(p), 0);
	CHECK_EQ_U64(write(p[1], "data\n", 5), 5);
	close(p[1]);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[0]);
	CHECK_EQ_U64(lab_kfile_open(&f, path, 0, &err), 0);
	CHECK(f.reopen);
	CHECK_EQ_U64(f.fd, -1);
	CHECK_CONTAINS(f.why, "pread from 0");
	CHECK_CONTAINS(f.buf.data, "data");
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);        /* open/read/close: the pipe is empty now */
	CHECK_EQ_U64(f.buf.len, 0);
	lab_kfile_close(&f);
	close(p[0]);

	setenv("PAGELAB_SOURCE_READ", "reopen", 1);
	CHECK(!lab_kfile_keeping());
	CHECK_EQ_U64(lab_kfile_open(&f, "/proc/self/io", 0, &err), 0);
	CHECK(f.reopen);
	CHECK_STR(f.why, "PAGELAB_SOURCE_READ=reopen");
	CHECK_EQ_U64(lab_kfile_read(&f, &err), 0);
	CHECK(rchar(f.buf.data) > 0);
	lab_kfile_close(&f);
	unsetenv("PAGELAB_SOURCE_READ");
	CHECK(lab_kfile_keeping());
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_hist(void)
{
	enum { N = 5000 };
	static struct lab_hist h;
	static uint64_t v[N];
	static const double qs[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 0.999 };
	uint64_t sum = 0, x = 12345;

	CHECK_EQ_U64(lab_hist_quantile(&h, 0.5), 0);
	for (int i = 0; i < N; i++) {
		/* A spread over five decades, from 3 ns to about 300 ms. */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = 3 + ((x >> 33) % 1000) * ((uint64_t)1 << ((x >> 20) % 19));
		sum += v[i];
		lab_hist_add(&h, v[i]);
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	CHECK_EQ_U64(h.n, N);
	CHECK_EQ_U64(h.min, v[0]);
	CHECK_EQ_U64(h.max, v[N - 1]);
	CHECK_EQ_U64(h.sum, sum);
	CHECK_EQ_U64(lab_hist_quantile(&h, 0), v[0]);
	CHECK_EQ_U64(lab_hist_quantile(&h, 1), v[N - 1]);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)(qs[k] * N + 0.999999);
		uint64_t exact = v[rank > 0 ? rank - 1 : 0], got = lab_hist_quantile(&h, qs[k]);
		uint64_t d = got > exact ? got - exact : exact - got;

		CHECK(d * 32 <= exact + 32);
	}
	/* Small values are exact. */
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 31; i++)
		lab_hist_add(&h, (uint64_t)i);
	CHECK_EQ_U64(lab_hist_quantile(&h, 0.5), 15);
	/* The largest bucket holds what is past it. */
	lab_hist_add(&h, UINT64_MAX / 2);
	CHECK_EQ_U64(lab_hist_quantile(&h, 1), UINT64_MAX / 2);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	test_fresh();
	test_one_record();
	test_last_record();
	test_split();
	test_grow();
	test_fallback();
	test_hist();
	printf("kfile: %d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed != 0;
}
