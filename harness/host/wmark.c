/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wmark.c — the page allocator's watermark arithmetic (see wmark.h). */
#include "wmark.h"

#include <errno.h>
#include <string.h>

/* include/linux/math.h: mult_frac(x, n, d) without overflowing x * n. */
static unsigned long long mult_frac(unsigned long long x, unsigned long long n, unsigned long long d)
{
	return (x / d) * n + ((x % d) * n) / d;
}

static bool is_highmem(const struct zone_info *z)
{
	return strcmp(z->name, "HighMem") == 0;
}

static bool is_movable(const struct zone_info *z)
{
	return strcmp(z->name, "Movable") == 0;
}

bool wmark_zone_lowmem(const struct zone_info *z)
{
	/* gfp_zone(GFP_USER) is ZONE_NORMAL: DMA, DMA32 and Normal qualify. */
	return strcmp(z->name, "DMA") == 0 || strcmp(z->name, "DMA32") == 0 ||
	       strcmp(z->name, "Normal") == 0;
}

void wmark_zone_indexes(const struct zoneinfo *zi, int *index)
{
	int node = -1, idx = 0;

	for (size_t i = 0; i < zi->n; i++) {
		if (zi->zones[i].node != node) {
			node = zi->zones[i].node;
			idx = 0;
		}
		index[i] = idx++;
	}
}

int wmark_predict(const struct zoneinfo *zi, const struct wm_params *p, struct wm_prediction *out)
{
	unsigned long long pages_min, lowmem = 0;
	int index[ZONEINFO_MAX_ZONES];

	memset(out, 0, sizeof(*out));
	if (p->page_kb == 0 || zi->n == 0)
		return -EINVAL;
	out->n = zi->n;
	wmark_zone_indexes(zi, index);
	/* __setup_per_zone_wmarks: pages_min = min_free_kbytes >> (PAGE_SHIFT - 10),
	 * split over the zones that are neither highmem nor (6.2+) movable. */
	pages_min = p->min_free_kbytes / p->page_kb;
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];

		if (!is_highmem(z) && !(p->movable_capped && is_movable(z)))
			lowmem += z->managed;
	}
	if (lowmem == 0)
		return -EINVAL;
	out->lowmem_pages = lowmem;
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		struct wm_zone *w = &out->zones[i];
		unsigned long long tmp = pages_min * z->managed / lowmem, scaled;

		w->index = index[i];
		w->capped = is_highmem(z) || (p->movable_capped && is_movable(z));
		if (w->capped) {
			/* "__GFP_HIGH and PF_MEMALLOC allocations usually don't need
			 * highmem and movable zones pages, so cap pages_min":
			 * clamp(managed / 1024, SWAP_CLUSTER_MAX, 128). */
			unsigned long long m = z->managed / 1024;

			w->min = m < 32 ? 32 : m > 128 ? 128 : m;
		} else {
			w->min = tmp;
		}
		/* The gap: max(tmp >> 2, mult_frac(managed, watermark_scale_factor,
		 * 10000)) — tmp is the proportional share even for capped zones. */
		scaled = mult_frac(z->managed, p->scale_factor, 10000);
		w->gap = (tmp >> 2) > scaled ? tmp >> 2 : scaled;
		w->gap_from_scale = scaled >= (tmp >> 2);
		w->low = w->min + w->gap;
		w->high = w->low + w->gap;
		w->promo = w->high + w->gap;
		out->wmark_low_sum += w->low;
	}
	/* setup_per_zone_lowmem_reserve, per node: zone i's protection against an
	 * allocation that could have used zone j > i is the managed pages of
	 * zones i+1..j divided by lowmem_reserve_ratio[i]; 0 when the ratio is
	 * 0 or zone i manages nothing.  The last zone has no upper zones. */
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		struct wm_zone *w = &out->zones[i];
		unsigned long long ratio = (size_t)w->index < p->nr_ratio ? p->ratio[w->index] : 0;
		unsigned long long upper = 0;
		size_t j;

		w->nr_protection = 0;
		/* Entries 0..index are 0 (a zone never protects against itself or lower). */
		for (int k = 0; k <= w->index && w->nr_protection < ZONEINFO_MAX_PROT; k++)
			w->protection[w->nr_protection++] = 0;
		for (j = i + 1; j < zi->n && zi->zones[j].node == z->node; j++) {
			upper += zi->zones[j].managed;
			if (w->nr_protection < ZONEINFO_MAX_PROT)
				w->protection[w->nr_protection++] =
					ratio == 0 || z->managed == 0 ? 0 : upper / ratio;
		}
	}
	/* calculate_totalreserve_pages: per zone, the largest protection entry
	 * plus the high line ("we treat the high watermark as reserved pages"),
	 * at most the zone's managed pages. */
	for (size_t i = 0; i < zi->n; i++) {
		struct wm_zone *w = &out->zones[i];
		unsigned long long max = 0;

		for (size_t k = (size_t)w->index; k < w->nr_protection; k++)
			if (w->protection[k] > max)
				max = w->protection[k];
		max += w->high;
		if (max > zi->zones[i].managed)
			max = zi->zones[i].managed;
		w->reserve = max;
		out->totalreserve += max;
	}
	return 0;
}

void wmark_observed(const struct zoneinfo *zi, unsigned long long *totalreserve,
		    unsigned long long *low_sum)
{
	int index[ZONEINFO_MAX_ZONES];

	*totalreserve = 0;
	*low_sum = 0;
	wmark_zone_indexes(zi, index);
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		unsigned long long max = 0;

		for (size_t k = (size_t)index[i]; k < z->nr_protection; k++)
			if (z->protection[k] > max)
				max = z->protection[k];
		/* calculate_totalreserve_pages ran when the lines were set, with the
		 * boost at 0 (boost_watermark raises it later without touching
		 * totalreserve_pages); si_mem_available's low lines include it. */
		max += z->high - (z->boost <= z->high ? z->boost : 0);
		*totalreserve += max > z->managed ? z->managed : max;
		*low_sum += z->low;
	}
}

unsigned long long wmark_free_buffer_pages(const struct zoneinfo *zi)
{
	unsigned long long sum = 0;

	/* mm/page_alloc.c: nr_free_zone_pages(gfp_zone(GFP_USER)) — managed
	 * minus high_wmark_pages (which includes the boost; /proc/zoneinfo's
	 * "high" already does) for every zone the zonelist allows. */
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];

		if (wmark_zone_lowmem(z) && z->managed > z->high)
			sum += z->managed - z->high;
	}
	return sum;
}

unsigned long long wmark_int_sqrt(unsigned long long x)
{
	unsigned long long lo = 0, hi = 1ULL << 32;

	/* The largest r with r * r <= x (binary search; no floating point). */
	while (lo < hi) {
		unsigned long long mid = lo + (hi - lo + 1) / 2;

		if (mid <= x / mid)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

unsigned long long wmark_sqrt_min_free_kb(unsigned long long free_buffer_pages, unsigned page_kb,
					  unsigned long long *raw)
{
	unsigned long long v = wmark_int_sqrt(free_buffer_pages * page_kb * 16);

	if (raw != NULL)
		*raw = v;
	/* clamp(new_min_free_kbytes, 128, 262144) */
	return v < 128 ? 128 : v > 262144 ? 262144 : v;
}

unsigned long long wmark_khugepaged_min_free_kb(unsigned long long pageblock_pages, unsigned nr_zones,
						unsigned long long free_buffer_pages, unsigned page_kb,
						bool *capped)
{
	/* "Ensure 2 pageblocks are free to assist fragmentation avoidance", then
	 * for each of the MIGRATE_PCPTYPES (3) types enough blocks to fall back
	 * into the other types: pageblock_nr_pages * nr_zones * 3 * 3. */
	unsigned long long rec = pageblock_pages * nr_zones * 2 + pageblock_pages * nr_zones * 3 * 3;
	unsigned long long cap = free_buffer_pages / 20;   /* "never more than 5% of the lowmem" */

	if (capped != NULL)
		*capped = rec > cap;
	if (rec > cap)
		rec = cap;
	return rec * page_kb;
}

unsigned wmark_populated_lowmem_zones(const struct zoneinfo *zi)
{
	unsigned n = 0;

	for (size_t i = 0; i < zi->n; i++)
		if (wmark_zone_lowmem(&zi->zones[i]) && zi->zones[i].present > 0)
			n++;
	return n;
}

long long wmark_mem_available(const struct wm_avail_in *in, unsigned long long totalreserve,
			      unsigned long long wmark_low_sum)
{
	long long avail = (long long)in->free_pages - (long long)totalreserve;
	unsigned long long pagecache = in->file_lru, reclaimable;

	/* "Assume at least half of the page cache, or the low watermark worth of
	 * cache, needs to stay." */
	pagecache -= pagecache / 2 < wmark_low_sum ? pagecache / 2 : wmark_low_sum;
	avail += (long long)pagecache;
	/* Reclaimable slab and other kernel memory, capped the same way. */
	reclaimable = in->slab_reclaimable + in->misc_reclaimable;
	reclaimable -= reclaimable / 2 < wmark_low_sum ? reclaimable / 2 : wmark_low_sum;
	avail += (long long)reclaimable;
	return avail < 0 ? 0 : avail;
}
