/* SPDX-License-Identifier: GPL-2.0-or-later */
/* escape.h — a string from outside written into an output language as data.
 *
 * Everything pagelab reads that it did not just write is untrusted: a result
 * document from a colleague, a fleet host or a guest, a tables or reference
 * file, the name of the file itself.  Each output language has exactly one
 * function here, and every writer uses it for every string it did not type
 * itself:
 *
 *   lab_esc_term          a terminal (messages, paths printed)
 *   lab_esc_markdown      a markdown table cell or text
 *   lab_esc_html          HTML text or a quoted attribute value
 *   lab_esc_url           a relative URL path inside an href="..."
 *   lab_esc_csv           a CSV field
 *   lab_esc_gnuplot       a gnuplot '...' string literal (the quotes included)
 *   lab_esc_gnuplot_data  a "..." string column of a gnuplot data file
 *   lab_esc_json          a JSON text (jansson's output) put on a terminal
 *
 * The rule they share: a control character never passes.  C0 (0x00-0x1f),
 * DEL, the C1 controls (U+0080-U+009F, raw or UTF-8 encoded), the
 * bidirectional controls (lab_esc_is_bidi) and every byte that is not part
 * of valid UTF-8 are written as the four characters \xNN (lower-case hex),
 * byte by byte, so an ESC sequence, a BEL, a carriage return or a newline
 * shows as text instead of acting, and a right-to-left override cannot
 * make a cell read backwards from where it sits (\xe2\x80\xae for U+202E);
 * the rest of UTF-8 (—, µ, ·) passes unchanged.  Each language adds its own (harness/cmd/cli.md,
 * "What a document's strings become"):
 *
 *   term      nothing more: a message stays one line
 *   markdown  \ | ] are backslash-escaped, and < where it would open a tag
 *             or an autolink (before a letter, / ! or ?): no cell split, no
 *             raw HTML, no link; newline and tab become a space.  A `code
 *             span` a tables file writes in a note stays one (the articles'
 *             notes use them)
 *   html      & < > " ' as entities; newline and tab pass (whitespace)
 *   url       every byte but A-Z a-z 0-9 - . _ ~ / percent-encoded
 *   csv       a field holding , or " (or any field when quote is true) is
 *             quoted, " doubled; a text field starting with = + - @ that is
 *             not a number gets a leading ' (no spreadsheet formula)
 *   gnuplot   ' doubled inside '...', where gnuplot substitutes nothing
 *             (no `backticks`, no @macros; checked on gnuplot 5.4)
 *   data      " becomes ' (a data file's string has no escape)
 *   json      a whole JSON text, not one string: jansson escapes C0 inside
 *             strings already; DEL, the C1 controls and the bidirectional
 *             ones (valid in JSON) are written \u007f, \u0080-\u009f,
 *             \u202e … (the same text to a parser), all else as it is
 *
 * NULL is written as the empty string (the gnuplot literal as '').
 */
#ifndef PAGELAB_ESCAPE_H
#define PAGELAB_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

void lab_esc_term(FILE *o, const char *s);
void lab_esc_markdown(FILE *o, const char *s);
void lab_esc_html(FILE *o, const char *s);
void lab_esc_url(FILE *o, const char *s);
void lab_esc_csv(FILE *o, const char *s, bool quote);
void lab_esc_gnuplot(FILE *o, const char *s);
void lab_esc_gnuplot_data(FILE *o, const char *s);
void lab_esc_json(FILE *o, const char *json_text);

/* Whether the code point cp is a bidirectional formatting control: the
 * embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069
 * (Unicode's UAX #9; the characters of CVE-2021-42574, "Trojan Source"),
 * and the marks U+200E, U+200F, U+061C.  Invisible, they reorder the text
 * after them on a terminal or a page: a figure or a name from a document
 * would show in an order its bytes do not have. */
bool lab_esc_is_bidi(unsigned cp);

/* The control character s starts with, as the rule above counts them:
 * C0, DEL, a UTF-8 encoded C1 control, a bidirectional control.  Returns
 * its length in bytes (1..3) and its code point in *cp, or 0 when s starts
 * with none (or with its NUL).  A stray byte is not one: an input that
 * refuses controls (a scenario's lines) takes it as data, escaped where
 * it is written. */
size_t lab_control_at(const char *s, unsigned *cp);

/* The length of the character s starts with when every language writes it
 * as it is (valid UTF-8, no control: 1..4), else 0 (a control, a byte that
 * is not UTF-8, the NUL). */
size_t lab_esc_char_len(const char *s);

/* The terminal's rule into buf (len > 0; cut short, never overrun, at a
 * whole character or \xNN).  Returns buf. */
char *lab_esc_term_buf(char *buf, size_t len, const char *s);

#endif
