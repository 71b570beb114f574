/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/audit.c — `pagelab audit` (harness/cmd/cli.md): options, --with's knob
 * journal, signals, printing and exit statuses; the audit itself is
 * harness/host/audit.h's.
 *
 *   pagelab audit [--json] [--wsf N] [--watch S] [--with KNOB=VALUE]...
 *   pagelab audit --advice FILE [--floor SIZE] [--json]
 *
 * Exit status: 0 the audit ran (its findings are data), 1 a source could not
 * be read (or a knob not put back), 2 bad usage, 3 --with cannot run here,
 * 130 interrupted by a stop signal (host/knobs.h; knobs put back first); with --advice: 0 nothing flagged as
 * an error, 2 the file could not be read, 4 the advice has errors.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "readcmd.h"
#include "exitcode.h"
#include "base/escape.h"
#include "base/size.h"
#include "host/audit.h"
#include "host/host.h"
#include "host/knobdef.h"
#include "host/knobs.h"

/* exitcode.h's statuses, and --advice's own 4 (findings). */
enum { AUDIT_OK = LAB_EXIT_RAN, AUDIT_FAIL = LAB_EXIT_HARNESS, AUDIT_USAGE = LAB_EXIT_USAGE,
       AUDIT_CANNOT = LAB_EXIT_CANNOT, AUDIT_ADVICE_ERRORS = 4, AUDIT_INTERRUPTED = LAB_EXIT_INTERRUPTED };

/* The stop signals of a knob-changing process (host/knobs.h:
 * knob_stop_signals) are blocked for the whole audit and waited for during
 * the watch, so knobs set with --with are always put back. */
static sigset_t audit_signals;
static int audit_caught;

/* One pending stop signal within ts (NULL: none waited for): 1 when one that
 * stops came (audit_caught), 0 when the time ran out, -1 after one that does
 * not stop (a SIGPIPE of our own: a write's EPIPE handles it). */
static int take_signal(const struct timespec *ts)
{
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	int sig = sigtimedwait(&audit_signals, &si, ts ? ts : &zero);

	if (sig <= 0)
		return 0;
	if (!knob_signal_stops(sig, si.si_pid))
		return -1;
	audit_caught = sig;
	return 1;
}

/* audit.h's wait: s seconds, or less if a stop signal arrives. */
static void watch_wait(void *ctx, unsigned s)
{
	struct timespec end, now;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += s;
	for (;;) {
		struct timespec left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0 || take_signal(&left) >= 0)
			return;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pagelab audit [--json] [--wsf N] [--watch S] [--with KNOB=VALUE]...\n"
		"       pagelab audit --advice FILE [--floor SIZE] [--json]\n"
		"\n"
		"The watermark arithmetic of this host, from its own /proc, beside what the kernel shows:\n"
		"who set vm.min_free_kbytes and what THP off would make of it, every zone's min/low/high\n"
		"and protection predicted from its managed pages, MemAvailable's reserve, the cost of a\n"
		"proposed watermark_scale_factor, and the three questions over a short watch.\n"
		"Reads only — unless --with is given.\n"
		"\n"
		"  --json              one JSON document instead of the text\n"
		"  --wsf N             what watermark_scale_factor N (1..3000) would cost\n"
		"  --watch S           watch allocstall and kswapd_low_wmark_hit_quickly for S seconds\n"
		"                      (default 5; 0 = no watch)\n"
		"  --with KNOB=VALUE   set a knob ([knobs] names: vm.watermark_scale_factor=50, thp=never)\n"
		"                      through the knob journal, audit, and put it back (repeatable)\n"
		"  --advice FILE       lint a sysctl.conf-style file against this kernel instead\n"
		"  --floor SIZE        with --advice: MemAvailable below this is harmful (default 10%% of\n"
		"                      MemTotal)\n"
		"\n"
		"exit status: 0 ran; 1 a source could not be read (or a knob not put back); 2 bad usage;\n"
		"3 --with cannot run here (not root, or another run owns the journal); 4 --advice found\n"
		"errors; 130 interrupted (knobs put back first).\n");
}

#define AUDIT_MAX_WITH 8

struct with_knob {
	const struct knob_def *d;
	char text[96], value[256];
};

/* --with: journal, set, and later restore; every message on stderr. */
static int with_apply(const struct with_knob *w, size_t n, unsigned long long memtotal_kb,
		      struct knob_journal **jout)
{
	struct knob_restore_report rep;
	struct lab_error err;
	bool stale = false;
	pid_t owner = 0;
	int ret;

	*jout = NULL;
	if (geteuid() != 0) {
		fprintf(stderr, "pagelab audit: --with changes a machine-wide knob: that needs root\n");
		return AUDIT_CANNOT;
	}
	/* The default huge page's size: 2 MiB with 4 KiB pages, 32 MiB on arm64's 16K kernel. */
	unsigned long long huge_kb = host_meminfo_bytes("Hugepagesize") / 1024;

	if (huge_kb == 0)
		huge_kb = 2048;
	for (size_t i = 0; i < n; i++) {
		unsigned long long v = strtoull(w[i].value, NULL, 10);

		/* The most the kernel itself ever picks is 262144 kB; hugetlb
		 * beyond a quarter of memory starves the host.  VM mode is for more. */
		if ((!strcmp(w[i].d->name, "vm.min_free_kbytes") && v > 262144) ||
		    ((!strcmp(w[i].d->name, "hugetlb_pages") || !strcmp(w[i].d->name, "vm.nr_hugepages")) &&
		     v * huge_kb > memtotal_kb / 4)) {
			readcmd_say("audit", "--with %s=%s could starve this machine: use a destructive "
				    "scenario in VM mode", w[i].d->name, w[i].text);
			return AUDIT_CANNOT;
		}
	}
	ret = knob_journal_open(knob_journal_path(), jout, &stale, &owner, &err);
	if (ret < 0) {
		readcmd_say("audit", "%s", err.msg);
		return ret == -EBUSY ? AUDIT_CANNOT : ret == -EPERM ? AUDIT_USAGE : AUDIT_FAIL;
	}
	if (stale) {
		ret = knob_journal_restore(*jout, &rep, &err);
		fprintf(stderr, "pagelab audit: found the knob journal of a run that did not finish (pid %d): "
			"restoring it first\n", (int)rep.journal_pid);
		knob_report_print(&rep, stderr, "pagelab audit:   ");
		if (ret < 0) {
			readcmd_say("audit", "%s", err.msg);
			return AUDIT_FAIL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (knob_set(*jout, w[i].d, w[i].value, &err) < 0) {
			readcmd_say("audit", "%s", err.msg);
			return AUDIT_FAIL;
		}
		readcmd_say("audit", "knob %s = %s (through the journal; put back after the audit)",
			w[i].d->name, w[i].text);
	}
	return AUDIT_OK;
}

static int with_restore(struct knob_journal *j)
{
	struct knob_restore_report rep;
	struct lab_error err;
	int ret;

	if (j == NULL)
		return AUDIT_OK;
	ret = knob_journal_restore(j, &rep, &err);
	knob_report_print(&rep, stderr, "pagelab audit: restored ");
	if (ret < 0)
		readcmd_say("audit", "%s", err.msg);
	knob_journal_close(j);
	return ret < 0 ? AUDIT_FAIL : AUDIT_OK;
}

struct audit_opts {
	struct with_knob with[AUDIT_MAX_WITH];
	size_t nr_with;
	unsigned long long wsf, floor_bytes;
	unsigned watch;
	const char *advice;
	bool json;
};

/* One --with KNOB=VALUE: a knob a scenario may change, its value typed. */
static int with_parse(struct audit_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct with_knob *w = &o->with[o->nr_with];
	struct lab_error err;
	char name[64];

	if (o->nr_with == AUDIT_MAX_WITH) {
		readcmd_say("audit", "at most %d --with", AUDIT_MAX_WITH);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - arg) : 0, arg);
	w->d = eq ? knob_def_find(name) : NULL;
	if (w->d == NULL || !w->d->scenario || w->d->kind == KNOB_SWAP) {
		readcmd_say("audit", "--with %s: expected KNOB=VALUE with a knob a scenario may "
			    "change (vm.watermark_scale_factor, vm.min_free_kbytes, thp, ...)", arg);
		return -1;
	}
	if (knob_def_value(w->d, eq + 1, w->value, sizeof(w->value), &err) < 0) {
		readcmd_say("audit", "--with: %s", err.msg);
		return -1;
	}
	snprintf(w->text, sizeof(w->text), "%.95s", eq + 1);
	o->nr_with++;
	return 0;
}

/* getopt_long, permuting (options and operands anywhere, `--` ends them):
 * 0, or the exit status to leave with (--help: 0 after the usage). */
static int parse_options(int argc, char **argv, struct audit_opts *o, bool *done)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },     { "wsf", required_argument, NULL, 'w' },
		{ "watch", required_argument, NULL, 's' }, { "advice", required_argument, NULL, 'a' },
		{ "floor", required_argument, NULL, 'f' }, { "with", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },     { NULL, 0, NULL, 0 },
	};
	struct lab_error err;
	unsigned long long v;
	int c;

	*done = false;
	optind = 0;             /* glibc: a fresh scan */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'w':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 3000) {
				readcmd_say("audit", "--wsf: expected 1..3000 (the kernel's range), got '%s'",
					optarg);
				return AUDIT_USAGE;
			}
			o->wsf = v;
			break;
		case 's':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v > 3600) {
				readcmd_say("audit", "--watch: expected 0..3600 seconds, got '%s'", optarg);
				return AUDIT_USAGE;
			}
			o->watch = (unsigned)v;
			break;
		case 'a':
			o->advice = optarg;
			break;
		case 'f':
			if (lab_parse_size(optarg, &o->floor_bytes, &err) < 0) {
				readcmd_say("audit", "--floor: %s", err.msg);
				return AUDIT_USAGE;
			}
			break;
		case 'W':
			if (with_parse(o, optarg) < 0)
				return AUDIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return AUDIT_OK;
		default:
			readcmd_say("audit", "unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return AUDIT_USAGE;
		}
	}
	if (optind != argc) {
		readcmd_say("audit", "unexpected argument '%s'", argv[optind]);
		return AUDIT_USAGE;
	}
	return AUDIT_OK;
}

/* --advice FILE: the lint, printed; 4 when it found errors. */
static int run_advice(const struct audit_opts *o)
{
	struct audit_host *h;
	struct audit_advice a;
	struct lab_error err;
	unsigned long long floor_kb;

	if (o->nr_with || o->wsf) {
		fprintf(stderr, "pagelab audit: --advice lints a file: --with and --wsf do not apply\n");
		return AUDIT_USAGE;
	}
	if (audit_host_read(&h, &err) < 0) {
		readcmd_say("audit", "%s", err.msg);
		return AUDIT_FAIL;
	}
	floor_kb = o->floor_bytes ? o->floor_bytes / 1024 : audit_memtotal_kb(h) / 10;
	if (audit_advice(h, o->advice, floor_kb, o->json ? NULL : stdout, &a, &err) < 0) {
		/* It may quote the file's name or a line of it: data. */
		fputs("pagelab audit: ", stderr);
		lab_esc_term(stderr, err.msg);
		fputc('\n', stderr);
		audit_host_free(h);
		return AUDIT_USAGE;
	}
	if (o->json) {
		json_t *doc = audit_advice_json(h, o->advice, floor_kb, &a);
		char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (s != NULL)
			lab_esc_json(stdout, s);        /* the file's keys and values: data */
		putchar('\n');
		free(s);
		json_decref(doc);
	} else {
		lab_esc_term(stdout, o->advice);
		printf(": %d error(s), %d warning(s), %d note(s) against %s (MemAvailable floor %llu kB)\n",
		       a.errors, a.warnings, a.notes, audit_kernel(h), floor_kb);
		json_decref(a.findings);
	}
	audit_host_free(h);
	return a.errors ? AUDIT_ADVICE_ERRORS : AUDIT_OK;
}

/* The audit, printed as text or JSON. */
static int audit_run(bool json, unsigned long long wsf, unsigned watch)
{
	struct audit_host *h;
	struct lab_error err;
	json_t *doc;

	if (audit_host_read(&h, &err) < 0) {
		readcmd_say("audit", "%s", err.msg);
		return AUDIT_FAIL;
	}
	if (audit_document(h, wsf, watch, watch_wait, NULL, &doc, &err) < 0) {
		readcmd_say("audit", "%s", err.msg);
		audit_host_free(h);
		return AUDIT_FAIL;
	}
	if (json) {
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		printf("%s\n", text);
		free(text);
	} else {
		audit_print(stdout, h, doc);
	}
	fflush(stdout);
	json_decref(doc);
	audit_host_free(h);
	return AUDIT_OK;
}

/* A stop signal that came during the audit (or is pending): 130 once the
 * knobs are back, unless the audit failed anyway. */
static int stopped(int status)
{
	while (audit_caught == 0 && take_signal(NULL) != 0)
		;
	if (audit_caught > 0) {
		readcmd_say("audit", "stopped by %s", strsignal(audit_caught));
		return status == AUDIT_OK ? AUDIT_INTERRUPTED : status;
	}
	return status;
}

int cmd_audit(int argc, char **argv)
{
	struct audit_opts o = { .watch = 5 };
	struct knob_journal *journal = NULL;
	bool done;
	int status;

	if ((status = parse_options(argc, argv, &o, &done)) != AUDIT_OK || done)
		return status;
	if (o.advice != NULL)
		return run_advice(&o);
	/* A shell starts background jobs with SIGINT and SIGQUIT ignored; take
	 * each back so it is delivered (blocked, then waited for). */
	knob_stop_signals(&audit_signals);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&audit_signals, sig) == 1)
			signal(sig, SIG_DFL);
	sigprocmask(SIG_BLOCK, &audit_signals, NULL);
	if (o.nr_with > 0) {
		struct audit_host *h;
		unsigned long long memtotal = 0;
		struct lab_error err;

		if (audit_host_read(&h, &err) == 0) {
			memtotal = audit_memtotal_kb(h);
			audit_host_free(h);
		}
		status = with_apply(o.with, o.nr_with, memtotal, &journal);
		if (status != AUDIT_OK) {
			if (with_restore(journal) != AUDIT_OK)
				status = AUDIT_FAIL;
			return status;
		}
	}
	status = audit_run(o.json, o.wsf, o.watch);
	if (with_restore(journal) != AUDIT_OK)
		status = AUDIT_FAIL;
	return stopped(status);
}
