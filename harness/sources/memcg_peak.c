/* memcg_peak.c — source "memcg_peak": the sandbox's high-water mark of
 * usage, into memcg.peak_bytes.  v2 memory.peak exists from 5.19
 * (mm/memcontrol.c: memory_peak_read); v1 memory.max_usage_in_bytes.  Where
 * the file is missing (v2 before 5.19) peak_bytes reads 0, as it always did.
 * O(1): every tick. */
#include "source.h"

#include <errno.h>
#include <stdint.h>

#include "../fileio.h"
#include "lex.h"

static int peak_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	unsigned long long v;
	const char *end;

	(void)len;
	if (lex_u64(buf, 10, &v, &end) < 0 || (*end != '\n' && *end != '\0') ||
	    (*end == '\n' && end[1] != '\0'))
		return lab_error_set(err, EINVAL, "memory peak: not one number: %.40s", buf);
	*out = json_pack("{s:I}", "peak_bytes", (json_int_t)(v > INT64_MAX ? INT64_MAX : v));
	return 0;
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

static int peak_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	struct peak_state *st = state;
	const char *buf;
	int ret;

	if (st->missing) {
		*out = json_pack("{s:i}", "peak_bytes", 0);
		return 0;
	}
	if ((ret = source_read_sandbox(ctx, "memory.peak", &buf, err)) < 0)
		return ret;
	return peak_parse(buf, 0, out, err);
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
	.read = peak_read,
};
