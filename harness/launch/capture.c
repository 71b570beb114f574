/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c — a stream kept bounded (capture.h). */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int capture_init(struct capture *c, size_t head_max, size_t tail_max, struct lab_error *err)
{
	memset(c, 0, sizeof(*c));
	c->head_max = head_max;
	c->tail_max = tail_max;
	c->head = malloc(head_max ? head_max : 1);
	c->tail = malloc(tail_max ? tail_max : 1);
	if (c->head == NULL || c->tail == NULL) {
		capture_free(c);
		return lab_error_errno(err, ENOMEM, "output buffer");
	}
	return 0;
}

static void keep(struct capture *c, const char *p, size_t n)
{
	size_t h = c->head_len < c->head_max ? c->head_max - c->head_len : 0;

	if (h > n)
		h = n;
	memcpy(c->head + c->head_len, p, h);
	c->head_len += h;
	p += h;
	n -= h;
	/* What the head did not take: the ring keeps the last tail_max. */
	if (n > c->tail_max) {
		p += n - c->tail_max;
		n = c->tail_max;
	}
	for (size_t i = 0; i < n; i++) {
		c->tail[c->tail_pos % c->tail_max] = p[i];
		c->tail_pos++;
	}
}

static void lines(struct capture *c, const char *p, size_t n, void (*line)(void *, const char *), void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n' || c->line_len == sizeof(c->line) - 1) {
			c->line[c->line_len] = '\0';
			line(ctx, c->line);
			c->line_len = 0;
			if (p[i] == '\n')
				continue;
		}
		c->line[c->line_len++] = p[i];
	}
}

int capture_read(struct capture *c, int fd, void (*line)(void *ctx, const char *text), void *ctx)
{
	char buf[8192];

	for (int rounds = 0; rounds < 64; rounds++) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -errno;
		if (n == 0) {
			if (line != NULL && c->line_len > 0) {
				c->line[c->line_len] = '\0';
				line(ctx, c->line);
				c->line_len = 0;
			}
			c->eof = true;
			return 1;
		}
		c->total += (unsigned long long)n;
		keep(c, buf, (size_t)n);
		if (line != NULL)
			lines(c, buf, (size_t)n, line, ctx);
	}
	return 0;       /* more later: the loop comes back (no starving the others) */
}

/* The tail's bytes in order: the last min(tail_pos, tail_max). */
static size_t tail_copy(const struct capture *c, char *out, size_t skip_keep)
{
	size_t n = c->tail_pos < c->tail_max ? c->tail_pos : c->tail_max;
	size_t start = c->tail_pos - n, k = 0;

	if (skip_keep && n > skip_keep) {
		start += n - skip_keep;
		n = skip_keep;
	}
	for (size_t i = 0; i < n; i++)
		out[k++] = c->tail[(start + i) % c->tail_max];
	return k;
}

char *capture_text(const struct capture *c, size_t *len)
{
	size_t tn = c->tail_pos < c->tail_max ? c->tail_pos : c->tail_max;
	char *s = malloc(c->head_len + tn + 1);

	if (s == NULL)
		return NULL;
	memcpy(s, c->head, c->head_len);
	*len = c->head_len + tail_copy(c, s + c->head_len, 0);
	s[*len] = '\0';
	return s;
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t k = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 ? 2 : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (k == 0 || k > n || (k == 2 && p[0] < 0xc2) || (k == 4 && p[0] > 0xf4))
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (k == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
		return 0;       /* overlong, or a surrogate */
	if (k == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
		return 0;
	return k;
}

json_t *capture_string(const char *s, size_t n)
{
	char *o = malloc(n * 3 + 1);
	size_t k = 0;
	json_t *j;

	if (o == NULL)
		return json_null();
	for (size_t i = 0; i < n;) {
		size_t l = s[i] == '\0' ? 0 : utf8_len((const unsigned char *)s + i, n - i);

		if (l == 0) {
			memcpy(o + k, "\xef\xbf\xbd", 3);       /* U+FFFD */
			k += 3;
			i++;
			continue;
		}
		memcpy(o + k, s + i, l);
		k += l;
		i += l;
	}
	j = json_stringn(o, k);
	free(o);
	return j != NULL ? j : json_null();
}

json_t *capture_json(const struct capture *c)
{
	size_t hn = c->head_len < CAPTURE_KEEP ? c->head_len : CAPTURE_KEEP;
	json_t *o = json_pack("{s:I}", "bytes", (json_int_t)c->total);

	json_object_set_new(o, "text", capture_string(c->head, hn));
	if (c->total > hn) {
		char *t = malloc(CAPTURE_KEEP);
		size_t tn = 0;
		unsigned long long kept;

		if (t != NULL) {
			/* The last CAPTURE_KEEP bytes: from the ring, or from the head
			 * when the whole stream fitted there. */
			if (c->tail_pos > 0) {
				tn = tail_copy(c, t, CAPTURE_KEEP);
			} else {
				tn = c->head_len - hn < CAPTURE_KEEP ? c->head_len - hn : CAPTURE_KEEP;
				memcpy(t, c->head + c->head_len - tn, tn);
			}
			json_object_set_new(o, "tail", capture_string(t, tn));
			free(t);
		}
		kept = hn + tn;
		json_object_set_new(o, "dropped_bytes", json_integer((json_int_t)(c->total > kept ? c->total - kept : 0)));
	}
	return o;
}

void capture_free(struct capture *c)
{
	free(c->head);
	free(c->tail);
	c->head = c->tail = NULL;
}
