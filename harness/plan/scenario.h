/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scenario.h — named scenario files: parsed, typed and validated in full
 * before anything on the host is touched.  The format is documented in
 * harness/plan/scenario.md.  Pure: text in, structs out (the caller reads
 * the file and passes MemTotal for the limit check).  parse.c reads the
 * text, instantiate.c makes one variant of it, typecheck.c types its values
 * (scn.h). */
#ifndef PAGELAB_SCENARIO_H
#define PAGELAB_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "launch/command.h"
#include "launch/ready.h"
#include "sandbox/settings.h"

#define SCN_MAX_PARAMS 32
#define SCN_MAX_MATRIX 4
#define SCN_MAX_VALUES 8
#define SCN_MAX_WORKLOADS 4
#define SCN_MAX_KEYS 12
#define SCN_MAX_ACTIONS 4
#define SCN_MAX_ARGS 48
#define SCN_MAX_REPORT 4
#define SCN_MAX_KNOBS 12
#define SCN_MAX_LOADS 4
/* ${dir} in a command's words, its env and its ready path: the run's private
 * directory, known only when the run makes it (launch/workdir.h).  The plan
 * keeps this byte in its place (a scenario line cannot hold a control
 * character) and the launch puts the directory's path there. */
#define SCN_DIR_MARK LAUNCH_DIR_MARK
#define SCN_MAX_ENV CMD_MAX_ENV
#define SCN_DEFAULT_USER "pagelab"      /* scripts/setup creates it */
#define SCN_WALK_INTERVAL_MS 2000       /* [sample] walk_interval_ms default */
#define SCN_FLUSH_MS 1000               /* [sample] flush_ms default */

struct scn_pos {
	int line, col;          /* 1-based; line 0 = from the command line */
};

struct scn_item {               /* one "key = value" as written */
	char *key;
	char *value;
	struct scn_pos key_pos, value_pos;
};

struct scn_param {
	char *name;
	char *value;
	struct scn_pos pos;
	char *set_by;           /* "--set name=value" when overridden, else NULL */
};

struct scn_dim {
	char *name;
	size_t n;
	char *values[SCN_MAX_VALUES];
	struct scn_pos pos;
};

struct scn_section {            /* [workload NAME] or [action NAME] */
	char *name;
	struct scn_pos pos;
	size_t n;
	struct scn_item items[SCN_MAX_KEYS];
};

enum scn_req {
	SCN_REQ_ROOT = 1 << 0,
	SCN_REQ_MEMCG = 1 << 1,
	SCN_REQ_CGROUP_V2 = 1 << 2,
	SCN_REQ_THP = 1 << 3,
	SCN_REQ_SWAP = 1 << 4,
	SCN_REQ_LAZYFREE = 1 << 5,
	SCN_REQ_VM = 1 << 6,
};

struct scenario {
	char *file;             /* as given, for messages */
	char *name, *title, *source, *expect;
	size_t nr_report;
	char *report[SCN_MAX_REPORT];
	unsigned requires;      /* enum scn_req bits */
	bool destructive;
	unsigned repeat;
	struct scn_pos repeat_pos;
	size_t nr_params;
	struct scn_param params[SCN_MAX_PARAMS];
	size_t nr_dims;
	struct scn_dim dims[SCN_MAX_MATRIX];
	struct scn_section sandbox;     /* items of [sandbox] */
	struct scn_section vm;          /* items of [vm] (guest shape defaults) */
	struct scn_section knobs;       /* items of [knobs] (machine-wide settings, harness/host/knobdef.h) */
	struct scn_section sample;      /* items of [sample] (sampling cadences) */
	struct scn_section trace;       /* items of [trace] (tracepoints and bursts, harness/sample/trace/) */
	size_t nr_workloads;
	struct scn_section workloads[SCN_MAX_WORKLOADS];
	size_t nr_actions;
	struct scn_section actions[SCN_MAX_ACTIONS];
	size_t nr_loads;
	struct scn_section loads[SCN_MAX_LOADS];        /* [load NAME], in file order */
	char *overrides_text;   /* "region=300M memory_max=640M" for the record */
	/* Set by the caller before scenario_instantiate: the most memory the
	 * machine could ever hold (MemTotal + SwapTotal; a guest's mem + swap),
	 * which bounds every workload size; 0 = not checked.  machine_what says
	 * what it is in messages ("MemTotal + SwapTotal"). */
	unsigned long long machine_bytes;
	const char *machine_what;
};

/* Parse text (the contents of file).  Errors: "FILE:LINE:COL: what". */
int scenario_parse(const char *file, const char *text, struct scenario *out,
		   struct lab_error *err);

/* Apply one --set KEY=VALUE (a parameter, or a matrix dimension, which it
 * collapses to that one value). */
int scenario_override(struct scenario *s, const char *assignment, struct lab_error *err);

void scenario_free(struct scenario *s);

/* Number of variants (product of the matrix dimensions, at least 1). */
size_t scenario_nr_variants(const struct scenario *s);

/* --- one variant, typed ----------------------------------------------------- */

struct run_workload {
	char name[32];
	char program[32];               /* "command" for a foreign program */
	int argc;
	char *argv[SCN_MAX_ARGS];       /* argv[0] = program; sizes in bytes;
					 * a command's words as written */
	int start_after;                /* index of a workload, -1 = at once */
	char start_step[32];            /* its step that releases this one */
	unsigned long long region_bytes;   /* region/hold size, 0 if none */
	/* command = (program "command"): run as given, no event protocol. */
	bool command;
	struct cmd_exec exec;
	struct cmd_ready ready;
	int stop_signal;                /* stop = SIGNAL [GRACE]: default SIGTERM */
	unsigned stop_grace_ms;         /* default 5000; then everything in the sandbox SIGKILLed */
	bool thp_never;                 /* thp = never: PR_SET_THP_DISABLE before exec */
	unsigned hold_ms;               /* kept this long after ready and the loads, then stopped */
};

/* [load NAME]: a client run against the main workload once it is ready, one
 * after another in file order, each a step of the main workload named after
 * the load (harness/plan/scenario.md, "Load"). */
struct run_load {
	char name[32];
	int argc;
	char *argv[SCN_MAX_ARGS];
	struct cmd_exec exec;
	unsigned timeout_ms;            /* hard: then everything of the load SIGKILLed */
	char metrics[64];               /* the metrics table (DATA/metrics/NAME.json), "" = none */
	bool in_sandbox;                /* cgroup = sandbox; default its own cgroup beside it */
	unsigned long long memory_max;  /* its own cgroup's limit */
};

struct run_action {
	char name[32];
	int workload;                   /* index */
	char step[32];                  /* after this step of that workload */
	unsigned long long reclaim_bytes;       /* reclaim = SIZE: write memory.reclaim (v2); 0 = not this kind */
	unsigned long long leave_bytes;         /* leave = SIZE: a ballast outside the sandbox holding
						 * MemFree - SIZE (sample/outside.h); 0 = not this kind */
};

struct run_knob {                       /* one [knobs] entry, typed (harness/host/knobdef.h) */
	char name[64];                  /* the knob's canonical name: "vm.watermark_scale_factor" */
	char text[96];                  /* as written, after ${} substitution: "2G" */
	char value[256];                /* what the journal writes: "2097152" */
};

struct run_trace {                      /* [trace], typed; the command line may override it */
	unsigned set;                   /* trace/tracedef.h groups; the lab's default when not given */
	bool raw;                       /* high-rate records one by one, not only per interval */
	unsigned burst_ms;              /* adaptive bursts' interval, 0 = none (default 10) */
	unsigned burst_margin_pct;      /* of a zone's low-high gap above low (default 50) */
	bool burst_always;              /* burst all the time (scripts/bench-trace) */
	unsigned bin_ms;                /* per-interval histograms (default 1000) */
	unsigned buffer_kb;             /* ring buffer per CPU (default 4096) */
};

struct run_spec {
	char label[8];                  /* "A", "B", … */
	size_t nr_variant;
	char *variant_keys[SCN_MAX_MATRIX];     /* borrowed from the scenario */
	char *variant_values[SCN_MAX_MATRIX];
	size_t nr_params;
	char *param_names[SCN_MAX_PARAMS];      /* borrowed */
	char *param_values[SCN_MAX_PARAMS];     /* owned: the value after the variant */
	struct sandbox_values sandbox;  /* [sandbox], typed by sandbox/settings.c's table */
	size_t nr_workloads;
	struct run_workload workloads[SCN_MAX_WORKLOADS];
	size_t nr_actions;
	struct run_action actions[SCN_MAX_ACTIONS];
	size_t nr_loads;
	struct run_load loads[SCN_MAX_LOADS];
	bool foreign;                   /* a command workload or a load: a private network
					 * namespace and directory, a trusted scenario file */
	size_t nr_knobs;
	struct run_knob knobs[SCN_MAX_KNOBS];
	unsigned walk_interval_ms;      /* [sample]: step sources between steps, 0 = only at steps */
	unsigned flush_ms;              /* [sample]: tick lines held up to this long, 0 = none */
	bool refresh_fold;              /* [sample] refresh = fold: stat_refresh before each burst sample */
	struct run_trace trace;
};

/* Type and check variant v (0-based) of s; memtotal_bytes bounds memory_max
 * (0 = do not check).  Every error names file, line, column and field. */
int scenario_instantiate(const struct scenario *s, size_t v, unsigned long long memtotal_bytes,
			 struct run_spec *out, struct lab_error *err);

/* The lab's default tracepoint set for this variant (tracedef_default_set),
 * with "forks" when a workload is a command. */
unsigned run_spec_default_trace(const struct scenario *s, const struct run_spec *r);

void run_spec_free(struct run_spec *r);

/* "KEY=VALUE KEY=VALUE": the variant's matrix values, for messages and show. */
void run_spec_variant_text(const struct run_spec *r, char *buf, size_t len);

/* The word for display: SCN_DIR_MARK shown as "${dir}" (buf), else the
 * word itself. */
const char *run_word_text(const char *word, char *buf, size_t len);

/* Requirement names <-> bits ("root memcg cgroup-v2 thp swap lazyfree vm"). */
const char *scenario_req_name(unsigned bit);

#endif
