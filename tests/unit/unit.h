/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit.h — the smallest test helper that says what failed and where, and
 * walks the captured files under tests/fixtures. */
#ifndef PAGELAB_UNIT_H
#define PAGELAB_UNIT_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"

static int unit_failed;
static int unit_checks;

#define CHECK(cond) do { \
	unit_checks++; \
	if (!(cond)) { \
		unit_failed++; \
		fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
	} \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	unsigned long long a_ = (a), b_ = (b); \
	unit_checks++; \
	if (a_ != b_) { \
		unit_failed++; \
		fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", \
			__FILE__, __LINE__, #a, a_, #b, b_); \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	unit_checks++; \
	if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0) { \
		unit_failed++; \
		fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", \
			__FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} \
} while (0)

/* s holds sub, e.g. an error message that names the line it is about. */
#define CHECK_CONTAINS(s, sub) do { \
	const char *s_ = (s), *sub_ = (sub); \
	unit_checks++; \
	if (s_ == NULL || sub_ == NULL || strstr(s_, sub_) == NULL) { \
		unit_failed++; \
		fprintf(stderr, "%s:%d: %s == \"%s\", expected it to contain \"%s\"\n", \
			__FILE__, __LINE__, #s, s_ ? s_ : "(null)", sub_ ? sub_ : "(null)"); \
	} \
} while (0)

/* One captured file of tests/fixtures, as unit_for_each_fixture hands it over. */
struct unit_fixture {
	const char *name;       /* the capture's directory: "v1-6.18" */
	const char *dir;        /* root/name, for the files captured with it */
	const char *file;       /* the file's name: "proc-vmstat" */
	const char *buf;        /* its contents, NUL-terminated */
};

typedef void (*unit_fixture_fn)(const struct unit_fixture *f);

/* Call fn for each directory under root (sorted) that holds file, with the
 * file read whole; returns how many.  One that is there but cannot be read
 * fails the test. */
static inline int unit_for_each_fixture(const char *root, const char *file, unit_fixture_fn fn)
{
	struct dirent **ents;
	int n, i, found = 0;

	n = scandir(root, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "scandir %s: %s\n", root, strerror(errno));
		unit_failed++;
		return 0;
	}
	for (i = 0; i < n; i++) {
		char dir[PATH_MAX], path[PATH_MAX];
		struct lab_error err = { 0 };
		char *buf = NULL;

		if (ents[i]->d_name[0] == '.' ||
		    (size_t)snprintf(dir, sizeof(dir), "%s/%s", root, ents[i]->d_name) >= sizeof(dir) ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, file) >= sizeof(path) ||
		    access(path, R_OK) != 0)
			goto next;
		if (lab_read_file(path, &buf, NULL, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			unit_failed++;
			goto next;
		}
		printf("  %s/%s\n", ents[i]->d_name, file);
		fn(&(const struct unit_fixture){ .name = ents[i]->d_name, .dir = dir,
						 .file = file, .buf = buf });
		free(buf);
		found++;
next:
		free(ents[i]);
	}
	free(ents);
	return found;
}

/* argv[1], the fixtures directory (CMakeLists.txt: add_test passes
 * tests/fixtures); NULL after a usage line when it is missing. */
static inline const char *unit_fixtures_root(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return NULL;
	}
	return argv[1];
}

static inline int unit_report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
