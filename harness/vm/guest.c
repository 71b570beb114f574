/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest.c — one target's `pagelab run` (vm.h: vm_run_target): a guest
 * booted by guest/vm-run, or this host.
 *
 * For a guest: guest/vm-run gets the kernel, the shape, the static build and
 * the scenario (--file), and runs `pagelab run NAME --out
 * /out/files/result.json --no-report [run options]` as the guest's command;
 * it brings /out back (its checks: docs/refusals-vm.md) into its own
 * directory, <cache>/vm/runs/STEM.  What is there is read as untrusted
 * (regular files only, never through a link, bounded); the result document,
 * its stream and the console log land in the output directory, named with
 * the kernel; the run directory is removed once the result is safe, kept
 * when anything failed.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "result/keys.h"

/* guest/vm-run bounds the guest by --timeout, booting at most twice (a
 * panic before /init is retried); this bounds vm-run itself (the initramfs
 * build, a kernel's modules unpacked, both boots). */
#define VM_RUN_SLACK_S 900

int vm_rundir(const struct vm_job *j, const struct vm_target *t, char *buf, size_t len, struct lab_error *err)
{
	const char *b = strrchr(t->stem, '/') ? strrchr(t->stem, '/') + 1 : t->stem;

	if (vm_pathf(buf, len, "%s/vm/runs/%s", j->env.cache, b) < 0)
		return lab_error_set(err, EIO, "path too long under %s", j->env.cache);
	return 0;
}

void vm_guest_boot_args(const struct vm_job *j, const struct vm_target *t, const char *rundir, bool run,
			struct vm_argv *a)
{
	const struct vm_opts *o = &j->o;
	const struct vm_shape *g = &j->g;

	snprintf(a->mem, sizeof(a->mem), "%lluM", g->mem >> 20);
	snprintf(a->cpus, sizeof(a->cpus), "%u", g->cpus);
	snprintf(a->tmo, sizeof(a->tmo), "%u", o->timeout_s);
	snprintf(a->numa, sizeof(a->numa), "%u", o->numa);
	vm_argv_add(a, j->env.vm_run);
	vm_argv_add(a, "--kernel");
	vm_argv_add(a, vm_kvs(t->kinfo, "vmlinuz"));
	vm_argv_add(a, "--mem");
	vm_argv_add(a, a->mem);
	vm_argv_add(a, "--cpus");
	vm_argv_add(a, a->cpus);
	vm_argv_add(a, "--arch");
	vm_argv_add(a, o->arch);
	if (o->numa) {
		vm_argv_add(a, "--numa");
		vm_argv_add(a, a->numa);
	}
	if (g->thp[0]) {
		vm_argv_add(a, "--thp");
		vm_argv_add(a, g->thp);
	}
	if (run && g->swap) {
		snprintf(a->swap, sizeof(a->swap), "%lluK", g->swap >> 10);
		vm_argv_add(a, "--swap");
		vm_argv_add(a, a->swap);
	}
	if (run && g->disk) {
		snprintf(a->disk, sizeof(a->disk), "%lluM", (g->disk + (1ULL << 20) - 1) >> 20);
		vm_argv_add(a, "--disk");
		vm_argv_add(a, a->disk);
	}
	if (run && (g->swap || g->disk) && (o->modules || *vm_kvs(t->kinfo, "modules"))) {
		vm_argv_add(a, "--modules");
		vm_argv_add(a, o->modules ? o->modules : vm_kvs(t->kinfo, "modules"));
	}
	if (g->cmdline[0]) {
		vm_argv_add(a, "--append");
		vm_argv_add(a, g->cmdline);
	}
	vm_argv_add(a, "--timeout");
	vm_argv_add(a, a->tmo);
	vm_argv_add(a, "--out");
	vm_argv_add(a, rundir);
	vm_argv_add(a, "--build");
	vm_argv_add(a, j->env.build);
}

void vm_boot_line(const struct vm_job *j, const struct vm_argv *a, bool run, char *buf, size_t len)
{
	const struct vm_shape *g = &j->g;
	bool swap = run && g->swap, disk = run && g->disk;

	snprintf(buf, len, "booting (%s, %s%s%s, %u cpus%s%s%s%s%s%s)", j->o.arch, a->mem,
		 j->o.numa ? " in nodes: " : "", j->o.numa ? a->numa : "", g->cpus, g->thp[0] ? ", thp " : "",
		 g->thp, swap ? ", swap " : "", swap ? a->swap : "", disk ? ", disk " : "", disk ? a->disk : "");
}

int vm_guest_failure(struct vm_target *t, const json_t *vs, int vm_status, const char *console)
{
	const char *status = vm_kvs(vs, "status");
	char error[LAB_ERROR_MSG_MAX];
	char *cut;

	/* vm-run names its own copy of the console log; ours is the one kept. */
	snprintf(error, sizeof(error), "%s", vm_kvs(vs, "error"));
	cut = strstr(error, " (console: ");
	if (cut != NULL)
		*cut = '\0';
	if (vm_interrupted()) {
		lab_error_set(&t->err, EINTR, "%s: interrupted by %s: the guest was stopped (console: %s)", t->label,
			      strsignal(vm_interrupted()), console);
		return vm_target_fail(t, VM_INTERRUPTED, &t->err);
	}
	if (!strcmp(status, "no-qemu")) {
		lab_error_set(&t->err, ENODEV, "%s: no qemu: %s", t->label, error);
		return vm_target_fail(t, VM_CANNOT, &t->err);
	}
	if (!strcmp(status, "no-kernel")) {
		lab_error_set(&t->err, ENODEV, "%s: kernel impossible to get: %s", t->label, error);
		return vm_target_fail(t, VM_CANNOT, &t->err);
	}
	if (!strcmp(status, "channel-refused"))
		lab_error_set(&t->err, EIO, "%s: the guest's result refused: %s (console: %s)", t->label, error,
			      console);
	else if (!strcmp(status, "panic"))
		lab_error_set(&t->err, EIO, "%s: guest panic: %s (console: %s)", t->label, error, console);
	else if (!strcmp(status, "timeout") || vm_status == 124)
		lab_error_set(&t->err, EIO, "%s: guest timeout: %s (console: %s)", t->label, error, console);
	else if (!strcmp(status, "no-output"))
		lab_error_set(&t->err, EIO, "%s: result missing: %s (console: %s)", t->label, error, console);
	else if (*status != '\0' && strcmp(status, "ok") != 0)
		lab_error_set(&t->err, EIO, "%s: the guest failed (%s): %s (console: %s)", t->label, status, error,
			      console);
	else
		lab_error_set(&t->err, EIO, "%s: guest/vm-run exited %d without a verdict (console: %s)", t->label,
			      vm_status, console);
	return vm_target_fail(t, VM_FAILED, &t->err);
}

/* ---- this host -------------------------------------------------------------------- */

/* `pagelab run` on this host, as a child: the same binary, the very image
 * that is running.  Not the path it was started from: by the time the host
 * target runs (after a kernel fetch, the wait for the static build's lock and
 * the build), a rebuild may have replaced that file — the linker unlinks the
 * old one, /proc/self/exe then reads "…/pagelab (deleted)", and an exec of
 * that name failed with ENOENT.  The forked child's /proc/self/exe is still
 * the image it was forked from, whatever became of its file. */
static int run_host(struct vm_job *j, struct vm_target *t, const struct vm_run_args *a)
{
	struct vm_argv av = { .argc = 0 };
	char out[PATH_MAX + 8];
	int st;

	if (vm_pathf(out, sizeof(out), "%s.json", t->stem) < 0) {
		lab_error_set(&t->err, EIO, "path too long: %s", t->stem);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	vm_argv_add(&av, "/proc/self/exe");
	vm_argv_add(&av, a->command);
	vm_argv_add(&av, a->scn->is_file ? a->scn->path : a->name);
	vm_argv_add(&av, "--out");
	vm_argv_add(&av, out);
	if (strcmp(a->command, "run") == 0)
		vm_argv_add(&av, "--no-report");
	for (int i = 0; i < a->nfwd; i++)
		vm_argv_add(&av, a->fwd[i]);
	if (av.overflow) {
		lab_error_set(&t->err, E2BIG, "too many run options");
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	lab_say(j->p, LAB_SAY_PHASE, "%s: pagelab %s on this host", t->label, a->command);
	if (vm_spawn(av.argv, NULL, false, 0, &st, &t->err) < 0)
		return vm_target_fail(t, VM_FAILED, &t->err);
	vm_target_ran(t, st);
	snprintf(t->result, sizeof(t->result), "%s", out);
	t->ok = access(out, R_OK) == 0 && st != VM_CHILD_USAGE && st != VM_CHILD_CANNOT;
	if (st == VM_CHILD_CANNOT)
		lab_say(j->p, LAB_SAY_PHASE, "--host: this host cannot run the scenario (above); the report shows "
			"the guests only");
	return 0;
}

/* ---- a guest ------------------------------------------------------------------------ */

/* The scenario for the guest (--file), the metrics tables a load's output
 * is read by (--file DATA/metrics:/pagelab-data/metrics), the programs to
 * carry (--carry), and its command: env, pagelab run NAME --out
 * /out/files/result.json --no-report [run options] (or pagelab fit NAME
 * --out … [fit options]). */
struct guest_cmd {
	char file_arg[PATH_MAX + 64];
	char metrics_arg[PATH_MAX + 64];
	char scn[PATH_MAX];
};

static int guest_command(const struct vm_job *j, const struct vm_run_args *a, struct guest_cmd *c,
			 struct vm_argv *av, struct lab_error *err)
{
	const struct vm_scenario *sc = a->scn;

	if (sc->is_file) {
		const char *b = strrchr(sc->path, '/') ? strrchr(sc->path, '/') + 1 : sc->path;

		if (vm_pathf(c->scn, sizeof(c->scn), "/scenario-file/%s", b) < 0 ||
		    vm_pathf(c->file_arg, sizeof(c->file_arg), "%s:%s", sc->path, c->scn) < 0)
			return lab_error_set(err, ENAMETOOLONG, "scenario path too long: %s", sc->path);
	} else if (vm_pathf(c->scn, sizeof(c->scn), "%s", a->name) < 0 ||
		   vm_pathf(c->file_arg, sizeof(c->file_arg), "%s:/scenarios", sc->dir) < 0) {
		return lab_error_set(err, ENAMETOOLONG, "scenario path too long: %s", sc->dir);
	}
	if (vm_pathf(c->metrics_arg, sizeof(c->metrics_arg), "%s/metrics:" VM_GUEST_DATA "/metrics", j->env.src) < 0)
		return lab_error_set(err, ENAMETOOLONG, "data path too long: %s", j->env.src);
	vm_argv_add(av, "--file");
	vm_argv_add(av, c->file_arg);
	vm_argv_add(av, "--file");
	vm_argv_add(av, c->metrics_arg);
	for (size_t i = 0; i < a->ncarry; i++) {
		vm_argv_add(av, "--carry");
		vm_argv_add(av, a->carry[i]);
	}
	for (size_t i = 0; i < j->g.ntrees; i++) {
		vm_argv_add(av, "--tree");
		vm_argv_add(av, j->g.trees[i]);
	}
	vm_argv_add(av, "--");
	/* The guest's init exports PAGELAB_GUEST=1 already; it is said again here
	 * because it is what lets a destructive scenario run (host.c). */
	vm_argv_add(av, "env");
	vm_argv_add(av, "PAGELAB_GUEST=1");
	vm_argv_add(av, "PAGELAB_SCENARIOS=/scenarios");
	vm_argv_add(av, "PAGELAB_WORKLOADS=/bin");
	vm_argv_add(av, "PAGELAB_DATA_DIR=" VM_GUEST_DATA);
	vm_argv_add(av, "pagelab");
	vm_argv_add(av, a->command);
	vm_argv_add(av, c->scn);
	vm_argv_add(av, "--out");
	vm_argv_add(av, VM_GUEST_RESULT);
	if (strcmp(a->command, "run") == 0)
		vm_argv_add(av, "--no-report");
	for (int i = 0; i < a->nfwd; i++)
		vm_argv_add(av, a->fwd[i]);
	if (av->overflow)
		return lab_error_set(err, E2BIG, "too many run options");
	return 0;
}

/* What the guest was: recorded in the result document itself, so a column
 * of the report can be traced to its machine and kernel. */
static json_t *run_vm_object(const struct vm_job *j, const struct vm_target *t, const json_t *vs, json_t *gi,
			     int st, const char *console)
{
	const struct vm_shape *g = &j->g;
	json_t *v = json_object();

	json_object_set_new(v, "kernel_asked", json_string(t->kernel));
	json_object_set_new(v, "flavour", json_string(vm_is_series(t->kernel) ? j->o.flavour : "path"));
	json_object_set_new(v, "package", json_string(vm_kvs(t->kinfo, "package")));
	json_object_set_new(v, "package_version", json_string(vm_kvs(t->kinfo, "version")));
	json_object_set_new(v, "metapackage", json_string(vm_kvs(t->kinfo, "metapackage")));
	json_object_set_new(v, "vmlinuz", json_string(vm_kvs(t->kinfo, "vmlinuz")));
	json_object_set_new(v, "release", json_string(vm_kvs(gi, "uname_r")));
	json_object_set_new(v, "qemu", json_string(j->env.qemu));
	json_object_set_new(v, "accel", json_string("tcg"));
	json_object_set_new(v, "arch", json_string(j->o.arch));
	json_object_set_new(v, "machine", json_string(vm_kvs(gi, "uname_m")));
	json_object_set_new(v, "numa_nodes_asked", json_integer(j->o.numa));
	json_object_set_new(v, "numa_nodes", vm_kv_number(gi, "numa_nodes"));
	json_object_set_new(v, "mem_bytes", json_integer((json_int_t)((g->mem >> 20) << 20)));
	json_object_set_new(v, "cpus", json_integer(g->cpus));
	json_object_set_new(v, "thp_asked", g->thp[0] ? json_string(g->thp) : json_null());
	json_object_set_new(v, "thp_enabled", json_string(vm_kvs(gi, "thp_enabled")));
	json_object_set_new(v, "swap_bytes", json_integer((json_int_t)((g->swap >> 10) << 10)));
	json_object_set_new(v, "swap_device", json_string(vm_kvs(gi, "swap_device")));
	json_object_set_new(v, "disk_bytes", json_integer((json_int_t)((g->disk >> 20) << 20)));
	json_object_set_new(v, "disk", json_string(vm_kvs(gi, "disk")));
	json_object_set_new(v, "cmdline", json_string(vm_kvs(gi, "cmdline")));
	json_object_set_new(v, "boot_wall_s", vm_kv_number(vs, "boot_wall_s"));
	json_object_set_new(v, "command_s", vm_kv_number(vs, "command_s"));
	json_object_set_new(v, "wall_s", vm_kv_number(vs, "wall_s"));
	json_object_set_new(v, "qemu_peak_rss_kb", vm_kv_number(vs, "qemu_peak_rss_kb"));
	json_object_set_new(v, "exit_code", json_integer(st));
	json_object_set_new(v, "console_log", json_string(console));
	json_object_set(v, "guest_info", gi);
	return v;
}

/* The guest ran its command (vm-status says ok) and st is the guest
 * pagelab's own status: its document, checked, with the vm object, into
 * STEM.json, its stream into STEM.jsonl. */
static int guest_result(struct vm_job *j, struct vm_target *t, const char *rundir, const json_t *vs, json_t *gi,
			int st, const char *console)
{
	char res[PATH_MAX + 80], stream[PATH_MAX + 80], jl[PATH_MAX + 16], status[32];
	cleanup_free char *text = NULL, *out = NULL;
	struct lab_error e;
	json_t *doc = NULL;
	json_error_t je;
	size_t tlen = 0;

	if (vm_pathf(res, sizeof(res), "%s/files/result.json", rundir) < 0 ||
	    vm_pathf(stream, sizeof(stream), "%s/files/result.jsonl", rundir) < 0 ||
	    vm_pathf(jl, sizeof(jl), "%s.jsonl", t->stem) < 0) {
		lab_error_set(&t->err, EIO, "path too long: %s", rundir);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	if (access(res, F_OK) < 0) {
		if (st == VM_CHILD_USAGE || st == VM_CHILD_CANNOT) {
			/* the guest said why on stderr, streamed above */
			vm_target_ran(t, st);
			lab_error_set(&t->err, st == VM_CHILD_USAGE ? EINVAL : ENODEV, "%s: the guest's pagelab exited %d "
				      "(%s; console: %s)", t->label, st, st == VM_CHILD_USAGE ? "bad input" :
				      "the guest cannot run it", console);
			return 0;
		}
		if (access(stream, F_OK) < 0) {
			lab_error_set(&t->err, EIO, "%s: result missing: the guest's pagelab exited %d and wrote no %s "
				      "(console: %s)", t->label, st, VM_GUEST_RESULT, console);
			return vm_target_fail(t, VM_FAILED, &t->err);
		}
		if (vm_copy_file(stream, jl, &e) < 0)
			lab_say(j->p, LAB_SAY_WARN, "%s", e.msg);
		lab_error_set(&t->err, EIO, "%s: result truncated: the guest's pagelab exited %d and left only its "
			      "stream %s.jsonl, no result document (console: %s)", t->label, st, t->stem, console);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	if (lab_read_input(res, "result", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, &tlen, &e) < 0)
		snprintf(je.text, sizeof(je.text), "%.*s", (int)sizeof(je.text) - 1, e.msg);
	else
		doc = json_loadb(text, tlen, 0, &je);
	if (doc == NULL || !json_is_object(doc) || strcmp(vm_kvs(doc, RK_SCHEMA), RESULT_SCHEMA_ID) != 0) {
		lab_error_set(&t->err, EIO, "%s: result truncated or garbled: %s: %s (console: %s)", t->label, res,
			      doc == NULL ? je.text : "not a pagelab.result/1 document", console);
		json_decref(doc);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	json_object_set_new(doc, "vm", run_vm_object(j, t, vs, gi, st, console));
	snprintf(t->result, sizeof(t->result), "%s.json", t->stem);
	snprintf(status, sizeof(status), "%s", vm_kvs(doc, "status"));
	out = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (out == NULL || lab_write_atomic(t->result, out, strlen(out), &e) < 0) {
		lab_error_set(&t->err, EIO, "%s: writing %s: %s", t->label, t->result, out ? e.msg : "out of memory");
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	if (access(stream, R_OK) == 0 && vm_copy_file(stream, jl, &e) < 0)
		lab_say(j->p, LAB_SAY_WARN, "%s", e.msg);
	t->ok = true;
	vm_target_ran(t, st);
	lab_say(j->p, LAB_SAY_PHASE, "%s: %s (%s), boot %s s, scenario %s s, %s s in all; console %s", t->label,
		status, vm_kvs(gi, "uname_r"), vm_kvs(vs, "boot_wall_s"), vm_kvs(vs, "command_s"),
		vm_kvs(vs, "wall_s"), console);
	return 0;
}

/* guest/vm-run's console log beside the result (console), or a note of why
 * there is none. */
static void keep_console(struct vm_job *j, const char *rundir, char *console, size_t len, bool note)
{
	char src[PATH_MAX + 80];
	struct lab_error e;

	if (vm_pathf(src, sizeof(src), "%s/console.log", rundir) == 0 && access(src, R_OK) == 0) {
		if (vm_copy_file(src, console, &e) < 0)
			lab_say(j->p, LAB_SAY_WARN, "keeping the console log: %s", e.msg);
	} else if (note) {
		vm_pathf(console, len, "(no console log: the guest never booted; see %s)", rundir);
	}
}

static int run_guest(struct vm_job *j, struct vm_target *t, const struct vm_run_args *a)
{
	char rundir[PATH_MAX + 64], console[PATH_MAX + 80], vs_path[PATH_MAX + 80], gi_path[PATH_MAX + 80];
	char line[512];
	struct vm_argv av = { .argc = 0 };
	struct guest_cmd cmd;
	json_t *vs, *gi;
	int st, ret;

	if (vm_rundir(j, t, rundir, sizeof(rundir), &t->err) < 0)
		return vm_target_fail(t, VM_FAILED, &t->err);
	if (vm_pathf(console, sizeof(console), "%s.console.log", t->stem) < 0 ||
	    vm_pathf(vs_path, sizeof(vs_path), "%s/vm-status", rundir) < 0 ||
	    vm_pathf(gi_path, sizeof(gi_path), "%s/guest-info", rundir) < 0) {
		lab_error_set(&t->err, EIO, "path too long: %s", rundir);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	vm_guest_boot_args(j, t, rundir, true, &av);
	if (guest_command(j, a, &cmd, &av, &t->err) < 0)
		return vm_target_fail(t, VM_FAILED, &t->err);
	vm_boot_line(j, &av, true, line, sizeof(line));
	lab_say(j->p, LAB_SAY_PHASE, "%s: %s, timeout %u s", t->label, line, j->o.timeout_s);
	if (vm_spawn(av.argv, NULL, false, 2 * j->o.timeout_s + VM_RUN_SLACK_S, &st, &t->err) < 0) {
		lab_error_prefix(&t->err, "%s", t->label);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	vs = vm_kv_file(vs_path);
	gi = vm_kv_file(gi_path);
	keep_console(j, rundir, console, sizeof(console), true);
	if (strcmp(vm_kvs(vs, "status"), "ok") != 0)
		ret = vm_guest_failure(t, vs, st, console);
	else
		ret = guest_result(j, t, rundir, vs, gi, st, console);
	vm_rundir_done(t, rundir, t->outcome == VM_RAN && t->child_status == 0 && t->ok);
	json_decref(vs);
	json_decref(gi);
	return ret;
}

int vm_run_target(struct vm_job *j, size_t i, const struct vm_run_args *a)
{
	struct vm_target *t = &j->t[i];

	lab_error_clear(&t->err);
	return t->kernel == NULL ? run_host(j, t, a) : run_guest(j, t, a);
}
