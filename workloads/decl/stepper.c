/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/stepper.c — the watermark article's stepped allocator (workloads/stepper.c). */
#include "workloads/decl.h"

static const struct wl_opt stepper_opts[] = {
	{ "pace", NULL, WT_ENUM, NULL, false, "SIZE/MS: step and interval in one (typed by the parser)" },
	{ "step", "--step", WT_MEM, NULL, false, "allocate this much per step (this or pace)" },
	{ "target", "--target", WT_MEM, NULL, true, "stop allocating here" },
	{ "interval", "--interval", WT_UINT, NULL, false, "ms between steps" },
	{ "hold", "--hold", WT_UINT, NULL, false, "ms at the target" },
	{ "shared", "--shared", WT_BOOL, NULL, false, "MAP_SHARED|MAP_ANONYMOUS (shmem)" },
	{ "release", "--no-release", WT_BOOL, NULL, false, "unmap at the end (default yes)" },
	{ "oom_score_adj", "--oom-score-adj", WT_UINT, NULL, false, "0..1000" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_stepper = {
	.program = "stepper",
	.summary = "allocate in steps to a target, hold it, release it",
	.opts = stepper_opts,
	.steps = NULL,
};
