/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragment.c — region's `fragment:PCT` step (fragment.h).
 *
 * The kernel facts it rests on (6.1.192, 6.12.117, 6.18.33):
 *   - A THP fault without MADV_HUGEPAGE under defrag=madvise allocates with
 *     GFP_TRANSHUGE_LIGHT: no direct reclaim, no compaction, no kswapd or
 *     kcompactd wake-up (mm/huge_memory.c: vma_thp_gfp_mask), so it gets a
 *     huge page only if a free block of the PMD order (or a larger one to
 *     split) is on a free list (mm/page_alloc.c: __rmqueue_smallest), else it
 *     falls back to 4 KiB pages (thp_fault_fallback).
 *   - 4 KiB allocations take the smallest free block first (the same
 *     __rmqueue_smallest, order 0 up), so the 511 pages freed around each pin
 *     serve the small allocations that follow before any whole block is split.
 *   - A partial MADV_FREE of a PMD-mapped THP splits the folio at once
 *     (mm/huge_memory.c: madvise_free_huge_pmd: next - addr != HPAGE_PMD_SIZE ->
 *     split_folio / split_huge_page in 6.1); MADV_DONTNEED then frees the split
 *     pages at once.  A MADV_DONTNEED alone would only split the PMD and leave
 *     the folio on the deferred-split queue, its memory still allocated.
 *   - Compaction can move a pinned page away (it is movable anonymous memory):
 *     proactive compaction (vm.compaction_proactiveness, default 20) would
 *     start on a node this fragmented, so a scenario that fragments sets it to
 *     0 through the journal; a THP fault that may compact (MADV_HUGEPAGE, or
 *     defrag always/defer) undoes part of it — which is what those settings do.
 *   - The pins' mapping is made MADV_NOHUGEPAGE once done, so khugepaged does
 *     not collapse a pinned block into a new huge page (max_ptes_none 511
 *     would let it: one present page of 512 is enough).
 */
#include "fragment.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/fileio.h"
#include "base/kv.h"

#define MAX_ROUNDS 64
#define MAX_STALLS 3

int fragment_setup(struct fragmenter *f, size_t page_size, struct lab_error *err)
{
	unsigned long long pmd = 0;
	cleanup_free char *meminfo = NULL;
	struct kv_list kv = { 0 };
	unsigned long long total_kb;
	uintptr_t p;
	size_t len;
	int ret;

	memset(f, 0, sizeof(*f));
	f->page_size = page_size;
	if (lab_read_u64("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &pmd, err) < 0 || pmd < page_size)
		return lab_error_set(err, EOPNOTSUPP, "fragment: no THP on this kernel (no hpage_pmd_size)");
	f->pmd = (size_t)pmd;
	while (((size_t)page_size << f->pmd_order) < f->pmd)
		f->pmd_order++;
	if ((ret = lab_read_file("/proc/meminfo", &meminfo, NULL, err)) < 0)
		return ret;
	if ((ret = kv_parse_colon(meminfo, &kv, err)) < 0)
		return ret;
	total_kb = kv_get0(&kv, "MemTotal");
	kv_free(&kv);
	f->blocks = (size_t)(total_kb * 1024 / f->pmd) + 1;
	len = (f->blocks + 1) * f->pmd;
	p = (uintptr_t)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if ((void *)p == MAP_FAILED)
		return lab_error_errno(err, errno, "fragment: reserve %zu bytes", len);
	f->base = (unsigned char *)((p + f->pmd - 1) & ~(uintptr_t)(f->pmd - 1));
	if (madvise(f->base, f->blocks * f->pmd, MADV_HUGEPAGE) < 0)
		return lab_error_errno(err, errno, "fragment: madvise(MADV_HUGEPAGE)");
	return 0;
}

unsigned long long fragment_free_blocks(const char *buddyinfo, unsigned pmd_order)
{
	unsigned long long blocks = 0;
	const char *p = buddyinfo;

	/* "Node 0, zone   Normal   1122   1232 …" one count per order from 0. */
	while (p != NULL && *p) {
		const char *nl = strchr(p, '\n');
		char zone[32];
		int node, off = 0;

		if (sscanf(p, "Node %d, zone %31s%n", &node, zone, &off) == 2 && strcmp(zone, "DMA") != 0) {
			const char *q = p + off;

			for (unsigned order = 0;; order++) {
				char *end;
				unsigned long long n = strtoull(q, &end, 10);

				if (end == q || (nl != NULL && end > nl))
					break;
				if (order >= pmd_order && order - pmd_order < 32)
					blocks += n << (order - pmd_order);
				q = end;
			}
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	return blocks;
}

static int free_blocks_now(const struct fragmenter *f, unsigned long long *out, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	int ret = lab_read_file("/proc/buddyinfo", &buf, NULL, err);

	if (ret < 0)
		return ret;
	*out = fragment_free_blocks(buf, f->pmd_order);
	return 0;
}

/* One block: fault it (a huge page when one is free), split its folio by a
 * partial MADV_FREE, free all but its first page. */
static int pin_one(struct fragmenter *f, struct lab_error *err)
{
	unsigned char *b = f->base + f->pinned * f->pmd;

	b[0] = 0x46;
	if (madvise(b + f->page_size, f->pmd - f->page_size, MADV_FREE) < 0)
		return lab_error_errno(err, errno, "fragment: madvise(MADV_FREE) of a pinned block");
	if (madvise(b + f->page_size, f->pmd - f->page_size, MADV_DONTNEED) < 0)
		return lab_error_errno(err, errno, "fragment: madvise(MADV_DONTNEED) of a pinned block");
	f->pinned++;
	return 0;
}

int fragment_run(struct fragmenter *f, unsigned long long region_bytes, unsigned target_pct,
		 struct frag_result *out, struct lab_error *err)
{
	unsigned long long free_now;
	unsigned stalls = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (f->base == NULL)
		return lab_error_set(err, EINVAL, "fragment: not set up");
	out->target_pct = target_pct;
	out->region_blocks = (region_bytes + f->pmd - 1) / f->pmd;
	out->target_blocks = (out->region_blocks * target_pct + 99) / 100;
	if ((ret = free_blocks_now(f, &free_now, err)) < 0)
		return ret;
	out->free_before = free_now;
	while (free_now > out->target_blocks && out->rounds < MAX_ROUNDS && stalls < MAX_STALLS) {
		unsigned long long want = free_now - out->target_blocks, before = free_now;

		out->rounds++;
		for (unsigned long long i = 0; i < want && f->pinned < f->blocks; i++)
			if ((ret = pin_one(f, err)) < 0)
				return ret;
		if ((ret = free_blocks_now(f, &free_now, err)) < 0)
			return ret;
		stalls = free_now < before ? 0 : stalls + 1;
		if (f->pinned >= f->blocks)
			break;
	}
	/* khugepaged must not collapse a pinned block again (see the top). */
	if (f->pinned > 0 && madvise(f->base, f->pinned * f->pmd, MADV_NOHUGEPAGE) < 0)
		return lab_error_errno(err, errno, "fragment: madvise(MADV_NOHUGEPAGE)");
	out->pinned = f->pinned;
	out->free_after = free_now;
	out->reached = free_now <= out->target_blocks;
	out->predicted_pct = out->region_blocks == 0 ? 0 :
		(unsigned)(free_now >= out->region_blocks ? 100 : free_now * 100 / out->region_blocks);
	return 0;
}
