/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zoneinfo.c — /proc/zoneinfo, per zone.
 *
 * The format is mm/vmstat.c: zoneinfo_show_print.  Every zone of every node
 * is printed (walk_zones_in_node with populated = false), each as
 *
 *   Node 0, zone   Normal
 *     per-node stats            (first populated zone of a node only)
 *         nr_inactive_anon 24636
 *     pages free     290631
 *           boost    0          (since 5.0)
 *           min      6273
 *           low      7841
 *           high     9409
 *           promo    10977      (since 6.x, ignored)
 *           spanned  5505024
 *           present  5505024
 *           managed  458752
 *           cma      0          (CONFIG_CMA kernels)
 *           protection: (0, 0, 0, 0, 0)
 *         nr_free_pages 290631   (per-zone stats: populated zones only)
 *     pagesets
 *       cpu: 0
 *                 count:    3703
 *                 high:     3983 (a per-cpu list's high mark, not a watermark)
 *       vm stats threshold: 28   (after each CPU's lines, CONFIG_SMP)
 *     node_unreclaimable:  0
 *     start_pfn:           1048576
 *
 * An unpopulated zone stops after its protection line.  From "pagesets" to
 * the next "Node" line only "vm stats threshold" is read (zone_info.drift),
 * so the per-cpu "high:" can never be taken for the zone's high watermark.
 */
#include "zoneinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

/* The per-zone lines read; the index is the bit in the zone's "seen" mask. */
enum {
	F_FREE, F_BOOST, F_MIN, F_LOW, F_HIGH, F_SPANNED, F_PRESENT, F_MANAGED, F_CMA,
	F_PROTECTION, F_COUNT,
	F_THRESHOLD = F_COUNT,          /* a "vm stats threshold" (layouts only) */
	F_IGNORED = 0xff                /* a number no field is read from */
};

static const char *const field_names[F_COUNT] = {
	[F_FREE] = "pages free",
	[F_BOOST] = "boost",
	[F_MIN] = "min",
	[F_LOW] = "low",
	[F_HIGH] = "high",
	[F_SPANNED] = "spanned",
	[F_PRESENT] = "present",
	[F_MANAGED] = "managed",
	[F_CMA] = "cma",
	[F_PROTECTION] = "protection",
};

/* Lines every zone prints on every kernel pagelab supports.  "boost" (5.0)
 * and "cma" (CONFIG_CMA) are optional; the watermark lines are printed for
 * empty zones too, but are not demanded of them. */
#define REQUIRED_ALWAYS ((1u << F_FREE) | (1u << F_SPANNED) | (1u << F_PRESENT) | \
			 (1u << F_MANAGED) | (1u << F_PROTECTION))
#define REQUIRED_POPULATED ((1u << F_MIN) | (1u << F_LOW) | (1u << F_HIGH))

/* What a parse for a layout notes: where each number it read starts, and
 * what it is (zoneinfo_layout_make). */
struct rec {
	const char **at;
	struct zl_slot *slot;
	size_t n, cap;
	bool failed;                    /* out of memory: no layout */
};

struct parse_state {
	struct zone_info *zone;         /* NULL before the first "Node" line */
	size_t zone_line;
	unsigned int seen;
	bool skipping;                  /* inside "pagesets" */
	struct zoneinfo *out;
	struct rec *rec;                /* NULL: a plain parse */
};

static void note(struct parse_state *st, const char *at, unsigned field, unsigned idx)
{
	struct rec *r = st->rec;

	if (r == NULL || r->failed)
		return;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 128;
		const char **a = realloc(r->at, cap * sizeof(*a));
		struct zl_slot *sl;

		if (a != NULL)
			r->at = a;
		sl = a != NULL ? realloc(r->slot, cap * sizeof(*sl)) : NULL;
		if (sl == NULL) {
			r->failed = true;
			return;
		}
		r->slot = sl;
		r->cap = cap;
	}
	r->at[r->n] = at;
	r->slot[r->n].zone = (unsigned short)(st->zone - st->out->zones);
	r->slot[r->n].field = (unsigned char)field;
	r->slot[r->n].idx = (unsigned char)idx;
	r->n++;
}

/* Does the token [p, eol) start with word followed by a blank or the end? */
static bool word_is(const char *p, const char *eol, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(eol - p) >= n && memcmp(p, word, n) == 0 &&
	       (p + n == eol || lex_is_blank(p[n]));
}

static int zone_close(struct parse_state *st, struct lab_error *err)
{
	unsigned int need = REQUIRED_ALWAYS, missing;
	int f;

	if (st->zone == NULL)
		return 0;
	if (st->zone->present > 0)
		need |= REQUIRED_POPULATED;
	missing = need & ~st->seen;
	if (missing == 0)
		return 0;
	for (f = 0; f < F_COUNT; f++)
		if (missing & (1u << f))
			break;
	return lab_error_set(err, EINVAL,
			     "line %zu: zone %s of node %d has no '%s' line (truncated zoneinfo?)",
			     st->zone_line, st->zone->name, st->zone->node, field_names[f]);
}

/* "Node 0, zone   Normal" */
static int zone_open(const char *p, const char *eol, size_t lineno, struct zoneinfo *out,
		     struct parse_state *st, struct lab_error *err)
{
	unsigned long long node;
	const char *q, *name;
	struct zone_info *z;
	size_t namelen;

	if (eol - p < 6 || p[4] != ' ' || lex_u64(p + 5, 10, &node, &q) < 0 ||
	    node > INT_MAX || eol - q < 6 ||
	    memcmp(q, ", zone", 6) != 0 || q + 6 == eol || !lex_is_blank(q[6]))
		return lab_error_set(err, EINVAL, "line %zu: expected 'Node N, zone NAME', got '%.*s'",
				     lineno, (int)(eol - p > 60 ? 60 : eol - p), p);
	name = lex_skip_blanks(q + 6, eol);
	for (q = name; q < eol && !lex_is_blank(*q); q++)
		;
	namelen = (size_t)(q - name);
	if (namelen == 0 || namelen >= sizeof(z->name) || lex_skip_blanks(q, eol) != eol)
		return lab_error_set(err, EINVAL, "line %zu: bad zone name in '%.*s'",
				     lineno, (int)(eol - p > 60 ? 60 : eol - p), p);
	if (out->n >= ZONEINFO_MAX_ZONES)
		return lab_error_set(err, EINVAL, "line %zu: more than %d zones", lineno,
				     ZONEINFO_MAX_ZONES);
	z = &out->zones[out->n++];
	memset(z, 0, sizeof(*z));
	z->node = (int)node;
	memcpy(z->name, name, namelen);
	z->name[namelen] = '\0';
	st->zone = z;
	st->zone_line = lineno;
	st->seen = 0;
	st->skipping = false;
	return 0;
}

/* "protection: (0, 3019, 4811, 4811, 4811)" */
static int parse_protection(const char *p, const char *eol, size_t lineno,
			    struct parse_state *st, struct lab_error *err)
{
	struct zone_info *z = st->zone;
	unsigned long long val;
	const char *q = lex_skip_blanks(p, eol);

	if (q == eol || *q != '(')
		goto bad;
	q++;
	for (;;) {
		q = lex_skip_blanks(q, eol);
		note(st, q, F_PROTECTION, (unsigned)z->nr_protection);
		if (lex_u64(q, 10, &val, &q) < 0)
			goto bad;
		if (z->nr_protection >= ZONEINFO_MAX_PROT)
			return lab_error_set(err, EINVAL,
					     "line %zu: zone %s has more than %d protection entries",
					     lineno, z->name, ZONEINFO_MAX_PROT);
		z->protection[z->nr_protection++] = val;
		if (q < eol && *q == ',') {
			q++;
			continue;
		}
		if (q < eol && *q == ')' && lex_skip_blanks(q + 1, eol) == eol)
			return 0;
		goto bad;
	}
bad:
	return lab_error_set(err, EINVAL,
			     "line %zu: zone %s: expected 'protection: (N, N, ...)', got '%.*s'",
			     lineno, z->name, (int)(eol - p > 60 ? 60 : eol - p), p);
}

static int zone_line(const char *p, const char *eol, size_t lineno, struct parse_state *st,
		     struct lab_error *err)
{
	struct zone_info *z = st->zone;
	unsigned long long *dst = NULL, val;
	const char *q;
	int f, ret;

	p = lex_skip_blanks(p, eol);
	/* Most lines are counters ("nr_free_pages", "numa_hit",
	 * "node_unreclaimable"); no field read here starts with 'n'. */
	if (*p == 'n')
		return 0;
	if (*p == 'p' && word_is(p, eol, "pagesets")) {
		st->skipping = true;
		return 0;
	}
	if (*p == 'p' && word_is(p, eol, "protection:")) {
		f = F_PROTECTION;
		q = p + strlen("protection:");
	} else if (*p == 'p' && word_is(p, eol, "pages")) {
		q = lex_skip_blanks(p + strlen("pages"), eol);
		if (!word_is(q, eol, "free"))
			return 0;
		f = F_FREE;
		q += strlen("free");
	} else {
		/* A name's first byte before its whole (a dozen lines a zone,
		 * each tried against eight names). */
		for (f = F_BOOST; f <= F_CMA; f++)
			if (*p == field_names[f][0] && word_is(p, eol, field_names[f]))
				break;
		if (f > F_CMA)
			return 0;       /* per-node or per-zone counters, "promo", ... */
		q = p + strlen(field_names[f]);
	}
	if (st->seen & (1u << f))
		return lab_error_set(err, EINVAL, "line %zu: second '%s' line in zone %s of node %d",
				     lineno, field_names[f], z->name, z->node);
	st->seen |= 1u << f;
	if (f == F_PROTECTION)
		return parse_protection(q, eol, lineno, st, err);

	switch (f) {
	case F_FREE: dst = &z->free; break;
	case F_BOOST: dst = &z->boost; break;
	case F_MIN: dst = &z->min; break;
	case F_LOW: dst = &z->low; break;
	case F_HIGH: dst = &z->high; break;
	case F_SPANNED: dst = &z->spanned; break;
	case F_PRESENT: dst = &z->present; break;
	case F_MANAGED: dst = &z->managed; break;
	default: dst = &z->cma; break;
	}
	p = q;
	q = lex_skip_blanks(q, eol);
	if (q == p)
		goto bad;
	note(st, q, (unsigned)f, 0);
	ret = lex_u64(q, 10, &val, &q);
	if (ret == -ERANGE)
		return lab_error_set(err, EINVAL, "line %zu: zone %s: '%s' does not fit in 64 bits",
				     lineno, z->name, field_names[f]);
	if (ret < 0 || lex_skip_blanks(q, eol) != eol)
		goto bad;
	*dst = val;
	return 0;
bad:
	return lab_error_set(err, EINVAL, "line %zu: zone %s: '%s' is not followed by one number",
			     lineno, z->name, field_names[f]);
}

const char *zone_crossing(unsigned long long free_pages, unsigned long long line, unsigned long long drift)
{
	unsigned long long d = free_pages > line ? free_pages - line : line - free_pages;

	if (d == 0 && drift == 0)
		return "at";            /* exact, on the line */
	if (d <= drift)
		return "unresolved";
	return free_pages < line ? "under" : "above";
}

/* Inside pagesets: "  vm stats threshold: 28", once per online CPU. */
static int threshold_line(const char *p, const char *eol, size_t lineno, struct parse_state *st,
			  struct lab_error *err)
{
	struct zone_info *z = st->zone;
	static const char key[] = "vm stats threshold:";
	unsigned long long val;
	const char *q;

	p = lex_skip_blanks(p, eol);
	if ((size_t)(eol - p) < sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1) != 0)
		return 0;
	q = lex_skip_blanks(p + sizeof(key) - 1, eol);
	note(st, q, F_THRESHOLD, 0);
	if (lex_u64(q, 10, &val, &q) < 0 || lex_skip_blanks(q, eol) != eol || val > 1u << 20)
		return lab_error_set(err, EINVAL, "line %zu: zone %s: 'vm stats threshold:' is not followed by one number",
				     lineno, z->name);
	if (val > z->stat_threshold)
		z->stat_threshold = val;
	z->nr_threshold_cpus++;
	z->drift += val;
	return 0;
}

static int parse(const char *buf, struct zoneinfo *out, struct rec *rec, struct lab_error *err)
{
	struct parse_state st = { .out = out, .rec = rec };
	const char *p = buf;
	size_t lineno = 0;
	int ret = 0;

	out->n = 0;
	while (*p != '\0') {
		const char *eol = lex_line_end(p);

		lineno++;
		if (eol == p)
			goto next;
		if (word_is(p, eol, "Node")) {
			ret = zone_close(&st, err);
			if (ret == 0)
				ret = zone_open(p, eol, lineno, out, &st, err);
		} else if (!lex_is_blank(*p)) {
			ret = lab_error_set(err, EINVAL,
					    "line %zu: expected 'Node N, zone NAME' or an indented line, got '%.*s'",
					    lineno, (int)(eol - p > 60 ? 60 : eol - p), p);
		} else if (st.zone == NULL) {
			ret = lab_error_set(err, EINVAL, "line %zu: indented line before any 'Node' line",
					    lineno);
		} else if (!st.skipping) {
			ret = zone_line(p, eol, lineno, &st, err);
		} else {
			ret = threshold_line(p, eol, lineno, &st, err);
		}
		if (ret < 0)
			goto fail;
next:
		p = lex_next_line(eol);
	}
	ret = zone_close(&st, err);
	if (ret < 0)
		goto fail;
	if (out->n == 0) {
		ret = lab_error_set(err, EINVAL, "no 'Node N, zone NAME' line: not a zoneinfo file");
		goto fail;
	}
	return 0;
fail:
	out->n = 0;
	return ret;
}

int zoneinfo_parse(const char *buf, struct zoneinfo *out, struct lab_error *err)
{
	return parse(buf, out, NULL, err);
}

/* ---- the tick's fast path: a layout and the numbers in it ---------------- */

static bool word_byte(char c)
{
	return lex_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

void zoneinfo_layout_free(struct zoneinfo_layout *l)
{
	free(l->text);
	free(l->seg_off);
	free(l->seg_len);
	free(l->slot);
	free(l->base);
	memset(l, 0, sizeof(*l));
}

static int layout_alloc(struct zoneinfo_layout *l, size_t len, size_t marks)
{
	l->text = malloc(len + 1);
	l->seg_off = calloc(marks + 1, sizeof(*l->seg_off));
	l->seg_len = calloc(marks + 1, sizeof(*l->seg_len));
	l->slot = calloc(marks + 1, sizeof(*l->slot));
	l->base = malloc(sizeof(*l->base));
	return l->text && l->seg_off && l->seg_len && l->slot && l->base ? 0 : -ENOMEM;
}

/* The text cut at each number: a run of digits that does not continue a
 * word ("DMA32" stays text) outside a "Node" line (its node number stays
 * text: the zones' identity).  Each number is matched with what the parse
 * noted at its first digit, or is F_IGNORED. */
static int layout_cut(const char *buf, size_t len, const struct rec *r, struct zoneinfo_layout *l)
{
	size_t marks = 0, k = 0, seg = 0, from = 0;
	bool node_line = false;

	for (size_t i = 0; i < len; i++)
		if (lex_is_digit(buf[i]) && (i == 0 || !word_byte(buf[i - 1])))
			marks++;
	if (layout_alloc(l, len, marks) < 0)
		return -ENOMEM;
	memcpy(l->text, buf, len + 1);
	for (size_t i = 0; i < len; i++) {
		if (i == 0 || buf[i - 1] == '\n')
			node_line = len - i >= 4 && memcmp(buf + i, "Node", 4) == 0;
		if (node_line || !lex_is_digit(buf[i]) || (i > 0 && word_byte(buf[i - 1])))
			continue;
		l->seg_off[seg] = (unsigned)from;
		l->seg_len[seg] = (unsigned)(i - from);
		if (k < r->n && r->at[k] < buf + i)
			return -EINVAL; /* a number read inside a word: no layout */
		if (k < r->n && r->at[k] == buf + i)
			l->slot[seg] = r->slot[k++];
		else
			l->slot[seg] = (struct zl_slot){ 0, F_IGNORED, 0 };
		seg++;
		while (i < len && lex_is_digit(buf[i]))
			i++;
		from = i;
		i--;
	}
	l->seg_off[seg] = (unsigned)from;
	l->seg_len[seg] = (unsigned)(len - from);
	l->nr_marks = seg;
	l->len = len;
	return k == r->n ? 0 : -EINVAL;         /* every number read is a mark */
}

int zoneinfo_layout_make(const char *buf, struct zoneinfo_layout *l, struct zoneinfo *out, struct lab_error *err)
{
	struct rec r = { 0 };
	int ret;

	zoneinfo_layout_free(l);
	ret = parse(buf, out, &r, err);
	if (ret == 0 && !r.failed && strlen(buf) <= UINT_MAX / 2) {
		if (layout_cut(buf, strlen(buf), &r, l) == 0)
			memcpy(l->base, out, sizeof(*out));
		else
			zoneinfo_layout_free(l);
	}
	free(r.at);
	free(r.slot);
	return ret;
}

static bool set_slot(struct zoneinfo *out, const struct zl_slot *sl, unsigned long long v)
{
	struct zone_info *z = &out->zones[sl->zone];

	switch (sl->field) {
	case F_FREE: z->free = v; break;
	case F_BOOST: z->boost = v; break;
	case F_MIN: z->min = v; break;
	case F_LOW: z->low = v; break;
	case F_HIGH: z->high = v; break;
	case F_SPANNED: z->spanned = v; break;
	case F_PRESENT: z->present = v; break;
	case F_MANAGED: z->managed = v; break;
	case F_CMA: z->cma = v; break;
	case F_PROTECTION: z->protection[sl->idx] = v; break;
	case F_THRESHOLD:
		if (v > 1u << 20)
			return false;   /* the strict parse's error */
		if (v > z->stat_threshold)
			z->stat_threshold = v;
		z->nr_threshold_cpus++;
		z->drift += v;
		break;
	default: break;
	}
	return true;
}

bool zoneinfo_parse_fast(const char *buf, size_t len, const struct zoneinfo_layout *l, struct zoneinfo *out)
{
	const char *p = buf, *end = buf + len;

	if (l->base == NULL)
		return false;
	out->n = l->base->n;
	memcpy(out->zones, l->base->zones, l->base->n * sizeof(out->zones[0]));
	for (size_t i = 0; i < out->n; i++) {
		out->zones[i].stat_threshold = 0;
		out->zones[i].nr_threshold_cpus = 0;
		out->zones[i].drift = 0;
	}
	for (size_t s = 0;; s++) {
		size_t n = l->seg_len[s];
		unsigned long long v = 0;
		const char *q;

		if ((size_t)(end - p) < n || memcmp(p, l->text + l->seg_off[s], n) != 0)
			return false;
		p += n;
		if (s == l->nr_marks)
			break;
		if (p == end || !lex_is_digit(*p))
			return false;
		for (q = p; q < end && lex_is_digit(*q); q++)
			v = v * 10 + (unsigned long long)(*q - '0');
		if (l->slot[s].field != F_IGNORED && (q - p > 18 || !set_slot(out, &l->slot[s], v)))
			return false;   /* a number the strict parse may refuse */
		p = q;
	}
	if (p != end)
		return false;
	/* Which lines a zone must have depends on whether it is populated. */
	for (size_t i = 0; i < out->n; i++)
		if ((out->zones[i].present > 0) != (l->base->zones[i].present > 0))
			return false;
	return true;
}

bool zoneinfo_equal(const struct zoneinfo *a, const struct zoneinfo *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct zone_info *x = &a->zones[i], *y = &b->zones[i];

		if (x->node != y->node || strcmp(x->name, y->name) != 0 || x->free != y->free ||
		    x->boost != y->boost || x->min != y->min || x->low != y->low || x->high != y->high ||
		    x->spanned != y->spanned || x->present != y->present || x->managed != y->managed ||
		    x->cma != y->cma || x->nr_protection != y->nr_protection ||
		    memcmp(x->protection, y->protection, x->nr_protection * sizeof(x->protection[0])) != 0 ||
		    x->stat_threshold != y->stat_threshold || x->nr_threshold_cpus != y->nr_threshold_cpus ||
		    x->drift != y->drift)
			return false;
	}
	return true;
}
