/* SPDX-License-Identifier: GPL-2.0-or-later */
/* variant.c — one run of one variant: its sandbox, its knobs, its workloads
 * launched and sampled, the kernel log read, and all of it taken down again
 * in the order it was set up (processes, cgroup, knobs) (stages.h). */
#include "stages.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/size.h"
#include "host/kmsg.h"
#include "launch/launch.h"
#include "result/keys.h"
#include "sample/sampler.h"
#include "sample/trace/trace.h"
#include "sandbox/sandbox.h"

static json_t *run_json(const struct run_spec *r, unsigned rep)
{
	json_t *o = json_object(), *v = json_object(), *p = json_object();

	for (size_t i = 0; i < r->nr_variant; i++)
		json_object_set_new(v, r->variant_keys[i], json_string(r->variant_values[i]));
	for (size_t i = 0; i < r->nr_params; i++)
		json_object_set_new(p, r->param_names[i], json_string(r->param_values[i]));
	json_object_set_new(o, RK_LABEL, json_string(r->label));
	json_object_set_new(o, RK_REPEAT, json_integer(rep));
	json_object_set_new(o, RK_VARIANT, v);
	json_object_set_new(o, RK_PARAMS, p);
	return o;
}

/* runs[].sandbox: where, which version, and every setting of the table as
 * applied (its result key; a bool is false where it was not written). */
static json_t *sandbox_json(const struct sandbox *sb, const struct sandbox_values *sv, bool self)
{
	enum cg_version cv = sandbox_version(sb);
	json_t *o = json_pack("{s:s, s:s}", RK_PATH, sandbox_path(sb), RK_VERSION,
			      cv == CG_VERSION_V2 ? "v2" : "v1");

	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		bool here = sandbox_setting_file(d, cv) != NULL && (sv->apply & (1u << d->id)) &&
			    !(self && !(sv->given & (1u << d->id)) && d->id != SB_MEMORY_MAX && d->id != SB_SWAP_MAX);

		if (d->type == SB_TYPE_BOOL)
			json_object_set_new(o, d->result_key, json_boolean(here && sv->val[d->id] != 0));
		else if (here || d->id == SB_MEMORY_MAX || d->id == SB_SWAP_MAX)
			json_object_set_new(o, d->result_key, json_integer((json_int_t)sv->val[d->id]));
	}
	return o;
}

/* The kernel log names every OOM victim by pid: a workload it names was
 * OOM-killed even when the harness was stopping it already (a helper killed
 * after the main workload ended, run five's second victim), which the
 * sandbox's counter alone cannot tell.  The counter cannot tell which of two
 * kills close together was whose either: the workload reaped first takes it
 * (run five in a 6.12 guest: the loader killed at 44.86 s, the other tenant at
 * 45.18 s, the tenant reaped first).  So the victims are listed in the kernel
 * log's order (those it does not name, v1 without a log, after them), and a
 * main workload it names was OOM-killed whatever the reaping order said. */
static bool named_in(json_t *a, const char *name)
{
	for (size_t j = 0; j < json_array_size(a); j++)
		if (strcmp(json_string_value(json_array_get(a, j)), name) == 0)
			return true;
	return false;
}

static void victims_from_kmsg(json_t *run)
{
	json_t *kills = json_object_get(json_object_get(run, "kmsg"), RK_OOM_KILLS);
	json_t *ex = json_object_get(run, RK_EXIT);
	json_t *ws = json_object_get(ex, RK_WORKLOADS), *victims = json_object_get(ex, RK_VICTIMS);
	json_t *ordered = json_array();
	size_t k, i, nw = json_array_size(ws);

	for (k = 0; k < json_array_size(kills); k++) {
		json_int_t pid = run_victim_pid(run, json_integer_value(json_object_get(json_array_get(kills, k), RK_PID)));

		for (i = 0; i < nw; i++) {
			json_t *w = json_array_get(ws, i);
			const char *name = json_string_value(json_object_get(w, RK_NAME));

			if (json_integer_value(json_object_get(w, RK_PID)) != pid || name == NULL)
				continue;
			json_object_set_new(w, RK_OOM_KILLED, json_true());
			json_object_set_new(w, RK_FATE, json_string("oom_killed"));
			if (!named_in(ordered, name))
				json_array_append_new(ordered, json_string(name));
			if (i == nw - 1 && json_is_string(json_object_get(ex, RK_OUTCOME)) &&
			    strcmp(json_string_value(json_object_get(ex, RK_OUTCOME)), "killed") == 0)
				json_object_set_new(ex, RK_OUTCOME, json_string("oom_killed"));
		}
	}
	if (!json_is_array(victims)) {
		json_decref(ordered);
		return;
	}
	for (k = 0; k < json_array_size(victims); k++)
		if (!named_in(ordered, json_string_value(json_array_get(victims, k))))
			json_array_append(ordered, json_array_get(victims, k));
	json_object_set_new(ex, RK_VICTIMS, ordered);
}

/* The sandbox of a run (a new cgroup, or pagelab's own), recorded in run. */
static int sandbox_up(struct run_ctx *c, const struct run_spec *r, unsigned rep, struct sandbox **sb, json_t *run,
		      struct lab_error *err)
{
	struct sandbox_spec ss = { .values = r->sandbox };
	unsigned long long baseline = 0;
	char vt[256], lim[32];
	json_t *sj;

	if ((c->o->sandbox_self ? sandbox_adopt_self(&c->host.cg, &ss, sb, &baseline, err)
				: sandbox_create(&c->host.cg, &ss, sb, err)) < 0)
		return -EIO;
	sj = sandbox_json(*sb, &ss.values, c->o->sandbox_self);
	/* self: the limit found is the sandbox, and what it already held
	 * (pagelab, the container's shell) is part of the baseline. */
	json_object_set_new(sj, RK_MODE, json_string(c->o->sandbox_self ? "self" : "child"));
	if (c->o->sandbox_self)
		json_object_set_new(sj, RK_BASELINE_BYTES, json_integer((json_int_t)baseline));
	json_object_set_new(run, RK_SANDBOX, sj);
	run_spec_variant_text(r, vt, sizeof(vt));
	lab_say(c->prog, LAB_SAY_PHASE, "run %d: %s.%u%s%s: sandbox %s (%s, swap %llu)", c->run_index + 1, r->label,
		rep, vt[0] ? " " : "", vt, sandbox_path(*sb),
		lab_format_size(ss.values.val[SB_MEMORY_MAX], lim, sizeof(lim)), ss.values.val[SB_SWAP_MAX]);
	return 0;
}

/* The run's workloads in the sampler's loop, and the kernel log of it
 * (runs[].kmsg).  ret of sampler_run: 0, 1 interrupted (*signo), -errno. */
static int sample(struct run_ctx *c, const struct run_spec *r, struct sandbox *sb, json_t *run, int kfd,
		  const struct sampler_foreign *foreign, int *signo, struct lab_error *err)
{
	struct trace_config tc = { .set = c->trace_ok ? r->trace.set : TRACE_SET_NONE, .raw = r->trace.raw,
				   .bin_ms = r->trace.bin_ms, .buffer_kb = r->trace.buffer_kb };
	struct sampler_opts so = { .interval_ms = c->o->interval_ms, .timeout_s = c->o->timeout_s,
				   .bindir = c->bindir, .sigfd = c->sigfd, .verbose = c->o->verbose,
				   .trace = tc.set != TRACE_SET_NONE ? &tc : NULL, .burst_ms = r->trace.burst_ms,
				   .burst_margin_pct = r->trace.burst_margin_pct,
				   .burst_always = r->trace.burst_always, .burst_raw = r->trace.raw,
				   .progress = c->prog, .status = c->o->status, .foreign = foreign,
				   .seen = json_object() };
	struct kmsg_log klog = { 0 };
	int ret;

	result_stream(c->res, "run-start", c->run_index, run);
	ret = sampler_run(r, sb, &so, c->res, c->run_index, run, signo, err);
	kmsg_drain(kfd, &klog, kmsg_interesting, KMSG_KEEP_MAX);
	json_object_set_new(run, RK_KMSG, kmsg_log_json(&klog));
	victims_from_kmsg(run);
	run_oom_victims(run, so.seen);
	json_decref(so.seen);
	kmsg_log_free(&klog);
	return ret;
}

/* After the run: its outcome said, a workload that failed on its own
 * recorded (it is not data: exit 1; an OOM kill is), the run's end streamed. */
static void run_done(struct run_ctx *c, json_t *run, int ret)
{
	json_t *ex = json_object_get(run, RK_EXIT), *sm = json_object_get(run, RK_SUMMARY);
	const char *oc = json_string_value(json_object_get(ex, RK_OUTCOME));
	char why[1024];

	/* summary.audit.far: the cadence or the reads far from asked
	 * (harness/sample/audit.h), said on the run's own line. */
	const char *far = json_string_value(json_object_get(json_object_get(sm, "audit"), "far"));

	lab_say(c->prog, LAB_SAY_PHASE, "run %d: %s after %.1f s (%d samples)%s%s", c->run_index + 1, oc ? oc : "?",
		json_number_value(json_object_get(sm, RK_DURATION_MS)) / 1000.0,
		(int)json_integer_value(json_object_get(sm, RK_SAMPLES)), far ? "; measured far from asked: " : "",
		far ? far : "");
	run_say_victims(c->prog, c->run_index, run);
	if (ret >= 0 && sampler_run_failed(run, why, sizeof(why))) {
		struct lab_error e;

		lab_error_set(&e, EIO, "run %d: %.900s", c->run_index + 1, why);
		run_fail(c, RUN_FAILED, &e);
	}
	result_stream(c->res, "run-end", c->run_index, ex);
	result_stream_sync(c->res);
}

bool run_variant(struct run_ctx *c, size_t v, unsigned rep)
{
	const struct run_spec *r = &c->p->specs[v];
	struct sandbox *sb = NULL;
	struct run_foreign *fr = NULL;
	json_t *run = run_json(r, rep);
	struct lab_error err, e2;
	int signo = 0, kfd, ret;

	json_array_append(json_object_get(result_doc(c->res), RK_RUNS), run);
	if (sandbox_up(c, r, rep, &sb, run, &err) < 0) {
		run_fail(c, RUN_FAILED, &err);
		json_decref(run);
		return false;
	}
	/* The kernel log from here on: the knobs' own lines (min_free_kbytes),
	 * OOM reports, allocation failures (runs[].kmsg). */
	kfd = kmsg_open(true);
	/* This run's knobs, through the journal, right before its workloads. */
	if (r->nr_knobs > 0 && run_knobs_apply(c, r, run, &err) < 0) {
		run_fail(c, RUN_FAILED, &err);
		if (run_knobs_restore(c, run, &e2) < 0)
			run_fail(c, RUN_FAILED, &e2);
		if (sandbox_destroy(sb, &e2) < 0)
			run_fail(c, RUN_FAILED, &e2);
		if (kfd >= 0)
			close(kfd);
		json_decref(run);
		return false;
	}
	/* A command's or a load's: the run's directory, network namespace and
	 * the loads' own cgroup (foreign.c). */
	ret = run_foreign_up(c, r, v, run, &fr, &err);
	if (ret == 0)
		ret = sample(c, r, sb, run, kfd, run_foreign_sampler(fr), &signo, &err);
	if (kfd >= 0)
		close(kfd);
	if (ret < 0)
		run_fail(c, RUN_FAILED, &err);  /* the cause, before what taking down may add */
	if (sandbox_destroy(sb, &e2) < 0) {
		lab_error_prefix(&e2, "removing the sandbox");
		run_fail(c, RUN_FAILED, &e2);
	}
	/* After every process of the run: the loads' cgroup, the directory,
	 * and the orphans its programs left to pagelab (launch.h). */
	if (run_foreign_down(fr, &e2) < 0)
		run_fail(c, RUN_FAILED, &e2);
	if (r->foreign)
		launch_reap_all();
	/* ...and put back after them (processes, then cgroup, then knobs); a
	 * knob not back stops the execution. */
	if (r->nr_knobs > 0 && run_knobs_restore(c, run, &e2) < 0) {
		run_fail(c, RUN_FAILED, &e2);
		if (ret >= 0)
			ret = -EIO;
	}
	run_done(c, run, ret);
	json_decref(run);
	c->run_index++;
	if (ret < 0)
		return false;
	if (ret == 1) {
		run_interrupted(c, signo);
		return false;
	}
	return true;
}
