/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.c — the memory cgroup a scenario's workloads run in.
 *
 * libcgroup 2.0.2 (Debian 12) does mount discovery, creates the sandbox with
 * its limits, and moves processes; everything it gets wrong or does not do is
 * done here by hand (libcgroup 2.0.2 as measured on v1 and v2):
 *
 *   - the cgroup of a pid: /proc/PID/cgroup is parsed here, because
 *     cgroup_get_current_controller_path() fails on v2's "0::/path";
 *   - removal: only ever cgroup_delete_cgroup_ext(CGFLAG_DELETE_EMPTY_ONLY).
 *     Plain cgroup_delete_cgroup() first opens the PARENT's tasks file for
 *     writing to migrate tasks, and the parent is the supervisor's cgroup.
 *     EMPTY_ONLY can return 0 and leave a non-empty group in place, so every
 *     removal is confirmed with stat();
 *   - killing (cgroup.kill, or SIGKILL to every pid in cgroup.procs);
 *   - values that can read "max", memory.reclaim;
 *   - error texts: cgroup_strerror() is off by one from code 50023 (its table
 *     has no entry for the unused 50022), so codes are named here.
 *
 * One table maps the canonical cgroup v2 file names to their v1 aliases; every
 * read and write of a sandbox file goes through it.
 */
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libcgroup.h>

#include "base/fileio.h"
#include "base/size.h"

/* libcgroup 2.0.2 exports cgroup_get_controller_version (symbol version
 * CGROUP_2.0) but declares it only in its private src/libcgroup-internal.h.
 * The library's own definition is
 *     int cgroup_get_controller_version(const char * const controller,
 *                                       enum cg_version_t * const version);
 * with enum cg_version_t { CGROUP_UNK = 0, CGROUP_V1, CGROUP_V2 }: it stores
 * an int-sized enum, and returns 0, ECGROUPNOTEXIST (controller not in the
 * mount table) or ECGINVAL (version == NULL).  Checked against the
 * disassembly of Debian's libcgroup.so.2 2.0.2-2.  libcgroup 3 moved the enum
 * into the public header; this declaration would then clash, on purpose. */
enum lab_libcg_version { LAB_LIBCG_UNK = 0, LAB_LIBCG_V1 = 1, LAB_LIBCG_V2 = 2 };
int cgroup_get_controller_version(const char *controller, enum lab_libcg_version *version);

#define SANDBOX_KILL_WAIT_MS 5000
#define SANDBOX_SWEEP_DEPTH 4

/* ---- the v2 <-> v1 name table ------------------------------------------ */

struct cg_file_alias {
	const char *v2;         /* canonical name */
	const char *v1;         /* NULL: no such file on v1 */
};

/* Documentation/admin-guide/cgroup-v2.rst and cgroup-v1/memory.rst.  Notes:
 *   memory.swap.max: v1's memsw limit is memory + swap, so "swap S" is
 *       memsw = limit + S (and "no swap" is memsw = limit);
 *   memory.events: v1 has no event counters file; memory.oom_control holds
 *       oom_kill_disable, under_oom and (since 4.13) oom_kill. */
/* The sandbox's settings (memory.max, memory.swap.max, memory.oom.group, …)
 * have their names in sandbox/settings.c's table; these are the files it
 * only reads or triggers. */
static const struct cg_file_alias cg_files[] = {
	{ "memory.current", "memory.usage_in_bytes" },
	{ "memory.peak", "memory.max_usage_in_bytes" },
	{ "memory.events", "memory.oom_control" },
	{ "memory.pressure", NULL },
	{ "memory.stat", "memory.stat" },
	{ "memory.reclaim", NULL },
	{ "cgroup.procs", "cgroup.procs" },
	{ "cgroup.kill", NULL },
};

const char *sandbox_file_name(enum cg_version v, const char *v2name)
{
	size_t i;

	if (v2name == NULL)
		return NULL;
	for (i = 0; i < SB_NR_SETTINGS; i++)
		if (sandbox_settings[i].v2 != NULL && strcmp(sandbox_settings[i].v2, v2name) == 0)
			return sandbox_setting_file(&sandbox_settings[i], v);
	for (i = 0; i < sizeof(cg_files) / sizeof(cg_files[0]); i++) {
		if (strcmp(cg_files[i].v2, v2name) != 0)
			continue;
		if (v == CG_VERSION_V2)
			return cg_files[i].v2;
		if (v == CG_VERSION_V1)
			return cg_files[i].v1;
		return NULL;
	}
	return NULL;
}

/* ---- /proc/PID/cgroup ---------------------------------------------------- */

static bool list_has_word(const char *list, size_t len, const char *word, char sep)
{
	size_t wlen = strlen(word);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *q = memchr(p, sep, (size_t)(end - p));
		size_t n = q != NULL ? (size_t)(q - p) : (size_t)(end - p);

		if (n == wlen && memcmp(p, word, wlen) == 0)
			return true;
		if (q == NULL)
			break;
		p = q + 1;
	}
	return false;
}

int sandbox_parse_proc_cgroup(const char *buf, enum cg_version v, char *out, size_t outlen)
{
	const char *line = buf;

	if (v != CG_VERSION_V1 && v != CG_VERSION_V2)
		return -EINVAL;
	while (*line != '\0') {
		const char *eol = strchr(line, '\n');
		size_t len = eol != NULL ? (size_t)(eol - line) : strlen(line);
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 != NULL ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;

		if (len > 0) {
			const char *path;
			size_t plen;
			bool match;

			if (c1 == NULL || c2 == NULL)
				return -EINVAL;
			if (v == CG_VERSION_V2)
				match = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
			else
				match = list_has_word(c1 + 1, (size_t)(c2 - c1 - 1), "memory", ',');
			if (match) {
				path = c2 + 1;
				plen = len - (size_t)(path - line);
				if (plen == 0 || path[0] != '/')
					return -EINVAL;
				if (plen >= outlen)
					return -ENAMETOOLONG;
				memcpy(out, path, plen);
				out[plen] = '\0';
				return 0;
			}
		}
		if (eol == NULL)
			break;
		line = eol + 1;
	}
	return -ENOENT;
}

/* The cgroup path the memory hierarchy's mount shows at its top (mountinfo's
 * "root" field): "/" on a host, but the container's own cgroup inside a
 * container without a cgroup namespace (runc on v1, Docker's --cgroupns=host),
 * where /proc/PID/cgroup still prints the whole path (/a/b/libpod-<id>) while
 * the mount shows only that group and below.  Filled by sandbox_probe;
 * sandbox_cgroup_of strips it, so that paths are relative to the mount as
 * everything here expects. */
static char cg_mount_root[4096];

int sandbox_parse_mount_root(const char *mountinfo, const char *mount, enum cg_version v,
			     char *out, size_t outlen)
{
	const char *line = mountinfo;
	size_t mlen = strlen(mount);
	bool found = false;

	/* "36 25 0:32 /root /mount/point opts... - fstype source superopts";
	 * the last mount on a point is the one that shows. */
	while (*line != '\0') {
		const char *eol = strchr(line, '\n');
		size_t len = eol != NULL ? (size_t)(eol - line) : strlen(line);
		const char *sep = NULL, *f[5], *fe[5], *p = line, *end = line + len, *fs;
		size_t i, n;

		for (const char *q = line; q + 3 <= end; q++)
			if (memcmp(q, " - ", 3) == 0) {
				sep = q;
				break;
			}
		for (i = 0; sep != NULL && i < 5 && p < sep; i++) {
			f[i] = p;
			while (p < sep && *p != ' ')
				p++;
			fe[i] = p;
			if (p < sep)
				p++;
		}
		if (sep != NULL && i == 5 && (size_t)(fe[4] - f[4]) == mlen &&
		    memcmp(f[4], mount, mlen) == 0) {
			fs = sep + 3;
			n = strcspn(fs, " \n");
			if (v == CG_VERSION_V2 ? n == 7 && strncmp(fs, "cgroup2", 7) == 0
					       : n == 6 && strncmp(fs, "cgroup", 6) == 0) {
				n = (size_t)(fe[3] - f[3]);
				if (n == 0 || f[3][0] != '/')
					return -EINVAL;
				if (n >= outlen)
					return -ENAMETOOLONG;
				memcpy(out, f[3], n);
				out[n] = '\0';
				found = true;
			}
		}
		if (eol == NULL)
			break;
		line = eol + 1;
	}
	return found ? 0 : -ENOENT;
}

void sandbox_strip_mount_root(const char *root, char *path)
{
	size_t rlen = strlen(root);

	if (rlen == 0 || strcmp(root, "/") == 0 || strncmp(path, root, rlen) != 0)
		return;
	if (path[rlen] == '\0')
		strcpy(path, "/");
	else if (path[rlen] == '/')
		memmove(path, path + rlen, strlen(path + rlen) + 1);
}

static void probe_mount_root(const char *mount, enum cg_version v)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;

	cg_mount_root[0] = '\0';
	if (lab_read_file("/proc/self/mountinfo", &buf, NULL, &e) < 0 ||
	    sandbox_parse_mount_root(buf, mount, v, cg_mount_root, sizeof(cg_mount_root)) < 0)
		cg_mount_root[0] = '\0';
}

int sandbox_cgroup_of(pid_t pid, enum cg_version v, char *out, size_t outlen,
		      struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char path[64];
	int ret;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	else
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	ret = lab_read_file(path, &buf, NULL, err);
	if (ret < 0)
		return ret;
	ret = sandbox_parse_proc_cgroup(buf, v, out, outlen);
	if (ret == -ENOENT)
		return lab_error_set(err, ENOENT, "%s: no %s line", path,
				     v == CG_VERSION_V2 ? "cgroup v2 \"0::\"" : "memory controller");
	if (ret < 0)
		return lab_error_set(err, -ret, "%s: cannot parse it (%s)", path, strerror(-ret));
	sandbox_strip_mount_root(cg_mount_root, out);
	return 0;
}

/* ---- libcgroup glue -------------------------------------------------------- */

static bool libcg_ready;
static char libcg_log[512];     /* the last thing libcgroup wanted to say */

/* Without a logger of our own libcgroup prints its errors to stdout, which
 * would corrupt `pagelab check --json`; keep the last message for errors. */
static void libcg_logger(void *userdata, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void libcg_logger(void *userdata, int level, const char *fmt, va_list ap)
{
	size_t n;

	(void)userdata;
	(void)level;
	vsnprintf(libcg_log, sizeof(libcg_log), fmt, ap);
	n = strlen(libcg_log);
	while (n > 0 && (libcg_log[n - 1] == '\n' || libcg_log[n - 1] == ' '))
		libcg_log[--n] = '\0';
}

static const char *const ecg_texts[] = {
	[ECGROUPNOTCOMPILED - 50000] = "libcgroup was built without this",
	[ECGROUPNOTMOUNTED - 50000] = "no cgroup hierarchy is mounted",
	[ECGROUPNOTEXIST - 50000] = "the cgroup (or controller) does not exist",
	[ECGROUPNOTCREATED - 50000] = "the cgroup was not created",
	[ECGROUPSUBSYSNOTMOUNTED - 50000] = "the controller is not mounted",
	[ECGROUPNOTOWNER - 50000] = "not the owner of the cgroup",
	[ECGROUPMULTIMOUNTED - 50000] = "controllers are mounted at different places",
	[ECGROUPNOTALLOWED - 50000] = "operation not allowed",
	[ECGMAXVALUESEXCEEDED - 50000] = "too many values",
	[ECGCONTROLLEREXISTS - 50000] = "controller already added",
	[ECGVALUEEXISTS - 50000] = "value already added",
	[ECGINVAL - 50000] = "invalid argument",
	[ECGCONTROLLERCREATEFAILED - 50000] = "creating the controller failed",
	[ECGFAIL - 50000] = "operation failed",
	[ECGROUPNOTINITIALIZED - 50000] = "cgroup_init() was not called",
	[ECGROUPVALUENOTEXIST - 50000] = "the control file does not exist",
	[ECGOTHER - 50000] = "system error",
	[ECGROUPNOTEQUAL - 50000] = "groups differ",
	[ECGCONTROLLERNOTEQUAL - 50000] = "controllers differ",
	[ECGROUPPARSEFAIL - 50000] = "cannot parse the rules file",
	[ECGROUPNORULES - 50000] = "no rules file",
	[ECGMOUNTFAIL - 50000] = "mounting failed",
	[ECGEOF - 50000] = "end of iteration",
	[ECGCONFIGPARSEFAIL - 50000] = "cannot parse cgconfig.conf",
	[ECGNAMESPACEPATHS - 50000] = "several paths for one namespace",
	[ECGNAMESPACECONTROLLER - 50000] = "namespace controller does not exist",
	[ECGMOUNTNAMESPACE - 50000] = "neither mount nor namespace given",
	[ECGROUPUNSUPP - 50000] = "not supported by this kernel",
	[ECGCANTSETVALUE - 50000] = "a value could not be set",
	[ECGNONEMPTY - 50000] = "the group is not empty",
};

static const char *ecg_text(int code)
{
	int i = code - 50000;

	if (i >= 0 && (size_t)i < sizeof(ecg_texts) / sizeof(ecg_texts[0]) && ecg_texts[i] != NULL)
		return ecg_texts[i];
	return "unknown libcgroup error";
}

static int ecg_errno(int code)
{
	switch (code) {
	case ECGOTHER: {
		int e = cgroup_get_last_errno();

		return e > 0 ? e : EIO;
	}
	case ECGROUPNOTMOUNTED:
	case ECGROUPSUBSYSNOTMOUNTED:
		return ENODEV;
	case ECGROUPNOTEXIST:
	case ECGROUPVALUENOTEXIST:
		return ENOENT;
	case ECGROUPNOTOWNER:
	case ECGROUPNOTALLOWED:
		return EPERM;
	case ECGINVAL:
		return EINVAL;
	case ECGROUPUNSUPP:
		return EOPNOTSUPP;
	case ECGNONEMPTY:
		return EBUSY;
	default:
		return EIO;
	}
}

/* Convert a libcgroup code at the call site: "what: text (libcgroup error N)". */
static int ecg_error(struct lab_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int ecg_error(struct lab_error *err, int code, const char *fmt, ...)
{
	char what[LAB_ERROR_MSG_MAX / 2];
	int e = ecg_errno(code);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (code == ECGOTHER)
		return lab_error_set(err, e, "%s: %s%s%s%s", what, strerror(e),
				     libcg_log[0] ? " (libcgroup: " : "", libcg_log,
				     libcg_log[0] ? ")" : "");
	return lab_error_set(err, e, "%s: %s (libcgroup error %d)%s%s%s", what, ecg_text(code),
			     code, libcg_log[0] ? " (libcgroup: " : "", libcg_log,
			     libcg_log[0] ? ")" : "");
}

static int libcg_init(struct lab_error *err)
{
	int ret;

	if (libcg_ready)
		return 0;
	cgroup_set_logger(libcg_logger, CGROUP_LOG_WARNING, NULL);
	libcg_log[0] = '\0';
	ret = cgroup_init();
	if (ret != 0) {
		if (ret == ECGROUPNOTMOUNTED)
			return lab_error_set(err, ENODEV, "no cgroup hierarchy is mounted "
					     "(mount cgroup2 on /sys/fs/cgroup)");
		return ecg_error(err, ret, "cgroup_init");
	}
	libcg_ready = true;
	return 0;
}

/* A struct cgroup named rel holding only the memory controller. */
static struct cgroup *libcg_memory_group(const char *rel, struct cgroup_controller **ctl,
					 struct lab_error *err)
{
	struct cgroup *cg = cgroup_new_cgroup(rel);
	struct cgroup_controller *c;

	if (cg == NULL) {
		lab_error_set(err, ENOMEM, "cgroup_new_cgroup %s failed", rel);
		return NULL;
	}
	c = cgroup_add_controller(cg, "memory");
	if (c == NULL) {
		cgroup_free(&cg);
		lab_error_set(err, ENOMEM, "cgroup_add_controller memory for %s failed", rel);
		return NULL;
	}
	if (ctl != NULL)
		*ctl = c;
	return cg;
}

/* ---- small helpers ------------------------------------------------------- */

/* Append to a message already set (never pass err->msg itself as an argument). */
static void error_append(struct lab_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void error_append(struct lab_error *err, const char *fmt, ...)
{
	size_t len;
	va_list ap;

	if (err == NULL)
		return;
	len = strlen(err->msg);
	if (len + 1 >= sizeof(err->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
}

/* a + "/" + b without doubled slashes; a is "/" or "/x/y", b a name or path. */
static int path_join(char *out, size_t len, const char *a, const char *b)
{
	size_t alen = strlen(a);
	int n;

	while (*b == '/')
		b++;
	if (alen > 0 && a[alen - 1] == '/')
		n = snprintf(out, len, "%s%s", a, b);
	else
		n = snprintf(out, len, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One unsigned decimal or "max" (UINT64_MAX), an optional newline, nothing else. */
static int parse_u64_or_max(const char *s, unsigned long long *val)
{
	char *end;

	if (strncmp(s, "max", 3) == 0 && (s[3] == '\0' || (s[3] == '\n' && s[4] == '\0'))) {
		*val = UINT64_MAX;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -EINVAL;
	if (*end == '\n')
		end++;
	return *end == '\0' ? 0 : -EINVAL;
}

/* v1 prints "no limit" as PAGE_COUNTER_MAX pages in bytes (LONG_MAX rounded
 * down to a page: mm/page_counter.c, mm/memcontrol-v1.c); report it as max. */
static unsigned long long v1_unlimited_to_max(unsigned long long v)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);

	if (v >= ((unsigned long long)LLONG_MAX / page) * page)
		return UINT64_MAX;
	return v;
}

static bool swap_active(void)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	const char *nl;

	if (lab_read_file("/proc/swaps", &buf, NULL, &e) < 0)
		return false;
	nl = strchr(buf, '\n');       /* the header line */
	return nl != NULL && nl[1] != '\0';
}

/* Does the whitespace-separated list in file (cgroup.controllers,
 * cgroup.subtree_control) name word?  -errno when unreadable. */
static int file_lists_word(const char *file, const char *word, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char *tok, *save = NULL;
	int ret;

	ret = lab_read_file(file, &buf, NULL, err);
	if (ret < 0)
		return ret;
	for (tok = strtok_r(buf, " \t\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\n", &save))
		if (strcmp(tok, word) == 0)
			return 1;
	return 0;
}

/* ---- probing --------------------------------------------------------------- */

/* Which cgroup filesystems are mounted (/proc/self/mountinfo: the fstype is
 * the first field after the " - " separator). */
static int scan_mountinfo(bool *v1, bool *v2, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char *line, *save = NULL;
	int ret;

	*v1 = *v2 = false;
	ret = lab_read_file("/proc/self/mountinfo", &buf, NULL, err);
	if (ret < 0)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, " - ");
		size_t n;

		if (sep == NULL)
			continue;
		sep += 3;
		n = strcspn(sep, " ");
		if (n == 6 && strncmp(sep, "cgroup", 6) == 0)
			*v1 = true;
		else if (n == 7 && strncmp(sep, "cgroup2", 7) == 0)
			*v2 = true;
	}
	return 0;
}

/* If the harness already sits in its own v2 lab leaf (<own>/pagelab-<pid>/ctl),
 * its own cgroup is the one above the lab group. */
static void strip_own_lab(char *self)
{
	char tail[64];
	size_t slen = strlen(self), tlen;

	snprintf(tail, sizeof(tail), "/pagelab-%d/ctl", (int)getpid());
	tlen = strlen(tail);
	if (slen >= tlen && strcmp(self + slen - tlen, tail) == 0) {
		self[slen - tlen] = '\0';
		if (self[0] == '\0')
			strcpy(self, "/");
	}
}

int sandbox_probe(struct cg_host *out, struct lab_error *err)
{
	enum lab_libcg_version lv = LAB_LIBCG_UNK;
	char *mnt = NULL;
	char own[PATH_MAX + 4096];
	bool v1, v2;
	int ret;

	memset(out, 0, sizeof(*out));
	out->memory = CG_VERSION_NONE;
	ret = scan_mountinfo(&v1, &v2, err);
	if (ret < 0)
		return ret;
	out->hybrid = v1 && v2;
	snprintf(out->mode, sizeof(out->mode), "%s",
		 v1 && v2 ? "hybrid" : v2 ? "v2" : v1 ? "v1" : "none");
	if (!v1 && !v2)
		return lab_error_set(err, ENODEV, "no cgroup filesystem is mounted");

	ret = libcg_init(err);
	if (ret < 0)
		return ret;
	libcg_log[0] = '\0';
	ret = cgroup_get_subsys_mount_point("memory", &mnt);
	if (ret != 0 || mnt == NULL)
		return lab_error_set(err, ENODEV, "no memory controller is mounted (neither a v1 "
				     "\"memory\" hierarchy nor \"memory\" in the v2 root's "
				     "cgroup.controllers)");
	if ((size_t)snprintf(out->mount, sizeof(out->mount), "%s", mnt) >= sizeof(out->mount)) {
		free(mnt);
		return lab_error_set(err, ENAMETOOLONG, "memory mount point too long");
	}
	free(mnt);
	ret = cgroup_get_controller_version("memory", &lv);
	if (ret != 0)
		return ecg_error(err, ret, "cgroup_get_controller_version(memory)");
	if (lv == LAB_LIBCG_V1)
		out->memory = CG_VERSION_V1;
	else if (lv == LAB_LIBCG_V2)
		out->memory = CG_VERSION_V2;
	else
		return lab_error_set(err, ENODEV, "libcgroup cannot tell the version of the "
				     "memory hierarchy at %s", out->mount);

	probe_mount_root(out->mount, out->memory);
	if (strncmp(cg_mount_root, "/..", 3) == 0 && (cg_mount_root[3] == '\0' || cg_mount_root[3] == '/')) {
		/* kernel/cgroup/cgroup.c: cgroup_show_path prints a mount root
		 * above our cgroup namespace's root as "/..": the mount shows
		 * cgroups that /proc/self/cgroup cannot name, and "/" there would
		 * be the top of the whole hierarchy, far above our own cgroup. */
		out->memory = CG_VERSION_NONE;
		return lab_error_set(err, EXDEV, "pagelab runs in a cgroup namespace, but the "
				     "hierarchy at %s was mounted outside it (mount root %s): mount "
				     "the cgroup filesystem again inside the namespace", out->mount,
				     cg_mount_root);
	}
	ret = sandbox_cgroup_of(0, out->memory, out->self, sizeof(out->self), err);
	if (ret < 0) {
		out->memory = CG_VERSION_NONE;
		return lab_error_prefix(err, "own memory cgroup");
	}
	if (out->memory == CG_VERSION_V2)
		strip_own_lab(out->self);
	if (path_join(own, sizeof(own), out->mount, out->self) < 0) {
		out->memory = CG_VERSION_NONE;
		return lab_error_set(err, ENAMETOOLONG, "own cgroup path too long");
	}
	if (!path_exists(own)) {
		ret = errno;
		out->memory = CG_VERSION_NONE;
		return lab_error_errno(err, ret, "own memory cgroup %s (from /proc/self/cgroup) is "
				       "not visible under %s (a cgroup namespace or a private mount?)",
				       out->self, out->mount);
	}
	if (out->memory == CG_VERSION_V2 && strcmp(out->self, "/") != 0) {
		char ctrl[PATH_MAX + 4096 + 32];

		snprintf(ctrl, sizeof(ctrl), "%s/cgroup.controllers", own);
		ret = file_lists_word(ctrl, "memory", err);
		if (ret < 0) {
			out->memory = CG_VERSION_NONE;
			return ret;
		}
		if (ret == 0) {
			out->memory = CG_VERSION_NONE;
			return lab_error_set(err, ENODEV, "the memory controller is not delegated to "
					     "pagelab's cgroup %s (its parent's cgroup.subtree_control "
					     "lacks memory); run pagelab where memory is delegated, "
					     "e.g. systemd-run --scope -p Delegate=yes", out->self);
		}
	}
	return 0;
}

/* ---- killing and removing -------------------------------------------------- */

/* The pids listed in dir/cgroup.procs: count returned, -ENOENT if gone. */
static int read_procs(const char *dir, pid_t *pids, size_t max, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	char path[PATH_MAX + 4096 + 32];
	char *p, *end;
	int n = 0, ret;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	ret = lab_read_file(path, &buf, NULL, err);
	if (ret == -ENODEV)
		ret = lab_error_set(err, ENOENT, "%s is gone", dir);
	if (ret < 0)
		return ret;
	for (p = buf; *p != '\0'; p = end) {
		unsigned long v;

		while (*p == '\n')
			p++;
		if (*p == '\0')
			break;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || end == p || (*end != '\n' && *end != '\0') || v == 0 || v > INT_MAX)
			return lab_error_set(err, EINVAL, "%s: bad line", path);
		if ((size_t)n < max)
			pids[n] = (pid_t)v;
		n++;
	}
	return n;
}

/* Kill everything in the cgroup at dir (absolute).  v2: cgroup.kill when the
 * kernel has it (5.14+; it also covers descendants), else SIGKILL to each pid
 * in cgroup.procs, again until the file reads empty or the wait runs out.
 * Exited processes leave cgroup.procs at exit (kernel/cgroup/cgroup.c:
 * cgroup_exit), so unreaped zombies do not keep it busy; reaping our own
 * children is the caller's job. */
static int kill_dir(const char *dir, enum cg_version v, struct lab_error *err)
{
	long long deadline = now_ms() + SANDBOX_KILL_WAIT_MS;
	pid_t pids[256];
	bool used_kill = false;
	int n;

	if (v == CG_VERSION_V2) {
		char kpath[PATH_MAX + 4096 + 32];
		struct lab_error e;

		snprintf(kpath, sizeof(kpath), "%s/cgroup.kill", dir);
		if (path_exists(kpath) && lab_write_file(kpath, "1", &e) == 0)
			used_kill = true;
	}
	for (;;) {
		int i;

		n = read_procs(dir, pids, sizeof(pids) / sizeof(pids[0]), err);
		if (n == -ENOENT) {
			lab_error_clear(err);
			return 0;
		}
		if (n < 0)
			return n;
		if (n == 0)
			return 0;
		for (i = 0; i < n && (size_t)i < sizeof(pids) / sizeof(pids[0]); i++) {
			if (pids[i] == getpid())
				return lab_error_set(err, EDEADLK, "%s holds pagelab itself (pid %d); "
						     "refusing to kill it", dir, (int)pids[i]);
			if (!used_kill && kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
				return lab_error_errno(err, errno, "kill %d in %s", (int)pids[i], dir);
		}
		if (now_ms() >= deadline)
			return lab_error_set(err, EBUSY, "%d process(es) still in %s %d ms after "
					     "SIGKILL (first: %d; stuck in uninterruptible sleep?)",
					     n, dir, SANDBOX_KILL_WAIT_MS, (int)pids[0]);
		used_kill = false;      /* from now on signal what is left one by one */
		sleep_ms(10);
	}
}

/* rmdir through libcgroup (EMPTY_ONLY: it never touches the parent), then
 * confirm with stat, since EMPTY_ONLY may report success and leave the group. */
static int remove_group(const char *mount, const char *rel, struct lab_error *err)
{
	char abs[PATH_MAX + 4096];
	struct cgroup *cg;
	int ret, n;
	pid_t pids[1];
	struct lab_error e;

	if (path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	if (!path_exists(abs))
		return 0;
	cg = libcg_memory_group(rel, NULL, err);
	if (cg == NULL)
		return -ENOMEM;
	libcg_log[0] = '\0';
	ret = cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY);
	cgroup_free(&cg);
	if (!path_exists(abs))
		return 0;
	n = read_procs(abs, pids, 1, &e);
	if (ret != 0 && ret != ECGNONEMPTY)
		return ecg_error(err, ret, "remove cgroup %s", abs);
	if (n > 0)
		return lab_error_set(err, EBUSY, "cgroup %s is still there: %d process(es) inside "
				     "(first: %d)", abs, n, (int)pids[0]);
	return lab_error_set(err, EBUSY, "cgroup %s is still there after rmdir (a child "
			     "group inside?)", abs);
}

/* Kill and remove dir and everything below it, children first. */
static int remove_tree(const char *mount, const char *rel, enum cg_version v, int depth,
		       struct lab_error *err)
{
	char abs[PATH_MAX + 4096];
	DIR *d;
	struct dirent *de;
	int ret;

	if (depth > SANDBOX_SWEEP_DEPTH)
		return lab_error_set(err, ELOOP, "cgroup %s nests deeper than pagelab makes groups",
				     rel);
	if (path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	d = opendir(abs);
	if (d == NULL)
		return errno == ENOENT ? 0 : lab_error_errno(err, errno, "open %s", abs);
	while ((de = readdir(d)) != NULL) {
		char child[4096];

		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (path_join(child, sizeof(child), rel, de->d_name) < 0) {
			closedir(d);
			return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
		}
		ret = remove_tree(mount, child, v, depth + 1, err);
		if (ret < 0) {
			closedir(d);
			return ret;
		}
	}
	closedir(d);
	ret = kill_dir(abs, v, err);
	if (ret < 0)
		return ret;
	return remove_group(mount, rel, err);
}

/* ---- sweep ------------------------------------------------------------------ */

/* "pagelab-<pid>-<n>" (v1) or "pagelab-<pid>" (v2); the pid, or -1. */
static long stale_name_pid(const char *name, enum cg_version v)
{
	const char *p = name + 8;
	char *end;
	unsigned long pid, n;

	if (strncmp(name, "pagelab-", 8) != 0 || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	pid = strtoul(p, &end, 10);
	if (errno != 0 || pid == 0 || pid > INT_MAX)
		return -1;
	if (v == CG_VERSION_V2)
		return *end == '\0' ? (long)pid : -1;
	if (*end != '-' || end[1] < '0' || end[1] > '9')
		return -1;
	p = end + 1;
	n = strtoul(p, &end, 10);
	(void)n;
	return *end == '\0' && errno == 0 ? (long)pid : -1;
}

int sandbox_sweep(const struct cg_host *host, int *removed, struct lab_error *err)
{
	char own[PATH_MAX + 4096];
	DIR *d;
	struct dirent *de;
	int ret = 0, count = 0;

	if (removed != NULL)
		*removed = 0;
	if (host->memory != CG_VERSION_V1 && host->memory != CG_VERSION_V2)
		return lab_error_set(err, ENODEV, "no memory controller");
	ret = libcg_init(err);
	if (ret < 0)
		return ret;
	if (path_join(own, sizeof(own), host->mount, host->self) < 0)
		return lab_error_set(err, ENAMETOOLONG, "own cgroup path too long");
	d = opendir(own);
	if (d == NULL)
		return lab_error_errno(err, errno, "open own cgroup %s", own);
	while ((de = readdir(d)) != NULL) {
		char rel[4096];
		long pid;

		if (de->d_type != DT_DIR)
			continue;
		pid = stale_name_pid(de->d_name, host->memory);
		if (pid < 0 || pid == (long)getpid())
			continue;
		/* A live pid (or one we may not signal) keeps its groups: a sweep
		 * must never pull a running pagelab's sandbox from under it. */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (path_join(rel, sizeof(rel), host->self, de->d_name) < 0) {
			ret = lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
			break;
		}
		ret = remove_tree(host->mount, rel, host->memory, 0, err);
		if (ret < 0) {
			lab_error_prefix(err, "sweep stale %s", de->d_name);
			break;
		}
		count++;
	}
	closedir(d);
	if (removed != NULL)
		*removed = count;
	return ret < 0 ? ret : 0;
}

/* ---- the sandbox -------------------------------------------------------------- */

struct sandbox {
	enum cg_version version;
	char mount[4096];
	char rel[4096];                 /* relative to mount */
	char path[PATH_MAX + 4096];     /* absolute directory */
	int dirfd;                      /* O_PATH|O_DIRECTORY of path */
	bool self;                      /* pagelab's own cgroup (sandbox_adopt_self): never removed */
};

static unsigned next_sandbox_n;

/* v2: the lab group <own>/pagelab-<pid> with the harness in its leaf ctl,
 * shared by all sandboxes of this process. */
static struct {
	bool made;
	int nr_live;
	char mount[4096];
	char own[4096];                 /* pagelab's own cgroup (rel) */
	char orig[4096];                /* where the harness was before ctl (rel) */
	char lab[4096];                 /* <own>/pagelab-<pid> (rel) */
	char ctl[4096];                 /* <lab>/ctl (rel) */
	bool own_enabled;               /* we wrote +memory to own's subtree_control */
	bool lab_enabled;
} v2lab;

static int attach_pid(const char *rel, pid_t pid, struct lab_error *err)
{
	struct cgroup *cg = libcg_memory_group(rel, NULL, err);
	int ret;

	if (cg == NULL)
		return -ENOMEM;
	libcg_log[0] = '\0';
	ret = cgroup_attach_task_pid(cg, pid);
	cgroup_free(&cg);
	if (ret != 0)
		return ecg_error(err, ret, "move pid %d into cgroup %s", (int)pid, rel);
	return 0;
}

/* Move the harness itself on v2 by writing cgroup.procs.  Not through
 * libcgroup: 2.0.2's cgroup_attach_task_pid first checks that the PARENT's
 * cgroup.subtree_control lists memory (api.c: cgroupv2_controller_enabled)
 * and answers ECGROUPNOTMOUNTED otherwise; but the lab group's subtree_control
 * can only list memory once the harness has left own for ctl (the
 * no-internal-process rule), so the first move would always fail (measured
 * in the Debian 6.12 and 6.1 guests: "move pid 184 into cgroup
 * /pagelab-184/ctl: no cgroup hierarchy is mounted (libcgroup error 50001)"). */
static int v2_move_self(const char *mount, const char *rel, struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], abs[PATH_MAX + 4096], val[32];

	if (path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	snprintf(path, sizeof(path), "%s/cgroup.procs", abs);
	snprintf(val, sizeof(val), "%d", (int)getpid());
	return lab_write_file(path, val, err);
}

static int subtree_control(const char *mount, const char *rel, const char *op,
			   struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], abs[PATH_MAX + 4096];

	if (path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", abs);
	return lab_write_file(path, op, err);
}

static int subtree_has_memory(const char *mount, const char *rel, struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], abs[PATH_MAX + 4096];

	if (path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", abs);
	return file_lists_word(path, "memory", err);
}

/* Undo v2_lab_setup, in reverse: the memory controller off in the lab and in
 * our own cgroup (a cgroup with controllers enabled for its children may not
 * hold processes, Documentation/admin-guide/cgroup-v2.rst "No Internal
 * Process Constraint", so own must be plain again before the harness returns
 * to it), the harness back home, then ctl and the lab group removed. */
static int file_in(const char *dir, const char *name);

static int v2_lab_teardown(struct lab_error *err)
{
	const char *mount = v2lab.mount;
	/* "/" is the hierarchy's real root only outside a cgroup namespace: in a
	 * container's (cgroupns private, Docker's default on v2) "/" is the
	 * container's own cgroup, a non-root one, which the no-internal-process
	 * rule binds.  The real root has no memory.max (mm/memcontrol.c:
	 * CFTYPE_NOT_ON_ROOT); measured in a 6.12 guest under unshare --cgroup. */
	bool own_is_root = strcmp(v2lab.own, "/") == 0 && !file_in(mount, "memory.max");
	struct lab_error e;
	int ret;

	if (!v2lab.made)
		return 0;
	if (v2lab.lab_enabled) {
		ret = subtree_control(mount, v2lab.lab, "-memory", &e);
		if (ret < 0 && ret != -ENOENT)
			return lab_error_set(err, e.code, "tear down lab group %s: %s; pagelab stays "
					     "in %s, remove %s and %s after it exits", v2lab.lab,
					     e.msg, v2lab.ctl, v2lab.ctl, v2lab.lab);
		v2lab.lab_enabled = false;
	}
	if (v2lab.own_enabled && !own_is_root) {
		ret = subtree_control(mount, v2lab.own, "-memory", &e);
		if (ret < 0)
			return lab_error_set(err, e.code, "cannot switch the memory controller off "
					     "again in %s/cgroup.subtree_control (%s); pagelab stays "
					     "in %s, remove %s and %s after it exits", v2lab.own,
					     e.msg, v2lab.ctl, v2lab.ctl, v2lab.lab);
		v2lab.own_enabled = false;
	}
	ret = v2_move_self(mount, v2lab.orig, &e);
	if (ret < 0) {
		if (e.code == EBUSY || e.code == EOPNOTSUPP)
			return lab_error_set(err, e.code, "cannot move pagelab back to %s: cgroup v2's "
					     "no-internal-process rule (%s has controllers enabled "
					     "for its children); pagelab stays in %s, remove %s and "
					     "%s after it exits", v2lab.orig, v2lab.orig, v2lab.ctl,
					     v2lab.ctl, v2lab.lab);
		return lab_error_set(err, e.code, "%s; pagelab stays in %s, remove %s and %s after "
				     "it exits", e.msg, v2lab.ctl, v2lab.ctl, v2lab.lab);
	}
	ret = remove_group(mount, v2lab.ctl, err);
	if (ret == 0)
		ret = remove_group(mount, v2lab.lab, err);
	if (ret < 0)
		return lab_error_prefix(err, "remove lab group");
	/* When own is the root (a pagelab guest's /init), memory stays enabled
	 * in the root's subtree_control: the root may hold processes and
	 * controllers together, and switching it off would take the memory
	 * controller away from every other child of the root. */
	v2lab.own_enabled = false;
	v2lab.made = false;
	return 0;
}

/* Documentation/admin-guide/cgroup-v2.rst: controllers reach a cgroup only
 * through its parent's cgroup.subtree_control, and a non-root cgroup with
 * controllers enabled there may hold no processes.  So the harness first
 * moves into a leaf of its own lab group (<own>/pagelab-<pid>/ctl); then
 * memory is switched on for own's children (own is now empty unless other
 * processes share it) and for the lab's children, and sandboxes are created
 * beside ctl.  Moving the harness into the lab group itself instead makes
 * enabling memory there fail with EBUSY (measured). */
static int v2_lab_setup(const struct cg_host *host, struct lab_error *err)
{
	char abs[PATH_MAX + 4096];
	struct lab_error e;
	int ret;

	memset(&v2lab, 0, sizeof(v2lab));
	snprintf(v2lab.mount, sizeof(v2lab.mount), "%s", host->mount);
	snprintf(v2lab.own, sizeof(v2lab.own), "%s", host->self);
	{
		char name[32];

		snprintf(name, sizeof(name), "pagelab-%d", (int)getpid());
		if (path_join(v2lab.lab, sizeof(v2lab.lab), host->self, name) < 0 ||
		    path_join(v2lab.ctl, sizeof(v2lab.ctl), v2lab.lab, "ctl") < 0)
			return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	}
	ret = sandbox_cgroup_of(0, CG_VERSION_V2, v2lab.orig, sizeof(v2lab.orig), err);
	if (ret < 0)
		return ret;

	/* The lab and ctl groups carry no values: plain mkdir.  (libcgroup
	 * 2.0.2's cgroup_create_cgroup for a v2 memory group writes "+memory"
	 * into the subtree_control of every ancestor, which must wait until the
	 * harness has left own.) */
	path_join(abs, sizeof(abs), host->mount, v2lab.lab);
	if (mkdir(abs, 0755) < 0) {
		if (errno == EEXIST)
			return lab_error_set(err, EEXIST, "cgroup %s already exists, left by an "
					     "earlier process with pagelab's pid; remove it by hand",
					     abs);
		return lab_error_errno(err, errno, "create lab group %s", abs);
	}
	v2lab.made = true;
	path_join(abs, sizeof(abs), host->mount, v2lab.ctl);
	if (mkdir(abs, 0755) < 0) {
		ret = lab_error_errno(err, errno, "create %s", abs);
		goto undo;
	}
	ret = v2_move_self(host->mount, v2lab.ctl, err);
	if (ret < 0)
		goto undo;

	ret = subtree_has_memory(host->mount, v2lab.own, err);
	if (ret < 0)
		goto undo;
	if (ret == 0) {
		ret = subtree_control(host->mount, v2lab.own, "+memory", &e);
		if (ret < 0) {
			if (e.code == EBUSY)
				ret = lab_error_set(err, EBUSY, "cannot enable memory for the children "
						    "of %s: other processes share that cgroup with "
						    "pagelab (cgroup v2's no-internal-process rule); "
						    "start pagelab in a cgroup of its own", v2lab.own);
			else
				ret = lab_error_set(err, e.code, "%s", e.msg);
			goto undo;
		}
		v2lab.own_enabled = true;
	}
	ret = subtree_control(host->mount, v2lab.lab, "+memory", err);
	if (ret < 0)
		goto undo;
	v2lab.lab_enabled = true;
	return 0;

undo: {
		struct lab_error e2;

		if (v2_lab_teardown(&e2) < 0)
			error_append(err, "; and undoing failed too: %s", e2.msg);
		memset(&v2lab, 0, sizeof(v2lab));
		return ret;
	}
}

static int file_in(const char *dir, const char *name)
{
	char p[PATH_MAX + 4096 + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return path_exists(p);
}

static int read_u64_at(const struct sandbox *sb, const char *v2name, unsigned long long *val,
		       struct lab_error *err);

int sandbox_create(const struct cg_host *host, const struct sandbox_spec *spec,
		   struct sandbox **out, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	enum cg_version v = host->memory;
	struct cgroup *cg = NULL;
	struct cgroup_controller *ctl = NULL;
	struct sandbox *sb;
	char parent[PATH_MAX + 4096], name[64];
	const char *parent_rel;
	unsigned n;
	int ret;

	*out = NULL;
	if (v != CG_VERSION_V1 && v != CG_VERSION_V2)
		return lab_error_set(err, ENODEV, "no memory controller to make a sandbox with");
	if (spec->values.val[SB_MEMORY_MAX] < page)
		return lab_error_set(err, EINVAL, "sandbox memory_max %llu is below one page (%llu)",
				     spec->values.val[SB_MEMORY_MAX], page);
	ret = libcg_init(err);
	if (ret < 0)
		return ret;

	sb = calloc(1, sizeof(*sb));
	if (sb == NULL)
		return lab_error_errno(err, ENOMEM, "sandbox");
	sb->dirfd = -1;
	sb->version = v;
	snprintf(sb->mount, sizeof(sb->mount), "%s", host->mount);

	if (v == CG_VERSION_V2 && !v2lab.made) {
		ret = v2_lab_setup(host, err);
		if (ret < 0)
			goto fail_free;
	}
	parent_rel = v == CG_VERSION_V2 ? v2lab.lab : host->self;
	n = next_sandbox_n++;
	if (v == CG_VERSION_V2)
		snprintf(name, sizeof(name), "sandbox-%u", n);
	else
		snprintf(name, sizeof(name), "pagelab-%d-%u", (int)getpid(), n);
	if (path_join(sb->rel, sizeof(sb->rel), parent_rel, name) < 0 ||
	    path_join(sb->path, sizeof(sb->path), host->mount, sb->rel) < 0 ||
	    path_join(parent, sizeof(parent), host->mount, parent_rel) < 0) {
		ret = lab_error_set(err, ENAMETOOLONG, "sandbox path too long");
		goto fail_lab;
	}
	if (path_exists(sb->path)) {
		ret = lab_error_set(err, EEXIST, "cgroup %s already exists", sb->path);
		goto fail_lab;
	}

	/* Values are written in the order they are added (libcgroup's
	 * cgroup_set_values_recursive).  On v1 the memsw limit may never be
	 * below the memory limit (mm/memcontrol-v1.c: mem_cgroup_resize_max
	 * returns -EINVAL), so the memory limit goes first: on a new group both
	 * start unlimited.  Every file is checked in the parent first because
	 * libcgroup fails with ECGROUPVALUENOTEXIST on a missing one. */
	cg = libcg_memory_group(sb->rel, &ctl, err);
	if (cg == NULL) {
		ret = -ENOMEM;
		goto fail_lab;
	}
	ret = 0;
	for (size_t i = 0; ret == 0 && i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, v);
		char val[32];

		if (!sandbox_setting_wanted(d, &spec->values))
			continue;
		if (f == NULL || !file_in(parent, f)) {
			/* Without swap accounting there is no swap file: fine while no
			 * swap is on (nothing can be swapped). */
			if ((d->flags & SB_F_SWAP) && f != NULL && !swap_active())
				continue;
			if ((d->flags & SB_F_SWAP) && f != NULL) {
				cgroup_free(&cg);
				ret = lab_error_set(err, EOPNOTSUPP, "swap is on but %s/%s is missing (swap "
						    "accounting off: swapaccount=0 or cgroup.memory=noswap?), "
						    "so the sandbox's swap cannot be limited; swapoff -a or "
						    "enable swap accounting", parent, f);
				goto fail_lab;
			}
			/* A default the host lacks stays unwritten (oom_group on v1). */
			if (!(spec->values.given & (1u << d->id)))
				continue;
			cgroup_free(&cg);
			ret = lab_error_set(err, EOPNOTSUPP, "[sandbox] %s: %s is missing in %s (%s)", d->key,
					    f ? f : (d->v2 ? d->v2 : d->v1), parent, d->why);
			goto fail_lab;
		}
		ret = sandbox_setting_format(d, &spec->values, v, val, sizeof(val), err);
		if (ret < 0) {
			cgroup_free(&cg);
			goto fail_lab;
		}
		ret = cgroup_add_value_string(ctl, f, val);
	}
	if (ret != 0) {
		cgroup_free(&cg);
		ret = ecg_error(err, ret, "cgroup_add_value for %s", sb->rel);
		goto fail_lab;
	}
	libcg_log[0] = '\0';
	/* ignore_ownership = 1: we are root and so is every file already; 0
	 * would chown the new tree to getuid() for nothing. */
	ret = cgroup_create_cgroup(cg, 1);
	cgroup_free(&cg);
	if (ret != 0) {
		ret = ecg_error(err, ret, "create cgroup %s (memory.max %llu)", sb->path,
				spec->values.val[SB_MEMORY_MAX]);
		goto fail_group;
	}
	sb->dirfd = open(sb->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb->dirfd < 0) {
		ret = lab_error_errno(err, errno, "open %s", sb->path);
		goto fail_group;
	}

	/* Read every setting written back: the kernel keeps sizes in whole pages
	 * (mm/page_counter.c: page_counter_memparse). */
	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, v);
		cleanup_free char *buf = NULL;
		unsigned long long got, want;
		char text[32];

		if (!sandbox_setting_wanted(d, &spec->values) || f == NULL || !file_in(sb->path, f))
			continue;
		if ((ret = sandbox_setting_format(d, &spec->values, v, text, sizeof(text), err)) < 0 ||
		    (ret = lab_parse_uint(text, &want, err)) < 0)
			goto fail_group;
		if (d->type == SB_TYPE_SIZE)
			want = want / page * page;
		ret = lab_read_fileat(sb->dirfd, f, &buf, NULL, err);
		if (ret < 0)
			goto fail_group;
		if (parse_u64_or_max(buf, &got) < 0) {
			ret = lab_error_set(err, EIO, "%s/%s: not a number: %.40s", sb->path, f, buf);
			goto fail_group;
		}
		if (v == CG_VERSION_V1)
			got = v1_unlimited_to_max(got);
		if (got != want) {
			ret = lab_error_set(err, EIO, "%s/%s reads %llu, asked %llu ([sandbox] %s)", sb->path, f,
					    got, want, d->key);
			goto fail_group;
		}
	}
	if (v == CG_VERSION_V2)
		v2lab.nr_live++;
	*out = sb;
	return 0;

fail_group: {
		struct lab_error e;

		if (sb->dirfd >= 0)
			close(sb->dirfd);
		sb->dirfd = -1;
		if (remove_group(host->mount, sb->rel, &e) < 0)
			error_append(err, " (and the half-made group stays: %s)", e.msg);
	}
fail_lab:
	if (v == CG_VERSION_V2 && v2lab.made && v2lab.nr_live == 0) {
		struct lab_error e;

		if (v2_lab_teardown(&e) < 0)
			error_append(err, " (and: %s)", e.msg);
	}
fail_free:
	free(sb);
	return ret;
}

const char *sandbox_path(const struct sandbox *sb)
{
	return sb->path;
}

enum cg_version sandbox_version(const struct sandbox *sb)
{
	return sb->version;
}

int sandbox_dirfd(const struct sandbox *sb)
{
	return sb->version == CG_VERSION_V2 ? sb->dirfd : -1;
}

int sandbox_attach(struct sandbox *sb, pid_t pid, struct lab_error *err)
{
	char now[4096];
	int ret;

	if (pid <= 0 || pid == getpid())
		return lab_error_set(err, EINVAL, "will not move pid %d into the sandbox", (int)pid);
	/* v1: libcgroup writes the pid to "tasks", which moves that one thread;
	 * a workload is attached right after fork, while it has only one, and
	 * its later threads inherit the cgroup. */
	ret = attach_pid(sb->rel, pid, err);
	if (ret < 0)
		return ret;
	ret = sandbox_cgroup_of(pid, sb->version, now, sizeof(now), err);
	if (ret < 0)
		return lab_error_prefix(err, "check pid %d after the move", (int)pid);
	if (strcmp(now, sb->rel) != 0)
		return lab_error_set(err, EIO, "pid %d is in %s, not in the sandbox %s after the move",
				     (int)pid, now, sb->rel);
	return 0;
}

/* ---- reading ----------------------------------------------------------------- */

static int gone(const struct sandbox *sb, struct lab_error *err)
{
	return lab_error_set(err, ENOENT, "sandbox %s is gone", sb->path);
}

/* Read a sandbox file by its v2 name.  -EOPNOTSUPP when this version has no
 * such file; -ENOENT when the sandbox is gone (a file of a removed cgroup
 * reads ENODEV through a descriptor opened before the removal). */
static int read_at(const struct sandbox *sb, const char *v2name, char **buf,
		   struct lab_error *err)
{
	const char *name = sandbox_file_name(sb->version, v2name);
	int ret;

	if (name == NULL)
		return lab_error_set(err, EOPNOTSUPP, "%s has no cgroup v1 equivalent", v2name);
	ret = lab_read_fileat(sb->dirfd, name, buf, NULL, err);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (!path_exists(sb->path))
			return gone(sb, err);
		return lab_error_set(err, ENOENT, "%s/%s: no such file", sb->path, name);
	}
	return ret;
}

int sandbox_read_file(struct sandbox *sb, const char *v2name, char **buf, struct lab_error *err)
{
	return read_at(sb, v2name, buf, err);
}

int sandbox_read_file_buf(struct sandbox *sb, const char *v2name, struct lab_buf *b,
			  struct lab_error *err)
{
	const char *name = sandbox_file_name(sb->version, v2name);
	int ret;

	if (name == NULL)
		return lab_error_set(err, EOPNOTSUPP, "%s has no cgroup v1 equivalent", v2name);
	ret = lab_read_fileat_buf(sb->dirfd, name, b, err);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (!path_exists(sb->path))
			return gone(sb, err);
		return lab_error_set(err, ENOENT, "%s/%s: no such file", sb->path, name);
	}
	return ret;
}

static int read_u64_at(const struct sandbox *sb, const char *v2name, unsigned long long *val,
		       struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	int ret = read_at(sb, v2name, &buf, err);

	if (ret < 0)
		return ret;
	if (parse_u64_or_max(buf, val) < 0)
		return lab_error_set(err, EINVAL, "%s/%s: not a number: %.40s", sb->path,
				     sandbox_file_name(sb->version, v2name), buf);
	if (sb->version == CG_VERSION_V1)
		*val = v1_unlimited_to_max(*val);
	return 0;
}

int sandbox_read(struct sandbox *sb, struct sandbox_counters *out, struct lab_error *err)
{
	cleanup_free char *stat = NULL;
	cleanup_free char *events = NULL;
	int ret;

	out->usage_bytes = out->peak_bytes = out->limit_bytes = 0;
	out->oom_kill = out->oom_group_kill = out->oom = out->max_events = 0;
	kv_reset(&out->stat);
	kv_reset(&out->events);

	ret = read_u64_at(sb, "memory.current", &out->usage_bytes, err);
	if (ret < 0)
		return ret;
	ret = read_u64_at(sb, "memory.peak", &out->peak_bytes, err);
	if (ret == -ENOENT && path_exists(sb->path)) {
		out->peak_bytes = 0;            /* v2 before 5.19 has no memory.peak */
		lab_error_clear(err);
	} else if (ret < 0) {
		return ret;
	}
	ret = read_u64_at(sb, "memory.max", &out->limit_bytes, err);
	if (ret < 0)
		return ret;

	ret = read_at(sb, "memory.stat", &stat, err);
	if (ret < 0)
		return ret;
	ret = kv_parse_space(stat, &out->stat, err);
	if (ret < 0)
		return lab_error_prefix(err, "%s/memory.stat", sb->path);

	ret = read_at(sb, "memory.events", &events, err);
	if (ret < 0)
		return ret;
	ret = kv_parse_space(events, &out->events, err);
	if (ret < 0)
		return lab_error_prefix(err, "%s/%s", sb->path,
					sandbox_file_name(sb->version, "memory.events"));
	out->oom_kill = kv_get0(&out->events, "oom_kill");
	if (sb->version == CG_VERSION_V2) {
		/* With memory.oom.group = 1 one victim counts in oom_kill once per
		 * process of the group (mm/memcontrol.c: memcg_memory_event on each
		 * kill); oom_group_kill counts group kills (5.17+). */
		out->oom_group_kill = kv_get0(&out->events, "oom_group_kill");
		out->oom = kv_get0(&out->events, "oom");
		out->max_events = kv_get0(&out->events, "max");
	} else {
		/* v1: memory.failcnt counts hits of the memory limit; it stays 0
		 * when memsw equals the limit (the memsw counter fails first). */
		cleanup_free char *fc = NULL;
		unsigned long long v = 0;

		ret = lab_read_fileat(sb->dirfd, "memory.failcnt", &fc, NULL, err);
		if (ret == -ENOENT || ret == -ENODEV)
			return gone(sb, err);
		if (ret < 0)
			return ret;
		if (parse_u64_or_max(fc, &v) < 0)
			return lab_error_set(err, EINVAL, "%s/memory.failcnt: not a number", sb->path);
		out->max_events = v;
	}
	return 0;
}

void sandbox_counters_free(struct sandbox_counters *c)
{
	if (c == NULL)
		return;
	kv_free(&c->stat);
	kv_free(&c->events);
}

int sandbox_nr_procs(struct sandbox *sb, struct lab_error *err)
{
	pid_t pids[1];
	int n = read_procs(sb->path, pids, 1, err);

	if (n == -ENOENT)
		return gone(sb, err);
	return n;
}

int sandbox_reclaim(struct sandbox *sb, unsigned long long bytes, struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], val[32];
	struct lab_error e;
	int ret;

	if (sb->version != CG_VERSION_V2)
		return lab_error_set(err, EOPNOTSUPP, "memory.reclaim needs cgroup v2 (this memory "
				     "controller is v1)");
	snprintf(path, sizeof(path), "%s/memory.reclaim", sb->path);
	snprintf(val, sizeof(val), "%llu", bytes);
	ret = lab_write_file(path, val, &e);
	if (ret == 0)
		return 0;
	if (ret == -ENOENT) {
		if (!path_exists(sb->path))
			return gone(sb, err);
		return lab_error_set(err, EOPNOTSUPP, "%s is missing (kernel older than 5.19)", path);
	}
	if (ret == -EAGAIN)
		/* mm/memcontrol.c: memory_reclaim gives up after
		 * MAX_RECLAIM_RETRIES rounds that fell short. */
		return lab_error_set(err, EAGAIN, "memory.reclaim of %llu bytes in %s: the kernel "
				     "reclaimed less than asked", bytes, sb->path);
	return lab_error_set(err, e.code, "%s", e.msg);
}

static int self_kill_children(struct sandbox *sb, struct lab_error *err);

int sandbox_kill(struct sandbox *sb, struct lab_error *err)
{
	int ret = sb->self ? self_kill_children(sb, err) : kill_dir(sb->path, sb->version, err);

	if (ret < 0)
		return lab_error_prefix(err, "kill sandbox");
	return 0;
}

static int self_destroy(struct sandbox *sb, struct lab_error *err);

int sandbox_destroy(struct sandbox *sb, struct lab_error *err)
{
	int ret, ret2 = 0;

	if (sb == NULL)
		return 0;
	if (sb->self)
		return self_destroy(sb, err);
	ret = kill_dir(sb->path, sb->version, err);
	if (sb->dirfd >= 0)
		close(sb->dirfd);
	sb->dirfd = -1;
	if (ret == 0)
		ret = remove_group(sb->mount, sb->rel, err);
	if (ret < 0)
		lab_error_prefix(err, "destroy sandbox (%s stays; `pagelab` sweeps it once this "
				 "process is gone)", sb->rel);
	if (sb->version == CG_VERSION_V2) {
		if (v2lab.nr_live > 0)
			v2lab.nr_live--;
		if (v2lab.nr_live == 0 && v2lab.made) {
			struct lab_error e;

			ret2 = v2_lab_teardown(&e);
			if (ret2 < 0) {
				if (ret < 0)
					error_append(err, "; and: %s", e.msg);
				else
					lab_error_set(err, e.code, "%s", e.msg);
			}
		}
	}
	free(sb);
	return ret < 0 ? ret : ret2;
}

/* ---- pagelab's own cgroup as the sandbox (`pagelab run --sandbox self`) ------
 *
 * The MADV_FREE article's rig: `docker run --memory 1g --memory-swap 1g`, the
 * container's own memory cgroup is the sandbox.  Nothing is created or
 * written: the limits are read and compared with the scenario's, the
 * workloads start in pagelab's own cgroup (clone3 into it on v2, where
 * fork's child is already there; v1 re-attaches a pid that is already in
 * place), and the counters are read from it.  Everything else in that cgroup
 * (pagelab itself, the container's shell) is charged there too: the caller
 * records the usage found before the first workload as the baseline. */

static int self_open(const struct cg_host *host, struct sandbox **out, struct lab_error *err)
{
	struct sandbox *sb;

	*out = NULL;
	if (host->memory != CG_VERSION_V1 && host->memory != CG_VERSION_V2)
		return lab_error_set(err, ENODEV, "--sandbox self: no memory controller to read "
				     "the container's limit from");
	sb = calloc(1, sizeof(*sb));
	if (sb == NULL)
		return lab_error_errno(err, ENOMEM, "sandbox");
	sb->version = host->memory;
	sb->self = true;
	snprintf(sb->mount, sizeof(sb->mount), "%s", host->mount);
	snprintf(sb->rel, sizeof(sb->rel), "%s", host->self);
	if (strcmp(host->self, "/") == 0) {
		snprintf(sb->path, sizeof(sb->path), "%s", host->mount);
	} else if (path_join(sb->path, sizeof(sb->path), host->mount, host->self) < 0) {
		free(sb);
		return lab_error_set(err, ENAMETOOLONG, "own cgroup path too long");
	}
	sb->dirfd = open(sb->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (sb->dirfd < 0) {
		int e = errno;

		free(sb);
		return lab_error_errno(err, e, "open own cgroup %s", host->self);
	}
	*out = sb;
	return 0;
}

static void size_text(unsigned long long v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu bytes (%llu MiB)", v, v >> 20);
}

/* Every other setting the scenario states must read as stated in pagelab's
 * own cgroup (sizes in whole pages): nothing is written under --sandbox self. */
static int self_verify_others(struct sandbox *sb, const struct sandbox_values *sv, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < SB_NR_SETTINGS; i++) {
		const struct sandbox_setting *d = &sandbox_settings[i];
		const char *f = sandbox_setting_file(d, sb->version);
		unsigned long long want = sv->val[d->id], got;
		cleanup_free char *buf = NULL;
		char a[64], b[64];
		int ret;

		if (d->id == SB_MEMORY_MAX || d->id == SB_SWAP_MAX || !(sv->given & (1u << d->id)) ||
		    !sandbox_setting_wanted(d, sv))
			continue;
		if (f == NULL)
			return lab_error_set(err, ERANGE, "--sandbox self: [sandbox] %s has no file on this cgroup "
					     "version (%s)", d->key, d->why);
		ret = lab_read_fileat(sb->dirfd, f, &buf, NULL, err);
		if (ret < 0)
			return lab_error_prefix(err, "--sandbox self: %s/%s", sb->path, f);
		if (parse_u64_or_max(buf, &got) < 0)
			return lab_error_set(err, EINVAL, "--sandbox self: %s/%s: not a number: %.40s", sb->path, f, buf);
		if (sb->version == CG_VERSION_V1)
			got = v1_unlimited_to_max(got);
		if (d->type == SB_TYPE_SIZE)
			want = want / page * page;
		if (got != want) {
			if (d->type == SB_TYPE_SIZE) {
				size_text(got, a, sizeof(a));
				size_text(want, b, sizeof(b));
			} else {
				snprintf(a, sizeof(a), "%llu", got);
				snprintf(b, sizeof(b), "%llu", want);
			}
			return lab_error_set(err, ERANGE, "--sandbox self: %s of pagelab's own cgroup %s is %s, the "
					     "scenario's %s is %s: give the container that %s, or --set %s=... "
					     "to match", f, sb->path, a, d->key, b, f, d->key);
		}
	}
	return 0;
}

/* The limits found must be the scenario's: memory.max = memory_max (whole
 * pages, mm/page_counter.c: page_counter_memparse) and no more swap than
 * swap_max (v1: memsw = limit + swap; v2: memory.swap.max).  -ERANGE names
 * the limit that differs and the engine flags that would make it right. */
static int self_verify(struct sandbox *sb, const struct sandbox_spec *spec, struct lab_error *err)
{
	unsigned long long page = (unsigned long long)sysconf(_SC_PAGESIZE);
	const struct sandbox_values *sv = &spec->values;
	unsigned long long want = sv->val[SB_MEMORY_MAX] / page * page, got, swap;
	const char *lim = sandbox_file_name(sb->version, "memory.max");
	const char *swf = sandbox_file_name(sb->version, "memory.swap.max");
	char a[64], b[64];
	int ret;

	ret = read_u64_at(sb, "memory.max", &got, err);
	if (ret < 0)
		return lab_error_prefix(err, "--sandbox self");
	if (got != want) {
		size_text(got, a, sizeof(a));
		size_text(want, b, sizeof(b));
		return lab_error_set(err, ERANGE, "--sandbox self: the memory limit of pagelab's own cgroup is "
				     "%s (%s of %s), the scenario asks for %s: start the "
				     "container with --memory %llum --memory-swap %llum, or run "
				     "with --set memory_max=... to match", a, lim, sb->path, b,
				     want >> 20, (want + sv->val[SB_SWAP_MAX]) >> 20);
	}
	ret = self_verify_others(sb, sv, err);
	if (ret < 0)
		return ret;
	if (!file_in(sb->path, swf)) {
		if (swap_active())
			return lab_error_set(err, ERANGE, "--sandbox self: swap is on but %s/%s is "
					     "missing (swap accounting off), so the container's swap "
					     "is not limited; swapoff -a or enable swap accounting",
					     sb->path, swf);
		return 0;               /* no swap area: nothing can be swapped */
	}
	ret = read_u64_at(sb, "memory.swap.max", &got, err);
	if (ret < 0)
		return lab_error_prefix(err, "--sandbox self");
	if (sb->version == CG_VERSION_V1)
		swap = got == UINT64_MAX ? UINT64_MAX : got - (got >= want ? want : got);
	else
		swap = got;
	if (swap != sv->val[SB_SWAP_MAX]) {
		size_text(swap, a, sizeof(a));
		size_text(got, b, sizeof(b));
		return lab_error_set(err, ERANGE, "--sandbox self: the container may swap %s (%s of "
				     "%s: %s), the scenario allows %llu bytes: start the "
				     "container with --memory-swap equal to --memory (%llum)", a,
				     swf, sb->path, b, sv->val[SB_SWAP_MAX],
				     (want + sv->val[SB_SWAP_MAX]) >> 20);
	}
	return 0;
}

int sandbox_self_check(const struct cg_host *host, const struct sandbox_spec *spec,
		       struct lab_error *err)
{
	struct sandbox *sb;
	int ret = self_open(host, &sb, err);

	if (ret < 0)
		return ret;
	ret = self_verify(sb, spec, err);
	close(sb->dirfd);
	free(sb);
	return ret;
}

int sandbox_adopt_self(const struct cg_host *host, const struct sandbox_spec *spec,
		       struct sandbox **out, unsigned long long *baseline_bytes,
		       struct lab_error *err)
{
	struct sandbox *sb;
	int ret;

	*out = NULL;
	ret = self_open(host, &sb, err);
	if (ret < 0)
		return ret;
	ret = self_verify(sb, spec, err);
	if (ret == 0 && baseline_bytes != NULL)
		ret = read_u64_at(sb, "memory.current", baseline_bytes, err);
	if (ret < 0) {
		close(sb->dirfd);
		free(sb);
		return ret;
	}
	*out = sb;
	return 0;
}

bool sandbox_is_self(const struct sandbox *sb)
{
	return sb->self;
}

/* The parent pid of pid from /proc/PID/stat ("pid (comm) S ppid ..."),
 * or -1 when it is gone. */
static pid_t parent_of(pid_t pid)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	char path[64], *p, *end;
	unsigned long v;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (lab_read_file(path, &buf, NULL, &e) < 0)
		return -1;
	p = strrchr(buf, ')');          /* comm may hold spaces and ')' */
	if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return -1;
	errno = 0;
	v = strtoul(p + 4, &end, 10);
	if (errno != 0 || end == p + 4 || *end != ' ' || v > INT_MAX)
		return -1;
	return (pid_t)v;
}

/* Kill what pagelab started in its own cgroup: its children there (the
 * workloads), never itself nor the container's other processes. */
static int self_kill_children(struct sandbox *sb, struct lab_error *err)
{
	long long deadline = now_ms() + SANDBOX_KILL_WAIT_MS;
	pid_t pids[1024];

	for (;;) {
		int n = read_procs(sb->path, pids, sizeof(pids) / sizeof(pids[0]), err), left = 0;

		if (n < 0)
			return n;
		for (int i = 0; i < n && (size_t)i < sizeof(pids) / sizeof(pids[0]); i++) {
			if (pids[i] == getpid() || parent_of(pids[i]) != getpid())
				continue;
			left++;
			if (kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
				return lab_error_errno(err, errno, "kill %d in %s", (int)pids[i],
						       sb->path);
		}
		if (left == 0)
			return 0;
		if (now_ms() >= deadline)
			return lab_error_set(err, EBUSY, "%d workload(s) of pagelab still in %s %d ms "
					     "after SIGKILL", left, sb->path, SANDBOX_KILL_WAIT_MS);
		sleep_ms(10);
	}
}

static int self_destroy(struct sandbox *sb, struct lab_error *err)
{
	int ret = self_kill_children(sb, err);

	if (sb->dirfd >= 0)
		close(sb->dirfd);
	free(sb);
	if (ret < 0)
		return lab_error_prefix(err, "release own cgroup as sandbox");
	return 0;
}

/* ---- the settings against this host ------------------------------------- */

struct own_dir {
	char path[PATH_MAX + 4096];
	bool has_files;         /* false at a v2 root, which has no memory.* interface files */
};

static bool own_has_file(const char *name, void *ctx)
{
	const struct own_dir *od = ctx;

	if (name[0] == '/')
		return access(name, F_OK) == 0;
	/* A sandbox below a v2 root: the root cannot tell, creating will. */
	return !od->has_files || file_in(od->path, name);
}

int sandbox_check_settings(const struct cg_host *host, const struct sandbox_spec *spec,
			   struct lab_error *err)
{
	struct own_dir od;

	if (path_join(od.path, sizeof(od.path), host->mount, host->self) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	od.has_files = host->memory == CG_VERSION_V1 || file_in(od.path, "memory.max");
	return sandbox_values_check(&spec->values, host->memory, own_has_file, &od, err);
}
