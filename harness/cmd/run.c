/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/run.c — `pagelab run NAME|FILE [options]` (harness/cmd/cli.md): the
 * options (runopts.c), the plan, the pipeline (run/run.h) with its progress
 * on stderr, the summary table and the result's path on stdout. */
#include "cmd.h"
#include "readcmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "exitcode.h"
#include "runopts.h"
#include "read/report/report.h"
#include "run/run.h"

/* The summary table: the report of the document just written (what
 * `pagelab report FILE` prints).  A report that cannot be made is said and
 * does not change the run's status. */
static void summary(const char *path)
{
	const char *files[] = { path };
	struct report_options ro = { 0 };
	struct report *rep = NULL;
	struct lab_error err;

	fflush(stderr);
	if (report_load(files, 1, &ro, &rep, &err) < 0 || report_write(rep, REPORT_MARKDOWN, stdout, &err) < 0)
		readcmd_say("report", "%s", err.msg);
	report_free(rep);
	fflush(stdout);
}

int cmd_run(int argc, char **argv)
{
	const struct lab_progress prog = { .fn = run_say };
	struct run_outcome out;
	struct run_opts o;
	struct run_plan p;
	struct lab_error err;
	int status, ret;

	if ((status = run_opts_parse(argc, argv, RUN_OPTS_RUN, &o)) != 0)
		return status;
	/* A live status line only on a terminal, never with -v's step lines. */
	o.status = isatty(STDERR_FILENO) && !o.verbose && getenv("PAGELAB_NO_PROGRESS") == NULL ? stderr : NULL;
	/* Every variant is validated before anything on the host is touched:
	 * whatever fails here is the input's. */
	if (run_plan_load(o.name, o.sets, o.nr_sets, o.repeat, run_machine_bytes(), RUN_MACHINE_WHAT, &p, &err) < 0 ||
	    run_plan_instantiate(&p, 0, run_memtotal_bytes(), &err) < 0) {
		readcmd_say(NULL, "%s", err.msg);
		run_plan_free(&p);
		return err.code == ENOMEM ? LAB_EXIT_HARNESS : LAB_EXIT_USAGE;
	}
	run_plan_apply_opts(&p, &o);
	ret = run_execute(&o, &p, &prog, &out, &err);
	if (out.summary && !o.no_report)
		summary(out.result);
	if (out.result[0])
		printf("%s\n", out.result);
	if (ret < 0)
		readcmd_say_lines(NULL, err.msg);       /* "cannot run on this host:" and a reason a line */
	run_plan_free(&p);
	return run_end_status(out.end);
}
