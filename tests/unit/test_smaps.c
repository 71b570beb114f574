/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_smaps.c — smaps_parse_range (base/smaps.h) on captured
 * /proc/self/smaps files, then on broken input.
 *
 * The fixtures come in pairs: self-smaps + self-smaps.range and
 * self-smaps-thp + self-smaps-thp.range, written by the capture program in
 * tests/fixtures/README.md.  It mapped a region between PROT_NONE guards,
 * touched every byte, MADV_FREE'd it and copied its own smaps; the .range
 * file holds the region's start and end in hex.  So on any kernel:
 *   - exactly the region's VMA(s) lie in the range, Size = the range's length;
 *   - Rss = Size (every page touched, no swap, MADV_FREE leaves pages mapped:
 *     mm/madvise.c: madvise_free_pte_range only clears dirty and moves them);
 *   - 0 < LazyFree <= Rss (fs/proc/task_mmu.c counts a page lazyfree when it
 *     is anonymous and no longer swap-backed);
 *   - the THP capture (MADV_HUGEPAGE, 2 MiB aligned) has AnonHugePages > 0,
 *     in whole 2 MiB pages;
 *   - a range one page off either edge cuts a VMA: -EINVAL.
 * Exact figures are checked against the v1-6.18 capture.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "base/smaps.h"
#include "unit.h"

static const char *root;

/* "7fc396400000 7fc39a400000\n" */
static bool read_range(const char *dir, const char *file, unsigned long *start, unsigned long *end)
{
	struct lab_error err = { 0 };
	char path[PATH_MAX], *buf = NULL, *p, *e;
	bool ok = false;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path) ||
	    lab_read_file(path, &buf, NULL, &err) < 0) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return false;
	}
	errno = 0;
	*start = strtoul(buf, &p, 16);
	if (errno == 0 && p != buf && *p == ' ') {
		*end = strtoul(p + 1, &e, 16);
		ok = errno == 0 && e != p + 1 && (*e == '\n' || *e == '\0') && *start < *end;
	}
	if (!ok)
		fprintf(stderr, "%s: not two hex addresses\n", path);
	free(buf);
	return ok;
}

static bool is_v1_618(const char *name)
{
	return strcmp(name, "v1-6.18") == 0;
}

static void expect_err(const char *buf, unsigned long start, unsigned long end, int code,
		       const char *what)
{
	struct smaps_range r;
	struct lab_error err = { 0 };

	CHECK_EQ_U64(smaps_parse_range(buf, start, end, &r, &err), -code);
	CHECK_EQ_U64(err.code, code);
	CHECK_CONTAINS(err.msg, what);
	/* A failed parse leaves nothing half-summed. */
	CHECK_EQ_U64(r.nr_vmas + r.size_kb + r.rss_kb + r.lazyfree_kb, 0);
}

/* What holds for both captures; returns the parsed range for exact checks. */
static void check_region(const char *dir, const char *buf, const char *rangefile,
			 struct smaps_range *r, unsigned long *start, unsigned long *end)
{
	struct lab_error err = { 0 };
	char *cut;
	size_t len;

	memset(r, 0, sizeof(*r));
	CHECK(read_range(dir, rangefile, start, end));
	if (*end <= *start)
		return;
	CHECK_EQ_U64(smaps_parse_range(buf, *start, *end, r, &err), 0);
	if (err.code)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK(r->nr_vmas >= 1);
	CHECK_EQ_U64(r->size_kb, (*end - *start) / 1024);
	CHECK_EQ_U64(r->rss_kb, r->size_kb);
	CHECK_EQ_U64(r->anonymous_kb, r->rss_kb);
	CHECK(r->has_lazyfree);
	CHECK(r->lazyfree_kb > 0);
	CHECK(r->lazyfree_kb <= r->rss_kb);
	CHECK(r->anonhuge_kb <= r->rss_kb);
	CHECK_EQ_U64(r->shmem_pmd_kb, 0);
	CHECK(r->swap_kb <= r->size_kb);

	/* One page inside either edge cuts the region's VMA.  (One page
	 * outside may not: the guard can be a single page, as in the v2
	 * captures, and then lies wholly inside.) */
	expect_err(buf, *start + 4096, *end, EINVAL, "straddles the start");
	expect_err(buf, *start, *end - 4096, EINVAL, "straddles the end");
	expect_err(buf, *start + 4096, *end - 4096, EINVAL, "straddles");
	/* Widened by a page each side: either a guard is cut (an error), or
	 * the guards are whole and add their size but no resident page. */
	{
		struct smaps_range w;
		int ret = smaps_parse_range(buf, *start - 4096, *end + 4096, &w, &err);

		CHECK(ret == 0 || ret == -EINVAL);
		if (ret == 0) {
			CHECK_EQ_U64(w.nr_vmas, r->nr_vmas + 2);
			CHECK_EQ_U64(w.size_kb, r->size_kb + 8);
			CHECK_EQ_U64(w.rss_kb, r->rss_kb);
		}
	}
	expect_err(buf, *end, *start, EINVAL, "empty");
	expect_err(buf, 4096, 8192, ENOENT, "no VMA");

	/* Cut the file right after the region's header: the VMA has no Size. */
	len = strlen(buf);
	cut = malloc(len + 1);
	CHECK(cut != NULL);
	if (cut != NULL) {
		char head[32], *h;

		snprintf(head, sizeof(head), "%lx-%lx ", *start, *end);
		h = strstr(memcpy(cut, buf, len + 1), head);
		CHECK(h != NULL);
		if (h != NULL && strchr(h, '\n') != NULL) {
			char *nl = strchr(h, '\n');

			nl[1] = '\0';
			expect_err(cut, *start, *end, EINVAL, "no Size line");
			/* ... and in the middle of the "Size:" line's number. */
			memcpy(cut, buf, len + 1);
			nl = strstr(h, "Size:");
			CHECK(nl != NULL);
			if (nl != NULL) {
				nl = strpbrk(nl, "123456789");
				nl[1] = '\0';
				expect_err(cut, *start, *end, EINVAL, "not followed by ' kB'");
			}
		}
		free(cut);
	}
}

/* The whole address space [0, ULONG_MAX) holds every VMA: nr_vmas equals
 * the header lines, and the sums agree with the rollup captured right
 * after (fs/proc/task_mmu.c: show_smaps_rollup sums the same VMAs), within
 * what the capture's own stdio buffers could have touched in between. */
static void check_whole(const char *dir, const char *buf)
{
	struct smaps_range r;
	struct lab_error err = { 0 };
	struct kv_list roll = { 0 };
	char path[PATH_MAX], *rbuf = NULL;
	size_t headers = 0;
	const char *p;

	CHECK_EQ_U64(smaps_parse_range(buf, 0, ULONG_MAX, &r, &err), 0);
	for (p = buf; *p != '\0'; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
			headers++;
	CHECK_EQ_U64(r.nr_vmas, headers);
	CHECK(r.rss_kb <= r.size_kb);
	if ((size_t)snprintf(path, sizeof(path), "%s/self-smaps-rollup", dir) >= sizeof(path) ||
	    access(path, R_OK) != 0)
		return;
	CHECK_EQ_U64(lab_read_file(path, &rbuf, NULL, &err), 0);
	if (rbuf == NULL)
		return;
	CHECK_EQ_U64(kv_parse_colon(rbuf, &roll, &err), 0);
	CHECK(r.rss_kb <= kv_get0(&roll, "Rss") + 256 && kv_get0(&roll, "Rss") <= r.rss_kb + 256);
	/* A per-CPU lazyfree batch may drain in between (16 pages = 64 kB). */
	CHECK(r.lazyfree_kb <= kv_get0(&roll, "LazyFree") + 256 &&
	      kv_get0(&roll, "LazyFree") <= r.lazyfree_kb + 256);
	kv_free(&roll);
	free(rbuf);
}

static void check_plain(const struct unit_fixture *f)
{
	struct smaps_range r;
	unsigned long start = 0, end = 0;

	check_region(f->dir, f->buf, "self-smaps.range", &r, &start, &end);
	check_whole(f->dir, f->buf);
	if (is_v1_618(f->name)) {
		CHECK_EQ_U64(start, 0x7fc396400000UL);
		CHECK_EQ_U64(r.nr_vmas, 1);
		CHECK_EQ_U64(r.size_kb, 65536);
		CHECK_EQ_U64(r.rss_kb, 65536);
		/* 16 pages were still in a per-CPU lazyfree batch when read. */
		CHECK_EQ_U64(r.lazyfree_kb, 65472);
		CHECK_EQ_U64(r.anonhuge_kb, 0);           /* THP is [madvise] here */
		CHECK_EQ_U64(r.swap_kb, 0);
	}
}

static void check_thp(const struct unit_fixture *f)
{
	struct smaps_range r;
	unsigned long start = 0, end = 0;

	check_region(f->dir, f->buf, "self-smaps-thp.range", &r, &start, &end);
	CHECK(r.anonhuge_kb > 0);
	CHECK_EQ_U64(r.anonhuge_kb % 2048, 0);
	CHECK_EQ_U64(start % (2UL << 20), 0);
	if (is_v1_618(f->name)) {
		CHECK_EQ_U64(r.nr_vmas, 1);
		CHECK_EQ_U64(r.size_kb, 8192);
		/* All four huge pages were MADV_FREE'd whole (mm/huge_memory.c:
		 * madvise_free_huge_pmd), none left in a batch. */
		CHECK_EQ_U64(r.lazyfree_kb, 8192);
		CHECK_EQ_U64(r.anonhuge_kb, 8192);
	}
}

static void test_fixtures(void)
{
	CHECK(unit_for_each_fixture(root, "self-smaps", check_plain) >= 1);
	CHECK(unit_for_each_fixture(root, "self-smaps-thp", check_thp) >= 1);
}

/* A region split in two VMAs (as around a huge-page boundary) reads as one;
 * VmFlags, THPeligible and ProtectionKey are not sizes and are skipped. */
static const char two_vmas[] =
	"00400000-00401000 r-xp 00000000 08:01 123    /usr/bin/a: b\n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n"
	"VmFlags: rd ex mr mw me\n"
	"7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
	"Size:               2048 kB\n"
	"KernelPageSize:        4 kB\n"
	"Rss:                2048 kB\n"
	"Anonymous:          2048 kB\n"
	"LazyFree:           2048 kB\n"
	"AnonHugePages:      2048 kB\n"
	"Swap:                  0 kB\n"
	"THPeligible:           1\n"
	"ProtectionKey:         0\n"
	"VmFlags: rd wr mr mw me ac hg\n"
	"7f0000200000-7f0000201000 rw-p 00000000 00:00 0\n"
	"Size:                  4 kB\n"
	"Rss:                   0 kB\n"
	"Swap:                  4 kB\n"
	"LazyFree:              0 kB\n"
	"7f0000201000-7f0000202000 ---p 00000000 00:00 0\n"
	"Size:                  4 kB\n"
	"Rss:                   0 kB\n";

static void test_synthetic(void)
{
	struct smaps_range r;
	struct lab_error err = { 0 };

	CHECK_EQ_U64(smaps_parse_range(two_vmas, 0x7f0000000000UL, 0x7f0000201000UL, &r, &err), 0);
	CHECK_EQ_U64(r.nr_vmas, 2);
	CHECK_EQ_U64(r.size_kb, 2052);
	CHECK_EQ_U64(r.rss_kb, 2048);
	CHECK_EQ_U64(r.lazyfree_kb, 2048);
	CHECK_EQ_U64(r.anonhuge_kb, 2048);
	CHECK_EQ_U64(r.anonymous_kb, 2048);
	CHECK_EQ_U64(r.swap_kb, 4);
	CHECK(r.has_lazyfree);
	/* A kernel without LazyFree (before 4.12) says so. */
	CHECK_EQ_U64(smaps_parse_range(two_vmas, 0x400000UL, 0x401000UL, &r, &err), 0);
	CHECK_EQ_U64(r.nr_vmas, 1);
	CHECK(!r.has_lazyfree);
	CHECK_EQ_U64(r.lazyfree_kb, 0);
}

static void test_errors(void)
{
	static const char hdr[] = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0\n";
	const unsigned long s = 0x7f0000000000UL, e = 0x7f0000001000UL;
	char buf[512];

	expect_err("", s, e, ENOENT, "no VMA");
	expect_err("\n\n", s, e, ENOENT, "no VMA");
	expect_err("Rss: 4 kB\n", s, e, EINVAL, "before any VMA header");
	expect_err("hello world\n", s, e, EINVAL, "line 1");
	expect_err(" 7f0000000000-7f0000001000 rw-p\n", s, e, EINVAL, "line 1");
	expect_err("7f0000000000-7f0000001000\n", s, e, EINVAL, "line 1");     /* truncated header */
	expect_err("7f0000000000-\n", s, e, EINVAL, "line 1");
	expect_err("0x7f0000000000-0x7f0000001000 rw-p\n", s, e, EINVAL, "line 1");
	expect_err("7f0000001000-7f0000000000 rw-p 0 0 0\n", s, e, EINVAL, "ends before");
	expect_err("fffffffffffffffffffff-7f0000001000 rw-p 0 0 0\n", s, e, EINVAL, "line 1");

#define CASE(body, what) do { \
	int n_ = snprintf(buf, sizeof(buf), "%s%s", hdr, body); \
	CHECK(n_ > 0 && (size_t)n_ < sizeof(buf)); \
	expect_err(buf, s, e, EINVAL, what); \
} while (0)
	CASE("Size: 4 kB\n", "no Rss line");
	CASE("Rss: 4 kB\n", "no Size line");
	CASE("Size: 4 kB\nRss: 4 kB\nRss: 4 kB\n", "second Rss");
	CASE("Size: 4 kB\nRss: x kB\n", "line 3");
	CASE("Size: 4 kB\nRss: -4 kB\n", "line 3");
	CASE("Size: 4 kB\nRss: 4 MB\n", "line 3");
	CASE("Size: 4 kB\nRss: 4\n", "line 3");
	CASE("Size: 4 kB\nRss: 4 kB extra\n", "line 3");
	CASE("Size: 4 kB\nRss: 12XB\n", "line 3");
	CASE("Size: 4 kB\nRss: 99999999999999999999999 kB\n", "64 bits");
	CASE("Size: 4 kB\nRss:", "line 3");
	CASE("Size: 4 kB\nRss: 4 kB\nLazyFree: 1 kB\nLazyFree: 1 kB\n", "second LazyFree");
#undef CASE

	/* Two VMAs whose Size lines together overflow 64 bits. */
	snprintf(buf, sizeof(buf), "%s%s%s",
		 "7f0000000000-7f0000001000 rw-p 0 0 0\nSize: 18446744073709551615 kB\nRss: 0 kB\n",
		 "7f0000001000-7f0000002000 rw-p 0 0 0\nSize: 1 kB\nRss: 0 kB\n", "");
	expect_err(buf, s, 0x7f0000002000UL, EINVAL, "overflows");

	/* Lines of VMAs outside the range are not even looked at. */
	CHECK_EQ_U64(smaps_parse_range("00400000-00401000 r-xp 0 0 0\nRss: garbage\n"
				       "7f0000000000-7f0000001000 rw-p 0 0 0\nSize: 4 kB\nRss: 4 kB\n",
				       s, e, &(struct smaps_range){ 0 }, NULL), 0);
}

int main(int argc, char **argv)
{
	root = unit_fixtures_root(argc, argv);
	if (root == NULL)
		return 2;
	test_fixtures();
	test_synthetic();
	test_errors();
	return unit_report("smaps");
}
