/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kfile.c — files re-read from a kept descriptor (kfile.h). */
#include "kfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lex.h"

/* A file that keeps filling a buffer this large is not a counters file. */
#define KFILE_MAX (64u << 20)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool lab_kfile_keeping(void)
{
	const char *v = getenv("PAGELAB_SOURCE_READ");

	return v == NULL || strcmp(v, "reopen") != 0;
}

static int grow(struct lab_kfile *f, size_t cap, struct lab_error *err)
{
	char *nb;

	if (cap > KFILE_MAX)
		return lab_error_set(err, EFBIG, "%s: more than %u MiB", f->path, KFILE_MAX >> 20);
	nb = realloc(f->buf.data, cap);
	if (nb == NULL)
		return lab_error_errno(err, ENOMEM, "read %s", f->path);
	f->buf.data = nb;
	f->buf.cap = cap;
	return 0;
}

/* The head of the text's last record (kfile.h: LAB_KFILE_LAST_RECORD): its
 * last line that starts in column 0, less a number that ends it.  False
 * when the text does not end a line or has no such line. */
static bool last_head(const char *t, size_t n, const char **at, size_t *len)
{
	size_t b, e;

	if (n == 0 || t[n - 1] != '\n')
		return false;
	for (e = n - 1;; e = b - 1) {   /* [b, e): a line, e its '\n' */
		for (b = e; b > 0 && t[b - 1] != '\n'; b--)
			;
		if (b < e && t[b] != ' ' && t[b] != '\t')
			break;
		if (b == 0)
			return false;
	}
	while (e > b && lex_is_digit(t[e - 1]))
		e--;
	*at = t + b;
	*len = e - b;
	return e > b;
}

/* Learn the head from a whole read. */
static void learn_last(struct lab_kfile *f)
{
	const char *at;
	size_t n;

	f->last_len = 0;
	if (f->last_record && last_head(f->buf.data, f->buf.len, &at, &n) && n <= sizeof(f->last)) {
		memcpy(f->last, at, n);
		f->last_len = (unsigned char)n;
	}
}

/* Does what a kept read brought end with the last record? */
static bool ends_last(const struct lab_kfile *f)
{
	const char *at;
	size_t n;

	return last_head(f->buf.data, f->buf.len, &at, &n) && n == f->last_len && memcmp(at, f->last, n) == 0;
}

/* From fd's current offset (a fresh open) or from 0 with pread (kept), to
 * EOF; a buffer filled by a kept read is grown and the file read again from
 * 0, so the contents are one pass.  f->reads counts the calls that returned
 * data, f->calls all. */
static int read_all(struct lab_kfile *f, int fd, bool positioned, struct lab_error *err)
{
	int ret;

again:
	f->buf.len = 0;
	f->reads = 0;
	f->calls = 0;
	for (;;) {
		ssize_t n;

		if (f->buf.len + 1 >= f->buf.cap) {
			if ((ret = grow(f, f->buf.cap ? f->buf.cap * 2 : 4096, err)) < 0)
				return ret;
			if (positioned && f->buf.len > 0) {
				f->regrows++;
				goto again;
			}
		}
		if (positioned)
			n = pread(fd, f->buf.data + f->buf.len, f->buf.cap - f->buf.len - 1, (off_t)f->buf.len);
		else
			n = read(fd, f->buf.data + f->buf.len, f->buf.cap - f->buf.len - 1);
		f->calls++;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lab_error_errno(err, errno, "read %s", f->path);
		if (n == 0)
			break;
		f->buf.len += (size_t)n;
		f->reads++;
		/* One record, or up to the last record, and room left: that was
		 * all of it (kfile.h).  The room is checked first: a full buffer
		 * may have cut a record. */
		if (positioned && f->buf.len + 1 < f->buf.cap &&
		    (f->one_record || (f->last_len > 0 && ends_last(f))))
			break;
	}
	f->buf.data[f->buf.len] = '\0';
	return 0;
}

static void account(struct lab_kfile *f, uint64_t t0)
{
	f->t0 = t0;
	f->ns = mono_ns() - t0;
	f->nr++;
	if (f->reads > 1)
		f->splits++;
	if (f->reads > f->max_reads)
		f->max_reads = f->reads;
}

/* The plain way: open, read to EOF, close. */
static int read_reopen(struct lab_kfile *f, struct lab_error *err)
{
	int fd = open(f->path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", f->path);
	ret = read_all(f, fd, false, err);
	close(fd);
	return ret;
}

/* The buffer for the next reads: twice what the first read brought (a
 * counters file grows by a few lines at most: a hotplugged node's zone), at
 * least a page, so the next pread fits in one call. */
static int size_buffer(struct lab_kfile *f, struct lab_error *err)
{
	size_t want = 4096;

	while (want < 2 * f->buf.len + 1)
		want *= 2;
	return want != f->buf.cap ? grow(f, want, err) : 0;
}

int lab_kfile_open(struct lab_kfile *f, const char *path, unsigned flags, struct lab_error *err)
{
	uint64_t t0 = mono_ns();
	int ret;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->one_record = (flags & LAB_KFILE_ONE_RECORD) != 0;
	f->last_record = (flags & LAB_KFILE_LAST_RECORD) != 0;
	if ((size_t)snprintf(f->path, sizeof(f->path), "%s", path) >= sizeof(f->path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %.80s…", path);
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return lab_error_errno(err, errno, "open %s", path);
	/* The first read into a large buffer, so that a file the kernel hands
	 * over in one call is not cut by ours; then the buffer is sized. */
	if ((ret = grow(f, 65536, err)) < 0 || (ret = read_all(f, f->fd, false, err)) < 0 ||
	    (ret = size_buffer(f, err)) < 0) {
		lab_kfile_close(f);
		return ret;
	}
	learn_last(f);
	if (!lab_kfile_keeping()) {
		snprintf(f->why, sizeof(f->why), "PAGELAB_SOURCE_READ=reopen");
	} else {
		char c;
		ssize_t n;

		/* Can this descriptor be read again from 0?  One byte tells
		 * (a seq_file regenerates its first record); what the first read
		 * brought stays the contents. */
		do
			n = pread(f->fd, &c, 1, 0);
		while (n < 0 && errno == EINTR);
		if (n >= 0) {
			account(f, t0);
			return 0;
		}
		if (errno == ENODEV) {
			lab_kfile_close(f);
			return lab_error_set(err, ENODEV, "%s: removed", path);
		}
		snprintf(f->why, sizeof(f->why), "pread from 0: %.90s", strerror(errno));
	}
	close(f->fd);
	f->fd = -1;
	f->reopen = true;
	account(f, t0);
	return 0;
}

int lab_kfile_read(struct lab_kfile *f, struct lab_error *err)
{
	uint64_t t0 = mono_ns();
	int ret;

	if (f->reopen)
		ret = read_reopen(f, err);
	else if (f->fd < 0)
		ret = lab_error_set(err, EBADF, "%s: not open", f->path);
	else
		ret = read_all(f, f->fd, true, err);
	if (ret < 0)
		return ret;
	/* Read to EOF whole in one call that did not end as it did: the last
	 * record is another now. */
	if (f->last_record && !f->reopen && f->reads == 1 && f->calls > 1)
		learn_last(f);
	account(f, t0);
	return 0;
}

int lab_kfile_reopen(struct lab_kfile *f, struct lab_error *err)
{
	struct lab_kfile n;
	int ret;

	if ((ret = lab_kfile_open(&n, f->path, (f->one_record ? LAB_KFILE_ONE_RECORD : 0) |
					   (f->last_record ? LAB_KFILE_LAST_RECORD : 0), err)) < 0)
		return ret;
	n.nr += f->nr;
	n.splits += f->splits;
	n.regrows += f->regrows;
	if (f->max_reads > n.max_reads)
		n.max_reads = f->max_reads;
	lab_kfile_close(f);
	*f = n;
	return 0;
}

void lab_kfile_close(struct lab_kfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	lab_buf_free(&f->buf);
}
