/* SPDX-License-Identifier: GPL-2.0-or-later */
/* size.c — sizes and byte patterns as people write them in scenarios and --set.
 *
 * strtoull alone is too forgiving for input a person typed: it skips leading
 * blanks, accepts a sign (and negates "-1" into 2^64-1) and a "0x" prefix in
 * base 0.  So every number here is read with lex_u64 (sources/lex.h), which
 * wants a digit first, and the end pointer is checked against the accepted
 * suffixes.
 */
#include "size.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lex.h"

/* The multiplier for one suffix letter, or 0 when the letter is not one. */
static unsigned int shift_of(char c)
{
	switch (c) {
	case 'K': case 'k':
		return 10;
	case 'M': case 'm':
		return 20;
	case 'G': case 'g':
		return 30;
	case 'T': case 't':
		return 40;
	default:
		return 0;
	}
}

int lab_parse_size(const char *s, unsigned long long *bytes, struct lab_error *err)
{
	unsigned long long val;
	const char *end;
	unsigned int shift = 0;
	int ret;

	if (s == NULL || *s == '\0')
		return lab_error_set(err, EINVAL, "empty size (write e.g. 4096, 64K, 512M, 1G)");
	ret = lex_u64(s, 10, &val, &end);
	if (ret == -ERANGE)
		return lab_error_set(err, ERANGE, "size '%s' does not fit in 64 bits", s);
	if (ret < 0)
		return lab_error_set(err, EINVAL,
				     "size '%s' must start with a digit (no sign, no blank)", s);
	if (*end == '.' || *end == ',')
		return lab_error_set(err, EINVAL,
				     "size '%s' has a fraction: write it in a smaller unit (1536M, not 1.5G)",
				     s);
	if (*end != '\0' && *end != 'B') {
		shift = shift_of(*end);
		if (shift == 0)
			goto bad_suffix;
		end++;
		/* "K", "KiB"; "KB" is refused: it reads as 1000 to half the readers. */
		if (end[0] == 'i' && end[1] == 'B')
			end += 2;
		if (*end != '\0')
			goto bad_suffix;
	} else if (*end == 'B') {
		end++;
		if (*end != '\0')
			goto bad_suffix;
	}
	if (shift != 0 && val > (ULLONG_MAX >> shift))
		return lab_error_set(err, ERANGE, "size '%s' does not fit in 64 bits", s);
	*bytes = val << shift;
	return 0;

bad_suffix:
	return lab_error_set(err, EINVAL,
			     "size '%s' has an unknown unit (use B, K, M, G, T or KiB, MiB, GiB, TiB)",
			     s);
}

int lab_parse_byte(const char *s, unsigned int *byte, struct lab_error *err)
{
	unsigned long long val;
	const char *end;
	int ret;

	if (s == NULL || *s == '\0')
		return lab_error_set(err, EINVAL, "empty byte value (write e.g. 0xA5 or 165)");
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		ret = lex_u64(s + 2, 16, &val, &end);
	else
		ret = lex_u64(s, 10, &val, &end);
	if (ret == -EINVAL || (ret == 0 && *end != '\0'))
		return lab_error_set(err, EINVAL,
				     "byte value '%s' is not a number (write e.g. 0xA5 or 165)", s);
	if (ret == -ERANGE || val > 255)
		return lab_error_set(err, ERANGE, "byte value '%s' is above 255 (0xFF)", s);
	*byte = (unsigned int)val;
	return 0;
}

int lab_parse_uint(const char *s, unsigned long long *val, struct lab_error *err)
{
	const char *end;
	int ret;

	if (s == NULL || *s == '\0')
		return lab_error_set(err, EINVAL, "empty number");
	ret = lex_u64(s, 10, val, &end);
	if (ret == -ERANGE)
		return lab_error_set(err, ERANGE, "number '%s' does not fit in 64 bits", s);
	if (ret < 0 || *end != '\0')
		return lab_error_set(err, EINVAL,
				     "'%s' is not a non-negative decimal integer", s);
	return 0;
}

/* Largest binary unit not above bytes; exact multiples print as integers
 * ("512 MiB"), others with one rounded decimal ("1.5 GiB", "1.0 GiB" for a
 * value just off a whole unit, so it never reads as exact).  Integer
 * arithmetic only: rem * 10 < 10 * 2^60 still fits in 64 bits. */
const char *lab_format_size(unsigned long long bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;
	unsigned long long whole, rem, tenths, unit;
	int n;

	if (buf == NULL || len == 0)
		return "";
	while (u + 1 < sizeof(units) / sizeof(units[0]) && bytes >= (1ULL << (10 * (u + 1))))
		u++;
	unit = 1ULL << (10 * u);
	whole = bytes / unit;
	rem = bytes % unit;
	if (rem == 0) {
		n = snprintf(buf, len, "%llu %s", whole, units[u]);
	} else {
		tenths = (rem * 10 + unit / 2) / unit;
		if (tenths == 10) {
			whole++;
			tenths = 0;
			/* 1023.96 MiB rounds to 1024.0 MiB: say 1.0 GiB instead. */
			if (whole == 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
				whole = 1;
				u++;
			}
		}
		n = snprintf(buf, len, "%llu.%llu %s", whole, tenths, units[u]);
	}
	/* A cut-off size would read as a different number: give nothing instead. */
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
	return buf;
}
