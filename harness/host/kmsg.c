/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmsg.c — /dev/kmsg records, OOM reports and the reader (kmsg.h). */
#include "kmsg.h"
#include "result/keys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- pure parsers ------------------------------------------------------------ */

static bool parse_ull(const char **p, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (~0ULL - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*s - '0');
	}
	*p = s;
	*out = v;
	return true;
}

int kmsg_parse_record(const char *buf, size_t len, struct kmsg_rec *out)
{
	char head[128];
	const char *semi = memchr(buf, ';', len), *p = head, *text, *end;
	unsigned long long prio;
	size_t hl, tl;

	memset(out, 0, sizeof(*out));
	if (semi == NULL || (hl = (size_t)(semi - buf)) >= sizeof(head))
		return -EINVAL;
	memcpy(head, buf, hl);
	head[hl] = '\0';
	if (!parse_ull(&p, &prio) || *p++ != ',' || !parse_ull(&p, &out->seq) || *p++ != ',' ||
	    !parse_ull(&p, &out->ts_us) || (*p != ',' && *p != '\0') || prio > 1023)
		return -EINVAL;
	out->prio = (unsigned)prio;
	text = semi + 1;
	end = memchr(text, '\n', len - (size_t)(text - buf));
	tl = (size_t)((end ? end : buf + len) - text);
	if (tl >= sizeof(out->text))
		tl = sizeof(out->text) - 1;
	memcpy(out->text, text, tl);
	out->text[tl] = '\0';
	return 0;
}

/* "key:NNNkB" anywhere after start; false when absent. */
static bool kb_field(const char *text, const char *key, unsigned long long *out)
{
	const char *p = strstr(text, key);

	if (p == NULL)
		return false;
	p += strlen(key);
	return parse_ull(&p, out) && (strncmp(p, "kB", 2) == 0 || strncmp(p, "KB", 2) == 0);
}

bool kmsg_zone_line(const char *text, struct kmsg_zone_line *out)
{
	char zone[16];
	int node, used = 0;

	memset(out, 0, sizeof(*out));
	if (sscanf(text, "Node %d %15s free:%n", &node, zone, &used) != 2 || used == 0)
		return false;
	if (!kb_field(text, " free:", &out->free_kb) || !kb_field(text, " min:", &out->min_kb) ||
	    !kb_field(text, " low:", &out->low_kb) || !kb_field(text, " high:", &out->high_kb))
		return false;
	out->node = node;
	snprintf(out->zone, sizeof(out->zone), "%s", zone);
	return true;
}

/* ---- the OOM report, by the kernel's own record structure ------------------------
 *
 * mm/oom_kill.c (6.1, 6.12, 6.18 alike) writes one report per kill:
 *   dump_header:        "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d, oom_score_adj=%hd"
 *                       (current->comm first), the stack, show_mem's zone lines
 *                       (global OOM) or the memcg's counters, the task dump
 *                       ("[  pid  ] ... name": every task's comm), then
 *   dump_oom_victim:    "oom-kill:constraint=%s,nodemask=...,task=%s,pid=%d,uid=%d"
 *                       (dump_oom_summary before 6.x; same text)
 *   __oom_kill_process: "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB,
 *                       file-rss:%lukB, shmem-rss:%lukB, UID:%u pgtables:%lukB
 *                       oom_score_adj:%hd", the %s being out_of_memory's message:
 *                       "Out of memory", "Memory cgroup out of memory" or
 *                       "Out of memory (oom_kill_allocating_task)"; once per
 *                       member of a memory.oom.group (oom_kill_memcg_member);
 *                       4.x printed "Killed process %d (%s) total-vm:..." with no
 *                       message and no UID, pgtables or oom_score_adj.
 * Each line is matched at the start of a record's text, and only in a record
 * the kernel wrote itself: whatever a process writes to /dev/kmsg gets
 * facility LOG_USER or above (kernel/printk/printk.c: devkmsg_write, "to be
 * able to reliably distinguish kernel-generated messages from userspace-
 * injected ones"), the kernel's own records facility 0.  A comm is any 15
 * bytes (TASK_COMM_LEN 16), so a process may be named "Killed process " and
 * appear in the task dump, in "invoked oom-killer" and in the summary: none
 * of those lines starts with a kill message, so none closes the report. */

/* The kernel's own records: facility 0 (LOG_KERN); prio = facility * 8 + level. */
static bool kernel_record(const struct kmsg_rec *r)
{
	return r->prio < 8;
}

/* "KEY%llu" + "kB" at *p, advancing past it. */
static bool take_kb(const char **p, const char *key, long long *out)
{
	unsigned long long v;
	size_t kl = strlen(key);

	if (strncmp(*p, key, kl) != 0)
		return false;
	*p += kl;
	if (!parse_ull(p, &v) || strncmp(*p, "kB", 2) != 0 || v > (unsigned long long)LLONG_MAX)
		return false;
	*p += 2;
	*out = (long long)v;
	return true;
}

/* An optionally negative decimal at *p (the %hd of oom_score_adj). */
static bool take_ll(const char **p, long long *out)
{
	unsigned long long v;
	bool neg = **p == '-';

	if (neg)
		(*p)++;
	if (!parse_ull(p, &v) || v > (unsigned long long)LLONG_MAX)
		return false;
	*out = neg ? -(long long)v : (long long)v;
	return true;
}

static const char *after_prefix(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(text, prefix, n) == 0 ? text + n : NULL;
}

/* The last occurrence of needle in [s, end). */
static const char *last_of(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	const char *hit = NULL;

	for (const char *p = s; p + n <= end; p++)
		if (memcmp(p, needle, n) == 0)
			hit = p;
	return hit;
}

bool kmsg_kill_line(const char *text, struct kmsg_oom *out)
{
	static const char *const messages[] = {
		"Out of memory: ", "Memory cgroup out of memory: ",
		"Out of memory (oom_kill_allocating_task): ",
		"",     /* 4.x: oom_kill_process printed no message before it */
	};
	const char *p = NULL, *end = text + strlen(text), *rp;
	unsigned long long pid;
	long long total_vm, uid, pgtables;
	size_t cl;

	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]) && p == NULL; i++)
		p = after_prefix(text, messages[i]);
	if ((p = after_prefix(p, "Killed process ")) == NULL || !parse_ull(&p, &pid) ||
	    (p = after_prefix(p, " (")) == NULL || pid > (unsigned long long)LLONG_MAX)
		return false;
	/* The comm runs to the LAST ") total-vm:": nothing the kernel prints
	 * after it holds a ')' (the comm may). */
	if ((rp = last_of(p, end, ") total-vm:")) == NULL || (cl = (size_t)(rp - p)) >= KMSG_COMM_MAX)
		return false;
	out->pid = (long long)pid;
	memcpy(out->comm, p, cl);
	out->comm[cl] = '\0';
	p = rp + 2;
	if (!take_kb(&p, "total-vm:", &total_vm) || !take_kb(&p, ", anon-rss:", &out->anon_rss_kb) ||
	    !take_kb(&p, ", file-rss:", &out->file_rss_kb) || !take_kb(&p, ", shmem-rss:", &out->shmem_rss_kb))
		return false;
	out->oom_score_adj = 0;
	if (*p == '\0')
		return true;            /* before 5.3: no UID, pgtables, oom_score_adj */
	if ((p = after_prefix(p, ", UID:")) == NULL || !take_ll(&p, &uid) ||
	    !take_kb(&p, " pgtables:", &pgtables) || (p = after_prefix(p, " oom_score_adj:")) == NULL ||
	    !take_ll(&p, &out->oom_score_adj))
		return false;
	return *p == '\0';
}

/* "%s invoked oom-killer: gfp_mask=0x..." at the start: the trigger's comm
 * (at most 15 bytes, shorter than the key, so the first match is the one). */
static bool invoked_line(const char *text, char *trigger, size_t len)
{
	const char *p = strstr(text, " invoked oom-killer: gfp_mask=0x");

	if (p == NULL || (size_t)(p - text) >= KMSG_COMM_MAX)
		return false;
	snprintf(trigger, len, "%.*s", (int)(p - text), text);
	return true;
}

/* "oom-kill:constraint=NAME," at the start, and its ",task_memcg=PATH" up to
 * the ",task=" after it (a comm may hold ",task=" too: the first one ends the
 * path; a cgroup named with one is read short and matches no sandbox). */
static bool summary_line(const char *text, struct kmsg_oom *cur)
{
	const char *p = after_prefix(text, "oom-kill:constraint="), *c, *m, *e;

	if (p == NULL || (c = strchr(p, ',')) == NULL)
		return false;
	snprintf(cur->constraint, sizeof(cur->constraint), "%.*s", (int)(c - p), p);
	cur->task_memcg[0] = '\0';
	if ((m = strstr(c, ",task_memcg=")) != NULL && (e = strstr(m + 12, ",task=")) != NULL &&
	    (size_t)(e - (m + 12)) < sizeof(cur->task_memcg))
		snprintf(cur->task_memcg, sizeof(cur->task_memcg), "%.*s", (int)(e - (m + 12)), m + 12);
	return true;
}

size_t kmsg_oom_kills(const struct kmsg_rec *recs, size_t n, struct kmsg_oom *out, size_t max)
{
	struct kmsg_oom cur;
	size_t found = 0;
	bool open = false;

	memset(&cur, 0, sizeof(cur));
	for (size_t i = 0; i < n && found < max; i++) {
		const char *t = recs[i].text;
		struct kmsg_zone_line z;
		struct kmsg_oom kill;

		if (!kernel_record(&recs[i]))
			continue;
		memset(&kill, 0, sizeof(kill));
		if (invoked_line(t, kill.trigger, sizeof(kill.trigger))) {
			cur = kill;
			open = true;
		} else if (open && kmsg_zone_line(t, &z)) {
			if (cur.nzones < KMSG_ZONES_MAX)
				cur.zones[cur.nzones++] = z;
		} else if (open && summary_line(t, &cur)) {
			continue;
		} else if (kmsg_kill_line(t, &kill)) {
			/* the report it closes; a group member's kill after the
			 * first has none of its own */
			if (!open)
				memset(&cur, 0, sizeof(cur));
			cur.ts_us = recs[i].ts_us;
			cur.pid = kill.pid;
			memcpy(cur.comm, kill.comm, sizeof(cur.comm));
			cur.anon_rss_kb = kill.anon_rss_kb;
			cur.file_rss_kb = kill.file_rss_kb;
			cur.shmem_rss_kb = kill.shmem_rss_kb;
			cur.oom_score_adj = kill.oom_score_adj;
			out[found++] = cur;
			open = false;
		}
	}
	return found;
}

bool kmsg_interesting(const char *text)
{
	static const char *const pats[] = {
		"invoked oom-killer", "oom-kill:", "Out of memory", "Killed process", "oom_reaper:",
		"page allocation failure", "min_free_kbytes", "Mem-Info:", "active_anon:",
		"lowmem_reserve[]:", "Free swap", "Total swap", "pages RAM", "Tasks state",
		"Freeing initrd memory:", "Freeing unused kernel memory:", "Freeing unused kernel image (initmem) memory:",
	};
	struct kmsg_zone_line z;

	if (strncmp(text, "Node ", 5) == 0 && kmsg_zone_line(text, &z))
		return true;
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (strstr(text, pats[i]) != NULL)
			return true;
	return false;
}

/* ---- the reader ------------------------------------------------------------------ */

int kmsg_open(bool at_end)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (at_end && lseek(fd, 0, SEEK_END) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

void kmsg_drain(int fd, struct kmsg_log *log, bool (*keep)(const char *text), size_t max)
{
	char buf[8192];

	if (fd < 0)
		return;
	log->readable = true;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct kmsg_rec r;

		if (n < 0 && errno == EPIPE) {
			log->dropped++;        /* overwritten while we were behind */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (kmsg_parse_record(buf, (size_t)n, &r) < 0)
			continue;
		if (keep != NULL && (r.prio >= 8 || !keep(r.text)))     /* facility 0 only */
			continue;
		if (log->n == max) {
			log->dropped++;
			continue;
		}
		if (log->n == log->cap) {
			size_t cap = log->cap ? 2 * log->cap : 64;
			struct kmsg_rec *nr = realloc(log->recs, cap * sizeof(*nr));

			if (nr == NULL) {
				log->dropped++;
				continue;
			}
			log->recs = nr;
			log->cap = cap;
		}
		log->recs[log->n++] = r;
	}
}

void kmsg_log_free(struct kmsg_log *log)
{
	free(log->recs);
	memset(log, 0, sizeof(*log));
}

json_t *kmsg_log_json(const struct kmsg_log *log)
{
	json_t *o = json_object(), *recs = json_array(), *kills = json_array();
	struct kmsg_oom oom[32];
	size_t nk;

	for (size_t i = 0; i < log->n; i++)
		json_array_append_new(recs, json_pack("{s:I, s:f, s:i, s:s}", "seq", (json_int_t)log->recs[i].seq,
						      RK_T_S, (double)log->recs[i].ts_us / 1e6, "prio",
						      (int)log->recs[i].prio, RK_TEXT, log->recs[i].text));
	nk = kmsg_oom_kills(log->recs, log->n, oom, sizeof(oom) / sizeof(oom[0]));
	for (size_t i = 0; i < nk; i++) {
		json_t *zones = json_array();

		for (size_t z = 0; z < oom[i].nzones; z++)
			json_array_append_new(zones, json_pack("{s:i, s:s, s:I, s:I, s:I, s:I}", RK_NODE,
							       oom[i].zones[z].node, RK_ZONE, oom[i].zones[z].zone,
							       "free_kb", (json_int_t)oom[i].zones[z].free_kb,
							       "min_kb", (json_int_t)oom[i].zones[z].min_kb,
							       "low_kb", (json_int_t)oom[i].zones[z].low_kb,
							       "high_kb", (json_int_t)oom[i].zones[z].high_kb));
		json_array_append_new(kills, json_pack("{s:f, s:I, s:s, s:s, s:s, s:s?, s:I, s:I, s:I, s:I, s:o}",
						       RK_T_S, (double)oom[i].ts_us / 1e6, RK_PID,
						       (json_int_t)oom[i].pid, RK_COMM, oom[i].comm, "trigger",
						       oom[i].trigger, "constraint", oom[i].constraint, RK_TASK_MEMCG,
						       oom[i].task_memcg[0] ? oom[i].task_memcg : NULL,
						       "anon_rss_kb", (json_int_t)oom[i].anon_rss_kb,
						       "file_rss_kb", (json_int_t)oom[i].file_rss_kb,
						       RK_SHMEM_RSS_KB, (json_int_t)oom[i].shmem_rss_kb,
						       RK_OOM_SCORE_ADJ, (json_int_t)oom[i].oom_score_adj,
						       RK_ZONES, zones));
	}
	json_object_set_new(o, RK_READABLE, json_boolean(log->readable));
	json_object_set_new(o, RK_RECORDS, recs);
	json_object_set_new(o, "dropped", json_integer((json_int_t)log->dropped));
	json_object_set_new(o, RK_OOM_KILLS, kills);
	return o;
}
