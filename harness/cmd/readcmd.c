/* SPDX-License-Identifier: GPL-2.0-or-later */
/* readcmd.c — see readcmd.h. */
#include "readcmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "base/escape.h"
#include "exitcode.h"
#include "read/compare.h"
#include "read/floor.h"

static void say_line(void *ctx, enum lab_say kind, const char *line)
{
	const char *who = *(const char **)ctx;

	(void)kind;
	fprintf(stderr, "pagelab %s: ", who);
	lab_esc_term(stderr, line);
	fputc('\n', stderr);
}

struct lab_progress readcmd_progress(const char **who)
{
	return (struct lab_progress){ .fn = say_line, .ctx = who };
}

void readcmd_fail(const char *who, int ret, const struct lab_error *err)
{
	int code = ret < 0 ? -ret : err != NULL && err->code ? err->code : EIO;

	fprintf(stderr, "pagelab %s: ", who);
	if (err != NULL && err->msg[0] != '\0')
		lab_esc_term(stderr, err->msg);
	else
		fprintf(stderr, "failed: %s", strerror(code));
	fputc('\n', stderr);
}

void readcmd_say(const char *who, const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (who != NULL)
		fprintf(stderr, "pagelab %s: ", who);
	else
		fputs("pagelab: ", stderr);
	lab_esc_term(stderr, line);
	fputc('\n', stderr);
}

void readcmd_say_lines(const char *who, const char *text)
{
	const char *p = text;

	do {
		size_t n = strcspn(p, "\n");
		char line[4096];

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		if (p == text)
			readcmd_say(who, "%s", line);
		else
			readcmd_line(stderr, line);
		p += n;
	} while (*p++ == '\n' && *p != '\0');
}

void readcmd_line(FILE *o, const char *text)
{
	lab_esc_term(o, text);
	fputc('\n', o);
}

int readcmd_bad_option(const char *who, int c, char *const *argv, const char *takes)
{
	const char *opt = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':')
		readcmd_say(who, "%s takes %s", opt, takes != NULL ? takes : "a value");
	else if (optopt != 0 && opt[0] == '-' && opt[1] != '-')
		readcmd_say(who, "unknown option '-%c' (see pagelab %s --help)", optopt, who);
	else
		readcmd_say(who, "unknown option '%s' (see pagelab %s --help)", opt, who);
	return LAB_EXIT_USAGE;
}

int readcmd_draw_status(int ret)
{
	switch (-ret) {
	case 0:
		return LAB_EXIT_RAN;
	case ENOPKG:
		return LAB_EXIT_CANNOT;
	case EINVAL: case ENOENT: case EEXIST: case ENOTDIR: case ELOOP: case EPERM: case EACCES:
	case ENAMETOOLONG: case EFBIG:
		return LAB_EXIT_USAGE;
	default:
		return LAB_EXIT_HARNESS;
	}
}

int readcmd_floor(const char *arg, struct compare_opts *o, struct floor **f, struct lab_error *err)
{
	int ret;

	*f = NULL;
	if (arg != NULL && strcmp(arg, "none") == 0)
		return 0;
	ret = floor_load(arg != NULL ? arg : FLOOR_DEFAULT_PATH, f, err);
	if (ret == -ENOENT && arg == NULL) {
		lab_error_clear(err);
		return 0;
	}
	o->floor = *f;
	o->floor_optional = arg == NULL;
	return ret;
}
