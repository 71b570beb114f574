/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.h — a foreign program's stdout or stderr, kept bounded.
 *
 * The first head_max bytes and the last tail_max bytes are kept, the rest
 * counted: a service's log cannot grow the harness's memory.  A command
 * workload keeps 16 KiB + 16 KiB of each stream for the result; a load 1 MiB
 * + 64 KiB for its metrics table to read (launch/metrics.h), of which the
 * result keeps the same 16 KiB + 16 KiB.  Lines (up to 4095 bytes; a longer
 * one is handed over cut) go to a callback as they complete: a readiness
 * pattern is matched on them. */
#ifndef PAGELAB_LAUNCH_CAPTURE_H
#define PAGELAB_LAUNCH_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

#define CAPTURE_KEEP (16u * 1024)      /* head and tail a result holds, each */

struct capture {
	char *head;
	size_t head_len, head_max;
	char *tail;                     /* a ring of tail_max bytes */
	size_t tail_max, tail_pos;
	unsigned long long total;       /* bytes read */
	char line[4096];
	size_t line_len;
	bool eof;
};

int capture_init(struct capture *c, size_t head_max, size_t tail_max, struct lab_error *err);

/* Read what fd holds now (O_NONBLOCK) into c; each completed line to
 * line(ctx, text) when line is set.  1 at end of file, 0 when it may hold
 * more later, -errno on a read error. */
int capture_read(struct capture *c, int fd, void (*line)(void *ctx, const char *text), void *ctx);

/* The bytes kept, head then the tail's bytes after it (what a parser
 * reads), NUL-terminated, malloc'd; *len without the NUL. */
char *capture_text(const struct capture *c, size_t *len);

/* As a result holds it: {"bytes": total, "text": the first CAPTURE_KEEP
 * bytes, and when more was written "tail": the last CAPTURE_KEEP bytes and
 * "dropped_bytes": what lies between}; invalid UTF-8 and NUL shown as
 * U+FFFD. */
json_t *capture_json(const struct capture *c);

/* s[0..n) as a JSON string, invalid UTF-8 and NUL as U+FFFD. */
json_t *capture_string(const char *s, size_t n);

void capture_free(struct capture *c);

#endif
