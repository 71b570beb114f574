/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg.c — source "memcg": the sandbox's usage, memory.stat and its event
 * counters (v2 memory.events; v1 memory.oom_control, whose oom_kill counts
 * kills since 4.13: mm/memcontrol-v1.c).  O(1): every tick.
 *
 *   {"usage_bytes", "oom_kill", "oom_group_kill" (v2; 0 on v1),
 *    "stat": {memory.stat as printed}, "events": {memory.events | oom_control},
 *    "kmem_bytes": v1 memory.kmem.usage_in_bytes,
 *    "stat_sum_bytes": memory.stat's anon + file + kernel (v1 rss + cache + kmem_bytes)}
 * (memcg_peak adds "peak_bytes"). */
#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "base/lex.h"

struct memcg_state {
	struct kv_list events;
};

static int parse_u64_line(const char *buf, unsigned long long *v)
{
	const char *end;

	if (lex_u64(buf, 10, v, &end) < 0 || (*end != '\n' && *end != '\0'))
		return -EINVAL;
	return 0;
}

/* memory.stat's fields that add up to what memory.current counts: v2
 * anon + file + kernel (mm/memcontrol.c: memory_stat_format; "kernel" is
 * every kernel allocation charged: slab, stacks, page tables, percpu, sock,
 * vmalloc); v1 rss + cache (memcg1_stat_format) and, read right after,
 * memory.kmem.usage_in_bytes: the kernel memory v1's usage_in_bytes counts
 * too (mm/memcontrol-v1.c: memcg1_account_kmem charges both counters), which
 * v1's memory.stat does not print.  kmem is an exact page counter: the lag
 * is memory.stat's. */
static const char *const sum_v2[] = { "anon", "file", "kernel" };
static const char *const sum_v1[] = { "rss", "cache" };

const char *source_memcg_sum_fields(enum cg_version cg)
{
	return cg == CG_VERSION_V1 ? "rss+cache (memory.stat) + memory.kmem.usage_in_bytes" : "anon+file+kernel";
}

/* One pass over the lines, each tried only against the keys that start
 * with its first byte (memory.stat prints ~45 lines a tick). */
static unsigned long long stat_sum(const char *stat, enum cg_version cg, unsigned *found)
{
	const char *const *keys = cg == CG_VERSION_V1 ? sum_v1 : sum_v2;
	size_t nk = cg == CG_VERSION_V1 ? 2 : 3;
	unsigned long long sum = 0;

	*found = 0;
	for (const char *p = stat; *p != '\0'; p = lex_next_line(lex_line_end(p))) {
		for (size_t k = 0; k < nk; k++) {
			size_t n;
			unsigned long long v;
			const char *end;

			if (*p != keys[k][0])
				continue;
			n = strlen(keys[k]);
			if (strncmp(p, keys[k], n) == 0 && p[n] == ' ' && lex_u64(p + n + 1, 10, &v, &end) == 0) {
				sum += v;
				(*found)++;
			}
		}
	}
	return sum;
}

static int memcg_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	struct memcg_state *st = state;
	const char *cur;
	const char *stat;
	const char *events;
	const char *kmem = NULL;
	unsigned long long usage, kmem_bytes = 0;
	unsigned found;
	int ret;

	/* memory.current, then at once memory.stat: the two a lag between
	 * the exact counter and the flushed statistics is measured from. */
	if ((ret = source_read_sandbox(ctx, "memory.current", &cur, err)) < 0)
		return ret;
	if ((ret = source_read_sandbox(ctx, "memory.stat", &stat, err)) < 0)
		return ret;
	if (ctx->cg == CG_VERSION_V1 && source_read_sandbox(ctx, "memory.kmem.usage_in_bytes", &kmem, err) == 0 &&
	    parse_u64_line(kmem, &kmem_bytes) < 0)
		kmem = NULL;
	if (parse_u64_line(cur, &usage) < 0)
		return lab_error_set(err, EINVAL, "memory usage: not a number: %.40s", cur);
	if ((ret = source_read_sandbox(ctx, "memory.events", &events, err)) < 0)
		return ret;
	if (ctx->cg == CG_VERSION_V2)
		ctx->facts.events_v2 = events;  /* memory_events types it: one read (source.h) */
	kv_reset(&st->events);
	if ((ret = kv_parse_space(events, &st->events, err)) < 0)
		return lab_error_prefix(err, "%s", ctx->cg == CG_VERSION_V1 ? "memory.oom_control" : "memory.events");
	jw_obj(w);
	jw_key_lit(w, "usage_bytes");
	jw_i64(w, (long long)usage);
	jw_key_lit(w, "oom_kill");
	jw_i64(w, (long long)kv_get0(&st->events, "oom_kill"));
	/* With memory.oom.group = 1 one victim counts in oom_kill once per
	 * process of the group (mm/memcontrol.c: memcg_memory_event); v1 has
	 * no group kills. */
	jw_key_lit(w, "oom_group_kill");
	jw_i64(w, ctx->cg == CG_VERSION_V2 ? (long long)kv_get0(&st->events, "oom_group_kill") : 0);
	/* memory.stat's ~45 lines straight into the text: no list to fill and
	 * read again at every tick (on an error the caller rewinds). */
	jw_key_lit(w, "stat");
	if ((ret = source_kv_emit_text(w, stat, false, err)) < 0)
		return lab_error_prefix(err, "memory.stat");
	jw_key_lit(w, "events");
	source_kv_emit(w, &st->events);
	if (kmem != NULL) {
		jw_key_lit(w, "kmem_bytes");
		jw_i64(w, (long long)kmem_bytes);
	}
	ctx->facts.stat_sum_bytes = stat_sum(stat, ctx->cg, &found) + kmem_bytes;
	ctx->facts.have_stat_sum = ctx->cg == CG_VERSION_V1 ? found == 2u && kmem != NULL : found == 3u;
	if (ctx->facts.have_stat_sum) {
		jw_key_lit(w, "stat_sum_bytes");
		jw_i64(w, (long long)ctx->facts.stat_sum_bytes);
	}
	jw_obj_end(w);
	ctx->facts.have_usage = true;
	ctx->facts.usage_bytes = usage;
	return 0;
}

static void memcg_close(void *state)
{
	struct memcg_state *st = state;

	kv_free(&st->events);
}

const struct source source_memcg = {
	.name = "memcg",
	.where = SOURCE_CG,
	.cadence = SOURCE_TICK,
	.in_steps = true,
	.files = "memory.current memory.stat memory.events memory.kmem.usage_in_bytes",
	.doc = "the sandbox's usage, memory.stat and memory.events (v1: oom_control)",
	.state_size = sizeof(struct memcg_state),
	.emit = memcg_emit,
	.close = memcg_close,
};
