/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "result.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "keys.h"

struct result {
	json_t *doc;
	char path[PATH_MAX];
	char stream_path[PATH_MAX + 8];
	int stream_fd;
	int stream_errno;
	off_t stream_off;               /* bytes written to the stream so far */
	/* Each run's samples and events: only in the stream (nothing kept in
	 * memory); the document holds a marker string in their place until
	 * result_finish copies the run's lines of that type there, from the
	 * stream offset the marker was made at.  The marker's number is the
	 * index in runs[]. */
	struct { int run; off_t from; const char *type; } *runs;
	size_t nr_runs;
	char marker[48];                /* "\001pagelab-samples <pid>.<ns> " */
	/* Lines held (result_stream_hold): written together by the next
	 * flush, before any other line, so the stream keeps their order. */
	char *held;
	size_t held_len, held_cap;
	unsigned held_lines;
};

void result_utc_stamp(char *buf, size_t len, int compact)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The stream beside the document: x.json -> x.jsonl, else x.jsonl. */
static void stream_path_of(const char *path, char *out, size_t len)
{
	size_t n = strlen(path);

	if (n > 5 && !strcmp(path + n - 5, ".json"))
		snprintf(out, len, "%sl", path);
	else
		snprintf(out, len, "%s.jsonl", path);
}

static const char *default_dir(void)
{
	const char *env = getenv("PAGELAB_RESULTS");

	return env && *env ? env : "results";
}

const char *result_default_dir(void)
{
	return default_dir();
}

/* The stream is opened and emptied in place: one with other hard links
 * would empty them too (lab_open_output refuses it again when it opens). */
static int stream_links_check(const char *stream, const char *what, struct lab_error *err)
{
	struct stat st;

	if (lstat(stream, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1)
		return lab_error_set(err, EMLINK, "%s %s has %lu hard links: emptying it would empty the other "
				     "names too (remove it, or name another file)", what, stream,
				     (unsigned long)st.st_nlink);
	return 0;
}

/* Every component of the path is checked (lab_check_output_parents): no
 * symbolic link on the way to --out, and none as the default directory or
 * on its way. */
int result_check(const char *out_path, struct lab_error *err)
{
	char stream[PATH_MAX + 8];
	int ret;

	if (out_path == NULL) {
		ret = lab_check_output_parents(default_dir(), "the results directory", true, err);
		if (ret == 0)
			ret = lab_check_output_dir(default_dir(), "the results directory", true, err);
		return ret < 0 ? ret : lab_check_output_parents(default_dir(), "the results directory", true, err);
	}
	if (strlen(out_path) >= PATH_MAX)
		return lab_error_set(err, ENAMETOOLONG, "--out path too long");
	ret = lab_check_output_parents(out_path, "--out", false, err);
	if (ret == 0)
		ret = lab_check_output(out_path, "--out", err);
	if (ret < 0)
		return ret;
	stream_path_of(out_path, stream, sizeof(stream));
	ret = lab_check_output(stream, "--out's stream", err);
	return ret < 0 ? ret : stream_links_check(stream, "--out's stream", err);
}

int result_open(const char *out_path, const char *scenario_name, struct result **out,
		struct lab_error *err)
{
	struct result *r = calloc(1, sizeof(*r));
	char stamp[32], dir[PATH_MAX], base[128];
	int ret;

	if (r == NULL)
		return lab_error_errno(err, ENOMEM, "result");
	r->stream_fd = -1;
	if (out_path != NULL) {
		if ((size_t)snprintf(r->path, sizeof(r->path), "%s", out_path) >= sizeof(r->path)) {
			free(r);
			return lab_error_set(err, ENAMETOOLONG, "--out path too long");
		}
	} else {
		snprintf(dir, sizeof(dir), "%s", default_dir());
		snprintf(base, sizeof(base), "%s", scenario_name);
		for (char *p = base; *p; p++)
			if (*p == '/')
				*p = '-';
		result_utc_stamp(stamp, sizeof(stamp), 1);
		if ((size_t)snprintf(r->path, sizeof(r->path), "%s/%s-%s.json", dir, base, stamp) >=
		    sizeof(r->path)) {
			free(r);
			return lab_error_set(err, ENAMETOOLONG, "result path too long");
		}
	}
	/* Checked again here (result_check ran before the host was touched):
	 * the default directory is made, a tree --out names is not. */
	ret = result_check(out_path, err);
	if (ret < 0) {
		free(r);
		return ret;
	}
	stream_path_of(r->path, r->stream_path, sizeof(r->stream_path));
	r->stream_fd = lab_open_output(r->stream_path, "the result stream", err);
	if (r->stream_fd < 0) {
		ret = r->stream_fd;
		free(r);
		return ret;
	}
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(r->marker, sizeof(r->marker), "\001pagelab-samples %ld.%ld.%ld ", (long)getpid(),
			 (long)ts.tv_sec, ts.tv_nsec);
	}
	/* The stream is opened to append (a reused --out): offsets from its end. */
	r->stream_off = lseek(r->stream_fd, 0, SEEK_END);
	if (r->stream_off < 0)
		r->stream_off = 0;
	r->doc = json_object();
	json_object_set_new(r->doc, RK_SCHEMA, json_string(RESULT_SCHEMA_ID));
	*out = r;
	return 0;
}

json_t *result_doc(struct result *r)
{
	return r->doc;
}

const char *result_path(const struct result *r)
{
	return r->path;
}

const char *result_stream_path(const struct result *r)
{
	return r->stream_path;
}

/* One whole line (ending in '\n'), in one write when the kernel takes it. */
static void stream_write(struct result *r, const char *text, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(r->stream_fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r->stream_errno = errno;
			break;
		}
		off += (size_t)n;
	}
	r->stream_off += (off_t)off;
}

void result_stream_flush(struct result *r)
{
	if (r->held_len > 0)
		stream_write(r, r->held, r->held_len);
	r->held_len = 0;
	r->held_lines = 0;
}

unsigned result_stream_held(const struct result *r)
{
	return r->held_lines;
}

void result_stream_hold(struct result *r, const char *line, size_t len)
{
	if (len == 0 || line[len - 1] != '\n') {
		r->stream_errno = EINVAL;
		return;
	}
	if (r->held_len + len > r->held_cap) {
		size_t cap = r->held_cap ? r->held_cap : 16384;
		char *nh;

		while (cap < r->held_len + len)
			cap *= 2;
		nh = realloc(r->held, cap);
		if (nh == NULL) {       /* not held: written now */
			result_stream_flush(r);
			stream_write(r, line, len);
			return;
		}
		r->held = nh;
		r->held_cap = cap;
	}
	memcpy(r->held + r->held_len, line, len);
	r->held_len += len;
	r->held_lines++;
}

void result_stream(struct result *r, const char *type, int run, json_t *obj)
{
	json_t *line = json_object();
	char *text;
	size_t len;

	json_object_set_new(line, "type", json_string(type));
	if (run >= 0)
		json_object_set_new(line, "run", json_integer(run));
	if (obj != NULL)
		json_object_update(line, obj);
	text = json_dumps(line, JSON_COMPACT);
	json_decref(line);
	if (text == NULL) {
		r->stream_errno = ENOMEM;
		return;
	}
	len = strlen(text);
	text[len++] = '\n';     /* replaces the NUL; the line is written by length */
	result_stream_flush(r);
	stream_write(r, text, len);
	free(text);
}

void result_stream_text(struct result *r, const char *line, size_t len)
{
	if (len == 0 || line[len - 1] != '\n') {
		r->stream_errno = EINVAL;
		return;
	}
	result_stream_flush(r);
	stream_write(r, line, len);
}

json_t *result_stream_here(struct result *r, int run, const char *type)
{
	char text[96];
	void *nr = realloc(r->runs, (r->nr_runs + 1) * sizeof(r->runs[0]));

	result_stream_flush(r);
	if (nr == NULL)
		return json_array();    /* that run's lines stay in the stream only */
	r->runs = nr;
	r->runs[r->nr_runs].run = run;
	r->runs[r->nr_runs].from = r->stream_off;
	r->runs[r->nr_runs].type = type;
	snprintf(text, sizeof(text), "%s%zu", r->marker, r->nr_runs);
	r->nr_runs++;
	return json_string(text);
}

json_t *result_samples_here(struct result *r, int run)
{
	return result_stream_here(r, run, "sample");
}

/* Run run's lines of one type, from the stream, as an array:
 * {"type":TYPE,"run":N,REST -> {REST, one line at a time (constant
 * memory: a line buffer as long as the longest line). */
static void copy_lines(struct result *r, struct lab_atomic *a, const char *type, int run, off_t from)
{
	char prefix[96], chunk[1 << 16];
	size_t plen, llen = 0, lcap = 0;
	char *line = NULL;
	bool first = true;
	int fd = open(r->stream_path, O_RDONLY | O_CLOEXEC);

	plen = (size_t)snprintf(prefix, sizeof(prefix), "{\"type\":\"%s\",\"run\":%d,", type, run);
	lab_atomic_write(a, "[", 1);
	while (fd >= 0) {
		ssize_t n = pread(fd, chunk, sizeof(chunk), from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		from += n;
		for (ssize_t i = 0; i < n;) {
			const char *nl = memchr(chunk + i, '\n', (size_t)(n - i));
			size_t k = nl ? (size_t)(nl - (chunk + i)) : (size_t)(n - i);

			if (llen + k + 1 > lcap) {
				size_t cap = (llen + k + 1) * 2;
				char *nb = realloc(line, cap);

				if (nb == NULL) {
					a->err = ENOMEM;
					goto out;
				}
				line = nb;
				lcap = cap;
			}
			memcpy(line + llen, chunk + i, k);
			llen += k;
			i += (ssize_t)k + (nl != NULL);
			if (nl == NULL)
				break;
			if (llen > plen && !memcmp(line, prefix, plen)) {
				lab_atomic_write(a, first ? "{" : ",{", first ? 1 : 2);
				lab_atomic_write(a, line + plen, llen - plen);
				first = false;
			}
			llen = 0;
		}
	}
out:
	lab_atomic_write(a, "]", 1);
	free(line);
	if (fd >= 0)
		close(fd);
}

int result_stream_error(const struct result *r, struct lab_error *err)
{
	if (r == NULL || r->stream_errno == 0)
		return 0;
	return lab_error_errno(err, r->stream_errno, "write %s", r->stream_path);
}

void result_stream_sync(struct result *r)
{
	result_stream_flush(r);
	if (r->stream_fd >= 0)
		fdatasync(r->stream_fd);
}

int result_finish(struct result *r, const char *status, const char *error, struct lab_error *err)
{
	char stamp[32], quoted[64];
	struct lab_atomic a;
	const char *p;
	char *text;
	size_t qlen;
	int ret;

	result_utc_stamp(stamp, sizeof(stamp), 0);
	json_object_set_new(r->doc, RK_FINISHED, json_string(stamp));
	json_object_set_new(r->doc, RK_STATUS, json_string(status));
	json_object_set_new(r->doc, RK_ERROR, error ? json_string(error) : json_null());
	/* Compact: an indented document was twice the size (issue 11.7).  The
	 * samples are not in it but in the stream, reached before the end. */
	result_stream_sync(r);
	text = json_dumps(r->doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text == NULL)
		return lab_error_set(err, ENOMEM, "serialise the result document");
	ret = lab_atomic_open(&a, r->path, err);
	if (ret < 0) {
		free(text);
		return ret;
	}
	/* Each marker, as jansson printed it ("\u0001pagelab-samples … N"),
	 * is replaced by the lines it stands for (runs[N]). */
	qlen = (size_t)snprintf(quoted, sizeof(quoted), "\"\\u0001%s", r->marker + 1);
	p = text;
	for (;;) {
		const char *m = strstr(p, quoted), *q;
		char *end;
		long run;

		if (m == NULL)
			break;
		q = m + qlen;
		run = strtol(q, &end, 10);
		if (end == q || *end != '"') {
			lab_atomic_write(&a, p, (size_t)(q - p));
			p = q;
			continue;
		}
		lab_atomic_write(&a, p, (size_t)(m - p));
		if (run >= 0 && (size_t)run < r->nr_runs)
			copy_lines(r, &a, r->runs[run].type, r->runs[run].run, r->runs[run].from);
		else
			lab_atomic_write(&a, "[]", 2);
		p = end + 1;
	}
	lab_atomic_write(&a, p, strlen(p));
	free(text);
	ret = lab_atomic_commit(&a, err);
	result_stream(r, "end", -1, NULL);
	result_stream_sync(r);
	if (ret == 0 && r->stream_errno)
		return lab_error_errno(err, r->stream_errno, "write %s", r->stream_path);
	return ret;
}

void result_close(struct result *r)
{
	if (r == NULL)
		return;
	if (r->stream_fd >= 0) {
		result_stream_flush(r);
		close(r->stream_fd);
	}
	free(r->held);
	json_decref(r->doc);
	free(r->runs);
	free(r);
}
