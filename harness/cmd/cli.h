/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h — what the subcommands share from harness/cmd/main.c (the command table). */
#ifndef PAGELAB_CLI_H
#define PAGELAB_CLI_H

/* `pagelab --help`: every subcommand and the run options (harness/cmd/cli.md). */
extern const char cli_usage_text[];

#endif
