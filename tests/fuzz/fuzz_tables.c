/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_tables.c — libFuzzer entry for the report's table files
 * (harness/read/report/tables.c: results/reference/tables/ *.json and the
 * <scenario>.tables.json beside a user's scenario; format in tables.md).
 *
 * An input is a tables file, written to a memfd (a regular file, so
 * lab_read_input takes it) and loaded by tfile_load, once as a file beside a
 * scenario and once as a --tables file.  A file the loader refuses must say
 * why in one line (struct lab_error: non-empty, no newline); nothing may crash,
 * leak or hit UB.  A file it takes is then built into tables over a real
 * probe result (`pagelab report --tables FILE`, Markdown and JSON, through
 * the report library), which returns 0 or a refusal that says why — never a
 * signal — and whose JSON parses.
 * An input that is not JSON is used as edits instead (most byte mutations
 * break the syntax, which the loader refuses at once): one of the tree's real
 * tables files, chosen by the first byte, with per two input bytes one of its
 * values replaced by a value of another type, by a copy of another of its
 * values (a figure's name where a step's was, a row where a string was), by
 * a string holding a newline, or removed — so the loader meets well-formed files that say odd things.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/tables/ by ctest.
 */
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "read/report/report.h"
#include "read/report/internal.h"

#include "json_edit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_BASES 32

/* Every tables file of the tree: the articles' and those beside scenarios. */
static const char *const patterns[] = {
	PAGELAB_SOURCE_DIR "/results/reference/tables/*.json",
	PAGELAB_SOURCE_DIR "/scenarios/*.tables.json",
	PAGELAB_SOURCE_DIR "/scenarios/*/*.tables.json",
	PAGELAB_SOURCE_DIR "/tests/scenarios/*.tables.json",
};

static json_t *bases[MAX_BASES];
static size_t nbases;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)argc;
	(void)argv;
	if (null >= 0 && getenv("FUZZ_TABLES_VERBOSE") == NULL)
		dup2(null, 1);
	if (null > 2)
		close(null);
	for (size_t p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
		glob_t g;

		if (glob(patterns[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc && nbases < MAX_BASES; i++) {
			json_error_t je;
			json_t *j = json_load_file(g.gl_pathv[i], 0, &je);

			if (j != NULL)
				bases[nbases++] = j;
		}
		globfree(&g);
	}
	return 0;
}

/* The first byte picks one of the real tables files, the rest edits it. */
static json_t *edited(const uint8_t *data, size_t size)
{
	if (nbases == 0 || size == 0)
		return NULL;
	return json_edit(json_deep_copy(bases[data[0] % nbases]), data, size, 1);
}

/* A refusal is one line with something in it. */
static void check_refusal(int rc, const struct lab_error *err)
{
	if (rc < 0 && (err->msg[0] == '\0' || strchr(err->msg, '\n') != NULL)) {
		fprintf(stderr, "fuzz_tables: refusal not one line: '%s'\n", err->msg);
		abort();
	}
}

/* What report --format json printed on fd (its stdout) parses as JSON. */
static void check_json(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *text;
	json_t *j;

	if (len <= 0 || lseek(fd, 0, SEEK_SET) < 0 || (text = malloc((size_t)len)) == NULL)
		return;
	if (read(fd, text, (size_t)len) == (ssize_t)len) {
		j = json_loadb(text, (size_t)len, 0, NULL);
		if (j == NULL) {
			fprintf(stderr, "fuzz_tables: report --format json printed no JSON\n");
			abort();
		}
		json_decref(j);
	}
	free(text);
}

/* The report over the probe result with the file as --tables.  An article's
 * file other than the probe's is refused whole with it (one article per
 * report), so its "article" is dropped first: its tables are still built. */
static void report_on(const char *text, size_t len)
{
	static const char result[] = PAGELAB_SOURCE_DIR "/tests/fuzz/corpus/result/probe-small.json";
	int fd = memfd_create("fuzz-report.tables.json", MFD_CLOEXEC), rc;
	json_t *doc = json_loadb(text, len, 0, NULL);
	const char *article = json_string_value(json_object_get(doc, "article"));
	char *own = NULL;
	char path[64];

	if (fd < 0) {
		json_decref(doc);
		return;
	}
	if (article != NULL && strcmp(article, "madv-free") != 0 && json_object_del(doc, "article") == 0 &&
	    (own = json_dumps(doc, JSON_COMPACT)) != NULL) {
		text = own;
		len = strlen(own);
	}
	json_decref(doc);
	if (write(fd, text, len) != (ssize_t)len) {
		free(own);
		close(fd);
		return;
	}
	free(own);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	{
		/* `pagelab report --tables FILE RESULT`, then --format json: the
		 * JSON a report prints is JSON (caught on a memfd). */
		const char *tables[] = { path }, *files[] = { result };
		struct report_options opt = { .tables = tables, .ntables = 1 };
		struct lab_error err;
		int out = memfd_create("fuzz-report.json", MFD_CLOEXEC);
		FILE *o = out >= 0 ? fdopen(dup(out), "w") : NULL;

		lab_error_clear(&err);
		rc = report_write_files(files, 1, &opt, REPORT_MARKDOWN, stdout, &err);
		if (rc > 0 || (rc < 0 && err.msg[0] == '\0'))
			abort();
		fflush(stdout);
		if (o != NULL) {
			lab_error_clear(&err);
			rc = report_write_files(files, 1, &opt, REPORT_JSON, o, &err);
			if (rc > 0 || (rc < 0 && err.msg[0] == '\0'))
				abort();
			fclose(o);
			if (rc == 0)
				check_json(out);
		}
		if (out >= 0)
			close(out);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz.tables.json", MFD_CLOEXEC), rc;
	json_t *as_json = json_loadb((const char *)data, size, 0, NULL);
	struct lab_error err = {0};
	struct tfile *tf = NULL;
	const char *text = (const char *)data;
	char *made = NULL;
	size_t len = size;
	bool took = false;

	if (fd < 0) {
		json_decref(as_json);
		return 0;
	}
	if (as_json == NULL && nbases > 0) {
		json_t *doc = edited(data, size);

		made = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
		json_decref(doc);
		if (made == NULL) {
			close(fd);
			return 0;
		}
		text = made;
		len = strlen(made);
	}
	json_decref(as_json);
	if (len > 0 && write(fd, text, len) != (ssize_t)len) {
		free(made);
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	for (int beside = 0; beside < 2; beside++) {
		lab_error_clear(&err);
		rc = tfile_load(path, beside, beside ? "fuzz.scn" : NULL, &tf, &err);
		check_refusal(rc, &err);
		if (rc == 0) {
			took = true;
			if (tf == NULL || tf->ntables == 0)
				abort();        /* a file taken has a table */
		}
		tfile_free(tf);
		tf = NULL;
	}
	close(fd);
	if (took)
		report_on(text, len);
	free(made);
	return 0;
}
