/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vm.c — the pure parts of harness/vm/ (vm.h, internal.h).
 *
 * Expected:
 *  - vm_kv_parse: "key: value" lines (vm-run's vm-status, the guest's
 *    guest-info) into strings; a repeated key keeps its last value ("status"
 *    written again after "error"); a value keeps its own ": " and blanks; a
 *    line without ": ", or with an empty key, is skipped; a value that is not
 *    UTF-8 (a guest wrote it) is left out, the rest kept; vm_kv_number takes
 *    only a whole number;
 *  - vm_audit_states_parse: --then splits states, each state's words kept
 *    in order; --json in one state needs it in all; --watch and --advice are
 *    refused; at most VM_AUDIT_MAX_STATES states; the script single-quotes
 *    every word (a quote in a word stays one word: 'a'\''b');
 *  - vm_shape_for_audit: defaults 4800M / 2 cpus / 6.12, a memory that does
 *    not split into --numa nodes refused.
 * argv[1] (the fixtures) is not used.
 */
#include "unit.h"
#include "plan/vmkernel.h"
#include "vm/internal.h"
#include "vm/vm.h"

static void test_kv(void)
{
	json_t *o = vm_kv_parse("status: ok\n"
				"error: the guest's result: refused (console: x)\n"
				"status: channel-refused\n"
				"nocolon here\n"
				": an empty key\n"
				"key:novalue\n"
				"cmdline: console=ttyS0 panic=-1  pagelab.thp=never\n"
				"bad: \xff\xfe\n"
				"wall_s: 12.50\n"
				"boot_s: 12.5x\n"
				"last: no newline");
	json_t *n;

	CHECK_STR(vm_kvs(o, "status"), "channel-refused");
	CHECK_STR(vm_kvs(o, "error"), "the guest's result: refused (console: x)");
	CHECK_STR(vm_kvs(o, "cmdline"), "console=ttyS0 panic=-1  pagelab.thp=never");
	CHECK_STR(vm_kvs(o, "last"), "no newline");
	CHECK(json_object_get(o, "nocolon here") == NULL);
	CHECK(json_object_get(o, "key") == NULL);
	CHECK(json_object_get(o, "bad") == NULL);
	CHECK_STR(vm_kvs(o, "absent"), "");
	CHECK_EQ_U64(json_object_size(o), 6);
	n = vm_kv_number(o, "wall_s");
	CHECK(json_is_real(n) && json_real_value(n) == 12.5);
	json_decref(n);
	n = vm_kv_number(o, "boot_s");
	CHECK(json_is_null(n));
	json_decref(n);
	json_decref(o);
	o = vm_kv_parse("");
	CHECK(o != NULL && json_object_size(o) == 0);
	json_decref(o);
}

static void test_audit_states(void)
{
	char *ok[] = { "--json", "--with", "thp=never", "--then", "--json", "--wsf", "it's", NULL };
	char *mixed[] = { "--json", "--then", "--wsf", "100", NULL };
	char *watch[] = { "--watch", "5", NULL };
	char *many[VM_AUDIT_MAX_STATES + 2];
	struct vm_audit_states st;
	struct lab_error err = { 0 };

	CHECK(vm_audit_states_parse(7, ok, &st, &err) == 0);
	CHECK_EQ_U64(st.n, 2);
	CHECK(st.json);
	CHECK_EQ_U64(st.start[0], 0);
	CHECK_EQ_U64(st.len[0], 3);
	CHECK_EQ_U64(st.start[1], 4);
	CHECK_EQ_U64(st.len[1], 3);
	CHECK_CONTAINS(st.script, "pagelab audit '--json' '--with' 'thp=never' >/out/files/audit-1.out");
	CHECK_CONTAINS(st.script, "'--wsf' 'it'\\''s' >/out/files/audit-2.out");
	CHECK_CONTAINS(st.script, "exit $status\n");
	CHECK(vm_audit_states_parse(4, mixed, &st, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "needs --json in every state");
	CHECK(vm_audit_states_parse(2, watch, &st, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "--watch is for this host's own audit");
	for (int i = 0; i < VM_AUDIT_MAX_STATES + 1; i++)
		many[i] = "--then";
	many[VM_AUDIT_MAX_STATES + 1] = NULL;
	CHECK(vm_audit_states_parse(VM_AUDIT_MAX_STATES - 1, many, &st, &err) == 0);
	CHECK_EQ_U64(st.n, VM_AUDIT_MAX_STATES);
	CHECK(vm_audit_states_parse(VM_AUDIT_MAX_STATES, many, &st, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "at most 16 states");
	/* No words: one state, the audit with no option. */
	CHECK(vm_audit_states_parse(0, many, &st, &err) == 0);
	CHECK_EQ_U64(st.n, 1);
	CHECK(!st.json);
}

static void test_shape(void)
{
	struct vm_opts o;
	struct vm_shape g;
	struct lab_error err = { 0 };

	vm_opts_init(&o);
	CHECK(vm_shape_for_audit(&o, &g, &err) == 0);
	CHECK_EQ_U64(g.mem, 4800ULL << 20);
	CHECK_EQ_U64(g.cpus, 2);
	CHECK_STR(g.kernel, "6.12");
	CHECK_STR(g.thp, "");
	o.numa = 3;
	o.mem = 4ULL << 30;
	CHECK(vm_shape_for_audit(&o, &g, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "do not split evenly into 3 nodes");
	CHECK(vm_is_series("6.1") && vm_is_series("6.12") && vm_is_series("6.18") && !vm_is_series("6.17") && !vm_is_series(""));
	CHECK(vm_is_series("6.12-16k") && !vm_is_series("6.1-16k"));
	/* plan/vmkernel.c: the 16K kernel is arm64's generic build alone. */
	CHECK(vm_series_check("6.12-16k", "arm64", "generic", &err) == 0);
	CHECK(vm_series_check("6.12-16k", "amd64", "generic", &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "--arch arm64 --flavour generic only");
	CHECK(vm_series_check("6.12-16k", "arm64", "cloud", &err) == -EINVAL);
	CHECK(vm_series_check("6.12", "arm64", "cloud", &err) == 0);
	CHECK(vm_series_check("6.2", "amd64", "generic", &err) == -ENOENT);
	CHECK(vm_series_check("6.18", "arm64", "cloud", &err) == 0);
	CHECK_STR(vm_series_names(), "6.1|6.12|6.12-16k|6.18");
	CHECK(vm_arch_known("arm64") && !vm_arch_known("riscv64"));
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	test_kv();
	test_audit_states();
	test_shape();
	return unit_report("vm");
}
