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
 *   - JSON: DEL and C1 inside the text as \u escapes, UTF-8 else kept;
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

	/* The buffer form: whole characters or \xNN, always terminated. */
	CHECK_STR(lab_esc_term_buf(buf, sizeof(buf), "ab\x1b" "cd"), "ab\\x1bcd");
	CHECK_STR(lab_esc_term_buf(buf, 6, "ab\x1b" "cd"), "ab");
	CHECK_STR(lab_esc_term_buf(buf, 4, "a——"), "a");
	CHECK_STR(lab_esc_term_buf(buf, 5, "a——"), "a—");
	CHECK_STR(lab_esc_term_buf(buf, 1, "abc"), "");
	return unit_report("escape");
}
