/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.h — the sandbox's pure parts: which file a setting or counter is on
 * cgroup v1 and v2, and the parsers of what /proc says about cgroups.  A
 * buffer in, a result out: no file is read (tests/unit/test_sandbox_names.c
 * links this and the settings table alone). */
#ifndef PAGELAB_SANDBOX_NAMES_H
#define PAGELAB_SANDBOX_NAMES_H

#include <stddef.h>

#include "settings.h"

/* The name of a sandbox file on cgroup version v, given its canonical v2
 * name ("memory.max" -> "memory.limit_in_bytes" on v1).  NULL when v has no
 * such file (memory.reclaim, memory.oom.group, cgroup.kill on v1) or the name
 * is not in the table. */
const char *sandbox_file_name(enum cg_version v, const char *v2name);

/* Pure parser of /proc/PID/cgroup: the path of the memory controller's line
 * (v1: "N:a,memory,b:/path") or of the unified line (v2: "0::/path") into
 * out.  0, -ENOENT (no such line), -EINVAL (malformed), -ENAMETOOLONG. */
int sandbox_parse_proc_cgroup(const char *buf, enum cg_version v, char *out, size_t outlen);

/* Pure parser of /proc/PID/mountinfo: the "root" field (the cgroup path the
 * mount shows at its top) of the cgroup (v1) or cgroup2 (v2) mount at mount
 * into out: "/" on a host, the container's own cgroup inside a container
 * without a cgroup namespace.  The last such mount wins.  0, -ENOENT,
 * -EINVAL, -ENAMETOOLONG. */
int sandbox_parse_mount_root(const char *mountinfo, const char *mount, enum cg_version v,
			     char *out, size_t outlen);

/* Make a /proc/PID/cgroup path relative to a mount whose root is root:
 * ("/a/b", "/a/b/c") -> "/c", ("/a/b", "/a/b") -> "/"; a path outside root,
 * or root "/", leaves path as it is. */
void sandbox_strip_mount_root(const char *root, char *path);

/* One cgroup value: an unsigned decimal or "max" (UINT64_MAX), an optional
 * newline, nothing else.  0 or -EINVAL. */
int sandbox_parse_value(const char *s, unsigned long long *val);

#endif
