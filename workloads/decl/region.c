/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/region.c — the region driver (workloads/region.c): options and steps,
 * read by the scenario parser and by region's own argument parser. */
#include "workloads/decl.h"
#include "region.h"

static const struct wl_opt region_opts[] = {
	{ "size", "--size", WT_MEM, NULL, true, "the region's size (a multiple of the page size)" },
	{ "thp", "--thp", WT_ENUM, "on|off|default", false, "MADV_HUGEPAGE, MADV_NOHUGEPAGE, or neither" },
	{ "shared", "--shared", WT_BOOL, NULL, false, "MAP_SHARED|MAP_ANONYMOUS (shmem) instead of private" },
	{ "pressure_procs", "--pressure-procs", WT_POSITIVE_UINT, NULL, false,
	  "the pressure step in this many processes at once (1..64; default 1: the region itself)" },
	{ "steps", NULL, WT_ENUM, NULL, true, "the steps below, in order" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

/* advise's and populate's advice are the rows of workloads/decl.c's advice
 * table (none makes no call: the article's "no madvise" path). */

static const struct wl_step region_steps[] = {
	{ ST_FILL, "fill", 1, 0, { WT_BYTE }, NULL, "fill:BYTE           write BYTE to every byte" },
	{ ST_ADVISE, "advise", 1, 2, { WT_ADVICE, WT_POSITIVE_SIZE, WT_SIZE }, NULL,
	  "advise:ADVICE[:SIZE[:OFFSET]] madvise the region, or SIZE of it from OFFSET (default 0)" },
	{ ST_POPULATE, "populate", 1, 0, { WT_ADVICE }, NULL,
	  "populate:ADVICE      fault the region in (MADV_POPULATE_WRITE / _READ, 5.14+)" },
	{ ST_SERIES, "series", 1, 0, { WT_POSITIVE_UINT }, NULL, "series:K            K LazyFree readings back to back" },
	{ ST_READBACK, "readback", 1, 0, { WT_BYTE }, NULL, "readback:BYTE       compare the first page with BYTE" },
	{ ST_WRITE, "write", 2, 0, { WT_POSITIVE_UINT, WT_BYTE }, NULL, "write:N:BYTE        write BYTE to the first N pages" },
	{ ST_POKE, "poke", 2, 0, { WT_POSITIVE_SIZE, WT_BYTE }, NULL, "poke:SIZE:BYTE      write BYTE to the first SIZE bytes" },
	{ ST_PRESSURE, "pressure", 1, 0, { WT_MEM }, NULL, "pressure:SIZE       map and touch SIZE more, then unmap it" },
	{ ST_MINCORE, "mincore", 0, 0, { WT_UINT }, NULL, "mincore             residency only" },
	{ ST_DRAIN, "drain", 0, 0, { WT_UINT }, NULL, "drain               drain the per-CPU lazyfree batches" },
	{ ST_SCAN, "scan", 2, 0, { WT_BYTE, WT_BYTE }, NULL, "scan:PATTERN:WRITTEN classify every page by its first byte" },
	{ ST_HOLD, "hold", 1, 0, { WT_UINT }, NULL, "hold:MS             sleep" },
	{ ST_FRAGMENT, "fragment", 1, 0, { WT_UINT }, NULL,
	  "fragment:PCT        pin free PMD blocks until only PCT % of the region could be huge" },
	{ ST_FORK, "fork", 0, 0, { WT_UINT }, NULL, "fork                a child shares the region until join (or the end)" },
	{ ST_JOIN, "join", 0, 0, { WT_UINT }, NULL, "join                the forked child exits, and is reaped" },
	{ ST_PAGEFLAGS, "pageflags", 0, 0, { WT_UINT }, NULL,
	  "pageflags           count the region's pages by their /proc/kpageflags bits" },
	{ ST_SYSCALL, "syscall", 1, 0, { WT_ENUM }, "mount|ptrace|reboot|swapon|init_module",
	  "syscall:NAME        a forbidden call (the seccomp filter must kill)" },
	{ 0, NULL, 0, 0, { WT_SIZE }, NULL, NULL },
};

const struct wl_decl wl_decl_region = {
	.program = "region",
	.summary = "one anonymous region between guard pages, driven through the MADV_FREE article's steps",
	.opts = region_opts,
	.steps = region_steps,
};
