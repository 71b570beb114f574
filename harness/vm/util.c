/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.c — what harness/vm/'s files share (internal.h): key: value files,
 * copies that follow no link, the child a signal stops, targets' outcomes.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/spawn.h"

int vm_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* ---- key: value files ------------------------------------------------------------
 * Not base/kv: those parsers are for the kernel's keyed numbers (a value
 * that is not a number is skipped or refused), and these values are
 * strings — a status word, a path, a kernel command line with blanks. */

json_t *vm_kv_parse(const char *buf)
{
	json_t *o = json_object();
	const char *line = buf;

	while (o != NULL && line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		const char *sep = memmem(line, n, ": ", 2);

		if (sep != NULL && sep != line) {
			char *key = strndup(line, (size_t)(sep - line));
			char *val = strndup(sep + 2, n - (size_t)(sep - line) - 2);

			/* A key repeated (e.g. "status" after "error") keeps its last value;
			 * a value that is not UTF-8 (jansson refuses it) is left out. */
			if (key != NULL && val != NULL)
				json_object_set_new(o, key, json_string(val));
			free(key);
			free(val);
		}
		line = end ? end + 1 : NULL;
	}
	return o ? o : json_object();
}

json_t *vm_kv_file(const char *path)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;

	if (lab_read_input(path, "guest file", VM_KV_MAX, LAB_INPUT_NOFOLLOW, &buf, NULL, &e) < 0)
		return json_object();
	return vm_kv_parse(buf);
}

const char *vm_kvs(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : "";
}

json_t *vm_kv_number(const json_t *o, const char *key)
{
	const char *v = json_string_value(json_object_get(o, key));
	char *end;
	double d;

	if (v == NULL || *v == '\0')
		return json_null();
	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || *end != '\0')
		return json_null();
	return json_real(d);
}

/* ---- files ------------------------------------------------------------------------- */

int vm_copy_file(const char *src, const char *dst, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	size_t len = 0;
	int ret;

	ret = lab_read_input(src, "guest output", LAB_RESULT_MAX, LAB_INPUT_NOFOLLOW, &buf, &len, err);
	if (ret < 0)
		return ret;
	return lab_write_atomic(dst, buf, len, err);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void vm_rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void vm_rundir_done(struct vm_target *t, const char *rundir, bool done)
{
	if (done)
		vm_rm_tree(rundir);
	else
		snprintf(t->kept, sizeof(t->kept), "%s", rundir);
}

void vm_label_clean(char *s)
{
	for (; *s; s++)
		if (*s == '/' || *s == ' ' || *s == ':')
			*s = '-';
}

void vm_log_tail(const struct lab_progress *p, const char *path, int n)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	size_t len = 0;
	char *s, *save = NULL;

	if (lab_read_file(path, &buf, &len, &e) < 0 || len == 0)
		return;
	s = buf + len - 1;
	while (s > buf && n >= 0)
		if (*--s == '\n')
			n--;
	if (s != buf)
		s++;
	for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		lab_say(p, LAB_SAY_DETAIL, "%s", line);
}

/* ---- the child a signal stops ------------------------------------------------------ */

static volatile sig_atomic_t vm_signal;
static volatile pid_t vm_child;

void vm_interrupt(int sig)
{
	vm_signal = sig;
	/* vm-run traps SIGTERM: it stops qemu and exits 125. */
	if (vm_child > 0)
		kill(vm_child, SIGTERM);
}

int vm_interrupted(void)
{
	return vm_signal;
}

/* lab_spawn's started: the child to stop; a signal that came between the
 * fork and now is passed on at once. */
static void track(void *ctx, pid_t pid)
{
	(void)ctx;
	vm_child = pid;
	if (vm_signal)
		kill(pid, SIGTERM);
}

int vm_spawn(char *const argv[], const char *path, bool both, unsigned timeout_s, int *status,
	     struct lab_error *err)
{
	cleanup_close int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct lab_spawn how = { .out_fd = fd, .err_fd = both ? LAB_SPAWN_TO_OUT : -1, .death_sig = SIGTERM,
				 .started = track };
	int ret;

	*status = -1;
	if (fd < 0)
		return lab_error_errno(err, errno, "open %s", path ? path : "/dev/null");
	ret = lab_spawn_run(argv, &how, timeout_s * 1000U, status, err);
	vm_child = 0;
	return ret;
}

int vm_capture(char *const argv[], size_t cap, unsigned timeout_s, char **out, int *status,
	       struct lab_error *err)
{
	struct lab_spawn how = { .out_fd = -1, .err_fd = -1, .death_sig = SIGTERM, .started = track };
	int ret = lab_spawn_capture(argv, &how, cap, timeout_s * 1000U, out, NULL, status, err);

	vm_child = 0;
	return ret;
}

/* ---- argv ------------------------------------------------------------------------------ */

void vm_argv_add(struct vm_argv *a, const char *word)
{
	if (a->argc + 1 >= (int)(sizeof(a->argv) / sizeof(a->argv[0]))) {
		a->overflow = true;
		return;
	}
	a->argv[a->argc++] = (char *)word;
	a->argv[a->argc] = NULL;
}

/* ---- outcomes ---------------------------------------------------------------------------- */

void vm_target_ran(struct vm_target *t, int st)
{
	t->outcome = VM_RAN;
	t->child_status = st;
}

int vm_target_fail(struct vm_target *t, enum vm_outcome o, const struct lab_error *err)
{
	if (err != &t->err)
		t->err = *err;
	if (t->err.code == 0)
		t->err.code = o == VM_CANNOT ? ENODEV : o == VM_INTERRUPTED ? EINTR : EIO;
	t->outcome = o;
	return -t->err.code;
}
