/* SPDX-License-Identifier: GPL-2.0-or-later */
/* error.h — the one error type every fallible pagelab function fills.
 *
 * A fallible function returns a negative errno-style value and fills its last
 * argument, a struct lab_error, once.  Callers pass it up and may prepend
 * context with lab_error_prefix(); only main() prints it.
 */
#ifndef PAGELAB_ERROR_H
#define PAGELAB_ERROR_H

#include <stddef.h>

#define LAB_ERROR_MSG_MAX 1024

struct lab_error {
	int code;                       /* positive errno value, 0 = none */
	char msg[LAB_ERROR_MSG_MAX];    /* one line, no trailing newline */
};

/* Fill err with code (positive errno, may be 0) and a printf-style message.
 * Returns -code (or -1 when code is 0) so callers can `return lab_error_set(...)`. */
int lab_error_set(struct lab_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Like lab_error_set, appending ": strerror(code)". */
int lab_error_errno(struct lab_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepend "context: " to an error already set.  Returns -err->code (or -1). */
int lab_error_prefix(struct lab_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void lab_error_clear(struct lab_error *err);

#endif
