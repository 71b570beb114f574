/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_kmsg.c — /dev/kmsg records and OOM reports (harness/host/kmsg.h) on
 * records captured from real kernels, then on broken input.
 *
 * Fixtures (the .kmsg files of tests/fixtures/kmsg) are the bytes read(2) returned from
 * /dev/kmsg, record after record: a record starts with "PRIO,SEQ,TS,FLAGS;",
 * its continuation lines start with a space.
 *   memcg-oom-v1-6.18.kmsg   this host (6.18, cgroup v1): a memcg OOM of the
 *                            region workload (madv-free/three-paths, no madvise)
 *   global-oom-6.12.kmsg     a Debian 6.12 guest, watermarks/run-five:
 *                            min_free_kbytes 2 GiB, a global OOM
 *   phantom-oom-v2-6.12.kmsg Debian 6.12 and 6.1 guests (pure cgroup v2), made by
 *   phantom-oom-v2-6.1.kmsg  tests/capture/kmsg-phantom-oom.sh: a memcg of 48M holding
 *                            a process named exactly "Killed process " at
 *                            oom_score_adj -1000 (never chosen) that first writes two
 *                            kill lines of its own to /dev/kmsg (they come back as
 *                            facility LOG_USER: prio 11 and 8); then "hog" is killed
 *                            (the phantom is in the task dump), then a second
 *                            "Killed process " invokes the OOM killer and is killed.
 *                            Expected: exactly two kills, hog's and the second
 *                            phantom's, each with its own report (the pids are those
 *                            the capture printed).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "host/kmsg.h"
#include "unit.h"

static const char *root;

/* Split a capture into records and parse each. */
static size_t load(const char *name, struct kmsg_rec **out)
{
	char path[PATH_MAX];
	char *buf = NULL;
	size_t len = 0, n = 0, cap = 0;
	struct lab_error err;
	struct kmsg_rec *recs = NULL;
	const char *p, *end;

	snprintf(path, sizeof(path), "%s/kmsg/%s", root, name);
	if (lab_read_file(path, &buf, &len, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		unit_failed++;
		*out = NULL;
		return 0;
	}
	for (p = buf, end = buf + len; p < end;) {
		const char *q = p;

		/* the record runs to the next line that does not start with a space */
		do {
			const char *nl = memchr(q, '\n', (size_t)(end - q));

			q = nl ? nl + 1 : end;
		} while (q < end && *q == ' ');
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			recs = realloc(recs, cap * sizeof(*recs));
		}
		CHECK(kmsg_parse_record(p, (size_t)(q - p), &recs[n]) == 0);
		n++;
		p = q;
	}
	free(buf);
	*out = recs;
	return n;
}

static void test_records(void)
{
	struct kmsg_rec r;
	const char *rec = "4,12602,8036111376,-;region invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0\n"
			  " SUBSYSTEM=memory\n";

	CHECK(kmsg_parse_record(rec, strlen(rec), &r) == 0);
	CHECK_EQ_U64(r.prio, 4);
	CHECK_EQ_U64(r.seq, 12602);
	CHECK_EQ_U64(r.ts_us, 8036111376ULL);
	CHECK_STR(r.text, "region invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0");
	/* a header with more fields (caller id, as some kernels print) */
	rec = "6,1,2,-,caller=T1;x";
	CHECK(kmsg_parse_record(rec, strlen(rec), &r) == 0);
	CHECK_STR(r.text, "x");
	/* broken headers */
	CHECK(kmsg_parse_record("no header", 9, &r) == -EINVAL);
	CHECK(kmsg_parse_record("6,1;x", 5, &r) == -EINVAL);
	CHECK(kmsg_parse_record("a,1,2,-;x", 9, &r) == -EINVAL);
	CHECK(kmsg_parse_record("6,1,99999999999999999999999,-;x", 31, &r) == -EINVAL);
	CHECK(kmsg_parse_record("6,1,2", 5, &r) == -EINVAL);
	/* the text is cut, never overrun */
	{
		char big[KMSG_TEXT_MAX * 2];

		memset(big, 'a', sizeof(big));
		memcpy(big, "6,1,2,-;", 8);
		CHECK(kmsg_parse_record(big, sizeof(big), &r) == 0);
		CHECK_EQ_U64(strlen(r.text), KMSG_TEXT_MAX - 1);
	}
}

static void test_zone_line(void)
{
	struct kmsg_zone_line z;

	/* the watermark article's own line (6.10 arm64) */
	CHECK(kmsg_zone_line("Node 0 Normal free:1506472kB boost:0kB min:1506480kB low:1883100kB "
			     "high:2259720kB reserved_highatomic:0KB active_anon:0kB", &z));
	CHECK_EQ_U64(z.node, 0);
	CHECK_STR(z.zone, "Normal");
	CHECK_EQ_U64(z.free_kb, 1506472);
	CHECK_EQ_U64(z.min_kb, 1506480);
	CHECK_EQ_U64(z.low_kb, 1883100);
	CHECK_EQ_U64(z.high_kb, 2259720);
	CHECK(!kmsg_zone_line("Node 0 active_anon:0kB inactive_anon:0kB", &z));
	CHECK(!kmsg_zone_line("Node 0 Normal: 3*4kB (UM) 1*8kB = 20kB", &z));
	CHECK(!kmsg_zone_line("Node 0 Normal free:12kB boost:0kB", &z));
}

static void test_memcg_oom(void)
{
	struct kmsg_rec *recs;
	struct kmsg_oom oom[4];
	size_t n = load("memcg-oom-v1-6.18.kmsg", &recs), k;

	CHECK(n > 10);
	k = kmsg_oom_kills(recs, n, oom, 4);
	CHECK_EQ_U64(k, 1);
	if (k == 1) {
		CHECK_STR(oom[0].trigger, "region");
		CHECK_STR(oom[0].comm, "region");
		CHECK_STR(oom[0].constraint, "CONSTRAINT_MEMCG");
		/* the victim's memcg, from v1's memory hierarchy root */
		CHECK_STR(oom[0].task_memcg, "/process_api/1a4514338e054440964bfa43092f3b70/pagelab-29415-0");
		CHECK_EQ_U64(oom[0].oom_score_adj, 1000);
		CHECK_EQ_U64(oom[0].anon_rss_kb, 888448);
		CHECK_EQ_U64(oom[0].shmem_rss_kb, 0);
		CHECK_EQ_U64(oom[0].nzones, 0);       /* a memcg OOM prints no zone lines */
	}
	for (size_t i = 0; i < n; i++)
		if (strstr(recs[i].text, "Killed process") != NULL)
			CHECK(kmsg_interesting(recs[i].text));
	CHECK(!kmsg_interesting("rss_huge 0"));
	free(recs);
}

static void test_global_oom(void)
{
	struct kmsg_rec *recs;
	struct kmsg_oom oom[8];
	size_t n = load("global-oom-6.12.kmsg", &recs), k;

	CHECK(n > 10);
	k = kmsg_oom_kills(recs, n, oom, 8);
	CHECK(k >= 1);
	if (k >= 1) {
		bool normal = false;

		CHECK_STR(oom[0].constraint, "CONSTRAINT_NONE");
		CHECK_STR(oom[0].task_memcg, "/pagelab-193/sandbox-0");      /* after ",global_oom" */
		CHECK_STR(oom[0].comm, "stepper");
		CHECK_EQ_U64(oom[0].oom_score_adj, 1000);
		CHECK(oom[0].shmem_rss_kb > 0);                /* MAP_SHARED|MAP_ANONYMOUS */
		CHECK(oom[0].nzones >= 3);
		for (size_t z = 0; z < oom[0].nzones; z++) {
			const struct kmsg_zone_line *l = &oom[0].zones[z];

			CHECK(l->min_kb <= l->low_kb && l->low_kb <= l->high_kb);
			if (!strcmp(l->zone, "Normal") || !strcmp(l->zone, "DMA32"))
				normal = true;
		}
		CHECK(normal);
	}
	for (size_t i = 1; i < k; i++)
		CHECK(oom[i].ts_us >= oom[i - 1].ts_us);
	free(recs);
}

/* The kill line alone: every form of mm/oom_kill.c, and what only looks like one. */
static void test_kill_line(void)
{
	struct kmsg_oom k;

	memset(&k, 0, sizeof(k));
	/* 6.18, this host (memcg-oom-v1-6.18.kmsg) */
	CHECK(kmsg_kill_line("Memory cgroup out of memory: Killed process 29417 (region) total-vm:1243868kB, "
			     "anon-rss:888448kB, file-rss:1516kB, shmem-rss:0kB, UID:0 pgtables:1784kB "
			     "oom_score_adj:1000", &k));
	CHECK_EQ_U64(k.pid, 29417);
	CHECK_STR(k.comm, "region");
	CHECK_EQ_U64(k.anon_rss_kb, 888448);
	CHECK_EQ_U64(k.file_rss_kb, 1516);
	CHECK_EQ_U64(k.oom_score_adj, 1000);
	/* a comm of 15 bytes that holds ") total-vm:" and a negative adj */
	CHECK(kmsg_kill_line("Out of memory: Killed process 7 (a) total-vm:1kB) total-vm:10kB, anon-rss:1kB, "
			     "file-rss:2kB, shmem-rss:3kB, UID:0 pgtables:4kB oom_score_adj:-5", &k));
	CHECK_STR(k.comm, "a) total-vm:1kB");
	CHECK_EQ_U64(k.pid, 7);
	CHECK(k.oom_score_adj == -5);
	CHECK_EQ_U64(k.shmem_rss_kb, 3);
	/* the victim named "Killed process " (phantom-oom-v2-6.12.kmsg) */
	CHECK(kmsg_kill_line("Memory cgroup out of memory: Killed process 189 (Killed process ) total-vm:46052kB, "
			     "anon-rss:44928kB, file-rss:0kB, shmem-rss:324kB, UID:0 pgtables:128kB "
			     "oom_score_adj:1000", &k));
	CHECK_STR(k.comm, "Killed process ");
	CHECK(kmsg_kill_line("Out of memory (oom_kill_allocating_task): Killed process 3 (x) total-vm:1kB, "
			     "anon-rss:1kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0", &k));
	/* 4.x: no message, no UID/pgtables/oom_score_adj */
	CHECK(kmsg_kill_line("Killed process 5 (stress) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB", &k));
	CHECK_EQ_U64(k.pid, 5);
	CHECK_EQ_U64(k.oom_score_adj, 0);
	/* what only looks like one: the lines a process named "Killed process "
	 * gets in a report (task dump, trigger, summary, reaper), the words
	 * elsewhere in a line, a cut or malformed line */
	CHECK(!kmsg_kill_line("[    187]     0   187     1273     1105     1024        0        81    49152        0"
			      "         -1000 Killed process ", &k));
	CHECK(!kmsg_kill_line("Killed process  invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, "
			      "oom_score_adj=1000", &k));
	CHECK(!kmsg_kill_line("oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
			      "task=Killed process ,pid=189,uid=0", &k));
	CHECK(!kmsg_kill_line("oom_reaper: reaped process 189 (Killed process ), now anon-rss:0kB, file-rss:0kB, "
			      "shmem-rss:0kB", &k));
	CHECK(!kmsg_kill_line("Memory cgroup out of memory: OOM victim 9 (x) is already exiting. Skip killing the task", &k));
	CHECK(!kmsg_kill_line("audit: comm=\"x\" Out of memory: Killed process 1 (init) total-vm:4kB, anon-rss:4kB, "
			      "file-rss:0kB, shmem-rss:0kB", &k));
	CHECK(!kmsg_kill_line("Out of memory: Killed process 1 (init) total-vm:4kB, anon-rss:4kB", &k));
	CHECK(!kmsg_kill_line("Out of memory: Killed process (init) total-vm:4kB, anon-rss:4kB, file-rss:0kB, "
			      "shmem-rss:0kB", &k));
	CHECK(!kmsg_kill_line("Out of memory: Killed process 1 (init) total-vm:4kB, anon-rss:4kB, file-rss:0kB, "
			      "shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:", &k));
	CHECK(!kmsg_kill_line("Out of memory: Killed process 99999999999999999999 (x) total-vm:4kB, anon-rss:4kB, "
			      "file-rss:0kB, shmem-rss:0kB", &k));
	{
		/* a comm longer than any kernel prints */
		char line[512];

		snprintf(line, sizeof(line), "Out of memory: Killed process 1 (%0*d) total-vm:4kB, anon-rss:4kB, "
			 "file-rss:0kB, shmem-rss:0kB", KMSG_COMM_MAX, 0);
		CHECK(!kmsg_kill_line(line, &k));
	}
}

/* Only the kernel's own records count: the same kill line from user space
 * (facility LOG_USER) is no kill. */
/* The summary's task_memcg: up to the first ",task=" after it (a comm may
 * hold the words too); none when the line has none; a path too long is
 * left out rather than cut to another cgroup's. */
static void test_task_memcg(void)
{
	static const char *const lines[][2] = {
		{ "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/a/b,"
		  "task_memcg=/a/b,task=x,task=y,pid=7,uid=0", "/a/b" },
		{ "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,task=z,pid=7,uid=0",
		  "" },
		{ "oom-kill:constraint=CONSTRAINT_MEMCG,task_memcg=/c", "" },
	};
	char longl[600];

	snprintf(longl, sizeof(longl), "oom-kill:constraint=CONSTRAINT_MEMCG,task_memcg=/%0300d,task=w,pid=7,uid=0", 0);
	for (size_t i = 0; i < 4; i++) {
		struct kmsg_rec r[3] = { { .prio = 3, .seq = 1 }, { .prio = 3, .seq = 2 }, { .prio = 3, .seq = 3 } };
		struct kmsg_oom oom[1];

		snprintf(r[0].text, sizeof(r[0].text), "w invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0");
		snprintf(r[1].text, sizeof(r[1].text), "%s", i < 3 ? lines[i][0] : longl);
		snprintf(r[2].text, sizeof(r[2].text), "Memory cgroup out of memory: Killed process 7 (x) total-vm:8kB, "
			 "anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0");
		CHECK_EQ_U64(kmsg_oom_kills(r, 3, oom, 1), 1);
		CHECK_STR(oom[0].task_memcg, i < 3 ? lines[i][1] : "");
	}
}

static void test_facility(void)
{
	struct kmsg_rec r[2];
	struct kmsg_oom oom[2];
	const char *kern = "3,1,2,-;Out of memory: Killed process 4 (x) total-vm:4kB, anon-rss:4kB, file-rss:0kB, "
			   "shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0";
	const char *user = "11,2,3,-;Out of memory: Killed process 4 (x) total-vm:4kB, anon-rss:4kB, file-rss:0kB, "
			   "shmem-rss:0kB, UID:0 pgtables:0kB oom_score_adj:0";

	CHECK(kmsg_parse_record(kern, strlen(kern), &r[0]) == 0);
	CHECK(kmsg_parse_record(user, strlen(user), &r[1]) == 0);
	CHECK_EQ_U64(kmsg_oom_kills(r, 2, oom, 2), 1);
	CHECK_EQ_U64(kmsg_oom_kills(r + 1, 1, oom, 2), 0);
}

/* A real report with a process named "Killed process " in it (see the top). */
static void check_phantom(const char *fixture, long long hog, long long named, long long anon_kb,
			  long long shmem_kb)
{
	struct kmsg_rec *recs;
	struct kmsg_oom oom[8];
	size_t n = load(fixture, &recs), k, user = 0;

	CHECK(n > 50);
	for (size_t i = 0; i < n; i++)
		if (recs[i].prio >= 8) {
			user++;
			CHECK(strstr(recs[i].text, "Killed process 1 (init)") != NULL);
		}
	CHECK_EQ_U64(user, 2);          /* the phantom's own two lines, as LOG_USER */
	k = kmsg_oom_kills(recs, n, oom, 8);
	CHECK_EQ_U64(k, 2);
	if (k == 2) {
		CHECK(oom[0].pid == hog);
		CHECK_STR(oom[0].comm, "hog");
		CHECK_STR(oom[0].trigger, "hog");
		CHECK_STR(oom[0].constraint, "CONSTRAINT_MEMCG");
		CHECK(oom[0].anon_rss_kb == anon_kb);
		CHECK(oom[0].shmem_rss_kb == shmem_kb);
		CHECK_EQ_U64(oom[0].oom_score_adj, 1000);
		CHECK(oom[1].pid == named);
		CHECK_STR(oom[1].comm, "Killed process ");
		CHECK_STR(oom[1].trigger, "Killed process ");
		CHECK_STR(oom[1].constraint, "CONSTRAINT_MEMCG");
		CHECK_STR(oom[0].task_memcg, "/kmsg-phantom");
		CHECK_STR(oom[1].task_memcg, "/kmsg-phantom");
		CHECK_EQ_U64(oom[1].oom_score_adj, 1000);
		CHECK(oom[1].ts_us > oom[0].ts_us);
	}
	/* kept in a result only as the kernel's records (kmsg_drain), but the
	 * text filter itself still sees every line that mentions a kill */
	for (size_t i = 0; i < n; i++)
		if (strncmp(recs[i].text, "oom-kill:", 9) == 0)
			CHECK(kmsg_interesting(recs[i].text));
	free(recs);
}

static void test_phantom(void)
{
	check_phantom("phantom-oom-v2-6.12.kmsg", 188, 189, 44928, 324);
	check_phantom("phantom-oom-v2-6.1.kmsg", 140, 141, 44892, 408);
}

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "tests/fixtures";
	test_records();
	test_zone_line();
	test_memcg_oom();
	test_global_oom();
	test_kill_line();
	test_task_memcg();
	test_facility();
	test_phantom();
	printf("test_kmsg: %d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed ? 1 : 0;
}
