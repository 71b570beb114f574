/* SPDX-License-Identifier: GPL-2.0-or-later */
/* scn.h — what the scenario's three files share (harness/plan/ only; the
 * public interface is scenario.h):
 *
 *   parse.c        text -> struct scenario: sections and "key = value" items
 *                  as written, with their positions; --set overrides
 *   typecheck.c    the words of a value, ${} substitution (a variant's
 *                  matrix values, then the parameters) and the types
 *                  (size, byte, count, bool, enum, memory), each error naming
 *                  file, line, column and where a substituted value came from
 *   instantiate.c  one variant -> struct run_spec, typed against every
 *                  stage's table (sandbox settings, workload declarations,
 *                  knobs, trace groups)
 */
#ifndef PAGELAB_PLAN_SCN_H
#define PAGELAB_PLAN_SCN_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"
#include "workloads/decl.h"

/* ---- words and messages (typecheck.c) -------------------------------------- */

/* strndup/strdup that abort on a failed allocation (inputs are capped at
 * LAB_SCENARIO_MAX: a failure here is the machine's, not the input's). */
char *scn_strndup(const char *s, size_t n);
char *scn_strdup(const char *s);

/* "FILE:LINE:COL: what" (line 0: "FILE: what"), -EINVAL. */
int scn_perr(struct lab_error *err, const char *file, struct scn_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* [a-z_][a-z0-9_]* */
bool scn_is_ident(const char *s);

/* yes/true/on/1, no/false/off/0.  0 or -EINVAL. */
int scn_parse_bool(const char *v, bool *out);

/* A value split into blank-separated words, each with its column. */
struct scn_tokens {
	size_t n;
	char *tok[SCN_MAX_ARGS];
	int col[SCN_MAX_ARGS];
};

/* 0, or -E2BIG for more than SCN_MAX_ARGS words (then none is kept). */
int scn_tokenize(const char *v, int col0, struct scn_tokens *t);
void scn_tokens_free(struct scn_tokens *t);

/* The item of key in sec, or NULL (parse.c). */
const struct scn_item *scn_section_get(const struct scn_section *sec, const char *key);

/* ---- one variant: substitution and types (typecheck.c) --------------------- */

struct scn_inst {
	const struct scenario *s;
	size_t nr_var;
	const char *var_key[SCN_MAX_MATRIX];
	const char *var_val[SCN_MAX_MATRIX];
	const struct scn_dim *var_dim[SCN_MAX_MATRIX];
	struct lab_error *err;
};

struct scn_expanded {
	char text[1024];
	char origin[256];       /* where a substituted value came from, "" if none */
};

/* An error at pos, naming where x's substituted value came from. */
int scn_inst_err(struct scn_inst *in, struct scn_pos pos, const struct scn_expanded *x, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The variant's value of ${name} (a matrix value first, then a parameter),
 * origin saying where it was set; NULL when there is none. */
const char *scn_lookup(struct scn_inst *in, const char *name, char *origin, size_t olen);

/* raw with every ${name} substituted, into x. */
int scn_expand(struct scn_inst *in, const char *raw, struct scn_pos pos, struct scn_expanded *x);

/* K_MEM: a positive size of memory a workload takes (a region, a ballast, a
 * pressure, a stepper's step or target, a cache file): never more than the
 * machine could ever hold (scenario.machine_bytes). */
enum scn_kind {
	K_SIZE = WT_SIZE, K_POSITIVE_SIZE = WT_POSITIVE_SIZE, K_BYTE = WT_BYTE, K_UINT = WT_UINT,
	K_POSITIVE_UINT = WT_POSITIVE_UINT, K_BOOL = WT_BOOL, K_ENUM = WT_ENUM, K_MEM = WT_MEM,
};

/* Type one expanded word (field names the thing for the message). */
int scn_typed(struct scn_inst *in, const char *field, const char *word, enum scn_kind k, const char *enums,
	      struct scn_pos pos, const struct scn_expanded *x, unsigned long long *out);

/* A command's words (harness/plan/scenario.md, "Words"): split on blanks;
 * "..." and '...' group; a backslash takes the next character literally
 * (outside quotes; inside double quotes before " \ $ # only); ${name}
 * substituted outside single quotes, its value one piece of its word (never
 * split, its quotes literal, no control character); ${dir} kept as
 * SCN_DIR_MARK.  At most SCN_MAX_ARGS - 1 words of at most 1023 bytes.
 * Errors name the item's key (what: "[workload svc] command"). */
struct scn_words {
	size_t n;
	char *w[SCN_MAX_ARGS];
	int col[SCN_MAX_ARGS];
	char origin[256];               /* where a substituted value came from, "" if none */
};

int scn_words(struct scn_inst *in, const char *what, const struct scn_item *it, struct scn_words *out);
void scn_words_free(struct scn_words *w);

/* ---- foreign programs (command.c) ------------------------------------------ */

/* [workload NAME] with command = (instantiate.c hands it over). */
int scn_command_workload(struct scn_inst *in, size_t idx, struct run_workload *w);

/* [load NAME] idx of the variant r. */
int scn_load_inst(struct scn_inst *in, size_t idx, struct run_spec *r);

/* What holds across a variant's foreign programs: loads drive a command
 * main workload, one user for all of them, no parameter named dir. */
int scn_foreign_check(struct scn_inst *in, struct run_spec *r);

void scn_exec_free(struct cmd_exec *x);

/* An item's value, substituted and typed: "WHAT KEY" in messages. */
int scn_typed_item(struct scn_inst *in, const char *what, const struct scn_item *it, enum scn_kind k,
		   const char *enums, unsigned long long *out, struct scn_expanded *x);

#endif
