/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mountmark.c — the record of a tracefs mount pagelab made (mountmark.h). */
#include "mountmark.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/trust.h"
#include "knobs.h"

#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U   /* include/uapi/linux/stat.h, Linux 6.8 */
#endif

#define MARK_MAX 512
#define MARK_HINT " (chmod go-w it, or set PAGELAB_JOURNAL to a private directory)"

const char *mount_mark_path(void)
{
	static char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s.tracefs", knob_journal_path()) >= sizeof(path))
		return NULL;
	return path;
}

int mount_mark_id(const char *dir, unsigned long long *id, bool *unique)
{
	return mount_mark_id_at(AT_FDCWD, dir, id, unique);
}

int mount_mark_id_at(int dfd, const char *path, unsigned long long *id, bool *unique)
{
	struct statx stx;
	int flags = AT_NO_AUTOMOUNT | (path[0] == '\0' ? AT_EMPTY_PATH : 0);

	if (statx(dfd, path, flags, STATX_MNT_ID | STATX_MNT_ID_UNIQUE, &stx) < 0)
		return -errno;
	if (!(stx.stx_mask & (STATX_MNT_ID | STATX_MNT_ID_UNIQUE)))
		return -ENOSYS;
	*id = stx.stx_mnt_id;
	*unique = (stx.stx_mask & STATX_MNT_ID_UNIQUE) != 0;
	return 0;
}

int mount_mark_boot(char *out, size_t len)
{
	struct lab_error err;
	char *text = NULL;
	size_t n;
	int ret = lab_read_file("/proc/sys/kernel/random/boot_id", &text, &n, &err);

	if (ret < 0)
		return ret;
	text[strcspn(text, "\n")] = '\0';
	ret = strlen(text) == 36 && len > 36 ? 0 : -EINVAL;
	if (ret == 0)
		snprintf(out, len, "%s", text);
	free(text);
	return ret;
}

/* The record's directory (the knob journal's), checked (and made, with
 * create) as the journal's is, and the record's path in it.  1 when the
 * directory is not there and not to be made. */
static int mark_dir(const char *path, bool create, struct lab_error *err)
{
	char tmp[PATH_MAX], *dir;
	int ret;

	snprintf(tmp, sizeof(tmp), "%s", path);
	dir = dirname(tmp);
	ret = lab_trust_path(dir, "the knob journal's directory", LAB_TRUST_DIR | LAB_TRUST_OWN |
			     LAB_TRUST_MISSING_OK, MARK_HINT, err);
	if (ret < 0)
		return ret;
	if (ret == 1 && !create)
		return 1;
	if (ret == 1 && (ret = lab_mkdir_p(dir, 0700, err)) < 0)
		return ret;
	ret = lab_trust_path(dir, "the knob journal's directory", LAB_TRUST_DIR | LAB_TRUST_OWN, MARK_HINT, err);
	if (ret < 0)
		return ret;
	ret = lab_trust_path(path, "the tracefs mount's record", LAB_TRUST_FILE | LAB_TRUST_NOFOLLOW |
			     LAB_TRUST_OWN | LAB_TRUST_MISSING_OK, MARK_HINT, err);
	return ret < 0 ? ret : 0;
}

int mount_mark_write(const struct mount_mark *m, struct lab_error *err)
{
	const char *path = mount_mark_path();
	char line[160], tmp[PATH_MAX + 32];
	int n, ret, fd;
	bool ok;

	if (path == NULL)
		return lab_error_set(err, ENAMETOOLONG, "the knob journal's path is too long");
	if ((ret = mark_dir(path, true, err)) < 0)
		return ret;
	n = snprintf(line, sizeof(line), "pagelab-tracefs 1 pid=%d boot=%s mnt=%llu unique=%d\n", (int)m->pid,
		     m->boot, m->mnt, m->unique ? 1 : 0);
	/* A new file renamed over the record: whole or absent whenever a kill
	 * lands.  Not fsynced: a mount does not outlive a crash of the machine. */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= sizeof(tmp))
		return lab_error_set(err, ENAMETOOLONG, "the knob journal's path is too long");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return lab_error_errno(err, errno, "create %s", tmp);
	ok = write(fd, line, (size_t)n) == n;
	ret = errno;
	close(fd);
	if (!ok || rename(tmp, path) < 0) {
		ret = ok ? errno : ret ? ret : EIO;
		unlink(tmp);
		return lab_error_errno(err, ret, "write %s", path);
	}
	return 0;
}

int mount_mark_read(struct mount_mark *m, struct lab_error *err)
{
	const char *path = mount_mark_path();
	char *text = NULL, boot[40], tail[2];
	size_t len;
	int pid, uniq, ret;
	unsigned long long mnt;

	if (path == NULL)
		return lab_error_set(err, ENAMETOOLONG, "the knob journal's path is too long");
	if ((ret = mark_dir(path, false, err)) != 0)
		return ret;
	ret = lab_read_input(path, "the tracefs mount's record", MARK_MAX, LAB_INPUT_NOFOLLOW, &text, &len, err);
	if (ret == -ENOENT)
		return 1;
	if (ret < 0)
		return ret;
	ret = sscanf(text, "pagelab-tracefs 1 pid=%d boot=%39[0-9a-f-] mnt=%llu unique=%d%1[^\n]", &pid, boot,
		     &mnt, &uniq, tail);
	free(text);
	if (ret != 4 || pid <= 0 || strlen(boot) != 36 || mnt == 0 || (uniq != 0 && uniq != 1))
		return lab_error_set(err, EINVAL, "the tracefs mount's record %s is not one pagelab wrote: "
				     "left as it is", path);
	m->pid = (pid_t)pid;
	snprintf(m->boot, sizeof(m->boot), "%s", boot);
	m->mnt = mnt;
	m->unique = uniq == 1;
	return 0;
}

void mount_mark_remove(void)
{
	const char *path = mount_mark_path();

	if (path != NULL)
		unlink(path);
}
