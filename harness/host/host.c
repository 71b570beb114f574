/* SPDX-License-Identifier: GPL-2.0-or-later */
/* host.c — what this host is and what it can run (`pagelab check`), and the
 * "host" object of every result document.
 *
 * Everything here only reads: /proc, /sys and the cgroup mounts.  Nothing on
 * the host is changed, so `pagelab check` is safe anywhere.
 */
#include "host.h"
#include "fingerprint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/fileio.h"
#include "result/keys.h"
#include "base/kv.h"
#include "base/trust.h"
#include "base/zoneinfo.h"

#define QUIRK_DEFERRED_INIT "zone managed pages grow on first touch; zone figures drift " \
	"until memory has been touched once"
#define QUIRK_SHUFFLE "the page allocator's free lists are shuffled; which physical pages " \
	"a run gets differs from run to run"
#define QUIRK_HYBRID "cgroup hybrid: the memory controller is on a v1 hierarchy beside " \
	"a v2 mount without it; the v2 path (memory.reclaim, oom.group, memory.events) " \
	"runs only in VM mode"
#define QUIRK_V1 "cgroup v1: no memory.reclaim, no pglazyfree in memory.stat (pagelab " \
	"reads /proc/vmstat deltas), OOM kills read from memory.oom_control"

static void add_quirk(struct host_facts *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add_quirk(struct host_facts *h, const char *fmt, ...)
{
	va_list ap;

	if (h->nr_quirks >= sizeof(h->quirks) / sizeof(h->quirks[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(h->quirks[h->nr_quirks], sizeof(h->quirks[0]), fmt, ap);
	va_end(ap);
	h->nr_quirks++;
}

/* A DAMON monitor that is on acts on memory by its own schedule: a
 * "pageout" scheme reclaims what it found cold, whatever a scenario's
 * pressure does (fingerprint.c, "damon"). */
static void damon_quirks(struct host_facts *h)
{
	json_t *d = fingerprint_damon(), *kds = json_object_get(d, "kdamonds"), *k;
	size_t i;

	json_array_foreach(kds, i, k) {
		char what[160] = "";
		size_t off = 0, c, s;
		json_t *ctx, *sc;

		if (!json_is_string(json_object_get(k, "state")) ||
		    strcmp(json_string_value(json_object_get(k, "state")), "on") != 0)
			continue;
		json_array_foreach(json_object_get(k, "contexts"), c, ctx) {
			json_array_foreach(json_object_get(ctx, "schemes"), s, sc) {
				const char *a = json_string_value(json_object_get(sc, "action"));
				int n = snprintf(what + off, sizeof(what) - off, "%s%s on %s (min age %lld x %lld ms)",
						 off ? ", " : "", a ? a : "?",
						 json_string_value(json_object_get(ctx, "operations")) ?
						 json_string_value(json_object_get(ctx, "operations")) : "?",
						 (long long)json_integer_value(json_object_get(sc, "min_age")),
						 (long long)json_integer_value(json_object_get(ctx, "aggr_us")) / 1000);

				if (n < 0 || (size_t)n >= sizeof(what) - off)
					break;
				off += (size_t)n;
			}
		}
		add_quirk(h, "DAMON: kdamond %zu is on, %s: memory it finds cold it acts on by its own schedule, "
			  "not by a scenario's pressure", i, off ? what : "no scheme");
	}
	json_decref(d);
}

/* A kernel that maps no zero page on a read fault (fingerprint.c, "zero_page"). */
static void zero_page_quirk(struct host_facts *h)
{
	json_t *zp = fingerprint_zero_page();

	if (json_is_string(zp) && strcmp(json_string_value(zp), "allocate") == 0)
		add_quirk(h, "no zero page: a read of never-written anonymous memory takes a page of its own, "
			  "so reading back reclaimed lazily freed pages adds to Rss");
	json_decref(zp);
}

static bool readable(const char *path)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;

	return lab_read_file(path, &buf, NULL, &e) == 0;
}

/* Is word a whole whitespace-separated field of some line of buf (field
 * index field, 0-based; -1 = any field)? */
static bool has_field(const char *buf, int field, const char *word)
{
	size_t wlen = strlen(word);
	const char *line = buf;

	while (*line != '\0') {
		const char *eol = strchr(line, '\n');
		const char *end = eol != NULL ? eol : line + strlen(line);
		const char *p = line;
		int i = 0;

		while (p < end) {
			const char *q;

			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			q = p;
			while (q < end && *q != ' ' && *q != '\t')
				q++;
			if (q > p && (field < 0 || field == i) && (size_t)(q - p) == wlen &&
			    memcmp(p, word, wlen) == 0)
				return true;
			if (q > p)
				i++;
			p = q;
		}
		if (eol == NULL)
			break;
		line = eol + 1;
	}
	return false;
}

static void probe_cmdline(struct host_facts *h)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	char *tok, *save = NULL;

	if (lab_read_file("/proc/cmdline", &buf, NULL, &e) < 0)
		return;
	for (tok = strtok_r(buf, " \t\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\n", &save)) {
		if (strcmp(tok, "--") == 0)
			break;          /* what follows belongs to init, not the kernel */
		if (strncmp(tok, "deferred_init", 13) == 0)
			add_quirk(h, "%.64s: %s", tok, QUIRK_DEFERRED_INIT);
		else if (strncmp(tok, "page_alloc.shuffle", 18) == 0)
			add_quirk(h, "%.64s: %s", tok, QUIRK_SHUFFLE);
	}
}

unsigned long long host_meminfo_bytes(const char *key)
{
	cleanup_free char *buf = NULL;
	struct kv_list kv = { 0 };
	struct lab_error e;
	unsigned long long kb = 0;

	if (lab_read_file("/proc/meminfo", &buf, NULL, &e) == 0 && kv_parse_colon(buf, &kv, &e) == 0)
		kb = kv_get0(&kv, key);
	kv_free(&kv);
	return kb * 1024;
}

int host_probe(struct host_facts *out, struct lab_error *err)
{
	cleanup_free char *meminfo = NULL;
	cleanup_free char *swaps = NULL;
	struct kv_list kv = { 0 };
	struct utsname u;
	struct lab_error e;
	int ret;

	memset(out, 0, sizeof(*out));
	out->root = geteuid() == 0;
	if (uname(&u) < 0)
		return lab_error_errno(err, errno, "uname");
	snprintf(out->kernel, sizeof(out->kernel), "%.127s", u.release);
	snprintf(out->machine, sizeof(out->machine), "%.31s", u.machine);
	snprintf(out->hostname, sizeof(out->hostname), "%.64s", u.nodename);

	ret = sandbox_probe(&out->cg, &e);
	out->cg_ok = ret == 0;
	if (ret < 0) {
		out->cg.memory = CG_VERSION_NONE;
		snprintf(out->cg_error, sizeof(out->cg_error), "%.255s", e.msg);
	}

	ret = lab_read_file("/proc/meminfo", &meminfo, NULL, err);
	if (ret < 0)
		return ret;
	ret = kv_parse_colon(meminfo, &kv, err);
	if (ret < 0) {
		kv_free(&kv);
		return lab_error_prefix(err, "/proc/meminfo");
	}
	out->memtotal_kb = kv_get0(&kv, "MemTotal");
	out->swap_total_kb = kv_get0(&kv, "SwapTotal");
	kv_free(&kv);

	if (lab_read_file("/proc/swaps", &swaps, NULL, &e) == 0) {
		const char *nl = strchr(swaps, '\n');      /* the header line */

		out->swap_active = nl != NULL && nl[1] != '\0';
	}

	{
		struct stat st;

		out->thp = stat("/sys/kernel/mm/transparent_hugepage", &st) == 0;
	}
	if (out->thp) {
		cleanup_free char *en = NULL;
		cleanup_free char *df = NULL;

		if (lab_read_file("/sys/kernel/mm/transparent_hugepage/enabled", &en, NULL, &e) == 0)
			kv_bracketed(en, out->thp_enabled, sizeof(out->thp_enabled));
		if (lab_read_file("/sys/kernel/mm/transparent_hugepage/defrag", &df, NULL, &e) == 0)
			kv_bracketed(df, out->thp_defrag, sizeof(out->thp_defrag));
	}

	{
		cleanup_free char *lg = NULL;

		if (lab_read_file("/sys/kernel/mm/lru_gen/enabled", &lg, NULL, &e) == 0)
			snprintf(out->lru_gen, sizeof(out->lru_gen), "%.*s", (int)strcspn(lg, "\n"), lg);
	}

	/* LazyFree appeared in smaps (4.12) and smaps_rollup (4.14):
	 * fs/proc/task_mmu.c: __show_smap. */
	{
		cleanup_free char *rollup = NULL;
		struct kv_list r = { 0 };
		unsigned long long v;

		if (lab_read_file("/proc/self/smaps_rollup", &rollup, NULL, &e) == 0 &&
		    kv_parse_colon(rollup, &r, &e) == 0)
			out->lazyfree = kv_get(&r, "LazyFree", &v);
		kv_free(&r);
	}

	/* memory.reclaim (5.19, mm/memcontrol.c: memory_reclaim) is a v2 file
	 * of every memory cgroup, the root included. */
	if (out->cg_ok && out->cg.memory == CG_VERSION_V2) {
		char p[8400];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s/memory.reclaim", out->cg.mount,
			 strcmp(out->cg.self, "/") == 0 ? "" : out->cg.self + 1);
		out->memory_reclaim = stat(p, &st) == 0;
		if (!out->memory_reclaim) {
			snprintf(p, sizeof(p), "%s/memory.reclaim", out->cg.mount);
			out->memory_reclaim = stat(p, &st) == 0;
		}
	}

	{
		cleanup_free char *mounts = NULL;
		cleanup_free char *fs = NULL;

		if (lab_read_file("/proc/mounts", &mounts, NULL, &e) == 0 &&
		    has_field(mounts, 2, "tracefs"))
			out->tracefs = true;
		if (!out->tracefs && lab_read_file("/proc/filesystems", &fs, NULL, &e) == 0 &&
		    has_field(fs, -1, "tracefs"))
			out->tracefs = true;
	}

	/* With psi=0 (or CONFIG_PSI_DEFAULT_DISABLED) the file exists but
	 * reading it fails with EOPNOTSUPP: read, do not just stat. */
	out->psi = readable("/proc/pressure/memory");

	/* PAGELAB_GUEST=1 only with evidence that this is pagelab's guest
	 * (base/trust.h: lab_guest_evidence). */
	out->in_vm_guest = lab_in_pagelab_guest();

	probe_cmdline(out);
	if (out->cg.hybrid && out->cg.memory != CG_VERSION_V2)
		add_quirk(out, "%s", QUIRK_HYBRID);
	if (out->cg.memory == CG_VERSION_V1)
		add_quirk(out, "%s", QUIRK_V1);
	damon_quirks(out);
	zero_page_quirk(out);
	return 0;
}

static size_t append(char *why, size_t whylen, size_t off, const char *line)
{
	int n;

	if (why == NULL || whylen == 0 || off >= whylen)
		return off;
	n = snprintf(why + off, whylen - off, "%s\n", line);
	if (n < 0)
		return off;
	return off + (size_t)n >= whylen ? whylen - 1 : off + (size_t)n;
}

unsigned host_missing(const struct host_facts *h, unsigned req, char *why, size_t whylen)
{
	unsigned miss = 0;
	size_t off = 0;
	char line[512];

	if (why != NULL && whylen > 0)
		why[0] = '\0';
	if ((req & REQ_ROOT) && !h->root) {
		miss |= REQ_ROOT;
		off = append(why, whylen, off, "root: pagelab must run as root (it creates cgroups "
			     "and changes /proc/sys/vm settings)");
	}
	if ((req & REQ_MEMCG) && (!h->cg_ok || h->cg.memory == CG_VERSION_NONE)) {
		miss |= REQ_MEMCG;
		snprintf(line, sizeof(line), "memory cgroup: %s",
			 h->cg_error[0] ? h->cg_error : "no memory controller");
		off = append(why, whylen, off, line);
	}
	if ((req & REQ_CGROUP_V2) && (!h->cg_ok || h->cg.memory != CG_VERSION_V2)) {
		miss |= REQ_CGROUP_V2;
		snprintf(line, sizeof(line), "cgroup v2 memory controller: this host's is %s; "
			 "run the scenario in a guest (pagelab vm --kernel K run ...)",
			 h->cg.memory == CG_VERSION_V1 ? "on cgroup v1" : "missing");
		off = append(why, whylen, off, line);
	}
	if ((req & REQ_THP) && !h->thp) {
		miss |= REQ_THP;
		off = append(why, whylen, off, "transparent huge pages: /sys/kernel/mm/"
			     "transparent_hugepage is missing (kernel without CONFIG_TRANSPARENT_HUGEPAGE)");
	} else if ((req & REQ_THP) && !strcmp(h->thp_enabled, "never")) {
		miss |= REQ_THP;
		off = append(why, whylen, off, "transparent huge pages: enabled is [never], so "
			     "MADV_HUGEPAGE cannot give the region huge pages (needs [always] or [madvise])");
	}
	if ((req & REQ_SWAP) && !h->swap_active) {
		miss |= REQ_SWAP;
		off = append(why, whylen, off, "swap: no swap area is active (/proc/swaps is empty)");
	}
	if ((req & REQ_LAZYFREE) && !h->lazyfree) {
		miss |= REQ_LAZYFREE;
		off = append(why, whylen, off, "LazyFree: /proc/self/smaps_rollup has no LazyFree "
			     "line (kernel older than 4.14), so MADV_FREE pages cannot be counted");
	}
	if ((req & REQ_VM) && !h->in_vm_guest) {
		miss |= REQ_VM;
		off = append(why, whylen, off, "VM mode: the scenario must run inside a pagelab "
			     "QEMU guest (pagelab vm --kernel K run ...)");
	}
	(void)off;
	return miss;
}

const char *host_cg_version_name(enum cg_version v)
{
	return v == CG_VERSION_V2 ? "v2" : v == CG_VERSION_V1 ? "v1" : NULL;
}

/* A /proc/sys/vm value as JSON: one integer when it is exactly one (an
 * optional sign, digits, a newline), else the text without the newline. */
static json_t *sysctl_value(const char *buf)
{
	size_t n = strlen(buf);
	char *end;
	long long v;
	const char *p = buf;

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (*p == '-' || *p == '+')
		p++;
	if (*p >= '0' && *p <= '9') {
		errno = 0;
		v = strtoll(buf, &end, 10);
		if (errno == 0 && (size_t)(end - buf) == n)
			return json_integer(v);
	}
	return json_stringn(buf, n);
}

/* Every readable file of /proc/sys/vm.  Skipped: the write-only triggers
 * (compact_memory, drop_caches: reading them fails with EACCES, even for
 * root: fs/proc/proc_sysctl.c: test_perm) and stat_refresh, whose read
 * handler folds every CPU's counters (mm/vmstat.c: vmstat_refresh) — a
 * record of the settings must not act on the host. */
static json_t *vm_sysctls(void)
{
	json_t *o = json_object();
	DIR *d = opendir("/proc/sys/vm");
	struct dirent *de;

	if (o == NULL || d == NULL) {
		if (d != NULL)
			closedir(d);
		return o;
	}
	while ((de = readdir(d)) != NULL) {
		cleanup_free char *buf = NULL;
		struct lab_error e;
		int fd;

		if (de->d_name[0] == '.' || strcmp(de->d_name, "stat_refresh") == 0 ||
		    strcmp(de->d_name, "compact_memory") == 0 ||
		    strcmp(de->d_name, "drop_caches") == 0)
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (lab_read_fd(fd, &buf, NULL, &e) == 0)
			json_object_set_new(o, de->d_name, sysctl_value(buf));
		close(fd);
	}
	closedir(d);
	return o;
}

static json_t *zones_json(void)
{
	cleanup_free char *buf = NULL;
	struct zoneinfo *zi = NULL;
	struct lab_error e;
	json_t *a = json_array();
	size_t i;

	if (a == NULL || lab_read_file("/proc/zoneinfo", &buf, NULL, &e) < 0)
		return a;
	zi = calloc(1, sizeof(*zi));
	if (zi == NULL || zoneinfo_parse(buf, zi, &e) < 0) {
		free(zi);
		return a;
	}
	for (i = 0; i < zi->n; i++) {
		const struct zone_info *z = &zi->zones[i];

		json_array_append_new(a, json_pack("{s:i, s:s, s:I, s:I, s:I}",
						   RK_NODE, z->node, RK_ZONE, z->name,
						   "managed_pages", (json_int_t)z->managed,
						   "present_pages", (json_int_t)z->present,
						   "spanned_pages", (json_int_t)z->spanned));
	}
	free(zi);
	return a;
}

/* The CPUs: the first "model name" of /proc/cpuinfo (x86; arm64 prints
 * none: null) and the online count — what compare's noise floor is bound to
 * (harness/read/floor.h: a timing's spread belongs to its machine). */
static json_t *cpu_json(void)
{
	cleanup_free char *buf = NULL;
	struct lab_error e;
	const char *m;
	char model[128] = "";
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (lab_read_file("/proc/cpuinfo", &buf, NULL, &e) == 0 && (m = strstr(buf, "model name")) != NULL &&
	    (m = strchr(m, ':')) != NULL) {
		size_t len;

		m += strspn(m + 1, " \t") + 1;
		len = strcspn(m, "\n");
		snprintf(model, sizeof(model), "%.*s", (int)(len < sizeof(model) ? len : sizeof(model) - 1), m);
	}
	return json_pack("{s:s?, s:I}", "model", model[0] ? model : NULL, "online", (json_int_t)(n > 0 ? n : 0));
}

json_t *host_to_json(const struct host_facts *h)
{
	json_t *o = json_object(), *cg, *thp, *quirks;
	const char *mem = host_cg_version_name(h->cg.memory);
	size_t i;

	if (o == NULL)
		return NULL;
	json_object_set_new(o, RK_KERNEL, json_string(h->kernel));
	json_object_set_new(o, "machine", json_string(h->machine));
	json_object_set_new(o, RK_HOSTNAME, json_string(h->hostname));
	json_object_set_new(o, "root", json_boolean(h->root));
	json_object_set_new(o, "cpu", cpu_json());

	cg = json_object();
	json_object_set_new(cg, "mode", json_string(h->cg.mode[0] ? h->cg.mode : "none"));
	json_object_set_new(cg, RK_MEMORY, mem != NULL ? json_string(mem) : json_null());
	json_object_set_new(cg, "mount", h->cg_ok ? json_string(h->cg.mount) : json_null());
	json_object_set_new(cg, "self", h->cg_ok ? json_string(h->cg.self) : json_null());
	if (!h->cg_ok)
		json_object_set_new(cg, "error", json_string(h->cg_error));
	json_object_set_new(o, RK_CGROUP, cg);

	json_object_set_new(o, "memtotal_kb", json_integer((json_int_t)h->memtotal_kb));
	json_object_set_new(o, "swap_total_kb", json_integer((json_int_t)h->swap_total_kb));
	json_object_set_new(o, "swap_active", json_boolean(h->swap_active));

	thp = json_object();
	json_object_set_new(thp, "available", json_boolean(h->thp));
	json_object_set_new(thp, RK_ENABLED, h->thp ? json_string(h->thp_enabled) : json_null());
	json_object_set_new(thp, "defrag", h->thp ? json_string(h->thp_defrag) : json_null());
	json_object_set_new(o, RK_THP, thp);
	/* Which LRU reclaim uses: 0x0000 classic, else MGLRU (mm/vmscan.c). */
	json_object_set_new(o, "lru_gen", h->lru_gen[0] ? json_string(h->lru_gen) : json_null());

	json_object_set_new(o, "lazyfree", json_boolean(h->lazyfree));
	json_object_set_new(o, "memory_reclaim", json_boolean(h->memory_reclaim));
	json_object_set_new(o, "tracefs", json_boolean(h->tracefs));
	json_object_set_new(o, "psi", json_boolean(h->psi));
	json_object_set_new(o, RK_IN_VM_GUEST, json_boolean(h->in_vm_guest));

	quirks = json_array();
	for (i = 0; i < h->nr_quirks; i++)
		json_array_append_new(quirks, json_string(h->quirks[i]));
	json_object_set_new(o, "quirks", quirks);

	json_object_set_new(o, RK_VM_SYSCTL, vm_sysctls());
	json_object_set_new(o, RK_ZONES, zones_json());
	/* What the figures depend on besides the kernel's name (fingerprint.h). */
	json_object_set_new(o, RK_FINGERPRINT, host_fingerprint());
	return o;
}
