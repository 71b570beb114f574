/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/run.c — `pagelab run` (harness/cmd/cli.md). */
#include "cmd.h"
#include "run/run.h"

int cmd_run(int argc, char **argv)
{
	return run_main(argc, argv);
}
