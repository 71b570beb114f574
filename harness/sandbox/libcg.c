/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libcg.c — libcgroup 2.0.2 (Debian 12) for the sandbox (internal.h): mount
 * discovery, creating a group with its values, moving a process, removing a
 * group; and everything it gets wrong or does not do, done by hand (as
 * measured on v1 and v2):
 *
 *   - removal: only ever cgroup_delete_cgroup_ext(CGFLAG_DELETE_EMPTY_ONLY).
 *     Plain cgroup_delete_cgroup() first opens the PARENT's tasks file for
 *     writing to migrate tasks, and the parent is the supervisor's cgroup.
 *     EMPTY_ONLY can return 0 and leave a non-empty group in place, so every
 *     removal is confirmed with stat();
 *   - error texts: cgroup_strerror() is off by one from code 50023 (its table
 *     has no entry for the unused 50022), so codes are named here;
 *   - its messages: without a logger of our own it prints them to stdout.
 * (The cgroup of a pid, killing, values that can read "max" and
 * memory.reclaim are done by hand elsewhere: probe.c, util.c, sandbox.c.)
 */
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcgroup.h>

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
int sb_ecg_error(struct lab_error *err, int code, const char *fmt, ...)
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

int sb_libcg_init(struct lab_error *err)
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
		return sb_ecg_error(err, ret, "cgroup_init");
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

void sb_libcg_log_clear(void)
{
	libcg_log[0] = '\0';
}

int sb_libcg_memory_mount(char *mount, size_t len, enum cg_version *v, struct lab_error *err)
{
	enum lab_libcg_version lv = LAB_LIBCG_UNK;
	char *mnt = NULL;
	int ret;

	*v = CG_VERSION_NONE;
	libcg_log[0] = '\0';
	ret = cgroup_get_subsys_mount_point("memory", &mnt);
	if (ret != 0 || mnt == NULL)
		return lab_error_set(err, ENODEV, "no memory controller is mounted (neither a v1 "
				     "\"memory\" hierarchy nor \"memory\" in the v2 root's "
				     "cgroup.controllers)");
	if ((size_t)snprintf(mount, len, "%s", mnt) >= len) {
		free(mnt);
		return lab_error_set(err, ENAMETOOLONG, "memory mount point too long");
	}
	free(mnt);
	ret = cgroup_get_controller_version("memory", &lv);
	if (ret != 0)
		return sb_ecg_error(err, ret, "cgroup_get_controller_version(memory)");
	if (lv == LAB_LIBCG_V1)
		*v = CG_VERSION_V1;
	else if (lv == LAB_LIBCG_V2)
		*v = CG_VERSION_V2;
	else
		return lab_error_set(err, ENODEV, "libcgroup cannot tell the version of the "
				     "memory hierarchy at %s", mount);
	return 0;
}

/* Values are written in the order they are added (libcgroup's
 * cgroup_set_values_recursive): the caller orders them. */
int sb_libcg_create(const char *rel, const char *const *names, const char *const *values, size_t n,
		    const char *what, struct lab_error *err)
{
	struct cgroup_controller *ctl = NULL;
	struct cgroup *cg = libcg_memory_group(rel, &ctl, err);
	int ret = 0;

	if (cg == NULL)
		return -ENOMEM;
	for (size_t i = 0; ret == 0 && i < n; i++)
		ret = cgroup_add_value_string(ctl, names[i], values[i]);
	if (ret != 0) {
		cgroup_free(&cg);
		return sb_ecg_error(err, ret, "cgroup_add_value for %s", rel);
	}
	libcg_log[0] = '\0';
	/* ignore_ownership = 1: we are root and so is every file already; 0
	 * would chown the new tree to getuid() for nothing. */
	ret = cgroup_create_cgroup(cg, 1);
	cgroup_free(&cg);
	if (ret != 0)
		return sb_ecg_error(err, ret, "create %s", what);
	return 0;
}

int sb_attach_pid(const char *rel, pid_t pid, struct lab_error *err)
{
	struct cgroup *cg = libcg_memory_group(rel, NULL, err);
	int ret;

	if (cg == NULL)
		return -ENOMEM;
	libcg_log[0] = '\0';
	ret = cgroup_attach_task_pid(cg, pid);
	cgroup_free(&cg);
	if (ret != 0)
		return sb_ecg_error(err, ret, "move pid %d into cgroup %s", (int)pid, rel);
	return 0;
}

/* rmdir through libcgroup (EMPTY_ONLY: it never touches the parent), then
 * confirm with stat, since EMPTY_ONLY may report success and leave the group. */
int sb_remove_group(const char *mount, const char *rel, struct lab_error *err)
{
	char abs[PATH_MAX + 4096];
	struct cgroup *cg;
	int ret, n;
	pid_t pids[1];
	struct lab_error e;

	if (sb_path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	if (!sb_path_exists(abs))
		return 0;
	cg = libcg_memory_group(rel, NULL, err);
	if (cg == NULL)
		return -ENOMEM;
	libcg_log[0] = '\0';
	ret = cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY);
	cgroup_free(&cg);
	if (!sb_path_exists(abs))
		return 0;
	n = sb_read_procs(abs, pids, 1, &e);
	if (ret != 0 && ret != ECGNONEMPTY)
		return sb_ecg_error(err, ret, "remove cgroup %s", abs);
	if (n > 0)
		return lab_error_set(err, EBUSY, "cgroup %s is still there: %d process(es) inside "
				     "(first: %d)", abs, n, (int)pids[0]);
	return lab_error_set(err, EBUSY, "cgroup %s is still there after rmdir (a child "
			     "group inside?)", abs);
}
