/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/goalloc.c — memory through Go's runtime (workloads/goalloc/main.go). */
#include "workloads/decl.h"

static const struct wl_opt goalloc_opts[] = {
	{ "size", "--size", WT_MEM, NULL, true, "how much to allocate" },
	{ "chunk", "--chunk", WT_POSITIVE_SIZE, NULL, false, "one make([]byte) (default 64K)" },
	{ "madvdontneed", "--madvdontneed", WT_ENUM, "0|1|default", false,
	  "GODEBUG=madvdontneed=N before the runtime starts; default: the runtime's own (1 since Go 1.16)" },
	{ "hold", "--hold", WT_UINT, NULL, false, "ms after the scavenge" },
	{ "pressure", "--pressure", WT_MEM, NULL, false, "a second mapping written at the end" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_goalloc = {
	.program = "goalloc",
	.summary = "allocate and drop through Go's runtime, scavenge, and see what goes back (MADV_FREE or MADV_DONTNEED)",
	.opts = goalloc_opts,
	.steps = NULL,
};
