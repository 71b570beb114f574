/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main.c — the pagelab command line (documented in harness/cmd/cli.md): a table
 * of subcommands, one file each (cmd.h).  A scenario run is harness/run/run.h's
 * pipeline; exit statuses are harness/cmd/exitcode.h's. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "readcmd.h"
#include "cli.h"
#include "exitcode.h"
#include "base/fileio.h"
#include "base/trust.h"
#include "run/commit.h"

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
	"  fit NAME|FILE --vary memory_max=LO..HI [--slo OBJ]... [run options]\n"
	"                            the smallest quota at which a service still meets its\n"
	"                            objectives, and what each dashboard said (pagelab fit --help)\n"
	"  check [--json]            what this host can and cannot run, and why\n"
	"  audit [--json] [--wsf N] [--watch S] [--with KNOB=V] [--advice FILE]\n"
	"                            this host's watermark arithmetic explained (reads only;\n"
	"                            --with sets a knob through the journal for the audit);\n"
	"                            --advice lints a sysctl.conf-style file against this kernel\n"
	"  restore                   put back every knob a killed run left changed (knob journal)\n"
	"  vm [vm options] run NAME|FILE [run options]\n"
	"                            the scenario in QEMU guests (Debian 6.1/6.12/6.18, cgroup v2):\n"
	"                            --kernel 6.1|6.12|6.12-16k|6.18|PATH (repeatable), --host,\n"
	"                            --mem SIZE,\n"
	"                            --cpus N, --thp MODE, --swap SIZE, --disk SIZE (ext2 on\n"
	"                            the guest's /var/tmp), --cmdline TEXT, --timeout S,\n"
	"                            --out-dir DIR (docs/vm.md)\n"
	"                            --arch arm64: an arm64 guest (Debian's arm64 kernel;\n"
	"                            6.12-16k: its 16 KiB-page build, arm64 only;\n"
	"                            6.18: Debian 13's, from trixie-backports);\n"
	"                            --numa N: N NUMA nodes sharing --mem evenly\n"
	"                            a scenario's command and load programs are carried in\n"
	"                            with their libraries (amd64 guests)\n"
	"  vm [vm options] fit NAME|FILE --vary KEY=LO..HI [fit options]\n"
	"                            pagelab fit inside the guest: memory_high (cgroup v2) too\n"
	"  vm [vm options] audit [audit options] [--then [audit options]]...\n"
	"                            pagelab audit inside the guest, one state per --then\n"
	"  version                   harness version and the commit it was built from\n"
	"\n"
	"run options:\n"
	"  --out FILE           result document path (default results/NAME-STAMP.json)\n"
	"  --repeat N           repeat every variant N times (default: the scenario's)\n"
	"  --set KEY=VALUE      override a parameter (or pin a matrix dimension); repeatable\n"
	"  --interval MS        sampling tick, 10..10000 ms (default 250)\n"
	"  --timeout S          stop a run that lasts longer (default 600)\n"
	"  --allow-destructive  run a scenario that can cause a global OOM on THIS host\n"
	"  --allow-root-workload let a scenario's command and loads run as root (user = root)\n"
	"  --sandbox child|self child (default): a new cgroup below pagelab's own; self:\n"
	"                       pagelab's own cgroup is the sandbox (a container started with\n"
	"                       --memory M --memory-swap M); its limit must be the scenario's\n"
	"  --trace SET          tracepoints: default (the lab's), all, none, or groups of\n"
	"                       kswapd direct memcg compaction oom markers lru forks\n"
	"                       pageout\n"
	"                       (default: the scenario's [trace] events, else the lab's,\n"
	"                       with forks when a workload is a command)\n"
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
	"NAME (madv-free/probe) is looked up only in the catalogue: $PAGELAB_SCENARIOS, else the\n"
	"installed (or source) tree's scenarios/; a FILE outside it is named as a path (./x.scn,\n"
	"/abs/x.scn, dir/x.scn).  $PAGELAB_SCENARIOS, $PAGELAB_DATA_DIR and $PAGELAB_WORKLOADS must\n"
	"be root's (or yours) and not writable by group or others, all the way up.\n"
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

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	/* The tree it was built from (cmake/commit.cmake): its commit, and
	 * whether a tracked file differed from it. */
	printf("pagelab %s (%s%s)\n", PAGELAB_VERSION, run_commit, run_modified == 1 ? ", modified" : "");
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
	{ "list", cmd_list },
	{ "check", cmd_check },
	{ "report", cmd_report },
	{ "audit", cmd_audit },
	{ "restore", cmd_restore },
	{ "vm", cmd_vm },
	{ "plot", cmd_plot },
	{ "compare", cmd_compare },
	{ "fit", cmd_fit },
	{ "version", cmd_version },
	{ "--version", cmd_version },
	{ "help", cmd_help },
	{ "--help", cmd_help },
	{ "-h", cmd_help },
};

/* The directories pagelab takes from its environment (base/trust.h:
 * lab_trust_environment) are checked once, before any command that may read
 * or execute what they hold.  `restore` is not held back by them (it reads
 * only the knob journal, which it checks itself), nor are help and version. */
static bool needs_environment(const char *name)
{
	static const char *const free_of_it[] = { "restore", "version", "--version", "help", "--help", "-h" };

	for (size_t i = 0; i < sizeof(free_of_it) / sizeof(free_of_it[0]); i++)
		if (strcmp(name, free_of_it[i]) == 0)
			return false;
	return true;
}

int main(int argc, char **argv)
{
	struct lab_error err;

	if (argc < 2) {
		fputs(cli_usage_text, stderr);
		return LAB_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		if (needs_environment(commands[i].name) && lab_trust_environment(&err) < 0) {
			readcmd_say(NULL, "%s", err.msg);
			return LAB_EXIT_USAGE;
		}
		return commands[i].main(argc - 1, argv + 1);
	}
	return usage_error("unknown command '%s'", argv[1]);
}
