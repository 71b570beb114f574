/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot.c — the public calls of plot.h: documents to charts, gnuplot run on
 * each script, the files named and published (outdir.h).  The view and the
 * data file are plot-view.c's, the scripts plot-script.c's.
 */
#include "plot-internal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fileio.h"
#include "outdir.h"
#include "result/keys.h"
#include "result/read.h"

/* ------------------------------------------------------------ gnuplot */

bool plot_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (path == NULL)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n > 0 && (size_t)snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, path) < sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* Run `gnuplot SCRIPT` in dir (shown as show); its stderr is kept: the
 * error when it fails, a warning per line when it says anything (a warning
 * means a series is not what the script meant). */
static int run_gnuplot(const char *dir, const char *show, const char *script, const struct lab_progress *p,
		       struct lab_error *err)
{
	int pfd[2], status;
	pid_t pid;
	cleanup_free char *msg = NULL;
	char arg[PATH_MAX + 2];

	/* "./NAME": a result named like an option (--odd.json) makes a
	 * script gnuplot would take for one. */
	if ((size_t)snprintf(arg, sizeof(arg), "./%s", script) >= sizeof(arg))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s", script);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return lab_error_errno(err, errno, "pipe");
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return lab_error_errno(err, errno, "fork");
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (chdir(dir) < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", arg, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	lab_read_fd(pfd[0], &msg, NULL, err);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return lab_error_errno(err, errno, "waitpid gnuplot");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return lab_error_set(err, ENOPKG, "cannot run gnuplot (apt-get install gnuplot-nox)");
		/* One line: gnuplot's lines joined (its caret line is blanks). */
		for (char *c = msg; c != NULL && *c; c++)
			if (*c == '\n')
				*c = ' ';
		return lab_error_set(err, EIO, "gnuplot failed on %s/%s: %.400s", show, script,
				     msg != NULL ? msg : "");
	}
	for (char *line = msg, *next; line != NULL && *line; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line)
			lab_say(p, LAB_SAY_WARN, "gnuplot on %s/%s: %s", show, script, line);
	}
	return 0;
}

/* ------------------------------------------------------------ files */

static const char *write_dir(const struct plot_opts *o)
{
	return o->stage_dir != NULL ? o->stage_dir : o->out_dir;
}

/* gnuplot opens its output itself, following a symlink and writing into a
 * device or FIFO: before it runs, a chart already there must be a regular
 * file (it is removed, so gnuplot creates a new one); anything else is
 * refused, nothing written through it.  In a private directory
 * (outdir.h) nothing is there but what this run wrote. */
static int chart_clear(const struct plot_opts *o, const char *stem, struct lab_error *err)
{
	char path[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s.%s", write_dir(o), stem, chart_ext(o)) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s/%s", o->out_dir, stem);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : lab_error_errno(err, errno, "%s", path);
	if (!S_ISREG(st.st_mode))
		return lab_error_set(err, EEXIST, "%s/%s.%s exists and is %s: not overwritten", o->out_dir, stem,
				     chart_ext(o), lab_file_kind(st.st_mode));
	if (unlink(path) < 0)
		return lab_error_errno(err, errno, "cannot replace %s", path);
	return 0;
}

static int write_file(const struct plot_opts *o, const char *name, const struct text *t, struct lab_error *err)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", write_dir(o), name) >= sizeof(path))
		return lab_error_set(err, ENAMETOOLONG, "path too long: %s/%s", o->out_dir, name);
	return lab_write_atomic(path, t->buf, t->len, err);
}

static int chart_add(struct plot_charts *c, const struct plot_opts *o, const char *stem, const char *title,
		     const char *label, int repeat)
{
	struct plot_chart *g = realloc(c->v, (c->n + 1) * sizeof(*g));
	char path[2 * PATH_MAX], file[PATH_MAX];

	if (g == NULL)
		return -ENOMEM;
	c->v = g;
	if ((size_t)snprintf(file, sizeof(file), "%.*s.%s", PATH_MAX - 8, stem, chart_ext(o)) >= sizeof(file) ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s", o->out_dir, file) >= sizeof(path))
		return -ENAMETOOLONG;
	g = &c->v[c->n];
	memset(g, 0, sizeof(*g));
	g->path = strdup(path);
	g->title = strdup(title);
	g->file = strdup(file);
	snprintf(g->label, sizeof(g->label), "%s", label);
	g->repeat = repeat;
	if (g->path == NULL || g->title == NULL || g->file == NULL) {
		free(g->path);
		free(g->title);
		free(g->file);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

void plot_charts_free(struct plot_charts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].title);
		free(c->v[i].file);
	}
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

/* STEM: the result file's name without directory and .json; only
 * characters safe in a file name and a gnuplot string. */
static void file_stem(const char *src, char *buf, size_t len)
{
	const char *b = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	size_t n = strlen(b), i, k = 0;

	if (n > 5 && strcmp(b + n - 5, ".json") == 0)
		n -= 5;
	else if (n > 6 && strcmp(b + n - 6, ".jsonl") == 0)
		n -= 6;                 /* a run's stream: the document's stem */
	for (i = 0; i < n && k + 1 < len; i++)
		buf[k++] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+",
					 b[i]) && b[i] ? b[i] : '_');
	buf[k] = '\0';
	if (k == 0)
		snprintf(buf, len, "result");
}

/* ------------------------------------------------------------ documents */

/* views[i] is the first run with its label. */
static bool rv_first_of_label(struct run_view *const *views, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(views[k]->label, views[i]->label) == 0)
			return false;
	return true;
}

/* Write NAME.gp (and NAME.dat when d is given), clear the chart's place,
 * run gnuplot, add the chart. */
static int draw(const struct plot_opts *o, const char *stem, const struct text *d, const struct text *g,
		const char *title, const char *label, int repeat, struct plot_charts *out, struct lab_error *err)
{
	char name[PATH_MAX + 8];
	int ret = 0;

	snprintf(name, sizeof(name), "%s.dat", stem);
	if (d != NULL)
		ret = write_file(o, name, d, err);
	snprintf(name, sizeof(name), "%s.gp", stem);
	if (ret == 0)
		ret = write_file(o, name, g, err);
	if (ret == 0)
		ret = chart_clear(o, stem, err);
	if (ret == 0)
		ret = run_gnuplot(write_dir(o), o->out_dir, name, o->progress, err);
	if (ret == 0 && chart_add(out, o, stem, title, label, repeat) < 0)
		ret = lab_error_set(err, ENOMEM, "out of memory");
	return ret;
}

/* One run: its view, data file, script and chart. */
static int plot_run(const json_t *doc, const char *src, struct run_view *rv,
		    const struct plot_opts *o, struct plot_charts *out, struct lab_error *err)
{
	const char *kernel = jstr(doc, RK_HOST "." RK_KERNEL, "?");
	const char *scenario = jstr(doc, RK_SCENARIO "." RK_NAME, "?");
	const char *srcbase = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	json_int_t nrep = json_integer_value(jpath(doc, RK_SCENARIO "." RK_REPEAT));
	struct text d = { 0 }, g = { 0 };
	char title[1024];
	int ret;

	snprintf(title, sizeof(title), "kernel %s · %s · run %s (%s) · repeat %lld/%lld · %s", kernel, scenario,
		 rv->label, rv->variant, (long long)(rv->repeat ? rv->repeat : 1), (long long)(nrep ? nrep : 1),
		 srcbase);
	if (text_open(&d) < 0 || text_open(&g) < 0) {
		text_free(&d);
		text_free(&g);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	ret = plot_write_data(rv, d.f);
	plot_write_script(rv, o, title, g.f);
	if (ret < 0 || text_close(&d) < 0 || text_close(&g) < 0)
		ret = lab_error_set(err, ENOMEM, "out of memory");
	else
		ret = draw(o, rv->stem, &d, &g, title, rv->label, (int)(rv->repeat ? rv->repeat : 1), out, err);
	text_free(&d);
	text_free(&g);
	return ret;
}

/* The variants overlaid: the first repeat of each label. */
static int plot_overlay(const json_t *doc, const char *src, const char *stem, struct run_view *const *views,
			size_t nviews, const struct plot_opts *o, struct plot_charts *out, struct lab_error *err)
{
	const char *srcbase = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	struct run_view **firsts = calloc(nviews + 1, sizeof(*firsts));
	struct text g = { 0 };
	char title[1024], ostem[PATH_MAX];
	size_t k = 0;
	int ret;

	if (firsts == NULL || text_open(&g) < 0) {
		free(firsts);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < nviews; i++)
		if (rv_first_of_label(views, i))
			firsts[k++] = views[i];
	snprintf(title, sizeof(title), "kernel %s · %s · variants overlaid (first repeat of each) · %s",
		 jstr(doc, RK_HOST "." RK_KERNEL, "?"), jstr(doc, RK_SCENARIO "." RK_NAME, "?"), srcbase);
	plot_write_overlay(firsts, k, o, stem, title, g.f);
	free(firsts);
	snprintf(ostem, sizeof(ostem), "%s-variants", stem);
	ret = text_close(&g) < 0 ? lab_error_set(err, ENOMEM, "out of memory")
				 : draw(o, ostem, NULL, &g, title, "variants", 0, out, err);
	text_free(&g);
	return ret;
}

/* A fit's curve (plot-fit.c): STEM-fit. */
static int plot_fit(const json_t *doc, const char *src, const char *stem, const struct plot_opts *o,
		    struct plot_charts *out, struct lab_error *err)
{
	const char *srcbase = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	struct text d = { 0 }, g = { 0 };
	char title[1024], fstem[PATH_MAX];
	int ret;

	snprintf(title, sizeof(title), "kernel %s · %s · the fit of %s: %s · %s", jstr(doc, RK_HOST "." RK_KERNEL, "?"),
		 jstr(doc, RK_SCENARIO "." RK_NAME, "?"), jstr(doc, "fit.key", "?"), jstr(doc, "fit.answer.status", "?"),
		 srcbase);
	if (text_open(&d) < 0 || text_open(&g) < 0) {
		text_free(&d);
		text_free(&g);
		return lab_error_set(err, ENOMEM, "out of memory");
	}
	ret = plot_fit_write(doc, o, stem, title, d.f, g.f);
	snprintf(fstem, sizeof(fstem), "%s-fit", stem);
	if (text_close(&d) < 0 || text_close(&g) < 0)
		ret = lab_error_set(err, ENOMEM, "out of memory");
	else if (ret == 0)
		ret = draw(o, fstem, &d, &g, title, "fit", 0, out, err);
	else
		ret = 0;        /* the base alone: nothing to draw */
	text_free(&d);
	text_free(&g);
	return ret;
}

int plot_document(const char *src, const json_t *doc, const struct plot_opts *o,
		  struct plot_charts *out, struct lab_error *err)
{
	const json_t *runs = json_object_get(doc, RK_RUNS);
	char stem[PATH_MAX / 2];
	struct run_view **views = NULL;
	size_t nviews = 0, nlabels = 0, i;
	int ret = 0;

	file_stem(src, stem, sizeof(stem));
	views = calloc(json_array_size(runs) + 1, sizeof(*views));
	if (views == NULL)
		return lab_error_set(err, ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(runs) && ret == 0; i++) {
		const json_t *run = json_array_get(runs, i);

		if (o->run_label != NULL && strcmp(o->run_label, jstr(run, RK_LABEL, "")) != 0)
			continue;
		if ((views[nviews] = malloc(sizeof(*views[nviews]))) == NULL) {
			ret = lab_error_set(err, ENOMEM, "out of memory");
			break;
		}
		plot_view_init(views[nviews], doc, run, stem);
		ret = plot_run(doc, src, views[nviews++], o, out, err);
	}
	for (i = 0; ret == 0 && i < nviews; i++)
		nlabels += rv_first_of_label(views, i);
	if (ret == 0 && o->overlay && nlabels > 1)
		ret = plot_overlay(doc, src, stem, views, nviews, o, out, err);
	if (ret == 0 && o->run_label == NULL && plot_fit_has_curve(doc))
		ret = plot_fit(doc, src, stem, o, out, err);
	for (i = 0; i < nviews; i++) {
		plot_view_free(views[i]);
		free(views[i]);
	}
	free(views);
	return ret;
}

/* ------------------------------------------------------------ loading */

/* Every path of a sample the charts read (sample_cols, sample_zone,
 * usage_at, write_data): a chart reading one more must name it here —
 * tests/bats/read.bats compares the charts' data with whole loads. */
/* Every path of a sample the charts read (sample_cols, sample_zone,
 * usage_at, write_data): a chart reading one more must name it here —
 * tests/bats/read.bats compares the charts' data with whole loads. */
static const char *const sample_paths[] = {
	RK_ZONES "[" RK_ZONE "=," RK_NODE "=].free+min+low+high+boost+managed",
	RK_MEMCG "." RK_USAGE_BYTES,
	RK_MEMCG "." RK_STAT ".pgscan",
	RK_WORKLOADS ".*." RK_RSS_KB "+" RK_LAZYFREE_KB "+" RK_ANONHUGE_KB,
	RK_VMSTAT_DELTA ".pgscan_kswapd+pgscan_direct+pswpout+pglazyfreed",
	RK_VMSTAT_DELTA ".allocstall_*",
	RK_PSI ".some.total_us",          /* psi_share */
	RK_PSI ".full.total_us",
	RK_MEMCG_PRESSURE ".some.total_us",
	RK_MEMCG_PRESSURE ".full.total_us",
	"bursts+from_ms+to_ms",           /* cadence_cols: a folded burst line's */
};

int plot_load(const char *path, const struct lab_progress *p, json_t **out, struct lab_error *err)
{
	struct result_need *need = result_need_new();
	struct result_read_info info;
	int ret = need == NULL ? lab_error_set(err, ENOMEM, "out of memory") : 0;

	for (size_t i = 0; ret == 0 && i < sizeof(sample_paths) / sizeof(sample_paths[0]); i++)
		ret = result_need_add(need, sample_paths[i], err);
	if (ret == 0)
		ret = result_read(path, need, out, &info, err);
	result_need_free(need);
	if (ret < 0 && (ret == -ENOENT || ret == -EACCES)) {
		/* An input that cannot be read is bad input (exit 2).  The
		 * message is copied first: formatting err->msg into itself
		 * emptied it ("pagelab plot: " and nothing else). */
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		return lab_error_set(err, EINVAL, "%s", msg);
	}
	if (ret < 0)
		return ret;
	if (info.stream)
		lab_say(p, LAB_SAY_WARN, "%s: %s; %zu run(s), %zu sample(s) recorded%s", path,
			info.finished ? "read from the run's stream"
				      : "the run did not finish (no result document): read from its stream",
			info.runs, info.samples, info.cut ? ", its last line cut short (left out)" : "");
	return 0;
}

/* Every input read (said once, to o->progress), none two of one stem. */
static int check_inputs(const char *const *files, size_t n, const struct plot_opts *o, struct lab_error *err)
{
	for (size_t i = 0; i < n; i++) {
		json_t *doc = NULL;
		int ret = plot_load(files[i], o->progress, &doc, err);

		json_decref(doc);
		if (ret < 0)
			return ret;
		for (size_t k = 0; k < i; k++) {
			char a[PATH_MAX], b[PATH_MAX];

			file_stem(files[i], a, sizeof(a));
			file_stem(files[k], b, sizeof(b));
			if (strcmp(a, b) == 0)
				return lab_error_set(err, EINVAL, "%s and %s would both be drawn as %s-*: plot them "
						     "into separate --out directories", files[k], files[i], a);
		}
	}
	return 0;
}

int plot_files(const char *const *files, size_t n, const struct plot_opts *opts, struct plot_charts *out,
	       struct lab_error *err)
{
	struct plot_opts o = *opts;
	struct outdir d;
	int ret;

	if ((ret = outdir_check(o.out_dir, "--out", "the charts", err)) < 0 ||
	    (ret = check_inputs(files, n, &o, err)) < 0)
		return ret;
	if (!plot_have_gnuplot())
		return lab_error_set(err, ENOPKG, "gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
	if ((ret = outdir_begin(&d, o.out_dir, "--out", "the charts", err)) < 0)
		return ret;
	o.stage_dir = d.stage;
	for (size_t i = 0; i < n && ret == 0; i++) {
		json_t *doc = NULL;

		ret = plot_load(files[i], NULL, &doc, err);       /* said when checked */
		if (ret == 0)
			ret = plot_document(files[i], doc, &o, out, err);
		json_decref(doc);
	}
	if (ret == 0 && out->n == 0)
		ret = lab_error_set(err, ENOENT, "no run%s%s in the results given", o.run_label ? " labelled " : "",
				    o.run_label ? o.run_label : "");
	if (ret == 0)
		return outdir_commit(&d, err);
	outdir_abort(&d);
	return ret;
}
