/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scenario.c — parse, type and validate scenario files (harness/plan/scenario.md). */
#include "scenario.h"
#include "tracedef.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/decl.h"
#include "host/knobdef.h"
#include "sandbox/settings.h"
#include "base/size.h"

static const char *const req_names[] = {
	"root", "memcg", "cgroup-v2", "thp", "swap", "lazyfree", "vm",
};

const char *scenario_req_name(unsigned bit)
{
	for (unsigned i = 0; i < sizeof(req_names) / sizeof(req_names[0]); i++)
		if (bit == (1u << i))
			return req_names[i];
	return "?";
}

/* ------------------------------------------------------------------------ */
/* small helpers                                                             */

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p == NULL)
		abort();
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

static int perr(struct lab_error *err, const char *file, struct scn_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int perr(struct lab_error *err, const char *file, struct scn_pos pos, const char *fmt, ...)
{
	char msg[LAB_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pos.line > 0)
		return lab_error_set(err, EINVAL, "%s:%d:%d: %s", file, pos.line, pos.col, msg);
	return lab_error_set(err, EINVAL, "%s: %s", file, msg);
}

static bool is_ident(const char *s)
{
	if (!(islower((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Split a value into blank-separated tokens, recording each one's column. */
struct tokens {
	size_t n;
	char *tok[SCN_MAX_ARGS];
	int col[SCN_MAX_ARGS];
};

static int tokenize(const char *v, int col0, struct tokens *t)
{
	const char *p = v;

	t->n = 0;
	while (*p) {
		const char *start;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (t->n == SCN_MAX_ARGS) {
			/* Too many words: none is kept (callers only report). */
			for (size_t i = 0; i < t->n; i++)
				free(t->tok[i]);
			t->n = 0;
			return -E2BIG;
		}
		start = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		t->tok[t->n] = xstrndup(start, (size_t)(p - start));
		t->col[t->n] = col0 + (int)(start - v);
		t->n++;
	}
	return 0;
}

static void tokens_free(struct tokens *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->tok[i]);
	t->n = 0;
}

/* ------------------------------------------------------------------------ */
/* parsing                                                                   */

enum section_kind { SEC_NONE, SEC_SCENARIO, SEC_PARAMS, SEC_MATRIX, SEC_SANDBOX, SEC_VM,
		    SEC_WORKLOAD, SEC_ACTION, SEC_KNOBS, SEC_TRACE, SEC_SAMPLE };

static const char *const scenario_keys[] = {
	"name", "title", "source", "expect", "report", "requires", "destructive", "repeat", NULL,
};
static const char *const vm_keys[] = { "mem", "cpus", "thp", "swap", "disk", "kernel", NULL };
static const char *const trace_keys[] = { "events", "raw", "burst", "burst_margin", "burst_always", "bin", "buffer_kb", NULL };
static const char *const sample_keys[] = { "walk_interval_ms", "flush_ms", NULL };

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

/* A [knobs] key is a sysctl name: "vm.watermark_scale_factor", "vm.page-cluster", "thp". */
static bool is_knob_key(const char *s)
{
	if (!islower((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_' || *s == '.' ||
		      *s == '-'))
			return false;
	return true;
}

static bool in_list(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

static void join_list(const char *const *list, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (; *list && off < len; list++) {
		int n = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", *list);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static int section_add(struct scn_section *sec, const char *file, const char *key,
		       const char *value, struct scn_pos kp, struct scn_pos vp, struct lab_error *err)
{
	for (size_t i = 0; i < sec->n; i++)
		if (!strcmp(sec->items[i].key, key))
			return perr(err, file, kp, "duplicate key '%s' (first at line %d)", key,
				    sec->items[i].key_pos.line);
	if (sec->n == SCN_MAX_KEYS)
		return perr(err, file, kp, "too many keys in this section (at most %d)", SCN_MAX_KEYS);
	sec->items[sec->n].key = xstrdup(key);
	sec->items[sec->n].value = xstrdup(value);
	sec->items[sec->n].key_pos = kp;
	sec->items[sec->n].value_pos = vp;
	sec->n++;
	return 0;
}

static const struct scn_item *section_get(const struct scn_section *sec, const char *key)
{
	for (size_t i = 0; i < sec->n; i++)
		if (!strcmp(sec->items[i].key, key))
			return &sec->items[i];
	return NULL;
}

static int scenario_key(struct scenario *s, const char *key, const char *value,
			struct scn_pos kp, struct scn_pos vp, struct lab_error *err)
{
	char **slot = NULL;
	struct tokens t;

	if (!strcmp(key, "name"))
		slot = &s->name;
	else if (!strcmp(key, "title"))
		slot = &s->title;
	else if (!strcmp(key, "source"))
		slot = &s->source;
	else if (!strcmp(key, "expect"))
		slot = &s->expect;
	if (slot != NULL) {
		if (*slot != NULL)
			return perr(err, s->file, kp, "duplicate key '%s'", key);
		*slot = xstrdup(value);
		return 0;
	}
	if (!strcmp(key, "destructive")) {
		if (parse_bool(value, &s->destructive) < 0)
			return perr(err, s->file, vp, "destructive: expected yes or no, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "repeat")) {
		unsigned long long n;
		struct lab_error e2;

		if (lab_parse_uint(value, &n, &e2) < 0 || n < 1 || n > 100)
			return perr(err, s->file, vp, "repeat: expected a whole number from 1 to 100, got '%s'",
				    value);
		s->repeat = (unsigned)n;
		s->repeat_pos = vp;
		return 0;
	}
	if (tokenize(value, vp.col, &t) < 0)
		return perr(err, s->file, vp, "%s: too many words", key);
	if (!strcmp(key, "report")) {
		for (size_t i = 0; i < t.n; i++) {
			if (s->nr_report == SCN_MAX_REPORT) {
				tokens_free(&t);
				return perr(err, s->file, vp, "report: at most %d tables", SCN_MAX_REPORT);
			}
			s->report[s->nr_report++] = xstrdup(t.tok[i]);
		}
		tokens_free(&t);
		return 0;
	}
	/* requires */
	for (size_t i = 0; i < t.n; i++) {
		unsigned bit = 0;

		for (unsigned b = 0; b < sizeof(req_names) / sizeof(req_names[0]); b++)
			if (!strcmp(t.tok[i], req_names[b]))
				bit = 1u << b;
		if (bit == 0) {
			struct scn_pos p = { vp.line, t.col[i] };
			int ret = perr(err, s->file, p,
				       "requires: unknown requirement '%s' (known: root, memcg, cgroup-v2, thp, swap, lazyfree, vm)",
				       t.tok[i]);

			tokens_free(&t);
			return ret;
		}
		s->requires |= bit;
	}
	tokens_free(&t);
	return 0;
}

static int add_param(struct scenario *s, const char *name, const char *value, struct scn_pos pos,
		     struct lab_error *err)
{
	for (size_t i = 0; i < s->nr_params; i++)
		if (!strcmp(s->params[i].name, name))
			return perr(err, s->file, pos, "duplicate parameter '%s' (first at line %d)",
				    name, s->params[i].pos.line);
	if (s->nr_params == SCN_MAX_PARAMS)
		return perr(err, s->file, pos, "too many parameters (at most %d)", SCN_MAX_PARAMS);
	s->params[s->nr_params].name = xstrdup(name);
	s->params[s->nr_params].value = xstrdup(value);
	s->params[s->nr_params].pos = pos;
	s->params[s->nr_params].set_by = NULL;
	s->nr_params++;
	return 0;
}

static int add_dim(struct scenario *s, const char *name, const char *value, struct scn_pos pos,
		   struct lab_error *err)
{
	struct scn_dim *d;
	struct tokens t;

	if (s->nr_dims == SCN_MAX_MATRIX)
		return perr(err, s->file, pos, "too many matrix dimensions (at most %d)", SCN_MAX_MATRIX);
	for (size_t i = 0; i < s->nr_dims; i++)
		if (!strcmp(s->dims[i].name, name))
			return perr(err, s->file, pos, "duplicate matrix dimension '%s'", name);
	if (tokenize(value, pos.col, &t) < 0 || t.n > SCN_MAX_VALUES) {
		tokens_free(&t);
		return perr(err, s->file, pos, "matrix %s: at most %d values", name, SCN_MAX_VALUES);
	}
	if (t.n == 0)
		return perr(err, s->file, pos, "matrix %s: no values", name);
	d = &s->dims[s->nr_dims++];
	d->name = xstrdup(name);
	d->pos = pos;
	d->n = t.n;
	for (size_t i = 0; i < t.n; i++)
		d->values[i] = t.tok[i];   /* ownership moves to the dimension */
	return 0;
}

static int parse_inner(const char *file, const char *text, struct scenario *s, struct lab_error *err)
{
	enum section_kind kind = SEC_NONE;
	struct scn_section *cur = NULL;
	const char *p = text;
	int line = 0;
	char known[256];

	memset(s, 0, sizeof(*s));
	s->file = xstrdup(file);
	s->repeat = 1;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *l = xstrndup(p, len);
		char *b, *e, *eq, *key, *val;
		struct scn_pos kp, vp;
		int ret = 0;

		line++;
		p += len + (eol ? 1 : 0);
		/* A comment starts at '#' at the start or after a blank. */
		for (char *c = l; *c; c++)
			if (*c == '#' && (c == l || c[-1] == ' ' || c[-1] == '\t')) {
				*c = '\0';
				break;
			}
		for (char *c = l; *c; c++)
			if (*c == '\r' || (unsigned char)*c < 0x20) {
				if (*c != '\t') {
					int col = (int)(c - l) + 1;
					unsigned char bad = (unsigned char)*c;  /* read before l is freed */

					free(l);
					return perr(err, file, (struct scn_pos){ line, col },
						    "control character 0x%02x", bad);
				}
			}
		b = l;
		while (*b == ' ' || *b == '\t')
			b++;
		e = b + strlen(b);
		while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (*b == '\0') {
			free(l);
			continue;
		}
		kp = (struct scn_pos){ line, (int)(b - l) + 1 };
		if (*b == '[') {
			char *close = strchr(b, ']');
			char *sp;

			if (close == NULL || close[1] != '\0') {
				free(l);
				return perr(err, file, kp, "a section header is [name] or [name LABEL]");
			}
			*close = '\0';
			b++;
			sp = strchr(b, ' ');
			if (sp)
				*sp++ = '\0';
			cur = NULL;
			if (!strcmp(b, "scenario") && !sp)
				kind = SEC_SCENARIO;
			else if (!strcmp(b, "params") && !sp)
				kind = SEC_PARAMS;
			else if (!strcmp(b, "matrix") && !sp)
				kind = SEC_MATRIX;
			else if (!strcmp(b, "sandbox") && !sp) {
				kind = SEC_SANDBOX;
				cur = &s->sandbox;
			} else if (!strcmp(b, "vm") && !sp) {
				kind = SEC_VM;
				cur = &s->vm;
			} else if (!strcmp(b, "knobs") && !sp) {
				kind = SEC_KNOBS;
				cur = &s->knobs;
			} else if (!strcmp(b, "trace") && !sp) {
				kind = SEC_TRACE;
				cur = &s->trace;
			} else if (!strcmp(b, "sample") && !sp) {
				kind = SEC_SAMPLE;
				cur = &s->sample;
			} else if ((!strcmp(b, "workload") || !strcmp(b, "action")) && sp) {
				bool wl = b[0] == 'w';
				size_t *n = wl ? &s->nr_workloads : &s->nr_actions;
				struct scn_section *arr = wl ? s->workloads : s->actions;
				size_t max = wl ? SCN_MAX_WORKLOADS : SCN_MAX_ACTIONS;

				while (*sp == ' ')
					sp++;
				if (!is_ident(sp) || strlen(sp) >= 32)
					ret = perr(err, file, kp, "[%s NAME]: '%s' is not a name (a-z, 0-9, _)", b, sp);
				for (size_t i = 0; ret == 0 && i < *n; i++)
					if (!strcmp(arr[i].name, sp))
						ret = perr(err, file, kp, "duplicate [%s %s]", b, sp);
				if (ret == 0 && *n == max)
					ret = perr(err, file, kp, "too many [%s] sections (at most %zu)", b, max);
				if (ret == 0) {
					cur = &arr[(*n)++];
					cur->name = xstrdup(sp);
					cur->pos = kp;
					kind = wl ? SEC_WORKLOAD : SEC_ACTION;
				}
			} else {
				ret = perr(err, file, kp,
					   "unknown section [%s%s%s] (known: [scenario], [params], [matrix], [sandbox], [vm], [knobs], [trace], [sample], [workload NAME], [action NAME])",
					   b, sp ? " " : "", sp ? sp : "");
			}
			free(l);
			if (ret < 0)
				return ret;
			continue;
		}
		eq = strchr(b, '=');
		if (eq == NULL) {
			free(l);
			return perr(err, file, kp, "expected 'key = value'");
		}
		key = b;
		val = eq + 1;
		e = eq;
		while (e > key && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*e = '\0';
		while (*val == ' ' || *val == '\t')
			val++;
		vp = (struct scn_pos){ line, (int)(val - l) + 1 };
		if (kind == SEC_KNOBS ? !is_knob_key(key) : !is_ident(key))
			ret = perr(err, file, kp, "'%s' is not a key (a-z, 0-9, _%s)", key,
				   kind == SEC_KNOBS ? ", . and - in [knobs]" : "");
		else if (*val == '\0')
			ret = perr(err, file, vp, "%s: empty value", key);
		else
			switch (kind) {
			case SEC_NONE:
				ret = perr(err, file, kp, "'%s' outside any section (start with [scenario])", key);
				break;
			case SEC_SCENARIO:
				if (!in_list(scenario_keys, key)) {
					join_list(scenario_keys, known, sizeof(known));
					ret = perr(err, file, kp, "unknown key '%s' in [scenario] (known: %s)", key, known);
				} else {
					ret = scenario_key(s, key, val, kp, vp, err);
				}
				break;
			case SEC_PARAMS:
				ret = add_param(s, key, val, vp, err);
				break;
			case SEC_MATRIX:
				ret = add_dim(s, key, val, vp, err);
				break;
			case SEC_SANDBOX:
				/* The keys are sandbox/settings.c's table. */
				if (sandbox_setting_find(key) == NULL) {
					sandbox_setting_keys(known, sizeof(known));
					ret = perr(err, file, kp, "unknown key '%s' in [sandbox] (known: %s)", key, known);
				} else {
					ret = section_add(cur, file, key, val, kp, vp, err);
				}
				break;
			case SEC_VM:
			case SEC_TRACE:
			case SEC_SAMPLE: {
				const char *const *keys = kind == SEC_VM ? vm_keys
							  : kind == SEC_TRACE ? trace_keys : sample_keys;

				if (!in_list(keys, key)) {
					join_list(keys, known, sizeof(known));
					ret = perr(err, file, kp, "unknown key '%s' in [%s] (known: %s)", key,
						   kind == SEC_VM ? "vm"
						   : kind == SEC_TRACE ? "trace" : "sample", known);
				} else {
					ret = section_add(cur, file, key, val, kp, vp, err);
				}
				break;
			}
			case SEC_WORKLOAD:
			case SEC_ACTION:
			case SEC_KNOBS:
				ret = section_add(cur, file, key, val, kp, vp, err);
				break;
			}
		free(l);
		if (ret < 0)
			return ret;
	}
	if (s->name == NULL)
		return perr(err, file, (struct scn_pos){ 0, 0 }, "[scenario] has no name");
	if (s->nr_workloads == 0)
		return perr(err, file, (struct scn_pos){ 0, 0 }, "no [workload NAME] section");
	for (size_t i = 0; i < SB_NR_SETTINGS; i++)
		if ((sandbox_settings[i].flags & SB_F_REQUIRED) && section_get(&s->sandbox, sandbox_settings[i].key) == NULL)
			return perr(err, file, (struct scn_pos){ 0, 0 }, "[sandbox] needs %s", sandbox_settings[i].key);
	return 0;
}

int scenario_parse(const char *file, const char *text, struct scenario *s, struct lab_error *err)
{
	int ret = parse_inner(file, text, s, err);

	if (ret < 0)
		scenario_free(s);       /* leaves *s zeroed: freeing it again is harmless */
	return ret;
}

int scenario_override(struct scenario *s, const char *assignment, struct lab_error *err)
{
	const char *eq = strchr(assignment, '=');
	char *name;

	if (eq == NULL || eq == assignment || eq[1] == '\0')
		return lab_error_set(err, EINVAL, "--set %s: expected KEY=VALUE", assignment);
	name = xstrndup(assignment, (size_t)(eq - assignment));
	for (size_t i = 0; i < s->nr_dims; i++) {
		struct scn_dim *d = &s->dims[i];

		if (strcmp(d->name, name) != 0)
			continue;
		for (size_t j = 0; j < d->n; j++)
			free(d->values[j]);
		d->values[0] = xstrdup(eq + 1);
		d->n = 1;
		d->pos = (struct scn_pos){ 0, 0 };
		free(name);
		goto record;
	}
	for (size_t i = 0; i < s->nr_params; i++) {
		struct scn_param *pa = &s->params[i];

		if (strcmp(pa->name, name) != 0)
			continue;
		free(pa->value);
		free(pa->set_by);
		pa->value = xstrdup(eq + 1);
		pa->set_by = xstrdup(assignment);
		free(name);
		goto record;
	}
	{
		char known[512];
		size_t off = 0;

		known[0] = '\0';
		for (size_t i = 0; i < s->nr_params && off < sizeof(known); i++) {
			int n = snprintf(known + off, sizeof(known) - off, "%s%s", i ? ", " : "",
					 s->params[i].name);
			if (n > 0)
				off += (size_t)n;
		}
		for (size_t i = 0; i < s->nr_dims && off < sizeof(known); i++) {
			int n = snprintf(known + off, sizeof(known) - off, "%s%s", off ? ", " : "",
					 s->dims[i].name);
			if (n > 0)
				off += (size_t)n;
		}
		lab_error_set(err, EINVAL, "--set %s: %s has no parameter '%s' (it has: %s)", assignment,
			      s->name, name, known[0] ? known : "none");
		free(name);
		return -EINVAL;
	}
record:
	{
		size_t old = s->overrides_text ? strlen(s->overrides_text) : 0;
		char *n = realloc(s->overrides_text, old + strlen(assignment) + 2);

		if (n == NULL)
			abort();
		if (old)
			n[old++] = ' ';
		strcpy(n + old, assignment);
		s->overrides_text = n;
	}
	return 0;
}

static void section_free(struct scn_section *sec)
{
	free(sec->name);
	for (size_t i = 0; i < sec->n; i++) {
		free(sec->items[i].key);
		free(sec->items[i].value);
	}
}

void scenario_free(struct scenario *s)
{
	free(s->file);
	free(s->name);
	free(s->title);
	free(s->source);
	free(s->expect);
	for (size_t i = 0; i < s->nr_report; i++)
		free(s->report[i]);
	for (size_t i = 0; i < s->nr_params; i++) {
		free(s->params[i].name);
		free(s->params[i].value);
		free(s->params[i].set_by);
	}
	for (size_t i = 0; i < s->nr_dims; i++) {
		free(s->dims[i].name);
		for (size_t j = 0; j < s->dims[i].n; j++)
			free(s->dims[i].values[j]);
	}
	section_free(&s->sandbox);
	section_free(&s->vm);
	section_free(&s->knobs);
	section_free(&s->trace);
	section_free(&s->sample);
	for (size_t i = 0; i < s->nr_workloads; i++)
		section_free(&s->workloads[i]);
	for (size_t i = 0; i < s->nr_actions; i++)
		section_free(&s->actions[i]);
	free(s->overrides_text);
	memset(s, 0, sizeof(*s));
}

size_t scenario_nr_variants(const struct scenario *s)
{
	size_t n = 1;

	for (size_t i = 0; i < s->nr_dims; i++)
		n *= s->dims[i].n;
	return n;
}

/* ------------------------------------------------------------------------ */
/* one variant: substitution and types                                       */

struct inst {
	const struct scenario *s;
	size_t nr_var;
	const char *var_key[SCN_MAX_MATRIX];
	const char *var_val[SCN_MAX_MATRIX];
	const struct scn_dim *var_dim[SCN_MAX_MATRIX];
	struct lab_error *err;
};

struct expanded {
	char text[1024];
	char origin[256];       /* where a substituted value came from, "" if none */
};

static int inst_err(struct inst *in, struct scn_pos pos, const struct expanded *x, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int inst_err(struct inst *in, struct scn_pos pos, const struct expanded *x, const char *fmt, ...)
{
	char msg[LAB_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x != NULL && x->origin[0])
		return perr(in->err, in->s->file, pos, "%s (%s)", msg, x->origin);
	return perr(in->err, in->s->file, pos, "%s", msg);
}

static const char *lookup(struct inst *in, const char *name, char *origin, size_t olen)
{
	for (size_t i = 0; i < in->nr_var; i++)
		if (!strcmp(in->var_key[i], name)) {
			if (in->var_dim[i]->pos.line > 0)
				snprintf(origin, olen, "%s = %s from [matrix] at line %d", name, in->var_val[i],
					 in->var_dim[i]->pos.line);
			else
				snprintf(origin, olen, "from --set %s=%s", name, in->var_val[i]);
			return in->var_val[i];
		}
	for (size_t i = 0; i < in->s->nr_params; i++) {
		const struct scn_param *p = &in->s->params[i];

		if (strcmp(p->name, name) != 0)
			continue;
		if (p->set_by)
			snprintf(origin, olen, "from --set %s", p->set_by);
		else
			snprintf(origin, olen, "%s = %s set at line %d, column %d", name, p->value,
				 p->pos.line, p->pos.col);
		return p->value;
	}
	return NULL;
}

static int expand(struct inst *in, const char *raw, struct scn_pos pos, struct expanded *x)
{
	size_t o = 0;

	x->origin[0] = '\0';
	for (const char *p = raw; *p;) {
		const char *val;
		char name[64], origin[256];
		const char *close;
		size_t n;

		if (p[0] != '$' || p[1] != '{') {
			if (o + 1 >= sizeof(x->text))
				return inst_err(in, pos, NULL, "value too long");
			x->text[o++] = *p++;
			continue;
		}
		close = strchr(p, '}');
		n = close ? (size_t)(close - p - 2) : 0;
		if (close == NULL || n == 0 || n >= sizeof(name))
			return inst_err(in, (struct scn_pos){ pos.line, pos.col + (int)(p - raw) }, NULL,
					"'${' without a parameter name and '}'");
		memcpy(name, p + 2, n);
		name[n] = '\0';
		val = lookup(in, name, origin, sizeof(origin));
		if (val == NULL)
			return inst_err(in, (struct scn_pos){ pos.line, pos.col + (int)(p - raw) }, NULL,
					"unknown parameter ${%s} (declare it in [params] or [matrix])", name);
		if (x->origin[0] == '\0')
			snprintf(x->origin, sizeof(x->origin), "%s", origin);
		if (o + strlen(val) >= sizeof(x->text))
			return inst_err(in, pos, NULL, "value too long");
		memcpy(x->text + o, val, strlen(val));
		o += strlen(val);
		p = close + 1;
	}
	x->text[o] = '\0';
	return 0;
}

/* K_MEM: a positive size of memory a workload takes (a region, a ballast, a
 * pressure, a stepper's step or target, a cache file): never more than the
 * machine could ever hold (scenario.machine_bytes). */
enum kind {
	K_SIZE = WT_SIZE, K_POSITIVE_SIZE = WT_POSITIVE_SIZE, K_BYTE = WT_BYTE, K_UINT = WT_UINT,
	K_POSITIVE_UINT = WT_POSITIVE_UINT, K_BOOL = WT_BOOL, K_ENUM = WT_ENUM, K_MEM = WT_MEM,
};

/* Type one expanded word.  field names the thing for the message. */
static int typed(struct inst *in, const char *field, const char *word, enum kind k, const char *enums,
		 struct scn_pos pos, const struct expanded *x, unsigned long long *out)
{
	struct lab_error e2;
	bool b;

	switch (k) {
	case K_SIZE:
	case K_POSITIVE_SIZE:
	case K_MEM:
		if (lab_parse_size(word, out, &e2) < 0)
			return inst_err(in, pos, x, "%s: %s", field, e2.msg);
		if (k != K_SIZE && *out == 0)
			return inst_err(in, pos, x, "%s: size must be greater than zero, got '%s'", field, word);
		if (k == K_MEM && in->s->machine_bytes && *out > in->s->machine_bytes) {
			char sa[32], sb[32];

			return inst_err(in, pos, x, "%s: %s is more than this machine could ever hold (%s: %s)",
					field, lab_format_size(*out, sa, sizeof(sa)),
					in->s->machine_what ? in->s->machine_what : "its memory",
					lab_format_size(in->s->machine_bytes, sb, sizeof(sb)));
		}
		return 0;
	case K_BYTE: {
		unsigned int byte;

		if (lab_parse_byte(word, &byte, &e2) < 0)
			return inst_err(in, pos, x, "%s: %s", field, e2.msg);
		*out = byte;
		return 0;
	}
	case K_UINT:
	case K_POSITIVE_UINT:
		if (lab_parse_uint(word, out, &e2) < 0)
			return inst_err(in, pos, x, "%s: expected a whole number, got '%s'", field, word);
		if (k == K_POSITIVE_UINT && *out == 0)
			return inst_err(in, pos, x, "%s: must be at least 1, got '%s'", field, word);
		return 0;
	case K_BOOL:
		if (parse_bool(word, &b) < 0)
			return inst_err(in, pos, x, "%s: expected yes or no, got '%s'", field, word);
		*out = b;
		return 0;
	case K_ENUM: {
		size_t wl = strlen(word);

		for (const char *p = enums; *p;) {
			const char *bar = strchr(p, '|');
			size_t n = bar ? (size_t)(bar - p) : strlen(p);

			if (n == wl && !strncmp(p, word, n)) {
				*out = 0;
				return 0;
			}
			p += n + (bar ? 1 : 0);
		}
		return inst_err(in, pos, x, "%s: '%s' is not one of %s", field, word, enums);
	}
	}
	return -EINVAL;
}

static int typed_item(struct inst *in, const struct scn_section *sec, const char *what,
		      const struct scn_item *it, enum kind k, const char *enums,
		      unsigned long long *out, struct expanded *x)
{
	char field[96];
	int ret;

	snprintf(field, sizeof(field), "%s%s%s", what, what[0] ? " " : "", it->key);
	(void)sec;
	ret = expand(in, it->value, it->value_pos, x);
	if (ret < 0)
		return ret;
	return typed(in, field, x->text, k, enums, it->value_pos, x, out);
}

static void arg_push(struct run_workload *w, const char *a)
{
	if (w->argc < SCN_MAX_ARGS - 1)
		w->argv[w->argc++] = xstrdup(a);
	w->argv[w->argc] = NULL;
}

/* The region workload's steps: workloads/decl/region.c, the table region's
 * own argument parser reads too. */
static const struct wl_step *step_find(const char *name)
{
	return wl_step_find(wl_decl_find("region"), name);
}

static int region_steps(struct inst *in, const struct scn_item *it, struct run_workload *w,
			unsigned long long region)
{
	struct expanded x;
	struct tokens t;
	int ret = 0;

	if (tokenize(it->value, it->value_pos.col, &t) < 0)
		return inst_err(in, it->value_pos, NULL, "steps: too many steps (at most %d)", SCN_MAX_ARGS - 8);
	if (t.n == 0)
		ret = inst_err(in, it->value_pos, NULL, "steps: no steps");
	for (size_t i = 0; ret == 0 && i < t.n; i++) {
		struct scn_pos pos = { it->value_pos.line, t.col[i] };
		char *parts[4] = { 0 };
		size_t np = 0;
		const struct wl_step *sc;
		char norm[160];
		size_t off;

		ret = expand(in, t.tok[i], pos, &x);
		if (ret < 0)
			break;
		for (char *save = NULL, *q = strtok_r(x.text, ":", &save); q && np < 4;
		     q = strtok_r(NULL, ":", &save))
			parts[np++] = q;
		sc = np ? step_find(parts[0]) : NULL;
		if (sc == NULL) {
			char known[256];

			wl_decl_step_names(wl_decl_find("region"), known, sizeof(known));
			ret = inst_err(in, pos, &x, "steps: unknown step '%s' (known: %s)", np ? parts[0] : t.tok[i],
				       known);
			break;
		}
		if ((int)np - 1 < sc->nargs || (int)np - 1 > sc->nargs + sc->nopt) {
			if (sc->nopt)
				ret = inst_err(in, pos, &x, "steps: '%s' takes %d to %d arguments separated by ':', got %d",
					       sc->name, sc->nargs, sc->nargs + sc->nopt, (int)np - 1);
			else
				ret = inst_err(in, pos, &x, "steps: '%s' takes %d argument%s separated by ':', got %d",
					       sc->name, sc->nargs, sc->nargs == 1 ? "" : "s", (int)np - 1);
			break;
		}
		off = (size_t)snprintf(norm, sizeof(norm), "%s", sc->name);
		for (int a = 0; ret == 0 && a < (int)np - 1; a++) {
			unsigned long long v;
			char field[64];
			enum kind k = sc->args[a] == WT_ADVICE ? K_ENUM : (enum kind)sc->args[a];
			const char *enums = sc->args[a] == WT_ADVICE ? wl_advice_names(sc->name) : sc->enums;

			snprintf(field, sizeof(field), "steps: %s", sc->name);
			ret = typed(in, field, parts[a + 1], k, enums, pos, &x, &v);
			if (ret < 0)
				break;
			if (k == K_BYTE)
				off += (size_t)snprintf(norm + off, sizeof(norm) - off, ":0x%02llx", v);
			else if (k == K_ENUM)
				off += (size_t)snprintf(norm + off, sizeof(norm) - off, ":%s", parts[a + 1]);
			else
				off += (size_t)snprintf(norm + off, sizeof(norm) - off, ":%llu", v);
			if (!strcmp(sc->name, "write") && a == 0 && region && v * 4096 > region)
				ret = inst_err(in, pos, &x, "steps: write: %llu pages do not fit in the region (%llu pages)",
					       v, region / 4096);
			if (k == K_POSITIVE_SIZE && !strcmp(sc->name, "advise") && region && v > region)
				ret = inst_err(in, pos, &x, "steps: advise: %llu bytes are more than the region (%llu)", v,
					       region);
		}
		if (ret == 0)
			arg_push(w, norm);
	}
	tokens_free(&t);
	return ret;
}

static int workload_start(struct inst *in, const struct scn_item *it, size_t self, struct run_workload *w)
{
	struct tokens t;
	int ret = 0;

	w->start_after = -1;
	if (it == NULL)
		return 0;
	if (tokenize(it->value, it->value_pos.col, &t) < 0 || t.n != 3 || strcmp(t.tok[0], "after") != 0) {
		tokens_free(&t);
		return inst_err(in, it->value_pos, NULL, "start: expected 'after WORKLOAD STEP'");
	}
	for (size_t i = 0; i < self; i++)
		if (!strcmp(in->s->workloads[i].name, t.tok[1]))
			w->start_after = (int)i;
	if (w->start_after < 0)
		ret = inst_err(in, (struct scn_pos){ it->value_pos.line, t.col[1] }, NULL,
			       "start: no workload '%s' declared before this one", t.tok[1]);
	else
		snprintf(w->start_step, sizeof(w->start_step), "%s", t.tok[2]);
	tokens_free(&t);
	return ret;
}

static int workload_inst(struct inst *in, size_t idx, struct run_workload *w)
{
	const struct scn_section *sec = &in->s->workloads[idx];
	const struct scn_item *prog = section_get(sec, "program");
	const struct wl_decl *pg;
	struct expanded x;
	char what[64];
	int ret;

	snprintf(w->name, sizeof(w->name), "%s", sec->name);
	snprintf(what, sizeof(what), "[workload %s]", sec->name);
	char programs[128];

	wl_decl_programs(programs, sizeof(programs));
	if (prog == NULL)
		return inst_err(in, sec->pos, NULL, "%s needs program = one of %s", what, programs);
	pg = wl_decl_find(prog->value);
	if (pg == NULL)
		return inst_err(in, prog->value_pos, NULL, "%s program: unknown program '%s' (known: %s)",
				what, prog->value, programs);
	snprintf(w->program, sizeof(w->program), "%s", pg->program);
	arg_push(w, pg->program);
	for (size_t i = 0; i < sec->n; i++) {
		const struct scn_item *it = &sec->items[i];
		bool known = !strcmp(it->key, "program") || !strcmp(it->key, "start");

		known |= wl_opt_find(pg, it->key) != NULL;
		if (!known) {
			char list[256] = "program, start";
			size_t off = strlen(list);

			for (const struct wl_opt *k = pg->opts; k->key; k++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, ", %s", k->key);
			return inst_err(in, it->key_pos, NULL, "unknown key '%s' in %s (program %s takes: %s)",
					it->key, what, pg->program, list);
		}
	}
	ret = workload_start(in, section_get(sec, "start"), idx, w);
	if (ret < 0)
		return ret;
	if (!strcmp(pg->program, "hold") && (section_get(sec, "size") == NULL) == (section_get(sec, "leave") == NULL))
		return inst_err(in, sec->pos, NULL, "%s needs size or leave (one of them)", what);
	for (const struct wl_opt *k = pg->opts; k->key; k++) {
		const struct scn_item *it = section_get(sec, k->key);
		unsigned long long v;
		char num[32];

		if (it == NULL) {
			if (k->required)
				return inst_err(in, sec->pos, NULL, "%s needs %s", what, k->key);
			continue;
		}
		if (!strcmp(k->key, "steps")) {
			ret = region_steps(in, it, w, w->region_bytes);
			if (ret < 0)
				return ret;
			continue;
		}
		if (!strcmp(k->key, "pace")) {
			/* stepper's pace: "64M/50" = 64 MiB every 50 ms, so one matrix
			 * dimension can carry the article's two rates (runs A-D). */
			unsigned long long ms;
			char *slash;

			ret = expand(in, it->value, it->value_pos, &x);
			if (ret < 0)
				return ret;
			slash = strchr(x.text, '/');
			if (slash == NULL)
				return inst_err(in, it->value_pos, &x, "%s pace: expected SIZE/MS (64M/50), got '%s'", what,
						x.text);
			*slash = '\0';
			ret = typed(in, "pace", x.text, K_MEM, NULL, it->value_pos, &x, &v);
			if (ret == 0)
				ret = typed(in, "pace", slash + 1, K_UINT, NULL, it->value_pos, &x, &ms);
			if (ret < 0)
				return ret;
			snprintf(num, sizeof(num), "%llu", v);
			arg_push(w, "--step");
			arg_push(w, num);
			snprintf(num, sizeof(num), "%llu", ms);
			arg_push(w, "--interval");
			arg_push(w, num);
			continue;
		}
		if (!strcmp(k->key, "malloc_conf")) {
			/* Free text ("dirty_decay_ms:0,muzzy_decay_ms:10000"): jemalloc
			 * checks it and says what it did not understand. */
			ret = expand(in, it->value, it->value_pos, &x);
			if (ret < 0)
				return ret;
			arg_push(w, "--malloc-conf");
			arg_push(w, x.text);
			continue;
		}
		ret = typed_item(in, sec, what, it, (enum kind)k->type, k->enums, &v, &x);
		if (ret < 0)
			return ret;
		if (!strcmp(k->key, "allocator")) {
			arg_push(w, "--allocator");
			arg_push(w, x.text);
		} else if (!strcmp(k->key, "size")) {
			w->region_bytes = v;
			snprintf(num, sizeof(num), "%llu", v);
			arg_push(w, "--size");
			arg_push(w, num);
		} else if (!strcmp(k->key, "thp")) {
			arg_push(w, "--thp");
			arg_push(w, x.text);
		} else if (!strcmp(k->key, "shared")) {
			if (v)
				arg_push(w, "--shared");
		} else if (!strcmp(k->key, "fill")) {
			snprintf(num, sizeof(num), "0x%02llx", v);
			arg_push(w, "--fill");
			arg_push(w, num);
		} else {
			/* stepper, cachefill: "--key-name VALUE" (sizes in bytes),
			 * booleans as a flag; release = no is "--no-release". */
			char opt[48];
			size_t o = (size_t)snprintf(opt, sizeof(opt), "--%s", k->key);

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
				continue;
			}
			if (k->type == WT_ENUM) {       /* the word as written: goalloc's madvdontneed 0|1|default */
				arg_push(w, opt);
				arg_push(w, x.text);
				continue;
			}
			snprintf(num, sizeof(num), "%llu", v);
			arg_push(w, opt);
			arg_push(w, num);
		}
	}
	if (!strcmp(pg->program, "stepper") && (section_get(sec, "step") == NULL) == (section_get(sec, "pace") == NULL))
		return inst_err(in, sec->pos, NULL, "%s needs either step (with interval) or pace = SIZE/MS", what);
	return 0;
}

static int action_inst(struct inst *in, size_t idx, struct run_spec *r)
{
	const struct scn_section *sec = &in->s->actions[idx];
	struct run_action *a = &r->actions[idx];
	const struct scn_item *at = section_get(sec, "at");
	const struct scn_item *rc = section_get(sec, "reclaim");
	struct expanded x;
	struct tokens t;
	int ret = 0;

	snprintf(a->name, sizeof(a->name), "%s", sec->name);
	for (size_t i = 0; i < sec->n; i++)
		if (strcmp(sec->items[i].key, "at") && strcmp(sec->items[i].key, "reclaim"))
			return inst_err(in, sec->items[i].key_pos, NULL,
					"unknown key '%s' in [action %s] (known: at, reclaim)", sec->items[i].key,
					sec->name);
	if (at == NULL || rc == NULL)
		return inst_err(in, sec->pos, NULL, "[action %s] needs at = WORKLOAD STEP and reclaim = SIZE",
				sec->name);
	if (tokenize(at->value, at->value_pos.col, &t) < 0 || t.n != 2) {
		tokens_free(&t);
		return inst_err(in, at->value_pos, NULL, "at: expected 'WORKLOAD STEP'");
	}
	a->workload = -1;
	for (size_t i = 0; i < r->nr_workloads; i++)
		if (!strcmp(r->workloads[i].name, t.tok[0]))
			a->workload = (int)i;
	if (a->workload < 0)
		ret = inst_err(in, at->value_pos, NULL, "at: no workload '%s'", t.tok[0]);
	else if (step_find(t.tok[1]) == NULL)
		ret = inst_err(in, (struct scn_pos){ at->value_pos.line, t.col[1] }, NULL, "at: unknown step '%s'",
			       t.tok[1]);
	else
		snprintf(a->step, sizeof(a->step), "%s", t.tok[1]);
	tokens_free(&t);
	if (ret < 0)
		return ret;
	return typed_item(in, sec, "", rc, K_POSITIVE_SIZE, NULL, &a->reclaim_bytes, &x);
}

/* One [knobs] entry: a knob a scenario may change (harness/host/knobdef.c), its
 * value typed and range-checked against the kernel's own limits. */
static int knob_inst(struct inst *in, const struct scn_item *it, struct run_knob *k)
{
	const struct knob_def *d = knob_def_find(it->key);
	struct expanded x;
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
			return inst_err(in, it->key_pos, NULL, "[knobs] %s: not a knob a scenario may change (%s)",
					it->key, d->type == KT_TRIGGER ? "a trigger, not a setting" : "advice only");
		if (knob_def_removed(it->key) != NULL)
			return inst_err(in, it->key_pos, NULL, "[knobs] %s: %s", it->key, knob_def_removed(it->key));
		return inst_err(in, it->key_pos, NULL, "[knobs] unknown knob '%s' (known: %s)", it->key, list);
	}
	ret = expand(in, it->value, it->value_pos, &x);
	if (ret < 0)
		return ret;
	if (strcmp(x.text, "keep") == 0)
		return 1;       /* left as the machine has it: not journaled, not written */
	if (knob_def_value(d, x.text, k->value, sizeof(k->value), &e2) < 0)
		return inst_err(in, it->value_pos, &x, "[knobs] %s", e2.msg);
	snprintf(k->name, sizeof(k->name), "%s", d->name);
	snprintf(k->text, sizeof(k->text), "%.95s", x.text);
	return 0;
}

/* [trace]: which tracepoints (trace/tracedef.h), raw or per interval, and
 * the adaptive bursts.  Absent keys take the defaults in scenario.md. */
static int trace_inst(struct inst *in, struct run_spec *r)
{
	const struct scn_section *sec = &in->s->trace;
	const struct scn_item *it;
	struct expanded x;
	unsigned long long v;
	int ret;

	r->trace = (struct run_trace){ .set = tracedef_default_set(in->s->name), .raw = false,
				       .burst_ms = 10, .burst_margin_pct = 50, .bin_ms = 1000, .buffer_kb = 4096 };
	if ((it = section_get(sec, "events")) != NULL) {
		struct lab_error e;
		bool dflt;
		unsigned set;

		if ((ret = expand(in, it->value, it->value_pos, &x)) < 0)
			return ret;
		if (tracedef_parse_set(x.text, &set, &dflt, &e) < 0)
			return inst_err(in, it->value_pos, &x, "[trace] events: %s", e.msg);
		if (!dflt)
			r->trace.set = set;
	}
	if ((it = section_get(sec, "raw")) != NULL) {
		if ((ret = typed_item(in, sec, "[trace]", it, K_BOOL, NULL, &v, &x)) < 0)
			return ret;
		r->trace.raw = v != 0;
	}
	if ((it = section_get(sec, "burst")) != NULL) {
		if ((ret = typed_item(in, sec, "[trace]", it, K_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v != 0 && (v < 2 || v > 1000))
			return inst_err(in, it->value_pos, &x, "[trace] burst: 0 (none) or 2..1000 ms, got %llu", v);
		r->trace.burst_ms = (unsigned)v;
	}
	if ((it = section_get(sec, "burst_margin")) != NULL) {
		if ((ret = typed_item(in, sec, "[trace]", it, K_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v > 1000)
			return inst_err(in, it->value_pos, &x, "[trace] burst_margin: 0..1000 (%% of the low-high gap), got %llu", v);
		r->trace.burst_margin_pct = (unsigned)v;
	}
	if ((it = section_get(sec, "burst_always")) != NULL) {
		if ((ret = typed_item(in, sec, "[trace]", it, K_BOOL, NULL, &v, &x)) < 0)
			return ret;
		r->trace.burst_always = v != 0;
	}
	if ((it = section_get(sec, "buffer_kb")) != NULL) {
		if ((ret = typed_item(in, sec, "[trace]", it, K_POSITIVE_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v < 4 || v > 1048576)
			return inst_err(in, it->value_pos, &x, "[trace] buffer_kb: 4..1048576 (per CPU), got %llu", v);
		r->trace.buffer_kb = (unsigned)v;
	}
	if ((it = section_get(sec, "bin")) != NULL) {
		if ((ret = typed_item(in, sec, "[trace]", it, K_POSITIVE_UINT, NULL, &v, &x)) < 0)
			return ret;
		if (v < 10 || v > 600000)
			return inst_err(in, it->value_pos, &x, "[trace] bin: 10..600000 ms, got %llu", v);
		r->trace.bin_ms = (unsigned)v;
	}
	return 0;
}

int scenario_instantiate(const struct scenario *s, size_t v, unsigned long long memtotal_bytes,
			 struct run_spec *r, struct lab_error *err)
{
	struct inst in = { .s = s, .err = err };
	const struct scn_item *it;
	struct expanded x;
	unsigned long long val;
	size_t rem = v;
	int ret;

	memset(r, 0, sizeof(*r));
	if (v >= scenario_nr_variants(s) || v >= 26)
		return lab_error_set(err, EINVAL, "%s: variant %zu out of range", s->file, v);
	r->label[0] = (char)('A' + v);
	for (size_t i = s->nr_dims; i-- > 0;) {
		size_t k = rem % s->dims[i].n;

		rem /= s->dims[i].n;
		in.var_key[i] = s->dims[i].name;
		in.var_val[i] = s->dims[i].values[k];
		in.var_dim[i] = &s->dims[i];
	}
	in.nr_var = s->nr_dims;
	r->nr_variant = s->nr_dims;
	for (size_t i = 0; i < s->nr_dims; i++) {
		r->variant_keys[i] = s->dims[i].name;
		r->variant_values[i] = (char *)in.var_val[i];
	}
	/* Parameters, resolved (a parameter's value may use another's). */
	for (size_t i = 0; i < s->nr_params; i++) {
		char origin[256];
		const char *val0 = lookup(&in, s->params[i].name, origin, sizeof(origin));

		ret = expand(&in, val0, s->params[i].pos, &x);
		if (ret < 0)
			return ret;
		r->param_names[r->nr_params] = s->params[i].name;
		r->param_values[r->nr_params++] = xstrdup(x.text);
	}
	for (size_t i = 0; i < s->nr_dims; i++) {
		bool dup = false;

		for (size_t j = 0; j < s->nr_params; j++)
			dup |= !strcmp(s->params[j].name, s->dims[i].name);
		if (!dup && r->nr_params < SCN_MAX_PARAMS) {
			r->param_names[r->nr_params] = s->dims[i].name;
			r->param_values[r->nr_params++] = xstrdup(in.var_val[i]);
		}
	}
	/* Sandbox: every row of sandbox/settings.c's table, stated or defaulted. */
	memset(&r->sandbox, 0, sizeof(r->sandbox));
	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		enum kind k = d->type == SB_TYPE_BOOL ? K_BOOL : d->type == SB_TYPE_UINT ? K_UINT
			: d->min > 0 ? K_POSITIVE_SIZE : K_SIZE;
		char field[64];

		it = section_get(&s->sandbox, d->key);
		if (it == NULL) {
			if (d->dflt != NULL) {
				struct lab_error e2;

				if (sandbox_setting_parse(d, d->dflt, &r->sandbox.val[d->id], &e2) < 0)
					return inst_err(&in, (struct scn_pos){ 0, 0 }, NULL, "[sandbox] %s: default: %s",
							d->key, e2.msg);
				r->sandbox.apply |= 1u << d->id;
			}
			continue;
		}
		ret = typed_item(&in, &s->sandbox, "[sandbox]", it, k, NULL, &r->sandbox.val[d->id], &x);
		if (ret < 0)
			return ret;
		snprintf(field, sizeof(field), "[sandbox] %s", d->key);
		if (r->sandbox.val[d->id] < d->min || r->sandbox.val[d->id] > d->max)
			return inst_err(&in, it->value_pos, &x, "%s: expected %llu..%llu, got '%s'", field, d->min,
					d->max, x.text);
		if ((d->flags & SB_F_LE_MEMTOTAL) && memtotal_bytes && r->sandbox.val[d->id] > memtotal_bytes) {
			char a[32], b[32];

			return inst_err(&in, it->value_pos, &x, "%s: %s is more than this machine's MemTotal (%s)",
					field, lab_format_size(r->sandbox.val[d->id], a, sizeof(a)),
					lab_format_size(memtotal_bytes, b, sizeof(b)));
		}
		r->sandbox.given |= 1u << d->id;
		r->sandbox.apply |= 1u << d->id;
	}
	/* [vm]: typed here so a bad value fails before anything runs. */
	for (size_t i = 0; i < s->vm.n; i++) {
		const struct scn_item *vi = &s->vm.items[i];
		enum kind k = !strcmp(vi->key, "mem") || !strcmp(vi->key, "swap") || !strcmp(vi->key, "disk")
				      ? K_POSITIVE_SIZE
			: !strcmp(vi->key, "cpus") ? K_POSITIVE_UINT : K_ENUM;
		const char *enums = !strcmp(vi->key, "thp") ? "always|madvise|never" : "6.1|6.12";

		ret = typed_item(&in, &s->vm, "[vm]", vi, k, enums, &val, &x);
		if (ret < 0)
			return ret;
	}
	/* [sample]: the cadences of the sampler's own work (sample_tab). */
	for (size_t k = 0; k < sizeof(sample_tab) / sizeof(sample_tab[0]); k++) {
		const struct sample_key *sk = &sample_tab[k];
		unsigned *dst = (unsigned *)((char *)r + sk->offset);

		*dst = sk->def;
		it = section_get(&s->sample, sk->key);
		if (it == NULL)
			continue;
		ret = typed_item(&in, &s->sample, "[sample]", it, K_UINT, NULL, &val, &x);
		if (ret < 0)
			return ret;
		if ((val != 0 || !sk->zero) && (val < sk->lo || val > sk->hi))
			return inst_err(&in, it->value_pos, &x, "[sample] %s: expected %s, got %llu", sk->key,
					sk->expect, val);
		*dst = (unsigned)val;
	}
	r->nr_workloads = s->nr_workloads;
	for (size_t i = 0; i < s->nr_workloads; i++) {
		ret = workload_inst(&in, i, &r->workloads[i]);
		if (ret < 0)
			return ret;
	}
	r->nr_actions = s->nr_actions;
	for (size_t i = 0; i < s->nr_actions; i++) {
		ret = action_inst(&in, i, r);
		if (ret < 0)
			return ret;
	}
	ret = trace_inst(&in, r);
	if (ret < 0)
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

void run_spec_free(struct run_spec *r)
{
	for (size_t i = 0; i < r->nr_params; i++)
		free(r->param_values[i]);
	for (size_t i = 0; i < r->nr_workloads; i++)
		for (int a = 0; a < r->workloads[i].argc; a++)
			free(r->workloads[i].argv[a]);
	memset(r, 0, sizeof(*r));
}
