/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h — what the subcommands share from harness/cmd/main.c (the command table). */
#ifndef PAGELAB_CLI_H
#define PAGELAB_CLI_H

/* `pagelab --help`: every subcommand and the run options (harness/cmd/cli.md). */
extern const char cli_usage_text[];

#include <string.h>

/* "--name VALUE" or "--name=VALUE" at argv[*i] (advancing *i past a separate value).
 * Returns 1 matched (*val set), 0 not this option, -1 the value is missing. */
static inline int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return 0;
	if (argv[*i][n] == '=') {
		*val = argv[*i] + n + 1;
		return 1;
	}
	if (argv[*i][n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 1;
}

#endif
