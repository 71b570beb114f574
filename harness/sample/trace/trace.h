/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.h — a run's tracepoints through libtracefs and libtraceevent.
 *
 * Each run gets a private tracing instance, instances/pagelab-<pid>-<run>-ns<pid namespace inode>
 * (never the top-level buffer a user may be tracing with), trace_clock mono
 * (the samples' CLOCK_MONOTONIC), the events of its set (tracedef.h)
 * enabled there, their formats read from the running kernel.  The sampler
 * drains the per-CPU buffers (trace_pipe_raw, non-blocking) at each sample;
 * records are decoded here and added up in timeline.c.  The instance is
 * removed by trace_close() on every way out of a run, and trace_sweep()
 * removes those of dead runs (like the sandboxes). */
#ifndef PAGELAB_TRACE_H
#define PAGELAB_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "base/error.h"
#include "timeline.h"

struct trace_config {
	unsigned set;           /* tracedef groups */
	bool raw;               /* --trace-raw: high-rate records kept one by one */
	unsigned bin_ms;        /* per-interval histograms (default 1000) */
	unsigned buffer_kb;     /* per CPU (default 4096) */
};

struct trace;

/* Is tracing possible here?  0, or -errno with err saying why (no tracefs,
 * not root, a kernel without the events).  Mounts tracefs when it is not
 * (*mounted = true).  From here to trace_end the run holds tracefs: a
 * shared flock of /sys, so that no other run's end takes it down
 * under this one, even while it has no file open in it. */
int trace_available(bool *mounted, struct lab_error *err);

/* Record the mount trace_available made (harness/host/mountmark.h), so that
 * a run killed before its end does not leave it for good.  Where the
 * new mount API was there trace_available wrote the record before attaching
 * the mount, and this says only whether it could.  0 (also when this process
 * mounted nothing) or -errno. */
int trace_mark_mount(struct lab_error *err);

/* The end of the run's hold on tracefs.  The last run to end takes down
 * the tracefs mount pagelab recorded, whichever run made it (one that ended
 * or died while this one traced), and this run's own, recorded or not.  1
 * when it unmounted one (*owner: the pid that had mounted it), 0 when it
 * left it (another run holds it, or it is not pagelab's), -EBUSY when
 * something else has files open in it (it stays, with its record, for the
 * next run's end or `pagelab restore`), other -errno with err. */
int trace_end(pid_t *owner, struct lab_error *err);

/* `pagelab restore`: take down a tracefs mount a dead pagelab run made: its
 * record names a dead pid, this boot and the mount there now (mountmark.h),
 * and no run holds tracefs.  1 when it was unmounted (*owner: that run's
 * pid), 0 when there was none to take down (a stale record is removed) or a
 * run holds it (that run's end will), -EBUSY when it is in use (it stays),
 * other -errno with err. */
int trace_release(pid_t *owner, struct lab_error *err);

/* Remove instances named pagelab-<pid>-… of this pid namespace whose pid is dead. */
int trace_sweep(int *removed, struct lab_error *err);

/* Whether pid is a task of the run's sandbox (the sampler knows). */
typedef bool (*trace_sandbox_fn)(void *ctx, int pid);

int trace_open(const struct trace_config *cfg, int run_index, uint64_t t0_ns, trace_sandbox_fn in_sandbox,
	       void *sctx, struct trace **out, struct lab_error *err);

/* Read what the per-CPU buffers hold, decode it, add it up; kept records go
 * to events (NULL: only through emit), closed intervals to intervals, each
 * also through emit.  final: everything, and the open interval is closed
 * too.  Memory: a drain holds at most what the per-CPU buffers held
 * (buffer_kb per CPU) until it is added up; nothing of it stays after. */
int trace_drain(struct trace *t, bool final, json_t *events, json_t *intervals, timeline_emit_fn emit,
		void *ectx, struct lab_error *err);

/* The per-CPU buffers in the caller's epoll set epfd, one-shot, each with
 * data.u64 = tag | cpu: when epoll reports one, the caller says so with
 * trace_ready(t, cpu) (cpu -1: all of them) and the next drain reads it
 * (and watches it again); a drain reads no other CPU.  After each
 * epoll_wait whose every ready CPU it passed on, the caller says when with
 * trace_seen(t, CLOCK_MONOTONIC ns): records are final up to then.  0, or
 * -errno (then every drain reads every CPU, as without it). */
int trace_watch(struct trace *t, int epfd, uint64_t tag);
void trace_ready(struct trace *t, int cpu);
void trace_seen(struct trace *t, uint64_t ns);

/* A line in the instance's trace_marker (a workload's step). */
void trace_marker(struct trace *t, const char *text);

/* An O_CLOEXEC fd of the instance's trace_marker for launch_set_marker_fd(),
 * or -1.  Owned by t. */
int trace_marker_fd(const struct trace *t);

bool trace_kswapd_awake(const struct trace *t);
bool trace_stall_open(const struct trace *t);
unsigned long long trace_stalls_done(const struct trace *t);   /* the sandbox's and direct ones, so far */

/* runs[].summary.trace: the set, the instance, the derived figures and the
 * losses (per-CPU overrun and dropped events, records the buffer skipped). */
json_t *trace_summary(struct trace *t, uint64_t end_ns);

/* Disable, close, remove the instance.  NULL is fine. */
void trace_close(struct trace *t);

#endif
