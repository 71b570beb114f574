/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_decl.c — the workloads' declarations (workloads/decl/) as both sides
 * read them: the scenario parser types and normalises a step with the same
 * row region's own parser types it with, and an advice the kernel does not
 * know is refused by the kernel itself (madvise answers EINVAL for an
 * unknown advice: mm/madvise.c madvise_behavior_valid).
 */
#include "unit.h"

#include "workloads/decl.h"
#include "plan/scenario.h"

static void check_tables(void)
{
	size_t n = 0;

	for (size_t i = 0; wl_decls[i] != NULL; i++, n++) {
		const struct wl_decl *d = wl_decls[i];

		CHECK(wl_decl_find(d->program) == d);
		CHECK(d->summary != NULL && d->opts != NULL);
		for (const struct wl_opt *o = d->opts; o->key; o++)
			CHECK(wl_opt_find(d, o->key) == o);
		for (const struct wl_step *s = d->steps; s && s->name; s++) {
			CHECK(wl_step_find(d, s->name) == s);
			CHECK(s->help != NULL && strncmp(s->help, s->name, strlen(s->name)) == 0);
			CHECK(s->nargs + s->nopt <= WL_MAX_STEP_ARGS);
		}
	}
	CHECK_EQ_U64(n, 8);
	CHECK(wl_decl_find("region")->steps != NULL);
	CHECK(wl_decl_find("nope") == NULL);
}

static void check_steps(void)
{
	const struct wl_decl *d = wl_decl_find("region");
	struct wl_step_value sv;
	struct lab_error err;

	CHECK(wl_step_parse(d, "advise:pageout", &sv, &err) == 0);
	CHECK_STR(sv.step->name, "advise");
	CHECK_EQ_U64(sv.nargs, 1);
	CHECK(wl_step_parse(d, "advise:free:64M", &sv, &err) == 0);
	CHECK_EQ_U64(sv.nargs, 2);
	CHECK_EQ_U64(sv.v[1], 64ull << 20);
	CHECK(wl_step_parse(d, "advise:free:64M:1M", &sv, &err) == 0);
	CHECK_EQ_U64(sv.nargs, 3);
	CHECK_EQ_U64(sv.v[2], 1ull << 20);
	CHECK(wl_step_parse(d, "advise:free:64M:1M:2", &sv, &err) < 0);
	CHECK_CONTAINS(err.msg, "takes 3 arguments");
	CHECK(wl_step_parse(d, "advise:sideways", &sv, &err) < 0);
	CHECK_CONTAINS(err.msg, "'sideways' is not one of free|dontneed|none|pageout|cold|collapse");
	CHECK(wl_step_parse(d, "populate:write", &sv, &err) == 0);
	CHECK(wl_step_parse(d, "explode", &sv, &err) < 0);
	CHECK_CONTAINS(err.msg, "unknown step (known: fill advise populate");
	CHECK(wl_step_parse(d, "write:1", &sv, &err) < 0);
	CHECK(wl_step_parse(d, "mincore", &sv, &err) == 0);
}

static void check_advice(void)
{
	static const struct wl_advice bogus = { "advise", "bogus", 99, "MADV_99", "no kernel" };
	static const char *const known[] = { "free", "dontneed", "pageout", "cold", "collapse" };
	struct lab_error err;

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct wl_advice *a = wl_advice_find("advise", known[i]);

		CHECK(a != NULL);
		if (a != NULL && wl_advice_probe(a, &err) < 0)
			fprintf(stderr, "test_decl: note: %s: %s\n", known[i], err.msg);
	}
	CHECK(wl_advice_find("advise", "none")->advice == -1);
	CHECK(wl_advice_probe(wl_advice_find("advise", "none"), &err) == 0);
	CHECK(wl_advice_probe(wl_advice_find("populate", "write"), &err) == 0);
	CHECK(wl_advice_find("advise", "write") == NULL);
	CHECK_STR(wl_advice_names("advise"), "free|dontneed|none|pageout|cold|collapse");
	CHECK_STR(wl_advice_names("populate"), "write|read");
	CHECK(wl_advice_probe(&bogus, &err) == -EOPNOTSUPP);
	CHECK_CONTAINS(err.msg, "this kernel does not take MADV_99");
}

/* The scenario side: the same rows type [workload] keys and steps. */
static void check_scenario(void)
{
	static const char text[] =
		"[scenario]\nname = t/steps\n[sandbox]\nmemory_max = 1G\n"
		"[workload r]\nprogram = region\nsize = 128M\n"
		"steps = fill:0xA5 advise:free:64M advise:pageout populate:write mincore\n";
	static const char toolong[] =
		"[scenario]\nname = t/steps\n[sandbox]\nmemory_max = 1G\n"
		"[workload r]\nprogram = region\nsize = 16M\nsteps = advise:free:64M\n";
	static const char badkey[] =
		"[scenario]\nname = t/steps\n[sandbox]\nmemory_max = 1G\n"
		"[workload r]\nprogram = region\nsize = 16M\nsteps = fill:1\nsise = 1\n";
	struct scenario s;
	struct run_spec r;
	struct lab_error err;

	CHECK(scenario_parse("t.scn", text, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);
	CHECK_STR(r.workloads[0].argv[0], "region");
	CHECK_STR(r.workloads[0].argv[4], "advise:free:67108864");
	CHECK_STR(r.workloads[0].argv[5], "advise:pageout");
	CHECK_STR(r.workloads[0].argv[6], "populate:write");
	run_spec_free(&r);
	scenario_free(&s);

	CHECK(scenario_parse("t.scn", toolong, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "advise: 67108864 bytes are more than the region");
	run_spec_free(&r);
	scenario_free(&s);

	CHECK(scenario_parse("t.scn", badkey, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "unknown key 'sise' in [workload r] (program region takes: program, start, size, thp, shared, pressure_procs, steps)");
	run_spec_free(&r);
	scenario_free(&s);
}

int main(void)
{
	check_tables();
	check_steps();
	check_advice();
	check_scenario();
	return unit_report("decl");
}
