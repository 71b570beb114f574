/* vmstat.c — source "vmstat_delta": the keys of /proc/vmstat that changed
 * since the run's start, as signed differences (an absent key did not
 * change).  The start is read when the source opens; the sampler records it
 * whole as runs[].vmstat_start.  O(1): every tick. */
#include "source.h"

#include <errno.h>
#include <string.h>

#include "../fileio.h"
#include "kv.h"

struct vmstat_state {
	struct kv_list base, cur;
};

static int vmstat_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct kv_list l = { 0 };
	int ret;

	(void)len;
	ret = kv_parse_space(buf, &l, err);
	if (ret == 0)
		*out = source_kv_json(&l);
	kv_free(&l);
	return ret;
}

static int vmstat_open(struct source_ctx *ctx, void *state, struct lab_error *err)
{
	struct vmstat_state *st = state;
	cleanup_free char *buf = NULL;
	int ret;

	(void)ctx;
	if ((ret = lab_read_file("/proc/vmstat", &buf, NULL, err)) < 0)
		return ret;
	return kv_parse_space(buf, &st->base, err);
}

static int vmstat_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	struct vmstat_state *st = state;
	cleanup_free char *buf = NULL;
	int ret;

	(void)ctx;
	if ((ret = lab_read_file("/proc/vmstat", &buf, NULL, err)) < 0)
		return ret;
	kv_reset(&st->cur);
	if ((ret = kv_parse_space(buf, &st->cur, err)) < 0)
		return ret;
	*out = json_object();
	for (size_t i = 0; i < st->cur.n; i++) {
		const struct kv *k = &st->cur.items[i];
		unsigned long long base;

		/* The file's order does not change within a boot: try the
		 * same index first. */
		if (i < st->base.n && !strcmp(st->base.items[i].key, k->key))
			base = st->base.items[i].val;
		else if (!kv_get(&st->base, k->key, &base))
			base = 0;
		if (base != k->val)
			json_object_set_new_nocheck(*out, k->key, json_integer((json_int_t)(k->val - base)));
	}
	return 0;
}

static void vmstat_close(void *state)
{
	struct vmstat_state *st = state;

	kv_free(&st->base);
	kv_free(&st->cur);
}

/* The whole file at the run's start (runs[].vmstat_start). */
static json_t *vmstat_start(const void *state)
{
	return source_kv_json(&((const struct vmstat_state *)state)->base);
}

const struct source source_vmstat = {
	.name = "vmstat_delta",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_TICK,
	.in_steps = true,
	.files = "/proc/vmstat",
	.fixture = "proc-vmstat",
	.doc = "/proc/vmstat keys that changed since the run's start, as differences",
	.parse = vmstat_parse,
	.state_size = sizeof(struct vmstat_state),
	.open = vmstat_open,
	.read = vmstat_read,
	.close = vmstat_close,
	.run_key = "vmstat_start",
	.start = vmstat_start,
};
