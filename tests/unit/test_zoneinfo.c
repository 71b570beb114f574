/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_zoneinfo.c — zoneinfo_parse (base/zoneinfo.h) on every
 * captured /proc/zoneinfo, then on broken input.
 *
 * What holds on any kernel pagelab supports (>= 4.6), per zone:
 *   - the name is one of mm/page_alloc.c: zone_names[];
 *   - every zone of a node is printed (mm/vmstat.c: zoneinfo_show walks with
 *     populated = false), and its protection array has MAX_NR_ZONES entries,
 *     so its length is the number of zones printed for that node;
 *   - protection[j] = 0 for j <= the zone's own index, and is non-decreasing
 *     above it (mm/page_alloc.c: setup_per_zone_lowmem_reserve sums the
 *     managed pages of the zones above and divides by one ratio);
 *   - managed <= present <= spanned (mm/mm_init.c), free <= managed, cma <= managed;
 *   - min <= low <= high, and low - min = high - low: both gaps are the same
 *     "tmp" (mm/page_alloc.c: __setup_per_zone_wmarks, since 4.6) and the
 *     boost is added to all three (min_wmark_pages() etc.);
 *   - strictly min < low < high for a zone with managed pages and min >= 4,
 *     where the gap max(min / 4, managed * scale / 10000) is at least 1.
 * Exact values are checked against the v1-6.18 capture (read by eye; note
 * deferred_init=lazy there: Normal's managed 458752 of 5505024 present).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/zoneinfo.h"
#include "unit.h"

static const char *root;

static bool known_zone(const char *name)
{
	static const char *const names[] = { "DMA", "DMA32", "Normal", "HighMem", "Movable",
					     "Device" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static const struct zone_info *find(const struct zoneinfo *zi, int node, const char *name)
{
	size_t i;

	for (i = 0; i < zi->n; i++)
		if (zi->zones[i].node == node && strcmp(zi->zones[i].name, name) == 0)
			return &zi->zones[i];
	return NULL;
}

/* The i-th zone's "vm stats threshold" lines counted and added up straight
 * from the text (independent of the parser): its CPUs and its drift. */
static void thresholds_of(const char *buf, size_t zone, unsigned *cpus, unsigned long long *sum,
			  unsigned long long *max)
{
	const char *p = buf;
	size_t seen = 0;

	*cpus = 0;
	*sum = *max = 0;
	while (p != NULL && *p) {
		const char *nl = strchr(p, '\n');
		unsigned long long v;

		if (strncmp(p, "Node ", 5) == 0)
			seen++;
		else if (seen == zone + 1 && sscanf(p, "  vm stats threshold: %llu", &v) == 1) {
			(*cpus)++;
			*sum += v;
			if (v > *max)
				*max = v;
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
}

static void check_zoneinfo(const struct unit_fixture *f)
{
	static struct zoneinfo zi;
	struct lab_error err = { 0 };
	size_t i, j, first = 0, populated = 0;

	CHECK_EQ_U64(zoneinfo_parse(f->buf, &zi, &err), 0);
	if (err.code)
		fprintf(stderr, "  %s\n", err.msg);
	CHECK(zi.n >= 1);
	for (i = 0; i < zi.n; i++) {
		const struct zone_info *z = &zi.zones[i];
		size_t idx, per_node = 0, k;

		/* Zones of a node are printed together, in zone order. */
		if (i > 0 && zi.zones[i - 1].node != z->node)
			first = i;
		idx = i - first;
		for (k = first; k < zi.n && zi.zones[k].node == z->node; k++)
			per_node++;

		CHECK(known_zone(z->name));
		CHECK_EQ_U64(z->nr_protection, per_node);
		for (j = 0; j < z->nr_protection && j <= idx; j++)
			CHECK_EQ_U64(z->protection[j], 0);
		for (j = idx + 1; j < z->nr_protection; j++)
			CHECK(z->protection[j] >= z->protection[j - 1]);
		CHECK(z->managed <= z->present);
		CHECK(z->present <= z->spanned);
		CHECK(z->free <= z->managed);
		CHECK(z->cma <= z->managed);
		CHECK(z->min <= z->low && z->low <= z->high);
		CHECK_EQ_U64(z->low - z->min, z->high - z->low);
		if (z->present > 0)
			populated++;
		if (z->managed > 0 && z->min >= 4)
			CHECK(z->min < z->low && z->low < z->high);
		/* The drift bound: every online CPU's threshold, added up
		 * (mm/vmstat.c: refresh_zone_stat_thresholds' max_drift =
		 * online CPUs x threshold); an empty zone prints none. */
		{
			unsigned cpus;
			unsigned long long sum, max;

			thresholds_of(f->buf, i, &cpus, &sum, &max);
			CHECK_EQ_U64(z->nr_threshold_cpus, cpus);
			CHECK_EQ_U64(z->drift, sum);
			CHECK_EQ_U64(z->stat_threshold, max);
			CHECK_EQ_U64(z->drift, z->stat_threshold * z->nr_threshold_cpus);
			if (z->present > 0)
				CHECK(z->nr_threshold_cpus >= 1);
			else
				CHECK_EQ_U64(z->drift, 0);
		}
	}
	CHECK(populated >= 1);

	if (strcmp(f->name, "v1-6.18") == 0) {
		const struct zone_info *dma = find(&zi, 0, "DMA");
		const struct zone_info *dma32 = find(&zi, 0, "DMA32");
		const struct zone_info *normal = find(&zi, 0, "Normal");
		const struct zone_info *movable = find(&zi, 0, "Movable");
		static const unsigned long long dma_prot[] = { 0, 3019, 4811, 4811, 4811 };

		CHECK_EQ_U64(zi.n, 5);
		CHECK_STR(zi.zones[4].name, "Device");
		CHECK(dma != NULL && dma32 != NULL && normal != NULL && movable != NULL);
		if (dma == NULL || dma32 == NULL || normal == NULL || movable == NULL)
			return;
		CHECK_EQ_U64(dma->free, 3840);
		CHECK_EQ_U64(dma->managed, 3840);
		CHECK_EQ_U64(dma->present, 3998);
		CHECK_EQ_U64(dma->spanned, 4095);
		CHECK_EQ_U64(dma->min, 52);
		CHECK_EQ_U64(dma->low, 65);
		CHECK_EQ_U64(dma->high, 78);
		CHECK_EQ_U64(dma->boost, 0);
		CHECK_EQ_U64(dma->nr_protection, 5);
		for (j = 0; j < 5; j++)
			CHECK_EQ_U64(dma->protection[j], dma_prot[j]);
		CHECK_EQ_U64(dma32->managed, 772918);
		CHECK_EQ_U64(dma32->min, 10569);
		CHECK_EQ_U64(dma32->protection[2], 1792);
		CHECK_EQ_U64(normal->free, 290631);
		CHECK_EQ_U64(normal->present, 5505024);
		CHECK_EQ_U64(normal->managed, 458752);       /* deferred_init=lazy */
		CHECK_EQ_U64(normal->high, 9409);            /* not a pageset's "high:" */
		CHECK_EQ_U64(movable->present, 0);
		CHECK_EQ_U64(movable->min, 32);              /* printed for an empty zone too */
		CHECK_EQ_U64(movable->high, 32);
		/* lowmem_reserve_ratio was "256 256 32": DMA's reserve against
		 * DMA32 allocations is DMA32's managed pages / 256, against
		 * Normal the sum of both / 256. */
		CHECK_EQ_U64(dma->protection[1], dma32->managed / 256);
		CHECK_EQ_U64(dma->protection[2], (dma32->managed + normal->managed) / 256);
		CHECK_EQ_U64(dma32->protection[2], normal->managed / 256);
		/* Two CPUs, each printing its threshold (read by eye: 4, 24, 20). */
		CHECK_EQ_U64(dma->nr_threshold_cpus, 2);
		CHECK_EQ_U64(dma->drift, 8);
		CHECK_EQ_U64(dma32->drift, 48);
		CHECK_EQ_U64(normal->stat_threshold, 20);
		CHECK_EQ_U64(normal->drift, 40);
		CHECK_EQ_U64(movable->drift, 0);
	}
}

static void test_fixtures(void)
{
	CHECK(unit_for_each_fixture(root, "proc-zoneinfo", check_zoneinfo) >= 1);
}

static void expect_err(const char *buf, const char *what)
{
	static struct zoneinfo zi;
	struct lab_error err = { 0 };

	zi.n = 7;
	CHECK_EQ_U64(zoneinfo_parse(buf, &zi, &err), -EINVAL);
	CHECK_EQ_U64(err.code, EINVAL);
	CHECK_EQ_U64(zi.n, 0);
	CHECK_CONTAINS(err.msg, what);
}

#define ZONE_HEAD "Node 0, zone      DMA\n  pages free     3840\n        boost    0\n"
#define ZONE_MARKS "        min      52\n        low      65\n        high     78\n"
#define ZONE_COUNTS "        spanned  4095\n        present  3998\n        managed  3840\n"
#define ZONE_PROT "        protection: (0, 3019)\n"
#define ZONE_OK ZONE_HEAD ZONE_MARKS ZONE_COUNTS ZONE_PROT

static void test_errors(void)
{
	char *big;
	size_t i, len, cap;

	expect_err("", "not a zoneinfo");
	expect_err("\n", "not a zoneinfo");
	expect_err("garbage\n", "line 1");
	expect_err("  pages free 1\n", "before any 'Node'");
	expect_err("Node\n", "line 1");
	expect_err("Node \n", "line 1");
	expect_err("Node x, zone DMA\n", "line 1");
	expect_err("Node -1, zone DMA\n", "line 1");
	expect_err("Node 99999999999999999999999, zone DMA\n", "line 1");
	expect_err("Node 0, zone\n", "line 1");
	expect_err("Node 0, zone \n", "bad zone name");
	expect_err("Node 0, zone ABCDEFGHIJKLMNOP\n", "bad zone name");
	expect_err("Node 0, zone DMA x\n", "bad zone name");
	expect_err("Node 0,zone DMA\n", "line 1");
	/* Truncated: a zone that stops early lacks a line it must have. */
	expect_err(ZONE_HEAD, "no 'spanned' line");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS, "no 'protection' line");
	expect_err(ZONE_HEAD "        spanned  4095\n        present  3998\n        managed  3840\n"
		   ZONE_PROT, "no 'min' line");
	expect_err(ZONE_OK "Node 0, zone    DMA32\n  pages free     7\n", "zone DMA32");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS "        protection: (0, 30", "line 10");
	/* Bad numbers. */
	expect_err(ZONE_HEAD "        min      abc\n", "line 4");
	expect_err(ZONE_HEAD "        min      -1\n", "line 4");
	expect_err(ZONE_HEAD "        min      12XB\n", "line 4");
	expect_err(ZONE_HEAD "        min      1 2\n", "line 4");
	expect_err(ZONE_HEAD "        min\n", "line 4");
	expect_err(ZONE_HEAD "        min      99999999999999999999999\n", "64 bits");
	expect_err(ZONE_HEAD "        min      5\n        min      5\n", "second 'min'");
	expect_err(ZONE_OK "  pagesets\n    cpu: 0\n  vm stats threshold: x\n", "vm stats threshold");
	expect_err(ZONE_OK "  pagesets\n    cpu: 0\n  vm stats threshold: 4 5\n", "vm stats threshold");
	expect_err("Node 0, zone DMA\n  pages free\n", "line 2");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS "        protection: ()\n", "line 10");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS "        protection: (0, -1)\n", "line 10");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS "        protection: 0, 1\n", "line 10");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS "        protection: (0, 1) x\n", "line 10");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS "        protection: (0,, 1)\n", "line 10");
	expect_err(ZONE_HEAD ZONE_MARKS ZONE_COUNTS
		   "        protection: (0, 1, 2, 3, 4, 5, 6, 7, 8)\n", "more than 8");

	/* More zones than the struct holds. */
	cap = 40 * sizeof(ZONE_OK);
	big = malloc(cap);
	CHECK(big != NULL);
	if (big != NULL) {
		for (i = 0, len = 0; i < ZONEINFO_MAX_ZONES + 1; i++) {
			memcpy(big + len, ZONE_OK, sizeof(ZONE_OK) - 1);
			len += sizeof(ZONE_OK) - 1;
		}
		big[len] = '\0';
		expect_err(big, "more than 32 zones");
		free(big);
	}
}

static void test_shapes(void)
{
	static struct zoneinfo zi;
	struct lab_error err = { 0 };

	/* A pageset's "high:" and lines after "pagesets" never touch the zone. */
	CHECK_EQ_U64(zoneinfo_parse(ZONE_OK
				    "      nr_free_pages 3840\n"
				    "  pagesets\n"
				    "    cpu: 0\n"
				    "              count:    0\n"
				    "              high:     999\n"
				    "              high      999\n"
				    "  vm stats threshold: 4\n"
				    "  node_unreclaimable:  0\n"
				    "  start_pfn:           1\n"
				    "Node 1, zone   Normal\n"
				    "  per-node stats\n"
				    "      nr_inactive_anon 24636\n"
				    "  pages free     0\n"
				    "        spanned  0\n"
				    "        present  0\n"
				    "        managed  0\n"
				    "        protection: (0, 0)", &zi, &err), 0);
	CHECK_EQ_U64(zi.n, 2);
	CHECK_EQ_U64(zi.zones[0].high, 78);
	CHECK_EQ_U64(zi.zones[0].nr_protection, 2);
	CHECK_EQ_U64(zi.zones[0].protection[1], 3019);
	CHECK_EQ_U64(zi.zones[1].node, 1);
	CHECK_STR(zi.zones[1].name, "Normal");
	/* An empty zone without watermark lines reads 0. */
	CHECK_EQ_U64(zi.zones[1].min + zi.zones[1].low + zi.zones[1].high, 0);
	CHECK_EQ_U64(zi.zones[1].cma, 0);
}

/* A constructed series of one zone (min 52, low 65) falling to its min, two
 * CPUs, the threshold dropping from 4 to 1 at the third sample as kswapd's
 * pressure threshold would (mm/vmstat.c: calculate_pressure_threshold, set
 * while kswapd is awake): the lowest sample is judged with the drift of ITS
 * moment, and a crossing within it is unresolved. */
static void test_crossing_series(void)
{
	static const struct { unsigned long long free, thr; const char *vs_min; } series[] = {
		{ 160, 4, "above" },    /* 108 over min, drift 8 */
		{ 57, 4, "unresolved" },/* 5 over, within 8 */
		{ 50, 1, "unresolved" },/* 2 under, within 2 */
		{ 49, 1, "under" },     /* 3 under, beyond 2 */
	};
	static struct zoneinfo zi;
	unsigned long long lowest = ~0ull, lowest_drift = 0;

	for (size_t i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		char text[1024];
		struct lab_error err = { 0 };

		snprintf(text, sizeof(text),
			 "Node 0, zone      DMA\n  pages free     %llu\n        boost    0\n" ZONE_MARKS ZONE_COUNTS
			 ZONE_PROT "  pagesets\n    cpu: 0\n              count: 3\n  vm stats threshold: %llu\n"
			 "    cpu: 1\n              count: 5\n  vm stats threshold: %llu\n  node_unreclaimable:  0\n",
			 series[i].free, series[i].thr, series[i].thr);
		CHECK_EQ_U64(zoneinfo_parse(text, &zi, &err), 0);
		CHECK_EQ_U64(zi.zones[0].drift, 2 * series[i].thr);
		CHECK_EQ_U64(zi.zones[0].nr_threshold_cpus, 2);
		CHECK_STR(zone_crossing(zi.zones[0].free, zi.zones[0].min, zi.zones[0].drift), series[i].vs_min);
		if (zi.zones[0].free < lowest) {
			lowest = zi.zones[0].free;
			lowest_drift = zi.zones[0].drift;
		}
	}
	CHECK_EQ_U64(lowest, 49);
	CHECK_EQ_U64(lowest_drift, 2);
	CHECK_STR(zone_crossing(lowest, 52, lowest_drift), "under");
	CHECK_STR(zone_crossing(lowest, 65, lowest_drift), "under");     /* low: 16 under */
	CHECK_STR(zone_crossing(52, 52, 0), "at");                       /* exactly on the line */
	CHECK_STR(zone_crossing(52, 52, 1), "unresolved");
	CHECK_STR(zone_crossing(51, 52, 0), "under");                    /* no drift (no SMP): exact */
}

/* The text with every number that does not continue a word and is not on
 * a "Node" line made other digits (each digit d becomes (d + shift) % 10, a
 * leading zero a 1; a 0 stays): what the kernel prints at the next read. */
static char *renumbered(const char *text, unsigned shift)
{
	char *t = strdup(text);
	bool node = false;

	for (size_t i = 0; t != NULL && t[i] != '\0'; i++) {
		bool word = i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_');

		if (i == 0 || t[i - 1] == '\n')
			node = strncmp(t + i, "Node", 4) == 0;
		if (node || word || !isdigit((unsigned char)t[i]))
			continue;
		if (t[i] == '0' && !isdigit((unsigned char)t[i + 1]))
			continue;       /* a 0 stays 0: an empty zone stays empty */
		for (bool first = true; isdigit((unsigned char)t[i]); i++, first = false) {
			t[i] = (char)('0' + (t[i] - '0' + shift) % 10);
			if (first && t[i] == '0' && isdigit((unsigned char)t[i + 1]))
				t[i] = '1';
		}
		i--;
	}
	return t;
}

/* The tick's fast path on every capture: the layout of the text reads the
 * text again, and the same text with other numbers, as the strict parse
 * does; a text with a line more, a line less or a word changed is refused
 * (the caller then parses it the strict way). */
static void check_fast(const struct unit_fixture *f)
{
	static struct zoneinfo strict, fast, made;
	struct zoneinfo_layout l = { 0 };
	struct lab_error err = { 0 };
	unsigned taken = 0;
	char *t;

	CHECK_EQ_U64(zoneinfo_layout_make(f->buf, &l, &made, &err), 0);
	CHECK(l.base != NULL && l.nr_marks > 50);
	CHECK(zoneinfo_parse(f->buf, &strict, &err) == 0 && zoneinfo_equal(&made, &strict));
	CHECK(zoneinfo_parse_fast(f->buf, strlen(f->buf), &l, &fast) && zoneinfo_equal(&fast, &strict));
	for (unsigned shift = 1; shift < 10; shift++) {
		t = renumbered(f->buf, shift);
		/* A renumbering keeps every number's digits and a 0 a 0: the
		 * strict parse reads it, and so does the fast one. */
		CHECK(zoneinfo_parse(t, &strict, &err) == 0);
		if (zoneinfo_parse_fast(t, strlen(t), &l, &fast)) {
			CHECK(zoneinfo_equal(&fast, &strict));
			taken++;
		}
		free(t);
	}
	CHECK_EQ_U64(taken, 9);         /* the numbers of nine renumberings: all read fast */
	/* A CPU gone: its "vm stats threshold" line less. */
	t = strdup(f->buf);
	{
		char *th = strstr(t, "vm stats threshold");

		if (th != NULL) {
			char *nl = strchr(th, '\n');

			memmove(th, nl + 1, strlen(nl + 1) + 1);
			CHECK(!zoneinfo_parse_fast(t, strlen(t), &l, &fast));
		}
	}
	free(t);
	/* A zone renamed, and one more line at the end. */
	t = strdup(f->buf);
	{
		char *z = strstr(t, "zone ");

		z = strpbrk(z, "DNM");
		*z = *z == 'D' ? 'N' : 'D';
		CHECK(!zoneinfo_parse_fast(t, strlen(t), &l, &fast));
	}
	free(t);
	{
		size_t n = strlen(f->buf);

		t = malloc(n + 16);
		memcpy(t, f->buf, n);
		strcpy(t + n, "  min 5\n");
		CHECK(!zoneinfo_parse_fast(t, strlen(t), &l, &fast));
		free(t);
	}
	zoneinfo_layout_free(&l);
	CHECK(!zoneinfo_parse_fast(f->buf, strlen(f->buf), &l, &fast));
}

int main(int argc, char **argv)
{
	root = unit_fixtures_root(argc, argv);
	if (root == NULL)
		return 2;
	test_fixtures();
	test_errors();
	test_crossing_series();
	test_shapes();
	CHECK(unit_for_each_fixture(root, "proc-zoneinfo", check_fast) >= 3);
	return unit_report("zoneinfo");
}
