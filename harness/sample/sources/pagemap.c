/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pagemap.c — source "pagemap": which pages of each workload's region are
 * resident, from /proc/PID/pagemap (fs/proc/task_mmu.c: pagemap_read;
 * Documentation/admin-guide/mm/pagemap.rst).  One 64-bit entry per virtual
 * page: bit 63 present, bit 62 swapped.  Reading it walks the page tables
 * and never faults a page in (unlike touching the page, which would change
 * what is measured).  The region comes from the workload's start event
 * (region_start, region_end: workloads/region.c).
 *
 *   {"<workload>": {"pages", "present", "swapped",
 *     "buckets": [present pages in each 1/32 of the region, first to last],
 *     "present_ranges": [[first, end), …] of present pages (page indexes in the region),
 *     "reclaimed_pages", "reclaimed": [[first, end), …]: present at the previous
 *                         step's reading (or the start's) and not now — which
 *                         pages went since the last step; a walk sample between
 *                         two steps shows what went so far, so a long step has
 *                         a timeline
 *     "faulted_pages": not present at the previous step's reading and present now,
 *     "ranges_dropped": ranges left out of a list beyond SOURCE_PAGEMAP_RANGES}}
 *
 * A page walk (~1 MiB read per 512 MiB region): a step source. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PAGEMAP_BUCKETS 32
#define SOURCE_PAGEMAP_RANGES 32
#define PAGEMAP_CHUNK 8192              /* entries per pread: 64 KiB */

struct pm_ranges {
	size_t n, total;
	unsigned long long r[SOURCE_PAGEMAP_RANGES][2];
	bool open;
};

/* Page pg of a kind (present, reclaimed): a new range unless it continues
 * the last one; beyond SOURCE_PAGEMAP_RANGES ranges are counted, not kept. */
static void ranges_note(struct pm_ranges *rs, unsigned long long *last, unsigned long long pg)
{
	bool contiguous = pg != 0 && *last == pg;

	*last = pg + 1;
	if (contiguous) {
		if (rs->open)
			rs->r[rs->n - 1][1] = pg + 1;
		return;
	}
	rs->total++;
	rs->open = rs->n < SOURCE_PAGEMAP_RANGES;
	if (rs->open) {
		rs->r[rs->n][0] = pg;
		rs->r[rs->n][1] = pg + 1;
		rs->n++;
	}
}

struct pm_summary {
	unsigned long long pages, present, swapped, reclaimed, faulted;
	unsigned long long buckets[PAGEMAP_BUCKETS];
	struct pm_ranges present_r, reclaimed_r;
	unsigned long long last_present, last_reclaimed;   /* page + 1 of the last one seen, 0 = none */
};

static size_t nr_buckets(const struct pm_summary *s)
{
	return s->pages < PAGEMAP_BUCKETS ? (size_t)s->pages : PAGEMAP_BUCKETS;
}

/* Fold entries [base, base + n) of a region of s->pages pages into s; prev
 * (a bitmap of the previous reading's present pages, or NULL) is compared,
 * cur (or NULL) gets this reading's bits.  Pure. */
static void pm_fold(struct pm_summary *s, const uint64_t *e, size_t n, unsigned long long base,
		    const uint8_t *prev, uint8_t *cur)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long long pg = base + i;
		bool present = (e[i] & PM_PRESENT) != 0;
		bool was = prev != NULL && (prev[pg / 8] >> (pg % 8) & 1);

		if (e[i] & PM_SWAPPED)
			s->swapped++;
		if (cur != NULL) {
			if (present)
				cur[pg / 8] |= (uint8_t)(1u << (pg % 8));
			else
				cur[pg / 8] &= (uint8_t)~(1u << (pg % 8));
		}
		if (present) {
			s->present++;
			s->buckets[pg * nr_buckets(s) / s->pages]++;
			ranges_note(&s->present_r, &s->last_present, pg);
		}
		if (prev != NULL && was && !present) {
			s->reclaimed++;
			ranges_note(&s->reclaimed_r, &s->last_reclaimed, pg);
		}
		if (prev != NULL && !was && present)
			s->faulted++;
	}
}

static json_t *ranges_json(const struct pm_ranges *rs)
{
	json_t *a = json_array();

	for (size_t i = 0; i < rs->n; i++)
		json_array_append_new(a, json_pack("[I, I]", (json_int_t)rs->r[i][0], (json_int_t)rs->r[i][1]));
	return a;
}

static json_t *summary_json(const struct pm_summary *s, bool with_prev)
{
	json_t *b = json_array();
	json_t *o;

	for (size_t i = 0; i < nr_buckets(s); i++)
		json_array_append_new(b, json_integer((json_int_t)s->buckets[i]));
	o = json_pack("{s:I, s:I, s:I, s:o, s:o}", "pages", (json_int_t)s->pages, "present",
		      (json_int_t)s->present, "swapped", (json_int_t)s->swapped, "buckets", b,
		      "present_ranges", ranges_json(&s->present_r));
	if (with_prev) {
		json_object_set_new(o, "reclaimed_pages", json_integer((json_int_t)s->reclaimed));
		json_object_set_new(o, "reclaimed", ranges_json(&s->reclaimed_r));
		json_object_set_new(o, "faulted_pages", json_integer((json_int_t)s->faulted));
	}
	json_object_set_new(o, "ranges_dropped", json_integer((json_int_t)(
		s->present_r.total - s->present_r.n + s->reclaimed_r.total - s->reclaimed_r.n)));
	return o;
}

/* The fixture's form: a region's pagemap entries as the kernel gave them. */
static int pagemap_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct pm_summary *s;
	size_t n = len / 8;

	if (len == 0 || len % 8 != 0)
		return lab_error_set(err, EINVAL, "pagemap: %zu bytes is not a whole number of 8-byte entries", len);
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return lab_error_errno(err, ENOMEM, "pagemap");
	s->pages = n;
	for (size_t off = 0; off < n; off += PAGEMAP_CHUNK) {
		uint64_t e[PAGEMAP_CHUNK];
		size_t k = n - off < PAGEMAP_CHUNK ? n - off : PAGEMAP_CHUNK;

		memcpy(e, buf + off * 8, k * 8);       /* buf need not be aligned */
		pm_fold(s, e, k, off, NULL, NULL);
	}
	*out = summary_json(s, false);
	free(s);
	return 0;
}

struct pm_proc {
	pid_t pid;
	unsigned long start;
	unsigned long long pages;
	uint8_t *bits;                  /* the last step reading's present pages */
	uint8_t *cur;                   /* this reading's, when it is not a step's */
	bool have_prev;
};

struct pagemap_state {
	struct pm_proc procs[SOURCE_MAX_PROCS];
	uint64_t chunk[PAGEMAP_CHUNK];
};

static int read_region(struct pagemap_state *st, struct pm_proc *pp, const struct source_proc *p,
		       bool at_step, json_t **out, struct lab_error *err)
{
	char path[64];
	cleanup_close int fd = -1;
	struct pm_summary *s;
	unsigned long long first = p->region_start / p->page_size;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", path);
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return lab_error_errno(err, ENOMEM, "pagemap");
	s->pages = pp->pages;
	for (unsigned long long off = 0; off < pp->pages;) {
		size_t want = pp->pages - off < PAGEMAP_CHUNK ? (size_t)(pp->pages - off) : PAGEMAP_CHUNK;
		size_t got = 0;

		ret = lab_pread_all(fd, st->chunk, want * 8, (off_t)((first + off) * 8), &got, err);
		if (ret < 0)
			break;
		if (got != want * 8) {
			ret = lab_error_set(err, EIO, "%s: short read at page %llu", path, off);
			break;
		}
		/* A step moves the baseline; a walk between steps compares
		 * against it and leaves it (its bits go to a scratch map). */
		pm_fold(s, st->chunk, want, off, pp->have_prev ? pp->bits : NULL,
			at_step || !pp->have_prev ? pp->bits : pp->cur);
		off += want;
	}
	if (ret == 0) {
		*out = summary_json(s, pp->have_prev);
		pp->have_prev = true;
	}
	free(s);
	return ret;
}

static int pagemap_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	struct pagemap_state *st = state;

	(void)err;
	*out = json_object();
	for (size_t i = 0; i < ctx->nr_procs && i < SOURCE_MAX_PROCS; i++) {
		const struct source_proc *p = &ctx->procs[i];
		struct pm_proc *pp = &st->procs[i];
		struct lab_error e;
		json_t *v = NULL;
		uint64_t from, to;
		int ret;

		if (!p->running || p->region_end <= p->region_start || p->page_size == 0)
			continue;
		if (pp->pid != p->pid || pp->start != p->region_start) {
			free(pp->bits);
			free(pp->cur);
			memset(pp, 0, sizeof(*pp));
			pp->pid = p->pid;
			pp->start = p->region_start;
			pp->pages = (p->region_end - p->region_start) / p->page_size;
			pp->bits = calloc(1, (size_t)(pp->pages + 7) / 8);
			pp->cur = calloc(1, (size_t)(pp->pages + 7) / 8);
			if (pp->bits == NULL || pp->cur == NULL) {
				free(pp->bits);
				free(pp->cur);
				pp->bits = pp->cur = NULL;
				pp->pid = 0;
				continue;
			}
		}
		/* Each read holds the process's memory (fs/proc/task_mmu.c
		 * pagemap_read: mmget_not_zero ... mmput): one on its way out is
		 * not walked, one that let go of it meanwhile is noted (source.h). */
		if (source_pid_dying(ctx, p->pid)) {
			ctx->walk_skipped++;
			continue;
		}
		from = source_mono_ns();
		ret = read_region(st, pp, p, ctx->at_step, &v, &e);
		to = source_mono_ns();
		if (source_let_go(ctx, p->pid))
			source_note_held(ctx, p->pid, NULL, p->name, "pagemap", 0, from, to);
		if (ret < 0) {
			/* Gone meanwhile (it exited) or not readable: say so. */
			json_object_set_new(*out, p->name, json_pack("{s:s}", "error", e.msg));
			continue;
		}
		json_object_set_new(*out, p->name, v);
	}
	if (json_object_size(*out) == 0) {
		json_decref(*out);
		*out = NULL;            /* nothing with a region yet: no key */
	}
	return 0;
}

static void pagemap_close(void *state)
{
	struct pagemap_state *st = state;

	for (size_t i = 0; i < SOURCE_MAX_PROCS; i++) {
		free(st->procs[i].bits);
		free(st->procs[i].cur);
	}
}

const struct source source_pagemap = {
	.name = "pagemap",
	.where = SOURCE_WORKLOAD,
	.cadence = SOURCE_STEP,
	.in_steps = true,
	.files = "/proc/PID/pagemap /proc/PID/stat /proc/PID/statm",
	.fixture = "self-pagemap",
	.doc = "residency of each workload's region: present/swapped pages, 32 buckets, ranges reclaimed since the last reading",
	.parse = pagemap_parse,
	.state_size = sizeof(struct pagemap_state),
	.read = pagemap_read,
	.close = pagemap_close,
};
