/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_audit.c — the sampler's audit of itself (harness/sample/audit.h) on
 * constructed series, the figures of which are known:
 *
 *   - memory.stat's lag: memory.current rising 10 MiB a sample, memory.stat
 *     2 MiB under it at one sample (stale: a lag of 2 MiB, beyond the 64 x
 *     CPUs pages of charge stock and a page per CPU in flight, so with a
 *     time: the sample before read what memory.stat reads now, one interval
 *     back; with a 2 MiB folio per CPU in flight, THP on, it is within the
 *     allowance and has no time); then the release seen
 *     on the host (6.18, 2 GiB freed at ~50 MB/ms): a sample whose
 *     memory.current had not moved yet but whose memory.stat, read after it,
 *     already had — read-order skew, memory.stat AHEAD of the movement, never
 *     counted as lag — and falling samples with memory.stat under
 *     memory.current (ahead again);
 *   - the cadence: intervals and missed expirations, and "far" when the
 *     median is 30 % off the asked.
 */
#include <stdint.h>

#include "sample/audit.h"
#include "unit.h"

#define MIB (1024ull * 1024)

/* The series of test_lag with the faults in flight allowed as one folio of
 * folio_bytes per CPU (audit_begin reads it from this host's THP settings:
 * set here, so the figures do not depend on them). */
static void lag_series(struct sampler_audit *a, long long folio)
{
	long long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	audit_begin(a, 0);
	CHECK(a->folio_bytes >= sysconf(_SC_PAGESIZE));
	CHECK(a->in_flight_bytes == a->folio_bytes * cpus);
	a->folio_bytes = folio;
	a->in_flight_bytes = folio * cpus;
	audit_lag(a, 0, 0, 0);                                  /* empty: base 0 */
	audit_lag(a, 10, 10 * MIB, 10 * MIB);                   /* in step */
	audit_lag(a, 20, 20 * MIB, 18 * MIB);                   /* 2 MiB behind a rise */
	audit_lag(a, 30, 30 * MIB, 30 * MIB);
	audit_flush(a);
}

static void test_lag(void)
{
	static struct sampler_audit a;
	long long stock = 64ll * sysconf(_SC_NPROCESSORS_ONLN) * sysconf(_SC_PAGESIZE);
	long long page = sysconf(_SC_PAGESIZE);

	/* A page per CPU in flight (THP never): 2 MiB behind is stale when it
	 * is more than the stock and those pages; with a 2 MiB folio per CPU
	 * (THP on) it is a huge page being faulted in, and no time is counted. */
	lag_series(&a, page);
	CHECK_EQ_U64(a.lag_max, 2 * MIB);
	if ((long long)(2 * MIB) > stock + a.in_flight_bytes)
		CHECK(a.lag_ms_max == 10);
	lag_series(&a, 2 * MIB);
	CHECK_EQ_U64(a.lag_max, 2 * MIB);
	CHECK(a.lag_ms_max == 0);

	audit_begin(&a, 0);
	a.folio_bytes = page;
	a.in_flight_bytes = page * sysconf(_SC_NPROCESSORS_ONLN);
	audit_lag(&a, 0, 0, 0);                                 /* empty: base 0 */
	audit_lag(&a, 10, 10 * MIB, 10 * MIB);                  /* in step */
	audit_lag(&a, 20, 20 * MIB, 18 * MIB);                  /* 2 MiB behind a rise */
	audit_lag(&a, 30, 30 * MIB, 30 * MIB);
	audit_lag(&a, 40, 30 * MIB, 24 * MIB);                  /* flat, stat 6 MiB lower: */
	audit_lag(&a, 50, 12 * MIB, 4 * MIB);                   /* ... the release began: skew */
	audit_lag(&a, 60, 0, 0);
	audit_flush(&a);
	CHECK_EQ_U64(a.lag_samples, 7);
	CHECK_EQ_U64(a.lag_base, 0);
	CHECK_EQ_U64(a.lag_max, 2 * MIB);
	CHECK(a.lag_max_at_ms == 20);
	CHECK_EQ_U64(a.lag_ahead, 8 * MIB);                     /* the falling sample's 8 MiB */
	if ((long long)(2 * MIB) > stock + a.in_flight_bytes) {
		/* memory.current read 18 MiB or less last at t = 10 (10 MiB;
		 * with the stock and a page per CPU added, 18 MiB + those >
		 * 10 MiB): 10 ms back. */
		CHECK(a.lag_ms_max == 10);
	}
}

static void test_cadence(void)
{
	static struct sampler_audit a;
	char far[256];
	json_t *j;

	audit_begin(&a, 0);
	for (int i = 0; i <= 20; i++)           /* 325 ms apart for 250 asked: 30 % off */
		audit_wake(&a, (uint64_t)i * 325000000ull, 1, false);
	audit_wake(&a, 21 * 325000000ull + 1000000000ull, 5, false);    /* 4 missed */
	audit_flush(&a);
	CHECK_EQ_U64(a.tick_iv_ns.n, 21);
	CHECK_EQ_U64(a.missed, 4);
	CHECK_EQ_U64(a.wakes, 26);
	j = audit_json(&a, NULL, 250, 0, 0, 22, "anon+file+kernel", far, sizeof(far));
	CHECK_CONTAINS(far, "tick interval p50");
	CHECK_CONTAINS(far, "for 250 ms asked");
	CHECK_CONTAINS(far, "4 of 26 timer expirations missed");
	CHECK(json_integer_value(json_object_get(json_object_get(j, "interval"), "missed")) == 4);
	json_decref(j);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	test_lag();
	test_cadence();
	printf("audit: %d checks, %d failed\n", unit_checks, unit_failed);
	return unit_failed != 0;
}
