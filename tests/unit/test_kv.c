/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_kv.c — the "key value" and "Key: value kB" parsers (base/kv.h)
 * on every captured fixture directory, then on broken input.
 *
 * For each directory of argv[1] (tests/fixtures) holding the file, invariants
 * that hold on any kernel are checked:
 *   proc-vmstat        every line parses, keys unique, nr_free_pages present
 *                      (mm/vmstat.c: vmstat_text)
 *   proc-meminfo       every line is a number (fs/proc/meminfo.c prints
 *                      nothing else); MemFree <= MemAvailable's base MemTotal
 *   self-smaps-rollup  LazyFree and Anonymous <= Rss; with self-smaps.range
 *                      (captured after MADV_FREE of a touched region, see
 *                      tests/fixtures/README.md) LazyFree > 0
 *   self-status        VmRSS = RssAnon + RssFile + RssShmem (fs/proc/task_mmu.c:
 *                      task_mem), VmHWM >= VmRSS; non-numeric lines skipped
 *   memory.stat        v1 (total_* hierarchical sums >= local) or v2 (anon, file,
 *                      pglazyfree; > 0 where self-smaps.range says MADV_FREE ran)
 *   memory.oom_control v1: oom_kill_disable and under_oom are 0 or 1
 *   memory.events      v2: low, high, max, oom, oom_kill present; the -oom
 *                      capture (after an OOM kill in the group) has oom, oom_kill >= 1
 *   memory.usage_in_bytes, memory.current, memory.max, memory.swap.max: one number
 * plus exact values read by eye from the v1-6.18 capture.  The v2 captures
 * name the cgroup files memcg-memory.*; both spellings are read.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "unit.h"

static const char *root;

static size_t count_lines(const char *buf)
{
	size_t n = 0;

	for (; *buf != '\0'; buf++)
		if (*buf == '\n')
			n++;
	return n;
}

static bool is_v1_618(const char *name)
{
	return strcmp(name, "v1-6.18") == 0;
}

/* A capture with self-smaps.range was taken after the capture program
 * MADV_FREE'd a touched region (tests/fixtures/README.md). */
static bool madv_free_ran(const char *dir)
{
	char range[PATH_MAX];

	return (size_t)snprintf(range, sizeof(range), "%s/self-smaps.range", dir) < sizeof(range) &&
	       access(range, R_OK) == 0;
}

static void check_vmstat(const struct unit_fixture *f)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	size_t i, j, dups = 0;

	CHECK_EQ_U64(kv_parse_space(f->buf, &l, &err), 0);
	if (err.code)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK_EQ_U64(l.n, count_lines(f->buf));
	CHECK(kv_get(&l, "nr_free_pages", NULL));
	CHECK(kv_get0(&l, "pgfault") > 0);
	for (i = 0; i < l.n; i++)
		for (j = i + 1; j < l.n; j++)
			dups += strcmp(l.items[i].key, l.items[j].key) == 0;
	CHECK_EQ_U64(dups, 0);
	if (is_v1_618(f->name)) {
		/* Captured right after the 64 MiB and 8 MiB MADV_FREE runs:
		 * 16384 + 2048 pages were moved to the lazyfree list. */
		CHECK_EQ_U64(kv_get0(&l, "nr_free_pages"), 1067389);
		CHECK_EQ_U64(kv_get0(&l, "pglazyfree"), 18432);
		CHECK_EQ_U64(kv_get0(&l, "pglazyfreed"), 0);
		CHECK_EQ_U64(l.items[0].val, 1067389);
		CHECK_STR(l.items[0].key, "nr_free_pages");
	}
	kv_free(&l);
}

static void check_meminfo(const struct unit_fixture *f)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	unsigned long long total = 0, free_kb = 0, avail = 0;

	CHECK_EQ_U64(kv_parse_colon(f->buf, &l, &err), 0);
	CHECK_EQ_U64(l.n, count_lines(f->buf));
	CHECK(kv_get(&l, "MemTotal", &total));
	CHECK(kv_get(&l, "MemFree", &free_kb));
	CHECK(kv_get(&l, "MemAvailable", &avail));     /* since 3.14 */
	CHECK(total > 0);
	CHECK(free_kb <= total);
	CHECK(avail <= total);
	CHECK(kv_get(&l, "HugePages_Total", NULL));   /* a line without kB */
	CHECK(!kv_get(&l, "MemTotal:", NULL));
	CHECK(!kv_get(&l, "Mem", NULL));
	if (is_v1_618(f->name)) {
		CHECK_EQ_U64(total, 24684096);
		CHECK_EQ_U64(free_kb, 24011560);
		CHECK_EQ_U64(avail, 24185088);
		CHECK_EQ_U64(kv_get0(&l, "SwapTotal"), 0);     /* no swap on this machine kind */
		CHECK_EQ_U64(kv_get0(&l, "Hugepagesize"), 2048);
	}
	kv_free(&l);
}

static void check_rollup(const struct unit_fixture *f)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	unsigned long long rss = 0, lazy = 0;

	CHECK_EQ_U64(kv_parse_colon(f->buf, &l, &err), 0);
	/* The "start-end ---p ... [rollup]" header is the one line skipped. */
	CHECK_EQ_U64(l.n, count_lines(f->buf) - 1);
	CHECK(kv_get(&l, "Rss", &rss));
	CHECK(kv_get(&l, "LazyFree", &lazy));
	CHECK(rss > 0);
	CHECK(lazy <= rss);
	CHECK(kv_get0(&l, "Anonymous") <= rss);
	CHECK(kv_get0(&l, "AnonHugePages") <= kv_get0(&l, "Anonymous"));
	if (madv_free_ran(f->dir))
		CHECK(lazy > 0);
	if (is_v1_618(f->name)) {
		CHECK_EQ_U64(rss, 67000);
		/* 65536 kB were MADV_FREE'd; 64 kB (16 pages) still sat in a
		 * per-CPU folio batch (mm/swap.c: lru_lazyfree) when read. */
		CHECK_EQ_U64(lazy, 65472);
		CHECK_EQ_U64(kv_get0(&l, "Anonymous"), 65664);
		CHECK_EQ_U64(kv_get0(&l, "Private_Clean"), 65536);
	}
	kv_free(&l);
}

static void check_status(const struct unit_fixture *f)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	unsigned long long rss = 0, hwm = 0;

	CHECK_EQ_U64(kv_parse_colon(f->buf, &l, &err), 0);
	if (err.code)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK(kv_get(&l, "VmRSS", &rss));
	CHECK(kv_get(&l, "VmHWM", &hwm));
	CHECK(rss > 0);
	CHECK(hwm >= rss);
	CHECK_EQ_U64(kv_get0(&l, "RssAnon") + kv_get0(&l, "RssFile") + kv_get0(&l, "RssShmem"), rss);
	CHECK(kv_get0(&l, "Pid") > 0);
	CHECK(kv_get0(&l, "Threads") >= 1);
	/* Not one decimal: skipped, not misread. */
	CHECK(!kv_get(&l, "Name", NULL));
	CHECK(!kv_get(&l, "State", NULL));
	CHECK(!kv_get(&l, "Uid", NULL));
	CHECK(!kv_get(&l, "SigQ", NULL));
	CHECK(!kv_get(&l, "Cpus_allowed_list", NULL));
	CHECK(!kv_get(&l, "Mems_allowed", NULL));
	if (is_v1_618(f->name)) {
		CHECK_EQ_U64(rss, 67000);
		CHECK_EQ_U64(kv_get0(&l, "RssAnon"), 65664);
		CHECK_EQ_U64(kv_get0(&l, "VmSize"), 72116);
		CHECK_EQ_U64(kv_get0(&l, "Umask"), 22);         /* "0022", read as decimal */
		CHECK(!kv_get(&l, "CapEff", NULL));             /* 000001fffeffffff */
		CHECK(!kv_get(&l, "untag_mask", NULL));         /* 0xffffffffffffffff */
	}
	kv_free(&l);
}

static void check_memstat(const struct unit_fixture *f)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };

	CHECK_EQ_U64(kv_parse_space(f->buf, &l, &err), 0);
	CHECK_EQ_U64(l.n, count_lines(f->buf));
	CHECK(l.n > 0);
	if (kv_get(&l, "hierarchical_memory_limit", NULL)) {
		/* v1 (mm/memcontrol-v1.c: memcg1_stat_format): total_X sums the subtree. */
		CHECK(kv_get(&l, "cache", NULL) && kv_get(&l, "rss", NULL));
		CHECK(kv_get0(&l, "total_rss") >= kv_get0(&l, "rss"));
		CHECK(kv_get0(&l, "total_cache") >= kv_get0(&l, "cache"));
		CHECK(!kv_get(&l, "pglazyfree", NULL));    /* v1 has none: use /proc/vmstat */
	} else {
		/* v2 (mm/memcontrol.c: memory_stat_format) */
		CHECK(kv_get(&l, "anon", NULL));
		CHECK(kv_get(&l, "file", NULL));
		CHECK(kv_get(&l, "pglazyfree", NULL));
		if (madv_free_ran(f->dir))
			CHECK(kv_get0(&l, "pglazyfree") > 0);
	}
	if (is_v1_618(f->name)) {
		CHECK_EQ_U64(kv_get0(&l, "hierarchical_memory_limit"), 9223372036854771712ULL);
		CHECK_EQ_U64(kv_get0(&l, "cache"), 42303488);
		CHECK_EQ_U64(kv_get0(&l, "rss"), 1777664);
		CHECK_EQ_U64(kv_get0(&l, "total_inactive_file"), 40513536);
	}
	kv_free(&l);
}

static void check_oom_control(const struct unit_fixture *f)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	unsigned long long v = 9;

	CHECK_EQ_U64(kv_parse_space(f->buf, &l, &err), 0);
	CHECK(kv_get(&l, "oom_kill_disable", &v) && v <= 1);
	CHECK(kv_get(&l, "under_oom", &v) && v <= 1);
	CHECK(kv_get(&l, "oom_kill", NULL));               /* since 4.13 */
	if (is_v1_618(f->name))
		CHECK_EQ_U64(l.n, 3);
	kv_free(&l);
}

static void check_events(const struct unit_fixture *f)
{
	static const char *const keys[] = { "low", "high", "max", "oom", "oom_kill" };
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	size_t i;

	CHECK_EQ_U64(kv_parse_space(f->buf, &l, &err), 0);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		CHECK(kv_get(&l, keys[i], NULL));
	if (strstr(f->file, "-oom") != NULL) {
		CHECK(kv_get0(&l, "oom") >= 1);
		CHECK(kv_get0(&l, "oom_kill") >= 1);
	}
	kv_free(&l);
}

/* memory.usage_in_bytes (v1), memory.current, memory.max and memory.swap.max
 * (v2) are one number (or "max"), read with lab_read_u64. */
static void check_number(const struct unit_fixture *f)
{
	struct lab_error err = { 0 };
	unsigned long long v = 0;
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", f->dir, f->file) >= sizeof(path))
		return;
	CHECK_EQ_U64(lab_read_u64(path, &v, &err), 0);
	if (strstr(f->file, "usage_in_bytes") != NULL || strstr(f->file, "current") != NULL)
		CHECK(v > 0);
	if (is_v1_618(f->name) && strcmp(f->file, "memory.usage_in_bytes") == 0)
		CHECK_EQ_U64(v, 46145536);
}

/* unit_for_each_fixture over the v1 spelling and the v2 captures' memcg- one. */
static int for_each_memcg(const char *file, unit_fixture_fn fn)
{
	char alias[64];
	int n = unit_for_each_fixture(root, file, fn);

	if ((size_t)snprintf(alias, sizeof(alias), "memcg-%s", file) < sizeof(alias))
		n += unit_for_each_fixture(root, alias, fn);
	return n;
}

static void test_fixtures(void)
{
	/* The v1 capture must be there; v2 directories are checked when present. */
	CHECK(unit_for_each_fixture(root, "proc-vmstat", check_vmstat) >= 1);
	CHECK(unit_for_each_fixture(root, "proc-meminfo", check_meminfo) >= 1);
	CHECK(unit_for_each_fixture(root, "self-smaps-rollup", check_rollup) >= 1);
	CHECK(unit_for_each_fixture(root, "self-status", check_status) >= 1);
	CHECK(for_each_memcg("memory.stat", check_memstat) >= 1);
	CHECK(for_each_memcg("memory.oom_control", check_oom_control) >= 1);
	CHECK(for_each_memcg("memory.usage_in_bytes", check_number) >= 1);
	for_each_memcg("memory.events", check_events);
	for_each_memcg("memory.events-oom", check_events);
	for_each_memcg("memory.current", check_number);
	for_each_memcg("memory.max", check_number);
	for_each_memcg("memory.swap.max", check_number);
}

/* Parse must fail with -EINVAL, name the line, and leave the list as it was. */
static void space_bad(const char *buf, const char *line)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };

	CHECK_EQ_U64(kv_parse_space("before 1\n", &l, &err), 0);
	CHECK_EQ_U64(kv_parse_space(buf, &l, &err), -EINVAL);
	CHECK_EQ_U64(err.code, EINVAL);
	CHECK_CONTAINS(err.msg, line);
	CHECK_EQ_U64(l.n, 1);
	CHECK_EQ_U64(kv_get0(&l, "before"), 1);
	kv_free(&l);
}

static void colon_bad(const char *buf, const char *line)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };

	CHECK_EQ_U64(kv_parse_colon(buf, &l, &err), -EINVAL);
	CHECK_EQ_U64(err.code, EINVAL);
	CHECK_CONTAINS(err.msg, line);
	CHECK_EQ_U64(l.n, 0);
	kv_free(&l);
}

static void test_space_errors(void)
{
	char key63[80], key64[80];

	memset(key63, 'k', 63);
	memcpy(key63 + 63, " 5\n", 4);
	memset(key64, 'k', 64);
	memcpy(key64 + 64, " 5\n", 4);

	space_bad("nr_free_pages 12x\n", "line 1");
	space_bad("a 1\nnr_free_pages 12XB\n", "line 2");
	space_bad("a 1\nb 2\nc -1\n", "line 3");
	space_bad("nr_free_pages +1\n", "line 1");
	space_bad("nr_free_pages 1.5\n", "line 1");
	space_bad("nr_free_pages 0x10\n", "line 1");
	space_bad("nr_free_pages 99999999999999999999999\n", "64 bits");
	space_bad("nr_free_pages 18446744073709551616\n", "64 bits");
	space_bad(key64, "longer than 63");
	space_bad("nr_free_pages\n", "no value");             /* truncated line */
	space_bad("a 1\nnr_free_pa", "line 2");               /* truncated at EOF */
	space_bad("nr_free_pages \n", "no value");
	space_bad(" nr_free_pages 1\n", "starts with a blank");
	space_bad("nr_free_pages 1 2\n", "line 1");
	space_bad("nr_free_pages 1 \n", "line 1");
	space_bad("MemTotal:       24684096 kB\n", "line 1"); /* meminfo is the other shape */
	space_bad("nr_free\x01pages 1\n", "control");
	space_bad("a 1\r\n", "line 1");

	{
		struct kv_list l = { 0 };
		struct lab_error err = { 0 };

		CHECK_EQ_U64(kv_parse_space(key63, &l, &err), 0);
		CHECK_EQ_U64(l.n, 1);
		CHECK_EQ_U64(strlen(l.items[0].key), 63);
		kv_free(&l);
	}
}

static void test_space_shapes(void)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	unsigned long long v = 0;

	/* Empty input is an empty list, not an error. */
	CHECK_EQ_U64(kv_parse_space("", &l, &err), 0);
	CHECK_EQ_U64(l.n, 0);
	CHECK_EQ_U64(kv_parse_space("\n\n", &l, &err), 0);
	CHECK_EQ_U64(l.n, 0);
	/* Tabs, runs of blanks, no final newline, 2^64 - 1. */
	CHECK_EQ_U64(kv_parse_space("a\t1\nbb    22\nmax 18446744073709551615", &l, &err), 0);
	CHECK_EQ_U64(l.n, 3);
	CHECK(kv_get(&l, "max", &v));
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_U64(kv_get0(&l, "bb"), 22);
	/* Whole keys only. */
	CHECK(!kv_get(&l, "b", NULL));
	CHECK(!kv_get(&l, "bbb", NULL));
	CHECK_EQ_U64(kv_get0(&l, "absent"), 0);
	/* Appends, keeps order; reset keeps the allocation. */
	CHECK_EQ_U64(kv_parse_space("c 3\n", &l, &err), 0);
	CHECK_EQ_U64(l.n, 4);
	CHECK_STR(l.items[3].key, "c");
	kv_reset(&l);
	CHECK_EQ_U64(l.n, 0);
	CHECK(l.items != NULL);
	CHECK(!kv_get(&l, "a", NULL));
	kv_free(&l);
	CHECK(l.items == NULL && l.n == 0 && l.cap == 0);
}

/* Many keys: the list grows with realloc past its first allocation. */
static void test_growth(void)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	size_t cap = 5000 * 24, len = 0, i;
	char *buf = malloc(cap);
	bool fits = true;

	CHECK(buf != NULL);
	if (buf == NULL)
		return;
	for (i = 0; i < 5000; i++) {
		int n = snprintf(buf + len, cap - len, "key_%zu %zu\n", i, i * 3);

		if (n < 0 || (size_t)n >= cap - len) {
			fits = false;
			break;
		}
		len += (size_t)n;
	}
	CHECK(fits);
	CHECK_EQ_U64(kv_parse_space(buf, &l, &err), 0);
	CHECK_EQ_U64(l.n, 5000);
	CHECK(l.cap >= 5000);
	CHECK_EQ_U64(kv_get0(&l, "key_4999"), 4999 * 3);
	CHECK_EQ_U64(kv_get0(&l, "key_0"), 0);
	CHECK_STR(l.items[1234].key, "key_1234");
	kv_free(&l);
	free(buf);
}

static void test_colon(void)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	char key64[96];

	memset(key64, 'K', 64);
	memcpy(key64 + 64, ": 5 kB\n", 8);

	colon_bad("MemTotal: 99999999999999999999999 kB\n", "64 bits");
	colon_bad("MemFree: 1 kB\nMemTotal:       12 MB\n", "line 2");
	colon_bad("MemTotal: 12 kB x\n", "line 1");
	colon_bad("MemTotal: 12 kBx\n", "line 1");
	colon_bad(key64, "longer than 63");
	colon_bad(": 5 kB\n", "empty key");

	/* Shapes that are skipped or stored. */
	CHECK_EQ_U64(kv_parse_colon("55c03ff6b000-7ffe52088000 ---p 00000000 00:00 0   [rollup]\n"
				    "Rss:               67000 kB\n"
				    "Name:\tcapture-self\n"
				    "Groups:\t \n"
				    "Uid:\t0\t0\t0\t0\n"
				    "SigQ:\t0/96365\n"
				    "MemTotal: 12XB\n"
				    "THPeligible:           1\n"
				    "VmFlags: rd wr mr mw me ac \n"
				    "Empty:\n"
				    "Trailing:  7   \n"
				    "Rss:5\n"
				    "HugePages_Total:       0", &l, &err), 0);
	CHECK_EQ_U64(l.n, 4);
	CHECK_EQ_U64(kv_get0(&l, "Rss"), 67000);
	CHECK_EQ_U64(kv_get0(&l, "THPeligible"), 1);
	CHECK_EQ_U64(kv_get0(&l, "Trailing"), 7);
	CHECK(kv_get(&l, "HugePages_Total", NULL));
	CHECK(!kv_get(&l, "MemTotal", NULL));
	CHECK(!kv_get(&l, "VmFlags", NULL));
	kv_free(&l);

	CHECK_EQ_U64(kv_parse_colon("", &l, &err), 0);
	CHECK_EQ_U64(l.n, 0);
	kv_free(&l);
}

/* One number as a cgroup file prints it (mm/memcontrol.c: memory_current_read
 * "%llu\n", memory_max_show "max\n"): anything else, a number too large
 * for 64 bits included, is -EINVAL naming the file. */
static void test_number_text(void)
{
	struct lab_error err = { 0 };
	unsigned long long v = 0;

	CHECK_EQ_U64(lab_text_u64("46145536\n", "memory.current", &v, &err), 0);
	CHECK_EQ_U64(v, 46145536);
	CHECK_EQ_U64(lab_text_u64("0", "memory.current", &v, &err), 0);
	CHECK_EQ_U64(v, 0);
	CHECK_EQ_U64(lab_text_u64("max\n", "memory.max", &v, &err), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_U64(lab_text_u64("18446744073709551615\n", "memory.current", &v, &err), 0);
	CHECK_EQ_U64(v, UINT64_MAX);
	CHECK_EQ_U64(lab_text_u64("18446744073709551616\n", "memory.current", &v, &err), -EINVAL);
	CHECK_CONTAINS(err.msg, "memory.current: not a number");
	CHECK_EQ_U64(lab_text_u64("", "memory.current", &v, &err), -EINVAL);
	CHECK_EQ_U64(lab_text_u64("12 kB\n", "memory.current", &v, &err), -EINVAL);
	CHECK_EQ_U64(lab_text_u64("maximum\n", "memory.max", &v, &err), -EINVAL);
	CHECK_EQ_U64(lab_text_u64("12\n13\n", "memory.current", &v, &err), -EINVAL);
	CHECK_EQ_U64(lab_text_u64("max\nmax\n", "memory.max", &v, &err), -EINVAL);
	CHECK_EQ_U64(lab_text_u64(" 12\n", "memory.current", &v, &err), -EINVAL);
	CHECK_EQ_U64(lab_text_u64("-1\n", "memory.current", &v, &err), -EINVAL);
}

/* The selected word of a sysfs choice file, as THP's files print it. */
static void test_bracketed(void)
{
	char w[16];

	CHECK(kv_bracketed("always [madvise] never\n", w, sizeof(w)));
	CHECK_STR(w, "madvise");
	CHECK(kv_bracketed("always inherit madvise [never]\n", w, sizeof(w)));
	CHECK_STR(w, "never");
	CHECK(kv_bracketed("[always] defer defer+madvise madvise never\n", w, sizeof(w)));
	CHECK_STR(w, "always");
	CHECK(!kv_bracketed("0\n", w, sizeof(w)));
	CHECK_STR(w, "");
	CHECK(!kv_bracketed("always [madvise never\n", w, sizeof(w)));
	CHECK_STR(w, "");
	CHECK(kv_bracketed("[defer+madvise]", w, 6));       /* cut to 5 */
	CHECK_STR(w, "defer");
	CHECK(kv_bracketed("a [] b", w, sizeof(w)));
	CHECK_STR(w, "");
}

int main(int argc, char **argv)
{
	root = unit_fixtures_root(argc, argv);
	if (root == NULL)
		return 2;
	test_fixtures();
	test_space_errors();
	test_space_shapes();
	test_growth();
	test_colon();
	test_number_text();
	test_bracketed();
	return unit_report("kv");
}
