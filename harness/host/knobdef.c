/* SPDX-License-Identifier: GPL-2.0-or-later */
/* knobdef.c — the knobs pagelab knows (knobdef.h). */
#include "knobdef.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/size.h"

#define VM "/proc/sys/vm/"
#define THP "/sys/kernel/mm/transparent_hugepage/"
#define PA "mm/page_alloc.c: page_alloc_sysctl_table"

static const struct knob_def table[] = {
	/* The watermark knobs of the articles. */
	{ "vm.min_free_kbytes", KNOB_SYSCTL, KT_KB, VM "min_free_kbytes", 0, INT_MAX, NULL, NULL, true,
	  PA " (proc_dointvec_minmax, extra1 = SYSCTL_ZERO; no upper bound); computed at boot "
	  "by calculate_min_free_kbytes, then raised by mm/khugepaged.c: set_recommended_min_free_kbytes",
	  "a write sets user_min_free_kbytes: from then on the sqrt recomputation (THP off, "
	  "memory hotplug) never lowers it below the written value, until reboot" },
	{ "vm.watermark_scale_factor", KNOB_SYSCTL, KT_INT, VM "watermark_scale_factor", 1, 3000, NULL, "10",
	  true, PA " (extra1 = SYSCTL_ONE, extra2 = SYSCTL_THREE_THOUSAND; "
	  "static int watermark_scale_factor = 10)", NULL },
	{ "vm.watermark_boost_factor", KNOB_SYSCTL, KT_INT, VM "watermark_boost_factor", 0, INT_MAX, NULL,
	  "15000", true, PA " (extra1 = SYSCTL_ZERO; watermark_boost_factor = 15000)", NULL },
	{ "vm.lowmem_reserve_ratio", KNOB_SYSCTL, KT_INTS, VM "lowmem_reserve_ratio", 0, INT_MAX, NULL,
	  "256\t256\t32\t0\t0", true,
	  "mm/page_alloc.c: sysctl_lowmem_reserve_ratio[] (DMA 256, DMA32 256, Normal 32, "
	  "Movable 0; values below 1 are stored as 0)", NULL },
	{ "vm.swappiness", KNOB_SYSCTL, KT_INT, VM "swappiness", 0, 200, NULL, "60", true,
	  "mm/vmscan.c: vm_swappiness = 60; kernel/sysctl.c range SYSCTL_ZERO..SYSCTL_TWO_HUNDRED", NULL },
	{ "vm.compaction_proactiveness", KNOB_SYSCTL, KT_INT, VM "compaction_proactiveness", 0, 100, NULL,
	  "20", true, "mm/compaction.c: sysctl_compaction_proactiveness = 20, extra2 = SYSCTL_ONE_HUNDRED",
	  "proactive compaction (5.9+): the setting the checklist's 'vm.compact_memory=1' means" },
	{ "vm.extfrag_threshold", KNOB_SYSCTL, KT_INT, VM "extfrag_threshold", 0, 1000, NULL, "500", true,
	  "mm/compaction.c: sysctl_extfrag_threshold = 500, range 0..1000", NULL },
	{ "vm.nr_hugepages", KNOB_SYSCTL, KT_INT, VM "nr_hugepages", 0, LLONG_MAX, NULL, "0", true,
	  "mm/hugetlb_sysctl.c: hugetlb_sysctl_handler (unsigned long); default 0 unless hugepages= on the "
	  "command line", "every page reserved is taken out of MemFree and MemAvailable at once" },
	/* Others a piece of advice may name: linted, never changed by a scenario. */
	{ "vm.zone_reclaim_mode", KNOB_SYSCTL, KT_INT, VM "zone_reclaim_mode", 0, INT_MAX, NULL, "0", false,
	  "mm/vmscan.c: node_reclaim_mode = 0 (RECLAIM_ZONE|RECLAIM_WRITE|RECLAIM_UNMAP bits), extra1 = SYSCTL_ZERO",
	  "only matters with more than one NUMA node" },
	{ "vm.percpu_pagelist_high_fraction", KNOB_SYSCTL, KT_INT, VM "percpu_pagelist_high_fraction", 0,
	  INT_MAX, NULL, "0", false,
	  "mm/page_alloc.c: percpu_pagelist_high_fraction_sysctl_handler (0, or at least "
	  "MIN_PERCPU_PAGELIST_HIGH_FRACTION = 8; 5.14+)", NULL },
	{ "vm.overcommit_memory", KNOB_SYSCTL, KT_INT, VM "overcommit_memory", 0, 2, NULL, "0", false,
	  "mm/util.c: sysctl_overcommit_memory = OVERCOMMIT_GUESS, range 0..2", NULL },
	{ "vm.overcommit_ratio", KNOB_SYSCTL, KT_INT, VM "overcommit_ratio", 0, INT_MAX, NULL, "50", false,
	  "mm/util.c: sysctl_overcommit_ratio = 50", NULL },
	{ "vm.dirty_ratio", KNOB_SYSCTL, KT_INT, VM "dirty_ratio", 0, 100, NULL, "20", false,
	  "mm/page-writeback.c: vm_dirty_ratio = 20, range 0..100", NULL },
	{ "vm.dirty_background_ratio", KNOB_SYSCTL, KT_INT, VM "dirty_background_ratio", 0, 100, NULL, "10",
	  false, "mm/page-writeback.c: dirty_background_ratio = 10, range 0..100", NULL },
	{ "vm.vfs_cache_pressure", KNOB_SYSCTL, KT_INT, VM "vfs_cache_pressure", 0, INT_MAX, NULL, "100", false,
	  "fs/dcache.c: sysctl_vfs_cache_pressure = 100", NULL },
	{ "vm.page-cluster", KNOB_SYSCTL, KT_INT, VM "page-cluster", 0, 31, NULL, "3", false,
	  "mm/swap.c: page_cluster = 3 (swap_setup), range 0..page_cluster_max = 31", NULL },
	{ "vm.max_map_count", KNOB_SYSCTL, KT_INT, VM "max_map_count", 0, INT_MAX, NULL, "65530", false,
	  "include/linux/mm.h: DEFAULT_MAX_MAP_COUNT = 65530", NULL },
	{ "vm.defrag_mode", KNOB_SYSCTL, KT_INT, VM "defrag_mode", 0, 1, NULL, "0", false,
	  "mm/page_alloc.c: defrag_mode (6.15+), range 0..1", NULL },
	{ "vm.compact_unevictable_allowed", KNOB_SYSCTL, KT_INT, VM "compact_unevictable_allowed", 0, 1, NULL,
	  "1", false, "mm/compaction.c: sysctl_compact_unevictable_allowed (1 without PREEMPT_RT)", NULL },
	{ "vm.min_unmapped_ratio", KNOB_SYSCTL, KT_INT, VM "min_unmapped_ratio", 0, 100, NULL, "1", false,
	  "mm/page_alloc.c: sysctl_min_unmapped_ratio = 1 (NUMA only)", NULL },
	{ "vm.min_slab_ratio", KNOB_SYSCTL, KT_INT, VM "min_slab_ratio", 0, 100, NULL, "5", false,
	  "mm/page_alloc.c: sysctl_min_slab_ratio = 5 (NUMA only)", NULL },
	{ "vm.panic_on_oom", KNOB_SYSCTL, KT_INT, VM "panic_on_oom", 0, 2, NULL, "0", false,
	  "mm/oom_kill.c: sysctl_panic_on_oom = 0, range 0..2", NULL },
	{ "vm.compact_memory", KNOB_SYSCTL, KT_TRIGGER, VM "compact_memory", 1, 1, NULL, NULL, false,
	  "mm/compaction.c: sysctl_compaction_handler, mode 0200 (write-only)",
	  "a trigger: each write compacts all zones once, now; it is not a setting and cannot be "
	  "read back. Proactive compaction is vm.compaction_proactiveness (default 20)" },
	{ "vm.drop_caches", KNOB_SYSCTL, KT_TRIGGER, VM "drop_caches", 1, 4, NULL, NULL, false,
	  "fs/drop_caches.c: drop_caches_sysctl_handler, mode 0200, values 1..4",
	  "a trigger: each write drops clean caches once, now; written in sysctl.conf it empties the "
	  "page cache at every boot and changes nothing afterwards" },
	/* Transparent huge pages. */
	{ "thp", KNOB_THP, KT_ENUM, THP "enabled", 0, 0, "always|madvise|never", NULL, true,
	  "mm/huge_memory.c: enabled_store; default from CONFIG_TRANSPARENT_HUGEPAGE_{ALWAYS,MADVISE,NEVER}",
	  "a change restarts or stops khugepaged and recomputes min_free_kbytes "
	  "(mm/khugepaged.c: start_stop_khugepaged -> set_recommended_min_free_kbytes)" },
	{ "thp_defrag", KNOB_THP, KT_ENUM, THP "defrag", 0, 0, "always|defer|defer+madvise|madvise|never",
	  NULL, true, "mm/huge_memory.c: defrag_store", NULL },
	/* Per-size (multi-size, "mTHP") anon THP and shmem THP: each change restarts or stops
	 * khugepaged like "thp" (mm/huge_memory.c -> start_stop_khugepaged). Absent before
	 * 6.8 (anon) and 6.11 (per-size shmem): a journal write there fails and says so. */
	{ "thp_16k", KNOB_THP, KT_ENUM, THP "hugepages-16kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_32k", KNOB_THP, KT_ENUM, THP "hugepages-32kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_64k", KNOB_THP, KT_ENUM, THP "hugepages-64kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_128k", KNOB_THP, KT_ENUM, THP "hugepages-128kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_256k", KNOB_THP, KT_ENUM, THP "hugepages-256kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_512k", KNOB_THP, KT_ENUM, THP "hugepages-512kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_1024k", KNOB_THP, KT_ENUM, THP "hugepages-1024kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size: kept khugepaged and its min_free_kbytes on in 6.8-6.10 (hugepage_flags_enabled), no longer since 6.11 (hugepage_pmd_enabled)" },
	{ "thp_2048k", KNOB_THP, KT_ENUM, THP "hugepages-2048kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "the PMD size with 4 KiB pages: since 6.11 the only anon size that keeps khugepaged (and its min_free_kbytes) on (mm/khugepaged.c: hugepage_pmd_enabled); an mTHP size on arm64's 16K kernel, whose PMD size is 32768 kB (thp_32768k)" },
	/* Sizes above 2 MiB exist only where the PMD is larger: arm64's 16K kernel offers
	 * hugepages-64kB .. hugepages-32768kB (orders 2..11 of 16 KiB; mm/huge_memory.c:
	 * THP_ORDERS_ALL_ANON = BIT(PMD_ORDER + 1) - 1 without orders 0 and 1). */
	{ "thp_4096k", KNOB_THP, KT_ENUM, THP "hugepages-4096kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size of arm64's 16K kernel (absent with 4 KiB pages, whose largest is the PMD's 2048 kB)" },
	{ "thp_8192k", KNOB_THP, KT_ENUM, THP "hugepages-8192kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size of arm64's 16K kernel (absent with 4 KiB pages)" },
	{ "thp_16384k", KNOB_THP, KT_ENUM, THP "hugepages-16384kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "an mTHP size of arm64's 16K kernel (absent with 4 KiB pages)" },
	{ "thp_32768k", KNOB_THP, KT_ENUM, THP "hugepages-32768kB/enabled", 0, 0, "always|inherit|madvise|never",
	  NULL, true, "mm/huge_memory.c: anon_enabled_store (per-size anon THP, 6.8+; default: the PMD size inherit, the others never)",
	  "the PMD size on arm64's 16K kernel (32 MiB: 2048 entries of 16 KiB): there the only anon size that keeps khugepaged (and its min_free_kbytes) on since 6.11 (mm/khugepaged.c: hugepage_pmd_enabled); absent with 4 KiB pages" },
	{ "thp_shmem", KNOB_THP, KT_ENUM, THP "shmem_enabled", 0, 0, "always|within_size|advise|never|deny|force",
	  NULL, true, "mm/shmem.c: shmem_enabled_store (default never; deny and force are for testing)",
	  "with the PMD size's shmem_enabled at inherit, anything but never/deny keeps khugepaged on in 6.11+ "
	  "(mm/shmem.c: shmem_hpage_pmd_enabled)" },
	{ "thp_shmem_2048k", KNOB_THP, KT_ENUM, THP "hugepages-2048kB/shmem_enabled", 0, 0,
	  "always|inherit|within_size|advise|never", NULL, true,
	  "mm/shmem.c: thpsize_shmem_enabled_store (per-size shmem THP, 6.11+; default: the PMD size inherit)", NULL },
	{ "thp_shmem_32768k", KNOB_THP, KT_ENUM, THP "hugepages-32768kB/shmem_enabled", 0, 0,
	  "always|inherit|within_size|advise|never", NULL, true,
	  "mm/shmem.c: thpsize_shmem_enabled_store (per-size shmem THP, 6.11+; the PMD size on arm64's 16K kernel)",
	  NULL },
	/* The multi-generational LRU (CONFIG_LRU_GEN): which LRU reclaim uses. */
	{ "lru_gen", KNOB_SYSCTL, KT_ENUM, "/sys/kernel/mm/lru_gen/enabled", 0, 0,
	  "0x0000|0x0001|0x0003|0x0007", NULL, true,
	  "mm/vmscan.c: enabled_store (a mask: 1 MGLRU on, 2 clear accessed bits in leaf page "
	  "tables, 4 in non-leaf ones); default from CONFIG_LRU_GEN_ENABLED",
	  "0x0000 is the classic active/inactive LRU; the same workload reclaims differently "
	  "under each (Documentation/admin-guide/mm/multigen_lru.rst)" },
	/* Hugetlb reservation under the scenario's name. */
	{ "hugetlb_pages", KNOB_SYSCTL, KT_INT, VM "nr_hugepages", 0, LLONG_MAX, NULL, "0", true,
	  "vm.nr_hugepages: persistent huge pages of the default size", NULL },
	/* A swap area. */
	{ "swap", KNOB_SWAP, KT_SWAP, NULL, 0, 0, NULL, NULL, true,
	  "mm/swapfile.c: swapon(2)/swapoff(2)",
	  "SIZE: pagelab makes a swap file of SIZE beside its journal and swaps on it; off: every "
	  "active area is swapped off (and back on when restored)" },
	{ NULL, KNOB_SYSCTL, KT_INT, NULL, 0, 0, NULL, NULL, false, NULL, NULL },
};

static const struct {
	const char *name, *why;
} removed[] = {
	{ "vm.percpu_pagelist_fraction",
	  "removed in 5.14 (commit 74f44822097c \"mm/page_alloc: introduce "
	  "vm.percpu_pagelist_high_fraction\"); the per-CPU list size is now vm.percpu_pagelist_high_fraction "
	  "(0 = automatic, else at least 8) and pcp->batch is not tunable at all" },
	{ "vm.extra_free_kbytes",
	  "never in mainline: an out-of-tree patch (Android, RHEL 6/7); mainline's answer since 4.6 is "
	  "vm.watermark_scale_factor" },
	{ "vm.min_free_order_shift", "never in mainline (an Android patch)" },
};

const struct knob_def *knob_def_table(void)
{
	return table;
}

/* "vm/x", "/proc/sys/vm/x" and "x" -> "vm.x" in buf. */
static const char *canonical(const char *name, char *buf, size_t len)
{
	if (strncmp(name, "/proc/sys/vm/", 13) == 0)
		name += 13;
	else if (strncmp(name, "vm/", 3) == 0 || strncmp(name, "vm.", 3) == 0)
		name += 3;
	else
		return name;
	snprintf(buf, len, "vm.%s", name);
	return buf;
}

const struct knob_def *knob_def_find(const char *name)
{
	char buf[128];
	const char *c = canonical(name, buf, sizeof(buf));

	for (const struct knob_def *d = table; d->name; d++)
		if (strcmp(d->name, c) == 0)
			return d;
	/* A bare vm name ("swappiness"), never the special ones. */
	if (c == name && strchr(name, '.') == NULL) {
		snprintf(buf, sizeof(buf), "vm.%s", name);
		for (const struct knob_def *d = table; d->name; d++)
			if (d->kind == KNOB_SYSCTL && strcmp(d->name, buf) == 0)
				return d;
	}
	return NULL;
}

const char *knob_def_removed(const char *name)
{
	char buf[128];
	const char *c = canonical(name, buf, sizeof(buf));

	for (size_t i = 0; i < sizeof(removed) / sizeof(removed[0]); i++)
		if (strcmp(removed[i].name, c) == 0)
			return removed[i].why;
	return NULL;
}

const char *knob_def_absent_why(const struct knob_def *d)
{
	if (d->path == NULL)
		return "";
	if (!strncmp(d->path, "/sys/kernel/mm/lru_gen/", 23))
		return "a kernel built without CONFIG_LRU_GEN has no multi-generational LRU "
		       "(Debian builds it in 6.1 and 6.12; include/linux/mmzone.h)";
	if (strstr(d->path, "/hugepages-") != NULL && strstr(d->path, "shmem_enabled") != NULL)
		return "per-size shmem THP came in 6.11 (mm/shmem.c: thpsize_shmem_enabled_store)";
	if (strstr(d->path, "/hugepages-") != NULL)
		return "per-size anonymous THP (mTHP) came in 6.8, and only the sizes this page size "
		       "allows exist (mm/huge_memory.c: hugepage_init_sysfs)";
	if (!strncmp(d->path, THP, strlen(THP)))
		return "a kernel built without CONFIG_TRANSPARENT_HUGEPAGE has no THP settings";
	return "this kernel does not have it";
}

static bool all_digits(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int parse_ll(const char *s, long long *v)
{
	char *end;

	if (!all_digits(s))
		return -EINVAL;
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -ERANGE;
	return 0;
}

static int range_err(const struct knob_def *d, const char *text, struct lab_error *err)
{
	if (d->max == LLONG_MAX || d->max == INT_MAX)
		return lab_error_set(err, ERANGE, "%s: '%s' is outside the kernel's range (at least %lld; %s)",
				     d->name, text, d->min, d->source);
	return lab_error_set(err, ERANGE, "%s: '%s' is outside the kernel's range %lld..%lld (%s)", d->name,
			     text, d->min, d->max, d->source);
}

int knob_def_value(const struct knob_def *d, const char *text, char *out, size_t len,
		   struct lab_error *err)
{
	long long v;
	int n = 0;

	switch (d->type) {
	case KT_TRIGGER:
		return lab_error_set(err, EINVAL, "%s is a trigger (%s), not a setting pagelab restores",
				     d->name, d->source);
	case KT_INT:
		if (parse_ll(text, &v) < 0)
			return lab_error_set(err, EINVAL, "%s: expected a whole number, got '%s'", d->name, text);
		if (v < d->min || v > d->max)
			return range_err(d, text, err);
		n = snprintf(out, len, "%lld", v);
		break;
	case KT_KB: {
		unsigned long long bytes;
		struct lab_error e2;

		if (all_digits(text)) {
			if (parse_ll(text, &v) < 0)
				return range_err(d, text, err);
		} else {
			if (lab_parse_size(text, &bytes, &e2) < 0)
				return lab_error_set(err, EINVAL, "%s: %s (plain numbers are kB, or a size: 64M, 2G)",
						     d->name, e2.msg);
			if (bytes % 1024 != 0)
				return lab_error_set(err, EINVAL, "%s: %s is not a whole number of kB", d->name, text);
			if (bytes / 1024 > (unsigned long long)LLONG_MAX)
				return range_err(d, text, err);
			v = (long long)(bytes / 1024);
		}
		if (v < d->min || v > d->max)
			return range_err(d, text, err);
		n = snprintf(out, len, "%lld", v);
		break;
	}
	case KT_INTS: {
		size_t off = 0, count = 0;
		const char *p = text;

		out[0] = '\0';
		while (*p) {
			char word[32];
			size_t w = 0;

			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p)
				break;
			while (*p && *p != ' ' && *p != '\t' && w < sizeof(word) - 1)
				word[w++] = *p++;
			word[w] = '\0';
			if (parse_ll(word, &v) < 0)
				return lab_error_set(err, EINVAL, "%s: expected whole numbers, got '%s'", d->name, word);
			if (v < d->min || v > d->max)
				return range_err(d, word, err);
			n = snprintf(out + off, len - off, "%s%lld", count ? "\t" : "", v);
			if (n < 0 || (size_t)n >= len - off)
				return lab_error_set(err, E2BIG, "%s: value too long", d->name);
			off += (size_t)n;
			count++;
		}
		if (count == 0)
			return lab_error_set(err, EINVAL, "%s: no value", d->name);
		return 0;
	}
	case KT_ENUM: {
		size_t wl = strlen(text);

		for (const char *p = d->enums; *p;) {
			const char *bar = strchr(p, '|');
			size_t k = bar ? (size_t)(bar - p) : strlen(p);

			if (k == wl && strncmp(p, text, k) == 0) {
				n = snprintf(out, len, "%s", text);
				goto done;
			}
			p += k + (bar ? 1 : 0);
		}
		return lab_error_set(err, EINVAL, "%s: '%s' is not one of %s", d->name, text, d->enums);
	}
	case KT_SWAP: {
		unsigned long long bytes;
		struct lab_error e2;

		if (strcmp(text, "off") == 0) {
			n = snprintf(out, len, "off");
			break;
		}
		if (lab_parse_size(text, &bytes, &e2) < 0)
			return lab_error_set(err, EINVAL, "swap: expected off or a size (64M), got '%s': %s", text,
					     e2.msg);
		/* mm/swapfile.c: a swap area needs its header page and at least one
		 * more; pagelab asks for a whole number of MiB, at least 1 MiB. */
		if (bytes < (1ULL << 20) || bytes % (1ULL << 20) != 0)
			return lab_error_set(err, EINVAL, "swap: %s: a swap file is a whole number of MiB, at least 1M",
					     text);
		n = snprintf(out, len, "%llu", bytes);
		break;
	}
	}
done:
	if (n < 0 || (size_t)n >= len)
		return lab_error_set(err, E2BIG, "%s: value too long", d->name);
	return 0;
}
