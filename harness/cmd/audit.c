/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/audit.c — `pagelab audit` (harness/cmd/cli.md). */
#include "cmd.h"
#include "host/audit.h"

int cmd_audit(int argc, char **argv)
{
	return audit_main(argc, argv);
}
