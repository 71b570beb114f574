/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_procstat.c — lab_procstat_parse and lab_procstat_dying (base/procstat.h)
 * on captured /proc/PID/stat lines, on the running kernel's, then on broken
 * input.
 *
 * The captures (tests/fixtures/README.md, `lazyfree-probe procstat`): a child
 * that named itself PROCSTAT_NAME, a name that reads like a zombie's line to
 * a parser that stops at the first ')', with SIGUSR1 blocked and pending; a
 * zombie; kthreadd.  procstat.expect holds the pids the probe knew.  On any
 * kernel:
 *   - the named child: its whole name, state S, its parent the probe, SIGUSR1
 *     (bit 9) in field 31, not dying;
 *   - the zombie: state Z, PF_EXITING in its flags (do_exit sets it before
 *     exit_notify), dying;
 *   - kthreadd: pid 2, parent 0, PF_KTHREAD (0x00200000) in its flags.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/procstat.h"
#include "tests/tools/capture/procstat-child.h"
#include "unit.h"

static bool parse(const char *text, struct lab_procstat *ps)
{
	struct lab_error err = { 0 };

	if (lab_procstat_parse(text, strlen(text), ps, &err) < 0) {
		fprintf(stderr, "parse: %s\n", err.msg);
		return false;
	}
	return true;
}

static void expect_of(const char *dir, const char *what, long *pid, long *ppid)
{
	struct lab_error err = { 0 };
	char path[PATH_MAX], key[16], *buf = NULL, *p;

	*pid = *ppid = -1;
	snprintf(path, sizeof(path), "%s/procstat.expect", dir);
	CHECK(lab_read_file(path, &buf, NULL, &err) == 0);
	for (p = buf; p != NULL && *p != '\0'; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (sscanf(p, "%15s %ld %ld", key, pid, ppid) == 3 && strcmp(key, what) == 0)
			break;
	free(buf);
	CHECK(*pid > 0 && *ppid > 0);
}

/* f parsed, as the process procstat.expect names as what. */
static void parse_expected(const struct unit_fixture *f, const char *what, struct lab_procstat *ps)
{
	long pid, ppid;

	expect_of(f->dir, what, &pid, &ppid);
	CHECK(parse(f->buf, ps));
	CHECK_EQ_U64(ps->pid, pid);
	CHECK_EQ_U64(ps->ppid, ppid);
}

static void check_named(const struct unit_fixture *f)
{
	struct lab_procstat ps;

	parse_expected(f, "named", &ps);
	CHECK_STR(ps.comm, PROCSTAT_NAME);
	CHECK_EQ_U64(ps.comm_len, strlen(PROCSTAT_NAME));
	CHECK(ps.state == 'S');
	CHECK(ps.has_signal && ps.signal == 1ull << (SIGUSR1 - 1));
	CHECK(!lab_procstat_dying(&ps));
}

static void check_zombie(const struct unit_fixture *f)
{
	struct lab_procstat ps;

	parse_expected(f, "zombie", &ps);
	CHECK(ps.state == 'Z');
	CHECK((ps.flags & 0x4) != 0);
	CHECK(lab_procstat_dying(&ps));
}

static void check_kthread(const struct unit_fixture *f)
{
	struct lab_procstat ps;

	CHECK(parse(f->buf, &ps));
	CHECK_EQ_U64(ps.pid, 2);
	CHECK_EQ_U64(ps.ppid, 0);
	CHECK_STR(ps.comm, "kthreadd");
	CHECK((ps.flags & 0x00200000) != 0);
	CHECK(!lab_procstat_dying(&ps));
}

static bool read_stat(pid_t pid, struct lab_procstat *ps)
{
	struct lab_error err = { 0 };
	char path[64], *buf = NULL;
	size_t len = 0;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (lab_read_file(path, &buf, &len, &err) < 0)
		return false;
	ret = lab_procstat_parse(buf, len, ps, &err);
	if (ret < 0)
		fprintf(stderr, "%s: %s\n", path, err.msg);
	free(buf);
	return ret == 0;
}

/* The same on the running kernel: this process, a named child, a zombie. */
static void test_live(void)
{
	struct lab_procstat ps;
	pid_t named, zombie;
	siginfo_t si;

	CHECK(read_stat(getpid(), &ps));
	CHECK_EQ_U64(ps.pid, getpid());
	CHECK_EQ_U64(ps.ppid, getppid());
	CHECK(ps.state == 'R');
	CHECK(!lab_procstat_dying(&ps));
	named = procstat_named_child();
	CHECK(named > 0);
	/* Until it sleeps in pause(). */
	for (int i = 0; i < 200 && read_stat(named, &ps) && ps.state != 'S'; i++)
		usleep(5000);
	CHECK(read_stat(named, &ps));
	CHECK_STR(ps.comm, PROCSTAT_NAME);
	CHECK_EQ_U64(ps.ppid, getpid());
	CHECK(ps.state == 'S');
	CHECK(ps.has_signal && (ps.signal & (1ull << (SIGUSR1 - 1))) != 0);
	CHECK(!lab_procstat_dying(&ps));
	kill(named, SIGKILL);
	CHECK(waitpid(named, NULL, 0) == named);
	zombie = fork();
	if (zombie == 0)
		_exit(0);
	CHECK(zombie > 0 && waitid(P_PID, (id_t)zombie, &si, WEXITED | WNOWAIT) == 0);
	CHECK(read_stat(zombie, &ps));
	CHECK(ps.state == 'Z' && lab_procstat_dying(&ps));
	CHECK(waitpid(zombie, NULL, 0) == zombie);
	CHECK(!read_stat(zombie, &ps));         /* reaped: gone */
}

/* Hand-made lines: each must be refused, and leave zeros. */
static void test_broken(void)
{
	static const char *const bad[] = {
		"", "x", "1", "1 (", "1 (a", "1 (a)", "1 (a) ", "1 (a) S", "1 (a) S ",
		"1 (a) S 1 2 3 4",                      /* ends before the flags */
		"1 (a) S 1 2 3 4 5",                    /* still before them: field 8 */
		"1 (a) S x 2 3 4 5 6 7",                /* ppid not a number */
		"1 (a) S  1 2 3 4 5 6 7",               /* two blanks */
		"1 (a) S -1 2 3 4 5 6 7",               /* a negative ppid */
		"1 (a) S 1 2 3 4 5 -6 7",               /* negative flags */
		"1 (a) S 1 2 3 4 5 99999999999999999999 7", /* flags beyond 64 bits */
		"-1 (a) S 1 2 3 4 5 6 7", "1(a) S 1 2 3 4 5 6 7", "1 a) S 1 2 3 4 5 6 7",
		"1 (a)S 1 2 3 4 5 6 7", "1 (a) SS 1 2 3 4 5 6 7", "1 (a) S 1 2 3 4 5 6 7x",
		"4294967296 (a) S 1 2 3 4 5 6 7",
	};
	struct lab_procstat ps, zero;
	struct lab_error err;

	memset(&zero, 0, sizeof(zero));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ps, 0xff, sizeof(ps));
		memset(&err, 0, sizeof(err));
		if (lab_procstat_parse(bad[i], strlen(bad[i]), &ps, &err) != -EINVAL)
			fprintf(stderr, "accepted: \"%s\"\n", bad[i]);
		CHECK(lab_procstat_parse(bad[i], strlen(bad[i]), &ps, &err) == -EINVAL);
		CHECK(memcmp(&ps, &zero, sizeof(ps)) == 0);
		CHECK_CONTAINS(err.msg, "/proc/PID/stat: ");
	}
	/* A NUL ends the text: the ')' beyond it is not the name's end. */
	{
		static const char nul[] = "1 (a\0) S 1 2 3 4 5 6 7";

		CHECK(lab_procstat_parse(nul, sizeof(nul) - 1, &ps, &err) == -EINVAL);
	}
	/* len bounds the text: what lies past it is not read. */
	CHECK(lab_procstat_parse("1 (a) S 1 2 3 4 5 6 7", 8, &ps, &err) == -EINVAL);
	/* Accepted: as short as field 9, without field 31. */
	CHECK(parse("7 (a b) T 3 2 3 4 5 4", &ps));
	CHECK(ps.pid == 7 && ps.ppid == 3 && ps.state == 'T' && ps.flags == 4 && !ps.has_signal);
	CHECK_STR(ps.comm, "a b");
	CHECK(lab_procstat_dying(&ps));         /* PF_EXITING */
	/* What follows the line's newline is not read. */
	CHECK(parse("7 (a) S 3 2 3 4 5 0\ngarbage", &ps));
	CHECK(ps.ppid == 3 && !lab_procstat_dying(&ps));
	/* An empty name; a name longer than the struct keeps: cut, its length kept. */
	CHECK(parse("7 () S 3 2 3 4 5 0", &ps));
	CHECK(ps.comm_len == 0 && ps.comm[0] == '\0');
	{
		char line[256], name[101];

		memset(name, 'k', 100);
		name[100] = '\0';
		snprintf(line, sizeof(line), "7 (%s) I 2 0 0 0 -1 69238880", name);
		CHECK(parse(line, &ps));
		CHECK(ps.comm_len == 100 && strlen(ps.comm) == LAB_PROCSTAT_COMM_MAX - 1);
		CHECK(ps.ppid == 2 && ps.state == 'I');
	}
	/* SIGKILL pending (bit 8 of field 31) is dying; SIGUSR1 alone is not. */
	{
		char line[256] = "7 (a) S 3 2 3 4 5 0";

		for (int f = 10; f < 31; f++)
			strcat(line, " 0");
		strcat(line, " 256 0");
		CHECK(parse(line, &ps) && ps.has_signal && ps.signal == 256 && lab_procstat_dying(&ps));
		line[strlen(line) - 5] = '5';
		line[strlen(line) - 4] = '1';
		line[strlen(line) - 3] = '2';
		CHECK(parse(line, &ps) && ps.signal == 512 && !lab_procstat_dying(&ps));
	}
}

int main(int argc, char **argv)
{
	const char *root = unit_fixtures_root(argc, argv);

	if (root == NULL)
		return 2;
	CHECK(unit_for_each_fixture(root, "proc-stat-named", check_named) >= 1);
	CHECK(unit_for_each_fixture(root, "proc-stat-zombie", check_zombie) >= 1);
	CHECK(unit_for_each_fixture(root, "proc-stat-kthread", check_kthread) >= 1);
	test_live();
	test_broken();
	return unit_report("procstat");
}
