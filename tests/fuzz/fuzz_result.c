/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_result.c — libFuzzer entry for `pagelab report`'s result-document reader
 * (harness/read/report/: the loader, the run index, the engine, the formats).
 *
 * An input is a result document: handed to the report library
 * (report_load + report_write, as `pagelab report` calls them) exactly as a
 * user's file would be (a memfd, which is a regular file, so lab_read_input
 * takes it), once as Markdown and once as JSON, written to stdout on
 * /dev/null.  A document that is not one is refused (-errno and a one-line
 * message, never empty); nothing may crash, leak or hit UB.
 * An input that is not JSON is used as edits instead (most byte mutations
 * break the syntax, which the loader refuses at once): a real probe result
 * (tests/fuzz/corpus/result/probe-small.json) with, per two input bytes, one
 * of its values replaced by a value of another type or removed — so the
 * engine meets numbers that are strings, arrays that are null, runs without
 * samples.
 *
 * Every input also goes, as it is, through the streaming reader
 * (harness/result/read.c) both whole and pruned to a need, and must give
 * exactly what jansson's whole load gives whenever jansson takes it as a
 * result document (a differential check of the yajl builder); and, written
 * to a private NAME.jsonl, through the report as a run's stream.
 *
 * Built and run by scripts/fuzz; replayed on tests/fuzz/regress/result/ by ctest.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "read/report/report.h"
#include "json_edit.h"
#include "result/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static json_t *base;
static char stream_path[64];
static struct result_need *need;

/* The private directory goes with the process (the replays run in ctest). */
static void stream_dir_remove(void)
{
	char *slash;

	if (stream_path[0] == '\0')
		return;
	unlink(stream_path);
	if ((slash = strrchr(stream_path, '/')) != NULL) {
		*slash = '\0';
		rmdir(stream_path);
	}
	stream_path[0] = '\0';
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	json_error_t je;

	(void)argc;
	(void)argv;
	if (null >= 0 && getenv("FUZZ_RESULT_VERBOSE") == NULL)
		dup2(null, 1);
	base = json_load_file(PAGELAB_SOURCE_DIR "/tests/fuzz/corpus/result/probe-small.json", 0, &je);
	{
		char dir[] = "/tmp/fuzz-result.XXXXXX";
		struct lab_error err;

		if (mkdtemp(dir) != NULL) {
			snprintf(stream_path, sizeof(stream_path), "%s/run.jsonl", dir);
			atexit(stream_dir_remove);
		}
		need = result_need_new();
		if (need != NULL) {
			result_need_add(need, "memcg.usage_bytes", &err);
			result_need_add(need, "zones[zone=Normal].free", &err);
			result_need_add(need, "vmstat_delta.pgscan_kswapd+pgscan_direct", &err);
			result_need_add(need, "vmstat_delta.allocstall_*", &err);
		}
	}
	return 0;
}

/* The report of one file, as `pagelab report [--format json] PATH` makes
 * it: 0, or a refusal that says why. */
static void report_file(const char *path, enum report_format fmt)
{
	struct report_options opt = { 0 };
	struct lab_error err;
	int rc;

	lab_error_clear(&err);
	rc = report_write_files(&path, 1, &opt, fmt, stdout, &err);
	if (rc > 0 || (rc < 0 && err.msg[0] == '\0'))
		abort();
	fflush(stdout);
}

static json_t *edited(const uint8_t *data, size_t size)
{
	return base != NULL ? json_edit(json_deep_copy(base), data, size, 0) : NULL;
}

/* The streaming reader against jansson on the input as it is. */
static void differential(const uint8_t *data, size_t size, const json_t *as_json)
{
	const char *schema = json_string_value(json_object_get(as_json, "schema"));
	struct lab_error err;
	json_t *whole = NULL, *pruned = NULL;
	int a = result_read_buffer("fuzz", (const char *)data, size, NULL, &whole, &err);
	int b = result_read_buffer("fuzz", (const char *)data, size, need, &pruned, &err);

	if ((a == 0) != (b == 0))
		abort();
	if (json_is_object(as_json) && schema != NULL && strcmp(schema, "pagelab.result/1") == 0 &&
	    (a != 0 || !json_equal(whole, (json_t *)as_json)))
		abort();
	json_decref(whole);
	json_decref(pruned);
}

/* The input as a run's stream (NAME.jsonl), through report. */
static void as_stream(const uint8_t *data, size_t size)
{
	int fd;

	if (stream_path[0] == '\0')
		return;
	fd = open(stream_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (size > 0 && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	close(fd);
	report_file(stream_path, REPORT_MARKDOWN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd = memfd_create("fuzz-result.json", MFD_CLOEXEC);
	json_error_t je;
	json_t *as_json = json_loadb((const char *)data, size, 0, &je);

	differential(data, size, as_json);
	as_stream(data, size);
	if (fd < 0) {
		json_decref(as_json);
		return 0;
	}
	if (as_json != NULL || base == NULL) {
		json_decref(as_json);
		if (size > 0 && write(fd, data, size) != (ssize_t)size) {
			close(fd);
			return 0;
		}
	} else {
		json_t *doc = edited(data, size);
		char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;

		json_decref(doc);
		if (text == NULL || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
			free(text);
			close(fd);
			return 0;
		}
		free(text);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	report_file(path, REPORT_MARKDOWN);
	report_file(path, REPORT_JSON);
	close(fd);
	return 0;
}
