/* unit.h — the smallest test helper that says what failed and where. */
#ifndef PAGELAB_UNIT_H
#define PAGELAB_UNIT_H

#include <stdio.h>
#include <string.h>

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

static inline int unit_report(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
