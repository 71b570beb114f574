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
 * DEL, the C1 controls (U+0080-U+009F, raw or UTF-8 encoded) and every byte
 * that is not part of valid UTF-8 are written as the four characters \xNN
 * (lower-case hex), so an ESC sequence, a BEL, a carriage return or a
 * newline shows as text instead of acting; the rest of UTF-8 (—, µ, ·)
 * passes unchanged.  Each language adds its own (harness/cmd/cli.md,
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
 *             strings already; DEL and the C1 controls (valid in JSON) are
 *             written \u007f, \u0080-\u009f (the same text to a parser), all
 *             else as it is
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

/* The terminal's rule into buf (len > 0; cut short, never overrun, at a
 * whole character or \xNN).  Returns buf. */
char *lab_esc_term_buf(char *buf, size_t len, const char *s);

#endif
