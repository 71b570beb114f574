/* SPDX-License-Identifier: GPL-2.0-or-later */
/* command.c — foreign programs in a scenario: a [workload NAME] with
 * command = (any program, run as given), and [load NAME] (a client run
 * against it, its output parsed by a metrics table), typed for one variant
 * (scn.h, harness/plan/scenario.md: "Any program as a workload", "Load").
 * Pure: nothing here looks at the host (whether the user exists, where the
 * program is, whether the metrics table is there: harness/run/check.c). */
#include "scn.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pattern.h"
#include "base/size.h"

static const char *const workload_keys[] = {
	"command", "user", "env", "ready", "ready_timeout", "stop", "thp", "hold", "start", NULL,
};
static const char *const load_keys[] = {
	"command", "user", "env", "timeout", "metrics", "cgroup", "memory_max", NULL,
};

/* The signals a stop may send, by name (without SIG). */
static const struct { const char *name; int sig; } stop_signals[] = {
	{ "TERM", SIGTERM }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "HUP", SIGHUP },
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "KILL", SIGKILL },
};

const char *run_word_text(const char *word, char *buf, size_t len)
{
	size_t o = 0;

	if (strchr(word, SCN_DIR_MARK) == NULL)
		return word;
	for (const char *p = word; *p && o + 1 < len; p++) {
		if (*p == SCN_DIR_MARK) {
			int n = snprintf(buf + o, len - o, "${dir}");

			o += n > 0 ? (size_t)n : 0;
			if (o >= len)
				o = len - 1;
		} else {
			buf[o++] = *p;
		}
	}
	buf[o] = '\0';
	return buf;
}

static int keys_check(struct scn_inst *in, const struct scn_section *sec, const char *const *keys, const char *what)
{
	for (size_t i = 0; i < sec->n; i++) {
		const struct scn_item *it = &sec->items[i];
		bool known = false;
		char list[256] = "";
		size_t off = 0;

		for (const char *const *k = keys; *k; k++)
			known |= strcmp(*k, it->key) == 0;
		if (known)
			continue;
		for (const char *const *k = keys; *k; k++)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", off ? ", " : "", *k);
		return scn_inst_err(in, it->key_pos, NULL, "unknown key '%s' in %s (a command takes: %s)", it->key, what,
				    list);
	}
	return 0;
}

/* user = NAME: a user name as useradd(8) takes one (or root); whether it
 * exists is the host's question (run/check.c). */
static int exec_user(struct scn_inst *in, const struct scn_section *sec, const char *what, struct cmd_exec *x)
{
	const struct scn_item *it = scn_section_get(sec, "user");
	struct scn_expanded v;
	size_t n;
	int ret;

	snprintf(x->user, sizeof(x->user), "%s", SCN_DEFAULT_USER);
	if (it == NULL)
		return 0;
	if ((ret = scn_expand(in, it->value, it->value_pos, &v)) < 0)
		return ret;
	n = strlen(v.text);
	if (n == 0 || n > 32 || !(islower((unsigned char)v.text[0]) || v.text[0] == '_'))
		goto bad;
	for (size_t i = 1; i < n; i++)
		if (!(islower((unsigned char)v.text[i]) || isdigit((unsigned char)v.text[i]) || v.text[i] == '_' ||
		      v.text[i] == '-' || (v.text[i] == '$' && i == n - 1)))
			goto bad;
	memcpy(x->user, v.text, n + 1);
	return 0;
bad:
	return scn_inst_err(in, it->value_pos, &v, "%s user: '%s' is not a user name (a-z, 0-9, _, -; at most 32)",
			    what, v.text);
}

/* env = KEY=VALUE …: words, each a variable the program gets besides the
 * fixed few (launch/command.h); a key given twice is an error. */
static int exec_env(struct scn_inst *in, const struct scn_section *sec, const char *what, struct cmd_exec *x)
{
	const struct scn_item *it = scn_section_get(sec, "env");
	struct scn_words ws;
	char field[96];
	int ret;

	if (it == NULL)
		return 0;
	snprintf(field, sizeof(field), "%s env", what);
	if ((ret = scn_words(in, field, it, &ws)) < 0)
		return ret;
	for (size_t i = 0; i < ws.n && ret == 0; i++) {
		const char *eq = strchr(ws.w[i], '=');
		struct scn_pos pos = { it->value_pos.line, ws.col[i] };
		size_t kl = eq ? (size_t)(eq - ws.w[i]) : 0;

		if (kl == 0 || !(isalpha((unsigned char)ws.w[i][0]) || ws.w[i][0] == '_'))
			ret = scn_inst_err(in, pos, NULL, "%s: '%s' is not KEY=VALUE", field, ws.w[i]);
		for (size_t c = 1; ret == 0 && c < kl; c++)
			if (!(isalnum((unsigned char)ws.w[i][c]) || ws.w[i][c] == '_'))
				ret = scn_inst_err(in, pos, NULL, "%s: '%.*s' is not a variable name (A-Z, a-z, 0-9, _)",
						   field, (int)kl, ws.w[i]);
		for (size_t j = 0; ret == 0 && j < x->nr_env; j++)
			if (strncmp(x->env[j], ws.w[i], kl + 1) == 0)
				ret = scn_inst_err(in, pos, NULL, "%s: %.*s given twice", field, (int)kl, ws.w[i]);
		if (ret == 0 && x->nr_env == SCN_MAX_ENV)
			ret = scn_inst_err(in, pos, NULL, "%s: at most %d variables", field, SCN_MAX_ENV);
		if (ret == 0) {
			x->env[x->nr_env++] = ws.w[i];
			ws.w[i] = NULL;
		}
	}
	scn_words_free(&ws);
	return ret;
}

/* command = ARGV…: at least the program; argv[0] is a path or a name the
 * fixed PATH finds (run/check.c resolves it). */
static int exec_argv(struct scn_inst *in, const struct scn_section *sec, const char *what, char **argv, int *argc)
{
	const struct scn_item *it = scn_section_get(sec, "command");
	struct scn_words ws;
	char field[96];
	int ret;

	*argc = 0;
	argv[0] = NULL;
	if (it == NULL)
		return scn_inst_err(in, sec->pos, NULL, "%s needs command = PROGRAM ARGS…", what);
	snprintf(field, sizeof(field), "%s command", what);
	if ((ret = scn_words(in, field, it, &ws)) < 0)
		return ret;
	if (ws.n == 0 || ws.w[0][0] == '\0') {
		scn_words_free(&ws);
		return scn_inst_err(in, it->value_pos, NULL, "%s: no program", field);
	}
	if (strchr(ws.w[0], SCN_DIR_MARK) != NULL) {
		scn_words_free(&ws);
		return scn_inst_err(in, it->value_pos, NULL, "%s: the program is not in the run's directory "
				    "(${dir} is made empty for each run)", field);
	}
	for (size_t i = 0; i < ws.n; i++) {
		argv[i] = ws.w[i];
		ws.w[i] = NULL;
	}
	*argc = (int)ws.n;
	argv[ws.n] = NULL;
	scn_words_free(&ws);
	return 0;
}

static int typed_ms(struct scn_inst *in, const struct scn_section *sec, const char *key, const char *what,
		    unsigned lo, unsigned hi, unsigned dflt, unsigned *out)
{
	const struct scn_item *it = scn_section_get(sec, key);
	struct scn_expanded x;
	unsigned long long v;
	int ret;

	*out = dflt;
	if (it == NULL)
		return 0;
	if ((ret = scn_typed_item(in, what, it, K_UINT, NULL, &v, &x)) < 0)
		return ret;
	if (v < lo || v > hi)
		return scn_inst_err(in, it->value_pos, &x, "%s %s: expected %u..%u ms, got %llu", what, key, lo, hi, v);
	*out = (unsigned)v;
	return 0;
}

/* A ready path (unix:, file:): inside the run's directory, written relative
 * to it or as ${dir}/…, no "..". */
static int ready_path(struct scn_inst *in, struct scn_pos pos, const char *what, const char *p, struct cmd_ready *r)
{
	if (p[0] == SCN_DIR_MARK && p[1] == '/')
		p += 2;
	if (*p == '\0' || *p == '/' || strchr(p, SCN_DIR_MARK) != NULL || strlen(p) >= sizeof(r->path) - 1)
		return scn_inst_err(in, pos, NULL, "%s ready: the path is in the run's directory: write it relative to "
				    "it or as ${dir}/NAME", what);
	for (const char *s = p; s != NULL; s = strchr(s, '/')) {
		if (*s == '/')
			s++;
		if (strncmp(s, "..", 2) == 0 && (s[2] == '/' || s[2] == '\0'))
			return scn_inst_err(in, pos, NULL, "%s ready: '..' leaves the run's directory", what);
	}
	snprintf(r->path, sizeof(r->path), "%s", p);
	return 0;
}

/* tcp:PORT, tcp:127.x.y.z:PORT, tcp:[::1]:PORT, tcp:localhost:PORT. */
static int ready_tcp_word(struct scn_inst *in, struct scn_pos pos, const char *what, const char *a, struct cmd_ready *r)
{
	const char *colon = strrchr(a, ':'), *port = colon ? colon + 1 : a;
	char host[40];
	unsigned long long v;
	struct lab_error e2;
	unsigned b[4];
	char tail;

	if (colon != NULL && (size_t)(colon - a) >= sizeof(host))
		return scn_inst_err(in, pos, NULL, "%s ready: tcp:%s: only loopback (127.0.0.0/8, [::1], localhost)",
				    what, a);
	snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - a) : 0, a);
	if (colon == NULL || strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	if (strcmp(host, "[::1]") == 0)
		snprintf(host, sizeof(host), "::1");
	else if (sscanf(host, "%u.%u.%u.%u%c", &b[0], &b[1], &b[2], &b[3], &tail) != 4 || b[0] != 127 || b[1] > 255 ||
		 b[2] > 255 || b[3] > 255)
		return scn_inst_err(in, pos, NULL, "%s ready: tcp:%s: only loopback (127.0.0.0/8, [::1], localhost)",
				    what, a);
	if (lab_parse_uint(port, &v, &e2) < 0 || v < 1 || v > 65535)
		return scn_inst_err(in, pos, NULL, "%s ready: tcp: expected a port 1..65535, got '%s'", what, port);
	snprintf(r->host, sizeof(r->host), "%s", host);
	r->port = (unsigned)v;
	return 0;
}

/* ready = tcp:… | unix:PATH | file:PATH | stdout:RE | stderr:RE | output:RE
 * (one word: quote a pattern with blanks). */
static int ready_inst(struct scn_inst *in, const struct scn_section *sec, const char *what, struct cmd_ready *r)
{
	const struct scn_item *it = scn_section_get(sec, "ready");
	static const struct { const char *prefix; enum cmd_ready_kind kind; unsigned streams; } kinds[] = {
		{ "tcp:", RUN_READY_TCP, 0 }, { "unix:", RUN_READY_UNIX, 0 }, { "file:", RUN_READY_FILE, 0 },
		{ "stdout:", RUN_READY_LINE, RUN_READY_STDOUT }, { "stderr:", RUN_READY_LINE, RUN_READY_STDERR },
		{ "output:", RUN_READY_LINE, RUN_READY_STDOUT | RUN_READY_STDERR },
	};
	struct scn_words ws;
	char field[96], shown[320];
	const char *a = NULL;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if ((ret = typed_ms(in, sec, "ready_timeout", what, 100, 3600000, 30000, &r->timeout_ms)) < 0)
		return ret;
	if (it == NULL) {
		if (scn_section_get(sec, "ready_timeout") != NULL)
			return scn_inst_err(in, scn_section_get(sec, "ready_timeout")->key_pos, NULL,
					    "%s: ready_timeout without ready", what);
		return 0;
	}
	snprintf(field, sizeof(field), "%s ready", what);
	if ((ret = scn_words(in, field, it, &ws)) < 0)
		return ret;
	if (ws.n != 1)
		ret = scn_inst_err(in, it->value_pos, NULL, "%s: one condition (quote a pattern with blanks)", field);
	for (size_t k = 0; ret == 0 && k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (strncmp(ws.w[0], kinds[k].prefix, strlen(kinds[k].prefix)) == 0) {
			r->kind = kinds[k].kind;
			r->streams = kinds[k].streams;
			a = ws.w[0] + strlen(kinds[k].prefix);
		}
	if (ret == 0 && a == NULL)
		ret = scn_inst_err(in, it->value_pos, NULL, "%s: expected tcp:PORT, unix:PATH, file:PATH, stdout:RE, "
				   "stderr:RE or output:RE, got '%s'", field, ws.w[0]);
	if (ret == 0)
		snprintf(r->text, sizeof(r->text), "%s", run_word_text(ws.w[0], shown, sizeof(shown)));
	if (ret == 0 && r->kind == RUN_READY_TCP)
		ret = ready_tcp_word(in, it->value_pos, what, a, r);
	else if (ret == 0 && (r->kind == RUN_READY_UNIX || r->kind == RUN_READY_FILE))
		ret = ready_path(in, it->value_pos, what, a, r);
	else if (ret == 0) {
		regex_t re;
		char msg[128];
		int rc;

		_Static_assert(sizeof(r->regex) > LAB_PATTERN_MAX_LEN, "a ready pattern fits");
		if (strchr(a, SCN_DIR_MARK)) {
			snprintf(msg, sizeof(msg), "holds ${dir}");
			rc = REG_BADPAT;
		} else {
			rc = lab_pattern_compile(&re, a, REG_EXTENDED | REG_NOSUB, msg, sizeof(msg));
		}
		if (rc != 0) {
			ret = scn_inst_err(in, it->value_pos, NULL, "%s: '%s' is not a pattern (POSIX ERE): %s", field, a,
					   msg);
		} else {
			regfree(&re);
			snprintf(r->regex, sizeof(r->regex), "%s", a);
		}
	}
	scn_words_free(&ws);
	return ret;
}

/* stop = SIGNAL [GRACE_MS]: TERM, INT, QUIT, HUP, USR1, USR2, KILL (SIG…
 * accepted), grace 0..600000 ms (default 5000). */
static int stop_inst(struct scn_inst *in, const struct scn_section *sec, const char *what, struct run_workload *w)
{
	const struct scn_item *it = scn_section_get(sec, "stop");
	struct scn_words ws;
	char field[96];
	int ret;

	w->stop_signal = SIGTERM;
	w->stop_grace_ms = 5000;
	if (it == NULL)
		return 0;
	snprintf(field, sizeof(field), "%s stop", what);
	if ((ret = scn_words(in, field, it, &ws)) < 0)
		return ret;
	if (ws.n < 1 || ws.n > 2)
		ret = scn_inst_err(in, it->value_pos, NULL, "%s: expected SIGNAL [GRACE_MS] (TERM 5000)", field);
	if (ret == 0) {
		const char *name = strncmp(ws.w[0], "SIG", 3) == 0 ? ws.w[0] + 3 : ws.w[0];

		w->stop_signal = 0;
		for (size_t k = 0; k < sizeof(stop_signals) / sizeof(stop_signals[0]); k++)
			if (strcmp(name, stop_signals[k].name) == 0)
				w->stop_signal = stop_signals[k].sig;
		if (w->stop_signal == 0)
			ret = scn_inst_err(in, it->value_pos, NULL, "%s: '%s' is not one of TERM INT QUIT HUP USR1 USR2 KILL",
					   field, ws.w[0]);
	}
	if (ret == 0 && ws.n == 2) {
		unsigned long long v;

		ret = scn_typed(in, field, ws.w[1], K_UINT, NULL, (struct scn_pos){ it->value_pos.line, ws.col[1] },
				NULL, &v);
		if (ret == 0 && v > 600000)
			ret = scn_inst_err(in, it->value_pos, NULL, "%s: grace 0..600000 ms, got %llu", field, v);
		if (ret == 0)
			w->stop_grace_ms = (unsigned)v;
	}
	scn_words_free(&ws);
	return ret;
}

int scn_command_workload(struct scn_inst *in, size_t idx, struct run_workload *w)
{
	const struct scn_section *sec = &in->s->workloads[idx];
	const struct scn_item *thp = scn_section_get(sec, "thp");
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "[workload %s]", sec->name);
	snprintf(w->program, sizeof(w->program), "command");
	w->command = true;
	if (scn_section_get(sec, "program") != NULL)
		return scn_inst_err(in, scn_section_get(sec, "program")->key_pos, NULL,
				    "%s: program and command: one of them (command runs any program as given)", what);
	if ((ret = keys_check(in, sec, workload_keys, what)) < 0 ||
	    (ret = exec_argv(in, sec, what, w->argv, &w->argc)) < 0 || (ret = exec_user(in, sec, what, &w->exec)) < 0 ||
	    (ret = exec_env(in, sec, what, &w->exec)) < 0 || (ret = ready_inst(in, sec, what, &w->ready)) < 0 ||
	    (ret = stop_inst(in, sec, what, w)) < 0 ||
	    (ret = typed_ms(in, sec, "hold", what, 0, 86400000, 0, &w->hold_ms)) < 0)
		return ret;
	if (thp != NULL) {
		struct scn_expanded x;
		unsigned long long v;

		if ((ret = scn_typed_item(in, what, thp, K_ENUM, "never|default", &v, &x)) < 0)
			return ret;
		w->thp_never = strcmp(x.text, "never") == 0;
	}
	return 0;
}

int scn_load_inst(struct scn_inst *in, size_t idx, struct run_spec *r)
{
	const struct scn_section *sec = &in->s->loads[idx];
	struct run_load *l = &r->loads[idx];
	const struct scn_item *it;
	struct scn_expanded x;
	unsigned long long v;
	char what[64];
	int ret;

	snprintf(l->name, sizeof(l->name), "%s", sec->name);
	snprintf(what, sizeof(what), "[load %s]", sec->name);
	if (!strcmp(sec->name, "ready"))
		return scn_inst_err(in, sec->pos, NULL, "%s: 'ready' is the main workload's own step: name the load "
				    "otherwise", what);
	if ((ret = keys_check(in, sec, load_keys, what)) < 0 || (ret = exec_argv(in, sec, what, l->argv, &l->argc)) < 0 ||
	    (ret = exec_user(in, sec, what, &l->exec)) < 0 || (ret = exec_env(in, sec, what, &l->exec)) < 0 ||
	    (ret = typed_ms(in, sec, "timeout", what, 100, 3600000, 60000, &l->timeout_ms)) < 0)
		return ret;
	if ((it = scn_section_get(sec, "metrics")) != NULL) {
		if ((ret = scn_expand(in, it->value, it->value_pos, &x)) < 0)
			return ret;
		for (const char *c = x.text; *c; c++)
			if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '-' || *c == '_' ||
			      (*c == '.' && c != x.text)))
				return scn_inst_err(in, it->value_pos, &x, "%s metrics: '%s' is not a metrics table's name "
						    "(a file DATA/metrics/NAME.json: a-z, 0-9, -, _, .), or none", what, x.text);
		if (x.text[0] == '\0' || strlen(x.text) >= sizeof(l->metrics))
			return scn_inst_err(in, it->value_pos, &x, "%s metrics: a name of 1..63 characters", what);
		if (strcmp(x.text, "none") != 0)
			memcpy(l->metrics, x.text, strlen(x.text) + 1);
	}
	if ((it = scn_section_get(sec, "cgroup")) != NULL) {
		if ((ret = scn_typed_item(in, what, it, K_ENUM, "own|sandbox", &v, &x)) < 0)
			return ret;
		l->in_sandbox = strcmp(x.text, "sandbox") == 0;
	}
	l->memory_max = 1ull << 30;
	if ((it = scn_section_get(sec, "memory_max")) != NULL) {
		if (l->in_sandbox)
			return scn_inst_err(in, it->key_pos, NULL, "%s: memory_max is its own cgroup's: not with cgroup = "
					    "sandbox", what);
		if ((ret = scn_typed_item(in, what, it, K_MEM, NULL, &l->memory_max, &x)) < 0)
			return ret;
	}
	return 0;
}

int scn_foreign_check(struct scn_inst *in, struct run_spec *r)
{
	const struct run_workload *m = &r->workloads[r->nr_workloads - 1];
	const char *user = NULL;

	for (size_t i = 0; i < r->nr_workloads; i++)
		if (r->workloads[i].command) {
			r->foreign = true;
			if (user == NULL)
				user = r->workloads[i].exec.user;
			else if (strcmp(user, r->workloads[i].exec.user) != 0)
				return scn_inst_err(in, in->s->workloads[i].pos, NULL,
						    "[workload %s] user %s: the run's commands share one user and its "
						    "directory (%s above)", r->workloads[i].name, r->workloads[i].exec.user,
						    user);
		}
	for (size_t i = 0; i < r->nr_loads; i++) {
		if (!m->command)
			return scn_inst_err(in, in->s->loads[i].pos, NULL, "[load %s] drives the main (last) workload, "
					    "which is then a command: [workload %s] runs program %s", r->loads[i].name,
					    m->name, m->program);
		if (strcmp(user, r->loads[i].exec.user) != 0)
			return scn_inst_err(in, in->s->loads[i].pos, NULL,
					    "[load %s] user %s: the run's commands share one user and its directory "
					    "(%s above)", r->loads[i].name, r->loads[i].exec.user, user);
	}
	r->foreign |= r->nr_loads > 0;
	for (size_t i = 0; r->foreign && i < in->s->nr_params; i++)
		if (!strcmp(in->s->params[i].name, "dir"))
			return scn_inst_err(in, in->s->params[i].pos, NULL,
					    "parameter dir: ${dir} is the run's directory in a scenario with commands");
	return 0;
}

void scn_exec_free(struct cmd_exec *x)
{
	for (size_t i = 0; i < x->nr_env; i++)
		free(x->env[i]);
	x->nr_env = 0;
}
