/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fingerprint.h — what a result's figures depend on besides the kernel's name:
 * the host's "fingerprint" object (harness/result/result.md, "The host's
 * fingerprint").  Two results whose fingerprints differ in a field were measured
 * on machines that differ in it, whether or not anybody meant to vary it: the
 * LRU (MGLRU on or off), the cgroup version and its memory controllers,
 * memory_recursiveprot, THP and its khugepaged and mTHP settings, swap and
 * zswap, DAMON's monitors, page and PMD size, the CPUs online, each zone's per-CPU counter
 * threshold, the kernel's exact release and the config options that matter.
 *
 * Everything here only reads; a file the kernel does not have is null (or
 * "absent"), never an error.  The parsers take buffers, so the unit test runs
 * them on captured files (tests/unit/test_fingerprint.c). */
#ifndef PAGELAB_FINGERPRINT_H
#define PAGELAB_FINGERPRINT_H

#include <stddef.h>
#include <jansson.h>

/* The options of a kernel config (the text of /proc/config.gz or
 * /boot/config-RELEASE) that change what pagelab measures (fingerprint.c:
 * config_wanted), as {"CONFIG_LRU_GEN": "y", "CONFIG_MEMCG_V1": "n", …}:
 * "n" for "# CONFIG_X is not set", strings without their quotes.  An option the
 * config does not mention is absent. */
json_t *fingerprint_config(const char *text);

/* Each populated zone's "vm stats threshold" lines of /proc/zoneinfo (one per
 * online CPU, mm/vmstat.c: zoneinfo_show_print), as
 * [{"node", "zone", "stat_threshold": [cpu0, cpu1, …]}]. */
json_t *fingerprint_thresholds(const char *zoneinfo);

/* The options of the first cgroup2 mount in a /proc/self/mounts text
 * ("rw,nosuid,nodev,noexec,relatime,memory_recursiveprot"), or NULL. */
json_t *fingerprint_cgroup2_options(const char *mounts);

/* /proc/cgroups' row of controller name ("memory"): {"hierarchy", "num_cgroups",
 * "enabled"}, or null. */
json_t *fingerprint_proc_cgroups(const char *text, const char *name);

/* DAMON's monitors (fingerprint.c: "damon"): {"kdamonds": [{"state",
 * "contexts": [{"operations", "sample_us", "aggr_us", "schemes": [{"action",
 * "min_age", "max_nr_accesses", "quota_bytes", "quota_ms", "filters"}]}]}] or
 * "absent", "modules": {"damon_reclaim": "Y"|"N"|"absent", …}}. */
json_t *fingerprint_damon(void);

/* What a read of never-written private anonymous memory maps, tried:
 * "zero page" (the shared zero page, Rss unmoved) or "allocate" (a page of
 * its own); null when it could not be tried. */
json_t *fingerprint_zero_page(void);

/* The whole object, read now. */
json_t *host_fingerprint(void);

#endif
