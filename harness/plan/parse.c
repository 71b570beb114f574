/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.c — a scenario file's text into struct scenario: its sections and
 * items as written, with their positions, before any value is typed (that is
 * instantiate.c's, per variant); --set overrides (scn.h,
 * harness/plan/scenario.md). */
#include "scn.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/size.h"
#include "sandbox/settings.h"

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
/* parsing                                                                   */

enum section_kind { SEC_NONE, SEC_SCENARIO, SEC_PARAMS, SEC_MATRIX, SEC_SANDBOX, SEC_VM,
		    SEC_WORKLOAD, SEC_ACTION, SEC_LOAD, SEC_KNOBS, SEC_TRACE, SEC_SAMPLE };

static const char *const scenario_keys[] = {
	"name", "title", "source", "expect", "report", "requires", "destructive", "repeat", NULL,
};
static const char *const vm_keys[] = { "mem", "cpus", "thp", "swap", "disk", "kernel", "carry", NULL };
static const char *const trace_keys[] = { "events", "raw", "burst", "burst_margin", "burst_always", "bin", "buffer_kb", NULL };
static const char *const sample_keys[] = { "walk_interval_ms", "flush_ms", "refresh", NULL };

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
			return scn_perr(err, file, kp, "duplicate key '%s' (first at line %d)", key,
				    sec->items[i].key_pos.line);
	if (sec->n == SCN_MAX_KEYS)
		return scn_perr(err, file, kp, "too many keys in this section (at most %d)", SCN_MAX_KEYS);
	sec->items[sec->n].key = scn_strdup(key);
	sec->items[sec->n].value = scn_strdup(value);
	sec->items[sec->n].key_pos = kp;
	sec->items[sec->n].value_pos = vp;
	sec->n++;
	return 0;
}

const struct scn_item *scn_section_get(const struct scn_section *sec, const char *key)
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
	struct scn_tokens t;

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
			return scn_perr(err, s->file, kp, "duplicate key '%s'", key);
		*slot = scn_strdup(value);
		return 0;
	}
	if (!strcmp(key, "destructive")) {
		if (scn_parse_bool(value, &s->destructive) < 0)
			return scn_perr(err, s->file, vp, "destructive: expected yes or no, got '%s'", value);
		return 0;
	}
	if (!strcmp(key, "repeat")) {
		unsigned long long n;
		struct lab_error e2;

		if (lab_parse_uint(value, &n, &e2) < 0 || n < 1 || n > 100)
			return scn_perr(err, s->file, vp, "repeat: expected a whole number from 1 to 100, got '%s'",
				    value);
		s->repeat = (unsigned)n;
		s->repeat_pos = vp;
		return 0;
	}
	if (scn_tokenize(value, vp.col, &t) < 0)
		return scn_perr(err, s->file, vp, "%s: too many words", key);
	if (!strcmp(key, "report")) {
		for (size_t i = 0; i < t.n; i++) {
			if (s->nr_report == SCN_MAX_REPORT) {
				scn_tokens_free(&t);
				return scn_perr(err, s->file, vp, "report: at most %d tables", SCN_MAX_REPORT);
			}
			s->report[s->nr_report++] = scn_strdup(t.tok[i]);
		}
		scn_tokens_free(&t);
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
			int ret = scn_perr(err, s->file, p,
				       "requires: unknown requirement '%s' (known: root, memcg, cgroup-v2, thp, swap, lazyfree, vm)",
				       t.tok[i]);

			scn_tokens_free(&t);
			return ret;
		}
		s->requires |= bit;
	}
	scn_tokens_free(&t);
	return 0;
}

static int add_param(struct scenario *s, const char *name, const char *value, struct scn_pos pos,
		     struct lab_error *err)
{
	for (size_t i = 0; i < s->nr_params; i++)
		if (!strcmp(s->params[i].name, name))
			return scn_perr(err, s->file, pos, "duplicate parameter '%s' (first at line %d)",
				    name, s->params[i].pos.line);
	if (s->nr_params == SCN_MAX_PARAMS)
		return scn_perr(err, s->file, pos, "too many parameters (at most %d)", SCN_MAX_PARAMS);
	s->params[s->nr_params].name = scn_strdup(name);
	s->params[s->nr_params].value = scn_strdup(value);
	s->params[s->nr_params].pos = pos;
	s->params[s->nr_params].set_by = NULL;
	s->nr_params++;
	return 0;
}

static int add_dim(struct scenario *s, const char *name, const char *value, struct scn_pos pos,
		   struct lab_error *err)
{
	struct scn_dim *d;
	struct scn_tokens t;

	if (s->nr_dims == SCN_MAX_MATRIX)
		return scn_perr(err, s->file, pos, "too many matrix dimensions (at most %d)", SCN_MAX_MATRIX);
	for (size_t i = 0; i < s->nr_dims; i++)
		if (!strcmp(s->dims[i].name, name))
			return scn_perr(err, s->file, pos, "duplicate matrix dimension '%s'", name);
	if (scn_tokenize(value, pos.col, &t) < 0 || t.n > SCN_MAX_VALUES) {
		scn_tokens_free(&t);
		return scn_perr(err, s->file, pos, "matrix %s: at most %d values", name, SCN_MAX_VALUES);
	}
	if (t.n == 0)
		return scn_perr(err, s->file, pos, "matrix %s: no values", name);
	d = &s->dims[s->nr_dims++];
	d->name = scn_strdup(name);
	d->pos = pos;
	d->n = t.n;
	for (size_t i = 0; i < t.n; i++)
		d->values[i] = t.tok[i];   /* ownership moves to the dimension */
	return 0;
}

/* The parser's place: the file, the scenario being filled, the section
 * being read. */
struct parser {
	const char *file;
	struct scenario *s;
	enum section_kind kind;
	struct scn_section *cur;
	struct lab_error *err;
};

/* One line read in place: the comment (a '#' at the start or after a
 * blank) cut, a control character other than a tab refused, blanks trimmed.
 * *start gets the first character that is not a blank.  0, or -EINVAL. */
static int line_clean(struct parser *ps, char *l, int line, char **start)
{
	char *b, *e;

	*start = l;
	for (char *c = l; *c; c++)
		if (*c == '#' && (c == l || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			break;
		}
	/* UTF-8 without C0 but tab, DEL, C1 or a bidirectional control
	 * (base/escape.h): a title or an argument that recolours or reorders
	 * what show, run and a report print of it is no scenario's. */
	for (char *c = l; *c; ) {
		size_t n = *c == '\t' ? 1 : lab_esc_char_len(c);
		unsigned cp;

		if (n > 0) {
			c += n;
			continue;
		}
		if (lab_control_at(c, &cp) > 0)
			return scn_perr(ps->err, ps->file, (struct scn_pos){ line, (int)(c - l) + 1 },
					cp < 0x80 ? "control character 0x%02x" : "control character U+%04X", cp);
		return scn_perr(ps->err, ps->file, (struct scn_pos){ line, (int)(c - l) + 1 },
				"byte 0x%02x is not UTF-8", (unsigned char)*c);
	}
	b = l;
	while (*b == ' ' || *b == '\t')
		b++;
	e = b + strlen(b);
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	*start = b;
	return 0;
}

/* [workload NAME] / [action NAME] / [load NAME]: a new named section. */
static int named_section(struct parser *ps, const char *b, char *sp, struct scn_pos kp)
{
	struct scenario *s = ps->s;
	enum section_kind kind = b[0] == 'w' ? SEC_WORKLOAD : b[0] == 'a' ? SEC_ACTION : SEC_LOAD;
	size_t *n = kind == SEC_WORKLOAD ? &s->nr_workloads : kind == SEC_ACTION ? &s->nr_actions : &s->nr_loads;
	struct scn_section *arr = kind == SEC_WORKLOAD ? s->workloads : kind == SEC_ACTION ? s->actions : s->loads;
	size_t max = kind == SEC_WORKLOAD ? SCN_MAX_WORKLOADS : kind == SEC_ACTION ? SCN_MAX_ACTIONS : SCN_MAX_LOADS;

	while (*sp == ' ')
		sp++;
	if (!scn_is_ident(sp) || strlen(sp) >= 32)
		return scn_perr(ps->err, ps->file, kp, "[%s NAME]: '%s' is not a name (a-z, 0-9, _)", b, sp);
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(arr[i].name, sp))
			return scn_perr(ps->err, ps->file, kp, "duplicate [%s %s]", b, sp);
	if (*n == max)
		return scn_perr(ps->err, ps->file, kp, "too many [%s] sections (at most %zu)", b, max);
	ps->cur = &arr[(*n)++];
	ps->cur->name = scn_strdup(sp);
	ps->cur->pos = kp;
	ps->kind = kind;
	return 0;
}

/* A section header at b ("[name]" or "[name LABEL]"), in place. */
static int section_header(struct parser *ps, char *b, struct scn_pos kp)
{
	static const struct { const char *name; enum section_kind kind; size_t offset; } plain[] = {
		{ "scenario", SEC_SCENARIO, 0 }, { "params", SEC_PARAMS, 0 }, { "matrix", SEC_MATRIX, 0 },
		{ "sandbox", SEC_SANDBOX, offsetof(struct scenario, sandbox) },
		{ "vm", SEC_VM, offsetof(struct scenario, vm) },
		{ "knobs", SEC_KNOBS, offsetof(struct scenario, knobs) },
		{ "trace", SEC_TRACE, offsetof(struct scenario, trace) },
		{ "sample", SEC_SAMPLE, offsetof(struct scenario, sample) },
	};
	char *close = strchr(b, ']'), *sp;

	if (close == NULL || close[1] != '\0')
		return scn_perr(ps->err, ps->file, kp, "a section header is [name] or [name LABEL]");
	*close = '\0';
	b++;
	sp = strchr(b, ' ');
	if (sp)
		*sp++ = '\0';
	ps->cur = NULL;
	for (size_t i = 0; sp == NULL && i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(b, plain[i].name)) {
			ps->kind = plain[i].kind;
			if (plain[i].offset)
				ps->cur = (struct scn_section *)((char *)ps->s + plain[i].offset);
			return 0;
		}
	if ((!strcmp(b, "workload") || !strcmp(b, "action") || !strcmp(b, "load")) && sp)
		return named_section(ps, b, sp, kp);
	return scn_perr(ps->err, ps->file, kp,
			"unknown section [%s%s%s] (known: [scenario], [params], [matrix], [sandbox], [vm], [knobs], [trace], [sample], [workload NAME], [action NAME], [load NAME])",
			b, sp ? " " : "", sp ? sp : "");
}

/* key = val in the current section. */
static int item_add(struct parser *ps, const char *key, const char *val, struct scn_pos kp, struct scn_pos vp)
{
	const char *file = ps->file;
	const char *const *keys;
	char known[256];

	switch (ps->kind) {
	case SEC_NONE:
		return scn_perr(ps->err, file, kp, "'%s' outside any section (start with [scenario])", key);
	case SEC_SCENARIO:
		if (!in_list(scenario_keys, key)) {
			join_list(scenario_keys, known, sizeof(known));
			return scn_perr(ps->err, file, kp, "unknown key '%s' in [scenario] (known: %s)", key, known);
		}
		return scenario_key(ps->s, key, val, kp, vp, ps->err);
	case SEC_PARAMS:
		return add_param(ps->s, key, val, vp, ps->err);
	case SEC_MATRIX:
		return add_dim(ps->s, key, val, vp, ps->err);
	case SEC_SANDBOX:
		/* The keys are sandbox/settings.c's table. */
		if (sandbox_setting_find(key) == NULL) {
			sandbox_setting_keys(known, sizeof(known));
			return scn_perr(ps->err, file, kp, "unknown key '%s' in [sandbox] (known: %s)", key, known);
		}
		return section_add(ps->cur, file, key, val, kp, vp, ps->err);
	case SEC_VM:
	case SEC_TRACE:
	case SEC_SAMPLE:
		keys = ps->kind == SEC_VM ? vm_keys : ps->kind == SEC_TRACE ? trace_keys : sample_keys;
		if (!in_list(keys, key)) {
			join_list(keys, known, sizeof(known));
			return scn_perr(ps->err, file, kp, "unknown key '%s' in [%s] (known: %s)", key,
					ps->kind == SEC_VM ? "vm" : ps->kind == SEC_TRACE ? "trace" : "sample", known);
		}
		return section_add(ps->cur, file, key, val, kp, vp, ps->err);
	case SEC_WORKLOAD:
	case SEC_ACTION:
	case SEC_LOAD:
	case SEC_KNOBS:
		return section_add(ps->cur, file, key, val, kp, vp, ps->err);
	}
	return -EINVAL;
}

/* "key = value" at b of line l, in place. */
static int item(struct parser *ps, char *l, char *b, int line, struct scn_pos kp)
{
	char *eq = strchr(b, '='), *key = b, *val, *e;
	struct scn_pos vp;

	if (eq == NULL)
		return scn_perr(ps->err, ps->file, kp, "expected 'key = value'");
	val = eq + 1;
	e = eq;
	while (e > key && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	while (*val == ' ' || *val == '\t')
		val++;
	vp = (struct scn_pos){ line, (int)(val - l) + 1 };
	if (ps->kind == SEC_KNOBS ? !is_knob_key(key) : !scn_is_ident(key))
		return scn_perr(ps->err, ps->file, kp, "'%s' is not a key (a-z, 0-9, _%s)", key,
				ps->kind == SEC_KNOBS ? ", . and - in [knobs]" : "");
	if (*val == '\0')
		return scn_perr(ps->err, ps->file, vp, "%s: empty value", key);
	return item_add(ps, key, val, kp, vp);
}

static int parse_inner(const char *file, const char *text, struct scenario *s, struct lab_error *err)
{
	struct parser ps = { .file = file, .s = s, .kind = SEC_NONE, .err = err };
	const char *p = text;
	int line = 0;

	memset(s, 0, sizeof(*s));
	s->file = scn_strdup(file);
	s->repeat = 1;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *l = scn_strndup(p, len), *b;
		int ret;

		line++;
		p += len + (eol ? 1 : 0);
		ret = line_clean(&ps, l, line, &b);
		if (ret == 0 && *b != '\0') {
			struct scn_pos kp = { line, (int)(b - l) + 1 };

			ret = *b == '[' ? section_header(&ps, b, kp) : item(&ps, l, b, line, kp);
		}
		free(l);
		if (ret < 0)
			return ret;
	}
	if (s->name == NULL)
		return scn_perr(err, file, (struct scn_pos){ 0, 0 }, "[scenario] has no name");
	if (s->nr_workloads == 0)
		return scn_perr(err, file, (struct scn_pos){ 0, 0 }, "no [workload NAME] section");
	for (size_t i = 0; i < SB_NR_SETTINGS; i++)
		if ((sandbox_settings[i].flags & SB_F_REQUIRED) && scn_section_get(&s->sandbox, sandbox_settings[i].key) == NULL)
			return scn_perr(err, file, (struct scn_pos){ 0, 0 }, "[sandbox] needs %s", sandbox_settings[i].key);
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
	name = scn_strndup(assignment, (size_t)(eq - assignment));
	for (size_t i = 0; i < s->nr_dims; i++) {
		struct scn_dim *d = &s->dims[i];

		if (strcmp(d->name, name) != 0)
			continue;
		for (size_t j = 0; j < d->n; j++)
			free(d->values[j]);
		d->values[0] = scn_strdup(eq + 1);
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
		pa->value = scn_strdup(eq + 1);
		pa->set_by = scn_strdup(assignment);
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
	for (size_t i = 0; i < s->nr_loads; i++)
		section_free(&s->loads[i]);
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