/* SPDX-License-Identifier: GPL-2.0-or-later */
/* smaps_rollup.c — source "workloads": each running workload's
 * /proc/PID/smaps_rollup (Rss, Pss, Anonymous, LazyFree, AnonHugePages, Swap,
 * Pss_Shmem, kB).  Reading it walks every page-table entry of the process
 * (fs/proc/task_mmu.c: show_smaps_rollup -> walk_page_vma), ~16 µs per
 * resident MiB here: a step source, never read at a plain tick.
 *
 *   {"<workload>": {"rss_kb", "pss_kb", "anonymous_kb", "lazyfree_kb",
 *                   "anonhuge_kb", "swap_kb", "pss_shmem_kb"}}
 *
 * A command workload (a foreign program: a service that forks, such as
 * postgres) is every process of the sandbox that is not a built-in
 * workload: cgroup.procs, each process given to the command it descends
 * from (its parent chain in /proc/PID/stat; to the only command when there
 * is one, else to "(other)"; under --sandbox self only its descendants,
 * never pagelab), so its figures are the sum over its
 * processes and the processes themselves — the LazyFree scan of the
 * article over the sandbox:
 *
 *   {"<command>": {the keys above summed, "processes": n,
 *                  "lazyfree_processes": n with LazyFree > 0,
 *                  "procs": [{"pid", "comm", "cmdline" (its first 80 bytes,
 *                             printable ASCII: postgres's processes share one
 *                             comm and retitle their cmdline), the keys above}, …]}}
 *
 * Rss summed counts a page every process maps (postgres's shared_buffers)
 * once per process; Pss shares it out, so pss_kb sums to the processes'
 * share.  At most SMAPS_MAX_PROCS processes are read a sample, and listed.
 * Each one listed is also remembered in ctx->seen (pid, comm, command): the
 * kernel may name it by pid alone after it is gone (an OOM victim).
 *
 * The walk holds the process's memory while it reads (mmget_not_zero ...
 * mmput): a process that exits meanwhile is freed by this read, after it
 * left its cgroup, and the memcg OOM killer may take another process then
 * (docs/findings/observer.md).  So a process already exiting or SIGKILLed is
 * not walked (ctx->walk_skipped), and one that let go of its memory by the
 * read's end is noted (ctx->held: exit.walk_held). */
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "base/procstat.h"

#define SMAPS_MAX_PROCS 256
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const char *const keys[] = { "Rss", "Pss", "Anonymous", "LazyFree", "AnonHugePages",
				    "Swap", "Pss_Shmem" };
static const char *const names[] = { "rss_kb", "pss_kb", "anonymous_kb", "lazyfree_kb",
				     "anonhuge_kb", "swap_kb", "pss_shmem_kb" };

static json_t *rollup_json(const struct kv_list *l)
{
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned long long v;

		if (kv_get(l, keys[i], &v))
			json_object_set_new(o, names[i], json_integer((json_int_t)v));
	}
	return o;
}

static int rollup_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct kv_list l = { 0 };
	int ret;

	(void)len;
	ret = kv_parse_colon(buf, &l, err);
	if (ret == 0)
		*out = rollup_json(&l);
	kv_free(&l);
	return ret;
}

struct rollup_state {
	struct kv_list kv;
};

/* One process's smaps_rollup into st->kv; 0, or -1 (it exited, or is on
 * its way out: not walked).  The walk holds the process's memory while it
 * reads (show_smaps_rollup: mmget_not_zero ... mmput): a process already
 * exiting or SIGKILLed is not walked, and one that let go of its memory by
 * the read's end is noted (ctx->held; source.h). */
static int read_pid(struct source_ctx *ctx, struct rollup_state *st, pid_t pid, const char *comm, const char *owner)
{
	const char *buf;
	struct lab_error e;
	char path[64];
	unsigned long long rss = 0;
	uint64_t from, to;
	int ret;

	if (source_pid_dying(ctx, pid)) {
		ctx->walk_skipped++;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	kv_reset(&st->kv);
	from = source_mono_ns();
	if (source_read(ctx, path, &buf, &e) < 0)
		return -1;
	to = source_mono_ns();
	ret = kv_parse_colon(buf, &st->kv, &e) < 0 ? -1 : 0;
	if (source_let_go(ctx, pid)) {
		(void)kv_get(&st->kv, "Rss", &rss);
		source_note_held(ctx, pid, comm, owner, "smaps_rollup", rss, from, to);
	}
	return ret;
}

/* The parent of pid (/proc/PID/stat, base/procstat.h), and its comm into
 * comm; 0 when it cannot be read. */
static pid_t parent_of(struct source_ctx *ctx, pid_t pid, char *comm, size_t clen)
{
	struct lab_procstat ps;
	const char *buf;
	struct lab_error e;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (source_read(ctx, path, &buf, &e) < 0 || lab_procstat_parse(buf, ctx->buf.len, &ps, &e) < 0)
		return 0;
	if (comm != NULL && clen > 0) {
		size_t n = strnlen(ps.comm, sizeof(ps.comm));

		n = n < clen - 1 ? n : clen - 1;
		memcpy(comm, ps.comm, n);
		comm[n] = '\0';
	}
	return (pid_t)ps.ppid;
}

/* /proc/PID/cmdline's first bytes as one printable line (NULs as blanks,
 * anything else not printable ASCII as '?'). */
static void cmdline_of(struct source_ctx *ctx, pid_t pid, char *out, size_t len)
{
	const char *buf;
	struct lab_error e;
	char path[64];
	size_t k = 0, n;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (source_read(ctx, path, &buf, &e) < 0)
		return;
	n = ctx->buf.len;
	for (size_t i = 0; i < n && k + 1 < len; i++)
		out[k++] = buf[i] == '\0' ? ' ' : (buf[i] >= 0x20 && buf[i] < 0x7f) ? buf[i] : '?';
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

/* Which command workload pid descends from: its index in ctx->procs, or
 * -1 (then the only command, when there is one). */
static int owner_of(struct source_ctx *ctx, pid_t pid, char *comm, size_t clen, int only)
{
	pid_t p = pid;

	for (int depth = 0; depth < 32 && p > 1; depth++) {
		for (size_t i = 0; i < ctx->nr_procs; i++)
			if (ctx->procs[i].running && ctx->procs[i].command && ctx->procs[i].pid == p)
				return (int)i;
		p = parent_of(ctx, p, depth == 0 ? comm : NULL, clen);
	}
	return only;
}

static bool is_builtin(const struct source_ctx *ctx, pid_t pid)
{
	for (size_t i = 0; i < ctx->nr_procs; i++)
		if (ctx->procs[i].running && !ctx->procs[i].command && ctx->procs[i].pid == pid)
			return true;
	return false;
}

struct tree {
	json_t *procs;
	unsigned long long sum[NKEYS];
	bool have[NKEYS];
	unsigned n, lazy;
};

/* One process into its command's tree: its line and the sums. */
static void tree_add(struct tree *t, const struct kv_list *kv, pid_t pid, const char *comm, const char *cmdline)
{
	json_t *o = rollup_json(kv);
	unsigned long long v;

	for (size_t k = 0; k < NKEYS; k++)
		if (kv_get(kv, keys[k], &v)) {
			t->sum[k] += v;
			t->have[k] = true;
			if (k == 3 && v > 0)
				t->lazy++;
		}
	t->n++;
	json_object_set_new(o, "pid", json_integer(pid));
	json_object_set_new(o, "comm", json_string(comm[0] ? comm : "?"));
	json_object_set_new(o, "cmdline", json_string(cmdline));
	json_array_append_new(t->procs, o);
}

static json_t *tree_json(struct tree *t)
{
	json_t *o = json_object();

	for (size_t k = 0; k < NKEYS; k++)
		if (t->have[k])
			json_object_set_new(o, names[k], json_integer((json_int_t)t->sum[k]));
	json_object_set_new(o, "processes", json_integer(t->n));
	json_object_set_new(o, "lazyfree_processes", json_integer(t->lazy));
	json_object_set_new(o, "procs", t->procs);
	return o;
}

/* pid listed at this sample under owner (NULL: "(other)"): remembered,
 * the oldest forgotten first. */
static void note_seen(struct source_ctx *ctx, pid_t pid, const char *comm, const char *owner)
{
	struct source_seen *s = NULL;

	for (size_t i = 0; i < ctx->nr_seen && s == NULL; i++)
		if (ctx->seen[i].pid == pid)
			s = &ctx->seen[i];
	if (s == NULL && ctx->nr_seen < SOURCE_MAX_SEEN)
		s = &ctx->seen[ctx->nr_seen++];
	if (s == NULL)
		s = &ctx->seen[ctx->seen_next++ % SOURCE_MAX_SEEN];
	s->pid = pid;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
	s->owner = owner;
	s->sample = ctx->sample;
}

/* The command workloads: every process of the sandbox, each to its own. */
static void read_commands(struct source_ctx *ctx, struct rollup_state *st, json_t *out)
{
	struct tree trees[SOURCE_MAX_PROCS + 1];
	pid_t pids[SMAPS_MAX_PROCS];
	struct lab_error e;
	int n, only = -1, ncmd = 0;

	for (size_t i = 0; i < ctx->nr_procs; i++)
		if (ctx->procs[i].running && ctx->procs[i].command) {
			only = (int)i;
			ncmd++;
		}
	if (ncmd == 0 || ctx->sb == NULL || (n = sandbox_procs(ctx->sb, pids, SMAPS_MAX_PROCS, &e)) < 0)
		return;
	/* Two commands: a process of neither is "(other)".  pagelab's own
	 * cgroup as the sandbox (--sandbox self) holds pagelab and whatever
	 * else the container runs: only a command's descendants are its. */
	if (ncmd > 1)
		only = (int)SOURCE_MAX_PROCS;
	if (sandbox_is_self(ctx->sb))
		only = -1;
	memset(trees, 0, sizeof(trees));
	for (int k = 0; k < n && k < SMAPS_MAX_PROCS; k++) {
		char comm[32] = "", cmdline[81];
		int w;

		if (is_builtin(ctx, pids[k]) || pids[k] == getpid())
			continue;
		w = owner_of(ctx, pids[k], comm, sizeof(comm), only);
		if (comm[0] == '\0')
			parent_of(ctx, pids[k], comm, sizeof(comm));
		/* comm may hold any byte: as cmdline, printable ASCII only. */
		for (char *q = comm; *q; q++)
			if (*q < 0x20 || *q >= 0x7f)
				*q = '?';
		cmdline_of(ctx, pids[k], cmdline, sizeof(cmdline));
		if (w < 0 || read_pid(ctx, st, pids[k], comm, w < (int)SOURCE_MAX_PROCS ? ctx->procs[w].name : NULL) < 0)
			continue;       /* it exited meanwhile */
		if (trees[w].procs == NULL)
			trees[w].procs = json_array();
		tree_add(&trees[w], &st->kv, pids[k], comm, cmdline);
		note_seen(ctx, pids[k], comm[0] ? comm : "?", w < (int)SOURCE_MAX_PROCS ? ctx->procs[w].name : NULL);
	}
	for (size_t w = 0; w <= SOURCE_MAX_PROCS; w++)
		if (trees[w].procs != NULL)
			json_object_set_new(out, w < SOURCE_MAX_PROCS ? ctx->procs[w].name : "(other)", tree_json(&trees[w]));
}

static int rollup_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	struct rollup_state *st = state;

	(void)err;
	*out = json_object();
	for (size_t i = 0; i < ctx->nr_procs; i++) {
		const struct source_proc *p = &ctx->procs[i];

		if (!p->running || p->command)
			continue;
		/* A workload that exits meanwhile is simply not in this sample. */
		if (read_pid(ctx, st, p->pid, NULL, p->name) < 0)
			continue;
		json_object_set_new(*out, p->name, rollup_json(&st->kv));
	}
	read_commands(ctx, st, *out);
	return 0;
}

static void rollup_close(void *state)
{
	kv_free(&((struct rollup_state *)state)->kv);
}

const struct source source_smaps_rollup = {
	.name = "workloads",
	.where = SOURCE_WORKLOAD,
	.cadence = SOURCE_STEP,
	.files = "/proc/PID/smaps_rollup cgroup.procs /proc/PID/stat /proc/PID/statm",
	.fixture = "self-smaps-rollup",
	.doc = "each workload's smaps_rollup: rss, pss, anonymous, lazyfree, anonhuge, swap, pss_shmem (kB); "
	       "a command's: every process of the sandbox it leads, summed and each (pid, comm)",
	.parse = rollup_parse,
	.state_size = sizeof(struct rollup_state),
	.read = rollup_read,
	.close = rollup_close,
};
