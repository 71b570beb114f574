/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_result_read.c — the streaming reader of result documents and streams
 * (harness/result/read.h), on a real run's pair: tests/fixtures/results/
 * read-pair.json and read-pair.jsonl, the document and the stream of one
 * `pagelab run madv-free/probe --set region=16M --set memory_max=64M
 * --repeat 2` on this host (6.18, cgroup v1; two runs, so a run's last
 * sample is not the document's last).
 *
 * Expected: with no need, the yajl-built document equals jansson's whole
 * load (json_equal); with a need, every sample but each run's last holds only
 * t_ms, cause and the paths asked (a path's object only the keys asked; a
 * prefix keeps the keys that start with it), each run's last sample is whole,
 * and everything else of the document equals the whole load; the stream,
 * assembled, has the document's runs with the same samples, steps and
 * actions.  A stream cut by a kill reads up to the cut (status interrupted).
 * A document that is not JSON is refused with the byte offset and line of the
 * fault; a FIFO and a directory are refused before a byte is read; nesting
 * past jansson's depth is refused.  The writer's held lines (result.h:
 * result_stream_hold) reach the stream only when flushed, in order, before
 * the line that flushed them.  Files made here live in a private mktemp
 * directory.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include <jansson.h>

#include "result/result.h"
#include "result/read.h"
#include "unit.h"

static char dir[] = "/tmp/test_result_read.XXXXXX";

static const char *at(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

/* doc without runs[].samples (a copy). */
static json_t *without_samples(const json_t *doc)
{
	json_t *c = json_deep_copy(doc);
	size_t i;
	json_t *run;

	json_array_foreach(json_object_get(c, "runs"), i, run)
		json_object_del(run, "samples");
	return c;
}

static void check_pruned(const json_t *whole, const json_t *pruned)
{
	size_t r, i;
	json_t *run;

	json_array_foreach(json_object_get(whole, "runs"), r, run) {
		const json_t *ws = json_object_get(run, "samples");
		const json_t *ps = json_object_get(json_array_get(json_object_get(pruned, "runs"), r), "samples");
		size_t n = json_array_size(ws);

		CHECK(n >= 3);
		CHECK_EQ_U64(json_array_size(ps), n);
		CHECK(json_equal(json_array_get(ws, n - 1), json_array_get(ps, n - 1)));
		for (i = 0; i + 1 < n; i++) {
			const json_t *w = json_array_get(ws, i), *p = json_array_get(ps, i), *v;
			const char *k;

			CHECK(json_equal(json_object_get(w, "t_ms"), json_object_get(p, "t_ms")));
			json_object_foreach((json_t *)p, k, v)
				CHECK(!strcmp(k, "t_ms") || !strcmp(k, "cause") || !strcmp(k, "memcg") ||
				      !strcmp(k, "vmstat_delta") || !strcmp(k, "zones"));
			/* each zone keeps the selector's keys and the field */
			{
				const json_t *wz = json_object_get(w, "zones"), *pz = json_object_get(p, "zones");
				size_t z;
				json_t *e;

				CHECK_EQ_U64(json_array_size(pz), json_array_size(wz));
				json_array_foreach((json_t *)pz, z, e) {
					const json_t *we = json_array_get(wz, z);

					CHECK_EQ_U64(json_object_size(e), 3);
					CHECK(json_equal(json_object_get(e, "zone"), json_object_get(we, "zone")));
					CHECK(json_equal(json_object_get(e, "node"), json_object_get(we, "node")));
					CHECK(json_equal(json_object_get(e, "free"), json_object_get(we, "free")));
				}
			}
			if (json_object_get(w, "memcg") != NULL) {
				CHECK_EQ_U64(json_object_size(json_object_get(p, "memcg")), 1);
				CHECK(json_equal(json_object_get(json_object_get(w, "memcg"), "usage_bytes"),
						 json_object_get(json_object_get(p, "memcg"), "usage_bytes")));
			}
			json_object_foreach(json_object_get((json_t *)w, "vmstat_delta"), k, v) {
				bool want = !strncmp(k, "allocstall_", 11) || !strcmp(k, "pgscan_kswapd") ||
					    !strcmp(k, "pgfault");
				const json_t *got = json_object_get(json_object_get(p, "vmstat_delta"), k);

				CHECK(want ? json_equal(v, got) : got == NULL);
			}
		}
	}
	{
		json_t *a = without_samples(whole), *b = without_samples(pruned);

		CHECK(json_equal(a, b));
		json_decref(a);
		json_decref(b);
	}
}

static void check_need_algebra(void)
{
	struct result_need *a = result_need_new(), *b = result_need_new();
	struct lab_error err;

	CHECK(result_need_add(a, "memcg", &err) == 0);
	CHECK(result_need_add(b, "memcg.usage_bytes", &err) == 0);
	CHECK(result_need_covers(a, b));
	CHECK(!result_need_covers(b, a));
	CHECK(result_need_add(b, "psi.some", &err) == 0);
	CHECK(!result_need_covers(a, b));
	CHECK(result_need_merge(a, b, &err) == 0);
	CHECK(result_need_covers(a, b));
	result_need_all(b);
	CHECK(!result_need_covers(a, b));
	CHECK(result_need_covers(b, a));
	result_need_free(a);
	result_need_free(b);
}

static void check_bad(const char *name, const char *text, const char *want1, const char *want2)
{
	struct lab_error err = { 0 };
	json_t *doc = NULL;

	write_file(at(name), text, strlen(text));
	CHECK(result_read(at(name), NULL, &doc, NULL, &err) == -EINVAL);
	CHECK(doc == NULL);
	CHECK_CONTAINS(err.msg, name);
	CHECK_CONTAINS(err.msg, want1);
	CHECK_CONTAINS(err.msg, want2);
	CHECK(strchr(err.msg, '\n') == NULL);
}

/* The stream's text so far (a static buffer). */
static const char *stream_text(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Held lines (result.h: result_stream_hold): not in the file until a flush,
 * then before the line that caused it, in the order they were made; the
 * last ones written by result_close. */
static void test_stream_hold(void)
{
	struct result *r = NULL;
	struct lab_error err = { 0 };
	char jl[PATH_MAX];

	CHECK(result_open(at("held.json"), "test/held", &r, &err) == 0);
	if (r == NULL)
		return;
	snprintf(jl, sizeof(jl), "%s", result_stream_path(r));
	result_stream(r, "first", -1, NULL);
	result_stream_hold(r, "{\"type\":\"h1\"}\n", 14);
	result_stream_hold(r, "{\"type\":\"h2\"}\n", 14);
	CHECK_EQ_U64(result_stream_held(r), 2);
	CHECK_STR(stream_text(jl), "{\"type\":\"first\"}\n");
	result_stream_text(r, "{\"type\":\"now\"}\n", 15);
	CHECK_EQ_U64(result_stream_held(r), 0);
	CHECK_STR(stream_text(jl), "{\"type\":\"first\"}\n{\"type\":\"h1\"}\n{\"type\":\"h2\"}\n{\"type\":\"now\"}\n");
	result_stream_hold(r, "{\"type\":\"h3\"}\n", 14);
	result_stream_flush(r);
	CHECK(strstr(stream_text(jl), "{\"type\":\"now\"}\n{\"type\":\"h3\"}\n") != NULL);
	result_stream_hold(r, "{\"type\":\"h4\"}\n", 14);
	result_stream_hold(r, "no newline", 10);     /* refused: a line ends in '\n' */
	CHECK(result_stream_error(r, &err) == -EINVAL);
	result_close(r);
	CHECK(strstr(stream_text(jl), "{\"type\":\"h3\"}\n{\"type\":\"h4\"}\n") != NULL);
	CHECK(strstr(stream_text(jl), "no newline") == NULL);
	unlink(jl);
	unlink(at("held.json"));
}

int main(int argc, char **argv)
{
	char pair[PATH_MAX], stream[PATH_MAX];
	struct result_need *need = result_need_new();
	struct result_read_info info;
	struct lab_error err = { 0 };
	json_t *whole, *doc = NULL, *pruned = NULL, *assembled = NULL;
	json_error_t je;

	if (argc < 2 || mkdtemp(dir) == NULL)
		return fprintf(stderr, "usage: test_result_read FIXTURES\n"), 2;
	unsetenv("PAGELAB_READ");
	snprintf(pair, sizeof(pair), "%s/results/read-pair.json", argv[1]);
	snprintf(stream, sizeof(stream), "%s/results/read-pair.jsonl", argv[1]);
	whole = json_load_file(pair, 0, &je);
	CHECK(whole != NULL);
	CHECK_EQ_U64(json_array_size(json_object_get(whole, "runs")), 2);

	/* no need: the same document as jansson's */
	CHECK(result_read(pair, NULL, &doc, &info, &err) == 0);
	CHECK(json_equal(whole, doc));
	CHECK(!info.stream);
	CHECK_EQ_U64(info.runs, 2);
	json_decref(doc);
	doc = NULL;

	/* a need: only that, and each run's last sample whole */
	CHECK(result_need_add(need, "memcg.usage_bytes", &err) == 0);
	CHECK(result_need_add(need, "zones[zone=Normal,node=0].free", &err) == 0);
	CHECK(result_need_add(need, "vmstat_delta.pgscan_kswapd+pgfault", &err) == 0);
	CHECK(result_need_add(need, "vmstat_delta.allocstall_*", &err) == 0);
	CHECK(result_read(pair, need, &pruned, NULL, &err) == 0);
	if (pruned != NULL)
		check_pruned(whole, pruned);
	check_need_algebra();

	/* the stream: the document's runs, samples, steps and actions */
	CHECK(result_read(stream, NULL, &assembled, &info, &err) == 0);
	CHECK(info.stream && info.finished && !info.cut);
	if (assembled != NULL) {
		size_t r;
		json_t *run;

		CHECK_EQ_U64(json_array_size(json_object_get(assembled, "runs")), 2);
		json_array_foreach(json_object_get(whole, "runs"), r, run) {
			const json_t *a = json_array_get(json_object_get(assembled, "runs"), r);

			CHECK(json_equal(json_object_get(run, "samples"), json_object_get(a, "samples")));
			CHECK(json_equal(json_object_get(run, "steps"), json_object_get(a, "steps")));
			CHECK(json_equal(json_object_get(run, "actions"), json_object_get(a, "actions")));
			CHECK(json_equal(json_object_get(run, "label"), json_object_get(a, "label")));
			CHECK(json_equal(json_object_get(json_object_get(run, "exit"), "outcome"),
					 json_object_get(json_object_get(a, "exit"), "outcome")));
		}
		CHECK(json_equal(json_object_get(whole, "host"), json_object_get(assembled, "host")));
		CHECK(json_object_get(assembled, "status") == NULL);
	}

	/* a stream cut by a kill in the middle of a line */
	{
		char *text = NULL;
		size_t len = 0, cut;
		json_t *part = NULL;

		CHECK(lab_read_file(stream, &text, &len, &err) == 0);
		cut = len / 2;
		write_file(at("cut.jsonl"), text, cut);
		CHECK(result_read(at("cut.jsonl"), need, &part, &info, &err) == 0);
		CHECK(info.stream && !info.finished);
		CHECK(info.samples > 0);
		CHECK_STR(json_string_value(json_object_get(part, "status")), "interrupted");
		json_decref(part);
		free(text);
	}

	/* not JSON: where, in one line */
	check_bad("eof.json", "{\"schema\":\"pagelab.result/1\",\n\"runs\":[", "at byte 38", "line 2");
	check_bad("token.json", "{\"schema\":\"pagelab.result/1\",\n\"x\":[1,2,}", "line 2", "parse error");
	check_bad("garbage.json", "{\"schema\":\"pagelab.result/1\"} x", "at byte", "trailing garbage");
	check_bad("schema.json", "{\"schema\":\"pagelab.report/1\"}", "not a pagelab.result/1 document",
		  "pagelab.report/1");
	check_bad("bigint.json", "{\"schema\":\"pagelab.result/1\",\"n\":99999999999999999999}", "at byte",
		  "too big integer");
	check_bad("nul.json", "{\"schema\":\"pagelab.result/1\",\"s\":\"a\\u0000b\"}", "at byte", "\\u0000");
	check_bad("nohead.jsonl", "{\"type\":\"sample\",\"run\":0,\"t_ms\":1}\n", "nohead.jsonl", "before the header");
	{
		size_t n = 3000;
		char *deep = malloc(2 * n + 1);

		memset(deep, '[', n);
		memset(deep + n, ']', n);
		deep[2 * n] = '\0';
		check_bad("deep.json", deep, "at byte", "depth");
		free(deep);
	}

	/* not a regular file: refused before a byte is read, without blocking */
	CHECK(mkfifo(at("fifo.json"), 0600) == 0);
	CHECK(result_read(at("fifo.json"), NULL, &doc, NULL, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "a FIFO");
	CHECK(result_read(dir, NULL, &doc, NULL, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "a directory");
	CHECK(result_read(at("missing.json"), NULL, &doc, NULL, &err) == -ENOENT);

	test_stream_hold();
	json_decref(whole);
	json_decref(pruned);
	json_decref(assembled);
	result_need_free(need);
	{
		static const char *const made[] = { "cut.jsonl", "eof.json", "token.json", "garbage.json", "schema.json",
						    "bigint.json", "nul.json", "nohead.jsonl", "deep.json", "fifo.json" };

		for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
			unlink(at(made[i]));
		rmdir(dir);
	}
	return unit_report("result_read");
}
