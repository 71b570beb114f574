/* cli.h — what the subcommands share from harness/main.c (the command table). */
#ifndef PAGELAB_CLI_H
#define PAGELAB_CLI_H

/* `pagelab --help`: every subcommand and the run options (harness/cli.md). */
extern const char cli_usage_text[];

#endif
