/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netns.c — the run's private network namespace (netns.h). */
#include "netns.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Back to the namespace of orig; a failure here would leave the harness in
 * the run's namespace, where it needs nothing of the network either. */
static int back(int orig, struct lab_error *err)
{
	if (setns(orig, CLONE_NEWNET) < 0)
		return lab_error_errno(err, errno, "setns back to pagelab's own network namespace");
	return 0;
}

static int back_ipc(int orig, struct lab_error *err)
{
	if (setns(orig, CLONE_NEWIPC) < 0)
		return lab_error_errno(err, errno, "setns back to pagelab's own IPC namespace");
	return 0;
}

static int lo_up(struct lab_error *err)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (s < 0)
		return lab_error_errno(err, errno, "socket in the run's network namespace");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		ret = lab_error_errno(err, errno, "the run's network namespace: lo");
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			ret = lab_error_errno(err, errno, "the run's network namespace: bringing lo up");
	}
	close(s);
	return ret;
}

int netns_create(int *fd, int *ipc_fd, struct lab_error *err)
{
	int orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), orig_ipc = -1, ret;

	*fd = *ipc_fd = -1;
	if (orig < 0)
		return lab_error_errno(err, errno, "/proc/self/ns/net");
	if ((orig_ipc = open("/proc/self/ns/ipc", O_RDONLY | O_CLOEXEC)) < 0) {
		ret = lab_error_errno(err, errno, "/proc/self/ns/ipc");
		close(orig);
		return ret;
	}
	if (unshare(CLONE_NEWNET | CLONE_NEWIPC) < 0) {
		ret = lab_error_errno(err, errno, "a private network and IPC namespace for the run "
				      "(unshare CLONE_NEWNET | CLONE_NEWIPC)");
		close(orig);
		close(orig_ipc);
		return ret;
	}
	ret = lo_up(err);
	if (ret == 0 && (*fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		ret = lab_error_errno(err, errno, "/proc/self/ns/net of the run's namespace");
	if (ret == 0 && (*ipc_fd = open("/proc/self/ns/ipc", O_RDONLY | O_CLOEXEC)) < 0)
		ret = lab_error_errno(err, errno, "/proc/self/ns/ipc of the run's namespace");
	if (back(orig, ret < 0 ? &(struct lab_error){ 0 } : err) < 0 && ret == 0)
		ret = -EIO;
	if (back_ipc(orig_ipc, ret < 0 ? &(struct lab_error){ 0 } : err) < 0 && ret == 0)
		ret = -EIO;
	close(orig);
	close(orig_ipc);
	if (ret < 0) {
		if (*fd >= 0)
			close(*fd);
		if (*ipc_fd >= 0)
			close(*ipc_fd);
		*fd = *ipc_fd = -1;
	}
	return ret;
}

int netns_socket(int nsfd, int domain, int type, struct lab_error *err)
{
	int orig = -1, s, e;

	if (nsfd >= 0) {
		orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (orig < 0)
			return lab_error_errno(err, errno, "/proc/self/ns/net");
		if (setns(nsfd, CLONE_NEWNET) < 0) {
			e = errno;
			close(orig);
			return lab_error_errno(err, e, "setns into the run's network namespace");
		}
	}
	s = socket(domain, type | SOCK_CLOEXEC, 0);
	e = errno;
	if (orig >= 0) {
		if (back(orig, err) < 0) {
			if (s >= 0)
				close(s);
			close(orig);
			return -EIO;
		}
		close(orig);
	}
	if (s < 0)
		return lab_error_errno(err, e, "socket");
	return s;
}
