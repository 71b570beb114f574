/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_outside.c — harness/sample/outside.h: the outside ballast's life as
 * the harness sees it, with stand-in `hold` programs (shell scripts in a
 * private mktemp directory, one per case) in place of the real one, which
 * would fill this machine.
 *
 * Expected: the program is started as BINDIR/hold --leave N --oom-score-adj 0
 * --event-fd 3, its events on descriptor 3; "start" then "step" is a record
 * with result "ok", memfree_kb, held_bytes, rollup and wait_ms, and the
 * ballast keeps running until outside_stop; an "error" event, an end without
 * a step (EOF), a line longer than the buffer, the deadline passed and an
 * abandoned fill are each a record with result "error" and the reason, the
 * ballast stopped and reaped (its pid gone); a line split across two writes
 * is one event; a bindir path too long is refused before anything starts;
 * a ballast that ignores SIGTERM is killed by outside_stop after its grace.
 * argv[1] (the fixtures) is not used.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "sample/outside.h"
#include "unit.h"

static char dir[] = "/tmp/test_outside.XXXXXX";

static long long ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A bindir dir/NAME holding a `hold` that runs body (sh) after writing its
 * arguments to dir/NAME/argv. */
static const char *bindir(const char *name, const char *body)
{
	static char d[PATH_MAX];
	char path[PATH_MAX + 8];
	FILE *f;

	snprintf(d, sizeof(d), "%s/%s", dir, name);
	CHECK(mkdir(d, 0700) == 0);
	snprintf(path, sizeof(path), "%s/hold", d);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f == NULL)
		return d;
	fprintf(f, "#!/bin/sh\necho \"$*\" > '%s/argv'\n%s\n", d, body);
	fclose(f);
	CHECK(chmod(path, 0700) == 0);
	return d;
}

/* outside_poll until it answers (the descriptor ready, or every 50 ms for
 * the deadline), at most limit_ms. */
static int poll_until(struct outside *o, json_t *rec, struct lab_error *err, long long limit_ms)
{
	long long end = ms() + limit_ms;
	int ret = 0;

	while (ret == 0 && ms() < end) {
		struct pollfd p = { .fd = o->fd, .events = POLLIN };

		(void)poll(&p, 1, 50);
		ret = outside_poll(o, rec, err);
	}
	return ret;
}

static bool gone(pid_t pid)
{
	return pid > 0 && kill(pid, 0) < 0 && errno == ESRCH;
}

static const char *rec_str(json_t *rec, const char *key)
{
	return json_string_value(json_object_get(rec, key));
}

static void test_ok(void)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	const char *d = bindir("ok", "printf '{\"event\":\"start\",\"memfree_kb\":123}\\n' >&3\n"
				     "printf '{\"event\":\"step\",\"held_bytes\":4096,\"rollup\":{\"rss_kb\":4}}\\n' >&3\n"
				     "exec sleep 60");
	char argvf[PATH_MAX], *args = NULL;
	pid_t pid;

	CHECK(outside_begin(d, 1048576, &o, rec, &err) == 0);
	pid = o.pid;
	CHECK(pid > 0);
	CHECK(o.fd >= 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(rec, "pid")), (unsigned long long)pid);
	CHECK_EQ_U64(json_integer_value(json_object_get(rec, "leave_bytes")), 1048576);
	CHECK(poll_until(&o, rec, &err, 10000) == 1);
	CHECK_STR(rec_str(rec, "result"), "ok");
	CHECK_EQ_U64(json_integer_value(json_object_get(rec, "memfree_kb")), 123);
	CHECK_EQ_U64(json_integer_value(json_object_get(rec, "held_bytes")), 4096);
	CHECK_EQ_U64(json_integer_value(json_object_get(json_object_get(rec, "rollup"), "rss_kb")), 4);
	CHECK(json_is_integer(json_object_get(rec, "wait_ms")));
	CHECK(json_object_get(rec, "error") == NULL);
	CHECK(o.fd == -1);
	/* It holds its memory until the run stops it. */
	CHECK(kill(pid, 0) == 0);
	snprintf(argvf, sizeof(argvf), "%s/argv", d);
	CHECK(lab_read_file(argvf, &args, NULL, &err) == 0);
	CHECK_STR(args, "--leave 1048576 --oom-score-adj 0 --event-fd 3\n");
	free(args);
	outside_stop(&o);
	CHECK(o.pid == 0);
	CHECK(gone(pid));
	json_decref(rec);
}

/* A case whose ballast fails in its own way: the record an error naming
 * why, the ballast stopped. */
static void fails(const char *name, const char *body, int want, const char *why)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	pid_t pid;

	CHECK(outside_begin(bindir(name, body), 0, &o, rec, &err) == 0);
	pid = o.pid;
	CHECK(poll_until(&o, rec, &err, 10000) == want);
	CHECK_CONTAINS(err.msg, why);
	CHECK_STR(rec_str(rec, "result"), "error");
	CHECK_CONTAINS(rec_str(rec, "error"), why);
	CHECK(json_is_integer(json_object_get(rec, "wait_ms")));
	CHECK(o.fd == -1);
	CHECK(o.pid == 0);
	CHECK(gone(pid));
	json_decref(rec);
}

static void test_failures(void)
{
	char big[9000 + 64];

	fails("error", "printf '{\"event\":\"error\",\"msg\":\"no room to leave\"}\\n' >&3\nexec sleep 60", -EIO,
	      "outside ballast: no room to leave");
	fails("eof", "exit 0", -EPIPE, "ended before taking its memory");
	/* Its events closed but the program alive: the end of its events is
	 * the end of it. */
	fails("closed", "exec 3>&-\nexec sleep 60", -EPIPE, "ended before taking its memory");
	memset(big, 'x', 9000);
	snprintf(big + 9000, sizeof(big) - 9000, "' >&3\nexec sleep 60");
	{
		char body[sizeof(big) + 16];

		snprintf(body, sizeof(body), "printf '%s", big);
		fails("long", body, -E2BIG, "longer than 8192 bytes");
	}
}

/* One event in two writes, 300 ms apart: not taken for two lines. */
static void test_split_line(void)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	const char *d = bindir("split", "printf '{\"event\":\"st' >&3\nsleep 0.3\n"
					"printf 'ep\",\"held_bytes\":8192}\\n' >&3\nexec sleep 60");

	CHECK(outside_begin(d, 0, &o, rec, &err) == 0);
	CHECK(poll_until(&o, rec, &err, 10000) == 1);
	CHECK_EQ_U64(json_integer_value(json_object_get(rec, "held_bytes")), 8192);
	outside_stop(&o);
	json_decref(rec);
}

/* The deadline (OUTSIDE_WAIT_MS from the start) checked at a poll with
 * nothing to read: the test moves it to now rather than wait two minutes. */
static void test_deadline(void)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	pid_t pid;
	long long t0;

	CHECK(outside_begin(bindir("slow", "exec sleep 60"), 0, &o, rec, &err) == 0);
	pid = o.pid;
	CHECK(o.deadline_ms == o.t0_ms + OUTSIDE_WAIT_MS);
	CHECK(outside_poll(&o, rec, &err) == 0);        /* nothing yet, in time */
	CHECK(json_object_get(rec, "result") == NULL);
	o.deadline_ms = o.t0_ms;
	t0 = ms();
	CHECK(outside_poll(&o, rec, &err) == -ETIMEDOUT);
	CHECK(ms() - t0 < 5000);                        /* sleep dies of SIGTERM: no grace spent */
	CHECK_CONTAINS(err.msg, "did not take its memory in 120 s");
	CHECK_STR(rec_str(rec, "result"), "error");
	CHECK(o.pid == 0);
	CHECK(gone(pid));
	json_decref(rec);
}

/* The run ends while the ballast fills: the record says so, the ballast is
 * stopped, and an abandon after the answer changes nothing. */
static void test_abandon(void)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	pid_t pid;

	CHECK(outside_begin(bindir("abandon", "exec sleep 60"), 0, &o, rec, &err) == 0);
	pid = o.pid;
	outside_abandon(&o, rec, "the run ended before it took its memory");
	CHECK_STR(rec_str(rec, "result"), "error");
	CHECK_STR(rec_str(rec, "error"), "the run ended before it took its memory");
	CHECK(o.fd == -1);
	CHECK(o.pid == 0);
	CHECK(gone(pid));
	outside_abandon(&o, rec, "again");
	CHECK_STR(rec_str(rec, "error"), "the run ended before it took its memory");
	json_decref(rec);
}

/* A ballast that ignores SIGTERM: killed after the 5 s grace. */
static void test_stubborn(void)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	const char *d = bindir("stubborn", "trap '' TERM\n"
					   "printf '{\"event\":\"step\",\"held_bytes\":1}\\n' >&3\n"
					   "while :; do sleep 0.1; done");
	long long t0;
	pid_t pid;

	CHECK(outside_begin(d, 0, &o, rec, &err) == 0);
	pid = o.pid;
	CHECK(poll_until(&o, rec, &err, 10000) == 1);
	t0 = ms();
	outside_stop(&o);
	CHECK(ms() - t0 >= 4900);
	CHECK(ms() - t0 < 8000);
	CHECK(gone(pid));
	json_decref(rec);
}

static void test_bad_bindir(void)
{
	struct lab_error err = { 0 };
	struct outside o;
	json_t *rec = json_object();
	char longdir[PATH_MAX + 8];

	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = '\0';
	CHECK(outside_begin(longdir, 0, &o, rec, &err) == -ENAMETOOLONG);
	CHECK_STR(rec_str(rec, "result"), "error");
	CHECK(o.pid == 0);
	CHECK(o.fd == -1);
	json_decref(rec);
	/* No such program: the child's exec fails, which is an end before any
	 * event. */
	rec = json_object();
	snprintf(longdir, sizeof(longdir), "%s/none", dir);
	CHECK(outside_begin(longdir, 0, &o, rec, &err) == 0);
	CHECK(poll_until(&o, rec, &err, 10000) == -EPIPE);
	CHECK(o.pid == 0);
	json_decref(rec);
}

int main(int argc, char **argv)
{
	char cmd[PATH_MAX + 16];

	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_ok();
	test_failures();
	test_split_line();
	test_deadline();
	test_abandon();
	test_stubborn();
	test_bad_bindir();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
	return unit_report("outside");
}
