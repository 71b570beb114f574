/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sandbox_settings.c — the sandbox settings table (harness/sandbox/settings.c)
 * and what the scenario parser makes of [sandbox] with it.
 *
 * Expected: every row names a file on at least one cgroup version, the keys
 * and result keys are unique, v1's memsw is memory_max + swap_max, and the
 * host check refuses exactly what a version lacks: memory.high/low/min and
 * zswap on v1, swappiness on v2 (cgroup-v2.rst has no per-cgroup
 * swappiness), a given oom_group = yes on v1 — but never a default the host
 * lacks (oom_group's default on v1) nor a no-op (memory_low = 0 on v1).
 */
#include "unit.h"

#include "sandbox/settings.h"
#include "plan/scenario.h"

static bool all_files(const char *name, void *ctx)
{
	(void)name;
	(void)ctx;
	return true;
}

static bool no_zswap(const char *name, void *ctx)
{
	(void)ctx;
	return strcmp(name, "/sys/module/zswap") != 0;
}

static void check_table(void)
{
	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];

		CHECK(d->id == (enum sandbox_setting_id)i);
		CHECK(d->v2 != NULL || d->v1 != NULL);
		CHECK(d->versions != 0);
		CHECK(((d->versions & SB_ON_V2) != 0) == (d->v2 != NULL));
		CHECK(((d->versions & SB_ON_V1) != 0) == (d->v1 != NULL));
		CHECK(d->min <= d->max);
		CHECK(d->result_key != NULL && d->why != NULL);
		CHECK(sandbox_setting_find(d->key) == d);
		for (size_t j = 0; j < i; j++) {
			CHECK(strcmp(sandbox_settings[j].key, d->key) != 0);
			CHECK(strcmp(sandbox_settings[j].result_key, d->result_key) != 0);
		}
		if (d->dflt != NULL) {
			unsigned long long v;
			struct lab_error err;

			CHECK(sandbox_setting_parse(d, d->dflt, &v, &err) == 0);
		}
	}
	CHECK(sandbox_setting_find("memory_hihg") == NULL);
	CHECK_STR(sandbox_setting_file(&sandbox_settings[SB_MEMORY_HIGH], CG_VERSION_V2), "memory.high");
	CHECK(sandbox_setting_file(&sandbox_settings[SB_MEMORY_HIGH], CG_VERSION_V1) == NULL);
	CHECK_STR(sandbox_setting_file(&sandbox_settings[SB_SWAPPINESS], CG_VERSION_V1), "memory.swappiness");
	CHECK(sandbox_setting_file(&sandbox_settings[SB_SWAPPINESS], CG_VERSION_V2) == NULL);
	CHECK_STR(sandbox_setting_file(&sandbox_settings[SB_SWAP_MAX], CG_VERSION_V1), "memory.memsw.limit_in_bytes");
}

static void check_parse_format(void)
{
	const struct sandbox_setting *sw = sandbox_setting_find("swappiness");
	const struct sandbox_setting *og = sandbox_setting_find("oom_group");
	struct sandbox_values sv = { .given = 0 };
	struct lab_error err;
	unsigned long long v;
	char buf[32];

	CHECK(sandbox_setting_parse(sw, "60", &v, &err) == 0 && v == 60);
	CHECK(sandbox_setting_parse(sw, "200", &v, &err) == 0 && v == 200);
	CHECK(sandbox_setting_parse(sw, "201", &v, &err) == -ERANGE);
	CHECK(sandbox_setting_parse(og, "maybe", &v, &err) == -EINVAL);
	CHECK(sandbox_setting_parse(sandbox_setting_find("memory_max"), "0", &v, &err) == -ERANGE);
	CHECK(sandbox_setting_parse(sandbox_setting_find("memory_high"), "12XB", &v, &err) == -EINVAL);
	CHECK(sandbox_setting_parse(sandbox_setting_find("memory_high"), "900M", &v, &err) == 0 &&
	      v == 900ull << 20);

	sv.val[SB_MEMORY_MAX] = 1ull << 30;
	sv.val[SB_SWAP_MAX] = 64ull << 20;
	CHECK(sandbox_setting_format(&sandbox_settings[SB_SWAP_MAX], &sv, CG_VERSION_V1, buf, sizeof(buf), &err) == 0);
	CHECK_STR(buf, "1140850688");   /* 1 GiB + 64 MiB: memsw is memory + swap */
	CHECK(sandbox_setting_format(&sandbox_settings[SB_SWAP_MAX], &sv, CG_VERSION_V2, buf, sizeof(buf), &err) == 0);
	CHECK_STR(buf, "67108864");
}

static void given(struct sandbox_values *sv, enum sandbox_setting_id id, unsigned long long v)
{
	sv->val[id] = v;
	sv->given |= 1u << id;
	sv->apply |= 1u << id;
}

static void check_host(void)
{
	struct sandbox_values base = { .given = 0 }, sv;
	struct lab_error err;

	given(&base, SB_MEMORY_MAX, 1ull << 30);
	base.apply |= 1u << SB_SWAP_MAX | 1u << SB_OOM_GROUP;     /* the defaults */
	base.val[SB_OOM_GROUP] = 1;
	CHECK(sandbox_values_check(&base, CG_VERSION_V1, all_files, NULL, &err) == 0);
	CHECK(sandbox_values_check(&base, CG_VERSION_V2, all_files, NULL, &err) == 0);

	sv = base;
	given(&sv, SB_MEMORY_HIGH, 900ull << 20);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V2, all_files, NULL, &err) == 0);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V1, all_files, NULL, &err) == -EOPNOTSUPP);
	CHECK_CONTAINS(err.msg, "memory_high is cgroup v2's memory.high");
	CHECK_CONTAINS(err.msg, "memory controller is v1");

	sv = base;
	given(&sv, SB_MEMORY_LOW, 256ull << 20);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V1, all_files, NULL, &err) == -EOPNOTSUPP);
	CHECK_CONTAINS(err.msg, "memory.low");
	sv = base;
	given(&sv, SB_MEMORY_LOW, 0);   /* the kernel's own default: nothing to apply */
	CHECK(sandbox_values_check(&sv, CG_VERSION_V1, all_files, NULL, &err) == 0);

	sv = base;
	given(&sv, SB_SWAPPINESS, 10);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V1, all_files, NULL, &err) == 0);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V2, all_files, NULL, &err) == -EOPNOTSUPP);
	CHECK_CONTAINS(err.msg, "swappiness is cgroup v1's memory.swappiness");

	sv = base;
	given(&sv, SB_OOM_GROUP, 1);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V1, all_files, NULL, &err) == -EOPNOTSUPP);
	given(&sv, SB_OOM_GROUP, 0);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V1, all_files, NULL, &err) == 0);

	sv = base;
	given(&sv, SB_ZSWAP_MAX, 0);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V2, all_files, NULL, &err) == 0);
	CHECK(sandbox_values_check(&sv, CG_VERSION_V2, no_zswap, NULL, &err) == -EOPNOTSUPP);
	CHECK_CONTAINS(err.msg, "memory.zswap.max");
}

/* [sandbox] typed by the table: the stated, the defaulted, the refused. */
static void check_scenario(void)
{
	static const char text[] =
		"[scenario]\nname = t/settings\n"
		"[sandbox]\nmemory_max = 1G\nmemory_high = 900M\nswappiness = 10\n"
		"[workload r]\nprogram = region\nsize = 64M\nsteps = fill:0xA5\n";
	static const char bad[] =
		"[scenario]\nname = t/settings\n"
		"[sandbox]\nmemory_max = 1G\nswappiness = 300\n"
		"[workload r]\nprogram = region\nsize = 64M\nsteps = fill:0xA5\n";
	static const char unknown[] =
		"[scenario]\nname = t/settings\n"
		"[sandbox]\nmemory_max = 1G\nmemory_hi = 1G\n"
		"[workload r]\nprogram = region\nsize = 64M\nsteps = fill:0xA5\n";
	struct scenario s;
	struct run_spec r;
	struct lab_error err;

	CHECK(scenario_parse("t.scn", text, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) == 0);
	CHECK_EQ_U64(r.sandbox.val[SB_MEMORY_MAX], 1ull << 30);
	CHECK_EQ_U64(r.sandbox.val[SB_MEMORY_HIGH], 900ull << 20);
	CHECK_EQ_U64(r.sandbox.val[SB_SWAPPINESS], 10);
	CHECK(r.sandbox.given == (1u << SB_MEMORY_MAX | 1u << SB_MEMORY_HIGH | 1u << SB_SWAPPINESS));
	CHECK(r.sandbox.apply & (1u << SB_OOM_GROUP));  /* defaulted */
	CHECK_EQ_U64(r.sandbox.val[SB_OOM_GROUP], 1);
	CHECK(r.sandbox.apply & (1u << SB_SWAP_MAX));
	CHECK_EQ_U64(r.sandbox.val[SB_SWAP_MAX], 0);
	CHECK(!(r.sandbox.apply & (1u << SB_MEMORY_LOW)));
	run_spec_free(&r);
	scenario_free(&s);

	CHECK(scenario_parse("bad.scn", bad, &s, &err) == 0);
	CHECK(scenario_instantiate(&s, 0, 24ull << 30, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, "[sandbox] swappiness: expected 0..200");
	run_spec_free(&r);
	scenario_free(&s);

	CHECK(scenario_parse("unknown.scn", unknown, &s, &err) < 0);
	CHECK_CONTAINS(err.msg, "unknown key 'memory_hi' in [sandbox]");
	CHECK_CONTAINS(err.msg, "memory_high");
}

int main(void)
{
	check_table();
	check_parse_format();
	check_host();
	check_scenario();
	return unit_report("sandbox_settings");
}
