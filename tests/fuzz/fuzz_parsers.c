/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_parsers.c — libFuzzer entry point for every pure parser in labcore.
 *
 * Each input is copied and NUL-terminated (the parsers' contract: a
 * NUL-terminated buffer, as lab_read_file gives them) and fed to all of them.
 * Beyond "no crash, no leak, no UB", it checks what a caller relies on:
 * kv keys are NUL-terminated and shorter than KV_KEY_MAX, a failed parse
 * leaves the list as it was, zoneinfo counts stay in bounds, a failed smaps
 * parse leaves zeros, a parsed size formats without overflowing, and every
 * parser of the sampler's source table (PSI, buddyinfo, pagemap, …) either
 * refuses with a message or gives a value that serialises; the fragment
 * step's count of free PMD blocks (workloads/fragment.c) reads the input as
 * /proc/buddyinfo against the zones it parsed as /proc/zoneinfo (or none),
 * and its list of zone names stays inside its buffer.  The tick's fast
 * paths read what the strict parsers read, or refuse: a keyed file's
 * (source_kv_json_fast) writes the strict path's very bytes, and
 * zoneinfo's (zoneinfo_parse_fast, on the input and on the input with
 * other numbers, against the input's own layout) fills what
 * zoneinfo_parse fills.  A /proc/PID/stat line (base/procstat.h) is read
 * from the input's own bytes, not the NUL-terminated copy, as the sampler
 * hands it its read's length.
 *
 * Built and run by scripts/fuzz (not part of the CMake build).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/size.h"
#include "base/kv.h"
#include "base/procstat.h"
#include "base/smaps.h"
#include "sample/sources/source.h"
#include "base/zoneinfo.h"
#include "workloads/fragment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_kv(const struct kv_list *l)
{
	size_t i;

	if (l->n > l->cap || (l->n > 0 && l->items == NULL))
		abort();
	for (i = 0; i < l->n; i++) {
		size_t len = strnlen(l->items[i].key, KV_KEY_MAX);

		if (len == 0 || len >= KV_KEY_MAX)
			abort();
		if (!kv_get(l, l->items[i].key, NULL))
			abort();
	}
}

static void fuzz_kv(const char *buf)
{
	struct lab_error err = { 0 };
	struct kv_list l = { 0 };

	if (kv_parse_space(buf, &l, &err) < 0 && (l.n != 0 || err.code == 0))
		abort();
	check_kv(&l);
	/* Appending to a non-empty list: an error must keep what was there. */
	{
		size_t before = l.n;

		if (kv_parse_colon(buf, &l, &err) < 0 && l.n != before)
			abort();
	}
	check_kv(&l);
	kv_free(&l);
}

static void fuzz_smaps(const char *buf, const uint8_t *data, size_t size)
{
	struct lab_error err = { 0 };
	struct smaps_range r;
	unsigned long start = 0x1000, end = 0x7f0000000000UL;

	if (smaps_parse_range(buf, 0, ~0UL, &r, &err) == 0 && r.nr_vmas == 0)
		abort();
	smaps_parse_range(buf, start, end, &r, &err);
	/* A range taken from the input's last 16 bytes, so mutations can aim it. */
	if (size >= 16) {
		memcpy(&start, data + size - 16, sizeof(start));
		memcpy(&end, data + size - 8, sizeof(end));
	}
	if (smaps_parse_range(buf, start, end, &r, &err) < 0 &&
	    (r.nr_vmas | r.size_kb | r.rss_kb | r.lazyfree_kb | r.anonhuge_kb | r.anonymous_kb |
	     r.shmem_pmd_kb | r.swap_kb | (unsigned long long)r.has_lazyfree) != 0)
		abort();
}

static void fuzz_zoneinfo(const char *buf)
{
	static struct zoneinfo zi;
	struct lab_error err = { 0 };
	size_t i;

	char zones[16];

	if (zoneinfo_parse(buf, &zi, &err) < 0) {
		if (zi.n != 0 || err.code != EINVAL)
			abort();
		if (fragment_free_blocks(buf, &zi, 9, zones, sizeof(zones)) != 0 || zones[0] != '\0')
			abort();
		return;
	}
	fragment_free_blocks(buf, &zi, 9, zones, sizeof(zones));
	if (strnlen(zones, sizeof(zones)) >= sizeof(zones))
		abort();
	if (zi.n == 0 || zi.n > ZONEINFO_MAX_ZONES)
		abort();
	for (i = 0; i < zi.n; i++)
		if (zi.zones[i].nr_protection == 0 || zi.zones[i].nr_protection > ZONEINFO_MAX_PROT ||
		    strnlen(zi.zones[i].name, sizeof(zi.zones[i].name)) == 0 ||
		    strnlen(zi.zones[i].name, sizeof(zi.zones[i].name)) >= sizeof(zi.zones[i].name))
			abort();
}

/* The strict path's text of buf (kv.h's parse, then source_kv_emit), or
 * NULL when it refuses. */
static char *kv_strict_text(const char *buf, bool colon)
{
	struct lab_error err = { 0 };
	struct kv_list l = { 0 };
	struct jw w = { 0 };
	char *t = NULL;

	if ((colon ? kv_parse_colon(buf, &l, &err) : kv_parse_space(buf, &l, &err)) == 0) {
		source_kv_emit(&w, &l);
		t = w.data != NULL ? strdup(w.data) : NULL;
		if (t == NULL)
			abort();
	}
	jw_free(&w);
	kv_free(&l);
	return t;
}

/* source_kv_json_fast takes a text only as the strict path writes it, and
 * leaves the text as it was when it refuses. */
static void fuzz_kv_fast(const char *buf, size_t len)
{
	for (int colon = 0; colon < 2; colon++) {
		struct jw w = { 0 };
		char *strict;

		jw_obj(&w);
		if (!source_kv_json_fast(&w, buf, len, colon)) {
			if (w.data == NULL || strcmp(w.data, "{") != 0)
				abort();
			jw_free(&w);
			continue;
		}
		jw_obj_end(&w);
		strict = kv_strict_text(buf, colon);
		if (strict == NULL || w.data == NULL || strcmp(strict, w.data) != 0)
			abort();
		free(strict);
		jw_free(&w);
	}
}

/* The input's layout reads the input as zoneinfo_parse does (the unit test
 * holds that it takes every real capture), and the input
 * with other numbers (each non-zero digit of a number outside a word and a
 * "Node" line moved by shift among 1-9; the words as they were) as
 * zoneinfo_parse reads that, or refuses it. */
static void fuzz_zoneinfo_fast(const char *buf, size_t len, unsigned shift)
{
	static struct zoneinfo made, fast, strict;
	struct zoneinfo_layout l = { 0 };
	struct lab_error err = { 0 };
	char *t;

	if (zoneinfo_layout_make(buf, &l, &made, &err) < 0) {
		if (l.base != NULL)
			abort();
		return;
	}
	if (zoneinfo_parse(buf, &strict, &err) < 0 || !zoneinfo_equal(&made, &strict))
		abort();
	/* Taken (a number of more than 18 digits it may refuse), the same. */
	if (l.base != NULL && zoneinfo_parse_fast(buf, strlen(buf), &l, &fast) && !zoneinfo_equal(&fast, &strict))
		abort();
	t = malloc(len + 1);
	if (t == NULL)
		abort();
	memcpy(t, buf, len + 1);
	for (size_t i = 0; t[i] != '\0'; i++) {
		bool node = false, in_word = false;

		if (i == 0 || t[i - 1] == '\n')
			node = strncmp(t + i, "Node", 4) == 0;
		for (; t[i] != '\0' && t[i] != '\n'; i++) {
			bool digit = t[i] >= '0' && t[i] <= '9';

			/* a number moves where it does not continue a word ("DMA32") */
			if (digit && !in_word && !node && t[i] != '0')
				t[i] = (char)('1' + (t[i] - '1' + shift) % 9);  /* a 0 stays: an empty zone stays empty */
			if (!digit)
				in_word = (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') || t[i] == '_';
		}
		if (t[i] == '\0')
			break;
	}
	if (zoneinfo_parse_fast(t, strlen(t), &l, &fast) &&
	    (zoneinfo_parse(t, &strict, &err) < 0 || !zoneinfo_equal(&fast, &strict)))
		abort();
	free(t);
	zoneinfo_layout_free(&l);
}

static void fuzz_size(const char *buf)
{
	struct lab_error err = { 0 };
	unsigned long long v = 0;
	unsigned int byte = 0;
	char out[32];

	if (lab_parse_size(buf, &v, &err) == 0)
		lab_format_size(v, out, sizeof(out));
	if (lab_parse_byte(buf, &byte, &err) == 0 && byte > 255)
		abort();
	lab_parse_uint(buf, &v, &err);
	lab_format_size(v, out, sizeof(out));
	lab_format_size(v, out, (size_t)(v % 12));
	if (strnlen(out, sizeof(out)) >= sizeof(out))
		abort();
}

/* Every parser of the source table (harness/sample/sources/registry.c): a new
 * source is fuzzed without a change here.  A parse either fails with a
 * message and no value, or succeeds with one that serialises. */
static void fuzz_sources(const char *buf, size_t size)
{
	for (size_t i = 0; source_table[i] != NULL; i++) {
		const struct source *s = source_table[i];
		struct lab_error err = { 0 };
		json_t *out = NULL;
		char *text;

		if (s->parse == NULL)
			continue;
		if (s->parse(buf, size, &out, &err) < 0) {
			if (err.msg[0] == '\0')
				abort();
			json_decref(out);
			continue;
		}
		if (out == NULL)
			abort();
		text = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);
		if (text == NULL)
			abort();
		free(text);
		json_decref(out);
	}
}

/* A /proc/PID/stat line (a name is any bytes the process chose): refused
 * with a message and zeros, or parsed into a name inside its array whose
 * length is the one printed between the first '(' and the last ')'. */
static void fuzz_procstat(const uint8_t *data, size_t size)
{
	struct lab_error err = { 0 };
	struct lab_procstat ps;

	if (lab_procstat_parse((const char *)data, size, &ps, &err) < 0) {
		if (err.code != EINVAL || ps.pid != 0 || ps.comm_len != 0 || ps.state != 0)
			abort();
		return;
	}
	if (strnlen(ps.comm, sizeof(ps.comm)) >= sizeof(ps.comm) || ps.pid < 0 || ps.ppid < 0 || ps.state == 0 ||
	    (ps.comm_len < sizeof(ps.comm) && strlen(ps.comm) > ps.comm_len))
		abort();
	(void)lab_procstat_dying(&ps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	fuzz_kv(buf);
	fuzz_smaps(buf, data, size);
	fuzz_zoneinfo(buf);
	fuzz_zoneinfo_fast(buf, size, size > 0 ? 1u + data[0] % 9u : 1u);
	fuzz_kv_fast(buf, strlen(buf));
	fuzz_size(buf);
	fuzz_sources(buf, size);
	fuzz_procstat(data, size);
	free(buf);
	return 0;
}
