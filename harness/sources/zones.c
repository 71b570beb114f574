/* zones.c — source "zones": per populated zone of /proc/zoneinfo its free
 * pages, the three watermark lines (mm/page_alloc.c: __setup_per_zone_wmarks),
 * the boost, the page counts and the lowmem protection array; zones with
 * nothing present are left out.  Pages.  O(1): every tick. */
#include "source.h"

#include <errno.h>
#include <stdlib.h>

#include "../fileio.h"
#include "zoneinfo.h"

/* slim (a burst sample, 10 ms apart): what the trough needs — free, the
 * lines, the boost and managed — so a burst stays small in the result. */
static json_t *zones_json(const struct zoneinfo *zi, bool slim)
{
	json_t *a = json_array();

	for (size_t i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];
		json_t *p = json_array(), *o;

		if (z->present == 0) {
			json_decref(p);
			continue;
		}
		if (slim) {
			json_decref(p);
			o = json_object();
			json_object_set_new_nocheck(o, "node", json_integer(z->node));
			json_object_set_new_nocheck(o, "zone", json_string(z->name));
			json_object_set_new_nocheck(o, "free", json_integer((json_int_t)z->free));
			json_object_set_new_nocheck(o, "min", json_integer((json_int_t)z->min));
			json_object_set_new_nocheck(o, "low", json_integer((json_int_t)z->low));
			json_object_set_new_nocheck(o, "high", json_integer((json_int_t)z->high));
			/* The lines include the boost (mm/page_alloc.c: boost_watermark):
			 * a check of the line arithmetic needs it in every sample. */
			json_object_set_new_nocheck(o, "boost", json_integer((json_int_t)z->boost));
			json_object_set_new_nocheck(o, "managed", json_integer((json_int_t)z->managed));
			json_array_append_new(a, o);
			continue;
		}
		for (size_t j = 0; j < z->nr_protection; j++)
			json_array_append_new(p, json_integer((json_int_t)z->protection[j]));
		/* Built key by key: json_pack would parse its format for
		 * every zone at every tick. */
		o = json_object();
		json_object_set_new_nocheck(o, "node", json_integer(z->node));
		json_object_set_new_nocheck(o, "zone", json_string(z->name));
		json_object_set_new_nocheck(o, "free", json_integer((json_int_t)z->free));
		json_object_set_new_nocheck(o, "min", json_integer((json_int_t)z->min));
		json_object_set_new_nocheck(o, "low", json_integer((json_int_t)z->low));
		json_object_set_new_nocheck(o, "high", json_integer((json_int_t)z->high));
		json_object_set_new_nocheck(o, "boost", json_integer((json_int_t)z->boost));
		json_object_set_new_nocheck(o, "managed", json_integer((json_int_t)z->managed));
		json_object_set_new_nocheck(o, "present", json_integer((json_int_t)z->present));
		json_object_set_new_nocheck(o, "spanned", json_integer((json_int_t)z->spanned));
		json_object_set_new_nocheck(o, "protection", p);
		json_array_append_new(a, o);
	}
	return a;
}

struct zones_state {
	struct zoneinfo zi;     /* ~10 KiB: kept, not on the stack */
};

static int zones_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct zoneinfo *zi = malloc(sizeof(*zi));
	int ret;

	(void)len;
	if (zi == NULL)
		return lab_error_errno(err, ENOMEM, "zoneinfo");
	ret = zoneinfo_parse(buf, zi, err);
	if (ret == 0)
		*out = zones_json(zi, false);
	free(zi);
	return ret;
}

static int zones_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	struct zones_state *st = state;
	const char *buf;
	int ret;

	if ((ret = source_read(ctx, "/proc/zoneinfo", &buf, err)) < 0)
		return ret;
	if ((ret = zoneinfo_parse(buf, &st->zi, err)) < 0)
		return ret;
	*out = zones_json(&st->zi, ctx->burst);
	return 0;
}

const struct source source_zones = {
	.name = "zones",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_TICK,
	.in_bursts = true,
	.files = "/proc/zoneinfo",
	.fixture = "proc-zoneinfo",
	.doc = "per populated zone: free, min, low, high, boost, managed, present, spanned, protection (pages)",
	.parse = zones_parse,
	.state_size = sizeof(struct zones_state),
	.read = zones_read,
};
