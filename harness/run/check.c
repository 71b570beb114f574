/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check.c — can this host run every variant of the plan?  Everything here
 * reads; nothing on the host changes (stages.h). */
#include "stages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/trust.h"
#include "launch/launch.h"
#include "sandbox/sandbox.h"
#include "workloads/decl.h"

/* The advice of every advise:/populate: step of a variant's workloads,
 * probed once each on a scratch mapping of pagelab's own (workloads/decl.c).
 * 0, -EOPNOTSUPP naming the step and the advice. */
static int steps_advice_check(const struct run_spec *r, struct lab_error *err)
{
	for (size_t w = 0; w < r->nr_workloads; w++) {
		const struct wl_decl *d = wl_decl_find(r->workloads[w].program);

		for (int a = 1; d != NULL && d->steps != NULL && a < r->workloads[w].argc; a++) {
			const char *arg = r->workloads[w].argv[a];
			const struct wl_advice *adv = NULL;
			struct wl_step_value sv;
			struct lab_error e2;

			if (arg[0] == '-' || wl_step_parse(d, arg, &sv, &e2) < 0)
				continue;
			for (int i = 0; i < sv.nargs; i++)
				if (sv.step->args[i] == WT_ADVICE)
					adv = wl_advice_find(sv.step->name, sv.text[i]);
			if (adv != NULL && wl_advice_probe(adv, err) < 0)
				return lab_error_prefix(err, "workload %s, step %s", r->workloads[w].name, arg);
		}
	}
	return 0;
}

/* The scenario's requirements, and whether it may run here at all. */
static enum run_end check_host(struct run_ctx *c, struct lab_error *err)
{
	const struct scenario *sp = &c->p->s;
	char why[1024];
	size_t n;
	enum run_end e;

	if (host_probe(&c->host, err) < 0)
		return RUN_FAILED;
	if (getenv("PAGELAB_GUEST") != NULL && strcmp(getenv("PAGELAB_GUEST"), "1") == 0 && !c->host.in_vm_guest) {
		lab_guest_evidence(why, sizeof(why));
		lab_say(c->prog, LAB_SAY_WARN, "PAGELAB_GUEST=1 ignored: nothing says this is pagelab's guest (%s)", why);
	}
	/* scenario.h and host.h name the same requirement bits in the same order. */
	if (host_missing(&c->host, sp->requires, why, sizeof(why))) {
		n = strlen(why);
		if (n > 0 && why[n - 1] == '\n')
			why[n - 1] = '\0';
		/* One reason a line, under the scenario's name. */
		lab_error_set(err, ENOTSUP, "%s cannot run on this host:\n%s", sp->name, why);
		return RUN_REFUSED_HOST;
	}
	if (sp->destructive && !c->o->allow_destructive && !c->host.in_vm_guest) {
		lab_error_set(err, EPERM, "%s is destructive (it can cause a global OOM or starve this machine): "
			      "run it in VM mode, or on this host with --allow-destructive", sp->name);
		return RUN_REFUSED_HOST;
	}
	e = run_check_knobs(c->o, &c->host, c->p->specs, c->p->nv, sp->name, err);
	if (e == RUN_ENDED)
		e = run_check_resources(&c->host, c->p->specs, c->p->nv, sp->name, err);
	return e;
}

/* Every setting a variant states must be one this host's memory controller
 * can apply (sandbox/settings.c), every advice one this kernel takes, and
 * under --sandbox self every variant's limit the one this cgroup already
 * has. */
static enum run_end check_sandbox(struct run_ctx *c, struct lab_error *err)
{
	const char *name = c->p->s.name;

	for (size_t v = 0; v < c->p->nv; v++) {
		struct sandbox_spec ss = { .values = c->p->specs[v].sandbox };

		if (sandbox_check_settings(&c->host.cg, &ss, err) < 0) {
			lab_error_prefix(err, "%s (run %s) cannot run on this host", name, c->p->specs[v].label);
			return RUN_REFUSED_HOST;
		}
	}
	for (size_t v = 0; v < c->p->nv; v++)
		if (steps_advice_check(&c->p->specs[v], err) < 0) {
			int code = err->code;

			lab_error_prefix(err, "%s (run %s) cannot run on this host", name, c->p->specs[v].label);
			return code == EOPNOTSUPP ? RUN_REFUSED_HOST : RUN_FAILED;
		}
	for (size_t v = 0; c->o->sandbox_self && v < c->p->nv; v++) {
		struct sandbox_spec ss = { .values = c->p->specs[v].sandbox };

		if (sandbox_self_check(&c->host.cg, &ss, err) < 0) {
			int code = err->code;

			lab_error_prefix(err, "%s (run %s)", name, c->p->specs[v].label);
			return code == ERANGE || code == ENODEV ? RUN_REFUSED_HOST : RUN_FAILED;
		}
	}
	return RUN_ENDED;
}

/* The workload programs: there, and — when $PAGELAB_WORKLOADS names their
 * directory — each one root's (or pagelab's user's) and not writable by
 * group or others (base/trust.h), since root executes them. */
static enum run_end check_programs(struct run_ctx *c, struct lab_error *err)
{
	const char *env = getenv("PAGELAB_WORKLOADS");

	if (launch_bindir(c->bindir, sizeof(c->bindir), err) < 0)
		return RUN_FAILED;
	for (size_t v = 0; v < c->p->nv; v++)
		for (size_t w = 0; w < c->p->specs[v].nr_workloads; w++) {
			char prog[PATH_MAX * 2];

			if (c->p->specs[v].workloads[w].command)
				continue;       /* a foreign program: foreign.c */
			snprintf(prog, sizeof(prog), "%s/%s", c->bindir, c->p->specs[v].workloads[w].program);
			if (access(prog, X_OK) < 0) {
				lab_error_set(err, ENOENT, "workload program %s is missing (build it: cmake --build build)",
					      prog);
				return RUN_FAILED;
			}
			if (env != NULL && *env &&
			    lab_trust_path(prog, "workload program", LAB_TRUST_FILE,
					   " (in PAGELAB_WORKLOADS: chown root and chmod go-w it)", err) < 0)
				return RUN_REFUSED_INPUT;
		}
	return RUN_ENDED;
}

enum run_end run_check(struct run_ctx *c, struct lab_error *err)
{
	enum run_end e;

	/* Where the result goes, before anything on the host changes. */
	if (result_check(c->o->out, err) < 0)
		return RUN_REFUSED_INPUT;
	if ((e = check_host(c, err)) != RUN_ENDED || (e = check_sandbox(c, err)) != RUN_ENDED ||
	    (e = check_programs(c, err)) != RUN_ENDED)
		return e;
	return run_check_foreign(c, err);
}
