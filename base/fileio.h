/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fileio.h — the one way pagelab reads and writes /proc, /sys and cgroup files.
 *
 * Whole-file reads loop to EOF, retry EINTR, grow the buffer and NUL-terminate,
 * so parsers (which take a buffer, never a file) see the file as one string.
 */
#ifndef PAGELAB_FILEIO_H
#define PAGELAB_FILEIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "error.h"

#define cleanup_free __attribute__((cleanup(lab_freep)))
#define cleanup_close __attribute__((cleanup(lab_closep)))

static inline void lab_freep(void *p)
{
	free(*(void **)p);
}

static inline void lab_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

/* Read the whole file at path (relative to dirfd, or AT_FDCWD) into a new
 * NUL-terminated buffer.  *out is malloc'ed; *len_out (may be NULL) gets the
 * length without the NUL.  Returns 0, or -errno with err filled
 * (-ENOENT when the file is gone, so callers can treat it as "gone"). */
int lab_read_fileat(int dirfd, const char *path, char **out, size_t *len_out,
		    struct lab_error *err);
int lab_read_file(const char *path, char **out, size_t *len_out, struct lab_error *err);

/* Read a file that holds one unsigned decimal number (or "max", giving
 * UINT64_MAX).  Returns 0 or -errno. */
int lab_read_u64(const char *path, unsigned long long *val, struct lab_error *err);

/* The same of a file's text already read (what names it in the error):
 * one unsigned decimal number or "max", then a newline or the end. */
int lab_text_u64(const char *buf, const char *what, unsigned long long *val, struct lab_error *err);

/* Write str to an existing file (O_WRONLY|O_TRUNC, no create), in one write. */
int lab_write_file(const char *path, const char *str, struct lab_error *err);

/* Write data to path atomically: a new path.tmp.XXXXXX (O_EXCL, in path's
 * directory), fsync, rename, fsync dir.  The rename goes only over a regular
 * file or nothing (lab_check_output), never over a device, FIFO, socket,
 * directory or symlink: that is refused and the tmp removed. */
int lab_write_atomic(const char *path, const char *data, size_t len, struct lab_error *err);

/* The same, written piece by piece (a document too big to hold, streamed):
 * lab_atomic_open makes the tmp (O_EXCL); lab_atomic_write buffers and
 * writes, remembering the first error; lab_atomic_commit flushes, fsyncs and
 * renames as lab_write_atomic does (or reports that error, tmp removed);
 * lab_atomic_abort removes the tmp.  Either of the last two frees a. */
struct lab_atomic {
	int fd, err;
	size_t n;
	char *buf;
	char tmp[PATH_MAX], path[PATH_MAX];
};

int lab_atomic_open(struct lab_atomic *a, const char *path, struct lab_error *err);
void lab_atomic_write(struct lab_atomic *a, const void *data, size_t len);
int lab_atomic_commit(struct lab_atomic *a, struct lab_error *err);
void lab_atomic_abort(struct lab_atomic *a);

/* Where pagelab writes, checked before anything on the host changes.
 * lab_check_output: path (what names it in messages: "--out") must be
 * nothing yet or a regular file — not a device, FIFO, socket, directory or
 * symlink (a rename over a link would replace the link, an open would write
 * through it) — and its directory must exist and be writable; pagelab does
 * not make a tree a user named.  lab_check_output_dir: dir must be an
 * existing, writable directory (with create, it and its parents are made
 * first: the default results/).  Return 0, or -errno with one line in err:
 * -EEXIST for a path of the wrong kind, -ENOENT / -ENOTDIR for a missing
 * directory, -EACCES / -EROFS for one that cannot be written. */
int lab_check_output(const char *path, const char *what, struct lab_error *err);
int lab_check_output_dir(const char *dir, const char *what, bool create, struct lab_error *err);

/* No directory on path's way, as written (from / for an absolute path, from
 * the current directory for a relative one), nor with last path itself, is
 * a symbolic link: one is refused (-ELOOP: "WHAT PATH: DIR is a symbolic
 * link"), as lab_check_output refuses one as the file — a link on the way
 * would send the output, and the rename of the document, wherever it
 * points.  What is missing or not a directory is left to lab_check_output
 * and lab_check_output_dir, which say so. */
int lab_check_output_parents(const char *path, const char *what, bool last, struct lab_error *err);

/* Open path for appending pagelab's own stream (the result's .jsonl),
 * emptied: created or a regular file only (lab_check_output's rules, checked
 * on what was opened; a FIFO does not block the open), with no other hard
 * link (emptying it would empty them all: -EMLINK).  Returns the fd, or
 * -errno with err. */
int lab_open_output(const char *path, const char *what, struct lab_error *err);

/* mkdir -p: every missing directory of dir, the last one with mode (the
 * others 0755).  Existing directories are fine. */
int lab_mkdir_p(const char *dir, unsigned mode, struct lab_error *err);

/* Read len bytes at offset off of fd (pread, EINTR retried, short reads
 * continued); *got gets how many were read before EOF.  For files read in
 * positioned chunks rather than whole (/proc/PID/pagemap). */
int lab_pread_all(int fd, void *buf, size_t len, off_t off, size_t *got, struct lab_error *err);

/* Input files a user or another run hands pagelab (scenarios, --advice files,
 * result documents, the knob journal) are data from outside: each is read
 * through lab_read_input, which takes only a regular file, never blocks on a
 * FIFO or a device, and refuses one larger than its kind's cap. */
#define LAB_SCENARIO_MAX (1ULL << 20)   /* a scenario file: the largest in scenarios/ is 5 KiB */
#define LAB_ADVICE_MAX (1ULL << 20)     /* an --advice sysctl.conf-style file */
#define LAB_JOURNAL_MAX (1ULL << 20)    /* the knob journal: one short line per change */
/* A result document: a probe run writes ~8 KiB per sample here, so one run
 * at the 600 s default timeout and 250 ms tick is ~19 MiB; 256 MiB holds a
 * dozen such runs, and is still a size jansson can load. */
#define LAB_RESULT_MAX (256ULL << 20)

#define LAB_INPUT_NOFOLLOW 0x1u          /* refuse a symlink (the journal) */

/* Read the input file path, a `what` (e.g. "scenario") at most cap bytes,
 * into a new NUL-terminated buffer.  Anything but a regular file (a device,
 * FIFO, socket, directory; a symlink with LAB_INPUT_NOFOLLOW) is refused
 * before it is read, without blocking.  On failure err holds one line naming
 * what, the path and why; returns -ENOENT, -EACCES… from open, -EINVAL for a
 * file that is not regular, -EFBIG for one over cap. */
int lab_read_input(const char *path, const char *what, unsigned long long cap, unsigned flags,
		   char **out, size_t *len_out, struct lab_error *err);

/* lab_read_input's checks without the read: the open fd (O_NONBLOCK,
 * O_CLOEXEC) of a regular file at most cap bytes now, for an input read in
 * pieces (a result document through result_read.h); st_out (may be NULL)
 * gets its fstat.  The reader counts the bytes against cap itself (the file
 * can grow) and says so with lab_input_too_big.  Returns the fd or -errno. */
struct stat;
int lab_open_input(const char *path, const char *what, unsigned long long cap, unsigned flags,
		   struct stat *st_out, struct lab_error *err);
/* "what path is [more than] SIZE, over the CAP limit" (-EFBIG). */
int lab_input_too_big(const char *what, const char *path, unsigned long long size, unsigned long long cap,
		      bool at_least, struct lab_error *err);

/* What kind of file st is, for messages ("a character device"). */
const char *lab_file_kind(mode_t mode);

/* A buffer kept between reads of files read again and again (the sampler's
 * sources, every tick): a read into it allocates nothing once it has grown,
 * and the file comes in one read(2) when it fits.  Zero-initialise; free
 * with lab_buf_free. */
struct lab_buf {
	char *data;             /* NUL-terminated contents after a read */
	size_t len, cap;
};

/* Read the whole file at path (relative to dirfd) into b, as
 * lab_read_fileat does. */
int lab_read_fileat_buf(int dirfd, const char *path, struct lab_buf *b, struct lab_error *err);
void lab_buf_free(struct lab_buf *b);

/* Read all of fd into a new buffer (for pipes). */
int lab_read_fd(int fd, char **out, size_t *len_out, struct lab_error *err);

#endif
