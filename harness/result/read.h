/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result_read.h — read a result document (or a run's .jsonl stream) keeping
 * of its samples only what the reader needs.
 *
 * A result holds every sample of every run (harness/result/result.md): ~3.6 KB of
 * JSON each, ~55 MB for an hour at the 250 ms tick, and a whole-document
 * jansson load takes about 8.5 times the file in memory.  The readers
 * (report, plot, compare, the HTML page) each read a few paths of a sample,
 * so the document is parsed as a stream (yajl) and every runs[].samples
 * element is pruned, as it is parsed, to the paths its reader declared in a
 * struct result_need; everything else of the document (host, scenario,
 * steps, summaries, events) is kept whole, as json_t.  Each sample keeps
 * "t_ms" and "cause" always, and the last sample of a run is kept whole
 * (report's "sample:last" and the vmstat window read it).  Memory then
 * grows with what is needed, not with the document (docs/benchmark.md).
 *
 * A path is dotted keys from the sample ("memcg.usage_bytes",
 * "vmstat_delta.pgscan_kswapd"); a segment ending in '*' keeps every key
 * with that prefix ("vmstat_delta.allocstall_*"); a segment holding '+'
 * names several keys ("vmstat_delta.pgscan_kswapd+pgscan_direct"); a path
 * is cut at a '{' (a table's placeholder) or at an index that is not a
 * selector, keeping what is before it whole; a selector "[k=v,…]" keeps
 * in every element of the array its keys and the rest of the path
 * ("zones[zone=Normal,node=0].free": each zone's zone, node and free).  An
 * array reached applies the rest of the path to each of its elements.
 *
 * PAGELAB_READ=full in the environment loads every document whole with
 * jansson as before (the benchmark's comparison and the test that pruned
 * and whole loads give the same output: tests/bats/read.bats);
 * PAGELAB_READ=bare prunes every sample but each run's last to t_ms and
 * cause whatever the reader asked (that test's control: its comparisons
 * must then fail).
 */
#ifndef PAGELAB_RESULT_READ_H
#define PAGELAB_RESULT_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

struct result_need;

/* An empty need (only t_ms and cause, and the last sample whole); NULL
 * when out of memory. */
struct result_need *result_need_new(void);
void result_need_free(struct result_need *n);
/* Add one path (the syntax above).  0 or -ENOMEM with err. */
int result_need_add(struct result_need *n, const char *path, struct lab_error *err);
/* Keep every sample whole (a reader that cannot say what it reads). */
void result_need_all(struct result_need *n);
/* Whether every path of b is kept by a (a reload is needed when not). */
bool result_need_covers(const struct result_need *a, const struct result_need *b);
/* Add every path of from to into.  0 or -ENOMEM. */
int result_need_merge(struct result_need *into, const struct result_need *from, struct lab_error *err);

/* What was read. */
struct result_read_info {
	bool stream;            /* from a .jsonl stream, not a document */
	bool finished;          /* the stream has its "end" line */
	bool cut;               /* its last line was cut short (ignored) */
	size_t runs, samples;   /* how many */
};

/* Read path: a pagelab.result/1 document, or a run's stream when the name
 * ends in ".jsonl" (assembled into the same document shape, status
 * "interrupted" when the stream has no "end" line).  The file is taken as
 * lab_read_input takes inputs: a regular file only, at most LAB_RESULT_MAX
 * bytes.  need NULL keeps every sample whole.  A document that is not JSON
 * is refused in one line with the byte offset and line of the fault; one
 * whose schema is not pagelab.result/1 too.  0, or -errno with err
 * (-EINVAL bad input, -ENOMEM, open's errno).  info may be NULL. */
int result_read(const char *path, const struct result_need *need, json_t **out, struct result_read_info *info,
		struct lab_error *err);

/* The need may depend on the document (report's tables are the ones its
 * scenario names): fn is called once, with the document read so far, when
 * the reader reaches the root's "runs" (for a stream: after its header), and
 * adds to need what those samples must keep.  In pagelab's documents the
 * scenario comes before the runs; a function that does not find what it
 * decides on should keep everything (result_need_all).  0 or -errno with
 * err, which stops the read. */
typedef int (*result_need_fn)(const json_t *head, struct result_need *need, void *arg, struct lab_error *err);
int result_read_for(const char *path, struct result_need *need, result_need_fn fn, void *arg, json_t **out,
		    struct result_read_info *info, struct lab_error *err);

/* The same from a buffer (the fuzzer's entry; a document, not a stream). */
int result_read_buffer(const char *name, const char *buf, size_t len, const struct result_need *need,
		       json_t **out, struct lab_error *err);

/* Whether PAGELAB_READ=full asks for whole-document loads. */
bool result_read_full(void);

#endif
