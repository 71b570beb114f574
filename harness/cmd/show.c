/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/show.c — `pagelab show NAME|FILE` (harness/cmd/cli.md): every variant
 * planned and typed as `run` would, printed, nothing run. */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "exitcode.h"
#include "plan/tracedef.h"
#include "run/run.h"
#include "sandbox/settings.h"

static void show_variant(const struct run_spec *r)
{
	char vt[256], ts[160];

	run_spec_variant_text(r, vt, sizeof(vt));
	printf("  %s %s  sandbox %llu bytes", r->label, vt, r->sandbox.val[SB_MEMORY_MAX]);
	for (size_t i = 0; i < SB_NR_SETTINGS; i++)
		if (i != SB_MEMORY_MAX && (r->sandbox.given & (1u << i)))
			printf(", %s %llu", sandbox_settings[i].key, r->sandbox.val[i]);
	printf("\n");
	for (size_t w = 0; w < r->nr_workloads; w++) {
		printf("    %s:", r->workloads[w].name);
		for (int a = 0; a < r->workloads[w].argc; a++)
			printf(" %s", r->workloads[w].argv[a]);
		printf("\n");
	}
	for (size_t k = 0; k < r->nr_knobs; k++)
		printf("    knob %s = %s (writes %s)\n", r->knobs[k].name, r->knobs[k].text, r->knobs[k].value);
	tracedef_set_text(r->trace.set, ts, sizeof(ts));
	printf("    trace %s%s, bursts %u ms\n", ts, r->trace.raw ? " (raw)" : "", r->trace.burst_ms);
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_plan p;
	struct lab_error err;
	char abs[PATH_MAX];
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cli_usage_text, stdout);
			return LAB_EXIT_RAN;
		}
		fprintf(stderr, "pagelab: show: unknown option '%s' (see pagelab --help)\n", argv[optind - 1]);
		return LAB_EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "pagelab: show: %s (see pagelab --help)\n",
			optind >= argc ? "which scenario?" : "one scenario at a time");
		return LAB_EXIT_USAGE;
	}
	if (run_plan_load(argv[optind], NULL, 0, 0, run_machine_bytes(), RUN_MACHINE_WHAT, &p, &err) < 0 ||
	    run_plan_instantiate(&p, 0, run_memtotal_bytes(), &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		run_plan_free(&p);
		return err.code == ENOMEM ? LAB_EXIT_HARNESS : LAB_EXIT_USAGE;
	}
	printf("%s — %s\nsource: %s\nfile: %s\nrepeat %u, %zu variant(s):\n", p.s.name, p.s.title ? p.s.title : "",
	       p.s.source ? p.s.source : "-", realpath(p.path, abs) != NULL ? abs : p.path, p.repeat, p.nv);
	for (size_t v = 0; v < p.nv; v++)
		show_variant(&p.specs[v]);
	run_plan_free(&p);
	return LAB_EXIT_RAN;
}
