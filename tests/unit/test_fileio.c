/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fileio.c — lab_read_input (base/fileio.h), the one reader of files
 * from outside: scenarios, --advice files, result documents, the journal.
 *
 * Expected: a regular file up to its cap is read whole and NUL-terminated;
 * one byte more is -EFBIG; a character device (/dev/null, /dev/zero: a read
 * of the latter would never end), a FIFO (whose open would block without a
 * writer), a directory, and with LAB_INPUT_NOFOLLOW a symlink even to a
 * regular file, are -EINVAL before a byte is read; a missing file is -ENOENT.
 * Each message names the kind of input and the path.  Files are made in a
 * private mktemp directory; argv[1] (the fixtures) is not used.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "unit.h"

static char dir[] = "/tmp/test_fileio.XXXXXX";

static const char *at(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void make(const char *name, size_t len)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char *b = malloc(len + 1);

	CHECK(fd >= 0 && b != NULL);
	memset(b, 'x', len);
	CHECK(write(fd, b, len) == (ssize_t)len);
	free(b);
	close(fd);
}

/* read path as `what` with cap; expect ret, and on failure a message with both. */
static void expect(const char *path, unsigned long long cap, unsigned flags, int want, size_t want_len)
{
	struct lab_error err = { 0 };
	char *buf = NULL;
	size_t len = 12345;
	int ret = lab_read_input(path, "scenario", cap, flags, &buf, &len, &err);

	if (ret != want)
		fprintf(stderr, "%s: got %d, wanted %d: %s\n", path, ret, want, err.msg);
	CHECK_EQ_U64(ret, want);
	if (ret == 0) {
		CHECK_EQ_U64(len, want_len);
		CHECK_EQ_U64(strlen(buf), want_len);
		free(buf);
	} else {
		CHECK(buf == NULL);
		CHECK_CONTAINS(err.msg, "scenario");
		CHECK_CONTAINS(err.msg, path);
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	make("small", 10);
	make("exact", 4096);
	make("over", 4097);
	make("empty", 0);
	expect(at("small"), 4096, 0, 0, 10);
	expect(at("exact"), 4096, 0, 0, 4096);
	expect(at("over"), 4096, 0, -EFBIG, 0);
	expect(at("empty"), 4096, 0, 0, 0);
	expect(at("missing"), 4096, 0, -ENOENT, 0);
	expect("/dev/null", 4096, 0, -EINVAL, 0);
	expect("/dev/zero", 4096, 0, -EINVAL, 0);
	expect(dir, 4096, 0, -EINVAL, 0);
	CHECK(mkfifo(at("fifo"), 0600) == 0);
	expect(at("fifo"), 4096, 0, -EINVAL, 0);
	{
		char target[PATH_MAX];

		snprintf(target, sizeof(target), "%s", at("small"));
		CHECK(symlink(target, at("link")) == 0);
	}
	expect(at("link"), 4096, 0, 0, 10);
	expect(at("link"), 4096, LAB_INPUT_NOFOLLOW, -EINVAL, 0);
	{
		struct lab_error err = { 0 };
		char *buf = NULL;

		CHECK(lab_read_input("/dev/zero", "scenario", 4096, 0, &buf, NULL, &err) == -EINVAL);
		CHECK_CONTAINS(err.msg, "a character device, not a regular file");
		CHECK(lab_read_input(at("over"), "scenario", 4096, 0, &buf, NULL, &err) == -EFBIG);
		CHECK_CONTAINS(err.msg, "over the 4 KiB limit");
	}
	for (const char *n = "small\0exact\0over\0empty\0fifo\0link\0"; *n; n += strlen(n) + 1)
		unlink(at(n));
	rmdir(dir);
	return unit_report("fileio");
}
