/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fragment.c — fragment_free_blocks (workloads/fragment.h): the free
 * PMD blocks the fragment step counts, on every captured /proc/buddyinfo with
 * the /proc/zoneinfo captured beside it.
 *
 * What must hold (workloads/fragment.c: zone_serves_thp):
 *   - a zone counts when a THP fault can take a block from it: its free
 *     pages above low + its largest protection entry + 511 (mm/page_alloc.c:
 *     zone_watermark_fast, __zone_watermark_ok with
 *     lowmem_reserve[ZONE_MOVABLE]);
 *   - in the three x86_64 captures (v1-6.18: the 24 GiB host; v2-6.1,
 *     v2-6.12: 4800 MiB guests) ZONE_DMA's reserve exceeds its free pages
 *     (4,811 / 4,576 / 4,584 against 3,840 / 3,584 / 3,584): it is left out,
 *     DMA32 and Normal count, as the step counted before it read zoneinfo
 *     (every zone but DMA);
 *   - with DMA's protection at 0 (arm64's ZONE_DMA is all RAM below 4 GiB,
 *     whose reserve is Normal's managed pages / 256: small beside it) its
 *     blocks count too;
 *   - a zone zoneinfo does not name counts for nothing.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "base/zoneinfo.h"
#include "fragment.h"
#include "unit.h"

#define PMD_ORDER 9

static const char *root;

/* The buddyinfo line's blocks of order >= 9 in PMD blocks, straight from
 * the text (independent of the code under test), or -1 if no such zone. */
static long long blocks_of(const char *buf, int node, const char *zone)
{
	for (const char *p = buf; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		char name[32];
		int n, off = 0;

		if (sscanf(p, "Node %d, zone %31s%n", &n, name, &off) == 2 && n == node && strcmp(name, zone) == 0) {
			long long sum = 0;
			const char *q = p + off;

			for (int order = 0; order <= 10; order++) {
				char *end;
				long long v = strtoll(q, &end, 10);

				if (end == q)
					break;
				if (order >= PMD_ORDER)
					sum += v << (order - PMD_ORDER);
				q = end;
			}
			return sum;
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	return -1;
}

static struct zone_info *zone_named(struct zoneinfo *zi, const char *name)
{
	for (size_t i = 0; i < zi->n; i++)
		if (zi->zones[i].node == 0 && strcmp(zi->zones[i].name, name) == 0)
			return &zi->zones[i];
	return NULL;
}

static void check_buddyinfo(const struct unit_fixture *f)
{
	static struct zoneinfo zi;
	struct lab_error err = { 0 };
	char path[PATH_MAX], zones[64];
	cleanup_free char *zbuf = NULL;
	long long dma = blocks_of(f->buf, 0, "DMA"), dma32 = blocks_of(f->buf, 0, "DMA32"),
		  normal = blocks_of(f->buf, 0, "Normal");
	struct zone_info *z;

	CHECK((size_t)snprintf(path, sizeof(path), "%s/proc-zoneinfo", f->dir) < sizeof(path));
	CHECK(lab_read_file(path, &zbuf, NULL, &err) == 0);
	if (zbuf == NULL)
		return;
	CHECK(zoneinfo_parse(zbuf, &zi, &err) == 0);
	CHECK(dma >= 1 && dma32 >= 1 && normal >= 1);
	z = zone_named(&zi, "DMA");
	CHECK(z != NULL);
	if (z == NULL)
		return;
	/* x86_64: DMA's reserve against a movable allocation is above its free pages. */
	CHECK(z->nr_protection >= 3 && z->protection[z->nr_protection - 1] > z->free);
	CHECK_EQ_U64(fragment_free_blocks(f->buf, &zi, PMD_ORDER, zones, sizeof(zones)),
		     (unsigned long long)(dma32 + normal));
	CHECK_STR(zones, "DMA32,Normal");
	/* As on arm64: a small reserve, and DMA's blocks count. */
	for (size_t i = 0; i < z->nr_protection; i++)
		z->protection[i] = 0;
	CHECK_EQ_U64(fragment_free_blocks(f->buf, &zi, PMD_ORDER, zones, sizeof(zones)),
		     (unsigned long long)(dma + dma32 + normal));
	CHECK_STR(zones, "DMA,DMA32,Normal");
	/* A zone below its low line + 511 counts for nothing. */
	z = zone_named(&zi, "Normal");
	CHECK(z != NULL);
	if (z == NULL)
		return;
	z->free = z->low + 511;
	CHECK_EQ_U64(fragment_free_blocks(f->buf, &zi, PMD_ORDER, zones, sizeof(zones)),
		     (unsigned long long)(dma + dma32));
	CHECK_STR(zones, "DMA,DMA32");
	/* A short name buffer keeps the names that fit, whole. */
	CHECK_EQ_U64(fragment_free_blocks(f->buf, &zi, PMD_ORDER, zones, 6), (unsigned long long)(dma + dma32));
	CHECK_STR(zones, "DMA");
	/* Zones zoneinfo lacks: nothing. */
	zi.n = 0;
	CHECK_EQ_U64(fragment_free_blocks(f->buf, &zi, PMD_ORDER, zones, sizeof(zones)), 0);
	CHECK_STR(zones, "");
}

int main(int argc, char **argv)
{
	root = unit_fixtures_root(argc, argv);
	if (root == NULL)
		return 2;
	CHECK(unit_for_each_fixture(root, "proc-buddyinfo", check_buddyinfo) >= 3);
	return unit_report("fragment");
}
