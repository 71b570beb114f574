/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan.c — the pipeline's first stage: NAME|FILE read, --set applied, every
 * variant instantiated and validated before anything on the host is touched
 * (run.h; the scenario itself is harness/plan/). */
#include "run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "host/host.h"
#include "plan/catalog.h"
#include "plan/tracedef.h"

unsigned long long run_memtotal_bytes(void)
{
	return host_meminfo_bytes("MemTotal");
}

unsigned long long run_machine_bytes(void)
{
	return host_meminfo_bytes("MemTotal") + host_meminfo_bytes("SwapTotal");
}

int run_plan_load(const char *name, char *const *sets, size_t nr_sets, unsigned repeat,
		  unsigned long long machine_bytes, const char *machine_what, struct run_plan *p,
		  struct lab_error *err)
{
	cleanup_free char *text = NULL;
	int ret;

	memset(p, 0, sizeof(*p));
	if ((ret = catalog_find(name, p->path, sizeof(p->path), err)) < 0 ||
	    (ret = lab_read_input(p->path, "scenario", LAB_SCENARIO_MAX, 0, &text, NULL, err)) < 0 ||
	    (ret = scenario_parse(p->path, text, &p->s, err)) < 0)
		return ret;
	p->parsed = true;
	p->s.machine_bytes = machine_bytes;
	p->s.machine_what = machine_what;
	for (size_t i = 0; i < nr_sets; i++)
		if ((ret = scenario_override(&p->s, sets[i], err)) < 0)
			return ret;
	if (scenario_nr_variants(&p->s) > 26)
		return lab_error_set(err, E2BIG, "%s: %zu variants; at most 26 (A-Z)", p->path,
				     scenario_nr_variants(&p->s));
	p->repeat = repeat ? repeat : p->s.repeat;
	return 0;
}

size_t run_plan_variants(const struct run_plan *p)
{
	return p->parsed ? scenario_nr_variants(&p->s) : 0;
}

static void plan_free_specs(struct run_plan *p)
{
	for (size_t v = 0; v < p->nv; v++)
		run_spec_free(&p->specs[v]);
	free(p->specs);
	p->specs = NULL;
	p->nv = 0;
}

int run_plan_instantiate(struct run_plan *p, size_t n, unsigned long long memtotal, struct lab_error *err)
{
	size_t all = run_plan_variants(p);

	plan_free_specs(p);
	if (n == 0 || n > all)
		n = all;
	p->specs = calloc(n ? n : 1, sizeof(*p->specs));
	if (p->specs == NULL)
		return lab_error_errno(err, ENOMEM, "%s", p->path);
	for (size_t v = 0; v < n; v++) {
		int ret;

		p->nv = v + 1;  /* a failed instantiation is freed too */
		if ((ret = scenario_instantiate(&p->s, v, memtotal, &p->specs[v], err)) < 0)
			return ret;
	}
	return 0;
}

void run_plan_apply_opts(struct run_plan *p, const struct run_opts *o)
{
	for (size_t v = 0; v < p->nv; v++) {
		struct run_trace *t = &p->specs[v].trace;

		if (o->trace != NULL) {
			unsigned set;
			bool dflt;
			struct lab_error err;

			if (tracedef_parse_set(o->trace, &set, &dflt, &err) == 0)
				t->set = dflt ? run_spec_default_trace(&p->s, &p->specs[v]) : set;
		}
		t->raw |= o->trace_raw;
		if (o->burst_ms >= 0)
			t->burst_ms = (unsigned)o->burst_ms;
	}
}

void run_plan_free(struct run_plan *p)
{
	plan_free_specs(p);
	if (p->parsed)
		scenario_free(&p->s);
	p->parsed = false;
}
