/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "lockdown.h"

#include <errno.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/* What the workloads were seen to call once the filter is loaded (strace -f
 * of region, hold and lazyscan, dynamic and static, glibc 2.36 on x86_64),
 * plus the calls glibc may make on the same paths on another run: a name is
 * here because a workload needs it, never "just in case" of a new feature.
 * Names the native architecture lacks (newfstatat outside 64-bit, say) are
 * skipped; a name libseccomp does not know at all fails the install. */
static const char *const allowed[] = {
	/* events and /proc reads (base/fileio.c) */
	"read", "write", "openat", "close",
	/* reclaimer: memory.current re-read from a kept descriptor; its wait
	 * for an ack that a stop ends (glibc's poll is ppoll where the
	 * architecture has no poll: arm64) */
	"pread64", "poll", "ppoll",
	/* lazyscan: opendir(/proc) fstats it, readdir is getdents64, and a
	 * vanished pid is told from a kernel thread by fstatat(pid);
	 * fstat is what other libcs (musl) call for the same */
	"newfstatat", "fstat", "getdents64",
	/* the memory under test: map, touch, advise, measure */
	"mmap", "munmap", "madvise", "mincore",
	/* region's `drain` step: run on each CPU in turn to drain its batches */
	"sched_getaffinity", "sched_setaffinity",
	/* malloc: brk and mmap to grow, mremap for a large realloc (a big
	 * /proc/self/smaps), mprotect for a non-main heap, getrandom for the
	 * tcache key at its first use (malloc/malloc.c: tcache_key_initialize) */
	"brk", "mremap", "mprotect", "getrandom",
	/* time: the vDSO falls back to the system call on clock sources it
	 * cannot read (as in a QEMU TCG guest); hold:MS sleeps, and a sleep
	 * stopped by SIGSTOP resumes through restart_syscall */
	"clock_gettime", "clock_nanosleep", "restart_syscall",
	/* hold waits for SIGTERM/SIGINT with sigwaitinfo */
	"rt_sigtimedwait", "rt_sigprocmask", "rt_sigreturn",
	"exit", "exit_group",
};

#if defined(__SANITIZE_ADDRESS__)
/* A PAGELAB_SANITIZE build: LeakSanitizer checks at exit by stopping the
 * world, a clone(2)d thread that ptrace(2)s the others — exactly what the
 * filter forbids (and what `syscall:ptrace` proves), so it would turn every
 * exit into SIGSYS.  Leak checking stays on for the harness and the unit
 * tests, which run unfiltered; AddressSanitizer itself runs here with the
 * list above (measured: it needs no more than mmap and friends). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

static int allow(scmp_filter_ctx ctx, const char *name, struct lab_error *err)
{
	int nr = seccomp_syscall_resolve_name(name);
	int ret;

	if (nr == __NR_SCMP_ERROR)
		return lab_error_set(err, EINVAL, "seccomp: unknown system call \"%s\"", name);
	if (nr < 0)
		return 0;       /* a pseudo number: not on this architecture */
	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	if (ret < 0)
		return lab_error_errno(err, -ret, "seccomp_rule_add(%s)", name);
	return 0;
}

int lockdown_install(const char *const *extra, struct lab_error *err)
{
	scmp_filter_ctx ctx;
	size_t i;
	int ret;

	/* The filter may only be loaded without CAP_SYS_ADMIN under
	 * no_new_privs (kernel/seccomp.c: seccomp_prepare_filter); set it here
	 * so a failure says so rather than hiding inside seccomp_load. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return lab_error_errno(err, errno, "prctl(PR_SET_NO_NEW_PRIVS)");

	/* SIGSYS dumps core by default (signal(7)); a workload killed by its
	 * filter would write its whole region (gigabytes) to a core file in
	 * its working directory.  The kill itself is the datum: no core. */
	if (setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }) < 0)
		return lab_error_errno(err, errno, "setrlimit(RLIMIT_CORE, 0)");

	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (ctx == NULL)
		return lab_error_set(err, ENOMEM, "seccomp_init failed");

	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
	if (ret < 0) {
		lab_error_errno(err, -ret, "seccomp_attr_set(CTL_NNP)");
		goto out;
	}
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		ret = allow(ctx, allowed[i], err);
		if (ret < 0)
			goto out;
	}
	for (i = 0; extra != NULL && extra[i] != NULL; i++) {
		ret = allow(ctx, extra[i], err);
		if (ret < 0)
			goto out;
	}
	ret = seccomp_load(ctx);
	if (ret < 0) {
		lab_error_errno(err, -ret,
				"seccomp_load (the kernel needs CONFIG_SECCOMP_FILTER)");
		goto out;
	}
	ret = 0;
out:
	seccomp_release(ctx);
	return ret;
}
