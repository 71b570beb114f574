/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/cachefill.c — a file read into the page cache (workloads/cachefill.c). */
#include "workloads/decl.h"

static const struct wl_opt cachefill_opts[] = {
	{ "size", "--size", WT_MEM, NULL, true, "the file's size" },
	{ "reads", "--reads", WT_UINT, NULL, false, "read it this many times" },
	{ "cold", "--cold", WT_BOOL, NULL, false, "drop the file's cache before reading" },
	{ "stay", "--stay", WT_BOOL, NULL, false, "keep the file (and its cache) until stopped" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

/* By hand only: a scenario's file is made in /var/tmp and removed at the end. */
static const struct wl_opt cachefill_argv_opts[] = {
	{ "dir", "--dir", WT_TEXT, NULL, false, "where the file is made (default /var/tmp)" },
	{ "keep", "--keep", WT_BOOL, NULL, false, "leave the file behind" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_cachefill = {
	.program = "cachefill",
	.summary = "write a file and read it into the page cache",
	.opts = cachefill_opts,
	.steps = NULL,
	.argv_opts = cachefill_argv_opts,
};
