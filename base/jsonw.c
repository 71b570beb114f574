/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonw.c — JSON text into a reused buffer (see jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(struct jw *w, size_t more)
{
	size_t need = w->len + more + 1, cap;
	char *nd;

	if (w->oom)
		return false;
	if (need <= w->cap)
		return true;
	cap = w->cap ? w->cap : 4096;
	while (cap < need)
		cap *= 2;
	nd = realloc(w->data, cap);
	if (nd == NULL) {
		w->oom = true;
		return false;
	}
	w->data = nd;
	w->cap = cap;
	return true;
}

void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (!grow(w, n))
		return;
	memcpy(w->data + w->len, s, n);
	w->len += n;
	w->data[w->len] = '\0';
}

char *jw_room(struct jw *w, size_t n)
{
	return grow(w, n) ? w->data + w->len : NULL;
}

void jw_wrote(struct jw *w, size_t k, bool comma)
{
	if (w->data == NULL)
		return;
	w->len += k;
	w->data[w->len] = '\0';
	w->comma = comma;
}

static void put(struct jw *w, char ch)
{
	if (!grow(w, 1))
		return;
	w->data[w->len++] = ch;
	w->data[w->len] = '\0';
}

/* Before a value or a key: its comma when one is due. */
static void sep(struct jw *w)
{
	if (w->comma)
		put(w, ',');
	w->comma = false;
}

void jw_reset(struct jw *w)
{
	w->len = 0;
	w->comma = false;
	w->oom = false;
	if (w->data != NULL)
		w->data[0] = '\0';
}

void jw_free(struct jw *w)
{
	free(w->data);
	memset(w, 0, sizeof(*w));
}

struct jw_mark jw_mark(const struct jw *w)
{
	struct jw_mark m = { w->len, w->comma };

	return m;
}

void jw_rewind(struct jw *w, struct jw_mark m)
{
	if (m.len <= w->len) {
		w->len = m.len;
		if (w->data != NULL)
			w->data[w->len] = '\0';
	}
	w->comma = m.comma;
}

void jw_obj(struct jw *w)
{
	sep(w);
	put(w, '{');
}

void jw_obj_end(struct jw *w)
{
	put(w, '}');
	w->comma = true;
}

void jw_arr(struct jw *w)
{
	sep(w);
	put(w, '[');
}

void jw_arr_end(struct jw *w)
{
	put(w, ']');
	w->comma = true;
}

/* Length of a valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* s[0..len) as a JSON string; stops early at a NUL (none is expected). */
static void string_n(struct jw *w, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	put(w, '"');
	while (p < end && *p != '\0') {
		const unsigned char *run = p;
		size_t n;

		/* The plain bytes in one copy: keys and names are all plain. */
		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			jw_raw(w, (const char *)run, (size_t)(p - run));
		if (p == end || *p == '\0')
			break;
		if (*p == '"' || *p == '\\') {
			char e[2] = { '\\', (char)*p };

			jw_raw(w, e, 2);
			p++;
		} else if (*p >= 0x80 && (n = utf8_len(p)) > 0 && n <= (size_t)(end - p)) {
			jw_raw(w, (const char *)p, n);
			p += n;
		} else {
			char e[8];

			snprintf(e, sizeof(e), "\\u%04x", (unsigned)*p);
			jw_raw(w, e, 6);
			p++;
		}
	}
	put(w, '"');
}

/* The length of the plain bytes at s (a JSON string holds them as they
 * are), up to its NUL or the first byte that needs escaping. */
static size_t plain_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
		p++;
	return (size_t)(p - (const unsigned char *)s);
}

/* s[0..n), plain, quoted and then tail (a ':' or nothing): one copy. */
static void quoted(struct jw *w, const char *s, size_t n, const char *tail, size_t tn)
{
	char *d;

	if (!grow(w, n + 2 + tn))
		return;
	d = w->data + w->len;
	*d++ = '"';
	memcpy(d, s, n);
	d += n;
	*d++ = '"';
	memcpy(d, tail, tn);
	w->len += n + 2 + tn;
	w->data[w->len] = '\0';
}

/* A key or a value: nearly always plain (the keys are the harness's own
 * and the kernel's names), so one pass finds its length and whether it is,
 * where strlen and then the escaping loop took two. */
static void string(struct jw *w, const char *s)
{
	size_t n = plain_len(s);

	if (s[n] == '\0')
		quoted(w, s, n, "", 0);
	else
		string_n(w, s, n + strlen(s + n));
}

void jw_key(struct jw *w, const char *key)
{
	size_t n = plain_len(key);

	sep(w);
	if (key[n] == '\0') {
		quoted(w, key, n, ":", 1);
		return;
	}
	string_n(w, key, n + strlen(key + n));
	put(w, ':');
}

bool jw_is_plain(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] >= 0x80 || p[i] == '"' || p[i] == '\\')
			return false;
	return true;
}

void jw_key_plain(struct jw *w, const char *key, size_t len)
{
	sep(w);
	quoted(w, key, len, ":", 1);
}

void jw_key_n(struct jw *w, const char *key, size_t len)
{
	sep(w);
	string_n(w, key, len);
	put(w, ':');
}

void jw_str(struct jw *w, const char *s)
{
	sep(w);
	string(w, s != NULL ? s : "");
	w->comma = true;
}

/* Decimal digits of v, right-aligned at end: a few hundred a sample, so not
 * through printf. */
static char *digits(char *end, unsigned long long v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	return end;
}

/* A number's text b[0..n) (n <= 21) after its comma, copied byte by byte:
 * a call to memcpy for a few bytes cost more than the copy. */
static void number(struct jw *w, const char *b, size_t n)
{
	char *d;

	if (!grow(w, n + 1))
		return;
	if (w->comma)
		w->data[w->len++] = ',';
	d = w->data + w->len;
	for (size_t i = 0; i < n; i++)
		d[i] = b[i];
	w->len += n;
	w->data[w->len] = '\0';
	w->comma = true;
}

void jw_u64(struct jw *w, unsigned long long v)
{
	char b[24], *p = digits(b + sizeof(b), v);

	number(w, p, (size_t)(b + sizeof(b) - p));
}

void jw_i64(struct jw *w, long long v)
{
	char b[24], *p = digits(b + sizeof(b), v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v);

	if (v < 0)
		*--p = '-';
	number(w, p, (size_t)(b + sizeof(b) - p));
}

/* As jansson's jsonp_dtostr at its default precision (17): "%.17g", the
 * exponent trimmed, and ".0" after an integral result so it reads back as
 * a real. */
void jw_real(struct jw *w, double v)
{
	char b[40];
	int n;

	if (!isfinite(v)) {
		jw_null(w);
		return;
	}
	n = snprintf(b, sizeof(b), "%.17g", v);
	if (n <= 0 || (size_t)n >= sizeof(b) - 3) {
		jw_null(w);
		return;
	}
	/* A locale's decimal comma (the harness never sets one) stays a point. */
	for (int i = 0; i < n; i++)
		if (b[i] == ',')
			b[i] = '.';
	/* As jansson: no '+' and no leading zeros in the exponent ("1e17"). */
	{
		char *e = strchr(b, 'e');

		if (e != NULL) {
			char *start = e + 1, *end = e + 2;

			if (*start == '-')
				start++;
			while (*end == '0')
				end++;
			if (end != start) {
				memmove(start, end, strlen(end) + 1);
				n = (int)strlen(b);
			}
		}
	}
	if (strpbrk(b, ".eE") == NULL) {
		b[n++] = '.';
		b[n++] = '0';
		b[n] = '\0';
	}
	sep(w);
	jw_raw(w, b, (size_t)n);
	w->comma = true;
}

void jw_fixed(struct jw *w, unsigned long long v, unsigned decimals)
{
	char b[48], *end = b + sizeof(b), *p;
	unsigned long long scale = 1;
	unsigned d;

	if (decimals < 1 || decimals > 9) {
		jw_null(w);
		return;
	}
	for (d = 0; d < decimals; d++)
		scale *= 10;
	{
		unsigned long long frac = v % scale;

		/* The fraction's digits, trailing zeros dropped (one is kept). */
		d = decimals;
		while (d > 1 && frac % 10 == 0) {
			frac /= 10;
			d--;
		}
		p = end;
		for (unsigned i = 0; i < d; i++) {
			*--p = (char)('0' + frac % 10);
			frac /= 10;
		}
	}
	*--p = '.';
	p = digits(p, v / scale);
	sep(w);
	jw_raw(w, p, (size_t)(end - p));
	w->comma = true;
}

void jw_null(struct jw *w)
{
	sep(w);
	jw_raw(w, "null", 4);
	w->comma = true;
}

void jw_bool(struct jw *w, bool v)
{
	sep(w);
	jw_raw(w, v ? "true" : "false", v ? 4 : 5);
	w->comma = true;
}

static int dump_cb(const char *buffer, size_t size, void *data)
{
	jw_raw(data, buffer, size);
	return 0;
}

void jw_json(struct jw *w, const json_t *v)
{
	sep(w);
	if (v == NULL || json_dump_callback(v, dump_cb, w, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY) < 0)
		jw_raw(w, "null", 4);
	w->comma = true;
}

json_t *jw_load(const struct jw *w, json_error_t *err)
{
	if (w->oom || w->data == NULL)
		return NULL;
	return json_loadb(w->data, w->len, JSON_DECODE_ANY, err);
}
