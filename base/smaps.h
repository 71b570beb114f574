/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps.h — pure parser of /proc/PID/smaps for one address range.
 *
 * The region workload reads its own region's counters from /proc/self/smaps:
 * the VMA(s) lying inside [start, end) are summed, so a range that the kernel
 * split into several VMAs (e.g. around a huge-page boundary) still reads as
 * one.  VMAs only partly inside the range are an error: the caller mapped
 * guards so that its region never merges with a neighbour.
 */
#ifndef PAGELAB_SMAPS_H
#define PAGELAB_SMAPS_H

#include <stddef.h>

#include "error.h"

struct smaps_range {
	size_t nr_vmas;                 /* VMAs found inside the range */
	unsigned long long size_kb;
	unsigned long long rss_kb;
	unsigned long long lazyfree_kb;
	unsigned long long anonhuge_kb;   /* AnonHugePages */
	unsigned long long anonymous_kb;
	unsigned long long shmem_pmd_kb;  /* ShmemPmdMapped */
	unsigned long long swap_kb;
	int has_lazyfree;               /* the kernel prints LazyFree */
};

/* Returns 0, -ENOENT when no VMA lies inside the range, -EINVAL on a malformed
 * buffer or a VMA straddling the range's edge.  On an error out reads all zeros. */
int smaps_parse_range(const char *buf, unsigned long start, unsigned long end,
		      struct smaps_range *out, struct lab_error *err);

#endif
