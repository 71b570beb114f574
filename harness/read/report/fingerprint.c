/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fingerprint.c — what else differs between two sets of results: their
 * host.fingerprint (harness/result/result.md, harness/host/fingerprint.h),
 * field by field (report.h: report_fingerprint_diff), for compare's two sides
 * and for the report's columns.
 *
 * A comparison of two kernels is also one of everything their machines set
 * differently (6.1 against 6.12 on Debian is classic LRU against MGLRU), so
 * compare names every such field besides the one it compares.  Each side's
 * documents are flattened to "a.b.c" = text (arrays as compact JSON); a field
 * whose documents disagree within one side is "mixed", one a side lacks is
 * "absent".  A knob a run set (lru_gen, thp, thp_defrag, an mTHP size) is
 * that run's value of its field (fp_pins): MGLRU pinned to one setting on
 * both sides is not a difference.  Counts that change from run to run on one
 * machine are not settings and are left out (fp_volatile).
 */
#include "report.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/keys.h"

#define FP_PATH_MAX 192

/* Not a setting: the number of cgroups at the moment of the run. */
static const char *const fp_volatile[] = {
	"cgroup.proc_cgroups_memory.num_cgroups",
};

/* What --by KEY compares itself, so not "also" different. */
struct fp_skip {
	const char *by;
	const char *fields[4];
};

static const struct fp_skip fp_skips[] = {
	{ "kernel", { "kernel.release", "kernel.version", "kernel.config.options.CONFIG_LOCALVERSION",
		      "kernel.config.source" } },       /* /boot/config-RELEASE */
	{ "thp", { "thp.enabled", NULL, NULL, NULL } },
	{ "host", { NULL, NULL, NULL, NULL } },
};

static bool fp_skipped(const char *path, const char *by)
{
	for (size_t i = 0; i < sizeof(fp_volatile) / sizeof(fp_volatile[0]); i++)
		if (strcmp(path, fp_volatile[i]) == 0)
			return true;
	for (size_t i = 0; by != NULL && i < sizeof(fp_skips) / sizeof(fp_skips[0]); i++) {
		if (strcmp(fp_skips[i].by, by) != 0)
			continue;
		for (size_t f = 0; f < 4 && fp_skips[i].fields[f] != NULL; f++)
			if (strcmp(path, fp_skips[i].fields[f]) == 0)
				return true;
	}
	return false;
}

/* A leaf as text into a new json string; NULL: out of memory. */
static json_t *fp_leaf(const json_t *v)
{
	char buf[64];
	char *s;
	json_t *j;

	if (json_is_string(v))
		return json_string(json_string_value(v));
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return json_string(buf);
	}
	if (json_is_real(v)) {
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return json_string(buf);
	}
	if (json_is_boolean(v))
		return json_string(json_is_true(v) ? "true" : "false");
	if (json_is_null(v))
		return json_string("null");
	s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (s == NULL)
		return NULL;
	j = json_string(s);
	free(s);
	return j;
}

/* Every leaf of v under prefix into flat (path -> text).  Returns -1 on no
 * memory. */
static int fp_flatten(const json_t *v, const char *prefix, json_t *flat)
{
	const char *k;
	const json_t *x;
	json_t *leaf;

	if (json_is_object(v) && json_object_size(v) > 0) {
		json_object_foreach((json_t *)v, k, x) {
			char path[FP_PATH_MAX];
			int n = snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", k);

			if (n < 0 || (size_t)n >= sizeof(path))
				continue;       /* no fingerprint field is that long: not ours */
			if (fp_flatten(x, path, flat) < 0)
				return -1;
		}
		return 0;
	}
	leaf = fp_leaf(v);
	return leaf == NULL ? -1 : json_object_set_new(flat, prefix, leaf);
}

/* A knob a run set (runs[].knobs.applied) is what that run ran with, not what
 * the fingerprint saw before it: the fields it pins. */
struct fp_pin {
	const char *knob;
	const char *field;
};

static const struct fp_pin fp_pins[] = {
	{ "lru_gen", "mglru.enabled" },
	{ "thp", "thp.enabled" },
	{ "thp_defrag", "thp.defrag" },
	{ "thp_shmem", "thp.shmem_enabled" },
};

/* One run's fields: the document's, with what its knobs set. */
static int fp_pin_run(const json_t *run, json_t *flat)
{
	const json_t *applied = json_object_get(json_object_get(run, "knobs"), "applied");

	for (size_t i = 0; i < json_array_size(applied); i++) {
		const json_t *a = json_array_get(applied, i);
		const char *name = json_string_value(json_object_get(a, "name"));
		const char *after = json_string_value(json_object_get(a, "after"));
		char field[FP_PATH_MAX];
		unsigned kb;
		int ret = 0;

		if (name == NULL || after == NULL)
			continue;
		for (size_t p = 0; p < sizeof(fp_pins) / sizeof(fp_pins[0]); p++)
			if (strcmp(name, fp_pins[p].knob) == 0)
				ret = json_object_set_new(flat, fp_pins[p].field, json_string(after));
		if (strcmp(name, "lru_gen") == 0)     /* bit 0: MGLRU on (fingerprint.c) */
			ret |= json_object_set_new(flat, "mglru.on",
						   json_string(strtoul(after, NULL, 16) & 1 ? "true" : "false"));
		if (sscanf(name, "thp_%uk", &kb) == 1) {      /* thp_64k: thp.mthp.64kB */
			snprintf(field, sizeof(field), "thp.mthp.%ukB", kb);
			ret |= json_object_set_new(flat, field, json_string(after));
		}
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* src's fields into the side's: a field already there with another text
 * becomes "mixed". */
static int fp_merge(json_t *side, const json_t *src)
{
	const char *k;
	json_t *x;

	json_object_foreach((json_t *)src, k, x) {
		const json_t *old = json_object_get(side, k);

		if (old != NULL && !json_equal(old, x)) {
			if (json_object_set_new(side, k, json_string("mixed")) < 0)
				return -1;
		} else if (json_object_set(side, k, x) < 0) {
			return -1;
		}
	}
	return 0;
}

/* One document's runs into the side (the document's own fields when it has
 * no run). */
static int fp_doc(const json_t *doc, const json_t *fp, json_t *side)
{
	const json_t *runs = json_object_get(doc, RK_RUNS);
	json_t *flat = json_object();
	int ret = flat == NULL || fp_flatten(fp, "", flat) < 0 ? -1 : 0;

	if (ret == 0 && json_array_size(runs) == 0)
		ret = fp_merge(side, flat);
	for (size_t r = 0; ret == 0 && r < json_array_size(runs); r++) {
		json_t *one = json_copy(flat);

		ret = one == NULL || fp_pin_run(json_array_get(runs, r), one) < 0 || fp_merge(side, one) < 0 ? -1 : 0;
		json_decref(one);
	}
	json_decref(flat);
	return ret;
}

/* One side flattened; *any: some document had a fingerprint. */
static json_t *fp_side(json_t *const *docs, size_t n, bool *any)
{
	json_t *side = json_object();

	*any = false;
	for (size_t i = 0; side != NULL && i < n; i++) {
		const json_t *fp = json_object_get(json_object_get(docs[i], RK_HOST), RK_FINGERPRINT);

		if (!json_is_object(fp))
			continue;
		*any = true;
		if (fp_doc(docs[i], fp, side) < 0) {
			json_decref(side);
			side = NULL;
		}
	}
	return side;
}

static int fp_add(json_t *out, const char *field, const json_t *b, const json_t *n)
{
	return json_array_append_new(out, json_pack("{s:s, s:s, s:s}", "field", field, "base",
						    b ? json_string_value(b) : "absent", "new",
						    n ? json_string_value(n) : "absent"));
}

json_t *report_fingerprint_diff(json_t *const *bdocs, size_t nb, json_t *const *ndocs, size_t nn, const char *by)
{
	bool bany, nany;
	json_t *bf = fp_side(bdocs, nb, &bany), *nf = fp_side(ndocs, nn, &nany);
	json_t *out = NULL, *diff = json_array();
	const char *k;
	json_t *x;

	if (bf == NULL || nf == NULL || diff == NULL)
		goto done;
	json_object_foreach(bf, k, x) {
		const json_t *y = json_object_get(nf, k);

		if (!fp_skipped(k, by) && (y == NULL || !json_equal(x, y)) && fp_add(diff, k, x, y) < 0)
			goto done;
	}
	json_object_foreach(nf, k, x)
		if (json_object_get(bf, k) == NULL && !fp_skipped(k, by) && fp_add(diff, k, NULL, x) < 0)
			goto done;
	out = json_pack("{s:b, s:b, s:O}", "base", bany, "new", nany, "different", diff);
done:
	json_decref(bf);
	json_decref(nf);
	json_decref(diff);
	return out;
}
