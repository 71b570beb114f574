/* SPDX-License-Identifier: GPL-2.0-or-later */
/* foreign.c — what a run needs for a scenario's foreign programs (stages.h):
 * the check that it may run them at all, and per variant the run's
 * directory, its network namespace, the loads' own cgroup, made after the
 * sandbox and taken down after its processes (docs/safety.md, "Your own
 * programs"). */
#include "stages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/size.h"
#include "base/trust.h"
#include "launch/command.h"
#include "launch/netns.h"
#include "launch/workdir.h"
#include "result/keys.h"
#include "sandbox/sandbox.h"

/* The programs of variant r: each resolved (installed here), and where the
 * user is root each one root's and not writable by others. */
static enum run_end check_programs(const struct run_spec *r, const struct cmd_user *u, struct lab_error *err)
{
	for (size_t i = 0; i < r->nr_workloads + r->nr_loads; i++) {
		bool wl = i < r->nr_workloads;
		char *const *argv = wl ? r->workloads[i].argv : r->loads[i - r->nr_workloads].argv;
		const char *name = wl ? r->workloads[i].name : r->loads[i - r->nr_workloads].name;
		char path[PATH_MAX];

		if (wl && !r->workloads[i].command)
			continue;
		if (cmd_resolve(argv[0], path, sizeof(path), err) < 0) {
			lab_error_prefix(err, "%s %s", wl ? "workload" : "load", name);
			return RUN_REFUSED_HOST;
		}
		if (u->root && lab_trust_path(path, "a program root runs", LAB_TRUST_FILE, NULL, err) < 0) {
			lab_error_prefix(err, "%s %s (user = root)", wl ? "workload" : "load", name);
			return RUN_REFUSED_INPUT;
		}
	}
	return RUN_ENDED;
}

/* Variant v's loads: each one's metrics table there and valid, and its
 * argv bounded by the tool's own flags. */
static enum run_end check_loads(struct run_ctx *c, size_t v, struct lab_error *err)
{
	const struct run_spec *r = &c->p->specs[v];

	for (size_t k = 0; k < r->nr_loads; k++) {
		const struct run_load *l = &r->loads[k];
		struct metrics_table *t;

		if (!l->in_sandbox && c->o->sandbox_self) {
			lab_error_set(err, EOPNOTSUPP, "load %s: --sandbox self makes no cgroup beside it: "
				      "give it cgroup = sandbox", l->name);
			return RUN_REFUSED_HOST;
		}
		if (l->metrics[0] == '\0')
			continue;
		if (metrics_load(l->metrics, &t, err) < 0) {
			int code = err->code;

			lab_error_prefix(err, "load %s", l->name);
			return code == ENOMEM ? RUN_FAILED : RUN_REFUSED_INPUT;
		}
		c->metrics[v][k] = t;
		if (metrics_check_args(t, l->argv, l->argc, err) < 0) {
			lab_error_prefix(err, "load %s", l->name);
			return RUN_REFUSED_INPUT;
		}
	}
	return RUN_ENDED;
}

enum run_end run_check_foreign(struct run_ctx *c, struct lab_error *err)
{
	bool any = false, netns_checked = false;
	enum run_end e;

	for (size_t v = 0; v < c->p->nv; v++)
		any |= c->p->specs[v].foreign;
	if (!any)
		return RUN_ENDED;
	/* A scenario that runs programs is code: only from a file nobody
	 * but root (or pagelab's user) could have written (base/trust.h). */
	if (lab_trust_path(c->p->path, "scenario file", LAB_TRUST_FILE,
			   " (it runs programs as given: chown root and chmod go-w it and its directories)", err) < 0)
		return RUN_REFUSED_INPUT;
	c->metrics = calloc(c->p->nv, sizeof(*c->metrics));
	if (c->metrics == NULL) {
		lab_error_errno(err, ENOMEM, "metrics tables");
		return RUN_FAILED;
	}
	for (size_t v = 0; v < c->p->nv; v++) {
		const struct run_spec *r = &c->p->specs[v];
		const char *user = NULL;
		struct cmd_user u;

		for (size_t i = 0; i < r->nr_workloads && user == NULL; i++)
			if (r->workloads[i].command)
				user = r->workloads[i].exec.user;
		if (user == NULL && r->nr_loads > 0)
			user = r->loads[0].exec.user;
		if (user == NULL)
			continue;
		if (cmd_user_lookup(user, &u, err) < 0)
			return RUN_REFUSED_HOST;
		if (u.root && !c->o->allow_root_workload) {
			lab_error_set(err, EPERM, "%s (run %s) runs its programs as root (user = %s): that is allowed only "
				      "with --allow-root-workload", c->p->s.name, r->label, user);
			return RUN_REFUSED_HOST;
		}
		if ((e = check_programs(r, &u, err)) != RUN_ENDED || (e = check_loads(c, v, err)) != RUN_ENDED)
			return e;
		if (!netns_checked) {
			int fd, ipc_fd;

			if (netns_create(&fd, &ipc_fd, err) < 0) {
				lab_error_prefix(err, "%s: its programs run in a private network and IPC namespace",
						 c->p->s.name);
				return RUN_REFUSED_HOST;
			}
			close(fd);
			close(ipc_fd);
			netns_checked = true;
		}
	}
	return RUN_ENDED;
}

void run_foreign_free_metrics(struct run_ctx *c)
{
	if (c->metrics == NULL)
		return;
	for (size_t v = 0; v < c->p->nv; v++)
		for (size_t k = 0; k < SCN_MAX_LOADS; k++)
			metrics_free(c->metrics[v][k]);
	free(c->metrics);
	c->metrics = NULL;
}

struct run_foreign {
	struct sampler_foreign sf;
	struct cmd_user user;
	struct workdir dir;
	int netns_fd, ipcns_fd;
};

const struct sampler_foreign *run_foreign_sampler(const struct run_foreign *f)
{
	return f != NULL ? &f->sf : NULL;
}

/* The loads' own cgroup: a sandbox of its own beside the workloads' (a
 * sibling below pagelab's cgroup), limited to the largest memory_max of
 * the loads that use it; NULL when none does. */
static int load_cgroup(struct run_ctx *c, const struct run_spec *r, struct run_foreign *f, struct lab_error *err)
{
	struct sandbox_spec ss = { .values = { { 0 }, 0, 0 } };
	unsigned long long max = 0;

	for (size_t k = 0; k < r->nr_loads; k++)
		if (!r->loads[k].in_sandbox && r->loads[k].memory_max > max)
			max = r->loads[k].memory_max;
	if (max == 0)
		return 0;
	ss.values.val[SB_MEMORY_MAX] = max;
	ss.values.apply = ss.values.given = 1u << SB_MEMORY_MAX;
	ss.values.apply |= 1u << SB_SWAP_MAX;   /* 0: no swap for it either */
	if (sandbox_create(&c->host.cg, &ss, &f->sf.load_cg, err) < 0)
		return lab_error_prefix(err, "the loads' own cgroup");
	return 0;
}

int run_foreign_up(struct run_ctx *c, const struct run_spec *r, size_t v, json_t *run, struct run_foreign **out,
		   struct lab_error *err)
{
	struct run_foreign *f;
	const char *user = NULL;
	int ret;

	*out = NULL;
	if (!r->foreign)
		return 0;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return lab_error_errno(err, ENOMEM, "foreign programs");
	f->netns_fd = f->ipcns_fd = -1;
	*out = f;
	for (size_t i = 0; i < r->nr_workloads && user == NULL; i++)
		if (r->workloads[i].command)
			user = r->workloads[i].exec.user;
	if (user == NULL)
		user = r->loads[0].exec.user;
	if ((ret = cmd_user_lookup(user, &f->user, err)) < 0 ||
	    (ret = workdir_create(c->run_index, f->user.uid, f->user.gid, &f->dir, err)) < 0 ||
	    (ret = netns_create(&f->netns_fd, &f->ipcns_fd, err)) < 0 || (ret = load_cgroup(c, r, f, err)) < 0)
		return ret;
	f->sf.lf = (struct launch_foreign){ .dir = f->dir.path, .netns_fd = f->netns_fd, .ipcns_fd = f->ipcns_fd,
					    .user = &f->user };
	for (size_t k = 0; k < r->nr_loads; k++)
		f->sf.metrics[k] = c->metrics != NULL ? c->metrics[v][k] : NULL;
	json_object_set_new(run, RK_FOREIGN,
			    json_pack("{s:s, s:{s:s, s:I, s:I}, s:b, s:b, s:s?}", "dir", f->dir.path, "user", "name",
				      f->user.name, "uid", (json_int_t)f->user.uid, "gid", (json_int_t)f->user.gid,
				      "netns", 1, "ipcns", 1, "load_cgroup",
				      f->sf.load_cg ? sandbox_path(f->sf.load_cg) : NULL));
	return 0;
}

int run_foreign_down(struct run_foreign *f, struct lab_error *err)
{
	struct lab_error e;
	int ret = 0;

	if (f == NULL)
		return 0;
	if (f->sf.load_cg != NULL && sandbox_destroy(f->sf.load_cg, &e) < 0) {
		*err = e;
		lab_error_prefix(err, "removing the loads' cgroup");
		ret = -EIO;
	}
	if (workdir_remove(&f->dir, &e) < 0 && ret == 0) {
		*err = e;
		lab_error_prefix(err, "removing the run's directory %s", f->dir.top);
		ret = -EIO;
	}
	/* The IPC namespace goes with its last reference: whatever System V
	 * objects the run's programs left go with it (netns.h). */
	if (f->netns_fd >= 0)
		close(f->netns_fd);
	if (f->ipcns_fd >= 0)
		close(f->ipcns_fd);
	free(f);
	return ret;
}
