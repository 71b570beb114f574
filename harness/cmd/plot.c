/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/plot.c — `pagelab plot` (harness/cmd/cli.md): options, the plot
 * library (harness/read/plot.h), the charts' paths on stdout. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "exitcode.h"
#include "readcmd.h"
#include "read/plot.h"

static void usage(FILE *o)
{
	fputs("usage: pagelab plot [--out DIR] [--format svg|png] [--run LABEL] [--no-overlay] RESULT.json...\n"
	      "\n"
	      "Draw each run of each result document with gnuplot: one chart per run, its\n"
	      "panels on one time axis with the workload steps marked —\n"
	      "  zones     free pages per zone with min / low / high (boost where non-zero)\n"
	      "  sandbox   memory usage against memory.max (memory.high where set), OOM kills\n"
	      "            marked with the victim's name\n"
	      "  workload  the main workload's Rss, LazyFree, AnonHugePages; resident pages\n"
	      "  reclaim   kswapd / direct scan rates, swap-out, allocstall\n"
	      "  pressure  PSI some / full where sampled\n"
	      "kswapd's awake intervals are shaded and reclaim stalls marked when the result\n"
	      "has an event timeline.  A result with several variants also gets\n"
	      "STEM-variants: the variants overlaid.  A panel the result has no figure for\n"
	      "says so.  Beside each chart: its data (STEM-LABELn.dat) and gnuplot script\n"
	      "(STEM-LABELn.gp; `cd DIR && gnuplot STEM-A1.gp` redraws it).  A document's\n"
	      "strings reach a script only as quoted, escaped strings: a result is data.\n"
	      "A run's stream, RESULT.jsonl, is read too (a run killed by SIGKILL leaves\n"
	      "only that): one line on stderr says the run did not finish.  The samples are\n"
	      "read keeping only what the charts draw, so an hour-long result takes a\n"
	      "fraction of its size in memory (PAGELAB_READ=full: the whole document).\n"
	      "\n"
	      "  --out DIR        where the charts go (default ./plots; made in a private\n"
	      "                   directory beside it, moved into place when complete; a DIR\n"
	      "                   that is a symbolic link or another user's is refused)\n"
	      "  --format svg|png chart format (default svg)\n"
	      "  --run LABEL      only the runs with that label (A, B, …)\n"
	      "  --no-overlay     no variants chart\n"
	      "  -h, --help       this text\n"
	      "Options and files may come in any order; `--` ends the options.\n"
	      "\n"
	      "Prints each chart's path.  Exit status: 0 drawn; 1 gnuplot or the harness\n"
	      "failed; 2 bad usage, an input that is not a pagelab.result/1 document, or a\n"
	      "refused --out; 3 gnuplot is not installed (Debian: gnuplot-nox).\n", o);
}

static const char *takes(int val)
{
	switch (val) {
	case 'o': return "a directory";
	case 'f': return "svg or png";
	case 'r': return "a run label (A, B, …)";
	}
	return "a value";
}

/* Returns -1 parsed, else the exit status (0 after --help). */
static int parse(int argc, char **argv, struct plot_opts *o)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "run", required_argument, NULL, 'r' },
		{ "no-overlay", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;                     /* glibc: a full reset (permuting, from argv[1]) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (optarg[0] == '\0') {
				readcmd_say("plot", "--out takes a directory");
				return LAB_EXIT_USAGE;
			}
			o->out_dir = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "svg") && strcmp(optarg, "png")) {
				readcmd_say("plot", "--format takes svg or png, not '%s'", optarg);
				return LAB_EXIT_USAGE;
			}
			o->format = optarg[0] == 'p' ? PLOT_PNG : PLOT_SVG;
			break;
		case 'r':
			o->run_label = optarg;
			break;
		case 'n':
			o->overlay = false;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return readcmd_bad_option("plot", c, argv, takes(optopt));
		}
	}
	if (optind >= argc) {
		readcmd_say("plot", "no result file given (see pagelab plot --help)");
		return LAB_EXIT_USAGE;
	}
	return -1;
}



int cmd_plot(int argc, char **argv)
{
	const char *who = "plot";
	struct lab_progress say = readcmd_progress(&who);
	struct plot_opts o = { .out_dir = "plots", .format = PLOT_SVG, .overlay = true, .progress = &say };
	struct plot_charts charts = { 0 };
	struct lab_error err;
	int status = parse(argc, argv, &o), ret;

	if (status >= 0)
		return status;
	lab_error_clear(&err);
	ret = plot_files((const char *const *)argv + optind, (size_t)(argc - optind), &o, &charts, &err);
	if (ret < 0)
		readcmd_fail("plot", ret, &err);
	for (size_t i = 0; ret == 0 && i < charts.n; i++)
		readcmd_line(stdout, charts.v[i].path);
	plot_charts_free(&charts);
	status = readcmd_draw_status(ret);
	if (fflush(stdout) != 0 && status == LAB_EXIT_RAN)
		status = LAB_EXIT_HARNESS;
	return status;
}
