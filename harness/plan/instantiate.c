/* SPDX-License-Identifier: GPL-2.0-or-later */
/* instantiate.c — one variant of a parsed scenario into struct run_spec:
 * its matrix values chosen, every value substituted and typed (typecheck.c)
 * against the stages' own tables — sandbox/settings.c, workloads/decl/,
 * host/knobdef.c, plan/tracedef.c — and the workloads' argv built
 * (scn.h, harness/plan/scenario.md). */
#include "scn.h"
#include "tracedef.h"
#include "vmkernel.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/size.h"
#include "host/knobdef.h"
#include "sandbox/settings.h"

/* [sample]'s keys, typed: each an unsigned of struct run_spec (scenario.md). */
static const struct sample_key {
	const char *key;
	size_t offset;                  /* into struct run_spec */
	unsigned def;
	bool zero;                      /* 0 is allowed besides lo..hi */
	unsigned long long lo, hi;
	const char *expect;
} sample_tab[] = {
	/* The step sources' own cadence (sources/source.h). */
	{ "walk_interval_ms", offsetof(struct run_spec, walk_interval_ms), SCN_WALK_INTERVAL_MS, true, 10, 3600000,
	  "0 (only at steps) or 10..3600000" },
	/* How long the stream may hold tick lines before writing them (result.h). */
	{ "flush_ms", offsetof(struct run_spec, flush_ms), SCN_FLUSH_MS, true, 0, 60000,
	  "0 (every line at once) to 60000" },
};

static void arg_push(struct run_workload *w, const char *a)
{
	if (w->argc < SCN_MAX_ARGS - 1)
		w->argv[w->argc++] = scn_strdup(a);
	w->argv[w->argc] = NULL;
}

/* The region workload's steps: workloads/decl/region.c, the table region's
 * own argument parser reads too. */
static const struct wl_step *step_find(const char *name)
{
	return wl_step_find(wl_decl_find("region"), name);
}

/* The page size of this machine (4096 where sysconf cannot say). */
static unsigned long long page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (unsigned long long)ps : 4096;
}

static int region_steps(struct scn_inst *in, const struct scn_item *it, struct run_workload *w,
			unsigned long long region)
{
	struct scn_expanded x;
	struct scn_tokens t;
	int ret = 0;

	if (scn_tokenize(it->value, it->value_pos.col, &t) < 0)
		return scn_inst_err(in, it->value_pos, NULL, "steps: too many steps (at most %d)", SCN_MAX_ARGS - 8);
	if (t.n == 0)
		ret = scn_inst_err(in, it->value_pos, NULL, "steps: no steps");
	for (size_t i = 0; ret == 0 && i < t.n; i++) {
		struct scn_pos pos = { it->value_pos.line, t.col[i] };
		char *parts[WL_MAX_STEP_ARGS + 2] = { 0 };     /* one more: too many is an error */
		unsigned long long advised = 0;
		size_t np = 0;
		const struct wl_step *sc;
		char norm[160];
		size_t off;

		ret = scn_expand(in, t.tok[i], pos, &x);
		if (ret < 0)
			break;
		for (char *save = NULL, *q = strtok_r(x.text, ":", &save); q && np < WL_MAX_STEP_ARGS + 2;
		     q = strtok_r(NULL, ":", &save))
			parts[np++] = q;
		sc = np ? step_find(parts[0]) : NULL;
		if (sc == NULL) {
			char known[256];

			wl_decl_step_names(wl_decl_find("region"), known, sizeof(known));
			ret = scn_inst_err(in, pos, &x, "steps: unknown step '%s' (known: %s)", np ? parts[0] : t.tok[i],
				       known);
			break;
		}
		if ((int)np - 1 < sc->nargs || (int)np - 1 > sc->nargs + sc->nopt) {
			if (sc->nopt)
				ret = scn_inst_err(in, pos, &x, "steps: '%s' takes %d to %d arguments separated by ':', got %d",
					       sc->name, sc->nargs, sc->nargs + sc->nopt, (int)np - 1);
			else
				ret = scn_inst_err(in, pos, &x, "steps: '%s' takes %d argument%s separated by ':', got %d",
					       sc->name, sc->nargs, sc->nargs == 1 ? "" : "s", (int)np - 1);
			break;
		}
		off = (size_t)snprintf(norm, sizeof(norm), "%s", sc->name);
		for (int a = 0; ret == 0 && a < (int)np - 1; a++) {
			unsigned long long v;
			char field[64];
			enum scn_kind k = sc->args[a] == WT_ADVICE ? K_ENUM : (enum scn_kind)sc->args[a];
			const char *enums = sc->args[a] == WT_ADVICE ? wl_advice_names(sc->name) : sc->enums;

			snprintf(field, sizeof(field), "steps: %s", sc->name);
			ret = scn_typed(in, field, parts[a + 1], k, enums, pos, &x, &v);
			if (ret < 0)
				break;
			if (k == K_BYTE)
				off += (size_t)snprintf(norm + off, sizeof(norm) - off, ":0x%02llx", v);
			else if (k == K_ENUM)
				off += (size_t)snprintf(norm + off, sizeof(norm) - off, ":%s", parts[a + 1]);
			else
				off += (size_t)snprintf(norm + off, sizeof(norm) - off, ":%llu", v);
			/* Pages of the machine the plan runs on: 16 KiB on arm64's 16K
			 * kernel (a guest plans again with its own). */
			if (!strcmp(sc->name, "write") && a == 0 && region && v * page_size() > region)
				ret = scn_inst_err(in, pos, &x, "steps: write: %llu pages do not fit in the region (%llu pages)",
					       v, region / page_size());
			if (k == K_POSITIVE_SIZE && !strcmp(sc->name, "advise") && region && v > region)
				ret = scn_inst_err(in, pos, &x, "steps: advise: %llu bytes are more than the region (%llu)", v,
					       region);
			if (!strcmp(sc->name, "advise") && a == 1)
				advised = v;
			if (!strcmp(sc->name, "advise") && a == 2 && region && (v >= region || advised > region - v))
				ret = scn_inst_err(in, pos, &x, "steps: advise: %llu bytes from %llu run past the region's "
						   "end (%llu)", advised, v, region);
		}
		if (ret == 0)
			arg_push(w, norm);
	}
	scn_tokens_free(&t);
	return ret;
}

static int workload_start(struct scn_inst *in, const struct scn_item *it, size_t self, struct run_workload *w)
{
	struct scn_tokens t;
	int ret = 0;

	w->start_after = -1;
	if (it == NULL)
		return 0;
	if (scn_tokenize(it->value, it->value_pos.col, &t) < 0 || t.n != 3 || strcmp(t.tok[0], "after") != 0) {
		scn_tokens_free(&t);
		return scn_inst_err(in, it->value_pos, NULL, "start: expected 'after WORKLOAD STEP'");
	}
	for (size_t i = 0; i < self; i++)
		if (!strcmp(in->s->workloads[i].name, t.tok[1]))
			w->start_after = (int)i;
	if (w->start_after < 0)
		ret = scn_inst_err(in, (struct scn_pos){ it->value_pos.line, t.col[1] }, NULL,
			       "start: no workload '%s' declared before this one", t.tok[1]);
	else
		snprintf(w->start_step, sizeof(w->start_step), "%s", t.tok[2]);
	scn_tokens_free(&t);
	return ret;
}

/* The keys of [workload NAME] are its program's (workloads/decl/). */
static int workload_keys(struct scn_inst *in, const struct scn_section *sec, const struct wl_decl *pg,
			 const char *what)
{
	for (size_t i = 0; i < sec->n; i++) {
		const struct scn_item *it = &sec->items[i];
		bool known = !strcmp(it->key, "program") || !strcmp(it->key, "start");

		known |= wl_opt_find(pg, it->key) != NULL;
		if (!known) {
			char list[256] = "program, start";
			size_t off = strlen(list);

			for (const struct wl_opt *k = pg->opts; k->key; k++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, ", %s", k->key);
			return scn_inst_err(in, it->key_pos, NULL, "unknown key '%s' in %s (program %s takes: %s)",
					    it->key, what, pg->program, list);
		}
	}
	return 0;
}

/* Keys of which a program takes exactly one: hold's size or leave,
 * stepper's step or pace (after the options, as their errors come first). */
static int workload_one_of(struct scn_inst *in, const struct scn_section *sec, const struct wl_decl *pg,
			   const char *what, const char *prog, const char *a, const char *b, const char *msg)
{
	if (strcmp(pg->program, prog) == 0 && (scn_section_get(sec, a) == NULL) == (scn_section_get(sec, b) == NULL))
		return scn_inst_err(in, sec->pos, NULL, "%s needs %s", what, msg);
	return 0;
}

/* stepper's pace: "64M/50" = 64 MiB every 50 ms, so one matrix dimension
 * can carry the article's two rates (runs A-D). */
static int workload_pace(struct scn_inst *in, const struct scn_item *it, const char *what, struct run_workload *w)
{
	struct scn_expanded x;
	unsigned long long v, ms;
	char num[32], *slash;
	int ret = scn_expand(in, it->value, it->value_pos, &x);

	if (ret < 0)
		return ret;
	slash = strchr(x.text, '/');
	if (slash == NULL)
		return scn_inst_err(in, it->value_pos, &x, "%s pace: expected SIZE/MS (64M/50), got '%s'", what, x.text);
	*slash = '\0';
	ret = scn_typed(in, "pace", x.text, K_MEM, NULL, it->value_pos, &x, &v);
	if (ret == 0)
		ret = scn_typed(in, "pace", slash + 1, K_UINT, NULL, it->value_pos, &x, &ms);
	if (ret < 0)
		return ret;
	snprintf(num, sizeof(num), "%llu", v);
	arg_push(w, "--step");
	arg_push(w, num);
	snprintf(num, sizeof(num), "%llu", ms);
	arg_push(w, "--interval");
	arg_push(w, num);
	return 0;
}

/* One typed option k = v of a workload, as its command line takes it. */
static void workload_arg(const struct wl_opt *k, unsigned long long v, const char *text, struct run_workload *w)
{
	char num[32], opt[48];
	size_t o;

	if (!strcmp(k->key, "size")) {
		w->region_bytes = v;
	} else if (!strcmp(k->key, "fill")) {
		snprintf(num, sizeof(num), "0x%02llx", v);
		arg_push(w, "--fill");
		arg_push(w, num);
		return;
	}
	/* "--key-name VALUE" (sizes in bytes; an enum as the word written:
	 * thp, allocator, goalloc's madvdontneed 0|1|default), booleans as a
	 * flag: release = no is "--no-release", shared = yes "--shared". */
	o = (size_t)snprintf(opt, sizeof(opt), "--%s", k->key);
	for (size_t c = 2; c < o; c++)
		if (opt[c] == '_')
			opt[c] = '-';
	if (k->type == WT_BOOL) {
		if (!strcmp(k->key, "release")) {
			if (!v)
				arg_push(w, "--no-release");
		} else if (v) {
			arg_push(w, opt);
		}
		return;
	}
	if (k->type == WT_ENUM) {
		arg_push(w, opt);
		arg_push(w, text);
		return;
	}
	snprintf(num, sizeof(num), "%llu", v);
	arg_push(w, opt);
	arg_push(w, num);
}

static int workload_inst(struct scn_inst *in, size_t idx, struct run_workload *w)
{
	const struct scn_section *sec = &in->s->workloads[idx];
	const struct scn_item *prog = scn_section_get(sec, "program");
	const struct wl_decl *pg;
	char what[64], programs[128];
	int ret;

	snprintf(w->name, sizeof(w->name), "%s", sec->name);
	snprintf(what, sizeof(what), "[workload %s]", sec->name);
	if (scn_section_get(sec, "command") != NULL) {
		/* Any program, as given (command.c). */
		if ((ret = scn_command_workload(in, idx, w)) < 0)
			return ret;
		return workload_start(in, scn_section_get(sec, "start"), idx, w);
	}
	wl_decl_programs(programs, sizeof(programs));
	if (prog == NULL)
		return scn_inst_err(in, sec->pos, NULL, "%s needs program = one of %s, or command = PROGRAM ARGS…", what,
				    programs);
	pg = wl_decl_find(prog->value);
	if (pg == NULL)
		return scn_inst_err(in, prog->value_pos, NULL, "%s program: unknown program '%s' (known: %s)",
				    what, prog->value, programs);
	snprintf(w->program, sizeof(w->program), "%s", pg->program);
	arg_push(w, pg->program);
	if ((ret = workload_keys(in, sec, pg, what)) < 0 ||
	    (ret = workload_start(in, scn_section_get(sec, "start"), idx, w)) < 0 ||
	    (ret = workload_one_of(in, sec, pg, what, "hold", "size", "leave", "size or leave (one of them)")) < 0)
		return ret;
	for (const struct wl_opt *k = pg->opts; k->key; k++) {
		const struct scn_item *it = scn_section_get(sec, k->key);
		struct scn_expanded x;
		unsigned long long v;

		if (it == NULL) {
			if (k->required)
				return scn_inst_err(in, sec->pos, NULL, "%s needs %s", what, k->key);
			continue;
		}
		if (!strcmp(k->key, "steps")) {
			ret = region_steps(in, it, w, w->region_bytes);
		} else if (!strcmp(k->key, "pace")) {
			ret = workload_pace(in, it, what, w);
		} else if (!strcmp(k->key, "malloc_conf")) {
			/* Free text ("dirty_decay_ms:0,muzzy_decay_ms:10000"): jemalloc
			 * checks it and says what it did not understand. */
			ret = scn_expand(in, it->value, it->value_pos, &x);
			if (ret == 0) {
				arg_push(w, "--malloc-conf");
				arg_push(w, x.text);
			}
		} else if ((ret = scn_typed_item(in, what, it, (enum scn_kind)k->type, k->enums, &v, &x)) == 0) {
			workload_arg(k, v, x.text, w);
		}
		if (ret < 0)
			return ret;
	}
	return workload_one_of(in, sec, pg, what, "stepper", "step", "pace", "either step (with interval) or pace = SIZE/MS");
}

static int action_inst(struct scn_inst *in, size_t idx, struct run_spec *r)
{
	const struct scn_section *sec = &in->s->actions[idx];
	struct run_action *a = &r->actions[idx];
	const struct scn_item *at = scn_section_get(sec, "at");
	const struct scn_item *rc = scn_section_get(sec, "reclaim");
	const struct scn_item *lv = scn_section_get(sec, "leave");
	struct scn_expanded x;
	struct scn_tokens t;
	int ret = 0;

	snprintf(a->name, sizeof(a->name), "%s", sec->name);
	for (size_t i = 0; i < sec->n; i++)
		if (strcmp(sec->items[i].key, "at") && strcmp(sec->items[i].key, "reclaim") &&
		    strcmp(sec->items[i].key, "leave"))
			return scn_inst_err(in, sec->items[i].key_pos, NULL,
					"unknown key '%s' in [action %s] (known: at, reclaim, leave)", sec->items[i].key,
					sec->name);
	if (at == NULL || (rc == NULL) == (lv == NULL))
		return scn_inst_err(in, sec->pos, NULL, "[action %s] needs at = WORKLOAD STEP and one of reclaim = SIZE "
				"(memory.reclaim) or leave = SIZE (a ballast outside the sandbox)", sec->name);
	/* A ballast outside the sandbox can starve the machine (sample/outside.h). */
	if (lv != NULL && !in->s->destructive)
		return scn_inst_err(in, lv->key_pos, NULL, "[action %s] leave: a ballast outside the sandbox can starve "
				"the machine: the scenario must say destructive = yes (it then runs in a pagelab guest, "
				"or with --allow-destructive)", sec->name);
	if (scn_tokenize(at->value, at->value_pos.col, &t) < 0 || t.n != 2) {
		scn_tokens_free(&t);
		return scn_inst_err(in, at->value_pos, NULL, "at: expected 'WORKLOAD STEP'");
	}
	a->workload = -1;
	for (size_t i = 0; i < r->nr_workloads; i++)
		if (!strcmp(r->workloads[i].name, t.tok[0]))
			a->workload = (int)i;
	if (a->workload < 0)
		ret = scn_inst_err(in, at->value_pos, NULL, "at: no workload '%s'", t.tok[0]);
	else if (step_find(t.tok[1]) == NULL)
		ret = scn_inst_err(in, (struct scn_pos){ at->value_pos.line, t.col[1] }, NULL, "at: unknown step '%s'",
			       t.tok[1]);
	else
		snprintf(a->step, sizeof(a->step), "%s", t.tok[1]);
	scn_tokens_free(&t);
	if (ret < 0)
		return ret;
	if (lv != NULL)
		return scn_typed_item(in, "", lv, K_POSITIVE_SIZE, NULL, &a->leave_bytes, &x);
	return scn_typed_item(in, "", rc, K_POSITIVE_SIZE, NULL, &a->reclaim_bytes, &x);
}

/* One [knobs] entry: a knob a scenario may change (harness/host/knobdef.c), its
 * value typed and range-checked against the kernel's own limits. */
static int knob_inst(struct scn_inst *in, const struct scn_item *it, struct run_knob *k)
{
	const struct knob_def *d = knob_def_find(it->key);
	struct scn_expanded x;
	struct lab_error e2;
	int ret;

	if (d == NULL || !d->scenario) {
		char list[512];
		size_t off = 0;

		list[0] = '\0';
		for (const struct knob_def *t = knob_def_table(); t->name && off < sizeof(list); t++)
			if (t->scenario)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "",
							t->name);
		if (d != NULL)
			return scn_inst_err(in, it->key_pos, NULL, "[knobs] %s: not a knob a scenario may change (%s)",
					it->key, d->type == KT_TRIGGER ? "a trigger, not a setting" : "advice only");
		if (knob_def_removed(it->key) != NULL)
			return scn_inst_err(in, it->key_pos, NULL, "[knobs] %s: %s", it->key, knob_def_removed(it->key));
		return scn_inst_err(in, it->key_pos, NULL, "[knobs] unknown knob '%s' (known: %s)", it->key, list);
	}
	ret = scn_expand(in, it->value, it->value_pos, &x);
	if (ret < 0)
		return ret;
	if (strcmp(x.text, "keep") == 0)
		return 1;       /* left as the machine has it: not journaled, not written */
	if (knob_def_value(d, x.text, k->value, sizeof(k->value), &e2) < 0)
		return scn_inst_err(in, it->value_pos, &x, "[knobs] %s", e2.msg);
	snprintf(k->name, sizeof(k->name), "%s", d->name);
	snprintf(k->text, sizeof(k->text), "%.95s", x.text);
	return 0;
}

unsigned run_spec_default_trace(const struct scenario *s, const struct run_spec *r)
{
	unsigned set = tracedef_default_set(s->name);

	/* A command forks as it likes (a postmaster its backends, a shell its
	 * pipeline): who forked whom is what names an OOM victim's tree when
	 * no sample saw it or the run is in a pid namespace of its own
	 * (run/victims.c).  The built-in workloads say what they fork. */
	for (size_t i = 0; i < r->nr_workloads; i++)
		if (r->workloads[i].command)
			return set | tracedef_group("forks");
	return set;
}

/* [trace]: which tracepoints (trace/tracedef.h), raw or per interval, and
 * the adaptive bursts.  Absent keys take the defaults in scenario.md. */
static int trace_inst(struct scn_inst *in, struct run_spec *r)
{
	const struct scn_section *sec = &in->s->trace;
	const struct scn_item *it;
	struct scn_expanded x;
	unsigned long long v;
	int ret;

	r->trace = (struct run_trace){ .set = run_spec_default_trace(in->s, r), .raw = false,
				       .burst_ms = 10, .burst_margin_pct = 50, .bin_ms = 1000, .buffer_kb = 4096 };
	if ((it = scn_section_get(sec, "events")) != NULL) {
		struct lab_error e;
		bool dflt;
		unsigned set;

		if ((ret = scn_expand(in, it->value, it->value_pos, &x)) < 0)
			return ret;
		if (tracedef_parse_set(x.text, &set, &dflt, &e) < 0)
			return scn_inst_err(in, it->value_pos, &x, "[trace] events: %s", e.msg);
		if (!dflt)
			r->trace.set = set;
	}
	if ((it = scn_section_get(sec, "raw")) != NULL) {
		if ((ret = scn_typed_item(in, "[trace]", it, K_BOOL, NULL, &v, &x)) < 0)
			return ret;
		r->trace.raw = v != 0;
	}
	if ((it = scn_section_get(sec, "burst")) != NULL) {
		if ((ret = scn_typed_item(in, "[trace]", it, K_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v != 0 && (v < 2 || v > 1000))
			return scn_inst_err(in, it->value_pos, &x, "[trace] burst: 0 (none) or 2..1000 ms, got %llu", v);
		r->trace.burst_ms = (unsigned)v;
	}
	if ((it = scn_section_get(sec, "burst_margin")) != NULL) {
		if ((ret = scn_typed_item(in, "[trace]", it, K_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v > 1000)
			return scn_inst_err(in, it->value_pos, &x, "[trace] burst_margin: 0..1000 (%% of the low-high gap), got %llu", v);
		r->trace.burst_margin_pct = (unsigned)v;
	}
	if ((it = scn_section_get(sec, "burst_always")) != NULL) {
		if ((ret = scn_typed_item(in, "[trace]", it, K_BOOL, NULL, &v, &x)) < 0)
			return ret;
		r->trace.burst_always = v != 0;
	}
	if ((it = scn_section_get(sec, "buffer_kb")) != NULL) {
		if ((ret = scn_typed_item(in, "[trace]", it, K_POSITIVE_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v < 4 || v > 1048576)
			return scn_inst_err(in, it->value_pos, &x, "[trace] buffer_kb: 4..1048576 (per CPU), got %llu", v);
		r->trace.buffer_kb = (unsigned)v;
	}
	if ((it = scn_section_get(sec, "bin")) != NULL) {
		if ((ret = scn_typed_item(in, "[trace]", it, K_POSITIVE_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v < 10 || v > 600000)
			return scn_inst_err(in, it->value_pos, &x, "[trace] bin: 10..600000 ms, got %llu", v);
		r->trace.bin_ms = (unsigned)v;
	}
	return 0;
}

/* Variant v: its matrix values (the first dimension slowest) and label. */
static void variant_select(struct scn_inst *in, size_t v, struct run_spec *r)
{
	const struct scenario *s = in->s;
	size_t rem = v;

	r->label[0] = (char)('A' + v);
	for (size_t i = s->nr_dims; i-- > 0;) {
		size_t k = rem % s->dims[i].n;

		rem /= s->dims[i].n;
		in->var_key[i] = s->dims[i].name;
		in->var_val[i] = s->dims[i].values[k];
		in->var_dim[i] = &s->dims[i];
	}
	in->nr_var = s->nr_dims;
	r->nr_variant = s->nr_dims;
	for (size_t i = 0; i < s->nr_dims; i++) {
		r->variant_keys[i] = s->dims[i].name;
		r->variant_values[i] = (char *)in->var_val[i];
	}
}

/* Parameters, resolved (a parameter's value may use another's), then the
 * matrix dimensions that are not parameters too. */
static int params_inst(struct scn_inst *in, struct run_spec *r)
{
	const struct scenario *s = in->s;
	struct scn_expanded x;

	for (size_t i = 0; i < s->nr_params; i++) {
		char origin[256];
		const char *val0 = scn_lookup(in, s->params[i].name, origin, sizeof(origin));
		int ret = scn_expand(in, val0, s->params[i].pos, &x);

		if (ret < 0)
			return ret;
		r->param_names[r->nr_params] = s->params[i].name;
		r->param_values[r->nr_params++] = scn_strdup(x.text);
	}
	for (size_t i = 0; i < s->nr_dims; i++) {
		bool dup = false;

		for (size_t j = 0; j < s->nr_params; j++)
			dup |= !strcmp(s->params[j].name, s->dims[i].name);
		if (!dup && r->nr_params < SCN_MAX_PARAMS) {
			r->param_names[r->nr_params] = s->dims[i].name;
			r->param_values[r->nr_params++] = scn_strdup(in->var_val[i]);
		}
	}
	return 0;
}

/* [sandbox]: every row of sandbox/settings.c's table, stated or defaulted;
 * memtotal_bytes (0: not checked) bounds the rows that say so. */
static int sandbox_inst(struct scn_inst *in, unsigned long long memtotal_bytes, struct run_spec *r)
{
	const struct scenario *s = in->s;

	memset(&r->sandbox, 0, sizeof(r->sandbox));
	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		enum scn_kind k = d->type == SB_TYPE_BOOL ? K_BOOL : d->type == SB_TYPE_UINT ? K_UINT
			: d->min > 0 ? K_POSITIVE_SIZE : K_SIZE;
		const struct scn_item *it = scn_section_get(&s->sandbox, d->key);
		struct scn_expanded x;
		char field[64];
		int ret;

		if (it == NULL) {
			if (d->dflt != NULL) {
				struct lab_error e2;

				if (sandbox_setting_parse(d, d->dflt, &r->sandbox.val[d->id], &e2) < 0)
					return scn_inst_err(in, (struct scn_pos){ 0, 0 }, NULL, "[sandbox] %s: default: %s",
							    d->key, e2.msg);
				r->sandbox.apply |= 1u << d->id;
			}
			continue;
		}
		ret = scn_typed_item(in, "[sandbox]", it, k, NULL, &r->sandbox.val[d->id], &x);
		if (ret < 0)
			return ret;
		snprintf(field, sizeof(field), "[sandbox] %s", d->key);
		if (r->sandbox.val[d->id] < d->min || r->sandbox.val[d->id] > d->max)
			return scn_inst_err(in, it->value_pos, &x, "%s: expected %llu..%llu, got '%s'", field, d->min,
					    d->max, x.text);
		if ((d->flags & SB_F_LE_MEMTOTAL) && memtotal_bytes && r->sandbox.val[d->id] > memtotal_bytes) {
			char a[32], b[32];

			return scn_inst_err(in, it->value_pos, &x, "%s: %s is more than this machine's MemTotal (%s)",
					    field, lab_format_size(r->sandbox.val[d->id], a, sizeof(a)),
					    lab_format_size(memtotal_bytes, b, sizeof(b)));
		}
		r->sandbox.given |= 1u << d->id;
		r->sandbox.apply |= 1u << d->id;
	}
	return 0;
}

/* [vm]: typed here so a bad value fails before anything runs (vm.c reads
 * the values). */
static int vm_inst(struct scn_inst *in)
{
	const struct scenario *s = in->s;

	for (size_t i = 0; i < s->vm.n; i++) {
		const struct scn_item *vi = &s->vm.items[i];
		enum scn_kind k = !strcmp(vi->key, "mem") || !strcmp(vi->key, "swap") || !strcmp(vi->key, "disk")
				      ? K_POSITIVE_SIZE
			: !strcmp(vi->key, "cpus") ? K_POSITIVE_UINT : K_ENUM;
		const char *enums = !strcmp(vi->key, "thp") ? "always|madvise|never" : vm_series_names();
		struct scn_expanded x;
		unsigned long long val;
		int ret;

		/* carry: paths of this host, checked by VM mode (harness/vm/scenario.c) */
		if (!strcmp(vi->key, "carry"))
			continue;
		ret = scn_typed_item(in, "[vm]", vi, k, enums, &val, &x);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* [sample]: the cadences of the sampler's own work (sample_tab). */
static int sample_inst(struct scn_inst *in, struct run_spec *r)
{
	for (size_t k = 0; k < sizeof(sample_tab) / sizeof(sample_tab[0]); k++) {
		const struct sample_key *sk = &sample_tab[k];
		unsigned *dst = (unsigned *)((char *)r + sk->offset);
		const struct scn_item *it = scn_section_get(&in->s->sample, sk->key);
		struct scn_expanded x;
		unsigned long long val;
		int ret;

		*dst = sk->def;
		if (it == NULL)
			continue;
		ret = scn_typed_item(in, "[sample]", it, K_UINT, NULL, &val, &x);
		if (ret < 0)
			return ret;
		if ((val != 0 || !sk->zero) && (val < sk->lo || val > sk->hi))
			return scn_inst_err(in, it->value_pos, &x, "[sample] %s: expected %s, got %llu", sk->key,
					    sk->expect, val);
		*dst = (unsigned)val;
	}
	/* refresh = fold: stat_refresh before each burst sample (the sampler,
	 * harness/sample/sampler.c: refresh_fold); none, the default, reads the
	 * counters as the kernel has folded them. */
	{
		const struct scn_item *it = scn_section_get(&in->s->sample, "refresh");
		struct scn_expanded x;
		unsigned long long val;
		int ret;

		r->refresh_fold = false;
		if (it != NULL) {
			if ((ret = scn_typed_item(in, "[sample]", it, K_ENUM, "none|fold", &val, &x)) < 0)
				return ret;
			r->refresh_fold = strcmp(x.text, "fold") == 0;
		}
	}
	return 0;
}

int scenario_instantiate(const struct scenario *s, size_t v, unsigned long long memtotal_bytes,
			 struct run_spec *r, struct lab_error *err)
{
	struct scn_inst in = { .s = s, .err = err };
	int ret;

	memset(r, 0, sizeof(*r));
	if (v >= scenario_nr_variants(s) || v >= 26)
		return lab_error_set(err, EINVAL, "%s: variant %zu out of range", s->file, v);
	variant_select(&in, v, r);
	if ((ret = params_inst(&in, r)) < 0 || (ret = sandbox_inst(&in, memtotal_bytes, r)) < 0 ||
	    (ret = vm_inst(&in)) < 0 || (ret = sample_inst(&in, r)) < 0)
		return ret;
	r->nr_workloads = s->nr_workloads;
	for (size_t i = 0; i < s->nr_workloads; i++)
		if ((ret = workload_inst(&in, i, &r->workloads[i])) < 0)
			return ret;
	r->nr_actions = s->nr_actions;
	for (size_t i = 0; i < s->nr_actions; i++)
		if ((ret = action_inst(&in, i, r)) < 0)
			return ret;
	r->nr_loads = s->nr_loads;
	for (size_t i = 0; i < s->nr_loads; i++)
		if ((ret = scn_load_inst(&in, i, r)) < 0)
			return ret;
	if ((ret = scn_foreign_check(&in, r)) < 0 || (ret = trace_inst(&in, r)) < 0)
		return ret;
	r->nr_knobs = 0;
	for (size_t i = 0; i < s->knobs.n; i++) {
		ret = knob_inst(&in, &s->knobs.items[i], &r->knobs[r->nr_knobs]);
		if (ret < 0)
			return ret;
		if (ret == 0)
			r->nr_knobs++;
	}
	return 0;
}

void run_spec_variant_text(const struct run_spec *r, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->nr_variant && off < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s=%s", i ? " " : "", r->variant_keys[i],
				 r->variant_values[i]);

		if (n > 0)
			off += (size_t)n;
	}
}

void run_spec_free(struct run_spec *r)
{
	for (size_t i = 0; i < r->nr_params; i++)
		free(r->param_values[i]);
	for (size_t i = 0; i < r->nr_workloads; i++) {
		for (int a = 0; a < r->workloads[i].argc; a++)
			free(r->workloads[i].argv[a]);
		scn_exec_free(&r->workloads[i].exec);
	}
	for (size_t i = 0; i < r->nr_loads; i++) {
		for (int a = 0; a < r->loads[i].argc; a++)
			free(r->loads[i].argv[a]);
		scn_exec_free(&r->loads[i].exec);
	}
	memset(r, 0, sizeof(*r));
}