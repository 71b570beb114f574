/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_kmsg.c — libFuzzer entry for the kernel log parsers (harness/host/kmsg.c).
 *
 * An input is what reads of /dev/kmsg returned: split at newlines into
 * records (a read returns one record, its continuation lines after it), each
 * parsed with kmsg_parse_record, the zone lines with kmsg_zone_line, and the
 * records together searched for OOM reports (kmsg_oom_kills).  Invariants:
 * texts NUL-terminated within KMSG_TEXT_MAX, at most max reports, zone counts
 * in bounds, names NUL-terminated; a kill line starts with "Killed process "
 * or a kill message, and there are never more kills than kill lines in the
 * kernel's own records (a phantom named "Killed process " is no kill).
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/kmsg/ by ctest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_RECS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kmsg_rec recs[FUZZ_RECS];
	struct kmsg_oom ooms[4];
	const char *p = (const char *)data, *end = p + size;
	size_t n = 0, k, lines = 0;

	/* The whole input as one read, then line by line. */
	if (kmsg_parse_record(p, size, &recs[0]) == 0 &&
	    strnlen(recs[0].text, KMSG_TEXT_MAX) == KMSG_TEXT_MAX)
		abort();
	while (p < end && n < FUZZ_RECS) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		if (kmsg_parse_record(p, len, &recs[n]) == 0) {
			struct kmsg_zone_line z;

			if (strnlen(recs[n].text, KMSG_TEXT_MAX) == KMSG_TEXT_MAX)
				abort();
			if (kmsg_zone_line(recs[n].text, &z) && strnlen(z.zone, sizeof(z.zone)) == sizeof(z.zone))
				abort();
			(void)kmsg_interesting(recs[n].text);
			if (kmsg_kill_line(recs[n].text, &ooms[0])) {
				if (strncmp(recs[n].text, "Killed process ", 15) != 0 &&
				    strncmp(recs[n].text, "Out of memory", 13) != 0 &&
				    strncmp(recs[n].text, "Memory cgroup out of memory: ", 29) != 0)
					abort();
				if (strnlen(ooms[0].comm, sizeof(ooms[0].comm)) == sizeof(ooms[0].comm))
					abort();
				lines += recs[n].prio < 8;
			}
			n++;
		}
		p += len;
	}
	k = kmsg_oom_kills(recs, n, ooms, 4);
	if (k > 4 || k > lines)
		abort();
	for (size_t i = 0; i < k; i++)
		if (ooms[i].nzones > KMSG_ZONES_MAX || strnlen(ooms[i].comm, sizeof(ooms[i].comm)) == sizeof(ooms[i].comm) ||
		    strnlen(ooms[i].trigger, sizeof(ooms[i].trigger)) == sizeof(ooms[i].trigger) ||
		    strnlen(ooms[i].constraint, sizeof(ooms[i].constraint)) == sizeof(ooms[i].constraint))
			abort();
	return 0;
}
