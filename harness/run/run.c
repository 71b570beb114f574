/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run/run.c — the pipeline of one scenario run (run/run.h): plan → check →
 * knobs → sandbox → launch → sample → result.  `pagelab run` and `show`, the
 * guest's /init and a container all come through here; `pagelab vm` shares
 * the option parser and the plan. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/catalog.h"
#include "workloads/decl.h"
#include "cmd/cli.h"
#include "cmd/exitcode.h"
#include "base/fileio.h"
#include "host/host.h"
#include "host/kmsg.h"
#include "host/knobs.h"
#include "launch/launch.h"
#include "read/report/report.h"
#include "result/result.h"
#include "result/keys.h"
#include "sample/sampler.h"
#include "sandbox/sandbox.h"
#include "base/size.h"
#include "base/kv.h"
#include "sample/trace/trace.h"
#include "plan/tracedef.h"

#ifndef PAGELAB_VERSION
#define PAGELAB_VERSION "0"
#endif
#ifndef PAGELAB_COMMIT
#define PAGELAB_COMMIT "unknown"
#endif

/* The sampler's lines for the user (base/progress.h), as "pagelab: LINE". */
static void say_stderr(void *ctx, enum lab_say kind, const char *line)
{
	(void)ctx;
	(void)kind;
	fprintf(stderr, "pagelab: %s\n", line);
}

static const struct lab_progress run_progress = { .fn = say_stderr };

/* The kernel log names every OOM victim by pid: a workload it names was
 * OOM-killed even when the harness was stopping it already (a helper killed
 * after the main workload ended, run five's second victim), which the
 * sandbox's counter alone cannot tell. */
static void victims_from_kmsg(json_t *run)
{
	json_t *kills = json_object_get(json_object_get(run, "kmsg"), RK_OOM_KILLS);
	json_t *ex = json_object_get(run, RK_EXIT);
	json_t *ws = json_object_get(ex, RK_WORKLOADS), *victims = json_object_get(ex, RK_VICTIMS);
	size_t k, i, j;

	for (k = 0; k < json_array_size(kills); k++) {
		json_int_t pid = json_integer_value(json_object_get(json_array_get(kills, k), RK_PID));

		for (i = 0; i < json_array_size(ws); i++) {
			json_t *w = json_array_get(ws, i);
			const char *name = json_string_value(json_object_get(w, RK_NAME));
			bool listed = false;

			if (json_integer_value(json_object_get(w, RK_PID)) != pid || name == NULL)
				continue;
			json_object_set_new(w, RK_OOM_KILLED, json_true());
			json_object_set_new(w, RK_FATE, json_string("oom_killed"));
			for (j = 0; j < json_array_size(victims); j++)
				listed |= strcmp(json_string_value(json_array_get(victims, j)), name) == 0;
			if (!listed && json_is_array(victims))
				json_array_append_new(victims, json_string(name));
		}
	}
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

		for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
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

static unsigned host_reqs(unsigned scn_req)
{
	/* scenario.h and host.h name the same bits in the same order. */
	return scn_req;
}

static void variant_text(const struct run_spec *r, char *buf, size_t len)
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

/* ------------------------------------------------------------------------ */
/* knobs: the journal around the runs (harness/host/knobs.h)                       */

/* Restore what the journal holds and say so.  0 when every knob is back. */
static int journal_restore_say(struct knob_journal *j, const char *what)
{
	struct knob_restore_report rep;
	struct lab_error err;
	int ret;

	if (!knob_journal_pending(j))
		return 0;
	ret = knob_journal_restore(j, &rep, &err);
	if (rep.n > 0 || ret < 0) {
		fprintf(stderr, "pagelab: %s (journal of pid %d):\n", what, (int)rep.journal_pid);
		knob_report_print(&rep, stderr, "pagelab:   ");
	}
	if (ret < 0)
		fprintf(stderr, "pagelab: %s\n", err.msg);
	return ret;
}

/* Before a run touches the host: a journal left by a run that died is
 * restored first.  A run with [knobs] keeps the journal's lock to the end (one
 * knob-changing run at a time); one without only looks.  Returns an exit
 * status (0 = go on). */
static int journal_begin(bool need, struct knob_journal **out)
{
	struct lab_error err;
	struct stat st;
	bool stale = false;
	pid_t owner = 0;
	int ret;

	*out = NULL;
	if (!need && lstat(knob_journal_path(), &st) < 0)
		return LAB_EXIT_RAN;
	ret = knob_journal_open(knob_journal_path(), out, &stale, &owner, &err);
	if (ret == -EBUSY && !need)
		return LAB_EXIT_RAN;        /* a live run owns it; this one changes nothing */
	if (ret < 0) {
		fprintf(stderr, "pagelab: %s%s\n", err.msg,
			ret == -EBUSY ? ": knob-changing runs go one at a time" : "");
		return ret == -EBUSY ? LAB_EXIT_CANNOT : ret == -EPERM ? LAB_EXIT_USAGE : LAB_EXIT_HARNESS;
	}
	if (stale && journal_restore_say(*out, "found the knob journal of a run that did not finish: "
					 "restoring it first") < 0) {
		knob_journal_close(*out);
		*out = NULL;
		return LAB_EXIT_HARNESS;
	}
	if (!need) {
		knob_journal_close(*out);
		*out = NULL;
	}
	return LAB_EXIT_RAN;
}

/* Knobs on this host need root, and a reserve large enough to starve it is
 * for VM mode (or --allow-destructive): above 262144 kB, the most the kernel
 * itself ever picks (mm/page_alloc.c: calculate_min_free_kbytes's clamp). */
static int knobs_host_check(const struct run_opts *o, const struct host_facts *h, const struct run_spec *specs,
			    size_t nv, const char *name)
{
	for (size_t v = 0; v < nv; v++)
		for (size_t k = 0; k < specs[v].nr_knobs; k++) {
			const struct run_knob *rk = &specs[v].knobs[k];
			unsigned long long val = strtoull(rk->value, NULL, 10);

			if (!h->root) {
				fprintf(stderr, "pagelab: %s changes %s: that needs root\n", name, rk->name);
				return LAB_EXIT_CANNOT;
			}
			if (h->in_vm_guest || o->allow_destructive)
				continue;
			if ((!strcmp(rk->name, "vm.min_free_kbytes") && val > 262144) ||
			    (!strcmp(rk->name, "hugetlb_pages") && val * 2048 > h->memtotal_kb / 4) ||
			    (!strcmp(rk->name, "vm.nr_hugepages") && val * 2048 > h->memtotal_kb / 4)) {
				fprintf(stderr, "pagelab: %s (run %s): %s = %s could starve this machine: run it in VM mode, "
					"or on this host with --allow-destructive\n", name, specs[v].label, rk->name, rk->text);
				return LAB_EXIT_CANNOT;
			}
		}
	return LAB_EXIT_RAN;
}

/* Change one run's knobs through the journal, recording them in run.knobs. */
static int knobs_apply(struct knob_journal *j, const struct run_spec *r, json_t *run, struct lab_error *err)
{
	json_t *applied = json_array();
	unsigned long long mfk = 0;
	struct lab_error e2;
	int ret = 0;

	for (size_t i = 0; i < r->nr_knobs && ret == 0; i++) {
		const struct knob_def *d = knob_def_find(r->knobs[i].name);
		char before[256] = "", after[256] = "";

		if (d->path != NULL)
			knob_read(d, before, sizeof(before), &e2);
		ret = knob_set(j, d, r->knobs[i].value, err);
		if (ret < 0)
			break;
		if (d->path != NULL)
			knob_read(d, after, sizeof(after), &e2);
		fprintf(stderr, "pagelab: knob %s: %s -> %s\n", d->name, before[0] ? before : "-",
			after[0] ? after : r->knobs[i].value);
		json_array_append_new(applied, json_pack("{s:s, s:s, s:s, s:s}", "name", d->name, "set",
							 r->knobs[i].text, "before", before, "after", after));
	}
	/* What the kernel made of it: a THP change moves min_free_kbytes. */
	lab_read_u64("/proc/sys/vm/min_free_kbytes", &mfk, &e2);
	json_object_set_new(run, RK_KNOBS, json_pack("{s:o, s:I}", "applied", applied,
						    "min_free_kbytes_after", (json_int_t)mfk));
	return ret;
}

/* Put one run's knobs back; recorded in run.knobs.restored.  0 when all are back. */
static int knobs_restore_run(struct knob_journal *j, json_t *run, struct lab_error *err)
{
	struct knob_restore_report rep;
	json_t *a = json_array(), *k = json_object_get(run, RK_KNOBS);
	int ret = knob_journal_restore(j, &rep, err);

	knob_report_print(&rep, stderr, "pagelab: restored ");
	for (size_t i = 0; i < rep.n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "name", rep.items[i].name,
						   "original", rep.items[i].original, "found", rep.items[i].found,
						   "now", rep.items[i].now, "written", rep.items[i].written,
						   "ok", rep.items[i].ok));
	if (k != NULL) {
		json_object_set_new(k, "restored", a);
		json_object_set_new(k, "restored_ok", json_boolean(ret == 0));
	} else {
		json_decref(a);
	}
	return ret;
}

/* ------------------------------------------------------------------------ */
/* options                                                                    */

static int opts_error(enum run_opts_for what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int opts_error(enum run_opts_for what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagelab: %s", what == RUN_OPTS_VM ? "vm: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see pagelab --help)\n");
	return LAB_EXIT_USAGE;
}

int run_opts_parse(int argc, char **argv, enum run_opts_for what, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 't' },
		{ "allow-destructive", no_argument, NULL, 'D' },
		{ "sandbox", required_argument, NULL, 'B' },
		{ "no-report", no_argument, NULL, 'N' },
		{ "trace", required_argument, NULL, 'T' },
		{ "trace-raw", no_argument, NULL, 'R' },
		{ "burst", required_argument, NULL, 'U' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool vm = what == RUN_OPTS_VM;
	int c;

	memset(o, 0, sizeof(*o));
	o->interval_ms = 250;
	o->timeout_s = 600;
	o->burst_ms = -1;
	optind = 0;     /* a full re-initialisation: options may follow NAME (permuted) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, vm ? "o:r:s:i:t:v" : "o:r:s:i:t:vh", longopts, NULL)) != -1) {
		unsigned long long v;
		struct lab_error err;

		switch (c) {
		case 'o':
			if (vm)
				return opts_error(what, "run --out: one result per kernel; name the directory with "
						  "pagelab vm --out-dir DIR");
			o->out = optarg;
			break;
		case 'r':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 100)
				return opts_error(what, "--repeat: expected 1..100, got '%s'", optarg);
			o->repeat = (unsigned)v;
			break;
		case 's':
			if (o->nr_sets == RUN_MAX_SETS)
				return opts_error(what, "too many --set (%s)", optarg);
			o->sets[o->nr_sets++] = optarg;
			break;
		case 'i':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 10 || v > 10000)
				return opts_error(what, "--interval: expected 10..10000 ms, got '%s'", optarg);
			o->interval_ms = (unsigned)v;
			o->interval_set = true;
			break;
		case 't':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 86400)
				return opts_error(what, "%s--timeout: expected 1..86400 s, got '%s'", vm ? "run " : "",
						  optarg);
			o->timeout_s = (unsigned)v;
			o->timeout_set = true;
			break;
		case 'D':
			o->allow_destructive = true;
			break;
		case 'B':
			if (vm)
				return opts_error(what, "run: unknown option '%s'", argv[optind - 1]);
			if (strcmp(optarg, "self") != 0 && strcmp(optarg, "child") != 0)
				return opts_error(what, "--sandbox: expected child or self, got '%s'", optarg);
			o->sandbox_self = strcmp(optarg, "self") == 0;
			break;
		case 'N':
			o->no_report = true;
			break;
		case 'T': {
			unsigned set;
			bool dflt;

			if (tracedef_parse_set(optarg, &set, &dflt, &err) < 0)
				return opts_error(what, "--trace: %s", err.msg);
			o->trace = optarg;
			break;
		}
		case 'R':
			o->trace_raw = true;
			break;
		case 'U':
			if (lab_parse_uint(optarg, &v, &err) < 0 || (v != 0 && (v < 2 || v > 1000)))
				return opts_error(what, "--burst: expected 0 or 2..1000 ms, got '%s'", optarg);
			o->burst_ms = (int)v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			if (!vm) {
				fputs(cli_usage_text, stdout);
				exit(LAB_EXIT_RAN);
			}
			/* fall through */
		default:
			return opts_error(what, "run: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return opts_error(what, "%s", optind >= argc ? "run: which scenario? (pagelab list)"
							  : "run: one scenario at a time");
	o->name = argv[optind];
	return 0;
}

void run_opts_forward(const struct run_opts *o, struct run_opts_argv *f)
{
	f->argc = 0;
	if (o->repeat) {
		snprintf(f->buf[0], sizeof(f->buf[0]), "%u", o->repeat);
		f->argv[f->argc++] = "--repeat";
		f->argv[f->argc++] = f->buf[0];
	}
	for (size_t i = 0; i < o->nr_sets; i++) {
		f->argv[f->argc++] = "--set";
		f->argv[f->argc++] = o->sets[i];
	}
	if (o->interval_set) {
		snprintf(f->buf[1], sizeof(f->buf[1]), "%u", o->interval_ms);
		f->argv[f->argc++] = "--interval";
		f->argv[f->argc++] = f->buf[1];
	}
	if (o->timeout_set) {
		snprintf(f->buf[2], sizeof(f->buf[2]), "%u", o->timeout_s);
		f->argv[f->argc++] = "--timeout";
		f->argv[f->argc++] = f->buf[2];
	}
	if (o->trace != NULL) {
		f->argv[f->argc++] = "--trace";
		f->argv[f->argc++] = (char *)o->trace;
	}
	if (o->trace_raw)
		f->argv[f->argc++] = "--trace-raw";
	if (o->burst_ms >= 0) {
		snprintf(f->buf[3], sizeof(f->buf[3]), "%d", o->burst_ms);
		f->argv[f->argc++] = "--burst";
		f->argv[f->argc++] = f->buf[3];
	}
	if (o->allow_destructive)
		f->argv[f->argc++] = "--allow-destructive";
	if (o->verbose)
		f->argv[f->argc++] = "-v";
	f->argv[f->argc] = NULL;
}

/* ------------------------------------------------------------------------ */
/* plan                                                                       */

unsigned long long run_memtotal_bytes(void)
{
	return host_meminfo_bytes("MemTotal");
}

unsigned long long run_machine_bytes(void)
{
	return host_meminfo_bytes("MemTotal") + host_meminfo_bytes("SwapTotal");
}

int run_plan_load(const char *name, char *const *sets, size_t nr_sets, unsigned repeat,
		  unsigned long long machine_bytes, const char *machine_what, struct run_plan *p)
{
	struct lab_error err;
	cleanup_free char *text = NULL;

	memset(p, 0, sizeof(*p));
	if (catalog_find(name, p->path, sizeof(p->path), &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		return LAB_EXIT_USAGE;
	}
	if (lab_read_input(p->path, "scenario", LAB_SCENARIO_MAX, 0, &text, NULL, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		return LAB_EXIT_USAGE;
	}
	if (scenario_parse(p->path, text, &p->s, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		return LAB_EXIT_USAGE;
	}
	p->parsed = true;
	p->s.machine_bytes = machine_bytes;
	p->s.machine_what = machine_what;
	for (size_t i = 0; i < nr_sets; i++)
		if (scenario_override(&p->s, sets[i], &err) < 0) {
			fprintf(stderr, "pagelab: %s\n", err.msg);
			return LAB_EXIT_USAGE;
		}
	if (scenario_nr_variants(&p->s) > 26) {
		fprintf(stderr, "pagelab: %s: %zu variants; at most 26 (A-Z)\n", p->path,
			scenario_nr_variants(&p->s));
		return LAB_EXIT_USAGE;
	}
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

int run_plan_instantiate(struct run_plan *p, size_t n, unsigned long long memtotal, const char *hint)
{
	struct lab_error err;
	size_t all = run_plan_variants(p);

	plan_free_specs(p);
	if (n == 0 || n > all)
		n = all;
	p->specs = calloc(n ? n : 1, sizeof(*p->specs));
	if (p->specs == NULL) {
		fprintf(stderr, "pagelab: out of memory\n");
		return LAB_EXIT_HARNESS;
	}
	for (size_t v = 0; v < n; v++) {
		p->nv = v + 1;  /* a failed instantiation is freed too */
		if (scenario_instantiate(&p->s, v, memtotal, &p->specs[v], &err) < 0) {
			fprintf(stderr, "pagelab: %s%s\n", err.msg, hint ? hint : "");
			return LAB_EXIT_USAGE;
		}
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
				t->set = dflt ? tracedef_default_set(p->s.name) : set;
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

/* The advice of every advise:/populate: step of a variant's workloads,
 * probed once each.  0, -EOPNOTSUPP naming the step and the advice. */
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

/* ------------------------------------------------------------------------ */
/* check -> knobs -> sandbox -> launch -> sample -> result                    */

int run_execute(const struct run_opts *o, struct run_plan *p)
{
	struct scenario *sp = &p->s;
	struct run_spec *specs = p->specs;
	size_t nv = p->nv;
	unsigned repeat = p->repeat, missing;
	struct host_facts host;
	struct lab_error err;
	struct result *res = NULL;
	char bindir[PATH_MAX], why[1024];
	int ret, status = LAB_EXIT_RAN, sigfd = -1, run_index = 0;
	bool interrupted = false, need_knobs = false;
	struct knob_journal *journal = NULL;
	const char *doc_status = "ok";
	char doc_error[LAB_ERROR_MSG_MAX] = "";
	sigset_t mask;
	bool want_trace = false, trace_ok = false, trace_mounted = false;
	char trace_why[LAB_ERROR_MSG_MAX] = "";

	for (size_t v = 0; v < nv; v++)
		want_trace |= specs[v].trace.set != TRACE_SET_NONE;
	/* Where the result goes, before anything on the host changes. */
	if (result_check(o->out, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	/* Can this host run it? */
	if (host_probe(&host, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = LAB_EXIT_HARNESS;
		goto done;
	}
	missing = host_missing(&host, host_reqs(sp->requires), why, sizeof(why));
	if (missing) {
		fprintf(stderr, "pagelab: %s cannot run on this host:\n%s", sp->name, why);
		status = LAB_EXIT_CANNOT;
		goto done;
	}
	if (sp->destructive && !o->allow_destructive && !host.in_vm_guest) {
		fprintf(stderr,
			"pagelab: %s is destructive (it can cause a global OOM or starve this machine): "
			"run it in VM mode, or on this host with --allow-destructive\n", sp->name);
		status = LAB_EXIT_CANNOT;
		goto done;
	}
	for (size_t v = 0; v < nv; v++)
		need_knobs |= specs[v].nr_knobs > 0;
	if ((status = knobs_host_check(o, &host, specs, nv, sp->name)) != LAB_EXIT_RAN)
		goto done;
	/* Every setting a variant states must be one this host's memory
	 * controller can apply (sandbox/settings.c), before anything is created. */
	for (size_t v = 0; v < nv; v++) {
		struct sandbox_spec ss = { .values = specs[v].sandbox };

		if (sandbox_check_settings(&host.cg, &ss, &err) < 0) {
			fprintf(stderr, "pagelab: %s (run %s) cannot run on this host: %s\n", sp->name,
				specs[v].label, err.msg);
			status = LAB_EXIT_CANNOT;
			goto done;
		}
	}
	/* Every madvise(2) advice a step gives must be one this kernel takes:
	 * tried on a scratch mapping of pagelab's own (workloads/decl.c). */
	for (size_t v = 0; v < nv; v++)
		if (steps_advice_check(&specs[v], &err) < 0) {
			fprintf(stderr, "pagelab: %s (run %s) cannot run on this host: %s\n", sp->name,
				specs[v].label, err.msg);
			status = err.code == EOPNOTSUPP ? LAB_EXIT_CANNOT : LAB_EXIT_HARNESS;
			goto done;
		}
	/* --sandbox self: every variant's limit must be the one this cgroup
	 * already has, checked before anything is touched. */
	for (size_t v = 0; o->sandbox_self && v < nv; v++) {
		struct sandbox_spec ss = { .values = specs[v].sandbox };

		if (sandbox_self_check(&host.cg, &ss, &err) < 0) {
			fprintf(stderr, "pagelab: %s (run %s): %s\n", sp->name, specs[v].label, err.msg);
			status = err.code == ERANGE || err.code == ENODEV ? LAB_EXIT_CANNOT : LAB_EXIT_HARNESS;
			goto done;
		}
	}
	if (launch_bindir(bindir, sizeof(bindir), &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = LAB_EXIT_HARNESS;
		goto done;
	}
	for (size_t v = 0; v < nv; v++)
		for (size_t w = 0; w < specs[v].nr_workloads; w++) {
			char prog[PATH_MAX * 2];

			snprintf(prog, sizeof(prog), "%s/%s", bindir, specs[v].workloads[w].program);
			if (access(prog, X_OK) < 0) {
				fprintf(stderr, "pagelab: workload program %s is missing (build it: cmake --build build)\n",
					prog);
				status = LAB_EXIT_HARNESS;
				goto done;
			}
		}

	/* From here on the host is touched: signals go through the loop. */
	/* A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal never reaches a signalfd: take the default back first. */
	knob_stop_signals(&mask);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&mask, s) == 1)
			signal(s, SIG_DFL);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		fprintf(stderr, "pagelab: signalfd: %s\n", strerror(errno));
		status = LAB_EXIT_HARNESS;
		goto done;
	}
	/* A journal left by a killed run is restored before anything else. */
	if ((status = journal_begin(need_knobs, &journal)) != LAB_EXIT_RAN)
		goto done;
	{
		/* The harness is protected: an OOM kill picks a workload (1000). */
		int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (write(fd, "-1000", 5) < 0) {
				/* not fatal: the workloads are still at 1000 */
			}
			close(fd);
		}
	}
	{
		int removed = 0;

		if (sandbox_sweep(&host.cg, &removed, &err) < 0)
			fprintf(stderr, "pagelab: warning: sweeping stale sandboxes: %s\n", err.msg);
		else if (removed > 0)
			fprintf(stderr, "pagelab: removed %d stale sandbox(es) of dead pagelab runs\n", removed);
	}
	/* Tracepoints: a private instance per run; those of dead runs go first. */
	if (want_trace) {
		int removed = 0;

		trace_ok = trace_available(&trace_mounted, &err) == 0;
		if (!trace_ok) {
			snprintf(trace_why, sizeof(trace_why), "%s", err.msg);
			if (o->trace != NULL) {
				fprintf(stderr, "pagelab: --trace %s: %s\n", o->trace, err.msg);
				status = LAB_EXIT_CANNOT;
				goto done;
			}
			fprintf(stderr, "pagelab: warning: running without tracepoints: %s\n", err.msg);
		} else if (trace_sweep(&removed, &err) < 0) {
			fprintf(stderr, "pagelab: warning: sweeping stale tracing instances: %s\n", err.msg);
		} else if (removed > 0) {
			fprintf(stderr, "pagelab: removed %d stale tracing instance(s) of dead pagelab runs\n",
				removed);
		}
	}
	if (result_open(o->out, sp->name, &res, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = LAB_EXIT_HARNESS;
		goto done;
	}
	{
		json_t *doc = result_doc(res);
		char stamp[32];

		result_utc_stamp(stamp, sizeof(stamp), 0);
		json_object_set_new(doc, RK_HARNESS, json_pack("{s:s, s:s}", "version", PAGELAB_VERSION,
							      "commit", PAGELAB_COMMIT));
		json_object_set_new(doc, RK_STARTED, json_string(stamp));
		json_object_set_new(doc, RK_HOST, host_to_json(&host));
		json_object_set_new(doc, RK_SCENARIO, scenario_json(sp, repeat));
		json_object_set_new(doc, RK_INTERVAL_MS, json_integer(o->interval_ms));
		json_object_set_new(doc, RK_TRACING, json_pack("{s:b, s:b, s:s?}", "available", trace_ok,
							      "tracefs_mounted_by_run", trace_mounted,
							      "unavailable", trace_why[0] ? trace_why : NULL));
		json_object_set_new(doc, RK_RUNS, json_array());
		result_stream(res, "header", -1, doc);
	}
	fprintf(stderr, "pagelab: %s: %zu variant(s) x %u repeat(s), sampling every %u ms; streaming to %s\n",
		sp->name, nv, repeat, o->interval_ms, result_stream_path(res));

	for (unsigned rep = 1; rep <= repeat && !interrupted; rep++) {
		for (size_t v = 0; v < nv && !interrupted; v++) {
			struct sandbox_spec ss = { .values = specs[v].sandbox };
			unsigned long long baseline = 0;
			struct trace_config tc = { .set = trace_ok ? specs[v].trace.set : TRACE_SET_NONE,
						   .raw = specs[v].trace.raw, .bin_ms = specs[v].trace.bin_ms,
						   .buffer_kb = specs[v].trace.buffer_kb };
			struct sampler_opts so = { .interval_ms = o->interval_ms, .timeout_s = o->timeout_s,
						   .bindir = bindir, .sigfd = sigfd, .verbose = o->verbose,
						   .trace = tc.set != TRACE_SET_NONE ? &tc : NULL,
						   .burst_ms = specs[v].trace.burst_ms,
						   .burst_margin_pct = specs[v].trace.burst_margin_pct,
						   .burst_always = specs[v].trace.burst_always,
						   .burst_raw = specs[v].trace.raw,
						   .progress = &run_progress,
						   .status = isatty(STDERR_FILENO) && !o->verbose &&
								     getenv("PAGELAB_NO_PROGRESS") == NULL ? stderr : NULL };
			struct sandbox *sb = NULL;
			json_t *run = run_json(&specs[v], rep);
			char vt[256], lim[32];
			int signo = 0, kfd = -1;

			json_array_append(json_object_get(result_doc(res), RK_RUNS), run);
			variant_text(&specs[v], vt, sizeof(vt));
			if ((o->sandbox_self ? sandbox_adopt_self(&host.cg, &ss, &sb, &baseline, &err)
					    : sandbox_create(&host.cg, &ss, &sb, &err)) < 0) {
				fprintf(stderr, "pagelab: %s\n", err.msg);
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "%s", err.msg);
				status = LAB_EXIT_HARNESS;
				json_decref(run);
				goto finish;
			}
			json_object_set_new(run, RK_SANDBOX, sandbox_json(sb, &ss.values, o->sandbox_self));
			/* self: the limit found is the sandbox, and what it already held
			 * (pagelab, the container's shell) is part of the baseline. */
			json_object_set_new(json_object_get(run, "sandbox"), RK_MODE,
					    json_string(o->sandbox_self ? "self" : "child"));
			if (o->sandbox_self)
				json_object_set_new(json_object_get(run, "sandbox"), RK_BASELINE_BYTES,
						    json_integer((json_int_t)baseline));
			fprintf(stderr, "pagelab: run %d: %s.%u%s%s: sandbox %s (%s, swap %llu)\n", run_index + 1,
				specs[v].label, rep, vt[0] ? " " : "", vt, sandbox_path(sb),
				lab_format_size(ss.values.val[SB_MEMORY_MAX], lim, sizeof(lim)), ss.values.val[SB_SWAP_MAX]);
			/* The kernel log from here on: the knobs' own lines (min_free_kbytes),
			 * OOM reports, allocation failures (runs[].kmsg). */
			kfd = kmsg_open(true);
			/* This run's knobs, through the journal, right before its workloads. */
			if (specs[v].nr_knobs > 0 && knobs_apply(journal, &specs[v], run, &err) < 0) {
				struct lab_error e2;

				fprintf(stderr, "pagelab: %s\n", err.msg);
				knobs_restore_run(journal, run, &e2);
				sandbox_destroy(sb, &e2);
				if (kfd >= 0)
					close(kfd);
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "%s", err.msg);
				status = LAB_EXIT_HARNESS;
				json_decref(run);
				goto finish;
			}
			result_stream(res, "run-start", run_index, run);
			ret = sampler_run(&specs[v], sb, &so, res, run_index, run, &signo, &err);
			{
				struct kmsg_log klog = { 0 };

				kmsg_drain(kfd, &klog, kmsg_interesting, KMSG_KEEP_MAX);
				json_object_set_new(run, RK_KMSG, kmsg_log_json(&klog));
				victims_from_kmsg(run);
				kmsg_log_free(&klog);
				if (kfd >= 0)
					close(kfd);
				kfd = -1;
			}
			{
				struct lab_error e2;

				if (sandbox_destroy(sb, &e2) < 0) {
					fprintf(stderr, "pagelab: removing the sandbox: %s\n", e2.msg);
					status = LAB_EXIT_HARNESS;
					doc_status = "error";
					snprintf(doc_error, sizeof(doc_error), "%s", e2.msg);
				}
			}
			/* ...and put back after them (processes, then cgroup, then knobs). */
			if (specs[v].nr_knobs > 0) {
				struct lab_error e2;

				if (knobs_restore_run(journal, run, &e2) < 0) {
					fprintf(stderr, "pagelab: %s\n", e2.msg);
					if (ret >= 0) {
						err = e2;
						ret = -EIO;
					}
				}
			}
			{
				json_t *ex = json_object_get(run, RK_EXIT);
				const char *oc = json_string_value(json_object_get(ex, RK_OUTCOME));
				json_t *sm = json_object_get(run, RK_SUMMARY);

				fprintf(stderr, "pagelab: run %d: %s after %.1f s (%d samples)\n", run_index + 1,
					oc ? oc : "?",
					json_number_value(json_object_get(sm, RK_DURATION_MS)) / 1000.0,
					(int)json_integer_value(json_object_get(sm, RK_SAMPLES)));
			}
			/* A workload that failed on its own is not data: exit 1 (an OOM kill is). */
			if (ret >= 0 && sampler_run_failed(run, why, sizeof(why))) {
				fprintf(stderr, "pagelab: run %d: %s\n", run_index + 1, why);
				status = LAB_EXIT_HARNESS;
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "run %d: %.900s", run_index + 1, why);
			}
			result_stream(res, "run-end", run_index, json_object_get(run, RK_EXIT));
			result_stream_sync(res);
			json_decref(run);
			run_index++;
			if (ret < 0) {
				fprintf(stderr, "pagelab: %s\n", err.msg);
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "%s", err.msg);
				status = LAB_EXIT_HARNESS;
				goto finish;
			}
			if (ret == 1) {
				interrupted = true;
				doc_status = "interrupted";
				snprintf(doc_error, sizeof(doc_error), "stopped by %s", strsignal(signo));
				status = LAB_EXIT_INTERRUPTED;
			}
		}
	}
finish:
	if (result_finish(res, doc_status, doc_error[0] ? doc_error : NULL, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = LAB_EXIT_HARNESS;
	} else {
		fprintf(stderr, "pagelab: result written: %s\n", result_path(res));
		if (!o->no_report && status == LAB_EXIT_RAN) {
			char *rargv[] = { "report", (char *)result_path(res), NULL };

			fflush(stderr);
			report_main(2, rargv);
			fflush(stdout);
		}
		printf("%s\n", result_path(res));
	}
	result_close(res);
done:
	/* Every exit path: nothing journaled stays changed (normally each run
	 * restored its own already). */
	if (journal != NULL) {
		if (journal_restore_say(journal, "restoring the knobs this run changed") < 0)
			status = LAB_EXIT_HARNESS;
		knob_journal_close(journal);
	}
	if (sigfd >= 0)
		close(sigfd);
	if (trace_mounted)
		trace_unmount();
	return status;
}

/* ------------------------------------------------------------------------ */
/* run / show                                                                 */

int run_main(int argc, char **argv)
{
	struct run_opts o;
	struct run_plan p;
	int status;

	if ((status = run_opts_parse(argc, argv, RUN_OPTS_RUN, &o)) != 0)
		return status;
	/* Every variant is validated before anything on the host is touched. */
	status = run_plan_load(o.name, o.sets, o.nr_sets, o.repeat, run_machine_bytes(), RUN_MACHINE_WHAT, &p);
	if (status == 0)
		status = run_plan_instantiate(&p, 0, run_memtotal_bytes(), NULL);
	if (status == 0) {
		run_plan_apply_opts(&p, &o);
		status = run_execute(&o, &p);
	}
	run_plan_free(&p);
	return status;
}

int run_show_main(int argc, char **argv)
{
	struct run_plan p;
	int status;

	if (argc != 2) {
		fprintf(stderr, "pagelab: show: which scenario? (see pagelab --help)\n");
		return LAB_EXIT_USAGE;
	}
	status = run_plan_load(argv[1], NULL, 0, 0, run_machine_bytes(), RUN_MACHINE_WHAT, &p);
	if (status == 0)
		status = run_plan_instantiate(&p, 0, run_memtotal_bytes(), NULL);
	if (status != 0) {
		run_plan_free(&p);
		return status;
	}
	printf("%s — %s\nsource: %s\nrepeat %u, %zu variant(s):\n", p.s.name, p.s.title ? p.s.title : "",
	       p.s.source ? p.s.source : "-", p.repeat, p.nv);
	for (size_t v = 0; v < p.nv; v++) {
		const struct run_spec *r = &p.specs[v];
		char vt[256];

		variant_text(r, vt, sizeof(vt));
		printf("  %s %s  sandbox %llu bytes", r->label, vt, r->sandbox.val[SB_MEMORY_MAX]);
		for (size_t i = 0; i < SB_NR_SETTINGS; i++)
			if (i != SB_MEMORY_MAX && (r->sandbox.given & (1u << i)))
				printf(", %s %llu", sandbox_settings[i].key, r->sandbox.val[i]);
		printf("\n");
		for (size_t w = 0; w < r->nr_workloads; w++) {
			printf("    %s:", r->workloads[w].name);
			for (int a = 0; a < r->workloads[w].argc; a++)
				printf(" %s", r->workloads[w].argv[a]);
			printf("\n");
		}
		for (size_t k = 0; k < r->nr_knobs; k++)
			printf("    knob %s = %s (writes %s)\n", r->knobs[k].name, r->knobs[k].text, r->knobs[k].value);
		{
			char ts[160];

			tracedef_set_text(r->trace.set, ts, sizeof(ts));
			printf("    trace %s%s, bursts %u ms\n", ts, r->trace.raw ? " (raw)" : "", r->trace.burst_ms);
		}
	}
	run_plan_free(&p);
	return LAB_EXIT_RAN;
}
