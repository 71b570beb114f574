/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.c — one probe: its repeats through the one pipeline (run/run.h) into
 * a result of its own in the fit's private directory, then its runs moved
 * into the fit's document — each labelled after the probe, the varied key
 * in its variant — and the probe judged (judge.c) (internal.h). */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/size.h"
#include "result/keys.h"

const char *fit_size_text(unsigned long long b, char *buf, size_t len)
{
	if (b % 1024 != 0)
		snprintf(buf, len, "%llu B", b);
	else
		lab_format_size(b, buf, len);
	return buf;
}

/* The pipeline's lines of a probe: warnings always, its phases with -v. */
struct sub {
	const struct fit_ctx *f;
	unsigned n;
};

static void sub_say(void *ctx, enum lab_say kind, const char *line)
{
	const struct sub *s = ctx;

	if (kind == LAB_SAY_WARN)
		lab_say(s->f->prog, LAB_SAY_WARN, "probe %u: %s", s->n, line);
	else if (s->f->o->run.verbose)
		lab_say(s->f->prog, LAB_SAY_DETAIL, "  %s", line);
}

static void unlink_result(const char *path)
{
	size_t n = strlen(path);
	char stream[PATH_MAX + 64];

	unlink(path);
	if (n > 5 && n + 1 < sizeof(stream) && strcmp(path + n - 5, ".json") == 0) {
		memcpy(stream, path, n - 5);
		memcpy(stream + n - 5, ".jsonl", 7);
		unlink(stream);
	}
}

void fit_probe_cleanup(struct fit_ctx *f)
{
	if (f->tmp_made && rmdir(f->tmpdir) < 0 && errno != ENOENT)
		lab_say(f->prog, LAB_SAY_WARN, "cannot remove %s: %s", f->tmpdir, strerror(errno));
	f->tmp_made = false;
}

/* The document's frame from the first probe's: everything but its runs and
 * its end, which the fit writes. */
static void doc_from(struct fit_ctx *f, const json_t *pd)
{
	const char *k;
	json_t *v;

	f->doc = json_object();
	json_object_foreach((json_t *)pd, k, v)
		if (strcmp(k, RK_RUNS) && strcmp(k, RK_STATUS) && strcmp(k, RK_ERROR) && strcmp(k, RK_FINISHED))
			json_object_set(f->doc, k, v);
	json_object_set_new(f->doc, RK_RUNS, json_array());
	json_object_set_new(f->doc, "fit", json_object());
	f->probes = json_array();
	json_object_set_new(json_object_get(f->doc, "fit"), "probes", f->probes);
}

/* The probe's runs into the document: label = the probe's letter, the
 * varied key's quota in the variant.  Their indexes into idx. */
static size_t move_runs(struct fit_ctx *f, json_t *pd, unsigned long long quota, json_t *idx, json_t **runs,
			size_t max)
{
	json_t *all = json_object_get(f->doc, RK_RUNS), *src = json_object_get(pd, RK_RUNS);
	char label[8], qt[32];
	size_t n = 0;

	snprintf(label, sizeof(label), "%c", 'A' + (int)f->nprobes);
	snprintf(qt, sizeof(qt), "%llu", quota);
	for (size_t i = 0; i < json_array_size(src) && n < max; i++) {
		json_t *run = json_array_get(src, i), *var = json_object_get(run, RK_VARIANT);

		if (!json_is_object(var)) {
			var = json_object();
			json_object_set_new(run, RK_VARIANT, var);
		}
		json_object_set_new(var, fit_key_name(f->o->vary.key), json_string(qt));
		json_object_set_new(run, RK_LABEL, json_string(label));
		json_array_append_new(idx, json_integer((json_int_t)json_array_size(all)));
		json_array_append(all, run);
		runs[n++] = run;
	}
	return n;
}

/* The probe's pipeline: planned, run, its document read back (the file the
 * pipeline just wrote, in the fit's own 0700 directory).  NULL *pd when the
 * pipeline wrote none. */
static enum run_end run_probe(struct fit_ctx *f, unsigned long long quota, json_t **pd, struct lab_error *err)
{
	struct sub s = { .f = f, .n = f->nprobes + 1 };
	const struct lab_progress sp = { .fn = sub_say, .ctx = &s };
	char path[PATH_MAX + 32];
	struct run_outcome out;
	struct run_plan p;
	struct run_opts ro;
	json_error_t je;
	int ret;

	*pd = NULL;
	if (!f->tmp_made) {
		if (mkdtemp(f->tmpdir) == NULL) {
			lab_error_errno(err, errno, "mkdtemp %s", f->tmpdir);
			return RUN_FAILED;
		}
		f->tmp_made = true;
	}
	if ((ret = fit_plan(f, quota, &p, &ro, err)) < 0) {
		run_plan_free(&p);
		return ret == -ENOMEM ? RUN_FAILED : RUN_REFUSED_INPUT;
	}
	snprintf(path, sizeof(path), "%s/probe-%u.json", f->tmpdir, f->nprobes + 1);
	ro.out = path;
	ret = run_execute(&ro, &p, &sp, &out, err);
	run_plan_free(&p);
	if (out.result[0]) {
		*pd = json_load_file(out.result, 0, &je);
		if (*pd == NULL && out.end == RUN_ENDED) {
			lab_error_set(err, EIO, "%s: %s (line %d)", out.result, je.text, je.line);
			out.end = RUN_FAILED;
		}
	}
	unlink_result(path);
	(void)ret;
	return out.end;
}

/* A pipeline that failed after every repeat ran (a workload failed on its
 * own: never ready, exit 1) is data for the fit, judged with the rest; one
 * that stopped early (the harness) is not. */
static bool probe_is_data(const json_t *pd, unsigned repeat)
{
	return pd != NULL && json_array_size(json_object_get(pd, RK_RUNS)) == repeat;
}

enum run_end fit_probe(struct fit_ctx *f, unsigned long long quota, bool is_base, const json_t **rec,
		       struct lab_error *err)
{
	json_t *pd, *idx, *runs[128], *r;
	char label[8];
	enum run_end end;
	size_t n;

	*rec = NULL;
	end = run_probe(f, quota, &pd, err);
	if (pd == NULL)
		return end == RUN_ENDED ? RUN_FAILED : end;
	if (f->doc == NULL)
		doc_from(f, pd);
	idx = json_array();
	n = move_runs(f, pd, quota, idx, runs, 128);
	if (end == RUN_FAILED && probe_is_data(pd, f->repeat))
		end = RUN_ENDED;
	r = fit_judge(runs, n, f->base, f->o->slo, f->o->nslo, quota, is_base);
	snprintf(label, sizeof(label), "%c", 'A' + (int)f->nprobes);
	json_object_set_new(r, RK_LABEL, json_string(label));
	json_object_set_new(r, "order", json_integer((json_int_t)f->nprobes + 1));
	json_object_set_new(r, RK_RUNS, idx);
	json_object_set_new(r, "pipeline", json_string(end == RUN_ENDED ? "ended" : end == RUN_INTERRUPTED
						       ? "interrupted" : "failed"));
	if (end != RUN_ENDED && end != RUN_INTERRUPTED)
		json_object_set_new(r, RK_ERROR, json_string(err->msg));
	/* A probe the pipeline did not finish (a signal, the harness) is no
	 * verdict: its repeats are not all there. */
	if (end != RUN_ENDED) {
		json_object_set_new(r, "meets", json_null());
		json_object_set_new(r, "usable", json_false());
	}
	json_array_append_new(f->probes, r);
	f->nprobes++;
	*rec = r;
	json_decref(pd);
	return end;
}
