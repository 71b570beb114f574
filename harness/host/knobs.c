/* SPDX-License-Identifier: GPL-2.0-or-later */
/* knobs.c — the crash-safe knob journal (knobs.h). */
#include "knobs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "base/size.h"
#include "base/trust.h"

#define DEFAULT_JOURNAL "/var/lib/pagelab/journal"
#define MAX_RECORDS 64

struct knob_journal {
	char path[PATH_MAX];
	char dir[PATH_MAX];
	int lock_fd;
	int fd;                 /* the journal, open for appending once created; -1 before */
	unsigned nr_set;        /* knob_set calls so far (for the test stop points) */
};

enum rec_kind { REC_KNOB, REC_SWAPFILE, REC_SWAPOFF };

struct record {
	enum rec_kind kind;
	char name[512];         /* knob name, or the swap path */
	char value[256];        /* original value; swapoff: priority */
};

void knob_stop_signals(sigset_t *set)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE };

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(set, sigs[i]);
}

bool knob_signal_stops(int signo, pid_t sender)
{
	/* kernel/signal.c: a write's SIGPIPE is send_sig(SIGPIPE, current, 0),
	 * SI_USER with si_pid = the writer's own tgid. */
	return !(signo == SIGPIPE && sender == getpid());
}

const char *knob_journal_path(void)
{
	const char *env = getenv("PAGELAB_JOURNAL");

	return env != NULL && *env ? env : DEFAULT_JOURNAL;
}

/* ---- small helpers --------------------------------------------------------- */

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Values go into the journal %-escaped, so a line is always "word word word". */
static void escape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 < len; p++) {
		if (isalnum(*p) || strchr("._+-/[]", *p) != NULL)
			out[o++] = (char)*p;
		else
			o += (size_t)snprintf(out + o, len - o, "%%%02X", *p);
	}
	out[o] = '\0';
}

static void unescape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = in; *p && o + 1 < len; p++) {
		if (p[0] == '%' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
			char hex[3] = { p[1], p[2], 0 };

			out[o++] = (char)strtol(hex, NULL, 16);
			p += 2;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

/* Blanks collapsed to one space, none at either end. */
static void normalise(const char *in, char *out, size_t len)
{
	size_t o = 0;
	bool blank = false;

	for (const char *p = in; *p && o + 1 < len; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			blank = o > 0;
			continue;
		}
		if (blank && o + 2 < len)
			out[o++] = ' ';
		blank = false;
		out[o++] = *p;
	}
	out[o] = '\0';
}

/* "always [madvise] never" -> "madvise"; a file without brackets as it reads */
static void bracketed(const char *in, char *out, size_t len)
{
	if (!kv_bracketed(in, out, len))
		normalise(in, out, len);
}

int knob_read(const struct knob_def *d, char *out, size_t len, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	int ret;

	if (d->path == NULL)
		return lab_error_set(err, EINVAL, "%s has no file", d->name);
	ret = lab_read_file(d->path, &buf, NULL, err);
	if (ret < 0)
		return ret;
	if (d->kind == KNOB_THP)
		bracketed(buf, out, len);
	else
		normalise(buf, out, len);
	return 0;
}

/* Test stop points: PAGELAB_TEST_STOP=journaled[:N] or changed[:N] stops the
 * harness (SIGSTOP) right after the Nth knob_set has journaled its knob, or
 * has changed it, so a test can SIGKILL it exactly there. */
static void test_stop(const struct knob_journal *j, const char *point)
{
	const char *env = getenv("PAGELAB_TEST_STOP");
	size_t n = strlen(point);
	unsigned which = 1;

	if (env == NULL || strncmp(env, point, n) != 0 || (env[n] != '\0' && env[n] != ':'))
		return;
	if (env[n] == ':')
		which = (unsigned)strtoul(env + n + 1, NULL, 10);
	if (which == j->nr_set)
		raise(SIGSTOP);         /* the test sees the stop in /proc/PID/stat */
}

/* ---- trust ----------------------------------------------------------------- */

/* The journal is data, not instructions: restore writes what it says into
 * /proc/sys and swaps files off and removes them.  So it is believed only
 * where nobody but pagelab's own user could have written it (base/trust.h):
 * the directory and the files in it (journal, lock) owned by this user and
 * not writable by group or others, the files regular and not symlinks, and
 * every directory on the way to them root's or this user's and not writable
 * by others (a sticky one such as /tmp only on the way).  -EPERM otherwise. */
#define JOURNAL_HINT " (chmod go-w it, or set PAGELAB_JOURNAL to a private directory)"

static int trusted(const char *path, const char *what, bool dir, struct lab_error *err)
{
	char w[64];
	struct stat st;
	int ret;

	snprintf(w, sizeof(w), "the knob journal's %s", what);
	ret = lab_trust_path(path, w, LAB_TRUST_OWN | (dir ? LAB_TRUST_DIR
						 : LAB_TRUST_FILE | LAB_TRUST_NOFOLLOW | LAB_TRUST_MISSING_OK),
			     JOURNAL_HINT, err);
	if (ret != 0)
		return ret < 0 ? ret : 0;       /* a journal or lock not made yet is fine */
	if (!dir && lstat(path, &st) == 0 && (unsigned long long)st.st_size > LAB_JOURNAL_MAX) {
		char a[32], b[32];

		return lab_error_set(err, EPERM, "the knob journal %s is %s, over the %s a journal can be: "
				     "pagelab will not trust it", path, lab_format_size((unsigned long long)st.st_size,
				     a, sizeof(a)), lab_format_size(LAB_JOURNAL_MAX, b, sizeof(b)));
	}
	return 0;
}

/* ---- opening ------------------------------------------------------------- */

static pid_t lock_owner(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

int knob_journal_open(const char *path, struct knob_journal **out, bool *stale, pid_t *owner,
		      struct lab_error *err)
{
	struct knob_journal *j;
	char lock[PATH_MAX + 8], tmp[PATH_MAX];
	struct stat st;
	int ret;

	*out = NULL;
	*stale = false;
	if (owner)
		*owner = 0;
	j = calloc(1, sizeof(*j));
	if (j == NULL)
		return lab_error_errno(err, ENOMEM, "knob journal");
	j->fd = -1;
	j->lock_fd = -1;
	if ((size_t)snprintf(j->path, sizeof(j->path), "%s", path) >= sizeof(j->path) ||
	    (size_t)snprintf(lock, sizeof(lock), "%s.lock", path) >= sizeof(lock)) {
		free(j);
		return lab_error_set(err, ENAMETOOLONG, "journal path too long: %s", path);
	}
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(j->dir, sizeof(j->dir), "%s", dirname(tmp));
	/* What exists of the directory's path is checked before anything is
	 * made in it, and all of it again after. */
	ret = lab_trust_path(j->dir, "the knob journal's directory", LAB_TRUST_DIR | LAB_TRUST_OWN |
			     LAB_TRUST_MISSING_OK, JOURNAL_HINT, err);
	if (ret < 0) {
		free(j);
		return ret;
	}
	ret = lab_mkdir_p(j->dir, 0700, err);
	if (ret < 0) {
		free(j);
		return lab_error_prefix(err, "knob journal");
	}
	if ((ret = trusted(j->dir, "directory", true, err)) < 0 ||
	    (ret = trusted(lock, "lock", false, err)) < 0 || (ret = trusted(j->path, "file", false, err)) < 0) {
		free(j);
		return ret;
	}
	j->lock_fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (j->lock_fd < 0) {
		ret = lab_error_errno(err, errno, "open %s", lock);
		free(j);
		return ret;
	}
	if (flock(j->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		pid_t who = lock_owner(j->lock_fd);

		close(j->lock_fd);
		free(j);
		if (owner)
			*owner = who;
		if (e == EWOULDBLOCK)
			return lab_error_set(err, EBUSY, "the knob journal %s belongs to a running pagelab (pid %d)",
					     path, (int)who);
		return lab_error_errno(err, e, "lock %s", lock);
	}
	{
		char pid[32];
		int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

		if (ftruncate(j->lock_fd, 0) < 0 || pwrite(j->lock_fd, pid, (size_t)n, 0) != n) {
			/* only used for messages */
		}
	}
	*stale = lstat(j->path, &st) == 0;
	*out = j;
	return 0;
}

void knob_journal_close(struct knob_journal *j)
{
	if (j == NULL)
		return;
	if (j->fd >= 0)
		close(j->fd);
	if (j->lock_fd >= 0)
		close(j->lock_fd);        /* releases the flock */
	free(j);
}

bool knob_journal_pending(const struct knob_journal *j)
{
	struct stat st;

	return j != NULL && lstat(j->path, &st) == 0;
}

/* ---- appending ------------------------------------------------------------ */

static int journal_append(struct knob_journal *j, const char *line, struct lab_error *err)
{
	size_t len = strlen(line);
	ssize_t n;

	if (j->fd < 0) {
		struct stat st;
		bool fresh = lstat(j->path, &st) < 0;

		j->fd = open(j->path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (j->fd < 0)
			return lab_error_errno(err, errno, "create the knob journal %s", j->path);
		if (fresh) {
			char head[64];
			int hn = snprintf(head, sizeof(head), "pagelab-journal 1 pid=%d\n", (int)getpid());

			if (write(j->fd, head, (size_t)hn) != hn || fsync(j->fd) < 0)
				return lab_error_errno(err, errno, "write the knob journal %s", j->path);
			/* The file's name must survive a crash too. */
			if (fsync_dir(j->dir) < 0)
				return lab_error_errno(err, errno, "fsync %s", j->dir);
		}
	}
	do
		n = write(j->fd, line, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		return lab_error_errno(err, n < 0 ? errno : EIO, "append to the knob journal %s", j->path);
	if (fsync(j->fd) < 0)
		return lab_error_errno(err, errno, "fsync the knob journal %s", j->path);
	return 0;
}

/* Parse the journal text into records (first occurrence of each knob only).
 * Returns the number of records, or -EINVAL (a line that is no record; its
 * number in *bad_line) or -E2BIG (more than max records). */
static int journal_parse(const char *text, struct record *recs, size_t max, pid_t *pid,
			 long long *user_mfk, bool *mfk_written, size_t *bad_line)
{
	const char *p = text;
	size_t n = 0, lineno = 0;

	*pid = 0;
	*mfk_written = false;
	*bad_line = 0;
	while (*p) {
		const char *eol = strchr(p, '\n');
		char line[1200], a[64], b[512], c[512];
		int k;

		if (eol == NULL)
			break;                  /* torn by a crash before its fsync: never acted on */
		snprintf(line, sizeof(line), "%.*s", (int)(eol - p), p);
		p = eol + 1;
		*bad_line = ++lineno;
		a[0] = b[0] = c[0] = '\0';
		k = sscanf(line, "%63s %511s %511s", a, b, c);
		if (k <= 0)
			continue;
		if (strcmp(a, "pagelab-journal") == 0) {
			const char *pp = strstr(line, "pid=");

			if (pp)
				*pid = (pid_t)strtol(pp + 4, NULL, 10);
			continue;
		}
		if (strcmp(a, "wrote") == 0 && k == 3 && strcmp(b, "vm.min_free_kbytes") == 0) {
			*mfk_written = true;
			*user_mfk = strtoll(c, NULL, 10);
			continue;
		}
		if (n == max)
			return -E2BIG;
		memset(&recs[n], 0, sizeof(recs[n]));
		if (strcmp(a, "knob") == 0 && k >= 2) {
			bool dup = false;

			recs[n].kind = REC_KNOB;
			snprintf(recs[n].name, sizeof(recs[n].name), "%.511s", b);
			unescape(k == 3 ? c : "", recs[n].value, sizeof(recs[n].value));
			/* The original is the FIRST value journaled for a knob. */
			for (size_t i = 0; i < n; i++)
				dup |= recs[i].kind == REC_KNOB && strcmp(recs[i].name, recs[n].name) == 0;
			if (!dup)
				n++;
		} else if (strcmp(a, "swapfile") == 0 && k >= 2) {
			recs[n].kind = REC_SWAPFILE;
			unescape(b, recs[n].name, sizeof(recs[n].name));
			n++;
		} else if (strcmp(a, "swapoff") == 0 && k == 3) {
			recs[n].kind = REC_SWAPOFF;
			unescape(b, recs[n].name, sizeof(recs[n].name));
			snprintf(recs[n].value, sizeof(recs[n].value), "%.255s", c);
			n++;
		} else {
			return -EINVAL;
		}
	}
	*bad_line = 0;
	return (int)n;
}

static int journal_has_knob(struct knob_journal *j, const char *name)
{
	cleanup_free char *text = NULL;
	struct lab_error e;
	struct record recs[MAX_RECORDS];
	long long u = 0;
	size_t bad;
	bool w;
	pid_t pid;
	int n;

	if (lab_read_input(j->path, "knob journal", LAB_JOURNAL_MAX, LAB_INPUT_NOFOLLOW, &text, NULL, &e) < 0)
		return 0;
	n = journal_parse(text, recs, MAX_RECORDS, &pid, &u, &w, &bad);
	for (int i = 0; i < n; i++)
		if (recs[i].kind == REC_KNOB && strcmp(recs[i].name, name) == 0)
			return 1;
	return n < 0 ? n : 0;
}

static int journal_knob(struct knob_journal *j, const struct knob_def *d, struct lab_error *err)
{
	char cur[256], esc[600], line[800];
	int ret = journal_has_knob(j, d->name);

	if (ret < 0)
		return lab_error_set(err, EINVAL, "the knob journal %s is unreadable: fix or remove it by hand",
				     j->path);
	if (ret == 1)
		return 0;               /* already journaled: its first original stays */
	ret = knob_read(d, cur, sizeof(cur), err);
	if (ret < 0)
		return lab_error_prefix(err, "%s", d->name);
	escape(cur, esc, sizeof(esc));
	snprintf(line, sizeof(line), "knob %s %s\n", d->name, esc);
	return journal_append(j, line, err);
}

/* ---- swap ----------------------------------------------------------------- */

/* Active swap areas from /proc/swaps: path and priority. */
static int swaps_list(char paths[][PATH_MAX], int *prio, int max, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char *line, *save = NULL;
	int n = 0, ret;

	ret = lab_read_file("/proc/swaps", &buf, NULL, err);
	if (ret < 0)
		return ret;
	line = strtok_r(buf, "\n", &save);      /* header */
	while ((line = strtok_r(NULL, "\n", &save)) != NULL && n < max) {
		char path[PATH_MAX], type[32];
		unsigned long long size, used;
		int pr;

		/* Names with blanks are printed with \040 (fs/proc: seq_escape). */
		if (sscanf(line, "%4095s %31s %llu %llu %d", path, type, &size, &used, &pr) == 5) {
			snprintf(paths[n], PATH_MAX, "%s", path);
			prio[n++] = pr;
		}
	}
	return n;
}

static bool swap_active(const char *path)
{
	char paths[16][PATH_MAX];
	int prio[16], n;
	struct lab_error e;

	n = swaps_list(paths, prio, 16, &e);
	for (int i = 0; i < n; i++)
		if (strcmp(paths[i], path) == 0)
			return true;
	return false;
}

/* A swap file of size bytes: zeros (no holes, mm/swapfile.c refuses them),
 * then the version-1 header of include/linux/swap.h (union swap_header): the
 * magic "SWAPSPACE2" in the last 10 bytes of the first page, version 1,
 * last_page, no bad pages. */
static int swapfile_make(const char *path, unsigned long long size, struct lab_error *err)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *buf;
	unsigned long long done = 0;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return lab_error_errno(err, errno, "create swap file %s", path);
	buf = calloc(1, 1 << 20);
	if (buf == NULL) {
		close(fd);
		return lab_error_errno(err, ENOMEM, "swap file");
	}
	while (done < size) {
		ssize_t n = write(fd, buf, 1 << 20);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = lab_error_errno(err, n < 0 ? errno : EIO, "write swap file %s", path);
			goto out;
		}
		done += (unsigned long long)n;
	}
	memset(buf, 0, (size_t)page);
	{
		uint32_t version = 1, last_page = (uint32_t)(size / (unsigned long long)page - 1), bad = 0;

		/* struct { char bootbits[1024]; __u32 version, last_page, nr_badpages; ... } */
		memcpy(buf + 1024, &version, 4);
		memcpy(buf + 1028, &last_page, 4);
		memcpy(buf + 1032, &bad, 4);
		memcpy(buf + page - 10, "SWAPSPACE2", 10);
	}
	if (pwrite(fd, buf, (size_t)page, 0) != page || fsync(fd) < 0)
		ret = lab_error_errno(err, errno, "write swap header %s", path);
out:
	free(buf);
	close(fd);
	if (ret < 0)
		unlink(path);
	return ret;
}

static int knob_set_swap(struct knob_journal *j, const char *value, struct lab_error *err)
{
	char esc[PATH_MAX * 3], line[PATH_MAX * 3 + 64];
	int ret;

	if (strcmp(value, "off") == 0) {
		char paths[16][PATH_MAX];
		int prio[16], n = swaps_list(paths, prio, 16, err);

		if (n < 0)
			return n;
		for (int i = 0; i < n; i++) {
			escape(paths[i], esc, sizeof(esc));
			snprintf(line, sizeof(line), "swapoff %s %d\n", esc, prio[i]);
			ret = journal_append(j, line, err);
			if (ret < 0)
				return ret;
			test_stop(j, "journaled");
			if (swapoff(paths[i]) < 0)
				return lab_error_errno(err, errno, "swapoff %s", paths[i]);
		}
		test_stop(j, "changed");
		return 0;
	}
	{
		char path[PATH_MAX];
		unsigned long long size = strtoull(value, NULL, 10);

		if ((size_t)snprintf(path, sizeof(path), "%s/swapfile-%d", j->dir, (int)getpid()) >= sizeof(path))
			return lab_error_set(err, ENAMETOOLONG, "swap file path too long");
		escape(path, esc, sizeof(esc));
		snprintf(line, sizeof(line), "swapfile %s\n", esc);
		ret = journal_append(j, line, err);
		if (ret < 0)
			return ret;
		test_stop(j, "journaled");
		ret = swapfile_make(path, size, err);
		if (ret < 0)
			return ret;
		if (swapon(path, 0) < 0)
			return lab_error_errno(err, errno, "swapon %s (the filesystem of %s must support swap files)",
					       path, j->dir);
		test_stop(j, "changed");
		return 0;
	}
}

/* ---- setting -------------------------------------------------------------- */

int knob_set(struct knob_journal *j, const struct knob_def *d, const char *value, struct lab_error *err)
{
	char now[256], want[256];
	int ret;

	j->nr_set++;
	if (d->kind == KNOB_SWAP)
		return knob_set_swap(j, value, err);
	if (d->type == KT_TRIGGER)
		return lab_error_set(err, EINVAL, "%s is a trigger, not a knob", d->name);
	if (d->kind == KNOB_THP) {
		/* A THP change recomputes min_free_kbytes (mm/khugepaged.c:
		 * start_stop_khugepaged -> set_recommended_min_free_kbytes, or
		 * calculate_min_free_kbytes when THP is off): journal it first, so it
		 * is restored AFTER THP (reverse order) and only written if THP's own
		 * restore did not bring it back. */
		ret = journal_knob(j, knob_def_find("vm.min_free_kbytes"), err);
		if (ret < 0)
			return ret;
	}
	ret = journal_knob(j, d, err);
	if (ret < 0)
		return ret;
	test_stop(j, "journaled");
	ret = lab_write_file(d->path, value, err);
	if (ret < 0)
		return lab_error_prefix(err, "%s = %s", d->name, value);
	if (strcmp(d->name, "vm.min_free_kbytes") == 0) {
		char line[128];

		snprintf(line, sizeof(line), "wrote vm.min_free_kbytes %s\n", value);
		ret = journal_append(j, line, err);
		if (ret < 0)
			return ret;
	}
	ret = knob_read(d, now, sizeof(now), err);
	if (ret < 0)
		return ret;
	normalise(value, want, sizeof(want));
	if (strcmp(now, want) != 0)
		return lab_error_set(err, EIO, "%s = %s: the kernel reads back '%s'", d->name, value, now);
	test_stop(j, "changed");
	return 0;
}

/* ---- restoring ------------------------------------------------------------ */

/* A swap file record names a file pagelab made: JOURNAL-DIR/swapfile-PID
 * (knob_set_swap), a regular file of pagelab's user.  Anything else in a
 * journal is not acted on: restore never swaps off or removes another path. */
static bool own_swapfile(const struct knob_journal *j, const char *path, char *why, size_t wlen)
{
	size_t dl = strlen(j->dir);
	const char *base = path + dl + 1, *p;
	struct stat st;

	if (strncmp(path, j->dir, dl) != 0 || path[dl] != '/' || strncmp(base, "swapfile-", 9) != 0) {
		snprintf(why, wlen, "not a swap file pagelab makes (%.180s/swapfile-PID): left alone", j->dir);
		return false;
	}
	for (p = base + 9; *p; p++)
		if (*p < '0' || *p > '9')
			break;
	if (p == base + 9 || *p != '\0') {
		snprintf(why, wlen, "not a swap file pagelab makes (%.180s/swapfile-PID): left alone", j->dir);
		return false;
	}
	if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
		snprintf(why, wlen, "%s, not a regular file of pagelab's user: left alone",
			 lab_file_kind(st.st_mode));
		return false;
	}
	return true;
}

/* A knob back to its journaled value, typed and range-checked as a
 * scenario's [knobs] are, written only when it differs, read back. */
static int restore_knob(const struct record *r, struct knob_restored *it)
{
	const struct knob_def *d = knob_def_find(r->name);
	char want[256], typed[256];
	struct lab_error e2;

	snprintf(it->original, sizeof(it->original), "%.127s", r->value);
	if (d == NULL || d->path == NULL || !d->scenario || d->kind == KNOB_SWAP) {
		snprintf(it->msg, sizeof(it->msg), "%s", d == NULL ? "unknown knob in the journal"
			 : "not a knob pagelab changes: left alone");
		snprintf(it->found, sizeof(it->found), "-");
		return -EINVAL;
	}
	/* Typed and range-checked as a scenario's [knobs] are, before a write. */
	if (knob_def_value(d, r->value, typed, sizeof(typed), &e2) < 0) {
		snprintf(it->msg, sizeof(it->msg), "%.200s: not written", e2.msg);
		snprintf(it->found, sizeof(it->found), "-");
		return -EINVAL;
	}
	normalise(typed, want, sizeof(want));
	if (knob_read(d, it->found, sizeof(it->found), &e2) < 0) {
		snprintf(it->msg, sizeof(it->msg), "%.255s", e2.msg);
		return -EIO;
	}
	if (strcmp(it->found, want) != 0) {
		/* sysctl files take blank-separated values; THP takes the word. */
		if (lab_write_file(d->path, typed, &e2) < 0) {
			snprintf(it->msg, sizeof(it->msg), "%.255s", e2.msg);
			return -EIO;
		}
		it->written = true;
	}
	if (knob_read(d, it->now, sizeof(it->now), &e2) < 0) {
		snprintf(it->msg, sizeof(it->msg), "%.255s", e2.msg);
		return -EIO;
	}
	it->ok = strcmp(it->now, want) == 0;
	if (!it->ok) {
		char now[128];

		snprintf(now, sizeof(now), "%s", it->now);
		snprintf(it->msg, sizeof(it->msg), "reads '%.100s' after writing '%.100s'", now, want);
	}
	if (it->ok && strcmp(d->path, "/proc/sys/vm/nr_hugepages") == 0 && strcmp(want, "0") == 0) {
		/* "No hugetlb page reserved": HugePages_Total must read 0 too
		 * (pages still in use become surplus instead of being freed). */
		unsigned long long total = 1;
		cleanup_free char *mi = NULL;
		const char *t;

		if (lab_read_file("/proc/meminfo", &mi, NULL, &e2) == 0 &&
		    (t = strstr(mi, "HugePages_Total:")) != NULL)
			total = strtoull(t + 16, NULL, 10);
		if (total != 0) {
			it->ok = false;
			snprintf(it->msg, sizeof(it->msg), "HugePages_Total is %llu (pages still in use?)", total);
		}
	}
	return it->ok ? 0 : -EIO;
}

/* A swap file pagelab made: swapped off and removed. */
static int restore_swapfile(const struct knob_journal *j, const struct record *r, struct knob_restored *it)
{
	snprintf(it->original, sizeof(it->original), "no swap file");
	if (!own_swapfile(j, r->name, it->msg, sizeof(it->msg))) {
		snprintf(it->found, sizeof(it->found), "-");
		return -EINVAL;
	}
	snprintf(it->found, sizeof(it->found), "%s", swap_active(r->name) ? "swapped on" : "not active");
	if (swap_active(r->name)) {
		if (swapoff(r->name) < 0) {
			snprintf(it->msg, sizeof(it->msg), "swapoff: %s", strerror(errno));
			return -EIO;
		}
		it->written = true;
	}
	if (unlink(r->name) < 0 && errno != ENOENT) {
		snprintf(it->msg, sizeof(it->msg), "unlink: %s", strerror(errno));
		return -EIO;
	}
	it->ok = !swap_active(r->name) && access(r->name, F_OK) != 0;
	snprintf(it->now, sizeof(it->now), "%s", it->ok ? "removed" : "still there");
	return it->ok ? 0 : -EIO;
}

static int restore_swapoff(const struct record *r, struct knob_restored *it)
{
	/* REC_SWAPOFF: an area that was active must be active again: an absolute
	 * path to a block device or a regular file (swapon checks its header). */
	snprintf(it->original, sizeof(it->original), "active, priority %.100s", r->value);
	{
		struct stat st;
		char *end;
		long prio;

		errno = 0;
		prio = strtol(r->value, &end, 10);
		if (r->name[0] != '/' || strstr(r->name, "/../") != NULL || lstat(r->name, &st) < 0 ||
		    !(S_ISBLK(st.st_mode) || S_ISREG(st.st_mode)) || errno != 0 || *end != '\0' ||
		    end == r->value || prio < -32768 || prio > SWAP_FLAG_PRIO_MASK) {
			/* mm/swapfile.c: priorities are signed shorts; areas swapped on
			 * without one get -2, -3, ... */
			snprintf(it->found, sizeof(it->found), "-");
			snprintf(it->msg, sizeof(it->msg), "not a swap area (an absolute path to a block device or "
				 "a regular file, priority -32768..%d): left alone", SWAP_FLAG_PRIO_MASK);
			return -EINVAL;
		}
	}
	snprintf(it->found, sizeof(it->found), "%s", swap_active(r->name) ? "active" : "off");
	if (!swap_active(r->name)) {
		int prio = (int)strtol(r->value, NULL, 10), flags = 0;

		if (prio >= 0)
			flags = SWAP_FLAG_PREFER | (prio & SWAP_FLAG_PRIO_MASK);
		if (swapon(r->name, flags) < 0) {
			snprintf(it->msg, sizeof(it->msg), "swapon: %s", strerror(errno));
			return -EIO;
		}
		it->written = true;
	}
	it->ok = swap_active(r->name);
	snprintf(it->now, sizeof(it->now), "%s", it->ok ? "active" : "off");
	return it->ok ? 0 : -EIO;
}

static int restore_one(const struct knob_journal *j, const struct record *r, struct knob_restored *it,
		       struct lab_error *err)
{
	(void)err;
	memset(it, 0, sizeof(*it));
	snprintf(it->name, sizeof(it->name), "%.63s", r->name);
	if (r->kind == REC_KNOB)
		return restore_knob(r, it);
	if (r->kind == REC_SWAPFILE)
		return restore_swapfile(j, r, it);
	return restore_swapoff(r, it);
}

int knob_journal_restore(struct knob_journal *j, struct knob_restore_report *rep, struct lab_error *err)
{
	cleanup_free char *text = NULL;
	struct record recs[MAX_RECORDS];
	size_t bad = 0;
	int n, ret, failed = 0;

	memset(rep, 0, sizeof(*rep));
	rep->user_min_free_kbytes = -1;
	if (!knob_journal_pending(j))
		return 0;
	ret = lab_read_input(j->path, "knob journal", LAB_JOURNAL_MAX, LAB_INPUT_NOFOLLOW, &text, NULL, err);
	if (ret < 0)
		return ret;
	n = journal_parse(text, recs, MAX_RECORDS, &rep->journal_pid, &rep->user_min_free_kbytes,
			  &rep->min_free_written, &bad);
	if (n == -EINVAL)
		return lab_error_set(err, EINVAL, "the knob journal %s:%zu is not a journal record: nothing "
				     "restored; restore by hand from it", j->path, bad);
	if (n < 0)
		return lab_error_set(err, EINVAL, "the knob journal %s has more than %d records: nothing "
				     "restored; restore by hand from it", j->path, MAX_RECORDS);
	/* Reverse order of first change: THP before the min_free_kbytes it moved. */
	for (int i = n - 1; i >= 0; i--) {
		struct knob_restored *it = &rep->items[rep->n < 32 ? rep->n : 31];

		if (restore_one(j, &recs[i], it, err) < 0)
			failed++;
		if (rep->n < 32)
			rep->n++;
	}
	if (rep->min_free_written) {
		/* Our own restore may have written it too: that is the user value now. */
		for (size_t i = 0; i < rep->n; i++)
			if (strcmp(rep->items[i].name, "vm.min_free_kbytes") == 0 && rep->items[i].written)
				rep->user_min_free_kbytes = strtoll(rep->items[i].original, NULL, 10);
	}
	if (failed)
		return lab_error_set(err, EIO, "%d knob(s) not restored; the journal %s stays for `pagelab restore`",
				     failed, j->path);
	if (j->fd >= 0) {
		close(j->fd);
		j->fd = -1;
	}
	if (unlink(j->path) < 0 && errno != ENOENT)
		return lab_error_errno(err, errno, "remove the knob journal %s", j->path);
	fsync_dir(j->dir);
	return 0;
}

void knob_report_print(const struct knob_restore_report *rep, FILE *f, const char *prefix)
{
	for (size_t i = 0; i < rep->n; i++) {
		const struct knob_restored *it = &rep->items[i];

		if (!it->ok)
			fprintf(f, "%s%s: NOT restored (original %s, found %s): %s\n", prefix, it->name,
				it->original, it->found, it->msg);
		else if (it->written)
			fprintf(f, "%s%s: %s -> %s (restored)\n", prefix, it->name, it->found, it->now);
		else
			fprintf(f, "%s%s: %s (already back)\n", prefix, it->name, it->now);
	}
	if (rep->min_free_written)
		fprintf(f,
			"%snote: vm.min_free_kbytes was written, so the kernel now keeps user_min_free_kbytes = %lld "
			"until reboot: a THP switch to never can no longer lower min_free_kbytes below it "
			"(mm/page_alloc.c: calculate_min_free_kbytes)\n",
			prefix, rep->user_min_free_kbytes);
}
