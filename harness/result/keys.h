/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result_keys.h — the key names of the result document (harness/result/result.md),
 * one place for the writers (result.c, run/run.c, sampler.c, host.c, kmsg.c,
 * trace/) and the readers (report/, plot.c, compare.c, html.c).  A key
 * renamed here is renamed for both; a reader that spells a key by hand can
 * drift from what is written.
 * The keys inside a step's counters are the workload's own (workloads/decl/). */
#ifndef PAGELAB_RESULT_KEYS_H
#define PAGELAB_RESULT_KEYS_H

#define RESULT_SCHEMA_ID "pagelab.result/1"

/* the document */
#define RK_SCHEMA       "schema"
#define RK_HARNESS      "harness"
#define RK_VERSION      "version"
#define RK_COMMIT       "commit"
#define RK_STARTED      "started"
#define RK_FINISHED     "finished"
#define RK_STATUS       "status"
#define RK_ERROR        "error"
#define RK_HOST         "host"
#define RK_SCENARIO     "scenario"
#define RK_INTERVAL_MS  "interval_ms"
#define RK_RUNS         "runs"
#define RK_VM           "vm"

/* host */
#define RK_KERNEL       "kernel"
#define RK_CGROUP       "cgroup"           /* host.cgroup: the mode per controller */
#define RK_MEMORY       "memory"           /* host.cgroup.memory */
#define RK_IN_VM_GUEST  "in_vm_guest"
#define RK_HOSTNAME     "hostname"
#define RK_THP          "thp"              /* host.thp.enabled: the mode in brackets */
#define RK_ENABLED      "enabled"
#define RK_VM_SYSCTL    "vm_sysctl"        /* host.vm_sysctl.NAME: every vm sysctl before the run */
#define RK_FINGERPRINT  "fingerprint"      /* host.fingerprint: what figures depend on (host/fingerprint.h) */

/* scenario (as run, after overrides) */
#define RK_NAME         "name"
#define RK_FILE         "file"
#define RK_TITLE        "title"
#define RK_SOURCE       "source"
#define RK_EXPECT       "expect"
#define RK_REPORT       "report"
#define RK_REQUIRES     "requires"
#define RK_DESTRUCTIVE  "destructive"
#define RK_PARAMS       "params"
#define RK_OVERRIDES    "overrides"
#define RK_MATRIX       "matrix"
#define RK_REPEAT       "repeat"

/* runs[] */
#define RK_LABEL        "label"
#define RK_VARIANT      "variant"
#define RK_SANDBOX      "sandbox"
#define RK_KNOBS        "knobs"
#define RK_KMSG         "kmsg"
#define RK_WORKLOADS    "workloads"
#define RK_STEPS        "steps"
#define RK_SAMPLES      "samples"
#define RK_ACTIONS      "actions"
#define RK_VMSTAT_START "vmstat_start"
#define RK_EXIT         "exit"
#define RK_SUMMARY      "summary"
#define RK_EVENTS       "events"           /* tracepoints, on the samples' clock */
#define RK_TRACE_INTERVALS "trace_intervals"
#define RK_TRACING      "tracing"          /* the document: were tracepoints available */
#define RK_ACTION       "action"           /* actions[]: what the run did */
#define RK_FACTS        "facts"            /* workloads[]: what the workload reported at start */
#define RK_TALLY        "tally"            /* workloads[]: its last counts, written as it was stopped */
#define RK_LOADS        "loads"            /* runs[]: the [load] clients' records */
#define RK_FOREIGN      "foreign"          /* runs[]: the run's directory, user, network namespace */
#define RK_LOAD         "load"             /* steps[]: a load's record (without its output) */
#define RK_METRICS      "metrics"          /* steps[], loads[]: a load's own measure */

/* runs[].sandbox */
#define RK_PATH         "path"
#define RK_MODE         "mode"
#define RK_BASELINE_BYTES "baseline_bytes"
#define RK_MEMORY_MAX_BYTES "memory_max_bytes"
#define RK_MEMORY_HIGH_BYTES "memory_high_bytes"

/* runs[].exit and its workloads[] */
#define RK_OUTCOME      "outcome"
#define RK_VICTIMS      "victims"
#define RK_OOM_KILL_COUNT "oom_kill_count"
#define RK_PID          "pid"
#define RK_PROGRAM      "program"
#define RK_CODE         "code"
#define RK_SIGNAL       "signal"
#define RK_OOM_KILLED   "oom_killed"
#define RK_FATE         "fate"
#define RK_STEPS_DONE   "steps_done"
#define RK_ENDED_MS     "ended_ms"

/* runs[].steps[] */
#define RK_WORKLOAD     "workload"
#define RK_SEQ          "seq"
#define RK_STEP         "step"
#define RK_ARG          "arg"
#define RK_T_MS         "t_ms"
#define RK_COUNTERS     "counters"
#define RK_MEMCG        "memcg"
#define RK_VMSTAT_DELTA "vmstat_delta"
#define RK_SAMPLE       "sample"

/* runs[].samples[] (steps[] carry the same memcg / vmstat_delta) */
#define RK_CAUSE        "cause"            /* why a sample was taken out of the tick: "burst", ... */
#define RK_ZONES        "zones"
#define RK_ZONE         "zone"
#define RK_NODE         "node"
#define RK_MANAGED      "managed"
#define RK_STAT         "stat"             /* memcg.stat */
#define RK_USAGE_BYTES  "usage_bytes"      /* memcg.usage_bytes */
#define RK_RSS_KB       "rss_kb"           /* workloads.NAME.*: smaps_rollup */
#define RK_LAZYFREE_KB  "lazyfree_kb"
#define RK_ANONHUGE_KB  "anonhuge_kb"
#define RK_PSI          "psi"
#define RK_MEMCG_PRESSURE "memcg_pressure"
#define RK_SOME         "some"             /* psi.some, memcg_pressure.some */
#define RK_FULL         "full"
#define RK_AVG10        "avg10"

/* runs[].events[] and runs[].trace_intervals[] */
#define RK_EVENT        "event"
#define RK_TYPE         "type"
#define RK_MS           "ms"               /* trace_intervals[]: the bin's width */
#define RK_DIRECT       "direct"           /* trace_intervals[]: direct reclaim */
#define RK_PAGES        "pages"
#define RK_COUNT        "count"

/* runs[].summary */
#define RK_DURATION_MS  "duration_ms"
#define RK_TRACE        "trace"            /* summary.trace: the tracepoints' summary */
#define RK_OOM_VICTIMS  "oom_victims"       /* also exit.oom_victims (run/victims.c) */

/* runs[].kmsg */
#define RK_OOM_KILLS    "oom_kills"
#define RK_RECORDS      "records"
#define RK_READABLE     "readable"
#define RK_TEXT         "text"
#define RK_T_S          "t_s"              /* oom_kills[]: the kernel's timestamp */
#define RK_COMM         "comm"
#define RK_OOM_SCORE_ADJ "oom_score_adj"
#define RK_SHMEM_RSS_KB "shmem_rss_kb"
#define RK_TASK_MEMCG   "task_memcg"       /* oom_kills[]: the victim's memory cgroup */

#endif
