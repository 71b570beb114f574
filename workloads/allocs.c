/* SPDX-License-Identifier: GPL-2.0-or-later */
/* allocs — memory allocated and freed through a real allocator.
 *
 *   allocs --allocator glibc|jemalloc [--malloc-conf CONF] --size SIZE [--chunk SIZE]
 *          [--keep-last] [--trim] [--hold MS] [--pressure SIZE] [--event-fd N] [--ack-fd N]
 *
 * The MADV_FREE article's warning ("if you sized a container quota from
 * observed RSS…") is about allocators that return freed memory with
 * MADV_FREE: the pages stay in Rss as LazyFree until reclaim wants them.
 * This workload asks a real allocator for SIZE in malloc(CHUNK) calls (each
 * chunk written, so every page is resident), frees all of it, and reports
 * after each step what the process holds (smaps_rollup: Rss, LazyFree):
 *
 *   alloc      SIZE allocated and written
 *   free       every chunk freed (the allocator decides what goes back), or
 *              all but the last with --keep-last
 *   trim       --trim: glibc malloc_trim(0) (returns free heap pages with
 *              MADV_DONTNEED, glibc 2.8+: malloc/malloc.c mtrim); jemalloc
 *              mallctl("arena.<MALLCTL_ARENAS_ALL>.purge")
 *   hold       --hold MS: nothing, for MS (decay needs time, and allocator
 *              activity: jemalloc purges on its own only when called again or
 *              from a background thread, which is off by default)
 *   pressure   --pressure SIZE: a second mapping of SIZE written page by page
 *              and unmapped: what reclaim takes back under the sandbox's limit
 *
 * jemalloc is Debian's libjemalloc2 (libjemalloc.so.2), preloaded: the
 * workload re-executes itself once with LD_PRELOAD=libjemalloc.so.2 (and
 * MALLOC_CONF=CONF), so malloc and free are jemalloc's and the same binary
 * measures both allocators.  dlopen cannot load it: its thread-local state is
 * initial-exec TLS ("cannot allocate memory in static TLS block", measured).  The start event carries what
 * jemalloc says its options are (opt.dirty_decay_ms, opt.muzzy_decay_ms):
 * the article's "jemalloc's muzzy decay is off by default" is read from the
 * library, not assumed.
 *
 * Exit status: 0 done, 1 a step failed (an `error` event says which),
 * 2 bad arguments, 3 the allocator cannot be loaded (no libjemalloc2).
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "events.h"
#include "lockdown.h"
#include "decl.h"

/* include/jemalloc/jemalloc_macros.h: MALLCTL_ARENAS_ALL */
#define JE_ARENAS_ALL 4096

struct config {
	bool jemalloc, trim, keep_last;
	const char *conf;
	unsigned long long size, chunk, hold_ms, pressure;
};

struct allocator {
	void *(*malloc_fn)(size_t);
	void (*free_fn)(void *);
	int (*mallctl)(const char *, void *, size_t *, void *, size_t);
};

static void usage(FILE *f)
{
	wl_decl_usage(&wl_decl_allocs, f);
}

/* One option of the declaration (workloads/decl/allocs.c), typed: what it sets. */
static int set_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		   struct lab_error *err)
{
	struct config *cfg = ctx;

	(void)err;
	if (!strcmp(opt->key, "allocator"))
		cfg->jemalloc = !strcmp(val, "jemalloc");
	else if (!strcmp(opt->key, "malloc_conf"))
		cfg->conf = val;
	else if (!strcmp(opt->key, "size"))
		cfg->size = v;
	else if (!strcmp(opt->key, "chunk"))
		cfg->chunk = v;
	else if (!strcmp(opt->key, "keep_last"))
		cfg->keep_last = v;
	else if (!strcmp(opt->key, "trim"))
		cfg->trim = v;
	else if (!strcmp(opt->key, "hold"))
		cfg->hold_ms = v;
	else if (!strcmp(opt->key, "pressure"))
		cfg->pressure = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct config *cfg, struct events *ev, struct lab_error *err)
{
	struct events_args ea = { .ev = ev };
	const struct wl_argv a = { .pre = events_argv_pre, .pre_ctx = &ea, .set = set_opt, .ctx = cfg };
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->chunk = 64 << 10;
	if ((ret = wl_parse_argv(&wl_decl_allocs, argc, argv, &a, err)) < 0)
		return ret;
	if (cfg->size == 0 || cfg->chunk == 0 || cfg->chunk > cfg->size)
		return lab_error_set(err, EINVAL, "--size and --chunk must be positive, the chunk no larger");
	if (cfg->conf != NULL && !cfg->jemalloc)
		return lab_error_set(err, EINVAL, "--malloc-conf is jemalloc's");
	return 0;
}

#define PRELOADED "PAGELAB_ALLOCS_JEMALLOC"

/* First pass: re-execute with jemalloc preloaded (never returns on success).
 * Second pass: jemalloc's mallctl must be there, else it was not loaded. */
static int load_jemalloc(const struct config *cfg, char **argv, struct allocator *al, struct lab_error *err)
{
	if (getenv(PRELOADED) == NULL) {
		if (setenv("LD_PRELOAD", "libjemalloc.so.2", 1) < 0 || setenv(PRELOADED, "1", 1) < 0 ||
		    (cfg->conf != NULL && setenv("MALLOC_CONF", cfg->conf, 1) < 0))
			return lab_error_errno(err, errno, "setenv");
		execv("/proc/self/exe", argv);
		return lab_error_errno(err, errno, "re-exec with LD_PRELOAD=libjemalloc.so.2");
	}
	*(void **)&al->mallctl = dlsym(RTLD_DEFAULT, "mallctl");
	if (al->mallctl == NULL)
		return lab_error_set(err, ENOENT, "libjemalloc.so.2 was not preloaded (apt-get install libjemalloc2; "
				     "a static build cannot preload it)");
	return 0;
}

static long long je_opt(const struct allocator *al, const char *name)
{
	ssize_t v = -2;
	size_t len = sizeof(v);

	if (al->mallctl == NULL || al->mallctl(name, &v, &len, NULL, 0) != 0)
		return -2;
	return (long long)v;
}

/* A decay time: milliseconds, or "never" (-1: jemalloc never purges), or
 * "unreadable". */
static void je_put(struct ev_line *l, const char *key, long long v)
{
	if (v >= 0)
		ev_u64(l, key, (unsigned long long)v);
	else
		ev_str(l, key, v == -1 ? "never" : "unreadable");
}

static int step(struct events *ev, const char *name, const char *arg, struct lab_error *err)
{
	struct ev_line l;
	int ret;

	events_step_begin(ev, &l, name, arg);
	ret = events_add_self(&l, err);
	if (ret < 0)
		return ret;
	return events_step_end(ev, &l, err);
}

static int sleep_ms(unsigned long long ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* The start event: the allocator, its configuration, the chunks to come. */
static int report_start(struct events *ev, const struct config *cfg, const struct allocator *al, size_t n,
			struct lab_error *err)
{
	struct ev_line l;

	events_start_begin(ev, &l);
	ev_str(&l, "allocator", cfg->jemalloc ? "jemalloc" : "glibc");
	ev_str(&l, "malloc_conf", cfg->conf ? cfg->conf : "");
	ev_u64(&l, "size_bytes", cfg->size);
	ev_u64(&l, "chunk_bytes", cfg->chunk);
	ev_u64(&l, "chunks", n);
	if (cfg->jemalloc) {
		/* -2: the option could not be read; -1: decay disabled (never purge). */
		long long d = je_opt(al, "opt.dirty_decay_ms"), m = je_opt(al, "opt.muzzy_decay_ms");

		ev_obj_begin(&l, "jemalloc");
		je_put(&l, "dirty_decay_ms", d);
		je_put(&l, "muzzy_decay_ms", m);
		ev_obj_end(&l);
	}
	return events_emit(ev, &l, err);
}

int main(int argc, char **argv)
{
	struct lab_error err = { 0 };
	struct config cfg;
	struct events ev;
	struct allocator al = { malloc, free, NULL };   /* jemalloc's when preloaded */
	size_t n, page = (size_t)sysconf(_SC_PAGESIZE);
	void **chunks;
	char arg[64];
	int ret = 0;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	events_init(&ev, "allocs");
	if (parse_args(argc, argv, &cfg, &ev, &err) < 0) {
		fprintf(stderr, "allocs: %s (allocs --help: the options)\n", err.msg);
		return 2;
	}
	if (cfg.jemalloc && load_jemalloc(&cfg, argv, &al, &err) < 0) {
		fprintf(stderr, "allocs: %s\n", err.msg);
		return 3;
	}
	n = (size_t)(cfg.size / cfg.chunk);
	chunks = calloc(n, sizeof(*chunks));   /* glibc's own, for either allocator */
	if (chunks == NULL) {
		fprintf(stderr, "allocs: out of memory\n");
		return 1;
	}
	if (report_start(&ev, &cfg, &al, n, &err) < 0) {
		fprintf(stderr, "allocs: start: %s\n", err.msg);
		return 1;
	}
	{
		/* jemalloc's first calls may read /proc and /sys (CPU count, THP
		 * mode) and create arenas: done before the filter. */
		static const char *const extra[] = { "madvise", NULL };

		if (lockdown_install(extra, &err) < 0) {
			events_error(&ev, "lockdown", err.msg);
			fprintf(stderr, "allocs: %s\n", err.msg);
			return 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char *p = al.malloc_fn((size_t)cfg.chunk);

		if (p == NULL) {
			events_error(&ev, "alloc", "malloc returned NULL");
			return 1;
		}
		for (size_t o = 0; o < cfg.chunk; o += page)
			p[o] = 0xA5;
		p[cfg.chunk - 1] = 0xA5;
		chunks[i] = p;
	}
	snprintf(arg, sizeof(arg), "%llu", cfg.size);
	if ((ret = step(&ev, "alloc", arg, &err)) < 0)
		goto fail;
	/* --keep-last: the last chunk stays, as a long-lived object allocated
	 * after a burst would: glibc can then not give the heap's top back with
	 * brk (malloc/malloc.c: systrim), only malloc_trim's MADV_DONTNEED can. */
	for (size_t i = 0; i < n - (cfg.keep_last ? 1 : 0); i++)
		al.free_fn(chunks[i]);
	if ((ret = step(&ev, "free", NULL, &err)) < 0)
		goto fail;
	if (cfg.trim) {
		if (cfg.jemalloc) {
			char name[64];

			snprintf(name, sizeof(name), "arena.%d.purge", JE_ARENAS_ALL);
			if (al.mallctl(name, NULL, NULL, NULL, 0) != 0) {
				events_error(&ev, "trim", "mallctl arena purge failed");
				return 1;
			}
		} else {
			malloc_trim(0);
		}
		if ((ret = step(&ev, "trim", NULL, &err)) < 0)
			goto fail;
	}
	if (cfg.hold_ms) {
		if ((ret = sleep_ms(cfg.hold_ms)) < 0) {
			lab_error_errno(&err, -ret, "nanosleep");
			goto fail;
		}
		snprintf(arg, sizeof(arg), "%llu", cfg.hold_ms);
		if ((ret = step(&ev, "hold", arg, &err)) < 0)
			goto fail;
	}
	if (cfg.pressure) {
		unsigned char *p = mmap(NULL, (size_t)cfg.pressure, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			lab_error_errno(&err, errno, "mmap %llu bytes", cfg.pressure);
			goto fail;
		}
		for (size_t o = 0; o < cfg.pressure; o += page)
			p[o] = 1;
		munmap(p, (size_t)cfg.pressure);
		snprintf(arg, sizeof(arg), "%llu", cfg.pressure);
		if ((ret = step(&ev, "pressure", arg, &err)) < 0)
			goto fail;
	}
	if (events_done(&ev, &err) < 0)
		return 1;
	return 0;
fail:
	events_error(&ev, "step", err.msg);
	fprintf(stderr, "allocs: %s\n", err.msg);
	return 1;
}
