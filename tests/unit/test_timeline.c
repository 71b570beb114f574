/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_timeline.c — the derived figures of a run's tracepoints, from a
 * sequence shaped like a capture (kswapd on node 0 waking at the low line,
 * a cut-short nap, a full sleep woken 40 ms later; two direct stalls on two
 * CPUs, one that migrated; memcg stalls in and outside the sandbox; two OOM
 * victims 91 ms apart, the article's gap).  Expected numbers are worked out
 * by hand in the comments. */
#include "unit.h"

#include <stdint.h>

#include "sample/trace/timeline.h"

static const struct trace_event_def *def(const char *name)
{
	for (size_t i = 0; i < trace_nr_events; i++)
		if (!strcmp(trace_events[i].name, name))
			return &trace_events[i];
	return NULL;
}

#define MS(x) ((uint64_t)((x) * 1000000.0))
#define T0 MS(1000)

static struct trace_rec rec(const char *name, double t_ms, int cpu, int pid, bool sb, long long nid,
			    long long pages, long long victim)
{
	struct trace_rec r = { .def = def(name), .ts_ns = T0 + MS(t_ms), .cpu = cpu, .pid = pid, .in_sandbox = sb,
			       .nid = nid, .nr_reclaimed = pages, .victim_pid = victim, .raw = NULL };

	return r;
}

static double num(json_t *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	return json_number_value(o);
}

int main(int argc, char **argv)
{
	struct timeline *tl = timeline_new(T0, 1000, false);
	json_t *events = json_array(), *intervals = json_array(), *sum;
	/* Out of order on purpose: CPU 1's records come first (drained first). */
	struct trace_rec a[] = {
		rec("mm_vmscan_direct_reclaim_end", 12.0, 1, 200, false, -1, 32, -1),  /* migrated: began on CPU 0 */
		rec("mm_vmscan_memcg_reclaim_begin", 20.0, 1, 300, true, -1, -1, -1),
		rec("mm_vmscan_memcg_reclaim_end", 20.5, 1, 300, true, -1, 10, -1),
		rec("mm_vmscan_memcg_reclaim_begin", 21.0, 1, 400, false, -1, -1, -1),   /* a neighbour's cgroup */
		rec("mm_vmscan_memcg_reclaim_end", 22.0, 1, 400, false, -1, 99, -1),
		rec("mm_vmscan_wakeup_kswapd", 5.0, 0, 200, false, 0, -1, -1),
		rec("mm_vmscan_kswapd_wake", 6.0, 0, 50, false, 0, -1, -1),
		rec("mm_vmscan_direct_reclaim_begin", 10.0, 0, 200, false, -1, -1, -1),
		/* nap cut short: balance_pgdat again without kswapd_sleep */
		rec("mm_vmscan_kswapd_wake", 100.0, 0, 50, false, 0, -1, -1),
		rec("mm_vmscan_kswapd_sleep", 306.0, 0, 50, false, 0, -1, -1),
		/* woken 40 ms after the full sleep: premature */
		rec("mm_vmscan_kswapd_wake", 346.0, 0, 50, false, 0, -1, -1),
	};
	struct trace_rec b[] = {
		rec("mm_vmscan_kswapd_sleep", 446.0, 0, 50, false, 0, -1, -1),
		rec("mm_vmscan_direct_reclaim_begin", 1500.0, 0, 201, true, -1, -1, -1),
		rec("mm_vmscan_direct_reclaim_end", 1504.0, 0, 201, true, -1, 64, -1),
		rec("mark_victim", 2000.0, 0, 201, true, -1, -1, 201),
		rec("mark_victim", 2091.0, 1, 202, true, -1, -1, 202),
	};

	(void)argc;
	(void)argv;
	CHECK(tl != NULL);
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		b[i].raw = json_object();
	/* Horizon 15 ms: the wake at 100 ms and later wait for the next feed. */
	CHECK(timeline_feed(tl, a, sizeof(a) / sizeof(a[0]), T0 + MS(15), events, intervals, NULL, NULL) == 0);
	CHECK(timeline_kswapd_awake(tl));
	CHECK(!timeline_stall_open(tl));        /* the direct stall 10..12 ms closed */
	CHECK(timeline_feed(tl, b, sizeof(b) / sizeof(b[0]), UINT64_MAX, events, intervals, NULL, NULL) == 0);
	timeline_finish(tl, intervals, NULL, NULL);
	CHECK(!timeline_kswapd_awake(tl));
	sum = timeline_summary(tl, T0 + MS(3000));

	/* kswapd: awake 6..306 (300 ms) and 346..446 (100 ms). */
	CHECK_EQ_U64(num(sum, "kswapd.wakes"), 3);
	CHECK_EQ_U64(num(sum, "kswapd.sleeps"), 2);
	CHECK_EQ_U64(num(sum, "kswapd.awake_intervals"), 2);
	CHECK(num(sum, "kswapd.awake_total_ms") > 399.9 && num(sum, "kswapd.awake_total_ms") < 400.1);
	CHECK(num(sum, "kswapd.awake_longest_ms") > 299.9 && num(sum, "kswapd.awake_longest_ms") < 300.1);
	CHECK_EQ_U64(num(sum, "kswapd.premature_sleeps"), 1);
	CHECK_EQ_U64(num(sum, "kswapd.rewakes_without_sleep"), 1);
	CHECK_EQ_U64(num(sum, "kswapd.wakeups"), 1);
	/* direct: 2 ms (32 pages) and 4 ms (64 pages); p50 3 ms (interpolated), max 4 ms. */
	CHECK_EQ_U64(num(sum, "stalls.direct.count"), 2);
	CHECK_EQ_U64(num(sum, "stalls.direct.pages"), 96);
	CHECK(num(sum, "stalls.direct.max_us") > 3999 && num(sum, "stalls.direct.max_us") < 4001);
	CHECK(num(sum, "stalls.direct.p50_us") > 2999 && num(sum, "stalls.direct.p50_us") < 3001);
	CHECK_EQ_U64(num(sum, "stalls.direct.other_tasks_count"), 1);
	/* memcg: only the sandbox's (10 pages); the neighbour's 99 apart. */
	CHECK_EQ_U64(num(sum, "stalls.memcg.count"), 1);
	CHECK_EQ_U64(num(sum, "stalls.memcg.pages"), 10);
	CHECK_EQ_U64(num(sum, "stalls.memcg.other_tasks_count"), 1);
	CHECK_EQ_U64(num(sum, "stalls.memcg.other_tasks_pages"), 99);
	/* first wakeup_kswapd 5 ms, first stall 10 ms. */
	CHECK(num(sum, "wakeup_to_first_stall_ms") > 4.99 && num(sum, "wakeup_to_first_stall_ms") < 5.01);
	/* OOM victims 91 ms apart. */
	CHECK_EQ_U64(json_array_size(json_object_get(sum, "oom_victims")), 2);
	CHECK(json_number_value(json_array_get(json_object_get(sum, "oom_victim_gaps_ms"), 0)) > 90.99);
	CHECK(json_number_value(json_array_get(json_object_get(sum, "oom_victim_gaps_ms"), 0)) < 91.01);
	/* Raw: the low-rate records of b (kswapd_sleep, two mark_victim), not the stalls. */
	CHECK_EQ_U64(json_array_size(events), 3);
	/* Intervals (1 s): [0,1000) holds 1 direct + 2 memcg... the neighbour's
	 * memcg stall is not the sandbox's, so 1; [1000,2000) one direct. */
	CHECK_EQ_U64(json_array_size(intervals), 2);
	CHECK_EQ_U64(num(json_array_get(intervals, 0), "direct.count"), 1);
	CHECK_EQ_U64(num(json_array_get(intervals, 0), "memcg.count"), 1);
	CHECK_EQ_U64(num(json_array_get(intervals, 1), "direct.count"), 1);
	CHECK_EQ_U64(num(json_array_get(intervals, 1), "direct.pages"), 64);
	json_decref(sum);
	json_decref(events);
	json_decref(intervals);
	timeline_free(tl);

	/* More stalls than are kept (2^20): the quantiles come from a uniform
	 * sample and stay right; the maximum stays exact.  1.2 M memcg stalls
	 * of (i mod 1000) µs: p50 ~500 µs, p99 ~990 µs, max 999 µs. */
	{
		struct timeline *big = timeline_new(T0, 1000, false);
		json_t *ev = json_array(), *iv = json_array(), *s;
		enum { N = 1200000, CHUNK = 100000 };
		struct trace_rec *rs = calloc(2 * CHUNK, sizeof(*rs));
		uint64_t t = T0;

		CHECK(big != NULL && rs != NULL);
		for (int done = 0; done < N; done += CHUNK) {
			for (int i = 0; i < CHUNK; i++) {
				int k = done + i;

				rs[2 * i] = rec("mm_vmscan_memcg_reclaim_begin", 0, 0, 7, true, -1, -1, -1);
				rs[2 * i].ts_ns = t;
				t += (uint64_t)(k % 1000) * 1000;
				rs[2 * i + 1] = rec("mm_vmscan_memcg_reclaim_end", 0, 0, 7, true, -1, 1, -1);
				rs[2 * i + 1].ts_ns = t;
				t += 1000;
			}
			CHECK(timeline_feed(big, rs, 2 * CHUNK, UINT64_MAX, ev, iv, NULL, NULL) == 0);
		}
		s = timeline_summary(big, t);
		CHECK_EQ_U64(num(s, "stalls.memcg.count"), N);
		CHECK_EQ_U64(num(s, "stalls.memcg.quantiles_of"), 1u << 20);
		CHECK(num(s, "stalls.memcg.max_us") > 998.9 && num(s, "stalls.memcg.max_us") < 999.1);
		CHECK(num(s, "stalls.memcg.p50_us") > 480 && num(s, "stalls.memcg.p50_us") < 520);
		CHECK(num(s, "stalls.memcg.p99_us") > 980 && num(s, "stalls.memcg.p99_us") <= 999);
		json_decref(s);
		json_decref(ev);
		json_decref(iv);
		free(rs);
		timeline_free(big);
	}

	/* mm_vmscan_lru_shrink_inactive: summed by list (reclaim_flags 0x2 file,
	 * 0x1 anon) and by who scanned (the sandbox's task, a kswapd, another),
	 * per interval and over the run.  A file-list pass with nr_activate0 > 0
	 * is the signature of lazily freed folios turned anon
	 * (mm/vmscan.c: shrink_folio_list, activate_locked). */
	{
		struct timeline *lt = timeline_new(T0, 1000, false);
		json_t *ev = json_array(), *iv = json_array(), *s;
		struct trace_rec r[4];

		for (int i = 0; i < 4; i++) {
			r[i] = rec("mm_vmscan_lru_shrink_inactive", 10.0 + i, 0, 300, true, -1, 32, -1);
			r[i].lru = (struct trace_lru_fields){ .nr_scanned = 32, .nr_activate0 = 0, .nr_activate1 = 0,
							      .nr_unmap_fail = 0, .nr_ref_keep = 0, .flags = 0x2 | 0x8 };
		}
		r[1].lru.nr_activate0 = 512;
		r[1].lru.nr_unmap_fail = 512;
		r[1].nr_reclaimed = 0;
		r[2].in_sandbox = false;
		r[2].lru.kswapd = true;
		r[3].in_sandbox = false;
		r[3].ts_ns = T0 + MS(1500);
		r[3].lru.flags = 0x1 | 0x8;
		CHECK(lt != NULL);
		CHECK(timeline_feed(lt, r, 4, UINT64_MAX, ev, iv, NULL, NULL) == 0);
		timeline_finish(lt, iv, NULL, NULL);
		s = timeline_summary(lt, T0 + MS(2000));
		CHECK_EQ_U64(num(s, "lru.file.sandbox.events"), 2);
		CHECK_EQ_U64(num(s, "lru.file.sandbox.nr_scanned"), 64);
		CHECK_EQ_U64(num(s, "lru.file.sandbox.nr_reclaimed"), 32);
		CHECK_EQ_U64(num(s, "lru.file.sandbox.nr_activate0"), 512);
		CHECK_EQ_U64(num(s, "lru.file.sandbox.nr_unmap_fail"), 512);
		CHECK_EQ_U64(num(s, "lru.file.kswapd.events"), 1);
		CHECK_EQ_U64(num(s, "lru.anon.other.events"), 1);
		CHECK(json_object_get(json_object_get(json_object_get(s, "lru"), "anon"), "sandbox") == NULL);
		CHECK_EQ_U64(json_array_size(iv), 2);
		CHECK_EQ_U64(num(json_array_get(iv, 0), "lru.file.sandbox.events"), 2);
		CHECK_EQ_U64(num(json_array_get(iv, 1), "lru.anon.other.nr_scanned"), 32);
		CHECK_EQ_U64(json_array_size(ev), 0);          /* high-rate: not kept one by one */
		json_decref(s);
		json_decref(ev);
		json_decref(iv);
		timeline_free(lt);
	}

	/* mm_vmscan_reclaim_pages: summed by who called it — the sandbox's task
	 * (MADV_PAGEOUT), a kdamond (DAMON's pageout), another — over the run.
	 * The figures of a madv-free/pageout run on 6.18 without swap: one event
	 * per 2 MiB of the 512 MiB region, every page scanned, none reclaimed,
	 * every one activated; a kdamond paged out others' cache meanwhile. */
	{
		struct timeline *pt = timeline_new(T0, 1000, false);
		json_t *ev = json_array(), *iv = json_array(), *s;
		struct trace_rec r[258];

		for (int i = 0; i < 256; i++) {
			r[i] = rec("mm_vmscan_reclaim_pages", 10.0 + i * 0.01, 0, 300, true, -1, 0, -1);
			r[i].lru = (struct trace_lru_fields){ .nr_scanned = 512, .nr_activate0 = 512 };
		}
		for (int i = 256; i < 258; i++) {
			r[i] = rec("mm_vmscan_reclaim_pages", 20.0 + i * 0.01, 1, 84, false, -1, 585, -1);
			r[i].lru = (struct trace_lru_fields){ .nr_scanned = 608, .nr_activate1 = 18, .kdamond = true };
		}
		CHECK(pt != NULL);
		CHECK(timeline_feed(pt, r, 258, UINT64_MAX, ev, iv, NULL, NULL) == 0);
		timeline_finish(pt, iv, NULL, NULL);
		s = timeline_summary(pt, T0 + MS(2000));
		CHECK_EQ_U64(num(s, "reclaim_pages.sandbox.events"), 256);
		CHECK_EQ_U64(num(s, "reclaim_pages.sandbox.nr_scanned"), 131072);
		CHECK_EQ_U64(num(s, "reclaim_pages.sandbox.nr_reclaimed"), 0);
		CHECK_EQ_U64(num(s, "reclaim_pages.sandbox.nr_activate0"), 131072);
		CHECK_EQ_U64(num(s, "reclaim_pages.kdamond.events"), 2);
		CHECK_EQ_U64(num(s, "reclaim_pages.kdamond.nr_reclaimed"), 1170);
		CHECK_EQ_U64(num(s, "reclaim_pages.kdamond.nr_activate1"), 36);
		CHECK(json_object_get(json_object_get(s, "reclaim_pages"), "other") == NULL);
		CHECK(json_object_size(json_object_get(s, "lru")) == 0);      /* not an LRU scan */
		CHECK_EQ_U64(json_array_size(ev), 0);          /* high-rate: not kept one by one */
		json_decref(s);
		json_decref(ev);
		json_decref(iv);
		timeline_free(pt);
	}

	/* The sets (tracedef.c): words, the labs' defaults, refusals. */
	{
		unsigned set;
		bool dflt;
		char txt[160];
		struct lab_error e;

		CHECK(tracedef_parse_set("kswapd, oom", &set, &dflt, &e) == 0 && !dflt);
		tracedef_set_text(set, txt, sizeof(txt));
		CHECK_STR(txt, "kswapd oom");
		CHECK(tracedef_parse_set("default", &set, &dflt, &e) == 0 && dflt);
		CHECK(tracedef_parse_set("all", &set, &dflt, &e) == 0 && set == tracedef_all_set());
		CHECK(tracedef_parse_set("none", &set, &dflt, &e) == 0 && set == TRACE_SET_NONE);
		CHECK(tracedef_parse_set("kswapd bogus", &set, &dflt, &e) == -EINVAL);
		CHECK(strstr(e.msg, "unknown 'bogus'") != NULL);
		CHECK(tracedef_parse_set("all kswapd", &set, &dflt, &e) == -EINVAL);
		CHECK(tracedef_parse_set(" , ", &set, &dflt, &e) == -EINVAL);
		tracedef_set_text(tracedef_default_set("watermarks/kswapd-runs"), txt, sizeof(txt));
		CHECK_STR(txt, "kswapd direct compaction oom markers pageout");
		tracedef_set_text(tracedef_default_set("madv-free/pressure"), txt, sizeof(txt));
		CHECK_STR(txt, "direct memcg oom markers pageout");
		tracedef_set_text(tracedef_default_set("my/own"), txt, sizeof(txt));
		CHECK_STR(txt, "kswapd direct memcg oom markers pageout");
	}
	printf("timeline: %d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed ? 1 : 0;
}
