/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.h — VM mode as a library: a scenario, or `pagelab audit`, inside QEMU
 * guests booted from Debian's own kernels (pure cgroup v2), and on this host
 * too with --host, each result brought back beside the others (docs/vm.md).
 * The command is harness/cmd/vm.c (its options: harness/cmd/cli.md).
 *
 * The parts, in the order a command uses them:
 *   scenario.c  where the scenario is, and that its tree holds nothing but
 *               files (it goes into the guest's initramfs); the guest's shape
 *               from the options, the scenario's [vm] section, the defaults
 *   targets.c   what this host needs (guest/vm-run, qemu, the output
 *               directory), the targets (this host; each --kernel resolved
 *               by guest/vm-kernel), the static build the guests run
 *   guest.c     one target's run: guest/vm-run boots it, what comes back is
 *               read as untrusted, the document gets its `vm` object
 *   audit.c     the same for `pagelab audit` states
 *   util.c      key: value files, copies that follow no link, the child a
 *               signal stops
 *
 * Why guest/vm-run (bash) boots the guest, not C: the boot protocol
 * (initramfs layout and cache, the result channel, isa-debug-exit codes, the
 * verdict on panic and timeout, zram swap, the untrusted channel's checks) is
 * one tested implementation shared with scripts/capture-v2-fixtures.  What C
 * adds is what the scripts cannot know: the scenario, its validation,
 * naming, the result document.
 *
 * Nothing here prints or returns an exit status.  Progress and warnings go
 * to the caller's struct lab_progress; fallible calls return 0 or -errno with
 * struct lab_error (-EINVAL, -ENOENT, -ELOOP, -ENAMETOOLONG... bad input;
 * -ENODEV this host cannot boot a guest: no qemu, no kernel, no cmake, no
 * guest binaries; anything else a failure); each target ends with an
 * outcome (struct vm_target) the command turns into its exit status.
 */
#ifndef PAGELAB_VM_H
#define PAGELAB_VM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"

struct scenario;
struct run_spec;

#define VM_MAX_KERNELS 8
#define VM_MAX_ARGS 200
#define VM_DEFAULT_KERNEL "6.12"
#define VM_DEFAULT_MEM (4800ULL << 20)  /* the MADV_FREE article's Docker Desktop VM */
#define VM_DEFAULT_CPUS 2
#define VM_DEFAULT_TIMEOUT_S 1800
#define VM_MIN_MEM (256ULL << 20)       /* the initramfs and the guest's kernel need ~150 MiB */
#define VM_MAX_NUMA 8
#define VM_MAX_TREES 8
/* This machine's architecture as --arch names it: the programs of this host
 * a guest may carry (vm.h: vm_run_args) run only in a guest of it. */
#if defined(__x86_64__)
#define VM_HOST_ARCH "amd64"
#elif defined(__aarch64__)
#define VM_HOST_ARCH "arm64"
#else
#define VM_HOST_ARCH ""
#endif
#define VM_AUDIT_MAX_STATES 16

/* ---- the options (harness/cmd/vm.c parses them) ------------------------------ */

struct vm_opts {
	const char *kernels[VM_MAX_KERNELS];
	size_t nr_kernels;              /* 0: the scenario's [vm] kernel, else 6.12 */
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

/* The defaults: generic flavour, amd64, VM_DEFAULT_TIMEOUT_S. */
void vm_opts_init(struct vm_opts *o);

/* A Debian kernel series guest/vm-kernel resolves ("6.1", "6.12", "6.12-16k", "6.18":
 * plan/vmkernel.h, which also says for which --arch and --flavour). */
bool vm_is_series(const char *kernel);

/* "amd64" or "arm64". */
bool vm_arch_known(const char *arch);

/* ---- the scenario and the guest's shape (scenario.c) ------------------------- */

struct vm_scenario {
	char path[PATH_MAX];            /* the scenario file, absolute */
	char dir[PATH_MAX];             /* its catalogue directory, absolute ("" for a FILE) */
	bool is_file;                   /* named as a FILE, not a catalogue NAME */
};

/* Where NAME|FILE is (plan/catalog.h), and that what goes into the guest is
 * files only: a FILE that is a symbolic link, or a catalogue tree holding
 * anything but regular files and directories, is refused naming the entry
 * (-ELOOP a link, -EINVAL a device/FIFO/socket).  0 or -errno. */
int vm_scenario_locate(const char *arg, struct vm_scenario *sc, struct lab_error *err);

struct vm_shape {
	unsigned long long mem;
	unsigned cpus;
	char thp[16];                   /* "" = the kernel's default */
	unsigned long long swap;
	unsigned long long disk;
	char cmdline[1024];
	char kernel[16];                /* the default kernel: [vm] kernel, else 6.12 */
	/* [vm] carry: trees of this host the guest gets at their own paths
	 * (guest/vm-run --tree: root's, not writable by others, readable by
	 * all; links kept as links), e.g. a JDK a launcher finds its libraries in. */
	char trees[VM_MAX_TREES][256];
	size_t ntrees;
};

/* A run's guest: the options, else the scenario's [vm] (its ${...} from the
 * first variant's parameters), else the defaults.  path names the scenario
 * in messages; a page-cache workload without a disk is warned about (p).
 * 0 or -EINVAL. */
int vm_shape_for_run(const struct vm_opts *o, const struct scenario *s, const struct run_spec *first,
		     const char *path, const struct lab_progress *p, struct vm_shape *g, struct lab_error *err);

/* An audit's guest: the options, else the defaults.  0 or -EINVAL. */
int vm_shape_for_audit(const struct vm_opts *o, struct vm_shape *g, struct lab_error *err);

/* ---- the targets (targets.c) -------------------------------------------------- */

enum vm_outcome {
	VM_PENDING,             /* not run */
	VM_RAN,                 /* the target's pagelab ran to its end: child_status is its exit status */
	VM_FAILED,              /* a guest or harness failure (err says which) */
	VM_CANNOT,              /* the guest could not be booted: no qemu, a kernel impossible to get */
	VM_INTERRUPTED,         /* stopped by a signal (vm_interrupt) */
};

struct vm_target {
	const char *kernel;             /* a series (plan/vmkernel.h), a vmlinuz path; NULL = this host */
	char label[160];                /* "host-6.18.44-…", "guest-6.12.117+deb12-amd64" */
	json_t *kinfo;                  /* guest/vm-kernel --info, as key: value ({"vmlinuz"} for a path) */
	char stem[PATH_MAX];            /* OUT-DIR/BASE-STAMP-LABEL */
	char result[PATH_MAX + 8];      /* the document that came back (ok) */
	bool ok;                        /* a result came back */
	enum vm_outcome outcome;
	int child_status;               /* VM_RAN: the target's pagelab's exit status */
	struct lab_error err;           /* what went wrong, or what the target said ("" if nothing) */
	char kept[PATH_MAX + 64];       /* a failed guest's files are kept there ("" = removed) */
};

/* Every path a run needs, found once. */
struct vm_env {
	char src[PATH_MAX];             /* the data directory: guest/, CMakeLists.txt */
	char cache[PATH_MAX];           /* <src>/.cache, or an installed pagelab's cache (paths.h) */
	char vm_run[PATH_MAX + 32];
	char vm_kernel[PATH_MAX + 32];
	char build[PATH_MAX];           /* the static build the guests get */
	char qemu[PATH_MAX];
	char out_dir[PATH_MAX];
	char stamp[32];
	char base[128];                 /* the scenario's name with dashes ("audit") */
	const char *arch_build_dir;
	const char *arch_toolchain;
};

struct vm_job {
	struct vm_opts o;               /* the options, the default kernel filled in */
	struct vm_shape g;
	struct vm_env env;
	struct vm_target t[VM_MAX_KERNELS + 1];
	size_t nt;                      /* --host first, then each kernel in the order given */
	const struct lab_progress *p;
};

/* Everything before the first boot, in the safety order: the paths and
 * qemu, the targets and their kernels (guest/vm-kernel downloads once),
 * their result names (two targets may not share one), the static build
 * (cmake, under a lock).  base is the scenario's name ("audit").  The job
 * refers to itself afterwards: do not move it.  0 or -errno (err; the
 * targets resolved so far stay for vm_job_free). */
int vm_job_prepare(struct vm_job *j, const struct vm_opts *o, const struct vm_shape *g, const char *base,
		   const struct lab_progress *p, struct lab_error *err);
void vm_job_free(struct vm_job *j);

/* ---- a run (guest.c) ------------------------------------------------------------ */

struct vm_run_args {
	const char *command;            /* "run" or "fit": the guest's pagelab command */
	const struct vm_scenario *scn;
	const char *name;               /* NAME|FILE as given */
	char *const *fwd;               /* its options, forwarded to every target's pagelab */
	int nfwd;
	char (*carry)[PATH_MAX];        /* programs of this host a guest gets at their own paths */
	size_t ncarry;
};

/* `pagelab run` (or `fit`: a->command) on target i (this host: a child of this very image; a guest:
 * guest/vm-run), its document and stream (and a guest's console log) into
 * the output directory.  0 when its pagelab ran to its end (outcome VM_RAN,
 * child_status its status; err may still say what it said), else -errno
 * with the outcome and t->err set. */
int vm_run_target(struct vm_job *j, size_t i, const struct vm_run_args *a);

/* ---- an audit (audit.c) --------------------------------------------------------- */

/* `audit [audit options] [--then [audit options]]...`: one audit per state,
 * in one boot.  argv is kept (the states point into it). */
struct vm_audit_states {
	size_t n;
	int start[VM_AUDIT_MAX_STATES];         /* index of each state's first option in argv */
	int len[VM_AUDIT_MAX_STATES];
	char *const *argv;
	bool json;                              /* --json in every state */
	char script[8192];                      /* the guest's sh script: one audit per state */
};

/* Split argv (the words after "audit") into states and write the script
 * that runs them: -EINVAL for too many words or states, --watch or --advice
 * (this host's own audit only), --json in some states but not all, options
 * too long for the script. */
int vm_audit_states_parse(int argc, char *const *argv, struct vm_audit_states *st, struct lab_error *err);

/* The states on target i: OUT-DIR/audit-STAMP-LABEL.json (pagelab.vm-audit/1)
 * with --json, else .txt; returns as vm_run_target (child_status: the first
 * state's non-zero status, or 0). */
int vm_audit_target(struct vm_job *j, size_t i, const struct vm_audit_states *st);

/* ---- signals -------------------------------------------------------------------- */

/* From a signal handler (async-signal-safe): remember sig and send SIGTERM
 * to the child running (guest/vm-run stops its qemu; a host pagelab puts
 * its knobs back).  The targets not yet run are not started. */
void vm_interrupt(int sig);

/* The signal vm_interrupt was given, or 0. */
int vm_interrupted(void);

#endif
