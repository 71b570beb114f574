/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps_rollup.c — source "workloads": each running workload's
 * /proc/PID/smaps_rollup (Rss, Pss, Anonymous, LazyFree, AnonHugePages, Swap,
 * Pss_Shmem, kB).  Reading it walks every page-table entry of the process
 * (fs/proc/task_mmu.c: show_smaps_rollup -> walk_page_vma), ~16 µs per
 * resident MiB here: a step source, never read at a plain tick.
 *
 *   {"<workload>": {"rss_kb", "pss_kb", "anonymous_kb", "lazyfree_kb",
 *                   "anonhuge_kb", "swap_kb", "pss_shmem_kb"}} */
#include "source.h"

#include <stdio.h>

#include "base/fileio.h"
#include "base/kv.h"

static const char *const keys[] = { "Rss", "Pss", "Anonymous", "LazyFree", "AnonHugePages",
				    "Swap", "Pss_Shmem" };
static const char *const names[] = { "rss_kb", "pss_kb", "anonymous_kb", "lazyfree_kb",
				     "anonhuge_kb", "swap_kb", "pss_shmem_kb" };

static json_t *rollup_json(const struct kv_list *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned long long v;

		if (kv_get(l, keys[i], &v))
			json_object_set_new(o, names[i], json_integer((json_int_t)v));
	}
	return o;
}

static int rollup_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct kv_list l = { 0 };
	int ret;

	(void)len;
	ret = kv_parse_colon(buf, &l, err);
	if (ret == 0)
		*out = rollup_json(&l);
	kv_free(&l);
	return ret;
}

struct rollup_state {
	struct kv_list kv;
};

static int rollup_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	struct rollup_state *st = state;

	(void)err;
	*out = json_object();
	for (size_t i = 0; i < ctx->nr_procs; i++) {
		const struct source_proc *p = &ctx->procs[i];
		const char *buf;
		struct lab_error e;
		char path[64];

		if (!p->running)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)p->pid);
		kv_reset(&st->kv);
		/* A workload that exits meanwhile is simply not in this sample. */
		if (source_read(ctx, path, &buf, &e) < 0 || kv_parse_colon(buf, &st->kv, &e) < 0)
			continue;
		json_object_set_new(*out, p->name, rollup_json(&st->kv));
	}
	return 0;
}

static void rollup_close(void *state)
{
	kv_free(&((struct rollup_state *)state)->kv);
}

const struct source source_smaps_rollup = {
	.name = "workloads",
	.where = SOURCE_WORKLOAD,
	.cadence = SOURCE_STEP,
	.files = "/proc/PID/smaps_rollup",
	.fixture = "self-smaps-rollup",
	.doc = "each workload's smaps_rollup: rss, pss, anonymous, lazyfree, anonhuge, swap, pss_shmem (kB)",
	.parse = rollup_parse,
	.state_size = sizeof(struct rollup_state),
	.read = rollup_read,
	.close = rollup_close,
};
