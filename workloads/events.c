/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/size.h"
#include "base/kv.h"

_Static_assert(EVENTS_LINE_MAX <= PIPE_BUF, "an event line must be written atomically");

void events_init(struct events *ev, const char *program)
{
	ev->event_fd = STDOUT_FILENO;
	ev->ack_fd = -1;
	ev->seq = 0;
	ev->program = program;
	signal(SIGPIPE, SIG_IGN);
}

int events_opt(int argc, char **argv, int *i, const char *name, const char **val,
	       struct lab_error *err)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) != 0)
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc)
		return lab_error_set(err, EINVAL, "%s: missing value", name);
	*i += 1;
	*val = argv[*i];
	return 1;
}

static int parse_fd(const char *name, const char *s, int *fd, struct lab_error *err)
{
	unsigned long long v;
	int ret;

	ret = lab_parse_uint(s, &v, err);
	if (ret < 0)
		return lab_error_prefix(err, "%s %s", name, s);
	if (v > INT_MAX)
		return lab_error_set(err, EINVAL, "%s %s: not a file descriptor", name, s);
	if (fcntl((int)v, F_GETFD) < 0)
		return lab_error_errno(err, errno, "%s %s: not an open file descriptor", name, s);
	*fd = (int)v;
	return 0;
}

int events_parse_arg(struct events *ev, int argc, char **argv, int *i,
		     struct lab_error *err)
{
	const char *val = NULL;
	int ret;

	ret = events_opt(argc, argv, i, "--event-fd", &val, err);
	if (ret > 0) {
		ret = parse_fd("--event-fd", val, &ev->event_fd, err);
		return ret < 0 ? ret : 1;
	}
	if (ret < 0)
		return ret;
	ret = events_opt(argc, argv, i, "--ack-fd", &val, err);
	if (ret > 0) {
		ret = parse_fd("--ack-fd", val, &ev->ack_fd, err);
		return ret < 0 ? ret : 1;
	}
	return ret;
}

/* ---- line building ---------------------------------------------------- */

static void ev_printf(struct ev_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ev_printf(struct ev_line *l, const char *fmt, ...)
{
	size_t room = sizeof(l->buf) - l->len;
	va_list ap;
	int n;

	if (l->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		l->overflow = true;
		l->buf[l->len] = '\0';
		return;
	}
	l->len += (size_t)n;
}

static void ev_putc(struct ev_line *l, char c)
{
	if (l->overflow)
		return;
	if (l->len + 1 >= sizeof(l->buf)) {
		l->overflow = true;
		return;
	}
	l->buf[l->len++] = c;
	l->buf[l->len] = '\0';
}

/* A JSON string.  Bytes >= 0x80 are escaped as \u00XX (read as Latin-1):
 * a process's comm is not guaranteed to be UTF-8, and the harness's JSON
 * parser (jansson) rejects invalid UTF-8. */
static void ev_quote(struct ev_line *l, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	ev_putc(l, '"');
	for (; *p != '\0' && !l->overflow; p++) {
		if (*p == '"' || *p == '\\') {
			ev_putc(l, '\\');
			ev_putc(l, (char)*p);
		} else if (*p < 0x20 || *p >= 0x7f) {
			ev_printf(l, "\\u%04x", *p);
		} else {
			ev_putc(l, (char)*p);
		}
	}
	ev_putc(l, '"');
}

/* The separator and the key: a comma unless this is the first member of an
 * object or array. */
static void ev_key(struct ev_line *l, const char *key)
{
	if (l->len > 0) {
		char last = l->buf[l->len - 1];

		if (last != '{' && last != '[')
			ev_putc(l, ',');
	}
	if (key != NULL) {
		ev_quote(l, key);
		ev_putc(l, ':');
	}
}

void ev_u64(struct ev_line *l, const char *key, unsigned long long v)
{
	ev_key(l, key);
	ev_printf(l, "%llu", v);
}

void ev_bool(struct ev_line *l, const char *key, bool v)
{
	ev_key(l, key);
	ev_printf(l, "%s", v ? "true" : "false");
}

void ev_str(struct ev_line *l, const char *key, const char *s)
{
	ev_key(l, key);
	ev_quote(l, s != NULL ? s : "");
}

void ev_obj_begin(struct ev_line *l, const char *key)
{
	ev_key(l, key);
	ev_putc(l, '{');
}

void ev_obj_end(struct ev_line *l)
{
	ev_putc(l, '}');
}

void ev_arr_begin(struct ev_line *l, const char *key)
{
	ev_key(l, key);
	ev_putc(l, '[');
}

void ev_arr_end(struct ev_line *l)
{
	ev_putc(l, ']');
}

static void ev_reset(struct ev_line *l)
{
	l->len = 0;
	l->overflow = false;
	l->buf[0] = '\0';
}

/* ---- counters --------------------------------------------------------- */

int events_add_self(struct ev_line *l, struct lab_error *err)
{
	cleanup_free char *rollup = NULL;
	cleanup_free char *status = NULL;
	struct kv_list kv = { 0 };
	unsigned long long rss, lazyfree, anonhuge, vmrss;
	int ret;

	ret = lab_read_file("/proc/self/smaps_rollup", &rollup, NULL, err);
	if (ret < 0)
		return ret;
	ret = lab_read_file("/proc/self/status", &status, NULL, err);
	if (ret < 0)
		return ret;
	ret = kv_parse_colon(rollup, &kv, err);
	if (ret < 0) {
		kv_free(&kv);
		return lab_error_prefix(err, "/proc/self/smaps_rollup");
	}
	rss = kv_get0(&kv, "Rss");
	lazyfree = kv_get0(&kv, "LazyFree");
	anonhuge = kv_get0(&kv, "AnonHugePages");
	kv_reset(&kv);
	ret = kv_parse_colon(status, &kv, err);
	if (ret < 0) {
		kv_free(&kv);
		return lab_error_prefix(err, "/proc/self/status");
	}
	if (!kv_get(&kv, "VmRSS", &vmrss)) {
		kv_free(&kv);
		return lab_error_set(err, ENOENT, "/proc/self/status: no VmRSS line");
	}
	kv_free(&kv);
	ev_obj_begin(l, "rollup");
	ev_u64(l, "rss_kb", rss);
	ev_u64(l, "lazyfree_kb", lazyfree);
	ev_u64(l, "anonhuge_kb", anonhuge);
	ev_obj_end(l);
	ev_u64(l, "vmrss_kb", vmrss);
	return 0;
}

unsigned long long events_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* ---- events ----------------------------------------------------------- */

void events_start_begin(struct events *ev, struct ev_line *l)
{
	ev_reset(l);
	ev_obj_begin(l, NULL);
	ev_str(l, "event", "start");
	ev_str(l, "program", ev->program);
	ev_u64(l, "pid", (unsigned long long)getpid());
	ev_u64(l, "page_size", (unsigned long long)sysconf(_SC_PAGESIZE));
	ev_u64(l, "t_ns", events_now_ns());
}

void events_step_begin(struct events *ev, struct ev_line *l, const char *step, const char *arg)
{
	ev->seq++;
	ev_reset(l);
	ev_obj_begin(l, NULL);
	ev_str(l, "event", "step");
	ev_u64(l, "seq", ev->seq);
	ev_str(l, "step", step);
	ev_str(l, "arg", arg);
	ev_u64(l, "t_ns", events_now_ns());
}

int events_emit(struct events *ev, struct ev_line *l, struct lab_error *err)
{
	ssize_t n;

	ev_obj_end(l);
	ev_putc(l, '\n');
	if (l->overflow)
		return lab_error_set(err, EOVERFLOW, "event line longer than %d bytes",
				     EVENTS_LINE_MAX - 1);
	do
		n = write(ev->event_fd, l->buf, l->len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return lab_error_errno(err, errno, "write event to fd %d", ev->event_fd);
	if ((size_t)n != l->len)
		return lab_error_set(err, EIO, "short write of an event to fd %d", ev->event_fd);
	return 0;
}

static int wait_ack(struct events *ev, struct lab_error *err)
{
	char b;
	ssize_t n;

	if (ev->ack_fd < 0)
		return 0;
	do
		n = read(ev->ack_fd, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return lab_error_errno(err, errno, "read ack from fd %d", ev->ack_fd);
	if (n == 0)
		return lab_error_set(err, EPIPE, "ack fd %d closed: the harness went away",
				     ev->ack_fd);
	return 0;
}

int events_step_end(struct events *ev, struct ev_line *l, struct lab_error *err)
{
	int ret;

	ret = events_emit(ev, l, err);
	if (ret < 0)
		return ret;
	return wait_ack(ev, err);
}

void events_line_begin(struct ev_line *l, const char *event)
{
	ev_reset(l);
	ev_obj_begin(l, NULL);
	ev_str(l, "event", event);
}

int events_done(struct events *ev, struct lab_error *err)
{
	struct ev_line l;

	ev_reset(&l);
	ev_obj_begin(&l, NULL);
	ev_str(&l, "event", "done");
	ev_u64(&l, "seq", ev->seq);
	ev_u64(&l, "t_ns", events_now_ns());
	return events_emit(ev, &l, err);
}

void events_error(struct events *ev, const char *step, const char *msg)
{
	struct ev_line l;
	char cut[LAB_ERROR_MSG_MAX];

	ev_reset(&l);
	ev_obj_begin(&l, NULL);
	ev_str(&l, "event", "error");
	ev_str(&l, "step", step);
	ev_str(&l, "msg", msg);
	ev_u64(&l, "t_ns", events_now_ns());
	if (l.overflow) {
		/* A message too long to escape into one line: keep its head. */
		snprintf(cut, sizeof(cut), "%.512s", msg);
		ev_reset(&l);
		ev_obj_begin(&l, NULL);
		ev_str(&l, "event", "error");
		ev_str(&l, "step", step);
		ev_str(&l, "msg", cut);
	}
	(void)events_emit(ev, &l, NULL);
}

int events_opt_oom_adj(int argc, char **argv, int *i, long *adj, struct lab_error *err)
{
	const char *val = NULL;
	char *end;
	int ret = events_opt(argc, argv, i, "--oom-score-adj", &val, err);

	if (ret <= 0)
		return ret;
	errno = 0;
	*adj = strtol(val, &end, 10);
	if (errno || *end || end == val || *adj < -1000 || *adj > 1000)
		return lab_error_set(err, EINVAL, "--oom-score-adj %s: expected -1000..1000", val);
	return 1;
}

int events_argv_pre(void *args, int argc, char **argv, int *i, struct lab_error *err)
{
	const struct events_args *a = args;
	int ret = events_parse_arg(a->ev, argc, argv, i, err);

	if (ret != 0 || a->adj == NULL)
		return ret;
	ret = events_opt_oom_adj(argc, argv, i, a->adj, err);
	if (ret > 0 && a->adj_given != NULL)
		*a->adj_given = true;
	return ret;
}

int events_set_oom_adj(long adj, struct lab_error *err)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%ld", adj);
	return lab_write_file("/proc/self/oom_score_adj", buf, err);
}
