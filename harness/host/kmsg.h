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
#define KMSG_COMM_MAX 64               /* a comm is 15 bytes today (TASK_COMM_LEN 16) */

struct kmsg_oom {
	unsigned long long ts_us;       /* of the "Out of memory: Killed process" line */
	char trigger[KMSG_COMM_MAX];    /* the comm that "invoked oom-killer" */
	char constraint[32];            /* CONSTRAINT_NONE (global), CONSTRAINT_MEMCG, ... */
	/* The victim's memory cgroup as the summary line printed it
	 * (mm/memcontrol.c: mem_cgroup_print_oom_context, ",task_memcg=PATH"),
	 * the path from the hierarchy's root; "" when the report had none. */
	char task_memcg[256];
	long long pid;
	char comm[KMSG_COMM_MAX];
	long long anon_rss_kb, file_rss_kb, shmem_rss_kb, oom_score_adj;
	size_t nzones;
	struct kmsg_zone_line zones[KMSG_ZONES_MAX];   /* as the report printed them */
};

/* Parse "Node 0 Normal free:1506472kB boost:0kB min:1506480kB low:... high:..."
 * (the zone lines of show_free_areas).  Returns true when text is one. */
bool kmsg_zone_line(const char *text, struct kmsg_zone_line *out);

/* The kill line of mm/oom_kill.c: __oom_kill_process, matched whole from the
 * start of the text: "MESSAGE: Killed process PID (COMM) total-vm:NkB,
 * anon-rss:NkB, file-rss:NkB, shmem-rss:NkB[, UID:N pgtables:NkB
 * oom_score_adj:N]", MESSAGE "Out of memory", "Memory cgroup out of memory" or
 * "Out of memory (oom_kill_allocating_task)" or none (4.x, which printed no
 * UID, pgtables or oom_score_adj either).  Fills pid, comm and the rss
 * fields of out (nothing else); false when text is anything else. */
bool kmsg_kill_line(const char *text, struct kmsg_oom *out);

/* Walk records in order and collect every OOM kill with its report.  Only
 * the kernel's own records count (facility 0: what a process writes to
 * /dev/kmsg is LOG_USER or above), and each line of the report only by its
 * start (kmsg.c says which lines): a process named "Killed process " is a
 * name in the report, never a kill.  Returns how many were found (at most max). */
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

/* Read every record available on fd into log (keep: NULL = every record,
 * else only the kernel's own records, facility 0, that keep accepts: what a
 * process writes to /dev/kmsg never takes a kept record's place), up to max
 * records in all. */
void kmsg_drain(int fd, struct kmsg_log *log, bool (*keep)(const char *text), size_t max);

void kmsg_log_free(struct kmsg_log *log);

/* runs[].kmsg: {"records": [{"seq", "t_s", "prio", "text"}], "dropped",
 * "oom_kills": [{"t_s", "pid", "comm", "trigger", "constraint", "anon_rss_kb",
 * "file_rss_kb", "shmem_rss_kb", "oom_score_adj", "zones": [{"node", "zone",
 * "free_kb", "min_kb", "low_kb", "high_kb"}]}]} */
json_t *kmsg_log_json(const struct kmsg_log *log);

#endif
