/* SPDX-License-Identifier: GPL-2.0-or-later */
/* region — the region driver of the MADV_FREE experiments.
 *
 *   region --size SIZE [--shared] [--thp on|off|default]
 *          [--event-fd N] [--ack-fd N] STEP...
 *
 * Maps one anonymous region between two PROT_NONE guard pages, then runs the
 * steps in order, reporting after each one the region's own counters (its
 * VMA in /proc/self/smaps), the process's (smaps_rollup, VmRSS) and the
 * region's residency by mincore(2).  The steps are those of the article
 * (M. Erbay's MADV_FREE article): fill, MADV_FREE or MADV_DONTNEED, the
 * LazyFree series, the one-page readback, the one-page write, pressure from a
 * second region, and the final scan.  workloads/README.md lists them.
 *
 * Exit status: 0 all steps ran, 1 a step failed (an `error` event says
 * which), 2 bad arguments (nothing was mapped).
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "anon.h"
#include "decl.h"
#include "fragment.h"
#include "pageflags.h"
#include "procs.h"
#include "workloads/decl/region.h"
#include "base/error.h"
#include "events.h"
#include "base/fileio.h"
#include "lockdown.h"
#include "base/size.h"
#include "base/smaps.h"

/* The largest series that fits an event line with room to spare: 100
 * readings of up to 10 digits and a comma is about 1.1 KiB. */
#define SERIES_MAX 100

/* The region is aligned to the running kernel's PMD size, which lets every
 * PMD-sized part of it be a huge page when THP is on (mm/huge_memory.c:
 * thp_vma_suitable_order wants the PMD range inside the VMA); it costs
 * nothing when THP is off.  The size is THP's hpage_pmd_size
 * (mm/huge_memory.c: hpage_pmd_size_show, HPAGE_PMD_SIZE): 2 MiB with 4 KiB
 * pages (x86_64, arm64's 4K kernels), 32 MiB on arm64's 16K kernel, 512 MiB
 * on its 64K one.  Without the file (no THP) the old 2 MiB, which is harmless. */
#define THP_PMD_FILE "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
#define THP_ALIGN_DEFAULT (2UL << 20)
#define THP_ALIGN_MAX (1UL << 30)

enum thp_mode { THP_DEFAULT, THP_ON, THP_OFF };

static const char *const thp_names[] = { "default", "on", "off" };

/* The steps and options are declared in workloads/decl/region.c (read by
 * the scenario parser too); the ids are decl/region.h's. */
struct step {
	enum region_step kind;
	char name[16];
	const char *arg;                /* the text after "name:", "" if none */
	unsigned int byte, byte2;       /* fill/readback/write/scan patterns */
	unsigned long long n;           /* series K, write N pages, pressure bytes, hold ms,
					 * advise: the bytes it covers (0 = all), fragment: PCT */
	unsigned long long off;         /* advise: where from (bytes into the region) */
	const struct wl_advice *advice; /* advise/populate: madvise(2)'s advice */
	long sysno;
};

struct config {
	unsigned long long size;
	bool shared;
	enum thp_mode thp;
	unsigned pressure_procs;        /* 0 or 1: the region itself */
	size_t nsteps;
	struct step *steps;
};

struct region {
	unsigned char *start;
	size_t size, pages, page_size;
	size_t align;                   /* the mapping's alignment: THP's PMD size (region_align) */
	unsigned char *vec;             /* mincore vector, one byte a page */
	unsigned char *scratch;         /* one untouched page for `drain` */
	char *smaps;                    /* the last /proc/self/smaps read */
	unsigned pressure_procs;
	struct sharer sharer;           /* fork / join */
	struct procs_batch batch;       /* pressure_procs: released after the step's ack */
	struct fragmenter frag;         /* fragment */
	struct pageflags pf;            /* pageflags */
	int close_fds[2];               /* the event and ack fds, for a forked child to close */
	struct events *ev;              /* for the pressure processes' pids ("procs") */
};

/* The forbidden calls of `syscall:NAME`.  Arguments are chosen so that each
 * call fails harmlessly if the filter is missing (measured as root on 6.18:
 * mount EFAULT, ptrace ESRCH, reboot EINVAL — bad magic, swapon EFAULT,
 * init_module ENOSYS or ENOEXEC): the step proves the filter, it must never
 * do anything. */
static const struct {
	const char *name;
	long nr;
} forbidden[] = {
	{ "mount", SYS_mount },
	{ "ptrace", SYS_ptrace },
	{ "reboot", SYS_reboot },
	{ "swapon", SYS_swapon },
	{ "init_module", SYS_init_module },
};

static void usage(FILE *f)
{
	wl_decl_usage(&wl_decl_region, f);
}

/* ---- arguments -------------------------------------------------------- */

/* One step as written, typed by the declaration (decl/region.c); what is
 * left here is what a type cannot say. */
static int parse_step(const char *s, struct step *st, struct lab_error *err)
{
	struct wl_step_value sv;
	const char *colon = strchr(s, ':');
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = wl_step_parse(&wl_decl_region, s, &sv, err);
	if (ret < 0)
		return ret;
	st->kind = (enum region_step)sv.step->id;
	snprintf(st->name, sizeof(st->name), "%s", sv.step->name);
	st->arg = colon != NULL ? colon + 1 : "";

	switch (st->kind) {
	case ST_FILL:
	case ST_READBACK:
		st->byte = (unsigned int)sv.v[0];
		break;
	case ST_ADVISE:
	case ST_POPULATE:
		st->advice = wl_advice_find(sv.step->name, sv.text[0]);
		st->n = sv.nargs > 1 ? sv.v[1] : 0;
		st->off = sv.nargs > 2 ? sv.v[2] : 0;
		break;
	case ST_FRAGMENT:
		st->n = sv.v[0];
		if (st->n > 100)
			return lab_error_set(err, EINVAL, "PCT must be 0 to 100");
		break;
	case ST_SERIES:
		st->n = sv.v[0];
		if (st->n > SERIES_MAX)
			return lab_error_set(err, EINVAL, "K must be 1 to %d", SERIES_MAX);
		break;
	case ST_WRITE:
	case ST_POKE:
		/* poke:SIZE:BYTE — SIZE bytes (1, 4K, 2M...), not pages: a write of
		 * one byte dirties the whole folio it lands in. */
		st->n = sv.v[0];
		st->byte = (unsigned int)sv.v[1];
		break;
	case ST_PRESSURE:
		st->n = sv.v[0];
		if (st->n > SIZE_MAX / 2)
			return lab_error_set(err, EINVAL, "pressure size out of range");
		break;
	case ST_SCAN:
		st->byte = (unsigned int)sv.v[0];
		st->byte2 = (unsigned int)sv.v[1];
		/* A page is classified by its first byte: pattern, zero (a
		 * reclaimed page reads as the zero page) or written; the three
		 * must differ for the counts to mean anything. */
		if (st->byte == 0 || st->byte2 == 0 || st->byte == st->byte2)
			return lab_error_set(err, EINVAL,
					     "PATTERN and WRITTEN must differ and not be 0");
		break;
	case ST_HOLD:
		st->n = sv.v[0];
		if (st->n > 24ULL * 3600 * 1000)
			return lab_error_set(err, EINVAL, "hold longer than a day");
		break;
	case ST_SYSCALL:
		for (i = 0; i < sizeof(forbidden) / sizeof(forbidden[0]); i++)
			if (strcmp(sv.text[0], forbidden[i].name) == 0)
				st->sysno = forbidden[i].nr;
		break;
	case ST_MINCORE:
	case ST_DRAIN:
	case ST_FORK:
	case ST_JOIN:
	case ST_PAGEFLAGS:
		break;
	}
	return 0;
}

/* An argument that is not an option: a step, typed by the declaration. */
static int add_step(void *ctx, const char *arg, struct lab_error *err)
{
	struct config *cfg = ctx;

	if (parse_step(arg, &cfg->steps[cfg->nsteps], err) < 0)
		return lab_error_prefix(err, "step '%s'", arg);
	cfg->nsteps++;
	return 0;
}

/* --size, --thp, --shared: the declaration the scenario parser reads too
 * (workloads/decl/region.c), typed; what each sets. */
static int set_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		   struct lab_error *err)
{
	struct config *cfg = ctx;

	(void)err;
	if (!strcmp(opt->key, "shared"))
		cfg->shared = true;
	else if (!strcmp(opt->key, "size"))
		cfg->size = v;
	else if (!strcmp(opt->key, "thp"))
		cfg->thp = !strcmp(val, "on") ? THP_ON : !strcmp(val, "off") ? THP_OFF : THP_DEFAULT;
	else if (!strcmp(opt->key, "pressure_procs"))
		cfg->pressure_procs = (unsigned)v;
	return 0;
}

static int parse_args(int argc, char **argv, struct config *cfg, struct events *ev,
		      size_t page_size, struct lab_error *err)
{
	struct events_args ea = { .ev = ev };
	const struct wl_argv a = { .pre = events_argv_pre, .pre_ctx = &ea, .set = set_opt,
				   .operand = add_step, .ctx = cfg };
	size_t i;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->thp = THP_DEFAULT;
	cfg->steps = calloc((size_t)argc, sizeof(*cfg->steps));
	if (cfg->steps == NULL)
		return lab_error_errno(err, ENOMEM, "allocate steps");
	if ((ret = wl_parse_argv(&wl_decl_region, argc, argv, &a, err)) < 0)
		return ret;
	if (cfg->size == 0)
		return lab_error_set(err, EINVAL, "--size is required");
	if (cfg->size % page_size != 0)
		return lab_error_set(err, EINVAL,
				     "--size %llu: must be a positive multiple of the page size %zu",
				     cfg->size, page_size);
	if (cfg->size > SIZE_MAX / 4)
		return lab_error_set(err, ERANGE, "--size %llu: too large", cfg->size);
	if (cfg->nsteps == 0)
		return lab_error_set(err, EINVAL, "no steps given");
	if (cfg->pressure_procs > 64)
		return lab_error_set(err, EINVAL, "--pressure-procs %u: at most 64", cfg->pressure_procs);
	for (i = 0; i < cfg->nsteps; i++) {
		const struct step *st = &cfg->steps[i];

		if (st->kind == ST_WRITE && st->n > cfg->size / page_size)
			return lab_error_set(err, EINVAL,
					     "step '%s:%s': %llu pages, but the region has %llu",
					     st->name, st->arg, st->n,
					     cfg->size / page_size);
		if (st->kind == ST_ADVISE && (st->off >= cfg->size || st->n > cfg->size - st->off ||
					      st->off % page_size != 0))
			return lab_error_set(err, EINVAL, "step '%s:%s': %llu bytes from %llu, but the region has %llu "
					     "(and OFFSET must be a multiple of the page size %zu)",
					     st->name, st->arg, st->n, st->off, cfg->size, page_size);
		if (st->kind == ST_POKE && st->n > cfg->size)
			return lab_error_set(err, EINVAL, "step '%s:%s': %llu bytes, but the region has %llu",
					     st->name, st->arg, st->n, cfg->size);
	}
	return 0;
}

/* ---- the region ------------------------------------------------------- */

/* The alignment of the region: hpage_pmd_size when the kernel has one that is
 * a power of two between the page size and THP_ALIGN_MAX (anything else read
 * there is not trusted), else THP_ALIGN_DEFAULT. */
static size_t region_align(size_t ps)
{
	unsigned long long v = 0;
	struct lab_error e;

	if (lab_read_u64(THP_PMD_FILE, &v, &e) < 0 || v < ps || v > THP_ALIGN_MAX || (v & (v - 1)) != 0)
		return THP_ALIGN_DEFAULT > ps ? THP_ALIGN_DEFAULT : ps;
	return (size_t)v;
}

/* Reserve size + alignment + two pages PROT_NONE, map the region over the
 * PMD-aligned middle of it with MAP_FIXED, and trim the reservation to one
 * guard page on each side.  The guards keep the region's VMA from merging
 * with any neighbour (the pressure region above all), so its smaps entry is
 * the region and nothing else.  Mapping the region itself (rather than
 * mprotect'ing the middle of the reservation) gives a shared region file
 * offset 0 at a PMD boundary, which shmem huge pages need too. */
static int region_map(struct region *r, const struct config *cfg, struct lab_error *err)
{
	size_t ps = r->page_size;
	size_t align = r->align;
	size_t total = cfg->size + align + 2 * ps;
	uintptr_t res, start, lo, hi;
	void *p;

	p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return lab_error_errno(err, errno, "reserve %zu bytes", total);
	res = (uintptr_t)p;
	start = (res + ps + align - 1) & ~(uintptr_t)(align - 1);
	lo = start - ps;
	hi = start + cfg->size + ps;

	p = mmap((void *)start, cfg->size, PROT_READ | PROT_WRITE,
		 (cfg->shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		munmap((void *)res, total);
		return lab_error_errno(err, e, "map %llu bytes", cfg->size);
	}
	if (lo > res)
		munmap((void *)res, lo - res);
	if (res + total > hi)
		munmap((void *)hi, res + total - hi);

	if (cfg->thp != THP_DEFAULT &&
	    madvise(p, cfg->size, cfg->thp == THP_ON ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0)
		return lab_error_errno(err, errno, "madvise(%s)",
				       cfg->thp == THP_ON ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE");

	r->start = p;
	r->size = cfg->size;
	r->pages = cfg->size / ps;
	r->vec = malloc(r->pages);
	if (r->vec == NULL)
		return lab_error_errno(err, ENOMEM, "allocate the mincore vector");
	r->scratch = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->scratch == MAP_FAILED)
		return lab_error_errno(err, errno, "map the scratch page");
	return 0;
}

static int region_smaps(struct region *r, struct smaps_range *out, struct lab_error *err)
{
	uintptr_t start = (uintptr_t)r->start;
	int ret;

	free(r->smaps);
	r->smaps = NULL;
	ret = lab_read_file("/proc/self/smaps", &r->smaps, NULL, err);
	if (ret < 0)
		return ret;
	ret = smaps_parse_range(r->smaps, start, start + r->size, out, err);
	if (ret < 0)
		return lab_error_prefix(err, "/proc/self/smaps");
	return 0;
}

/* mincore(2) reports residency from the page tables and the page cache and
 * never faults a page in (mm/mincore.c), so it can be read between steps
 * without changing what it measures. */
static int region_resident(struct region *r, unsigned long long *resident,
			   struct lab_error *err)
{
	unsigned long long n = 0;
	size_t i;

	if (mincore(r->start, r->size, r->vec) < 0)
		return lab_error_errno(err, errno, "mincore");
	for (i = 0; i < r->pages; i++)
		n += r->vec[i] & 1;
	*resident = n;
	return 0;
}

/* The counters of events.md, appended to every step. */
static int add_counters(struct region *r, struct ev_line *l, struct lab_error *err)
{
	struct smaps_range vma;
	unsigned long long resident = 0;
	int ret;

	ret = region_smaps(r, &vma, err);
	if (ret < 0)
		return ret;
	ev_obj_begin(l, "region");
	ev_u64(l, "size_kb", vma.size_kb);
	ev_u64(l, "rss_kb", vma.rss_kb);
	ev_u64(l, "lazyfree_kb", vma.lazyfree_kb);
	ev_u64(l, "anonhuge_kb", vma.anonhuge_kb);
	ev_obj_end(l);
	ret = events_add_self(l, err);
	if (ret < 0)
		return ret;
	ret = region_resident(r, &resident, err);
	if (ret < 0)
		return ret;
	ev_u64(l, "resident_pages", resident);
	ev_u64(l, "region_pages", r->pages);
	return 0;
}

/* ---- steps ------------------------------------------------------------ */

/* MADV_FREE does not mark every folio at once: folio_mark_lazyfree() queues
 * them in a per-CPU folio batch of PAGEVEC_SIZE (31) and moves a batch to the
 * lazyfree LRU only when it is full (mm/swap.c: folio_mark_lazyfree,
 * folio_batch_add_and_move), so until that CPU drains its batches up to 30
 * pages read as not yet lazy in smaps (LazyFree counts anon folios that are
 * no longer swap-backed: fs/proc/task_mmu.c: smaps_account).  Every
 * madvise(MADV_FREE) starts with lru_add_drain() on the calling CPU
 * (mm/madvise.c: madvise_free_single_vma), so calling it on an untouched
 * scratch page, once on each CPU we may run on, drains those batches without
 * touching the region.  It leaves the task on the last of those CPUs: the
 * caller puts `all` back (restore_cpus). */
static int drain_cpus(unsigned char *scratch, size_t page_size, const cpu_set_t *all, struct lab_error *err)
{
	cpu_set_t one;

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) < 0)
			return lab_error_errno(err, errno, "sched_setaffinity(cpu %d)", cpu);
		if (madvise(scratch, page_size, MADV_FREE) < 0)
			return lab_error_errno(err, errno, "madvise(MADV_FREE) on the scratch page");
	}
	return 0;
}

static int restore_cpus(const cpu_set_t *all, int ret, struct lab_error *err)
{
	if (sched_setaffinity(0, sizeof(*all), all) < 0 && ret == 0)
		ret = lab_error_errno(err, errno, "sched_setaffinity (restore)");
	return ret;
}

static int drain(unsigned char *scratch, size_t page_size, struct lab_error *err)
{
	cpu_set_t all;

	if (sched_getaffinity(0, sizeof(all), &all) < 0)
		return lab_error_errno(err, errno, "sched_getaffinity");
	return restore_cpus(&all, drain_cpus(scratch, page_size, &all, err), err);
}

/* MADV_FREE, COLD and PAGEOUT pass over a folio that is not on an LRU
 * (mm/swap.c: folio_mark_lazyfree), and a page the fill faulted in on another
 * CPU may still wait in that CPU's lru_add batch: drained first, every page of
 * the region is advised.  The call runs on one CPU, so what it leaves batched
 * is one batch (pages mod 31), not one per CPU it migrated across. */
static int advise_pinned(struct region *r, size_t len, const struct step *st, struct lab_error *err)
{
	cpu_set_t all;
	int ret;

	if (sched_getaffinity(0, sizeof(all), &all) < 0)
		return lab_error_errno(err, errno, "sched_getaffinity");
	ret = drain_cpus(r->scratch, r->page_size, &all, err);
	if (ret == 0 && madvise(r->start + st->off, len, st->advice->advice) < 0)
		ret = lab_error_errno(err, errno, "madvise(%s) of %zu bytes at %llu", st->advice->madv, len, st->off);
	return restore_cpus(&all, ret, err);
}

struct scan_counts {
	unsigned long long pattern, zero, written, other;
};

/* Map a second private anonymous region, write one byte in every page, and
 * unmap it.  Its charge has to come from somewhere under the limit, which is
 * the point: reclaim takes lazily freed pages first. */
static int pressure(size_t bytes, size_t ps, struct lab_error *err)
{
	void *p = NULL;
	int ret;

	ret = anon_map_charged(bytes, ps, 1, false, NULL, &p, err);
	if (ret < 0)
		return ret;
	if (munmap(p, bytes) < 0)
		return lab_error_errno(err, errno, "munmap");
	return 0;
}

/* The first byte of every page.  Reading a reclaimed page of a private
 * anonymous region maps the shared zero page (mm/memory.c:
 * do_anonymous_page, the read-fault branch), which is why the scan runs last:
 * it does not raise Rss, but it does change what mincore reports. */
static void scan(const struct region *r, unsigned int pattern, unsigned int written,
		 struct scan_counts *c)
{
	const volatile unsigned char *p = r->start;
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < r->pages; i++) {
		unsigned char b = p[i * r->page_size];

		if (b == pattern)
			c->pattern++;
		else if (b == 0)
			c->zero++;
		else if (b == written)
			c->written++;
		else
			c->other++;
	}
}

static int sleep_ms(unsigned long long ms, struct lab_error *err)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ms / 1000),
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};
	int ret;

	while ((ret = clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts)) == EINTR)
		;
	if (ret != 0)
		return lab_error_errno(err, ret, "clock_nanosleep");
	return 0;
}

static unsigned long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* What a step leaves for its line besides the counters. */
struct step_out {
	unsigned long long series[SERIES_MAX];
	unsigned long long match;
	struct scan_counts sc;
	unsigned killed;                /* pressure: its processes killed */
	struct frag_result frag;
	pid_t child;                    /* fork, join */
	int child_status;
	struct pageflags_count pf;
};

/* The step's work, and only it: run_step times this. */
/* {"event":"procs","step":"pressure","pids":[...]}: the pressure processes,
 * before they allocate (workloads/events.md).  Not fatal if it cannot be
 * written: the harness then knows them by the samples alone. */
static void procs_spawned(const pid_t *pids, unsigned n, void *arg)
{
	struct region *r = arg;
	struct ev_line l;
	struct lab_error e;

	if (r->ev == NULL)
		return;
	events_line_begin(&l, "procs");
	ev_str(&l, "step", "pressure");
	ev_arr_begin(&l, "pids");
	for (unsigned i = 0; i < n; i++)
		ev_u64(&l, NULL, (unsigned long long)pids[i]);
	ev_arr_end(&l);
	ev_u64(&l, "t_ns", events_now_ns());
	(void)events_emit(r->ev, &l, &e);
}

static int do_step(struct region *r, const struct step *st, struct step_out *o, struct lab_error *err)
{
	struct smaps_range vma;
	size_t i;
	int ret;

	switch (st->kind) {
	case ST_FILL:
		/* Every byte, as the article does: the data is what readback
		 * and scan look for. */
		memset(r->start, (int)st->byte, r->size);
		break;
	case ST_ADVISE:
	case ST_POPULATE: {
		/* advise:ADVICE:SIZE covers the region's first SIZE bytes, rounded
		 * up to whole pages (madvise takes page-aligned ranges). */
		size_t len = st->n ? ((size_t)st->n + r->page_size - 1) / r->page_size * r->page_size
			: r->size - (size_t)st->off;

		if (len > r->size - (size_t)st->off)
			len = r->size - (size_t)st->off;
		if (st->kind == ST_ADVISE && st->advice->advice >= 0) {
			ret = advise_pinned(r, len, st, err);
			if (ret < 0)
				return ret;
		} else if (st->advice->advice >= 0 && madvise(r->start + st->off, len, st->advice->advice) < 0)
			return lab_error_errno(err, errno, "madvise(%s) of %zu bytes at %llu", st->advice->madv, len,
					       st->off);
		break;
	}
	case ST_SERIES:
		/* Back to back, nothing between the reads: the article saw
		 * the first readings after MADV_FREE lag by 16 kB. */
		for (i = 0; i < st->n; i++) {
			ret = region_smaps(r, &vma, err);
			if (ret < 0)
				return ret;
			o->series[i] = vma.lazyfree_kb;
		}
		break;
	case ST_READBACK:
		for (i = 0; i < r->page_size; i++)
			o->match += ((const volatile unsigned char *)r->start)[i] == st->byte;
		break;
	case ST_WRITE:
		memset(r->start, (int)st->byte, (size_t)st->n * r->page_size);
		break;
	case ST_POKE:
		memset(r->start, (int)st->byte, (size_t)st->n);
		break;
	case ST_PRESSURE:
		if (r->pressure_procs > 1)
			ret = pressure_procs((size_t)st->n, r->page_size, r->pressure_procs, r->start, r->size,
					     &r->batch, &o->killed, procs_spawned, r, err);
		else
			ret = pressure((size_t)st->n, r->page_size, err);
		if (ret < 0)
			return ret;
		break;
	case ST_FRAGMENT:
		ret = fragment_run(&r->frag, r->size, (unsigned)st->n, &o->frag, err);
		if (ret < 0)
			return ret;
		break;
	case ST_FORK:
		ret = sharer_fork(&r->sharer, r->close_fds, 2, err);
		if (ret < 0)
			return ret;
		o->child = r->sharer.pid;
		break;
	case ST_JOIN:
		o->child = r->sharer.pid;
		ret = sharer_join(&r->sharer, &o->child_status, err);
		if (ret < 0)
			return ret;
		break;
	case ST_PAGEFLAGS:
		ret = pageflags_count(&r->pf, r->start, r->size, r->page_size, &o->pf, err);
		if (ret < 0)
			return ret;
		break;
	case ST_MINCORE:
		break;
	case ST_DRAIN:
		ret = drain(r->scratch, r->page_size, err);
		if (ret < 0)
			return ret;
		break;
	case ST_SCAN:
		scan(r, st->byte, st->byte2, &o->sc);
		break;
	case ST_HOLD:
		ret = sleep_ms(st->n, err);
		if (ret < 0)
			return ret;
		break;
	case ST_SYSCALL: {
		long rc = syscall(st->sysno, (long)-1, 0L, 0L, 0L, 0L);

		/* Still here: the filter let it through (or is not there). */
		return lab_error_errno(err, rc < 0 ? errno : 0,
				       "syscall %s returned %ld instead of killing the process",
				       st->arg, rc);
	}
	}
	return 0;
}

/* The figures of fragment, fork, join and pageflags. */
static void more_fields(struct ev_line *l, const struct step *st, const struct step_out *o)
{
	const struct frag_result *f = &o->frag;
	const struct pageflags_count *c = &o->pf;

	switch (st->kind) {
	case ST_FRAGMENT:
		ev_obj_begin(l, "fragment");
		ev_u64(l, "target_pct", f->target_pct);
		ev_u64(l, "region_blocks", f->region_blocks);
		ev_u64(l, "target_blocks", f->target_blocks);
		ev_u64(l, "free_blocks_before", f->free_before);
		ev_u64(l, "free_blocks_after", f->free_after);
		ev_u64(l, "pinned", f->pinned);
		ev_u64(l, "rounds", f->rounds);
		ev_u64(l, "predicted_pct", f->predicted_pct);
		ev_bool(l, "reached", f->reached);
		ev_str(l, "zones", f->zones);
		ev_obj_end(l);
		break;
	case ST_FORK:
	case ST_JOIN:
		ev_u64(l, "child_pid", (unsigned long long)o->child);
		if (st->kind == ST_JOIN)
			ev_u64(l, "child_status", (unsigned long long)o->child_status);
		break;
	case ST_PAGEFLAGS:
		ev_obj_begin(l, "pageflags");
		ev_bool(l, "available", c->available);
		ev_u64(l, "pages", c->pages);
		ev_u64(l, "present", c->present);
		ev_u64(l, "lru", c->lru);
		ev_u64(l, "active", c->active);
		ev_u64(l, "dirty", c->dirty);
		ev_u64(l, "anon", c->anon);
		ev_u64(l, "swapbacked", c->swapbacked);
		ev_u64(l, "lazyfree", c->lazyfree);
		ev_u64(l, "thp", c->thp);
		ev_u64(l, "compound_head", c->compound_head);
		ev_u64(l, "zero_page", c->zero_page);
		ev_u64(l, "unevictable", c->unevictable);
		ev_obj_end(l);
		break;
	default:
		break;
	}
}

/* The step's own figures in its line. */
static void step_fields(struct ev_line *l, const struct region *r, const struct step *st,
			const struct step_out *o)
{
	size_t i;

	switch (st->kind) {
	case ST_SERIES:
		ev_arr_begin(l, "series_kb");
		for (i = 0; i < st->n; i++)
			ev_u64(l, NULL, o->series[i]);
		ev_arr_end(l);
		break;
	case ST_READBACK:
		ev_u64(l, "match_bytes", o->match);
		ev_u64(l, "compared_bytes", r->page_size);
		break;
	case ST_WRITE:
		ev_u64(l, "written_pages", st->n);
		break;
	case ST_POKE:
		ev_u64(l, "poked_bytes", st->n);
		break;
	case ST_ADVISE:
	case ST_POPULATE:
		ev_str(l, "advice", st->advice->madv);
		ev_u64(l, "advised_bytes", st->n ? (st->n + r->page_size - 1) / r->page_size * r->page_size
			: r->size - st->off);
		if (st->off)
			ev_u64(l, "advised_offset", st->off);
		break;
	case ST_PRESSURE:
		ev_u64(l, "pressure_bytes", st->n);
		if (r->pressure_procs > 1)
			ev_u64(l, "pressure_procs", r->pressure_procs);
		break;
	case ST_SCAN:
		ev_obj_begin(l, "scan");
		ev_u64(l, "pattern", o->sc.pattern);
		ev_u64(l, "zero", o->sc.zero);
		ev_u64(l, "written", o->sc.written);
		ev_u64(l, "other", o->sc.other);
		ev_obj_end(l);
		break;
	default:
		more_fields(l, st, o);
		break;
	}
}

static int run_step(struct events *ev, struct region *r, const struct step *st,
		    struct lab_error *err)
{
	unsigned long long t0, work_ns, cpu0;
	struct step_out o = { .match = 0 };
	struct ev_line l;
	int ret;

	cpu0 = thread_cpu_ns();
	t0 = events_now_ns();
	ret = do_step(r, st, &o, err);
	if (ret < 0)
		return ret;
	work_ns = events_now_ns() - t0;

	events_step_begin(ev, &l, st->name, st->arg);
	ev_u64(&l, "work_ns", work_ns);
	/* CPU time, not wall time: what tracing costs the workload stays
	 * measurable on a machine whose other guests take its CPUs
	 * (scripts/bench-trace). */
	ev_u64(&l, "cpu_ns", thread_cpu_ns() - cpu0);
	step_fields(&l, r, st, &o);
	ret = add_counters(r, &l, err);
	if (ret == 0)
		ret = events_step_end(ev, &l, err);
	/* The pressure processes lived through the ack (procs.h). */
	pressure_procs_release(&r->batch);
	return ret;
}

/* What the steps need before the lockdown, and the calls they add to it:
 * fork/join and pressure_procs clone and wait (procs.h), pageflags preads
 * (pageflags.h); fragment reads THP's PMD size and reserves its pins. */
static int region_extras(struct region *r, const struct config *cfg, const struct events *ev,
			 const char **extra, struct lab_error *err)
{
	bool procs = cfg->pressure_procs > 1, flags = false, frag = false, share = false;
	size_t n = 0;
	int ret;

	r->pressure_procs = cfg->pressure_procs;
	r->close_fds[0] = ev->event_fd;
	r->close_fds[1] = ev->ack_fd;
	r->sharer.rfd = r->sharer.wfd = -1;
	r->batch.go = -1;
	r->pf.pagemap_fd = r->pf.kpageflags_fd = -1;
	for (size_t i = 0; i < cfg->nsteps; i++) {
		share |= cfg->steps[i].kind == ST_FORK || cfg->steps[i].kind == ST_JOIN;
		flags |= cfg->steps[i].kind == ST_PAGEFLAGS;
		frag |= cfg->steps[i].kind == ST_FRAGMENT;
	}
	if (share && (ret = sharer_prepare(&r->sharer, err)) < 0)
		return ret;
	if (frag && (ret = fragment_setup(&r->frag, r->page_size, err)) < 0)
		return ret;
	if (flags)
		pageflags_open(&r->pf);
	if (share || procs) {
		extra[n++] = "clone";
		extra[n++] = "wait4";
	}
	if (procs)
		extra[n++] = "pipe2";
	if (flags)
		extra[n++] = "pread64";
	extra[n] = NULL;
	return 0;
}

int main(int argc, char **argv)
{
	struct lab_error err = { 0 };
	struct region r = { 0 };
	struct config cfg;
	struct events ev;
	struct ev_line l;
	const char *extra[6];
	size_t i;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	events_init(&ev, "region");
	r.ev = &ev;
	r.page_size = (size_t)sysconf(_SC_PAGESIZE);
	r.align = region_align(r.page_size);
	if (parse_args(argc, argv, &cfg, &ev, r.page_size, &err) < 0) {
		fprintf(stderr, "region: %s\n", err.msg);
		return 2;
	}

	if (region_map(&r, &cfg, &err) < 0 || region_extras(&r, &cfg, &ev, extra, &err) < 0) {
		events_error(&ev, "map", err.msg);
		fprintf(stderr, "region: %s\n", err.msg);
		return 1;
	}

	events_start_begin(&ev, &l);
	ev_u64(&l, "size_bytes", cfg.size);
	ev_bool(&l, "shared", cfg.shared);
	ev_str(&l, "thp", thp_names[cfg.thp]);
	ev_u64(&l, "region_start", (unsigned long long)(uintptr_t)r.start);
	ev_u64(&l, "region_end", (unsigned long long)(uintptr_t)r.start + r.size);
	ev_u64(&l, "region_pages", r.pages);
	ev_u64(&l, "align_bytes", r.align);
	ev_u64(&l, "steps", cfg.nsteps);
	if (cfg.pressure_procs > 1)
		ev_u64(&l, "pressure_procs", cfg.pressure_procs);
	if (r.pf.pagemap_fd >= 0 || r.pf.why[0])
		ev_str(&l, "pageflags", r.pf.why[0] ? r.pf.why : "readable");
	if (events_emit(&ev, &l, &err) < 0) {
		fprintf(stderr, "region: start: %s\n", err.msg);
		return 1;
	}

	if (lockdown_install(extra, &err) < 0) {
		events_error(&ev, "lockdown", err.msg);
		fprintf(stderr, "region: %s\n", err.msg);
		return 1;
	}

	for (i = 0; i < cfg.nsteps; i++) {
		const struct step *st = &cfg.steps[i];

		if (run_step(&ev, &r, st, &err) < 0) {
			events_error(&ev, st->name, err.msg);
			fprintf(stderr, "region: step %s%s%s: %s\n", st->name,
				*st->arg ? ":" : "", st->arg, err.msg);
			return 1;
		}
	}
	/* A child still sharing the region goes with it. */
	if (r.sharer.pid > 0) {
		int st;

		(void)sharer_join(&r.sharer, &st, &err);
	}
	if (events_done(&ev, &err) < 0) {
		fprintf(stderr, "region: done: %s\n", err.msg);
		return 1;
	}
	return 0;
}
