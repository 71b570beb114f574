/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/restore.c — `pagelab restore` (harness/cmd/cli.md): put back every knob
 * a killed run left changed, from the knob journal (host/knobs.h), then
 * remove the sandboxes and tracing instances of dead runs, and take down a
 * tracefs mount a dead run made (host/mountmark.h). */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cmd.h"
#include "readcmd.h"
#include "exitcode.h"
#include "host/knobs.h"
#include "sample/trace/trace.h"
#include "sandbox/sandbox.h"

/* getopt_long, permuting: restore takes no operand and no option but
 * --help.  -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;             /* glibc: a fresh scan */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: pagelab restore\n\n"
			       "Put back every knob a killed run left changed (the knob journal, $PAGELAB_JOURNAL or\n"
			       "/var/lib/pagelab/journal), then remove the sandboxes and tracing instances of dead\n"
			       "runs, and unmount tracefs when a dead run mounted it (its record, JOURNAL.tracefs,\n"
			       "names that mount; a mount nobody recorded stays).  exit status: 0 the machine is\n"
			       "back (or nothing was to do), 1 something could not be put back, 3 a live run owns\n"
			       "the journal.\n");
			return LAB_EXIT_RAN;
		}
		break;
	}
	if (c != -1 || optind < argc) {
		fprintf(stderr, "pagelab: restore takes no arguments (see pagelab --help)\n");
		return LAB_EXIT_USAGE;
	}
	return -1;
}

/* The tracefs mount a dead run made, taken down (trace_release).  Returns
 * status, or LAB_EXIT_HARNESS when the record could not be read or the mount
 * not be taken down; a mount in use is said and leaves status as it was. */
static int restore_tracefs(int status)
{
	struct lab_error err;
	pid_t who;
	int ret = trace_release(&who, &err);

	if (ret > 0)
		printf("pagelab restore: unmounted tracefs, which a dead pagelab run (pid %d) had mounted\n", (int)who);
	else if (ret == -EBUSY)
		printf("pagelab restore: tracefs, mounted by a dead pagelab run (pid %d), is in use: left mounted\n",
		       (int)who);
	else if (ret < 0)
		readcmd_say("restore", "%s", err.msg);
	return ret < 0 && ret != -EBUSY ? LAB_EXIT_HARNESS : status;
}

/* `pagelab restore`: the knobs a killed run left changed, from the journal,
 * then the sandboxes, tracing instances and tracefs mount of dead runs.  0
 * when the machine is back (or there was nothing to do), 1 when something
 * could not be put back, 3 when a live run owns the journal. */
int cmd_restore(int argc, char **argv)
{
	const char *path = knob_journal_path();
	struct knob_journal *j = NULL;
	struct knob_restore_report rep;
	struct lab_error err;
	struct cg_host cg;
	struct stat st;
	bool stale = false;
	pid_t owner = 0;
	int ret, status = LAB_EXIT_RAN, removed = 0;

	if ((ret = parse_options(argc, argv)) >= 0)
		return ret;
	if (lstat(path, &st) < 0) {
		printf("pagelab restore: no knob journal at %s: nothing to restore\n", path);
	} else if ((ret = knob_journal_open(path, &j, &stale, &owner, &err)) < 0) {
		readcmd_say("restore", "%s%s", err.msg,
			ret == -EBUSY ? ": it puts its knobs back when it ends (stop it with SIGINT)" : "");
		return ret == -EBUSY ? LAB_EXIT_CANNOT : ret == -EPERM ? LAB_EXIT_USAGE : LAB_EXIT_HARNESS;
	} else {
		ret = knob_journal_restore(j, &rep, &err);
		printf("pagelab restore: knob journal %s (written by pid %d):\n", path, (int)rep.journal_pid);
		fflush(stdout);
		knob_report_print(&rep, stdout, "pagelab restore:   ");
		if (ret < 0) {
			readcmd_say("restore", "%s", err.msg);
			status = LAB_EXIT_HARNESS;
		} else {
			printf("pagelab restore: %zu knob(s) verified back; journal removed\n", rep.n);
		}
		knob_journal_close(j);
	}
	if (sandbox_probe(&cg, &err) == 0) {
		if (sandbox_sweep(&cg, &removed, &err) < 0) {
			readcmd_say("restore", "sweeping stale sandboxes: %s", err.msg);
			status = LAB_EXIT_HARNESS;
		} else if (removed > 0) {
			printf("pagelab restore: removed %d stale sandbox(es) of dead pagelab runs\n", removed);
		}
	}
	if (trace_sweep(&removed, &err) < 0) {
		readcmd_say("restore", "sweeping stale tracing instances: %s", err.msg);
		status = LAB_EXIT_HARNESS;
	} else if (removed > 0) {
		printf("pagelab restore: removed %d stale tracing instance(s) of dead pagelab runs\n", removed);
	}
	return restore_tracefs(status);
}

