/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_floor.c — counts and timings, and the calibration file
 * (harness/read/floor.h).
 *
 * What is expected, and why:
 *   - every unit the tables and the load tools' metrics use today is classed
 *     (pages, kB, MiB, bytes, no unit: counts; ns, µs, ms, s and "/s" rates:
 *     timings); a declared class wins over the unit; a unit not on the list
 *     is a timing (the stricter test) and says so — and no row of the
 *     tree's tables (results/reference/tables, scenarios/, tests/scenarios)
 *     falls to that default: each has a known unit or declares its class;
 *   - two hosts differ in the first field that differs, a result without
 *     host.cpu matches only a calibration without it;
 *   - a calibration file written by floor_calibration reads back with the
 *     same spreads (round trip), and every hostile file is refused with a
 *     line naming it: unknown key, wrong schema, duplicate JSON key, a
 *     spread out of range, a control character, a figure twice, more than
 *     FLOOR_FIGURES_MAX figures, over FLOOR_FILE_MAX bytes, a FIFO (without
 *     blocking), a file others may write (base/trust.h: -EPERM).
 */
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <sys/stat.h>

#include <jansson.h>

#include "read/floor.h"
#include "unit.h"

static char dir[64];

static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return path;
	fputs(text, f);
	fclose(f);
	chmod(path, 0644);
	return path;
}

/* A file that must be refused with -EINVAL and a message holding want. */
static void refused(const char *name, const char *text, const char *want)
{
	struct floor *f = NULL;
	struct lab_error err;
	int ret;

	lab_error_clear(&err);
	ret = floor_load(put(name, text), &f, &err);
	CHECK(ret == -EINVAL);
	CHECK(f == NULL);
	CHECK_CONTAINS(err.msg, name);
	CHECK_CONTAINS(err.msg, want);
	if (ret != -EINVAL || strstr(err.msg, want) == NULL)
		fprintf(stderr, "  %s: ret %d: %s\n", name, ret, err.msg);
	floor_free(f);
}

#define HOST "\"host\": {\"kernel\": \"6.18.44\", \"machine\": \"x86_64\", \"cpu_model\": \"Xeon\", \"cpus\": 2}"
#define FIG(r, s) "{\"table\": \"pressure\", \"row\": \"" r "\", \"figure\": \"stall p99\", \"spread_pct\": " s "}"

static void classes(void)
{
	const char *why;

	CHECK(floor_classify(NULL, "pages", &why) == FLOOR_COUNT);
	CHECK_STR(why, "unit");
	CHECK(floor_classify(NULL, "pages zeroed", NULL) == FLOOR_COUNT);
	CHECK(floor_classify(NULL, "kB", NULL) == FLOOR_COUNT);
	CHECK(floor_classify(NULL, "MiB", NULL) == FLOOR_COUNT);
	CHECK(floor_classify(NULL, "bytes", NULL) == FLOOR_COUNT);
	CHECK(floor_classify(NULL, NULL, &why) == FLOOR_COUNT);
	CHECK_STR(why, "no unit");
	CHECK(floor_classify(NULL, "", NULL) == FLOOR_COUNT);
	CHECK(floor_classify(NULL, "µs", NULL) == FLOOR_TIMING);
	CHECK(floor_classify(NULL, "ms", NULL) == FLOOR_TIMING);
	CHECK(floor_classify(NULL, "ns", NULL) == FLOOR_TIMING);
	CHECK(floor_classify(NULL, "s", NULL) == FLOOR_TIMING);
	CHECK(floor_classify(NULL, "MiB/s", &why) == FLOOR_TIMING);
	CHECK_STR(why, "unit");
	CHECK(floor_classify(NULL, "req/s", NULL) == FLOOR_TIMING);
	CHECK(floor_classify(NULL, "furlongs", &why) == FLOOR_TIMING);
	CHECK_STR(why, "unit not known");
	CHECK(floor_classify("count", "ms", &why) == FLOOR_COUNT);
	CHECK_STR(why, "declared");
	CHECK(floor_classify("timing", "pages", NULL) == FLOOR_TIMING);
	/* The floor either way: a halving is as far as a doubling. */
	CHECK(!floor_above(40, 80, 100));
	CHECK(!floor_above(80, 40, 100));
	CHECK(floor_above(40, 81, 100));
	CHECK(floor_above(81, 40, 100));
	CHECK(!floor_above(100, 112, 12.5) && floor_above(100, 113, 12.5));
	CHECK(floor_above(0, 1, 100) && !floor_above(0, 0, 0));
	CHECK(floor_above(-10, 10, 100) && !floor_above(-10, -15, 100));
	CHECK_STR(floor_class_name(FLOOR_COUNT), "count");
	CHECK_STR(floor_class_name(FLOOR_TIMING), "timing");
}

static void hosts(void)
{
	json_t *a = json_loads("{\"host\": {\"kernel\": \"6.18.44\", \"machine\": \"x86_64\", "
			       "\"cpu\": {\"model\": \"Xeon\", \"online\": 2}}}", 0, NULL);
	json_t *b = json_loads("{\"host\": {\"kernel\": \"6.18.44\", \"machine\": \"x86_64\"}}", 0, NULL);
	json_t *c = json_loads("{\"host\": {\"kernel\": \"6.18.44\", \"machine\": \"x86_64\", "
			       "\"cpu\": {\"model\": \"Xeon\", \"online\": 4}}}", 0, NULL);
	json_t *d = json_loads("{\"host\": {\"kernel\": \"6.18.44\", \"machine\": \"x86_64\", \"fingerprint\": \"f1\", "
			       "\"cpu\": {\"model\": \"Xeon\", \"online\": 2}}}", 0, NULL);
	json_t *e = json_loads("{\"host\": {}}", 0, NULL);
	struct floor_host ha, hb, hc, hd, he;
	struct lab_error err;
	char why[400];

	CHECK(floor_host_of(a, "a", &ha, &err) == 0);
	CHECK(floor_host_of(b, "b", &hb, &err) == 0);
	CHECK(floor_host_of(c, "c", &hc, &err) == 0);
	CHECK(floor_host_of(d, "d", &hd, &err) == 0);
	CHECK(floor_host_of(e, "e.json", &he, &err) == -EINVAL);
	CHECK_CONTAINS(err.msg, "e.json");
	CHECK(ha.cpus == 2 && ha.has_model && hb.cpus == -1 && !hb.has_model);
	CHECK(floor_host_same(&ha, &ha, why, sizeof(why)));
	CHECK(!floor_host_same(&ha, &hb, why, sizeof(why)));
	CHECK_CONTAINS(why, "CPU model");
	CHECK(!floor_host_same(&ha, &hc, why, sizeof(why)));
	CHECK_CONTAINS(why, "2 vs 4 online CPUs");
	CHECK(!floor_host_same(&ha, &hd, why, sizeof(why)));
	CHECK_CONTAINS(why, "fingerprint");
	snprintf(hb.kernel, sizeof(hb.kernel), "6.1.0");
	CHECK(!floor_host_same(&ha, &hb, why, sizeof(why)));
	CHECK_STR(why, "kernel 6.18.44 vs 6.1.0");
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
	json_decref(e);
}

/* A comparison with one timing and one count figure, three values a side:
 * the calibration holds the timing only, pooled: 110 / 90 - 1 = 22.2 %. */
static void round_trip(void)
{
	json_t *cmp = json_loads("{\"comparisons\": [{\"figures\": ["
				 "{\"table\": \"pressure\", \"row\": \"memcg\", \"figure\": \"stall p99\", \"unit\": \"µs\", "
				 "\"class\": \"timing\", \"base\": {\"values\": [90, 100, 95]}, "
				 "\"new\": {\"values\": [110, 105, 100]}},"
				 "{\"table\": \"pressure\", \"row\": \"mincore\", \"figure\": \"Pages\", \"unit\": \"pages\", "
				 "\"class\": \"count\", \"base\": {\"values\": [1, 2, 3]}, \"new\": {\"values\": [1, 2, 3]}},"
				 "{\"table\": \"pressure\", \"row\": \"memcg\", \"figure\": \"few\", \"unit\": \"ms\", "
				 "\"class\": \"timing\", \"base\": {\"values\": [1, 2]}, \"new\": {\"values\": [1, 2, 3]}}"
				 "]}]}", 0, NULL);
	struct floor_host h = { .kernel = "6.18.44", .machine = "x86_64", .cpus = 2 };
	const char *files[] = { "a.json", "b.json" };
	struct lab_error err;
	struct floor *f = NULL;
	json_t *doc;
	char *text;
	double pct;

	CHECK(cmp != NULL);
	doc = floor_calibration(cmp, &h, "madv-free/pressure", files, 2, &err);
	CHECK(doc != NULL);
	CHECK(json_array_size(json_object_get(doc, "figures")) == 1);
	text = json_dumps(doc, JSON_INDENT(2));
	CHECK(floor_load(put("cal.json", text), &f, &err) == 0);
	CHECK(f != NULL && f->n == 1 && f->host.cpus == 2 && strcmp(f->host.kernel, "6.18.44") == 0);
	CHECK(floor_lookup(f, "pressure", "memcg", "stall p99", &pct) && fabs(pct - 22.22) < 1e-9);
	CHECK(!floor_lookup(f, "pressure", "mincore", "Pages", &pct));
	CHECK(!floor_lookup(f, "pressure", "memcg", "few", &pct));
	floor_free(f);
	free(text);
	json_decref(doc);
	/* No timing with three values a side: nothing to calibrate. */
	json_array_remove(json_object_get(json_array_get(json_object_get(cmp, "comparisons"), 0), "figures"), 0);
	CHECK(floor_calibration(cmp, &h, NULL, files, 2, &err) == NULL && err.code == EINVAL);
	json_decref(cmp);
}

static void hostile(void)
{
	struct floor *f = NULL;
	struct lab_error err;
	char *big;
	const char *path;
	size_t n;

	refused("schema.json", "{\"schema\": \"pagelab.floor/2\", " HOST ", \"figures\": []}", "schema");
	refused("notjson.json", "{\"schema\": ", "not JSON");
	refused("key.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [], \"floor\": 0}",
		"unknown key 'floor'");
	refused("hostkey.json", "{\"schema\": \"pagelab.floor/1\", \"host\": {\"kernel\": \"x\", \"uid\": 0}, "
		"\"figures\": []}", "unknown key 'uid'");
	refused("nokernel.json", "{\"schema\": \"pagelab.floor/1\", \"host\": {}, \"figures\": []}", "'kernel'");
	refused("dup.json", "{\"schema\": \"pagelab.floor/1\", \"schema\": \"pagelab.floor/1\", " HOST
		", \"figures\": []}", "duplicate");
	refused("spread.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [" FIG("m", "1e9") "]}",
		"'spread_pct' must be a number 0..1000");
	refused("negative.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [" FIG("m", "-1") "]}",
		"'spread_pct'");
	refused("string.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [" FIG("m", "\"5\"") "]}",
		"'spread_pct'");
	refused("control.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [" FIG("m\\u001b[2J", "5")
		"]}", "control character");
	refused("twice.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [" FIG("m", "5") ", "
		FIG("m", "6") "]}", "twice");
	refused("cpus.json", "{\"schema\": \"pagelab.floor/1\", \"host\": {\"kernel\": \"x\", \"cpus\": 0}, "
		"\"figures\": []}", "'cpus'");
	/* More figures than the cap (small ones, under the size cap). */
	big = malloc(FLOOR_FILE_MAX + 64);
	CHECK(big != NULL);
	n = (size_t)snprintf(big, 256, "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": [");
	for (int i = 0; i <= FLOOR_FIGURES_MAX; i++)
		n += (size_t)snprintf(big + n, 128, "%s{\"table\":\"t\",\"row\":\"r%d\",\"figure\":\"f\","
				      "\"spread_pct\":1}", i ? "," : "", i);
	snprintf(big + n, 8, "]}");
	refused("many.json", big, "at most 4096 figures");
	/* Over the size cap: refused before it is parsed. */
	memset(big, ' ', FLOOR_FILE_MAX + 10);
	big[FLOOR_FILE_MAX + 10] = '\0';
	path = put("huge.json", big);
	CHECK(floor_load(path, &f, &err) == -EFBIG);
	free(big);
	/* A FIFO: refused without blocking. */
	snprintf(big = malloc(256), 256, "%s/fifo.json", dir);
	CHECK(mkfifo(big, 0600) == 0);
	CHECK(floor_load(big, &f, &err) < 0 && f == NULL);
	free(big);
	/* Anyone may write it: base/trust.h refuses it. */
	path = put("open.json", "{\"schema\": \"pagelab.floor/1\", " HOST ", \"figures\": []}");
	CHECK(floor_load(path, &f, &err) == 0 && f != NULL && f->n == 0);
	floor_free(f);
	CHECK(chmod(path, 0666) == 0);
	CHECK(floor_load(path, &f, &err) == -EPERM && f == NULL);
	CHECK_CONTAINS(err.msg, "calibration file");
	/* Missing: -ENOENT (compare's default location may be absent). */
	snprintf(big = malloc(256), 256, "%s/none.json", dir);
	CHECK(floor_load(big, &f, &err) == -ENOENT);
	free(big);
}

/* Every object with a "figure" and a plain "unit" (not a template's
 * "{unit}") anywhere in a tables document: its class comes from its unit or
 * its declared "class", never from the unknown-unit default. */
static void rows_classed(const json_t *j, const char *file)
{
	const char *unit = json_string_value(json_object_get(j, "unit")), *why = NULL, *k;
	const json_t *v;
	size_t i;

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			rows_classed(v, file);
		return;
	}
	if (!json_is_object(j))
		return;
	if (json_object_get(j, "figure") != NULL && unit != NULL && strchr(unit, '{') == NULL) {
		floor_classify(json_string_value(json_object_get(j, "class")), unit, &why);
		if (strcmp(why, "unit not known") == 0) {
			fprintf(stderr, "%s: row '%s': unit '%s' is not known and no class is declared\n", file,
				json_string_value(json_object_get(j, "figure")), unit);
			CHECK(false);
		}
	}
	json_object_foreach((json_t *)j, k, v)
		rows_classed(v, file);
}

static void tables_classed(const char *fixtures)
{
	static const char *const pats[] = { "/../../results/reference/tables/*.json", "/../../scenarios/*/*.tables.json",
					    "/../../tests/scenarios/*.tables.json" };
	size_t files = 0;

	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		char pat[4096];
		glob_t g;

		snprintf(pat, sizeof(pat), "%s%s", fixtures, pats[p]);
		if (glob(pat, 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			json_error_t je;
			json_t *doc = json_load_file(g.gl_pathv[i], 0, &je);

			CHECK(doc != NULL);
			rows_classed(doc, g.gl_pathv[i]);
			json_decref(doc);
			files++;
		}
		globfree(&g);
	}
	CHECK(files >= 10);             /* the tree's tables were found */
}

int main(int argc, char **argv)
{
	const char *fixtures = unit_fixtures_root(argc, argv);

	if (fixtures == NULL)
		return 2;
	snprintf(dir, sizeof(dir), "/tmp/test-floor.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	classes();
	hosts();
	round_trip();
	hostile();
	tables_classed(fixtures);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return unit_report("floor");
}
