/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buddyinfo.c — source "buddyinfo": free blocks per order for each zone,
 * /proc/buddyinfo (mm/vmstat.c: frag_show_print):
 *
 *   Node 0, zone   Normal   1122   1232   5805 ...   143
 *
 * one count per order 0..MAX_PAGE_ORDER (11 orders on x86-64 before 6.8's
 * rename too; arm64 with 64 KiB pages prints fewer).  JSON: [{"node", "zone",
 * "free_blocks": [order 0, 1, …]}].  What is free as contiguous blocks — the
 * fragmentation behind a failed high-order allocation.  O(zones × orders),
 * but a sample's worth of numbers: read on the step cadence. */
#include "source.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"
#include "base/lex.h"

#define BUDDY_MAX_ZONES 32
#define BUDDY_MAX_ORDERS 16

struct buddy_zone {
	int node;
	char zone[16];
	size_t nr_orders;
	unsigned long long free_blocks[BUDDY_MAX_ORDERS];
};

struct buddyinfo {
	size_t n;
	struct buddy_zone zones[BUDDY_MAX_ZONES];
};

static int buddy_parse_struct(const char *buf, struct buddyinfo *out, struct lab_error *err)
{
	int line = 0;

	out->n = 0;
	for (const char *p = buf; *p != '\0'; p = lex_next_line(lex_line_end(p))) {
		const char *eol = lex_line_end(p), *q, *name;
		struct buddy_zone *z;
		unsigned long long node;
		size_t nl;

		line++;
		if (p == eol)
			continue;
		if (out->n == BUDDY_MAX_ZONES)
			return lab_error_set(err, EINVAL, "buddyinfo line %d: more than %d zones", line,
					     BUDDY_MAX_ZONES);
		z = &out->zones[out->n];
		memset(z, 0, sizeof(*z));
		if (strncmp(p, "Node ", 5) != 0 || lex_u64(p + 5, 10, &node, &q) < 0 || node > 1 << 20 ||
		    strncmp(q, ", zone", 6) != 0)
			goto bad;
		z->node = (int)node;
		q = lex_skip_blanks(q + 6, eol);
		name = q;
		while (q < eol && !lex_is_blank(*q))
			q++;
		nl = (size_t)(q - name);
		if (nl == 0 || nl >= sizeof(z->zone))
			goto bad;
		memcpy(z->zone, name, nl);
		for (;;) {
			const char *e;

			q = lex_skip_blanks(q, eol);
			if (q == eol)
				break;
			if (z->nr_orders == BUDDY_MAX_ORDERS ||
			    lex_u64(q, 10, &z->free_blocks[z->nr_orders], &e) < 0 || (e != eol && !lex_is_blank(*e)))
				goto bad;
			z->nr_orders++;
			q = e;
		}
		if (z->nr_orders == 0)
			goto bad;
		out->n++;
		continue;
bad:
		out->n = 0;
		return lab_error_set(err, EINVAL, "buddyinfo line %d: expected 'Node N, zone NAME COUNT…'", line);
	}
	return 0;
}

static json_t *buddy_json(const struct buddyinfo *b)
{
	json_t *a = json_array();

	for (size_t i = 0; i < b->n; i++) {
		json_t *c = json_array();

		for (size_t o = 0; o < b->zones[i].nr_orders; o++)
			json_array_append_new(c, json_integer((json_int_t)b->zones[i].free_blocks[o]));
		json_array_append_new(a, json_pack("{s:i, s:s, s:o}", "node", b->zones[i].node, "zone",
						   b->zones[i].zone, "free_blocks", c));
	}
	return a;
}

static int buddy_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct buddyinfo b;
	int ret;

	(void)len;
	if ((ret = buddy_parse_struct(buf, &b, err)) == 0)
		*out = buddy_json(&b);
	return ret;
}

static int buddy_read(struct source_ctx *ctx, void *state, json_t **out, struct lab_error *err)
{
	const char *buf;
	int ret;

	(void)ctx;
	(void)state;
	if ((ret = source_read(ctx, "/proc/buddyinfo", &buf, err)) < 0)
		return ret;
	return buddy_parse(buf, 0, out, err);
}

const struct source source_buddyinfo = {
	.name = "buddyinfo",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_STEP,
	.files = "/proc/buddyinfo",
	.fixture = "proc-buddyinfo",
	.doc = "free blocks per order for each zone (/proc/buddyinfo)",
	.parse = buddy_parse,
	.read = buddy_read,
};
