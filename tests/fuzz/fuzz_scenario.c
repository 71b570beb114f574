/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_scenario.c — libFuzzer entry for the scenario parser (harness/plan/parse.c, instantiate.c).
 *
 * An input is a scenario file: parsed, then every variant (at most 26) typed
 * and checked against a 24 GiB machine, as `pagelab run` does before touching
 * the host.  Beyond "no crash, no leak, no UB": a refusal names the file
 * ("fuzz.scn:") and says something; an accepted variant has a label, a
 * positive sandbox limit and argv vectors that end in NULL.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/scenario/ by ctest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_error err = { 0 };
	struct scenario s;
	char *text = malloc(size + 1);
	size_t nv;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (scenario_parse("fuzz.scn", text, &s, &err) < 0) {
		if (strncmp(err.msg, "fuzz.scn", 8) != 0 || strlen(err.msg) < 10)
			abort();
		free(text);
		return 0;
	}
	s.machine_bytes = 24ULL << 30;
	s.machine_what = "fuzz machine";
	/* A --set of a parameter the input may name, as a user would. */
	if (s.nr_params > 0) {
		char set[96];

		snprintf(set, sizeof(set), "%.40s=64M", s.params[0].name);
		(void)scenario_override(&s, set, &err);
	}
	nv = scenario_nr_variants(&s);
	for (size_t v = 0; v < nv && v < 26; v++) {
		struct run_spec r;

		if (scenario_instantiate(&s, v, 24ULL << 30, &r, &err) == 0) {
			if (r.label[0] != (char)('A' + v) || r.sandbox.val[SB_MEMORY_MAX] == 0)
				abort();
			for (size_t w = 0; w < r.nr_workloads; w++)
				if (r.workloads[w].argc <= 0 || r.workloads[w].argc >= SCN_MAX_ARGS ||
				    r.workloads[w].argv[r.workloads[w].argc] != NULL)
					abort();
		} else if (strncmp(err.msg, "fuzz.scn", 8) != 0) {
			abort();
		}
		run_spec_free(&r);
	}
	scenario_free(&s);
	free(text);
	return 0;
}
