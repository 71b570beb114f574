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

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal that starts right at p (strtoull alone would skip blanks and take
 * a sign).  Returns 0, -EINVAL when p is not a digit, -ERANGE on overflow. */
static int parse_dec(const char *p, unsigned long long *val, const char **end)
{
	char *e;

	if (!is_digit(*p))
		return -EINVAL;
	errno = 0;
	*val = strtoull(p, &e, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0 || e == p)
		return -EINVAL;
	*end = e;
	return 0;
}

static const char *line_end(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl != NULL ? nl : p + strlen(p);
}

static const char *skip_blanks(const char *p, const char *eol)
{
	while (p < eol && is_blank(*p))
		p++;
	return p;
}

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

int kv_parse_space(const char *buf, struct kv_list *out, struct lab_error *err)
{
	size_t first = out->n, lineno = 0;
	const char *p = buf;
	int ret;

	while (*p != '\0') {
		const char *eol = line_end(p), *key = p, *q, *end;
		unsigned long long val;
		size_t keylen;

		lineno++;
		if (eol == p)
			goto next;
		for (q = p; q < eol && !is_blank(*q); q++)
			;
		keylen = (size_t)(q - key);
		if (keylen == 0) {
			ret = lab_error_set(err, EINVAL,
					    "line %zu: starts with a blank, expected 'key value'", lineno);
			goto fail;
		}
		ret = check_key(key, keylen, lineno, err);
		if (ret < 0)
			goto fail;
		q = skip_blanks(q, eol);
		if (q == eol) {
			ret = lab_error_set(err, EINVAL, "line %zu: key '%.*s' has no value",
					    lineno, (int)keylen, key);
			goto fail;
		}
		ret = parse_dec(q, &val, &end);
		if (ret == -ERANGE) {
			ret = lab_error_set(err, EINVAL, "line %zu: value of '%.*s' does not fit in 64 bits",
					    lineno, (int)keylen, key);
			goto fail;
		}
		if (ret < 0) {
			ret = lab_error_set(err, EINVAL,
					    "line %zu: value of '%.*s' is not an unsigned decimal: '%.*s'",
					    lineno, (int)keylen, key, (int)(eol - q > 40 ? 40 : eol - q), q);
			goto fail;
		}
		if (end != eol) {
			ret = lab_error_set(err, EINVAL,
					    "line %zu: '%.*s' after the value of '%.*s', expected end of line",
					    lineno, (int)(eol - end > 40 ? 40 : eol - end), end,
					    (int)keylen, key);
			goto fail;
		}
		ret = kv_append(out, key, keylen, val, lineno, err);
		if (ret < 0)
			goto fail;
next:
		p = *eol == '\n' ? eol + 1 : eol;
	}
	return 0;
fail:
	out->n = first;
	return ret;
}

/* The value part of a "Key: value" line decides what the line is:
 *   "123" or "123 kB"                  stored
 *   "", "bash", "S (sleeping)"         skipped: not a number
 *   "0/96365", "0-1", "000001fffeff"   skipped: one token that is not a decimal
 *                                      (status's SigQ, Cpus_allowed_list, masks)
 *   "0\t0\t0\t0"                       skipped: several numbers (status's Uid)
 *   "123 MB", "123 kB x"               -EINVAL: a unit other than kB, or trailing text
 *   "99999999999999999999999"          -EINVAL: does not fit in 64 bits */
int kv_parse_colon(const char *buf, struct kv_list *out, struct lab_error *err)
{
	size_t first = out->n, lineno = 0;
	const char *p = buf;
	int ret;

	while (*p != '\0') {
		const char *eol = line_end(p), *key = p, *q, *end, *r;
		unsigned long long val;
		size_t toklen;

		lineno++;
		for (q = p; q < eol && !is_blank(*q); q++)
			;
		toklen = (size_t)(q - key);
		if (toklen == 0 || key[toklen - 1] != ':')
			goto next;      /* a VMA or rollup header line, or an empty one */
		ret = check_key(key, toklen - 1, lineno, err);
		if (ret < 0)
			goto fail;
		q = skip_blanks(q, eol);
		ret = parse_dec(q, &val, &end);
		if (ret == -EINVAL)
			goto next;      /* "Name:\tregion", "Groups:\t" */
		if (ret == -ERANGE) {
			ret = lab_error_set(err, EINVAL, "line %zu: value of '%.*s' does not fit in 64 bits",
					    lineno, (int)(toklen - 1), key);
			goto fail;
		}
		if (end < eol && !is_blank(*end))
			goto next;      /* "0/96365", "0-1", a hex mask */
		r = skip_blanks(end, eol);
		if (r + 2 <= eol && r[0] == 'k' && r[1] == 'B' && r > end)
			r = skip_blanks(r + 2, eol);
		else if (r < eol && is_digit(*r))
			goto next;      /* several numbers: "Uid:\t0\t0\t0\t0" */
		if (r != eol) {
			ret = lab_error_set(err, EINVAL,
					    "line %zu: '%.*s' after the value of '%.*s', expected kB or end of line",
					    lineno, (int)(eol - r > 40 ? 40 : eol - r), r,
					    (int)(toklen - 1), key);
			goto fail;
		}
		ret = kv_append(out, key, toklen - 1, val, lineno, err);
		if (ret < 0)
			goto fail;
next:
		p = *eol == '\n' ? eol + 1 : eol;
	}
	return 0;
fail:
	out->n = first;
	return ret;
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
