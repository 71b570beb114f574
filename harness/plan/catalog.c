/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "catalog.h"
#include "base/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static int put(char *buf, size_t len, const char *s, const char *suffix, struct lab_error *err)
{
	if ((size_t)snprintf(buf, len, "%s%s", s, suffix) >= len)
		return lab_error_set(err, ENAMETOOLONG, "scenario directory path too long: %s", s);
	return 0;
}

int catalog_dir(char *buf, size_t len, struct lab_error *err)
{
	const char *env = getenv("PAGELAB_SCENARIOS");
	struct stat st;
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return put(buf, len, env, "", err);
	if (stat("scenarios", &st) == 0 && S_ISDIR(st.st_mode))
		return put(buf, len, "scenarios", "", err);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (strrchr(exe, '/'))
			*strrchr(exe, '/') = '\0';
		if (put(buf, len, exe, "/scenarios", err) == 0 && stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
	}
	return put(buf, len, lab_data_dir(), "/scenarios", err);
}

bool catalog_is_file(const char *arg)
{
	size_t n = strlen(arg);

	if (strchr(arg, '/') != NULL &&
	    ((n > 4 && !strcmp(arg + n - 4, ".scn")) || arg[0] == '/' || arg[0] == '.'))
		return true;
	return access(arg, F_OK) == 0;
}

int catalog_find(const char *arg, char *path, size_t plen, struct lab_error *err)
{
	char dir[PATH_MAX];
	int ret;

	if (catalog_is_file(arg)) {
		if ((size_t)snprintf(path, plen, "%s", arg) >= plen)
			return lab_error_set(err, ENAMETOOLONG, "path too long: %s", arg);
		return 0;
	}
	ret = catalog_dir(dir, sizeof(dir), err);
	if (ret < 0)
		return ret;
	if ((size_t)snprintf(path, plen, "%s/%s.scn", dir, arg) >= plen)
		return lab_error_set(err, ENAMETOOLONG, "scenario name too long: %s", arg);
	if (access(path, F_OK) < 0)
		return lab_error_set(err, ENOENT,
				     "unknown scenario '%s' (no %s; `pagelab list` shows the known ones)", arg,
				     path);
	return 0;
}
