/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scenario.c — the scenario's part of VM mode (vm.h): where it is, that what
 * goes into the guest is files only, and the guest's shape.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "base/size.h"
#include "plan/catalog.h"
#include "plan/scenario.h"

/* The scenario tree goes into the guest's initramfs as it is
 * (guest/vm-initramfs --file): an entry that is not a regular file or a
 * directory is refused, naming it — a symbolic link above all, which would
 * put whatever it points at (any file root can read) into an archive that is
 * cached and booted.  0, or -ELOOP / -EINVAL with err set. */
static int tree_plain(const char *dir, int depth, struct lab_error *err)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (depth > 16)
		return lab_error_set(err, ELOOP, "%s: more than 16 directories deep", dir);
	d = opendir(dir);
	if (d == NULL)
		return lab_error_errno(err, errno, "the scenarios directory %s", dir);
	while (ret == 0 && (errno = 0, de = readdir(d)) != NULL) {
		char p[PATH_MAX];
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (vm_pathf(p, sizeof(p), "%s/%s", dir, de->d_name) < 0)
			ret = lab_error_set(err, ENAMETOOLONG, "path too long in %s", dir);
		else if (lstat(p, &st) < 0)
			ret = lab_error_errno(err, errno, "%s", p);
		else if (S_ISLNK(st.st_mode))
			ret = lab_error_set(err, ELOOP, "%s is a symbolic link: pagelab vm copies the scenarios "
					    "into the guest as they are, never through a link (put the file "
					    "itself there)", p);
		else if (S_ISDIR(st.st_mode))
			ret = tree_plain(p, depth + 1, err);
		else if (!S_ISREG(st.st_mode))
			ret = lab_error_set(err, EINVAL, "%s is %s, not a regular file: pagelab vm copies only "
					    "files and directories into the guest", p, lab_file_kind(st.st_mode));
	}
	if (ret == 0 && errno != 0)
		ret = lab_error_errno(err, errno, "reading %s", dir);
	closedir(d);
	return ret;
}

int vm_scenario_locate(const char *arg, struct vm_scenario *sc, struct lab_error *err)
{
	char found[PATH_MAX];
	struct stat st;
	int ret;

	memset(sc, 0, sizeof(*sc));
	sc->is_file = catalog_is_file(arg);
	ret = catalog_find(arg, found, sizeof(found), err);
	if (ret < 0)
		return ret;
	/* The file itself goes into the guest, not what a link names. */
	if (sc->is_file && lstat(found, &st) == 0 && S_ISLNK(st.st_mode))
		return lab_error_set(err, ELOOP, "%s is a symbolic link: pagelab vm copies a scenario file into "
				     "the guest as it is, never through a link (name the file itself)", found);
	/* Absolute paths: the guest's command and the static build need them. */
	if (realpath(found, sc->path) == NULL)
		return lab_error_errno(err, errno, "scenario file %s", found);
	if (sc->is_file)
		return 0;
	ret = catalog_dir(found, sizeof(found), err);
	if (ret < 0)
		return ret;
	if (realpath(found, sc->dir) == NULL)
		return lab_error_errno(err, errno, "the scenarios directory %s", found);
	return tree_plain(sc->dir, 0, err);
}

/* A [vm] value with ${param} substituted from the variant's parameters (the
 * parser has already checked that every reference resolves).  1 when the
 * key is there, 0 when not. */
static int vm_item(const struct scenario *s, const struct run_spec *r, const char *key, char *out, size_t len)
{
	const char *v = NULL;
	size_t o = 0;

	for (size_t i = 0; i < s->vm.n; i++)
		if (strcmp(s->vm.items[i].key, key) == 0)
			v = s->vm.items[i].value;
	if (v == NULL)
		return 0;
	while (*v != '\0' && o + 1 < len) {
		const char *end;

		if (v[0] == '$' && v[1] == '{' && (end = strchr(v, '}')) != NULL) {
			size_t nlen = (size_t)(end - v - 2);

			for (size_t p = 0; p < r->nr_params; p++)
				if (strlen(r->param_names[p]) == nlen && !strncmp(r->param_names[p], v + 2, nlen)) {
					int n = snprintf(out + o, len - o, "%s", r->param_values[p]);

					if (n > 0)
						o += (size_t)n < len - o ? (size_t)n : len - o - 1;
				}
			v = end + 1;
			continue;
		}
		out[o++] = *v++;
	}
	out[o < len ? o : len - 1] = '\0';
	return 1;
}

/* A size from the options (set), else [vm] KEY, else dflt. */
static int shape_size(const struct scenario *s, const struct run_spec *r, const char *path, const char *key,
		      bool set, unsigned long long opt, unsigned long long dflt, unsigned long long *out,
		      struct lab_error *err)
{
	char val[256];
	struct lab_error e;

	*out = set ? opt : dflt;
	if (!set && vm_item(s, r, key, val, sizeof(val)) && lab_parse_size(val, out, &e) < 0)
		return lab_error_set(err, EINVAL, "%s: [vm] %s: %s", path, key, e.msg);
	return 0;
}

/* Absolute, and no component "." or "..". */
static bool plain_abs_path(const char *t)
{
	if (t[0] != '/')
		return false;
	for (const char *c = t; *c != '\0'; c += strcspn(c, "/")) {
		size_t n;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
	}
	return true;
}

/* What a carried tree may hold (guest/vm-initramfs --tree checks the same
 * where it copies): every entry but a link root's, not writable by group
 * or others, readable by all — a file only root may read never goes into
 * an image cached for anyone — and a regular file, a directory or a link;
 * at most 1 GiB in all.  nftw has no argument for its callback: these. */
static const char *tree_bad;
static char tree_bad_path[4096];
static unsigned long long tree_bytes;

static int tree_entry(const char *fpath, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_SL)
		return 0;
	if (flag == FTW_NS || flag == FTW_DNR) {
		tree_bad = "cannot be read";
	} else if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
		tree_bad = "is not a regular file, a directory or a link";
	} else if (st->st_uid != 0 || (st->st_mode & 022) != 0 || (st->st_mode & 004) == 0) {
		tree_bad = "is not root's, is writable by group or others, or is not readable by all";
	} else {
		tree_bytes += (unsigned long long)st->st_blocks * 512;
		return 0;
	}
	snprintf(tree_bad_path, sizeof(tree_bad_path), "%s", fpath);
	return 1;
}

static int tree_check(const char *t, const char *path, struct lab_error *err)
{
	struct stat st;
	char real[PATH_MAX];
	const char *walk = t;

	if (lstat(t, &st) < 0 || (S_ISLNK(st.st_mode) && realpath(t, real) == NULL))
		return lab_error_set(err, EINVAL, "%s: [vm] carry: %s: no such file or directory (or a link to "
				     "nothing)", path, t);
	if (S_ISLNK(st.st_mode)) {
		if (stat(real, &st) < 0 || !S_ISREG(st.st_mode))
			return lab_error_set(err, EINVAL, "%s: [vm] carry: %s: a link to %s, which is not a regular "
					     "file", path, t, real);
		walk = real;
	}
	tree_bad = NULL;
	if (nftw(walk, tree_entry, 16, FTW_PHYS) != 0 && tree_bad == NULL)
		return lab_error_errno(err, errno, "%s: [vm] carry: %s", path, t);
	if (tree_bad != NULL)
		return lab_error_set(err, EINVAL, "%s: [vm] carry: %s: %s %s: not carried", path, t, tree_bad_path,
				     tree_bad);
	return 0;
}

/* [vm] carry = PATH...: absolute, no "." or ".." component, at most
 * VM_MAX_TREES, each what tree_check allows (before anything is built or
 * booted: bad input, exit 2). */
static int shape_trees(const struct scenario *s, const struct run_spec *r, const char *path, struct vm_shape *g,
		       struct lab_error *err)
{
	char val[VM_MAX_TREES * 256], *save = NULL;

	if (!vm_item(s, r, "carry", val, sizeof(val)))
		return 0;
	for (char *t = strtok_r(val, " \t", &save); t != NULL; t = strtok_r(NULL, " \t", &save)) {
		if (!plain_abs_path(t) || strlen(t) >= sizeof(g->trees[0]))
			return lab_error_set(err, EINVAL, "%s: [vm] carry: '%s': expected an absolute path of this host "
					     "without . or .. (under 256 bytes)", path, t);
		if (g->ntrees == VM_MAX_TREES)
			return lab_error_set(err, EINVAL, "%s: [vm] carry: at most %d paths", path, VM_MAX_TREES);
		if (g->ntrees == 0)
			tree_bytes = 0;
		if (tree_check(t, path, err) < 0)
			return -EINVAL;
		snprintf(g->trees[g->ntrees++], sizeof(g->trees[0]), "%s", t);
	}
	if (tree_bytes > (1ull << 30))
		return lab_error_set(err, EINVAL, "%s: [vm] carry: %llu MiB in all, more than the 1024 MiB an "
				     "initramfs takes here", path, tree_bytes >> 20);
	return 0;
}

int vm_shape_for_run(const struct vm_opts *o, const struct scenario *s, const struct run_spec *first,
		     const char *path, const struct lab_progress *p, struct vm_shape *g, struct lab_error *err)
{
	char val[256];
	int ret;

	memset(g, 0, sizeof(*g));
	ret = shape_size(s, first, path, "mem", o->mem != 0, o->mem, VM_DEFAULT_MEM, &g->mem, err);
	if (ret < 0)
		return ret;
	if (g->mem < VM_MIN_MEM)
		return lab_error_set(err, EINVAL, "%s: [vm] mem: a guest needs at least 256M", path);
	if (o->numa && (g->mem >> 20) % o->numa != 0)
		return lab_error_set(err, EINVAL, "--numa %u: the guest's %llu MiB do not split evenly into %u nodes",
				     o->numa, g->mem >> 20, o->numa);
	g->cpus = o->cpus ? o->cpus : VM_DEFAULT_CPUS;
	if (!o->cpus && vm_item(s, first, "cpus", val, sizeof(val))) {
		unsigned long long c;
		struct lab_error e;

		if (lab_parse_uint(val, &c, &e) < 0 || c < 1 || c > 64)
			return lab_error_set(err, EINVAL, "%s: [vm] cpus: expected 1..64, got '%s'", path, val);
		g->cpus = (unsigned)c;
	}
	if (o->thp)
		snprintf(g->thp, sizeof(g->thp), "%s", o->thp);
	else if (vm_item(s, first, "thp", val, sizeof(val)))
		vm_pathf(g->thp, sizeof(g->thp), "%s", val);     /* typed by the parser: a THP mode */
	ret = shape_size(s, first, path, "swap", o->swap_set, o->swap, 0, &g->swap, err);
	if (ret < 0)
		return ret;
	if (g->swap && g->swap < (1ULL << 20))
		return lab_error_set(err, EINVAL, "swap of %llu bytes: at least 1M", g->swap);
	ret = shape_size(s, first, path, "disk", o->disk_set, o->disk, 0, &g->disk, err);
	if (ret < 0)
		return ret;
	/* Without a disk a file lands in the initramfs, whose pages reclaim cannot
	 * drop: a page-cache workload would measure nothing (and say nothing). */
	for (size_t i = 0; g->disk == 0 && i < first->nr_workloads; i++)
		if (strcmp(first->workloads[i].program, "cachefill") == 0) {
			lab_say(p, LAB_SAY_WARN, "workload '%s' fills the page cache, but the guest has no disk "
				"([vm] disk or --disk): its file would be in the initramfs, which reclaim cannot "
				"drop", first->workloads[i].name);
			break;
		}
	snprintf(g->cmdline, sizeof(g->cmdline), "%s", o->cmdline);
	if (!vm_item(s, first, "kernel", g->kernel, sizeof(g->kernel)))
		snprintf(g->kernel, sizeof(g->kernel), "%s", VM_DEFAULT_KERNEL);
	return shape_trees(s, first, path, g, err);
}

int vm_shape_for_audit(const struct vm_opts *o, struct vm_shape *g, struct lab_error *err)
{
	memset(g, 0, sizeof(*g));
	g->mem = o->mem ? o->mem : VM_DEFAULT_MEM;
	g->cpus = o->cpus ? o->cpus : VM_DEFAULT_CPUS;
	if (o->thp)
		snprintf(g->thp, sizeof(g->thp), "%s", o->thp);
	snprintf(g->cmdline, sizeof(g->cmdline), "%s", o->cmdline);
	snprintf(g->kernel, sizeof(g->kernel), "%s", VM_DEFAULT_KERNEL);
	if (o->numa && (g->mem >> 20) % o->numa != 0)
		return lab_error_set(err, EINVAL, "--numa %u: the guest's %llu MiB do not split evenly into %u nodes",
				     o->numa, g->mem >> 20, o->numa);
	return 0;
}
