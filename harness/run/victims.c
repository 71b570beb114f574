/* SPDX-License-Identifier: GPL-2.0-or-later */
/* victims.c — runs[].exit.oom_victims: every process of the sandbox the OOM
 * killer took, whoever started it.  exit.victims names workloads only, so a
 * process a command forked (a postgres backend, a shell's child) left it
 * empty while exit.oom_kill_count said a kill happened.  Here each kill is
 * named where the kernel says it:
 *
 *   - its log's OOM report (runs[].kmsg.oom_kills): pid, comm and the
 *     victim's memory cgroup (mm/memcontrol.c: mem_cgroup_print_oom_context,
 *     ",task_memcg="), which says it was the sandbox's — the log holds every
 *     kill on the machine;
 *   - oom:mark_victim (summary.trace.oom_victims, mm/oom_kill.c:
 *     mark_oom_victim): pid, 6.18's comm, when;
 *   - the sandbox's oom_kill counter, which names nobody: a workload that
 *     died of SIGKILL while it grew is one (launch/lives.c), any kill beyond
 *     those named is listed with pid null.
 *
 * Whose tree a victim was in: a workload's own pid is that workload (a
 * load's, with cgroup = sandbox, that load: "load", workload null); a
 * child a built-in workload's fork step made (counters.child_pid) is that
 * workload's ("fork_step"); a process it said it forked for a step (its
 * "procs" event, exit.workloads[].procs: region's pressure processes) is
 * that workload's ("procs_event"); else, where the run traced the
 * machine's forks (the "forks" group, on by default with a command), the
 * nearest of its ancestors that is a workload ("forks": who forked whom as
 * the kernel recorded it, in or out of a pid namespace); else
 * the command the per-process source gave it to at the last sample that
 * listed it (sources/smaps_rollup.c; the sampler's seen table); else, as
 * that source does, the run's only command (not under --sandbox self).
 *
 * In a pid namespace of the run's own (a container's, `unshare --pid`) the
 * log's pids are the kernel's while the workloads' and the trace's are the
 * run's.  mark_victim's record carries both (summary.trace.oom_victims[]
 * .kernel_pid, learnt from the workloads' trace markers): a logged kill
 * whose pid is a traced victim's kernel_pid is that victim, one entry with
 * the run's pid and kernel_pid beside it.  Without tracing, or for a
 * process no marker names, the log's pid stays as the kernel printed it. */
#include "stages.h"

#include <string.h>
#include <sys/stat.h>

#include "result/keys.h"

/* The run's facts the victims are matched against. */
struct vin {
	json_t *ws;             /* exit.workloads */
	const json_t *traced;   /* summary.trace.oom_victims, or NULL */
	json_t *steps;          /* runs[].steps: a built-in's fork step names its child */
	json_t *loads;          /* runs[].loads: a load with cgroup = sandbox is in it */
	json_t *seen;           /* the sampler's seen table, or NULL */
	const char *only;       /* the run's only command, or NULL */
	bool own_ns;            /* the run is in a pid namespace of its own */
	json_t *out;
};

/* Is task_memcg (as the kernel log printed it, from the hierarchy's root)
 * the sandbox at path (a mounted path)?  The one ends with the other. */
static bool memcg_is_sandbox(const char *path, const char *memcg)
{
	size_t n = path ? strlen(path) : 0, m = memcg ? strlen(memcg) : 0;

	if (n < 2 || m < 2 || memcg[0] != '/' || path[0] != '/')
		return false;
	return m <= n ? strcmp(path + n - m, memcg) == 0 : strcmp(memcg + m - n, path) == 0;
}

static const json_t *workload_of(const struct vin *v, json_int_t pid)
{
	for (size_t i = 0; i < json_array_size(v->ws); i++)
		if (json_integer_value(json_object_get(json_array_get(v->ws, i), RK_PID)) == pid)
			return json_array_get(v->ws, i);
	return NULL;
}

static const json_t *seen_of(const struct vin *v, json_int_t pid)
{
	char k[24];

	snprintf(k, sizeof(k), "%lld", (long long)pid);
	return v->seen != NULL ? json_object_get(v->seen, k) : NULL;
}

static const json_t *load_of(const struct vin *v, json_int_t pid)
{
	/* Only a load in the sandbox: one in its own cgroup is not the sandbox's. */
	for (size_t i = 0; i < json_array_size(v->loads); i++) {
		const json_t *l = json_array_get(v->loads, i);
		const char *cg = json_string_value(json_object_get(l, "cgroup"));

		if (json_integer_value(json_object_get(l, RK_PID)) == pid && cg != NULL && strcmp(cg, "sandbox") == 0)
			return l;
	}
	return NULL;
}

/* The workload whose fork step made pid (region's `fork`: counters.child_pid). */
static const char *forker_of(const struct vin *v, json_int_t pid)
{
	for (size_t i = 0; i < json_array_size(v->steps); i++) {
		const json_t *st = json_array_get(v->steps, i);

		if (json_integer_value(json_object_get(json_object_get(st, RK_COUNTERS), "child_pid")) == pid)
			return json_string_value(json_object_get(st, RK_WORKLOAD));
	}
	return NULL;
}

/* The workload that said it forked pid for a step (its "procs" event:
 * exit.workloads[].procs, region's pressure processes). */
static const char *procs_of(const struct vin *v, json_int_t pid)
{
	for (size_t i = 0; i < json_array_size(v->ws); i++) {
		const json_t *w = json_array_get(v->ws, i), *procs = json_object_get(w, "procs");

		for (size_t k = 0; k < json_array_size(procs); k++)
			if (json_integer_value(json_array_get(procs, k)) == pid)
				return json_string_value(json_object_get(w, RK_NAME));
	}
	return NULL;
}

/* The workload whose process forked pid, as the traced forks say
 * (summary.trace.oom_victims[].ancestors: its parent first; the "forks"
 * trace group, trace.c): the nearest ancestor that is a workload. */
static const char *ancestor_of(const struct vin *v, json_int_t pid)
{
	for (size_t i = 0; i < json_array_size(v->traced); i++) {
		const json_t *t = json_array_get(v->traced, i), *line = json_object_get(t, "ancestors");

		if (json_integer_value(json_object_get(t, RK_PID)) != pid &&
		    json_integer_value(json_object_get(t, "kernel_pid")) != pid)
			continue;
		for (size_t k = 0; k < json_array_size(line); k++) {
			const json_t *a = json_array_get(line, k), *w;

			/* null: a kernel pid no marker mapped (kernel_ancestors has it) */
			if (!json_is_integer(a))
				continue;
			w = workload_of(v, json_integer_value(a));

			if (w != NULL)
				return json_string_value(json_object_get(w, RK_NAME));
		}
	}
	return NULL;
}

static bool known(const struct vin *v, json_int_t pid)
{
	return pid > 0 && (workload_of(v, pid) != NULL || seen_of(v, pid) != NULL || load_of(v, pid) != NULL ||
			   forker_of(v, pid) != NULL || procs_of(v, pid) != NULL);
}

static json_t *entry_of(const struct vin *v, json_int_t pid)
{
	for (size_t i = 0; i < json_array_size(v->out); i++)
		if (json_integer_value(json_object_get(json_array_get(v->out, i), RK_PID)) == pid)
			return json_array_get(v->out, i);
	return NULL;
}

/* Whose tree pid was in: workload, forked, tree_from (and the sample). */
static void tree_of(const struct vin *v, json_int_t pid, json_t *e)
{
	const json_t *w = workload_of(v, pid), *s = seen_of(v, pid), *l = load_of(v, pid);
	const char *owner = NULL, *from = NULL;

	if (l != NULL && w == NULL) {
		/* A load run in the sandbox (cgroup = sandbox): no workload's,
		 * though the per-process source counted it under the command. */
		json_object_set_new(e, RK_WORKLOAD, json_null());
		json_object_set(e, RK_LOAD, json_object_get(l, RK_NAME));
		json_object_set_new(e, "forked", json_false());
		json_object_set_new(e, "tree_from", json_string("load"));
		return;
	}
	if (w != NULL) {
		owner = json_string_value(json_object_get(w, RK_NAME));
		from = "pid";
	} else if ((owner = forker_of(v, pid)) != NULL) {
		from = "fork_step";
	} else if ((owner = procs_of(v, pid)) != NULL) {
		from = "procs_event";
	} else if ((owner = ancestor_of(v, pid)) != NULL) {
		from = "forks";
	} else if (s != NULL && json_is_string(json_object_get(s, RK_WORKLOAD))) {
		owner = json_string_value(json_object_get(s, RK_WORKLOAD));
		from = "sample";
	} else if (v->only != NULL) {
		owner = v->only;
		from = "only_command";
	}
	json_object_set_new(e, RK_WORKLOAD, owner ? json_string(owner) : json_null());
	json_object_set_new(e, "forked", w != NULL ? json_false() : owner ? json_true() : json_null());
	json_object_set_new(e, "tree_from", from ? json_string(from) : json_null());
	if (from != NULL && strcmp(from, "sample") == 0)
		json_object_set(e, RK_SAMPLE, json_object_get(s, RK_SAMPLE));
}

/* A new victim (pid > 0), its comm the kernel's, else the last sample's. */
static json_t *victim_new(const struct vin *v, json_int_t pid, const char *comm)
{
	const json_t *s = seen_of(v, pid);
	json_t *e = json_pack("{s:I}", RK_PID, pid);

	if (comm == NULL && s != NULL)
		comm = json_string_value(json_object_get(s, RK_COMM));
	json_object_set_new(e, RK_COMM, comm ? json_string(comm) : json_null());
	/* In a pid namespace of the run's own, a pid that is none of the run's
	 * (no workload's, no marker's, no sample's) is the kernel's as its log
	 * and the tracepoint print it: said so, not taken for the run's. */
	if (v->own_ns && !known(v, pid))
		json_object_set_new(e, "pid_ns", json_string("kernel"));
	tree_of(v, pid, e);
	json_object_set_new(e, "seen_by", json_array());
	json_array_append_new(v->out, e);
	return e;
}

static void seen_by(json_t *e, const char *what)
{
	json_array_append_new(json_object_get(e, "seen_by"), json_string(what));
}

json_int_t run_victim_pid(const json_t *run, json_int_t kernel_pid)
{
	const json_t *tv = json_object_get(json_object_get(json_object_get(run, RK_SUMMARY), RK_TRACE),
					   RK_OOM_VICTIMS);

	for (size_t k = 0; k < json_array_size(tv); k++) {
		const json_t *t = json_array_get(tv, k);
		json_int_t pid = json_integer_value(json_object_get(t, RK_PID));

		if (pid > 0 && json_integer_value(json_object_get(t, "kernel_pid")) == kernel_pid)
			return pid;
	}
	return kernel_pid;
}

/* The kernel log's kills of the sandbox, in its order. */
static void from_kmsg(struct vin *v, const json_t *run)
{
	const json_t *kills = json_object_get(json_object_get(run, RK_KMSG), RK_OOM_KILLS);
	const char *sp = json_string_value(json_object_get(json_object_get(run, RK_SANDBOX), RK_PATH));

	for (size_t k = 0; k < json_array_size(kills); k++) {
		const json_t *kill = json_array_get(kills, k);
		json_int_t kpid = json_integer_value(json_object_get(kill, RK_PID)), pid;
		json_t *e;

		if (kpid <= 0)
			continue;
		pid = run_victim_pid(run, kpid);
		if (pid == kpid && !known(v, pid) &&
		    !memcg_is_sandbox(sp, json_string_value(json_object_get(kill, RK_TASK_MEMCG))))
			continue;
		if ((e = entry_of(v, pid)) == NULL)
			e = victim_new(v, pid, json_string_value(json_object_get(kill, RK_COMM)));
		if (pid != kpid)
			json_object_set_new(e, "kernel_pid", json_integer(kpid));
		seen_by(e, "kmsg");
	}
}

/* mark_victim's: the time of those named already, and the sandbox's others. */
static void from_trace(struct vin *v, const json_t *run)
{
	const json_t *tv = json_object_get(json_object_get(json_object_get(run, RK_SUMMARY), RK_TRACE),
					   RK_OOM_VICTIMS);

	for (size_t k = 0; k < json_array_size(tv); k++) {
		const json_t *t = json_array_get(tv, k);
		json_int_t pid = json_integer_value(json_object_get(t, RK_PID));
		const char *comm = json_string_value(json_object_get(t, RK_COMM));
		json_t *e = entry_of(v, pid);

		if (pid <= 0 || (e == NULL && !known(v, pid) && !json_is_true(json_object_get(t, "sandbox"))))
			continue;
		if (e == NULL)
			e = victim_new(v, pid, comm);
		else if (comm != NULL && json_is_null(json_object_get(e, RK_COMM)))
			json_object_set_new(e, RK_COMM, json_string(comm));
		json_object_set(e, RK_T_MS, json_object_get(t, RK_T_MS));
		seen_by(e, "trace");
	}
}

/* A victim the kernel marked (mark_victim's time) while pagelab's page walk
 * held the memory of another process that had exited (exit.walk_held: the
 * read's start and end): the OOM killer no longer saw that one on its way
 * out and took this one, so this kill may be the walk's doing
 * (docs/findings/observer.md).  "while_walk_held": who was held. */
static void held_during(struct vin *v, json_t *ex)
{
	const json_t *held = json_object_get(ex, "walk_held");
	json_int_t kills = 0;

	for (size_t i = 0; i < json_array_size(v->out); i++) {
		json_t *e = json_array_get(v->out, i);
		const json_t *t = json_object_get(e, RK_T_MS);
		json_int_t pid = json_integer_value(json_object_get(e, RK_PID));

		if (!json_is_number(t))
			continue;
		for (size_t k = 0; k < json_array_size(held); k++) {
			const json_t *h = json_array_get(held, k);
			double from = json_number_value(json_object_get(h, "from_ms"));
			double to = json_number_value(json_object_get(h, "to_ms"));

			if (json_integer_value(json_object_get(h, RK_PID)) == pid || json_number_value(t) < from ||
			    json_number_value(t) > to)
				continue;
			json_object_set_new(e, "while_walk_held",
					    json_pack("{s:O, s:O, s:O}", RK_PID, json_object_get(h, RK_PID), RK_COMM,
						      json_object_get(h, RK_COMM) ? json_object_get(h, RK_COMM) : json_null(),
						      RK_WORKLOAD, json_object_get(h, RK_WORKLOAD) ? json_object_get(h, RK_WORKLOAD)
												: json_null()));
			kills++;
			break;
		}
	}
	/* A result from before the walks noted holds has no walk_held: none said. */
	if (json_is_array(held))
		json_object_set_new(ex, "walk_held_kills", json_integer(kills));
}

/* Is this process in a pid namespace other than the initial one (a
 * container's, unshare --pid)?  The initial one's inode is fixed
 * (include/linux/proc_ns.h: PROC_PID_INIT_INO). */
static bool pidns_own(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 && st.st_ino != 0xEFFFFFFCu;
}

void run_oom_victims(json_t *run, json_t *seen)
{
	json_t *ex = json_object_get(run, RK_EXIT);
	const json_t *sb = json_object_get(run, RK_SANDBOX);
	struct vin v = { .ws = json_object_get(ex, RK_WORKLOADS), .steps = json_object_get(run, RK_STEPS),
			 .traced = json_object_get(json_object_get(json_object_get(run, RK_SUMMARY), RK_TRACE),
						   RK_OOM_VICTIMS),
			 .loads = json_object_get(run, RK_LOADS), .seen = seen, .out = json_array() };
	bool self = json_is_string(json_object_get(sb, RK_MODE)) &&
		    strcmp(json_string_value(json_object_get(sb, RK_MODE)), "self") == 0;
	json_int_t count = json_integer_value(json_object_get(ex, RK_OOM_KILL_COUNT));
	size_t ncmd = 0;

	if (!json_is_object(ex)) {
		json_decref(v.out);
		return;
	}
	for (size_t i = 0; i < json_array_size(v.ws); i++) {
		const json_t *w = json_array_get(v.ws, i);

		if (json_is_string(json_object_get(w, RK_PROGRAM)) &&
		    strcmp(json_string_value(json_object_get(w, RK_PROGRAM)), "command") == 0 && ncmd++ == 0)
			v.only = json_string_value(json_object_get(w, RK_NAME));
	}
	if (ncmd != 1 || self)
		v.only = NULL;
	v.own_ns = pidns_own();
	from_kmsg(&v, run);
	from_trace(&v, run);
	/* The counter's: a workload it says was killed, then any kill unnamed. */
	for (size_t i = 0; i < json_array_size(v.ws); i++) {
		const json_t *w = json_array_get(v.ws, i);
		json_int_t pid = json_integer_value(json_object_get(w, RK_PID));

		if (json_is_true(json_object_get(w, RK_OOM_KILLED)) && pid > 0 && entry_of(&v, pid) == NULL)
			seen_by(victim_new(&v, pid, NULL), "oom_kill_count");
	}
	held_during(&v, ex);
	for (json_int_t k = (json_int_t)json_array_size(v.out); k < count; k++)
		json_array_append_new(v.out, json_pack("{s:n, s:n, s:s?, s:o, s:s?, s:[s]}", RK_PID, RK_COMM, RK_WORKLOAD,
						       v.only, "forked", v.only ? json_true() : json_null(),
						       "tree_from", v.only ? "only_command" : NULL, "seen_by",
						       "oom_kill_count"));
	json_object_set_new(ex, RK_OOM_VICTIMS, v.out);
}

/* exit.walk_held and the victims marked while_walk_held, said: a kill the
 * walk may have caused is a warning; so is a hold in a run with more than
 * one kill when some were not timed (untraced), since one of them may be. */
static void say_held(const struct lab_progress *prog, int run_index, const json_t *run)
{
	const json_t *ex = json_object_get(run, RK_EXIT), *vs = json_object_get(ex, RK_OOM_VICTIMS);
	const json_t *held = json_object_get(ex, "walk_held");
	bool untimed = false;

	for (size_t i = 0; i < json_array_size(vs); i++) {
		const json_t *e = json_array_get(vs, i), *h = json_object_get(e, "while_walk_held");
		const char *comm = json_string_value(json_object_get(e, RK_COMM));
		const char *hc = json_string_value(json_object_get(h, RK_COMM));
		const char *hw = json_string_value(json_object_get(h, RK_WORKLOAD));

		if (!json_is_number(json_object_get(e, RK_T_MS)))
			untimed = true;
		if (h == NULL)
			continue;
		lab_say(prog, LAB_SAY_WARN,
			"run %d: %s (pid %lld) was OOM-killed while pagelab's page walk held the memory of %s (pid %lld%s%s), "
			"which had exited: the kernel freed that memory only when the walk's read ended, so this kill "
			"may be pagelab's doing (docs/findings/observer.md)",
			run_index + 1, comm ? comm : "?", (long long)json_integer_value(json_object_get(e, RK_PID)),
			hc ? hc : hw ? hw : "?", (long long)json_integer_value(json_object_get(h, RK_PID)),
			hw ? ", " : "", hw ? hw : "");
	}
	if (!untimed || json_array_size(vs) < 2)
		return;
	for (size_t k = 0; k < json_array_size(held); k++) {
		const json_t *h = json_array_get(held, k);
		const char *hc = json_string_value(json_object_get(h, RK_COMM));
		const char *hw = json_string_value(json_object_get(h, RK_WORKLOAD));

		lab_say(prog, LAB_SAY_WARN,
			"run %d: pagelab's page walk held the memory of %s (pid %lld) as it exited, and the run had %zu OOM "
			"kills, not all of them timed (the oom trace group was off): one of them may be pagelab's doing "
			"(docs/findings/observer.md)",
			run_index + 1, hc ? hc : hw ? hw : "?", (long long)json_integer_value(json_object_get(h, RK_PID)),
			json_array_size(vs));
	}
}

void run_say_victims(const struct lab_progress *prog, int run_index, const json_t *run)
{
	const json_t *vs = json_object_get(json_object_get(run, RK_EXIT), RK_OOM_VICTIMS);

	/* A workload's own end is said as it is reaped (the sampler). */
	for (size_t i = 0; i < json_array_size(vs); i++) {
		const json_t *e = json_array_get(vs, i);
		const char *comm = json_string_value(json_object_get(e, RK_COMM));
		const char *w = json_string_value(json_object_get(e, RK_WORKLOAD));
		json_int_t pid = json_integer_value(json_object_get(e, RK_PID));
		const char *pk = json_is_string(json_object_get(e, "pid_ns")) ? "kernel pid" : "pid";

		if (json_is_false(json_object_get(e, "forked")))
			continue;
		if (pid > 0 && w != NULL)
			lab_say(prog, LAB_SAY_PHASE, "run %d: OOM kill: %s (%s %lld) of %s's process tree", run_index + 1,
				comm ? comm : "?", pk, (long long)pid, w);
		else if (pid > 0)
			lab_say(prog, LAB_SAY_PHASE, "run %d: OOM kill: %s (%s %lld), in the sandbox, of no workload known",
				run_index + 1, comm ? comm : "?", pk, (long long)pid);
		else
			lab_say(prog, LAB_SAY_PHASE, "run %d: OOM kill the kernel did not name (the sandbox's counter)%s%s%s",
				run_index + 1, w ? " in " : "", w ? w : "", w ? "'s process tree" : "");
	}
	say_held(prog, run_index, run);
}
