/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fit.c — `pagelab fit`'s pure parts (harness/fit/fit.h): --vary and
 * --slo read and refused, the default objectives, and the judge of a probe
 * over runs built here in the result schema's shape: an OOM kill or a load
 * with no result fails a probe; one slow repeat of three breaks no
 * objective, three slow ones do; a constant bound; psi not judged on v1. */
#include <math.h>
#include <string.h>

#include "fit/fit.h"
#include "unit.h"

static void test_vary(void)
{
	struct fit_vary v;
	struct lab_error err;

	CHECK(fit_parse_vary("memory_max=16M..256M", &v, &err) == 0);
	CHECK(v.key == FIT_MEMORY_MAX && v.lo == 16ULL << 20 && v.hi == 256ULL << 20);
	CHECK(fit_parse_vary("memory_high=1G..2G", &v, &err) == 0 && v.key == FIT_MEMORY_HIGH);
	CHECK(fit_parse_vary("memory_max=64M..16M", &v, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "LO must be below HI");
	CHECK(fit_parse_vary("memory_max=0..16M", &v, &err) == -EINVAL);
	CHECK(fit_parse_vary("swap_max=1M..2M", &v, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "memory_max or memory_high");
	CHECK(fit_parse_vary("memory_max=16M", &v, &err) == -EINVAL);
	CHECK(fit_parse_vary("memory_max=16Q..32M", &v, &err) < 0);
}

static void test_slo(void)
{
	struct fit_slo s, out[FIT_MAX_SLOS], given[2];
	struct lab_error err;
	size_t n;

	CHECK(fit_parse_slo("ops>=0.9*base", &s, &err) == 0);
	CHECK(s.kind == FIT_SLO_OPS && s.ge && s.relative && fabs(s.value - 0.9) < 1e-12);
	CHECK(fit_parse_slo("GET/rps>=1000", &s, &err) == 0);
	CHECK(s.kind == FIT_SLO_METRIC && !s.relative && strcmp(s.metric, "GET/rps") == 0);
	CHECK(fit_parse_slo("p99<=base", &s, &err) == 0 && s.relative && s.value == 1);
	CHECK(fit_parse_slo("ops<=1", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo("p99>=2*base", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo("psi<=2*base", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo("psi<=101", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo("ops>=-1", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo("ops>=2*bass", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo("ops>=1<=2", &s, &err) == -EINVAL);
	CHECK(fit_parse_slo(">=1", &s, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "no name");
	/* The defaults, one replaced by a given objective of its name. */
	CHECK(fit_objectives(NULL, 0, out, &n, &err) == 0 && n == 3);
	CHECK(fit_parse_slo("ops>=0.5*base", &given[0], &err) == 0);
	CHECK(fit_parse_slo("tps>=10", &given[1], &err) == 0);
	CHECK(fit_objectives(given, 2, out, &n, &err) == 0 && n == 4);
	CHECK_STR(out[0].text, "p99<=2*base");
	CHECK_STR(out[2].text, "ops>=0.5*base");
	CHECK(fit_parse_slo("ops>=0.6*base", &given[1], &err) == 0);
	CHECK(fit_objectives(given, 2, out, &n, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "one objective per name");
}

/* A run of a service "svc" with one load "bench" giving rps (throughput). */
static json_t *run_of(double rps, bool oom, bool valid)
{
	json_t *m = json_pack("{s:{s:f, s:s, s:s, s:s}}", "rps", "value", rps, "unit", "req/s", "better", "higher",
			      "role", "throughput");
	json_t *load = json_pack("{s:s, s:b}", "name", "bench", "valid", valid);

	return json_pack("{s:[{s:s, s:s, s:b}], s:[{s:s, s:s, s:o, s:o}], s:[o], s:[], s:{s:i}}", "workloads", "name",
			 "svc", "fate", oom ? "oom_killed" : "completed", "oom_killed", oom, "steps", "workload", "svc",
			 "step", "bench", "load", json_deep_copy(load), "metrics", m, "loads", load, "samples", "exit",
			 "oom_kill_count", oom ? 1 : 0);
}

static json_t *judge(const double *rps, size_t n, const json_t *base, const struct fit_slo *slo, size_t nslo,
		     bool oom_first, bool invalid_first)
{
	json_t *runs[8], *rec;

	for (size_t i = 0; i < n; i++)
		runs[i] = run_of(rps[i], oom_first && i == 0, !(invalid_first && i == 0));
	rec = fit_judge(runs, n, base, slo, nslo, 1 << 20, base == NULL);
	for (size_t i = 0; i < n; i++)
		json_decref(runs[i]);
	return rec;
}

static bool meets(const json_t *rec)
{
	return json_is_true(json_object_get(rec, "meets"));
}

static void test_judge(void)
{
	static const double base_rps[] = { 1000, 1010, 990 }, one_slow[] = { 1005, 995, 600 },
			    all_slow[] = { 700, 690, 710 }, same[] = { 1000, 1003, 998 };
	struct fit_slo slo[FIT_MAX_SLOS], c;
	struct lab_error err;
	json_t *base, *rec;
	size_t n;

	CHECK(fit_objectives(NULL, 0, slo, &n, &err) == 0);
	base = judge(base_rps, 3, NULL, slo, n, false, false);
	CHECK(json_is_null(json_object_get(base, "meets")) && json_is_true(json_object_get(base, "usable")));
	rec = judge(same, 3, base, slo, n, false, false);
	CHECK(meets(rec));
	json_decref(rec);
	/* One slow repeat is noise to the rule; three are real. */
	rec = judge(one_slow, 3, base, slo, n, false, false);
	CHECK(meets(rec));
	json_decref(rec);
	rec = judge(all_slow, 3, base, slo, n, false, false);
	CHECK(!meets(rec));
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(rec, "why"), 0)), "ops>=0.95*base");
	json_decref(rec);
	/* An OOM kill, or a load with no result, in one repeat fails the probe. */
	rec = judge(same, 3, base, slo, n, true, false);
	CHECK(!meets(rec));
	CHECK_EQ_U64(json_integer_value(json_object_get(rec, "oom_runs")), 1);
	CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(rec, "why"), 0)), "OOM kills in 1 of 3");
	json_decref(rec);
	rec = judge(same, 3, base, slo, n, false, true);
	CHECK(!meets(rec) && json_integer_value(json_object_get(rec, "completed_runs")) == 2);
	json_decref(rec);
	/* A service that failed with no error of its own says its exit code. */
	{
		json_t *runs[3];

		for (size_t i = 0; i < 3; i++)
			runs[i] = run_of(same[i], false, true);
		json_object_set_new(json_array_get(json_object_get(runs[1], "workloads"), 0), "fate",
				    json_string("failed"));
		json_object_set_new(json_array_get(json_object_get(runs[1], "workloads"), 0), "code", json_integer(1));
		rec = fit_judge(runs, 3, base, slo, n, 1 << 20, false);
		CHECK(!meets(rec) && json_integer_value(json_object_get(rec, "completed_runs")) == 2);
		CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(rec, "why"), 0)),
			       "repeat 2: svc failed (exit code 1)");
		json_decref(rec);
		/* With an error of its own (ended before it was ready), both. */
		json_object_set_new(json_array_get(json_object_get(runs[1], "workloads"), 0), "error",
				    json_string("ended before it was ready"));
		rec = fit_judge(runs, 3, base, slo, n, 1 << 20, false);
		CHECK_CONTAINS(json_string_value(json_array_get(json_object_get(rec, "why"), 0)),
			       "repeat 2: svc failed (exit code 1): ended before it was ready");
		json_decref(rec);
		for (size_t i = 0; i < 3; i++)
			json_decref(runs[i]);
	}
	/* A constant bound; psi recorded as not judged (no per-cgroup PSI here). */
	CHECK(fit_parse_slo("rps>=800", &c, &err) == 0);
	rec = judge(all_slow, 3, base, &c, 1, false, false);
	CHECK(!meets(rec));
	json_decref(rec);
	rec = judge(same, 3, base, slo, n, false, false);
	{
		const json_t *objs = json_object_get(rec, "objectives");
		bool psi_unjudged = false;

		for (size_t i = 0; i < json_array_size(objs); i++)
			psi_unjudged |= strcmp(json_string_value(json_object_get(json_array_get(objs, i), "objective")),
					       "psi<=10") == 0 &&
					json_is_false(json_object_get(json_array_get(objs, i), "judged"));
		CHECK(psi_unjudged);
	}
	json_decref(rec);
	json_decref(base);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	test_vary();
	test_slo();
	test_judge();
	printf("fit: %d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed ? 1 : 0;
}
