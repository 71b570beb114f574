/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.h — this host's watermark arithmetic, explained, and the advice lint
 * (`pagelab audit`: the command is harness/cmd/audit.c, which parses the
 * options, prints, handles signals and --with, and picks the exit status).
 *
 * Reads /proc and /sys only (and /dev/kmsg); changes nothing, prints nothing
 * of its own.  Says who set vm.min_free_kbytes (khugepaged's formula, the
 * sqrt formula, or a user write) and what it would become with THP off;
 * predicts every zone's min/low/high and protection array from the zones'
 * managed pages and compares them with /proc/zoneinfo; computes
 * MemAvailable's reserve; prices a proposed watermark_scale_factor; answers
 * the article's three questions over a short watch of /proc/vmstat.  The
 * advice lint reads a sysctl.conf-style file and says, per line, what it
 * would do on THIS kernel (advice.c lists what it checks).
 *
 *   audit.c        gathers: reads the host, builds the document
 *   audit_print.c  the document as text, into a FILE * the caller gives
 *   advice.c       the lint
 */
#ifndef PAGELAB_AUDIT_H
#define PAGELAB_AUDIT_H

#include <stdio.h>
#include <jansson.h>

#include "base/error.h"

/* Everything the audit reads from the host, once. */
struct audit_host;

int audit_host_read(struct audit_host **out, struct lab_error *err);
void audit_host_free(struct audit_host *h);
unsigned long long audit_memtotal_kb(const struct audit_host *h);
const char *audit_kernel(const struct audit_host *h);

/* How the audit waits out its watch of /proc/vmstat: seconds, or less when
 * the caller wants to stop (a signal).  NULL: no watch. */
typedef void (*audit_wait_fn)(void *ctx, unsigned seconds);

/* The audit as one document (what --json prints): wsf 0 = no pricing of a
 * watermark_scale_factor, watch_s 0 = no watch.  0, or -errno with err
 * filled (a zoneinfo without a lowmem zone). */
int audit_document(const struct audit_host *h, unsigned long long wsf, unsigned watch_s, audit_wait_fn wait,
		   void *ctx, json_t **out, struct lab_error *err);

/* doc as text into f. */
void audit_print(FILE *f, const struct audit_host *h, const json_t *doc);

/* The lint of file against this kernel: every finding in findings
 * ({line, key, value, severity, code, message}), each also as a text line
 * "FILE:LINE: SEVERITY: KEY = VALUE: [CODE] MESSAGE" into text unless NULL.
 * A value whose MemAvailable would fall below floor_kb is harmful. */
struct audit_advice {
	json_t *findings;
	int errors, warnings, notes;
};

/* 0, or -errno when the file cannot be read (err says which and why). */
int audit_advice(const struct audit_host *h, const char *file, unsigned long long floor_kb, FILE *text,
		 struct audit_advice *out, struct lab_error *err);

/* The lint as the --json document {file, kernel, floor_kb, findings,
 * summary}; takes the findings over. */
json_t *audit_advice_json(const struct audit_host *h, const char *file, unsigned long long floor_kb,
			  struct audit_advice *a);

#endif
