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
 *   - Each pinned block is made MADV_NOHUGEPAGE as soon as it is pinned, so
 *     khugepaged does not collapse it into a new huge page (max_ptes_none 511
 *     would let it: one present page of 512 is enough).  Made so only at the
 *     end, the step lost 4 of its 125 pins that way on arm64's 16K kernel
 *     (thp_collapse_alloc 4: 128 MiB of full huge pages charged to the sandbox,
 *     an OOM kill at 800 MiB; 6.12.117+deb12-arm64-16k, 2026-12-02), where each
 *     pin faults and zeroes a 32 MiB folio under TCG and the step takes ~10 s,
 *     khugepaged's scan_sleep_millisecs.  Adjacent blocks' VMAs merge, so this
 *     leaves one VMA for the pins, as before.
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
#include "base/zoneinfo.h"

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

/* Whether a THP fault of the region can take a block from this zone.  The
 * fault's mask (GFP_TRANSHUGE_LIGHT, or GFP_TRANSHUGE with MADV_HUGEPAGE) is
 * GFP_HIGHUSER_MOVABLE's zone bits (include/linux/gfp_types.h), so its
 * highest_zoneidx is ZONE_MOVABLE and every populated zone is in its zonelist;
 * the fast path takes a zone only while its free pages, less the 2^order - 1
 * a block of that order leaves unusable, stay above the low line plus the
 * zone's lowmem reserve for that index (mm/page_alloc.c: __alloc_pages starts
 * at ALLOC_WMARK_LOW; zone_watermark_fast, __zone_watermark_ok:
 * free_pages <= min + z->lowmem_reserve[highest_zoneidx] fails).  The reserve
 * of index j is the managed pages of the zones above this one up to j over
 * this zone's lowmem_reserve_ratio (setup_per_zone_lowmem_reserve), so it
 * grows with j and the largest "protection" entry is ZONE_MOVABLE's
 * (ZONE_DEVICE above it manages nothing).  On x86_64 ZONE_DMA (16 MiB,
 * 3,840 pages managed) has a reserve larger than itself once the zones above
 * manage more than 256 times that (3.75 GiB): 4,576 pages against 3,584 free
 * in a 4800 MiB guest, and the fill never gets there.
 * On arm64 ZONE_DMA is all RAM below 4 GiB of physical address
 * (arch/arm64/mm/init.c: zone_sizes_init, zone_dma_bits / zone_dma_limit
 * capped at 32 bits, max_zone_phys), 3 GiB of a 4800 MiB QEMU virt guest
 * whose RAM starts at 1 GiB, with a reserve of Normal's managed pages / 256:
 * the fill takes most of its huge pages there. */
static bool zone_serves_thp(const struct zone_info *z, unsigned pmd_order)
{
	unsigned long long reserve = 0;

	for (size_t i = 0; i < z->nr_protection; i++)
		if (z->protection[i] > reserve)
			reserve = z->protection[i];
	return z->managed > 0 && z->free > z->low + reserve + (1ULL << pmd_order) - 1;
}

static const struct zone_info *zone_find(const struct zoneinfo *zi, int node, const char *name)
{
	for (size_t i = 0; i < zi->n; i++)
		if (zi->zones[i].node == node && strcmp(zi->zones[i].name, name) == 0)
			return &zi->zones[i];
	return NULL;
}

/* "DMA32,Normal": the zones counted, each name once (NUMA nodes repeat them). */
static void zones_add(char *zones, size_t len, const char *name)
{
	size_t n = strlen(name), used = strlen(zones);

	for (const char *p = zones; *p != '\0';) {
		size_t t = strcspn(p, ",");

		if (t == n && memcmp(p, name, n) == 0)
			return;
		p += t + (p[t] == ',');
	}
	if (used + (used > 0) + n + 1 > len)
		return;
	snprintf(zones + used, len - used, "%s%s", used > 0 ? "," : "", name);
}

unsigned long long fragment_free_blocks(const char *buddyinfo, const struct zoneinfo *zi, unsigned pmd_order,
					char *zones, size_t zones_len)
{
	unsigned long long blocks = 0;
	const char *p = buddyinfo;

	if (zones_len > 0)
		zones[0] = '\0';
	/* "Node 0, zone   Normal   1122   1232 …" one count per order from 0. */
	while (p != NULL && *p) {
		const char *nl = strchr(p, '\n');
		const struct zone_info *z;
		char zone[32];
		int node, off = 0;

		if (sscanf(p, "Node %d, zone %31s%n", &node, zone, &off) == 2 &&
		    (z = zone_find(zi, node, zone)) != NULL && zone_serves_thp(z, pmd_order)) {
			const char *q = p + off;

			if (zones_len > 0)
				zones_add(zones, zones_len, zone);
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

/* buddyinfo's free blocks in the zones zoneinfo says a THP fault can use,
 * both read now. */
static int free_blocks_now(const struct fragmenter *f, unsigned long long *out, char *zones, size_t zones_len,
			   struct lab_error *err)
{
	cleanup_free char *buf = NULL, *zbuf = NULL;
	struct zoneinfo *zi;
	int ret;

	if ((ret = lab_read_file("/proc/buddyinfo", &buf, NULL, err)) < 0 ||
	    (ret = lab_read_file("/proc/zoneinfo", &zbuf, NULL, err)) < 0)
		return ret;
	zi = calloc(1, sizeof(*zi));
	if (zi == NULL)
		return lab_error_errno(err, ENOMEM, "fragment: zoneinfo");
	if ((ret = zoneinfo_parse(zbuf, zi, err)) == 0)
		*out = fragment_free_blocks(buf, zi, f->pmd_order, zones, zones_len);
	free(zi);
	return ret;
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
	if (madvise(b, f->pmd, MADV_NOHUGEPAGE) < 0)
		return lab_error_errno(err, errno, "fragment: madvise(MADV_NOHUGEPAGE) of a pinned block");
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
	if ((ret = free_blocks_now(f, &free_now, out->zones, sizeof(out->zones), err)) < 0)
		return ret;
	out->free_before = free_now;
	while (free_now > out->target_blocks && out->rounds < MAX_ROUNDS && stalls < MAX_STALLS) {
		unsigned long long want = free_now - out->target_blocks, before = free_now;

		out->rounds++;
		for (unsigned long long i = 0; i < want && f->pinned < f->blocks; i++)
			if ((ret = pin_one(f, err)) < 0)
				return ret;
		if ((ret = free_blocks_now(f, &free_now, out->zones, sizeof(out->zones), err)) < 0)
			return ret;
		stalls = free_now < before ? 0 : stalls + 1;
		if (f->pinned >= f->blocks)
			break;
	}
	/* khugepaged must not collapse a pinned block again (see the top): each
	 * one is already so; the whole range once more, in one call. */
	if (f->pinned > 0 && madvise(f->base, f->pinned * f->pmd, MADV_NOHUGEPAGE) < 0)
		return lab_error_errno(err, errno, "fragment: madvise(MADV_NOHUGEPAGE)");
	out->pinned = f->pinned;
	out->free_after = free_now;
	out->reached = free_now <= out->target_blocks;
	out->predicted_pct = out->region_blocks == 0 ? 0 :
		(unsigned)(free_now >= out->region_blocks ? 100 : free_now * 100 / out->region_blocks);
	return 0;
}
