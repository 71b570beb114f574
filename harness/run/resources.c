/* SPDX-License-Identifier: GPL-2.0-or-later */
/* resources.c — the host's resources, checked like its memory before
 * anything changes (docs/refusals-pipeline.md, "The host's resources"):
 * swap, the files a run writes, tracing's ring buffers, hugetlb pages. */
#include "stages.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/size.h"
#include "host/knobs.h"
#include "plan/tracedef.h"

/* Where cachefill makes its file: a scenario cannot move it
 * (workloads/decl/cachefill.c: --dir is for a person running it by hand). */
#define CACHE_DIR "/var/tmp"

/* A file system keeps this much free after the files a run makes there:
 * 5 % of its size, and at least 64 MiB (RUN_FS_MARGIN_*). */
#define RUN_FS_MARGIN_PCT 5
#define RUN_FS_MARGIN_MIN (64ULL << 20)

/* Tracing's ring buffers (kernel/trace/ring_buffer.c: one per online CPU,
 * allocated from unreclaimable kernel memory) may take at most this share
 * of MemTotal: 1/16. */
#define RUN_TRACE_SHARE 16

static const char *size_text(unsigned long long b, char *buf, size_t len)
{
	return lab_format_size(b, buf, len);
}

/* p's parent, in place ("/a/b" -> "/a", "a" -> ".", "/a" -> "/"). */
static void up(char *p)
{
	char *slash = strrchr(p, '/');

	if (slash == NULL)
		strcpy(p, ".");
	else if (slash == p)
		p[1] = '\0';
	else
		*slash = '\0';
}

/* The file system dir is on (or will be: its nearest existing ancestor). */
static int fs_of(const char *dir, char *found, size_t flen, struct statvfs *vfs, dev_t *dev,
		 struct lab_error *err)
{
	char p[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(p, sizeof(p), "%s", dir) >= sizeof(p))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", dir);
	for (;;) {
		if (stat(p, &st) == 0 && statvfs(p, vfs) == 0) {
			*dev = st.st_dev;
			snprintf(found, flen, "%s", p);
			return 0;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return lab_error_errno(err, errno, "statvfs %s", p);
		if (strcmp(p, "/") == 0 || strcmp(p, ".") == 0)
			return lab_error_errno(err, errno, "statvfs %s", dir);
		up(p);
	}
}

/* One variant's files, per file system. */
struct fs_need {
	dev_t dev;
	char where[PATH_MAX];
	struct statvfs vfs;
	unsigned long long bytes;
	char what[512];
};

static int need_add(struct fs_need *n, size_t *nn, size_t max, const char *dir, unsigned long long bytes,
		    const char *what, struct lab_error *err)
{
	struct statvfs vfs;
	char where[PATH_MAX];
	dev_t dev = 0;
	size_t i;
	int ret = fs_of(dir, where, sizeof(where), &vfs, &dev, err);

	if (ret < 0)
		return ret;
	for (i = 0; i < *nn && n[i].dev != dev; i++)
		;
	if (i == *nn) {
		if (*nn == max)
			return 0;
		n[i] = (struct fs_need){ .dev = dev, .vfs = vfs };
		snprintf(n[i].where, sizeof(n[i].where), "%s", where);
		(*nn)++;
	}
	n[i].bytes += bytes;
	{
		size_t off = strlen(n[i].what);

		snprintf(n[i].what + off, sizeof(n[i].what) - off, "%s%.200s", off ? " + " : "", what);
	}
	return 0;
}

/* Swap files (beside the knob journal) and cache files (in CACHE_DIR) of one
 * variant against the free space of their file systems, less the margin.
 * A file system that states no size (ramfs: f_blocks 0) is not checked: its
 * files are memory, which the sizes' own bound already holds. */
static enum run_end fs_check(const struct run_spec *r, const char *name, struct lab_error *err)
{
	struct fs_need need[SCN_MAX_WORKLOADS + 1];
	size_t nn = 0;
	char jdir[PATH_MAX], what[256], a[32];
	int ret;

	snprintf(jdir, sizeof(jdir), "%s", knob_journal_path());
	up(jdir);
	for (size_t k = 0; k < r->nr_knobs; k++) {
		unsigned long long bytes;

		if (strcmp(r->knobs[k].name, "swap") != 0 || strcmp(r->knobs[k].value, "off") == 0)
			continue;
		bytes = strtoull(r->knobs[k].value, NULL, 10);
		snprintf(what, sizeof(what), "a %s swap file in %.160s", size_text(bytes, a, sizeof(a)), jdir);
		if ((ret = need_add(need, &nn, sizeof(need) / sizeof(need[0]), jdir, bytes, what, err)) < 0)
			goto harness;
	}
	for (size_t w = 0; w < r->nr_workloads; w++) {
		const struct run_workload *wl = &r->workloads[w];

		if (strcmp(wl->program, "cachefill") != 0)
			continue;
		snprintf(what, sizeof(what), "%.32s's %s file in %s", wl->name, size_text(wl->region_bytes, a, sizeof(a)),
			 CACHE_DIR);
		if ((ret = need_add(need, &nn, sizeof(need) / sizeof(need[0]), CACHE_DIR, wl->region_bytes, what,
				    err)) < 0)
			goto harness;
	}
	for (size_t i = 0; i < nn; i++) {
		unsigned long long fr = need[i].vfs.f_frsize ? need[i].vfs.f_frsize : need[i].vfs.f_bsize;
		unsigned long long total = (unsigned long long)need[i].vfs.f_blocks * fr;
		unsigned long long avail = (unsigned long long)need[i].vfs.f_bavail * fr;
		unsigned long long margin = total / 100 * RUN_FS_MARGIN_PCT;
		char b[32], c[32], d[32], e[32];

		if (total == 0)
			continue;
		if (margin < RUN_FS_MARGIN_MIN)
			margin = RUN_FS_MARGIN_MIN;
		if (need[i].bytes + margin <= avail && need[i].bytes + margin >= need[i].bytes)
			continue;
		lab_error_set(err, ENOSPC, "%s (run %s): the file system of %s has %s free, too little for %s (%s) "
			      "with the %s pagelab keeps free there (%d %% of its %s, at least %s)", name, r->label,
			      need[i].where, size_text(avail, b, sizeof(b)), need[i].what,
			      size_text(need[i].bytes, a, sizeof(a)), size_text(margin, c, sizeof(c)), RUN_FS_MARGIN_PCT,
			      size_text(total, d, sizeof(d)), size_text(RUN_FS_MARGIN_MIN, e, sizeof(e)));
		return RUN_REFUSED_HOST;
	}
	return RUN_ENDED;
harness:
	lab_error_prefix(err, "%s (run %s)", name, r->label);
	return RUN_FAILED;
}

/* [trace] buffer_kb is per online CPU, and the kernel allocates it whole. */
static enum run_end trace_check(const struct run_spec *r, const struct host_facts *h, const char *name,
				struct lab_error *err)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long bytes, limit = h->memtotal_kb * 1024 / RUN_TRACE_SHARE;
	char a[32], b[32];

	if (r->trace.set == TRACE_SET_NONE || cpus < 1 || h->memtotal_kb == 0)
		return RUN_ENDED;
	if (__builtin_mul_overflow((unsigned long long)r->trace.buffer_kb * 1024, (unsigned long long)cpus, &bytes) ||
	    bytes > limit) {
		lab_error_set(err, E2BIG, "%s (run %s): [trace] buffer_kb = %u per CPU x %ld online CPUs = %s of "
			      "kernel memory nothing can reclaim: more than 1/%d of this machine's MemTotal (%s)",
			      name, r->label, r->trace.buffer_kb, cpus, size_text(bytes, a, sizeof(a)), RUN_TRACE_SHARE,
			      size_text(limit, b, sizeof(b)));
		return RUN_REFUSED_INPUT;
	}
	return RUN_ENDED;
}

/* hugetlb_pages / vm.nr_hugepages: pages of the default huge page size
 * (mm/hugetlb_sysctl.c: hugetlb_sysctl_handler acts on default_hstate), whose
 * size is /proc/meminfo's Hugepagesize (2 MiB on x86-64, 1 GiB with
 * default_hugepagesz=1G, 512 MiB on arm64 with 64K pages), counted in checked
 * arithmetic.  More than MemTotal is refused everywhere; more than a quarter
 * of it on a host needs --allow-destructive (run_check_knobs). */
static enum run_end hugetlb_check(const struct run_knob *k, const struct run_spec *r, const struct host_facts *h,
				  const char *name, unsigned long long *kb_out, struct lab_error *err)
{
	unsigned long long pages = strtoull(k->value, NULL, 10), page_kb = host_meminfo_bytes("Hugepagesize") / 1024;
	char a[32], b[32], c[32];

	if (pages == 0) {
		*kb_out = 0;
		return RUN_ENDED;
	}
	if (page_kb == 0) {
		lab_error_set(err, ENOTSUP, "%s (run %s): %s = %s, but this kernel has no huge pages (no Hugepagesize "
			      "in /proc/meminfo)", name, r->label, k->name, k->text);
		return RUN_REFUSED_HOST;
	}
	if (__builtin_mul_overflow(pages, page_kb, kb_out) || *kb_out > h->memtotal_kb) {
		bool huge = *kb_out > ULLONG_MAX / 1024 || pages > ULLONG_MAX / page_kb;

		lab_error_set(err, E2BIG, "%s (run %s): %s = %s pages of %s is %s: more than this machine's MemTotal "
			      "(%s)", name, r->label, k->name, k->text, size_text(page_kb * 1024, a, sizeof(a)),
			      huge ? "more than 16 EiB" : size_text(*kb_out * 1024, b, sizeof(b)),
			      size_text(h->memtotal_kb * 1024, c, sizeof(c)));
		return RUN_REFUSED_INPUT;
	}
	return RUN_ENDED;
}

/* The per-size THP directories this kernel lists that hold FILE ("enabled"
 * for anon, "shmem_enabled"), "64kB 128kB ... 32768kB" in size order, or
 * "none".  mm/huge_memory.c: hugepage_init_sysfs makes a directory for each
 * order anon or shmem THP allows, so the set follows the page size; an order
 * only shmem takes has no "enabled" (hugepages-32kB on arm64's 16K kernel). */
static int cmp_u64(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

static void thp_sizes(const char *file, char *out, size_t len)
{
	unsigned long long kb[32];
	size_t n = 0, off = 0;
	struct dirent *e;
	DIR *d = opendir("/sys/kernel/mm/transparent_hugepage");

	snprintf(out, len, "none");
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL && n < sizeof(kb) / sizeof(kb[0])) {
		char path[300], *end;
		unsigned long long v;

		if (strncmp(e->d_name, "hugepages-", 10) != 0)
			continue;
		v = strtoull(e->d_name + 10, &end, 10);
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%.64s/%.32s", e->d_name, file);
		if (end != e->d_name + 10 && strcmp(end, "kB") == 0 && access(path, F_OK) == 0)
			kb[n++] = v;
	}
	closedir(d);
	qsort(kb, n, sizeof(kb[0]), cmp_u64);
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%llukB", i ? " " : "", kb[i]);
}

/* The knob's file must be there: MGLRU's without CONFIG_LRU_GEN (the host),
 * an mTHP size before 6.8 (Debian's 6.1) are not, and a run that asks for
 * them is one this host cannot run (exit 3), refused before anything changes. */

static enum run_end knob_file_check(const struct run_knob *k, const struct run_spec *r, const char *name,
				    struct lab_error *err)
{
	const struct knob_def *d = knob_def_find(k->name);
	char sizes[400] = "";

	if (d == NULL || d->path == NULL || access(d->path, F_OK) == 0)
		return RUN_ENDED;
	if (strstr(d->path, "/hugepages-") != NULL) {
		char list[360];

		thp_sizes(strrchr(d->path, '/') + 1, list, sizeof(list));
		snprintf(sizes, sizeof(sizes), " (this kernel lists %s)", list);
	}
	lab_error_set(err, ENOENT, "%s (run %s): %s = %s, but %s is absent: %s%s", name, r->label, k->name, k->text,
		      d->path, knob_def_absent_why(d), sizes);
	return RUN_REFUSED_HOST;
}

enum run_end run_check_knobs(const struct run_opts *o, const struct host_facts *h, const struct run_spec *specs,
			     size_t nv, const char *name, struct lab_error *err)
{
	for (size_t v = 0; v < nv; v++)
		for (size_t k = 0; k < specs[v].nr_knobs; k++) {
			const struct run_knob *rk = &specs[v].knobs[k];
			unsigned long long val = strtoull(rk->value, NULL, 10), kb = 0;
			bool huge = !strcmp(rk->name, "hugetlb_pages") || !strcmp(rk->name, "vm.nr_hugepages");
			enum run_end e;

			if (!h->root) {
				lab_error_set(err, EPERM, "%s changes %s: that needs root", name, rk->name);
				return RUN_REFUSED_HOST;
			}
			if (huge && (e = hugetlb_check(rk, &specs[v], h, name, &kb, err)) != RUN_ENDED)
				return e;
			if ((e = knob_file_check(rk, &specs[v], name, err)) != RUN_ENDED)
				return e;
			if (h->in_vm_guest || o->allow_destructive)
				continue;
			/* swap = off takes away every swap area of the host. */
			if (!strcmp(rk->name, "swap") && !strcmp(rk->value, "off")) {
				lab_error_set(err, EPERM, "%s (run %s): swap = off turns off every swap area of this host, "
					      "which is destructive: run it in VM mode, or on this host with "
					      "--allow-destructive", name, specs[v].label);
				return RUN_REFUSED_HOST;
			}
			/* A reserve large enough to starve it: above 262144 kB, the most
			 * the kernel itself ever picks (mm/page_alloc.c:
			 * calculate_min_free_kbytes's clamp), or hugetlb pages above a
			 * quarter of MemTotal. */
			if ((!strcmp(rk->name, "vm.min_free_kbytes") && val > 262144) ||
			    (huge && kb > h->memtotal_kb / 4)) {
				lab_error_set(err, EPERM, "%s (run %s): %s = %s could starve this machine: run it in VM "
					      "mode, or on this host with --allow-destructive", name, specs[v].label,
					      rk->name, rk->text);
				return RUN_REFUSED_HOST;
			}
		}
	return RUN_ENDED;
}

enum run_end run_check_resources(const struct host_facts *h, const struct run_spec *specs, size_t nv,
				 const char *name, struct lab_error *err)
{
	for (size_t v = 0; v < nv; v++) {
		enum run_end e = fs_check(&specs[v], name, err);

		if (e == RUN_ENDED)
			e = trace_check(&specs[v], h, name, err);
		if (e != RUN_ENDED)
			return e;
	}
	return RUN_ENDED;
}
