/* SPDX-License-Identifier: GPL-2.0-or-later */
/* registry.c — THE table of data sources (sources/source.h) and the set of
 * them one run opens.  A sample's keys come out in this order. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/hist.h"
#include "base/kfile.h"
#include "base/kv.h"
#include "base/lex.h"
#include "base/procstat.h"

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

/* A source reads at most this many files of its own (memcg: three). */
#define SLOT_FILES 4

struct source_slot {
	/* What every sample touches, first and together. */
	const struct source *src;
	void *state;
	bool open;
	size_t nr_files;
	uint64_t cur_read_ns;           /* this sample's reads so far */
	uint64_t cur_start_ns;          /* when this sample's first read of it began; 0: none yet */
	unsigned long long cur_bytes;
	/* The audit (source_set_audit), per sample it was read in: its reads'
	 * wall time (a histogram, fed through the set's stage) and bytes.  Its
	 * parsing is not timed apart: two clock reads per source per sample
	 * for a figure nobody asked would be half the audit's cost. */
	unsigned long long samples, bytes_sum, bytes_max, errors, plain_reads;
	/* The name each kept file was opened by (a token of the source's
	 * files: "memory.stat", "/proc/vmstat"; "" for one opened later), so
	 * that a sandbox file is found without building its path and
	 * comparing it with each kept file's, at every tick. */
	char asked[SLOT_FILES][48];
	/* Its files, kept open for the run (base/kfile.h), by path. */
	struct lab_kfile files[SLOT_FILES];
	struct lab_hist read_ns;
	/* How long after the sample's first read its own first read began:
	 * the figures of one sample are read one source after the other, and
	 * this is how much later than the first this one's are. */
	struct lab_hist offset_ns;
	char reason[LAB_ERROR_MSG_MAX];  /* why it is not read here */
};

struct source_set {
	struct source_ctx *ctx;
	/* Per sample, all its sources' reads together: [0] plain ticks (the
	 * O(1) sources alone), [1] burst samples, [2] the others (steps,
	 * walks, the start and the end: page walks too) (source_set_reads). */
	struct lab_hist sample_read_ns[3];
	struct lab_hist_stage stage;    /* the adds to these and the slots' (base/hist.h) */
	uint64_t first_ns;              /* the sample's first read's start; 0: none yet */
	/* What source_set_emit decides from, per slot and packed together: a
	 * slot is kilobytes (its histograms), and learning at every sample
	 * from each that it is not due, or whose object another joins, cost
	 * more than reading a file did. */
	struct slot_plan {
		unsigned char cadence;          /* the source's, 0 when not open */
		bool in_bursts;
		signed char host;               /* the slot whose object it joins ("into"), -1 none */
		unsigned char name_len;
	} plan[SOURCE_TABLE_MAX];
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

/* Whether a source's files stay open: the machine's and the sandbox's
 * (O(1) counters files, the same path all run); a workload's /proc/PID/…
 * are opened at each read (page walks, read at steps). */
static bool keeps_files(const struct source_slot *sl)
{
	return !(sl->src->where & SOURCE_WORKLOAD);
}

/* A file a source names (source.h: files) as a path here: "/proc/…" as it
 * is, a sandbox file by its name on this cgroup version. */
static bool file_path(const struct source_ctx *ctx, const char *tok, char *path, size_t len)
{
	const char *name;

	if (tok[0] == '/')
		return (size_t)snprintf(path, len, "%s", tok) < len;
	if (ctx->sb == NULL || (name = sandbox_file_name(ctx->cg, tok)) == NULL)
		return false;
	return (size_t)snprintf(path, len, "%s/%s", sandbox_path(ctx->sb), name) < len;
}

/* Files of one record each, whose EOF needs no second call (base/kfile.h):
 * /proc/meminfo (fs/proc/meminfo.c: proc_create_single), /proc/pressure/…
 * (kernel/sched/psi.c: single_open) and a cgroup's memory.* files (every one
 * in mm/memcontrol.c and memcontrol-v1.c is a seq_show or read_u64 file with
 * no seq_start: kernel/cgroup/cgroup.c, cgroup_seqfile_start shows it once).
 * /proc/vmstat and zoneinfo are one record per line or zone, each headed by
 * its own key or "Node N, zone NAME" (mm/vmstat.c: vmstat_show,
 * zoneinfo_show_print): their last record's head says a read reached EOF.
 * buddyinfo is read at steps only. */
static unsigned kfile_flags(const struct source_ctx *ctx, const char *path)
{
	const char *sb = ctx->sb != NULL ? sandbox_path(ctx->sb) : NULL;
	size_t n = sb != NULL ? strlen(sb) : 0;

	if (strcmp(path, "/proc/meminfo") == 0 || strncmp(path, "/proc/pressure/", 15) == 0)
		return LAB_KFILE_ONE_RECORD;
	if (strcmp(path, "/proc/vmstat") == 0 || strcmp(path, "/proc/zoneinfo") == 0)
		return LAB_KFILE_LAST_RECORD;
	if (sb != NULL && strncmp(path, sb, n) == 0 && strncmp(path + n, "/memory.", 8) == 0)
		return LAB_KFILE_ONE_RECORD;
	return 0;
}

/* Open the files a keeping source names, once: the sources line then says
 * how each is read (kept, or open/read/close and why).  A file that is not
 * there (memory.peak before 5.19) is left to the source's own read. */
static void preopen(struct source_slot *sl, const struct source_ctx *ctx)
{
	const char *p = sl->src->files;

	/* A source that shares another's read opens its file only if it ever
	 * has to read it itself (source.h: shares). */
	if (!keeps_files(sl) || sl->src->shares != NULL)
		return;
	while (p != NULL && *p != '\0' && sl->nr_files < SLOT_FILES) {
		char tok[128], path[4352];
		size_t n = strcspn(p, " ");
		struct lab_error e;

		if (n > 0 && n < sizeof(tok)) {
			memcpy(tok, p, n);
			tok[n] = '\0';
			if (file_path(ctx, tok, path, sizeof(path)) &&
			    lab_kfile_open(&sl->files[sl->nr_files], path, kfile_flags(ctx, path), &e) == 0) {
				if (n < sizeof(sl->asked[0]))
					memcpy(sl->asked[sl->nr_files], tok, n + 1);
				sl->nr_files++;
			}
		}
		p += n;
		while (*p == ' ')
			p++;
	}
}

static void slot_files_close(struct source_slot *sl)
{
	for (size_t i = 0; i < sl->nr_files; i++) {
		lab_kfile_close(&sl->files[i]);
		sl->asked[i][0] = '\0';
	}
	sl->nr_files = 0;
}

int source_set_open(struct source_ctx *ctx, struct source_set **out, struct lab_error *err)
{
	size_t n = 0;
	struct source_set *set;

	while (source_table[n] != NULL)
		n++;
	if (n > SOURCE_TABLE_MAX)
		return lab_error_set(err, EINVAL, "sources: %zu rows, at most %d", n, SOURCE_TABLE_MAX);
	set = calloc(1, sizeof(*set) + n * sizeof(set->slots[0]));
	if (set == NULL)
		return lab_error_errno(err, ENOMEM, "sources");
	set->ctx = ctx;
	set->n = n;
	for (size_t i = 0; i < n; i++) {
		struct source_slot *sl = &set->slots[i];
		const struct source *s = source_table[i];
		struct lab_error e = { 0 };
		int ret;

		sl->src = s;
		if (!exists_here(s, ctx, sl->reason, sizeof(sl->reason)))
			continue;
		preopen(sl, ctx);
		if (s->state_size > 0) {
			sl->state = calloc(1, s->state_size);
			if (sl->state == NULL) {
				source_set_close(set);
				return lab_error_errno(err, ENOMEM, "source %s", s->name);
			}
		}
		ctx->reading = sl;
		ret = s->open != NULL ? s->open(ctx, sl->state, &e) : 0;
		ctx->reading = NULL;
		if (ret < 0) {
			snprintf(sl->reason, sizeof(sl->reason), "%s", e.msg);
			if (s->close != NULL)
				s->close(sl->state);
			free(sl->state);
			sl->state = NULL;
			slot_files_close(sl);
			continue;
		}
		sl->open = true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct source *s = set->slots[i].src;
		struct slot_plan *pl = &set->plan[i];

		pl->cadence = set->slots[i].open ? (unsigned char)s->cadence : 0;
		pl->in_bursts = set->slots[i].open && s->in_bursts;
		pl->name_len = (unsigned char)strlen(s->name);
		pl->host = -1;
		for (size_t j = 0; s->into != NULL && j < i; j++)
			if (strcmp(set->slots[j].src->name, s->into) == 0)
				pl->host = (signed char)j;
		if (s->into != NULL && pl->host < 0)
			pl->cadence = 0, pl->in_bursts = false;        /* joins nothing here */
	}
	*out = set;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One sample's reading of a source, into its audit. */
static void slot_account(struct source_set *set, struct source_slot *sl, int ret)
{
	lab_hist_stage_add(&set->stage, &sl->read_ns, sl->cur_read_ns);
	if (sl->cur_start_ns != 0) {
		if (set->first_ns == 0)         /* the sources are read in turn: this was the first */
			set->first_ns = sl->cur_start_ns;
		lab_hist_stage_add(&set->stage, &sl->offset_ns, sl->cur_start_ns - set->first_ns);
	}
	sl->samples++;
	sl->bytes_sum += sl->cur_bytes;
	if (sl->cur_bytes > sl->bytes_max)
		sl->bytes_max = sl->cur_bytes;
	if (ret < 0)
		sl->errors++;
}

/* One source's value at w; an error leaves {"error": msg} in its place.
 * 0 when written, 1 when the source had nothing to say (the caller takes
 * its key back), negative on an error. */
static int emit_one(struct source_set *set, struct source_slot *sl, struct jw *w)
{
	const struct source *s = sl->src;
	struct jw_mark m = jw_mark(w);
	struct lab_error e = { 0 };
	json_t *v = NULL;
	int ret;

	sl->cur_read_ns = 0;
	sl->cur_start_ns = 0;
	sl->cur_bytes = 0;
	set->ctx->reading = sl;
	if (s->emit != NULL) {
		ret = s->emit(set->ctx, sl->state, w, &e);
	} else {
		ret = s->read(set->ctx, sl->state, &v, &e);
		if (ret == 0 && v != NULL)
			jw_json(w, v);
		else if (ret == 0)
			ret = 1;        /* nothing to say (no workload has a region): no key */
		json_decref(v);
	}
	set->ctx->reading = NULL;
	slot_account(set, sl, ret);
	if (ret < 0) {
		jw_rewind(w, m);
		jw_obj(w);
		jw_key_lit(w, "error");
		jw_str(w, e.msg[0] ? e.msg : "read failed");
		jw_obj_end(w);
	}
	return ret;
}

static bool planned(const struct slot_plan *pl, unsigned cadences)
{
	return (cadences & SOURCE_BURST) ? pl->in_bursts : (cadences & pl->cadence) != 0;
}

/* A source that joins another's object ("into") writes its members before
 * that object's closing brace; an error in one is its "error" member, as a
 * source's own error is. */
static void emit_into(struct source_set *set, struct source_slot *in, struct jw *w)
{
	struct lab_error e = { 0 };
	struct jw_mark im;
	int r;

	w->len--;       /* the host's '}' */
	w->comma = w->data[w->len - 1] != '{';
	im = jw_mark(w);
	in->cur_read_ns = 0;
	in->cur_start_ns = 0;
	in->cur_bytes = 0;
	set->ctx->reading = in;
	r = in->src->emit(set->ctx, in->state, w, &e);
	set->ctx->reading = NULL;
	slot_account(set, in, r);
	if (r < 0) {
		jw_rewind(w, im);
		jw_key_lit(w, "error");
		jw_str(w, e.msg[0] ? e.msg : "read failed");
	}
	jw_raw(w, "}", 1);
	w->comma = true;
}

void source_set_emit(struct source_set *set, unsigned cadences, struct jw *w)
{
	uint64_t reads = 0;
	unsigned char due_at[SOURCE_TABLE_MAX];
	size_t nd = 0;

	memset(&set->ctx->facts, 0, sizeof(set->ctx->facts));
	set->first_ns = 0;
	/* A source joining another's object is read only when that one wrote
	 * one: until then this sample read nothing of it. */
	for (size_t i = 0; i < set->n; i++)
		if (planned(&set->plan[i], cadences)) {
			set->slots[i].cur_read_ns = 0;
			due_at[nd++] = (unsigned char)i;
		}
	for (size_t k = 0; k < nd; k++) {
		size_t i = due_at[k];
		struct source_slot *sl = &set->slots[i];
		struct jw_mark m, km;
		bool obj;
		int r;

		if (set->plan[i].host >= 0)
			continue;
		km = jw_mark(w);
		jw_key_plain(w, sl->src->name, set->plan[i].name_len);
		m = jw_mark(w);
		r = emit_one(set, sl, w);
		if (r > 0) {
			jw_rewind(w, km);
			continue;
		}
		obj = r == 0 && w->len > m.len && w->data[m.len] == '{' && w->data[w->len - 1] == '}';
		for (size_t k2 = k + 1; obj && k2 < nd; k2++)
			if (set->plan[due_at[k2]].host == (signed char)i && set->slots[due_at[k2]].src->emit != NULL)
				emit_into(set, &set->slots[due_at[k2]], w);
	}
	for (size_t k = 0; k < nd; k++)
		reads += set->slots[due_at[k]].cur_read_ns;
	lab_hist_stage_add(&set->stage, &set->sample_read_ns[(cadences & SOURCE_BURST) ? 1 : cadences == SOURCE_TICK ? 0 : 2],
			   reads);
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

/* How an open source reads its files: "read": "kept" (each opened once,
 * pread from 0 at every sample), "reopen" (open/read/close at every sample:
 * "why" says why — a file that cannot be re-read, PAGELAB_SOURCE_READ=reopen,
 * or a workload's /proc/PID file), "shared" (another source's read of the
 * same file in the same sample, "shares" naming it: no file of its own). */
static void describe_reads(const struct source_slot *sl, json_t *o)
{
	const char *why = NULL;

	if (sl->src->shares != NULL && sl->nr_files == 0) {
		json_object_set_new(o, "read", json_string("shared"));
		json_object_set_new(o, "shares", json_string(sl->src->shares));
		return;
	}

	if (!keeps_files(sl))
		why = "a workload's /proc/PID file: opened at each read";
	for (size_t i = 0; why == NULL && i < sl->nr_files; i++)
		if (sl->files[i].reopen)
			why = sl->files[i].why;
	json_object_set_new(o, "read", json_string(why == NULL ? "kept" : "reopen"));
	if (why != NULL)
		json_object_set_new(o, "why", json_string(why));
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
		else
			describe_reads(sl, o);
		json_array_append_new(a, o);
	}
	return a;
}

/* {"p50", "p99", "max"} of a histogram of ns, as integer ns. */
static json_t *q_json(const struct lab_hist *h)
{
	return json_pack("{s:I, s:I, s:I}", "p50", (json_int_t)lab_hist_quantile(h, 0.5), "p99",
			 (json_int_t)lab_hist_quantile(h, 0.99), "max", (json_int_t)h->max);
}

void source_set_audit_flush(struct source_set *set)
{
	lab_hist_stage_flush(&set->stage);
}

json_t *source_set_audit(const struct source_set *set)
{
	json_t *a = json_array();

	for (size_t i = 0; i < set->n; i++) {
		const struct source_slot *sl = &set->slots[i];
		unsigned long long splits = 0;
		json_t *o, *files;

		if (!sl->open)
			continue;
		files = json_array();
		for (size_t k = 0; k < sl->nr_files; k++) {
			const struct lab_kfile *f = &sl->files[k];

			splits += f->splits;
			json_array_append_new(files, json_pack("{s:s, s:s, s:I, s:I, s:i, s:I}", "path", f->path,
							       "read", f->reopen ? "reopen" : "kept", "reads",
							       (json_int_t)f->nr, "splits", (json_int_t)f->splits,
							       "max_calls", (int)f->max_reads, "regrows",
							       (json_int_t)f->regrows));
		}
		o = json_pack("{s:s, s:I, s:o, s:{s:I, s:I}, s:I, s:I, s:o}", "name", sl->src->name,
			      "samples", (json_int_t)sl->samples, "read_ns", q_json(&sl->read_ns), "bytes", "mean",
			      (json_int_t)(sl->samples ? sl->bytes_sum / sl->samples : 0), "max",
			      (json_int_t)sl->bytes_max, "split_snapshots", (json_int_t)splits, "errors",
			      (json_int_t)sl->errors, "files", files);
		if (sl->plain_reads > 0)
			json_object_set_new(o, "plain_reads", json_integer((json_int_t)sl->plain_reads));
		if (sl->offset_ns.n > 0)        /* a source that reads no file of its own has none */
			json_object_set_new(o, "offset_ns", q_json(&sl->offset_ns));
		json_array_append_new(a, o);
	}
	return a;
}

const char *source_set_read_mode(const struct source_set *set, unsigned long long *splits)
{
	const char *mode = "kept";

	*splits = 0;
	for (size_t i = 0; i < set->n; i++) {
		const struct source_slot *sl = &set->slots[i];

		for (size_t k = 0; sl->open && k < sl->nr_files; k++) {
			*splits += sl->files[k].splits;
			if (sl->files[k].reopen)
				mode = "reopen";
		}
	}
	return mode;
}

json_t *source_set_reads(const struct source_set *set, int kind, double *p99_us)
{
	const struct lab_hist *h = &set->sample_read_ns[kind < 0 || kind > 2 ? 0 : kind];

	*p99_us = (double)lab_hist_quantile(h, 0.99) / 1e3;
	if (h->n == 0)
		return NULL;
	return json_pack("{s:I, s:o}", "samples", (json_int_t)h->n, "read_ns", q_json(h));
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
		slot_files_close(sl);
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

/* A key's byte as the fast path takes it: printable ASCII that JSON holds
 * as it is (kv.c's check_key refuses the rest; '"' and '\\' it escapes). */
static inline bool fast_key_byte(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '"' && c != '\\';
}

bool source_kv_json_fast(struct jw *w, const char *buf, size_t len, bool colon)
{
	/* A line of n >= 3 input bytes ("k 1") becomes at most n + 3 ("k":1
	 * with its quotes and comma): 2 * len is room enough. */
	char *d0 = jw_room(w, 2 * len + 1), *d = d0;
	const unsigned char *p = (const unsigned char *)buf;
	bool comma = w->comma;

	if (d0 == NULL)
		return false;
	while (*p != '\0') {
		const unsigned char *k = p, *v;
		size_t kl, vl;

		if (*p == '\n') {              /* an empty line: both forms skip it */
			p++;
			continue;
		}
		while (fast_key_byte(*p))
			p++;
		kl = (size_t)(p - k);
		if (colon) {
			if (kl < 2 || p[-1] != ':')
				goto strict;
			kl--;
		}
		if (kl == 0 || kl >= KV_KEY_MAX || !lex_is_blank((char)*p))
			goto strict;
		while (lex_is_blank((char)*p))
			p++;
		for (v = p; lex_is_digit((char)*p); p++)
			;
		vl = (size_t)(p - v);
		/* Printed as the strict path prints it (jw_i64 of the value):
		 * no leading zero, below 2^63 (v1's unlimited
		 * hierarchical_memory_limit is 9223372036854771712). */
		if (vl == 0 || vl > 19 || (vl > 1 && *v == '0') ||
		    (vl == 19 && memcmp(v, "9223372036854775807", 19) > 0))
			goto strict;
		if (colon && lex_is_blank((char)*p)) {
			while (lex_is_blank((char)*p))
				p++;
			if (p[0] == 'k' && p[1] == 'B')
				p += 2;
			while (lex_is_blank((char)*p))
				p++;
		}
		if (*p != '\n' && *p != '\0')
			goto strict;
		if (comma)
			*d++ = ',';
		*d++ = '"';
		memcpy(d, k, kl);
		d += kl;
		*d++ = '"';
		*d++ = ':';
		memcpy(d, v, vl);
		d += vl;
		comma = true;
		if (*p == '\n')
			p++;
	}
	jw_wrote(w, (size_t)(d - d0), comma);
	return true;
strict:
	jw_wrote(w, 0, w->comma);
	return false;
}

int source_kv_emit_text(struct jw *w, const char *buf, bool colon, struct lab_error *err)
{
	int ret;

	jw_obj(w);
	if (source_kv_json_fast(w, buf, strlen(buf), colon)) {
		jw_obj_end(w);
		return 0;
	}
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

/* A file of a source not kept open: opened, read, closed (timed all the same). */
static int plain_read(struct source_ctx *ctx, struct source_slot *sl, const char *path, const char **text,
		      struct lab_error *err)
{
	uint64_t t0 = mono_ns();
	int ret = lab_read_fileat_buf(AT_FDCWD, path, &ctx->buf, err);

	if (sl != NULL) {
		if (sl->cur_start_ns == 0)
			sl->cur_start_ns = t0;
		sl->cur_read_ns += mono_ns() - t0;
		sl->cur_bytes += ret == 0 ? ctx->buf.len : 0;
		sl->plain_reads++;
	}
	*text = ret == 0 ? ctx->buf.data : NULL;
	return ret;
}

/* A kept file read again, into its slot's sample. */
static int kept_read(struct source_slot *sl, struct lab_kfile *f, const char **text, struct lab_error *err)
{
	int ret = lab_kfile_read(f, err);

	/* Its file was removed (a cgroup's): open it again if it is back,
	 * else -ENOENT (source_read_sandbox tells a gone sandbox). */
	if (ret == -ENODEV)
		ret = lab_kfile_reopen(f, err);
	if (ret < 0)
		return ret;
	if (sl->cur_start_ns == 0)
		sl->cur_start_ns = f->t0;
	sl->cur_read_ns += f->ns;
	sl->cur_bytes += f->buf.len;
	*text = f->buf.data;
	return 0;
}

int source_read(struct source_ctx *ctx, const char *path, const char **text, struct lab_error *err)
{
	struct source_slot *sl = ctx->reading;
	struct lab_kfile *f = NULL;
	int ret;

	*text = NULL;
	if (sl == NULL || !keeps_files(sl))
		return plain_read(ctx, sl, path, text, err);
	for (size_t i = 0; i < sl->nr_files && f == NULL; i++)
		if (strcmp(sl->files[i].path, path) == 0)
			f = &sl->files[i];
	if (f != NULL)
		return kept_read(sl, f, text, err);
	if (sl->nr_files == SLOT_FILES)
		return plain_read(ctx, sl, path, text, err);
	f = &sl->files[sl->nr_files];
	if ((ret = lab_kfile_open(f, path, kfile_flags(ctx, path), err)) < 0)
		return ret;
	sl->nr_files++;
	if (sl->cur_start_ns == 0)
		sl->cur_start_ns = f->t0;
	sl->cur_read_ns += f->ns;
	sl->cur_bytes += f->buf.len;
	*text = f->buf.data;
	return 0;
}

int source_read_sandbox(struct source_ctx *ctx, const char *v2name, const char **text,
			struct lab_error *err)
{
	struct source_slot *sl = ctx->reading;
	struct lab_kfile *f = NULL;
	char path[4352];
	const char *name, *which = path;
	int ret;

	*text = NULL;
	if (ctx->sb == NULL)
		return lab_error_set(err, ENODEV, "no sandbox");
	/* A file kept open since its source opened is found by the name it
	 * was opened by: no name mapped, no path built and compared with
	 * each kept file's (a tick reads five of them). */
	for (size_t i = 0; sl != NULL && i < sl->nr_files && f == NULL; i++)
		if (strcmp(sl->asked[i], v2name) == 0)
			f = &sl->files[i];
	if (f != NULL) {
		ret = kept_read(sl, f, text, err);
		which = f->path;
	} else {
		if ((name = sandbox_file_name(ctx->cg, v2name)) == NULL)
			return lab_error_set(err, EOPNOTSUPP, "%s has no cgroup v1 equivalent", v2name);
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", sandbox_path(ctx->sb), name) >= sizeof(path))
			return lab_error_set(err, ENAMETOOLONG, "sandbox path too long");
		ret = source_read(ctx, path, text, err);
	}
	if (ret != -ENOENT && ret != -ENODEV)
		return ret;
	if (access(sandbox_path(ctx->sb), F_OK) < 0 && errno == ENOENT) {
		lab_error_set(err, ENOENT, "sandbox %s is gone", sandbox_path(ctx->sb));
		snprintf(ctx->sandbox_gone, sizeof(ctx->sandbox_gone), "%s", err->msg);
		return -ENOENT;
	}
	return lab_error_set(err, ENOENT, "%s: no such file", which);
}

uint64_t source_mono_ns(void)
{
	return mono_ns();
}

bool source_pid_dying(struct source_ctx *ctx, pid_t pid)
{
	struct lab_procstat ps;
	const char *text;
	char path[64];
	struct lab_error e;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (source_read(ctx, path, &text, &e) < 0)
		return true;
	if (lab_procstat_parse(text, ctx->buf.len, &ps, &e) < 0)
		return false;   /* not understood: walked, as before */
	return lab_procstat_dying(&ps);
}

bool source_let_go(struct source_ctx *ctx, pid_t pid)
{
	unsigned long long size = 0;
	const char *text;
	char path[64];
	struct lab_error e;

	snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
	if (source_read(ctx, path, &text, &e) < 0)
		return true;    /* gone */
	/* fs/proc/array.c proc_pid_statm: zeros once the task has no mm. */
	return sscanf(text, "%llu", &size) == 1 && size == 0;
}

void source_note_held(struct source_ctx *ctx, pid_t pid, const char *comm, const char *owner, const char *file,
		      unsigned long long rss_kb, uint64_t from_ns, uint64_t to_ns)
{
	struct source_held *h;

	if (ctx->nr_held >= SOURCE_MAX_HELD)
		return;
	h = &ctx->held[ctx->nr_held++];
	h->pid = pid;
	snprintf(h->comm, sizeof(h->comm), "%s", comm != NULL ? comm : "");
	h->owner = owner;
	h->file = file;
	h->rss_kb = rss_kb;
	h->from_ns = from_ns;
	h->to_ns = to_ns;
}
