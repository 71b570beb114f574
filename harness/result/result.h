/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result.h — the result document (harness/result/result.md): streamed as JSON Lines
 * while the scenario runs, written once, atomically, at the end. */
#ifndef PAGELAB_RESULT_H
#define PAGELAB_RESULT_H

#include <jansson.h>

#include "base/error.h"

struct result;

/* out_path NULL: results/<name-with-dashes>-<UTC stamp>.json under
 * $PAGELAB_RESULTS or ./results.  The .jsonl stream sits beside it. */
int result_open(const char *out_path, const char *scenario_name, struct result **out,
		struct lab_error *err);

/* Before anything on the host changes: can the document (out_path, or the
 * default directory, which is made) and its stream be written there
 * (fileio.h: lab_check_output)?  0, or -errno with one line in err. */
int result_check(const char *out_path, struct lab_error *err);

/* $PAGELAB_RESULTS, else "results": where a document goes without --out
 * (result_check(NULL) makes it). */
const char *result_default_dir(void);

json_t *result_doc(struct result *r);          /* borrowed; add to it freely */
const char *result_path(const struct result *r);
const char *result_stream_path(const struct result *r);

/* Append {"type": type, "run": run, ...obj} as one line to the stream
 * (obj is not consumed).  Errors are remembered and reported by finish. */
void result_stream(struct result *r, const char *type, int run, json_t *obj);
void result_stream_sync(struct result *r);

/* A line the caller wrote itself (a sample, sampler.c: no json_t), ending
 * in '\n': written as it is, in one write (after any held lines). */
void result_stream_text(struct result *r, const char *line, size_t len);

/* The same line held in memory, to be written with the lines held before
 * and after it in one write: by result_stream_flush, or before the next
 * line written any other way (so the stream keeps the order lines were
 * made in), and by result_stream_sync, result_samples_here, result_finish
 * and result_close.  The sampler holds its periodic tick lines for up to
 * `[sample] flush_ms` (a write to a file system costs more than the line's
 * parsing, and at 250 ms every write is a cold one); a run killed by
 * SIGKILL loses the lines still held. */
void result_stream_hold(struct result *r, const char *line, size_t len);
void result_stream_flush(struct result *r);
unsigned result_stream_held(const struct result *r);   /* lines held now */

/* What runs[].samples holds while run `run` is sampled: a marker, not the
 * samples.  They are the stream's {"type":"sample","run":run,…} lines from
 * here on; result_finish copies them into the document in its place,
 * line by line, without holding them. */
json_t *result_samples_here(struct result *r, int run);

/* The same for the stream's lines of any type (type is kept, not copied:
 * a string literal): result_samples_here is (r, run, "sample"); the
 * sampler puts runs[].events there with "event", so a run traced with
 * --trace-raw holds none of its records in memory. */
json_t *result_stream_here(struct result *r, int run, const char *type);

/* 0 while every line reached the stream; after a failed write (a full disk)
 * -errno with err naming the stream's path: the run must stop. */
int result_stream_error(const struct result *r, struct lab_error *err);

/* Set status/error/finished and write the document atomically. */
int result_finish(struct result *r, const char *status, const char *error, struct lab_error *err);

void result_close(struct result *r);

/* "2026-11-30T06:40:00Z" for now. */
void result_utc_stamp(char *buf, size_t len, int compact);

#endif
