/* result_keys.h — the key names of the result document (harness/result.md),
 * one place for the writer (result.c, run/run.c, sampler.c) and the readers
 * (report.c).  A key renamed here is renamed for both; a reader that spells a
 * key by hand can drift from what is written. */
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

/* runs[].sandbox */
#define RK_PATH         "path"
#define RK_MODE         "mode"
#define RK_BASELINE_BYTES "baseline_bytes"

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

/* runs[].summary */
#define RK_DURATION_MS  "duration_ms"

/* runs[].kmsg */
#define RK_OOM_KILLS    "oom_kills"

#endif
