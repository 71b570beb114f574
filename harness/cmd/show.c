/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/show.c — `pagelab show` (harness/cmd/cli.md). */
#include "cmd.h"
#include "run/run.h"

int cmd_show(int argc, char **argv)
{
	return run_show_main(argc, argv);
}
