/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace.c — a private tracing instance per run (see trace.h). */
#include "trace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>
#include <kbuffer.h>

#include "base/fileio.h"
#include "host/mountmark.h"
#include "result/keys.h"

#define TRACEFS_DIR "/sys/kernel/tracing"
#define TRACEFS_MAGIC_NR 0x74726163     /* include/uapi/linux/magic.h TRACEFS_MAGIC */
#define INSTANCE_PREFIX "pagelab-"
/* trace_marker lines that map a pid namespace's pids to the kernel's: each
 * workload's before its exec (launch.c), the harness's when tracing starts. */
#define MARK_CHILD "pagelab child "
#define MARK_HARNESS "pagelab harness "
#define MAX_CPUS 256

struct cpu_reader {
	int cpu;
	struct tracefs_cpu *tcpu;
	unsigned long long missed;      /* kbuffer_missed_events(), summed */
	bool missed_unknown;
	uint64_t last_ts;               /* the last record read: all before it are read */
	bool done;                      /* this drain: read empty, or not to be read */
	bool cut;                       /* this drain: stopped with records left */
	unsigned pages;                 /* this drain */
};

/* A drain decodes at most this many pages before it adds them up and lets
 * their records go (trace_drain): with --trace-raw a record is a JSON
 * object, and a drain of full buffers held every one of them at once. */
#define DRAIN_CHUNK_PAGES 8

struct trace {
	struct trace_config cfg;
	char name[64];
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	void *page;
	int page_size;
	int ids[64];                    /* tep event id per trace_events row, -1 = not enabled */
	bool enabled[64];
	json_t *missing;                /* events this kernel does not have */
	struct cpu_reader cpus[MAX_CPUS];
	int nr_cpus;
	/* A second descriptor of each CPU's trace_pipe_raw, only watched: in
	 * the sampler's epoll set, one-shot (trace_watch), so a CPU's first
	 * record after a drain marks it ready (trace_ready) and a drain reads
	 * only the CPUs marked — no system call per CPU at every sample while
	 * nothing is traced.  The instance's buffer_percent is 0, so a buffer
	 * with any record in it is readable. */
	int wfd[MAX_CPUS];
	bool ready[MAX_CPUS];
	int epfd;                       /* -1: not watched, every drain reads every CPU */
	uint64_t tag;
	uint64_t seen_ns;               /* trace_seen: readiness passed on up to here */
	bool marker_ok;
	struct timeline *tl;
	trace_sandbox_fn in_sandbox;
	void *sctx;
	struct trace_rec *batch;
	size_t n_batch, cap_batch;
	unsigned long long records, drains, reads;
	double drain_cpu_us;
	struct { int pid; char comm[20]; } comms[64];     /* /proc/PID/comm, read once per pid */
	bool iterate;                   /* PAGELAB_TRACE_READER=iterate */
	int marker_fd;                  /* for the workloads' "pagelab child PID" lines */
	struct { int global, local; } pidmap[64];       /* from those lines */
	size_t n_pidmap;
	unsigned comm_next;
	/* sched_process_fork (the "forks" group): who forked whom, the
	 * kernel's pids, in the order read; at most FORKS_MAX, then counted. */
	struct fork_rec { int child, parent; uint64_t ts; } *forks;
	size_t n_forks, cap_forks;
	unsigned long long forks_dropped;
	uint64_t t0_ns;
};

/* 16 bytes each: 1 MiB at most, some minutes of a busy build machine's forks. */
#define FORKS_MAX 65536
/* How far up a victim's line is followed (a shell's child's child…). */
#define ANCESTORS_MAX 16

static void close_watched(struct trace *t)
{
	for (int c = 0; c < t->nr_cpus; c++) {
		if (t->wfd[c] >= 0)
			close(t->wfd[c]);      /* leaves the epoll set with it */
		t->wfd[c] = -1;
	}
	t->epfd = -1;
}

/* The watched descriptors (see struct trace).  Any failure — no
 * buffer_percent file, a CPU's file that does not open — leaves them
 * closed: trace_watch then refuses and every drain reads every CPU. */
static void open_watched(struct trace *t)
{
	if (tracefs_instance_file_write(t->inst, "buffer_percent", "0") < 0)
		return;
	for (int c = 0; c < t->nr_cpus; c++) {
		char file[64];

		if (t->cpus[c].tcpu == NULL)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c);
		t->wfd[c] = tracefs_instance_file_open(t->inst, file, O_RDONLY | O_NONBLOCK);
		if (t->wfd[c] < 0) {
			close_watched(t);
			return;
		}
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool tracefs_mounted(void)
{
	struct statfs sf;

	return statfs(TRACEFS_DIR, &sf) == 0 && (unsigned long)sf.f_type == TRACEFS_MAGIC_NR;
}

static bool we_mounted;
static bool we_recorded;                /* the record written before the mount was attached */
static char unrecorded[LAB_ERROR_MSG_MAX];  /* why it could not be, for trace_mark_mount */

/* The record of the mount about to be attached: this run, this boot, the
 * detached mount's id (the id it keeps once moved). */
static void record_detached(int mnt)
{
	struct mount_mark m = { .pid = getpid() };
	struct lab_error err;
	int ret;

	if ((ret = mount_mark_boot(m.boot, sizeof(m.boot))) < 0)
		snprintf(unrecorded, sizeof(unrecorded), "/proc/sys/kernel/random/boot_id: %s", strerror(-ret));
	else if ((ret = mount_mark_id_at(mnt, "", &m.mnt, &m.unique)) < 0)
		snprintf(unrecorded, sizeof(unrecorded), "statx of the new tracefs mount (its id): %s", strerror(-ret));
	else if (mount_mark_write(&m, &err) < 0)
		snprintf(unrecorded, sizeof(unrecorded), "%s", err.msg);
	else
		we_recorded = true;
}

/* tracefs at TRACEFS_DIR, recorded before it is there: fsmount(2) makes it
 * detached, its id goes into the record (JOURNAL.tracefs), and only then does
 * move_mount(2) attach it.  A kill before the move leaves no mount (a
 * detached one goes with its last descriptor) and at most a record naming a
 * mount that is not there, which trace_release drops; a kill after it leaves
 * a recorded mount.  1 when the new mount API is not there (ENOSYS, or a
 * seccomp profile's EPERM), for mount(2). */
static int mount_detached(struct lab_error *err)
{
	int fs, mnt, e;

	unrecorded[0] = '\0';
	fs = fsopen("tracefs", FSOPEN_CLOEXEC);
	if (fs < 0 && (errno == ENOSYS || errno == EPERM))
		return 1;
	if (fs < 0)
		return lab_error_errno(err, errno, "fsopen(tracefs) (CONFIG_TRACING?)");
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		e = errno;
		close(fs);
		return lab_error_errno(err, e, "fsconfig(tracefs, FSCONFIG_CMD_CREATE)");
	}
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	e = errno;
	close(fs);
	if (mnt < 0)
		return lab_error_errno(err, e, "fsmount(tracefs)");
	record_detached(mnt);
	if (move_mount(mnt, "", AT_FDCWD, TRACEFS_DIR, MOVE_MOUNT_F_EMPTY_PATH) < 0) {
		e = errno;
		close(mnt);
		if (we_recorded)
			mount_mark_remove();
		we_recorded = false;
		return lab_error_errno(err, e, "move_mount of tracefs to %s", TRACEFS_DIR);
	}
	close(mnt);
	return 0;
}

/* Two locks keep concurrent runs (scripts/bench-pair starts two at once)
 * from taking tracefs from under each other.
 *
 * The step lock: an exclusive flock of TRACEFS_DIR's parent, /sys/kernel (a
 * directory that is there whether tracefs is mounted or not), held briefly:
 * a run's look and mount are one step under it, and so are a run's last
 * check and unmount.  Without it two runs started at once both found
 * tracefs unmounted and both mounted it, one over the other; the first to
 * end took down the top one (the other's, and its record), and the one
 * below stayed with no record.
 *
 * The hold: a shared flock of /sys, taken in the look's step and kept to
 * the run's end.  A run takes tracefs down at its end only when, in the
 * end's step, it can turn its hold into an exclusive one without waiting:
 * when no other run holds tracefs, whether that one has files open in it
 * at that moment or not (between its look and its first instance, or
 * between two instances, it has none, and an unmount would succeed under
 * it).  A run that starts waits at most for another's step, never for
 * another run.  Two runs ending at once cannot both leave it: a failed
 * conversion drops the lock it converted (fs/locks.c, flock_lock_inode). */
static int hold_fd = -1;

static int step_lock(void)
{
	int fd = open("/sys/kernel", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0)
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	return fd;
}

static void step_unlock(int fd)
{
	if (fd >= 0)
		close(fd);      /* releases the flock */
}

int trace_available(bool *mounted, struct lab_error *err)
{
	int ret = 0, step;

	*mounted = false;
	if (geteuid() != 0)
		return lab_error_set(err, EPERM, "tracing needs root (tracefs instances)");
	if (hold_fd < 0) {
		step = step_lock();
		if (!tracefs_mounted()) {
			/* Mounted here only when nobody has; taken down by the last run to end. */
			if ((ret = mount_detached(err)) == 1)
				ret = mount("nodev", TRACEFS_DIR, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0
				      ? lab_error_errno(err, errno, "mount tracefs on %s (CONFIG_TRACING?)", TRACEFS_DIR)
				      : 0;
			if (ret >= 0)
				*mounted = we_mounted = true;
		}
		if (ret >= 0 && (hold_fd = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0)
			while (flock(hold_fd, LOCK_SH) < 0 && errno == EINTR)
				;
		step_unlock(step);
	}
	if (ret < 0)
		return ret;
	if (access(TRACEFS_DIR "/instances", W_OK) < 0)
		ret = lab_error_errno(err, errno, "%s/instances", TRACEFS_DIR);
	else if (access(TRACEFS_DIR "/events/vmscan", R_OK) < 0)
		ret = lab_error_errno(err, errno, "%s/events/vmscan (a kernel without vmscan tracepoints)",
				      TRACEFS_DIR);
	if (ret < 0) {
		/* no tracing after all: the hold ends here, and the mount with it */
		struct lab_error e2;
		pid_t o;

		trace_end(&o, &e2);
		*mounted = false;
	}
	return ret;
}

int trace_mark_mount(struct lab_error *err)
{
	struct mount_mark m = { .pid = getpid() };
	int ret;

	if (!we_mounted || we_recorded)
		return 0;
	if (unrecorded[0] != '\0')
		return lab_error_set(err, EIO, "%s", unrecorded);
	if ((ret = mount_mark_boot(m.boot, sizeof(m.boot))) < 0)
		return lab_error_errno(err, -ret, "/proc/sys/kernel/random/boot_id");
	if ((ret = mount_mark_id(TRACEFS_DIR, &m.mnt, &m.unique)) < 0)
		return lab_error_errno(err, -ret, "statx %s (its mount id)", TRACEFS_DIR);
	if ((ret = mount_mark_write(&m, err)) < 0)
		return ret;
	we_recorded = true;
	return 0;
}

/* The recorded tracefs mount, taken down: the record names this boot and
 * the mount there now (else it is stale and removed).  1 when unmounted
 * (*owner: the pid that mounted it), 0 when there was none, -EBUSY when
 * something has files open in it. */
static int unmount_recorded(pid_t *owner, bool only_dead, struct lab_error *err)
{
	struct mount_mark m;
	char boot[40];
	unsigned long long id;
	bool unique;
	int ret = mount_mark_read(&m, err);

	*owner = 0;
	if (ret != 0)
		return ret < 0 ? ret : 0;
	*owner = m.pid;
	/* restore: ours (trace_end's), or a run that lives (or that we may not signal) */
	if (only_dead && (m.pid == getpid() || kill(m.pid, 0) == 0 || errno != ESRCH))
		return 0;
	if (mount_mark_boot(boot, sizeof(boot)) < 0)
		return 0;
	/* The mount it names is gone (another boot, unmounted, mounted anew). */
	if (strcmp(boot, m.boot) != 0 || !tracefs_mounted() || mount_mark_id(TRACEFS_DIR, &id, &unique) < 0 ||
	    id != m.mnt || unique != m.unique) {
		mount_mark_remove();
		return 0;
	}
	if (umount2(TRACEFS_DIR, 0) < 0)
		return lab_error_errno(err, errno, "unmount tracefs at %s, mounted by pagelab pid %d", TRACEFS_DIR,
				       (int)m.pid);
	mount_mark_remove();
	we_mounted = we_recorded = false;
	return 1;
}

int trace_end(pid_t *owner, struct lab_error *err)
{
	int ret = 0, step = step_lock();

	*owner = 0;
	/* With no hold (no /sys to open), only the mounter unmounts. */
	if (hold_fd >= 0 ? flock(hold_fd, LOCK_EX | LOCK_NB) == 0 : we_mounted) {
		ret = unmount_recorded(owner, false, err);
		/* this run's own mount, not recorded (mount(2), and the record failed) */
		if (ret == 0 && we_mounted && !we_recorded && tracefs_mounted()) {
			if (umount2(TRACEFS_DIR, 0) == 0) {
				*owner = getpid();
				ret = 1;
			} else {
				ret = lab_error_errno(err, errno, "unmount tracefs at %s", TRACEFS_DIR);
			}
		}
	}
	/* else another run holds tracefs: it stays, for the last run to end */
	we_mounted = we_recorded = false;
	if (hold_fd >= 0) {
		/* LOCK_UN: a child forked and not exec'd shares the lock's open
		 * file, and would keep it past close */
		flock(hold_fd, LOCK_UN);
		close(hold_fd);
	}
	hold_fd = -1;
	step_unlock(step);
	return ret;
}

int trace_release(pid_t *owner, struct lab_error *err)
{
	int ret = 0, step = step_lock(), hold;

	*owner = 0;
	/* Never under a run that holds tracefs: that run's end takes it down. */
	hold = open("/sys", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (hold < 0 || flock(hold, LOCK_EX | LOCK_NB) == 0)
		ret = unmount_recorded(owner, true, err);
	if (hold >= 0)
		close(hold);
	step_unlock(step);
	return ret;
}

/* The pid namespace's inode: instance names carry it, since a pid means
 * nothing across namespaces (two containers each run pagelab as pid 1, and
 * the host's pid 1 is alive whatever a container's pagelab did). */
static unsigned long long pidns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* "pagelab-PID-RUN-nsINO": the namespace part, 0 when absent. */
static unsigned long long instance_ns(const char *name)
{
	const char *p = strstr(name, "-ns");
	char *end;
	unsigned long long v;

	if (p == NULL)
		return 0;
	errno = 0;
	v = strtoull(p + 3, &end, 10);
	return errno || *end != '\0' ? 0 : v;
}

static long instance_pid(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) != 0)
		return -1;
	errno = 0;
	pid = strtol(name + strlen(INSTANCE_PREFIX), &end, 10);
	if (errno || end == name + strlen(INSTANCE_PREFIX) || *end != '-' || pid <= 0)
		return -1;
	return pid;
}

struct sweep {
	int removed;
	int ret;
	struct lab_error *err;
	unsigned long long ns;
};

/* tracefs_instances_walk() callback (tracefs_instances() leaks its regex in 1.6.4). */
static int sweep_one(const char *name, void *ctx)
{
	struct sweep *sw = ctx;
	long pid = instance_pid(name);
	struct tracefs_instance *inst;

	if (pid < 0 || pid == (long)getpid())
		return 0;
	/* Another pid namespace's run: its pid cannot be checked from here. */
	if (instance_ns(name) != 0 && instance_ns(name) != sw->ns)
		return 0;
	/* A live pid (or one we may not signal) keeps its instance. */
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (inst == NULL)
		return 0;
	if (tracefs_instance_destroy(inst) == 0)
		sw->removed++;
	else if (sw->ret == 0)
		sw->ret = lab_error_errno(sw->err, errno, "remove tracing instance %s", name);
	tracefs_instance_free(inst);
	return 0;
}

int trace_sweep(int *removed, struct lab_error *err)
{
	struct sweep sw = { 0, 0, err, pidns_ino() };

	*removed = 0;
	if (!tracefs_mounted())
		return 0;
	tracefs_instances_walk(sweep_one, &sw);
	*removed = sw.removed;
	return sw.ret;
}

static int set_file(struct trace *t, const char *file, const char *val, struct lab_error *err)
{
	if (tracefs_instance_file_write(t->inst, file, val) < 0)
		return lab_error_errno(err, errno ? errno : EIO, "tracing instance %s: write %s", t->name, file);
	return 0;
}

static void classify(void *ctx, struct trace_rec *r);

/* The run's set enabled in the instance (the ones this kernel lacks go to
 * t->missing), and the trace_marker opened when the set has markers. */
static void enable_events(struct trace *t)
{
	for (size_t i = 0; i < trace_nr_events && i < 64; i++) {
		const struct trace_event_def *d = &trace_events[i];
		struct tep_event *ev;

		t->ids[i] = -1;
		if (!tracedef_in_set(d, t->cfg.set))
			continue;
		ev = tep_find_event_by_name(t->tep, d->system, d->name);
		if (ev == NULL) {
			json_array_append_new(t->missing, json_sprintf("%s/%s", d->system, d->name));
			continue;
		}
		if (!d->always_on && tracefs_event_enable(t->inst, d->system, d->name) < 0) {
			json_array_append_new(t->missing, json_sprintf("%s/%s", d->system, d->name));
			continue;
		}
		t->ids[i] = ev->id;
		t->enabled[i] = true;
		if (d->point == TP_MARKER) {
			char *path = tracefs_instance_get_file(t->inst, "trace_marker");

			t->marker_ok = tracefs_print_init(t->inst) == 0;
			if (path != NULL)
				t->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
			tracefs_put_tracing_file(path);
		}
	}
}

/* The formats of the events pagelab knows (trace_events) and the ring
 * buffer's page header, from the running kernel: fields differ between 6.1,
 * 6.12 and 6.18.  What tracefs_local_events_system() would load for their
 * systems, without what it reads besides (libtracefs 1.6: load_mappings —
 * /proc/kallsyms, saved_cmdlines, printk_formats), which no decoded field
 * needs: on this 6.18 host that was about 250 ms of the harness's CPU and
 * 20 MB of its RSS at every run's start, while the workloads start.
 * NULL with errno when the header or every format is unreadable. */
static struct tep_handle *load_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	struct lab_error e;
	size_t len, parsed = 0;
	char *buf = NULL;
	int ret;

	if (tep == NULL)
		return NULL;
	if ((ret = lab_read_file(TRACEFS_DIR "/events/header_page", &buf, &len, &e)) < 0) {
		tep_free(tep);
		errno = -ret;
		return NULL;
	}
	tep_parse_header_page(tep, buf, (unsigned long)len, (int)sizeof(long));
	free(buf);
	for (size_t i = 0; i < trace_nr_events; i++) {
		const struct trace_event_def *d = &trace_events[i];
		char path[256];

		if (tep_find_event_by_name(tep, d->system, d->name) != NULL)
			continue;
		snprintf(path, sizeof(path), TRACEFS_DIR "/events/%s/%s/format", d->system, d->name);
		/* A kernel without it: enable_events names it missing. */
		if (lab_read_file(path, &buf, &len, &e) < 0)
			continue;
		if (tep_parse_event(tep, buf, len, d->system) == TEP_ERRNO__SUCCESS)
			parsed++;
		free(buf);
	}
	if (parsed == 0) {
		tep_free(tep);
		errno = ENOENT;
		return NULL;
	}
	return tep;
}

int trace_open(const struct trace_config *cfg, int run_index, uint64_t t0_ns, trace_sandbox_fn in_sandbox,
	       void *sctx, struct trace **out, struct lab_error *err)
{
	struct trace *t = calloc(1, sizeof(*t));
	char kb[32];
	int ret;

	*out = NULL;
	if (t == NULL)
		return lab_error_errno(err, ENOMEM, "trace");
	t->cfg = *cfg;
	if (t->cfg.bin_ms == 0)
		t->cfg.bin_ms = 1000;
	if (t->cfg.buffer_kb == 0)
		t->cfg.buffer_kb = 4096;
	t->in_sandbox = in_sandbox;
	t->sctx = sctx;
	t->t0_ns = t0_ns;
	t->marker_fd = -1;
	t->epfd = -1;
	for (int c = 0; c < MAX_CPUS; c++)
		t->wfd[c] = -1;
	t->missing = json_array();
	snprintf(t->name, sizeof(t->name), INSTANCE_PREFIX "%d-%d-ns%llu", (int)getpid(), run_index, pidns_ino());
	t->tep = load_formats();
	if (t->tep == NULL) {
		ret = lab_error_errno(err, errno ? errno : ENOENT, "read the event formats from %s/events",
				      TRACEFS_DIR);
		goto fail;
	}
	if (tracefs_instance_exists(t->name)) {
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, t->name);

		if (old != NULL) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	t->inst = tracefs_instance_create(t->name);
	if (t->inst == NULL) {
		ret = lab_error_errno(err, errno ? errno : EIO, "create tracing instance %s", t->name);
		goto fail;
	}
	if ((ret = set_file(t, "tracing_on", "0", err)) < 0 || (ret = set_file(t, "trace_clock", "mono", err)) < 0)
		goto fail;
	snprintf(kb, sizeof(kb), "%u", t->cfg.buffer_kb);
	if ((ret = set_file(t, "buffer_size_kb", kb, err)) < 0)
		goto fail;
	enable_events(t);
	t->nr_cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (t->nr_cpus > MAX_CPUS)
		t->nr_cpus = MAX_CPUS;
	t->iterate = getenv("PAGELAB_TRACE_READER") && !strcmp(getenv("PAGELAB_TRACE_READER"), "iterate");
	for (int c = 0; c < t->nr_cpus; c++) {
		t->cpus[c].cpu = c;
		t->cpus[c].tcpu = tracefs_cpu_open(t->inst, c, true);   /* NULL: an offline CPU */
		if (t->cpus[c].tcpu != NULL && t->page_size == 0)
			t->page_size = tracefs_cpu_read_size(t->cpus[c].tcpu);
		/* The iterator opens the buffers itself: ours stay for the stats only. */
	}
	if (!t->iterate)
		open_watched(t);
	if (t->page_size <= 0) {
		ret = lab_error_errno(err, errno ? errno : EIO, "open %s/instances/%s/per_cpu/*/trace_pipe_raw",
				      TRACEFS_DIR, t->name);
		goto fail;
	}
	t->page = malloc((size_t)t->page_size);
	/* Ours to free (kbuffer_free); the host's word size and byte order. */
	t->kbuf = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	t->tl = timeline_new(t0_ns, t->cfg.bin_ms, t->cfg.raw);
	if (t->tl != NULL)
		timeline_set_classify(t->tl, classify, t);
	if (t->page == NULL || t->kbuf == NULL || t->tl == NULL) {
		ret = lab_error_errno(err, ENOMEM, "trace buffers");
		goto fail;
	}
	if ((ret = set_file(t, "tracing_on", "1", err)) < 0)
		goto fail;
	/* The harness says who it is too, as each workload does before its exec:
	 * in a container's pid namespace its own reclaim (with --sandbox self it
	 * is in the sandbox, and its allocations reclaim there) is otherwise a
	 * global pid that names nothing here, and was counted as another task's. */
	if (t->marker_fd >= 0) {
		char line[48];
		int n = snprintf(line, sizeof(line), "%s%d\n", MARK_HARNESS, (int)getpid());

		if (n > 0 && (size_t)n < sizeof(line) && write(t->marker_fd, line, (size_t)n) < 0) {
			/* no map for the harness: its records stay unattributed */
		}
	}
	*out = t;
	return 0;
fail:
	trace_close(t);
	return ret;
}

static long long num_field(struct tep_event *ev, const char *name, const void *data)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	unsigned long long v;

	if (f == NULL || tep_read_number_field(f, data, &v) < 0)
		return -1;
	return (long long)v;
}

static json_t *string_field(struct tep_format_field *f, const void *data, int size)
{
	const char *p;
	int len;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long loc;

		if (tep_read_number_field(f, data, &loc) < 0)
			return json_null();
		len = (int)(loc >> 16);
		p = (const char *)data + (loc & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? f->offset + f->size : 0);
	} else {
		p = (const char *)data + f->offset;
		len = f->size > 0 ? f->size : size - f->offset;
	}
	if (len < 0 || p < (const char *)data || p + len > (const char *)data + size)
		return json_null();
	len = (int)strnlen(p, (size_t)len);
	while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == ' '))
		len--;
	return json_stringn(p, (size_t)len);
}

static json_t *comm_of(struct trace *t, int pid)
{
	char path[48];
	cleanup_free char *buf = NULL;
	struct lab_error e;
	size_t n, slot;

	if (pid <= 0)
		return json_string(pid == 0 ? "swapper" : "?");
	for (size_t i = 0; i < sizeof(t->comms) / sizeof(t->comms[0]); i++)
		if (t->comms[i].pid == pid)
			return json_string(t->comms[i].comm);
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (lab_read_file(path, &buf, &n, &e) < 0)
		return json_null();     /* gone already */
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	slot = t->comm_next++ % (sizeof(t->comms) / sizeof(t->comms[0]));
	t->comms[slot].pid = pid;
	snprintf(t->comms[slot].comm, sizeof(t->comms[slot].comm), "%.19s", buf);
	return json_string(buf);
}

/* Every field the kernel's format has (common_* aside): numbers as numbers,
 * strings as strings.  So a field that 6.1 lacks is simply absent. */
static json_t *record_json(struct trace *t, const struct trace_event_def *d, struct tep_event *ev,
			   struct tep_record *rec, int pid, bool in_sb)
{
	json_t *o = json_pack("{s:s, s:i, s:i, s:b}", RK_EVENT, d->name, "cpu", rec->cpu, "task_pid", pid,
			      "sandbox", in_sb);
	struct tep_format_field **fields = tep_event_fields(ev);

	json_object_set_new(o, "task_comm", comm_of(t, pid));
	for (size_t i = 0; fields && fields[i]; i++) {
		struct tep_format_field *f = fields[i];
		unsigned long long v;

		if (!strcmp(f->name, "ip"))
			continue;       /* ftrace/print's caller address: nothing to compare */
		if (f->flags & TEP_FIELD_IS_STRING) {
			json_object_set_new(o, f->name, string_field(f, rec->data, rec->size));
		} else if (!(f->flags & TEP_FIELD_IS_ARRAY) && tep_read_number_field(f, rec->data, &v) == 0) {
			long long sv = (long long)v;

			if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && f->size > 0) {
				int shift = 64 - 8 * f->size;

				sv = (long long)(v << shift) >> shift;
			}
			json_object_set_new(o, f->name, json_integer(sv));
		}
	}
	free(fields);
	return o;
}

static int batch_push(struct trace *t, const struct trace_rec *r)
{
	if (t->n_batch == t->cap_batch) {
		size_t cap = t->cap_batch ? t->cap_batch * 2 : 1024;
		struct trace_rec *nb = realloc(t->batch, cap * sizeof(*nb));

		if (nb == NULL)
			return -ENOMEM;
		t->batch = nb;
		t->cap_batch = cap;
	}
	t->batch[t->n_batch++] = *r;
	return 0;
}

/* A kswapd ("kswapd0", "kswapd1"…) or a kdamond ("kdamond.0"): its comm,
 * read once per pid (comm_of).  A kernel thread is not in a container's
 * /proc: there it is neither. */
static bool comm_starts(struct trace *t, int pid, const char *prefix)
{
	json_t *c = comm_of(t, pid);
	bool k = json_is_string(c) && !strncmp(json_string_value(c), prefix, strlen(prefix));

	json_decref(c);
	return k;
}

/* mm_vmscan_lru_shrink_inactive's fields by the running kernel's format
 * (the same names in 6.1, 6.12 and 6.18), and mm_vmscan_reclaim_pages'
 * (the same names, no reclaim_flags). */
static void lru_fields(struct trace *t, struct tep_event *ev, const void *data, int pid, bool pageout,
		       struct trace_lru_fields *f)
{
	f->nr_scanned = num_field(ev, "nr_scanned", data);
	f->nr_activate0 = num_field(ev, "nr_activate0", data);
	f->nr_activate1 = num_field(ev, "nr_activate1", data);
	f->nr_unmap_fail = num_field(ev, "nr_unmap_fail", data);
	f->nr_ref_keep = num_field(ev, "nr_ref_keep", data);
	f->flags = num_field(ev, "reclaim_flags", data);
	/* Each event is summed by one of the two (timeline.c). */
	if (pageout)
		f->kdamond = comm_starts(t, pid, "kdamond");
	else
		f->kswapd = comm_starts(t, pid, "kswapd");
}

/* A fork, kept in the table: not an event of the timeline. */
static int fork_record(struct trace *t, struct tep_event *ev, const void *data, unsigned long long ts)
{
	long long child = num_field(ev, "child_pid", data), parent = num_field(ev, "parent_pid", data);

	if (child <= 0 || parent <= 0)
		return 0;
	if (t->n_forks == t->cap_forks) {
		size_t cap = t->cap_forks ? t->cap_forks * 2 : 256;
		struct fork_rec *n;

		if (t->cap_forks >= FORKS_MAX) {
			t->forks_dropped++;
			return 0;
		}
		if ((n = realloc(t->forks, cap * sizeof(*n))) == NULL)
			return -ENOMEM;
		t->forks = n;
		t->cap_forks = cap;
	}
	t->forks[t->n_forks++] = (struct fork_rec){ .child = (int)child, .parent = (int)parent, .ts = ts };
	return 0;
}

static int decode_record(struct trace *t, int cpu, void *data, int size, unsigned long long ts)
{
	struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = size };
	int id = tep_data_type(t->tep, &rec);
	struct trace_rec r;
	struct tep_event *ev;
	size_t i;

	for (i = 0; i < trace_nr_events; i++)
		if (t->enabled[i] && t->ids[i] == id)
			break;
	if (i == trace_nr_events)
		return 0;
	ev = tep_find_event(t->tep, id);
	if (ev == NULL)
		return 0;
	if (trace_events[i].point == TP_FORK) {
		t->records++;
		return fork_record(t, ev, data, ts);
	}
	memset(&r, 0, sizeof(r));
	r.def = &trace_events[i];
	r.ts_ns = ts;
	r.cpu = cpu;
	r.pid = tep_data_pid(t->tep, &rec);
	r.in_sandbox = false;           /* classify(), when the timeline processes it */
	r.nid = num_field(ev, "nid", data);
	r.nr_reclaimed = num_field(ev, "nr_reclaimed", data);
	r.victim_pid = r.def->point == TP_MARK_VICTIM ? num_field(ev, "pid", data) : -1;
	r.victim_kernel_pid = r.victim_pid;
	if (r.def->point == TP_SHRINK_INACTIVE || r.def->point == TP_RECLAIM_PAGES)
		lru_fields(t, ev, data, r.pid, r.def->point == TP_RECLAIM_PAGES, &r.lru);
	/* Only what will be kept is decoded in full: a memcg reclaim storm
	 * stays counts and histograms unless --trace-raw. */
	if (!r.def->high_rate || t->cfg.raw)
		r.raw = record_json(t, r.def, ev, &rec, r.pid, r.in_sandbox);
	t->records++;
	if (batch_push(t, &r) < 0) {
		json_decref(r.raw);
		return -ENOMEM;
	}
	return 0;
}

static int decode_page(struct trace *t, struct cpu_reader *cr)
{
	unsigned long long ts;
	void *data;
	int missed;

	if (kbuffer_load_subbuffer(t->kbuf, t->page) < 0)
		return 0;
	missed = kbuffer_missed_events(t->kbuf);
	if (missed > 0)
		cr->missed += (unsigned long long)missed;
	else if (missed < 0)
		cr->missed_unknown = true;
	for (data = kbuffer_read_event(t->kbuf, &ts); data; data = kbuffer_next_event(t->kbuf, &ts)) {
		int ret = decode_record(t, cr->cpu, data, kbuffer_event_size(t->kbuf), ts);

		if (ret < 0)
			return ret;
		cr->last_ts = ts;
	}
	return 0;
}

/* PAGELAB_TRACE_READER=iterate: libtracefs's tracefs_iterate_raw_events()
 * instead of our per-CPU readers — kept to measure which perturbs less
 * (docs/benchmark.md); the default is the per-CPU readers. */
static int iterate_cb(struct tep_event *ev, struct tep_record *rec, int cpu, void *ctx)
{
	struct trace *t = ctx;

	(void)ev;
	if (rec->missed_events > 0 && cpu >= 0 && cpu < t->nr_cpus)
		t->cpus[cpu].missed += (unsigned long long)rec->missed_events;
	else if (rec->missed_events < 0 && cpu >= 0 && cpu < t->nr_cpus)
		t->cpus[cpu].missed_unknown = true;
	return decode_record(t, cpu, rec->data, rec->size, rec->ts) < 0 ? -1 : 0;
}

/* The kernel's global pid -> this pid namespace's (the same outside a
 * container), from the workloads' "pagelab child PID" markers: 1 and
 * *local when a marker mapped it, else 0. */
static int map_pid(const struct trace *t, int global, int *local)
{
	for (size_t i = 0; i < t->n_pidmap; i++)
		if (t->pidmap[i].global == global) {
			*local = t->pidmap[i].local;
			return 1;
		}
	return 0;
}

/* The run's pid of a kernel pid, or the kernel's where no marker mapped it. */
static int local_pid(const struct trace *t, int global)
{
	int local;

	return map_pid(t, global, &local) ? local : global;
}

/* Does the run have a pid namespace of its own (a marker mapped a kernel
 * pid to another)? */
static bool own_pid_ns(const struct trace *t)
{
	for (size_t i = 0; i < t->n_pidmap; i++)
		if (t->pidmap[i].global != t->pidmap[i].local)
			return true;
	return false;
}

/* The pid map from the markers a chunk read ("pagelab child PID" before a
 * workload's exec, "pagelab harness PID"): a global pid means the local one
 * for the rest of the run, whatever order the CPUs were read in. */
static void learn_pids(struct trace *t)
{
	for (size_t i = 0; i < t->n_batch; i++) {
		struct trace_rec *r = &t->batch[i];
		const char *buf;
		char *end;
		long local;

		if (r->def->point != TP_MARKER || r->raw == NULL)
			continue;
		buf = json_string_value(json_object_get(r->raw, "buf"));
		if (buf != NULL && strncmp(buf, MARK_CHILD, strlen(MARK_CHILD)) == 0)
			buf += strlen(MARK_CHILD);
		else if (buf != NULL && strncmp(buf, MARK_HARNESS, strlen(MARK_HARNESS)) == 0)
			buf += strlen(MARK_HARNESS);
		else
			continue;
		errno = 0;
		local = strtol(buf, &end, 10);
		if (errno || end == buf || local <= 0 || t->n_pidmap == sizeof(t->pidmap) / sizeof(t->pidmap[0]))
			continue;
		if (local != r->pid) {
			t->pidmap[t->n_pidmap].global = r->pid;
			t->pidmap[t->n_pidmap].local = (int)local;
			t->n_pidmap++;
		}
	}
}

/* Which task a record is of, in this pid namespace, and whether it is the
 * sandbox's: the timeline asks just before it processes the record, when
 * every marker before it has been read (timeline_set_classify). */
static void classify(void *ctx, struct trace_rec *r)
{
	struct trace *t = ctx;
	int who = local_pid(t, r->pid);

	if (r->def->point == TP_MARK_VICTIM && r->victim_pid > 0) {
		int v = local_pid(t, (int)r->victim_pid);

		if (r->raw != NULL && v != r->victim_pid)
			json_object_set_new(r->raw, "victim_run_pid", json_integer(v));
		r->victim_pid = v;
		who = v;
	}
	r->in_sandbox = t->in_sandbox ? t->in_sandbox(t->sctx, who) : false;
	if (r->raw != NULL) {
		json_object_set_new(r->raw, "sandbox", json_boolean(r->in_sandbox));
		if (who != r->pid && r->def->point != TP_MARK_VICTIM)
			json_object_set_new(r->raw, "task_run_pid", json_integer(who));
	}
}

int trace_marker_fd(const struct trace *t)
{
	return t != NULL ? t->marker_fd : -1;
}

/* Which CPUs a drain reads: all when not watched or at the final drain;
 * else those marked ready since their last drain. */
static bool cpu_wanted(const struct trace *t, int c, bool final)
{
	return final || t->epfd < 0 || t->ready[c];
}

static int arm(struct trace *t, int c, int op)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.u64 = t->tag | (uint64_t)c };

	return epoll_ctl(t->epfd, op, t->wfd[c], &ev);
}

int trace_watch(struct trace *t, int epfd, uint64_t tag)
{
	int c;

	if (t == NULL || t->iterate)
		return -EOPNOTSUPP;
	for (c = 0; c < t->nr_cpus; c++)
		if (t->cpus[c].tcpu != NULL && t->wfd[c] < 0)
			return -EOPNOTSUPP;
	t->epfd = epfd;
	t->tag = tag;
	for (c = 0; c < t->nr_cpus; c++) {
		if (t->wfd[c] < 0)
			continue;
		if (arm(t, c, EPOLL_CTL_ADD) < 0) {
			int e = errno;

			while (--c >= 0)
				if (t->wfd[c] >= 0)
					epoll_ctl(epfd, EPOLL_CTL_DEL, t->wfd[c], NULL);
			t->epfd = -1;
			return -e;
		}
	}
	return 0;
}

void trace_ready(struct trace *t, int cpu)
{
	if (t != NULL && cpu >= 0 && cpu < t->nr_cpus)
		t->ready[cpu] = true;
	else if (t != NULL && cpu < 0)
		for (int c = 0; c < t->nr_cpus; c++)
			t->ready[c] = true;
}

void trace_seen(struct trace *t, uint64_t ns)
{
	if (t != NULL)
		t->seen_ns = ns;
}

/* A drain's horizon: the records before it are all read (later ones wait
 * for the next drain, so that records of every CPU are taken in time
 * order).  Reading every CPU, that is the drain's start.  Reading only the
 * ready ones, it is the last moment the caller's epoll set was seen whole,
 * less the time a record's wakeup may take to reach it (an irq_work on the
 * writing CPU: microseconds; 2 ms leaves room for an emulated one). */
#define WAKE_SLACK_NS 2000000ull

static uint64_t horizon_of(const struct trace *t, uint64_t now)
{
	bool all = true;

	for (int c = 0; c < t->nr_cpus && all && t->epfd >= 0; c++)
		all = t->wfd[c] < 0 || t->ready[c];
	if (all)
		return now;
	if (t->seen_ns < WAKE_SLACK_NS)
		return 0;
	return t->seen_ns - WAKE_SLACK_NS < now ? t->seen_ns - WAKE_SLACK_NS : now;
}

/* The next CPU a drain reads a page of: the one read least far in time, so
 * the CPUs advance together and a chunk's horizon moves (a k-way merge by
 * page); -1 when every wanted CPU is done. */
static int next_cpu(const struct trace *t)
{
	int best = -1;

	for (int c = 0; c < t->nr_cpus; c++)
		if (!t->cpus[c].done && (best < 0 || t->cpus[c].last_ts < t->cpus[best].last_ts))
			best = c;
	return best;
}

/* What a chunk may add up: the records before the drain's horizon and
 * before the last record read of each CPU not yet read empty (its next
 * records are not read yet). */
static uint64_t chunk_horizon(const struct trace *t, uint64_t horizon)
{
	for (int c = 0; c < t->nr_cpus; c++)
		if ((!t->cpus[c].done || t->cpus[c].cut) && t->cpus[c].last_ts < horizon)
			horizon = t->cpus[c].last_ts;
	return horizon;
}

/* Add up what the batch holds, up to horizon, and let it go. */
static int feed(struct trace *t, uint64_t horizon, json_t *events, json_t *intervals, timeline_emit_fn emit,
		void *ectx)
{
	int ret;

	learn_pids(t);
	ret = timeline_feed(t->tl, t->batch, t->n_batch, horizon, events, intervals, emit, ectx);
	t->n_batch = 0;
	return ret;
}

/* One CPU's reads of this drain are over: watched again once read empty
 * (a record written since the last read makes it ready at once, none waits
 * unseen); a CPU cut short stays ready for the next drain. */
static void cpu_done(struct trace *t, int c, bool cut)
{
	t->cpus[c].done = true;
	t->cpus[c].cut = cut;
	if (cut)
		t->ready[c] = true;
	else if (t->epfd >= 0 && t->wfd[c] >= 0)
		arm(t, c, EPOLL_CTL_MOD);
}

/* The per-CPU readers, merged by page and added up every DRAIN_CHUNK_PAGES
 * pages, so a drain holds at most that many pages of decoded records (plus
 * those a chunk's horizon holds back: about a page per CPU).  A CPU whose
 * records reach the drain's horizon is left for the next drain (nothing
 * past the horizon is added up now, and a writer faster than the reader
 * would hold the drain and its records), as is one read twice its buffer's
 * size; *horizon comes back lowered to what was read of every CPU. */
static int read_cpus(struct trace *t, bool final, uint64_t *horizon, json_t *events, json_t *intervals,
		     timeline_emit_fn emit, void *ectx, struct lab_error *err)
{
	unsigned chunk = 0, max_pages = 2 * (t->cfg.buffer_kb * 1024u / (unsigned)t->page_size + 1);
	int c, ret;

	for (c = 0; c < t->nr_cpus; c++) {
		struct cpu_reader *cr = &t->cpus[c];

		cr->done = cr->tcpu == NULL || !cpu_wanted(t, c, final);
		cr->cut = false;
		cr->pages = 0;
		if (!cr->done)
			t->ready[c] = false;
	}
	while ((c = next_cpu(t)) >= 0) {
		struct cpu_reader *cr = &t->cpus[c];
		int n = tracefs_cpu_read(cr->tcpu, t->page, true);

		t->reads++;
		if (n <= 0) {
			cpu_done(t, c, false);
			continue;
		}
		if ((ret = decode_page(t, cr)) < 0)
			return lab_error_errno(err, -ret, "decode trace records");
		if (!final && cr->last_ts >= *horizon) {
			cpu_done(t, c, true);
		} else if (!final && ++cr->pages >= max_pages) {
			cpu_done(t, c, true);
			*horizon = cr->last_ts;
		}
		if (++chunk % DRAIN_CHUNK_PAGES == 0 &&
		    (ret = feed(t, chunk_horizon(t, *horizon), events, intervals, emit, ectx)) < 0)
			return lab_error_errno(err, -ret, "trace timeline");
	}
	*horizon = chunk_horizon(t, *horizon);
	return 0;
}

/* Whether a drain has nothing to do: the buffers are watched, none said it
 * holds a record since its last read, and the timeline holds back no
 * record for a later horizon — then a drain reads nothing and adds up
 * nothing, and is counted without its two CPU-clock system calls (at every
 * tick while nothing is traced, that was most of an empty drain's cost). */
static bool drain_idle(const struct trace *t)
{
	if (t->iterate || t->epfd < 0 || timeline_pending(t->tl) > 0)
		return false;
	for (int c = 0; c < t->nr_cpus; c++)
		if (t->ready[c])
			return false;
	return true;
}

int trace_drain(struct trace *t, bool final, json_t *events, json_t *intervals, timeline_emit_fn emit,
		void *ectx, struct lab_error *err)
{
	uint64_t horizon, c0;
	int ret;

	if (t == NULL)
		return 0;
	if (!final && drain_idle(t)) {
		t->drains++;
		return 0;
	}
	c0 = cpu_ns();
	horizon = horizon_of(t, mono_ns());
	if (final)
		horizon = UINT64_MAX;
	t->n_batch = 0;
	if (t->iterate) {
		/* libtracefs reads every CPU in one call: not merged by page,
		 * so the batch is whole (a reader kept for measuring only). */
		if (tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0, iterate_cb, t) < 0 && t->n_batch == 0 &&
		    errno != 0 && errno != ENOENT)
			return lab_error_errno(err, errno, "tracefs_iterate_raw_events");
	} else {
		if ((ret = read_cpus(t, final, &horizon, events, intervals, emit, ectx, err)) < 0)
			return ret;
	}
	ret = feed(t, horizon, events, intervals, emit, ectx);
	if (final)
		timeline_finish(t->tl, intervals, emit, ectx);
	t->drains++;
	t->drain_cpu_us += (double)(cpu_ns() - c0) / 1e3;
	if (ret < 0)
		return lab_error_errno(err, -ret, "trace timeline");
	return 0;
}

void trace_marker(struct trace *t, const char *text)
{
	if (t != NULL && t->marker_ok)
		tracefs_printf(t->inst, "pagelab %s\n", text);
}

bool trace_kswapd_awake(const struct trace *t)
{
	return t != NULL && timeline_kswapd_awake(t->tl);
}

bool trace_stall_open(const struct trace *t)
{
	return t != NULL && timeline_stall_open(t->tl);
}

unsigned long long trace_stalls_done(const struct trace *t)
{
	return t != NULL ? timeline_stalls_done(t->tl) : 0;
}

/* "overrun: 0\ncommit overrun: 0\n…dropped events: 0\n" of per_cpu/cpuN/stats. */
static unsigned long long stat_line(const char *buf, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == ':') {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(p + kl + 1, &end, 10);
			if (errno == 0 && end != p + kl + 1)
				return v;
		}
	}
	return 0;
}

static bool forks_on(const struct trace *t)
{
	for (size_t i = 0; i < trace_nr_events && i < 64; i++)
		if (trace_events[i].point == TP_FORK)
			return t->enabled[i];
	return false;
}

/* The fork that made child (a kernel pid) last before ts, or NULL.  The
 * table is in the order the CPUs were read, not in time: a pid the machine
 * gave out twice in the run is told apart by the time. */
static const struct fork_rec *fork_of(const struct trace *t, int child, uint64_t ts)
{
	const struct fork_rec *best = NULL;

	for (size_t i = 0; i < t->n_forks; i++)
		if (t->forks[i].child == child && t->forks[i].ts <= ts && (best == NULL || t->forks[i].ts > best->ts))
			best = &t->forks[i];
	return best;
}

/* Each OOM victim's line of parents, its parent first, from the forks
 * recorded while the run traced: run/victims.c names the tree from the
 * first that is a workload.  The line stops at the first process forked
 * before the run began.  In a pid namespace of the run's own, `ancestors`
 * holds the run's pid of each where a marker maps it, else null, and
 * `kernel_ancestors` the kernel's pids of the same line: a kernel pid never
 * stands in the run's list, where it could be taken for a run's pid. */
static void victims_ancestors(const struct trace *t, json_t *victims)
{
	bool ns = own_pid_ns(t);
	size_t k;
	json_t *v;

	json_array_foreach(victims, k, v) {
		json_int_t g = json_integer_value(json_object_get(v, "kernel_pid"));
		double t_ms = json_number_value(json_object_get(v, RK_T_MS));
		uint64_t ts = t->t0_ns + (uint64_t)(t_ms > 0 ? t_ms * 1e6 : 0) + 1000000;
		json_t *line = json_array(), *kline = json_array();
		const struct fork_rec *f;
		int local;

		if (g <= 0)
			g = json_integer_value(json_object_get(v, "pid"));
		for (int depth = 0; g > 0 && depth < ANCESTORS_MAX && (f = fork_of(t, (int)g, ts)) != NULL; depth++) {
			if (!ns)
				json_array_append_new(line, json_integer(f->parent));
			else
				json_array_append_new(line, map_pid(t, f->parent, &local) ? json_integer(local)
											    : json_null());
			json_array_append_new(kline, json_integer(f->parent));
			g = f->parent;
			ts = f->ts;
		}
		json_object_set_new(v, "ancestors", line);
		if (ns)
			json_object_set_new(v, "kernel_ancestors", kline);
		else
			json_decref(kline);
	}
}

json_t *trace_summary(struct trace *t, uint64_t end_ns)
{
	json_t *o, *loss = json_object(), *per = json_array();
	unsigned long long overrun = 0, commit = 0, dropped = 0, missed = 0;
	bool unknown = false;
	char set[160];

	if (t == NULL)
		return json_null();
	o = timeline_summary(t->tl, end_ns);
	if (forks_on(t)) {
		victims_ancestors(t, json_object_get(o, RK_OOM_VICTIMS));
		json_object_set_new(o, "forks", json_pack("{s:I, s:I}", "recorded", (json_int_t)t->n_forks, "dropped",
							  (json_int_t)t->forks_dropped));
	}
	for (int c = 0; c < t->nr_cpus; c++) {
		char file[64];
		char *buf;
		unsigned long long ov = 0, co = 0, dr = 0;

		if (t->cpus[c].tcpu == NULL)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		buf = tracefs_instance_file_read(t->inst, file, NULL);
		if (buf != NULL) {
			ov = stat_line(buf, "overrun");
			co = stat_line(buf, "commit overrun");
			dr = stat_line(buf, "dropped events");
			free(buf);
		}
		overrun += ov;
		commit += co;
		dropped += dr;
		missed += t->cpus[c].missed;
		unknown |= t->cpus[c].missed_unknown;
		json_array_append_new(per, json_pack("{s:i, s:I, s:I, s:I, s:I}", "cpu", c, "overrun",
						     (json_int_t)ov, "commit_overrun", (json_int_t)co,
						     "dropped_events", (json_int_t)dr, "missed",
						     (json_int_t)t->cpus[c].missed));
	}
	json_object_set_new(loss, "overrun", json_integer((json_int_t)overrun));
	json_object_set_new(loss, "commit_overrun", json_integer((json_int_t)commit));
	json_object_set_new(loss, "dropped_events", json_integer((json_int_t)dropped));
	json_object_set_new(loss, "missed", json_integer((json_int_t)missed));
	json_object_set_new(loss, "missed_unknown", json_boolean(unknown));
	/* The records a reader is told it skipped are the overrun seen from the
	 * reading side (kernel/trace/ring_buffer.c: rb_get_reader_page sets
	 * lost_events to the overrun since the last page read), not more lost
	 * ones: the total is the kernel's three counters. */
	json_object_set_new(loss, "total", json_integer((json_int_t)(overrun + commit + dropped)));
	json_object_set_new(loss, "per_cpu", per);
	json_object_set_new(o, "lost", loss);
	tracedef_set_text(t->cfg.set, set, sizeof(set));
	json_object_set_new(o, "set", json_string(set));
	json_object_set_new(o, "raw", json_boolean(t->cfg.raw));
	json_object_set_new(o, "instance", json_string(t->name));
	json_object_set_new(o, "clock", json_string("mono"));
	json_object_set_new(o, "buffer_kb", json_integer(t->cfg.buffer_kb));
	json_object_set_new(o, "bin_ms", json_integer(t->cfg.bin_ms));
	json_object_set(o, "missing_events", t->missing);
	json_object_set_new(o, "records", json_integer((json_int_t)t->records));
	json_object_set_new(o, "drains", json_integer((json_int_t)t->drains));
	json_object_set_new(o, "buffer_reads", json_integer((json_int_t)t->reads));
	json_object_set_new(o, "watched", json_boolean(t->epfd >= 0));
	json_object_set_new(o, "drain_cpu_us", json_real(t->drain_cpu_us));
	json_object_set_new(o, "reader", json_string(t->iterate ? "tracefs_iterate_raw_events" : "per-cpu trace_pipe_raw"));
	return o;
}

void trace_close(struct trace *t)
{
	if (t == NULL)
		return;
	if (t->inst != NULL) {
		tracefs_instance_file_write(t->inst, "tracing_on", "0");
		for (int c = 0; c < t->nr_cpus; c++)
			if (t->cpus[c].tcpu != NULL)
				tracefs_cpu_close(t->cpus[c].tcpu);
		close_watched(t);
		tracefs_event_disable(t->inst, NULL, NULL);
		/* An open trace_marker keeps the instance busy (rmdir: EBUSY). */
		if (t->marker_ok)
			tracefs_print_close(t->inst);
		if (t->marker_fd >= 0)
			close(t->marker_fd);
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
	}
	for (size_t i = 0; i < t->n_batch; i++)
		json_decref(t->batch[i].raw);
	free(t->batch);
	free(t->forks);
	timeline_free(t->tl);
	if (t->kbuf)
		kbuffer_free(t->kbuf);
	free(t->page);
	if (t->tep)
		tep_free(t->tep);
	json_decref(t->missing);
	free(t);
}
