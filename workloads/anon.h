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
#include <sys/mman.h>

#include "base/error.h"

/* Map bytes of private anonymous memory and charge every page of it: write
 * byte at the start of each page, or into every byte when fill is set.  One
 * write a page is what charges it: a write fault allocates the whole page
 * whatever the value (mm/memory.c: do_anonymous_page).
 * Returns 0 with the mapping in *out, or -errno with err filled. */
static inline int anon_map_charged(size_t bytes, size_t page_size, unsigned char byte, bool fill,
				   void **out, struct lab_error *err)
{
	volatile unsigned char *p;
	size_t off;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return lab_error_errno(err, errno, "mmap %zu bytes", bytes);
	if (fill) {
		memset((void *)p, byte, bytes);
	} else {
		for (off = 0; off < bytes; off += page_size)
			p[off] = byte;
	}
	*out = (void *)p;
	return 0;
}

#endif
