/* SPDX-License-Identifier: GPL-2.0-or-later */
/* psi.c — source "psi": the machine's memory pressure stall information,
 * /proc/pressure/memory (kernel/sched/psi.c: psi_show):
 *
 *   some avg10=0.07 avg60=0.30 avg300=0.10 total=437033
 *   full avg10=0.05 avg60=0.20 avg300=0.06 total=336235
 *
 * "some": the share of wall time at least one task stalled on memory, "full":
 * all non-idle tasks did; averages over 10/60/300 s in percent, total in µs
 * since boot.  JSON: {"some": {"avg10", "avg60", "avg300", "total_us"},
 * "full": {…}}.  The parser is shared with the sandbox's memory.pressure
 * (sources/memcg_pressure.c), which prints the same lines.  O(1): every tick.
 * A kernel booted with psi=0 answers EOPNOTSUPP: the source is then absent. */
#include "source.h"

#include <errno.h>
#include <string.h>

#include "base/fileio.h"
#include "base/lex.h"

struct psi_line {
	bool seen;
	unsigned long long avg_centi[3];        /* avg10, avg60, avg300 in 1/100 % */
	unsigned long long total_us;
};

struct psi {
	struct psi_line some, full;
};

/* "0.07" -> 7: the kernel prints LOAD_INT.LOAD_FRAC with two digits. */
static int centi(const char *p, const char **end)
{
	unsigned long long i;
	const char *e;

	if (lex_u64(p, 10, &i, &e) < 0 || *e != '.' || !lex_is_digit(e[1]) || !lex_is_digit(e[2]) ||
	    lex_is_digit(e[3]) || i > 100)
		return -1;
	*end = e + 3;
	return (int)(i * 100 + (unsigned long long)(e[1] - '0') * 10 + (unsigned long long)(e[2] - '0'));
}

static int psi_parse_struct(const char *buf, struct psi *out, struct lab_error *err)
{
	static const char *const avg[] = { "avg10=", "avg60=", "avg300=" };
	int line = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = buf; *p != '\0'; p = lex_next_line(lex_line_end(p))) {
		const char *eol = lex_line_end(p), *q;
		struct psi_line *l;

		line++;
		if (p == eol)
			continue;
		if (strncmp(p, "some ", 5) == 0)
			l = &out->some;
		else if (strncmp(p, "full ", 5) == 0)
			l = &out->full;
		else
			return lab_error_set(err, EINVAL, "pressure line %d: expected 'some' or 'full'", line);
		if (l->seen)
			return lab_error_set(err, EINVAL, "pressure line %d: a second '%.4s' line", line, p);
		q = p + 5;
		for (int i = 0; i < 3; i++) {
			size_t n = strlen(avg[i]);
			int c;

			if ((size_t)(eol - q) < n || strncmp(q, avg[i], n) != 0 ||
			    (c = centi(q + n, &q)) < 0 || (*q != ' ' && q != eol))
				return lab_error_set(err, EINVAL, "pressure line %d: expected %sN.NN", line, avg[i]);
			l->avg_centi[i] = (unsigned long long)c;
			q = lex_skip_blanks(q, eol);
		}
		if ((size_t)(eol - q) < 6 || strncmp(q, "total=", 6) != 0 ||
		    lex_u64(q + 6, 10, &l->total_us, &q) < 0 || q != eol)
			return lab_error_set(err, EINVAL, "pressure line %d: expected total=N at its end", line);
		l->seen = true;
	}
	if (!out->some.seen)
		return lab_error_set(err, EINVAL, "pressure: no 'some' line");
	return 0;
}

static void line_emit(struct jw *w, const struct psi_line *l)
{
	static const char *const k[] = { "avg10", "avg60", "avg300" };

	jw_obj(w);
	for (int i = 0; i < 3; i++) {
		jw_key(w, k[i]);
		jw_fixed(w, l->avg_centi[i], 2);      /* (double)centi / 100.0 */
	}
	jw_key_lit(w, "total_us");
	jw_i64(w, (long long)l->total_us);
	jw_obj_end(w);
}

/* The file's text -> its value at w: the tick's path and the parser's
 * (shared with memcg_pressure). */
int source_psi_emit(const char *buf, struct jw *w, struct lab_error *err);
int source_psi_emit(const char *buf, struct jw *w, struct lab_error *err)
{
	struct psi p;
	int ret;

	if ((ret = psi_parse_struct(buf, &p, err)) < 0)
		return ret;
	jw_obj(w);
	jw_key_lit(w, "some");
	line_emit(w, &p.some);
	if (p.full.seen) {
		jw_key_lit(w, "full");
		line_emit(w, &p.full);
	}
	jw_obj_end(w);
	return 0;
}

int source_psi_parse(const char *buf, size_t len, json_t **out, struct lab_error *err);
int source_psi_parse(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	struct jw w = { 0 };
	int ret;

	(void)len;
	if ((ret = source_psi_emit(buf, &w, err)) < 0) {
		jw_free(&w);
		return ret;
	}
	return source_emitted(&w, out, err);
}

static int psi_emit(struct source_ctx *ctx, void *state, struct jw *w, struct lab_error *err)
{
	const char *buf;
	int ret;

	(void)state;
	if ((ret = source_read(ctx, "/proc/pressure/memory", &buf, err)) < 0)
		return ret;
	return source_psi_emit(buf, w, err);
}

static int psi_open(struct source_ctx *ctx, void *state, struct lab_error *err)
{
	struct jw w = { 0 };
	int ret = psi_emit(ctx, state, &w, err);

	jw_free(&w);
	return ret;
}

const struct source source_psi = {
	.name = "psi",
	.where = SOURCE_MACHINE,
	.cadence = SOURCE_TICK,
	.files = "/proc/pressure/memory",
	.fixture = "proc-pressure-memory",
	.doc = "machine-wide memory PSI: some/full avg10, avg60, avg300 (%) and total_us",
	.parse = source_psi_parse,
	.open = psi_open,
	.emit = psi_emit,
};
