/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zoneinfo.h — pure parser of /proc/zoneinfo.
 *
 * Per zone: the free count and the three watermark lines as the kernel
 * computed them (mm/page_alloc.c: __setup_per_zone_wmarks), the boost
 * (mm/page_alloc.c: boost_watermark), the page counts, and the lowmem
 * protection array (mm/page_alloc.c: setup_per_zone_lowmem_reserve).
 * All values are in pages.
 */
#ifndef PAGELAB_ZONEINFO_H
#define PAGELAB_ZONEINFO_H

#include <stddef.h>

#include "error.h"

#define ZONEINFO_MAX_ZONES 32
#define ZONEINFO_MAX_PROT 8

struct zone_info {
	int node;
	char name[16];                  /* "DMA", "DMA32", "Normal", "Movable", "Device" */
	unsigned long long free;        /* "pages free" */
	unsigned long long boost, min, low, high;
	unsigned long long spanned, present, managed, cma;
	size_t nr_protection;
	unsigned long long protection[ZONEINFO_MAX_PROT];
	/* The per-CPU counter threshold, "vm stats threshold", printed once per
	 * online CPU in each populated zone's pagesets (CONFIG_SMP; mm/vmstat.c:
	 * zoneinfo_show_print).  A CPU folds its pending difference of a zone
	 * counter into the global one only past it (__mod_zone_page_state), so
	 * "pages free" as printed (zone_page_state: the global value, not the
	 * snapshot) is within drift pages of the true count:
	 * drift = the sum of the CPUs' thresholds = threshold x online CPUs
	 * (refresh_zone_stat_thresholds: max_drift).  The threshold changes
	 * while kswapd is awake (calculate_pressure_threshold): read it with
	 * every sample.  0 CPUs (no such line): no per-CPU drift. */
	unsigned long long stat_threshold;      /* the largest of the CPUs' */
	unsigned nr_threshold_cpus;
	unsigned long long drift;
};

struct zoneinfo {
	size_t n;
	struct zone_info zones[ZONEINFO_MAX_ZONES];
};

/* A free count read against a watermark line, with free's drift bound:
 * "under" or "above" only when the whole bound lies on that side; a
 * difference of at most drift pages is "unresolved" — the true count may be
 * on either side of the line, so it is no crossing; "at" exactly on it
 * with no drift (a kernel without per-CPU counters). */
const char *zone_crossing(unsigned long long free_pages, unsigned long long line, unsigned long long drift);

/* Returns 0 or -EINVAL naming the line (and out->n = 0).  Zones with nothing
 * present still appear (present = managed = 0).  The kernel prints watermark
 * lines for them too, but they mean nothing (6.18's empty Movable zone reads
 * min = low = high = 32); where an empty zone lacks them they read 0. */
int zoneinfo_parse(const char *buf, struct zoneinfo *out, struct lab_error *err);

#endif
