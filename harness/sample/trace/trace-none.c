/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace-none.c — trace.h for a build without libtracefs/libtraceevent or GSL
 * (a static guest build whose target lacks the static libraries): runs go on
 * without tracepoints and the result says why ("tracing": "unavailable"). */
#include "trace.h"

#include <errno.h>

int trace_available(bool *mounted, struct lab_error *err)
{
	*mounted = false;
	return lab_error_set(err, ENOSYS, "this pagelab was built without libtracefs/libtraceevent/GSL");
}

int trace_mark_mount(struct lab_error *err)
{
	(void)err;
	return 0;
}

int trace_end(pid_t *owner, struct lab_error *err)
{
	(void)err;
	*owner = 0;
	return 0;
}

int trace_release(pid_t *owner, struct lab_error *err)
{
	(void)err;
	*owner = 0;
	return 0;
}

int trace_sweep(int *removed, struct lab_error *err)
{
	(void)err;
	*removed = 0;
	return 0;
}

int trace_open(const struct trace_config *cfg, int run_index, uint64_t t0_ns, trace_sandbox_fn in_sandbox,
	       void *sctx, struct trace **out, struct lab_error *err)
{
	(void)cfg, (void)run_index, (void)t0_ns, (void)in_sandbox, (void)sctx;
	*out = NULL;
	return lab_error_set(err, ENOSYS, "this pagelab was built without tracepoints");
}

int trace_drain(struct trace *t, bool final, json_t *events, json_t *intervals, timeline_emit_fn emit,
		void *ectx, struct lab_error *err)
{
	(void)t, (void)final, (void)events, (void)intervals, (void)emit, (void)ectx, (void)err;
	return 0;
}

int trace_watch(struct trace *t, int epfd, uint64_t tag)
{
	(void)t, (void)epfd, (void)tag;
	return -ENOSYS;
}

void trace_ready(struct trace *t, int cpu)
{
	(void)t, (void)cpu;
}

void trace_seen(struct trace *t, uint64_t ns)
{
	(void)t, (void)ns;
}

void trace_marker(struct trace *t, const char *text)
{
	(void)t, (void)text;
}

int trace_marker_fd(const struct trace *t)
{
	(void)t;
	return -1;
}

bool trace_kswapd_awake(const struct trace *t)
{
	(void)t;
	return false;
}

bool trace_stall_open(const struct trace *t)
{
	(void)t;
	return false;
}

unsigned long long trace_stalls_done(const struct trace *t)
{
	(void)t;
	return 0;
}

json_t *trace_summary(struct trace *t, uint64_t end_ns)
{
	(void)t, (void)end_ns;
	return json_null();
}

void trace_close(struct trace *t)
{
	(void)t;
}
