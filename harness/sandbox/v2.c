/* SPDX-License-Identifier: GPL-2.0-or-later */
/* v2.c — the cgroup v2 backend (internal.h): memory.max, memory.swap.max =
 * 0, memory.oom.group = 1, in <own>/pagelab-<pid>/sandbox-<n>.  The "no
 * internal processes" rule is met by a lab group with a leaf for the
 * harness: <own>/pagelab-<pid>/ctl (harness) beside the sandboxes. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"

/* v2: the lab group <own>/pagelab-<pid> with the harness in its leaf ctl,
 * shared by all sandboxes of this process. */
static struct {
	bool made;
	int nr_live;
	char mount[4096];
	char own[4096];                 /* pagelab's own cgroup (rel) */
	char orig[4096];                /* where the harness was before ctl (rel) */
	char lab[4096];                 /* <own>/pagelab-<pid> (rel) */
	char ctl[4096];                 /* <lab>/ctl (rel) */
	bool own_enabled;               /* we wrote +memory to own's subtree_control */
	bool lab_enabled;
} v2lab;

/* Move the harness itself on v2 by writing cgroup.procs.  Not through
 * libcgroup: 2.0.2's cgroup_attach_task_pid first checks that the PARENT's
 * cgroup.subtree_control lists memory (api.c: cgroupv2_controller_enabled)
 * and answers ECGROUPNOTMOUNTED otherwise; but the lab group's subtree_control
 * can only list memory once the harness has left own for ctl (the
 * no-internal-process rule), so the first move would always fail (measured
 * in the Debian 6.12 and 6.1 guests: "move pid 184 into cgroup
 * /pagelab-184/ctl: no cgroup hierarchy is mounted (libcgroup error 50001)"). */
static int v2_move_self(const char *mount, const char *rel, struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], abs[PATH_MAX + 4096], val[32];

	if (sb_path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	snprintf(path, sizeof(path), "%s/cgroup.procs", abs);
	snprintf(val, sizeof(val), "%d", (int)getpid());
	return lab_write_file(path, val, err);
}

static int subtree_control(const char *mount, const char *rel, const char *op,
			   struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], abs[PATH_MAX + 4096];

	if (sb_path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", abs);
	return lab_write_file(path, op, err);
}

static int subtree_has_memory(const char *mount, const char *rel, struct lab_error *err)
{
	char path[PATH_MAX + 4096 + 32], abs[PATH_MAX + 4096];

	if (sb_path_join(abs, sizeof(abs), mount, rel) < 0)
		return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", abs);
	return sb_file_lists_word(path, "memory", err);
}

/* Undo v2_lab_setup, in reverse: the memory controller off in the lab and in
 * our own cgroup (a cgroup with controllers enabled for its children may not
 * hold processes, Documentation/admin-guide/cgroup-v2.rst "No Internal
 * Process Constraint", so own must be plain again before the harness returns
 * to it), the harness back home, then ctl and the lab group removed. */
static int v2_lab_teardown(struct lab_error *err)
{
	const char *mount = v2lab.mount;
	/* "/" is the hierarchy's real root only outside a cgroup namespace: in a
	 * container's (cgroupns private, Docker's default on v2) "/" is the
	 * container's own cgroup, a non-root one, which the no-internal-process
	 * rule binds.  The real root has no memory.max (mm/memcontrol.c:
	 * CFTYPE_NOT_ON_ROOT); measured in a 6.12 guest under unshare --cgroup. */
	bool own_is_root = strcmp(v2lab.own, "/") == 0 && !sb_file_in(mount, "memory.max");
	struct lab_error e;
	int ret;

	if (!v2lab.made)
		return 0;
	if (v2lab.lab_enabled) {
		ret = subtree_control(mount, v2lab.lab, "-memory", &e);
		if (ret < 0 && ret != -ENOENT)
			return lab_error_set(err, e.code, "tear down lab group %s: %s; pagelab stays "
					     "in %s, remove %s and %s after it exits", v2lab.lab,
					     e.msg, v2lab.ctl, v2lab.ctl, v2lab.lab);
		v2lab.lab_enabled = false;
	}
	if (v2lab.own_enabled && !own_is_root) {
		ret = subtree_control(mount, v2lab.own, "-memory", &e);
		if (ret < 0)
			return lab_error_set(err, e.code, "cannot switch the memory controller off "
					     "again in %s/cgroup.subtree_control (%s); pagelab stays "
					     "in %s, remove %s and %s after it exits", v2lab.own,
					     e.msg, v2lab.ctl, v2lab.ctl, v2lab.lab);
		v2lab.own_enabled = false;
	}
	ret = v2_move_self(mount, v2lab.orig, &e);
	if (ret < 0) {
		if (e.code == EBUSY || e.code == EOPNOTSUPP)
			return lab_error_set(err, e.code, "cannot move pagelab back to %s: cgroup v2's "
					     "no-internal-process rule (%s has controllers enabled "
					     "for its children); pagelab stays in %s, remove %s and "
					     "%s after it exits", v2lab.orig, v2lab.orig, v2lab.ctl,
					     v2lab.ctl, v2lab.lab);
		return lab_error_set(err, e.code, "%s; pagelab stays in %s, remove %s and %s after "
				     "it exits", e.msg, v2lab.ctl, v2lab.ctl, v2lab.lab);
	}
	ret = sb_remove_group(mount, v2lab.ctl, err);
	if (ret == 0)
		ret = sb_remove_group(mount, v2lab.lab, err);
	if (ret < 0)
		return lab_error_prefix(err, "remove lab group");
	/* When own is the root (a pagelab guest's /init), memory stays enabled
	 * in the root's subtree_control: the root may hold processes and
	 * controllers together, and switching it off would take the memory
	 * controller away from every other child of the root. */
	v2lab.own_enabled = false;
	v2lab.made = false;
	return 0;
}

/* Documentation/admin-guide/cgroup-v2.rst: controllers reach a cgroup only
 * through its parent's cgroup.subtree_control, and a non-root cgroup with
 * controllers enabled there may hold no processes.  So the harness first
 * moves into a leaf of its own lab group (<own>/pagelab-<pid>/ctl); then
 * memory is switched on for own's children (own is now empty unless other
 * processes share it) and for the lab's children, and sandboxes are created
 * beside ctl.  Moving the harness into the lab group itself instead makes
 * enabling memory there fail with EBUSY (measured). */
static int v2_lab_setup(const struct cg_host *host, struct lab_error *err)
{
	char abs[PATH_MAX + 4096];
	struct lab_error e;
	int ret;

	memset(&v2lab, 0, sizeof(v2lab));
	snprintf(v2lab.mount, sizeof(v2lab.mount), "%s", host->mount);
	snprintf(v2lab.own, sizeof(v2lab.own), "%s", host->self);
	{
		char name[32];

		snprintf(name, sizeof(name), "pagelab-%d", (int)getpid());
		if (sb_path_join(v2lab.lab, sizeof(v2lab.lab), host->self, name) < 0 ||
		    sb_path_join(v2lab.ctl, sizeof(v2lab.ctl), v2lab.lab, "ctl") < 0)
			return lab_error_set(err, ENAMETOOLONG, "cgroup path too long");
	}
	ret = sandbox_cgroup_of(0, CG_VERSION_V2, v2lab.orig, sizeof(v2lab.orig), err);
	if (ret < 0)
		return ret;

	/* The lab and ctl groups carry no values: plain mkdir.  (libcgroup
	 * 2.0.2's cgroup_create_cgroup for a v2 memory group writes "+memory"
	 * into the subtree_control of every ancestor, which must wait until the
	 * harness has left own.) */
	sb_path_join(abs, sizeof(abs), host->mount, v2lab.lab);
	if (mkdir(abs, 0755) < 0) {
		if (errno == EEXIST)
			return lab_error_set(err, EEXIST, "cgroup %s already exists, left by an "
					     "earlier process with pagelab's pid; remove it by hand",
					     abs);
		return lab_error_errno(err, errno, "create lab group %s", abs);
	}
	v2lab.made = true;
	sb_path_join(abs, sizeof(abs), host->mount, v2lab.ctl);
	if (mkdir(abs, 0755) < 0) {
		ret = lab_error_errno(err, errno, "create %s", abs);
		goto undo;
	}
	ret = v2_move_self(host->mount, v2lab.ctl, err);
	if (ret < 0)
		goto undo;

	ret = subtree_has_memory(host->mount, v2lab.own, err);
	if (ret < 0)
		goto undo;
	if (ret == 0) {
		ret = subtree_control(host->mount, v2lab.own, "+memory", &e);
		if (ret < 0) {
			if (e.code == EBUSY)
				ret = lab_error_set(err, EBUSY, "cannot enable memory for the children "
						    "of %s: other processes share that cgroup with "
						    "pagelab (cgroup v2's no-internal-process rule); "
						    "start pagelab in a cgroup of its own", v2lab.own);
			else
				ret = lab_error_set(err, e.code, "%s", e.msg);
			goto undo;
		}
		v2lab.own_enabled = true;
	}
	ret = subtree_control(host->mount, v2lab.lab, "+memory", err);
	if (ret < 0)
		goto undo;
	v2lab.lab_enabled = true;
	return 0;

undo: {
		struct lab_error e2;

		if (v2_lab_teardown(&e2) < 0)
			sb_error_append(err, "; and undoing failed too: %s", e2.msg);
		memset(&v2lab, 0, sizeof(v2lab));
		return ret;
	}
}

/* ---- the backend ---------------------------------------------------------------- */

static int v2_open(const struct cg_host *host, const struct sandbox_spec *spec, struct sandbox *sb,
		   struct lab_error *err)
{
	char name[64];
	int ret;

	if (!v2lab.made && (ret = v2_lab_setup(host, err)) < 0)
		return ret;
	snprintf(name, sizeof(name), "sandbox-%u", sb_next_sandbox_n());
	ret = sb_group_create(sb, v2lab.lab, name, spec, err);
	if (ret == 0) {
		v2lab.nr_live++;
		return 0;
	}
	if (v2lab.made && v2lab.nr_live == 0) {
		struct lab_error e;

		if (v2_lab_teardown(&e) < 0)
			sb_error_append(err, " (and: %s)", e.msg);
	}
	return ret;
}

/* The group, then the lab group once its last sandbox is gone (moving the
 * harness back to its own cgroup). */
static int v2_close(struct sandbox *sb, struct lab_error *err)
{
	int ret = sb_group_close(sb, err), ret2 = 0;

	if (v2lab.nr_live > 0)
		v2lab.nr_live--;
	if (v2lab.nr_live == 0 && v2lab.made) {
		struct lab_error e;

		ret2 = v2_lab_teardown(&e);
		if (ret2 < 0) {
			if (ret < 0)
				sb_error_append(err, "; and: %s", e.msg);
			else
				lab_error_set(err, e.code, "%s", e.msg);
		}
	}
	return ret < 0 ? ret : ret2;
}

const struct sandbox_ops sandbox_v2_ops = {
	.name = "v2",
	.open = v2_open,
	.attach = sb_group_attach,
	.kill = sb_group_kill,
	.close = v2_close,
};
