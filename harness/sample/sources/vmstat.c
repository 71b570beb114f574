/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vmstat.c — source "vmstat_delta": the keys of /proc/vmstat that changed
 * since the run's start, as signed differences (an absent key did not
 * change).  The start is read when the source opens; the sampler records it
 * whole as runs[].vmstat_start.  O(1): every tick. */
#include "source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "base/lex.h"

struct vmstat_state {
	struct kv_list base, cur;
	/* The base again, packed for the tick's fast path (delta_in_place):
	 * the keys one after another, each with its length, and the values —
	 * a third of the list's bytes, read at every tick. */
	struct packed {
		char *keys;
		unsigned *off;
		unsigned char *len;
		unsigned long long *val;
		size_t n;
	} pk;
};

static void packed_free(struct packed *pk)
{
	free(pk->keys);
	free(pk->off);
	free(pk->len);
	free(pk->val);
	memset(pk, 0, sizeof(*pk));
}

/* 0, or -ENOMEM (the tick then takes the strict path every time). */
static int packed_make(struct packed *pk, const struct kv_list *l)
{
	size_t bytes = 0, at = 0;

	for (size_t i = 0; i < l->n; i++)
		bytes += strlen(l->items[i].key);
	pk->keys = malloc(bytes + 1);
	pk->off = calloc(l->n + 1, sizeof(*pk->off));
	pk->len = calloc(l->n + 1, sizeof(*pk->len));
	pk->val = calloc(l->n + 1, sizeof(*pk->val));
	if (pk->keys == NULL || pk->off == NULL || pk->len == NULL || pk->val == NULL) {
		packed_free(pk);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++) {
		size_t k = strlen(l->items[i].key);         /* < KV_KEY_MAX */

		/* The fast path writes a key as it is (jw_key_plain): a key
		 * that would need escaping leaves the tick the strict path. */
		if (!jw_is_plain(l->items[i].key, k)) {
			packed_free(pk);
			return -EINVAL;
		}
		memcpy(pk->keys + at, l->items[i].key, k);
		pk->off[i] = (unsigned)at;
		pk->len[i] = (unsigned char)k;
		pk->val[i] = l->items[i].val;
		at += k;
	}
	pk->n = l->n;
	return 0;
}

static int vmstat_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct kv_list l = { 0 };
	int ret;

	(void)len;
	ret = kv_parse_space(buf, &l, err);
	if (ret == 0) {
		struct jw w = { 0 };

		source_kv_emit(&w, &l);
		ret = source_emitted(&w, out, err);
	}
	kv_free(&l);
	return ret;
}

static int vmstat_open(struct source_ctx *ctx, void *state, struct lab_error *err)
{
	struct vmstat_state *st = state;
	const char *buf;
	int ret;

	(void)ctx;
	if ((ret = source_read(ctx, "/proc/vmstat", &buf, err)) < 0)
		return ret;
	if ((ret = kv_parse_space(buf, &st->base, err)) < 0)
		return ret;
	packed_make(&st->pk, &st->base);
	return 0;
}

/* The fast path of a tick: /proc/vmstat prints the same keys in the same
 * order all boot long (mm/vmstat.c: vmstat_text), so each line is matched
 * against the base's key at the same index, in place, without building a
 * list.  Returns false at the first line that is not "KEY VALUE" with the
 * base's key (a key added by a hotplugged node, a malformed line): the
 * caller then parses the file the strict way. */
static bool delta_in_place(const char *buf, const struct packed *pk, struct jw *out)
{
	size_t i = 0;

	if (pk->n == 0)
		return false;
	/* Each line is the base's key, a space and digits up to the line's
	 * end: matched and read in one pass (the key's bytes — strncmp, which
	 * stops at the text's end — then the number, which must end the line),
	 * no search for the line's end first. */
	for (const char *p = buf; *p != '\0'; p = lex_next_line(p), i++) {
		const char *end;
		unsigned long long v;
		size_t klen;

		if (i >= pk->n)
			return false;
		klen = pk->len[i];
		if (strncmp(pk->keys + pk->off[i], p, klen) != 0 || p[klen] != ' ' ||
		    lex_u64(p + klen + 1, 10, &v, &end) < 0 || (*end != '\n' && *end != '\0'))
			return false;
		if (v != pk->val[i]) {
			jw_key_plain(out, p, klen);
			jw_i64(out, (long long)(v - pk->val[i]));
		}
		p = end;
	}
	return i == pk->n;
}

static int vmstat_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	struct vmstat_state *st = state;
	struct jw_mark m = jw_mark(w);
	const char *buf;
	int ret;

	if ((ret = source_read(ctx, "/proc/vmstat", &buf, err)) < 0)
		return ret;
	jw_obj(w);
	if (delta_in_place(buf, &st->pk, w)) {
		jw_obj_end(w);
		return 0;
	}
	jw_rewind(w, m);
	kv_reset(&st->cur);
	if ((ret = kv_parse_space(buf, &st->cur, err)) < 0)
		return ret;
	jw_obj(w);
	for (size_t i = 0; i < st->cur.n; i++) {
		const struct kv *k = &st->cur.items[i];
		unsigned long long base;

		if (i < st->base.n && !strcmp(st->base.items[i].key, k->key))
			base = st->base.items[i].val;
		else if (!kv_get(&st->base, k->key, &base))
			base = 0;
		if (base != k->val) {
			jw_key(w, k->key);
			jw_i64(w, (long long)(k->val - base));
		}
	}
	jw_obj_end(w);
	return 0;
}

static void vmstat_close(void *state)
{
	struct vmstat_state *st = state;

	kv_free(&st->base);
	kv_free(&st->cur);
	packed_free(&st->pk);
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
	.emit = vmstat_emit,
	.close = vmstat_close,
	.run_key = "vmstat_start",
	.start = vmstat_start,
};
