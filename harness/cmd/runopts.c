/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/runopts.c — the run options (runopts.h, harness/cmd/cli.md). */
#include "runopts.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "exitcode.h"
#include "readcmd.h"
#include "base/size.h"
#include "plan/tracedef.h"

static int opts_error(enum run_opts_for what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int opts_error(enum run_opts_for what, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* It quotes the argument it refuses: data (base/escape.h). */
	readcmd_say(NULL, "%s%s (see pagelab --help)", what == RUN_OPTS_VM ? "vm: " : "", text);
	return LAB_EXIT_USAGE;
}

int run_opts_parse(int argc, char **argv, enum run_opts_for what, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "allow-destructive", no_argument, NULL, 'D' },
		{ "allow-root-workload", no_argument, NULL, 'W' },
		{ "sandbox", required_argument, NULL, 'B' },
		{ "no-report", no_argument, NULL, 'N' },
		{ "trace", required_argument, NULL, 'T' },
		{ "trace-raw", no_argument, NULL, 'R' },
		{ "burst", required_argument, NULL, 'U' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool vm = what == RUN_OPTS_VM;
	int c;

	memset(o, 0, sizeof(*o));
	o->interval_ms = 250;
	o->timeout_s = 600;
	o->burst_ms = -1;
	optind = 0;     /* a full re-initialisation: options may follow NAME (permuted) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, vm ? "o:r:s:i:t:v" : "o:r:s:i:t:vh", longopts, NULL)) != -1) {
		unsigned long long v;
		struct lab_error err;

		switch (c) {
		case 'o':
			if (vm)
				return opts_error(what, "run --out: one result per kernel; name the directory with "
						  "pagelab vm --out-dir DIR");
			o->out = optarg;
			break;
		case 'r':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 100)
				return opts_error(what, "--repeat: expected 1..100, got '%s'", optarg);
			o->repeat = (unsigned)v;
			break;
		case 's':
			if (o->nr_sets == RUN_MAX_SETS)
				return opts_error(what, "too many --set (%s)", optarg);
			o->sets[o->nr_sets++] = optarg;
			break;
		case 'i':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 10 || v > 10000)
				return opts_error(what, "--interval: expected 10..10000 ms, got '%s'", optarg);
			o->interval_ms = (unsigned)v;
			o->interval_set = true;
			break;
		case 't':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 86400)
				return opts_error(what, "%s--timeout: expected 1..86400 s, got '%s'", vm ? "run " : "",
						  optarg);
			o->timeout_s = (unsigned)v;
			o->timeout_set = true;
			break;
		case 'D':
			o->allow_destructive = true;
			break;
		case 'W':
			o->allow_root_workload = true;
			break;
		case 'B':
			if (vm)
				return opts_error(what, "run: unknown option '%s'", argv[optind - 1]);
			if (strcmp(optarg, "self") != 0 && strcmp(optarg, "child") != 0)
				return opts_error(what, "--sandbox: expected child or self, got '%s'", optarg);
			o->sandbox_self = strcmp(optarg, "self") == 0;
			break;
		case 'N':
			o->no_report = true;
			break;
		case 'T': {
			unsigned set;
			bool dflt;

			if (tracedef_parse_set(optarg, &set, &dflt, &err) < 0)
				return opts_error(what, "--trace: %s", err.msg);
			o->trace = optarg;
			break;
		}
		case 'R':
			o->trace_raw = true;
			break;
		case 'U':
			if (lab_parse_uint(optarg, &v, &err) < 0 || (v != 0 && (v < 2 || v > 1000)))
				return opts_error(what, "--burst: expected 0 or 2..1000 ms, got '%s'", optarg);
			o->burst_ms = (int)v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			if (!vm) {
				fputs(cli_usage_text, stdout);
				exit(LAB_EXIT_RAN);
			}
			/* fall through */
		default:
			return opts_error(what, "run: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return opts_error(what, "%s", optind >= argc ? "run: which scenario? (pagelab list)"
							  : "run: one scenario at a time");
	o->name = argv[optind];
	return 0;
}

void run_opts_forward(const struct run_opts *o, struct run_opts_argv *f)
{
	f->argc = 0;
	if (o->repeat) {
		snprintf(f->buf[0], sizeof(f->buf[0]), "%u", o->repeat);
		f->argv[f->argc++] = "--repeat";
		f->argv[f->argc++] = f->buf[0];
	}
	for (size_t i = 0; i < o->nr_sets; i++) {
		f->argv[f->argc++] = "--set";
		f->argv[f->argc++] = o->sets[i];
	}
	if (o->interval_set) {
		snprintf(f->buf[1], sizeof(f->buf[1]), "%u", o->interval_ms);
		f->argv[f->argc++] = "--interval";
		f->argv[f->argc++] = f->buf[1];
	}
	if (o->timeout_set) {
		snprintf(f->buf[2], sizeof(f->buf[2]), "%u", o->timeout_s);
		f->argv[f->argc++] = "--timeout";
		f->argv[f->argc++] = f->buf[2];
	}
	if (o->trace != NULL) {
		f->argv[f->argc++] = "--trace";
		f->argv[f->argc++] = (char *)o->trace;
	}
	if (o->trace_raw)
		f->argv[f->argc++] = "--trace-raw";
	if (o->burst_ms >= 0) {
		snprintf(f->buf[3], sizeof(f->buf[3]), "%d", o->burst_ms);
		f->argv[f->argc++] = "--burst";
		f->argv[f->argc++] = f->buf[3];
	}
	if (o->allow_destructive)
		f->argv[f->argc++] = "--allow-destructive";
	if (o->allow_root_workload)
		f->argv[f->argc++] = "--allow-root-workload";
	if (o->verbose)
		f->argv[f->argc++] = "-v";
	f->argv[f->argc] = NULL;
}

void run_say(void *ctx, enum lab_say kind, const char *line)
{
	(void)ctx;
	readcmd_say(NULL, "%s%s", kind == LAB_SAY_WARN ? "warning: " : "", line);
}

int run_end_status(enum run_end end)
{
	switch (end) {
	case RUN_ENDED: return LAB_EXIT_RAN;
	case RUN_INTERRUPTED: return LAB_EXIT_INTERRUPTED;
	case RUN_REFUSED_INPUT: return LAB_EXIT_USAGE;
	case RUN_REFUSED_HOST: return LAB_EXIT_CANNOT;
	case RUN_FAILED: break;
	}
	return LAB_EXIT_HARNESS;
}
