/* test_sandbox_names.c — the v2 <-> v1 file-name table and the
 * /proc/PID/cgroup parser of harness/sandbox.c.
 *
 * Expectations come from Documentation/admin-guide/cgroup-v2.rst and
 * cgroup-v1/memory.rst (file names), and from /proc/self/cgroup as printed
 * on this lab's hybrid 6.18 host (memory on v1, "0::/" unified line) and on a
 * pure v2 Debian 6.12 guest.  Pure functions: no cgroup is touched.
 */
#include <errno.h>

#include "sandbox.h"
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

int main(void)
{
	test_names();
	test_proc_cgroup();
	return unit_report("sandbox_names");
}
