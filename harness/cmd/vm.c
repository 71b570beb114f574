/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd/vm.c — `pagelab vm` (harness/cmd/cli.md). */
#include "cmd.h"
#include "vm/vm.h"

int cmd_vm(int argc, char **argv)
{
	return vm_main(argc, argv);
}
