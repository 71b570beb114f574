/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kmsg.c — /dev/kmsg records, OOM reports and the reader (kmsg.h). */
#include "kmsg.h"
#include "result/keys.h"

#include <errno.h>
#include <fcntl.h>
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

static long long ll_field(const char *text, const char *key, long long dflt)
{
	const char *p = strstr(text, key);
	char *end;
	long long v;

	if (p == NULL)
		return dflt;
	v = strtoll(p + strlen(key), &end, 10);
	return end == p + strlen(key) ? dflt : v;
}

static void word_after(const char *text, const char *key, char stop, char *out, size_t len)
{
	const char *p = strstr(text, key);
	size_t n = 0;

	out[0] = '\0';
	if (p == NULL)
		return;
	for (p += strlen(key); *p && *p != stop && n + 1 < len; p++)
		out[n++] = *p;
	out[n] = '\0';
}

size_t kmsg_oom_kills(const struct kmsg_rec *recs, size_t n, struct kmsg_oom *out, size_t max)
{
	struct kmsg_oom cur;
	size_t found = 0;
	bool open = false;

	memset(&cur, 0, sizeof(cur));
	for (size_t i = 0; i < n && found < max; i++) {
		const char *t = recs[i].text, *p;
		struct kmsg_zone_line z;

		if ((p = strstr(t, " invoked oom-killer:")) != NULL) {
			memset(&cur, 0, sizeof(cur));
			snprintf(cur.trigger, sizeof(cur.trigger), "%.*s", (int)(p - t), t);
			open = true;
		} else if (open && kmsg_zone_line(t, &z)) {
			if (cur.nzones < KMSG_ZONES_MAX)
				cur.zones[cur.nzones++] = z;
		} else if (open && strncmp(t, "oom-kill:", 9) == 0) {
			word_after(t, "constraint=", ',', cur.constraint, sizeof(cur.constraint));
		} else if ((p = strstr(t, "Killed process ")) != NULL) {
			const char *lp, *rp;

			if (!open)
				memset(&cur, 0, sizeof(cur));
			cur.ts_us = recs[i].ts_us;
			cur.pid = ll_field(p, "Killed process ", -1);
			lp = strchr(p, '(');
			rp = lp ? strstr(lp, ") ") : NULL;
			if (lp && rp)
				snprintf(cur.comm, sizeof(cur.comm), "%.*s", (int)(rp - lp - 1), lp + 1);
			cur.anon_rss_kb = ll_field(p, "anon-rss:", -1);
			cur.file_rss_kb = ll_field(p, "file-rss:", -1);
			cur.shmem_rss_kb = ll_field(p, "shmem-rss:", -1);
			cur.oom_score_adj = ll_field(p, "oom_score_adj:", 0);
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
		if (keep != NULL && !keep(r.text))
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
		json_array_append_new(kills, json_pack("{s:f, s:I, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:o}",
						       RK_T_S, (double)oom[i].ts_us / 1e6, RK_PID,
						       (json_int_t)oom[i].pid, RK_COMM, oom[i].comm, "trigger",
						       oom[i].trigger, "constraint", oom[i].constraint,
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
