/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot-fit.c — a fit's curve (harness/fit/fit.md; the document's
 * fit.tables.curve) as one chart, STEM-fit: over the quota probed (MiB, log
 * scale),
 *   the objectives  each load figure that has a role (a throughput, a p99)
 *                   as a ratio to the base's median, a line at 1, the
 *                   failed probes marked below the axis;
 *   the kernel      the sandbox's peak (MiB) beside the quota itself, and
 *                   refaults and major faults on the right axis.
 * The data file holds numbers only (a row per probe, quota ascending, the
 * base left out); the figures' names reach the script as '...' literals. */
#include "plot-internal.h"

#define FIT_COLS 40

static const char *const kernel_figs[] = { "psi_some_pct", "workingset_refault_anon", "workingset_refault_file",
					   "pgmajfault", "peak_bytes" };

static bool is_kernel_fig(const char *name)
{
	for (size_t i = 0; i < sizeof(kernel_figs) / sizeof(kernel_figs[0]); i++)
		if (strcmp(name, kernel_figs[i]) == 0)
			return true;
	return false;
}

/* The column of the curve's table named name, or -1. */
static int curve_col(const json_t *cols, const char *name)
{
	for (size_t i = 0; i < json_array_size(cols) && i < FIT_COLS; i++)
		if (strcmp(jstr(json_array_get(cols, i), "name", ""), name) == 0)
			return (int)i;
	return -1;
}

bool plot_fit_has_curve(const json_t *doc)
{
	const json_t *curve = jpath(doc, "fit.tables.curve");

	return json_array_size(json_object_get(curve, "rows")) > 1 &&
	       curve_col(json_object_get(curve, "columns"), "quota") == 0;
}

/* Data: quota MiB, met (1, 0 failed, NaN no verdict), OOM runs, then each
 * figure column: a load figure ÷ the base's median, a kernel figure as it
 * is (peak in MiB).  Returns the rows written. */
static size_t fit_data(const json_t *curve, FILE *d)
{
	const json_t *cols = json_object_get(curve, "columns"), *rows = json_object_get(curve, "rows");
	const json_t *base = NULL;
	size_t n = 0;

	for (size_t r = 0; r < json_array_size(rows); r++)
		if (json_is_string(json_array_get(json_array_get(rows, r), 1)) &&
		    strcmp(json_string_value(json_array_get(json_array_get(rows, r), 1)), "base") == 0)
			base = json_array_get(rows, r);
	fputs("# quota_mib\tmet\toom_runs\t(figures as in the script)\n", d);
	for (size_t r = 0; r < json_array_size(rows); r++) {
		const json_t *row = json_array_get(rows, r);
		const char *v = json_string_value(json_array_get(row, 1));

		if (row == base || v == NULL)
			continue;
		fprintf(d, "%.10g", num_or_nan(json_array_get(row, 0)) / MIB);
		dat_num(d, strcmp(v, "met") == 0 ? 1 : strcmp(v, "failed") == 0 ? 0 : NAN);
		dat_num(d, num_or_nan(json_array_get(row, 3)));
		for (size_t c = 4; c < json_array_size(cols) && c < FIT_COLS; c++) {
			const char *name = jstr(json_array_get(cols, c), "name", "");
			double x = num_or_nan(json_array_get(row, c));
			double b = base != NULL ? num_or_nan(json_array_get(base, c)) : NAN;

			if (strcmp(name, "peak_bytes") == 0)
				x /= MIB;
			else if (!is_kernel_fig(name))
				x = b > 0 ? x / b : NAN;
			dat_num(d, x);
		}
		fputc('\n', d);
		n++;
	}
	return n;
}

static void fit_script(const json_t *curve, const struct plot_opts *o, const char *stem, const char *title, FILE *f)
{
	const json_t *cols = json_object_get(curve, "columns");
	char out[PATH_MAX + 8];
	const char *sep = "";
	int c;

	snprintf(out, sizeof(out), "%s-fit.%s", stem, chart_ext(o));
	fprintf(f, "# pagelab plot: the curve of the fit in %s-fit.dat\n", stem);
	fprintf(f, "set terminal %s size 980,700 font 'DejaVu Sans,9' noenhanced background rgb 'white'\nset output ",
		o->format == PLOT_PNG ? "pngcairo" : "svg");
	gp_str(f, out);
	fputs("\nset datafile separator '\\t'\nset datafile missing 'NaN'\nset multiplot layout 2,1 title ", f);
	gp_str(f, title);
	fputs(" font ',10'\nset lmargin 11; set rmargin 34; set tmargin 4; set bmargin 3\n"
	      "set key outside right top Left reverse samplen 2 font ',8'\n"
	      "set grid xtics ytics lc rgb '#e0e0e0'\nset logscale x 2\nset xlabel 'quota (MiB)'\n"
	      "set title 'The objectives: each load figure ÷ the base (unconstrained) run, medians of the repeats'\n"
	      "set ylabel '÷ base'\nset yrange [-0.15:*]\nset arrow 1 from graph 0, first 1 to graph 1, first 1 nohead "
	      "dt 2 lc rgb '#808080'\nplot ", f);
	for (c = 4; c < (int)json_array_size(cols) && c < FIT_COLS; c++) {
		const char *name = jstr(json_array_get(cols, c), "name", "");

		if (is_kernel_fig(name))
			continue;
		fprintf(f, "%s'%s-fit.dat' using 1:%d with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '%s' title ", sep, stem,
			c, plot_palette[(c - 4) % PALETTE_N]);
		gp_str(f, name);
		sep = ", \\\n     ";
	}
	fprintf(f, "%s'%s-fit.dat' using 1:($2 == 0 ? -0.08 : NaN) with points pt 2 ps 1.2 lc rgb '#c00000' "
		"title 'failed (OOM kills or an objective broken)'", sep, stem);
	fprintf(f, ", \\\n     '%s-fit.dat' using 1:($2 == 1 ? -0.08 : NaN) with points pt 6 ps 1.2 lc rgb '#008000' "
		"title 'met'\nunset arrow 1\nset yrange [*:*]\nset tmargin 2\n", stem);
	fputs("set title 'The kernel: the sandbox''s peak against the quota; refaults and major faults (right)'\n"
	      "set ylabel 'MiB'\nset y2label 'events'\nset y2tics\nset ytics nomirror\nplot ", f);
	fprintf(f, "'%s-fit.dat' using 1:1 with lines dt 2 lc rgb '#808080' title 'the quota'", stem);
	for (c = 4; c < (int)json_array_size(cols) && c < FIT_COLS; c++) {
		const char *name = jstr(json_array_get(cols, c), "name", "");

		if (strcmp(name, "peak_bytes") == 0)
			fprintf(f, ", \\\n     '%s-fit.dat' using 1:%d with linespoints pt 7 ps 0.6 lw 1.5 lc rgb '#1f77b4' "
				"title 'peak (MiB)'", stem, c);
		else if (strncmp(name, "workingset_refault", 18) == 0 || strcmp(name, "pgmajfault") == 0) {
			fprintf(f, ", \\\n     '%s-fit.dat' using 1:%d axes x1y2 with linespoints pt 5 ps 0.5 lc rgb '%s' title ",
				stem, c, plot_palette[(c + 3) % PALETTE_N]);
			gp_str(f, name);
		}
	}
	fputs("\nunset multiplot\n", f);
}

int plot_fit_write(const json_t *doc, const struct plot_opts *o, const char *stem, const char *title, FILE *d,
		   FILE *g)
{
	const json_t *curve = jpath(doc, "fit.tables.curve");

	if (fit_data(curve, d) == 0)
		return -ENODATA;
	fit_script(curve, o, stem, title, g);
	return 0;
}
