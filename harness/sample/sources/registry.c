/* SPDX-License-Identifier: GPL-2.0-or-later */
/* registry.c — THE table of data sources (sources/source.h) and the set of
 * them one run opens.  A sample's keys come out in this order. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct source source_memcg, source_memcg_peak, source_vmstat, source_meminfo,
	source_zones, source_smaps_rollup, source_psi, source_memcg_pressure, source_memcg_events,
	source_buddyinfo, source_pagemap;

/* One row per source.  memcg_peak joins memcg's object, so it follows it. */
const struct source *const source_table[] = {
	&source_memcg,          /* sandbox: memory.current, memory.stat, memory.events */
	&source_memcg_peak,     /* sandbox: memory.peak (v2 >= 5.19) | max_usage_in_bytes */
	&source_vmstat,         /* /proc/vmstat, deltas since the run's start */
	&source_meminfo,        /* /proc/meminfo */
	&source_zones,          /* /proc/zoneinfo */
	&source_psi,            /* /proc/pressure/memory */
	&source_memcg_pressure, /* sandbox v2: memory.pressure */
	&source_memcg_events,   /* sandbox v2: memory.events, typed */
	&source_smaps_rollup,   /* each workload: /proc/PID/smaps_rollup (a page walk) */
	&source_pagemap,        /* each workload's region: /proc/PID/pagemap (a page walk) */
	&source_buddyinfo,      /* /proc/buddyinfo */
	NULL,
};

const struct source *source_find(const char *name)
{
	for (size_t i = 0; source_table[i] != NULL; i++)
		if (strcmp(source_table[i]->name, name) == 0)
			return source_table[i];
	return NULL;
}

const char *source_cadence_name(enum source_cadence c)
{
	return c == SOURCE_TICK ? "tick" : c == SOURCE_STEP ? "step" : "?";
}

struct source_slot {
	const struct source *src;
	void *state;
	bool open;
	char reason[LAB_ERROR_MSG_MAX];  /* why it is not read here */
};

struct source_set {
	struct source_ctx *ctx;
	size_t n;
	struct source_slot slots[];
};

static bool exists_here(const struct source *s, const struct source_ctx *ctx, char *why, size_t len)
{
	unsigned cg = s->where & SOURCE_CG;

	if (cg == 0)
		return true;
	if (ctx->sb == NULL) {
		snprintf(why, len, "no sandbox");
		return false;
	}
	if ((ctx->cg == CG_VERSION_V1 && !(cg & SOURCE_CG_V1)) ||
	    (ctx->cg == CG_VERSION_V2 && !(cg & SOURCE_CG_V2))) {
		snprintf(why, len, "cgroup %s has no %s", ctx->cg == CG_VERSION_V1 ? "v1" : "v2", s->files);
		return false;
	}
	return true;
}

int source_set_open(struct source_ctx *ctx, struct source_set **out, struct lab_error *err)
{
	size_t n = 0;
	struct source_set *set;

	while (source_table[n] != NULL)
		n++;
	set = calloc(1, sizeof(*set) + n * sizeof(set->slots[0]));
	if (set == NULL)
		return lab_error_errno(err, ENOMEM, "sources");
	set->ctx = ctx;
	set->n = n;
	for (size_t i = 0; i < n; i++) {
		struct source_slot *sl = &set->slots[i];
		const struct source *s = source_table[i];
		struct lab_error e = { 0 };

		sl->src = s;
		if (!exists_here(s, ctx, sl->reason, sizeof(sl->reason)))
			continue;
		if (s->state_size > 0) {
			sl->state = calloc(1, s->state_size);
			if (sl->state == NULL) {
				source_set_close(set);
				return lab_error_errno(err, ENOMEM, "source %s", s->name);
			}
		}
		if (s->open != NULL && s->open(ctx, sl->state, &e) < 0) {
			snprintf(sl->reason, sizeof(sl->reason), "%s", e.msg);
			if (s->close != NULL)
				s->close(sl->state);
			free(sl->state);
			sl->state = NULL;
			continue;
		}
		sl->open = true;
	}
	*out = set;
	return 0;
}

static bool due(const struct source_slot *sl, unsigned cadences)
{
	const struct source *s = sl->src;

	return sl->open && ((cadences & SOURCE_BURST) ? s->in_bursts : (cadences & s->cadence) != 0);
}

/* One source's value at w; an error leaves {"error": msg} in its place. */
static int emit_one(struct source_set *set, struct source_slot *sl, struct jw *w)
{
	const struct source *s = sl->src;
	struct jw_mark m = jw_mark(w);
	struct lab_error e = { 0 };
	json_t *v = NULL;
	int ret;

	if (s->emit != NULL) {
		ret = s->emit(set->ctx, sl->state, w, &e);
	} else {
		ret = s->read(set->ctx, sl->state, &v, &e);
		if (ret == 0 && v != NULL)
			jw_json(w, v);
		else if (ret == 0)
			ret = -ENODATA;
		json_decref(v);
	}
	if (ret < 0) {
		jw_rewind(w, m);
		jw_obj(w);
		jw_key(w, "error");
		jw_str(w, e.msg[0] ? e.msg : "read failed");
		jw_obj_end(w);
	}
	return ret;
}

void source_set_emit(struct source_set *set, unsigned cadences, struct jw *w)
{
	memset(&set->ctx->facts, 0, sizeof(set->ctx->facts));
	for (size_t i = 0; i < set->n; i++) {
		struct source_slot *sl = &set->slots[i];
		const struct source *s = sl->src;
		struct jw_mark m;
		bool obj;

		if (!due(sl, cadences) || s->into != NULL)
			continue;
		jw_key(w, s->name);
		m = jw_mark(w);
		obj = emit_one(set, sl, w) == 0 && w->len > m.len && w->data[m.len] == '{' &&
		      w->data[w->len - 1] == '}';
		/* The sources that join this one's object ("into") write their
		 * members before its closing brace; an error in one is its
		 * "error" member, as a source's own error is. */
		for (size_t j = i + 1; obj && j < set->n; j++) {
			struct source_slot *in = &set->slots[j];
			struct lab_error e = { 0 };
			struct jw_mark im;

			if (!due(in, cadences) || in->src->into == NULL || strcmp(in->src->into, s->name) != 0 ||
			    in->src->emit == NULL)
				continue;
			w->len--;       /* the host's '}' */
			w->comma = w->data[w->len - 1] != '{';
			im = jw_mark(w);
			if (in->src->emit(set->ctx, in->state, w, &e) < 0) {
				jw_rewind(w, im);
				jw_key(w, "error");
				jw_str(w, e.msg[0] ? e.msg : "read failed");
			}
			jw_raw(w, "}", 1);
			w->comma = true;
		}
	}
}

void source_set_sample(struct source_set *set, unsigned cadences, json_t *sample)
{
	struct jw w = { 0 };
	json_error_t je;
	json_t *v;

	jw_obj(&w);
	source_set_emit(set, cadences, &w);
	jw_obj_end(&w);
	v = jw_load(&w, &je);
	if (json_is_object(v))
		json_object_update(sample, v);
	json_decref(v);
	jw_free(&w);
}

/* The files a source reads here: sandbox files by their path on this
 * cgroup version, /proc/PID/… as a template. */
static json_t *files_json(const struct source *s, const struct source_ctx *ctx, bool open)
{
	json_t *a = json_array();
	const char *p = s->files;

	while (p != NULL && *p != '\0') {
		char tok[128], path[4352];
		size_t n = strcspn(p, " ");

		if (n > 0 && n < sizeof(tok)) {
			const char *name;

			memcpy(tok, p, n);
			tok[n] = '\0';
			if (tok[0] == '/' || !open)
				json_array_append_new(a, json_string(tok));
			else if (ctx->sb != NULL && (name = sandbox_file_name(ctx->cg, tok)) != NULL &&
				 (size_t)snprintf(path, sizeof(path), "%s/%s", sandbox_path(ctx->sb), name) < sizeof(path))
				json_array_append_new(a, json_string(path));
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	return a;
}

void source_set_record_start(const struct source_set *set, json_t *run)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct source_slot *sl = &set->slots[i];

		if (sl->open && sl->src->start != NULL && sl->src->run_key != NULL)
			json_object_set_new(run, sl->src->run_key, sl->src->start(sl->state));
	}
}

json_t *source_set_describe(const struct source_set *set)
{
	json_t *a = json_array();

	for (size_t i = 0; i < set->n; i++) {
		const struct source_slot *sl = &set->slots[i];
		json_t *o = json_pack("{s:s, s:s, s:o, s:b}", "name", sl->src->name, "cadence",
				      source_cadence_name(sl->src->cadence), "files",
				      files_json(sl->src, set->ctx, sl->open), "available", sl->open);

		if (sl->src->into != NULL)
			json_object_set_new(o, "into", json_string(sl->src->into));
		if (!sl->open)
			json_object_set_new(o, "reason", json_string(sl->reason));
		json_array_append_new(a, o);
	}
	return a;
}

void source_set_close(struct source_set *set)
{
	if (set == NULL)
		return;
	for (size_t i = 0; i < set->n; i++) {
		struct source_slot *sl = &set->slots[i];

		if (sl->open && sl->src->close != NULL)
			sl->src->close(sl->state);
		free(sl->state);
	}
	lab_buf_free(&set->ctx->buf);
	free(set);
}

json_t *source_kv_json(const struct kv_list *l)
{
	json_t *o = json_object();

	/* The keys are the kernel's (ASCII, parsed whole by kv.c): no UTF-8
	 * check needed; this runs for ~100 keys at every tick. */
	for (size_t i = 0; i < l->n; i++)
		json_object_set_new_nocheck(o, l->items[i].key, json_integer((json_int_t)l->items[i].val));
	return o;
}

void source_kv_emit(struct jw *w, const struct kv_list *l)
{
	jw_obj(w);
	for (size_t i = 0; i < l->n; i++) {
		jw_key(w, l->items[i].key);
		jw_i64(w, (long long)l->items[i].val);  /* as json_integer did */
	}
	jw_obj_end(w);
}

static int emit_kv(void *ctx, const char *key, size_t keylen, unsigned long long val, size_t lineno,
		   struct lab_error *err)
{
	(void)lineno, (void)err;
	jw_key_n(ctx, key, keylen);
	jw_i64(ctx, (long long)val);    /* as source_kv_emit */
	return 0;
}

int source_kv_emit_text(struct jw *w, const char *buf, bool colon, struct lab_error *err)
{
	int ret;

	jw_obj(w);
	ret = colon ? kv_each_colon(buf, emit_kv, w, err) : kv_each_space(buf, emit_kv, w, err);
	jw_obj_end(w);
	return ret;
}

int source_emitted(struct jw *w, json_t **out, struct lab_error *err)
{
	json_error_t je;

	*out = jw_load(w, &je);
	jw_free(w);
	if (*out == NULL)
		return lab_error_set(err, EINVAL, "emitted JSON does not load: %s", je.text);
	return 0;
}

int source_read(struct source_ctx *ctx, const char *path, const char **text, struct lab_error *err)
{
	int ret = lab_read_fileat_buf(AT_FDCWD, path, &ctx->buf, err);

	*text = ret == 0 ? ctx->buf.data : NULL;
	return ret;
}

int source_read_sandbox(struct source_ctx *ctx, const char *v2name, const char **text,
			struct lab_error *err)
{
	int ret;

	*text = NULL;
	if (ctx->sb == NULL)
		return lab_error_set(err, ENODEV, "no sandbox");
	ret = sandbox_read_file_buf(ctx->sb, v2name, &ctx->buf, err);
	if (ret == 0)
		*text = ctx->buf.data;
	return ret;
}
