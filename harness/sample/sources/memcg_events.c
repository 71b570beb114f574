/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg_events.c — source "memory_events": the sandbox's v2 memory.events
 * (mm/memcontrol.c: memory_events_show), typed:
 *
 *   low             times usage was under memory.low but reclaimed anyway
 *   high            times usage went over memory.high (throttled, reclaimed)
 *   max             times usage hit memory.max (reclaim before a charge)
 *   oom             times the group hit its limit with reclaim failing
 *   oom_kill        processes the OOM killer killed in the group
 *   oom_group_kill  group-wide kills (memory.oom.group, 5.17+)
 *
 * Counts since the group was created; a key the kernel does not print is
 * absent.  v1 has no such file (memcg.events holds its memory.oom_control).
 * O(1): every tick, from memcg's read of the file in the same sample
 * (.shares): no descriptor of its own unless memcg did not read it. */
#include "source.h"

#include "base/fileio.h"
#include "base/kv.h"

static const char *const keys[] = { "low", "high", "max", "oom", "oom_kill", "oom_group_kill" };

/* The file's text -> its typed value at w (the tick's path and the parser's). */
static int events_emit_text(const char *buf, struct jw *w, struct lab_error *err)
{
	struct kv_list l = { 0 };
	int ret;

	if ((ret = kv_parse_space(buf, &l, err)) == 0) {
		jw_obj(w);
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			unsigned long long v;

			if (kv_get(&l, keys[i], &v)) {
				jw_key(w, keys[i]);
				jw_i64(w, (long long)v);
			}
		}
		jw_obj_end(w);
	}
	kv_free(&l);
	return ret;
}

static int events_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct jw w = { 0 };
	int ret;

	(void)len;
	if ((ret = events_emit_text(buf, &w, err)) < 0) {
		jw_free(&w);
		return ret;
	}
	return source_emitted(&w, out, err);
}

static int events_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	const char *buf;
	int ret;

	(void)state;
	/* memcg read this very text a moment ago, in this sample: type it
	 * (one read of memory.events a sample, not two); when memcg could not,
	 * read it here. */
	if ((buf = ctx->facts.events_v2) == NULL && (ret = source_read_sandbox(ctx, "memory.events", &buf, err)) < 0)
		return ret;
	return events_emit_text(buf, w, err);
}

const struct source source_memcg_events = {
	.name = "memory_events",
	.shares = "memcg",
	.where = SOURCE_CG_V2,
	.cadence = SOURCE_TICK,
	.files = "memory.events",
	.fixture = "memcg-memory.events memcg-memory.events-oom memory.events",
	.doc = "the sandbox's v2 memory.events: low, high, max, oom, oom_kill, oom_group_kill",
	.parse = events_parse,
	.emit = events_emit,
};
