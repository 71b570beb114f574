/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source.h — what a sample is made of: data sources behind one interface,
 * listed in ONE table (sources/registry.c).  The sampler only iterates it.
 *
 * A source is one file, harness/sample/sources/NAME.c, defining one
 * `const struct source source_NAME`: its key in a sample, where it exists
 * (the machine, a v1 or v2 sandbox, each workload), its cadence, the files it
 * reads, a pure parser (buffer -> JSON, unit-tested on every captured fixture
 * named `fixture` and fuzzed) and a read (the files -> JSON, with any state it
 * keeps between samples).  Adding a source is that file, one row in the
 * table and a fixture (docs/extending.md, "A source").
 *
 * Cadence is what a read costs, not what it is worth:
 *   SOURCE_TICK  O(1) in the workloads' size (a counters file): read at
 *                every sample, including the periodic tick;
 *   SOURCE_STEP  grows with what the workloads hold (a page-table walk:
 *                smaps_rollup, pagemap) or is bulky: read at each workload
 *                step, at the run's start and end, and every
 *                `[sample] walk_interval_ms` (harness/plan/scenario.md) — never
 *                at a plain tick, so the tick costs what its files cost.
 * A burst sample (the sampler's fast interval near a zone's low line) reads
 * only the sources marked in_bursts, in their slim form.
 */
#ifndef PAGELAB_SOURCE_H
#define PAGELAB_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "base/error.h"
#include "base/fileio.h"
#include "sandbox/sandbox.h"
#include "base/jsonw.h"

struct zoneinfo;

enum source_cadence { SOURCE_TICK = 1, SOURCE_STEP = 2 };
/* Passed to source_set_sample for a burst sample (the sampler's adaptive
 * 10 ms bursts near a zone's low line): only the sources marked in_bursts,
 * in their slim form (ctx->burst). */
#define SOURCE_BURST 4u

/* Where a source exists (bits). */
enum source_where {
	SOURCE_MACHINE = 1 << 0,        /* /proc files of the whole machine */
	SOURCE_CG_V1 = 1 << 1,          /* a file of a cgroup v1 sandbox */
	SOURCE_CG_V2 = 1 << 2,          /* a file of a cgroup v2 sandbox */
	SOURCE_WORKLOAD = 1 << 3,       /* /proc/PID files of each running workload */
};
#define SOURCE_CG (SOURCE_CG_V1 | SOURCE_CG_V2)

#define SOURCE_MAX_PROCS 8
#define SOURCE_TABLE_MAX 16     /* rows of source_table (registry.c), at most */
#define SOURCE_MAX_SEEN 512
#define SOURCE_MAX_HELD 32

/* A workload as the sources see it (filled by the sampler). */
struct source_proc {
	const char *name;               /* the scenario's workload name */
	pid_t pid;
	bool running;                   /* launched and not yet reaped */
	bool command;                   /* a foreign program: its figures are every process of
					 * the sandbox it leads (sources/smaps_rollup.c) */
	unsigned long region_start, region_end;   /* its start event's region, 0 = none */
	size_t page_size;
};

/* What a read may use.  sb is NULL where there is no sandbox (sampler probes). */
struct source_ctx {
	struct sandbox *sb;
	enum cg_version cg;
	size_t nr_procs;
	struct source_proc procs[SOURCE_MAX_PROCS];
	bool burst;                     /* this sample is a burst's: the slim form */
	bool at_step;                   /* this sample is a step's, the start's or the end's
					 * (not a tick's or a walk's): baselines move here */
	struct lab_buf buf;             /* reused by the reads of files not kept open (a
					 * workload's /proc/PID/…): freed by source_set_close */
	void *reading;                  /* the registry's: the source being read, whose
					 * files stay open (source_read) */
	/* The sandbox's processes the per-process source listed at any sample
	 * of the run (sources/smaps_rollup.c), the latest SOURCE_MAX_SEEN: who
	 * a process the kernel later names by pid alone (an OOM victim) was,
	 * once it is gone.  sample is set by the sampler: this sample's index. */
	unsigned sample;
	struct source_seen {
		pid_t pid;
		char comm[16];
		const char *owner;      /* procs[].name of the command it descends from, NULL: none */
		unsigned sample;        /* the last sample that listed it */
	} seen[SOURCE_MAX_SEEN];
	size_t nr_seen, seen_next;
	/* Processes that let go of their memory while a page walk was reading
	 * it (sources/smaps_rollup.c, pagemap.c).  A walk's read holds the
	 * process's mm (fs/proc/task_mmu.c: mmget_not_zero ... mmput), so a
	 * process that exits meanwhile leaves its cgroup with its memory still
	 * charged, and the read's own mmput frees it.  In that time the memcg
	 * OOM killer no longer sees a victim on its way out and may take
	 * another process (docs/findings/observer.md).  Times are CLOCK_MONOTONIC ns:
	 * the read's start and its end. */
	struct source_held {
		pid_t pid;
		char comm[16];
		const char *owner;      /* procs[].name: the workload, or the command it descends from */
		const char *file;       /* "smaps_rollup" or "pagemap" */
		unsigned long long rss_kb;      /* what the read found, 0: not known */
		uint64_t from_ns, to_ns;
	} held[SOURCE_MAX_HELD];
	size_t nr_held;
	unsigned long long walk_skipped;        /* processes not walked: already exiting or SIGKILLed */
	/* A sandbox file found the sandbox removed (source_read_sandbox): the
	 * sampler ends the run, saying this. */
	char sandbox_gone[LAB_ERROR_MSG_MAX];
	/* What the sampler needs of this sample, typed, so it never reads the
	 * sample's text back: set by the sources that read it (memcg, zones),
	 * cleared before each sample. */
	struct source_facts {
		bool have_usage;
		unsigned long long usage_bytes;         /* memcg: memory.current */
		const struct zoneinfo *zones;           /* zones: this sample's /proc/zoneinfo */
		/* memcg: memory.stat's sum that memory.current should equal, read
		 * right after it (v2 anon + file + kernel, v1 rss + cache). */
		bool have_stat_sum;
		unsigned long long stat_sum_bytes;
		/* memcg: this sample's v2 memory.events as read, for the source
		 * that types it (memory_events, .shares = "memcg") to use instead
		 * of reading the file a second time; NULL when memcg did not. */
		const char *events_v2;
	} facts;
};

struct source {
	const char *name;               /* key in samples[] (and the source's name) */
	const char *into;               /* NULL, or an earlier source's key whose object
					 * this one's fields join (peak -> memcg.peak_bytes) */
	const char *shares;             /* NULL, or an earlier source whose read of the same
					 * file this one uses when it made it this sample
					 * (memory_events: memcg's memory.events, facts.events_v2):
					 * then it keeps no descriptor of its own, and its
					 * "sources" line says "read": "shared" */
	unsigned where;                 /* enum source_where bits */
	enum source_cadence cadence;
	bool in_steps;                  /* steps[] carry it too, from their forced sample */
	bool in_bursts;                 /* read in burst samples too (slim when ctx->burst) */
	const char *files;              /* what it reads, blank-separated: "/proc/vmstat";
					 * sandbox files by their v2 name ("memory.stat");
					 * per workload "/proc/PID/smaps_rollup" */
	const char *fixture;            /* tests/fixtures/DIR/<name> its parser reads, blank-
					 * separated alternatives (v1 and v2 spellings), or NULL */
	const char *doc;                /* one line: what it holds (pagelab check, docs) */
	/* Pure: a file's contents (buf[len] == '\0'; binary for pagemap) ->
	 * a new JSON value.  NULL when the source has no single-file parser
	 * (its parsers are tested by their own units: kv, zoneinfo). */
	int (*parse)(const char *buf, size_t len, json_t **out, struct lab_error *err);
	size_t state_size;              /* zeroed state handed to open/read/close */
	/* Optional: called once before the first read (e.g. a baseline).
	 * -ENOENT/-EOPNOTSUPP: not on this host (recorded, never read). */
	int (*open)(struct source_ctx *ctx, void *state, struct lab_error *err);
	/* This sample's value, one of two ways (exactly one is set):
	 * emit     writes it as JSON text at w (sources/jsonw.h) — every tick
	 *          source: a sample is one line, no json_t per key.  A source
	 *          with `into` writes members only ("peak_bytes": N), inside
	 *          the host's object.  Its parse, where it has one, is the same
	 *          writer over a buffer, loaded back (jw_load), so the unit tests
	 *          and fuzzers run the code the tick runs;
	 * read     builds a new json_t (*out, a new reference) — the step
	 *          sources (page walks, buddyinfo): dumped into the line.
	 * An error is recorded in the sample as {"error": msg}, never fatal. */
	int (*emit)(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err);
	int (*read)(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err);
	void (*close)(void *state);
	/* Optional: what open recorded, kept once per run as runs[].<run_key>
	 * (vmstat: the whole file at the start, "vmstat_start"). */
	const char *run_key;
	json_t *(*start)(const void *state);
};

/* The table, in sample order, NULL-terminated (sources/registry.c). */
extern const struct source *const source_table[];

const struct source *source_find(const char *name);
const char *source_cadence_name(enum source_cadence c);

/* The sources of one run, opened. */
struct source_set;

/* Open every source of the table that exists where ctx points (a sandbox of
 * ctx->cg, the machine).  The set keeps ctx by pointer: the caller updates
 * its procs as workloads start and end. */
int source_set_open(struct source_ctx *ctx, struct source_set **out, struct lab_error *err);

/* Write the sources of the given cadences (bits of enum source_cadence, or
 * SOURCE_BURST) as members ("key": value, …) of the object open at w, in
 * table order; ctx->facts says what they read. */
void source_set_emit(struct source_set *set, unsigned cadences, struct jw *w);

/* The same into a json_t object (sampler_probe_once): emitted, loaded, merged. */
void source_set_sample(struct source_set *set, unsigned cadences, json_t *sample);

/* Each opened source's start record (run_key) into run. */
void source_set_record_start(const struct source_set *set, json_t *run);

/* What was opened, for the result: [{name, cadence, files, available, reason,
 * read ("kept" | "reopen"), why}]. */
json_t *source_set_describe(const struct source_set *set);

/* The sources' own audit over the run (harness/result/result.md,
 * summary.audit.sources): per source its samples, read cost (the reads'
 * wall time per sample: p50, p99, max ns), bytes per sample, split
 * snapshots and errors. */
json_t *source_set_audit(const struct source_set *set);
/* Before source_set_audit and source_set_reads: the held histogram adds made. */
void source_set_audit_flush(struct source_set *set);

/* "kept" when every file the machine's and the sandbox's sources read was
 * kept open all run, else "reopen" (the sources line says why); *splits the
 * split snapshots over all of them. */
const char *source_set_read_mode(const struct source_set *set, unsigned long long *splits);

/* All sources' reads of a sample together, over the plain ticks (kind 0),
 * the burst samples (1) or the others — steps, walks, start, end (2):
 * {"samples", "read_ns": {p50, p99, max}}, or NULL when there were none;
 * *p99_us gets the p99 in µs. */
json_t *source_set_reads(const struct source_set *set, int kind, double *p99_us);

void source_set_close(struct source_set *set);

/* memcg.c: the memory.stat fields memcg.stat_sum_bytes adds up on cg
 * ("anon+file+kernel" on v2, "rss+cache" on v1). */
const char *source_memcg_sum_fields(enum cg_version cg);

/* Helpers the sources share. */
json_t *source_kv_json(const struct kv_list *l);
/* {"key": value, …} of a kv list at w. */
void source_kv_emit(struct jw *w, const struct kv_list *l);
/* The same straight from a file's text (kv.h: kv_each_space, or
 * kv_each_colon when colon), with no list: the tick's path.  On an error
 * (kv.h's) the text at w is unfinished: the caller rewinds it. */
int source_kv_emit_text(struct jw *w, const char *buf, bool colon, struct lab_error *err);
/* Its fast path, tried first: the members "KEY":DIGITS of every line in one
 * pass, key and digits copied as printed, when every line is the shape the
 * kernel prints (a key of plain ASCII, one number below 2^63 without a
 * leading zero, " kB" in the colon form) — true.  At the first line that is
 * not, false with w as it was: the strict path then decides (its error, a
 * line it skips, an escape, a number it reads differently).  What it writes
 * is byte for byte what the strict path writes (tests/fuzz/fuzz_parsers.c). */
bool source_kv_json_fast(struct jw *w, const char *buf, size_t len, bool colon);
/* A pure parse's end: the text at w (freed) as *out; -EINVAL if it does not load. */
int source_emitted(struct jw *w, json_t **out, struct lab_error *err);
/* Read a file whole; *text points into a buffer that stays valid until the
 * next read of that same file.  The files of a machine or sandbox source
 * are opened once per run and re-read with pread from 0 (base/kfile.h; a
 * file that cannot be falls back to open/read/close, and the sources line
 * says so); a workload's /proc/PID files are opened at each read.
 * source_read_sandbox: a sandbox file by its canonical v2 name; -ENOENT
 * "sandbox … is gone" when the sandbox was removed (ctx->sandbox_gone set). */
int source_read(struct source_ctx *ctx, const char *path, const char **text, struct lab_error *err);
int source_read_sandbox(struct source_ctx *ctx, const char *v2name, const char **text,
			struct lab_error *err);

/* The page walks' care for a process on its way out (struct source_held).
 * source_pid_dying: /proc/PID/stat says pid is exiting (state Z or X, or
 * PF_EXITING in its flags), or SIGKILL is pending (its signal field: a fatal
 * signal is queued to every thread, kernel/signal.c complete_signal), or it
 * is gone — a walk that starts then would hold its memory past its exit
 * (base/procstat.h parses the line; one it cannot parse is walked).
 * source_let_go: its memory is no longer its own (/proc/PID/statm reads 0:
 * exit_mm ran) or it is gone.  Both read through source_read (ctx->buf;
 * the audit counts them in the walking source's reads). */
bool source_pid_dying(struct source_ctx *ctx, pid_t pid);
bool source_let_go(struct source_ctx *ctx, pid_t pid);
/* A walk's read of pid between from_ns and to_ns (CLOCK_MONOTONIC), when pid
 * let go of its memory by its end: kept in ctx->held (the first
 * SOURCE_MAX_HELD). */
void source_note_held(struct source_ctx *ctx, pid_t pid, const char *comm, const char *owner, const char *file,
		      unsigned long long rss_kb, uint64_t from_ns, uint64_t to_ns);
uint64_t source_mono_ns(void);

#endif
