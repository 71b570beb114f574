/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracedef.c — the tracepoint table (see tracedef.h). */
#include "tracedef.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One row per tracepoint.  Where each fires (6.18 sources):
 *   mm_vmscan_wakeup_kswapd   mm/vmscan.c wakeup_kswapd(): an allocation below a
 *                             zone's low line wakes a SLEEPING kswapd (the
 *                             waitqueue check comes first, so the rate is bounded)
 *   mm_vmscan_kswapd_wake     mm/vmscan.c kswapd(): before each balance_pgdat()
 *   mm_vmscan_kswapd_sleep    mm/vmscan.c kswapd_try_to_sleep(): only the full
 *                             sleep, after the HZ/10 nap was not cut short
 *   direct/memcg reclaim      mm/vmscan.c try_to_free_pages() /
 *                             try_to_free_mem_cgroup_pages(): the allocating task
 *                             stalls; _end carries nr_reclaimed
 *   mm_compaction_begin/end   mm/compaction.c compact_zone()
 *   oom:mark_victim           mm/oom_kill.c mark_oom_victim()
 *   mm_vmscan_lru_shrink_inactive  mm/vmscan.c shrink_inactive_list() (classic LRU)
 *                             and evict_folios() (MGLRU, 6.12 and 6.18 only: 6.1's
 *                             MGLRU emits none); its fields are the kernel's
 *                             stat->nr_activate[0] (anon) and [1] (file) as
 *                             nr_activate0/nr_activate1, nr_unmap_fail,
 *                             reclaim_flags RECLAIM_WB_ANON 0x1 or _FILE 0x2
 *                             (include/trace/events/vmscan.h, the same in all three)
 *   mm_vmscan_reclaim_pages   mm/vmscan.c reclaim_folio_list(): reclaim of a list
 *                             someone chose, not an LRU scan — MADV_PAGEOUT
 *                             (mm/madvise.c) and DAMON's pageout (mm/damon/paddr.c,
 *                             vaddr.c) — which pgscan and pgsteal do not count
 *                             (shrink_inactive_list counts them); nr_scanned,
 *                             nr_reclaimed and the lru fields' names (6.18 has it;
 *                             Debian's 6.12.118 and 6.1 do not)
 *   sched_process_fork        kernel/fork.c kernel_clone(): parent_pid and child_pid
 *                             are the kernel's (task->pid, a thread's id for a
 *                             thread), whatever pid namespace the run is in; every
 *                             fork of the machine, kept as a table of who forked
 *                             whom (trace.c), never as events (the same fields in
 *                             6.1, 6.12 and 6.18)
 *   ftrace:print              what is written to the instance's trace_marker */
const struct trace_event_def trace_events[] = {
	{ "vmscan", "mm_vmscan_wakeup_kswapd", "kswapd", TR_POINT, TS_NONE, TP_WAKEUP_KSWAPD, false, false },
	{ "vmscan", "mm_vmscan_kswapd_wake", "kswapd", TR_POINT, TS_NONE, TP_KSWAPD_WAKE, false, false },
	{ "vmscan", "mm_vmscan_kswapd_sleep", "kswapd", TR_POINT, TS_NONE, TP_KSWAPD_SLEEP, false, false },
	{ "vmscan", "mm_vmscan_direct_reclaim_begin", "direct", TR_BEGIN, TS_DIRECT, TP_OTHER, true, false },
	{ "vmscan", "mm_vmscan_direct_reclaim_end", "direct", TR_END, TS_DIRECT, TP_OTHER, true, false },
	{ "vmscan", "mm_vmscan_memcg_reclaim_begin", "memcg", TR_BEGIN, TS_MEMCG, TP_OTHER, true, false },
	{ "vmscan", "mm_vmscan_memcg_reclaim_end", "memcg", TR_END, TS_MEMCG, TP_OTHER, true, false },
	{ "compaction", "mm_compaction_begin", "compaction", TR_BEGIN, TS_COMPACTION, TP_OTHER, true, false },
	{ "compaction", "mm_compaction_end", "compaction", TR_END, TS_COMPACTION, TP_OTHER, true, false },
	{ "oom", "mark_victim", "oom", TR_POINT, TS_NONE, TP_MARK_VICTIM, false, false },
	{ "vmscan", "mm_vmscan_lru_shrink_inactive", "lru", TR_POINT, TS_NONE, TP_SHRINK_INACTIVE, true, false },
	{ "ftrace", "print", "markers", TR_POINT, TS_NONE, TP_MARKER, false, true },
	{ "sched", "sched_process_fork", "forks", TR_POINT, TS_NONE, TP_FORK, true, false },
	{ "vmscan", "mm_vmscan_reclaim_pages", "pageout", TR_POINT, TS_NONE, TP_RECLAIM_PAGES, true, false },
};
const size_t trace_nr_events = sizeof(trace_events) / sizeof(trace_events[0]);

/* New groups go last: a set is a bit mask over this list. */
const char *const tracedef_groups[] = { "kswapd", "direct", "memcg", "compaction", "oom", "markers", "lru",
					"forks", "pageout", NULL };

static unsigned group_bit(const char *g)
{
	for (unsigned i = 0; tracedef_groups[i]; i++)
		if (!strcmp(tracedef_groups[i], g))
			return 1u << i;
	return 0;
}

#define G(name) group_bit(name)

unsigned tracedef_group(const char *name)
{
	return group_bit(name);
}

/* Each lab's default: the watermark lab is about kswapd, direct reclaim and
 * compaction machine-wide; the MADV_FREE lab's sandbox reclaims through its
 * memcg; the min_free_kbytes lab watches kswapd and stalls.  Every lab's
 * has pageout: reclaim no scan counts (MADV_PAGEOUT, a DAMON scheme the
 * machine runs besides the scenario). */
static const struct {
	const char *prefix;
	const char *groups;
} lab_defaults[] = {
	{ "watermarks/", "kswapd direct compaction oom markers pageout" },
	{ "madv-free/", "memcg direct oom markers pageout" },
	{ "min-free/", "kswapd direct memcg oom markers pageout" },
	/* The THP question (issue 23): the shrink_inactive sums tell its leads apart. */
	{ "thp/", "kswapd direct memcg oom markers lru pageout" },
	{ "", "kswapd direct memcg oom markers pageout" },
};

const char *tracedef_stall_name(enum trace_stall k)
{
	static const char *const names[] = { "direct", "memcg", "compaction" };

	return k >= 0 && k < TS_NR ? names[k] : "none";
}

static int parse_words(const char *text, unsigned *set, bool *dflt, bool *all, bool *none,
		       struct lab_error *err)
{
	char word[32];
	const char *p = text;

	*set = 0;
	*dflt = *all = *none = false;
	while (*p) {
		size_t n;
		unsigned b;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		n = strcspn(p, " \t,");
		if (n >= sizeof(word))
			return lab_error_set(err, EINVAL, "trace set: '%.*s' is too long", (int)n, p);
		memcpy(word, p, n);
		word[n] = '\0';
		p += n;
		if (!strcmp(word, "default"))
			*dflt = true;
		else if (!strcmp(word, "all"))
			*all = true;
		else if (!strcmp(word, "none"))
			*none = true;
		else if ((b = group_bit(word)) != 0)
			*set |= b;
		else {
			char known[160];

			tracedef_set_text(tracedef_all_set(), known, sizeof(known));
			return lab_error_set(err, EINVAL,
					     "trace set: unknown '%s' (known: default, all, none, %s)", word, known);
		}
	}
	return 0;
}

int tracedef_parse_set(const char *text, unsigned *set, bool *is_default, struct lab_error *err)
{
	bool dflt, all, none;
	int ret = parse_words(text, set, &dflt, &all, &none, err);

	if (ret < 0)
		return ret;
	if ((dflt || all || none) && (*set != 0 || dflt + all + none > 1))
		return lab_error_set(err, EINVAL,
				     "trace set: default, all and none stand alone ('%s')", text);
	if (!dflt && !all && !none && *set == 0)
		return lab_error_set(err, EINVAL, "trace set: empty");
	*is_default = dflt;
	if (all)
		*set = tracedef_all_set();
	return 0;
}

unsigned tracedef_all_set(void)
{
	unsigned s = 0;

	for (unsigned i = 0; tracedef_groups[i]; i++)
		s |= 1u << i;
	return s;
}

unsigned tracedef_default_set(const char *scenario_name)
{
	for (size_t i = 0; i < sizeof(lab_defaults) / sizeof(lab_defaults[0]); i++) {
		size_t n = strlen(lab_defaults[i].prefix);

		if (scenario_name && !strncmp(scenario_name, lab_defaults[i].prefix, n)) {
			unsigned set = 0;
			bool d, a, z;
			struct lab_error e;

			if (parse_words(lab_defaults[i].groups, &set, &d, &a, &z, &e) == 0)
				return set;
		}
	}
	return 0;
}

void tracedef_set_text(unsigned set, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (unsigned i = 0; tracedef_groups[i] && off < len; i++) {
		int n;

		if (!(set & (1u << i)))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? " " : "", tracedef_groups[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (off == 0)
		snprintf(buf, len, "none");
}

bool tracedef_in_set(const struct trace_event_def *d, unsigned set)
{
	return (set & group_bit(d->group)) != 0;
}
