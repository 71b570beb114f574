/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pageflags.h — region's `pageflags` step: the region's present pages
 * counted by their /proc/kpageflags bits (Documentation/admin-guide/mm/pagemap.rst,
 * include/uapi/linux/kernel-page-flags.h), the page frames found through
 * /proc/self/pagemap.  Needs CAP_SYS_ADMIN: without it pagemap reads the
 * frame numbers as 0 (fs/proc/task_mmu.c: pagemap_read, show_pfn) and
 * kpageflags cannot be opened; the step then says so instead of counting.
 *
 * Reading kpageflags takes no reference on the folio (fs/proc/page.c:
 * stable_page_flags in 6.1 and 6.12, snapshot_page in 6.18), so the count
 * cannot itself be the transient reference that turns a lazily freed THP
 * swap-backed (kernel-facts lead A).
 */
#ifndef PAGELAB_PAGEFLAGS_H
#define PAGELAB_PAGEFLAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

struct pageflags {
	int pagemap_fd, kpageflags_fd;  /* -1: not open */
	char why[160];                  /* why not, when not */
};

struct pageflags_count {
	bool available;
	unsigned long long pages, present, no_pfn;
	unsigned long long lru, active, dirty, anon, swapbacked, lazyfree, thp, compound_head, zero_page,
		unevictable;
};

/* Before the lockdown: open both files (pread64 is allowed to the region for
 * this step).  Never fails: a file that cannot be opened is recorded in why. */
void pageflags_open(struct pageflags *pf);

int pageflags_count(struct pageflags *pf, const unsigned char *start, size_t size, size_t page_size,
		    struct pageflags_count *out, struct lab_error *err);

#endif
