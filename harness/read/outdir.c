/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outdir.c — output directories private to the run until complete (outdir.h). */
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"

/* How deep a published tree may go (the page: DIR/plots/FILE). */
#define OUTDIR_DEPTH 2

/* A symbolic link at dir: where it points, and what that is. */
static int refuse_link(const char *dir, const char *what, const char *purpose, struct lab_error *err)
{
	char to[PATH_MAX];
	ssize_t n = readlink(dir, to, sizeof(to) - 1);
	struct stat st;

	to[n > 0 ? n : 0] = '\0';
	if (stat(dir, &st) < 0)
		return lab_error_set(err, ENOENT, "%s %s is a symbolic link to %s, which does not exist: "
				     "an output directory is not made through a link", what, dir, to);
	if (!S_ISDIR(st.st_mode))
		return lab_error_set(err, ENOTDIR, "%s %s is a symbolic link (to %s, which is %s, not a directory "
				     "for %s)", what, dir, to, lab_file_kind(st.st_mode), purpose);
	return lab_error_set(err, ELOOP, "%s %s is a symbolic link (to %s): an output directory is never "
			     "followed through a link (give the directory itself)", what, dir, to);
}

/* st is dir's (not followed): a directory of this user that can be written. */
static int check_owned_dir(const char *dir, const struct stat *st, const char *what, const char *purpose,
			   struct lab_error *err)
{
	if (!S_ISDIR(st->st_mode))
		return lab_error_set(err, ENOTDIR, "%s %s is %s, not a directory for %s", what, dir,
				     lab_file_kind(st->st_mode), purpose);
	if (st->st_uid != geteuid())
		return lab_error_set(err, EPERM, "%s %s is owned by uid %u, not by this user (uid %u): "
				     "nothing is written into it", what, dir, (unsigned)st->st_uid, (unsigned)geteuid());
	if (access(dir, W_OK | X_OK) < 0)
		return lab_error_errno(err, errno, "%s %s: cannot write into it", what, dir);
	return 0;
}

int outdir_check(const char *dir, const char *what, const char *purpose, struct lab_error *err)
{
	struct stat st;
	int ret;

	if (dir == NULL || *dir == '\0')
		return lab_error_set(err, EINVAL, "%s: an empty path", what);
	/* A link on the way to DIR is refused as one at DIR is: the private
	 * directory and the charts would be made wherever it points. */
	if ((ret = lab_check_output_parents(dir, what, false, err)) < 0)
		return ret;
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 0;       /* made when complete */
		return lab_error_errno(err, errno, "%s %s", what, dir);
	}
	if (S_ISLNK(st.st_mode))
		return refuse_link(dir, what, purpose, err);
	return check_owned_dir(dir, &st, what, purpose, err);
}

/* d->path: dir without trailing slashes; a last component "." or ".."
 * (or "/") resolved, so the directory has a name in a parent. */
static int normalize(struct outdir *d, const char *dir, struct lab_error *err)
{
	size_t n;
	const char *base;

	if ((size_t)snprintf(d->target, sizeof(d->target), "%s", dir) >= sizeof(d->target) ||
	    (size_t)snprintf(d->path, sizeof(d->path), "%s", dir) >= sizeof(d->path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", dir);
	n = strlen(d->path);
	while (n > 1 && d->path[n - 1] == '/')
		d->path[--n] = '\0';
	base = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strcmp(d->path, "/") == 0) {
		char real[PATH_MAX];

		if (realpath(d->path, real) == NULL)
			return lab_error_errno(err, errno, "%s", dir);
		if (strcmp(real, "/") == 0)
			return lab_error_set(err, EINVAL, "%s: the root directory is no place for charts", dir);
		snprintf(d->path, sizeof(d->path), "%s", real);
	}
	return 0;
}

int outdir_begin(struct outdir *d, const char *dir, const char *what, const char *purpose,
		 struct lab_error *err)
{
	char parent[PATH_MAX], name[PATH_MAX];
	struct stat st;
	int ret;

	memset(d, 0, sizeof(*d));
	if ((ret = outdir_check(dir, what, purpose, err)) < 0 || (ret = normalize(d, dir, err)) < 0)
		return ret;
	{
		char a[PATH_MAX], b[PATH_MAX];  /* dirname and basename may write into their argument */

		snprintf(a, sizeof(a), "%s", d->path);
		snprintf(b, sizeof(b), "%s", d->path);
		snprintf(parent, sizeof(parent), "%s", dirname(a));
		snprintf(name, sizeof(name), "%s", basename(b));
	}
	if (lstat(parent, &st) < 0 && (ret = lab_mkdir_p(parent, 0755, err)) < 0)
		return lab_error_prefix(err, "%s", what);
	if ((size_t)snprintf(d->stage, sizeof(d->stage), "%s/.%s.XXXXXX", parent, name) >= sizeof(d->stage)) {
		d->stage[0] = '\0';
		return lab_error_set(err, ENAMETOOLONG, "%s %s: path too long", what, dir);
	}
	if (mkdtemp(d->stage) == NULL) {
		ret = lab_error_errno(err, errno, "%s %s: cannot make a private directory beside it in %s", what,
				      dir, parent);
		d->stage[0] = '\0';
		return ret;
	}
	/* mkdtemp made it 0700 with O_EXCL semantics; what is there now must
	 * be that directory. */
	if (lstat(d->stage, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		ret = lab_error_set(err, EPERM, "%s: the private directory %s is not this user's alone", what,
				    d->stage);
		outdir_abort(d);
		return ret;
	}
	return 0;
}

int outdir_sub(struct outdir *d, const char *name, char *out, size_t len, struct lab_error *err)
{
	if ((size_t)snprintf(out, len, "%s/%s", d->stage, name) >= len)
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s/%s", d->stage, name);
	if (mkdir(out, 0700) < 0)
		return lab_error_errno(err, errno, "mkdir %s", out);
	return 0;
}

/* ------------------------------------------------------------ publish */

static mode_t dir_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0755 & ~mask;
}

/* The names in directory fd ("." and ".." left out), read before any of
 * them moves: a directory read while its entries are renamed away may skip
 * some.  *names is one malloc'ed block of NUL-separated names. */
static int list_names(int fd, char **names, size_t *n, struct lab_error *err)
{
	int dfd = dup(fd);
	DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	size_t len = 0;
	char *buf = NULL;

	*names = NULL;
	*n = 0;
	if (dir == NULL) {
		if (dfd >= 0)
			close(dfd);
		return lab_error_errno(err, errno, "reading the private directory");
	}
	rewinddir(dir);
	while ((e = readdir(dir)) != NULL) {
		size_t k = strlen(e->d_name) + 1;
		char *more;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if ((more = realloc(buf, len + k)) == NULL) {
			free(buf);
			closedir(dir);
			return lab_error_set(err, ENOMEM, "out of memory");
		}
		buf = more;
		memcpy(buf + len, e->d_name, k);
		len += k;
		(*n)++;
	}
	closedir(dir);
	*names = buf;
	return 0;
}

static int move_one(int src, int dst, const char *name, const struct stat *s, const char *show,
		    struct lab_error *err)
{
	if (S_ISDIR(s->st_mode) && fchmodat(src, name, dir_mode(), 0) < 0)
		return lab_error_errno(err, errno, "chmod %s", show);
	if (renameat(src, name, dst, name) < 0)
		return lab_error_errno(err, errno, "cannot move %s into place", show);
	return 0;
}

static int merge(int src, int dst, const char *dshow, int depth, bool move, struct lab_error *err);

/* A directory of the private one (a) into its namesake b in DIR. */
static int merge_sub(int src, int dst, const char *name, const char *show, int depth, bool move,
		     struct lab_error *err)
{
	int a = openat(src, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int b = openat(dst, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int ret = a < 0 || b < 0 ? lab_error_errno(err, errno, "open %s", show) : merge(a, b, show, depth + 1, move, err);

	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	if (ret == 0 && move)
		unlinkat(src, name, AT_REMOVEDIR);
	return ret;
}

/* What is in src (a private directory, fd) may go into dst (fd, shown as
 * dshow): every file's name free or a regular file there, every
 * directory's free or a directory of this user there (checked in turn).
 * move: do it (a directory whose name is free is renamed whole). */
static int merge(int src, int dst, const char *dshow, int depth, bool move, struct lab_error *err)
{
	char *names, *name;
	size_t n, i;
	int ret = list_names(src, &names, &n, err);

	for (i = 0, name = names; ret == 0 && i < n; i++, name += strlen(name) + 1) {
		struct stat s, t;
		char show[PATH_MAX];

		snprintf(show, sizeof(show), "%s/%s", dshow, name);
		if (fstatat(src, name, &s, AT_SYMLINK_NOFOLLOW) < 0) {
			ret = lab_error_errno(err, errno, "%s", show);
		} else if (fstatat(dst, name, &t, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				ret = lab_error_errno(err, errno, "%s", show);
			else if (move)
				ret = move_one(src, dst, name, &s, show, err);
		} else if (S_ISREG(s.st_mode) && S_ISREG(t.st_mode)) {
			if (move && renameat(src, name, dst, name) < 0)
				ret = lab_error_errno(err, errno, "cannot replace %s", show);
		} else if (S_ISDIR(s.st_mode) && S_ISDIR(t.st_mode) && depth < OUTDIR_DEPTH) {
			ret = t.st_uid != geteuid()
			      ? lab_error_set(err, EPERM, "%s is owned by uid %u, not by this user: nothing is "
					      "written into it", show, (unsigned)t.st_uid)
			      : merge_sub(src, dst, name, show, depth, move, err);
		} else if (S_ISREG(s.st_mode) || S_ISDIR(s.st_mode)) {
			ret = lab_error_set(err, EEXIST, "%s exists and is %s: not overwritten", show,
					    lab_file_kind(t.st_mode));
		} else {
			ret = lab_error_set(err, EINVAL, "%s: not a file pagelab made", show);
		}
	}
	free(names);
	return ret;
}

/* The private directory and the directories in it get the mode a published
 * one has (they were 0700 while being made). */
static int open_modes(const char *stage)
{
	int fd = open(stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct lab_error err;
	char *names = NULL, *name;
	size_t n = 0, i;
	int ret = fd < 0 ? -1 : list_names(fd, &names, &n, &err);

	for (i = 0, name = names; ret == 0 && i < n; i++, name += strlen(name) + 1) {
		struct stat st;

		if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			ret = fchmodat(fd, name, dir_mode(), 0);
	}
	free(names);
	if (ret == 0)
		ret = fchmod(fd, dir_mode());
	if (fd >= 0)
		close(fd);
	return ret;
}

int outdir_commit(struct outdir *d, struct lab_error *err)
{
	struct stat st;
	int src = -1, dst = -1, ret;

	if (d->stage[0] == '\0')
		return lab_error_set(err, EINVAL, "%s: nothing to publish", d->target);
	/* Not there: the whole directory at once. */
	if (lstat(d->path, &st) < 0 && errno == ENOENT) {
		if (open_modes(d->stage) == 0 && rename(d->stage, d->path) == 0) {
			d->stage[0] = '\0';
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY) {
			ret = lab_error_errno(err, errno, "cannot move %s into place", d->target);
			outdir_abort(d);
			return ret;
		}
		/* Made meanwhile: what it is now is checked below. */
	}
	src = open(d->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dst = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0 || dst < 0) {
		ret = dst < 0 && (errno == ELOOP || errno == ENOTDIR)
		      ? lab_error_set(err, errno, "%s is no longer a directory (a link or a file was put there "
				      "meanwhile): nothing written", d->target)
		      : lab_error_errno(err, errno, "open %s", src < 0 ? d->stage : d->target);
	} else if (fstat(dst, &st) < 0 || st.st_uid != geteuid()) {
		ret = lab_error_set(err, EPERM, "%s is owned by uid %u, not by this user: nothing is written into it",
				    d->target, (unsigned)st.st_uid);
	} else {
		/* Every name checked before one file moves, then moved. */
		ret = merge(src, dst, d->target, 1, false, err);
		if (ret == 0)
			ret = merge(src, dst, d->target, 1, true, err);
	}
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	outdir_abort(d);                /* what is left of the private directory */
	return ret;
}

static void remove_tree(int dirfd, const char *name, int depth)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (dir == NULL) {
		if (fd >= 0)
			close(fd);
		unlinkat(dirfd, name, AT_REMOVEDIR);
		return;
	}
	while ((e = readdir(dir)) != NULL) {
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) && depth < 4)
			remove_tree(fd, e->d_name, depth + 1);
		else
			unlinkat(fd, e->d_name, 0);
	}
	closedir(dir);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

void outdir_abort(struct outdir *d)
{
	if (d->stage[0] == '\0')
		return;
	remove_tree(AT_FDCWD, d->stage, 0);
	d->stage[0] = '\0';
}
