/* SPDX-License-Identifier: GPL-2.0-or-later */
/* targets.c — what this host needs to boot a guest, the targets and their
 * kernels, and the static build the guests run (vm.h: vm_job_prepare).
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/paths.h"
#include "base/spawn.h"
#include "plan/vmkernel.h"

#ifndef PAGELAB_SOURCE_DIR
#define PAGELAB_SOURCE_DIR "."
#endif

/* guest/vm-kernel downloads a package the first time (apt's lists, Debian's
 * mirror): bounded all the same, so a stuck mirror ends in a message. */
#define VM_KERNEL_TIMEOUT_S 1800

/* What an architecture needs on this host: the emulator, its package, and the
 * static build of pagelab for its guests (a cross build for arm64). */
struct vm_arch {
	const char *name;
	const char *qemu;
	const char *qemu_pkg;
	const char *build_dir;          /* under the source tree */
	const char *toolchain;          /* a CMake toolchain file, or NULL */
};

static const struct vm_arch vm_arches[] = {
	{ "amd64", "qemu-system-x86_64", "qemu-system-x86", "build-static", NULL },
	{ "arm64", "qemu-system-aarch64", "qemu-system-arm", "build-static-arm64",
	  "cmake/aarch64-linux-gnu.cmake" },
};

static const struct vm_arch *arch_find(const char *name)
{
	for (size_t i = 0; i < sizeof(vm_arches) / sizeof(vm_arches[0]); i++)
		if (strcmp(vm_arches[i].name, name) == 0)
			return &vm_arches[i];
	return NULL;
}

bool vm_arch_known(const char *arch)
{
	return arch_find(arch) != NULL;
}

bool vm_is_series(const char *k)
{
	return vm_series_find(k) != NULL;
}

void vm_opts_init(struct vm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = VM_DEFAULT_TIMEOUT_S;
	o->flavour = "generic";
	o->arch = "amd64";
}

/* ---- the paths ---------------------------------------------------------------------- */

static int env_init(struct vm_env *env, const struct vm_opts *o, const char *base, struct lab_error *err)
{
	const struct vm_arch *arch = arch_find(o->arch);
	const char *dir = o->out_dir, *cache = getenv("PAGELAB_CACHE_DIR");
	bool given = o->out_dir != NULL && *o->out_dir != '\0';
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	memset(env, 0, sizeof(*env));
	if (arch == NULL)
		return lab_error_set(err, EINVAL, "--arch %s: expected amd64 or arm64", o->arch);
	if (realpath(lab_data_dir(), env->src) == NULL)
		return lab_error_set(err, EIO, "the source tree %s is gone (%s): VM mode runs its guest/vm-run",
				     lab_data_dir(), strerror(errno));
	/* The cache (kernels, initramfs, runs): the tree's .cache, or for an
	 * installed pagelab $PAGELAB_CACHE_DIR, else /var/cache/pagelab; the
	 * scripts are told through the environment. */
	if (!lab_installed())
		ret = vm_pathf(env->cache, sizeof(env->cache), "%s/.cache", env->src);
	else
		ret = vm_pathf(env->cache, sizeof(env->cache), "%s", cache && *cache ? cache : "/var/cache/pagelab");
	if (ret < 0)
		return lab_error_set(err, ENAMETOOLONG, "the cache directory's path is too long");
	if (lab_installed() && setenv("PAGELAB_CACHE_DIR", env->cache, 1) < 0)
		return lab_error_errno(err, errno, "setenv");
	if (vm_pathf(env->vm_run, sizeof(env->vm_run), "%s/guest/vm-run", env->src) < 0 ||
	    vm_pathf(env->vm_kernel, sizeof(env->vm_kernel), "%s/guest/vm-kernel", env->src) < 0)
		return lab_error_set(err, ENAMETOOLONG, "source path too long: %s", env->src);
	if (access(env->vm_run, X_OK) < 0 || access(env->vm_kernel, X_OK) < 0)
		return lab_error_set(err, EIO, "%s or vm-kernel is missing: VM mode needs pagelab's source tree",
				     env->vm_run);
	env->arch_build_dir = arch->build_dir;
	env->arch_toolchain = arch->toolchain;
	if (!lab_find_program(arch->qemu, env->qemu, sizeof(env->qemu)))
		return lab_error_set(err, ENODEV, "no qemu: %s is not in PATH (apt-get install %s)", arch->qemu,
				     arch->qemu_pkg);
	if (!given) {
		dir = getenv("PAGELAB_RESULTS");
		if (dir == NULL || *dir == '\0')
			dir = "results";
	}
	/* The default directory is made; one --out-dir names must exist. */
	ret = lab_check_output_dir(dir, given ? "--out-dir" : "the results directory", !given, err);
	if (ret < 0)
		return vm_recode(err, EINVAL);
	if (realpath(dir, env->out_dir) == NULL)
		return lab_error_set(err, EIO, "--out-dir %s: %s", dir, strerror(errno));
	gmtime_r(&now, &tm);
	strftime(env->stamp, sizeof(env->stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(env->base, sizeof(env->base), "%s", base);
	for (char *p = env->base; *p; p++)
		if (*p == '/')
			*p = '-';
	return 0;
}

/* ---- kernels ------------------------------------------------------------------------- */

/* A series through guest/vm-kernel --info: "key: value" lines (vmlinuz,
 * release, package, version, metapackage). */
static int kernel_info(struct vm_job *j, struct vm_target *t, bool with_modules, struct lab_error *err)
{
	const struct vm_opts *o = &j->o;
	char *argv[] = { j->env.vm_kernel, (char *)t->kernel, "--arch", (char *)o->arch, "--flavour",
			 (char *)o->flavour, "--info", with_modules ? "--with-modules" : NULL, NULL };
	cleanup_free char *out = NULL;
	int st, ret;

	lab_say(j->p, LAB_SAY_PHASE, "kernel %s: guest/vm-kernel %s --arch %s --flavour %s", t->kernel, t->kernel,
		o->arch, o->flavour);
	ret = vm_capture(argv, 1 << 20, VM_KERNEL_TIMEOUT_S, &out, &st, err);
	if (ret < 0)
		return vm_recode(err, EIO);
	if (st != 0)
		return lab_error_set(err, ENODEV, "cannot get Debian's %s %s kernel (%s): guest/vm-kernel exited %d, "
				     "see its message above (it needs apt's lists and Debian's mirror the first "
				     "time%s; or pass --kernel PATH)", t->kernel, o->arch, o->flavour, st,
				     strcmp(o->arch, "amd64") ? ", and dpkg --add-architecture arm64" : "");
	t->kinfo = vm_kv_parse(out);
	if (*vm_kvs(t->kinfo, "vmlinuz") == '\0' || *vm_kvs(t->kinfo, "release") == '\0')
		return lab_error_set(err, EIO, "guest/vm-kernel %s --info printed no vmlinuz/release", t->kernel);
	snprintf(t->label, sizeof(t->label), "guest-%s", vm_kvs(t->kinfo, "release"));
	vm_label_clean(t->label);
	if (with_modules) {
		/* vm-kernel's layout: PKGDIR/boot/vmlinuz-REL, PKGDIR/lib/modules/REL. */
		char dir[PATH_MAX], mod[PATH_MAX + 64];

		snprintf(dir, sizeof(dir), "%s", vm_kvs(t->kinfo, "vmlinuz"));
		for (int up = 0; up < 2; up++)
			if (strrchr(dir, '/'))
				*strrchr(dir, '/') = '\0';
		if (vm_pathf(mod, sizeof(mod), "%s/lib/modules/%s", dir, vm_kvs(t->kinfo, "release")) < 0 ||
		    access(mod, R_OK) < 0)
			return lab_error_set(err, ENODEV, "kernel %s: no modules directory %s (guest/vm-kernel %s "
					     "--with-modules)", t->kernel, mod, t->kernel);
		json_object_set_new(t->kinfo, "modules", json_string(mod));
	}
	return 0;
}

/* A kernel series is resolved through guest/vm-kernel (downloads once, then
 * reads the cache; with_modules: its lib/modules/ too, for zram swap and the
 * disk); a path is taken as it is.  vm-run then gets the vmlinuz path, so
 * apt's lists are read once per guest, not twice (~1.5 s each here). */
static int resolve_kernel(struct vm_job *j, struct vm_target *t, bool with_modules, struct lab_error *err)
{
	const char *b;

	if (vm_is_series(t->kernel))
		return kernel_info(j, t, with_modules, err);
	b = strrchr(t->kernel, '/') ? strrchr(t->kernel, '/') + 1 : t->kernel;
	if (!strncmp(b, "vmlinuz-", 8) && b[8] != '\0')
		b += 8;
	snprintf(t->label, sizeof(t->label), "guest-%s", b);
	vm_label_clean(t->label);
	t->kinfo = json_object();
	json_object_set_new(t->kinfo, "vmlinuz", json_string(t->kernel));
	return 0;
}

/* ---- the static build ------------------------------------------------------------------ */

/* cmake ARGS... into the build log; its tail and "WHAT failed (TOOL; see
 * LOG)" when it fails. */
static int cmake_step(struct vm_job *j, char *const argv[], const char *log, const char *what, const char *tool,
		      struct lab_error *err)
{
	char why[LAB_ERROR_MSG_MAX];
	int st, ret;

	/* Linker warnings about getpwnam in a static glibc binary are expected
	 * (libcgroup links it; the guest never calls it). */
	ret = vm_spawn(argv, log, true, 0, &st, err);
	if (ret == 0 && st == 0)
		return 0;
	snprintf(why, sizeof(why), "%s", ret < 0 ? err->msg : tool);
	vm_log_tail(j->p, log, 15);
	return lab_error_set(err, EIO, "%s failed (%s; see %s)", what, why, log);
}

/* build-static/ (or -arm64): configured once, brought up to date by cmake
 * every time (a no-op when nothing changed), under a lock: two `pagelab vm`
 * from one tree must not run make in the same build directory together (a
 * half-linked binary would go into a guest); the second waits for the
 * first's build.  The lock is held until this returns.  Configured with
 * Ninja when it is there: its no-op build takes 0.2 s here, make's 2 s, and
 * every guest booted pays it (a directory configured before keeps its
 * generator). */
static int tree_build(struct vm_job *j, struct lab_error *err)
{
	struct vm_env *env = &j->env;
	char log[PATH_MAX + 32], cache[PATH_MAX + 32], lock[PATH_MAX + 32], cmake[PATH_MAX], tc[PATH_MAX + 64];
	cleanup_close int lockfd = -1;
	int ret;

	if (vm_pathf(env->build, sizeof(env->build), "%s/%s", env->src, env->arch_build_dir) < 0 ||
	    vm_pathf(log, sizeof(log), "%s/vm-build.log", env->build) < 0 ||
	    vm_pathf(cache, sizeof(cache), "%s/CMakeCache.txt", env->build) < 0 ||
	    vm_pathf(lock, sizeof(lock), "%s/.vm-build.lock", env->build) < 0)
		return lab_error_set(err, EIO, "source path too long: %s", env->src);
	if (!lab_find_program("cmake", cmake, sizeof(cmake)))
		return lab_error_set(err, ENODEV, "cmake not found: it builds the guest's static binaries "
				     "(apt-get install cmake, or pass --build DIR)");
	ret = lab_mkdir_p(env->build, 0755, err);
	if (ret < 0)
		return vm_recode(err, EIO);
	lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0)
		return lab_error_set(err, EIO, "lock %s: %s", lock, strerror(errno));
	if (access(cache, F_OK) < 0) {
		char *argv[] = { cmake, "-S", env->src, "-B", env->build, "-DPAGELAB_STATIC=ON", NULL, NULL, NULL, NULL };
		char what[PATH_MAX + 16], ninja[PATH_MAX];
		int n = 6;

		if (env->arch_toolchain != NULL) {
			if (vm_pathf(tc, sizeof(tc), "-DCMAKE_TOOLCHAIN_FILE=%s/%s", env->src, env->arch_toolchain) < 0)
				return lab_error_set(err, EIO, "source path too long: %s", env->src);
			argv[n++] = tc;
		}
		if (lab_find_program("ninja", ninja, sizeof(ninja))) {
			argv[n++] = "-G";
			argv[n++] = "Ninja";
		}
		lab_say(j->p, LAB_SAY_PHASE, "configuring the static build in %s", env->build);
		snprintf(what, sizeof(what), "configuring %s", env->build);
		if (cmake_step(j, argv, log, what, "cmake", err) < 0)
			return -EIO;
	}
	{
		char *argv[] = { cmake, "--build", env->build, "-j2", NULL };

		lab_say(j->p, LAB_SAY_PHASE, "cmake --build %s (the guest's static binaries)", env->build);
		if (cmake_step(j, argv, log, "building the static binaries", "cmake --build", err) < 0)
			return -EIO;
		unlink(log);
	}
	return 0;
}

static int static_build(struct vm_job *j, struct lab_error *err)
{
	static const char *const need[] = { "pagelab", "workloads/region", "workloads/hold", "workloads/lazyscan" };
	struct vm_env *env = &j->env;
	char libexec[PATH_MAX], guest[PATH_MAX + 8] = "<libexec>/pagelab/guest";
	int ret;

	/* An installed pagelab has its guest's static binaries in
	 * <libexec>/pagelab/guest (the Debian package builds them). */
	if (j->o.build == NULL && lab_installed()) {
		if (!lab_installed_libexec(libexec, sizeof(libexec)) ||
		    vm_pathf(guest, sizeof(guest), "%s/guest", libexec) < 0 || realpath(guest, env->build) == NULL)
			return lab_error_set(err, ENODEV, "this installed pagelab has no guest binaries in %s: pass "
					     "--build DIR (a static build: cmake -DPAGELAB_STATIC=ON)", guest);
	} else if (j->o.build != NULL) {
		if (realpath(j->o.build, env->build) == NULL)
			return lab_error_set(err, EINVAL, "--build %s: %s", j->o.build, strerror(errno));
	} else if ((ret = tree_build(j, err)) < 0) {
		return ret;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char p[PATH_MAX * 2];

		snprintf(p, sizeof(p), "%s/%s", env->build, need[i]);
		if (access(p, X_OK) < 0)
			return lab_error_set(err, EIO, "%s is missing (the static build: cmake -S . -B %s "
					     "-DPAGELAB_STATIC=ON%s%s && cmake --build %s)", p, env->arch_build_dir,
					     env->arch_toolchain ? " -DCMAKE_TOOLCHAIN_FILE=" : "",
					     env->arch_toolchain ? env->arch_toolchain : "", env->arch_build_dir);
	}
	return 0;
}

/* ---- the job ------------------------------------------------------------------------------ */

static int add_targets(struct vm_job *j, struct lab_error *err)
{
	bool with_modules = j->g.swap != 0 || j->g.disk != 0;
	int ret;

	if (j->o.host) {
		struct vm_target *t = &j->t[j->nt++];
		struct utsname u;

		uname(&u);
		snprintf(t->label, sizeof(t->label), "host-%s", u.release);
		vm_label_clean(t->label);
	}
	for (size_t k = 0; k < j->o.nr_kernels; k++) {
		struct vm_target *t = &j->t[j->nt++];

		t->kernel = j->o.kernels[k];
		/* A series exists for some architectures and flavours only
		 * (plan/vmkernel.c): refused before anything is fetched. */
		if (vm_is_series(t->kernel) &&
		    (ret = vm_series_check(t->kernel, j->o.arch, j->o.flavour, err)) < 0)
			return ret;
		if (!vm_is_series(t->kernel) && with_modules && j->o.modules == NULL)
			return lab_error_set(err, EINVAL, "%s with --kernel %s needs --modules DIR (its "
					     "lib/modules/<release>, with zram, virtio_blk, ext4)",
					     j->g.swap ? "--swap" : "--disk", t->kernel);
		ret = resolve_kernel(j, t, with_modules, err);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < j->nt; i++) {
		if (vm_pathf(j->t[i].stem, sizeof(j->t[i].stem), "%s/%s-%s-%s", j->env.out_dir, j->env.base,
			     j->env.stamp, j->t[i].label) < 0)
			return lab_error_set(err, ENAMETOOLONG, "result path too long in %s", j->env.out_dir);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(j->t[i].stem, j->t[k].stem))
				return lab_error_set(err, EINVAL, "two targets would write %s.json (the same kernel "
						     "twice?)", j->t[i].stem);
	}
	return 0;
}

int vm_job_prepare(struct vm_job *j, const struct vm_opts *o, const struct vm_shape *g, const char *base,
		   const struct lab_progress *p, struct lab_error *err)
{
	int ret;

	memset(j, 0, sizeof(*j));
	j->o = *o;
	j->g = *g;
	j->p = p;
	if (j->o.nr_kernels == 0)
		j->o.kernels[j->o.nr_kernels++] = j->g.kernel;
	for (size_t i = 0; i < sizeof(j->t) / sizeof(j->t[0]); i++)
		j->t[i].child_status = -1;
	ret = env_init(&j->env, &j->o, base, err);
	if (ret == 0)
		ret = add_targets(j, err);
	if (ret == 0)
		ret = static_build(j, err);
	return ret;
}

void vm_job_free(struct vm_job *j)
{
	for (size_t i = 0; i < j->nt; i++) {
		json_decref(j->t[i].kinfo);
		j->t[i].kinfo = NULL;
	}
}
