/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/reclaimer.c — the memory.reclaim loop (workloads/reclaimer.c): options
 * read by the scenario parser. */
#include "workloads/decl.h"

static const struct wl_opt reclaimer_opts[] = {
	{ "amount", "--amount", WT_POSITIVE_SIZE, NULL, true, "what each write of memory.reclaim asks for" },
	{ "interval", "--interval", WT_UINT, NULL, false, "ms between writes (default 100; 0: back to back)" },
	{ "count", "--count", WT_UINT, NULL, false, "writes in all (default 0: until stopped)" },
	{ "above", "--above", WT_SIZE, NULL, false,
	  "write only while the cgroup's memory.current is at least this (default 0: always)" },
	{ "report", "--report", WT_POSITIVE_UINT, NULL, false, "ms between its `reclaim` steps (default 1000)" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_reclaimer = {
	.program = "reclaimer",
	.summary = "write the sandbox's memory.reclaim in a loop (cgroup v2): a second reclaimer on its memcg",
	.opts = reclaimer_opts,
	.steps = NULL,
};
