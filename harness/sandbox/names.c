/* SPDX-License-Identifier: GPL-2.0-or-later */
/* names.c — the sandbox's pure parts (names.h): the v2 <-> v1 file-name
 * table and the parsers of /proc/PID/cgroup, /proc/PID/mountinfo and a
 * cgroup value.  No file is read here. */
#include "names.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/lex.h"

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

/* v1 only, by their v1 names: the kernel memory charged to usage_in_bytes
 * besides memory.stat's rss + cache (v2 prints it as memory.stat "kernel"). */
static const char *const cg_v1_only[] = { "memory.kmem.usage_in_bytes" };

const char *sandbox_file_name(enum cg_version v, const char *v2name)
{
	size_t i;

	if (v2name == NULL)
		return NULL;
	for (i = 0; i < SB_NR_SETTINGS; i++)
		if (sandbox_settings[i].v2 != NULL && strcmp(sandbox_settings[i].v2, v2name) == 0)
			return sandbox_setting_file(&sandbox_settings[i], v);
	for (i = 0; i < sizeof(cg_v1_only) / sizeof(cg_v1_only[0]); i++)
		if (strcmp(cg_v1_only[i], v2name) == 0)
			return v == CG_VERSION_V1 ? cg_v1_only[i] : NULL;
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

/* ---- /proc/PID/cgroup and /proc/PID/mountinfo -------------------------- */

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
				match = lex_list_has(c1 + 1, (size_t)(c2 - c1 - 1), "memory", ',');
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

/* One unsigned decimal or "max" (UINT64_MAX), an optional newline, nothing else. */
int sandbox_parse_value(const char *s, unsigned long long *val)
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
