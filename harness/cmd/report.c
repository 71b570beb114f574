/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/report.c — `pagelab report` (harness/cmd/cli.md): options, the report
 * library (harness/read/report/report.h) or, with --html / --plots, the page
 * and plots library (harness/read/html.h); every message printed here. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "exitcode.h"
#include "readcmd.h"
#include "base/paths.h"
#include "read/compare.h"
#include "read/floor.h"
#include "read/html.h"
#include "read/report/report.h"

#define REPORT_SCHEMA_NAME "pagelab.report/1"
#define TABLES_SCHEMA_NAME "pagelab.tables/1"
#define RESULT_SCHEMA_NAME "pagelab.result/1"

static void usage(FILE *o)
{
	fprintf(o,
		"usage: pagelab report [--format markdown|csv|json] [--reference FILE] [--tables FILE]...\n"
		"                      RESULT.json...\n"
		"       pagelab report --html DIR [--by KEY] [--floor FILE|none] [--reference FILE] [--tables FILE]...\n"
		"                      RESULT.json...\n"
		"       pagelab report --plots DIR [--reference FILE] [--tables FILE]... RESULT.json...\n"
		"\n"
		"Print the tables the result documents feed: this host's figures beside an\n"
		"article's published ones (the MADV_FREE article, the watermark article or the\n"
		"min_free_kbytes article; one article per report), a scenario's own tables, or\n"
		"the generic report.  Tables are data (harness/read/report/tables.md): a result\n"
		"feeds the tables its scenario names (scenario.report) among the articles' in\n"
		"results/reference/tables/, and every table of the file beside its scenario\n"
		"(<scenario without .scn>.tables.json).  A result no table takes gets the\n"
		"generic report: per variant the outcome, every workload step's Rss, LazyFree,\n"
		"AnonHugePages, memory.current and residency, and the run's summary (peak\n"
		"usage, PSI, OOM kills, lowest free per zone against its lines).\n"
		"\n"
		"A run's stream, RESULT.jsonl, is read too (a run killed by SIGKILL leaves\n"
		"only that): one line on stderr says the run did not finish, and the tables\n"
		"show what was recorded.  Of the samples only what the tables fed read is\n"
		"kept (harness/result/read.h; PAGELAB_READ=full loads the whole document).\n"
		"\n"
		"Only tables with data are printed.  Runs are grouped into one column per\n"
		"kernel and cgroup mode (host.kernel, host.cgroup.memory), so results from a\n"
		"host run and from QEMU guests sit side by side.  A cell is the median over the\n"
		"repeats, with (min–max) when they differ; \"—\" means the result lacks the\n"
		"figure (e.g. the run was OOM-killed before that step).  Tables about\n"
		"memory.current also give each column's baseline: memory.current at the first\n"
		"step minus the region.  Every string of a document is printed as data\n"
		"(harness/cmd/cli.md, \"What a document's strings become\").\n"
		"\n"
		"  --format markdown  the tables as markdown on stdout (default)\n"
		"  --format csv       one line per (table, row, column) figure, with a header\n"
		"  --format json      a \"%s\" document with the same content\n"
		"  --reference FILE   the article's figures (default: %s, ARTICLE\n"
		"                     being madv-free, watermarks or min-free after the\n"
		"                     tables fed; relative to the current directory, else to\n"
		"                     %s)\n"
		"  --tables FILE      a tables file (%s) whose tables every result\n"
		"                     given feeds; may be repeated\n"
		"  --html DIR         one self-contained page DIR/index.html: the tables, each\n"
		"                     run's timeline (gnuplot), a compare when the results come\n"
		"                     from several kernels (or --by KEY: harness/read/html.h)\n"
		"  --floor FILE|none  with --html: the calibration the page's comparison judges\n"
		"                     timings by, as compare's --floor (default: %s\n"
		"                     when there is one and it is this machine's, else the\n"
		"                     default floor; none: the default floor only)\n"
		"  --plots DIR        the markdown report, and every run's chart drawn into DIR\n"
		"  -h, --help         this text\n"
		"Options and files may come in any order; `--` ends the options.  DIR is made\n"
		"in a private directory beside it and moved into place when complete; a DIR\n"
		"that is a symbolic link or another user's is refused.\n"
		"\n"
		"Exit status: 0 printed; 2 bad usage, or an input or tables file that cannot be\n"
		"read or is not a %s / %s document, or a refused DIR;\n"
		"3 --html / --plots without gnuplot; 1 internal failure.\n",
		REPORT_SCHEMA_NAME, "results/reference/ARTICLE.json", lab_data_dir(), TABLES_SCHEMA_NAME,
		FLOOR_DEFAULT_PATH, RESULT_SCHEMA_NAME, TABLES_SCHEMA_NAME);
}

struct args {
	enum report_format fmt;
	bool fmt_given;
	struct report_options opt;
	const char **files, **tables;
	size_t nfiles;
	const char *html, *plots, *by, *floor;
};

static const char *takes(int val)
{
	switch (val) {
	case 'f': return "markdown, csv or json";
	case 'r': case 't': return "a file";
	case 'H': case 'P': return "a directory";
	case 'b': return "a key (kernel, thp, wsf, …)";
	case 'F': return "a calibration file, or none";
	}
	return "a value";
}

/* An option's value: given and not empty. */
static int value(int c, const char *v, const char *name)
{
	if (v[0] != '\0')
		return 0;
	readcmd_say("report", "%s takes %s", name, takes(c));
	return LAB_EXIT_USAGE;
}

/* Returns -1 parsed, else the exit status (0 after --help). */
static int parse(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "reference", required_argument, NULL, 'r' },
		{ "tables", required_argument, NULL, 't' },
		{ "html", required_argument, NULL, 'H' },
		{ "plots", required_argument, NULL, 'P' },
		{ "by", required_argument, NULL, 'b' },
		{ "floor", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	a->files = calloc((size_t)argc + 1, sizeof(*a->files));
	a->tables = calloc((size_t)argc + 1, sizeof(*a->tables));
	if (a->files == NULL || a->tables == NULL) {
		readcmd_say("report", "out of memory");
		return LAB_EXIT_HARNESS;
	}
	a->opt.tables = a->tables;
	optind = 0;                     /* glibc: a full reset (permuting, from argv[1]) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "markdown") && strcmp(optarg, "csv") && strcmp(optarg, "json")) {
				readcmd_say("report", "--format takes markdown, csv or json");
				return LAB_EXIT_USAGE;
			}
			a->fmt = optarg[0] == 'm' ? REPORT_MARKDOWN : optarg[0] == 'c' ? REPORT_CSV : REPORT_JSON;
			a->fmt_given |= a->fmt != REPORT_MARKDOWN;
			break;
		case 'r':
			a->opt.reference = optarg;
			if (value(c, optarg, "--reference"))
				return LAB_EXIT_USAGE;
			break;
		case 't':
			if (value(c, optarg, "--tables"))
				return LAB_EXIT_USAGE;
			a->tables[a->opt.ntables++] = optarg;
			break;
		case 'H':
			if (value(c, optarg, "--html"))
				return LAB_EXIT_USAGE;
			a->html = optarg;
			break;
		case 'P':
			if (value(c, optarg, "--plots"))
				return LAB_EXIT_USAGE;
			a->plots = optarg;
			break;
		case 'b':
			if (value(c, optarg, "--by"))
				return LAB_EXIT_USAGE;
			a->by = optarg;
			break;
		case 'F':
			if (value(c, optarg, "--floor"))
				return LAB_EXIT_USAGE;
			a->floor = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return readcmd_bad_option("report", c, argv, takes(optopt));
		}
	}
	for (int i = optind; i < argc; i++)
		a->files[a->nfiles++] = argv[i];
	return -1;
}

/* What goes with what: --html or --plots (not both, markdown only), --by
 * only with a page, at least one file. */
static int check(const struct args *a)
{
	const char *fmts[] = { "markdown", "csv", "json" };

	if (a->html != NULL && a->plots != NULL) {
		readcmd_say("report", "--html or --plots, not both (the page holds its plots)");
		return LAB_EXIT_USAGE;
	}
	if ((a->html != NULL || a->plots != NULL) && a->fmt_given) {
		readcmd_say("report", "--html and --plots go with the markdown report only (not --format %s)",
			    fmts[a->fmt]);
		return LAB_EXIT_USAGE;
	}
	if (a->floor != NULL && a->html == NULL) {
		readcmd_say("report", "--floor FILE|none goes with --html DIR (the page's comparison)");
		return LAB_EXIT_USAGE;
	}
	if (a->by != NULL && a->html == NULL && a->plots == NULL) {
		readcmd_say("report", "--by KEY goes with --html DIR (the page's comparison)");
		return LAB_EXIT_USAGE;
	}
	if (a->nfiles == 0) {
		readcmd_say("report", "no result file given (see pagelab report --help)");
		return LAB_EXIT_USAGE;
	}
	return 0;
}



static int run_report(struct args *a, struct lab_progress *say)
{
	struct html_opts ho = { .by = a->by, .report = &a->opt, .progress = say };
	struct lab_error err;
	char page[4200];
	int ret;

	lab_error_clear(&err);
	a->opt.progress = say;
	if (a->html != NULL) {
		struct compare_opts co = { 0 };
		struct floor *floor = NULL;

		/* A calibration refused is bad input, as compare's --floor. */
		if ((ret = readcmd_floor(a->floor, &co, &floor, &err)) < 0) {
			readcmd_fail("report", ret, &err);
			return err.code == ENOMEM ? LAB_EXIT_HARNESS : LAB_EXIT_USAGE;
		}
		ho.floor = floor;
		ho.floor_optional = co.floor_optional;
		ret = html_page(a->html, a->files, a->nfiles, &ho, page, sizeof(page), &err);
		floor_free(floor);
		if (ret == 0)
			readcmd_line(stdout, page);
	} else if (a->plots != NULL) {
		ret = html_plots(a->plots, a->files, a->nfiles, &ho, stdout, &err);
	} else {
		struct report *rep = NULL;

		/* A document or table file refused: 2 (1 out of memory); the
		 * report not written: 1. */
		if ((ret = report_load(a->files, a->nfiles, &a->opt, &rep, &err)) < 0) {
			readcmd_fail("report", ret, &err);
			return err.code == ENOMEM ? LAB_EXIT_HARNESS : LAB_EXIT_USAGE;
		}
		ret = report_write(rep, a->fmt, stdout, &err);
		report_free(rep);
		if (ret < 0) {
			readcmd_fail("report", ret, &err);
			return LAB_EXIT_HARNESS;
		}
		return LAB_EXIT_RAN;
	}
	if (ret < 0)
		readcmd_fail("report", ret, &err);
	if (ret == 0 && fflush(stdout) != 0)
		return LAB_EXIT_HARNESS;
	return readcmd_draw_status(ret);
}

int cmd_report(int argc, char **argv)
{
	const char *who = "report";
	struct lab_progress say = readcmd_progress(&who);
	struct args a = { .fmt = REPORT_MARKDOWN };
	int status = parse(argc, argv, &a);

	if (status < 0)
		status = check(&a);
	if (status == 0 && a.nfiles > 0)
		status = run_report(&a, &say);
	free(a.files);
	free(a.tables);
	return status;
}
