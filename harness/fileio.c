#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

int lab_read_file(const char *path, char **out, size_t *len_out, struct lab_error *err)
{
	return lab_read_fileat(AT_FDCWD, path, out, len_out, err);
}

int lab_read_u64(const char *path, unsigned long long *val, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char *end;
	int ret;

	ret = lab_read_file(path, &buf, NULL, err);
	if (ret < 0)
		return ret;
	if (strncmp(buf, "max", 3) == 0 && (buf[3] == '\n' || buf[3] == '\0')) {
		*val = UINT64_MAX;
		return 0;
	}
	errno = 0;
	*val = strtoull(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0'))
		return lab_error_set(err, EINVAL, "%s: not a number: %.40s", path, buf);
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

int lab_write_atomic(const char *path, const char *data, size_t len, struct lab_error *err)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	size_t off = 0;
	int fd, dfd;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return lab_error_errno(err, errno, "create %s", tmp);
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			unlink(tmp);
			return lab_error_errno(err, e, "write %s", tmp);
		}
		off += (size_t)n;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		int e = errno;

		unlink(tmp);
		return lab_error_errno(err, e, "sync %s", tmp);
	}
	if (rename(tmp, path) < 0) {
		int e = errno;

		unlink(tmp);
		return lab_error_errno(err, e, "rename %s to %s", tmp, path);
	}
	snprintf(dir, sizeof(dir), "%s", path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}
