/* SPDX-License-Identifier: GPL-2.0-or-later */
/* internal.h — what launch.c and command.c share (harness/launch/ only). */
#ifndef PAGELAB_LAUNCH_INTERNAL_H
#define PAGELAB_LAUNCH_INTERNAL_H

#include <sys/types.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* clone3(CLONE_INTO_CGROUP | CLONE_PIDFD) into the cgroup directory cgfd:
 * the child is born there (0 in the child, its pid in the parent, -1 with
 * errno: ENOSYS, EINVAL or E2BIG on a kernel without it). */
pid_t launch_clone_into(int cgfd, int *pidfd);

/* The run's trace_marker (launch_set_marker_fd), or -1. */
int launch_marker_fd(void);

#endif
