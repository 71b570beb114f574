/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/show.c — `pagelab show NAME|FILE` (harness/cmd/cli.md): every variant
 * planned and typed as `run` would, printed, nothing run. */
#include "cmd.h"
#include "readcmd.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "exitcode.h"
#include "base/trust.h"
#include "launch/command.h"
#include "launch/metrics.h"
#include "launch/workdir.h"
#include "plan/tracedef.h"
#include "run/run.h"
#include "base/size.h"
#include "sandbox/settings.h"

/* A word as a shell would read it back: bare when it is only safe
 * characters, else in '…' with ' as '\'' (the exact argv, copy-pasteable). */
static void print_word(const char *w)
{
	if (*w != '\0' && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-") ==
			      strlen(w)) {
		fputs(w, stdout);
		return;
	}
	putchar('\'');
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", stdout);
		else if ((unsigned char)*p < 0x20 || *p == 0x7f)
			printf("\\x%02x", (unsigned char)*p);
		else
			putchar(*p);
	}
	putchar('\'');
}

static void print_words(const char *head, char **v)
{
	fputs(head, stdout);
	for (size_t i = 0; v[i] != NULL; i++) {
		putchar(' ');
		print_word(v[i]);
	}
	putchar('\n');
}

/* How a foreign program runs: its exact argv (${dir}: the run's directory),
 * the program exec runs, its user, its whole environment. */
static void show_exec(char *const *argv, int argc, const struct cmd_exec *x)
{
	struct cmd_user u;
	struct lab_error err;
	char path[4096], **a = cmd_argv_build(argv, argc, NULL), **env;
	bool have_user = cmd_user_lookup(x->user, &u, &err) == 0;

	if (!have_user)
		snprintf(u.name, sizeof(u.name), "%s", x->user);
	print_words("      argv:", a);
	if (cmd_resolve(a[0], path, sizeof(path), &err) == 0)
		printf("      program: %s\n", path);
	else
		printf("      program: not on this host (%s)\n", err.msg);
	if (have_user)
		printf("      user: %s (uid %d, gid %d)%s\n", u.name, (int)u.uid, (int)u.gid,
		       u.root ? ": root, only with --allow-root-workload" : "");
	else
		printf("      user: %s (%s)\n", x->user, err.msg);
	env = cmd_env_build((const char *const *)x->env, x->nr_env, &u, NULL);
	print_words("      env:", env);
	cmd_strv_free(env);
	cmd_strv_free(a);
}

static const char *sig_name(int sig)
{
	return sig == SIGTERM ? "TERM" : sig == SIGINT ? "INT" : sig == SIGQUIT ? "QUIT" : sig == SIGHUP ? "HUP"
	       : sig == SIGUSR1 ? "USR1" : sig == SIGUSR2 ? "USR2" : sig == SIGKILL ? "KILL" : "?";
}

static void show_command(const struct run_workload *w)
{
	printf("    %s: command, in the sandbox and the run's network namespace (only lo)\n", w->name);
	show_exec(w->argv, w->argc, &w->exec);
	printf("      ready: %s", w->ready.kind == RUN_READY_NONE ? "at once (no ready =)" : w->ready.text);
	if (w->ready.kind != RUN_READY_NONE)
		printf(", within %u ms", w->ready.timeout_ms);
	printf("; stop: %s, %u ms grace, then every process of the sandbox SIGKILLed", sig_name(w->stop_signal),
	       w->stop_grace_ms);
	if (w->hold_ms)
		printf("; held %u ms after its loads", w->hold_ms);
	printf("\n      thp: %s\n", w->thp_never ? "never (PR_SET_THP_DISABLE before exec, for it and every process it forks)"
						  : "as the host has it");
}

static void show_load(const struct run_load *l, const char *main_name)
{
	struct metrics_table *t = NULL;
	struct lab_error err;
	char lim[32];

	printf("    load %s: after %s is ready, a step of it; %s, timeout %u ms (then SIGKILL)\n", l->name, main_name,
	       l->in_sandbox ? "in the sandbox" : "in its own cgroup beside the sandbox", l->timeout_ms);
	if (!l->in_sandbox)
		printf("      its cgroup: memory_max %s\n", lab_format_size(l->memory_max, lim, sizeof(lim)));
	show_exec(l->argv, l->argc, &l->exec);
	if (l->metrics[0] == '\0') {
		printf("      metrics: none (its output is kept; it is a result when it exits 0)\n");
		return;
	}
	if (metrics_load(l->metrics, &t, &err) < 0) {
		printf("      metrics: %s: %s\n", l->metrics, err.msg);
		return;
	}
	printf("      metrics: %s (%s)%s%s\n", l->metrics, metrics_path(t),
	       metrics_check_args(t, l->argv, l->argc, &err) < 0 ? ": refused: " : "",
	       metrics_check_args(t, l->argv, l->argc, &err) < 0 ? err.msg : "");
	metrics_free(t);
}

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
		if (r->workloads[w].command) {
			show_command(&r->workloads[w]);
			continue;
		}
		printf("    %s:", r->workloads[w].name);
		for (int a = 0; a < r->workloads[w].argc; a++)
			printf(" %s", r->workloads[w].argv[a]);
		printf("\n");
	}
	for (size_t k = 0; k < r->nr_loads; k++)
		show_load(&r->loads[k], r->workloads[r->nr_workloads - 1].name);
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
		readcmd_say(NULL, "show: unknown option '%s' (see pagelab --help)", argv[optind - 1]);
		return LAB_EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "pagelab: show: %s (see pagelab --help)\n",
			optind >= argc ? "which scenario?" : "one scenario at a time");
		return LAB_EXIT_USAGE;
	}
	if (run_plan_load(argv[optind], NULL, 0, 0, run_machine_bytes(), RUN_MACHINE_WHAT, &p, &err) < 0 ||
	    run_plan_instantiate(&p, 0, run_memtotal_bytes(), &err) < 0) {
		readcmd_say(NULL, "%s", err.msg);
		run_plan_free(&p);
		return err.code == ENOMEM ? LAB_EXIT_HARNESS : LAB_EXIT_USAGE;
	}
	printf("%s — %s\nsource: %s\nfile: %s\nrepeat %u, %zu variant(s):\n", p.s.name, p.s.title ? p.s.title : "",
	       p.s.source ? p.s.source : "-", realpath(p.path, abs) != NULL ? abs : p.path, p.repeat, p.nv);
	if (p.nv > 0 && p.specs[0].foreign) {
		/* A scenario with command is code: run takes it only from a trusted file. */
		bool trusted = lab_trust_path(p.path, "scenario file", LAB_TRUST_FILE, NULL, &err) == 0;

		printf("runs programs as given (harness/plan/scenario.md): %s\n", trusted ? "the file is trusted"
		       : "run refuses it: ");
		if (!trusted)
			printf("  %s\n", err.msg);
		printf("working directory: a new one per run, %s/pagelab-<pid>-<run>-XXXXXX/run (0700, its user's; "
		       "HOME, TMPDIR and cwd; ${dir} in the words below), removed at the run's end\n", WORKDIR_BASE);
	}
	for (size_t v = 0; v < p.nv; v++)
		show_variant(&p.specs[v]);
	run_plan_free(&p);
	return LAB_EXIT_RAN;
}
