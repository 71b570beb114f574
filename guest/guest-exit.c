/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guest-exit — end a pagelab QEMU guest with an exit status the host can read.
 *
 *   guest-exit CODE      (CODE 0..127)
 *
 * vm-run starts QEMU with `-device isa-debug-exit,iobase=0xf4,iosize=0x04`. A write of
 * CODE to I/O port 0xf4 makes QEMU exit at once with status (CODE << 1) | 1
 * (qemu hw/misc/debugexit.c: debug_exit_write), so the host can tell "the guest's init
 * said CODE" (odd statuses) from "QEMU stopped for another reason" (0 on power-off or
 * reboot, 124 from timeout(1)). Only the low 7 bits of CODE survive the shift into an
 * 8-bit process status.
 *
 * Why a C helper and not busybox `dd of=/dev/port`: Debian's cloud kernels are built
 * without CONFIG_DEVPORT, so /dev/port does not exist there; ioperm(2) needs only
 * CONFIG_X86_IOPL_IOPERM, which all of Debian's amd64 kernels have. vm-guest-init uses
 * this helper when present and falls back to /dev/port, then to poweroff.
 *
 * Built static by guest/vm-run (gcc -static -Os) into .cache/vm/bin/.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

#define DEBUG_EXIT_PORT 0xf4

int main(int argc, char **argv)
{
	char *end = NULL;
	unsigned long code;

	if (argc != 2) {
		fprintf(stderr, "usage: guest-exit CODE (0..127)\n");
		return 2;
	}
	errno = 0;
	code = strtoul(argv[1], &end, 0);
	if (errno != 0 || end == argv[1] || *end != '\0' || code > 127) {
		fprintf(stderr, "guest-exit: CODE must be 0..127, not '%s'\n", argv[1]);
		return 2;
	}
	sync();
	if (ioperm(DEBUG_EXIT_PORT, 4, 1) < 0) {
		fprintf(stderr, "guest-exit: ioperm(0x%x): %s (the kernel needs CONFIG_X86_IOPL_IOPERM)\n",
			DEBUG_EXIT_PORT, strerror(errno));
		return 1;
	}
	outb((unsigned char)code, DEBUG_EXIT_PORT);
	/* Still here: QEMU has no isa-debug-exit device at that port. */
	fprintf(stderr, "guest-exit: no isa-debug-exit device at port 0x%x\n", DEBUG_EXIT_PORT);
	return 1;
}
