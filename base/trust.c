/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trust.c — whose paths pagelab believes (trust.h). */
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

#define TRUST_MAX_LINKS 40      /* include/linux/namei.h: MAXSYMLINKS */
#define REFUSED ": pagelab will not trust it"

struct walk {
	const char *path, *what, *hint;
	unsigned flags;
	struct lab_error *err;
	uid_t me;
	char cur[PATH_MAX];         /* walked so far: a real path, no links; "" is "/" */
	char rest[2 * PATH_MAX];    /* still to walk */
	int links;
};

static const char *hint_of(const struct walk *w)
{
	return w->hint != NULL ? w->hint : "";
}

/* "uid N, not to root" / "..., not to pagelab's user (uid M)" */
static void owner_text(const struct walk *w, uid_t uid, bool own, char *buf, size_t len)
{
	if (own)
		snprintf(buf, len, "belongs to uid %u, not to pagelab's user (uid %u)", (unsigned)uid,
			 (unsigned)w->me);
	else if (w->me == 0)
		snprintf(buf, len, "belongs to uid %u, not to root", (unsigned)uid);
	else
		snprintf(buf, len, "belongs to uid %u, neither to root nor to pagelab's user (uid %u)",
			 (unsigned)uid, (unsigned)w->me);
}

static const char *writers(mode_t mode)
{
	return (mode & S_IWOTH) ? "anyone" : "its group";
}

/* Rules 1-4 of trust.h for one node of the walk: node (its real path),
 * final when it is the path itself. */
static int check_node(struct walk *w, const char *node, const struct stat *st, bool final)
{
	bool own = final && (w->flags & LAB_TRUST_OWN);
	bool owner_ok = own ? st->st_uid == w->me : st->st_uid == 0 || st->st_uid == w->me;
	char who[128];

	if (!owner_ok) {
		owner_text(w, st->st_uid, own, who, sizeof(who));
		if (final)
			return lab_error_set(w->err, EPERM, "%s %s %s" REFUSED "%s", w->what, w->path, who,
					     hint_of(w));
		return lab_error_set(w->err, EPERM, "%s %s: %s %s on its path %s" REFUSED "%s", w->what, w->path,
				     S_ISLNK(st->st_mode) ? "the symbolic link" : "the directory", node[0] ? node : "/",
				     who, hint_of(w));
	}
	if (S_ISLNK(st->st_mode) || !(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (!final && S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return 0;       /* rule 3: sticky, and the next component is checked as ours */
	if (final)
		return lab_error_set(w->err, EPERM, "%s %s can be written by %s (mode %04o)" REFUSED "%s", w->what,
				     w->path, writers(st->st_mode), (unsigned)(st->st_mode & 07777), hint_of(w));
	return lab_error_set(w->err, EPERM, "%s %s: the directory %s on its path can be written by %s (mode %04o)"
			     REFUSED "%s", w->what, w->path, node[0] ? node : "/", writers(st->st_mode),
			     (unsigned)(st->st_mode & 07777), hint_of(w));
}

/* The last checks on the path itself: its kind. */
static int check_final(struct walk *w, const struct stat *st)
{
	int ret = check_node(w, w->cur[0] ? w->cur : "/", st, true);

	if (ret < 0)
		return ret;
	if ((w->flags & LAB_TRUST_DIR) && !S_ISDIR(st->st_mode))
		return lab_error_set(w->err, EPERM, "%s %s is %s, not a directory" REFUSED "%s", w->what, w->path,
				     lab_file_kind(st->st_mode), hint_of(w));
	if ((w->flags & LAB_TRUST_FILE) && !S_ISREG(st->st_mode))
		return lab_error_set(w->err, EPERM, "%s %s is %s, not a regular file" REFUSED "%s", w->what, w->path,
				     lab_file_kind(st->st_mode), hint_of(w));
	return 0;
}

/* Follow the link at node (whose directory, w->cur, is trusted): its target
 * and then what was left of the path become the rest of the walk. */
static int follow(struct walk *w, const char *node, const char *left)
{
	char target[PATH_MAX], joined[2 * PATH_MAX];
	ssize_t n;

	if (++w->links > TRUST_MAX_LINKS)
		return lab_error_set(w->err, ELOOP, "%s %s: more than %d symbolic links on its path", w->what, w->path,
				     TRUST_MAX_LINKS);
	n = readlink(node, target, sizeof(target) - 1);
	if (n < 0)
		return lab_error_errno(w->err, errno, "%s %s: readlink %s", w->what, w->path, node);
	target[n] = '\0';
	if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", target, left) >= sizeof(joined))
		return lab_error_set(w->err, ENAMETOOLONG, "%s %s: path too long", w->what, w->path);
	memcpy(w->rest, joined, strlen(joined) + 1);
	if (target[0] == '/')
		w->cur[0] = '\0';
	return 0;
}

/* Only slashes (or nothing) left? */
static bool at_end(const char *s)
{
	while (*s == '/')
		s++;
	return *s == '\0';
}

/* One component off the front of w->rest.  0 walked on; 1 the path does not
 * exist (LAB_TRUST_MISSING_OK); 2 the walk is done; -errno. */
static int step(struct walk *w, struct stat *last)
{
	char *p = w->rest, comp[NAME_MAX + 1], node[PATH_MAX];
	size_t n;
	bool final;

	while (*p == '/')
		p++;
	if (*p == '\0')
		return 2;
	n = strcspn(p, "/");
	if (n > NAME_MAX)
		return lab_error_set(w->err, ENAMETOOLONG, "%s %s: a name on its path is too long", w->what, w->path);
	memcpy(comp, p, n);
	comp[n] = '\0';
	p += n;
	memmove(w->rest, p, strlen(p) + 1);
	final = at_end(w->rest);
	if (strcmp(comp, ".") == 0)
		return 0;
	if (strcmp(comp, "..") == 0) {
		char *slash = strrchr(w->cur, '/');

		if (slash != NULL)
			*slash = '\0';  /* the parent was walked (and checked) on the way here */
		return 0;
	}
	if ((size_t)snprintf(node, sizeof(node), "%s/%s", w->cur, comp) >= sizeof(node))
		return lab_error_set(w->err, ENAMETOOLONG, "%s %s: path too long", w->what, w->path);
	if (lstat(node, last) < 0) {
		int e = errno;

		if (e == ENOENT && (w->flags & LAB_TRUST_MISSING_OK))
			return 1;
		if (e == ENOENT)
			return lab_error_set(w->err, ENOENT, "%s %s does not exist", w->what, w->path);
		if (e == ENOTDIR)
			return lab_error_set(w->err, ENOTDIR, "%s %s: %s on its path is not a directory", w->what,
					     w->path, w->cur);
		return lab_error_errno(w->err, e, "%s %s: %s", w->what, w->path, node);
	}
	if (S_ISLNK(last->st_mode)) {
		int ret;

		if (final && (w->flags & LAB_TRUST_NOFOLLOW)) {
			/* its owner, then "a symbolic link, not a regular file" */
			if ((ret = check_final(w, last)) < 0)
				return ret;
			return lab_error_set(w->err, EPERM, "%s %s is a symbolic link" REFUSED "%s", w->what,
					     w->path, hint_of(w));
		}
		if ((ret = check_node(w, node, last, false)) < 0)
			return ret;
		return follow(w, node, w->rest);
	}
	if (!final) {
		int ret = check_node(w, node, last, false);

		if (ret < 0)
			return ret;
		if (!S_ISDIR(last->st_mode))
			return lab_error_set(w->err, ENOTDIR, "%s %s: %s on its path is not a directory", w->what,
					     w->path, node);
	}
	memcpy(w->cur, node, strlen(node) + 1);
	return 0;
}

int lab_trust_path(const char *path, const char *what, unsigned flags, const char *hint,
		   struct lab_error *err)
{
	struct walk *w;
	struct stat st;
	int ret;

	if (path == NULL || *path == '\0')
		return lab_error_set(err, EINVAL, "%s: an empty path", what);
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return lab_error_errno(err, ENOMEM, "%s %s", what, path);
	*w = (struct walk){ .path = path, .what = what, .hint = hint, .flags = flags, .err = err, .me = geteuid() };
	if (path[0] != '/') {
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof(cwd)) == NULL) {
			ret = lab_error_errno(err, errno, "%s %s: the current directory", what, path);
			goto out;
		}
		ret = snprintf(w->rest, sizeof(w->rest), "%s/%s", cwd, path);
	} else {
		ret = snprintf(w->rest, sizeof(w->rest), "%s", path);
	}
	if ((size_t)ret >= sizeof(w->rest)) {
		ret = lab_error_set(err, ENAMETOOLONG, "%s %s: path too long", what, path);
		goto out;
	}
	/* / itself first (a guest's rootfs may be a sticky tmpfs). */
	if (lstat("/", &st) < 0) {
		ret = lab_error_errno(err, errno, "%s %s: /", what, path);
		goto out;
	}
	if (!at_end(w->rest) && (ret = check_node(w, "/", &st, false)) < 0)
		goto out;
	while ((ret = step(w, &st)) == 0)
		;
	if (ret == 2) {
		/* The last node again, by the rules of the path itself. */
		if (lstat(w->cur[0] ? w->cur : "/", &st) < 0)
			ret = lab_error_errno(err, errno, "%s %s", what, path);
		else
			ret = check_final(w, &st);
	}
out:
	free(w);
	return ret;
}

static int env_dir(const char *var, unsigned flags, const char **value, struct lab_error *err)
{
	const char *v = getenv(var);
	char what[64], hint[96];
	int ret;

	*value = NULL;
	if (v == NULL || *v == '\0')
		return 0;
	snprintf(what, sizeof(what), "%s directory", var);
	snprintf(hint, sizeof(hint), " (chown root and chmod go-w it, or unset %s)", var);
	ret = lab_trust_path(v, what, LAB_TRUST_DIR | flags, hint, err);
	if (ret < 0)
		return ret;
	*value = v;
	return 0;
}

int lab_trust_env_dir(const char *var, const char **value, struct lab_error *err)
{
	return env_dir(var, 0, value, err);
}

int lab_trust_environment(struct lab_error *err)
{
	static const char *const vars[] = { "PAGELAB_WORKLOADS", "PAGELAB_DATA_DIR", "PAGELAB_SCENARIOS" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v;
		int ret = env_dir(vars[i], LAB_TRUST_MISSING_OK, &v, err);

		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Does the blank-separated text hold word? */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)) != NULL; p += n)
		if ((p == text || p[-1] == ' ' || p[-1] == '\t') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n' ||
								      p[n] == '\t'))
			return true;
	return false;
}

/* pid 1 runs /init, and /init is root's guest/vm-guest-init. */
static bool init_is_ours(char *why, size_t len)
{
	cleanup_free char *cmd = NULL, *init = NULL;
	struct lab_error e;
	struct stat st;
	size_t n = 0;
	bool named = false;

	if (lab_read_file("/proc/1/cmdline", &cmd, &n, &e) < 0) {
		snprintf(why, len, "pid 1's command line cannot be read (%.160s)", e.msg);
		return false;
	}
	for (size_t off = 0; off < n; off += strlen(cmd + off) + 1)
		named |= strcmp(cmd + off, "/init") == 0;
	if (!named) {
		snprintf(why, len, "pid 1 is %.160s, not pagelab's guest init", n ? cmd : "unknown");
		return false;
	}
	if (lstat("/init", &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(why, len, "pid 1 runs /init, which is not root's own regular file");
		return false;
	}
	if (lab_read_input("/init", "/init", 1u << 20, LAB_INPUT_NOFOLLOW, &init, NULL, &e) < 0 ||
	    strncmp(init, "#!/bin/sh\n", 10) != 0 || strstr(init, "\n# vm-guest-init ") == NULL) {
		snprintf(why, len, "pid 1 runs /init, which is not guest/vm-guest-init");
		return false;
	}
	snprintf(why, len, "pid 1 runs guest/vm-guest-init as /init");
	return true;
}

bool lab_guest_evidence(char *why, size_t len)
{
	cleanup_free char *cmdline = NULL;
	struct lab_error e;
	char init_why[256];

	if (lab_read_file("/proc/cmdline", &cmdline, NULL, &e) == 0 && has_word(cmdline, "pagelab.guest=1")) {
		snprintf(why, len, "the kernel command line says pagelab.guest=1");
		return true;
	}
	if (init_is_ours(init_why, sizeof(init_why))) {
		snprintf(why, len, "%s", init_why);
		return true;
	}
	snprintf(why, len, "no pagelab.guest=1 on the kernel command line, and %s", init_why);
	return false;
}

bool lab_in_pagelab_guest(void)
{
	const char *env = getenv("PAGELAB_GUEST");
	char why[512];

	return env != NULL && strcmp(env, "1") == 0 && lab_guest_evidence(why, sizeof(why));
}
