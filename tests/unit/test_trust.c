/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_trust.c — lab_trust_path (base/trust.h): whose paths pagelab believes.
 *
 * In a private mktemp directory (0700, this user's, under /tmp: a sticky
 * root directory on the way, which rule 3 lets through):
 *   ok/            0755                          trusted
 *   ok/f           0644 file                     trusted as a file, refused as a directory
 *   grp/           0775                          refused: "can be written by its group"
 *   grp/in/        0755 under grp                refused: grp "on its path"
 *   wor/           0757                          refused: "can be written by anyone"
 *   sticky/        1777                          refused as the path itself ...
 *   sticky/in/     0755                          ... trusted on the way (fs/namei.c: check_sticky)
 *   ln -> ok       a link in a trusted directory  followed: trusted
 *   up -> ok/../grp/in   ".." inside a link      refused (grp on the way)
 *   loop -> loop   a link to itself               -ELOOP
 *   missing/x      nothing                       -ENOENT; with LAB_TRUST_MISSING_OK 1
 * As root also: other/ (uid 65534) refused "belongs to uid 65534", other/in
 * refused "on its path", and a link owned by 65534 refused; with
 * LAB_TRUST_OWN a root-owned path is fine for root.  argv[1] is not used.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "unit.h"
#include "base/trust.h"

static char dir[] = "/tmp/test_trust.XXXXXX";

static const char *at(const char *name)
{
	static char path[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
	return path[i];
}

static void mk(const char *name, mode_t mode)
{
	CHECK(mkdir(at(name), 0700) == 0);
	CHECK(chmod(at(name), mode) == 0);     /* past the umask */
}

static void expect(const char *name, unsigned flags, int want, const char *msg)
{
	struct lab_error err = { 0 };
	int ret = lab_trust_path(at(name), "test path", flags, NULL, &err);

	if (ret != want)
		fprintf(stderr, "%s: got %d, wanted %d: %s\n", name, ret, want, err.msg);
	CHECK_EQ_U64((unsigned long long)(long long)ret, (unsigned long long)(long long)want);
	if (msg != NULL && ret < 0) {
		CHECK_CONTAINS(err.msg, msg);
		CHECK_CONTAINS(err.msg, at(name));
	}
}

int main(void)
{
	int fd;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	mk("ok", 0755);
	fd = open(at("ok/f"), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	close(fd);
	mk("grp", 0775);
	mk("grp/in", 0755);
	mk("wor", 0757);
	mk("sticky", 01777);
	mk("sticky/in", 0755);
	CHECK(symlink(at("ok"), at("ln")) == 0);
	CHECK(symlink("ok/../grp/in", at("up")) == 0);
	CHECK(symlink("loop", at("loop")) == 0);

	expect("ok", LAB_TRUST_DIR, 0, NULL);
	expect("ok/f", LAB_TRUST_FILE, 0, NULL);
	expect("ok/f", LAB_TRUST_DIR, -EPERM, "is a regular file, not a directory");
	expect("ok", LAB_TRUST_FILE, -EPERM, "is a directory, not a regular file");
	expect("grp", LAB_TRUST_DIR, -EPERM, "can be written by its group (mode 0775)");
	expect("grp/in", LAB_TRUST_DIR, -EPERM, "grp on its path can be written by its group");
	expect("wor", LAB_TRUST_DIR, -EPERM, "can be written by anyone (mode 0757)");
	expect("sticky", LAB_TRUST_DIR, -EPERM, "can be written by anyone (mode 1777)");
	expect("sticky/in", LAB_TRUST_DIR, 0, NULL);
	expect("ln", LAB_TRUST_DIR, 0, NULL);
	expect("ln/f", LAB_TRUST_FILE, 0, NULL);
	expect("ln", LAB_TRUST_DIR | LAB_TRUST_NOFOLLOW, -EPERM, "is a symbolic link, not a directory");
	expect("up", LAB_TRUST_DIR, -EPERM, "grp on its path");
	expect("loop", LAB_TRUST_DIR, -ELOOP, "symbolic links");
	expect("missing/x", LAB_TRUST_DIR, -ENOENT, "does not exist");
	expect("missing/x", LAB_TRUST_DIR | LAB_TRUST_MISSING_OK, 1, NULL);
	expect("grp/missing", LAB_TRUST_DIR | LAB_TRUST_MISSING_OK, -EPERM, "grp on its path");
	expect("ok/f/x", LAB_TRUST_FILE, -ENOTDIR, "not a directory");
	expect("ok/./../ok/f", LAB_TRUST_FILE, 0, NULL);
	{
		struct lab_error err = { 0 };

		CHECK_EQ_U64((unsigned long long)(long long)lab_trust_path("", "test path", 0, NULL, &err),
			     (unsigned long long)(long long)-EINVAL);
	}
	if (geteuid() == 0) {
		mk("other", 0755);
		mk("other/in", 0755);
		CHECK(chown(at("other"), 65534, 65534) == 0);
		CHECK(symlink(at("ok"), at("theirs")) == 0);
		CHECK(lchown(at("theirs"), 65534, 65534) == 0);
		expect("other", LAB_TRUST_DIR, -EPERM, "belongs to uid 65534, not to root");
		expect("other/in", LAB_TRUST_DIR, -EPERM, "the directory");
		expect("other/in", LAB_TRUST_DIR, -EPERM, "other on its path belongs to uid 65534");
		expect("theirs", LAB_TRUST_DIR, -EPERM, "the symbolic link");
		expect("ok", LAB_TRUST_DIR | LAB_TRUST_OWN, 0, NULL);
		expect("other", LAB_TRUST_DIR | LAB_TRUST_OWN, -EPERM, "not to pagelab's user (uid 0)");
	} else {
		printf("  (not root: the other-owner cases are skipped)\n");
	}
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		CHECK(system(cmd) == 0);
	}
	return unit_report("trust");
}
