/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/fit.c — `pagelab fit NAME|FILE --vary memory_max=LO..HI [options]`
 * (harness/cmd/cli.md, harness/fit/fit.md): the options, the fit
 * (harness/fit/fit.h) with its progress on stderr, the answer, the curve and
 * the reconciliation on stdout, then the result's path. */
#include "cmd.h"
#include "readcmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcode.h"
#include "fitcli.h"
#include "runopts.h"
#include "base/size.h"
#include "fit/fit.h"

static const char fit_usage[] =
	"usage: pagelab fit NAME|FILE --vary memory_max=LO..HI [options]\n"
	"\n"
	"The smallest quota at which a service still meets its objectives: the scenario's\n"
	"[sandbox] must read the parameter it varies (memory_max = ${memory_max}).  It runs\n"
	"first unconstrained (the base: memory_max at MemTotal), then at HI, at LO, and\n"
	"bisects between the last quota that failed and the first that met; every probe is\n"
	"repeated, and an objective is broken only when the compare rule (Welch's t-test at\n"
	"95 % and the LKP rule, 1 %) calls the difference from its bound real.\n"
	"\n"
	"  --vary KEY=LO..HI    memory_max (or memory_high, cgroup v2) from LO to HI (16M..256M)\n"
	"  --slo OBJECTIVE      NAME>=BOUND or NAME<=BOUND, BOUND a number or F*base; NAME ops\n"
	"                       (every throughput), p99, psi (% of the loads' time, v2) or a\n"
	"                       metric (GET/rps); repeatable; defaults ops>=0.95*base,\n"
	"                       p99<=2*base, psi<=10 (each replaced by a given one of its name)\n"
	"  --repeat N           runs per probe, at least 3 (default 3)\n"
	"  --resolution SIZE    stop when the bracket is this narrow (default: the range / 16)\n"
	"  --probes N           at most N probes besides the base, 3..24 (default 12)\n"
	"  --base SIZE          the base's quota instead of MemTotal (at least HI)\n"
	"  --out FILE           the fit's document (default results/NAME-fit-STAMP.json)\n"
	"  --set KEY=VALUE      override a parameter (not the varied one); repeatable\n"
	"  --interval MS        sampling tick, 10..10000 ms (default 250)\n"
	"  --timeout S          stop a run that lasts longer (default 600)\n"
	"  --allow-root-workload let a scenario's command and loads run as root\n"
	"  -v, --verbose        every probe's run lines too\n"
	"\n"
	"Nothing runs before every option, the scenario and every probe's quota are checked.\n"
	"exit status: 0 the fit ran (its answer may be that the range holds none), 1 harness\n"
	"failure (the base gave no result), 2 bad usage or input, 3 this host cannot run it,\n"
	"130 interrupted (the document still written with the probes made).\n";

static int fit_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fit_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagelab: fit: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see pagelab fit --help)\n");
	return LAB_EXIT_USAGE;
}

struct fit_args {
	struct fit_opts o;
	struct fit_slo given[FIT_MAX_SLOS];
	size_t ngiven;
	bool have_vary;
};

/* One option's value into a; 0, or an exit status after one line. */
static int fit_option(int c, struct fit_args *a)
{
	struct fit_opts *o = &a->o;
	unsigned long long v;
	struct lab_error err;

	switch (c) {
	case 'V':
		if (fit_parse_vary(optarg, &o->vary, &err) < 0)
			return fit_usage_error("%s", err.msg);
		a->have_vary = true;
		return 0;
	case 'S':
		if (a->ngiven == FIT_MAX_SLOS)
			return fit_usage_error("at most %d --slo", FIT_MAX_SLOS);
		if (fit_parse_slo(optarg, &a->given[a->ngiven], &err) < 0)
			return fit_usage_error("%s", err.msg);
		a->ngiven++;
		return 0;
	case 'r':
		if (lab_parse_uint(optarg, &v, &err) < 0 || v < 3 || v > 100)
			return fit_usage_error("--repeat: expected 3..100 (the compare rule decides with 3 or more a "
					       "side), got '%s'", optarg);
		o->run.repeat = (unsigned)v;
		return 0;
	case 'E':
		if (lab_parse_size(optarg, &o->resolution, &err) < 0 || o->resolution == 0)
			return fit_usage_error("--resolution: expected a size above 0 (1M), got '%s'", optarg);
		return 0;
	case 'P':
		if (lab_parse_uint(optarg, &v, &err) < 0 || v < 3 || v > FIT_PROBES_MAX)
			return fit_usage_error("--probes: expected 3..%d, got '%s'", FIT_PROBES_MAX, optarg);
		o->max_probes = (unsigned)v;
		return 0;
	case 'b':
		if (lab_parse_size(optarg, &o->base, &err) < 0 || o->base == 0)
			return fit_usage_error("--base: expected a size above 0, got '%s'", optarg);
		return 0;
	case 'o':
		o->out = optarg;
		return 0;
	case 's':
		if (o->run.nr_sets == RUN_MAX_SETS - 1)
			return fit_usage_error("too many --set (%s)", optarg);
		o->run.sets[o->run.nr_sets++] = optarg;
		return 0;
	case 'i':
		if (lab_parse_uint(optarg, &v, &err) < 0 || v < 10 || v > 10000)
			return fit_usage_error("--interval: expected 10..10000 ms, got '%s'", optarg);
		o->run.interval_ms = (unsigned)v;
		o->run.interval_set = true;
		return 0;
	case 't':
		if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 86400)
			return fit_usage_error("--timeout: expected 1..86400 s, got '%s'", optarg);
		o->run.timeout_s = (unsigned)v;
		o->run.timeout_set = true;
		return 0;
	case 'W':
		o->run.allow_root_workload = true;
		return 0;
	case 'v':
		o->run.verbose = true;
		return 0;
	}
	return LAB_EXIT_USAGE;
}

static int fit_parse(int argc, char **argv, struct fit_args *a)
{
	static const struct option longopts[] = {
		{ "vary", required_argument, NULL, 'V' },
		{ "slo", required_argument, NULL, 'S' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "resolution", required_argument, NULL, 'E' },
		{ "probes", required_argument, NULL, 'P' },
		{ "base", required_argument, NULL, 'b' },
		{ "out", required_argument, NULL, 'o' },
		{ "set", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "allow-root-workload", no_argument, NULL, 'W' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lab_error err;
	int c, st;

	memset(a, 0, sizeof(*a));
	a->o.run.interval_ms = 250;
	a->o.run.timeout_s = 600;
	a->o.run.burst_ms = -1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:r:s:i:t:vh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(fit_usage, stdout);
			exit(LAB_EXIT_RAN);
		}
		if (c == '?' || c == ':')
			return fit_usage_error("unknown option or missing value '%s'", argv[optind - 1]);
		if ((st = fit_option(c, a)) != 0)
			return st;
	}
	if (optind != argc - 1)
		return fit_usage_error("%s", optind >= argc ? "which scenario? (pagelab list)" : "one scenario at a time");
	if (!a->have_vary)
		return fit_usage_error("--vary KEY=LO..HI is required (memory_max=16M..256M)");
	a->o.run.name = argv[optind];
	if (fit_objectives(a->given, a->ngiven, a->o.slo, &a->o.nslo, &err) < 0)
		return fit_usage_error("%s", err.msg);
	return 0;
}

int fit_cli_parse(int argc, char **argv, struct fit_opts *o)
{
	struct fit_args a;
	int st = fit_parse(argc, argv, &a);

	if (st == 0)
		*o = a.o;
	return st;
}

/* The answer in words, the tables, on stdout. */
void fit_cli_print_answer(const json_t *doc)
{
	const json_t *fit = json_object_get(doc, "fit"), *a = json_object_get(fit, "answer");
	const json_t *br = json_object_get(a, "bracket"), *tables = json_object_get(fit, "tables");
	const char *status = json_string_value(json_object_get(a, "status"));
	const char *key = json_string_value(json_object_get(fit, "key"));
	char q[32], f[32], m[32];

	fit_size_text((unsigned long long)json_integer_value(json_object_get(a, "quota_bytes")), q, sizeof(q));
	fit_size_text((unsigned long long)json_integer_value(json_object_get(br, "failed_bytes")), f, sizeof(f));
	fit_size_text((unsigned long long)json_integer_value(json_object_get(br, "met_bytes")), m, sizeof(m));
	if (status && strcmp(status, "found") == 0)
		printf("%s found: %s (bracket: %s failed, %s met; %lld probes x %lld repeats)\n\n", key, q, f, m,
		       (long long)json_integer_value(json_object_get(a, "probes")),
		       (long long)json_integer_value(json_object_get(a, "repeats")));
	else if (status && strcmp(status, "above_range") == 0)
		printf("%s: none in the range: the top (%s) failed\n\n", key, f);
	else if (status && strcmp(status, "below_range") == 0)
		printf("%s: the whole range met: the bottom (%s) met; try a lower LO\n\n", key, m);
	else
		printf("%s: no answer (%s)\n\n", key, status ? status : "?");
	/* The base alone is no curve: its failure is said on stderr. */
	if (json_array_size(json_object_get(fit, "probes")) < 2)
		return;
	fit_table_markdown(json_object_get(tables, "curve"), stdout);
	putchar('\n');
	fit_table_markdown(json_object_get(tables, "reconciliation"), stdout);
	putchar('\n');
}

int cmd_fit(int argc, char **argv)
{
	const struct lab_progress prog = { .fn = run_say };
	struct fit_outcome out;
	struct fit_args a;
	struct lab_error err;
	int st, ret;

	if ((st = fit_parse(argc, argv, &a)) != 0)
		return st;
	ret = fit_execute(&a.o, &prog, &out, &err);
	if (out.doc != NULL && json_object_get(json_object_get(json_object_get(out.doc, "fit"), "answer"), "status"))
		fit_cli_print_answer(out.doc);
	if (out.result[0])
		printf("%s\n", out.result);
	fflush(stdout);
	if (ret < 0)
		readcmd_say(NULL, "fit: %s", err.msg);
	fit_outcome_free(&out);
	return run_end_status(out.end);
}
