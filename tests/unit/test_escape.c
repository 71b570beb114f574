/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_escape.c — base/escape.h, one function per output language, on the
 * strings a hostile result document plants (tests/bats/hostile-docs.bats
 * runs the writers on whole documents).
 *
 * What is expected, and why:
 *   - a control character (ESC, BEL, CR, newline, DEL, a C1 control raw or
 *     UTF-8 encoded) and every byte that is not valid UTF-8 (a stray
 *     continuation, an overlong "/", a surrogate) come out as \xNN in every
 *     language, so no terminal acts on it and no script line ends early;
 *     valid UTF-8 (—, µ, ·) passes unchanged;
 *   - markdown: \ | ] backslash-escaped, < where it opens a tag or an
 *     autolink (not in "1691 MB < the file"), newline and tab a space;
 *   - HTML: & < > " ' as entities (a </td><script> is text);
 *   - CSV: quoted when it holds , or " (always with quote), " doubled, a
 *     formula (=, +cmd, -cmd, @) gets a leading ', a signed figure does not;
 *   - gnuplot: inside '...', ' doubled, a newline never written (a newline
 *     would end the string and start a command: !cmd, system "cmd");
 *   - the bidirectional controls (U+202A-E, U+2066-9, U+200E/F, U+061C)
 *     as \xNN in every language too, their neighbours (U+202F, U+2065)
 *     kept: an override would reorder the text after it;
 *   - JSON: DEL, C1 and the bidirectional controls inside the text as \u
 *     escapes, UTF-8 else kept;
 *   - the terminal buffer form cuts at a whole character, never overruns.
 */
#include <stdbool.h>

#include "base/escape.h"
#include "unit.h"

typedef void (*esc_fn)(FILE *o, const char *s);

static void csv_auto(FILE *o, const char *s)
{
	lab_esc_csv(o, s, false);
}

static void csv_quoted(FILE *o, const char *s)
{
	lab_esc_csv(o, s, true);
}

/* What fn writes for s (a static buffer, overwritten by the next call). */
static const char *esc(esc_fn fn, const char *s)
{
	static char out[1024];
	FILE *f = fmemopen(out, sizeof(out), "w");

	if (f == NULL)
		return "";
	fn(f, s);
	fclose(f);
	return out;
}

int main(void)
{
	static const esc_fn all[] = { lab_esc_term, lab_esc_markdown, lab_esc_html, csv_auto,
				      lab_esc_gnuplot, lab_esc_gnuplot_data };
	char buf[16];

	/* Controls and stray bytes, in every language. */
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		CHECK_CONTAINS(esc(all[i], "a\x1b[31mb"), "a\\x1b");
		CHECK(strchr(esc(all[i], "a\x1b[31mb\a\r\x7f"), 0x1b) == NULL);
		CHECK_CONTAINS(esc(all[i], "\x07"), "\\x07");
		CHECK_CONTAINS(esc(all[i], "\r"), "\\x0d");
		CHECK_CONTAINS(esc(all[i], "\x7f"), "\\x7f");
		CHECK_CONTAINS(esc(all[i], "x\xc2\x9b" "31m"), "\\xc2\\x9b");   /* C1 CSI, UTF-8 */
		CHECK_CONTAINS(esc(all[i], "x\x9b" "31m"), "\\x9b");           /* raw */
		CHECK_CONTAINS(esc(all[i], "\xc0\xaf"), "\\xc0\\xaf");         /* overlong '/' */
		CHECK_CONTAINS(esc(all[i], "\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* a surrogate */
		CHECK_CONTAINS(esc(all[i], "\xe2\x80"), "\\xe2\\x80");         /* cut short */
		CHECK_CONTAINS(esc(all[i], "µ·—"), "µ·—");
		CHECK(strchr(esc(all[i], "1\n2\r3"), '\r') == NULL);
		/* The bidirectional controls: an override, an isolate, a mark. */
		CHECK_CONTAINS(esc(all[i], "a\u202e" "fdp.exe"), "a\\xe2\\x80\\xaefdp.exe");
		CHECK_CONTAINS(esc(all[i], "\u202a\u202b\u202c\u202d"), "\\xe2\\x80\\xaa\\xe2\\x80\\xab\\xe2\\x80\\xac\\xe2\\x80\\xad");
		CHECK_CONTAINS(esc(all[i], "\u2066x\u2069"), "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");
		CHECK_CONTAINS(esc(all[i], "\u2067\u2068"), "\\xe2\\x81\\xa7\\xe2\\x81\\xa8");
		CHECK_CONTAINS(esc(all[i], "\u200e\u200f\u061c"), "\\xe2\\x80\\x8e\\xe2\\x80\\x8f\\xd8\\x9c");
		CHECK(strstr(esc(all[i], "x\u202ey"), "\u202e") == NULL);
		/* Their neighbours are text: U+2029, U+202F, U+2065, U+206A, U+200D. */
		CHECK_CONTAINS(esc(all[i], "\u2029\u202f\u2065\u206a\u200d"), "\u2029\u202f\u2065\u206a\u200d");
	}
	/* A newline: \x0a where one line is the rule, a space in markdown,
	 * whitespace in HTML. */
	CHECK_STR(esc(lab_esc_term, "a\nb"), "a\\x0ab");
	CHECK_STR(esc(lab_esc_gnuplot, "6.1\n!touch /tmp/x\n#"), "'6.1\\x0a!touch /tmp/x\\x0a#'");
	CHECK_STR(esc(lab_esc_markdown, "a\nb\tc"), "a b c");
	CHECK_STR(esc(lab_esc_html, "a\nb"), "a\nb");
	CHECK_STR(esc(csv_auto, "a\nb"), "a\\x0ab");

	CHECK_STR(esc(lab_esc_markdown, "a|b<c>d]e\\f`g"), "a\\|b\\<c>d\\]e\\\\f`g");
	CHECK_STR(esc(lab_esc_markdown, "</td><script>x"), "\\</td>\\<script>x");
	CHECK_STR(esc(lab_esc_markdown, "<!-- <?x <http://a>"), "\\<!-- \\<?x \\<http://a>");
	CHECK_STR(esc(lab_esc_markdown, "1691 MB < the 2.3 GB file, a<3"), "1691 MB < the 2.3 GB file, a<3");
	CHECK_STR(esc(lab_esc_markdown, "THP off · madv_free *x*"), "THP off · madv_free *x*");
	CHECK_STR(esc(lab_esc_html, "</td><script>\"'&"), "&lt;/td&gt;&lt;script&gt;&quot;&#39;&amp;");
	CHECK_STR(esc(lab_esc_url, "../a b/ü?.json"), "../a%20b/%C3%BC%3F.json");
	CHECK_STR(esc(csv_auto, "plain"), "plain");
	CHECK_STR(esc(csv_auto, "a,b"), "\"a,b\"");
	CHECK_STR(esc(csv_auto, "say \"x\""), "\"say \"\"x\"\"\"");
	CHECK_STR(esc(csv_quoted, "base"), "\"base\"");
	CHECK_STR(esc(csv_quoted, NULL), "\"\"");
	CHECK_STR(esc(csv_auto, "=cmd|' /C calc'!A0"), "'=cmd|' /C calc'!A0");
	CHECK_STR(esc(csv_auto, "@SUM(1)"), "'@SUM(1)");
	CHECK_STR(esc(csv_auto, "-cmd"), "'-cmd");
	CHECK_STR(esc(csv_auto, "-354,304 / -354,304 kB"), "\"-354,304 / -354,304 kB\"");
	CHECK_STR(esc(csv_auto, "-2"), "-2");
	CHECK_STR(esc(csv_auto, "+3.5"), "+3.5");
	CHECK_STR(esc(lab_esc_gnuplot, "it's `x` @y"), "'it''s `x` @y'");
	CHECK_STR(esc(lab_esc_gnuplot, NULL), "''");
	CHECK_STR(esc(lab_esc_gnuplot_data, "OOM: \"x\"\n"), "\"OOM: 'x'\\x0a\"");

	/* JSON: the text stays JSON, the same to a parser. */
	CHECK_STR(esc(lab_esc_json, "{\"a\": \"x\x7fy\xc2\x9bz —\"}"), "{\"a\": \"x\\u007fy\\u009bz —\"}");
	CHECK_STR(esc(lab_esc_json, "[\"a\u202eb\u2066c\u2069\u061cd\u200f\u2029\u202f\"]"),
		  "[\"a\\u202eb\\u2066c\\u2069\\u061cd\\u200f\u2029\u202f\"]");
	CHECK_STR(esc(lab_esc_json, "\"\xe2\x80\""), "\"\xe2\x80\"");    /* cut short: as it is */
	CHECK(lab_esc_is_bidi(0x202e) && lab_esc_is_bidi(0x2066) && lab_esc_is_bidi(0x061c));
	CHECK(!lab_esc_is_bidi(0x202f) && !lab_esc_is_bidi(0x2065) && !lab_esc_is_bidi(0x200d));

	/* What an input that refuses controls is told (a scenario's lines). */
	{
		unsigned cp = 0;

		CHECK(lab_control_at("\x1b[", &cp) == 1 && cp == 0x1b);
		CHECK(lab_control_at("\x7f", &cp) == 1 && cp == 0x7f);
		CHECK(lab_control_at("\xc2\x9b" "31m", &cp) == 2 && cp == 0x9b);
		CHECK(lab_control_at("\u202e", &cp) == 3 && cp == 0x202e);
		CHECK(lab_control_at("\u2069", &cp) == 3 && cp == 0x2069);
		CHECK(lab_control_at("\u061c", &cp) == 2 && cp == 0x061c);
		CHECK(lab_control_at("a", &cp) == 0 && lab_control_at("", &cp) == 0);
		CHECK(lab_control_at("\u202f", &cp) == 0 && lab_control_at("\xc2\xa0", &cp) == 0);
		CHECK(lab_control_at("\x9b", &cp) == 0);       /* a stray byte: not UTF-8, not a control */
		CHECK(lab_control_at("\xe2\x80", &cp) == 0);  /* cut short */
		CHECK(lab_esc_char_len("µ") == 2 && lab_esc_char_len("—") == 3 && lab_esc_char_len("a") == 1);
		CHECK(lab_esc_char_len("\x9b") == 0 && lab_esc_char_len("\u202e") == 0 && lab_esc_char_len("\t") == 0);
		CHECK(lab_esc_char_len("") == 0);
	}

	/* The buffer form: whole characters or \xNN, always terminated. */
	CHECK_STR(lab_esc_term_buf(buf, sizeof(buf), "ab\x1b" "cd"), "ab\\x1bcd");
	CHECK_STR(lab_esc_term_buf(buf, 6, "ab\x1b" "cd"), "ab");
	CHECK_STR(lab_esc_term_buf(buf, 4, "a——"), "a");
	CHECK_STR(lab_esc_term_buf(buf, 5, "a——"), "a—");
	CHECK_STR(lab_esc_term_buf(buf, 1, "abc"), "");
	CHECK_STR(lab_esc_term_buf(buf, sizeof(buf), "1\u202e2"), "1\\xe2\\x80\\xae2");
	return unit_report("escape");
}
