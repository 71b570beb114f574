/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.h — `pagelab vm`: run a scenario inside QEMU guests booted from Debian's
 * own kernels (pure cgroup v2), and optionally on this host too, and bring
 * each result document back beside the others (docs/vm.md, harness/cmd/cli.md).
 *
 *   pagelab vm [--kernel 6.1|6.12|PATH]... [--host] [--mem SIZE] [--cpus N]
 *              [--thp always|madvise|never] [--swap SIZE] [--cmdline TEXT]
 *              [--timeout S] [--out-dir DIR] [--flavour generic|cloud]
 *              [--build DIR] [--modules DIR]
 *              run NAME|FILE [run options...]
 *
 * The scenario is validated first, with the same parser and the same checks
 * as `pagelab run` (bad input: exit 2, nothing is booted or built).  The
 * guests are booted by guest/vm-run; inside each one the very same
 * `pagelab run NAME ... --out FILE` runs from a static build.  Exit status:
 * harness/cmd/cli.md's contract (0 ran everywhere, 1 a guest or the harness
 * failed, 2 bad input, 3 this host cannot boot a guest — no qemu, no kernel —
 * or a guest cannot run the scenario, 130 interrupted).
 */
#ifndef PAGELAB_VM_H
#define PAGELAB_VM_H

/* argv[0] is "vm".  Prints progress on stderr, the summary table and the
 * result paths on stdout.  Returns the exit status. */
int vm_main(int argc, char **argv);

#endif
