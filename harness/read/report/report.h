/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.h — the report library (labreport): result documents into the
 * article tables, a scenario's own tables or the generic report, written as
 * markdown, CSV or JSON into a FILE the caller gives.  `pagelab report`
 * (harness/cmd/report.c) is one caller; run, vm, compare and the HTML page
 * (harness/read/html.h) are others.  It never prints on its own: warnings go
 * to report_options.progress, errors come back as -errno with a lab_error.
 *
 * Every result document given (harness/result/result.md, "pagelab.result/1") feeds
 * the tables its scenario names in "scenario.report" and the tables of the
 * data file beside its scenario (<scenario without .scn>.tables.json); a
 * document that feeds none gets the generic report (outcome, steps,
 * summaries).  Tables are data (harness/read/report/tables.md): the articles' in
 * results/reference/tables/<article>.json, next to the articles' figures in
 * results/reference/<article>.json.  Runs are grouped into one column per
 * (host.kernel, host.cgroup.memory, machine-wide --set knobs); a column's
 * figure is the median over its repeats, with min–max when they differ.
 *
 * ------------------------------------------------------------ the model
 *
 * For a set of result documents, report_load() builds every table the CLI
 * would print: rows × columns, each cell with its display text AND the
 * per-run numbers behind it, so `pagelab compare` or an HTML page can do
 * their own statistics without parsing text:
 *
 *     struct report_options opt = {0};        // defaults: as `pagelab report` does
 *     struct report *rep;
 *     struct lab_error err;
 *
 *     if (report_load(files, nfiles, &opt, &rep, &err) < 0)
 *             ...   // err.msg; err.code ENOMEM: internal (exit 1), else bad input (exit 2)
 *     for (size_t t = 0; t < report_ntables(rep); t++) {
 *             const struct report_table *tb = report_table_at(rep, t);
 *             for (size_t r = 0; r < tb->nrows; r++)
 *                     for (size_t c = 0; c < tb->ncols; c++) {
 *                             const struct report_cell *cell = &tb->rows[r].cells[c];
 *                             for (size_t i = 0; i < cell->nvalues; i++)
 *                                     if (cell->present[i])
 *                                             use(cell->values[i], cell->origin[i]);
 *                     }
 *     }
 *     report_write(rep, REPORT_MARKDOWN, stdout, &err);   // what `pagelab report` prints
 *     report_free(rep);
 *
 * Stability: fields are only ever added to these structs, never renamed or
 * retyped; everything is owned by the struct report and valid until
 * report_free().  A table's id, a row's (label, figure) pair and a column's
 * (kernel, cgroup, knobs, variant) identify the same figure across two
 * reports, which is what a comparison of two sets of results matches on.
 * The generic report's tables (generic = true: ids generic-outcome,
 * generic-steps, generic-summary, one set per scenario) put the variants in
 * columns (report_column.variant); the articles' tables put them in row
 * groups (report_row.variant).
 */
#ifndef PAGELAB_REPORT_H
#define PAGELAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "base/error.h"
#include "base/progress.h"

#define REPORT_TEXT_MAX 256
#define REPORT_COL_TEXT 512

struct tdef;

enum report_format { REPORT_MARKDOWN, REPORT_CSV, REPORT_JSON };

struct report_options {
	const char *reference;          /* --reference FILE; NULL = results/reference/<article>.json */
	const char *const *tables;      /* --tables FILE...: more table files, searched first */
	size_t ntables;
	bool quiet;                     /* no warnings at all (unknown tables, a stream read, …) */
	const struct lab_progress *progress;   /* where the warnings go (LAB_SAY_WARN, one line
						* each, naming the file); NULL: dropped */
};

/* One run behind a value: which document, which run in it. */
struct report_origin {
	const char *file;               /* the result document's path as given */
	size_t run;                     /* index in its runs[] */
	const char *label;              /* runs[].label: "A" */
	int repeat;                     /* runs[].repeat: 1.. */
};

/* One column of the host's figures: a kernel, a cgroup memory mode, the
 * machine-wide knobs its runs set with --set (lru_gen=…). */
struct report_column {
	const char *kernel;             /* host.kernel */
	const char *cgroup;             /* host.cgroup.memory: v1 | v2 | none | ? */
	bool guest;                     /* host.in_vm_guest */
	const char *knobs;              /* "" when none */
	const char *label;              /* "6.18.44 · cgroup v1", as printed */
	size_t index;                   /* among all the report's columns: the same in every table */
	const char *variant;            /* a table with variants as columns: this column's variant
					 * value ("free"), its label then "… · MADV_FREE"; else NULL */
};

/* A cell.  Numeric rows (kind median, runs, min, max, first, last) have one
 * value slot per run feeding the cell, in run order (documents in the order
 * given, runs in document order); present[i] is false where that run lacks
 * the figure (printed "—").  Count and text rows have nvalues 0.  The
 * article's cell (struct report_row.article) holds the article's numbers
 * the same way, origin NULL. */
struct report_cell {
	char text[REPORT_TEXT_MAX];     /* as printed ("—": not measured) */
	size_t runs;                    /* runs feeding the cell; 0 = no run in this column */
	size_t nvalues;
	double *values;
	bool *present;
	const struct report_origin **origin;
	size_t have;                    /* how many present */
	double median, min, max;        /* over the present values; valid when have > 0 */
};

struct report_row {
	char label[128];                /* "THP off · After pressure" */
	char figure[160];               /* "Region Rss" */
	const char *unit;               /* "kB", "pages", NULL */
	const char *better;             /* "higher", "lower", "none" (a load's metric), NULL: not said */
	const char *fclass;             /* "count", "timing" (declared), NULL: compare goes by the unit */
	const char *variant;            /* the variant value of the row's group ("off"); NULL when none */
	const char *kind;               /* median | runs | count | text | min | max | first | last */
	struct report_cell *cells;      /* one per table column */
	struct report_cell article;     /* the article's figure; text "—" when none */
	const json_t *article_json;     /* as stored in the reference; NULL when none */
	bool derived;                   /* the article's figure is derived, not printed there */
};

struct report_table {
	const char *id;                 /* "pressure", "generic-steps" */
	const char *name;
	const char *row_head;           /* the first column's heading */
	const char *compare;            /* what to compare, one sentence */
	const char *source;             /* the data file that declared it */
	size_t number;                  /* 1.., as printed */
	bool generic;                   /* the generic report (no table declared) */
	bool measured;                  /* how the runs were measured (tables.md: "measured") */
	const char *scenario;           /* generic: the scenario's name; NULL otherwise */
	bool has_article;               /* an article column is printed */
	const char *article_col;        /* its heading */
	const char *article_section, *article_table;   /* may be NULL */
	size_t ncols;
	struct report_column *cols;
	size_t *colruns;                /* runs per column */
	size_t nrows;
	struct report_row *rows;
	size_t nnotes;
	char **notes;
	const struct tdef *def;         /* private: the definition it was built from */
	char *col_text;                 /* private: the variant columns' labels */
};

struct report;

/* Loads the documents (each must be a pagelab.result/1 document), the
 * tables they feed and the reference, and builds every table with data.
 * Errors: EINVAL / ENOENT for bad or missing input (the CLI's exit 2), others
 * internal (exit 1). */
int report_load(const char *const *files, size_t nfiles, const struct report_options *opt,
		struct report **out, struct lab_error *err);
/* One result document (or a run's .jsonl stream) loaded as report_load
 * loads it: its samples pruned to what every table that could read it
 * reads (the articles', opt's --tables, the file beside its scenario;
 * harness/result/read.h) — for a caller that hands the document, or a copy,
 * to report_load again (compare).  opt may be NULL.  Says nothing on
 * stderr (a stream's note is the caller's).  0 or -errno. */
int report_read_result(const char *path, const struct report_options *opt, json_t **out, struct lab_error *err);
/* What else differs between two sets of results (fingerprint.c): every field
 * of their host.fingerprint whose text is not the same on both, besides what
 * `by` (compare's --by KEY; NULL: none) compares; a knob a run set is that
 * run's value of its field.  {"base": had one, "new": had one, "different":
 * [{"field", "base", "new"}]}; NULL: out of memory. */
json_t *report_fingerprint_diff(json_t *const *bdocs, size_t nb, json_t *const *ndocs, size_t nn, const char *by);
size_t report_ntables(const struct report *rep);
const struct report_table *report_table_at(const struct report *rep, size_t i);
/* The reference document used (NULL when no table has an article) and its path. */
const json_t *report_reference(const struct report *rep, const char **path);
int report_write(const struct report *rep, enum report_format fmt, FILE *o, struct lab_error *err);
void report_free(struct report *rep);

/* report_load, report_write into o, report_free: what `pagelab report
 * FILE...` prints (and `pagelab run` after a run).  0 or -errno: ENOMEM and
 * a failed write are internal (exit 1), the rest bad input (exit 2). */
int report_write_files(const char *const *files, size_t nfiles, const struct report_options *opt,
		       enum report_format fmt, FILE *o, struct lab_error *err);

#endif
