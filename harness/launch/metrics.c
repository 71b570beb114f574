/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c — metrics tables (metrics.h; the format: metrics/README.md). */
#include "metrics.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "base/paths.h"
#include "base/pattern.h"
#include "base/trust.h"

#define M_MAX 32
#define M_FLAGS 8
#define M_GROUPS 10     /* the groups of a line the reader keeps: the match and 1..9 */
/* A line's first M_LINE_MAX bytes are what a pattern is matched on, as a
 * ready line's are (capture.h): glibc's regexec with submatches costs with
 * the line's length times the pattern's parts, and a costly pattern within
 * base/pattern.h's bounds took 181 ms and 73 MB on a 4 KB line, 11 s and
 * 1.1 GB on a 64 KB one (docs/safety.md).  The tools' lines are far
 * shorter (at most 191 bytes in tests/fixtures/load/). */
#define M_LINE_MAX 4095

enum { S_STDOUT = 1, S_STDERR = 2 };

struct m_metric {
	char metric[64], unit[24], better[8];
	char role[12];          /* "throughput", "p99" or "": what `pagelab fit` judges it as */
	char fclass[8];         /* "count", "timing" or "": how `compare` judges it (else by its unit) */
};

struct m_col {
	char column[64];
	struct m_metric m;
};

struct m_line {
	regex_t re, section;
	bool has_section, first;
	int stream, name_group, value_group;
	struct m_metric m;
};

struct m_invalid {
	regex_t re;
	int stream;
	char why[160];
};

struct metrics_table {
	char path[PATH_MAX], tool[64];
	bool strip_ansi;
	size_t nexit;
	int exit_codes[M_FLAGS];
	size_t n_one_of, n_never;
	char one_of[M_FLAGS][32], never[M_FLAGS][32];
	bool csv;
	int csv_stream;
	char csv_key[64];
	size_t ncols;
	struct m_col cols[M_MAX];
	size_t nlines;
	struct m_line lines[M_MAX];
	size_t ninv;
	struct m_invalid inv[M_FLAGS];
	size_t nreq;
	char require[M_FLAGS][64];
	char count_flag[32], count_metric[64];
};

/* ------------------------------------------------------------------ the file */

struct mparse {
	const char *file;
	struct metrics_table *t;
	struct lab_error *err;
};

static int bad(struct mparse *p, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(struct mparse *p, const char *where, const char *fmt, ...)
{
	char msg[LAB_ERROR_MSG_MAX / 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return lab_error_set(p->err, EINVAL, "%s: %s: %s", p->file, where, msg);
}

static int only_keys(struct mparse *p, const json_t *o, const char *where, const char *const *keys)
{
	const char *k;
	json_t *v;

	if (!json_is_object(o))
		return bad(p, where, "expected an object");
	json_object_foreach((json_t *)o, k, v) {
		bool known = strcmp(k, "comment") == 0;

		for (const char *const *q = keys; *q; q++)
			known |= strcmp(*q, k) == 0;
		if (!known)
			return bad(p, where, "unknown key '%s'", k);
	}
	return 0;
}

static int str_into(struct mparse *p, const json_t *o, const char *key, const char *where, bool required, char *buf,
		    size_t len)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL) {
		if (required)
			return bad(p, where, "needs \"%s\"", key);
		return 0;
	}
	if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= len)
		return bad(p, where, "\"%s\": a string of 1..%zu characters", key, len - 1);
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

static int regex_into(struct mparse *p, const json_t *o, const char *key, const char *where, regex_t *re,
		      bool *have)
{
	const json_t *v = json_object_get(o, key);
	char msg[128];
	int rc;

	if (have != NULL)
		*have = false;
	if (v == NULL && have != NULL)
		return 0;
	if (!json_is_string(v))
		return bad(p, where, "\"%s\": a pattern (POSIX ERE) is needed", key);
	rc = lab_pattern_compile(re, json_string_value(v), REG_EXTENDED | REG_NEWLINE, msg, sizeof(msg));
	if (rc != 0)
		return bad(p, where, "\"%s\": not a pattern: %s", key, msg);
	if (have != NULL)
		*have = true;
	return 0;
}

static int stream_of(struct mparse *p, const json_t *o, const char *where, int *out)
{
	const char *s = json_string_value(json_object_get(o, "stream"));

	*out = S_STDOUT;
	if (json_object_get(o, "stream") == NULL)
		return 0;
	if (s != NULL && strcmp(s, "stdout") == 0)
		return 0;
	if (s != NULL && strcmp(s, "stderr") == 0) {
		*out = S_STDERR;
		return 0;
	}
	if (s != NULL && strcmp(s, "both") == 0) {
		*out = S_STDOUT | S_STDERR;
		return 0;
	}
	return bad(p, where, "\"stream\": stdout, stderr or both");
}

/* unit and better of a metric (metric itself where named_by is NULL). */
static int metric_into(struct mparse *p, const json_t *o, const char *where, bool name_required, struct m_metric *m)
{
	int ret;

	snprintf(m->better, sizeof(m->better), "none");
	m->role[0] = '\0';
	m->fclass[0] = '\0';
	if ((ret = str_into(p, o, "metric", where, name_required, m->metric, sizeof(m->metric))) < 0 ||
	    (ret = str_into(p, o, "unit", where, false, m->unit, sizeof(m->unit))) < 0 ||
	    (ret = str_into(p, o, "better", where, false, m->better, sizeof(m->better))) < 0 ||
	    (ret = str_into(p, o, "role", where, false, m->role, sizeof(m->role))) < 0 ||
	    (ret = str_into(p, o, "class", where, false, m->fclass, sizeof(m->fclass))) < 0)
		return ret;
	/* A count is exact (transactions, items), a timing drifts with the
	 * machine (harness/read/floor.h): said where the unit does not say it. */
	if (m->fclass[0] && strcmp(m->fclass, "count") && strcmp(m->fclass, "timing"))
		return bad(p, where, "\"class\": count or timing");
	if (strcmp(m->better, "higher") && strcmp(m->better, "lower") && strcmp(m->better, "none"))
		return bad(p, where, "\"better\": higher, lower or none");
	/* A throughput is better higher, a latency lower: the objectives of
	 * `pagelab fit` (ops>=…, p99<=…) read them so. */
	if (m->role[0] && !(strcmp(m->role, "throughput") == 0 && strcmp(m->better, "higher") == 0) &&
	    !(strcmp(m->role, "p99") == 0 && strcmp(m->better, "lower") == 0))
		return bad(p, where, "\"role\": throughput (better higher) or p99 (better lower)");
	if (strpbrk(m->metric, ".[]{}/") != NULL)
		return bad(p, where, "\"metric\": no . [ ] { } / in a name (a report's path reads it)");
	return 0;
}

static int parse_csv(struct mparse *p, const json_t *c)
{
	static const char *const keys[] = { "stream", "key", "columns", NULL };
	struct metrics_table *t = p->t;
	const json_t *cols = json_object_get(c, "columns");
	const char *k;
	json_t *v;
	int ret;

	if ((ret = only_keys(p, c, "csv", keys)) < 0 || (ret = stream_of(p, c, "csv", &t->csv_stream)) < 0 ||
	    (ret = str_into(p, c, "key", "csv", true, t->csv_key, sizeof(t->csv_key))) < 0)
		return ret;
	if (!json_is_object(cols) || json_object_size(cols) == 0 || json_object_size(cols) > M_MAX)
		return bad(p, "csv", "\"columns\": an object of 1..%d columns", M_MAX);
	json_object_foreach((json_t *)cols, k, v) {
		static const char *const ckeys[] = { "metric", "unit", "better", "role", "class", NULL };
		struct m_col *col = &t->cols[t->ncols++];
		char where[96];

		snprintf(where, sizeof(where), "csv.columns.%s", k);
		if ((ret = only_keys(p, v, where, ckeys)) < 0 || (ret = metric_into(p, v, where, false, &col->m)) < 0)
			return ret;
		snprintf(col->column, sizeof(col->column), "%s", k);
		if (col->m.metric[0] == '\0')
			snprintf(col->m.metric, sizeof(col->m.metric), "%s", k);
	}
	t->csv = true;
	return 0;
}

static int parse_line(struct mparse *p, const json_t *o, size_t i)
{
	static const char *const keys[] = { "stream", "regex", "metric", "unit", "better", "role", "class", "name_group",
					    "value_group", "which", "section", NULL };
	struct m_line *l = &p->t->lines[i];
	const char *which = json_string_value(json_object_get(o, "which"));
	char where[32];
	int ret;

	snprintf(where, sizeof(where), "lines[%zu]", i);
	if ((ret = only_keys(p, o, where, keys)) < 0 || (ret = stream_of(p, o, where, &l->stream)) < 0 ||
	    (ret = regex_into(p, o, "regex", where, &l->re, NULL)) < 0)
		return ret;
	p->t->nlines = i + 1;
	if ((ret = regex_into(p, o, "section", where, &l->section, &l->has_section)) < 0)
		return ret;
	l->name_group = (int)json_integer_value(json_object_get(o, "name_group"));
	l->value_group = json_object_get(o, "value_group") ? (int)json_integer_value(json_object_get(o, "value_group")) : 1;
	if (l->value_group < 1 || (size_t)l->value_group > l->re.re_nsub || l->name_group < 0 ||
	    (size_t)l->name_group > l->re.re_nsub || l->name_group == l->value_group)
		return bad(p, where, "\"value_group\" (default 1) and \"name_group\" are groups of the pattern (it has %zu)",
			   l->re.re_nsub);
	if (l->value_group >= M_GROUPS || l->name_group >= M_GROUPS)
		return bad(p, where, "\"value_group\" and \"name_group\": groups 1..%d (the reader keeps no more)",
			   M_GROUPS - 1);
	if ((ret = metric_into(p, o, where, l->name_group == 0, &l->m)) < 0)
		return ret;
	if (which != NULL && strcmp(which, "first") && strcmp(which, "last"))
		return bad(p, where, "\"which\": first or last (the default)");
	l->first = which != NULL && strcmp(which, "first") == 0;
	return 0;
}

static int parse_flags(struct mparse *p, const json_t *args)
{
	static const char *const keys[] = { "one_of", "never", NULL };
	struct metrics_table *t = p->t;
	int ret;

	if ((ret = only_keys(p, args, "args", keys)) < 0)
		return ret;
	for (int w = 0; w < 2; w++) {
		const json_t *a = json_object_get(args, w ? "never" : "one_of");
		size_t *n = w ? &t->n_never : &t->n_one_of;

		if (a == NULL)
			continue;
		if (!json_is_array(a) || json_array_size(a) > M_FLAGS)
			return bad(p, "args", "\"%s\": a list of at most %d flags", w ? "never" : "one_of", M_FLAGS);
		for (size_t i = 0; i < json_array_size(a); i++) {
			const char *f = json_string_value(json_array_get(a, i));

			if (f == NULL || f[0] != '-' || strlen(f) < 2 || strlen(f) >= 32)
				return bad(p, "args", "\"%s\"[%zu]: a flag (-n, --time)", w ? "never" : "one_of", i);
			snprintf(w ? t->never[(*n)++] : t->one_of[(*n)++], 32, "%s", f);
		}
	}
	return 0;
}

static int parse_checks(struct mparse *p, const json_t *root)
{
	struct metrics_table *t = p->t;
	const json_t *ex = json_object_get(root, "exit_codes"), *inv = json_object_get(root, "invalid");
	const json_t *req = json_object_get(root, "require"), *cnt = json_object_get(root, "count");
	int ret;

	t->nexit = 1;
	t->exit_codes[0] = 0;
	if (ex != NULL) {
		if (!json_is_array(ex) || json_array_size(ex) == 0 || json_array_size(ex) > M_FLAGS)
			return bad(p, "exit_codes", "a list of 1..%d codes", M_FLAGS);
		for (t->nexit = 0; t->nexit < json_array_size(ex); t->nexit++)
			t->exit_codes[t->nexit] = (int)json_integer_value(json_array_get(ex, t->nexit));
	}
	if (inv != NULL && (!json_is_array(inv) || json_array_size(inv) > M_FLAGS))
		return bad(p, "invalid", "a list of at most %d patterns", M_FLAGS);
	for (size_t i = 0; i < json_array_size(inv); i++) {
		static const char *const keys[] = { "stream", "regex", "why", NULL };
		const json_t *o = json_array_get(inv, i);
		char where[32];

		snprintf(where, sizeof(where), "invalid[%zu]", i);
		if ((ret = only_keys(p, o, where, keys)) < 0 || (ret = stream_of(p, o, where, &t->inv[i].stream)) < 0 ||
		    (ret = regex_into(p, o, "regex", where, &t->inv[i].re, NULL)) < 0)
			return ret;
		t->ninv = i + 1;
		if ((ret = str_into(p, o, "why", where, true, t->inv[i].why, sizeof(t->inv[i].why))) < 0)
			return ret;
	}
	if (req != NULL && (!json_is_array(req) || json_array_size(req) > M_FLAGS))
		return bad(p, "require", "a list of at most %d metric names", M_FLAGS);
	for (size_t i = 0; i < json_array_size(req); i++) {
		const char *r = json_string_value(json_array_get(req, i));

		if (r == NULL || *r == '\0' || strlen(r) >= 64)
			return bad(p, "require", "[%zu]: a metric name (\"*\": any one)", i);
		snprintf(t->require[t->nreq++], 64, "%s", r);
	}
	if (cnt != NULL) {
		static const char *const keys[] = { "flag", "metric", NULL };

		if ((ret = only_keys(p, cnt, "count", keys)) < 0 ||
		    (ret = str_into(p, cnt, "flag", "count", true, t->count_flag, sizeof(t->count_flag))) < 0 ||
		    (ret = str_into(p, cnt, "metric", "count", true, t->count_metric, sizeof(t->count_metric))) < 0)
			return ret;
	}
	return 0;
}

static int parse_root(struct mparse *p, const json_t *root)
{
	static const char *const keys[] = { "schema", "tool", "strip_ansi", "args", "exit_codes", "csv", "lines",
					    "invalid", "require", "count", NULL };
	struct metrics_table *t = p->t;
	const json_t *lines = json_object_get(root, "lines"), *args = json_object_get(root, "args");
	int ret;

	if ((ret = only_keys(p, root, "the file", keys)) < 0)
		return ret;
	if (!json_is_string(json_object_get(root, "schema")) ||
	    strcmp(json_string_value(json_object_get(root, "schema")), METRICS_SCHEMA) != 0)
		return bad(p, "schema", "expected \"%s\"", METRICS_SCHEMA);
	if ((ret = str_into(p, root, "tool", "the file", true, t->tool, sizeof(t->tool))) < 0)
		return ret;
	t->strip_ansi = json_is_true(json_object_get(root, "strip_ansi"));
	if (args != NULL && (ret = parse_flags(p, args)) < 0)
		return ret;
	if (json_object_get(root, "csv") != NULL && (ret = parse_csv(p, json_object_get(root, "csv"))) < 0)
		return ret;
	if (lines != NULL && (!json_is_array(lines) || json_array_size(lines) > M_MAX))
		return bad(p, "lines", "a list of at most %d patterns", M_MAX);
	for (size_t i = 0; i < json_array_size(lines); i++)
		if ((ret = parse_line(p, json_array_get(lines, i), i)) < 0)
			return ret;
	if (!t->csv && t->nlines == 0)
		return bad(p, "the file", "neither \"csv\" nor \"lines\": no metric to read");
	return parse_checks(p, root);
}

int metrics_parse(const char *file, const char *text, struct metrics_table **out, struct lab_error *err)
{
	struct metrics_table *t = calloc(1, sizeof(*t));
	struct mparse p = { .file = file, .t = t, .err = err };
	json_error_t je;
	json_t *root;
	int ret;

	*out = NULL;
	if (t == NULL)
		return lab_error_errno(err, ENOMEM, "%s", file);
	snprintf(t->path, sizeof(t->path), "%s", file);
	root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		ret = lab_error_set(err, EINVAL, "%s:%d:%d: %s", file, je.line, je.column, je.text);
	} else {
		ret = parse_root(&p, root);
		json_decref(root);
	}
	if (ret < 0) {
		/* one line, whatever the file's keys and jansson's quote of
		 * the text hold: a control as \xNN */
		char raw[sizeof(err->msg)];

		snprintf(raw, sizeof(raw), "%s", err->msg);
		lab_esc_term_buf(err->msg, sizeof(err->msg), raw);
		metrics_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

int metrics_load(const char *name, struct metrics_table **out, struct lab_error *err)
{
	char path[PATH_MAX];
	cleanup_free char *text = NULL;
	int from_env, ret;

	*out = NULL;
	if ((from_env = lab_data_dir_check(err)) < 0)
		return from_env;
	if ((size_t)snprintf(path, sizeof(path), "%s/metrics/%s.json", lab_data_dir(), name) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "metrics table %s: path too long", name);
	if (from_env && (ret = lab_trust_path(path, "metrics table", LAB_TRUST_FILE,
					     " (in PAGELAB_DATA_DIR: chown root and chmod go-w it)", err)) < 0)
		return ret;
	if ((ret = lab_read_input(path, "metrics table", 1 << 20, 0, &text, NULL, err)) < 0) {
		if (ret == -ENOENT)
			return lab_error_set(err, ENOENT, "no metrics table '%s' (%s; the tables are %s/metrics/*.json)",
					     name, path, lab_data_dir());
		return ret;
	}
	return metrics_parse(path, text, out, err);
}

/* ------------------------------------------------------------------ the argv */

/* Is word the flag f, or f with its value attached (-n1000, --time=5)? */
static bool is_flag(const char *word, const char *f)
{
	size_t n = strlen(f);

	if (strcmp(word, f) == 0)
		return true;
	if (strncmp(word, f, n) != 0)
		return false;
	return f[1] == '-' ? word[n] == '=' : n == 2 && word[n] != '\0';
}

/* The value of flag f in argv ("-x 100000", "-x100000", "--x=100000"), or NULL. */
static const char *flag_value(char *const *argv, int argc, const char *f)
{
	const char *v = NULL;
	size_t n = strlen(f);

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], f) == 0 && i + 1 < argc)
			v = argv[i + 1];
		else if (is_flag(argv[i], f) && strcmp(argv[i], f) != 0)
			v = argv[i] + n + (f[1] == '-');
	}
	return v;
}

int metrics_check_args(const struct metrics_table *t, char *const *argv, int argc, struct lab_error *err)
{
	bool bounded = t->n_one_of == 0;
	char list[256] = "";
	size_t off = 0;

	for (int i = 1; i < argc; i++) {
		for (size_t k = 0; k < t->n_never; k++)
			if (is_flag(argv[i], t->never[k]))
				return lab_error_set(err, EINVAL, "%s %s: the tool never ends with it (metrics table %s)",
						     t->tool, argv[i], t->path);
		for (size_t k = 0; k < t->n_one_of; k++)
			bounded |= is_flag(argv[i], t->one_of[k]);
	}
	if (bounded)
		return 0;
	for (size_t k = 0; k < t->n_one_of; k++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", k ? ", " : "", t->one_of[k]);
	return lab_error_set(err, EINVAL, "%s is bounded by none of its own flags: give one of %s (metrics table %s)",
			     t->tool, list, t->path);
}

/* ------------------------------------------------------------------ the output */

/* ESC sequences out of s in place (CSI: ESC [ params final; else ESC and
 * one character). */
static void strip_ansi(char *s)
{
	char *o = s;

	for (char *p = s; *p;) {
		if (*p != '\033') {
			*o++ = *p++;
			continue;
		}
		p++;
		if (*p == '[') {
			p++;
			while (*p && !(*p >= 0x40 && *p <= 0x7e))
				p++;
		}
		if (*p)
			p++;
	}
	*o = '\0';
}

static void metric_set(json_t *ms, const char *name, double v, const struct m_metric *m)
{
	json_object_set_new(ms, name, json_pack("{s:f, s:s, s:s, s:s*, s:s*}", "value", v, "unit", m->unit, "better",
						m->better, "role", m->role[0] ? m->role : NULL, "class",
						m->fclass[0] ? m->fclass : NULL));
}

/* A number of a whole field or group: strtod to its end, finite. */
static bool number(const char *s, size_t n, double *out)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	return end != buf && *end == '\0' && isfinite(*out);
}

/* One CSV record's fields at *p (quoted "…" with "" for a quote, or bare),
 * up to the end of its line.  The number of fields (at most max). */
static size_t csv_record(const char **p, char fields[][128], size_t max)
{
	size_t n = 0;
	const char *s = *p;

	while (*s && *s != '\n') {
		size_t k = 0;
		char *f = n < max ? fields[n] : NULL;

		if (*s == '"') {
			for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
				if (*s == '"')
					s++;
				if (f && k + 1 < 128)
					f[k++] = *s;
			}
			if (*s == '"')
				s++;
		}
		while (*s && *s != ',' && *s != '\n' && *s != '\r') {
			if (f && k + 1 < 128)
				f[k++] = *s;
			s++;
		}
		if (f)
			f[k] = '\0';
		n++;
		if (*s == '\r')
			s++;
		if (*s == ',')
			s++;
	}
	if (*s == '\n')
		s++;
	*p = s;
	return n < max ? n : max;
}

/* A CSV key as a metric's first part: what a report's path cannot hold
 * becomes '_'. */
static void key_part(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (; *in && k + 1 < len; in++)
		out[k++] = strchr(".[]{}/", *in) || (unsigned char)*in < 0x20 ? '_' : *in;
	out[k] = '\0';
}

static size_t read_csv(const struct metrics_table *t, const char *text, json_t *ms)
{
	char head[M_MAX + 8][128], row[M_MAX + 8][128];
	const char *p = text;
	size_t nh = 0, rows = 0;
	int keycol = -1;

	while (*p && nh == 0)
		nh = csv_record(&p, head, M_MAX + 8);
	for (size_t i = 0; i < nh; i++)
		if (strcmp(head[i], t->csv_key) == 0)
			keycol = (int)i;
	if (keycol < 0)
		return 0;
	while (*p) {
		size_t nr = csv_record(&p, row, M_MAX + 8);
		char key[96];

		if (nr <= (size_t)keycol || row[keycol][0] == '\0')
			continue;
		key_part(row[keycol], key, sizeof(key));
		for (size_t c = 0; c < t->ncols; c++)
			for (size_t i = 0; i < nh && i < nr; i++) {
				double v;
				char name[192];

				if (strcmp(head[i], t->cols[c].column) != 0 || !number(row[i], strlen(row[i]), &v))
					continue;
				snprintf(name, sizeof(name), "%s/%s", key, t->cols[c].m.metric);
				metric_set(ms, name, v, &t->cols[c].m);
			}
		rows++;
	}
	return rows;
}

/* Does a line pattern of t give the metric name by its own "metric"? */
static bool declared(const struct metrics_table *t, const char *name)
{
	for (size_t i = 0; i < t->nlines; i++)
		if (t->lines[i].name_group == 0 && strcmp(t->lines[i].m.metric, name) == 0)
			return true;
	return false;
}

/* The metric's name for a match of ln on l in name (len bytes): the
 * pattern's own, or its name group's text.  False when the text names no
 * metric this line may set: a name longer than name (cut, it could be
 * another's) or one the table declares (the output names a metric only
 * where the table lets it: a program's "max_heap_bytes=1" is not the
 * JVM's flag). */
static bool line_name(const struct metrics_table *t, const struct m_line *ln, const char *l, const regmatch_t *m,
		      char *name, size_t len)
{
	int nl = (int)(m[ln->name_group].rm_eo - m[ln->name_group].rm_so);
	char raw[96];

	if (ln->name_group == 0) {
		snprintf(name, len, "%s", ln->m.metric);
		return true;
	}
	if (nl <= 0 || (size_t)nl >= sizeof(raw) || (size_t)nl >= len)
		return false;
	snprintf(raw, sizeof(raw), "%.*s", nl, l + m[ln->name_group].rm_so);
	key_part(raw, name, len);
	return !declared(t, name);
}

/* Every line of text against every line pattern of stream s.  Blank lines
 * are lines too: one ends a section. */
static void read_lines(const struct metrics_table *t, char *text, int s, json_t *ms)
{
	bool in_section[M_MAX] = { false };

	for (char *l = text, *next; l != NULL && *l != '\0'; l = next) {
		size_t n;

		if ((next = strchr(l, '\n')) != NULL)
			*next++ = '\0';
		n = strlen(l);
		if (n > M_LINE_MAX)     /* what is matched: see M_LINE_MAX */
			l[n = M_LINE_MAX] = '\0';
		if (n > 0 && l[n - 1] == '\r')
			l[--n] = '\0';
		for (size_t i = 0; i < t->nlines; i++) {
			const struct m_line *ln = &t->lines[i];
			regmatch_t m[M_GROUPS];
			char name[96];
			double v;

			if (!(ln->stream & s))
				continue;
			if (ln->has_section) {
				if (regexec(&ln->section, l, 0, NULL, 0) == 0) {
					in_section[i] = true;
					continue;
				}
				if (n == 0 || strspn(l, " \t") == n)
					in_section[i] = false;
				if (!in_section[i])
					continue;
			}
			if (regexec(&ln->re, l, M_GROUPS, m, 0) != 0 || m[ln->value_group].rm_so < 0)
				continue;
			if (!number(l + m[ln->value_group].rm_so, (size_t)(m[ln->value_group].rm_eo - m[ln->value_group].rm_so), &v))
				continue;
			if (!line_name(t, ln, l, m, name, sizeof(name)))
				continue;
			if (ln->first && json_object_get(ms, name) != NULL)
				continue;
			metric_set(ms, name, v, &ln->m);
		}
	}
}

/* Does RE match a line of TEXT (each cut to M_LINE_MAX bytes)? */
static bool any_line(const regex_t *re, const char *text)
{
	char line[M_LINE_MAX + 1];

	for (const char *l = text, *next; *l != '\0'; l = next) {
		size_t n = (next = strchr(l, '\n')) != NULL ? (size_t)(next - l) : strlen(l);

		next = next != NULL ? next + 1 : l + n;
		if (n > M_LINE_MAX)
			n = M_LINE_MAX;
		memcpy(line, l, n);
		line[n] = '\0';
		if (regexec(re, line, 0, NULL, 0) == 0)
			return true;
	}
	return false;
}

/* An "invalid" pattern in the output: its why, or NULL. */
static const char *invalid_pattern(const struct metrics_table *t, const char *out, const char *errt)
{
	for (size_t i = 0; i < t->ninv; i++)
		if (((t->inv[i].stream & S_STDOUT) && any_line(&t->inv[i].re, out)) ||
		    ((t->inv[i].stream & S_STDERR) && any_line(&t->inv[i].re, errt)))
			return t->inv[i].why;
	return NULL;
}

/* Who failed, for a message: the program argv runs (its basename: "psql"),
 * not the table that reads it — keyvalue reads any program's output, and
 * "key=value exited with code 2" named nobody. */
static const char *program_of(const struct metrics_table *t, char *const *argv, int argc)
{
	const char *slash;

	if (argv == NULL || argc < 1 || argv[0] == NULL || argv[0][0] == '\0')
		return t->tool;
	slash = strrchr(argv[0], '/');
	return slash != NULL && slash[1] != '\0' ? slash + 1 : argv[0];
}

/* why + " (metrics = TABLE)" when the program is not the table's tool: the
 * table is what read its output. */
static const char *with_table(const struct metrics_table *t, const char *prog, char *why, size_t len)
{
	const char *base = strrchr(t->path, '/') ? strrchr(t->path, '/') + 1 : t->path;
	size_t n = strlen(why), bl = strlen(base);

	if (strcmp(prog, t->tool) == 0)
		return why;
	if (bl > 5 && strcmp(base + bl - 5, ".json") == 0)
		bl -= 5;
	if (n < len)
		snprintf(why + n, len - n, " (metrics = %.*s)", (int)bl, base);
	return why;
}

/* Why the numbers read are not a result (besides a pattern), or NULL. */
static const char *invalid_why(const struct metrics_table *t, int code, size_t rows, const json_t *ms,
			       char *const *argv, int argc, char *why, size_t len)
{
	const char *prog = program_of(t, argv, argc);
	bool code_ok = false;

	for (size_t i = 0; i < t->nexit; i++)
		code_ok |= code == t->exit_codes[i];
	if (code >= 0 && !code_ok) {
		snprintf(why, len, "%s exited with code %d", prog, code);
		return with_table(t, prog, why, len);
	}
	if (t->csv && rows == 0) {
		snprintf(why, len, "%s printed no row of numbers (a header alone is a failure)", prog);
		return with_table(t, prog, why, len);
	}
	for (size_t i = 0; i < t->nreq; i++)
		if (strcmp(t->require[i], "*") == 0 ? json_object_size(ms) == 0 : json_object_get(ms, t->require[i]) == NULL) {
			snprintf(why, len, "%s printed no %s", prog, strcmp(t->require[i], "*") ? t->require[i] : "metric");
			return with_table(t, prog, why, len);
		}
	if (t->count_flag[0]) {
		const char *fv = flag_value(argv, argc, t->count_flag);
		const json_t *m = json_object_get(json_object_get(ms, t->count_metric), "value");
		double want;

		if (fv != NULL && number(fv, strlen(fv), &want) && json_is_number(m) && json_number_value(m) < want) {
			snprintf(why, len, "%s did %.0f of the %s %.0f asked", prog, json_number_value(m), t->count_flag, want);
			return with_table(t, prog, why, len);
		}
	}
	return NULL;
}

json_t *metrics_read(const struct metrics_table *t, const char *out, const char *err_text, int code,
		     char *const *argv, int argc)
{
	char *o = strdup(out ? out : ""), *e = strdup(err_text ? err_text : ""), why[256];
	json_t *ms = json_object();
	const char *inv;
	size_t rows = 0;

	if (o == NULL || e == NULL) {
		free(o);
		free(e);
		return json_pack("{s:o, s:b, s:s}", "metrics", ms, "valid", 0, "invalid", "out of memory");
	}
	if (t->strip_ansi) {
		strip_ansi(o);
		strip_ansi(e);
	}
	inv = invalid_pattern(t, o, e);
	if (t->csv)
		rows = read_csv(t, t->csv_stream & S_STDERR ? e : o, ms);
	read_lines(t, o, S_STDOUT, ms);         /* (in place: o and e are cut into lines) */
	read_lines(t, e, S_STDERR, ms);
	if (inv == NULL)
		inv = invalid_why(t, code, rows, ms, argv, argc, why, sizeof(why));
	free(o);
	free(e);
	return json_pack("{s:o, s:b, s:s?}", "metrics", ms, "valid", inv == NULL, "invalid", inv);
}

bool metrics_has_role(const struct metrics_table *t, const char *role)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->cols[i].m.role, role) == 0)
			return true;
	for (size_t i = 0; i < t->nlines; i++)
		if (strcmp(t->lines[i].m.role, role) == 0)
			return true;
	return false;
}

/* A CSV column gives KEY/METRIC for any key of its rows; a line pattern its
 * metric, or any name when the name is a group of the line. */
bool metrics_may_give(const struct metrics_table *t, const char *name, const char *load)
{
	size_t nl = strlen(load), n;

	if (strncmp(name, load, nl) == 0 && strncmp(name + nl, ": ", 2) == 0)
		name += nl + 2;
	n = strlen(name);
	for (size_t i = 0; i < t->ncols; i++) {
		size_t m = strlen(t->cols[i].m.metric);

		if (n > m + 1 && name[n - m - 1] == '/' && strcmp(name + n - m, t->cols[i].m.metric) == 0)
			return true;
	}
	for (size_t i = 0; i < t->nlines; i++)
		if (t->lines[i].name_group > 0 || strcmp(t->lines[i].m.metric, name) == 0)
			return true;
	return false;
}

const char *metrics_path(const struct metrics_table *t)
{
	return t->path;
}

const char *metrics_tool(const struct metrics_table *t)
{
	return t->tool;
}

void metrics_free(struct metrics_table *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->nlines; i++) {
		regfree(&t->lines[i].re);
		if (t->lines[i].has_section)
			regfree(&t->lines[i].section);
	}
	for (size_t i = 0; i < t->ninv; i++)
		regfree(&t->inv[i].re);
	free(t);
}
