/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcg_peak.c — source "memcg_peak": the sandbox's high-water mark of
 * usage, into memcg.peak_bytes.  v2 memory.peak exists from 5.19
 * (mm/memcontrol.c: memory_peak_read); v1 memory.max_usage_in_bytes.  Where
 * the file is missing (v2 before 5.19) peak_bytes reads 0, as it always did.
 * O(1): every tick. */
#include "source.h"

#include <errno.h>
#include <stdint.h>

#include "base/fileio.h"
#include "base/lex.h"

static int peak_value(const char *buf, unsigned long long *v, struct lab_error *err)
{
	const char *end;

	if (lex_u64(buf, 10, v, &end) < 0 || (*end != '\n' && *end != '\0') ||
	    (*end == '\n' && end[1] != '\0'))
		return lab_error_set(err, EINVAL, "memory peak: not one number: %.40s", buf);
	if (*v > INT64_MAX)
		*v = INT64_MAX;
	return 0;
}

/* Members only: they join memcg's object (into). */
static void peak_members(struct jw *w, unsigned long long v)
{
	jw_key_lit(w, "peak_bytes");
	jw_u64(w, v);
}

static int peak_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct jw w = { 0 };
	unsigned long long v;
	int ret;

	(void)len;
	if ((ret = peak_value(buf, &v, err)) < 0)
		return ret;
	jw_obj(&w);
	peak_members(&w, v);
	jw_obj_end(&w);
	return source_emitted(&w, out, err);
}

struct peak_state {
	bool missing;
};

static int peak_open(struct source_ctx *ctx, void *state, struct lab_error *err)
{
	struct peak_state *st = state;
	const char *buf;
	int ret = source_read_sandbox(ctx, "memory.peak", &buf, err);

	st->missing = ret == -ENOENT;
	if (ret < 0 && ret != -ENOENT)
		return ret;
	return 0;
}

static int peak_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	struct peak_state *st = state;
	unsigned long long v = 0;
	const char *buf;
	int ret;

	if (!st->missing) {
		if ((ret = source_read_sandbox(ctx, "memory.peak", &buf, err)) < 0)
			return ret;
		if ((ret = peak_value(buf, &v, err)) < 0)
			return ret;
	}
	peak_members(w, v);
	return 0;
}

const struct source source_memcg_peak = {
	.name = "memcg_peak",
	.into = "memcg",
	.where = SOURCE_CG,
	.cadence = SOURCE_TICK,
	.files = "memory.peak",
	.fixture = "memory.max_usage_in_bytes memcg-memory.peak",
	.doc = "the sandbox's peak usage (v2 memory.peak >= 5.19, v1 memory.max_usage_in_bytes)",
	.parse = peak_parse,
	.state_size = sizeof(struct peak_state),
	.open = peak_open,
	.emit = peak_emit,
};
