/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netns.h — the run's private network namespace: only its loopback,
 * brought up, so a service and its load clients reach each other on
 * 127.0.0.1 and ::1 and nothing else, whatever their arguments say.  Unix
 * sockets are files and work across it.  Made by the harness unsharing its
 * own network namespace for a moment (net/core/net_namespace.c:
 * copy_net_ns; a new one has only lo, down), bringing lo up (SIOCSIFFLAGS
 * IFF_UP: the kernel then gives it 127.0.0.1/8 and ::1), keeping a
 * descriptor of it and going back (setns).  Each foreign program's child
 * joins it before exec (command.h); a readiness probe's socket is made in it
 * (netns_socket), since a socket belongs to the namespace it was made in.
 * The namespace lives while a descriptor or a process holds it.
 *
 * With it comes a private IPC namespace (ipc/namespace.c: copy_ipcs), joined
 * the same way: a service's System V shared memory, semaphores and message
 * queues (postgres keeps a SysV segment beside its mmap'd memory) are the
 * run's own, and when its last process has gone and the harness closes the
 * descriptor the kernel destroys them (free_ipc_ns) — a service SIGKILLed or
 * OOM-killed, which never removes its own, leaves none on the host. */
#ifndef PAGELAB_LAUNCH_NETNS_H
#define PAGELAB_LAUNCH_NETNS_H

#include "base/error.h"

/* A new network namespace and a new IPC namespace: their descriptors
 * (O_CLOEXEC) in *fd and *ipc_fd.  -errno: EPERM without CAP_SYS_ADMIN,
 * EINVAL without CONFIG_NET_NS or CONFIG_IPC_NS. */
int netns_create(int *fd, int *ipc_fd, struct lab_error *err);

/* socket(domain, type | SOCK_CLOEXEC, 0) made inside the namespace nsfd
 * (-1: the harness's own).  The socket, or -errno with err. */
int netns_socket(int nsfd, int domain, int type, struct lab_error *err);

#endif
