/* SPDX-License-Identifier: GPL-2.0-or-later */
/* procstat.c — one /proc/PID/stat line (procstat.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "procstat.h"

#define PF_EXITING_BIT 0x4ull           /* include/linux/sched.h */

/* A decimal number at *p, with a '-' before it when neg_ok: its magnitude
 * into *v, its sign into *neg; *p moves past it.  False when there are no
 * digits or it does not fit in 64 bits.  Not strtoull: the text is bounded
 * by end, not by a NUL (a read's length), and strtoull would also take
 * leading blanks and a '+' the kernel never prints. */
static bool number(const char **p, const char *end, bool neg_ok, bool *neg, unsigned long long *v)
{
	const char *q = *p;

	*neg = false;
	*v = 0;
	if (q < end && *q == '-' && neg_ok) {
		*neg = true;
		q++;
	}
	if (q >= end || *q < '0' || *q > '9')
		return false;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (*v > (~0ull - (unsigned)(*q - '0')) / 10)
			return false;
		*v = *v * 10 + (unsigned)(*q - '0');
	}
	*p = q;
	return true;
}

static int refuse(struct lab_procstat *out, struct lab_error *err, const char *what)
{
	memset(out, 0, sizeof(*out));
	return lab_error_set(err, EINVAL, "/proc/PID/stat: %s", what);
}

int lab_procstat_parse(const char *text, size_t len, struct lab_procstat *out, struct lab_error *err)
{
	const char *p = text, *end, *open, *close = NULL, *nl;
	unsigned long long v;
	bool neg;

	memset(out, 0, sizeof(*out));
	if (text == NULL)
		return refuse(out, err, "no text");
	/* One line: a comm may hold a newline, so the line ends at the first
	 * newline after the comm's last ')', not at the first. */
	end = text + len;
	for (const char *q = text; q < end && *q != '\0'; q++)
		if (*q == ')')
			close = q;
	if (memchr(text, '\0', len) != NULL)
		end = text + strnlen(text, len);
	if (!number(&p, end, false, &neg, &v) || v > 0x7fffffff)
		return refuse(out, err, "no pid at its start");
	out->pid = (long)v;
	if (p + 2 > end || p[0] != ' ' || p[1] != '(')
		return refuse(out, err, "no \" (\" after the pid");
	open = p + 1;
	if (close == NULL || close < open || close >= end)
		return refuse(out, err, "no ')' closing the name");
	out->comm_len = (size_t)(close - open - 1);
	memcpy(out->comm, open + 1, out->comm_len < sizeof(out->comm) ? out->comm_len : sizeof(out->comm) - 1);
	nl = memchr(close, '\n', (size_t)(end - close));
	if (nl != NULL)
		end = nl;
	p = close + 1;
	if (p + 2 > end || p[0] != ' ' || p[1] < '!' || p[1] > '~' || (p + 2 < end && p[2] != ' '))
		return refuse(out, err, "no state after the name");
	out->state = p[1];
	p += 2;
	if (p >= end)
		return refuse(out, err, "ends after the state");
	for (int field = 4; p < end; field++) {
		if (*p != ' ')
			return refuse(out, err, "fields not separated by one blank");
		p++;
		if (!number(&p, end, true, &neg, &v))
			return refuse(out, err, "a field that is not a number");
		if (field == 4) {
			if (neg || v > 0x7fffffff)
				return refuse(out, err, "ppid out of range");
			out->ppid = (long)v;
		} else if (field == 9) {
			if (neg)
				return refuse(out, err, "negative flags");
			out->flags = v;
		} else if (field == 31) {
			if (neg)
				return refuse(out, err, "negative signal mask");
			out->signal = v;
			out->has_signal = true;
		}
		if (field < 9 && p >= end)
			return refuse(out, err, "ends before the flags (field 9)");
	}
	return 0;
}

bool lab_procstat_dying(const struct lab_procstat *ps)
{
	return ps->state == 'Z' || ps->state == 'X' || ps->state == 'x' || (ps->flags & PF_EXITING_BIT) != 0 ||
	       (ps->has_signal && (ps->signal & (1ull << (SIGKILL - 1))) != 0);
}
