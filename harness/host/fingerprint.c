/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fingerprint.c — the host's fingerprint (fingerprint.h).
 *
 * Where each field comes from (the kernel sources are 6.1.192, 6.12.117 and
 * 6.18.33):
 *   mglru      /sys/kernel/mm/lru_gen/enabled, "0x%04x" (mm/vmscan.c:
 *              enabled_show; absent without CONFIG_LRU_GEN), min_ttl_ms
 *   cgroup     /proc/self/mounts (the cgroup2 mount's options, among them
 *              memory_recursiveprot: kernel/cgroup/cgroup.c cgroup2_fs_parameters),
 *              a v1 hierarchy with the memory controller, the cgroup2 root's
 *              cgroup.controllers, /proc/cgroups' memory row
 *   thp        /sys/kernel/mm/transparent_hugepage/: enabled, defrag,
 *              shmem_enabled, use_zero_page, shrink_underused (6.12+),
 *              hpage_pmd_size, khugepaged/ (its settings), hugepages-<size>kB/enabled (mTHP, 6.8+)
 *   swap       /proc/meminfo SwapTotal, /proc/swaps
 *   zswap      /sys/module/zswap/parameters/ (absent without CONFIG_ZSWAP)
 *   sizes      sysconf(_SC_PAGESIZE), hpage_pmd_size, /proc/meminfo Hugepagesize
 *   cpus       /sys/devices/system/cpu/online, sysconf(_SC_NPROCESSORS_ONLN)
 *   zones      /proc/zoneinfo "vm stats threshold" (mm/vmstat.c:
 *              zoneinfo_show_print; the value kswapd's wake-ups switch between
 *              the normal and the pressure threshold: read at the run's start)
 *   clock      /sys/devices/system/clocksource/clocksource0/current_clocksource:
 *              every timing figure and every clock read the sampler makes goes
 *              through it.  Only tsc (and the paravirtual clocks) have a vDSO
 *              read mode on x86 (arch/x86/kernel/tsc.c: .vdso_clock_mode =
 *              VDSO_CLOCKMODE_TSC; hpet.c and acpi_pm set none), so under hpet
 *              each clock_gettime is a system call (lib/vdso/gettimeofday.c:
 *              do_hres returns -1, clock_gettime_fallback) and, in a TCG guest,
 *              an emulated device read.  6.1 marks a TSC without constant_tsc
 *              unsynchronized on any non-Intel machine with more than one
 *              possible CPU (arch/x86/kernel/tsc.c: unsynchronized_tsc), which
 *              QEMU's default x86 CPU is; 6.12 asks for more than one package
 *   damon      /sys/kernel/mm/damon/admin/kdamonds/ (mm/damon/sysfs.c, 5.18+): each
 *              kdamond's state, and per context its operations (paddr: the
 *              machine's physical memory; vaddr: processes), its intervals and
 *              its schemes' action, access pattern, quota and filters; and the
 *              modules' own, /sys/module/damon_{reclaim,lru_sort,stat}/parameters/
 *              enabled.  A "pageout" scheme on paddr reclaims what it finds cold
 *              on its own schedule, beside whatever a scenario measures (a
 *              machine's supervisor may run one: seen on this lab's host, 6.18,
 *              2026-12-06: paddr, pageout of unmapped page cache idle for 12
 *              aggregations of 5 s, at most 128 MiB a second)
 *   zero_page  tried, not looked up: 16 pages of private anonymous memory
 *              mapped, each read once, the mapping's Rss in /proc/self/smaps.
 *              "zero page": the reads mapped the shared zero page (Rss 0:
 *              mm/memory.c do_anonymous_page, a read fault maps my_zero_pfn,
 *              which vm_normal_page does not count); "allocate": each read
 *              took a page of its own (this lab's host boots its 6.18 with
 *              pvm_no_zero_page=1, 2026-12-06), so a lazily freed page that
 *              was reclaimed and is read again costs Rss
 *   kernel     uname -r and -v
 *   config     /proc/config.gz (CONFIG_IKCONFIG_PROC), else /boot/config-RELEASE
 */
#include "fingerprint.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef PAGELAB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "base/fileio.h"
#include "base/kv.h"
#include "base/smaps.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define CONFIG_MAX (8u << 20)   /* a decompressed config is ~100-300 KiB */

/* ---- pure parsers -------------------------------------------------------- */

/* The config options kept: a name equal to one of exact, or starting with one
 * of prefix.  Which LRU (LRU_GEN, LRU_GEN_ENABLED, LRU_GEN_WALKS_MMU), which
 * memory cgroup code (MEMCG, MEMCG_V1, MEMCG_KMEM), THP's build default
 * (TRANSPARENT_HUGEPAGE_ALWAYS/MADVISE/NEVER), zswap and its defaults, the page
 * size (PAGE_SIZE_*, PAGE_SHIFT, ARM64_*K_PAGES), the PMD's table levels,
 * MM_ID (6.18's shared-folio test), PSI, the tick rate (PSI's jiffies), NUMA,
 * swap, zram. */
static bool config_wanted(const char *name, size_t len)
{
	static const char *const prefix[] = { "CONFIG_LRU_GEN", "CONFIG_MEMCG", "CONFIG_TRANSPARENT_HUGEPAGE",
					      "CONFIG_ZSWAP", "CONFIG_PAGE_SIZE_", "CONFIG_PSI",
					      "CONFIG_ARCH_HAS_NONLEAF_PMD_YOUNG" };
	static const char *const exact[] = { "CONFIG_PAGE_SHIFT", "CONFIG_PGTABLE_LEVELS", "CONFIG_MM_ID",
					     "CONFIG_HZ", "CONFIG_NUMA", "CONFIG_SWAP", "CONFIG_ZRAM",
					     "CONFIG_ARM64_4K_PAGES", "CONFIG_ARM64_16K_PAGES",
					     "CONFIG_ARM64_64K_PAGES", "CONFIG_IKCONFIG_PROC",
					     "CONFIG_LOCALVERSION" };

	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (len >= strlen(prefix[i]) && !strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (len == strlen(exact[i]) && !strncmp(name, exact[i], len))
			return true;
	return false;
}

static bool config_name_ok(const char *p, size_t n)
{
	if (n < 8 || n > 96 || strncmp(p, "CONFIG_", 7) != 0)
		return false;
	for (size_t i = 7; i < n; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '_')
			return false;
	return true;
}

/* One line: "CONFIG_X=VALUE" or "# CONFIG_X is not set". */
static void config_line(json_t *o, const char *line, size_t len)
{
	const char *eq, *end = line + len;
	size_t n;

	if (len > 2 && line[0] == '#' && line[1] == ' ') {
		const char *name = line + 2, *sp = memchr(name, ' ', (size_t)(end - name));

		if (sp == NULL || (size_t)(end - sp) != strlen(" is not set") ||
		    memcmp(sp, " is not set", strlen(" is not set")) != 0)
			return;
		n = (size_t)(sp - name);
		if (config_name_ok(name, n) && config_wanted(name, n)) {
			char key[100];

			snprintf(key, sizeof(key), "%.*s", (int)n, name);
			json_object_set_new(o, key, json_string("n"));
		}
		return;
	}
	eq = memchr(line, '=', len);
	if (eq == NULL)
		return;
	n = (size_t)(eq - line);
	if (config_name_ok(line, n) && config_wanted(line, n)) {
		const char *v = eq + 1;
		size_t vn = (size_t)(end - v);
		char key[100];

		if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
			v++;
			vn -= 2;
		}
		snprintf(key, sizeof(key), "%.*s", (int)n, line);
		/* json_stringn refuses bytes that are not UTF-8: then the option is left out. */
		if (vn <= 256) {
			json_t *s = json_stringn(v, vn);

			if (s != NULL)
				json_object_set_new(o, key, s);
		}
	}
}

json_t *fingerprint_config(const char *text)
{
	json_t *o = json_object();
	const char *p = text;

	while (o != NULL && p != NULL && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);

		config_line(o, p, len);
		p = nl != NULL ? nl + 1 : NULL;
	}
	return o;
}

/* "Node 0, zone   Normal": the node and zone of the lines that follow. */
static bool zone_header(const char *line, int *node, char *zone, size_t zlen)
{
	char name[32];

	if (sscanf(line, "Node %d, zone %31s", node, name) != 2)
		return false;
	snprintf(zone, zlen, "%s", name);
	return true;
}

json_t *fingerprint_thresholds(const char *zoneinfo)
{
	json_t *a = json_array(), *cur = NULL;
	const char *p = zoneinfo;

	while (a != NULL && p != NULL && *p) {
		const char *nl = strchr(p, '\n');
		char line[256], zone[32];
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		int node, v;

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		if (zone_header(line, &node, zone, sizeof(zone))) {
			cur = json_array();
			json_array_append_new(a, json_pack("{s:i, s:s, s:o}", "node", node, "zone", zone,
							   "stat_threshold", cur));
		} else if (cur != NULL && sscanf(line, " vm stats threshold: %d", &v) == 1) {
			json_array_append_new(cur, json_integer(v));
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	/* Unpopulated zones print no pagesets: leave them out. */
	for (size_t i = json_array_size(a); i-- > 0;)
		if (json_array_size(json_object_get(json_array_get(a, i), "stat_threshold")) == 0)
			json_array_remove(a, i);
	return a;
}

/* The n-th (0-based) blank-separated field of line [p, end) into out. */
static bool field_of(const char *p, const char *end, int n, char *out, size_t len)
{
	for (int i = 0; p < end; i++) {
		const char *q;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		q = p;
		while (q < end && *q != ' ' && *q != '\t')
			q++;
		if (q == p)
			return false;
		if (i == n) {
			snprintf(out, len, "%.*s", (int)(q - p), p);
			return true;
		}
		p = q;
	}
	return false;
}

json_t *fingerprint_cgroup2_options(const char *mounts)
{
	const char *p = mounts;

	while (p != NULL && *p) {
		const char *nl = strchr(p, '\n'), *end = nl != NULL ? nl : p + strlen(p);
		char type[32], opts[512];

		if (field_of(p, end, 2, type, sizeof(type)) && !strcmp(type, "cgroup2") &&
		    field_of(p, end, 3, opts, sizeof(opts)))
			return json_string(opts);
		p = nl != NULL ? nl + 1 : NULL;
	}
	return NULL;
}

json_t *fingerprint_proc_cgroups(const char *text, const char *name)
{
	const char *p = text;

	while (p != NULL && *p) {
		const char *nl = strchr(p, '\n');
		char line[256], sub[64];
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		int hier, num, en;

		snprintf(line, sizeof(line), "%.*s", (int)(len < sizeof(line) ? len : sizeof(line) - 1), p);
		if (line[0] != '#' && sscanf(line, "%63s %d %d %d", sub, &hier, &num, &en) == 4 && !strcmp(sub, name))
			return json_pack("{s:i, s:i, s:b}", "hierarchy", hier, "num_cgroups", num, "enabled", en != 0);
		p = nl != NULL ? nl + 1 : NULL;
	}
	return json_null();
}

/* ---- reading the host ---------------------------------------------------- */

/* A one-line sysfs file without its newline, or NULL when it cannot be read. */
static char *read_line(const char *path)
{
	char *buf = NULL;
	size_t n = 0;
	struct lab_error e;

	if (lab_read_file(path, &buf, &n, &e) < 0)
		return NULL;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return buf;
}

/* A sysfs file as JSON: its bracketed word ("always [madvise] never"), else
 * an integer when it is one, else the text; null when unreadable. */
static json_t *sysfs_value(const char *path)
{
	cleanup_free char *s = read_line(path);
	char word[64], *end;
	long long v;

	if (s == NULL)
		return json_null();
	if (kv_bracketed(s, word, sizeof(word)))
		return json_string(word);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s && errno == 0 && *end == '\0')
		return json_integer(v);
	{
		json_t *t = json_string(s);

		return t != NULL ? t : json_null();
	}
}

static json_t *mglru(void)
{
	json_t *en = sysfs_value("/sys/kernel/mm/lru_gen/enabled");
	json_t *o = json_object();
	const char *s = json_string_value(en);

	json_object_set_new(o, "enabled", en);
	json_object_set_new(o, "on", s != NULL ? json_boolean(strtoul(s, NULL, 16) & 1) : json_null());
	json_object_set_new(o, "min_ttl_ms", sysfs_value("/sys/kernel/mm/lru_gen/min_ttl_ms"));
	return o;
}

static int cmp_kb(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a + strlen("hugepages-"), NULL, 10);
	unsigned long y = strtoul(*(char *const *)b + strlen("hugepages-"), NULL, 10);

	return x < y ? -1 : x > y;
}

/* hugepages-<size>kB/enabled of every size: {"64kB": "never", …} in size
 * order, and the sizes an anonymous fault may use (always or madvise, or
 * inherit while the top-level setting is not never). */
static void mthp(json_t *thp, const char *top)
{
	json_t *sizes = json_object(), *on = json_array();
	DIR *d = opendir(THP_DIR);
	struct dirent *de;
	char *names[64];
	size_t n = 0;

	while (d != NULL && (de = readdir(d)) != NULL && n < 64)
		if (!strncmp(de->d_name, "hugepages-", 10) && strstr(de->d_name, "kB") != NULL)
			names[n++] = strdup(de->d_name);
	if (d != NULL)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_kb);
	for (size_t i = 0; i < n; i++) {
		char path[300];
		json_t *v;
		const char *s;

		if (names[i] == NULL)
			continue;
		snprintf(path, sizeof(path), THP_DIR "/%s/enabled", names[i]);
		v = sysfs_value(path);
		s = json_string_value(v);
		if (s != NULL && (!strcmp(s, "always") || !strcmp(s, "madvise") ||
				  (!strcmp(s, "inherit") && top != NULL && strcmp(top, "never") != 0)))
			json_array_append_new(on, json_string(names[i] + 10));
		json_object_set_new(sizes, names[i] + 10, v);
		free(names[i]);
	}
	json_object_set_new(thp, "mthp", sizes);
	json_object_set_new(thp, "mthp_anon_sizes", on);
}

static json_t *thp_settings(void)
{
	static const char *const top[] = { "enabled", "defrag", "shmem_enabled", "use_zero_page", "shrink_underused" };
	static const char *const kh[] = { "defrag", "max_ptes_none", "max_ptes_swap", "max_ptes_shared",
					  "pages_to_scan", "scan_sleep_millisecs", "alloc_sleep_millisecs" };
	json_t *o = json_object(), *k = json_object();
	char path[256];

	if (access(THP_DIR, F_OK) < 0) {
		json_object_set_new(o, "available", json_false());
		return o;
	}
	json_object_set_new(o, "available", json_true());
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		snprintf(path, sizeof(path), THP_DIR "/%s", top[i]);
		json_object_set_new(o, top[i], sysfs_value(path));
	}
	for (size_t i = 0; i < sizeof(kh) / sizeof(kh[0]); i++) {
		snprintf(path, sizeof(path), THP_DIR "/khugepaged/%s", kh[i]);
		json_object_set_new(k, kh[i], sysfs_value(path));
	}
	json_object_set_new(o, "khugepaged", k);
	mthp(o, json_string_value(json_object_get(o, "enabled")));
	return o;
}

/* cgroup2's options, whether memory_recursiveprot is one of them (null
 * without a cgroup2 mount), a v1 memory hierarchy, and the cgroup2 root's
 * controllers. */
static json_t *cgroup_facts(void)
{
	cleanup_free char *mounts = NULL;
	cleanup_free char *pc = NULL;
	json_t *o = json_object(), *opts = NULL;
	struct lab_error e;
	bool v1mem = false;
	char root[512] = "";

	if (lab_read_file("/proc/self/mounts", &mounts, NULL, &e) == 0) {
		const char *p = mounts;

		opts = fingerprint_cgroup2_options(mounts);
		while (p != NULL && *p) {
			const char *nl = strchr(p, '\n'), *end = nl != NULL ? nl : p + strlen(p);
			char type[32], op[512], dir[512];

			if (field_of(p, end, 2, type, sizeof(type)) && field_of(p, end, 3, op, sizeof(op)) &&
			    field_of(p, end, 1, dir, sizeof(dir))) {
				if (!strcmp(type, "cgroup") && (strstr(op, ",memory") || !strncmp(op, "memory", 6)))
					v1mem = true;
				if (!strcmp(type, "cgroup2") && root[0] == '\0')
					snprintf(root, sizeof(root), "%s", dir);
			}
			p = nl != NULL ? nl + 1 : NULL;
		}
	}
	json_object_set_new(o, "cgroup2_options", opts != NULL ? opts : json_null());
	json_object_set_new(o, "memory_recursiveprot", opts == NULL ? json_null() :
			    json_boolean(strstr(json_string_value(opts), "memory_recursiveprot") != NULL));
	json_object_set_new(o, "v1_memory_hierarchy", json_boolean(v1mem));
	if (root[0]) {
		char path[600];
		cleanup_free char *ctl = NULL;

		snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
		ctl = read_line(path);
		json_object_set_new(o, "v2_controllers", ctl != NULL ? json_string(ctl) : json_null());
		json_object_set_new(o, "v2_memory_controller",
				    json_boolean(ctl != NULL && (!strncmp(ctl, "memory", 6) || strstr(ctl, " memory"))));
	} else {
		json_object_set_new(o, "v2_controllers", json_null());
		json_object_set_new(o, "v2_memory_controller", json_false());
	}
	if (lab_read_file("/proc/cgroups", &pc, NULL, &e) == 0)
		json_object_set_new(o, "proc_cgroups_memory", fingerprint_proc_cgroups(pc, "memory"));
	else
		json_object_set_new(o, "proc_cgroups_memory", json_null());
	return o;
}

static json_t *swap_facts(void)
{
	static const char *const zs[] = { "enabled", "compressor", "zpool", "max_pool_percent", "shrinker_enabled" };
	cleanup_free char *swaps = NULL;
	cleanup_free char *meminfo = NULL;
	struct kv_list kv = { 0 };
	struct lab_error e;
	json_t *o = json_object(), *z;
	long areas = 0;

	if (lab_read_file("/proc/swaps", &swaps, NULL, &e) == 0)
		for (const char *p = strchr(swaps, '\n'); p != NULL && p[1]; p = strchr(p + 1, '\n'))
			areas++;
	if (lab_read_file("/proc/meminfo", &meminfo, NULL, &e) == 0 && kv_parse_colon(meminfo, &kv, &e) == 0)
		json_object_set_new(o, "total_kb", json_integer((json_int_t)kv_get0(&kv, "SwapTotal")));
	kv_free(&kv);
	json_object_set_new(o, "areas", json_integer(areas));
	json_object_set_new(o, "present", json_boolean(areas > 0));
	if (access("/sys/module/zswap/parameters", F_OK) < 0) {
		json_object_set_new(o, "zswap", json_string("absent"));
		return o;
	}
	z = json_object();
	for (size_t i = 0; i < sizeof(zs) / sizeof(zs[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/module/zswap/parameters/%s", zs[i]);
		json_object_set_new(z, zs[i], sysfs_value(path));
	}
	{
		const char *en = json_string_value(json_object_get(z, "enabled"));

		json_object_set_new(o, "zswap", json_string(en != NULL && (en[0] == 'Y' || en[0] == '1') ? "enabled"
											     : "disabled"));
	}
	json_object_set_new(o, "zswap_parameters", z);
	return o;
}

#define ZP_PAGES 16

json_t *fingerprint_zero_page(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t page = (size_t)(ps > 0 ? ps : 4096), len = page * ZP_PAGES;
	cleanup_free char *smaps = NULL;
	struct smaps_range r;
	struct lab_error e;
	volatile const char *p;
	json_t *out = json_null();
	/* A PROT_NONE page on each side: the pages read are a VMA of their own,
	 * which no neighbour merges with (base/smaps.h wants it whole). */
	char *m = mmap(NULL, len + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return out;
	p = m + page;
	/* No huge zero page and no huge page: one base page per read. */
	if (mprotect(m + page, len, PROT_READ) == 0 && madvise(m + page, len, MADV_NOHUGEPAGE) == 0) {
		for (size_t off = 0; off < len; off += page)
			(void)p[off];
		if (lab_read_file("/proc/self/smaps", &smaps, NULL, &e) == 0 &&
		    smaps_parse_range(smaps, (unsigned long)(m + page), (unsigned long)(m + page + len), &r, &e) == 0)
			out = json_string(r.rss_kb == 0 ? "zero page" : "allocate");
	}
	munmap(m, len + 2 * page);
	return out;
}

#define DAMON_DIR "/sys/kernel/mm/damon/admin/kdamonds"
#define DAMON_PATH 256

/* A path of DAMON's files; one that would not fit is "" (then not read). */
static void damon_path(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void damon_path(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, DAMON_PATH, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= DAMON_PATH)
		buf[0] = '\0';
}

/* An integer sysfs file below dir, bounded; -1 when unreadable. */
static long damon_count(const char *dir, const char *file, long max)
{
	char path[DAMON_PATH];
	cleanup_free char *s = NULL;
	char *end;
	long v;

	damon_path(path, "%s/%s", dir, file);
	if ((s = read_line(path)) == NULL)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || end == s || *end || v < 0 ? -1 : v < max ? v : max;
}

static json_t *damon_value(const char *dir, const char *file)
{
	char path[DAMON_PATH];

	damon_path(path, "%s/%s", dir, file);
	return sysfs_value(path);
}

/* A scheme's filters ("anon reject", "unmapped allow"): 6.18 has them as
 * core_filters and ops_filters, earlier kernels (6.3+) as filters. */
static json_t *damon_filters(const char *scheme)
{
	static const char *const sets[] = { "core_filters", "ops_filters", "filters" };
	json_t *a = json_array();

	for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		char dir[DAMON_PATH];
		long n;

		damon_path(dir, "%s/%s", scheme, sets[k]);
		n = damon_count(dir, "nr_filters", 8);
		for (long f = 0; f < n; f++) {
			char fd[DAMON_PATH], path[DAMON_PATH];
			cleanup_free char *type = NULL;
			cleanup_free char *matching = NULL;
			cleanup_free char *allow = NULL;

			damon_path(fd, "%s/%ld", dir, f);
			damon_path(path, "%s/type", fd);
			type = read_line(path);
			damon_path(path, "%s/matching", fd);
			matching = read_line(path);
			/* "allow" is 6.14's: before it every filter rejected. */
			damon_path(path, "%s/allow", fd);
			allow = read_line(path);
			json_array_append_new(a, json_sprintf("%s%s %s", matching != NULL && matching[0] == 'N' ? "not " : "",
							      type != NULL ? type : "?",
							      allow != NULL && allow[0] == 'Y' ? "allow" : "reject"));
		}
	}
	return a;
}

static json_t *damon_context(const char *ctx)
{
	json_t *c = json_object(), *schemes = json_array();
	char dir[DAMON_PATH];
	long n;

	json_object_set_new(c, "operations", damon_value(ctx, "operations"));
	json_object_set_new(c, "sample_us", damon_value(ctx, "monitoring_attrs/intervals/sample_us"));
	json_object_set_new(c, "aggr_us", damon_value(ctx, "monitoring_attrs/intervals/aggr_us"));
	damon_path(dir, "%s/schemes", ctx);
	n = damon_count(dir, "nr_schemes", 8);
	for (long i = 0; i < n; i++) {
		char sc[DAMON_PATH];

		damon_path(sc, "%s/%ld", dir, i);
		json_array_append_new(schemes, json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "action",
							 damon_value(sc, "action"), "min_age",
							 damon_value(sc, "access_pattern/age/min"), "max_nr_accesses",
							 damon_value(sc, "access_pattern/nr_accesses/max"),
							 "quota_bytes", damon_value(sc, "quotas/bytes"), "quota_ms",
							 damon_value(sc, "quotas/ms"), "filters", damon_filters(sc)));
	}
	json_object_set_new(c, "schemes", schemes);
	return c;
}

json_t *fingerprint_damon(void)
{
	static const char *const mods[] = { "damon_reclaim", "damon_lru_sort", "damon_stat" };
	json_t *o = json_object(), *kds, *m = json_object();
	long n = damon_count(DAMON_DIR, "nr_kdamonds", 16);

	if (n < 0) {
		json_object_set_new(o, "kdamonds", json_string("absent"));
	} else {
		kds = json_array();
		for (long i = 0; i < n; i++) {
			char kd[DAMON_PATH], cd[DAMON_PATH];
			json_t *k = json_object(), *ctxs = json_array();
			long nc;

			damon_path(kd, DAMON_DIR "/%ld", i);
			json_object_set_new(k, "state", damon_value(kd, "state"));
			damon_path(cd, "%s/contexts", kd);
			nc = damon_count(cd, "nr_contexts", 4);
			for (long c = 0; c < nc; c++) {
				char ctx[DAMON_PATH];

				damon_path(ctx, "%s/%ld", cd, c);
				json_array_append_new(ctxs, damon_context(ctx));
			}
			json_object_set_new(k, "contexts", ctxs);
			json_array_append_new(kds, k);
		}
		json_object_set_new(o, "kdamonds", kds);
	}
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		char path[DAMON_PATH];

		damon_path(path, "/sys/module/%s/parameters/enabled", mods[i]);
		json_object_set_new(m, mods[i], access(path, F_OK) == 0 ? sysfs_value(path) : json_string("absent"));
	}
	json_object_set_new(o, "modules", m);
	return o;
}

/* The config text: /proc/config.gz, else /boot/config-RELEASE.  *src says
 * which; NULL with *why when neither. */
static char *config_text(const char *release, const char **src, char *why, size_t wlen)
{
	static char boot[300];
	char *buf = NULL;
	struct lab_error e;

	*src = NULL;
	snprintf(why, wlen, "no /proc/config.gz (CONFIG_IKCONFIG_PROC) and no /boot/config-%s", release);
#ifdef PAGELAB_HAVE_ZLIB
	if (access("/proc/config.gz", R_OK) == 0) {
		gzFile gz = gzopen("/proc/config.gz", "rb");
		size_t len = 0, cap = 1u << 18;
		int n = 0;

		buf = gz != NULL ? malloc(cap + 1) : NULL;
		while (buf != NULL && (n = gzread(gz, buf + len, (unsigned)(cap - len))) > 0) {
			len += (size_t)n;
			if (len == cap && cap < CONFIG_MAX) {
				char *nb = realloc(buf, cap * 2 + 1);

				if (nb == NULL)
					break;
				buf = nb;
				cap *= 2;
			} else if (len == cap) {
				break;
			}
		}
		if (gz != NULL)
			gzclose(gz);
		if (buf != NULL && n >= 0) {
			buf[len] = '\0';
			*src = "/proc/config.gz";
			return buf;
		}
		free(buf);
		buf = NULL;
		snprintf(why, wlen, "/proc/config.gz could not be decompressed");
	}
#else
	if (access("/proc/config.gz", R_OK) == 0)
		snprintf(why, wlen, "/proc/config.gz is there, but this pagelab was built without zlib");
#endif
	snprintf(boot, sizeof(boot), "/boot/config-%s", release);
	if (lab_read_file(boot, &buf, NULL, &e) == 0) {
		*src = boot;
		return buf;
	}
	return NULL;
}

static json_t *kernel_facts(const struct utsname *u)
{
	json_t *o = json_object(), *cfg;
	const char *src;
	char why[256];
	char *text = config_text(u->release, &src, why, sizeof(why));

	json_object_set_new(o, "release", json_string(u->release));
	json_object_set_new(o, "version", json_string(u->version));
	json_object_set_new(o, "machine", json_string(u->machine));
	cfg = json_object();
	json_object_set_new(cfg, "source", src != NULL ? json_string(src) : json_null());
	if (text != NULL)
		json_object_set_new(cfg, "options", fingerprint_config(text));
	else
		json_object_set_new(cfg, "unavailable", json_string(why));
	free(text);
	json_object_set_new(o, "config", cfg);
	return o;
}

json_t *host_fingerprint(void)
{
	cleanup_free char *zi = NULL;
	cleanup_free char *online = read_line("/sys/devices/system/cpu/online");
	json_t *o = json_object(), *thp = thp_settings();
	struct lab_error e;
	struct utsname u;
	long ps = sysconf(_SC_PAGESIZE);

	if (o == NULL)
		return NULL;
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	json_object_set_new(o, "kernel", kernel_facts(&u));
	json_object_set_new(o, "mglru", mglru());
	json_object_set_new(o, "cgroup", cgroup_facts());
	json_object_set_new(o, "page_size", json_integer(ps));
	{
		cleanup_free char *meminfo = NULL;
		struct kv_list kv = { 0 };

		if (lab_read_file("/proc/meminfo", &meminfo, NULL, &e) == 0 && kv_parse_colon(meminfo, &kv, &e) == 0)
			json_object_set_new(o, "hugetlb_page_kb", json_integer((json_int_t)kv_get0(&kv, "Hugepagesize")));
		kv_free(&kv);
	}
	json_object_set_new(thp, "hpage_pmd_size", sysfs_value(THP_DIR "/hpage_pmd_size"));
	json_object_set_new(o, "pmd_size", json_incref(json_object_get(thp, "hpage_pmd_size")));
	json_object_set_new(o, "thp", thp);
	json_object_set_new(o, "swap", swap_facts());
	json_object_set_new(o, "damon", fingerprint_damon());
	json_object_set_new(o, "zero_page", fingerprint_zero_page());
	json_object_set_new(o, "clocksource",
			    sysfs_value("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
	json_object_set_new(o, "cpus_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(o, "cpus_online_list", online != NULL ? json_string(online) : json_null());
	if (lab_read_file("/proc/zoneinfo", &zi, NULL, &e) == 0)
		json_object_set_new(o, "zones", fingerprint_thresholds(zi));
	else
		json_object_set_new(o, "zones", json_array());
	return o;
}
