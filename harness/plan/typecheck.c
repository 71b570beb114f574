/* SPDX-License-Identifier: GPL-2.0-or-later */
/* typecheck.c — a scenario value's words, its ${} substitution and its types
 * (scn.h; the types are harness/plan/scenario.md's table). */
#include "scn.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "base/size.h"

char *scn_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p == NULL)
		abort();
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *scn_strdup(const char *s)
{
	return scn_strndup(s, strlen(s));
}

int scn_perr(struct lab_error *err, const char *file, struct scn_pos pos, const char *fmt, ...)
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

bool scn_is_ident(const char *s)
{
	if (!(islower((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

int scn_parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

int scn_tokenize(const char *v, int col0, struct scn_tokens *t)
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
		t->tok[t->n] = scn_strndup(start, (size_t)(p - start));
		t->col[t->n] = col0 + (int)(start - v);
		t->n++;
	}
	return 0;
}

void scn_tokens_free(struct scn_tokens *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->tok[i]);
	t->n = 0;
}

/* ------------------------------------------------------------------------ */
/* one variant: substitution and types                                       */

int scn_inst_err(struct scn_inst *in, struct scn_pos pos, const struct scn_expanded *x, const char *fmt, ...)
{
	char msg[LAB_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (x != NULL && x->origin[0])
		return scn_perr(in->err, in->s->file, pos, "%s (%s)", msg, x->origin);
	return scn_perr(in->err, in->s->file, pos, "%s", msg);
}

const char *scn_lookup(struct scn_inst *in, const char *name, char *origin, size_t olen)
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

int scn_expand(struct scn_inst *in, const char *raw, struct scn_pos pos, struct scn_expanded *x)
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
				return scn_inst_err(in, pos, NULL, "value too long");
			x->text[o++] = *p++;
			continue;
		}
		close = strchr(p, '}');
		n = close ? (size_t)(close - p - 2) : 0;
		if (close == NULL || n == 0 || n >= sizeof(name))
			return scn_inst_err(in, (struct scn_pos){ pos.line, pos.col + (int)(p - raw) }, NULL,
					"'${' without a parameter name and '}'");
		memcpy(name, p + 2, n);
		name[n] = '\0';
		val = scn_lookup(in, name, origin, sizeof(origin));
		if (val == NULL)
			return scn_inst_err(in, (struct scn_pos){ pos.line, pos.col + (int)(p - raw) }, NULL,
					"unknown parameter ${%s} (declare it in [params] or [matrix])", name);
		if (x->origin[0] == '\0')
			snprintf(x->origin, sizeof(x->origin), "%s", origin);
		if (o + strlen(val) >= sizeof(x->text))
			return scn_inst_err(in, pos, NULL, "value too long");
		memcpy(x->text + o, val, strlen(val));
		o += strlen(val);
		p = close + 1;
	}
	x->text[o] = '\0';
	return 0;
}

/* Type one expanded word.  field names the thing for the message. */
int scn_typed(struct scn_inst *in, const char *field, const char *word, enum scn_kind k, const char *enums,
	      struct scn_pos pos, const struct scn_expanded *x, unsigned long long *out)
{
	struct lab_error e2;
	bool b;

	switch (k) {
	case K_SIZE:
	case K_POSITIVE_SIZE:
	case K_MEM:
		if (lab_parse_size(word, out, &e2) < 0)
			return scn_inst_err(in, pos, x, "%s: %s", field, e2.msg);
		if (k != K_SIZE && *out == 0)
			return scn_inst_err(in, pos, x, "%s: size must be greater than zero, got '%s'", field, word);
		if (k == K_MEM && in->s->machine_bytes && *out > in->s->machine_bytes) {
			char sa[32], sb[32];

			return scn_inst_err(in, pos, x, "%s: %s is more than this machine could ever hold (%s: %s)",
					field, lab_format_size(*out, sa, sizeof(sa)),
					in->s->machine_what ? in->s->machine_what : "its memory",
					lab_format_size(in->s->machine_bytes, sb, sizeof(sb)));
		}
		return 0;
	case K_BYTE: {
		unsigned int byte;

		if (lab_parse_byte(word, &byte, &e2) < 0)
			return scn_inst_err(in, pos, x, "%s: %s", field, e2.msg);
		*out = byte;
		return 0;
	}
	case K_UINT:
	case K_POSITIVE_UINT:
		if (lab_parse_uint(word, out, &e2) < 0)
			return scn_inst_err(in, pos, x, "%s: expected a whole number, got '%s'", field, word);
		if (k == K_POSITIVE_UINT && *out == 0)
			return scn_inst_err(in, pos, x, "%s: must be at least 1, got '%s'", field, word);
		return 0;
	case K_BOOL:
		if (scn_parse_bool(word, &b) < 0)
			return scn_inst_err(in, pos, x, "%s: expected yes or no, got '%s'", field, word);
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
		return scn_inst_err(in, pos, x, "%s: '%s' is not one of %s", field, word, enums);
	}
	}
	return -EINVAL;
}

int scn_typed_item(struct scn_inst *in, const char *what, const struct scn_item *it, enum scn_kind k,
		   const char *enums, unsigned long long *out, struct scn_expanded *x)
{
	char field[96];
	int ret;

	snprintf(field, sizeof(field), "%s%s%s", what, what[0] ? " " : "", it->key);
	ret = scn_expand(in, it->value, it->value_pos, x);
	if (ret < 0)
		return ret;
	return scn_typed(in, field, x->text, k, enums, it->value_pos, x, out);
}
/* ------------------------------------------------------------------------ */
/* a command's words                                                         */

struct wordbuf {
	char text[1024];
	size_t len;
};

static bool word_put(struct wordbuf *b, char ch)
{
	if (b->len + 1 >= sizeof(b->text))
		return false;
	b->text[b->len++] = ch;
	return true;
}

/* ${name} at p (p[0..1] == "${") into b: the run's directory mark, or the
 * variant's value.  The characters it took, or -EINVAL with err. */
static int word_subst(struct scn_inst *in, const char *what, const char *p, struct scn_pos at, struct wordbuf *b,
		      struct scn_words *out)
{
	const char *close = strchr(p, '}'), *val;
	char name[64], origin[256];
	size_t n = close ? (size_t)(close - p - 2) : 0;

	if (close == NULL || n == 0 || n >= sizeof(name))
		return scn_inst_err(in, at, NULL, "%s: '${' without a parameter name and '}'", what);
	memcpy(name, p + 2, n);
	name[n] = '\0';
	if (strcmp(name, "dir") == 0) {
		if (!word_put(b, SCN_DIR_MARK))
			return scn_inst_err(in, at, NULL, "%s: a word longer than 1023 bytes", what);
		return (int)n + 3;
	}
	val = scn_lookup(in, name, origin, sizeof(origin));
	if (val == NULL)
		return scn_inst_err(in, at, NULL, "%s: unknown parameter ${%s} (declare it in [params] or [matrix]; "
				    "${dir} is the run's directory)", what, name);
	if (out->origin[0] == '\0')
		snprintf(out->origin, sizeof(out->origin), "%s", origin);
	for (const char *v = val; *v; v++) {
		unsigned cp;

		if (lab_control_at(v, &cp) > 0)
			return scn_perr(in->err, in->s->file, at,
					cp < 0x80 ? "%s: ${%s} holds control character 0x%02x (%s)"
						  : "%s: ${%s} holds control character U+%04X (%s)",
					what, name, cp, origin);
		if (!word_put(b, *v))
			return scn_inst_err(in, at, NULL, "%s: a word longer than 1023 bytes", what);
	}
	return (int)n + 3;
}

static int word_push(struct scn_inst *in, const char *what, struct scn_pos at, struct wordbuf *b,
		     struct scn_words *out)
{
	if (out->n == SCN_MAX_ARGS - 1)
		return scn_inst_err(in, at, NULL, "%s: more than %d words", what, SCN_MAX_ARGS - 1);
	out->w[out->n] = scn_strndup(b->text, b->len);
	out->col[out->n] = at.col;
	out->n++;
	b->len = 0;
	return 0;
}

/* One character of a word at p (outside blanks): what it adds to b, how
 * many characters it took (>= 1), or -EINVAL. */
static int word_step(struct scn_inst *in, const char *what, const char *p, struct scn_pos at, char *quote,
		     struct scn_pos *qpos, struct wordbuf *b, struct scn_words *out)
{
	char ch = *p;

	if (*quote == '\'') {
		if (ch == '\'')
			*quote = 0;
		else if (!word_put(b, ch))
			goto long_word;
		return 1;
	}
	if (ch == '\\') {
		if (p[1] == '\0')
			return scn_inst_err(in, at, NULL, "%s: a backslash at the end escapes nothing", what);
		if (*quote == 0 || strchr("\"\\$#", p[1]) != NULL) {
			if (!word_put(b, p[1]))
				goto long_word;
			return 2;
		}
		if (!word_put(b, ch))
			goto long_word;
		return 1;
	}
	if (ch == '"' || (ch == '\'' && *quote == 0)) {
		*quote = *quote == ch ? 0 : ch;
		*qpos = at;
		return 1;
	}
	if (ch == '$' && p[1] == '{')
		return word_subst(in, what, p, at, b, out);
	if (!word_put(b, ch))
		goto long_word;
	return 1;
long_word:
	return scn_inst_err(in, at, NULL, "%s: a word longer than 1023 bytes", what);
}

int scn_words(struct scn_inst *in, const char *what, const struct scn_item *it, struct scn_words *out)
{
	const char *p = it->value;
	struct wordbuf b = { .len = 0 };
	struct scn_pos wpos = it->value_pos, qpos = it->value_pos;
	char quote = 0;
	bool inword = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	while (ret >= 0) {
		struct scn_pos at = { it->value_pos.line, it->value_pos.col + (int)(p - it->value) };

		if (*p == '\0' || (quote == 0 && (*p == ' ' || *p == '\t'))) {
			if (inword)
				ret = word_push(in, what, wpos, &b, out);
			inword = false;
			if (*p == '\0' || ret < 0)
				break;
			p++;
			continue;
		}
		if (!inword) {
			inword = true;
			wpos = at;
		}
		ret = word_step(in, what, p, at, &quote, &qpos, &b, out);
		if (ret > 0)
			p += ret;
	}
	if (ret >= 0 && quote != 0)
		ret = scn_inst_err(in, qpos, NULL, "%s: the %s quote is never closed", what,
				   quote == '"' ? "double" : "single");
	if (ret < 0) {
		scn_words_free(out);
		return ret;
	}
	return 0;
}

void scn_words_free(struct scn_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->w[i]);
	w->n = 0;
}
