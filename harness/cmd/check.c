/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/check.c — `pagelab check` (harness/cmd/cli.md). */
#include "cmd.h"
#include "host/host.h"

int cmd_check(int argc, char **argv)
{
	return host_check_main(argc, argv);
}
