/* SPDX-License-Identifier: GPL-2.0-or-later */
/* catalog.c — NAME|PATH to a scenario file (catalog.h). */
#include "catalog.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/trust.h"

static int put(char *buf, size_t len, const char *s, const char *suffix, struct lab_error *err)
{
	if ((size_t)snprintf(buf, len, "%s%s", s, suffix) >= len)
		return lab_error_set(err, ENAMETOOLONG, "scenario directory path too long: %s", s);
	return 0;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The catalogue, and whether it came from the environment (then each file
 * found in it is checked too). */
static int locate(char *buf, size_t len, bool *from_env, struct lab_error *err)
{
	const char *env;
	char exe[PATH_MAX];
	ssize_t n;
	int ret;

	*from_env = false;
	if ((ret = lab_trust_env_dir("PAGELAB_SCENARIOS", &env, err)) < 0)
		return ret;
	if (env != NULL) {
		*from_env = true;
		return put(buf, len, env, "", err);
	}
	/* A tree unpacked with its binary (bin/pagelab beside bin/scenarios):
	 * as trustworthy as the binary root runs. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (strrchr(exe, '/'))
			*strrchr(exe, '/') = '\0';
		if (put(buf, len, exe, "/scenarios", err) == 0 && is_dir(buf))
			return 0;
	}
	if ((ret = lab_data_dir_check(err)) < 0)
		return ret;
	*from_env = ret > 0;
	return put(buf, len, lab_data_dir(), "/scenarios", err);
}

int catalog_dir(char *buf, size_t len, struct lab_error *err)
{
	bool from_env;

	return locate(buf, len, &from_env, err);
}

bool catalog_is_name(const char *arg)
{
	size_t n = strlen(arg);
	bool word_start = true;

	if (n == 0 || (n > 4 && strcmp(arg + n - 4, ".scn") == 0))
		return false;
	for (const char *p = arg; *p; p++) {
		if (*p == '/') {
			if (word_start)
				return false;   /* a leading '/', or '//' */
			word_start = true;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return false;
		if (word_start && (*p == '.' || *p == '-'))
			return false;   /* no ".", "..", hidden or option-like words */
		word_start = false;
	}
	return !word_start;             /* not ending in '/' */
}

bool catalog_is_file(const char *arg)
{
	if (arg[0] == '/' || strncmp(arg, "./", 2) == 0 || strncmp(arg, "../", 3) == 0)
		return true;
	return strchr(arg, '/') != NULL && !catalog_is_name(arg);
}

int catalog_find(const char *arg, char *path, size_t plen, struct lab_error *err)
{
	char dir[PATH_MAX];
	bool from_env;
	struct stat st;
	int ret;

	if (catalog_is_file(arg)) {
		if ((size_t)snprintf(path, plen, "%s", arg) >= plen)
			return lab_error_set(err, ENAMETOOLONG, "path too long: %s", arg);
		return 0;
	}
	if (!catalog_is_name(arg))
		return lab_error_set(err, EINVAL, "'%s' is neither a scenario name (like madv-free/probe: `pagelab list` "
				     "shows them) nor a path: a file of this directory is named ./%s", arg, arg);
	ret = locate(dir, sizeof(dir), &from_env, err);
	if (ret < 0)
		return ret;
	if ((size_t)snprintf(path, plen, "%s/%s.scn", dir, arg) >= plen)
		return lab_error_set(err, ENAMETOOLONG, "scenario name too long: %s", arg);
	if (lstat(path, &st) < 0)
		return lab_error_set(err, ENOENT,
				     "unknown scenario '%s' (no %s; `pagelab list` shows the known ones)", arg,
				     path);
	if (from_env)
		return lab_trust_path(path, "scenario file", LAB_TRUST_FILE, " (in a catalogue named by the "
				      "environment: chown root and chmod go-w it)", err);
	return 0;
}
