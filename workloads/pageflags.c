/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pageflags.c — region's `pageflags` step (pageflags.h). */
#include "pageflags.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"

/* include/uapi/linux/kernel-page-flags.h (the same bits in 6.1, 6.12, 6.18). */
#define KPF_DIRTY 4
#define KPF_LRU 5
#define KPF_ACTIVE 6
#define KPF_ANON 12
#define KPF_SWAPBACKED 14
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_UNEVICTABLE 18
#define KPF_THP 22
#define KPF_ZERO_PAGE 24

/* /proc/PID/pagemap: bit 63 present, bits 0-54 the frame number. */
#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)

#define CHUNK 4096              /* pagemap entries read at once (32 KiB) */

void pageflags_open(struct pageflags *pf)
{
	pf->why[0] = '\0';
	pf->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	pf->kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (pf->pagemap_fd < 0 || pf->kpageflags_fd < 0)
		snprintf(pf->why, sizeof(pf->why), "%s: %s", pf->pagemap_fd < 0 ? "/proc/self/pagemap" : "/proc/kpageflags",
			 strerror(errno));
}

/* All len bytes at off, or an error naming what (base/fileio.h reads them). */
static int pread_all(int fd, void *buf, size_t len, off_t off, struct lab_error *err, const char *what)
{
	size_t got = 0;
	int ret = lab_pread_all(fd, buf, len, off, &got, err);

	if (ret < 0) {
		char why[sizeof(err->msg)];

		memcpy(why, err->msg, sizeof(why));
		return lab_error_set(err, -ret, "%s: %s", what, why);
	}
	return got == len ? 0 : lab_error_set(err, EIO, "pread %s: short read", what);
}

static void add_flags(struct pageflags_count *c, uint64_t k)
{
	c->lru += (k >> KPF_LRU) & 1;
	c->active += (k >> KPF_ACTIVE) & 1;
	c->dirty += (k >> KPF_DIRTY) & 1;
	c->anon += (k >> KPF_ANON) & 1;
	c->swapbacked += (k >> KPF_SWAPBACKED) & 1;
	c->lazyfree += ((k >> KPF_ANON) & 1) && !((k >> KPF_SWAPBACKED) & 1) && !((k >> KPF_ZERO_PAGE) & 1);
	c->thp += (k >> KPF_THP) & 1;
	c->compound_head += (k >> KPF_COMPOUND_HEAD) & 1;
	c->zero_page += (k >> KPF_ZERO_PAGE) & 1;
	c->unevictable += (k >> KPF_UNEVICTABLE) & 1;
}

/* The flags a folio keeps on its head page only (PG_lru, PG_active,
 * PG_dirty, PG_swapbacked, PG_unevictable).  6.1's stable_page_flags
 * (fs/proc/page.c) reports each 4 KiB page by its own page->flags, so a
 * THP's tail pages read "anon, not swap-backed, not on an LRU" — every tail
 * counted lazily freed; 6.12 and later report a folio's flags for each of
 * its pages.  A tail seen right after its head (frames are read in
 * physical order) takes these bits from the head, which changes nothing
 * where the kernel already did; a tail whose head was not read keeps its
 * own. */
#define KPF_PER_FOLIO ((1ull << KPF_LRU) | (1ull << KPF_ACTIVE) | (1ull << KPF_DIRTY) | \
		       (1ull << KPF_SWAPBACKED) | (1ull << KPF_UNEVICTABLE))

static uint64_t folio_flags(uint64_t k, uint64_t *head)
{
	if ((k >> KPF_COMPOUND_HEAD) & 1)
		*head = k;
	else if (((k >> KPF_COMPOUND_TAIL) & 1) && *head != 0)
		k = (k & ~KPF_PER_FOLIO) | (*head & KPF_PER_FOLIO);
	else
		*head = 0;
	return k;
}

/* The flags of n consecutive frames from pfn, read in one pread, counted. */
static int count_run(struct pageflags *pf, uint64_t pfn, size_t n, struct pageflags_count *c, struct lab_error *err)
{
	uint64_t flags[CHUNK], head = 0;
	int ret;

	while (n > 0) {
		size_t m = n < CHUNK ? n : CHUNK;

		if ((ret = pread_all(pf->kpageflags_fd, flags, m * 8, (off_t)(pfn * 8), err, "/proc/kpageflags")) < 0)
			return ret;
		for (size_t i = 0; i < m; i++)
			add_flags(c, folio_flags(flags[i], &head));
		pfn += m;
		n -= m;
	}
	return 0;
}

int pageflags_count(struct pageflags *pf, const unsigned char *start, size_t size, size_t page_size,
		    struct pageflags_count *out, struct lab_error *err)
{
	uint64_t pm[CHUNK];
	size_t pages = size / page_size;
	uint64_t run_pfn = 0;
	size_t run_len = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	out->pages = pages;
	if (pf->pagemap_fd < 0 || pf->kpageflags_fd < 0)
		return 0;
	out->available = true;
	for (size_t i = 0; i < pages; i += CHUNK) {
		size_t m = pages - i < CHUNK ? pages - i : CHUNK;
		off_t off = (off_t)(((uintptr_t)start / page_size + i) * 8);

		if ((ret = pread_all(pf->pagemap_fd, pm, m * 8, off, err, "/proc/self/pagemap")) < 0)
			return ret;
		for (size_t j = 0; j < m; j++) {
			uint64_t pfn = pm[j] & PM_PFN_MASK;

			if (!(pm[j] & PM_PRESENT))
				continue;
			out->present++;
			if (pfn == 0) {
				out->no_pfn++;
				continue;
			}
			if (run_len > 0 && pfn == run_pfn + run_len) {
				run_len++;
				continue;
			}
			if (run_len > 0 && (ret = count_run(pf, run_pfn, run_len, out, err)) < 0)
				return ret;
			run_pfn = pfn;
			run_len = 1;
		}
	}
	if (run_len > 0 && (ret = count_run(pf, run_pfn, run_len, out, err)) < 0)
		return ret;
	if (out->present > 0 && out->no_pfn == out->present)
		out->available = false;         /* no CAP_SYS_ADMIN: every frame reads 0 */
	return 0;
}
