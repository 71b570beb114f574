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

#include "fileio.h"
#include "result_keys.h"

struct result {
	json_t *doc;
	char path[PATH_MAX];
	char stream_path[PATH_MAX + 8];
	int stream_fd;
	int stream_errno;
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

int result_check(const char *out_path, struct lab_error *err)
{
	char stream[PATH_MAX + 8];
	int ret;

	if (out_path == NULL)
		return lab_check_output_dir(default_dir(), "the results directory", true, err);
	if (strlen(out_path) >= PATH_MAX)
		return lab_error_set(err, ENAMETOOLONG, "--out path too long");
	ret = lab_check_output(out_path, "--out", err);
	if (ret < 0)
		return ret;
	stream_path_of(out_path, stream, sizeof(stream));
	return lab_check_output(stream, "--out's stream", err);
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

void result_stream(struct result *r, const char *type, int run, json_t *obj)
{
	json_t *line = json_object();
	char *text;
	size_t len, off = 0;

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
	free(text);
}

int result_stream_error(const struct result *r, struct lab_error *err)
{
	if (r == NULL || r->stream_errno == 0)
		return 0;
	return lab_error_errno(err, r->stream_errno, "write %s", r->stream_path);
}

void result_stream_sync(struct result *r)
{
	if (r->stream_fd >= 0)
		fdatasync(r->stream_fd);
}

int result_finish(struct result *r, const char *status, const char *error, struct lab_error *err)
{
	char stamp[32];
	char *text;
	int ret;

	result_utc_stamp(stamp, sizeof(stamp), 0);
	json_object_set_new(r->doc, RK_FINISHED, json_string(stamp));
	json_object_set_new(r->doc, RK_STATUS, json_string(status));
	json_object_set_new(r->doc, RK_ERROR, error ? json_string(error) : json_null());
	/* Compact: an indented document was twice the size (issue 11.7). */
	text = json_dumps(r->doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text == NULL)
		return lab_error_set(err, ENOMEM, "serialise the result document");
	ret = lab_write_atomic(r->path, text, strlen(text), err);
	free(text);
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
	if (r->stream_fd >= 0)
		close(r->stream_fd);
	json_decref(r->doc);
	free(r);
}
