/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zoneinfo.h — pure parser of /proc/zoneinfo.
 *
 * Per zone: the free count and the three watermark lines as the kernel
 * computed them (mm/page_alloc.c: __setup_per_zone_wmarks), the boost
 * (mm/page_alloc.c: boost_watermark), the page counts, and the lowmem
 * protection array (mm/page_alloc.c: setup_per_zone_lowmem_reserve).
 * All values are in pages.
 */
#ifndef PAGELAB_ZONEINFO_H
#define PAGELAB_ZONEINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define ZONEINFO_MAX_ZONES 32
#define ZONEINFO_MAX_PROT 8

struct zone_info {
	int node;
	char name[16];                  /* "DMA", "DMA32", "Normal", "Movable", "Device" */
	unsigned long long free;        /* "pages free" */
	unsigned long long boost, min, low, high;
	unsigned long long spanned, present, managed, cma;
	size_t nr_protection;
	unsigned long long protection[ZONEINFO_MAX_PROT];
	/* The per-CPU counter threshold, "vm stats threshold", printed once per
	 * online CPU in each populated zone's pagesets (CONFIG_SMP; mm/vmstat.c:
	 * zoneinfo_show_print).  A CPU folds its pending difference of a zone
	 * counter into the global one only past it (__mod_zone_page_state), so
	 * "pages free" as printed (zone_page_state: the global value, not the
	 * snapshot) is within drift pages of the true count:
	 * drift = the sum of the CPUs' thresholds = threshold x online CPUs
	 * (refresh_zone_stat_thresholds: max_drift).  The threshold changes
	 * while kswapd is awake (calculate_pressure_threshold): read it with
	 * every sample.  0 CPUs (no such line): no per-CPU drift. */
	unsigned long long stat_threshold;      /* the largest of the CPUs' */
	unsigned nr_threshold_cpus;
	unsigned long long drift;
};

struct zoneinfo {
	size_t n;
	struct zone_info zones[ZONEINFO_MAX_ZONES];
};

/* A free count read against a watermark line, with free's drift bound:
 * "under" or "above" only when the whole bound lies on that side; a
 * difference of at most drift pages is "unresolved" — the true count may be
 * on either side of the line, so it is no crossing; "at" exactly on it
 * with no drift (a kernel without per-CPU counters). */
const char *zone_crossing(unsigned long long free_pages, unsigned long long line, unsigned long long drift);

/* Returns 0 or -EINVAL naming the line (and out->n = 0).  Zones with nothing
 * present still appear (present = managed = 0).  The kernel prints watermark
 * lines for them too, but they mean nothing (6.18's empty Movable zone reads
 * min = low = high = 32); where an empty zone lacks them they read 0. */
int zoneinfo_parse(const char *buf, struct zoneinfo *out, struct lab_error *err);

/* The tick's fast path.  /proc/zoneinfo prints the same lines all boot
 * long (until a CPU or a node comes or goes); only its numbers change.  A
 * layout is one parse's text cut at each number, with what the parse read
 * from it (a zone's field, a protection entry, a CPU's threshold) or
 * nothing.  zoneinfo_parse_fast then compares a new text's words with the
 * layout's and reads the numbers it needs, in one pass and no search: true
 * with out filled as zoneinfo_parse would fill it.  Any other difference
 * (a word, a line, a number of more than 18 digits, a zone that became
 * populated or empty) is false, and the caller parses the strict way and
 * makes a new layout (tests/fuzz/fuzz_parsers.c checks both agree). */
struct zl_slot {
	unsigned short zone;
	unsigned char field, idx;
};
struct zoneinfo_layout {
	char *text;                     /* the text it was cut from */
	size_t len, nr_marks;
	unsigned *seg_off, *seg_len;    /* nr_marks + 1 words, each before a number */
	struct zl_slot *slot;           /* per number */
	struct zoneinfo *base;          /* its parse; NULL: no layout */
};
/* zoneinfo_parse of buf into out, and a layout of it in l (replacing what l
 * held; none when out of memory).  Returns zoneinfo_parse's result. */
int zoneinfo_layout_make(const char *buf, struct zoneinfo_layout *l, struct zoneinfo *out, struct lab_error *err);
bool zoneinfo_parse_fast(const char *buf, size_t len, const struct zoneinfo_layout *l, struct zoneinfo *out);
/* Whether a and b hold the same zones, every field zoneinfo_parse fills
 * (what the fast path is held to: tests/unit, tests/fuzz). */
bool zoneinfo_equal(const struct zoneinfo *a, const struct zoneinfo *b);
void zoneinfo_layout_free(struct zoneinfo_layout *l);

#endif
