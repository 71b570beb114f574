/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kfile.h — a file read again and again from ONE descriptor kept open (the
 * sampler's O(1) sources, every tick): opened once, re-read with pread from
 * offset 0, into a buffer sized from the first read.
 *
 * Why it works: every /proc and cgroup file the tick reads is a seq_file
 * (mm/vmstat.c: proc_create_seq, fs/proc/meminfo.c: proc_create_single,
 * kernel/sched/psi.c: single_open, kernel/cgroup/cgroup.c: cgroup_kf_ops), and
 * fs/seq_file.c: seq_read_iter drops what it buffered and calls ->start()
 * again when a read comes at offset 0 (`if (iocb->ki_pos == 0) { m->index =
 * 0; m->count = 0; }`): a pread from 0 regenerates the file, without the
 * path walk, the seq_file's allocation and the close.
 *
 * What one read is: a read returns at most one seq buffer (PAGE_SIZE to
 * begin with, doubled only when a single record does not fit), so a
 * multi-record file larger than it (/proc/vmstat past 4 KiB) comes back in
 * several reads, EACH A NEW SNAPSHOT (vmstat_start fills a new array).  So
 * every read goes on to EOF and counts the reads that returned data:
 * `reads` > 1 is a split snapshot, counted in `splits`, never taken for one.
 *
 * A file of ONE record (LAB_KFILE_ONE_RECORD: a single_open seq_file, whose
 * ->show() prints it whole — fs/seq_file.c: seq_read_iter doubles its
 * buffer and shows the record again until it fits — so a read into a larger
 * buffer returns all of it) needs no call to find its EOF: a read that did
 * not fill the buffer is the whole file, in one call.
 *
 * Nor does a file of records in a fixed order whose last record begins with
 * a line no other record begins with (LAB_KFILE_LAST_RECORD: /proc/vmstat,
 * a line per key in vmstat_text's order; /proc/zoneinfo, a record per zone
 * headed "Node N, zone NAME").  A read returns whole records only (the
 * buffer left room: seq_read_iter copied all it had), so one that ends with
 * the last record's head — its last line in column 0, less a number ending
 * it ("nr_unstable 0" is "nr_unstable ") — ended at EOF.  The head is
 * learnt from the first read and from any read that needed the EOF call
 * (a zone of a node that came up heads the last record now).
 *
 * A file whose descriptor cannot be re-read (pread fails: ESPIPE, EINVAL), or
 * every file when PAGELAB_SOURCE_READ=reopen is set, is read the plain way —
 * open, read to EOF, close — each time, and `why` says so.  A kept
 * descriptor of a removed cgroup reads ENODEV (fs/kernfs/file.c:
 * kernfs_seq_start, kernfs_get_active_of fails): lab_kfile_read returns
 * -ENODEV then, for the caller to decide (reopen, or stop).
 */
#ifndef PAGELAB_KFILE_H
#define PAGELAB_KFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "fileio.h"

#define LAB_KFILE_ONE_RECORD 0x1u
#define LAB_KFILE_LAST_RECORD 0x2u

struct lab_kfile {
	/* What every read touches first, together. */
	int fd;                         /* the kept descriptor; -1 when reopened each read */
	bool reopen;                    /* open/read/close at each read (why says why) */
	bool one_record;                /* LAB_KFILE_ONE_RECORD */
	struct lab_buf buf;             /* the contents after a read, NUL-terminated */
	/* The last read. */
	unsigned reads;                 /* read(2)/pread(2) calls that returned data */
	unsigned calls;                 /* ... and all of them, the one that found EOF too */
	/* LAB_KFILE_LAST_RECORD: the head of the last record; 0 long: none known
	 * (a head longer than this, or the flag not given). */
	unsigned char last_len;
	bool last_record;
	char last[94];
	uint64_t ns;                    /* its wall time (CLOCK_MONOTONIC), ns */
	uint64_t t0;                    /* when it began (CLOCK_MONOTONIC), ns */
	/* Over the file's life. */
	unsigned long long nr;          /* reads done */
	unsigned long long splits;      /* reads that took more than one call: split snapshots */
	unsigned max_reads;             /* the most calls one read took */
	unsigned long long regrows;     /* a read that filled the buffer: grown, read again from 0 */
	char why[128];                  /* "" when kept */
	char path[4352];                /* absolute, or relative to the cwd */
};

/* Open path (kept, or reopened each read: see above) and read it once: the
 * contents are in f->buf, and the buffer is sized from them.  0, or -errno
 * with err filled (-ENOENT: no such file). */
int lab_kfile_open(struct lab_kfile *f, const char *path, unsigned flags, struct lab_error *err);

/* Read it again, whole, into f->buf (pread from 0 on the kept descriptor).
 * 0, or -errno: -ENODEV when a kept descriptor's file was removed (a cgroup),
 * -ENOENT when a reopened one is gone. */
int lab_kfile_read(struct lab_kfile *f, struct lab_error *err);

/* Open path again after -ENODEV (a file that came back), as lab_kfile_open. */
int lab_kfile_reopen(struct lab_kfile *f, struct lab_error *err);

void lab_kfile_close(struct lab_kfile *f);

/* The way the files are read this run: false when PAGELAB_SOURCE_READ=reopen
 * (a measurement of the old way; scripts/bench). */
bool lab_kfile_keeping(void);

#endif
