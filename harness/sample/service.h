/* SPDX-License-Identifier: GPL-2.0-or-later */
/* service.h — what a run does for its foreign programs besides sampling
 * (harness/sample/ only; the sampler calls it): a command's readiness and
 * its "ready" step, the loads one after another once the main workload is
 * ready (each a step of it named after the load, with its metrics), the
 * main workload's hold and its planned stop, and the deadlines of all of
 * them on one timer (harness/plan/scenario.md, "Load";
 * harness/result/result.md, runs[].loads). */
#ifndef PAGELAB_SAMPLE_SERVICE_H
#define PAGELAB_SAMPLE_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"
#include "launch/lives.h"
#include "plan/scenario.h"
#include "result/result.h"
#include "sampler.h"

/* The epoll tags it owns (the sampler's are below 0x800). */
#define SVC_TAG_TIMER 3u
#define SVC_TAG_OUT 0x800u              /* | workload: its stdout */
#define SVC_TAG_ERR 0x1000u             /* | workload: its stderr */
#define SVC_TAG_LOAD 0x2000u            /* | load << 2 | 0 pidfd, 1 stdout, 2 stderr */
#define SVC_TAGS (SVC_TAG_OUT | SVC_TAG_ERR | SVC_TAG_LOAD)

/* The sampler's own, called back. */
struct svc_hooks {
	/* A step of workload wi, with extra's members (stolen), and its forced sample. */
	void (*step)(void *ctx, size_t wi, const char *step, const char *arg, json_t *extra);
	/* Start the workloads waiting for workload wi's step. 0 or -errno. */
	int (*release)(void *ctx, size_t wi, const char *step);
	int (*watch)(void *ctx, int fd, uint64_t tag);
	void (*unwatch)(void *ctx, int fd);
	void *ctx;
};

struct svc;

struct svc_open_args {
	const struct run_spec *spec;
	const struct sampler_foreign *foreign;
	struct launch_lives *lives;
	struct result *res;
	int run_index;
	json_t *run;                    /* runs[i]: its "loads" are filled */
	const struct lab_progress *progress;
	bool verbose;
	uint64_t t0_ns;
	struct svc_hooks hooks;
};

int svc_open(const struct svc_open_args *a, struct svc **out, struct lab_error *err);

/* A command workload was started: its output watched, the timer armed. */
int svc_started(struct svc *s, size_t wi);

/* launch/lives.h's ready hook. */
void svc_ready(struct svc *s, size_t wi);

/* Workload wi ended: its output no longer watched. */
void svc_ended(struct svc *s, size_t wi);

/* One ready descriptor of its tags (SVC_TAG_*). */
void svc_on_ready(struct svc *s, uint64_t tag);

/* A failure that stops the run (a load that could not start), or 0. */
int svc_error(const struct svc *s, struct lab_error *err);

/* The run's end: a load still running killed and recorded (no new one). */
void svc_end(struct svc *s);

void svc_close(struct svc *s);

#endif
