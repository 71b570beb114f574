/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audit.c — the audit's inputs and its document (audit.h): the watermark
 * arithmetic of this host, computed from its own /proc and compared with
 * what the kernel shows.
 *
 * Every formula is in harness/host/wmark.c with the kernel function it copies;
 * this file gathers the inputs and decides what each difference means.
 * Nothing here writes to the host or prints.
 */
#include "audit_internal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/kv.h"
#include "kmsg.h"

static int read_text(const char *path, char **out, struct lab_error *err)
{
	return lab_read_file(path, out, NULL, err);
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
static void khugepaged_rule(struct audit_host *h)
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
			kv_bracketed(sh, h->shmem_enabled, sizeof(h->shmem_enabled));
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/shmem_enabled",
			 h->pageblock_pages * h->page_kb);
		if (read_text(path, &psh, &e) == 0)
			kv_bracketed(psh, h->pmd_shmem, sizeof(h->pmd_shmem));
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
			kv_bracketed(en, mode, sizeof(mode));
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

static int host_read(struct audit_host *h, struct lab_error *err)
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
			kv_bracketed(en, h->thp_enabled, sizeof(h->thp_enabled));
		snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%llukB/enabled",
			 h->pageblock_pages * h->page_kb);
		if (read_text(path, &pmd, &e) == 0)
			kv_bracketed(pmd, h->thp_pmd, sizeof(h->thp_pmd));
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

void audit_host_free(struct audit_host *h)
{
	if (h == NULL)
		return;
	free(h->zi);
	kv_free(&h->meminfo);
	kv_free(&h->vmstat);
	free(h);
}

static const char *const late_frees[] = {
	"Freeing initrd memory:", "Freeing unused kernel memory:", "Freeing unused kernel image (initmem) memory:",
};

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
		struct kmsg_oom kill;

		if (strstr(msg, "page allocation failure"))
			k->alloc_failures++;
		if (strncmp(msg, "Out of memory", 13) == 0 && kmsg_kill_line(msg, &kill))
			k->oom_kills++;         /* a global OOM's kill line (kmsg.h) */
		if (strstr(msg, "raising min_free_kbytes from"))
			k->raising++;
		/* Memory the zones get after khugepaged's subsys_initcall: the initrd
		 * (init/initramfs.c: free_initrd_mem, "Freeing initrd memory: %ldK") and
		 * the kernel's init sections (mm/page_alloc.c: free_reserved_area,
		 * "Freeing %s memory: %ldK", from free_initmem after every initcall). */
		for (size_t f = 0; f < sizeof(late_frees) / sizeof(late_frees[0]); f++) {
			unsigned long long kb;
			size_t n = strlen(late_frees[f]);

			if (strncmp(msg, late_frees[f], n) == 0 && sscanf(msg + n, " %lluK", &kb) == 1) {
				k->freed_late_kb += kb;
				k->freed_late_seen = true;
			}
		}
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

/* Pages MemTotal counts that no zone manages yet: 0 on a mainline kernel
 * (totalram_pages is the sum of the zones' managed pages once deferred init
 * has finished, before userspace starts), the lazily initialised rest on a
 * kernel booted with deferred_init=lazy. */
static unsigned long long lazy_pages(const struct audit_host *h)
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
unsigned long long audit_free_buffer_pages(const struct audit_host *h)
{
	return wmark_free_buffer_pages(h->zi) + lazy_pages(h);
}

double audit_mib(unsigned long long pages, unsigned page_kb)
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
/* nr_free_buffer_pages under the high lines min_free_kbytes = from_kb
 * draws (0 when they cannot be predicted). */
static unsigned long long free_buffer_under_lines(const struct audit_host *h, unsigned long long from_kb)
{
	struct wm_params p = h->params;
	struct wm_prediction pr;
	unsigned long long fb = 0;

	p.min_free_kbytes = from_kb;
	if (wmark_predict(h->zi, &p, &pr) < 0)
		return 0;
	for (size_t i = 0; i < h->zi->n; i++) {
		const struct zone_info *z = &h->zi->zones[i];

		if (wmark_zone_lowmem(z) && z->managed > pr.zones[i].high)
			fb += z->managed - pr.zones[i].high;
	}
	return fb + lazy_pages(h);
}

static unsigned long long sqrt_under_lines(const struct audit_host *h, unsigned long long from_kb)
{
	unsigned long long raw;

	return wmark_sqrt_min_free_kb(free_buffer_under_lines(h, from_kb), h->page_kb, &raw);
}

/* khugepaged's value when its 5 % cap binds, as the kernel computed it at
 * boot: mm/huge_memory.c: hugepage_init (a subsys_initcall) ->
 * start_stop_khugepaged -> set_recommended_min_free_kbytes reads
 * nr_free_buffer_pages under the lines of the sqrt value then in force
 * (init_per_zone_wmark_min, a postcore_initcall), and before the kernel's init
 * memory and the initrd are freed, so the zones held fewer managed pages than
 * now.  The cap binds where pageblocks are large: arm64's 16K kernel
 * (pageblock 2048 pages of 16 KiB = 32 MiB; 2 zones x 11 blocks = 704 MiB
 * against 5 % of a few GiB).  What was freed after it is in the kernel log
 * (kmsg_scan: freed_late_kb); taken off the managed pages, the value comes out
 * to the page.  Measured on a 2 GiB 6.12.117+deb12-arm64-16k guest: 100,992 kB;
 * the sqrt lines over today's zones give 101,792 kB, less the 6,048 + 9,984 kB
 * freed late 100,992 kB; the cap under its own lines is 94,704 kB. */
static unsigned long long khugepaged_capped_at_boot(const struct audit_host *h, const struct kmsg_facts *k,
						    unsigned nz, unsigned long long sq)
{
	unsigned long long fb = free_buffer_under_lines(h, sq), late = k->freed_late_kb / h->page_kb;

	if (fb == 0)
		return 0;
	fb = fb > late ? fb - late : 0;
	return wmark_khugepaged_min_free_kb(h->pageblock_pages, nz, fb, h->page_kb, NULL);
}

/* m is that value: within two pages when the log said what was freed late,
 * else up to 2 % under the value without it. */
static bool khugepaged_capped_match(const struct audit_host *h, const struct kmsg_facts *k, unsigned long long m,
				    unsigned long long kboot)
{
	if (kboot == 0)
		return false;
	if (k->freed_late_seen)
		return m + 2 * h->page_kb >= kboot && m <= kboot + 2 * h->page_kb;
	return m <= kboot && m * 100 >= kboot * 98;
}

/* Who set min_free_kbytes, and what THP off would make of it. */
static json_t *min_free_json(const struct audit_host *h, const struct kmsg_facts *k)
{
	json_t *o = json_object(), *files = json_array();
	unsigned long long fb = audit_free_buffer_pages(h), raw;
	unsigned nz = wmark_populated_lowmem_zones(h->zi);
	bool capped = false;
	unsigned long long khp = wmark_khugepaged_min_free_kb(h->pageblock_pages, nz, fb, h->page_kb, &capped);
	unsigned long long sq = wmark_sqrt_min_free_kb(fb, h->page_kb, &raw);
	unsigned long long m = h->params.min_free_kbytes;
	const char *by, *why;
	unsigned long long never, sqk = 0, kboot = 0;

	sysctl_files_naming("min_free_kbytes", files);
	if (h->thp_pmd_on && m == khp && khp >= sq) {
		by = "khugepaged";
		why = "khugepaged's formula (THP is on): pageblock_nr_pages x populated zones x (2 + 3 x 3); "
		      "larger than the sqrt value, so it replaced it when THP started";
	} else if (h->thp_pmd_on && capped &&
		   khugepaged_capped_match(h, k, m, kboot = khugepaged_capped_at_boot(h, k, nz, sq))) {
		by = "khugepaged";
		why = "khugepaged's formula, capped at 5 % of lowmem (nr_free_buffer_pages / 20): computed at boot "
		      "under the sqrt value's lines, before the init memory and the initrd (the kernel log's "
		      "\"Freeing ... memory\" lines) joined the zones";
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
	if (capped) {
		json_object_set_new(json_object_get(o, "khugepaged"), "kb_capped_at_boot",
				    json_integer((json_int_t)khugepaged_capped_at_boot(h, k, nz, sq)));
		json_object_set_new(json_object_get(o, "khugepaged"), "freed_after_kb",
				    k->freed_late_seen ? json_integer((json_int_t)k->freed_late_kb) : json_null());
	}
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

static json_t *zones_json(const struct audit_host *h, const struct wm_prediction *pr, int *nr_drift,
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

static json_t *mem_available_json(const struct audit_host *h, const struct wm_prediction *pr)
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
			 "totalreserve_pages", (json_int_t)tr, "totalreserve_mib", audit_mib(tr, h->page_kb),
			 "predicted_totalreserve_pages", (json_int_t)pr->totalreserve,
			 "wmark_low_pages", (json_int_t)low,
			 "predicted_kb", (json_int_t)pred, "lazy_free_kb", (json_int_t)lazy,
			 "predicted_with_lazy_kb", (json_int_t)(pred + lazy),
			 "meminfo_kb", (json_int_t)avail_kb,
			 "source", "mm/show_mem.c: si_mem_available; mm/page_alloc.c: calculate_totalreserve_pages");
}

/* --wsf N: the gap and the lines at scale N, per zone and summed. */
static json_t *wsf_json(const struct audit_host *h, const struct wm_prediction *now, unsigned long long wsf)
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
			"gap", (json_int_t)at.zones[i].gap, "gap_mib", audit_mib(at.zones[i].gap, h->page_kb),
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
static json_t *questions_json(const struct audit_host *h, const struct kmsg_facts *k, json_t *mf, unsigned watch_s,
			      audit_wait_fn wait, void *ctx)
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

		if (wait != NULL)
			wait(ctx, watch_s);
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

int audit_host_read(struct audit_host **out, struct lab_error *err)
{
	struct audit_host *h = calloc(1, sizeof(*h));
	int ret;

	*out = NULL;
	if (h == NULL)
		return lab_error_errno(err, ENOMEM, "audit");
	ret = host_read(h, err);
	if (ret < 0) {
		audit_host_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

unsigned long long audit_memtotal_kb(const struct audit_host *h)
{
	return kv_get0(&h->meminfo, "MemTotal");
}

const char *audit_kernel(const struct audit_host *h)
{
	return h->kernel;
}

int audit_document(const struct audit_host *hp, unsigned long long wsf, unsigned watch, audit_wait_fn wait,
		   void *ctx, json_t **out, struct lab_error *err)
{
	const struct audit_host *h = hp;
	struct kmsg_facts k;
	struct wm_prediction pr;
	int drift, mismatch;
	json_t *doc;

	*out = NULL;
	if (wmark_predict(h->zi, &h->params, &pr) < 0)
		return lab_error_set(err, EINVAL, "/proc/zoneinfo has no lowmem zone with managed pages");
	kmsg_scan(&k);
	doc = json_object();
	json_object_set_new(doc, "kernel", json_string(h->kernel));
	json_object_set_new(doc, "page_kb", json_integer(h->page_kb));
	json_object_set_new(doc, "pageblock_pages", json_integer((json_int_t)h->pageblock_pages));
	json_object_set_new(doc, "nodes", json_integer(h->nr_nodes));
	json_object_set_new(doc, "thp_enabled", json_string(h->thp_enabled));
	json_object_set_new(doc, "thp_pmd", json_string(h->thp_pmd));
	json_object_set_new(doc, "thp_shmem_enabled", json_string(h->shmem_enabled));
	json_object_set_new(doc, "thp_pmd_shmem", json_string(h->pmd_shmem));
	json_object_set_new(doc, "mthp_anon_on", json_string(h->mthp_on));
	json_object_set_new(doc, "deferred_init_lazy", json_boolean(h->lazy_init));
	json_object_set_new(doc, "settings", json_pack("{s:I, s:I, s:I, s:o, s:b}",
		"min_free_kbytes", (json_int_t)h->params.min_free_kbytes,
		"watermark_scale_factor", (json_int_t)h->params.scale_factor,
		"watermark_boost_factor", (json_int_t)h->boost_factor,
		"lowmem_reserve_ratio", protection_json(h->params.ratio, h->params.nr_ratio),
		"movable_capped", h->params.movable_capped));
	json_object_set_new(doc, "min_free_kbytes", min_free_json(h, &k));
	json_object_set_new(doc, "lowmem_pages", json_integer((json_int_t)pr.lowmem_pages));
	json_object_set_new(doc, "zones", zones_json(h, &pr, &drift, &mismatch));
	json_object_set_new(doc, "zones_drift", json_integer(drift));
	json_object_set_new(doc, "zones_mismatch", json_integer(mismatch));
	json_object_set_new(doc, "mem_available", mem_available_json(h, &pr));
	if (wsf)
		json_object_set_new(doc, "wsf", wsf_json(h, &pr, wsf));
	json_object_set_new(doc, "questions", questions_json(h, &k, json_object_get(doc, "min_free_kbytes"), watch, wait, ctx));
	*out = doc;
	return 0;
}

