/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pattern.c — a POSIX ERE from outside, compiled within bounds (pattern.h). */
#include "pattern.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CAP (LAB_PATTERN_MAX_PARTS + 1)

static unsigned long sat(unsigned long long v)
{
	return v > CAP ? CAP : (unsigned long)v;
}

/* One group level: the parts of what it holds so far, and of its last
 * atom (what a repetition that follows applies to). */
struct level {
	unsigned long total;
	unsigned long last;
};

/* Past a bracket expression that opens at P ('['): [^]...], [:class:],
 * [.coll.], [=equiv=].  An unterminated one ends at the NUL (regcomp then
 * says so). */
static const char *past_bracket(const char *p)
{
	p++;
	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	while (*p != '\0' && *p != ']') {
		if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			char close = p[1];
			const char *q = p + 2;

			while (*q != '\0' && !(q[0] == close && q[1] == ']'))
				q++;
			if (*q == '\0')
				return q;
			p = q + 2;
			continue;
		}
		p++;
	}
	return *p == ']' ? p + 1 : p;
}

/* An interval {n}, {n,}, {n,m} or glibc's {,m} at P ('{'): how many
 * copies regcomp makes, and where it ends; 0 when it is not one (then
 * '{' counts as an atom, and regcomp refuses it). */
static unsigned long interval(const char *p, const char **end)
{
	unsigned long long n = 0, m = 0;
	bool comma = false, have_m = false;
	const char *q = p + 1;

	if ((*q < '0' || *q > '9') && *q != ',')
		return 0;
	while (*q >= '0' && *q <= '9')
		n = sat(n * 10 + (unsigned)(*q++ - '0'));
	if (*q == ',') {
		comma = true;
		q++;
		while (*q >= '0' && *q <= '9') {
			m = sat(m * 10 + (unsigned)(*q++ - '0'));
			have_m = true;
		}
	}
	if (*q != '}')
		return 0;
	*end = q + 1;
	if (have_m)
		n = m > n ? m : n;
	else if (comma)
		n = n + 1;
	return n == 0 ? 1 : sat(n);
}

/* The level's last atom repeated MULT times, plus the operator's part. */
static void repeat(struct level *l, unsigned long mult)
{
	unsigned long grown = sat((unsigned long long)l->last * mult + 1);

	l->total = sat((unsigned long long)l->total - l->last + grown);
	l->last = grown;
}

static void atom(struct level *l, unsigned long parts)
{
	l->total = sat((unsigned long long)l->total + parts);
	l->last = parts;
}

/* What came last, for *flat: a repetition over a group or over another
 * repetition, or an interval, makes a pattern not flat. */
enum last { L_NONE, L_ATOM, L_GROUP, L_REP };

/* The parts; *backref when it holds \1..\9; *flat when each repetition
 * in it is a *, + or ? right after one atom (a character, a bracket
 * expression, .): at most 510 parts, cheap to compile whatever their
 * order (pattern.h), so no trial is needed. */
static unsigned long cost(const char *pat, bool *backref, bool *flat)
{
	struct level lv[LAB_PATTERN_MAX_LEN + 2];
	size_t depth = 0, cap = sizeof(lv) / sizeof(lv[0]);
	unsigned long sum = 0;
	const char *p = pat;
	enum last last = L_NONE;

	*backref = false;
	*flat = true;
	lv[0] = (struct level){ 0, 0 };
	while (*p != '\0') {
		const char *end;
		unsigned long mult;
		enum last now = L_ATOM;

		if ((*p == '*' || *p == '?' || *p == '+' || (*p == '{' && interval(p, &end) != 0)) &&
		    (last != L_ATOM || *p == '{'))
			*flat = false;
		switch (*p) {
		case '\\':
			if (p[1] >= '1' && p[1] <= '9')
				*backref = true;
			atom(&lv[depth], 1);
			p += p[1] != '\0' ? 2 : 1;
			break;
		case '[':
			atom(&lv[depth], 1);
			p = past_bracket(p);
			break;
		case '(':
			if (depth + 1 == cap)
				return CAP;
			lv[++depth] = (struct level){ 0, 0 };
			p++;
			now = L_NONE;
			break;
		case ')':
			if (depth > 0) {
				unsigned long g = sat((unsigned long long)lv[depth].total + 1);

				depth--;
				atom(&lv[depth], g);
				now = L_GROUP;
			} else {
				atom(&lv[depth], 1);
			}
			p++;
			break;
		case '|':
			lv[depth].total = sat((unsigned long long)lv[depth].total + 1);
			lv[depth].last = 0;
			p++;
			now = L_NONE;
			break;
		case '*':
		case '?':
			repeat(&lv[depth], 1);
			p++;
			now = L_REP;
			break;
		case '+':
			repeat(&lv[depth], 2);
			p++;
			now = L_REP;
			break;
		case '{':
			if ((mult = interval(p, &end)) != 0) {
				repeat(&lv[depth], mult);
				p = end;
				now = L_REP;
			} else {
				atom(&lv[depth], 1);
				p++;
			}
			break;
		default:
			atom(&lv[depth], 1);
			p++;
			break;
		}
		last = now;
	}
	for (size_t d = 0; d <= depth; d++)
		sum = sat((unsigned long long)sum + lv[d].total);
	return sum;
}

unsigned long lab_pattern_cost(const char *pat)
{
	bool backref, flat;

	return cost(pat, &backref, &flat);
}

bool lab_pattern_flat(const char *pat)
{
	bool backref, flat;

	cost(pat, &backref, &flat);
	return flat;
}

/* The resident pages of PID (/proc/PID/statm), or -1. */
static long resident(pid_t pid)
{
	char path[64];
	long size, rss = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &rss) != 2)
		rss = -1;
	fclose(f);
	return rss;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* regcomp tried in a child, watched: 0 when it finished within the bounds,
 * else REG_ESPACE with why in MSG (the child killed). */
static int trial(const char *pat, int cflags, char *msg, size_t msglen)
{
	long page = sysconf(_SC_PAGESIZE), base, rss;
	double t0 = now_s();
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(msg, msglen, "its cost could not be tried (fork: %s)", strerror(errno));
		return REG_ESPACE;
	}
	if (pid == 0) {
		regex_t re;

		_exit(regcomp(&re, pat, cflags) == 0 ? 0 : 1);
	}
	base = resident(pid);
	for (;;) {
		struct timespec nap = { 0, 200 * 1000 };
		pid_t w = waitpid(pid, &st, WNOHANG);
		bool big, slow;

		if (w == pid || (w < 0 && errno != EINTR))
			return 0;
		rss = resident(pid);
		/* (a child that has just exited reads 0) */
		big = base >= 0 && rss > base && (unsigned long)(rss - base) * (unsigned long)page > LAB_PATTERN_MAX_BYTES;
		slow = now_s() - t0 > LAB_PATTERN_MAX_SECONDS;
		if (big || slow) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			snprintf(msg, msglen, "compiling it took more than %s (glibc's regcomp; keep repetitions of "
				 "what may match nothing shallow)", big ? "64 MiB" : "0.5 s");
			return REG_ESPACE;
		}
		nanosleep(&nap, NULL);
	}
}

int lab_pattern_compile(regex_t *re, const char *pat, int cflags, char *msg, size_t msglen)
{
	bool backref, flat;
	unsigned long parts;
	int rc;

	if (strlen(pat) > LAB_PATTERN_MAX_LEN) {
		snprintf(msg, msglen, "longer than %d bytes", LAB_PATTERN_MAX_LEN);
		return REG_ESIZE;
	}
	parts = cost(pat, &backref, &flat);
	if (backref) {
		snprintf(msg, msglen, "a back-reference (\\1 to \\9) is not POSIX ERE");
		return REG_BADPAT;
	}
	if (parts > LAB_PATTERN_MAX_PARTS) {
		snprintf(msg, msglen, "its repetitions expand to more than %lu parts", LAB_PATTERN_MAX_PARTS);
		return REG_ESIZE;
	}
	if (!flat && (rc = trial(pat, cflags, msg, msglen)) != 0)
		return rc;
	rc = regcomp(re, pat, cflags);
	if (rc != 0)
		regerror(rc, re, msg, msglen);
	return rc;
}
