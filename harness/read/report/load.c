/* SPDX-License-Identifier: GPL-2.0-or-later */
/* load.c — the public report_* calls (report.h): read the result
 * documents, find the tables they feed, load the reference, build.  What a
 * user should know on the way (an unknown table, a run's stream read
 * instead of its document) goes to the caller's progress sink, never to a
 * terminal of its own.
 */
#include "internal.h"

#include "base/fileio.h"
#include "base/progress.h"
#include "result/keys.h"
#include "result/read.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --------------------------------------------------------------- inputs */

static int load_json(const char *path, const char *schema, json_t **out, struct lab_error *err)
{
	json_error_t je;
	cleanup_free char *text = NULL;
	size_t len = 0;
	const char *s;
	int ret;

	ret = lab_read_input(path, strcmp(schema, RESULT_SCHEMA) == 0 ? "result" : "reference",
			     LAB_RESULT_MAX, 0, &text, &len, err);
	if (ret < 0)
		return ret;
	*out = json_loadb(text, len, 0, &je);
	if (*out == NULL)
		return lab_error_set(err, EINVAL, "%s: not JSON: %s (line %d, column %d)", path, je.text,
				     je.line, je.column);
	s = json_string_value(json_object_get(*out, RK_SCHEMA));
	if (s == NULL || strcmp(s, schema) != 0)
		return lab_error_set(err, EINVAL, "%s: not a %s document (schema: %s)", path, schema,
				     s != NULL ? s : "none");
	return 0;
}

/* What of a sample the tables read (result_read.h): every figure's paths
 * that are read over the samples, and the zones when a table has rows per
 * zone.  A figure at a step or at "sample:last" reads no pruned sample (the
 * last one stays whole); derived.c's getters read only the last sample. */
static int figs_need(const struct fig *figs, size_t n, struct result_need *need, struct lab_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct fig *f = &figs[i];

		if (f->each == E_ZONE)         /* rows.c expand_zones: every zone with managed pages */
			rc = result_need_add(need, "zones[zone=,node=].managed", err);
		if (rc == 0 && f->samples != S_NONE && f->path != NULL)
			rc = result_need_add(need, f->path, err);
		if (rc == 0 && f->samples != S_NONE && f->path2 != NULL)
			rc = result_need_add(need, f->path2, err);
		if (rc == 0 && f->sub != NULL)
			rc = figs_need(f->sub, f->nsub, need, err);
	}
	return rc;
}

/* The overrides that change what machine the run had, not what it ran: a
 * knob's parameter set with --set (e.g. lru_gen=0x0000) makes another column;
 * sizes (--set cache=...) do not. */
static void machine_overrides(const json_t *doc, char *buf, size_t len)
{
	const json_t *ov = json_object_get(json_object_get(doc, RK_SCENARIO), RK_OVERRIDES);
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < json_array_size(ov); i++) {
		const char *o = str_or(json_array_get(ov, i), "");

		if (strncmp(o, "lru_gen=", 8) == 0)
			bufcat(buf, len, "%s%s", buf[0] ? ", " : "", o);
	}
}

static size_t column_of(struct report *rep, const json_t *doc)
{
	const json_t *host = json_object_get(doc, RK_HOST);
	const char *kernel = str_or(json_object_get(host, RK_KERNEL), "unknown kernel");
	const char *cg = str_or(json_object_get(json_object_get(host, RK_CGROUP), RK_MEMORY), "?");
	bool guest = json_is_true(json_object_get(host, RK_IN_VM_GUEST));
	char knobs[96];
	struct colstore *c;
	size_t i;

	machine_overrides(doc, knobs, sizeof(knobs));
	for (i = 0; i < rep->ncols; i++)
		if (strcmp(rep->cols[i].pub.kernel, kernel) == 0 && strcmp(rep->cols[i].pub.cgroup, cg) == 0 &&
		    strcmp(rep->cols[i].knobs, knobs) == 0)
			return i;
	c = &rep->cols[rep->ncols];
	snprintf(c->knobs, sizeof(c->knobs), "%s", knobs);
	snprintf(c->label, sizeof(c->label), "%s · cgroup %s%s%s%s", kernel, cg, guest ? " · guest" : "",
		 knobs[0] ? " · " : "", knobs);
	c->pub.kernel = kernel;
	c->pub.cgroup = cg;
	c->pub.guest = guest;
	c->pub.knobs = c->knobs;
	c->pub.label = c->label;
	c->pub.index = rep->ncols;
	return rep->ncols++;
}

/* The workload whose steps the tables read: "region" when the run has its
 * steps, else every step (e.g. the host scan, whose region is "control"). */
static const char *main_workload(const json_t *run)
{
	const json_t *steps = json_object_get(run, RK_STEPS);
	size_t i;

	for (i = 0; i < json_array_size(steps); i++)
		if (step_is(json_array_get(steps, i), "region", NULL))
			return "region";
	return NULL;
}

static int index_runs(struct report *rep, struct lab_error *err)
{
	size_t i, k, total = 0;

	for (i = 0; i < rep->nin; i++)
		total += json_array_size(json_object_get(rep->in[i].doc, RK_RUNS));
	rep->cols = calloc(rep->nin, sizeof(*rep->cols));
	rep->runs = calloc(total ? total : 1, sizeof(*rep->runs));
	if (rep->cols == NULL || rep->runs == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (i = 0; i < rep->nin; i++) {
		const json_t *host = json_object_get(rep->in[i].doc, RK_HOST);
		const json_t *runs = json_object_get(rep->in[i].doc, RK_RUNS);
		size_t col = column_of(rep, rep->in[i].doc);

		rep->in[i].col = col;
		for (k = 0; k < json_array_size(runs); k++) {
			struct runref *r = &rep->runs[rep->nruns++];

			r->run = json_array_get(runs, k);
			r->host = host;
			r->in = &rep->in[i];
			r->col = col;
			r->main = main_workload(r->run);
			r->origin.file = rep->in[i].path;
			r->origin.run = k;
			r->origin.label = str_or(json_object_get(r->run, RK_LABEL), "?");
			r->origin.repeat = (int)json_integer_value(json_object_get(r->run, RK_REPEAT));
		}
	}
	return 0;
}

/* ---------------------------------------------------------- table files */

static int add_file(struct report *rep, struct tfile *tf, struct lab_error *err)
{
	struct tfile **more = realloc(rep->files, (rep->nfiles + 1) * sizeof(*more));

	if (more == NULL) {
		tfile_free(tf);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	rep->files = more;
	rep->files[rep->nfiles++] = tf;
	return 0;
}

struct named_file {
	char name[256];
	long order;
	struct tfile *tf;
};

static int cmp_files(const void *a, const void *b)
{
	const struct named_file *x = a, *y = b;

	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* results/reference/tables/ *.json, by their "order" then name (the
 * articles' files say their order: table numbers follow it). */
static int load_dir(struct report *rep, struct lab_error *err)
{
	char dir[4096], path[4400];
	struct named_file *nf = NULL;
	size_t n = 0, i;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((rc = tables_dir(dir, sizeof(dir), err)) < 0)
		return rc;
	if ((d = opendir(dir)) == NULL)
		return lab_error_errno(err, errno, "%s: cannot list", dir);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		struct named_file *more;

		if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0 || de->d_name[0] == '.')
			continue;
		if ((more = realloc(nf, (n + 1) * sizeof(*nf))) == NULL) {
			rc = lab_error_set(err, ENOMEM, "out of memory");
			break;
		}
		nf = more;
		memset(&nf[n], 0, sizeof(nf[n]));
		snprintf(nf[n].name, sizeof(nf[n].name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((rc = tfile_load(path, false, NULL, &nf[n].tf, err)) < 0)
			break;
		nf[n].order = json_is_integer(json_object_get(nf[n].tf->doc, "order"))
			      ? (long)json_integer_value(json_object_get(nf[n].tf->doc, "order")) : 1000;
		n++;
	}
	closedir(d);
	if (rc == 0)
		qsort(nf, n, sizeof(*nf), cmp_files);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = add_file(rep, nf[i].tf, err);
		else
			tfile_free(nf[i].tf);
	}
	free(nf);
	return rc;
}

/* <scenario without .scn>.tables.json beside the scenario the result names. */
static int load_beside(struct report *rep, struct input *in, struct lab_error *err)
{
	const char *file = json_string_value(json_object_get(json_object_get(in->doc, RK_SCENARIO), RK_FILE));
	char path[4096];
	size_t len, i;
	struct tfile *tf;
	int rc;

	if (file == NULL)
		return 0;
	len = strlen(file);
	if (len > 4 && strcmp(file + len - 4, ".scn") == 0)
		len -= 4;
	if ((size_t)snprintf(path, sizeof(path), "%.*s.tables.json", (int)len, file) >= sizeof(path) ||
	    access(path, F_OK) != 0)
		return 0;
	for (i = 0; i < rep->nfiles; i++)
		if (strcmp(rep->files[i]->path, path) == 0 && rep->files[i]->tables[0].beside) {
			in->beside = rep->files[i];
			return 0;
		}
	if ((rc = tfile_load(path, true, file, &tf, err)) < 0)
		return rc;
	if ((rc = add_file(rep, tf, err)) < 0)
		return rc;
	in->beside = tf;
	return 0;
}

static bool defined_in(struct tfile *const *files, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < files[i]->ntables; k++)
			if (strcmp(files[i]->tables[k].id, id) == 0)
				return true;
	return false;
}

/* The definitions in build order: the articles' (their number is their
 * place here), the --tables files', the files beside scenarios, the generic
 * report's. */
static int collect_defs(struct report *rep, size_t nextra, size_t ndir, struct tdef ***out, size_t *n,
			struct lab_error *err)
{
	size_t total = 0, i, k, pass;
	struct tdef **defs;

	for (i = 0; i < rep->nfiles; i++)
		total += rep->files[i]->ntables;
	defs = calloc(total + 1, sizeof(*defs));
	if (defs == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	*n = 0;
	for (pass = 0; pass < 5; pass++)
		for (i = 0; i < rep->nfiles; i++) {
			bool extra = i < nextra, dir = i >= nextra && i < nextra + ndir;

			for (k = 0; k < rep->files[i]->ntables; k++) {
				struct tdef *d = &rep->files[i]->tables[k];
				bool take = d->measured ? pass == 4
					    : pass == 0 ? dir && !d->generic && d->article != NULL &&
							!defined_in(rep->files, nextra, d->id)
					    : pass == 1 ? (extra && !d->generic) ||
							  (dir && !d->generic && d->article == NULL)
					    : pass == 2 ? !extra && !dir && !d->generic
					    : pass == 3 && d->generic;

				if (take)
					defs[(*n)++] = d;
			}
		}
	*out = defs;
	return 0;
}

/* Table names a scenario gives that nothing defines: a warning, since the
 * rest of the document is still good. */
static void warn_unknown_tables(const struct report *rep, const struct lab_progress *p)
{
	size_t i, k;

	for (i = 0; i < rep->nin; i++) {
		const json_t *ids = json_object_get(json_object_get(rep->in[i].doc, RK_SCENARIO), RK_REPORT);

		for (k = 0; k < json_array_size(ids); k++) {
			const char *id = str_or(json_array_get(ids, k), "");

			if (!defined_in(rep->files, rep->nfiles, id))
				lab_say(p, LAB_SAY_WARN, "%s: unknown table '%s' ignored%s", rep->in[i].path, id,
					rep->in[i].fed ? "" : " (the generic report instead)");
		}
	}
}

/* The article the results' tables come from: one per report; NULL when no
 * article table is fed. */
static int inputs_article(const struct report *rep, struct tdef *const *defs, size_t n, const char **article,
			  struct lab_error *err)
{
	*article = NULL;
	for (size_t i = 0; i < rep->nin; i++)
		for (size_t k = 0; k < n; k++) {
			const char *a = defs[k]->article;

			if (a == NULL || defs[k]->generic || !engine_feeds(&rep->in[i], defs[k]))
				continue;
			if (*article != NULL && strcmp(*article, a) != 0)
				return lab_error_set(err, EINVAL, "the results come from two articles (%s and %s): "
						     "report them separately", *article, a);
			*article = a;
		}
	return 0;
}

static int reference_path(const char *arg, const char *article, char *out, size_t len, struct lab_error *err)
{
	char rel[256];

	if (arg != NULL) {
		snprintf(out, len, "%s", arg);
		return 0;
	}
	snprintf(rel, sizeof(rel), "results/reference/%s.json", article);
	if (access(rel, R_OK) == 0) {
		snprintf(out, len, "%s", rel);
		return 0;
	}
	if ((size_t)snprintf(out, len, "%s/%s", lab_data_dir(), rel) < len && access(out, R_OK) == 0)
		return 0;
	return lab_error_set(err, ENOENT, "no reference data: neither ./%s nor %s/%s is readable "
			     "(pass --reference FILE)", rel, lab_data_dir(), rel);
}

/* What the samples of one result must keep (result_read_for's function):
 * what every table that could take it reads — those its scenario names,
 * the file beside its scenario, --tables' — or, when none does, the generic
 * report's, from the document read up to its runs.  A document whose runs come before its
 * scenario keeps its samples whole. */
struct need_ctx {
	struct report *rep;
	const char *path;
};

static int need_for(const json_t *head, struct result_need *need, void *arg, struct lab_error *err)
{
	struct need_ctx *c = arg;
	struct input tmp = { .path = c->path, .doc = (json_t *)head };
	int rc;

	if (json_object_get(head, RK_SCENARIO) == NULL) {
		result_need_all(need);
		return 0;
	}
	if ((rc = load_beside(c->rep, &tmp, err)) < 0)
		return rc;
	/* fed as build.c's report_build decides it: some table not generic
	 * takes the result (then the generic report does not). */
	for (size_t i = 0; i < c->rep->nfiles; i++)
		for (size_t k = 0; k < c->rep->files[i]->ntables; k++)
			tmp.fed |= !c->rep->files[i]->tables[k].generic && !c->rep->files[i]->tables[k].measured &&
				   engine_feeds(&tmp, &c->rep->files[i]->tables[k]);
	for (size_t i = 0; i < c->rep->nfiles && rc == 0; i++)
		for (size_t k = 0; k < c->rep->files[i]->ntables && rc == 0; k++) {
			const struct tdef *d = &c->rep->files[i]->tables[k];

			if (d->generic ? !tmp.fed : engine_feeds(&tmp, d))
				rc = figs_need(d->figs, d->nfigs, need, err);
		}
	return rc;
}

/* A result document with the samples pruned to what its tables read; a
 * stream (.jsonl) says in one line that its run did not finish. */
static int load_result(struct report *rep, const char *path, json_t **out, struct lab_error *err)
{
	struct need_ctx c = { rep, path };
	struct result_need *need = result_need_new();
	struct result_read_info info;
	int rc;

	if (need == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	rc = result_read_for(path, need, need_for, &c, out, &info, err);
	result_need_free(need);
	if (rc == 0 && info.stream && !rep->quiet)
		lab_say(rep->progress, LAB_SAY_WARN, "%s: %s; %zu run(s), %zu sample(s) recorded%s", path,
			info.finished ? "read from the run's stream"
				      : "the run did not finish (no result document): read from its stream",
			info.runs, info.samples, info.cut ? ", its last line cut short (left out)" : "");
	return rc;
}

/* The table files, then the results with what the tables read of their
 * samples (result_read.h), then the files beside their scenarios. */
static int load_inputs(struct report *rep, const char *const *files, size_t nfiles,
		       const struct report_options *opt, size_t *ndir, struct lab_error *err)
{
	size_t i;
	int rc;

	/* The table files first: what they read of the samples is what the
	 * results are loaded with (result_read.h). */
	for (i = 0; i < opt->ntables; i++) {
		struct tfile *tf;

		if ((rc = tfile_load(opt->tables[i], false, NULL, &tf, err)) < 0 ||
		    (rc = add_file(rep, tf, err)) < 0)
			goto out;
		for (size_t k = 0; k < tf->ntables; k++)
			tf->tables[k].everywhere = true;
	}
	if ((rc = load_dir(rep, err)) < 0)
		goto out;
	*ndir = rep->nfiles - opt->ntables;
	for (rep->nin = 0; rep->nin < nfiles; rep->nin++) {
		struct input *in = &rep->in[rep->nin];

		in->path = files[rep->nin];
		if ((rc = load_result(rep, in->path, &in->doc, err)) < 0 || (rc = load_beside(rep, in, err)) < 0) {
			rep->nin++;
			goto out;
		}
	}
	rc = 0;
out:
	return rc;
}

/* ---------------------------------------------------------- public API */

void report_free(struct report *rep)
{
	size_t i;

	if (rep == NULL)
		return;
	for (i = 0; i < rep->nt; i++)
		report_table_free(&rep->tables[i]);
	free(rep->tables);
	for (i = 0; rep->in != NULL && i < rep->nin; i++)
		json_decref(rep->in[i].doc);
	free(rep->in);
	free(rep->cols);
	free(rep->runs);
	for (i = 0; i < rep->nfiles; i++)
		tfile_free(rep->files[i]);
	free(rep->files);
	json_decref(rep->ref);
	free(rep);
}

int report_load(const char *const *files, size_t nfiles, const struct report_options *opt,
		struct report **out, struct lab_error *err)
{
	struct report_options none = {0};
	struct report *rep = calloc(1, sizeof(*rep));
	struct tdef **defs = NULL;
	size_t ndefs = 0, ndir;
	const char *article = NULL;
	int rc;

	*out = NULL;
	if (opt == NULL)
		opt = &none;
	if (rep == NULL || (rep->in = calloc(nfiles + 1, sizeof(*rep->in))) == NULL) {
		free(rep);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	rep->quiet = opt->quiet;
	rep->progress = opt->progress;
	if ((rc = load_inputs(rep, files, nfiles, opt, &ndir, err)) < 0)
		goto fail;
	if ((rc = collect_defs(rep, opt->ntables, ndir, &defs, &ndefs, err)) < 0 ||
	    (rc = inputs_article(rep, defs, ndefs, &article, err)) < 0)
		goto fail;
	if (article != NULL || opt->reference != NULL) {
		if ((rc = reference_path(opt->reference, article, rep->ref_path, sizeof(rep->ref_path), err)) < 0 ||
		    (rc = load_json(rep->ref_path, REFERENCE_SCHEMA, &rep->ref, err)) < 0)
			goto fail;
	}
	if ((rc = index_runs(rep, err)) < 0 || (rc = report_build(rep, defs, ndefs, err)) < 0)
		goto fail;
	if (!rep->quiet)
		warn_unknown_tables(rep, opt->progress);
	free(defs);
	*out = rep;
	return 0;
fail:
	free(defs);
	report_free(rep);
	return rc;
}

int report_read_result(const char *path, const struct report_options *opt, json_t **out, struct lab_error *err)
{
	struct report_options none = {0};
	struct report *rep = calloc(1, sizeof(*rep));
	size_t ndir;
	int rc;

	*out = NULL;
	if (rep == NULL || (rep->in = calloc(2, sizeof(*rep->in))) == NULL) {
		free(rep);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	rep->quiet = true;              /* the caller says what it read */
	rc = load_inputs(rep, &path, 1, opt != NULL ? opt : &none, &ndir, err);
	if (rc == 0) {
		*out = rep->in[0].doc;
		rep->in[0].doc = NULL;
	}
	report_free(rep);
	return rc;
}

size_t report_ntables(const struct report *rep)
{
	return rep->nt;
}

const struct report_table *report_table_at(const struct report *rep, size_t i)
{
	return i < rep->nt ? &rep->tables[i] : NULL;
}

const json_t *report_reference(const struct report *rep, const char **path)
{
	if (path != NULL)
		*path = rep->ref != NULL ? rep->ref_path : NULL;
	return rep->ref;
}

int report_write(const struct report *rep, enum report_format fmt, FILE *o, struct lab_error *err)
{
	return format_write(rep, fmt, o, err);
}

int report_write_files(const char *const *files, size_t nfiles, const struct report_options *opt,
		       enum report_format fmt, FILE *o, struct lab_error *err)
{
	struct report *rep = NULL;
	int rc = report_load(files, nfiles, opt, &rep, err);

	if (rc == 0)
		rc = report_write(rep, fmt, o, err);
	report_free(rep);
	return rc;
}
