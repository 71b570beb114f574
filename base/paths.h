/* SPDX-License-Identifier: GPL-2.0-or-later */
/* paths.h — where an in-tree build and an installed pagelab find their files.
 *
 * An installed pagelab (cmake --install, the Debian package) lives in
 * <prefix>/bin with its data in <prefix>/share/pagelab (scenarios/,
 * results/reference/, scripts/ for VM mode) and its workload programs in
 * <prefix>/libexec/pagelab.  Both are found relative to the binary itself
 * (/proc/self/exe), so a tree installed under any prefix, or unpacked from a
 * package, needs no source tree and no configuration.  A binary that has no
 * such neighbours is an in-tree build: its data is the source tree it was
 * built from (PAGELAB_SOURCE_DIR) and its workloads are <build>/workloads.
 * PAGELAB_DATA_DIR overrides the data directory (see lab_data_dir_check).
 */
#ifndef PAGELAB_PATHS_H
#define PAGELAB_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The data directory (never NULL; a static buffer). */
const char *lab_data_dir(void);

/* $PAGELAB_DATA_DIR, when it is set, by base/trust.h's rules (pagelab
 * executes the guest tooling there): 1 it is set and trusted, 0 it is not
 * set (the installed or source tree is the data directory), -EPERM refused
 * (err names it). */
struct lab_error;
int lab_data_dir_check(struct lab_error *err);

/* Whether this binary is an installed one (share/pagelab beside its bin/). */
bool lab_installed(void);

/* The installed workload directory, <prefix>/libexec/pagelab, into buf.
 * false when this binary is not installed (or the path does not fit). */
bool lab_installed_libexec(char *buf, size_t len);

#endif
