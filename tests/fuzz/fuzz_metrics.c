/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_metrics.c — libFuzzer entry for the load clients' metrics tables
 * (harness/launch/metrics.c: metrics_parse, what `pagelab run` reads from
 * DATA/metrics/NAME.json once base/trust.h has believed the directory;
 * format in metrics/README.md), and for the table then reading real output.
 *
 * An input is a table's text.  A table the reader refuses must say why in
 * one line (struct lab_error: non-empty, no newline) and hand back nothing.
 * A table it takes reads one of the load clients' outputs captured on this
 * machine kind (tests/fixtures/load/, chosen by the input's length; their
 * first 8 KiB, to a line's end) as stdout and another as stderr: the answer is an object with "metrics" (each
 * a finite "value" and a "unit" and "better" string), a boolean "valid", and
 * "invalid" a string exactly when not valid.  Its pattern compiles within
 * base/pattern.h's bounds, so no input may take the fuzzer's 2 GB; nothing
 * may crash, leak or hit UB.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/metrics/
 * and the shipped tables (metrics/) by ctest.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/fileio.h"
#include "launch/metrics.h"

#define OUTS_MAX 64
#define OUT_MAX 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static char *outs[OUTS_MAX];
static size_t nouts;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = PAGELAB_SOURCE_DIR "/tests/fixtures/load";
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	(void)argc;
	(void)argv;
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct lab_error err;
		char *buf = NULL;
		size_t len = 0;

		if (nouts < OUTS_MAX && strstr(ents[i]->d_name, ".txt") != NULL &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name) < sizeof(path) &&
		    lab_read_file(path, &buf, &len, &err) == 0) {
			/* the first OUT_MAX bytes, to the end of a line: the
			 * longer captures cost the fuzzer its inputs */
			char *nl;

			if (len > OUT_MAX) {
				buf[OUT_MAX] = '\0';
				if ((nl = strrchr(buf, '\n')) != NULL)
					nl[1] = '\0';
			}
			outs[nouts++] = buf;
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	if (nouts == 0)
		abort();        /* the fixtures are part of the tree */
	return 0;
}

static void check_answer(const json_t *r)
{
	const json_t *ms = json_object_get(r, "metrics"), *m, *valid = json_object_get(r, "valid");
	const json_t *why = json_object_get(r, "invalid");
	const char *name;

	if (!json_is_object(r) || !json_is_object(ms) || !json_is_boolean(valid))
		abort();
	if (json_is_true(valid) ? !(why == NULL || json_is_null(why)) : !json_is_string(why))
		abort();
	json_object_foreach((json_t *)ms, name, m) {
		const json_t *v = json_object_get(m, "value");

		if (name[0] == '\0' || !json_is_number(v) || !isfinite(json_number_value(v)) ||
		    !json_is_string(json_object_get(m, "unit")) || !json_is_string(json_object_get(m, "better")))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct metrics_table *t = NULL;
	struct lab_error err;
	char *text = malloc(size + 1);
	char *argv[] = { "tool", "-n", "100", NULL };
	json_t *r;
	int ret;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	lab_error_clear(&err);
	ret = metrics_parse("fuzz.json", text, &t, &err);
	free(text);
	if (ret < 0) {
		if (t != NULL || err.msg[0] == '\0' || strchr(err.msg, '\n') != NULL)
			abort();
		return 0;
	}
	if (t == NULL)
		abort();
	(void)metrics_check_args(t, argv, 3, &err);
	r = metrics_read(t, outs[size % nouts], outs[(size / 7) % nouts], 0, argv, 3);
	check_answer(r);
	json_decref(r);
	metrics_free(t);
	return 0;
}
