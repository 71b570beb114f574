/* report.c — `pagelab report`: the MADV_FREE article's tables, this host's
 * figures beside the article's (M. Erbay, "I Called MADV_FREE on 512 MiB and No Counter
 * Came Down").
 *
 * The tables are data.  Each article table is a list of figures (struct fig):
 * which workload step to read (a selector: "fill", "series#2",
 * "mincore<pressure", "action:reclaim"), which number in it (a dotted path:
 * "counters.region.rss_kb", "counters.series_kb[median]") and where the
 * article's number sits in the reference document.  One generic layer turns a
 * figure into a row: one cell per kernel column (median over the repeats,
 * min–max when they differ; or the runs one by one; or outcome counts) and one
 * article cell.  Three emitters print the same rows as markdown, CSV or JSON.
 *
 * Input formats: harness/result.md (result document), workloads/events.md
 * (step counters), results/reference/madv-free.json (the article's figures).
 * A figure a result lacks prints as "—", never as 0.
 */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "error.h"
#include "exitcode.h"
#include "result_keys.h"
#include "fileio.h"

#ifndef PAGELAB_SOURCE_DIR
#define PAGELAB_SOURCE_DIR "."
#endif

#define RESULT_SCHEMA RESULT_SCHEMA_ID
#define REFERENCE_SCHEMA "pagelab.reference/1"
#define REPORT_SCHEMA "pagelab.report/1"
#define MISSING "—"
#define TEXT_MAX 256
#define NOTES_MAX 8
#define EXIT_BAD_INPUT LAB_EXIT_USAGE
#define EXIT_INTERNAL LAB_EXIT_HARNESS

enum report_format { FMT_MARKDOWN, FMT_CSV, FMT_JSON };

/* ---------------------------------------------------------------- model */

struct input {
	const char *path;
	json_t *doc;
	size_t col;                     /* its column in struct report */
};

/* One column per (kernel, cgroup memory mode) among the results given. */
struct column {
	const char *kernel;
	const char *cgroup;             /* host.cgroup.memory: v1 | v2 | none */
	bool guest;                     /* host.in_vm_guest */
	char knobs[96];                 /* the runs' --set of machine-wide knobs ("lru_gen=0x0000") */
	char label[192];
};

struct runref {
	const json_t *run;
	const json_t *host;
	const struct input *in;
	size_t col;
	const char *main;               /* workload whose steps are read; NULL = all */
};

struct report {
	struct input *in;
	size_t nin;
	struct column *cols;
	size_t ncols;
	struct runref *runs;
	size_t nruns;
	json_t *ref;
	char ref_path[4096];
};

/* A cell: display text plus, for numeric figures, the per-run values
 * (JSON numbers, null where a run lacks the figure) and their statistics. */
struct cell {
	char text[TEXT_MAX];
	json_t *values;                 /* owned; NULL for text cells */
	size_t runs, have;
	double med, lo, hi;
};

struct row {
	char label[128];
	char what[160];
	const char *unit;
	struct cell *cells;             /* one per table column */
	struct cell article;
	json_t *article_json;           /* borrowed from the reference */
	bool derived;
};

struct table_spec;

struct table {
	const struct table_spec *spec;
	size_t number;
	const json_t *ref;              /* reference "tables.<id>", may be NULL */
	size_t *cols;                   /* report column indexes with runs here */
	size_t *colruns;                /* how many runs each has */
	size_t ncols;
	struct row *rows;
	size_t nrows, cap;
	char article_col[192];
	char notes[NOTES_MAX][400];
	size_t nnotes;
};

/* A table being built: the runs feeding it and a scratch list for a cell. */
struct tctx {
	struct report *rep;
	struct table *t;
	const struct runref **feed;
	size_t nfeed;
	const struct runref **pick;     /* scratch, nfeed long */
};

enum cell_kind {
	K_AGG = 0,      /* median over runs, min–max when they differ */
	K_LIST,         /* every run's value, in order: "334 / 334 / 335 MiB" */
	K_COUNT,        /* a label per run, counted: "OOM-kill (137) 3/3" */
	K_TEXT,         /* one text per column */
};

struct fig;
typedef bool (*fig_get)(const struct runref *r, const struct fig *f, double *out);
typedef void (*fig_label)(const struct runref *r, const struct fig *f, char *buf, size_t len);
typedef void (*fig_text)(const struct runref *const *runs, size_t n, const struct fig *f,
			 char *buf, size_t len);

struct fig {
	const char *row;
	const char *what;
	enum cell_kind kind;
	fig_get get;                    /* K_AGG, K_LIST; NULL = get_plain */
	fig_label label;                /* K_COUNT */
	fig_text text;                  /* K_TEXT */
	const char *sel, *path;         /* the number: step selector + path */
	const char *sel2, *path2;       /* the subtrahend, for get_diff */
	double div;                     /* 0 = 1 */
	bool floor;                     /* round down after div (MiB) */
	const char *unit;
	const char *ref;                /* reference path; "/..." from the document root */
};

struct table_spec {
	const char *id;
	const char *name;
	const char *row_head;
	const char *compare;
	int (*build)(struct tctx *c, struct lab_error *err);
	const char *article;            /* results/reference/<article>.json; NULL = madv-free */
};

/* ------------------------------------------------------------- helpers */

static void bufcat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Append to a display buffer; a truncated display text is still correct
 * as far as it goes, so truncation is not an error here. */
static void bufcat(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static const char *str_or(const json_t *j, const char *dflt)
{
	const char *s = json_string_value(j);

	return s != NULL ? s : dflt;
}

static bool json_num(const json_t *j, double *out)
{
	if (!json_is_number(j))
		return false;
	*out = json_number_value(j);
	return true;
}

/* Whole-number helpers without libm (the binary links no -lm). */
static double floor_of(double v)
{
	long long i = (long long)v;

	return (double)i > v ? (double)(i - 1) : (double)i;
}

static bool is_whole(double v)
{
	return v == (double)(long long)v;
}

/* A number as the article prints it: thousands separators when group is
 * true, no trailing ".0", at most two decimals (a median of an even count). */
static void fmt_num(double v, bool group, char *buf, size_t len)
{
	char digits[32], frac[16] = "", out[48];
	const char *sign = v < 0 ? "-" : "";
	double a = v < 0 ? -v : v;
	long long ip = (long long)a;
	double f = a - (double)ip;
	size_t n, i, o = 0;

	if (f >= 0.005) {
		snprintf(frac, sizeof(frac), "%.2f", f);   /* "0.50" or "1.00" */
		if (frac[0] == '1') {
			ip++;
			frac[0] = '\0';
		} else {
			size_t k = strlen(frac);

			while (k > 0 && frac[k - 1] == '0')
				frac[--k] = '\0';
			memmove(frac, frac + 1, strlen(frac));   /* drop the "0" */
		}
	}
	if (ip == 0 && frac[0] == '\0')
		sign = "";
	snprintf(digits, sizeof(digits), "%lld", ip);
	n = strlen(digits);
	for (i = 0; i < n && o + 2 < sizeof(out); i++) {
		if (group && i > 0 && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, len, "%s%s%s", sign, out, frac);
}

static json_t *json_of_num(double v)
{
	return is_whole(v) ? json_integer((json_int_t)v) : json_real(v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v.  Median of an even count: the mean of the two middle values. */
static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static bool array_median(const json_t *a, double *out)
{
	size_t n = json_array_size(a), k = 0, i;
	double *v;
	bool ok;

	if (n == 0)
		return false;
	v = malloc(n * sizeof(*v));
	if (v == NULL)
		return false;   /* shown as missing; the next allocation reports ENOMEM */
	for (i = 0; i < n; i++)
		if (json_num(json_array_get(a, i), &v[k]))
			k++;
	ok = k > 0;
	if (ok)
		*out = median_of(v, k);
	free(v);
	return ok;
}

/* Walk a dotted path: "counters.region.rss_kb", "counters.series_kb[3]",
 * "counters.series_kb[last]".  A final "[median]" leaves the array for the
 * caller and sets *median. */
static const json_t *json_walk(const json_t *j, const char *path, bool *median)
{
	char buf[256];
	char *save = NULL, *seg;

	*median = false;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return NULL;
	for (seg = strtok_r(buf, ".", &save); seg != NULL && j != NULL;
	     seg = strtok_r(NULL, ".", &save)) {
		char *br = strchr(seg, '['), *end;
		unsigned long idx;

		if (br != NULL)
			*br++ = '\0';
		if (*seg != '\0')
			j = json_object_get(j, seg);
		if (br == NULL || j == NULL)
			continue;
		end = strchr(br, ']');
		if (end == NULL || !json_is_array(j))
			return NULL;
		*end = '\0';
		if (strcmp(br, "median") == 0) {
			*median = true;
		} else if (strcmp(br, "last") == 0) {
			size_t n = json_array_size(j);

			j = n > 0 ? json_array_get(j, n - 1) : NULL;
		} else {
			idx = strtoul(br, &end, 10);
			j = *end == '\0' ? json_array_get(j, idx) : NULL;
		}
	}
	return j;
}

static bool path_num(const json_t *obj, const char *path, double *out)
{
	bool median;
	const json_t *j = json_walk(obj, path, &median);

	return median ? array_median(j, out) : json_num(j, out);
}

/* ------------------------------------------------------ step selection */

static bool step_is(const json_t *s, const char *workload, const char *name)
{
	const char *w = json_string_value(json_object_get(s, "workload"));
	const char *n = json_string_value(json_object_get(s, "step"));

	if (workload != NULL && (w == NULL || strcmp(w, workload) != 0))
		return false;
	return name == NULL || (n != NULL && strcmp(n, name) == 0);
}

static const json_t *find_action(const json_t *run, const char *name)
{
	const json_t *acts = json_object_get(run, "actions");
	size_t i;

	for (i = 0; i < json_array_size(acts); i++) {
		const json_t *a = json_array_get(acts, i);

		if (strcmp(str_or(json_object_get(a, "action"), ""), name) == 0)
			return a;
	}
	return NULL;
}

/* One alternative of a selector:
 *   NAME           the first step NAME of the run's main workload
 *   NAME#N         the N-th
 *   NAME<ANCHOR    the last NAME before the first ANCHOR (before the end when
 *                  no ANCHOR was reported: the workload died during it)
 *   first          the main workload's first step
 *   action:NAME    the run-level record runs[].actions[] with that action
 *   sample:last    the run's last sample (read after the workloads ended) */
static const json_t *select_alt(const struct runref *r, char *alt)
{
	const json_t *steps = json_object_get(r->run, "steps");
	size_t n = json_array_size(steps), limit = n, i;
	unsigned long nth = 1, seen = 0;
	char *p;

	if (strncmp(alt, "action:", 7) == 0)
		return find_action(r->run, alt + 7);
	if (strcmp(alt, "sample:last") == 0) {
		const json_t *samples = json_object_get(r->run, "samples");

		return json_array_get(samples, json_array_size(samples) - 1);
	}
	if (strcmp(alt, "first") == 0)
		alt = NULL;
	else if ((p = strchr(alt, '<')) != NULL) {
		*p++ = '\0';
		for (i = 0; i < n; i++)
			if (step_is(json_array_get(steps, i), r->main, p)) {
				limit = i;
				break;
			}
		for (i = limit; i-- > 0;)
			if (step_is(json_array_get(steps, i), r->main, alt))
				return json_array_get(steps, i);
		return NULL;
	} else if ((p = strchr(alt, '#')) != NULL) {
		*p++ = '\0';
		nth = strtoul(p, NULL, 10);
	}
	for (i = 0; i < n; i++)
		if (step_is(json_array_get(steps, i), r->main, alt) && ++seen == nth)
			return json_array_get(steps, i);
	return NULL;
}

/* sel: alternatives separated by '|', the first found wins; NULL = the run. */
static const json_t *select_step(const struct runref *r, const char *sel)
{
	char buf[128];
	char *save = NULL, *alt;
	const json_t *s = NULL;

	if (sel == NULL)
		return r->run;
	if ((size_t)snprintf(buf, sizeof(buf), "%s", sel) >= sizeof(buf))
		return NULL;
	for (alt = strtok_r(buf, "|", &save); alt != NULL && s == NULL;
	     alt = strtok_r(NULL, "|", &save))
		s = select_alt(r, alt);
	return s;
}

static bool value_at(const struct runref *r, const char *sel, const char *path, double *out)
{
	const json_t *s = select_step(r, sel);

	return s != NULL && path_num(s, path, out);
}

/* ------------------------------------------------------------- getters */

static double scaled(const struct fig *f, double v)
{
	if (f->div > 0)
		v /= f->div;
	return f->floor ? floor_of(v) : v;
}

static bool get_plain(const struct runref *r, const struct fig *f, double *out)
{
	double v;

	if (!value_at(r, f->sel, f->path, &v))
		return false;
	*out = scaled(f, v);
	return true;
}

static bool get_diff(const struct runref *r, const struct fig *f, double *out)
{
	double a, b;

	if (!value_at(r, f->sel, f->path, &a) || !value_at(r, f->sel2, f->path2, &b))
		return false;
	*out = scaled(f, a - b);
	return true;
}

/* mincore's reclaimed pages at step sel, in whole MiB (rounded down, as the
 * article's 85,660 pages -> 334 MiB).  The page size is the region's size
 * over its page count: the article's machine is arm64. */
static bool get_reclaimed_mib(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *s = select_step(r, f->sel);
	double pages, resident, size_kb, page_kb = 4;

	if (s == NULL || !path_num(s, "counters.region_pages", &pages) ||
	    !path_num(s, "counters.resident_pages", &resident))
		return false;
	if (path_num(s, "counters.region.size_kb", &size_kb) && pages > 0)
		page_kb = size_kb / pages;
	*out = floor_of((pages - resident) * page_kb / 1024);
	return true;
}

/* What the sandbox charged besides the region: memory.current at the main
 * workload's first step minus the region's Rss then (reclaim
 * under a limit stops once the shortfall is covered, so this baseline
 * decides how much of the region goes). */
static bool get_baseline(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *s = select_step(r, "first");
	double usage, rss;

	(void)f;
	if (s == NULL || !path_num(s, "memcg.usage_bytes", &usage))
		return false;
	if (!path_num(s, "counters.region.rss_kb", &rss) &&
	    !path_num(s, "counters.region.size_kb", &rss))
		return false;
	*out = usage / 1024 - rss;
	return true;
}

enum lazy_source { SRC_NONE, SRC_MEMCG, SRC_VMSTAT };

/* pglazyfree / pglazyfreed: the memcg's memory.stat where it has the key
 * (cgroup v2), else the machine-wide /proc/vmstat delta since the run's
 * start (v1's memory.stat has no such keys).  result.md: vmstat_delta holds
 * the keys that changed, so a key absent from a present delta is 0. */
static enum lazy_source lazy_counter(const struct runref *r, const char *sel, const char *key,
				     double *out)
{
	const json_t *s = select_step(r, sel);
	const json_t *stat = json_object_get(json_object_get(s, "memcg"), "stat");
	const json_t *delta = json_object_get(s, "vmstat_delta");

	if (json_num(json_object_get(stat, key), out))
		return SRC_MEMCG;
	if (json_is_object(delta)) {
		if (!json_num(json_object_get(delta, key), out))
			*out = 0;
		return SRC_VMSTAT;
	}
	return SRC_NONE;
}

static bool get_lazy(const struct runref *r, const struct fig *f, double *out)
{
	return lazy_counter(r, f->sel, f->path, out) != SRC_NONE;
}

static long long control_pid(const struct runref *r)
{
	const json_t *ws = json_object_get(r->run, "workloads");
	size_t i;

	for (i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);

		if (strcmp(str_or(json_object_get(w, "name"), ""), "control") == 0 &&
		    json_is_integer(json_object_get(w, "pid")))
			return json_integer_value(json_object_get(w, "pid"));
	}
	return -1;
}

static bool is_control(const json_t *entry, long long pid)
{
	const json_t *p = json_object_get(entry, "pid");

	return pid >= 0 && json_is_integer(p) && json_integer_value(p) == pid;
}

/* The positive control's entry in the host scan's top[] list. */
static const json_t *control_entry(const struct runref *r, const json_t *scan)
{
	const json_t *top = json_object_get(json_object_get(scan, "counters"), "top");
	long long pid = control_pid(r);
	size_t i;

	for (i = 0; i < json_array_size(top); i++)
		if (is_control(json_array_get(top, i), pid))
			return json_array_get(top, i);
	return NULL;
}

static bool get_control_lazyfree(const struct runref *r, const struct fig *f, double *out)
{
	return path_num(control_entry(r, select_step(r, f->sel)), "lazyfree_kb", out);
}

/* Processes with LazyFree > 0 other than the control.  When the control is
 * not in top[] and top[] is shorter than the count, whether the control was
 * counted is unknown: missing, not a guess. */
static bool get_scan_others(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *scan = select_step(r, f->sel);
	const json_t *c = control_entry(r, scan);
	double with, lazy;

	if (!path_num(scan, "counters.with_lazyfree", &with))
		return false;
	if (c != NULL) {
		*out = path_num(c, "lazyfree_kb", &lazy) && lazy > 0 ? with - 1 : with;
		return true;
	}
	if (control_pid(r) >= 0 &&
	    (double)json_array_size(json_object_get(json_object_get(scan, "counters"), "top")) < with)
		return false;
	*out = with;
	return true;
}

/* --------------------------------------------------- labels and texts */

/* The main workload's exit as a shell would show it: 128 + signal. */
static int main_exit_code(const struct runref *r)
{
	const json_t *ws = json_object_get(json_object_get(r->run, "exit"), "workloads");
	const json_t *w = json_array_get(ws, json_array_size(ws) - 1);
	size_t i;

	for (i = 0; r->main != NULL && i < json_array_size(ws); i++)
		if (strcmp(str_or(json_object_get(json_array_get(ws, i), "name"), ""), r->main) == 0)
			w = json_array_get(ws, i);
	if (json_is_integer(json_object_get(w, "signal")))
		return 128 + (int)json_integer_value(json_object_get(w, "signal"));
	if (json_is_integer(json_object_get(w, "code")))
		return (int)json_integer_value(json_object_get(w, "code"));
	return -1;
}

static void label_outcome(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	const char *o = json_string_value(json_object_get(json_object_get(r->run, "exit"), "outcome"));
	int code;

	(void)f;
	if (o == NULL) {
		snprintf(buf, len, "%s", MISSING);
	} else if (strcmp(o, "oom_killed") == 0) {
		code = main_exit_code(r);
		if (code > 0)
			snprintf(buf, len, "OOM-kill (%d)", code);
		else
			snprintf(buf, len, "OOM-kill");
	} else {
		snprintf(buf, len, "%s", strcmp(o, "completed") == 0 ? "survived" : o);
	}
}

static void label_field(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	bool median;
	const json_t *j = json_walk(select_step(r, f->sel), f->path, &median);

	snprintf(buf, len, "%s", str_or(j, MISSING));
}

static const char *lazy_source_name(enum lazy_source s)
{
	switch (s) {
	case SRC_MEMCG:
		return "memory.stat of the sandbox memcg";
	case SRC_VMSTAT:
		return "/proc/vmstat delta over the run (machine-wide)";
	case SRC_NONE:
		break;
	}
	return MISSING;
}

static void text_lazy_source(const struct runref *const *runs, size_t n, const struct fig *f,
			     char *buf, size_t len)
{
	enum lazy_source seen = SRC_NONE, s;
	bool mixed = false;
	double v;
	size_t i;

	for (i = 0; i < n; i++) {
		s = lazy_counter(runs[i], f->sel, f->path, &v);
		if (s == SRC_NONE)
			continue;
		mixed |= seen != SRC_NONE && s != seen;
		seen = s;
	}
	snprintf(buf, len, "%s%s", lazy_source_name(seen), mixed ? " (runs differ)" : "");
}

/* The largest LazyFree holders other than the control, from the first run
 * that scanned. */
static void text_top_others(const struct runref *const *runs, size_t n, const struct fig *f,
			    char *buf, size_t len)
{
	size_t i, k, shown = 0;

	snprintf(buf, len, "%s", MISSING);
	for (i = 0; i < n; i++) {
		const json_t *scan = select_step(runs[i], f->sel);
		const json_t *top = json_object_get(json_object_get(scan, "counters"), "top");
		long long pid = control_pid(runs[i]);

		if (!json_is_array(top))
			continue;
		snprintf(buf, len, "none");
		for (k = 0; k < json_array_size(top) && shown < 3; k++) {
			const json_t *e = json_array_get(top, k);
			char kb[32];
			double v;

			if (is_control(e, pid) || !path_num(e, "lazyfree_kb", &v) || v <= 0)
				continue;
			fmt_num(v, true, kb, sizeof(kb));
			if (shown++ == 0)
				buf[0] = '\0';
			bufcat(buf, len, "%s%s (%lld) %s kB", shown > 1 ? "; " : "",
			       str_or(json_object_get(e, "comm"), "?"),
			       (long long)json_integer_value(json_object_get(e, "pid")), kb);
		}
		return;
	}
}

/* ------------------------------------------------------------- cells */

static void cell_free(struct cell *c)
{
	json_decref(c->values);
	c->values = NULL;
}

/* "524,288 kB"; "1 page" rather than "1 pages" (units "pages ..."). */
static void fmt_value(double v, const char *unit, char *buf, size_t len)
{
	fmt_num(v, true, buf, len);
	if (unit != NULL && v == 1 && strncmp(unit, "pages", 5) == 0)
		bufcat(buf, len, " page%s", unit + 5);
	else if (unit != NULL)
		bufcat(buf, len, " %s", unit);
}

static int cell_numbers(struct cell *c, const struct fig *f,
			const struct runref *const *runs, size_t n)
{
	fig_get get = f->get != NULL ? f->get : get_plain;
	double *v = calloc(n + 1, sizeof(*v));
	char num[64];
	size_t i;
	double x;

	c->values = json_array();
	if (v == NULL || c->values == NULL) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		bool ok = get(runs[i], f, &x);

		if (ok)
			v[c->have++] = x;
		if (json_array_append_new(c->values, ok ? json_of_num(x) : json_null()) < 0) {
			free(v);
			return -ENOMEM;
		}
		if (f->kind == K_LIST) {
			if (ok)
				fmt_num(x, true, num, sizeof(num));
			bufcat(c->text, sizeof(c->text), "%s%s", i > 0 ? " / " : "", ok ? num : MISSING);
		}
	}
	if (c->have == 0) {
		snprintf(c->text, sizeof(c->text), "%s", MISSING);
	} else if (f->kind == K_LIST) {
		if (f->unit != NULL)
			bufcat(c->text, sizeof(c->text), " %s", f->unit);
	} else {
		c->med = median_of(v, c->have);
		c->lo = v[0];
		c->hi = v[c->have - 1];
		fmt_value(c->med, f->unit, c->text, sizeof(c->text));
		if (c->lo != c->hi) {
			char lo[32], hi[32];

			fmt_num(c->lo, true, lo, sizeof(lo));
			fmt_num(c->hi, true, hi, sizeof(hi));
			bufcat(c->text, sizeof(c->text), " (%s–%s)", lo, hi);
		}
		if (c->have < n)
			bufcat(c->text, sizeof(c->text), " [%zu of %zu runs]", c->have, n);
	}
	if (c->have > 0 && f->kind == K_LIST) {
		c->med = median_of(v, c->have);
		c->lo = v[0];
		c->hi = v[c->have - 1];
	}
	free(v);
	return 0;
}

/* Labels counted in order of first appearance: "OOM-kill (137) 3/3",
 * "survived 2/3, OOM-kill (137) 1/3"; a single run prints its label alone. */
static void cell_count(struct cell *c, const struct fig *f,
		       const struct runref *const *runs, size_t n)
{
	char labels[16][64];
	size_t counts[16] = {0}, nl = 0, i, k;
	char lab[64];
	bool any = false;

	for (i = 0; i < n; i++) {
		f->label(runs[i], f, lab, sizeof(lab));
		any |= strcmp(lab, MISSING) != 0;
		for (k = 0; k < nl && strcmp(labels[k], lab) != 0; k++)
			;
		if (k == nl && nl < 16)
			snprintf(labels[nl++], sizeof(labels[0]), "%s", lab);
		if (k < nl)
			counts[k]++;
	}
	if (!any) {
		snprintf(c->text, sizeof(c->text), "%s", MISSING);
		return;
	}
	for (k = 0; k < nl; k++) {
		bufcat(c->text, sizeof(c->text), "%s%s", k > 0 ? ", " : "", labels[k]);
		if (n > 1)
			bufcat(c->text, sizeof(c->text), " %zu/%zu", counts[k], n);
	}
}

static int cell_fill(struct cell *c, const struct fig *f, const struct runref *const *runs, size_t n)
{
	c->runs = n;
	c->text[0] = '\0';
	if (n == 0) {
		snprintf(c->text, sizeof(c->text), "%s", MISSING);
		return 0;
	}
	switch (f->kind) {
	case K_AGG:
	case K_LIST:
		return cell_numbers(c, f, runs, n);
	case K_COUNT:
		cell_count(c, f, runs, n);
		return 0;
	case K_TEXT:
		f->text(runs, n, f, c->text, sizeof(c->text));
		return 0;
	}
	return 0;
}

/* The article's figure: a number (with the row's unit), a list of per-run
 * numbers, a text as printed, or {"value", "derived": true}. */
static void article_text(const json_t *j, const char *unit, char *buf, size_t len, bool *derived)
{
	size_t i;
	char num[64];

	buf[0] = '\0';
	if (json_is_object(j) && json_object_get(j, "value") != NULL) {
		*derived = json_is_true(json_object_get(j, "derived"));
		article_text(json_object_get(j, "value"), unit, buf, len, derived);
		if (*derived)
			bufcat(buf, len, " (derived)");
	} else if (json_is_number(j)) {
		fmt_value(json_number_value(j), unit, buf, len);
	} else if (json_is_string(j)) {
		snprintf(buf, len, "%s", json_string_value(j));
	} else if (json_is_array(j) && json_array_size(j) > 0) {
		for (i = 0; i < json_array_size(j); i++) {
			const json_t *e = json_array_get(j, i);

			if (json_is_number(e))
				fmt_num(json_number_value(e), true, num, sizeof(num));
			bufcat(buf, len, "%s%s", i > 0 ? " / " : "",
			       json_is_number(e) ? num : str_or(e, MISSING));
		}
		if (unit != NULL)
			bufcat(buf, len, " %s", unit);
	} else {
		snprintf(buf, len, "%s", MISSING);
	}
}

/* ------------------------------------------------------------- tables */

struct vchoice {
	const char *value, *label;
};

struct variant {
	const char *key;
	char value[32];
	char label[64];
};

static bool variant_of(const json_t *run, const char *key, char *buf, size_t len)
{
	const char *comma = strchr(key, ',');
	const json_t *v;

	if (comma != NULL) {
		/* "pace,wsf": the values joined the same way, "64M/50,10" */
		char first[32], rest[32];
		size_t n;

		if ((size_t)(comma - key) >= sizeof(first))
			return false;
		snprintf(first, sizeof(first), "%.*s", (int)(comma - key), key);
		if (!variant_of(run, first, buf, len) || !variant_of(run, comma + 1, rest, sizeof(rest)))
			return false;
		n = strlen(buf);
		return (size_t)snprintf(buf + n, len - n, ",%s", rest) < len - n;
	}
	v = json_object_get(json_object_get(run, "variant"), key);

	if (v == NULL)
		v = json_object_get(json_object_get(run, "params"), key);
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "on" : "off");
	else
		return false;
	return true;
}

static bool run_in_variant(const struct runref *r, const struct variant *v)
{
	char val[32];

	return v == NULL || (variant_of(r->run, v->key, val, sizeof(val)) && strcmp(val, v->value) == 0);
}

static const json_t *ref_lookup(const struct tctx *c, const char *path)
{
	bool median;

	if (path == NULL)
		return NULL;
	if (path[0] == '/')
		return json_walk(c->rep->ref, path + 1, &median);
	return json_walk(c->t->ref, path, &median);
}

static void table_note(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void table_note(struct table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->nnotes == NOTES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(t->notes[t->nnotes++], sizeof(t->notes[0]), fmt, ap);
	va_end(ap);
}

static struct row *table_new_row(struct table *t)
{
	struct row *r;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct row *rows = realloc(t->rows, cap * sizeof(*rows));

		if (rows == NULL)
			return NULL;
		t->rows = rows;
		t->cap = cap;
	}
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->cells = calloc(t->ncols ? t->ncols : 1, sizeof(*r->cells));
	if (r->cells == NULL)
		return NULL;
	t->nrows++;
	return r;
}

/* One figure -> one row: a cell per column over the runs of that column in
 * variant v (NULL = all), and the article's figure at v's prefix + f->ref. */
static int add_fig(struct tctx *c, const struct fig *f, const struct variant *v,
		   struct lab_error *err)
{
	struct table *t = c->t;
	struct row *row = table_new_row(t);
	char ref[160];
	size_t i, k, n;
	int rc;

	if (row == NULL)
		return lab_error_set(err, ENOMEM, "table %s: out of memory", t->spec->id);
	snprintf(row->label, sizeof(row->label), "%s%s%s", v != NULL ? v->label : "",
		 v != NULL && f->row != NULL ? " · " : "", f->row != NULL ? f->row : "");
	snprintf(row->what, sizeof(row->what), "%s", f->what);
	row->unit = f->unit;
	for (i = 0; i < t->ncols; i++) {
		for (k = 0, n = 0; k < c->nfeed; k++)
			if (c->feed[k]->col == t->cols[i] && run_in_variant(c->feed[k], v))
				c->pick[n++] = c->feed[k];
		rc = cell_fill(&row->cells[i], f, c->pick, n);
		if (rc < 0)
			return lab_error_set(err, -rc, "table %s: out of memory", t->spec->id);
	}
	snprintf(ref, sizeof(ref), "%s%s%s", v != NULL && f->ref != NULL && f->ref[0] != '/' ? v->value : "",
		 v != NULL && f->ref != NULL && f->ref[0] != '/' ? "." : "", f->ref != NULL ? f->ref : "");
	row->article_json = (json_t *)ref_lookup(c, f->ref != NULL ? ref : NULL);
	article_text(row->article_json, f->unit, row->article.text, sizeof(row->article.text),
		     &row->derived);
	return 0;
}

static int add_figs(struct tctx *c, const struct fig *figs, size_t n, const struct variant *v,
		    struct lab_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((rc = add_fig(c, &figs[i], v, err)) < 0)
			return rc;
	return 0;
}

/* Steps × quantities, as the article's step tables are laid out. */
struct stage {
	const char *row, *sel, *ref;
};

struct qty {
	const char *what, *path;
	double div;
	const char *unit, *ref;
};

static int add_grid(struct tctx *c, const struct stage *st, size_t nst, const struct qty *q,
		    size_t nq, const struct variant *v, struct lab_error *err)
{
	size_t s, k;
	int rc;

	for (s = 0; s < nst; s++)
		for (k = 0; k < nq; k++) {
			char ref[96];
			struct fig f = {
				.row = st[s].row, .what = q[k].what, .sel = st[s].sel,
				.path = q[k].path, .div = q[k].div, .unit = q[k].unit, .ref = ref,
			};

			snprintf(ref, sizeof(ref), "%s%s%s", st[s].ref ? st[s].ref : "",
				 st[s].ref ? "." : "", q[k].ref);
			if ((rc = add_fig(c, &f, v, err)) < 0)
				return rc;
		}
	return 0;
}

static const struct fig baseline_fig = {
	.row = "Sandbox", .what = "Baseline: memory.current − region Rss at the first step",
	.get = get_baseline, .unit = "kB", .ref = "/header.baseline_kb",
};

static int add_baseline(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	return add_fig(c, &baseline_fig, v, err);
}

typedef int (*variant_fn)(struct tctx *c, const struct variant *v, struct lab_error *err);

/* Call fn for each variant of key: the article's (known, in its order, even
 * without runs, so a missing variant shows as "—"), then any other value the
 * runs have. */
static int for_variants(struct tctx *c, const char *key, const struct vchoice *known, size_t nknown,
			variant_fn fn, struct lab_error *err)
{
	struct variant extra[16];
	size_t nextra = 0, i, k;
	char val[32];
	int rc;

	for (i = 0; i < nknown; i++) {
		struct variant v = {.key = key};

		snprintf(v.value, sizeof(v.value), "%s", known[i].value);
		snprintf(v.label, sizeof(v.label), "%s", known[i].label);
		if ((rc = fn(c, &v, err)) < 0)
			return rc;
	}
	for (i = 0; i < c->nfeed; i++) {
		if (!variant_of(c->feed[i]->run, key, val, sizeof(val)))
			continue;
		for (k = 0; k < nknown && strcmp(known[k].value, val) != 0; k++)
			;
		if (k < nknown)
			continue;
		for (k = 0; k < nextra && strcmp(extra[k].value, val) != 0; k++)
			;
		if (k < nextra || nextra == 16)
			continue;
		extra[nextra].key = key;
		snprintf(extra[nextra].value, sizeof(extra[0].value), "%s", val);
		snprintf(extra[nextra].label, sizeof(extra[0].label), "%s=%s", key, val);
		nextra++;
	}
	for (i = 0; i < nextra; i++)
		if ((rc = fn(c, &extra[i], err)) < 0)
			return rc;
	return 0;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct qty q_rss = {"Region Rss", "counters.region.rss_kb", 0, "kB", "region_rss_kb"};
static const struct qty q_lazy = {"LazyFree", "counters.region.lazyfree_kb", 0, "kB", "lazyfree_kb"};
static const struct qty q_vmrss = {"VmRSS", "counters.vmrss_kb", 0, "kB", "vmrss_kb"};
static const struct qty q_current = {"memory.current", "memcg.usage_bytes", 1024, "kB", "memory_current_kb"};

static const struct vchoice thp_choices[] = {{"off", "THP off"}, {"on", "THP on"}};

/* 1. probe */
static int build_probe(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "After MADV_FREE", .what = "LazyFree, smaps_rollup (advise step)",
		 .sel = "advise", .path = "counters.rollup.lazyfree_kb", .unit = "kB", .ref = "lazyfree_kb"},
		{.row = "After MADV_FREE", .what = "LazyFree, median of the series",
		 .sel = "series", .path = "counters.series_kb[median]", .unit = "kB", .ref = "lazyfree_kb"},
		/* After `drain` every CPU's lazyfree batch is flushed
		 * (workloads/region.c): the settled value. */
		{.row = "After a drain of the per-CPU batches", .what = "LazyFree, median of the series",
		 .sel = "series#2", .path = "counters.series_kb[median]", .unit = "kB", .ref = "lazyfree_kb"},
		{.row = "Region", .what = "Size", .sel = "first", .path = "counters.region.size_kb",
		 .div = 1024, .unit = "MiB", .ref = "region_mib"},
	};

	return add_figs(c, figs, N(figs), NULL, err);
}

/* 2. counters */
static int build_counters(struct tctx *c, struct lab_error *err)
{
	static const struct stage st[] = {
		{"Touched (0xA5)", "fill", "touched"},
		{"After MADV_FREE", "advise", "after_madv_free"},
	};
	const struct qty q[] = {q_rss, q_lazy, q_vmrss, q_current};
	static const struct fig figs[] = {
		{.row = "mincore", .what = "Resident before MADV_FREE", .sel = "fill",
		 .path = "counters.resident_pages", .unit = "pages", .ref = "mincore.resident_before_pages"},
		{.row = "mincore", .what = "Resident after MADV_FREE", .sel = "mincore|advise",
		 .path = "counters.resident_pages", .unit = "pages", .ref = "mincore.resident_after_pages"},
		{.row = "mincore", .what = "Region pages", .sel = "fill",
		 .path = "counters.region_pages", .unit = "pages", .ref = "mincore.region_pages"},
	};
	int rc;

	if ((rc = add_grid(c, st, N(st), q, N(q), NULL, err)) < 0 ||
	    (rc = add_figs(c, figs, N(figs), NULL, err)) < 0)
		return rc;
	return add_baseline(c, NULL, err);
}

/* 3. series: as many reading rows as the longest series reported. */
static int build_series(struct tctx *c, struct lab_error *err)
{
	static const struct fig tail[] = {
		{.row = "Series", .what = "Median", .sel = "series",
		 .path = "counters.series_kb[median]", .unit = "kB", .ref = "median_kb"},
		{.row = "Series", .what = "Last reading", .sel = "series",
		 .path = "counters.series_kb[last]", .unit = "kB", .ref = "settles_at_kb"},
	};
	size_t i, nread = 0;
	int rc;

	for (i = 0; i < c->nfeed; i++) {
		const json_t *s = select_step(c->feed[i], "series");
		size_t n = json_array_size(json_object_get(json_object_get(s, "counters"), "series_kb"));

		nread = n > nread ? n : nread;
	}
	for (i = 0; i < nread; i++) {
		char row[32], path[64];
		struct fig f = {.row = row, .what = "LazyFree", .sel = "series", .path = path,
				.unit = "kB", .ref = i == 0 ? "first_readings_kb" : NULL};

		snprintf(row, sizeof(row), "Reading %zu", i + 1);
		snprintf(path, sizeof(path), "counters.series_kb[%zu]", i);
		if ((rc = add_fig(c, &f, NULL, err)) < 0)
			return rc;
	}
	return add_figs(c, tail, N(tail), NULL, err);
}

/* 4. readback */
static int build_readback(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "First page", .what = "Bytes still 0xA5", .sel = "readback",
		 .path = "counters.match_bytes", .unit = "bytes", .ref = "match_bytes"},
		{.row = "First page", .what = "Bytes compared", .sel = "readback",
		 .path = "counters.compared_bytes", .unit = "bytes", .ref = "compared_bytes"},
	};

	return add_figs(c, figs, N(figs), NULL, err);
}

/* 5. pressure */
static int build_pressure(struct tctx *c, struct lab_error *err)
{
	static const struct stage st[] = {
		{"Before pressure", "mincore<pressure", "before"},
		{"After pressure", "pressure", "after"},
	};
	const struct qty q[] = {q_rss, q_lazy, q_current};
	static const struct fig figs[] = {
		{.row = "After the scan", .what = "Region Rss", .sel = "scan",
		 .path = "counters.region.rss_kb", .unit = "kB", .ref = "after_scan.region_rss_kb"},
		{.row = "mincore after pressure", .what = "Pages stayed resident", .sel = "pressure",
		 .path = "counters.resident_pages", .unit = "pages", .ref = "mincore.stayed_pages"},
		{.row = "mincore after pressure", .what = "Pages reclaimed", .get = get_diff,
		 .sel = "pressure", .path = "counters.region_pages", .sel2 = "pressure",
		 .path2 = "counters.resident_pages", .unit = "pages", .ref = "mincore.reclaimed_pages"},
		{.row = "mincore after pressure", .what = "Pages stayed, run by run", .kind = K_LIST,
		 .sel = "pressure", .path = "counters.resident_pages", .unit = "pages"},
		{.row = "mincore after pressure", .what = "Pages reclaimed, run by run", .kind = K_LIST,
		 .get = get_diff, .sel = "pressure", .path = "counters.region_pages", .sel2 = "pressure",
		 .path2 = "counters.resident_pages", .unit = "pages"},
		{.row = "mincore after pressure", .what = "Reclaimed, run by run", .kind = K_LIST,
		 .get = get_reclaimed_mib, .sel = "pressure", .unit = "MiB",
		 .ref = "mincore.reclaimed_mib_per_run"},
		{.row = "mincore after pressure", .what = "Reclaimed, median", .get = get_reclaimed_mib,
		 .sel = "pressure", .unit = "MiB", .ref = "mincore.reclaimed_mib"},
		{.row = "Scan", .what = "Pages still 0xA5", .sel = "scan", .path = "counters.scan.pattern",
		 .unit = "pages", .ref = "scan.pattern_pages"},
		{.row = "Scan", .what = "Pages zero-filled", .sel = "scan", .path = "counters.scan.zero",
		 .unit = "pages", .ref = "scan.zero_pages"},
		{.row = "Scan", .what = "Pages 0x5A (written)", .sel = "scan", .path = "counters.scan.written",
		 .unit = "pages", .ref = "scan.written_pages"},
		{.row = "Scan", .what = "Pages with other bytes", .sel = "scan", .path = "counters.scan.other",
		 .unit = "pages", .ref = "scan.other_pages"},
	};
	int rc;

	if ((rc = add_grid(c, st, N(st), q, N(q), NULL, err)) < 0 ||
	    (rc = add_figs(c, figs, N(figs), NULL, err)) < 0)
		return rc;
	return add_baseline(c, NULL, err);
}

/* 6. thp-write */
static int thp_write_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "LazyFree before the write (median of the series)", .sel = "series#1",
		 .path = "counters.series_kb[median]", .unit = "kB", .ref = "before_kb"},
		{.what = "LazyFree after a 4 KiB write (median of the series)", .sel = "series#2",
		 .path = "counters.series_kb[median]", .unit = "kB", .ref = "after_kb"},
		{.what = "Difference", .get = get_diff, .sel = "series#1",
		 .path = "counters.series_kb[median]", .sel2 = "series#2",
		 .path2 = "counters.series_kb[median]", .unit = "kB", .ref = "difference_kb"},
		{.what = "AnonHugePages after the fill, run by run", .kind = K_LIST, .sel = "fill",
		 .path = "counters.region.anonhuge_kb", .unit = "kB", .ref = "anonhugepages_kb_per_run"},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static int build_thp_write(struct tctx *c, struct lab_error *err)
{
	return for_variants(c, "thp", thp_choices, N(thp_choices), thp_write_variant, err);
}

/* 7. thp-reclaim: the article's table is one row per run; here one row per
 * quantity, the runs listed in repeat order. */
static int build_thp_reclaim(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "Touched (0xA5)", .what = "Starting AnonHugePages", .kind = K_LIST, .sel = "fill",
		 .path = "counters.region.anonhuge_kb", .unit = "kB", .ref = "starting_anonhugepages_kb"},
		{.row = "After pressure", .what = "Rss", .kind = K_LIST, .sel = "pressure",
		 .path = "counters.region.rss_kb", .unit = "kB", .ref = "rss_after_pressure_kb"},
		{.row = "After pressure", .what = "Difference (Rss − starting AnonHugePages)", .kind = K_LIST,
		 .get = get_diff, .sel = "pressure", .path = "counters.region.rss_kb", .sel2 = "fill",
		 .path2 = "counters.region.anonhuge_kb", .unit = "kB", .ref = "difference_kb"},
		{.row = "After pressure", .what = "Reclaimed (region − Rss)", .kind = K_LIST,
		 .get = get_diff, .sel = "pressure", .path = "counters.region.size_kb", .sel2 = "pressure",
		 .path2 = "counters.region.rss_kb", .div = 1024, .floor = true, .unit = "MiB",
		 .ref = "reclaimed_mib_per_run"},
		{.row = "After pressure", .what = "AnonHugePages", .kind = K_LIST, .sel = "pressure",
		 .path = "counters.region.anonhuge_kb", .unit = "kB"},
		{.row = "After pressure", .what = "LazyFree", .kind = K_LIST, .sel = "pressure",
		 .path = "counters.region.lazyfree_kb", .unit = "kB"},
	};
	int rc;

	table_note(c->t, "each cell lists the runs in repeat order (the article's rows Run 1, 2, 3); "
		   "with THP off the article reclaimed 334 / 334 / 335 MiB (table pressure)");
	if ((rc = add_figs(c, figs, N(figs), NULL, err)) < 0)
		return rc;
	return add_baseline(c, NULL, err);
}

/* 8. pressure-800 */
static int pressure800_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "Outcome", .kind = K_COUNT, .label = label_outcome, .ref = "result"},
		{.what = "Reclaimed, run by run (survivors)", .kind = K_LIST, .get = get_reclaimed_mib,
		 .sel = "pressure", .unit = "MiB", .ref = "reclaimed_mib_per_run"},
	};
	int rc;

	if ((rc = add_figs(c, figs, N(figs), v, err)) < 0)
		return rc;
	return add_baseline(c, v, err);
}

static int build_pressure800(struct tctx *c, struct lab_error *err)
{
	static const struct vchoice on_off[] = {{"on", "THP on"}, {"off", "THP off"}};

	return for_variants(c, "thp", on_off, N(on_off), pressure800_variant, err);
}

/* 9. three-paths */
static int three_paths_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct stage st[] = {{"Before pressure", "mincore<pressure", NULL}};
	const struct qty q[] = {q_rss, q_current};
	static const struct fig outcome = {
		.row = "Under pressure", .what = "Outcome", .kind = K_COUNT, .label = label_outcome,
		.ref = "under_pressure",
	};
	static const struct fig readable = {
		.row = "Data", .what = "Pages read back as 0xA5", .sel = "scan",
		.path = "counters.scan.pattern", .unit = "pages readable", .ref = "data_pages",
	};
	static const struct fig zeroed = {
		.row = "Data", .what = "Pages read back as zero", .sel = "scan",
		.path = "counters.scan.zero", .unit = "pages zeroed", .ref = "data_pages",
	};
	int rc;

	if ((rc = add_grid(c, st, N(st), q, N(q), v, err)) < 0 ||
	    (rc = add_fig(c, &outcome, v, err)) < 0 ||
	    (rc = add_fig(c, strcmp(v->value, "dontneed") == 0 ? &zeroed : &readable, v, err)) < 0)
		return rc;
	return add_baseline(c, v, err);
}

static int build_three_paths(struct tctx *c, struct lab_error *err)
{
	static const struct vchoice advice[] = {
		{"none", "no call at all"}, {"free", "MADV_FREE"}, {"dontneed", "MADV_DONTNEED"},
	};

	return for_variants(c, "advice", advice, N(advice), three_paths_variant, err);
}

/* 10. memcg-counters */
static int memcg_counters_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "pglazyfree after the advise step", .get = get_lazy, .sel = "advise",
		 .path = "pglazyfree", .ref = "pglazyfree"},
		{.what = "pglazyfreed after pressure (the last sample when killed during it)",
		 .get = get_lazy, .sel = "pressure|sample:last", .path = "pglazyfreed", .ref = "pglazyfreed"},
		{.what = "Outcome", .kind = K_COUNT, .label = label_outcome},
		{.what = "Source of pglazyfree", .kind = K_TEXT, .text = text_lazy_source, .sel = "advise",
		 .path = "pglazyfree", .ref = "/tables.memcg-counters.source"},
		{.what = "Source of pglazyfreed", .kind = K_TEXT, .text = text_lazy_source,
		 .sel = "pressure|sample:last", .path = "pglazyfreed", .ref = "/tables.memcg-counters.source"},
	};
	int rc;

	if ((rc = add_figs(c, figs, N(figs), v, err)) < 0)
		return rc;
	return add_baseline(c, v, err);
}

static int build_memcg_counters(struct tctx *c, struct lab_error *err)
{
	static const struct vchoice advice[] = {{"free", "MADV_FREE"}, {"none", "no call at all"}};
	size_t i;

	for (i = 0; i < c->t->ncols; i++)
		if (strcmp(c->rep->cols[c->t->cols[i]].cgroup, "v1") == 0) {
			table_note(c->t, "cgroup v1's memory.stat has no pglazyfree/pglazyfreed: v1 "
				   "columns read the machine-wide /proc/vmstat delta over the run, "
				   "which counts every process on the host, not only the sandbox");
			break;
		}
	return for_variants(c, "advice", advice, N(advice), memcg_counters_variant, err);
}

/* 11. reclaim */
static int build_reclaim(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "memory.reclaim", .what = "Asked", .sel = "action:reclaim", .path = "bytes",
		 .div = 1024, .unit = "kB"},
		{.row = "memory.reclaim", .what = "Answer", .kind = K_COUNT, .label = label_field,
		 .sel = "action:reclaim", .path = "result"},
		{.row = "memory.reclaim", .what = "memory.current before", .sel = "action:reclaim",
		 .path = "usage_before_bytes", .div = 1024, .unit = "kB"},
		{.row = "memory.reclaim", .what = "memory.current after", .sel = "action:reclaim",
		 .path = "usage_after_bytes", .div = 1024, .unit = "kB"},
		{.row = "memory.reclaim", .what = "Freed", .get = get_diff, .sel = "action:reclaim",
		 .path = "usage_before_bytes", .sel2 = "action:reclaim", .path2 = "usage_after_bytes",
		 .div = 1024, .unit = "kB"},
		{.row = "mincore after", .what = "Region pages resident", .sel = "mincore",
		 .path = "counters.resident_pages", .unit = "pages"},
		{.row = "mincore after", .what = "LazyFree", .sel = "mincore",
		 .path = "counters.region.lazyfree_kb", .unit = "kB"},
	};
	struct table *t = c->t;
	size_t i, k, v1 = 0;
	int rc;

	if ((rc = add_figs(c, figs, N(figs), NULL, err)) < 0 || (rc = add_baseline(c, NULL, err)) < 0)
		return rc;
	/* No memory.reclaim on v1: say so instead of printing its absence as data. */
	for (i = 0; i < t->ncols; i++) {
		if (strcmp(c->rep->cols[t->cols[i]].cgroup, "v1") != 0)
			continue;
		v1++;
		for (k = 0; k < t->nrows; k++) {
			cell_free(&t->rows[k].cells[i]);
			snprintf(t->rows[k].cells[i].text, sizeof(t->rows[k].cells[i].text),
				 "needs cgroup v2 (memory.reclaim)");
		}
	}
	if (v1 > 0)
		table_note(t, "needs cgroup v2 (memory.reclaim): cgroup v1 has no proactive reclaim file");
	return 0;
}

/* 12. host-scan */
static int build_host_scan(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "Host", .what = "Processes scanned", .sel = "scan-host",
		 .path = "counters.processes", .ref = "processes"},
		{.row = "Host", .what = "smaps_rollup unreadable", .sel = "scan-host",
		 .path = "counters.unreadable"},
		{.row = "Host", .what = "With LazyFree > 0", .sel = "scan-host",
		 .path = "counters.with_lazyfree", .ref = "with_lazyfree"},
		{.row = "Host", .what = "With LazyFree > 0, control excluded", .get = get_scan_others,
		 .sel = "scan-host", .ref = "with_lazyfree"},
		{.row = "Host", .what = "LazyFree, all processes", .sel = "scan-host",
		 .path = "counters.lazyfree_total_kb", .unit = "kB"},
		{.row = "Host", .what = "Largest holders besides the control", .kind = K_TEXT,
		 .text = text_top_others, .sel = "scan-host"},
		{.row = "Positive control", .what = "The control's LazyFree as scanned",
		 .get = get_control_lazyfree, .sel = "scan-host", .unit = "kB"},
	};

	table_note(c->t, "the control is a region workload holding 64 MiB after MADV_FREE while the "
		   "scan runs: when the scan sees it (last row), a 0 in \"control excluded\" is a "
		   "real negative, not a blind probe");
	return add_figs(c, figs, N(figs), NULL, err);
}

/* ------------------------------------- the watermark and min_free_kbytes articles
 *
 * M. Erbay, "The 66 MiB Nobody Wrote Down" (results/reference/watermarks.json) and
 * AndreyEx's min_free_kbytes article (results/reference/min-free.json).  These
 * figures are machine-wide: /proc/vmstat deltas over a window, the zones' lines and
 * free pages from the samples, and the kernel log's OOM reports (runs[].kmsg).
 */

/* Every zone's allocstall counter (mm/vmstat.c: allocstall_<zone>). */
#define ALLOCSTALL_ALL "allocstall_dma+allocstall_dma32+allocstall_normal+allocstall_movable+allocstall_device"

/* Sum of "a+b+c" keys of a vmstat_delta object; a key absent did not change. */
static bool vm_sum(const json_t *obj, const char *keys, double *out)
{
	const json_t *d = json_object_get(obj, "vmstat_delta");
	char buf[160], *save = NULL, *k;
	double sum = 0, v;

	if (!json_is_object(d) || (size_t)snprintf(buf, sizeof(buf), "%s", keys) >= sizeof(buf))
		return false;
	for (k = strtok_r(buf, "+", &save); k != NULL; k = strtok_r(NULL, "+", &save))
		if (json_num(json_object_get(d, k), &v))
			sum += v;
	*out = sum;
	return true;
}

/* f->path's /proc/vmstat keys, from the step f->sel (the window's start; NULL:
 * the run's start) to the run's last sample (after the workloads ended). */
static bool get_vm_window(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *samples = json_object_get(r->run, "samples");
	const json_t *end = json_array_get(samples, json_array_size(samples) - 1);
	const json_t *start = f->sel != NULL ? select_step(r, f->sel) : NULL;
	double a, b = 0;

	if (end == NULL || !vm_sum(end, f->path, &a) || (f->sel != NULL && (start == NULL || !vm_sum(start, f->path, &b))))
		return false;
	*out = scaled(f, a - b);
	return true;
}

/* A zone's field in one sample: path "Normal.free" (node 0). */
/* Node 0's zone named by path's first part ("Normal.free" -> Normal) in an
 * array of zones (a sample's, or an OOM report's); *field is the rest. */
static const json_t *zone_of(const json_t *zones, const char *path, const char **field)
{
	const char *dot = strchr(path, '.');
	size_t i;

	for (i = 0; dot != NULL && i < json_array_size(zones); i++) {
		const json_t *z = json_array_get(zones, i);
		const char *name = str_or(json_object_get(z, "zone"), "");

		if (strlen(name) == (size_t)(dot - path) && strncmp(name, path, (size_t)(dot - path)) == 0 &&
		    json_integer_value(json_object_get(z, "node")) == 0) {
			*field = dot + 1;
			return z;
		}
	}
	return NULL;
}

static bool zone_field(const json_t *sample, const char *path, double *out)
{
	const char *field;
	const json_t *z = zone_of(json_object_get(sample, "zones"), path, &field);

	return z != NULL && json_num(json_object_get(z, field), out);
}

/* The samples from the step f->sel on (NULL: all). */
static double window_t0(const struct runref *r, const struct fig *f, bool *ok)
{
	const json_t *s = f->sel != NULL ? select_step(r, f->sel) : NULL;
	double t = 0;

	*ok = f->sel == NULL || (s != NULL && json_num(json_object_get(s, "t_ms"), &t));
	return t;
}

/* The lowest value of a zone field over the window (the article's "lowest
 * Normal free": the lowest sampled, the real trough may be deeper). */
static bool get_zone_lowest(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *samples = json_object_get(r->run, "samples");
	bool ok, any = false;
	double t0 = window_t0(r, f, &ok), t, v;
	size_t i;

	for (i = 0; ok && i < json_array_size(samples); i++) {
		const json_t *s = json_array_get(samples, i);

		if (!json_num(json_object_get(s, "t_ms"), &t) || t < t0 || !zone_field(s, f->path, &v))
			continue;
		if (!any || v < *out)
			*out = v;
		any = true;
	}
	return any;
}

/* The first sample of the window: a zone field (path "Normal.low") or, for a
 * path without a zone ("meminfo.MemAvailable"), any number in the sample. */
static bool get_sample_first(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *samples = json_object_get(r->run, "samples");
	bool ok;
	double t0 = window_t0(r, f, &ok), t, v;
	size_t i;

	for (i = 0; ok && i < json_array_size(samples); i++) {
		const json_t *s = json_array_get(samples, i);

		if (!json_num(json_object_get(s, "t_ms"), &t) || t < t0)
			continue;
		if (strncmp(f->path, "meminfo.", 8) == 0 ? !path_num(s, f->path, &v) : !zone_field(s, f->path, &v))
			return false;
		*out = scaled(f, v);
		return true;
	}
	return false;
}

/* The load's pace as achieved: MiB allocated over the time from its first
 * step to the step at its target (under TCG a step takes longer than the
 * article's 50 ms pause). */
static bool get_pace_achieved(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *steps = json_object_get(r->run, "steps");
	const json_t *first = NULL, *target = NULL;
	double t1, t2, b1, b2;
	size_t i;

	(void)f;
	for (i = 0; i < json_array_size(steps); i++) {
		const json_t *s = json_array_get(steps, i);

		if (!step_is(s, "load", NULL))
			continue;
		if (first == NULL && step_is(s, "load", "alloc"))
			first = s;
		if (step_is(s, "load", "target"))
			target = s;
	}
	if (first == NULL || target == NULL || !json_num(json_object_get(first, "t_ms"), &t1) ||
	    !json_num(json_object_get(target, "t_ms"), &t2) ||
	    !path_num(first, "counters.allocated_bytes", &b1) || !path_num(target, "counters.allocated_bytes", &b2) ||
	    t2 <= t1)
		return false;
	*out = floor_of((b2 - b1) / 1048576.0 / ((t2 - t1) / 1000.0));
	return true;
}

static const json_t *oom_kill_at(const struct runref *r, size_t k)
{
	return json_array_get(json_object_get(json_object_get(r->run, "kmsg"), "oom_kills"), k);
}

static bool get_oom_kills(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *k = json_object_get(r->run, "kmsg");

	(void)f;
	if (!json_is_array(json_object_get(k, "oom_kills")))
		return false;
	*out = (double)json_array_size(json_object_get(k, "oom_kills"));
	return true;
}

/* Milliseconds between the first and the second OOM kill (kernel log times). */
static bool get_kill_gap_ms(const struct runref *r, const struct fig *f, double *out)
{
	double a, b;

	(void)f;
	if (!json_num(json_object_get(oom_kill_at(r, 0), "t_s"), &a) ||
	    !json_num(json_object_get(oom_kill_at(r, 1), "t_s"), &b))
		return false;
	*out = floor_of((b - a) * 1000.0 + 0.5);
	return true;
}

/* The first kill's report, the zone line "Normal.free_kb"; "Normal.under_kb"
 * is min - free (positive: free was under min). */
static bool get_kill_zone(const struct runref *r, const struct fig *f, double *out)
{
	const char *field;
	const json_t *z = zone_of(json_object_get(oom_kill_at(r, 0), "zones"), f->path, &field);
	double fr, mn;

	if (z == NULL)
		return false;
	if (strcmp(field, "under_kb") != 0)
		return json_num(json_object_get(z, field), out);
	if (!json_num(json_object_get(z, "free_kb"), &fr) || !json_num(json_object_get(z, "min_kb"), &mn))
		return false;
	*out = mn - fr;
	return true;
}

/* Records of the run's kernel log holding f->path. */
static bool get_kmsg_count(const struct runref *r, const struct fig *f, double *out)
{
	const json_t *k = json_object_get(r->run, "kmsg");
	const json_t *recs = json_object_get(k, "records");
	size_t i, n = 0;

	if (!json_is_true(json_object_get(k, "readable")))
		return false;
	for (i = 0; i < json_array_size(recs); i++)
		n += strstr(str_or(json_object_get(json_array_get(recs, i), "text"), ""), f->path) != NULL;
	*out = (double)n;
	return true;
}

/* "stepper (adj 1000, shmem 3,763,072 kB); then hold (adj 0) +91 ms". */
static void text_victims(const struct runref *const *runs, size_t n, const struct fig *f, char *buf, size_t len)
{
	(void)f;
	snprintf(buf, len, "%s", MISSING);
	for (size_t i = 0; i < n; i++) {
		const json_t *kills = json_object_get(json_object_get(runs[i]->run, "kmsg"), "oom_kills");
		double t0 = 0, t = 0, shm;

		if (!json_is_array(kills))
			continue;
		if (json_array_size(kills) == 0) {
			snprintf(buf, len, "no OOM kill");
			return;
		}
		buf[0] = '\0';
		for (size_t k = 0; k < json_array_size(kills) && k < 4; k++) {
			const json_t *e = json_array_get(kills, k);
			char num[32];

			json_num(json_object_get(e, "t_s"), &t);
			if (k == 0)
				t0 = t;
			bufcat(buf, len, "%s%s (adj %lld", k ? "; then " : "", str_or(json_object_get(e, "comm"), "?"),
			       (long long)json_integer_value(json_object_get(e, "oom_score_adj")));
			if (json_num(json_object_get(e, "shmem_rss_kb"), &shm) && shm > 0) {
				fmt_num(shm, true, num, sizeof(num));
				bufcat(buf, len, ", shmem-rss %s kB", num);
			}
			bufcat(buf, len, ")");
			if (k > 0)
				bufcat(buf, len, " +%.0f ms", (t - t0) * 1000.0);
		}
		if (n > 1)
			bufcat(buf, len, " [first of %zu runs]", n);
		return;
	}
}

/* Every workload's fate: "w1 passed, w2 OOM-killed, w3 stopped": a
 * worker that reported its `target` step and was not OOM-killed passed, even
 * when the harness stopped it in its hold (the main workload ended first). */
static void label_fates(const struct runref *r, const struct fig *f, char *buf, size_t len)
{
	const json_t *ws = json_object_get(json_object_get(r->run, "exit"), "workloads");
	const json_t *steps = json_object_get(r->run, "steps");
	size_t i, k;

	(void)f;
	buf[0] = '\0';
	for (i = 0; i < json_array_size(ws); i++) {
		const json_t *w = json_array_get(ws, i);
		const char *name = str_or(json_object_get(w, "name"), "?");
		bool target = false;

		for (k = 0; k < json_array_size(steps) && !target; k++)
			target = step_is(json_array_get(steps, k), name, "target");
		bufcat(buf, len, "%s%s %s", i ? ", " : "", name,
		       json_is_true(json_object_get(w, "oom_killed")) ? "OOM-killed"
		       : target ? "passed" : str_or(json_object_get(w, "fate"), "?"));
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "%s", MISSING);
}

/* The article's runs by what they were (pace, scale), not by label: a run of
 * two of them (--set pace=128M/0) still lands in the right rows. */
static const struct vchoice kswapd_runs[] = {
	{"64M/50,10", "A · scale 10, 64 MiB/50 ms"}, {"64M/50,500", "B · scale 500, 64 MiB/50 ms"},
	{"128M/0,10", "C · scale 10, 128 MiB/0 ms"}, {"128M/0,500", "D · scale 500, 128 MiB/0 ms"},
};

/* 15. kswapd runs A-D: the window is the load, from the cache's read to the end. */
static int kswapd_run_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "kswapd scan (pgscan_kswapd)", .get = get_vm_window, .sel = "read", .path = "pgscan_kswapd",
		 .unit = "pages", .ref = "kswapd_scan"},
		{.what = "direct scan (pgscan_direct)", .get = get_vm_window, .sel = "read", .path = "pgscan_direct",
		 .unit = "pages", .ref = "direct_scan"},
		{.what = "allocstall (all zones)", .get = get_vm_window, .sel = "read",
		 .path = ALLOCSTALL_ALL,
		 .ref = "allocstall"},
		{.what = "kswapd_low_wmark_hit_quickly", .get = get_vm_window, .sel = "read",
		 .path = "kswapd_low_wmark_hit_quickly", .ref = "low_wmark_hit_quickly"},
		{.what = "kswapd_high_wmark_hit_quickly", .get = get_vm_window, .sel = "read",
		 .path = "kswapd_high_wmark_hit_quickly", .ref = "high_wmark_hit_quickly"},
		{.what = "swap-out (pswpout)", .get = get_vm_window, .sel = "read", .path = "pswpout", .unit = "pages",
		 .ref = "swap_out"},
		{.what = "lowest Normal free (sampled)", .get = get_zone_lowest, .sel = "read", .path = "Normal.free",
		 .unit = "pages", .ref = "lowest_normal_free"},
		{.what = "Normal low line", .get = get_sample_first, .sel = "read", .path = "Normal.low", .unit = "pages",
		 .ref = "normal_low"},
		{.what = "Normal min line", .get = get_sample_first, .sel = "read", .path = "Normal.min", .unit = "pages",
		 .ref = "normal_min"},
		{.what = "load pace achieved", .get = get_pace_achieved, .unit = "MiB/s", .ref = "pace_mib_s"},
		{.what = "the load's outcome", .kind = K_COUNT, .label = label_outcome},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static int build_kswapd_runs(struct tctx *c, struct lab_error *err)
{
	int rc = for_variants(c, "pace,wsf", kswapd_runs, N(kswapd_runs), kswapd_run_variant, err);

	table_note(c->t, "counters are /proc/vmstat deltas from the cache's read (the load's start) to the run's "
		   "end; free and the lines are node 0's Normal zone, sampled every interval_ms (the trough may "
		   "be deeper than sampled)");
	return rc;
}

/* 16. run five */
static int build_run_five(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "After the knob", .what = "Normal min", .get = get_sample_first, .path = "Normal.min",
		 .unit = "pages", .ref = "normal_min"},
		{.row = "After the knob", .what = "Normal low", .get = get_sample_first, .path = "Normal.low",
		 .unit = "pages", .ref = "normal_low"},
		{.row = "After the knob", .what = "Normal high", .get = get_sample_first, .path = "Normal.high",
		 .unit = "pages", .ref = "normal_high"},
		{.row = "Before the load", .what = "MemFree", .get = get_sample_first, .sel = "hold",
		 .path = "meminfo.MemFree", .unit = "kB", .ref = "memfree_kb"},
		{.row = "Before the load", .what = "MemAvailable", .get = get_sample_first, .sel = "hold",
		 .path = "meminfo.MemAvailable", .unit = "kB", .ref = "memavailable_kb"},
		{.row = "The load", .what = "outcome", .kind = K_COUNT, .label = label_outcome, .ref = "outcome"},
		{.row = "First OOM report", .what = "Normal free", .get = get_kill_zone, .path = "Normal.free_kb",
		 .unit = "kB", .ref = "kill_normal_free_kb"},
		{.row = "First OOM report", .what = "Normal min", .get = get_kill_zone, .path = "Normal.min_kb",
		 .unit = "kB", .ref = "kill_normal_min_kb"},
		{.row = "First OOM report", .what = "Normal free under min", .get = get_kill_zone,
		 .path = "Normal.under_kb", .unit = "kB", .ref = "kill_under_min_kb"},
		{.row = "OOM kills", .what = "kills in the kernel log", .get = get_oom_kills, .ref = "oom_kills"},
		{.row = "OOM kills", .what = "victims, in order", .kind = K_TEXT, .text = text_victims, .ref = "victims"},
		{.row = "OOM kills", .what = "first to second kill", .get = get_kill_gap_ms, .unit = "ms",
		 .ref = "second_kill_ms"},
	};

	return add_figs(c, figs, N(figs), NULL, err);
}

/* 17. too little */
static int build_too_little(struct tctx *c, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.row = "After the knob", .what = "Normal min", .get = get_sample_first, .path = "Normal.min",
		 .unit = "pages", .ref = "normal_min"},
		{.row = "After the knob", .what = "DMA32 min", .get = get_sample_first, .path = "DMA32.min",
		 .unit = "pages", .ref = "dma32_min"},
		{.row = "After the knob", .what = "DMA min", .get = get_sample_first, .path = "DMA.min", .unit = "pages",
		 .ref = "dma_min"},
		{.row = "Under the load", .what = "lowest Normal free", .get = get_zone_lowest, .path = "Normal.free",
		 .unit = "pages"},
		{.row = "Under the load", .what = "allocstall", .get = get_vm_window,
		 .path = ALLOCSTALL_ALL},
		{.row = "Under the load", .what = "\"page allocation failure\" lines", .get = get_kmsg_count,
		 .path = "page allocation failure", .ref = "allocation_failures"},
		{.row = "Under the load", .what = "outcome", .kind = K_COUNT, .label = label_outcome},
	};

	return add_figs(c, figs, N(figs), NULL, err);
}

/* 13. who sets it: min_free_kbytes after the knobs, per variant. */
static int who_sets_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "min_free_kbytes after the knobs", .path = "knobs.min_free_kbytes_after", .unit = "kB",
		 .ref = "min_free_kbytes"},
		{.what = "\"not updated ... user defined value\" lines", .get = get_kmsg_count,
		 .path = "is not updated to", .ref = "not_updated_lines"},
		{.what = "\"raising min_free_kbytes\" lines", .get = get_kmsg_count, .path = "raising min_free_kbytes",
		 .ref = "raising_lines"},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static int build_who_sets(struct tctx *c, struct lab_error *err)
{
	static const struct vchoice thp[] = {{"madvise", "THP madvise"}, {"never", "THP never"}};

	return for_variants(c, "thp", thp, N(thp), who_sets_variant, err);
}

static int build_deference(struct tctx *c, struct lab_error *err)
{
	static const struct vchoice user[] = {{"45056", "user 45056, THP never"}, {"128", "user 128, THP never"}};

	return for_variants(c, "user", user, N(user), who_sets_variant, err);
}

/* 14. the lines at several scale factors */
static int lines_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "Normal min", .get = get_sample_first, .path = "Normal.min", .unit = "pages"},
		{.what = "Normal low", .get = get_sample_first, .path = "Normal.low", .unit = "pages"},
		{.what = "Normal high", .get = get_sample_first, .path = "Normal.high", .unit = "pages"},
		{.what = "Normal managed", .get = get_sample_first, .path = "Normal.managed", .unit = "pages"},
		{.what = "MemAvailable", .get = get_sample_first, .path = "meminfo.MemAvailable", .unit = "kB"},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static int build_lines(struct tctx *c, struct lab_error *err)
{
	static const struct vchoice wsf[] = {{"10", "scale 10"}, {"50", "scale 50"}, {"200", "scale 200"},
					     {"500", "scale 500"}};
	int rc = for_variants(c, "wsf", wsf, N(wsf), lines_variant, err);

	table_note(c->t, "the article's VPS3 (96 GB) Normal zone: 16,374 / 40,320 / 64,266 at scale 10 (gap = "
		   "managed/1000); VPS5 (12 GB): gap = min/4; `pagelab audit` predicts every line of this host");
	return rc;
}

/* 19. MemAvailable vs MemFree under a raised reserve */
static int memavailable_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "MemFree", .get = get_sample_first, .path = "meminfo.MemFree", .div = 1024, .floor = true,
		 .unit = "MiB", .ref = "memfree_mib"},
		{.what = "MemAvailable", .get = get_sample_first, .path = "meminfo.MemAvailable", .div = 1024,
		 .floor = true, .unit = "MiB", .ref = "memavailable_mib"},
		{.what = "Normal high", .get = get_sample_first, .path = "Normal.high", .unit = "pages"},
		{.what = "DMA32 high", .get = get_sample_first, .path = "DMA32.high", .unit = "pages"},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static const struct vchoice reserve_choices[] = {{"1500000", "min_free_kbytes 1500000"},
						 {"67584", "min_free_kbytes 67584"}};

static int build_memavailable(struct tctx *c, struct lab_error *err)
{
	return for_variants(c, "reserve", reserve_choices, N(reserve_choices), memavailable_variant, err);
}

/* 20. the page cache's capacity: two reads of a 2.3 GB file */
static int cache_capacity_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "first read", .sel = "read#1", .path = "counters.work_ns", .div = 1e6, .unit = "ms"},
		{.what = "second read (the reread)", .sel = "read#2", .path = "counters.work_ns", .div = 1e6,
		 .unit = "ms", .ref = "reread_ms"},
		{.what = "cached after the reread", .sel = "read#2", .path = "counters.cached_kb", .div = 1024,
		 .floor = true, .unit = "MiB", .ref = "cached_mib"},
		{.what = "file size", .sel = "read#2", .path = "counters.file_bytes", .div = 1048576, .floor = true,
		 .unit = "MiB", .ref = "file_mib"},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static int build_cache_capacity(struct tctx *c, struct lab_error *err)
{
	return for_variants(c, "reserve", reserve_choices, N(reserve_choices), cache_capacity_variant, err);
}

/* 21. three 1 GiB workers */
static int workers_variant(struct tctx *c, const struct variant *v, struct lab_error *err)
{
	static const struct fig figs[] = {
		{.what = "the workers", .kind = K_COUNT, .label = label_fates, .ref = "outcome"},
		{.what = "OOM kills in the kernel log", .get = get_oom_kills},
		{.what = "MemAvailable at the start", .get = get_sample_first, .path = "meminfo.MemAvailable",
		 .div = 1024, .floor = true, .unit = "MiB", .ref = "memavailable_mib"},
	};

	return add_figs(c, figs, N(figs), v, err);
}

static int build_workers(struct tctx *c, struct lab_error *err)
{
	return for_variants(c, "reserve", reserve_choices, N(reserve_choices), workers_variant, err);
}

static const struct table_spec table_specs[] = {
	{"probe", "Does smaps_rollup report LazyFree?", "Step",
	 "LazyFree of a 64 MiB region right after MADV_FREE should equal the region.", build_probe, "madv-free"},
	{"counters", "No counter came down after MADV_FREE", "Step",
	 "Only LazyFree should move; Rss, VmRSS and memory.current stay, mincore stays full.",
	 build_counters, "madv-free"},
	{"series", "LazyFree read 11 times", "Reading",
	 "The first readings may lag a few kB; the median should be the whole region.", build_series, "madv-free"},
	{"readback", "The released data is still there", "Step",
	 "Every byte of the first page still 0xA5 after MADV_FREE.", build_readback, "madv-free"},
	{"pressure", "700 MiB of pressure: who left, who stayed (THP off)", "Step",
	 "How much of the region reclaim took (depends on the baseline) and that pattern + zero + written = region.",
	 build_pressure, "madv-free"},
	{"thp-write", "A 4 KiB write takes a whole folio off the lazy list", "THP",
	 "The drop in LazyFree after one 4 KiB write: 4 kB with THP off, a whole huge page with THP on.",
	 build_thp_write, "madv-free"},
	{"thp-reclaim", "With THP on only the non-huge part is reclaimed", "Step",
	 "Rss after pressure against the starting AnonHugePages, run by run.", build_thp_reclaim, "madv-free"},
	{"pressure-800", "800 MiB of pressure: same pressure, different ending", "THP",
	 "Whether the workload survives, per THP mode, and how much survivors had reclaimed.",
	 build_pressure800, "madv-free"},
	{"three-paths", "No call, MADV_FREE, MADV_DONTNEED side by side", "Behaviour",
	 "DONTNEED empties Rss and memory.current at once; FREE keeps both and survives; no call is killed.",
	 build_three_paths, "madv-free"},
	{"memcg-counters", "pglazyfree / pglazyfreed", "Advice",
	 "pglazyfree should equal the region's pages; pglazyfreed the pages reclaimed; both flat without madvise.",
	 build_memcg_counters, "madv-free"},
	{"reclaim", "Draining the pool with memory.reclaim", "Step",
	 "Whether memory.reclaim frees the lazily freed pages (the article makes a claim, not a measurement).",
	 build_reclaim, "madv-free"},
	{"host-scan", "Who holds LazyFree on a real host", "Scan",
	 "Processes with LazyFree > 0 besides the control (the article found 0 of 751).", build_host_scan, "madv-free"},
	{"who-sets", "Who sets min_free_kbytes: THP on and off", "THP",
	 "khugepaged's 67584 with THP on; the sqrt formula's value with THP never, put back silently.",
	 build_who_sets, "watermarks"},
	{"deference", "A user-written min_free_kbytes, then THP never", "Variant",
	 "The user value is a floor for the sqrt path only, with an \"is not updated\" line when it wins.",
	 build_deference, "watermarks"},
	{"lines", "The three lines at several scale factors", "Scale",
	 "low - min = high - low = max(min/4, managed x scale / 10000); min does not move with the scale.",
	 build_lines, "watermarks"},
	{"kswapd-runs", "kswapd across four runs (A-D)", "Run",
	 "Scale 500 raises the low line and removes direct reclaim; the fast pace at scale 10 stalls; "
	 "swap-out grows with the scale.", build_kswapd_runs, "watermarks"},
	{"run-five", "Run five: min_free_kbytes 2 GiB", "Stage",
	 "An OOM kill with free memory just under min; MemAvailable far below MemFree; maybe a second victim.",
	 build_run_five, "watermarks"},
	{"too-little", "What too little does: min_free_kbytes 128 kB", "Stage",
	 "The min lines fall to a few dozen pages; allocation failures possible under load.", build_too_little,
	 "watermarks"},
	{"memavailable", "MemAvailable falls, MemFree does not", "Reserve",
	 "With 1500000 kB reserved MemAvailable drops by about the high lines; MemFree stays.",
	 build_memavailable, "min-free"},
	{"cache-capacity", "A 2.3 GB file and the page cache", "Reserve",
	 "With 1.5 GB reserved the file no longer fits the cache and the reread is slow.", build_cache_capacity,
	 "min-free"},
	{"workers", "Three 1 GiB workers", "Reserve",
	 "With 1500000 kB reserved a worker fails; with 67584 all three pass.", build_workers, "min-free"},
};

static const char *spec_article(const struct table_spec *t)
{
	return t->article != NULL ? t->article : "madv-free";
}

/* --------------------------------------------------------------- inputs */

static int load_json(const char *path, const char *schema, json_t **out, struct lab_error *err)
{
	json_error_t je;
	cleanup_free char *text = NULL;
	size_t len = 0;
	const char *s;
	int ret;

	ret = lab_read_input(path, strcmp(schema, RESULT_SCHEMA) == 0 ? "result" : "reference",
			     LAB_RESULT_MAX, 0, &text, &len, err);
	if (ret < 0)
		return ret;
	*out = json_loadb(text, len, 0, &je);
	if (*out == NULL)
		return lab_error_set(err, EINVAL, "%s: not JSON: %s (line %d, column %d)", path, je.text,
				     je.line, je.column);
	s = json_string_value(json_object_get(*out, "schema"));
	if (s == NULL || strcmp(s, schema) != 0)
		return lab_error_set(err, EINVAL, "%s: not a %s document (schema: %s)", path, schema,
				     s != NULL ? s : "none");
	return 0;
}

/* The overrides that change what machine the run had, not what it ran: a
 * knob's parameter set with --set (e.g. lru_gen=0x0000) makes another column;
 * sizes (--set cache=...) do not. */
static void machine_overrides(const json_t *doc, char *buf, size_t len)
{
	const json_t *ov = json_object_get(json_object_get(doc, "scenario"), "overrides");
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < json_array_size(ov); i++) {
		const char *o = str_or(json_array_get(ov, i), "");

		if (strncmp(o, "lru_gen=", 8) == 0)
			bufcat(buf, len, "%s%s", buf[0] ? ", " : "", o);
	}
}

static size_t column_of(struct report *rep, const json_t *doc)
{
	const json_t *host = json_object_get(doc, "host");
	const char *kernel = str_or(json_object_get(host, "kernel"), "unknown kernel");
	const char *cg = str_or(json_object_get(json_object_get(host, "cgroup"), "memory"), "?");
	bool guest = json_is_true(json_object_get(host, "in_vm_guest"));
	char knobs[96];
	struct column *c;
	size_t i;

	machine_overrides(doc, knobs, sizeof(knobs));
	for (i = 0; i < rep->ncols; i++)
		if (strcmp(rep->cols[i].kernel, kernel) == 0 && strcmp(rep->cols[i].cgroup, cg) == 0 &&
		    strcmp(rep->cols[i].knobs, knobs) == 0)
			return i;
	c = &rep->cols[rep->ncols];
	c->kernel = kernel;
	c->cgroup = cg;
	c->guest = guest;
	snprintf(c->knobs, sizeof(c->knobs), "%s", knobs);
	snprintf(c->label, sizeof(c->label), "%s · cgroup %s%s%s%s", kernel, cg, guest ? " · guest" : "",
		 knobs[0] ? " · " : "", knobs);
	return rep->ncols++;
}

/* The workload whose steps the tables read: "region" when the run has its
 * steps, else every step (e.g. the host scan, whose region is "control"). */
static const char *main_workload(const json_t *run)
{
	const json_t *steps = json_object_get(run, "steps");
	size_t i;

	for (i = 0; i < json_array_size(steps); i++)
		if (step_is(json_array_get(steps, i), "region", NULL))
			return "region";
	return NULL;
}

static int index_runs(struct report *rep, struct lab_error *err)
{
	size_t i, k, total = 0;

	for (i = 0; i < rep->nin; i++)
		total += json_array_size(json_object_get(rep->in[i].doc, "runs"));
	rep->cols = calloc(rep->nin, sizeof(*rep->cols));
	rep->runs = calloc(total ? total : 1, sizeof(*rep->runs));
	if (rep->cols == NULL || rep->runs == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (i = 0; i < rep->nin; i++) {
		const json_t *host = json_object_get(rep->in[i].doc, "host");
		const json_t *runs = json_object_get(rep->in[i].doc, "runs");
		size_t col = column_of(rep, rep->in[i].doc);

		rep->in[i].col = col;
		for (k = 0; k < json_array_size(runs); k++) {
			struct runref *r = &rep->runs[rep->nruns++];

			r->run = json_array_get(runs, k);
			r->host = host;
			r->in = &rep->in[i];
			r->col = col;
			r->main = main_workload(r->run);
		}
	}
	return 0;
}

static bool doc_feeds(const json_t *doc, const char *id)
{
	const json_t *rep = json_object_get(json_object_get(doc, "scenario"), "report");
	size_t i;

	if (json_is_string(rep))
		return strcmp(json_string_value(rep), id) == 0;
	for (i = 0; i < json_array_size(rep); i++)
		if (strcmp(str_or(json_array_get(rep, i), ""), id) == 0)
			return true;
	return false;
}

static const struct table_spec *spec_of(const char *id)
{
	size_t i;

	for (i = 0; i < N(table_specs); i++)
		if (strcmp(table_specs[i].id, id) == 0)
			return &table_specs[i];
	return NULL;
}

/* Tables named by a scenario that this report does not know: a warning,
 * since the rest of the document is still good. */
static void warn_unknown_tables(const struct report *rep)
{
	size_t i, k;

	for (i = 0; i < rep->nin; i++) {
		const json_t *ids = json_object_get(json_object_get(rep->in[i].doc, "scenario"), "report");

		if (json_array_size(ids) == 0 && !json_is_string(ids))
			fprintf(stderr, "pagelab report: %s: the scenario feeds no article table "
				"(scenario.report is empty)\n", rep->in[i].path);
		for (k = 0; k < json_array_size(ids); k++)
			if (spec_of(str_or(json_array_get(ids, k), "")) == NULL)
				fprintf(stderr, "pagelab report: %s: unknown table '%s' ignored\n",
					rep->in[i].path, str_or(json_array_get(ids, k), "?"));
	}
}

/* ------------------------------------------------------------ building */

static void article_column(const struct report *rep, const json_t *tref, char *buf, size_t len)
{
	const json_t *m = json_object_get(tref, "machine");
	const char *kernel, *cg, *os;

	if (m == NULL)
		m = json_object_get(json_object_get(rep->ref, "header"), "machine");
	kernel = str_or(json_object_get(m, "kernel"), "?");
	cg = json_string_value(json_object_get(m, "cgroup"));
	os = json_string_value(json_object_get(m, "os"));
	snprintf(buf, len, "article: %s", kernel);
	if (cg != NULL)
		bufcat(buf, len, " · cgroup %s", cg);
	if (os != NULL)
		bufcat(buf, len, " · %s", os);
}

static void table_free(struct table *t)
{
	size_t i, k;

	for (i = 0; i < t->nrows; i++) {
		for (k = 0; k < t->ncols; k++)
			cell_free(&t->rows[i].cells[k]);
		free(t->rows[i].cells);
	}
	free(t->rows);
	free(t->cols);
	free(t->colruns);
	memset(t, 0, sizeof(*t));
}

/* Build table spec from the runs that feed it.  *built is false when no run
 * does (the table is then left out). */
static int table_build(struct report *rep, const struct table_spec *spec, size_t number,
		       struct table *t, bool *built, struct lab_error *err)
{
	struct tctx c = {.rep = rep, .t = t};
	size_t i, k;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	*built = false;
	t->spec = spec;
	t->number = number;
	t->ref = json_object_get(json_object_get(rep->ref, "tables"), spec->id);
	c.feed = calloc(rep->nruns + 1, sizeof(*c.feed));
	c.pick = calloc(rep->nruns + 1, sizeof(*c.pick));
	t->cols = calloc(rep->ncols + 1, sizeof(*t->cols));
	t->colruns = calloc(rep->ncols + 1, sizeof(*t->colruns));
	if (c.feed == NULL || c.pick == NULL || t->cols == NULL || t->colruns == NULL) {
		rc = lab_error_set(err, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < rep->nruns; i++)
		if (doc_feeds(rep->runs[i].in->doc, spec->id))
			c.feed[c.nfeed++] = &rep->runs[i];
	if (c.nfeed == 0)
		goto out;
	for (i = 0; i < rep->ncols; i++) {
		size_t n = 0;

		for (k = 0; k < c.nfeed; k++)
			n += c.feed[k]->col == i;
		if (n == 0)
			continue;
		t->colruns[t->ncols] = n;
		t->cols[t->ncols++] = i;
	}
	article_column(rep, t->ref, t->article_col, sizeof(t->article_col));
	rc = spec->build(&c, err);
	if (rc == 0 && json_is_string(json_object_get(t->ref, "note")))
		table_note(t, "article: %s", json_string_value(json_object_get(t->ref, "note")));
	*built = rc == 0;
out:
	free(c.feed);
	free(c.pick);
	return rc;
}

/* ------------------------------------------------------------ emitters */

static void md_text(FILE *o, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			fputs("\\|", o);
		else if (*s == '\n')
			fputc(' ', o);
		else
			fputc(*s, o);
	}
}

static void md_header(const struct report *rep, FILE *o)
{
	const json_t *h = json_object_get(rep->ref, "header");
	const json_t *a = json_object_get(h, "article");
	const json_t *m = json_object_get(h, "machine");
	size_t i, k;

	fprintf(o, "# pagelab report — “%s”\n\n", str_or(json_object_get(a, "title"), "?"));
	if (json_is_string(json_object_get(m, "summary")))
		fprintf(o, "Article: %s; %s. Reference data: %s.\n\n", str_or(json_object_get(a, "author"), "?"),
			json_string_value(json_object_get(m, "summary")), rep->ref_path);
	else
	fprintf(o, "Article: %s; %s %s, cgroup %s, memory.max %s, %s, %s VM, THP [%s]. "
		"Reference data: %s.\n\n",
		str_or(json_object_get(a, "author"), "?"), str_or(json_object_get(m, "kernel"), "?"),
		str_or(json_object_get(m, "machine"), "?"), str_or(json_object_get(m, "cgroup"), "?"),
		str_or(json_object_get(m, "memory_max"), "?"),
		json_is_false(json_object_get(m, "swap")) ? "no swap" : "swap",
		str_or(json_object_get(m, "vm_memory"), "?"), str_or(json_object_get(m, "thp_enabled"), "?"),
		rep->ref_path);
	fprintf(o, "| Column | Result files |\n|---|---|\n");
	for (i = 0; i < rep->ncols; i++) {
		fprintf(o, "| ");
		md_text(o, rep->cols[i].label);
		fprintf(o, " |");
		for (k = 0; k < rep->nin; k++) {
			const json_t *doc = rep->in[k].doc;
			const char *status = str_or(json_object_get(doc, "status"), "?");

			if (rep->in[k].col != i)
				continue;
			size_t nruns = json_array_size(json_object_get(doc, "runs"));

			fprintf(o, " `%s` (%s, %zu run%s%s%s)", rep->in[k].path,
				str_or(json_object_get(json_object_get(doc, "scenario"), "name"), "?"),
				nruns, nruns == 1 ? "" : "s",
				strcmp(status, "ok") != 0 ? ", " : "", strcmp(status, "ok") != 0 ? status : "");
		}
		fprintf(o, " |\n");
	}
	fprintf(o, "\nEach cell: the median over the repeats, (min–max) when they differ, "
		"[k of n runs] when some runs lack the figure; “—”: not measured.\n");
}

static void md_table(const struct report *rep, const struct table *t, FILE *o)
{
	const char *section = json_string_value(json_object_get(t->ref, "section"));
	const char *shape = json_string_value(json_object_get(t->ref, "table"));
	size_t i, k;

	fprintf(o, "\n## %zu. %s (`%s`)\n\n", t->number, t->spec->name, t->spec->id);
	if (section != NULL)
		fprintf(o, "Article table: “%s”%s%s.  \n", section, shape ? " — " : "", shape ? shape : "");
	fprintf(o, "Compare: %s\n\n", t->spec->compare);
	fprintf(o, "| %s | Figure |", t->spec->row_head);
	for (k = 0; k < t->ncols; k++) {
		fputc(' ', o);
		md_text(o, rep->cols[t->cols[k]].label);
		fprintf(o, " (%zu run%s) |", t->colruns[k], t->colruns[k] == 1 ? "" : "s");
	}
	fprintf(o, " %s |\n|---|---|", t->article_col);
	for (k = 0; k <= t->ncols; k++)
		fprintf(o, "---:|");
	fputc('\n', o);
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];

		fputs("| ", o);
		md_text(o, r->label);
		fputs(" | ", o);
		md_text(o, r->what);
		for (k = 0; k < t->ncols; k++) {
			fputs(" | ", o);
			md_text(o, r->cells[k].text);
		}
		fputs(" | ", o);
		md_text(o, r->article.text);
		fputs(" |\n", o);
	}
	if (t->nnotes > 0)
		fputc('\n', o);
	for (i = 0; i < t->nnotes; i++) {
		fputs("- ", o);
		md_text(o, t->notes[i]);
		fputc('\n', o);
	}
}

static void csv_field(FILE *o, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n") != NULL) {
		fputc('"', o);
		for (; *s != '\0'; s++) {
			if (*s == '"')
				fputc('"', o);
			fputc(*s, o);
		}
		fputc('"', o);
	} else {
		fputs(s, o);
	}
	fputc(last ? '\n' : ',', o);
}

/* The numeric part of a CSV line: median, min, max, with_value, values. */
static void csv_numbers(FILE *o, const struct cell *c)
{
	char med[32] = "", lo[32] = "", hi[32] = "", have[32] = "", vals[TEXT_MAX] = "";
	size_t i;

	if (c->values != NULL && c->have > 0) {
		fmt_num(c->med, false, med, sizeof(med));
		fmt_num(c->lo, false, lo, sizeof(lo));
		fmt_num(c->hi, false, hi, sizeof(hi));
		snprintf(have, sizeof(have), "%zu", c->have);
		for (i = 0; i < json_array_size(c->values); i++) {
			const json_t *v = json_array_get(c->values, i);
			char num[32] = "";

			if (json_is_number(v))
				fmt_num(json_number_value(v), false, num, sizeof(num));
			bufcat(vals, sizeof(vals), "%s%s", i > 0 ? ";" : "", num);
		}
	}
	csv_field(o, med, false);
	csv_field(o, lo, false);
	csv_field(o, hi, false);
	csv_field(o, have, false);
	csv_field(o, vals, false);
}

static void csv_line(FILE *o, const struct table *t, const struct row *r, const char *column,
		     const char *kernel, const char *cgroup, size_t runs, const struct cell *c)
{
	char nruns[32] = "";

	if (runs > 0)
		snprintf(nruns, sizeof(nruns), "%zu", runs);
	csv_field(o, t->spec->id, false);
	csv_field(o, r->label, false);
	csv_field(o, r->what, false);
	csv_field(o, column, false);
	csv_field(o, kernel, false);
	csv_field(o, cgroup, false);
	csv_field(o, r->unit != NULL ? r->unit : "", false);
	csv_field(o, nruns, false);
	csv_numbers(o, c);
	csv_field(o, c->text, true);
}

/* The article's figure as a cell (numbers only when it is one number or a
 * list of numbers), so CSV and JSON share one shape for both sides. */
static int article_cell(const struct row *r, struct cell *c)
{
	const json_t *j = r->article_json;
	double v[64];
	size_t n = 0, i;

	memset(c, 0, sizeof(*c));
	snprintf(c->text, sizeof(c->text), "%s", r->article.text);
	if (json_is_object(j))
		j = json_object_get(j, "value");
	if (json_is_number(j))
		v[n++] = json_number_value(j);
	for (i = 0; json_is_array(j) && i < json_array_size(j) && n < N(v); i++)
		if (json_is_number(json_array_get(j, i)))
			v[n++] = json_number_value(json_array_get(j, i));
	if (n == 0)
		return 0;
	c->values = json_array();
	if (c->values == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (json_array_append_new(c->values, json_of_num(v[i])) < 0)
			return -ENOMEM;
	c->have = c->runs = n;
	c->med = median_of(v, n);
	c->lo = v[0];
	c->hi = v[n - 1];
	return 0;
}

static const json_t *ref_machine(const struct report *rep, const struct table *t)
{
	const json_t *m = json_object_get(t->ref, "machine");

	return m != NULL ? m : json_object_get(json_object_get(rep->ref, "header"), "machine");
}

static int csv_table(const struct report *rep, const struct table *t, FILE *o)
{
	const json_t *m = ref_machine(rep, t);
	size_t i, k;

	for (i = 0; i < t->nrows; i++) {
		const struct row *r = &t->rows[i];
		struct cell a;

		for (k = 0; k < t->ncols; k++) {
			const struct column *col = &rep->cols[t->cols[k]];

			csv_line(o, t, r, col->label, col->kernel, col->cgroup, r->cells[k].runs,
				 &r->cells[k]);
		}
		if (article_cell(r, &a) < 0) {
			cell_free(&a);
			return -ENOMEM;
		}
		csv_line(o, t, r, "article", str_or(json_object_get(m, "kernel"), ""),
			 str_or(json_object_get(m, "cgroup"), ""), 0, &a);
		cell_free(&a);
	}
	return 0;
}

static json_t *cell_json(const struct cell *c, const char *column)
{
	json_t *j = json_pack("{s:s, s:s}", "column", column, "text", c->text);

	if (j == NULL)
		return NULL;
	if (c->runs > 0 && json_object_set_new(j, "runs", json_integer((json_int_t)c->runs)) < 0)
		goto fail;
	if (c->values != NULL && c->have > 0 &&
	    (json_object_set_new(j, "median", json_of_num(c->med)) < 0 ||
	     json_object_set_new(j, "min", json_of_num(c->lo)) < 0 ||
	     json_object_set_new(j, "max", json_of_num(c->hi)) < 0 ||
	     json_object_set_new(j, "with_value", json_integer((json_int_t)c->have)) < 0 ||
	     json_object_set(j, "values", c->values) < 0))
		goto fail;
	return j;
fail:
	json_decref(j);
	return NULL;
}

static json_t *row_json(const struct report *rep, const struct table *t, const struct row *r)
{
	json_t *j = json_pack("{s:s, s:s, s:s*, s:[], s:{s:s, s:O*, s:b}}", "row", r->label,
			      "figure", r->what, "unit", r->unit, "cells", "article", "text",
			      r->article.text, "value", r->article_json, "derived", r->derived);
	json_t *cells = json_object_get(j, "cells");
	size_t k;

	for (k = 0; j != NULL && k < t->ncols; k++)
		if (json_array_append_new(cells, cell_json(&r->cells[k], rep->cols[t->cols[k]].label)) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

static json_t *table_json(const struct report *rep, const struct table *t)
{
	json_t *j = json_pack("{s:s, s:I, s:s, s:s*, s:s*, s:s, s:s, s:[], s:[], s:[]}",
			      "id", t->spec->id, "number", (json_int_t)t->number, "name", t->spec->name,
			      "article_section", json_string_value(json_object_get(t->ref, "section")),
			      "article_table", json_string_value(json_object_get(t->ref, "table")),
			      "compare", t->spec->compare, "article_column", t->article_col,
			      "columns", "rows", "notes");
	size_t i;
	int bad = j == NULL;

	for (i = 0; !bad && i < t->ncols; i++) {
		const struct column *c = &rep->cols[t->cols[i]];

		bad = json_array_append_new(json_object_get(j, "columns"),
					    json_pack("{s:s, s:s, s:s, s:b, s:I}", "label", c->label,
						      "kernel", c->kernel, "cgroup", c->cgroup,
						      "guest", c->guest, "runs", (json_int_t)t->colruns[i])) < 0;
	}
	for (i = 0; !bad && i < t->nrows; i++)
		bad = json_array_append_new(json_object_get(j, "rows"), row_json(rep, t, &t->rows[i])) < 0;
	for (i = 0; !bad && i < t->nnotes; i++)
		bad = json_array_append_new(json_object_get(j, "notes"), json_string(t->notes[i])) < 0;
	if (bad) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *inputs_json(const struct report *rep)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < rep->nin; i++) {
		const json_t *doc = rep->in[i].doc;
		const json_t *host = json_object_get(doc, "host");

		if (json_array_append_new(a, json_pack("{s:s, s:s*, s:s*, s:s*, s:I, s:s}",
						       "path", rep->in[i].path,
						       "scenario", json_string_value(json_object_get(json_object_get(doc, "scenario"), "name")),
						       "status", json_string_value(json_object_get(doc, "status")),
						       "kernel", json_string_value(json_object_get(host, "kernel")),
						       "runs", (json_int_t)json_array_size(json_object_get(doc, "runs")),
						       "column", rep->cols[rep->in[i].col].label)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* ------------------------------------------------------------- driver */

static void usage(FILE *o)
{
	fprintf(o,
		"usage: pagelab report [--format markdown|csv|json] [--reference FILE] RESULT.json...\n"
		"\n"
		"Print an article's tables for the result documents given: this host's figures\n"
		"beside the article's published ones (the MADV_FREE article, the watermark\n"
		"article or the min_free_kbytes article; one article per report).  Each\n"
		"result feeds the tables its\n"
		"scenario names (scenario.report); only tables with data are printed.  Runs are\n"
		"grouped into one column per kernel and cgroup mode (host.kernel,\n"
		"host.cgroup.memory), so results from a host run and from QEMU guests sit side\n"
		"by side.  A cell is the median over the repeats, with (min–max) when they\n"
		"differ; \"—\" means the result lacks the figure (e.g. the run was OOM-killed\n"
		"before that step).  Tables about memory.current also give each column's\n"
		"baseline: memory.current at the first step minus the region.\n"
		"\n"
		"  --format markdown  the tables as markdown on stdout (default)\n"
		"  --format csv       one line per (table, row, column) figure, with a header\n"
		"  --format json      a \"%s\" document with the same content\n"
		"  --reference FILE   the article's figures (default: %s, ARTICLE\n"
		"                     being madv-free, watermarks or min-free after the\n"
		"                     tables fed; relative to the current directory, else to\n"
		"                     %s)\n"
		"  -h, --help         this text\n"
		"\n"
		"Exit status: 0 printed; 2 bad usage, or an input that cannot be read or is not\n"
		"a %s document; 1 internal failure.\n",
		REPORT_SCHEMA, "results/reference/ARTICLE.json", PAGELAB_SOURCE_DIR, RESULT_SCHEMA);
}

/* "--name VALUE" or "--name=VALUE".  Returns 1 matched, 0 not this option,
 * -1 the value is missing. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

/* The article the results' tables come from: one per report.  NULL when no
 * known table is fed (the madv-free reference then labels an empty report). */
static int inputs_article(const struct report *rep, const char **article, struct lab_error *err)
{
	*article = NULL;
	for (size_t i = 0; i < rep->nin; i++)
		for (size_t k = 0; k < N(table_specs); k++) {
			const char *a = spec_article(&table_specs[k]);

			if (!doc_feeds(rep->in[i].doc, table_specs[k].id))
				continue;
			if (*article != NULL && strcmp(*article, a) != 0)
				return lab_error_set(err, EINVAL, "the results come from two articles (%s and %s): "
						     "report them separately", *article, a);
			*article = a;
		}
	return 0;
}

static int reference_path(const char *arg, const char *article, char *out, size_t len, struct lab_error *err)
{
	char rel[256];

	if (arg != NULL) {
		snprintf(out, len, "%s", arg);
		return 0;
	}
	snprintf(rel, sizeof(rel), "results/reference/%s.json", article != NULL ? article : "madv-free");
	if (access(rel, R_OK) == 0) {
		snprintf(out, len, "%s", rel);
		return 0;
	}
	if ((size_t)snprintf(out, len, "%s/%s", PAGELAB_SOURCE_DIR, rel) < len && access(out, R_OK) == 0)
		return 0;
	return lab_error_set(err, ENOENT, "no reference data: neither ./%s nor %s/%s is readable "
			     "(pass --reference FILE)", rel, PAGELAB_SOURCE_DIR, rel);
}

static int emit(struct report *rep, struct table *tables, size_t nt, enum report_format fmt,
		struct lab_error *err)
{
	FILE *o = stdout;
	size_t i;

	if (fmt == FMT_MARKDOWN) {
		md_header(rep, o);
		for (i = 0; i < nt; i++)
			md_table(rep, &tables[i], o);
		if (nt == 0)
			fprintf(o, "\nNo article table has data in these results.\n");
	} else if (fmt == FMT_CSV) {
		fputs("table,row,figure,column,kernel,cgroup,unit,runs,median,min,max,with_value,values,text\n", o);
		for (i = 0; i < nt; i++)
			if (csv_table(rep, &tables[i], o) < 0)
				return lab_error_set(err, ENOMEM, "out of memory");
	} else {
		const json_t *h = json_object_get(rep->ref, "header");
		json_t *doc = json_pack("{s:s, s:{s:s, s:O*, s:O*, s:O*}, s:o, s:[]}", "schema",
					REPORT_SCHEMA, "reference", "path", rep->ref_path, "article",
					json_object_get(h, "article"), "machine",
					json_object_get(h, "machine"), "baseline_kb",
					json_object_get(h, "baseline_kb"), "inputs", inputs_json(rep),
					"tables");
		int bad = doc == NULL;

		for (i = 0; !bad && i < nt; i++)
			bad = json_array_append_new(json_object_get(doc, "tables"),
						    table_json(rep, &tables[i])) < 0;
		if (!bad)
			bad = json_dumpf(doc, o, JSON_INDENT(2)) < 0 || fputc('\n', o) == EOF;
		json_decref(doc);
		if (bad)
			return lab_error_set(err, ENOMEM, "cannot build the JSON report");
	}
	if (fflush(o) != 0 || ferror(o))
		return lab_error_errno(err, errno ? errno : EIO, "writing the report");
	return 0;
}

static int parse_args(int argc, char **argv, enum report_format *fmt, const char **ref,
		      const char ***files, size_t *nfiles)
{
	bool only_files = false;
	const char *val = NULL;
	int i, m;

	*files = calloc((size_t)argc + 1, sizeof(**files));
	if (*files == NULL)
		return -ENOMEM;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (only_files || a[0] != '-' || a[1] == '\0') {
			(*files)[(*nfiles)++] = a;
		} else if (strcmp(a, "--") == 0) {
			only_files = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 1;
		} else if ((m = opt_value(argc, argv, &i, "--format", &val)) != 0) {
			if (m < 0 || (strcmp(val, "markdown") && strcmp(val, "csv") && strcmp(val, "json"))) {
				fprintf(stderr, "pagelab report: --format takes markdown, csv or json\n");
				return -EINVAL;
			}
			*fmt = val[0] == 'm' ? FMT_MARKDOWN : val[0] == 'c' ? FMT_CSV : FMT_JSON;
		} else if ((m = opt_value(argc, argv, &i, "--reference", &val)) != 0) {
			if (m < 0 || val[0] == '\0') {
				fprintf(stderr, "pagelab report: --reference takes a file\n");
				return -EINVAL;
			}
			*ref = val;
		} else {
			fprintf(stderr, "pagelab report: unknown option '%s' (see pagelab report --help)\n", a);
			return -EINVAL;
		}
	}
	if (*nfiles == 0) {
		fprintf(stderr, "pagelab report: no result file given (see pagelab report --help)\n");
		return -EINVAL;
	}
	return 0;
}

int report_main(int argc, char **argv)
{
	enum report_format fmt = FMT_MARKDOWN;
	const char *ref_arg = NULL;
	const char **files = NULL;
	size_t nfiles = 0, nt = 0, i;
	struct report rep;
	struct table *tables = NULL;
	struct lab_error err;
	int status = EXIT_BAD_INPUT, rc;

	memset(&rep, 0, sizeof(rep));
	lab_error_clear(&err);
	rc = parse_args(argc, argv, &fmt, &ref_arg, &files, &nfiles);
	if (rc != 0) {
		status = rc > 0 ? 0 : rc == -ENOMEM ? EXIT_INTERNAL : EXIT_BAD_INPUT;
		if (rc == -ENOMEM)
			fprintf(stderr, "pagelab report: out of memory\n");
		goto out;
	}
	rep.in = calloc(nfiles, sizeof(*rep.in));
	if (rep.in == NULL) {
		lab_error_set(&err, ENOMEM, "out of memory");
		status = EXIT_INTERNAL;
		goto fail;
	}
	for (rep.nin = 0; rep.nin < nfiles; rep.nin++) {
		rep.in[rep.nin].path = files[rep.nin];
		if (load_json(files[rep.nin], RESULT_SCHEMA, &rep.in[rep.nin].doc, &err) < 0)
			goto fail;
	}
	{
		const char *article;

		if (inputs_article(&rep, &article, &err) < 0 ||
		    reference_path(ref_arg, article, rep.ref_path, sizeof(rep.ref_path), &err) < 0 ||
		    load_json(rep.ref_path, REFERENCE_SCHEMA, &rep.ref, &err) < 0)
			goto fail;
	}
	status = EXIT_INTERNAL;
	if (index_runs(&rep, &err) < 0)
		goto fail;
	warn_unknown_tables(&rep);
	tables = calloc(N(table_specs), sizeof(*tables));
	if (tables == NULL) {
		lab_error_set(&err, ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < N(table_specs); i++) {
		bool built;

		if (table_build(&rep, &table_specs[i], i + 1, &tables[nt], &built, &err) < 0) {
			table_free(&tables[nt]);
			goto fail;
		}
		if (built)
			nt++;
		else
			table_free(&tables[nt]);
	}
	if (emit(&rep, tables, nt, fmt, &err) < 0)
		goto fail;
	status = 0;
	goto out;
fail:
	fprintf(stderr, "pagelab report: %s\n", err.msg);
out:
	for (i = 0; tables != NULL && i < nt; i++)
		table_free(&tables[i]);
	free(tables);
	for (i = 0; rep.in != NULL && i < nfiles; i++)
		json_decref(rep.in[i].doc);
	free(rep.in);
	free(rep.cols);
	free(rep.runs);
	json_decref(rep.ref);
	free(files);
	return status;
}
