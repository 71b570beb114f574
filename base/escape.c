/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.c — one escaping function per output language (escape.h). */
#include "escape.h"

#include <stdint.h>
#include <string.h>

bool lab_esc_is_bidi(unsigned cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The length of the character at s: a valid UTF-8 sequence that is not a
 * control (1..4), or 0 for a control character or a byte that does not
 * start a valid sequence (shown as \xNN, one byte at a time).  Valid means
 * RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF. */
static size_t char_len(const unsigned char *s)
{
	unsigned c = s[0], cp;
	size_t n, i;

	if (c < 0x20 || c == 0x7f)
		return 0;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)
		return 0;               /* C1: CSI (U+009B) acts like ESC [ on some terminals */
	if (lab_esc_is_bidi(cp))
		return 0;
	return n;
}

size_t lab_esc_char_len(const char *s)
{
	return char_len((const unsigned char *)s);
}

/* Writes s through put: each plain character as it is (put's job), each
 * control character or stray byte as \xNN. */
typedef void (*put_fn)(FILE *o, const unsigned char *c, size_t n);

/* The first n bytes of s (all of it: SIZE_MAX).  A sequence never reaches
 * past a newline or a tab where a caller cuts (they are no continuation
 * byte), nor past the NUL. */
static void walk_n(FILE *o, const char *s, size_t len, put_fn put)
{
	const unsigned char *p = (const unsigned char *)s, *end;

	if (s == NULL)
		return;
	end = len == SIZE_MAX ? p + strlen(s) : p + len;
	while (p < end) {
		size_t n = char_len(p);

		if (n == 0) {
			fprintf(o, "\\x%02x", *p);
			p++;
		} else {
			put(o, p, n);
			p += n;
		}
	}
}

static void walk(FILE *o, const char *s, put_fn put)
{
	walk_n(o, s, SIZE_MAX, put);
}

/* As walk, but a newline or a tab is written as a space (as_space) or as
 * itself, not as \xNN. */
static void walk_ws(FILE *o, const char *s, put_fn put, bool as_space)
{
	for (const char *p = s; p != NULL && *p; ) {
		size_t n = strcspn(p, "\n\t");

		walk_n(o, p, n, put);
		p += n;
		if (*p) {
			fputc(as_space ? ' ' : *p, o);
			p++;
		}
	}
}

static void put_plain(FILE *o, const unsigned char *c, size_t n)
{
	fwrite(c, 1, n, o);
}

void lab_esc_term(FILE *o, const char *s)
{
	walk(o, s, put_plain);
}

char *lab_esc_term_buf(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0;

	if (len == 0)
		return buf;
	while (p != NULL && *p) {
		size_t n = char_len(p);
		size_t need = n == 0 ? 4 : n;

		if (k + need >= len)
			break;
		if (n == 0)
			snprintf(buf + k, len - k, "\\x%02x", *p++);
		else
			for (size_t i = 0; i < n; i++)
				buf[k + i] = (char)*p++;
		k += need;
	}
	buf[k] = '\0';
	return buf;
}

/* What starts raw HTML or an autolink after a '<' (CommonMark 6.5, 6.6): a
 * letter (a tag, a scheme), '/', '!' or '?'.  "1691 MB < the file" has no
 * tag in it and keeps its '<' as written. */
static bool opens_tag(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '/' || c == '!' || c == '?';
}

static void put_markdown(FILE *o, const unsigned char *c, size_t n)
{
	/* c[n] is the next byte of the string (or its NUL). */
	if (n == 1 && (strchr("\\|]", c[0]) != NULL || (c[0] == '<' && opens_tag(c[1]))))
		fputc('\\', o);
	fwrite(c, 1, n, o);
}

void lab_esc_markdown(FILE *o, const char *s)
{
	walk_ws(o, s, put_markdown, true);        /* a cell is one line */
}

static void put_html(FILE *o, const unsigned char *c, size_t n)
{
	switch (n == 1 ? c[0] : 0) {
	case '&': fputs("&amp;", o); break;
	case '<': fputs("&lt;", o); break;
	case '>': fputs("&gt;", o); break;
	case '"': fputs("&quot;", o); break;
	case '\'': fputs("&#39;", o); break;
	default: fwrite(c, 1, n, o);
	}
}

void lab_esc_html(FILE *o, const char *s)
{
	walk_ws(o, s, put_html, false);           /* whitespace, as it was */
}

void lab_esc_url(FILE *o, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; p != NULL && *p; p++) {
		unsigned c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", (int)c))
			fputc((int)c, o);
		else
			fprintf(o, "%%%02X", c);
	}
}

static void put_csv(FILE *o, const unsigned char *c, size_t n)
{
	if (n == 1 && c[0] == '"')
		fputc('"', o);
	fwrite(c, 1, n, o);
}

/* "-354,304 / -354,304 kB" and "-2" are figures; "=cmd|..." and
 * "-cmd" are not: a sign is a formula's start only before a non-digit. */
static bool formula_start(const char *s)
{
	if (s[0] == '=' || s[0] == '@')
		return true;
	return (s[0] == '+' || s[0] == '-') && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.';
}

void lab_esc_csv(FILE *o, const char *s, bool quote)
{
	bool formula;

	if (s == NULL)
		s = "";
	formula = formula_start(s);
	quote |= strpbrk(s, ",\"") != NULL;
	if (quote)
		fputc('"', o);
	if (formula)
		fputc('\'', o);
	walk(o, s, put_csv);
	if (quote)
		fputc('"', o);
}

static void put_gnuplot(FILE *o, const unsigned char *c, size_t n)
{
	if (n == 1 && c[0] == '\'')
		fputc('\'', o);
	fwrite(c, 1, n, o);
}

void lab_esc_gnuplot(FILE *o, const char *s)
{
	fputc('\'', o);
	walk(o, s, put_gnuplot);
	fputc('\'', o);
}

static void put_gnuplot_data(FILE *o, const unsigned char *c, size_t n)
{
	if (n == 1 && c[0] == '"')
		fputc('\'', o);
	else
		fwrite(c, 1, n, o);
}

void lab_esc_gnuplot_data(FILE *o, const char *s)
{
	fputc('"', o);
	walk(o, s, put_gnuplot_data);
	fputc('"', o);
}

/* The code point of the bidirectional control (escape.h) whose UTF-8 starts
 * at p (0xd8 0x9c or 0xe2 0x80/0x81 …), else 0. */
static unsigned bidi_at(const unsigned char *p)
{
	unsigned cp;

	if (p[0] == 0xd8 && p[1] == 0x9c)
		return 0x061c;
	if (p[0] != 0xe2 || (p[1] != 0x80 && p[1] != 0x81) || (p[2] & 0xc0) != 0x80)
		return 0;
	cp = 0x2000u | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	return lab_esc_is_bidi(cp) ? cp : 0;
}

size_t lab_control_at(const char *s, unsigned *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned b;

	if (p[0] != 0 && (p[0] < 0x20 || p[0] == 0x7f)) {
		*cp = p[0];
		return 1;
	}
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
		*cp = p[1];
		return 2;
	}
	if (p[0] >= 0xd8 && (b = bidi_at(p)) != 0) {
		*cp = b;
		return b == 0x061c ? 2 : 3;
	}
	return 0;
}

void lab_esc_json(FILE *o, const char *json_text)
{
	const unsigned char *p = (const unsigned char *)json_text, *run = p;

	for (; p != NULL && *p; p++) {
		bool c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
		unsigned bidi = *p >= 0xd8 ? bidi_at(p) : 0;

		if (*p != 0x7f && !c1 && bidi == 0)
			continue;
		fwrite(run, 1, (size_t)(p - run), o);
		fprintf(o, "\\u%04x", bidi != 0 ? bidi : c1 ? p[1] : 0x7f);
		p += bidi == 0x061c || c1 ? 1 : bidi != 0 ? 2 : 0;
		run = p + 1;
	}
	if (run != NULL)
		fwrite(run, 1, (size_t)(p - run), o);
}
