/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit_print.c — the audit's document as text (audit.h: audit_print), into
 * the FILE * the command gives.  Each line cites the kernel function whose
 * arithmetic it shows. */
#include "audit_internal.h"

#include <stdio.h>

static void print_prot(FILE *f, const json_t *a)
{
	size_t i;
	json_t *v;

	fprintf(f, "(");
	json_array_foreach(a, i, v)
		fprintf(f, "%s%lld", i ? ", " : "", (long long)json_integer_value(v));
	fprintf(f, ")");
}

static const char *J_s(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static long long J_i(const json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

/* The header and who set min_free_kbytes. */
static void print_min_free(FILE *f, const struct audit_host *h, const json_t *doc)
{
	json_t *mf = json_object_get(doc, "min_free_kbytes");
	json_t *khp = json_object_get(mf, "khugepaged"), *sq = json_object_get(mf, "sqrt");
	size_t i;

	fprintf(f, "pagelab audit: %s, %u KiB pages, pageblock %llu pages, %u node(s); THP enabled [%s]%s%s%s\n",
	       h->kernel, h->page_kb, h->pageblock_pages, h->nr_nodes, h->thp_enabled[0] ? h->thp_enabled : "none",
	       h->thp_pmd[0] ? ", PMD size [" : "", h->thp_pmd, h->thp_pmd[0] ? "]" : "");
	fprintf(f, "settings: min_free_kbytes %llu, watermark_scale_factor %llu, watermark_boost_factor %llu, "
	       "lowmem_reserve_ratio", h->params.min_free_kbytes, h->params.scale_factor, h->boost_factor);
	for (size_t k = 0; k < h->params.nr_ratio; k++)
		fprintf(f, " %llu", h->params.ratio[k]);
	fprintf(f, "\n\n");

	fprintf(f, "min_free_kbytes = %lld kB (%lld pages): set by %s\n", J_i(mf, "value_kb"), J_i(mf, "pages"),
	       J_s(mf, "set_by"));
	fprintf(f, "  %s\n", J_s(mf, "why"));
	fprintf(f, "  khugepaged %s: %s   [mm/khugepaged.c]\n",
	       json_is_true(json_object_get(mf, "khugepaged_runs")) ? "runs" : "does not run", J_s(mf, "khugepaged_rule"));
	fprintf(f, "  khugepaged: %lld pages/pageblock x %lld zones x (2 + 3x3) = %lld kB%s   "
	       "[mm/khugepaged.c: set_recommended_min_free_kbytes]\n",
	       J_i(khp, "pageblock_pages"), J_i(khp, "zones"), J_i(khp, "kb"),
	       json_is_true(json_object_get(khp, "capped")) ? " (the 5% cap decided)" : "");
	fprintf(f, "    5%% cap: nr_free_buffer_pages / 20 = %lld pages; applies while THP is on: %s\n",
	       J_i(khp, "cap_pages"), json_is_true(json_object_get(mf, "thp_pmd_enabled")) ? "yes" : "no (THP off)");
	fprintf(f, "  sqrt: int_sqrt(%lld kB x 16) = %lld kB, clamped to [128, 262144] = %lld kB   "
	       "[mm/page_alloc.c: calculate_min_free_kbytes]\n", J_i(sq, "lowmem_kb"), J_i(sq, "raw_kb"),
	       J_i(sq, "kb"));
	fprintf(f, "    lowmem = nr_free_buffer_pages: sum of (managed - high) = %lld pages", J_i(sq, "zones_pages"));
	if (J_i(sq, "lazy_pages") > 0)
		fprintf(f, " + %lld pages MemTotal counts but no zone manages yet (this kernel counts them: "
		       "measured, deferred_init=lazy)", J_i(sq, "lazy_pages"));
	fprintf(f, "\n");
	fprintf(f, "  with THP never: %lld kB%s\n", J_i(mf, "with_thp_never_kb"),
	       J_i(mf, "with_thp_never_kb") == J_i(mf, "value_kb") ? "" :
	       " (unless a user value at least that large was written: then it stays, and the kernel logs "
	       "\"min_free_kbytes is not updated to ... because user defined value ... is preferred\")");
	{
		json_t *files = json_object_get(mf, "sysctl_files"), *kl = json_object_get(mf, "kernel_log"), *file;

		fprintf(f, "  sysctl files naming it:");
		if (json_array_size(files) == 0)
			fprintf(f, " none");
		json_array_foreach(files, i, file)
			fprintf(f, " %s", json_string_value(file));
		fprintf(f, "\n  kernel log: %s\n",
		       !json_is_true(json_object_get(kl, "readable")) ? "not readable" :
		       J_i(kl, "raising_lines") + J_i(kl, "not_updated_lines") == 0 ?
		       "no \"raising min_free_kbytes\" or \"is not updated\" line: user_min_free_kbytes looks unset "
		       "(both print only after a user write)" :
		       "lines from the user_min_free_kbytes paths: a user value was written since boot");
	}

}

/* Every zone's lines and protection, predicted beside the kernel's. */
static void print_zones(FILE *f, const struct audit_host *h, const json_t *doc)
{
	json_t *zones = json_object_get(doc, "zones"), *z;
	size_t i;

	fprintf(f, "\nzones (pages)            managed     min     low    high    gap  rule   kernel min/low/high     status\n");
	json_array_foreach(zones, i, z) {
		json_t *p = json_object_get(z, "predicted"), *k = json_object_get(z, "kernel");

		fprintf(f, "  Node %lld %-8s %11lld %7lld %7lld %7lld %6lld  %-5s  %7lld/%7lld/%7lld  %s\n", J_i(z, "node"),
		       J_s(z, "zone"), J_i(z, "managed"), J_i(p, "min"), J_i(p, "low"), J_i(p, "high"), J_i(p, "gap"),
		       J_s(p, "gap_rule"), J_i(k, "min"), J_i(k, "low"), J_i(k, "high"), J_s(z, "status"));
	}
	fprintf(f, "  rules: min = min_free pages x managed / %llu lowmem pages (highmem%s: managed/1024 in [32, 128]);\n"
	       "         gap = max(min/4, managed x %llu / 10000); low = min + gap, high = low + gap\n"
	       "         [mm/page_alloc.c: __setup_per_zone_wmarks]\n",
	       json_integer_value(json_object_get(doc, "lowmem_pages")) ? (unsigned long long)J_i(doc, "lowmem_pages") : 0,
	       h->params.movable_capped ? " and movable" : "", h->params.scale_factor);
	if (J_i(doc, "zones_drift") > 0)
		fprintf(f, "  drift: %lld zone(s) carry lines computed against other managed counts%s; "
		       "a write of watermark_scale_factor recomputes them\n", J_i(doc, "zones_drift"),
		       h->lazy_init ? " (this kernel boots with deferred_init=lazy: zones grow on first touch)" :
		       " (the lines were computed at boot; managed pages changed since)");
	if (J_i(doc, "zones_mismatch") > 0)
		fprintf(f, "  MISMATCH: %lld zone(s) break the kernel's own rules: pagelab's model is wrong here\n",
		       J_i(doc, "zones_mismatch"));

	fprintf(f, "\nprotection (lowmem_reserve_ratio; zone i keeps upper zones' managed / ratio[i] from allocations "
	       "that could use them)\n  [mm/page_alloc.c: setup_per_zone_lowmem_reserve]\n");
	json_array_foreach(zones, i, z) {
		fprintf(f, "  Node %lld %-8s predicted ", J_i(z, "node"), J_s(z, "zone"));
		print_prot(f, json_object_get(json_object_get(z, "predicted"), "protection"));
		fprintf(f, "  kernel ");
		print_prot(f, json_object_get(json_object_get(z, "kernel"), "protection"));
		fprintf(f, "  %s\n", json_is_true(json_object_get(z, "protection_exact")) ? "exact" : "differs");
	}

}

/* MemAvailable's reserve, the price of --wsf, the three questions. */
static void print_reserve(FILE *f, const struct audit_host *h, const json_t *doc)
{
	json_t *ma = json_object_get(doc, "mem_available"), *q = json_object_get(doc, "questions");
	json_t *z, *wsf = json_object_get(doc, "wsf");
	size_t i;

	fprintf(f, "\nMemAvailable's reserve: totalreserve_pages %lld = %.1f MiB (per zone: max protection + high, "
	       "at most managed)\n", J_i(ma, "totalreserve_pages"), json_real_value(json_object_get(ma, "totalreserve_mib")));
	fprintf(f, "  MemAvailable = free - totalreserve + file LRU - min(LRU/2, sum low) + reclaimable - min(.../2, sum low)"
	       "   [mm/show_mem.c: si_mem_available]\n");
	fprintf(f, "  predicted %lld kB from /proc/vmstat", J_i(ma, "predicted_kb"));
	if (J_i(ma, "lazy_free_kb") > 0)
		fprintf(f, " + %lld kB free but in no zone yet (MemFree - nr_free_pages; lazy init) = %lld kB",
		       J_i(ma, "lazy_free_kb"), J_i(ma, "predicted_with_lazy_kb"));
	fprintf(f, "; /proc/meminfo says %lld kB\n", J_i(ma, "meminfo_kb"));

	if (wsf != NULL) {
		fprintf(f, "\nwatermark_scale_factor %lld instead of %llu:\n", J_i(wsf, "watermark_scale_factor"),
		       h->params.scale_factor);
		json_array_foreach(json_object_get(wsf, "zones"), i, z)
			fprintf(f, "  Node %lld %-8s gap %lld -> %lld pages (%.1f MiB, %s rule); low %lld, high %lld\n",
			       J_i(z, "node"), J_s(z, "zone"), J_i(z, "gap_now"), J_i(z, "gap"),
			       json_real_value(json_object_get(z, "gap_mib")), J_s(z, "gap_rule"), J_i(z, "low"),
			       J_i(z, "high"));
		fprintf(f, "  kswapd wakes %.1f MiB earlier (sum of low lines) and reclaims %.1f MiB further (high); "
		       "MemAvailable falls by %.1f MiB\n",
		       json_real_value(json_object_get(wsf, "low_rise_mib")),
		       json_real_value(json_object_get(wsf, "high_rise_mib")),
		       json_real_value(json_object_get(wsf, "mem_available_drop_mib")));
	}

	fprintf(f, "\nthe three questions:\n  who owns the reserve?     %s\n  is the reserve enough?    %s\n"
	       "  is kswapd keeping up?     %s\n", J_s(q, "who_owns_the_reserve"), J_s(q, "is_the_reserve_enough"),
	       J_s(q, "is_kswapd_keeping_up"));
}


void audit_print(FILE *f, const struct audit_host *h, const json_t *doc)
{
	print_min_free(f, h, doc);
	print_zones(f, h, doc);
	print_reserve(f, h, doc);
}
