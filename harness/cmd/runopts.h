/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/runopts.h — the run options of harness/cmd/cli.md parsed in one place,
 * for `pagelab run` (cmd/run.c) and `pagelab vm ... run` (harness/vm/vm.c),
 * and written out again for another pagelab (a guest's, the host's under
 * `vm --host`).  The options themselves are struct run_opts (run/run.h), the
 * pipeline's input. */
#ifndef PAGELAB_CMD_RUNOPTS_H
#define PAGELAB_CMD_RUNOPTS_H

#include "run/run.h"

enum run_opts_for {
	RUN_OPTS_RUN,           /* `pagelab run` */
	RUN_OPTS_VM,            /* `pagelab vm ... run`: no --out (one result per target), no --sandbox */
};

/* argv[0] is "run".  getopt_long, permuting: options and NAME|FILE in any
 * order, `--` ends the options.  0, or an exit status after printing one
 * line (--help prints the usage and exits 0). */
int run_opts_parse(int argc, char **argv, enum run_opts_for what, struct run_opts *o);

/* The options in a canonical form for another pagelab: appends at most
 * 2 * RUN_MAX_SETS + 9 pointers to argv, numbers kept in buf. */
struct run_opts_argv {
	char *argv[2 * RUN_MAX_SETS + 12];
	int argc;
	char buf[4][32];
};
void run_opts_forward(const struct run_opts *o, struct run_opts_argv *out);

/* The pipeline's progress lines on stderr, "pagelab: " first ("warning: " for
 * a warning): the lab_progress of `run` and `fit`. */
void run_say(void *ctx, enum lab_say kind, const char *line);

/* The exit status of exitcode.h for how the pipeline ended. */
int run_end_status(enum run_end end);

#endif
