/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h — a load client's own measure, read from its output by a
 * metrics table that is data: one file per tool, DATA/metrics/TOOL.json
 * (`pagelab.metrics/1`, the format in metrics/README.md).  A table says
 * which of the tool's flags bound it (a load without one is refused before
 * anything runs), which exit codes it may end with, how its numbers are
 * printed (CSV columns keyed by a column, or line patterns), each number's
 * metric name, unit and whether higher or lower is better, and what in its
 * output means the numbers are not a result (pgbench's "Run was aborted"
 * after a full summary; memcaslap's Ops short of its -x).  Pure but for
 * metrics_load, which reads the file. */
#ifndef PAGELAB_LAUNCH_METRICS_H
#define PAGELAB_LAUNCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

#define METRICS_SCHEMA "pagelab.metrics/1"

struct metrics_table;

/* DATA/metrics/NAME.json (base/paths.h's data directory, PAGELAB_DATA_DIR
 * by base/trust.h's rules).  -ENOENT when there is none (the message lists
 * the directory), -EINVAL when it is not a valid table (file, what, where). */
int metrics_load(const char *name, struct metrics_table **out, struct lab_error *err);

/* The same from text (file names it in messages). */
int metrics_parse(const char *file, const char *text, struct metrics_table **out, struct lab_error *err);

/* Does argv bound the tool as its table asks (one of its count or time
 * flags given, none of its endless ones)?  0, or -EINVAL naming the flags. */
int metrics_check_args(const struct metrics_table *t, char *const *argv, int argc, struct lab_error *err);

/* The tool's output read by the table:
 *   {"metrics": {NAME: {"value": N, "unit": U, "better": "higher"|"lower"|"none"}},
 *    "valid": bool, "invalid": why | null}
 * code is its exit code (-1: it did not exit by itself: the caller says why
 * it is not a result).  A new reference. */
json_t *metrics_read(const struct metrics_table *t, const char *out, const char *err_text, int code,
		     char *const *argv, int argc);

const char *metrics_path(const struct metrics_table *t);
const char *metrics_tool(const struct metrics_table *t);
void metrics_free(struct metrics_table *t);

#endif
