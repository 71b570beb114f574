/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit-cost — what the sampler's audit of itself adds to a tick (scripts/bench
 * (c), docs/benchmark.md): the same operations a plain tick does for it, timed
 * over many rounds, with nothing else in the loop.  Per tick the audit reads
 * CLOCK_MONOTONIC twice around each file read (base/kfile.c: account) and
 * once at the timer's wakeup (sample/audit.c: audit_wake), with the
 * process's CPU clock (the steady state's split), holds a histogram
 * add (base/hist.h: lab_hist_stage_add, made in batches) once per source,
 * once for the sample's reads, once for the tick's CPU and once for its
 * interval, and counts each source's samples and bytes — everything else
 * of a tick it needs (cost_us) was measured before the audit came.
 *
 *   audit-cost SOURCES FILES [ROUNDS [EVICT_MIB]]   (SOURCES, FILES: a tick's, from the sources line)
 *
 * Prints "ns_per_tick=N" (the median of 9 passes).  With EVICT_MIB, between
 * two ticks (untimed) that much memory is written over, as the rest of a
 * tick and 250 ms of a busy machine would: the audit's histograms and
 * counters are then as cold as the harness finds them.  Built with the tree
 * (tests/bench/CMakeLists.txt), -O2 as the harness. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/hist.h"

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t process_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long positive(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno != 0 || end == s || *end != '\0' || v <= 0 ? 0 : v;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static struct lab_hist src_read[16], sample, tick, iv;
	static struct lab_hist_stage stage;
	static struct { unsigned long long n, bytes; } src[16];
	long ns, nf, rounds = 200000, evict = 0;
	char *junk = NULL;
	double pass[9];
	volatile uint64_t sink = 0;

	if (argc < 3 || (ns = positive(argv[1])) == 0 || ns > 16 || (nf = positive(argv[2])) == 0 ||
	    (argc > 3 && (rounds = positive(argv[3])) == 0) || (argc > 4 && (evict = positive(argv[4])) == 0))
		return 2;
	if (evict > 0 && (junk = malloc((size_t)evict << 20)) == NULL)
		return 1;
	for (int p = 0; p < 9; p++) {
		uint64_t spent = 0;

		for (long r = 0; r < rounds; r++) {
			uint64_t w, reads = 0, t0;

			if (junk != NULL)
				for (size_t b = 0; b < ((size_t)evict << 20); b += 64)
					junk[b] = (char)(b + (size_t)r);
			t0 = mono();
			w = t0 + process_cpu();

			lab_hist_stage_add(&stage, &iv, 250000000 + (uint64_t)(r & 1023));
			for (long f = 0; f < nf; f++) {
				uint64_t a = mono();

				reads += mono() - a;
			}
			for (long s = 0; s < ns; s++) {
				lab_hist_stage_add(&stage, &src_read[s], reads / (uint64_t)ns + 15000);
				src[s].n++;
				src[s].bytes += 4000;
			}
			lab_hist_stage_add(&stage, &sample, reads + 100000);
			lab_hist_stage_add(&stage, &tick, 250000 + (uint64_t)(r & 4095));
			sink += w;
			spent += mono() - t0;
		}
		pass[p] = (double)spent / (double)rounds;
	}
	qsort(pass, 9, sizeof(pass[0]), cmp);
	printf("ns_per_tick=%.0f\n", pass[4]);
	return sink == 0;
}
