/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.c — `pagelab vm`: a scenario inside QEMU guests (docs/vm.md).
 *
 * The order is the safety order of `pagelab run`: everything that can be
 * checked is checked before anything is built or booted.
 *
 *   1. options: the guest shape (vm options, before "run") and the run options
 *      (after "run"), which are forwarded to the guest's `pagelab run`;
 *   2. the scenario: parsed, overridden (--set) and instantiated for every
 *      variant exactly as `pagelab run` does, against the guest's memory
 *      (bad input: exit 2, nothing booted); the guest shape defaults come
 *      from its [vm] section (mem, cpus, thp, swap, disk, kernel);
 *   3. what the host needs to boot a guest: qemu-system-x86_64 (or
 *      qemu-system-aarch64 for --arch arm64), the kernels
 *      (guest/vm-kernel resolves and downloads Debian's packages, cached),
 *      the static build (cmake, build-static/);
 *   4. one target after the other (the host first with --host, then each
 *      kernel in the order given; never two at once, so that neither perturbs
 *      the other's timings): the guest is booted by guest/vm-run, which runs
 *      `pagelab run NAME --out /out/files/result.json --no-report ...` as the
 *      guest's command and brings /out back over the guest's second serial
 *      port; the result document, its JSON Lines stream and the guest's
 *      console log land in --out-dir side by side, named with the kernel;
 *   5. the summary: report_main() over every result, as `pagelab run` does
 *      for one, then the result paths.
 *
 * Why call guest/vm-run instead of porting it: the boot protocol (initramfs
 * layout and cache, the result channel on ttyS1, isa-debug-exit codes, the
 * verdict on panic and timeout, zram swap) is one tested implementation
 * shared with scripts/capture-v2-fixtures; a C copy would be a second one to
 * keep in step.  What C adds here is what the scripts cannot know: the
 * scenario, its validation, naming, the result document and the report.
 */
#include "vm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "cmd/exitcode.h"
#include "plan/catalog.h"
#include "base/fileio.h"
#include "base/paths.h"
#include "read/report/report.h"
#include "result/keys.h"
#include "run/run.h"
#include "plan/scenario.h"
#include "base/size.h"

#ifndef PAGELAB_SOURCE_DIR
#define PAGELAB_SOURCE_DIR "."
#endif

#define VM_MAX_KERNELS 8
#define VM_MAX_ARGS 200
#define VM_DEFAULT_KERNEL "6.12"
#define VM_DEFAULT_MEM (4800ULL << 20)  /* the MADV_FREE article's Docker Desktop VM */
#define VM_DEFAULT_CPUS 2
#define VM_DEFAULT_TIMEOUT_S 1800
#define VM_MIN_MEM (256ULL << 20)       /* the initramfs and the guest's kernel need ~150 MiB */
#define VM_GUEST_RESULT "/out/files/result.json"
#define VM_MAX_NUMA 8
#define VM_KV_MAX (1ULL << 20)          /* vm-status, guest-info: a few hundred bytes each */

/* ---- options ---------------------------------------------------------------- */

struct vm_opts {
	const char *kernels[VM_MAX_KERNELS];
	size_t nr_kernels;
	bool host;
	unsigned long long mem;         /* bytes; 0 = scenario's [vm] mem, else the default */
	unsigned cpus;                  /* 0 = [vm] cpus, else 2 */
	const char *thp;                /* NULL = [vm] thp, else the kernel's default */
	unsigned long long swap;        /* bytes */
	bool swap_set;
	unsigned long long disk;        /* bytes: an ext2 disk on /var/tmp in the guest */
	bool disk_set;
	char cmdline[1024];
	unsigned timeout_s;
	const char *out_dir;
	const char *flavour;
	const char *build;              /* a static build to use as it is */
	const char *modules;            /* lib/modules/<release> for --swap with a kernel PATH */
	const char *arch;               /* "amd64" (default) or "arm64": the guest's architecture */
	unsigned numa;                  /* 0 = no NUMA topology; N = N nodes (QEMU -numa node) */
};

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

static const struct vm_arch *vm_arch_find(const char *name)
{
	for (size_t i = 0; i < sizeof(vm_arches) / sizeof(vm_arches[0]); i++)
		if (strcmp(vm_arches[i].name, name) == 0)
			return &vm_arches[i];
	return NULL;
}

/* The run options, parsed as `pagelab run` parses them (run/run.h), and
 * their canonical form forwarded to every guest and the host. */
struct run_fwd {
	struct run_opts opts;
	struct run_opts_argv fwd;
};

static int vm_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int vm_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagelab: vm: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see pagelab --help)\n");
	return LAB_EXIT_USAGE;
}

static bool is_series(const char *k)
{
	return strcmp(k, "6.1") == 0 || strcmp(k, "6.12") == 0;
}

static int parse_vm_opts(int argc, char **argv, struct vm_opts *o, int *next)
{
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "host", no_argument, NULL, 'H' },
		{ "mem", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "thp", required_argument, NULL, 'T' },
		{ "swap", required_argument, NULL, 'S' },
		{ "disk", required_argument, NULL, 'D' },
		{ "cmdline", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "flavour", required_argument, NULL, 'f' },
		{ "flavor", required_argument, NULL, 'f' },
		{ "build", required_argument, NULL, 'b' },
		{ "modules", required_argument, NULL, 'M' },
		{ "arch", required_argument, NULL, 'A' },
		{ "numa", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->timeout_s = VM_DEFAULT_TIMEOUT_S;
	o->flavour = "generic";
	o->arch = "amd64";
	optind = 0;     /* 0, not 1: glibc re-reads the "+" (stop at "run") of this optstring */
	opterr = 0;
	/* "+": stop at "run"; what follows is the run's own command line. */
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		unsigned long long v;
		struct lab_error err;
		size_t len;

		switch (c) {
		case 'k':
			if (o->nr_kernels == VM_MAX_KERNELS)
				return vm_usage("at most %d --kernel", VM_MAX_KERNELS);
			if (!is_series(optarg) && access(optarg, R_OK) < 0)
				return vm_usage("--kernel '%s': neither 6.1, 6.12 nor a readable vmlinuz file",
						optarg);
			o->kernels[o->nr_kernels++] = optarg;
			break;
		case 'H':
			o->host = true;
			break;
		case 'm':
			if (lab_parse_size(optarg, &v, &err) < 0)
				return vm_usage("--mem: %s", err.msg);
			if (v < VM_MIN_MEM)
				return vm_usage("--mem %s: a guest needs at least 256M", optarg);
			o->mem = v;
			break;
		case 'c':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 64)
				return vm_usage("--cpus: expected 1..64, got '%s'", optarg);
			o->cpus = (unsigned)v;
			break;
		case 'T':
			if (strcmp(optarg, "always") && strcmp(optarg, "madvise") && strcmp(optarg, "never"))
				return vm_usage("--thp: expected always, madvise or never, got '%s'", optarg);
			o->thp = optarg;
			break;
		case 'S':
			if (lab_parse_size(optarg, &v, &err) < 0)
				return vm_usage("--swap: %s", err.msg);
			o->swap = v;
			o->swap_set = true;
			break;
		case 'D':
			if (lab_parse_size(optarg, &v, &err) < 0)
				return vm_usage("--disk: %s", err.msg);
			if (v != 0 && v < (64ULL << 20))
				return vm_usage("--disk %s: at least 64M (or 0: no disk)", optarg);
			o->disk = v;
			o->disk_set = true;
			break;
		case 'C':
			len = strlen(o->cmdline);
			if (strchr(optarg, '\n') != NULL ||
			    (size_t)snprintf(o->cmdline + len, sizeof(o->cmdline) - len, "%s%s",
					     len ? " " : "", optarg) >= sizeof(o->cmdline) - len)
				return vm_usage("--cmdline: too long, or a newline in it");
			break;
		case 't':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 10 || v > 86400)
				return vm_usage("--timeout: expected 10..86400 s, got '%s'", optarg);
			o->timeout_s = (unsigned)v;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "generic") && strcmp(optarg, "cloud"))
				return vm_usage("--flavour: expected generic or cloud, got '%s'", optarg);
			o->flavour = optarg;
			break;
		case 'b':
			o->build = optarg;
			break;
		case 'M':
			o->modules = optarg;
			break;
		case 'A':
			if (vm_arch_find(optarg) == NULL)
				return vm_usage("--arch: expected amd64 or arm64, got '%s'", optarg);
			o->arch = optarg;
			break;
		case 'n':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > VM_MAX_NUMA)
				return vm_usage("--numa: expected 1..%d nodes, got '%s'", VM_MAX_NUMA, optarg);
			o->numa = (unsigned)v;
			break;
		case 'h':
			return -1;
		default:
			return vm_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc || (strcmp(argv[optind], "run") != 0 && strcmp(argv[optind], "audit") != 0))
		return vm_usage("%s", optind >= argc ? "expected: pagelab vm [options] run NAME [run options]"
						  : "expected 'run' or 'audit' after the vm options");
	*next = optind + 1;
	return 0;
}

/* --out has no meaning with several targets: --out-dir names the directory
 * (run_opts_parse refuses it for RUN_OPTS_VM). */
static int parse_run_part(int argc, char **argv, struct run_fwd *f)
{
	int ret = run_opts_parse(argc, argv, RUN_OPTS_VM, &f->opts);

	if (ret == 0)
		run_opts_forward(&f->opts, &f->fwd);
	return ret;
}

/* ---- the scenario ------------------------------------------------------------ */

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
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p))
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

/* Where NAME|FILE is, as main.c's load_scenario finds it: $PAGELAB_SCENARIOS,
 * ./scenarios, <dir of pagelab>/scenarios, then the source tree. */
static int scenario_location(const char *arg, char *dir, size_t dlen, char *path, size_t plen,
			     bool *is_file)
{
	struct lab_error err;
	char found[PATH_MAX];

	*is_file = catalog_is_file(arg);
	dir[0] = '\0';
	if (catalog_find(arg, found, sizeof(found), &err) < 0) {
		fprintf(stderr, "pagelab: %s\n", err.msg);
		return LAB_EXIT_USAGE;
	}
	if (*is_file) {
		struct stat st;

		/* The file itself goes into the guest, not what a link names. */
		if (lstat(found, &st) == 0 && S_ISLNK(st.st_mode)) {
			fprintf(stderr, "pagelab: vm: %s is a symbolic link: pagelab vm copies a scenario file into "
				"the guest as it is, never through a link (name the file itself)\n", found);
			return LAB_EXIT_USAGE;
		}
	}
	/* Absolute paths: the guest's command and the static build need them. */
	if (realpath(found, path) == NULL || strlen(path) >= plen) {
		fprintf(stderr, "pagelab: vm: scenario file %s: %s\n", found, strerror(errno));
		return LAB_EXIT_USAGE;
	}
	if (!*is_file && catalog_dir(found, sizeof(found), &err) == 0) {
		char abs[PATH_MAX];

		snprintf(dir, dlen, "%s", realpath(found, abs) != NULL ? abs : found);
		if (tree_plain(dir, 0, &err) < 0) {
			fprintf(stderr, "pagelab: vm: %s\n", err.msg);
			return LAB_EXIT_USAGE;
		}
	}
	return 0;
}

/* A [vm] value with ${param} substituted from the variant's parameters (the
 * parser has already checked that every reference resolves). */
static int vm_item(const struct scenario *s, const struct run_spec *r, const char *key, char *out,
		   size_t len)
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
						o += (size_t)n;
				}
			v = end + 1;
			continue;
		}
		out[o++] = *v++;
	}
	out[o < len ? o : len - 1] = '\0';
	return 1;
}

/* ---- child processes ---------------------------------------------------------- */

static volatile sig_atomic_t vm_signal;
static volatile pid_t vm_child;

static void vm_on_signal(int sig)
{
	vm_signal = sig;
	/* vm-run traps SIGTERM: it stops qemu and exits 125. */
	if (vm_child > 0)
		kill(vm_child, SIGTERM);
}

/* Start argv[0] with stdout on out_fd (-1: ours), stderr too when both, and
 * stdin on /dev/null.  The child gets SIGTERM when pagelab dies, even by
 * SIGKILL (PR_SET_PDEATHSIG): vm-run traps it, stops qemu and removes its
 * disk image and temporary directory; a host `pagelab run` puts its knobs
 * back.  Without it a killed `pagelab vm` left qemu running to its timeout. */
static int spawn_fds(char *const argv[], int out_fd, bool both, pid_t *pid, struct lab_error *err)
{
	pid_t parent = getpid(), p;
	int ep[2], e = 0;
	ssize_t n;

	if (pipe2(ep, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "cannot start %s: pipe", argv[0]);
	p = fork();
	if (p < 0) {
		e = errno;
		close(ep[0]);
		close(ep[1]);
		return lab_error_errno(err, e, "cannot start %s: fork", argv[0]);
	}
	if (p == 0) {
		int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
			_exit(127);
		if (in >= 0 && dup2(in, 0) >= 0 && (out_fd < 0 || dup2(out_fd, 1) >= 0) &&
		    (out_fd < 0 || !both || dup2(out_fd, 2) >= 0))
			execv(argv[0], argv);
		e = errno ? errno : EIO;
		if (write(ep[1], &e, sizeof(e)) < 0) {
			/* the parent sees the pipe close without a word: exit 127 */
		}
		_exit(127);
	}
	close(ep[1]);
	do
		n = read(ep[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
			;
		return lab_error_set(err, e, "cannot start %s: %s", argv[0], strerror(e));
	}
	*pid = p;
	vm_child = p;
	return 0;
}

static int spawn(char *const argv[], int out_fd, pid_t *pid, struct lab_error *err)
{
	return spawn_fds(argv, out_fd, false, pid, err);
}

/* Wait for pid; its exit status, 128 + signal, or -errno. */
static int wait_child(pid_t pid, struct lab_error *err)
{
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, 0);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			vm_child = 0;
			return lab_error_errno(err, errno, "waitpid %d", (int)pid);
		}
	}
	vm_child = 0;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* Run argv with stdout captured into *out (NUL-terminated). */
static int run_capture(char *const argv[], char **out, struct lab_error *err)
{
	int p[2], ret, status;
	pid_t pid;

	*out = NULL;
	if (pipe2(p, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "pipe");
	ret = spawn(argv, p[1], &pid, err);
	close(p[1]);
	if (ret < 0) {
		close(p[0]);
		return ret;
	}
	ret = lab_read_fd(p[0], out, NULL, err);
	close(p[0]);
	status = wait_child(pid, err);
	if (ret < 0)
		return ret;
	return status;
}

/* Run argv with stdout (and stderr when both) into a file (O_TRUNC), or
 * /dev/null when path is NULL. */
static int run_to_file(char *const argv[], const char *path, bool both, struct lab_error *err)
{
	int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int ret;
	pid_t pid;

	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", path ? path : "/dev/null");
	ret = spawn_fds(argv, fd, both, &pid, err);
	close(fd);
	if (ret < 0)
		return ret;
	return wait_child(pid, err);
}

static bool in_path(const char *prog, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = strdup(path);
	if (copy == NULL)
		return false;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save))
		if ((size_t)snprintf(out, len, "%s/%s", d, prog) < len && access(out, X_OK) == 0)
			found = true;
	free(copy);
	return found;
}

/* ---- files --------------------------------------------------------------------- */

/* snprintf for paths: -ENAMETOOLONG instead of a silently cut path. */
static int pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* "key: value" lines (vm-run's vm-status, vm-guest-init's guest-info). */
static json_t *keyvalue_file(const char *path)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	json_t *o = json_object();
	char *save = NULL;

	/* guest-info comes from the guest: a regular file, not a link, bounded. */
	if (lab_read_input(path, "guest file", VM_KV_MAX, LAB_INPUT_NOFOLLOW, &buf, NULL, &e) < 0)
		return o;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strstr(line, ": ");

		if (sep == NULL || sep == line)
			continue;
		*sep = '\0';
		/* A key repeated (e.g. "status" after "error") keeps its last value. */
		json_object_set_new(o, line, json_string(sep + 2));
	}
	return o;
}

static const char *kvs(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

static json_t *kv_number(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	char *end;
	double d;

	if (v == NULL || *v == '\0')
		return json_null();
	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || *end != '\0')
		return json_null();
	return json_real(d);
}

/* A guest's console log or stream into --out-dir: read only as the regular
 * file it must be (never through a symbolic link: a link to a host file would
 * otherwise be copied out, world-readable), bounded. */
static int copy_file(const char *src, const char *dst, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	size_t len = 0;
	int ret;

	ret = lab_read_input(src, "guest output", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &buf, &len, err);
	if (ret < 0)
		return ret;
	/* Into --out-dir: only over a regular file or nothing (fileio.h). */
	return lab_write_atomic(dst, buf, len, err);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* ---- targets ------------------------------------------------------------------- */

struct target {
	const char *kernel;             /* "6.1", "6.12", a vmlinuz path; NULL = this host */
	char label[160];                /* "host-6.18.44-…", "guest-6.12.117+deb12-amd64" */
	json_t *kinfo;                  /* guest/vm-kernel --info, as key: value */
	char stem[PATH_MAX];            /* OUT-DIR/SCENARIO-STAMP-LABEL */
	char result[PATH_MAX + 8];
	int status;                     /* the target's exit status (cli.md), -1 = not run */
	bool ok;                        /* a result document came back */
};

/* Every path a vm run needs, found once. */
struct vm_env {
	char src[PATH_MAX];             /* the source tree: scripts/, CMakeLists.txt */
	char cache[PATH_MAX];           /* <src>/.cache, or an installed pagelab's cache (paths.h) */
	char vm_run[PATH_MAX + 32];
	char vm_kernel[PATH_MAX + 32];
	char build[PATH_MAX];
	char qemu[PATH_MAX];
	char out_dir[PATH_MAX];
	char stamp[32];
	char base[128];                 /* scenario name with dashes */
	const struct vm_arch *arch;
};

static void label_clean(char *s)
{
	for (; *s; s++)
		if (*s == '/' || *s == ' ' || *s == ':')
			*s = '-';
}

/* Resolve a kernel series through guest/vm-kernel (downloads once, then
 * reads the cache; with_modules: its lib/modules/ too, for zram swap); a path
 * is taken as it is.  vm-run then gets the vmlinuz path, so apt's lists are
 * read once per guest, not twice (~1.5 s each here). */
static int resolve_kernel(const struct vm_env *env, const struct vm_opts *o, bool with_modules,
			  struct target *t)
{
	struct lab_error err;

	if (!is_series(t->kernel)) {
		const char *b = strrchr(t->kernel, '/') ? strrchr(t->kernel, '/') + 1 : t->kernel;

		if (!strncmp(b, "vmlinuz-", 8) && b[8] != '\0')
			b += 8;
		snprintf(t->label, sizeof(t->label), "guest-%s", b);
		label_clean(t->label);
		t->kinfo = json_object();
		json_object_set_new(t->kinfo, "vmlinuz", json_string(t->kernel));
		return 0;
	}
	{
		char *argv[] = { (char *)env->vm_kernel, (char *)t->kernel, "--arch", (char *)o->arch,
				 "--flavour", (char *)o->flavour, "--info",
				 with_modules ? "--with-modules" : NULL, NULL };
		cleanup_free char *out = NULL;
		char *save = NULL;
		int st;

		fprintf(stderr, "pagelab: vm: kernel %s: guest/vm-kernel %s --arch %s --flavour %s\n",
			t->kernel, t->kernel, o->arch, o->flavour);
		st = run_capture(argv, &out, &err);
		if (st < 0) {
			fprintf(stderr, "pagelab: vm: %s\n", err.msg);
			return LAB_EXIT_HARNESS;
		}
		if (st != 0) {
			fprintf(stderr, "pagelab: vm: cannot get Debian's %s %s kernel (%s): guest/vm-kernel "
				"exited %d, see its message above (it needs apt's lists and Debian's "
				"mirror the first time%s; or pass --kernel PATH)\n", t->kernel, o->arch,
				o->flavour, st, strcmp(o->arch, "amd64") ? ", and dpkg --add-architecture arm64" : "");
			return LAB_EXIT_CANNOT;
		}
		t->kinfo = json_object();
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *sep = strstr(line, ": ");

			if (sep != NULL) {
				*sep = '\0';
				json_object_set_new(t->kinfo, line, json_string(sep + 2));
			}
		}
		if (*kvs(t->kinfo, "vmlinuz") == '\0' || *kvs(t->kinfo, "release") == '\0') {
			fprintf(stderr, "pagelab: vm: guest/vm-kernel %s --info printed no vmlinuz/release\n",
				t->kernel);
			return LAB_EXIT_HARNESS;
		}
		snprintf(t->label, sizeof(t->label), "guest-%s", kvs(t->kinfo, "release"));
		label_clean(t->label);
		if (with_modules) {
			/* vm-kernel's layout: PKGDIR/boot/vmlinuz-REL, PKGDIR/lib/modules/REL. */
			char dir[PATH_MAX], mod[PATH_MAX + 64];

			snprintf(dir, sizeof(dir), "%s", kvs(t->kinfo, "vmlinuz"));
			if (strrchr(dir, '/'))
				*strrchr(dir, '/') = '\0';
			if (strrchr(dir, '/'))
				*strrchr(dir, '/') = '\0';
			if (pathf(mod, sizeof(mod), "%s/lib/modules/%s", dir, kvs(t->kinfo, "release")) < 0 ||
			    access(mod, R_OK) < 0) {
				fprintf(stderr, "pagelab: vm: kernel %s: no modules directory %s (guest/vm-kernel "
					"%s --with-modules)\n", t->kernel, mod, t->kernel);
				return LAB_EXIT_CANNOT;
			}
			json_object_set_new(t->kinfo, "modules", json_string(mod));
		}
	}
	return 0;
}

/* The last n lines of a log, on stderr. */
static void log_tail(const char *path, int n)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	size_t len = 0;
	const char *p;

	if (lab_read_file(path, &buf, &len, &e) < 0 || len == 0)
		return;
	p = buf + len - 1;
	while (p > buf && n >= 0)
		if (*--p == '\n')
			n--;
	fputs(p == buf ? p : p + 1, stderr);
}

/* build-static/: configured once, brought up to date by cmake every time (a
 * no-op when nothing changed). */
static int static_build(struct vm_env *env, const struct vm_opts *o)
{
	static const char *const need[] = { "pagelab", "workloads/region", "workloads/hold",
					    "workloads/lazyscan" };
	struct lab_error err;
	char log[PATH_MAX + 32], cache[PATH_MAX + 32], lock[PATH_MAX + 32], cmake[PATH_MAX];
	cleanup_close int lockfd = -1;
	int st;

	char libexec[PATH_MAX], guest[PATH_MAX + 8] = "<libexec>/pagelab/guest";

	/* An installed pagelab has its guest's static binaries in
	 * <libexec>/pagelab/guest (the Debian package builds them). */
	if (o->build == NULL && lab_installed()) {
		if (!lab_installed_libexec(libexec, sizeof(libexec)) ||
		    pathf(guest, sizeof(guest), "%s/guest", libexec) < 0 || realpath(guest, env->build) == NULL) {
			fprintf(stderr, "pagelab: vm: this installed pagelab has no guest binaries in %s: pass "
				"--build DIR (a static build: cmake -DPAGELAB_STATIC=ON)\n", guest);
			return LAB_EXIT_CANNOT;
		}
	} else if (o->build != NULL) {
		if (realpath(o->build, env->build) == NULL) {
			fprintf(stderr, "pagelab: vm: --build %s: %s\n", o->build, strerror(errno));
			return LAB_EXIT_USAGE;
		}
	} else {
		if (pathf(env->build, sizeof(env->build), "%s/%s", env->src, env->arch->build_dir) < 0) {
			fprintf(stderr, "pagelab: vm: source path too long: %s\n", env->src);
			return LAB_EXIT_HARNESS;
		}
		if (!in_path("cmake", cmake, sizeof(cmake))) {
			fprintf(stderr, "pagelab: vm: cmake not found: it builds the guest's static binaries "
				"(apt-get install cmake, or pass --build DIR)\n");
			return LAB_EXIT_CANNOT;
		}
		snprintf(log, sizeof(log), "%s/vm-build.log", env->build);
		snprintf(cache, sizeof(cache), "%s/CMakeCache.txt", env->build);
		if (lab_mkdir_p(env->build, 0755, &err) < 0) {
			fprintf(stderr, "pagelab: vm: %s\n", err.msg);
			return LAB_EXIT_HARNESS;
		}
		/* Two `pagelab vm` from one tree at once must not run make in the
		 * same build directory together (a half-linked binary would go into
		 * a guest): the second waits here for the first's build. */
		snprintf(lock, sizeof(lock), "%s/.vm-build.lock", env->build);
		lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (lockfd < 0 || flock(lockfd, LOCK_EX) < 0) {
			fprintf(stderr, "pagelab: vm: lock %s: %s\n", lock, strerror(errno));
			return LAB_EXIT_HARNESS;
		}
		if (access(cache, F_OK) < 0) {
			char tc[PATH_MAX + 64];
			char *argv[] = { cmake, "-S", env->src, "-B", env->build, "-DPAGELAB_STATIC=ON", NULL, NULL };

			if (env->arch->toolchain != NULL) {
				if (pathf(tc, sizeof(tc), "-DCMAKE_TOOLCHAIN_FILE=%s/%s", env->src,
					  env->arch->toolchain) < 0) {
					fprintf(stderr, "pagelab: vm: source path too long: %s\n", env->src);
					return LAB_EXIT_HARNESS;
				}
				argv[6] = tc;
			}

			fprintf(stderr, "pagelab: vm: configuring the static build in %s\n", env->build);
			st = run_to_file(argv, log, true, &err);
			if (st != 0) {
				log_tail(log, 15);
				fprintf(stderr, "pagelab: vm: configuring %s failed (%s; see %s)\n", env->build,
					st < 0 ? err.msg : "cmake", log);
				return LAB_EXIT_HARNESS;
			}
		}
		{
			char *argv[] = { cmake, "--build", env->build, "-j2", NULL };

			fprintf(stderr, "pagelab: vm: cmake --build %s (the guest's static binaries)\n", env->build);
			/* Linker warnings about getpwnam in a static glibc binary are
			 * expected (libcgroup links it; the guest never calls it). */
			st = run_to_file(argv, log, true, &err);
			if (st != 0) {
				log_tail(log, 15);
				fprintf(stderr, "pagelab: vm: building the static binaries failed (%s; see %s)\n",
					st < 0 ? err.msg : "cmake --build", log);
				return LAB_EXIT_HARNESS;
			}
			unlink(log);
		}
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		char p[PATH_MAX * 2];

		snprintf(p, sizeof(p), "%s/%s", env->build, need[i]);
		if (access(p, X_OK) < 0) {
			fprintf(stderr, "pagelab: vm: %s is missing (the static build: cmake -S . -B %s "
				"-DPAGELAB_STATIC=ON%s%s && cmake --build %s)\n", p, env->arch->build_dir,
				env->arch->toolchain ? " -DCMAKE_TOOLCHAIN_FILE=" : "",
				env->arch->toolchain ? env->arch->toolchain : "", env->arch->build_dir);
			return LAB_EXIT_HARNESS;
		}
	}
	return 0;
}

/* `pagelab run` on this host, as a child: the same binary, the very image
 * that is running.  Not the path it was started from: by the time the host
 * target runs (after a kernel fetch, the wait for the static build's lock and
 * the build), a rebuild may have replaced that file — the linker unlinks the
 * old one, /proc/self/exe then reads "…/pagelab (deleted)", and an exec of
 * that name failed with ENOENT.  The forked child's /proc/self/exe is still
 * the image it was forked from, whatever became of its file. */
static int run_host(const struct vm_env *env, const struct run_fwd *f, const char *scn_arg,
		    struct target *t)
{
	char out[PATH_MAX + 8];
	char *argv[VM_MAX_ARGS + 8];
	struct lab_error err;
	int a = 0, st;

	(void)env;
	snprintf(out, sizeof(out), "%s.json", t->stem);
	argv[a++] = "/proc/self/exe";
	argv[a++] = "run";
	argv[a++] = (char *)scn_arg;
	argv[a++] = "--out";
	argv[a++] = out;
	argv[a++] = "--no-report";
	for (int i = 0; i < f->fwd.argc; i++)
		argv[a++] = f->fwd.argv[i];
	argv[a] = NULL;
	fprintf(stderr, "pagelab: vm: %s: pagelab run on this host\n", t->label);
	st = run_to_file(argv, NULL, false, &err);
	if (st < 0) {
		fprintf(stderr, "pagelab: vm: %s\n", err.msg);
		return t->status = LAB_EXIT_HARNESS;
	}
	t->status = st;
	snprintf(t->result, sizeof(t->result), "%s", out);
	t->ok = access(out, R_OK) == 0 && st != LAB_EXIT_USAGE && st != LAB_EXIT_CANNOT;
	if (st == LAB_EXIT_CANNOT)
		fprintf(stderr, "pagelab: vm: --host: this host cannot run the scenario (above); the report "
			"shows the guests only\n");
	return st;
}

/* The guest's status from vm-run's vm-status, as one line (console log named). */
static int guest_failure(const struct target *t, const json_t *vs, int vm_status, const char *console)
{
	const char *status = kvs(vs, "status");
	char error[LAB_ERROR_MSG_MAX];
	char *cut;

	/* vm-run names its own copy of the console log; ours is the one kept. */
	snprintf(error, sizeof(error), "%s", kvs(vs, "error"));
	cut = strstr(error, " (console: ");
	if (cut != NULL)
		*cut = '\0';
	if (vm_signal) {
		fprintf(stderr, "pagelab: vm: %s: interrupted by %s: the guest was stopped (console: %s)\n",
			t->label, strsignal(vm_signal), console);
		return LAB_EXIT_INTERRUPTED;
	}
	if (!strcmp(status, "no-qemu")) {
		fprintf(stderr, "pagelab: vm: %s: no qemu: %s\n", t->label, error);
		return LAB_EXIT_CANNOT;
	}
	if (!strcmp(status, "no-kernel")) {
		fprintf(stderr, "pagelab: vm: %s: kernel impossible to get: %s\n", t->label, error);
		return LAB_EXIT_CANNOT;
	}
	if (!strcmp(status, "channel-refused"))
		fprintf(stderr, "pagelab: vm: %s: the guest's result refused: %s (console: %s)\n", t->label, error,
			console);
	else if (!strcmp(status, "panic"))
		fprintf(stderr, "pagelab: vm: %s: guest panic: %s (console: %s)\n", t->label, error, console);
	else if (!strcmp(status, "timeout") || vm_status == 124)
		fprintf(stderr, "pagelab: vm: %s: guest timeout: %s (console: %s)\n", t->label, error, console);
	else if (!strcmp(status, "no-output"))
		fprintf(stderr, "pagelab: vm: %s: result missing: %s (console: %s)\n", t->label, error, console);
	else if (*status != '\0' && strcmp(status, "ok") != 0)
		fprintf(stderr, "pagelab: vm: %s: the guest failed (%s): %s (console: %s)\n", t->label, status,
			error, console);
	else
		fprintf(stderr, "pagelab: vm: %s: guest/vm-run exited %d without a verdict (console: %s)\n",
			t->label, vm_status, console);
	return LAB_EXIT_HARNESS;
}

struct guest_shape {
	unsigned long long mem;
	unsigned cpus;
	char thp[16];                   /* "" = the kernel's default */
	unsigned long long swap;
	unsigned long long disk;
	char cmdline[1024];
};

static int run_guest(const struct vm_env *env, const struct vm_opts *o, const struct guest_shape *g,
		     const struct run_fwd *f, const char *scn_dir, const char *scn_file,
		     const char *scn_arg, struct target *t)
{
	char rundir[PATH_MAX + 64], console[PATH_MAX + 16], mem[32], cpus[16], tmo[16], swap[32], disk[32];
	char numa[16];
	char scnfile_arg[PATH_MAX + 64], scndir_arg[PATH_MAX + 32], guest_scn[PATH_MAX];
	char vs_path[PATH_MAX + 80], gi_path[PATH_MAX + 80], res[PATH_MAX + 80], stream[PATH_MAX + 80];
	char *argv[VM_MAX_ARGS + 64];
	const char *b;
	struct lab_error err;
	json_t *vs = NULL, *gi = NULL, *doc = NULL;
	json_error_t je;
	int a = 0, st, ret = LAB_EXIT_RAN;

	/* vm-run's own directory; removed once the result is safe beside the others. */
	if (pathf(rundir, sizeof(rundir), "%s/vm/runs/%s", env->cache,
		  (b = strrchr(t->stem, '/')) ? b + 1 : t->stem) < 0) {
		fprintf(stderr, "pagelab: vm: path too long under %s/.cache\n", env->src);
		return t->status = LAB_EXIT_HARNESS;
	}
	snprintf(console, sizeof(console), "%s.console.log", t->stem);
	snprintf(mem, sizeof(mem), "%lluM", g->mem >> 20);
	snprintf(cpus, sizeof(cpus), "%u", g->cpus);
	snprintf(tmo, sizeof(tmo), "%u", o->timeout_s);

	argv[a++] = (char *)env->vm_run;
	argv[a++] = "--kernel";
	argv[a++] = (char *)kvs(t->kinfo, "vmlinuz");
	argv[a++] = "--mem";
	argv[a++] = mem;
	argv[a++] = "--cpus";
	argv[a++] = cpus;
	argv[a++] = "--arch";
	argv[a++] = (char *)o->arch;
	if (o->numa) {
		snprintf(numa, sizeof(numa), "%u", o->numa);
		argv[a++] = "--numa";
		argv[a++] = numa;
	}
	if (g->thp[0]) {
		argv[a++] = "--thp";
		argv[a++] = (char *)g->thp;
	}
	if (g->swap) {
		snprintf(swap, sizeof(swap), "%lluK", g->swap >> 10);
		argv[a++] = "--swap";
		argv[a++] = swap;
	}
	if (g->disk) {
		snprintf(disk, sizeof(disk), "%lluM", (g->disk + (1ULL << 20) - 1) >> 20);
		argv[a++] = "--disk";
		argv[a++] = disk;
	}
	if ((g->swap || g->disk) && (o->modules || *kvs(t->kinfo, "modules"))) {
		argv[a++] = "--modules";
		argv[a++] = (char *)(o->modules ? o->modules : kvs(t->kinfo, "modules"));
	}
	if (g->cmdline[0]) {
		argv[a++] = "--append";
		argv[a++] = (char *)g->cmdline;
	}
	argv[a++] = "--timeout";
	argv[a++] = tmo;
	argv[a++] = "--out";
	argv[a++] = rundir;
	argv[a++] = "--build";
	argv[a++] = (char *)env->build;
	if (scn_file != NULL) {
		b = strrchr(scn_file, '/') ? strrchr(scn_file, '/') + 1 : scn_file;
		if (pathf(guest_scn, sizeof(guest_scn), "/scenario-file/%s", b) < 0 ||
		    pathf(scnfile_arg, sizeof(scnfile_arg), "%s:%s", scn_file, guest_scn) < 0) {
			fprintf(stderr, "pagelab: vm: scenario path too long: %s\n", scn_file);
			return t->status = LAB_EXIT_USAGE;
		}
		argv[a++] = "--file";
		argv[a++] = scnfile_arg;
	} else {
		if (pathf(guest_scn, sizeof(guest_scn), "%s", scn_arg) < 0 ||
		    pathf(scndir_arg, sizeof(scndir_arg), "%s:/scenarios", scn_dir) < 0) {
			fprintf(stderr, "pagelab: vm: scenario path too long: %s\n", scn_dir);
			return t->status = LAB_EXIT_USAGE;
		}
		argv[a++] = "--file";
		argv[a++] = scndir_arg;
	}
	argv[a++] = "--";
	/* The guest's init exports PAGELAB_GUEST=1 already; it is said again here
	 * because it is what lets a destructive scenario run (host.c). */
	argv[a++] = "env";
	argv[a++] = "PAGELAB_GUEST=1";
	argv[a++] = "PAGELAB_SCENARIOS=/scenarios";
	argv[a++] = "PAGELAB_WORKLOADS=/bin";
	argv[a++] = "pagelab";
	argv[a++] = "run";
	argv[a++] = guest_scn;
	argv[a++] = "--out";
	argv[a++] = VM_GUEST_RESULT;
	argv[a++] = "--no-report";
	for (int i = 0; i < f->fwd.argc; i++)
		argv[a++] = f->fwd.argv[i];
	argv[a] = NULL;

	fprintf(stderr, "pagelab: vm: %s: booting (%s, %s%s%s, %u cpus%s%s%s%s%s%s), timeout %u s\n", t->label,
		o->arch, mem, o->numa ? " in nodes: " : "", o->numa ? numa : "", g->cpus,
		g->thp[0] ? ", thp " : "", g->thp, g->swap ? ", swap " : "", g->swap ? swap : "",
		g->disk ? ", disk " : "", g->disk ? disk : "", o->timeout_s);
	st = run_to_file(argv, NULL, false, &err);
	if (st < 0) {
		fprintf(stderr, "pagelab: vm: %s: %s\n", t->label, err.msg);
		return t->status = LAB_EXIT_HARNESS;
	}
	if (pathf(vs_path, sizeof(vs_path), "%s/vm-status", rundir) < 0 ||
	    pathf(gi_path, sizeof(gi_path), "%s/guest-info", rundir) < 0 ||
	    pathf(res, sizeof(res), "%s/files/result.json", rundir) < 0 ||
	    pathf(stream, sizeof(stream), "%s/files/result.jsonl", rundir) < 0) {
		fprintf(stderr, "pagelab: vm: path too long: %s\n", rundir);
		return t->status = LAB_EXIT_HARNESS;
	}
	vs = keyvalue_file(vs_path);
	gi = keyvalue_file(gi_path);
	{
		char src[PATH_MAX + 80];

		if (pathf(src, sizeof(src), "%s/console.log", rundir) == 0 && access(src, R_OK) == 0) {
			if (copy_file(src, console, &err) < 0)
				fprintf(stderr, "pagelab: vm: warning: keeping the console log: %s\n", err.msg);
		} else {
			pathf(console, sizeof(console), "(no console log: the guest never booted; see %s)",
			      rundir);
		}
	}
	if (strcmp(kvs(vs, "status"), "ok") != 0) {
		ret = guest_failure(t, vs, st, console);
		goto out;
	}
	/* The guest ran its command: st is the guest pagelab's own status. */
	if (access(res, F_OK) < 0) {
		if (st == LAB_EXIT_USAGE || st == LAB_EXIT_CANNOT) {
			ret = st;      /* the guest said why on stderr, streamed above */
			fprintf(stderr, "pagelab: vm: %s: the guest's pagelab exited %d (%s; console: %s)\n",
				t->label, st, st == LAB_EXIT_USAGE ? "bad input" : "the guest cannot run it", console);
		} else if (access(stream, F_OK) == 0) {
			ret = LAB_EXIT_HARNESS;
			fprintf(stderr, "pagelab: vm: %s: result truncated: the guest's pagelab exited %d and left "
				"only its stream %s.jsonl, no result document (console: %s)\n", t->label, st,
				t->stem, console);
			{
				char jl[PATH_MAX + 16];

				snprintf(jl, sizeof(jl), "%s.jsonl", t->stem);
				if (copy_file(stream, jl, &err) < 0)
					fprintf(stderr, "pagelab: vm: warning: %s\n", err.msg);
			}
		} else {
			ret = LAB_EXIT_HARNESS;
			fprintf(stderr, "pagelab: vm: %s: result missing: the guest's pagelab exited %d and wrote no "
				"%s (console: %s)\n", t->label, st, VM_GUEST_RESULT, console);
		}
		goto out;
	}
	{
		cleanup_free char *text = NULL;
		size_t tlen = 0;

		if (lab_read_input(res, "result", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, &tlen, &err) < 0)
			snprintf(je.text, sizeof(je.text), "%.*s", (int)sizeof(je.text) - 1, err.msg);
		else
			doc = json_loadb(text, tlen, 0, &je);
	}
	if (doc == NULL || !json_is_object(doc) ||
	    strcmp(kvs(doc, RK_SCHEMA), RESULT_SCHEMA_ID) != 0) {
		ret = LAB_EXIT_HARNESS;
		fprintf(stderr, "pagelab: vm: %s: result truncated or garbled: %s: %s (console: %s)\n", t->label,
			res, doc == NULL ? je.text : "not a pagelab.result/1 document", console);
		goto out;
	}
	{
		/* What the guest was: recorded in the result document itself, so a
		 * column of the report can be traced to its machine and kernel. */
		json_t *v = json_object();
		const char *thp_set = kvs(gi, "thp_enabled");

		json_object_set_new(v, "kernel_asked", json_string(t->kernel));
		json_object_set_new(v, "flavour", json_string(is_series(t->kernel) ? o->flavour : "path"));
		json_object_set_new(v, "package", json_string(kvs(t->kinfo, "package")));
		json_object_set_new(v, "package_version", json_string(kvs(t->kinfo, "version")));
		json_object_set_new(v, "metapackage", json_string(kvs(t->kinfo, "metapackage")));
		json_object_set_new(v, "vmlinuz", json_string(kvs(t->kinfo, "vmlinuz")));
		json_object_set_new(v, "release", json_string(kvs(gi, "uname_r")));
		json_object_set_new(v, "qemu", json_string(env->qemu));
		json_object_set_new(v, "accel", json_string("tcg"));
		json_object_set_new(v, "arch", json_string(o->arch));
		json_object_set_new(v, "machine", json_string(kvs(gi, "uname_m")));
		json_object_set_new(v, "numa_nodes_asked", json_integer(o->numa));
		json_object_set_new(v, "numa_nodes", kv_number(gi, "numa_nodes"));
		json_object_set_new(v, "mem_bytes", json_integer((json_int_t)((g->mem >> 20) << 20)));
		json_object_set_new(v, "cpus", json_integer(g->cpus));
		json_object_set_new(v, "thp_asked", g->thp[0] ? json_string(g->thp) : json_null());
		json_object_set_new(v, "thp_enabled", json_string(thp_set));
		json_object_set_new(v, "swap_bytes", json_integer((json_int_t)((g->swap >> 10) << 10)));
		json_object_set_new(v, "swap_device", json_string(kvs(gi, "swap_device")));
		json_object_set_new(v, "disk_bytes", json_integer((json_int_t)((g->disk >> 20) << 20)));
		json_object_set_new(v, "disk", json_string(kvs(gi, "disk")));
		json_object_set_new(v, "cmdline", json_string(kvs(gi, "cmdline")));
		json_object_set_new(v, "boot_wall_s", kv_number(vs, "boot_wall_s"));
		json_object_set_new(v, "command_s", kv_number(vs, "command_s"));
		json_object_set_new(v, "wall_s", kv_number(vs, "wall_s"));
		json_object_set_new(v, "qemu_peak_rss_kb", kv_number(vs, "qemu_peak_rss_kb"));
		json_object_set_new(v, "exit_code", json_integer(st));
		json_object_set_new(v, "console_log", json_string(console));
		json_object_set(v, "guest_info", gi);
		json_object_set_new(doc, "vm", v);
	}
	snprintf(t->result, sizeof(t->result), "%s.json", t->stem);
	{
		char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		char jl[PATH_MAX + 16];

		if (text == NULL || lab_write_atomic(t->result, text, strlen(text), &err) < 0) {
			free(text);
			ret = LAB_EXIT_HARNESS;
			fprintf(stderr, "pagelab: vm: %s: writing %s: %s\n", t->label, t->result,
				text ? err.msg : "out of memory");
			goto out;
		}
		free(text);
		snprintf(jl, sizeof(jl), "%s.jsonl", t->stem);
		if (access(stream, R_OK) == 0 && copy_file(stream, jl, &err) < 0)
			fprintf(stderr, "pagelab: vm: warning: %s\n", err.msg);
	}
	t->ok = true;
	ret = st;
	fprintf(stderr, "pagelab: vm: %s: %s (%s), boot %s s, scenario %s s, %s s in all; console %s\n",
		t->label, kvs(doc, "status"), kvs(gi, "uname_r"), kvs(vs, "boot_wall_s"),
		kvs(vs, "command_s"), kvs(vs, "wall_s"), console);
out:
	if (ret == LAB_EXIT_RAN && t->ok)
		nftw(rundir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	else if (ret != LAB_EXIT_RAN)
		fprintf(stderr, "pagelab: vm: %s: the guest's files are kept in %s\n", t->label, rundir);
	json_decref(vs);
	json_decref(gi);
	json_decref(doc);
	return t->status = ret;
}

/* ---- vm audit ------------------------------------------------------------------- */

static int find_env(struct vm_env *env, const struct vm_opts *o, const char *scn_name);

/* `pagelab vm [vm options] audit [audit options] [--then [audit options]]...`:
 * `pagelab audit` inside each guest (and on this host with --host), for the
 * watermark arithmetic of a machine shape this host is not: another
 * architecture, more or less memory, NUMA nodes.  Each "--then" starts another
 * audit in the same guest, one after the other (a state: e.g. `--with
 * thp=never`, which the guest's own journal sets and puts back before the
 * next), so one boot audits several settings.  The audit options go to the
 * guest's audit as they are (it checks them: its exit 2 comes back).
 * Each target writes OUT-DIR/audit-STAMP-LABEL.json with --json (schema
 * pagelab.vm-audit/1: "states": [{"args", "exit", "audit": the audit's own
 * document}], and the `vm` object a run's result carries), else .txt; the
 * text is printed, the paths last; a guest's console log is kept beside. */

#define VM_AUDIT_MAX_STATES 16

struct audit_states {
	size_t n;
	int start[VM_AUDIT_MAX_STATES];         /* index of each state's first option in argv */
	int len[VM_AUDIT_MAX_STATES];
};

/* A word single-quoted for sh. */
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
static int audit_script(const struct audit_states *st, char **argv, char *buf, size_t len)
{
	size_t off = 0;
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
			if (sh_quote(buf, len, &off, argv[st->start[i] + k]) < 0)
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

/* The document of one target: every state's audit, parsed. */
static json_t *audit_states_doc(const struct audit_states *st, char **argv, const char *files_dir,
				const char *label, bool *ok)
{
	json_t *doc = json_object(), *states = json_array();

	*ok = true;
	json_object_set_new(doc, "schema", json_string("pagelab.vm-audit/1"));
	json_object_set_new(doc, "target", json_string(label));
	for (size_t i = 0; i < st->n; i++) {
		char path[PATH_MAX + 64];
		cleanup_free char *rc = NULL;
		json_t *one = json_object(), *args = json_array(), *a;
		json_error_t je;
		struct lab_error e;
		unsigned long long v = 0;

		for (int k = 0; k < st->len[i]; k++)
			json_array_append_new(args, json_string(argv[st->start[i] + k]));
		json_object_set_new(one, "args", args);
		pathf(path, sizeof(path), "%s/audit-%zu.rc", files_dir, i + 1);
		if (lab_read_input(path, "guest file", VM_KV_MAX, LAB_INPUT_NOFOLLOW, &rc, NULL, &e) == 0) {
			rc[strcspn(rc, "\n")] = '\0';
			lab_parse_uint(rc, &v, &e);
		} else {
			v = LAB_EXIT_HARNESS;
		}
		json_object_set_new(one, "exit", json_integer((json_int_t)v));
		pathf(path, sizeof(path), "%s/audit-%zu.out", files_dir, i + 1);
		{
			cleanup_free char *text = NULL;
			size_t tlen = 0;

			a = NULL;
			if (lab_read_input(path, "audit", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, &tlen, &e) < 0)
				snprintf(je.text, sizeof(je.text), "%.*s", (int)sizeof(je.text) - 1, e.msg);
			else
				a = json_loadb(text, tlen, 0, &je);
		}
		if (a == NULL || !json_is_object(a)) {
			fprintf(stderr, "pagelab: vm: %s: state %zu printed no JSON object: %s\n", label, i + 1,
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

static int vm_audit_target(const struct vm_env *env, const struct vm_opts *o, const struct guest_shape *g,
			   const struct audit_states *sts, char **argv, bool json, struct target *t)
{
	char rundir[PATH_MAX + 64], console[PATH_MAX + 16], out[PATH_MAX + 8], vs_path[PATH_MAX + 80];
	char gi_path[PATH_MAX + 80], files[PATH_MAX + 80], mem[32], cpus[16], tmo[16], numa[16];
	char script[8192];
	char *av[VM_MAX_ARGS + 48];
	const char *b;
	struct lab_error err;
	json_t *vs = NULL, *gi = NULL, *doc = NULL;
	int a = 0, st, ret;

	if (pathf(out, sizeof(out), "%s.%s", t->stem, json ? "json" : "txt") < 0 ||
	    pathf(rundir, sizeof(rundir), "%s/.cache/vm/runs/%s", env->src,
		  (b = strrchr(t->stem, '/')) ? b + 1 : t->stem) < 0 ||
	    pathf(vs_path, sizeof(vs_path), "%s/vm-status", rundir) < 0 ||
	    pathf(gi_path, sizeof(gi_path), "%s/guest-info", rundir) < 0 ||
	    pathf(files, sizeof(files), "%s/files", rundir) < 0) {
		fprintf(stderr, "pagelab: vm: path too long: %s\n", t->stem);
		return t->status = LAB_EXIT_USAGE;
	}
	if (audit_script(sts, argv, script, sizeof(script)) < 0) {
		fprintf(stderr, "pagelab: vm: audit: the options are too long\n");
		return t->status = LAB_EXIT_USAGE;
	}
	if (t->kernel == NULL) {
		/* This host: the same script, with this binary as pagelab. */
		char exe[PATH_MAX], dir[PATH_MAX + 80];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		char *sv[] = { "/bin/sh", "-c", NULL, NULL };
		char *fixed;

		if (n < 0) {
			fprintf(stderr, "pagelab: vm: readlink /proc/self/exe: %s\n", strerror(errno));
			return t->status = LAB_EXIT_HARNESS;
		}
		exe[n] = '\0';
		if (pathf(dir, sizeof(dir), "%s.files", t->stem) < 0 || lab_mkdir_p(dir, 0755, &err) < 0) {
			fprintf(stderr, "pagelab: vm: %s: cannot make %s.files\n", t->label, t->stem);
			return t->status = LAB_EXIT_HARNESS;
		}
		/* The script names /out/files and pagelab; on the host both are
		 * variables instead. */
		if (asprintf(&fixed, "PATH=\"$(dirname '%s'):$PATH\"\ncd '%s' || exit 1\n%s", exe, dir, script) < 0)
			return t->status = LAB_EXIT_HARNESS;
		for (char *p; (p = strstr(fixed, "/out/files/")) != NULL;)
			memmove(p, p + 11, strlen(p + 11) + 1);
		sv[2] = fixed;
		fprintf(stderr, "pagelab: vm: %s: pagelab audit on this host (%zu state%s)\n", t->label, sts->n,
			sts->n == 1 ? "" : "s");
		st = run_to_file(sv, NULL, false, &err);
		free(fixed);
		if (st < 0) {
			fprintf(stderr, "pagelab: vm: %s\n", err.msg);
			return t->status = LAB_EXIT_HARNESS;
		}
		snprintf(files, sizeof(files), "%s", dir);
		vs = json_object();
		gi = json_object();
		ret = st;
		goto collect;
	}
	snprintf(console, sizeof(console), "%s.console.log", t->stem);
	snprintf(mem, sizeof(mem), "%lluM", g->mem >> 20);
	snprintf(cpus, sizeof(cpus), "%u", g->cpus);
	snprintf(tmo, sizeof(tmo), "%u", o->timeout_s);
	snprintf(numa, sizeof(numa), "%u", o->numa);
	av[a++] = (char *)env->vm_run;
	av[a++] = "--kernel";
	av[a++] = (char *)kvs(t->kinfo, "vmlinuz");
	av[a++] = "--arch";
	av[a++] = (char *)o->arch;
	av[a++] = "--mem";
	av[a++] = mem;
	av[a++] = "--numa";
	av[a++] = numa;
	av[a++] = "--cpus";
	av[a++] = cpus;
	if (g->thp[0]) {
		av[a++] = "--thp";
		av[a++] = (char *)g->thp;
	}
	if (g->cmdline[0]) {
		av[a++] = "--append";
		av[a++] = (char *)g->cmdline;
	}
	av[a++] = "--timeout";
	av[a++] = tmo;
	av[a++] = "--out";
	av[a++] = rundir;
	av[a++] = "--build";
	av[a++] = (char *)env->build;
	av[a++] = "--";
	av[a++] = "env";
	av[a++] = "PAGELAB_GUEST=1";
	av[a++] = "sh";
	av[a++] = "-c";
	av[a++] = script;
	av[a] = NULL;
	fprintf(stderr, "pagelab: vm: %s: booting (%s, %s%s%s, %u cpus%s%s) for %zu audit state%s, timeout %u s\n",
		t->label, o->arch, mem, o->numa ? " in nodes: " : "", o->numa ? numa : "", g->cpus,
		g->thp[0] ? ", thp " : "", g->thp, sts->n, sts->n == 1 ? "" : "s", o->timeout_s);
	st = run_to_file(av, NULL, false, &err);
	if (st < 0) {
		fprintf(stderr, "pagelab: vm: %s: %s\n", t->label, err.msg);
		return t->status = LAB_EXIT_HARNESS;
	}
	vs = keyvalue_file(vs_path);
	gi = keyvalue_file(gi_path);
	{
		char src[PATH_MAX + 80];

		if (pathf(src, sizeof(src), "%s/console.log", rundir) == 0 && access(src, R_OK) == 0 &&
		    copy_file(src, console, &err) < 0)
			fprintf(stderr, "pagelab: vm: warning: keeping the console log: %s\n", err.msg);
	}
	if (strcmp(kvs(vs, "status"), "ok") != 0) {
		ret = guest_failure(t, vs, st, console);
		goto done;
	}
	ret = st;
collect:
	if (json) {
		bool ok;
		char *text;

		doc = audit_states_doc(sts, argv, files, t->label, &ok);
		if (!ok && ret == LAB_EXIT_RAN)
			ret = LAB_EXIT_HARNESS;
		if (t->kernel != NULL) {
			json_t *v = json_object();

			json_object_set_new(v, "kernel_asked", json_string(t->kernel));
			json_object_set_new(v, "package", json_string(kvs(t->kinfo, "package")));
			json_object_set_new(v, "package_version", json_string(kvs(t->kinfo, "version")));
			json_object_set_new(v, "release", json_string(kvs(gi, "uname_r")));
			json_object_set_new(v, "arch", json_string(o->arch));
			json_object_set_new(v, "machine", json_string(kvs(gi, "uname_m")));
			json_object_set_new(v, "accel", json_string("tcg"));
			json_object_set_new(v, "mem_bytes", json_integer((json_int_t)((g->mem >> 20) << 20)));
			json_object_set_new(v, "cpus", json_integer(g->cpus));
			json_object_set_new(v, "numa_nodes_asked", json_integer(o->numa));
			json_object_set_new(v, "numa_nodes", kv_number(gi, "numa_nodes"));
			json_object_set_new(v, "thp_asked", g->thp[0] ? json_string(g->thp) : json_null());
			json_object_set_new(v, "thp_enabled", json_string(kvs(gi, "thp_enabled")));
			json_object_set_new(v, "cmdline", json_string(kvs(gi, "cmdline")));
			json_object_set_new(v, "boot_wall_s", kv_number(vs, "boot_wall_s"));
			json_object_set_new(v, "command_s", kv_number(vs, "command_s"));
			json_object_set_new(v, "wall_s", kv_number(vs, "wall_s"));
			json_object_set_new(v, "qemu_peak_rss_kb", kv_number(vs, "qemu_peak_rss_kb"));
			json_object_set_new(v, "console_log", json_string(console));
			json_object_set(v, "guest_info", gi);
			json_object_set_new(doc, "vm", v);
		}
		text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		if (text == NULL || lab_write_atomic(out, text, strlen(text), &err) < 0) {
			fprintf(stderr, "pagelab: vm: %s: writing %s: %s\n", t->label, out, text ? err.msg : "out of memory");
			free(text);
			ret = LAB_EXIT_HARNESS;
			goto done;
		}
		free(text);
	} else {
		FILE *f = fopen(out, "we");

		if (f == NULL) {
			fprintf(stderr, "pagelab: vm: %s: %s: %s\n", t->label, out, strerror(errno));
			ret = LAB_EXIT_HARNESS;
			goto done;
		}
		for (size_t i = 0; i < sts->n; i++) {
			cleanup_free char *text = NULL;
			char path[PATH_MAX + 64];
			struct lab_error e;

			fprintf(f, "== %s, state %zu: pagelab audit", t->label, i + 1);
			for (int k = 0; k < sts->len[i]; k++)
				fprintf(f, " %s", argv[sts->start[i] + k]);
			fprintf(f, " ==\n");
			pathf(path, sizeof(path), "%s/audit-%zu.out", files, i + 1);
			if (lab_read_input(path, "audit", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &text, NULL, &e) == 0)
				fputs(text, f);
			fputc('\n', f);
		}
		if (fclose(f) != 0)
			ret = LAB_EXIT_HARNESS;
	}
	snprintf(t->result, sizeof(t->result), "%s", out);
	t->ok = true;
	if (t->kernel != NULL)
		fprintf(stderr, "pagelab: vm: %s: audit exited %d (%s), boot %s s, %s s in all; console %s\n",
			t->label, st, kvs(gi, "uname_r"), kvs(vs, "boot_wall_s"), kvs(vs, "wall_s"), console);
done:
	if (t->kernel == NULL) {
		nftw(files, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	} else if (ret == LAB_EXIT_RAN) {
		nftw(rundir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	} else {
		fprintf(stderr, "pagelab: vm: %s: the guest's files are kept in %s\n", t->label, rundir);
	}
	json_decref(vs);
	json_decref(gi);
	json_decref(doc);
	return t->status = ret;
}

static int vm_audit(struct vm_opts *o, int argc, char **argv)
{
	struct target targets[VM_MAX_KERNELS + 1];
	struct audit_states sts;
	struct guest_shape g;
	struct vm_env env;
	size_t nt = 0;
	bool json = false;
	int status = LAB_EXIT_RAN;

	memset(targets, 0, sizeof(targets));
	memset(&sts, 0, sizeof(sts));
	if (argc > VM_MAX_ARGS)
		return vm_usage("audit: too many options");
	sts.n = 1;
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--then") == 0) {
			if (sts.n == VM_AUDIT_MAX_STATES)
				return vm_usage("audit: at most %d states (--then)", VM_AUDIT_MAX_STATES);
			sts.start[sts.n++] = i + 1;
			continue;
		}
		sts.len[sts.n - 1]++;
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		if (strcmp(argv[i], "--watch") == 0 || strcmp(argv[i], "--advice") == 0)
			return vm_usage("audit: %s is for this host's own audit (pagelab audit)", argv[i]);
	}
	if (json)
		for (size_t i = 0; i < sts.n; i++) {
			bool has = false;

			for (int k = 0; k < sts.len[i]; k++)
				has = has || strcmp(argv[sts.start[i] + k], "--json") == 0;
			if (!has)
				return vm_usage("audit: --json in one state needs --json in every state");
		}
	if (o->swap_set || o->disk_set || o->modules)
		return vm_usage("audit: --swap, --disk and --modules are for run");
	memset(&g, 0, sizeof(g));
	g.mem = o->mem ? o->mem : VM_DEFAULT_MEM;
	g.cpus = o->cpus ? o->cpus : VM_DEFAULT_CPUS;
	if (o->thp)
		snprintf(g.thp, sizeof(g.thp), "%s", o->thp);
	snprintf(g.cmdline, sizeof(g.cmdline), "%s", o->cmdline);
	if (o->numa && (g.mem >> 20) % o->numa != 0) {
		fprintf(stderr, "pagelab: vm: --numa %u: the guest's %llu MiB do not split evenly into %u nodes\n",
			o->numa, g.mem >> 20, o->numa);
		return LAB_EXIT_USAGE;
	}
	if (o->nr_kernels == 0)
		o->kernels[o->nr_kernels++] = VM_DEFAULT_KERNEL;
	status = find_env(&env, o, "audit");
	if (status != 0)
		return status;
	if (o->host) {
		struct target *t = &targets[nt++];
		struct utsname u;

		uname(&u);
		snprintf(t->label, sizeof(t->label), "host-%s", u.release);
		label_clean(t->label);
		t->status = -1;
	}
	for (size_t k = 0; k < o->nr_kernels; k++) {
		struct target *t = &targets[nt++];

		t->kernel = o->kernels[k];
		t->status = -1;
		status = resolve_kernel(&env, o, false, t);
		if (status != 0)
			goto done;
	}
	for (size_t i = 0; i < nt; i++)
		if (pathf(targets[i].stem, sizeof(targets[i].stem), "%s/%s-%s-%s", env.out_dir, env.base, env.stamp,
			  targets[i].label) < 0) {
			fprintf(stderr, "pagelab: vm: result path too long in %s\n", env.out_dir);
			status = LAB_EXIT_USAGE;
			goto done;
		}
	status = static_build(&env, o);
	if (status != 0)
		goto done;
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = vm_on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	status = LAB_EXIT_RAN;
	for (size_t i = 0; i < nt && !vm_signal; i++) {
		int st = vm_audit_target(&env, o, &g, &sts, argv, json, &targets[i]);

		if (st == LAB_EXIT_INTERRUPTED || vm_signal)
			status = LAB_EXIT_INTERRUPTED;
		else if (st != LAB_EXIT_RAN && status == LAB_EXIT_RAN)
			status = st;
	}
	for (size_t i = 0; i < nt; i++) {
		cleanup_free char *buf = NULL;
		struct lab_error e;

		if (targets[i].ok && !json && lab_read_file(targets[i].result, &buf, NULL, &e) == 0)
			fputs(buf, stdout);
	}
	for (size_t i = 0; i < nt; i++)
		if (targets[i].ok)
			printf("%s\n", targets[i].result);
done:
	for (size_t i = 0; i < nt; i++)
		json_decref(targets[i].kinfo);
	return status;
}

/* ---- vm_main -------------------------------------------------------------------- */

static int find_env(struct vm_env *env, const struct vm_opts *o, const char *scn_name)
{
	struct lab_error err;
	const char *dir = o->out_dir;

	if (realpath(lab_data_dir(), env->src) == NULL) {
		fprintf(stderr, "pagelab: vm: the source tree %s is gone (%s): VM mode runs its guest/vm-run\n",
			lab_data_dir(), strerror(errno));
		return LAB_EXIT_HARNESS;
	}
	/* The cache (kernels, initramfs, runs): the tree's .cache, or for an
	 * installed pagelab $PAGELAB_CACHE_DIR, else /var/cache/pagelab; the
	 * scripts are told through the environment. */
	if (!lab_installed())
		pathf(env->cache, sizeof(env->cache), "%s/.cache", env->src);
	else
		snprintf(env->cache, sizeof(env->cache), "%s",
			 getenv("PAGELAB_CACHE_DIR") && *getenv("PAGELAB_CACHE_DIR") ? getenv("PAGELAB_CACHE_DIR")
										 : "/var/cache/pagelab");
	if (lab_installed() && setenv("PAGELAB_CACHE_DIR", env->cache, 1) < 0) {
		fprintf(stderr, "pagelab: vm: setenv: %s\n", strerror(errno));
		return LAB_EXIT_HARNESS;
	}
	snprintf(env->vm_run, sizeof(env->vm_run), "%s/guest/vm-run", env->src);
	snprintf(env->vm_kernel, sizeof(env->vm_kernel), "%s/guest/vm-kernel", env->src);
	if (access(env->vm_run, X_OK) < 0 || access(env->vm_kernel, X_OK) < 0) {
		fprintf(stderr, "pagelab: vm: %s or vm-kernel is missing: VM mode needs pagelab's source tree\n",
			env->vm_run);
		return LAB_EXIT_HARNESS;
	}
	env->arch = vm_arch_find(o->arch);
	if (!in_path(env->arch->qemu, env->qemu, sizeof(env->qemu))) {
		fprintf(stderr, "pagelab: vm: no qemu: %s is not in PATH (apt-get install %s)\n",
			env->arch->qemu, env->arch->qemu_pkg);
		return LAB_EXIT_CANNOT;
	}
	if (dir == NULL || *dir == '\0') {
		dir = getenv("PAGELAB_RESULTS");
		if (dir == NULL || *dir == '\0')
			dir = "results";
	}
	/* The default directory is made; one --out-dir names must exist. */
	if (lab_check_output_dir(dir, o->out_dir != NULL && *o->out_dir ? "--out-dir" : "the results directory",
				 o->out_dir == NULL || *o->out_dir == '\0', &err) < 0) {
		fprintf(stderr, "pagelab: vm: %s\n", err.msg);
		return LAB_EXIT_USAGE;
	}
	if (realpath(dir, env->out_dir) == NULL) {
		fprintf(stderr, "pagelab: vm: --out-dir %s: %s\n", dir, strerror(errno));
		return LAB_EXIT_HARNESS;
	}
	{
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(env->stamp, sizeof(env->stamp), "%Y%m%dT%H%M%SZ", &tm);
	}
	snprintf(env->base, sizeof(env->base), "%s", scn_name);
	for (char *p = env->base; *p; p++)
		if (*p == '/')
			*p = '-';
	return 0;
}

int vm_main(int argc, char **argv)
{
	struct vm_opts o;
	struct run_fwd f;
	struct run_plan plan;
	struct guest_shape g;
	struct vm_env env;
	struct target targets[VM_MAX_KERNELS + 1];
	struct lab_error err;
	char scn_dir[PATH_MAX], scn_path[PATH_MAX + 64], val[256];
	size_t nt = 0;
	int next = 0, ret, status = LAB_EXIT_RAN;
	bool is_file;

	memset(targets, 0, sizeof(targets));
	memset(&plan, 0, sizeof(plan));
	ret = parse_vm_opts(argc, argv, &o, &next);
	if (ret < 0) {
		printf("usage: pagelab vm [--kernel 6.1|6.12|PATH]... [--host] [--arch amd64|arm64]\n"
		       "                  [--mem SIZE] [--numa N] [--cpus N]\n"
		       "                  [--thp always|madvise|never] [--swap SIZE] [--disk SIZE]\n"
		       "                  [--cmdline TEXT]\n"
		       "                  [--timeout S] [--out-dir DIR] [--flavour generic|cloud]\n"
		       "                  [--build DIR] [--modules DIR] run NAME|FILE [run options]\n"
		       "       pagelab vm [vm options] audit [audit options] [--then [audit options]]...\n"
		       "(docs/vm.md)\n");
		return LAB_EXIT_RAN;
	}
	if (ret != 0)
		return ret;
	if (strcmp(argv[next - 1], "audit") == 0)
		return vm_audit(&o, argc - next, argv + next);
	ret = parse_run_part(argc - next + 1, argv + next - 1, &f);
	if (ret != 0)
		return ret;
	if (o.modules != NULL && !o.swap_set && !o.disk_set)
		return vm_usage("--modules is for --swap or --disk with a kernel PATH");

	/* 1. The scenario, validated as `pagelab run` validates it. */
	ret = scenario_location(f.opts.name, scn_dir, sizeof(scn_dir), scn_path, sizeof(scn_path), &is_file);
	if (ret != 0)
		return ret;
	status = run_plan_load(scn_path, f.opts.sets, f.opts.nr_sets, f.opts.repeat, 0, NULL, &plan);
	if (status != 0)
		goto done;
	/* The guest shape: options, else the scenario's [vm], else the defaults.
	 * Variant A's parameters resolve ${…} in [vm] (the shape is one per
	 * guest, not per variant). */
	memset(&g, 0, sizeof(g));
	if ((status = run_plan_instantiate(&plan, 1, 0, NULL)) != 0)
		goto done;
	g.mem = o.mem ? o.mem : VM_DEFAULT_MEM;
	if (!o.mem && vm_item(&plan.s, &plan.specs[0], "mem", val, sizeof(val)) &&
	    lab_parse_size(val, &g.mem, &err) < 0) {
		fprintf(stderr, "pagelab: %s: [vm] mem: %s\n", scn_path, err.msg);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	if (g.mem < VM_MIN_MEM) {
		fprintf(stderr, "pagelab: %s: [vm] mem: a guest needs at least 256M\n", scn_path);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	if (o.numa && (g.mem >> 20) % o.numa != 0) {
		fprintf(stderr, "pagelab: vm: --numa %u: the guest's %llu MiB do not split evenly into %u "
			"nodes\n", o.numa, g.mem >> 20, o.numa);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	g.cpus = o.cpus ? o.cpus : VM_DEFAULT_CPUS;
	if (!o.cpus && vm_item(&plan.s, &plan.specs[0], "cpus", val, sizeof(val))) {
		unsigned long long c;

		if (lab_parse_uint(val, &c, &err) < 0 || c < 1 || c > 64) {
			fprintf(stderr, "pagelab: %s: [vm] cpus: expected 1..64, got '%s'\n", scn_path, val);
			status = LAB_EXIT_USAGE;
			goto done;
		}
		g.cpus = (unsigned)c;
	}
	if (o.thp)
		snprintf(g.thp, sizeof(g.thp), "%s", o.thp);
	else if (vm_item(&plan.s, &plan.specs[0], "thp", val, sizeof(val)))
		pathf(g.thp, sizeof(g.thp), "%s", val);     /* typed by the parser: a THP mode */
	g.swap = o.swap;
	if (!o.swap_set && vm_item(&plan.s, &plan.specs[0], "swap", val, sizeof(val)) &&
	    lab_parse_size(val, &g.swap, &err) < 0) {
		fprintf(stderr, "pagelab: %s: [vm] swap: %s\n", scn_path, err.msg);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	if (g.swap && g.swap < (1ULL << 20)) {
		fprintf(stderr, "pagelab: vm: swap of %llu bytes: at least 1M\n", g.swap);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	g.disk = o.disk;
	if (!o.disk_set && vm_item(&plan.s, &plan.specs[0], "disk", val, sizeof(val)) &&
	    lab_parse_size(val, &g.disk, &err) < 0) {
		fprintf(stderr, "pagelab: %s: [vm] disk: %s\n", scn_path, err.msg);
		status = LAB_EXIT_USAGE;
		goto done;
	}
	/* Without a disk a file lands in the initramfs, whose pages reclaim cannot
	 * drop: a page-cache workload would measure nothing (and say nothing). */
	for (size_t i = 0; g.disk == 0 && i < plan.specs[0].nr_workloads; i++)
		if (strcmp(plan.specs[0].workloads[i].program, "cachefill") == 0) {
			fprintf(stderr, "pagelab: vm: warning: workload '%s' fills the page cache, but the guest "
				"has no disk ([vm] disk or --disk): its file would be in the initramfs, "
				"which reclaim cannot drop\n", plan.specs[0].workloads[i].name);
			break;
		}
	snprintf(g.cmdline, sizeof(g.cmdline), "%s", o.cmdline);
	if (o.nr_kernels == 0) {
		static char dflt[16];

		if (!vm_item(&plan.s, &plan.specs[0], "kernel", dflt, sizeof(dflt)))
			snprintf(dflt, sizeof(dflt), "%s", VM_DEFAULT_KERNEL);
		o.kernels[o.nr_kernels++] = dflt;
	}
	/* Every variant, against the guest's memory (the guest checks its own
	 * MemTotal again, which is a little less than -m). */
	plan.s.machine_bytes = g.mem + g.swap;
	plan.s.machine_what = "the guest's --mem + --swap";
	{
		char hint[64];

		snprintf(hint, sizeof(hint), " (the guest has %llu MiB: --mem)", g.mem >> 20);
		if ((status = run_plan_instantiate(&plan, 0, g.mem, hint)) != 0)
			goto done;
	}

	/* 2. What this host needs to boot a guest. */
	status = find_env(&env, &o, plan.s.name);
	if (status != 0)
		goto done;
	if (o.host) {
		struct target *t = &targets[nt++];
		struct utsname u;

		uname(&u);
		t->kernel = NULL;
		snprintf(t->label, sizeof(t->label), "host-%s", u.release);
		label_clean(t->label);
		t->status = -1;
	}
	for (size_t k = 0; k < o.nr_kernels; k++) {
		struct target *t = &targets[nt++];

		t->kernel = o.kernels[k];
		t->status = -1;
		if (!is_series(t->kernel) && (g.swap || g.disk) && o.modules == NULL) {
			fprintf(stderr, "pagelab: vm: %s with --kernel %s needs --modules DIR "
				"(its lib/modules/<release>, with zram, virtio_blk, ext4)\n",
				g.swap ? "--swap" : "--disk", t->kernel);
			status = LAB_EXIT_USAGE;
			goto done;
		}
		status = resolve_kernel(&env, &o, g.swap != 0 || g.disk != 0, t);
		if (status != 0)
			goto done;
	}
	for (size_t i = 0; i < nt; i++) {
		if (pathf(targets[i].stem, sizeof(targets[i].stem), "%s/%s-%s-%s", env.out_dir, env.base,
			  env.stamp, targets[i].label) < 0) {
			fprintf(stderr, "pagelab: vm: result path too long in %s\n", env.out_dir);
			status = LAB_EXIT_USAGE;
			goto done;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(targets[i].stem, targets[j].stem)) {
				fprintf(stderr, "pagelab: vm: two targets would write %s.json (the same kernel "
					"twice?)\n", targets[i].stem);
				status = LAB_EXIT_USAGE;
				goto done;
			}
	}
	status = static_build(&env, &o);
	if (status != 0)
		goto done;

	/* 3. One target after the other. */
	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = vm_on_signal;   /* no SA_RESTART: waitpid returns EINTR */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	for (size_t i = 0; i < nt && !vm_signal; i++) {
		if (targets[i].kernel == NULL)
			run_host(&env, &f, is_file ? scn_path : f.opts.name, &targets[i]);
		else
			run_guest(&env, &o, &g, &f, scn_dir, is_file ? scn_path : NULL, f.opts.name, &targets[i]);
	}

	/* 4. The exit status (cli.md): interrupted, else a failure, else bad
	 * input or "cannot" from a guest; the host's own "cannot" is not one. */
	{
		bool any_fail = false, any_usage = false, any_cannot = false, any_int = vm_signal != 0;

		for (size_t i = 0; i < nt; i++) {
			int st = targets[i].status;

			if (targets[i].kernel == NULL && st == LAB_EXIT_CANNOT)
				continue;
			if (st == LAB_EXIT_INTERRUPTED)
				any_int = true;
			else if (st == LAB_EXIT_USAGE)
				any_usage = true;
			else if (st == LAB_EXIT_CANNOT)
				any_cannot = true;
			else if (st != LAB_EXIT_RAN && st != -1)
				any_fail = true;
		}
		status = any_int ? LAB_EXIT_INTERRUPTED : any_fail ? LAB_EXIT_HARNESS : any_usage ? LAB_EXIT_USAGE
			: any_cannot ? LAB_EXIT_CANNOT : LAB_EXIT_RAN;
	}
	/* 5. The summary: one report over every result that came back. */
	{
		char *rargv[VM_MAX_KERNELS + 3];
		int rc = 1;

		rargv[0] = "report";
		for (size_t i = 0; i < nt; i++)
			if (targets[i].ok)
				rargv[rc++] = targets[i].result;
		rargv[rc] = NULL;
		if (rc > 1 && !f.opts.no_report && !vm_signal) {
			fflush(stderr);
			report_main(rc, rargv);
			fflush(stdout);
		}
		for (int i = 1; i < rc; i++)
			printf("%s\n", rargv[i]);
	}
done:
	for (size_t i = 0; i < nt; i++)
		json_decref(targets[i].kinfo);
	run_plan_free(&plan);
	return status;
}
