/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fingerprint_diff.c — what compare names as "also different" between two
 * sides (harness/read/report/fingerprint.c: report_fingerprint_diff), on fingerprints
 * shaped like the ones Debian's 6.1 and 6.12 guests record
 * (harness/result/result.md, host.fingerprint): MGLRU off against on, no
 * mTHP against a 64 kB size, the same everything else.
 *
 * What is expected, and why:
 *   - exactly the fields whose text differs, in the base's order and then the
 *     new side's own (a size only 6.12 has is "absent" on 6.1);
 *   - with --by kernel the release and version are what is compared, so not
 *     named; the cgroup count changes from run to run and is never named;
 *   - two documents of one side that disagree make that field "mixed";
 *   - a side without a fingerprint is said, not taken as "nothing differs";
 *   - a knob a run set is that run's value: 6.12 with lru_gen pinned to
 *     0x0000 against 6.1 (0x0000 by default) names no MGLRU field, and a
 *     side whose runs set it both ways is "mixed".
 */
#include <jansson.h>

#include "read/report/report.h"
#include "unit.h"

static json_t *doc(const char *release, const char *lru, bool on, const char *mthp, int ncg)
{
	json_t *fp = json_pack("{s:{s:s, s:s}, s:{s:s, s:b}, s:{s:{s:I}}, s:i, s:{s:s, s:o}}",
			       "kernel", "release", release, "version", "#1 SMP",
			       "mglru", "enabled", lru, "on", on,
			       "cgroup", "proc_cgroups_memory", "num_cgroups", (json_int_t)ncg, "page_size", 4096,
			       "thp", "enabled", "madvise", "mthp", json_object());

	if (fp != NULL && mthp != NULL)
		json_object_set_new(json_object_get(json_object_get(fp, "thp"), "mthp"), mthp, json_string("never"));
	return json_pack("{s:{s:s, s:o}}", "host", "kernel", release, "fingerprint", fp);
}

/* The i-th difference's field, base and new text. */
static void check_diff(const json_t *r, size_t i, const char *field, const char *b, const char *n)
{
	const json_t *x = json_array_get(json_object_get(r, "different"), i);

	CHECK(x != NULL);
	CHECK_STR(json_string_value(json_object_get(x, "field")), field);
	CHECK_STR(json_string_value(json_object_get(x, "base")), b);
	CHECK_STR(json_string_value(json_object_get(x, "new")), n);
}

int main(void)
{
	json_t *b[2] = { doc("6.1.0-57-amd64", "0x0000", false, NULL, 40), doc("6.1.0-57-amd64", "0x0000", false, NULL, 41) };
	json_t *n[1] = { doc("6.12.117+deb12-amd64", "0x0007", true, "64kB", 90) };
	json_t *r;

	/* By kernel: MGLRU and the 64 kB size, nothing else. */
	r = report_fingerprint_diff(b, 2, n, 1, "kernel");
	CHECK(r != NULL);
	CHECK(json_is_true(json_object_get(r, "base")) && json_is_true(json_object_get(r, "new")));
	CHECK_EQ_U64(json_array_size(json_object_get(r, "different")), 4);
	check_diff(r, 0, "mglru.enabled", "0x0000", "0x0007");
	check_diff(r, 1, "mglru.on", "false", "true");
	check_diff(r, 2, "thp.mthp", "{}", "absent");
	check_diff(r, 3, "thp.mthp.64kB", "absent", "never");
	json_decref(r);

	/* Two files given as sides without --by: the release is named too. */
	r = report_fingerprint_diff(b, 1, n, 1, NULL);
	CHECK_EQ_U64(json_array_size(json_object_get(r, "different")), 5);
	check_diff(r, 0, "kernel.release", "6.1.0-57-amd64", "6.12.117+deb12-amd64");
	json_decref(r);

	/* One side mixing MGLRU on and off. */
	json_t *m[2] = { b[0], n[0] };
	r = report_fingerprint_diff(m, 2, n, 1, "kernel");
	check_diff(r, 0, "mglru.enabled", "mixed", "0x0007");
	json_decref(r);

	/* The same machine on both sides: nothing. */
	r = report_fingerprint_diff(b, 1, b + 1, 1, NULL);
	CHECK_EQ_U64(json_array_size(json_object_get(r, "different")), 0);
	json_decref(r);

	/* A side without one: said. */
	json_t *old = json_pack("{s:{s:s}}", "host", "kernel", "6.1.0-57-amd64");
	r = report_fingerprint_diff(&old, 1, n, 1, NULL);
	CHECK(json_is_false(json_object_get(r, "base")) && json_is_true(json_object_get(r, "new")));
	json_decref(r);
	json_decref(old);

	/* MGLRU pinned off in 6.12's runs (and one run of 6.1's on). */
	json_t *pin = json_pack("{s:{s:[{s:s, s:s}]}}", "knobs", "applied", "name", "lru_gen", "after", "0x0000");
	json_object_set_new(n[0], "runs", json_pack("[O, O]", pin, pin));
	r = report_fingerprint_diff(b, 2, n, 1, "kernel");
	CHECK_EQ_U64(json_array_size(json_object_get(r, "different")), 2);
	check_diff(r, 0, "thp.mthp", "{}", "absent");
	json_decref(r);
	json_t *on = json_pack("{s:{s:[{s:s, s:s}]}}", "knobs", "applied", "name", "lru_gen", "after", "0x0007");
	json_object_set_new(b[0], "runs", json_pack("[{}, O]", on));
	r = report_fingerprint_diff(b, 1, n, 1, "kernel");
	check_diff(r, 0, "mglru.enabled", "mixed", "0x0000");
	check_diff(r, 1, "mglru.on", "mixed", "false");
	json_decref(r);
	json_decref(pin);
	json_decref(on);

	json_decref(b[0]);
	json_decref(b[1]);
	json_decref(n[0]);
	return unit_report("fingerprint_diff");
}
