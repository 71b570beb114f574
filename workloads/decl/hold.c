/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl/hold.c — the ballast (workloads/hold.c): options read by the scenario parser. */
#include "workloads/decl.h"

static const struct wl_opt hold_opts[] = {
	{ "size", "--size", WT_MEM, NULL, false, "hold this much (this or leave)" },
	{ "leave", "--leave", WT_POSITIVE_SIZE, NULL, false, "hold MemFree - leave: shape the machine" },
	{ "oom_score_adj", "--oom-score-adj", WT_UINT, NULL, false, "0..1000: a bystander, not the victim" },
	{ "fill", "--fill", WT_BYTE, NULL, false, "the byte every page is written with" },
	{ NULL, NULL, WT_SIZE, NULL, false, NULL },
};

const struct wl_decl wl_decl_hold = {
	.program = "hold",
	.summary = "charge a ballast to the sandbox and hold it until stopped",
	.opts = hold_opts,
	.steps = NULL,
};
