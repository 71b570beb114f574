/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cachefill — the page-cache filler of the min_free_kbytes experiments.
 *
 *   cachefill --size SIZE [--dir DIR] [--reads N] [--cold] [--stay] [--keep]
 *             [--event-fd N] [--ack-fd N]
 *
 * AndreyEx's min_free_kbytes article builds a 2.3 GB file,
 * reads it with `cat > /dev/null`, and times a second read: 0.364 s when it
 * stayed in the page cache, about 20 s when a 1.5 GB min_free_kbytes left the
 * cache too small; the watermark article fills 2.5 GB of cache before each
 * kswapd run.  cachefill does both: it creates DIR/pagelab-cachefill-PID of
 * SIZE (written in 1 MiB blocks of a non-zero pattern, then fsync'd), reports
 * `create`; with --cold drops the file's clean pages (posix_fadvise
 * DONTNEED) and reports `drop`; then reads the whole file N times (default
 * 2) with read(2), reporting each `read` with its read_ns and MiB/s; every
 * step also says how much of the file is in the page cache, counted with
 * mincore(2) over a PROT_READ mapping of it (which faults nothing in):
 * cached_pages of file_pages.  With --stay it then waits for SIGTERM/SIGINT
 * (the harness stops the other workloads when the main one ends), so the
 * file — and its cache — outlives the reads while a later workload runs.
 * The file is removed at the end unless --keep (a SIGKILLed cachefill leaves
 * it behind: the name carries the pid).  In a QEMU guest without a disk
 * /var/tmp is on the initramfs (ramfs/tmpfs), whose pages are not page cache
 * that reclaim can drop: give --dir a real file system there.
 *
 * Exit status: 0 done, 1 a step failed (an `error` event says which),
 * 2 bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decl.h"
#include "base/error.h"
#include "events.h"
#include "lockdown.h"

#define BLOCK (1u << 20)

struct config {
	unsigned long long size, reads;
	const char *dir;
	bool cold, keep, stay;
};

static void usage(FILE *f)
{
	wl_decl_usage(&wl_decl_cachefill, f);
}

/* One option of the declaration (workloads/decl/cachefill.c), typed: what it sets. */
static int set_opt(void *ctx, const struct wl_opt *opt, const char *val, unsigned long long v,
		   struct lab_error *err)
{
	struct config *cfg = ctx;

	(void)err;
	if (!strcmp(opt->key, "size"))
		cfg->size = v;
	else if (!strcmp(opt->key, "reads"))
		cfg->reads = v;
	else if (!strcmp(opt->key, "cold"))
		cfg->cold = v;
	else if (!strcmp(opt->key, "stay"))
		cfg->stay = v;
	else if (!strcmp(opt->key, "keep"))
		cfg->keep = v;
	else if (!strcmp(opt->key, "dir"))
		cfg->dir = val;
	return 0;
}

static int parse_args(int argc, char **argv, struct config *cfg, struct events *ev, struct lab_error *err)
{
	struct events_args ea = { .ev = ev };
	const struct wl_argv a = { .pre = events_argv_pre, .pre_ctx = &ea, .set = set_opt, .ctx = cfg };
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->reads = 2;
	cfg->dir = "/var/tmp";
	if ((ret = wl_parse_argv(&wl_decl_cachefill, argc, argv, &a, err)) < 0)
		return ret;
	if (cfg->size == 0 || cfg->size % BLOCK != 0)
		return lab_error_set(err, EINVAL, "--size is required, a whole number of MiB");
	if (cfg->reads > 100)
		return lab_error_set(err, EINVAL, "--reads %llu: at most 100", cfg->reads);
	return 0;
}

/* Pages of the file in the page cache: mincore over a read-only mapping
 * (mm/mincore.c reads the page cache for a file mapping; nothing faults in). */
static int residency(int fd, unsigned long long size, unsigned long long *cached, struct lab_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (size_t)((size + page - 1) / page);
	unsigned char *vec = malloc(pages);
	void *map;

	if (vec == NULL)
		return lab_error_errno(err, ENOMEM, "mincore vector");
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		free(vec);
		return lab_error_errno(err, errno, "mmap the file");
	}
	if (mincore(map, (size_t)size, vec) < 0) {
		int e = errno;

		munmap(map, (size_t)size);
		free(vec);
		return lab_error_errno(err, e, "mincore");
	}
	*cached = 0;
	for (size_t i = 0; i < pages; i++)
		*cached += vec[i] & 1;
	munmap(map, (size_t)size);
	free(vec);
	return 0;
}

static int report(struct events *ev, const char *step, const char *arg, int fd, const struct config *cfg,
		  unsigned long long work_ns, bool rate, struct lab_error *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long cached = 0;
	struct ev_line l;
	int ret = residency(fd, cfg->size, &cached, err);

	if (ret < 0)
		return ret;
	events_step_begin(ev, &l, step, arg);
	ev_u64(&l, "work_ns", work_ns);
	ev_u64(&l, "file_bytes", cfg->size);
	ev_u64(&l, "file_pages", cfg->size / page);
	ev_u64(&l, "cached_pages", cached);
	ev_u64(&l, "cached_kb", cached * page / 1024);
	if (rate)
		ev_u64(&l, "mib_per_s", work_ns ? cfg->size * 1000000000ULL / work_ns / (1u << 20) : 0);
	ret = events_add_self(&l, err);
	if (ret < 0)
		return ret;
	return events_step_end(ev, &l, err);
}

/* SIZE bytes of buf's pattern, BLOCK at a time, then fsync: the file is
 * clean before it is read (or dropped). */
static int write_file(int fd, const unsigned char *buf, unsigned long long size, const char *path,
		      struct lab_error *err)
{
	for (unsigned long long off = 0; off < size; off += BLOCK) {
		size_t o = 0;

		while (o < BLOCK) {
			ssize_t n = write(fd, buf + o, BLOCK - o);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return lab_error_errno(err, n < 0 ? errno : EIO, "write %s", path);
			o += (size_t)n;
		}
	}
	if (fsync(fd) < 0)
		return lab_error_errno(err, errno, "fsync %s", path);
	return 0;
}

/* Read the file from where it stands to its end, BLOCK at a time. */
static int read_file(int fd, unsigned char *buf, const char *path, struct lab_error *err)
{
	for (;;) {
		ssize_t n = read(fd, buf, BLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return lab_error_errno(err, errno, "read %s", path);
		if (n == 0)
			return 0;
	}
}

int main(int argc, char **argv)
{
	static const char *const extra[] = { "fsync", "fadvise64", "unlink", "unlinkat", "lseek", NULL };
	struct lab_error err = { 0 };
	struct config cfg;
	struct events ev;
	struct ev_line l;
	char path[4096], arg[16];
	sigset_t stop;
	unsigned char *buf;
	unsigned long long t0;
	int fd = -1, ret = 0;
	const char *step = "create";

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	events_init(&ev, "cachefill");
	if (parse_args(argc, argv, &cfg, &ev, &err) < 0) {
		fprintf(stderr, "cachefill: %s (cachefill --help: the options)\n", err.msg);
		return 2;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/pagelab-cachefill-%d", cfg.dir, (int)getpid()) >= sizeof(path)) {
		fprintf(stderr, "cachefill: --dir too long\n");
		return 2;
	}
	/* Blocked from the start: no handler, no race with sigwaitinfo. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	buf = malloc(BLOCK);
	if (buf == NULL) {
		fprintf(stderr, "cachefill: out of memory\n");
		return 1;
	}
	/* Not zeros: a file system could store a zero block as a hole. */
	for (size_t i = 0; i < BLOCK; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "cachefill: create %s: %s\n", path, strerror(errno));
		free(buf);
		return 1;
	}
	events_start_begin(&ev, &l);
	ev_u64(&l, "size_bytes", cfg.size);
	ev_u64(&l, "reads", cfg.reads);
	ev_bool(&l, "cold", cfg.cold);
	ev_bool(&l, "stay", cfg.stay);
	ev_str(&l, "file", path);
	if (events_emit(&ev, &l, &err) < 0 || lockdown_install(extra, &err) < 0) {
		ret = -1;
		step = "lockdown";
		goto out;
	}
	t0 = events_now_ns();
	if ((ret = write_file(fd, buf, cfg.size, path, &err)) < 0)
		goto out;
	ret = report(&ev, "create", NULL, fd, &cfg, events_now_ns() - t0, true, &err);
	if (ret < 0)
		goto out;
	if (cfg.cold) {
		step = "drop";
		/* Clean now (fsync'd), so DONTNEED can drop every page (mm/fadvise.c). */
		ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (ret != 0) {
			ret = lab_error_errno(&err, ret, "posix_fadvise DONTNEED");
			goto out;
		}
		ret = report(&ev, "drop", NULL, fd, &cfg, 0, false, &err);
		if (ret < 0)
			goto out;
	}
	step = "read";
	for (unsigned long long r = 1; r <= cfg.reads; r++) {
		if (lseek(fd, 0, SEEK_SET) < 0) {
			ret = lab_error_errno(&err, errno, "lseek");
			goto out;
		}
		t0 = events_now_ns();
		if ((ret = read_file(fd, buf, path, &err)) < 0)
			goto out;
		snprintf(arg, sizeof(arg), "%llu", r);
		ret = report(&ev, "read", arg, fd, &cfg, events_now_ns() - t0, true, &err);
		if (ret < 0)
			goto out;
	}
	if (cfg.stay) {
		int sig;

		do
			sig = sigwaitinfo(&stop, NULL);
		while (sig < 0 && errno == EINTR);
	}
	(void)events_done(&ev, NULL);
out:
	if (ret < 0) {
		events_error(&ev, step, err.msg);
		fprintf(stderr, "cachefill: %s: %s\n", step, err.msg);
	}
	if (fd >= 0)
		close(fd);
	if (!cfg.keep)
		unlink(path);
	free(buf);
	return ret < 0 ? 1 : 0;
}
