/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl.h — each workload's options and steps, declared once.
 *
 * A workload's declaration (workloads/decl/NAME.c, listed one line each in
 * workloads/decl/list.h) names its options — the scenario key, the command
 * line flag, the type — and, for a stepped workload, its steps with the
 * types of their ':'-separated arguments.  The scenario parser
 * (harness/plan/scenario.c) types a [workload] section and its `steps` with it;
 * the workload's own argument parser is driven by the same declaration
 * (wl_parse_argv, wl_step_parse), so a new step or option is one row here and
 * its case in the workload (docs/extending.md, "a step").  Pure except
 * wl_advice_probe.
 */
#ifndef PAGELAB_WL_DECL_H
#define PAGELAB_WL_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/error.h"

/* Value types; the scenario parser's own checks (harness/plan/scenario.c typed()). */
enum wl_type {
	WT_SIZE,                /* bytes, may be 0 */
	WT_POSITIVE_SIZE,       /* bytes, > 0 */
	WT_BYTE,                /* 0..255: 0xA5 */
	WT_UINT,
	WT_POSITIVE_UINT,
	WT_BOOL,
	WT_ENUM,                /* one of enums "a|b|c": the value is its index */
	WT_MEM,                 /* a positive size of memory the workload takes */
	WT_ADVICE,              /* a madvise(2) advice of this step's rows in decl.c's advice table */
	WT_TEXT,                /* free text, passed as written (jemalloc's MALLOC_CONF, a directory) */
};

#define WL_MAX_STEP_ARGS 3

struct wl_opt {
	const char *key;        /* [workload] key: "size" */
	const char *flag;       /* command line: "--size" (NULL: built by the parser, e.g. steps) */
	enum wl_type type;
	const char *enums;
	bool required;
	const char *help;
};

struct wl_step {
	int id;                 /* the workload's own switch value */
	const char *name;       /* "advise" */
	int nargs;              /* arguments always given */
	int nopt;               /* optional arguments after them (advise:free[:64M]) */
	enum wl_type args[WL_MAX_STEP_ARGS];
	const char *enums;      /* of the first WT_ENUM argument */
	const char *help;       /* "advise:ADVICE[:SIZE]  madvise the region (or its first SIZE)" */
};

struct wl_decl {
	const char *program;
	const char *summary;
	const struct wl_opt *opts;      /* NULL-key terminated */
	const struct wl_step *steps;    /* NULL-name terminated; NULL: no steps */
	/* Options of the command line only, for a person running the workload
	 * by hand: no scenario key (the harness never passes them).  NULL-key
	 * terminated; NULL: none. */
	const struct wl_opt *argv_opts;
};

/* Each workload's declaration: wl_decl_region, wl_decl_hold, … */
#define WL(name) extern const struct wl_decl wl_decl_##name;
#include "workloads/decl/list.h"
#undef WL

/* Every workload (workloads/decl/list.h), NULL-terminated. */
extern const struct wl_decl *const wl_decls[];

const struct wl_decl *wl_decl_find(const char *program);
const struct wl_opt *wl_opt_find(const struct wl_decl *d, const char *key);
const struct wl_step *wl_step_find(const struct wl_decl *d, const char *name);

/* "a, b, c" of the programs, of d's keys, of d's step names. */
void wl_decl_programs(char *buf, size_t len);
void wl_decl_step_names(const struct wl_decl *d, char *buf, size_t len);

/* Type one value (the workload side: sizes as the harness wrote them).
 * WT_ENUM: *out is the index in enums.  0 or -EINVAL with err. */
int wl_parse_value(enum wl_type t, const char *enums, const char *text, unsigned long long *out,
		   struct lab_error *err);

/* A step as written ("advise:free:64M"), split and typed. */
struct wl_step_value {
	const struct wl_step *step;
	int nargs;                              /* given */
	const char *text[WL_MAX_STEP_ARGS];     /* pointers into buf */
	unsigned long long v[WL_MAX_STEP_ARGS];
	char buf[160];
};
int wl_step_parse(const struct wl_decl *d, const char *text, struct wl_step_value *out,
		  struct lab_error *err);

/* Is argv[*i] one of d's options or argv_opts ("--size V", "--size=V", or a WT_BOOL flag)?
 * 1 with *opt and *val (NULL for a flag) and *i advanced, 0 when not,
 * -EINVAL when its value is missing. */
int wl_opt_match(const struct wl_decl *d, int argc, char **argv, int *i, const struct wl_opt **opt,
		 const char **val, struct lab_error *err);

/* A workload's command line, driven by its declaration: the one option loop
 * every workload shares.  For each argument, in order:
 *   1. pre (when set) may take it: the options every workload has, which are
 *      not scenario keys (--event-fd, --ack-fd: events_argv_pre; hold's and
 *      stepper's signed --oom-score-adj);
 *   2. an argument not starting with "--" goes to operand (region's steps;
 *      without operand it is "ARG: unknown argument");
 *   3. one of d's options or argv_opts (wl_opt_match) is typed with its row
 *      (a bad value: "FLAG: why") and handed to set, with v the value (1 for
 *      a bare WT_BOOL flag; WT_ENUM: its index; WT_TEXT: 0) and text as
 *      written (NULL for a bare flag);
 *   4. anything else is "ARG: unknown argument".
 * Each callback returns 0 (or, for pre, 1: taken) or -errno with err filled;
 * wl_parse_argv returns 0 or the first error.  What a workload checks after
 * (required options, ranges across options) stays in the workload. */
struct wl_argv {
	int (*pre)(void *pre_ctx, int argc, char **argv, int *i, struct lab_error *err);
	void *pre_ctx;
	int (*set)(void *ctx, const struct wl_opt *opt, const char *text, unsigned long long v,
		   struct lab_error *err);
	int (*operand)(void *ctx, const char *arg, struct lab_error *err);
	void *ctx;
};
int wl_parse_argv(const struct wl_decl *d, int argc, char **argv, const struct wl_argv *a,
		  struct lab_error *err);

/* The usage text of d: its options (argv_opts too) and steps, from the declaration. */
void wl_decl_usage(const struct wl_decl *d, FILE *f);

/* madvise(2) advice by step and name: the region's advise:ADVICE and
 * populate:write|read.  A new advice is one row of decl.c's table. */
struct wl_advice {
	const char *step;       /* "advise" */
	const char *name;       /* "pageout" */
	int advice;             /* MADV_PAGEOUT; -1 for none */
	const char *madv;       /* "MADV_PAGEOUT" */
	const char *since;      /* "Linux 5.4" */
};
const struct wl_advice *wl_advice_find(const char *step, const char *name);

/* "free|dontneed|…": the advice names of step, for messages and WT_ENUM-like
 * checks (a static buffer per call site is not needed: it is built once). */
const char *wl_advice_names(const char *step);

/* Does this kernel take the advice?  It is tried on a scratch mapping of
 * our own (never the caller's memory): 0 when it does, -EOPNOTSUPP when the
 * kernel refuses it as unknown (EINVAL), with err naming it. */
int wl_advice_probe(const struct wl_advice *a, struct lab_error *err);

#endif
