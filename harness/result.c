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
		snprintf(dir, sizeof(dir), "%s", r->path);
		if (strrchr(dir, '/'))
			*strrchr(dir, '/') = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
	} else {
		const char *env = getenv("PAGELAB_RESULTS");

		snprintf(dir, sizeof(dir), "%s", env && *env ? env : "results");
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
	ret = lab_mkdir_p(dir, 0755, err);
	if (ret < 0) {
		free(r);
		return ret;
	}
	if (strlen(r->path) > 5 && !strcmp(r->path + strlen(r->path) - 5, ".json"))
		snprintf(r->stream_path, sizeof(r->stream_path), "%sl", r->path);
	else
		snprintf(r->stream_path, sizeof(r->stream_path), "%s.jsonl", r->path);
	r->stream_fd = open(r->stream_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (r->stream_fd < 0) {
		ret = lab_error_errno(err, errno, "create %s", r->stream_path);
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
	text = json_dumps(r->doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
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
