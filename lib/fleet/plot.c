#include <config.h>

#include "fleet/plot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util/strutil.h"

/* Owners' colours: golden's drains stand out, an admin's are grey. */
static const char *const owner_color[GOLDEN_OWNER_N] = {"#d62728", "#7f7f7f", "#1f77b4", "#ff7f0e"};

void golden_fleet_plot_data(const struct golden_fleet_report *rep, FILE *f)
{
	fprintf(f, "# t availability_pct golden admin+ slurm+ other+ (drains, stacked)\n");
	for (size_t i = 0; i < rep->nbins; i++) {
		const struct golden_fleet_bin *b = &rep->bins[i];
		long long len = b->t + rep->bin_s > rep->until ? rep->until - b->t : rep->bin_s;
		int sum = 0;

		/* The middle of the bin; the last one may be cut by the window. */
		fprintf(f, "%lld %.4f", b->t + len / 2, b->availability);
		for (int o = 0; o < GOLDEN_OWNER_N; o++) {
			sum += b->drains[o];
			fprintf(f, " %d", sum);
		}
		fputc('\n', f);
	}
}

static double lowest(const struct golden_fleet_report *rep)
{
	double lo = 100;

	for (size_t i = 0; i < rep->nbins; i++)
		if (rep->bins[i].availability < lo)
			lo = rep->bins[i].availability;
	return lo;
}

void golden_fleet_plot_script(const struct golden_fleet_report *rep, const char *data,
                              const char *out, enum golden_gnuplot_format fmt, bool cairo,
                              const char *title, FILE *f)
{
	char q[512], t[256];
	double lo = lowest(rep), floor_pct;
	const char *xfmt = rep->bin_s < 86400 ? "%m-%d\\n%H:%M" : "%Y-%m-%d";

	/* Room below the worst bin, in whole percent, so 99.9% does not look
	 * like an outage and an outage is not cut off. */
	floor_pct = lo >= 99.0 ? 99.0 : lo >= 90.0 ? 90.0 : lo >= 50 ? 50.0 : 0.0;
	fprintf(f, "# golden report: drawn with gnuplot\n");
	if (fmt == GOLDEN_GNUPLOT_SVG)
		fprintf(
		    f,
		    "set terminal svg size 960,640 dynamic font 'sans,11' background '#ffffff'\n");
	else
		fprintf(f, "set terminal %s size 960,640 font 'sans,10'\n",
		        cairo ? "pngcairo" : "png");
	golden_gnuplot_quote(out, q, sizeof(q));
	fprintf(f, "set output '%s'\n", q);
	golden_gnuplot_quote(title, t, sizeof(t));
	fprintf(f, "set multiplot layout 2,1 title '%s'\n", t);
	fprintf(f, "set xdata time\nset timefmt '%%s'\nset format x '%s'\n", xfmt);
	fprintf(f, "set xrange ['%lld':'%lld']\n", rep->since, rep->until);
	fprintf(f, "set grid ytics\nset key top right\n");
	fprintf(f, "set ylabel 'availability %%'\nset yrange [%g:100.5]\n", floor_pct);
	golden_gnuplot_quote(data, q, sizeof(q));
	fprintf(f,
	        "plot '%s' using 1:2 with steps lw 2 lc rgb '#2ca02c' title 'fleet availability "
	        "(%.3f%% overall)'\n",
	        q, rep->availability);
	fprintf(f, "set ylabel 'drains per %s'\nset yrange [0:*]\nset style fill solid 0.8\n",
	        rep->bin_s < 86400    ? "hour"
	        : rep->bin_s == 86400 ? "day"
	                              : "bin");
	{
		long long w = rep->until - rep->since;

		fprintf(f, "set boxwidth %lld absolute\n",
		        (rep->bin_s < w ? rep->bin_s : w) * 8 / 10);
	}
	fprintf(f, "plot ");
	/* Stacked: draw the tallest (every owner) first, then cover it. */
	for (int o = GOLDEN_OWNER_N - 1; o >= 0; o--)
		fprintf(f, "'%s' using 1:%d with boxes lc rgb '%s' title '%s'%s", q, 3 + o,
		        owner_color[o], golden_owner_name((enum golden_owner)o), o ? ", " : "\n");
	fprintf(f, "unset multiplot\n");
}

static int write_file(const char *path, const struct golden_fleet_report *rep, const char *data,
                      const char *out, enum golden_gnuplot_format fmt, bool cairo,
                      const char *title, struct golden_err *err)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return golden_err_set(err, "%s: %s", path, strerror(errno));
	if (data)
		golden_fleet_plot_script(rep, data, out, fmt, cairo, title, f);
	else
		golden_fleet_plot_data(rep, f);
	if (fclose(f) != 0)
		return golden_err_set(err, "%s: %s", path, strerror(errno));
	return 0;
}

int golden_fleet_plot(const struct golden_fleet_report *rep, const char *path, const char *title,
                      const char *gnuplot, struct golden_err *err)
{
	enum golden_gnuplot_format fmt = golden_gnuplot_format(path);
	char data[PATH_MAX], script[PATH_MAX];

	if (fmt == GOLDEN_GNUPLOT_NONE)
		return golden_err_set(err, "%s: expected a file name ending in .svg or .png", path);
	if (!golden_gnuplot_path_ok(path))
		return golden_err_set(
		    err,
		    "%s: the path has characters gnuplot cannot be given; expected "
		    "printable text without quotes or backslashes",
		    path);
	if (!rep->nbins)
		return golden_err_set(err, "%s: nothing to draw (an empty window)", path);
	if (snprintf(data, sizeof(data), "%s.dat", path) >= (int)sizeof(data) ||
	    snprintf(script, sizeof(script), "%s.gp", path) >= (int)sizeof(script))
		return golden_err_set(err, "%s: path too long", path);
	if (write_file(data, rep, NULL, NULL, fmt, true, title, err) < 0 ||
	    write_file(script, rep, data, path, fmt, true, title, err) < 0)
		return -1;
	if (golden_gnuplot_run(gnuplot, script, err) == 0)
		return 0;
	if (fmt != GOLDEN_GNUPLOT_PNG || golden_gnuplot_find(gnuplot, data, sizeof(data)) < 0)
		return -1;
	snprintf(data, sizeof(data), "%s.dat", path);
	/* A gnuplot built without cairo: its own png terminal. */
	if (write_file(script, rep, data, path, fmt, false, title, err) < 0)
		return -1;
	return golden_gnuplot_run(gnuplot, script, err);
}
