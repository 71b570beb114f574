/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress.c — see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>

void lab_say(const struct lab_progress *p, enum lab_say kind, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (p == NULL || p->fn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);   /* a longer line is cut, never overrun */
	va_end(ap);
	p->fn(p->ctx, kind, line);
}
