/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check.c — before anything runs: the options, and the scenario as fit will
 * run it (a parameter named as the key that [sandbox] reads, one variant,
 * every probe's quota instantiable), the objectives against its loads'
 * metrics tables, and where the document goes (internal.h). */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/size.h"
#include "launch/metrics.h"
#include "result/result.h"
#include "sandbox/settings.h"

#define MIB (1024ULL * 1024ULL)

static enum sandbox_setting_id setting_of(enum fit_key k)
{
	return k == FIT_MEMORY_HIGH ? SB_MEMORY_HIGH : SB_MEMORY_MAX;
}

void fit_set_text(enum fit_key k, unsigned long long q, char *buf, size_t len)
{
	snprintf(buf, len, "%s=%llu", fit_key_name(k), q);
}

/* The plan with KEY=quota: one variant whose [sandbox] setting is that
 * quota.  0, or -EINVAL with err (the plan's own message, or why the key
 * does not reach the sandbox). */
int fit_plan(struct fit_ctx *f, unsigned long long quota, struct run_plan *p, struct run_opts *ro,
	     struct lab_error *err)
{
	const char *key = fit_key_name(f->o->vary.key);
	size_t i;
	int ret;

	*ro = f->o->run;
	ro->repeat = f->repeat;
	ro->no_report = true;
	if (ro->nr_sets == RUN_MAX_SETS)
		return lab_error_set(err, E2BIG, "too many --set");
	fit_set_text(f->o->vary.key, quota, f->setbuf, sizeof(f->setbuf));
	ro->sets[ro->nr_sets++] = f->setbuf;
	if ((ret = run_plan_load(ro->name, ro->sets, ro->nr_sets, ro->repeat, run_machine_bytes(), RUN_MACHINE_WHAT,
				 p, err)) < 0 ||
	    (ret = run_plan_instantiate(p, 0, run_memtotal_bytes(), err)) < 0)
		return ret;
	run_plan_apply_opts(p, ro);
	if (p->nv != 1)
		return lab_error_set(err, EINVAL, "%s: %zu variants; fit varies one at a time: pin the matrix with "
				     "--set (%s)", p->s.name, p->nv, p->s.nr_dims ? p->s.dims[0].name : "?");
	for (i = 0; i < p->specs[0].nr_params; i++)
		if (strcmp(p->specs[0].param_names[i], key) == 0)
			break;
	if (i == p->specs[0].nr_params)
		return lab_error_set(err, EINVAL, "%s: no parameter %s: fit varies the parameter that [sandbox] %s "
				     "reads (%s = ${%s})", p->s.name, key, key, key, key);
	if (!(p->specs[0].sandbox.given & (1u << setting_of(f->o->vary.key))) ||
	    p->specs[0].sandbox.val[setting_of(f->o->vary.key)] != quota)
		return lab_error_set(err, EINVAL, "%s: [sandbox] %s does not read ${%s} (it is %llu bytes with "
				     "%s=%llu)", p->s.name, key, key, p->specs[0].sandbox.val[setting_of(f->o->vary.key)],
				     key, quota);
	return 0;
}

/* The resolution: given, or a sixteenth of the range in whole MiB (a page
 * when the range is under 16 MiB); the granule probes are rounded to. */
static int resolution_of(struct fit_ctx *f, struct lab_error *err)
{
	const struct fit_vary *v = &f->o->vary;
	unsigned long long span = v->hi - v->lo, page = (unsigned long long)sysconf(_SC_PAGESIZE);

	f->resolution = f->o->resolution;
	if (f->resolution == 0) {
		f->resolution = span / 16 / MIB * MIB;
		if (f->resolution == 0)
			f->resolution = span / 16 / page * page;
		if (f->resolution == 0)
			f->resolution = page;
	}
	if (f->resolution < page || f->resolution % page != 0)
		return lab_error_set(err, EINVAL, "--resolution: %llu bytes is not a whole number of pages (%llu)",
				     f->resolution, page);
	if (f->resolution >= span)
		return lab_error_set(err, EINVAL, "--resolution %llu: not below the range's span (%llu bytes): "
				     "nothing to bisect", f->resolution, span);
	f->granule = f->resolution >= MIB && v->lo % MIB == 0 ? MIB : page;
	return 0;
}

/* Each objective that names a metric must be one some load's table can give,
 * and ops / p99 given on the command line must have a load to judge. */
static int check_objectives(struct fit_ctx *f, const struct run_spec *r, struct lab_error *err)
{
	struct metrics_table *t[SCN_MAX_LOADS] = { 0 };
	int ret = 0;

	for (size_t k = 0; k < r->nr_loads; k++)
		if (r->loads[k].metrics[0] && (ret = metrics_load(r->loads[k].metrics, &t[k], err)) < 0)
			goto out;
	for (size_t i = 0; i < f->o->nslo && ret == 0; i++) {
		const struct fit_slo *s = &f->o->slo[i];
		bool can = s->kind == FIT_SLO_PSI;

		for (size_t k = 0; k < r->nr_loads && !can; k++) {
			if (t[k] == NULL)
				continue;
			if (s->kind == FIT_SLO_OPS)
				can = metrics_has_role(t[k], "throughput");
			else if (s->kind == FIT_SLO_P99)
				can = metrics_has_role(t[k], "p99");
			else
				can = metrics_may_give(t[k], s->metric, r->loads[k].name);
		}
		if (!can && (s->given || s->kind == FIT_SLO_METRIC))
			ret = lab_error_set(err, EINVAL, "--slo '%s': no load of %s gives %s (its metrics tables: "
					    "metrics/TOOL.json)", s->text, f->o->run.name,
					    s->kind == FIT_SLO_OPS ? "a throughput" : s->kind == FIT_SLO_P99 ? "a p99 latency"
					    : s->metric);
	}
out:
	for (size_t k = 0; k < r->nr_loads; k++)
		metrics_free(t[k]);
	return ret;
}

/* Where the document goes, and the private directory of the probes' own
 * results beside it. */
static int outputs(struct fit_ctx *f, const char *name, struct lab_error *err)
{
	char stamp[32], base[128], dir[PATH_MAX];
	int ret;

	if (f->o->out != NULL) {
		if ((size_t)snprintf(f->out, sizeof(f->out), "%s", f->o->out) >= sizeof(f->out))
			return lab_error_set(err, ENAMETOOLONG, "--out path too long");
	} else {
		if ((ret = result_check(NULL, err)) < 0)
			return ret;
		snprintf(base, sizeof(base), "%s", name);
		for (char *p = base; *p; p++)
			if (*p == '/')
				*p = '-';
		result_utc_stamp(stamp, sizeof(stamp), 1);
		if ((size_t)snprintf(f->out, sizeof(f->out), "%s/%s-fit-%s.json", result_default_dir(), base, stamp) >=
		    sizeof(f->out))
			return lab_error_set(err, ENAMETOOLONG, "result path too long");
	}
	if ((ret = lab_check_output_parents(f->out, "--out", false, err)) < 0 ||
	    (ret = lab_check_output(f->out, "--out", err)) < 0)
		return ret;
	snprintf(dir, sizeof(dir), "%s", f->out);
	if (strrchr(dir, '/') != NULL)
		*strrchr(dir, '/') = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if ((size_t)snprintf(f->tmpdir, sizeof(f->tmpdir), "%s/.pagelab-fit-%d-XXXXXX", dir, (int)getpid()) >=
	    sizeof(f->tmpdir))
		return lab_error_set(err, ENAMETOOLONG, "result path too long");
	return 0;
}

int fit_check(struct fit_ctx *f, struct lab_error *err)
{
	const struct fit_opts *o = f->o;
	const char *key = fit_key_name(o->vary.key);
	unsigned long long q[3];
	struct run_plan p;
	struct run_opts ro;
	int ret;

	if (o->run.repeat != 0 && o->run.repeat < 3)
		return lab_error_set(err, EINVAL, "--repeat %u: fit needs at least 3 repeats per probe (the compare rule "
				     "decides with 3 or more a side)", o->run.repeat);
	f->repeat = o->run.repeat ? o->run.repeat : FIT_REPEAT_DEFAULT;
	f->max_probes = o->max_probes ? o->max_probes : FIT_PROBES_DEFAULT;
	if (f->max_probes < 3 || f->max_probes > FIT_PROBES_MAX)
		return lab_error_set(err, EINVAL, "--probes %u: 3..%d (the range's ends and one between)", f->max_probes,
				     FIT_PROBES_MAX);
	for (size_t i = 0; i < o->run.nr_sets; i++)
		if (strncmp(o->run.sets[i], key, strlen(key)) == 0 && o->run.sets[i][strlen(key)] == '=')
			return lab_error_set(err, EINVAL, "--set %s: fit sets %s itself (--vary)", o->run.sets[i], key);
	if ((ret = resolution_of(f, err)) < 0)
		return ret;
	/* The base: unconstrained unless given. */
	q[0] = o->vary.hi;
	if ((ret = fit_plan(f, q[0], &p, &ro, err)) < 0) {
		run_plan_free(&p);
		return ret;
	}
	if ((ret = check_objectives(f, &p.specs[0], err)) < 0 || (ret = outputs(f, p.s.name, err)) < 0) {
		run_plan_free(&p);
		return ret;
	}
	if (o->vary.key == FIT_MEMORY_HIGH && o->vary.hi > p.specs[0].sandbox.val[SB_MEMORY_MAX]) {
		ret = lab_error_set(err, EINVAL, "--vary memory_high up to %llu: above memory_max (%llu bytes) it "
				    "throttles nothing", o->vary.hi, p.specs[0].sandbox.val[SB_MEMORY_MAX]);
		run_plan_free(&p);
		return ret;
	}
	f->base_quota = o->base ? o->base
		      : o->vary.key == FIT_MEMORY_HIGH ? p.specs[0].sandbox.val[SB_MEMORY_MAX]
		      : run_memtotal_bytes() / 4096 * 4096;
	f->unconstrained = o->base == 0;
	run_plan_free(&p);
	if (f->base_quota < o->vary.hi)
		return lab_error_set(err, EINVAL, "--base %llu: below the range's top (%llu): the base is the run the "
				     "range is measured against", f->base_quota, o->vary.hi);
	q[1] = o->vary.lo;
	q[2] = f->base_quota;
	for (int i = 1; i < 3; i++) {
		ret = fit_plan(f, q[i], &p, &ro, err);
		run_plan_free(&p);
		if (ret < 0)
			return ret;
	}
	return 0;
}
