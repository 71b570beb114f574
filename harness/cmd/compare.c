/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/compare.c — `pagelab compare` (harness/cmd/cli.md). */
#include "cmd.h"
#include "read/compare.h"

int cmd_compare(int argc, char **argv)
{
	return compare_main(argc, argv);
}
