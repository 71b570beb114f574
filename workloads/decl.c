/* SPDX-License-Identifier: GPL-2.0-or-later */
/* decl.c — the workloads' declarations read generically (decl.h). */
#include "decl.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/size.h"

const struct wl_decl *const wl_decls[] = {
#define WL(name) &wl_decl_##name,
#include "workloads/decl/list.h"
#undef WL
	NULL,
};

const struct wl_decl *wl_decl_find(const char *program)
{
	for (size_t i = 0; wl_decls[i] != NULL; i++)
		if (strcmp(wl_decls[i]->program, program) == 0)
			return wl_decls[i];
	return NULL;
}

const struct wl_opt *wl_opt_find(const struct wl_decl *d, const char *key)
{
	for (const struct wl_opt *o = d->opts; o != NULL && o->key != NULL; o++)
		if (strcmp(o->key, key) == 0)
			return o;
	return NULL;
}

const struct wl_step *wl_step_find(const struct wl_decl *d, const char *name)
{
	for (const struct wl_step *s = d->steps; s != NULL && s->name != NULL; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static void join(char *buf, size_t len, size_t *off, const char *word, const char *sep)
{
	int n;

	if (*off >= len)
		return;
	n = snprintf(buf + *off, len - *off, "%s%s", *off ? sep : "", word);
	if (n > 0)
		*off += (size_t)n;
}

void wl_decl_programs(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; wl_decls[i] != NULL; i++)
		join(buf, len, &off, wl_decls[i]->program, ", ");
}

void wl_decl_step_names(const struct wl_decl *d, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const struct wl_step *s = d->steps; s != NULL && s->name != NULL; s++)
		join(buf, len, &off, s->name, " ");
}

static int enum_index(const char *enums, const char *word, unsigned long long *out)
{
	size_t wl = strlen(word);
	unsigned long long idx = 0;

	for (const char *p = enums; p != NULL && *p; idx++) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);

		if (n == wl && strncmp(p, word, n) == 0) {
			*out = idx;
			return 0;
		}
		if (bar == NULL)
			break;
		p = bar + 1;
	}
	return -EINVAL;
}

int wl_parse_value(enum wl_type t, const char *enums, const char *text, unsigned long long *out,
		   struct lab_error *err)
{
	unsigned int byte;

	switch (t) {
	case WT_SIZE:
	case WT_POSITIVE_SIZE:
	case WT_MEM:
		if (lab_parse_size(text, out, err) < 0)
			return -EINVAL;
		if (t != WT_SIZE && *out == 0)
			return lab_error_set(err, EINVAL, "size must be greater than zero, got '%s'", text);
		return 0;
	case WT_BYTE:
		if (lab_parse_byte(text, &byte, err) < 0)
			return -EINVAL;
		*out = byte;
		return 0;
	case WT_UINT:
	case WT_POSITIVE_UINT:
		if (lab_parse_uint(text, out, err) < 0)
			return lab_error_set(err, EINVAL, "expected a whole number, got '%s'", text);
		if (t == WT_POSITIVE_UINT && *out == 0)
			return lab_error_set(err, EINVAL, "must be at least 1, got '%s'", text);
		return 0;
	case WT_BOOL:
		if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "on"))
			*out = 1;
		else if (!strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "off"))
			*out = 0;
		else
			return lab_error_set(err, EINVAL, "expected yes or no, got '%s'", text);
		return 0;
	case WT_ADVICE:
	case WT_ENUM:
		if (enum_index(enums, text, out) < 0)
			return lab_error_set(err, EINVAL, "'%s' is not one of %s", text, enums ? enums : "");
		return 0;
	case WT_TEXT:
		*out = 0;               /* the text is the value */
		return 0;
	}
	return lab_error_set(err, EINVAL, "unknown type");
}

int wl_step_parse(const struct wl_decl *d, const char *text, struct wl_step_value *out,
		  struct lab_error *err)
{
	char *save = NULL, *name;
	int n = 0;

	memset(out, 0, sizeof(*out));
	if (strlen(text) >= sizeof(out->buf))
		return lab_error_set(err, EINVAL, "step too long");
	memcpy(out->buf, text, strlen(text) + 1);
	name = strtok_r(out->buf, ":", &save);
	out->step = name != NULL ? wl_step_find(d, name) : NULL;
	if (out->step == NULL) {
		char known[256];

		wl_decl_step_names(d, known, sizeof(known));
		return lab_error_set(err, EINVAL, "unknown step (known: %s)", known);
	}
	for (char *q = strtok_r(NULL, ":", &save); q != NULL; q = strtok_r(NULL, ":", &save)) {
		if (n == out->step->nargs + out->step->nopt)
			return lab_error_set(err, EINVAL, "'%s' takes %d argument%s separated by ':'",
					     out->step->name, out->step->nargs + out->step->nopt,
					     out->step->nargs + out->step->nopt == 1 ? "" : "s");
		out->text[n++] = q;
	}
	if (n < out->step->nargs)
		return lab_error_set(err, EINVAL, "'%s' takes %d argument%s separated by ':', got %d",
				     out->step->name, out->step->nargs, out->step->nargs == 1 ? "" : "s", n);
	out->nargs = n;
	for (int a = 0; a < n; a++) {
		const char *enums = out->step->args[a] == WT_ADVICE ? wl_advice_names(out->step->name)
								     : out->step->enums;

		if (wl_parse_value(out->step->args[a], enums, out->text[a], &out->v[a], err) < 0)
			return lab_error_prefix(err, "%s", out->step->name);
	}
	return 0;
}

/* argv[*i] against one option list (decl.h wl_opt_match). */
static int opt_match(const struct wl_opt *list, int argc, char **argv, int *i, const struct wl_opt **opt,
		     const char **val, struct lab_error *err)
{
	const char *arg = argv[*i];

	for (const struct wl_opt *o = list; o != NULL && o->key != NULL; o++) {
		size_t fl;

		if (o->flag == NULL)
			continue;
		fl = strlen(o->flag);
		if (strncmp(arg, o->flag, fl) != 0 || (arg[fl] != '\0' && arg[fl] != '='))
			continue;
		*opt = o;
		if (o->type == WT_BOOL && arg[fl] == '\0') {
			*val = NULL;
			return 1;
		}
		if (arg[fl] == '=') {
			*val = arg + fl + 1;
			return 1;
		}
		if (*i + 1 >= argc)
			return lab_error_set(err, EINVAL, "%s needs a value", o->flag);
		*val = argv[++*i];
		return 1;
	}
	return 0;
}

int wl_opt_match(const struct wl_decl *d, int argc, char **argv, int *i, const struct wl_opt **opt,
		 const char **val, struct lab_error *err)
{
	int ret = opt_match(d->opts, argc, argv, i, opt, val, err);

	return ret != 0 ? ret : opt_match(d->argv_opts, argc, argv, i, opt, val, err);
}

int wl_parse_argv(const struct wl_decl *d, int argc, char **argv, const struct wl_argv *a,
		  struct lab_error *err)
{
	for (int i = 1; i < argc; i++) {
		const struct wl_opt *opt = NULL;
		const char *val = NULL;
		unsigned long long v = 1;
		int ret;

		if (a->pre != NULL && (ret = a->pre(a->pre_ctx, argc, argv, &i, err)) != 0) {
			if (ret < 0)
				return ret;
			continue;
		}
		if (a->operand != NULL && strncmp(argv[i], "--", 2) != 0) {
			if ((ret = a->operand(a->ctx, argv[i], err)) < 0)
				return ret;
			continue;
		}
		ret = wl_opt_match(d, argc, argv, &i, &opt, &val, err);
		if (ret == 0)
			return lab_error_set(err, EINVAL, "%s: unknown argument", argv[i]);
		if (ret < 0)
			return ret;     /* "--size needs a value" */
		if (val != NULL && wl_parse_value(opt->type, opt->enums, val, &v, err) < 0)
			return lab_error_prefix(err, "%s", opt->flag);
		if ((ret = a->set(a->ctx, opt, val, v, err)) < 0)
			return ret;
	}
	return 0;
}

static void usage_opts(const struct wl_opt *list, FILE *f, bool help)
{
	for (const struct wl_opt *o = list; o != NULL && o->key != NULL; o++) {
		if (o->flag == NULL)
			continue;
		if (help && o->help != NULL)
			fprintf(f, "  %-22s %s\n", o->flag, o->help);
		else if (!help)
			fprintf(f, " %s%s%s%s", o->required ? "" : "[", o->flag, o->type == WT_BOOL ? "" : " V",
				o->required ? "" : "]");
	}
}

void wl_decl_usage(const struct wl_decl *d, FILE *f)
{
	fprintf(f, "usage: %s", d->program);
	usage_opts(d->opts, f, false);
	usage_opts(d->argv_opts, f, false);
	fprintf(f, " [--event-fd N] [--ack-fd N]%s\n%s\n", d->steps ? " STEP..." : "", d->summary);
	usage_opts(d->opts, f, true);
	usage_opts(d->argv_opts, f, true);
	if (d->steps != NULL)
		fprintf(f, "steps:\n");
	for (const struct wl_step *s = d->steps; s != NULL && s->name != NULL; s++)
		fprintf(f, "  %s%s%s\n", s->help, s->args[0] == WT_ADVICE ? ": " : "",
			s->args[0] == WT_ADVICE ? wl_advice_names(s->name) : "");
}

/* madvise(2) and include/uapi/asm-generic/mman-common.h; the values are the
 * kernel's ABI, given here for C libraries older than the advice. */
#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* One row per advice a step can give (the region's advise:ADVICE and
 * populate:write|read); region passes the value to madvise(2) as it is, and
 * `pagelab run` probes it first (wl_advice_probe). */
static const struct wl_advice advices[] = {
	{ "advise", "free", MADV_FREE, "MADV_FREE", "Linux 4.5" },
	{ "advise", "dontneed", MADV_DONTNEED, "MADV_DONTNEED", "Linux 2.6" },
	{ "advise", "none", -1, "none", "" },
	{ "advise", "pageout", MADV_PAGEOUT, "MADV_PAGEOUT", "Linux 5.4" },
	{ "advise", "cold", MADV_COLD, "MADV_COLD", "Linux 5.4" },
	{ "advise", "collapse", MADV_COLLAPSE, "MADV_COLLAPSE", "Linux 6.1, CONFIG_TRANSPARENT_HUGEPAGE" },
	{ "populate", "write", MADV_POPULATE_WRITE, "MADV_POPULATE_WRITE", "Linux 5.14" },
	{ "populate", "read", MADV_POPULATE_READ, "MADV_POPULATE_READ", "Linux 5.14" },
};

const struct wl_advice *wl_advice_find(const char *step, const char *name)
{
	for (size_t i = 0; i < sizeof(advices) / sizeof(advices[0]); i++)
		if (strcmp(advices[i].step, step) == 0 && strcmp(advices[i].name, name) == 0)
			return &advices[i];
	return NULL;
}

const char *wl_advice_names(const char *step)
{
	/* Built once per step (the steps that take an advice: a handful). */
	static struct {
		char step[16];
		char names[160];
	} cache[4];
	size_t slot, off = 0;

	for (slot = 0; slot < 4 && cache[slot].step[0] != '\0'; slot++)
		if (strcmp(cache[slot].step, step) == 0)
			return cache[slot].names;
	if (slot == 4)
		slot = 3;       /* more steps than slots: rebuild the last one */
	snprintf(cache[slot].step, sizeof(cache[slot].step), "%s", step);
	cache[slot].names[0] = '\0';
	for (size_t i = 0; i < sizeof(advices) / sizeof(advices[0]); i++)
		if (strcmp(advices[i].step, step) == 0)
			join(cache[slot].names, sizeof(cache[slot].names), &off, advices[i].name, "|");
	return cache[slot].names;
}

/* Two PMDs of private mapping, the advice on its first page, PMD-aligned: a
 * kernel that does not know the advice answers EINVAL before looking at the
 * range (mm/madvise.c: madvise_behavior_valid); one that knows it takes a
 * page.  MADV_COLLAPSE answers EINVAL for a range it cannot collapse too
 * (measured on 6.18: one empty page), so it gets one written PMD-sized range,
 * which a kernel that has it collapses (or finds a huge page already:
 * mm/khugepaged.c: madvise_collapse); EAGAIN/ENOMEM there still mean it is
 * known.  The PMD size is the running kernel's (hpage_pmd_size: 2 MiB with
 * 4 KiB pages, 32 MiB on arm64's 16K kernel), else 2 MiB. */
int wl_advice_probe(const struct wl_advice *a, struct lab_error *err)
{
	size_t len, align = 2UL << 20, ps = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long pmd = 0;
	struct lab_error perr;
	unsigned char *p, *q;
	int ret = 0;

	if (a->advice < 0)
		return 0;
	if (lab_read_u64("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &pmd, &perr) == 0 && pmd >= ps &&
	    pmd <= (1ULL << 30) && (pmd & (pmd - 1)) == 0)
		align = (size_t)pmd;
	len = 2 * align;
	p = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return lab_error_errno(err, errno, "probe %s: mmap", a->madv);
	q = (unsigned char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a->advice == MADV_COLLAPSE)
		memset(q, 1, align);
	if (madvise(q, a->advice == MADV_COLLAPSE ? align : ps, a->advice) < 0) {
		int e = errno;

		if (a->advice == MADV_COLLAPSE && (e == EAGAIN || e == ENOMEM))
			ret = 0;
		else if (e == EINVAL)
			ret = lab_error_set(err, EOPNOTSUPP, "this kernel does not take %s (%s; madvise: %s)",
					    a->madv, a->since, strerror(e));
		else
			ret = lab_error_errno(err, e, "probe %s on a scratch page", a->madv);
	}
	munmap(p, len + align);
	return ret;
}
