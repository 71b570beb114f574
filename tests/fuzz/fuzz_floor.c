/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_floor.c — libFuzzer entry for compare's calibration file
 * (harness/read/floor.c: floor_parse, what `compare --floor FILE` reads
 * after base/trust.h has believed the path; format in harness/cmd/cli.md).
 *
 * An input is a calibration file's text.  A file the reader refuses must say
 * why in one line (struct lab_error: non-empty, no newline) and hand back
 * nothing; a file it takes holds at most FLOOR_FIGURES_MAX figures, every
 * spread within 0..FLOOR_SPREAD_MAX, no name with a control character, no
 * figure twice (floor_lookup finds each at its own spread), a host kernel;
 * nothing may crash, leak or hit UB.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/floor/ by ctest.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "read/floor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void clean_name(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct floor *f = NULL;
	struct lab_error err;
	int ret;

	lab_error_clear(&err);
	ret = floor_parse("fuzz.json", (const char *)data, size, &f, &err);
	if (ret < 0) {
		if (f != NULL || err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL)
			abort();
		return 0;
	}
	if (f == NULL || f->n > FLOOR_FIGURES_MAX || f->host.kernel[0] == '\0')
		abort();
	for (size_t i = 0; i < f->n; i++) {
		double pct;

		if (!(f->figs[i].spread_pct >= 0 && f->figs[i].spread_pct <= FLOOR_SPREAD_MAX))
			abort();
		clean_name(f->figs[i].table);
		clean_name(f->figs[i].row);
		clean_name(f->figs[i].figure);
		if (!floor_lookup(f, f->figs[i].table, f->figs[i].row, f->figs[i].figure, &pct) ||
		    pct != f->figs[i].spread_pct)
			abort();
	}
	floor_free(f);
	return 0;
}
