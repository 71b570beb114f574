/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_victims.c — exit.oom_victims (harness/run/victims.c) on a real run
 * whose page walk held an exiting OOM victim and whose OOM killer then took
 * a second process inside that hold (fixtures/results/walk-held-second-kill.json,
 * tests/fixtures/README.md): the second kill is marked while_walk_held and
 * warned of; moved out of the hold, or with the hold gone, it is not; in a
 * run whose kills were not timed, the hold is warned of as a possible cause. */
#include <stdarg.h>
#include <string.h>

#include "run/stages.h"
#include "unit.h"

struct said {
	char text[8192];
	int warnings;
};

static void say(void *ctx, enum lab_say kind, const char *line)
{
	struct said *s = ctx;
	size_t n = strlen(s->text);

	if (kind == LAB_SAY_WARN)
		s->warnings++;
	snprintf(s->text + n, sizeof(s->text) - n, "%s%s\n", kind == LAB_SAY_WARN ? "warning: " : "", line);
}

static json_t *load_run(const char *root)
{
	char path[4096];
	json_error_t je;
	json_t *doc, *run;

	snprintf(path, sizeof(path), "%s/results/walk-held-second-kill.json", root);
	doc = json_load_file(path, 0, &je);
	CHECK(doc != NULL);
	if (doc == NULL)
		return NULL;
	run = json_incref(json_array_get(json_object_get(doc, "runs"), 0));
	json_decref(doc);
	return run;
}

static const json_t *victim(const json_t *run, const char *comm)
{
	const json_t *vs = json_object_get(json_object_get(run, "exit"), "oom_victims");

	for (size_t i = 0; i < json_array_size(vs); i++) {
		const char *c = json_string_value(json_object_get(json_array_get(vs, i), "comm"));

		if (c != NULL && strcmp(c, comm) == 0)
			return json_array_get(vs, i);
	}
	return NULL;
}

/* As recorded: dd (32687) held 685.3..728.6 ms, sleep (32683) marked at 693.1. */
static void test_marked(const char *root)
{
	json_t *run = load_run(root);
	const json_t *dd, *sl, *h;
	struct said s = { 0 };
	const struct lab_progress prog = { .fn = say, .ctx = &s };

	if (run == NULL)
		return;
	run_oom_victims(run, NULL);
	dd = victim(run, "dd");
	sl = victim(run, "sleep");
	CHECK(dd != NULL && sl != NULL);
	CHECK(json_array_size(json_object_get(json_object_get(run, "exit"), "oom_victims")) == 2);
	CHECK(json_object_get(dd, "while_walk_held") == NULL);     /* the held one itself */
	h = json_object_get(sl, "while_walk_held");
	CHECK(json_integer_value(json_object_get(h, "pid")) == 32687);
	CHECK(json_is_string(json_object_get(h, "comm")) && strcmp(json_string_value(json_object_get(h, "comm")), "dd") == 0);
	CHECK(json_is_string(json_object_get(h, "workload")) &&
	      strcmp(json_string_value(json_object_get(h, "workload")), "svc") == 0);
	CHECK(json_integer_value(json_object_get(json_object_get(run, "exit"), "walk_held_kills")) == 1);
	run_say_victims(&prog, 0, run);
	CHECK(s.warnings == 1);
	CHECK(strstr(s.text, "warning: run 1: sleep (pid 32683) was OOM-killed while pagelab's page walk held the "
			     "memory of dd (pid 32687, svc), which had exited") != NULL);
	CHECK(strstr(s.text, "run 1: OOM kill: dd (pid 32687) of svc's process tree") != NULL);
	json_decref(run);
}

/* The same run with the hold ending 1 µs before sleep's mark: not marked,
 * counted 0, nothing warned (the kills are timed). */
static void test_outside(const char *root)
{
	json_t *run = load_run(root), *h;
	struct said s = { 0 };
	const struct lab_progress prog = { .fn = say, .ctx = &s };

	if (run == NULL)
		return;
	h = json_array_get(json_object_get(json_object_get(run, "exit"), "walk_held"), 0);
	json_object_set_new(h, "to_ms", json_real(693.056174));
	run_oom_victims(run, NULL);
	CHECK(victim(run, "sleep") != NULL && json_object_get(victim(run, "sleep"), "while_walk_held") == NULL);
	CHECK(json_integer_value(json_object_get(json_object_get(run, "exit"), "walk_held_kills")) == 0);
	run_say_victims(&prog, 0, run);
	CHECK(s.warnings == 0);
	json_decref(run);
}

/* A result from before the walks noted holds: no walk_held, so no
 * walk_held_kills either (absent, not 0: nothing was looked at). */
static void test_old(const char *root)
{
	json_t *run = load_run(root);

	if (run == NULL)
		return;
	json_object_del(json_object_get(run, "exit"), "walk_held");
	run_oom_victims(run, NULL);
	CHECK(json_object_get(json_object_get(run, "exit"), "walk_held_kills") == NULL);
	CHECK(json_object_get(victim(run, "sleep"), "while_walk_held") == NULL);
	json_decref(run);
}

/* Untraced: the same kills known from the log alone, without times — the
 * hold cannot be matched to a kill, and is warned of as a possible cause. */
static void test_untimed(const char *root)
{
	json_t *run = load_run(root);
	struct said s = { 0 };
	const struct lab_progress prog = { .fn = say, .ctx = &s };

	if (run == NULL)
		return;
	json_object_del(json_object_get(run, "summary"), "trace");
	run_oom_victims(run, NULL);
	CHECK(json_array_size(json_object_get(json_object_get(run, "exit"), "oom_victims")) == 2);
	CHECK(json_object_get(victim(run, "sleep"), "while_walk_held") == NULL);
	CHECK(json_integer_value(json_object_get(json_object_get(run, "exit"), "walk_held_kills")) == 0);
	run_say_victims(&prog, 0, run);
	CHECK(s.warnings == 1);
	CHECK(strstr(s.text, "warning: run 1: pagelab's page walk held the memory of dd (pid 32687) as it exited, and "
			     "the run had 2 OOM kills, not all of them timed") != NULL);
	json_decref(run);
}

int main(int argc, char **argv)
{
	const char *root = unit_fixtures_root(argc, argv);

	if (root == NULL)
		return 2;
	test_marked(root);
	test_outside(root);
	test_old(root);
	test_untimed(root);
	return unit_report("victims");
}
