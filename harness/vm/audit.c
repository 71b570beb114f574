/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.c — `pagelab vm [vm options] audit [audit options] [--then [audit
 * options]]...` (vm.h: vm_audit_target): `pagelab audit` inside each guest
 * (and on this host with --host), for the watermark arithmetic of a machine
 * shape this host is not: another architecture, more or less memory, NUMA
 * nodes.  Each "--then" starts another audit in the same guest, one after
 * the other (a state: e.g. `--with thp=never`, which the guest's own journal
 * sets and puts back before the next), so one boot audits several settings.
 * The audit options go to the guest's audit as they are (it checks them: its
 * exit 2 comes back).  Each target writes OUT-DIR/audit-STAMP-LABEL.json with
 * --json (schema pagelab.vm-audit/1: "states": [{"args", "exit", "audit":
 * the audit's own document}], and the `vm` object a run's result carries),
 * else .txt; a guest's console log is kept beside.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/size.h"

#define VM_AUDIT_SLACK_S 900            /* as guest.c's VM_RUN_SLACK_S */

/* A word single-quoted for sh, appended at *off. */
static int sh_quote(char *buf, size_t len, size_t *off, const char *w)
{
	if (*off + 3 >= len)
		return -ENAMETOOLONG;
	buf[(*off)++] = '\'';
	for (; *w; w++) {
		if (*w == '\'') {
			if (*off + 5 >= len)
				return -ENAMETOOLONG;
			memcpy(buf + *off, "'\\''", 4);
			*off += 4;
		} else {
			if (*off + 2 >= len)
				return -ENAMETOOLONG;
			buf[(*off)++] = *w;
		}
	}
	buf[(*off)++] = '\'';
	buf[*off] = '\0';
	return 0;
}

/* The guest's script: one audit per state, each into /out/files/audit-N.out
 * with its status in audit-N.rc; the script's status is the first non-zero. */
static int audit_script(struct vm_audit_states *st)
{
	char *buf = st->script;
	size_t len = sizeof(st->script), off;
	int n;

	n = snprintf(buf, len, "status=0\n");
	off = (size_t)n;
	for (size_t i = 0; i < st->n; i++) {
		if (off + 32 >= len)
			return -ENAMETOOLONG;
		memcpy(buf + off, "pagelab audit", 13);
		off += 13;
		for (int k = 0; k < st->len[i]; k++) {
			buf[off++] = ' ';
			if (sh_quote(buf, len, &off, st->argv[st->start[i] + k]) < 0)
				return -ENAMETOOLONG;
		}
		n = snprintf(buf + off, len - off,
			     " >/out/files/audit-%zu.out; rc=$?; echo $rc >/out/files/audit-%zu.rc; "
			     "[ $status -ne 0 ] || status=$rc\n", i + 1, i + 1);
		if (n < 0 || (size_t)n >= len - off)
			return -ENAMETOOLONG;
		off += (size_t)n;
	}
	n = snprintf(buf + off, len - off, "exit $status\n");
	return n < 0 || (size_t)n >= len - off ? -ENAMETOOLONG : 0;
}

int vm_audit_states_parse(int argc, char *const *argv, struct vm_audit_states *st, struct lab_error *err)
{
	memset(st, 0, sizeof(*st));
	st->argv = argv;
	if (argc > VM_MAX_ARGS)
		return lab_error_set(err, EINVAL, "audit: too many options");
	st->n = 1;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--then") == 0) {
			if (st->n == VM_AUDIT_MAX_STATES)
				return lab_error_set(err, EINVAL, "audit: at most %d states (--then)", VM_AUDIT_MAX_STATES);
			st->start[st->n++] = i + 1;
			continue;
		}
		st->len[st->n - 1]++;
		if (strcmp(argv[i], "--json") == 0)
			st->json = true;
		if (strcmp(argv[i], "--watch") == 0 || strcmp(argv[i], "--advice") == 0)
			return lab_error_set(err, EINVAL, "audit: %s is for this host's own audit (pagelab audit)",
					     argv[i]);
	}
	for (size_t i = 0; st->json && i < st->n; i++) {
		bool has = false;

		for (int k = 0; k < st->len[i]; k++)
			has = has || strcmp(argv[st->start[i] + k], "--json") == 0;
		if (!has)
			return lab_error_set(err, EINVAL, "audit: --json in one state needs --json in every state");
	}
	if (audit_script(st) < 0)
		return lab_error_set(err, EINVAL, "audit: the options are too long");
	return 0;
}

/* ---- the document -------------------------------------------------------------------- */

/* Every state's audit, parsed; *ok false when one printed no JSON object. */
static json_t *states_doc(const struct vm_job *j, const struct vm_audit_states *st, const char *files,
			  const char *label, bool *ok)
{
	json_t *doc = json_object(), *states = json_array();

	*ok = true;
	json_object_set_new(doc, "schema", json_string("pagelab.vm-audit/1"));
	json_object_set_new(doc, "target", json_string(label));
	for (size_t i = 0; i < st->n; i++) {
		char path[PATH_MAX + 64];
		cleanup_free char *rc = NULL, *text = NULL;
		json_t *one = json_object(), *args = json_array(), *a = NULL;
		json_error_t je;
		struct lab_error e;
		unsigned long long v = 0;
		size_t tlen = 0;

		for (int k = 0; k < st->len[i]; k++)
			json_array_append_new(args, json_string(st->argv[st->start[i] + k]));
		json_object_set_new(one, "args", args);
		vm_pathf(path, sizeof(path), "%s/audit-%zu.rc", files, i + 1);
		if (lab_read_input(path, "guest file", VM_KV_MAX, LAB_INPUT_NOFOLLOW, &rc, NULL, &e) == 0) {
			rc[strcspn(rc, "\n")] = '\0';
			lab_parse_uint(rc, &v, &e);
		} else {
			v = VM_CHILD_HARNESS;
		}
		json_object_set_new(one, "exit", json_integer((json_int_t)v));
		vm_pathf(path, sizeof(path), "%s/audit-%zu.out", files, i + 1);
		if (lab_read_input(path, "audit", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, &tlen, &e) < 0)
			snprintf(je.text, sizeof(je.text), "%.*s", (int)sizeof(je.text) - 1, e.msg);
		else
			a = json_loadb(text, tlen, 0, &je);
		if (a == NULL || !json_is_object(a)) {
			lab_say(j->p, LAB_SAY_PHASE, "%s: state %zu printed no JSON object: %s", label, i + 1,
				a == NULL ? je.text : "not an object");
			json_decref(a);
			a = json_null();
			*ok = false;
		}
		json_object_set_new(one, "audit", a);
		json_array_append_new(states, one);
	}
	json_object_set_new(doc, "states", states);
	return doc;
}

static json_t *audit_vm_object(const struct vm_job *j, const struct vm_target *t, const json_t *vs, json_t *gi,
			       const char *console)
{
	const struct vm_shape *g = &j->g;
	json_t *v = json_object();

	json_object_set_new(v, "kernel_asked", json_string(t->kernel));
	json_object_set_new(v, "package", json_string(vm_kvs(t->kinfo, "package")));
	json_object_set_new(v, "package_version", json_string(vm_kvs(t->kinfo, "version")));
	json_object_set_new(v, "release", json_string(vm_kvs(gi, "uname_r")));
	json_object_set_new(v, "arch", json_string(j->o.arch));
	json_object_set_new(v, "machine", json_string(vm_kvs(gi, "uname_m")));
	json_object_set_new(v, "accel", json_string("tcg"));
	json_object_set_new(v, "mem_bytes", json_integer((json_int_t)((g->mem >> 20) << 20)));
	json_object_set_new(v, "cpus", json_integer(g->cpus));
	json_object_set_new(v, "numa_nodes_asked", json_integer(j->o.numa));
	json_object_set_new(v, "numa_nodes", vm_kv_number(gi, "numa_nodes"));
	json_object_set_new(v, "thp_asked", g->thp[0] ? json_string(g->thp) : json_null());
	json_object_set_new(v, "thp_enabled", json_string(vm_kvs(gi, "thp_enabled")));
	json_object_set_new(v, "cmdline", json_string(vm_kvs(gi, "cmdline")));
	json_object_set_new(v, "boot_wall_s", vm_kv_number(vs, "boot_wall_s"));
	json_object_set_new(v, "command_s", vm_kv_number(vs, "command_s"));
	json_object_set_new(v, "wall_s", vm_kv_number(vs, "wall_s"));
	json_object_set_new(v, "qemu_peak_rss_kb", vm_kv_number(vs, "qemu_peak_rss_kb"));
	json_object_set_new(v, "console_log", json_string(console));
	json_object_set(v, "guest_info", gi);
	return v;
}

/* The states' text, each under a heading line, for OUT.txt. */
static char *states_text(const struct vm_audit_states *st, const char *files, const char *label, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		return NULL;
	for (size_t i = 0; i < st->n; i++) {
		cleanup_free char *text = NULL;
		char path[PATH_MAX + 64];
		struct lab_error e;

		fprintf(f, "== %s, state %zu: pagelab audit", label, i + 1);
		for (int k = 0; k < st->len[i]; k++)
			fprintf(f, " %s", st->argv[st->start[i] + k]);
		fprintf(f, " ==\n");
		vm_pathf(path, sizeof(path), "%s/audit-%zu.out", files, i + 1);
		if (lab_read_input(path, "audit", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, NULL, &e) == 0)
			fputs(text, f);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* OUT.json or OUT.txt from the states' files; the target's outcome stays
 * what the run made it unless this fails. */
static int audit_collect(struct vm_job *j, struct vm_target *t, const struct vm_audit_states *st,
			 const char *files, const json_t *vs, json_t *gi, const char *console)
{
	cleanup_free char *text = NULL;
	struct lab_error e;
	size_t len = 0;

	snprintf(t->result, sizeof(t->result), "%s.%s", t->stem, st->json ? "json" : "txt");
	if (st->json) {
		bool ok;
		json_t *doc = states_doc(j, st, files, t->label, &ok);

		if (t->kernel != NULL)
			json_object_set_new(doc, "vm", audit_vm_object(j, t, vs, gi, console));
		text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		json_decref(doc);
		if (!ok && t->child_status == 0) {
			lab_error_set(&t->err, EIO, "%s: an audit state printed no JSON object (above)", t->label);
			vm_target_fail(t, VM_FAILED, &t->err);
		}
		len = text ? strlen(text) : 0;
	} else {
		text = states_text(st, files, t->label, &len);
	}
	if (text == NULL || lab_write_atomic(t->result, text, len, &e) < 0) {
		lab_error_set(&t->err, EIO, "%s: writing %s: %s", t->label, t->result, text ? e.msg : "out of memory");
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	t->ok = true;
	return t->outcome == VM_RAN ? 0 : -t->err.code;
}

/* ---- the targets -------------------------------------------------------------------- */

/* This host: the same script, this binary's directory first in PATH, run in
 * STEM.files (the script's /out/files/ taken out), removed afterwards. */
static int audit_host(struct vm_job *j, struct vm_target *t, const struct vm_audit_states *st)
{
	char exe[PATH_MAX], dir[PATH_MAX + 80], script[sizeof(st->script) + 2 * PATH_MAX + 128];
	char *sv[] = { "/bin/sh", "-c", script, NULL };
	size_t off = 5;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	json_t *none;
	int rc, ret;

	if (n < 0) {
		lab_error_errno(&t->err, errno, "readlink /proc/self/exe");
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	exe[n] = '\0';
	if (strrchr(exe, '/'))
		*strrchr(exe, '/') = '\0';
	if (vm_pathf(dir, sizeof(dir), "%s.files", t->stem) < 0 || lab_mkdir_p(dir, 0755, &t->err) < 0) {
		lab_error_set(&t->err, EIO, "%s: cannot make %s.files", t->label, t->stem);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	/* PATH='EXE-DIR':"$PATH" \n cd 'DIR' || exit 1 \n the script */
	memcpy(script, "PATH=", 6);
	ret = sh_quote(script, sizeof(script), &off, exe);
	if (ret == 0)
		ret = vm_pathf(script + off, sizeof(script) - off, ":\"$PATH\"\ncd ");
	off = strlen(script);
	if (ret == 0)
		ret = sh_quote(script, sizeof(script), &off, dir);
	if (ret == 0)
		ret = vm_pathf(script + off, sizeof(script) - off, " || exit 1\n%s", st->script);
	if (ret < 0) {
		lab_error_set(&t->err, E2BIG, "%s: the audit script is too long", t->label);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	/* The script names /out/files; on this host the files are in dir. */
	for (char *p; (p = strstr(script, "/out/files/")) != NULL;)
		memmove(p, p + 11, strlen(p + 11) + 1);
	lab_say(j->p, LAB_SAY_PHASE, "%s: pagelab audit on this host (%zu state%s)", t->label, st->n,
		st->n == 1 ? "" : "s");
	if (vm_spawn(sv, NULL, false, 0, &rc, &t->err) < 0)
		return vm_target_fail(t, VM_FAILED, &t->err);
	vm_target_ran(t, rc);
	none = json_object();
	ret = audit_collect(j, t, st, dir, none, none, "");
	json_decref(none);
	vm_rm_tree(dir);
	return ret;
}

static int audit_guest(struct vm_job *j, struct vm_target *t, const struct vm_audit_states *st)
{
	char rundir[PATH_MAX + 64], console[PATH_MAX + 80], vs_path[PATH_MAX + 80], gi_path[PATH_MAX + 80];
	char files[PATH_MAX + 80], src[PATH_MAX + 80], line[512];
	struct vm_argv av = { .argc = 0 };
	struct lab_error e;
	json_t *vs, *gi;
	int rc, ret;

	if (vm_rundir(j, t, rundir, sizeof(rundir), &t->err) < 0)
		return vm_target_fail(t, VM_FAILED, &t->err);
	if (vm_pathf(console, sizeof(console), "%s.console.log", t->stem) < 0 ||
	    vm_pathf(vs_path, sizeof(vs_path), "%s/vm-status", rundir) < 0 ||
	    vm_pathf(gi_path, sizeof(gi_path), "%s/guest-info", rundir) < 0 ||
	    vm_pathf(files, sizeof(files), "%s/files", rundir) < 0 ||
	    vm_pathf(src, sizeof(src), "%s/console.log", rundir) < 0) {
		lab_error_set(&t->err, EIO, "path too long: %s", rundir);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	vm_guest_boot_args(j, t, rundir, false, &av);
	vm_argv_add(&av, "--");
	vm_argv_add(&av, "env");
	vm_argv_add(&av, "PAGELAB_GUEST=1");
	vm_argv_add(&av, "sh");
	vm_argv_add(&av, "-c");
	vm_argv_add(&av, st->script);
	vm_boot_line(j, &av, false, line, sizeof(line));
	lab_say(j->p, LAB_SAY_PHASE, "%s: %s for %zu audit state%s, timeout %u s", t->label, line, st->n,
		st->n == 1 ? "" : "s", j->o.timeout_s);
	if (vm_spawn(av.argv, NULL, false, 2 * j->o.timeout_s + VM_AUDIT_SLACK_S, &rc, &t->err) < 0) {
		lab_error_prefix(&t->err, "%s", t->label);
		return vm_target_fail(t, VM_FAILED, &t->err);
	}
	vs = vm_kv_file(vs_path);
	gi = vm_kv_file(gi_path);
	if (access(src, R_OK) == 0 && vm_copy_file(src, console, &e) < 0)
		lab_say(j->p, LAB_SAY_WARN, "keeping the console log: %s", e.msg);
	if (strcmp(vm_kvs(vs, "status"), "ok") != 0) {
		ret = vm_guest_failure(t, vs, rc, console);
	} else {
		vm_target_ran(t, rc);
		ret = audit_collect(j, t, st, files, vs, gi, console);
		if (t->ok)
			lab_say(j->p, LAB_SAY_PHASE, "%s: audit exited %d (%s), boot %s s, %s s in all; console %s",
				t->label, rc, vm_kvs(gi, "uname_r"), vm_kvs(vs, "boot_wall_s"), vm_kvs(vs, "wall_s"),
				console);
	}
	vm_rundir_done(t, rundir, t->outcome == VM_RAN && t->child_status == 0);
	json_decref(vs);
	json_decref(gi);
	return ret;
}

int vm_audit_target(struct vm_job *j, size_t i, const struct vm_audit_states *st)
{
	struct vm_target *t = &j->t[i];

	lab_error_clear(&t->err);
	return t->kernel == NULL ? audit_host(j, t, st) : audit_guest(j, t, st);
}
