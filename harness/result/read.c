/* SPDX-License-Identifier: GPL-2.0-or-later */
/* result_read.c — result documents and streams read with their samples
 * pruned to what the reader needs (result_read.h).
 *
 * The document is parsed with yajl 2.1 (Debian libyajl-dev), a SAX-style
 * parser fed in 64 KiB pieces, so the text is never held whole; its events
 * build json_t values on an explicit stack (no recursion, depth capped like
 * jansson's).  Every runs[].samples element is kept as built until the next
 * one completes, then replaced by its pruned copy: the last one of a run
 * stays whole.  A stream (.jsonl) is read line by line, each line with
 * jansson (json_loadb), and assembled into the document's shape.
 */
#include "read.h"

#include "base/fileio.h"
#include "keys.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yajl/yajl_parse.h>

#define CHUNK (64u << 10)
#define DEPTH_MAX 2048                  /* jansson's JSON_PARSER_MAX_DEPTH */

/* ------------------------------------------------------------ the need */

struct need_node {
	char *key;
	bool prefix;                    /* key is a prefix ("allocstall_*") */
	bool all;                       /* everything below is kept */
	struct need_node *kids;
	size_t nkids;
};

struct result_need {
	struct need_node root;
};

struct result_need *result_need_new(void)
{
	return calloc(1, sizeof(struct result_need));
}

static void node_free(struct need_node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->key);
}

void result_need_free(struct result_need *n)
{
	if (n == NULL)
		return;
	node_free(&n->root);
	free(n);
}

void result_need_all(struct result_need *n)
{
	n->root.all = true;
}

static struct need_node *node_kid(struct need_node *n, const char *seg, size_t len)
{
	bool prefix = len > 0 && seg[len - 1] == '*';
	struct need_node *more;
	size_t i;

	if (prefix)
		len--;
	for (i = 0; i < n->nkids; i++)
		if (n->kids[i].prefix == prefix && strlen(n->kids[i].key) == len &&
		    memcmp(n->kids[i].key, seg, len) == 0)
			return &n->kids[i];
	more = realloc(n->kids, (n->nkids + 1) * sizeof(*more));
	if (more == NULL)
		return NULL;
	n->kids = more;
	memset(&more[n->nkids], 0, sizeof(*more));
	if ((more[n->nkids].key = strndup(seg, len)) == NULL)
		return NULL;
	more[n->nkids].prefix = prefix;
	return &more[n->nkids++];
}

/* Keys of a selector "[k=v,k2=v2]" (len bytes from sel), kept whole. */
static int selector_keys(struct need_node *n, const char *sel, size_t len)
{
	const char *end = sel + len;

	while (sel < end) {
		size_t item = strcspn(sel, ","), key;
		struct need_node *kid;

		if (sel + item > end)
			item = (size_t)(end - sel);
		key = strcspn(sel, "=");
		if (key > item)
			key = item;
		if (key > 0) {
			if ((kid = node_kid(n, sel, key)) == NULL)
				return -ENOMEM;
			kid->all = true;
		}
		sel += item + 1;
	}
	return 0;
}

int result_need_add(struct result_need *need, const char *path, struct lab_error *err)
{
	struct need_node *n = &need->root;
	const char *p = path;

	while (*p != '\0' && !n->all) {
		size_t len = strcspn(p, ".[");
		const char *plus = memchr(p, '+', len);

		if (memchr(p, '{', len) != NULL)
			break;                  /* a placeholder: what is before it, whole */
		if (plus != NULL) {
			/* "a+b": each key, whole, and nothing deeper. */
			const char *k = p, *end = p + len;

			while (k < end) {
				size_t kl = strcspn(k, "+");
				struct need_node *kid;

				if (k + kl > end)
					kl = (size_t)(end - k);
				if (kl > 0) {
					if ((kid = node_kid(n, k, kl)) == NULL)
						return lab_error_set(err, ENOMEM, "out of memory");
					kid->all = true;
				}
				k += kl + 1;
			}
			return 0;
		}
		if (len > 0 && (n = node_kid(n, p, len)) == NULL)
			return lab_error_set(err, ENOMEM, "out of memory");
		p += len;
		if (*p == '[') {
			/* "[k=v,…]": an array whose elements keep the selector's keys
			 * and the rest of the path; any other index keeps it whole. */
			const char *close = strchr(p, ']');

			if (close == NULL || memchr(p, '=', (size_t)(close - p)) == NULL || close[1] == '[')
				break;
			if (selector_keys(n, p + 1, (size_t)(close - p - 1)) < 0)
				return lab_error_set(err, ENOMEM, "out of memory");
			p = close + 1;
		}
		if (*p == '.')
			p++;
		else if (*p != '\0')
			break;
	}
	n->all = true;
	return 0;
}

static const struct need_node *kid_for(const struct need_node *n, const char *key)
{
	for (size_t i = 0; i < n->nkids; i++) {
		const struct need_node *k = &n->kids[i];

		if (k->prefix ? strncmp(key, k->key, strlen(k->key)) == 0 : strcmp(key, k->key) == 0)
			return k;
	}
	return NULL;
}

/* Whether every path under b is kept under a. */
static bool node_covers(const struct need_node *a, const struct need_node *b)
{
	if (a->all)
		return true;
	if (b->all)
		return false;
	for (size_t i = 0; i < b->nkids; i++) {
		const struct need_node *k = NULL;

		for (size_t j = 0; j < a->nkids && k == NULL; j++)
			if (a->kids[j].prefix == b->kids[i].prefix && strcmp(a->kids[j].key, b->kids[i].key) == 0)
				k = &a->kids[j];
		if (k == NULL && !b->kids[i].prefix && (k = kid_for(a, b->kids[i].key)) != NULL && !k->prefix)
			k = NULL;
		if (k == NULL || !node_covers(k, &b->kids[i]))
			return false;
	}
	return true;
}

bool result_need_covers(const struct result_need *a, const struct result_need *b)
{
	return a == NULL || b == NULL ? a == NULL : node_covers(&a->root, &b->root);
}

static int node_merge(struct need_node *into, const struct need_node *from)
{
	if (into->all)
		return 0;
	if (from->all) {
		into->all = true;
		return 0;
	}
	for (size_t i = 0; i < from->nkids; i++) {
		char seg[512];
		int len = snprintf(seg, sizeof(seg), "%s%s", from->kids[i].key, from->kids[i].prefix ? "*" : "");
		struct need_node *k;

		if (len < 0 || (size_t)len >= sizeof(seg))
			return -ENOMEM;
		if ((k = node_kid(into, seg, (size_t)len)) == NULL || node_merge(k, &from->kids[i]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int result_need_merge(struct result_need *into, const struct result_need *from, struct lab_error *err)
{
	if (from != NULL && node_merge(&into->root, &from->root) < 0)
		return lab_error_set(err, ENOMEM, "out of memory");
	return 0;
}

/* A copy of v holding only what n keeps (v itself when all of it). */
static json_t *pruned(json_t *v, const struct need_node *n)
{
	const char *key;
	json_t *o, *val;

	if (n->all || (!json_is_object(v) && !json_is_array(v)))
		return json_incref(v);
	if (json_is_array(v)) {
		/* each element as the path goes on ("zones[zone=Normal].free") */
		size_t i;

		if ((o = json_array()) == NULL)
			return NULL;
		json_array_foreach(v, i, val)
			if (json_array_append_new(o, pruned(val, n)) < 0) {
				json_decref(o);
				return NULL;
			}
		return o;
	}
	if ((o = json_object()) == NULL)
		return NULL;
	json_object_foreach(v, key, val) {
		const struct need_node *k = kid_for(n, key);

		if (k != NULL && json_object_set_new(o, key, pruned(val, k)) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* A sample as the need keeps it: t_ms and cause always. */
static json_t *sample_pruned(json_t *s, const struct result_need *need)
{
	const char *key;
	json_t *o, *val;

	if (need == NULL || need->root.all || !json_is_object(s))
		return json_incref(s);
	if ((o = json_object()) == NULL)
		return NULL;
	json_object_foreach(s, key, val) {
		const struct need_node *k = kid_for(&need->root, key);
		json_t *p;

		if (strcmp(key, RK_T_MS) == 0 || strcmp(key, "cause") == 0)
			p = json_incref(val);
		else if (k != NULL)
			p = pruned(val, k);
		else
			continue;
		if (json_object_set_new(o, key, p) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

/* A run's samples array as it is filled: the element before the newest is
 * replaced by its pruned copy when the newest arrives, so only the last one
 * stays whole. */
static int samples_push(json_t *arr, json_t *s, const struct result_need *need)
{
	size_t n = json_array_size(arr);

	if (n > 0 && need != NULL && !need->root.all) {
		json_t *p = sample_pruned(json_array_get(arr, n - 1), need);

		if (p == NULL || json_array_set_new(arr, n - 1, p) < 0)
			return -ENOMEM;
	}
	return json_array_append_new(arr, s) < 0 ? -ENOMEM : 0;
}

bool result_read_full(void)
{
	const char *v = getenv("PAGELAB_READ");

	return v != NULL && strcmp(v, "full") == 0;
}

/* ------------------------------------------------------- the document */

struct frame {
	json_t *v;                      /* an object or an array */
	char *key;                      /* an object's key whose value is parsed */
	bool samples;                   /* runs[i].samples */
};

struct build {
	struct frame st[DEPTH_MAX];
	size_t depth;
	json_t *root;
	struct result_need *need;
	result_need_fn fn;              /* asked for the need at "runs" */
	void *arg;
	bool asked;
	int fn_rc;
	struct lab_error fn_err;
	size_t samples;
	char why[160];                  /* a value the builder refused */
};

static int refuse(struct build *b, const char *why)
{
	snprintf(b->why, sizeof(b->why), "%s", why);
	return 0;
}

/* Place a finished value into its parent (takes v). */
static int place(struct build *b, json_t *v)
{
	struct frame *f;

	if (v == NULL)
		return refuse(b, "out of memory");
	if (b->depth == 0) {
		json_decref(b->root);
		b->root = v;
		return 1;
	}
	f = &b->st[b->depth - 1];
	if (json_is_object(f->v)) {
		int rc = f->key != NULL ? json_object_set_new(f->v, f->key, v) : -1;

		free(f->key);
		f->key = NULL;
		return rc < 0 ? refuse(b, "out of memory") : 1;
	}
	if (f->samples) {
		b->samples++;
		return samples_push(f->v, v, b->need) < 0 ? refuse(b, "out of memory") : 1;
	}
	return json_array_append_new(f->v, v) < 0 ? refuse(b, "out of memory") : 1;
}

static int cb_null(void *ctx)
{
	return place(ctx, json_null());
}

static int cb_boolean(void *ctx, int v)
{
	return place(ctx, json_boolean(v));
}

/* Numbers as jansson reads them: an integer unless it has '.', 'e' or 'E';
 * one out of json_int_t's range, or a real out of a double's, refused. */
static int cb_number(void *ctx, const char *s, size_t len)
{
	struct build *b = ctx;
	char buf[128], *end;

	if (len >= sizeof(buf))
		return refuse(b, "number too long");
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (strpbrk(buf, ".eE") == NULL) {
		long long v = strtoll(buf, &end, 10);

		if (errno == ERANGE)
			return refuse(b, "too big integer");
		if (*end != '\0')
			return refuse(b, "invalid number");
		return place(b, json_integer((json_int_t)v));
	} else {
		double v = strtod(buf, &end);

		if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
			return refuse(b, "real number overflow");
		if (*end != '\0')
			return refuse(b, "invalid number");
		return place(b, json_real(v));
	}
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
	if (memchr(s, '\0', len) != NULL)
		return refuse(ctx, "\\u0000 is not allowed");
	return place(ctx, json_stringn((const char *)s, len));
}

static int push(struct build *b, json_t *v)
{
	struct frame *f;

	if (v == NULL)
		return refuse(b, "out of memory");
	if (b->depth == DEPTH_MAX) {
		json_decref(v);
		return refuse(b, "maximum parsing depth reached");
	}
	f = &b->st[b->depth];
	f->v = v;
	f->key = NULL;
	/* runs[i].samples: the root's "runs" array, an element's "samples". */
	f->samples = json_is_array(v) && b->depth == 3 && b->st[0].key != NULL &&
		     strcmp(b->st[0].key, RK_RUNS) == 0 && json_is_array(b->st[1].v) && b->st[2].key != NULL &&
		     strcmp(b->st[2].key, RK_SAMPLES) == 0;
	b->depth++;
	return 1;
}

static int cb_start_map(void *ctx)
{
	return push(ctx, json_object());
}

static int cb_start_array(void *ctx)
{
	return push(ctx, json_array());
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct build *b = ctx;
	struct frame *f = &b->st[b->depth - 1];

	if (memchr(key, '\0', len) != NULL)
		return refuse(b, "\\u0000 is not allowed in a key");
	free(f->key);
	if ((f->key = strndup((const char *)key, len)) == NULL)
		return refuse(b, "out of memory");
	/* The samples come in runs[]: what they need is known by now from
	 * what precedes it (the scenario, in pagelab's documents). */
	if (b->depth == 1 && b->fn != NULL && !b->asked && strcmp(f->key, RK_RUNS) == 0) {
		b->asked = true;
		if ((b->fn_rc = b->fn(f->v, b->need, b->arg, &b->fn_err)) < 0)
			return 0;
	}
	return 1;
}

static int cb_end(void *ctx)
{
	struct build *b = ctx;
	struct frame *f = &b->st[--b->depth];

	free(f->key);
	f->key = NULL;
	return place(b, f->v);
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_boolean,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end,
};

static void build_free(struct build *b)
{
	while (b->depth > 0) {
		struct frame *f = &b->st[--b->depth];

		free(f->key);
		json_decref(f->v);
	}
	json_decref(b->root);
	b->root = NULL;
}

/* The parser over the pieces fed to it; where it is, for messages. */
struct parse {
	yajl_handle h;
	struct build *b;
	const char *name;
	unsigned long long off;         /* bytes before the current piece */
	unsigned long long line;        /* lines before it (1-based) */
};

static int parse_fault(struct parse *p, const unsigned char *piece, size_t len, struct lab_error *err)
{
	size_t at = piece != NULL ? yajl_get_bytes_consumed(p->h) : 0;
	unsigned long long line = p->line;
	char why[200];

	if (p->b->fn_rc < 0) {
		*err = p->b->fn_err;
		return p->b->fn_rc;
	}
	if (at > len)
		at = len;
	for (size_t i = 0; i < at; i++)
		line += piece[i] == '\n';
	if (p->b->why[0] != '\0') {
		snprintf(why, sizeof(why), "%s", p->b->why);
	} else {
		unsigned char *e = yajl_get_error(p->h, 0, piece, len);
		size_t el;

		snprintf(why, sizeof(why), "%s", e != NULL ? (const char *)e : "parse error");
		if (e != NULL)
			yajl_free_error(p->h, e);
		el = strlen(why);
		while (el > 0 && (why[el - 1] == '\n' || why[el - 1] == ' ' || why[el - 1] == '.'))
			why[--el] = '\0';
	}
	return lab_error_set(err, EINVAL, "%s: not JSON at byte %llu (line %llu): %s", p->name,
			     p->off + (unsigned long long)at, line, why);
}

static int parse_piece(struct parse *p, const unsigned char *piece, size_t len, struct lab_error *err)
{
	if (yajl_parse(p->h, piece, len) != yajl_status_ok)
		return parse_fault(p, piece, len, err);
	for (size_t i = 0; i < len; i++)
		p->line += piece[i] == '\n';
	p->off += len;
	return 0;
}

static int parse_open(struct parse *p, struct build *b, const char *name, struct result_need *need,
		      result_need_fn fn, void *arg, struct lab_error *err)
{
	memset(b, 0, sizeof(*b));
	b->need = need;
	b->fn = fn;
	b->arg = arg;
	p->b = b;
	p->name = name;
	p->off = 0;
	p->line = 1;
	/* yajl's defaults are jansson's: no comments, one value, no trailing
	 * garbage, strings checked to be UTF-8. */
	p->h = yajl_alloc(&callbacks, NULL, b);
	if (p->h == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	return 0;
}

static int parse_close(struct parse *p, json_t **out, struct lab_error *err)
{
	int rc = 0;

	if (yajl_complete_parse(p->h) != yajl_status_ok)
		rc = parse_fault(p, NULL, 0, err);
	else if (p->b->root == NULL || p->b->depth != 0)
		rc = lab_error_set(err, EINVAL, "%s: not JSON at byte %llu (line %llu): premature end of input",
				   p->name, p->off, p->line);
	if (rc == 0) {
		*out = p->b->root;
		p->b->root = NULL;
	}
	return rc;
}

static int check_schema(const char *name, json_t **doc, struct lab_error *err)
{
	const char *s = json_string_value(json_object_get(*doc, RK_SCHEMA));

	if (json_is_object(*doc) && s != NULL && strcmp(s, RESULT_SCHEMA_ID) == 0)
		return 0;
	lab_error_set(err, EINVAL, "%s: not a %s document (schema: %s)", name, RESULT_SCHEMA_ID, s != NULL ? s : "none");
	json_decref(*doc);
	*doc = NULL;
	return -EINVAL;
}

static int read_whole(const char *path, json_t **out, struct lab_error *err)
{
	cleanup_free char *text = NULL;
	json_error_t je;
	size_t len = 0;
	int rc = lab_read_input(path, "result", LAB_RESULT_MAX, 0, &text, &len, err);

	if (rc < 0)
		return rc;
	if ((*out = json_loadb(text, len, 0, &je)) == NULL)
		return lab_error_set(err, EINVAL, "%s: not JSON at byte %d (line %d): %s", path, je.position,
				     je.line, je.text);
	return check_schema(path, out, err);
}

static int read_document(const char *path, int fd, struct result_need *need, result_need_fn fn, void *arg,
			 json_t **out, struct result_read_info *info, struct lab_error *err)
{
	struct build *b = malloc(sizeof(*b));
	unsigned char *piece = malloc(CHUNK);
	struct parse p = { 0 };
	int rc = 0;

	if (b == NULL || piece == NULL || (rc = parse_open(&p, b, path, need, fn, arg, err)) < 0) {
		free(b);
		free(piece);
		return rc < 0 ? rc : lab_error_set(err, ENOMEM, "out of memory");
	}
	for (;;) {
		ssize_t n = read(fd, piece, CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = lab_error_errno(err, errno, "read result %s", path);
			break;
		}
		if (n == 0)
			break;
		if (p.off + (unsigned long long)n > LAB_RESULT_MAX) {
			rc = lab_input_too_big("result", path, LAB_RESULT_MAX, LAB_RESULT_MAX, true, err);
			break;
		}
		if ((rc = parse_piece(&p, piece, (size_t)n, err)) < 0)
			break;
	}
	if (rc == 0)
		rc = parse_close(&p, out, err);
	if (rc == 0)
		rc = check_schema(path, out, err);
	if (rc == 0 && info != NULL) {
		info->runs = json_array_size(json_object_get(*out, RK_RUNS));
		info->samples = b->samples;
	}
	yajl_free(p.h);
	build_free(b);
	free(b);
	free(piece);
	return rc;
}

int result_read_buffer(const char *name, const char *buf, size_t len, const struct result_need *need,
		       json_t **out, struct lab_error *err)
{
	struct build *b = malloc(sizeof(*b));
	struct parse p = { 0 };
	int rc = 0;

	*out = NULL;
	if (b == NULL || (rc = parse_open(&p, b, name, (struct result_need *)need, NULL, NULL, err)) < 0) {
		free(b);
		return rc < 0 ? rc : lab_error_set(err, ENOMEM, "out of memory");
	}
	/* In pieces, as a file is read: the faults' offsets cross them. */
	for (size_t off = 0; rc == 0 && off < len; off += CHUNK)
		rc = parse_piece(&p, (const unsigned char *)buf + off, len - off < CHUNK ? len - off : CHUNK, err);
	if (rc == 0)
		rc = parse_close(&p, out, err);
	if (rc == 0)
		rc = check_schema(name, out, err);
	yajl_free(p.h);
	build_free(b);
	free(b);
	return rc;
}

/* --------------------------------------------------------- the stream */

/* The line's object without "type" and "run". */
static json_t *payload(json_t *line)
{
	json_t *o = json_copy(line);

	if (o != NULL) {
		json_object_del(o, "type");
		json_object_del(o, "run");
	}
	return o;
}

static int append_to(json_t *run, const char *key, json_t *v)
{
	json_t *a = json_object_get(run, key);

	if (!json_is_array(a)) {
		a = json_array();
		if (a == NULL || json_object_set_new(run, key, a) < 0)
			return -ENOMEM;
	}
	return json_array_append_new(a, v) < 0 ? -ENOMEM : 0;
}

struct stream {
	const char *path;
	struct result_need *need;
	result_need_fn fn;
	void *arg;
	json_t *doc;
	size_t lineno;
	size_t samples;
	bool finished;
};

/* One line of the stream into the document (harness/result/result.md's types). */
static int stream_line(struct stream *s, const char *text, size_t len, struct lab_error *err)
{
	json_error_t je;
	json_t *line = json_loadb(text, len, 0, &je), *runs, *run = NULL, *v;
	char type[32];                  /* the messages outlive the line */
	json_int_t idx = json_integer_value(json_object_get(line, "run"));
	int rc = 0;

	if (line == NULL)
		return lab_error_set(err, EINVAL, "%s:%zu: not JSON: %s (column %d)", s->path, s->lineno, je.text,
				     je.column);
	if (!json_is_string(json_object_get(line, "type"))) {
		json_decref(line);
		return lab_error_set(err, EINVAL, "%s:%zu: not a pagelab stream line (no \"type\")", s->path,
				     s->lineno);
	}
	snprintf(type, sizeof(type), "%s", json_string_value(json_object_get(line, "type")));
	if (strcmp(type, "header") == 0) {
		json_decref(s->doc);
		s->doc = payload(line);
		if (s->doc != NULL && !json_is_array(json_object_get(s->doc, RK_RUNS)))
			json_object_set_new(s->doc, RK_RUNS, json_array());
		json_decref(line);
		if (s->doc == NULL)
			return lab_error_set(err, ENOMEM, "out of memory");
		return s->fn != NULL && s->need != NULL ? s->fn(s->doc, s->need, s->arg, err) : 0;
	}
	if (s->doc == NULL) {
		json_decref(line);
		return lab_error_set(err, EINVAL, "%s:%zu: a '%s' line before the header", s->path, s->lineno, type);
	}
	runs = json_object_get(s->doc, RK_RUNS);
	if (strcmp(type, "end") == 0) {
		s->finished = true;
		json_decref(line);
		return 0;
	}
	if (strcmp(type, "run-start") == 0) {
		if (idx != (json_int_t)json_array_size(runs)) {
			json_decref(line);
			return lab_error_set(err, EINVAL, "%s:%zu: run %lld starts out of order", s->path, s->lineno,
					     (long long)idx);
		}
		v = payload(line);
		json_decref(line);
		if (v == NULL || json_array_append_new(runs, v) < 0)
			return lab_error_set(err, ENOMEM, "out of memory");
		/* The arrays the sampler makes for every run (empty when nothing
		 * came): sampler.c sampler_run. */
		{
			static const char *const arrays[] = { RK_SAMPLES, RK_STEPS, RK_ACTIONS, RK_WORKLOADS };

			for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
				if (!json_is_array(json_object_get(v, arrays[i])))
					json_object_set_new(v, arrays[i], json_array());
		}
		return 0;
	}
	if (idx >= 0 && (size_t)idx < json_array_size(runs))
		run = json_array_get(runs, (size_t)idx);
	if (run == NULL) {
		json_decref(line);
		return lab_error_set(err, EINVAL, "%s:%zu: a '%s' line of run %lld, which has not started", s->path,
				     s->lineno, type, (long long)idx);
	}
	if (strcmp(type, "sources") == 0) {
		rc = json_object_set(run, "sources", json_object_get(line, "sources"));
	} else if (strcmp(type, "run-end") == 0) {
		rc = (v = payload(line)) == NULL ? -ENOMEM : json_object_set_new(run, RK_EXIT, v);
	} else {
		static const struct {
			const char *type, *key;
		} into[] = {
			{ "sample", RK_SAMPLES }, { "step", RK_STEPS }, { "workload", RK_WORKLOADS },
			{ "action", RK_ACTIONS }, { "event", RK_EVENTS }, { "trace-interval", RK_TRACE_INTERVALS },
		};
		size_t i;

		for (i = 0; i < sizeof(into) / sizeof(into[0]) && strcmp(into[i].type, type) != 0; i++)
			;
		if (i == 0) {
			s->samples++;
			rc = (v = payload(line)) == NULL ? -ENOMEM
							 : samples_push(json_object_get(run, RK_SAMPLES), v, s->need);
		} else if (i < sizeof(into) / sizeof(into[0])) {
			rc = (v = payload(line)) == NULL ? -ENOMEM : append_to(run, into[i].key, v);
		}
		/* a type this reader does not know: left out */
	}
	json_decref(line);
	return rc < 0 ? lab_error_set(err, ENOMEM, "out of memory") : 0;
}

static int read_stream(const char *path, int fd, struct result_need *need, result_need_fn fn, void *arg,
		       json_t **out, struct result_read_info *info, struct lab_error *err)
{
	struct stream s = { .path = path, .need = need, .fn = fn, .arg = arg };
	unsigned long long total = 0;
	size_t len = 0, cap = CHUNK, start;
	char *buf = malloc(cap);
	int rc = 0;

	if (buf == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (;;) {
		ssize_t n;
		char *nl;

		if (cap - len < CHUNK / 2) {
			char *more = realloc(buf, cap * 2);

			if (more == NULL) {
				rc = lab_error_set(err, ENOMEM, "out of memory");
				break;
			}
			buf = more;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = lab_error_errno(err, errno, "read result stream %s", path);
			break;
		}
		if (n == 0)
			break;
		total += (unsigned long long)n;
		if (total > LAB_RESULT_MAX) {
			rc = lab_input_too_big("result stream", path, LAB_RESULT_MAX, LAB_RESULT_MAX, true, err);
			break;
		}
		len += (size_t)n;
		for (start = 0; rc == 0 && (nl = memchr(buf + start, '\n', len - start)) != NULL;
		     start = (size_t)(nl - buf) + 1) {
			s.lineno++;
			if (nl > buf + start)
				rc = stream_line(&s, buf + start, (size_t)(nl - buf) - start, err);
		}
		if (rc < 0)
			break;
		memmove(buf, buf + start, len - start);
		len -= start;
	}
	free(buf);
	if (rc == 0 && s.doc == NULL)
		rc = lab_error_set(err, EINVAL, "%s: not a pagelab result stream (no header line)", path);
	if (rc < 0) {
		json_decref(s.doc);
		return rc;
	}
	if (!s.finished) {
		json_object_set_new(s.doc, RK_STATUS, json_string("interrupted"));
		json_object_set_new(s.doc, RK_ERROR, json_string("the run did not finish: read from its stream"));
	}
	*out = s.doc;
	if (info != NULL) {
		info->stream = true;
		info->finished = s.finished;
		info->cut = len > 0;    /* a line without its newline: the run was killed writing it */
		info->runs = json_array_size(json_object_get(s.doc, RK_RUNS));
		info->samples = s.samples;
	}
	return check_schema(path, out, err);
}

int result_read_for(const char *path, struct result_need *need, result_need_fn fn, void *arg, json_t **out,
		    struct result_read_info *info, struct lab_error *err)
{
	static struct result_need bare;
	const char *mode = getenv("PAGELAB_READ");
	size_t n = strlen(path);
	bool stream = n > 6 && strcmp(path + n - 6, ".jsonl") == 0;
	int fd, rc;

	*out = NULL;
	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (!stream && result_read_full())
		return read_whole(path, out, err);
	if (stream && result_read_full())
		need = NULL;
	/* bare: nothing of the samples but t_ms and cause, whatever was asked —
	 * the control that shows tests/bats/read.bats's comparisons can fail. */
	if (mode != NULL && strcmp(mode, "bare") == 0) {
		memset(&bare, 0, sizeof(bare));
		need = &bare;
		fn = NULL;
	}
	if (need == NULL)
		fn = NULL;
	fd = lab_open_input(path, stream ? "result stream" : "result", LAB_RESULT_MAX, 0, NULL, err);
	if (fd < 0)
		return fd;
	rc = stream ? read_stream(path, fd, need, fn, arg, out, info, err)
		    : read_document(path, fd, need, fn, arg, out, info, err);
	close(fd);
	return rc;
}

int result_read(const char *path, const struct result_need *need, json_t **out, struct result_read_info *info,
		struct lab_error *err)
{
	/* Without a function nothing changes need. */
	return result_read_for(path, (struct result_need *)need, NULL, NULL, out, info, err);
}
