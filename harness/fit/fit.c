/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fit.c — the fit itself (fit.h): the base, the range's top and bottom, then
 * bisection between the last quota that failed and the first that met,
 * until they are within the resolution or the probes run out; the document
 * written with every probe, the answer and its tables. */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fileio.h"
#include "host/knobs.h"
#include "result/keys.h"
#include "result/result.h"

static void fit_fail(struct fit_ctx *f, enum run_end end, const struct lab_error *e)
{
	if (f->failed || f->end == RUN_INTERRUPTED)
		return;
	f->failed = true;
	f->end = end;
	f->err = *e;
}

/* A stop signal that came between two probes (they are blocked from the
 * start: a run's signalfd takes those that come during one) ends the fit
 * as interrupted; taken off the queue, so it ends nothing else. */
static bool stop_pending(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t mask, pend;
	bool stop = false;

	knob_stop_signals(&mask);
	if (sigpending(&pend) < 0)
		return false;
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&mask, s) == 1 && sigismember(&pend, s) == 1) {
			sigset_t one;

			sigemptyset(&one);
			sigaddset(&one, s);
			sigtimedwait(&one, NULL, &zero);
			stop |= s != SIGPIPE;
		}
	return stop;
}

static bool rec_bool(const json_t *rec, const char *k)
{
	return json_is_true(json_object_get(rec, k));
}

/* "met", "failed: OOM kills in 3 of 3 repeats". */
static void verdict_text(const json_t *rec, char *buf, size_t len)
{
	const json_t *why = json_object_get(rec, "why");

	if (json_is_null(json_object_get(rec, "meets")))
		snprintf(buf, len, "%s", rec_bool(rec, "usable") ? "the base" : "no result");
	else if (rec_bool(rec, "meets"))
		snprintf(buf, len, "met");
	else
		snprintf(buf, len, "failed: %s%s", json_array_size(why) ? json_string_value(json_array_get(why, 0))
									: "?", json_array_size(why) > 1 ? " …" : "");
}

/* One probe said, then its end decided: true to go on. */
static bool probe(struct fit_ctx *f, unsigned long long q, bool is_base, const json_t **rec)
{
	struct lab_error e;
	enum run_end end;
	char qt[32], v[640];

	*rec = NULL;
	if (stop_pending()) {
		f->end = RUN_INTERRUPTED;
		return false;
	}
	fit_size_text(q, qt, sizeof(qt));
	lab_say(f->prog, LAB_SAY_PHASE, "fit: probe %u: %s %s%s x %u ...", f->nprobes + 1, fit_key_name(f->o->vary.key),
		qt, is_base ? (f->unconstrained ? " (the base, unconstrained)" : " (the base)") : "", f->repeat);
	end = fit_probe(f, q, is_base, rec, &e);
	if (*rec != NULL) {
		verdict_text(*rec, v, sizeof(v));
		lab_say(f->prog, LAB_SAY_PHASE, "fit: probe %u: %s %s: %s", f->nprobes, fit_key_name(f->o->vary.key),
			qt, v);
	}
	if (end == RUN_INTERRUPTED) {
		f->end = RUN_INTERRUPTED;
		return false;
	}
	if (end != RUN_ENDED) {
		fit_fail(f, end, &e);
		return false;
	}
	return true;
}

static void answer(struct fit_ctx *f, const char *status, const unsigned long long *failed,
		   const unsigned long long *met)
{
	json_t *fit = json_object_get(f->doc, "fit");
	json_t *a = json_pack("{s:s, s:o, s:{s:o, s:o}, s:i, s:i}", "status", status, "quota_bytes",
			      met && !strcmp(status, "found") ? json_integer((json_int_t)*met) : json_null(), "bracket",
			      "failed_bytes", failed ? json_integer((json_int_t)*failed) : json_null(), "met_bytes",
			      met ? json_integer((json_int_t)*met) : json_null(), "probes", (int)f->nprobes - 1,
			      "repeats", (int)f->repeat);

	json_object_set_new(fit, "answer", a);
}

/* The midpoint of (failed, met), rounded down to the granule; 0 when there
 * is none strictly between. */
static unsigned long long midpoint(const struct fit_ctx *f, unsigned long long failed, unsigned long long met)
{
	unsigned long long mid = failed + (met - failed) / 2;

	mid -= mid % f->granule;
	if (mid <= failed)
		mid = failed + f->granule - (failed % f->granule);
	return mid < met ? mid : 0;
}

/* The probes in order; the answer recorded when the fit gets that far. */
static void bisect(struct fit_ctx *f)
{
	const struct fit_vary *v = &f->o->vary;
	unsigned long long failed = v->lo, met = v->hi, mid;
	const json_t *rec;
	struct lab_error e;

	if (!probe(f, f->base_quota, true, &rec))
		return;
	if (!rec_bool(rec, "usable")) {
		lab_error_set(&e, EIO, "the base run (%s %llu bytes) gave no result to fit against: %s",
			      fit_key_name(v->key), f->base_quota,
			      json_string_value(json_array_get(json_object_get(rec, "why"), 0)));
		fit_fail(f, RUN_FAILED, &e);
		return;
	}
	f->base = rec;
	if (!probe(f, v->hi, false, &rec))
		return;
	if (!rec_bool(rec, "meets")) {
		answer(f, "above_range", &met, NULL);
		return;
	}
	if (!probe(f, v->lo, false, &rec))
		return;
	if (rec_bool(rec, "meets")) {
		answer(f, "below_range", NULL, &failed);
		return;
	}
	while (met - failed > f->resolution && f->nprobes < f->max_probes + 1 && (mid = midpoint(f, failed, met))) {
		if (!probe(f, mid, false, &rec))
			break;
		if (rec_bool(rec, "meets"))
			met = mid;
		else
			failed = mid;
	}
	answer(f, f->end == RUN_INTERRUPTED || f->failed ? "incomplete" : "found", &failed, &met);
}

/* doc.fit's settings, beside the probes. */
static void fit_settings(struct fit_ctx *f)
{
	json_t *fit = json_object_get(f->doc, "fit"), *objs = json_array();

	for (size_t i = 0; i < f->o->nslo; i++)
		json_array_append_new(objs, json_string(f->o->slo[i].text));
	json_object_set_new(fit, "key", json_string(fit_key_name(f->o->vary.key)));
	json_object_set_new(fit, "range", json_pack("{s:I, s:I}", "lo_bytes", (json_int_t)f->o->vary.lo, "hi_bytes",
						    (json_int_t)f->o->vary.hi));
	json_object_set_new(fit, "resolution_bytes", json_integer((json_int_t)f->resolution));
	json_object_set_new(fit, "repeat", json_integer(f->repeat));
	json_object_set_new(fit, "max_probes", json_integer(f->max_probes));
	json_object_set_new(fit, "base", json_pack("{s:I, s:b}", "quota_bytes", (json_int_t)f->base_quota,
						   "unconstrained", f->unconstrained));
	json_object_set_new(fit, "objectives", objs);
	json_object_set_new(fit, "rule", json_string("broken only when the compare rule calls the difference from "
						     "the bound real (Welch's t-test at 95 % and the LKP rule, "
						     "threshold 1 %) and the probe is on the wrong side"));
}

static int write_doc(struct fit_ctx *f, struct lab_error *err)
{
	char stamp[32], *text;
	int ret;

	result_utc_stamp(stamp, sizeof(stamp), 0);
	json_object_set_new(f->doc, RK_FINISHED, json_string(stamp));
	json_object_set_new(f->doc, RK_STATUS, json_string(f->end == RUN_INTERRUPTED ? "interrupted"
							   : f->failed ? "error" : "ok"));
	json_object_set_new(f->doc, RK_ERROR, f->failed ? json_string(f->err.msg)
				   : f->end == RUN_INTERRUPTED ? json_string("stopped by a signal") : json_null());
	text = json_dumps(f->doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text == NULL)
		return lab_error_set(err, ENOMEM, "serialise the fit's document");
	ret = lab_write_atomic(f->out, text, strlen(text), err);
	free(text);
	return ret;
}

int fit_execute(const struct fit_opts *o, const struct lab_progress *prog, struct fit_outcome *out,
		struct lab_error *err)
{
	struct fit_ctx *f = calloc(1, sizeof(*f));
	sigset_t mask;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (f == NULL)
		return lab_error_errno(err, ENOMEM, "fit");
	f->o = o;
	f->prog = prog;
	f->end = RUN_ENDED;
	if ((ret = fit_check(f, err)) < 0) {
		out->end = ret == -ENOMEM ? RUN_FAILED : RUN_REFUSED_INPUT;
		free(f);
		return ret;
	}
	/* Blocked from here on: a signal between probes is seen by the next
	 * look (stop_pending), one during a probe by its run's signalfd. */
	knob_stop_signals(&mask);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	bisect(f);
	fit_probe_cleanup(f);
	if (f->doc != NULL) {
		json_t *fit = json_object_get(f->doc, "fit");

		fit_settings(f);
		if (json_object_get(fit, "answer") == NULL)
			answer(f, "incomplete", NULL, NULL);
		json_object_set_new(fit, "tables", fit_tables(fit, json_object_get(f->doc, RK_RUNS)));
		if (write_doc(f, err) < 0) {
			fit_fail(f, RUN_FAILED, err);
		} else {
			snprintf(out->result, sizeof(out->result), "%s", f->out);
			lab_say(prog, LAB_SAY_PHASE, "fit: result written: %s", f->out);
		}
		out->doc = f->doc;
	}
	out->end = f->end;
	if (f->failed) {
		*err = f->err;
		ret = -(f->err.code > 0 ? f->err.code : EIO);
	}
	free(f);
	return ret;
}

void fit_outcome_free(struct fit_outcome *out)
{
	json_decref(out->doc);
	out->doc = NULL;
}
