/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/compare.c — `pagelab compare` (harness/cmd/cli.md): options, the two
 * sides, the compare library (harness/read/compare.h), the document printed.
 *
 * The sides: the FIRST argument that is exactly `--` separates BASE from NEW
 * (it does not end the options); each side is parsed with getopt_long in
 * permuting mode on its own, so options may come anywhere —
 * `compare A -- B --format json` — and a second `--` ends the options of
 * the NEW side (`compare A -- -- --odd-name.json`).  With --by there is one
 * set of files and no separator. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "exitcode.h"
#include "readcmd.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "read/compare.h"
#include "read/floor.h"
#include "read/stats.h"

static void usage(FILE *o)
{
	fprintf(o,
		"usage: pagelab compare [--format markdown|csv|json] [--threshold PCT] [--floor FILE|none]\n"
		"                       BASE.json... -- NEW.json...\n"
		"       pagelab compare [--format ...] [--threshold PCT] [--floor ...] --by KEY RESULT.json...\n"
		"       pagelab compare --calibrate [--floor FILE] A.json B.json...\n"
		"\n"
		"Compare every figure of every report table that both sides have: each side's\n"
		"median and min–max over its repeats, the change in %%, and a verdict —\n"
		"  real             Welch's t-test (95 %%, GSL's t distribution) AND the LKP rule\n"
		"                   (|change| > --threshold and the min–max ranges do not overlap)\n"
		"  t-test only      the t-test alone: repeats of a deterministic figure have no\n"
		"                   variance, so it calls 345 vs 346 significant — not real\n"
		"  range only       the LKP rule alone — not real\n"
		"  same             neither\n"
		"  not enough runs  a side has fewer than %d repeats: no verdict\n"
		"Outcomes (completed, oom_killed, …) are counted per variant: k of n runs a side,\n"
		"Fisher's exact test (two-sided; 3/3 against 0/3 gives p = 0.1, so three runs a side\n"
		"can never make an outcome significant at 95 %%).\n"
		"\n"
		"Every figure is a count (pages, kB, events: exact) or a timing (µs, ms, rates:\n"
		"they drift with the machine), by its row's declared class or its unit; a timing\n"
		"is real only when its change is also above its noise floor: the spread an A/A\n"
		"calibration saw for it on this machine, else the default %g %%.\n"
		"\n"
		"  --calibrate      A.json B.json… are sets of one scenario at the same settings on\n"
		"                   this machine: store each timing's spread (max / min - 1 over\n"
		"                   all their runs) and the machine's identity in --floor FILE\n"
		"                   (default %s). A timing's change: its larger median\n"
		"                   over the smaller, less 1 (a halving is as far as a doubling)\n"
		"  --floor FILE     the calibration to judge timings by; one made on another machine\n"
		"                   (kernel, CPU model or count, fingerprint) is refused, exit 2.\n"
		"                   Default: %s when it exists (set aside, with a\n"
		"                   note, when it is of another machine); none: the default only\n"
		"  --by KEY         split the results by KEY and compare each group with the first:\n"
		"                   kernel (host.kernel), a variant key (thp, wsf, advice, …) or a\n"
		"                   parameter; wsf, thp and min_free_kbytes fall back to the host's\n"
		"                   setting; host (host.hostname): a fleet's hosts side by side\n"
		"  --threshold PCT  the LKP rule's change (default %g)\n"
		"  --format F       markdown (default), csv, or json (a %s document)\n"
		"  -h, --help       this text\n"
		"The first `--` separates BASE from NEW; options may come anywhere on either\n"
		"side (`compare A.json -- B.json --format json`); a second `--` ends the options.\n"
		"\n"
		"Exit status: 0 compared; 2 bad usage or input; 1 internal failure.\n",
		STATS_MIN_REPEATS, FLOOR_DEFAULT_PCT, FLOOR_DEFAULT_PATH, FLOOR_DEFAULT_PATH, COMPARE_THRESHOLD_PCT,
		COMPARE_SCHEMA);
}

struct args {
	const char *by, *fmt, *floor;
	bool calibrate;
	double threshold;
	const char **base, **nw;
	size_t nb, nn;
	bool sides;                     /* a `--` was given */
};

static const char *takes(int val)
{
	switch (val) {
	case 'b': return "a key (kernel, host, a variant key or a parameter)";
	case 'f': return "markdown, csv or json";
	case 't': return "a percentage 0..1000";
	case 'F': return "a calibration file, or none";
	}
	return "a value";
}

/* The options and files of one side: argv[0] is a name, argv[1..argc) the
 * side's arguments (permuted in place).  Returns -1 parsed, else the exit
 * status (0 after --help). */
static int parse_side(int argc, char **argv, struct args *a, const char **files, size_t *nfiles)
{
	static const struct option longopts[] = {
		{ "by", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "threshold", required_argument, NULL, 't' },
		{ "floor", required_argument, NULL, 'F' },
		{ "calibrate", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;                     /* glibc: a full reset (permuting, from argv[1]) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'b':
			a->by = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "markdown") && strcmp(optarg, "csv") && strcmp(optarg, "json")) {
				readcmd_say("compare", "--format takes markdown, csv or json");
				return LAB_EXIT_USAGE;
			}
			a->fmt = optarg;
			break;
		case 't':
			errno = 0;
			a->threshold = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(a->threshold >= 0) || a->threshold > 1000) {
				readcmd_say("compare", "--threshold takes a percentage 0..1000, not '%s'", optarg);
				return LAB_EXIT_USAGE;
			}
			break;
		case 'F':
			if (*optarg == '\0') {
				readcmd_say("compare", "--floor takes a calibration file, or none");
				return LAB_EXIT_USAGE;
			}
			a->floor = optarg;
			break;
		case 'C':
			a->calibrate = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return readcmd_bad_option("compare", c, argv, takes(optopt));
		}
	}
	for (int i = optind; i < argc; i++)
		files[(*nfiles)++] = argv[i];
	return -1;
}

/* Both sides; then what goes with what. */
static int parse(int argc, char **argv, struct args *a)
{
	char **side = calloc((size_t)argc + 1, sizeof(*side));
	int split = argc, status;

	a->base = calloc((size_t)argc + 1, sizeof(*a->base));
	a->nw = calloc((size_t)argc + 1, sizeof(*a->nw));
	if (side == NULL || a->base == NULL || a->nw == NULL) {
		free(side);
		readcmd_say("compare", "out of memory");
		return LAB_EXIT_HARNESS;
	}
	for (int i = 1; i < argc && split == argc; i++)
		if (strcmp(argv[i], "--") == 0)
			split = i;
	a->sides = split < argc;
	side[0] = argv[0];
	memcpy(side + 1, argv + 1, (size_t)(split - 1) * sizeof(*side));
	status = parse_side(split, side, a, a->base, &a->nb);
	if (status < 0 && a->sides) {
		side[0] = argv[0];
		memcpy(side + 1, argv + split + 1, (size_t)(argc - split - 1) * sizeof(*side));
		status = parse_side(argc - split, side, a, a->nw, &a->nn);
	}
	free(side);
	if (status >= 0)
		return status;
	if (a->calibrate) {
		/* A -- B is the same as A B: each file is a set. */
		memcpy(a->base + a->nb, a->nw, a->nn * sizeof(*a->base));
		a->nb += a->nn;
		a->nn = 0;
		if (a->by != NULL || a->nb < 2 || (a->floor != NULL && strcmp(a->floor, "none") == 0)) {
			readcmd_say("compare", "--calibrate takes two or more result files (sets at the same "
				    "settings), no --by, and --floor FILE to write");
			return LAB_EXIT_USAGE;
		}
		return -1;
	}
	if (a->by != NULL && a->sides) {
		readcmd_say("compare", "--by KEY takes one set of results, not BASE -- NEW");
		return LAB_EXIT_USAGE;
	}
	if (a->by == NULL && (!a->sides || a->nb == 0 || a->nn == 0)) {
		readcmd_say("compare", "give BASE.json... -- NEW.json... or --by KEY RESULT.json... "
			    "(see pagelab compare --help)");
		return LAB_EXIT_USAGE;
	}
	if (a->by != NULL && a->nb == 0) {
		readcmd_say("compare", "--by %s: no result file given", a->by);
		return LAB_EXIT_USAGE;
	}
	return -1;
}

/* Bad input or a refused file: 2; the rest 1. */
static int fail_status(const struct lab_error *err)
{
	return err->code == EINVAL || err->code == ENOENT || err->code == EACCES || err->code == EPERM ||
	       err->code == EFBIG || err->code == EEXIST || err->code == ENOTDIR || err->code == ELOOP ||
	       err->code == ENAMETOOLONG ? LAB_EXIT_USAGE : LAB_EXIT_HARNESS;
}

/* What --calibrate stored, as a markdown table on o. */
static void print_calibration(FILE *o, const json_t *doc, const char *path)
{
	const json_t *figs = json_object_get(doc, "figures");

	fputs("| Table | Row | Figure | n | median | min–max | A/A change | spread (the floor) |\n"
	      "|---|---|---|---:|---:|---:|---:|---:|\n", o);
	for (size_t i = 0; i < json_array_size(figs); i++) {
		const json_t *f = json_array_get(figs, i);
		const char *unit = json_string_value(json_object_get(f, "unit"));

		for (int k = 0; k < 3; k++) {
			fputs(k ? " | " : "| ", o);
			lab_esc_markdown(o, json_string_value(json_object_get(f, k == 0 ? "table" : k == 1 ? "row"
											  : "figure")));
		}
		fprintf(o, " | %lld | %g ", (long long)json_integer_value(json_object_get(f, "n")),
			json_number_value(json_object_get(f, "median")));
		lab_esc_markdown(o, unit ? unit : "");
		fprintf(o, " | %g–%g | %+.1f %% | %.1f %% |\n", json_number_value(json_object_get(f, "min")),
			json_number_value(json_object_get(f, "max")), json_number_value(json_object_get(f, "change_pct")),
			json_number_value(json_object_get(f, "spread_pct")));
	}
	readcmd_line(o, path);
}

/* --calibrate: the sets' spreads into the calibration file. */
static int calibrate(const struct args *a, const struct lab_progress *say)
{
	const char *path = a->floor != NULL ? a->floor : FLOOR_DEFAULT_PATH;
	const struct compare_opts o = { .threshold_pct = a->threshold };
	struct floor_host host;
	struct lab_error err;
	char scenario[256], made[32];
	json_t *cmp = NULL, *doc = NULL;
	char *text = NULL;
	time_t now = time(NULL);
	int ret;

	lab_error_clear(&err);
	strftime(made, sizeof(made), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if ((ret = compare_same_settings(a->base, a->nb, &host, scenario, sizeof(scenario), &err)) == 0 &&
	    (ret = compare_sides(a->base, 1, a->base + 1, a->nb - 1, &o, say, &cmp, &err)) == 0 &&
	    (doc = floor_calibration(cmp, &host, scenario[0] ? scenario : NULL, a->base, a->nb, &err)) == NULL)
		ret = -err.code;
	if (ret == 0 && a->floor == NULL)
		ret = lab_check_output_dir("results", "the calibration file's directory", true, &err);
	if (ret == 0 && (ret = lab_check_output_parents(path, "--floor", true, &err)) == 0 &&
	    (ret = lab_check_output(path, "--floor", &err)) == 0) {
		json_object_set_new(doc, "made", json_string(made));
		text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		ret = text == NULL ? lab_error_set(&err, ENOMEM, "out of memory")
				   : lab_write_atomic(path, text, strlen(text), &err);
	}
	if (ret == 0)
		print_calibration(stdout, doc, path);
	else
		readcmd_fail("compare", ret, &err);
	free(text);
	json_decref(doc);
	json_decref(cmp);
	if (ret < 0)
		return fail_status(&err);
	return fflush(stdout) == 0 && !ferror(stdout) ? LAB_EXIT_RAN : LAB_EXIT_HARNESS;
}

int cmd_compare(int argc, char **argv)
{
	const char *who = "compare";
	struct lab_progress say = readcmd_progress(&who);
	struct args a = { .fmt = "markdown", .threshold = COMPARE_THRESHOLD_PCT };
	struct lab_error err;
	json_t *cmp = NULL;
	struct floor *floor = NULL;
	struct compare_opts o;
	int status = parse(argc, argv, &a), ret;

	if (status >= 0)
		goto out;
	if (!stats_available()) {
		readcmd_say("compare", "this build has no GSL (a static guest build): compare on the host");
		status = LAB_EXIT_HARNESS;
		goto out;
	}
	if (a.calibrate) {
		status = calibrate(&a, &say);
		goto out;
	}
	lab_error_clear(&err);
	o = (struct compare_opts){ .threshold_pct = a.threshold };
	ret = readcmd_floor(a.floor, &o, &floor, &err);
	if (ret == 0)
		ret = a.by != NULL ? compare_by(a.by, a.base, a.nb, &o, &say, &cmp, &err)
				   : compare_sides(a.base, a.nb, a.nw, a.nn, &o, &say, &cmp, &err);
	if (ret < 0) {
		readcmd_fail("compare", ret, &err);
		status = fail_status(&err);
		goto out;
	}
	if (!strcmp(a.fmt, "json")) {
		/* The documents' strings (a kernel, a label, a path): DEL, C1
		 * and the bidirectional controls as \u escapes (escape.h). */
		char *text = json_dumps(cmp, JSON_INDENT(2));

		if (text == NULL) {
			readcmd_say("compare", "out of memory");
			status = LAB_EXIT_HARNESS;
			goto out;
		}
		lab_esc_json(stdout, text);
		fputc('\n', stdout);
		free(text);
	} else if (!strcmp(a.fmt, "csv")) {
		compare_csv(cmp, stdout);
	} else {
		compare_markdown(cmp, stdout);
	}
	status = fflush(stdout) == 0 && !ferror(stdout) ? LAB_EXIT_RAN : LAB_EXIT_HARNESS;
out:
	json_decref(cmp);
	floor_free(floor);
	free(a.base);
	free(a.nw);
	return status;
}
