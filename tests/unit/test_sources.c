/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sources.c — the sampler's source table (harness/sample/sources/registry.c)
 * and every source's parser on every captured fixture it names.
 *
 * Generic, so a new source needs no change here: each row is well formed
 * (a unique name, a read, a cadence, "into" naming an earlier row, a doc
 * line); each parser accepts every capture of its file under tests/fixtures
 * and its machine-wide files are captured on every kernel there (every
 * directory with a proc-vmstat), its v2 files in every v2-* directory.
 * Then exact figures of the captures (tests/fixtures/README.md says how
 * they were made), the parsers' refusals of broken input (inline, plainly
 * hand-made), and the pagemap source read live on this process: pages it
 * MADV_DONTNEEDs are reported as the ranges reclaimed, in order. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sample/sources/source.h"
#include "unit.h"

static const struct source *cur_src;
static int parsed;

static void parse_one(const struct unit_fixture *f)
{
	char path[PATH_MAX];
	cleanup_free char *buf = NULL;
	size_t len = 0;
	struct lab_error err = { 0 };
	json_t *out = NULL;

	/* Whole again, with its length: pagemap is binary. */
	snprintf(path, sizeof(path), "%s/%s", f->dir, f->file);
	CHECK(lab_read_file(path, &buf, &len, &err) == 0);
	if (buf == NULL)
		return;
	if (cur_src->parse(buf, len, &out, &err) != 0) {
		fprintf(stderr, "%s on %s/%s: %s\n", cur_src->name, f->name, f->file, err.msg);
		CHECK(!"parse failed");
	}
	CHECK(out != NULL);
	json_decref(out);
	parsed++;
}

/* How many directories under root hold a file named like prefix* (v2-*). */
static int count_dirs(const char *root, const char *prefix, const char *file)
{
	struct dirent **ents;
	int n = scandir(root, &ents, NULL, alphasort), found = 0;

	for (int i = 0; i < n; i++) {
		char p[PATH_MAX];

		if (strncmp(ents[i]->d_name, prefix, strlen(prefix)) == 0 &&
		    (size_t)snprintf(p, sizeof(p), "%s/%s/%s", root, ents[i]->d_name, file) < sizeof(p) &&
		    access(p, R_OK) == 0)
			found++;
		free(ents[i]);
	}
	free(ents);
	return found;
}

/* Directories (of a prefix) holding at least one of a source's fixture names. */
static int dirs_with_any(const char *root, const char *prefix, const char *names)
{
	struct dirent **ents;
	int n = scandir(root, &ents, NULL, alphasort), found = 0;

	for (int i = 0; i < n; i++) {
		char list[256], *save = NULL;
		bool any = false;

		snprintf(list, sizeof(list), "%s", names);
		if (strncmp(ents[i]->d_name, prefix, strlen(prefix)) == 0 && ents[i]->d_name[0] != '.')
			for (char *t = strtok_r(list, " ", &save); t && !any; t = strtok_r(NULL, " ", &save)) {
				char p[PATH_MAX];

				any = (size_t)snprintf(p, sizeof(p), "%s/%s/%s", root, ents[i]->d_name, t) < sizeof(p) &&
				      access(p, R_OK) == 0;
			}
		found += any;
		free(ents[i]);
	}
	free(ents);
	return found;
}

static void test_table(const char *root)
{
	int kernels = count_dirs(root, "", "proc-vmstat");
	int v2 = count_dirs(root, "v2-", "proc-vmstat");
	size_t n = 0;

	CHECK(kernels >= 3);
	for (size_t i = 0; source_table[i] != NULL; i++, n++) {
		const struct source *s = source_table[i];

		CHECK(s->name != NULL && *s->name != '\0');
		CHECK((s->read != NULL) != (s->emit != NULL));
		/* The tick writes text: every tick source emits (sources/jsonw.h). */
		if (s->cadence == SOURCE_TICK)
			CHECK(s->emit != NULL);
		CHECK(s->cadence == SOURCE_TICK || s->cadence == SOURCE_STEP);
		CHECK(s->where != 0);
		CHECK(s->files != NULL && *s->files != '\0');
		CHECK(s->doc != NULL && *s->doc != '\0');
		CHECK(source_find(s->name) == s);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(source_table[j]->name, s->name) != 0);
		if (s->into != NULL) {
			bool earlier = false;

			for (size_t j = 0; j < i; j++)
				earlier |= strcmp(source_table[j]->name, s->into) == 0 && source_table[j]->into == NULL;
			CHECK(earlier);
		}
		/* A source that shares another's read comes after it, on the same
		 * cadence (the read it uses was made earlier in the same sample). */
		if (s->shares != NULL) {
			bool earlier = false;

			for (size_t j = 0; j < i; j++)
				earlier |= strcmp(source_table[j]->name, s->shares) == 0 &&
					   source_table[j]->cadence == s->cadence;
			CHECK(earlier);
		}
		/* A source whose cost grows with the workloads is never on the tick. */
		if (s->where & SOURCE_WORKLOAD)
			CHECK(s->cadence == SOURCE_STEP);
		CHECK((s->parse == NULL) == (s->fixture == NULL));
		if (s->fixture == NULL)
			continue;
		printf("source %s (%s):\n", s->name, s->fixture);
		cur_src = s;
		parsed = 0;
		{
			char list[256], *save = NULL;

			snprintf(list, sizeof(list), "%s", s->fixture);
			for (char *t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save))
				unit_for_each_fixture(root, t, parse_one);
		}
		CHECK(parsed >= 1);
		/* Captured on every kernel it exists on. */
		if (s->where & (SOURCE_MACHINE | SOURCE_WORKLOAD | SOURCE_CG_V1))
			CHECK(dirs_with_any(root, "", s->fixture) >= kernels);
		else if (s->where & SOURCE_CG_V2)
			CHECK(dirs_with_any(root, "v2-", s->fixture) >= v2);
	}
	CHECK(n >= 11);
	CHECK(source_find("no-such-source") == NULL);
}

static json_t *parse_fixture(const char *root, const char *dir, const char *src, const char *file)
{
	char path[PATH_MAX];
	cleanup_free char *buf = NULL;
	size_t len = 0;
	struct lab_error err = { 0 };
	json_t *out = NULL;

	snprintf(path, sizeof(path), "%s/%s/%s", root, dir, file);
	if (lab_read_file(path, &buf, &len, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(!"fixture missing");
		return NULL;
	}
	CHECK(source_find(src)->parse(buf, len, &out, &err) == 0);
	return out;
}

static double num(const json_t *o, const char *path)
{
	char p[128], *save = NULL;
	const json_t *v = o;

	snprintf(p, sizeof(p), "%s", path);
	for (char *t = strtok_r(p, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
		v = json_is_array(v) ? json_array_get(v, (size_t)atoi(t)) : json_object_get(v, t);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The 4 MiB pagemap capture (scripts/capture/lazyfree-probe.c pagemap):
 * pages 256..511 and every odd page of 769..1023 dropped. */
static void check_pagemap(const json_t *o)
{
	CHECK_EQ_U64(num(o, "pages"), 1024);
	CHECK_EQ_U64(num(o, "present"), 640);
	CHECK_EQ_U64(num(o, "swapped"), 0);
	CHECK_EQ_U64(num(o, "present_ranges.0.0"), 0);
	CHECK_EQ_U64(num(o, "present_ranges.0.1"), 256);
	CHECK_EQ_U64(num(o, "present_ranges.1.0"), 512);
	CHECK_EQ_U64(num(o, "present_ranges.1.1"), 769);
	CHECK_EQ_U64(num(o, "present_ranges.2.0"), 770);
	CHECK_EQ_U64(json_array_size(json_object_get(o, "present_ranges")), 32);
	CHECK_EQ_U64(num(o, "ranges_dropped"), 129 - 32);   /* 2 runs + 127 single pages */
	CHECK_EQ_U64(json_array_size(json_object_get(o, "buckets")), 32);
	CHECK_EQ_U64(num(o, "buckets.0"), 32);
	CHECK_EQ_U64(num(o, "buckets.8"), 0);
	CHECK_EQ_U64(num(o, "buckets.16"), 32);
	CHECK_EQ_U64(num(o, "buckets.31"), 16);
	CHECK(json_object_get(o, "reclaimed") == NULL);     /* no previous reading */
}

static void pagemap_fixture(const struct unit_fixture *f)
{
	json_t *o = parse_fixture(f->dir, ".", "pagemap", "self-pagemap");

	check_pagemap(o);
	json_decref(o);
}

static void test_captures(const char *root)
{
	json_t *o;

	/* v1-6.18: captured 2026-12-01 on this machine kind (6.18.44). */
	o = parse_fixture(root, "v1-6.18", "psi", "proc-pressure-memory");
	CHECK_EQ_U64(num(o, "some.total_us"), 1130563);
	CHECK_EQ_U64(num(o, "full.total_us"), 978336);
	CHECK(fabs(num(o, "some.avg60") - 0.15) < 1e-9);
	CHECK(fabs(num(o, "full.avg300") - 0.11) < 1e-9);
	json_decref(o);
	o = parse_fixture(root, "v1-6.18", "buddyinfo", "proc-buddyinfo");
	CHECK_EQ_U64(json_array_size(o), 3);
	CHECK_STR(json_string_value(json_object_get(json_array_get(o, 1), "zone")), "DMA32");
	CHECK_EQ_U64(num(o, "1.free_blocks.10"), 752);
	CHECK_EQ_U64(json_array_size(json_object_get(json_array_get(o, 2), "free_blocks")), 11);
	json_decref(o);
	o = parse_fixture(root, "v1-6.18", "memcg_peak", "memory.max_usage_in_bytes");
	CHECK_EQ_U64(num(o, "peak_bytes"), 84406272);
	json_decref(o);
	/* v2 memory.events after an OOM kill with memory.oom.group = 1 (the
	 * victim counted twice in oom_kill: tests/fixtures/v2-6.12/README). */
	o = parse_fixture(root, "v2-6.12", "memory_events", "memcg-memory.events-oom");
	CHECK(num(o, "oom_kill") >= 1);
	CHECK(num(o, "oom_group_kill") >= 1);
	CHECK(num(o, "max") >= num(o, "oom"));
	CHECK(json_object_get(o, "high") != NULL && json_object_get(o, "low") != NULL);
	json_decref(o);
	CHECK(unit_for_each_fixture(root, "self-pagemap", pagemap_fixture) >= 1);
	/* The sandbox's memory.pressure prints what /proc/pressure/memory does. */
	o = parse_fixture(root, "v2-6.12", "memcg_pressure", "memcg-memory.pressure");
	CHECK(json_is_object(json_object_get(o, "full")));
	CHECK(num(o, "some.total_us") >= num(o, "full.total_us"));
	json_decref(o);
	/* v2 memory.peak (5.19+) on both guests: a group that held 4 MiB. */
	o = parse_fixture(root, "v2-6.12", "memcg_peak", "memcg-memory.peak");
	CHECK_EQ_U64(num(o, "peak_bytes"), 4710400);
	json_decref(o);
}

static int parse_text(const char *src, const char *text, size_t len, struct lab_error *err)
{
	json_t *out = NULL;
	int ret = source_find(src)->parse(text, len, &out, err);

	json_decref(out);
	return ret;
}

static void test_refusals(void)
{
	static const char *const bad_psi[] = {
		"",
		"some avg10=0.00 avg60=0.00 avg300=0.00\n",                     /* no total */
		"some avg10=0.0 avg60=0.00 avg300=0.00 total=1\n",              /* one decimal */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=-1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1 x\n",
		"some avg60=0.00 avg10=0.00 avg300=0.00 total=1\n",             /* order */
		"full avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",             /* no some */
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=1\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=100.01x avg60=0.00 avg300=0.00 total=1\n",
		"partial avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
		"some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999\n",
	};
	static const char *const bad_buddy[] = {
		"Node 0, zone\n", "Node 0, zone DMA\n", "Node x, zone DMA 1 2\n", "Node 0 zone DMA 1\n",
		"Node 0, zone DMA 1 -2\n", "Node 0, zone DMA 1 2x\n", "zone DMA 1 2\n",
		"Node 0, zone DMA 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n",
	};
	static const char *const bad_peak[] = { "", "12 34\n", "-1\n", "max\n", "12\n\n", "0x10\n" };
	struct lab_error err;
	json_t *o = NULL;

	for (size_t i = 0; i < sizeof(bad_psi) / sizeof(bad_psi[0]); i++) {
		memset(&err, 0, sizeof(err));
		CHECK(parse_text("psi", bad_psi[i], strlen(bad_psi[i]), &err) == -EINVAL);
		CHECK(err.msg[0] != '\0');
	}
	CHECK(parse_text("psi", "some avg10=100.00 avg60=0.00 avg300=0.00 total=0\n", 49, &err) == 0);
	for (size_t i = 0; i < sizeof(bad_buddy) / sizeof(bad_buddy[0]); i++)
		CHECK(parse_text("buddyinfo", bad_buddy[i], strlen(bad_buddy[i]), &err) == -EINVAL);
	for (size_t i = 0; i < sizeof(bad_peak) / sizeof(bad_peak[0]); i++)
		CHECK(parse_text("memcg_peak", bad_peak[i], strlen(bad_peak[i]), &err) == -EINVAL);
	CHECK(parse_text("pagemap", "1234567", 7, &err) == -EINVAL);
	CHECK(parse_text("pagemap", "", 0, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "8-byte");
	/* Swapped entries (bit 62) count as swapped, not present. */
	{
		uint64_t e[4] = { 1ull << 63, 1ull << 62, 0, 1ull << 63 };

		CHECK(source_find("pagemap")->parse((const char *)e, sizeof(e), &o, &err) == 0);
		CHECK_EQ_U64(num(o, "present"), 2);
		CHECK_EQ_U64(num(o, "swapped"), 1);
		CHECK_EQ_U64(json_array_size(json_object_get(o, "present_ranges")), 2);
		json_decref(o);
	}
}

/* The pagemap source on this very process: a real page table, read twice. */
static void test_pagemap_live(void)
{
	const struct source *s = source_find("pagemap");
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), pages = 256;
	unsigned char *r = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct source_ctx ctx = { .nr_procs = 1 };
	void *st = calloc(1, s->state_size);
	struct lab_error err = { 0 };
	json_t *o = NULL;

	CHECK(r != MAP_FAILED && st != NULL);
	if (r == MAP_FAILED || st == NULL)
		return;
	madvise(r, pages * ps, MADV_NOHUGEPAGE);
	memset(r, 0xA5, pages * ps);
	ctx.procs[0] = (struct source_proc){ .name = "self", .pid = getpid(), .running = true,
		.region_start = (unsigned long)r, .region_end = (unsigned long)(r + pages * ps), .page_size = ps };
	ctx.at_step = true;             /* a step's reading: the baseline */
	CHECK(s->read(&ctx, st, &o, &err) == 0);
	CHECK_EQ_U64(num(json_object_get(o, "self"), "present"), pages);
	json_decref(o);
	/* Drop pages 10..19 and 100, then read again, first as a walk between
	 * steps, then as the next step: both see those went, in order, since
	 * the last step; the walk did not move the baseline. */
	CHECK(madvise(r + 10 * ps, 10 * ps, MADV_DONTNEED) == 0);
	CHECK(madvise(r + 100 * ps, ps, MADV_DONTNEED) == 0);
	for (int k = 0; k < 2; k++) {
		const json_t *p;

		ctx.at_step = k == 1;
		CHECK(s->read(&ctx, st, &o, &err) == 0);
		p = json_object_get(o, "self");
		CHECK_EQ_U64(num(p, "present"), pages - 11);
		CHECK_EQ_U64(num(p, "reclaimed_pages"), 11);
		CHECK_EQ_U64(json_array_size(json_object_get(p, "reclaimed")), 2);
		CHECK_EQ_U64(num(p, "reclaimed.0.0"), 10);
		CHECK_EQ_U64(num(p, "reclaimed.0.1"), 20);
		CHECK_EQ_U64(num(p, "reclaimed.1.0"), 100);
		CHECK_EQ_U64(num(p, "faulted_pages"), 0);
		json_decref(o);
	}
	/* Touch one back: faulted, nothing more reclaimed. */
	r[15 * ps] = 1;
	CHECK(s->read(&ctx, st, &o, &err) == 0);
	CHECK_EQ_U64(num(json_object_get(o, "self"), "faulted_pages"), 1);
	CHECK_EQ_U64(num(json_object_get(o, "self"), "reclaimed_pages"), 0);
	json_decref(o);
	/* A live process: walked every time, and it kept its memory. */
	CHECK(ctx.walk_skipped == 0 && ctx.nr_held == 0);
	s->close(st);
	free(st);
	lab_buf_free(&ctx.buf);
	munmap(r, pages * ps);
}

/* The machine's tick sources on this machine, through the table: each opens
 * and reads twice (vmstat's in-place fast path against its base) into the
 * shape result.md documents. */
static void test_machine_live(void)
{
	struct source_ctx ctx = { 0 };
	struct source_set *set = NULL;
	struct lab_error err = { 0 };
	json_t *s1 = json_object(), *s2 = json_object(), *v;
	const char *k;

	CHECK(source_set_open(&ctx, &set, &err) == 0);
	if (set == NULL)
		return;
	source_set_sample(set, SOURCE_TICK, s1);
	source_set_sample(set, SOURCE_TICK | SOURCE_STEP, s2);
	CHECK(json_is_object(json_object_get(s1, "vmstat_delta")));
	CHECK(json_object_get(s1, "memcg") == NULL);            /* no sandbox, no memcg */
	CHECK(json_object_get(s1, "buddyinfo") == NULL);        /* a step source */
	CHECK(json_is_array(json_object_get(s2, "buddyinfo")));
	CHECK(num(s1, "meminfo.MemTotal") > 0);
	CHECK(json_array_size(json_object_get(s1, "zones")) >= 1);
	json_object_foreach(json_object_get(s2, "vmstat_delta"), k, v)
		CHECK(json_is_integer(v) && strlen(k) > 0);
	if (access("/proc/pressure/memory", R_OK) == 0)
		CHECK(num(s2, "psi.some.total_us") >= num(s1, "psi.some.total_us"));
	json_decref(s1);
	json_decref(s2);
	source_set_close(set);
}

/* The sample writer (sources/jsonw.h): what it writes is JSON that jansson
 * reads back to the same values — reals to the same double as jansson's own
 * %.17g, strings whatever their bytes, commas in nested shapes, a rewind. */
static void test_jsonw(void)
{
	static const double reals[] = { 0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 250.000001, 1e300, 5e-324,
					123456789.123456789, -2.5, 1e17, 4503599627370497.0, 1.5e-7 };
	struct jw w = { 0 };
	json_error_t je;
	json_t *v;
	struct jw_mark m;
	char *j;

	jw_arr(&w);
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		jw_real(&w, reals[i]);
	jw_arr_end(&w);
	v = jw_load(&w, &je);
	CHECK(json_is_array(v));
	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
		json_t *r = json_array_get(v, i);

		CHECK(json_is_real(r));
		CHECK(json_real_value(r) == reals[i]);
	}
	/* Byte for byte what jansson prints for the same array. */
	j = json_dumps(v, JSON_COMPACT);
	if (j == NULL || strcmp(j, w.data) != 0)
		fprintf(stderr, "jansson %s\nwriter  %s\n", j ? j : "-", w.data);
	CHECK(j != NULL && strcmp(j, w.data) == 0);
	free(j);
	json_decref(v);
	/* Random doubles: the same double back. */
	srand(11);
	for (int i = 0; i < 2000; i++) {
		double d = (double)rand() / (double)RAND_MAX * 1e6 / ((double)(rand() % 1000) + 1.0);

		jw_reset(&w);
		jw_real(&w, d);
		v = jw_load(&w, &je);
		CHECK(json_is_real(v) && json_real_value(v) == d);
		json_decref(v);
	}
	jw_reset(&w);
	jw_real(&w, 0.0 / 0.0);
	CHECK_STR(w.data, "null");
	/* Fixed point (a sample's t_ms and cost_us, PSI's averages): the very
	 * double the division gives, in the fewest digits, always a real. */
	{
		static const struct { unsigned long long v; unsigned d; const char *text; } fx[] = {
			{ 0, 2, "0.0" }, { 7, 2, "0.07" }, { 20, 2, "0.2" }, { 10000, 2, "100.0" },
			{ 111566782, 6, "111.566782" }, { 119814909, 6, "119.814909" }, { 1500000, 6, "1.5" },
			{ 128238, 3, "128.238" }, { 5, 3, "0.005" }, { 4503599627370495ull, 9, "4503599.627370495" },
		};
		static const double scale[] = { 0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };

		for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
			jw_reset(&w);
			jw_fixed(&w, fx[i].v, fx[i].d);
			CHECK_STR(w.data, fx[i].text);
		}
		for (int i = 0; i < 20000; i++) {
			unsigned long long u = ((unsigned long long)rand() << 31 ^ (unsigned long long)rand()) %
					       (1ull << (i % 53 + 1));
			unsigned d = 1 + (unsigned)(i % 9);

			jw_reset(&w);
			jw_fixed(&w, u, d);
			v = jw_load(&w, &je);
			CHECK(json_is_real(v) && json_real_value(v) == (double)u / scale[d]);
			CHECK(w.len < 2 || w.data[w.len - 1] != '0' || w.data[w.len - 2] == '.');
			json_decref(v);
		}
		jw_reset(&w);
		jw_fixed(&w, 5, 0);
		CHECK_STR(w.data, "null");
	}
	/* Strings: quotes, backslashes, control bytes, UTF-8 kept, a stray byte escaped. */
	jw_reset(&w);
	jw_obj(&w);
	jw_key(&w, "k\"\\\n");
	jw_str(&w, "a\tb\x01 \xc3\xa9 \xff end");
	jw_key(&w, "n");
	jw_obj(&w);
	jw_obj_end(&w);
	jw_key(&w, "a");
	jw_arr(&w);
	jw_i64(&w, -5);
	jw_u64(&w, 9223372036854775807ull);     /* jansson's json_int_t: no more */
	jw_i64(&w, -9223372036854775807ll - 1);
	jw_u64(&w, 0);
	m = jw_mark(&w);
	jw_str(&w, "dropped");
	jw_rewind(&w, m);
	jw_bool(&w, true);
	jw_null(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	v = jw_load(&w, &je);
	if (v == NULL)
		fprintf(stderr, "%s: %s\n", w.data, je.text);
	CHECK(json_is_object(v));
	/* The stray \xff went as \u00ff, which reads back as U+00FF. */
	CHECK_STR(json_string_value(json_object_get(v, "k\"\\\n")), "a\tb\x01 \xc3\xa9 \xc3\xbf end");
	CHECK(strstr(w.data, "\\u00ff") != NULL);
	CHECK(strstr(w.data, "\xc3\xa9") != NULL);
	CHECK(json_is_object(json_object_get(v, "n")) && json_object_size(json_object_get(v, "n")) == 0);
	CHECK_EQ_U64(json_array_size(json_object_get(v, "a")), 6);
	CHECK(json_integer_value(json_array_get(json_object_get(v, "a"), 0)) == -5);
	CHECK(json_integer_value(json_array_get(json_object_get(v, "a"), 1)) == 9223372036854775807ll);
	CHECK(json_integer_value(json_array_get(json_object_get(v, "a"), 2)) == -9223372036854775807ll - 1);
	CHECK(json_integer_value(json_array_get(json_object_get(v, "a"), 3)) == 0);
	CHECK(json_is_true(json_array_get(json_object_get(v, "a"), 4)));
	json_decref(v);
	jw_free(&w);
}

/* A tick as the sampler writes it (source_set_emit into an open object):
 * one line that jansson reads, with the sources in table order and each
 * value what the same source's parse gives for its own file. */
static void test_tick_line(void)
{
	struct source_ctx ctx = { 0 };
	struct source_set *set = NULL;
	struct lab_error err = { 0 };
	struct jw w = { 0 };
	json_error_t je;
	json_t *v;
	const char *prev = NULL, *k;
	json_t *x;

	CHECK(source_set_open(&ctx, &set, &err) == 0);
	if (set == NULL)
		return;
	jw_obj(&w);
	jw_key(&w, "t_ms");
	jw_real(&w, 1.5);
	source_set_emit(set, SOURCE_TICK, &w);
	jw_obj_end(&w);
	CHECK(strchr(w.data, '\n') == NULL);
	v = jw_load(&w, &je);
	CHECK(json_is_object(v));
	CHECK(ctx.facts.zones != NULL);         /* what the sampler takes, typed */
	CHECK(json_real_value(json_object_get(v, "t_ms")) == 1.5);
	json_object_foreach(v, k, x) {
		const struct source *s = source_find(k);

		if (s == NULL)
			continue;
		CHECK(s->cadence == SOURCE_TICK);
		CHECK(json_object_get(x, "error") == NULL);
		if (prev != NULL) {
			size_t a = 0, b = 0;

			while (source_table[a] != NULL && strcmp(source_table[a]->name, prev))
				a++;
			while (source_table[b] != NULL && strcmp(source_table[b]->name, k))
				b++;
			CHECK(a < b);
		}
		prev = k;
	}
	CHECK(json_array_size(json_object_get(v, "zones")) >= 1);
	json_decref(v);
	jw_free(&w);
	source_set_close(set);
}

/* The strict path alone: every line kv.c takes, as source_kv_emit writes it. */
static int strict_text(struct jw *w, const char *buf, bool colon)
{
	struct kv_list l = { 0 };
	struct lab_error err = { 0 };
	int ret = colon ? kv_parse_colon(buf, &l, &err) : kv_parse_space(buf, &l, &err);

	if (ret == 0)
		source_kv_emit(w, &l);
	kv_free(&l);
	return ret;
}

/* Fast and strict on one text: when the fast path takes it, the very bytes
 * the strict path writes; returns whether it took it. */
static bool fast_agrees(const char *buf, bool colon)
{
	struct jw f = { 0 }, st = { 0 };
	bool took;

	jw_obj(&f);
	took = source_kv_json_fast(&f, buf, strlen(buf), colon);
	jw_obj_end(&f);
	if (took) {
		CHECK(strict_text(&st, buf, colon) == 0);
		if (st.data == NULL || strcmp(f.data, st.data) != 0)
			fprintf(stderr, "fast   %s\nstrict %s\n", f.data, st.data ? st.data : "-");
		CHECK(st.data != NULL && strcmp(f.data, st.data) == 0);
	} else {
		CHECK_STR(f.data, "{}");        /* refused: nothing of it written */
	}
	jw_free(&f);
	jw_free(&st);
	return took;
}

static int fast_taken;

static void fast_space(const struct unit_fixture *f)
{
	fast_taken += fast_agrees(f->buf, false);
}

static void fast_colon(const struct unit_fixture *f)
{
	fast_taken += fast_agrees(f->buf, true);
}

/* The tick's fast path for keyed files (meminfo, memory.stat): it takes
 * every capture of them and writes what the strict path writes; it refuses
 * whatever the strict path would read differently, refuse or skip. */
static void test_kv_fast(const char *root)
{
	static const struct { const char *text; bool colon, taken; } cases[] = {
		{ "a 1\nb 22\n", false, true },
		{ "a 1\n\nb 22", false, true },                 /* an empty line, no last newline */
		{ "a\t1\n", false, true },
		{ "a:b 1\n", false, true },                     /* a ':' in a space-form key */
		{ "Active(anon):   1234 kB\nHugePages_Total:  0\n", true, true },
		{ "K:\t5 \t kB  \n", true, true },
		{ "", false, true },
		{ "a 01\n", false, false },                     /* the strict path reads 1 */
		{ "a 9223372036854775807\n", false, true },     /* 2^63 - 1 */
		{ "a 9223372036854775808\n", false, false },    /* printed negative by the strict path */
		{ "a 12345678901234567890\n", false, false },   /* 20 digits */
		{ "a\"b 1\n", false, false },                   /* escaped by the strict path */
		{ "a\\b 1\n", false, false },
		{ "a 1 \n", false, false },                     /* the strict path refuses */
		{ " a 1\n", false, false },
		{ "a\n", false, false },
		{ "a -1\n", false, false },
		{ "\xc3\xa9 1\n", false, false },
		{ "a\r 1\n", false, false },
		{ "K: 5 MB\n", true, false },
		{ "K: 5kB\n", true, false },                    /* skipped by the strict path */
		{ "Name:\tregion\n", true, false },
		{ "Uid:\t0\t0\n", true, false },
		{ "K 5\n", true, false },
		{ ": 5\n", true, false },
		{ "a:b: 5\n", true, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool took = fast_agrees(cases[i].text, cases[i].colon);

		if (took != cases[i].taken)
			fprintf(stderr, "kv fast: case %zu '%s': %s\n", i, cases[i].text, took ? "taken" : "refused");
		CHECK(took == cases[i].taken);
	}
	{
		int n[5];

		fast_taken = 0;
		n[0] = unit_for_each_fixture(root, "proc-meminfo", fast_colon);
		n[1] = unit_for_each_fixture(root, "memory.stat", fast_space);           /* v1 */
		n[2] = unit_for_each_fixture(root, "memcg-memory.stat", fast_space);     /* v2 */
		n[3] = unit_for_each_fixture(root, "memcg-memory.events", fast_space);
		n[4] = unit_for_each_fixture(root, "proc-vmstat", fast_space);
		CHECK(n[0] >= 3 && n[1] >= 1 && n[2] >= 2 && n[3] >= 2 && n[4] >= 3);
		CHECK(fast_taken == n[0] + n[1] + n[2] + n[3] + n[4]);  /* every capture read the fast way */
	}
}

/* The page walks' care for a process on its way out (source.h): a live
 * process is walked and still holds its memory; a zombie (exit_mm done) is
 * dying and has let go; a reaped pid is gone: dying and let go.  A pending
 * SIGKILL is not tried: a task keeps one only while it cannot run. */
static void test_dying(void)
{
	struct source_ctx *ctx = calloc(1, sizeof(*ctx));
	pid_t live, zombie;
	int st;

	CHECK(ctx != NULL);
	if (ctx == NULL)
		return;
	CHECK(!source_pid_dying(ctx, getpid()));
	CHECK(!source_let_go(ctx, getpid()));
	live = fork();
	if (live == 0) {
		pause();
		_exit(0);
	}
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	CHECK(live > 0 && zombie > 0);
	/* The zombie: its exit is done once waitid(WNOWAIT) sees it. */
	{
		siginfo_t si;

		CHECK(waitid(P_PID, (id_t)zombie, &si, WEXITED | WNOWAIT) == 0);
	}
	CHECK(!source_pid_dying(ctx, live));
	CHECK(!source_let_go(ctx, live));
	CHECK(source_pid_dying(ctx, zombie));
	CHECK(source_let_go(ctx, zombie));
	CHECK(waitpid(zombie, &st, 0) == zombie);
	CHECK(source_pid_dying(ctx, zombie));
	CHECK(source_let_go(ctx, zombie));
	kill(live, SIGKILL);
	CHECK(waitpid(live, &st, 0) == live && WIFSIGNALED(st));
	/* Noted holds: kept in order, at most SOURCE_MAX_HELD. */
	for (int i = 0; i < SOURCE_MAX_HELD + 3; i++)
		source_note_held(ctx, 100 + i, i == 0 ? "dd" : NULL, "svc", "smaps_rollup", 1024, 10, 20);
	CHECK(ctx->nr_held == SOURCE_MAX_HELD);
	CHECK(ctx->held[0].pid == 100 && strcmp(ctx->held[0].comm, "dd") == 0 && ctx->held[1].comm[0] == '\0');
	CHECK(ctx->held[SOURCE_MAX_HELD - 1].pid == 100 + SOURCE_MAX_HELD - 1);
	lab_buf_free(&ctx->buf);
	free(ctx);
}

int main(int argc, char **argv)
{
	const char *root = unit_fixtures_root(argc, argv);

	if (root == NULL)
		return 2;
	test_table(root);
	test_captures(root);
	test_refusals();
	test_pagemap_live();
	test_machine_live();
	test_jsonw();
	test_tick_line();
	test_kv_fast(root);
	test_dying();
	return unit_report("sources");
}
