/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/report.c — `pagelab report` (harness/cmd/cli.md). */
#include "cmd.h"
#include "read/report/report.h"

int cmd_report(int argc, char **argv)
{
	return report_main(argc, argv);
}
