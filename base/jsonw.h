/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonw.h — a sample written as JSON text, straight into a reused buffer.
 *
 * The tick's sources write their values through this (sources/source.h:
 * emit), so a sample is one line built without a json_t per key and written
 * to the stream with one write.  The writer keeps only a "a comma is due"
 * flag: a key or a value after a value gets its comma, a begin resets it.
 * Reals are printed as jansson prints them (%.17g, ".0" added to an
 * integral one), so json_loads reads back the very double; a NaN or an
 * infinity (no JSON for them) becomes null.  Strings are escaped as JSON
 * wants (", \ and control characters; a byte that is not UTF-8 becomes
 * \u00XX), so any message can go in.  Out of memory is remembered (jw.oom)
 * and the line is then dropped by whoever writes it. */
#ifndef PAGELAB_JSONW_H
#define PAGELAB_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

struct jw {
	char *data;             /* NUL-terminated text so far */
	size_t len, cap;
	bool comma;             /* the next key or value needs a ',' first */
	bool oom;
};

/* A point to come back to: jw_rewind(w, m) drops what was written since. */
struct jw_mark {
	size_t len;
	bool comma;
};

void jw_reset(struct jw *w);            /* len = 0, keep the allocation */
void jw_free(struct jw *w);
struct jw_mark jw_mark(const struct jw *w);
void jw_rewind(struct jw *w, struct jw_mark m);

void jw_obj(struct jw *w);              /* '{' */
void jw_obj_end(struct jw *w);          /* '}' */
void jw_arr(struct jw *w);              /* '[' */
void jw_arr_end(struct jw *w);          /* ']' */
void jw_key(struct jw *w, const char *key);     /* "key": (escaped) */
void jw_key_n(struct jw *w, const char *key, size_t len);       /* the same, len bytes (no NUL in them) */
/* Whether s[0..len) needs no escaping (no NUL in it): then jw_key_plain
 * writes it as it is, without looking at its bytes again. */
bool jw_is_plain(const char *s, size_t len);
void jw_key_plain(struct jw *w, const char *key, size_t len);
/* A key that is a string literal of plain bytes (the harness's own names):
 * its length known when compiled, no look at its bytes. */
#define jw_key_lit(w, lit) jw_key_plain((w), "" lit "", sizeof(lit) - 1)
void jw_u64(struct jw *w, unsigned long long v);
void jw_i64(struct jw *w, long long v);
void jw_real(struct jw *w, double v);
/* v / 10^decimals (decimals 1..9) as a real in the fewest digits, at least
 * one after the point: "0.07", "112.5", "3.0".  Reads back as the very
 * double (double)v / 1e<decimals> (v < 2^53: both are one correctly rounded
 * division of the same exact number), without printf: a sample's times and
 * PSI averages. */
void jw_fixed(struct jw *w, unsigned long long v, unsigned decimals);
void jw_str(struct jw *w, const char *s);
void jw_null(struct jw *w);
void jw_bool(struct jw *w, bool v);
/* A value jansson holds (the step sources' json_t), dumped compact in place. */
void jw_json(struct jw *w, const json_t *v);
/* Raw text, appended as it is (no comma logic): the caller's own JSON. */
void jw_raw(struct jw *w, const char *s, size_t n);
/* Room for n more bytes after the text, for a caller that writes its own
 * JSON there in one pass (sources' fast paths): where to write them, or NULL
 * when out of memory (w.oom).  Nothing counts until jw_wrote(w, k, comma)
 * adds the k bytes written (k <= n) and sets whether a comma is due; a
 * caller that gives up calls jw_wrote(w, 0, w->comma), and the text is as
 * it was. */
char *jw_room(struct jw *w, size_t n);
void jw_wrote(struct jw *w, size_t k, bool comma);

/* The text as a new JSON value (a source's pure parse: emit, then this);
 * NULL with err filled when it does not parse (a writer defect). */
json_t *jw_load(const struct jw *w, json_error_t *err);

#endif
