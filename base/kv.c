/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kv.c — the two keyed-number shapes the kernel prints.
 *
 * "key value" comes from seq_printf(m, "%s %lu\n", ...) in mm/vmstat.c
 * (vmstat_show) and mm/memcontrol*.c (memory.stat, memory.events,
 * memory.oom_control); "Key:   value kB" from fs/proc/meminfo.c (show_val_kb),
 * fs/proc/task_mmu.c (SEQ_PUT_DEC) and fs/proc/array.c (status).
 */
#include "kv.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

static int kv_append(struct kv_list *l, const char *key, size_t keylen,
		     unsigned long long val, size_t lineno, struct lab_error *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct kv *items;

		if (cap > SIZE_MAX / sizeof(*items))
			return lab_error_set(err, ENOMEM, "line %zu: too many keys", lineno);
		items = realloc(l->items, cap * sizeof(*items));
		if (items == NULL)
			return lab_error_errno(err, ENOMEM, "line %zu", lineno);
		l->items = items;
		l->cap = cap;
	}
	memcpy(l->items[l->n].key, key, keylen);
	l->items[l->n].key[keylen] = '\0';
	l->items[l->n].val = val;
	l->n++;
	return 0;
}

/* Keys are identifiers: printable ASCII, no blanks.  Returns 0 or fills err. */
static int check_key(const char *key, size_t keylen, size_t lineno, struct lab_error *err)
{
	size_t i;

	if (keylen == 0)
		return lab_error_set(err, EINVAL, "line %zu: empty key", lineno);
	if (keylen >= KV_KEY_MAX)
		return lab_error_set(err, EINVAL, "line %zu: key '%.40s...' is longer than %d characters",
				     lineno, key, KV_KEY_MAX - 1);
	for (i = 0; i < keylen; i++)
		if (key[i] <= ' ' || key[i] > '~')
			return lab_error_set(err, EINVAL,
					     "line %zu: key '%.*s' holds a control or non-ASCII byte 0x%02x",
					     lineno, (int)keylen, key, (unsigned int)(unsigned char)key[i]);
	return 0;
}

/* One line [p, eol) of either shape: 1 with the key and value to store, 0 when
 * the line is skipped, or a negative errno with err filled. */
typedef int (*line_parser)(const char *p, const char *eol, size_t lineno, const char **key,
			   size_t *keylen, unsigned long long *val, struct lab_error *err);

/* "key value": an empty line is skipped, any other must be exactly that. */
static int space_line(const char *p, const char *eol, size_t lineno, const char **key,
		      size_t *keylen, unsigned long long *val, struct lab_error *err)
{
	const char *q, *end;
	int ret;

	if (eol == p)
		return 0;
	for (q = p; q < eol && !lex_is_blank(*q); q++)
		;
	*key = p;
	*keylen = (size_t)(q - p);
	if (*keylen == 0)
		return lab_error_set(err, EINVAL,
				     "line %zu: starts with a blank, expected 'key value'", lineno);
	ret = check_key(*key, *keylen, lineno, err);
	if (ret < 0)
		return ret;
	q = lex_skip_blanks(q, eol);
	if (q == eol)
		return lab_error_set(err, EINVAL, "line %zu: key '%.*s' has no value",
				     lineno, (int)*keylen, *key);
	ret = lex_u64(q, 10, val, &end);
	if (ret == -ERANGE)
		return lab_error_set(err, EINVAL, "line %zu: value of '%.*s' does not fit in 64 bits",
				     lineno, (int)*keylen, *key);
	if (ret < 0)
		return lab_error_set(err, EINVAL,
				     "line %zu: value of '%.*s' is not an unsigned decimal: '%.*s'",
				     lineno, (int)*keylen, *key, (int)(eol - q > 40 ? 40 : eol - q), q);
	if (end != eol)
		return lab_error_set(err, EINVAL,
				     "line %zu: '%.*s' after the value of '%.*s', expected end of line",
				     lineno, (int)(eol - end > 40 ? 40 : eol - end), end,
				     (int)*keylen, *key);
	return 1;
}

/* The value part of a "Key: value" line decides what the line is:
 *   "123" or "123 kB"                  stored
 *   "", "bash", "S (sleeping)"         skipped: not a number
 *   "0/96365", "0-1", "000001fffeff"   skipped: one token that is not a decimal
 *                                      (status's SigQ, Cpus_allowed_list, masks)
 *   "0\t0\t0\t0"                       skipped: several numbers (status's Uid)
 *   "123 MB", "123 kB x"               -EINVAL: a unit other than kB, or trailing text
 *   "99999999999999999999999"          -EINVAL: does not fit in 64 bits */
static int colon_line(const char *p, const char *eol, size_t lineno, const char **key,
		      size_t *keylen, unsigned long long *val, struct lab_error *err)
{
	const char *q, *end, *r;
	int ret;

	for (q = p; q < eol && !lex_is_blank(*q); q++)
		;
	if (q == p || q[-1] != ':')
		return 0;       /* a VMA or rollup header line, or an empty one */
	*key = p;
	*keylen = (size_t)(q - p) - 1;
	ret = check_key(*key, *keylen, lineno, err);
	if (ret < 0)
		return ret;
	q = lex_skip_blanks(q, eol);
	ret = lex_u64(q, 10, val, &end);
	if (ret == -EINVAL)
		return 0;       /* "Name:\tregion", "Groups:\t" */
	if (ret == -ERANGE)
		return lab_error_set(err, EINVAL, "line %zu: value of '%.*s' does not fit in 64 bits",
				     lineno, (int)*keylen, *key);
	if (end < eol && !lex_is_blank(*end))
		return 0;       /* "0/96365", "0-1", a hex mask */
	r = lex_skip_blanks(end, eol);
	if (r + 2 <= eol && r[0] == 'k' && r[1] == 'B' && r > end)
		r = lex_skip_blanks(r + 2, eol);
	else if (r < eol && lex_is_digit(*r))
		return 0;       /* several numbers: "Uid:\t0\t0\t0\t0" */
	if (r != eol)
		return lab_error_set(err, EINVAL,
				     "line %zu: '%.*s' after the value of '%.*s', expected kB or end of line",
				     lineno, (int)(eol - r > 40 ? 40 : eol - r), r,
				     (int)*keylen, *key);
	return 1;
}

/* Each line goes through parse_line and, when it says so, to fn; the first
 * error (the line's, or fn's) stops the walk. */
static int each_line(const char *buf, line_parser parse_line, kv_fn fn, void *ctx, struct lab_error *err)
{
	size_t lineno = 0;
	const char *p = buf;

	while (*p != '\0') {
		const char *eol = lex_line_end(p), *key = NULL;
		unsigned long long val = 0;
		size_t keylen = 0;
		int ret;

		lineno++;
		ret = parse_line(p, eol, lineno, &key, &keylen, &val, err);
		if (ret > 0)
			ret = fn(ctx, key, keylen, val, lineno, err);
		if (ret < 0)
			return ret;
		p = lex_next_line(eol);
	}
	return 0;
}

static int append_fn(void *ctx, const char *key, size_t keylen, unsigned long long val, size_t lineno,
		     struct lab_error *err)
{
	return kv_append(ctx, key, keylen, val, lineno, err);
}

/* Appended to out; on any error out is cut back to what it held before. */
static int parse_lines(const char *buf, struct kv_list *out, line_parser parse_line,
		       struct lab_error *err)
{
	size_t first = out->n;
	int ret = each_line(buf, parse_line, append_fn, out, err);

	if (ret < 0)
		out->n = first;
	return ret;
}

int kv_each_space(const char *buf, kv_fn fn, void *ctx, struct lab_error *err)
{
	return each_line(buf, space_line, fn, ctx, err);
}

int kv_each_colon(const char *buf, kv_fn fn, void *ctx, struct lab_error *err)
{
	return each_line(buf, colon_line, fn, ctx, err);
}

int kv_parse_space(const char *buf, struct kv_list *out, struct lab_error *err)
{
	return parse_lines(buf, out, space_line, err);
}

int kv_parse_colon(const char *buf, struct kv_list *out, struct lab_error *err)
{
	return parse_lines(buf, out, colon_line, err);
}

bool kv_get(const struct kv_list *l, const char *key, unsigned long long *val)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].key, key) == 0) {
			if (val != NULL)
				*val = l->items[i].val;
			return true;
		}
	}
	return false;
}

unsigned long long kv_get0(const struct kv_list *l, const char *key)
{
	unsigned long long val;

	return kv_get(l, key, &val) ? val : 0;
}

void kv_reset(struct kv_list *l)
{
	l->n = 0;
}

void kv_free(struct kv_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = 0;
	l->cap = 0;
}

bool kv_bracketed(const char *text, char *out, size_t len)
{
	const char *a = strchr(text, '['), *b = a != NULL ? strchr(a, ']') : NULL;
	size_t n;

	if (len == 0)
		return false;
	out[0] = '\0';
	if (a == NULL || b == NULL)
		return false;
	n = (size_t)(b - a - 1);
	if (n >= len)
		n = len - 1;
	memcpy(out, a + 1, n);
	out[n] = '\0';
	return true;
}
