/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report/internal.h — what the report's files share and nothing else sees.
 *
 *   values.c   numbers, display buffers, dotted paths into a document
 *   select.c   step selectors and the generic reader of a figure
 *   cells.c    a figure over a column's runs -> a cell
 *   rows.c     a definition's figures -> rows (variants, expansions)
 *   build.c    which documents feed which table; columns; numbering
 *   derived.c  the named derived quantities (getters, labels, texts): the only
 *              C a new table may need, one row per quantity
 *   tables.c   table definitions from JSON data files (tables.md)
 *   format.c   markdown, CSV, JSON
 *   load.c     the public report_* calls: documents, table files, reference
 */
#ifndef PAGELAB_REPORT_INTERNAL_H
#define PAGELAB_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "base/error.h"
#include "base/paths.h"
#include "report.h"
#include "result/keys.h"

#ifndef PAGELAB_SOURCE_DIR
#define PAGELAB_SOURCE_DIR "."
#endif

#define RESULT_SCHEMA RESULT_SCHEMA_ID
#define REFERENCE_SCHEMA "pagelab.reference/1"
#define REPORT_SCHEMA "pagelab.report/1"
#define TABLES_SCHEMA "pagelab.tables/1"
#define MISSING "—"
#define TEXT_MAX REPORT_TEXT_MAX
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------- definitions */

enum cell_kind {
	K_AGG = 0,      /* "median": median over runs, min–max when they differ */
	K_LIST,         /* "runs": every run's value, in order: "334 / 334 / 335 MiB" */
	K_COUNT,        /* "count": a label per run, counted: "OOM-kill (137) 3/3" */
	K_TEXT,         /* "text": one text per column from a named text function */
	K_MIN,          /* "min", "max", "first", "last": one value over the runs */
	K_MAX,
	K_FIRST,
	K_LAST,
};

/* Within a run, a figure read from the samples instead of one record. */
enum sample_take { S_NONE = 0, S_FIRST, S_LAST, S_MIN, S_MAX, S_DELTA };

enum rounding { R_NONE = 0, R_FLOOR, R_NEAREST };

struct runref;
struct fig;
typedef bool (*fig_get)(const struct runref *r, const struct fig *f, double *out);
typedef void (*fig_label)(const struct runref *r, const struct fig *f, char *buf, size_t len);
typedef void (*fig_text)(const struct runref *const *runs, size_t n, const struct fig *f,
			 char *buf, size_t len);

/* Expansions done when a table is built, from what the runs hold. */
enum each_kind { E_NONE = 0, E_INDEX, E_STEP, E_ZONE, E_METRIC };

/* One row of a table definition (a "figure"). */
struct fig {
	const char *row;                /* the row's label; NULL = none */
	const char *what;               /* the figure's name */
	enum cell_kind kind;
	fig_get get;                    /* numeric kinds; NULL = the generic reader */
	fig_label label;                /* K_COUNT; NULL = the string at path */
	fig_text text;                  /* K_TEXT */
	const char *sel, *path;         /* the number: step selector + path */
	const char *sel2, *path2;       /* the subtrahend ("minus") */
	enum sample_take samples;       /* read the samples from step sel on */
	double div;                     /* 0 = 1 */
	double mul;                     /* 0 = 1 */
	enum rounding round;
	const char *unit;
	const char *better;             /* "higher" | "lower" | "none" | NULL: which way is better */
	const char *fclass;             /* "count" | "timing" | NULL: compare decides by the unit */
	const char *ref;                /* reference path; "/..." from the document root */
	const char *const *if_variant;  /* only in these variants (NULL: all) */
	size_t nif;
	const char *const *unless_variant;
	size_t nunless;
	bool optional;                  /* left out when no cell has a value */
	/* E_* expansions: this entry stands for the rows `each` finds */
	enum each_kind each;
	const char *each_sel, *each_path;       /* E_INDEX: the array at step each_sel */
	const char *first_ref;                  /* E_INDEX: the reference of the first element */
	const struct fig *sub;                  /* E_STEP, E_ZONE, E_METRIC: the templates, per step / zone / metric */
	size_t nsub;
};

struct vchoice {
	const char *value, *label;
};

struct note_def {
	const char *text;
	const char *if_cgroup;          /* only when a column has this cgroup memory mode */
};

struct tdef {
	const char *id, *name, *row_head, *compare;
	const char *file;               /* the data file */
	const char *article;            /* results/reference/<article>.json; NULL = none */
	const json_t *own_ref;          /* a table's own reference block ("reference": {…}) */
	const char *variant_key;        /* NULL: no variants; "*": every key of runs[].variant */
	bool variant_columns;           /* the variants are columns (within each kernel's), not row groups */
	const struct vchoice *known;
	size_t nknown;
	const struct fig *figs;
	size_t nfigs;
	const struct note_def *notes;
	size_t nnotes;
	bool optional;                  /* left out when it has no row (the loads' table of a run without loads) */
	const char *unsupported_cgroup; /* cells of such columns read unsupported_text */
	const char *unsupported_text;
	bool generic;
	bool measured;                  /* how the runs were measured: every result, printed last, only with a figure */
	bool beside;                    /* from a file beside a scenario: feeds that scenario's results */
	bool everywhere;                /* from --tables: feeds every result given */
	const char *scenario_file;      /* beside: the scenario file it sits beside */
};

/* A loaded table file.  Its strings live as long as doc. */
struct tfile {
	char *path;
	json_t *doc;
	json_t *keep;                   /* merged / expanded row objects the figs point into */
	char **strings;                 /* strings made while loading */
	size_t nstrings;
	struct tdef *tables;
	size_t ntables;
};

int tfile_load(const char *path, bool beside, const char *scenario_file, struct tfile **out,
	       struct lab_error *err);
void tfile_free(struct tfile *tf);
/* The articles' table files: results/reference/tables/ *.json (cwd first, then
 * PAGELAB_SOURCE_DIR), sorted by name; *dir is the directory used. */
int tables_dir(char *dir, size_t len, struct lab_error *err);

/* ---------------------------------------------------------- the model */

struct input {
	const char *path;
	json_t *doc;
	size_t col;                     /* its column in struct report */
	bool fed;                       /* some declared table takes it */
	struct tfile *beside;           /* the tables file beside its scenario, if any */
};

struct colstore {
	struct report_column pub;
	char knobs[96];
	char label[192];
};

struct runref {
	const json_t *run;
	const json_t *host;
	const struct input *in;
	size_t col;
	const char *main;               /* workload whose steps are read; NULL = all */
	struct report_origin origin;
};

struct report {
	struct input *in;
	size_t nin;
	struct colstore *cols;
	size_t ncols;
	struct runref *runs;
	size_t nruns;
	json_t *ref;                    /* the article's reference; NULL = none */
	char ref_path[4096];
	struct tfile **files;           /* every table file loaded */
	size_t nfiles;
	struct report_table *tables;
	size_t nt;
	bool quiet;
	const struct lab_progress *progress;   /* opt->progress: where warnings go */
};

/* ------------------------------------------------------------ values.c */

void bufcat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *str_or(const json_t *j, const char *dflt);
bool json_num(const json_t *j, double *out);
double floor_of(double v);
bool is_whole(double v);
void fmt_num(double v, bool group, char *buf, size_t len);
json_t *json_of_num(double v);
double median_of(double *v, size_t n);
enum walk_agg { WALK_VALUE, WALK_MEDIAN, WALK_COUNT };
const json_t *json_walk(const json_t *j, const char *path, enum walk_agg *agg);
bool path_num(const json_t *obj, const char *path, double *out);

/* ------------------------------------------------------------ select.c */

bool step_is(const json_t *s, const char *workload, const char *name);
const json_t *select_step(const struct runref *r, const char *sel);
double scaled(const struct fig *f, double v);
bool value_at(const struct runref *r, const char *sel, const char *path, double *out);
const json_t *zone_of(const json_t *zones, const char *path, const char **field);
int main_exit_code(const struct runref *r);
/* The generic reader (a figure without "get") and count label (without "label"). */
bool fig_read_plain(const struct runref *r, const struct fig *f, double *out);
void fig_read_label(const struct runref *r, const struct fig *f, char *buf, size_t len);

/* ------------------------------------------------------------- cells.c */

void cell_clear(struct report_cell *c);
/* Fill c from the n runs of its column.  0 or -ENOMEM. */
int cell_fill(struct report_cell *c, const struct fig *f, const struct runref *const *runs, size_t n);
/* The article's figure j as printed; *derived when it says so. */
void cell_article_text(const json_t *j, const char *unit, char *buf, size_t len, bool *derived);
int article_cell(const struct report_row *r, struct report_cell *c);

/* -------------------------------------------------------------- rows.c */

struct variant {
	const char *key;
	char value[96];
	char label[100];
};

/* A table being built: the runs feeding it and a scratch list for a cell. */
struct tctx {
	struct report *rep;
	struct report_table *t;
	const struct tdef *def;
	const json_t *tref;             /* the reference's block for this table */
	const struct runref **feed;
	size_t nfeed;
	const struct runref **pick;     /* scratch, nfeed long */
	size_t cap;                     /* rows allocated */
	const struct variant **colvar;  /* per table column: its variant (variants as columns), or NULL */
	struct variant *vars;           /* what colvar points into */
};

bool run_in_variant(const struct runref *r, const struct variant *v);
int table_note(struct report_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The rows of figs for variant v (NULL: every run), expansions expanded. */
int add_figs(struct tctx *c, const struct fig *figs, size_t n, const struct variant *v, struct lab_error *err);
/* The variants of the table's key (its known ones first), at most max. */
size_t collect_variants(const struct tctx *c, struct variant *out, size_t max);
/* The rows for each variant (once when there is none). */
int for_variants(struct tctx *c, struct lab_error *err);

/* ------------------------------------------------------------- build.c */

/* Table building: the tables a report has, in number order. */
int report_build(struct report *rep, struct tdef *const *defs, size_t ndefs, struct lab_error *err);
void report_table_free(struct report_table *t);
/* Whether the document feeds declared table d (the generic report aside). */
bool engine_feeds(const struct input *in, const struct tdef *d);
const json_t *ref_machine(const struct report *rep, const struct report_table *t);
const json_t *table_ref(const struct report *rep, const struct report_table *t);

/* ------------------------------------------------------------ derived */

struct named_get {
	const char *name;
	fig_get fn;
	const char *doc;
};
struct named_label {
	const char *name;
	fig_label fn;
	const char *doc;
};
struct named_text {
	const char *name;
	fig_text fn;
	const char *doc;
};

fig_get derived_get(const char *name);
fig_label derived_label(const char *name);
fig_text derived_text(const char *name);
/* For the loader's error message: the names, comma-separated. */
void derived_names(char *buf, size_t len);

/* ------------------------------------------------------------ formats */

int format_write(const struct report *rep, enum report_format fmt, FILE *o, struct lab_error *err);

#endif
