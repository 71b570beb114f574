/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/lazyscan.c — the host scan of LazyFree (workloads/lazyscan.c): no options. */
#include "workloads/decl.h"

static const struct wl_opt lazyscan_opts[] = {
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_lazyscan = {
	.program = "lazyscan",
	.summary = "how many processes on the host hold LazyFree > 0",
	.opts = lazyscan_opts,
	.steps = NULL,
};
