/* SPDX-License-Identifier: GPL-2.0-or-later */
/* advice.c — the advice lint (audit.h: audit_advice).
 *
 * It reads a sysctl.conf-style file ("key =
 * value", '#' or ';' comment lines, a leading '-' on a key meaning "ignore
 * errors", keys dotted or slashed) and says, per line, against THIS kernel:
 *   unknown-knob    no /proc/sys file of that name here (and why, when it was removed)
 *   out-of-range    outside what the kernel's handler accepts (harness/host/knobdef.c)
 *   trigger         a write-only action written as a setting (compact_memory, drop_caches)
 *   wrong-default   a comment claims a default that differs from this kernel's
 *   no-change       the value is what the knob already is (and its default)
 *   harmful         the arithmetic says it costs more than it gives: MemAvailable
 *                   below the floor, min_free_kbytes beyond khugepaged's own 5 %
 *                   cap, below 1024 kB, or (THP off) a silent drop of the reserve
 *   not-sysctl      a /sys file or boot parameter sysctl.conf cannot set
 *   not-a-value     prose, not a number (a share of RAM, "3-5%"): evaluated at both ends
 *   trailing-comment  sysctl(8) would write the comment as part of the value
 * Values may be written "N%" or "A-B%" (a share of MemTotal) — not valid in a
 * real sysctl.conf, accepted so advice given in prose can be transcribed.
 */
#include "audit_internal.h"

#include <errno.h>
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/escape.h"
#include "base/fileio.h"
#include "knobdef.h"

struct lint {
	json_t *findings;
	int errors, warnings, notes;
	const char *file;
	FILE *text;             /* each finding as a line, or NULL */
};

static void finding(struct lint *l, int line, const char *key, const char *value, const char *sev,
		    const char *code, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void finding(struct lint *l, int line, const char *key, const char *value, const char *sev,
		    const char *code, const char *fmt, ...)
{
	char msg[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strcmp(sev, "error"))
		l->errors++;
	else if (!strcmp(sev, "warning"))
		l->warnings++;
	else
		l->notes++;
	json_array_append_new(l->findings, json_pack("{s:i, s:s, s:s, s:s, s:s, s:s}", "line", line, "key", key,
						     "value", value, "severity", sev, "code", code, "message", msg));
	/* The file's name, its keys and values (and a message quoting them)
	 * are the file's: data on a terminal, never a control (escape.h). */
	if (l->text != NULL) {
		lab_esc_term(l->text, l->file);
		fprintf(l->text, ":%d: %s: ", line, sev);
		lab_esc_term(l->text, key);
		fputs(" = ", l->text);
		lab_esc_term(l->text, value);
		fprintf(l->text, ": [%s] ", code);
		lab_esc_term(l->text, msg);
		fputc('\n', l->text);
	}
}

/* "N%" or "A-B%" of MemTotal in kB; false when value is not such a share. */
static bool share_of_ram(const char *value, unsigned long long memtotal_kb, unsigned long long *lo_kb,
			 unsigned long long *hi_kb, double *lo_pct, double *hi_pct)
{
	double a, b;
	char pct;

	if (sscanf(value, "%lf-%lf%c", &a, &b, &pct) == 3 && pct == '%') {
		*lo_pct = a;
		*hi_pct = b;
	} else if (sscanf(value, "%lf%c", &a, &pct) == 2 && pct == '%') {
		*lo_pct = *hi_pct = a;
	} else {
		return false;
	}
	*lo_kb = (unsigned long long)((double)memtotal_kb * *lo_pct / 100.0);
	*hi_kb = (unsigned long long)((double)memtotal_kb * *hi_pct / 100.0);
	return true;
}

/* What min_free_kbytes = kb would do here: its lines, the reserve, MemAvailable. */
static void lint_min_free(struct lint *l, const struct audit_host *h, int line, const char *key, const char *value,
			  unsigned long long kb, unsigned long long floor_kb, unsigned long long avail_now_kb)
{
	struct wm_params p = h->params;
	struct wm_prediction now, at;
	unsigned long long fb = audit_free_buffer_pages(h);
	unsigned long long cap_kb = fb / 20 * h->page_kb;
	long long drop_kb, avail_kb;
	unsigned long long normal_min = 0, sum_high = 0;

	if (wmark_predict(h->zi, &p, &now) < 0)
		return;
	p.min_free_kbytes = kb;
	if (wmark_predict(h->zi, &p, &at) < 0)
		return;
	for (size_t i = 0; i < h->zi->n; i++) {
		if (!strcmp(h->zi->zones[i].name, "Normal"))
			normal_min = at.zones[i].min;
		if (h->zi->zones[i].managed)
			sum_high += at.zones[i].high;
	}
	drop_kb = ((long long)at.totalreserve - (long long)now.totalreserve) * h->page_kb;
	avail_kb = (long long)avail_now_kb - drop_kb;
	if (kb < 1024) {
		finding(l, line, key, value, "error", "harmful",
			"%llu kB is below 1024 kB: \"your system will become subtly broken, and prone to deadlock under "
			"high loads\" (Documentation/admin-guide/sysctl/vm.rst); Normal's min would be %llu pages, and "
			"GFP_ATOMIC may go down to 3/8 of it", kb, normal_min);
		return;
	}
	if (avail_kb < (long long)floor_kb) {
		finding(l, line, key, value, "error", "harmful",
			"%llu kB: the high lines would sum to %.0f MiB and MemAvailable would fall by %.0f MiB to %.0f MiB, "
			"below the floor of %.0f MiB (mm/show_mem.c: si_mem_available subtracts every zone's high line)",
			kb, audit_mib(sum_high, h->page_kb), (double)drop_kb / 1024.0, (double)avail_kb / 1024.0,
			(double)floor_kb / 1024.0);
	} else if (kb > cap_kb || kb > h->params.min_free_kbytes * 4) {
		finding(l, line, key, value, "warning", "harmful",
			"%llu kB is %.1fx this kernel's %llu kB%s: the band below min serves only allocations that cannot "
			"sleep; the high lines would sum to %.0f MiB, so MemAvailable falls by %.0f MiB (to %.0f MiB) and "
			"the page cache loses as much; khugepaged caps its own recommendation at 5%% of lowmem "
			"(%llu kB here). For kswapd latency the knob is watermark_scale_factor (795ae7a, v4.6)",
			kb, (double)kb / (double)h->params.min_free_kbytes, h->params.min_free_kbytes,
			kb > cap_kb ? ", above the 5 % cap" : "", audit_mib(sum_high, h->page_kb), (double)drop_kb / 1024.0,
			(double)avail_kb / 1024.0, cap_kb);
	}
	finding(l, line, key, value, "note", "user-value",
		"a write (sysctl.conf applies it at every boot) sets user_min_free_kbytes: the kernel's sqrt "
		"recomputation never goes below it again until reboot (mm/page_alloc.c: calculate_min_free_kbytes)");
}

/* A /sys file or a boot parameter where a sysctl was expected: said so, and
 * what the THP and hugetlb ones would do here. */
static void lint_not_sysctl(struct lint *l, const struct audit_host *h, int line, const char *key,
			    const char *value, unsigned long long floor_kb)
{
	unsigned long long memtotal = kv_get0(&h->meminfo, "MemTotal"), avail = kv_get0(&h->meminfo, "MemAvailable");
	unsigned long long lo_kb, hi_kb;
	double lo_pct, hi_pct;
	struct stat st;
	bool share;

	bool exists = stat(key, &st) == 0;

	finding(l, line, key, value, "error", "not-sysctl",
		"a /sys file, not a sysctl: sysctl.conf cannot set it (sysctl -p fails with \"unknown key\"); "
		"%s", exists ? "it exists on this kernel" : "it does not exist on this kernel either");
	if (strstr(key, "transparent_hugepage/enabled") && !strcmp(value, "never")) {
		unsigned long long fb = audit_free_buffer_pages(h);
		unsigned long long sq = wmark_sqrt_min_free_kb(fb, h->page_kb, NULL);

		if (h->thp_pmd_on && sq < h->params.min_free_kbytes)
			finding(l, line, key, value, "warning", "harmful",
				"THP never also stops khugepaged from recommending min_free_kbytes: it "
				"drops silently from %llu to %llu kB here (mm/khugepaged.c: "
				"set_recommended_min_free_kbytes -> calculate_min_free_kbytes), unless a "
				"larger user value was written", h->params.min_free_kbytes, sq);
	}
	if (strstr(key, "/hugepages/hugepages-") && strstr(key, "nr_hugepages")) {
		unsigned long long size_kb = 0;
		const char *hp = strstr(key, "hugepages-");

		sscanf(hp, "hugepages-%llukB", &size_kb);
		share = share_of_ram(value, memtotal, &lo_kb, &hi_kb, &lo_pct, &hi_pct);
		if (share && size_kb > 0) {
			unsigned long long pages = hi_kb / size_kb;

			finding(l, line, key, value, "warning", "harmful",
				"%g%% of MemTotal is %llu pages of %llu kB = %.0f MiB taken out of MemFree and "
				"MemAvailable at once (%.0f MiB available now)%s; pages this large need "
				"physically contiguous free memory, so set at runtime they may not all be "
				"found (hugepagesz=/hugepages= at boot is the reliable way)",
				hi_pct, pages, size_kb, (double)(pages * size_kb) / 1024.0,
				(double)avail / 1024.0,
				avail > pages * size_kb && avail - pages * size_kb < floor_kb ?
				", leaving less than the floor" : "");
		}
	}
}

/* A default the advice claims ("# default 1000") against this kernel's. */
static void lint_claim(struct lint *l, const struct audit_host *h, int line, const char *key, const char *value,
		       const struct knob_def *d, const char *claim)
{
	char cur[256] = "";

	if (d->def != NULL && strcmp(claim, d->def) != 0)
		finding(l, line, key, value, "error", "wrong-default",
			"the advice says the default is %s; this kernel's default is %s (%s)", claim, d->def,
			d->source);
	else if (d->def == NULL && strcmp(d->name, "vm.min_free_kbytes") == 0) {
		unsigned long long fb = audit_free_buffer_pages(h);

		snprintf(cur, sizeof(cur), "%llu", h->thp_pmd_on ?
			 wmark_khugepaged_min_free_kb(h->pageblock_pages, wmark_populated_lowmem_zones(h->zi), fb,
						      h->page_kb, NULL) : wmark_sqrt_min_free_kb(fb, h->page_kb, NULL));
		if (strcmp(claim, cur) != 0)
			finding(l, line, key, value, "error", "wrong-default",
				"the advice says the default is %s; this kernel computes %s kB here", claim, cur);
	}
}

/* A typed value against what the knob is now, and what it would cost. */
static void lint_typed(struct lint *l, const struct audit_host *h, int line, const char *key, const char *value,
		       const struct knob_def *d, const char *path, char *typed, unsigned long long floor_kb)
{
	unsigned long long avail = kv_get0(&h->meminfo, "MemAvailable");
	struct lab_error e;

	{
		cleanup_free char *buf = NULL;
		char cur[256] = "";
		size_t o = 0;

		if (lab_read_file(path, &buf, NULL, &e) == 0)
			for (const char *p = buf; *p && o + 1 < sizeof(cur); p++)
				if (*p != '\n')
					cur[o++] = *p == '\t' ? ' ' : *p;
		cur[o] = '\0';
		for (char *p = typed; *p; p++)
			if (*p == '\t')
				*p = ' ';
		if (!strcmp(cur, typed))
			finding(l, line, key, value, "note", "no-change", "already %s here%s%s%s", cur,
				d->def && !strcmp(d->def, typed) ? " (the kernel's default)" : "",
				d->note ? "; " : "", d->note ? d->note : "");
	}
	if (!strcmp(d->name, "vm.min_free_kbytes"))
		lint_min_free(l, h, line, key, value, strtoull(typed, NULL, 10), floor_kb, avail);
	if (!strcmp(d->name, "vm.watermark_scale_factor")) {
		struct wm_params p = h->params;
		struct wm_prediction now, at;

		p.scale_factor = strtoull(typed, NULL, 10);
		if (wmark_predict(h->zi, &h->params, &now) == 0 && wmark_predict(h->zi, &p, &at) == 0 &&
		    at.totalreserve > now.totalreserve)
			finding(l, line, key, value, "note", "cost",
				"at %s the reserve grows by %.0f MiB (MemAvailable falls as much); kswapd wakes earlier",
				typed, audit_mib(at.totalreserve - now.totalreserve, h->page_kb));
	}
	if (!strcmp(d->name, "vm.zone_reclaim_mode") && h->nr_nodes == 1)
		finding(l, line, key, value, "note", "no-effect", "one NUMA node here: zone reclaim never applies");
}

static void lint_one(struct lint *l, const struct audit_host *h, int line, const char *key, const char *value,
		     const char *claim, unsigned long long floor_kb)
{
	char path[PATH_MAX], name[128], typed[256];
	const struct knob_def *d;
	const char *removed;
	struct stat st;
	unsigned long long memtotal = kv_get0(&h->meminfo, "MemTotal"), avail = kv_get0(&h->meminfo, "MemAvailable");
	unsigned long long lo_kb, hi_kb;
	double lo_pct, hi_pct;
	bool share;
	struct lab_error e;

	/* /sys files and boot parameters: not sysctls. */
	if (key[0] == '/' && strncmp(key, "/proc/sys/", 10) != 0) {
		lint_not_sysctl(l, h, line, key, value, floor_kb);
		return;
	}
	snprintf(name, sizeof(name), "%s", key);
	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '.';
	if (!strncmp(name, ".proc.sys.", 10))
		memmove(name, name + 10, strlen(name + 10) + 1);
	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	for (char *p = path + 10; *p; p++)
		if (*p == '.')
			*p = '/';
	d = knob_def_find(name);
	removed = knob_def_removed(name);
	if (stat(path, &st) < 0) {
		finding(l, line, key, value, "error", "unknown-knob", "no %s on this kernel (%s)%s%s", path, h->kernel,
			removed ? ": " : "", removed ? removed : "");
		return;
	}
	if ((d != NULL && d->type == KT_TRIGGER) || (st.st_mode & 0444) == 0) {
		finding(l, line, key, value, "error", "trigger", "%s",
			d && d->note ? d->note : "a write-only trigger (mode 0200): an action, not a setting");
		return;
	}
	share = share_of_ram(value, memtotal, &lo_kb, &hi_kb, &lo_pct, &hi_pct);
	if (share) {
		finding(l, line, key, value, "note", "not-a-value",
			"prose, not a value (sysctl would refuse it): %g%% of MemTotal is %llu kB%s", lo_pct, lo_kb,
			lo_kb == hi_kb ? "" : " at the low end");
		if (lo_kb != hi_kb)
			finding(l, line, key, value, "note", "not-a-value", "%g%% of MemTotal is %llu kB at the high end",
				hi_pct, hi_kb);
	}
	if (strchr(value, '#') != NULL)
		finding(l, line, key, value, "error", "trailing-comment",
			"sysctl.conf has no trailing comments: the '#...' would be written as part of the value");
	if (d == NULL) {
		finding(l, line, key, value, "note", "unchecked", "exists here; pagelab does not know its range");
		return;
	}
	if (claim != NULL)
		lint_claim(l, h, line, key, value, d, claim);
	if (share) {
		if (!strcmp(d->name, "vm.min_free_kbytes")) {
			lint_min_free(l, h, line, key, value, lo_kb, floor_kb, avail);
			if (hi_kb != lo_kb)
				lint_min_free(l, h, line, key, value, hi_kb, floor_kb, avail);
		}
		return;
	}
	if (knob_def_value(d, value, typed, sizeof(typed), &e) < 0) {
		finding(l, line, key, value, "error", "out-of-range", "%s", e.msg);
		return;
	}
	if (!strcmp(d->name, "vm.percpu_pagelist_high_fraction") && strtoll(typed, NULL, 10) > 0 &&
	    strtoll(typed, NULL, 10) < 8) {
		finding(l, line, key, value, "error", "out-of-range",
			"0 or at least 8 (MIN_PERCPU_PAGELIST_HIGH_FRACTION): the handler returns EINVAL");
		return;
	}
	lint_typed(l, h, line, key, value, d, path, typed, floor_kb);
}

/* A "default N" claim in a comment ("# default 1000", "(default 1000)"). */
static bool default_claim(const char *comment, char *out, size_t len)
{
	const char *p = comment;

	while ((p = strcasestr(p, "default")) != NULL) {
		const char *q = p + 7;

		while (*q && !isdigit((unsigned char)*q) && *q != '\n' && q - p < 20)
			q++;
		if (isdigit((unsigned char)*q)) {
			size_t n = 0;

			while (isdigit((unsigned char)q[n]) && n + 1 < len)
				n++;
			snprintf(out, len, "%.*s", (int)n, q);
			return true;
		}
		p += 7;
	}
	return false;
}

int audit_advice(const struct audit_host *h, const char *file, unsigned long long floor_kb, FILE *text,
		 struct audit_advice *out, struct lab_error *err)
{
	cleanup_free char *buf = NULL;
	struct lint l = { .findings = json_array(), .file = file, .text = text };
	char claim[32] = "";
	bool have_claim = false;
	int lineno = 0, settings = 0;
	char *p, *line;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = lab_read_input(file, "advice file", LAB_ADVICE_MAX, 0, &buf, NULL, err)) < 0) {
		json_decref(l.findings);
		return ret;
	}
	/* Lines one by one (strtok_r would skip empty lines and lose the count). */
	for (p = buf; p && *p; p = line) {
		char *eol = strchr(p, '\n'), *s, *eq, *key, *val, *end;

		line = eol ? eol + 1 : NULL;
		if (eol)
			*eol = '\0';
		lineno++;
		for (s = p; *s == ' ' || *s == '\t'; s++)
			;
		if (*s == '\0') {
			have_claim = false;
			continue;
		}
		if (*s == '#' || *s == ';') {
			/* A claim in a comment applies to the next setting. */
			if (default_claim(s, claim, sizeof(claim)))
				have_claim = true;
			continue;
		}
		settings++;     /* a setting, or a line that should have been one */
		eq = strchr(s, '=');
		if (eq == NULL) {
			finding(&l, lineno, s, "", "error", "syntax", "not 'key = value'");
			continue;
		}
		key = s;
		end = eq;
		while (end > key && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*end = '\0';
		if (*key == '-')
			key++;          /* systemd-sysctl: ignore failures of this one */
		val = eq + 1;
		while (*val == ' ' || *val == '\t')
			val++;
		end = val + strlen(val);
		while (end > val && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		{
			char trail[32];
			const char *hash = strchr(val, '#');

			if (hash != NULL && default_claim(hash, trail, sizeof(trail))) {
				snprintf(claim, sizeof(claim), "%s", trail);
				have_claim = true;
			}
		}
		lint_one(&l, h, lineno, key, val, have_claim ? claim : NULL, floor_kb);
		have_claim = false;
	}
	if (settings == 0) {
		json_decref(l.findings);
		return lab_error_set(err, EINVAL, "advice file %s holds no setting (%d line(s) of comments or blanks): "
				     "nothing to lint (a sysctl.conf-style file has KEY = VALUE lines)", file, lineno);
	}
	out->findings = l.findings;
	out->errors = l.errors;
	out->warnings = l.warnings;
	out->notes = l.notes;
	return 0;
}

json_t *audit_advice_json(const struct audit_host *h, const char *file, unsigned long long floor_kb,
			  struct audit_advice *a)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:{s:i, s:i, s:i}}", "file", file, "kernel", h->kernel,
			      "floor_kb", (json_int_t)floor_kb, "findings", a->findings, "summary", "errors",
			      a->errors, "warnings", a->warnings, "notes", a->notes);

	a->findings = NULL;
	return o;
}
