/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — the pagelab command line (documented in harness/cmd/cli.md): a table
 * of subcommands.  A scenario run is harness/run/run.c's pipeline; exit
 * statuses are harness/cmd/exitcode.h's. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cli.h"
#include "exitcode.h"
#include "base/fileio.h"
#include "plan/catalog.h"
#include "plan/scenario.h"

const char cli_usage_text[] =
	"usage: pagelab COMMAND [ARGS]\n"
	"\n"
	"  run NAME|FILE [options]   run a scenario and write its result document\n"
	"  list                      the scenarios pagelab knows, with their titles\n"
	"  show NAME|FILE            a scenario's parameters, matrix and runs, checked but not run\n"
	"  report RESULT.json...     tables from data: an article beside this host, or the generic report\n"
	"                            (--html DIR: one page with the plots; --plots DIR)\n"
	"  plot RESULT.json...       each run's timeline drawn by gnuplot (SVG/PNG)\n"
	"  compare BASE.json... -- NEW.json... | --by KEY RESULT.json...\n"
	"                            which differences are real (Welch t-test + LKP rule;\n"
	"                            Fisher's exact test for outcome counts)\n"
	"  check [--json]            what this host can and cannot run, and why\n"
	"  audit [--json] [--wsf N] [--watch S] [--with KNOB=V] [--advice FILE]\n"
	"                            this host's watermark arithmetic explained (reads only;\n"
	"                            --with sets a knob through the journal for the audit);\n"
	"                            --advice lints a sysctl.conf-style file against this kernel\n"
	"  restore                   put back every knob a killed run left changed (knob journal)\n"
	"  vm [vm options] run NAME|FILE [run options]\n"
	"                            the scenario in QEMU guests (Debian 6.1/6.12, cgroup v2):\n"
	"                            --kernel 6.1|6.12|PATH (repeatable), --host, --mem SIZE,\n"
	"                            --cpus N, --thp MODE, --swap SIZE, --disk SIZE (ext2 on\n"
	"                            the guest's /var/tmp), --cmdline TEXT, --timeout S,\n"
	"                            --out-dir DIR (docs/vm.md)\n"
	"                            --arch arm64: an arm64 guest (Debian's arm64 kernel);\n"
	"                            --numa N: N NUMA nodes sharing --mem evenly\n"
	"  vm [vm options] audit [audit options] [--then [audit options]]...\n"
	"                            pagelab audit inside the guest, one state per --then\n"
	"  version                   harness version and commit\n"
	"\n"
	"run options:\n"
	"  --out FILE           result document path (default results/NAME-STAMP.json)\n"
	"  --repeat N           repeat every variant N times (default: the scenario's)\n"
	"  --set KEY=VALUE      override a parameter (or pin a matrix dimension); repeatable\n"
	"  --interval MS        sampling tick, 10..10000 ms (default 250)\n"
	"  --timeout S          stop a run that lasts longer (default 600)\n"
	"  --allow-destructive  run a scenario that can cause a global OOM on THIS host\n"
	"  --sandbox child|self child (default): a new cgroup below pagelab's own; self:\n"
	"                       pagelab's own cgroup is the sandbox (a container started with\n"
	"                       --memory M --memory-swap M); its limit must be the scenario's\n"
	"  --trace SET          tracepoints: default (the lab's), all, none, or groups of\n"
	"                       kswapd direct memcg compaction oom markers (default:\n"
	"                       the scenario's [trace] events, else the lab's)\n"
	"  --trace-raw          keep high-rate events (reclaim stalls, compaction) one by\n"
	"                       one, not only as per-interval counts and histograms, and\n"
	"                       each burst sample as its own line, not folded per tick\n"
	"  --burst MS           sample every MS (2..1000, 0 = never; default 10) while a zone\n"
	"                       is near its low line, kswapd is awake or a stall is open\n"
	"  --no-report          do not print the summary table\n"
	"  -v, --verbose        one stderr line per workload step\n"
	"\n"
	"exit status: 0 ran (the workload's fate is data), 1 harness failure,\n"
	"2 bad usage or input (nothing changed), 3 this host cannot run it,\n"
	"130 interrupted (the result is still written).\n"
	"Scenarios are looked up in $PAGELAB_SCENARIOS, ./scenarios, then the source tree.\n"
	"A scenario's [knobs] are journaled in $PAGELAB_JOURNAL (default /var/lib/pagelab/journal)\n"
	"before each change and put back after each run; `pagelab restore` after a crash.\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagelab: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see pagelab --help)\n");
	return LAB_EXIT_USAGE;
}

/* ------------------------------------------------------------------------ */
/* list / show                                                                */

static int cmd_list(void)
{
	char dir[PATH_MAX];
	DIR *top;
	struct dirent *g;
	struct lab_error derr;

	if (catalog_dir(dir, sizeof(dir), &derr) < 0 || (top = opendir(dir)) == NULL) {
		fprintf(stderr, "pagelab: no scenarios directory (%s)\n", dir);
		return LAB_EXIT_HARNESS;
	}
	while ((g = readdir(top)) != NULL) {
		char sub[PATH_MAX * 2];
		struct dirent **names;
		int n;

		if (g->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, g->d_name);
		n = scandir(sub, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			size_t l = strlen(names[i]->d_name);

			if (l > 4 && !strcmp(names[i]->d_name + l - 4, ".scn")) {
				char path[PATH_MAX * 3];
				cleanup_free char *text = NULL;
				struct scenario s;
				struct lab_error err;

				snprintf(path, sizeof(path), "%s/%s", sub, names[i]->d_name);
				if (lab_read_input(path, "scenario", LAB_SCENARIO_MAX, 0, &text, NULL, &err) == 0 &&
				    scenario_parse(path, text, &s, &err) == 0) {
					printf("%-28s %s%s\n", s.name, s.destructive ? "[destructive] " : "",
					       s.title ? s.title : "");
					scenario_free(&s);
				} else {
					printf("%-28s (broken: %s)\n", names[i]->d_name, err.msg);
				}
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
	}
	closedir(top);
	return LAB_EXIT_RAN;
}


static int cmd_list_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cmd_list();
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("pagelab %s (%s)\n", PAGELAB_VERSION, PAGELAB_COMMIT);
	return LAB_EXIT_RAN;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fputs(cli_usage_text, stdout);
	return LAB_EXIT_RAN;
}

/* Each command gets argv from its own name on. */
static const struct command {
	const char *name;
	int (*main)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "show", cmd_show },
	{ "list", cmd_list_main },
	{ "check", cmd_check },
	{ "report", cmd_report },
	{ "audit", cmd_audit },
	{ "restore", cmd_restore },
	{ "vm", cmd_vm },
	{ "plot", cmd_plot },
	{ "compare", cmd_compare },
	{ "version", cmd_version },
	{ "--version", cmd_version },
	{ "help", cmd_help },
	{ "--help", cmd_help },
	{ "-h", cmd_help },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(cli_usage_text, stderr);
		return LAB_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].main(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", argv[1]);
}
