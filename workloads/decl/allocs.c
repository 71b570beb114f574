/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/allocs.c — memory through a real allocator (workloads/allocs.c). */
#include "workloads/decl.h"

static const struct wl_opt allocs_opts[] = {
	{ "allocator", "--allocator", WT_ENUM, "glibc|jemalloc", true, "which malloc" },
	{ "malloc_conf", "--malloc-conf", WT_TEXT, NULL, false, "jemalloc's MALLOC_CONF, as written" },
	{ "size", "--size", WT_MEM, NULL, true, "how much to allocate" },
	{ "chunk", "--chunk", WT_POSITIVE_SIZE, NULL, false, "one malloc() (default 64K)" },
	{ "keep_last", "--keep-last", WT_BOOL, NULL, false, "the last chunk stays allocated" },
	{ "trim", "--trim", WT_BOOL, NULL, false, "malloc_trim(0) / arena purge after the free" },
	{ "hold", "--hold", WT_UINT, NULL, false, "ms after the free" },
	{ "pressure", "--pressure", WT_MEM, NULL, false, "a second mapping written at the end" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_allocs = {
	.program = "allocs",
	.summary = "allocate and free through glibc or jemalloc, and see what goes back to the kernel",
	.opts = allocs_opts,
	.steps = NULL,
};
