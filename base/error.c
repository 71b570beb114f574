/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int ret_of(int code)
{
	return code > 0 ? -code : -1;
}

int lab_error_set(struct lab_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return ret_of(code);
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return ret_of(code);
}

int lab_error_errno(struct lab_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	if (err == NULL)
		return ret_of(code);
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	if (len < sizeof(err->msg))
		snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(code));
	return ret_of(code);
}

int lab_error_prefix(struct lab_error *err, const char *fmt, ...)
{
	char head[LAB_ERROR_MSG_MAX];
	char both[2 * LAB_ERROR_MSG_MAX + 2];
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	snprintf(both, sizeof(both), "%s: %s", head, err->msg);
	snprintf(err->msg, sizeof(err->msg), "%.*s", (int)sizeof(err->msg) - 1, both);
	return ret_of(err->code);
}

void lab_error_clear(struct lab_error *err)
{
	if (err == NULL)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}
