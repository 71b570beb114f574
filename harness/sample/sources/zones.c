/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zones.c — source "zones": per populated zone of /proc/zoneinfo its free
 * pages, the three watermark lines (mm/page_alloc.c: __setup_per_zone_wmarks),
 * the boost, the page counts, the lowmem protection array and the drift
 * bound of "free" (threshold x online CPUs, base/zoneinfo.h); zones with
 * nothing present are left out.  Pages.  O(1): every tick. */
#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/zoneinfo.h"

#define field(w, key, v) (jw_key_lit((w), key), jw_i64((w), (long long)(v)))

/* slim (a burst sample, 10 ms apart): what the trough needs — free, the
 * lines, the boost and managed — so a burst stays small in the result. */
static void zones_emit_zi(struct jw *w, const struct zoneinfo *zi, bool slim)
{
	jw_arr(w);
	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];

		if (z->present == 0)
			continue;
		jw_obj(w);
		jw_key_lit(w, "node");
		jw_i64(w, z->node);
		jw_key_lit(w, "zone");
		jw_str(w, z->name);
		field(w, "free", z->free);
		field(w, "min", z->min);
		field(w, "low", z->low);
		field(w, "high", z->high);
		/* The lines include the boost (mm/page_alloc.c: boost_watermark):
		 * a check of the line arithmetic needs it in every sample. */
		field(w, "boost", z->boost);
		field(w, "managed", z->managed);
		/* How far "free" may be from the true count (base/zoneinfo.h:
		 * drift = the CPUs' vm stats thresholds added up), at this sample:
		 * the threshold changes while kswapd is awake. */
		field(w, "drift", z->drift);
		if (!slim) {
			field(w, "stat_threshold", z->stat_threshold);
			field(w, "threshold_cpus", z->nr_threshold_cpus);
			field(w, "present", z->present);
			field(w, "spanned", z->spanned);
			jw_key_lit(w, "protection");
			jw_arr(w);
			for (size_t j = 0; j < z->nr_protection; j++)
				jw_i64(w, (long long)z->protection[j]);
			jw_arr_end(w);
		}
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

struct zones_state {
	struct zoneinfo zi;     /* ~10 KiB: kept, not on the stack */
	struct zoneinfo_layout layout;  /* the tick's fast path (base/zoneinfo.h) */
};

static int zones_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct zoneinfo *zi = malloc(sizeof(*zi));
	int ret;

	(void)len;
	if (zi == NULL)
		return lab_error_errno(err, ENOMEM, "zoneinfo");
	ret = zoneinfo_parse(buf, zi, err);
	if (ret == 0) {
		struct jw w = { 0 };

		zones_emit_zi(&w, zi, false);
		ret = source_emitted(&w, out, err);
	}
	free(zi);
	return ret;
}

static int zones_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	struct zones_state *st = state;
	const char *buf;
	int ret;

	if ((ret = source_read(ctx, "/proc/zoneinfo", &buf, err)) < 0)
		return ret;
	/* The layout of the last text the strict way read, its numbers only
	 * read again; any other change, and a new layout. */
	if (!zoneinfo_parse_fast(buf, strlen(buf), &st->layout, &st->zi) &&
	    (ret = zoneinfo_layout_make(buf, &st->layout, &st->zi, err)) < 0)
		return ret;
	ctx->facts.zones = &st->zi;
	zones_emit_zi(w, &st->zi, ctx->burst);
	return 0;
}

static void zones_close(void *state)
{
	zoneinfo_layout_free(&((struct zones_state *)state)->layout);
}

const struct source source_zones = {
	.name = "zones",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_TICK,
	.in_bursts = true,
	.files = "/proc/zoneinfo",
	.fixture = "proc-zoneinfo",
	.doc = "per populated zone: free, min, low, high, boost, managed, drift (free's bound), stat_threshold, threshold_cpus, present, spanned, protection (pages)",
	.parse = zones_parse,
	.state_size = sizeof(struct zones_state),
	.emit = zones_emit,
	.close = zones_close,
};
