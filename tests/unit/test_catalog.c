/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_catalog.c — which file a scenario argument names (harness/plan/catalog.h,
 * harness/cmd/cli.md "Which file a scenario argument names"): decided by the
 * spelling alone.
 *
 * Expected: madv-free/probe, probe, beyond/go-alloc and a_b/c.d are NAMEs;
 * /abs/x.scn, ./x.scn, ../x.scn, tests/scenarios/knobs.scn, dir/x.scn,
 * madv-free/../../x, a//b and a/ are FILEs (a '/' and not a NAME); x.scn,
 * "", .hidden, -x and probe.scn are neither NAME nor FILE.  A NAME
 * that is not in the catalogue is -ENOENT naming the catalogue file looked
 * for; neither is -EINVAL with the ./ hint.  argv[1] is not used.
 */
#include <stdlib.h>

#include "unit.h"
#include "plan/catalog.h"

static void expect(const char *arg, bool name, bool file)
{
	bool n = catalog_is_name(arg), f = catalog_is_file(arg);

	if (n != name || f != file)
		fprintf(stderr, "'%s': name %d file %d, wanted %d %d\n", arg, n, f, name, file);
	CHECK(n == name);
	CHECK(f == file);
}

int main(void)
{
	char path[PATH_MAX];
	struct lab_error err = { 0 };
	char dir[] = "/tmp/test_catalog.XXXXXX";

	expect("madv-free/probe", true, false);
	expect("probe", true, false);
	expect("beyond/go-alloc", true, false);
	expect("a_b/c.d", true, false);
	expect("/abs/x.scn", false, true);
	expect("./x.scn", false, true);
	expect("../x.scn", false, true);
	expect("tests/scenarios/knobs.scn", false, true);
	expect("dir/x.scn", false, true);
	expect("madv-free/../../x", false, true);
	expect("a//b", false, true);
	expect("x.scn", false, false);
	expect("", false, false);
	expect(".hidden", false, false);
	expect("-x", false, false);
	expect("a/", false, true);
	expect("probe.scn", false, false);

	CHECK(mkdtemp(dir) != NULL);
	setenv("PAGELAB_SCENARIOS", dir, 1);
	CHECK_EQ_U64((unsigned long long)(long long)catalog_find("madv-free/nothing", path, sizeof(path), &err),
		     (unsigned long long)(long long)-ENOENT);
	CHECK_CONTAINS(err.msg, "unknown scenario 'madv-free/nothing'");
	CHECK_CONTAINS(err.msg, dir);
	CHECK_EQ_U64((unsigned long long)(long long)catalog_find("x.scn", path, sizeof(path), &err),
		     (unsigned long long)(long long)-EINVAL);
	CHECK_CONTAINS(err.msg, "named ./x.scn");
	CHECK(catalog_find("./x.scn", path, sizeof(path), &err) == 0);
	CHECK_STR(path, "./x.scn");
	rmdir(dir);
	return unit_report("catalog");
}
