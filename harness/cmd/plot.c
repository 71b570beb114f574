/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/plot.c — `pagelab plot` (harness/cmd/cli.md). */
#include "cmd.h"
#include "read/plot.h"

int cmd_plot(int argc, char **argv)
{
	return plot_main(argc, argv);
}
