/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_command.c — foreign programs in a scenario (harness/plan/command.c,
 * harness/plan/scenario.md "Words", "Any program as a workload", "Load"):
 * the quoting rules word by word, each key typed, each refusal with its
 * line and column. */
#include <stdlib.h>
#include <string.h>

#include "plan/scenario.h"
#include "plan/tracedef.h"
#include "unit.h"

static const char head[] =
	"[scenario]\nname = t/cmd\n[params]\np = v w\nuser = pagelab\n[sandbox]\nmemory_max = 64M\n";

/* The text after head, instantiated: 0 and *r filled, or -EINVAL with err. */
static int inst(const char *body, struct run_spec *r, struct lab_error *err)
{
	size_t n = strlen(head) + strlen(body) + 1;
	char *text = malloc(n);
	struct scenario s;
	int ret;

	snprintf(text, n, "%s%s", head, body);
	ret = scenario_parse("t.scn", text, &s, err);
	free(text);
	if (ret < 0)
		return ret;
	ret = scenario_instantiate(&s, 0, 0, r, err);
	if (ret < 0)
		run_spec_free(r);
	scenario_free(&s);
	return ret;
}

static void refused(const char *body, const char *at, const char *want)
{
	struct run_spec r;
	struct lab_error err = { 0 };

	CHECK(inst(body, &r, &err) < 0);
	CHECK_CONTAINS(err.msg, want);
	if (at != NULL)
		CHECK_CONTAINS(err.msg, at);
}

static void test_words(void)
{
	struct run_spec r;
	struct lab_error err = { 0 };
	int ret = inst("[workload w]\ncommand = /bin/echo \"a b\" 'c d' e\\ f \"x\\\"y\" '' \"${p}/z\" ${dir}/s \\#h "
		       "'${p}' a\"b\"'c'\n", &r, &err);
	static const char *const want[] = { "/bin/echo", "a b", "c d", "e f", "x\"y", "", "v w/z", "\x01/s", "#h",
					    "${p}", "abc" };

	CHECK(ret == 0);
	if (ret < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	CHECK(r.workloads[0].command);
	CHECK_STR(r.workloads[0].program, "command");
	CHECK_EQ_U64(r.workloads[0].argc, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]) && (int)i < r.workloads[0].argc; i++)
		CHECK_STR(r.workloads[0].argv[i], want[i]);
	CHECK(r.workloads[0].argv[r.workloads[0].argc] == NULL);
	CHECK_STR(r.workloads[0].exec.user, "pagelab");
	CHECK(r.workloads[0].stop_signal == 15 && r.workloads[0].stop_grace_ms == 5000);
	CHECK(r.workloads[0].ready.kind == RUN_READY_NONE);
	CHECK(r.foreign);
	run_spec_free(&r);
	refused("[workload w]\ncommand = sh -c 'echo\n", "t.scn:9:17:", "the single quote is never closed");
	refused("[workload w]\ncommand = a \"b\n", "t.scn:9:13:", "the double quote is never closed");
	refused("[workload w]\ncommand = a b\\\n", NULL, "a backslash at the end escapes nothing");
	refused("[workload w]\ncommand = ${nope}\n", "t.scn:9:11:", "unknown parameter ${nope}");
	refused("[workload w]\ncommand = ${dir}/prog\n", NULL, "the program is not in the run's directory");
	refused("[workload w]\ncommand = \"\"\n", NULL, "no program");
}

static void test_keys(void)
{
	struct run_spec r;
	struct lab_error err = { 0 };
	int ret = inst("[workload w]\ncommand = redis-server\nuser = ${user}\nenv = A=1 \"B=two words\" C=${dir}/c\n"
		       "ready = \"stdout:ready to accept\"\nready_timeout = 2500\nstop = SIGINT 100\nthp = never\n"
		       "hold = 40\n[load l]\ncommand = redis-benchmark -n 10\nmetrics = redis-benchmark\ntimeout = 900\n"
		       "memory_max = 32M\n", &r, &err);

	CHECK(ret == 0);
	if (ret < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return;
	}
	CHECK_EQ_U64(r.workloads[0].exec.nr_env, 3);
	CHECK_STR(r.workloads[0].exec.env[1], "B=two words");
	CHECK_STR(r.workloads[0].exec.env[2], "C=\x01/c");
	CHECK(r.workloads[0].ready.kind == RUN_READY_LINE);
	CHECK_STR(r.workloads[0].ready.regex, "ready to accept");
	CHECK(r.workloads[0].ready.streams == RUN_READY_STDOUT);
	CHECK_EQ_U64(r.workloads[0].ready.timeout_ms, 2500);
	CHECK(r.workloads[0].stop_signal == 2 && r.workloads[0].stop_grace_ms == 100);
	CHECK(r.workloads[0].thp_never);
	CHECK_EQ_U64(r.workloads[0].hold_ms, 40);
	CHECK_EQ_U64(r.nr_loads, 1);
	CHECK_STR(r.loads[0].name, "l");
	CHECK_STR(r.loads[0].metrics, "redis-benchmark");
	CHECK_EQ_U64(r.loads[0].timeout_ms, 900);
	CHECK_EQ_U64(r.loads[0].memory_max, 32ull << 20);
	CHECK(!r.loads[0].in_sandbox);
	run_spec_free(&r);
}

static void ready_is(const char *cond, enum cmd_ready_kind kind, const char *host, unsigned port, const char *path)
{
	char body[256];
	struct run_spec r;
	struct lab_error err = { 0 };

	snprintf(body, sizeof(body), "[workload w]\ncommand = x\nready = %s\n", cond);
	if (inst(body, &r, &err) < 0) {
		fprintf(stderr, "ready = %s: %s\n", cond, err.msg);
		unit_failed++;
		return;
	}
	CHECK(r.workloads[0].ready.kind == kind);
	if (host != NULL)
		CHECK_STR(r.workloads[0].ready.host, host);
	if (port)
		CHECK_EQ_U64(r.workloads[0].ready.port, port);
	if (path != NULL)
		CHECK_STR(r.workloads[0].ready.path, path);
	run_spec_free(&r);
}

static void test_ready(void)
{
	ready_is("tcp:6379", RUN_READY_TCP, "127.0.0.1", 6379, NULL);
	ready_is("tcp:localhost:80", RUN_READY_TCP, "127.0.0.1", 80, NULL);
	ready_is("tcp:127.1.2.3:1", RUN_READY_TCP, "127.1.2.3", 1, NULL);
	ready_is("tcp:[::1]:11211", RUN_READY_TCP, "::1", 11211, NULL);
	ready_is("unix:sock/redis.sock", RUN_READY_UNIX, NULL, 0, "sock/redis.sock");
	ready_is("unix:${dir}/redis.sock", RUN_READY_UNIX, NULL, 0, "redis.sock");
	ready_is("file:started", RUN_READY_FILE, NULL, 0, "started");
	ready_is("\"output:database system is\"", RUN_READY_LINE, NULL, 0, NULL);
	refused("[workload w]\ncommand = x\nready = tcp:10.0.0.1:80\n", "t.scn:10:9:", "only loopback");
	refused("[workload w]\ncommand = x\nready = tcp:70000\n", NULL, "a port 1..65535");
	refused("[workload w]\ncommand = x\nready = unix:/run/docker.sock\n", NULL, "in the run's directory");
	refused("[workload w]\ncommand = x\nready = file:a/../../etc\n", NULL, "'..' leaves the run's directory");
	refused("[workload w]\ncommand = x\nready = stdout:(\n", NULL, "is not a pattern (POSIX ERE)");
	refused("[workload w]\ncommand = x\nready = stdout:((a{200}){200}){200}\n", "t.scn:10:9:",
		"is not a pattern (POSIX ERE): its repetitions expand to more than 2000 parts");
	refused("[workload w]\ncommand = x\nready = \"stdout:(a) \\1\"\n", NULL, "back-reference");
	refused("[workload w]\ncommand = x\nready = \"stdout:${dir}\"\n", NULL, "holds ${dir}");
	refused("[workload w]\ncommand = x\nready = udp:53\n", NULL, "expected tcp:PORT");
	refused("[workload w]\ncommand = x\nready = stdout:a b\n", NULL, "one condition");
	refused("[workload w]\ncommand = x\nready_timeout = 100\n", NULL, "ready_timeout without ready");
	refused("[workload w]\ncommand = x\nready = file:x\nready_timeout = 50\n", NULL, "expected 100..3600000 ms");
}

static void test_refusals(void)
{
	refused("[workload w]\ncommand = x\nprogram = hold\n", NULL, "program and command: one of them");
	refused("[workload w]\ncommand = x\nsize = 1M\n", "t.scn:10:1:", "unknown key 'size'");
	refused("[workload w]\ncommand = x\nstop = WINCH\n", NULL, "not one of TERM INT QUIT HUP USR1 USR2 KILL");
	refused("[workload w]\ncommand = x\nstop = TERM 700000\n", NULL, "grace 0..600000 ms");
	refused("[workload w]\ncommand = x\nenv = 1A=x\n", NULL, "is not KEY=VALUE");
	refused("[workload w]\ncommand = x\nenv = A=1 A=2\n", NULL, "A given twice");
	refused("[workload w]\ncommand = x\nuser = Root\n", NULL, "is not a user name");
	refused("[workload w]\ncommand = x\nthp = always\n", NULL, "is not one of never|default");
	refused("[workload w]\nprogram = hold\nsize = 1M\n[load l]\ncommand = y\n", NULL,
		"drives the main (last) workload, which is then a command");
	refused("[workload w]\ncommand = x\n[load l]\ncommand = y\nuser = root\n", NULL,
		"the run's commands share one user");
	refused("[workload w]\ncommand = x\n[load l]\ncommand = y\nmetrics = ../x\n", NULL, "is not a metrics table's name");
	refused("[workload w]\ncommand = x\n[load l]\ncommand = y\ncgroup = sandbox\nmemory_max = 1G\n", NULL,
		"not with cgroup = sandbox");
	refused("[workload w]\ncommand = x\n[load ready]\ncommand = y\n", NULL, "'ready' is the main workload's own step");
	refused("[workload w]\ncommand = x\n[load l]\ncommand = y\ntimeout = 50\n", NULL, "expected 100..3600000 ms");
	refused("[params]\ndir = /tmp\n[workload w]\ncommand = x\n", NULL, "parameter dir: ${dir} is the run's directory");
}

/* The trace set a variant of body takes by default, as text ("" and the
 * error on a refusal). */
static void set_is(const char *body, const char *want)
{
	struct run_spec r;
	struct lab_error err = { 0 };
	char set[160];

	if (inst(body, &r, &err) < 0) {
		CHECK_STR(err.msg, "");
		return;
	}
	tracedef_set_text(r.trace.set, set, sizeof(set));
	CHECK_STR(set, want);
	run_spec_free(&r);
}

/* A command forks as it likes: the lab's default set gains "forks" (who
 * forked whom names an OOM victim's tree, run/victims.c); a run of the
 * built-in workloads and a [trace] events list keep theirs. */
static void test_trace_forks(void)
{
	char set[160];

	set_is("[workload w]\ncommand = x\n", "kswapd direct memcg oom markers forks pageout");
	set_is("[workload w]\nprogram = hold\nsize = 1M\n", "kswapd direct memcg oom markers pageout");
	set_is("[workload w]\ncommand = x\n[trace]\nevents = oom markers\n", "oom markers");
	tracedef_set_text(tracedef_all_set(), set, sizeof(set));
	CHECK_STR(set, "kswapd direct memcg compaction oom markers lru forks pageout");
}

int main(void)
{
	test_trace_forks();
	test_words();
	test_keys();
	test_ready();
	test_refusals();
	return unit_report("command");
}
