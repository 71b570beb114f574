/* SPDX-License-Identifier: GPL-2.0-or-later */
/* journal.c — the knob journal around the runs (stages.h; the journal
 * itself is harness/host/knobs.h). */
#include "stages.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fileio.h"
#include "host/knobdef.h"
#include "result/keys.h"

/* knobs.h's report, one progress line per knob, each after prefix. */
static void say_report(const struct lab_progress *prog, const struct knob_restore_report *rep, const char *prefix)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return;
	knob_report_print(rep, f, "");
	fclose(f);
	for (char *line = text, *nl; line != NULL && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl != NULL)
			*nl++ = '\0';
		lab_say(prog, LAB_SAY_PHASE, "%s%s", prefix, line);
	}
	free(text);
}

int run_journal_restore(struct run_ctx *c, const char *what, struct lab_error *err)
{
	struct knob_restore_report rep;
	int ret;

	if (!knob_journal_pending(c->journal))
		return 0;
	ret = knob_journal_restore(c->journal, &rep, err);
	if (rep.n > 0 || ret < 0) {
		lab_say(c->prog, LAB_SAY_PHASE, "%s (journal of pid %d):", what, (int)rep.journal_pid);
		say_report(c->prog, &rep, "  ");
	}
	return ret;
}

enum run_end run_journal_begin(struct run_ctx *c, bool need, struct lab_error *err)
{
	struct stat st;
	bool stale = false;
	pid_t owner = 0;
	int ret;

	c->journal = NULL;
	if (!need && lstat(knob_journal_path(), &st) < 0)
		return RUN_ENDED;
	ret = knob_journal_open(knob_journal_path(), &c->journal, &stale, &owner, err);
	if (ret == -EBUSY && !need)
		return RUN_ENDED;        /* a live run owns it; this one changes nothing */
	if (ret == -EBUSY) {
		size_t n = strlen(err->msg);

		snprintf(err->msg + n, sizeof(err->msg) - n, ": knob-changing runs go one at a time");
		return RUN_REFUSED_HOST;
	}
	if (ret < 0)
		return ret == -EPERM ? RUN_REFUSED_INPUT : RUN_FAILED;
	if (stale && run_journal_restore(c, "found the knob journal of a run that did not finish: restoring it first",
					 err) < 0) {
		knob_journal_close(c->journal);
		c->journal = NULL;
		return RUN_FAILED;
	}
	if (!need) {
		knob_journal_close(c->journal);
		c->journal = NULL;
	}
	return RUN_ENDED;
}

int run_knobs_apply(struct run_ctx *c, const struct run_spec *r, json_t *run, struct lab_error *err)
{
	json_t *applied = json_array();
	unsigned long long mfk = 0;
	struct lab_error e2;
	int ret = 0;

	for (size_t i = 0; i < r->nr_knobs && ret == 0; i++) {
		const struct knob_def *d = knob_def_find(r->knobs[i].name);
		char before[256] = "", after[256] = "";

		if (d->path != NULL)
			knob_read(d, before, sizeof(before), &e2);
		ret = knob_set(c->journal, d, r->knobs[i].value, err);
		if (ret < 0)
			break;
		if (d->path != NULL)
			knob_read(d, after, sizeof(after), &e2);
		lab_say(c->prog, LAB_SAY_PHASE, "knob %s: %s -> %s", d->name, before[0] ? before : "-",
			after[0] ? after : r->knobs[i].value);
		json_array_append_new(applied, json_pack("{s:s, s:s, s:s, s:s}", "name", d->name, "set",
							 r->knobs[i].text, "before", before, "after", after));
	}
	/* What the kernel made of it: a THP change moves min_free_kbytes. */
	lab_read_u64("/proc/sys/vm/min_free_kbytes", &mfk, &e2);
	json_object_set_new(run, RK_KNOBS, json_pack("{s:o, s:I}", "applied", applied,
						    "min_free_kbytes_after", (json_int_t)mfk));
	return ret;
}

int run_knobs_restore(struct run_ctx *c, json_t *run, struct lab_error *err)
{
	struct knob_restore_report rep;
	json_t *a = json_array(), *k = json_object_get(run, RK_KNOBS);
	int ret = knob_journal_restore(c->journal, &rep, err);

	say_report(c->prog, &rep, "restored ");
	for (size_t i = 0; i < rep.n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "name", rep.items[i].name,
						   "original", rep.items[i].original, "found", rep.items[i].found,
						   "now", rep.items[i].now, "written", rep.items[i].written,
						   "ok", rep.items[i].ok));
	if (k != NULL) {
		json_object_set_new(k, "restored", a);
		json_object_set_new(k, "restored_ok", json_boolean(ret == 0));
	} else {
		json_decref(a);
	}
	return ret;
}
