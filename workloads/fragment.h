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
 * PMD order or more, outside ZONE_DMA, are what a THP fault can still get
 * without compaction.
 */
#ifndef PAGELAB_FRAGMENT_H
#define PAGELAB_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

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
 * blocks (an order-10 block is two), ZONE_DMA left out. */
unsigned long long fragment_free_blocks(const char *buddyinfo, unsigned pmd_order);

#endif
