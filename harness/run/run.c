/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run/run.c — one execution of a plan (run.h): check -> begin -> each
 * variant, repeat times -> finish, and what its stages share. */
#include "stages.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "host/knobs.h"
#include "launch/workdir.h"
#include "plan/tracedef.h"
#include "result/keys.h"
#include "run/commit.h"
#include "sample/trace/trace.h"
#include "sandbox/sandbox.h"

#ifndef PAGELAB_VERSION
#define PAGELAB_VERSION "0"
#endif

void run_fail(struct run_ctx *c, enum run_end end, const struct lab_error *e)
{
	if (c->failed) {
		lab_say(c->prog, LAB_SAY_PHASE, "%s", e->msg);
		return;
	}
	c->failed = true;
	c->end = end;
	c->err = *e;
	c->doc_status = "error";
	snprintf(c->doc_error, sizeof(c->doc_error), "%s", e->msg);
}

void run_interrupted(struct run_ctx *c, int signo)
{
	if (c->failed)
		lab_say(c->prog, LAB_SAY_PHASE, "%s", c->err.msg);
	c->failed = false;
	c->end = RUN_INTERRUPTED;
	c->doc_status = "interrupted";
	snprintf(c->doc_error, sizeof(c->doc_error), "stopped by %s", strsignal(signo));
}

static json_t *scenario_json(const struct scenario *s, unsigned repeat)
{
	json_t *o = json_object(), *p = json_object(), *m = json_object(), *rep = json_array(),
	       *req = json_array(), *ov = json_array();

	for (size_t i = 0; i < s->nr_params; i++)
		json_object_set_new(p, s->params[i].name, json_string(s->params[i].value));
	for (size_t i = 0; i < s->nr_dims; i++) {
		json_t *vals = json_array();

		for (size_t j = 0; j < s->dims[i].n; j++)
			json_array_append_new(vals, json_string(s->dims[i].values[j]));
		json_object_set_new(m, s->dims[i].name, vals);
	}
	for (size_t i = 0; i < s->nr_report; i++)
		json_array_append_new(rep, json_string(s->report[i]));
	for (unsigned b = 0; b < 7; b++)
		if (s->requires & (1u << b))
			json_array_append_new(req, json_string(scenario_req_name(1u << b)));
	if (s->overrides_text) {
		char *copy = strdup(s->overrides_text), *save = NULL;

		for (char *t = copy ? strtok_r(copy, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save))
			json_array_append_new(ov, json_string(t));
		free(copy);
	}
	json_object_set_new(o, RK_NAME, json_string(s->name));
	json_object_set_new(o, RK_FILE, json_string(s->file));
	json_object_set_new(o, RK_TITLE, s->title ? json_string(s->title) : json_null());
	json_object_set_new(o, RK_SOURCE, s->source ? json_string(s->source) : json_null());
	json_object_set_new(o, RK_EXPECT, s->expect ? json_string(s->expect) : json_null());
	json_object_set_new(o, RK_REPORT, rep);
	json_object_set_new(o, RK_REQUIRES, req);
	json_object_set_new(o, RK_DESTRUCTIVE, json_boolean(s->destructive));
	json_object_set_new(o, RK_PARAMS, p);
	json_object_set_new(o, RK_OVERRIDES, ov);
	json_object_set_new(o, RK_MATRIX, m);
	json_object_set_new(o, RK_REPEAT, json_integer(repeat));
	return o;
}

/* Signals into the loop.  SIGPIPE stays ignored (a write to a closed pipe
 * is EPIPE, and the workloads inherit the disposition, as before) but
 * blocked: a blocked signal is queued even when ignored (kernel/signal.c:
 * sig_ignored), so one sent to the harness reaches the signalfd too.  The
 * others get their default back first: a shell starts background jobs with
 * SIGINT and SIGQUIT ignored. */
static int signals_begin(struct run_ctx *c, struct lab_error *err)
{
	sigset_t mask;

	/* Every signal whose default would end the harness with knobs changed
	 * ends a run as SIGTERM does (host/knobs.h: knob_stop_signals). */
	knob_stop_signals(&mask);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&mask, s) == 1)
			signal(s, s == SIGPIPE ? SIG_IGN : SIG_DFL);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	c->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (c->sigfd < 0)
		return lab_error_errno(err, errno, "signalfd");
	return 0;
}

/* The harness protected (an OOM kill picks a workload, at 1000), what dead
 * runs left swept, and tracing set up.  RUN_ENDED, or a refusal of an
 * explicit --trace this host cannot give. */
static enum run_end host_begin(struct run_ctx *c, struct lab_error *err)
{
	bool want_trace = false, foreign = false;
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), removed = 0;

	if (fd >= 0) {
		if (write(fd, "-1000", 5) < 0) {
			/* not fatal: the workloads are still at 1000 */
		}
		close(fd);
	}
	if (sandbox_sweep(&c->host.cg, &removed, err) < 0)
		lab_say(c->prog, LAB_SAY_WARN, "sweeping stale sandboxes: %s", err->msg);
	else if (removed > 0)
		lab_say(c->prog, LAB_SAY_PHASE, "removed %d stale sandbox(es) of dead pagelab runs", removed);
	if (workdir_sweep(&removed, err) < 0)
		lab_say(c->prog, LAB_SAY_WARN, "sweeping stale run directories: %s", err->msg);
	else if (removed > 0)
		lab_say(c->prog, LAB_SAY_PHASE, "removed %d stale run director%s of dead pagelab runs in %s", removed,
			removed == 1 ? "y" : "ies", WORKDIR_BASE);
	for (size_t v = 0; v < c->p->nv; v++) {
		want_trace |= c->p->specs[v].trace.set != TRACE_SET_NONE;
		foreign |= c->p->specs[v].foreign;
	}
	/* What a foreign program's processes leave when their parent dies
	 * comes to pagelab, to be waited for (launch.h: launch_reap_orphans). */
	if (foreign && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		lab_say(c->prog, LAB_SAY_WARN, "PR_SET_CHILD_SUBREAPER: %s (orphans go to init)", strerror(errno));
	if (!want_trace)
		return RUN_ENDED;
	/* A private tracing instance per run; those of dead runs go first. */
	c->trace_ok = trace_available(&c->trace_mounted, err) == 0;
	if (!c->trace_ok) {
		snprintf(c->trace_why, sizeof(c->trace_why), "%s", err->msg);
		if (c->o->trace != NULL) {
			lab_error_prefix(err, "--trace %s", c->o->trace);
			return RUN_REFUSED_HOST;
		}
		lab_say(c->prog, LAB_SAY_WARN, "running without tracepoints: %s", err->msg);
		return RUN_ENDED;
	}
	if (c->trace_mounted && trace_mark_mount(err) < 0)
		lab_say(c->prog, LAB_SAY_WARN, "tracefs mounted here, but the mount not recorded: %s "
			"(a run killed now would leave it mounted)", err->msg);
	if (trace_sweep(&removed, err) < 0) {
		lab_say(c->prog, LAB_SAY_WARN, "sweeping stale tracing instances: %s", err->msg);
	} else if (removed > 0) {
		lab_say(c->prog, LAB_SAY_PHASE, "removed %d stale tracing instance(s) of dead pagelab runs", removed);
	}
	return RUN_ENDED;
}

/* The result document opened, its header streamed. */
static int result_begin(struct run_ctx *c, struct lab_error *err)
{
	const struct scenario *sp = &c->p->s;
	char stamp[32], abs[PATH_MAX];
	json_t *doc;

	if (result_open(c->o->out, sp->name, &c->res, err) < 0)
		return -EIO;
	doc = result_doc(c->res);
	result_utc_stamp(stamp, sizeof(stamp), 0);
	json_object_set_new(doc, RK_HARNESS, json_pack("{s:s, s:s, s:o}", "version", PAGELAB_VERSION, "commit",
						      run_commit, "modified",
						      run_modified < 0 ? json_null() : json_boolean(run_modified)));
	json_object_set_new(doc, RK_STARTED, json_string(stamp));
	json_object_set_new(doc, RK_HOST, host_to_json(&c->host));
	json_object_set_new(doc, RK_SCENARIO, scenario_json(sp, c->p->repeat));
	json_object_set_new(doc, RK_INTERVAL_MS, json_integer(c->o->interval_ms));
	json_object_set_new(doc, RK_TRACING, json_pack("{s:b, s:b, s:s?}", "available", c->trace_ok,
						      "tracefs_mounted_by_run", c->trace_mounted, "unavailable",
						      c->trace_why[0] ? c->trace_why : NULL));
	json_object_set_new(doc, RK_RUNS, json_array());
	result_stream(c->res, "header", -1, doc);
	lab_say(c->prog, LAB_SAY_PHASE, "%s: scenario file %s", sp->name,
		realpath(c->p->path, abs) != NULL ? abs : c->p->path);
	lab_say(c->prog, LAB_SAY_PHASE, "%s: %zu variant(s) x %u repeat(s), sampling every %u ms; streaming to %s",
		sp->name, c->p->nv, c->p->repeat, c->o->interval_ms, result_stream_path(c->res));
	return 0;
}

/* From the first change on the host: signals, the journal, the host made
 * ready, the document.  RUN_ENDED, or how it failed (err). */
static enum run_end begin(struct run_ctx *c, struct lab_error *err)
{
	bool need_knobs = false;
	enum run_end e;

	for (size_t v = 0; v < c->p->nv; v++)
		need_knobs |= c->p->specs[v].nr_knobs > 0;
	if (signals_begin(c, err) < 0)
		return RUN_FAILED;
	/* A journal left by a killed run is restored before anything else. */
	if ((e = run_journal_begin(c, need_knobs, err)) != RUN_ENDED || (e = host_begin(c, err)) != RUN_ENDED)
		return e;
	return result_begin(c, err) < 0 ? RUN_FAILED : RUN_ENDED;
}

int run_execute(const struct run_opts *o, struct run_plan *p, const struct lab_progress *prog,
		struct run_outcome *out, struct lab_error *err)
{
	struct run_ctx *c = calloc(1, sizeof(*c));
	enum run_end e;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (c == NULL)
		return lab_error_errno(err, ENOMEM, "%s", p->s.name);
	*c = (struct run_ctx){ .o = o, .p = p, .prog = prog, .sigfd = -1, .end = RUN_ENDED, .doc_status = "ok" };
	if ((e = run_check(c, err)) != RUN_ENDED || (e = begin(c, err)) != RUN_ENDED) {
		run_fail(c, e, err);
	} else {
		bool go = true;

		for (unsigned rep = 1; rep <= p->repeat && go; rep++)
			for (size_t v = 0; v < p->nv && go; v++)
				go = run_variant(c, v, rep);
	}
	run_finish(c, out);
	run_end_host(c);
	run_foreign_free_metrics(c);
	out->end = c->end;
	if (c->failed) {
		*err = c->err;
		ret = -(c->err.code > 0 ? c->err.code : EIO);
	}
	free(c);
	return ret;
}
