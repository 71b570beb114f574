/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_journal.c — libFuzzer entry for the knob journal reader (harness/host/knobs.c).
 *
 * The journal is data a crashed run (or anyone who could write it) left: an
 * input is a journal's text, parsed as `pagelab restore` parses it, and every
 * record checked as restore checks it before acting — a knob record typed and
 * range-checked through knobdef's table, a swap file record matched against
 * pagelab's own naming.  Nothing is written: restore_one is not called.
 * Invariants: at most MAX_RECORDS records, names and values NUL-terminated,
 * a refused line numbered.  The static functions are reached by including
 * knobs.c itself.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/journal/ by ctest.
 */
#include <stdint.h>

#include "host/knobs.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct record recs[MAX_RECORDS];
	struct knob_journal j = { .path = "/nonexistent/pagelab-fuzz/journal", .dir = "/nonexistent/pagelab-fuzz",
				  .lock_fd = -1, .fd = -1 };
	char *text = malloc(size + 1), typed[256], why[256];
	long long user = -1;
	size_t bad = 0;
	bool written;
	pid_t pid;
	int n;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	n = journal_parse(text, recs, MAX_RECORDS, &pid, &user, &written, &bad);
	if (n == -EINVAL && bad == 0)
		abort();
	if (n > MAX_RECORDS)
		abort();
	for (int i = 0; i < n; i++) {
		const struct knob_def *d;
		struct lab_error err = { 0 };

		if (strnlen(recs[i].name, sizeof(recs[i].name)) == sizeof(recs[i].name) ||
		    strnlen(recs[i].value, sizeof(recs[i].value)) == sizeof(recs[i].value))
			abort();
		switch (recs[i].kind) {
		case REC_KNOB:
			d = knob_def_find(recs[i].name);
			if (d != NULL && knob_def_value(d, recs[i].value, typed, sizeof(typed), &err) == 0 &&
			    strnlen(typed, sizeof(typed)) == sizeof(typed))
				abort();
			break;
		case REC_SWAPFILE:
			/* A path outside the journal's directory is never pagelab's. */
			if (own_swapfile(&j, recs[i].name, why, sizeof(why)) &&
			    strncmp(recs[i].name, "/nonexistent/pagelab-fuzz/swapfile-", 35) != 0)
				abort();
			break;
		case REC_SWAPOFF:
			break;
		}
	}
	free(text);
	return 0;
}
