/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kv.h — pure parsers for the two keyed-number shapes the kernel prints.
 *
 *   "key value\n"          /proc/vmstat, memory.stat (v1 and v2), memory.events,
 *                          memory.oom_control (v1)
 *   "Key:   value kB\n"    /proc/meminfo, /proc/PID/smaps_rollup, /proc/PID/status
 *
 * Parsers take a NUL-terminated buffer (never a file), match whole keys, parse
 * numbers with strtoull and an end-pointer check, and keep the file's order.
 */
#ifndef PAGELAB_KV_H
#define PAGELAB_KV_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define KV_KEY_MAX 64

struct kv {
	char key[KV_KEY_MAX];
	unsigned long long val;   /* as printed; for "kB" lines the number of kB */
};

struct kv_list {
	size_t n, cap;
	struct kv *items;
};

/* "key value" lines.  Every non-empty line must be exactly a key, one run of
 * blanks and an unsigned decimal; anything else is -EINVAL naming the line.
 * Appends to out (which may start zeroed); on an error out keeps the items it
 * had before the call.  An empty buffer appends nothing and is not an error. */
int kv_parse_space(const char *buf, struct kv_list *out, struct lab_error *err);

/* "Key: value [kB]" lines.  Lines whose first token does not end in ':' are
 * skipped (the smaps_rollup header line, the address line of an smaps VMA);
 * lines whose value is not a number are skipped too (status's "Name:\tregion").
 * So are status's values that are not one decimal: "SigQ:\t0/96365",
 * "Cpus_allowed_list:\t0-1", hex masks "CapEff:\t000001fffeffffff" and
 * several numbers "Uid:\t0\t0\t0\t0".  A number followed by a blank and then
 * anything but "kB" or end of line ("12 MB", "12 kB x") is -EINVAL, as are a
 * number that overflows 64 bits and a key of KV_KEY_MAX characters or more. */
int kv_parse_colon(const char *buf, struct kv_list *out, struct lab_error *err);

/* The same two shapes, each stored line handed to fn as it is parsed, with
 * no list (the tick's path: a sample's keys go straight to its text).  The
 * key is not NUL-terminated; fn returns 0 or a negative errno (err filled),
 * which stops the walk.  Returns 0, the first line's error as above, or
 * fn's. */
typedef int (*kv_fn)(void *ctx, const char *key, size_t keylen, unsigned long long val, size_t lineno,
		     struct lab_error *err);
int kv_each_space(const char *buf, kv_fn fn, void *ctx, struct lab_error *err);
int kv_each_colon(const char *buf, kv_fn fn, void *ctx, struct lab_error *err);

/* Whole-key lookup.  Returns true and sets *val when present. */
bool kv_get(const struct kv_list *l, const char *key, unsigned long long *val);

/* Value or 0 when absent. */
unsigned long long kv_get0(const struct kv_list *l, const char *key);

/* A sysfs choice file's selected word: "always [madvise] never" ->
 * "madvise" (THP's enabled and defrag, the mTHP sizes' enabled).  False,
 * with out "", when the text has no [word]; a longer word is cut to len - 1. */
bool kv_bracketed(const char *text, char *out, size_t len);

void kv_reset(struct kv_list *l);   /* n = 0, keep the allocation */
void kv_free(struct kv_list *l);

#endif
