/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c — where the memory hierarchy is and where pagelab stands in it
 * (sandbox.h: sandbox_probe, sandbox_cgroup_of).  /proc/self/mountinfo and
 * /proc/PID/cgroup are read here and parsed by names.c; libcgroup finds the
 * mount (libcg.c), since its cgroup_get_current_controller_path() fails on
 * v2's "0::/path". */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"

/* The cgroup path the memory hierarchy's mount shows at its top (mountinfo's
 * "root" field): "/" on a host, but the container's own cgroup inside a
 * container without a cgroup namespace (runc on v1, Docker's --cgroupns=host),
 * where /proc/PID/cgroup still prints the whole path (/a/b/libpod-<id>) while
 * the mount shows only that group and below.  Filled by sandbox_probe;
 * sandbox_cgroup_of strips it, so that paths are relative to the mount as
 * everything here expects. */
static char cg_mount_root[4096];

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

	ret = sb_libcg_init(err);
	if (ret < 0)
		return ret;
	ret = sb_libcg_memory_mount(out->mount, sizeof(out->mount), &out->memory, err);
	if (ret < 0)
		return ret;

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
	if (sb_path_join(own, sizeof(own), out->mount, out->self) < 0) {
		out->memory = CG_VERSION_NONE;
		return lab_error_set(err, ENAMETOOLONG, "own cgroup path too long");
	}
	if (!sb_path_exists(own)) {
		ret = errno;
		out->memory = CG_VERSION_NONE;
		return lab_error_errno(err, ret, "own memory cgroup %s (from /proc/self/cgroup) is "
				       "not visible under %s (a cgroup namespace or a private mount?)",
				       out->self, out->mount);
	}
	if (out->memory == CG_VERSION_V2 && strcmp(out->self, "/") != 0) {
		char ctrl[PATH_MAX + 4096 + 32];

		snprintf(ctrl, sizeof(ctrl), "%s/cgroup.controllers", own);
		ret = sb_file_lists_word(ctrl, "memory", err);
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
