/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lex.h — the scanning that pagelab's parsers share: lines, blanks, and the
 * one strict unsigned-number parser (sources/kv.c, sources/zoneinfo.c,
 * sources/smaps.c and size.c), and a word in a separated list (mountinfo's
 * options in sandbox/names.c, plan/vmkernel.c's series table).
 *
 * Internal to labcore, not part of any module's interface; static inline so
 * that it needs no build change and exports no symbol.
 */
#ifndef PAGELAB_LEX_H
#define PAGELAB_LEX_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool lex_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool lex_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool lex_is_xdigit(char c)
{
	return lex_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The end of the line that starts at p: its '\n', or the terminating NUL. */
static inline const char *lex_line_end(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl != NULL ? nl : p + strlen(p);
}

/* The start of the line after the one that ends at eol. */
static inline const char *lex_next_line(const char *eol)
{
	return *eol == '\n' ? eol + 1 : eol;
}

static inline const char *lex_skip_blanks(const char *p, const char *eol)
{
	while (p < eol && lex_is_blank(*p))
		p++;
	return p;
}

/* An unsigned number in base 10 or 16 that starts right at p.  strtoull alone
 * is too forgiving: it skips leading blanks, accepts a sign (and negates "-1"
 * into 2^64-1) and, in base 16, a "0x" prefix (so "0x0x5" after a caller's own
 * prefix).  Here p must start with a digit of the base, and in base 16 a "0x"
 * is refused.  *val gets strtoull's result (also on an error), *end is set
 * past the digits.  Returns 0, -EINVAL when p does not start with a digit, or
 * -ERANGE when the number does not fit in 64 bits. */
static inline int lex_u64(const char *p, int base, unsigned long long *val, const char **end)
{
	char *e;

	if (base == 16 ? !lex_is_xdigit(*p) : !lex_is_digit(*p))
		return -EINVAL;
	/* The tick's path (a few hundred numbers a sample): up to 19 decimal
	 * digits always fit in 64 bits, so no strtoull and no errno. */
	if (base == 10) {
		unsigned long long v = 0;
		const char *q = p;

		while (lex_is_digit(*q) && q - p < 19)
			v = v * 10 + (unsigned long long)(*q++ - '0');
		if (!lex_is_digit(*q)) {
			*val = v;
			*end = q;
			return 0;
		}
	}
	if (base == 16 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -EINVAL;
	errno = 0;
	*val = strtoull(p, &e, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno != 0 || e == p)
		return -EINVAL;
	*end = e;
	return 0;
}

/* Whether WORD is one of the SEP-separated words of LIST[0..LEN) ("rw,memory"
 * with ','; "amd64|arm64" with '|'). */
static inline bool lex_list_has(const char *list, size_t len, const char *word, char sep)
{
	size_t wlen = strlen(word);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *q = memchr(p, sep, (size_t)(end - p));
		size_t n = q != NULL ? (size_t)(q - p) : (size_t)(end - p);

		if (n == wlen && memcmp(p, word, wlen) == 0)
			return true;
		if (q == NULL)
			break;
		p = q + 1;
	}
	return false;
}

#endif
