/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_spawn.c — base/spawn.h: starting helper programs and waiting for them.
 *
 * Expected: an exit status comes back as it is (sh -c 'exit 3' -> 3), a
 * death by a signal as 128 + N (SIGKILL -> 137); a program that cannot be
 * executed is the call's error (-ENOENT, "cannot start PATH: ..."), not a
 * 127; stdout and stderr go where asked (a file; 2>&1); the child's stdin is
 * /dev/null; capture returns exactly what was printed, and past its cap is
 * -EFBIG with the child stopped; a wait with a deadline stops a child still
 * running (SIGTERM, which sh dies of) and is -ETIMEDOUT within the deadline
 * plus a little; a child that ignores SIGTERM is killed after the grace; the
 * started callback sees the child's pid; a signal blocked in the caller is
 * not blocked in the child.  Files are made in a private mktemp directory;
 * argv[1] (the fixtures) is not used.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "base/spawn.h"
#include "unit.h"

static char dir[] = "/tmp/test_spawn.XXXXXX";

static char *sh(const char *script)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s", script);
	return buf;
}

static long long ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static pid_t seen;

static void started(void *ctx, pid_t pid)
{
	(void)ctx;
	seen = pid;
}

static void test_status(void)
{
	struct lab_error err = { 0 };
	char *argv[] = { "/bin/sh", "-c", sh("exit 3"), NULL };
	char *kill9[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	int st = -1;

	CHECK(lab_spawn_run(argv, NULL, 0, &st, &err) == 0);
	CHECK_EQ_U64(st, 3);
	CHECK(lab_spawn_run(kill9, NULL, 0, &st, &err) == 0);
	CHECK_EQ_U64(st, 137);
}

static void test_exec_failure(void)
{
	struct lab_error err = { 0 };
	char path[PATH_MAX];
	char *argv[] = { path, NULL };
	int st = 0;

	snprintf(path, sizeof(path), "%s/no-such-program", dir);
	CHECK(lab_spawn_run(argv, NULL, 0, &st, &err) == -ENOENT);
	CHECK_CONTAINS(err.msg, "cannot start ");
	CHECK_CONTAINS(err.msg, "no-such-program");
	CHECK_EQ_U64(st, (unsigned long long)-1);
	/* A file that is not executable: -EACCES. */
	snprintf(path, sizeof(path), "%s/plain", dir);
	close(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	CHECK(lab_spawn_run(argv, NULL, 0, &st, &err) == -EACCES);
}

static void test_fds(void)
{
	struct lab_error err = { 0 };
	char path[PATH_MAX], *text = NULL;
	char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; cat", NULL };
	int fd, st;

	snprintf(path, sizeof(path), "%s/both", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	/* stdin is /dev/null: cat ends at once. */
	CHECK(lab_spawn_run(argv, &(struct lab_spawn){ .out_fd = fd, .err_fd = LAB_SPAWN_TO_OUT }, 5000, &st,
			    &err) == 0);
	close(fd);
	CHECK_EQ_U64(st, 0);
	CHECK(lab_read_file(path, &text, NULL, &err) == 0);
	CHECK_STR(text, "out\nerr\n");
	free(text);
}

static void test_capture(void)
{
	struct lab_error err = { 0 };
	char *out = NULL;
	char *argv[] = { "/bin/sh", "-c", "printf 'a: 1\\nb: two\\n'; exit 4", NULL };
	char *big[] = { "/bin/sh", "-c", "while :; do echo xxxxxxxxxxxxxxxx; done", NULL };
	size_t len = 0;
	int st;

	seen = 0;
	CHECK(lab_spawn_capture(argv, &(struct lab_spawn){ .out_fd = -1, .err_fd = -1, .started = started }, 1024,
				0, &out, &len, &st, &err) == 0);
	CHECK_STR(out, "a: 1\nb: two\n");
	CHECK_EQ_U64(len, 12);
	CHECK_EQ_U64(st, 4);
	CHECK(seen > 0);
	free(out);
	CHECK(lab_spawn_capture(big, NULL, 100000, 10000, &out, &len, &st, &err) == -EFBIG);
	CHECK(out == NULL);
	CHECK_CONTAINS(err.msg, "more than 100000 bytes");
}

static void test_deadline(void)
{
	struct lab_error err = { 0 };
	char *argv[] = { "/bin/sh", "-c", "exec sleep 30", NULL };
	char *stubborn[] = { "/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.1; done", NULL };
	long long t0 = ms();
	int st;

	CHECK(lab_spawn_run(argv, NULL, 300, &st, &err) == -ETIMEDOUT);
	CHECK_EQ_U64(st, 128 + SIGTERM);
	CHECK(ms() - t0 < 3000);
	CHECK_CONTAINS(err.msg, "still running");
	/* Ignores SIGTERM: SIGKILL after the grace (10 s). */
	t0 = ms();
	CHECK(lab_spawn_run(stubborn, NULL, 200, &st, &err) == -ETIMEDOUT);
	CHECK_EQ_U64(st, 128 + SIGKILL);
	CHECK(ms() - t0 >= LAB_SPAWN_GRACE_MS);
	CHECK(ms() - t0 < LAB_SPAWN_GRACE_MS + 5000);
}

static void test_signals_unblocked(void)
{
	struct lab_error err = { 0 };
	char *argv[] = { "/bin/sh", "-c", "kill -TERM $$; sleep 5; exit 0", NULL };
	sigset_t term, old;
	int st;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	CHECK(lab_spawn_run(argv, NULL, 20000, &st, &err) == 0);
	CHECK_EQ_U64(st, 128 + SIGTERM);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX];

	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_status();
	test_exec_failure();
	test_fds();
	test_capture();
	test_deadline();
	test_signals_unblocked();
	CHECK(lab_find_program("sh", path, sizeof(path)));
	CHECK(!lab_find_program("no-such-program-anywhere", path, sizeof(path)));
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
	return unit_report("spawn");
}
