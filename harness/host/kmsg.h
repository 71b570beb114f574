/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmsg.h — the kernel log, as /dev/kmsg gives it, and the OOM reports in it.
 *
 * A /dev/kmsg read returns one record: "PRIO,SEQ,TS_USEC,FLAGS[,...];TEXT\n"
 * followed by continuation lines (" KEY=VALUE\n") that pagelab ignores
 * (Documentation/ABI/testing/dev-kmsg).  TS_USEC is the printk clock
 * (local_clock), in microseconds since boot.
 *
 * The parsers are pure (a buffer in, a struct out) and tested on records
 * captured from real kernels (tests/fixtures/kmsg/).  The reader is the only
 * part that touches /dev/kmsg.
 */
#ifndef PAGELAB_KMSG_H
#define PAGELAB_KMSG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"

#define KMSG_TEXT_MAX 1024
#define KMSG_KEEP_MAX 2000             /* records kept per run */

struct kmsg_rec {
	unsigned prio;                  /* facility * 8 + level */
	unsigned long long seq;
	unsigned long long ts_us;
	char text[KMSG_TEXT_MAX];       /* the first line, without the newline */
};

/* One record as read(2) returned it (len bytes, not NUL-terminated).
 * Returns 0, or -EINVAL when the header is not "N,N,N,...;". */
int kmsg_parse_record(const char *buf, size_t len, struct kmsg_rec *out);

/* An OOM kill and the report that led to it (mm/oom_kill.c: dump_header,
 * oom_kill_process; mm/show_mem.c: the per-zone lines). */
struct kmsg_zone_line {
	int node;
	char zone[16];
	unsigned long long free_kb, min_kb, low_kb, high_kb;
};

#define KMSG_ZONES_MAX 8

struct kmsg_oom {
	unsigned long long ts_us;       /* of the "Out of memory: Killed process" line */
	char trigger[32];               /* the comm that "invoked oom-killer" */
	char constraint[32];            /* CONSTRAINT_NONE (global), CONSTRAINT_MEMCG, ... */
	long long pid;
	char comm[32];
	long long anon_rss_kb, file_rss_kb, shmem_rss_kb, oom_score_adj;
	size_t nzones;
	struct kmsg_zone_line zones[KMSG_ZONES_MAX];   /* as the report printed them */
};

/* Parse "Node 0 Normal free:1506472kB boost:0kB min:1506480kB low:... high:..."
 * (the zone lines of show_free_areas).  Returns true when text is one. */
bool kmsg_zone_line(const char *text, struct kmsg_zone_line *out);

/* Walk records in order and collect every OOM kill with its report.
 * Returns how many were found (at most max). */
size_t kmsg_oom_kills(const struct kmsg_rec *recs, size_t n, struct kmsg_oom *out, size_t max);

/* Records worth keeping in a result: OOM reports, allocation failures, and
 * the min_free_kbytes lines of mm/page_alloc.c and mm/khugepaged.c. */
bool kmsg_interesting(const char *text);

/* ---- the reader ---- */

struct kmsg_log {
	struct kmsg_rec *recs;
	size_t n, cap;
	size_t dropped;                 /* records overwritten before they were read */
	bool readable;
};

/* Open /dev/kmsg; at_end: only records logged from now on.  Returns the fd
 * (O_NONBLOCK) or -errno. */
int kmsg_open(bool at_end);

/* Read every record available on fd into log (keep: NULL = all, else only
 * those it accepts), up to max records in all. */
void kmsg_drain(int fd, struct kmsg_log *log, bool (*keep)(const char *text), size_t max);

void kmsg_log_free(struct kmsg_log *log);

/* runs[].kmsg: {"records": [{"seq", "t_s", "prio", "text"}], "dropped",
 * "oom_kills": [{"t_s", "pid", "comm", "trigger", "constraint", "anon_rss_kb",
 * "file_rss_kb", "shmem_rss_kb", "oom_score_adj", "zones": [{"node", "zone",
 * "free_kb", "min_kb", "low_kb", "high_kb"}]}]} */
json_t *kmsg_log_json(const struct kmsg_log *log);

#endif
