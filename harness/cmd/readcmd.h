/* SPDX-License-Identifier: GPL-2.0-or-later */
/* readcmd.h — what the commands share, the reading ones (report, plot,
 * compare) most: how a library's warnings and errors reach the terminal.  Every line is
 * "pagelab WHO: TEXT" on stderr with TEXT through lab_esc_term (a file name
 * or a document's string never puts a control character on a terminal),
 * and never empty: an error without a message says what failed and why. */
#ifndef PAGELAB_READCMD_H
#define PAGELAB_READCMD_H

#include <stdio.h>

#include "base/error.h"
#include "base/progress.h"

/* A progress sink that writes "pagelab WHO: LINE" (who: "report"). */
struct lab_progress readcmd_progress(const char **who);

/* One line for a library's failure ret (-errno) with err. */
void readcmd_fail(const char *who, int ret, const struct lab_error *err);

/* One line of the command's own ("pagelab WHO: ...", or "pagelab: ..."
 * when who is NULL), escaped: every command's errors and warnings take
 * this way, for a message may quote a scenario's line, a file's name, an
 * argument or what a guest wrote. */
void readcmd_say(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A message of several lines by design (a scenario's reasons it cannot
 * run here, one a line): the first as readcmd_say's, the rest as they are,
 * each escaped. */
void readcmd_say_lines(const char *who, const char *text);

/* A path (or any text from outside) on o, escaped, then a newline. */
void readcmd_line(FILE *o, const char *text);

/* getopt_long's '?' and ':' as one line naming the option (optstring starts
 * with ':'); takes says what a missing value should be ("a directory"). */
int readcmd_bad_option(const char *who, int c, char *const *argv, const char *takes);

/* The exit status of a drawing library's return (plot, a page, plots):
 * 0 drawn; 3 no gnuplot (-ENOPKG); 2 bad input or a refused output
 * directory (-EINVAL -ENOENT -EEXIST -ENOTDIR -ELOOP -EPERM -EACCES
 * -ENAMETOOLONG -EFBIG); 1 the rest (gnuplot failed, out of memory, a
 * write failed). */
int readcmd_draw_status(int ret);

struct compare_opts;
struct floor;
/* The calibration timings are judged by (compare, report --html): arg
 * "none" none, a FILE that one (refused: -errno), NULL the default
 * location's file when there is one (harness/read/floor.h).  Sets o->floor
 * and o->floor_optional; *f is freed by floor_free. */
int readcmd_floor(const char *arg, struct compare_opts *o, struct floor **f, struct lab_error *err);

#endif
