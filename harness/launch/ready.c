/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ready.c — readiness probes (ready.h). */
#include "ready.h"
#include "netns.h"

#include <stdbool.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A non-blocking connect: done at once (1), refused or not there (0), or in
 * progress — waited for up to 20 ms, then "not yet" (a full backlog). */
static int connect_now(int s, const struct sockaddr *a, socklen_t len)
{
	struct pollfd p = { .fd = s, .events = POLLOUT };
	int e = 0;
	socklen_t el = sizeof(e);

	if (connect(s, a, len) == 0)
		return 1;
	if (errno != EINPROGRESS && errno != EAGAIN)
		return 0;
	if (poll(&p, 1, 20) != 1 || getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		return 0;
	return e == 0;
}

int ready_probe_tcp(int nsfd, const char *host, unsigned port, struct lab_error *err)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((unsigned short)port) };
	bool v6 = strchr(host, ':') != NULL;
	int s, ret;

	if (v6 ? inet_pton(AF_INET6, host, &a6.sin6_addr) != 1 : inet_pton(AF_INET, host, &a4.sin_addr) != 1)
		return lab_error_set(err, EINVAL, "ready: not an address: %s", host);
	s = netns_socket(nsfd, v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK, err);
	if (s < 0)
		return s;
	ret = v6 ? connect_now(s, (struct sockaddr *)&a6, sizeof(a6)) : connect_now(s, (struct sockaddr *)&a4, sizeof(a4));
	close(s);
	return ret;
}

/* The harness's file-system ids for a probe of the user's directory, and back. */
struct as_user {
	uid_t uid;
	gid_t gid;
};

static struct as_user become(uid_t uid, gid_t gid)
{
	struct as_user was = { (uid_t)setfsuid((uid_t)-1), (gid_t)setfsgid((gid_t)-1) };

	setfsgid(gid);
	setfsuid(uid);
	return was;
}

static void restore(struct as_user was)
{
	setfsuid(was.uid);
	setfsgid(was.gid);
}

int ready_probe_unix(const char *dir, const char *rel, uid_t uid, gid_t gid, struct lab_error *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct as_user was;
	int s, ret;

	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s", dir, rel) >= sizeof(a.sun_path))
		return lab_error_set(err, ENAMETOOLONG, "ready: unix:%s: %s/%s is longer than a socket's %zu bytes", rel,
				     dir, rel, sizeof(a.sun_path) - 1);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return lab_error_errno(err, errno, "socket");
	was = become(uid, gid);
	ret = connect_now(s, (struct sockaddr *)&a, sizeof(a));
	restore(was);
	close(s);
	return ret;
}

int ready_probe_file(const char *dir, const char *rel, uid_t uid, gid_t gid, struct lab_error *err)
{
	char p[4352];
	struct stat st;
	struct as_user was;
	int ret;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, rel) >= sizeof(p))
		return lab_error_set(err, ENAMETOOLONG, "ready: file:%s: path too long", rel);
	was = become(uid, gid);
	ret = lstat(p, &st) == 0;
	restore(was);
	return ret;
}
