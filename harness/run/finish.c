/* SPDX-License-Identifier: GPL-2.0-or-later */
/* finish.c — the end of an execution: the result document written, and on
 * every exit path every journaled knob verified back (stages.h). */
#include "stages.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample/trace/trace.h"

void run_finish(struct run_ctx *c, struct run_outcome *out)
{
	struct lab_error err;

	if (c->res == NULL)
		return;
	if (result_finish(c->res, c->doc_status, c->doc_error[0] ? c->doc_error : NULL, &err) < 0) {
		run_fail(c, RUN_FAILED, &err);
	} else {
		lab_say(c->prog, LAB_SAY_PHASE, "result written: %s", result_path(c->res));
		snprintf(out->result, sizeof(out->result), "%s", result_path(c->res));
		out->summary = !c->failed && c->end == RUN_ENDED;
	}
	result_close(c->res);
	c->res = NULL;
}

void run_end_host(struct run_ctx *c)
{
	struct lab_error err;

	/* Normally each run restored its own already. */
	if (c->journal != NULL) {
		if (run_journal_restore(c, "restoring the knobs this run changed", &err) < 0)
			run_fail(c, RUN_FAILED, &err);
		knob_journal_close(c->journal);
		c->journal = NULL;
	}
	if (c->sigfd >= 0)
		close(c->sigfd);
	c->sigfd = -1;
	/* The last run holding tracefs takes down the mount pagelab made: this
	 * run's, or one that another run (ended, or killed) made while this one
	 * traced. */
	if (c->trace_ok) {
		pid_t who;
		int r = trace_end(&who, &err);

		if (r > 0 && who != getpid() && kill(who, 0) < 0 && errno == ESRCH)
			lab_say(c->prog, LAB_SAY_PHASE, "tracefs unmounted: pagelab pid %d had mounted it and is gone "
				"(it ended while this run traced, or was killed)", (int)who);
		else if (r > 0 && who != getpid())
			lab_say(c->prog, LAB_SAY_PHASE, "tracefs unmounted: pagelab pid %d had mounted it and is ending; "
				"this run was the last to hold it", (int)who);
		else if (r < 0 && r != -EBUSY)
			lab_say(c->prog, LAB_SAY_WARN, "%s", err.msg);
	}
	c->trace_mounted = false;
}
