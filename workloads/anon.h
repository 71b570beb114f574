/* SPDX-License-Identifier: GPL-2.0-or-later */
/* anon.h — charging private anonymous memory, as hold does for its ballast and
 * region for its `pressure` step.
 *
 * Header-only (static inline): a workload that includes it links nothing more.
 */
#ifndef PAGELAB_ANON_H
#define PAGELAB_ANON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>

#include "base/error.h"

/* Map bytes of private anonymous memory and charge every page of it: write
 * byte at the start of each page, or into every byte when fill is set.  One
 * write a page is what charges it: a write fault allocates the whole page
 * whatever the value (mm/memory.c: do_anonymous_page).
 *
 * stop (NULL: none): signals the caller has blocked that end the charging
 * early.  The pages are then charged ANON_CHUNK at a time, and one of them
 * pending between two chunks is taken (sigtimedwait, no wait) and 1 returned,
 * the mapping in *out as far as it got: a ballast asked to stop while it
 * fills stops within a chunk, not when a fill near the watermarks ends
 * seconds later.
 * Returns 0 with the mapping in *out, 1 (stopped), or -errno with err filled. */
#define ANON_CHUNK ((size_t)32 << 20)

static inline int anon_map_charged(size_t bytes, size_t page_size, unsigned char byte, bool fill,
				   const sigset_t *stop, void **out, struct lab_error *err)
{
	static const struct timespec now = { 0, 0 };
	volatile unsigned char *p;
	size_t off, end;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return lab_error_errno(err, errno, "mmap %zu bytes", bytes);
	*out = (void *)p;
	for (off = 0; off < bytes; off = end) {
		end = stop != NULL && bytes - off > ANON_CHUNK ? off + ANON_CHUNK : bytes;
		if (fill) {
			memset((void *)(p + off), byte, end - off);
		} else {
			for (size_t o = off; o < end; o += page_size)
				p[o] = byte;
		}
		if (stop != NULL && end < bytes && sigtimedwait(stop, NULL, &now) >= 0)
			return 1;
	}
	return 0;
}

#endif
