/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lockdown.h — the seccomp allow-list every workload runs under.
 *
 * Installed right before a workload's work starts (after argument parsing and
 * setup): from then on any system call not on the list kills the whole
 * process with SIGSYS (SCMP_ACT_KILL_PROCESS), which the harness reads from
 * the exit status.  The list is what the workloads were seen to call under
 * strace, plus the few calls glibc may make on the same paths; see
 * lockdown.c.
 */
#ifndef PAGELAB_LOCKDOWN_H
#define PAGELAB_LOCKDOWN_H

#include "base/error.h"

/* Set no_new_privs and load the filter: the common list of lockdown.c plus
 * extra (a NULL-terminated list of system call names a workload needs
 * beyond it, or NULL).  Returns 0, or -errno with err filled (e.g. a kernel
 * without CONFIG_SECCOMP_FILTER, or a name libseccomp does not know). */
int lockdown_install(const char *const *extra, struct lab_error *err);

#endif
