/* SPDX-License-Identifier: GPL-2.0-or-later */
/* finish.c — the end of an execution: the result document written, and on
 * every exit path every journaled knob verified back (stages.h). */
#include "stages.h"

#include <errno.h>
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
	if (c->trace_mounted)
		trace_unmount();
	c->trace_mounted = false;
	/* A mount a killed run made goes with the next run that traced (its
	 * instance was swept when this run began). */
	if (c->trace_ok) {
		pid_t who;
		int r = trace_release(&who, &err);

		if (r > 0)
			lab_say(c->prog, LAB_SAY_PHASE, "tracefs unmounted: pagelab pid %d, a run that died, had mounted it",
				(int)who);
		else if (r < 0 && r != -EBUSY)
			lab_say(c->prog, LAB_SAY_WARN, "%s", err.msg);
	}
}
