/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fileio.h"
#include "lex.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "size.h"

int lab_read_fd(int fd, char **out, size_t *len_out, struct lab_error *err)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);

	if (buf == NULL)
		return lab_error_errno(err, ENOMEM, "read");
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				free(buf);
				return lab_error_errno(err, ENOMEM, "read");
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			return lab_error_errno(err, e, "read");
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out != NULL)
		*len_out = len;
	return 0;
}

int lab_pread_all(int fd, void *buf, size_t len, off_t off, size_t *got, struct lab_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lab_error_errno(err, errno, "pread at %lld", (long long)(off + (off_t)done));
		if (n == 0)
			break;
		done += (size_t)n;
	}
	*got = done;
	return 0;
}

int lab_read_fileat(int dirfd, const char *path, char **out, size_t *len_out,
		    struct lab_error *err)
{
	int fd, ret;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", path);
	ret = lab_read_fd(fd, out, len_out, err);
	close(fd);
	if (ret < 0)
		return lab_error_prefix(err, "%s", path);
	return 0;
}

int lab_read_fileat_buf(int dirfd, const char *path, struct lab_buf *b, struct lab_error *err)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", path);
	b->len = 0;
	for (;;) {
		ssize_t n;

		if (b->len + 1 >= b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 65536;
			char *nb = realloc(b->data, cap);

			if (nb == NULL) {
				close(fd);
				return lab_error_errno(err, ENOMEM, "read %s", path);
			}
			b->data = nb;
			b->cap = cap;
		}
		n = read(fd, b->data + b->len, b->cap - b->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return lab_error_errno(err, e, "read %s", path);
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
	}
	close(fd);
	b->data[b->len] = '\0';
	return 0;
}

void lab_buf_free(struct lab_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int lab_read_file(const char *path, char **out, size_t *len_out, struct lab_error *err)
{
	return lab_read_fileat(AT_FDCWD, path, out, len_out, err);
}

int lab_read_u64(const char *path, unsigned long long *val, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	int ret;

	ret = lab_read_file(path, &buf, NULL, err);
	if (ret < 0)
		return ret;
	return lab_text_u64(buf, path, val, err);
}

int lab_text_u64(const char *buf, const char *what, unsigned long long *val, struct lab_error *err)
{
	const char *end;

	if (strncmp(buf, "max", 3) == 0 && (buf[3] == '\0' || (buf[3] == '\n' && buf[4] == '\0'))) {
		*val = UINT64_MAX;
		return 0;
	}
	if (lex_u64(buf, 10, val, &end) < 0 || (*end != '\0' && (*end != '\n' || end[1] != '\0')))
		return lab_error_set(err, EINVAL, "%s: not a number: %.40s", what, buf);
	return 0;
}

int lab_write_file(const char *path, const char *str, struct lab_error *err)
{
	size_t len = strlen(str);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return lab_error_errno(err, errno, "open %s for writing", path);
	do
		n = write(fd, str, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = errno;

		close(fd);
		return lab_error_errno(err, e, "write '%s' to %s", str, path);
	}
	if (close(fd) < 0)
		return lab_error_errno(err, errno, "close %s", path);
	if ((size_t)n != len)
		return lab_error_set(err, EIO, "short write to %s", path);
	return 0;
}

int lab_mkdir_p(const char *dir, unsigned mode, struct lab_error *err)
{
	char buf[PATH_MAX];

	if ((size_t)snprintf(buf, sizeof(buf), "%s", dir) >= sizeof(buf))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return lab_error_errno(err, errno, "mkdir %s", buf);
		*p = '/';
	}
	if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
		return lab_error_errno(err, errno, "mkdir %s", buf);
	return 0;
}

static int output_kind_refused(const char *what, const char *path, mode_t mode, struct lab_error *err)
{
	if (S_ISLNK(mode))
		return lab_error_set(err, EEXIST, "%s %s is a symbolic link: pagelab writes no file through "
				     "one (name the file itself)", what, path);
	return lab_error_set(err, EEXIST, "%s %s is %s: pagelab writes only a new or a regular file",
			     what, path, lab_file_kind(mode));
}

/* path's directory into dir ("." when path has no '/'). */
static int dir_of(const char *path, char *dir, size_t len, struct lab_error *err)
{
	char *slash;

	if ((size_t)snprintf(dir, len, "%s", path) >= len)
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		snprintf(dir, len, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

static int check_dir(const char *dir, const char *what, const char *path, struct lab_error *err)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		int e = errno;

		if ((e == ENOENT || e == ENOTDIR) && strcmp(dir, path) == 0)
			return lab_error_set(err, e, "%s %s does not exist "
					     "(pagelab makes no directory you name: mkdir -p it first)", what, dir);
		if (e == ENOENT || e == ENOTDIR)
			return lab_error_set(err, e, "%s %s: the directory %s does not exist "
					     "(pagelab makes no directory you name: mkdir -p it first)",
					     what, path, dir);
		return lab_error_errno(err, e, "%s %s: directory %s", what, path, dir);
	}
	if (!S_ISDIR(st.st_mode))
		return lab_error_set(err, ENOTDIR, "%s %s: %s is %s, not a directory", what, path, dir,
				     lab_file_kind(st.st_mode));
	if (access(dir, W_OK | X_OK) < 0) {
		int e = errno;

		return lab_error_errno(err, e, "%s %s: the directory %s cannot be written", what, path, dir);
	}
	return 0;
}

int lab_check_output(const char *path, const char *what, struct lab_error *err)
{
	char dir[PATH_MAX];
	struct stat st;
	int ret;

	if (path == NULL || *path == '\0')
		return lab_error_set(err, EINVAL, "%s: an empty path", what);
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return output_kind_refused(what, path, st.st_mode, err);
	} else if (errno != ENOENT) {
		int e = errno;

		if (e == ENOTDIR)
			return lab_error_set(err, e, "%s %s: a part of the path is not a directory", what, path);
		return lab_error_errno(err, e, "%s %s", what, path);
	}
	ret = dir_of(path, dir, sizeof(dir), err);
	if (ret < 0)
		return ret;
	return check_dir(dir, what, path, err);
}

int lab_check_output_parents(const char *path, const char *what, bool last, struct lab_error *err)
{
	char buf[PATH_MAX];
	size_t n;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", path) >= sizeof(buf))
		return lab_error_set(err, ENAMETOOLONG, "%s: path too long: %s", what, path);
	n = strlen(buf);
	for (size_t i = 1; i <= n; i++) {
		struct stat st;
		char c = buf[i];

		if (c != '/' && !(c == '\0' && last))
			continue;
		if (buf[i - 1] == '/')
			continue;       /* "//", or the "/" at the start */
		buf[i] = '\0';
		/* What is missing is made (default results/) or refused by
		 * lab_check_output, as is what is not a directory. */
		if (lstat(buf, &st) < 0 || !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)))
			return 0;
		if (S_ISLNK(st.st_mode))
			return lab_error_set(err, ELOOP, "%s %s: %s is a symbolic link: pagelab writes through none "
					     "(name the directory it points to)", what, path, buf);
		buf[i] = c;
	}
	return 0;
}

int lab_check_output_dir(const char *dir, const char *what, bool create, struct lab_error *err)
{
	struct stat st;

	if (dir == NULL || *dir == '\0')
		return lab_error_set(err, EINVAL, "%s: an empty path", what);
	if (lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
		return lab_error_set(err, ENOTDIR, "%s %s is %s, not a directory", what, dir,
				     lab_file_kind(st.st_mode));
	if (create) {
		int ret = lab_mkdir_p(dir, 0755, err);

		if (ret < 0)
			return lab_error_prefix(err, "%s", what);
	}
	return check_dir(dir, what, dir, err);
}

int lab_open_output(const char *path, const char *what, struct lab_error *err)
{
	struct stat st;
	int fd;

	/* Look first (opening a device has effects of its own), then check what
	 * was opened: O_NOFOLLOW refuses a link, O_NONBLOCK a FIFO's wait. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return output_kind_refused(what, path, st.st_mode, err);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;

		if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
			return output_kind_refused(what, path, st.st_mode, err);
		return lab_error_errno(err, e, "create %s", path);
	}
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return lab_error_errno(err, e, "create %s", path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return output_kind_refused(what, path, st.st_mode, err);
	}
	if (st.st_nlink > 1) {
		close(fd);
		return lab_error_set(err, EMLINK, "%s %s has %lu hard links: emptying it would empty the other "
				     "names too (remove it, or name another file)", what, path,
				     (unsigned long)st.st_nlink);
	}
	if (ftruncate(fd, 0) < 0 || fcntl(fd, F_SETFL, O_APPEND) < 0) {
		int e = errno;

		close(fd);
		return lab_error_errno(err, e, "empty %s", path);
	}
	return fd;
}

#define ATOMIC_BUF (1u << 16)

int lab_atomic_open(struct lab_atomic *a, const char *path, struct lab_error *err)
{
	memset(a, 0, sizeof(*a));
	a->fd = -1;
	if ((size_t)snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.XXXXXX", path) >= sizeof(a->tmp) ||
	    (size_t)snprintf(a->path, sizeof(a->path), "%s", path) >= sizeof(a->path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", path);
	a->buf = malloc(ATOMIC_BUF);
	if (a->buf == NULL)
		return lab_error_errno(err, ENOMEM, "write %s", path);
	/* A fresh name, made with O_EXCL: nothing already at it is followed. */
	a->fd = mkostemp(a->tmp, O_CLOEXEC);
	if (a->fd < 0) {
		int e = errno;

		free(a->buf);
		a->buf = NULL;
		return lab_error_errno(err, e, "create %s", a->tmp);
	}
	if (fchmod(a->fd, 0644) < 0) {
		/* not fatal: the file stays 0600 */
	}
	return 0;
}

static void atomic_flush(struct lab_atomic *a, const char *data, size_t len)
{
	size_t off = 0;

	while (a->err == 0 && off < len) {
		ssize_t n = write(a->fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			a->err = errno;
		else
			off += (size_t)n;
	}
}

void lab_atomic_write(struct lab_atomic *a, const void *data, size_t len)
{
	if (a->err != 0)
		return;
	if (a->n + len > ATOMIC_BUF) {
		atomic_flush(a, a->buf, a->n);
		a->n = 0;
	}
	if (len > ATOMIC_BUF) {
		atomic_flush(a, data, len);
		return;
	}
	memcpy(a->buf + a->n, data, len);
	a->n += len;
}

void lab_atomic_abort(struct lab_atomic *a)
{
	if (a->fd >= 0) {
		close(a->fd);
		unlink(a->tmp);
	}
	a->fd = -1;
	free(a->buf);
	a->buf = NULL;
}

int lab_atomic_commit(struct lab_atomic *a, struct lab_error *err)
{
	char dir[PATH_MAX];
	struct stat st;
	int dfd, ret;

	atomic_flush(a, a->buf, a->n);
	a->n = 0;
	if (a->err != 0) {
		ret = lab_error_errno(err, a->err, "write %s", a->tmp);
		lab_atomic_abort(a);
		return ret;
	}
	free(a->buf);
	a->buf = NULL;
	if (fsync(a->fd) < 0 || close(a->fd) < 0) {
		int e = errno;

		unlink(a->tmp);
		a->fd = -1;
		return lab_error_errno(err, e, "sync %s", a->tmp);
	}
	a->fd = -1;
	/* Only over a regular file or nothing: never over /dev/full. */
	if (lstat(a->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		ret = output_kind_refused("the result", a->path, st.st_mode, err);
		unlink(a->tmp);
		return ret;
	}
	if (rename(a->tmp, a->path) < 0) {
		int e = errno;

		unlink(a->tmp);
		return lab_error_errno(err, e, "rename %s to %s", a->tmp, a->path);
	}
	if (dir_of(a->path, dir, sizeof(dir), err) == 0) {
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	return 0;
}

int lab_write_atomic(const char *path, const char *data, size_t len, struct lab_error *err)
{
	struct lab_atomic a;
	int ret = lab_atomic_open(&a, path, err);

	if (ret < 0)
		return ret;
	lab_atomic_write(&a, data, len);
	return lab_atomic_commit(&a, err);
}

const char *lab_file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "a regular file";
	case S_IFDIR: return "a directory";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFLNK: return "a symbolic link";
	default: return "not a regular file";
	}
}

int lab_input_too_big(const char *what, const char *path, unsigned long long size,
			 unsigned long long cap, bool at_least, struct lab_error *err)
{
	char a[32], b[32];

	return lab_error_set(err, EFBIG, "%s %s is %s%s, over the %s limit", what, path,
			     at_least ? "more than " : "", lab_format_size(size, a, sizeof(a)),
			     lab_format_size(cap, b, sizeof(b)));
}

int lab_open_input(const char *path, const char *what, unsigned long long cap, unsigned flags,
		   struct stat *st_out, struct lab_error *err)
{
	bool nofollow = flags & LAB_INPUT_NOFOLLOW;
	struct stat before, st;
	int fd;

	/* Look before opening: opening a device can have effects of its own
	 * (a tape rewinds, a tty becomes the controlling terminal). */
	if ((nofollow ? lstat(path, &before) : stat(path, &before)) < 0)
		return lab_error_errno(err, errno, "cannot read %s %s", what, path);
	if (!S_ISREG(before.st_mode))
		return lab_error_set(err, EINVAL, "%s %s is %s, not a regular file", what, path,
				     lab_file_kind(before.st_mode));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return lab_error_errno(err, errno, "cannot read %s %s", what, path);
	/* ...and check again what was opened: the path may have been swapped. */
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return lab_error_errno(err, e, "cannot read %s %s", what, path);
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
		close(fd);
		return lab_error_set(err, EINVAL, "%s %s is %s, not a regular file (it changed while opened)",
				     what, path, lab_file_kind(st.st_mode));
	}
	if ((unsigned long long)st.st_size > cap) {
		close(fd);
		return lab_input_too_big(what, path, (unsigned long long)st.st_size, cap, false, err);
	}
	if (st_out != NULL)
		*st_out = st;
	return fd;
}

int lab_read_input(const char *path, const char *what, unsigned long long cap, unsigned flags,
		   char **out, size_t *len_out, struct lab_error *err)
{
	struct stat st;
	size_t len = 0, room;
	char *buf;
	int fd = lab_open_input(path, what, cap, flags, &st, err);

	if (fd < 0)
		return fd;
	/* The size can grow while read: read at most cap + 1 bytes. */
	room = (size_t)st.st_size + 1;
	if (room < 4096)
		room = 4096;
	buf = malloc(room);
	if (buf == NULL) {
		close(fd);
		return lab_error_errno(err, ENOMEM, "read %s %s", what, path);
	}
	for (;;) {
		ssize_t n;

		if (len + 1 >= room) {
			size_t nr = room * 2;
			char *nb;

			nb = realloc(buf, nr);
			if (nb == NULL) {
				free(buf);
				close(fd);
				return lab_error_errno(err, ENOMEM, "read %s %s", what, path);
			}
			buf = nb;
			room = nr;
		}
		n = read(fd, buf + len, room - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return lab_error_errno(err, e, "read %s %s", what, path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > cap) {
			free(buf);
			close(fd);
			return lab_input_too_big(what, path, cap, cap, true, err);
		}
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	if (len_out != NULL)
		*len_out = len;
	return 0;
}
