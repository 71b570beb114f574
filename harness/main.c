/* main.c — the pagelab command line (documented in harness/cli.md).
 *
 * Exit status: 0 the scenario ran (whatever the workload's fate: that is
 * data), 1 the harness failed, 2 bad usage or input (nothing was changed on
 * the host), 3 this host cannot run it (the message says which requirement
 * is missing), 130 interrupted by a signal (the result is still written). */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "audit.h"
#include "catalog.h"
#include "compare.h"
#include "fileio.h"
#include "host.h"
#include "kmsg.h"
#include "knobs.h"
#include "launch.h"
#include "plot.h"
#include "report.h"
#include "result.h"
#include "sampler.h"
#include "sandbox.h"
#include "scenario.h"
#include "size.h"
#include "trace/trace.h"
#include "trace/tracedef.h"
#include "vm.h"

enum { EXIT_RAN = 0, EXIT_HARNESS = 1, EXIT_USAGE = 2, EXIT_CANNOT = 3, EXIT_INTERRUPTED = 130 };

static const char usage_text[] =
	"usage: pagelab COMMAND [ARGS]\n"
	"\n"
	"  run NAME|FILE [options]   run a scenario and write its result document\n"
	"  list                      the scenarios pagelab knows, with their titles\n"
	"  show NAME|FILE            a scenario's parameters, matrix and runs, checked but not run\n"
	"  report RESULT.json...     tables from data: an article beside this host, or the generic report\n"
	"                            (--html DIR: one page with the plots; --plots DIR)\n"
	"  plot RESULT.json...       each run's timeline drawn by gnuplot (SVG/PNG)\n"
	"  compare BASE.json... -- NEW.json... | --by KEY RESULT.json...\n"
	"                            which differences are real (Welch t-test + LKP rule;\n"
	"                            Fisher's exact test for outcome counts)\n"
	"  check [--json]            what this host can and cannot run, and why\n"
	"  audit [--json] [--wsf N] [--watch S] [--with KNOB=V] [--advice FILE]\n"
	"                            this host's watermark arithmetic explained (reads only;\n"
	"                            --with sets a knob through the journal for the audit);\n"
	"                            --advice lints a sysctl.conf-style file against this kernel\n"
	"  restore                   put back every knob a killed run left changed (knob journal)\n"
	"  vm [vm options] run NAME|FILE [run options]\n"
	"                            the scenario in QEMU guests (Debian 6.1/6.12, cgroup v2):\n"
	"                            --kernel 6.1|6.12|PATH (repeatable), --host, --mem SIZE,\n"
	"                            --cpus N, --thp MODE, --swap SIZE, --disk SIZE (ext2 on\n"
	"                            the guest's /var/tmp), --cmdline TEXT, --timeout S,\n"
	"                            --out-dir DIR (docs/vm.md)\n"
	"                            --arch arm64: an arm64 guest (Debian's arm64 kernel);\n"
	"                            --numa N: N NUMA nodes sharing --mem evenly\n"
	"  version                   harness version and commit\n"
	"\n"
	"run options:\n"
	"  --out FILE           result document path (default results/NAME-STAMP.json)\n"
	"  --repeat N           repeat every variant N times (default: the scenario's)\n"
	"  --set KEY=VALUE      override a parameter (or pin a matrix dimension); repeatable\n"
	"  --interval MS        sampling tick, 10..10000 ms (default 250)\n"
	"  --timeout S          stop a run that lasts longer (default 600)\n"
	"  --allow-destructive  run a scenario that can cause a global OOM on THIS host\n"
	"  --sandbox child|self child (default): a new cgroup below pagelab's own; self:\n"
	"                       pagelab's own cgroup is the sandbox (a container started with\n"
	"                       --memory M --memory-swap M); its limit must be the scenario's\n"
	"  --trace SET          tracepoints: default (the lab's), all, none, or groups of\n"
	"                       kswapd direct memcg compaction oom markers (default:\n"
	"                       the scenario's [trace] events, else the lab's)\n"
	"  --trace-raw          keep high-rate events (reclaim stalls, compaction) one by\n"
	"                       one, not only as per-interval counts and histograms\n"
	"  --burst MS           sample every MS (2..1000, 0 = never; default 10) while a zone\n"
	"                       is near its low line, kswapd is awake or a stall is open\n"
	"  --no-report          do not print the summary table\n"
	"  -v, --verbose        one stderr line per workload step\n"
	"\n"
	"exit status: 0 ran (the workload's fate is data), 1 harness failure,\n"
	"2 bad usage or input (nothing changed), 3 this host cannot run it,\n"
	"130 interrupted (the result is still written).\n"
	"Scenarios are looked up in $PAGELAB_SCENARIOS, ./scenarios, then the source tree.\n"
	"A scenario's [knobs] are journaled in $PAGELAB_JOURNAL (default /var/lib/pagelab/journal)\n"
	"before each change and put back after each run; `pagelab restore` after a crash.\n";

/* The kernel log names every OOM victim by pid: a workload it names was
 * OOM-killed even when the harness was stopping it already (a helper killed
 * after the main workload ended, run five's second victim), which the
 * sandbox's counter alone cannot tell. */
static void victims_from_kmsg(json_t *run)
{
	json_t *kills = json_object_get(json_object_get(run, "kmsg"), "oom_kills");
	json_t *ex = json_object_get(run, "exit");
	json_t *ws = json_object_get(ex, "workloads"), *victims = json_object_get(ex, "victims");
	size_t k, i, j;

	for (k = 0; k < json_array_size(kills); k++) {
		json_int_t pid = json_integer_value(json_object_get(json_array_get(kills, k), "pid"));

		for (i = 0; i < json_array_size(ws); i++) {
			json_t *w = json_array_get(ws, i);
			const char *name = json_string_value(json_object_get(w, "name"));
			bool listed = false;

			if (json_integer_value(json_object_get(w, "pid")) != pid || name == NULL)
				continue;
			json_object_set_new(w, "oom_killed", json_true());
			json_object_set_new(w, "fate", json_string("oom_killed"));
			for (j = 0; j < json_array_size(victims); j++)
				listed |= strcmp(json_string_value(json_array_get(victims, j)), name) == 0;
			if (!listed && json_is_array(victims))
				json_array_append_new(victims, json_string(name));
		}
	}
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagelab: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see pagelab --help)\n");
	return EXIT_USAGE;
}

/* ------------------------------------------------------------------------ */
/* finding scenarios                                                          */

/* Resolve NAME|FILE and read it.  Returns 0, or EXIT_USAGE after printing. */
static int load_scenario(const char *arg, struct scenario *s, char *path, size_t plen)
{
	struct lab_error err;
	cleanup_free char *text = NULL;
	int ret;

	if (catalog_find(arg, path, plen, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		return EXIT_USAGE;
	}
	ret = lab_read_input(path, "scenario", LAB_SCENARIO_MAX, 0, &text, NULL, &err);
	if (ret < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		return EXIT_USAGE;
	}
	if (scenario_parse(path, text, s, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		scenario_free(s);
		return EXIT_USAGE;
	}
	return 0;
}

static unsigned long long memtotal_bytes(void)
{
	cleanup_free char *buf = NULL;
	struct kv_list l = { 0 };
	struct lab_error err;
	unsigned long long kb = 0;

	if (lab_read_file("/proc/meminfo", &buf, NULL, &err) == 0 && kv_parse_colon(buf, &l, &err) == 0)
		kv_get(&l, "MemTotal", &kb);
	kv_free(&l);
	return kb * 1024;
}

/* ------------------------------------------------------------------------ */
/* list / show                                                                */

static int cmd_list(void)
{
	char dir[PATH_MAX];
	DIR *top;
	struct dirent *g;
	struct lab_error derr;

	if (catalog_dir(dir, sizeof(dir), &derr) < 0 || (top = opendir(dir)) == NULL) {
		fprintf(stderr, "pagelab: no scenarios directory (%s)\n", dir);
		return EXIT_HARNESS;
	}
	while ((g = readdir(top)) != NULL) {
		char sub[PATH_MAX * 2];
		struct dirent **names;
		int n;

		if (g->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, g->d_name);
		n = scandir(sub, &names, NULL, alphasort);
		for (int i = 0; i < n; i++) {
			size_t l = strlen(names[i]->d_name);

			if (l > 4 && !strcmp(names[i]->d_name + l - 4, ".scn")) {
				char path[PATH_MAX * 3];
				cleanup_free char *text = NULL;
				struct scenario s;
				struct lab_error err;

				snprintf(path, sizeof(path), "%s/%s", sub, names[i]->d_name);
				if (lab_read_input(path, "scenario", LAB_SCENARIO_MAX, 0, &text, NULL, &err) == 0 &&
				    scenario_parse(path, text, &s, &err) == 0) {
					printf("%-28s %s%s\n", s.name, s.destructive ? "[destructive] " : "",
					       s.title ? s.title : "");
					scenario_free(&s);
				} else {
					printf("%-28s (broken: %s)\n", names[i]->d_name, err.msg);
				}
			}
			free(names[i]);
		}
		if (n >= 0)
			free(names);
	}
	closedir(top);
	return EXIT_RAN;
}

/* ------------------------------------------------------------------------ */
/* run                                                                        */

struct run_opts {
	const char *out;
	unsigned repeat;        /* 0 = the scenario's */
	unsigned interval_ms;
	unsigned timeout_s;
	bool allow_destructive, verbose, no_report, dry;
	bool sandbox_self;      /* --sandbox self: pagelab's own cgroup is the sandbox */
	const char *trace;      /* --trace SET, NULL = the scenario's */
	bool trace_raw;
	int burst_ms;           /* --burst MS, -1 = the scenario's */
	size_t nr_sets;
	char *sets[64];
};

static int parse_run_opts(int argc, char **argv, struct run_opts *o, const char **name)
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
	int c;

	memset(o, 0, sizeof(*o));
	o->interval_ms = 250;
	o->timeout_s = 600;
	o->burst_ms = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:r:s:i:t:vh", longopts, NULL)) != -1) {
		unsigned long long v;
		struct lab_error err;

		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'r':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 100)
				return usage_error("--repeat: expected 1..100, got '%s'", optarg);
			o->repeat = (unsigned)v;
			break;
		case 's':
			if (o->nr_sets == 64)
				return usage_error("too many --set (%s)", optarg);
			o->sets[o->nr_sets++] = optarg;
			break;
		case 'i':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 10 || v > 10000)
				return usage_error("--interval: expected 10..10000 ms, got '%s'", optarg);
			o->interval_ms = (unsigned)v;
			break;
		case 't':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 86400)
				return usage_error("--timeout: expected 1..86400 s, got '%s'", optarg);
			o->timeout_s = (unsigned)v;
			break;
		case 'D':
			o->allow_destructive = true;
			break;
		case 'B':
			if (strcmp(optarg, "self") != 0 && strcmp(optarg, "child") != 0)
				return usage_error("--sandbox: expected child or self, got '%s'", optarg);
			o->sandbox_self = strcmp(optarg, "self") == 0;
			break;
		case 'N':
			o->no_report = true;
			break;
		case 'T': {
			unsigned set;
			bool dflt;

			if (tracedef_parse_set(optarg, &set, &dflt, &err) < 0)
				return usage_error("--trace: %s", err.msg);
			o->trace = optarg;
			break;
		}
		case 'R':
			o->trace_raw = true;
			break;
		case 'U':
			if (lab_parse_uint(optarg, &v, &err) < 0 || (v != 0 && (v < 2 || v > 1000)))
				return usage_error("--burst: expected 0 or 2..1000 ms, got '%s'", optarg);
			o->burst_ms = (int)v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_RAN);
		default:
			return usage_error("run: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error("%s", optind >= argc ? "run: which scenario? (pagelab list)"
							 : "run: one scenario at a time");
	*name = argv[optind];
	return 0;
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
	json_object_set_new(o, "name", json_string(s->name));
	json_object_set_new(o, "file", json_string(s->file));
	json_object_set_new(o, "title", s->title ? json_string(s->title) : json_null());
	json_object_set_new(o, "source", s->source ? json_string(s->source) : json_null());
	json_object_set_new(o, "expect", s->expect ? json_string(s->expect) : json_null());
	json_object_set_new(o, "report", rep);
	json_object_set_new(o, "requires", req);
	json_object_set_new(o, "destructive", json_boolean(s->destructive));
	json_object_set_new(o, "params", p);
	json_object_set_new(o, "overrides", ov);
	json_object_set_new(o, "matrix", m);
	json_object_set_new(o, "repeat", json_integer(repeat));
	return o;
}

static json_t *run_json(const struct run_spec *r, unsigned rep)
{
	json_t *o = json_object(), *v = json_object(), *p = json_object();

	for (size_t i = 0; i < r->nr_variant; i++)
		json_object_set_new(v, r->variant_keys[i], json_string(r->variant_values[i]));
	for (size_t i = 0; i < r->nr_params; i++)
		json_object_set_new(p, r->param_names[i], json_string(r->param_values[i]));
	json_object_set_new(o, "label", json_string(r->label));
	json_object_set_new(o, "repeat", json_integer(rep));
	json_object_set_new(o, "variant", v);
	json_object_set_new(o, "params", p);
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
/* knobs: the journal around the runs (harness/knobs.h)                       */

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
		return EXIT_RAN;
	ret = knob_journal_open(knob_journal_path(), out, &stale, &owner, &err);
	if (ret == -EBUSY && !need)
		return EXIT_RAN;        /* a live run owns it; this one changes nothing */
	if (ret < 0) {
		fprintf(stderr, "pagelab: %s%s\n", err.msg,
			ret == -EBUSY ? ": knob-changing runs go one at a time" : "");
		return ret == -EBUSY ? EXIT_CANNOT : ret == -EPERM ? EXIT_USAGE : EXIT_HARNESS;
	}
	if (stale && journal_restore_say(*out, "found the knob journal of a run that did not finish: "
					 "restoring it first") < 0) {
		knob_journal_close(*out);
		*out = NULL;
		return EXIT_HARNESS;
	}
	if (!need) {
		knob_journal_close(*out);
		*out = NULL;
	}
	return EXIT_RAN;
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
				return EXIT_CANNOT;
			}
			if (h->in_vm_guest || o->allow_destructive)
				continue;
			if ((!strcmp(rk->name, "vm.min_free_kbytes") && val > 262144) ||
			    (!strcmp(rk->name, "hugetlb_pages") && val * 2048 > h->memtotal_kb / 4) ||
			    (!strcmp(rk->name, "vm.nr_hugepages") && val * 2048 > h->memtotal_kb / 4)) {
				fprintf(stderr, "pagelab: %s (run %s): %s = %s could starve this machine: run it in VM mode, "
					"or on this host with --allow-destructive\n", name, specs[v].label, rk->name, rk->text);
				return EXIT_CANNOT;
			}
		}
	return EXIT_RAN;
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
	json_object_set_new(run, "knobs", json_pack("{s:o, s:I}", "applied", applied,
						    "min_free_kbytes_after", (json_int_t)mfk));
	return ret;
}

/* Put one run's knobs back; recorded in run.knobs.restored.  0 when all are back. */
static int knobs_restore_run(struct knob_journal *j, json_t *run, struct lab_error *err)
{
	struct knob_restore_report rep;
	json_t *a = json_array(), *k = json_object_get(run, "knobs");
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

static int cmd_run(int argc, char **argv, bool show_only)
{
	struct run_opts o;
	struct scenario s;
	struct run_spec *specs = NULL;
	struct host_facts host;
	struct lab_error err;
	struct result *res = NULL;
	const char *name = NULL;
	char path[PATH_MAX], bindir[PATH_MAX], why[1024];
	size_t nv;
	unsigned repeat, missing;
	int ret, status = EXIT_RAN, sigfd = -1, run_index = 0;
	bool interrupted = false, need_knobs = false;
	struct knob_journal *journal = NULL;
	const char *doc_status = "ok";
	char doc_error[LAB_ERROR_MSG_MAX] = "";
	sigset_t mask;
	bool want_trace = false, trace_ok = false, trace_mounted = false;
	char trace_why[LAB_ERROR_MSG_MAX] = "";

	if (show_only) {
		memset(&o, 0, sizeof(o));
		o.burst_ms = -1;
		if (argc != 2)
			return usage_error("%s", "show: which scenario?");
		name = argv[1];
	} else if ((ret = parse_run_opts(argc, argv, &o, &name)) != 0) {
		return ret;
	}
	if ((ret = load_scenario(name, &s, path, sizeof(path))) != 0)
		return ret;
	s.machine_bytes = host_meminfo_bytes("MemTotal") + host_meminfo_bytes("SwapTotal");
	s.machine_what = "this machine's MemTotal + SwapTotal";
	for (size_t i = 0; i < o.nr_sets; i++)
		if (scenario_override(&s, o.sets[i], &err) < 0) {
			fprintf(stderr, "pagelab: %s\n", err.msg);
			scenario_free(&s);
			return EXIT_USAGE;
		}
	/* Validate every variant before anything on the host is touched. */
	nv = scenario_nr_variants(&s);
	if (nv > 26) {
		fprintf(stderr, "pagelab: %s: %zu variants; at most 26 (A-Z)\n", path, nv);
		scenario_free(&s);
		return EXIT_USAGE;
	}
	specs = calloc(nv, sizeof(*specs));
	for (size_t v = 0; v < nv; v++)
		if (scenario_instantiate(&s, v, memtotal_bytes(), &specs[v], &err) < 0) {
			fprintf(stderr, "pagelab: %s\n", err.msg);
			for (size_t k = 0; k <= v; k++)
				run_spec_free(&specs[k]);
			free(specs);
			scenario_free(&s);
			return EXIT_USAGE;
		}
	repeat = o.repeat ? o.repeat : s.repeat;
	/* --trace / --trace-raw / --burst over the scenario's [trace]. */
	for (size_t v = 0; v < nv; v++) {
		struct run_trace *t = &specs[v].trace;

		if (o.trace != NULL) {
			unsigned set;
			bool dflt;

			if (tracedef_parse_set(o.trace, &set, &dflt, &err) == 0)
				t->set = dflt ? tracedef_default_set(s.name) : set;
		}
		t->raw |= o.trace_raw;
		if (o.burst_ms >= 0)
			t->burst_ms = (unsigned)o.burst_ms;
		want_trace |= t->set != TRACE_SET_NONE;
	}
	if (show_only) {
		printf("%s — %s\nsource: %s\nrepeat %u, %zu variant(s):\n", s.name, s.title ? s.title : "",
		       s.source ? s.source : "-", repeat, nv);
		for (size_t v = 0; v < nv; v++) {
			char vt[256];

			variant_text(&specs[v], vt, sizeof(vt));
			printf("  %s %s  sandbox %llu bytes\n", specs[v].label, vt, specs[v].memory_max);
			for (size_t w = 0; w < specs[v].nr_workloads; w++) {
				printf("    %s:", specs[v].workloads[w].name);
				for (int a = 0; a < specs[v].workloads[w].argc; a++)
					printf(" %s", specs[v].workloads[w].argv[a]);
				printf("\n");
			}
			for (size_t k = 0; k < specs[v].nr_knobs; k++)
				printf("    knob %s = %s (writes %s)\n", specs[v].knobs[k].name, specs[v].knobs[k].text,
				       specs[v].knobs[k].value);
			{
				char ts[160];

				tracedef_set_text(specs[v].trace.set, ts, sizeof(ts));
				printf("    trace %s%s, bursts %u ms\n", ts, specs[v].trace.raw ? " (raw)" : "",
				       specs[v].trace.burst_ms);
			}
		}
		goto done;
	}

	/* Where the result goes, before anything on the host changes. */
	if (result_check(o.out, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = EXIT_USAGE;
		goto done;
	}
	/* Can this host run it? */
	if (host_probe(&host, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = EXIT_HARNESS;
		goto done;
	}
	missing = host_missing(&host, host_reqs(s.requires), why, sizeof(why));
	if (missing) {
		fprintf(stderr, "pagelab: %s cannot run on this host:\n%s", s.name, why);
		status = EXIT_CANNOT;
		goto done;
	}
	if (s.destructive && !o.allow_destructive && !host.in_vm_guest) {
		fprintf(stderr,
			"pagelab: %s is destructive (it can cause a global OOM or starve this machine): "
			"run it in VM mode, or on this host with --allow-destructive\n", s.name);
		status = EXIT_CANNOT;
		goto done;
	}
	for (size_t v = 0; v < nv; v++)
		need_knobs |= specs[v].nr_knobs > 0;
	if ((status = knobs_host_check(&o, &host, specs, nv, s.name)) != EXIT_RAN)
		goto done;
	/* --sandbox self: every variant's limit must be the one this cgroup
	 * already has, checked before anything is touched. */
	for (size_t v = 0; o.sandbox_self && v < nv; v++) {
		struct sandbox_spec ss = { .memory_max = specs[v].memory_max,
					   .swap_max = specs[v].swap_max };

		if (sandbox_self_check(&host.cg, &ss, &err) < 0) {
			fprintf(stderr, "pagelab: %s (run %s): %s\n", s.name, specs[v].label, err.msg);
			status = err.code == ERANGE || err.code == ENODEV ? EXIT_CANNOT : EXIT_HARNESS;
			goto done;
		}
	}
	if (launch_bindir(bindir, sizeof(bindir), &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = EXIT_HARNESS;
		goto done;
	}
	for (size_t v = 0; v < nv; v++)
		for (size_t w = 0; w < specs[v].nr_workloads; w++) {
			char prog[PATH_MAX * 2];

			snprintf(prog, sizeof(prog), "%s/%s", bindir, specs[v].workloads[w].program);
			if (access(prog, X_OK) < 0) {
				fprintf(stderr, "pagelab: workload program %s is missing (build it: cmake --build build)\n",
					prog);
				status = EXIT_HARNESS;
				goto done;
			}
		}

	/* From here on the host is touched: signals go through the loop. */
	/* A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal never reaches a signalfd: take the default back first. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);
	if (sigfd < 0) {
		fprintf(stderr, "pagelab: signalfd: %s\n", strerror(errno));
		status = EXIT_HARNESS;
		goto done;
	}
	/* A journal left by a killed run is restored before anything else. */
	if ((status = journal_begin(need_knobs, &journal)) != EXIT_RAN)
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
			if (o.trace != NULL) {
				fprintf(stderr, "pagelab: --trace %s: %s\n", o.trace, err.msg);
				status = EXIT_CANNOT;
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
	if (result_open(o.out, s.name, &res, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = EXIT_HARNESS;
		goto done;
	}
	{
		json_t *doc = result_doc(res);
		char stamp[32];

		result_utc_stamp(stamp, sizeof(stamp), 0);
		json_object_set_new(doc, "harness", json_pack("{s:s, s:s}", "version", PAGELAB_VERSION,
							      "commit", PAGELAB_COMMIT));
		json_object_set_new(doc, "started", json_string(stamp));
		json_object_set_new(doc, "host", host_to_json(&host));
		json_object_set_new(doc, "scenario", scenario_json(&s, repeat));
		json_object_set_new(doc, "interval_ms", json_integer(o.interval_ms));
		json_object_set_new(doc, "tracing", json_pack("{s:b, s:b, s:s?}", "available", trace_ok,
							      "tracefs_mounted_by_run", trace_mounted,
							      "unavailable", trace_why[0] ? trace_why : NULL));
		json_object_set_new(doc, "runs", json_array());
		result_stream(res, "header", -1, doc);
	}
	fprintf(stderr, "pagelab: %s: %zu variant(s) x %u repeat(s), sampling every %u ms; streaming to %s\n",
		s.name, nv, repeat, o.interval_ms, result_stream_path(res));

	for (unsigned rep = 1; rep <= repeat && !interrupted; rep++) {
		for (size_t v = 0; v < nv && !interrupted; v++) {
			struct sandbox_spec ss = { .memory_max = specs[v].memory_max,
						   .swap_max = specs[v].swap_max,
						   .oom_group = specs[v].oom_group && !o.sandbox_self &&
								host.cg.memory == CG_VERSION_V2 };
			unsigned long long baseline = 0;
			struct trace_config tc = { .set = trace_ok ? specs[v].trace.set : TRACE_SET_NONE,
						   .raw = specs[v].trace.raw, .bin_ms = specs[v].trace.bin_ms,
						   .buffer_kb = specs[v].trace.buffer_kb };
			struct sampler_opts so = { .interval_ms = o.interval_ms, .timeout_s = o.timeout_s,
						   .bindir = bindir, .sigfd = sigfd, .verbose = o.verbose,
						   .trace = tc.set != TRACE_SET_NONE ? &tc : NULL,
						   .burst_ms = specs[v].trace.burst_ms,
						   .burst_margin_pct = specs[v].trace.burst_margin_pct,
						   .burst_always = specs[v].trace.burst_always };
			struct sandbox *sb = NULL;
			json_t *run = run_json(&specs[v], rep);
			char vt[256], lim[32];
			int signo = 0, kfd = -1;

			json_array_append(json_object_get(result_doc(res), "runs"), run);
			variant_text(&specs[v], vt, sizeof(vt));
			if ((o.sandbox_self ? sandbox_adopt_self(&host.cg, &ss, &sb, &baseline, &err)
					    : sandbox_create(&host.cg, &ss, &sb, &err)) < 0) {
				fprintf(stderr, "pagelab: %s\n", err.msg);
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "%s", err.msg);
				status = EXIT_HARNESS;
				json_decref(run);
				goto finish;
			}
			json_object_set_new(run, "sandbox",
					    json_pack("{s:s, s:s, s:I, s:I, s:b}", "path", sandbox_path(sb),
						      "version", sandbox_version(sb) == CG_VERSION_V2 ? "v2" : "v1",
						      "memory_max_bytes", (json_int_t)ss.memory_max,
						      "swap_max_bytes", (json_int_t)ss.swap_max,
						      "oom_group", ss.oom_group));
			/* self: the limit found is the sandbox, and what it already held
			 * (pagelab, the container's shell) is part of the baseline. */
			json_object_set_new(json_object_get(run, "sandbox"), "mode",
					    json_string(o.sandbox_self ? "self" : "child"));
			if (o.sandbox_self)
				json_object_set_new(json_object_get(run, "sandbox"), "baseline_bytes",
						    json_integer((json_int_t)baseline));
			fprintf(stderr, "pagelab: run %d: %s.%u%s%s: sandbox %s (%s, swap %llu)\n", run_index + 1,
				specs[v].label, rep, vt[0] ? " " : "", vt, sandbox_path(sb),
				lab_format_size(ss.memory_max, lim, sizeof(lim)), ss.swap_max);
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
				status = EXIT_HARNESS;
				json_decref(run);
				goto finish;
			}
			result_stream(res, "run-start", run_index, run);
			ret = sampler_run(&specs[v], sb, &so, res, run_index, run, &signo, &err);
			{
				struct kmsg_log klog = { 0 };

				kmsg_drain(kfd, &klog, kmsg_interesting, KMSG_KEEP_MAX);
				json_object_set_new(run, "kmsg", kmsg_log_json(&klog));
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
					status = EXIT_HARNESS;
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
				json_t *ex = json_object_get(run, "exit");
				const char *oc = json_string_value(json_object_get(ex, "outcome"));
				json_t *sm = json_object_get(run, "summary");

				fprintf(stderr, "pagelab: run %d: %s after %.1f s (%d samples)\n", run_index + 1,
					oc ? oc : "?",
					json_number_value(json_object_get(sm, "duration_ms")) / 1000.0,
					(int)json_integer_value(json_object_get(sm, "samples")));
			}
			/* A workload that failed on its own is not data: exit 1 (an OOM kill is). */
			if (ret >= 0 && sampler_run_failed(run, why, sizeof(why))) {
				fprintf(stderr, "pagelab: run %d: %s\n", run_index + 1, why);
				status = EXIT_HARNESS;
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "run %d: %.900s", run_index + 1, why);
			}
			result_stream(res, "run-end", run_index, json_object_get(run, "exit"));
			result_stream_sync(res);
			json_decref(run);
			run_index++;
			if (ret < 0) {
				fprintf(stderr, "pagelab: %s\n", err.msg);
				doc_status = "error";
				snprintf(doc_error, sizeof(doc_error), "%s", err.msg);
				status = EXIT_HARNESS;
				goto finish;
			}
			if (ret == 1) {
				interrupted = true;
				doc_status = "interrupted";
				snprintf(doc_error, sizeof(doc_error), "stopped by %s", strsignal(signo));
				status = EXIT_INTERRUPTED;
			}
		}
	}
finish:
	if (result_finish(res, doc_status, doc_error[0] ? doc_error : NULL, &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		status = EXIT_HARNESS;
	} else {
		fprintf(stderr, "pagelab: result written: %s\n", result_path(res));
		if (!o.no_report && status == EXIT_RAN) {
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
			status = EXIT_HARNESS;
		knob_journal_close(journal);
	}
	if (sigfd >= 0)
		close(sigfd);
	if (trace_mounted)
		trace_unmount();
	for (size_t v = 0; v < nv; v++)
		run_spec_free(&specs[v]);
	free(specs);
	scenario_free(&s);
	return status;
}

/* `pagelab restore`: the knobs a killed run left changed, from the journal,
 * then the sandboxes of dead runs.  0 when the machine is back (or there was
 * nothing to do), 1 when something could not be put back, 3 when a live run
 * owns the journal. */
static int cmd_restore(int argc, char **argv)
{
	const char *path = knob_journal_path();
	struct knob_journal *j = NULL;
	struct knob_restore_report rep;
	struct lab_error err;
	struct cg_host cg;
	struct stat st;
	bool stale = false;
	pid_t owner = 0;
	int ret, status = EXIT_RAN, removed = 0;

	(void)argv;
	if (argc > 1)
		return usage_error("%s", "restore takes no arguments");
	if (lstat(path, &st) < 0) {
		printf("pagelab restore: no knob journal at %s: nothing to restore\n", path);
	} else if ((ret = knob_journal_open(path, &j, &stale, &owner, &err)) < 0) {
		fprintf(stderr, "pagelab restore: %s%s\n", err.msg,
			ret == -EBUSY ? ": it puts its knobs back when it ends (stop it with SIGINT)" : "");
		return ret == -EBUSY ? EXIT_CANNOT : ret == -EPERM ? EXIT_USAGE : EXIT_HARNESS;
	} else {
		ret = knob_journal_restore(j, &rep, &err);
		printf("pagelab restore: knob journal %s (written by pid %d):\n", path, (int)rep.journal_pid);
		fflush(stdout);
		knob_report_print(&rep, stdout, "pagelab restore:   ");
		if (ret < 0) {
			fprintf(stderr, "pagelab restore: %s\n", err.msg);
			status = EXIT_HARNESS;
		} else {
			printf("pagelab restore: %zu knob(s) verified back; journal removed\n", rep.n);
		}
		knob_journal_close(j);
	}
	if (sandbox_probe(&cg, &err) == 0) {
		if (sandbox_sweep(&cg, &removed, &err) < 0) {
			fprintf(stderr, "pagelab restore: sweeping stale sandboxes: %s\n", err.msg);
			status = EXIT_HARNESS;
		} else if (removed > 0) {
			printf("pagelab restore: removed %d stale sandbox(es) of dead pagelab runs\n", removed);
		}
	}
	if (trace_sweep(&removed, &err) < 0) {
		fprintf(stderr, "pagelab restore: sweeping stale tracing instances: %s\n", err.msg);
		status = EXIT_HARNESS;
	} else if (removed > 0) {
		printf("pagelab restore: removed %d stale tracing instance(s) of dead pagelab runs\n", removed);
	}
	return status;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage_text, stdout);
		return EXIT_RAN;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("pagelab %s (%s)\n", PAGELAB_VERSION, PAGELAB_COMMIT);
		return EXIT_RAN;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1, false);
	if (!strcmp(cmd, "show"))
		return cmd_run(argc - 1, argv + 1, true);
	if (!strcmp(cmd, "list"))
		return cmd_list();
	if (!strcmp(cmd, "check"))
		return host_check_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return report_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "audit"))
		return audit_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "restore"))
		return cmd_restore(argc - 1, argv + 1);
	if (!strcmp(cmd, "vm"))
		return vm_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "plot"))
		return plot_main(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return compare_main(argc - 1, argv + 1);
	return usage_error("unknown command '%s'", cmd);
}
