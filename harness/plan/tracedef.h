/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracedef.h — the tracepoints pagelab records, as one table (tracedef.c),
 * and the sets a scenario's [trace] section or --trace chooses from.
 *
 * Pure: no tracefs here, so the scenario parser can check a set before
 * anything on the host is touched.  A new event is one row in tracedef.c;
 * its fields come from the running kernel's format file (trace.c), so a
 * field that differs between 6.1, 6.12 and 6.18 needs no code. */
#ifndef PAGELAB_TRACEDEF_H
#define PAGELAB_TRACEDEF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

enum trace_role {
	TR_POINT,               /* an instant: kswapd_wake, mark_victim, a marker */
	TR_BEGIN,               /* opens a stall on its task (common_pid) */
	TR_END,                 /* closes it */
};

enum trace_stall { TS_NONE = -1, TS_DIRECT, TS_MEMCG, TS_COMPACTION, TS_NR };

/* What the timeline does with a point event. */
enum trace_point { TP_OTHER, TP_WAKEUP_KSWAPD, TP_KSWAPD_WAKE, TP_KSWAPD_SLEEP, TP_MARK_VICTIM,
		   TP_MARKER, TP_SHRINK_INACTIVE, TP_FORK, TP_RECLAIM_PAGES };

struct trace_event_def {
	const char *system, *name;      /* events/SYSTEM/NAME in tracefs */
	const char *group;              /* the set it belongs to (tracedef_groups) */
	enum trace_role role;
	enum trace_stall stall;
	enum trace_point point;
	bool high_rate;                 /* aggregated per interval unless --trace-raw */
	bool always_on;                 /* ftrace/print: written, not enabled */
};

extern const struct trace_event_def trace_events[];
extern const size_t trace_nr_events;

/* Sets are bit masks over groups: bit i = tracedef_groups[i]. */
extern const char *const tracedef_groups[];     /* NULL-terminated */
#define TRACE_SET_NONE 0u

const char *tracedef_stall_name(enum trace_stall k);   /* "direct", "memcg", "compaction" */

/* "default" (the lab's set), "all", "none", or group names separated by
 * blanks or commas ("kswapd direct oom").  Returns 0 with *set filled, or
 * -EINVAL with err naming the word it did not know.  *is_default tells
 * whether the lab's default should be taken (the caller knows the lab). */
int tracedef_parse_set(const char *text, unsigned *set, bool *is_default, struct lab_error *err);

/* The default set of the lab a scenario belongs to ("watermarks/kswapd-runs"
 * -> the watermarks lab's set); unknown labs get the general one. */
unsigned tracedef_default_set(const char *scenario_name);
/* The bit of one group ("forks"), 0 if there is none by that name. */
unsigned tracedef_group(const char *name);
unsigned tracedef_all_set(void);

/* "kswapd direct oom markers" for a set (for results and --help). */
void tracedef_set_text(unsigned set, char *buf, size_t len);

/* Whether a row's group is in the set. */
bool tracedef_in_set(const struct trace_event_def *d, unsigned set);

#endif
