/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragment.h — region's `fragment:PCT` step: fragment free memory until the
 * free PMD-sized blocks could back only PCT % of the region with huge pages.
 *
 * How (fragment.c explains each kernel fact): one page is pinned in free
 * PMD-sized blocks, one block at a time — a huge page is faulted in a mapping
 * of its own (MADV_HUGEPAGE), its folio split at once by a MADV_FREE of all
 * but its first page (mm/huge_memory.c: madvise_free_huge_pmd splits a folio
 * a range covers only in part), and those pages freed by MADV_DONTNEED.  The
 * block can never be whole again while its first page is held, so each pin
 * takes one block out of the free lists for 4 KiB of memory (of the sandbox's
 * charge).  /proc/buddyinfo is read between rounds: the free blocks of
 * PMD order or more are what a THP fault can still get without compaction,
 * in the zones /proc/zoneinfo says such a fault may use (free pages above
 * the low line plus the zone's lowmem reserve: x86_64's 16 MiB ZONE_DMA is
 * left out, arm64's ZONE_DMA — all RAM below 4 GiB — counts).
 */
#ifndef PAGELAB_FRAGMENT_H
#define PAGELAB_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/zoneinfo.h"

struct fragmenter {
	unsigned char *base;            /* the pins' reservation, PMD-aligned */
	size_t blocks;                  /* its size in PMD blocks */
	size_t pmd, page_size;
	unsigned pmd_order;
	size_t pinned;                  /* blocks pinned so far */
};

struct frag_result {
	unsigned target_pct;
	unsigned long long region_blocks;       /* the region in PMD blocks */
	unsigned long long target_blocks;       /* ceil(target_pct % of them) */
	unsigned long long free_before, free_after;     /* free PMD blocks (buddyinfo) */
	unsigned long long pinned, rounds;
	unsigned predicted_pct;                 /* min(100, free_after * 100 / region_blocks) */
	bool reached;                           /* free_after <= target_blocks */
	char zones[64];                         /* the zones free_after counts: "DMA32,Normal" */
};

/* Before the lockdown: the PMD size (THP's hpage_pmd_size) and a reservation
 * of MemTotal's worth of PMD blocks (address space only, MAP_NORESERVE).
 * -EOPNOTSUPP when this kernel has no THP. */
int fragment_setup(struct fragmenter *f, size_t page_size, struct lab_error *err);

/* Pin blocks until at most target_pct % of region_bytes' blocks are free, or
 * no more progress is made.  The pins stay until the process exits. */
int fragment_run(struct fragmenter *f, unsigned long long region_bytes, unsigned target_pct,
		 struct frag_result *out, struct lab_error *err);

/* The free blocks of the PMD order or more in /proc/buddyinfo's text, in PMD
 * blocks (an order-10 block is two), of the zones whose /proc/zoneinfo entry
 * (zi, parsed) can serve a THP fault: free pages above low + the largest
 * protection entry + 2^pmd_order - 1 (fragment.c: zone_serves_thp).  A zone
 * zi lacks is not counted.  The names of the zones counted go to zones
 * ("DMA32,Normal", each once; cut short rather than overflow). */
unsigned long long fragment_free_blocks(const char *buddyinfo, const struct zoneinfo *zi, unsigned pmd_order,
					char *zones, size_t zones_len);

#endif
