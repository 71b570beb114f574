/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service.c — readiness, loads, hold and planned stop in a run (service.h). */
#include "service.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "launch/loads.h"
#include "result/keys.h"

struct svc {
	struct svc_open_args a;
	json_t *loads_json;             /* runs[].loads (borrowed from the run) */
	int tfd;
	unsigned armed_ms;
	struct launch_load loads[SCN_MAX_LOADS];
	size_t next;                    /* the next load to start */
	int cur;                        /* the one running, -1 none */
	bool main_ready, service, ending, stop_issued;
	uint64_t hold_until_ns;
	int error;
	char error_msg[LAB_ERROR_MSG_MAX];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t main_index(const struct svc *s)
{
	return s->a.spec->nr_workloads - 1;
}

static void arm(struct svc *s, unsigned ms)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (ms == s->armed_ms)
		return;
	its.it_interval.tv_sec = ms / 1000;
	its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	if (timerfd_settime(s->tfd, 0, &its, NULL) == 0)
		s->armed_ms = ms;
}

/* 20 ms while a command waits for its readiness or its stop's grace, 100 ms
 * while a load or the hold runs (their deadlines), else off. */
static void rearm(struct svc *s, bool waiting)
{
	arm(s, waiting ? 20 : (s->cur >= 0 || s->hold_until_ns != 0) ? 100 : 0);
}

/* After anything that may start a wait (a stop's grace, a load's timeout,
 * the hold): the probes run once more and the timer follows. */
static void kick(struct svc *s)
{
	rearm(s, launch_cmd_tick(s->a.lives));
}

int svc_open(const struct svc_open_args *a, struct svc **out, struct lab_error *err)
{
	struct svc *s = calloc(1, sizeof(*s));
	const struct run_workload *m;
	int ret;

	*out = NULL;
	if (s == NULL)
		return lab_error_errno(err, ENOMEM, "services");
	s->a = *a;
	s->cur = -1;
	s->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->tfd < 0) {
		free(s);
		return lab_error_errno(err, errno, "timerfd");
	}
	if ((ret = a->hooks.watch(a->hooks.ctx, s->tfd, SVC_TAG_TIMER)) < 0) {
		close(s->tfd);
		free(s);
		return ret;
	}
	m = &a->spec->workloads[a->spec->nr_workloads - 1];
	s->service = m->command && (m->ready.kind != RUN_READY_NONE || a->spec->nr_loads > 0 || m->hold_ms > 0);
	s->loads_json = json_array();
	json_object_set_new(a->run, RK_LOADS, s->loads_json);
	for (size_t k = 0; k < a->spec->nr_loads; k++)
		s->loads[k].proc.pidfd = s->loads[k].proc.out_fd = s->loads[k].proc.err_fd = -1;
	*out = s;
	return 0;
}

int svc_started(struct svc *s, size_t wi)
{
	struct launch_wl *x = &s->a.lives->wl[wi];
	int ret;

	if (x->cmd == NULL)
		return 0;
	if ((ret = s->a.hooks.watch(s->a.hooks.ctx, x->c.proc.out_fd, SVC_TAG_OUT | wi)) < 0 ||
	    (ret = s->a.hooks.watch(s->a.hooks.ctx, x->c.proc.err_fd, SVC_TAG_ERR | wi)) < 0)
		return ret;
	kick(s);
	return 0;
}

void svc_ended(struct svc *s, size_t wi)
{
	struct launch_wl *x = &s->a.lives->wl[wi];

	if (x->cmd == NULL)
		return;
	if (x->c.proc.out_fd >= 0)
		s->a.hooks.unwatch(s->a.hooks.ctx, x->c.proc.out_fd);
	if (x->c.proc.err_fd >= 0)
		s->a.hooks.unwatch(s->a.hooks.ctx, x->c.proc.err_fd);
}

/* The loads are done (or there are none): the main workload's hold, or
 * its planned stop. */
static void loads_done(struct svc *s)
{
	const struct run_workload *m = &s->a.spec->workloads[main_index(s)];

	if (!s->service || s->stop_issued)
		return;
	if (m->hold_ms > 0 && s->hold_until_ns == 0) {
		s->hold_until_ns = now_ns() + (uint64_t)m->hold_ms * 1000000ull;
		return;
	}
	if (m->hold_ms > 0 && now_ns() < s->hold_until_ns)
		return;
	s->hold_until_ns = 0;
	s->stop_issued = true;
	if (s->a.verbose)
		lab_say(s->a.progress, LAB_SAY_DETAIL, "  %s: stopping it (stop = %s, %u ms grace)", m->name,
			strsignal(m->stop_signal), m->stop_grace_ms);
	launch_stop_planned(s->a.lives, main_index(s));
}

static void next_load(struct svc *s);

/* What a step of the main workload holds of a load besides its metrics. */
static json_t *step_extra(const json_t *rec)
{
	json_t *l = json_deep_copy(rec);
	json_t *ex;

	json_object_del(l, "stdout");
	json_object_del(l, "stderr");
	json_object_del(l, "env");
	json_object_del(l, RK_METRICS);
	ex = json_pack("{s:o, s:O}", RK_LOAD, l, RK_METRICS, json_object_get(rec, RK_METRICS));
	return ex;
}

/* Its end said: the outcome, and the first metrics or why there are none. */
static void say_load(struct svc *s, const json_t *rec)
{
	const char *name = json_string_value(json_object_get(rec, "name"));
	const char *inv = json_string_value(json_object_get(rec, "invalid"));
	const json_t *ms = json_object_get(rec, RK_METRICS);
	char line[512];
	size_t off, shown = 0;
	const char *k;
	json_t *v;

	off = (size_t)snprintf(line, sizeof(line), "  load %s: %s after %.1f s", name ? name : "?",
			       json_string_value(json_object_get(rec, "outcome")),
			       json_number_value(json_object_get(rec, "duration_ms")) / 1000.0);
	if (inv != NULL) {
		/* A warning stands alone: not indented under the run's line. */
		lab_say(s->a.progress, LAB_SAY_WARN, "%s: no result: %s", line + 2, inv);
		return;
	}
	json_object_foreach((json_t *)ms, k, v) {
		double x = json_number_value(json_object_get(v, "value"));
		const char *unit = json_string_value(json_object_get(v, "unit"));

		if (shown++ == 3 || off >= sizeof(line))
			break;
		/* A byte count in full (48533600 B), not as %g's 4.85336e+07;
		 * a count without a unit without the blank. */
		off += (size_t)snprintf(line + off, sizeof(line) - off, x == trunc(x) && fabs(x) < 1e15 ?
					"%s %s %.0f%s%s" : "%s %s %g%s%s", shown == 1 ? ":" : ",", k, x,
					unit != NULL && *unit ? " " : "", unit != NULL ? unit : "");
	}
	lab_say(s->a.progress, LAB_SAY_PHASE, "%s", line);
}

/* Load k has ended: its record, its step, the next one. */
static void load_done(struct svc *s, size_t k)
{
	struct launch_load *l = &s->loads[k];
	const struct launch_wl *m = &s->a.lives->wl[main_index(s)];
	json_t *rec;

	for (int fd = 0; fd < 3; fd++) {
		int f = fd == 0 ? l->proc.pidfd : fd == 1 ? l->proc.out_fd : l->proc.err_fd;

		if (f >= 0)
			s->a.hooks.unwatch(s->a.hooks.ctx, f);
	}
	load_finish(l);
	rec = load_record(l, s->a.t0_ns, m->launched && !m->proc.exited, m->name);
	json_array_append(s->loads_json, rec);
	result_stream(s->a.res, "load", s->a.run_index, rec);
	say_load(s, rec);
	s->a.hooks.step(s->a.hooks.ctx, main_index(s), l->name, "load", step_extra(rec));
	json_decref(rec);
	s->cur = -1;
	next_load(s);
}

/* Start the next load, if the run goes on; after the last, the hold or the stop. */
static void next_load(struct svc *s)
{
	const struct run_spec *sp = s->a.spec;
	const struct sampler_foreign *f = s->a.foreign;

	if (s->cur >= 0 || s->ending || s->error)
		return;
	if (s->next == sp->nr_loads) {
		loads_done(s);
		return;
	}
	{
		size_t k = s->next++;
		struct launch_load *l = &s->loads[k];
		const struct run_load *rl = &sp->loads[k];
		struct lab_error e;
		int ret;

		l->name = rl->name;
		l->argv = rl->argv;
		l->argc = rl->argc;
		l->exec = &rl->exec;
		l->timeout_ms = rl->timeout_ms;
		l->metrics = f->metrics[k];
		l->in_sandbox = rl->in_sandbox || f->load_cg == NULL;
		l->cg = l->in_sandbox ? s->a.lives->sb : f->load_cg;
		ret = load_start(l, &f->lf, &e);
		if (ret == 0 && (ret = s->a.hooks.watch(s->a.hooks.ctx, l->proc.pidfd, SVC_TAG_LOAD | (k << 2))) == 0 &&
		    (ret = s->a.hooks.watch(s->a.hooks.ctx, l->proc.out_fd, SVC_TAG_LOAD | (k << 2) | 1)) == 0)
			ret = s->a.hooks.watch(s->a.hooks.ctx, l->proc.err_fd, SVC_TAG_LOAD | (k << 2) | 2);
		if (ret < 0) {
			s->error = ret;
			snprintf(s->error_msg, sizeof(s->error_msg), "%s", e.msg);
			load_kill(l, false);
			return;
		}
		s->cur = (int)k;
		if (s->a.verbose)
			lab_say(s->a.progress, LAB_SAY_DETAIL, "  load %s started (pid %d)", l->name, (int)l->proc.pid);
		rearm(s, false);
	}
}

void svc_ready(struct svc *s, size_t wi)
{
	struct launch_wl *x = &s->a.lives->wl[wi];
	const struct cmd_ready *r = x->cmd->ready;
	int ret;

	if (r->kind != RUN_READY_NONE) {
		double started = json_number_value(json_object_get(x->info, "started_ms"));

		if (s->a.verbose)
			lab_say(s->a.progress, LAB_SAY_DETAIL, "  %s ready after %.0f ms (%s)", x->name,
				x->c.ready_ms - started, r->text);
		s->a.hooks.step(s->a.hooks.ctx, wi, "ready", NULL,
				json_pack("{s:{s:s, s:f}}", "ready", "condition", r->text, "after_ms",
					  x->c.ready_ms - started));
	}
	if ((ret = s->a.hooks.release(s->a.hooks.ctx, wi, "ready")) < 0 && s->error == 0) {
		s->error = ret;
		snprintf(s->error_msg, sizeof(s->error_msg), "starting the workloads after %s ready", x->name);
	}
	if (wi == main_index(s)) {
		s->main_ready = true;
		next_load(s);
	}
	kick(s);
}

/* The orphans the run's processes left to pagelab (launch.h), never one of
 * its workloads or its load. */
static void reap_orphans(struct svc *s)
{
	pid_t keep[SCN_MAX_WORKLOADS + 1];
	size_t n = 0;

	for (size_t i = 0; i < s->a.lives->n; i++)
		if (s->a.lives->wl[i].launched && !s->a.lives->wl[i].proc.exited)
			keep[n++] = s->a.lives->wl[i].proc.pid;
	if (s->cur >= 0 && !s->loads[s->cur].exited)
		keep[n++] = s->loads[s->cur].proc.pid;
	launch_reap_orphans(keep, n);
}

static void on_timer(struct svc *s)
{
	uint64_t ticks;
	bool waiting;

	if (read(s->tfd, &ticks, sizeof(ticks)) <= 0)
		return;
	waiting = launch_cmd_tick(s->a.lives);
	if (s->cur >= 0 && load_overdue(&s->loads[s->cur], now_ns())) {
		struct launch_load *l = &s->loads[s->cur];

		load_kill(l, true);
		load_done(s, (size_t)s->cur);
	}
	if (s->hold_until_ns != 0 && now_ns() >= s->hold_until_ns)
		loads_done(s);
	rearm(s, waiting || launch_cmd_tick(s->a.lives));
	reap_orphans(s);
}

void svc_on_ready(struct svc *s, uint64_t tag)
{
	if (tag == SVC_TAG_TIMER) {
		on_timer(s);
	} else if (tag & SVC_TAG_LOAD) {
		size_t k = (tag & 0xff) >> 2;
		unsigned kind = tag & 3;

		if (k >= s->a.spec->nr_loads || (int)k != s->cur)
			return;
		if (kind == 0 && load_reap(&s->loads[k]))
			load_done(s, k);
		else if (kind != 0)
			load_output(&s->loads[k], (int)kind);
	} else if (tag & (SVC_TAG_OUT | SVC_TAG_ERR)) {
		launch_cmd_output(s->a.lives, tag & 0xff, (tag & SVC_TAG_OUT) ? 1 : 2);
	}
	if (tag != SVC_TAG_TIMER)
		kick(s);
}

int svc_error(const struct svc *s, struct lab_error *err)
{
	if (s == NULL || s->error == 0)
		return 0;
	return lab_error_set(err, -s->error, "%s", s->error_msg);
}

void svc_end(struct svc *s)
{
	if (s == NULL)
		return;
	s->ending = true;
	if (s->cur >= 0) {
		struct launch_load *l = &s->loads[s->cur];

		load_kill(l, false);
		load_done(s, (size_t)s->cur);
	}
	arm(s, 0);
}

void svc_close(struct svc *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < s->a.spec->nr_loads; k++)
		load_free(&s->loads[k]);
	if (s->tfd >= 0)
		close(s->tfd);
	free(s);
}
