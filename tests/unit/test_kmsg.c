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

int main(int argc, char **argv)
{
	root = argc > 1 ? argv[1] : "tests/fixtures";
	test_records();
	test_zone_line();
	test_memcg_oom();
	test_global_oom();
	printf("test_kmsg: %d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed ? 1 : 0;
}
