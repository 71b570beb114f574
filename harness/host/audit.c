/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.c — `pagelab audit` (audit.h): the watermark arithmetic of this host,
 * computed from its own /proc and compared with what the kernel shows.
 *
 * Every formula is in harness/host/wmark.c with the kernel function it copies;
 * this file gathers the inputs, decides what each difference means, and
 * prints.  Nothing here writes to the host.
 *
 * The advice lint (--advice FILE) reads a sysctl.conf-style file ("key =
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
#include "audit.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cmd/exitcode.h"
#include "base/fileio.h"
#include "kmsg.h"
#include "knobdef.h"
#include "knobs.h"
#include "base/size.h"
#include "base/kv.h"
#include "base/zoneinfo.h"
#include "wmark.h"

/* harness/cmd/exitcode.h's statuses, and --advice's own 4 (findings). */
enum { AUDIT_OK = LAB_EXIT_RAN, AUDIT_FAIL = LAB_EXIT_HARNESS, AUDIT_USAGE = LAB_EXIT_USAGE,
       AUDIT_CANNOT = LAB_EXIT_CANNOT, AUDIT_ADVICE_ERRORS = 4, AUDIT_INTERRUPTED = LAB_EXIT_INTERRUPTED };

/* SIGINT/SIGTERM/SIGHUP are blocked for the whole audit and waited for
 * during the watch, so knobs set with --with are always put back. */
static sigset_t audit_signals;
static int audit_caught;

/* Sleep s seconds, or less if one of the blocked signals arrives. */
static void watch_wait(unsigned s)
{
	struct timespec ts = { .tv_sec = s, .tv_nsec = 0 };
	int sig = sigtimedwait(&audit_signals, NULL, &ts);

	if (sig > 0)
		audit_caught = sig;
}

/* Everything read from the host, once. */
struct host_mm {
	char kernel[128];
	int kmajor, kminor;
	unsigned page_kb;
	unsigned long long pageblock_pages;     /* PMD size / page size (x86-64: 512) */
	struct zoneinfo *zi;
	struct wm_params params;                /* as the kernel has them now */
	unsigned long long boost_factor;
	char thp_enabled[16];                   /* bracketed word, "" without THP */
	char thp_pmd[16];                       /* hugepages-<PMD>kB/enabled: always|inherit|madvise|never, "" pre-6.8 */
	bool thp_pmd_on;                        /* khugepaged runs: this kernel's activation rule (khugepaged_rule) */
	char shmem_enabled[16];                 /* transparent_hugepage/shmem_enabled, "" if absent */
	char pmd_shmem[16];                     /* hugepages-<PMD>kB/shmem_enabled (6.11+), "" if absent */
	char mthp_on[256];                      /* anon sizes other than PMD set always|madvise: "64kB=always ..." */
	char khugepaged_why[1024];              /* which control keeps khugepaged on, or why none does */
	bool lazy_init;                         /* deferred_init=lazy on the command line */
	struct kv_list meminfo, vmstat;
	unsigned nr_nodes;
};

struct kmsg_facts {
	bool readable;
	unsigned long long alloc_failures;      /* "page allocation failure" */
	unsigned long long oom_kills;           /* "Out of memory: Killed process" */
	unsigned long long raising;             /* khugepaged's "raising min_free_kbytes" (user value set) */
	unsigned long long not_updated;         /* "min_free_kbytes is not updated to" (user value preferred) */
	long long last_user_value;              /* from the last "not updated" line, -1 if none */
	long long last_not_updated_to;
};

/* ---- reading ---------------------------------------------------------------- */

static int read_text(const char *path, char **out, struct lab_error *err)
{
	return lab_read_file(path, out, NULL, err);
}

static void bracketed_word(const char *buf, char *out, size_t len)
{
	const char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;

	out[0] = '\0';
	if (a && b)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

/* Whether khugepaged runs, and so whether min_free_kbytes is khugepaged's
 * (mm/khugepaged.c: start_stop_khugepaged -> set_recommended_min_free_kbytes),
 * by this kernel's own rule, which changed twice:
 *   before 6.8   the global control alone (khugepaged_enabled());
 *   6.8 - 6.10   hugepage_flags_enabled(): the global control, or ANY anon size
 *                set always/madvise (an mTHP size of 64kB alone keeps it);
 *   6.11 +       hugepage_pmd_enabled() (commit 00f58104202c "mm: fix
 *                khugepaged activation policy"): only the PMD size counts —
 *                its own control always/madvise, or inherit with the global
 *                control on; 64kB alone no longer counts;
 *   6.13 +       and shmem's PMD size too (mm/shmem.c: shmem_hpage_pmd_enabled:
 *                shmem_enabled not deny, and the PMD size's shmem_enabled
 *                always/within_size/advise, or inherit with shmem_enabled not
 *                never).  Measured: on 6.12.117 (Debian, arm64 and x86)
 *                shmem_enabled always with THP never leaves the sqrt value.
 * (CONFIG_READ_ONLY_THP_FOR_FS adds "global control on" in 6.11+; Debian's
 * kernels do not set it, and the global control already counts through the
 * PMD size's inherit.) */
static void khugepaged_rule(struct host_mm *h)
{
	char path[300], *w = h->mthp_on;
	size_t left = sizeof(h->mthp_on);
	bool global = h->thp_enabled[0] && strcmp(h->thp_enabled, "never") != 0;
	bool v611 = h->kmajor > 6 || (h->kmajor == 6 && h->kminor >= 11);
	bool v68 = h->kmajor > 6 || (h->kmajor == 6 && h->kminor >= 8);
	bool v613 = h->kmajor > 6 || (h->kmajor == 6 && h->kminor >= 13);
	bool pmd_own = h->thp_pmd[0] && strcmp(h->thp_pmd, "inherit") != 0 && strcmp(h->thp_pmd, "never") != 0;
	bool pmd_inherit = h->thp_pmd[0] == '\0' || strcmp(h->thp_pmd, "inherit") == 0;
	bool shmem_pmd = false;
	DIR *d;
	struct dirent *de;

	h->mthp_on[0] = '\0';
	{
		cleanup_free char *sh = NULL;
		cleanup_free char *psh = NULL;
		struct lab_error e;

		if (read_text("/sys/kernel/mm/transparent_hugepage/shmem_enabled", &sh, &e) == 0)
			bracketed_word(sh, h->shmem_enabled, sizeof(h->shmem_enabled));
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/shmem_enabled",
			 h->pageblock_pages * h->page_kb);
		if (read_text(path, &psh, &e) == 0)
			bracketed_word(psh, h->pmd_shmem, sizeof(h->pmd_shmem));
	}
	if ((d = opendir("/sys/kernel/mm/transparent_hugepage")) != NULL) {
		while ((de = readdir(d)) != NULL) {
			cleanup_free char *en = NULL;
			unsigned long long kb;
			char mode[16], *end;
			struct lab_error e;
			int n;

			if (strncmp(de->d_name, "hugepages-", 10) != 0)
				continue;
			kb = strtoull(de->d_name + 10, &end, 10);
			if (strcmp(end, "kB") != 0 || kb == h->pageblock_pages * h->page_kb)
				continue;
			snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s/enabled", de->d_name);
			if (read_text(path, &en, &e) < 0)
				continue;
			bracketed_word(en, mode, sizeof(mode));
			if (strcmp(mode, "always") != 0 && strcmp(mode, "madvise") != 0)
				continue;
			n = snprintf(w, left, "%s%llukB=%s", w == h->mthp_on ? "" : " ", kb, mode);
			if (n > 0 && (size_t)n < left) {
				w += n;
				left -= (size_t)n;
			}
		}
		closedir(d);
	}
	if (v613 && h->shmem_enabled[0] && strcmp(h->shmem_enabled, "deny") != 0 && h->pmd_shmem[0]) {
		if (strcmp(h->pmd_shmem, "inherit") == 0)
			shmem_pmd = strcmp(h->shmem_enabled, "never") != 0;
		else
			shmem_pmd = strcmp(h->pmd_shmem, "never") != 0;
	}
	if (!v68) {
		h->thp_pmd_on = global;
		snprintf(h->khugepaged_why, sizeof(h->khugepaged_why),
			 "before 6.8 khugepaged follows THP enabled alone: [%s]", h->thp_enabled);
	} else if (!v611) {
		h->thp_pmd_on = global || (pmd_own) || h->mthp_on[0];
		snprintf(h->khugepaged_why, sizeof(h->khugepaged_why),
			 "6.8-6.10 (hugepage_flags_enabled): THP enabled [%s]; any anon size always/madvise "
			 "counts too: PMD [%s], others: %s", h->thp_enabled, h->thp_pmd,
			 h->mthp_on[0] ? h->mthp_on : "none");
	} else {
		h->thp_pmd_on = pmd_own || (pmd_inherit && global) || shmem_pmd;
		snprintf(h->khugepaged_why, sizeof(h->khugepaged_why),
			 "6.11+ (hugepage_pmd_enabled): only the PMD size counts: anon hugepages-%llukB [%s]%s; "
			 "shmem [%s], hugepages-%llukB/shmem_enabled [%s]: %s; %s%s",
			 h->pageblock_pages * h->page_kb, h->thp_pmd[0] ? h->thp_pmd : "none",
			 pmd_inherit ? (global ? ", inheriting THP enabled, which is on"
					       : ", inheriting THP enabled, which is never") : "",
			 h->shmem_enabled[0] ? h->shmem_enabled : "none", h->pageblock_pages * h->page_kb,
			 h->pmd_shmem[0] ? h->pmd_shmem : "none",
			 !v613 ? "does not count before 6.13" : shmem_pmd ? "on" : "off",
			 h->mthp_on[0] ? "other anon sizes on, which do not keep khugepaged: " : "no other anon size on",
			 h->mthp_on);
	}
}

static int host_mm_read(struct host_mm *h, struct lab_error *err)
{
	cleanup_free char *zbuf = NULL;
	cleanup_free char *mi = NULL;
	cleanup_free char *vs = NULL;
	cleanup_free char *ratio = NULL;
	cleanup_free char *cmd = NULL;
	struct utsname u;
	unsigned long long v;
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%.127s", u.release);
	sscanf(h->kernel, "%d.%d", &h->kmajor, &h->kminor);
	h->page_kb = (unsigned)(page / 1024);
	h->zi = calloc(1, sizeof(*h->zi));
	if (h->zi == NULL)
		return lab_error_errno(err, ENOMEM, "zoneinfo");
	if ((ret = read_text("/proc/zoneinfo", &zbuf, err)) < 0 || (ret = zoneinfo_parse(zbuf, h->zi, err)) < 0)
		return lab_error_prefix(err, "/proc/zoneinfo");
	for (size_t i = 0; i < h->zi->n; i++)
		if (i == 0 || h->zi->zones[i].node != h->zi->zones[i - 1].node)
			h->nr_nodes++;
	if ((ret = read_text("/proc/meminfo", &mi, err)) < 0 || (ret = kv_parse_colon(mi, &h->meminfo, err)) < 0)
		return lab_error_prefix(err, "/proc/meminfo");
	if ((ret = read_text("/proc/vmstat", &vs, err)) < 0 || (ret = kv_parse_space(vs, &h->vmstat, err)) < 0)
		return lab_error_prefix(err, "/proc/vmstat");
	if ((ret = lab_read_u64("/proc/sys/vm/min_free_kbytes", &h->params.min_free_kbytes, err)) < 0 ||
	    (ret = lab_read_u64("/proc/sys/vm/watermark_scale_factor", &h->params.scale_factor, err)) < 0)
		return ret;
	if (lab_read_u64("/proc/sys/vm/watermark_boost_factor", &v, err) == 0)
		h->boost_factor = v;
	if ((ret = read_text("/proc/sys/vm/lowmem_reserve_ratio", &ratio, err)) < 0)
		return ret;
	for (char *p = ratio, *end; *p && h->params.nr_ratio < ZONEINFO_MAX_PROT; p = end) {
		long long r = strtoll(p, &end, 10);

		if (end == p)
			break;
		h->params.ratio[h->params.nr_ratio++] = r < 0 ? 0 : (unsigned long long)r;
	}
	h->params.page_kb = h->page_kb;
	/* 6.2+: ZONE_MOVABLE takes the highmem rule (see wmark.h). */
	h->params.movable_capped = h->kmajor > 6 || (h->kmajor == 6 && h->kminor >= 2);
	/* pageblock_order is HPAGE_PMD_ORDER where THP is built in
	 * (include/linux/pageblock-flags.h). */
	h->pageblock_pages = 512;
	if (lab_read_u64("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", &v, err) == 0 && page > 0)
		h->pageblock_pages = v / (unsigned long long)page;
	{
		cleanup_free char *en = NULL;
		cleanup_free char *pmd = NULL;
		char path[256];
		struct lab_error e;

		if (read_text("/sys/kernel/mm/transparent_hugepage/enabled", &en, &e) == 0)
			bracketed_word(en, h->thp_enabled, sizeof(h->thp_enabled));
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/enabled",
			 h->pageblock_pages * h->page_kb);
		if (read_text(path, &pmd, &e) == 0)
			bracketed_word(pmd, h->thp_pmd, sizeof(h->thp_pmd));
		khugepaged_rule(h);
	}
	if (read_text("/proc/cmdline", &cmd, err) == 0) {
		char *dd = strstr(cmd, " -- ");

		if (dd)
			*dd = '\0';     /* what follows belongs to init */
		h->lazy_init = strstr(cmd, "deferred_init=lazy") != NULL;
	}
	lab_error_clear(err);
	return 0;
}

static void host_mm_free(struct host_mm *h)
{
	free(h->zi);
	kv_free(&h->meminfo);
	kv_free(&h->vmstat);
}

/* The kernel log, from the start of the ring buffer (root; nothing consumed:
 * /dev/kmsg readers each have their own position). */
static void kmsg_scan(struct kmsg_facts *k)
{
	struct kmsg_log log = { 0 };
	int fd = kmsg_open(false);

	memset(k, 0, sizeof(*k));
	k->last_user_value = -1;
	k->last_not_updated_to = -1;
	if (fd < 0)
		return;
	k->readable = true;
	kmsg_drain(fd, &log, kmsg_interesting, (size_t)-1);
	close(fd);
	for (size_t i = 0; i < log.n; i++) {
		const char *msg = log.recs[i].text, *p;

		if (strstr(msg, "page allocation failure"))
			k->alloc_failures++;
		if (strstr(msg, "Out of memory: Killed process"))
			k->oom_kills++;
		if (strstr(msg, "raising min_free_kbytes from"))
			k->raising++;
		if ((p = strstr(msg, "min_free_kbytes is not updated to ")) != NULL) {
			long long to = 0, user = 0;

			k->not_updated++;
			if (sscanf(p, "min_free_kbytes is not updated to %lld because user defined value %lld", &to,
				   &user) == 2) {
				k->last_not_updated_to = to;
				k->last_user_value = user;
			}
		}
	}
	kmsg_log_free(&log);
}

/* Files that set min_free_kbytes at boot (systemd-sysctl / procps order). */
static void sysctl_files_naming(const char *knob, json_t *out)
{
	static const char *const dirs[] = { "/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d",
					     "/usr/lib/sysctl.d", "/lib/sysctl.d" };
	char path[PATH_MAX];

	for (size_t d = 0; d <= sizeof(dirs) / sizeof(dirs[0]); d++) {
		DIR *dir;
		struct dirent *de;

		if (d == sizeof(dirs) / sizeof(dirs[0])) {
			cleanup_free char *buf = NULL;
			struct lab_error e;

			if (read_text("/etc/sysctl.conf", &buf, &e) == 0 && strstr(buf, knob) != NULL)
				json_array_append_new(out, json_string("/etc/sysctl.conf"));
			break;
		}
		if ((dir = opendir(dirs[d])) == NULL)
			continue;
		while ((de = readdir(dir)) != NULL) {
			cleanup_free char *buf = NULL;
			struct lab_error e;

			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], de->d_name);
			if (read_text(path, &buf, &e) == 0 && strstr(buf, knob) != NULL)
				json_array_append_new(out, json_string(path));
		}
		closedir(dir);
	}
}

/* ---- the arithmetic, gathered --------------------------------------------- */

/* Pages MemTotal counts that no zone manages yet: 0 on a mainline kernel
 * (totalram_pages is the sum of the zones' managed pages once deferred init
 * has finished, before userspace starts), the lazily initialised rest on a
 * kernel booted with deferred_init=lazy. */
static unsigned long long lazy_pages(const struct host_mm *h)
{
	unsigned long long total = kv_get0(&h->meminfo, "MemTotal") / h->page_kb, managed = 0;

	for (size_t i = 0; i < h->zi->n; i++)
		managed += h->zi->zones[i].managed;
	return total > managed ? total - managed : 0;
}

/* nr_free_buffer_pages() as this kernel computes it: the zones' managed
 * minus high, plus — measured on 6.18 with deferred_init=lazy, where THP
 * never gave int_sqrt((MemTotal - sum of high) x 16), not the zones' sum —
 * the memory not yet in any zone. */
static unsigned long long free_buffer_pages(const struct host_mm *h)
{
	return wmark_free_buffer_pages(h->zi) + lazy_pages(h);
}

static double mib(unsigned long long pages, unsigned page_kb)
{
	return (double)pages * page_kb / 1024.0;
}

/* The sqrt value as the kernel computes it when THP goes off while the lines
 * of min_free_kbytes = from_kb are still in force: mm/khugepaged.c
 * set_recommended_min_free_kbytes calls calculate_min_free_kbytes (which reads
 * nr_free_buffer_pages, managed - high, with the OLD high lines) before
 * setup_per_zone_wmarks draws the new ones.  So right after a drop the value
 * is a little below what the new lines give (measured on a 2 GB 6.12 guest:
 * 5,590 kB, 1.5 % under the 5,673 kB of the lines it drew). */
static unsigned long long sqrt_under_lines(const struct host_mm *h, unsigned long long from_kb)
{
	struct wm_params p = h->params;
	struct wm_prediction pr;
	unsigned long long fb = 0, raw;

	p.min_free_kbytes = from_kb;
	if (wmark_predict(h->zi, &p, &pr) < 0)
		return 0;
	for (size_t i = 0; i < h->zi->n; i++) {
		const struct zone_info *z = &h->zi->zones[i];

		if (wmark_zone_lowmem(z) && z->managed > pr.zones[i].high)
			fb += z->managed - pr.zones[i].high;
	}
	return wmark_sqrt_min_free_kb(fb + lazy_pages(h), h->page_kb, &raw);
}

/* Who set min_free_kbytes, and what THP off would make of it. */
static json_t *min_free_json(const struct host_mm *h, const struct kmsg_facts *k)
{
	json_t *o = json_object(), *files = json_array();
	unsigned long long fb = free_buffer_pages(h), raw;
	unsigned nz = wmark_populated_lowmem_zones(h->zi);
	bool capped = false;
	unsigned long long khp = wmark_khugepaged_min_free_kb(h->pageblock_pages, nz, fb, h->page_kb, &capped);
	unsigned long long sq = wmark_sqrt_min_free_kb(fb, h->page_kb, &raw);
	unsigned long long m = h->params.min_free_kbytes;
	const char *by, *why;
	unsigned long long never, sqk = 0;

	sysctl_files_naming("min_free_kbytes", files);
	if (h->thp_pmd_on && m == khp && khp >= sq) {
		by = "khugepaged";
		why = "khugepaged's formula (THP is on): pageblock_nr_pages x populated zones x (2 + 3 x 3); "
		      "larger than the sqrt value, so it replaced it when THP started";
	} else if (m == sq || (!h->thp_pmd_on && m * 100 >= sq * 99 && m * 100 <= sq * 101)) {
		by = "sqrt";
		why = "the sqrt formula: int_sqrt(lowmem_kb x 16), clamped to [128, 262144]";
	} else if (!h->thp_pmd_on && m * 100 >= (sqk = sqrt_under_lines(h, khp)) * 99 && m * 100 <= sqk * 101) {
		by = "sqrt";
		why = "the sqrt formula, computed when THP went off with khugepaged's lines still in force "
		      "(calculate_min_free_kbytes runs before setup_per_zone_wmarks), so a little below "
		      "what the lines it drew would give";
	} else {
		by = "user";
		why = "neither formula gives it: written by a user (sysctl, a sysctl.d file at boot) — "
		      "or computed when the zones held other managed counts";
	}
	/* THP off: calculate_min_free_kbytes, which defers to a larger user value. */
	never = sq;
	if (k->last_user_value >= 0 && (unsigned long long)k->last_user_value >= sq)
		never = m;
	json_object_set_new(o, "value_kb", json_integer((json_int_t)m));
	json_object_set_new(o, "pages", json_integer((json_int_t)(m / h->page_kb)));
	json_object_set_new(o, "set_by", json_string(by));
	json_object_set_new(o, "why", json_string(why));
	json_object_set_new(o, "thp_pmd_enabled", json_boolean(h->thp_pmd_on));
	json_object_set_new(o, "khugepaged_runs", json_boolean(h->thp_pmd_on));
	json_object_set_new(o, "khugepaged_rule", json_string(h->khugepaged_why));
	json_object_set_new(o, "khugepaged", json_pack("{s:I, s:I, s:I, s:I, s:b, s:s}",
		"pageblock_pages", (json_int_t)h->pageblock_pages, "zones", (json_int_t)nz,
		"kb", (json_int_t)khp, "cap_pages", (json_int_t)(fb / 20), "capped", capped,
		"source", "mm/khugepaged.c: set_recommended_min_free_kbytes"));
	json_object_set_new(o, "sqrt", json_pack("{s:I, s:I, s:I, s:I, s:I, s:s}",
		"lowmem_kb", (json_int_t)(fb * h->page_kb), "zones_pages", (json_int_t)wmark_free_buffer_pages(h->zi),
		"lazy_pages", (json_int_t)lazy_pages(h), "raw_kb", (json_int_t)raw, "kb", (json_int_t)sq,
		"source", "mm/page_alloc.c: calculate_min_free_kbytes (nr_free_buffer_pages = sum of managed - high)"));
	json_object_set_new(o, "with_thp_never_kb", json_integer((json_int_t)never));
	json_object_set_new(json_object_get(o, "sqrt"), "kb_under_khugepaged_lines",
			    json_integer((json_int_t)sqrt_under_lines(h, khp)));
	json_object_set_new(o, "sysctl_files", files);
	json_object_set_new(o, "kernel_log", json_pack("{s:b, s:I, s:I, s:I}", "readable", k->readable,
		"raising_lines", (json_int_t)k->raising, "not_updated_lines", (json_int_t)k->not_updated,
		"user_value_seen", (json_int_t)k->last_user_value));
	/* Evidence of a user write: the kernel prints these only once
	 * user_min_free_kbytes >= 0 (mm/khugepaged.c, mm/page_alloc.c). */
	json_object_set_new(o, "user_write_evidence", json_boolean(k->raising > 0 || k->not_updated > 0 ||
								   strcmp(by, "user") == 0));
	return o;
}

static const char *zone_status(const struct zone_info *z, const struct wm_zone *w)
{
	unsigned long long kmin, klow, khigh;

	if (w->min + z->boost == z->min && w->low + z->boost == z->low && w->high + z->boost == z->high)
		return "exact";
	/* Internally consistent lines (the kernel's rules hold on what it
	 * prints) computed against other managed counts: "drift". */
	kmin = z->min - z->boost;
	klow = z->low - z->boost;
	khigh = z->high - z->boost;
	if (klow >= kmin && klow - kmin == khigh - klow && (w->capped || klow - kmin >= kmin / 4))
		return "drift";
	return "mismatch";
}

static json_t *protection_json(const unsigned long long *p, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)p[i]));
	return a;
}

static json_t *zones_json(const struct host_mm *h, const struct wm_prediction *pr, int *nr_drift,
			  int *nr_mismatch)
{
	json_t *a = json_array();

	*nr_drift = *nr_mismatch = 0;
	for (size_t i = 0; i < h->zi->n; i++) {
		const struct zone_info *z = &h->zi->zones[i];
		const struct wm_zone *w = &pr->zones[i];
		const char *st = zone_status(z, w);
		bool prot_eq = w->nr_protection == z->nr_protection;

		for (size_t k = 0; prot_eq && k < z->nr_protection; k++)
			prot_eq = w->protection[k] == z->protection[k];
		if (!prot_eq && !strcmp(st, "exact"))
			st = "drift";
		if (!strcmp(st, "drift"))
			(*nr_drift)++;
		if (!strcmp(st, "mismatch"))
			(*nr_mismatch)++;
		json_array_append_new(a, json_pack(
			"{s:i, s:s, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:s, s:b, s:o}, "
			"s:{s:I, s:I, s:I, s:I, s:o}, s:s, s:b, s:I}",
			"node", z->node, "zone", z->name, "managed", (json_int_t)z->managed,
			"present", (json_int_t)z->present, "free", (json_int_t)z->free,
			"predicted", "min", (json_int_t)w->min, "low", (json_int_t)w->low, "high", (json_int_t)w->high,
			"promo", (json_int_t)w->promo, "gap", (json_int_t)w->gap,
			"gap_rule", z->managed == 0 ? "none" : w->gap_from_scale ? "scale" : "min/4",
			"capped", w->capped, "protection", protection_json(w->protection, w->nr_protection),
			"kernel", "min", (json_int_t)z->min, "low", (json_int_t)z->low, "high", (json_int_t)z->high,
			"boost", (json_int_t)z->boost, "protection", protection_json(z->protection, z->nr_protection),
			"status", st, "protection_exact", prot_eq, "reserve", (json_int_t)w->reserve));
	}
	return a;
}

static json_t *mem_available_json(const struct host_mm *h, const struct wm_prediction *pr)
{
	struct wm_avail_in in;
	unsigned long long tr, low, free_kb = kv_get0(&h->meminfo, "MemFree");
	unsigned long long avail_kb = kv_get0(&h->meminfo, "MemAvailable");
	long long pred, lazy;

	wmark_observed(h->zi, &tr, &low);
	in.free_pages = kv_get0(&h->vmstat, "nr_free_pages");
	in.file_lru = kv_get0(&h->vmstat, "nr_active_file") + kv_get0(&h->vmstat, "nr_inactive_file");
	in.slab_reclaimable = kv_get0(&h->vmstat, "nr_slab_reclaimable");
	in.misc_reclaimable = kv_get0(&h->vmstat, "nr_kernel_misc_reclaimable");
	pred = wmark_mem_available(&in, tr, low) * h->page_kb;
	/* MemFree beyond the zones' free pages: memory the kernel counts as free
	 * that no zone manages yet (deferred_init=lazy here).  MemAvailable
	 * counts it too; si_mem_available's zone arithmetic does not see it. */
	lazy = (long long)free_kb - (long long)(in.free_pages * h->page_kb);
	if (lazy < 0)
		lazy = 0;
	return json_pack("{s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:s}",
			 "totalreserve_pages", (json_int_t)tr, "totalreserve_mib", mib(tr, h->page_kb),
			 "predicted_totalreserve_pages", (json_int_t)pr->totalreserve,
			 "wmark_low_pages", (json_int_t)low,
			 "predicted_kb", (json_int_t)pred, "lazy_free_kb", (json_int_t)lazy,
			 "predicted_with_lazy_kb", (json_int_t)(pred + lazy),
			 "meminfo_kb", (json_int_t)avail_kb,
			 "source", "mm/show_mem.c: si_mem_available; mm/page_alloc.c: calculate_totalreserve_pages");
}

/* --wsf N: the gap and the lines at scale N, per zone and summed. */
static json_t *wsf_json(const struct host_mm *h, const struct wm_prediction *now, unsigned long long wsf)
{
	struct wm_params p = h->params;
	struct wm_prediction at;
	json_t *o = json_object(), *zones = json_array();
	long long dlow = 0, dhigh = 0;

	p.scale_factor = wsf;
	if (wmark_predict(h->zi, &p, &at) < 0)
		return o;
	for (size_t i = 0; i < h->zi->n; i++) {
		const struct zone_info *z = &h->zi->zones[i];

		if (z->managed == 0)
			continue;
		dlow += (long long)at.zones[i].low - (long long)now->zones[i].low;
		dhigh += (long long)at.zones[i].high - (long long)now->zones[i].high;
		json_array_append_new(zones, json_pack("{s:i, s:s, s:I, s:I, s:f, s:I, s:I, s:s}",
			"node", z->node, "zone", z->name, "gap_now", (json_int_t)now->zones[i].gap,
			"gap", (json_int_t)at.zones[i].gap, "gap_mib", mib(at.zones[i].gap, h->page_kb),
			"low", (json_int_t)at.zones[i].low, "high", (json_int_t)at.zones[i].high,
			"gap_rule", at.zones[i].gap_from_scale ? "scale" : "min/4"));
	}
	json_object_set_new(o, "watermark_scale_factor", json_integer((json_int_t)wsf));
	json_object_set_new(o, "zones", zones);
	json_object_set_new(o, "low_rise_pages", json_integer(dlow));
	json_object_set_new(o, "low_rise_mib", json_real((double)dlow * h->page_kb / 1024.0));
	json_object_set_new(o, "high_rise_pages", json_integer(dhigh));
	json_object_set_new(o, "high_rise_mib", json_real((double)dhigh * h->page_kb / 1024.0));
	json_object_set_new(o, "totalreserve_pages", json_integer((json_int_t)at.totalreserve));
	json_object_set_new(o, "mem_available_drop_mib",
			    json_real(((double)at.totalreserve - (double)now->totalreserve) * h->page_kb / 1024.0));
	return o;
}

static unsigned long long vm_sum_prefix(const struct kv_list *l, const char *prefix)
{
	unsigned long long s = 0;
	size_t n = strlen(prefix);

	for (size_t i = 0; i < l->n; i++)
		if (strncmp(l->items[i].key, prefix, n) == 0)
			s += l->items[i].val;
	return s;
}

/* The article's three questions. */
static json_t *questions_json(const struct host_mm *h, const struct kmsg_facts *k, json_t *mf, unsigned watch_s)
{
	json_t *o = json_object();
	unsigned long long st0 = vm_sum_prefix(&h->vmstat, "allocstall_"),
			   lq0 = kv_get0(&h->vmstat, "kswapd_low_wmark_hit_quickly"),
			   hq0 = kv_get0(&h->vmstat, "kswapd_high_wmark_hit_quickly"),
			   ks0 = kv_get0(&h->vmstat, "pgscan_kswapd"),
			   ds0 = kv_get0(&h->vmstat, "pgscan_direct"),
			   so0 = kv_get0(&h->vmstat, "pswpout");
	unsigned long long st1 = st0, lq1 = lq0, hq1 = hq0, ks1 = ks0, ds1 = ds0, so1 = so0;
	const char *owner = json_string_value(json_object_get(mf, "set_by"));
	char a1[512], a2[512], a3[512];

	if (watch_s > 0) {
		cleanup_free char *vs = NULL;
		struct kv_list l = { 0 };
		struct lab_error e;

		watch_wait(watch_s);
		if (read_text("/proc/vmstat", &vs, &e) == 0 && kv_parse_space(vs, &l, &e) == 0) {
			st1 = vm_sum_prefix(&l, "allocstall_");
			lq1 = kv_get0(&l, "kswapd_low_wmark_hit_quickly");
			hq1 = kv_get0(&l, "kswapd_high_wmark_hit_quickly");
			ks1 = kv_get0(&l, "pgscan_kswapd");
			ds1 = kv_get0(&l, "pgscan_direct");
			so1 = kv_get0(&l, "pswpout");
		}
		kv_free(&l);
	}
	snprintf(a1, sizeof(a1), "%s: %s%s",
		 !strcmp(owner, "khugepaged") ? "THP's (khugepaged)" : !strcmp(owner, "sqrt") ? "the kernel's sqrt formula"
		 : "a user write",
		 json_array_size(json_object_get(mf, "sysctl_files")) ? "a sysctl file names it" :
		 "no sysctl file names it",
		 !strcmp(owner, "khugepaged") ? "; disable THP and it drops" : "");
	if (!k->readable)
		snprintf(a2, sizeof(a2), "unknown: /dev/kmsg is not readable (needs root)");
	else if (k->alloc_failures == 0)
		snprintf(a2, sizeof(a2), "yes: no \"page allocation failure\" in the kernel log: no reason to touch "
			 "min_free_kbytes");
	else
		snprintf(a2, sizeof(a2), "maybe not: %llu \"page allocation failure\" line(s) in the kernel log",
			 k->alloc_failures);
	if (watch_s == 0)
		snprintf(a3, sizeof(a3), "not watched (--watch 0); since boot: allocstall %llu, "
			 "kswapd_low_wmark_hit_quickly %llu", st0, lq0);
	else if (st1 > st0 && lq1 > lq0)
		snprintf(a3, sizeof(a3), "no: in %u s allocstall grew by %llu and kswapd_low_wmark_hit_quickly by %llu: "
			 "processes breach the line and kswapd wakes late; the knob is watermark_scale_factor "
			 "(--wsf shows the cost)", watch_s, st1 - st0, lq1 - lq0);
	else if (st1 > st0)
		snprintf(a3, sizeof(a3), "under strain: allocstall grew by %llu in %u s (direct reclaim)", st1 - st0,
			 watch_s);
	else
		snprintf(a3, sizeof(a3), "yes: in %u s neither allocstall nor kswapd_low_wmark_hit_quickly grew "
			 "(since boot: %llu and %llu)", watch_s, st1, lq1);
	json_object_set_new(o, "who_owns_the_reserve", json_string(a1));
	json_object_set_new(o, "is_the_reserve_enough", json_string(a2));
	json_object_set_new(o, "is_kswapd_keeping_up", json_string(a3));
	json_object_set_new(o, "watch_s", json_integer(watch_s));
	json_object_set_new(o, "counters", json_pack("{s:[I,I], s:[I,I], s:[I,I], s:[I,I], s:[I,I], s:[I,I]}",
		"allocstall", (json_int_t)st0, (json_int_t)st1,
		"kswapd_low_wmark_hit_quickly", (json_int_t)lq0, (json_int_t)lq1,
		"kswapd_high_wmark_hit_quickly", (json_int_t)hq0, (json_int_t)hq1,
		"pgscan_kswapd", (json_int_t)ks0, (json_int_t)ks1,
		"pgscan_direct", (json_int_t)ds0, (json_int_t)ds1,
		"pswpout", (json_int_t)so0, (json_int_t)so1));
	json_object_set_new(o, "kernel_log", json_pack("{s:I, s:I}", "page_allocation_failures",
		(json_int_t)k->alloc_failures, "oom_kills", (json_int_t)k->oom_kills));
	return o;
}

/* ---- printing ------------------------------------------------------------- */

static void print_prot(const json_t *a)
{
	size_t i;
	json_t *v;

	printf("(");
	json_array_foreach(a, i, v)
		printf("%s%lld", i ? ", " : "", (long long)json_integer_value(v));
	printf(")");
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

static void print_audit(const struct host_mm *h, json_t *doc)
{
	json_t *mf = json_object_get(doc, "min_free_kbytes"), *zones = json_object_get(doc, "zones");
	json_t *ma = json_object_get(doc, "mem_available"), *q = json_object_get(doc, "questions");
	json_t *khp = json_object_get(mf, "khugepaged"), *sq = json_object_get(mf, "sqrt");
	json_t *z, *wsf = json_object_get(doc, "wsf");
	size_t i;

	printf("pagelab audit: %s, %u KiB pages, pageblock %llu pages, %u node(s); THP enabled [%s]%s%s%s\n",
	       h->kernel, h->page_kb, h->pageblock_pages, h->nr_nodes, h->thp_enabled[0] ? h->thp_enabled : "none",
	       h->thp_pmd[0] ? ", PMD size [" : "", h->thp_pmd, h->thp_pmd[0] ? "]" : "");
	printf("settings: min_free_kbytes %llu, watermark_scale_factor %llu, watermark_boost_factor %llu, "
	       "lowmem_reserve_ratio", h->params.min_free_kbytes, h->params.scale_factor, h->boost_factor);
	for (size_t k = 0; k < h->params.nr_ratio; k++)
		printf(" %llu", h->params.ratio[k]);
	printf("\n\n");

	printf("min_free_kbytes = %lld kB (%lld pages): set by %s\n", J_i(mf, "value_kb"), J_i(mf, "pages"),
	       J_s(mf, "set_by"));
	printf("  %s\n", J_s(mf, "why"));
	printf("  khugepaged %s: %s   [mm/khugepaged.c]\n",
	       json_is_true(json_object_get(mf, "khugepaged_runs")) ? "runs" : "does not run", J_s(mf, "khugepaged_rule"));
	printf("  khugepaged: %lld pages/pageblock x %lld zones x (2 + 3x3) = %lld kB%s   "
	       "[mm/khugepaged.c: set_recommended_min_free_kbytes]\n",
	       J_i(khp, "pageblock_pages"), J_i(khp, "zones"), J_i(khp, "kb"),
	       json_is_true(json_object_get(khp, "capped")) ? " (the 5% cap decided)" : "");
	printf("    5%% cap: nr_free_buffer_pages / 20 = %lld pages; applies while THP is on: %s\n",
	       J_i(khp, "cap_pages"), json_is_true(json_object_get(mf, "thp_pmd_enabled")) ? "yes" : "no (THP off)");
	printf("  sqrt: int_sqrt(%lld kB x 16) = %lld kB, clamped to [128, 262144] = %lld kB   "
	       "[mm/page_alloc.c: calculate_min_free_kbytes]\n", J_i(sq, "lowmem_kb"), J_i(sq, "raw_kb"),
	       J_i(sq, "kb"));
	printf("    lowmem = nr_free_buffer_pages: sum of (managed - high) = %lld pages", J_i(sq, "zones_pages"));
	if (J_i(sq, "lazy_pages") > 0)
		printf(" + %lld pages MemTotal counts but no zone manages yet (this kernel counts them: "
		       "measured, deferred_init=lazy)", J_i(sq, "lazy_pages"));
	printf("\n");
	printf("  with THP never: %lld kB%s\n", J_i(mf, "with_thp_never_kb"),
	       J_i(mf, "with_thp_never_kb") == J_i(mf, "value_kb") ? "" :
	       " (unless a user value at least that large was written: then it stays, and the kernel logs "
	       "\"min_free_kbytes is not updated to ... because user defined value ... is preferred\")");
	{
		json_t *files = json_object_get(mf, "sysctl_files"), *kl = json_object_get(mf, "kernel_log"), *f;

		printf("  sysctl files naming it:");
		if (json_array_size(files) == 0)
			printf(" none");
		json_array_foreach(files, i, f)
			printf(" %s", json_string_value(f));
		printf("\n  kernel log: %s\n",
		       !json_is_true(json_object_get(kl, "readable")) ? "not readable" :
		       J_i(kl, "raising_lines") + J_i(kl, "not_updated_lines") == 0 ?
		       "no \"raising min_free_kbytes\" or \"is not updated\" line: user_min_free_kbytes looks unset "
		       "(both print only after a user write)" :
		       "lines from the user_min_free_kbytes paths: a user value was written since boot");
	}

	printf("\nzones (pages)            managed     min     low    high    gap  rule   kernel min/low/high     status\n");
	json_array_foreach(zones, i, z) {
		json_t *p = json_object_get(z, "predicted"), *k = json_object_get(z, "kernel");

		printf("  Node %lld %-8s %11lld %7lld %7lld %7lld %6lld  %-5s  %7lld/%7lld/%7lld  %s\n", J_i(z, "node"),
		       J_s(z, "zone"), J_i(z, "managed"), J_i(p, "min"), J_i(p, "low"), J_i(p, "high"), J_i(p, "gap"),
		       J_s(p, "gap_rule"), J_i(k, "min"), J_i(k, "low"), J_i(k, "high"), J_s(z, "status"));
	}
	printf("  rules: min = min_free pages x managed / %llu lowmem pages (highmem%s: managed/1024 in [32, 128]);\n"
	       "         gap = max(min/4, managed x %llu / 10000); low = min + gap, high = low + gap\n"
	       "         [mm/page_alloc.c: __setup_per_zone_wmarks]\n",
	       json_integer_value(json_object_get(doc, "lowmem_pages")) ? (unsigned long long)J_i(doc, "lowmem_pages") : 0,
	       h->params.movable_capped ? " and movable" : "", h->params.scale_factor);
	if (J_i(doc, "zones_drift") > 0)
		printf("  drift: %lld zone(s) carry lines computed against other managed counts%s; "
		       "a write of watermark_scale_factor recomputes them\n", J_i(doc, "zones_drift"),
		       h->lazy_init ? " (this kernel boots with deferred_init=lazy: zones grow on first touch)" :
		       " (the lines were computed at boot; managed pages changed since)");
	if (J_i(doc, "zones_mismatch") > 0)
		printf("  MISMATCH: %lld zone(s) break the kernel's own rules: pagelab's model is wrong here\n",
		       J_i(doc, "zones_mismatch"));

	printf("\nprotection (lowmem_reserve_ratio; zone i keeps upper zones' managed / ratio[i] from allocations "
	       "that could use them)\n  [mm/page_alloc.c: setup_per_zone_lowmem_reserve]\n");
	json_array_foreach(zones, i, z) {
		printf("  Node %lld %-8s predicted ", J_i(z, "node"), J_s(z, "zone"));
		print_prot(json_object_get(json_object_get(z, "predicted"), "protection"));
		printf("  kernel ");
		print_prot(json_object_get(json_object_get(z, "kernel"), "protection"));
		printf("  %s\n", json_is_true(json_object_get(z, "protection_exact")) ? "exact" : "differs");
	}

	printf("\nMemAvailable's reserve: totalreserve_pages %lld = %.1f MiB (per zone: max protection + high, "
	       "at most managed)\n", J_i(ma, "totalreserve_pages"), json_real_value(json_object_get(ma, "totalreserve_mib")));
	printf("  MemAvailable = free - totalreserve + file LRU - min(LRU/2, sum low) + reclaimable - min(.../2, sum low)"
	       "   [mm/show_mem.c: si_mem_available]\n");
	printf("  predicted %lld kB from /proc/vmstat", J_i(ma, "predicted_kb"));
	if (J_i(ma, "lazy_free_kb") > 0)
		printf(" + %lld kB free but in no zone yet (MemFree - nr_free_pages; lazy init) = %lld kB",
		       J_i(ma, "lazy_free_kb"), J_i(ma, "predicted_with_lazy_kb"));
	printf("; /proc/meminfo says %lld kB\n", J_i(ma, "meminfo_kb"));

	if (wsf != NULL) {
		printf("\nwatermark_scale_factor %lld instead of %llu:\n", J_i(wsf, "watermark_scale_factor"),
		       h->params.scale_factor);
		json_array_foreach(json_object_get(wsf, "zones"), i, z)
			printf("  Node %lld %-8s gap %lld -> %lld pages (%.1f MiB, %s rule); low %lld, high %lld\n",
			       J_i(z, "node"), J_s(z, "zone"), J_i(z, "gap_now"), J_i(z, "gap"),
			       json_real_value(json_object_get(z, "gap_mib")), J_s(z, "gap_rule"), J_i(z, "low"),
			       J_i(z, "high"));
		printf("  kswapd wakes %.1f MiB earlier (sum of low lines) and reclaims %.1f MiB further (high); "
		       "MemAvailable falls by %.1f MiB\n",
		       json_real_value(json_object_get(wsf, "low_rise_mib")),
		       json_real_value(json_object_get(wsf, "high_rise_mib")),
		       json_real_value(json_object_get(wsf, "mem_available_drop_mib")));
	}

	printf("\nthe three questions:\n  who owns the reserve?     %s\n  is the reserve enough?    %s\n"
	       "  is kswapd keeping up?     %s\n", J_s(q, "who_owns_the_reserve"), J_s(q, "is_the_reserve_enough"),
	       J_s(q, "is_kswapd_keeping_up"));
}

/* ---- the advice lint ------------------------------------------------------ */

struct lint {
	json_t *findings;
	int errors, warnings, notes;
	const char *file;
	bool json;
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
	if (!l->json)
		printf("%s:%d: %s: %s = %s: [%s] %s\n", l->file, line, sev, key, value, code, msg);
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
static void lint_min_free(struct lint *l, const struct host_mm *h, int line, const char *key, const char *value,
			  unsigned long long kb, unsigned long long floor_kb, unsigned long long avail_now_kb)
{
	struct wm_params p = h->params;
	struct wm_prediction now, at;
	unsigned long long fb = free_buffer_pages(h);
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
			kb, mib(sum_high, h->page_kb), (double)drop_kb / 1024.0, (double)avail_kb / 1024.0,
			(double)floor_kb / 1024.0);
	} else if (kb > cap_kb || kb > h->params.min_free_kbytes * 4) {
		finding(l, line, key, value, "warning", "harmful",
			"%llu kB is %.1fx this kernel's %llu kB%s: the band below min serves only allocations that cannot "
			"sleep; the high lines would sum to %.0f MiB, so MemAvailable falls by %.0f MiB (to %.0f MiB) and "
			"the page cache loses as much; khugepaged caps its own recommendation at 5%% of lowmem "
			"(%llu kB here). For kswapd latency the knob is watermark_scale_factor (795ae7a, v4.6)",
			kb, (double)kb / (double)h->params.min_free_kbytes, h->params.min_free_kbytes,
			kb > cap_kb ? ", above the 5 % cap" : "", mib(sum_high, h->page_kb), (double)drop_kb / 1024.0,
			(double)avail_kb / 1024.0, cap_kb);
	}
	finding(l, line, key, value, "note", "user-value",
		"a write (sysctl.conf applies it at every boot) sets user_min_free_kbytes: the kernel's sqrt "
		"recomputation never goes below it again until reboot (mm/page_alloc.c: calculate_min_free_kbytes)");
}

static void lint_one(struct lint *l, const struct host_mm *h, int line, const char *key, const char *value,
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
	if (key[0] == '/') {
		if (strncmp(key, "/proc/sys/", 10) != 0) {
			bool exists = stat(key, &st) == 0;

			finding(l, line, key, value, "error", "not-sysctl",
				"a /sys file, not a sysctl: sysctl.conf cannot set it (sysctl -p fails with \"unknown key\"); "
				"%s", exists ? "it exists on this kernel" : "it does not exist on this kernel either");
			if (strstr(key, "transparent_hugepage/enabled") && !strcmp(value, "never")) {
				unsigned long long fb = free_buffer_pages(h);
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
			return;
		}
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
	/* Claimed default. */
	if (claim != NULL) {
		char cur[256] = "";

		if (d->def != NULL && strcmp(claim, d->def) != 0)
			finding(l, line, key, value, "error", "wrong-default",
				"the advice says the default is %s; this kernel's default is %s (%s)", claim, d->def,
				d->source);
		else if (d->def == NULL && strcmp(d->name, "vm.min_free_kbytes") == 0) {
			unsigned long long fb = free_buffer_pages(h);

			snprintf(cur, sizeof(cur), "%llu", h->thp_pmd_on ?
				 wmark_khugepaged_min_free_kb(h->pageblock_pages, wmark_populated_lowmem_zones(h->zi), fb,
							      h->page_kb, NULL) : wmark_sqrt_min_free_kb(fb, h->page_kb, NULL));
			if (strcmp(claim, cur) != 0)
				finding(l, line, key, value, "error", "wrong-default",
					"the advice says the default is %s; this kernel computes %s kB here", claim, cur);
		}
	}
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
				typed, mib(at.totalreserve - now.totalreserve, h->page_kb));
	}
	if (!strcmp(d->name, "vm.zone_reclaim_mode") && h->nr_nodes == 1)
		finding(l, line, key, value, "note", "no-effect", "one NUMA node here: zone reclaim never applies");
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

static int advice_main(const struct host_mm *h, const char *file, bool json, unsigned long long floor_kb)
{
	cleanup_free char *text = NULL;
	struct lab_error e;
	struct lint l = { .findings = json_array(), .file = file, .json = json };
	char claim[32] = "";
	bool have_claim = false;
	int lineno = 0;
	char *p, *save = NULL, *line;

	if (lab_read_input(file, "advice file", LAB_ADVICE_MAX, 0, &text, NULL, &e) < 0) {
		fprintf(stderr, "pagelab audit: %s\n", e.msg);
		json_decref(l.findings);
		return AUDIT_USAGE;
	}
	/* Lines one by one (strtok_r would skip empty lines and lose the count). */
	for (p = text; p && *p; p = line) {
		char *eol = strchr(p, '\n'), *s, *eq, *key, *val, *end;

		line = eol ? eol + 1 : NULL;
		if (eol)
			*eol = '\0';
		lineno++;
		(void)save;
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
	if (json) {
		json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:{s:i, s:i, s:i}}", "file", file, "kernel", h->kernel,
				      "floor_kb", (json_int_t)floor_kb, "findings", l.findings, "summary", "errors",
				      l.errors, "warnings", l.warnings, "notes", l.notes);
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		printf("%s\n", s);
		free(s);
		json_decref(o);
	} else {
		printf("%s: %d error(s), %d warning(s), %d note(s) against %s (MemAvailable floor %llu kB)\n", file,
		       l.errors, l.warnings, l.notes, h->kernel, floor_kb);
		json_decref(l.findings);
	}
	return l.errors ? AUDIT_ADVICE_ERRORS : AUDIT_OK;
}

/* ---- main ----------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pagelab audit [--json] [--wsf N] [--watch S] [--with KNOB=VALUE]...\n"
		"       pagelab audit --advice FILE [--floor SIZE] [--json]\n"
		"\n"
		"The watermark arithmetic of this host, from its own /proc, beside what the kernel shows:\n"
		"who set vm.min_free_kbytes and what THP off would make of it, every zone's min/low/high\n"
		"and protection predicted from its managed pages, MemAvailable's reserve, the cost of a\n"
		"proposed watermark_scale_factor, and the three questions over a short watch.\n"
		"Reads only — unless --with is given.\n"
		"\n"
		"  --json              one JSON document instead of the text\n"
		"  --wsf N             what watermark_scale_factor N (1..3000) would cost\n"
		"  --watch S           watch allocstall and kswapd_low_wmark_hit_quickly for S seconds\n"
		"                      (default 5; 0 = no watch)\n"
		"  --with KNOB=VALUE   set a knob ([knobs] names: vm.watermark_scale_factor=50, thp=never)\n"
		"                      through the knob journal, audit, and put it back (repeatable)\n"
		"  --advice FILE       lint a sysctl.conf-style file against this kernel instead\n"
		"  --floor SIZE        with --advice: MemAvailable below this is harmful (default 10%% of\n"
		"                      MemTotal)\n"
		"\n"
		"exit status: 0 ran; 1 a source could not be read (or a knob not put back); 2 bad usage;\n"
		"3 --with cannot run here (not root, or another run owns the journal); 4 --advice found\n"
		"errors; 130 interrupted (knobs put back first).\n");
}

#define AUDIT_MAX_WITH 8

struct with_knob {
	const struct knob_def *d;
	char text[96], value[256];
};

/* --with: journal, set, and later restore; every message on stderr. */
static int with_apply(const struct with_knob *w, size_t n, unsigned long long memtotal_kb,
		      struct knob_journal **jout)
{
	struct knob_restore_report rep;
	struct lab_error err;
	bool stale = false;
	pid_t owner = 0;
	int ret;

	*jout = NULL;
	if (geteuid() != 0) {
		fprintf(stderr, "pagelab audit: --with changes a machine-wide knob: that needs root\n");
		return AUDIT_CANNOT;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned long long v = strtoull(w[i].value, NULL, 10);

		/* The most the kernel itself ever picks is 262144 kB; hugetlb
		 * beyond a quarter of memory starves the host.  VM mode is for more. */
		if ((!strcmp(w[i].d->name, "vm.min_free_kbytes") && v > 262144) ||
		    ((!strcmp(w[i].d->name, "hugetlb_pages") || !strcmp(w[i].d->name, "vm.nr_hugepages")) &&
		     v * 2048 > memtotal_kb / 4)) {
			fprintf(stderr, "pagelab audit: --with %s=%s could starve this machine: use a destructive "
				"scenario in VM mode\n", w[i].d->name, w[i].text);
			return AUDIT_CANNOT;
		}
	}
	ret = knob_journal_open(knob_journal_path(), jout, &stale, &owner, &err);
	if (ret < 0) {
		fprintf(stderr, "pagelab audit: %s\n", err.msg);
		return ret == -EBUSY ? AUDIT_CANNOT : ret == -EPERM ? AUDIT_USAGE : AUDIT_FAIL;
	}
	if (stale) {
		ret = knob_journal_restore(*jout, &rep, &err);
		fprintf(stderr, "pagelab audit: found the knob journal of a run that did not finish (pid %d): "
			"restoring it first\n", (int)rep.journal_pid);
		knob_report_print(&rep, stderr, "pagelab audit:   ");
		if (ret < 0) {
			fprintf(stderr, "pagelab audit: %s\n", err.msg);
			return AUDIT_FAIL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (knob_set(*jout, w[i].d, w[i].value, &err) < 0) {
			fprintf(stderr, "pagelab audit: %s\n", err.msg);
			return AUDIT_FAIL;
		}
		fprintf(stderr, "pagelab audit: knob %s = %s (through the journal; put back after the audit)\n",
			w[i].d->name, w[i].text);
	}
	return AUDIT_OK;
}

static int with_restore(struct knob_journal *j)
{
	struct knob_restore_report rep;
	struct lab_error err;
	int ret;

	if (j == NULL)
		return AUDIT_OK;
	ret = knob_journal_restore(j, &rep, &err);
	knob_report_print(&rep, stderr, "pagelab audit: restored ");
	if (ret < 0)
		fprintf(stderr, "pagelab audit: %s\n", err.msg);
	knob_journal_close(j);
	return ret < 0 ? AUDIT_FAIL : AUDIT_OK;
}

static int audit_run(bool json, unsigned long long wsf, unsigned watch)
{
	struct host_mm h;
	struct kmsg_facts k;
	struct wm_prediction pr;
	struct lab_error err;
	int drift, mismatch;
	json_t *doc;

	if (host_mm_read(&h, &err) < 0) {
		fprintf(stderr, "pagelab audit: %s\n", err.msg);
		host_mm_free(&h);
		return AUDIT_FAIL;
	}
	if (wmark_predict(h.zi, &h.params, &pr) < 0) {
		fprintf(stderr, "pagelab audit: /proc/zoneinfo has no lowmem zone with managed pages\n");
		host_mm_free(&h);
		return AUDIT_FAIL;
	}
	kmsg_scan(&k);
	doc = json_object();
	json_object_set_new(doc, "kernel", json_string(h.kernel));
	json_object_set_new(doc, "page_kb", json_integer(h.page_kb));
	json_object_set_new(doc, "pageblock_pages", json_integer((json_int_t)h.pageblock_pages));
	json_object_set_new(doc, "nodes", json_integer(h.nr_nodes));
	json_object_set_new(doc, "thp_enabled", json_string(h.thp_enabled));
	json_object_set_new(doc, "thp_pmd", json_string(h.thp_pmd));
	json_object_set_new(doc, "thp_shmem_enabled", json_string(h.shmem_enabled));
	json_object_set_new(doc, "thp_pmd_shmem", json_string(h.pmd_shmem));
	json_object_set_new(doc, "mthp_anon_on", json_string(h.mthp_on));
	json_object_set_new(doc, "deferred_init_lazy", json_boolean(h.lazy_init));
	json_object_set_new(doc, "settings", json_pack("{s:I, s:I, s:I, s:o, s:b}",
		"min_free_kbytes", (json_int_t)h.params.min_free_kbytes,
		"watermark_scale_factor", (json_int_t)h.params.scale_factor,
		"watermark_boost_factor", (json_int_t)h.boost_factor,
		"lowmem_reserve_ratio", protection_json(h.params.ratio, h.params.nr_ratio),
		"movable_capped", h.params.movable_capped));
	json_object_set_new(doc, "min_free_kbytes", min_free_json(&h, &k));
	json_object_set_new(doc, "lowmem_pages", json_integer((json_int_t)pr.lowmem_pages));
	json_object_set_new(doc, "zones", zones_json(&h, &pr, &drift, &mismatch));
	json_object_set_new(doc, "zones_drift", json_integer(drift));
	json_object_set_new(doc, "zones_mismatch", json_integer(mismatch));
	json_object_set_new(doc, "mem_available", mem_available_json(&h, &pr));
	if (wsf)
		json_object_set_new(doc, "wsf", wsf_json(&h, &pr, wsf));
	json_object_set_new(doc, "questions", questions_json(&h, &k, json_object_get(doc, "min_free_kbytes"), watch));
	if (json) {
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		printf("%s\n", text);
		free(text);
	} else {
		print_audit(&h, doc);
	}
	fflush(stdout);
	json_decref(doc);
	host_mm_free(&h);
	return AUDIT_OK;
}

int audit_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },     { "wsf", required_argument, NULL, 'w' },
		{ "watch", required_argument, NULL, 's' }, { "advice", required_argument, NULL, 'a' },
		{ "floor", required_argument, NULL, 'f' }, { "with", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },     { NULL, 0, NULL, 0 },
	};
	struct with_knob with[AUDIT_MAX_WITH];
	struct knob_journal *journal = NULL;
	struct lab_error err;
	unsigned long long wsf = 0, floor_bytes = 0, v;
	unsigned watch = 5;
	size_t nr_with = 0;
	const char *advice = NULL;
	bool json = false;
	int c, status;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'w':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v < 1 || v > 3000) {
				fprintf(stderr, "pagelab audit: --wsf: expected 1..3000 (the kernel's range), got '%s'\n",
					optarg);
				return AUDIT_USAGE;
			}
			wsf = v;
			break;
		case 's':
			if (lab_parse_uint(optarg, &v, &err) < 0 || v > 3600) {
				fprintf(stderr, "pagelab audit: --watch: expected 0..3600 seconds, got '%s'\n", optarg);
				return AUDIT_USAGE;
			}
			watch = (unsigned)v;
			break;
		case 'a':
			advice = optarg;
			break;
		case 'f':
			if (lab_parse_size(optarg, &floor_bytes, &err) < 0) {
				fprintf(stderr, "pagelab audit: --floor: %s\n", err.msg);
				return AUDIT_USAGE;
			}
			break;
		case 'W': {
			const char *eq = strchr(optarg, '=');
			char name[64];
			struct with_knob *w = &with[nr_with];

			if (nr_with == AUDIT_MAX_WITH) {
				fprintf(stderr, "pagelab audit: at most %d --with\n", AUDIT_MAX_WITH);
				return AUDIT_USAGE;
			}
			snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - optarg) : 0, optarg);
			w->d = eq ? knob_def_find(name) : NULL;
			if (w->d == NULL || !w->d->scenario || w->d->kind == KNOB_SWAP) {
				fprintf(stderr, "pagelab audit: --with %s: expected KNOB=VALUE with a knob a scenario may "
					"change (vm.watermark_scale_factor, vm.min_free_kbytes, thp, ...)\n", optarg);
				return AUDIT_USAGE;
			}
			if (knob_def_value(w->d, eq + 1, w->value, sizeof(w->value), &err) < 0) {
				fprintf(stderr, "pagelab audit: --with: %s\n", err.msg);
				return AUDIT_USAGE;
			}
			snprintf(w->text, sizeof(w->text), "%.95s", eq + 1);
			nr_with++;
			break;
		}
		case 'h':
			usage(stdout);
			return AUDIT_OK;
		default:
			fprintf(stderr, "pagelab audit: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return AUDIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "pagelab audit: unexpected argument '%s'\n", argv[optind]);
		return AUDIT_USAGE;
	}
	if (advice != NULL) {
		struct host_mm h;
		unsigned long long floor_kb;

		if (nr_with || wsf) {
			fprintf(stderr, "pagelab audit: --advice lints a file: --with and --wsf do not apply\n");
			return AUDIT_USAGE;
		}
		if (host_mm_read(&h, &err) < 0) {
			fprintf(stderr, "pagelab audit: %s\n", err.msg);
			host_mm_free(&h);
			return AUDIT_FAIL;
		}
		floor_kb = floor_bytes ? floor_bytes / 1024 : kv_get0(&h.meminfo, "MemTotal") / 10;
		status = advice_main(&h, advice, json, floor_kb);
		host_mm_free(&h);
		return status;
	}
	sigemptyset(&audit_signals);
	sigaddset(&audit_signals, SIGINT);
	sigaddset(&audit_signals, SIGTERM);
	sigaddset(&audit_signals, SIGHUP);
	/* A shell starts background jobs with SIGINT ignored; take it back so
	 * it is delivered (blocked, then waited for). */
	signal(SIGINT, SIG_DFL);
	sigprocmask(SIG_BLOCK, &audit_signals, NULL);
	if (nr_with > 0) {
		struct host_mm h;
		unsigned long long memtotal = 0;

		if (host_mm_read(&h, &err) == 0)
			memtotal = kv_get0(&h.meminfo, "MemTotal");
		host_mm_free(&h);
		status = with_apply(with, nr_with, memtotal, &journal);
		if (status != AUDIT_OK) {
			if (with_restore(journal) != AUDIT_OK)
				status = AUDIT_FAIL;
			return status;
		}
	}
	status = audit_run(json, wsf, watch);
	if (with_restore(journal) != AUDIT_OK)
		status = AUDIT_FAIL;
	{
		sigset_t pend;
		struct timespec zero = { 0, 0 };

		sigpending(&pend);
		if (audit_caught == 0 && (sigismember(&pend, SIGINT) || sigismember(&pend, SIGTERM) ||
					  sigismember(&pend, SIGHUP)))
			audit_caught = sigtimedwait(&audit_signals, NULL, &zero);
	}
	if (audit_caught > 0) {
		fprintf(stderr, "pagelab audit: stopped by %s\n", strsignal(audit_caught));
		return status == AUDIT_OK ? AUDIT_INTERRUPTED : status;
	}
	return status;
}
