/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fit/internal.h — what the fit's files share (harness/fit/ only; the public
 * interface is fit.h). */
#ifndef PAGELAB_FIT_INTERNAL_H
#define PAGELAB_FIT_INTERNAL_H

#include <limits.h>
#include <stdbool.h>

#include "fit.h"

/* One fit as it goes. */
struct fit_ctx {
	const struct fit_opts *o;
	const struct lab_progress *prog;
	unsigned repeat, max_probes;
	unsigned long long resolution, granule;
	unsigned long long base_quota;
	bool unconstrained;
	char setbuf[64];                /* the --set KEY=QUOTA of the probe being planned */
	char out[PATH_MAX];             /* the document */
	char tmpdir[PATH_MAX];          /* the probes' own results, until merged (mkdtemp) */
	bool tmp_made;
	json_t *doc;                    /* the document, from the first probe's on */
	json_t *probes;                 /* doc.fit.probes (borrowed) */
	const json_t *base;             /* the base's record (borrowed) */
	unsigned nprobes;
	/* How it ends: the first failure decides. */
	enum run_end end;
	bool failed;
	struct lab_error err;
};

/* check.c: the options and the scenario, before anything runs; fills the
 * repeat, probes, resolution, base and the document's path. */
int fit_check(struct fit_ctx *f, struct lab_error *err);

/* The plan at KEY=quota (check.c): one variant whose [sandbox] reads it. */
int fit_plan(struct fit_ctx *f, unsigned long long quota, struct run_plan *p, struct run_opts *ro,
	     struct lab_error *err);
void fit_set_text(enum fit_key k, unsigned long long q, char *buf, size_t len);

/* probe.c: one probe's repeats run through the pipeline into the private
 * directory, its runs moved into the document (label, variant), its record
 * judged and appended.  *rec borrowed from doc.fit.probes.  Returns how the
 * pipeline ended (err for a refusal or failure). */
enum run_end fit_probe(struct fit_ctx *f, unsigned long long quota, bool is_base, const json_t **rec,
		       struct lab_error *err);
void fit_probe_cleanup(struct fit_ctx *f);


#endif
