/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wmark.h — the page allocator's watermark arithmetic, done the kernel's way
 * on numbers read from /proc, as pure functions (buffers and structs in,
 * numbers out).  `pagelab audit` prints what they predict beside what the
 * kernel shows; the unit tests run them on the captured fixtures.
 *
 * Every formula cites the kernel function it copies (6.x unless said):
 *   mm/page_alloc.c  __setup_per_zone_wmarks        min/low/high/promo per zone
 *                    setup_per_zone_lowmem_reserve  the protection arrays
 *                    calculate_totalreserve_pages   totalreserve_pages
 *                    calculate_min_free_kbytes      int_sqrt(lowmem_kb * 16), [128, 262144]
 *                    nr_free_zone_pages             "lowmem" = sum(managed - high)
 *   mm/khugepaged.c  set_recommended_min_free_kbytes  pageblocks x zones x 11
 *   mm/show_mem.c    si_mem_available               MemAvailable
 * All counts are in pages unless a name says _kb.
 */
#ifndef PAGELAB_WMARK_H
#define PAGELAB_WMARK_H

#include <stdbool.h>
#include <stddef.h>

#include "base/zoneinfo.h"

/* What the lines are computed from. */
struct wm_params {
	unsigned long long min_free_kbytes;     /* /proc/sys/vm/min_free_kbytes */
	unsigned long long scale_factor;        /* /proc/sys/vm/watermark_scale_factor */
	size_t nr_ratio;                        /* /proc/sys/vm/lowmem_reserve_ratio, by zone index */
	unsigned long long ratio[ZONEINFO_MAX_PROT];
	unsigned page_kb;                       /* PAGE_SIZE >> 10: 4 on x86-64 */
	/* Since 6.2 ZONE_MOVABLE takes the highmem rule for min (managed/1024
	 * clamped to [32, 128]) and is left out of lowmem_pages (commit "mm:
	 * treat ZONE_MOVABLE like highmem for the min watermark"); before, it got
	 * its proportional share like any lowmem zone. */
	bool movable_capped;
};

/* One zone's lines as the kernel would compute them now. */
struct wm_zone {
	unsigned long long min, low, high, promo;
	unsigned long long gap;                 /* low - min = high - low */
	bool gap_from_scale;                    /* managed * scale / 10000 beat min / 4 */
	bool capped;                            /* highmem/movable rule: managed / 1024 in [32, 128] */
	int index;                              /* zone index within its node (0 = DMA on x86-64) */
	size_t nr_protection;
	unsigned long long protection[ZONEINFO_MAX_PROT];
	unsigned long long reserve;             /* this zone's share of totalreserve_pages */
};

struct wm_prediction {
	size_t n;                               /* = zoneinfo n, same order */
	struct wm_zone zones[ZONEINFO_MAX_ZONES];
	unsigned long long lowmem_pages;        /* the divisor of the min split */
	unsigned long long totalreserve;        /* sum of the zones' reserve */
	unsigned long long wmark_low_sum;       /* sum of low lines, every zone (si_mem_available) */
};

/* Zone index within its node, from the node's listing order in zoneinfo. */
void wmark_zone_indexes(const struct zoneinfo *zi, int *index);

/* Is the zone at most ZONE_NORMAL (what GFP_USER/GFP_KERNEL can use)? */
bool wmark_zone_lowmem(const struct zone_info *z);

/* __setup_per_zone_wmarks + setup_per_zone_lowmem_reserve +
 * calculate_totalreserve_pages over the zones' managed pages as they are now.
 * Returns 0, or -EINVAL when there is nothing to divide by. */
int wmark_predict(const struct zoneinfo *zi, const struct wm_params *p, struct wm_prediction *out);

/* totalreserve_pages and the sum of the low lines as the kernel has them now,
 * from zi's own lines and protection arrays (what si_mem_available uses). */
void wmark_observed(const struct zoneinfo *zi, unsigned long long *totalreserve,
		    unsigned long long *low_sum);

/* nr_free_buffer_pages(): sum over zones <= ZONE_NORMAL of managed - (high +
 * boost), where positive, using the lines in zi as they are now. */
unsigned long long wmark_free_buffer_pages(const struct zoneinfo *zi);

/* floor(sqrt(x)), as lib/math/int_sqrt.c. */
unsigned long long wmark_int_sqrt(unsigned long long x);

/* calculate_min_free_kbytes: int_sqrt(lowmem_kb * 16) clamped to [128, 262144]
 * (what the kernel sets when THP is off and no larger user value was written;
 * *raw gets the value before the clamp, may be NULL). */
unsigned long long wmark_sqrt_min_free_kb(unsigned long long free_buffer_pages, unsigned page_kb,
					  unsigned long long *raw);

/* set_recommended_min_free_kbytes: pageblock_pages x zones x (2 + 3 x 3),
 * capped at 5 % of nr_free_buffer_pages, in kB.  nr_zones counts populated
 * zones at most ZONE_NORMAL (for_each_populated_zone, every node). *capped
 * (may be NULL) says whether the 5 % cap decided it. */
unsigned long long wmark_khugepaged_min_free_kb(unsigned long long pageblock_pages, unsigned nr_zones,
						unsigned long long free_buffer_pages, unsigned page_kb,
						bool *capped);

/* Populated zones at most ZONE_NORMAL (the khugepaged formula's nr_zones). */
unsigned wmark_populated_lowmem_zones(const struct zoneinfo *zi);

/* si_mem_available in pages, from the vmstat counters it reads. */
struct wm_avail_in {
	unsigned long long free_pages;          /* nr_free_pages */
	unsigned long long file_lru;            /* nr_active_file + nr_inactive_file */
	unsigned long long slab_reclaimable;    /* nr_slab_reclaimable */
	unsigned long long misc_reclaimable;    /* nr_kernel_misc_reclaimable */
};
long long wmark_mem_available(const struct wm_avail_in *in, unsigned long long totalreserve,
			      unsigned long long wmark_low_sum);

#endif
