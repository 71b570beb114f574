/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/vm.c — `pagelab vm` (harness/cmd/cli.md, docs/vm.md): the vm options,
 * then `run` (the scenario planned exactly as `pagelab run` plans it, against
 * the guest's memory) or `audit`, then harness/vm/ for each target, one after
 * the other; this file prints, maps outcomes to exit statuses and prints the
 * summary (read/report/report.h).
 *
 * The order is the safety order of `pagelab run`: everything that can be
 * checked is checked before anything is built or booted.
 *
 * Options: getopt_long, permuting, over the words before the inner command —
 * the first operand, which must be `run` or `audit`; what follows it is that
 * command's own (run options for `run`, parsed by run_opts_parse; audit
 * options for `audit`, handed to each guest's audit).  So vm options may come
 * in any order and anywhere before `run`, never after it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "exitcode.h"
#include "fitcli.h"
#include "runopts.h"
#include "readcmd.h"
#include "base/escape.h"
#include "base/fileio.h"
#include "base/progress.h"
#include "base/size.h"
#include "launch/command.h"
#include "plan/scenario.h"
#include "plan/vmkernel.h"
#include "read/report/report.h"
#include "run/run.h"
#include "vm/vm.h"

static const struct option vm_longopts[] = {
	{ "kernel", required_argument, NULL, 'k' },
	{ "host", no_argument, NULL, 'H' },
	{ "mem", required_argument, NULL, 'm' },
	{ "cpus", required_argument, NULL, 'c' },
	{ "thp", required_argument, NULL, 'T' },
	{ "swap", required_argument, NULL, 'S' },
	{ "disk", required_argument, NULL, 'D' },
	{ "cmdline", required_argument, NULL, 'C' },
	{ "timeout", required_argument, NULL, 't' },
	{ "out-dir", required_argument, NULL, 'o' },
	{ "flavour", required_argument, NULL, 'f' },
	{ "flavor", required_argument, NULL, 'f' },
	{ "build", required_argument, NULL, 'b' },
	{ "modules", required_argument, NULL, 'M' },
	{ "arch", required_argument, NULL, 'A' },
	{ "numa", required_argument, NULL, 'n' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(void)
{
	size_t i = 0;

	printf("usage: pagelab vm [--kernel %s|PATH]... [--host] [--arch amd64|arm64]\n"
	       "                  [--mem SIZE] [--numa N] [--cpus N]\n"
	       "                  [--thp always|madvise|never] [--swap SIZE] [--disk SIZE]\n"
	       "                  [--cmdline TEXT]\n"
	       "                  [--timeout S] [--out-dir DIR] [--flavour generic|cloud]\n"
	       "                  [--build DIR] [--modules DIR] run NAME|FILE [run options]\n"
	       "       pagelab vm [vm options] fit NAME|FILE --vary KEY=LO..HI [fit options]\n"
	       "       pagelab vm [vm options] audit [audit options] [--then [audit options]]...\n"
	       "the Debian series (guest/vm-kernel fetches them; docs/vm.md):\n",
	       vm_series_names());
	for (const struct vm_series *s; (s = vm_series_at(i)) != NULL; i++)
		printf("  %-9s --arch %s, --flavour %s: %s\n", s->name, s->arches, s->flavours, s->what);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagelab: vm: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see pagelab --help)\n");
	return LAB_EXIT_USAGE;
}

/* "pagelab: vm: [PREFIX]TEXT" on stderr.  The text may hold what a guest
 * wrote (its kernel release, its console's last words): through
 * lab_esc_term, so no control character reaches the terminal. */
static void line(const char *prefix, const char *text)
{
	fprintf(stderr, "pagelab: vm: %s", prefix);
	lab_esc_term(stderr, text);
	fputc('\n', stderr);
}

/* A library's error: one line, and the status of its code. */
static int fail(int ret, const struct lab_error *err)
{
	line("", err->msg[0] ? err->msg : "failed");
	return lab_exit_status(ret < 0 ? ret : -EIO);
}

static void say(void *ctx, enum lab_say kind, const char *text)
{
	(void)ctx;
	if (kind == LAB_SAY_DETAIL) {           /* a failed build's log, as it is */
		lab_esc_term(stderr, text);
		fputc('\n', stderr);
	} else {
		line(kind == LAB_SAY_WARN ? "warning: " : "", text);
	}
}

static const struct lab_progress progress = { .fn = say };

static void on_signal(int sig)
{
	vm_interrupt(sig);
}

/* No SA_RESTART: a wait returns EINTR, base/spawn.h waits again for the
 * child vm_interrupt stopped. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* ---- options ------------------------------------------------------------------ */

/* The index of the inner command's word: the first operand, an option's
 * separate value skipped (its name matched as getopt_long matches it: a
 * unique prefix), or the word after "--".  argc when there is none. */
static int inner_word(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		int has_arg = -1;
		size_t n;

		if (strcmp(a, "--") == 0)
			return i + 1;
		if (a[0] != '-' || a[1] == '\0')
			return i;
		if (a[1] != '-')
			continue;               /* -h: no value */
		eq = strchr(a + 2, '=');
		n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (const struct option *o = vm_longopts; o->name != NULL; o++) {
			if (strncmp(o->name, a + 2, n) != 0)
				continue;
			if (strlen(o->name) == n) {
				has_arg = o->has_arg;
				break;
			}
			has_arg = has_arg == -1 || has_arg == o->has_arg ? o->has_arg : -2;
		}
		if (has_arg == required_argument && eq == NULL)
			i++;
	}
	return argc;
}

/* One option (getopt_long's c and optarg) into o; 0 or the usage status. */
static int vm_option(int c, const char *arg, struct vm_opts *o)
{
	unsigned long long v;
	struct lab_error err;
	size_t len;

	switch (c) {
	case 'k':
		if (o->nr_kernels == VM_MAX_KERNELS)
			return usage_error("at most %d --kernel", VM_MAX_KERNELS);
		if (!vm_is_series(arg) && access(arg, R_OK) < 0)
			return usage_error("--kernel '%s': neither a Debian series (%s) nor a readable vmlinuz file", arg,
					   vm_series_names());
		o->kernels[o->nr_kernels++] = arg;
		return 0;
	case 'H':
		o->host = true;
		return 0;
	case 'm':
		if (lab_parse_size(arg, &v, &err) < 0)
			return usage_error("--mem: %s", err.msg);
		if (v < VM_MIN_MEM)
			return usage_error("--mem %s: a guest needs at least 256M", arg);
		o->mem = v;
		return 0;
	case 'c':
		if (lab_parse_uint(arg, &v, &err) < 0 || v < 1 || v > 64)
			return usage_error("--cpus: expected 1..64, got '%s'", arg);
		o->cpus = (unsigned)v;
		return 0;
	case 'T':
		if (strcmp(arg, "always") && strcmp(arg, "madvise") && strcmp(arg, "never"))
			return usage_error("--thp: expected always, madvise or never, got '%s'", arg);
		o->thp = arg;
		return 0;
	case 'S':
		if (lab_parse_size(arg, &v, &err) < 0)
			return usage_error("--swap: %s", err.msg);
		o->swap = v;
		o->swap_set = true;
		return 0;
	case 'D':
		if (lab_parse_size(arg, &v, &err) < 0)
			return usage_error("--disk: %s", err.msg);
		if (v != 0 && v < (64ULL << 20))
			return usage_error("--disk %s: at least 64M (or 0: no disk)", arg);
		o->disk = v;
		o->disk_set = true;
		return 0;
	case 'C':
		len = strlen(o->cmdline);
		if (strchr(arg, '\n') != NULL ||
		    (size_t)snprintf(o->cmdline + len, sizeof(o->cmdline) - len, "%s%s", len ? " " : "", arg) >=
			    sizeof(o->cmdline) - len)
			return usage_error("--cmdline: too long, or a newline in it");
		return 0;
	case 't':
		if (lab_parse_uint(arg, &v, &err) < 0 || v < 10 || v > 86400)
			return usage_error("--timeout: expected 10..86400 s, got '%s'", arg);
		o->timeout_s = (unsigned)v;
		return 0;
	case 'o':
		o->out_dir = arg;
		return 0;
	case 'f':
		if (strcmp(arg, "generic") && strcmp(arg, "cloud"))
			return usage_error("--flavour: expected generic or cloud, got '%s'", arg);
		o->flavour = arg;
		return 0;
	case 'b':
		o->build = arg;
		return 0;
	case 'M':
		o->modules = arg;
		return 0;
	case 'A':
		if (!vm_arch_known(arg))
			return usage_error("--arch: expected amd64 or arm64, got '%s'", arg);
		o->arch = arg;
		return 0;
	case 'n':
		if (lab_parse_uint(arg, &v, &err) < 0 || v < 1 || v > VM_MAX_NUMA)
			return usage_error("--numa: expected 1..%d nodes, got '%s'", VM_MAX_NUMA, arg);
		o->numa = (unsigned)v;
		return 0;
	default:
		return LAB_EXIT_USAGE;
	}
}

/* The vm options, before the inner word (*word: its index).  0, -1 for
 * --help, or the usage status after one line. */
static int parse_vm_opts(int argc, char **argv, struct vm_opts *o, int *word)
{
	int end = inner_word(argc, argv), c, ret;

	vm_opts_init(o);
	optind = 0;     /* a full re-initialisation (another command may have run getopt) */
	opterr = 0;
	while ((c = getopt_long(end, argv, "h", vm_longopts, NULL)) != -1) {
		if (c == 'h')
			return -1;
		if (c == '?')
			return usage_error("unknown option '%s'", argv[optind - 1]);
		ret = vm_option(c, optarg, o);
		if (ret != 0)
			return ret;
	}
	if (end >= argc)
		return usage_error("expected: pagelab vm [options] run NAME [run options]");
	if (optind < end || (strcmp(argv[end], "run") != 0 && strcmp(argv[end], "fit") != 0 &&
			     strcmp(argv[end], "audit") != 0))
		return usage_error("expected 'run', 'fit' or 'audit' after the vm options");
	*word = end;
	return 0;
}

/* ---- the targets, their statuses, the summary ----------------------------------- */

/* What target t said went wrong, as it ran (one line each). */
static void print_target(const struct vm_target *t)
{
	char kept[sizeof(t->label) + sizeof(t->kept) + 64];

	if (t->err.msg[0] != '\0')
		line("", t->err.msg);
	if (t->kept[0] != '\0') {
		snprintf(kept, sizeof(kept), "%s: the guest's files are kept in %s", t->label, t->kept);
		line("", kept);
	}
}

/* A target's exit status (cli.md): its pagelab's own when it ran, else
 * what stopped it. */
static int target_status(const struct vm_target *t)
{
	switch (t->outcome) {
	case VM_PENDING:
		return -1;
	case VM_RAN:
		return t->child_status;
	case VM_CANNOT:
		return LAB_EXIT_CANNOT;
	case VM_INTERRUPTED:
		return LAB_EXIT_INTERRUPTED;
	case VM_FAILED:
	default:
		return LAB_EXIT_HARNESS;
	}
}

/* A run's status (cli.md): interrupted, else a failure, else bad input or
 * "cannot" from a guest; the host's own "cannot" is not one (reported, and
 * left out of the report). */
static int run_status(const struct vm_job *j)
{
	bool any_fail = false, any_usage = false, any_cannot = false, any_int = vm_interrupted() != 0;

	for (size_t i = 0; i < j->nt; i++) {
		int st = target_status(&j->t[i]);

		if (st == -1 || (j->t[i].kernel == NULL && st == LAB_EXIT_CANNOT))
			continue;
		if (st == LAB_EXIT_INTERRUPTED)
			any_int = true;
		else if (st == LAB_EXIT_USAGE)
			any_usage = true;
		else if (st == LAB_EXIT_CANNOT)
			any_cannot = true;
		else if (st != LAB_EXIT_RAN)
			any_fail = true;
	}
	return any_int ? LAB_EXIT_INTERRUPTED : any_fail ? LAB_EXIT_HARNESS : any_usage ? LAB_EXIT_USAGE
		: any_cannot ? LAB_EXIT_CANNOT : LAB_EXIT_RAN;
}

/* One report over every result that came back (as `pagelab run` prints
 * for one), then the result paths. */
static void summary(const struct vm_job *j, bool no_report)
{
	const char *files[VM_MAX_KERNELS + 1], *who = "report";
	struct lab_progress warn = readcmd_progress(&who);      /* as `pagelab report` says them */
	struct report_options opt = { .progress = &warn };
	struct report *rep = NULL;
	struct lab_error err;
	size_t n = 0;

	for (size_t i = 0; i < j->nt; i++)
		if (j->t[i].ok)
			files[n++] = j->t[i].result;
	if (n > 0 && !no_report && !vm_interrupted()) {
		int ret;

		fflush(stderr);
		ret = report_load(files, n, &opt, &rep, &err);
		if (ret == 0)
			ret = report_write(rep, REPORT_MARKDOWN, stdout, &err);
		if (ret < 0)
			readcmd_fail("report", ret, &err);
		report_free(rep);
		fflush(stdout);
	}
	for (size_t i = 0; i < n; i++)
		readcmd_line(stdout, files[i]);
}

/* ---- run ---------------------------------------------------------------------------- */

/* The scenario, validated as `pagelab run` validates it, and the guest's
 * shape: options, else the scenario's [vm], else the defaults (variant A's
 * parameters resolve ${…} in [vm]: the shape is one per guest, not per
 * variant); then every variant against the guest's memory (the guest checks
 * its own MemTotal again, which is a little less than -m). */
static int plan_for_guest(const struct vm_opts *o, const struct run_opts *ro, struct vm_scenario *sc,
			  struct run_plan *plan, struct vm_shape *g)
{
	struct lab_error err;
	char hint[64];
	int ret;

	ret = vm_scenario_locate(ro->name, sc, &err);
	if (ret < 0)
		return fail(ret, &err);
	if (run_plan_load(sc->path, ro->sets, ro->nr_sets, ro->repeat, 0, NULL, plan, &err) < 0 ||
	    run_plan_instantiate(plan, 1, 0, &err) < 0) {
		readcmd_say(NULL, "%s", err.msg);
		return LAB_EXIT_USAGE;
	}
	ret = vm_shape_for_run(o, &plan->s, &plan->specs[0], sc->path, &progress, g, &err);
	if (ret < 0)
		return fail(ret, &err);
	plan->s.machine_bytes = g->mem + g->swap;
	plan->s.machine_what = "the guest's --mem + --swap";
	snprintf(hint, sizeof(hint), " (the guest has %llu MiB: --mem)", g->mem >> 20);
	if (run_plan_instantiate(plan, 0, g->mem, &err) < 0) {
		readcmd_say(NULL, "%s%s", err.msg, hint);
		return LAB_EXIT_USAGE;
	}
	return 0;
}

/* The programs of the scenario's command workloads and loads, as this host
 * resolves them (harness/launch/command.c: the run's own PATH), for the
 * guests to carry at their own paths with their libraries (guest/vm-run
 * --carry; a name busybox has an applet for is left to busybox).  They are
 * this machine's binaries: an arm64 guest cannot run them.  0, or the usage
 * or "cannot" status after one line. */
struct vm_carry {
	char path[SCN_MAX_WORKLOADS + SCN_MAX_LOADS][PATH_MAX];
	size_t n;
};

static int carry_add(struct vm_carry *c, const char *argv0)
{
	char p[PATH_MAX];
	struct lab_error err;

	if (cmd_resolve(argv0, p, sizeof(p), &err) < 0) {
		line("", err.msg);
		return LAB_EXIT_CANNOT;
	}
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->path[i], p) == 0)
			return 0;
	if (c->n == sizeof(c->path) / sizeof(c->path[0]))
		return usage_error("more than %zu programs to carry into the guest", c->n);
	snprintf(c->path[c->n++], PATH_MAX, "%s", p);
	return 0;
}

static int carry_programs(const struct vm_opts *o, const struct run_plan *plan, const struct vm_shape *g,
			  struct vm_carry *c)
{
	int st = 0;

	c->n = 0;
	for (size_t v = 0; v < plan->nv && st == 0; v++) {
		const struct run_spec *sp = &plan->specs[v];

		for (size_t w = 0; w < sp->nr_workloads && st == 0; w++)
			if (sp->workloads[w].command)
				st = carry_add(c, sp->workloads[w].argv[0]);
		for (size_t l = 0; l < sp->nr_loads && st == 0; l++)
			st = carry_add(c, sp->loads[l].argv[0]);
	}
	if (st == 0 && (c->n > 0 || g->ntrees > 0) && strcmp(o->arch, VM_HOST_ARCH) != 0) {
		char msg[256];

		snprintf(msg, sizeof(msg), "this scenario runs programs of this host (its command workloads and loads, "
			 "[vm] carry), which an %s guest cannot run: use an %s guest", o->arch,
			 *VM_HOST_ARCH ? VM_HOST_ARCH : "amd64");
		line("", msg);
		return LAB_EXIT_CANNOT;
	}
	return st;
}

/* Each target in turn (vm_run_target), what each said printed. */
static void run_targets(struct vm_job *job, const struct vm_run_args *args)
{
	catch_signals();
	for (size_t i = 0; i < job->nt && !vm_interrupted(); i++) {
		vm_run_target(job, i, args);
		print_target(&job->t[i]);
	}
}

/* What run and fit prepare alike, before anything boots: the plan for the
 * guest, the programs to carry, the job (vm_job_prepare). */
struct vm_launch {
	struct run_plan plan;
	struct vm_scenario sc;
	struct vm_shape g;
	struct vm_carry carry;
	struct vm_job job;
	bool prepared;
};

static void launch_free(struct vm_launch *l)
{
	if (l == NULL)
		return;
	if (l->prepared)
		vm_job_free(&l->job);
	run_plan_free(&l->plan);
	free(l);
}

/* *out the launch, or NULL when the status returned is not 0 (said). */
static int launch_prepare(const struct vm_opts *o, const struct run_opts *ro, struct vm_launch **out)
{
	struct vm_launch *l = calloc(1, sizeof(*l));
	struct lab_error err;
	int status, ret;

	*out = NULL;
	if (l == NULL)
		return fail(-ENOMEM, &(struct lab_error){ ENOMEM, "out of memory" });
	if (o->modules != NULL && !o->swap_set && !o->disk_set)
		status = usage_error("--modules is for --swap or --disk with a kernel PATH");
	else
		status = plan_for_guest(o, ro, &l->sc, &l->plan, &l->g);
	if (status == 0)
		status = carry_programs(o, &l->plan, &l->g, &l->carry);
	if (status == 0) {
		ret = vm_job_prepare(&l->job, o, &l->g, l->plan.s.name, &progress, &err);
		l->prepared = true;     /* what it resolved is freed by vm_job_free */
		if (ret < 0)
			status = fail(ret, &err);
	}
	if (status != 0) {
		launch_free(l);
		return status;
	}
	*out = l;
	return 0;
}

/* `pagelab vm [vm options] run NAME|FILE [run options]`; argv[0] is "run". */
static int vm_run(const struct vm_opts *o, int argc, char **argv)
{
	struct run_opts ro;
	struct run_opts_argv fwd;
	struct vm_launch *l;
	struct vm_run_args args;
	int status;

	/* --out has no meaning with several targets: --out-dir names the
	 * directory (run_opts_parse refuses it for RUN_OPTS_VM). */
	status = run_opts_parse(argc, argv, RUN_OPTS_VM, &ro);
	if (status != 0)
		return status;
	run_opts_forward(&ro, &fwd);
	if ((status = launch_prepare(o, &ro, &l)) != 0)
		return status;
	args = (struct vm_run_args){ .command = "run", .scn = &l->sc, .name = ro.name, .fwd = fwd.argv,
				     .nfwd = fwd.argc, .carry = l->carry.path, .ncarry = l->carry.n };
	run_targets(&l->job, &args);
	status = run_status(&l->job);
	summary(&l->job, ro.no_report);
	launch_free(l);
	return status;
}

/* ---- fit ------------------------------------------------------------------------------ */

/* Each fit's answer (cmd/fitcli.h), under its target's label, then the
 * documents' paths. */
static void fit_summary(const struct vm_job *j)
{
	for (size_t i = 0; i < j->nt; i++) {
		const struct vm_target *t = &j->t[i];
		cleanup_free char *text = NULL;
		struct lab_error err;
		json_t *doc;
		size_t len;

		if (!t->ok)
			continue;
		if (lab_read_input(t->result, "result", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, &len, &err) < 0 ||
		    (doc = json_loadb(text, len, 0, NULL)) == NULL) {
			line("", err.msg);
			continue;
		}
		printf("## ");
		readcmd_line(stdout, t->label);
		putchar('\n');
		fit_cli_print_answer(doc);
		json_decref(doc);
	}
	for (size_t i = 0; i < j->nt; i++)
		if (j->t[i].ok)
			readcmd_line(stdout, j->t[i].result);
}

/* `pagelab vm [vm options] fit NAME|FILE --vary KEY=LO..HI [fit options]`;
 * argv[0] is "fit".  The options are read here as `pagelab fit` reads them
 * (bad ones refused before anything boots) and forwarded as given; the
 * fit's own checks against the guest's memory (the base at its MemTotal,
 * the scenario reading KEY) run in the guest, as `pagelab fit` runs them. */
static int vm_fit(const struct vm_opts *o, int argc, char **argv)
{
	struct fit_opts fo;
	struct vm_launch *l;
	struct vm_run_args args;
	int status;

	status = fit_cli_parse(argc, argv, &fo);
	if (status != 0)
		return status;
	if (fo.out != NULL)
		return usage_error("fit: --out names one file; each target's document goes to --out-dir");
	if ((status = launch_prepare(o, &fo.run, &l)) != 0)
		return status;
	/* getopt_long moved the scenario to the end: the rest are the options. */
	args = (struct vm_run_args){ .command = "fit", .scn = &l->sc, .name = fo.run.name, .fwd = argv + 1,
				     .nfwd = argc - 2, .carry = l->carry.path, .ncarry = l->carry.n };
	run_targets(&l->job, &args);
	status = run_status(&l->job);
	fit_summary(&l->job);
	launch_free(l);
	return status;
}

/* ---- audit ---------------------------------------------------------------------------- */

/* A target's audit text (what its guest printed) on stdout, each line
 * through lab_esc_term. */
static void print_text(const char *path)
{
	char *text = NULL, *l, *nl;
	struct lab_error err;

	if (lab_read_file(path, &text, NULL, &err) < 0) {
		line("", err.msg);
		return;
	}
	for (l = text; *l != '\0'; l = nl + 1) {
		nl = strchr(l, '\n');
		if (nl == NULL)
			nl = l + strlen(l) - 1;
		else
			*nl = '\0';
		readcmd_line(stdout, l);
	}
	free(text);
}

/* `pagelab vm [vm options] audit [audit options] [--then [audit options]]...`
 * (vm.h, harness/vm/audit.c): the text of every target printed, then the
 * paths.  Exit: 0 when every state of every target exited 0, else the
 * first non-zero status (a guest failure as for run). */
static int vm_audit(const struct vm_opts *o, int argc, char **argv)
{
	struct vm_audit_states *sts = malloc(sizeof(*sts));
	struct vm_job *job = calloc(1, sizeof(*job));
	struct vm_shape g;
	struct lab_error err;
	int status = LAB_EXIT_RAN, ret;

	if (sts == NULL || job == NULL) {
		status = fail(-ENOMEM, &(struct lab_error){ ENOMEM, "out of memory" });
		goto out;
	}
	if (vm_audit_states_parse(argc, argv, sts, &err) < 0) {
		status = usage_error("%s", err.msg);
		goto out;
	}
	if (o->swap_set || o->disk_set || o->modules) {
		status = usage_error("audit: --swap, --disk and --modules are for run");
		goto out;
	}
	ret = vm_shape_for_audit(o, &g, &err);
	if (ret == 0)
		ret = vm_job_prepare(job, o, &g, "audit", &progress, &err);
	if (ret < 0) {
		status = fail(ret, &err);
		goto out;
	}
	catch_signals();
	for (size_t i = 0; i < job->nt && !vm_interrupted(); i++) {
		int st;

		vm_audit_target(job, i, sts);
		print_target(&job->t[i]);
		st = target_status(&job->t[i]);
		if (st == LAB_EXIT_INTERRUPTED || vm_interrupted())
			status = LAB_EXIT_INTERRUPTED;
		else if (st != LAB_EXIT_RAN && status == LAB_EXIT_RAN)
			status = st;
	}
	for (size_t i = 0; i < job->nt && !sts->json; i++)
		if (job->t[i].ok)
			print_text(job->t[i].result);
	for (size_t i = 0; i < job->nt; i++)
		if (job->t[i].ok)
			readcmd_line(stdout, job->t[i].result);
out:
	if (job != NULL)
		vm_job_free(job);
	free(job);
	free(sts);
	return status;
}

int cmd_vm(int argc, char **argv)
{
	struct vm_opts o;
	int word = 0, ret;

	ret = parse_vm_opts(argc, argv, &o, &word);
	if (ret < 0) {
		usage();
		return LAB_EXIT_RAN;
	}
	if (ret != 0)
		return ret;
	if (strcmp(argv[word], "audit") == 0)
		return vm_audit(&o, argc - word - 1, argv + word + 1);
	if (strcmp(argv[word], "fit") == 0)
		return vm_fit(&o, argc - word, argv + word);
	return vm_run(&o, argc - word, argv + word);
}
