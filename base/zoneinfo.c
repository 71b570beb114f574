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
#include <string.h>

#include "lex.h"

/* The per-zone lines read; the index is the bit in the zone's "seen" mask. */
enum {
	F_FREE, F_BOOST, F_MIN, F_LOW, F_HIGH, F_SPANNED, F_PRESENT, F_MANAGED, F_CMA,
	F_PROTECTION, F_COUNT
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

struct parse_state {
	struct zone_info *zone;         /* NULL before the first "Node" line */
	size_t zone_line;
	unsigned int seen;
	bool skipping;                  /* inside "pagesets" */
};

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
			    struct zone_info *z, struct lab_error *err)
{
	unsigned long long val;
	const char *q = lex_skip_blanks(p, eol);

	if (q == eol || *q != '(')
		goto bad;
	q++;
	for (;;) {
		q = lex_skip_blanks(q, eol);
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
		return parse_protection(q, eol, lineno, z, err);

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
static int threshold_line(const char *p, const char *eol, size_t lineno, struct zone_info *z,
			  struct lab_error *err)
{
	static const char key[] = "vm stats threshold:";
	unsigned long long val;
	const char *q;

	p = lex_skip_blanks(p, eol);
	if ((size_t)(eol - p) < sizeof(key) - 1 || memcmp(p, key, sizeof(key) - 1) != 0)
		return 0;
	q = lex_skip_blanks(p + sizeof(key) - 1, eol);
	if (lex_u64(q, 10, &val, &q) < 0 || lex_skip_blanks(q, eol) != eol || val > 1u << 20)
		return lab_error_set(err, EINVAL, "line %zu: zone %s: 'vm stats threshold:' is not followed by one number",
				     lineno, z->name);
	if (val > z->stat_threshold)
		z->stat_threshold = val;
	z->nr_threshold_cpus++;
	z->drift += val;
	return 0;
}

int zoneinfo_parse(const char *buf, struct zoneinfo *out, struct lab_error *err)
{
	struct parse_state st = { 0 };
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
			ret = threshold_line(p, eol, lineno, st.zone, err);
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
