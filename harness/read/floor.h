/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floor.h — what kind of figure `pagelab compare` judges, and how much a
 * timing moves by itself on this machine (docs/compare-floor.md).
 *
 * A figure is a count or a timing:
 *   - a count (pages, kB, MiB, bytes, events, lines) is exact: two sets at the
 *     same settings give the same figure to a few pages, so compare keeps its
 *     test (Welch's t AND the LKP rule at --threshold);
 *   - a timing (ns, µs, ms, s and every rate: MiB/s, req/s, …) drifts with the
 *     machine — a shared host, a busy neighbour, the CPU's clock — so on top
 *     of that test its change must be above its noise floor: the relative
 *     spread an A/A calibration saw for it on this host, else the default
 *     floor (FLOOR_DEFAULT_PCT, measured: docs/compare-floor.md).
 * Which one: the row's own "class" in its tables file
 * (harness/read/report/tables.md), else its unit (floor_classify's list).
 *
 * The calibration file ("pagelab.floor/1", `pagelab compare --calibrate`)
 * holds, per timing figure, the spread of two or more sets run at the same
 * settings, and the identity of the machine they ran on (kernel release,
 * machine, CPU model and online count, and host.fingerprint when the results
 * carry one).  It is untrusted input: root reads it only where base/trust.h
 * believes the path, at most FLOOR_FILE_MAX bytes, every key checked.
 */
#ifndef PAGELAB_FLOOR_H
#define PAGELAB_FLOOR_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

#define FLOOR_SCHEMA "pagelab.floor/1"
#define FLOOR_DEFAULT_PATH "results/floor.json"   /* relative to the current directory */
#define FLOOR_FILE_MAX (1ULL << 20)
#define FLOOR_FIGURES_MAX 4096
#define FLOOR_SPREAD_MAX 1000.0         /* % */
/* The floor of a timing no calibration covers: a factor of 2 either way.
 * Ten A/A pairs of madv-free/pressure (3 runs a set, quarter size) on the
 * 2-vCPU 6.18 host: stall p50 sits near 20 or near 40 µs run by run, so the
 * twenty sets' p50 spans 19-53 µs, and the medians of nine of the ten
 * pairs were within 1.24x of each other, of the tenth 2.85x
 * (docs/compare-floor.md has the numbers). */
#define FLOOR_DEFAULT_PCT 100.0

enum floor_class { FLOOR_COUNT, FLOOR_TIMING };

/* The class of a figure: declared ("count" / "timing", the row's "class")
 * wins; else its unit: no unit (an event count) and the units of size and
 * number are counts, time units and rates ("/s") timings, and a unit not on
 * the list is a timing (the stricter test; declare "class" to say
 * otherwise).  *why (may be NULL): "declared", "unit", "no unit" or
 * "unit not known". */
enum floor_class floor_classify(const char *declared, const char *unit, const char **why);
const char *floor_class_name(enum floor_class c);       /* "count", "timing" */

/* Is a timing's change from base to new above floor_pct?  Both medians
 * positive: the larger over the smaller, less 1 (a halving and a doubling are
 * both 100 %), so a floor above 100 % still lets a decrease through; else
 * the change relative to |base| (a base of 0 and a new that is not: above). */
bool floor_above(double base_median, double new_median, double floor_pct);

/* Who measured: the identity a calibration is bound to. */
struct floor_host {
	char kernel[128];
	char machine[32];
	char cpu_model[128];            /* "" with has_model false: not recorded */
	long long cpus;                 /* -1: not recorded */
	char fingerprint[128];          /* "" with has_fingerprint false */
	bool has_model, has_fingerprint;
};

/* A result document's host (host.kernel, machine, cpu.model, cpu.online,
 * fingerprint).  -EINVAL with err filled when it has no host.kernel. */
int floor_host_of(const json_t *result, const char *path, struct floor_host *h, struct lab_error *err);

/* Equal?  When not, why names the first difference ("kernel 6.1.1 vs 6.18.44"). */
bool floor_host_same(const struct floor_host *a, const struct floor_host *b, char *why, size_t len);

struct floor_figure {
	char *table, *row, *figure;
	double spread_pct;
};

struct floor {
	char path[512];
	struct floor_host host;
	struct floor_figure *figs;
	size_t n;
};

/* Read and check a calibration file: trusted path (base/trust.h), a regular
 * file of at most FLOOR_FILE_MAX bytes, JSON without duplicate keys, schema
 * FLOOR_SCHEMA, no unknown key, every value of its type and range, no figure
 * twice.  -ENOENT when it does not exist; -EINVAL (bad content), -EPERM
 * (untrusted path) or another -errno, err naming the file and why. */
int floor_load(const char *path, struct floor **out, struct lab_error *err);
/* floor_load's checks of the text alone (the fuzz target's entry). */
int floor_parse(const char *path, const char *text, size_t len, struct floor **out, struct lab_error *err);
void floor_free(struct floor *f);

/* The spread calibrated for a figure; false when the file has none. */
bool floor_lookup(const struct floor *f, const char *table, const char *row, const char *figure, double *pct);

/* A calibration document from a pagelab.compare/1 comparison of sets at the
 * same settings (cmp: compare_sides' document): per timing figure with at
 * least STATS_MIN_REPEATS values a side, the pooled median, min, max, the
 * change between the sets' medians and spread_pct = (max / min - 1) x 100
 * (every value positive; capped at FLOOR_SPREAD_MAX): no two medians of
 * these runs are further apart than that, in floor_above's measure.
 * NULL with err filled: -EINVAL when no timing figure qualifies. */
json_t *floor_calibration(const json_t *cmp, const struct floor_host *host, const char *scenario,
			  const char *const *files, size_t n, struct lab_error *err);

#endif
