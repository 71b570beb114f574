/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg.c — source "memcg": the sandbox's usage, memory.stat and its event
 * counters (v2 memory.events; v1 memory.oom_control, whose oom_kill counts
 * kills since 4.13: mm/memcontrol-v1.c).  O(1): every tick.
 *
 *   {"usage_bytes", "oom_kill", "oom_group_kill" (v2; 0 on v1),
 *    "stat": {memory.stat as printed}, "events": {memory.events | oom_control}}
 * (memcg_peak adds "peak_bytes"). */
#include "source.h"

#include <errno.h>
#include <stdlib.h>

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

static int memcg_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	struct memcg_state *st = state;
	const char *cur;
	const char *stat;
	const char *events;
	unsigned long long usage;
	int ret;

	if ((ret = source_read_sandbox(ctx, "memory.current", &cur, err)) < 0)
		return ret;
	if (parse_u64_line(cur, &usage) < 0)
		return lab_error_set(err, EINVAL, "memory usage: not a number: %.40s", cur);
	if ((ret = source_read_sandbox(ctx, "memory.events", &events, err)) < 0)
		return ret;
	kv_reset(&st->events);
	if ((ret = kv_parse_space(events, &st->events, err)) < 0)
		return lab_error_prefix(err, "%s", ctx->cg == CG_VERSION_V1 ? "memory.oom_control" : "memory.events");
	jw_obj(w);
	jw_key(w, "usage_bytes");
	jw_i64(w, (long long)usage);
	jw_key(w, "oom_kill");
	jw_i64(w, (long long)kv_get0(&st->events, "oom_kill"));
	/* With memory.oom.group = 1 one victim counts in oom_kill once per
	 * process of the group (mm/memcontrol.c: memcg_memory_event); v1 has
	 * no group kills. */
	jw_key(w, "oom_group_kill");
	jw_i64(w, ctx->cg == CG_VERSION_V2 ? (long long)kv_get0(&st->events, "oom_group_kill") : 0);
	/* memory.stat's ~45 lines straight into the text: no list to fill and
	 * read again at every tick (on an error the caller rewinds). */
	jw_key(w, "stat");
	if ((ret = source_read_sandbox(ctx, "memory.stat", &stat, err)) < 0)
		return ret;
	if ((ret = source_kv_emit_text(w, stat, false, err)) < 0)
		return lab_error_prefix(err, "memory.stat");
	jw_key(w, "events");
	source_kv_emit(w, &st->events);
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
	.files = "memory.current memory.stat memory.events",
	.doc = "the sandbox's usage, memory.stat and memory.events (v1: oom_control)",
	.state_size = sizeof(struct memcg_state),
	.emit = memcg_emit,
	.close = memcg_close,
};
