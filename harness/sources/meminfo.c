/* meminfo.c — source "meminfo": every key of /proc/meminfo, in kB as
 * printed (fs/proc/meminfo.c).  O(1): every tick. */
#include "source.h"

#include "../fileio.h"
#include "kv.h"

struct meminfo_state {
	struct kv_list kv;
};

static int meminfo_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct kv_list l = { 0 };
	int ret;

	(void)len;
	ret = kv_parse_colon(buf, &l, err);
	if (ret == 0) {
		struct jw w = { 0 };

		source_kv_emit(&w, &l);
		ret = source_emitted(&w, out, err);
	}
	kv_free(&l);
	return ret;
}

static int meminfo_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	struct meminfo_state *st = state;
	const char *buf;
	int ret;

	(void)ctx;
	if ((ret = source_read(ctx, "/proc/meminfo", &buf, err)) < 0)
		return ret;
	kv_reset(&st->kv);
	if ((ret = kv_parse_colon(buf, &st->kv, err)) < 0)
		return ret;
	source_kv_emit(w, &st->kv);
	return 0;
}

static void meminfo_close(void *state)
{
	kv_free(&((struct meminfo_state *)state)->kv);
}

const struct source source_meminfo = {
	.name = "meminfo",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_TICK,
	.files = "/proc/meminfo",
	.fixture = "proc-meminfo",
	.doc = "every key of /proc/meminfo, kB",
	.parse = meminfo_parse,
	.state_size = sizeof(struct meminfo_state),
	.emit = meminfo_emit,
	.close = meminfo_close,
};
