/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_sandbox_names.c — the v2 <-> v1 file-name table and the
 * /proc/PID/cgroup and mountinfo parsers of harness/sandbox/names.c, and its
 * cgroup value parser (linked alone, with the settings table).
 *
 * Expectations come from Documentation/admin-guide/cgroup-v2.rst and
 * cgroup-v1/memory.rst (file names), and from /proc/self/cgroup as printed
 * on this lab's hybrid 6.18 host (memory on v1, "0::/" unified line) and on a
 * pure v2 Debian 6.12 guest, and /proc/self/mountinfo inside a podman
 * container on that host.  Pure functions: no cgroup is touched.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sandbox/sandbox.h"
#include "unit.h"

/* /proc/self/cgroup on the hybrid host (kernel 6.18, memory on v1). */
static const char hybrid[] =
	"9:name=systemd:/\n"
	"8:pids:/\n"
	"7:blkio:/\n"
	"4:memory:/process_api/9a810c6c8baa4cffc59b5332ebfd99e0\n"
	"3:cpuset:/\n"
	"1:cpu:/\n"
	"0::/\n";

/* v1 with controllers co-mounted (systemd's cpu,cpuacct style). */
static const char comounted[] =
	"12:cpu,cpuacct:/a\n"
	"11:memory,hugetlb:/lab/x:y\n"
	"0::/init.scope\n";

/* Pure v2. */
static const char pure_v2[] = "0::/pagelab-42/ctl\n";

static void test_names(void)
{
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "memory.max"), "memory.limit_in_bytes");
	CHECK_STR(sandbox_file_name(CG_VERSION_V2, "memory.max"), "memory.max");
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "memory.swap.max"), "memory.memsw.limit_in_bytes");
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "memory.current"), "memory.usage_in_bytes");
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "memory.peak"), "memory.max_usage_in_bytes");
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "memory.events"), "memory.oom_control");
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "memory.stat"), "memory.stat");
	CHECK_STR(sandbox_file_name(CG_VERSION_V1, "cgroup.procs"), "cgroup.procs");
	CHECK(sandbox_file_name(CG_VERSION_V1, "memory.oom.group") == NULL);
	CHECK(sandbox_file_name(CG_VERSION_V1, "memory.reclaim") == NULL);
	CHECK(sandbox_file_name(CG_VERSION_V1, "cgroup.kill") == NULL);
	CHECK_STR(sandbox_file_name(CG_VERSION_V2, "memory.reclaim"), "memory.reclaim");
	CHECK_STR(sandbox_file_name(CG_VERSION_V2, "cgroup.kill"), "cgroup.kill");
	/* only canonical (v2) names are looked up */
	CHECK(sandbox_file_name(CG_VERSION_V1, "memory.limit_in_bytes") == NULL);
	CHECK(sandbox_file_name(CG_VERSION_V2, "memory.nonsense") == NULL);
	CHECK(sandbox_file_name(CG_VERSION_NONE, "memory.max") == NULL);
	CHECK(sandbox_file_name(CG_VERSION_V2, NULL) == NULL);
}

static void test_proc_cgroup(void)
{
	char out[256];

	CHECK(sandbox_parse_proc_cgroup(hybrid, CG_VERSION_V1, out, sizeof(out)) == 0);
	CHECK_STR(out, "/process_api/9a810c6c8baa4cffc59b5332ebfd99e0");
	CHECK(sandbox_parse_proc_cgroup(hybrid, CG_VERSION_V2, out, sizeof(out)) == 0);
	CHECK_STR(out, "/");

	/* whole controller names inside a co-mounted list; ':' in a path */
	CHECK(sandbox_parse_proc_cgroup(comounted, CG_VERSION_V1, out, sizeof(out)) == 0);
	CHECK_STR(out, "/lab/x:y");
	CHECK(sandbox_parse_proc_cgroup(comounted, CG_VERSION_V2, out, sizeof(out)) == 0);
	CHECK_STR(out, "/init.scope");

	CHECK(sandbox_parse_proc_cgroup(pure_v2, CG_VERSION_V2, out, sizeof(out)) == 0);
	CHECK_STR(out, "/pagelab-42/ctl");
	CHECK(sandbox_parse_proc_cgroup(pure_v2, CG_VERSION_V1, out, sizeof(out)) == -ENOENT);

	/* "memoryx" is not "memory"; a bare "memory" prefix does not match */
	CHECK(sandbox_parse_proc_cgroup("3:memoryx:/a\n", CG_VERSION_V1, out, sizeof(out)) == -ENOENT);
	/* no trailing newline */
	CHECK(sandbox_parse_proc_cgroup("0::/a/b", CG_VERSION_V2, out, sizeof(out)) == 0);
	CHECK_STR(out, "/a/b");
	/* malformed: missing colon, relative path */
	CHECK(sandbox_parse_proc_cgroup("4 memory /a\n", CG_VERSION_V1, out, sizeof(out)) == -EINVAL);
	CHECK(sandbox_parse_proc_cgroup("4:memory:a\n", CG_VERSION_V1, out, sizeof(out)) == -EINVAL);
	/* too long for the buffer */
	CHECK(sandbox_parse_proc_cgroup("0::/abcdefgh\n", CG_VERSION_V2, out, 4) == -ENAMETOOLONG);
	CHECK(sandbox_parse_proc_cgroup("", CG_VERSION_V2, out, sizeof(out)) == -ENOENT);
}

/* Inside a privileged podman 4.3 / runc 1.1 container on the hybrid 6.18 host
 * (no cgroup namespace): /proc/self/mountinfo's cgroup lines (cut to three
 * hierarchies) and the memory line of /proc/self/cgroup.  The mount shows the
 * container's own cgroup at its top; /proc/self/cgroup prints the whole path. */
static const char container_mountinfo[] =
	"106 99 0:48 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - tmpfs tmpfs rw,mode=755\n"
	"107 106 0:29 /process_api/1e5a275c10b963bc4801a2e971cb7438/pagelab-try/libpod-fd4d656a075ff547f0ed89041a8afe9a87741f270f38e75755f9e5168e811115 /sys/fs/cgroup/cpu rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,cpu\n"
	"110 106 0:32 /process_api/1e5a275c10b963bc4801a2e971cb7438/pagelab-try/libpod-fd4d656a075ff547f0ed89041a8afe9a87741f270f38e75755f9e5168e811115 /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,memory\n"
	"115 106 0:37 /process_api/1e5a275c10b963bc4801a2e971cb7438/pagelab-try/libpod-fd4d656a075ff547f0ed89041a8afe9a87741f270f38e75755f9e5168e811115 /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,name=systemd\n";
static const char container_cgroup[] =
	"4:memory:/process_api/1e5a275c10b963bc4801a2e971cb7438/pagelab-try/libpod-fd4d656a075ff547f0ed89041a8afe9a87741f270f38e75755f9e5168e811115\n";

/* The hybrid host's own /proc/self/mountinfo lines for memory and unified. */
static const char host_mountinfo[] =
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void test_mount_root(void)
{
	char root[256], path[512];

	CHECK(sandbox_parse_mount_root(container_mountinfo, "/sys/fs/cgroup/memory", CG_VERSION_V1,
				       root, sizeof(root)) == 0);
	CHECK_STR(root, "/process_api/1e5a275c10b963bc4801a2e971cb7438/pagelab-try/libpod-"
		  "fd4d656a075ff547f0ed89041a8afe9a87741f270f38e75755f9e5168e811115");
	CHECK(sandbox_parse_proc_cgroup(container_cgroup, CG_VERSION_V1, path, sizeof(path)) == 0);
	sandbox_strip_mount_root(root, path);
	CHECK_STR(path, "/");
	/* a sandbox below the container's cgroup, as the kernel prints it */
	CHECK(snprintf(path, sizeof(path), "%s/pagelab-7-0", root) < (int)sizeof(path));
	sandbox_strip_mount_root(root, path);
	CHECK_STR(path, "/pagelab-7-0");
	/* a prefix that is not a whole path component is not the root */
	CHECK(snprintf(path, sizeof(path), "%sX/a", root) < (int)sizeof(path));
	sandbox_strip_mount_root(root, path);
	CHECK(path[0] == '/' && strlen(path) > strlen(root));
	/* the tmpfs at /sys/fs/cgroup is not a cgroup mount; no v2 mount in there */
	CHECK(sandbox_parse_mount_root(container_mountinfo, "/sys/fs/cgroup", CG_VERSION_V1, root,
				       sizeof(root)) == -ENOENT);
	CHECK(sandbox_parse_mount_root(container_mountinfo, "/sys/fs/cgroup/memory", CG_VERSION_V2,
				       root, sizeof(root)) == -ENOENT);
	/* the whole mount point, not a prefix of it */
	CHECK(sandbox_parse_mount_root(container_mountinfo, "/sys/fs/cgroup/mem", CG_VERSION_V1, root,
				       sizeof(root)) == -ENOENT);

	/* on the host the roots are "/", and "/" strips nothing */
	CHECK(sandbox_parse_mount_root(host_mountinfo, "/sys/fs/cgroup/memory", CG_VERSION_V1, root,
				       sizeof(root)) == 0);
	CHECK_STR(root, "/");
	CHECK(sandbox_parse_mount_root(host_mountinfo, "/sys/fs/cgroup/unified", CG_VERSION_V2, root,
				       sizeof(root)) == 0);
	CHECK_STR(root, "/");
	snprintf(path, sizeof(path), "/process_api/x");
	sandbox_strip_mount_root(root, path);
	CHECK_STR(path, "/process_api/x");
	sandbox_strip_mount_root("", path);
	CHECK_STR(path, "/process_api/x");

	/* the last mount on a point wins (a container's own mount over the host's) */
	CHECK(sandbox_parse_mount_root("1 0 0:1 / /m rw - cgroup c rw,memory\n"
				       "2 0 0:1 /a/b /m rw - cgroup c rw,memory", "/m", CG_VERSION_V1,
				       root, sizeof(root)) == 0);
	CHECK_STR(root, "/a/b");
	CHECK(sandbox_parse_mount_root(container_mountinfo, "/sys/fs/cgroup/memory", CG_VERSION_V1,
				       root, 8) == -ENAMETOOLONG);
	CHECK(sandbox_parse_mount_root("1 0 0:1 x /m rw - cgroup c rw,memory\n", "/m",
				       CG_VERSION_V1, root, sizeof(root)) == -EINVAL);
	CHECK(sandbox_parse_mount_root("garbage\n\n", "/m", CG_VERSION_V1, root,
				       sizeof(root)) == -ENOENT);
}

/* A cgroup value as the kernel prints it: a number or "max", one newline at
 * most (cgroup-v2.rst "Interface Files"; v1 prints numbers only). */
static void test_value(void)
{
	unsigned long long v = 1;

	CHECK(sandbox_parse_value("1073741824\n", &v) == 0 && v == 1073741824ULL);
	CHECK(sandbox_parse_value("0", &v) == 0 && v == 0);
	CHECK(sandbox_parse_value("max\n", &v) == 0 && v == UINT64_MAX);
	CHECK(sandbox_parse_value("max", &v) == 0 && v == UINT64_MAX);
	/* v1's "no limit", PAGE_COUNTER_MAX pages in bytes, is a number here */
	CHECK(sandbox_parse_value("9223372036854771712\n", &v) == 0 && v == 9223372036854771712ULL);
	CHECK(sandbox_parse_value("", &v) == -EINVAL);
	CHECK(sandbox_parse_value("maximum", &v) == -EINVAL);
	CHECK(sandbox_parse_value("max\n\n", &v) == -EINVAL);
	CHECK(sandbox_parse_value("-1", &v) == -EINVAL);
	CHECK(sandbox_parse_value(" 5", &v) == -EINVAL);
	CHECK(sandbox_parse_value("5 6", &v) == -EINVAL);
	CHECK(sandbox_parse_value("99999999999999999999", &v) == -EINVAL);
}

int main(void)
{
	test_names();
	test_value();
	test_proc_cgroup();
	test_mount_root();
	return unit_report("sandbox_names");
}
