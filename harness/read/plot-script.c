/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plot-script.c — the gnuplot scripts: a run's chart (five panels on one
 * time axis, the steps marked on each) and the variants overlaid.
 *
 * pagelab draws nothing itself: the data file lays the figures out in
 * columns (plot-view.c), the script names each series, gnuplot draws.
 */
#include "plot-internal.h"

#include "result/keys.h"

static void gp_terminal(FILE *f, const struct plot_opts *o, int w, int h, const char *out)
{
	if (o->format == PLOT_PNG)
		fprintf(f, "set terminal pngcairo size %d,%d font 'DejaVu Sans,9' noenhanced background rgb 'white'\n",
			w, h);
	else
		fprintf(f, "set terminal svg size %d,%d font 'DejaVu Sans,9' noenhanced background rgb 'white'\n",
			w, h);
	fputs("set output ", f);
	gp_str(f, out);
	fputs("\nset datafile separator '\\t'\nset datafile missing 'NaN'\n", f);
}

/* A panel the result has no figure for: its title and a sentence instead
 * of an axis. */
static void gp_missing(FILE *f, const char *title, const char *why)
{
	fputs("set title ", f);
	gp_str(f, title);
	fputs("\nunset arrow; unset object; unset ylabel; unset xlabel\n"
	      "unset border; unset xtics; unset ytics; unset y2tics; unset grid; set key off\n"
	      "set yrange [0:1]\nset label 99 ", f);
	gp_str(f, why);
	fputs(" at graph 0.5, graph 0.5 center font ',11' tc rgb '#a00000'\n"
	      "plot 2 notitle\n"
	      "unset label 99; set border; set xtics; set ytics; set grid ytics; set key on; set autoscale y\n", f);
}

static void range_text(const struct zkey *z, int k, char *buf, size_t len)
{
	if (z->lo[k] == z->hi[k])
		snprintf(buf, len, "%.0f", z->lo[k]);
	else
		snprintf(buf, len, "%.0f..%.0f", z->lo[k], z->hi[k]);
}

/* Steps on every panel; OOM kills as red lines; kswapd awake shaded.
 * Set again before each panel that draws (a "missing" panel clears them). */
static void gp_marks(const struct run_view *rv, FILE *f)
{
	size_t i;

	fputs("set autoscale y; set autoscale y2\n", f);      /* each panel sets its own range */

	{
		const json_t *steps = json_object_get(rv->run, RK_STEPS);
		int a = 1;

		for (i = 0; i < json_array_size(steps); i++) {
			double t = num_or_nan(json_object_get(json_array_get(steps, i), RK_T_MS)) / 1000.0;

			if (!isnan(t))
				fprintf(f, "set arrow %d from %.10g, graph 0 to %.10g, graph 1 nohead dt 3 lc rgb '#909090' back\n",
					a++, t, t);
		}
		for (i = 0; i < rv->nawake; i++)
			fprintf(f, "set object %zu rect from %.10g, graph 0 to %.10g, graph 1 behind fc rgb '#9ecae1' fs transparent solid 0.35 noborder\n",
				i + 1, rv->awake[i].t0, rv->awake[i].t1);
	}
	{
		const json_t *ws = json_object_get(jpath(rv->run, RK_EXIT), RK_WORKLOADS);
		int a = 5000;

		for (i = 0; i < json_array_size(ws); i++) {
			const json_t *w = json_array_get(ws, i);
			double t = plot_victim_ms(rv->run, w) / 1000.0;

			if (json_is_true(json_object_get(w, RK_OOM_KILLED)) && !isnan(t))
				fprintf(f, "set arrow %d from %.10g, graph 0 to %.10g, graph 1 nohead lw 1.5 lc rgb '#d00000' front\n",
					a++, t, t);
		}
	}

}

/* The steps' names, once, above the first panel. */
static void step_labels(const struct run_view *rv, FILE *f)
{
	const json_t *steps = json_object_get(rv->run, RK_STEPS);
	int l = 1;
	double last = -1;

	for (size_t i = 0; i < json_array_size(steps); i++) {
		const json_t *st = json_array_get(steps, i);
		double t = num_or_nan(json_object_get(st, RK_T_MS)) / 1000.0;
		char text[96];

		if (isnan(t))
			continue;
		plot_step_label(rv, st, text, sizeof(text));
		fprintf(f, "set label %d ", l++);
		gp_str(f, text);
		/* Steps close together: stagger, so names do not overlap. */
		fprintf(f, " at %.10g, graph %.2f left rotate by 30 font ',7' tc rgb '#606060'\n", t,
			last >= 0 && t - last < rv->duration_s / 40 ? 1.10 : 1.02);
		last = t;
	}
}

/* Panel 1: free pages per zone with its lines, log scale. */
static void panel_zones(const struct run_view *rv, FILE *f)
{
	const char *sep = "";

	if (rv->nzones == 0) {
		gp_missing(f, "Zones: free pages and watermarks", "missing: this result has no zone samples (samples[].zones)");
		return;
	}
	gp_marks(rv, f);
	fputs("set title 'Zones: free pages and min / low / high (pages, log scale)'\n"
	      "set logscale y\nset ylabel 'pages'\n", f);
	step_labels(rv, f);
	fputs("plot ", f);
	for (size_t z = 0; z < rv->nzones; z++) {
		const struct zkey *zk = &rv->zones[z];
		const char *col = plot_palette[z % PALETTE_N];
		int base = 2 + (int)z * ZONE_FIELDS;
		char t[192], r[48];

		if (zk->nfree == 0)
			continue;
		fprintf(f, "%sdata index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '%s' title ",
			sep, base, col);
		snprintf(t, sizeof(t), "%s free", zk->title);
		gp_str(f, t);
		sep = ", \\\n     ";
		for (int k = 1; k < ZONE_FIELDS; k++) {
			if (!zk->seen[k] || (k == 4 && zk->hi[k] == 0))
				continue;       /* boost only where non-zero */
			range_text(zk, k, r, sizeof(r));
			snprintf(t, sizeof(t), "%s %s = %s", zk->title, plot_zone_field[k], r);
			fprintf(f, "%sdata index 0 using 1:%d with steps dt %d lw 1 lc rgb '%s' title ", sep,
				base + k, k == 1 ? 1 : k == 2 ? 2 : k == 3 ? 4 : 3, col);
			gp_str(f, t);
		}
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);        /* zones without a free figure: an empty panel, not an error */
	fputs("\nunset logscale y\nunset label\n", f);
}

/* Panel 2: the sandbox's usage against memory.max / memory.high, OOM kills. */
static void panel_sandbox(const struct run_view *rv, FILE *f)
{
	if (rv->have[C_USAGE] == 0) {
		gp_missing(f, "Sandbox: memory usage", "missing: this result has no sandbox usage (samples[].memcg.usage_bytes)");
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;

		gp_marks(rv, f);
		fputs("set title 'Sandbox: memory usage against its limits (MiB)'\nset ylabel 'MiB'\nset yrange [0:*]\n", f);
		fprintf(f, "plot data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#1f77b4' title 'usage'",
			u + C_USAGE);
		if (!isnan(rv->max_mib))
			fprintf(f, ", \\\n     %.10g with lines lw 1.5 dt 2 lc rgb '#d62728' title 'memory.max = %.0f MiB'",
				rv->max_mib, rv->max_mib);
		if (!isnan(rv->high_mib))
			fprintf(f, ", \\\n     %.10g with lines lw 1.5 dt 4 lc rgb '#ff7f0e' title 'memory.high = %.0f MiB'",
				rv->high_mib, rv->high_mib);
		if (rv->nooms > 0)
			fputs(", \\\n     data index 2 using 1:2 with points pt 9 ps 1.8 lc rgb '#d00000' title 'OOM kill'"
			      ", \\\n     data index 2 using 1:2:3 with labels offset 0,1.2 tc rgb '#d00000' font ',8' notitle", f);
		fputs("\n", f);
	}
}

/* Panel 3: the main workload's smaps_rollup figures and resident pages. */
static void panel_workload(const struct run_view *rv, FILE *f)
{
	const char *sep;

	if (rv->have[C_RSS] == 0 && rv->nres == 0) {
		char why[160];

		snprintf(why, sizeof(why), "missing: no smaps_rollup or mincore figures of the main workload (%s)",
			 rv->main ? rv->main : "none");
		gp_missing(f, "Main workload", why);
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;
		char t[160];

		gp_marks(rv, f);
		snprintf(t, sizeof(t), "Main workload '%s': smaps_rollup and resident pages (MiB)", rv->main ? rv->main : "?");
		fputs("set title ", f);
		gp_str(f, t);
		fputs("\nset ylabel 'MiB'\nset yrange [0:*]\nplot ", f);
		sep = "";
		if (rv->have[C_RSS] > 0) {
			fprintf(f, "data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#1f77b4' title 'Rss', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#2ca02c' title 'LazyFree', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#9467bd' title 'AnonHugePages'",
				u + C_RSS, u + C_LAZY, u + C_HUGE);
			sep = ", \\\n     ";
		}
		if (rv->nres > 0)
			fprintf(f, "%sdata index 1 using 1:2 with points pt 5 ps 0.8 lc rgb '#ff7f0e' title 'resident (mincore, at steps)'",
				sep);
		fputs("\n", f);
	}
}

/* The loads' panel (a run with [load] sections only): each load over its
 * time at its own measure — its first higher-is-better metric, in its
 * unit (metrics/TOOL.json) — beside the kernel's figures; a load that is
 * no result marked on the axis. */
static void panel_loads(const struct run_view *rv, FILE *f)
{
	gp_marks(rv, f);
	fputs("set title 'Loads: each one over its time at its own measure (its headline metric, its unit)'\n"
	      "set ylabel 'its unit'\n", f);
	/* No load with a figure: only the "no result" marks at 0, an axis
	 * gnuplot would call empty. */
	fputs(rv->nload_values > 0 ? "set yrange [0:*]\nplot " : "set yrange [0:1]\nplot ", f);
	if (rv->nload_values > 0)
		fputs("data index 5 using 1:2:3:4 with xerrorbars pt 7 ps 0.8 lw 2 lc rgb '#1f77b4' title 'a load (start to end)', \
"
		      "     data index 5 using 1:2:6 with labels offset 0,1 font ',8' notitle, \
     ", f);
	fputs("data index 5 using 1:($5 == 0 ? 0 : NaN) with points pt 2 ps 1.5 lc rgb '#d00000' title 'no result', \
"
	      "     data index 5 using 1:($5 == 0 ? 0 : NaN):6 with labels offset 0,1 font ',8' tc rgb '#d00000' notitle\n"
	      "set autoscale y\n", f);
}

/* Panel 4: reclaim rates (vmstat, memory.stat, the trace bins), allocstall. */
static void panel_reclaim(const struct run_view *rv, FILE *f)
{
	if (rv->have[C_KSWAPD] == 0) {
		gp_missing(f, "Reclaim", "missing: this result has no vmstat deltas (samples[].vmstat_delta)");
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;

		gp_marks(rv, f);
		fputs("set title 'Reclaim: pages per second (vmstat); allocstall total on the right'\n"
		      "set ylabel 'pages/s'\nset y2tics\nset xlabel 's since the run started'\n", f);
		/* All zero (a sandbox reclaiming at its limit shows no global
		 * scans): a range gnuplot need not invent. */
		if (fmax(fmax(rv->maxv[C_KSWAPD], rv->maxv[C_DIRECT]),
			 fmax(fmax(rv->maxv[C_SWPOUT], rv->maxv[C_MEMCG]), fmax(rv->maxv[C_LAZYFREED], rv->bins_max))) <= 0)
			fputs("set yrange [0:1]\n", f);
		fputs(rv->maxv[C_ALLOCSTALL] <= 0 ? "set y2range [0:1]\n" : "set y2range [0:*]\n", f);
		fprintf(f, "plot data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#1f77b4' title 'kswapd scan', \\\n"
			   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#d62728' title 'direct scan', \\\n"
			   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1 lc rgb '#8c564b' title 'swap-out (pswpout)', \\\n"
			   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1 lc rgb '#9467bd' title 'lazyfree pages freed (pglazyfreed)', \\\n"
			   "     data index 0 using 1:%d axes x1y2 with steps lw 1 dt 2 lc rgb '#000000' title 'allocstall (total)'",
			u + C_KSWAPD, u + C_DIRECT, u + C_SWPOUT, u + C_LAZYFREED, u + C_ALLOCSTALL);
		if (rv->have[C_MEMCG] > 0)
			fprintf(f, ", \\\n     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1 lc rgb '#2ca02c' title 'sandbox scan (memory.stat)'",
				u + C_MEMCG);
		if (rv->nstalls > 0)
			fputs(", \\\n     data index 3 using 1:(0) with points pt 2 ps 1 lc rgb '#d00000' title 'reclaim stall'", f);
		if (rv->nbins > 0)
			/* A bin is an average over its width: drawn as a box over
			 * it, its value marked at the middle. */
			fputs(", \\\n     data index 4 using 1:2:5 with boxes fs transparent solid 0.25 noborder lc rgb '#e377c2' notitle"
			      ", \\\n     data index 4 using 1:3:5 with boxes fs transparent solid 0.25 noborder lc rgb '#17becf' notitle"
			      ", \\\n     data index 4 using 1:2 with points pt 4 ps 0.5 lc rgb '#e377c2' title 'direct reclaim, pages/s (trace)'"
			      ", \\\n     data index 4 using 1:3 with points pt 4 ps 0.5 lc rgb '#17becf' title 'memcg reclaim, pages/s (trace)'", f);
		if (rv->bin_stalls > 0)
			fputs(", \\\n     data index 4 using 1:($4 > 0 ? 0 : NaN) with points pt 2 ps 1 lc rgb '#d00000' title 'reclaim stalls (trace bins)'", f);
		if (rv->nawake > 0)
			fputs(", \\\n     NaN with boxes fc rgb '#9ecae1' title 'kswapd awake'", f);
		fputs("\nunset y2tics; unset y2label; unset xlabel; set autoscale y; set autoscale y2\n", f);
	}
}

/* Panel 5: PSI, the machine's and the sandbox's. */
static void panel_pressure(const struct run_view *rv, FILE *f)
{
	const char *sep;

	fputs("set bmargin 3\nset tmargin 3\nset xlabel 's since the run started'\n", f);
	if (rv->have[C_PSI_SOME] == 0 && rv->have[C_PSI_FULL] == 0 && rv->have[C_MPSI_SOME] == 0) {
		gp_missing(f, "Pressure (PSI)", rv->has_events
			   ? "missing: PSI was not sampled in this result"
			   : "missing: PSI was not sampled in this result (and it has no event timeline)");
	} else {
		int u = 2 + (int)rv->nzones * ZONE_FIELDS;

		gp_marks(rv, f);
		fputs("set title 'Memory pressure (PSI avg10, %)'\nset ylabel '%'\n", f);
		/* PSI is a share (>= 0); a short run often holds one value, which
		 * gnuplot would call an empty range: anchor the axis at 0. */
		if (fmax(fmax(rv->maxv[C_PSI_SOME], rv->maxv[C_PSI_FULL]), fmax(rv->maxv[C_MPSI_SOME], rv->maxv[C_MPSI_FULL])) <= 0)
			fputs("set yrange [0:1]\n", f);
		else
			fputs("set yrange [0:*]\n", f);
		fputs("plot ", f);
		sep = "";
		if (rv->have[C_PSI_SOME] > 0 || rv->have[C_PSI_FULL] > 0) {
			fprintf(f, "data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#ff7f0e' title 'machine some avg10', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 7 ps 0.35 lw 1.5 lc rgb '#d62728' title 'machine full avg10'",
				u + C_PSI_SOME, u + C_PSI_FULL);
			sep = ", \\\n     ";
		}
		if (rv->have[C_MPSI_SOME] > 0)
			fprintf(f, "%sdata index 0 using 1:%d with linespoints pt 6 ps 0.5 lw 1 lc rgb '#2ca02c' title 'sandbox some avg10', \\\n"
				   "     data index 0 using 1:%d with linespoints pt 6 ps 0.5 lw 1 lc rgb '#8c564b' title 'sandbox full avg10'",
				sep, u + C_MPSI_SOME, u + C_MPSI_FULL);
		fputs("\nset autoscale y\n", f);
	}
}

void plot_write_script(const struct run_view *rv, const struct plot_opts *o, const char *title, FILE *f)
{
	char dat[PATH_MAX + 8], out[PATH_MAX + 8];

	snprintf(dat, sizeof(dat), "%s.dat", rv->stem);
	snprintf(out, sizeof(out), "%s.%s", rv->stem, chart_ext(o));
	/* The title only as a quoted string below, never here: a comment
	 * ends at a newline, and the title is the document's text. */
	fprintf(f, "# pagelab plot: the run of %s.dat\n# redraw: gnuplot ./%s.gp (in this directory)\n", rv->stem,
		rv->stem);
	gp_terminal(f, o, 980, rv->nloads > 0 ? 1580 : 1320, out);
	fputs("data = ", f);
	gp_str(f, dat);
	fprintf(f, "\nset multiplot layout %d,1 title ", rv->nloads > 0 ? 6 : 5);
	gp_str(f, title);
	fputs(" font ',10'\n"
	      "set lmargin 11; set rmargin 38; set tmargin 3; set bmargin 2\n"
	      "set key outside right top Left reverse samplen 2 spacing 1.1 font ',8'\n"
	      "set grid ytics lc rgb '#e0e0e0'\nset ytics nomirror\n"
	      "set style fill transparent solid 0.35 noborder\n", f);
	fprintf(f, "set xrange [0:%.10g]\n", rv->duration_s > 0 ? rv->duration_s : 1);
	panel_zones(rv, f);
	fputs("set tmargin 2.2\n", f);
	panel_sandbox(rv, f);
	panel_workload(rv, f);
	if (rv->nloads > 0)
		panel_loads(rv, f);
	panel_reclaim(rv, f);
	panel_pressure(rv, f);
	fputs("unset multiplot\n", f);
}

/* ------------------------------------------------------------ overlay */

/* The zone a variants chart follows: Normal where there is one (the
 * watermark article's), else the largest. */
static size_t main_zone(const struct run_view *rv)
{
	size_t best = 0;

	for (size_t z = 0; z < rv->nzones; z++) {
		if (strcmp(rv->zones[z].name, "Normal") == 0)
			return z;
		if (rv->zones[z].hi[0] > rv->zones[best].hi[0])
			best = z;
	}
	return best;
}

void plot_write_overlay(struct run_view *const *v, size_t n, const struct plot_opts *o, const char *stem,
			  const char *title, FILE *f)
{
	char out[PATH_MAX + 8];
	double dur = 0;
	size_t i;
	const char *sep;

	snprintf(out, sizeof(out), "%s-variants.%s", stem, chart_ext(o));
	fprintf(f, "# pagelab plot: the variants of %s overlaid\n", stem);
	gp_terminal(f, o, 980, 900, out);
	for (i = 0; i < n; i++)
		dur = fmax(dur, v[i]->duration_s);
	fputs("set multiplot layout 3,1 title ", f);
	gp_str(f, title);
	fputs(" font ',10'\nset lmargin 11; set rmargin 30; set tmargin 2; set bmargin 2\n"
	      "set key outside right top Left reverse samplen 2 font ',8'\n"
	      "set grid ytics lc rgb '#e0e0e0'\n", f);
	fprintf(f, "set xrange [0:%.10g]\n", dur > 0 ? dur : 1);

	fputs("set title 'Free pages of the main zone, each variant, with its low line (pages)'\nset ylabel 'pages'\nplot ", f);
	sep = "";
	for (i = 0; i < n; i++) {
		size_t z = main_zone(v[i]);
		char t[400];

		if (v[i]->nzones == 0 || v[i]->zones[z].nfree == 0)
			continue;
		fprintf(f, "%s'%s.dat' index 0 using 1:%d with linespoints pt 7 ps 0.3 lw 1.5 lc rgb '%s' title ", sep,
			v[i]->stem, 2 + (int)z * ZONE_FIELDS, plot_palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s (%s) %s free", v[i]->label, v[i]->variant, v[i]->zones[z].title);
		gp_str(f, t);
		fprintf(f, ", \\\n     '%s.dat' index 0 using 1:%d with steps dt 2 lc rgb '%s' title ", v[i]->stem,
			2 + (int)z * ZONE_FIELDS + 2, plot_palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s low", v[i]->label);
		gp_str(f, t);
		sep = ", \\\n     ";
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);
	fputs("\nset tmargin 1.5\nset title 'Sandbox usage, each variant (MiB)'\nset ylabel 'MiB'\nplot ", f);
	sep = "";
	for (i = 0; i < n; i++) {
		char t[300];

		if (v[i]->have[C_USAGE] == 0)
			continue;
		fprintf(f, "%s'%s.dat' index 0 using 1:%d with linespoints pt 7 ps 0.3 lw 1.5 lc rgb '%s' title ", sep,
			v[i]->stem, 2 + (int)v[i]->nzones * ZONE_FIELDS + C_USAGE, plot_palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s (%s)", v[i]->label, v[i]->variant);
		gp_str(f, t);
		sep = ", \\\n     ";
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);
	fputs("\nset bmargin 3\nset xlabel 's since the run started'\n"
	      "set title 'Pages scanned since the start: kswapd (solid), direct (dashed)'\nset ylabel 'pages'\n", f);
	{
		double mx = 0;

		for (i = 0; i < n; i++)
			mx = fmax(mx, fmax(v[i]->maxv[C_SCAN_KSWAPD_CUM], v[i]->maxv[C_SCAN_DIRECT_CUM]));
		if (mx <= 0)
			fputs("set yrange [0:1]\n", f);      /* nothing scanned: no range to invent */
	}
	fputs("plot ", f);
	sep = "";
	for (i = 0; i < n; i++) {
		char t[300];
		int u = 2 + (int)v[i]->nzones * ZONE_FIELDS;

		if (v[i]->have[C_SCAN_KSWAPD_CUM] == 0)
			continue;
		fprintf(f, "%s'%s.dat' index 0 using 1:%d with lines lw 1.5 lc rgb '%s' title ", sep, v[i]->stem,
			u + C_SCAN_KSWAPD_CUM, plot_palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s kswapd", v[i]->label);
		gp_str(f, t);
		fprintf(f, ", \\\n     '%s.dat' index 0 using 1:%d with lines dt 2 lw 1.5 lc rgb '%s' title ", v[i]->stem,
			u + C_SCAN_DIRECT_CUM, plot_palette[i % PALETTE_N]);
		snprintf(t, sizeof(t), "%s direct", v[i]->label);
		gp_str(f, t);
		sep = ", \\\n     ";
	}
	if (*sep == '\0')
		fputs("NaN notitle", f);
	fputs("\nunset multiplot\n", f);
}
