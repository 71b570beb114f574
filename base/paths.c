/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.c — the data and workload directories of an in-tree or installed pagelab (paths.h). */
#include "paths.h"
#include "trust.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PAGELAB_SOURCE_DIR
#define PAGELAB_SOURCE_DIR "."
#endif
/* bindir -> datadir/pagelab and libexecdir/pagelab, relative (CMakeLists.txt
 * computes them from GNUInstallDirs, so a packager's libexecdir is honoured). */
#ifndef PAGELAB_DATA_REL
#define PAGELAB_DATA_REL "../share/pagelab"
#endif
#ifndef PAGELAB_LIBEXEC_REL
#define PAGELAB_LIBEXEC_REL "../libexec/pagelab"
#endif

static char data_dir[PATH_MAX];
static bool resolved, installed;

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory of /proc/self/exe, or "" when it cannot be read. */
static void exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

static void resolve(void)
{
	const char *env = getenv("PAGELAB_DATA_DIR");
	char exe[PATH_MAX], cand[PATH_MAX + 64], scn[PATH_MAX + 80];

	if (resolved)
		return;
	resolved = true;
	exe_dir(exe, sizeof(exe));
	if (exe[0] && (size_t)snprintf(cand, sizeof(cand), "%s/%s", exe, PAGELAB_DATA_REL) < sizeof(cand) &&
	    (size_t)snprintf(scn, sizeof(scn), "%s/scenarios", cand) < sizeof(scn) && is_dir(scn) &&
	    realpath(cand, data_dir) != NULL)
		installed = true;
	if (env && *env && strlen(env) < sizeof(data_dir))
		snprintf(data_dir, sizeof(data_dir), "%s", env);
	else if (!installed)
		snprintf(data_dir, sizeof(data_dir), "%s", PAGELAB_SOURCE_DIR);
}

const char *lab_data_dir(void)
{
	resolve();
	return data_dir;
}

int lab_data_dir_check(struct lab_error *err)
{
	const char *env;
	int ret = lab_trust_env_dir("PAGELAB_DATA_DIR", &env, err);

	if (ret < 0)
		return ret;
	return env != NULL;
}

bool lab_installed(void)
{
	resolve();
	return installed;
}

bool lab_installed_libexec(char *buf, size_t len)
{
	char exe[PATH_MAX];

	if (!lab_installed())
		return false;
	exe_dir(exe, sizeof(exe));
	return exe[0] && (size_t)snprintf(buf, len, "%s/%s", exe, PAGELAB_LIBEXEC_REL) < len;
}
