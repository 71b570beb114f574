/* SPDX-License-Identifier: GPL-2.0-or-later */
/* meminfo.c — source "meminfo": every key of /proc/meminfo, in kB as
 * printed (fs/proc/meminfo.c).  O(1): every tick. */
#include "source.h"

#include "base/fileio.h"
#include "base/kv.h"

static int meminfo_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct jw w = { 0 };
	int ret;

	(void)len;
	if ((ret = source_kv_emit_text(&w, buf, true, err)) < 0) {
		jw_free(&w);
		return ret;
	}
	return source_emitted(&w, out, err);
}

/* Each line straight to the sample's text: no list of ~55 keys to fill and
 * read again at every tick. */
static int meminfo_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	const char *buf;
	int ret;

	(void)state;
	if ((ret = source_read(ctx, "/proc/meminfo", &buf, err)) < 0)
		return ret;
	return source_kv_emit_text(w, buf, true, err);
}

const struct source source_meminfo = {
	.name = "meminfo",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_TICK,
	.files = "/proc/meminfo",
	.fixture = "proc-meminfo",
	.doc = "every key of /proc/meminfo, kB",
	.parse = meminfo_parse,
	.emit = meminfo_emit,
};
