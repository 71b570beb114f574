/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_scenario.c — the scenario parser on the project's own scenario files
 * and on the broken corpus under tests/bad-input/.
 *
 * Every shipped scenario must parse and type in every variant; every broken
 * file must fail with the message and the FILE:LINE:COL its "# expect:" and
 * "# at:" header lines name. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "plan/scenario.h"
#include "unit.h"

static char *slurp(const char *path)
{
	char *buf = NULL;
	struct lab_error err;

	if (lab_read_file(path, &buf, NULL, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return NULL;
	}
	return buf;
}

static int has_arg(const struct run_workload *w, const char *arg)
{
	for (int i = 0; i < w->argc; i++)
		if (!strcmp(w->argv[i], arg))
			return 1;
	return 0;
}

/* Call fn on each *.scn file of dir (sorted), read whole; returns the sum of
 * what fn returned.  A file that cannot be read fails the test. */
static int for_each_scn(const char *dir, int (*fn)(const char *path, const char *text))
{
	struct dirent **names;
	int n, sum = 0;

	n = scandir(dir, &names, NULL, alphasort);
	CHECK(n > 0);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		char path[8192];
		char *text;
		size_t len = strlen(names[i]->d_name);

		if (len < 5 || strcmp(names[i]->d_name + len - 4, ".scn") != 0) {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		free(names[i]);
		text = slurp(path);
		CHECK(text != NULL);
		if (text == NULL)
			continue;
		sum += fn(path, text);
		free(text);
	}
	free(names);
	return sum;
}

/* A shipped scenario parses and every variant instantiates; 1 when it parsed. */
static int check_one_shipped(const char *path, const char *text)
{
	struct scenario s;
	struct lab_error err;

	if (scenario_parse(path, text, &s, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(!"shipped scenario parses");
		return 0;
	}
	CHECK(s.nr_report >= 1);
	CHECK(s.title != NULL && s.source != NULL && s.expect != NULL);
	for (size_t v = 0; v < scenario_nr_variants(&s); v++) {
		struct run_spec r;

		if (scenario_instantiate(&s, v, 24ull << 30, &r, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			CHECK(!"shipped scenario instantiates");
			continue;
		}
		CHECK(r.sandbox.val[SB_MEMORY_MAX] > 0);
		CHECK(r.sandbox.val[SB_SWAP_MAX] == 0);
		CHECK(r.label[0] == (char)('A' + v));
		run_spec_free(&r);
	}
	scenario_free(&s);
	return 1;
}

static void check_shipped(const char *root)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/../../scenarios/madv-free", root);
	CHECK_EQ_U64(for_each_scn(dir, check_one_shipped), 15);       /* the article's 12 + lru-order, memory-high, pageout */
}

/* The article's parameters are the defaults; --set scales them. */
/* The kswapd runs: a knob left at "keep" is not journaled; --set makes it one;
 * hold --leave and --oom-score-adj reach the workload. */
static void check_kswapd_runs(const char *root)
{
	char path[4096];
	char *text;
	struct scenario s;
	struct run_spec r;
	struct lab_error err;

	snprintf(path, sizeof(path), "%s/../../scenarios/watermarks/kswapd-runs.scn", root);
	text = slurp(path);
	CHECK(text != NULL);
	if (text == NULL)
		return;
	CHECK(scenario_parse(path, text, &s, &err) == 0);
	CHECK_EQ_U64(scenario_nr_variants(&s), 4);
	CHECK(scenario_instantiate(&s, 3, 24ull << 30, &r, &err) == 0);
	CHECK_EQ_U64(r.nr_knobs, 2);            /* wsf and hugetlb_pages; lru_gen = keep */
	CHECK_STR(r.knobs[0].name, "vm.watermark_scale_factor");
	CHECK_STR(r.knobs[0].value, "500");
	CHECK_STR(r.workloads[0].program, "hold");
	CHECK(has_arg(&r.workloads[0], "--leave"));
	CHECK(has_arg(&r.workloads[0], "--oom-score-adj"));
	run_spec_free(&r);
	CHECK(scenario_override(&s, "lru_gen=0x0000", &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);
	CHECK_EQ_U64(r.nr_knobs, 3);
	CHECK_STR(r.knobs[2].name, "lru_gen");
	CHECK_STR(r.knobs[2].value, "0x0000");
	run_spec_free(&r);
	CHECK(scenario_override(&s, "lru_gen=0x0002", &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK(strstr(err.msg, "is not one of 0x0000|0x0001|0x0003|0x0007") != NULL);
	run_spec_free(&r);
	scenario_free(&s);
	free(text);
}

static void check_pressure(const char *root)
{
	char path[4096];
	char *text;
	struct scenario s;
	struct run_spec r;
	struct lab_error err;

	snprintf(path, sizeof(path), "%s/../../scenarios/madv-free/pressure.scn", root);
	text = slurp(path);
	CHECK(text != NULL);
	if (text == NULL)
		return;
	CHECK(scenario_parse(path, text, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);
	CHECK_EQ_U64(r.sandbox.val[SB_MEMORY_MAX], 1073741824ull);
	CHECK_EQ_U64(r.nr_workloads, 2);
	CHECK_STR(r.workloads[0].program, "hold");
	CHECK_EQ_U64(r.workloads[0].region_bytes, 154ull << 20);
	CHECK(r.workloads[1].start_after == 0);
	CHECK_STR(r.workloads[1].start_step, "hold");
	CHECK(has_arg(&r.workloads[1], "pressure:734003200"));
	CHECK(has_arg(&r.workloads[1], "write:1:0x5a"));
	CHECK(has_arg(&r.workloads[1], "scan:0xa5:0x5a"));
	run_spec_free(&r);

	CHECK(scenario_override(&s, "region=300M", &err) == 0);
	CHECK(scenario_override(&s, "memory_max=640M", &err) == 0);
	CHECK(scenario_override(&s, "pressure=420M", &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);
	CHECK_EQ_U64(r.sandbox.val[SB_MEMORY_MAX], 640ull << 20);
	CHECK_EQ_U64(r.workloads[1].region_bytes, 300ull << 20);
	CHECK(has_arg(&r.workloads[1], "pressure:440401920"));
	run_spec_free(&r);

	/* An unknown parameter names what exists. */
	CHECK(scenario_override(&s, "regoin=1G", &err) < 0);
	CHECK(strstr(err.msg, "no parameter 'regoin'") != NULL);
	/* A bad --set value is reported with where it came from. */
	CHECK(scenario_override(&s, "pressure=12XB", &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK(strstr(err.msg, "--set pressure=12XB") != NULL);
	run_spec_free(&r);
	/* A limit above MemTotal is refused. */
	scenario_free(&s);
	CHECK(scenario_parse(path, text, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 512ull << 20, &r, &err) < 0);
	CHECK(strstr(err.msg, "MemTotal") != NULL);
	run_spec_free(&r);
	/* A size beyond the machine (machine_bytes) is refused with both figures;
	 * at exactly the machine it passes (the limit is the one who says no). */
	scenario_free(&s);
	CHECK(scenario_parse(path, text, &s, &err) == 0);
	s.machine_bytes = 700ull << 20;
	s.machine_what = "test machine";
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);   /* pressure 700M: at the limit */
	run_spec_free(&r);
	CHECK(scenario_override(&s, "pressure=701M", &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "steps: pressure: 701 MiB is more than this machine could ever hold (test machine: 700 MiB)");
	CHECK_CONTAINS(err.msg, "--set pressure=701M");
	run_spec_free(&r);
	CHECK(scenario_override(&s, "pressure=100M", &err) == 0);
	CHECK(scenario_override(&s, "region=1G", &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "[workload region] size: 1 GiB is more than");
	run_spec_free(&r);
	/* Pinning a matrix dimension collapses it. */
	scenario_free(&s);
	free(text);
	snprintf(path, sizeof(path), "%s/../../scenarios/madv-free/three-paths.scn", root);
	text = slurp(path);
	CHECK(text != NULL && scenario_parse(path, text, &s, &err) == 0);
	CHECK_EQ_U64(scenario_nr_variants(&s), 3);
	CHECK(scenario_override(&s, "advice=dontneed", &err) == 0);
	CHECK_EQ_U64(scenario_nr_variants(&s), 1);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);
	CHECK(has_arg(&r.workloads[1], "advise:dontneed"));
	run_spec_free(&r);
	scenario_free(&s);
	free(text);
}

/* A broken scenario is refused with the message and position its header names. */
static int check_one_broken(const char *path, const char *text)
{
	char expect[256] = "", at[32] = "", where[8300];
	const char *p;
	struct scenario s;
	struct run_spec r;
	struct lab_error err;
	int ret;

	if ((p = strstr(text, "# expect: ")) != NULL)
		sscanf(p + 10, "%255[^\n]", expect);
	if ((p = strstr(text, "# at: ")) != NULL)
		sscanf(p + 6, "%31[^\n]", at);
	ret = scenario_parse(path, text, &s, &err);
	if (ret == 0) {
		/* This machine kind: 24 GiB, no swap (as main.c would say it). */
		s.machine_bytes = 24ull << 30;
		s.machine_what = "this machine's MemTotal + SwapTotal";
		ret = scenario_instantiate(&s, 0, 24ull << 30, &r, &err);
		run_spec_free(&r);
		scenario_free(&s);
	}
	snprintf(where, sizeof(where), "%s:%s:", path, at);
	if (ret == 0 || strstr(err.msg, expect) == NULL || strncmp(err.msg, where, strlen(where)) != 0) {
		fprintf(stderr, "%s: expected '%s' at %s, got: %s\n", path, expect, at,
			ret == 0 ? "(accepted)" : err.msg);
		CHECK(!"broken scenario is refused with its position");
	}
	return 1;
}

static void check_broken(const char *root)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/../bad-input", root);
	CHECK(for_each_scn(dir, check_one_broken) >= 10);
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "tests/fixtures";

	check_shipped(root);
	check_pressure(root);
	check_kswapd_runs(root);
	check_broken(root);
	return unit_report("scenario");
}
